//! One server at run time: its connection (started, restarted), its tool
//! list checked against the pins, and its tools as tack [`Tool`]s.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rmcp::ServiceError;
use rmcp::model::{CacheScope, ErrorCode};
use rmcp::service::MergedList;
use serde_json::{Map, Value};
use tack_protocol::ToolDefinition;
use tack_tool::{Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::config::{ServerConfig, TransportConfig};
use super::connection::{CallFailure, ConnectArgs, Connection, connect};
use super::convert::ServerTool;
use super::error::{ClientError, Result};
use super::names::{NameTable, model_tool_name, naming_order};
use super::options::ManagerOptions;
use super::report::ServerState;
use super::store::{CachedTools, PinCheck, PinnedTool, Pins, now_ms, read_cache, write_cache};

/// After a failed start, calls fail fast with the same error for this long.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// What the runtimes share that never changes.
pub(super) struct Settings {
    pub(super) options: ManagerOptions,
}

/// What the runtimes share that changes: pins and the offered tools.
pub(super) struct Registry {
    pub(super) pins: Mutex<Pins>,
    pub(super) offered: Mutex<Offered>,
    pub(super) generation: watch::Sender<u64>,
}

/// The tools offered, in a deterministic order: by batch, then server name,
/// then tool name. A batch is everything one [`McpManager::start`] offers
/// (servers finish starting in any order), or one later addition (a list
/// change, an approved change); later batches come after, so what was
/// offered keeps its place (the model API's prompt cache keeps its prefix).
///
/// [`McpManager::start`]: super::McpManager::start
#[derive(Default)]
pub(super) struct Offered {
    pub(super) names: NameTable,
    pub(super) tools: Vec<Arc<McpTool>>,
    pub(super) keys: HashSet<(String, String)>,
    /// The current batch, and how many starts are under way in it.
    batch: u64,
    starts: usize,
}

impl Offered {
    /// The batch of an offer made now.
    fn batch_now(&mut self) -> u64 {
        if self.starts == 0 {
            self.batch += 1;
        }
        self.batch
    }
}

impl Registry {
    /// Offers made until [`Self::end_batch`] share one batch.
    pub(super) fn begin_batch(&self) {
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        if offered.starts == 0 {
            offered.batch += 1;
        }
        offered.starts += 1;
    }

    pub(super) fn end_batch(&self) {
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        offered.starts = offered.starts.saturating_sub(1);
    }

    /// Adds the tools not offered yet; bumps the generation if any was added.
    pub(super) fn offer(&self, runtime: &Arc<ServerRuntime>, tools: &[ServerTool]) {
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        let batch = offered.batch_now();
        let mut added = 0;
        for tool in naming_order(tools, |t| &t.name) {
            let key = (runtime.config.name.clone(), tool.name.clone());
            if offered.keys.contains(&key) {
                continue;
            }
            let name = offered.names.assign(&runtime.config.name, &tool.name);
            offered
                .tools
                .push(Arc::new(McpTool::new(runtime.clone(), name, tool, batch)));
            offered.keys.insert(key);
            added += 1;
        }
        if added > 0 {
            // Stable, and only the current batch can move. By the names the
            // model sees: a tool named as written keeps the plain name even
            // when a rewritten one sorts before it by its own name.
            offered.tools.sort_by(|a, b| {
                (a.batch, a.runtime.name(), &a.name).cmp(&(b.batch, b.runtime.name(), &b.name))
            });
        }
        drop(offered);
        if added > 0 {
            self.generation.send_modify(|g| *g += 1);
        }
    }

    pub(super) fn model_name(&self, server: &str, tool: &str) -> String {
        let offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        offered
            .tools
            .iter()
            .find(|t| t.runtime.config.name == server && t.server_tool == tool)
            .map(|t| t.name.clone())
            .unwrap_or_else(|| model_tool_name(server, tool))
    }
}

#[derive(Default)]
pub(super) struct RuntimeState {
    /// The latest list (live or cached), withheld tools included.
    pub(super) tools: Vec<ServerTool>,
    /// Whether `tools` came from the running server (not the cache).
    pub(super) live: bool,
    /// Tools whose definition differs from the pin: (old pin, new definition).
    pub(super) withheld: BTreeMap<String, (PinnedTool, PinnedTool)>,
    pub(super) protocol_version: Option<String>,
    /// The caching hint of the latest live list.
    pub(super) cache_hint: CacheHint,
    /// The last start failure and when it happened.
    pub(super) last_failure: Option<(Instant, String)>,
    pub(super) failed: bool,
    pub(super) started_once: bool,
    /// Reported by `start` (terminal outcome), so not again.
    pub(super) reported: bool,
    /// The server's skills (the skills extension), checked against the pins.
    pub(super) skills: super::skills::SkillState,
}

/// `ttlMs` and `cacheScope` of a tool list (all pages merged by rmcp: the
/// earliest expiry, private if any page is).
#[derive(Debug, Clone, Default)]
pub(super) struct CacheHint {
    pub(super) ttl_ms: Option<u64>,
    pub(super) scope: Option<String>,
}

impl CacheHint {
    fn of<T>(list: &MergedList<T>) -> Self {
        Self {
            ttl_ms: list.ttl_ms,
            scope: list.cache_scope.map(|s| match s {
                CacheScope::Private => "private".to_owned(),
                _ => "public".to_owned(),
            }),
        }
    }
}

/// One configured server and its connection.
pub(super) struct ServerRuntime {
    pub(super) config: ServerConfig,
    pub(super) settings: Arc<Settings>,
    pub(super) registry: Weak<Registry>,
    pub(super) approved: AtomicBool,
    /// The live connection, if any.
    pub(super) current: Mutex<Option<Arc<Connection>>>,
    /// Held while the server is being started, so it starts once.
    pub(super) starting: tokio::sync::Mutex<()>,
    pub(super) state: Mutex<RuntimeState>,
    pub(super) list_changed: Arc<Notify>,
    pub(super) log_path: PathBuf,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ServerRuntime {
    pub(super) fn name(&self) -> &str {
        &self.config.name
    }

    /// A hash of what identifies the user to the server: its resolved
    /// transport (headers, environment, URL, command). A `private` tool list
    /// is cached for this context only. `None` when it cannot be resolved.
    fn auth_context(&self) -> Option<String> {
        let options = &self.settings.options;
        let resolved = self.config.resolve(&|v| options.lookup(v)).ok()?;
        // An OAuth login is part of who is asking: its issuer and client
        // (not its tokens, which change at every refresh).
        let login = match &resolved {
            super::config::ResolvedTransport::Http { url, .. } => {
                let store = super::oauth::TokenStore::new(&options.state_dir);
                super::oauth::canonical_resource(url)
                    .ok()
                    .and_then(|resource| store.entry(&resource).ok().flatten())
                    .map(|e| format!("{:?}/{}", e.issuer, e.client_id))
            }
            _ => None,
        };
        Some(super::hash_hex(format!("{resolved:?}{login:?}").as_bytes()))
    }

    /// The server's `startupTimeout`, else the manager's.
    pub(super) fn startup_timeout(&self) -> Duration {
        self.config
            .startup_timeout
            .unwrap_or(self.settings.options.startup_timeout)
    }

    /// The server's `timeout` (per call), else the manager's.
    pub(super) fn call_timeout(&self) -> Duration {
        self.config
            .call_timeout
            .unwrap_or(self.settings.options.call_timeout)
    }

    fn start_failed(&self, message: String) -> ClientError {
        ClientError::StartFailed {
            server: self.config.name.clone(),
            message,
        }
    }

    /// The running connection, starting (or restarting) the server if needed.
    pub(super) async fn ensure_running(self: &Arc<Self>) -> Result<Arc<Connection>> {
        if let Some(conn) = self.live() {
            return Ok(conn);
        }
        let _starting = self.starting.lock().await;
        // Someone else may have started it while we waited.
        if let Some(conn) = self.live() {
            return Ok(conn);
        }
        if lock(&self.current).take().is_some() {
            tracing::warn!(server = %self.name(), "MCP server stopped; starting it again");
        }
        if let Some((at, message)) = &lock(&self.state).last_failure
            && at.elapsed() < RETRY_AFTER
        {
            return Err(self.start_failed(format!("{message} (not retried yet)")));
        }
        match self.start_locked().await {
            Ok(conn) => {
                let mut state = lock(&self.state);
                state.last_failure = None;
                state.failed = false;
                state.started_once = true;
                drop(state);
                *lock(&self.current) = Some(conn.clone());
                Ok(conn)
            }
            Err(error) => {
                if let ClientError::StartFailed { message, .. } = &error {
                    let mut state = lock(&self.state);
                    state.failed = true;
                    state.last_failure = Some((Instant::now(), message.clone()));
                }
                Err(error)
            }
        }
    }

    /// The current connection if its transport is open.
    pub(super) fn live(&self) -> Option<Arc<Connection>> {
        lock(&self.current)
            .as_ref()
            .filter(|c| c.is_alive())
            .cloned()
    }

    async fn start_locked(self: &Arc<Self>) -> Result<Arc<Connection>> {
        if !self.approved.load(Ordering::SeqCst) {
            return Err(ClientError::NotApproved {
                server: self.config.name.clone(),
                source_name: self.config.source.as_str().to_owned(),
            });
        }
        let options = &self.settings.options;
        let resolved = self.config.resolve(&|v| options.lookup(v))?;
        let timeout = self.startup_timeout();
        let started = async {
            let conn = connect(
                &resolved,
                ConnectArgs {
                    server: &self.config.name,
                    cwd: &options.cwd,
                    state_dir: &options.state_dir,
                    log_path: self.log_path.clone(),
                    sink: options.progress.clone(),
                    list_changed: self.list_changed.clone(),
                    requests: options.requests.clone(),
                    task_file: options.task_file.clone(),
                },
            )
            .await?;
            let tools = conn
                .peer
                .list_all_tools_with_cache_hint()
                .await
                .map_err(|e| format!("tools/list failed: {e}"))?;
            // Skills are listed with the tools (a failure is a notice, not a
            // failed start); their files are read only when one is loaded.
            let skills = super::skills::list(&conn).await;
            Ok::<_, String>((conn, tools, skills))
        };
        let (conn, tools, skills) = match tokio::time::timeout(timeout, started).await {
            Err(_) => {
                return Err(self.start_failed(format!(
                    "it did not finish starting within {}s (the startup timeout); its log: {}",
                    timeout.as_secs_f32(),
                    self.log_path.display()
                )));
            }
            Ok(Err(message)) => return Err(self.start_failed(message)),
            Ok(Ok(started)) => started,
        };
        let conn = Arc::new(conn);
        let raw: Vec<Value> = tools
            .items
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok())
            .collect();
        {
            let mut state = lock(&self.state);
            state.protocol_version = Some(conn.protocol_version.clone());
            state.cache_hint = CacheHint::of(&tools);
        }
        self.apply_skills(skills);
        self.apply_tools(raw, true);
        // Refresh on notifications/tools/list_changed.
        let weak = Arc::downgrade(self);
        let notify = self.list_changed.clone();
        conn.add_task(tokio::spawn(async move {
            loop {
                notify.notified().await;
                let Some(runtime) = weak.upgrade() else {
                    break;
                };
                runtime.refresh().await;
            }
        }));
        tracing::info!(server = %self.name(), protocol = %conn.protocol_version, pid = ?conn.pid, "MCP server started");
        Ok(conn)
    }

    /// Lists the tools again (after `notifications/tools/list_changed`).
    async fn refresh(self: &Arc<Self>) {
        let Some(conn) = self.live() else {
            return;
        };
        let listed = tokio::time::timeout(
            self.startup_timeout(),
            conn.peer.list_all_tools_with_cache_hint(),
        )
        .await;
        match listed {
            Ok(Ok(tools)) => {
                lock(&self.state).cache_hint = CacheHint::of(&tools);
                let raw = tools
                    .items
                    .iter()
                    .filter_map(|t| serde_json::to_value(t).ok())
                    .collect();
                self.apply_tools(raw, true);
                tracing::info!(server = %self.name(), "MCP tool list refreshed");
            }
            Ok(Err(e)) => tracing::warn!(server = %self.name(), "tools/list failed: {e}"),
            Err(_) => tracing::warn!(server = %self.name(), "tools/list timed out"),
        }
    }

    /// Records a tool list, checks it against the pins, caches it (if live)
    /// and offers the tools that may be offered.
    fn apply_tools(self: &Arc<Self>, raw: Vec<Value>, live: bool) {
        let tools: Vec<ServerTool> = raw.iter().filter_map(ServerTool::parse).collect();
        let registry = self.registry.upgrade();
        let mut allowed = Vec::new();
        let mut withheld = BTreeMap::new();
        if let Some(registry) = &registry {
            let mut pins = lock(&registry.pins);
            let mut to_pin = Vec::new();
            for tool in &tools {
                let pin =
                    PinnedTool::of(&tool.name, tool.description.as_deref(), &tool.input_schema);
                match pins.check(self.name(), &tool.name, &pin) {
                    PinCheck::Pinned => allowed.push(tool.clone()),
                    PinCheck::New | PinCheck::Upgrade => {
                        to_pin.push((tool.name.clone(), pin));
                        allowed.push(tool.clone());
                    }
                    PinCheck::Changed(old) => {
                        tracing::warn!(server = %self.name(), tool = %tool.name, "MCP tool definition changed since it was approved; withheld until `tack mcp diff`/approval");
                        withheld.insert(tool.name.clone(), (old, pin));
                    }
                }
            }
            if let Err(e) = pins.pin(self.name(), &to_pin) {
                tracing::warn!("could not save MCP tool pins: {e}");
            }
        }
        if live {
            let (protocol_version, hint, skills) = {
                let state = lock(&self.state);
                (
                    state.protocol_version.clone(),
                    state.cache_hint.clone(),
                    state.skills.raw.clone(),
                )
            };
            let private = hint.scope.as_deref() == Some("private");
            let cached = CachedTools {
                server: self.config.name.clone(),
                config_hash: self.config.config_hash(),
                protocol_version,
                tools: raw,
                received_at_ms: Some(now_ms()),
                ttl_ms: hint.ttl_ms,
                cache_scope: hint.scope,
                auth_context: if private { self.auth_context() } else { None },
                skills,
            };
            if let Err(e) = write_cache(&self.settings.options.cache_dir, &self.config, &cached) {
                tracing::warn!("could not cache the MCP tool list: {e}");
            }
        }
        {
            let mut state = lock(&self.state);
            state.tools = tools;
            state.live = live;
            state.withheld = withheld;
        }
        if let Some(registry) = registry {
            registry.offer(self, &allowed);
        }
    }

    /// Offers cached tools without starting the server; the number offered.
    /// Offers the cached tool list, if one serves this auth context:
    /// `(offered, withheld, fresh)`. A stale list is offered all the same
    /// (stale-while-revalidate); the caller starts the server to list again.
    pub(super) fn load_cache(self: &Arc<Self>) -> Option<(usize, usize, bool)> {
        let cached = read_cache(&self.settings.options.cache_dir, &self.config)?;
        if !cached.serves(self.auth_context().as_deref()) {
            return None;
        }
        let fresh = cached.is_fresh(now_ms());
        lock(&self.state).protocol_version = cached.protocol_version.clone();
        self.apply_skills(cached.skills.map(Ok));
        self.apply_tools(cached.tools, false);
        let state = lock(&self.state);
        Some((
            state.tools.len() - state.withheld.len(),
            state.withheld.len(),
            fresh,
        ))
    }

    /// Whether a tool may be called now (after the server is running).
    fn check_callable(&self, tool: &str) -> std::result::Result<(), ToolError> {
        let state = lock(&self.state);
        if state.withheld.contains_key(tool) {
            return Err(ToolError::Unavailable(format!(
                "MCP server {:?} changed the definition of this tool since it was approved; it is withheld until the user reviews the change (`tack mcp diff {}`)",
                self.name(),
                self.name()
            )));
        }
        if state.live && !state.tools.iter().any(|t| t.name == tool) {
            return Err(ToolError::Unavailable(format!(
                "MCP server {:?} no longer offers this tool",
                self.name()
            )));
        }
        Ok(())
    }

    /// Runs one `tools/call`.
    pub(super) async fn call(
        self: &Arc<Self>,
        tool: &str,
        input: Value,
        cancel: &CancellationToken,
    ) -> std::result::Result<ToolOutput, ToolError> {
        let arguments = match input {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::InvalidInput(format!(
                    "the input must be a JSON object, got {other}"
                )));
            }
        };
        let conn = tokio::select! {
            conn = self.ensure_running() => conn.map_err(|e| ToolError::Unavailable(e.to_string()))?,
            () = cancel.cancelled() => {
                return Err(ToolError::Interrupted(format!("cancelled while MCP server {:?} was starting", self.name())));
            }
        };
        self.check_callable(tool)?;
        let timeout = self.call_timeout();
        match conn
            .call_tool(self.name(), tool, arguments, cancel, timeout)
            .await
        {
            Ok(output) => Ok(output),
            Err(CallFailure::Tool(e)) => Err(e),
            Err(CallFailure::Service(e)) => Err(self.service_error(&conn, e).await),
        }
    }

    /// Polls a task a previous session left running (see `tasks.rs`).
    pub(super) async fn resume_task(
        self: &Arc<Self>,
        tool: &str,
        task_id: &str,
        cancel: &CancellationToken,
    ) -> std::result::Result<ToolOutput, ToolError> {
        let conn = self
            .ensure_running()
            .await
            .map_err(|e| ToolError::Unavailable(e.to_string()))?;
        let timeout = self.call_timeout();
        match conn
            .poll_task(self.name(), tool, task_id, None, None, cancel, timeout)
            .await
        {
            Ok(output) => Ok(output),
            Err(CallFailure::Tool(e)) => Err(e),
            Err(CallFailure::Service(e)) => Err(self.service_error(&conn, e).await),
        }
    }

    async fn service_error(
        self: &Arc<Self>,
        conn: &Arc<Connection>,
        error: ServiceError,
    ) -> ToolError {
        match error {
            ServiceError::McpError(data) => {
                let message = data.message.to_string();
                if data.code == ErrorCode::INVALID_PARAMS {
                    ToolError::InvalidInput(message)
                } else if data.code == ErrorCode::METHOD_NOT_FOUND {
                    ToolError::Unavailable(message)
                } else {
                    ToolError::Internal(format!(
                        "the MCP server answered with error {}: {message}",
                        data.code.0
                    ))
                }
            }
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                // The server stopped under us: forget the connection so the
                // next call starts it again.
                {
                    let mut current = lock(&self.current);
                    if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
                        *current = None;
                    }
                }
                conn.close().await;
                if matches!(self.config.transport, TransportConfig::Stdio { .. }) {
                    return ToolError::Transient(format!(
                        "MCP server {:?} stopped during the call (it crashed or exited); tack starts it again on the next call. The call may or may not have taken effect. Server log: {}",
                        self.name(),
                        self.log_path.display()
                    ));
                }
                // Over HTTP the connection ends for reasons rmcp does not
                // pass on (a revoked login, a restarted server): connecting
                // again finds out, and says it in words.
                match self.ensure_running().await {
                    Ok(_) => ToolError::Transient(format!(
                        "the connection to MCP server {:?} closed during the call; tack connected again, so the call can be made again. The call may or may not have taken effect.",
                        self.name()
                    )),
                    Err(e) => ToolError::Unavailable(format!(
                        "the connection to MCP server {:?} closed during the call, and connecting again failed: {e}",
                        self.name()
                    )),
                }
            }
            ServiceError::Cancelled { reason } => ToolError::Interrupted(
                reason.unwrap_or_else(|| "the request was cancelled".to_owned()),
            ),
            ServiceError::Timeout { timeout } => ToolError::Timeout(timeout),
            other => ToolError::Internal(format!("MCP request failed: {other}")),
        }
    }

    pub(super) fn state(&self) -> ServerState {
        if !self.approved.load(Ordering::SeqCst) {
            return ServerState::NeedsApproval;
        }
        let alive = lock(&self.current).as_ref().map(|c| c.is_alive());
        if alive != Some(true) && self.starting.try_lock().is_err() {
            return ServerState::Starting;
        }
        let state = lock(&self.state);
        match alive {
            Some(true) => ServerState::Running,
            Some(false) => ServerState::Stopped,
            None if state.failed => ServerState::Failed,
            None if state.started_once => ServerState::Stopped,
            None if !state.tools.is_empty() || !state.withheld.is_empty() => ServerState::Deferred,
            None => ServerState::NotStarted,
        }
    }

    pub(super) fn pid(&self) -> Option<u32> {
        self.live().and_then(|c| c.pid)
    }
}

