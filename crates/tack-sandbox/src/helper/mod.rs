//! The helper process, `tack-sandbox-exec`: applies a [`Plan`](crate::Plan)
//! to itself, then execs the command.
//!
//! `tack-sandbox-exec PLAN_JSON PROGRAM [ARGS…]` runs PROGRAM sandboxed;
//! `tack-sandbox-exec --probe` prints the machine's [`Support`](crate::Support)
//! as JSON. When the sandbox cannot be set up it prints a line beginning with
//! [`SETUP_FAILED`](crate::plan::SETUP_FAILED) on stderr and exits with
//! [`SETUP_EXIT`](crate::plan::SETUP_EXIT), never running PROGRAM.

pub(crate) mod bridge;

/// The helper's `main`: never returns.
pub fn main() -> ! {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let _ = args;
    eprintln!("{} not built yet", crate::plan::SETUP_FAILED);
    std::process::exit(crate::plan::SETUP_EXIT)
}
