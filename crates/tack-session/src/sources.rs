//! Tool sources: each kind of tool is a source that contributes tools to the
//! session's one registry. Adding a kind of tool is a new source, not a new
//! branch in assembly.
//!
//! Sources today: [`Builtins`] (Bash, Read, Edit… with the session's
//! settings), [`Mcp`] (servers from `.mcp.json` and settings, approvals,
//! changed definitions, tools announced later), [`Fixtures`] (the test
//! fixture tools) and [`RustTools`] (tools an embedder wrote).

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tack_mcp::client::{ManagerOptions, McpManager, ProgressSink, StartOutcome};
use tack_policy::{DecidedBy, Policy, Request, RuleKind, evaluate};
use tack_tool::artifacts::ArtifactStore;
use tack_tool::{Exposure, Tool, ToolRegistry, Typed, TypedTool};

use crate::error::{Error, Result};
use crate::interaction::{Interaction, InteractionRequests};
use crate::project::ProjectContext;

/// What a source may use while it loads.
pub struct SourceContext<'a> {
    pub project: &'a ProjectContext,
    pub session_id: &'a str,
    /// Where cut outputs are kept (shared with the output budget).
    pub artifacts: &'a Arc<ArtifactStore>,
    /// The session's compiled permission policy.
    pub policy: &'a Policy,
    pub interaction: &'a Arc<dyn Interaction>,
}

/// One tool from a source, with how the model sees it.
pub struct SourcedTool {
    pub tool: Arc<dyn Tool>,
    pub exposure: Exposure,
}

impl SourcedTool {
    pub fn direct(tool: Arc<dyn Tool>) -> Self {
        Self {
            tool,
            exposure: Exposure::Direct,
        }
    }
}

/// Tools that join a running session (an MCP server's `tools/list_changed`).
pub struct ToolUpdates {
    /// Changes when new tools may be there.
    pub changed: tokio::sync::watch::Receiver<u64>,
    /// The source's tools now (those already registered are skipped).
    pub tools: Box<dyn Fn() -> Vec<Arc<dyn Tool>> + Send + Sync>,
}

/// A kind of tool.
#[async_trait]
pub trait ToolSource: Send + Sync {
    /// A name for messages, e.g. "built-in tools".
    fn name(&self) -> &str;
    /// The tools of this source, once, when the session is assembled.
    async fn load(&self, cx: &SourceContext<'_>) -> Result<Vec<SourcedTool>>;
    /// Whether a tool that cannot be registered (bad name or schema, a
    /// duplicate) fails the session (`true`) or is left out with a notice.
    fn strict(&self) -> bool {
        true
    }
    /// Tools that arrive later, if this source has any.
    fn updates(&self) -> Option<ToolUpdates> {
        None
    }
    /// Called once when the session ends (stop servers, processes).
    async fn shutdown(&self) {}
}

/// tack's built-in tools.
#[derive(Debug, Default, Clone, Copy)]
pub struct Builtins;

#[async_trait]
impl ToolSource for Builtins {
    fn name(&self) -> &str {
        Builtins::NAME
    }

    async fn load(&self, cx: &SourceContext<'_>) -> Result<Vec<SourcedTool>> {
        let tools = Builtins::tools(cx.project, cx.policy, cx.artifacts);
        Ok(tools.into_iter().map(SourcedTool::direct).collect())
    }
}

impl Builtins {
    /// The name this source goes by.
    pub(crate) const NAME: &'static str = "built-in tools";

