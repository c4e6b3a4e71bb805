//! The Anthropic Messages API (`POST {base}/v1/messages`), streaming or not.
//!
//! Requests go out in tack's own shape (it is the Messages shape). A streamed
//! response is assembled losslessly: every block starts as the
//! `content_block_start` payload, deltas are applied to it, and the result is
//! read as a [`ContentBlock`], so `redacted_thinking`, server tool blocks and
//! block types not invented yet come through verbatim. Nothing but the one
//! request is sent: no telemetry, no extra calls.

use std::collections::BTreeMap;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tack_protocol::{ContentBlock, MessageResponse, MessagesRequest};

use crate::encoded::{self, EncodedRequest, OwnedParts, WireFormat};
use crate::http::{self, ErrorContext};
use crate::retry::{RetryPolicy, with_retries};
use crate::sse::{Flow, SseStream};
use crate::{EventSink, MalformedToolInput, ModelClient, ModelError, ModelTurn, StreamEvent};

/// Where requests go when `ANTHROPIC_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The model used when neither `--model` nor `TACK_MODEL` says.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";
/// Sent as `anthropic-version` on every request.
pub const API_VERSION: &str = "2023-06-01";
/// The default idle timeout (longest wait for the next bytes).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// How to reach the Anthropic API. `Debug` shows whether a key is set, never the key.
#[derive(Clone, PartialEq)]
pub struct AnthropicConfig {
    /// Without `/v1`; a trailing slash is ignored.
    pub base_url: String,
    /// Sent as `x-api-key`. Wins over `auth_token` when both are set.
    pub api_key: Option<String>,
    /// Sent as `Authorization: Bearer`.
    pub auth_token: Option<String>,
    /// Used when the request's own `model` is empty.
    pub model: String,
    pub retry: RetryPolicy,
    /// Ask for SSE and report text as it arrives.
    pub stream: bool,
    /// Idle timeout: the longest wait for the next bytes of a response.
    pub timeout: Duration,
    /// Mark prompt-cache breakpoints on every request ([`crate::cache`]).
    pub prompt_cache: bool,
}

impl std::fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &crate::http::redacted(&self.api_key))
            .field("auth_token", &crate::http::redacted(&self.auth_token))
            .field("model", &self.model)
            .field("retry", &self.retry)
            .field("stream", &self.stream)
            .field("timeout", &self.timeout)
            .field("prompt_cache", &self.prompt_cache)
            .finish()
    }
}

