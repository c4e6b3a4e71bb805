//! Commands built to exhaust the checker: deep nesting (a stack overflow
//! aborts the process), here-documents pending at the end of input (the
//! tokenizer loops, allocating), and shapes that make parsing or analysis
//! super-linear. Each is decided on a 2 MiB thread (a tokio worker's stack)
//! under a guard that fails the test, rather than hanging it, when a
//! decision takes over a second or grows the process by 100 MiB.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_policy::{Policy, PolicyBuilder, Request, Verdict, evaluate};

/// Longest a decision may take here (a debug build, other tests running).
pub const TIME_LIMIT: Duration = Duration::from_secs(1);
/// Most a decision may grow the process by.
pub const MEMORY_LIMIT: u64 = 100 << 20;

fn policy() -> Policy {
    PolicyBuilder::new("/w/project")
        .home(Some("/w/home".into()))
        .allow("Bash(ls *)")
        .allow("Bash(echo *)")
        .allow("Bash(cat *)")
        .deny("Bash(rm *)")
        .deny("Edit(./secrets/**)")
        .lexical_only()
        .build()
        .unwrap()
}

/// Resident memory of this process, where the system tells it.
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// brush-parser panics on some inputs, and tack-policy catches it; the
/// default hook would still print each one and, with `RUST_BACKTRACE` set,
/// symbolize a backtrace (which alone grows the process by 100 MiB). Keep
/// quiet about those, and only those.
fn quiet_parser_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_parser = info
                .location()
                .is_some_and(|l| l.file().contains("brush-parser"));
            if !in_parser {
                default(info);
            }
        }));
    });
}

/// Decide on `command` on a 2 MiB thread; fail if it takes longer than
/// [`TIME_LIMIT`] or the process grows by more than [`MEMORY_LIMIT`].
pub fn decide_within_bounds(policy: &Policy, command: &str) -> Verdict {
    decide_call_within_bounds(policy, "Bash", &json!({ "command": command }))
}

/// Decide on a call of `tool` with `input`, within the same bounds.
pub fn decide_call_within_bounds(policy: &Policy, tool: &str, input: &Value) -> Verdict {
    quiet_parser_panics();
    let (tx, rx) = mpsc::channel();
    let (p, t, i) = (policy.clone(), tool.to_string(), input.clone());
    let base = resident();
    let started = Instant::now();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let req = Request::lexical(&t, &i, "/w/project".as_ref(), &p);
            let _ = tx.send(evaluate(&req, &p).verdict());
        })
        .unwrap();
    let text = input.to_string();
    let shown: String = format!("{tool}({text})").chars().take(60).collect();
    loop {
        match rx.recv_timeout(Duration::from_millis(2)) {
            Ok(v) => return v,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("the decision on {shown:?} panicked")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        assert!(
            started.elapsed() < TIME_LIMIT,
            "deciding on {shown:?} ({} bytes) took over {TIME_LIMIT:?}",
            text.len()
        );
        if let (Some(b), Some(now)) = (base, resident()) {
            assert!(
                now.saturating_sub(b) < MEMORY_LIMIT,
                "deciding on {shown:?} ({} bytes) grew the process by {} MiB",
                text.len(),
                (now - b) >> 20
            );
        }
    }
}

fn nested(open: &str, middle: &str, close: &str, n: usize) -> String {
    format!("{}{middle}{}", open.repeat(n), close.repeat(n))
}

#[test]
fn deep_nesting_is_asked_not_a_crash() {
    let p = policy();
    // The report: 1,459 nested `{ ` (7 KB) overflowed the stack.
    let cases = [
        "{ ".repeat(1459),
        nested("{ ", "ls", "; }", 1459),
        nested("( ", "ls", " )", 3000),
        nested("$(", "ls", ")", 3000),
        nested("echo \"$(", "ls", ")\"", 2000),
        nested("if ", "true", "; then ls; fi", 2000),
        nested("while ", "true", "; do ls; done", 2000),
        nested("case x in x) ", "ls", ";; esac", 2000),
        nested("f() { ", "ls", "; }", 2000),
        format!("echo {}", nested("${x:-", "x", "}", 3000)),
        nested("[[ ( ", "a", " ) ]]", 2000),
        format!("[[ {}a ]]", "a && ".repeat(3000)),
        format!("bash -c '{}'", nested("{ ", "ls", "; }", 2000)),
    ];
    for c in &cases {
        assert_eq!(decide_within_bounds(&p, c), Verdict::Ask, "{}", &c[..40]);
    }
}

