//! A real pseudo-terminal for tests that drive an interactive program (the
//! `tack` binary's terminal UI) and read what it shows.
//!
//! [`Pty::spawn`] starts a child on a fresh pty of a given size. A background
//! thread reads everything the child writes and feeds it to a [`vt100`]
//! terminal emulator, so a test reads the *screen* — what a person would see
//! after every cursor move, erase and redraw — rather than a byte stream full
//! of escape sequences. The raw bytes are kept as well, for assertions about
//! the escape sequences themselves (say, that `NO_COLOR` produced no SGR
//! colours).
//!
//! A real terminal also *answers* some queries, and vt100 does not. crossterm
//! asks for the cursor position with `ESC [ 6 n` (ratatui's inline viewport
//! cannot place itself without the answer, and crossterm gives up only after
//! a 2 s timeout), and it probes for the kitty keyboard protocol with
//! `ESC [ ? u` followed by a primary device attributes request `ESC [ c`.
//! The reader thread answers like a plain xterm without the kitty protocol:
//! the cursor position from the emulator's own cursor (`ESC [ row ; col R`,
//! 1-based) at the point of the query in the stream, the device attributes
//! with `ESC [ ? 1 ; 2 c`, and nothing to `ESC [ ? u`. The queries are found
//! by vt100's own parser (its unhandled-CSI callback), so one split across
//! two reads is still recognised, and the answer is queued only after
//! everything before it was processed.
//!
//! Waiting is done on a condition variable notified for every chunk the child
//! writes: [`Pty::wait_for`] and friends return as soon as the screen shows
//! what they look for, and fail (with the whole screen and scrollback in the
//! panic message) once the timeout passes or the terminal closes without it.
//!
//! ```ignore
//! let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
//! cmd.env("NO_COLOR", "1");
//! let mut pty = Pty::spawn(cmd, 24, 80);
//! pty.wait_for("> ", Duration::from_secs(10));
//! pty.send_str("hello");
//! pty.send(keys::ENTER);
//! let screen = pty.wait_for("hi back", Duration::from_secs(10));
//! pty.send(keys::CTRL_C);
//! assert_eq!(pty.wait_exit(Duration::from_secs(10)), Some(0));
//! ```

#![allow(
    dead_code,
    reason = "a harness: each interactive-session test uses the part it needs"
)]

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant};

use anyhow::Context as _;
pub use portable_pty::CommandBuilder;
use portable_pty::{Child, ExitStatus, MasterPty, PtySize, native_pty_system};

/// Lines of scrollback the emulator keeps above the screen.
pub const SCROLLBACK: usize = 10_000;

/// How long [`Pty::wait_exit`] waits, after the child exited, for the reader
/// to reach the end of the terminal's output (so the screen shows all of it).
const DRAIN_GRACE: Duration = Duration::from_secs(3);

/// Bytes of keys as a terminal sends them (xterm, normal cursor-key mode).
pub mod keys {
    pub const ENTER: &[u8] = b"\r";
    pub const TAB: &[u8] = b"\t";
    pub const ESC: &[u8] = b"\x1b";
    pub const CTRL_C: &[u8] = b"\x03";
    pub const CTRL_D: &[u8] = b"\x04";
    pub const CTRL_R: &[u8] = b"\x12";
    pub const UP: &[u8] = b"\x1b[A";
    pub const DOWN: &[u8] = b"\x1b[B";
    pub const RIGHT: &[u8] = b"\x1b[C";
    pub const LEFT: &[u8] = b"\x1b[D";
    pub const SHIFT_TAB: &[u8] = b"\x1b[Z";
    pub const BACKSPACE: &[u8] = b"\x7f";

    /// `text` as a terminal pastes it in bracketed-paste mode.
    pub fn paste(text: &str) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(text.len() + 12);
        bytes.extend_from_slice(b"\x1b[200~");
        bytes.extend_from_slice(text.as_bytes());
        bytes.extend_from_slice(b"\x1b[201~");
        bytes
    }
}

