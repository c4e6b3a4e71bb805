//! Requests assembled from parts encoded once.
//!
//! A session sends its whole conversation with every request, one turn
//! longer each time. Building each request anew (a `serde_json::Value` tree
//! of every message, then its bytes) costs time in proportion to the
//! conversation, every turn. Here each part is encoded once, in the wire
//! shape of the provider, when it joins: a message when it is appended
//! ([`EncodedMessage`]), the system prompt and the tool definitions once per
//! session ([`EncodedSystem`], [`EncodedTools`]). A request body is those
//! bytes concatenated around the few per-request fields ([`EncodedRequest`]);
//! the Messages API's prompt-cache breakpoints ([`crate::cache`]) are spliced
//! into the 2–4 places they go, because each part remembers the byte offset
//! of the block a marker would go on.
//!
//! The bytes are the ones the `Value` path produced for the same request
//! ([`crate::legacy`] keeps that path for the tests that compare them).
//!
//! ```
//! use tack_model::encoded::{EncodedMessage, EncodedRequest, WireFormat};
//! use tack_protocol::{Message, MessagesRequest};
//!
//! let messages = vec![Message::user_text("hi")];
//! let encoded: Vec<EncodedMessage> = messages
//!     .iter()
//!     .map(|m| EncodedMessage::new(WireFormat::Messages, m))
//!     .collect();
//! let settings = MessagesRequest {
//!     model: "m".into(), max_tokens: 5, messages: vec![], system: None, tools: vec![],
//!     tool_choice: None, stream: false, temperature: None, stop_sequences: vec![],
//!     extra: Default::default(),
//! };
//! let request = EncodedRequest { settings: &settings, system: None, tools: None,
//!     messages: &messages, encoded: &encoded };
//! assert_eq!(request.to_request().messages, messages);
//! assert_eq!(encoded[0].bytes(), br#"{"role":"user","content":[{"type":"text","text":"hi"}]}"#);
//! ```

use serde::Serialize;
use serde_json::Value;
use tack_protocol::{
    ContentBlock, ImageBlock, Message, MessagesRequest, Role, SystemPrompt, ToolDefinition,
    ToolResultBlock, ToolResultContent,
};

/// The shape a provider's requests take on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WireFormat {
    /// The Anthropic Messages API (tack's own shape).
    Messages,
    /// OpenAI-compatible Chat Completions.
    ChatCompletions,
}

/// What a prompt-cache breakpoint adds to a block, before its closing brace.
const MARKER: &[u8] = br#","cache_control":{"type":"ephemeral"}"#;

/// Writes `value` as compact JSON. The types written here (protocol structs,
/// `Value`s, strings) cannot fail to encode into a `Vec`: a failure would be
/// a bug, so it is logged and the value is sent as `null` (the API then says
/// what is wrong) rather than ending the session.
fn put<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    if let Err(e) = serde_json::to_writer(&mut *out, value) {
        tracing::error!("cannot encode part of a model request: {e}");
        out.extend_from_slice(b"null");
    }
}

/// Where a cache marker would go in a part's bytes.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    /// Insert [`MARKER`] at this offset (the closing brace of a block).
    Splice(usize),
    /// Send these bytes instead: a string system prompt sent as one marked
    /// block, or a block whose `cache_control` is `null` (replaced in place).
    Replace(Vec<u8>),
}

/// A part's bytes and where its cache marker would go.
#[derive(Debug, Clone, PartialEq, Default)]
struct Part {
    bytes: Vec<u8>,
    /// The last block that may carry a marker, when it has none yet
    /// (`None`: no block may carry one, or the last that may has one).
    slot: Option<Slot>,
    /// Blocks that carry a marker already.
    markers: usize,
}

impl Part {
    fn write(&self, out: &mut Vec<u8>, mark: bool) {
        match (&self.slot, mark) {
            (Some(Slot::Splice(at)), true) => {
                out.extend_from_slice(&self.bytes[..*at]);
                out.extend_from_slice(MARKER);
                out.extend_from_slice(&self.bytes[*at..]);
            }
            (Some(Slot::Replace(bytes)), true) => out.extend_from_slice(bytes),
            _ => out.extend_from_slice(&self.bytes),
        }
    }

    fn markable(&self) -> bool {
        self.slot.is_some()
    }
}

/// A block's `cache_control` as [`crate::cache`] sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Marker {
    Absent,
    Null,
    Set,
}

fn marker_of(value: Option<&Value>) -> Marker {
    match value {
        None => Marker::Absent,
        Some(Value::Null) => Marker::Null,
        Some(_) => Marker::Set,
    }
}

