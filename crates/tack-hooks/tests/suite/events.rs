//! What each event does with its hooks' answers: PostToolUse and
//! PostToolUseFailure feedback, UserPromptSubmit block and context, Stop
//! block (continue), SessionStart context, SessionEnd.

use serde_json::json;
use tack_hooks::{HookNote, ReportKind};

use super::support::{Project, bash_input, cmd, one, settings};

fn texts(notes: &[HookNote]) -> Vec<&str> {
    notes.iter().map(|n| n.text.as_str()).collect()
}

// ---- PostToolUse / PostToolUseFailure

#[tokio::test]
async fn post_tool_use_exit_2_sends_stderr_to_the_model() {
    let p = Project::new();
    let lint = p.sh(
        "lint",
        "cat >/dev/null; echo 'src/a.rs:3: unused import' >&2; exit 2",
    );
    let hooks = one(settings(
        "PostToolUse",
        Some("Edit|Write"),
        vec![cmd(&lint)],
    ));

    let out = hooks
        .post_tool_use(
            &p.ctx(),
            "Write",
            "t1",
            &json!({"file_path": "a.rs"}),
            &json!({"success": true}),
            None,
        )
        .await;

    assert_eq!(texts(&out.blocks), ["src/a.rs:3: unused import"]);
    assert_eq!(out.blocks[0].hook.command, lint);
    assert_eq!(out.feedback_for_model().len(), 1);
}

#[tokio::test]
async fn post_tool_use_json_block_reason_and_context_reach_the_model_in_order() {
    let p = Project::new();
    let hooks = one(settings(
        "PostToolUse",
        None,
        vec![
            cmd(&p.prints(
                "a",
                &json!({"decision": "block", "reason": "tests fail now"}),
            )),
            cmd(&p.prints(
                "b",
                &json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                "additionalContext": "coverage dropped 2%"}}),
            )),
            cmd(&p.prints("c", &json!({"decision": "block"}))),
        ],
    ));

    let out = hooks
        .post_tool_use(&p.ctx(), "Bash", "t1", &bash_input(), &json!({}), None)
        .await;

    assert_eq!(out.blocks.len(), 2, "post hooks all run");
    assert_eq!(out.blocks[0].text, "tests fail now");
    assert!(
        out.blocks[1].text.contains("gave no reason"),
        "{}",
        out.blocks[1].text
    );
    assert_eq!(texts(&out.additional_context), ["coverage dropped 2%"]);
    let all: Vec<_> = out
        .feedback_for_model()
        .iter()
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(all[0], "tests fail now");
    assert_eq!(all[2], "coverage dropped 2%");
}

#[tokio::test]
async fn post_tool_use_plain_stdout_is_only_a_report() {
    let p = Project::new();
    let hooks = one(settings(
        "PostToolUse",
        None,
        vec![cmd(&p.sh("fmt", "cat >/dev/null; echo formatted"))],
    ));
    let out = hooks
        .post_tool_use(&p.ctx(), "Edit", "t1", &json!({}), &json!({}), None)
        .await;
    assert!(out.feedback_for_model().is_empty());
    assert_eq!(out.reports[0].kind, ReportKind::Output);
    assert_eq!(out.reports[0].message, "formatted");
}

#[tokio::test]
async fn post_tool_use_continue_false_stops_the_agent() {
    let p = Project::new();
    let hooks = one(settings(
        "PostToolUse",
        None,
        vec![cmd(&p.prints(
            "s",
            &json!({"continue": false, "stopReason": "enough"}),
        ))],
    ));
    let out = hooks
        .post_tool_use(&p.ctx(), "Edit", "t1", &json!({}), &json!({}), None)
        .await;
    assert_eq!(out.stop.unwrap().reason.as_deref(), Some("enough"));
}

