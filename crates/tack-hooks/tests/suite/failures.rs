//! Hooks that time out, crash, cannot start or print invalid JSON: reported
//! and ignored, unless fail-closed, then the guarded action is refused.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_hooks::{ReportKind, RunStatus, Verdict};

use super::support::{Project, bash_input, cmd, one, pre, settings};

fn closed(command: &str) -> Value {
    json!({"type": "command", "command": command, "failClosed": true})
}

fn with_timeout(command: &str, secs: f64, fail_closed: bool) -> Value {
    json!({"type": "command", "command": command, "timeout": secs, "failClosed": fail_closed})
}

/// Whether a process is gone (or a zombie nobody reaped yet).
fn dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn a_hook_that_times_out_is_killed_with_its_children_reported_and_ignored() {
    let p = Project::new();
    let slow = p.sh(
        "slow",
        "cat >/dev/null; sleep 10 & echo $! > \"$OUT/pid\"; wait",
    );
    let hooks = pre(vec![with_timeout(&slow, 1.0, false)]);

    let started = Instant::now();
    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    let took = started.elapsed();

    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(out.decision.is_none(), "a timeout is no decision");
    assert_eq!(out.runs[0].status, RunStatus::TimedOut);
    assert_eq!(out.reports.len(), 1);
    assert_eq!(out.reports[0].kind, ReportKind::Timeout);
    assert_eq!(
        out.reports[0].message,
        "timed out after 1s and was killed; ignored"
    );
    let pid = std::fs::read_to_string(p.file("pid")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(2);
    while !dead(pid.trim()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        dead(pid.trim()),
        "the hook's `sleep` child must be killed with it"
    );
}

#[tokio::test]
async fn a_fail_closed_hook_that_times_out_denies_the_call() {
    let p = Project::new();
    let slow = p.sh("slow", "sleep 10");
    let hooks = pre(vec![
        with_timeout(&slow, 0.5, true),
        cmd(&p.logs("later", "later")),
    ]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    let d = out.decision.expect("denied");
    assert_eq!(d.decision, Verdict::Deny);
    let reason = d.reason.unwrap();
    assert!(
        reason.contains(&slow) && reason.contains("timed out after 0.5s"),
        "{reason}"
    );
    assert!(reason.contains("fail-closed"), "{reason}");
    assert_eq!(
        out.reports[0].message,
        "timed out after 0.5s and was killed; fail-closed: the call is denied"
    );
    assert!(p.log().is_empty());
}

#[tokio::test]
async fn a_crashed_hook_is_reported_and_ignored_or_denies_when_fail_closed() {
    let p = Project::new();
    // The shell itself dies, and a script run by the shell dies (sh reports 128+9).
    let shell_dies = "cat >/dev/null; kill -9 $$".to_owned();
    let script_dies = p.sh("crash", "cat >/dev/null; kill -9 $$");
    for (crash, status, message) in [
        (
            &shell_dies,
            RunStatus::Signaled(9),
            "was killed by signal 9; ignored",
        ),
        (
            &script_dies,
            RunStatus::Exited(137),
            "was killed by signal 9 (exit code 137)",
        ),
    ] {
        let out = pre(vec![cmd(crash)])
            .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
            .await;
        assert!(out.decision.is_none());
        assert_eq!(out.runs[0].status, status);
        assert_eq!(out.reports[0].kind, ReportKind::Crashed);
        let got = &out.reports[0].message;
        assert!(
            got.starts_with(message) && got.ends_with("; ignored"),
            "{got}"
        );

        let out = pre(vec![closed(crash)])
            .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
            .await;
        assert!(out.denied());
        assert!(
            out.decision
                .unwrap()
                .reason
                .unwrap()
                .contains("killed by signal 9")
        );
    }
}

#[tokio::test]
async fn a_hook_that_cannot_start_is_reported_or_denies_when_fail_closed() {
    let p = Project::new();
    let missing = format!("'{}'", p.file("no-such-hook.sh").display());

    let out = pre(vec![cmd(&missing)])
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    assert!(out.decision.is_none());
    assert_eq!(out.runs[0].status, RunStatus::Exited(127));
    assert_eq!(out.reports[0].kind, ReportKind::NonBlockingError);
    assert!(
        out.reports[0].message.contains("exited with code 127"),
        "{}",
        out.reports[0].message
    );

    let out = pre(vec![closed(&missing)])
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    let reason = out.decision.unwrap().reason.unwrap();
    assert!(
        reason.contains("no-such-hook.sh") && reason.contains("127"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_fail_closed_hook_that_exits_1_denies() {
    let p = Project::new();
    let hook = p.sh(
        "py-crash",
        "cat >/dev/null; echo 'Traceback: KeyError' >&2; exit 1",
    );
    let out = pre(vec![closed(&hook)])
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    let reason = out.decision.expect("denied").reason.unwrap();
    assert!(reason.contains("Traceback: KeyError"), "{reason}");
}

#[tokio::test]
async fn a_project_dir_that_does_not_exist_is_a_crash() {
    let p = Project::new();
    let mut ctx = p.ctx();
    ctx.project_dir = p.file("missing-dir");
    let out = pre(vec![closed("true")])
        .pre_tool_use(&ctx, "Bash", "t1", &bash_input())
        .await;
    assert!(matches!(out.runs[0].status, RunStatus::Failed(_)));
    assert_eq!(out.reports[0].kind, ReportKind::Crashed);
    assert!(out.denied());
}

#[tokio::test]
async fn invalid_json_is_reported_and_ignored_or_denies_when_fail_closed() {
    let p = Project::new();
    let bad = p.sh(
        "bad",
        "cat >/dev/null; echo '{\"permissionDecision\": deny'",
    );

    let out = pre(vec![cmd(&bad)])
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    assert!(out.decision.is_none());
    assert_eq!(out.reports[0].kind, ReportKind::InvalidOutput);
    assert!(
        out.reports[0]
            .message
            .starts_with("printed invalid JSON output"),
        "{}",
        out.reports[0].message
    );

    let out = pre(vec![closed(&bad)])
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    assert!(out.denied());
}

#[tokio::test]
async fn fail_closed_refuses_the_action_of_each_blocking_event() {
    let p = Project::new();
    let broken = closed(&p.sh("broken", "cat >/dev/null; exit 7"));
    let ctx = p.ctx();

    let prompt = one(settings("UserPromptSubmit", None, vec![broken.clone()]))
        .user_prompt_submit(&ctx, "hi")
        .await;
    assert!(
        prompt
            .block
            .expect("prompt blocked")
            .text
            .contains("exited with code 7")
    );

    let post = one(settings("PostToolUse", None, vec![broken.clone()]))
        .post_tool_use(
            &ctx,
            "Bash",
            "t1",
            &bash_input(),
            &json!({"stdout": ""}),
            None,
        )
        .await;
    assert!(post.blocks[0].text.contains("exited with code 7"));

    let stop = one(settings("Stop", None, vec![broken.clone()]))
        .stop(&ctx, false)
        .await;
    assert!(
        stop.continue_with()
            .expect("continue")
            .contains("exited with code 7")
    );

    let start = one(settings("SessionStart", None, vec![broken]))
        .session_start(&ctx, "startup")
        .await;
    assert!(start.additional_context.is_empty());
    assert!(
        start.reports[0]
            .message
            .ends_with("fail-closed: reported only (SessionStart cannot be blocked)")
    );
}

#[tokio::test]
async fn a_background_process_holding_stdout_does_not_hang_the_hook() {
    let p = Project::new();
    let hook = p.sh("bg", "cat >/dev/null; sleep 30 & echo started");
    let started = Instant::now();
    let out = pre(vec![cmd(&hook)])
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.runs[0].status, RunStatus::Exited(0));
    assert_eq!(out.reports[0].message, "started");
}

#[tokio::test]
async fn a_hook_that_never_reads_a_large_input_still_runs() {
    let p = Project::new();
    let big = json!({"content": "x".repeat(1 << 20)});
    let hook = p.sh(
        "noread",
        "echo '{\"decision\": \"block\", \"reason\": \"too big\"}'",
    );
    let out = pre(vec![cmd(&hook)])
        .pre_tool_use(&p.ctx(), "Bash", "t1", &big)
        .await;
    assert_eq!(out.decision.unwrap().reason.as_deref(), Some("too big"));
}
