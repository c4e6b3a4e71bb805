//! One shell process: started in its own process group with stdout and stderr
//! on one pipe, read into a bounded buffer, and stopped with its whole group.

use std::collections::VecDeque;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt as _;
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

/// How much output one command may hold in memory (head and tail halves).
pub(crate) const OUTPUT_CAP: usize = 30 * 1024 * 1024;
/// How long a stopped group gets between SIGTERM and SIGKILL. Kept under the
/// pipeline's cancel grace (500 ms) so a cancelled call still answers itself.
pub(crate) const TERM_GRACE: Duration = Duration::from_millis(250);
/// How long output is still read after the shell exited while processes it
/// left behind keep the pipe open.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(50);
const READ_CHUNK: usize = 64 * 1024;

/// The shell to run commands with: `bash` from `PATH`, else `/bin/sh`.
pub(crate) fn find_shell() -> PathBuf {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("bash"))
            .find(|candidate| candidate.is_file())
    });
    on_path
        .or_else(|| {
            ["/bin/bash", "/usr/bin/bash"]
                .iter()
                .map(PathBuf::from)
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| PathBuf::from("/bin/sh"))
}

/// Quotes `s` for a POSIX shell.
pub(crate) fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The script that runs `command` and records the shell's final directory in
/// `cwd_file` from an EXIT trap (a builtin, so no extra process; the trap keeps
/// the command's exit status, including for `exit N`).
pub(crate) fn wrap_command(command: &str, cwd_file: &Path) -> String {
    let record = format!(
        "pwd -P >| {} 2>/dev/null",
        sh_quote(&cwd_file.to_string_lossy())
    );
    format!("trap {} EXIT\n{command}\n", sh_quote(&record))
}

/// A running shell: its process, the read end of its output pipe, its group.
pub(crate) struct Spawned {
    pub child: Child,
    pub output: pipe::Receiver,
    pub pgid: Pid,
}

/// Starts `shell -c script` in `cwd`, in a new session (so in a new process
/// group, and without a controlling terminal), with stdin empty and stdout
/// and stderr on one pipe (so they interleave as printed).
///
/// Without a terminal, a command that opens `/dev/tty` (sudo's or ssh's
/// password prompt, git's credential prompt) fails at once instead of
/// stopping on the terminal tack runs on until its timeout, and cannot
/// write over tack's screen. When tack itself has no terminal (CI, an MCP
/// client's child) there is none to reach, and a plain new process group
/// spares the fork that `setsid` needs (posix_spawn is ~0.2 ms faster).
pub(crate) fn spawn(shell: &Path, script: &str, cwd: &Path) -> io::Result<Spawned> {
    let (reader, writer) = io::pipe()?;
    let writer_err = writer.try_clone()?;
    let mut command = Command::new(shell);
    command
        .arg("-c")
        .arg(script)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(writer_err))
        .kill_on_drop(true);
    if has_terminal() {
        // std has no stable `setsid` for Command yet (rust-lang/rust#105376).
        #[allow(unsafe_code)]
        // SAFETY: the closure runs in the child between fork and exec. It
        // calls only setsid(2), which is async-signal-safe, and allocates
        // nothing (nix returns an Errno, made into an io::Error without
        // allocating).
        unsafe {
            command.pre_exec(|| nix::unistd::setsid().map(drop).map_err(io::Error::from));
        }
    } else {
        command.process_group(0);
    }
    let child = command.spawn()?;
    // The command holds our copies of the write end: drop it so the pipe
    // reaches end-of-file once the shell and its children are done.
    drop(command);
    let pid = child
        .id()
        .ok_or_else(|| io::Error::other("the shell exited before its pid was known"))?;
    let pgid = Pid::from_raw(i32::try_from(pid).map_err(io::Error::other)?);
    let output = pipe::Receiver::from_owned_fd(OwnedFd::from(reader))?;
    Ok(Spawned {
        child,
        output,
        pgid,
    })
}

/// Whether this process has a controlling terminal (checked once).
fn has_terminal() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| std::fs::File::open("/dev/tty").is_ok())
}

