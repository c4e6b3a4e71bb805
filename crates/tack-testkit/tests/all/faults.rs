//! Injected failures: HTTP errors with headers, delays, cut connections,
//! errors inside a stream, and the fallbacks once the script runs out.

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use tack_testkit::{Fallback, MockServer, Step, error_type_for_status};

use crate::support::{
    anthropic, anthropic_request, chat_body, messages_body, openai, openai_request, parse_sse,
    stream_text,
};

fn hello() -> Value {
    messages_body(json!([{"role": "user", "content": "hello"}]))
}

fn chat_hello() -> Value {
    chat_body(json!([{"role": "user", "content": "hello"}]))
}

fn streamed(mut body: Value) -> Value {
    body["stream"] = json!(true);
    body
}

/// Read a response body chunk by chunk until it ends or fails; returns what
/// arrived and whether it failed.
async fn read_until_end_or_error(response: reqwest::Response) -> (String, bool) {
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(bytes) => text.push_str(std::str::from_utf8(&bytes).unwrap()),
            Err(_) => return (text, true),
        }
    }
    (text, false)
}

#[test]
fn error_types_follow_the_status() {
    let cases = [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (408, "timeout_error"),
        (409, "invalid_request_error"),
        (413, "request_too_large"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (503, "api_error"),
        (529, "overloaded_error"),
    ];
    for (status, kind) in cases {
        assert_eq!(error_type_for_status(status), kind, "{status}");
    }
}

#[tokio::test]
async fn anthropic_error_step_with_retry_headers() {
    let server = MockServer::start().await;
    server.push_all([
        Step::error(429)
            .header("retry-after", "2")
            .header("x-should-retry", "true"),
        Step::error(529)
            .header("Retry-After-Ms", "150")
            .with_message("Overloaded right now"),
        Step::text("recovered"),
    ]);

    let first = anthropic(&server, hello()).await;
    let second = anthropic(&server, streamed(hello())).await;
    let third = anthropic(&server, hello()).await;

    assert_eq!(first.status, 429);
    assert_eq!(first.body["type"], "error");
    assert_eq!(first.error_type(), "rate_limit_error");
    assert!(!first.error_message().is_empty());
    assert_eq!(first.body["request_id"], "req_mock_1");
    assert_eq!(first.header("retry-after"), Some("2"));
    assert_eq!(first.header("x-should-retry"), Some("true"));
    // An error step answers a streamed request with a plain JSON error too.
    assert_eq!(second.status, 529);
    assert_eq!(second.error_type(), "overloaded_error");
    assert_eq!(second.error_message(), "Overloaded right now");
    assert_eq!(second.header("retry-after-ms"), Some("150"));
    assert_eq!(third.status, 200);
    assert_eq!(
        server.rejections().len(),
        0,
        "scripted errors are not rejections"
    );
    let statuses: Vec<u16> = server.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![429, 529, 200]);
}

#[tokio::test]
async fn openai_error_step_has_the_openai_shape() {
    let server = MockServer::start().await;
    server.push(Step::error(500).header("retry-after", "1"));

    let answer = openai(&server, chat_hello()).await;

    assert_eq!(answer.status, 500);
    assert_eq!(answer.error_type(), "api_error");
    let error = answer.body["error"].as_object().unwrap();
    for key in ["message", "type", "param", "code"] {
        assert!(error.contains_key(key), "{key} in {error:?}");
    }
    assert!(answer.body.get("type").is_none());
    assert_eq!(answer.header("retry-after"), Some("1"));
}

