//! The input area's editing model, independent of the terminal.
//!
//! [`Input`] is a multi-line buffer with a cursor. Every edit is a method
//! that says whether anything changed, [`Input::handle_key`] maps a crossterm
//! key to those methods, and [`Input::layout`] / [`Input::visible`] turn the
//! buffer into the rows to draw and the cursor's place among them. Nothing
//! here touches the terminal, so all of it is tested without one.
//!
//! The cursor moves by clusters: a character together with the combining
//! marks, variation selectors, skin tones and zero-width-joined characters
//! that follow it, an approximation of grapheme clusters good enough that
//! "é", "👍🏽" or "👨‍👩‍👧" are one step and one backspace. Widths are
//! measured per cluster with `unicode-width`, as ratatui measures them.
//!
//! ```
//! use tack_tui::input::{Edit, Input};
//! use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
//!
//! let mut input = Input::default();
//! input.insert_str("fix the tests\\");
//! let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
//! assert_eq!(input.handle_key(enter), Edit::Changed); // backslash-Enter: a newline
//! input.insert_str("then run clippy");
//! assert_eq!(input.handle_key(enter), Edit::Submit);
//! assert_eq!(input.take(), "fix the tests\nthen run clippy");
//! ```

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns a tab takes in the input area (drawn as that many spaces).
pub const TAB_WIDTH: usize = 4;

/// What a key did to the input, so the caller knows what to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// The text or the cursor moved: redraw.
    Changed,
    /// The key is the input's, but there was nothing to do (Backspace at the
    /// start, Left at the start, a key release).
    Unchanged,
    /// Enter: the caller takes the text with [`Input::take`].
    Submit,
    /// Up on the first line: recall the previous history entry.
    HistoryPrev,
    /// Down on the last line: recall the next history entry.
    HistoryNext,
    /// Not an editing key (Esc, Tab, Ctrl-C, Ctrl-R, Ctrl-D, ...): the
    /// caller's to handle.
    NotMine,
}

/// A multi-line text buffer with a cursor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    text: String,
    /// Byte index into `text`, always on a cluster boundary.
    cursor: usize,
    /// The column Up and Down aim for, kept across consecutive vertical
    /// moves so passing a short line does not lose it.
    goal: Option<usize>,
}

impl Input {
    /// An empty input.
    pub fn new() -> Self {
        Self::default()
    }

    /// The whole text, lines separated by `\n`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as a byte index into [`Input::text`].
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether there is no text at all.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text (a recalled history entry, say), cursor at the end.
    pub fn set_text(&mut self, text: &str) {
        self.text = sanitize(text);
        self.cursor = self.text.len();
        self.goal = None;
    }

    /// Empties the input.
    pub fn clear(&mut self) {
        self.set_text("");
    }

