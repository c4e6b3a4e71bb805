//! Real hook scripts in the pipeline and the loop.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tack_agent::RunStatus;
use tack_agent::hooks::HookRunner;
use tack_hooks::{HookContext, Hooks};
use tack_protocol::{Role, ToolOutcome};
use tack_testkit::Step;

use crate::support::{Setup, harness_with};

fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    format!("sh '{}'", path.display())
}

fn runner(dir: &Path, settings: Value) -> Arc<HookRunner> {
    let hooks = Hooks::from_settings(&[("test-settings.json".to_owned(), &settings)]).unwrap();
    Arc::new(HookRunner::new(
        hooks,
        HookContext {
            session_id: "s".into(),
            transcript_path: dir.join("t.jsonl"),
            cwd: dir.to_owned(),
            permission_mode: "default".into(),
            project_dir: dir.to_owned(),
            agent: None,
        },
    ))
}

fn setup(hooks: Arc<HookRunner>) -> Setup {
    Setup {
        hooks: Some(hooks),
        ..Setup::default()
    }
}

#[tokio::test]
async fn pre_tool_use_rewrites_and_denies_post_tool_use_feeds_back() {
    let dir = tempfile::tempdir().unwrap();
    let rewrite = script(
        dir.path(),
        "rewrite.sh",
        r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"text":"rewritten by hook"}}}'"#,
    );
    let deny = script(
        dir.path(),
        "deny.sh",
        "grep -q forbidden && { echo 'no forbidden words' >&2; exit 2; }; exit 0",
    );
    let feedback = script(dir.path(), "post.sh", "echo 'lint: looks fine' >&2; exit 2");
    let hooks = runner(
        dir.path(),
        json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Echo", "hooks": [{"type": "command", "command": deny}]},
                {"matcher": "Echo", "hooks": [{"type": "command", "command": rewrite}]}
            ],
            "PostToolUse": [{"matcher": "Echo", "hooks": [{"type": "command", "command": feedback}]}]
        }}),
    );
    let mut h = harness_with(
        vec![
            Step::tool_uses(vec![
                ("t1", "Echo", json!({"text": "hello"})),
                ("t2", "Echo", json!({"text": "forbidden"})),
            ]),
            Step::text("ok"),
        ],
        setup(hooks),
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    let results = h.results_in(2);
    assert!(!results[0].is_error);
    assert!(
        results[0].text().starts_with("rewritten by hook"),
        "{}",
        results[0].text()
    );
    assert!(
        results[0].text().contains("lint: looks fine"),
        "{}",
        results[0].text()
    );
    assert!(results[1].is_error);
    assert!(
        results[1].text().contains("no forbidden words"),
        "{}",
        results[1].text()
    );
    assert_eq!(
        h.outcomes().iter().find(|(id, _)| id == "t2").unwrap().1,
        ToolOutcome::Denied
    );
    let audits = h.audits();
    assert_eq!(audits[0].input, json!({"text": "rewritten by hook"}));
    assert!(
        audits[0].rewritten_by[0].contains("rewrite.sh"),
        "{:?}",
        audits[0].rewritten_by
    );
    assert!(
        audits[1].decided_by.contains("deny.sh"),
        "{}",
        audits[1].decided_by
    );
}

#[tokio::test]
async fn user_prompt_submit_can_block_and_add_context() {
    let dir = tempfile::tempdir().unwrap();
    let gate = script(
        dir.path(),
        "gate.sh",
        r#"if grep -q secret; then echo 'prompts about secrets are blocked' >&2; exit 2; fi; echo 'Context: the repo uses tabs.'"#,
    );
    let settings =
        json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": gate}]}]}});
    let mut h = harness_with(
        vec![Step::text("fine")],
        setup(runner(dir.path(), settings.clone())),
    )
    .await;
    let out = h.run("tell me the secret").await;
    assert_eq!(out.status, RunStatus::HookStopped);
    assert!(
        out.error_text
            .unwrap()
            .contains("prompts about secrets are blocked")
    );
    assert!(
        h.mock.requests().is_empty(),
        "a blocked prompt is never sent"
    );

    let mut h = harness_with(
        vec![Step::text("fine")],
        setup(runner(dir.path(), settings)),
    )
    .await;
    h.run("format the code").await;
    let body = &h.bodies()[0];
    let blocks = body["messages"][0]["content"].as_array().unwrap();
    assert!(blocks.iter().any(|b| {
        b["text"]
            .as_str()
            .unwrap_or("")
            .contains("the repo uses tabs")
    }));
}

