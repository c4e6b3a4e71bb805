//! Output read from a process while it runs, kept within a memory cap.
//!
//! A reader task per pipe pushes into an [`Output`]; the caller takes what
//! accumulated whenever it likes (once at the end, or again and again while a
//! background job runs). Over the cap, the bytes in the middle are counted
//! and dropped: the head and the tail are what a reader needs.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

/// How much of one stream is kept in memory between two takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    head: usize,
    tail: usize,
}

impl Cap {
    /// 30 MB, head and tail.
    pub const DEFAULT: Cap = Cap::head_and_tail(30 * 1024 * 1024);

    /// Keeps the first and the last half of `bytes`; what lies between is
    /// counted and dropped.
    pub const fn head_and_tail(bytes: usize) -> Cap {
        let half = if bytes < 2 { 1 } else { bytes / 2 };
        Cap {
            head: half,
            tail: half,
        }
    }

    /// Keeps the first `bytes`; the rest is counted and dropped.
    pub const fn head(bytes: usize) -> Cap {
        Cap {
            head: bytes,
            tail: 0,
        }
    }

    /// The most bytes kept.
    pub const fn bytes(self) -> usize {
        self.head + self.tail
    }
}

/// What [`Output::take`] keeps back for the next take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hold {
    /// Nothing: the output has ended.
    Nothing,
    /// An incomplete UTF-8 sequence at the very end (the process may still be
    /// printing the rest of the character).
    PartialChar,
    /// The last line when it has no newline yet (the process may still be
    /// printing it).
    PartialLine,
}

/// One take of an [`Output`]: the text, split where bytes were dropped to
/// stay under the cap. Invalid UTF-8 is replaced by U+FFFD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The text, or its start when bytes were dropped.
    pub head: String,
    /// Bytes dropped between `head` and `tail`.
    pub omitted: u64,
    /// The text after the dropped bytes; empty when none were dropped.
    pub tail: String,
    /// Bytes held back for the next take.
    pub held: usize,
    /// The cap the output was kept within (bytes).
    pub cap: usize,
}

/// A stream's output, shared by the task reading the pipe and whoever reads
/// it (clone it freely: clones share one buffer).
///
/// Once every handle but the reader's is gone, the reader keeps draining
/// the pipe (so what holds it open does not die of SIGPIPE) but keeps
/// nothing.
#[derive(Debug, Clone)]
pub struct Output(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    buffer: Mutex<Buffer>,
    /// End-of-file was reached, or reading stopped.
    closed: watch::Sender<bool>,
}

