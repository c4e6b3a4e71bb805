//! The Anthropic client against the mock Messages API.

use std::time::{Duration, Instant};

use serde_json::json;
use tack_model::{AnthropicClient, ModelClient, ModelError, RetryPolicy};
use tack_protocol::{ContentBlock, Message, StopReason, ToolResultBlock};
use tack_testkit::{MockServer, Step};

use super::support::{Events, anthropic, anthropic_config, ask, request};

#[tokio::test]
async fn streams_text_then_tool_use() {
    let server = MockServer::start().await;
    server.push(Step::reply(
        vec![
            ContentBlock::text("Let me read the manifest for you."),
            serde_json::from_value(json!({"type":"tool_use","id":"toolu_1","name":"Read","input":{"path":"Cargo.toml"}})).unwrap(),
        ],
        StopReason::ToolUse,
    ));
    let events = Events::default();

    let turn = anthropic(&server, true)
        .complete(&ask("read Cargo.toml"), &events.sink())
        .await
        .unwrap();

    let r = &turn.response;
    assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
    assert_eq!(r.model, "claude-test");
    assert_eq!(
        serde_json::to_value(&r.content).unwrap(),
        json!([
            {"type":"text","text":"Let me read the manifest for you."},
            {"type":"tool_use","id":"toolu_1","name":"Read","input":{"path":"Cargo.toml"}}
        ])
    );
    // The mock estimates the input it was sent; one short message is below
    // the minimum cacheable prefix, so all of it is uncached input.
    assert_eq!(
        r.usage.input_tokens,
        server.requests()[0].cache.unwrap().input_tokens
    );
    assert!(r.usage.input_tokens > 0);
    assert_eq!(
        r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens,
        0
    );
    assert_eq!(r.usage.output_tokens, 5);
    // Text arrived in pieces, as deltas.
    let deltas = events.all().len();
    assert!(deltas >= 2, "{deltas} deltas");
    assert_eq!(events.text(), "Let me read the manifest for you.");

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    let req = &sent[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(req.header("authorization"), None);
    assert!(
        req.header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert_eq!(req.body["stream"], true);
    assert_eq!(req.body["model"], "claude-test");
    assert_eq!(req.body["tools"][0]["name"], "Read");
}

#[tokio::test]
async fn non_streaming_reads_the_json_message() {
    let server = MockServer::start().await;
    server.push(Step::text("Hello."));
    let events = Events::default();

    let turn = anthropic(&server, false)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert_eq!(turn.response.content, vec![ContentBlock::text("Hello.")]);
    assert_eq!(turn.response.stop_reason, Some(StopReason::EndTurn));
    assert!(turn.response.id.starts_with("msg_"));
    assert!(events.all().is_empty());
    assert_eq!(server.requests()[0].body.get("stream"), None);
}

#[tokio::test]
async fn a_tool_round_trip_passes_the_strict_mock() {
    let server = MockServer::start().await;
    server.push_all([
        Step::tool_uses([
            ("toolu_a", "Read", json!({"path":"a"})),
            ("toolu_b", "Read", json!({"path":"b"})),
        ]),
        Step::text("Both read."),
    ]);
    let client = anthropic(&server, true);
    let sink = |_| {};
    let mut req = ask("read a and b");
    let first = client.complete(&req, &sink).await.unwrap();
    req.messages.push(first.response.to_message());
    req.messages.push(Message::user(vec![
        ContentBlock::ToolResult(ToolResultBlock::new(
            "toolu_a",
            vec![ContentBlock::text("A")],
            false,
        )),
        ContentBlock::ToolResult(ToolResultBlock::error("toolu_b", "no such file")),
    ]));

    let second = client.complete(&req, &sink).await.unwrap();

    assert_eq!(
        second.response.content,
        vec![ContentBlock::text("Both read.")]
    );
    assert!(server.rejections().is_empty(), "{:?}", server.rejections());
    assert_eq!(
        server.requests()[1].body["messages"][2]["content"][1]["is_error"],
        true
    );
}

#[tokio::test]
async fn bearer_token_is_sent_instead_of_a_key() {
    let server = MockServer::start().await;
    server.push(Step::text("ok"));
    let mut config = anthropic_config(&server, true);
    config.api_key = None;
    config.auth_token = Some("tok-123".into());

    AnthropicClient::new(config)
        .unwrap()
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap();

    let req = &server.requests()[0];
    assert_eq!(req.header("authorization"), Some("Bearer tok-123"));
    assert_eq!(req.header("x-api-key"), None);
}

#[tokio::test]
async fn malformed_streamed_tool_input_is_reported() {
    let server = MockServer::start().await;
    server.push(
        Step::tool_use("toolu_1", "Read", json!({"path":"x"}))
            .raw_tool_arguments("toolu_1", "{\"path\": \"x"),
    );

    let turn = anthropic(&server, true)
        .complete(&ask("read"), &|_| {})
        .await
        .unwrap();

    assert!(matches!(&turn.response.content[0], ContentBlock::ToolUse(t) if t.input == json!({})));
    assert_eq!(turn.malformed_inputs.len(), 1);
    assert_eq!(turn.malformed_inputs[0].tool_use_id, "toolu_1");
    assert_eq!(turn.malformed_inputs[0].raw, "{\"path\": \"x");
}

#[tokio::test]
async fn rate_limit_waits_for_retry_after() {
    let server = MockServer::start().await;
    server.push_all([
        Step::error(429).header("retry-after", "1"),
        Step::text("after the wait"),
    ]);
    let events = Events::default();
    let started = Instant::now();

    let turn = anthropic(&server, true)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        turn.response.content,
        vec![ContentBlock::text("after the wait")]
    );
    let retries = events.retries();
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].0, 1);
    assert_eq!(retries[0].1, Duration::from_secs(1));
    assert!(retries[0].2.contains("429"), "{}", retries[0].2);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn overloaded_twice_then_success() {
    let server = MockServer::start().await;
    server.push_all([Step::error(529), Step::error(529), Step::text("finally")]);
    let events = Events::default();

    let turn = anthropic(&server, false)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert_eq!(turn.response.content, vec![ContentBlock::text("finally")]);
    let statuses: Vec<u16> = server.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![529, 529, 200]);
    let attempts: Vec<u32> = events.retries().iter().map(|r| r.0).collect();
    assert_eq!(attempts, vec![1, 2]);
    assert!(events.retries()[0].2.contains("overloaded_error"));
}

