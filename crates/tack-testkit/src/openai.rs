//! Rendering a step as an OpenAI Chat Completions response (JSON or SSE).

use serde_json::{Value, json};
use tack_protocol::{StopReason, ToolUseBlock, Usage};

use crate::render::{Reply, split_pieces, text_of, tool_uses};

/// The terminating line of a Chat Completions stream.
pub(crate) const DONE: &str = "data: [DONE]\n\n";

/// `finish_reason` for a stop reason.
pub(crate) fn finish_reason(stop: &StopReason) -> &'static str {
    match stop {
        StopReason::ToolUse => "tool_calls",
        StopReason::MaxTokens | StopReason::ModelContextWindowExceeded => "length",
        StopReason::Refusal => "content_filter",
        _ => "stop",
    }
}

/// OpenAI's `prompt_tokens` includes the cached ones, reported apart in
/// `prompt_tokens_details.cached_tokens` (sent only when there are some).
fn usage_json(usage: &Usage) -> Value {
    let prompt =
        usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    let mut value = json!({
        "prompt_tokens": prompt,
        "completion_tokens": usage.output_tokens,
        "total_tokens": prompt + usage.output_tokens,
    });
    if usage.cache_read_input_tokens > 0 {
        value["prompt_tokens_details"] = json!({"cached_tokens": usage.cache_read_input_tokens});
    }
    value
}

fn arguments(reply: &Reply<'_>, tool: &ToolUseBlock) -> String {
    reply
        .raw_tool_arguments
        .get(&tool.id)
        .cloned()
        .unwrap_or_else(|| tool.input.to_string())
}

/// The non-streamed `chat.completion` body. Thinking and unknown blocks have
/// no Chat Completions form and are left out.
pub(crate) fn completion_json(reply: &Reply<'_>, created: u64) -> Value {
    let text = text_of(reply.content);
    let mut message = json!({
        "role": "assistant",
        "content": if text.is_empty() { Value::Null } else { Value::String(text) },
        "refusal": null,
    });
    let calls: Vec<Value> = tool_uses(reply.content)
        .map(|t| {
            json!({
                "id": t.id,
                "type": "function",
                "function": {"name": t.name, "arguments": arguments(reply, t)},
            })
        })
        .collect();
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    json!({
        "id": reply.id,
        "object": "chat.completion",
        "created": created,
        "model": reply.model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason(reply.stop_reason),
        }],
        "usage": usage_json(reply.usage),
    })
}

/// The error body: `{"error":{"message","type","param","code"}}`.
pub(crate) fn error_json(
    error_type: &str,
    message: &str,
    param: Option<&str>,
    code: Option<&str>,
) -> Value {
    json!({"error": {"message": message, "type": error_type, "param": param, "code": code}})
}

fn data(value: &Value) -> String {
    format!("data: {value}\n\n")
}

/// The error chunk of a stream failing after HTTP 200.
pub(crate) fn stream_error_chunk(error_type: &str, message: &str) -> String {
    data(&error_json(error_type, message, None, None))
}

/// The `data:` chunks of a streamed reply, without the final `[DONE]`.
///
/// A role chunk, the text in 2+ pieces, per tool call a chunk with index, id,
/// type and name then the arguments in 3+ pieces carrying only index and
/// arguments, a final chunk with `delta: {}` and the finish reason, and, if
/// `include_usage`, a chunk with `choices: []` and the usage.
pub(crate) fn stream_chunks(reply: &Reply<'_>, created: u64, include_usage: bool) -> Vec<String> {
    let chunk = |delta: Value, finish: Option<&str>| {
        let mut c = json!({
            "id": reply.id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": reply.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if include_usage {
            c["usage"] = Value::Null;
        }
        data(&c)
    };
    let mut out = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for piece in split_pieces(&text_of(reply.content), 2, 24) {
        out.push(chunk(json!({"content": piece}), None));
    }
    for (index, tool) in tool_uses(reply.content).enumerate() {
        out.push(chunk(
            json!({"tool_calls": [{
                "index": index,
                "id": tool.id,
                "type": "function",
                "function": {"name": tool.name, "arguments": ""},
            }]}),
            None,
        ));
        for piece in split_pieces(&arguments(reply, tool), 3, 12) {
            out.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                None,
            ));
        }
    }
    out.push(chunk(json!({}), Some(finish_reason(reply.stop_reason))));
    if include_usage {
        out.push(data(&json!({
            "id": reply.id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": reply.model,
            "choices": [],
            "usage": usage_json(reply.usage),
        })));
    }
    out
}
