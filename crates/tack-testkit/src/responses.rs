//! Rendering a step as an OpenAI Responses API response (`POST /v1/responses`,
//! JSON or SSE), the API Codex CLI speaks.
//!
//! A tool call whose name is `<namespace>__<tool>`, where the request offered
//! a `namespace` tool holding a function `<tool>`, is rendered as a call of
//! that function in that namespace (`"name": "<tool>", "namespace": "…"`), the
//! way the API answers a model calling a namespaced tool (Codex offers each
//! MCP server's tools as the namespace `mcp__<server>`).

use serde_json::{Value, json};
use tack_protocol::{StopReason, Usage};

use crate::render::{Reply, split_pieces, text_of, tool_uses};

/// The functions of the request's `namespace` tools: `(namespace, function)`.
pub(crate) fn namespaced_functions(body: &Value) -> Vec<(String, String)> {
    let Some(tools) = body.get("tools").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for tool in tools {
        if tool.get("type").and_then(Value::as_str) != Some("namespace") {
            continue;
        }
        let Some(ns) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        for inner in tool
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = inner.get("name").and_then(Value::as_str) {
                out.push((ns.to_owned(), name.to_owned()));
            }
        }
    }
    out
}

fn usage_json(usage: &Usage) -> Value {
    let input =
        usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": usage.cache_read_input_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input + usage.output_tokens,
    })
}

/// One output item of the reply, before and after its content is streamed.
enum Item {
    Message { id: String, text: String },
    Call { item: Value, arguments: String },
}

impl Item {
    fn done(&self) -> Value {
        match self {
            Item::Message { id, text } => json!({
                "type": "message",
                "id": id,
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }),
            Item::Call { item, arguments } => {
                let mut item = item.clone();
                item["arguments"] = Value::String(arguments.clone());
                item["status"] = Value::String("completed".into());
                item
            }
        }
    }

    fn added(&self) -> Value {
        match self {
            Item::Message { id, .. } => json!({
                "type": "message",
                "id": id,
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }),
            Item::Call { item, .. } => {
                let mut item = item.clone();
                item["arguments"] = Value::String(String::new());
                item["status"] = Value::String("in_progress".into());
                item
            }
        }
    }
}

fn items(reply: &Reply<'_>, namespaces: &[(String, String)]) -> Vec<Item> {
    let mut out = Vec::new();
    let text = text_of(reply.content);
    if !text.is_empty() {
        out.push(Item::Message {
            id: format!("msg_{}", reply.id),
            text,
        });
    }
    for (i, tool) in tool_uses(reply.content).enumerate() {
        let arguments = reply
            .raw_tool_arguments
            .get(&tool.id)
            .cloned()
            .unwrap_or_else(|| tool.input.to_string());
        let mut item = json!({
            "type": "function_call",
            "id": format!("fc_{}_{i}", reply.id),
            "call_id": tool.id,
            "name": tool.name,
        });
        if let Some((ns, name)) = namespaces
            .iter()
            .find(|(ns, name)| tool.name == format!("{ns}__{name}"))
        {
            item["name"] = Value::String(name.clone());
            item["namespace"] = Value::String(ns.clone());
        }
        out.push(Item::Call { item, arguments });
    }
    out
}

fn status(stop: &StopReason) -> (&'static str, Value) {
    match stop {
        StopReason::MaxTokens | StopReason::ModelContextWindowExceeded => {
            ("incomplete", json!({"reason": "max_output_tokens"}))
        }
        StopReason::Refusal => ("incomplete", json!({"reason": "content_filter"})),
        _ => ("completed", Value::Null),
    }
}

fn response_json(
    reply: &Reply<'_>,
    created: u64,
    output: Vec<Value>,
    status: &str,
    incomplete: Value,
    usage: Value,
) -> Value {
    json!({
        "id": reply.id,
        "object": "response",
        "created_at": created,
        "status": status,
        "error": null,
        "incomplete_details": incomplete,
        "model": reply.model,
        "output": output,
        "parallel_tool_calls": true,
        "usage": usage,
    })
}

/// The non-streamed `response` body.
pub(crate) fn response_body(
    reply: &Reply<'_>,
    created: u64,
    namespaces: &[(String, String)],
) -> Value {
    let output = items(reply, namespaces).iter().map(Item::done).collect();
    let (status, incomplete) = status(reply.stop_reason);
    response_json(
        reply,
        created,
        output,
        status,
        incomplete,
        usage_json(reply.usage),
    )
}

/// The events of a streamed reply: `response.created`, per item
/// `output_item.added`, its text or argument deltas in 2+ pieces and their
/// `done` events, `output_item.done`, then `response.completed` (or
/// `response.incomplete`). Each carries a growing `sequence_number`.
pub(crate) fn stream_events(
    reply: &Reply<'_>,
    created: u64,
    namespaces: &[(String, String)],
) -> Vec<String> {
    let mut seq = 0u64;
    let mut out = Vec::new();
    let mut event = |kind: &str, mut data: Value| {
        data["type"] = Value::String(kind.to_owned());
        data["sequence_number"] = json!(seq);
        seq += 1;
        out.push(format!("event: {kind}\ndata: {data}\n\n"));
    };
    let items = items(reply, namespaces);
    let pending = response_json(
        reply,
        created,
        Vec::new(),
        "in_progress",
        Value::Null,
        Value::Null,
    );
    event("response.created", json!({"response": pending}));
    event("response.in_progress", json!({"response": pending}));
    for (index, item) in items.iter().enumerate() {
        event(
            "response.output_item.added",
            json!({"output_index": index, "item": item.added()}),
        );
        match item {
            Item::Message { id, text } => {
                let part = json!({"type": "output_text", "text": "", "annotations": []});
                let at = json!({"item_id": id, "output_index": index, "content_index": 0});
                let with = |mut base: Value, key: &str, value: Value| {
                    base[key] = value;
                    base
                };
                event(
                    "response.content_part.added",
                    with(at.clone(), "part", part),
                );
                for piece in split_pieces(text, 2, 24) {
                    event(
                        "response.output_text.delta",
                        with(at.clone(), "delta", Value::String(piece)),
                    );
                }
                event(
                    "response.output_text.done",
                    with(at.clone(), "text", Value::String(text.clone())),
                );
                event(
                    "response.content_part.done",
                    with(
                        at,
                        "part",
                        json!({"type": "output_text", "text": text, "annotations": []}),
                    ),
                );
            }
            Item::Call { item, arguments } => {
                let id = item.get("id").cloned().unwrap_or(Value::Null);
                for piece in split_pieces(arguments, 2, 12) {
                    event(
                        "response.function_call_arguments.delta",
                        json!({"item_id": id, "output_index": index, "delta": piece}),
                    );
                }
                event(
                    "response.function_call_arguments.done",
                    json!({"item_id": id, "output_index": index, "arguments": arguments}),
                );
            }
        }
        event(
            "response.output_item.done",
            json!({"output_index": index, "item": item.done()}),
        );
    }
    let (status, incomplete) = status(reply.stop_reason);
    let done = response_json(
        reply,
        created,
        items.iter().map(Item::done).collect(),
        status,
        incomplete,
        usage_json(reply.usage),
    );
    let kind = if status == "completed" {
        "response.completed"
    } else {
        "response.incomplete"
    };
    event(kind, json!({"response": done}));
    out
}

/// The `error` event of a stream failing after HTTP 200.
pub(crate) fn stream_error_event(error_type: &str, message: &str) -> String {
    let data = json!({"type": "error", "code": error_type, "message": message, "param": null});
    format!("event: error\ndata: {data}\n\n")
}
