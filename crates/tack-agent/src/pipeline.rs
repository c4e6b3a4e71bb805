//! The dispatch pipeline: the one path every tool call takes.
//!
//! ```text
//!  call ─► find tool ─► validate input ─► pre-hooks ─► permission ─► execute (timeout,
//!          │              (JSON, schema,   (may rewrite  (policy on the   cancel, panic
//!          │               tool check)      → revalidate) input as run)   isolation)
//!          ▼                                                                 │
//!  result ◄─ record ◄─ output budget ◄─ post-hooks ◄────────────────────────┘
//!            (event +    (stage; errors
//!             audit)      too)
//! ```
//!
//! Each stage is a small function below. Permission, hooks and budget are
//! pluggable ([`PermissionStage`], [`HookStage`], [`BudgetStage`]) and pass
//! through by default. Pre-hooks run *before* the permission decision so the
//! policy always judges the input that will actually run (a hook may rewrite
//! it), and a hook's decision is an input to the permission stage, which may
//! let a hook's allow skip a prompt but never override a deny rule.
//! A stage that refuses short-circuits to the record stage, so every call is
//! answered by exactly one result and recorded exactly once, with its audit.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::FutureExt as _;
use serde_json::Value;
use tack_protocol::{
    AuditDecision, AuditRecord, ContentBlock, SessionEvent, ToolDefinition, ToolOutcome,
    ToolResultBlock,
};
use tack_tool::{
    Progress, ProgressSink, RegisteredTool, ToolAnnotations, ToolCall, ToolCallResult, ToolContext,
    ToolError, ToolHost, ToolOutput, ToolRegistry,
};
use tokio_util::sync::CancellationToken;

use crate::events::EventBus;

/// How long a tool may run when it does not say (Claude Code's Bash default).
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a cancelled tool gets to wind down before its task is aborted.
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// The decision of the permission stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    /// Run it; `by` says what allowed it (rule and file, mode, hook, user).
    Allow { by: String },
    /// Do not run it; `reason` goes to the model.
    Deny { reason: String, by: String },
}

/// Decides whether a call may run, given what the pre-hooks said.
#[async_trait]
pub trait PermissionStage: Send + Sync {
    async fn decide(&self, call: &ToolCall, tool: &RegisteredTool, hook: &PreHook) -> Permission;
}

/// The default permission stage: everything is allowed.
#[derive(Debug, Default)]
pub struct AllowAll;

#[async_trait]
impl PermissionStage for AllowAll {
    async fn decide(&self, _call: &ToolCall, _tool: &RegisteredTool, hook: &PreHook) -> Permission {
        match hook {
            PreHook::Deny { reason, by } => Permission::Deny {
                reason: reason.clone(),
                by: by.clone(),
            },
            _ => Permission::Allow {
                by: "default (no permission rules configured)".into(),
            },
        }
    }
}

/// What pre-hooks decided (the input may have been rewritten in place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreHook {
    /// No decision.
    Continue,
    /// A hook allowed the call (skips a prompt; never beats a deny rule).
    Allow { by: String },
    /// A hook wants the user asked.
    Ask { reason: String, by: String },
    /// A hook refused the call.
    Deny { reason: String, by: String },
}

/// The result of the pre-hook stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreHookOutcome {
    pub decision: PreHook,
    /// Hooks that rewrote the input, in order.
    pub rewritten_by: Vec<String>,
    /// Context for the model, appended to the result.
    pub context: Vec<String>,
}

impl Default for PreHookOutcome {
    fn default() -> Self {
        Self {
            decision: PreHook::Continue,
            rewritten_by: Vec::new(),
            context: Vec::new(),
        }
    }
}

/// Hooks around each call.
#[async_trait]
pub trait HookStage: Send + Sync {
    /// May rewrite `call.input` or decide on the call.
    async fn pre_tool_use(&self, call: &mut ToolCall) -> PreHookOutcome;
    /// Sees the outcome; may change it (e.g. add feedback for the model).
    async fn post_tool_use(&self, call: &ToolCall, result: &mut Result<ToolOutput, ToolError>);
}

