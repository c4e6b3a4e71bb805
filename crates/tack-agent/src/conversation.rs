//! The conversation of a session, kept with its encoded form.
//!
//! Every request sends the whole conversation. Encoding it anew per request
//! makes a turn cost more the longer the session; a [`Conversation`] encodes
//! each message once, when it joins, in the wire shape of the provider
//! ([`WireFormat`]), and a request body is assembled from those bytes
//! ([`tack_model::encoded`]). Within a request cycle messages are only
//! appended; compaction replaces one message ([`Conversation::replace`]) or
//! all of them ([`Conversation::reset`]), re-encoding only what changed.
//!
//! ```
//! use tack_agent::Conversation;
//! use tack_protocol::Message;
//!
//! let mut conversation = Conversation::new();
//! conversation.push(Message::user_text("hello"));
//! assert_eq!(conversation.len(), 1);
//! // A token estimate: bytes / 4.
//! assert!(conversation.encoded_len() > 0);
//! ```

use std::sync::Arc;

use tack_model::{EncodedMessage, EncodedRequest, EncodedSystem, EncodedTools, WireFormat};
use tack_protocol::{Message, MessagesRequest, SystemPrompt};
use tack_tool::ToolRegistry;

/// Messages with their encodings, in one wire shape.
#[derive(Debug, Clone)]
pub struct Conversation {
    messages: Vec<Message>,
    encoded: Vec<EncodedMessage>,
    format: WireFormat,
    encoded_len: usize,
}

impl Default for Conversation {
    fn default() -> Self {
        Self::new()
    }
}

impl Conversation {
    /// An empty conversation, encoded for the Messages API until
    /// [`Conversation::set_format`] says otherwise.
    pub fn new() -> Self {
        Self {
            messages: Vec::new(),
            encoded: Vec::new(),
            format: WireFormat::Messages,
            encoded_len: 0,
        }
    }

    pub fn from_messages(messages: Vec<Message>) -> Self {
        let mut conversation = Self::new();
        conversation.reset(messages);
        conversation
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The wire shape the messages are encoded in.
    pub fn format(&self) -> WireFormat {
        self.format
    }

    /// Encodes the messages for another wire shape (all of them, once:
    /// nothing happens when it is the current one).
    pub fn set_format(&mut self, format: WireFormat) {
        if format != self.format {
            self.format = format;
            let messages = std::mem::take(&mut self.messages);
            self.reset(messages);
        }
    }

    /// Appends a message, encoding it.
    pub fn push(&mut self, message: Message) {
        let encoded = EncodedMessage::new(self.format, &message);
        self.encoded_len += encoded.len();
        self.encoded.push(encoded);
        self.messages.push(message);
    }

    /// Replaces one message (compaction stubs old tool results); re-encodes
    /// only it. An index past the end is a caller's bug: it changes nothing
    /// (and is logged).
    pub fn replace(&mut self, index: usize, message: Message) {
        let (Some(slot), Some(old)) = (self.messages.get_mut(index), self.encoded.get_mut(index))
        else {
            tracing::error!(
                index,
                len = self.messages.len(),
                "Conversation::replace past the end; nothing replaced"
            );
            return;
        };
        let encoded = EncodedMessage::new(self.format, &message);
        self.encoded_len = self.encoded_len - old.len() + encoded.len();
        *old = encoded;
        *slot = message;
    }

    /// Replaces the whole list (a summary compaction).
    pub fn reset(&mut self, messages: Vec<Message>) {
        self.encoded = messages
            .iter()
            .map(|m| EncodedMessage::new(self.format, m))
            .collect();
        self.encoded_len = self.encoded.iter().map(EncodedMessage::len).sum();
        self.messages = messages;
    }

    /// Bytes of the encoded messages, kept up to date incrementally (a token
    /// estimate is bytes/4).
    pub fn encoded_len(&self) -> usize {
        self.encoded_len
    }

    /// The messages as encoded (one per message, in order).
    pub fn encoded(&self) -> &[EncodedMessage] {
        &self.encoded
    }

    /// A request of this conversation: `settings` gives the other fields (its
    /// own `messages`, `system` and `tools` are ignored).
    pub fn request<'a>(
        &'a self,
        settings: &'a MessagesRequest,
        system: Option<&'a EncodedSystem>,
        tools: Option<&'a EncodedTools>,
    ) -> EncodedRequest<'a> {
        EncodedRequest {
            settings,
            system,
            tools,
            messages: &self.messages,
            encoded: &self.encoded,
        }
    }
}

