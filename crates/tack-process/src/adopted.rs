//! Orphans tack adopts, so that what escaped its group and dropped its tag
//! is still found.
//!
//! A process that drops or rewrites its tag (`env -i setsid sleep 999 &`,
//! `env -u TACK_PROCESS_TAG nohup sh -c '…' &`) and leaves its group is
//! reached neither by a [`Group`](crate::Group) nor by the sentinel. On
//! Linux, [`adopt_orphans`] makes tack a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`): an orphaned descendant of anything tack
//! started is then re-parented to tack instead of init, so it is a child of
//! tack whatever its environment, group or session says, and
//! [`kill_adopted`] kills every child of tack but the sentinel (and what
//! they started) when tack ends a session. Children in tack's own process
//! group are left alone: no process tack-process starts is one (each leads
//! a group of its own, and what they start can join tack's group only on
//! purpose), so they are a library's own, like the browser `tack mcp login`
//! opens, which outlived tack before and still does.
//!
//! **`kill -9` is not covered.** Nothing of tack runs then: its children
//! go to init (or to the nearest subreaper above tack), and only the
//! sentinel's search by tag reaches them, so a process that also dropped
//! its tag survives. Only a cgroup would close that, and it needs a
//! delegated hierarchy an ordinary user (or a CI container) rarely has.
//!
//! **Zombies.** An adopted orphan that ends is tack's zombie until tack
//! waits for it. tack never waits for "any child" (`waitpid(-1)`): tokio
//! and std wait for the children they started by pid, and would get ECHILD
//! for one reaped under them. [`reap_adopted`] (run by [`spawn`](crate::spawn)
//! at most once a second) waits only for zombies that no one else in tack
//! can be waiting for:
//! - a child of tack that leads no process group and is not in tack's own
//!   group. Every process tack-process starts leads a group (or a session)
//!   of its own, and anything else started from tack's process is in tack's
//!   group, so such a child was forked by a descendant and re-parented: the
//!   `sleep 100 &` a Bash command left in its group, once the shell exited;
//! - a process that [`Group::kill`](crate::Group::kill) or
//!   [`Group::kill_strays`](crate::Group::kill_strays) killed while tack
//!   already was its parent, carrying the group's tag without being its
//!   leader (the one process with that tag tack started itself).
//!
//! Either way the zombie is tack's from then on and only this module waits
//! for it, so its pid cannot be reused before it does. What is left: an
//! adopted orphan that leads a group or session of its own and ends by
//! itself without having been killed through its tag (`env -i setsid sleep
//! 1 &`) looks like the group leaders tokio waits for, so it stays a zombie
//! until tack exits: one per such escape, never one per command.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, TryLockError};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpgrp, getpid};

use crate::group::Stat;

/// How long [`kill_adopted`] may take in all (processes in uninterruptible
/// sleep may not die sooner).
const KILL_LIMIT: Duration = Duration::from_millis(500);
/// How many times [`kill_adopted`] looks again, for what was forked or
/// re-parented to tack while it killed.
const KILL_ROUNDS: usize = 10;
/// At most this many processes are stopped and killed in one round.
const MAX_TREE: usize = 10_000;
/// How often [`spawn`](crate::spawn) runs [`reap_adopted`], at most.
const REAP_EVERY: Duration = Duration::from_secs(1);

