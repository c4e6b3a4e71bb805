//! Session transcripts: one JSON event per line, appended and handed to the
//! kernel as each event happens, so a killed process loses nothing that was
//! decided before it died.
//!
//! A line is a [`SessionEvent`] with a `ts` field (milliseconds since the Unix
//! epoch). The conversation is the sequence of `message` events (a
//! `conversation_repaired` event replaces what came before it).
//!
//! One damaged line never costs the session: [`load`] reads lines as bytes
//! (invalid UTF-8 becomes U+FFFD), skips and counts only lines that do not
//! parse, and makes the conversation valid for the model API again wherever a
//! lost line broke it (the `mend` module: every call answered, every result
//! with its call), listing what it fixed in [`LoadedSession::repairs`];
//! [`repair`] answers a trailing tool_use that a killed process left without
//! a result.
//!
//! One writer at a time: [`TranscriptWriter::open`] takes an advisory lock
//! (`flock`) on the file for as long as the writer lives, so a second process
//! resuming the same session is refused ([`TranscriptError::Locked`]) instead
//! of interleaving its turns with the first one's. Readers take no lock.

#[cfg(test)]
mod damaged;
mod mend;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use tack_protocol::{
    AuditDecision, AuditRecord, ContentBlock, Interruption, Message, Role, SessionEvent,
    ToolOutcome, ToolResultContent, Usage,
};

use crate::events::{Emitted, EventObserver};

/// Why a transcript could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    #[error("cannot write the session transcript {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the session transcript {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no session {id:?} in {dir}; `tack sessions` lists them")]
    NotFound { id: String, dir: PathBuf },
    #[error("{id:?} is the start of {} sessions in {dir}: {}; give more of the id", matches.len(), matches.join(", "))]
    Ambiguous {
        id: String,
        dir: PathBuf,
        /// The ids it starts, sorted.
        matches: Vec<String>,
    },
    #[error(
        "no earlier session to continue in {dir} for this directory; start one with `tack run \"…\"`"
    )]
    NothingToContinue { dir: PathBuf },
    #[error("the transcript {path} is not a tack session (no line of it is a session event)")]
    NotASession { path: PathBuf },
    #[error(
        "the session {session_id} is in use: another tack process is writing to it (its transcript {path} is locked). Wait for that run to end, or start a new session"
    )]
    Locked { session_id: String, path: PathBuf },
}

pub type Result<T, E = TranscriptError> = std::result::Result<T, E>;

/// Where tack keeps per-user state: `$TACK_STATE_DIR`, else
/// `$XDG_STATE_HOME/tack`, else `~/.local/state/tack`.
pub fn state_dir(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    if let Some(dir) = env("TACK_STATE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = env("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("tack");
    }
    let home = env("HOME").unwrap_or_else(|| ".".into());
    PathBuf::from(home).join(".local/state/tack")
}

/// The directory that holds the transcripts.
pub fn sessions_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("sessions")
}

#[derive(Deserialize)]
struct LineIn {
    #[serde(default)]
    ts: u64,
    #[serde(flatten)]
    event: SessionEvent,
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Appends session events to a JSONL file.
#[derive(Debug)]
pub struct TranscriptWriter {
    path: PathBuf,
    file: Mutex<File>,
    warned: AtomicBool,
}

impl TranscriptWriter {
    /// Opens (creating if needed) `<dir>/<session_id>.jsonl` for appending
    /// and locks it for as long as the writer lives: a second writer of the
    /// same session, in this process or another, gets
    /// [`TranscriptError::Locked`]. Read the transcript after opening its
    /// writer, so what was read is what the writer appends to.
    pub fn open(dir: &Path, session_id: &str) -> Result<Self> {
        Self::open_file(&dir.join(format!("{session_id}.jsonl")), session_id)
    }

