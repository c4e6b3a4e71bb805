//! Background commands: started by `Bash` with `run_in_background`, read with
//! `BashOutput`, stopped with `KillShell` or at session end.

use std::fmt;
use std::io;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt as _;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::process::{
    Capture, Hold, OUTPUT_CAP, Spawned, TERM_GRACE, Taken, group_alive, kill_group_now,
};

/// Where a background command is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JobStatus {
    Running,
    Exited(i32),
    /// Ended by a signal that KillShell did not send.
    Signaled(i32),
    /// Stopped by KillShell.
    Killed,
    /// Waiting for the process failed.
    Lost(String),
}

impl JobStatus {
    fn from_exit(status: ExitStatus, killed: bool) -> Self {
        use std::os::unix::process::ExitStatusExt as _;
        if killed {
            JobStatus::Killed
        } else if let Some(code) = status.code() {
            JobStatus::Exited(code)
        } else {
            JobStatus::Signaled(status.signal().unwrap_or(0))
        }
    }

    /// A one-word state for structured output.
    pub(crate) fn key(&self) -> &'static str {
        match self {
            JobStatus::Running => "running",
            JobStatus::Exited(_) => "exited",
            JobStatus::Signaled(_) => "signaled",
            JobStatus::Killed => "killed",
            JobStatus::Lost(_) => "lost",
        }
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobStatus::Running => f.write_str("running"),
            JobStatus::Exited(code) => write!(f, "exited with code {code}"),
            JobStatus::Signaled(sig) => write!(f, "terminated by signal {}", signal_name(*sig)),
            JobStatus::Killed => f.write_str("killed by KillShell"),
            JobStatus::Lost(why) => write!(f, "status unknown ({why})"),
        }
    }
}

/// `9 (SIGKILL)`, or the number alone when it is not a known signal.
pub(crate) fn signal_name(sig: i32) -> String {
    match Signal::try_from(sig) {
        Ok(s) => format!("{sig} ({})", s.as_str()),
        Err(_) => sig.to_string(),
    }
}

struct Shared {
    output: Mutex<Capture>,
    status: watch::Sender<JobStatus>,
    kill_requested: AtomicBool,
    /// The shell was reaped and its pipe reached end-of-file: nothing is left.
    finished: AtomicBool,
}

/// One background command.
pub(crate) struct Job {
    pub id: String,
    pub command: String,
    pub pgid: Pid,
    pub started: Instant,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

/// What KillShell did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum KillOutcome {
    /// The command was running and is now stopped.
    Killed,
    /// The command had ended; processes it left behind were killed.
    KilledLeftovers(JobStatus),
    /// The command had ended and nothing was left to kill.
    AlreadyEnded(JobStatus),
}

impl Job {
    /// Starts reading a spawned shell in a task of its own.
    pub(crate) fn start(id: String, command: String, spawned: Spawned) -> Self {
        let shared = Arc::new(Shared {
            output: Mutex::new(Capture::new(OUTPUT_CAP)),
            status: watch::Sender::new(JobStatus::Running),
            kill_requested: AtomicBool::new(false),
            finished: AtomicBool::new(false),
        });
        let pgid = spawned.pgid;
        let task = tokio::spawn(pump(spawned, Arc::clone(&shared)));
        Self {
            id,
            command,
            pgid,
            started: Instant::now(),
            shared,
            task,
        }
    }

    pub(crate) fn status(&self) -> JobStatus {
        self.shared.status.borrow().clone()
    }

    /// The output printed since the last call, with the bytes dropped from it
    /// to stay under the memory cap. With `whole_lines`, a last line without
    /// its newline stays for the next call while the command may still be
    /// printing it.
    pub(crate) fn take_output(&self, whole_lines: bool) -> Taken {
        let ended = self.shared.finished.load(Ordering::Acquire);
        let hold = match (ended, whole_lines) {
            (true, _) => Hold::Nothing,
            (false, false) => Hold::PartialChar,
            (false, true) => Hold::PartialLine,
        };
        self.shared
            .output
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(hold)
    }

    /// Stops the job's whole process group: SIGTERM, a short grace, SIGKILL.
    pub(crate) async fn kill(&self) -> KillOutcome {
        let status = self.status();
        if status != JobStatus::Running {
            if !self.shared.finished.load(Ordering::Acquire) && group_alive(self.pgid) {
                kill_group_now(self.pgid);
                return KillOutcome::KilledLeftovers(status);
            }
            return KillOutcome::AlreadyEnded(status);
        }
        self.shared.kill_requested.store(true, Ordering::Release);
        let _ = killpg(self.pgid, Signal::SIGTERM);
        let _ = killpg(self.pgid, Signal::SIGCONT);
        let mut rx = self.shared.status.subscribe();
        let deadline = Instant::now() + TERM_GRACE;
        loop {
            let leader_done = *rx.borrow_and_update() != JobStatus::Running;
            if leader_done && !group_alive(self.pgid) {
                return KillOutcome::Killed;
            }
            if Instant::now() >= deadline {
                break;
            }
            let _ = tokio::time::timeout(Duration::from_millis(10), rx.changed()).await;
        }
        kill_group_now(self.pgid);
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            rx.wait_for(|s| *s != JobStatus::Running),
        )
        .await;
        KillOutcome::Killed
    }

    /// Kills what is left of the job without waiting (session end).
    pub(crate) fn kill_now(&self) {
        if !self.shared.finished.load(Ordering::Acquire) {
            self.shared.kill_requested.store(true, Ordering::Release);
            kill_group_now(self.pgid);
        }
        self.task.abort();
    }
}

/// Reads the job's output until end-of-file and records how the shell ended.
async fn pump(spawned: Spawned, shared: Arc<Shared>) {
    let Spawned {
        mut child,
        mut output,
        ..
    } = spawned;
    let mut buf = vec![0u8; 64 * 1024];
    let mut eof = false;
    let mut exited = false;
    while !(eof && exited) {
        tokio::select! {
            biased;
            read = output.read(&mut buf), if !eof => match read {
                Ok(0) => eof = true,
                Ok(n) => shared
                    .output
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => eof = true,
            },
            status = child.wait(), if !exited => {
                exited = true;
                let killed = shared.kill_requested.load(Ordering::Acquire);
                let status = match status {
                    Ok(status) => JobStatus::from_exit(status, killed),
                    Err(e) => JobStatus::Lost(e.to_string()),
                };
                shared.status.send_replace(status);
            }
        }
    }
    shared.finished.store(true, Ordering::Release);
}
