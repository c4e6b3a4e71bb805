//! OpenAI Chat Completions (`POST {base}/chat/completions`), the dialect of
//! OpenAI, Ollama, llama.cpp's `llama-server` and vLLM.
//!
//! The loop speaks Messages; this module translates a [`MessagesRequest`] into
//! a chat request and the chat response back into a [`MessageResponse`]:
//!
//! - `system` becomes the first message (`role: system`).
//! - A user message's `tool_result` blocks become one `role: tool` message
//!   each, in order, before the rest of that user message (its text and
//!   images follow as a user message). The tool role has no error flag, so an
//!   `is_error` result's text is prefixed with `Error: `.
//! - An assistant message becomes one message with `content` and `tool_calls`
//!   (`arguments` is the input as a JSON string). Thinking blocks are dropped:
//!   these APIs cannot take them back.
//! - A tool's example inputs (`input_examples`, which these APIs do not
//!   take: OpenAI refuses an unknown field) are appended to its description,
//!   one compact JSON object a line after `Examples:` ([`function_description`]).
//! - `max_tokens` is sent as `max_completion_tokens` to api.openai.com (which
//!   deprecated `max_tokens` and refuses it for reasoning models) and as
//!   `max_tokens` to every other server (Ollama, llama.cpp and older vLLM
//!   only know that one).
//!
//! **Base URL**: the default is `https://api.openai.com/v1`. A given base that
//! does not end in `/v1` gets `/v1` appended, so `http://localhost:11434` and
//! `http://localhost:11434/v1` both work.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tack_protocol::{
    ContentBlock, Extra, ImageBlock, Message, MessageResponse, MessagesRequest, Role, StopReason,
    ToolChoice, ToolDefinition, ToolResultBlock, Usage,
};

use crate::encoded::{EncodedRequest, EncodedSystem, OwnedParts, WireFormat};
use crate::http::{self, ErrorContext};
use crate::retry::{RetryPolicy, with_retries};
use crate::sse::{Flow, SseStream};
use crate::{EventSink, MalformedToolInput, ModelClient, ModelError, ModelTurn, StreamEvent};

/// Where requests go when neither `--base-url` nor `OPENAI_BASE_URL` says.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model used when neither `--model` nor `TACK_MODEL` says.
pub const DEFAULT_MODEL: &str = "gpt-4.1";

/// How to reach an OpenAI-compatible server. `Debug` shows whether a key is
/// set, never the key.
#[derive(Clone, PartialEq)]
pub struct OpenAiConfig {
    /// With or without the trailing `/v1` (it is added when missing).
    pub base_url: String,
    /// Sent as `Authorization: Bearer`; local servers need none.
    pub api_key: Option<String>,
    /// Used when the request's own `model` is empty.
    pub model: String,
    pub retry: RetryPolicy,
    /// Ask for SSE and report text as it arrives.
    pub stream: bool,
    /// Idle timeout: the longest wait for the next bytes of a response.
    pub timeout: Duration,
    /// What [`ModelClient::provider`] says: "openai", "ollama", ...
    pub provider_name: String,
    /// Sent as `prompt_cache_key` (routes requests of one session to the same
    /// cache). Only for servers known to take it: other servers may refuse
    /// an unknown field.
    pub prompt_cache_key: Option<String>,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &crate::http::redacted(&self.api_key))
            .field("model", &self.model)
            .field("retry", &self.retry)
            .field("stream", &self.stream)
            .field("timeout", &self.timeout)
            .field("provider_name", &self.provider_name)
            .field("prompt_cache_key", &self.prompt_cache_key)
            .finish()
    }
}

impl OpenAiConfig {
    /// Reads `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `TACK_MODEL` and
    /// `TACK_MAX_RETRIES` through `env` (empty values count as unset).
    /// Streaming is on.
    pub fn from_env_with(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let get = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        Self {
            base_url: get("OPENAI_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            api_key: get("OPENAI_API_KEY"),
            model: get("TACK_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            retry: RetryPolicy::from_env(env),
            stream: true,
            timeout: crate::anthropic::DEFAULT_TIMEOUT,
            provider_name: "openai".to_owned(),
            prompt_cache_key: None,
        }
    }

    /// [`Self::from_env_with`] on the process environment.
    pub fn from_env() -> Self {
        Self::from_env_with(&|k| std::env::var(k).ok())
    }
}

/// `base` without a trailing slash, with `/v1` appended unless it ends in it.
pub fn normalize_base_url(base: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    if base.ends_with("/v1") {
        base.to_owned()
    } else {
        format!("{base}/v1")
    }
}

/// Which field carries `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (api.openai.com).
    MaxCompletionTokens,
    /// `max_tokens` (everyone else).
    MaxTokens,
}

impl MaxTokensField {
    pub fn for_base_url(base: &str) -> Self {
        let host = base
            .split_once("://")
            .map_or(base, |(_, rest)| rest)
            .split(['/', ':'])
            .next()
            .unwrap_or("");
        if host.eq_ignore_ascii_case("api.openai.com") {
            Self::MaxCompletionTokens
        } else {
            Self::MaxTokens
        }
    }

