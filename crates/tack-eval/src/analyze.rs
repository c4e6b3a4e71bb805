//! From what a run left (its transcript and the requests the model stand-in
//! saw) to what the record says: calls, tokens, turns, the answer, and what
//! went wrong along the way.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_testkit::RecordedRequest;

use crate::record::{Call, Failure, FailureClass, RESULT_EXCERPT, Tokens};
use crate::suite::{Suite, Task, tool_matches};

/// The name of code mode's tool.
pub const CODE_TOOL: &str = "Code";
/// The name of tool search's tool.
pub const SEARCH_TOOL: &str = "ToolSearch";

/// The session transcript a run left, in `<state>/sessions`: the one named
/// by the session id the program printed (`session_id` in its JSON
/// output), else the latest top-level `.jsonl` that holds a `result` event
/// (an MCP sidecar sharing the state directory may write its own beside
/// it; sub-agents' transcripts live in folders below).
pub fn find_transcript(state: &Path, session_id: Option<&str>) -> Option<PathBuf> {
    let dir = state.join("sessions");
    if let Some(id) = session_id {
        let path = dir.join(format!("{id}.jsonl"));
        if path.is_file() {
            return Some(path);
        }
    }
    let entries = std::fs::read_dir(&dir).ok()?;
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"type\":\"result\"")))
        .max_by_key(|p| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, p.clone()))
        })
}

