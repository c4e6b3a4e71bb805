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
//! The stages are named functions in [`stages`] (the orchestrator is
//! `Pipeline::run_stages`), the execute stage is in [`execute`]. Permission,
//! hooks and budget are pluggable ([`PermissionStage`], [`HookStage`],
//! [`BudgetStage`]) and pass through by default. Pre-hooks run *before* the
//! permission decision so the policy always judges the input that will
//! actually run (a hook may rewrite it). A hook's deny ends the call there;
//! its allow or ask ([`HookRuling`]) goes to the permission stage, which may let
//! an allow skip a prompt but never override a deny rule.
//! A stage that refuses short-circuits to the record stage, so every call is
//! answered by exactly one result and recorded exactly once, with its audit.
//!
//! The pipeline is also the session's [`ToolHost`]: every call, from the
//! model, an MCP client or a tool through its [`tack_tool::HostHandle`],
//! takes this path. A `Hidden` tool is found only by a nested call.

mod execute;
mod stages;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tack_protocol::{ContentBlock, ToolDefinition, Verdict};
use tack_tool::{
    CallOptions, OutputBehaviour, RegisteredTool, ToolAnnotations, ToolCall, ToolCallResult,
    ToolError, ToolHost, ToolOutput, ToolRegistry,
};

use crate::events::EventBus;

/// How long a tool may run when it does not say (Claude Code's Bash default).
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// The decision of the permission stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    /// Run it; `by` says what allowed it (rule and file, mode, hook, user).
    Allow { by: String },
    /// Do not run it; `reason` goes to the model.
    Deny { reason: String, by: String },
    /// Run it with this input instead (a permission prompt tool's
    /// `updatedInput`, already checked against the rules); the pipeline
    /// checks it against the tool's schema before it runs.
    AllowWithInput {
        by: String,
        input: serde_json::Value,
    },
}

/// A hook's decision on a call: the shared verdict, why, and which hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRuling {
    pub verdict: Verdict,
    /// For the model (a deny) or the person (an ask).
    pub reason: String,
    /// The hook, for the audit trail.
    pub by: String,
}

/// Decides whether a call may run, given what the pre-hooks decided (the
/// pipeline ends a call a hook denied before it gets here; a stage called
/// directly with a deny ruling must deny). `dir`: where the call would run,
/// when the tool keeps its own directory ([`tack_tool::Tool::working_dir`]);
/// the call's relative paths are judged there.
#[async_trait]
pub trait PermissionStage: Send + Sync {
    async fn decide(
        &self,
        call: &ToolCall,
        tool: &RegisteredTool,
        hook: Option<&HookRuling>,
        dir: Option<&Path>,
    ) -> Permission;

    /// The deny rule that refuses every call of `tool` whatever its input,
    /// if one does (tool search does not offer that tool); `mcp`, for an MCP
    /// tool, is its server and its own name there
    /// ([`tack_tool::Tool::mcp_origin`]), which rules may name instead.
    /// Default: none.
    fn refuses_outright(&self, _tool: &str, _mcp: Option<(&str, &str)>) -> Option<String> {
        None
    }

    /// The files the last decision on the call `call_id` judged its paths
    /// to be ([`tack_tool::ToolContext::checked_files`]), taken once.
    /// Default: none.
    fn take_checked_files(&self, _call_id: &str) -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    /// A stage for one sub-agent that decides as this one does, then never
    /// looser than `narrowing` says (its definition's permission mode and
    /// deny rules). Default: `None`, this stage cannot narrow, and a
    /// sub-agent whose definition asks for it is not started.
    fn narrowed(
        &self,
        _narrowing: crate::permission::Narrowing,
    ) -> Option<Arc<dyn PermissionStage>> {
        None
    }
}

/// The default permission stage: everything is allowed.
#[derive(Debug, Default)]
pub struct AllowAll;

#[async_trait]
impl PermissionStage for AllowAll {
    async fn decide(
        &self,
        _call: &ToolCall,
        _tool: &RegisteredTool,
        hook: Option<&HookRuling>,
        _dir: Option<&Path>,
    ) -> Permission {
        match hook {
            Some(h) if h.verdict == Verdict::Deny => Permission::Deny {
                reason: h.reason.clone(),
                by: h.by.clone(),
            },
            _ => Permission::Allow {
                by: "default (no permission rules configured)".into(),
            },
        }
    }
}

