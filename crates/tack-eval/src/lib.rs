//! `tack eval`: the same tasks through every tool interface, with the same
//! model, data and completion rules, every call recorded and every failure
//! classified.
//!
//! ```text
//! suite.toml ──► Suite (tasks × variants × repeats) ──► runner: one run per entry, N at a time
//!     each run: a scratch directory (work, home, state), the variant's program (tack by default)
//!               started there against a model stand-in on 127.0.0.1:
//!                 cassette (replay; each request compared with what was recorded → divergence)
//!                 script   (mock steps a person wrote)      live (the real API, from the environment)
//!     after it: transcript + the requests seen ──► analyze: calls, tokens, turns, checks, failure class
//!               ──► RunRecord, one line of runs.jsonl (written as each run ends: --resume continues)
//! runs.jsonl ──► report (Markdown + SVG chart), compare (two runs.jsonl), merge (shards), atif (export)
//! ```
//!
//! **Key decision: a run is the real program in a real directory.** The
//! harness under evaluation is exactly what a user runs (`tack run`, an
//! embedder's binary, `tack` with an MCP sidecar), and the transcript it
//! writes is the record. The only stand-in is the model, and in replay a
//! stand-in that checks what it is sent.

pub mod analyze;
pub mod atif;
pub mod cassette;
pub mod chart;
pub mod check;
pub mod compare;
pub mod output;
pub mod record;
pub mod report;
pub mod runner;
pub mod suite;

use std::path::PathBuf;

pub use record::{FailureClass, RunRecord, Status};
pub use suite::Suite;

/// Errors of the evaluation harness (a run's own failures are records, not errors).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("{}:{line}:{column}: {message}", path.display())]
    Suite {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a cassette: {message}", path.display())]
    Cassette { path: PathBuf, message: String },
    #[error("no cassette at {} (record one: tack eval SUITE --record --from script|live)", path.display())]
    NoCassette { path: PathBuf },
    #[error("{0}")]
    Usage(String),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