#[test]
fn nesting_within_the_bounds_is_still_checked() {
    let p = policy();
    // Deeper than a 2 MiB stack holds without growing it, and still judged
    // part by part.
    assert_eq!(
        decide_within_bounds(&p, &nested("{ ", "ls", "; }", 600)),
        Verdict::Allow
    );
    assert_eq!(
        decide_within_bounds(&p, &nested("{ ", "rm x", "; }", 600)),
        Verdict::Deny
    );
    assert_eq!(
        decide_within_bounds(&p, &nested("if true; then ", "rm x", "; fi", 300)),
        Verdict::Deny
    );
    assert_eq!(
        decide_within_bounds(&p, &nested("echo \"$(", "rm x", ")\"", 7)),
        Verdict::Deny
    );
}

#[test]
fn a_here_document_pending_at_the_end_of_input_is_asked() {
    let p = policy();
    // The report: `x <<'' $(` (9 bytes) allocated 2 GiB in under 3 s.
    // Forms the fuzzer found: an empty (or all-quote) delimiter with no line
    // end after it, inside substitutions or after a trailing backslash.
    for c in [
        "x <<'' $(",
        "x <<'' ",
        "x <<\"\" ",
        "x <<\"\" $(",
        "x <<- '' $(",
        "x <<'' <<'' $(",
        "x <<'' ${",
        "x <<'' $((",
        "$(x <<'' ",
        "<<-'' \\",
        "<<-${''} ",
        "${<<x$((''\t",
        "\n&<<-''( ({&\t",
        "${|#x-<<-$((''))$(",
    ] {
        // Returns at all; `<<-'' \` runs nothing, so it may be allowed.
        decide_within_bounds(&p, c);
    }
    assert_eq!(decide_within_bounds(&p, "rm x <<'' "), Verdict::Deny);
    assert_eq!(decide_within_bounds(&p, "ls <<'' $(rm x"), Verdict::Ask);
    // A well-formed here-document with an empty delimiter still reads.
    assert_eq!(
        decide_within_bounds(&p, "cat <<''\nhello\n\n"),
        Verdict::Allow
    );
    assert_eq!(
        decide_within_bounds(&p, "cat <<''\n$(rm x)\n\nrm y"),
        Verdict::Deny
    );
}

#[test]
fn super_linear_shapes_are_bounded() {
    let p = policy();
    // The report: 3,000 levels (18 KB) took 7–21 s. Within the nesting
    // bound such words are judged, in linear time.
    let defaults = |open: &str, close: &str, n| format!("echo {}", nested(open, "x", close, n));
    assert_eq!(
        decide_within_bounds(&p, &defaults("${x:-", "}", 1000)),
        Verdict::Allow
    );
    assert_eq!(
        decide_within_bounds(&p, &defaults("${x:-${y}", "}", 500)),
        Verdict::Allow
    );
    // Read again at every level until the budget runs out: the first
    // levels already deny.
    assert_eq!(
        decide_within_bounds(&p, &defaults("${x:-$(rm y)", "}", 500)),
        Verdict::Deny
    );
    // Brace expansion was found by a quadratic scan.
    assert_eq!(
        decide_within_bounds(&p, &format!("echo {}", "{".repeat(60_000))),
        Verdict::Allow
    );
    let cases = [
        defaults("${x:-", "}", 3000),
        defaults("${x:-$(:)", "}", 1000),
        defaults("${x:-$(ls)", "}", 300),
        defaults("${x:-\"$(echo ", ")\"}", 300),
        // The word parser backtracks exponentially on these.
        defaults("${a[", "]}", 6),
        defaults("${a[$((", "))]}", 5),
        format!("echo \"{}\"", "$(".repeat(30)),
        format!("cat <<EOF\n{}\nEOF", "$(".repeat(30)),
        format!("cat <<EOF\n{}\nEOF", "${x/".repeat(30)),
        format!("cat <<EOF\n{}\nEOF", "$((".repeat(30)),
        format!("cat <<EOF\n{}\nEOF", "${a[".repeat(30)),
        // Too long, too many words.
        "ls;".repeat(33_000),
        "ls;".repeat(20_000),
        format!("echo {}", "a ".repeat(30_000)),
        "ls | ".repeat(12_000) + "ls",
        format!("echo {}", "$(ls) ".repeat(9_000)),
        // Found by the fuzzer and by `examples/scan.rs`: `((` left open with
        // anything between them (fourfold per level), `name[` left open in
        // a word (twofold; 28 of them took 4 minutes).
        "((<<".repeat(9),
        "((<<".repeat(1000),
        "(( x".repeat(12),
        "((>".repeat(12),
        "((--upload-pack=".repeat(9),
        "a[$()".repeat(28),
        "a[''x".repeat(28),
        "a[\\x".repeat(28),
    ];
    for c in &cases {
        assert_eq!(decide_within_bounds(&p, c), Verdict::Ask, "{}", &c[..40]);
    }
}

