//! The loop: turns, the scheduler, and every way a call can fail.

use std::time::{Duration, Instant};

use serde_json::json;
use tack_agent::{AgentConfig, RunStatus};
use tack_protocol::{ContentBlock, Role, StopReason, ToolChoice, ToolOutcome, Usage};
use tack_testkit::Step;
use tokio_util::sync::CancellationToken;

use crate::support::{Setup, harness, harness_with, results_of};

#[tokio::test]
async fn multi_turn_loop_answers_each_tool_use_and_ends() {
    let mut h = harness(vec![
        Step::tool_use("toolu_1", "Echo", json!({"text": "one"})),
        Step::tool_use("toolu_2", "Echo", json!({"text": "two"})),
        Step::text("done"),
    ])
    .await;
    let out = h.run("echo twice").await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.turns, 3);
    assert_eq!(out.text, "done");
    let bodies = h.bodies();
    assert_eq!(bodies.len(), 3);
    // The third request carries both answered calls, each first in its user message.
    let msgs = bodies[2]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 5);
    assert_eq!(msgs[2]["content"][0]["type"], "tool_result");
    assert_eq!(msgs[2]["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(msgs[2]["content"][0]["content"][0]["text"], "one");
    assert_eq!(msgs[4]["content"][0]["tool_use_id"], "toolu_2");
    // Tool definitions go with every request.
    assert!(bodies.iter().all(|b| {
        b["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "Echo")
    }));
}

#[tokio::test]
async fn parallel_safe_calls_run_together_and_results_keep_tool_use_order() {
    let calls: Vec<_> = (0..8)
        .map(|i| (format!("toolu_{i}"), "Sleep", json!({"ms": 400 - i * 20})))
        .collect();
    let mut h = harness(vec![Step::tool_uses(calls), Step::text("ok")]).await;
    let started = Instant::now();
    let out = h.run("sleep a lot").await;
    let elapsed = started.elapsed();
    assert_eq!(out.status, RunStatus::Completed);
    // Sequential would be > 2.5 s; concurrent is about the slowest (400 ms).
    assert!(elapsed < Duration::from_millis(1500), "took {elapsed:?}");
    let results = h.results_in(2);
    let ids: Vec<_> = results.iter().map(|r| r.tool_use_id.clone()).collect();
    assert_eq!(
        ids,
        (0..8).map(|i| format!("toolu_{i}")).collect::<Vec<_>>()
    );
    assert_eq!(
        h.agent.messages()[2].content.len(),
        8,
        "only tool_results in the message"
    );
}

#[tokio::test]
async fn unsafe_calls_run_alone_in_order() {
    let mut h = harness(vec![
        Step::tool_uses(vec![
            ("a", "Sleep", json!({"ms": 200})),
            ("b", "SleepExclusive", json!({"ms": 200})),
            ("c", "SleepExclusive", json!({"ms": 200})),
            ("d", "Sleep", json!({"ms": 200})),
        ]),
        Step::text("ok"),
    ])
    .await;
    let started = Instant::now();
    h.run("go").await;
    // a, b, c, d cannot overlap: the exclusive calls separate the safe ones.
    assert!(
        started.elapsed() >= Duration::from_millis(800),
        "{:?}",
        started.elapsed()
    );
    let order: Vec<_> = h.outcomes().into_iter().map(|(id, _)| id).collect();
    assert_eq!(order, ["a", "b", "c", "d"]);
}

#[tokio::test]
async fn unknown_tool_is_answered_with_the_available_tools() {
    let mut h = harness(vec![
        Step::tool_use("toolu_x", "Frobnicate", json!({})),
        Step::text("sorry"),
    ])
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    let r = &h.results_in(2)[0];
    assert!(r.is_error);
    let text = r.text();
    assert!(text.contains("No tool named \"Frobnicate\""), "{text}");
    assert!(text.contains("Echo, Sleep"), "{text}");
    assert_eq!(h.outcomes()[0].1, ToolOutcome::UnknownTool);
    h.bodies();
}

#[tokio::test]
async fn schema_violation_names_the_field_and_does_not_run() {
    let mut h = harness(vec![
        Step::tool_use("toolu_1", "Sleep", json!({"ms": "soon"})),
        Step::text("ok"),
    ])
    .await;
    h.run("x").await;
    let r = &h.results_in(2)[0];
    assert!(r.is_error);
    assert!(r.text().contains("input.ms"), "{}", r.text());
    assert!(r.text().contains("\"soon\""), "{}", r.text());
    assert_eq!(h.outcomes()[0].1, ToolOutcome::InvalidInput);
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result_and_the_loop_goes_on() {
    let mut h = harness(vec![
        Step::tool_use("toolu_1", "Fail", json!({"kind": "panic"})),
        Step::tool_use("toolu_2", "Echo", json!({"text": "still alive"})),
        Step::text("ok"),
    ])
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    let r = &h.results_in(2)[0];
    assert!(r.is_error && r.text().contains("panicked"), "{}", r.text());
    assert_eq!(h.results_in(4)[0].text(), "still alive");
}

#[tokio::test]
async fn every_error_kind_tells_the_model_what_to_do() {
    let kinds = [
        "invalid_input",
        "denied",
        "transient",
        "unavailable",
        "internal",
    ];
    let calls: Vec<_> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| (format!("t{i}"), "Fail", json!({"kind": k})))
        .collect();
    let mut h = harness(vec![Step::tool_uses(calls), Step::text("ok")]).await;
    h.run("x").await;
    let texts: Vec<String> = h.results_in(2).iter().map(|r| r.text()).collect();
    assert!(texts[0].contains("Fix the input"));
    assert!(texts[1].contains("denied") && texts[1].contains("Do not repeat"));
    assert!(texts[2].contains("Retrying the same call may succeed"));
    assert!(texts[3].contains("Use another tool"));
    assert!(texts[4].contains("internal error"));
    let outcomes: Vec<_> = h.outcomes().into_iter().map(|(_, o)| o).collect();
    assert_eq!(
        outcomes,
        [
            ToolOutcome::InvalidInput,
            ToolOutcome::Denied,
            ToolOutcome::Transient,
            ToolOutcome::Unavailable,
            ToolOutcome::Internal
        ]
    );
}

#[tokio::test]
async fn a_hung_tool_is_timed_out() {
    let mut h = harness_with(
        vec![
            Step::tool_use("toolu_1", "Hang", json!({})),
            Step::text("ok"),
        ],
        Setup {
            tool_timeout: Some(Duration::from_millis(300)),
            ..Setup::default()
        },
    )
    .await;
    let started = Instant::now();
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    assert!(started.elapsed() < Duration::from_secs(3));
    let r = &h.results_in(2)[0];
    assert!(
        r.is_error && r.text().contains("timed out after 300ms"),
        "{}",
        r.text()
    );
    assert_eq!(h.outcomes()[0].1, ToolOutcome::Timeout);
}

#[tokio::test]
async fn ctrl_c_answers_in_flight_and_pending_calls_interrupted() {
    let mut h = harness(vec![
        Step::tool_uses(vec![
            ("a", "Sleep", json!({"ms": 10_000})),
            ("b", "Hang", json!({})),
            ("c", "Echo", json!({"text": "never"})),
        ]),
        Step::text("unreached"),
    ])
    .await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let out = h
        .agent
        .run(Some(vec![ContentBlock::text("x")]), &cancel)
        .await;
    assert_eq!(out.status, RunStatus::Interrupted);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let last = h.agent.messages().last().unwrap();
    assert_eq!(last.role, Role::User);
    let results = results_of(last);
    assert_eq!(results.len(), 3);
    assert!(
        results
            .iter()
            .all(|r| r.is_error && r.text().contains("interrupted"))
    );
    assert_eq!(h.mock.requests().len(), 1, "no request after the interrupt");
}

#[tokio::test]
async fn max_tokens_cut_tool_use_is_not_run_but_answered() {
    let mut h = harness(vec![Step::reply(
        vec![
            ContentBlock::text("let me"),
            tool_use_block("toolu_1", "Echo", json!({"text": "half"})),
        ],
        StopReason::MaxTokens,
    )])
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::MaxTokens);
    assert_eq!(out.stop_reason, Some(StopReason::MaxTokens));
    assert_eq!(h.calls(), 0, "the cut call must not run");
    let r = &h.results_in(2)[0];
    assert!(
        r.is_error && r.text().contains("max_tokens"),
        "{}",
        r.text()
    );
    assert_eq!(h.outcomes()[0].1, ToolOutcome::NotRun);
}

#[tokio::test]
async fn pause_turn_is_continued_by_resending_the_assistant_content() {
    let mut h = harness(vec![
        Step::reply(
            vec![ContentBlock::text("searching…")],
            StopReason::PauseTurn,
        ),
        Step::text("found it"),
    ])
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.text, "found it");
    let bodies = h.bodies();
    let msgs = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2, "no extra user message");
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[1]["content"][0]["text"], "searching…");
}