/// The default hook stage: no hooks.
#[derive(Debug, Default)]
pub struct NoHooks;

#[async_trait]
impl HookStage for NoHooks {
    async fn pre_tool_use(&self, _call: &mut ToolCall) -> PreHookOutcome {
        PreHookOutcome::default()
    }
    async fn post_tool_use(&self, _call: &ToolCall, _result: &mut Result<ToolOutput, ToolError>) {}
}

/// A result's content after the budget stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Budgeted {
    pub content: Vec<ContentBlock>,
    /// The artifact holding the full output, when it was cut.
    pub artifact: Option<String>,
}

/// Fits a result's content (success or error) to the budget of its tool.
pub trait BudgetStage: Send + Sync {
    fn apply(&self, tool: &str, tool_use_id: &str, content: Vec<ContentBlock>) -> Budgeted;
}

/// The default budget: outputs pass unchanged.
#[derive(Debug, Default)]
pub struct Unlimited;

impl BudgetStage for Unlimited {
    fn apply(&self, _tool: &str, _tool_use_id: &str, content: Vec<ContentBlock>) -> Budgeted {
        Budgeted {
            content,
            artifact: None,
        }
    }
}

/// A call as it enters the pipeline. `input_error` is set when the model's
/// input could not be parsed as JSON (the call is then answered, not run).
#[derive(Debug, Clone)]
pub struct Dispatch {
    pub call: ToolCall,
    pub input_error: Option<String>,
}

impl From<ToolCall> for Dispatch {
    fn from(call: ToolCall) -> Self {
        Self {
            call,
            input_error: None,
        }
    }
}

/// The dispatch pipeline of one session.
pub struct Pipeline {
    /// Replaced (never shrunk) when tools are added mid-session.
    registry: std::sync::RwLock<Arc<ToolRegistry>>,
    permission: Arc<dyn PermissionStage>,
    hooks: Arc<dyn HookStage>,
    budget: Arc<dyn BudgetStage>,
    default_timeout: Duration,
    cwd: std::path::PathBuf,
    session_id: String,
    events: EventBus,
}

/// Builder-style configuration of a [`Pipeline`].
pub struct PipelineBuilder {
    inner: Pipeline,
}

impl PipelineBuilder {
    pub fn permission(mut self, stage: Arc<dyn PermissionStage>) -> Self {
        self.inner.permission = stage;
        self
    }
    pub fn hooks(mut self, stage: Arc<dyn HookStage>) -> Self {
        self.inner.hooks = stage;
        self
    }
    pub fn budget(mut self, stage: Arc<dyn BudgetStage>) -> Self {
        self.inner.budget = stage;
        self
    }
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.inner.default_timeout = timeout;
        self
    }
    pub fn events(mut self, events: EventBus) -> Self {
        self.inner.events = events;
        self
    }
    pub fn build(self) -> Pipeline {
        self.inner
    }
}

/// Where a call ended before or after running.
enum Stop {
    Answer(Result<ToolOutput, ToolError>),
    UnknownTool(String),
}

impl Pipeline {
    pub fn builder(
        registry: Arc<ToolRegistry>,
        cwd: std::path::PathBuf,
        session_id: impl Into<String>,
    ) -> PipelineBuilder {
        PipelineBuilder {
            inner: Pipeline {
                registry: std::sync::RwLock::new(registry),
                permission: Arc::new(AllowAll),
                hooks: Arc::new(NoHooks),
                budget: Arc::new(Unlimited),
                default_timeout: DEFAULT_TOOL_TIMEOUT,
                cwd,
                session_id: session_id.into(),
                events: EventBus::default(),
            },
        }
    }

