//! Glob and Grep on real trees in temp dirs, checked against what `rg`
//! gives for the same search (and, when `rg` is installed, against `rg`
//! itself).

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::json;
use tack_tool::ToolError;

use crate::files::Env;

fn set_age(path: &Path, seconds_ago: u64) {
    let when = SystemTime::now() - Duration::from_secs(seconds_ago);
    filetime::set_file_mtime(path, filetime::FileTime::from_system_time(when)).unwrap();
}

/// Makes `root` a git repository as far as ignore rules go.
fn git_repo(env: &Env) {
    std::fs::create_dir_all(env.path(".git")).unwrap();
    env.put(".git/config", "[core]\n");
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

// ---------------------------------------------------------------- Glob

#[tokio::test]
async fn glob_lists_absolute_paths_newest_first() {
    let env = Env::new();
    let old = env.put("old.txt", "");
    let mid = env.put("sub/mid.txt", "");
    let new = env.put("sub/deeper/new.txt", "");
    env.put("other.md", "");
    set_age(&old, 300);
    set_age(&mid, 200);
    set_age(&new, 100);
    let out = env.ok("Glob", json!({"pattern": "**/*.txt"})).await;
    assert_eq!(
        lines(&out),
        [
            new.to_str().unwrap(),
            mid.to_str().unwrap(),
            old.to_str().unwrap()
        ]
    );
}

#[tokio::test]
async fn glob_star_does_not_cross_directories() {
    let env = Env::new();
    let top = env.put("top.rs", "");
    env.put("src/nested.rs", "");
    let out = env.ok("Glob", json!({"pattern": "*.rs"})).await;
    assert_eq!(lines(&out), [top.to_str().unwrap()]);
    let out = env.ok("Glob", json!({"pattern": "src/*.{rs,toml}"})).await;
    assert_eq!(lines(&out), [env.path("src/nested.rs").to_str().unwrap()]);
}

#[tokio::test]
async fn glob_respects_gitignore_skips_dot_git_and_lists_hidden_files() {
    let env = Env::new();
    git_repo(&env);
    env.put(".gitignore", "target/\n*.log\n");
    env.put("target/debug/out.yml", "");
    env.put("debug.log", "");
    let ci = env.put(".github/workflows/ci.yml", "");
    let kept = env.put("config.yml", "");
    set_age(&kept, 100);
    let out = env.ok("Glob", json!({"pattern": "**/*"})).await;
    let mut found = lines(&out);
    found.sort();
    let mut expected = [env.path(".gitignore"), ci, kept];
    expected.sort();
    let expected: Vec<&str> = expected.iter().map(|p| p.to_str().unwrap()).collect();
    assert_eq!(found, expected);
}

#[tokio::test]
async fn glob_caps_results_at_100_and_counts_the_rest() {
    let env = Env::new();
    for i in 0..150 {
        let p = env.put(&format!("f{i:03}.txt"), "");
        set_age(&p, 1000 - i);
    }
    let out = env.ok("Glob", json!({"pattern": "*.txt"})).await;
    let all = lines(&out);
    assert_eq!(all.len(), 101);
    assert_eq!(all[0], env.path("f149.txt").to_str().unwrap());
    assert_eq!(all[99], env.path("f050.txt").to_str().unwrap());
    assert_eq!(
        all[100],
        "(50 more files match, 150 in all; these are the 100 most recently modified. Narrow the pattern or path to see the others.)"
    );
}

#[tokio::test]
async fn glob_path_argument_and_absolute_patterns() {
    let env = Env::new();
    let a = env.put("pkg/a/x.rs", "");
    env.put("other/y.rs", "");
    let out = env
        .ok(
            "Glob",
            json!({"pattern": "**/*.rs", "path": env.path("pkg")}),
        )
        .await;
    assert_eq!(lines(&out), [a.to_str().unwrap()]);
    let absolute = format!("{}/**/*.rs", env.path("pkg").display());
    let out = env.ok("Glob", json!({"pattern": absolute})).await;
    assert_eq!(lines(&out), [a.to_str().unwrap()]);
}

#[tokio::test]
async fn glob_errors_and_empty_results() {
    let env = Env::new();
    env.put("file.txt", "");
    let err = env
        .err("Glob", json!({"pattern": "*", "path": env.path("missing")}))
        .await;
    assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
    assert!(
        err.to_string()
            .contains(&env.path("missing").display().to_string()),
        "{err}"
    );
    let err = env
        .err(
            "Glob",
            json!({"pattern": "*", "path": env.path("file.txt")}),
        )
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    let err = env.err("Glob", json!({"pattern": "a[b"})).await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("invalid glob"), "{err}");
    let out = env.ok("Glob", json!({"pattern": "*.nothing"})).await;
    assert!(out.starts_with("No files match \"*.nothing\""), "{out}");
}

