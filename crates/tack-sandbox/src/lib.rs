//! The OS sandbox: the second wall around every process tack starts for a
//! tool. Permission rules judge a command before it runs, as well as tack
//! can read it; the sandbox is what the kernel enforces whatever the command
//! turns out to do.
//!
//! **Key decision: a helper process applies the sandbox, then execs the
//! command.** [`Sandbox::wrap`] turns a [`tack_process::Spec`] for
//! `program args…` into one for `tack-sandbox-exec PLAN program args…`, so
//! the process runner's group, tag, capped output and kill-on-drop stay as
//! they are. The helper ([`helper::main`]) is a small binary of its own (it
//! starts in well under a millisecond): on Linux it enters new user, mount
//! and PID namespaces (and a network namespace when only a proxy may be
//! reached), makes the protected paths inside the writable roots read-only
//! and hides the paths Read rules deny, restricts itself with Landlock (write
//! only inside the writable roots; TCP off when the network is off), installs
//! a seccomp filter (no inet sockets when the network is off, no new Unix
//! sockets unless allowed, no io_uring, no ptrace), sets `no_new_privs`, and
//! execs the command under a small init that reaps what it leaves.
//!
//! The [`Plan`] it follows is computed once per session from the
//! [`Config`] and what this machine [supports](Support). Where the kernel
//! lacks something the configuration needs, [`Sandbox::check`] says what
//! and the sandbox refuses to run commands (fail closed) instead of running
//! them with less.
//!
//! The network allowlist is enforced outside the sandboxed process: a
//! [`Proxy`] in tack (HTTP CONNECT and plain HTTP) listens on a Unix socket;
//! inside the sandbox's own network namespace the only way out is a bridge
//! on 127.0.0.1 to that socket, so a command that drops the proxy variables
//! has no route at all.

mod config;
mod explain;
pub mod helper;
mod plan;
mod protect;
mod proxy;
mod sandbox;
mod support;

pub use config::{Config, DomainPattern, Network};
pub use explain::Blocked;
pub use plan::{NetPlan, PROXY_PORT, Plan, SETUP_EXIT, SETUP_FAILED};
pub use proxy::{Denial, Proxy};
pub use sandbox::{Error, Sandbox, Watch};
pub use support::Support;

/// The name of the helper binary, installed next to `tack`.
pub const HELPER: &str = "tack-sandbox-exec";

/// The bridge from TCP to the proxy's Unix socket that runs inside a
/// sandbox's network namespace, for tests that put a real client (curl) in
/// front of a [`Proxy`].
#[doc(hidden)]
pub fn serve_proxy_bridge(listener: std::net::TcpListener, socket: std::path::PathBuf) {
    helper::bridge::serve(listener, socket);
}

/// The helper next to the running executable, if it is there.
pub fn helper_beside_current_exe() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let helper = exe.parent()?.join(HELPER);
    helper.is_file().then_some(helper)
}