#[tokio::test]
async fn a_cut_stream_is_retried_as_a_whole() {
    let server = MockServer::start().await;
    let full = "The quick brown fox jumps over the lazy dog.";
    server.push_all([Step::text(full).cut_after(4), Step::text(full)]);
    let events = Events::default();

    let turn = anthropic(&server, true)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    let all = events.all();
    let retry_at = all
        .iter()
        .position(|e| matches!(e, tack_model::StreamEvent::Retry { .. }))
        .expect("a Retry event");
    assert!(
        retry_at > 0,
        "deltas of the cut attempt came before the retry: {all:?}"
    );
    assert_eq!(events.text_after_last_retry(), full);
    assert_eq!(turn.response.content, vec![ContentBlock::text(full)]);
    assert_eq!(turn.response.stop_reason, Some(StopReason::EndTurn));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn an_overloaded_error_event_mid_stream_is_retried() {
    let server = MockServer::start().await;
    server.push_all([
        Step::text("partial answer").stream_error_after(3, "overloaded_error"),
        Step::text("whole answer"),
    ]);
    let events = Events::default();

    let turn = anthropic(&server, true)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert_eq!(
        turn.response.content,
        vec![ContentBlock::text("whole answer")]
    );
    assert_eq!(events.retries().len(), 1);
    assert!(events.retries()[0].2.contains("Overloaded"));
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_says_how_to_set_the_key() {
    let server = MockServer::start().await;
    server.push(Step::text("never served"));
    let mut config = anthropic_config(&server, true);
    config.api_key = None;

    let err = AnthropicClient::new(config)
        .unwrap()
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap_err();

    assert!(
        matches!(err, ModelError::Api { status: 401, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("x-api-key header is required"), "{text}");
    assert!(
        text.contains("ANTHROPIC_API_KEY") && text.contains("--base-url"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn should_retry_false_is_honoured() {
    let server = MockServer::start().await;
    server.push_all([
        Step::error(529).header("x-should-retry", "false"),
        Step::text("unused"),
    ]);

    let err = anthropic(&server, true)
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap_err();

    assert!(matches!(
        err,
        ModelError::Api {
            status: 529,
            should_retry: Some(false),
            ..
        }
    ));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.remaining(), 1);
}

#[tokio::test]
async fn should_retry_true_retries_even_a_400() {
    let server = MockServer::start().await;
    server.push_all([
        Step::error(400).header("x-should-retry", "true"),
        Step::text("ok"),
    ]);

    let turn = anthropic(&server, true)
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap();

    assert_eq!(turn.response.content, vec![ContentBlock::text("ok")]);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_validation_error_is_a_clear_400_and_not_retried() {
    let server = MockServer::start().await;
    server.push(Step::text("unused"));
    // An assistant tool_use that the next user message does not answer.
    let req = request(vec![
        Message::user_text("read it"),
        Message::assistant(vec![
            serde_json::from_value(
                json!({"type":"tool_use","id":"toolu_9","name":"Read","input":{"path":"a"}}),
            )
            .unwrap(),
        ]),
        Message::user_text("well?"),
    ]);

    let err = anthropic(&server, true)
        .complete(&req, &|_| {})
        .await
        .unwrap_err();

    assert!(
        matches!(err, ModelError::Api { status: 400, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("invalid_request_error"), "{text}");
    assert!(
        text.contains("`tool_use` ids were found without `tool_result` blocks")
            && text.contains("toolu_9"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn not_found_names_the_model_and_base_url() {
    let server = MockServer::start().await;
    server.push(Step::error(404).with_message("model: claude-test"));

    let err = anthropic(&server, true)
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap_err();

    let text = err.to_string();
    assert!(
        text.contains("\"claude-test\"") && text.contains(&server.url()),
        "{text}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retries_stop_at_the_policy_limit() {
    let server = MockServer::start().await;
    server.push_all((0..5).map(|_| Step::error(503)));
    let mut config = anthropic_config(&server, true);
    config.retry = RetryPolicy::fast(2);

    let err = AnthropicClient::new(config)
        .unwrap()
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap_err();

    assert!(
        matches!(err, ModelError::Api { status: 503, .. }),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let events = Events::default();
    let client = AnthropicClient::new(tack_model::AnthropicConfig {
        base_url: format!("http://127.0.0.1:{port}"),
        api_key: Some("k".into()),
        auth_token: None,
        model: "claude-test".into(),
        retry: RetryPolicy::fast(2),
        stream: true,
        timeout: Duration::from_secs(5),
        prompt_cache: true,
    })
    .unwrap();

    let err = client
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap_err();

    assert!(matches!(err, ModelError::Connection { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains(&format!("127.0.0.1:{port}/v1/messages")),
        "{err}"
    );
    assert_eq!(events.retries().len(), 2);
}

#[tokio::test]
async fn input_examples_are_sent_as_given_and_a_bad_one_is_the_apis_400() {
    let server = MockServer::start().await;
    server.push_all([Step::text("fine"), Step::text("unused")]);
    let client = anthropic(&server, true);
    let mut req = ask("read it");
    let examples = json!([{"path": "/src/main.rs"}]);
    req.tools[0]
        .extra
        .insert("input_examples".into(), examples.clone());

    client.complete(&req, &|_| {}).await.unwrap();
    assert_eq!(
        server.requests()[0].body["tools"][0]["input_examples"],
        examples
    );

    // The strict mock checks them against the schema, as the API does: the
    // 400 is not retried and says which tool and example.
    req.tools[0]
        .extra
        .insert("input_examples".into(), json!([{"path": 7}]));
    let err = client.complete(&req, &|_| {}).await.unwrap_err();
    assert!(
        matches!(err, ModelError::Api { status: 400, .. }),
        "{err:?}"
    );
    assert!(!err.is_retryable());
    let text = err.to_string();
    assert!(
        text.contains("tools.0.input_examples.0: input example 0 of tool 'Read'"),
        "{text}"
    );
    assert_eq!(server.remaining(), 1);
}