/// The session id a program printed: the `session_id` of its last JSON line
/// that has one (`--output-format json` or stream-json).
pub fn session_id_in(stdout: &str) -> Option<String> {
    stdout
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find_map(|v| {
            v.get("session_id")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
}

/// A transcript's events, one JSON value per line that parses.
pub fn read_events(path: &Path) -> Vec<Value> {
    std::fs::read(path)
        .map(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// What the transcript says.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub calls: Vec<Call>,
    pub tokens: Tokens,
    pub turns: u32,
    pub retries: u32,
    pub answer: String,
    pub run_status: Option<String>,
    pub tool_ms: u64,
    /// Tools any tool search found, as the model calls them.
    pub discovered: HashSet<String>,
    /// The messages of the conversation as it stood at each model request,
    /// rebuilt from the transcript (for recording a live run's cassette):
    /// the i-th entry is the conversation request i was sent.
    pub conversations: Vec<Vec<Value>>,
    /// The assistant messages, in order (request i's answer).
    pub answers: Vec<Value>,
    /// Stop reason and usage of each response, in order.
    pub turn_ends: Vec<Value>,
}

/// Reads the events of a transcript into an [`Analysis`].
pub fn analyze(events: &[Value]) -> Analysis {
    let mut a = Analysis::default();
    let mut inputs: BTreeMap<String, (Value, u32)> = BTreeMap::new();
    let mut conversation: Vec<Value> = Vec::new();
    let mut assistant_turns = 0u32;
    let mut results_text = Vec::new();
    for event in events {
        match event.get("type").and_then(Value::as_str) {
            Some("message") => {
                let Some(message) = event.get("message") else {
                    continue;
                };
                if message.get("role").and_then(Value::as_str) == Some("assistant") {
                    assistant_turns += 1;
                    a.conversations.push(conversation.clone());
                    a.answers.push(message.clone());
                    for block in blocks(message) {
                        if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                            let id = str_of(block, "id");
                            let input = block.get("input").cloned().unwrap_or(Value::Null);
                            inputs.insert(id, (input, assistant_turns));
                        }
                    }
                }
                conversation.push(message.clone());
            }
            Some("conversation_repaired") | Some("compaction") => {
                if let Some(Value::Array(messages)) = event.get("messages") {
                    conversation = messages.clone();
                }
            }
            Some("tool_result") => {
                let id = str_of(event, "tool_use_id");
                let audit = event.get("audit");
                let (input, turn) = inputs.get(&id).cloned().unwrap_or_else(|| {
                    (
                        audit
                            .and_then(|a| a.get("input"))
                            .cloned()
                            .unwrap_or(Value::Null),
                        0,
                    )
                });
                let caller = audit
                    .and_then(|a| a.get("caller"))
                    .filter(|c| !c.is_null())
                    .map(|c| {
                        format!(
                            "{} {}",
                            str_of(c, "tool"),
                            c.get("tool_use_id")
                                .or_else(|| c.get("id"))
                                .and_then(Value::as_str)
                                .unwrap_or("")
                        )
                        .trim()
                        .to_owned()
                    });
                let duration_ms = event
                    .get("duration_ms")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                if caller.is_none() {
                    a.tool_ms += duration_ms;
                }
                if let Some(discovery) = audit.and_then(|a| a.get("discovery")) {
                    for found in discovery
                        .get("found")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if let Some(name) = found.as_str() {
                            a.discovered.insert(name.to_owned());
                        }
                    }
                }
                let text = content_text(event.get("content"));
                results_text.push(text.clone());
                a.calls.push(Call {
                    turn: if caller.is_some() { 0 } else { turn },
                    name: str_of(event, "name"),
                    input,
                    outcome: event
                        .get("outcome")
                        .and_then(Value::as_str)
                        .unwrap_or("ok")
                        .to_owned(),
                    is_error: event.get("is_error") == Some(&Value::Bool(true)),
                    duration_ms,
                    decision: audit.map(|a| str_of(a, "decision")).unwrap_or_default(),
                    decided_by: audit.map(|a| str_of(a, "decided_by")).unwrap_or_default(),
                    caller,
                    result: cut(&text, RESULT_EXCERPT),
                    id,
                });
            }
            Some("turn_end") => {
                a.turns += 1;
                a.turn_ends.push(event.clone());
            }
            Some("retry") => a.retries += 1,
            Some("result") => {
                let text = event.get("text").and_then(Value::as_str).unwrap_or("");
                a.answer = text.to_owned();
                a.run_status = event
                    .get("status")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(usage) = event.get("usage") {
                    let (uncached, cached, output) = usage_parts(usage);
                    a.tokens.input_uncached += uncached;
                    a.tokens.input_cached += cached;
                    a.tokens.output += output;
                }
            }
            _ => {}
        }
    }
    a
}

/// Uncached input (cache writes included), cached input, output.
fn usage_parts(usage: &Value) -> (u64, u64, u64) {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    (
        n("input_tokens") + n("cache_creation_input_tokens"),
        n("cache_read_input_tokens"),
        n("output_tokens"),
    )
}

/// Splits the input tokens of the requests the stand-in answered into tool
/// definitions and discovery: each request's input tokens (as the run's
/// `turn_end` usage reports them, request by request) times the share of
/// the request's bytes that were definitions sent for the model to read
/// (not `defer_loading` ones) and tool search's calls and results.
pub fn split_input(requests: &[RecordedRequest], turn_ends: &[Value], tokens: &mut Tokens) {
    let served: Vec<&RecordedRequest> = requests
        .iter()
        .filter(|r| r.error.is_none() && r.status == 200 && r.body.get("messages").is_some())
        .collect();
    let mut definitions = 0f64;
    let mut discovery = 0f64;
    for (i, request) in served.iter().enumerate() {
        let total_bytes = request.raw_body.len().max(1) as f64;
        let input = turn_ends
            .get(i)
            .and_then(|t| t.get("usage"))
            .map(|u| {
                let (uncached, cached, _) = usage_parts(u);
                (uncached + cached) as f64
            })
            .unwrap_or(total_bytes / 4.0);
        let def_bytes: usize = request
            .body
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|t| t.get("defer_loading") != Some(&Value::Bool(true)))
            .map(|t| t.to_string().len())
            .sum();
        let search_bytes = search_bytes(&request.body);
        definitions += input * def_bytes as f64 / total_bytes;
        discovery += input * search_bytes as f64 / total_bytes;
    }
    tokens.tool_definitions = Some(definitions.round() as u64);
    tokens.discovery = Some(discovery.round() as u64);
}

/// Bytes of tool search in a request: its calls and their results.
fn search_bytes(body: &Value) -> usize {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut ids = HashSet::new();
    let mut bytes = 0;
    for message in messages {
        // Chat Completions: tool_calls on the assistant, a tool message per result.
        for call in message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if call.pointer("/function/name").and_then(Value::as_str) == Some(SEARCH_TOOL) {
                ids.insert(str_of(call, "id"));
                bytes += call.to_string().len();
            }
        }
        if message.get("role").and_then(Value::as_str) == Some("tool")
            && ids.contains(&str_of(message, "tool_call_id"))
        {
            bytes += message.to_string().len();
        }
        for block in blocks(message) {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") if str_of(block, "name") == SEARCH_TOOL => {
                    ids.insert(str_of(block, "id"));
                    bytes += block.to_string().len();
                }
                Some("tool_result") if ids.contains(&str_of(block, "tool_use_id")) => {
                    bytes += block.to_string().len();
                }
                _ => {}
            }
        }
    }
    bytes
}