/// A child process on a pseudo-terminal, with an emulator reading its screen.
///
/// `Send + Sync`. Dropping it kills the child if it still runs.
pub struct Pty {
    shared: Arc<Shared>,
    /// To the writer thread, which owns the master's writer: keystrokes from
    /// [`Pty::send`] and the reader thread's answers, in the order queued.
    input: mpsc::Sender<Vec<u8>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    child: Mutex<Box<dyn Child + Send + Sync>>,
}

impl Pty {
    /// Starts `cmd` on a new `rows`×`cols` pseudo-terminal, as its
    /// controlling terminal. Panics, saying why, if it cannot.
    ///
    /// `TERM` is `xterm-256color` unless `cmd` set it with
    /// [`CommandBuilder::env`] (an inherited `TERM` is replaced). Without a
    /// [`CommandBuilder::cwd`] the child starts in this process's working
    /// directory (portable-pty alone would start it in `$HOME`). The rest of
    /// the environment is this process's unless `cmd` changed it.
    pub fn spawn(cmd: CommandBuilder, rows: u16, cols: u16) -> Self {
        let argv = cmd.get_argv().clone();
        Self::try_spawn(cmd, rows, cols)
            .unwrap_or_else(|e| panic!("pty: cannot start {argv:?} on a pty: {e:#}"))
    }

    /// [`Pty::spawn`], returning the error instead.
    pub fn try_spawn(mut cmd: CommandBuilder, rows: u16, cols: u16) -> anyhow::Result<Self> {
        let size = nonzero_size(rows, cols)?;
        if !cmd.iter_extra_env_as_str().any(|(key, _)| key == "TERM") {
            cmd.env("TERM", "xterm-256color");
        }
        if cmd.get_cwd().is_none() {
            cmd.cwd(std::env::current_dir().context("this process's working directory")?);
        }
        let pair = native_pty_system()
            .openpty(pty_size(rows, cols))
            .context("opening a pty")?;
        let reader = pair.master.try_clone_reader().context("the pty's reader")?;
        let writer = pair.master.take_writer().context("the pty's writer")?;
        let shared = Arc::new(Shared {
            term: Mutex::new(Term::new(size)),
            changed: Condvar::new(),
        });
        let (input, queued) = mpsc::channel();
        std::thread::Builder::new()
            .name("pty-writer".into())
            .spawn({
                let shared = Arc::clone(&shared);
                move || write_loop(writer, &queued, &shared)
            })
            .context("starting the pty's writer thread")?;
        std::thread::Builder::new()
            .name("pty-reader".into())
            .spawn({
                let shared = Arc::clone(&shared);
                let answers = input.clone();
                move || read_loop(reader, &shared, &answers)
            })
            .context("starting the pty's reader thread")?;
        let child = pair
            .slave
            .spawn_command(cmd)
            .context("starting the child")?;
        // Only the child holds the slave now: when it (and whatever it
        // started) exits, the reader sees the end of the output.
        drop(pair.slave);
        Ok(Self {
            shared,
            input,
            master: Mutex::new(pair.master),
            child: Mutex::new(child),
        })
    }

    /// Types `bytes` into the terminal (see [`keys`]). The bytes are queued
    /// to a writer thread, behind any answer to a terminal query already
    /// queued; this returns without waiting for the child to read them.
    /// Panics if writing to the terminal has failed before.
    pub fn send(&self, bytes: &[u8]) {
        if self.input.send(bytes.to_vec()).is_err() {
            let why = self
                .term()
                .write_error
                .clone()
                .unwrap_or_else(|| "the writer stopped".to_owned());
            panic!("pty: cannot type {bytes:?}: {why}");
        }
    }

    /// Types `text` (as UTF-8).
    pub fn send_str(&self, text: &str) {
        self.send(text.as_bytes());
    }

