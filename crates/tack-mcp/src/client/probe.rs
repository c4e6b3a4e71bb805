//! The transport every connection runs on: the real one (child process,
//! streamable HTTP, legacy SSE) wrapped so that
//!
//! - a slow server is spawned once. rmcp's `Auto` lifecycle sends
//!   `server/discover` and, when nothing answers within 10 s, sends
//!   `initialize` on the same transport. A server that was only slow to boot
//!   then answers both, the late `server/discover` first: rmcp took that
//!   answer for a conflicting reply to `initialize` and failed the start,
//!   and tack spawned the server a second time. Now, once `initialize` has
//!   gone out after a probe:
//!   - a late *successful* `server/discover` answer (a modern server) is
//!     adopted: it is handed to rmcp as the answer to `initialize`, at the
//!     version the probe offered (a version without a handshake, so rmcp
//!     sends per-request metadata from then on, as after discovery);
//!     `notifications/initialized` is not sent, and the server's refusal of
//!     the handshake (a modern server refuses it on a connection it serves at
//!     2026-07-28) is dropped;
//!   - a late error (a legacy server) is dropped, and the handshake goes on.
//!
//!   Either way the start completes on the one process, within the one
//!   startup deadline.
//! - errors name the transport in words (`stdio`, `streamable HTTP`) rather
//!   than as a Rust type (`WorkerTransport<StreamableHttpClientWorker<…>>`),
//!   which is what rmcp's default [`Transport::name`] gives.

use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;

use futures::future::Either;
use rmcp::model::{
    ClientNotification, ClientRequest, InitializeResult, JsonRpcMessage, ProtocolVersion,
    RequestId, ServerResult,
};
use rmcp::service::{ClientInitializeError, RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// The transport's name as errors show it.
pub(crate) trait Label: Send + 'static {
    const NAME: &'static str;
}

pub(crate) struct StdioLabel;
impl Label for StdioLabel {
    const NAME: &'static str = "stdio";
}

pub(crate) struct HttpLabel;
impl Label for HttpLabel {
    const NAME: &'static str = "streamable HTTP";
}

pub(crate) struct SseLabel;
impl Label for SseLabel {
    const NAME: &'static str = "HTTP+SSE";
}

/// A `server/discover` request sent, and the version it offered.
struct Probe {
    id: RequestId,
    version: Option<ProtocolVersion>,
}

/// A client transport that settles an abandoned `server/discover`.
pub(crate) struct Probed<T, L> {
    inner: T,
    probes: Vec<Probe>,
    /// The id of an `initialize` sent after a probe (the probe was abandoned).
    handshake: Option<RequestId>,
    /// Whether a late discover answer was adopted as the handshake's.
    adopted: bool,
    label: PhantomData<L>,
}

impl<T, L> Probed<T, L> {
    pub(crate) fn new(inner: T) -> Self {
        Self {
            inner,
            probes: Vec::new(),
            handshake: None,
            adopted: false,
            label: PhantomData,
        }
    }

    /// What to hand rmcp for a message received after the fallback: the
    /// message itself, an adopted discover answer, or nothing (dropped).
    fn settle(
        &mut self,
        message: RxJsonRpcMessage<RoleClient>,
    ) -> Option<RxJsonRpcMessage<RoleClient>> {
        let Some(handshake) = self.handshake.clone() else {
            return Some(message);
        };
        let id = match &message {
            JsonRpcMessage::Response(r) => Some(r.id.clone()),
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        let Some(id) = id else {
            return Some(message);
        };
        if self.adopted && id == handshake {
            tracing::debug!("dropping the server's answer to initialize (discovery was adopted)");
            return None;
        }
        let Some(probe) = self.probes.iter().find(|p| p.id == id) else {
            return Some(message);
        };
        if let JsonRpcMessage::Response(response) = &message
            && let ServerResult::DiscoverResult(found) = &response.result
            && let Some(version) = probe
                .version
                .as_ref()
                .filter(|v| found.supported_versions.contains(v))
            && !self.adopted
        {
            let mut result = InitializeResult::new(found.capabilities.clone());
            result.protocol_version = version.clone();
            result.server_info = found.server_info().unwrap_or_default();
            result.instructions = found.instructions.clone();
            self.adopted = true;
            tracing::debug!("the late server/discover answer is adopted as the handshake's");
            return Some(JsonRpcMessage::response(
                ServerResult::InitializeResult(result),
                handshake,
            ));
        }
        tracing::debug!("ignoring the late answer to server/discover");
        None
    }
}

/// The protocol version a `server/discover` request offers (its `_meta`).
fn offered_version(item: &TxJsonRpcMessage<RoleClient>) -> Option<ProtocolVersion> {
    let value = serde_json::to_value(item).ok()?;
    let version = value
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")?
        .clone();
    serde_json::from_value(version).ok()
}

impl<T, L> Transport<RoleClient> for Probed<T, L>
where
    T: Transport<RoleClient>,
    L: Label,
{
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        Cow::Borrowed(L::NAME)
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match &item {
            JsonRpcMessage::Request(request) => match &request.request {
                ClientRequest::DiscoverRequest(_) => {
                    let version = offered_version(&item);
                    self.probes.push(Probe {
                        id: request.id.clone(),
                        version,
                    });
                }
                ClientRequest::InitializeRequest(_) if !self.probes.is_empty() => {
                    self.handshake = Some(request.id.clone());
                }
                _ => {}
            },
            JsonRpcMessage::Notification(n)
                if self.adopted
                    && matches!(
                        n.notification,
                        ClientNotification::InitializedNotification(_)
                    ) =>
            {
                // No handshake at the adopted version: nothing to confirm.
                return Either::Left(std::future::ready(Ok(())));
            }
            _ => {}
        }
        Either::Right(self.inner.send(item))
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await?;
            if let Some(message) = self.settle(message) {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// A failed start in words: what failed and why, with no Rust type names
/// or debug dumps of protocol messages.
pub(crate) fn describe(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::ExpectedInitResponse(_)
        | ClientInitializeError::ExpectedInitResult(_) => {
            "the server answered the handshake with something other than its result".to_owned()
        }
        ClientInitializeError::ConflictInitResponseId(expected, got) => format!(
            "the server answered request {got} while tack waited for the answer to request {expected}"
        ),
        ClientInitializeError::UncorrelatedErrorResponse { expected, received } => format!(
            "the server sent an error for request {received} while tack waited for the answer to request {expected}"
        ),
        ClientInitializeError::ConnectionClosed(waiting_for) => format!(
            "the connection closed while tack waited for the {waiting_for} (the server exited or closed its output)"
        ),
        ClientInitializeError::TransportError { error, context } => {
            format!("{context}: {}", chain(error.error.as_ref()))
        }
        ClientInitializeError::JsonRpcError(e) => format!(
            "the server refused the handshake: {} (JSON-RPC error {})",
            e.message, e.code.0
        ),
        ClientInitializeError::NoCompatibleProtocolVersion {
            client_supported,
            server_supported,
        } => format!(
            "no protocol version in common (tack offers {}, the server {})",
            versions(client_supported),
            versions(server_supported)
        ),
        ClientInitializeError::Cancelled => "the start was cancelled".to_owned(),
        ClientInitializeError::LegacyFallbackFailed { discover, fallback } => format!(
            "server/discover failed ({}), and so did the initialize handshake ({})",
            describe(discover),
            describe(fallback)
        ),
        other => other.to_string(),
    }
}

fn versions(list: &[ProtocolVersion]) -> String {
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// An error and its sources, joined with `: ` (each said once).
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![error.to_string()];
    let mut source = error.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}
