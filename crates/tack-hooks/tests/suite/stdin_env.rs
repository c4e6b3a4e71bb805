//! What a hook receives: the exact stdin JSON of each event (fields and their
//! order, as Claude Code sends them), the environment and the working directory.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::{Project, cmd, one, settings};

/// A hook for `event` that saves its stdin to `stdin.json`.
fn recorder(p: &Project, event: &str) -> tack_hooks::Hooks {
    one(settings(
        event,
        None,
        vec![cmd(&p.sh("rec", "cat > \"$OUT/stdin.json\""))],
    ))
}

fn common(p: &Project, event: &str) -> Value {
    json!({
        "session_id": "sess-123",
        "transcript_path": p.file("transcript.jsonl").display().to_string(),
        "cwd": p.path().join("work").display().to_string(),
        "permission_mode": "default",
        "hook_event_name": event,
    })
}

fn with(mut base: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn assert_stdin(p: &Project, expected: Value) {
    let got = p.read_json("stdin.json");
    assert_eq!(got, expected);
    assert_eq!(keys(&got), keys(&expected), "field order");
}

#[tokio::test]
async fn pre_tool_use_stdin() {
    let p = Project::new();
    let input = json!({"command": "npm test", "description": "Run tests"});
    recorder(&p, "PreToolUse")
        .pre_tool_use(&p.ctx(), "Bash", "toolu_01", &input)
        .await;
    assert_stdin(
        &p,
        with(
            common(&p, "PreToolUse"),
            json!({"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_01"}),
        ),
    );
}

#[tokio::test]
async fn post_tool_use_stdin() {
    let p = Project::new();
    let input = json!({"file_path": "/x/a.txt", "content": "hi"});
    let response = json!({"filePath": "/x/a.txt", "success": true});
    recorder(&p, "PostToolUse")
        .post_tool_use(
            &p.ctx(),
            "Write",
            "toolu_02",
            &input,
            &response,
            Some(Duration::from_millis(42)),
        )
        .await;
    assert_stdin(
        &p,
        with(
            common(&p, "PostToolUse"),
            json!({"tool_name": "Write", "tool_input": input, "tool_response": response, "tool_use_id": "toolu_02", "duration_ms": 42}),
        ),
    );
}

#[tokio::test]
async fn post_tool_use_failure_stdin() {
    let p = Project::new();
    let input = json!({"command": "false"});
    recorder(&p, "PostToolUseFailure")
        .post_tool_use_failure(
            &p.ctx(),
            "Bash",
            "toolu_03",
            &input,
            "exit status 1",
            false,
            Some(Duration::from_millis(7)),
        )
        .await;
    assert_stdin(
        &p,
        with(
            common(&p, "PostToolUseFailure"),
            json!({"tool_name": "Bash", "tool_input": input, "tool_use_id": "toolu_03",
                   "error": "exit status 1", "is_interrupt": false, "duration_ms": 7}),
        ),
    );
}

#[tokio::test]
async fn user_prompt_submit_stdin() {
    let p = Project::new();
    recorder(&p, "UserPromptSubmit")
        .user_prompt_submit(&p.ctx(), "fix the \"bug\"\nplease")
        .await;
    assert_stdin(
        &p,
        with(
            common(&p, "UserPromptSubmit"),
            json!({"prompt": "fix the \"bug\"\nplease"}),
        ),
    );
}

#[tokio::test]
async fn stop_stdin() {
    let p = Project::new();
    recorder(&p, "Stop").stop(&p.ctx(), true).await;
    assert_stdin(
        &p,
        with(common(&p, "Stop"), json!({"stop_hook_active": true})),
    );
}

#[tokio::test]
async fn session_start_stdin() {
    let p = Project::new();
    recorder(&p, "SessionStart")
        .session_start(&p.ctx(), "resume")
        .await;
    assert_stdin(
        &p,
        with(common(&p, "SessionStart"), json!({"source": "resume"})),
    );
}

#[tokio::test]
async fn session_end_stdin() {
    let p = Project::new();
    recorder(&p, "SessionEnd")
        .session_end(&p.ctx(), "prompt_input_exit")
        .await;
    assert_stdin(
        &p,
        with(
            common(&p, "SessionEnd"),
            json!({"reason": "prompt_input_exit"}),
        ),
    );
}

#[tokio::test]
async fn hooks_run_in_the_project_dir_with_both_project_dir_variables() {
    let p = Project::new();
    let hook = p.sh(
        "env",
        r#"cat >/dev/null
printf '{"claude": "%s", "tack": "%s", "pwd": "%s"}' "$CLAUDE_PROJECT_DIR" "$TACK_PROJECT_DIR" "$(pwd -P)" > "$OUT/env.json""#,
    );
    let hooks = one(settings("PreToolUse", None, vec![cmd(&hook)]));
    hooks.pre_tool_use(&p.ctx(), "Bash", "t1", &json!({})).await;

    let env = p.read_json("env.json");
    let dir = p.path().display().to_string();
    assert_eq!(env["claude"], json!(dir));
    assert_eq!(env["tack"], json!(dir));
    assert_eq!(
        env["pwd"],
        json!(p.path().canonicalize().unwrap().display().to_string())
    );
}

#[tokio::test]
async fn the_command_is_run_by_sh_with_project_dir_expanded() {
    let p = Project::new();
    p.sh(
        "in-project.sh",
        "cat >/dev/null; echo found >> \"$OUT/log\"",
    );
    let hooks = one(settings(
        "PreToolUse",
        None,
        vec![cmd(
            "sh \"$CLAUDE_PROJECT_DIR\"/in-project.sh && echo and-more >> \"$TACK_PROJECT_DIR/log\"",
        )],
    ));
    hooks.pre_tool_use(&p.ctx(), "Bash", "t1", &json!({})).await;
    assert_eq!(p.log(), ["found", "and-more"]);
}