#[tokio::test]
async fn post_tool_use_failure_feedback() {
    let p = Project::new();
    let hooks = one(settings(
        "PostToolUseFailure",
        Some("Bash"),
        vec![
            cmd(&p.sh(
                "hint",
                "cat >/dev/null; echo 'try npm ci first' >&2; exit 2",
            )),
            cmd(&p.prints(
                "ctx",
                &json!({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
                "additionalContext": "node 18 required"}}),
            )),
        ],
    ));
    let out = hooks
        .post_tool_use_failure(&p.ctx(), "Bash", "t1", &bash_input(), "exit 1", false, None)
        .await;
    assert_eq!(texts(&out.blocks), ["try npm ci first"]);
    assert_eq!(texts(&out.additional_context), ["node 18 required"]);

    let not_bash = hooks
        .post_tool_use_failure(
            &p.ctx(),
            "Read",
            "t2",
            &json!({}),
            "no such file",
            false,
            None,
        )
        .await;
    assert!(not_bash.runs.is_empty());
}

// ---- UserPromptSubmit

#[tokio::test]
async fn user_prompt_submit_plain_stdout_and_additional_context_become_context() {
    let p = Project::new();
    let hooks = one(settings(
        "UserPromptSubmit",
        None,
        vec![
            cmd(&p.sh("date", "cat >/dev/null; echo 'Today is Monday'")),
            cmd(&p.prints(
                "json",
                &json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                "additionalContext": "ticket ABC-1 is open"}}),
            )),
        ],
    ));
    let out = hooks.user_prompt_submit(&p.ctx(), "what's up?").await;
    assert!(out.block.is_none());
    assert_eq!(
        texts(&out.additional_context),
        ["Today is Monday", "ticket ABC-1 is open"]
    );
    assert_eq!(
        out.additional_context[0].hook.location,
        "hooks.UserPromptSubmit[0].hooks[0]"
    );
}

#[tokio::test]
async fn user_prompt_submit_json_block_blocks_and_later_hooks_do_not_see_the_prompt() {
    let p = Project::new();
    let hooks = one(settings(
        "UserPromptSubmit",
        None,
        vec![
            cmd(&p.prints(
                "secret",
                &json!({"decision": "block", "reason": "prompt contains a secret"}),
            )),
            cmd(&p.logs("uploader", "saw-prompt")),
        ],
    ));
    let out = hooks.user_prompt_submit(&p.ctx(), "my key is sk-123").await;
    assert_eq!(out.block.unwrap().text, "prompt contains a secret");
    assert!(p.log().is_empty());
}

#[tokio::test]
async fn user_prompt_submit_exit_2_blocks_with_stderr() {
    let p = Project::new();
    let hooks = one(settings(
        "UserPromptSubmit",
        None,
        vec![cmd(&p.sh(
            "no",
            "cat >/dev/null; echo 'no prompts after 6pm' >&2; exit 2",
        ))],
    ));
    let out = hooks.user_prompt_submit(&p.ctx(), "hi").await;
    assert_eq!(out.block.unwrap().text, "no prompts after 6pm");
    assert!(out.additional_context.is_empty());
}

#[tokio::test]
async fn user_prompt_submit_continue_false_stops_and_blocks() {
    let p = Project::new();
    let hooks = one(settings(
        "UserPromptSubmit",
        None,
        vec![cmd(&p.prints(
            "s",
            &json!({"continue": false, "stopReason": "quota"}),
        ))],
    ));
    let out = hooks.user_prompt_submit(&p.ctx(), "hi").await;
    assert_eq!(out.stop.unwrap().reason.as_deref(), Some("quota"));
    assert_eq!(out.block.unwrap().text, "quota");
}

// ---- Stop

#[tokio::test]
async fn stop_exit_2_makes_the_agent_continue_with_the_reason() {
    let p = Project::new();
    let hooks = one(settings(
        "Stop",
        None,
        vec![cmd(&p.sh(
            "tests",
            "cat >/dev/null; echo 'tests still fail: run cargo test' >&2; exit 2",
        ))],
    ));
    let out = hooks.stop(&p.ctx(), false).await;
    assert_eq!(
        out.continue_with().as_deref(),
        Some("tests still fail: run cargo test")
    );
}

#[tokio::test]
async fn stop_json_block_reasons_are_joined() {
    let p = Project::new();
    let hooks = one(settings(
        "Stop",
        None,
        vec![
            cmd(&p.prints(
                "a",
                &json!({"decision": "block", "reason": "update the changelog"}),
            )),
            cmd(&p.prints("b", &json!({"decision": "block", "reason": "run fmt"}))),
        ],
    ));
    let out = hooks.stop(&p.ctx(), false).await;
    assert_eq!(
        out.continue_with().as_deref(),
        Some("update the changelog\nrun fmt")
    );
}