/// The result of the pre-hook stage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreHookOutcome {
    /// The strictest hook decision, if any hook decided.
    pub decision: Option<HookRuling>,
    /// Hooks that rewrote the input, in order.
    pub rewritten_by: Vec<String>,
    /// Context for the model, appended to the result.
    pub context: Vec<String>,
}

/// Hooks around each call.
#[async_trait]
pub trait HookStage: Send + Sync {
    /// May rewrite `call.input` or decide on the call.
    async fn pre_tool_use(&self, call: &mut ToolCall) -> PreHookOutcome;
    /// Sees the outcome of a call that ran for `ran`; may change it (e.g.
    /// add feedback for the model).
    async fn post_tool_use(
        &self,
        call: &ToolCall,
        result: &mut Result<ToolOutput, ToolError>,
        ran: Duration,
    );
}

/// The default hook stage: no hooks.
#[derive(Debug, Default)]
pub struct NoHooks;

#[async_trait]
impl HookStage for NoHooks {
    async fn pre_tool_use(&self, _call: &mut ToolCall) -> PreHookOutcome {
        PreHookOutcome::default()
    }
    async fn post_tool_use(
        &self,
        _call: &ToolCall,
        _result: &mut Result<ToolOutput, ToolError>,
        _ran: Duration,
    ) {
    }
}

/// A result's content after the budget stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Budgeted {
    pub content: Vec<ContentBlock>,
    /// The artifact holding the full output, when it was cut.
    pub artifact: Option<String>,
}

/// Fits a result's content (success or error) to the budget of its tool,
/// cut the way the tool's [`OutputBehaviour`] says.
pub trait BudgetStage: Send + Sync {
    fn apply(
        &self,
        tool: &str,
        output: &OutputBehaviour,
        tool_use_id: &str,
        content: Vec<ContentBlock>,
    ) -> Budgeted;
}

/// The default budget: outputs pass unchanged.
#[derive(Debug, Default)]
pub struct Unlimited;

impl BudgetStage for Unlimited {
    fn apply(
        &self,
        _tool: &str,
        _output: &OutputBehaviour,
        _tool_use_id: &str,
        content: Vec<ContentBlock>,
    ) -> Budgeted {
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

/// The dispatch pipeline of one session. A cheap handle: clones share it.
#[derive(Clone)]
pub struct Pipeline {
    shared: Arc<Shared>,
}

struct Shared {
    /// Replaced (never shrunk) when tools are added or revealed mid-session.
    registry: std::sync::RwLock<Arc<ToolRegistry>>,
    permission: Arc<dyn PermissionStage>,
    hooks: Arc<dyn HookStage>,
    budget: Arc<dyn BudgetStage>,
    default_timeout: Duration,
    cwd: std::path::PathBuf,
    session_id: String,
    events: EventBus,
    /// Tokens spent by sub-agents on this pipeline's behalf since the loop
    /// last took them ([`Pipeline::take_delegated_usage`]).
    delegated: std::sync::Mutex<tack_protocol::Usage>,
    /// The model's API expands `tool_reference` blocks ([`ToolHost::tool_references`]).
    tool_references: std::sync::atomic::AtomicBool,
}

/// Builder-style configuration of a [`Pipeline`].
pub struct PipelineBuilder {
    inner: Shared,
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
        Pipeline {
            shared: Arc::new(self.inner),
        }
    }
}

/// A pipeline handle that does not keep it alive (for background tasks).
#[derive(Clone)]
pub struct WeakPipeline(std::sync::Weak<Shared>);

impl WeakPipeline {
    /// The pipeline, while its session lives.
    pub fn upgrade(&self) -> Option<Pipeline> {
        self.0.upgrade().map(|shared| Pipeline { shared })
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("session_id", &self.shared.session_id)
            .field("tools", &self.registry().len())
            .finish_non_exhaustive()
    }
}

impl Pipeline {
    pub fn builder(
        registry: Arc<ToolRegistry>,
        cwd: std::path::PathBuf,
        session_id: impl Into<String>,
    ) -> PipelineBuilder {
        PipelineBuilder {
            inner: Shared {
                registry: std::sync::RwLock::new(registry),
                permission: Arc::new(AllowAll),
                hooks: Arc::new(NoHooks),
                budget: Arc::new(Unlimited),
                default_timeout: DEFAULT_TOOL_TIMEOUT,
                cwd,
                session_id: session_id.into(),
                events: EventBus::default(),
                delegated: Default::default(),
                tool_references: Default::default(),
            },
        }
    }

