//! Runs one command hook as a child process, through tack-process.
//!
//! `sh -c COMMAND` in its own process group, cwd = the project directory,
//! `CLAUDE_PROJECT_DIR` and `TACK_PROJECT_DIR` set, the event JSON on stdin,
//! stdout and stderr captured apart (the first [`MAX_CAPTURE`] bytes of
//! each). On timeout, and if the run is dropped half-way (a cancelled turn),
//! the whole process group is killed, so a `sleep` started by the script dies
//! with it. If the shell exits but something it started keeps stdout or
//! stderr open, the group is killed after [`PIPE_GRACE`] and the output read
//! so far is used.

use std::path::Path;
use std::time::{Duration, Instant};

use tack_process::{Cap, Detach, Ending, Exit, Hold, Spec, Stdin, Streams};

/// Bytes kept of each of stdout and stderr; the rest is read and dropped.
pub const MAX_CAPTURE: usize = 4 * 1024 * 1024;
/// How long to wait for stdout/stderr to close after the shell has exited.
pub const PIPE_GRACE: Duration = Duration::from_millis(500);

/// How a hook process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunStatus {
    /// It exited with this code.
    Exited(i32),
    /// The shell was killed by this signal.
    Signaled(i32),
    /// It ran past its timeout and its process group was killed.
    TimedOut,
    /// It could not be started or waited for.
    Failed(String),
}

/// What one run produced.
#[derive(Debug, Clone)]
pub(crate) struct RawRun {
    pub(crate) status: RunStatus,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) duration: Duration,
    /// Whether stdout or stderr was longer than [`MAX_CAPTURE`].
    pub(crate) truncated: bool,
}

/// Runs `command` and waits at most `timeout` for it.
pub(crate) async fn run(
    command: &str,
    timeout: Duration,
    project_dir: &Path,
    input: Vec<u8>,
) -> RawRun {
    let start = Instant::now();
    // The shell is tack's pick, so never one the project puts on PATH; what
    // the hook's command runs keeps the user's PATH.
    let sh = match tack_process::find_program("sh", &[project_dir]) {
        Ok(sh) => sh,
        Err(e) => {
            return RawRun {
                status: RunStatus::Failed(format!("could not start the hook's shell: {e}")),
                stdout: String::new(),
                stderr: String::new(),
                duration: start.elapsed(),
                truncated: false,
            };
        }
    };
    let spec = Spec::new(sh)
        .arg("-c")
        .arg(command)
        .cwd(project_dir)
        .env("CLAUDE_PROJECT_DIR", project_dir)
        .env("TACK_PROJECT_DIR", project_dir)
        .stdin(Stdin::Bytes(input))
        .streams(Streams::Separate)
        .cap(Cap::head(MAX_CAPTURE))
        // A process group in tack's session, and SIGKILL at once on timeout:
        // a hook has had its time when it runs out of it.
        .detach(Detach::Group)
        .grace(Duration::ZERO);
    let process = match tack_process::spawn(spec) {
        Ok(process) => process,
        Err(e) => {
            return RawRun {
                status: RunStatus::Failed(format!(
                    "could not start `sh -c` in {}: {}",
                    project_dir.display(),
                    e.io_error()
                )),
                stdout: String::new(),
                stderr: String::new(),
                duration: start.elapsed(),
                truncated: false,
            };
        }
    };

    let status = match process.wait(Some(timeout), None).await {
        Ending::Exited(exit) => exit_status(exit),
        Ending::TimedOut(_) => RunStatus::TimedOut,
        Ending::Lost(e) => RunStatus::Failed(format!("could not wait for the hook process: {e}")),
        // Nothing cancels a hook here; any ending a later tack-process adds.
        other => RunStatus::Failed(format!("the hook process was stopped: {other:?}")),
    };
    if !process.output_closed(PIPE_GRACE).await {
        // Something the hook started still holds a pipe open.
        process.group().kill();
        process.stop_reading();
    }
    let stdout = process.stdout().take(Hold::Nothing);
    let (stderr, stderr_omitted) = match process.stderr().map(|e| e.take(Hold::Nothing)) {
        Some(taken) => (taken.head, taken.omitted),
        None => (String::new(), 0),
    };

    RawRun {
        status,
        truncated: stdout.omitted > 0 || stderr_omitted > 0,
        stdout: stdout.head,
        stderr,
        duration: start.elapsed(),
    }
}

fn exit_status(exit: Exit) -> RunStatus {
    match (exit.code(), exit.signal()) {
        (Some(code), _) => RunStatus::Exited(code),
        (None, Some(signal)) => RunStatus::Signaled(signal),
        (None, None) => RunStatus::Failed(format!("unrecognised exit status {}", exit.status())),
    }
}
