//! The host side of the contract: [`ToolHost`] runs calls through the whole
//! dispatch pipeline, and [`HostHandle`] is a tool's way back to it.
//!
//! The agent implements [`ToolHost`]; `tack mcp serve` serves one, and a tool
//! that needs other tools (code mode) calls them through the [`HostHandle`] in
//! its [`ToolContext`](crate::ToolContext). A nested call meets the same
//! validation, hooks, permission rules, budget and audit as a call from the
//! model, and its audit record names the call that made it.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use tack_protocol::{Caller, ToolDefinition, ToolOutcome, ToolResultBlock};
use tokio_util::sync::CancellationToken;

use crate::{CallAsker, ProgressSink, ToolAnnotations, ToolRegistry};

/// How deep calls may nest through host handles (a tool calling a tool
/// calling a tool…). Deeper calls are refused, so a tool that calls itself
/// cannot recurse without end.
pub const MAX_NESTING: u32 = 4;

/// One call as the model asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// The answer to one call, ready to send back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallResult {
    pub block: ToolResultBlock,
    pub outcome: ToolOutcome,
    pub structured: Option<Value>,
}

/// How one call through a [`ToolHost`] is made.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Stops the call (the user interrupted, the client cancelled).
    pub cancel: CancellationToken,
    /// Where the running tool's progress reports go (besides the session's events).
    pub progress: ProgressSink,
    /// The tool call making this one; `None` for a call from the model or an
    /// MCP client. Only a nested call may reach a `Hidden` tool.
    pub caller: Option<Caller>,
    /// How many calls this one is nested in (0 for a call from the model).
    pub depth: u32,
    /// Who to ask when a permission rule says "ask" about this call: the
    /// person at an MCP client's end ([`CallAsker`]). Consulted before the
    /// session's own prompter; `None` (the default): the session's.
    pub asker: Option<Arc<dyn CallAsker>>,
    /// The caller filters the result itself (a code-mode program): the
    /// output budget does not cut it. What the caller passes on to the
    /// model meets the budget instead.
    pub full_output: bool,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("cancel", &self.cancel)
            .field("progress", &self.progress)
            .field("caller", &self.caller)
            .field("depth", &self.depth)
            .field("asker", &self.asker.is_some())
            .field("full_output", &self.full_output)
            .finish()
    }
}

impl CallOptions {
    /// A call from the model (or an MCP client), stopped by `cancel`.
    pub fn new(cancel: CancellationToken) -> Self {
        Self {
            cancel,
            ..Self::default()
        }
    }

    /// Sends the running tool's progress reports to `progress` as well.
    pub fn with_progress(mut self, progress: ProgressSink) -> Self {
        self.progress = progress;
        self
    }

    /// Asks `asker` when a permission rule says "ask" about this call.
    pub fn with_asker(mut self, asker: Arc<dyn CallAsker>) -> Self {
        self.asker = Some(asker);
        self
    }
}

/// Runs tools through the agent's full dispatch pipeline (validation,
/// permissions, hooks, budget, audit). Implemented by the agent; used by
/// `tack mcp serve`, code mode and eval, which must not bypass policy.
#[async_trait]
pub trait ToolHost: Send + Sync {
    /// The tools a client may call: `Direct` and `Deferred` ones (not `Hidden`).
    fn definitions(&self) -> Vec<ToolDefinition>;
    /// The annotations of a tool, if it exists.
    fn annotations(&self, name: &str) -> Option<ToolAnnotations>;
    /// The tool's [`Tool::output_schema`](crate::Tool::output_schema), if
    /// it exists and declares one. Default: none.
    fn output_schema(&self, _name: &str) -> Option<Value> {
        None
    }
    /// Runs one call; never fails: errors are `is_error` results.
    async fn call(&self, call: ToolCall, options: CallOptions) -> ToolCallResult;
    /// The session's tools now, with their exposure (tool search builds its
    /// index over the `Deferred` ones). Default: none.
    fn registry(&self) -> Option<Arc<ToolRegistry>> {
        None
    }
    /// Whether a deny rule refuses every call of this tool, whatever its
    /// input: such a tool is not offered by search. Default: no.
    fn refused_outright(&self, _name: &str) -> bool {
        false
    }
    /// Starts sending these `Deferred` tools' definitions (a search found
    /// them); returns the names newly revealed. Default: none.
    fn reveal(&self, _names: &[&str]) -> Vec<String> {
        Vec::new()
    }
    /// Whether a call of `name` with `input` may run at the same time as
    /// other such calls (the loop's scheduler rule, for callers that run
    /// several at once). Default: no.
    fn is_concurrency_safe(&self, _name: &str, _input: &Value) -> bool {
        false
    }
    /// Whether the model's API expands `tool_reference` blocks in a tool
    /// result into the named `defer_loading` tools' definitions (Anthropic's
    /// Messages API): a search then answers with references, and every
    /// deferred tool is in the request's tools marked `defer_loading`.
    /// Otherwise a search answers in text and the definitions it found join
    /// the request's tools. Default: no.
    fn tool_references(&self) -> bool {
        false
    }
}

