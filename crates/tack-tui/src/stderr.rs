//! While the interactive terminal owns the screen, nothing else may write
//! to it: a warning printed on stderr (by tack's log, a library, a child
//! that inherited the descriptor) would tear the viewport. So stderr is a
//! pipe for that time; its lines come back as dim lines above the viewport
//! ([`drain`]), and the real stderr is put back when the session ends.

use std::io::{BufRead as _, BufReader};
use std::os::fd::{AsFd as _, OwnedFd};
use std::sync::Mutex;

/// Lines kept until the UI takes them (the oldest are dropped past this).
const KEPT: usize = 1000;

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The real stderr while it is redirected.
static SAVED: Mutex<Option<OwnedFd>> = Mutex::new(None);

/// Puts the real stderr back when dropped.
pub(crate) struct Redirect;

impl Redirect {
    /// Points fd 2 at a pipe read by a thread of its own. None when that
    /// cannot be done (stderr stays as it was).
    pub(crate) fn start() -> Option<Self> {
        let saved = rustix::io::dup(std::io::stderr().as_fd()).ok()?;
        let (read, write) = rustix::pipe::pipe().ok()?;
        let reader = std::thread::Builder::new()
            .name("tack-tui-stderr".into())
            .spawn(move || read_lines(std::fs::File::from(read)));
        if reader.is_err() {
            // Nobody would read the pipe: stderr stays the terminal.
            return None;
        }
        *SAVED.lock().unwrap_or_else(|p| p.into_inner()) = Some(saved);
        if rustix::stdio::dup2_stderr(&write).is_err() {
            restore();
            return None;
        }
        Some(Self)
    }
}

impl Drop for Redirect {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the real stderr back (once; later calls do nothing). The pipe's
/// last writer closes with it and the reader ends.
pub(crate) fn restore() {
    if let Some(saved) = SAVED.lock().unwrap_or_else(|p| p.into_inner()).take() {
        let _ = rustix::stdio::dup2_stderr(&saved);
    }
}

/// Reads the pipe to its end: a line that is not UTF-8 is read lossily,
/// never a reason to stop (a writer would then get EPIPE).
fn read_lines(pipe: std::fs::File) {
    let mut reader = BufReader::new(pipe);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
        let line = crate::view::plain(String::from_utf8_lossy(&buf).trim_end());
        if line.is_empty() {
            continue;
        }
        let mut lines = LINES.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() >= KEPT {
            lines.remove(0);
        }
        lines.push(line);
    }
}

/// What was written to stderr since the last call.
pub(crate) fn drain() -> Vec<String> {
    let mut lines = LINES.lock().unwrap_or_else(|p| p.into_inner());
    std::mem::take(&mut *lines)
}