/// Whether the API takes `cache_control` on this block, and its marker
/// (the rules of `crate::cache::may_carry`, on the typed block).
fn block_cache(block: &ContentBlock) -> (bool, Marker) {
    match block {
        ContentBlock::Text(t) => (
            !t.text.trim().is_empty(),
            marker_of(t.extra.get("cache_control")),
        ),
        ContentBlock::Thinking(t) => (false, marker_of(t.extra.get("cache_control"))),
        ContentBlock::RedactedThinking(t) => (false, marker_of(t.extra.get("cache_control"))),
        ContentBlock::Image(b) => (true, marker_of(b.extra.get("cache_control"))),
        ContentBlock::ToolUse(b) => (true, marker_of(b.extra.get("cache_control"))),
        ContentBlock::ToolResult(b) => (true, marker_of(b.extra.get("cache_control"))),
        ContentBlock::Unknown(v) => (
            crate::cache::may_carry(v),
            marker_of(v.get("cache_control")),
        ),
    }
}

/// The last markable item seen while encoding a list: its byte range in the
/// part and its marker.
struct Candidate {
    start: usize,
    end: usize,
    marker: Marker,
    /// The item marked the `Value` way, for a `null` marker (built only then).
    marked: Option<Vec<u8>>,
}

/// Encodes `items` as a JSON array into `out`, remembering the last one that
/// may carry a marker. Returns it and the number of items with a marker.
fn encode_list<T: Serialize>(
    out: &mut Vec<u8>,
    items: &[T],
    cache: impl Fn(&T) -> (bool, Marker),
) -> (Option<Candidate>, usize) {
    let mut last = None;
    let mut markers = 0;
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let start = out.len();
        put(out, item);
        let (eligible, marker) = cache(item);
        markers += usize::from(marker == Marker::Set);
        if eligible {
            last = Some((start, out.len(), marker, item));
        }
    }
    out.push(b']');
    let candidate = last.map(|(start, end, marker, item)| Candidate {
        start,
        end,
        marker,
        marked: (marker == Marker::Null).then(|| marked_the_value_way(item)),
    });
    (candidate, markers)
}

/// `item` as a `Value` with `cache_control` set in place, encoded: what the
/// `Value` path sends for a block whose `cache_control` was `null`.
fn marked_the_value_way<T: Serialize>(item: &T) -> Vec<u8> {
    let mut value = serde_json::to_value(item).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert(
            "cache_control".into(),
            serde_json::json!({"type": "ephemeral"}),
        );
    }
    let mut out = Vec::new();
    put(&mut out, &value);
    out
}

/// The slot for a finished part whose candidate is `candidate`.
fn slot_of(bytes: &[u8], candidate: Option<Candidate>) -> Option<Slot> {
    let c = candidate?;
    match c.marker {
        Marker::Set => None,
        Marker::Absent if bytes.get(c.end.wrapping_sub(1)) == Some(&b'}') => {
            Some(Slot::Splice(c.end - 1))
        }
        Marker::Absent => None,
        Marker::Null => {
            let mut replaced = Vec::with_capacity(bytes.len() + MARKER.len());
            replaced.extend_from_slice(&bytes[..c.start]);
            replaced.extend_from_slice(c.marked.as_deref().unwrap_or(b"null"));
            replaced.extend_from_slice(&bytes[c.end..]);
            Some(Slot::Replace(replaced))
        }
    }
}

// ---------------------------------------------------------------------------
// Messages

/// One message, encoded once in a provider's wire shape.
///
/// For the Messages API it is the message object; for Chat Completions it is
/// the zero or more chat messages it becomes, joined by commas (a user
/// message's tool results are one `tool` message each).
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedMessage {
    format: WireFormat,
    role: Role,
    part: Part,
}

impl EncodedMessage {
    pub fn new(format: WireFormat, message: &Message) -> Self {
        let part = match format {
            WireFormat::Messages => messages_message(message),
            WireFormat::ChatCompletions => Part {
                bytes: crate::openai::encode_message(message),
                slot: None,
                markers: 0,
            },
        };
        Self {
            format,
            role: message.role,
            part,
        }
    }

