//! What a conformance fixture tool may say to the MCP client while it runs:
//! progress, log messages and (before 2026-07-28) requests such as sampling
//! or elicitation. Only with the `conformance` feature, and only while this
//! process serves the fixtures.
//!
//! The [`ToolHost`](tack_tool::ToolHost) contract has no such channel, so the
//! server puts the request's peer in a task-local scope around the host call
//! ([`RequestScopes::run`]); a tool that runs in that task (as the fixture
//! tools do) reaches it through the functions below. Outside a scope they do
//! nothing and say so. A server gets [`RequestScopes`] only once
//! [`crate::server::conformance_fixture_host`] was built in this process
//! ([`serve_fixtures`]), so serving any other host sets up no scope per call.
#![expect(
    deprecated,
    reason = "logging and server-to-client requests are deprecated by SEP-2577 \
              (2026-07-28) but still part of 2025-11-25, which we serve"
)]

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientResult, CustomRequest, ErrorData, LoggingLevel,
    LoggingMessageNotificationParam, ProgressToken, ServerRequest,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::Value;

use super::progress::notify_progress;

/// Whether this process serves the conformance fixtures.
static FIXTURES_SERVED: AtomicBool = AtomicBool::new(false);

/// Makes every MCP server of this process built from now on put each call in
/// its request's scope (called when the fixture host is built).
pub(crate) fn serve_fixtures() {
    FIXTURES_SERVED.store(true, Ordering::Relaxed);
}

/// How one server (a stdio session, or every HTTP session of a listener)
/// puts each call in its request's scope: with the log level the client set.
#[derive(Clone)]
pub(crate) struct RequestScopes {
    /// The minimum level of `notifications/message` the client asked for
    /// (`logging/setLevel`), as an index into [`LEVELS`].
    log_level: Arc<AtomicU8>,
}

impl RequestScopes {
    /// Some once this process serves the fixtures ([`serve_fixtures`]).
    pub(crate) fn if_fixtures_served() -> Option<Self> {
        FIXTURES_SERVED
            .load(Ordering::Relaxed)
            .then(|| RequestScopes {
                log_level: Arc::new(AtomicU8::new(0)),
            })
    }

    /// `logging/setLevel`.
    pub(crate) fn set_level(&self, level: LoggingLevel) {
        self.log_level.store(level_index(level), Ordering::Relaxed);
    }

    /// Runs the host call `f` in the scope of the request it answers; the
    /// protocol error a tool asked for ([`fail_request`]) replaces its result.
    pub(crate) async fn run<F: Future>(
        &self,
        context: &RequestContext<RoleServer>,
        f: F,
    ) -> Result<F::Output, ErrorData> {
        let scope = CallScope::new(
            context.peer.clone(),
            context.meta.get_progress_token(),
            self.log_gate(context),
            context.client_capabilities(),
        );
        let (out, error) = run(scope, f).await;
        match error {
            Some(error) => Err(error),
            None => Ok(out),
        }
    }

    /// 2026-07-28 requests carry their log level in `_meta` (no level: no
    /// logs); sessions use the level of `logging/setLevel`.
    fn log_gate(&self, context: &RequestContext<RoleServer>) -> LogGate {
        if let Some(level) = context.meta.log_level() {
            return LogGate::Request(level_index(level));
        }
        let stateless = context
            .protocol_version()
            .is_some_and(|v| !v.has_initialize());
        if stateless {
            LogGate::Off
        } else {
            LogGate::Session(Arc::clone(&self.log_level))
        }
    }
}

tokio::task_local! {
    static SCOPE: CallScope;
}

/// The MCP request a host call is answering.
struct CallScope {
    peer: Peer<RoleServer>,
    progress_token: Option<ProgressToken>,
    log: LogGate,
    /// What the client declared it can do (`sampling`, `elicitation`…).
    client_capabilities: Option<ClientCapabilities>,
    /// Set by a tool that must answer with a protocol error instead of a result.
    protocol_error: Mutex<Option<ErrorData>>,
}

impl CallScope {
    fn new(
        peer: Peer<RoleServer>,
        progress_token: Option<ProgressToken>,
        log: LogGate,
        client_capabilities: Option<ClientCapabilities>,
    ) -> Self {
        Self {
            peer,
            progress_token,
            log,
            client_capabilities,
            protocol_error: Mutex::new(None),
        }
    }
}