    fn key(self) -> &'static str {
        match self {
            Self::MaxCompletionTokens => "max_completion_tokens",
            Self::MaxTokens => "max_tokens",
        }
    }
}

/// A [`ModelClient`] for OpenAI-compatible Chat Completions servers.
#[derive(Debug)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    base_url: String,
    endpoint: String,
    max_tokens_field: MaxTokensField,
    http: reqwest::Client,
    /// For tool calls a server sent without an id.
    next_call_id: AtomicU64,
}

impl OpenAiClient {
    /// Fails only if the HTTP client cannot be set up.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let base_url = normalize_base_url(&config.base_url);
        let endpoint = format!("{base_url}/chat/completions");
        let max_tokens_field = MaxTokensField::for_base_url(&base_url);
        let http = http::client(config.timeout, &config.base_url)?;
        Ok(Self {
            config,
            base_url,
            endpoint,
            max_tokens_field,
            http,
            next_call_id: AtomicU64::new(1),
        })
    }

    /// A client configured from the process environment ([`OpenAiConfig::from_env`]).
    pub fn from_env() -> Result<Self, ModelError> {
        Self::new(OpenAiConfig::from_env())
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    fn fresh_id(&self) -> String {
        format!("call_{}", self.next_call_id.fetch_add(1, Ordering::Relaxed))
    }

    /// The request body for `request`, assembled from its encoded parts
    /// (re-encoded first when they are in another wire shape).
    pub fn body(&self, request: &EncodedRequest<'_>) -> Vec<u8> {
        chat_body(
            request,
            &self.config.model,
            self.config.stream,
            self.max_tokens_field,
            self.config.prompt_cache_key.as_deref(),
        )
    }

    fn model_of<'a>(&'a self, request: &'a MessagesRequest) -> &'a str {
        if request.model.is_empty() {
            &self.config.model
        } else {
            &request.model
        }
    }

    async fn attempt(
        &self,
        body: &bytes::Bytes,
        model: &str,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        let mut req = self
            .http
            .post(&self.endpoint)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.clone());
        if let Some(key) = &self.config.api_key {
            req = req.bearer_auth(key);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| http::connection_error(&self.endpoint, &e))?;
        if !resp.status().is_success() {
            let ctx = ErrorContext {
                provider: &self.config.provider_name,
                model,
                base_url: &self.base_url,
                url: &self.endpoint,
            };
            return Err(http::api_error(resp, &ctx).await);
        }
        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.contains("text/event-stream"));
        if is_sse {
            let mut events = SseStream::new(resp.bytes_stream());
            let mut asm = ChunkAssembler::default();
            while let Some(event) = events.next_event().await {
                let event = event.map_err(|e| ModelError::Stream {
                    message: format!("the connection dropped mid-stream: {}", http::chain(&e)),
                    retryable: true,
                })?;
                if asm.handle(&event.data, sink)? == Flow::Stop {
                    break;
                }
            }
            asm.finish(&|| self.fresh_id())
        } else {
            let bytes = resp
                .bytes()
                .await
                .map_err(|e| http::connection_error(&self.endpoint, &e))?;
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
                ModelError::Decode(format!(
                    "{e} in {}",
                    http::truncate(&String::from_utf8_lossy(&bytes), 300)
                ))
            })?;
            if let Some(err) = value.get("error").filter(|e| !e.is_null()) {
                return Err(chunk_error(err));
            }
            from_chat_response(&value, &|| self.fresh_id())
        }
    }
}

