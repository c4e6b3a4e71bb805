//! Prompt history of a project, shared by its sessions.
//!
//! History lives in one JSON-lines file per project, an entry a line
//! (`{"text": "...", "time": unix_secs}`), newest last, so multi-line
//! prompts survive and several sessions can append to the same file: each
//! [`History::add`] is a single `write_all` of a complete line to a file
//! opened in append mode, and a reader skips any line it cannot parse. A
//! session keeps what it loaded plus what it added itself; it does not pick
//! up entries other sessions add after it started.
//!
//! The file is compacted to the newest [`KEEP`] entries (written to a
//! temporary file, then renamed over it) once it grows past [`COMPACT_AFTER`]
//! lines. An entry another session appends while that happens can be lost;
//! for a prompt history that is an acceptable price for not locking.
//!
//! ```
//! use tack_tui::history::History;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("history.jsonl");
//! let mut history = History::load(path.clone());
//! history.add("fix the build")?;
//! history.add("run the tests\nthen commit")?;
//!
//! let mut history = History::load(path);
//! assert_eq!(history.prev("draft"), Some("run the tests\nthen commit"));
//! assert_eq!(history.prev("draft"), Some("fix the build"));
//! assert_eq!(history.next(), Some("run the tests\nthen commit"));
//! assert_eq!(history.next(), Some("draft"));
//! assert_eq!(history.search("BUILD", 0), Some((0, "fix the build")));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::collections::HashSet;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Entries kept in memory, and in the file after compaction.
pub const KEEP: usize = 1_000;

/// Lines the file may hold before it is compacted to [`KEEP`] entries.
pub const COMPACT_AFTER: usize = 2_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    text: String,
    /// Seconds since the Unix epoch.
    time: u64,
}

/// The prompts of a project, oldest first, with the state of Up/Down
/// navigation through them.
#[derive(Debug)]
pub struct History {
    path: PathBuf,
    entries: Vec<Entry>,
    /// Lines in the file as far as this session knows: what it loaded plus
    /// what it appended.
    file_lines: usize,
    /// The entry Up/Down navigation is on; `None` when not navigating.
    position: Option<usize>,
    /// What was being typed when navigation started, given back by
    /// [`History::next`] past the newest entry.
    draft: String,
}

impl History {
    /// Reads the history at `path`. A missing or unreadable file is an
    /// empty history, and a line that is not an entry is skipped: history
    /// is a convenience and never stops a session from starting.
    pub fn load(path: PathBuf) -> History {
        let content = fs::read(&path).unwrap_or_default();
        let content = String::from_utf8_lossy(&content);
        let mut entries = parse(&content);
        entries.drain(..entries.len().saturating_sub(KEEP));
        History {
            path,
            entries,
            file_lines: content.lines().count(),
            position: None,
            draft: String::new(),
        }
    }

    /// The file this history reads and appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry at `index` (0 is the oldest), as [`History::search`]
    /// numbers them.
    pub fn get(&self, index: usize) -> Option<&str> {
        self.entries.get(index).map(|entry| entry.text.as_str())
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.entries.iter().map(|entry| entry.text.as_str())
    }