/// Which log messages the client wants for this request.
enum LogGate {
    /// Session lifecycle (≤ 2025-11-25): the level set by `logging/setLevel`.
    Session(Arc<AtomicU8>),
    /// The request's `_meta` named a level (2026-07-28).
    Request(u8),
    /// A 2026-07-28 request that named no level: send none.
    Off,
}

impl LogGate {
    fn minimum(&self) -> Option<u8> {
        match self {
            LogGate::Session(level) => Some(level.load(Ordering::Relaxed)),
            LogGate::Request(level) => Some(*level),
            LogGate::Off => None,
        }
    }
}

/// MCP log levels, lowest first.
const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

fn level_index(level: LoggingLevel) -> u8 {
    LEVELS
        .iter()
        .position(|l| *l == level)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(0)
}

/// Runs `f` with `scope` as the current MCP request; returns its output and
/// the protocol error a tool asked for, if any.
async fn run<F: Future>(scope: CallScope, f: F) -> (F::Output, Option<ErrorData>) {
    SCOPE
        .scope(scope, async {
            let out = f.await;
            let error = SCOPE
                .try_with(|s| s.protocol_error.lock().ok().and_then(|mut e| e.take()))
                .ok()
                .flatten();
            (out, error)
        })
        .await
}

/// Whether the client declared `capability` (a top-level key of its
/// capabilities, e.g. `"sampling"`).
pub(crate) fn client_declared(capability: &str) -> bool {
    SCOPE
        .try_with(|s| {
            s.client_capabilities
                .as_ref()
                .and_then(|c| serde_json::to_value(c).ok())
                .is_some_and(|c| c.get(capability).is_some())
        })
        .unwrap_or(false)
}

/// Makes the current request answer with a JSON-RPC error instead of the
/// tool's result. Returns whether there was a request to answer.
pub(crate) fn fail_request(error: ErrorData) -> bool {
    SCOPE
        .try_with(|s| {
            if let Ok(mut slot) = s.protocol_error.lock() {
                *slot = Some(error);
            }
        })
        .is_ok()
}

/// Sends `notifications/progress` when the client asked for progress (sent a
/// `progressToken`). Returns whether a notification was sent.
pub(crate) async fn progress(progress: f64, total: Option<f64>, message: Option<String>) -> bool {
    let Ok((peer, Some(token))) = SCOPE.try_with(|s| (s.peer.clone(), s.progress_token.clone()))
    else {
        return false;
    };
    notify_progress(&peer, token, progress, total, message).await
}

/// Sends `notifications/message` at `level` unless the client set a higher
/// minimum level. Returns whether a notification was sent.
pub(crate) async fn log(level: LoggingLevel, logger: &str, data: Value) -> bool {
    let Ok((peer, Some(min))) = SCOPE.try_with(|s| (s.peer.clone(), s.log.minimum())) else {
        return false;
    };
    if level_index(level) < min {
        return false;
    }
    let param = LoggingMessageNotificationParam::new(level, data).with_logger(logger);
    peer.notify_logging_message(param).await.is_ok()
}

/// Sends a request to the client (`sampling/createMessage`,
/// `elicitation/create`…) and returns its result as JSON.
pub(crate) async fn client_request(method: &str, params: Value) -> Result<Value, String> {
    let peer = SCOPE
        .try_with(|s| s.peer.clone())
        .map_err(|_| "no MCP client is attached to this call".to_owned())?;
    let request = ServerRequest::CustomRequest(CustomRequest::new(method, Some(params)));
    let result = peer
        .send_request(request)
        .await
        .map_err(|e| format!("{method} failed: {e}"))?;
    let value = match result {
        ClientResult::CustomResult(custom) => custom.0,
        other => serde_json::to_value(&other).map_err(|e| e.to_string())?,
    };
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::RequestScopes;

    /// The only unit test that builds a fixture host (the switch is per process).
    #[test]
    fn servers_set_up_request_scopes_only_once_the_fixtures_are_served() {
        assert!(
            RequestScopes::if_fixtures_served().is_none(),
            "no fixture host was built, so a server sets up no scope per call"
        );
        let _host = crate::server::conformance_fixture_host();
        assert!(RequestScopes::if_fixtures_served().is_some());
    }
}