impl AnthropicConfig {
    /// Reads `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`,
    /// `TACK_MODEL` and `TACK_MAX_RETRIES` through `env` (empty values count as
    /// unset). Streaming and prompt caching are on.
    pub fn from_env_with(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let get = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        Self {
            base_url: get("ANTHROPIC_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            api_key: get("ANTHROPIC_API_KEY"),
            auth_token: get("ANTHROPIC_AUTH_TOKEN"),
            model: get("TACK_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            retry: RetryPolicy::from_env(env),
            stream: true,
            timeout: DEFAULT_TIMEOUT,
            prompt_cache: true,
        }
    }

    /// [`Self::from_env_with`] on the process environment.
    pub fn from_env() -> Self {
        Self::from_env_with(&|k| std::env::var(k).ok())
    }
}

/// A [`ModelClient`] for the Anthropic Messages API (and servers that speak
/// it: Ollama, llama.cpp, the tack mock).
#[derive(Debug)]
pub struct AnthropicClient {
    config: AnthropicConfig,
    base_url: String,
    endpoint: String,
    http: reqwest::Client,
}

impl AnthropicClient {
    /// Fails only if the HTTP client cannot be set up (e.g. no TLS roots).
    pub fn new(config: AnthropicConfig) -> Result<Self, ModelError> {
        let base_url = config.base_url.trim_end_matches('/').to_owned();
        let endpoint = format!("{base_url}/v1/messages");
        let http = http::client(config.timeout, &config.base_url)?;
        Ok(Self {
            config,
            base_url,
            endpoint,
            http,
        })
    }

    /// A client configured from the process environment ([`AnthropicConfig::from_env`]).
    pub fn from_env() -> Result<Self, ModelError> {
        Self::new(AnthropicConfig::from_env())
    }

    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The request body for `request`, assembled from its encoded parts
    /// (re-encoded first when they are in another wire shape).
    pub fn body(&self, request: &EncodedRequest<'_>) -> Vec<u8> {
        if request.is_in(WireFormat::Messages) {
            return encoded::messages_body(
                request,
                &self.config.model,
                self.config.stream,
                self.config.prompt_cache,
            );
        }
        let whole = request.to_request();
        let parts = OwnedParts::new(WireFormat::Messages, &whole);
        self.body(&parts.request(&whole))
    }

    /// The model a body goes to, for error messages.
    fn model_of<'a>(&'a self, request: &'a MessagesRequest) -> &'a str {
        if request.model.is_empty() {
            &self.config.model
        } else {
            &request.model
        }
    }

    /// A POST to `url` with the API's headers: version, key, and the beta
    /// flags the body's fields need.
    fn post(&self, url: &str, body: bytes::Bytes, betas: &[&str]) -> reqwest::RequestBuilder {
        let mut req = self
            .http
            .post(url)
            .header("anthropic-version", API_VERSION)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        if !betas.is_empty() {
            req = req.header("anthropic-beta", betas.join(","));
        }
        if let Some(key) = &self.config.api_key {
            req = req.header("x-api-key", key);
        } else if let Some(token) = &self.config.auth_token {
            req = req.bearer_auth(token);
        }
        req
    }

    async fn attempt(
        &self,
        body: &bytes::Bytes,
        model: &str,
        betas: &[&str],
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        let mut req = self.post(&self.endpoint, body.clone(), betas);
        if self.config.stream {
            req = req.header("accept", "text/event-stream");
        }
        let resp = req
            .send()
            .await
            .map_err(|e| http::connection_error(&self.endpoint, &e))?;
        if !resp.status().is_success() {
            let ctx = ErrorContext {
                provider: "anthropic",
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
            read_stream(SseStream::new(resp.bytes_stream()), sink).await
        } else {
            // Also taken when a stream was asked for but a proxy answered JSON.
            let bytes = resp
                .bytes()
                .await
                .map_err(|e| http::connection_error(&self.endpoint, &e))?;
            let response: MessageResponse = serde_json::from_slice(&bytes).map_err(|e| {
                ModelError::Decode(format!(
                    "{e} in {}",
                    http::truncate(&String::from_utf8_lossy(&bytes), 300)
                ))
            })?;
            Ok(ModelTurn {
                response,
                malformed_inputs: Vec::new(),
            })
        }
    }
}

#[async_trait]
impl ModelClient for AnthropicClient {
    fn provider(&self) -> &str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn tool_references(&self, model: &str) -> bool {
        supports_tool_references(model)
    }

    async fn complete(
        &self,
        request: &MessagesRequest,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        let parts = OwnedParts::new(WireFormat::Messages, request);
        self.complete_encoded(&parts.request(request), sink).await
    }

    fn wire_format(&self) -> Option<WireFormat> {
        Some(WireFormat::Messages)
    }

    async fn complete_encoded(
        &self,
        request: &EncodedRequest<'_>,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        let body = bytes::Bytes::from(self.body(request));
        let model = self.model_of(request.settings);
        let betas = betas_for(&request.settings.extra);
        with_retries(&self.config.retry, sink, |_| {
            self.attempt(&body, model, &betas, sink)
        })
        .await
    }

    async fn count_tokens(&self, request: &EncodedRequest<'_>) -> Result<Option<u64>, ModelError> {
        // The count takes a Messages body without max_tokens and stream (rare
        // enough that a Value round trip is fine).
        let body = encoded::messages_body(request, &self.config.model, false, false);
        let mut value: Value = serde_json::from_slice(&body)
            .map_err(|e| ModelError::Decode(format!("cannot re-read the request: {e}")))?;
        if let Value::Object(map) = &mut value {
            for key in ["max_tokens", "stream", "temperature", "stop_sequences"] {
                map.remove(key);
            }
        }
        let body = serde_json::to_vec(&value)
            .map_err(|e| ModelError::Decode(format!("cannot encode the request: {e}")))?;
        let url = format!("{}/v1/messages/count_tokens", self.base_url);
        let betas = betas_for(&request.settings.extra);
        let resp = self
            .post(&url, body.into(), &betas)
            .send()
            .await
            .map_err(|e| http::connection_error(&url, &e))?;
        if !resp.status().is_success() {
            let ctx = ErrorContext {
                provider: "anthropic",
                model: self.model_of(request.settings),
                base_url: &self.base_url,
                url: &url,
            };
            return Err(http::api_error(resp, &ctx).await);
        }
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| http::connection_error(&url, &e))?;
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| ModelError::Decode(format!("count_tokens answered {e}")))?;
        Ok(value.get("input_tokens").and_then(Value::as_u64))
    }
}

/// The `anthropic-beta` flags a body's fields need: context management's
/// edits (`clear_*` → `context-management-2025-06-27`, `compact_*` →
/// `compact-2026-01-12`).
fn betas_for(extra: &tack_protocol::Extra) -> Vec<&'static str> {
    let mut betas = Vec::new();
    let edits = extra
        .get("context_management")
        .and_then(|c| c.get("edits"))
        .and_then(Value::as_array);
    for edit in edits.into_iter().flatten() {
        let beta = match edit.get("type").and_then(Value::as_str) {
            Some(t) if t.starts_with("compact_") => "compact-2026-01-12",
            Some(_) => "context-management-2025-06-27",
            None => continue,
        };
        if !betas.contains(&beta) {
            betas.push(beta);
        }
    }
    betas
}

