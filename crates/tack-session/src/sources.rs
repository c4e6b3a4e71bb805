//! Tool sources: each kind of tool is a source that contributes tools to the
//! session's one registry. Adding a kind of tool is a new source, not a new
//! branch in assembly.
//!
//! Sources today: [`Builtins`] (Bash, Read, Edit… with the session's
//! settings), [`crate::declared::Declared`] (command tools declared in
//! settings), [`Mcp`] (servers from `.mcp.json` and settings, approvals,
//! changed definitions, tools announced later), [`Fixtures`] (the test
//! fixture tools) and [`RustTools`] (tools an embedder wrote).

use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use tack_mcp::client::{ManagerOptions, McpManager, ProgressSink, StartOutcome};
use tack_policy::Policy;
use tack_tool::artifacts::ArtifactStore;
use tack_tool::{Exposure, Tool, ToolRegistry, Typed, TypedTool};

use crate::error::{Error, Result};
use crate::interaction::{Interaction, InteractionRequests};
use crate::project::ProjectContext;
use crate::sampling::Sampler;

/// What a source may use while it loads.
pub struct SourceContext<'a> {
    pub project: &'a ProjectContext,
    pub session_id: &'a str,
    /// Where cut outputs are kept (shared with the output budget).
    pub artifacts: &'a Arc<ArtifactStore>,
    /// The session's compiled permission policy.
    pub policy: &'a Policy,
    /// The same policy as it stands at each moment (rules added or removed
    /// during the session, the mode): what the permission stage decides
    /// with, for tools that apply it themselves.
    pub live_policy: &'a LivePolicy,
    pub interaction: &'a Arc<dyn Interaction>,
    /// The session's events (MCP sampling is recorded there).
    pub events: &'a tack_agent::EventBus,
}

/// The session's permission policy in a cell shared with its permission
/// stage ([`tack_agent::permission::PolicyStage::sharing`]), which replaces
/// it when a rule is added or removed during the session.
pub type LivePolicy = Arc<RwLock<Policy>>;

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
    /// Fresh instances of this source's tools that keep per-conversation
    /// state (the Skill tool's loaded skills), for another conversation
    /// (a sub-agent, an MCP client): they replace the session's instances
    /// in its registry.
    fn conversation_tools(&self) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }
    /// The session resumed with `messages` (e.g. skills loaded before are
    /// not sent again).
    fn resumed(&self, _messages: &[tack_protocol::Message]) {}
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
        let tools = Builtins::tools(cx.project, cx.live_policy, cx.artifacts);
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
        policy: &LivePolicy,
        artifacts: &Arc<ArtifactStore>,
    ) -> Vec<Arc<dyn Tool>> {
        tack_tools::builtin_tools(&tack_tools::BuiltinOptions {
            cwd: project.cwd.clone(),
            program_roots: program_roots(project, policy),
            artifacts: Arc::clone(artifacts),
            web: project.settings.web_fetch.clone(),
            web_search: project.settings.web_search.clone(),
            read_filter: read_filter(policy),
            sandbox: project.sandbox(),
        })
    }
}

/// The directories no program tack picks itself (the Bash tool's shell) is
/// taken from: the project root and the session's working directories.
fn program_roots(project: &ProjectContext, policy: &LivePolicy) -> Vec<std::path::PathBuf> {
    let policy = policy.read().unwrap_or_else(|p| p.into_inner());
    std::iter::once(project.project_root.clone())
        .chain(policy.working_dirs().into_iter().map(Path::to_owned))
        .collect()
}