/// What the run did that may explain a failure, each with whether a later
/// call made up for it (a retried invalid call, a fixed program).
/// `deferred`: the variant defers tools behind tool search.
pub fn observe(
    analysis: &Analysis,
    suite: &Suite,
    task: &Task,
    deferred: bool,
) -> Vec<(Failure, bool)> {
    let mut out = Vec::new();
    let calls = &analysis.calls;
    let ok_after = |i: usize, name: &str| {
        calls[i + 1..]
            .iter()
            .any(|c| c.name == name && c.outcome == "ok")
    };
    let mut seen_effects: HashSet<(String, String)> = HashSet::new();
    for (i, call) in calls.iter().enumerate() {
        let at = |class, detail: String| Failure {
            class,
            detail,
            call_id: Some(call.id.clone()),
        };
        let code = call.name == CODE_TOOL;
        match call.outcome.as_str() {
            "denied" => out.push((
                at(
                    FailureClass::Denied,
                    format!("{} was denied: {}", call.name, first_line(&call.result)),
                ),
                false,
            )),
            "timeout" => out.push((
                at(FailureClass::Timeout, format!("{} timed out", call.name)),
                ok_after(i, &call.name),
            )),
            "unknown_tool" => out.push((
                at(
                    FailureClass::WrongTool,
                    format!("called {}, which does not exist", call.name),
                ),
                false,
            )),
            "invalid_input" | "failed" if code => out.push((
                at(
                    FailureClass::CodeError,
                    format!("the program failed: {}", first_line(&call.result)),
                ),
                ok_after(i, &call.name),
            )),
            "invalid_input" => out.push((
                at(
                    FailureClass::InvalidArguments,
                    format!(
                        "{} {}: {}",
                        call.name,
                        compact(&call.input),
                        first_line(&call.result)
                    ),
                ),
                ok_after(i, &call.name),
            )),
            _ => {}
        }
        if call.outcome == "ok"
            && suite
                .side_effects
                .iter()
                .any(|p| tool_matches(&call.name, p))
            && !seen_effects.insert((call.name.clone(), canonical(&call.input)))
        {
            out.push((
                at(
                    FailureClass::RepeatedSideEffect,
                    format!("{} ran twice with {}", call.name, compact(&call.input)),
                ),
                false,
            ));
        }
        if task
            .forbid_tools
            .iter()
            .any(|p| tool_matches(&call.name, p))
        {
            out.push((
                at(
                    FailureClass::WrongTool,
                    format!("called {}, which this task must not use", call.name),
                ),
                false,
            ));
        }
    }
    for wanted in &task.tools {
        // Called and run: a call refused before it ran does not count; one
        // that ran and reported missing data does (that may be the task).
        if calls.iter().any(|c| {
            tool_matches(&c.name, wanted)
                && !matches!(
                    c.outcome.as_str(),
                    "invalid_input" | "unknown_tool" | "denied" | "not_run"
                )
        }) {
            continue;
        }
        let searched = calls.iter().any(|c| c.name == SEARCH_TOOL);
        let found = analysis.discovered.iter().any(|n| tool_matches(n, wanted));
        let (class, detail) = if (searched || deferred) && !found {
            (
                FailureClass::MissedDiscovery,
                format!("never found {wanted}: no tool search returned it"),
            )
        } else {
            (
                FailureClass::WrongTool,
                format!("never ran {wanted} (called: {})", names(calls)),
            )
        };
        out.push((
            Failure {
                class,
                detail,
                call_id: None,
            },
            false,
        ));
    }
    match analysis.run_status.as_deref() {
        Some("max_turns") | Some("max_tokens") | Some("refusal") => out.push((
            Failure {
                class: FailureClass::GaveUp,
                detail: format!(
                    "the run ended with {}",
                    analysis.run_status.as_deref().unwrap_or("")
                ),
                call_id: None,
            },
            false,
        )),
        _ => {}
    }
    out
}

fn names(calls: &[Call]) -> String {
    if calls.is_empty() {
        return "nothing".into();
    }
    let mut names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    names.dedup();
    names.join(", ")
}

