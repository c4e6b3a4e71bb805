//! What every HTTP request passes before rmcp sees it, in this order:
//!
//! 1. **One `Host` header**, else 400. rmcp's DNS-rebinding check reads the
//!    first one; a proxy in front may read another, and the two would then
//!    disagree about which host the request is for.
//! 2. **The bearer token**, else 401 with `WWW-Authenticate: Bearer`. The
//!    presented token and the server's are compared as SHA-256 digests in
//!    constant time (`subtle`), so neither their bytes nor their length
//!    show in the time a refusal takes.
//! 3. **The session cap**: an `initialize` (a POST without `Mcp-Session-Id`
//!    that opens a session) when `max_sessions` are open is 503. Session
//!    openings are taken one at a time, so the cap is exact.
//!
//! rmcp then checks the Host and Origin values (403) and serves. A `DELETE`
//! that ends a session is answered `200 OK` (see [`session_deleted`]); a
//! POST in a session initialized at 2025-03-26 may be a batch (the `batch`
//! module splits it).

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde::Deserialize;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

use super::BearerToken;

/// The state of [`guard`].
pub(super) struct Guard {
    /// SHA-256 of the token every request must carry; None: no authentication.
    token: Option<[u8; 32]>,
    sessions: Arc<LocalSessionManager>,
    max_sessions: usize,
    /// Held while a session opens, so two openings cannot both pass the cap.
    opening: tokio::sync::Mutex<()>,
    max_body: usize,
    /// The sessions initialized at 2025-03-26, whose POSTs may be batches.
    batch_sessions: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl Guard {
    pub(super) fn new(
        token: Option<&BearerToken>,
        sessions: Arc<LocalSessionManager>,
        max_sessions: usize,
        max_body: usize,
    ) -> Self {
        Self {
            token: token.map(|t| digest(t.as_str().as_bytes())),
            sessions,
            max_sessions,
            opening: tokio::sync::Mutex::new(()),
            max_body,
            batch_sessions: std::sync::Mutex::default(),
        }
    }
}

/// A session ended by `DELETE` is `200 OK`, not rmcp's `202 Accepted`: the
/// session is gone when the answer leaves (202 says the work is still to
/// do), and clients that take 200 or 204 as success (the Python SDK) log
/// "Session termination failed: 202" otherwise.
fn session_deleted(mut response: Response) -> Response {
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The middleware: the three checks above, then the MCP service.
pub(super) async fn guard(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    if request.headers().get_all(header::HOST).iter().count() > 1 {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: more than one Host header",
        );
    }
    if let Some(expected) = &guard.token
        && let Err(refusal) = authorize(request.headers(), expected)
    {
        return refusal.response();
    }
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if request.method() == Method::DELETE {
        let response = session_deleted(next.run(request).await);
        if let Some(session) = &session
            && response.status().is_success()
        {
            guard.batch_sessions().remove(session);
        }
        return response;
    }
    if request.method() == Method::POST
        && let Some(session) = &session
        && guard.batch_sessions().contains(session)
    {
        let (parts, body) = request.into_parts();
        let Ok(body) = axum::body::to_bytes(body, guard.max_body).await else {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload Too Large: the request body is over the server's limit",
            );
        };
        let request = Request::from_parts(parts, Body::empty());
        return super::batch::serve(request, body, next, guard.max_body).await;
    }
    if request.method() != Method::POST || session.is_some() {
        return next.run(request).await;
    }
    // A POST outside a session: an initialize opens one; anything else is a
    // stateless (2026-07-28) request and opens none.
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, guard.max_body).await {
        Ok(body) => body,
        Err(_) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload Too Large: the request body is over the server's limit",
            );
        }
    };
    let opens_session = is_initialize(&body);
    let batches = initialize_version(&body).as_deref() == Some("2025-03-26");
    let request = Request::from_parts(parts, Body::from(body));
    if !opens_session {
        return next.run(request).await;
    }
    let _opening = guard.opening.lock().await;
    let open = guard.sessions.sessions.read().await.len();
    if open >= guard.max_sessions {
        tracing::warn!(
            "refused a new MCP session: {open} are open (the limit is {})",
            guard.max_sessions
        );
        let mut response = refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "Service Unavailable: {open} MCP sessions are open, the most this server allows \
                 (tack mcp serve --max-sessions). Close one (HTTP DELETE with its Mcp-Session-Id) \
                 or wait: a session idle for 5 minutes is closed."
            ),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("60"));
        return response;
    }
    let response = next.run(request).await;
    if batches
        && let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
    {
        guard.batch_sessions().insert(session.to_owned());
    }
    response
}

