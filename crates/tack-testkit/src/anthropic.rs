//! Rendering a step as an Anthropic Messages API response (JSON or SSE).

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tack_protocol::{ContentBlock, Usage};

use crate::cache::CacheUsage;
use crate::render::{Reply, split_pieces};

fn usage_json(usage: &Usage, split: Option<CacheUsage>, output_tokens: u64) -> Value {
    let mut value = json!({
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": output_tokens,
    });
    if let Some(split) = split {
        value["cache_creation"] = json!({
            "ephemeral_5m_input_tokens": split.ephemeral_5m_input_tokens,
            "ephemeral_1h_input_tokens": split.ephemeral_1h_input_tokens,
        });
    }
    value
}

/// The non-streamed `Message` body.
pub(crate) fn message_json(reply: &Reply<'_>) -> Value {
    json!({
        "id": reply.id,
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": reply.content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": null,
        "usage": usage_json(reply.usage, reply.cache_split, reply.usage.output_tokens),
    })
}

/// The error body: `{"type":"error","error":{"type":..,"message":..},"request_id":..}`.
pub(crate) fn error_json(error_type: &str, message: &str, request_id: &str) -> Value {
    json!({
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    })
}

/// One server-sent event.
pub(crate) fn sse(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// The `event: error` of a stream failing after HTTP 200.
pub(crate) fn stream_error_event(error_type: &str, message: &str) -> String {
    sse(
        "error",
        &json!({"type": "error", "error": {"type": error_type, "message": message}}),
    )
}

/// The events of a streamed reply, in order, the final `message_stop` apart
/// so a cut stream can leave it out.
///
/// Order: `message_start`, then per block `content_block_start`, deltas,
/// `content_block_stop` (a `ping` right after the first start), an unknown
/// `future_event`, `message_delta`, and `message_stop`.
pub(crate) fn stream_events(reply: &Reply<'_>) -> (Vec<String>, String) {
    let mut events = Vec::new();
    events.push(sse(
        "message_start",
        &json!({
            "type": "message_start",
            "message": {
                "id": reply.id,
                "type": "message",
                "role": "assistant",
                "model": reply.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage_json(reply.usage, reply.cache_split, 1),
            }
        }),
    ));
    let ping = sse("ping", &json!({"type": "ping"}));
    if reply.content.is_empty() {
        events.push(ping.clone());
    }
    for (index, block) in reply.content.iter().enumerate() {
        let (start, deltas) = block_start_and_deltas(block, reply.raw_tool_arguments);
        events.push(sse(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        if index == 0 {
            events.push(ping.clone());
        }
        for delta in deltas {
            events.push(sse(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push(sse(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push(sse(
        "future_event",
        &json!({"type": "future_event", "note": "unknown event types must be ignored"}),
    ));
    events.push(sse(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": null},
            "usage": {"output_tokens": reply.usage.output_tokens},
        }),
    ));
    let stop = sse("message_stop", &json!({"type": "message_stop"}));
    (events, stop)
}

/// The `content_block` of `content_block_start` and the deltas that follow.
fn block_start_and_deltas(
    block: &ContentBlock,
    raw_tool_arguments: &BTreeMap<String, String>,
) -> (Value, Vec<Value>) {
    match block {
        ContentBlock::Text(t) => {
            let mut start = json!({"type": "text", "text": ""});
            merge_extra(&mut start, &t.extra);
            let deltas = split_pieces(&t.text, 2, 24)
                .into_iter()
                .map(|piece| json!({"type": "text_delta", "text": piece}))
                .collect();
            (start, deltas)
        }
        ContentBlock::ToolUse(t) => {
            let mut start = json!({"type": "tool_use", "id": t.id, "name": t.name, "input": {}});
            merge_extra(&mut start, &t.extra);
            let input = raw_tool_arguments
                .get(&t.id)
                .cloned()
                .unwrap_or_else(|| t.input.to_string());
            let mut deltas = vec![json!({"type": "input_json_delta", "partial_json": ""})];
            deltas.extend(
                split_pieces(&input, 3, 12)
                    .into_iter()
                    .map(|piece| json!({"type": "input_json_delta", "partial_json": piece})),
            );
            (start, deltas)
        }
        ContentBlock::Thinking(t) => {
            let mut start = json!({"type": "thinking", "thinking": "", "signature": ""});
            merge_extra(&mut start, &t.extra);
            let mut deltas: Vec<Value> = split_pieces(&t.thinking, 2, 24)
                .into_iter()
                .map(|piece| json!({"type": "thinking_delta", "thinking": piece}))
                .collect();
            deltas.push(json!({"type": "signature_delta", "signature": t.signature}));
            (start, deltas)
        }
        // Redacted thinking, unknown blocks and anything else arrive whole.
        other => (
            serde_json::to_value(other).unwrap_or(Value::Null),
            Vec::new(),
        ),
    }
}

fn merge_extra(target: &mut Value, extra: &tack_protocol::Extra) {
    if let Value::Object(map) = target {
        for (k, v) in extra {
            map.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
}