#[test]
fn large_ordinary_commands_are_still_judged() {
    let p = policy();
    let body = "some text (a) {b} [c] $x\n".repeat(2000);
    assert_eq!(
        decide_within_bounds(&p, &format!("cat <<'EOF'\n{body}EOF")),
        Verdict::Allow
    );
    assert_eq!(
        decide_within_bounds(&p, &format!("cat <<EOF\n{body}$(rm x)\nEOF")),
        Verdict::Deny
    );
    assert_eq!(
        decide_within_bounds(&p, &format!("{}rm x", "ls; ".repeat(1000))),
        Verdict::Deny
    );
    assert_eq!(
        decide_within_bounds(&p, &format!("echo {}", "\"${x:-$y}\" ".repeat(500))),
        Verdict::Allow
    );
}

/// Every program name the analysis knows (each string literal that opens a
/// `match` arm in its sources), so a program added later is covered too.
fn programs_known_to_the_analysis() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/shell");
    let mut names = std::collections::BTreeSet::new();
    let mut files = vec![dir];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                files.push(entry.unwrap().path());
            }
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let arm = line.trim_start();
            if !arm.starts_with('"') || !arm.contains("=>") {
                continue;
            }
            let pattern = arm.split("=>").next().unwrap_or("");
            for name in pattern.split('|').map(|n| n.trim().trim_matches('"')) {
                let plain = name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c));
                if !name.is_empty() && plain && !name.starts_with('-') {
                    names.insert(name.to_string());
                }
            }
        }
    }
    names.into_iter().collect()
}

/// The report: `tar -O:-[:-[…` (one 8 KB word) took 340 ms and a 16 KB one
/// over a second, because each letter of an option cluster copied the rest
/// of the word; and `pee` with a thousand scripts took a second, because
/// each one wrote out the whole command again (and matched it against the
/// rules again). For every program the analysis knows, the largest command
/// it takes, as one clustered word, as thousands of options, as thousands of
/// operands, as a thousand long words and as repeated options that run or
/// write something, is judged in linear time (a quadratic step at 60 KB
/// takes seconds here).
#[test]
fn the_largest_commands_are_judged_in_linear_time_by_every_program() {
    // Rules that start with a wildcard are matched against every form of
    // every command, the wrappers' texts among them.
    let p = PolicyBuilder::new("/w/project")
        .home(Some("/w/home".into()))
        .allow("Bash(ls *)")
        .deny("Bash(rm *)")
        .deny("Bash(*--force*)")
        .ask("Bash(* secret *)")
        .deny("Edit(./secrets/**)")
        .lexical_only()
        .build()
        .unwrap();
    let names = programs_known_to_the_analysis();
    assert!(
        names.len() > 100,
        "found only {} program names",
        names.len()
    );
    let long = ":-[x".repeat(15);
    for name in &names {
        let size = 60 * 1024 - name.len();
        let shapes = [
            format!("{name} -O{}", ":-[x".repeat(size / 4)),
            format!("{name} {}", "-x ".repeat(size / 3)),
            format!("{name} -- {}", "a ".repeat(size / 2)),
            format!("{name} {}", format!("-xO{long} ").repeat(size / 64)),
            format!("{name} {}", format!("--output={long} ").repeat(size / 70)),
            format!("{name} {}", format!("$x{long} ").repeat(size / 64)),
            // Options and primaries that run or write something, repeated.
            format!(
                "{name} {}",
                format!("-delete -exec ls{long} ; -e ls{long} -c ls{long} -F ls{long} -o o{long} ")
                    .repeat(size / 330)
            ),
        ];
        for command in &shapes {
            decide_within_bounds(&p, command);
        }
    }
}