async fn read_stream(
    mut events: SseStream<reqwest::Error>,
    sink: &dyn EventSink,
) -> Result<ModelTurn, ModelError> {
    let mut assembler = StreamAssembler::default();
    while let Some(event) = events.next_event().await {
        let event = event.map_err(|e| ModelError::Stream {
            message: format!("the connection dropped mid-stream: {}", http::chain(&e)),
            retryable: true,
        })?;
        if assembler.handle(&event.event, &event.data, sink)? == Flow::Stop {
            break;
        }
    }
    assembler.finish()
}

/// A block being streamed: the `content_block_start` payload with deltas
/// applied, plus the input JSON collected so far.
#[derive(Debug)]
struct Block {
    value: Map<String, Value>,
    partial_json: String,
    saw_json: bool,
}

/// Assembles a [`ModelTurn`] from Messages SSE events.
#[derive(Debug, Default)]
pub(crate) struct StreamAssembler {
    message: Option<Map<String, Value>>,
    blocks: BTreeMap<u64, Block>,
    done: Vec<(u64, ContentBlock)>,
    malformed: Vec<MalformedToolInput>,
    stopped: bool,
}

impl StreamAssembler {
    /// Applies one event. `name` is the SSE `event:` field; the data's `type` wins.
    pub(crate) fn handle(
        &mut self,
        name: &Option<String>,
        data: &str,
        sink: &dyn EventSink,
    ) -> Result<Flow, ModelError> {
        let value: Value = serde_json::from_str(data).map_err(|e| {
            ModelError::Decode(format!(
                "invalid JSON in a stream event: {e}: {}",
                http::truncate(data, 300)
            ))
        })?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .or(name.as_deref())
            .unwrap_or("");
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                let mut message = match value.get("message") {
                    Some(Value::Object(m)) => m.clone(),
                    _ => Map::new(),
                };
                message.remove("content");
                self.message = Some(message);
            }
            "content_block_start" => {
                let value = match value.get("content_block") {
                    Some(Value::Object(b)) => b.clone(),
                    _ => Map::new(),
                };
                self.blocks.insert(
                    index,
                    Block {
                        value,
                        partial_json: String::new(),
                        saw_json: false,
                    },
                );
            }
            "content_block_delta" => {
                let Some(delta) = value.get("delta") else {
                    return Ok(Flow::Continue);
                };
                let block = self.blocks.entry(index).or_insert_with(|| Block {
                    value: Map::new(),
                    partial_json: String::new(),
                    saw_json: false,
                });
                apply_delta(block, delta, sink);
            }
            "content_block_stop" => self.close(index),
            "message_delta" => {
                let message = self.message.get_or_insert_with(Map::new);
                if let Some(Value::Object(delta)) = value.get("delta") {
                    for (k, v) in delta {
                        message.insert(k.clone(), v.clone());
                    }
                }
                if let Some(Value::Object(usage)) = value.get("usage") {
                    let target = message
                        .entry("usage")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if !target.is_object() {
                        *target = Value::Object(Map::new());
                    }
                    if let Value::Object(target) = target {
                        for (k, v) in usage {
                            // Cumulative counts: the latest value is the total.
                            if !v.is_null() {
                                target.insert(k.clone(), v.clone());
                            }
                        }
                    }
                }
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(Flow::Stop);
            }
            "error" => {
                let err = value.get("error");
                let field = |k: &str| err.and_then(|e| e.get(k)).and_then(Value::as_str);
                return Err(http::stream_error(field("type"), field("message")));
            }
            _ => {} // ping and event types added later
        }
        Ok(Flow::Continue)
    }

    fn close(&mut self, index: u64) {
        let Some(block) = self.blocks.remove(&index) else {
            return;
        };
        let mut value = block.value;
        let is_tool_use = value.get("type").and_then(Value::as_str) == Some("tool_use");
        if is_tool_use || block.saw_json {
            let raw = block.partial_json;
            let input = if raw.trim().is_empty() {
                match value.get("input") {
                    Some(v @ Value::Object(_)) => v.clone(),
                    _ => json!({}),
                }
            } else {
                match serde_json::from_str::<Value>(&raw) {
                    Ok(v) => v,
                    Err(e) => {
                        let id = value.get("id").and_then(Value::as_str).unwrap_or("");
                        self.malformed.push(MalformedToolInput {
                            tool_use_id: id.to_owned(),
                            raw: raw.clone(),
                            error: e.to_string(),
                        });
                        json!({})
                    }
                }
            };
            value.insert("input".into(), input);
        }
        let value = Value::Object(value);
        let block = serde_json::from_value::<ContentBlock>(value.clone())
            .unwrap_or(ContentBlock::Unknown(value));
        self.done.push((index, block));
    }

    /// The assembled turn; an error if `message_stop` never came.
    pub(crate) fn finish(mut self) -> Result<ModelTurn, ModelError> {
        if !self.stopped {
            return Err(ModelError::Stream {
                message: "the stream ended before message_stop".to_owned(),
                retryable: true,
            });
        }
        let open: Vec<u64> = self.blocks.keys().copied().collect();
        for index in open {
            self.close(index);
        }
        self.done.sort_by_key(|(index, _)| *index);
        let content: Vec<Value> = self
            .done
            .iter()
            .map(|(_, b)| serde_json::to_value(b))
            .collect::<Result<_, _>>()
            .map_err(|e| ModelError::Decode(format!("cannot re-encode a content block: {e}")))?;
        let mut message = self.message.unwrap_or_default();
        message.insert("content".into(), Value::Array(content));
        let response: MessageResponse = serde_json::from_value(Value::Object(message))
            .map_err(|e| ModelError::Decode(format!("cannot read the streamed message: {e}")))?;
        Ok(ModelTurn {
            response,
            malformed_inputs: self.malformed,
        })
    }
}

