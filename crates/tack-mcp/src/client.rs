//! MCP client: configured MCP servers become tack [`Tool`](tack_tool::Tool)s
//! named `mcp__<server>__<tool>`.
//!
//! The key decisions:
//!
//! - **Servers are untrusted.** Project servers (`.mcp.json`, project
//!   settings) start only after the user approves them ([`Approvals`], keyed per
//!   project by a hash of the entry: the same entry in another repository runs
//!   its own code, so it is asked about again). Every tool definition is pinned (a hash of name,
//!   description and schema, in [`Pins`]) the first time it is seen; a later
//!   change withholds that tool until the user approves it
//!   ([`McpManager::diff`], [`McpManager::approve_changes`]). Descriptions and
//!   results are data for the model, never instructions for tack.
//! - **A failing server never ends the session.** Servers start in parallel
//!   within a startup timeout; failures come back as [`StartReport`]s, once.
//!   A server that stops is started again by the next call; the call that met
//!   the crash gets a `Transient` error.
//! - **The tool set only grows** (prompt caching): list changes add tools; a
//!   tool that disappeared answers that it is no longer available.
//! - **Lazy start**: a server's tool list is cached under a hash of its config,
//!   so its tools are offered at once and the server starts on the first call.
//! - **Protocol**: rmcp 3.11's `Auto` lifecycle: `server/discover` at
//!   2026-07-28, falling back to `initialize` at 2025-11-25 (and whatever older
//!   version the server counters with) when the server answers discover with a
//!   JSON-RPC error or stays silent for 10 s. A legacy server that mishandles
//!   discover (answers `{}`, closes the stream) gets a second, fresh transport
//!   with the `initialize` handshake alone.
//!
//! - **Skills** (the `io.modelcontextprotocol/skills` extension): a server's
//!   skills are listed with its tools and offered as `server:name`
//!   ([`McpManager::skills`], for tack-skills' catalog); each manifest is
//!   pinned like a tool definition, a changed one withheld until approved
//!   ([`McpManager::skill_changes`], [`McpManager::approve_skill_changes`]);
//!   files are read, verified (size, sha256, frontmatter) and written to
//!   the state dir only when the model loads the skill (`client/skills.rs`).
//! - **Server requests** go to [`ServerRequests`] (`ManagerOptions::requests`;
//!   tack-session answers them through its `Interaction` and model):
//!   elicitation (form and URL), sampling, `roots/list`, during a call or
//!   inside a 2026-07-28 `input_required` result, which is retried with the
//!   answers and the echoed `requestState` (at most 8 rounds). A call the
//!   server turns into a task is polled to its end; pending task ids are kept
//!   in `ManagerOptions::task_file` for [`McpManager::resume_tasks`].
//!
//! Error mapping of a call: `isError` → [`ToolError::Failed`] with the
//! server's text (the spec's "actionable feedback … to self-correct": the
//! tool ran and failed, for a reason the protocol does not classify, so the
//! model is not told its input was wrong when the server did not say so); the
//! per-call timeout → `Timeout` (after `notifications/cancelled`); the
//! session's cancel token → `Interrupted` (after `notifications/cancelled`); a
//! crash → `Transient`; a withheld, vanished or unstartable tool →
//! `Unavailable`; JSON-RPC `-32602` → `InvalidInput`, other JSON-RPC errors →
//! `Internal`.
//!
//! [`ToolError::Failed`]: tack_tool::ToolError::Failed
//!
//! ```no_run
//! # async fn demo() -> Result<(), tack_mcp::client::ClientError> {
//! use std::path::PathBuf;
//! use tack_mcp::client::{ConfigSource, ManagerOptions, McpConfig, McpManager};
//!
//! let root = PathBuf::from(".");
//! let mut config = McpConfig::new();
//! config.load_project(&root)?;
//! config.add_servers(
//!     ConfigSource::UserSettings,
//!     &serde_json::json!({"mcpServers": {"fs": {"command": "mcp-server-filesystem", "args": ["."]}}}),
//! )?;
//! let options = ManagerOptions::new(
//!     PathBuf::from("/home/me/.local/state/tack"),
//!     PathBuf::from("/home/me/.cache/tack"),
//!     PathBuf::from("/home/me/.local/state/tack/logs"),
//!     root,
//! );
//! let manager = McpManager::new(config, options)?;
//! for report in manager.start().await {
//!     eprintln!("{}: {:?}", report.server, report.outcome);
//! }
//! let tools = manager.tools(); // Arc<dyn Tool>s for the registry
//! # drop(tools);
//! # Ok(()) }
//! ```

mod config;
mod connection;
mod convert;
mod error;
mod handler;
mod manager;
mod names;
pub mod oauth;
mod options;
mod probe;
mod report;
mod runtime;
mod skills;
mod sse;
mod store;
mod tasks;

pub use config::{
    ConfigSource, McpConfig, ResolvedTransport, ServerConfig, TransportConfig, expand,
};
pub use connection::{ProgressSink, ProgressUpdate};
pub use convert::MAX_DESCRIPTION_CHARS;
pub use error::{ClientError, Result};
pub use handler::{
    ElicitAnswer, Elicitation, ElicitationKind, FieldKind, FormField, NobodyToAsk, SamplingAnswer,
    SamplingRequest, ServerRequests, check_form, parse_form,
};
pub use manager::McpManager;
pub use names::model_tool_name;
pub use options::{
    CALL_TIMEOUT_ENV, DEFAULT_CALL_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, EnvLookup, ManagerOptions,
    STARTUP_TIMEOUT_ENV,
};
pub use report::{
    CallOutcome, PendingServer, ServerListing, ServerState, StartOutcome, StartReport, ToolListing,
};
pub use runtime::McpTool;
pub use skills::{
    MAX_SKILL_BYTES, MAX_SKILL_FILES, McpSkillFetch, cache_dir as skill_cache_dir, manifest_digest,
    relative_path as skill_file_path,
};
pub use store::{
    Approvals, PinCheck, PinnedFile, PinnedSkill, PinnedTool, Pins, SkillChange, ToolChange,
};
pub use tasks::{LateResult, PendingTask, read_pending};

/// sha256 of `bytes` as hex of the first 16 bytes.
pub(crate) fn hash_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let digest = sha2::Sha256::digest(bytes);
    digest[..16]
        .iter()
        .fold(String::with_capacity(32), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