/// The system prompt and tool definitions of a session, encoded once and
/// again only when they change: the system prompt when its text does, the
/// tools when the registry is another one (the registry is copied and
/// added to when a tool joins; the `Arc` held here keeps the one encoded
/// from changing under it).
#[derive(Debug, Default)]
pub(crate) struct EncodedPrefix {
    system: Option<EncodedSystem>,
    /// The registry encoded, how many deferred tools were sent whole, and
    /// the encoding.
    tools: Option<(Arc<ToolRegistry>, usize, EncodedTools)>,
    /// The bytes of the tools that take room in the model's context: all
    /// of them, or with an API that loads deferred tools itself, those not
    /// deferred and those revealed.
    tools_in_context: usize,
}

impl EncodedPrefix {
    /// Brings the encodings up to date for `format`, `system` and `registry`.
    pub(crate) fn refresh(
        &mut self,
        format: WireFormat,
        system: Option<&str>,
        registry: Arc<ToolRegistry>,
        deferring: bool,
        loaded: &std::collections::BTreeSet<String>,
    ) {
        let same_system = match (&self.system, system) {
            (None, None) => true,
            (Some(encoded), Some(text)) => {
                encoded.format() == format
                    && matches!(encoded.source(), SystemPrompt::Text(t) if t == text)
            }
            _ => false,
        };
        if !same_system {
            self.system =
                system.map(|text| EncodedSystem::new(format, SystemPrompt::Text(text.to_owned())));
        }
        let same_tools = self.tools.as_ref().is_some_and(|(held, pinned, encoded)| {
            Arc::ptr_eq(held, &registry) && *pinned == loaded.len() && encoded.format() == format
        });
        if !same_tools {
            let definitions = if deferring {
                registry.deferring_definitions(loaded)
            } else {
                registry.definitions()
            };
            let tools = EncodedTools::new(format, definitions);
            self.tools_in_context = if deferring && registry.has_deferred() {
                registry
                    .definitions()
                    .iter()
                    .map(|d| serde_json::to_vec(d).map_or(0, |v| v.len() + 1))
                    .sum()
            } else {
                tools.bytes().len()
            };
            self.tools = Some((registry, loaded.len(), tools));
        }
    }

    pub(crate) fn system(&self) -> Option<&EncodedSystem> {
        self.system.as_ref()
    }

    /// See the field: what the tools take of the context window, in bytes.
    pub(crate) fn tools_in_context(&self) -> usize {
        self.tools_in_context
    }