impl Guard {
    fn batch_sessions(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.batch_sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The `protocolVersion` an `initialize` body asks for.
fn initialize_version(body: &Bytes) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    if value.get("method")?.as_str()? != "initialize" {
        return None;
    }
    Some(
        value
            .get("params")?
            .get("protocolVersion")?
            .as_str()?
            .to_owned(),
    )
}

/// Why a request was not authorized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unauthorized {
    /// No `Authorization` header.
    Missing,
    /// Not exactly one `Bearer` with this server's token.
    Wrong,
}

impl Unauthorized {
    /// The 401, with the `WWW-Authenticate` challenge RFC 6750 asks for.
    fn response(self) -> Response {
        let (challenge, message) = match self {
            Unauthorized::Missing => (
                "Bearer realm=\"tack\"",
                "Unauthorized: this MCP server needs `Authorization: Bearer <token>`, with the token \
                 `tack mcp serve --http` printed when it started (or was given with --token-file \
                 or TACK_MCP_TOKEN)",
            ),
            Unauthorized::Wrong => (
                "Bearer realm=\"tack\", error=\"invalid_token\"",
                "Unauthorized: the bearer token is not this server's",
            ),
        };
        let mut response = refuse(StatusCode::UNAUTHORIZED, message);
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
        response
    }
}

/// Ok when the request carries exactly one `Authorization: Bearer <token>`
/// with the expected token.
fn authorize(headers: &HeaderMap, expected: &[u8; 32]) -> Result<(), Unauthorized> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let presented = match (values.next(), values.next()) {
        (None, _) => return Err(Unauthorized::Missing),
        (Some(value), None) => bearer(value.as_bytes()),
        (Some(_), Some(_)) => None,
    };
    let accepted = presented.is_some_and(|token| bool::from(digest(token).ct_eq(expected)));
    if accepted {
        Ok(())
    } else {
        Err(Unauthorized::Wrong)
    }
}

/// The token of an `Authorization: Bearer <token>` value (the scheme in any case).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(6)?;
    if !scheme.eq_ignore_ascii_case(b"bearer") || !rest.starts_with(b" ") {
        return None;
    }
    Some(rest.trim_ascii())
}

fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.to_owned(),
    )
        .into_response()
}

/// Whether a JSON-RPC body (one message or a batch) is an `initialize` request.
fn is_initialize(body: &Bytes) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        method: Option<String>,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Body {
        One(Probe),
        Batch(Vec<Probe>),
    }
    match serde_json::from_slice::<Body>(body) {
        Ok(Body::One(p)) => p.method.as_deref() == Some("initialize"),
        Ok(Body::Batch(all)) => all
            .iter()
            .any(|p| p.method.as_deref() == Some("initialize")),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_scheme_is_read_in_any_case_and_nothing_else_is() {
        assert_eq!(bearer(b"Bearer abc"), Some(&b"abc"[..]));
        assert_eq!(bearer(b"bearer  abc "), Some(&b"abc"[..]));
        assert_eq!(bearer(b"Basic abc"), None);
        assert_eq!(bearer(b"Bearerabc"), None);
        assert_eq!(bearer(b"Bear"), None);
    }

    #[test]
    fn only_the_right_token_once_is_authorized() {
        let expected = digest(b"s3cret-token");
        let headers = |values: &[&str]| {
            let mut h = HeaderMap::new();
            for v in values {
                h.append(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
            }
            h
        };
        assert!(authorize(&headers(&["Bearer s3cret-token"]), &expected).is_ok());
        assert_eq!(
            authorize(&headers(&[]), &expected),
            Err(Unauthorized::Missing)
        );
        for wrong in [
            &["Bearer s3cret-toke"][..],
            &["Bearer s3cret-token2"][..],
            &["s3cret-token"][..],
            &["Bearer s3cret-token", "Bearer s3cret-token"][..],
        ] {
            let refusal = authorize(&headers(wrong), &expected).unwrap_err();
            assert_eq!(refusal, Unauthorized::Wrong, "{wrong:?}");
        }
        for refusal in [Unauthorized::Missing, Unauthorized::Wrong] {
            let response = refusal.response();
            assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
            let challenge = response.headers()[header::WWW_AUTHENTICATE]
                .to_str()
                .unwrap();
            assert!(challenge.starts_with("Bearer realm="), "{challenge}");
        }
    }

    #[test]
    fn an_initialize_is_told_from_other_requests() {
        let body = |s: &str| Bytes::from(s.to_owned());
        assert!(is_initialize(&body(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#
        )));
        assert!(is_initialize(&body(
            r#"[{"method":"ping"},{"method":"initialize"}]"#
        )));
        assert!(!is_initialize(&body(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#
        )));
        assert!(!is_initialize(&body("not json")));
    }
}