/// Whether any process of group `pgid` is still alive (zombies do not count:
/// an init that does not reap would otherwise keep every group "alive").
pub(crate) fn group_alive(pgid: Pid) -> bool {
    if killpg(pgid, None).is_err() {
        return false;
    }
    live_member_on_proc(pgid).unwrap_or(true)
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

/// Sends SIGKILL to the group, ignoring errors (for Drop paths).
pub(crate) fn kill_group_now(pgid: Pid) {
    let _ = killpg(pgid, Signal::SIGKILL);
}

/// Stops the whole group: SIGTERM (and SIGCONT, so stopped members can act on
/// it), up to `grace` for the group to go, then SIGKILL. Reaps the shell and
/// returns its status when it could be collected.
pub(crate) async fn terminate_group(
    child: &mut Child,
    pgid: Pid,
    grace: Duration,
) -> Option<ExitStatus> {
    let _ = killpg(pgid, Signal::SIGTERM);
    let _ = killpg(pgid, Signal::SIGCONT);
    let deadline = Instant::now() + grace;
    let mut status = None;
    loop {
        if status.is_none() {
            status = child.try_wait().ok().flatten();
        }
        if status.is_some() && !group_alive(pgid) {
            return status;
        }
        if Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = killpg(pgid, Signal::SIGKILL);
    match status {
        Some(s) => Some(s),
        None => tokio::time::timeout(Duration::from_secs(2), child.wait())
            .await
            .ok()
            .and_then(Result::ok),
    }
}

/// Kills the group with SIGKILL when dropped while armed: a call whose future
/// is dropped (aborted task, runtime shutdown) still leaves no processes behind.
pub(crate) struct GroupGuard {
    pgid: Pid,
    armed: bool,
}

impl GroupGuard {
    pub(crate) fn new(pgid: Pid) -> Self {
        Self { pgid, armed: true }
    }
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            kill_group_now(self.pgid);
        }
    }
}

/// Output kept within a memory cap: the first and the last half of the cap,
/// with a count of the bytes dropped between them.
#[derive(Debug)]
pub(crate) struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    half: usize,
    dropped: u64,
}

impl Capture {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            half: (cap / 2).max(1),
            dropped: 0,
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < self.half {
            let room = (self.half - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..room]);
            bytes = &bytes[room..];
        }
        if bytes.is_empty() {
            return;
        }
        if bytes.len() >= self.half {
            self.dropped += (self.tail.len() + bytes.len() - self.half) as u64;
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.half..]);
            return;
        }
        self.tail.extend(bytes);
        if self.tail.len() > self.half {
            let excess = self.tail.len() - self.half;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// Bytes dropped to stay under the cap.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Takes everything as text and empties the buffer. With `hold_partial`, an
    /// incomplete UTF-8 sequence at the very end stays for the next take (the
    /// process may still be printing the rest of the character).
    pub(crate) fn take_text(&mut self, hold_partial: bool) -> String {
        let hold = if hold_partial {
            Hold::PartialChar
        } else {
            Hold::Nothing
        };
        self.take(hold).into_text()
    }

    /// Takes everything but what `hold` keeps for the next take, and empties
    /// the buffer of it.
    pub(crate) fn take(&mut self, hold: Hold) -> Taken {
        let omitted = std::mem::take(&mut self.dropped);
        let mut head = std::mem::take(&mut self.head);
        let mut tail: Vec<u8> = std::mem::take(&mut self.tail).into();
        if omitted == 0 {
            head.append(&mut tail);
        }
        let last = if omitted == 0 { &mut head } else { &mut tail };
        let keep = match hold {
            Hold::Nothing => 0,
            Hold::PartialChar => incomplete_utf8_suffix(last),
            // A newline byte never occurs inside a UTF-8 sequence, so this
            // holds an incomplete character too.
            Hold::PartialLine => {
                memchr::memrchr(b'\n', last).map_or(last.len(), |i| last.len() - i - 1)
            }
        };
        let held = last.split_off(last.len() - keep);
        // The buffer is empty here: what is held goes back under the cap.
        self.push(&held);
        Taken {
            head: String::from_utf8_lossy(&head).into_owned(),
            omitted,
            tail: String::from_utf8_lossy(&tail).into_owned(),
            held: held.len(),
            cap: self.half * 2,
        }
    }
}

/// What [`Capture::take`] keeps back for the next take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hold {
    /// Nothing: the output has ended.
    Nothing,
    /// An incomplete UTF-8 sequence at the very end.
    PartialChar,
    /// The last line when it has no newline yet (the process may still be
    /// printing it).
    PartialLine,
}

/// One take of a [`Capture`]: the text, split where bytes were omitted to
/// stay under the cap.
#[derive(Debug)]
pub(crate) struct Taken {
    /// The text, or its start when bytes were omitted.
    pub head: String,
    /// Bytes omitted between `head` and `tail`.
    pub omitted: u64,
    /// The text after the omitted bytes; empty when none were omitted.
    pub tail: String,
    /// Bytes held back for the next take.
    pub held: usize,
    cap: usize,
}

impl Taken {
    /// The line that marks the omitted bytes (ending in a newline), if any.
    pub(crate) fn omission_note(&self) -> Option<String> {
        if self.omitted == 0 {
            return None;
        }
        let limit = if self.cap >= 1024 * 1024 {
            format!("{} MB", self.cap / (1024 * 1024))
        } else {
            format!("{}-byte", self.cap)
        };
        Some(format!(
            "[… {} bytes of output omitted here: the output went over the {limit} memory limit …]\n",
            self.omitted
        ))
    }

