//! Output on stdout that stops quietly when the reader goes away:
//! `tack sessions | head -1` must not panic on the closed pipe. After the
//! first failed write, nothing more is written and the command ends normally.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to stdout; once stdout is closed, does nothing.
pub fn write(text: std::fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out.write_fmt(text).and_then(|()| out.flush()).is_err() {
        CLOSED.store(true, Ordering::Relaxed);
    }
}

/// `println!` for commands: a closed stdout ends the output, not the process.
macro_rules! outln {
    () => { $crate::out::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::out::write(format_args!("{}\n", format_args!($($arg)*))) };
}
pub(crate) use outln;
