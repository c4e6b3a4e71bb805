//! HTTP plumbing shared by the providers: the client, error statuses turned
//! into [`ModelError`]s with a hint for the person, transport errors.

use std::time::Duration;

use serde_json::Value;

use crate::ModelError;
use crate::retry;

/// Builds the HTTP client for `base_url`. `idle_timeout` bounds each wait for
/// bytes (not the whole response, which may stream for minutes).
pub(crate) fn client(
    idle_timeout: Duration,
    base_url: &str,
) -> Result<reqwest::Client, ModelError> {
    plain_http_if(
        base_url,
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10).min(idle_timeout))
            .read_timeout(idle_timeout)
            .user_agent(concat!("tack/", env!("CARGO_PKG_VERSION"))),
    )
    .build()
    .map_err(|e| ModelError::Config(format!("cannot set up the HTTP client: {}", chain(&e))))
}

/// For a plain `http://` server (a local model, the mock), a client that
/// loads no certificate roots: reading and decoding the system's roots is
/// most of a short run's CPU time (4–5 ms), and such a server never uses
/// TLS. An `https://` URL keeps the platform's verifier and roots.
pub(crate) fn plain_http_if(url: &str, builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
    let plain = url
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"));
    if plain {
        builder.tls_certs_only(std::iter::empty())
    } else {
        builder
    }
}

/// A secret for `Debug` output: whether it is set, not what it is.
pub(crate) fn redacted(secret: &Option<String>) -> Option<&'static str> {
    secret.as_ref().map(|_| "<redacted>")
}

/// An error with its sources, which reqwest keeps out of its own message.
pub(crate) fn chain(err: &dyn std::error::Error) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// A failed send (connect, TLS, timeout before the status) or a failed body read.
pub(crate) fn connection_error(url: &str, err: &reqwest::Error) -> ModelError {
    ModelError::Connection {
        url: url.to_owned(),
        message: chain(err),
    }
}

/// What the error hints need to know.
pub(crate) struct ErrorContext<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub base_url: &'a str,
    pub url: &'a str,
}

/// Turns a non-success response into [`ModelError::Api`], reading the
/// Anthropic (`{"type":"error","error":{type,message}}`) or OpenAI
/// (`{"error":{message,type,code}}`) error body.
pub(crate) async fn api_error(resp: reqwest::Response, ctx: &ErrorContext<'_>) -> ModelError {
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = resp.text().await.unwrap_or_default();
    api_error_from_parts(status.as_u16(), &headers, &body, ctx)
}

pub(crate) fn api_error_from_parts(
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
    ctx: &ErrorContext<'_>,
) -> ModelError {
    let (kind, message) = parse_error_body(body);
    let kind = kind.unwrap_or_else(|| {
        reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("error")
            .to_lowercase()
            .replace(' ', "_")
    });
    let message = message.unwrap_or_else(|| {
        let trimmed = body.trim();
        if trimmed.is_empty() {
            "(empty response body)".to_owned()
        } else {
            truncate(trimmed, 500)
        }
    });
    if let Some(id) = headers.get("request-id").and_then(|v| v.to_str().ok()) {
        tracing::debug!(request_id = id, status, "model API error");
    }
    ModelError::Api {
        provider: ctx.provider.to_owned(),
        status,
        kind,
        message,
        hint: hint(status, ctx),
        retry_after: retry::retry_after(headers),
        should_retry: retry::should_retry(headers),
    }
}

/// `(type, message)` from either provider's error body.
pub(crate) fn parse_error_body(body: &str) -> (Option<String>, Option<String>) {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return (None, None);
    };
    let err = match v.get("error") {
        Some(e @ Value::Object(_)) => e,
        // Some servers send `{"error": "text"}`.
        Some(Value::String(s)) => return (None, Some(s.clone())),
        _ => {
            return (
                None,
                v.get("message").and_then(Value::as_str).map(str::to_owned),
            );
        }
    };
    let text = |key: &str| match err.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    (text("type").or_else(|| text("code")), text("message"))
}

fn hint(status: u16, ctx: &ErrorContext<'_>) -> String {
    match status {
        401 => {
            let own = match ctx.provider {
                "anthropic" => "ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a bearer token)",
                _ => "OPENAI_API_KEY",
            };
            format!(
                ". The API key was rejected or missing: set {own} to a valid key; \
                 for a local server that needs no key, pass --base-url (or --provider ollama)"
            )
        }
        403 => {
            ". The key is valid but may not use this model or endpoint; check the key's permissions"
                .to_owned()
        }
        404 => format!(
            ". Check the model name \"{}\" and the base URL {} (request went to {})",
            ctx.model, ctx.base_url, ctx.url
        ),
        413 => {
            ". The request is too large; shorten the conversation or the tool outputs".to_owned()
        }
        _ => String::new(),
    }
}

pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// An error event inside a stream: retryable when the server says it is
/// overloaded, rate limited or failed on its side.
pub(crate) fn stream_error(kind: Option<&str>, message: Option<&str>) -> ModelError {
    let kind = kind.unwrap_or("error");
    let retryable = matches!(
        kind,
        "overloaded_error" | "api_error" | "rate_limit_error" | "server_error" | "internal_error"
    );
    ModelError::Stream {
        message: format!("{kind}: {}", message.unwrap_or("(no message)")),
        retryable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn ctx() -> ErrorContext<'static> {
        ErrorContext {
            provider: "anthropic",
            model: "claude-x",
            base_url: "http://127.0.0.1:9",
            url: "http://127.0.0.1:9/v1/messages",
        }
    }

    #[test]
    fn anthropic_and_openai_error_bodies() {
        assert_eq!(
            parse_error_body(
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"},"request_id":"req_1"}"#
            ),
            (Some("invalid_request_error".into()), Some("bad".into()))
        );
        assert_eq!(
            parse_error_body(
                r#"{"error":{"message":"no key","type":null,"param":null,"code":"invalid_api_key"}}"#
            ),
            (Some("invalid_api_key".into()), Some("no key".into()))
        );
        assert_eq!(parse_error_body("<html>"), (None, None));
        assert_eq!(
            parse_error_body(r#"{"error":"model not found"}"#),
            (None, Some("model not found".into()))
        );
    }

    #[test]
    fn messages_say_what_to_do() {
        let e = api_error_from_parts(
            401,
            &HeaderMap::new(),
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            &ctx(),
        );
        let text = e.to_string();
        assert!(
            text.contains("401") && text.contains("invalid x-api-key"),
            "{text}"
        );
        assert!(
            text.contains("ANTHROPIC_API_KEY") && text.contains("--base-url"),
            "{text}"
        );

        let e = api_error_from_parts(404, &HeaderMap::new(), "", &ctx()).to_string();
        assert!(
            e.contains("claude-x") && e.contains("http://127.0.0.1:9"),
            "{e}"
        );
        assert!(
            e.contains("(not_found)") && e.contains("empty response body"),
            "{e}"
        );

        let e = api_error_from_parts(
            400,
            &HeaderMap::new(),
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: `tool_use` ids were found without `tool_result` blocks"}}"#,
            &ctx(),
        )
        .to_string();
        assert!(
            e.ends_with("messages.1: `tool_use` ids were found without `tool_result` blocks"),
            "{e}"
        );
    }

    #[test]
    fn headers_flow_into_the_error() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        h.insert("x-should-retry", HeaderValue::from_static("false"));
        let e = api_error_from_parts(429, &h, "{}", &ctx());
        assert!(matches!(
            e,
            ModelError::Api {
                retry_after: Some(d),
                should_retry: Some(false),
                ..
            } if d == Duration::from_secs(2)
        ));
        assert!(!e.is_retryable());
    }

    #[test]
    fn debug_output_hides_keys() {
        let config = crate::AnthropicConfig::from_env_with(&|k| {
            (k == "ANTHROPIC_API_KEY").then(|| "sk-ant-secret".to_owned())
        });
        let text = format!("{config:?}");
        assert!(
            !text.contains("sk-ant-secret") && text.contains("<redacted>"),
            "{text}"
        );
        let config = crate::OpenAiConfig::from_env_with(&|k| {
            (k == "OPENAI_API_KEY").then(|| "sk-secret".to_owned())
        });
        let client = crate::OpenAiClient::new(config).unwrap();
        assert!(!format!("{client:?}").contains("sk-secret"));
    }

    #[test]
    fn stream_error_retryability() {
        assert!(stream_error(Some("overloaded_error"), Some("Overloaded")).is_retryable());
        assert!(stream_error(Some("api_error"), None).is_retryable());
        assert!(stream_error(Some("rate_limit_error"), None).is_retryable());
        assert!(!stream_error(Some("invalid_request_error"), None).is_retryable());
        assert_eq!(
            stream_error(Some("overloaded_error"), Some("Overloaded")).to_string(),
            "stream failed: overloaded_error: Overloaded"
        );
    }
}
