//! A process group: whether any of it is alive, and signals to all of it.

use std::fmt;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// The process group a started process leads (its id is the leader's pid).
/// Small and `Copy`: keep it to kill what a process left running after the
/// [`Process`](crate::Process) itself is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Group {
    pgid: Pid,
}

impl Group {
    pub(crate) fn led_by(pid: u32) -> Option<Group> {
        let raw = i32::try_from(pid).ok().filter(|&p| p > 0)?;
        Some(Group {
            pgid: Pid::from_raw(raw),
        })
    }

    /// The group id.
    pub fn id(self) -> i32 {
        self.pgid.as_raw()
    }

    /// Whether any process of the group is still alive. Zombies do not count:
    /// an init that does not reap would otherwise keep every group "alive".
    pub fn is_alive(self) -> bool {
        if killpg(self.pgid, None).is_err() {
            return false;
        }
        live_member_on_proc(self.pgid).unwrap_or(true)
    }

    /// Sends SIGKILL to every process of the group, at once. A group that is
    /// already gone is no error.
    pub fn kill(self) {
        self.signal(Signal::SIGKILL);
    }

    /// Sends SIGTERM, and SIGCONT so that stopped members can act on it.
    pub(crate) fn ask_to_terminate(self) {
        self.signal(Signal::SIGTERM);
        self.signal(Signal::SIGCONT);
    }

    fn signal(self, signal: Signal) {
        // ESRCH: the group is gone, which is what was wanted.
        let _ = killpg(self.pgid, signal);
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.pgid)
    }
}

/// Scans `/proc` for a non-zombie member of the group; `None` without `/proc`.
fn live_member_on_proc(pgid: Pid) -> Option<bool> {
    let entries = std::fs::read_dir("/proc").ok()?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...; comm may contain spaces and parens.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = after.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|f| f.parse::<i32>().ok());
        if pgrp == Some(pgid.as_raw()) && state != Some("Z") && state != Some("X") {
            return Some(true);
        }
    }
    Some(false)
}

/// `SIGKILL` for 9; `None` when `signal` is not a known signal.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Signal::try_from(signal).ok().map(Signal::as_str)
}
