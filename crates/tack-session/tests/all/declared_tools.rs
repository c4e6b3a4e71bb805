//! Command tools declared in settings, in a session against the strict mock:
//! the model calls one on a real git repository, rules on the argv decide,
//! a hook's rewrite meets the rules again, the audit records the argv; a
//! checked-in project file's tools wait for approval; a broken declaration
//! is left out with its file and line.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the tests make a real git repository with git itself"
)]

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tack_agent::permission::PromptAnswer;
use tack_protocol::{AuditDecision, RunStatus};
use tack_session::{Asked, Headless, Scripted, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, audits, client, git, recorder, result_text};

/// A project that is a git repository with three commits.
fn repository() -> Project {
    let p = Project::new();
    let root = p.path();
    git(&root, &["init", "-q", "-b", "main"]);
    for (file, msg) in [
        ("a.txt", "first"),
        ("secret.txt", "second"),
        ("c.txt", "third"),
    ] {
        p.write(file, msg);
        git(&root, &["add", "."]);
        git(&root, &["commit", "-q", "-m", msg]);
    }
    p
}

/// The issue's git_log, and git_show with no rule of its own.
fn tools() -> Value {
    json!({
        "git_log": {
            "description": "Recent commits of this repository, newest first. Use it to see what changed lately; for one commit's diff use git_show.",
            "command": ["git", "log", "--format=%H%x09%an%x09%s", "-n", "{limit}",
                        {"flag": "--since", "value": "{since}"}, "--", {"each": "{paths}"}],
            "input_schema": {"type": "object", "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 20},
                "since": {"type": "string"},
                "paths": {"type": "array", "items": {"type": "string"}}}},
            "readOnly": true, "idempotent": true, "timeoutMs": 10000,
            "output": "lines", "cwd": "{project}", "env": {"GIT_PAGER": "cat"},
            "exitCodes": {"128": "invalid_input"},
            "inputExamples": [{"limit": 5}, {"since": "2 weeks ago", "paths": ["src/"]}]
        },
        "git_show": {
            "description": "One commit: its message and diff.",
            "command": ["git", "show", "--stat", "{rev}"],
            "inputSchema": {"type": "object", "required": ["rev"], "properties": {"rev": {"type": "string"}}},
            "readOnly": true, "cwd": "{project}"
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_calls_a_declared_tool_and_rules_on_its_argv_decide() {
    let p = repository();
    p.local_settings(json!({
        "tools": tools(),
        "permissions": {
            "allow": ["git_log"],
            "deny": ["git_log(git log * -- *secret*)"]
        }
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([
            ("l1", "git_log", json!({"limit": 2})),
            ("l2", "git_log", json!({"paths": ["secret.txt"]})),
            ("l3", "git_log", json!({"since": "--output=/tmp/x"})),
        ]),
        Step::tool_uses([("s1", "git_show", json!({"rev": "HEAD"}))]),
        Step::text("done"),
    ]);
    let answers = Scripted::new().permission(PromptAnswer::Deny {
        reason: "not now".into(),
    });
    let (events, seen) = recorder();
    let session = Session::assemble(
        &p.context(),
        SessionOptions::new("declared-1")
            .interaction(Arc::new(answers.clone()))
            .events(events),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "what changed?",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();

    // The definition as the model sees it: the schema, the examples.
    let def = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "git_log")
        .unwrap()
        .clone();
    assert_eq!(def["input_examples"], tools()["git_log"]["inputExamples"]);
    assert_eq!(def["input_schema"]["properties"]["limit"]["default"], 20);

    // Allowed: two commits, newest first.
    let (text, is_error) = result_text(&requests[1].body, "l1");
    assert!(!is_error, "{text}");
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().next().unwrap().ends_with("\tAda\tthird"),
        "{text}"
    );
    // Denied by the rule on its argv, which the model is told.
    let (text, is_error) = result_text(&requests[1].body, "l2");
    assert!(
        is_error && text.contains("git_log(git log * -- *secret*)"),
        "{text}"
    );
    // A value that would be an option is refused before any rule.
    let (text, is_error) = result_text(&requests[1].body, "l3");
    assert!(is_error && text.contains("starts with `-`"), "{text}");

    // No rule for git_show: the person is asked, seeing the argv.
    let (text, is_error) = result_text(&requests[2].body, "s1");
    assert!(is_error && text.contains("not now"), "{text}");
    let asked = answers.asked();
    let Some(Asked::Permission(prompt)) = asked.iter().find(|a| matches!(a, Asked::Permission(_)))
    else {
        panic!("not asked: {asked:?}");
    };
    assert_eq!(prompt.call, "git_show(git show --stat HEAD)");

    // The audit records the exact argv that ran (argv[0] absolute).
    let seen = seen.lock().unwrap();
    let audit = audits(&seen);
    let (_, l1) = audit.iter().find(|(id, _)| id == "l1").unwrap();
    let argv = l1.argv.as_ref().expect("the argv in the audit");
    assert!(
        Path::new(&argv[0]).is_absolute() && argv[0].ends_with("/git"),
        "{argv:?}"
    );
    assert_eq!(
        argv[1..],
        ["log", "--format=%H%x09%an%x09%s", "-n", "2", "--"]
    );
    assert_eq!(l1.decision, AuditDecision::Allow);
    let (_, l2) = audit.iter().find(|(id, _)| id == "l2").unwrap();
    assert_eq!(l2.decision, AuditDecision::Deny);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hooks_rewrite_is_what_runs_and_meets_the_rules_again() {
    let p = repository();
    let hook = p.path().join("limit-one.sh");
    p.write(
        "limit-one.sh",
        r#"#!/bin/sh
input=$(cat)
case "$input" in
  *secret*) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"paths":["secret.txt"]}}}' ;;
  *) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"limit":1}}}' ;;
