//! Prompt-cache breakpoints on a Messages API request body.
//!
//! The API caches the prefix of a request (tools → system → messages) up to
//! each block that carries `cache_control: {"type": "ephemeral"}`, at most 4
//! such blocks a request, and a later request reads the longest prefix an
//! earlier one wrote, looking back up to 20 blocks from each of its own
//! breakpoints. [`mark_breakpoints`] places, in this order of priority:
//!
//! 1. the last block of the newest user message, so the whole conversation
//!    so far is written and the next request reads it (a trailing assistant
//!    message, as a `pause_turn` continuation sends, is left as it came);
//! 2. the end of the static prefix: the system prompt when there is one
//!    (a string system is sent as one text block for it), else the last tool;
//! 3. the last block of the user message before the newest assistant turn:
//!    where the previous request's newest-message breakpoint was, so a turn
//!    that adds more than 20 blocks (a wide parallel batch) still hits;
//! 4. the last tool when a system prompt took 2, so a system prompt that
//!    changes (another session, another date) still reads the tools.
//!
//! Breakpoints already in the body count against the 4 and are kept. None
//! goes on a thinking block, an empty text block or a `defer_loading` tool
//! (the API refuses those). The markers are added to the JSON body only: the
//! conversation tack keeps has none, so moving them never changes the
//! prefix the cache compares (the API leaves `cache_control` out of it).

use serde_json::{Map, Value, json};

/// The most blocks with `cache_control` one request may carry.
pub const MAX_BREAKPOINTS: usize = 4;

fn marker() -> Value {
    json!({"type": "ephemeral"})
}

fn has_marker(block: &Value) -> bool {
    block.get("cache_control").is_some_and(|m| !m.is_null())
}

/// Whether the API accepts `cache_control` on this content block.
pub(crate) fn may_carry(block: &Value) -> bool {
    match block.get("type").and_then(Value::as_str) {
        Some("thinking" | "redacted_thinking") | None => false,
        Some("text") => block
            .get("text")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.trim().is_empty()),
        Some(_) => block.is_object(),
    }
}

fn count_markers(body: &Map<String, Value>) -> usize {
    let in_list = |v: Option<&Value>| match v {
        Some(Value::Array(items)) => items.iter().filter(|b| has_marker(b)).count(),
        _ => 0,
    };
    let messages = match body.get("messages") {
        Some(Value::Array(messages)) => messages.iter().map(|m| in_list(m.get("content"))).sum(),
        _ => 0,
    };
    in_list(body.get("tools"))
        + in_list(body.get("system"))
        + messages
        + usize::from(body.get("cache_control").is_some_and(|m| !m.is_null()))
}

/// Mark the last block of a list that may carry a marker. Returns whether a
/// marker was added (false when none may, or the block has one already).
fn mark_last(blocks: &mut [Value], eligible: impl Fn(&Value) -> bool) -> bool {
    match blocks.iter_mut().rev().find(|b| eligible(b)) {
        Some(block) if !has_marker(block) => {
            if let Value::Object(map) = block {
                map.insert("cache_control".into(), marker());
                return true;
            }
            false
        }
        _ => false,
    }
}

fn mark_tools(body: &mut Map<String, Value>) -> bool {
    match body.get_mut("tools") {
        Some(Value::Array(tools)) => mark_last(tools, |t| {
            t.is_object() && t.get("defer_loading") != Some(&Value::Bool(true))
        }),
        _ => false,
    }
}

fn mark_system(body: &mut Map<String, Value>) -> bool {
    let Some(system) = body.get_mut("system") else {
        return false;
    };
    if let Value::String(text) = system {
        if text.trim().is_empty() {
            return false;
        }
        *system = json!([{"type": "text", "text": std::mem::take(text)}]);
    }
    match system {
        Value::Array(blocks) => mark_last(blocks, may_carry),
        _ => false,
    }
}

fn mark_message(body: &mut Map<String, Value>, index: usize) -> bool {
    let Some(Value::Array(messages)) = body.get_mut("messages") else {
        return false;
    };
    let Some(content) = messages.get_mut(index).and_then(|m| m.get_mut("content")) else {
        return false;
    };
    if let Value::String(text) = content {
        if text.trim().is_empty() {
            return false;
        }
        *content = json!([{"type": "text", "text": std::mem::take(text)}]);
    }
    match content {
        Value::Array(blocks) => mark_last(blocks, may_carry),
        _ => false,
    }
}

/// The newest user message and the user message before the assistant turn
/// that precedes it. A trailing assistant message (a `pause_turn`
/// continuation, a prefill) is sent back exactly as it came: not marked.
fn conversation_points(body: &Map<String, Value>) -> (Option<usize>, Option<usize>) {
    let Some(Value::Array(messages)) = body.get("messages") else {
        return (None, None);
    };
    let role = |m: &Value| m.get("role").and_then(Value::as_str).map(str::to_owned);
    let last = messages
        .iter()
        .rposition(|m| role(m).as_deref() == Some("user"));
    let previous = last.and_then(|last| {
        let assistant = messages[..last]
            .iter()
            .rposition(|m| role(m).as_deref() == Some("assistant"))?;
        messages[..assistant]
            .iter()
            .rposition(|m| role(m).as_deref() == Some("user"))
    });
    (last, previous)
}

