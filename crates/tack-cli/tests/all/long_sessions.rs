//! Long sessions against the strict mock with a context window: tool
//! results that add up to three windows still finish, a resumed session can
//! be compacted on request (the summary request failing included), the
//! compaction hooks get Claude Code's fields, and a kill in the middle of a
//! compaction loses nothing.

use super::*;
use tack_protocol::{ContentBlock, StopReason};
use tack_testkit::Expect;

const WINDOW: u64 = 100_000;

/// A Bash command that prints ~20 KB: a marker line, then 200 lines of 100.
fn big_output(i: usize) -> String {
    format!("printf 'MARKER-{i}-END\\n'; for n in $(seq 200); do printf '%0100d\\n' $n; done")
}

/// 60 Bash calls of ~20 KB each (~300k tokens of results), then ReadOutput of
/// the first one's artifact, then the answer, which the mock only gives if
/// the first output came back.
fn sixty_calls() -> Vec<Step> {
    let mut steps: Vec<Step> = (0..60)
        .map(|i| Step::tool_use(format!("t{i}"), "Bash", json!({"command": big_output(i)})))
        .collect();
    steps.push(Step::tool_use(
        "read",
        "ReadOutput",
        json!({"artifact": "art_t0", "pattern": "MARKER-0-END"}),
    ));
    steps.push(Step::text("done").expect(Expect {
        last_user_contains: Some("MARKER-0-END".into()),
        ..Expect::default()
    }));
    steps
}

fn assert_fits(w: &World, out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    assert_eq!(stdout(out), "done\n");
    assert!(
        w.mock.rejections().is_empty(),
        "a request was refused: {:?}",
        w.mock.rejections().first().map(|r| &r.error)
    );
    assert_eq!(w.mock.requests().len(), 62, "no summary request, no retry");
    let (_, events) = w.transcript();
    let compactions = of_type(&events, "compaction");
    assert!(!compactions.is_empty());
    for c in &compactions {
        assert_eq!(c["trigger"], "auto");
        assert_eq!(c["stages"], json!(["tool_results"]));
        assert!(c["tokens_after"].as_u64() < c["tokens_before"].as_u64());
        assert!(
            c["tokens_after"].as_u64().unwrap() <= WINDOW / 2 + 5_000,
            "{c}"
        );
    }
    // Every call ran once.
    assert_eq!(of_type(&events, "tool_result").len(), 61);
    let log = w
        .tack()
        .args(["log"])
        .current_dir(w.cwd.path())
        .output()
        .unwrap();
    assert!(
        stdout(&log).contains("compacted (auto:"),
        "{}",
        stdout(&log)
    );
}

