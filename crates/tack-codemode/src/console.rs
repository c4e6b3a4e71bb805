//! What the program printed: `console.log` and friends, in order, kept up to
//! [`Limits::max_output_bytes`](crate::Limits::max_output_bytes).

use std::fmt;

use serde::Serialize;

use crate::limits::Bytes;

/// Which `console` method printed a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    Log,
    Info,
    Debug,
    Warn,
    Error,
}

impl Level {
    fn tag(self) -> Option<&'static str> {
        match self {
            Level::Log | Level::Info | Level::Debug => None,
            Level::Warn => Some("[warn] "),
            Level::Error => Some("[error] "),
        }
    }
}

/// One call of a `console` method: its arguments formatted and joined with
/// spaces (strings as they are, other values as compact JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    pub level: Level,
    pub text: String,
}

/// The program's console output, capped.
///
/// Lines are kept in the order they were printed until their text (each
/// line's bytes plus one for its newline) reaches the cap; the line that
/// crosses it is cut at the cap (on a character boundary) and everything
/// after is only counted in [`dropped_bytes`](Self::dropped_bytes).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Console {
    lines: Vec<Line>,
    cap: usize,
    kept_bytes: usize,
    dropped_bytes: usize,
    dropped_lines: usize,
}

impl Console {
    /// An empty console keeping up to `cap` bytes.
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            ..Self::default()
        }
    }

    /// The lines kept, in order (the last one maybe cut).
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// Bytes printed past the cap and dropped (0 when nothing was).
    pub fn dropped_bytes(&self) -> usize {
        self.dropped_bytes
    }

    /// Whether anything was dropped.
    pub fn is_truncated(&self) -> bool {
        self.dropped_bytes > 0
    }

    /// Whether nothing was printed.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped_bytes == 0
    }

    /// Records one line.
    pub(crate) fn push(&mut self, level: Level, text: String) {
        let cost = text.len() + 1;
        if self.is_truncated() {
            self.dropped_bytes += cost;
            self.dropped_lines += 1;
            return;
        }
        let room = self.cap.saturating_sub(self.kept_bytes);
        if cost <= room {
            self.kept_bytes += cost;
            self.lines.push(Line { level, text });
            return;
        }
        // The newline is the last byte to go: a line that only lacks room for
        // it is kept whole and counted as one byte dropped.
        let keep = floor_char_boundary(&text, room);
        self.dropped_bytes += cost - keep;
        self.dropped_lines += 1;
        self.kept_bytes += keep;
        if keep > 0 {
            let mut text = text;
            text.truncate(keep);
            self.lines.push(Line { level, text });
        }
    }

    /// The output as text: one line per call, `[warn] ` and `[error] `
    /// before those levels' lines, and when the cap was hit a last line that
    /// says so: `[console output cut at 1 MiB: 5120 more bytes (12 lines)
    /// dropped]`.
    pub fn render(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Console {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            if let Some(tag) = line.level.tag() {
                f.write_str(tag)?;
            }
            f.write_str(&line.text)?;
        }
        if self.is_truncated() {
            if !self.lines.is_empty() {
                f.write_str("\n")?;
            }
            let lines = match self.dropped_lines {
                1 => "1 line".to_owned(),
                n => format!("{n} lines"),
            };
            write!(
                f,
                "[console output cut at {}: {} more bytes ({lines}) dropped]",
                Bytes(self.cap),
                self.dropped_bytes
            )?;
        }
        Ok(())
    }
}

/// The largest index `<= at` that is a char boundary of `s`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_kept_in_order_with_levels_tagged() {
        let mut c = Console::new(100);
        c.push(Level::Log, "one".into());
        c.push(Level::Error, "two".into());
        c.push(Level::Warn, "three".into());
        assert_eq!(c.render(), "one\n[error] two\n[warn] three");
        assert!(!c.is_truncated());
    }

    #[test]
    fn output_past_the_cap_is_counted_and_named() {
        let mut c = Console::new(10);
        c.push(Level::Log, "12345".into()); // 6 bytes with its newline
        c.push(Level::Log, "abcdefgh".into()); // 4 kept, 5 dropped
        c.push(Level::Log, "xyz".into()); // 4 dropped
        assert_eq!(c.lines().len(), 2);
        assert_eq!(c.lines()[1].text, "abcd");
        assert_eq!(c.dropped_bytes(), 9);
        assert_eq!(
            c.render(),
            "12345\nabcd\n[console output cut at 10 bytes: 9 more bytes (2 lines) dropped]"
        );
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let mut c = Console::new(2);
        c.push(Level::Log, "é€".into()); // é is 2 bytes, € is 3
        assert_eq!(c.lines()[0].text, "é");
        assert_eq!(c.dropped_bytes(), 4);
    }
}