/// JSON with keys sorted, so two inputs that differ only in order are equal.
fn canonical(value: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let sorted: BTreeMap<&String, Value> =
                    map.iter().map(|(k, v)| (k, sort(v))).collect();
                serde_json::to_value(sorted).unwrap_or(Value::Null)
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

fn compact(value: &Value) -> String {
    cut(&value.to_string(), 120)
}

fn first_line(text: &str) -> String {
    cut(text.lines().next().unwrap_or(""), 200)
}

/// At most `max` bytes of `text`, cut at a character boundary, with `…`.
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn str_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;

    fn suite() -> Suite {
        Suite::parse(
            r#"
name = "s"
side_effects = ["save_*"]
[[variant]]
name = "v"
interface = "mcp"
[[task]]
id = "t"
prompt = "p"
tools = ["get_quote"]
forbid_tools = ["Bash"]
"#,
            Path::new("s.toml"),
        )
        .unwrap()
    }

    fn result(id: &str, name: &str, outcome: &str, text: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "name": name, "outcome": outcome,
               "is_error": outcome != "ok", "content": [{"type": "text", "text": text}], "duration_ms": 3})
    }

    fn assistant(calls: &[(&str, &str, Value)]) -> Value {
        let content: Vec<Value> = calls
            .iter()
            .map(|(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}))
            .collect();
        json!({"type": "message", "message": {"role": "assistant", "content": content}})
    }

    #[test]
    fn calls_turns_tokens_and_the_answer_come_from_the_transcript() {
        let events = vec![
            json!({"type": "message", "message": {"role": "user", "content": "p"}}),
            assistant(&[("t1", "mcp__m__get_quote", json!({"ticker": "X"}))]),
            json!({"type": "turn_end", "turn": 1, "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 10}}),
            result(
                "t1",
                "mcp__m__get_quote",
                "invalid_input",
                "unknown ticker X",
            ),
            assistant(&[("t2", "mcp__m__get_quote", json!({"ticker": "AAPL"}))]),
            json!({"type": "turn_end", "turn": 2, "stop_reason": "tool_use", "usage": {"input_tokens": 120, "output_tokens": 10}}),
            result("t2", "mcp__m__get_quote", "ok", "231"),
            json!({"type": "result", "text": "AAPL is at $231", "status": "completed",
                   "usage": {"input_tokens": 220, "cache_read_input_tokens": 50, "output_tokens": 20}}),
        ];
        let a = analyze(&events);
        assert_eq!(a.calls.len(), 2);
        assert_eq!((a.calls[0].turn, a.calls[1].turn), (1, 2));
        assert_eq!(a.calls[1].input, json!({"ticker": "AAPL"}));
        assert_eq!(a.turns, 2);
        assert_eq!(a.answer, "AAPL is at $231");
        assert_eq!(
            (
                a.tokens.input_uncached,
                a.tokens.input_cached,
                a.tokens.output
            ),
            (220, 50, 20)
        );
        assert_eq!(a.conversations.len(), 2);
        assert_eq!(a.conversations[1].len(), 2);
        let observed = observe(&a, &suite(), &suite().tasks[0], false);
        assert_eq!(observed.len(), 1);
        assert_eq!(observed[0].0.class, FailureClass::InvalidArguments);
        assert!(observed[0].1, "the retry made up for it");
    }

    #[test]
    fn forbidden_missing_and_repeated_calls_are_observed() {
        let events = vec![
            assistant(&[
                ("t1", "Bash", json!({"command": "ls"})),
                ("t2", "mcp__m__save_report", json!({"a": 1, "b": 2})),
                ("t3", "mcp__m__save_report", json!({"b": 2, "a": 1})),
            ]),
            result("t1", "Bash", "ok", ""),
            result("t2", "mcp__m__save_report", "ok", ""),
            result("t3", "mcp__m__save_report", "ok", ""),
        ];
        let a = analyze(&events);
        let classes: Vec<FailureClass> = observe(&a, &suite(), &suite().tasks[0], false)
            .into_iter()
            .map(|(f, _)| f.class)
            .collect();
        assert_eq!(
            classes,
            [
                FailureClass::WrongTool,
                FailureClass::RepeatedSideEffect,
                FailureClass::WrongTool
            ]
        );
    }
}
