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
    /// The tool ran and reported a failure it does not classify further (a
    /// declared command's non-zero exit code with no class of its own).
    Failed,
}

/// A permission verdict, shared by the policy, hooks and the audit trail.
/// Ordered so the strictest of several wins with `max()`: allow < ask < deny.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Run it.
    #[default]
    Allow,
    /// Ask the user first (deny when nobody can be asked).
    Ask,
    /// Do not run it.
    Deny,
}

impl Verdict {
    /// The settings spelling: `allow`, `ask`, `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the permission stage decided for one call, as the audit trail records it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditDecision {
    /// The call was allowed (by a rule, a mode, a hook or the user).
    Allow,
    /// The call was refused.
    Deny,
    /// The call stopped before the permission stage (unknown tool, invalid input).
    #[default]
    NotReached,
    /// Not recorded: the session stopped (tack was killed) before the call's
    /// record was written; the record was made when the session resumed.
    Unknown,
}

impl std::fmt::Display for AuditDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for AuditDecision {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl AuditDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            AuditDecision::Allow => "allow",
            AuditDecision::Deny => "deny",
            AuditDecision::NotReached => "not_reached",
            AuditDecision::Unknown => "unknown",
        }
    }
}

/// The tool call that made a nested call (code mode, a tool calling tools
/// through the host handle in its context).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Caller {
    /// The outer tool's name.
    pub tool: String,
    /// The outer call's tool_use id.
    pub tool_use_id: String,
}

/// How a run of the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The model ended its turn (end_turn or stop_sequence).
    Completed,
    /// The model refused.
    Refusal,
    /// The response hit max_tokens.
    MaxTokens,
    /// The turn limit was reached while the model still wanted tools.
    MaxTurns,
    /// The user interrupted (Ctrl-C).
    Interrupted,
    /// The model API failed (after retries).
    ModelError,
    /// A hook blocked the prompt or stopped the session (`continue: false`).
    HookStopped,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Refusal => "refusal",
            RunStatus::MaxTokens => "max_tokens",
            RunStatus::MaxTurns => "max_turns",
            RunStatus::Interrupted => "interrupted",
            RunStatus::ModelError => "model_error",
            RunStatus::HookStopped => "hook_stopped",
        }
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The audit trail of one tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The input as executed (after hook rewrites).
    pub input: Value,
    /// What the permission stage decided.
    pub decision: AuditDecision,
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
    /// The tool call that made this one, for a call made from inside a tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<Caller>,
    /// Set when the call did not finish: how it was stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interruption>,
    /// How long the permission stage took when it was 1 ms or more: in
    /// practice the time a person took to answer the prompt. The call's
    /// `duration_ms` does not count it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_wait_ms: Option<u64>,
    /// What the call's processes ran under: the OS sandbox's profile
    /// (`landlock v7 + namespaces + seccomp; network off; write …`), or
    /// `unsandboxed: …` with why. Absent for a tool that starts none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// The skill a Skill call loaded, and what it cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<SkillLoad>,
    /// The exact argv a command tool ran (argv\[0\] absolute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// What a tool search found and loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<Discovery>,
}

/// A tool search as its audit record says: the query, the tools it
/// returned (best first) and those whose definitions it loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discovery {
    pub query: String,
    /// The tools returned, as the model calls them, best first.
    #[serde(default)]
    pub found: Vec<String>,
    /// Those loaded by this search (the others were loaded before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded: Vec<String>,
    /// How many deferred tools the search ranked.
    #[serde(default)]
    pub searched: usize,
}

/// A skill loaded by a call, as its audit record says: an evaluation
/// compares runs with and without a skill by these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillLoad {
    /// The name the model called it by.
    pub name: String,
    /// managed, user, project or mcp.
    pub scope: String,
    /// Its `SKILL.md`, or the MCP server and URI.
    pub location: String,
    /// Estimated tokens of what the call returned.
    pub tokens: u64,
    /// The skill was already loaded in this conversation: only a reminder
    /// was sent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
    /// The skill's `allowed-tools` (shown to the model; they grant nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
}