    /// The tools now (a snapshot: later additions do not change it).
    pub fn registry(&self) -> Arc<ToolRegistry> {
        Arc::clone(
            &self
                .shared
                .registry
                .read()
                .unwrap_or_else(|p| p.into_inner()),
        )
    }

    /// Changes the registry by copy-and-swap (calls in flight keep their snapshot).
    fn update_registry<T>(&self, change: impl FnOnce(&mut ToolRegistry) -> T) -> T {
        let mut guard = self
            .shared
            .registry
            .write()
            .unwrap_or_else(|p| p.into_inner());
        let mut next = ToolRegistry::clone(&guard);
        let out = change(&mut next);
        *guard = Arc::new(next);
        out
    }

    /// Adds tools that are not there yet (e.g. announced by an MCP server's
    /// `tools/list_changed`). Tools are only ever added within a session, so
    /// the definitions the model saw stay valid and prompt caching holds.
    /// Returns the names added.
    pub fn add_tools(&self, tools: Vec<Arc<dyn tack_tool::Tool>>) -> Vec<String> {
        self.add_tools_as(tools, &|_| tack_tool::Exposure::Direct)
    }

    /// [`Pipeline::add_tools`], each with the exposure `exposure` gives its
    /// name (a deferred one is found by tool search).
    pub fn add_tools_as(
        &self,
        tools: Vec<Arc<dyn tack_tool::Tool>>,
        exposure: &dyn Fn(&str) -> tack_tool::Exposure,
    ) -> Vec<String> {
        self.update_registry(|registry| {
            let mut added = Vec::new();
            for tool in tools {
                let name = tool.name().to_owned();
                if registry.contains(&name) {
                    continue;
                }
                match registry.register_as(tool, exposure(&name)) {
                    Ok(()) => added.push(name),
                    Err(e) => tracing::warn!("a new tool was left out: {e}"),
                }
            }
            added
        })
    }

    /// Starts sending the definitions of these `Deferred` tools (they were
    /// discovered); they join the end of the tools part of the request.
    /// Returns the names revealed.
    pub fn reveal(&self, names: &[&str]) -> Vec<String> {
        self.update_registry(|registry| {
            names
                .iter()
                .filter(|n| registry.reveal(n))
                .map(|n| (*n).to_owned())
                .collect()
        })
    }

    /// A pipeline with the same permission stage, hooks, events (so one
    /// audit trail), timeout and the tools registered now, except that
    /// `tools` replace the same-named ones (those not registered are left
    /// out) and `budget` is its own: for one client of `tack mcp serve
    /// --http`, whose built-in tools keep state of their own (the shell's
    /// directory and jobs, read files, artifacts). Tools added to this
    /// pipeline later do not reach it. Dropping it drops its tools.
    pub fn with_own_tools(
        &self,
        tools: Vec<Arc<dyn tack_tool::Tool>>,
        budget: Arc<dyn BudgetStage>,
    ) -> Pipeline {
        let mut registry = ToolRegistry::clone(&self.registry());
        for tool in tools {
            registry.replace_instance(tool);
        }
        let shared = &self.shared;
        Pipeline {
            shared: Arc::new(Shared {
                registry: std::sync::RwLock::new(Arc::new(registry)),
                permission: Arc::clone(&shared.permission),
                hooks: Arc::clone(&shared.hooks),
                budget,
                default_timeout: shared.default_timeout,
                cwd: shared.cwd.clone(),
                session_id: shared.session_id.clone(),
                events: shared.events.clone(),
                delegated: Default::default(),
                tool_references: Default::default(),
            }),
        }
    }

