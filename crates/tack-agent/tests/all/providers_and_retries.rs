//! Both providers, streamed and not; retries never run a tool twice.

use std::time::{Duration, Instant};

use serde_json::json;
use tack_agent::RunStatus;
use tack_model::ProviderKind;
use tack_protocol::ToolOutcome;
use tack_testkit::Step;

use crate::support::{Setup, harness_with};

fn tool_then_text() -> Vec<Step> {
    vec![
        Step::tool_uses(vec![
            ("call_1", "Echo", json!({"text": "a"})),
            ("call_2", "Echo", json!({"text": "b"})),
        ]),
        Step::text("all done"),
    ]
}

#[tokio::test]
async fn both_providers_streamed_and_not_run_the_loop() {
    for provider in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        for stream in [true, false] {
            let mut h = harness_with(
                tool_then_text(),
                Setup {
                    provider,
                    stream,
                    ..Setup::default()
                },
            )
            .await;
            let out = h.run("echo").await;
            let label = format!("{provider:?} stream={stream}");
            assert_eq!(out.status, RunStatus::Completed, "{label}");
            assert_eq!(out.text, "all done", "{label}");
            let results = h.results_in(2);
            assert_eq!(results.len(), 2, "{label}");
            assert_eq!(results[0].text(), "a", "{label}");
            assert_eq!(results[1].text(), "b", "{label}");
            let bodies = h.bodies();
            assert_eq!(bodies.len(), 2, "{label}");
            assert_eq!(
                bodies[0]["stream"].as_bool().unwrap_or(false),
                stream,
                "{label}"
            );
            if provider == ProviderKind::OpenAi {
                let msgs = bodies[1]["messages"].as_array().unwrap();
                let roles: Vec<_> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
                assert_eq!(roles, ["user", "assistant", "tool", "tool"], "{label}");
                assert_eq!(msgs[2]["tool_call_id"], "call_1");
            }
        }
    }
}

#[tokio::test]
async fn streamed_text_arrives_as_deltas() {
    let mut h = harness_with(
        vec![Step::text("hello there, streaming world")],
        Setup::default(),
    )
    .await;
    h.run("x").await;
    let deltas: Vec<String> = h
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            tack_protocol::SessionEvent::TextDelta { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert!(deltas.len() >= 2, "{deltas:?}");
    assert_eq!(deltas.concat(), "hello there, streaming world");
}

#[tokio::test]
async fn rate_limit_with_retry_after_is_waited_and_no_tool_runs_twice() {
    for provider in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        let mut h = harness_with(
            vec![
                Step::tool_use("t1", "Echo", json!({"text": "once"})),
                Step::error(429).header("retry-after", "1"),
                Step::text("ok"),
            ],
            Setup {
                provider,
                ..Setup::default()
            },
        )
        .await;
        let started = Instant::now();
        let out = h.run("x").await;
        assert_eq!(out.status, RunStatus::Completed);
        assert!(
            started.elapsed() >= Duration::from_millis(950),
            "retry-after honoured"
        );
        assert_eq!(h.calls(), 1);
        assert_eq!(h.mock.requests().len(), 3);
    }
}

#[tokio::test]
async fn overloaded_twice_then_success() {
    let mut h = harness_with(
        vec![
            Step::tool_use("t1", "Echo", json!({"text": "once"})),
            Step::error(529),
            Step::error(529),
            Step::text("ok"),
        ],
        Setup::default(),
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(h.calls(), 1);
    assert_eq!(h.mock.requests().len(), 4);
    let retries = h
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, tack_protocol::SessionEvent::Retry { .. }))
        .count();
    assert_eq!(retries, 2);
}

#[tokio::test]
async fn a_cut_stream_is_retried_whole_without_running_tools_twice() {
    for provider in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        let mut h = harness_with(
            vec![
                Step::tool_use("t1", "Echo", json!({"text": "x"})).cut_after(4),
                Step::tool_use("t1", "Echo", json!({"text": "x"})),
                Step::text("ok"),
            ],
            Setup {
                provider,
                ..Setup::default()
            },
        )
        .await;
        let out = h.run("x").await;
        assert_eq!(out.status, RunStatus::Completed, "{provider:?}");
        assert_eq!(h.calls(), 1, "{provider:?}");
        assert_eq!(h.outcomes(), [("t1".to_owned(), ToolOutcome::Ok)]);
        assert_eq!(h.mock.requests().len(), 3);
    }
}

#[tokio::test]
async fn a_fatal_api_error_ends_the_run_with_a_clear_message() {
    let mut h = harness_with(vec![Step::error(401)], Setup::default()).await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::ModelError);
    let msg = out.error.unwrap().to_string();
    assert!(msg.contains("ANTHROPIC_API_KEY"), "{msg}");
    assert_eq!(h.mock.requests().len(), 1, "401 is not retried");
}

#[tokio::test]
async fn invalid_openai_arguments_are_answered_not_run() {
    let mut h = harness_with(
        vec![
            Step::tool_use("call_1", "Echo", json!({"text": "x"}))
                .raw_tool_arguments("call_1", "{\"text\": \"unterminated"),
            Step::text("ok"),
        ],
        Setup {
            provider: ProviderKind::OpenAi,
            ..Setup::default()
        },
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(h.calls(), 1, "the call enters the pipeline");
    assert_eq!(h.outcomes()[0].1, ToolOutcome::InvalidInput);
    let r = &h.results_in(2)[0];
    assert!(r.text().contains("not valid JSON"), "{}", r.text());
    assert!(r.text().contains("unterminated"), "{}", r.text());
    h.bodies();
}
