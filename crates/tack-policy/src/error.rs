//! The one error type of this crate: configuration problems found while
//! loading settings, compiling rules or checking rule examples.

use std::path::PathBuf;

use crate::rule::{Level, Source};

/// Result with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// A configuration error. Every variant names where the problem is (file or
/// command line), what is wrong and, where it helps, what to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A settings file exists but could not be read.
    #[error("cannot read settings file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// A settings file could not be written (when persisting an "always allow").
    #[error("cannot write settings file {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The IO error.
        source: std::io::Error,
    },
    /// A settings file is not valid JSON.
    #[error("settings file {path} is not valid JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error (with line and column).
        source: serde_json::Error,
    },
    /// A settings file is JSON but its `permissions` section has the wrong shape.
    #[error("settings {origin}: {problem}")]
    Settings {
        /// File path or "command line".
        origin: String,
        /// What is wrong.
        problem: String,
    },
    /// A permission rule cannot be parsed or compiled.
    #[error("settings {origin}: rule `{rule}` is invalid: {problem}")]
    Rule {
        /// File path or "command line".
        origin: String,
        /// The rule text as written.
        rule: String,
        /// What is wrong.
        problem: String,
    },
    /// A rule's example does not behave as declared.
    #[error(
        "settings {origin}: rule `{rule}` {} its example `{example}` ({detail})",
        if *.expected_match { "does not match" } else { "matches" }
    )]
    Example {
        /// File path or "command line".
        origin: String,
        /// The rule text as written.
        rule: String,
        /// The example as written.
        example: String,
        /// True when the example was listed under `matches`.
        expected_match: bool,
        /// How the example was read (e.g. the resolved path).
        detail: String,
    },
    /// bypassPermissions mode was asked for where
    /// `permissions.disableBypassPermissionsMode: "disable"` forbids it.
    #[error(
        "{} asks for bypassPermissions mode, but `permissions.disableBypassPermissionsMode` is \"disable\" in {disabled_by}{}; {advice}",
        requested_text(.requested_by),
        if .disabled_by.level == Level::Managed { " (set by the administrator; it cannot be overridden)" } else { "" }
    )]
    BypassDisabled {
        /// Where bypassPermissions was asked for (the command line or a
        /// settings file's `defaultMode`).
        requested_by: Source,
        /// The settings file that disables it.
        disabled_by: Source,
        /// What to do instead.
        advice: String,
    },
    /// The argument of `tack permissions explain` cannot be read.
    #[error("cannot explain `{spec}`: {problem}")]
    Spec {
        /// The argument as given.
        spec: String,
        /// What is wrong.
        problem: String,
    },
}

fn requested_text(source: &Source) -> String {
    match source.level {
        Level::CommandLine => "`--permission-mode bypassPermissions` on the command line".into(),
        _ => format!("`\"defaultMode\": \"bypassPermissions\"` in {source}"),
    }
}
