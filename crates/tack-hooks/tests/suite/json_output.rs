//! Every JSON output field: continue/stopReason, systemMessage,
//! suppressOutput, decision/reason (and legacy approve/block), and
//! hookSpecificOutput (permissionDecision, permissionDecisionReason,
//! updatedInput, additionalContext, hookEventName).

use serde_json::{Value, json};
use tack_hooks::{PreToolUseOutcome, ReportKind, Verdict};

use super::support::{Project, bash_input, cmd, pre};

async fn pre_with(p: &Project, stdout: Value) -> PreToolUseOutcome {
    let hooks = pre(vec![cmd(&p.prints("hook", &stdout))]);
    hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await
}

fn specific(fields: Value) -> Value {
    let mut out = json!({"hookEventName": "PreToolUse"});
    for (k, v) in fields.as_object().unwrap() {
        out[k] = v.clone();
    }
    json!({"hookSpecificOutput": out})
}

#[tokio::test]
async fn permission_decision_allow_ask_deny_with_reason() {
    for (word, expected) in [
        ("allow", Verdict::Allow),
        ("ask", Verdict::Ask),
        ("deny", Verdict::Deny),
    ] {
        let p = Project::new();
        let out = pre_with(
            &p,
            specific(json!({"permissionDecision": word, "permissionDecisionReason": format!("because {word}")})),
        )
        .await;
        let d = out.decision.expect("a decision");
        assert_eq!(d.decision, expected);
        assert_eq!(d.reason, Some(format!("because {word}")));
    }
}

#[tokio::test]
async fn legacy_top_level_decision_approve_and_block() {
    let p = Project::new();
    let out = pre_with(&p, json!({"decision": "approve", "reason": "fine"})).await;
    let d = out.decision.unwrap();
    assert_eq!(
        (d.decision, d.reason.as_deref()),
        (Verdict::Allow, Some("fine"))
    );

    let p = Project::new();
    let out = pre_with(&p, json!({"decision": "block", "reason": "nope"})).await;
    let d = out.decision.unwrap();
    assert_eq!(
        (d.decision, d.reason.as_deref()),
        (Verdict::Deny, Some("nope"))
    );
}

#[tokio::test]
async fn hook_specific_decision_wins_over_the_legacy_one() {
    let p = Project::new();
    let mut stdout = specific(json!({"permissionDecision": "ask"}));
    stdout["decision"] = json!("approve");
    let out = pre_with(&p, stdout).await;
    assert_eq!(out.decision.unwrap().decision, Verdict::Ask);
}

#[tokio::test]
async fn deny_without_reason_gets_one_naming_the_hook() {
    let p = Project::new();
    let out = pre_with(&p, specific(json!({"permissionDecision": "deny"}))).await;
    let reason = out.decision.unwrap().reason.unwrap();
    assert!(
        reason.starts_with("denied by PreToolUse hook `"),
        "{reason}"
    );
}

#[tokio::test]
async fn updated_input_replaces_the_whole_input() {
    let p = Project::new();
    let out = pre_with(
        &p,
        specific(json!({"permissionDecision": "allow", "updatedInput": {"command": "ls"}})),
    )
    .await;
    assert_eq!(out.updated_input, Some(json!({"command": "ls"})));
    assert_eq!(out.rewritten_by.len(), 1);
    assert_eq!(out.decision.unwrap().decision, Verdict::Allow);
}

#[tokio::test]
async fn updated_input_applies_without_a_decision_but_not_with_deny() {
    let p = Project::new();
    let out = pre_with(&p, specific(json!({"updatedInput": {"command": "pwd"}}))).await;
    assert_eq!(out.updated_input, Some(json!({"command": "pwd"})));
    assert!(out.decision.is_none());

    let p = Project::new();
    let out = pre_with(
        &p,
        specific(json!({"permissionDecision": "deny", "updatedInput": {"command": "pwd"}})),
    )
    .await;
    assert!(out.updated_input.is_none());
    assert!(out.denied());
}

#[tokio::test]
async fn additional_context_goes_to_the_model() {
    let p = Project::new();
    let out = pre_with(
        &p,
        specific(json!({"additionalContext": "the repo uses pnpm"})),
    )
    .await;
    let notes: Vec<_> = out
        .additional_context
        .iter()
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(notes, ["the repo uses pnpm"]);
    assert!(out.decision.is_none());
}

#[tokio::test]
async fn continue_false_stops_the_agent_denies_the_call_and_skips_later_hooks() {
    let p = Project::new();
    let stopper = p.prints(
        "stop",
        &json!({"continue": false, "stopReason": "budget exhausted",
                "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}),
    );
    let hooks = pre(vec![cmd(&stopper), cmd(&p.logs("later", "later"))]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    let stop = out.stop.clone().expect("a stop");
    assert_eq!(stop.reason.as_deref(), Some("budget exhausted"));
    assert_eq!(stop.hook.command, stopper);
    assert!(out.denied(), "continue:false wins over the allow");
    assert!(p.log().is_empty(), "later hook must not run");
}

#[tokio::test]
async fn system_message_is_reported_to_the_user() {
    let p = Project::new();
    let out = pre_with(
        &p,
        json!({"systemMessage": "heads up: prod config", "suppressOutput": true}),
    )
    .await;
    let reports: Vec<_> = out
        .reports
        .iter()
        .map(|r| (r.kind, r.message.as_str()))
        .collect();
    assert_eq!(
        reports,
        [(ReportKind::SystemMessage, "heads up: prod config")]
    );
}

#[tokio::test]
async fn suppress_output_hides_the_stdout_report() {
    let p = Project::new();
    let out = pre_with(&p, json!({"suppressOutput": false, "systemMessage": "m"})).await;
    assert!(
        out.reports
            .iter()
            .any(|r| r.kind == ReportKind::Output && r.message.contains("\"systemMessage\""))
    );

    let p = Project::new();
    let out = pre_with(&p, json!({"suppressOutput": true, "systemMessage": "m"})).await;
    assert!(out.reports.iter().all(|r| r.kind != ReportKind::Output));
}

#[tokio::test]
async fn hook_event_name_for_another_event_is_invalid_output() {
    let p = Project::new();
    let out = pre_with(
        &p,
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}),
    )
    .await;
    assert!(out.decision.is_none());
    assert_eq!(out.reports[0].kind, ReportKind::InvalidOutput);
    assert!(
        out.reports[0].message.contains("`PostToolUse`"),
        "{}",
        out.reports[0].message
    );
}

#[tokio::test]
async fn a_known_field_of_the_wrong_type_is_invalid_output() {
    for bad in [
        specific(json!({"permissionDecision": "maybe"})),
        specific(json!({"updatedInput": "ls"})),
        json!({"continue": "no"}),
        json!({"decision": "allow"}),
    ] {
        let p = Project::new();
        let out = pre_with(&p, bad.clone()).await;
        assert!(out.decision.is_none(), "{bad}");
        assert!(out.updated_input.is_none(), "{bad}");
        assert!(out.stop.is_none(), "{bad}");
        assert_eq!(out.reports.len(), 1, "{bad}");
        assert_eq!(out.reports[0].kind, ReportKind::InvalidOutput, "{bad}");
    }
}

#[tokio::test]
async fn unknown_fields_are_ignored() {
    let p = Project::new();
    let out = pre_with(
        &p,
        json!({"suppressOutput": true, "someFutureField": 1,
               "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "future": true}}),
    )
    .await;
    assert_eq!(out.decision.unwrap().decision, Verdict::Ask);
    assert!(out.reports.is_empty());
}
