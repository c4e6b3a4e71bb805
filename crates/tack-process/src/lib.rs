//! Starting processes for tack's tools: Bash, hooks, and the MCP client's
//! servers.
//!
//! **Key decision: a process is a group, and stopping it stops the group.**
//! Every process starts in a new process group (and in a new session when tack
//! has a terminal, so nothing it runs can open tack's terminal), and every
//! way of stopping it — a timeout, a cancelled token, [`Process::terminate`],
//! dropping the [`Process`] while it runs — signals the whole group, so a
//! `sleep` a script started in the background dies with the script.
//! What leaves the group (`setsid`, a double fork into a new session) is
//! still found: every process carries a tag in its environment that its
//! descendants inherit, [`Group::kill`] and [`Group::kill_strays`] kill the
//! tagged ones too, and a sentinel process kills every tagged process of this
//! tack once tack is gone, even after `kill -9`. What also drops or rewrites
//! its tag (`env -i setsid …`) is found as a child: [`adopt_orphans`] makes
//! tack a child subreaper, so orphans are re-parented to it, and
//! [`kill_adopted`] kills them when tack ends (on SIGTERM and SIGHUP too,
//! with [`kill_adopted_on_termination`]; never after `kill -9`). See the
//! README for why not a cgroup.
//!
//! No process started here inherits tack's own credentials
//! ([`WITHHELD_ENV`]: the model providers' keys, the MCP bearer token) unless
//! its [`Spec`] sets one explicitly.
//!
//! Output is read from the start by tasks of the [`Process`] into
//! [`Output`] buffers, capped ([`Cap`]) but counted in full, and can be taken
//! while the process runs (background jobs) or once at the end. Stdout and
//! stderr share one pipe with [`Streams::Merged`] (they interleave as
//! printed) or are kept apart with [`Streams::Separate`].
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use tack_process::{Hold, Spec};
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let spec = Spec::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]);
//! let process = tack_process::spawn(spec)?;
//! let ending = process.wait(Some(Duration::from_secs(10)), None).await;
//! assert!(process.output_closed(Duration::from_secs(1)).await);
//!
//! assert_eq!(ending.exit().and_then(|e| e.code()), Some(3));
//! assert_eq!(process.stdout().take(Hold::Nothing).head, "out\nerr\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok(())
//! # }
//! ```

mod adopted;
mod command;
mod error;
mod group;
mod output;
mod process;
mod program;
mod sentinel;
mod spec;

pub use adopted::{adopt_orphans, kill_adopted, kill_adopted_on_termination, reap_adopted};
pub use command::{WITHHELD_ENV, exit_status, protect_own_process, tokio_command};
pub use error::{Error, Result};
pub use group::{Group, signal_name};
pub use output::{Cap, Hold, Output, Taken};
pub use process::{Ending, Exit, Process, State, spawn};
pub use program::{ProgramNotFound, SYSTEM_DIRS, find_program, find_program_in};
pub use spec::{DEFAULT_GRACE, Detach, Spec, Stdin, Streams};
