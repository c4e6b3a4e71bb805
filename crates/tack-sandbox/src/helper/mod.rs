//! The helper process, `tack-sandbox-exec`: applies a [`Plan`](crate::Plan)
//! to itself, then execs the command.
//!
//! `tack-sandbox-exec PLAN_JSON PROGRAM [ARGS…]` runs PROGRAM sandboxed;
//! `tack-sandbox-exec --probe` prints the machine's [`Support`](crate::Support)
//! as JSON. When the sandbox cannot be set up it prints a line beginning with
//! [`SETUP_FAILED`](crate::plan::SETUP_FAILED) on stderr and exits with
//! [`SETUP_EXIT`](crate::plan::SETUP_EXIT), never running PROGRAM.
//!
//! On Linux, in order:
//!
//! 1. The Landlock ruleset and the seccomp filters are built (`restrict`):
//!    everything that can be done once, before any fork.
//! 2. Without namespaces (`plan.namespaces == false`), the helper restricts
//!    itself (`no_new_privs`, Landlock, seccomp) and execs PROGRAM: no fork.
//! 3. With them, it forks ns-init straight into new user, mount and PID
//!    namespaces (and a network namespace for the proxy) with `clone(2)`,
//!    staying out of them itself (`init`). ns-init, PID 1 there, maps the
//!    same uid and gid inside, makes the protected paths read-only and hides
//!    the denied ones (`ns`), mounts `/proc`, starts the bridge to the proxy,
//!    and forks the command: it drops every capability, restricts itself and
//!    execs PROGRAM. The helper ends as the command does.
//!
//! [`main`] must run before the process starts any thread (it forks).

pub(crate) mod bridge;
#[cfg(target_os = "linux")]
mod init;
#[cfg(target_os = "linux")]
mod ns;
#[cfg(target_os = "linux")]
mod probe;
#[cfg(target_os = "linux")]
mod restrict;
#[cfg(target_os = "linux")]
mod sys;

use std::convert::Infallible;
use std::ffi::OsString;
use std::fmt;

use crate::plan::{SETUP_EXIT, SETUP_FAILED};

/// The helper's `main`: never returns. Call it before starting any thread.
pub fn main() -> ! {
    let mut args = std::env::args_os().skip(1);
    let Some(first) = args.next() else {
        Failed::new(
            "reading the arguments",
            "usage: tack-sandbox-exec PLAN_JSON PROGRAM [ARGS…], or tack-sandbox-exec --probe",
        )
        .exit()
    };
    if first == "--probe" {
        probe()
    }
    match run(&first, args.collect()) {
        Ok(never) => match never {},
        Err(failed) => failed.exit(),
    }
}

/// Why the sandbox could not be set up: what was being done, and the error.
#[derive(Debug)]
pub(crate) struct Failed {
    what: String,
    why: String,
}

impl Failed {
    pub(crate) fn new(what: impl Into<String>, why: impl fmt::Display) -> Failed {
        Failed {
            what: what.into(),
            why: why.to_string(),
        }
    }

    /// Prints the message tack looks for on stderr.
    fn print(&self) {
        eprintln!("{SETUP_FAILED} {self}");
    }

    /// Prints the message and exits with [`SETUP_EXIT`].
    fn exit(&self) -> ! {
        self.print();
        std::process::exit(SETUP_EXIT)
    }
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.what, self.why)
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> ! {
    let support = crate::Support::nothing(std::env::consts::OS);
    match serde_json::to_string(&support) {
        Ok(json) => {
            println!("{json}");
            std::process::exit(0)
        }
        Err(e) => Failed::new("writing what this machine supports", e).exit(),
    }
}

#[cfg(not(target_os = "linux"))]
fn run(_plan: &std::ffi::OsStr, _command: Vec<OsString>) -> Result<Infallible, Failed> {
    Err(Failed::new(
        "starting the command",
        format!("the sandbox is not built for {}", std::env::consts::OS),
    ))
}

#[cfg(target_os = "linux")]
fn probe() -> ! {
    probe::main()
}

#[cfg(target_os = "linux")]
fn run(plan: &std::ffi::OsStr, command: Vec<OsString>) -> Result<Infallible, Failed> {
    use std::os::unix::ffi::OsStrExt as _;

    let plan: crate::Plan = serde_json::from_slice(plan.as_bytes())
        .map_err(|e| Failed::new("reading the plan (the first argument)", e))?;
    let argv = command
        .iter()
        .map(|arg| std::ffi::CString::new(arg.as_bytes()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Failed::new("reading the command", e))?;
    if argv.is_empty() {
        return Err(Failed::new(
            "reading the command",
            "no program was given after the plan",
        ));
    }
    let needs_namespaces = !plan.read_only.is_empty()
        || !plan.hidden.is_empty()
        || matches!(
            plan.network,
            crate::NetPlan::Proxy { .. } | crate::NetPlan::Loopback
        );
    if needs_namespaces && !plan.namespaces {
        return Err(Failed::new(
            "reading the plan (the first argument)",
            "read-only paths, hidden paths and the proxy need namespaces, and the plan has \
             namespaces off",
        ));
    }
    let restrictions = restrict::Restrictions::for_plan(&plan)?;
    if plan.namespaces {
        return init::run(&plan, restrictions, &argv);
    }
    restrictions.apply()?;
    exec(&argv)
}

/// Execs `argv` (PROGRAM looked up in this environment's `PATH`), with
/// SIGPIPE back to its default (the Rust runtime ignores it, and an ignored
/// signal stays ignored across exec). Exits 127 (not found) or 126 when it
/// cannot.
#[cfg(target_os = "linux")]
fn exec(argv: &[std::ffi::CString]) -> ! {
    if let Err(e) = sys::default_action(nix::sys::signal::Signal::SIGPIPE) {
        Failed::new("restoring SIGPIPE", e).exit()
    }
    if let Err(e) = sys::close_inherited_on_exec() {
        Failed::new("closing the descriptors the command must not inherit", e).exit()
    }
    let Some(program) = argv.first() else {
        Failed::new("reading the command", "no program was given").exit()
    };
    let e = match nix::unistd::execvp(program, argv) {
        Err(e) => e,
        Ok(never) => match never {},
    };
    eprintln!(
        "tack sandbox: could not run {}: {e}",
        program.to_string_lossy()
    );
    let code = if e == nix::errno::Errno::ENOENT {
        127
    } else {
        126
    };
    std::process::exit(code)
}
