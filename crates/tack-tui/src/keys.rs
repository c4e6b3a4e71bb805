//! The terminal's input: a thread of its own reads crossterm events and
//! hands them to the UI task over a channel.
//!
//! Not crossterm's `EventStream`: under load a large paste or the keys
//! after a resize could stay undelivered (its wake-up task and the UI's
//! poll race for the shared reader), and the person's keys must never be
//! lost. A thread that blocks in `read` has no such race; nothing else in
//! tack reads the terminal while the session runs (the backend answers
//! cursor questions from memory, `backend.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::event::Event;
use tokio::sync::mpsc;

/// How often the thread looks whether it should stop.
const TICK: Duration = Duration::from_millis(50);

pub(crate) struct Reader {
    events: mpsc::UnboundedReceiver<std::io::Result<Event>>,
    stop: Arc<AtomicBool>,
}

impl Reader {
    pub(crate) fn start() -> Self {
        let (tx, events) = mpsc::unbounded_channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let spawned = std::thread::Builder::new()
            .name("tack-tui-keys".into())
            .spawn(move || {
                while !stopping.load(Ordering::SeqCst) {
                    match crossterm::event::poll(TICK) {
                        Ok(false) => continue,
                        Ok(true) => {}
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                    let event = crossterm::event::read();
                    let failed = event.is_err();
                    if tx.send(event).is_err() || failed {
                        return;
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("the terminal's input cannot be read: {e}");
        }
        Self { events, stop }
    }

    /// The next event; None when the terminal's input ended.
    pub(crate) async fn next(&mut self) -> Option<std::io::Result<Event>> {
        self.events.recv().await
    }

    /// An event already read, without waiting.
    pub(crate) fn try_next(&mut self) -> Option<std::io::Result<Event>> {
        self.events.try_recv().ok()
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}