#[async_trait]
impl ModelClient for OpenAiClient {
    fn provider(&self) -> &str {
        &self.config.provider_name
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    async fn complete(
        &self,
        request: &MessagesRequest,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        let parts = OwnedParts::new(WireFormat::ChatCompletions, request);
        self.complete_encoded(&parts.request(request), sink).await
    }

    fn wire_format(&self) -> Option<WireFormat> {
        Some(WireFormat::ChatCompletions)
    }

    async fn complete_encoded(
        &self,
        request: &EncodedRequest<'_>,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        let body = bytes::Bytes::from(self.body(request));
        let model = self.model_of(request.settings);
        with_retries(&self.config.retry, sink, |_| {
            self.attempt(&body, model, sink)
        })
        .await
    }

    async fn context_window(&self, model: &str) -> Option<u64> {
        let url = format!("{}/models", self.base_url);
        let mut req = self.http.get(&url);
        if let Some(key) = &self.config.api_key {
            req = req.bearer_auth(key);
        }
        let resp = req.send().await.ok()?;
        if !resp.status().is_success() {
            return None;
        }
        let listing: Value = serde_json::from_slice(&resp.bytes().await.ok()?).ok()?;
        window_in_listing(&listing, model)
    }
}

/// The window a `/v1/models` listing gives `model` (its entry, or the only
/// entry when a local server serves one model under another name).
fn window_in_listing(listing: &Value, model: &str) -> Option<u64> {
    let entries = listing.get("data").and_then(Value::as_array)?;
    let entry = entries
        .iter()
        .find(|e| e.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (entries.len() == 1).then(|| &entries[0]))?;
    [
        "/max_model_len",
        "/context_length",
        "/context_window",
        "/max_context_length",
        "/meta/n_ctx_train",
        "/meta/n_ctx",
    ]
    .iter()
    .find_map(|p| entry.pointer(p).and_then(Value::as_u64))
    .filter(|w| *w >= 512)
}

// ---------------------------------------------------------------------------
// Request translation

/// The Chat Completions body for `request`, assembled from its encoded
/// parts (re-encoded first when they are in another wire shape): the bytes
/// [`to_chat_request`] gives, with `prompt_cache_key` when set.
pub fn chat_body(
    request: &EncodedRequest<'_>,
    default_model: &str,
    stream: bool,
    max_tokens_field: MaxTokensField,
    prompt_cache_key: Option<&str>,
) -> Vec<u8> {
    if !request.is_in(WireFormat::ChatCompletions) {
        let whole = request.to_request();
        let parts = OwnedParts::new(WireFormat::ChatCompletions, &whole);
        return chat_body(
            &parts.request(&whole),
            default_model,
            stream,
            max_tokens_field,
            prompt_cache_key,
        );
    }
    let s = request.settings;
    let model = if s.model.is_empty() {
        default_model
    } else {
        &s.model
    };
    let mut out =
        Vec::with_capacity(request.encoded.iter().map(|m| m.len() + 1).sum::<usize>() + 512);
    out.extend_from_slice(b"{\"model\":");
    put(&mut out, model);
    out.extend_from_slice(b",\"messages\":[");
    let mut first = true;
    let system = request.system.map(EncodedSystem::bytes).unwrap_or_default();
    for part in std::iter::once(system).chain(request.encoded.iter().map(|m| m.bytes())) {
        if part.is_empty() {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(part);
    }
    out.extend_from_slice(b"],");
    put(&mut out, max_tokens_field.key());
    out.push(b':');
    put(&mut out, &s.max_tokens);
    if let Some(tools) = request.tools.filter(|t| !t.is_empty()) {
        out.extend_from_slice(b",\"tools\":");
        out.extend_from_slice(tools.bytes());
        if let Some(choice) = &s.tool_choice {
            out.extend_from_slice(b",\"tool_choice\":");
            match choice {
                ToolChoice::Auto { .. } => out.extend_from_slice(b"\"auto\""),
                ToolChoice::Any { .. } => out.extend_from_slice(b"\"required\""),
                ToolChoice::Tool { name, .. } => {
                    out.extend_from_slice(b"{\"type\":\"function\",\"function\":{\"name\":");
                    put(&mut out, name);
                    out.extend_from_slice(b"}}");
                }
                ToolChoice::None => out.extend_from_slice(b"\"none\""),
            }
            if choice.disable_parallel() {
                out.extend_from_slice(b",\"parallel_tool_calls\":false");
            }
        }
    }
    if let Some(t) = s.temperature {
        out.extend_from_slice(b",\"temperature\":");
        put(&mut out, &t);
    }
    if !s.stop_sequences.is_empty() {
        out.extend_from_slice(b",\"stop\":");
        put(&mut out, &s.stop_sequences);
    }
    if stream {
        out.extend_from_slice(b",\"stream\":true,\"stream_options\":{\"include_usage\":true}");
    }
    if let Some(key) = prompt_cache_key {
        out.extend_from_slice(b",\"prompt_cache_key\":");
        put(&mut out, key);
    }
    out.push(b'}');
    out
}

/// A tool's `description` as a function gets it
/// ([`ToolDefinition::description_with_examples`]: Chat Completions has no
/// field for example inputs).
pub fn function_description(tool: &ToolDefinition) -> Option<Cow<'_, str>> {
    tool.description_with_examples()
}

/// One message as the chat messages it becomes, joined by commas (empty when
/// it becomes none): the per-message part of [`to_chat_request`], encoded.
pub fn encode_message(message: &Message) -> Vec<u8> {
    crate::encoded::chat_message(message, image_url)
}

fn put<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    if let Err(e) = serde_json::to_writer(&mut *out, value) {
        tracing::error!("cannot encode part of a model request: {e}");
        out.extend_from_slice(b"null");
    }
}