    /// Returns the text and empties the input.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        self.goal = None;
        std::mem::take(&mut self.text)
    }

    /// Inserts a typed character. `\r` and `\n` insert a newline; other
    /// control characters except tab are ignored (returns false).
    pub fn insert_char(&mut self, c: char) -> bool {
        match c {
            '\n' | '\r' => self.insert('\n'.encode_utf8(&mut [0; 4])),
            c if c.is_control() && c != '\t' => false,
            c => self.insert(c.encode_utf8(&mut [0; 4])),
        }
    }

    /// Inserts pasted text: newlines are kept (`\r\n` and `\r` become
    /// `\n`), other control characters except tab are dropped.
    pub fn insert_str(&mut self, text: &str) -> bool {
        let clean = sanitize(text);
        self.insert(&clean)
    }

    /// Inserts a line break at the cursor.
    pub fn newline(&mut self) -> bool {
        self.insert("\n")
    }

    /// Deletes the cluster before the cursor.
    pub fn backspace(&mut self) -> bool {
        self.goal = None;
        if self.cursor == 0 {
            return false;
        }
        let start = self.prev_boundary(self.cursor);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
        true
    }

    /// Deletes the cluster after the cursor.
    pub fn delete(&mut self) -> bool {
        self.goal = None;
        if self.cursor == self.text.len() {
            return false;
        }
        let end = self.next_boundary(self.cursor);
        self.text.replace_range(self.cursor..end, "");
        true
    }

    /// Moves one cluster left (across line breaks).
    pub fn left(&mut self) -> bool {
        self.goal = None;
        if self.cursor == 0 {
            return false;
        }
        self.cursor = self.prev_boundary(self.cursor);
        true
    }

    /// Moves one cluster right (across line breaks).
    pub fn right(&mut self) -> bool {
        self.goal = None;
        if self.cursor == self.text.len() {
            return false;
        }
        self.cursor = self.next_boundary(self.cursor);
        true
    }

    /// Moves to the previous logical line, keeping the column. False on the
    /// first line, so the caller can go to history instead.
    pub fn up(&mut self) -> bool {
        let start = self.line_start(self.cursor);
        if start == 0 {
            return false;
        }
        let goal = self.goal_column(start);
        let prev_start = self.line_start(start - 1);
        self.cursor = self.column_to_index(prev_start, goal);
        self.goal = Some(goal);
        true
    }

    /// Moves to the next logical line, keeping the column. False on the
    /// last line, so the caller can go to history instead.
    pub fn down(&mut self) -> bool {
        let end = self.line_end(self.cursor);
        if end == self.text.len() {
            return false;
        }
        let goal = self.goal_column(self.line_start(self.cursor));
        self.cursor = self.column_to_index(end + 1, goal);
        self.goal = Some(goal);
        true
    }

    /// Moves to the start of the line.
    pub fn home(&mut self) -> bool {
        self.goal = None;
        let start = self.line_start(self.cursor);
        self.move_to(start)
    }

    /// Moves to the end of the line.
    pub fn end(&mut self) -> bool {
        self.goal = None;
        let end = self.line_end(self.cursor);
        self.move_to(end)
    }

    /// Moves to the start of the word before the cursor (Alt-b, Ctrl-Left).
    /// Words are runs of letters, digits and `_`, as in readline.
    pub fn word_left(&mut self) -> bool {
        self.goal = None;
        let start = self.skip_back(self.cursor, |c| !is_word(c));
        let start = self.skip_back(start, is_word);
        self.move_to(start)
    }

    /// Moves past the end of the word after the cursor (Alt-f, Ctrl-Right).
    pub fn word_right(&mut self) -> bool {
        self.goal = None;
        let end = self.skip_forward(self.cursor, |c| !is_word(c));
        let end = self.skip_forward(end, is_word);
        self.move_to(end)
    }

    /// Deletes the whitespace-delimited word before the cursor (Ctrl-W, as
    /// readline's unix-word-rubout).
    pub fn delete_word_before(&mut self) -> bool {
        self.goal = None;
        let start = self.skip_back(self.cursor, char::is_whitespace);
        let start = self.skip_back(start, |c| !c.is_whitespace());
        self.remove(start, self.cursor)
    }

    /// Deletes to the end of the line (Ctrl-K); at the end of a line, joins
    /// the next one.
    pub fn kill_to_end(&mut self) -> bool {
        self.goal = None;
        let mut end = self.line_end(self.cursor);
        if end == self.cursor && end < self.text.len() {
            end += 1;
        }
        self.remove(self.cursor, end)
    }

    /// Deletes to the start of the line (Ctrl-U); at the start of a line,
    /// joins it to the previous one.
    pub fn kill_to_start(&mut self) -> bool {
        self.goal = None;
        let mut start = self.line_start(self.cursor);
        if start == self.cursor && start > 0 {
            start -= 1;
        }
        self.remove(start, self.cursor)
    }

    /// Applies an editing key. Enter submits, unless the character before
    /// the cursor is a backslash, which becomes a newline; Shift-, Alt- or
    /// Ctrl-Enter and Ctrl-J insert a newline. Up on the first line and
    /// Down on the last ask for history. Keys that are not for editing are
    /// [`Edit::NotMine`].
    pub fn handle_key(&mut self, key: KeyEvent) -> Edit {
        if key.kind == KeyEventKind::Release {
            return Edit::Unchanged;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let changed = match key.code {
            KeyCode::Enter if ctrl || alt || key.modifiers.contains(KeyModifiers::SHIFT) => {
                self.newline()
            }
            KeyCode::Enter => return self.enter(),
            // AltGr arrives as Ctrl+Alt on Windows: those are typed characters.
            KeyCode::Char(c) if ctrl && !alt => match c {
                'j' => self.newline(),
                'a' => self.home(),
                'e' => self.end(),
                'b' => self.left(),
                'f' => self.right(),
                'h' => self.backspace(),
                'w' => self.delete_word_before(),
                'k' => self.kill_to_end(),
                'u' => self.kill_to_start(),
                _ => return Edit::NotMine,
            },
            KeyCode::Char(c) if alt && !ctrl => match c {
                'b' => self.word_left(),
                'f' => self.word_right(),
                _ => return Edit::NotMine,
            },
            KeyCode::Char(c) => self.insert_char(c),
            KeyCode::Backspace if ctrl || alt => self.delete_word_before(),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            KeyCode::Left if ctrl || alt => self.word_left(),
            KeyCode::Left => self.left(),
            KeyCode::Right if ctrl || alt => self.word_right(),
            KeyCode::Right => self.right(),
            KeyCode::Up if !self.up() => return Edit::HistoryPrev,
            KeyCode::Down if !self.down() => return Edit::HistoryNext,
            KeyCode::Up | KeyCode::Down => true,
            KeyCode::Home => self.home(),
            KeyCode::End => self.end(),
            _ => return Edit::NotMine,
        };
        if changed {
            Edit::Changed
        } else {
            Edit::Unchanged
        }
    }

    /// The visual rows of the input soft-wrapped at `width` columns, the
    /// first prefixed by `prompt` and the others by as many spaces, and the
    /// cursor's (row, column) among them. A line that fills its last row
    /// exactly gets an empty row after it for the cursor to stand in. Runs
    /// in one pass over the text: it is called on every keystroke.
    pub fn layout(&self, width: u16, prompt: &str) -> (Vec<String>, (u16, u16)) {
        let prompt_width = display_width(prompt);
        let avail = usize::from(width).saturating_sub(prompt_width).max(1);
        let indent = " ".repeat(prompt_width);
        let mut rows = Vec::new();
        let mut row = prompt.to_owned();
        let mut row_width = 0;
        let mut cursor = (0, prompt_width);
        let mut offset = 0;
        for line in self.text.split('\n') {
            for cluster in clusters(line) {
                let tab = cluster == "\t";
                // A tab shrinks to fit a very narrow row; nothing else can.
                let w = if tab {
                    TAB_WIDTH.min(avail)
                } else {
                    cluster_width(cluster)
                };
                if row_width > 0 && row_width + w > avail {
                    rows.push(std::mem::replace(&mut row, indent.clone()));
                    row_width = 0;
                }
                if offset == self.cursor {
                    cursor = (rows.len(), prompt_width + row_width);
                }
                if tab {
                    row.extend(std::iter::repeat_n(' ', w));
                } else {
                    row.push_str(cluster);
                }
                row_width += w;
                offset += cluster.len();
            }
            if row_width >= avail {
                rows.push(std::mem::replace(&mut row, indent.clone()));
                row_width = 0;
            }
            if offset == self.cursor {
                cursor = (rows.len(), prompt_width + row_width);
            }
            rows.push(std::mem::replace(&mut row, indent.clone()));
            row_width = 0;
            offset += 1;
        }
        (rows, (to_u16(cursor.0), to_u16(cursor.1)))
    }

    /// At most `max_rows` rows of [`Input::layout`], scrolled so the cursor
    /// is visible (centred when the text is longer than the window, pinned
    /// to the top or bottom near either end), with the cursor's position
    /// inside the window.
    pub fn visible(&self, width: u16, prompt: &str, max_rows: u16) -> (Vec<String>, (u16, u16)) {
        let (rows, (row, col)) = self.layout(width, prompt);
        let max_rows = usize::from(max_rows.max(1));
        if rows.len() <= max_rows {
            return (rows, (row, col));
        }
        let row = usize::from(row);
        let top = row.saturating_sub(max_rows / 2).min(rows.len() - max_rows);
        let window = rows.into_iter().skip(top).take(max_rows).collect();
        (window, (to_u16(row - top), col))
    }

    /// Puts the cursor at `at`; whether it moved.
    fn move_to(&mut self, at: usize) -> bool {
        let moved = self.cursor != at;
        self.cursor = at;
        moved
    }

    fn insert(&mut self, text: &str) -> bool {
        self.goal = None;
        if text.is_empty() {
            return false;
        }
        self.text.insert_str(self.cursor, text);
        self.cursor += text.len();
        true
    }

    fn enter(&mut self) -> Edit {
        if self.text[..self.cursor].ends_with('\\') {
            self.text.replace_range(self.cursor - 1..self.cursor, "\n");
            self.goal = None;
            Edit::Changed
        } else {
            Edit::Submit
        }
    }

    fn remove(&mut self, start: usize, end: usize) -> bool {
        if start == end {
            return false;
        }
        self.text.replace_range(start..end, "");
        self.cursor = start;
        true
    }

    fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i)
    }

    /// The column Up/Down aim for: the one remembered from the previous
    /// vertical move, or the cursor's.
    fn goal_column(&self, line_start: usize) -> usize {
        self.goal
            .unwrap_or_else(|| display_width(&self.text[line_start..self.cursor]))
    }

    /// The index in the line starting at `start` that is closest to column
    /// `goal` without passing it.
    fn column_to_index(&self, start: usize, goal: usize) -> usize {
        let end = self.line_end(start);
        let mut at = start;
        let mut column = 0;
        for cluster in clusters(&self.text[start..end]) {
            column += cluster_width(cluster);
            if column > goal {
                break;
            }
            at += cluster.len();
        }
        at
    }

    /// The cluster boundary before `at`.
    fn prev_boundary(&self, at: usize) -> usize {
        let start = self.line_start(at);
        if start == at {
            return at - 1; // the line break itself
        }
        let mut boundary = start;
        for cluster in clusters(&self.text[start..at]) {
            if boundary + cluster.len() >= at {
                break;
            }
            boundary += cluster.len();
        }
        boundary
    }

    /// The cluster boundary after `at`.
    fn next_boundary(&self, at: usize) -> usize {
        clusters(&self.text[at..])
            .next()
            .map_or(at, |cluster| at + cluster.len())
    }

    /// Moves back from `at` over clusters whose first character matches.
    fn skip_back(&self, mut at: usize, matches: impl Fn(char) -> bool) -> usize {
        while at > 0 {
            let prev = self.prev_boundary(at);
            if !self.text[prev..].starts_with(&matches) {
                break;
            }
            at = prev;
        }
        at
    }

    /// Moves forward from `at` over clusters whose first character matches.
    fn skip_forward(&self, mut at: usize, matches: impl Fn(char) -> bool) -> usize {
        while at < self.text.len() && self.text[at..].starts_with(&matches) {
            at = self.next_boundary(at);
        }
        at
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `\r\n` and `\r` become `\n`; control characters other than `\n` and tab
/// are dropped.
fn sanitize(text: &str) -> String {
    let mut clean = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                clean.push('\n');
            }
            '\n' | '\t' => clean.push(c),
            c if c.is_control() => {}
            c => clean.push(c),
        }
    }
    clean
}

