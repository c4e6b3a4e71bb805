//! Wire types of tack, in the shape of the Anthropic Messages API.
//!
//! Every provider is translated to and from these types, so the loop, the
//! transcript and the printers speak one language. The key design decision is
//! **lossless round trips**: fields tack does not know are kept in an `extra`
//! map on every struct, and content blocks of an unknown `type` are kept as raw
//! JSON ([`ContentBlock::Unknown`]). `thinking` and `redacted_thinking` blocks
//! are carried verbatim so they can be passed back unchanged.
//!
//! ```
//! use tack_protocol::{ContentBlock, Message};
//! let m: Message = serde_json::from_str(
//!     r#"{"role":"assistant","content":[{"type":"fancy_new_block","x":1},{"type":"text","text":"hi","citations":[]}]}"#,
//! ).unwrap();
//! assert!(matches!(m.content[0], ContentBlock::Unknown(_)));
//! let back = serde_json::to_string(&m).unwrap();
//! assert!(back.contains("fancy_new_block") && back.contains("citations"));
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

mod event;
pub mod exit;
pub mod places;
pub mod suggest;
pub use event::{
    AuditDecision, AuditRecord, Caller, Discovery, Interruption, RunStatus, SessionEvent,
    SkillLoad, ToolOutcome, Verdict,
};

/// Fields tack does not model, kept so they survive a round trip.
pub type Extra = Map<String, Value>;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One message of a conversation. A string `content` on the wire is read as
/// one text block; content is always written as blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    #[serde(deserialize_with = "content_from_string_or_blocks")]
    pub content: Vec<ContentBlock>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Message {
    pub fn user(content: Vec<ContentBlock>) -> Self {
        Self {
            role: Role::User,
            content,
            extra: Extra::new(),
        }
    }

    pub fn user_text(text: impl Into<String>) -> Self {
        Self::user(vec![ContentBlock::text(text)])
    }

    pub fn assistant(content: Vec<ContentBlock>) -> Self {
        Self {
            role: Role::Assistant,
            content,
            extra: Extra::new(),
        }
    }

    /// The tool_use blocks of this message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUseBlock> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse(t) => Some(t),
            _ => None,
        })
    }

    /// All text blocks joined.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let ContentBlock::Text(t) = block {
                out.push_str(&t.text);
            }
        }
        out
    }
}

fn content_from_string_or_blocks<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<ContentBlock>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Blocks(Vec<ContentBlock>),
    }
    Ok(match Either::deserialize(d)? {
        Either::Text(text) => vec![ContentBlock::text(text)],
        Either::Blocks(blocks) => blocks,
    })
}

