//! The one place that builds a `Command`: the process group, the session,
//! the environment. Everything else starts processes through [`spawn`](crate::spawn),
//! or takes a configured command from [`tokio_command`].

#![expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the one module that builds a Command: everything else starts processes through it"
)]

use std::ffi::OsStr;
use std::io;
use std::process::Stdio;

use tokio::process::Command;

use crate::spec::{Detach, Spec};

/// A `tokio::process::Command` for `program` in a new process group
/// (`process_group(0)`), for a library that insists on starting the
/// process itself (rmcp's child-process transport). Stdio, waiting and
/// killing are then the caller's; everything else should use
/// [`spawn`](crate::spawn).
pub fn tokio_command(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    command.process_group(0);
    command
}

/// The command for `spec` with the given stdio, in a new process group and,
/// as `spec.detach` says, a new session. The leader is killed if its
/// `Child` is dropped unreaped (the runtime shut down).
pub(crate) fn build(spec: &Spec, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Command {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .kill_on_drop(true);
    if let Some(dir) = &spec.cwd {
        command.current_dir(dir);
    }
    for (key, value) in &spec.env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    let new_session = match spec.detach {
        Detach::Group => false,
        Detach::Session => true,
        Detach::SessionIfTerminal => has_terminal(),
    };
    if new_session {
        // std has no stable `setsid` for Command yet (rust-lang/rust#105376),
        // and a new session needs a fork (posix_spawn cannot do it).
        #[expect(
            unsafe_code,
            reason = "the workspace's one unsafe: setsid(2) between fork and exec"
        )]
        // SAFETY: the closure runs in the child between fork and exec. It
        // calls only setsid(2), which is async-signal-safe, and allocates
        // nothing (nix returns an Errno, made into an io::Error without
        // allocating).
        unsafe {
            command.pre_exec(|| nix::unistd::setsid().map(drop).map_err(io::Error::from));
        }
    } else {
        command.process_group(0);
    }
    command
}

/// Whether this process has a controlling terminal (checked once).
pub(crate) fn has_terminal() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| std::fs::File::open("/dev/tty").is_ok())
}
