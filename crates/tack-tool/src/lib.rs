//! The Tool contract: one trait for every kind of tool tack runs.
//!
//! Built-in tools, tools declared in configuration, Rust tools from library
//! users and MCP tools all implement [`Tool`]. The key design decisions:
//!
//! - **Typed at the edge, erased once.** A tool author writes a
//!   [`TypedTool`] with a `#[derive(Deserialize, JsonSchema)]` input struct; the
//!   input schema is generated from that struct and the tool is erased into an
//!   `Arc<dyn Tool>` exactly once, by [`ToolRegistry::register_typed`].
//! - **Fail closed.** A tool is assumed to have effects and to be unsafe to run
//!   concurrently unless it says otherwise for a given input.
//! - **Errors are results.** Every [`ToolError`] becomes an `is_error`
//!   tool_result whose text says what failed and what the model can do next
//!   ([`ToolError::to_model_text`]).
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use tack_tool::{ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct EchoInput {
//!     /// The text to send back.
//!     text: String,
//! }
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl TypedTool for Echo {
//!     type Input = EchoInput;
//!     fn name(&self) -> &str { "Echo" }
//!     fn description(&self) -> &str { "Returns its input text unchanged." }
//!     fn is_concurrency_safe(&self, _input: &EchoInput) -> bool { true }
//!     async fn call(&self, input: EchoInput, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
//!         Ok(ToolOutput::text(input.text))
//!     }
//! }
//!
//! let mut registry = ToolRegistry::new();
//! registry.register_typed(Echo).unwrap();
//! let err = registry.get("Echo").unwrap().check_input(&serde_json::json!({"text": 3})).unwrap_err();
//! assert!(err.to_string().contains("text"));
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tack_protocol::{ContentBlock, ToolOutcome, ToolResultBlock};
use tokio_util::sync::CancellationToken;

pub mod artifacts;
mod ask;
mod host;
mod output;
mod registry;
pub use ask::{CallAsker, PermissionQuestion, PermissionReply};
pub use host::{CallOptions, HostHandle, MAX_NESTING, ToolCall, ToolCallResult, ToolHost};
pub use output::{OutputBehaviour, OutputCut, floor_char};
pub use registry::{
    DEFER_LOADING, Exposure, INPUT_EXAMPLES, RegisteredTool, RegistryError, ToolRegistry,
    definition_hash, drop_nulls,
};

/// What a tool call knows about where it runs.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's working directory (absolute).
    pub cwd: PathBuf,
    pub session_id: String,
    pub tool_use_id: String,
    /// Cancelled when the user interrupts or the call times out; long-running
    /// tools should watch it and stop promptly.
    pub cancel: CancellationToken,
    /// Where a long-running tool says how far it has got (the terminal shows
    /// it; `tack mcp serve` sends it as `notifications/progress`).
    pub progress: ProgressSink,
    /// The way back to the host: other tools called through it meet the same
    /// pipeline (validation, hooks, permission, budget, audit) and their audit
    /// names this call as the caller. Empty outside a pipeline.
    pub host: HostHandle,
    /// The directory the permission check judged the call's relative paths
    /// in ([`Tool::working_dir`]), when the tool keeps its own. A tool that
    /// would now run elsewhere (another call moved it in between) must not
    /// run the call. `None` outside a pipeline.
    pub checked_dir: Option<PathBuf>,
    /// The files the permission check judged the call's paths to be
    /// (links followed). A tool that opens one after the check (Read) must
    /// confirm it opened one of these: a link replaced in between (by a
    /// process racing the call) would otherwise lead it to a file no rule
    /// was asked about. Empty outside a pipeline, and for calls without
    /// paths.
    pub checked_files: Vec<PathBuf>,
}

impl ToolContext {
    /// A context without progress reporting.
    pub fn new(
        cwd: impl Into<PathBuf>,
        session_id: impl Into<String>,
        tool_use_id: impl Into<String>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            cwd: cwd.into(),
            session_id: session_id.into(),
            tool_use_id: tool_use_id.into(),
            cancel,
            progress: ProgressSink::none(),
            host: HostHandle::none(),
            checked_dir: None,
            checked_files: Vec::new(),
        }
    }

    /// Reports progress of this call (does nothing when nobody listens).
    pub fn report(&self, progress: Progress) {
        self.progress.report(progress);
    }
}

/// How far a running call has got.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Grows with every report of a call (e.g. seconds elapsed, files read).
    pub progress: f64,
    /// What `progress` reaches at the end, when known.
    pub total: Option<f64>,
    /// One line for a person, e.g. the last line a command printed.
    pub message: Option<String>,
}

