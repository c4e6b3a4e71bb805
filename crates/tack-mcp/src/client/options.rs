//! How the manager runs servers: directories, timeouts, lazy start and
//! variable lookup. Shared by the manager and each server's runtime.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::connection::ProgressSink;
use super::handler::{NobodyToAsk, ServerRequests};

/// Default time a server has to start (spawn, handshake, first `tools/list`).
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Default time one `tools/call` may take.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Reads an environment variable for `${VAR}` expansion.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// How the manager runs servers.
#[derive(Clone)]
#[non_exhaustive]
pub struct ManagerOptions {
    /// The user's state dir: approvals (`mcp-approvals.json`) and pins (`mcp-pins.json`).
    pub state_dir: PathBuf,
    /// Where tool lists are cached (`mcp-tools/`).
    pub cache_dir: PathBuf,
    /// Where each stdio server's stderr goes (`<server>.log`).
    pub log_dir: PathBuf,
    /// The working directory of stdio servers without their own `cwd` (the project root).
    pub cwd: PathBuf,
    pub startup_timeout: Duration,
    pub call_timeout: Duration,
    /// Offer cached tools without starting their server until the first call.
    pub lazy: bool,
    /// Start project servers without a recorded approval (headless use; not saved).
    pub approve_project_servers: bool,
    /// Receives progress notifications (they are also logged with `tracing::info`).
    pub progress: Option<ProgressSink>,
    /// Variable lookup for `${VAR}`; `None` reads the process environment.
    pub env: Option<EnvLookup>,
    /// Answers servers' requests for input (elicitation); the default,
    /// [`NobodyToAsk`], declines them and tells the model so.
    pub requests: Arc<dyn ServerRequests>,
    /// Where the ids of MCP tasks still running are kept, so a restarted
    /// session can collect their results (`McpManager::resume_tasks`);
    /// `None`: not kept.
    pub task_file: Option<PathBuf>,
}

impl ManagerOptions {
    pub fn new(state_dir: PathBuf, cache_dir: PathBuf, log_dir: PathBuf, cwd: PathBuf) -> Self {
        Self {
            state_dir,
            cache_dir,
            log_dir,
            cwd,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            lazy: true,
            approve_project_servers: false,
            progress: None,
            env: None,
            requests: Arc::new(NobodyToAsk),
            task_file: None,
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(lookup) => lookup(name),
            None => std::env::var(name).ok(),
        }
    }
}

impl std::fmt::Debug for ManagerOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagerOptions")
            .field("state_dir", &self.state_dir)
            .field("cache_dir", &self.cache_dir)
            .field("log_dir", &self.log_dir)
            .field("startup_timeout", &self.startup_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("lazy", &self.lazy)
            .finish_non_exhaustive()
    }
}