    /// Like [`TranscriptWriter::open`], for the transcript at `path` (one
    /// found by [`find`] or [`latest_for`]).
    pub fn open_file(path: &Path, session_id: &str) -> Result<Self> {
        let path = path.to_owned();
        let dir = path.parent().unwrap_or(Path::new("."));
        let file = std::fs::create_dir_all(dir)
            .and_then(|()| OpenOptions::new().create(true).append(true).open(&path))
            .map_err(|source| TranscriptError::Write {
                path: path.clone(),
                source,
            })?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(TranscriptError::Locked {
                    session_id: session_id.to_owned(),
                    path,
                });
            }
            // A file system without locks (some network mounts) must not stop
            // the session; it just loses the guard against a second writer.
            Err(std::fs::TryLockError::Error(e)) => tracing::warn!(
                "cannot lock the session transcript {}: {e}; a second tack resuming this session at the same time would not be stopped",
                path.display()
            ),
        }
        // A line cut by a kill has no newline: end it, so the first line
        // written now is not glued to it (and lost with it).
        if ends_mid_line(&path).unwrap_or(false) {
            (&file)
                .write_all(b"\n")
                .map_err(|source| TranscriptError::Write {
                    path: path.clone(),
                    source,
                })?;
        }
        Ok(Self {
            path,
            file: Mutex::new(file),
            warned: AtomicBool::new(false),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one event as one line with one `write` call.
    pub fn append(&self, event: &SessionEvent) -> Result<()> {
        self.append_emitted(&Emitted::new(event))
    }

    /// [`TranscriptWriter::append`] with the event's JSON encoded once for
    /// every observer ([`Emitted::json`]).
    pub fn append_emitted(&self, emitted: &Emitted<'_>) -> Result<()> {
        let line = emitted
            .json()
            .and_then(line_of_json)
            .map_err(|e| TranscriptError::Write {
                path: self.path.clone(),
                source: std::io::Error::other(e),
            })?;
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&line)
            .and_then(|()| file.flush())
            .map_err(|source| TranscriptError::Write {
                path: self.path.clone(),
                source,
            })
    }
}

/// Whether the file's last byte is something other than a newline.
fn ends_mid_line(path: &Path) -> std::io::Result<bool> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let mut file = File::open(path)?;
    if file.metadata()?.len() == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8];
    file.read_exact(&mut last)?;
    Ok(last != *b"\n")
}

/// `{"ts":…,` followed by the event's own fields and a newline. The event is
/// an internally tagged object, so its JSON is spliced in after its `{`
/// (serde's `flatten` would do the same through a much slower path).
/// The transcript line of an event's JSON object: `ts` first, then the
/// event's own fields.
fn line_of_json(json: &[u8]) -> serde_json::Result<Vec<u8>> {
    if json.first() != Some(&b'{') || json.get(1) == Some(&b'}') || json.len() < 2 {
        return Err(serde::ser::Error::custom(
            "a session event is not a non-empty object",
        ));
    }
    let ts = now_ms().to_string();
    let mut line = Vec::with_capacity(json.len() + ts.len() + 8);
    line.extend_from_slice(b"{\"ts\":");
    line.extend_from_slice(ts.as_bytes());
    line.push(b',');
    line.extend_from_slice(&json[1..]);
    line.push(b'\n');
    Ok(line)
}

#[cfg(test)]
fn line_of(event: &SessionEvent) -> serde_json::Result<Vec<u8>> {
    line_of_json(&serde_json::to_vec(event)?)
}

impl EventObserver for TranscriptWriter {
    fn on_event(&self, event: &SessionEvent) {
        self.on_emitted(&Emitted::new(event));
    }

    fn on_emitted(&self, emitted: &Emitted<'_>) {
        if emitted.event().is_ephemeral() {
            return;
        }
        if let Err(e) = self.append_emitted(emitted) {
            // The session goes on; the user is told once that it is not being saved.
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::error!("{e}; the session continues but will not be saved completely");
            }
        }
    }
}

/// A transcript read back.
#[derive(Debug, Clone)]
pub struct LoadedSession {
    pub session_id: String,
    pub path: PathBuf,
    pub cwd: String,
    pub provider: String,
    pub model: String,
    /// Started, in ms since the epoch.
    pub started_ms: u64,
    /// Last event, in ms since the epoch.
    pub updated_ms: u64,
    pub messages: Vec<Message>,
    pub usage: Usage,
    pub turns: u32,
    /// Results recorded for tool calls (used to repair a cut transcript).
    pub tool_results: HashMap<String, (bool, Vec<ContentBlock>, ToolOutcome)>,
    /// Lines that could not be read (e.g. a line cut by a kill), skipped.
    pub skipped_lines: usize,
    /// Lines with invalid UTF-8, read with the bad bytes replaced by U+FFFD.
    pub lossy_lines: usize,
    /// What was fixed to make the conversation valid for the model API again
    /// (lost or damaged lines), one line per fix; empty when nothing was.
    /// [`messages`](Self::messages) is the fixed conversation.
    pub repairs: Vec<String>,
    /// The first user prompt's text, for listings.
    pub title: String,
}

