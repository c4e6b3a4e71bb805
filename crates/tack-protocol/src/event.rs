//! The session event stream: what the agent emits, what the transcript stores
//! (one JSON object per line) and what `--output-format stream-json` prints.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ContentBlock, Message, StopReason, Usage};

/// How one tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    Ok,
    InvalidInput,
    UnknownTool,
    Denied,
    Timeout,
    Transient,
    Unavailable,
    Internal,
    Interrupted,
    NotRun,
}

/// The audit trail of one tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The input as executed (after hook rewrites).
    pub input: Value,
    /// allow, deny, or not_reached (the call stopped before the permission stage).
    pub decision: String,
    /// What decided: the rule and its file, the hook command, the user's answer or the mode.
    pub decided_by: String,
    /// Hooks that rewrote the input, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewritten_by: Vec<String>,
    /// Hash of the tool definition the model saw.
    #[serde(default)]
    pub definition_hash: String,
    /// When the call entered the pipeline, in ms since the Unix epoch.
    pub started_ms: u64,
    /// Artifacts holding the full output when it was cut.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<String>,
}

/// One event of a session. Events marked ephemeral ([`SessionEvent::is_ephemeral`])
/// are streamed to consumers but not written to the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// A session started or was resumed.
    SessionStart {
        session_id: String,
        cwd: String,
        provider: String,
        model: String,
        tools: Vec<String>,
        #[serde(default)]
        resumed: bool,
        time: String,
        version: String,
    },
    /// A message appended to the conversation. The conversation of a session is
    /// exactly the sequence of these events.
    Message { message: Message },
    /// Text as it streams from the model.
    TextDelta { text: String },
    /// The provider retries a request (the previous attempt's deltas are void).
    Retry {
        attempt: u32,
        delay_ms: u64,
        reason: String,
    },
    /// A tool call is about to run.
    ToolCall {
        id: String,
        name: String,
        input: Value,
    },
    /// A running tool says how far it has got (ephemeral).
    ToolProgress {
        tool_use_id: String,
        name: String,
        progress: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A tool call finished (or was answered without running).
    ToolResult {
        tool_use_id: String,
        name: String,
        outcome: ToolOutcome,
        is_error: bool,
        content: Vec<ContentBlock>,
        duration_ms: u64,
        /// What ran and who allowed it (absent for calls answered without dispatch).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        audit: Option<AuditRecord>,
    },
    /// One model response was handled.
    TurnEnd {
        turn: u32,
        stop_reason: StopReason,
        usage: Usage,
    },
    /// The run ended.
    Result {
        session_id: String,
        /// Model requests made in this run.
        turns: u32,
        /// Tokens used in this run.
        usage: Usage,
        stop_reason: Option<StopReason>,
        /// Why the run ended: completed, max_turns, interrupted, refusal, error, max_tokens.
        status: String,
        text: String,
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Requests made in the whole session, earlier runs included.
        session_turns: u32,
        /// Tokens used in the whole session, earlier runs included.
        session_usage: Usage,
    },
}

impl SessionEvent {
    /// Streamed but not stored.
    pub fn is_ephemeral(&self) -> bool {
        matches!(
            self,
            SessionEvent::TextDelta { .. } | SessionEvent::ToolProgress { .. }
        )
    }
}