// ---------------------------------------------------------------- Grep

/// A small tree: two Rust files, a Markdown file, an ignored file, a hidden
/// file and a binary file, all containing "needle".
fn grep_tree(env: &Env) {
    git_repo(env);
    env.put(".gitignore", "ignored.rs\n");
    env.put(
        "src/a.rs",
        "fn one() {}\nlet needle = 1;\nfn two() {}\nfn three() {}\nfn four() {}\nfn five() {}\nNEEDLE again\nfn eight() {}\n",
    );
    env.put("src/b.rs", "no match here\nneedle in b\n");
    env.put("docs/readme.md", "a needle in the docs\n");
    env.put("ignored.rs", "needle ignored\n");
    env.put(".hidden/secret.rs", "needle hidden\n");
    env.put("bin/data.bin", b"needle\0binary\n");
}

#[tokio::test]
async fn grep_files_with_matches_is_the_default_newest_first() {
    let env = Env::new();
    grep_tree(&env);
    set_age(&env.path("src/a.rs"), 300);
    set_age(&env.path("docs/readme.md"), 200);
    set_age(&env.path("src/b.rs"), 100);
    let out = env.ok("Grep", json!({"pattern": "needle"})).await;
    assert_eq!(
        lines(&out),
        [
            env.path("src/b.rs").to_str().unwrap(),
            env.path("docs/readme.md").to_str().unwrap(),
            env.path("src/a.rs").to_str().unwrap(),
        ],
        "ignored, hidden and binary files are skipped"
    );
}

#[tokio::test]
async fn grep_content_mode_prints_rg_heading_layout_with_line_numbers() {
    let env = Env::new();
    grep_tree(&env);
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "output_mode": "content", "-i": true, "type": "rust"}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}\n2:let needle = 1;\n7:NEEDLE again\n\n{}\n2:needle in b",
            env.path("src/a.rs").display(),
            env.path("src/b.rs").display()
        )
    );
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "output_mode": "content", "-n": false, "path": env.path("src/b.rs")}),
        )
        .await;
    assert_eq!(
        out,
        format!("{}\nneedle in b", env.path("src/b.rs").display())
    );
}

#[tokio::test]
async fn grep_context_lines_and_group_separators() {
    let env = Env::new();
    grep_tree(&env);
    let a = env.path("src/a.rs");
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "-i": true, "output_mode": "content", "-C": 1, "path": a}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}\n1-fn one() {{}}\n2:let needle = 1;\n3-fn two() {{}}\n--\n6-fn five() {{}}\n7:NEEDLE again\n8-fn eight() {{}}",
            a.display()
        )
    );
    // Groups that touch are merged, without a separator.
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "-i": true, "output_mode": "content", "-A": 3, "path": a}),
        )
        .await;
    assert_eq!(
        lines(&out)[1..],
        [
            "2:let needle = 1;",
            "3-fn two() {}",
            "4-fn three() {}",
            "5-fn four() {}",
            "--",
            "7:NEEDLE again",
            "8-fn eight() {}"
        ]
    );
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "NEEDLE", "output_mode": "content", "-B": 5, "path": a}),
        )
        .await;
    assert_eq!(
        lines(&out)[1..],
        [
            "2-let needle = 1;",
            "3-fn two() {}",
            "4-fn three() {}",
            "5-fn four() {}",
            "6-fn five() {}",
            "7:NEEDLE again"
        ]
    );
    // Context is ignored outside content mode.
    let out = env
        .ok("Grep", json!({"pattern": "needle", "-C": 3, "path": a}))
        .await;
    assert_eq!(out, a.display().to_string());
}