    /// The tools now (a snapshot: later additions do not change it).
    pub fn registry(&self) -> Arc<ToolRegistry> {
        Arc::clone(&self.registry.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Adds tools that are not there yet (e.g. announced by an MCP server's
    /// `tools/list_changed`). Tools are only ever added within a session, so
    /// the definitions the model saw stay valid and prompt caching holds.
    /// Returns the names added.
    pub fn add_tools(&self, tools: Vec<Arc<dyn tack_tool::Tool>>) -> Vec<String> {
        let mut guard = self.registry.write().unwrap_or_else(|p| p.into_inner());
        let mut next = ToolRegistry::clone(&guard);
        let mut added = Vec::new();
        for tool in tools {
            let name = tool.name().to_owned();
            if next.contains(&name) {
                continue;
            }
            match next.register(tool) {
                Ok(()) => added.push(name),
                Err(e) => tracing::warn!("a new tool was left out: {e}"),
            }
        }
        if !added.is_empty() {
            *guard = Arc::new(next);
        }
        added
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Whether a call may run at the same time as other safe calls.
    pub fn is_concurrency_safe(&self, dispatch: &Dispatch) -> bool {
        dispatch.input_error.is_none()
            && self
                .registry()
                .get(&dispatch.call.name)
                .is_some_and(|t| t.tool.is_concurrency_safe(&dispatch.call.input))
    }

    /// Runs one call through every stage. Never fails: errors are results.
    /// The tool's progress reports become `tool_progress` events.
    pub async fn dispatch(&self, dispatch: Dispatch, cancel: &CancellationToken) -> ToolCallResult {
        self.dispatch_with_progress(dispatch, cancel, ProgressSink::none())
            .await
    }

    /// [`Pipeline::dispatch`], with the tool's progress reports also going to
    /// `progress`.
    pub async fn dispatch_with_progress(
        &self,
        dispatch: Dispatch,
        cancel: &CancellationToken,
        progress: ProgressSink,
    ) -> ToolCallResult {
        let started = Instant::now();
        let Dispatch {
            mut call,
            input_error,
        } = dispatch;
        self.events.emit(&SessionEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone(),
        });
        let mut audit = AuditRecord {
            decision: AuditDecision::NotReached,
            started_ms: crate::transcript::now_ms(),
            ..AuditRecord::default()
        };
        let answer = self
            .run_stages(&mut call, input_error, cancel, progress, &mut audit)
            .await;
        audit.input = call.input.clone();
        self.record(&call, answer, started, audit)
    }

    async fn run_stages(
        &self,
        call: &mut ToolCall,
        input_error: Option<String>,
        cancel: &CancellationToken,
        progress: ProgressSink,
        audit: &mut AuditRecord,
    ) -> Stop {
        // find tool
        let registry = self.registry();
        let Some(tool) = registry.get(&call.name) else {
            return Stop::UnknownTool(self.unknown_tool_text(&call.name));
        };
        audit.definition_hash.clone_from(&tool.definition_hash);
        if cancel.is_cancelled() {
            return Stop::Answer(Err(ToolError::Interrupted(
                "the user interrupted the session before this call started; it did not run".into(),
            )));
        }
        let ctx = self.context(call, cancel, progress);
        // validate input (null fields mean "not given")
        normalize(call);
        if let Err(e) = validate(tool, call, input_error, &ctx) {
            return Stop::Answer(Err(e));
        }
        // pre-hooks (may rewrite the input: validate again)
        let original = call.input.clone();
        let hooks = self.hooks.pre_tool_use(call).await;
        audit.rewritten_by.clone_from(&hooks.rewritten_by);
        normalize(call);
        if call.input != original
            && let Err(e) = validate(tool, call, None, &ctx)
        {
            return Stop::Answer(Err(ToolError::InvalidInput(format!(
                "a PreToolUse hook ({}) rewrote the input into one that is not valid: {e}",
                hooks.rewritten_by.join(", ")
            ))));
        }
        // a hook's deny is final (the strictest decision wins)
        if let PreHook::Deny { reason, by } = &hooks.decision {
            audit.decision = AuditDecision::Deny;
            audit.decided_by.clone_from(by);
            return Stop::Answer(Err(ToolError::Denied(format!(
                "{reason} (decided by {by})"
            ))));
        }
        // permission, on the input as it will run
        match self.permission.decide(call, tool, &hooks.decision).await {
            Permission::Allow { by } => {
                audit.decision = AuditDecision::Allow;
                audit.decided_by = by;
            }
            Permission::Deny { reason, by } => {
                audit.decision = AuditDecision::Deny;
                audit.decided_by.clone_from(&by);
                return Stop::Answer(Err(ToolError::Denied(format!(
                    "{reason} (decided by {by})"
                ))));
            }
        }
        // execute with a timeout
        let timeout = tool.tool.timeout().unwrap_or(self.default_timeout);
        let mut result = execute(tool, call.input.clone(), ctx, timeout).await;
        if let Ok(out) = &mut result {
            out.content
                .extend(hooks.context.iter().map(|c| ContentBlock::text(c.clone())));
        }
        // post-hooks
        self.hooks.post_tool_use(call, &mut result).await;
        // (the output budget is applied in `record`, to errors as well)
        Stop::Answer(result)
    }

    fn context(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
        progress: ProgressSink,
    ) -> ToolContext {
        let events = self.events.clone();
        let (id, name) = (call.id.clone(), call.name.clone());
        let on_bus = ProgressSink::new(move |p: Progress| {
            events.emit(&SessionEvent::ToolProgress {
                tool_use_id: id.clone(),
                name: name.clone(),
                progress: p.progress,
                total: p.total,
                message: p.message,
            });
        });
        ToolContext {
            cwd: self.cwd.clone(),
            session_id: self.session_id.clone(),
            tool_use_id: call.id.clone(),
            cancel: cancel.child_token(),
            progress: on_bus.and(progress),
        }
    }

    fn unknown_tool_text(&self, name: &str) -> String {
        let names = self.registry().names();
        let available = if names.is_empty() {
            "none (this session has no tools)".to_owned()
        } else {
            names.join(", ")
        };
        format!(
            "No tool named {name:?} exists. Available tools: {available}.\nCall one of these by its exact name."
        )
    }

    /// Turns the outcome into a tool_result (through the output budget) and
    /// records it with its audit.
    fn record(
        &self,
        call: &ToolCall,
        stop: Stop,
        started: Instant,
        mut audit: AuditRecord,
    ) -> ToolCallResult {
        let (content, is_error, outcome, structured) = match stop {
            Stop::UnknownTool(text) => (
                vec![ContentBlock::text(text)],
                true,
                ToolOutcome::UnknownTool,
                None,
            ),
            Stop::Answer(Ok(out)) => (out.content, false, ToolOutcome::Ok, out.structured),
            Stop::Answer(Err(e)) => (
                vec![ContentBlock::text(e.to_model_text(&call.name))],
                true,
                e.outcome(),
                None,
            ),
        };
        let budgeted = self.budget.apply(&call.name, &call.id, content);
        audit.artifacts.extend(budgeted.artifact);
        let block = ToolResultBlock::new(&call.id, budgeted.content, is_error);
        self.events.emit(&SessionEvent::ToolResult {
            tool_use_id: call.id.clone(),
            name: call.name.clone(),
            outcome,
            is_error,
            content: result_blocks(&block),
            duration_ms: started.elapsed().as_millis() as u64,
            audit: Some(audit),
        });
        ToolCallResult {
            block,
            outcome,
            structured,
        }
    }
}

fn result_blocks(block: &ToolResultBlock) -> Vec<tack_protocol::ContentBlock> {
    match &block.content {
        None => Vec::new(),
        Some(tack_protocol::ToolResultContent::Text(t)) => {
            vec![tack_protocol::ContentBlock::text(t.clone())]
        }
        Some(tack_protocol::ToolResultContent::Blocks(b)) => b.clone(),
    }
}

/// Drops top-level null fields, which models send for "not given".
fn normalize(call: &mut ToolCall) {
    if call
        .input
        .as_object()
        .is_some_and(|m| m.values().any(Value::is_null))
    {
        call.input = tack_tool::drop_nulls(&call.input);
    }
}

/// The validate stage: JSON parse error from the provider, schema, then the tool's own check.
fn validate(
    tool: &RegisteredTool,
    call: &ToolCall,
    input_error: Option<String>,
    ctx: &ToolContext,
) -> Result<(), ToolError> {
    if let Some(err) = input_error {
        return Err(ToolError::InvalidInput(format!(
            "the input is not valid JSON ({err}); send the input as one JSON object"
        )));
    }
    tool.check_input(&call.input)?;
    tool.tool.validate(&call.input, ctx)
}

/// The execute stage: runs the tool in its own task so a panic is contained,
/// stops it at the timeout, and answers promptly on cancellation.
///
/// On a current-thread runtime (`tack mcp serve`) the tool is first polled in
/// place, and only moved into a task when it is not done at once. A task buys
/// no isolation there (a tool that blocks the thread blocks every task), and
/// quick tools then cost no spawn and no timer: arming the first timer of an
/// idle runtime wakes its driver, a syscall on every request.
async fn execute(
    tool: &RegisteredTool,
    input: Value,
    ctx: ToolContext,
    timeout: Duration,
) -> Result<ToolOutput, ToolError> {
    let cancel = ctx.cancel.clone();
    let runner = Arc::clone(&tool.tool);
    let mut run = Box::pin(async move {
        std::panic::AssertUnwindSafe(runner.call(input, ctx))
            .catch_unwind()
            .await
    });
    let one_thread = tokio::runtime::Handle::current().runtime_flavor()
        == tokio::runtime::RuntimeFlavor::CurrentThread;
    if one_thread && let Some(outcome) = (&mut run).now_or_never() {
        return tool_outcome(outcome);
    }
    let mut task = tokio::spawn(run);
    let joined = tokio::select! {
        joined = &mut task => joined,
        () = tokio::time::sleep(timeout) => {
            cancel.cancel();
            wind_down(task).await;
            return Err(ToolError::Timeout(timeout));
        }
        () = cancel.cancelled() => {
            wind_down(task).await;
            return Err(ToolError::Interrupted(
                "the user interrupted the session while this call was running".into(),
            ));
        }
    };
    match joined {
        Ok(outcome) => tool_outcome(outcome),
        Err(join) => Err(ToolError::Internal(format!("the tool task failed: {join}"))),
    }
}

/// A tool's answer, or its panic turned into an internal error.
fn tool_outcome(
    outcome: std::thread::Result<Result<ToolOutput, ToolError>>,
) -> Result<ToolOutput, ToolError> {
    match outcome {
        Ok(result) => result,
        Err(panic) => Err(ToolError::Internal(format!(
            "the tool panicked: {}",
            panic_message(panic.as_ref())
        ))),
    }
}

/// Gives a cancelled tool a moment to clean up (kill children, remove temp
/// files), then aborts it.
async fn wind_down(
    mut task: tokio::task::JoinHandle<std::thread::Result<Result<ToolOutput, ToolError>>>,
) {
    if tokio::time::timeout(CANCEL_GRACE, &mut task).await.is_err() {
        task.abort();
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    }
}

#[async_trait]
impl ToolHost for Pipeline {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.registry().definitions()
    }

    fn annotations(&self, name: &str) -> Option<ToolAnnotations> {
        self.registry().get(name).map(|t| t.tool.annotations())
    }

    async fn call(&self, call: ToolCall, cancel: CancellationToken) -> ToolCallResult {
        self.dispatch(call.into(), &cancel).await
    }

    async fn call_with_progress(
        &self,
        call: ToolCall,
        cancel: CancellationToken,
        progress: ProgressSink,
    ) -> ToolCallResult {
        self.dispatch_with_progress(call.into(), &cancel, progress)
            .await
    }
}