    pub fn format(&self) -> WireFormat {
        self.format
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// The encoded bytes, without cache markers. For [`WireFormat::Messages`]
    /// they are the message's own JSON (`serde_json::to_vec(&message)`).
    pub fn bytes(&self) -> &[u8] {
        &self.part.bytes
    }

    /// The length of [`Self::bytes`].
    pub fn len(&self) -> usize {
        self.part.bytes.len()
    }

    /// True when the message has no wire form (Chat Completions drops a
    /// message that only holds blocks it cannot carry).
    pub fn is_empty(&self) -> bool {
        self.part.bytes.is_empty()
    }
}

/// `{"role":…,"content":[…],…extra}`, as serde writes a [`Message`].
fn messages_message(message: &Message) -> Part {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(b"{\"role\":");
    put(&mut out, &message.role);
    out.extend_from_slice(b",\"content\":");
    let (candidate, markers) = encode_list(&mut out, &message.content, block_cache);
    for (key, value) in &message.extra {
        out.push(b',');
        put(&mut out, key);
        out.push(b':');
        put(&mut out, value);
    }
    out.push(b'}');
    let slot = slot_of(&out, candidate);
    Part {
        bytes: out,
        slot,
        markers,
    }
}

// ---------------------------------------------------------------------------
// System prompt and tools

/// The system prompt, encoded once per session.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedSystem {
    format: WireFormat,
    source: SystemPrompt,
    part: Part,
}

