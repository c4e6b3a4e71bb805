//! The one error type of this crate: a settings file whose `hooks` cannot be used.
//!
//! Running a hook never fails with an [`Error`]: a hook that times out,
//! crashes or prints nonsense becomes a [`HookReport`](crate::HookReport) in
//! the outcome of its event.

/// A `hooks` configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value in a settings file has the wrong shape.
    #[error("{file}: {path}: {message}")]
    Config {
        /// The settings file, as the caller named it.
        file: String,
        /// Where in the file, e.g. `hooks.PreToolUse[0].hooks[1].timeout`.
        path: String,
        /// What is wrong and what to write instead.
        message: String,
    },
}

/// Result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
