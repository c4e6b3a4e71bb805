//! Damaged transcripts: whatever line is lost, cut or garbled, or whoever
//! wrote twice, what `load` + `repair` hand the model is a conversation the
//! strict mock (the real API's rules) accepts.

use serde_json::{Value, json};
use tack_protocol::{ToolResultBlock, ToolUseBlock};

use super::*;

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

fn message(m: Message) -> SessionEvent {
    SessionEvent::Message { message: m }
}

fn call(id: &str) -> ContentBlock {
    ContentBlock::ToolUse(ToolUseBlock {
        id: id.into(),
        name: "Echo".into(),
        input: json!({"text": id}),
        extra: Default::default(),
    })
}

fn result_event(id: &str, text: &str) -> SessionEvent {
    SessionEvent::ToolResult {
        tool_use_id: id.into(),
        name: "Echo".into(),
        outcome: ToolOutcome::Ok,
        is_error: false,
        content: vec![ContentBlock::text(text)],
        duration_ms: 1,
        audit: None,
        response: None,
    }
}

fn results(ids: &[&str]) -> Message {
    Message::user(
        ids.iter()
            .map(|id| {
                ContentBlock::ToolResult(ToolResultBlock::new(
                    *id,
                    vec![ContentBlock::text(format!("echo {id}"))],
                    false,
                ))
            })
            .collect(),
    )
}

/// A session of three turns as the agent writes it: a call, two parallel
/// calls, then an answer; one line per event.
fn good_session() -> Vec<SessionEvent> {
    vec![
        start("s1"),
        message(Message::user_text("go")),
        message(Message::assistant(vec![
            ContentBlock::text("first"),
            call("a"),
        ])),
        result_event("a", "echo a"),
        message(results(&["a"])),
        message(Message::assistant(vec![call("b"), call("c")])),
        result_event("b", "echo b"),
        result_event("c", "echo c"),
        message(results(&["b", "c"])),
        message(Message::assistant(vec![ContentBlock::text("done")])),
    ]
}

fn lines(events: &[SessionEvent]) -> Vec<Vec<u8>> {
    events.iter().map(|e| line_of(e).unwrap()).collect()
}

fn write(dir: &Path, lines: &[Vec<u8>]) -> PathBuf {
    let path = dir.join("s1.jsonl");
    std::fs::write(&path, lines.concat()).unwrap();
    path
}

/// What the resumed run sends: the loaded conversation, the answer to a
/// trailing turn, the next prompt. Fails the test unless the strict
/// validator accepts it.
fn assert_sendable(session: &LoadedSession) -> Vec<Message> {
    let mut messages = session.messages.clone();
    messages.extend(repair(session));
    messages.push(Message::user_text("go on"));
    let body = json!({"model": "m", "max_tokens": 10, "messages": messages});
    if let Err(e) = tack_testkit::validate::anthropic_request(&body) {
        panic!("refused: {e}\n{:#}", body["messages"]);
    }
    messages
}

fn result_of<'a>(m: &'a Message, id: &str) -> &'a ToolResultBlock {
    m.content
        .iter()
        .find_map(|b| match b {
            ContentBlock::ToolResult(r) if r.tool_use_id == id => Some(r),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no result for {id} in {m:?}"))
}

#[test]
fn a_result_message_cut_mid_conversation_is_answered_with_the_recorded_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines(&good_session());
    let half = lines[4].len() / 2;
    lines[4].truncate(half);
    lines[4].push(b'\n');
    let s = load(&write(dir.path(), &lines)).unwrap();
    assert_eq!(s.skipped_lines, 1);
    let sent = assert_sendable(&s);
    let a = result_of(&sent[2], "a");
    assert_eq!((a.is_error, a.text().as_str()), (false, "echo a"));
    assert_eq!(s.repairs.len(), 1, "{:?}", s.repairs);
    assert!(s.repairs[0].contains("answer"), "{:?}", s.repairs);
}

#[test]
fn a_lost_result_with_no_recorded_event_is_an_error_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines(&good_session());
    lines.drain(6..9); // both results of b and c, and their message
    let s = load(&write(dir.path(), &lines)).unwrap();
    let sent = assert_sendable(&s);
    for id in ["b", "c"] {
        let r = result_of(&sent[4], id);
        assert!(r.is_error, "{r:?}");
        assert!(
            r.text().contains("not recorded") && r.text().contains("Echo"),
            "{}",
            r.text()
        );
    }
}

#[test]
fn a_result_whose_call_was_lost_is_kept_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines(&good_session());
    lines.remove(5); // the assistant message with calls b and c
    let s = load(&write(dir.path(), &lines)).unwrap();
    let sent = assert_sendable(&s);
    let text = sent[3].text();
    assert!(text.contains("echo b") && text.contains("echo c"), "{text}");
    assert!(text.contains("lost"), "{text}");
}

#[test]
fn a_user_message_missing_one_of_two_results_gets_it_first_and_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut events = good_session();
    events[8] = message(Message::user(vec![
        ContentBlock::text("note"),
        results(&["c"]).content.remove(0),
    ]));
    let s = load(&write(dir.path(), &lines(&events))).unwrap();
    let sent = assert_sendable(&s);
    let kinds: Vec<String> = sent[4]
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::ToolResult(r) => r.tool_use_id.clone(),
            other => other.kind().to_owned(),
        })
        .collect();
    assert_eq!(kinds, ["b", "c", "text"]);
    assert_eq!(result_of(&sent[4], "b").text(), "echo b", "recorded result");
}

