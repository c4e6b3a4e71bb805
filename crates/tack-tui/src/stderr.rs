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

/// Puts the real stderr back when dropped.
pub(crate) struct Redirect {
    saved: OwnedFd,
}

impl Redirect {
    /// Points fd 2 at a pipe read by a thread of its own. None when that
    /// cannot be done (stderr stays as it was).
    pub(crate) fn start() -> Option<Self> {
        let saved = rustix::io::dup(std::io::stderr().as_fd()).ok()?;
        let (read, write) = rustix::pipe::pipe().ok()?;
        rustix::stdio::dup2_stderr(&write).ok()?;
        drop(write);
        std::thread::Builder::new()
            .name("tack-tui-stderr".into())
            .spawn(move || {
                let reader = BufReader::new(std::fs::File::from(read));
                for line in reader.lines() {
                    let Ok(line) = line else { break };
                    let line = crate::view::plain(line.trim_end());
                    if line.is_empty() {
                        continue;
                    }
                    let mut lines = LINES.lock().unwrap_or_else(|p| p.into_inner());
                    if lines.len() >= KEPT {
                        lines.remove(0);
                    }
                    lines.push(line);
                }
            })
            .ok()?;
        Some(Self { saved })
    }
}

impl Drop for Redirect {
    fn drop(&mut self) {
        // The pipe's last writer closes with this: the thread ends.
        let _ = rustix::stdio::dup2_stderr(&self.saved);
    }
}

/// What was written to stderr since the last call.
pub(crate) fn drain() -> Vec<String> {
    let mut lines = LINES.lock().unwrap_or_else(|p| p.into_inner());
    std::mem::take(&mut *lines)
}