/// Calls `f` with each line of `path` (its newline removed) and whether it
/// had invalid UTF-8. Lines are read as bytes and decoded lossily, so one bad
/// byte costs at most its line's text, never the file.
fn each_line(path: &Path, mut f: impl FnMut(&str, bool)) -> Result<()> {
    let read_err = |source| TranscriptError::Read {
        path: path.to_owned(),
        source,
    };
    let mut reader = BufReader::new(File::open(path).map_err(read_err)?);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(read_err)? == 0 {
            return Ok(());
        }
        let line = String::from_utf8_lossy(&buf);
        let lossy = matches!(line, Cow::Owned(_));
        f(line.trim_end_matches(['\n', '\r']), lossy);
    }
}

/// Reads a transcript: skips (and counts) lines that do not parse, and
/// returns the conversation made valid for the model API (see
/// [`LoadedSession::repairs`]). A trailing turn whose calls have no results
/// is left for [`repair`].
pub fn load(path: &Path) -> Result<LoadedSession> {
    let mut session: Option<LoadedSession> = None;
    let mut skipped = 0;
    let mut lossy = 0;
    each_line(path, |line, bad_utf8| {
        if line.trim().is_empty() {
            return;
        }
        lossy += usize::from(bad_utf8);
        let Ok(LineIn { ts, event }) = serde_json::from_str::<LineIn>(line) else {
            skipped += 1;
            return;
        };
        read_event(&mut session, path, ts, event);
    })?;
    let mut session = session.ok_or_else(|| TranscriptError::NotASession {
        path: path.to_owned(),
    })?;
    session.skipped_lines = skipped;
    session.lossy_lines = lossy;
    let (messages, repairs) =
        mend::mend(std::mem::take(&mut session.messages), &session.tool_results);
    session.messages = messages;
    session.repairs = repairs;
    if session.title.is_empty()
        && let Some(first) = session.messages.iter().find(|m| m.role == Role::User)
    {
        session.title = first.text();
    }
    Ok(session)
}

/// Adds one event to the session being read. Events before the first
/// `session_start` (its line was damaged) start the session themselves, named
/// after the file, and a later `session_start` fills in what they lacked.
fn read_event(session: &mut Option<LoadedSession>, path: &Path, ts: u64, event: SessionEvent) {
    let s = session.get_or_insert_with(|| LoadedSession {
        session_id: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        path: path.to_owned(),
        cwd: String::new(),
        provider: String::new(),
        model: String::new(),
        started_ms: ts,
        updated_ms: ts,
        messages: Vec::new(),
        usage: Usage::default(),
        turns: 0,
        tool_results: HashMap::new(),
        skipped_lines: 0,
        lossy_lines: 0,
        repairs: Vec::new(),
        title: String::new(),
    });
    s.updated_ms = s.updated_ms.max(ts);
    match event {
        // A resumed run starts again; the newest model/provider win.
        SessionEvent::SessionStart {
            session_id,
            cwd,
            provider,
            model,
            ..
        } => {
            if s.cwd.is_empty() {
                s.session_id = session_id;
                s.cwd = cwd;
            }
            s.provider = provider;
            s.model = model;
        }
        SessionEvent::Message { message } => {
            if s.title.is_empty() && message.role == Role::User {
                s.title = message.text();
            }
            s.messages.push(message);
        }
        SessionEvent::ConversationRepaired { messages, .. } => s.messages = messages,
        SessionEvent::Compaction {
            messages, usage, ..
        } => {
            s.messages = messages;
            if let Some(usage) = usage {
                s.usage.add(&usage);
            }
        }
        SessionEvent::TurnEnd { usage, .. } => {
            s.usage.add(&usage);
            s.turns += 1;
        }
        // A sub-agent's tokens are the session's (its requests are its own turns).
        SessionEvent::SubagentStop { usage, .. } => s.usage.add(&usage),
        SessionEvent::ToolResult {
            tool_use_id,
            outcome,
            is_error,
            content,
            ..
        } => {
            s.tool_results
                .insert(tool_use_id, (is_error, content, outcome));
        }
        _ => {}
    }
}

/// Every readable event of a transcript with its timestamp (ms), in order.
pub fn read_events(path: &Path) -> Result<Vec<(u64, SessionEvent)>> {
    let mut events = Vec::new();
    each_line(path, |line, _| {
        if let Ok(LineIn { ts, event }) = serde_json::from_str::<LineIn>(line) {
            events.push((ts, event));
        }
    })?;
    Ok(events)
}

/// If the conversation ends with tool_use blocks that have no results (the
/// process was killed mid-turn), returns the user message that answers them:
/// the result recorded for a call that finished, "interrupted" for the others.
/// Unanswered calls earlier in the conversation were already answered by
/// [`load`].
pub fn repair(session: &LoadedSession) -> Option<Message> {
    let last = session.messages.last()?;
    if last.role != Role::Assistant {
        return None;
    }
    let results: Vec<ContentBlock> = last
        .tool_uses()
        .map(|t| mend::answer(t, &session.tool_results, mend::INTERRUPTED))
        .collect();
    (!results.is_empty()).then(|| Message::user(results))
}