    /// The whole text, with a note where bytes were omitted.
    pub(crate) fn into_text(self) -> String {
        match self.omission_note() {
            None => self.head,
            Some(note) => format!("{}\n{note}{}", self.head, self.tail),
        }
    }
}

/// The length of an incomplete UTF-8 sequence at the end of `bytes` (0 to 3).
pub(crate) fn incomplete_utf8_suffix(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=3.min(n) {
        let b = bytes[n - back];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue; // a continuation byte: look further back for the lead
        }
        let needed = if b & 0b1110_0000 == 0b1100_0000 {
            2
        } else if b & 0b1111_0000 == 0b1110_0000 {
            3
        } else if b & 0b1111_1000 == 0b1111_0000 {
            4
        } else {
            return 0;
        };
        return if needed > back { back } else { 0 };
    }
    0
}

/// Reads what the pipe holds into `capture` until end-of-file or `limit`.
pub(crate) async fn drain(
    output: &mut pipe::Receiver,
    capture: &mut Capture,
    limit: Duration,
) -> bool {
    let mut buf = vec![0u8; READ_CHUNK];
    let read_all = async {
        loop {
            match output.read(&mut buf).await {
                Ok(0) => return,
                Ok(n) => capture.push(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    };
    tokio::time::timeout(limit, read_all).await.is_ok()
}

/// How a foreground command ended.
#[derive(Debug)]
pub(crate) enum Ending {
    /// The shell exited on its own.
    Exited(ExitStatus),
    /// The time limit passed; the group was stopped.
    TimedOut,
    /// The call was cancelled; the group was stopped.
    Cancelled,
    /// Waiting for the shell failed; the group was stopped.
    WaitFailed(String),
}

/// A finished foreground command.
pub(crate) struct Finished {
    pub ending: Ending,
    pub output: Capture,
    /// Processes the command started are still running (e.g. `server &`);
    /// the pipe, if still open, is handed back so it can be drained.
    pub leftover: Option<pipe::Receiver>,
    pub leftover_alive: bool,
}

/// Runs a spawned shell to its end, the time limit or cancellation, collecting
/// its output; the group is killed on the way out unless the shell exited on
/// its own.
pub(crate) async fn run_foreground(
    spawned: Spawned,
    timeout: Duration,
    cancel: &tokio_util::sync::CancellationToken,
    progress: &tack_tool::ProgressSink,
) -> Finished {
    let Spawned {
        mut child,
        mut output,
        pgid,
    } = spawned;
    let mut guard = GroupGuard::new(pgid);
    let mut capture = Capture::new(OUTPUT_CAP);
    let mut buf = vec![0u8; READ_CHUNK];
    let mut eof = false;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    // Once a second, the elapsed time and the last line printed, for whoever
    // watches the call (nothing is armed when nobody does).
    let started = Instant::now();
    let mut ticks =
        tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut recent = RecentOutput::default();
    let ending = loop {
        tokio::select! {
            biased;
            read = output.read(&mut buf), if !eof => match read {
                Ok(0) => eof = true,
                Ok(n) => {
                    capture.push(&buf[..n]);
                    if progress.is_active() {
                        recent.push(&buf[..n]);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => eof = true,
            },
            _ = ticks.tick(), if progress.is_active() => {
                let secs = started.elapsed().as_secs();
                let message = match recent.last_line() {
                    Some(line) => format!("{secs} s: {line}"),
                    None => format!("{secs} s, no output yet"),
                };
                progress.report(tack_tool::Progress {
                    progress: secs as f64,
                    total: None,
                    message: Some(message),
                });
            }
            status = child.wait() => match status {
                Ok(status) => break Ending::Exited(status),
                Err(e) => {
                    terminate_group(&mut child, pgid, TERM_GRACE).await;
                    break Ending::WaitFailed(e.to_string());
                }
            },
            () = &mut deadline => {
                terminate_group(&mut child, pgid, TERM_GRACE).await;
                break Ending::TimedOut;
            }
            () = cancel.cancelled() => {
                terminate_group(&mut child, pgid, TERM_GRACE).await;
                break Ending::Cancelled;
            }
        }
    };
    // The group is gone (stopped above) or was left running on purpose
    // (`server &`); the session's shell state kills leftovers at session end.
    guard.disarm();
    if !eof {
        eof = drain(&mut output, &mut capture, DRAIN_AFTER_EXIT).await;
    }
    let leftover_alive = matches!(ending, Ending::Exited(_)) && group_alive(pgid);
    Finished {
        ending,
        output: capture,
        leftover: if eof { None } else { Some(output) },
        leftover_alive,
    }
}

/// How often a running command reports progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// The last bytes a command printed, for its progress line.
#[derive(Default)]
struct RecentOutput(Vec<u8>);

impl RecentOutput {
    const KEEP: usize = 1024;

    fn push(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
        if self.0.len() > Self::KEEP {
            self.0.drain(..self.0.len() - Self::KEEP);
        }
    }

    /// The last non-blank line (the one being printed counts), cut to 120
    /// characters; `\r` progress bars give their latest state.
    fn last_line(&self) -> Option<String> {
        let text = String::from_utf8_lossy(&self.0);
        let line = text
            .split(['\n', '\r'])
            .map(str::trim)
            .rfind(|l| !l.is_empty())?;
        let mut cut: String = line.chars().take(120).collect();
        if cut.len() < line.len() {
            cut.push('…');
        }
        Some(cut)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn the_progress_line_is_the_last_line_printed() {
        let mut r = RecentOutput::default();
        assert_eq!(r.last_line(), None);
        r.push(b"Compiling a\nCompiling b\n\n");
        assert_eq!(r.last_line().as_deref(), Some("Compiling b"));
        r.push(b"[##  ] 40%\r[### ] 60%");
        assert_eq!(r.last_line().as_deref(), Some("[### ] 60%"));
        r.push(&vec![b'x'; 3000]);
        let line = r.last_line().unwrap();
        assert_eq!(line.chars().count(), 121, "120 and an ellipsis");
    }

    #[test]
    fn capture_keeps_head_and_tail_within_the_cap() {
        let mut c = Capture::new(10);
        c.push(b"0123");
        c.push(b"4567");
        c.push(b"89abcdef");
        c.push(b"XYZ");
        assert_eq!(c.dropped(), 9);
        let text = c.take_text(false);
        assert!(
            text.starts_with("01234\n[… 9 bytes of output omitted"),
            "{text}"
        );
        assert!(text.contains("the 10-byte memory limit"), "{text}");
        assert!(text.ends_with("]\nefXYZ"), "{text}");
        // one huge push
        let mut c = Capture::new(4);
        c.push(b"abcdefgh");
        assert_eq!(c.dropped(), 4);
        assert!(c.take_text(false).ends_with("gh"));
        // under the cap nothing is lost
        let mut c = Capture::new(100);
        c.push(b"hello ");
        c.push(b"world");
        assert_eq!(c.take_text(false), "hello world");
        assert_eq!(c.take_text(false), "");
    }

    #[test]
    fn a_character_split_across_reads_is_held_back() {
        let bytes = "a✓".as_bytes(); // ✓ is 3 bytes
        let mut c = Capture::new(100);
        c.push(&bytes[..2]);
        assert_eq!(c.take_text(true), "a");
        c.push(&bytes[2..]);
        assert_eq!(c.take_text(true), "✓");
        assert_eq!(incomplete_utf8_suffix("🦀".as_bytes()), 0);
        assert_eq!(incomplete_utf8_suffix(&"🦀".as_bytes()[..3]), 3);
        assert_eq!(incomplete_utf8_suffix(b"abc"), 0);
        assert_eq!(incomplete_utf8_suffix(&[0xff]), 0);
    }

    #[test]
    fn an_unfinished_line_is_held_back_when_asked() {
        let mut c = Capture::new(100);
        c.push(b"one\ntw");
        let taken = c.take(Hold::PartialLine);
        assert_eq!((taken.head.as_str(), taken.held), ("one\n", 2));
        c.push(b"o\nthr");
        assert_eq!(c.take(Hold::PartialLine).head, "two\n");
        // no newline at all: the whole line waits
        assert_eq!(c.take(Hold::PartialLine).head, "");
        assert_eq!(c.take(Hold::Nothing).head, "thr");
        // over the cap the held line goes back under it
        let mut c = Capture::new(10);
        c.push(b"0123456789abc\nxyz");
        let taken = c.take(Hold::PartialLine);
        assert_eq!((taken.omitted, taken.tail.as_str()), (7, "c\n"));
        assert_eq!(c.take_text(false), "xyz");
    }

    #[test]
    fn the_wrapper_records_the_directory_and_keeps_the_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("it's a \"dir\" $HOME");
        std::fs::create_dir(&odd).unwrap();
        let cwd_file = odd.join("cwd");
        for shell in ["sh", "bash"] {
            let script = wrap_command("cd / && exit 7", &cwd_file);
            let status = std::process::Command::new(shell)
                .arg("-c")
                .arg(&script)
                .status()
                .unwrap();
            assert_eq!(status.code(), Some(7), "{shell}");
            assert_eq!(
                std::fs::read_to_string(&cwd_file).unwrap(),
                "/\n",
                "{shell}"
            );
            std::fs::remove_file(&cwd_file).unwrap();
        }
    }
}
