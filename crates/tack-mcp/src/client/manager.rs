//! The manager: every configured server, its state, and the tools the session
//! offers from it.
//!
//! A server goes through: approval (project servers) → resolve (variables
//! expanded) → start (spawn or connect, lifecycle, `tools/list`, all within
//! the startup timeout) → running. With lazy start, a server whose tool list
//! is cached (keyed by a hash of its config) is not started at all until the
//! first call of one of its tools. A server that stops is started again by the
//! next call.
//!
//! The tools the model sees only grow within a session: a list change adds
//! tools, and a tool that disappeared stays listed but answers that it is no
//! longer available. A tool whose definition differs from its pin is withheld
//! (not offered, and refused if it was offered from the cache) until the user
//! approves the change.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tack_protocol::ContentBlock;
use tack_tool::{Tool, ToolError};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::config::{McpConfig, TransportConfig};
use super::connection::Connection;
use super::convert::ServerTool;
use super::error::{ClientError, Result};
use super::options::ManagerOptions;
use super::report::{
    CallOutcome, PendingServer, ServerListing, ServerState, StartOutcome, StartReport, ToolListing,
};
use super::runtime::{
    Offered, Registry, RuntimeState, ServerRuntime, Settings, definition_tokens, lock,
};
use super::store::{Approvals, PinnedTool, Pins, SkillChange, ToolChange};
use super::tasks::{LateResult, read_pending};

/// Every configured MCP server of a session.
///
/// Cloning is cheap (a shared handle).
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

struct Inner {
    runtimes: BTreeMap<String, Arc<ServerRuntime>>,
    registry: Arc<Registry>,
    settings: Arc<Settings>,
    approvals: Mutex<Approvals>,
    invalid: Mutex<Vec<ClientError>>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.inner.runtimes.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

fn safe_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl McpManager {
    /// Builds the manager; loads approvals and pins from the state dir. Starts nothing.
    pub fn new(config: McpConfig, options: ManagerOptions) -> Result<Self> {
        let approvals = Approvals::load(&options.state_dir, &options.cwd)?;
        let pins = Pins::load(&options.state_dir)?;
        let (generation, _) = watch::channel(0);
        let registry = Arc::new(Registry {
            pins: Mutex::new(pins),
            offered: Mutex::new(Offered::default()),
            generation,
        });
        let settings = Arc::new(Settings { options });
        let runtimes = config
            .servers()
            .map(|server| {
                let approved = approvals.is_approved(server)
                    || settings.options.approve_project_servers
                    || server.preapproved;
                let runtime = Arc::new(ServerRuntime {
                    config: server.clone(),
                    settings: settings.clone(),
                    registry: Arc::downgrade(&registry),
                    approved: AtomicBool::new(approved),
                    current: Mutex::new(None),
                    starting: tokio::sync::Mutex::new(()),
                    state: Mutex::new(RuntimeState::default()),
                    list_changed: Arc::new(Notify::new()),
                    log_path: settings
                        .options
                        .log_dir
                        .join(format!("{}.log", safe_file_name(&server.name))),
                });
                (server.name.clone(), runtime)
            })
            .collect();
        Ok(Self {
            inner: Arc::new(Inner {
                runtimes,
                registry,
                settings,
                approvals: Mutex::new(approvals),
                invalid: Mutex::new(config.invalid),
            }),
        })
    }

    fn runtime(&self, server: &str) -> Result<&Arc<ServerRuntime>> {
        self.inner.runtimes.get(server).ok_or_else(|| {
            let known: Vec<&str> = self.inner.runtimes.keys().map(String::as_str).collect();
            ClientError::NotFound(format!(
                "no MCP server named {server:?} is configured (configured: {})",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ))
        })
    }

    /// Starts the approved servers in parallel, each within the startup
    /// timeout; with lazy start, servers with a cached tool list are only
    /// offered. Failures are reported, their tools left out, and the session
    /// goes on. Servers already reported are skipped, so calling this again
    /// (after approvals) starts only what is new.
    pub async fn start(&self) -> Vec<StartReport> {
        let mut reports: Vec<StartReport> = std::mem::take(&mut *lock(&self.inner.invalid))
            .into_iter()
            .map(|error| StartReport {
                server: match &error {
                    ClientError::Config { server, .. } => server.clone().unwrap_or_default(),
                    _ => String::new(),
                },
                source: None,
                outcome: StartOutcome::Failed { error },
            })
            .collect();
        // Everything this start offers is one batch, sorted by server and
        // tool name, whichever server finishes first.
        self.inner.registry.begin_batch();
        let mut to_start = Vec::new();
        for runtime in self.inner.runtimes.values() {
            if lock(&runtime.state).reported {
                continue;
            }
            let source = Some(runtime.config.source);
            if !runtime.approved.load(Ordering::SeqCst) {
                reports.push(StartReport {
                    server: runtime.config.name.clone(),
                    source,
                    outcome: StartOutcome::NeedsApproval,
                });
                continue;
            }
            lock(&runtime.state).reported = true;
            if self.inner.settings.options.lazy
                && let Some((tools, withheld, fresh)) = runtime.load_cache()
            {
                reports.push(StartReport {
                    server: runtime.config.name.clone(),
                    source,
                    outcome: StartOutcome::Deferred { tools, withheld },
                });
                if !fresh {
                    // Stale (past its `ttlMs`): offered now, so the session
                    // starts at once, and listed again in the background; a
                    // call waits for that start, and a changed definition is
                    // withheld as on any start.
                    let runtime = runtime.clone();
                    tokio::spawn(async move {
                        if let Err(error) = runtime.ensure_running().await {
                            tracing::debug!("revalidating a stale tool list: {error}");
                        }
                    });
                }
                continue;
            }
            to_start.push(runtime.clone());
        }
        let started = futures::future::join_all(to_start.iter().map(|runtime| async move {
            let at = Instant::now();
            let outcome = match runtime.ensure_running().await {
                Ok(conn) => {
                    let state = lock(&runtime.state);
                    StartOutcome::Started {
                        tools: state.tools.len() - state.withheld.len(),
                        withheld: state.withheld.len(),
                        protocol_version: conn.protocol_version.clone(),
                        millis: u64::try_from(at.elapsed().as_millis()).unwrap_or(u64::MAX),
                    }
                }
                Err(error) => {
                    // Reported to the caller, which tells the user once.
                    tracing::debug!("{error}");
                    StartOutcome::Failed { error }
                }
            };
            StartReport {
                server: runtime.config.name.clone(),
                source: Some(runtime.config.source),
                outcome,
            }
        }))
        .await;
        self.inner.registry.end_batch();
        reports.extend(started);
        reports
    }

    /// The tools offered so far, in a deterministic order: the tools of one
    /// [`Self::start`] sorted by server name, then tool name; tools offered
    /// later (a list change, an approved change) after them. The set only
    /// grows within a session, and a tool keeps its place.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        lock(&self.inner.registry.offered)
            .tools
            .iter()
            .map(|t| t.clone() as Arc<dyn Tool>)
            .collect()
    }

