//! The prompt cache over HTTP: usage of successive requests, the API's 400s
//! for misplaced breakpoints, and the raw bodies the mock keeps.

use serde_json::{Value, json};
use tack_protocol::Usage;
use tack_testkit::{MockServer, Step};

use crate::support::{anthropic, anthropic_request, messages_body, parse_sse, stream_text};

fn marked(mut block: Value) -> Value {
    block["cache_control"] = json!({"type": "ephemeral"});
    block
}

/// A conversation behind one big marked tool, the last block marked.
fn conversation(turns: usize) -> Value {
    let mut messages = vec![json!({"role": "user", "content": [{"type": "text", "text": "go"}]})];
    for t in 0..turns {
        messages.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("toolu_{t}"), "name": "Read", "input": {"path": "a"}}]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("toolu_{t}"), "content": "x".repeat(400)}]}));
    }
    let last = messages.len() - 1;
    let block = messages[last]["content"][0].clone();
    messages[last]["content"][0] = marked(block);
    let mut body = messages_body(Value::Array(messages));
    body["tools"] = json!([marked(json!({
        "name": "Read", "description": "d".repeat(6000), "input_schema": {"type": "object"}}))]);
    body
}

#[tokio::test]
async fn usage_follows_the_cache_from_request_to_request() {
    let server = MockServer::start().await;
    server.push_all([Step::text("one"), Step::text("two")]);

    let first = anthropic(&server, conversation(1)).await;
    let second = anthropic(&server, conversation(2)).await;

    assert_eq!(first.status, 200, "{:?}", first.body);
    let u1 = &first.body["usage"];
    assert_eq!(u1["cache_read_input_tokens"], 0);
    assert!(u1["cache_creation_input_tokens"].as_u64().unwrap() > 1500);
    assert_eq!(u1["input_tokens"], 0, "nothing after the last breakpoint");
    let u2 = &second.body["usage"];
    assert_eq!(
        u2["cache_read_input_tokens"],
        u1["cache_creation_input_tokens"]
    );
    assert!(u2["cache_creation_input_tokens"].as_u64().unwrap() > 100);
    assert_eq!(
        u2["cache_creation"]["ephemeral_5m_input_tokens"],
        u2["cache_creation_input_tokens"]
    );
    let recorded = server.requests();
    assert_eq!(
        recorded[1].cache.unwrap().cache_read_input_tokens,
        u2["cache_read_input_tokens"].as_u64().unwrap()
    );
}

#[tokio::test]
async fn a_streamed_reply_carries_the_cache_counts_in_message_start() {
    let server = MockServer::start().await;
    server.push_all([Step::text("one"), Step::text("two")]);
    let mut body = conversation(1);
    body["stream"] = json!(true);
    anthropic(&server, body.clone()).await;

    let (status, sse) = stream_text(anthropic_request(&server, &body)).await;

    assert_eq!(status, 200);
    let events = parse_sse(&sse);
    let start = events
        .iter()
        .find(|e| e.name.as_deref() == Some("message_start"))
        .unwrap()
        .json();
    let usage = &start["message"]["usage"];
    assert!(usage["cache_read_input_tokens"].as_u64().unwrap() > 1500);
    assert_eq!(usage["cache_creation_input_tokens"], 0);
}

#[tokio::test]
async fn scripted_usage_wins_but_the_cache_is_still_written() {
    let server = MockServer::start().await;
    let scripted = Usage {
        input_tokens: 7,
        output_tokens: 3,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
    };
    server.push_all([Step::text("one").with_usage(scripted), Step::text("two")]);

    let first = anthropic(&server, conversation(1)).await;
    let second = anthropic(&server, conversation(1)).await;

    assert_eq!(first.body["usage"]["input_tokens"], 7);
    assert!(
        second.body["usage"]["cache_read_input_tokens"]
            .as_u64()
            .unwrap()
            > 1500
    );
}

#[tokio::test]
async fn the_minimum_is_configurable_and_shorter_prefixes_are_not_cached() {
    let server = MockServer::start().await;
    server.set_cache_min_tokens(100_000);
    server.push_all([Step::text("one"), Step::text("two")]);
    anthropic(&server, conversation(1)).await;
    let second = anthropic(&server, conversation(1)).await;
    let u = &second.body["usage"];
    assert_eq!(u["cache_read_input_tokens"], 0);
    assert_eq!(u["cache_creation_input_tokens"], 0);
    assert!(u["input_tokens"].as_u64().unwrap() > 1500);
}

#[tokio::test]
async fn a_fifth_breakpoint_is_refused_like_the_api_and_consumes_no_step() {
    let server = MockServer::start().await;
    server.push(Step::text("never"));
    let mut body = conversation(2);
    for i in [0, 2, 3] {
        let block = body["messages"][i]["content"][0].clone();
        body["messages"][i]["content"][0] = marked(block);
    }

    let answer = anthropic(&server, body).await;

    assert_eq!(answer.status, 400);
    assert_eq!(answer.error_type(), "invalid_request_error");
    assert_eq!(
        answer.error_message(),
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    );
    assert_eq!(server.remaining(), 1);
}