    /// Records a submitted prompt, in memory and at the end of the file
    /// (creating it and its directory). Blank prompts and a repeat of the
    /// newest entry are not recorded. Ends any Up/Down navigation. The entry
    /// stays in memory even when writing the file fails.
    pub fn add(&mut self, text: &str) -> io::Result<()> {
        self.reset_navigation();
        if text.trim().is_empty() || self.entries.last().is_some_and(|last| last.text == text) {
            return Ok(());
        }
        let entry = Entry {
            text: text.to_owned(),
            time: now(),
        };
        let line = to_line(&entry)?;
        self.entries.push(entry);
        self.entries
            .drain(..self.entries.len().saturating_sub(KEEP));

        if let Some(dir) = self.path.parent()
            && !dir.as_os_str().is_empty()
        {
            fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // One write of one complete line, so appends of concurrent
        // sessions never interleave inside a line.
        file.write_all(line.as_bytes())?;
        self.file_lines += 1;
        if self.file_lines > COMPACT_AFTER {
            self.compact()?;
        }
        Ok(())
    }

    /// The entry before the one shown (Up). The first call stashes
    /// `current`, the text being typed, for [`History::next`] to give back;
    /// later calls ignore it. `None` when there is nothing older.
    pub fn prev(&mut self, current: &str) -> Option<&str> {
        let index = match self.position {
            None if self.entries.is_empty() => return None,
            None => {
                self.draft = current.to_owned();
                self.entries.len() - 1
            }
            Some(0) => return None,
            Some(index) => index - 1,
        };
        self.position = Some(index);
        self.get(index)
    }

    /// The entry after the one shown (Down); past the newest, the stashed
    /// draft, and navigation ends. `None` when not navigating.
    #[expect(
        clippy::should_implement_trait,
        reason = "Up/Down navigation pairs prev with next; this is not an iterator"
    )]
    pub fn next(&mut self) -> Option<&str> {
        let index = self.position? + 1;
        if index < self.entries.len() {
            self.position = Some(index);
            return self.get(index);
        }
        self.position = None;
        Some(&self.draft)
    }

    /// Ends Up/Down navigation: the next [`History::prev`] starts from the
    /// newest entry again.
    pub fn reset_navigation(&mut self) {
        self.position = None;
    }

    /// Reverse incremental search (Ctrl-R): the newest entry containing
    /// `query`, ignoring case, after skipping `skip` older distinct matches
    /// (each further Ctrl-R adds one). Returns its index and text; `None`
    /// for an empty query or when no more entries match.
    pub fn search(&self, query: &str, skip: usize) -> Option<(usize, &str)> {
        if query.is_empty() {
            return None;
        }
        let query = query.to_lowercase();
        let mut skipped = HashSet::new();
        for (index, entry) in self.entries.iter().enumerate().rev() {
            let text = entry.text.as_str();
            if skipped.contains(text) || !text.to_lowercase().contains(&query) {
                continue;
            }
            if skipped.len() == skip {
                return Some((index, text));
            }
            skipped.insert(text);
        }
        None
    }

    /// Rewrites the file with its newest [`KEEP`] entries, read back from
    /// the file so entries other sessions appended are kept too.
    fn compact(&mut self) -> io::Result<()> {
        let content = fs::read(&self.path)?;
        let entries = parse(&String::from_utf8_lossy(&content));
        let newest = &entries[entries.len().saturating_sub(KEEP)..];
        let mut out = String::new();
        for entry in newest {
            out.push_str(&to_line(entry)?);
        }
        let mut name = self.path.file_name().unwrap_or_default().to_owned();
        name.push(format!(".{}.tmp", std::process::id()));
        let temporary = self.path.with_file_name(name);
        fs::write(&temporary, out)?;
        if let Err(error) = fs::rename(&temporary, &self.path) {
            let _ = fs::remove_file(&temporary);
            return Err(error);
        }
        self.file_lines = newest.len();
        Ok(())
    }
}

