//! The legacy HTTP+SSE client transport (protocol 2024-11-05), for servers
//! that predate streamable HTTP; `"type": "sse"` in `.mcp.json`, as Claude
//! Code spells it. rmcp 3 ships no client for it, so it is built here on
//! reqwest and the `sse-stream` parser rmcp itself uses:
//!
//! 1. `GET <url>` with `Accept: text/event-stream` opens the stream;
//! 2. its first `endpoint` event carries the URI (relative to `<url>`) to
//!    which every client message is `POST`ed (the answer is `202 Accepted`);
//! 3. the server's messages arrive on the stream as `message` events.
//!
//! The configured headers go on the GET and on every POST.

use std::future::Future;
use std::pin::Pin;

use futures::{Stream, StreamExt as _};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::{Sse, SseStream};

use super::probe::chain;

/// Why the SSE transport failed, in words.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseError {
    #[error("{0}")]
    Http(String),
    #[error("the server answered {status} to {what}{}", if body.is_empty() { String::new() } else { format!(": {body}") })]
    Status {
        status: reqwest::StatusCode,
        what: &'static str,
        body: String,
    },
    #[error("{0}")]
    Protocol(String),
}

impl SseError {
    fn http(what: &str, e: &reqwest::Error) -> Self {
        SseError::Http(format!("{what}: {}", chain(e)))
    }
}

type Events = Pin<Box<dyn Stream<Item = Result<Sse, sse_stream::Error>> + Send>>;

/// A connected legacy SSE transport.
pub(crate) struct SseTransport {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HeaderMap,
    events: Events,
}

impl SseTransport {
    /// Opens the event stream and waits for its `endpoint` event.
    pub(crate) async fn connect(url: &str, headers: HeaderMap) -> Result<Self, SseError> {
        let base = reqwest::Url::parse(url)
            .map_err(|e| SseError::Protocol(format!("{url:?} is not a URL: {e}")))?;
        let client = reqwest::Client::new();
        let response = client
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| SseError::http("could not open the event stream", &e))?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(SseError::Status {
                status,
                what: "the GET that opens the event stream",
                body: body.chars().take(200).collect(),
            });
        }
        let mut events: Events = Box::pin(SseStream::from_bytes_stream(response.bytes_stream()));
        let endpoint = loop {
            match events.next().await {
                Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                    let data = event.data.unwrap_or_default();
                    break base.join(data.trim()).map_err(|e| {
                        SseError::Protocol(format!(
                            "the endpoint event carried {data:?}, which is not a URI: {e}"
                        ))
                    })?;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    return Err(SseError::Protocol(format!(
                        "the event stream broke before its endpoint event: {e}"
                    )));
                }
                None => {
                    return Err(SseError::Protocol(
                        "the event stream ended before its endpoint event (is this an HTTP+SSE server? a streamable HTTP server takes \"type\": \"http\")".to_owned(),
                    ));
                }
            }
        };
        Ok(Self {
            client,
            endpoint,
            headers,
            events,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json");
        let body = serde_json::to_vec(&item);
        async move {
            let body = body.map_err(|e| SseError::Protocol(format!("could not encode: {e}")))?;
            let response = request
                .body(body)
                .send()
                .await
                .map_err(|e| SseError::http("could not post a message", &e))?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                let body = response.text().await.unwrap_or_default();
                Err(SseError::Status {
                    status,
                    what: "a posted message",
                    body: body.chars().take(200).collect(),
                })
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            match self.events.next().await? {
                Ok(event) => {
                    if !matches!(event.event.as_deref(), None | Some("message")) {
                        continue;
                    }
                    let Some(data) = event.data else { continue };
                    match serde_json::from_str(&data) {
                        Ok(message) => return Some(message),
                        Err(e) => {
                            tracing::debug!("an SSE message that is not JSON-RPC was skipped: {e}");
                        }
                    }
                }
                Err(e) => {
                    tracing::debug!("the SSE stream broke: {e}");
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Dropping the stream closes the GET; the server ends the session.
        self.events = Box::pin(futures::stream::empty());
        Ok(())
    }
}