fn to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// Display width of `text` in terminal columns, cluster by cluster (a tab
/// counts [`TAB_WIDTH`]).
pub fn display_width(text: &str) -> usize {
    clusters(text).map(cluster_width).sum()
}

/// Display width of one cluster from [`clusters`].
pub fn cluster_width(cluster: &str) -> usize {
    if cluster == "\t" {
        TAB_WIDTH
    } else {
        cluster.width()
    }
}

/// Splits `text` into clusters: a character with the combining marks,
/// variation selectors, emoji modifiers and zero-width-joined characters
/// that follow it, and pairs of regional indicators (flags). Control
/// characters such as `\n` and tab are clusters of their own.
pub fn clusters(text: &str) -> Clusters<'_> {
    Clusters { rest: text }
}

/// Iterator returned by [`clusters`].
#[derive(Debug, Clone)]
pub struct Clusters<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Clusters<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let mut chars = self.rest.char_indices();
        let (_, first) = chars.next()?;
        let mut end = first.len_utf8();
        if !first.is_control() {
            let mut prev = first;
            let mut regional_indicators = usize::from(is_regional_indicator(first));
            for (i, c) in chars {
                let joins = prev == '\u{200d}'
                    || (c.width() == Some(0) && !c.is_control())
                    || is_emoji_modifier(c)
                    || (is_regional_indicator(c) && regional_indicators == 1);
                if !joins {
                    break;
                }
                regional_indicators += usize::from(is_regional_indicator(c));
                end = i + c.len_utf8();
                prev = c;
            }
        }
        let (cluster, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(cluster)
    }
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}

