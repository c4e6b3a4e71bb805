//! The request bodies as tack built them before [`crate::encoded`]: each
//! request encoded anew through a `serde_json::Value` tree. Kept so tests can
//! check that the encoded path sends the same bytes; not used to send.

use serde_json::Value;
use tack_protocol::MessagesRequest;

use crate::openai::{MaxTokensField, to_chat_request};

/// The Messages API body: the request as a `Value`, `model` filled in,
/// `stream` set or removed, breakpoints marked.
pub fn messages_body(
    request: &MessagesRequest,
    default_model: &str,
    stream: bool,
    prompt_cache: bool,
) -> Vec<u8> {
    let mut body = serde_json::to_value(request).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut body {
        if request.model.is_empty() {
            map.insert("model".into(), Value::String(default_model.to_owned()));
        }
        if stream {
            map.insert("stream".into(), Value::Bool(true));
        } else {
            map.remove("stream");
        }
        if prompt_cache {
            crate::cache::mark_breakpoints(map);
        }
    }
    serde_json::to_vec(&body).unwrap_or_default()
}

/// The Chat Completions body, `prompt_cache_key` added when given.
pub fn chat_body(
    request: &MessagesRequest,
    default_model: &str,
    stream: bool,
    max_tokens_field: MaxTokensField,
    prompt_cache_key: Option<&str>,
) -> Vec<u8> {
    let model = if request.model.is_empty() {
        default_model
    } else {
        &request.model
    };
    let mut body = to_chat_request(request, model, stream, max_tokens_field);
    if let (Some(key), Value::Object(map)) = (prompt_cache_key, &mut body) {
        map.insert("prompt_cache_key".into(), key.into());
    }
    serde_json::to_vec(&body).unwrap_or_default()
}