impl EncodedSystem {
    pub fn new(format: WireFormat, system: SystemPrompt) -> Self {
        let part = match format {
            WireFormat::Messages => match &system {
                SystemPrompt::Text(text) => {
                    let mut bytes = Vec::with_capacity(text.len() + 2);
                    put(&mut bytes, text);
                    // The cache sends a non-empty string system as one block.
                    let slot = (!text.trim().is_empty()).then(|| {
                        let mut marked = Vec::with_capacity(text.len() + 64);
                        marked.extend_from_slice(br#"[{"type":"text","text":"#);
                        put(&mut marked, text);
                        marked.extend_from_slice(MARKER);
                        marked.extend_from_slice(b"}]");
                        Slot::Replace(marked)
                    });
                    Part {
                        bytes,
                        slot,
                        markers: 0,
                    }
                }
                SystemPrompt::Blocks(blocks) => {
                    let mut bytes = Vec::new();
                    let (candidate, markers) = encode_list(&mut bytes, blocks, block_cache);
                    let slot = slot_of(&bytes, candidate);
                    Part {
                        bytes,
                        slot,
                        markers,
                    }
                }
            },
            WireFormat::ChatCompletions => {
                let text = system.text();
                let mut bytes = Vec::new();
                if !text.is_empty() {
                    bytes.extend_from_slice(br#"{"role":"system","content":"#);
                    put(&mut bytes, &text);
                    bytes.push(b'}');
                }
                Part {
                    bytes,
                    slot: None,
                    markers: 0,
                }
            }
        };
        Self {
            format,
            source: system,
            part,
        }
    }

    pub fn format(&self) -> WireFormat {
        self.format
    }

    pub fn source(&self) -> &SystemPrompt {
        &self.source
    }

    /// The encoded bytes, without a cache marker (for Chat Completions the
    /// `system` message, empty when the prompt is).
    pub fn bytes(&self) -> &[u8] {
        &self.part.bytes
    }
}

/// The tool definitions, encoded once per session (again when a tool joins).
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedTools {
    format: WireFormat,
    source: Vec<ToolDefinition>,
    part: Part,
}

impl EncodedTools {
    pub fn new(format: WireFormat, tools: Vec<ToolDefinition>) -> Self {
        let mut bytes = Vec::new();
        let part = match format {
            WireFormat::Messages => {
                let (candidate, markers) = encode_list(&mut bytes, &tools, |t| {
                    let deferred = t.extra.get("defer_loading") == Some(&Value::Bool(true));
                    (!deferred, marker_of(t.extra.get("cache_control")))
                });
                let slot = slot_of(&bytes, candidate);
                Part {
                    bytes,
                    slot,
                    markers,
                }
            }
            WireFormat::ChatCompletions => {
                bytes.push(b'[');
                for (i, t) in tools.iter().enumerate() {
                    if i > 0 {
                        bytes.push(b',');
                    }
                    bytes.extend_from_slice(br#"{"type":"function","function":{"name":"#);
                    put(&mut bytes, &t.name);
                    if let Some(d) = crate::openai::function_description(t) {
                        bytes.extend_from_slice(br#","description":"#);
                        put(&mut bytes, d.as_ref());
                    }
                    bytes.extend_from_slice(br#","parameters":"#);
                    put(&mut bytes, &t.input_schema);
                    bytes.extend_from_slice(b"}}");
                }
                bytes.push(b']');
                Part {
                    bytes,
                    slot: None,
                    markers: 0,
                }
            }
        };
        Self {
            format,
            source: tools,
            part,
        }
    }

    pub fn format(&self) -> WireFormat {
        self.format
    }

    pub fn definitions(&self) -> &[ToolDefinition] {
        &self.source
    }

    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// The encoded array, without a cache marker.
    pub fn bytes(&self) -> &[u8] {
        &self.part.bytes
    }
}

// ---------------------------------------------------------------------------
// Requests

/// A request made of encoded parts. `settings` gives every field but the
/// conversation, the system prompt and the tools (its own `messages`,
/// `system` and `tools` are ignored: leave them empty); `messages` and
/// `encoded` are the same conversation, as values and encoded.
#[derive(Debug, Clone, Copy)]
pub struct EncodedRequest<'a> {
    pub settings: &'a MessagesRequest,
    pub system: Option<&'a EncodedSystem>,
    pub tools: Option<&'a EncodedTools>,
    pub messages: &'a [Message],
    pub encoded: &'a [EncodedMessage],
}

impl EncodedRequest<'_> {
    /// Whether every part is encoded for `format` (else a client encodes
    /// the request anew from its values).
    pub fn is_in(&self, format: WireFormat) -> bool {
        self.system.is_none_or(|s| s.format == format)
            && self.tools.is_none_or(|t| t.format == format)
            && self.encoded.len() == self.messages.len()
            && self.encoded.iter().all(|m| m.format == format)
    }

    /// The request as a [`MessagesRequest`] (a copy of every message), for
    /// clients that take only that.
    pub fn to_request(&self) -> MessagesRequest {
        let mut request = self.settings.clone();
        request.messages = self.messages.to_vec();
        request.system = self.system.map(|s| s.source.clone());
        request.tools = self.tools.map(|t| t.source.clone()).unwrap_or_default();
        request
    }
}

/// A request's parts encoded for `format` (what `complete(&MessagesRequest)`
/// does before it sends).
#[derive(Debug)]
pub struct OwnedParts {
    pub system: Option<EncodedSystem>,
    pub tools: EncodedTools,
    pub encoded: Vec<EncodedMessage>,
}

impl OwnedParts {
    pub fn new(format: WireFormat, request: &MessagesRequest) -> Self {
        Self {
            system: request
                .system
                .clone()
                .map(|s| EncodedSystem::new(format, s)),
            tools: EncodedTools::new(format, request.tools.clone()),
            encoded: request
                .messages
                .iter()
                .map(|m| EncodedMessage::new(format, m))
                .collect(),
        }
    }

    pub fn request<'a>(&'a self, request: &'a MessagesRequest) -> EncodedRequest<'a> {
        EncodedRequest {
            settings: request,
            system: self.system.as_ref(),
            tools: Some(&self.tools),
            messages: &request.messages,
            encoded: &self.encoded,
        }
    }
}

/// Where the prompt-cache breakpoints go (the rules of
/// [`crate::cache::mark_breakpoints`], on encoded parts).
#[derive(Debug, Default, PartialEq)]
struct Plan {
    messages: [Option<usize>; 2],
    system: bool,
    tools: bool,
}

fn plan_breakpoints(r: &EncodedRequest<'_>, top_level_marker: bool) -> Plan {
    let tools = r.tools.filter(|t| !t.is_empty());
    let existing = tools.map_or(0, |t| t.part.markers)
        + r.system.map_or(0, |s| s.part.markers)
        + r.encoded.iter().map(|m| m.part.markers).sum::<usize>()
        + usize::from(top_level_marker);
    let mut free = crate::cache::MAX_BREAKPOINTS.saturating_sub(existing);
    let roles = r.encoded;
    let last = roles.iter().rposition(|m| m.role == Role::User);
    let previous = last.and_then(|last| {
        let assistant = roles[..last]
            .iter()
            .rposition(|m| m.role == Role::Assistant)?;
        roles[..assistant]
            .iter()
            .rposition(|m| m.role == Role::User)
    });
    let mut plan = Plan::default();
    let mut take = |markable: bool| {
        let yes = free > 0 && markable;
        if yes {
            free -= 1;
        }
        yes
    };
    if let Some(last) = last
        && take(roles[last].part.markable())
    {
        plan.messages[0] = Some(last);
    }
    let has_system = r.system.is_some();
    let tools_markable = tools.is_some_and(|t| t.part.markable());
    if has_system {
        plan.system = take(r.system.is_some_and(|s| s.part.markable()));
    } else {
        plan.tools = take(tools_markable);
    }
    if let Some(previous) = previous
        && take(roles[previous].part.markable())
    {
        plan.messages[1] = Some(previous);
    }
    if has_system {
        plan.tools = take(tools_markable);
    }
    plan
}

/// The top-level keys of a Messages body, in the order serde writes a
/// [`MessagesRequest`].
#[derive(Debug, PartialEq)]
enum Key<'a> {
    Model,
    MaxTokens,
    Messages,
    System,
    Tools,
    ToolChoice,
    Stream,
    Temperature,
    StopSequences,
    Extra(&'a str, &'a Value),
}

/// The Messages API body for `r`: the request as serde writes it, with
/// `model` filled in when empty, `stream` as `stream` says (set, or removed
/// the way `serde_json::Map::remove` does: the last key takes its place),
/// and prompt-cache breakpoints when `prompt_cache` is on.
pub fn messages_body(
    r: &EncodedRequest<'_>,
    default_model: &str,
    stream: bool,
    prompt_cache: bool,
) -> Vec<u8> {
    let s = r.settings;
    let tools = r.tools.filter(|t| !t.is_empty());
    let mut keys = vec![Key::Model, Key::MaxTokens, Key::Messages];
    if r.system.is_some() {
        keys.push(Key::System);
    }
    if tools.is_some() {
        keys.push(Key::Tools);
    }
    if s.tool_choice.is_some() {
        keys.push(Key::ToolChoice);
    }
    if s.stream {
        keys.push(Key::Stream);
    }
    if s.temperature.is_some() {
        keys.push(Key::Temperature);
    }
    if !s.stop_sequences.is_empty() {
        keys.push(Key::StopSequences);
    }
    keys.extend(s.extra.iter().map(|(k, v)| Key::Extra(k, v)));
    match keys.iter().position(|k| *k == Key::Stream) {
        Some(i) if !stream => {
            keys.swap_remove(i);
        }
        None if stream => keys.push(Key::Stream),
        _ => {}
    }
    let plan = if prompt_cache {
        let top = s.extra.get("cache_control").is_some_and(|m| !m.is_null());
        plan_breakpoints(r, top)
    } else {
        Plan::default()
    };
    let size: usize = r.encoded.iter().map(|m| m.len() + 1).sum::<usize>()
        + r.system.map_or(0, |p| p.part.bytes.len())
        + tools.map_or(0, |p| p.part.bytes.len())
        + 256
        + 4 * MARKER.len();
    let mut out = Vec::with_capacity(size);
    out.push(b'{');
    for (i, key) in keys.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match key {
            Key::Model => {
                out.extend_from_slice(b"\"model\":");
                let model = if s.model.is_empty() {
                    default_model
                } else {
                    &s.model
                };
                put(&mut out, model);
            }
            Key::MaxTokens => {
                out.extend_from_slice(b"\"max_tokens\":");
                put(&mut out, &s.max_tokens);
            }
            Key::Messages => {
                out.extend_from_slice(b"\"messages\":[");
                for (j, m) in r.encoded.iter().enumerate() {
                    if j > 0 {
                        out.push(b',');
                    }
                    m.part.write(&mut out, plan.messages.contains(&Some(j)));
                }
                out.push(b']');
            }
            Key::System => {
                out.extend_from_slice(b"\"system\":");
                if let Some(system) = r.system {
                    system.part.write(&mut out, plan.system);
                }
            }
            Key::Tools => {
                out.extend_from_slice(b"\"tools\":");
                if let Some(tools) = tools {
                    tools.part.write(&mut out, plan.tools);
                }
            }
            Key::ToolChoice => {
                out.extend_from_slice(b"\"tool_choice\":");
                put(&mut out, &s.tool_choice);
            }
            Key::Stream => out.extend_from_slice(b"\"stream\":true"),
            Key::Temperature => {
                out.extend_from_slice(b"\"temperature\":");
                put(&mut out, &s.temperature);
            }
            Key::StopSequences => {
                out.extend_from_slice(b"\"stop_sequences\":");
                put(&mut out, &s.stop_sequences);
            }
            Key::Extra(k, v) => {
                put(&mut out, k);
                out.push(b':');
                put(&mut out, v);
            }
        }
    }
    out.push(b'}');
    out
}

// ---------------------------------------------------------------------------
// Chat Completions pieces (used by crate::openai)

#[derive(Serialize)]
struct ToolMessage<'a> {
    role: &'static str,
    tool_call_id: &'a str,
    content: &'a str,
}

