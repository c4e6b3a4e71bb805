//! JSON-RPC batches over streamable HTTP, in sessions initialized at
//! 2025-03-26 (the one revision that has them; rmcp has no notion of
//! batches and refuses an array).
//!
//! The guard remembers which sessions were initialized at 2025-03-26. A
//! POST in such a session whose body is an array is split here: each member
//! goes to rmcp's service as a POST of its own (same headers), one after
//! the other, and the answers to its requests come back as one JSON array
//! (`application/json`). A batch of notifications only is `202 Accepted`
//! with no body, as a single notification is. What rmcp streams before a
//! member's answer (progress, log messages) is not part of the array: a
//! batch's answer is one JSON document.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use futures::StreamExt as _;
use serde_json::Value;

/// Serves `body`, the body of a POST in a 2025-03-26 session: a batch is
/// split, anything else goes through unchanged.
pub(super) async fn serve(request: Request, body: Bytes, next: Next, max_body: usize) -> Response {
    let members = match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Array(members)) if !members.is_empty() => members,
        _ => {
            let (parts, _) = request.into_parts();
            return next.run(Request::from_parts(parts, Body::from(body))).await;
        }
    };
    let (parts, _) = request.into_parts();
    let mut answers = Vec::new();
    for member in members {
        let id = member.get("id").cloned();
        let is_request = member.get("method").is_some() && id.is_some();
        let mut builder = Request::builder()
            .method(parts.method.clone())
            .uri(parts.uri.clone())
            .version(parts.version);
        for (name, value) in &parts.headers {
            if name != header::CONTENT_LENGTH {
                builder = builder.header(name, value);
            }
        }
        let Ok(sub) = builder.body(Body::from(member.to_string())) else {
            continue;
        };
        let response = next.clone().run(sub).await;
        if let Some(answer) = answer_of(response, id.as_ref(), max_body).await {
            answers.push(answer);
        } else if is_request {
            tracing::debug!("a batch member {id:?} got no answer");
        }
    }
    if answers.is_empty() {
        return StatusCode::ACCEPTED.into_response();
    }
    let mut response = Value::Array(answers).to_string().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The JSON-RPC answer in one member's response: its JSON body, or in an
/// SSE stream the response (or error) with the member's id, read until it
/// comes. `None` for a notification's `202`.
async fn answer_of(response: Response, id: Option<&Value>, max_body: usize) -> Option<Value> {
    let is_sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        let body = axum::body::to_bytes(response.into_body(), max_body)
            .await
            .ok()?;
        return serde_json::from_slice(&body).ok();
    }
    let mut stream = response.into_body().into_data_stream();
    let mut buffer = String::new();
    while let Some(Ok(chunk)) = stream.next().await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        if buffer.len() > max_body {
            return None;
        }
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if let Some(message) = sse_data(&event)
                && is_answer_to(&message, id)
            {
                return Some(message);
            }
        }
    }
    None
}

/// The JSON of an SSE event's `data:` lines, if it has any.
fn sse_data(event: &str) -> Option<Value> {
    let data: Vec<&str> = event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d))
        .collect();
    if data.is_empty() {
        return None;
    }
    serde_json::from_str(&data.join("\n")).ok()
}

fn is_answer_to(message: &Value, id: Option<&Value>) -> bool {
    message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
        && (id.is_none() || message.get("id") == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sse_events_are_read_for_the_members_answer() {
        let event = "id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
        let message = sse_data(event).unwrap();
        assert!(is_answer_to(&message, Some(&json!(3))));
        assert!(!is_answer_to(&message, Some(&json!(4))));
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}});
        assert!(!is_answer_to(&progress, Some(&json!(3))));
        assert_eq!(sse_data("retry: 3000\n\n"), None);
    }
}
