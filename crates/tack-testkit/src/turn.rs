//! The last user turn of a request, read the same way for both APIs: used by
//! the echo fallback and by step expectations.

use serde_json::Value;

use crate::step::{Api, Expect};

/// What the user said last: its text and the tool results it carries.
#[derive(Debug, Default)]
pub(crate) struct LastTurn {
    pub(crate) text: String,
    /// `(tool call id, result text)`.
    pub(crate) tool_results: Vec<(String, String)>,
}

fn text_parts(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| {
                matches!(
                    p.get("type").and_then(Value::as_str),
                    Some("text" | "input_text" | "output_text")
                )
            })
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn messages(body: &Value) -> &[Value] {
    body.get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

/// Read the last user turn of a request body.
pub(crate) fn last_turn(api: Api, body: &Value) -> LastTurn {
    let messages = messages(body);
    let mut turn = LastTurn::default();
    match api {
        Api::Anthropic => {
            let Some(last_user) = messages.iter().rev().find(|m| role(m) == "user") else {
                return turn;
            };
            match last_user.get("content") {
                Some(Value::Array(blocks)) => {
                    let mut texts = Vec::new();
                    for block in blocks {
                        match block.get("type").and_then(Value::as_str) {
                            Some("text") => {
                                texts.push(block.get("text").and_then(Value::as_str).unwrap_or(""));
                            }
                            Some("tool_result") => turn.tool_results.push((
                                block
                                    .get("tool_use_id")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_owned(),
                                block.get("content").map(text_parts).unwrap_or_default(),
                            )),
                            _ => {}
                        }
                    }
                    turn.text = texts.join("\n");
                }
                Some(content) => turn.text = text_parts(content),
                None => {}
            }
        }
        Api::OpenAi => {
            let trailing_tools = messages
                .iter()
                .rev()
                .take_while(|m| role(m) == "tool")
                .collect::<Vec<_>>();
            turn.tool_results = trailing_tools
                .into_iter()
                .rev()
                .map(|m| {
                    (
                        m.get("tool_call_id")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        m.get("content").map(text_parts).unwrap_or_default(),
                    )
                })
                .collect();
            if let Some(last_user) = messages.iter().rev().find(|m| role(m) == "user") {
                turn.text = last_user.get("content").map(text_parts).unwrap_or_default();
            }
        }
        Api::Responses => {
            let items = body
                .get("input")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            if let Some(Value::String(text)) = body.get("input") {
                turn.text = text.clone();
            }
            turn.tool_results = items
                .iter()
                .rev()
                .take_while(|i| i.get("type").and_then(Value::as_str) != Some("message"))
                .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call_output"))
                .map(|i| {
                    (
                        i.get("call_id")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        i.get("output").map(text_parts).unwrap_or_default(),
                    )
                })
                .collect();
            turn.tool_results.reverse();
            if let Some(last_user) = items.iter().rev().find(|i| role(i) == "user") {
                turn.text = last_user.get("content").map(text_parts).unwrap_or_default();
            }
        }
    }
    turn
}

/// The echo fallback's reply text.
pub(crate) fn echo(turn: &LastTurn) -> String {
    if turn.tool_results.is_empty() {
        format!("You said: {}", turn.text)
    } else {
        format!("Tool results received: {}", turn.tool_results.len())
    }
}

/// Check a step's expectation; the error says what did not hold.
pub(crate) fn check(
    expect: &Expect,
    api: Api,
    stream: bool,
    turn: &LastTurn,
) -> std::result::Result<(), String> {
    if let Some(want) = expect.api
        && want != api
    {
        return Err(format!(
            "expected a request to the {want:?} API, got {api:?}"
        ));
    }
    if let Some(want) = expect.stream
        && want != stream
    {
        return Err(format!("expected stream={want}, got stream={stream}"));
    }
    if let Some(needle) = &expect.last_user_contains {
        let results = turn.tool_results.iter().map(|(_, t)| t.as_str());
        let haystack: Vec<&str> = std::iter::once(turn.text.as_str()).chain(results).collect();
        if !haystack.iter().any(|h| h.contains(needle.as_str())) {
            return Err(format!(
                "expected the last user turn to contain {needle:?}, got {:?}",
                haystack.join("\n")
            ));
        }
    }
    for id in &expect.tool_results_for {
        if !turn.tool_results.iter().any(|(have, _)| have == id) {
            return Err(format!(
                "expected a tool result for {id:?} in the last user turn"
            ));
        }
    }
    Ok(())
}
