//! What a tool running under `tack mcp serve` may say to the MCP client while
//! it runs: progress, log messages and (before 2026-07-28) requests such as
//! sampling or elicitation.
//!
//! The [`ToolHost`](tack_tool::ToolHost) contract has no such channel, so the
//! server puts the request's peer in a task-local scope around the host call;
//! a tool that runs in that task (as the fixture tools do) reaches it through
//! the functions below. Outside a scope they do nothing and say so.
#![expect(
    deprecated,
    reason = "logging and server-to-client requests are deprecated by SEP-2577 \
              (2026-07-28) but still part of 2025-11-25, which we serve"
)]

use std::future::Future;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientResult, CustomRequest, ErrorData, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ServerRequest,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;

tokio::task_local! {
    static SCOPE: CallScope;
}

/// The MCP request a host call is answering.
pub(crate) struct CallScope {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log: LogGate,
    /// What the client declared it can do (`sampling`, `elicitation`…).
    pub(crate) client_capabilities: Option<ClientCapabilities>,
    /// Set by a tool that must answer with a protocol error instead of a result.
    pub(crate) protocol_error: Mutex<Option<ErrorData>>,
}

impl CallScope {
    pub(crate) fn new(
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
pub(crate) enum LogGate {
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
pub(crate) const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

pub(crate) fn level_index(level: LoggingLevel) -> u8 {
    LEVELS
        .iter()
        .position(|l| *l == level)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(0)
}

/// Runs `f` with `scope` as the current MCP request; returns its output and
/// the protocol error a tool asked for, if any.
pub(crate) async fn run<F: Future>(scope: CallScope, f: F) -> (F::Output, Option<ErrorData>) {
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

/// One `notifications/progress`; whether it was sent.
async fn notify_progress(
    peer: &Peer<RoleServer>,
    token: ProgressToken,
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
) -> bool {
    let mut param = ProgressNotificationParam::new(token, progress);
    param.total = total;
    param.message = message;
    peer.notify_progress(param).await.is_ok()
}

/// Sends a host call's progress reports ([`tack_tool::ProgressSink`]) to the
/// client as `notifications/progress`, in order, with a progress value that
/// only grows (the spec requires it; a report that would not is dropped).
pub(crate) struct ProgressForwarder {
    done: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl ProgressForwarder {
    pub(crate) fn start(
        peer: Peer<RoleServer>,
        token: ProgressToken,
    ) -> (tack_tool::ProgressSink, ProgressForwarder) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<tack_tool::Progress>();
        let (done, mut finished) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let mut last = f64::NEG_INFINITY;
            let mut send = async |p: tack_tool::Progress| {
                if p.progress <= last || !p.progress.is_finite() {
                    return;
                }
                last = p.progress;
                notify_progress(&peer, token.clone(), p.progress, p.total, p.message).await;
            };
            loop {
                tokio::select! {
                    biased;
                    report = rx.recv() => match report {
                        Some(p) => send(p).await,
                        None => return,
                    },
                    _ = &mut finished => {
                        while let Ok(p) = rx.try_recv() {
                            send(p).await;
                        }
                        return;
                    }
                }
            }
        });
        let sink = tack_tool::ProgressSink::new(move |p| {
            let _ = tx.send(p);
        });
        (sink, ProgressForwarder { done, task })
    }

    /// Sends what was reported so far and stops.
    pub(crate) async fn finish(self) {
        let _ = self.done.send(());
        let _ = self.task.await;
    }
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
