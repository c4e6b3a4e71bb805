//! Cassettes: a run's model responses, recorded, with what the harness sent
//! for each, so the run can be replayed without a model and a harness that
//! sends something else is caught.
//!
//! One file per run, `<cassettes>/<task>/<variant>/<repeat>.json`:
//!
//! ```json
//! {"tack_cassette": 1, "task": "snapshot", "variant": "mcp", "repeat": 0,
//!  "provider": "anthropic", "model": "claude-sonnet-4-5", "source": "live",
//!  "recorded_with": "tack 0.1.0",
//!  "tools": ["Read", "mcp__market__get_stock_snapshot"],
//!  "exchanges": [
//!    {"sent": ["user: What is AAPL trading at?"],
//!     "response": {"reply": {"content": [...], "stop_reason": "tool_use"}, "usage": {...}}},
//!    {"sent": ["result toolu_1: {\"price\": 231.5}"], "response": {...}}]}
//! ```
//!
//! `response` is a mock step (tack-testkit's script format), served again as
//! the provider's wire format, streamed or not, whichever the request asks.
//! `sent` is what the harness added to the conversation since the model's
//! last answer (the prompt, tool results, hook and reminder text), one line
//! per block, normalised; replay compares it, and a difference is a
//! divergence of the harness, reported as such. The system prompt and the
//! tool definitions are not compared (a reworded description is not a new
//! behaviour); `tools` names the tools sent, and a change there is noted.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_testkit::Step;

use crate::{Error, Result};

/// The cassette format's version.
pub const CASSETTE_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cassette {
    pub tack_cassette: u32,
    pub task: String,
    pub variant: String,
    pub repeat: u32,
    pub provider: String,
    pub model: String,
    /// `live` (a real model) or `script` (written by a person as mock steps).
    pub source: String,
    pub recorded_with: String,
    /// The tools sent with the first request.
    #[serde(default)]
    pub tools: Vec<String>,
    pub exchanges: Vec<Exchange>,
}

/// One model request and its response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// What the harness added since the model last answered (see the module doc).
    pub sent: Vec<String>,
    pub response: Step,
}

impl Cassette {
    /// Where the cassette of a run lives.
    pub fn path(dir: &Path, task: &str, variant: &str, repeat: u32) -> PathBuf {
        dir.join(task).join(variant).join(format!("{repeat}.json"))
    }

    /// Reads a cassette; for a repeat with none of its own, the highest
    /// recorded repeat below it (a suite run with more repeats than were
    /// recorded replays what there is).
    pub fn load(dir: &Path, task: &str, variant: &str, repeat: u32) -> Result<(Cassette, PathBuf)> {
        for r in (0..=repeat).rev() {
            let path = Cassette::path(dir, task, variant, r);
            if path.exists() {
                let text = std::fs::read_to_string(&path).map_err(|e| Error::Io {
                    path: path.clone(),
                    source: e,
                })?;
                let cassette: Cassette =
                    serde_json::from_str(&text).map_err(|e| Error::Cassette {
                        path: path.clone(),
                        message: e.to_string(),
                    })?;
                if cassette.tack_cassette != CASSETTE_VERSION {
                    return Err(Error::Cassette {
                        path,
                        message: format!(
                            "format version {} (this tack reads {CASSETTE_VERSION}); record it again",
                            cassette.tack_cassette
                        ),
                    });
                }
                return Ok((cassette, path));
            }
        }
        Err(Error::NoCassette {
            path: Cassette::path(dir, task, variant, repeat),
        })
    }

    /// Writes the cassette (pretty JSON, for review in a diff).
    pub fn save(&self, dir: &Path) -> Result<PathBuf> {
        let path = Cassette::path(dir, &self.task, &self.variant, self.repeat);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::Io {
                path: parent.to_owned(),
                source: e,
            })?;
        }
        let mut text = serde_json::to_string_pretty(self).map_err(|e| Error::Cassette {
            path: path.clone(),
            message: e.to_string(),
        })?;
        text.push('\n');
        std::fs::write(&path, text).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
        Ok(path)
    }
}

/// Turns volatile text into stable text before a comparison: the run's
/// scratch directory becomes `$SCRATCH`, then the suite's replacements.
#[derive(Debug, Clone, Default)]
pub struct Normalizer {
    scratch: Vec<String>,
    rules: Vec<(Regex, String)>,
}

impl Normalizer {
    pub fn new(scratch: &[PathBuf], rules: &[(Regex, String)]) -> Normalizer {
        let mut scratch: Vec<String> = scratch
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .collect();
        // The longest first, so a directory inside another is replaced whole.
        scratch.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Normalizer {
            scratch,
            rules: rules.to_vec(),
        }
    }

    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for dir in &self.scratch {
            out = out.replace(dir.as_str(), "$SCRATCH");
        }
        for (re, with) in &self.rules {
            out = re.replace_all(&out, with.as_str()).into_owned();
        }
        out
    }
}

/// What a request adds after the model's last answer, one line per block,
/// from a request body of either wire format (Messages or Chat Completions).
pub fn sent_since_last_answer(body: &Value, normalizer: &Normalizer) -> Vec<String> {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    trailing_lines(messages, normalizer)
}