#[tokio::test]
async fn sixty_large_results_fit_a_100k_window() {
    let w = World::new(sixty_calls()).await;
    w.mock.set_context_window(Some(WINDOW));
    let mut cmd = w.tack();
    cmd.args([
        "run",
        "--permission-mode",
        "bypassPermissions",
        "--context-window",
        "100000",
        "count",
    ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_fits(&w, &out);
    // The stubs name their artifact; the newest results went whole.
    let last = &w.mock.requests()[61].body;
    let text = last["messages"].to_string();
    assert!(text.contains("Cleared to save context: the result of Bash"));
    assert!(text.contains("MARKER-59-END"));
}

#[tokio::test]
async fn sixty_large_results_fit_a_100k_window_over_chat_completions() {
    let w = World::new(sixty_calls()).await;
    w.mock.set_context_window(Some(WINDOW));
    let mut cmd = w.tack();
    cmd.env_remove("ANTHROPIC_API_KEY")
        .env("OPENAI_API_KEY", "k")
        .args([
            "run",
            "--provider",
            "openai",
            "--model",
            "gpt-test",
            "--base-url",
            &w.mock.url(),
            "--permission-mode",
            "bypassPermissions",
            "--context-window",
            "100000",
            "count",
        ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_fits(&w, &out);
    assert!(
        w.mock
            .requests()
            .iter()
            .all(|r| r.path == "/v1/chat/completions")
    );
}

#[tokio::test]
async fn without_a_known_window_the_first_overflow_teaches_it_and_is_retried_once() {
    // tack assumes 200k for an unknown model; the mock's window is 30k.
    let mut steps: Vec<Step> = (0..8)
        .map(|i| Step::tool_use(format!("t{i}"), "Bash", json!({"command": big_output(i)})))
        .collect();
    steps.push(Step::text("done"));
    let w = World::new(steps).await;
    w.mock.set_context_window(Some(30_000));
    let mut cmd = w.tack();
    cmd.args(["run", "--permission-mode", "bypassPermissions", "count"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(w.mock.rejections().len(), 1, "one refusal, then it knows");
    let (_, events) = w.transcript();
    let c = of_type(&events, "compaction");
    assert_eq!(c[0]["trigger"], "overflow");
    assert_eq!(
        of_type(&events, "tool_result").len(),
        8,
        "no call ran twice"
    );
}

#[tokio::test]
async fn a_prompt_that_cannot_fit_says_what_is_large_and_keeps_the_session() {
    let w = World::new(vec![Step::text("unreached")]).await;
    w.mock.set_context_window(Some(2_000));
    let prompt = "x".repeat(20_000);
    let out = w.run(&["--output-format", "json", &prompt]).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let error = result["result"].as_str().unwrap_or_default().to_owned()
        + result["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("does not fit the model's context window")
            && error.contains("tack run --resume"),
        "{result:#}"
    );
    let (_, events) = w.transcript();
    assert_eq!(of_type(&events, "message").len(), 1, "the prompt is saved");
}

/// A finished session of four turns whose assistant texts are long (so only
/// a summary can shrink it); returns its id.
async fn long_talk(w: &World) -> String {
    let out = w.run(&["--system-prompt", "test", "tell me"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (_, events) = w.transcript();
    events[0]["session_id"].as_str().unwrap().to_owned()
}

fn talk_steps() -> Vec<Step> {
    let mut steps = Vec::new();
    for i in 0..4 {
        steps.push(Step::reply(
            vec![
                ContentBlock::text(format!("part {i}: {}", "word ".repeat(2_000))),
                ContentBlock::ToolUse(tack_protocol::ToolUseBlock {
                    id: format!("e{i}"),
                    name: "Echo".into(),
                    input: json!({"text": format!("echo {i}")}),
                    extra: Default::default(),
                }),
            ],
            StopReason::ToolUse,
        ));
    }
    steps.push(Step::text("all told"));
    steps
}

/// Settings with PreCompact and PostCompact hooks that save their stdin.
fn record_compact_hooks(w: &World) -> PathBuf {
    let dir = w.cwd.path().join("hooks-seen");
    std::fs::create_dir_all(&dir).unwrap();
    let hook = |name: &str| json!([{"hooks": [{"type": "command", "command": format!("cat > '{}/{name}.json'", dir.display())}]}]);
    let settings = json!({"hooks": {"PreCompact": hook("pre"), "PostCompact": hook("post")}});
    std::fs::create_dir_all(w.cwd.path().join(".tack")).unwrap();
    std::fs::write(
        w.cwd.path().join(".tack/settings.local.json"),
        settings.to_string(),
    )
    .unwrap();
    dir
}

#[tokio::test]
async fn compact_now_summarises_runs_the_hooks_and_resumes_compacted() {
    let mut steps = talk_steps();
    steps.push(Step::text("SUMMARY: four parts were told").expect(Expect {
        last_user_contains: Some("keep the part numbers".into()),
        ..Expect::default()
    }));
    steps.push(Step::text("answer after compaction"));
    steps.push(Step::text("answer after resume"));
    let w = World::new(steps).await;
    let seen = record_compact_hooks(&w);
    let id = long_talk(&w).await;
    let out = w
        .run(&[
            "--resume",
            &id,
            "--trust-project-settings",
            "--compact-now",
            "--compact-instructions",
            "keep the part numbers",
            "next question",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "answer after compaction\n");
    assert!(
        stderr(&out).contains("✂ compacted (manual)"),
        "{}",
        stderr(&out)
    );
    let requests = w.mock.requests();
    let summary_request = &requests[5].body;
    assert_eq!(summary_request["tool_choice"], json!({"type": "none"}));
    let after = &requests[6].body["messages"];
    let first = after[0].to_string();
    assert!(first.contains("SUMMARY: four parts were told"), "{first}");
    assert!(first.contains("The original task:\\ntell me"), "{first}");
    assert!(
        after.as_array().unwrap().len() < 8,
        "older turns are gone: {after}"
    );
    // Claude Code's hook fields.
    let pre: Value =
        serde_json::from_str(&std::fs::read_to_string(seen.join("pre.json")).unwrap()).unwrap();
    assert_eq!(pre["hook_event_name"], "PreCompact");
    assert_eq!(pre["trigger"], "manual");
    assert_eq!(pre["custom_instructions"], "keep the part numbers");
    assert!(pre["session_id"].is_string() && pre["transcript_path"].is_string());
    let post: Value =
        serde_json::from_str(&std::fs::read_to_string(seen.join("post.json")).unwrap()).unwrap();
    assert_eq!(post["hook_event_name"], "PostCompact");
    assert_eq!(post["trigger"], "manual");
    assert_eq!(post["compact_summary"], "SUMMARY: four parts were told");
    // The full history stays in the transcript; a resume sends the compacted one.
    let (_, events) = w.transcript();
    assert!(of_type(&events, "message").len() >= 10);
    let out = w.run(&["--resume", &id, "and now?"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let resumed = &w.mock.requests()[7].body["messages"];
    assert!(
        resumed[0]
            .to_string()
            .contains("SUMMARY: four parts were told")
    );
    assert_eq!(
        resumed.as_array().unwrap().len(),
        after.as_array().unwrap().len() + 2
    );
    let log = w.tack().args(["log", &id]).output().unwrap();
    assert!(
        stdout(&log).contains("compacted (manual: asked for)"),
        "{}",
        stdout(&log)
    );
}

#[tokio::test]
async fn a_failing_summary_request_falls_back_and_the_session_goes_on() {
    let mut steps = talk_steps();
    // TACK_MAX_RETRIES=2: three attempts, all failing (a 500, then cut streams).
    steps.push(Step::error(500));
    steps.push(Step::text("never whole").cut_after(2));
    steps.push(Step::text("never whole").cut_after(2));
    steps.push(Step::text("still going"));
    let w = World::new(steps).await;
    let id = long_talk(&w).await;
    let out = w
        .run(&["--resume", &id, "--compact-now", "next question"])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "still going\n");
    let (_, events) = w.transcript();
    let c = of_type(&events, "compaction");
    assert_eq!(c.len(), 1);
    assert!(c[0]["stages"].to_string().contains("fallback"), "{}", c[0]);
    let last = w.mock.requests().last().unwrap().body["messages"][0].to_string();
    assert!(last.contains("No summary could be made"), "{last}");
    assert!(last.contains("Echo ×"), "{last}");
}

#[tokio::test]
async fn a_kill_during_compaction_loses_nothing() {
    let mut steps = talk_steps();
    steps.push(Step::text("slow summary").with_delay(Duration::from_secs(30)));
    steps.push(Step::text("SUMMARY again"));
    steps.push(Step::text("after the kill"));
    let w = World::new(steps).await;
    let id = long_talk(&w).await;
    let before = read_lines(&w.transcript().0);
    let mut cmd = w.tack();
    cmd.args(["run", "--fixture-tools", "--resume", &id, "--compact-now"]);
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while w.mock.requests().len() < 6 {
        assert!(Instant::now() < deadline, "the summary request never came");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let after = read_lines(&w.transcript().0);
    assert_eq!(
        of_type(&after, "message").len(),
        of_type(&before, "message").len(),
        "nothing changed"
    );
    assert!(of_type(&after, "compaction").is_empty());
    // The next run compacts again from the whole conversation and goes on.
    let out = w.run(&["--resume", &id, "--compact-now", "go on"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "after the kill\n");
}

#[tokio::test]
async fn a_misspelt_compaction_key_is_named_with_its_file_and_line() {
    let w = World::new(vec![Step::text("ok")]).await;
    std::fs::create_dir_all(w.cwd.path().join(".tack")).unwrap();
    std::fs::write(
        w.cwd.path().join(".tack/settings.json"),
        "{\n  \"compaction\": {\n    \"treshold\": \"70%\"\n  }\n}\n",
    )
    .unwrap();
    let out = w.run(&["hi"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("settings.json:3") && err.contains("did you mean \"threshold\""),
        "{err}"
    );
}

#[tokio::test]
async fn a_response_stopped_by_the_window_is_compacted_and_the_turn_goes_on() {
    let mut steps: Vec<Step> = (0..5)
        .map(|i| Step::tool_use(format!("t{i}"), "Bash", json!({"command": big_output(i)})))
        .collect();
    steps.push(Step::reply(
        vec![ContentBlock::text("the answer is")],
        StopReason::ModelContextWindowExceeded,
    ));
    steps.push(Step::text(" 42"));
    let w = World::new(steps).await;
    let mut cmd = w.tack();
    cmd.args(["run", "--permission-mode", "bypassPermissions", "count"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (_, events) = w.transcript();
    let c = of_type(&events, "compaction");
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["trigger"], "overflow");
    assert!(
        c[0]["cleared_tool_results"].as_u64().unwrap() >= 1,
        "{}",
        c[0]
    );
    // The cut answer is sent back for the model to continue.
    let last = &w.mock.requests()[6].body["messages"];
    let n = last.as_array().unwrap().len();
    assert_eq!(last[n - 1]["role"], "assistant");
}

#[tokio::test]
async fn with_provider_compaction_anthropic_gets_context_management_and_its_blocks_back() {
    let compaction = json!({"type": "compaction", "content": "Summary so far", "encrypted_content": "EpwBopaque=="});
    let w = World::new(vec![
        Step::reply(
            vec![
                ContentBlock::Unknown(compaction.clone()),
                ContentBlock::text("going on"),
                ContentBlock::ToolUse(tack_protocol::ToolUseBlock {
                    id: "e1".into(),
                    name: "Echo".into(),
                    input: json!({"text": "x"}),
                    extra: Default::default(),
                }),
            ],
            StopReason::ToolUse,
        ),
        Step::text("done"),
    ])
    .await;
    std::fs::create_dir_all(w.cwd.path().join(".tack")).unwrap();
    std::fs::write(
        w.cwd.path().join(".tack/settings.local.json"),
        json!({"compaction": {"provider": true, "threshold": "60%"}}).to_string(),
    )
    .unwrap();
    let out = w.run(&["--context-window", "200000", "go"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = w.mock.requests();
    let first = &requests[0];
    let betas = first
        .header("anthropic-beta")
        .unwrap_or_default()
        .to_owned();
    assert!(
        betas.contains("context-management-2025-06-27") && betas.contains("compact-2026-01-12"),
        "{betas}"
    );
    let edits = &first.body["context_management"]["edits"];
    assert_eq!(edits[0]["type"], "clear_tool_uses_20250919");
    assert_eq!(edits[0]["trigger"]["value"], 120_000);
    assert_eq!(edits[0]["keep"]["value"], 3);
    assert_eq!(edits[1]["type"], "compact_20260112");
    // The compaction block goes back exactly as it came.
    assert!(
        requests[1].raw_body.contains(
            r#"{"type":"compaction","content":"Summary so far","encrypted_content":"EpwBopaque=="}"#
        ),
        "{}",
        requests[1].raw_body
    );
}

#[tokio::test]
async fn a_resumed_session_near_the_threshold_asks_the_providers_count() {
    let mut steps: Vec<Step> = (0..5)
        .map(|i| Step::tool_use(format!("t{i}"), "Bash", json!({"command": big_output(i)})))
        .collect();
    steps.push(Step::text("first done"));
    steps.push(Step::text("second done"));
    let w = World::new(steps).await;
    let args = [
        "--permission-mode",
        "bypassPermissions",
        "--context-window",
        "40000",
    ];
    let mut cmd = w.tack();
    cmd.arg("run").args(args).arg("count");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let counts = |w: &World| {
        w.mock
            .requests()
            .iter()
            .filter(|r| r.path == "/v1/messages/count_tokens")
            .count()
    };
    assert_eq!(
        counts(&w),
        0,
        "calibrated by the responses: no count needed"
    );
    let mut cmd = w.tack();
    cmd.arg("run").args(args).args(["--continue", "more"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "second done\n");
    assert_eq!(
        counts(&w),
        1,
        "the first request of the resumed session is counted"
    );
    let (_, events) = w.transcript();
    assert!(
        of_type(&events, "compaction").is_empty(),
        "the count said it fits: no compaction"
    );
}

#[tokio::test]
async fn a_local_servers_model_listing_gives_the_window_before_any_overflow() {
    // vLLM lists max_model_len: tack compacts before the 30k window, never refused.
    let mut steps: Vec<Step> = (0..8)
        .map(|i| {
            Step::tool_use(
                format!("call_{i}"),
                "Bash",
                json!({"command": big_output(i)}),
            )
        })
        .collect();
    steps.push(Step::text("done"));
    let w = World::new(steps).await;
    w.mock.set_context_window(Some(30_000));
    w.mock.set_models(vec![
        json!({"id": "local-model", "object": "model", "max_model_len": 30_000}),
    ]);
    let mut cmd = w.tack();
    cmd.env_remove("ANTHROPIC_API_KEY")
        .env("OPENAI_API_KEY", "k")
        .args([
            "run",
            "--provider",
            "openai",
            "--model",
            "local-model",
            "--base-url",
            &w.mock.url(),
            "--permission-mode",
            "bypassPermissions",
            "count",
        ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        w.mock.rejections().is_empty(),
        "{:?}",
        w.mock.rejections().first().map(|r| &r.error)
    );
    let listed = w
        .mock
        .requests()
        .iter()
        .filter(|r| r.path == "/v1/models")
        .count();
    assert_eq!(listed, 1, "asked once");
    let (_, events) = w.transcript();
    assert_eq!(of_type(&events, "compaction")[0]["trigger"], "auto");
}