    pub(crate) fn tools(&self) -> Option<&EncodedTools> {
        self.tools.as_ref().map(|(_, _, tools)| tools)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tack_model::legacy;
    use tack_protocol::{ContentBlock, Message, MessagesRequest, SystemPrompt, ToolResultBlock};

    use super::*;

    fn settings() -> MessagesRequest {
        MessagesRequest {
            model: "m".into(),
            max_tokens: 100,
            messages: vec![],
            system: None,
            tools: vec![],
            tool_choice: None,
            stream: true,
            temperature: None,
            stop_sequences: vec![],
            extra: Default::default(),
        }
    }

    fn turn(i: usize) -> [Message; 2] {
        [
            Message::assistant(vec![ContentBlock::ToolUse(tack_protocol::ToolUseBlock {
                id: format!("t{i}"),
                name: "Read".into(),
                input: json!({"file_path": format!("/f{i}")}),
                extra: Default::default(),
            })]),
            Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
                format!("t{i}"),
                vec![ContentBlock::text(format!("contents of file {i}"))],
                false,
            ))]),
        ]
    }

    /// What the old path sends for `messages`, and what the conversation sends.
    fn bodies(c: &Conversation) -> (Vec<u8>, Vec<u8>) {
        let system = EncodedSystem::new(c.format(), SystemPrompt::Text("Be brief.".into()));
        let s = settings();
        let request = c.request(&s, Some(&system), None);
        let new = match c.format() {
            WireFormat::Messages => tack_model::encoded::messages_body(&request, "d", true, true),
            _ => tack_model::openai::chat_body(
                &request,
                "d",
                true,
                tack_model::openai::MaxTokensField::MaxTokens,
                None,
            ),
        };
        let mut whole = s.clone();
        whole.messages = c.messages().to_vec();
        whole.system = Some(SystemPrompt::Text("Be brief.".into()));
        let old = match c.format() {
            WireFormat::Messages => legacy::messages_body(&whole, "d", true, true),
            _ => legacy::chat_body(
                &whole,
                "d",
                true,
                tack_model::openai::MaxTokensField::MaxTokens,
                None,
            ),
        };
        (new, old)
    }

    fn expected_len(c: &Conversation) -> usize {
        c.messages()
            .iter()
            .map(|m| EncodedMessage::new(c.format(), m).len())
            .sum()
    }

    #[test]
    fn push_replace_and_reset_keep_the_length_and_the_body_right() {
        for format in [WireFormat::Messages, WireFormat::ChatCompletions] {
            let mut c = Conversation::new();
            c.set_format(format);
            c.push(Message::user_text("go"));
            for i in 0..30 {
                for m in turn(i) {
                    c.push(m);
                }
                assert_eq!(c.encoded_len(), expected_len(&c));
                let (new, old) = bodies(&c);
                assert_eq!(String::from_utf8(new), String::from_utf8(old));
            }
            assert_eq!(c.len(), 61);
            let before = c.encoded_len();
            let stub = Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
                "t0",
                vec![ContentBlock::text("[stubbed]")],
                false,
            ))]);
            c.replace(2, stub.clone());
            assert_eq!(c.messages()[2], stub);
            assert!(c.encoded_len() < before, "the stub is shorter");
            assert_eq!(c.encoded_len(), expected_len(&c));
            let (new, old) = bodies(&c);
            assert_eq!(new, old);
            let snapshot = c.messages().to_vec();
            c.replace(61, stub);
            assert_eq!(
                c.messages(),
                snapshot.as_slice(),
                "past the end: nothing changes"
            );
            assert_eq!(c.encoded_len(), expected_len(&c));

            let kept: Vec<Message> = c.messages()[55..].to_vec();
            let mut summary = vec![Message::user_text("summary of turns 1-27")];
            summary.extend(kept);
            c.reset(summary);
            assert_eq!(c.len(), 7);
            assert_eq!(c.encoded_len(), expected_len(&c));
            let (new, old) = bodies(&c);
            assert_eq!(new, old);
            assert_eq!(c.encoded().len(), c.len());
        }
    }

    #[test]
    fn changing_the_format_re_encodes_everything() {
        let mut c = Conversation::from_messages(turn(1).to_vec());
        let messages_len = c.encoded_len();
        c.set_format(WireFormat::ChatCompletions);
        assert_eq!(c.format(), WireFormat::ChatCompletions);
        assert_ne!(c.encoded_len(), messages_len);
        assert!(
            c.encoded()
                .iter()
                .all(|e| e.format() == WireFormat::ChatCompletions)
        );
        assert_eq!(c.encoded_len(), expected_len(&c));
        c.set_format(WireFormat::Messages);
        assert_eq!(c.encoded_len(), messages_len);
    }

    #[test]
    fn an_empty_conversation() {
        let c = Conversation::default();
        assert!(c.is_empty());
        assert_eq!(c.encoded_len(), 0);
        assert!(c.messages().is_empty());
    }
}