/// A content block. Unknown block types are kept verbatim in `Unknown`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text(TextBlock),
    Image(ImageBlock),
    ToolUse(ToolUseBlock),
    ToolResult(ToolResultBlock),
    Thinking(ThinkingBlock),
    RedactedThinking(RedactedThinkingBlock),
    /// Any other block (server tools, documents, future types): passed through unchanged.
    #[serde(untagged)]
    Unknown(Value),
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextBlock {
            text: text.into(),
            extra: Extra::new(),
        })
    }

    /// A `tool_reference` block: in a tool result, it loads the named
    /// `defer_loading` tool's definition (Anthropic's tool search).
    pub fn tool_reference(name: impl Into<String>) -> Self {
        ContentBlock::Unknown(
            serde_json::json!({"type": "tool_reference", "tool_name": name.into()}),
        )
    }

    /// The tool a `tool_reference` block names.
    pub fn referenced_tool(&self) -> Option<&str> {
        match self {
            ContentBlock::Unknown(v)
                if v.get("type").and_then(Value::as_str) == Some("tool_reference") =>
            {
                v.get("tool_name").and_then(Value::as_str)
            }
            _ => None,
        }
    }

    /// The `type` this block has on the wire.
    pub fn kind(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::ToolUse(_) => "tool_use",
            ContentBlock::ToolResult(_) => "tool_result",
            ContentBlock::Thinking(_) => "thinking",
            ContentBlock::RedactedThinking(_) => "redacted_thinking",
            ContentBlock::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or("unknown"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBlock {
    pub text: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// An image; `source` is `{type: base64, media_type, data}` or `{type: url, url}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageBlock {
    pub source: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ImageBlock {
    pub fn base64(media_type: &str, data: String) -> Self {
        let mut source = Map::new();
        source.insert("type".into(), "base64".into());
        source.insert("media_type".into(), media_type.into());
        source.insert("data".into(), data.into());
        Self {
            source: Value::Object(source),
            extra: Extra::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    pub id: String,
    pub name: String,
    pub input: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    pub tool_use_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ToolResultContent>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ToolResultBlock {
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>, is_error: bool) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: Some(ToolResultContent::Blocks(content)),
            is_error,
            extra: Extra::new(),
        }
    }

    pub fn error(tool_use_id: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(tool_use_id, vec![ContentBlock::text(message)], true)
    }

    /// The text of the result, blocks joined with newlines.
    pub fn text(&self) -> String {
        match &self.content {
            None => String::new(),
            Some(ToolResultContent::Text(t)) => t.clone(),
            Some(ToolResultContent::Blocks(blocks)) => {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect();
                texts.join("\n")
            }
        }
    }
}

/// `tool_result.content`: a string or a list of blocks, kept as it came.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingBlock {
    pub thinking: String,
    #[serde(default)]
    pub signature: String,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RedactedThinkingBlock {
    pub data: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub input_schema: Value,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The key of a definition's example inputs, as the Anthropic Messages API
/// names it; a wire without the field gets them in the description
/// ([`ToolDefinition::description_with_examples`]).
pub const INPUT_EXAMPLES: &str = "input_examples";

impl ToolDefinition {
    /// The description for a wire with no field for example inputs (Chat
    /// Completions, MCP): the description, then, when the tool has examples,
    /// a last paragraph `Examples:` with one compact JSON object a line.
    /// `None` when the tool has neither. The same definition always gives the
    /// same text, so successive requests stay byte-identical.
    ///
    /// ```
    /// use tack_protocol::ToolDefinition;
    /// let def: ToolDefinition = serde_json::from_value(serde_json::json!({
    ///     "name": "t", "description": "Does it.", "input_schema": {"type": "object"},
    ///     "input_examples": [{"a": 1}]
    /// })).unwrap();
    /// assert_eq!(def.description_with_examples().unwrap(), "Does it.\n\nExamples:\n{\"a\":1}");
    /// ```
    pub fn description_with_examples(&self) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        let examples = self
            .extra
            .get(INPUT_EXAMPLES)
            .and_then(Value::as_array)
            .filter(|e| !e.is_empty());
        let Some(examples) = examples else {
            return self.description.as_deref().map(Cow::Borrowed);
        };
        let mut text = self.description.clone().unwrap_or_default();
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str("Examples:");
        for example in examples {
            text.push('\n');
            text.push_str(&example.to_string());
        }
        Some(Cow::Owned(text))
    }
}

/// How the model may use tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    Auto {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    Any {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    Tool {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    None,
}

impl ToolChoice {
    pub fn disable_parallel(&self) -> bool {
        match self {
            ToolChoice::Auto {
                disable_parallel_tool_use,
            }
            | ToolChoice::Any {
                disable_parallel_tool_use,
            }
            | ToolChoice::Tool {
                disable_parallel_tool_use,
                ..
            } => disable_parallel_tool_use.unwrap_or(false),
            ToolChoice::None => false,
        }
    }
}

/// Token counts. `input_tokens` excludes cached tokens; the total input is the sum
/// of the three input fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Every input token of the requests: uncached, read from the cache and
    /// written to it.
    pub fn input_total(&self) -> u64 {
        self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens
    }

    /// The percentage of the input read from the prompt cache (None with no
    /// input yet).
    pub fn cache_read_percent(&self) -> Option<f64> {
        let total = self.input_total();
        (total > 0).then(|| 100.0 * self.cache_read_input_tokens as f64 / total as f64)
    }

    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
    }
}

/// Why the model stopped. Unknown reasons are kept as [`StopReason::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    StopSequence,
    ToolUse,
    PauseTurn,
    Refusal,
    ModelContextWindowExceeded,
    Other(String),
}

impl StopReason {
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::ToolUse => "tool_use",
            StopReason::PauseTurn => "pause_turn",
            StopReason::Refusal => "refusal",
            StopReason::ModelContextWindowExceeded => "model_context_window_exceeded",
            StopReason::Other(s) => s,
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "end_turn" => StopReason::EndTurn,
            "max_tokens" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "tool_use" => StopReason::ToolUse,
            "pause_turn" => StopReason::PauseTurn,
            "refusal" => StopReason::Refusal,
            "model_context_window_exceeded" => StopReason::ModelContextWindowExceeded,
            other => StopReason::Other(other.to_owned()),
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(StopReason::parse(&s))
    }
}

/// The system prompt: a string or text blocks (for cache_control).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SystemPrompt {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl SystemPrompt {
    pub fn text(&self) -> String {
        match self {
            SystemPrompt::Text(t) => t.clone(),
            SystemPrompt::Blocks(b) => Message::assistant(b.clone()).text(),
        }
    }
}

/// A request to the Messages API (`POST /v1/messages`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest {
    pub model: String,
    pub max_tokens: u32,
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<SystemPrompt>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A response of the Messages API (the assistant message plus metadata).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageResponse {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub model: String,
    #[serde(default = "assistant_role")]
    pub role: Role,
    #[serde(deserialize_with = "content_from_string_or_blocks")]
    pub content: Vec<ContentBlock>,
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    #[serde(default)]
    pub stop_sequence: Option<String>,
    #[serde(default)]
    pub usage: Usage,
    #[serde(flatten)]
    pub extra: Extra,
}

