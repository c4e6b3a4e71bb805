//! Background commands: started by `Bash` with `run_in_background`, read with
//! `BashOutput`, stopped with `KillShell` or at session end.
//!
//! A job is a [`Process`] kept in the session's jobs table: tack-process reads
//! its output into a shared buffer and reaps it, so a read or a kill never
//! waits for the other.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use tack_process::{Exit, Hold, Process, State, Taken};
use tack_sandbox::Watch;

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
    fn from_exit(exit: Exit, killed: bool) -> Self {
        if killed {
            JobStatus::Killed
        } else if let Some(code) = exit.code() {
            JobStatus::Exited(code)
        } else {
            JobStatus::Signaled(exit.signal().unwrap_or(0))
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
    match tack_process::signal_name(sig) {
        Some(name) => format!("{sig} ({name})"),
        None => sig.to_string(),
    }
}

/// One background command.
pub(crate) struct Job {
    pub id: String,
    pub command: String,
    pub started: Instant,
    process: Process,
    /// KillShell (or the session's end) stopped it: its signal is ours.
    kill_requested: AtomicBool,
    /// The protected paths absent when it started, looked at again once it
    /// has ended (taken then: each is looked at once).
    watch: std::sync::Mutex<Option<Watch>>,
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
    pub(crate) fn new(id: String, command: String, process: Process, watch: Option<Watch>) -> Self {
        Self {
            id,
            command,
            started: Instant::now(),
            process,
            kill_requested: AtomicBool::new(false),
            watch: std::sync::Mutex::new(watch),
        }
    }

    /// The job's watch, once nothing of it runs any more (`None` before,
    /// and after it was taken).
    pub(crate) fn watch_if_ended(&self) -> Option<Watch> {
        if self.process.state() == State::Running || self.process.group().is_alive() {
            return None;
        }
        self.take_watch()
    }

    /// The job's watch, whatever it is doing (the session's end).
    pub(crate) fn take_watch(&self) -> Option<Watch> {
        self.watch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    pub(crate) fn status(&self) -> JobStatus {
        match self.process.state() {
            State::Exited(exit) => {
                JobStatus::from_exit(exit, self.kill_requested.load(Ordering::Acquire))
            }
            State::Lost(why) => JobStatus::Lost(why),
            // Running, and any state a later tack-process adds.
            _ => JobStatus::Running,
        }
    }

    /// The shell was reaped and its pipe reached end-of-file: nothing is left.
    fn finished(&self) -> bool {
        self.process.state() != State::Running && self.process.stdout().is_closed()
    }

    /// The output printed since the last call, with the bytes dropped from it
    /// to stay under the memory cap. With `whole_lines`, a last line without
    /// its newline stays for the next call while the command may still be
    /// printing it.
    pub(crate) fn take_output(&self, whole_lines: bool) -> Taken {
        let hold = match (self.finished(), whole_lines) {
            (true, _) => Hold::Nothing,
            (false, false) => Hold::PartialChar,
            (false, true) => Hold::PartialLine,
        };
        self.process.stdout().take(hold)
    }

    /// Stops the job's whole process group: SIGTERM, a short grace, SIGKILL.
    pub(crate) async fn kill(&self) -> KillOutcome {
        let status = self.status();
        if status != JobStatus::Running {
            let group = self.process.group();
            if !self.finished() && group.is_alive() {
                group.kill();
                return KillOutcome::KilledLeftovers(status);
            }
            return KillOutcome::AlreadyEnded(status);
        }
        self.kill_requested.store(true, Ordering::Release);
        self.process.terminate().await;
        KillOutcome::Killed
    }

    /// Kills what is left of the job without waiting (session end).
    pub(crate) fn kill_now(&self) {
        if !self.finished() {
            self.kill_requested.store(true, Ordering::Release);
            self.process.group().kill();
        }
    }
}