/// How a call that did not finish was stopped, as its audit record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Interruption {
    /// Cancelled (Ctrl-C, or the caller of a served call) before or while it
    /// ran; its answer says so.
    Cancelled,
    /// The session stopped before the call's result was recorded (tack was
    /// killed, or the transcript line was lost); the conversation was mended
    /// with an answer saying so when the session resumed, and this record
    /// written then.
    Unfinished,
}

impl Interruption {
    pub fn as_str(self) -> &'static str {
        match self {
            Interruption::Cancelled => "cancelled",
            Interruption::Unfinished => "unfinished",
        }
    }
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
    /// The conversation so far was repaired on resume (a damaged or missing
    /// line had left it invalid for the model API): from here on it is
    /// `messages`, followed by the `message` events after this one.
    ConversationRepaired {
        messages: Vec<Message>,
        /// What was changed, one line per fix, for a person.
        repairs: Vec<String>,
    },
    /// The conversation was compacted to fit the model's context window:
    /// from here on it is `messages`, followed by the `message` events after
    /// this one. The messages before stay in the transcript, untouched.
    Compaction {
        /// `auto` (the threshold was crossed), `manual` (asked for) or
        /// `overflow` (the API said the prompt was too long).
        trigger: String,
        /// Why, for a person: e.g. "84,000 of 100,000 tokens (over the 80% threshold)".
        reason: String,
        /// The stages that ran, cheapest first: `tool_results`, `summary`,
        /// `fallback` (the summary request failed; older turns were dropped
        /// with a list of what they did).
        stages: Vec<String>,
        /// The estimated size of the next request before and after, in tokens.
        tokens_before: u64,
        tokens_after: u64,
        /// Old tool results replaced by a stub naming their artifact.
        #[serde(default)]
        cleared_tool_results: u32,
        /// Messages folded into the summary.
        #[serde(default)]
        summarized_messages: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        /// Tokens the summary request used (counted in the session's usage).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        messages: Vec<Message>,
    },
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
        /// What ran and who allowed it (absent for calls answered without
        /// dispatch). Boxed: the record is most of the event's size.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        audit: Option<Box<AuditRecord>>,
        /// The tool's whole output in Claude Code's shape
        /// (`tack_tool::ToolOutput::response`: stream-json's
        /// `tool_use_result`), for listeners in this process; None for a
        /// tool without one (its content array stands in). Never written
        /// to a transcript (the content is; a large Read would be stored
        /// twice), so a loaded event has None.
        #[serde(skip)]
        response: Option<serde_json::Value>,
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
        /// Why the run ended.
        status: RunStatus,
        text: String,
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Requests made in the whole session, earlier runs included.
        session_turns: u32,
        /// Tokens used in the whole session, earlier runs included.
        session_usage: Usage,
    },
    /// A sub-agent (the Agent tool) started. The first event of the
    /// sub-agent's own transcript, and recorded in the parent's too: the
    /// link between the two.
    SubagentStart {
        agent_id: String,
        agent_type: String,
        /// The Agent call's `description`.
        description: String,
        parent_session_id: String,
        /// The parent's Agent tool_use that runs this sub-agent.
        parent_tool_use_id: String,
        /// The sub-agent's transcript.
        transcript_path: String,
    },
    /// A sub-agent ended (recorded in the parent's transcript, before the
    /// Agent call's tool_result).
    SubagentStop {
        agent_id: String,
        parent_tool_use_id: String,
        status: RunStatus,
        /// Model requests the sub-agent made.
        turns: u32,
        /// Tokens the sub-agent used (counted in the parent's usage too).
        usage: Usage,
        /// Tool calls the sub-agent made.
        tool_uses: u32,
        duration_ms: u64,
        transcript_path: String,
    },
    /// An MCP server asked the session's model for a completion
    /// (`sampling/createMessage`): the audit trail of sampling, allowed or not.
    McpSampling {
        server: String,
        decision: AuditDecision,
        /// Why it was refused, or the grant that allowed it.
        decided_by: String,
        /// The `maxTokens` sent to the model (0 when refused).
        max_tokens: u32,
        /// Tokens the completion used, input and output.
        #[serde(default)]
        usage: Usage,
        /// What the server has used of its budget in this session, this request included.
        budget_used: u64,
        budget: u64,
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
