//! The red team's classes of Bash holes, end to end: a project whose
//! settings allow or deny, the model asking for a command built to slip
//! through, the real shell, and the file system checked afterwards. No
//! person answers, so anything that is asked is refused.

use serde_json::{Value, json};
use tack_protocol::{ContentBlock, RunStatus, ToolResultBlock};
use tack_session::{Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, results_of};

/// Run one headless session in which the model asks for each command in
/// turn; the results, in order.
async fn run_commands(project: &Project, commands: &[&str]) -> Vec<ToolResultBlock> {
    let calls: Vec<(&str, Value)> = commands
        .iter()
        .map(|c| ("Bash", json!({"command": c})))
        .collect();
    run_calls(&project.context(), &calls, |_| {}).await
}

/// Run one headless session in `ctx` in which the model makes each call in
/// turn, after `first` did what it does to the session; the results, in
/// order.
async fn run_calls(
    ctx: &tack_session::ProjectContext,
    calls: &[(&str, Value)],
    first: impl FnOnce(&Session),
) -> Vec<ToolResultBlock> {
    let mock = MockServer::start().await;
    let mut steps: Vec<Step> = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, input))| Step::tool_use(format!("t{i}"), *tool, input.clone()))
        .collect();
    steps.push(Step::text("done"));
    mock.push_all(steps);
    let session = Session::assemble(ctx, SessionOptions::new("red"))
        .await
        .unwrap();
    first(&session);
    let mut agent = session.agent(client(&mock).await, Default::default());
    let out = agent
        .run(
            Some(vec![ContentBlock::text("go")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let messages = agent.messages();
    (0..calls.len())
        .map(|i| results_of(&messages[2 + 2 * i])[0].clone())
        .collect()
}

fn project(permissions: Value) -> Project {
    let project = Project::new();
    project.settings(json!({ "permissions": permissions }));
    project
}

#[tokio::test]
async fn f3_a_wrapper_runs_the_program_not_the_function_named_like_it() {
    let project = project(json!({"allow": ["Bash(ls *)"]}));
    let dir = project.path();
    let results = run_commands(
        &project,
        &[
            // A bare call reaches the function: ls runs, nothing is made.
            "touch(){ ls; }; touch bare.txt",
            "touch(){ ls; }; command touch made.txt",
            "touch(){ ls; }; env touch made.txt",
            "touch(){ ls; }; for i in 1 2; do touch made.txt; unset -f touch; done",
        ],
    )
    .await;
    assert!(!results[0].is_error, "{}", results[0].text());
    assert!(!dir.join("bare.txt").exists());
    for r in &results[1..] {
        assert!(r.is_error, "{}", r.text());
    }
    assert!(!dir.join("made.txt").exists(), "the real touch ran");
}

#[tokio::test]
async fn f4_startup_files_never_run_unchecked() {
    // Only ls is allowed: the rc file would make a file.
    let project = project(json!({"allow": ["Bash(ls *)"]}));
    project.write("evil.rc", "touch pwned\n");
    let dir = project.path();
    let results = run_commands(
        &project,
        &[
            "bash -c ls",
            "bash --rcfile evil.rc -ic ls",
            "BASH_ENV=evil.rc bash -c ls",
            "bash evil.rc",
        ],
    )
    .await;
    assert!(!results[0].is_error, "{}", results[0].text());
    for r in &results[1..] {
        assert!(r.is_error, "{}", r.text());
    }
    assert!(!dir.join("pwned").exists(), "the rc file ran");

    // Everything but rm is allowed: the rc file would run rm.
    let project = project_all_but_rm();
    project.write("evil.rc", "rm -f keep.txt\n");
    project.write("keep.txt", "x");
    let dir = project.path();
    let results = run_commands(
        &project,
        &["bash --init-file evil.rc -ic ls", "bash -lic ls"],
    )
    .await;
    for r in &results {
        assert!(r.is_error, "{}", r.text());
    }
    assert!(dir.join("keep.txt").exists(), "the rc file ran rm");
}

/// Bash allowed wholesale is the user's own word (local settings): from a
/// checked-in file it would need approval.
fn project_all_but_rm() -> Project {
    let project = Project::new();
    project.local_settings(json!({"permissions": {"allow": ["Bash"], "deny": ["Bash(rm *)"]}}));
    project
}

#[tokio::test]
async fn f8_deny_rules_hold_through_strings_and_wrappers_when_bash_is_allowed() {
    let project = project_all_but_rm();
    project.write("keep.txt", "x");
    let dir = project.path();
    let results = run_commands(
        &project,
        &[
            "touch made.txt",
            "trap -- 'rm -f keep.txt' EXIT",
            "eval -- 'rm -f keep.txt'",
            "mapfile -C 'rm -f keep.txt' -c 1 a <<< a",
            "compgen -W '$(rm -f keep.txt)' a",
            "taskset -c 0 rm -f keep.txt",
            "script -qc 'rm -f keep.txt' /dev/null",
            "setpriv --no-new-privs rm -f keep.txt",
            "find . -name keep.txt -delete",
        ],
    )
    .await;
    assert!(!results[0].is_error, "{}", results[0].text());
    assert!(
        dir.join("made.txt").exists(),
        "wholesale allow runs commands"
    );
    for r in &results[1..] {
        assert!(r.is_error, "{}", r.text());
        assert!(r.text().contains("Bash(rm *)"), "{}", r.text());
    }
    assert!(dir.join("keep.txt").exists(), "rm ran");
}

#[tokio::test]
async fn f11_a_variable_set_by_for_read_or_printf_never_picks_the_program() {
    use std::os::unix::fs::PermissionsExt;
    let project = project(
        json!({"allow": ["Bash(ls *)", "Bash(printf *)", "Bash(read *)", "Bash(mapfile *)"]}),
    );
    // An `ls` that would make a file, found only through PATH=./evil.
    project.write("evil/ls", "#!/bin/sh\n: > pwned\n");
    let dir = project.path();
    std::fs::set_permissions(dir.join("evil/ls"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let results = run_commands(
        &project,
        &[
            "ls",
            "for PATH in ./evil; do ls; done",
            "printf -v PATH ./evil; ls",
            "read PATH <<< ./evil; ls",
            "mapfile -t PATH <<< ./evil; ls",
        ],
    )
    .await;
    assert!(!results[0].is_error, "{}", results[0].text());
    for r in &results[1..] {
        assert!(r.is_error, "{}", r.text());
    }
    assert!(!dir.join("pwned").exists(), "./evil/ls ran");
}

fn project_with_secrets() -> Project {
    let project = project(json!({
        "allow": ["Bash(cd *)", "Bash(cat *)", "Bash(grep *)", "Bash(tar *)", "Bash(ls *)",
                  "Bash(echo *)", "Edit(./**)"],
        "deny": ["Read(./secrets/**)", "Read(./.env)", "Edit(./locked/**)"]
    }));
    project.write("secrets/key", "SECRET-KEY-123\n");
    project.write(".env", "API_KEY=SECRET-ENV-456\n");
    project.write("sub/readme", "hello\n");
    project.write("locked/keep", "keep\n");
    project
}

fn leaks(results: &[ToolResultBlock]) -> Option<String> {
    results
        .iter()
        .map(ToolResultBlock::text)
        .find(|t| t.contains("SECRET-"))
}

#[tokio::test]
async fn f1_relative_paths_are_judged_where_the_shell_is() {
    let project = project_with_secrets();
    let results = run_commands(
        &project,
        &[
            "cd sub",
            // The shell is in sub/ now: these reach the denied files.
            "cat ../secrets/key",
            "cat ../.env",
            "echo overwritten > ../locked/keep",
            // What sub/ holds is fine.
            "cat readme",
            "cd .. && cat secrets/key",
        ],
    )
    .await;
    assert!(!results[0].is_error, "{}", results[0].text());
    assert_eq!(leaks(&results), None, "a secret was printed");
    for r in &results[1..4] {
        assert!(r.is_error, "{}", r.text());
    }
    assert!(results[4].text().contains("hello"), "{}", results[4].text());
    assert!(results[5].is_error, "{}", results[5].text());
    assert_eq!(
        std::fs::read_to_string(project.path().join("locked/keep")).unwrap(),
        "keep\n"
    );
}

#[tokio::test]
async fn f2_paths_through_proc_are_never_resolved_in_tack() {
    let project = project_with_secrets();
    let results = run_commands(
        &project,
        &[
            "cd sub && cat /proc/self/cwd/../.env",
            "cd sub",
            "cat /proc/self/cwd/../secrets/key",
            "cat /proc/$$/cwd/../.env",
            "cat /dev/fd/3 3< ../.env",
        ],
    )
    .await;
    assert_eq!(leaks(&results), None, "a secret was printed");
    for i in [0, 2, 3, 4] {
        assert!(results[i].is_error, "{}", results[i].text());
    }
}

#[tokio::test]
async fn f12_reading_a_directory_never_reads_the_files_denied_inside_it() {
    let project = project_with_secrets();
    let results = run_commands(
        &project,
        &[
            "grep -r SECRET .",
            "grep -rh SECRET",
            "tar -cf - . | cat",
            "cat $(ls -A)",
            "grep -r hello sub",
        ],
    )
    .await;
    assert_eq!(leaks(&results), None, "a secret was printed");
    for r in &results[..4] {
        assert!(r.is_error, "{}", r.text());
    }
    assert!(results[4].text().contains("hello"), "{}", results[4].text());
}

#[test]
fn mcp_server_names_that_would_make_tool_names_ambiguous_are_refused_naming_the_file() {
    let entry = json!({"command": "true"});
    let project = Project::new();
    project
        .write(
            ".mcp.json",
            &json!({"mcpServers": {"a__b": entry, "ok-name": entry}}).to_string(),
        )
        .settings(json!({"mcpServers": {"db.": entry, "x..y": entry, "db": entry}}));

    let ctx = project.context();

    let config = &ctx.settings.mcp_servers;
    let kept: Vec<&str> = config.servers().map(|s| s.name.as_str()).collect();
    assert_eq!(kept, ["db", "ok-name"]);
    let errors: Vec<String> = config.invalid.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    let about = |name: &str| {
        errors
            .iter()
            .find(|e| e.contains(&format!("server {name:?}")))
            .unwrap_or_else(|| panic!("no error about {name}: {errors:#?}"))
    };
    let mcp_json = project.path().join(".mcp.json");
    let settings = project.path().join(".tack/settings.json");
    assert!(
        about("a__b").contains(&mcp_json.display().to_string()),
        "{errors:#?}"
    );
    assert!(about("a__b").contains("contains `__`"), "{errors:#?}");
    assert!(
        about("a__b").contains("\"a-b\""),
        "suggests a name: {errors:#?}"
    );
    assert!(
        about("x..y").contains(&settings.display().to_string()),
        "{errors:#?}"
    );
    assert!(about("db.").contains("ends in `_`"), "{errors:#?}");
}

/// A project in `<temp>/proj` (so `..` out of it stays in the temp
/// directory), with `permissions`; its context and the temp directory.
fn nested_project(
    permissions: Value,
) -> (Project, tack_session::ProjectContext, std::path::PathBuf) {
    let project = Project::new();
    project.write(
        "proj/.tack/settings.json",
        &json!({ "permissions": permissions }).to_string(),
    );
    let ctx = tack_session::ProjectContext::load_with(
        &project.path().join("proj"),
        project.state.path().to_owned(),
        tack_policy::LoadOptions::default(),
    )
    .unwrap();
    let top = project.path();
    (project, ctx, top)
}

// F13: `..` after a symlink goes up from where the link led (the kernel's
// reading), in the policy and in the tools alike: a tool that dropped
// `link/..` by hand wrote or searched where the policy never looked.

#[tokio::test]
async fn f13_tools_take_dotdot_after_a_symlink_where_the_policy_checked_it() {
    let (project, ctx, top) = nested_project(json!({
        "allow": ["Edit(./**)"],
        "deny": ["Edit(./locked/**)"]
    }));
    let proj = top.join("proj");
    project.write("proj/locked/keep", "keep\n");
    project.write("etc/passwd", "root:SECRET-OUTSIDE\n");
    std::fs::create_dir_all(proj.join("a/b/c")).unwrap();
    std::fs::create_dir_all(proj.join("d1/d2/d3/d4/d5/d6")).unwrap();
    std::fs::create_dir_all(top.join("outside")).unwrap();
    std::os::unix::fs::symlink(proj.join("a/b/c"), proj.join("link")).unwrap();
    std::os::unix::fs::symlink(proj.join("a/b"), proj.join("link2")).unwrap();
    std::os::unix::fs::symlink("locked", proj.join("x")).unwrap();
    std::os::unix::fs::symlink(proj.join("d1/d2/d3/d4/d5/d6"), proj.join("deep")).unwrap();
    let at = |rel: &str| format!("{}/{rel}", proj.display());
    let results = run_calls(
        &ctx,
        &[
            (
                "Write",
                json!({"file_path": at("link/../../outside/pwned"), "content": "x"}),
            ),
            (
                "Write",
                json!({"file_path": at("link2/../x/keep"), "content": "overwritten"}),
            ),
            (
                "Write",
                json!({"file_path": at("missing/../x/keep"), "content": "overwritten"}),
            ),
            (
                "Grep",
                json!({"pattern": "^root:", "path": at("deep/../../etc"), "glob": "passwd",
                       "output_mode": "content"}),
            ),
            (
                "Glob",
                json!({"pattern": "passwd", "path": at("deep/../../etc")}),
            ),
            ("Glob", json!({"pattern": at("deep/../../etc/pass*")})),
        ],
        |_| {},
    )
    .await;
    assert_eq!(leaks(&results), None, "a file outside was printed");
    for r in &results[3..] {
        assert!(!r.text().contains("etc/passwd"), "{}", r.text());
    }
    // Written where the kernel goes, which the policy checked.
    assert!(!results[0].is_error, "{}", results[0].text());
    assert!(!top.join("outside/pwned").exists(), "written outside");
    assert!(proj.join("a/outside/pwned").exists());
    assert!(!results[1].is_error, "{}", results[1].text());
    assert_eq!(
        std::fs::read_to_string(proj.join("a/x/keep")).unwrap(),
        "overwritten"
    );
    // `x` is followed after `..` out of a missing directory: locked.
    assert!(results[2].is_error, "{}", results[2].text());
    assert_eq!(
        std::fs::read_to_string(proj.join("locked/keep")).unwrap(),
        "keep\n"
    );
}

// F14: whitespace around a path is read the same way by the policy and
// the tools (trimmed), so ` /etc` is /etc for both, never a name inside
// the working directory.

#[tokio::test]
async fn f14_a_path_with_whitespace_is_checked_as_the_tool_reads_it() {
    let (project, ctx, top) = nested_project(json!({
        "deny": ["Read(./secrets/**)"]
    }));
    project.write("outside/s.txt", "SECRET-OUTSIDE\n");
    project.write("proj/secrets/key.txt", "SECRET-KEY\n");
    let outside = top.join("outside");
    let secrets = top.join("proj/secrets");
    let results = run_calls(
        &ctx,
        &[
            (
                "Grep",
                json!({"pattern": "SECRET", "path": format!(" {}", outside.display()),
                       "output_mode": "content"}),
            ),
            (
                "Grep",
                json!({"pattern": "SECRET", "path": format!("{}\n", outside.display()),
                       "output_mode": "content"}),
            ),
            (
                "Glob",
                json!({"pattern": format!(" {}/*", outside.display())}),
            ),
            (
                "Glob",
                json!({"pattern": "*", "path": format!("\t{}", outside.display())}),
            ),
            (
                "Grep",
                json!({"pattern": "SECRET", "path": format!(" {}", secrets.display()),
                       "output_mode": "content"}),
            ),
            (
                "Read",
                json!({"file_path": format!(" {}/key.txt", secrets.display())}),
            ),
        ],
        |_| {},
    )
    .await;
    assert_eq!(leaks(&results), None, "a secret was printed");
    for r in &results {
        assert!(r.is_error, "{}", r.text());
        assert!(!r.text().contains("s.txt"), "{}", r.text());
    }
}

// F15: a search tool's own deny and ask rules hold for every file it
// finds, as Read's do: `Grep(./secrets/**)` keeps secrets/ out of a Grep
// of the whole project.

#[tokio::test]
async fn f15_rules_of_the_searching_tool_hold_for_the_files_it_finds() {
    let project = project(json!({
        "deny": ["Grep(./secrets/**)", "Glob(./secrets/**)"]
    }));
    project.write("secrets/key.txt", "SECRET-KEY\n");
    project.write("sub/readme.txt", "SECRET-FREE hello\n");
    let results = run_calls(
        &project.context(),
        &[
            (
                "Grep",
                json!({"pattern": "SECRET", "path": ".", "output_mode": "content"}),
            ),
            ("Grep", json!({"pattern": "SECRET"})),
            ("Glob", json!({"pattern": "**/*.txt"})),
            // Another tool's rule is not this one's.
            ("Glob", json!({"pattern": "secrets/*"})),
        ],
        |_| {},
    )
    .await;
    assert!(
        !results[0].text().contains("SECRET-KEY"),
        "{}",
        results[0].text()
    );
    assert!(results[0].text().contains("hello"), "{}", results[0].text());
    assert!(
        !results[1].text().contains("key.txt"),
        "{}",
        results[1].text()
    );
    assert!(
        results[1].text().contains("readme.txt"),
        "{}",
        results[1].text()
    );
    assert!(
        !results[2].text().contains("key.txt"),
        "{}",
        results[2].text()
    );
    assert!(
        results[2].text().contains("readme.txt"),
        "{}",
        results[2].text()
    );
    assert!(results[3].is_error, "{}", results[3].text());
}

// F16: a rule added during the session (`/permissions deny …`) holds for
// the files the search tools find from then on, not only for the calls.

#[tokio::test]
async fn f16_a_rule_added_during_the_session_holds_for_what_searches_find() {
    let project = project(json!({}));
    project.write("secrets/key.txt", "SECRET-KEY\n");
    project.write("sub/readme.txt", "hello\n");
    let results = run_calls(
        &project.context(),
        &[
            (
                "Grep",
                json!({"pattern": "SECRET", "path": ".", "output_mode": "content"}),
            ),
            ("Glob", json!({"pattern": "**/*.txt"})),
        ],
        |session| {
            session
                .add_permission_rule(tack_protocol::Verdict::Deny, "Read(./secrets/**)")
                .unwrap();
        },
    )
    .await;
    assert_eq!(leaks(&results), None, "a secret was printed");
    assert!(
        !results[1].text().contains("key.txt"),
        "{}",
        results[1].text()
    );
    assert!(
        results[1].text().contains("readme.txt"),
        "{}",
        results[1].text()
    );
}

// F17: a link put in place of a file between the permission check and the
// read. The check judged `pub.txt` (a plain file); a process racing the
// calls swaps it for a link to a denied file and back, again and again.
// Read confirms the file it opened is the file the check judged, so no
// read ever shows the denied one (before, 3 of 60 did).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn f17_a_link_swapped_in_after_the_check_is_not_read() {
    let project = project(json!({ "deny": ["Read(./secrets/**)"] }));
    project.write("secrets/key.txt", "SECRET-KEY\n");
    project.write("pub.txt", "public\n");
    let dir = project.path();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let stop = std::sync::Arc::clone(&stop);
        let dir = dir.clone();
        std::thread::spawn(move || {
            let (public, tmp, plain) = (dir.join("pub.txt"), dir.join("tmp"), dir.join("plain"));
            std::fs::hard_link(&public, &plain).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // The link in the file's place, then the file again.
                let _ = std::fs::remove_file(&tmp);
                std::os::unix::fs::symlink(dir.join("secrets/key.txt"), &tmp).unwrap();
                std::fs::rename(&tmp, &public).unwrap();
                std::fs::hard_link(&plain, &tmp).unwrap();
                std::fs::rename(&tmp, &public).unwrap();
            }
        })
    };
    let calls: Vec<(&str, Value)> = (0..300)
        .map(|_| ("Read", json!({"file_path": dir.join("pub.txt")})))
        .collect();
    let results = run_calls(&project.context(), &calls, |_| {}).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(
        leaks(&results),
        None,
        "a secret was read through a swapped link"
    );
    // Some reads did go through: the check does not refuse the plain file.
    assert!(
        results.iter().any(|r| r.text().contains("public")),
        "no read of the plain file succeeded"
    );
}