fn is_emoji_modifier(c: char) -> bool {
    ('\u{1f3fb}'..='\u{1f3ff}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input holding `text` with the cursor where `|` is.
    fn input(text_with_cursor: &str) -> Input {
        let cursor = text_with_cursor
            .find('|')
            .expect("the text marks the cursor with |");
        let text = text_with_cursor.replacen('|', "", 1);
        Input {
            text,
            cursor,
            goal: None,
        }
    }

    /// The text with `|` where the cursor is.
    fn shown(input: &Input) -> String {
        let mut text = input.text.clone();
        text.insert(input.cursor, '|');
        text
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn alt(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
    }

    #[test]
    fn clusters_keep_marks_modifiers_joiners_and_flags_together() {
        let text = "e\u{301}👍🏽👨\u{200d}👩\u{200d}👧🇫🇷❤\u{fe0f}中\n\u{301}a";
        let split: Vec<&str> = clusters(text).collect();
        assert_eq!(
            split,
            [
                "e\u{301}",
                "👍🏽",
                "👨\u{200d}👩\u{200d}👧",
                "🇫🇷",
                "❤\u{fe0f}",
                "中",
                "\n",
                "\u{301}",
                "a"
            ]
        );
        let widths: Vec<usize> = split.iter().map(|c| cluster_width(c)).collect();
        assert_eq!(widths, [1, 2, 2, 2, 2, 2, 1, 0, 1]);
        assert_eq!(display_width("a\tb"), 2 + TAB_WIDTH);
    }

    #[test]
    fn insert_char_types_at_the_cursor_and_ignores_control_characters() {
        let mut input = input("ac|");
        assert!(input.left());
        assert!(input.insert_char('b'));
        assert_eq!(shown(&input), "ab|c");
        assert!(!input.insert_char('\u{1b}'));
        assert!(input.insert_char('\t'));
        assert!(input.insert_char('\r'));
        assert_eq!(shown(&input), "ab\t\n|c");
    }

    #[test]
    fn insert_str_normalises_line_endings_and_strips_control_characters() {
        let mut input = input("<|>");
        assert!(input.insert_str("one\r\ntwo\rthree\n\tfour\u{1b}[31m\u{7}"));
        assert_eq!(shown(&input), "<one\ntwo\nthree\n\tfour[31m|>");
        assert!(!input.insert_str("\u{1b}\u{0}"));
    }

    #[test]
    fn newline_splits_the_line() {
        let mut input = input("ab|cd");
        assert!(input.newline());
        assert_eq!(shown(&input), "ab\n|cd");
    }

    #[test]
    fn backspace_and_delete_remove_whole_clusters() {
        let mut input = input("ae\u{301}|👍🏽b");
        assert!(input.backspace());
        assert_eq!(shown(&input), "a|👍🏽b");
        assert!(input.delete());
        assert_eq!(shown(&input), "a|b");
        let mut at_start = self::input("|x");
        assert!(!at_start.backspace());
        let mut at_end = self::input("x|");
        assert!(!at_end.delete());
    }

    #[test]
    fn backspace_at_a_line_start_joins_the_lines() {
        let mut input = input("ab\n|cd");
        assert!(input.backspace());
        assert_eq!(shown(&input), "ab|cd");
    }

    #[test]
    fn left_and_right_step_over_clusters_and_line_breaks() {
        let mut input = input("|é中👨\u{200d}👩\u{200d}👧\nx");
        let mut stops = vec![shown(&input)];
        while input.right() {
            stops.push(shown(&input));
        }
        assert_eq!(
            stops,
            [
                "|é中👨\u{200d}👩\u{200d}👧\nx",
                "é|中👨\u{200d}👩\u{200d}👧\nx",
                "é中|👨\u{200d}👩\u{200d}👧\nx",
                "é中👨\u{200d}👩\u{200d}👧|\nx",
                "é中👨\u{200d}👩\u{200d}👧\n|x",
                "é中👨\u{200d}👩\u{200d}👧\nx|",
            ]
        );
        let mut back = vec![shown(&input)];
        while input.left() {
            back.push(shown(&input));
        }
        back.reverse();
        assert_eq!(back, stops);
    }

    #[test]
    fn up_and_down_keep_the_display_column() {
        // The cursor sits after "中" (column 2) on the middle line.
        let mut input = input("abcd\n中|x\nwxyz");
        assert!(input.up());
        assert_eq!(shown(&input), "ab|cd\n中x\nwxyz");
        assert!(input.down());
        assert!(input.down());
        assert_eq!(shown(&input), "abcd\n中x\nwx|yz");
    }

    #[test]
    fn up_and_down_do_not_split_a_wide_character() {
        let mut input = input("a|bc\n中文");
        assert!(input.down());
        // Column 1 falls inside "中": stay before it.
        assert_eq!(shown(&input), "abc\n|中文");
    }

    #[test]
    fn up_and_down_remember_the_column_across_a_short_line() {
        let mut input = input("long line\nab\nlong li|ne");
        assert!(input.up());
        assert_eq!(shown(&input), "long line\nab|\nlong line");
        assert!(input.up());
        assert_eq!(shown(&input), "long li|ne\nab\nlong line");
        assert!(input.down());
        assert!(input.down());
        assert_eq!(shown(&input), "long line\nab\nlong li|ne");
        // Any other movement forgets the goal.
        assert!(input.up());
        assert!(input.left());
        assert!(input.down());
        assert_eq!(shown(&input), "long line\nab\nl|ong line");
    }

    #[test]
    fn up_on_the_first_line_and_down_on_the_last_report_false() {
        let mut input = input("one|\ntwo");
        assert!(!input.up());
        assert!(input.down());
        assert!(!input.down());
        assert_eq!(shown(&input), "one\ntwo|");
    }

    #[test]
    fn home_and_end_move_within_the_line() {
        let mut input = input("one\ntw|o\nthree");
        assert!(input.home());
        assert_eq!(shown(&input), "one\n|two\nthree");
        assert!(!input.home());
        assert!(input.end());
        assert_eq!(shown(&input), "one\ntwo|\nthree");
        assert!(!input.end());
    }

    #[test]
    fn word_left_and_right_move_by_alphanumeric_words() {
        let mut input = input("|let x_1 = foo.bar(é);");
        let mut stops = Vec::new();
        while input.word_right() {
            stops.push(input.cursor);
        }
        // The last move goes past the trailing punctuation to the end.
        assert_eq!(stops, [3, 7, 13, 17, 20, 22]);
        let mut back = Vec::new();
        while input.word_left() {
            back.push(input.cursor);
        }
        assert_eq!(back, [18, 14, 10, 4, 0]);
    }

    #[test]
    fn word_moves_cross_line_breaks() {
        let mut input = input("one\n|two");
        assert!(input.word_left());
        assert_eq!(shown(&input), "|one\ntwo");
        assert!(input.word_right());
        assert!(input.word_right());
        assert_eq!(shown(&input), "one\ntwo|");
    }

    #[test]
    fn delete_word_before_removes_a_whitespace_delimited_word() {
        let mut input = input("git commit -m 'wip'  |");
        assert!(input.delete_word_before());
        assert_eq!(shown(&input), "git commit -m |");
        assert!(input.delete_word_before());
        assert!(input.delete_word_before());
        assert_eq!(shown(&input), "git |");
        let mut at_start = self::input("|x");
        assert!(!at_start.delete_word_before());
    }

    #[test]
    fn kill_to_end_deletes_the_rest_of_the_line_then_the_break() {
        let mut input = input("ab|cd\nef");
        assert!(input.kill_to_end());
        assert_eq!(shown(&input), "ab|\nef");
        assert!(input.kill_to_end());
        assert_eq!(shown(&input), "ab|ef");
        assert!(input.kill_to_end());
        assert!(!input.kill_to_end());
        assert_eq!(shown(&input), "ab|");
    }

    #[test]
    fn kill_to_start_deletes_the_start_of_the_line_then_the_break() {
        let mut input = input("ab\ncd|ef");
        assert!(input.kill_to_start());
        assert_eq!(shown(&input), "ab\n|ef");
        assert!(input.kill_to_start());
        assert_eq!(shown(&input), "ab|ef");
        assert!(input.kill_to_start());
        assert!(!input.kill_to_start());
        assert_eq!(shown(&input), "|ef");
    }

    #[test]
    fn clear_take_and_set_text() {
        let mut input = input("a|b");
        input.set_text("one\r\ntwo");
        assert_eq!(shown(&input), "one\ntwo|");
        assert_eq!(input.take(), "one\ntwo");
        assert!(input.is_empty());
        assert_eq!(input.cursor(), 0);
        input.set_text("x");
        input.clear();
        assert_eq!(shown(&input), "|");
    }

    #[test]
    fn enter_submits() {
        let mut input = input("done|");
        assert_eq!(input.handle_key(key(KeyCode::Enter)), Edit::Submit);
        assert_eq!(input.text(), "done");
    }

    #[test]
    fn enter_after_a_backslash_replaces_it_with_a_newline() {
        let mut input = input("one\\|two");
        assert_eq!(input.handle_key(key(KeyCode::Enter)), Edit::Changed);
        assert_eq!(shown(&input), "one\n|two");
    }

    #[test]
    fn modified_enter_and_ctrl_j_insert_a_newline() {
        for event in [
            KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT),
            KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT),
            KeyEvent::new(KeyCode::Enter, KeyModifiers::CONTROL),
            ctrl('j'),
        ] {
            let mut input = input("a|b");
            assert_eq!(input.handle_key(event), Edit::Changed, "{event:?}");
            assert_eq!(shown(&input), "a\n|b", "{event:?}");
        }
    }

    #[test]
    fn up_and_down_at_the_edges_ask_for_history() {
        let mut input = input("one\ntw|o");
        assert_eq!(input.handle_key(key(KeyCode::Down)), Edit::HistoryNext);
        assert_eq!(input.handle_key(key(KeyCode::Up)), Edit::Changed);
        assert_eq!(input.handle_key(key(KeyCode::Up)), Edit::HistoryPrev);
        assert_eq!(shown(&input), "on|e\ntwo");
    }

    #[test]
    fn editing_keys_map_to_operations() {
        let cases: [(&str, KeyEvent, &str); 22] = [
            ("a|", key(KeyCode::Char('b')), "ab|"),
            (
                "a|",
                KeyEvent::new(KeyCode::Char('B'), KeyModifiers::SHIFT),
                "aB|",
            ),
            (
                "a|",
                KeyEvent::new(
                    KeyCode::Char('@'),
                    KeyModifiers::CONTROL | KeyModifiers::ALT,
                ),
                "a@|",
            ),
            ("ab|", key(KeyCode::Backspace), "a|"),
            ("ab|", ctrl('h'), "a|"),
            ("a|b", key(KeyCode::Delete), "a|"),
            ("ab|", key(KeyCode::Left), "a|b"),
            ("ab|", ctrl('b'), "a|b"),
            ("|ab", key(KeyCode::Right), "a|b"),
            ("|ab", ctrl('f'), "a|b"),
            ("ab|", key(KeyCode::Home), "|ab"),
            ("ab|", ctrl('a'), "|ab"),
            ("|ab", key(KeyCode::End), "ab|"),
            ("|ab", ctrl('e'), "ab|"),
            ("x yz|", alt('b'), "x |yz"),
            (
                "x yz|",
                KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL),
                "x |yz",
            ),
            ("|x yz", alt('f'), "x| yz"),
            (
                "|x yz",
                KeyEvent::new(KeyCode::Right, KeyModifiers::CONTROL),
                "x| yz",
            ),
            ("x yz|", ctrl('w'), "x |"),
            (
                "x yz|",
                KeyEvent::new(KeyCode::Backspace, KeyModifiers::ALT),
                "x |",
            ),
            ("x| yz", ctrl('k'), "x|"),
            ("x |yz", ctrl('u'), "|yz"),
        ];
        for (before, event, after) in cases {
            let mut input = input(before);
            assert_eq!(input.handle_key(event), Edit::Changed, "{before} {event:?}");
            assert_eq!(shown(&input), after, "{before} {event:?}");
        }
    }

    #[test]
    fn keys_with_nothing_to_do_are_unchanged() {
        let mut input = input("|");
        assert_eq!(input.handle_key(key(KeyCode::Backspace)), Edit::Unchanged);
        assert_eq!(input.handle_key(key(KeyCode::Left)), Edit::Unchanged);
        let release = KeyEvent::new_with_kind(
            KeyCode::Char('x'),
            KeyModifiers::NONE,
            KeyEventKind::Release,
        );
        assert_eq!(input.handle_key(release), Edit::Unchanged);
        assert!(input.is_empty());
    }

    #[test]
    fn other_keys_are_not_mine() {
        let mut input = input("text|");
        for event in [
            key(KeyCode::Esc),
            key(KeyCode::Tab),
            key(KeyCode::BackTab),
            key(KeyCode::F(1)),
            key(KeyCode::PageUp),
            ctrl('c'),
            ctrl('d'),
            ctrl('r'),
            ctrl('l'),
            alt('x'),
        ] {
            assert_eq!(input.handle_key(event), Edit::NotMine, "{event:?}");
        }
        assert_eq!(shown(&input), "text|");
    }

    #[test]
    fn layout_prefixes_the_prompt_and_indents_following_rows() {
        let input = input("one\ntwo|");
        let (rows, cursor) = input.layout(20, "› ");
        assert_eq!(rows, ["› one", "  two"]);
        assert_eq!(cursor, (1, 5));
    }

    #[test]
    fn layout_of_an_empty_input_is_the_prompt() {
        let (rows, cursor) = Input::new().layout(20, "› ");
        assert_eq!(rows, ["› "]);
        assert_eq!(cursor, (0, 2));
    }

    #[test]
    fn layout_soft_wraps_at_the_width() {
        let input = input("abcdefgh|ij");
        let (rows, cursor) = input.layout(6, "> ");
        assert_eq!(rows, ["> abcd", "  efgh", "  ij"]);
        // The cursor before "i" starts the third row.
        assert_eq!(cursor, (2, 2));
    }

    #[test]
    fn a_line_that_fills_its_row_gets_a_row_for_the_cursor() {
        let input = input("abcd|");
        let (rows, cursor) = input.layout(6, "> ");
        assert_eq!(rows, ["> abcd", "  "]);
        assert_eq!(cursor, (1, 2));
    }

    #[test]
    fn layout_wraps_wide_characters_whole() {
        let input = input("中文字|x");
        let (rows, cursor) = input.layout(7, "> ");
        // Five columns fit "中文" (4); "字" would need a sixth.
        assert_eq!(rows, ["> 中文", "  字x"]);
        assert_eq!(cursor, (1, 4));
    }

    #[test]
    fn layout_counts_clusters_by_display_width() {
        let input = input("é👍🏽|x");
        let (rows, cursor) = input.layout(20, "› ");
        assert_eq!(rows, ["› é👍🏽x"]);
        assert_eq!(cursor, (0, 5));
    }

    #[test]
    fn layout_draws_tabs_as_spaces() {
        let input = input("a\t|b");
        let (rows, cursor) = input.layout(20, "");
        assert_eq!(rows, ["a    b"]);
        assert_eq!(cursor, (0, 5));
    }

    #[test]
    fn layout_keeps_empty_lines() {
        let input = input("a\n\n|");
        let (rows, cursor) = input.layout(20, "> ");
        assert_eq!(rows, ["> a", "  ", "  "]);
        assert_eq!(cursor, (2, 2));
    }

    #[test]
    fn rows_never_exceed_the_width() {
        let text = "The quick 中文 brown 👍🏽 fox\n\tjumps over é the lazy dog 🇫🇷🇩🇪";
        // From 4 columns: the prompt takes 2 and a wide character 2.
        for width in 4..40u16 {
            let mut input = Input::new();
            input.set_text(text);
            let (rows, (row, col)) = input.layout(width, "› ");
            for r in &rows {
                assert!(display_width(r) <= usize::from(width), "{width}: {r:?}");
            }
            assert!(usize::from(row) < rows.len());
            assert!(col < width, "{width}: cursor column {col}");
        }
    }

    #[test]
    fn every_cursor_position_maps_to_a_distinct_place() {
        let mut input = Input::new();
        input.set_text("ab中\ncdé\n\nxyz👍🏽");
        let mut places = Vec::new();
        while input.left() {}
        loop {
            places.push(input.layout(5, "> ").1);
            if !input.right() {
                break;
            }
        }
        let mut sorted = places.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, places, "places run top to bottom, left to right");
    }

    #[test]
    fn visible_returns_everything_when_it_fits() {
        let input = input("a\nb|");
        assert_eq!(input.visible(20, "> ", 5), input.layout(20, "> "));
    }

    #[test]
    fn visible_scrolls_to_keep_the_cursor_in_view() {
        let lines: Vec<String> = (0..20).map(|i| format!("line {i}")).collect();
        let mut input = Input::new();
        input.set_text(&lines.join("\n"));

        let (rows, cursor) = input.visible(20, "> ", 5);
        assert_eq!(
            rows,
            [
                "  line 15",
                "  line 16",
                "  line 17",
                "  line 18",
                "  line 19"
            ]
        );
        assert_eq!(cursor, (4, 9));

        for _ in 0..10 {
            input.up();
        }
        let (rows, cursor) = input.visible(20, "> ", 5);
        assert_eq!(
            rows,
            ["  line 7", "  line 8", "  line 9", "  line 10", "  line 11"]
        );
        // "line 9" is shorter than the column aimed for: its end.
        assert_eq!(cursor, (2, 8));

        while input.up() {}
        let (rows, cursor) = input.visible(20, "> ", 5);
        assert_eq!(rows[0], "> line 0");
        assert_eq!(rows.len(), 5);
        assert_eq!(cursor.0, 0);
    }

    #[test]
    fn layout_is_linear_in_the_text() {
        fn paste(lines: usize) -> Input {
            let line = "x".repeat(79);
            let mut input = Input::new();
            input.set_text(&vec![line; lines].join("\n"));
            input
        }
        fn fastest(input: &Input) -> std::time::Duration {
            (0..5)
                .map(|_| {
                    let start = std::time::Instant::now();
                    let (rows, _) = input.visible(80, "› ", 10);
                    assert_eq!(rows.len(), 10);
                    start.elapsed()
                })
                .min()
                .unwrap_or_default()
        }
        let small = paste(1_000);
        let large = paste(8_000);
        assert_eq!(small.layout(80, "› ").0.len(), 2_000);
        // Eight times the text: a linear layout takes about eight times as
        // long, a quadratic one sixty-four times. The bound leaves room for
        // a noisy machine; only a change in growth can cross it.
        let (small, large) = (fastest(&small), fastest(&large));
        assert!(
            large < small * 24,
            "8x the text took {:.1}x the time ({small:?} vs {large:?})",
            large.as_secs_f64() / small.as_secs_f64()
        );
    }
}