impl Output {
    pub(crate) fn new(cap: Cap) -> Output {
        Output(Arc::new(Shared {
            buffer: Mutex::new(Buffer::new(cap)),
            closed: watch::Sender::new(false),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, Buffer> {
        self.0.buffer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds bytes the process printed, unless nobody can read them any more.
    pub(crate) fn push(&self, bytes: &[u8]) {
        if Arc::strong_count(&self.0) > 1 {
            self.lock().push(bytes);
        }
    }

    pub(crate) fn close(&self) {
        self.0.closed.send_replace(true);
    }

    /// Takes what was printed since the last take (all of it, but what
    /// `hold` keeps back) and empties the buffer of it.
    pub fn take(&self, hold: Hold) -> Taken {
        self.lock().take(hold)
    }

    /// Up to `max` of the last bytes kept, without taking them (e.g. for a
    /// progress line while the process runs).
    pub fn recent(&self, max: usize) -> Vec<u8> {
        self.lock().recent(max)
    }

    /// Bytes printed in all, kept or not.
    pub fn total(&self) -> u64 {
        self.lock().total
    }

    /// Bytes dropped to stay under the cap since the last take.
    pub fn omitted(&self) -> u64 {
        self.lock().dropped
    }

    /// The cap this output is kept within.
    pub fn cap(&self) -> Cap {
        self.lock().cap
    }

    /// Whether the pipe reached end-of-file (every process holding it closed
    /// it or ended), or reading stopped: nothing more will arrive.
    pub fn is_closed(&self) -> bool {
        *self.0.closed.borrow()
    }

    /// Waits until [`is_closed`](Self::is_closed).
    pub async fn closed(&self) {
        let mut rx = self.0.closed.subscribe();
        // The sender lives as long as `self`: this cannot fail.
        let _ = rx.wait_for(|closed| *closed).await;
    }
}

/// The head and the tail of the output within a [`Cap`], with a count of
/// the bytes dropped between them.
#[derive(Debug)]
struct Buffer {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    cap: Cap,
    dropped: u64,
    total: u64,
}

impl Buffer {
    fn new(cap: Cap) -> Self {
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            cap,
            dropped: 0,
            total: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        self.store(bytes);
    }

    fn store(&mut self, mut bytes: &[u8]) {
        if self.head.len() < self.cap.head {
            let room = (self.cap.head - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..room]);
            bytes = &bytes[room..];
        }
        if bytes.is_empty() {
            return;
        }
        let keep = self.cap.tail;
        if bytes.len() >= keep {
            self.dropped += (self.tail.len() + bytes.len() - keep) as u64;
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - keep..]);
            return;
        }
        self.tail.extend(bytes);
        if self.tail.len() > keep {
            let excess = self.tail.len() - keep;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    fn recent(&self, max: usize) -> Vec<u8> {
        let from_tail = self.tail.len().min(max);
        let mut out = Vec::with_capacity(max.min(self.head.len() + self.tail.len()));
        // The head's end only continues into the tail when nothing was dropped.
        if from_tail < max && self.dropped == 0 {
            let from_head = (max - from_tail).min(self.head.len());
            out.extend_from_slice(&self.head[self.head.len() - from_head..]);
        }
        out.extend(self.tail.range(self.tail.len() - from_tail..));
        out
    }

    fn take(&mut self, hold: Hold) -> Taken {
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
        self.store(&held);
        Taken {
            head: String::from_utf8_lossy(&head).into_owned(),
            omitted,
            tail: String::from_utf8_lossy(&tail).into_owned(),
            held: held.len(),
            cap: self.cap.bytes(),
        }
    }
}

/// The length of an incomplete UTF-8 sequence at the end of `bytes` (0 to 3).
fn incomplete_utf8_suffix(bytes: &[u8]) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: Taken) -> String {
        assert_eq!(t.omitted, 0, "{t:?}");
        t.head
    }

    #[test]
    fn the_head_and_the_tail_are_kept_within_the_cap() {
        let mut b = Buffer::new(Cap::head_and_tail(10));
        b.push(b"0123");
        b.push(b"4567");
        b.push(b"89abcdef");
        b.push(b"XYZ");
        assert_eq!((b.dropped, b.total), (9, 19));
        let t = b.take(Hold::Nothing);
        assert_eq!(
            (t.head.as_str(), t.omitted, t.tail.as_str()),
            ("01234", 9, "efXYZ")
        );
        assert_eq!(t.cap, 10);
        // one huge push
        let mut b = Buffer::new(Cap::head_and_tail(4));
        b.push(b"abcdefgh");
        let t = b.take(Hold::Nothing);
        assert_eq!(
            (t.head.as_str(), t.omitted, t.tail.as_str()),
            ("ab", 4, "gh")
        );
        // under the cap nothing is lost
        let mut b = Buffer::new(Cap::head_and_tail(100));
        b.push(b"hello ");
        b.push(b"world");
        assert_eq!(text(b.take(Hold::Nothing)), "hello world");
        assert_eq!(text(b.take(Hold::Nothing)), "");
        assert_eq!(b.total, 11, "the total survives takes");
    }

    #[test]
    fn a_head_cap_keeps_the_start_only() {
        let mut b = Buffer::new(Cap::head(4));
        b.push(b"abc");
        b.push(b"defgh");
        let t = b.take(Hold::Nothing);
        assert_eq!(
            (t.head.as_str(), t.omitted, t.tail.as_str()),
            ("abcd", 4, "")
        );
    }

    #[test]
    fn recent_bytes_span_head_and_tail_while_nothing_was_dropped() {
        let mut b = Buffer::new(Cap::head_and_tail(10));
        b.push(b"0123456");
        assert_eq!(b.recent(4), b"3456");
        assert_eq!(b.recent(100), b"0123456");
        b.push(b"789abcdef");
        assert_eq!(b.recent(3), b"def");
        assert_eq!(
            b.recent(100),
            b"bcdef",
            "the head does not continue into the tail"
        );
    }

    #[test]
    fn a_character_split_across_reads_is_held_back() {
        let bytes = "a✓".as_bytes(); // ✓ is 3 bytes
        let mut b = Buffer::new(Cap::head_and_tail(100));
        b.push(&bytes[..2]);
        assert_eq!(text(b.take(Hold::PartialChar)), "a");
        b.push(&bytes[2..]);
        assert_eq!(text(b.take(Hold::PartialChar)), "✓");
        assert_eq!(incomplete_utf8_suffix("🦀".as_bytes()), 0);
        assert_eq!(incomplete_utf8_suffix(&"🦀".as_bytes()[..3]), 3);
        assert_eq!(incomplete_utf8_suffix(b"abc"), 0);
        assert_eq!(incomplete_utf8_suffix(&[0xff]), 0);
    }

    #[test]
    fn an_unfinished_line_is_held_back_when_asked() {
        let mut b = Buffer::new(Cap::head_and_tail(100));
        b.push(b"one\ntw");
        let taken = b.take(Hold::PartialLine);
        assert_eq!((taken.head.as_str(), taken.held), ("one\n", 2));
        b.push(b"o\nthr");
        assert_eq!(b.take(Hold::PartialLine).head, "two\n");
        // no newline at all: the whole line waits
        assert_eq!(b.take(Hold::PartialLine).head, "");
        assert_eq!(b.take(Hold::Nothing).head, "thr");
        // over the cap the held line goes back under it
        let mut b = Buffer::new(Cap::head_and_tail(10));
        b.push(b"0123456789abc\nxyz");
        let taken = b.take(Hold::PartialLine);
        assert_eq!((taken.omitted, taken.tail.as_str()), (7, "c\n"));
        assert_eq!(text(b.take(Hold::Nothing)), "xyz");
    }

    #[test]
    fn nothing_is_kept_once_only_the_reader_holds_the_output() {
        let reader = Output::new(Cap::DEFAULT);
        let caller = reader.clone();
        reader.push(b"kept");
        drop(caller);
        reader.push(b"dropped");
        assert_eq!(reader.total(), 4);
    }
}