    /// A fresh set of the built-in tools, with state of their own (a shell,
    /// read files) and the given artifact store.
    pub(crate) fn tools(
        project: &ProjectContext,
        policy: &Policy,
        artifacts: &Arc<ArtifactStore>,
    ) -> Vec<Arc<dyn Tool>> {
        tack_tools::builtin_tools(&tack_tools::BuiltinOptions {
            cwd: project.cwd.clone(),
            artifacts: Arc::clone(artifacts),
            web: project.settings.web_fetch.clone(),
            web_search: project.settings.web_search.clone(),
            read_filter: read_filter(project, policy),
        })
    }
}

/// Read deny and ask rules applied to each file Grep and Glob find, so a
/// denied `.env` cannot be read through a search. `None` when no such rule
/// exists (no cost then).
fn read_filter(
    project: &ProjectContext,
    policy: &Policy,
) -> Option<tack_tools::search::ReadFilter> {
    let has_read_limits = project
        .settings
        .permissions
        .rules()
        .iter()
        .any(|r| r.kind != RuleKind::Allow && r.text.trim_start().starts_with("Read"));
    if !has_read_limits {
        return None;
    }
    let policy = policy.clone();
    let cwd = project.cwd.clone();
    Some(Arc::new(move |path: &Path| {
        let input = serde_json::json!({ "file_path": path });
        let decision = evaluate(&Request::resolve("Read", &input, &cwd, &policy), &policy);
        let by_rule = matches!(decision.why().decided_by, DecidedBy::Rule { .. });
        !(decision.is_deny() || (decision.is_ask() && by_rule))
    }))
}

/// The fixture tools of tack-testkit (`--fixture-tools`, for tests).
#[derive(Debug, Default, Clone, Copy)]
pub struct Fixtures;

#[async_trait]
impl ToolSource for Fixtures {
    fn name(&self) -> &str {
        "fixture tools"
    }

    async fn load(&self, _cx: &SourceContext<'_>) -> Result<Vec<SourcedTool>> {
        let mut registry = ToolRegistry::new();
        tack_testkit::tools::register_fixture_tools(&mut registry)?;
        Ok(registry
            .iter()
            .map(|t| SourcedTool::direct(Arc::clone(&t.tool)))
            .collect())
    }
}

/// Tools written in Rust by an embedder.
#[derive(Default)]
pub struct RustTools {
    tools: Vec<SourcedTool>,
}

impl RustTools {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a typed tool, sent to the model.
    pub fn typed<T: TypedTool>(self, tool: T) -> Self {
        self.tool(Arc::new(Typed(tool)), Exposure::Direct)
    }

    /// Adds a tool with the given exposure.
    pub fn tool(mut self, tool: Arc<dyn Tool>, exposure: Exposure) -> Self {
        self.tools.push(SourcedTool { tool, exposure });
        self
    }
}

#[async_trait]
impl ToolSource for RustTools {
    fn name(&self) -> &str {
        "Rust tools"
    }

    async fn load(&self, _cx: &SourceContext<'_>) -> Result<Vec<SourcedTool>> {
        Ok(self
            .tools
            .iter()
            .map(|t| SourcedTool {
                tool: Arc::clone(&t.tool),
                exposure: t.exposure,
            })
            .collect())
    }
}

/// MCP servers: `.mcp.json` plus `mcpServers` in every settings file. Each
/// server's tools become `mcp__<server>__<tool>`. A project server starts
/// only once approved (asked through the [`Interaction`], or `approve`);
/// a tool whose definition changed is withheld unless the person approves
/// the change.
pub struct Mcp {
    approve: bool,
    progress: Option<ProgressSink>,
    manager: Mutex<Option<McpManager>>,
}

impl Mcp {
    /// `approve`: start project servers without a recorded approval (`--approve-mcp`).
    pub fn new(approve: bool) -> Self {
        Self {
            approve,
            progress: None,
            manager: Mutex::new(None),
        }
    }

    /// Where progress notifications of long MCP calls go.
    pub fn on_progress(mut self, progress: ProgressSink) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The manager of a project's servers (starts nothing), for `tack mcp …`.
    pub fn manager(project: &ProjectContext, approve: bool) -> Result<McpManager> {
        Self::manager_with(project, approve, None, None)
    }

