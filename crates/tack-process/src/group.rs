//! What a started process may leave behind, and signals to all of it: its
//! process group, and every process that carries its tag.
//!
//! A process can leave its group (`setsid`, a double fork into a new
//! session), so the group alone does not reach everything it started. Every
//! process tack starts carries `TACK_PROCESS_TAG=<tack>.<n>` in its
//! environment, which its descendants inherit; a [`Group`] finds them by that
//! tag in `/proc/<pid>/environ`, inside the group or not, and the sentinel
//! (`sentinel.rs`) does the same for every tag of this tack once tack is gone.

use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// The variable that carries a process's tag.
pub(crate) const TAG_VAR: &str = "TACK_PROCESS_TAG";

/// How many times a kill looks again for tagged processes, for those forked
/// while it was killing.
const KILL_ROUNDS: usize = 5;

/// This tack's part of every tag: its pid and a start stamp, so a tag is
/// not confused with one of an earlier tack that had the same pid.
pub(crate) fn owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{}-{nanos:x}", std::process::id())
    })
}

/// A fresh tag: `<owner>.<n>`, n from 1 (0 is the tag of processes started
/// through [`tokio_command`](crate::tokio_command), which have no group
/// handle here).
pub(crate) fn new_tag() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The value of [`TAG_VAR`] for tag `n`.
pub(crate) fn tag_value(n: u64) -> String {
    format!("{}.{n}", owner())
}

/// The process group a started process leads (its id is the leader's pid),
/// and the tag of everything it started. Small and `Copy`: keep it to kill
/// what a process left running after the [`Process`](crate::Process) itself
/// is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Group {
    pgid: Pid,
    tag: u64,
}

impl Group {
    pub(crate) fn led_by(pid: u32, tag: u64) -> Option<Group> {
        let raw = i32::try_from(pid).ok().filter(|&p| p > 0)?;
        Some(Group {
            pgid: Pid::from_raw(raw),
            tag,
        })
    }

    /// The group id.
    pub fn id(self) -> i32 {
        self.pgid.as_raw()
    }

    /// Whether any process of the group, or any process that left it but
    /// carries its tag, is still alive. Zombies do not count: an init that
    /// does not reap would otherwise keep every group "alive".
    pub fn is_alive(self) -> bool {
        let group_alive =
            killpg(self.pgid, None).is_ok() && live_member_on_proc(self.pgid).unwrap_or(true);
        group_alive || !self.strays().is_empty()
    }

    /// No process is left in the group, not even a zombie (`kill(-pgid, 0)`
    /// fails). Cheap: no `/proc` scan, and it says nothing of processes that
    /// left the group (see [`Group::is_alive`]).
    pub fn is_empty(self) -> bool {
        killpg(self.pgid, None).is_err()
    }

    /// Sends SIGKILL to every process of the group and every process that
    /// carries its tag, at once. What is already gone is no error.
    pub fn kill(self) {
        self.signal(Signal::SIGKILL);
        self.kill_tagged(|_| true);
    }

    /// Kills the processes that left the group but carry its tag (`setsid`,
    /// a double fork); the group itself is left alone. How many there were.
    pub fn kill_strays(self) -> usize {
        let pgid = self.pgid.as_raw();
        self.kill_tagged(|p| p.pgrp != pgid)
    }

    /// Sends SIGTERM, and SIGCONT so that stopped members can act on it, to
    /// the group and to every process that carries its tag.
    pub(crate) fn ask_to_terminate(self) {
        self.signal(Signal::SIGTERM);
        self.signal(Signal::SIGCONT);
        for p in tagged(self.tag) {
            let _ = kill(p.pid, Signal::SIGTERM);
            let _ = kill(p.pid, Signal::SIGCONT);
        }
    }

    /// The live processes with this group's tag outside the group.
    fn strays(self) -> Vec<Tagged> {
        let pgid = self.pgid.as_raw();
        tagged(self.tag)
            .into_iter()
            .filter(|p| p.pgrp != pgid)
            .collect()
    }

