//! One permission decision with 1,000 rules loaded (Bash, Read, Edit,
//! WebFetch, MCP): a compound Bash command and a Read path. Prints mean,
//! p50 and p99 for the whole decision (resolve + evaluate) and for the pure
//! evaluation alone. Then commands built to exhaust the checker (deep
//! nesting, a here-document pending at the end of input, super-linear
//! shapes, 100 KB inputs), resolve + evaluate.
//!
//! `cargo bench -p tack-policy --bench decide`
#![allow(clippy::expect_used, reason = "a benchmark fails loudly")]

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_policy::{Policy, PolicyBuilder, Request, evaluate};

const ITERATIONS: usize = 20_000;

fn policy(root: &std::path::Path) -> Policy {
    let mut b = PolicyBuilder::new(root).home(Some(root.join("home")));
    let tools = [
        "cargo", "npm", "git", "make", "docker", "kubectl", "python", "node",
    ];
    for i in 0..400 {
        let t = tools[i % tools.len()];
        let rule = format!("Bash({t} sub{i} *)");
        b = match i % 4 {
            0 => b.deny(&rule),
            1 => b.ask(&rule),
            _ => b.allow(&rule),
        };
    }
    for i in 0..150 {
        b = b.deny(&format!("Read(./secret{i}/**)"));
        b = b.allow(&format!("Edit(./gen{i}/**/*.rs)"));
    }
    for i in 0..100 {
        b = b.allow(&format!("WebFetch(domain:site{i}.example.com)"));
        b = b.deny(&format!("WebFetch(domain:*.bad{i}.example)"));
    }
    for i in 0..100 {
        b = b.allow(&format!("mcp__server{i}"));
    }
    b = b
        .allow("Bash(cd *)")
        .allow("Bash(git status)")
        .allow("Bash(cargo test *)")
        .allow("Bash(tail *)")
        .deny("Bash(rm *)");
    b.build().expect("rules compile")
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let total: Duration = samples.iter().sum();
    let n = samples.len();
    let mean = total / n as u32;
    let p50 = samples[n / 2];
    let p99 = samples[n * 99 / 100];
    println!(
        "{name:<42} mean {:>8.2} µs   p50 {:>8.2} µs   p99 {:>8.2} µs",
        mean.as_secs_f64() * 1e6,
        p50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6
    );
}

fn measure(f: impl FnMut()) -> Vec<Duration> {
    measure_n(ITERATIONS, f)
}