/// Where a call's progress reports go: cheap to clone, never blocks.
#[derive(Clone, Default)]
pub struct ProgressSink(Option<Arc<dyn Fn(Progress) + Send + Sync>>);

impl ProgressSink {
    /// Sends every report to `f`, which must return quickly.
    pub fn new(f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(f)))
    }

    /// Drops every report.
    pub fn none() -> Self {
        Self(None)
    }

    /// Whether anyone listens (a tool may skip work that only feeds reports).
    pub fn is_active(&self) -> bool {
        self.0.is_some()
    }

    pub fn report(&self, progress: Progress) {
        if let Some(f) = &self.0 {
            f(progress);
        }
    }

    /// A sink that gives every report to both.
    pub fn and(self, other: ProgressSink) -> ProgressSink {
        match (self.0, other.0) {
            (None, None) => ProgressSink(None),
            (Some(f), None) | (None, Some(f)) => ProgressSink(Some(f)),
            (Some(a), Some(b)) => ProgressSink::new(move |p| {
                a(p.clone());
                b(p);
            }),
        }
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_active() {
            "ProgressSink(active)"
        } else {
            "ProgressSink(none)"
        })
    }
}

/// A successful tool result: content blocks for the model, optionally
/// structured JSON for programmatic consumers (code mode; over MCP it is
/// `structuredContent` only for a tool with an [`Tool::output_schema`], else
/// metadata in `_meta`), and optionally the tool's output object in Claude
/// Code's shape.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    pub content: Vec<ContentBlock>,
    pub structured: Option<Value>,
    /// The tool's full output object in Claude Code's shape: PostToolUse
    /// `tool_response` and stream-json `tool_use_result` (e.g. Read's
    /// `{"type":"text","file":{"filePath",…}}`). Hook scripts written for
    /// Claude Code read it, so a built-in with a Claude Code counterpart
    /// follows that tool's `*Output` type key for key. `None`: the content
    /// array is sent, as Claude Code does for MCP tools ([`Self::hook_response`]).
    pub response: Option<Value>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            structured: None,
            response: None,
        }
    }

    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// Sets [`Self::response`], the output object in Claude Code's shape.
    pub fn with_response(mut self, value: Value) -> Self {
        self.response = Some(value);
        self
    }

    /// What a PostToolUse hook receives as `tool_response` (and stream-json
    /// prints as `tool_use_result`): [`Self::response`] when the tool gave
    /// one, else the content blocks as Claude Code sends an MCP tool's
    /// result, `[{"type":"text","text":"…"}, …]`.
    ///
    /// ```
    /// use tack_tool::ToolOutput;
    /// let plain = ToolOutput::text("hi");
    /// assert_eq!(plain.hook_response(), serde_json::json!([{"type": "text", "text": "hi"}]));
    /// let shaped = plain.with_response(serde_json::json!({"stdout": "hi"}));
    /// assert_eq!(shaped.hook_response()["stdout"], "hi");
    /// ```
    pub fn hook_response(&self) -> Value {
        match &self.response {
            Some(response) => response.clone(),
            None => serde_json::to_value(&self.content).unwrap_or(Value::Array(Vec::new())),
        }
    }
}

