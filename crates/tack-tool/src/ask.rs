//! A per-call way for the permission stage to reach the person at the
//! caller's end: [`CallAsker`], carried by [`CallOptions::asker`](crate::CallOptions::asker).
//!
//! A call made by an MCP client of `tack mcp serve` has no terminal behind it,
//! but the client may have a person behind it (Claude Code, an IDE) and a
//! way to ask them (MCP elicitation). The server builds an asker for each
//! call from such a client; when a permission rule says "ask", the
//! permission stage asks through it before (and instead of) the session's
//! own prompter, offering the same choices as tack's prompt.

use async_trait::async_trait;
use serde_json::Value;

/// What the person is asked about one call (as tack's own prompt shows it).
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionQuestion {
    /// The call, e.g. `Bash(git push origin main)`.
    pub call: String,
    /// Why it asks (the rule and its file, or the mode).
    pub reason: String,
    /// The rule "allow for this session" adds; `None` when only managed
    /// rules count, so no rule of the person's would apply (no such choice).
    pub session_rule: Option<String>,
    /// The call may delete or overwrite data.
    pub destructive: bool,
    /// The tool and its input as it would run.
    pub tool_name: String,
    pub input: Value,
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PermissionReply {
    /// Run this call.
    AllowOnce,
    /// Run it, and calls [`PermissionQuestion::session_rule`] matches for
    /// the rest of the session, without asking again.
    AllowForSession,
    /// Do not run it; `reason` goes to the model.
    Deny { reason: String },
    /// The question went to the caller, whose answer comes with a new
    /// attempt at the same call (MCP 2026-07-28's multi-round-trip
    /// `input_required` result): this attempt does not run.
    Pending,
}

/// Asks the person at the caller's end about a call.
#[async_trait]
pub trait CallAsker: Send + Sync {
    /// Their answer, or `None` when they could not be asked after all (the
    /// client failed to ask, the call was cancelled): the permission stage
    /// then goes on as if there were no asker.
    async fn ask(&self, question: &PermissionQuestion) -> Option<PermissionReply>;
}
