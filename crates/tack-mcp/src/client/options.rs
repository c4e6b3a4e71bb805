//! How the manager runs servers: directories, timeouts, lazy start and
//! variable lookup. Shared by the manager and each server's runtime.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::connection::ProgressSink;
use super::error::{ClientError, Result};
use super::handler::{NobodyToAsk, ServerRequests};

/// Default time a server has to start (spawn, handshake, first `tools/list`).
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Default time one `tools/call` may take.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The environment variable with the startup timeout in ms (as in Claude Code).
pub const STARTUP_TIMEOUT_ENV: &str = "MCP_TIMEOUT";
/// The environment variable with the per-call timeout in ms (as in Claude Code).
pub const CALL_TIMEOUT_ENV: &str = "MCP_TOOL_TIMEOUT";

fn env_millis(lookup: &dyn Fn(&str) -> Option<String>, var: &str) -> Result<Option<Duration>> {
    let Some(text) = lookup(var).filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    match text.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Some(Duration::from_millis(ms))),
        _ => Err(ClientError::Config {
            server: None,
            field: Some(var.to_owned()),
            message: format!(
                "the environment variable {var} must be a positive whole number of milliseconds (e.g. {var}=60000), got {text:?}"
            ),
        }),
    }
}

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

    /// Reads the timeouts Claude Code reads: `MCP_TIMEOUT` (startup, ms) and
    /// `MCP_TOOL_TIMEOUT` (one call, ms), through `lookup` (normally the
    /// process environment). A value that is not a positive whole number of
    /// milliseconds is an error naming the variable.
    pub fn timeouts_from_env(&mut self, lookup: &dyn Fn(&str) -> Option<String>) -> Result<()> {
        if let Some(t) = env_millis(lookup, STARTUP_TIMEOUT_ENV)? {
            self.startup_timeout = t;
        }
        if let Some(t) = env_millis(lookup, CALL_TIMEOUT_ENV)? {
            self.call_timeout = t;
        }
        Ok(())
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
