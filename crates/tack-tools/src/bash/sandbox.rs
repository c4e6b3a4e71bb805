//! Bash under the OS sandbox: which commands run in it, how a command is
//! wrapped, and what the model is told when the sandbox blocked it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_process::Spec;
use tack_sandbox::Sandbox;
use tack_tool::ToolError;

/// The excludedCommands pattern a whole command line matches, if any
/// (tack-policy's `excluded_command`, given by the session).
pub type ExcludedFn = dyn Fn(&str) -> Option<String> + Send + Sync;

/// The session's sandbox as the shell uses it.
pub struct ShellSandbox {
    pub sandbox: Arc<Sandbox>,
    /// `sandbox.excludedCommands`: a command line that is wholly one of
    /// them runs without the sandbox.
    pub excluded: Arc<ExcludedFn>,
    /// `sandbox.allowUnsandboxedCommands`: whether `dangerouslyDisableSandbox`
    /// may be used at all (the permission stage asks a person each time).
    pub allow_unsandboxed: bool,
    /// `sandbox.failIfUnavailable` (default true): a machine that cannot
    /// enforce the sandbox runs no command. False: commands run without it,
    /// each answer saying so.
    pub fail_closed: bool,
}

impl std::fmt::Debug for ShellSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellSandbox")
            .field("sandbox", &self.sandbox)
            .field("allow_unsandboxed", &self.allow_unsandboxed)
            .field("fail_closed", &self.fail_closed)
            .finish_non_exhaustive()
    }
}

/// How one command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Confinement {
    /// No sandbox is configured for the session.
    None,
    Sandboxed,
    /// The sandbox is configured, and this command runs outside it: why.
    Unsandboxed(String),
}

impl ShellSandbox {
    /// How `command` runs; an error when `dangerouslyDisableSandbox` is
    /// asked for and the settings do not allow it.
    /// An excluded command runs outside the sandbox only in the directory
    /// the session started in (`session_cwd`) or a directory the settings
    /// made a writable root (a working directory, an additional one,
    /// `sandbox.writableRoots`): anywhere else (a directory a sandboxed
    /// command `cd`ed into) it runs sandboxed, saying why in `note`, since
    /// the command that chose the directory could have prepared it (a
    /// repository whose `core.sshCommand` runs for `git push`).
    pub(crate) fn confinement(
        &self,
        command: &str,
        disable: bool,
        cwd: &Path,
        session_cwd: &Path,
        note: &mut Option<String>,
    ) -> Result<Confinement, ToolError> {
        let confinement = self.confinement_anywhere(command, disable)?;
        if disable {
            return Ok(confinement);
        }
        match confinement {
            Confinement::Unsandboxed(why) if !self.excluded_may_run_in(cwd, session_cwd) => {
                *note = Some(format!(
                    "[This command ran IN the sandbox although {why} matches it: the shell is in \
                     {}, which is neither the directory the session started in nor a configured \
                     working directory, and a sandboxed command could have prepared it. `cd` to \
                     one of those first to run it outside the sandbox.]",
                    cwd.display()
                ));
                Ok(Confinement::Sandboxed)
            }
            other => Ok(other),
        }
    }

    /// Whether `cwd` is `session_cwd` or one of the configured writable
    /// roots (compared as they resolve now).
    fn excluded_may_run_in(&self, cwd: &Path, session_cwd: &Path) -> bool {
        let Ok(cwd) = cwd.canonicalize() else {
            return false;
        };
        let roots = &self.sandbox.config().writable_roots;
        std::iter::once(session_cwd)
            .chain(roots.iter().map(PathBuf::as_path))
            .filter_map(|d| d.canonicalize().ok())
            .any(|d| d == cwd)
    }

    /// How `command` runs, wherever the shell is.
    fn confinement_anywhere(&self, command: &str, disable: bool) -> Result<Confinement, ToolError> {
        if disable {
            if !self.allow_unsandboxed {
                return Err(ToolError::InvalidInput(
                    "dangerouslyDisableSandbox is not allowed here (sandbox.allowUnsandboxedCommands \
                     is false); run the command in the sandbox, or ask the user to run it"
                        .into(),
                ));
            }
            return Ok(Confinement::Unsandboxed(
                "dangerouslyDisableSandbox, approved by the user".into(),
            ));
        }
        Ok(match (self.excluded)(command) {
            Some(pattern) => {
                Confinement::Unsandboxed(format!("sandbox.excludedCommands {pattern:?}"))
            }
            None => Confinement::Sandboxed,
        })
    }