/// Why a tool call failed. Each kind tells the model a different next step.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The input is wrong: the model should fix the call.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A rule, hook or the user refused the call.
    #[error("denied: {0}")]
    Denied(String),
    /// The call ran out of time and was stopped.
    #[error("timed out after {}", fmt_duration(*.0))]
    Timeout(Duration),
    /// A failure that a retry of the same call may not meet again.
    #[error("temporary failure: {0}")]
    Transient(String),
    /// What the tool needs is not there (a server down, a missing resource).
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// The call was interrupted (Ctrl-C, session end).
    #[error("interrupted: {0}")]
    Interrupted(String),
    /// A bug in the tool or the harness, not in the input.
    #[error("internal error: {0}")]
    Internal(String),
    /// The tool ran and reported a failure it does not classify further
    /// (a declared command exited non-zero with no class declared for that
    /// code): the message carries what it said.
    #[error("failed: {0}")]
    Failed(String),
}

fn fmt_duration(d: Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

impl ToolError {
    /// The outcome recorded for this error.
    pub fn outcome(&self) -> ToolOutcome {
        match self {
            ToolError::InvalidInput(_) => ToolOutcome::InvalidInput,
            ToolError::Denied(_) => ToolOutcome::Denied,
            ToolError::Timeout(_) => ToolOutcome::Timeout,
            ToolError::Transient(_) => ToolOutcome::Transient,
            ToolError::Unavailable(_) => ToolOutcome::Unavailable,
            ToolError::Interrupted(_) => ToolOutcome::Interrupted,
            ToolError::Internal(_) => ToolOutcome::Internal,
            ToolError::Failed(_) => ToolOutcome::Failed,
        }
    }

    /// The text the model receives: what failed, and what to do next.
    pub fn to_model_text(&self, tool: &str) -> String {
        match self {
            ToolError::InvalidInput(msg) => format!(
                "Invalid input for {tool}: {msg}\nFix the input to match the tool's input schema and call {tool} again."
            ),
            ToolError::Denied(msg) => format!(
                "Permission to run {tool} was denied: {msg}\nDo not repeat this call; choose another way or ask the user."
            ),
            ToolError::Timeout(after) => format!(
                "{tool} timed out after {} and was stopped.\nTry a smaller or faster request; if the tool accepts a timeout, you may raise it.",
                fmt_duration(*after)
            ),
            ToolError::Transient(msg) => {
                format!("{tool} failed temporarily: {msg}\nRetrying the same call may succeed.")
            }
            ToolError::Unavailable(msg) => {
                format!("{tool} is unavailable: {msg}\nUse another tool or approach.")
            }
            ToolError::Interrupted(msg) => format!(
                "{tool} was interrupted: {msg}\nThe call may not have completed; check its effects before repeating it."
            ),
            ToolError::Internal(msg) => format!(
                "{tool} failed with an internal error: {msg}\nThis is a fault in the tool, not in your input; try another approach."
            ),
            ToolError::Failed(msg) => format!(
                "{tool} failed: {msg}\nRead what it reported: fix the input if that caused it, otherwise use another approach."
            ),
        }
    }

    /// The is_error tool_result for this error.
    pub fn to_result(&self, tool: &str, tool_use_id: &str) -> ToolResultBlock {
        ToolResultBlock::error(tool_use_id, self.to_model_text(tool))
    }
}

/// What MCP calls annotations: hints about a tool's effects, shown to users and
/// exported by `tack mcp serve`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl ToolAnnotations {
    /// A tool that only reads: no effects, so repeating a call is harmless.
    pub fn read_only() -> Self {
        Self {
            read_only: true,
            idempotent: true,
            ..Self::default()
        }
    }
}

