//! The data the CLI prints (`tack mcp list / tools / call`, start reports),
//! each `Serialize` for `--json`.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use tack_protocol::ContentBlock;

use super::config::ConfigSource;
use super::error::ClientError;

/// A server's state, as `tack mcp list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ServerState {
    /// A project server waiting for the user's approval.
    NeedsApproval,
    /// Not started, and no cached tool list.
    NotStarted,
    /// Not started; its tools are offered from the cache and it starts on the first call.
    Deferred,
    /// Being started right now.
    Starting,
    Running,
    /// It stopped (crashed or exited); the next call starts it again.
    Stopped,
    /// It could not be started (see the error).
    Failed,
    /// An HTTP server that asks for OAuth and has no usable login: `tack mcp
    /// login NAME`.
    NeedsLogin,
}

/// The outcome of starting one server.
#[derive(Debug, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StartOutcome {
    Started {
        tools: usize,
        withheld: usize,
        protocol_version: String,
        millis: u64,
    },
    /// Lazy: tools offered from the cache; the server starts on the first call.
    Deferred {
        tools: usize,
        withheld: usize,
    },
    /// A project server that was not started because it is not approved.
    NeedsApproval,
    Failed {
        error: ClientError,
    },
}

/// What happened to one server in [`McpManager::start`](super::McpManager::start). Each server is
/// reported once per session (a server waiting for approval again each time).
#[derive(Debug, Serialize)]
pub struct StartReport {
    pub server: String,
    pub source: Option<ConfigSource>,
    #[serde(flatten)]
    pub outcome: StartOutcome,
}

/// One server in `tack mcp list`.
#[derive(Debug, Clone, Serialize)]
pub struct ServerListing {
    pub name: String,
    pub source: ConfigSource,
    pub transport: &'static str,
    pub state: ServerState,
    /// Tools offered (withheld ones not counted).
    pub tools: usize,
    /// Tools withheld because their definition changed since it was pinned.
    pub withheld: usize,
    /// Skills offered (the skills extension; withheld ones not counted).
    pub skills: usize,
    /// Skills withheld because their manifest changed since it was pinned.
    pub withheld_skills: usize,
    /// Size of the offered definitions in tokens (≈ bytes / 4).
    pub definition_tokens: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
}

/// One tool in `tack mcp tools NAME`.
#[derive(Debug, Clone, Serialize)]
pub struct ToolListing {
    /// The name the model calls.
    pub name: String,
    /// The name on the server.
    pub tool: String,
    pub description: String,
    pub input_schema: Value,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    /// Withheld until the user approves a change of its definition.
    pub withheld: bool,
    pub definition_tokens: usize,
}

/// The answer of `tack mcp call`.
#[derive(Debug, Clone, Serialize)]
pub struct CallOutcome {
    pub server: String,
    pub tool: String,
    pub content: Vec<ContentBlock>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// The text blocks joined with newlines.
    pub text: String,
}

/// A project server waiting for approval: what the prompt shows.
#[derive(Debug, Clone, Serialize)]
pub struct PendingServer {
    pub name: String,
    pub source: ConfigSource,
    pub transport: &'static str,
    /// The command line or URL, as written (variables not expanded).
    pub target: String,
    /// The environment variables the entry reads (`${VAR}`): what starting
    /// it hands the project's server.
    pub variables: Vec<String>,
}

impl PendingServer {
    /// The lines a person approving the server is shown: what runs and
    /// which of their environment variables it is given.
    pub fn describe(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{} ({}): {}",
            self.transport,
            self.source.as_str(),
            self.target
        )];
        if !self.variables.is_empty() {
            lines.push(format!(
                "it is given these environment variables: {}",
                self.variables.join(", ")
            ));
        }
        lines
    }
}

impl Serialize for ClientError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("ClientError", 3)?;
        st.serialize_field("kind", self.kind())?;
        st.serialize_field("message", &self.to_string())?;
        st.serialize_field("exit_code", &self.exit_code())?;
        st.end()
    }
}