pub(super) fn definition_tokens(name: &str, description: &str, schema: &Value) -> usize {
    let definition = ToolDefinition {
        name: name.to_owned(),
        description: Some(description.to_owned()),
        input_schema: schema.clone(),
        extra: Default::default(),
    };
    serde_json::to_vec(&definition)
        .map(|b| b.len().div_ceil(4))
        .unwrap_or(0)
}

/// An MCP server's tool as a tack [`Tool`].
pub struct McpTool {
    runtime: Arc<ServerRuntime>,
    server_tool: String,
    name: String,
    description: String,
    schema: Value,
    annotations: ToolAnnotations,
    requires_user_interaction: bool,
    /// The batch it was offered in (see [`Offered`]).
    batch: u64,
}

impl McpTool {
    fn new(runtime: Arc<ServerRuntime>, name: String, tool: &ServerTool, batch: u64) -> Self {
        Self {
            batch,
            runtime,
            server_tool: tool.name.clone(),
            name,
            description: tool.model_description(),
            schema: tool.model_schema(),
            annotations: tool.annotations,
            requires_user_interaction: tool.requires_user_interaction,
        }
    }

    /// The server this tool belongs to.
    pub fn server(&self) -> &str {
        self.runtime.name()
    }

    /// The tool's name on its server.
    pub fn server_tool(&self) -> &str {
        &self.server_tool
    }
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.name)
            .field("server", &self.runtime.name())
            .field("tool", &self.server_tool)
            .finish()
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    /// readOnlyHint: the server says the tool does not modify its environment.
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.annotations.read_only
    }
    fn annotations(&self) -> ToolAnnotations {
        self.annotations
    }
    fn mcp_origin(&self) -> Option<(&str, &str)> {
        Some((self.runtime.name(), &self.server_tool))
    }
    fn requires_user_interaction(&self) -> bool {
        self.requires_user_interaction
    }
    /// The call timeout is enforced here (sending notifications/cancelled);
    /// the harness's outer limit leaves room for a lazy start first.
    fn timeout(&self) -> Option<Duration> {
        Some(self.runtime.call_timeout() + self.runtime.startup_timeout() + Duration::from_secs(5))
    }
    async fn call(
        &self,
        input: Value,
        ctx: ToolContext,
    ) -> std::result::Result<ToolOutput, ToolError> {
        self.runtime
            .call(&self.server_tool, input, &ctx.cancel)
            .await
    }
}