#[derive(Serialize)]
#[serde(untagged)]
enum UserPart<'a> {
    Text {
        #[serde(rename = "type")]
        kind: &'static str,
        text: &'a str,
    },
    Image {
        #[serde(rename = "type")]
        kind: &'static str,
        image_url: ImageUrl,
    },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    name: &'a str,
    arguments: String,
}

#[derive(Serialize)]
struct ToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionCall<'a>,
}

/// The chat messages one message becomes, joined by commas (see
/// [`crate::openai`] for the rules).
pub(crate) fn chat_message(
    message: &Message,
    image_url: fn(&ImageBlock) -> Option<String>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let sep = |out: &mut Vec<u8>| {
        if !out.is_empty() {
            out.push(b',');
        }
    };
    match message.role {
        Role::User => {
            let mut parts: Vec<UserPart<'_>> = Vec::new();
            for block in &message.content {
                match block {
                    ContentBlock::ToolResult(result) => {
                        sep(&mut out);
                        let text = tool_text(result);
                        put(
                            &mut out,
                            &ToolMessage {
                                role: "tool",
                                tool_call_id: &result.tool_use_id,
                                content: &text,
                            },
                        );
                    }
                    ContentBlock::Text(t) => parts.push(UserPart::Text {
                        kind: "text",
                        text: &t.text,
                    }),
                    ContentBlock::Image(image) => {
                        if let Some(url) = image_url(image) {
                            parts.push(UserPart::Image {
                                kind: "image_url",
                                image_url: ImageUrl { url },
                            });
                        }
                    }
                    other => tracing::debug!(
                        block = other.kind(),
                        "dropping a block Chat Completions cannot carry"
                    ),
                }
            }
            if !parts.is_empty() {
                sep(&mut out);
                out.extend_from_slice(br#"{"role":"user","content":"#);
                if parts.iter().all(|p| matches!(p, UserPart::Text { .. })) {
                    let texts: Vec<&str> = parts
                        .iter()
                        .filter_map(|p| match p {
                            UserPart::Text { text, .. } => Some(*text),
                            UserPart::Image { .. } => None,
                        })
                        .collect();
                    put(&mut out, &texts.join("\n"));
                } else {
                    put(&mut out, &parts);
                }
                out.push(b'}');
            }
        }
        Role::Assistant => {
            let mut text = String::new();
            let mut calls = Vec::new();
            for block in &message.content {
                match block {
                    ContentBlock::Text(t) => text.push_str(&t.text),
                    ContentBlock::ToolUse(t) => calls.push(ToolCall {
                        id: &t.id,
                        kind: "function",
                        function: FunctionCall {
                            name: &t.name,
                            arguments: t.input.to_string(),
                        },
                    }),
                    _ => {} // thinking and server blocks cannot be sent back here
                }
            }
            out.extend_from_slice(br#"{"role":"assistant","content":"#);
            if text.is_empty() && !calls.is_empty() {
                out.extend_from_slice(b"null");
            } else {
                put(&mut out, &text);
            }
            if !calls.is_empty() {
                out.extend_from_slice(br#","tool_calls":"#);
                put(&mut out, &calls);
            }
            out.push(b'}');
        }
    }
    out
}

/// A tool result as the text of a `tool` message.
pub(crate) fn tool_text(result: &ToolResultBlock) -> String {
    let mut text = result.text();
    if let Some(ToolResultContent::Blocks(blocks)) = &result.content {
        // A tool search's references (a conversation begun on Anthropic's
        // API): the tools they name are sent as definitions here.
        for name in blocks.iter().filter_map(ContentBlock::referenced_tool) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("Tool loaded: {name}"));
        }
        let others = blocks
            .iter()
            .filter(|b| !matches!(b, ContentBlock::Text(_)) && b.referenced_tool().is_none())
            .count();
        if others > 0 {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!(
                "[{others} non-text block(s) omitted: this API takes only text in tool results]"
            ));
        }
    }
    if result.is_error {
        text = format!("Error: {text}");
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use tack_protocol::{Message, MessagesRequest, SystemPrompt, ToolDefinition};

    use super::{EncodedMessage, OwnedParts, WireFormat, messages_body};
    use crate::legacy;
    use crate::openai::{MaxTokensField, chat_body};

    fn message(v: Value) -> Message {
        serde_json::from_value(v).unwrap()
    }

    /// Text, tool_use, tool_result with text/image/error, thinking and
    /// redacted thinking, unknown blocks, string content, empty text, a turn
    /// of more than 20 blocks, a message with an extra field, markers set
    /// and null, and a trailing `pause_turn` assistant message.
    fn conversation() -> Vec<Message> {
        let wide_calls: Vec<Value> = (0..24)
            .map(|i| json!({"type": "tool_use", "id": format!("w{i}"), "name": "Read", "input": {"file_path": format!("/f{i}")}}))
            .collect();
        let wide_results: Vec<Value> = (0..24)
            .map(|i| json!({"type": "tool_result", "tool_use_id": format!("w{i}"), "content": [{"type": "text", "text": format!("line {i}\n\"quoted\" \u{e9}\u{1F600}")}]}))
            .collect();
        vec![
            message(json!({"role": "user", "content": "Fix the bug in main.rs, please."})),
            message(json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Let me look.", "signature": "EqQBsig"},
                {"type": "redacted_thinking", "data": "opaque=="},
                {"type": "text", "text": "Reading it."},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/src/main.rs", "limit": 20}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "cargo test 2>&1 | tail"}}
            ]})),
            message(json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "fn main() {}\n"},
                {"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": [
                    {"type": "text", "text": "exit 101"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
                ]},
                {"type": "text", "text": "   "},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
            ]})),
            message(json!({"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "rust"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "u", "title": "T"}]},
                {"type": "text", "text": "Found it.", "citations": [{"type": "web_search_result_location", "url": "u"}]},
                {"type": "tool_use", "id": "t3", "name": "Edit", "input": {}}
            ]})),
            message(json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t3"},
                {"type": "text", "text": "and this", "cache_control": null}
            ]})),
            message(json!({"role": "assistant", "content": wide_calls})),
            message(json!({"role": "user", "content": wide_results})),
            message(json!({"role": "assistant", "content": [
                {"type": "text", "text": ""},
                {"type": "tool_use", "id": "t4", "name": "Read", "input": {"n": 1.5, "neg": -3, "big": 12345678901234u64, "nested": {"a": [true, null]}}}
            ]})),
            message(json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t4", "content": [{"type": "text", "text": "ok"}], "cache_control": {"type": "ephemeral"}}
            ], "note": "an extra field"})),
            message(
                json!({"role": "assistant", "content": [{"type": "text", "text": "Done: the test passes."}]}),
            ),
            message(json!({"role": "user", "content": "Now search the web."})),
            message(json!({"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {"query": "tack"}}
            ]})),
        ]
    }

    fn tool(name: &str, extra: Value) -> ToolDefinition {
        let mut v = json!({"name": name, "description": format!("The {name} tool."),
            "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}});
        if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
            m.extend(e);
        }
        serde_json::from_value(v).unwrap()
    }

    fn systems() -> Vec<Option<SystemPrompt>> {
        vec![
            None,
            Some(SystemPrompt::Text("You are tack. Be \"brief\".\n".into())),
            Some(SystemPrompt::Text("  ".into())),
            Some(
                serde_json::from_value(json!([
                    {"type": "text", "text": "Part one."},
                    {"type": "text", "text": "Part two.", "cache_control": {"type": "ephemeral"}},
                    {"type": "text", "text": ""}
                ]))
                .unwrap(),
            ),
            Some(
                serde_json::from_value(
                    json!([{"type": "text", "text": "Only part.", "cache_control": null}]),
                )
                .unwrap(),
            ),
        ]
    }

    fn toolsets() -> Vec<Vec<ToolDefinition>> {
        vec![
            vec![],
            vec![tool("Read", json!({})), tool("Bash", json!({}))],
            vec![
                tool("Read", json!({})),
                tool("Late", json!({"defer_loading": true})),
            ],
            vec![
                tool("A", json!({"defer_loading": true})),
                tool("B", json!({"defer_loading": true})),
            ],
            vec![
                tool("A", json!({})),
                tool("B", json!({"cache_control": null})),
            ],
            vec![tool("A", json!({"cache_control": {"type": "ephemeral"}}))],
            vec![
                tool(
                    "Grep",
                    json!({"input_examples": [{"x": "fn\\s+main\\("}, {"x": "caf\u{e9} \"q\""}]}),
                ),
                tool("B", json!({"input_examples": []})),
            ],
        ]
    }

    fn settings(i: usize) -> MessagesRequest {
        let mut r = MessagesRequest {
            model: String::new(),
            max_tokens: 8192,
            messages: vec![],
            system: None,
            tools: vec![],
            tool_choice: None,
            stream: i.is_multiple_of(2),
            temperature: None,
            stop_sequences: vec![],
            extra: Default::default(),
        };
        if i % 3 == 1 {
            r.model = "claude-opus-4-1".into();
            r.tool_choice = Some(
                serde_json::from_value(json!({"type": "auto", "disable_parallel_tool_use": true}))
                    .unwrap(),
            );
            r.temperature = Some(0.3);
            r.stop_sequences = vec!["STOP".into()];
            r.extra.insert("metadata".into(), json!({"user_id": "u"}));
        }
        if i % 3 == 2 {
            r.tool_choice =
                Some(serde_json::from_value(json!({"type": "tool", "name": "Read"})).unwrap());
            r.extra.insert(
                "thinking".into(),
                json!({"type": "enabled", "budget_tokens": 2048}),
            );
        }
        r
    }

    /// Every prefix of the conversation, with every system prompt, tool set
    /// and request setting, through both paths: the same bytes.
    #[test]
    fn the_encoded_bodies_are_the_value_paths_bytes() {
        let all = conversation();
        let mut compared = 0;
        for n in 1..=all.len() {
            for (si, system) in systems().into_iter().enumerate() {
                for (ti, tools) in toolsets().into_iter().enumerate() {
                    for k in 0..3 {
                        let mut request = settings(k);
                        request.messages = all[..n].to_vec();
                        request.system = system.clone();
                        request.tools = tools.clone();
                        let messages_parts = OwnedParts::new(WireFormat::Messages, &request);
                        for stream in [true, false] {
                            for cache in [true, false] {
                                let new = messages_body(
                                    &messages_parts.request(&request),
                                    "claude-default",
                                    stream,
                                    cache,
                                );
                                let old = legacy::messages_body(
                                    &request,
                                    "claude-default",
                                    stream,
                                    cache,
                                );
                                assert_eq!(
                                    String::from_utf8_lossy(&new),
                                    String::from_utf8_lossy(&old),
                                    "Messages body: {n} messages, system {si}, tools {ti}, settings {k}, stream {stream}, cache {cache}"
                                );
                                compared += 1;
                            }
                        }
                        let chat_parts = OwnedParts::new(WireFormat::ChatCompletions, &request);
                        for stream in [true, false] {
                            for (field, key) in [
                                (MaxTokensField::MaxTokens, None),
                                (MaxTokensField::MaxCompletionTokens, Some("session-1")),
                            ] {
                                let new = chat_body(
                                    &chat_parts.request(&request),
                                    "gpt-x",
                                    stream,
                                    field,
                                    key,
                                );
                                let old = legacy::chat_body(&request, "gpt-x", stream, field, key);
                                assert_eq!(
                                    String::from_utf8_lossy(&new),
                                    String::from_utf8_lossy(&old),
                                    "Chat body: {n} messages, system {si}, tools {ti}, settings {k}, stream {stream}"
                                );
                                compared += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(compared, 12 * 5 * 7 * 3 * 8);
    }

    /// The breakpoints land where the cache module's rules say (a check
    /// that the comparison above compares marked bodies).
    #[test]
    fn marked_bodies_carry_the_markers() {
        let mut request = settings(0);
        request.messages = conversation()[..7].to_vec();
        request.system = Some(SystemPrompt::Text("S".into()));
        request.tools = toolsets()[1].clone();
        let parts = OwnedParts::new(WireFormat::Messages, &request);
        let body: Value =
            serde_json::from_slice(&messages_body(&parts.request(&request), "m", true, true))
                .unwrap();
        let marked = |v: &Value| v.get("cache_control") == Some(&json!({"type": "ephemeral"}));
        assert!(
            marked(&body["messages"][6]["content"][23]),
            "the newest user turn"
        );
        assert!(marked(&body["system"][0]), "the system prompt");
        assert!(
            marked(&body["messages"][4]["content"][1]),
            "the user turn before the newest assistant turn"
        );
        assert!(marked(&body["tools"][1]), "the last tool");
        assert_eq!(body.to_string().matches("cache_control").count(), 4);
    }

    /// A message's Messages encoding is its own JSON, as the transcript writes it.
    #[test]
    fn a_messages_encoding_is_the_messages_json() {
        for m in conversation() {
            let e = EncodedMessage::new(WireFormat::Messages, &m);
            assert_eq!(e.bytes(), serde_json::to_vec(&m).unwrap().as_slice());
            assert_eq!(e.len(), e.bytes().len());
        }
    }
}