/// The Chat Completions body for `request`, through a `Value` tree (the
/// clients send [`OpenAiClient::body`], which gives the same bytes).
pub fn to_chat_request(
    request: &MessagesRequest,
    model: &str,
    stream: bool,
    max_tokens_field: MaxTokensField,
) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &request.system {
        let text = system.text();
        if !text.is_empty() {
            messages.push(json!({"role": "system", "content": text}));
        }
    }
    for message in &request.messages {
        match message.role {
            Role::User => user_messages(&message.content, &mut messages),
            Role::Assistant => messages.push(assistant_message(&message.content)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("messages".into(), Value::Array(messages));
    body.insert(max_tokens_field.key().into(), request.max_tokens.into());
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                let mut function = Map::new();
                function.insert("name".into(), t.name.clone().into());
                if let Some(d) = function_description(t) {
                    function.insert("description".into(), d.into_owned().into());
                }
                function.insert("parameters".into(), t.input_schema.clone());
                json!({"type": "function", "function": function})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &request.tool_choice {
            let wire = match choice {
                ToolChoice::Auto { .. } => json!("auto"),
                ToolChoice::Any { .. } => json!("required"),
                ToolChoice::Tool { name, .. } => {
                    json!({"type": "function", "function": {"name": name}})
                }
                ToolChoice::None => json!("none"),
            };
            body.insert("tool_choice".into(), wire);
            if choice.disable_parallel() {
                body.insert("parallel_tool_calls".into(), false.into());
            }
        }
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), t.into());
    }
    if !request.stop_sequences.is_empty() {
        body.insert("stop".into(), request.stop_sequences.clone().into());
    }
    if stream {
        body.insert("stream".into(), true.into());
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

fn user_messages(blocks: &[ContentBlock], out: &mut Vec<Value>) {
    let mut parts: Vec<Value> = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::ToolResult(result) => out.push(tool_message(result)),
            ContentBlock::Text(t) => parts.push(json!({"type": "text", "text": t.text})),
            ContentBlock::Image(image) => {
                if let Some(url) = image_url(image) {
                    parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
                }
            }
            other => tracing::debug!(
                block = other.kind(),
                "dropping a block Chat Completions cannot carry"
            ),
        }
    }
    if parts.is_empty() {
        return;
    }
    let only_text = parts.iter().all(|p| p["type"] == "text");
    let content = if only_text {
        let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
        Value::String(texts.join("\n"))
    } else {
        Value::Array(parts)
    };
    out.push(json!({"role": "user", "content": content}));
}

fn tool_message(result: &ToolResultBlock) -> Value {
    let text = crate::encoded::tool_text(result);
    json!({"role": "tool", "tool_call_id": result.tool_use_id, "content": text})
}

fn image_url(image: &ImageBlock) -> Option<String> {
    let source = &image.source;
    match source.get("type").and_then(Value::as_str)? {
        "base64" => Some(format!(
            "data:{};base64,{}",
            source.get("media_type").and_then(Value::as_str)?,
            source.get("data").and_then(Value::as_str)?
        )),
        "url" => source.get("url").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

fn assistant_message(blocks: &[ContentBlock]) -> Value {
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::ToolUse(t) => calls.push(json!({
                "id": t.id,
                "type": "function",
                "function": {"name": t.name, "arguments": t.input.to_string()},
            })),
            _ => {} // thinking and server blocks cannot be sent back here
        }
    }
    let mut msg = Map::new();
    msg.insert("role".into(), "assistant".into());
    msg.insert(
        "content".into(),
        if text.is_empty() && !calls.is_empty() {
            Value::Null
        } else {
            Value::String(text)
        },
    );
    if !calls.is_empty() {
        msg.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(msg)
}

// ---------------------------------------------------------------------------
// Response translation

/// A tool call as it arrived (arguments still a string).
#[derive(Debug, Default, Clone, PartialEq)]
struct RawCall {
    id: String,
    name: String,
    arguments: String,
}

fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        // Some servers send the arguments as an object.
        Some(other) => other.to_string(),
    }
}

/// The finished turn from its parts.
fn build_turn(
    id: String,
    model: String,
    text: String,
    calls: Vec<RawCall>,
    finish_reason: Option<&str>,
    usage: Option<&Value>,
    fresh_id: &dyn Fn() -> String,
) -> ModelTurn {
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(ContentBlock::text(text));
    }
    let mut malformed = Vec::new();
    let has_calls = !calls.is_empty();
    for call in calls {
        let id = if call.id.is_empty() {
            fresh_id()
        } else {
            call.id
        };
        let input = if call.arguments.trim().is_empty() {
            json!({})
        } else {
            match serde_json::from_str::<Value>(&call.arguments) {
                Ok(v) => v,
                Err(e) => {
                    malformed.push(MalformedToolInput {
                        tool_use_id: id.clone(),
                        raw: call.arguments.clone(),
                        error: e.to_string(),
                    });
                    json!({})
                }
            }
        };
        content.push(ContentBlock::ToolUse(tack_protocol::ToolUseBlock {
            id,
            name: call.name,
            input,
            extra: Extra::new(),
        }));
    }
    let stop_reason = match finish_reason {
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        // Ollama answers "stop" even when it returns tool calls.
        Some("stop") | None if has_calls => StopReason::ToolUse,
        Some("stop") | None => StopReason::EndTurn,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::Refusal,
        Some(other) => StopReason::Other(other.to_owned()),
    };
    ModelTurn {
        response: MessageResponse {
            id,
            model,
            role: Role::Assistant,
            content,
            stop_reason: Some(stop_reason),
            stop_sequence: None,
            usage: usage.map(convert_usage).unwrap_or_default(),
            extra: Extra::new(),
        },
        malformed_inputs: malformed,
    }
}