    /// SIGKILLs the tagged processes `which` picks, looking again for ones
    /// forked meanwhile; how many were killed in all.
    fn kill_tagged(self, which: impl Fn(&Tagged) -> bool) -> usize {
        // A process just killed may still show as alive for a moment.
        let mut killed = std::collections::HashSet::new();
        let me = nix::unistd::getpid().as_raw();
        for _ in 0..KILL_ROUNDS {
            let found: Vec<Tagged> = tagged(self.tag).into_iter().filter(&which).collect();
            if found.is_empty() {
                break;
            }
            for p in &found {
                // Stopped first, so it cannot fork between our look and the kill.
                let _ = kill(p.pid, Signal::SIGSTOP);
            }
            for p in &found {
                let _ = kill(p.pid, Signal::SIGKILL);
                // An orphan tack adopted (its parent is tack, yet it is not
                // the leader tack started): its zombie is tack's to reap.
                if p.ppid == me && p.pid != self.pgid {
                    crate::adopted::killed(p.pid);
                }
            }
            killed.extend(found.iter().map(|p| p.pid));
        }
        killed.len()
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

/// A live process that carries a tag.
struct Tagged {
    pid: Pid,
    ppid: i32,
    pgrp: i32,
}

/// The live (not zombie) processes whose environment holds tag `n` of this
/// tack. A zombie's environment reads as empty, so it never matches.
fn tagged(n: u64) -> Vec<Tagged> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let wanted = format!("{TAG_VAR}={}", tag_value(n));
    let me = i32::try_from(std::process::id()).unwrap_or(i32::MAX);
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ
            .split(|&b| b == 0)
            .any(|var| var == wanted.as_bytes())
        {
            continue;
        }
        let Some(stat) = Stat::read(pid) else {
            continue;
        };
        if stat.is_live() {
            found.push(Tagged {
                pid: Pid::from_raw(pid),
                ppid: stat.ppid,
                pgrp: stat.pgrp,
            });
        }
    }
    found
}

/// What `/proc/<pid>/stat` says of a process: its state, parent and group.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stat {
    pub(crate) state: u8,
    pub(crate) ppid: i32,
    pub(crate) pgrp: i32,
}

impl Stat {
    /// `None` when there is no such process (or no `/proc`).
    pub(crate) fn read(pid: i32) -> Option<Stat> {
        Stat::parse(&std::fs::read(format!("/proc/{pid}/stat")).ok()?)
    }

    fn parse(stat: &[u8]) -> Option<Stat> {
        // pid (comm) state ppid pgrp ...; comm may contain spaces and parens.
        let after = &stat[memchr::memrchr(b')', stat)? + 1..];
        let mut fields = after
            .split(|b| b.is_ascii_whitespace())
            .filter(|f| !f.is_empty());
        let state = *fields.next()?.first()?;
        let mut number = || std::str::from_utf8(fields.next()?).ok()?.parse().ok();
        let ppid = number()?;
        let pgrp = number()?;
        Some(Stat { state, ppid, pgrp })
    }

    /// Neither a zombie (dead, not yet reaped) nor dead.
    pub(crate) fn is_live(self) -> bool {
        !self.is_zombie()
    }

    pub(crate) fn is_zombie(self) -> bool {
        matches!(self.state, b'Z' | b'X')
    }
}

/// Scans `/proc` for a non-zombie member of the group; `None` without `/proc`.
fn live_member_on_proc(pgid: Pid) -> Option<bool> {
    let entries = std::fs::read_dir("/proc").ok()?;
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Some(stat) = Stat::read(pid) else {
            continue;
        };
        if stat.pgrp == pgid.as_raw() && stat.is_live() {
            return Some(true);
        }
    }
    Some(false)
}

/// `SIGKILL` for 9; `None` when `signal` is not a known signal.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Signal::try_from(signal).ok().map(Signal::as_str)
}
