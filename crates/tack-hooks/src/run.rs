//! Runs one command hook as a child process.
//!
//! `sh -c COMMAND` in its own process group, cwd = the project directory,
//! `CLAUDE_PROJECT_DIR` and `TACK_PROJECT_DIR` set, the event JSON on stdin,
//! stdout and stderr captured (up to [`MAX_CAPTURE`] bytes each). On timeout,
//! and if the run is dropped half-way (a cancelled turn), the whole process
//! group is killed, so a `sleep` started by the script dies with it. If the
//! shell exits but something it started keeps stdout or stderr open, the
//! group is killed after [`PIPE_GRACE`] and the output read so far is used.

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

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

/// Kills the process group when dropped, unless disarmed.
struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    fn kill(&self) {
        if let Some(pgid) = self.pgid {
            // The group may already be gone; nothing to do then.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }

    fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs `command` and waits at most `timeout` for it.
pub(crate) async fn run(
    command: &str,
    timeout: Duration,
    project_dir: &Path,
    input: Vec<u8>,
) -> RawRun {
    let start = Instant::now();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(project_dir)
        .env("CLAUDE_PROJECT_DIR", project_dir)
        .env("TACK_PROJECT_DIR", project_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            return RawRun {
                status: RunStatus::Failed(format!(
                    "could not start `sh -c` in {}: {e}",
                    project_dir.display()
                )),
                stdout: String::new(),
                stderr: String::new(),
                duration: start.elapsed(),
                truncated: false,
            };
        }
    };
    let mut group = GroupGuard {
        pgid: child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    };

    let stop_reading = CancellationToken::new();
    let stdout = child
        .stdout
        .take()
        .map(|s| tokio::spawn(read_capped(s, stop_reading.clone())));
    let stderr = child
        .stderr
        .take()
        .map(|s| tokio::spawn(read_capped(s, stop_reading.clone())));
    // Written from its own task: a hook that prints before reading its input
    // must not deadlock against us.
    let writer = child.stdin.take().map(|mut stdin| {
        tokio::spawn(async move {
            // A hook that does not read its input closes the pipe early.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        })
    });

    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(Ok(status)) => exit_status(status),
        Ok(Err(e)) => {
            group.kill();
            RunStatus::Failed(format!("could not wait for the hook process: {e}"))
        }
        Err(_) => {
            group.kill();
            let _ = child.wait().await;
            RunStatus::TimedOut
        }
    };

    let readers = async {
        let out = match stdout {
            Some(task) => task.await.unwrap_or_default(),
            None => Captured::default(),
        };
        let err = match stderr {
            Some(task) => task.await.unwrap_or_default(),
            None => Captured::default(),
        };
        (out, err)
    };
    tokio::pin!(readers);
    let (out, err) = match tokio::time::timeout(PIPE_GRACE, &mut readers).await {
        Ok(captured) => captured,
        Err(_) => {
            // Something the hook started still holds a pipe open.
            group.kill();
            stop_reading.cancel();
            readers.await
        }
    };
    group.disarm();
    if let Some(writer) = writer {
        writer.abort();
    }

    RawRun {
        status,
        truncated: out.truncated || err.truncated,
        stdout: String::from_utf8_lossy(&out.bytes).into_owned(),
        stderr: String::from_utf8_lossy(&err.bytes).into_owned(),
        duration: start.elapsed(),
    }
}

fn exit_status(status: ExitStatus) -> RunStatus {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => RunStatus::Exited(code),
        (None, Some(signal)) => RunStatus::Signaled(signal),
        (None, None) => RunStatus::Failed(format!("unrecognised exit status {status}")),
    }
}

#[derive(Debug, Default)]
struct Captured {
    bytes: Vec<u8>,
    truncated: bool,
}

async fn read_capped<R: AsyncRead + Unpin>(mut reader: R, stop: CancellationToken) -> Captured {
    let mut captured = Captured::default();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            read = reader.read(&mut chunk) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = MAX_CAPTURE.saturating_sub(captured.bytes.len());
                    if n > room {
                        captured.truncated = true;
                    }
                    captured.bytes.extend_from_slice(chunk.get(..n.min(room)).unwrap_or_default());
                }
            },
        }
    }
    captured
}