fn apply_delta(block: &mut Block, delta: &Value, sink: &dyn EventSink) {
    let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or("");
    let append = |map: &mut Map<String, Value>, key: &str, piece: &str| {
        match map.get_mut(key) {
            Some(Value::String(s)) => s.push_str(piece),
            _ => {
                map.insert(key.into(), Value::String(piece.to_owned()));
            }
        };
    };
    match delta.get("type").and_then(Value::as_str).unwrap_or("") {
        "text_delta" => {
            let piece = text("text");
            append(&mut block.value, "text", piece);
            if !piece.is_empty() {
                sink.event(StreamEvent::TextDelta(piece.to_owned()));
            }
        }
        "input_json_delta" => {
            block.partial_json.push_str(text("partial_json"));
            block.saw_json = true;
        }
        "thinking_delta" => append(&mut block.value, "thinking", text("thinking")),
        "signature_delta" => append(&mut block.value, "signature", text("signature")),
        "citations_delta" => {
            if let Some(citation) = delta.get("citation") {
                let list = block
                    .value
                    .entry("citations")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if !list.is_array() {
                    *list = Value::Array(Vec::new());
                }
                if let Value::Array(list) = list {
                    list.push(citation.clone());
                }
            }
        }
        other => tracing::debug!(delta_type = other, "ignoring an unknown delta type"),
    }
}