/// The rules applied to each file Grep and Glob find
/// ([`tack_policy::may_show_found`]: the searching tool's deny and ask
/// rules and Read's), so a denied `.env` cannot be read, or listed, through
/// a search. Read from the live policy at each file, so a rule added
/// during the session (`/permissions deny …`) holds from the next search
/// on; without any such rule it costs one look at the rule index per file.
fn read_filter(policy: &LivePolicy) -> Option<tack_tools::search::ReadFilter> {
    let policy = Arc::clone(policy);
    Some(Arc::new(move |tool: &str, path: &Path| {
        let policy = policy.read().unwrap_or_else(|p| p.into_inner());
        tack_policy::may_show_found(&policy, tool, path)
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

/// How long a resumed session waits for the MCP tasks it left running.
const LATE_RESULTS_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// MCP servers: `.mcp.json` plus `mcpServers` in every settings file. Each
/// server's tools become `mcp__<server>__<tool>`. A project server starts
/// only once approved (asked through the [`Interaction`], or `approve`);
/// a tool whose definition changed, or a skill whose manifest changed, is
/// withheld unless the person approves the change. The servers' skills
/// (the skills extension) reach the session's catalog through
/// [`RemoteSkills`](tack_skills::RemoteSkills) (`Skills::with_remote`).
pub struct Mcp {
    approve: bool,
    progress: Option<ProgressSink>,
    manager: Mutex<Option<McpManager>>,
    /// The session's model, for servers allowed to sample (`mcpSampling`).
    model: Mutex<Option<Arc<dyn tack_model::ModelClient>>>,
}

impl Mcp {
    /// `approve`: start project servers without a recorded approval (`--approve-mcp`).
    pub fn new(approve: bool) -> Self {
        Self {
            approve,
            progress: None,
            manager: Mutex::new(None),
            model: Mutex::new(None),
        }
    }

    /// The model servers allowed in `mcpSampling` may ask for completions
    /// (set before the session is assembled; without it every sampling
    /// request is refused).
    pub fn set_model(&self, client: Arc<dyn tack_model::ModelClient>) {
        *self.model.lock().unwrap_or_else(|p| p.into_inner()) = Some(client);
    }

    /// Where progress notifications of long MCP calls go.
    pub fn on_progress(mut self, progress: ProgressSink) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The manager of a project's servers (starts nothing), for `tack mcp …`.
    pub fn manager(project: &ProjectContext, approve: bool) -> Result<McpManager> {
        Self::manager_with(project, approve, None, None, None)
    }

    /// Where a session keeps the ids of its MCP tasks still running: next
    /// to its transcript.
    pub fn task_file(project: &ProjectContext, session_id: &str) -> std::path::PathBuf {
        project
            .sessions_dir()
            .join(format!("{session_id}.mcp-tasks.json"))
    }

    /// The results of MCP tasks this session left running when it last
    /// stopped (a resumed session), polled to their end (at most
    /// `LATE_RESULTS_WAIT`), as text for the model's next prompt; empty
    /// when there were none.
    pub async fn late_results(&self) -> Vec<String> {
        let Some(manager) = self.current() else {
            return Vec::new();
        };
        let cancel = tokio_util::sync::CancellationToken::new();
        let collected = tokio::time::timeout(LATE_RESULTS_WAIT, manager.resume_tasks(&cancel));
        let Ok(late) = collected.await else {
            cancel.cancel();
            return vec![format!(
                "[tack: MCP tasks this session left running did not finish within {} s; they are asked about again on the next resume]",
                LATE_RESULTS_WAIT.as_secs()
            )];
        };
        late.into_iter()
            .map(|late| {
                let task = &late.task;
                let head = format!(
                    "[tack: the MCP tool call {} (server {:?}, task {}) was still running when this session last stopped;",
                    tack_mcp::client::model_tool_name(&task.server, &task.tool),
                    task.server,
                    task.task_id
                );
                match late.outcome {
                    Ok(output) => {
                        let text: Vec<String> = output
                            .content
                            .iter()
                            .filter_map(|b| match b {
                                tack_protocol::ContentBlock::Text(t) => Some(t.text.clone()),
                                _ => None,
                            })
                            .collect();
                        format!("{head} its result arrived since:]\n{}", text.join("\n"))
                    }
                    Err(e) => format!("{head} it ended with an error: {e}]"),
                }
            })
            .collect()
    }

    fn manager_with(
        project: &ProjectContext,
        approve: bool,
        progress: Option<ProgressSink>,
        requests: Option<InteractionRequests>,
        session_id: Option<&str>,
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
        options.timeouts_from_env(&|v| std::env::var(v).ok())?;
        if let Some(requests) = requests {
            options.requests = Arc::new(requests);
        }
        options.task_file = session_id.map(|id| Self::task_file(project, id));
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
            Some(InteractionRequests {
                interaction: Arc::clone(cx.interaction),
                sampler: self
                    .model
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone()
                    .map(|client| {
                        Arc::new(Sampler::new(
                            cx.project.settings.mcp_sampling.clone(),
                            client,
                            cx.events.clone(),
                        ))
                    }),
            }),
            Some(cx.session_id),
        )?;
        if manager.list().is_empty() {
            return Ok(Vec::new());
        }
        let interaction = cx.interaction;
        for pending in manager.pending_approval() {
            let name = pending.name.clone();
            if interaction.can_ask() && interaction.approve_server(&pending).await {
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

/// The skills of the servers, once the source has loaded (servers started
/// by it listed theirs; a lazily started server's come from its cached
/// listing, and it starts when one is loaded). Before: none.
#[async_trait]
impl tack_skills::RemoteSkills for Mcp {
    async fn skills(&self) -> (Vec<tack_skills::Skill>, Vec<String>) {
        match self.current() {
            Some(manager) => manager.skills(),
            None => (Vec::new(), Vec::new()),
        }
    }
}

/// Servers whose tools or skills changed since approval: ask whether to
/// offer the new definitions and manifests; yes re-pins them. A changed
/// skill is put to the person as a changed definition named `skill NAME`
/// (`tack mcp diff` shows its manifests).
async fn approve_changes(manager: &McpManager, interaction: &dyn Interaction) {
    let changed = manager
        .list()
        .into_iter()
        .filter(|s| s.withheld > 0 || s.withheld_skills > 0);
    for server in changed {
        let mut changes = match manager.diff(&server.name).await {
            Ok(changes) => changes,
            Err(_) => continue,
        };
        let skills = manager
            .skill_changes(&server.name)
            .await
            .unwrap_or_default();
        changes.extend(skills.iter().map(skill_as_change));
        if changes.is_empty() || !interaction.approve_changes(&server.name, &changes).await {
            continue;
        }
        let approved = async {
            manager.approve_changes(&server.name).await?;
            manager.approve_skill_changes(&server.name).await
        };
        if let Err(e) = approved.await {
            interaction.notice(&format!(
                "the changed tools and skills of {:?} could not be approved: {e}",
                server.name
            ));
        }
    }
}

/// A changed skill manifest in the shape the approval prompt shows: named
/// `skill NAME`, its description, and its files as the "schema".
fn skill_as_change(change: &tack_mcp::client::SkillChange) -> tack_mcp::client::ToolChange {
    let pin = |p: &tack_mcp::client::PinnedSkill| tack_mcp::client::PinnedTool {
        hash: p.digest.clone(),
        description: Some(p.description.clone()),
        input_schema: serde_json::json!({ "uri": p.uri, "files": p.files }),
    };
    tack_mcp::client::ToolChange {
        tool: format!("skill {}", change.skill),
        old: pin(&change.old),
        new: pin(&change.new),
    }
}

/// The sources of `tack run` and `tack mcp serve`: built-ins, command tools
/// declared in settings, MCP, then skills (the servers' skills join the
/// disk's).
pub fn default_sources(approve_mcp: bool) -> Vec<Arc<dyn ToolSource>> {
    let mcp = Arc::new(Mcp::new(approve_mcp));
    vec![
        Arc::new(Builtins),
        Arc::new(crate::declared::Declared),
        Arc::clone(&mcp) as Arc<dyn ToolSource>,
        Arc::new(crate::skills::Skills::new(Default::default()).with_remote(mcp)),
    ]
}

/// A source's failure, named.
pub(crate) fn source_error(source: &dyn ToolSource, e: impl std::fmt::Display) -> Error {
    Error::Source {
        source_name: source.name().to_owned(),
        message: e.to_string(),
    }
}