    /// Waits until `needle` is on the screen (also found across a soft line
    /// wrap) and returns the screen as [`Pty::screen`] shows it. Panics with
    /// the screen and the scrollback if `timeout` passes, or the terminal
    /// closes, first.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> String {
        self.wait(timeout, &format!("{needle:?} on the screen"), |term| {
            let screen = term.screen_text();
            (screen.contains(needle) || term.parser.screen().contents().contains(needle))
                .then_some(screen)
        })
    }

    /// Waits until `needle` is in the scrollback or on the screen and returns
    /// both, as [`Pty::history`] shows them. Panics like [`Pty::wait_for`].
    pub fn wait_for_scrollback(&self, needle: &str, timeout: Duration) -> String {
        self.wait(
            timeout,
            &format!("{needle:?} in the scrollback or on the screen"),
            |term| {
                let history = term.history_text();
                history.contains(needle).then_some(history)
            },
        )
    }

    /// Waits until `done` holds for the screen (as [`Pty::screen`] shows it)
    /// and returns that screen. `what` names the wait in the panic message
    /// when `timeout` passes, or the terminal closes, first.
    pub fn wait_until(
        &self,
        mut done: impl FnMut(&str) -> bool,
        timeout: Duration,
        what: &str,
    ) -> String {
        self.wait(timeout, what, |term| {
            let screen = term.screen_text();
            done(&screen).then_some(screen)
        })
    }

    /// The visible screen: one line per row with its trailing spaces
    /// trimmed, without the empty rows at the bottom and without a final
    /// newline. A stable text for snapshots.
    pub fn screen(&self) -> String {
        self.term().screen_text()
    }

    /// Every line of scrollback, oldest first, then the screen as
    /// [`Pty::screen`] shows it.
    pub fn history(&self) -> String {
        self.term().history_text()
    }

    /// The cursor position, 0-based (row, column).
    pub fn cursor(&self) -> (u16, u16) {
        self.term().parser.screen().cursor_position()
    }

    /// The terminal's size (rows, columns).
    pub fn size(&self) -> (u16, u16) {
        let (rows, cols) = self.term().parser.screen().size();
        (rows.get(), cols.get())
    }

    /// The child's process id (None once it was reaped).
    pub fn pid(&self) -> Option<u32> {
        self.child
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .process_id()
    }

    /// Every byte the child wrote to the terminal so far.
    pub fn raw(&self) -> Vec<u8> {
        self.term().raw.clone()
    }

    /// How many cursor-position queries (`ESC [ 6 n`) were answered.
    pub fn cursor_queries(&self) -> usize {
        self.term().parser.callbacks().cursor_queries
    }

    /// Resizes the terminal: the emulator, then the pty, which sends the
    /// child SIGWINCH. Output the child wrote before but that is read after
    /// is drawn at the new size, as in a real terminal.
    pub fn resize(&self, rows: u16, cols: u16) {
        let (r, c) = nonzero_size(rows, cols).unwrap_or_else(|e| panic!("pty: {e:#}"));
        self.term().parser.screen_mut().set_size(r, c);
        let master = self.master.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = master.resize(pty_size(rows, cols)) {
            panic!("pty: resizing to {rows}x{cols}: {e:#}");
        }
    }

    /// Waits up to `timeout` for the child to exit and returns its exit code
    /// (portable-pty reports 1 for a child killed by a signal; see
    /// [`Pty::wait_exit_status`]), or `None` if it still runs.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<u32> {
        self.wait_exit_status(timeout).map(|s| s.exit_code())
    }

    /// [`Pty::wait_exit`] with the whole status (code or signal). Once the
    /// child exited, also waits a little for the rest of its output to be
    /// read, so the screen shows all of it.
    pub fn wait_exit_status(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        let status = loop {
            match self.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => {}
                Err(e) => panic!("pty: waiting for the child: {e}"),
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            // Woken early when the terminal closes, which is usually the exit.
            let term = self.term();
            if term.closed.is_none() {
                let poll = (deadline - now).min(Duration::from_millis(10));
                drop(self.wait_changed(term, poll));
            } else {
                drop(term);
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        // The child is gone; let the reader drain what it wrote. Something it
        // started may hold the terminal open, so only for a while.
        let drained = Instant::now() + DRAIN_GRACE;
        let mut term = self.term();
        while term.closed.is_none() {
            let now = Instant::now();
            if now >= drained {
                break;
            }
            term = self.wait_changed(term, drained - now);
        }
        Some(status)
    }

    /// The child's exit status if it has exited.
    fn try_wait(&self) -> std::io::Result<Option<ExitStatus>> {
        self.child
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .try_wait()
    }

    fn term(&self) -> MutexGuard<'_, Term> {
        self.shared
            .term
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn wait_changed<'a>(
        &'a self,
        term: MutexGuard<'a, Term>,
        timeout: Duration,
    ) -> MutexGuard<'a, Term> {
        self.shared
            .changed
            .wait_timeout(term, timeout)
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }

    /// Waits until `check` returns something, after every chunk of output;
    /// panics with the terminal's state on timeout or when the terminal
    /// closes first (then nothing can change any more).
    fn wait(
        &self,
        timeout: Duration,
        what: &str,
        mut check: impl FnMut(&mut Term) -> Option<String>,
    ) -> String {
        let deadline = Instant::now() + timeout;
        let mut term = self.term();
        let why = loop {
            if let Some(found) = check(&mut term) {
                return found;
            }
            if let Some(closed) = &term.closed {
                break format!("the terminal closed ({closed}) before showing it");
            }
            let now = Instant::now();
            if now >= deadline {
                break format!("timed out after {timeout:?}");
            }
            term = self.wait_changed(term, deadline - now);
        };
        let report = term.report();
        drop(term);
        let child = match self.try_wait() {
            Ok(Some(status)) => format!("exited: {status}"),
            Ok(None) => "still running".to_owned(),
            Err(e) => format!("unknown ({e})"),
        };
        panic!("pty: waiting for {what}: {why}\nchild: {child}\n{report}");
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Ok(None) = child.try_wait() {
            // SIGHUP, then SIGKILL if it is still there 200 ms later.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// What the reader thread and the test share.
struct Shared {
    term: Mutex<Term>,
    /// Notified after every chunk of output, and when the reader or the
    /// writer stops.
    changed: Condvar,
}

/// The emulator and everything else known about the terminal's output.
struct Term {
    parser: vt100::Parser<Answers>,
    raw: Vec<u8>,
    /// Why the reader stopped (end of output or an error), once it has.
    closed: Option<String>,
    /// Why the writer stopped, if writing failed.
    write_error: Option<String>,
}

impl Term {
    fn new((rows, cols): (NonZeroU16, NonZeroU16)) -> Self {
        Self {
            parser: vt100::Parser::new_with_callbacks(rows, cols, SCROLLBACK, Answers::default()),
            raw: Vec::new(),
            closed: None,
            write_error: None,
        }
    }

    /// Processes output; returns the answers to the queries in it, in order.
    fn feed(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.raw.extend_from_slice(bytes);
        self.parser.process(bytes);
        std::mem::take(&mut self.parser.callbacks_mut().answers)
    }

    /// The visible rows, trailing spaces trimmed.
    fn screen_rows(&self) -> Vec<String> {
        row_texts(self.parser.screen())
    }

    fn screen_text(&self) -> String {
        join_rows(self.screen_rows())
    }

    /// Every scrollback row, oldest first. vt100 shows scrollback only
    /// through the screen: with the scrollback offset at `n`, the screen's
    /// top row is the `n`-th row above the live screen. So walk it a screen
    /// at a time from the top, then put the live screen back.
    fn scrollback_rows(&mut self) -> Vec<String> {
        let screen = self.parser.screen_mut();
        let height = usize::from(screen.size().0.get());
        let mut rows = Vec::with_capacity(screen.scrollback_len());
        let mut offset = screen.scrollback_len();
        while offset > 0 {
            screen.set_scrollback(offset);
            let take = offset.min(height);
            rows.extend(row_texts(screen).into_iter().take(take));
            offset -= take;
        }
        screen.set_scrollback(0);
        rows
    }

    fn history_text(&mut self) -> String {
        let mut rows = self.scrollback_rows();
        rows.extend(self.screen_rows());
        join_rows(rows)
    }

    /// The terminal's state for a failure message.
    fn report(&mut self) -> String {
        let scrollback = self.scrollback_rows();
        let screen = self.parser.screen();
        let (rows, cols) = screen.size();
        let (row, col) = screen.cursor_position();
        let mut report = format!(
            "terminal: {rows}x{cols}, cursor at row {row} col {col} (0-based), {} bytes read, {} cursor queries answered\n",
            self.raw.len(),
            self.parser.callbacks().cursor_queries,
        );
        let _ = writeln!(report, "--- scrollback ({} lines) ---", scrollback.len());
        for line in &scrollback {
            let _ = writeln!(report, "{line}");
        }
        let _ = writeln!(report, "--- screen (each row ends at |) ---");
        for line in self.screen_rows() {
            let _ = writeln!(report, "{line}|");
        }
        report.push_str("--- end of screen ---");
        report
    }
}

/// The visible rows of `screen` (at its scrollback offset), trailing spaces
/// trimmed.
fn row_texts(screen: &vt100::Screen) -> Vec<String> {
    screen
        .rows(0, u16::MAX)
        .map(|row| row.trim_end().to_owned())
        .collect()
}

/// Rows joined by newlines, without the empty rows at the end.
fn join_rows(mut rows: Vec<String>) -> String {
    while rows.last().is_some_and(String::is_empty) {
        rows.pop();
    }
    rows.join("\n")
}

/// Answers the terminal queries vt100 leaves unhandled, as the parser meets
/// them in the output.
#[derive(Default)]
struct Answers {
    /// Bytes to write back to the child.
    answers: Vec<u8>,
    cursor_queries: usize,
}

impl vt100::Callbacks for Answers {
    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        let first = params.first().and_then(|p| p.first()).copied().unwrap_or(0);
        match (i1, i2, c) {
            // DSR 6, cursor position report: ESC [ row ; col R, 1-based. A
            // cursor past the last column (pending wrap) is reported in it,
            // as xterm does.
            (None, None, 'n') if first == 6 => {
                let (row, col) = screen.cursor_position();
                let last_col = screen.size().1.get() - 1;
                let answer = format!("\x1b[{};{}R", row + 1, col.min(last_col) + 1);
                self.answers.extend_from_slice(answer.as_bytes());
                self.cursor_queries += 1;
            }
            // DSR 5, status: OK.
            (None, None, 'n') if first == 5 => self.answers.extend_from_slice(b"\x1b[0n"),
            // Primary device attributes (ESC [ c, ESC [ 0 c): a VT100 with
            // advanced video, as xterm says.
            (None, None, 'c') if first == 0 && params.len() <= 1 => {
                self.answers.extend_from_slice(b"\x1b[?1;2c");
            }
            // Everything else, the kitty keyboard query ESC [ ? u among it,
            // goes unanswered, as in a terminal that does not know it.
            _ => {}
        }
    }
}

/// Reads the terminal's output into the emulator until it ends, queuing the
/// answers to the queries in it.
fn read_loop(mut reader: Box<dyn Read + Send>, shared: &Shared, answers: &mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0u8; 16 * 1024];
    let closed = loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break "end of output".to_owned(),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // Linux: EIO once no process has the slave open any more.
            Err(e) if e.raw_os_error() == Some(nix::errno::Errno::EIO as i32) => {
                break "end of output".to_owned();
            }
            Err(e) => break format!("read error: {e}"),
        };
        let answer = shared
            .term
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .feed(&buf[..n]);
        if !answer.is_empty() {
            // Fails only once the writer stopped; its error is recorded.
            let _ = answers.send(answer);
        }
        shared.changed.notify_all();
    };
    shared
        .term
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .closed = Some(closed);
    shared.changed.notify_all();
}