/// A tool's way back to its host, bound to the call it was handed to: calls
/// made through it record that call as their caller. Cheap to clone.
#[derive(Clone, Default)]
pub struct HostHandle {
    host: Option<Arc<dyn ToolHost>>,
    caller: Option<Caller>,
    depth: u32,
}

impl std::fmt::Debug for HostHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHandle")
            .field("available", &self.host.is_some())
            .field("caller", &self.caller)
            .field("depth", &self.depth)
            .finish()
    }
}

impl HostHandle {
    /// No host: every call through it is answered "unavailable".
    pub fn none() -> Self {
        Self::default()
    }

    /// A handle for the call `caller`, itself nested `depth` deep.
    pub fn new(host: Arc<dyn ToolHost>, caller: Caller, depth: u32) -> Self {
        Self {
            host: Some(host),
            caller: Some(caller),
            depth,
        }
    }

    /// Whether there is a host to call.
    pub fn is_available(&self) -> bool {
        self.host.is_some()
    }

    /// The tools that can be called through this handle.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.host
            .as_ref()
            .map(|h| h.definitions())
            .unwrap_or_default()
    }

    /// The host's tools now ([`ToolHost::registry`]).
    pub fn registry(&self) -> Option<Arc<ToolRegistry>> {
        self.host.as_ref().and_then(|h| h.registry())
    }

    /// [`ToolHost::refused_outright`].
    pub fn refused_outright(&self, name: &str) -> bool {
        self.host.as_ref().is_some_and(|h| h.refused_outright(name))
    }

    /// [`ToolHost::reveal`].
    pub fn reveal(&self, names: &[&str]) -> Vec<String> {
        self.host
            .as_ref()
            .map(|h| h.reveal(names))
            .unwrap_or_default()
    }

    /// [`ToolHost::output_schema`].
    pub fn output_schema(&self, name: &str) -> Option<Value> {
        self.host.as_ref().and_then(|h| h.output_schema(name))
    }

    /// [`ToolHost::is_concurrency_safe`].
    pub fn is_concurrency_safe(&self, name: &str, input: &Value) -> bool {
        self.host
            .as_ref()
            .is_some_and(|h| h.is_concurrency_safe(name, input))
    }

    /// [`ToolHost::tool_references`].
    pub fn tool_references(&self) -> bool {
        self.host.as_ref().is_some_and(|h| h.tool_references())
    }

    /// Calls another tool through the host's pipeline. `cancel` should be
    /// (a child of) the outer call's token, so an interrupt reaches both.
    pub async fn call(&self, call: ToolCall, cancel: CancellationToken) -> ToolCallResult {
        self.call_with(call, CallOptions::new(cancel)).await
    }

    /// [`HostHandle::call`] with options; the caller and depth are this handle's.
    pub async fn call_with(&self, call: ToolCall, mut options: CallOptions) -> ToolCallResult {
        let Some(host) = &self.host else {
            return refused(
                &call,
                ToolOutcome::Unavailable,
                "this tool runs without a host, so it cannot call other tools",
            );
        };
        if self.depth >= MAX_NESTING {
            return refused(
                &call,
                ToolOutcome::Denied,
                &format!(
                    "calls nested more than {MAX_NESTING} deep are refused; call {} directly instead",
                    call.name
                ),
            );
        }
        options.caller.clone_from(&self.caller);
        options.depth = self.depth + 1;
        host.call(call, options).await
    }
}

fn refused(call: &ToolCall, outcome: ToolOutcome, why: &str) -> ToolCallResult {
    ToolCallResult {
        block: ToolResultBlock::error(&call.id, format!("{} was not run: {why}", call.name)),
        outcome,
        structured: None,
    }
}