/// OpenAI usage in the Anthropic sense: cached prompt tokens are counted in
/// `cache_read_input_tokens`, not in `input_tokens`.
fn convert_usage(usage: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let prompt = n(usage.get("prompt_tokens"));
    let cached = n(usage.pointer("/prompt_tokens_details/cached_tokens")).min(prompt);
    Usage {
        input_tokens: prompt - cached,
        output_tokens: n(usage.get("completion_tokens")),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached,
    }
}

fn message_text(message: &Value) -> String {
    let mut text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        // Some servers send content parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        Some(Value::Null) | None => String::new(),
        // Some servers (Cloudflare's, for structured output) send the
        // answer as a JSON value instead of a string: it is the answer.
        Some(other) => other.to_string(),
    };
    if text.is_empty()
        && let Some(refusal) = message.get("refusal").and_then(Value::as_str)
    {
        text = refusal.to_owned();
    }
    text
}

/// A non-streamed chat completion as a [`ModelTurn`].
fn from_chat_response(
    value: &Value,
    fresh_id: &dyn Fn() -> String,
) -> Result<ModelTurn, ModelError> {
    let choice = value.get("choices").and_then(|c| c.get(0)).ok_or_else(|| {
        ModelError::Decode(format!(
            "a chat completion without choices: {}",
            http::truncate(&value.to_string(), 300)
        ))
    })?;
    let message = choice.get("message").unwrap_or(&Value::Null);
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .map(|c| RawCall {
                    id: c.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
                    name: c
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    arguments: arguments_text(c.pointer("/function/arguments")),
                })
                .collect()
        })
        .unwrap_or_default();
    let str_field = |k: &str| {
        value
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    Ok(build_turn(
        str_field("id"),
        str_field("model"),
        message_text(message),
        calls,
        choice.get("finish_reason").and_then(Value::as_str),
        value.get("usage").filter(|u| u.is_object()),
        fresh_id,
    ))
}

fn chunk_error(err: &Value) -> ModelError {
    let field = |k: &str| match err.get(k) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let message = field("message").or_else(|| err.as_str().map(str::to_owned));
    let kind = field("type").or_else(|| field("code"));
    http::stream_error(kind.as_deref(), message.as_deref())
}

/// Assembles streamed chat completion chunks.
#[derive(Debug, Default)]
pub(crate) struct ChunkAssembler {
    id: String,
    model: String,
    text: String,
    calls: BTreeMap<u64, RawCall>,
    finish_reason: Option<String>,
    usage: Option<Value>,
    done: bool,
}

impl ChunkAssembler {
    pub(crate) fn handle(&mut self, data: &str, sink: &dyn EventSink) -> Result<Flow, ModelError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(Flow::Stop);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            ModelError::Decode(format!(
                "invalid JSON in a stream chunk: {e}: {}",
                http::truncate(data, 300)
            ))
        })?;
        if let Some(err) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(chunk_error(err));
        }
        if self.id.is_empty()
            && let Some(id) = chunk.get("id").and_then(Value::as_str)
        {
            self.id = id.to_owned();
        }
        if self.model.is_empty()
            && let Some(model) = chunk.get("model").and_then(Value::as_str)
        {
            self.model = model.to_owned();
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return Ok(Flow::Continue);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(Flow::Continue);
        };
        for key in ["content", "refusal"] {
            let piece = match delta.get(key) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => continue,
                // Content parts (Mistral): their text; thinking parts have
                // none at the top.
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect(),
                // A JSON value instead of a string (see `message_text`).
                Some(other) => other.to_string(),
            };
            if !piece.is_empty() {
                self.text.push_str(&piece);
                sink.event(StreamEvent::TextDelta(piece));
            }
        }
        for fragment in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = fragment.get("id").and_then(Value::as_str).unwrap_or("");
            let index = match fragment.get("index").and_then(Value::as_u64) {
                Some(i) => i,
                // No index (some servers): a fragment with an id starts a new call.
                None => {
                    let last = self.calls.keys().next_back().copied();
                    match last {
                        Some(last) if id.is_empty() || self.calls[&last].id == id => last,
                        Some(last) => last + 1,
                        None => 0,
                    }
                }
            };
            let call = self.calls.entry(index).or_default();
            if call.id.is_empty() {
                call.id = id.to_owned();
            }
            if call.name.is_empty()
                && let Some(name) = fragment.pointer("/function/name").and_then(Value::as_str)
            {
                call.name = name.to_owned();
            }
            call.arguments
                .push_str(&arguments_text(fragment.pointer("/function/arguments")));
        }
        Ok(Flow::Continue)
    }

    /// The assembled turn; an error if the stream ended with neither
    /// `[DONE]` nor a finish_reason.
    pub(crate) fn finish(self, fresh_id: &dyn Fn() -> String) -> Result<ModelTurn, ModelError> {
        if !self.done && self.finish_reason.is_none() {
            return Err(ModelError::Stream {
                message: "the stream ended before [DONE] and without a finish_reason".to_owned(),
                retryable: true,
            });
        }
        Ok(build_turn(
            self.id,
            self.model,
            self.text,
            self.calls.into_values().collect(),
            self.finish_reason.as_deref(),
            self.usage.as_ref(),
            fresh_id,
        ))
    }
}