#[tokio::test]
async fn refusal_and_stop_sequence_end_the_run() {
    let mut h = harness(vec![Step::reply(
        vec![ContentBlock::text("no")],
        StopReason::Refusal,
    )])
    .await;
    assert_eq!(h.run("x").await.status, RunStatus::Refusal);
    let mut h = harness(vec![Step::reply(
        vec![ContentBlock::text("a")],
        StopReason::StopSequence,
    )])
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.stop_reason, Some(StopReason::StopSequence));
}

#[tokio::test]
async fn max_turns_stops_the_loop() {
    let mut h = harness_with(
        vec![
            Step::tool_use("t1", "Echo", json!({"text": "1"})),
            Step::tool_use("t2", "Echo", json!({"text": "2"})),
            Step::text("unreached"),
        ],
        Setup {
            config: AgentConfig {
                max_turns: Some(2),
                ..AgentConfig::default()
            },
            ..Setup::default()
        },
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::MaxTurns);
    assert_eq!(out.turns, 2);
    assert_eq!(h.mock.requests().len(), 2);
    // The conversation is left valid: the last call is answered.
    assert_eq!(h.agent.messages().last().unwrap().role, Role::User);
}

#[tokio::test]
async fn system_prompt_tool_choice_and_usage() {
    let mut h = harness_with(
        vec![
            Step::tool_use("t1", "Echo", json!({"text": "1"})).with_usage(Usage {
                input_tokens: 10,
                output_tokens: 5,
                cache_creation_input_tokens: 100,
                cache_read_input_tokens: 0,
            }),
            Step::text("ok").with_usage(Usage {
                input_tokens: 3,
                output_tokens: 7,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 100,
            }),
        ],
        Setup {
            config: AgentConfig {
                system: Some("be brief".into()),
                tool_choice: Some(ToolChoice::Any {
                    disable_parallel_tool_use: Some(true),
                }),
                max_tokens: 1234,
                ..AgentConfig::default()
            },
            ..Setup::default()
        },
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(
        out.usage,
        Usage {
            input_tokens: 13,
            output_tokens: 12,
            cache_creation_input_tokens: 100,
            cache_read_input_tokens: 100
        }
    );
    assert_eq!(h.agent.session_usage(), &out.usage);
    let body = &h.bodies()[0];
    // Sent as one text block so it can carry the prompt-cache breakpoint.
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(body["max_tokens"], 1234);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
    let turn_usage: Vec<u64> = h
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            tack_protocol::SessionEvent::TurnEnd { usage, .. } => Some(usage.output_tokens),
            _ => None,
        })
        .collect();
    assert_eq!(turn_usage, [5, 7]);
}

#[tokio::test]
async fn tool_choice_none_and_named_tool_are_sent() {
    for (choice, wire) in [
        (ToolChoice::None, json!({"type": "none"})),
        (
            ToolChoice::Tool {
                name: "Echo".into(),
                disable_parallel_tool_use: None,
            },
            json!({"type": "tool", "name": "Echo"}),
        ),
        (
            ToolChoice::Auto {
                disable_parallel_tool_use: None,
            },
            json!({"type": "auto"}),
        ),
    ] {
        let mut h = harness_with(
            vec![Step::text("ok")],
            Setup {
                config: AgentConfig {
                    tool_choice: Some(choice),
                    ..AgentConfig::default()
                },
                ..Setup::default()
            },
        )
        .await;
        h.run("x").await;
        assert_eq!(h.bodies()[0]["tool_choice"], wire);
    }
}

pub fn tool_use_block(id: &str, name: &str, input: serde_json::Value) -> ContentBlock {
    ContentBlock::ToolUse(tack_protocol::ToolUseBlock {
        id: id.into(),
        name: name.into(),
        input,
        extra: Default::default(),
    })
}
