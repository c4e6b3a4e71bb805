//! Helpers so each test reads as setup, action, expectation.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;
use tack_model::{
    AnthropicClient, AnthropicConfig, OpenAiClient, OpenAiConfig, RetryPolicy, StreamEvent,
};
use tack_protocol::{Extra, Message, MessagesRequest, ToolDefinition};
use tack_testkit::MockServer;

/// Records every event the client reports.
#[derive(Default)]
pub struct Events(Mutex<Vec<StreamEvent>>);

impl Events {
    pub fn sink(&self) -> impl Fn(StreamEvent) + Send + Sync + '_ {
        |e| self.0.lock().unwrap().push(e)
    }

    pub fn all(&self) -> Vec<StreamEvent> {
        self.0.lock().unwrap().clone()
    }

    /// The text deltas concatenated.
    pub fn text(&self) -> String {
        self.all()
            .into_iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(t) => Some(t),
                StreamEvent::Retry { .. } => None,
            })
            .collect()
    }

    /// The text deltas reported after the last retry (the ones that count).
    pub fn text_after_last_retry(&self) -> String {
        let all = self.all();
        let start = all
            .iter()
            .rposition(|e| matches!(e, StreamEvent::Retry { .. }))
            .map_or(0, |i| i + 1);
        all[start..]
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(t) => Some(t.as_str()),
                StreamEvent::Retry { .. } => None,
            })
            .collect()
    }

    pub fn retries(&self) -> Vec<(u32, Duration, String)> {
        self.all()
            .into_iter()
            .filter_map(|e| match e {
                StreamEvent::Retry {
                    attempt,
                    delay,
                    reason,
                } => Some((attempt, delay, reason)),
                StreamEvent::TextDelta(_) => None,
            })
            .collect()
    }
}

pub fn anthropic_config(server: &MockServer, stream: bool) -> AnthropicConfig {
    AnthropicConfig {
        base_url: format!("{}/", server.url()),
        api_key: Some("sk-ant-test".into()),
        auth_token: None,
        model: "claude-test".into(),
        retry: RetryPolicy::fast(4),
        stream,
        timeout: Duration::from_secs(10),
        prompt_cache: true,
    }
}

pub fn anthropic(server: &MockServer, stream: bool) -> AnthropicClient {
    AnthropicClient::new(anthropic_config(server, stream)).unwrap()
}

pub fn openai_config(server: &MockServer, stream: bool) -> OpenAiConfig {
    OpenAiConfig {
        // Without /v1: the client adds it.
        base_url: server.url(),
        api_key: Some("sk-test".into()),
        model: "gpt-test".into(),
        retry: RetryPolicy::fast(4),
        stream,
        timeout: Duration::from_secs(10),
        provider_name: "openai".into(),
        prompt_cache_key: None,
    }
}

pub fn openai(server: &MockServer, stream: bool) -> OpenAiClient {
    OpenAiClient::new(openai_config(server, stream)).unwrap()
}

pub fn read_tool() -> ToolDefinition {
    ToolDefinition {
        name: "Read".into(),
        description: Some("Read a file".into()),
        input_schema: json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
        extra: Extra::new(),
    }
}

/// A request with the client's model, the Read tool and these messages.
pub fn request(messages: Vec<Message>) -> MessagesRequest {
    MessagesRequest {
        model: String::new(),
        max_tokens: 512,
        messages,
        system: None,
        tools: vec![read_tool()],
        tool_choice: None,
        stream: false,
        temperature: None,
        stop_sequences: vec![],
        extra: Extra::new(),
    }
}

pub fn ask(text: &str) -> MessagesRequest {
    request(vec![Message::user_text(text)])
}