#[tokio::test]
async fn stop_hook_makes_the_model_continue_then_lets_it_stop() {
    let dir = tempfile::tempdir().unwrap();
    let stop = script(
        dir.path(),
        "stop.sh",
        r#"if grep -q '"stop_hook_active":true'; then exit 0; fi; echo 'run the tests before stopping' >&2; exit 2"#,
    );
    let settings = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": stop}]}]}});
    let mut h = harness_with(
        vec![Step::text("done?"), Step::text("tests pass, done")],
        setup(runner(dir.path(), settings)),
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.text, "tests pass, done");
    let msgs = h.agent.messages();
    assert_eq!(msgs[2].role, Role::User);
    assert!(msgs[2].text().contains("run the tests before stopping"));
    assert_eq!(h.bodies().len(), 2);
}

#[tokio::test]
async fn continue_false_stops_the_session_after_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let halt = script(
        dir.path(),
        "halt.sh",
        r#"printf '{"continue": false, "stopReason": "budget exhausted"}'"#,
    );
    let settings = json!({"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": halt}]}]}});
    let mut h = harness_with(
        vec![
            Step::tool_use("t1", "Echo", json!({"text": "a"})),
            Step::text("unreached"),
        ],
        setup(runner(dir.path(), settings)),
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::HookStopped);
    assert!(out.error_text.unwrap().contains("budget exhausted"));
    assert_eq!(h.mock.requests().len(), 1);
    // The call is still answered: the conversation stays valid for a resume.
    assert_eq!(h.agent.messages().last().unwrap().role, Role::User);
}

#[tokio::test]
async fn a_tool_without_a_claude_code_shape_sends_its_content_array_and_the_time_it_ran() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen.json");
    let record = script(
        dir.path(),
        "record.sh",
        &format!("cat > '{}'", seen.display()),
    );
    let hooks = runner(
        dir.path(),
        json!({"hooks": {"PostToolUse": [{"matcher": "Echo", "hooks": [{"type": "command", "command": record}]}]}}),
    );
    let mut h = harness_with(
        vec![
            Step::tool_use("t1", "Echo", json!({"text": "plain"})),
            Step::text("ok"),
        ],
        setup(hooks),
    )
    .await;
    assert_eq!(h.run("x").await.status, RunStatus::Completed);
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    // As Claude Code sends an MCP tool's result.
    assert_eq!(
        payload["tool_response"],
        json!([{"type": "text", "text": "plain"}])
    );
    assert!(payload["duration_ms"].is_u64(), "{payload}");
    assert_eq!(payload["tool_use_id"], "t1");
}

#[tokio::test]
async fn a_hook_gets_the_permission_mode_in_force_when_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let record = script(
        dir.path(),
        "record.sh",
        &format!(
            "cat >> '{}'; echo >> '{0}'",
            dir.path().join("payloads").display()
        ),
    );
    let hooks = Hooks::from_settings(&[(
        "test-settings.json".to_owned(),
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": record}]}]}}),
    )])
    .unwrap();
    let mode = Arc::new(std::sync::Mutex::new("default".to_owned()));
    let source = Arc::clone(&mode);
    let runner = HookRunner::new(
        hooks,
        HookContext {
            session_id: "s".into(),
            transcript_path: dir.path().join("t.jsonl"),
            cwd: dir.path().to_owned(),
            permission_mode: "default".into(),
            project_dir: dir.path().to_owned(),
            agent: None,
        },
    )
    .with_mode(Arc::new(move || source.lock().unwrap().clone()));
    runner.user_prompt_submit("first").await.unwrap();
    // The person switched the mode (Shift-Tab in the interactive terminal).
    *mode.lock().unwrap() = "acceptEdits".into();
    runner.user_prompt_submit("second").await.unwrap();
    let payloads: Vec<Value> = std::fs::read_to_string(dir.path().join("payloads"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(payloads.len(), 2, "{payloads:?}");
    assert_eq!(payloads[0]["permission_mode"], "default");
    assert_eq!(payloads[1]["permission_mode"], "acceptEdits");
}