#[tokio::test]
async fn stop_hooks_can_use_stop_hook_active_to_let_the_agent_stop() {
    let p = Project::new();
    let hook = p.py(
        "once",
        r#"if not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "check again"}))"#,
    );
    let hooks = one(settings("Stop", None, vec![cmd(&hook)]));
    assert_eq!(
        hooks.stop(&p.ctx(), false).await.continue_with().as_deref(),
        Some("check again")
    );
    assert_eq!(hooks.stop(&p.ctx(), true).await.continue_with(), None);
}

#[tokio::test]
async fn stop_continue_false_wins_over_block() {
    let p = Project::new();
    let hooks = one(settings(
        "Stop",
        None,
        vec![
            cmd(&p.prints("a", &json!({"decision": "block", "reason": "more"}))),
            cmd(&p.prints("b", &json!({"continue": false, "stopReason": "halt"}))),
        ],
    ));
    let out = hooks.stop(&p.ctx(), false).await;
    assert_eq!(out.stop.unwrap().reason.as_deref(), Some("halt"));
    let out = hooks.stop(&p.ctx(), false).await;
    assert_eq!(out.continue_with(), None);
}

// ---- SessionStart / SessionEnd

#[tokio::test]
async fn session_start_stdout_and_additional_context_become_context() {
    let p = Project::new();
    let hooks = one(settings(
        "SessionStart",
        None,
        vec![
            cmd(&p.sh("git", "cat >/dev/null; echo 'branch: main'")),
            cmd(&p.prints(
                "json",
                &json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
                "additionalContext": "3 open issues"}}),
            )),
        ],
    ));
    let out = hooks.session_start(&p.ctx(), "startup").await;
    assert_eq!(
        texts(&out.additional_context),
        ["branch: main", "3 open issues"]
    );
}

#[tokio::test]
async fn session_start_matchers_select_on_source() {
    let p = Project::new();
    let hooks = tack_hooks::Hooks::from_settings(&[(
        "s.json".to_owned(),
        &json!({"hooks": {"SessionStart": [
            {"matcher": "startup", "hooks": [cmd(&p.logs("a", "startup-only"))]},
            {"matcher": "resume|compact", "hooks": [cmd(&p.logs("b", "resume-or-compact"))]}
        ]}}),
    )])
    .unwrap();
    hooks.session_start(&p.ctx(), "resume").await;
    hooks.session_start(&p.ctx(), "startup").await;
    assert_eq!(p.log(), ["resume-or-compact", "startup-only"]);
}

#[tokio::test]
async fn session_start_exit_2_is_shown_to_the_user_only() {
    let p = Project::new();
    let hooks = one(settings(
        "SessionStart",
        None,
        vec![cmd(
            &p.sh("x", "cat >/dev/null; echo 'setup missing' >&2; exit 2")
        )],
    ));
    let out = hooks.session_start(&p.ctx(), "startup").await;
    assert!(out.additional_context.is_empty());
    assert_eq!(out.reports[0].kind, ReportKind::Blocked);
    assert_eq!(out.reports[0].message, "setup missing");
}

#[tokio::test]
async fn session_end_runs_hooks_matching_the_reason() {
    let p = Project::new();
    let hooks = tack_hooks::Hooks::from_settings(&[(
        "s.json".to_owned(),
        &json!({"hooks": {"SessionEnd": [
            {"matcher": "logout", "hooks": [cmd(&p.logs("a", "logout"))]},
            {"hooks": [cmd(&p.sh("b", "cat >/dev/null; echo bye >> \"$OUT/log\"; echo 'cleanup failed' >&2; exit 2"))]}
        ]}}),
    )])
    .unwrap();
    let out = hooks.session_end(&p.ctx(), "other").await;
    assert_eq!(p.log(), ["bye"]);
    assert_eq!(out.reports[0].kind, ReportKind::Blocked);
    assert_eq!(out.reports[0].message, "cleanup failed");
}