#[test]
fn every_single_lost_or_cut_line_still_gives_a_sendable_conversation() {
    let good = lines(&good_session());
    for i in 0..good.len() {
        for cut in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let mut lines = good.clone();
            if cut {
                let half = lines[i].len() / 2;
                lines[i].truncate(half);
                lines[i].push(b'\n');
            } else {
                lines.remove(i);
            }
            let s = load(&write(dir.path(), &lines))
                .unwrap_or_else(|e| panic!("line {i} (cut: {cut}): {e}"));
            assert_sendable(&s);
        }
    }
}

#[test]
fn a_transcript_killed_after_any_line_resumes() {
    let good = lines(&good_session());
    for end in 1..=good.len() {
        let dir = tempfile::tempdir().unwrap();
        let s = load(&write(dir.path(), &good[..end])).unwrap();
        assert!(s.repairs.is_empty(), "a clean cut needs no repair: {s:?}");
        if !s.messages.is_empty() {
            assert_sendable(&s);
        }
    }
}

#[test]
fn lines_written_twice_or_interleaved_by_two_writers_are_mended() {
    let events = good_session();
    let dir = tempfile::tempdir().unwrap();
    let mut twice = lines(&events);
    let again = twice[2..5].to_vec();
    twice.splice(5..5, again);
    assert_sendable(&load(&write(dir.path(), &twice)).unwrap());

    // Two runs of one session writing at once: each appended its own turn.
    let mut interleaved = lines(&events[..2]);
    interleaved.extend(lines(&[
        message(Message::assistant(vec![call("x")])),
        message(Message::assistant(vec![call("y")])),
        result_event("x", "echo x"),
        message(results(&["x"])),
        result_event("y", "echo y"),
        message(results(&["y"])),
        message(Message::assistant(vec![ContentBlock::text("one")])),
        message(Message::assistant(vec![ContentBlock::text("two")])),
    ]));
    let s = load(&write(dir.path(), &interleaved)).unwrap();
    let sent = assert_sendable(&s);
    assert_eq!(result_of(&sent[2], "x").text(), "echo x");
}

#[test]
fn invalid_utf8_costs_only_its_characters_and_garbage_only_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines(&good_session());
    // A byte that is not UTF-8 inside the first prompt's text…
    let at = lines[1].windows(4).position(|w| w == b"\"go\"").unwrap() + 2;
    lines[1].insert(at, 0xff);
    // …and a line of binary garbage.
    lines.insert(3, vec![0xc3, 0x28, 0xa0, 0xa1, b'{', b'\n']);
    let s = load(&write(dir.path(), &lines)).unwrap();
    assert_eq!((s.lossy_lines, s.skipped_lines), (2, 1));
    assert_eq!(s.title, "g\u{fffd}o");
    assert_eq!(s.messages.len(), 6);
    assert!(s.repairs.is_empty(), "{:?}", s.repairs);
    assert_sendable(&s);
    assert_eq!(read_events(&s.path).unwrap().len(), good_session().len());
}

#[test]
fn a_lost_first_line_keeps_the_session_named_after_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines(&good_session());
    lines[0].truncate(10);
    lines[0].push(b'\n');
    let s = load(&write(dir.path(), &lines)).unwrap();
    assert_eq!(s.session_id, "s1");
    assert_eq!(s.title, "go");
    assert_sendable(&s);
    let garbage = dir.path().join("g.jsonl");
    std::fs::write(&garbage, "not json\n{\"ts\":1}\n").unwrap();
    assert!(matches!(
        load(&garbage),
        Err(TranscriptError::NotASession { .. })
    ));
}

#[test]
fn a_recorded_repair_is_what_the_next_load_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines(&good_session());
    lines.remove(4);
    let path = write(dir.path(), &lines);
    let first = load(&path).unwrap();
    assert!(!first.repairs.is_empty());
    let w = TranscriptWriter::open(dir.path(), "s1").unwrap();
    w.on_event(&SessionEvent::ConversationRepaired {
        messages: first.messages.clone(),
        repairs: first.repairs.clone(),
    });
    w.on_event(&message(Message::user_text("go on")));
    let second = load(&path).unwrap();
    assert!(second.repairs.is_empty(), "{:?}", second.repairs);
    assert_eq!(second.messages.len(), first.messages.len() + 1);
    assert_eq!(second.messages[..first.messages.len()], first.messages[..]);
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .rev()
            .nth(1)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(line["type"], "conversation_repaired");
}

#[test]
fn one_writer_at_a_time_per_session() {
    let dir = tempfile::tempdir().unwrap();
    let first = TranscriptWriter::open(dir.path(), "s1").unwrap();
    first.on_event(&start("s1"));
    let err = TranscriptWriter::open(dir.path(), "s1").unwrap_err();
    assert!(matches!(err, TranscriptError::Locked { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("s1") && text.contains("in use"), "{text}");
    assert!(TranscriptWriter::open(dir.path(), "s2").is_ok());
    // Readers are not stopped by the lock.
    assert_eq!(load(first.path()).unwrap().session_id, "s1");
    drop(first);
    let again = TranscriptWriter::open(dir.path(), "s1").unwrap();
    again.on_event(&message(Message::user_text("later")));
    assert_eq!(load(again.path()).unwrap().messages.len(), 1);
}

#[test]
fn a_writer_opened_on_a_cut_last_line_starts_on_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = lines(&good_session());
    let last = lines.len() - 1;
    lines[last].truncate(20);
    let path = write(dir.path(), &lines);
    let w = TranscriptWriter::open(dir.path(), "s1").unwrap();
    w.on_event(&message(Message::user_text("go on")));
    let s = load(&path).unwrap();
    assert_eq!(s.skipped_lines, 1);
    assert_eq!(s.messages.last().unwrap().text(), "go on");
    drop(w);
    let w = TranscriptWriter::open(dir.path(), "s1").unwrap();
    w.on_event(&message(Message::user_text("again")));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        !text.contains("\n\n"),
        "no blank line when the last one was whole"
    );
}