esac
"#,
    );
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.local_settings(json!({
        "tools": tools(),
        "permissions": {"allow": ["git_log"], "deny": ["git_log(git log * -- secret.txt)"]},
        "hooks": {"PreToolUse": [{"matcher": "git_log", "hooks": [{"type": "command", "command": hook}]}]}
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([
            ("h1", "git_log", json!({"limit": 3})),
            // The hook turns this one into a call the deny rule forbids.
            ("h2", "git_log", json!({"since": "secret"})),
        ]),
        Step::text("done"),
    ]);
    let (events, seen) = recorder();
    let session = Session::assemble(
        &p.context(),
        SessionOptions::new("declared-2")
            .interaction(Arc::new(Headless))
            .events(events),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "log",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    let (text, is_error) = result_text(&requests[1].body, "h1");
    assert!(!is_error, "{text}");
    assert_eq!(text.lines().count(), 1, "the hook's limit ran: {text}");
    let (text, is_error) = result_text(&requests[1].body, "h2");
    assert!(is_error && text.contains("denied"), "{text}");
    let seen = seen.lock().unwrap();
    let audit = audits(&seen);
    let (_, h1) = audit.iter().find(|(id, _)| id == "h1").unwrap();
    assert_eq!(h1.input, json!({"limit": 1}));
    assert!(!h1.rewritten_by.is_empty());
    assert_eq!(h1.argv.as_ref().unwrap()[4], "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_files_tools_wait_for_approval_and_bad_ones_are_named() {
    let p = repository();
    p.settings(json!({"tools": {"git_log": tools()["git_log"]}}));
    p.local_settings(json!({"tools": {
        "broken": {"description": "x", "command": ["git", "log", "-n", "{limt}"],
                   "inputSchema": {"type": "object", "properties": {"limit": {"type": "integer"}}}}
    }}));
    let answers = Scripted::new().approve_project_settings(false);
    let session = Session::assemble(
        &p.context(),
        SessionOptions::new("declared-3").interaction(Arc::new(answers.clone())),
    )
    .await
    .unwrap();
    let names = session.pipeline().registry().names();
    assert!(!names.contains(&"git_log".to_owned()), "{names:?}");
    assert!(!names.contains(&"broken".to_owned()));
    let asked = answers.asked();
    let items = asked
        .iter()
        .find_map(|a| match a {
            Asked::ProjectSettings { items, .. } => Some(items.clone()),
            _ => None,
        })
        .expect("the project file was put to the person");
    assert!(
        items
            .iter()
            .any(|i| i.starts_with("tool git_log runs [\"git\",\"log\"")),
        "{items:?}"
    );
    let notice = asked
        .iter()
        .find_map(|a| match a {
            Asked::Notice(n) if n.contains("`broken`") => Some(n.clone()),
            _ => None,
        })
        .expect("a notice for the broken tool");
    assert!(notice.contains("settings.local.json:1:"), "{notice}");
    assert!(notice.contains("did you mean {limit}"), "{notice}");

    // Approved, the project's tool joins.
    let answers = Scripted::new().approve_project_settings(true);
    let session = Session::assemble(
        &p.context(),
        SessionOptions::new("declared-4").interaction(Arc::new(answers)),
    )
    .await
    .unwrap();
    assert!(session.pipeline().registry().contains("git_log"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_output_meets_the_output_budget() {
    let p = Project::new();
    p.local_settings(json!({
        "tools": {"numbers": {
            "description": "Prints the numbers from 1 to 50000, one a line.",
            "command": ["seq", "50000"],
            "readOnly": true
        }},
        "permissions": {"allow": ["numbers"]},
        "outputBudget": {"tools": {"numbers": 500}}
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([("n1", "numbers", json!({}))]),
        Step::text("done"),
    ]);
    let session = Session::assemble(
        &p.context(),
        SessionOptions::new("declared-5").interaction(Arc::new(Headless)),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "count",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let (text, is_error) = result_text(&mock.requests()[1].body, "n1");
    assert!(!is_error, "{text}");
    assert!(text.starts_with("1\n2\n3\n"), "{text}");
    assert!(text.contains("output cut to fit the budget"), "{text}");
    assert!(text.contains("ReadOutput"), "{text}");
    assert!(text.trim_end().ends_with("50000"), "{text}");
    assert!(text.len() < 4000, "{}", text.len());
}

/// What a declared tool's argv names meets the Read and Edit rules, as the
/// same command line in Bash would: `show {path: ".env"}` running `cat
/// .env` is refused under `deny Read(./.env)` though `show` is allowed, and
/// the secret never reaches the model; another file is shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_files_a_declared_tools_argv_names_meet_the_path_rules() {
    let p = Project::new();
    p.write(".env", "SECRET=hunter2\n");
    p.write("a.txt", "hello from a\n");
    p.local_settings(json!({
        "tools": {"show": {
            "description": "Print a file of the project.",
            "command": ["cat", "--", "{path}"],
            "inputSchema": {"type": "object", "required": ["path"],
                            "properties": {"path": {"type": "string"}}},
            "readOnly": true, "cwd": "{project}"
        }},
        "permissions": {"allow": ["show"], "deny": ["Read(./.env)"]}
    }));
    let calls = vec![
        ("s1", "show", json!({"path": ".env"})),
        ("s2", "show", json!({"path": "a.txt"})),
    ];
    let answer = answer_of_one_turn(&p.context(), calls).await;
    let (text, is_error) = result_text(&answer, "s1");
    assert!(is_error && text.contains("Read(./.env)"), "{text}");
    let (text, is_error) = result_text(&answer, "s2");
    assert!(!is_error && text.contains("hello from a"), "{text}");
    assert!(!answer.to_string().contains("hunter2"));

    // Started in a subdirectory: the tool runs in the project root (its
    // `cwd`), so `.env` is judged there, not as `sub/.env`.
    p.write("sub/readme", "below\n");
    let ctx = tack_session::ProjectContext::load_with(
        &p.path().join("sub"),
        p.state.path().to_owned(),
        Default::default(),
    )
    .unwrap();
    let answer = answer_of_one_turn(&ctx, vec![("s3", "show", json!({"path": ".env"}))]).await;
    let (text, is_error) = result_text(&answer, "s3");
    assert!(is_error && text.contains("Read(./.env)"), "{text}");
    assert!(!answer.to_string().contains("hunter2"));
}

/// Runs one headless session in `ctx` whose model makes `calls` in one turn
/// and then answers; the request that carried their results.
async fn answer_of_one_turn(
    ctx: &tack_session::ProjectContext,
    calls: Vec<(&str, &str, Value)>,
) -> Value {
    let mock = MockServer::start().await;
    mock.push_all([Step::tool_uses(calls), Step::text("done")]);
    let session = Session::assemble(
        ctx,
        SessionOptions::new("declared-paths").interaction(Arc::new(Headless)),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "show the files",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    mock.requests()[1].body.clone()
}
