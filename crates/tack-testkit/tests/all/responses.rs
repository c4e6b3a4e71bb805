//! The Responses API (`POST /v1/responses`, what Codex CLI speaks): streamed
//! and whole replies, namespaced function calls, and the stateless request's
//! rule that every function call has its output.

use serde_json::{Value, json};
use tack_testkit::{Expect, MockServer, Step};

use crate::support::{answer, parse_sse, stream_text};

fn request(server: &MockServer, body: &Value) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("{}/v1/responses", server.url()))
        .bearer_auth("sk-test")
        .json(body)
}

fn namespaced_tools() -> Value {
    json!([
        {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
        {"type": "namespace", "name": "mcp__tack", "description": "tack", "tools": [
            {"type": "function", "name": "Bash", "parameters": {"type": "object"}}
        ]}
    ])
}

#[tokio::test]
async fn a_streamed_call_of_a_namespaced_tool_names_its_namespace() {
    let server = MockServer::start().await;
    server.push(Step::tool_use(
        "call_1",
        "mcp__tack__Bash",
        json!({"command": "ls"}),
    ));
    let body = json!({
        "model": "gpt-test", "stream": true, "store": false,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "tools": namespaced_tools(),
    });
    let (status, text) = stream_text(request(&server, &body)).await;
    assert_eq!(status, 200, "{text}");
    let events = parse_sse(&text);
    let names: Vec<&str> = events.iter().filter_map(|e| e.name.as_deref()).collect();
    assert_eq!(names.first(), Some(&"response.created"));
    assert_eq!(names.last(), Some(&"response.completed"));
    let seq: Vec<u64> = events
        .iter()
        .map(|e| e.json()["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(seq, (0..seq.len() as u64).collect::<Vec<_>>());
    let done = events
        .iter()
        .find(|e| e.name.as_deref() == Some("response.output_item.done"))
        .unwrap()
        .json();
    let item = &done["item"];
    assert_eq!(item["type"], "function_call");
    assert_eq!(item["call_id"], "call_1");
    assert_eq!(item["name"], "Bash");
    assert_eq!(item["namespace"], "mcp__tack");
    let args: String = events
        .iter()
        .filter(|e| e.name.as_deref() == Some("response.function_call_arguments.delta"))
        .map(|e| e.json()["delta"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&args).unwrap(),
        json!({"command": "ls"})
    );
}

#[tokio::test]
async fn a_whole_reply_carries_the_text_and_the_usage() {
    let server = MockServer::start().await;
    server.push(Step::text("hello there").expect(Expect {
        last_user_contains: Some("ran fine".into()),
        tool_results_for: vec!["call_1".into()],
        ..Expect::default()
    }));
    let body = json!({
        "model": "gpt-test",
        "input": [
            {"type": "message", "role": "user", "content": "go"},
            {"type": "function_call", "call_id": "call_1", "name": "Bash", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": [{"type": "input_text", "text": "ran fine"}]},
        ],
    });
    let a = answer(request(&server, &body)).await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["object"], "response");
    assert_eq!(a.body["status"], "completed");
    assert_eq!(a.body["output"][0]["content"][0]["text"], "hello there");
    assert!(a.body["usage"]["input_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn a_function_call_without_its_output_is_refused() {
    let server = MockServer::start().await;
    server.push(Step::text("never"));
    let body = json!({
        "model": "gpt-test",
        "input": [
            {"type": "message", "role": "user", "content": "go"},
            {"type": "function_call", "call_id": "call_9", "name": "Bash", "arguments": "{}"},
        ],
    });
    let a = answer(request(&server, &body)).await;
    assert_eq!(a.status, 400);
    assert_eq!(
        a.error_message(),
        "No tool output found for function call call_9."
    );
    let orphan = json!({
        "model": "gpt-test",
        "input": [{"type": "function_call_output", "call_id": "call_3", "output": "x"}],
    });
    let a = answer(request(&server, &orphan)).await;
    assert_eq!(a.status, 400);
    assert!(a.error_message().contains("call_3"), "{}", a.body);
    assert_eq!(server.remaining(), 1, "refused requests consume no step");
    let keyless = reqwest::Client::new()
        .post(format!("{}/v1/responses", server.url()))
        .json(&orphan);
    assert_eq!(answer(keyless).await.status, 401);
}

#[tokio::test]
async fn system_messages_mid_conversation_need_their_beta() {
    let server = MockServer::start().await;
    server.push(Step::text("ok"));
    let body = json!({"model": "claude-test", "max_tokens": 64, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "a reminder"},
    ]});
    let a = answer(crate::support::anthropic_request(&server, &body)).await;
    assert_eq!(a.status, 400);
    assert!(
        a.error_message().contains("Unexpected role \"system\""),
        "{}",
        a.body
    );
    let a = answer(crate::support::anthropic_request(&server, &body).header(
        "anthropic-beta",
        tack_testkit::validate::MID_CONVERSATION_SYSTEM_BETA,
    ))
    .await;
    assert_eq!(a.status, 200, "{}", a.body);
}
