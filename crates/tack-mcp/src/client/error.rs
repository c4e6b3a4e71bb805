//! The client's error type. Each variant is one failure class with its own
//! exit code for `tack mcp ...`.

use std::path::PathBuf;

use tack_protocol::exit;
use tack_tool::ToolError;

/// Why an MCP client operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// A configuration entry is wrong (bad shape, unknown type, unset variable).
    #[error("MCP config error{}{}: {message}", server.as_deref().map(|s| format!(" in server {s:?}")).unwrap_or_default(), field.as_deref().map(|f| format!(", field `{f}`")).unwrap_or_default())]
    Config {
        server: Option<String>,
        field: Option<String>,
        message: String,
    },
    /// A project server has not been approved by the user.
    #[error(
        "MCP server {server:?} comes from the project ({source_name}) and has not been approved; run `tack mcp approve {server}` after checking its command"
    )]
    NotApproved { server: String, source_name: String },
    /// The server could not be started or did not finish its handshake in time.
    #[error("MCP server {server:?} failed to start: {message}")]
    StartFailed { server: String, message: String },
    /// A tool call failed (including the tool's own `isError` answers).
    #[error("tool {tool:?} of MCP server {server:?} failed: {error}")]
    Tool {
        server: String,
        tool: String,
        error: ToolError,
    },
    /// No such server or tool.
    #[error("{0}")]
    NotFound(String),
    /// Reading or writing tack's own files (approvals, pins, cache, logs).
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Clone for ClientError {
    /// A copy; an I/O error is copied as its kind and text.
    fn clone(&self) -> Self {
        match self {
            ClientError::Config {
                server,
                field,
                message,
            } => ClientError::Config {
                server: server.clone(),
                field: field.clone(),
                message: message.clone(),
            },
            ClientError::NotApproved {
                server,
                source_name,
            } => ClientError::NotApproved {
                server: server.clone(),
                source_name: source_name.clone(),
            },
            ClientError::StartFailed { server, message } => ClientError::StartFailed {
                server: server.clone(),
                message: message.clone(),
            },
            ClientError::Tool {
                server,
                tool,
                error,
            } => ClientError::Tool {
                server: server.clone(),
                tool: tool.clone(),
                error: error.clone(),
            },
            ClientError::NotFound(what) => ClientError::NotFound(what.clone()),
            ClientError::Io { path, source } => ClientError::Io {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
        }
    }
}

impl ClientError {
    /// The process exit code for this failure class, from the one table of
    /// every `tack` subcommand ([`tack_protocol::exit`]): `USAGE` config,
    /// `SERVER_FAILED` start failed, `TOOL_FAILED` tool error, `NOT_FOUND`,
    /// `NOT_APPROVED`, `INTERNAL` for tack's own files.
    pub fn exit_code(&self) -> u8 {
        match self {
            ClientError::Config { .. } => exit::USAGE,
            ClientError::StartFailed { .. } => exit::SERVER_FAILED,
            ClientError::Tool { .. } => exit::TOOL_FAILED,
            ClientError::NotFound(_) => exit::NOT_FOUND,
            ClientError::NotApproved { .. } => exit::NOT_APPROVED,
            ClientError::Io { .. } => exit::INTERNAL,
        }
    }

    /// A short machine-readable name of the class, for `--json`.
    pub fn kind(&self) -> &'static str {
        match self {
            ClientError::Config { .. } => "config",
            ClientError::StartFailed { .. } => "start_failed",
            ClientError::Tool { .. } => "tool",
            ClientError::NotFound(_) => "not_found",
            ClientError::NotApproved { .. } => "not_approved",
            ClientError::Io { .. } => "io",
        }
    }
}

pub type Result<T, E = ClientError> = std::result::Result<T, E>;