/// Add prompt-cache breakpoints to a Messages request body (see the module
/// docs for where). Returns how many were added.
pub fn mark_breakpoints(body: &mut Map<String, Value>) -> usize {
    let mut free = MAX_BREAKPOINTS.saturating_sub(count_markers(body));
    let (last, previous) = conversation_points(body);
    let has_system = body
        .get("system")
        .is_some_and(|s| !matches!(s, Value::Null));
    let mut added = 0;
    let mut place = |body: &mut Map<String, Value>, f: &dyn Fn(&mut Map<String, Value>) -> bool| {
        if free > 0 && f(body) {
            free -= 1;
            added += 1;
        }
    };
    if let Some(last) = last {
        place(body, &|b| mark_message(b, last));
    }
    if has_system {
        place(body, &mark_system);
    } else {
        place(body, &mark_tools);
    }
    if let Some(previous) = previous {
        place(body, &|b| mark_message(b, previous));
    }
    if has_system {
        place(body, &mark_tools);
    }
    added
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::{count_markers, mark_breakpoints};

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn marked(v: &Value) -> bool {
        v.get("cache_control") == Some(&json!({"type": "ephemeral"}))
    }

    fn conversation() -> Value {
        json!({
            "model": "m", "max_tokens": 5,
            "tools": [{"name": "A", "input_schema": {"type": "object"}},
                      {"name": "B", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "A", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "tool_use", "id": "t2", "name": "A", "input": {}},
                    {"type": "tool_use", "id": "t3", "name": "B", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t2", "content": "y"},
                    {"type": "tool_result", "tool_use_id": "t3", "content": "z"}]}
            ]
        })
    }

    #[test]
    fn without_system_the_last_tool_and_the_last_two_user_turns() {
        let mut body = obj(conversation());
        assert_eq!(mark_breakpoints(&mut body), 3);
        let b = Value::Object(body);
        assert!(marked(&b["tools"][1]) && !marked(&b["tools"][0]));
        assert!(marked(&b["messages"][4]["content"][1]));
        assert!(!marked(&b["messages"][4]["content"][0]));
        assert!(marked(&b["messages"][2]["content"][0]));
        assert!(!marked(&b["messages"][0]["content"][0]));
        assert!(b.get("system").is_none());
    }

    #[test]
    fn a_string_system_becomes_one_marked_block_and_the_tools_keep_one() {
        let mut v = conversation();
        v["system"] = json!("Be brief.");
        let mut body = obj(v);
        assert_eq!(mark_breakpoints(&mut body), 4);
        let b = Value::Object(body);
        assert_eq!(
            b["system"],
            json!([{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}])
        );
        assert!(marked(&b["tools"][1]));
        assert_eq!(count_markers(b.as_object().unwrap()), 4);
    }

    #[test]
    fn never_on_thinking_empty_text_or_deferred_tools() {
        let mut body = obj(json!({
            "model": "m", "max_tokens": 5,
            "tools": [{"name": "A", "input_schema": {"type": "object"}},
                      {"name": "B", "input_schema": {"type": "object"}, "defer_loading": true}],
            "system": "",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "ok"},
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "text", "text": ""}]}
            ]
        }));
        mark_breakpoints(&mut body);
        let b = Value::Object(body);
        // The trailing assistant turn goes back untouched; the user turn is marked.
        assert!(marked(&b["messages"][0]["content"][0]));
        for j in 0..3 {
            assert!(!marked(&b["messages"][1]["content"][j]));
        }
        assert_eq!(b["system"], "", "an empty system is left alone");
        assert!(marked(&b["tools"][0]) && !marked(&b["tools"][1]));
    }

    #[test]
    fn markers_already_there_count_against_the_four() {
        let mut v = conversation();
        v["system"] = json!("S");
        for i in [0, 1, 3] {
            v["messages"][i]["content"][0]["cache_control"] = json!({"type": "ephemeral"});
        }
        // The thinking block at messages.3.content.0 was marked by the caller:
        // counted, not moved (the API will say what it thinks of it).
        let mut body = obj(v);
        assert_eq!(mark_breakpoints(&mut body), 1);
        let b = Value::Object(body);
        assert!(
            marked(&b["messages"][4]["content"][1]),
            "the newest turn first"
        );
        assert_eq!(count_markers(b.as_object().unwrap()), 4);
    }

    #[test]
    fn a_first_request_marks_its_only_message() {
        let mut body = obj(json!({
            "model": "m", "max_tokens": 5,
            "messages": [{"role": "user", "content": "hi"}]
        }));
        assert_eq!(mark_breakpoints(&mut body), 1);
        assert_eq!(
            Value::Object(body)["messages"][0]["content"],
            json!([{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}])
        );
    }
}