#[tokio::test]
async fn grep_count_mode_counts_matching_lines_per_file() {
    let env = Env::new();
    grep_tree(&env);
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "output_mode": "count", "-i": true}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}:1\n{}:2\n{}:1\n(4 matching lines in 3 files.)",
            env.path("docs/readme.md").display(),
            env.path("src/a.rs").display(),
            env.path("src/b.rs").display()
        )
    );
}

#[tokio::test]
async fn grep_is_case_sensitive_unless_asked() {
    let env = Env::new();
    grep_tree(&env);
    let a = env.path("src/a.rs");
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "NEEDLE", "output_mode": "count", "path": a}),
        )
        .await;
    assert!(out.starts_with(&format!("{}:1\n", a.display())), "{out}");
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "NEEDLE", "output_mode": "count", "path": a, "-i": true}),
        )
        .await;
    assert!(out.starts_with(&format!("{}:2\n", a.display())), "{out}");
}

#[tokio::test]
async fn grep_multiline_spans_lines_only_when_asked() {
    let env = Env::new();
    let f = env.put("m.rs", "struct Foo {\n    a: u8,\n}\nfn x() {}\n");
    let err = env
        .err("Grep", json!({"pattern": "Foo \\{\\n", "path": f}))
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("multiline"), "{err}");
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "struct Foo \\{.*?\\}", "multiline": true, "output_mode": "content", "path": f}),
        )
        .await;
    assert_eq!(
        out,
        format!("{}\n1:struct Foo {{\n2:    a: u8,\n3:}}", f.display())
    );
    // Without multiline, `.` stops at the end of the line.
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "struct Foo \\{.*?\\}", "output_mode": "content", "path": f}),
        )
        .await;
    assert!(out.starts_with("No matches"), "{out}");
}

#[tokio::test]
async fn grep_type_and_glob_filters() {
    let env = Env::new();
    grep_tree(&env);
    let out = env
        .ok("Grep", json!({"pattern": "needle", "type": "md"}))
        .await;
    assert_eq!(out, env.path("docs/readme.md").display().to_string());
    let out = env
        .ok("Grep", json!({"pattern": "needle", "glob": "*.md"}))
        .await;
    assert_eq!(out, env.path("docs/readme.md").display().to_string());
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "glob": "!*.md", "output_mode": "count"}),
        )
        .await;
    assert!(!out.contains("readme.md") && out.contains("b.rs"), "{out}");
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "glob": "src/b.* docs/*", "output_mode": "count"}),
        )
        .await;
    assert!(out.ends_with("(2 matching lines in 2 files.)"), "{out}");
    let err = env
        .err("Grep", json!({"pattern": "needle", "type": "nosuchlang"}))
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("nosuchlang"), "{err}");
}

#[tokio::test]
async fn grep_head_limit_caps_output_and_says_how_much_was_left_out() {
    let env = Env::new();
    let body: String = (1..=300).map(|i| format!("hit {i}\n")).collect();
    let f = env.put("many.txt", body);
    let out = env
        .ok("Grep", json!({"pattern": "hit", "output_mode": "content"}))
        .await;
    let all = lines(&out);
    assert_eq!(
        all.len(),
        1 + 250 + 2,
        "path, 250 lines (the default), blank, note"
    );
    assert_eq!(all[250], "250:hit 250");
    assert_eq!(
        all[252],
        "(Showing 250 of 300 lines from 1 file; 50 left out. Narrow the search, raise head_limit (0 for all), or read on with offset 250.)"
    );
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "hit", "output_mode": "content", "head_limit": 3}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}\n1:hit 1\n2:hit 2\n3:hit 3\n\n(Showing 3 of 300 lines from 1 file; 297 left out. Narrow the search, raise head_limit (0 for all), or read on with offset 3.)",
            f.display()
        )
    );
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "hit", "output_mode": "content", "head_limit": 0}),
        )
        .await;
    assert_eq!(lines(&out).len(), 301);

    for i in 0..5 {
        env.put(&format!("f{i}.txt"), "hit\n");
    }
    let out = env
        .ok("Grep", json!({"pattern": "hit", "head_limit": 2}))
        .await;
    assert_eq!(lines(&out).len(), 3);
    assert!(
        out.ends_with("(Showing 2 of 6 matching files, most recently modified first; 4 left out. Narrow the search, raise head_limit (0 for all), or read on with offset 2.)"),
        "{out}"
    );
}