/// Writes what is queued to the terminal until every sender is gone or a
/// write fails.
fn write_loop(
    mut writer: Box<dyn Write + Send>,
    queued: &mpsc::Receiver<Vec<u8>>,
    shared: &Shared,
) {
    for bytes in queued {
        if let Err(e) = writer.write_all(&bytes).and_then(|()| writer.flush()) {
            shared
                .term
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .write_error = Some(format!("writing to the terminal: {e}"));
            shared.changed.notify_all();
            return;
        }
    }
}

fn nonzero_size(rows: u16, cols: u16) -> anyhow::Result<(NonZeroU16, NonZeroU16)> {
    match (NonZeroU16::new(rows), NonZeroU16::new(cols)) {
        (Some(r), Some(c)) => Ok((r, c)),
        _ => anyhow::bail!("a terminal of {rows}x{cols} has no cells"),
    }
}

fn pty_size(rows: u16, cols: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_secs(10);

    /// An interactive bash with a fixed prompt, no rc files and no history
    /// file.
    fn bash(rows: u16, cols: u16) -> Pty {
        let mut cmd = CommandBuilder::new("bash");
        cmd.args(["--norc", "--noprofile", "-i"]);
        cmd.env("PS1", "$ ");
        cmd.env("HISTFILE", "/dev/null");
        Pty::spawn(cmd, rows, cols)
    }

    fn sh(script: &str, rows: u16, cols: u16) -> Pty {
        let mut cmd = CommandBuilder::new("bash");
        cmd.args(["-c", script]);
        Pty::spawn(cmd, rows, cols)
    }

    #[test]
    fn is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Pty>();
    }

    #[test]
    fn a_shell_runs_what_is_typed() {
        let mut pty = bash(24, 80);
        pty.wait_for("$ ", WAIT);
        assert_eq!(pty.size(), (24, 80));
        // The typed line does not contain the needle; only the output does.
        pty.send_str("echo \"hello-\"\"pty\" $TERM");
        pty.send(keys::ENTER);
        let screen = pty.wait_for("hello-pty xterm-256color", WAIT);
        assert!(
            screen.starts_with("$ echo \"hello-\"\"pty\" $TERM\n"),
            "{screen}"
        );
        pty.send_str("exit 7\r");
        assert_eq!(pty.wait_exit(WAIT), Some(7));
    }

    #[test]
    fn a_resize_reaches_the_child_and_the_screen() {
        let pty = bash(24, 80);
        pty.wait_for("$ ", WAIT);
        pty.send_str("stty size\r");
        pty.wait_for("\n24 80\n", WAIT);
        pty.resize(30, 100);
        assert_eq!(pty.size(), (30, 100));
        pty.send_str("stty size\r");
        pty.wait_for("\n30 100\n", WAIT);
        // The emulator is wider too: a 90-column line stays on one row.
        pty.send_str("printf '%090d\\n' 7\r");
        let wide = format!("{:090}", 7);
        let screen = pty.wait_for(&format!("\n{wide}\n"), WAIT);
        assert!(screen.lines().any(|l| l == wide), "{screen}");
    }

    #[test]
    fn the_cursor_position_query_is_answered() {
        // As crossterm does it: raw mode, the query, then read the answer.
        let mut pty = sh(
            r#"stty -echo -icanon; printf 'abc\r\n12345'; printf '\033[6n'
               IFS= read -rsd R reply; printf '\r\ngot%s\r\n' "${reply#*[}"
               printf '\033[c'; IFS= read -rsd c reply; printf 'da%s\r\n' "${reply#*[}""#,
            24,
            80,
        );
        let screen = pty.wait_for("da?1;2", WAIT);
        assert_eq!(screen, "abc\n12345\ngot2;6\nda?1;2", "{screen}");
        assert_eq!(pty.cursor_queries(), 1);
        assert_eq!(pty.wait_exit(WAIT), Some(0));
    }

    #[test]
    fn queries_split_across_reads_are_answered_at_their_place() {
        let mut term = Term::new(nonzero_size(5, 10).unwrap());
        assert!(term.feed(b"ab\x1b[").is_empty());
        assert!(
            term.feed(b"?u\x1b").is_empty(),
            "no kitty keyboard protocol"
        );
        // The position is the one at the query, not after what follows it.
        assert_eq!(term.feed(b"[6nxyz\r\n\x1b[6"), b"\x1b[1;3R");
        assert_eq!(
            term.feed(b"n\x1b[c\x1b[0c"),
            b"\x1b[2;1R\x1b[?1;2c\x1b[?1;2c"
        );
        // Past the last column (pending wrap) it is the last column.
        assert_eq!(term.feed(b"0123456789\x1b[6n"), b"\x1b[2;10R");
        assert_eq!(term.parser.callbacks().cursor_queries, 3);
        assert_eq!(term.screen_text(), "abxyz\n0123456789");
    }

    #[test]
    fn the_scrollback_keeps_what_scrolled_off() {
        let mut pty = sh("for i in $(seq 1 100); do echo line-$i; done", 10, 40);
        pty.wait_for("line-100", WAIT);
        assert_eq!(pty.wait_exit(WAIT), Some(0));
        let screen = pty.screen();
        assert_eq!(screen.lines().count(), 9, "{screen}");
        assert!(screen.starts_with("line-92\n"), "{screen}");
        let history = pty.wait_for_scrollback("line-1\n", WAIT);
        let lines: Vec<String> = (1..=100).map(|i| format!("line-{i}")).collect();
        assert_eq!(history, lines.join("\n"));
        assert_eq!(pty.history(), history);
        // Reading the scrollback put the live screen back.
        assert_eq!(pty.screen(), screen);
    }

    #[test]
    fn raw_bytes_keep_the_escape_sequences() {
        let mut pty = sh(r"printf '\033[31mred\033[0m plain\n'", 5, 20);
        assert_eq!(pty.wait_exit(WAIT), Some(0));
        assert_eq!(pty.screen(), "red plain");
        let raw = pty.raw();
        assert!(raw.windows(5).any(|w| w == b"\x1b[31m"), "{raw:?}");
    }

    #[test]
    fn keys_reach_the_child_as_bytes() {
        let mut pty = sh(
            r#"stty raw -echo; printf 'ready\r\n'
               printf '[%s]\r\n' "$(head -c 22 | od -An -tx1 -v | tr -d ' \n')""#,
            5,
            80,
        );
        // Raw mode is on before the keys arrive.
        pty.wait_for("ready", WAIT);
        pty.send(keys::UP);
        pty.send(keys::SHIFT_TAB);
        pty.send(&keys::paste("hi"));
        pty.send(keys::CTRL_C);
        pty.send(keys::ENTER);
        let screen = pty.wait_for("]", WAIT);
        assert_eq!(
            screen,
            "ready\n[1b5b41 1b5b5a 1b5b3230307e 6869 1b5b3230317e 03 0d]".replace(' ', ""),
        );
        assert_eq!(pty.wait_exit(WAIT), Some(0));
    }

    /// Runs `wait`, which must panic, and returns its message.
    fn panic_message(wait: impl FnOnce()) -> String {
        let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(wait));
        let payload = failed.expect_err("the wait did not fail");
        payload.downcast_ref::<String>().unwrap().clone()
    }

    #[test]
    fn waiting_fails_at_once_with_the_screen_when_the_terminal_closes() {
        let pty = sh("echo bye", 5, 20);
        let started = Instant::now();
        let message = panic_message(|| {
            pty.wait_for("never shown", Duration::from_secs(60));
        });
        assert!(started.elapsed() < Duration::from_secs(30), "{message}");
        assert!(message.contains("\"never shown\""), "{message}");
        assert!(message.contains("the terminal closed"), "{message}");
        assert!(message.contains("\nbye|\n"), "{message}");
    }

    #[test]
    fn a_timeout_names_the_needle_and_shows_the_screen() {
        let pty = bash(5, 40);
        pty.wait_for("$ ", WAIT);
        pty.send_str("echo shown-here\r");
        pty.wait_for("\nshown-here", WAIT);
        let message = panic_message(|| {
            pty.wait_for("not-there", Duration::from_millis(200));
        });
        assert!(message.contains("\"not-there\""), "{message}");
        assert!(message.contains("timed out"), "{message}");
        assert!(message.contains("\nshown-here|\n"), "{message}");
        assert!(message.contains("child: still running"), "{message}");
    }
}