#[cfg(test)]
mod listing_tests {
    use super::window_in_listing;
    use serde_json::json;

    #[test]
    fn each_servers_listing_gives_its_window() {
        let vllm = json!({"data": [{"id": "qwen", "max_model_len": 32768}, {"id": "other", "max_model_len": 4096}]});
        assert_eq!(window_in_listing(&vllm, "qwen"), Some(32768));
        let llama = json!({"data": [{"id": "model.gguf", "meta": {"n_ctx_train": 8192}}]});
        assert_eq!(
            window_in_listing(&llama, "local"),
            Some(8192),
            "the only model served"
        );
        let openrouter = json!({"data": [{"id": "a/b", "context_length": 131072}]});
        assert_eq!(window_in_listing(&openrouter, "a/b"), Some(131072));
        let openai = json!({"data": [{"id": "gpt-x", "owned_by": "openai"}, {"id": "gpt-y"}]});
        assert_eq!(window_in_listing(&openai, "gpt-x"), None);
        assert_eq!(window_in_listing(&json!({"error": "no"}), "m"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use tack_protocol::{Message, SystemPrompt, ToolDefinition};

    fn ids() -> impl Fn() -> String {
        let n = AtomicU64::new(0);
        move || format!("call_{}", n.fetch_add(1, Ordering::Relaxed))
    }

    fn request(messages: Vec<Message>) -> MessagesRequest {
        MessagesRequest {
            model: String::new(),
            max_tokens: 1024,
            messages,
            system: Some(SystemPrompt::Text("Be brief.".into())),
            tools: vec![ToolDefinition {
                name: "Read".into(),
                description: Some("Read a file".into()),
                input_schema: json!({"type":"object","properties":{"path":{"type":"string"}}}),
                extra: Extra::new(),
            }],
            tool_choice: Some(ToolChoice::Any {
                disable_parallel_tool_use: Some(true),
            }),
            stream: false,
            temperature: None,
            stop_sequences: vec![],
            extra: Extra::new(),
        }
    }

    fn block(v: Value) -> ContentBlock {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn request_translation() {
        let req = request(vec![
            Message::user(vec![
                ContentBlock::text("Look at"),
                ContentBlock::Image(ImageBlock::base64("image/png", "AAAA".into())),
            ]),
            Message::assistant(vec![
                block(json!({"type":"thinking","thinking":"hm","signature":"s"})),
                ContentBlock::text("Reading both."),
                block(json!({"type":"tool_use","id":"call_a","name":"Read","input":{"path":"a"}})),
                block(json!({"type":"tool_use","id":"call_b","name":"Read","input":{"path":"b"}})),
            ]),
            Message::user(vec![
                block(json!({"type":"tool_result","tool_use_id":"call_a","content":"A"})),
                block(
                    json!({"type":"tool_result","tool_use_id":"call_b","content":[{"type":"text","text":"no such file"}],"is_error":true}),
                ),
                ContentBlock::text("Now summarize."),
            ]),
        ]);
        let body = to_chat_request(&req, "gpt-4.1", true, MaxTokensField::MaxCompletionTokens);
        assert_eq!(
            body,
            json!({
                "model": "gpt-4.1",
                "messages": [
                    {"role":"system","content":"Be brief."},
                    {"role":"user","content":[
                        {"type":"text","text":"Look at"},
                        {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}
                    ]},
                    {"role":"assistant","content":"Reading both.","tool_calls":[
                        {"id":"call_a","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\"}"}},
                        {"id":"call_b","type":"function","function":{"name":"Read","arguments":"{\"path\":\"b\"}"}}
                    ]},
                    {"role":"tool","tool_call_id":"call_a","content":"A"},
                    {"role":"tool","tool_call_id":"call_b","content":"Error: no such file"},
                    {"role":"user","content":"Now summarize."}
                ],
                "max_completion_tokens": 1024,
                "tools": [{"type":"function","function":{"name":"Read","description":"Read a file",
                    "parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}],
                "tool_choice": "required",
                "parallel_tool_calls": false,
                "stream": true,
                "stream_options": {"include_usage": true}
            })
        );
    }

    #[test]
    fn input_examples_end_the_description_and_are_no_field() {
        let mut req = request(vec![Message::user_text("hi")]);
        let examples = json!([{"path": "/src/main.rs"}, {"path": "/a b/\u{e9}.txt"}]);
        req.tools[0].extra.insert("input_examples".into(), examples);
        let mut bare = req.tools[0].clone();
        bare.description = None;
        bare.name = "Bare".into();
        req.tools.push(bare);
        let body = to_chat_request(&req, "m", false, MaxTokensField::MaxTokens);
        assert!(!body.to_string().contains("input_examples"), "{body}");
        assert_eq!(
            body["tools"][0]["function"]["description"],
            "Read a file\n\nExamples:\n{\"path\":\"/src/main.rs\"}\n{\"path\":\"/a b/\u{e9}.txt\"}"
        );
        assert_eq!(
            body["tools"][1]["function"]["description"],
            "Examples:\n{\"path\":\"/src/main.rs\"}\n{\"path\":\"/a b/\u{e9}.txt\"}"
        );
        // No examples, or an empty list: the description as it is.
        req.tools[0]
            .extra
            .insert("input_examples".into(), json!([]));
        req.tools.truncate(1);
        let body = to_chat_request(&req, "m", false, MaxTokensField::MaxTokens);
        assert_eq!(body["tools"][0]["function"]["description"], "Read a file");
        // The encoded path sends the same bytes.
        let parts = OwnedParts::new(WireFormat::ChatCompletions, &req);
        assert_eq!(
            serde_json::from_slice::<Value>(&chat_body(
                &parts.request(&req),
                "m",
                false,
                MaxTokensField::MaxTokens,
                None
            ))
            .unwrap(),
            body
        );
    }

    #[test]
    fn tool_choice_and_max_tokens_field() {
        let mut req = request(vec![Message::user_text("hi")]);
        let cases = [
            (
                ToolChoice::Auto {
                    disable_parallel_tool_use: None,
                },
                json!("auto"),
            ),
            (ToolChoice::None, json!("none")),
            (
                ToolChoice::Tool {
                    name: "Read".into(),
                    disable_parallel_tool_use: None,
                },
                json!({"type":"function","function":{"name":"Read"}}),
            ),
        ];
        for (choice, wire) in cases {
            req.tool_choice = Some(choice);
            let body = to_chat_request(&req, "m", false, MaxTokensField::MaxTokens);
            assert_eq!(body["tool_choice"], wire);
            assert!(body.get("parallel_tool_calls").is_none());
            assert_eq!(body["max_tokens"], 1024);
            assert!(body.get("max_completion_tokens").is_none());
            assert!(body.get("stream").is_none());
            assert_eq!(body["messages"][1], json!({"role":"user","content":"hi"}));
        }
        assert_eq!(
            MaxTokensField::for_base_url("https://api.openai.com/v1"),
            MaxTokensField::MaxCompletionTokens
        );
        assert_eq!(
            MaxTokensField::for_base_url("http://127.0.0.1:11434/v1"),
            MaxTokensField::MaxTokens
        );
        assert_eq!(
            MaxTokensField::for_base_url("https://api.openai.com.evil.example/v1"),
            MaxTokensField::MaxTokens
        );
    }

    #[test]
    fn base_url_normalization() {
        assert_eq!(
            normalize_base_url("http://localhost:8080"),
            "http://localhost:8080/v1"
        );
        assert_eq!(
            normalize_base_url("http://localhost:8080/"),
            "http://localhost:8080/v1"
        );
        assert_eq!(
            normalize_base_url("http://localhost:8080/v1/"),
            "http://localhost:8080/v1"
        );
        assert_eq!(
            normalize_base_url("https://api.openai.com/v1"),
            "https://api.openai.com/v1"
        );
    }

    #[test]
    fn response_translation() {
        let resp = json!({
            "id": "chatcmpl-1", "model": "gpt-4.1",
            "choices": [{"index":0,"finish_reason":"tool_calls","message":{
                "role":"assistant","content":"Let me look.",
                "tool_calls":[
                    {"id":"call_x","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\"}"}},
                    {"type":"function","function":{"name":"Read","arguments":"{\"path\": oops"}}
                ]}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 60}}
        });
        let turn = from_chat_response(&resp, &ids()).unwrap();
        assert_eq!(
            serde_json::to_value(&turn.response).unwrap(),
            json!({
                "id":"chatcmpl-1","model":"gpt-4.1","role":"assistant",
                "content":[
                    {"type":"text","text":"Let me look."},
                    {"type":"tool_use","id":"call_x","name":"Read","input":{"path":"a"}},
                    {"type":"tool_use","id":"call_0","name":"Read","input":{}}
                ],
                "stop_reason":"tool_use","stop_sequence":null,
                "usage":{"input_tokens":40,"output_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":60}
            })
        );
        assert_eq!(
            turn.malformed_inputs,
            vec![MalformedToolInput {
                tool_use_id: "call_0".into(),
                raw: "{\"path\": oops".into(),
                error: turn.malformed_inputs[0].error.clone(),
            }]
        );
        assert!(!turn.malformed_inputs[0].error.is_empty());
    }

    #[test]
    fn finish_reasons() {
        let with = |reason: Value, calls: bool| {
            let mut message = json!({"role":"assistant","content":"x"});
            if calls {
                message["tool_calls"] =
                    json!([{"id":"c","function":{"name":"f","arguments":"{}"}}]);
            }
            let resp = json!({"choices":[{"finish_reason":reason,"message":message}]});
            from_chat_response(&resp, &ids())
                .unwrap()
                .response
                .stop_reason
                .unwrap()
        };
        assert_eq!(with(json!("stop"), false), StopReason::EndTurn);
        assert_eq!(with(json!("length"), false), StopReason::MaxTokens);
        assert_eq!(with(json!("content_filter"), false), StopReason::Refusal);
        assert_eq!(with(json!("tool_calls"), true), StopReason::ToolUse);
        assert_eq!(with(Value::Null, true), StopReason::ToolUse);
        assert_eq!(with(json!("stop"), true), StopReason::ToolUse);
        assert_eq!(with(Value::Null, false), StopReason::EndTurn);
    }

    #[test]
    fn content_sent_as_a_json_value_is_the_answer_text() {
        // Cloudflare's OpenAI-compatible API, asked for structured output.
        let object = json!({"title": "Apples are tasty", "author": "Hadley Wickham"});
        let resp = json!({"choices":[{"finish_reason":"stop",
            "message":{"role":"assistant","content": object}}]});
        let turn = from_chat_response(&resp, &ids()).unwrap();
        let text: String = turn
            .response
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), object);
        for (content, want) in [
            (Value::Null, ""),
            (json!("plain"), "plain"),
            (json!(42), "42"),
        ] {
            assert_eq!(message_text(&json!({ "content": content })), want);
        }
    }

    fn feed(chunks: &[Value], done: bool) -> (Result<ModelTurn, ModelError>, Vec<StreamEvent>) {
        let events = Mutex::new(Vec::new());
        let sink = |e: StreamEvent| events.lock().unwrap().push(e);
        let mut asm = ChunkAssembler::default();
        let mut result = Ok(());
        for c in chunks {
            if let Err(e) = asm.handle(&c.to_string(), &sink) {
                result = Err(e);
                break;
            }
        }
        if done && result.is_ok() {
            assert_eq!(asm.handle("[DONE]", &sink).unwrap(), Flow::Stop);
        }
        let turn = result.and_then(|()| asm.finish(&ids()));
        (turn, events.into_inner().unwrap())
    }

    #[test]
    fn stream_chunks_assemble_per_index() {
        let c = |delta: Value, finish: Value| json!({"id":"chatcmpl-9","model":"gpt-4.1","choices":[{"index":0,"delta":delta,"finish_reason":finish}]});
        let chunks = [
            c(json!({"role":"assistant","content":""}), Value::Null),
            c(json!({"content":"Checking"}), Value::Null),
            c(json!({"content":" both."}), Value::Null),
            c(
                json!({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Read","arguments":""}}]}),
                Value::Null,
            ),
            c(
                json!({"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}),
                Value::Null,
            ),
            c(
                json!({"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"Glob","arguments":"{\"p\":"}}]}),
                Value::Null,
            ),
            c(
                json!({"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a\"}"}}]}),
                Value::Null,
            ),
            c(
                json!({"tool_calls":[{"index":1,"function":{"arguments":"\"*\"}"}}]}),
                Value::Null,
            ),
            c(json!({}), json!("tool_calls")),
            json!({"id":"chatcmpl-9","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9}}),
        ];
        let (turn, events) = feed(&chunks, true);
        let turn = turn.unwrap();
        assert_eq!(
            serde_json::to_value(&turn.response.content).unwrap(),
            json!([
                {"type":"text","text":"Checking both."},
                {"type":"tool_use","id":"call_1","name":"Read","input":{"path":"a"}},
                {"type":"tool_use","id":"call_2","name":"Glob","input":{"p":"*"}}
            ])
        );
        assert_eq!(turn.response.stop_reason, Some(StopReason::ToolUse));
        assert_eq!(turn.response.usage.input_tokens, 20);
        assert_eq!(turn.response.usage.output_tokens, 9);
        assert_eq!(turn.response.id, "chatcmpl-9");
        assert_eq!(
            events,
            vec![
                StreamEvent::TextDelta("Checking".into()),
                StreamEvent::TextDelta(" both.".into())
            ]
        );
    }

    #[test]
    fn ollama_style_whole_calls_without_ids_or_index() {
        let chunks = [
            json!({"choices":[{"delta":{"tool_calls":[{"function":{"name":"Read","arguments":"{\"path\":\"a\"}"}}]}}]}),
            json!({"choices":[{"delta":{},"finish_reason":"stop"}]}),
        ];
        let turn = feed(&chunks, false).0.unwrap();
        let r = turn.response;
        assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
        assert!(
            matches!(&r.content[0], ContentBlock::ToolUse(t) if t.id == "call_0" && t.input == json!({"path":"a"}))
        );
    }

    #[test]
    fn stream_errors() {
        let (turn, _) = feed(&[json!({"choices":[{"delta":{"content":"hi"}}]})], false);
        let err = turn.unwrap_err();
        assert!(
            matches!(
                err,
                ModelError::Stream {
                    retryable: true,
                    ..
                }
            ),
            "{err:?}"
        );

        let (turn, _) = feed(
            &[json!({"error":{"message":"The server had an error","type":"server_error"}})],
            false,
        );
        let err = turn.unwrap_err();
        assert!(err.is_retryable() && err.to_string().contains("The server had an error"));

        let (turn, _) = feed(
            &[json!({"error":{"message":"bad","type":"invalid_request_error"}})],
            false,
        );
        assert!(!turn.unwrap_err().is_retryable());
    }
}