    /// `spec` wrapped in the sandbox (also writing the `writable` files),
    /// or, when the machine cannot enforce it and `failIfUnavailable` is
    /// false, `spec` as it is with a note saying so.
    pub(crate) async fn wrap(
        &self,
        spec: Spec,
        writable: &[PathBuf],
    ) -> Result<(Spec, Option<String>), ToolError> {
        match self.sandbox.wrap(spec.clone(), writable).await {
            Ok(spec) => Ok((spec, None)),
            Err(e @ tack_sandbox::Error::Unsupported { .. }) if !self.fail_closed => Ok((
                spec,
                Some(format!(
                    "[This command ran WITHOUT the OS sandbox (sandbox.failIfUnavailable is false): {e}]"
                )),
            )),
            Err(e) => Err(ToolError::Unavailable(e.to_string())),
        }
    }

    /// The audit's word on a command that ran with `confinement`.
    pub(crate) fn profile(&self, confinement: &Confinement) -> Option<String> {
        match confinement {
            Confinement::None => None,
            Confinement::Unsandboxed(why) => Some(format!("unsandboxed: {why}")),
            Confinement::Sandboxed => Some(
                self.sandbox
                    .profile()
                    .map_or_else(|| "sandbox (not started)".to_owned(), str::to_owned),
            ),
        }
    }
}

/// The helper's setup failure, if the output is one: it never ran the command.
pub(crate) fn setup_failure(output: &str) -> Option<String> {
    let at = output.find(tack_sandbox::SETUP_FAILED)?;
    let line = output[at..].lines().next().unwrap_or_default();
    Some(format!(
        "{line}. The command did not run; `tack sandbox check` shows what this machine supports"
    ))
}

/// Created empty so the sandbox can grant writing exactly this file (the
/// EXIT trap records the final directory in it).
pub(crate) fn precreate(cwd_file: &Path) -> Result<PathBuf, ToolError> {
    std::fs::File::create(cwd_file)
        .map(|_| cwd_file.to_path_buf())
        .map_err(|e| {
            ToolError::Unavailable(format!(
                "could not create {}: {e}; check TMPDIR",
                cwd_file.display()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell_sandbox(root: &Path) -> ShellSandbox {
        let config = tack_sandbox::Config {
            writable_roots: vec![root.to_path_buf()],
            protected: Vec::new(),
            guarded_names: Vec::new(),
            guarded_nested: Vec::new(),
            hidden: Vec::new(),
            unenforced_reads: Vec::new(),
            network: tack_sandbox::Network::Off,
            denied_domains: Vec::new(),
            allow_unix_sockets: false,
        };
        ShellSandbox {
            sandbox: Arc::new(Sandbox::new(config, None)),
            excluded: Arc::new(|line: &str| {
                line.starts_with("git push")
                    .then(|| "git push:*".to_owned())
            }),
            allow_unsandboxed: true,
            fail_closed: true,
        }
    }

    #[test]
    fn an_excluded_command_runs_outside_only_where_the_session_was_set_up() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("project");
        let prepared = session.join("evil");
        let added = dir.path().join("added");
        for d in [&prepared, &added] {
            std::fs::create_dir_all(d).unwrap();
        }
        let s = shell_sandbox(&added);
        let mut note = None;
        let outside = s
            .confinement("git push origin HEAD", false, &session, &session, &mut note)
            .unwrap();
        assert!(
            matches!(outside, Confinement::Unsandboxed(_)),
            "{outside:?}"
        );
        assert_eq!(note, None);
        let in_root = s
            .confinement("git push", false, &added, &session, &mut note)
            .unwrap();
        assert!(
            matches!(in_root, Confinement::Unsandboxed(_)),
            "{in_root:?}"
        );
        let moved = s
            .confinement(
                "git push origin HEAD",
                false,
                &prepared,
                &session,
                &mut note,
            )
            .unwrap();
        assert_eq!(moved, Confinement::Sandboxed);
        let note = note.unwrap();
        assert!(
            note.contains("ran IN the sandbox") && note.contains("evil"),
            "{note}"
        );
        // Asked of a person each time: not moved into the sandbox.
        let asked = s
            .confinement("ls", true, &prepared, &session, &mut None)
            .unwrap();
        assert!(matches!(asked, Confinement::Unsandboxed(_)), "{asked:?}");
    }
}
