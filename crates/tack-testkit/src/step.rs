//! Scripted steps: what the mock answers to the next valid request.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_protocol::{ContentBlock, Extra, StopReason, ToolUseBlock, Usage};

use crate::{Error, Result};

/// Usage reported when a step does not set its own: small, plausible, non-zero.
/// The Messages API mock replaces the input counts with the prompt cache's
/// estimate of the request ([`crate::PromptCache`]); the OpenAI mock reports
/// these as they are.
pub const DEFAULT_USAGE: Usage = Usage {
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
};

/// One scripted answer. Steps are served first in, first out, to whichever API
/// asks next; requests the mock rejects do not consume a step.
///
/// On the wire (a script file is a JSON array of these) a step is
/// `{"reply": {"content": [...], "stop_reason": "end_turn"}}` or
/// `{"error": {"status": 529}}`, plus optional modifiers: `usage`, `headers`
/// (`[["retry-after", "1"]]`), `delay_ms`, `cut_after`,
/// `stream_error_after` (`{"after": 2, "error_type": "overloaded_error"}`),
/// `raw_tool_arguments` (`{"toolu_1": "{not json"}`) and `expect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    #[serde(flatten)]
    pub(crate) action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) headers: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) delay_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cut_after: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stream_error_after: Option<StreamError>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) raw_tool_arguments: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expect: Option<Expect>,
}

/// What a step answers: a model reply or an HTTP error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Action {
    Reply {
        content: Vec<ContentBlock>,
        stop_reason: StopReason,
    },
    Error {
        status: u16,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
}

/// An `error` event sent in the middle of a stream (HTTP status stays 200).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StreamError {
    pub(crate) after: usize,
    pub(crate) error_type: String,
}

/// Which API a request came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Api {
    /// `POST /v1/messages`
    #[serde(rename = "anthropic")]
    Anthropic,
    /// `POST /v1/chat/completions`
    #[serde(rename = "openai")]
    OpenAi,
    /// `POST /v1/responses` (OpenAI's Responses API, which Codex CLI speaks)
    #[serde(rename = "responses")]
    Responses,
}

/// Optional checks a step makes on the request that consumes it. A request
/// that fails them is answered 400 (`mock expectation failed: ...`), recorded
/// as a rejection, and the step stays queued. Unset fields check nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expect {
    /// The API the request must use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<Api>,
    /// Whether the request must (or must not) ask for a stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// Text the last user turn must contain (its text and its tool results).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_user_contains: Option<String>,
    /// Tool call ids the last user turn must carry results for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results_for: Vec<String>,
}

/// What the mock does when a valid request arrives and no step is left.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fallback {
    /// HTTP 500 `api_error`: "mock script exhausted: no scripted response left for request N".
    #[default]
    Exhausted,
    /// Reply "You said: <last user text>" (or "Tool results received: <n>"), `end_turn`.
    Echo,
}

impl Step {
    /// A successful response with these blocks and stop reason.
    pub fn reply(content: Vec<ContentBlock>, stop: StopReason) -> Step {
        Step::from_action(Action::Reply {
            content,
            stop_reason: stop,
        })
    }

    /// One text block, `end_turn`.
    pub fn text(text: impl Into<String>) -> Step {
        Step::reply(vec![ContentBlock::text(text)], StopReason::EndTurn)
    }