pub use mend::Unrecorded;

/// The calls of `messages` (a loaded conversation, with [`repair`]'s message
/// appended) that mending or repair answered and that have no recorded
/// result: the audit trail has no record of them. See [`unrecorded_result`].
pub fn unrecorded(messages: &[Message], session: &LoadedSession) -> Vec<Unrecorded> {
    mend::unrecorded(messages, &session.tool_results)
}

/// The `tool_result` event, with its audit record, for a call the session
/// stopped in before its result was recorded: interrupted, decision unknown.
pub fn unrecorded_result(unrecorded: &Unrecorded) -> SessionEvent {
    let Unrecorded { call, answer } = unrecorded;
    SessionEvent::ToolResult {
        tool_use_id: call.id.clone(),
        name: call.name.clone(),
        outcome: ToolOutcome::Interrupted,
        is_error: true,
        content: match answer {
            ContentBlock::ToolResult(r) => match &r.content {
                None => Vec::new(),
                Some(ToolResultContent::Text(t)) => vec![ContentBlock::text(t.clone())],
                Some(ToolResultContent::Blocks(b)) => b.clone(),
            },
            other => vec![other.clone()],
        },
        duration_ms: 0,
        audit: Some(Box::new(AuditRecord {
            input: call.input.clone(),
            decision: AuditDecision::Unknown,
            decided_by: "not recorded: the session stopped before this call's result was \
                         written; recorded when the session resumed"
                .to_owned(),
            started_ms: now_ms(),
            interrupted: Some(Interruption::Unfinished),
            ..AuditRecord::default()
        })),
        response: None,
    }
}

/// Finds the transcript of a session id (a unique prefix is enough).
pub fn find(dir: &Path, id: &str) -> Result<PathBuf> {
    let exact = dir.join(format!("{id}.jsonl"));
    if exact.is_file() {
        return Ok(exact);
    }
    let mut matches: Vec<(String, PathBuf)> = list_files(dir)
        .into_iter()
        .filter_map(|p| {
            let stem = p.file_stem()?.to_str()?.to_owned();
            stem.starts_with(id).then_some((stem, p))
        })
        .collect();
    matches.sort();
    match matches.len() {
        1 => Ok(matches.remove(0).1),
        0 => Err(TranscriptError::NotFound {
            id: id.to_owned(),
            dir: dir.to_owned(),
        }),
        _ => Err(TranscriptError::Ambiguous {
            id: id.to_owned(),
            dir: dir.to_owned(),
            matches: matches.into_iter().map(|(id, _)| id).collect(),
        }),
    }
}

fn list_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

/// Every readable session in `dir`, newest first.
pub fn list(dir: &Path) -> Vec<LoadedSession> {
    let mut sessions: Vec<LoadedSession> = list_files(dir)
        .iter()
        .filter_map(|p| load(p).ok())
        .collect();
    sessions.sort_by_key(|s| std::cmp::Reverse(s.updated_ms));
    sessions
}

/// The most recent session started in `cwd` (`tack log`'s default).
pub fn latest_for(dir: &Path, cwd: &str) -> Result<LoadedSession> {
    latest_where(dir, |s| s.cwd == cwd)
}

/// The most recent conversation started in `cwd` (`--continue`): a session
/// with no message (`tack mcp serve`, `tack tools call`: calls with no
/// model) is not one to continue.
pub fn latest_conversation_for(dir: &Path, cwd: &str) -> Result<LoadedSession> {
    latest_where(dir, |s| s.cwd == cwd && !s.messages.is_empty())
}

