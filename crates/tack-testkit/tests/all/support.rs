//! Small helpers so each test reads as setup, action, expectation.

use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tack_testkit::MockServer;

/// A decoded HTTP answer.
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    /// `error.message` of either API's error shape.
    pub fn error_message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or_default()
    }

    /// `error.type` of either API's error shape.
    pub fn error_type(&self) -> &str {
        self.body["error"]["type"].as_str().unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// An Anthropic request body with these messages.
pub fn messages_body(messages: Value) -> Value {
    json!({"model": "claude-test", "max_tokens": 256, "messages": messages})
}

/// An OpenAI request body with these messages.
pub fn chat_body(messages: Value) -> Value {
    json!({"model": "gpt-test", "messages": messages})
}

pub fn anthropic_request(server: &MockServer, body: &Value) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "test-key")
        .header("anthropic-version", "2023-06-01")
        .json(body)
}

pub fn openai_request(server: &MockServer, body: &Value) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("{}/v1/chat/completions", server.url()))
        .bearer_auth("sk-test")
        .json(body)
}

pub async fn answer(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.expect("body read");
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Answer {
        status,
        headers,
        body,
    }
}

/// POST to `/v1/messages` with valid auth headers.
pub async fn anthropic(server: &MockServer, body: Value) -> Answer {
    answer(anthropic_request(server, &body)).await
}

/// POST to `/v1/chat/completions` with a bearer key.
pub async fn openai(server: &MockServer, body: Value) -> Answer {
    answer(openai_request(server, &body)).await
}

/// Read a streamed answer: the status and the raw SSE text.
pub async fn stream_text(request: reqwest::RequestBuilder) -> (u16, String) {
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    (status, response.text().await.expect("complete stream"))
}

/// One server-sent event: its `event:` name (if any) and its parsed `data:`.
#[derive(Debug, Clone)]
pub struct Event {
    pub name: Option<String>,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).expect("event data is JSON")
    }
}

/// Parse an SSE text into events (blank-line separated, `event:`/`data:` fields).
pub fn parse_sse(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    for raw in text.split("\n\n") {
        if raw.trim().is_empty() {
            continue;
        }
        let mut name = None;
        let mut data = Vec::new();
        for line in raw.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                name = Some(v.trim().to_owned());
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push(v.trim_start().to_owned());
            } else {
                panic!("unexpected SSE line {line:?}");
            }
        }
        events.push(Event {
            name,
            data: data.join("\n"),
        });
    }
    assert!(
        text.ends_with("\n\n") || text.is_empty(),
        "stream ends mid-event: {text:?}"
    );
    events
}

/// A two-tool Anthropic conversation, answered correctly: a valid baseline.
pub fn answered_tool_conversation() -> Value {
    json!([
        {"role": "user", "content": "read two files"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Reading both."},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a"}},
            {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {"path": "b"}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "A"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "B"}], "is_error": true},
            {"type": "text", "text": "both done?"}
        ]}
    ])
}
