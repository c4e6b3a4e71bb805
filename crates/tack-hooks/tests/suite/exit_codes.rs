//! Exit codes, as Claude Code reads them: 0 success (stdout JSON if it starts
//! with `{`), 2 blocking (stderr is the reason, stdout ignored), anything else
//! a non-blocking error that is reported and lets the call proceed.

use serde_json::json;
use tack_hooks::{ReportKind, RunStatus, Verdict};

use super::support::{Project, bash_input, cmd, pre};

#[tokio::test]
async fn exit_0_with_plain_stdout_lets_the_call_proceed_and_reports_the_output() {
    let p = Project::new();
    let hooks = pre(vec![cmd(&p.sh("ok", "cat >/dev/null; echo 'checked ok'"))]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    assert!(out.decision.is_none());
    assert!(out.updated_input.is_none());
    assert_eq!(out.reports.len(), 1);
    assert_eq!(out.reports[0].kind, ReportKind::Output);
    assert_eq!(out.reports[0].message, "checked ok");
    assert_eq!(out.runs.len(), 1);
    assert_eq!(out.runs[0].status, RunStatus::Exited(0));
}

#[tokio::test]
async fn exit_0_with_json_stdout_is_parsed() {
    let p = Project::new();
    let stdout = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "not on Fridays"}});
    let hooks = pre(vec![cmd(&p.prints("deny", &stdout))]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    let d = out.decision.expect("a decision");
    assert_eq!(d.decision, Verdict::Deny);
    assert_eq!(d.reason.as_deref(), Some("not on Fridays"));
}

#[tokio::test]
async fn exit_0_json_after_leading_whitespace_is_still_json() {
    let p = Project::new();
    let hooks = pre(vec![cmd(&p.sh(
        "ws",
        r#"cat >/dev/null; printf '\n  {"decision": "block", "reason": "legacy block"}\n'"#,
    ))]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    assert!(out.denied());
    assert_eq!(
        out.decision.unwrap().reason.as_deref(),
        Some("legacy block")
    );
}

#[tokio::test]
async fn exit_2_denies_with_stderr_as_the_reason_and_ignores_stdout() {
    let p = Project::new();
    let guard = p.sh(
        "guard",
        r#"cat >/dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'
echo 'rm is not allowed here' >&2
exit 2"#,
    );
    let hooks = pre(vec![cmd(&guard)]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    let d = out.decision.expect("a decision");
    assert_eq!(d.decision, Verdict::Deny);
    assert_eq!(d.reason.as_deref(), Some("rm is not allowed here"));
    assert_eq!(d.hook.command, guard);
    assert_eq!(out.runs[0].status, RunStatus::Exited(2));
}

#[tokio::test]
async fn exit_2_without_stderr_still_gives_the_model_a_reason_naming_the_hook() {
    let p = Project::new();
    let guard = p.sh("quiet", "cat >/dev/null; exit 2");
    let hooks = pre(vec![cmd(&guard)]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    let reason = out.decision.expect("a decision").reason.unwrap();
    assert!(
        reason.contains(&guard) && reason.contains("PreToolUse"),
        "{reason}"
    );
}

#[tokio::test]
async fn other_exit_codes_are_non_blocking_errors_reported_to_the_user() {
    for code in [1, 3, 126] {
        let p = Project::new();
        let hooks = pre(vec![cmd(&p.sh(
            "fails",
            &format!("cat >/dev/null; echo 'lint crashed' >&2; exit {code}"),
        ))]);

        let out = hooks
            .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
            .await;

        assert!(out.decision.is_none(), "exit {code} must not decide");
        assert_eq!(out.reports.len(), 1);
        assert_eq!(out.reports[0].kind, ReportKind::NonBlockingError);
        assert_eq!(
            out.reports[0].message,
            format!("exited with code {code}: lint crashed; ignored")
        );
        assert_eq!(out.runs[0].status, RunStatus::Exited(code));
    }
}

#[tokio::test]
async fn a_non_blocking_error_does_not_stop_later_hooks() {
    let p = Project::new();
    let hooks = pre(vec![
        cmd(&p.sh("fails", "cat >/dev/null; exit 1")),
        cmd(&p.sh("deny", "cat >/dev/null; echo second >&2; exit 2")),
    ]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    assert_eq!(out.runs.len(), 2);
    assert_eq!(out.decision.unwrap().reason.as_deref(), Some("second"));
}

#[tokio::test]
async fn output_beyond_the_capture_limit_is_cut_and_reported() {
    let p = Project::new();
    let hooks = pre(vec![cmd(&p.sh(
        "loud",
        &format!(
            "cat >/dev/null; head -c {} /dev/zero | tr '\\0' x",
            tack_hooks::MAX_CAPTURE + 10
        ),
    ))]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    assert_eq!(out.reports[0].kind, ReportKind::Truncated);
    assert_eq!(out.reports[1].kind, ReportKind::Output);
    assert_eq!(out.reports[1].message.len(), tack_hooks::MAX_CAPTURE);
    assert!(out.decision.is_none());
}
