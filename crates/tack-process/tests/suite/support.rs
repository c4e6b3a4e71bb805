//! Helpers so each test reads: start, act, expect.

use std::time::{Duration, Instant};

use tack_process::{Hold, Process, Spec};

/// `sh -c script`.
pub fn sh(script: &str) -> Spec {
    Spec::new("sh").arg("-c").arg(script)
}

/// Starts `spec`, panicking if it cannot start.
pub fn start(spec: Spec) -> Process {
    tack_process::spawn(spec).expect("the process starts")
}

/// Polls `done` every 10 ms until it holds or `limit` passes; whether it held.
pub async fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Reads the process's output until it has printed a whole first line;
/// returns that line (without its newline).
pub async fn first_line(process: &Process) -> String {
    let mut text = String::new();
    let got = within(Duration::from_secs(10), || {
        text.push_str(&process.stdout().take(Hold::PartialLine).head);
        text.contains('\n')
    })
    .await;
    assert!(got, "no line within 10 s; so far: {text:?}");
    text.lines().next().unwrap_or_default().to_owned()
}

/// A process as `/proc` shows it, told apart from a later one that reuses its
/// pid by its start time.
#[derive(Debug, Clone, Copy)]
pub struct ProcId {
    pub pid: i32,
    start: u64,
}

impl ProcId {
    /// The running process `pid`; panics if there is none.
    pub fn of(pid: i32) -> ProcId {
        let (_, start) = stat(pid).unwrap_or_else(|| panic!("no process {pid} in /proc"));
        ProcId { pid, start }
    }

    /// The first line of `process`'s output, a pid it printed.
    pub async fn printed_by(process: &Process) -> ProcId {
        let line = first_line(process).await;
        ProcId::of(line.trim().parse().expect("a pid"))
    }

    /// Whether this very process still runs: it is in `/proc` with the same
    /// start time, and is neither a zombie (dead, waiting to be reaped by a
    /// parent or an init that may never do it) nor dead.
    pub fn is_running(self) -> bool {
        match stat(self.pid) {
            None => false,
            Some((state, start)) => start == self.start && state != 'Z' && state != 'X',
        }
    }

    /// Waits up to 5 s for the process to stop running; whether it did.
    pub async fn ends(self) -> bool {
        within(Duration::from_secs(5), || !self.is_running()).await
    }
}

/// The state letter and the start time (clock ticks after boot) of `pid`.
fn stat(pid: i32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid ...; comm may hold spaces and parentheses.
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // starttime is field 22 of stat(5); the state is field 3.
    let start = fields.nth(22 - 4)?.parse().ok()?;
    Some((state, start))
}