#[tokio::test]
async fn a_breakpoint_on_an_empty_text_block_is_refused() {
    let server = MockServer::start().await;
    let mut body = conversation(0);
    body["system"] = json!([marked(json!({"type": "text", "text": ""}))]);
    let answer = anthropic(&server, body).await;
    assert_eq!(answer.status, 400);
    assert_eq!(
        answer.error_message(),
        "system.0.text: cache_control cannot be set for empty text blocks"
    );
}

#[tokio::test]
async fn the_raw_body_is_kept_byte_for_byte() {
    let server = MockServer::start().await;
    server.push(Step::text("ok"));
    let raw = r#"{"model":"claude-test", "max_tokens":5,"tools":[{"name":"B","input_schema":{"type":"object"}, "description":"x"}],
        "messages":[{"role":"user","content":"hi"}]}"#;
    reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "k")
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(raw)
        .send()
        .await
        .unwrap();

    let recorded = &server.requests()[0];
    assert_eq!(recorded.raw_body, raw);
    assert_eq!(
        recorded.raw_field("tools").unwrap(),
        r#"[{"name":"B","input_schema":{"type":"object"}, "description":"x"}]"#
    );
    assert_eq!(recorded.raw_field("model").unwrap(), r#""claude-test""#);
    assert_eq!(recorded.raw_field("system"), None);
    assert_eq!(recorded.raw_field("name"), None, "only top-level members");
}

/// Issue 12, item 6: a context window. Under it, the request is served; over
/// it, the API's own 400 for each API, recorded as a rejection, no step used.
#[tokio::test]
async fn a_prompt_over_the_context_window_gets_the_apis_400() {
    use crate::support::{chat_body, openai};
    let server = MockServer::start().await;
    server.push_all([Step::text("fits"), Step::text("fits too")]);
    let big = "x".repeat(4000);
    let small = json!([{"role": "user", "content": "hi"}]);
    let large = json!([{"role": "user", "content": big}]);
    server.set_context_window(Some(500));

    let ok = anthropic(&server, messages_body(small.clone())).await;
    assert_eq!(ok.status, 200);
    let refused = anthropic(&server, messages_body(large.clone())).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.error_type(), "invalid_request_error");
    let message = refused.error_message().to_owned();
    assert!(
        message.starts_with("prompt is too long: ") && message.ends_with(" tokens > 500 maximum"),
        "{message}"
    );
    let tokens: u64 = message["prompt is too long: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(tokens > 1000, "{message}");

    let refused = openai(&server, chat_body(large)).await;
    assert_eq!(refused.status, 400);
    assert!(
        refused
            .error_message()
            .starts_with("This model's maximum context length is 500 tokens."),
        "{}",
        refused.error_message()
    );
    assert_eq!(refused.body["error"]["code"], "context_length_exceeded");
    assert_eq!(refused.body["error"]["param"], "messages");

    assert_eq!(server.rejections().len(), 2);
    assert_eq!(server.remaining(), 1, "a refused request consumes no step");
    server.set_context_window(None);
    assert_eq!(openai(&server, chat_body(small)).await.status, 200);
}

#[tokio::test]
async fn count_tokens_answers_the_window_estimate_and_refuses_what_the_api_refuses() {
    use crate::support::answer;
    let server = MockServer::start().await;
    server.set_context_window(Some(500));
    let count = |body: Value| {
        reqwest::Client::new()
            .post(format!("{}/v1/messages/count_tokens", server.url()))
            .header("x-api-key", "test-key")
            .header("anthropic-version", "2023-06-01")
            .json(&body)
    };
    let big = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(4000)}]});
    let counted = answer(count(big.clone())).await;
    assert_eq!(counted.status, 200, "{:?}", counted.body);
    let tokens = counted.body["input_tokens"].as_u64().unwrap();
    assert!(tokens > 1000, "over the window is counted, not refused");
    // The same prompt sent is refused with that number.
    let mut sent = big.clone();
    sent["max_tokens"] = json!(10);
    let refused = anthropic(&server, sent.clone()).await;
    assert!(
        refused
            .error_message()
            .contains(&format!("{tokens} tokens"))
    );
    let with_max = answer(count(sent)).await;
    assert_eq!(with_max.status, 400);
    assert!(with_max.error_message().contains("max_tokens"));
    let bad = answer(count(
        json!({"model": "m", "messages": [{"role": "assistant", "content": "x"}]}),
    ))
    .await;
    assert_eq!(bad.status, 400);
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn context_management_needs_its_beta_header() {
    let server = MockServer::start().await;
    server.push(Step::text("ok"));
    let mut body = messages_body(json!([{"role": "user", "content": "hi"}]));
    body["context_management"] =
        json!({"edits": [{"type": "clear_tool_uses_20250919"}, {"type": "compact_20260112"}]});
    let refused = anthropic(&server, body.clone()).await;
    assert_eq!(refused.status, 400);
    assert!(
        refused
            .error_message()
            .contains("context-management-2025-06-27")
    );
    let half = crate::support::answer(
        anthropic_request(&server, &body).header("anthropic-beta", "context-management-2025-06-27"),
    )
    .await;
    assert!(
        half.error_message().contains("compact-2026-01-12"),
        "{:?}",
        half.body
    );
    let ok = crate::support::answer(anthropic_request(&server, &body).header(
        "anthropic-beta",
        "context-management-2025-06-27,compact-2026-01-12",
    ))
    .await;
    assert_eq!(ok.status, 200, "{:?}", ok.body);
}