/// The contract every tool implements. Most tools are written as a
/// [`TypedTool`]; implement this directly when the schema is only known at run
/// time (MCP tools, tools declared in configuration).
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls, `^[a-zA-Z0-9_-]{1,64}$`.
    fn name(&self) -> &str;
    /// What the tool does, when to use it and what it returns: written for the model.
    fn description(&self) -> &str;
    /// The JSON Schema (`type: object`) of the input.
    fn input_schema(&self) -> Value;
    /// Whether this input can run at the same time as other safe calls. Default: no.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        false
    }
    /// Static hints about the tool's effects.
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
    }
    /// The JSON Schema (`type: object`) of [`ToolOutput::structured`], for a
    /// tool whose structured output *is* its result (Glob's file list), not
    /// side metadata about it (Bash's exit code). Default `None`: whatever
    /// the tool puts in `structured` is metadata. `tack mcp serve` sends
    /// `structuredContent` (and `outputSchema`) only for a tool that declares
    /// one; every successful result of the tool must then match it.
    fn output_schema(&self) -> Option<Value> {
        None
    }
    /// How long one call may take; `None` means the harness default.
    fn timeout(&self) -> Option<Duration> {
        None
    }
    /// Checks beyond the schema, before anything runs (paths exist, ranges...).
    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    /// How the output budget cuts this tool's results and what it tells the
    /// model when it does.
    fn output(&self) -> OutputBehaviour {
        OutputBehaviour::default()
    }
    /// The directory a call made now would run in, for a tool that keeps
    /// its own (Bash's shell stays where a `cd` left it); `None`: the
    /// session's. The permission check resolves the call's relative paths
    /// against it, and passes it on as [`ToolContext::checked_dir`].
    fn working_dir(&self) -> Option<PathBuf> {
        None
    }
    /// What the processes of a call with `input` ran under, for the audit
    /// record (asked after the call ran): the OS sandbox's profile, or why
    /// it ran without one. `None` for a tool that starts no process.
    fn sandbox_profile(&self, _input: &Value) -> Option<String> {
        None
    }
    /// The skill the call `tool_use_id` loaded, for its audit record (asked
    /// after the call ran). `None` for every tool but Skill.
    fn skill_load(&self, _tool_use_id: &str) -> Option<tack_protocol::SkillLoad> {
        None
    }
    /// What the search call `tool_use_id` found, for its audit record
    /// (asked after the call ran). `None` for every tool but ToolSearch.
    fn discovery(&self, _tool_use_id: &str) -> Option<tack_protocol::Discovery> {
        None
    }
    /// The program and arguments a call with `input` would run, for a tool
    /// that runs one command with no shell in between (a command tool
    /// declared in settings): permission rules `Tool(pattern)` match it, the
    /// permission prompt shows it and the audit records it. `None` for every
    /// other tool, and for an input no command can be built from.
    fn command_line(&self, _input: &Value) -> Option<Vec<String>> {
        None
    }
    /// For a tool of an MCP server: the server's name and the tool's own
    /// name there, which [`Tool::name`] may not spell (it is rewritten to fit
    /// the model APIs: characters made `_`, cut with a hash, suffixed when
    /// another tool took it). Permission rules `mcp__server__tool` match the
    /// tool by these as well as by its name. `None` for every other tool.
    fn mcp_origin(&self) -> Option<(&str, &str)> {
        None
    }
    /// Every call needs a person's yes, in every permission mode: no allow
    /// rule, hook or permission prompt tool answers it, and no "always
    /// allow" is offered (an MCP tool whose `tools/list` entry has
    /// `_meta["anthropic/requiresUserInteraction"]: true`, as Claude Code
    /// reads it: a consent or access grant). Default: no.
    fn requires_user_interaction(&self) -> bool {
        false
    }
    /// Example inputs, each valid against [`Tool::input_schema`]: sent in
    /// the API's `input_examples` field where the provider has one, and
    /// appended to the description elsewhere. For inputs that are easy to
    /// get wrong; each costs tokens on every request.
    fn input_examples(&self) -> Vec<Value> {
        Vec::new()
    }
    /// Runs the call. Must return promptly once `ctx.cancel` is cancelled.
    async fn call(&self, input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError>;
}

