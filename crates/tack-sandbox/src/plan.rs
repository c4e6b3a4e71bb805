//! The helper's instructions: what to enforce, decided by tack, carried to
//! the helper as its first argument (JSON).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What the helper enforces before it execs the command. Built by
/// [`Sandbox`](crate::Sandbox) from the [`Config`](crate::Config) and what the
/// machine [supports](crate::Support); every path absolute and canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Landlock: writing (creating, removing, renaming, truncating) is allowed
    /// only beneath these (the writable roots, the session's temporary
    /// directory, and the device files every program writes: `/dev/null`,
    /// `/dev/zero`, `/dev/full`, `/dev/ptmx`, and with namespaces
    /// `/dev/tty`, `/dev/pts` and `/dev/shm`, over which the helper mounts
    /// the command's own devpts and tmpfs).
    /// Reading and executing are allowed everywhere.
    pub writable: Vec<PathBuf>,
    /// Bind-mounted read-only over themselves (protected paths inside the
    /// writable roots; each exists).
    pub read_only: Vec<PathBuf>,
    /// Hidden: an empty read-only directory mounted over each directory, an
    /// empty file over each file (paths Read rules deny; each exists).
    pub hidden: Vec<PathBuf>,
    pub network: NetPlan,
    /// Whether the command may create Unix sockets (`socket(AF_UNIX, …)`;
    /// `socketpair` is always allowed).
    pub unix_sockets: bool,
    /// Use user, mount and PID namespaces (needed for `read_only`, `hidden`,
    /// [`NetPlan::Proxy`] and a fresh PID namespace). Without them only
    /// Landlock and seccomp apply, and the plan has no `read_only`, `hidden`
    /// or proxy.
    pub namespaces: bool,
    /// The lowest Landlock ABI the plan needs; the helper refuses to run the
    /// command on a kernel below it.
    pub landlock_abi: u8,
}

/// The network of a sandboxed command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum NetPlan {
    /// The machine's network.
    On,
    /// No inet sockets (seccomp) and no TCP connect or bind (Landlock).
    Off,
    /// A network namespace of its own with only `lo` up.
    Loopback,
    /// A network namespace of its own whose only way out is a bridge from
    /// `127.0.0.1:port` to the proxy's Unix socket; no inet sockets other
    /// than TCP.
    Proxy { socket: PathBuf, port: u16 },
}

/// The port of the bridge to the proxy inside the sandbox's own network
/// namespace (nothing else listens there).
pub const PROXY_PORT: u16 = 3128;

/// The exit code of the helper when it could not set up the sandbox (it
/// prints why on stderr, beginning with [`SETUP_FAILED`]).
pub const SETUP_EXIT: i32 = 125;

/// The first words of the helper's message when the sandbox could not be set up.
pub const SETUP_FAILED: &str = "tack sandbox: could not set up the sandbox:";