/// Whether this process is a child subreaper ([`adopt_orphans`] succeeded).
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// Processes a [`Group`](crate::Group) killed whose parent was tack, to
/// reap once they are zombies. Also the lock that lets one
/// [`reap_adopted`] run at a time.
static KILLED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Makes this process a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`):
/// orphaned descendants of what it starts become its children instead of
/// init's, for [`kill_adopted`] to find. Whether it is one now; `false`
/// elsewhere than on Linux, where nothing changes.
///
/// tack calls it once at start-up. An embedder that calls it should also
/// call [`kill_adopted`] before it exits: adopted processes otherwise go to
/// init when it does, as they would have without it.
pub fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    {
        if nix::sys::prctl::set_child_subreaper(true).is_ok() {
            ADOPTING.store(true, Ordering::Relaxed);
            return true;
        }
    }
    false
}

/// Kills every child of this process, and everything they started, but
/// the sentinel and the children in this process's own group (which
/// tack-process did not start: each process it starts leads a group).
/// Each is stopped (so it cannot fork past the look), then killed, with its
/// process group when it leads one, in rounds until none is left (a killed
/// process's children are re-parented to this one). Takes well under a
/// millisecond when nothing is left, and at most about half a second
/// however it goes. How many processes it killed.
///
/// For the end of a session: with [`adopt_orphans`] every process tack
/// started, and every process those started, is then a descendant of tack
/// however it left its group and whatever it did to its environment.
/// Processes tack started and still waits for are killed too (their waits
/// then report a SIGKILL). It cannot run when tack is killed with
/// `kill -9`: see the module's documentation.
///
/// Linux only (it reads `/proc`); elsewhere it finds nothing.
pub fn kill_adopted() -> usize {
    // Nothing was started through this crate (a run that only read files):
    // no scan of `/proc` at every exit.
    if !crate::sentinel::started() {
        return 0;
    }
    let me = getpid().as_raw();
    let own_group = getpgrp().as_raw();
    let sentinel = crate::sentinel::pid();
    let deadline = Instant::now() + KILL_LIMIT;
    let mut killed = HashSet::new();
    for _ in 0..KILL_ROUNDS {
        let children = Children::now();
        let mut queue: VecDeque<(i32, bool)> = children
            .of(me)
            .into_iter()
            .filter(|&pid| Some(pid) != sentinel)
            .map(|pid| (pid, true))
            .collect();
        // Top-down: each is stopped before its children are listed.
        let mut tree = Vec::new();
        let mut seen = HashSet::new();
        while let Some((pid, child_of_tack)) = queue.pop_front() {
            if tree.len() >= MAX_TREE || !seen.insert(pid) {
                continue;
            }
            // A zombie has nothing to kill and no children left.
            let Some(stat) = Stat::read(pid).filter(|s| s.is_live()) else {
                continue;
            };
            // Not started through tack-process, whose processes each lead a
            // group of their own (and nothing they start can join tack's
            // group but on purpose): a library's own, such as the browser
            // `tack mcp login` opens, kept as before.
            if child_of_tack && stat.pgrp == own_group {
                continue;
            }
            let _ = kill(Pid::from_raw(pid), Signal::SIGSTOP);
            tree.push((pid, stat.pgrp == pid));
            queue.extend(children.of(pid).into_iter().map(|c| (c, false)));
        }
        if tree.is_empty() {
            break;
        }
        for &(pid, leads_group) in &tree {
            if leads_group {
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
            }
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        killed.extend(tree.iter().map(|&(pid, _)| pid));
        // What they started is tack's child once they are dead: look again
        // only then.
        while tree
            .iter()
            .any(|&(pid, _)| Stat::read(pid).is_some_and(Stat::is_live))
        {
            if Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        if Instant::now() >= deadline {
            break;
        }
    }
    reap_adopted();
    killed.len()
}

/// Waits for the zombies among this process's children that were adopted
/// (see the module's documentation for which, and why not any other); how
/// many. Never blocks, and does nothing unless [`adopt_orphans`] made this
/// process a subreaper, or while another thread runs it.
pub fn reap_adopted() -> usize {
    if !ADOPTING.load(Ordering::Relaxed) {
        return 0;
    }
    let mut killed = match KILLED.try_lock() {
        Ok(killed) => killed,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => return 0,
    };
    let me = getpid().as_raw();
    let own_group = getpgrp().as_raw();
    let mut reaped = 0;
    for pid in Children::now().of(me) {
        let Some(stat) = Stat::read(pid) else {
            continue;
        };
        if stat.ppid != me || !stat.is_zombie() {
            continue;
        }
        let adopted = (stat.pgrp != pid && stat.pgrp != own_group) || killed.contains(&pid);
        if adopted
            && waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG))
                .is_ok_and(|status| status != WaitStatus::StillAlive)
        {
            reaped += 1;
            // Forgotten at once: the pid is free for a new process now.
            killed.retain(|&p| p != pid);
        }
    }
    // What is no longer a child of tack (which cannot happen: only this
    // function waits for them).
    killed.retain(|&pid| Stat::read(pid).is_some_and(|s| s.ppid == me));
    reaped
}

/// [`reap_adopted`], at most once every [`REAP_EVERY`]: for each process
/// started, so that zombies do not pile up in a long session.
pub(crate) fn reap_now_and_then() {
    static LAST: Mutex<Option<Instant>> = Mutex::new(None);
    if !ADOPTING.load(Ordering::Relaxed) {
        return;
    }
    {
        let Ok(mut last) = LAST.try_lock() else {
            return;
        };
        if last.is_some_and(|at| at.elapsed() < REAP_EVERY) {
            return;
        }
        *last = Some(Instant::now());
    }
    reap_adopted();
}

/// `pid`, a process a [`Group`](crate::Group) just killed, was adopted: its
/// zombie is to be reaped (see the module's documentation).
pub(crate) fn killed(pid: Pid) {
    if ADOPTING.load(Ordering::Relaxed) {
        let mut killed = KILLED.lock().unwrap_or_else(PoisonError::into_inner);
        if !killed.contains(&pid.as_raw()) {
            killed.push(pid.as_raw());
        }
    }
}

/// SIGTERM and SIGHUP end this process as they did (by the signal, so its
/// parent sees it killed by it), but [`kill_adopted`] runs first: a thread
/// of its own waits for them (signal-hook's handler, which exec resets, so
/// the processes tack starts get them as before; no signal is blocked,
/// since std passes the signal mask on to children). A signal ignored at
/// start (`nohup`) stays ignored. Linux only; elsewhere it does nothing.
///
/// The thread starts with the first process tack starts (none before
/// then can be left behind), so a run that starts none pays nothing.
pub fn kill_adopted_on_termination() {
    TERMINATION_ARMED.store(true, Ordering::SeqCst);
    if crate::sentinel::started() {
        start_termination_thread();
    }
}

/// Whether [`kill_adopted_on_termination`] was called.
static TERMINATION_ARMED: AtomicBool = AtomicBool::new(false);

/// Starts the thread of [`kill_adopted_on_termination`] once, if it was
/// asked for: called when a process is started.
pub(crate) fn on_first_process() {
    if TERMINATION_ARMED.load(Ordering::SeqCst) {
        start_termination_thread();
    }
}

fn start_termination_thread() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(termination_thread);
}

fn termination_thread() {
    #[cfg(target_os = "linux")]
    {
        use signal_hook::consts::{SIGHUP, SIGTERM};

        let Some(ignored) = ignored_signals() else {
            return;
        };
        let wanted: Vec<i32> = [SIGTERM, SIGHUP]
            .into_iter()
            .filter(|&signal| ignored & (1 << (signal - 1)) == 0)
            .collect();
        if wanted.is_empty() {
            return;
        }
        // Registered in the thread: one that could not start leaves the
        // default actions in place.
        let _ = std::thread::Builder::new()
            .name("tack-termination".into())
            .spawn(move || {
                let Ok(mut signals) = signal_hook::iterator::Signals::new(&wanted) else {
                    return;
                };
                if let Some(signal) = signals.forever().next() {
                    kill_adopted();
                    // The default action again, and the signal raised: it
                    // ends the process as it would have.
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            });
    }
}

/// The signals this process ignores, as the `SigIgn` mask of
/// `/proc/self/status` (bit `n - 1` for signal `n`).
#[cfg(target_os = "linux")]
fn ignored_signals() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
    u64::from_str_radix(mask.trim(), 16).ok()
}

/// Who is whose child, from `/proc`: each process's own `children` files
/// where the kernel has them (`CONFIG_PROC_CHILDREN`), or else the parent
/// in every `/proc/<pid>/stat`, read once.
enum Children {
    Files,
    Table(HashMap<i32, Vec<i32>>),
}

impl Children {
    fn now() -> Children {
        static FILES: OnceLock<bool> = OnceLock::new();
        let files = *FILES.get_or_init(|| {
            let me = getpid();
            std::path::Path::new(&format!("/proc/{me}/task/{me}/children")).exists()
        });
        if files {
            return Children::Files;
        }
        let mut table: HashMap<i32, Vec<i32>> = HashMap::new();
        if let Ok(entries) = std::fs::read_dir("/proc") {
            for entry in entries.flatten() {
                let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
                    continue;
                };
                if let Some(stat) = Stat::read(pid) {
                    table.entry(stat.ppid).or_default().push(pid);
                }
            }
        }
        Children::Table(table)
    }

    /// The children of `pid` (of any of its threads).
    fn of(&self, pid: i32) -> Vec<i32> {
        match self {
            Children::Table(table) => table.get(&pid).cloned().unwrap_or_default(),
            Children::Files => {
                let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                    return Vec::new();
                };
                let mut children = Vec::new();
                for task in tasks.flatten() {
                    if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
                        children.extend(
                            list.split_ascii_whitespace()
                                .filter_map(|p| p.parse::<i32>().ok()),
                        );
                    }
                }
                children
            }
        }
    }
}