fn latest_where(dir: &Path, keep: impl Fn(&LoadedSession) -> bool) -> Result<LoadedSession> {
    list(dir)
        .into_iter()
        .find(keep)
        .ok_or_else(|| TranscriptError::NothingToContinue {
            dir: dir.to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_protocol::ToolUseBlock;

    fn start(id: &str) -> SessionEvent {
        SessionEvent::SessionStart {
            session_id: id.into(),
            cwd: "/w".into(),
            provider: "mock".into(),
            model: "m".into(),
            tools: vec![],
            resumed: false,
            time: String::new(),
            version: "0".into(),
        }
    }

    fn tool_use(id: &str) -> ContentBlock {
        ContentBlock::ToolUse(ToolUseBlock {
            id: id.into(),
            name: "Slow".into(),
            input: json!({}),
            extra: Default::default(),
        })
    }

    #[test]
    fn a_line_is_the_timestamp_then_the_event_and_reads_back() {
        let event = SessionEvent::ToolCall {
            id: "t1".into(),
            name: "Echo".into(),
            input: json!({"text": "a \"quoted\" {brace}"}),
        };
        let line = line_of(&event).unwrap();
        assert!(
            line.starts_with(b"{\"ts\":"),
            "{}",
            String::from_utf8_lossy(&line)
        );
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let back: LineIn = serde_json::from_slice(&line).unwrap();
        assert!(back.ts > 0);
        assert_eq!(
            serde_json::to_value(&back.event).unwrap(),
            serde_json::to_value(&event).unwrap()
        );
    }

    #[test]
    fn write_load_and_repair_a_cut_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let w = TranscriptWriter::open(dir.path(), "s1").unwrap();
        w.on_event(&start("s1"));
        w.on_event(&SessionEvent::Message {
            message: Message::user_text("go"),
        });
        w.on_event(&SessionEvent::TextDelta {
            text: "ephemeral".into(),
        });
        w.on_event(&SessionEvent::Message {
            message: Message::assistant(vec![tool_use("a"), tool_use("b")]),
        });
        w.on_event(&SessionEvent::ToolResult {
            tool_use_id: "a".into(),
            name: "Slow".into(),
            outcome: ToolOutcome::Ok,
            is_error: false,
            content: vec![ContentBlock::text("done a")],
            duration_ms: 1,
            audit: None,
            response: None,
        });
        // A kill in the middle of writing a line.
        std::fs::OpenOptions::new()
            .append(true)
            .open(w.path())
            .unwrap()
            .write_all(b"{\"ts\":1,\"type\":\"mess")
            .unwrap();
        let s = load(w.path()).unwrap();
        assert_eq!(s.messages.len(), 2);
        assert_eq!(s.skipped_lines, 1);
        assert_eq!(s.title, "go");
        assert!(
            !std::fs::read_to_string(w.path())
                .unwrap()
                .contains("ephemeral")
        );
        let fix = repair(&s).unwrap();
        let ContentBlock::ToolResult(a) = &fix.content[0] else {
            panic!()
        };
        let ContentBlock::ToolResult(b) = &fix.content[1] else {
            panic!()
        };
        assert_eq!(
            (a.tool_use_id.as_str(), a.is_error, a.text().as_str()),
            ("a", false, "done a")
        );
        assert_eq!(b.tool_use_id, "b");
        assert!(
            b.is_error && b.text().contains("interrupted"),
            "{}",
            b.text()
        );
    }

    #[test]
    fn continue_skips_sessions_without_a_conversation() {
        let dir = tempfile::tempdir().unwrap();
        let talk = TranscriptWriter::open(dir.path(), "talk").unwrap();
        talk.on_event(&start("talk"));
        talk.on_event(&SessionEvent::Message {
            message: Message::user_text("go"),
        });
        // Later, calls with no model (`tack tools call`, `tack mcp serve`).
        std::thread::sleep(std::time::Duration::from_millis(5));
        TranscriptWriter::open(dir.path(), "calls")
            .unwrap()
            .on_event(&start("calls"));
        assert_eq!(latest_for(dir.path(), "/w").unwrap().session_id, "calls");
        let continued = latest_conversation_for(dir.path(), "/w").unwrap();
        assert_eq!(continued.session_id, "talk");
    }

    #[test]
    fn find_by_prefix_and_state_dir_rules() {
        let dir = tempfile::tempdir().unwrap();
        TranscriptWriter::open(dir.path(), "0190abcd")
            .unwrap()
            .on_event(&start("0190abcd"));
        assert!(find(dir.path(), "0190").is_ok());
        assert!(matches!(
            find(dir.path(), "zz"),
            Err(TranscriptError::NotFound { .. })
        ));
        TranscriptWriter::open(dir.path(), "0190ffff")
            .unwrap()
            .on_event(&start("0190ffff"));
        let err = find(dir.path(), "0190").unwrap_err();
        assert!(
            matches!(&err, TranscriptError::Ambiguous { matches, .. } if matches == &["0190abcd", "0190ffff"]),
            "{err:?}"
        );
        assert!(err.to_string().contains("0190abcd, 0190ffff"), "{err}");
        assert!(find(dir.path(), "0190f").is_ok());
        let env = |k: &str| (k == "HOME").then(|| "/home/u".to_owned());
        assert_eq!(state_dir(&env), PathBuf::from("/home/u/.local/state/tack"));
        let env = |k: &str| (k == "TACK_STATE_DIR").then(|| "/s".to_owned());
        assert_eq!(state_dir(&env), PathBuf::from("/s"));
    }
}