#[tokio::test]
async fn delayed_step_waits_before_answering() {
    let server = MockServer::start().await;
    server.push(Step::text("slow").with_delay(Duration::from_millis(300)));

    let started = Instant::now();
    let answer = anthropic(&server, hello()).await;

    assert_eq!(answer.status, 200);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn anthropic_cut_after_drops_the_stream() {
    let server = MockServer::start().await;
    server.push_all([
        Step::text("a long enough answer").cut_after(3),
        Step::text("after"),
    ]);

    let response = anthropic_request(&server, &streamed(hello()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let (text, failed) = read_until_end_or_error(response).await;

    assert!(failed, "the client sees a broken body");
    let events = parse_sse(&text);
    assert_eq!(events.len(), 3, "{text}");
    assert_eq!(events[0].name.as_deref(), Some("message_start"));
    assert!(!text.contains("message_stop"));
    // The server goes on serving.
    assert_eq!(
        anthropic(&server, hello()).await.body["content"][0]["text"],
        "after"
    );
}

#[tokio::test]
async fn cut_after_past_the_end_still_withholds_the_terminator() {
    let server = MockServer::start().await;
    server.push_all([
        Step::text("short").cut_after(1000),
        Step::text("x").cut_after(1000),
    ]);

    let a = anthropic_request(&server, &streamed(hello()))
        .send()
        .await
        .unwrap();
    let (a_text, a_failed) = read_until_end_or_error(a).await;
    let b = openai_request(&server, &streamed(chat_hello()))
        .send()
        .await
        .unwrap();
    let (b_text, b_failed) = read_until_end_or_error(b).await;

    assert!(a_failed && b_failed);
    assert!(a_text.contains("message_delta") && !a_text.contains("message_stop"));
    assert!(b_text.contains("finish_reason\":\"stop") && !b_text.contains("[DONE]"));
}

#[tokio::test]
async fn openai_cut_after_drops_the_stream() {
    let server = MockServer::start().await;
    server.push(Step::tool_use("call_1", "Read", json!({"path": "a/b/c"})).cut_after(2));

    let response = openai_request(&server, &streamed(chat_hello()))
        .send()
        .await
        .unwrap();
    let (text, failed) = read_until_end_or_error(response).await;

    assert!(failed);
    assert_eq!(parse_sse(&text).len(), 2, "{text}");
    assert!(!text.contains("[DONE]"));
}

#[tokio::test]
async fn cut_without_stream_closes_without_a_response() {
    let server = MockServer::start().await;
    server.push_all([
        Step::text("never seen").cut_after(0),
        Step::error(429).cut_after(0),
        Step::text("ok"),
    ]);

    let plain = anthropic_request(&server, &hello()).send().await;
    let error_step = openai_request(&server, &streamed(chat_hello()))
        .send()
        .await;

    let err = plain.expect_err("no response at all");
    assert!(!err.is_status(), "{err:?}");
    assert!(
        error_step.is_err(),
        "an error step that is cut sends nothing either"
    );
    let recorded = server.requests();
    assert_eq!(recorded[0].status, 0);
    assert_eq!(recorded[1].status, 0);
    assert_eq!(server.remaining(), 1, "the cut steps were consumed");
    assert_eq!(anthropic(&server, hello()).await.status, 200);
}

#[tokio::test]
async fn anthropic_stream_error_after_events() {
    let server = MockServer::start().await;
    server.push(Step::text("partial answer here").stream_error_after(4, "overloaded_error"));

    let (status, text) = stream_text(anthropic_request(&server, &streamed(hello()))).await;

    assert_eq!(status, 200);
    let events = parse_sse(&text);
    assert_eq!(events.len(), 5, "{text}");
    let last = events.last().unwrap();
    assert_eq!(last.name.as_deref(), Some("error"));
    assert_eq!(
        last.json(),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
    assert!(!text.contains("message_stop"));
}

#[tokio::test]
async fn openai_stream_error_after_chunks() {
    let server = MockServer::start().await;
    server.push(Step::text("partial").stream_error_after(2, "api_error"));

    let (status, text) = stream_text(openai_request(&server, &streamed(chat_hello()))).await;

    assert_eq!(status, 200);
    let events = parse_sse(&text);
    assert_eq!(events.len(), 3, "{text}");
    let error = events[2].json();
    assert_eq!(error["error"]["type"], "api_error");
    assert!(error["error"]["message"].is_string());
    assert!(!text.contains("[DONE]"));
}

#[tokio::test]
async fn exhausted_script_answers_500_naming_the_request() {
    let server = MockServer::start().await;
    server.push(Step::text("only one"));

    let first = anthropic(&server, hello()).await;
    let second = anthropic(&server, hello()).await;
    let third = openai(&server, chat_hello()).await;

    assert_eq!(first.status, 200);
    assert_eq!(second.status, 500);
    assert_eq!(second.error_type(), "api_error");
    assert_eq!(
        second.error_message(),
        "mock script exhausted: no scripted response left for request 2"
    );
    assert_eq!(third.status, 500);
    assert_eq!(
        third.error_message(),
        "mock script exhausted: no scripted response left for request 3"
    );
}

#[tokio::test]
async fn echo_fallback_repeats_the_user() {
    let server = MockServer::start().await;
    server.set_fallback(Fallback::Echo);

    let said = anthropic(&server, hello()).await;
    let results = anthropic(
        &server,
        messages_body(crate::support::answered_tool_conversation()),
    )
    .await;
    let chat = openai(&server, chat_hello()).await;
    let chat_results = openai(
        &server,
        chat_body(json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "x"}
        ])),
    )
    .await;
    let streamed_echo = stream_text(anthropic_request(&server, &streamed(hello())))
        .await
        .1;

    assert_eq!(
        said.body["content"],
        json!([{"type": "text", "text": "You said: hello"}])
    );
    assert_eq!(said.body["stop_reason"], "end_turn");
    assert_eq!(
        results.body["content"][0]["text"],
        "Tool results received: 2"
    );
    assert_eq!(
        chat.body["choices"][0]["message"]["content"],
        "You said: hello"
    );
    assert_eq!(
        chat_results.body["choices"][0]["message"]["content"],
        "Tool results received: 1"
    );
    let echoed: String = parse_sse(&streamed_echo)
        .iter()
        .filter(|e| e.name.as_deref() == Some("content_block_delta"))
        .map(|e| e.json()["delta"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(echoed, "You said: hello");
}
