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
use std::os::unix::process::CommandExt as _;
use std::process::Stdio;

use tokio::process::Command;

use crate::group::{TAG_VAR, tag_value};
use crate::spec::{Detach, Spec};

/// The variables tack reads its own credentials from: the model providers'
/// keys and the bearer token of `tack mcp serve --http`. No process tack
/// starts inherits them (`echo $ANTHROPIC_API_KEY` in Bash answers nothing);
/// a caller that means to pass one sets it explicitly
/// ([`Spec::env`](crate::Spec::env), or `Command::env` on a
/// [`tokio_command`]), as an MCP server whose configuration lists it in its
/// own `env` does.
pub const WITHHELD_ENV: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "TACK_MCP_TOKEN",
];

/// Keep tack's own process from the processes it starts: on Linux, not
/// dumpable, so another process of the same user (a Bash command, an MCP
/// server) can neither read `/proc/<tack>/environ` or `/proc/<tack>/mem`
/// (where the [`WITHHELD_ENV`] credentials tack read still are) nor attach
/// to it, and a crash leaves no core file holding them. What tack starts is
/// dumpable again (exec resets it). Call once, at start.
pub fn protect_own_process() {
    #[cfg(target_os = "linux")]
    {
        // Best effort: a kernel that refuses leaves tack as it was.
        let _ = nix::sys::prctl::set_dumpable(false);
    }
}

/// A `tokio::process::Command` for `program` in a new process group
/// (`process_group(0)`) and without tack's credentials ([`WITHHELD_ENV`]:
/// an `env` set on it afterwards passes one on), for a library that insists
/// on starting the process itself (rmcp's child-process transport). Stdio,
/// waiting and killing are then the caller's; everything else should use
/// [`spawn`](crate::spawn).
///
/// What it starts carries this tack's tag 0, so the sentinel kills it (and
/// what it started) once tack is gone; while tack runs, stopping it is the
/// caller's.
pub fn tokio_command(program: impl AsRef<OsStr>) -> Command {
    crate::sentinel::ensure();
    let mut command = Command::new(program);
    command.process_group(0).env(TAG_VAR, tag_value(0));
    for key in WITHHELD_ENV {
        command.env_remove(key);
    }
    command
}

/// Runs a short query program (`git ls-files …`) to its end and gives its
/// exit status: in `dir`, in a process group of its own, without tack's
/// credentials, no input and its output discarded. `None` when it could
/// not start or had not ended within `limit` (it is killed then).
/// Synchronous: for the few checks made while settings load.
pub fn exit_status(
    program: &OsStr,
    args: &[&OsStr],
    dir: &std::path::Path,
    limit: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for key in WITHHELD_ENV {
        command.env_remove(key);
    }
    let mut child = command.spawn().ok()?;
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().ok()? {
            return Some(status);
        }
        if start.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The sentinel: `sh -c script sentinel <owner>` in a process group of its
/// own, tack's credentials and tag removed, stdin a pipe whose write end
/// stays in tack; nothing of it on tack's terminal.
pub(crate) fn sentinel(script: &str, owner: &str) -> io::Result<std::process::Child> {
    let mut command = std::process::Command::new("/bin/sh");
    command
        .args(["-c", script, "tack-sentinel", owner])
        .env_remove(TAG_VAR)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir("/")
        .process_group(0);
    for key in WITHHELD_ENV {
        command.env_remove(key);
    }
    command.spawn()
}

/// The command for `spec` with the given stdio, in a new process group and,
/// as `spec.detach` says, a new session, without tack's credentials
/// ([`WITHHELD_ENV`]) unless the spec sets one, carrying `tag`. The leader is killed if its
/// `Child` is dropped unreaped (the runtime shut down).
pub(crate) fn build(spec: &Spec, tag: u64, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> Command {
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
    // tack's credentials, unless the spec passes one on explicitly (the
    // explicit value is set below).
    for key in WITHHELD_ENV {
        command.env_remove(key);
    }
    for (key, value) in &spec.env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    // Last, so no spec changes it: a process with tag `n` that is not the
    // leader started here is one tack adopted (see `adopted.rs`).
    command.env(TAG_VAR, tag_value(tag));
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