#[tokio::test]
async fn grep_offset_pages_through_lines_files_and_counts() {
    let env = Env::new();
    let a = env.put("a.txt", "hit 1\nmiss\nhit 2\nhit 3\n");
    let b = env.put("b.txt", "hit 4\nhit 5\n");
    // content: lines 3-4 of 5, across the two files, each under its path
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "hit", "output_mode": "content", "offset": 2, "head_limit": 2}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}\n4:hit 3\n\n{}\n1:hit 4\n\n(Showing lines 3-4 of 5 from 2 files (offset 2); 1 after these. Narrow the search, raise head_limit (0 for all), or read on with offset 4.)",
            a.display(),
            b.display()
        )
    );
    // the last page says nothing is left
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "hit", "output_mode": "content", "offset": 4}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}\n2:hit 5\n\n(Showing lines 5-5 of 5 from 2 files (offset 4); 0 after these.)",
            b.display()
        )
    );
    // context lines count as lines; a group break is not shown before the first line of a page
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "hit [13]", "output_mode": "content", "-A": 1, "offset": 1, "path": a.display().to_string()}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}\n2-miss\n--\n4:hit 3\n\n(Showing lines 2-3 of 3 from 1 file (offset 1); 0 after these.)",
            a.display()
        )
    );
    // files and counts skip whole entries
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "hit", "output_mode": "count", "offset": 1}),
        )
        .await;
    assert_eq!(
        out,
        format!(
            "{}:2\n(5 matching lines in 2 files. Showing files 2-2 of 2 (offset 1); 0 after these.)",
            b.display()
        )
    );
    let out = env.ok("Grep", json!({"pattern": "hit", "offset": 1})).await;
    assert_eq!(lines(&out).len(), 2, "{out}");
    assert!(
        out.ends_with("(Showing matching files 2-2 of 2, most recently modified first (offset 1); 0 after these.)"),
        "{out}"
    );
    // past the end: told so, not an empty answer
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "hit", "output_mode": "content", "offset": 9}),
        )
        .await;
    assert_eq!(
        out,
        "(offset 9 is past the end: there are 5 lines from 2 files. Use a smaller offset.)"
    );
}

#[tokio::test]
async fn grep_errors_name_the_problem() {
    let env = Env::new();
    env.put("a.txt", "x\n");
    let err = env.err("Grep", json!({"pattern": "fn new("})).await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("invalid regular expression \"fn new(\""),
        "{msg}"
    );
    assert!(msg.contains("unclosed group"), "{msg}");
    assert!(msg.contains("escape a literal"), "{msg}");
    let err = env
        .err("Grep", json!({"pattern": "x", "path": env.path("nowhere")}))
        .await;
    assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
    let err = env
        .err("Grep", json!({"pattern": "x", "output_mode": "lines"}))
        .await;
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    let err = env
        .err("Grep", json!({"pattern": "x", "ignore_case": true}))
        .await;
    assert!(err.to_string().contains("ignore_case"), "{err}");
    let out = env.ok("Grep", json!({"pattern": "zzz"})).await;
    assert!(out.starts_with("No matches for \"zzz\""), "{out}");
}

#[tokio::test]
async fn grep_cuts_very_long_lines() {
    let env = Env::new();
    let f = env.put(
        "min.js",
        format!("{}needle{}\n", "a".repeat(100), "b".repeat(1000)),
    );
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "output_mode": "content", "path": f}),
        )
        .await;
    let line = lines(&out)[1];
    assert!(line.starts_with("1:aaaa"), "{line}");
    assert!(line.ends_with("… [line cut: 1106 characters]"), "{line}");
    assert_eq!(
        line.chars().count(),
        "1:".len() + 500 + "… [line cut: 1106 characters]".chars().count()
    );
}