/// The entries among `content`'s lines, skipping lines that are not one.
fn parse(content: &str) -> Vec<Entry> {
    content
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// An entry as one line of the file, newline included.
fn to_line(entry: &Entry) -> io::Result<String> {
    let mut line = serde_json::to_string(entry).map_err(io::Error::other)?;
    line.push('\n');
    Ok(line)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        _dir: tempfile::TempDir,
        path: PathBuf,
    }

    /// A history file path in a fresh directory that does not exist yet.
    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("project").join("history.jsonl");
        Fixture { _dir: dir, path }
    }

    fn with_entries(path: &Path, texts: &[&str]) -> History {
        let mut history = History::load(path.to_owned());
        for text in texts {
            history.add(text).unwrap();
        }
        history
    }

    fn texts(history: &History) -> Vec<&str> {
        history.entries().collect()
    }

    fn file_lines(path: &Path) -> Vec<String> {
        fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_missing_file_is_an_empty_history() {
        let f = fixture();
        let mut history = History::load(f.path.clone());
        assert!(history.is_empty());
        assert_eq!(history.prev("draft"), None);
        assert_eq!(history.next(), None);
        assert!(!f.path.exists());
    }

    #[test]
    fn entries_round_trip_through_the_file() {
        let f = fixture();
        let history = with_entries(&f.path, &["one", "two\nlines \"quoted\"", "three"]);
        assert_eq!(texts(&history), ["one", "two\nlines \"quoted\"", "three"]);

        let lines = file_lines(&f.path);
        assert_eq!(
            lines.len(),
            3,
            "a multi-line prompt is one line of the file"
        );
        let entry: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
        assert_eq!(entry["text"], "two\nlines \"quoted\"");
        assert!(entry["time"].as_u64().unwrap() > 1_600_000_000);

        let loaded = History::load(f.path.clone());
        assert_eq!(texts(&loaded), ["one", "two\nlines \"quoted\"", "three"]);
    }

    #[test]
    fn corrupt_lines_are_skipped() {
        let f = fixture();
        fs::create_dir_all(f.path.parent().unwrap()).unwrap();
        let mut content = b"{\"text\":\"good\",\"time\":1}\nnot json\n{\"text\":\"half".to_vec();
        content.extend(b"\n\xff\xfe\n{\"text\":\"also good\",\"time\":2}\n");
        fs::write(&f.path, content).unwrap();
        let history = History::load(f.path.clone());
        assert_eq!(texts(&history), ["good", "also good"]);
    }

    #[test]
    fn a_repeat_of_the_newest_entry_and_blank_prompts_are_not_recorded() {
        let f = fixture();
        let history = with_entries(&f.path, &["a", "a", "", "  \n ", "b", "a", "a"]);
        assert_eq!(texts(&history), ["a", "b", "a"]);
        assert_eq!(file_lines(&f.path).len(), 3);
    }

    #[test]
    fn add_reports_an_unwritable_file_and_keeps_the_entry() {
        let f = fixture();
        // The history's directory is a file: it cannot be created.
        fs::write(f.path.parent().unwrap(), "in the way").unwrap();
        let mut history = History::load(f.path.clone());
        assert!(history.add("kept").is_err());
        assert_eq!(texts(&history), ["kept"]);
    }

    #[test]
    fn memory_holds_the_newest_thousand_entries() {
        let f = fixture();
        let mut history = History::load(f.path.clone());
        for i in 0..KEEP + 5 {
            history.add(&format!("prompt {i}")).unwrap();
        }
        assert_eq!(history.len(), KEEP);
        assert_eq!(history.get(0), Some("prompt 5"));
        assert_eq!(history.entries().last(), Some("prompt 1004"));
        assert_eq!(History::load(f.path.clone()).get(0), Some("prompt 5"));
    }

    #[test]
    fn the_file_is_compacted_when_it_grows_past_the_limit() {
        let f = fixture();
        let mut history = History::load(f.path.clone());
        for i in 0..COMPACT_AFTER {
            history.add(&format!("prompt {i}")).unwrap();
        }
        assert_eq!(file_lines(&f.path).len(), COMPACT_AFTER);

        history.add("one too many").unwrap();
        let lines = file_lines(&f.path);
        assert_eq!(lines.len(), KEEP);
        assert!(lines[0].contains("\"prompt 1001\""), "{}", lines[0]);
        assert!(lines[KEEP - 1].contains("one too many"));

        history.add("after").unwrap();
        assert_eq!(file_lines(&f.path).len(), KEEP + 1);
        let leftovers: Vec<_> = fs::read_dir(f.path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["history.jsonl"]);
    }

    #[test]
    fn prev_and_next_walk_the_entries_and_restore_the_draft() {
        let f = fixture();
        let mut history = with_entries(&f.path, &["one", "two", "three"]);
        assert_eq!(history.prev("my draft"), Some("three"));
        assert_eq!(history.prev("three"), Some("two"));
        assert_eq!(history.prev("two"), Some("one"));
        assert_eq!(history.prev("one"), None, "nothing older");
        assert_eq!(history.next(), Some("two"));
        assert_eq!(history.next(), Some("three"));
        assert_eq!(history.next(), Some("my draft"));
        assert_eq!(history.next(), None, "no longer navigating");
        assert_eq!(history.prev("new draft"), Some("three"));
        assert_eq!(history.next(), Some("new draft"));
    }

    #[test]
    fn reset_navigation_starts_again_from_the_newest() {
        let f = fixture();
        let mut history = with_entries(&f.path, &["one", "two"]);
        assert_eq!(history.prev(""), Some("two"));
        assert_eq!(history.prev(""), Some("one"));
        history.reset_navigation();
        assert_eq!(history.next(), None);
        assert_eq!(history.prev("draft"), Some("two"));
    }

    #[test]
    fn add_ends_navigation() {
        let f = fixture();
        let mut history = with_entries(&f.path, &["one", "two"]);
        assert_eq!(history.prev(""), Some("two"));
        assert_eq!(history.prev(""), Some("one"));
        history.add("one").unwrap();
        assert_eq!(history.prev(""), Some("one"));
        assert_eq!(history.prev(""), Some("two"));
    }

    #[test]
    fn search_finds_the_newest_match_ignoring_case() {
        let f = fixture();
        let history = with_entries(&f.path, &["Run the TESTS", "fix lint", "run tests again"]);
        assert_eq!(history.search("tests", 0), Some((2, "run tests again")));
        assert_eq!(history.search("TESTS", 1), Some((0, "Run the TESTS")));
        assert_eq!(history.search("tests", 2), None);
        assert_eq!(history.search("LINT", 0), Some((1, "fix lint")));
        assert_eq!(history.search("nothing", 0), None);
        assert_eq!(history.search("", 0), None);
    }

    #[test]
    fn search_matches_across_lines_and_non_ascii_case() {
        let f = fixture();
        let history = with_entries(&f.path, &["Ärger im\nBüro", "other"]);
        assert_eq!(
            history.search("ärger im\nbü", 0),
            Some((0, "Ärger im\nBüro"))
        );
    }

    #[test]
    fn search_skips_repeats_of_a_match_already_shown() {
        let f = fixture();
        let history = with_entries(&f.path, &["cargo build", "cargo test", "ls", "cargo test"]);
        assert_eq!(history.search("cargo", 0), Some((3, "cargo test")));
        assert_eq!(history.search("cargo", 1), Some((0, "cargo build")));
        assert_eq!(history.search("cargo", 2), None);
    }

    #[test]
    fn two_sessions_appending_to_one_file_keep_it_whole() {
        let f = fixture();
        let mut first = History::load(f.path.clone());
        let mut second = History::load(f.path.clone());
        for i in 0..50 {
            first.add(&format!("first {i}\nsecond line")).unwrap();
            second.add(&format!("second {i}")).unwrap();
        }
        let lines = file_lines(&f.path);
        assert_eq!(lines.len(), 100);
        assert!(
            lines
                .iter()
                .all(|line| serde_json::from_str::<Entry>(line).is_ok())
        );

        let third = History::load(f.path.clone());
        assert_eq!(third.len(), 100);
        assert_eq!(third.get(0), Some("first 0\nsecond line"));
        assert_eq!(third.get(99), Some("second 49"));
        // Each session goes on with what it loaded and added itself.
        assert_eq!(first.len(), 50);
    }

    #[test]
    fn concurrent_appends_from_threads_never_interleave() {
        let f = fixture();
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let path = f.path.clone();
                std::thread::spawn(move || {
                    let mut history = History::load(path);
                    for i in 0..100 {
                        let long = format!("thread {t} prompt {i} ").repeat(50);
                        history.add(&long).unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let lines = file_lines(&f.path);
        assert_eq!(lines.len(), 400);
        assert!(
            lines
                .iter()
                .all(|line| serde_json::from_str::<Entry>(line).is_ok())
        );
    }
}