/// Whether `model` takes `defer_loading` tools and `tool_reference` blocks:
/// the 4.5 generation and later. A name tack does not recognise (a proxy's
/// alias, a newer family) is taken to: the API says so plainly if not.
pub fn supports_tool_references(model: &str) -> bool {
    let Some(rest) = model.strip_prefix("claude-") else {
        return true;
    };
    if rest.starts_with('3') || rest.starts_with("instant") || rest.starts_with('2') {
        return false;
    }
    // claude-<family>-<major>[-<minor>][-<date>]
    let mut numbers = rest
        .split('-')
        .skip_while(|p| !p.chars().all(|c| c.is_ascii_digit()))
        .filter(|p| p.len() < 8)
        .map(|p| p.parse::<u32>().unwrap_or(0));
    match (numbers.next(), numbers.next()) {
        (Some(major), _) if major > 4 => true,
        (Some(4), Some(minor)) => minor >= 5,
        (Some(4), None) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::SseDecoder;
    use crate::sse::tests::ANTHROPIC_TOOL_STREAM;
    use std::sync::Mutex;
    use tack_protocol::StopReason;

    fn assemble(stream: &str, chunk: usize) -> (Result<ModelTurn, ModelError>, Vec<StreamEvent>) {
        let events = Mutex::new(Vec::new());
        let sink = |e: StreamEvent| events.lock().unwrap().push(e);
        let mut decoder = SseDecoder::new();
        let mut asm = StreamAssembler::default();
        let result = (|| {
            for piece in stream.as_bytes().chunks(chunk) {
                for ev in decoder.feed(piece) {
                    if asm.handle(&ev.event, &ev.data, &sink)? == Flow::Stop {
                        return Ok(());
                    }
                }
            }
            if let Some(ev) = decoder.finish() {
                asm.handle(&ev.event, &ev.data, &sink)?;
            }
            Ok(())
        })();
        let turn = result.and_then(|()| asm.finish());
        (turn, events.into_inner().unwrap())
    }

    fn sse(events: &[Value]) -> String {
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect()
    }

    #[test]
    fn fixture_stream_assembles_text_and_tool_use() {
        for chunk in [1, 3, 10, 4096] {
            let (turn, events) = assemble(ANTHROPIC_TOOL_STREAM, chunk);
            let turn = turn.unwrap();
            let r = &turn.response;
            assert_eq!(r.id, "msg_019Q1hrJbZG26Fb9BQhrkHEr");
            assert_eq!(r.model, "claude-sonnet-4-20250514");
            assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
            assert_eq!(r.usage.input_tokens, 377);
            assert_eq!(r.usage.output_tokens, 65);
            assert_eq!(r.content.len(), 2);
            assert_eq!(
                serde_json::to_value(&r.content).unwrap(),
                json!([
                    {"type":"text","text":"I'll check the current weather in Paris for you."},
                    {"type":"tool_use","id":"toolu_01NRLabsLyVHZPKxbKvkfSMn","name":"get_weather","input":{"location":"Paris"}}
                ])
            );
            assert!(turn.malformed_inputs.is_empty());
            assert_eq!(
                events,
                vec![StreamEvent::TextDelta(
                    "I'll check the current weather in Paris for you.".into()
                )]
            );
        }
    }

    #[test]
    fn thinking_redacted_unknown_and_citations_are_kept() {
        let stream = sse(&[
            json!({"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"c","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"think."}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque=="}}),
            json!({"type":"content_block_stop","index":1}),
            json!({"type":"content_block_start","index":2,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}),
            json!({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}),
            json!({"type":"content_block_stop","index":2}),
            json!({"type":"content_block_start","index":3,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"u"}]}}),
            json!({"type":"content_block_stop","index":3}),
            json!({"type":"content_block_start","index":4,"content_block":{"type":"text","text":""}}),
            json!({"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"Cited"}}),
            json!({"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","url":"u"}}}),
            json!({"type":"content_block_stop","index":4}),
            json!({"type":"some_future_event","x":1}),
            json!({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":30,"cache_read_input_tokens":4}}),
            json!({"type":"message_stop"}),
        ]);
        let (turn, _) = assemble(&stream, 7);
        let r = turn.unwrap().response;
        assert_eq!(
            serde_json::to_value(&r.content).unwrap(),
            json!([
                {"type":"thinking","thinking":"Let me think.","signature":"EqQB"},
                {"type":"redacted_thinking","data":"opaque=="},
                {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}},
                {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"u"}]},
                {"type":"text","text":"Cited","citations":[{"type":"web_search_result_location","url":"u"}]}
            ])
        );
        assert!(matches!(r.content[0], ContentBlock::Thinking(_)));
        assert!(matches!(r.content[1], ContentBlock::RedactedThinking(_)));
        assert!(matches!(r.content[2], ContentBlock::Unknown(_)));
        assert_eq!(r.usage.output_tokens, 30);
        assert_eq!(r.usage.cache_read_input_tokens, 4);
        assert_eq!(r.usage.input_tokens, 5);
        assert_eq!(r.stop_reason, Some(StopReason::EndTurn));
    }

    #[test]
    fn empty_and_invalid_tool_input() {
        let stream = sse(&[
            json!({"type":"message_start","message":{"id":"m","model":"c","role":"assistant","content":[]}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"a","input":{}}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"b","input":{}}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": tru"}}),
            json!({"type":"content_block_stop","index":1}),
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}),
            json!({"type":"message_stop"}),
        ]);
        let turn = assemble(&stream, 5).0.unwrap();
        let inputs: Vec<_> = turn
            .response
            .content
            .iter()
            .map(|b| match b {
                ContentBlock::ToolUse(t) => t.input.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(inputs, vec![json!({}), json!({})]);
        assert_eq!(turn.malformed_inputs.len(), 1);
        assert_eq!(turn.malformed_inputs[0].tool_use_id, "t1");
        assert_eq!(turn.malformed_inputs[0].raw, "{\"a\": tru");
        assert!(!turn.malformed_inputs[0].error.is_empty());
    }

    #[test]
    fn error_event_and_cut_stream() {
        let overloaded = format!(
            "{}event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}}}\n\n",
            &ANTHROPIC_TOOL_STREAM[..ANTHROPIC_TOOL_STREAM
                .find("event: content_block_stop")
                .unwrap()]
        );
        let err = assemble(&overloaded, 9).0.unwrap_err();
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
        assert!(err.to_string().contains("Overloaded"));

        let bad = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"no\"}}\n\n";
        assert!(!assemble(bad, 4).0.unwrap_err().is_retryable());

        // Cut between events, and cut inside a data line (the decoder drops
        // the half line): both are a retryable stream failure.
        for cut in [ANTHROPIC_TOOL_STREAM.len() - 60, 1500] {
            let (turn, _) = assemble(&ANTHROPIC_TOOL_STREAM[..cut], 11);
            let err = turn.unwrap_err();
            assert!(
                matches!(
                    err,
                    ModelError::Stream {
                        retryable: true,
                        ..
                    }
                ),
                "{cut}: {err:?}"
            );
            assert!(err.to_string().contains("message_stop"));
        }
    }
}

#[cfg(test)]
mod tool_reference_tests {
    use super::supports_tool_references as yes;

    #[test]
    fn the_45_generation_and_later_take_tool_references() {
        for model in [
            "claude-sonnet-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-5",
            "claude-haiku-4-5",
            "claude-opus-4-6",
            "claude-sonnet-5",
            "claude-opus-5-1-20261001",
            "some-proxy-alias",
        ] {
            assert!(yes(model), "{model}");
        }
        for model in [
            "claude-sonnet-4-20250514",
            "claude-opus-4-1-20250805",
            "claude-opus-4-0",
            "claude-3-7-sonnet-20250219",
            "claude-3-5-haiku-latest",
        ] {
            assert!(!yes(model), "{model}");
        }
    }
}