/// The report: a Read of a path 30,000 directories deep (60 KB) took 1.8 s,
/// because a path was matched against the rules once for each of its
/// ancestors. The largest input of every tool that names paths, URLs or
/// patterns, in the shapes that are long in depth, in length or in
/// repetition, is judged in linear time, with rules that begin with `**`.
#[test]
fn the_largest_inputs_of_every_tool_are_judged_in_linear_time() {
    let p = PolicyBuilder::new("/w/project")
        .home(Some("/w/home".into()))
        .allow("Read(./src/**)")
        .deny("Read(**/.env*)")
        .ask("Read(**/secrets/**/*.key)")
        .deny("Edit(./secrets/**)")
        .ask("Edit(**/*.lock)")
        .ask("WebFetch(domain:*.example.com)")
        .lexical_only()
        .build()
        .unwrap();
    let paths = [
        "a/".repeat(30_000),
        "a/../".repeat(12_000),
        "./".repeat(30_000),
        "*/".repeat(30_000),
        "a".repeat(60_000),
        format!("{}.env", "a/".repeat(29_000)),
    ];
    for path in &paths {
        let abs = format!("/w/project/{path}");
        let calls = [
            ("Read", json!({ "file_path": abs })),
            ("Write", json!({ "file_path": abs, "content": "x" })),
            (
                "Edit",
                json!({ "file_path": abs, "old_string": "a", "new_string": "b" }),
            ),
            (
                "NotebookEdit",
                json!({ "notebook_path": abs, "new_source": "x" }),
            ),
            ("Glob", json!({ "pattern": path, "path": abs })),
            ("Grep", json!({ "pattern": "x", "path": abs })),
            ("LS", json!({ "path": abs })),
            ("Bash", json!({ "command": format!("cat {abs}") })),
            (
                "WebFetch",
                json!({ "url": format!("https://example.com/{path}"), "prompt": "x" }),
            ),
        ];
        for (tool, input) in &calls {
            decide_call_within_bounds(&p, tool, input);
        }
    }
    // The deny rule still reaches the end of a deep path.
    let deep = format!("/w/project/{}.env", "a/".repeat(29_000));
    assert_eq!(
        decide_call_within_bounds(&p, "Read", &json!({ "file_path": deep })),
        Verdict::Deny
    );
    let host = format!("https://{}example.com/", "a.".repeat(30_000));
    decide_call_within_bounds(&p, "WebFetch", &json!({ "url": host, "prompt": "x" }));
}

/// A global option of git's that takes a value, written last with none
/// (`git -C`, `git -c`): the reading of the hosts git reaches stepped past
/// the end of the words and panicked (found by the fuzz test). Each program
/// known to the analysis, given such a tail, is decided, not a crash.
#[test]
fn an_option_missing_its_value_at_the_end_is_decided() {
    let policy = policy();
    for command in [
        "git -C",
        "git -c",
        "git --git-dir",
        "git -C /w/project -c",
        "git push -C",
    ] {
        let verdict = decide_within_bounds(&policy, command);
        assert_ne!(verdict, Verdict::Deny, "{command}");
    }
    for program in programs_known_to_the_analysis() {
        for tail in ["-C", "-c", "-o", "--config", "-f", "-e", "--"] {
            let command = format!("{program} {tail}");
            let _ = decide_within_bounds(&policy, &command);
        }
    }
}