/// Runs `rg` when it is installed; `None` otherwise.
fn rg(args: &[&str], cwd: &Path) -> Option<String> {
    let out = std::process::Command::new("rg")
        .args(args)
        .current_dir(cwd)
        .output()
        .ok()?;
    Some(String::from_utf8(out.stdout).unwrap())
}

#[tokio::test]
async fn grep_content_output_is_what_rg_heading_prints() {
    let env = Env::new();
    grep_tree(&env);
    for i in 0..20 {
        env.put(
            &format!("gen/f{i:02}.txt"),
            (0..40)
                .map(|l| {
                    if (l * 7 + i) % 11 == 0 {
                        format!("needle {l}\n")
                    } else {
                        format!("hay {l}\n")
                    }
                })
                .collect::<String>(),
        );
    }
    let root = env.root.to_str().unwrap();
    let ours = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "-i": true, "output_mode": "content", "-C": 2, "head_limit": 0}),
        )
        .await;
    let expected_head = format!("{}\n", env.path("docs/readme.md").display());
    assert!(ours.starts_with(&expected_head), "{ours}");
    match rg(
        &[
            "--heading",
            "-n",
            "-i",
            "-C",
            "2",
            "--sort",
            "path",
            "--color",
            "never",
            "needle",
            root,
        ],
        &env.root,
    ) {
        Some(theirs) => assert_eq!(ours, theirs.trim_end()),
        None => eprintln!("rg is not installed: compared with the expected layout only"),
    }
    let ours = env
        .ok(
            "Grep",
            json!({"pattern": "needle", "output_mode": "count", "head_limit": 0}),
        )
        .await;
    if let Some(theirs) = rg(&["-c", "--sort", "path", "needle", root], &env.root) {
        let ours: Vec<&str> = ours.lines().filter(|l| !l.starts_with('(')).collect();
        assert_eq!(ours, theirs.lines().collect::<Vec<_>>());
    }
}

#[tokio::test]
async fn reads_and_searches_stop_when_cancelled() {
    let env = Env::new();
    let file = env.put("a.txt", "x\n");
    let ctx = env.ctx();
    ctx.cancel.cancel();
    for (tool, input) in [
        ("Grep", json!({"pattern": "x"})),
        ("Glob", json!({"pattern": "*"})),
        ("Read", json!({"file_path": file})),
    ] {
        let registered = env.registry.get(tool).unwrap();
        let err = registered.tool.call(input, ctx.clone()).await.unwrap_err();
        assert!(matches!(err, ToolError::Interrupted(_)), "{tool}: {err}");
    }
    // The same calls, not cancelled, succeed.
    assert!(
        env.ok("Grep", json!({"pattern": "x"}))
            .await
            .ends_with("a.txt")
    );
}

/// `..` after a symlink goes up from where the link leads, as the kernel
/// goes (and as the permission policy resolves the path): `deep/../..`
/// is two levels above the link's target, not the directory above `deep`.
#[tokio::test]
async fn grep_and_glob_take_dotdot_after_a_symlink_where_the_kernel_does() {
    let env = Env::new();
    let inside = env.put("proj/d1/d2/d3/d4/etc/passwd", "root:inside\n");
    env.put("etc/passwd", "root:outside\n");
    std::os::unix::fs::symlink(env.path("proj/d1/d2/d3/d4/d5/d6"), env.path("proj/deep")).unwrap();
    std::fs::create_dir_all(env.path("proj/d1/d2/d3/d4/d5/d6")).unwrap();
    let dir = format!("{}/proj/deep/../../etc", env.root.display());
    let out = env
        .ok(
            "Grep",
            json!({"pattern": "^root:", "path": dir, "glob": "passwd", "output_mode": "content"}),
        )
        .await;
    assert!(out.contains("root:inside"), "{out}");
    assert!(!out.contains("root:outside"), "{out}");
    let out = env
        .ok("Glob", json!({"pattern": "passwd", "path": dir}))
        .await;
    assert_eq!(lines(&out), [inside.to_str().unwrap()]);
    let out = env
        .ok("Glob", json!({"pattern": format!("{dir}/pass*")}))
        .await;
    assert_eq!(lines(&out), [inside.to_str().unwrap()]);
}