fn measure_n(iterations: usize, mut f: impl FnMut()) -> Vec<Duration> {
    for _ in 0..iterations / 20 {
        f();
    }
    (0..iterations)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect()
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical temp dir");
    for d in ["src", "out", "home"] {
        std::fs::create_dir_all(root.join(d)).expect("fixture");
    }
    std::fs::write(root.join("src/lib.rs"), "").expect("fixture");
    let policy = policy(&root);
    println!("{} rules loaded", policy.rules().len());

    let bash = json!({"command":
        "cd src && git status && cargo test --workspace 2>&1 | tail -n 50 > ../out/log.txt"});
    let read = json!({"file_path": "src/lib.rs"});

    let bash_req = Request::resolve("Bash", &bash, &root, &policy);
    let read_req = Request::resolve("Read", &read, &root, &policy);
    assert!(
        evaluate(&bash_req, &policy).is_ask(),
        "{}",
        evaluate(&bash_req, &policy)
    );
    assert!(evaluate(&read_req, &policy).is_allow());

    report(
        "Bash compound: resolve + evaluate",
        measure(|| {
            let r = Request::resolve("Bash", black_box(&bash), &root, &policy);
            black_box(evaluate(&r, &policy));
        }),
    );
    report(
        "Bash compound: evaluate only",
        measure(|| {
            black_box(evaluate(black_box(&bash_req), &policy));
        }),
    );
    report(
        "Read path: resolve + evaluate",
        measure(|| {
            let r = Request::resolve("Read", black_box(&read), &root, &policy);
            black_box(evaluate(&r, &policy));
        }),
    );
    report(
        "Read path: evaluate only",
        measure(|| {
            black_box(evaluate(black_box(&read_req), &policy));
        }),
    );
    // An MCP tool's input: its paths and URLs meet the path and domain rules.
    let mcp = json!({"path": "src/lib.rs", "options": {"url": "https://docs.rs/x",
        "tags": ["a", "b"], "content": "x".repeat(2000)}});
    report(
        "MCP tool with a path and a URL: resolve + evaluate",
        measure(|| {
            let r = Request::resolve("mcp__fs__read_file", black_box(&mcp), &root, &policy);
            black_box(evaluate(&r, &policy));
        }),
    );

    // File-changing commands with Bash allowed and no path rules: what they
    // write and remove is found for the protected paths and critical
    // removals alone.
    let plain = PolicyBuilder::new(&root)
        .home(Some(root.join("home")))
        .allow("Bash")
        .build()
        .expect("rules compile");
    let changes = json!({"command":
        "cp -r src out/ && mv out/a out/b && rm -rf out/old && chmod +x out/run.sh && echo ok > out/log.txt"});
    report(
        "file-changing commands, no path rules: resolve + evaluate",
        measure(|| {
            let r = Request::resolve("Bash", black_box(&changes), &root, &plain);
            black_box(evaluate(&r, &plain));
        }),
    );

    // A file tool's write in acceptEdits, met by the protected paths: the
    // repository it lands in is looked for and its git configuration read
    // (once, then its files' stamps checked); one outside any repository.
    let repo = root.join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect("fixture");
    std::fs::create_dir_all(repo.join("src/deep/er")).expect("fixture");
    std::fs::write(
        repo.join(".git/config"),
        "[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks\n",
    )
    .expect("fixture");
    let edits = PolicyBuilder::new(&root)
        .home(Some(root.join("home")))
        .mode(tack_policy::Mode::AcceptEdits)
        .build()
        .expect("rules compile");
    for (name, file) in [
        ("Write in a repository", "repo/src/deep/er/new.rs"),
        ("Write outside any repository", "src/new.rs"),
    ] {
        let write = json!({"file_path": file, "content": "x"});
        let req = Request::resolve("Write", &write, &root, &edits);
        assert!(evaluate(&req, &edits).is_allow(), "{name}");
        report(
            &format!("{name}, acceptEdits: resolve + evaluate"),
            measure(|| {
                let r = Request::resolve("Write", black_box(&write), &root, &edits);
                black_box(evaluate(&r, &edits));
            }),
        );
        report(
            &format!("{name}, acceptEdits: evaluate only"),
            measure(|| {
                black_box(evaluate(black_box(&req), &edits));
            }),
        );
    }

    // A command whose words may name a process's secret (`process`,
    // `state`): its paths are collected with no path rule, to be checked.
    let wordy = json!({"command":
        "git commit -m 'fix the process state machine and its memory use' src/lib.rs"});
    report(
        "Bash with `process`/`state`/`mem` words, no path rules",
        measure(|| {
            let r = Request::resolve("Bash", black_box(&wordy), &root, &plain);
            black_box(evaluate(&r, &plain));
        }),
    );

    // An approval's scripts, at every start of a project with hooks: the
    // files a hook's command runs, and a digest of them and of the six
    // 4 KB files beside them.
    let hooks = root.join(".claude/hooks");
    std::fs::create_dir_all(&hooks).expect("fixture");
    for i in 0..6 {
        std::fs::write(hooks.join(format!("h{i}.sh")), "echo x\n".repeat(585)).expect("fixture");
    }
    let line = "bash \"$CLAUDE_PROJECT_DIR/.claude/hooks/h0.sh\" --strict";
    report(
        "a hook's scripts: found + digest (6 files)",
        measure_n(2_000, || {
            let scripts = tack_policy::project_scripts(
                tack_policy::ConfiguredCommand::Shell(black_box(line)),
                &root,
                None,
            );
            black_box(tack_policy::scripts_digest(&scripts, &root));
        }),
    );

    // A path 30,000 directories deep (60 KB), with rules any directory can
    // match (`**/…`): it was matched once for each of its ancestors,
    // quadratic in its length.
    let deep = json!({ "file_path": format!("{}/{}x", root.display(), "a/".repeat(30_000)) });
    let anywhere = PolicyBuilder::new(&root)
        .home(Some(root.join("home")))
        .deny("Read(**/.env*)")
        .deny("Read(**/*.pem)")
        .build()
        .expect("rules compile");
    report(
        "Read path 30,000 deep (60 KB), `**/` rules: resolve + evaluate",
        measure_n(20, || {
            let r = Request::resolve("Read", black_box(&deep), &root, &anywhere);
            black_box(evaluate(&r, &anywhere));
        }),
    );

    git_content();

    for (name, command) in adversarial() {
        let input = json!({ "command": command });
        let r = Request::resolve("Bash", &input, &root, &policy);
        assert!(!evaluate(&r, &policy).is_allow(), "{name}");
        report(
            &format!("{name} ({} B)", command.len()),
            measure_n(200, || {
                let r = Request::resolve("Bash", black_box(&input), &root, &policy);
                black_box(evaluate(&r, &policy));
            }),
        );
    }
}