    /// Changes when tools are added (a list change, an approved change).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.registry.generation.subscribe()
    }

    /// Project servers waiting for the user's approval.
    pub fn pending_approval(&self) -> Vec<PendingServer> {
        self.inner
            .runtimes
            .values()
            .filter(|r| !r.approved.load(Ordering::SeqCst))
            .map(|r| PendingServer {
                name: r.config.name.clone(),
                source: r.config.source,
                transport: r.config.transport.kind(),
                target: match &r.config.transport {
                    TransportConfig::Stdio { command, args, .. } => {
                        std::iter::once(command.as_str())
                            .chain(args.iter().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join(" ")
                    }
                    TransportConfig::Http { url, .. } | TransportConfig::Sse { url, .. } => {
                        url.clone()
                    }
                },
                variables: r.config.variables(),
            })
            .collect()
    }

    /// Records the user's approval of a server (as configured now) and lets it start.
    pub fn approve_server(&self, server: &str) -> Result<()> {
        let runtime = self.runtime(server)?;
        lock(&self.inner.approvals).approve(&runtime.config)?;
        runtime.approved.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// The state of every server, for `tack mcp list`. Starts nothing.
    pub fn list(&self) -> Vec<ServerListing> {
        self.inner
            .runtimes
            .values()
            .map(|r| {
                let state = r.state();
                let st = lock(&r.state);
                let state = match state {
                    ServerState::Failed
                        if st
                            .last_failure
                            .as_ref()
                            .is_some_and(|(_, e)| super::oauth::is_needs_login(e)) =>
                    {
                        ServerState::NeedsLogin
                    }
                    other => other,
                };
                let offered: Vec<&ServerTool> = st
                    .tools
                    .iter()
                    .filter(|t| !st.withheld.contains_key(&t.name))
                    .collect();
                let tokens = offered
                    .iter()
                    .map(|t| {
                        definition_tokens(
                            &self.inner.registry.model_name(r.name(), &t.name),
                            &t.model_description(),
                            &t.model_schema(),
                        )
                    })
                    .sum();
                ServerListing {
                    name: r.config.name.clone(),
                    source: r.config.source,
                    transport: r.config.transport.kind(),
                    state,
                    tools: offered.len(),
                    withheld: st.withheld.len(),
                    skills: st.skills.offered.len(),
                    withheld_skills: st.skills.withheld.len(),
                    definition_tokens: tokens,
                    protocol_version: st.protocol_version.clone(),
                    error: st.last_failure.as_ref().map(|(_, e)| e.clone()),
                    log: matches!(r.config.transport, TransportConfig::Stdio { .. })
                        .then(|| r.log_path.clone()),
                }
            })
            .collect()
    }

    /// Starts (if needed) and returns the running server's connection.
    async fn running(&self, server: &str) -> Result<(Arc<ServerRuntime>, Arc<Connection>)> {
        let runtime = self.runtime(server)?.clone();
        let conn = runtime.ensure_running().await?;
        Ok((runtime, conn))
    }

    /// The tools of one server as it lists them now (starting it if needed),
    /// for `tack mcp tools NAME`. Withheld tools are included and marked.
    pub async fn server_tools(&self, server: &str) -> Result<Vec<ToolListing>> {
        let (runtime, _) = self.running(server).await?;
        let state = lock(&runtime.state);
        Ok(state
            .tools
            .iter()
            .map(|t| {
                let name = self.inner.registry.model_name(server, &t.name);
                let description = t.model_description();
                let schema = t.model_schema();
                ToolListing {
                    definition_tokens: definition_tokens(&name, &description, &schema),
                    name,
                    tool: t.name.clone(),
                    description,
                    input_schema: schema,
                    read_only: t.annotations.read_only,
                    destructive: t.annotations.destructive,
                    idempotent: t.annotations.idempotent,
                    open_world: t.annotations.open_world,
                    withheld: state.withheld.contains_key(&t.name),
                }
            })
            .collect())
    }

    /// Calls a tool by its name on the server, for `tack mcp call`.
    pub async fn call(&self, server: &str, tool: &str, arguments: Value) -> Result<CallOutcome> {
        self.call_with_cancel(server, tool, arguments, &CancellationToken::new())
            .await
    }

    /// Collects the tasks a previous session left running (the entries of
    /// `ManagerOptions::task_file`): each is polled to its end with
    /// `tasks/get` (its server started if need be) and returned for the
    /// session to show the model. A server no longer configured, or one
    /// that no longer knows the task, gives an error result; either way
    /// the entry is cleared, except when the server could not be reached
    /// (then the next resume tries again).
    pub async fn resume_tasks(&self, cancel: &CancellationToken) -> Vec<LateResult> {
        let Some(file) = self.inner.settings.options.task_file.clone() else {
            return Vec::new();
        };
        let mut late = Vec::new();
        for task in read_pending(&file) {
            let outcome = match self.inner.runtimes.get(&task.server) {
                Some(runtime) => runtime.resume_task(&task.tool, &task.task_id, cancel).await,
                None => {
                    super::tasks::forget(&file, &task.server, &task.task_id);
                    Err(ToolError::Unavailable(format!(
                        "MCP server {:?} is no longer configured, so tack cannot ask about task {}",
                        task.server, task.task_id
                    )))
                }
            };
            late.push(LateResult { task, outcome });
        }
        late
    }

    /// [`Self::call`] that `cancel` interrupts (notifications/cancelled is sent).
    pub async fn call_with_cancel(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> Result<CallOutcome> {
        let (runtime, _) = self.running(server).await?;
        {
            let state = lock(&runtime.state);
            if !state.tools.iter().any(|t| t.name == tool) {
                let names: Vec<&str> = state.tools.iter().map(|t| t.name.as_str()).collect();
                return Err(ClientError::NotFound(format!(
                    "MCP server {server:?} has no tool {tool:?} (its tools: {})",
                    names.join(", ")
                )));
            }
        }
        match runtime.call(tool, arguments, cancel).await {
            Ok(output) => {
                let text = output
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                Ok(CallOutcome {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    content: output.content,
                    structured: output.structured,
                    text,
                })
            }
            Err(error) => Err(ClientError::Tool {
                server: server.to_owned(),
                tool: tool.to_owned(),
                error,
            }),
        }
    }

    /// The tools of a server whose definition differs from its pin (starting
    /// the server if needed), for `tack mcp diff NAME`.
    pub async fn diff(&self, server: &str) -> Result<Vec<ToolChange>> {
        let (runtime, _) = self.running(server).await?;
        let state = lock(&runtime.state);
        Ok(state
            .withheld
            .iter()
            .map(|(tool, (old, new))| ToolChange {
                tool: tool.clone(),
                old: old.clone(),
                new: new.clone(),
            })
            .collect())
    }

    /// Approves every changed definition of a server: re-pins them and offers
    /// the tools. Returns what was approved.
    pub async fn approve_changes(&self, server: &str) -> Result<Vec<ToolChange>> {
        let changes = self.diff(server).await?;
        let runtime = self.runtime(server)?.clone();
        if changes.is_empty() {
            return Ok(changes);
        }
        let pins: Vec<(String, PinnedTool)> = changes
            .iter()
            .map(|c| (c.tool.clone(), c.new.clone()))
            .collect();
        lock(&self.inner.registry.pins).pin(server, &pins)?;
        let now_allowed: Vec<ServerTool> = {
            let mut state = lock(&runtime.state);
            for change in &changes {
                state.withheld.remove(&change.tool);
            }
            let approved: HashMap<&str, ()> =
                changes.iter().map(|c| (c.tool.as_str(), ())).collect();
            state
                .tools
                .iter()
                .filter(|t| approved.contains_key(t.name.as_str()))
                .cloned()
                .collect()
        };
        self.inner.registry.offer(&runtime, &now_allowed);
        Ok(changes)
    }

    /// The skills the servers offer, for the session's catalog: each named
    /// `server:name`, its files read only when it is loaded (see
    /// `client/skills.rs`), in server order; and what a person should be
    /// told (a skill withheld because its manifest changed since it was
    /// approved, one left out, a listing that failed). Starts nothing:
    /// servers started by [`Self::start`] listed their skills then, and a
    /// lazily started server's come from its cached listing.
    pub fn skills(&self) -> (Vec<tack_skills::Skill>, Vec<String>) {
        let mut skills = Vec::new();
        let mut notes = Vec::new();
        for runtime in self.inner.runtimes.values() {
            if !runtime.approved.load(Ordering::SeqCst) {
                continue;
            }
            let state = lock(&runtime.state);
            notes.extend(state.skills.notes.iter().cloned());
            let server = runtime.name();
            for (_, change) in state.skills.withheld.values() {
                notes.push(format!(
                    "the skill {server}:{} of MCP server {server:?} changed since it was approved ({}), so it is left out: `tack mcp diff {server}` shows the change, `tack mcp approve {server} --changes` approves it",
                    change.skill,
                    change.summary()
                ));
            }
            skills.extend(
                state
                    .skills
                    .offered
                    .iter()
                    .map(|entry| entry.catalog_skill(runtime)),
            );
        }
        (skills, notes)
    }

    /// The skills of a server whose manifest differs from its pin (starting
    /// the server if needed), for `tack mcp diff NAME`.
    pub async fn skill_changes(&self, server: &str) -> Result<Vec<SkillChange>> {
        let (runtime, _) = self.running(server).await?;
        let state = lock(&runtime.state);
        Ok(state
            .skills
            .withheld
            .values()
            .map(|(_, change)| change.clone())
            .collect())
    }

    /// Approves every changed skill manifest of a server: re-pins them and
    /// offers the skills (to catalogs built from now on). Returns what was
    /// approved.
    pub async fn approve_skill_changes(&self, server: &str) -> Result<Vec<SkillChange>> {
        let changes = self.skill_changes(server).await?;
        if changes.is_empty() {
            return Ok(changes);
        }
        let runtime = self.runtime(server)?.clone();
        let pins: Vec<(String, super::store::PinnedSkill)> = changes
            .iter()
            .map(|c| (c.skill.clone(), c.new.clone()))
            .collect();
        lock(&self.inner.registry.pins).pin_skills(server, &pins)?;
        let mut state = lock(&runtime.state);
        for change in &changes {
            if let Some((skill, _)) = state.skills.withheld.remove(&change.skill) {
                state.skills.offered.push(skill);
            }
        }
        Ok(changes)
    }

    /// The process id of a running stdio server (tests, diagnostics).
    pub fn server_pid(&self, server: &str) -> Option<u32> {
        self.inner.runtimes.get(server).and_then(|r| r.pid())
    }

    /// The log file of a stdio server.
    pub fn log_path(&self, server: &str) -> Option<PathBuf> {
        self.inner.runtimes.get(server).map(|r| r.log_path.clone())
    }

    /// Stops every server (stdin closed, then SIGTERM, then kill).
    pub async fn shutdown(&self) {
        let closing = self.inner.runtimes.values().map(|runtime| async move {
            let conn = lock(&runtime.current).take();
            if let Some(conn) = conn {
                conn.close().await;
            }
        });
        futures::future::join_all(closing).await;
    }
}