fn assistant_role() -> Role {
    Role::Assistant
}

impl MessageResponse {
    /// The assistant message to append to the conversation (content verbatim).
    pub fn to_message(&self) -> Message {
        Message::assistant(self.content.clone())
    }
}

/// A valid tool name for the model APIs: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `part` with every character a tool name may not hold (see
/// [`is_valid_tool_name`]) made `_`: how an MCP server's and tool's names
/// become parts of the name the model sees, and so how a permission rule
/// that names them is read.
pub fn tool_name_part(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_blocks_and_fields_round_trip() {
        let wire = json!({
            "role": "assistant",
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}},
                {"type": "text", "text": "hi", "citations": [{"a": 1}]},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"p": 1}, "caller": {"type": "direct"}},
                {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "opaque"}
            ],
            "future_field": true
        });
        let msg: Message = serde_json::from_value(wire.clone()).unwrap();
        assert!(matches!(msg.content[0], ContentBlock::Unknown(_)));
        assert!(matches!(msg.content[1], ContentBlock::Text(_)));
        assert!(matches!(msg.content[2], ContentBlock::ToolUse(_)));
        assert!(matches!(msg.content[3], ContentBlock::Thinking(_)));
        assert!(matches!(msg.content[4], ContentBlock::RedactedThinking(_)));
        assert_eq!(serde_json::to_value(&msg).unwrap(), wire);
    }

    #[test]
    fn string_content_reads_as_one_text_block() {
        let msg: Message =
            serde_json::from_value(json!({"role":"user","content":"hello"})).unwrap();
        assert_eq!(msg.content, vec![ContentBlock::text("hello")]);
    }

    #[test]
    fn tool_result_content_string_or_blocks() {
        for wire in [
            json!({"type":"tool_result","tool_use_id":"t","content":"ok"}),
            json!({"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}],"is_error":true}),
            json!({"type":"tool_result","tool_use_id":"t"}),
        ] {
            let block: ContentBlock = serde_json::from_value(wire.clone()).unwrap();
            assert!(matches!(block, ContentBlock::ToolResult(_)), "{wire}");
            assert_eq!(serde_json::to_value(&block).unwrap(), wire);
        }
    }

    #[test]
    fn stop_reasons_round_trip_including_unknown() {
        for s in [
            "end_turn",
            "max_tokens",
            "stop_sequence",
            "tool_use",
            "pause_turn",
            "refusal",
            "model_context_window_exceeded",
            "brand_new",
        ] {
            let r: StopReason = serde_json::from_value(json!(s)).unwrap();
            assert_eq!(serde_json::to_value(&r).unwrap(), json!(s));
        }
        assert_eq!(
            StopReason::parse("brand_new"),
            StopReason::Other("brand_new".into())
        );
    }

    #[test]
    fn tool_choice_wire_shapes() {
        let cases = [
            (
                ToolChoice::Auto {
                    disable_parallel_tool_use: None,
                },
                json!({"type":"auto"}),
            ),
            (
                ToolChoice::Any {
                    disable_parallel_tool_use: Some(true),
                },
                json!({"type":"any","disable_parallel_tool_use":true}),
            ),
            (
                ToolChoice::Tool {
                    name: "Read".into(),
                    disable_parallel_tool_use: None,
                },
                json!({"type":"tool","name":"Read"}),
            ),
            (ToolChoice::None, json!({"type":"none"})),
        ];
        for (choice, wire) in cases {
            assert_eq!(serde_json::to_value(&choice).unwrap(), wire);
            assert_eq!(serde_json::from_value::<ToolChoice>(wire).unwrap(), choice);
        }
    }

    #[test]
    fn response_with_cache_usage() {
        let resp: MessageResponse = serde_json::from_value(json!({
            "id":"msg_1","type":"message","role":"assistant","content":[],"model":"m",
            "stop_reason":"tool_use","stop_sequence":null,
            "usage":{"input_tokens":3,"output_tokens":5,"cache_creation_input_tokens":7,"cache_read_input_tokens":11,"service_tier":"standard"}
        }))
        .unwrap();
        assert_eq!(resp.stop_reason, Some(StopReason::ToolUse));
        assert_eq!(resp.usage.cache_read_input_tokens, 11);
        assert_eq!(resp.extra.get("type"), Some(&json!("message")));
    }

    #[test]
    fn tool_names() {
        assert!(is_valid_tool_name("mcp__fs__read_file"));
        assert!(!is_valid_tool_name("a.b"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name(&"a".repeat(65)));
    }
}