/// What git prints from what it tracks, against a Read deny rule: a
/// repository of 5,000 tracked files (its index read once, then cached),
/// `git log -p` (the whole tree checked), `git log -p -- src/0` (narrowed)
/// and `git status` (no content); `grep -R` over a directory of 1,000
/// entries, 20 of them links (each followed link meets the rules); `git
/// push` by a remote's name (its URL read from the configuration); `rg`
/// leaving the hidden `.env` out.
#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the benchmark makes its repository with git(1)"
)]
fn git_content() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical temp dir");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    for i in 0..5_000 {
        let p = root.join(format!("src/{}/f{i}.rs", i % 50));
        std::fs::create_dir_all(p.parent().expect("parent")).expect("fixture");
        std::fs::write(&p, "x").expect("fixture");
    }
    std::fs::write(root.join(".env"), "TOKEN=x").expect("fixture");
    git(&["add", "."]);
    git(&["remote", "add", "origin", "https://github.com/x/y.git"]);
    git(&["remote", "add", "backup", "/srv/backup.git"]);
    for i in 0..980 {
        std::fs::write(root.join(format!("src/1/g{i}")), "x").expect("fixture");
    }
    for i in 0..20 {
        std::os::unix::fs::symlink("../../src/2", root.join(format!("src/1/l{i}")))
            .expect("fixture");
    }
    let policy = PolicyBuilder::new(&root)
        .home(Some(root.join("home")))
        .allow("Bash")
        .deny("Read(./.env)")
        .deny("Read(./secrets/**)")
        .build()
        .expect("rules compile");
    for (name, command, allowed) in [
        (
            "git log -p, 5,000 tracked files, .env denied",
            "git log -p",
            false,
        ),
        (
            "git log -p -- src/0 (narrowed)",
            "git log -p -- src/0",
            true,
        ),
        ("git status (prints no content)", "git status", true),
        (
            "grep -R over 1,000 entries, 20 links followed",
            "grep -R x src/1",
            true,
        ),
        (
            "git push origin (a remote's URL read from the config)",
            "git push origin main",
            true,
        ),
        (
            "git push backup (a remote on this machine)",
            "git push backup main",
            false,
        ),
        (
            "rg x over 6,000 entries, .env hidden (left out)",
            "rg x",
            true,
        ),
    ] {
        let input = json!({ "command": command });
        let r = Request::resolve("Bash", &input, &root, &policy);
        assert_eq!(evaluate(&r, &policy).is_allow(), allowed, "{command}");
        report(
            &format!("{name}: resolve + evaluate"),
            measure_n(2_000, || {
                let r = Request::resolve("Bash", black_box(&input), &root, &policy);
                black_box(evaluate(&r, &policy));
            }),
        );
    }
}

/// Commands from the red team's reports (F5, F6, F13) and their 100 KB kin,
/// and the shapes that were quadratic in the analysis (a long option
/// cluster; a wrapper running each of its arguments).
fn adversarial() -> Vec<(&'static str, String)> {
    let nested = |open: &str, middle: &str, close: &str, n: usize| {
        format!("{}{middle}{}", open.repeat(n), close.repeat(n))
    };
    vec![
        ("F5 1,459 nested `{ `", "{ ".repeat(1459)),
        ("F6 `x <<'' $(`", "x <<'' $(".to_string()),
        (
            "F13 `${x:-` 3,000 deep",
            format!("echo {}", nested("${x:-", "x", "}", 3000)),
        ),
        (
            "`${x:-$(rm x)` 500 deep",
            format!("echo {}", nested("${x:-$(rm x)", "x", "}", 500)),
        ),
        (
            "`${a[` 6 deep",
            format!("echo {}", nested("${a[", "x", "]}", 6)),
        ),
        ("`((` 24 in a row", nested("(", "ls;", ")", 24)),
        ("100 KB of `{ `", "{ ".repeat(50_000)),
        (
            "100 KB of `${x:-`",
            format!("echo {}", nested("${x:-", "x", "}", 16_600)),
        ),
        ("100 KB of `ls;`", "ls;".repeat(33_000)),
        ("60 KB of `rm x;`", "rm x;".repeat(12_000)),
        ("60 KB of `a[`", format!("echo {}", "a[".repeat(30_000))),
        (
            "60 KB `tar -O…`, one option cluster",
            format!("tar -O{}", ":-[x".repeat(15_000)),
        ),
        (
            "60 KB `pee`, 1,000 scripts",
            format!("pee {}", format!("'rm -{}' ", "f".repeat(56)).repeat(1_000)),
        ),
        // A program tack does not know, its words guessed as commands (at
        // most 12 guesses, each as long as the rest of the line).
        (
            "60 KB to an unknown program, `rm` words",
            format!("mytool {}", "rm x ".repeat(12_000)),
        ),
        (
            "60 KB to an unknown program, `-c` lines",
            format!("mytool {}", "-c 'rm x; rm y' ".repeat(4_000)),
        ),
    ]
}
