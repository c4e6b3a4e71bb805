//! The session library's one error type.

use std::path::PathBuf;

use tack_agent::transcript::TranscriptError;
use tack_protocol::exit;

/// Why a session could not be assembled or resumed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The working directory cannot be used.
    #[error("the working directory {} is not usable: {source}", path.display())]
    WorkingDirectory {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A settings file or a command-line permission is wrong.
    #[error("invalid settings: {0}")]
    Settings(#[from] tack_policy::Error),
    /// The `hooks` section of a settings file is wrong.
    #[error("invalid hooks: {0}")]
    Hooks(#[from] tack_hooks::Error),
    /// The `webSearch` section of a settings file is wrong.
    #[error("invalid webSearch settings in {}: {message}", path.display())]
    WebSearch { path: PathBuf, message: String },
    /// MCP configuration, approval or a server.
    #[error(transparent)]
    Mcp(#[from] tack_mcp::client::ClientError),
    /// The record of approved project settings cannot be read or written.
    #[error("cannot use the record of approved project settings {}: {source}; fix the file or delete it (every project settings file then needs approval again)", path.display())]
    Approvals {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A tool could not join the registry (a bad name or schema, a duplicate).
    #[error(transparent)]
    Registry(#[from] tack_tool::RegistryError),
    /// `--tools` (or [`crate::SessionOptions::only_tools`]) names tools that do not exist.
    #[error("--tools names unknown tools: {unknown}. Available: {available}")]
    UnknownTools { unknown: String, available: String },
    /// A transcript could not be opened, read or written.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// A tool source failed.
    #[error("the tool source {source_name} failed: {message}")]
    Source {
        source_name: String,
        message: String,
    },
}

impl Error {
    /// The exit code of this failure (see [`tack_protocol::exit`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::WorkingDirectory { .. }
            | Error::Settings(_)
            | Error::Hooks(_)
            | Error::WebSearch { .. }
            | Error::UnknownTools { .. } => exit::USAGE,
            Error::Mcp(e) => e.exit_code(),
            Error::Transcript(
                TranscriptError::NotFound { .. } | TranscriptError::NothingToContinue { .. },
            ) => exit::NOT_FOUND,
            // Nothing is broken and nothing is missing: this invocation
            // conflicts with a run in progress, and the person fixes it by
            // waiting or by not resuming (a usage error, like a bad flag).
            Error::Transcript(
                TranscriptError::Locked { .. } | TranscriptError::Ambiguous { .. },
            ) => exit::USAGE,
            Error::Registry(_)
            | Error::Transcript(_)
            | Error::Source { .. }
            | Error::Approvals { .. } => exit::INTERNAL,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