/// A tool with a typed input; its schema is generated from `Input`.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    type Input: DeserializeOwned + schemars::JsonSchema + Send;

    fn name(&self) -> &str;
    fn description(&self) -> &str;
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        false
    }
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
    }
    /// See [`Tool::output_schema`].
    fn output_schema(&self) -> Option<Value> {
        None
    }
    fn timeout(&self) -> Option<Duration> {
        None
    }
    fn validate(&self, _input: &Self::Input, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn output(&self) -> OutputBehaviour {
        OutputBehaviour::default()
    }
    fn working_dir(&self) -> Option<PathBuf> {
        None
    }
    /// See [`Tool::sandbox_profile`].
    fn sandbox_profile(&self, _input: &Self::Input) -> Option<String> {
        None
    }
    /// See [`Tool::input_examples`].
    fn input_examples(&self) -> Vec<Value> {
        Vec::new()
    }
    async fn call(&self, input: Self::Input, ctx: ToolContext) -> Result<ToolOutput, ToolError>;
}

/// Adapts a [`TypedTool`] to [`Tool`].
pub struct Typed<T>(pub T);

impl<T: TypedTool> Typed<T> {
    fn parse(input: &Value) -> Result<T::Input, ToolError> {
        T::Input::deserialize(input).map_err(|e| ToolError::InvalidInput(e.to_string()))
    }
}

use serde::Deserialize as _;

#[async_trait]
impl<T: TypedTool> Tool for Typed<T> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn description(&self) -> &str {
        self.0.description()
    }
    fn input_schema(&self) -> Value {
        schema_for::<T::Input>()
    }
    fn is_concurrency_safe(&self, input: &Value) -> bool {
        Self::parse(input).is_ok_and(|i| self.0.is_concurrency_safe(&i))
    }
    fn annotations(&self) -> ToolAnnotations {
        self.0.annotations()
    }
    fn output_schema(&self) -> Option<Value> {
        self.0.output_schema()
    }
    fn timeout(&self) -> Option<Duration> {
        self.0.timeout()
    }
    fn validate(&self, input: &Value, ctx: &ToolContext) -> Result<(), ToolError> {
        self.0.validate(&Self::parse(input)?, ctx)
    }
    fn output(&self) -> OutputBehaviour {
        self.0.output()
    }
    fn working_dir(&self) -> Option<PathBuf> {
        self.0.working_dir()
    }
    fn sandbox_profile(&self, input: &Value) -> Option<String> {
        Self::parse(input)
            .ok()
            .and_then(|i| self.0.sandbox_profile(&i))
    }
    fn input_examples(&self) -> Vec<Value> {
        self.0.input_examples()
    }
    async fn call(&self, input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let input = Self::parse(&input)?;
        self.0.call(input, ctx).await
    }
}

/// The input schema generated from a type, trimmed for the model: no `$schema`
/// and no `title` (they cost tokens on every request and say nothing).
pub fn schema_for<T: schemars::JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(T).to_value();
    trim_schema(&mut schema);
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
        obj.entry("type").or_insert_with(|| "object".into());
        obj.entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
    }
    schema
}

/// Removes what costs tokens and tells the model nothing: Rust integer
/// formats (`uint64`) with their implied `minimum: 0`, and `null` in the type
/// of optional fields (an absent field and a null one mean the same; the
/// dispatch pipeline drops null fields before validation).
fn trim_schema(schema: &mut Value) {
    match schema {
        Value::Object(obj) => {
            let rust_format = obj.get("format").and_then(Value::as_str).is_some_and(|f| {
                matches!(
                    f,
                    "uint"
                        | "uint8"
                        | "uint16"
                        | "uint32"
                        | "uint64"
                        | "int"
                        | "int8"
                        | "int16"
                        | "int32"
                        | "int64"
                        | "double"
                        | "float"
                )
            });
            if rust_format {
                if obj
                    .get("format")
                    .and_then(Value::as_str)
                    .is_some_and(|f| f.starts_with("uint"))
                    && obj.get("minimum") == Some(&Value::from(0))
                {
                    obj.remove("minimum");
                }
                obj.remove("format");
            }
            if let Some(Value::Array(types)) = obj.get("type")
                && types.len() == 2
                && types.contains(&Value::from("null"))
                && let Some(other) = types.iter().find(|t| *t != &Value::from("null")).cloned()
            {
                obj.insert("type".into(), other);
            }
            for value in obj.values_mut() {
                trim_schema(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(trim_schema),
        _ => {}
    }
}
