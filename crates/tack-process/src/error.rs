//! The one error type of this crate: a process that could not be started.
//!
//! Once started, nothing fails with an [`Error`]: how the process ended,
//! including a wait that failed, is an [`Ending`](crate::Ending).

use std::io;
use std::path::PathBuf;

/// A process that could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `fork`/`exec` (or `posix_spawn`) failed: program not found, not
    /// executable, the working directory missing, out of processes.
    #[error("could not start `{program}`{}: {source}", in_dir(cwd.as_ref()))]
    Spawn {
        /// The program, as given.
        program: String,
        /// The working directory asked for, if any.
        cwd: Option<PathBuf>,
        source: io::Error,
    },
    /// A pipe for the process's output could not be made or registered.
    #[error("could not set up the output pipe of `{program}`: {source}")]
    Pipe { program: String, source: io::Error },
}

impl Error {
    /// The operating system's error underneath.
    pub fn io_error(&self) -> &io::Error {
        match self {
            Error::Spawn { source, .. } | Error::Pipe { source, .. } => source,
        }
    }
}

fn in_dir(cwd: Option<&PathBuf>) -> String {
    cwd.map(|d| format!(" in {}", d.display()))
        .unwrap_or_default()
}

/// Result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