    fn manager_with(
        project: &ProjectContext,
        approve: bool,
        progress: Option<ProgressSink>,
        interaction: Option<&Arc<dyn Interaction>>,
    ) -> Result<McpManager> {
        let state = &project.state_dir;
        let mut options = ManagerOptions::new(
            state.clone(),
            state.join("mcp-cache"),
            state.join("logs").join("mcp"),
            project.cwd.clone(),
        );
        options.approve_project_servers = approve;
        options.progress = progress;
        if let Some(interaction) = interaction {
            options.requests = Arc::new(InteractionRequests(Arc::clone(interaction)));
        }
        Ok(McpManager::new(
            project.settings.mcp_servers.clone(),
            options,
        )?)
    }

    /// The manager of the session's servers once the source has loaded
    /// (None before), e.g. to call a server's tool outside the model's
    /// calls (`--permission-prompt-tool`) or to list their states.
    pub fn running(&self) -> Option<McpManager> {
        self.current()
    }

    fn current(&self) -> Option<McpManager> {
        self.manager
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

#[async_trait]
impl ToolSource for Mcp {
    fn name(&self) -> &str {
        "MCP servers"
    }

    fn strict(&self) -> bool {
        false
    }

    async fn load(&self, cx: &SourceContext<'_>) -> Result<Vec<SourcedTool>> {
        let manager = Self::manager_with(
            cx.project,
            self.approve,
            self.progress.clone(),
            Some(cx.interaction),
        )?;
        if manager.list().is_empty() {
            return Ok(Vec::new());
        }
        let interaction = cx.interaction;
        for pending in manager.pending_approval() {
            let name = pending.name;
            if interaction.can_ask() && interaction.approve_server(&name).await {
                manager.approve_server(&name)?;
            } else {
                interaction.notice(&format!(
                    "the project MCP server {name:?} is not approved, so its tools are left out: run `tack mcp approve {name}` or pass --approve-mcp"
                ));
            }
        }
        for report in manager.start().await {
            if let StartOutcome::Failed { error } = &report.outcome {
                interaction.notice(&format!(
                    "the MCP server {:?} failed to start, so its tools are left out: {error}",
                    report.server
                ));
            }
        }
        if interaction.can_ask() {
            approve_changes(&manager, interaction.as_ref()).await;
        }
        let tools = manager
            .tools()
            .into_iter()
            .map(SourcedTool::direct)
            .collect();
        *self.manager.lock().unwrap_or_else(|p| p.into_inner()) = Some(manager);
        Ok(tools)
    }

    fn updates(&self) -> Option<ToolUpdates> {
        let manager = self.current()?;
        let changed = manager.subscribe();
        Some(ToolUpdates {
            changed,
            tools: Box::new(move || manager.tools()),
        })
    }

    async fn shutdown(&self) {
        if let Some(manager) = self.current() {
            manager.shutdown().await;
        }
    }
}

/// Servers whose tools changed since approval: ask whether to offer the new
/// definitions; yes re-pins them.
async fn approve_changes(manager: &McpManager, interaction: &dyn Interaction) {
    for server in manager.list().into_iter().filter(|s| s.withheld > 0) {
        let changes = match manager.diff(&server.name).await {
            Ok(changes) if !changes.is_empty() => changes,
            _ => continue,
        };
        if interaction.approve_changes(&server.name, &changes).await
            && let Err(e) = manager.approve_changes(&server.name).await
        {
            interaction.notice(&format!(
                "the changed tools of {:?} could not be approved: {e}",
                server.name
            ));
        }
    }
}

/// The sources of `tack run` and `tack mcp serve`: built-ins, then MCP.
pub fn default_sources(approve_mcp: bool) -> Vec<Arc<dyn ToolSource>> {
    vec![Arc::new(Builtins), Arc::new(Mcp::new(approve_mcp))]
}

/// A source's failure, named.
pub(crate) fn source_error(source: &dyn ToolSource, e: impl std::fmt::Display) -> Error {
    Error::Source {
        source_name: source.name().to_owned(),
        message: e.to_string(),
    }
}