    /// A pipeline for a sub-agent: the same permission stage (so the rules,
    /// the asks and the approvals given in the session are the parent's),
    /// output budget and timeout, with the tools of `registry` (a subset of
    /// this one's), `hooks` (the parent's runner bound to the sub-agent) and
    /// its own `events` (its own transcript).
    ///
    /// `narrowing`: what the sub-agent's definition adds to the permission
    /// stage ([`PermissionStage::narrowed`]); `Err` when there is some and
    /// the stage cannot apply it (the sub-agent must not start).
    pub fn for_subagent(
        &self,
        registry: ToolRegistry,
        hooks: Arc<dyn HookStage>,
        events: EventBus,
        narrowing: Option<crate::permission::Narrowing>,
    ) -> Result<Pipeline, String> {
        let shared = &self.shared;
        let permission = match narrowing {
            None => Arc::clone(&shared.permission),
            Some(narrowing) => shared.permission.narrowed(narrowing).ok_or_else(|| {
                "this session's permission stage cannot apply an agent's permissionMode or disallowedTools rules".to_owned()
            })?,
        };
        Ok(Pipeline {
            shared: Arc::new(Shared {
                registry: std::sync::RwLock::new(Arc::new(registry)),
                permission,
                hooks,
                budget: Arc::clone(&shared.budget),
                default_timeout: shared.default_timeout,
                cwd: shared.cwd.clone(),
                session_id: shared.session_id.clone(),
                events,
                delegated: Default::default(),
                tool_references: Default::default(),
            }),
        })
    }

    /// Says whether the model's API expands `tool_reference` blocks (set by
    /// the loop from its client; [`ToolHost::tool_references`]).
    pub fn set_tool_references(&self, on: bool) {
        self.shared
            .tool_references
            .store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// Where this pipeline's events go.
    pub fn events(&self) -> &EventBus {
        &self.shared.events
    }

    /// The hook stage of this pipeline.
    pub fn hook_stage(&self) -> Arc<dyn HookStage> {
        Arc::clone(&self.shared.hooks)
    }

    /// Adds tokens a sub-agent spent for a call of this pipeline; the loop
    /// counts them in its run and session usage.
    pub fn add_delegated_usage(&self, usage: &tack_protocol::Usage) {
        self.shared
            .delegated
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .add(usage);
    }

    /// The tokens sub-agents spent since the last call (and resets them).
    pub fn take_delegated_usage(&self) -> tack_protocol::Usage {
        std::mem::take(
            &mut *self
                .shared
                .delegated
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        )
    }

    pub fn session_id(&self) -> &str {
        &self.shared.session_id
    }

    /// A handle that does not keep the pipeline alive.
    pub fn downgrade(&self) -> WeakPipeline {
        WeakPipeline(Arc::downgrade(&self.shared))
    }

    /// Whether a call may run at the same time as other safe calls.
    pub fn is_concurrency_safe(&self, dispatch: &Dispatch) -> bool {
        dispatch.input_error.is_none()
            && self
                .registry()
                .get(&dispatch.call.name)
                .is_some_and(|t| t.tool.is_concurrency_safe(&dispatch.call.input))
    }
}

#[async_trait]
impl ToolHost for Pipeline {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.registry().callable_definitions()
    }

    fn annotations(&self, name: &str) -> Option<ToolAnnotations> {
        self.registry().get(name).map(|t| t.tool.annotations())
    }

    fn output_schema(&self, name: &str) -> Option<serde_json::Value> {
        self.registry()
            .get(name)
            .and_then(|t| t.tool.output_schema())
    }

    async fn call(&self, call: ToolCall, options: CallOptions) -> ToolCallResult {
        self.dispatch(call.into(), options).await
    }

    fn registry(&self) -> Option<Arc<ToolRegistry>> {
        Some(Pipeline::registry(self))
    }

    fn refused_outright(&self, name: &str) -> bool {
        let registry = Pipeline::registry(self);
        let mcp = registry.get(name).and_then(|t| t.tool.mcp_origin());
        self.shared.permission.refuses_outright(name, mcp).is_some()
    }

    fn reveal(&self, names: &[&str]) -> Vec<String> {
        Pipeline::reveal(self, names)
    }

    fn is_concurrency_safe(&self, name: &str, input: &serde_json::Value) -> bool {
        self.registry()
            .get(name)
            .is_some_and(|t| t.tool.is_concurrency_safe(input))
    }

    fn tool_references(&self) -> bool {
        self.shared
            .tool_references
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}