    /// One `tool_use` block, stop reason `tool_use`.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Step {
        Step::tool_uses([(id.into(), name.into(), input)])
    }

    /// A parallel batch of `tool_use` blocks `(id, name, input)`, stop reason `tool_use`.
    pub fn tool_uses<I, N>(calls: impl IntoIterator<Item = (I, N, Value)>) -> Step
    where
        I: Into<String>,
        N: Into<String>,
    {
        let content = calls
            .into_iter()
            .map(|(id, name, input)| {
                ContentBlock::ToolUse(ToolUseBlock {
                    id: id.into(),
                    name: name.into(),
                    input,
                    extra: Extra::new(),
                })
            })
            .collect();
        Step::reply(content, StopReason::ToolUse)
    }

    /// An HTTP error with the API's real body shape; the error type follows the
    /// status (see [`error_type_for_status`]).
    pub fn error(status: u16) -> Step {
        Step::from_action(Action::Error {
            status,
            error_type: None,
            message: None,
        })
    }

    /// Parse a script: a JSON array of steps.
    pub fn parse_script(json: &str) -> Result<Vec<Step>> {
        serde_json::from_str(json).map_err(Error::Script)
    }

    /// Add a response header (e.g. `retry-after`, `retry-after-ms`, `x-should-retry`).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Step {
        self.headers
            .push((name.into().to_ascii_lowercase(), value.into()));
        self
    }

    /// Report this usage instead of [`DEFAULT_USAGE`].
    pub fn with_usage(mut self, usage: Usage) -> Step {
        self.usage = Some(usage);
        self
    }

    /// Wait this long before answering.
    pub fn with_delay(mut self, delay: Duration) -> Step {
        self.delay_ms = Some(u64::try_from(delay.as_millis()).unwrap_or(u64::MAX));
        self
    }

    /// The error message of an error step (ignored for replies).
    pub fn with_message(mut self, text: impl Into<String>) -> Step {
        if let Action::Error { message, .. } = &mut self.action {
            *message = Some(text.into());
        }
        self
    }

    /// Streamed: send `n_events` events (SSE events for Anthropic, `data:`
    /// chunks for OpenAI, pings and unknown events included) then drop the
    /// connection; the terminating `message_stop` / `[DONE]` is never sent.
    /// Not streamed: close the connection without any response.
    pub fn cut_after(mut self, n_events: usize) -> Step {
        self.cut_after = Some(n_events);
        self
    }

    /// Streamed: after `n_events` events send an error in the stream (Anthropic
    /// `event: error`, OpenAI a `data: {"error":...}` chunk) and end it; the
    /// HTTP status stays 200. `cut_after` wins if both are set.
    pub fn stream_error_after(mut self, n_events: usize, error_type: impl Into<String>) -> Step {
        self.stream_error_after = Some(StreamError {
            after: n_events,
            error_type: error_type.into(),
        });
        self
    }

    /// Emit this literal (possibly invalid) arguments string for the tool call
    /// `id`: in OpenAI responses and in the Anthropic `input_json_delta`
    /// fragments (a non-streamed Anthropic reply keeps the parsed `input`).
    pub fn raw_tool_arguments(mut self, id: impl Into<String>, raw: impl Into<String>) -> Step {
        self.raw_tool_arguments.insert(id.into(), raw.into());
        self
    }

    /// Check the request that consumes this step.
    pub fn expect(mut self, expect: Expect) -> Step {
        self.expect = Some(expect);
        self
    }

    fn from_action(action: Action) -> Step {
        Step {
            action,
            usage: None,
            headers: Vec::new(),
            delay_ms: None,
            cut_after: None,
            stream_error_after: None,
            raw_tool_arguments: BTreeMap::new(),
            expect: None,
        }
    }

    pub(crate) fn usage_or_default(&self) -> Usage {
        self.usage.clone().unwrap_or(DEFAULT_USAGE)
    }

    pub(crate) fn delay(&self) -> Option<Duration> {
        self.delay_ms.map(Duration::from_millis)
    }
}

/// The error type both APIs use for an HTTP status: 400 `invalid_request_error`,
/// 401 `authentication_error`, 402 `billing_error`, 403 `permission_error`,
/// 404 `not_found_error`, 408 `timeout_error`, 413 `request_too_large`,
/// 429 `rate_limit_error`, 504 `timeout_error`, 529 `overloaded_error`,
/// other 4xx `invalid_request_error`, other 5xx `api_error`.
pub fn error_type_for_status(status: u16) -> &'static str {
    match status {
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        408 | 504 => "timeout_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        500..=599 => "api_error",
        _ => "invalid_request_error",
    }
}

/// A default human message for an error type, close to the real APIs' texts.
pub(crate) fn default_error_message(error_type: &str) -> &'static str {
    match error_type {
        "authentication_error" => "invalid x-api-key",
        "billing_error" => "Your credit balance is too low to access the API.",
        "permission_error" => {
            "Your API key does not have permission to use the specified resource."
        }
        "not_found_error" => "Not found",
        "timeout_error" => "Request timed out",
        "request_too_large" => "Request exceeds the maximum allowed number of bytes.",
        "rate_limit_error" => "Number of requests has exceeded your rate limit (mock).",
        "overloaded_error" => "Overloaded",
        "api_error" => "Internal server error",
        _ => "Invalid request (mock)",
    }
}