/// The same lines from a conversation as a transcript holds it (the
/// Messages shape): the messages after the last assistant message.
pub fn trailing_lines(messages: &[Value], normalizer: &Normalizer) -> Vec<String> {
    let start = messages
        .iter()
        .rposition(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .map_or(0, |i| i + 1);
    let mut lines = Vec::new();
    for message in &messages[start..] {
        message_lines(message, &mut lines);
    }
    lines.iter().map(|l| normalizer.apply(l)).collect()
}

fn message_lines(message: &Value, out: &mut Vec<String>) {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("");
    match (role, message.get("content")) {
        // The system prompt is not compared (it holds the date, and a
        // reworded prompt is not a new behaviour).
        ("system" | "developer", _) => {}
        // Chat Completions: a tool message carries one result.
        ("tool", content) => {
            let id = message
                .get("tool_call_id")
                .and_then(Value::as_str)
                .unwrap_or("");
            // Chat Completions has no error flag: tack marks an error
            // result's text with "Error: " (tack-model's encoding); the line
            // is the one a transcript's is_error block gives.
            let text = text_of(content);
            match text.strip_prefix("Error: ") {
                Some(rest) => out.push(format!("result {id} (error): {rest}")),
                None => out.push(format!("result {id}: {text}")),
            }
        }
        (_, Some(Value::String(text))) => out.push(format!("{role}: {text}")),
        (_, Some(Value::Array(blocks))) => {
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => out.push(format!(
                        "{role}: {}",
                        block.get("text").and_then(Value::as_str).unwrap_or("")
                    )),
                    Some("tool_result") => {
                        let id = block
                            .get("tool_use_id")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        let error = if block.get("is_error") == Some(&Value::Bool(true)) {
                            " (error)"
                        } else {
                            ""
                        };
                        out.push(format!(
                            "result {id}{error}: {}",
                            text_of(block.get("content"))
                        ));
                    }
                    Some("image") | Some("image_url") => out.push(format!("{role}: [image]")),
                    Some(other) => out.push(format!("{role}: [{other}]")),
                    None => {}
                }
            }
        }
        _ => {}
    }
}

/// The text of a result's content: a string, or its text blocks joined
/// (a `tool_reference` block by the tool it names).
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => b
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                Some("tool_reference") => format!(
                    "[tool_reference {}]",
                    b.get("tool_name").and_then(Value::as_str).unwrap_or("")
                ),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The names of the tools a request sends, in order, in either wire format.
pub fn tool_names(body: &Value) -> Vec<String> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    t.get("name")
                        .or_else(|| t.pointer("/function/name"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Where `sent` (what the harness sends now) first differs from what the
/// cassette holds, for a person: None when they agree.
pub fn compare(expected: &[String], sent: &[String]) -> Option<String> {
    let n = expected.len().max(sent.len());
    for i in 0..n {
        match (expected.get(i), sent.get(i)) {
            (Some(a), Some(b)) if a == b => continue,
            (Some(a), Some(b)) => {
                return Some(format!(
                    "block {i} differs: the cassette has {} but the harness sent {}",
                    excerpt(a),
                    excerpt(b)
                ));
            }
            (Some(a), None) => {
                return Some(format!(
                    "the harness sent {} blocks, the cassette has {}; missing: {}",
                    sent.len(),
                    expected.len(),
                    excerpt(a)
                ));
            }
            (None, Some(b)) => {
                return Some(format!(
                    "the harness sent {} blocks, the cassette has {}; extra: {}",
                    sent.len(),
                    expected.len(),
                    excerpt(b)
                ));
            }
            (None, None) => break,
        }
    }
    None
}

fn excerpt(s: &str) -> String {
    const MAX: usize = 200;
    if s.len() <= MAX {
        return format!("{s:?}");
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_wire_formats_give_the_same_lines() {
        let norm = Normalizer::new(&[PathBuf::from("/tmp/run1")], &[]);
        let anthropic = json!({"messages": [
            {"role": "user", "content": "price of AAPL?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "q", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "231 in /tmp/run1/x"}]}]}
        ]});
        let openai = json!({"messages": [
            {"role": "user", "content": "price of AAPL?"},
            {"role": "assistant", "tool_calls": [{"id": "t1"}]},
            {"role": "tool", "tool_call_id": "t1", "content": "231 in /tmp/run1/x"}
        ]});
        let a = sent_since_last_answer(&anthropic, &norm);
        assert_eq!(a, ["result t1: 231 in $SCRATCH/x"]);
        assert_eq!(sent_since_last_answer(&openai, &norm), a);
        let first = json!({"messages": [{"role": "user", "content": "price of AAPL?"}]});
        assert_eq!(
            sent_since_last_answer(&first, &norm),
            ["user: price of AAPL?"]
        );
    }

    #[test]
    fn a_difference_is_described() {
        let a = vec!["result t1: 231".to_owned()];
        assert!(compare(&a, &a).is_none());
        let b = vec!["result t1: 0".to_owned()];
        let why = compare(&a, &b).unwrap();
        assert!(why.contains("\"result t1: 231\"") && why.contains("\"result t1: 0\""));
        assert!(compare(&a, &[]).unwrap().contains("missing"));
    }

    #[test]
    fn a_cassette_round_trips_and_a_missing_repeat_falls_back() {
        let dir = tempfile::tempdir().unwrap();
        let cassette = Cassette {
            tack_cassette: CASSETTE_VERSION,
            task: "t".into(),
            variant: "v".into(),
            repeat: 0,
            provider: "anthropic".into(),
            model: "m".into(),
            source: "script".into(),
            recorded_with: "tack".into(),
            tools: vec!["Read".into()],
            exchanges: vec![Exchange {
                sent: vec!["user: hi".into()],
                response: Step::text("hello"),
            }],
        };
        cassette.save(dir.path()).unwrap();
        let (back, _) = Cassette::load(dir.path(), "t", "v", 2).unwrap();
        assert_eq!(back, cassette);
        assert!(matches!(
            Cassette::load(dir.path(), "t", "w", 0),
            Err(Error::NoCassette { .. })
        ));
    }
}
