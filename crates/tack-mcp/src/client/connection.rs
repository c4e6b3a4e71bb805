//! One live connection to a server: spawning the process or opening the HTTP
//! transport, the lifecycle (2026-07-28 `server/discover`, falling back to the
//! `initialize` handshake), and the client-side handler that receives progress
//! and list-changed notifications.
//!
//! Protocol versions: rmcp 3.11 knows 2024-11-05 … 2026-07-28. tack starts in
//! rmcp's `Auto` lifecycle mode: it probes with `server/discover` offering
//! 2026-07-28; a server that answers with a JSON-RPC error (every pre-2026
//! server) or stays silent for 10 s gets the `initialize` handshake offering
//! 2025-11-25, and rmcp accepts the older version such a server counters with.
//! The handshake goes out on the same transport, and a late answer to the
//! probe is settled by the wrapper in `client/probe.rs` (a slow server is
//! spawned once); the legacy HTTP+SSE transport is `client/sse.rs`.

#![expect(
    deprecated,
    reason = "SEP-2577 deprecates roots and sampling, but 2025-11-25 servers and multi-round-trip results still ask for them"
)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelTaskParams, CancelledNotificationParam,
    ClientCapabilities, ClientConfig, ClientRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorData,
    ExtensionCapabilities, FormElicitationCapability, GetTaskParams, Implementation, InputRequest,
    InputRequests, InputResponses, JsonObject, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, RequestId, ServerNotification, ServerResult, SubscriptionFilter,
    TASKS_EXTENSION_ID, Task, TaskPayload, UpdateTaskParams, UrlElicitationCapability,
};
use rmcp::model::{ListRootsResult, Root, SamplingCapability};
use rmcp::service::{
    ClientInitializeError, NotificationContext, PeerRequestOptions, RequestContext, RunningService,
    ServiceError,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, Peer, RoleClient};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use serde_json::Value;
use tack_protocol::ContentBlock;
use tack_tool::{ToolError, ToolOutput};
use tokio_util::sync::CancellationToken;

use super::config::ResolvedTransport;
use super::convert::{clean_text, convert_result};
use super::handler::{
    Notes, ServerRequests, answer_elicitation, push_note, sampling_request, sampling_result,
    take_notes,
};
use super::probe::{HttpLabel, Probed, SseLabel, StdioLabel, describe};
use super::sse::SseTransport;
use super::tasks::{PendingTask, forget, now_secs, remember};

/// How many `input_required` rounds one call may take before tack gives up.
pub const MAX_INPUT_ROUNDS: usize = 8;
/// The poll interval of a task whose server suggests none (and the bounds
/// put on a suggestion).
const DEFAULT_POLL: Duration = Duration::from_secs(1);
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(30);

/// One progress notification of a running call.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProgressUpdate {
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    pub progress: f64,
    pub total: Option<f64>,
    /// The server's message (control characters removed).
    pub message: Option<String>,
}

/// Receives progress updates (for a status line on stderr, say).
pub type ProgressSink = Arc<dyn Fn(&ProgressUpdate) + Send + Sync>;

type Routes = Arc<Mutex<HashMap<ProgressToken, String>>>;

/// The client side of one connection.
#[derive(Clone)]
pub(crate) struct Handler {
    server: String,
    routes: Routes,
    sink: Option<ProgressSink>,
    list_changed: Arc<Notify>,
    requests: Arc<dyn ServerRequests>,
    notes: Notes,
    cwd: PathBuf,
    task_file: Option<PathBuf>,
}

impl Handler {
    /// The session's roots: its working directory.
    fn roots(&self) -> ListRootsResult {
        let uri = format!("file://{}", self.cwd.display());
        let name = self
            .cwd
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        let root = Root::new(uri);
        ListRootsResult::new(vec![match name {
            Some(name) => root.with_name(name),
            None => root,
        }])
    }

    async fn elicit(&self, params: ElicitRequestParams) -> ElicitResult {
        answer_elicitation(&self.server, self.requests.as_ref(), &self.notes, params).await
    }

    /// Answers a multi-round-trip result's (or an `input_required` task's)
    /// requests, keyed as the server keyed them.
    async fn fulfil(&self, requests: InputRequests) -> Result<InputResponses, String> {
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let value = match request {
                InputRequest::Elicitation(request) => {
                    serde_json::to_value(self.elicit(request.params).await)
                }
                InputRequest::ListRoots(_) => serde_json::to_value(self.roots()),
                InputRequest::CreateMessage(request) => {
                    let params = serde_json::to_value(&request.params)
                        .map_err(|e| format!("could not read a sampling request: {e}"))?;
                    let answer = self.sample(&params).await.map_err(|why| {
                        format!("MCP server {:?} asked for a completion: {why}", self.server)
                    })?;
                    Ok(answer)
                }
                _ => {
                    return Err(format!(
                        "MCP server {:?} asked for input of a kind tack does not know",
                        self.server
                    ));
                }
            };
            let value = value.map_err(|e| format!("could not encode an input response: {e}"))?;
            responses.insert(key, value);
        }
        Ok(responses)
    }

    /// Runs a `sampling/createMessage` through [`ServerRequests::sample`].
    async fn sample(&self, params: &Value) -> Result<Value, String> {
        let request = sampling_request(&self.server, params)?;
        let answer = self.requests.sample(&request).await?;
        Ok(sampling_result(&answer))
    }

    fn report(&self, tool: &str, progress: f64, message: Option<&str>) {
        if let Some(sink) = &self.sink {
            sink(&ProgressUpdate {
                server: self.server.clone(),
                tool: tool.to_owned(),
                progress,
                total: None,
                message: message.map(clean_text),
            });
        }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.requests.may_sample(&self.server) {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        if self.requests.can_elicit() {
            capabilities.elicitation = Some(
                ElicitationCapability::new()
                    .with_form(FormElicitationCapability::new())
                    .with_url(UrlElicitationCapability::new()),
            );
        }
        // tack polls tasks (`io.modelcontextprotocol/tasks`), so every call
        // may be turned into one.
        let mut extensions = ExtensionCapabilities::new();
        extensions.insert(TASKS_EXTENSION_ID.to_owned(), JsonObject::new());
        capabilities.extensions = Some(extensions);
        ClientConfig::new(
            capabilities,
            Implementation::new("tack", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(self.elicit(request).await)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(&params).map_err(|e| {
            ErrorData::internal_error(format!("could not read the request: {e}"), None)
        })?;
        let result = self
            .sample(&params)
            .await
            .map_err(|why| ErrorData::invalid_request(why, None))?;
        serde_json::from_value(result).map_err(|e| {
            ErrorData::internal_error(format!("could not encode the answer: {e}"), None)
        })
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(self.roots())
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let tool = self
            .routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned();
        let Some(tool) = tool else {
            return;
        };
        let update = ProgressUpdate {
            server: self.server.clone(),
            tool,
            progress: params.progress,
            total: params.total,
            message: params.message.as_deref().map(clean_text),
        };
        tracing::info!(
            target: "tack_mcp::progress",
            server = %update.server,
            tool = %update.tool,
            progress = update.progress,
            total = ?update.total,
            message = update.message.as_deref().unwrap_or(""),
            "MCP tool progress"
        );
        if let Some(sink) = &self.sink {
            sink(&update);
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

/// Removes a progress route when the call ends, however it ends.
pub(crate) struct RouteGuard {
    routes: Routes,
    token: ProgressToken,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}

/// A live connection.
pub(crate) struct Connection {
    pub peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    pub protocol_version: String,
    pub pid: Option<u32>,
    routes: Routes,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    handler: Handler,
}

/// How a call through [`Connection::call_tool`] failed.
pub(crate) enum CallFailure {
    /// The request itself failed (transport, JSON-RPC error).
    Service(ServiceError),
    /// The tool's result or the protocol says no (already a model-facing error).
    Tool(ToolError),
}

impl From<ServiceError> for CallFailure {
    fn from(e: ServiceError) -> Self {
        Self::Service(e)
    }
}

impl Connection {
    pub fn is_alive(&self) -> bool {
        !self.peer.is_transport_closed()
    }

    /// Routes the progress notifications of `token` to `tool` until the guard drops.
    pub fn route_progress(&self, token: ProgressToken, tool: &str) -> RouteGuard {
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), tool.to_owned());
        RouteGuard {
            routes: self.routes.clone(),
            token,
        }
    }

    /// Sends `notifications/cancelled` for a request (bounded: a stuck
    /// transport does not hold the caller).
    pub async fn cancel_request(&self, id: RequestId, reason: &str) {
        let params = CancelledNotificationParam::new(Some(id), Some(reason.to_owned()));
        let sent =
            tokio::time::timeout(Duration::from_secs(2), self.peer.notify_cancelled(params)).await;
        if !matches!(sent, Ok(Ok(()))) {
            tracing::debug!("could not send notifications/cancelled");
        }
    }

    /// Sends one request and waits for its answer, routing its progress to
    /// `tool`; cancellation and the timeout send `notifications/cancelled`.
    async fn round_trip(
        &self,
        request: ClientRequest,
        tool: &str,
        cancel: &CancellationToken,
        timeout: Duration,
        server: &str,
    ) -> Result<ServerResult, CallFailure> {
        let handle = self
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await?;
        let _route = self.route_progress(handle.progress_token.clone(), tool);
        let id = handle.id.clone();
        let response = handle.await_response();
        tokio::pin!(response);
        tokio::select! {
            biased;
            outcome = &mut response => Ok(outcome?),
            () = cancel.cancelled() => {
                self.cancel_request(id, "cancelled by the user").await;
                Err(CallFailure::Tool(ToolError::Interrupted(format!(
                    "the call was cancelled and MCP server {server:?} was told to stop it (notifications/cancelled)"
                ))))
            }
            () = tokio::time::sleep(timeout) => {
                self.cancel_request(id, "timed out").await;
                Err(CallFailure::Tool(ToolError::Timeout(timeout)))
            }
        }
    }

    /// Runs one `tools/call` to its end: `input_required` rounds are answered
    /// (elicitation through [`ServerRequests`], `roots/list` with the working
    /// directory) and the call retried with a new id, `inputResponses` and
    /// the `requestState` echoed unchanged, at most [`MAX_INPUT_ROUNDS`]
    /// times; a call the server turns into a task is polled to its end.
    /// Notes left during the call (an elicitation declined because nobody
    /// can be asked) are added to the result the model reads.
    pub(crate) async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: JsonObject,
        cancel: &CancellationToken,
        timeout: Duration,
    ) -> Result<ToolOutput, CallFailure> {
        let outcome = self
            .call_rounds(server, tool, arguments, cancel, timeout)
            .await;
        let notes = take_notes(&self.handler.notes);
        match outcome {
            Ok(mut output) => {
                if !notes.is_empty() {
                    output
                        .content
                        .push(ContentBlock::text(format!("[tack: {}]", notes.join("; "))));
                }
                Ok(output)
            }
            Err(CallFailure::Tool(ToolError::Failed(text))) if !notes.is_empty() => {
                Err(CallFailure::Tool(ToolError::Failed(format!(
                    "{text}\n[tack: {}]",
                    notes.join("; ")
                ))))
            }
            Err(other) => Err(other),
        }
    }

    async fn call_rounds(
        &self,
        server: &str,
        tool: &str,
        arguments: JsonObject,
        cancel: &CancellationToken,
        timeout: Duration,
    ) -> Result<ToolOutput, CallFailure> {
        let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        for round in 0..MAX_INPUT_ROUNDS {
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            match self
                .round_trip(request, tool, cancel, timeout, server)
                .await?
            {
                ServerResult::InputRequiredResult(asked) => {
                    let requests = asked.input_requests.unwrap_or_default();
                    if requests.is_empty() {
                        if asked.request_state.is_none() {
                            return Err(CallFailure::Tool(ToolError::Internal(format!(
                                "MCP server {server:?} answered input_required with neither inputRequests nor requestState"
                            ))));
                        }
                        // Only state to carry: retry at once (with a short,
                        // growing pause so a looping server is not hammered).
                        tokio::time::sleep(Duration::from_millis(20 << round.min(4))).await;
                    }
                    let responses = self
                        .handler
                        .fulfil(requests)
                        .await
                        .map_err(|e| CallFailure::Tool(ToolError::Unavailable(e)))?;
                    params.input_responses = (!responses.is_empty()).then_some(responses);
                    params.request_state = asked.request_state;
                }
                ServerResult::CreateTaskResult(created) => {
                    return self
                        .run_task(server, tool, created.task, cancel, timeout)
                        .await;
                }
                other => {
                    let value = serde_json::to_value(&other).map_err(|e| {
                        CallFailure::Tool(ToolError::Internal(format!(
                            "could not read the result: {e}"
                        )))
                    })?;
                    return convert_result(&value).map_err(CallFailure::Tool);
                }
            }
        }
        Err(CallFailure::Tool(ToolError::Unavailable(format!(
            "MCP server {server:?} asked for more input {MAX_INPUT_ROUNDS} times without finishing the call; tack stopped answering (the server may be looping)"
        ))))
    }

    /// Polls a task (`tasks/get`) until it ends, at the server's suggested
    /// interval; status messages go to the progress sink, `input_required`
    /// is answered with `tasks/update`, and a cancelled call sends
    /// `tasks/cancel`. The call timeout bounds each request, not the task.
    async fn run_task(
        &self,
        server: &str,
        tool: &str,
        task: Task,
        cancel: &CancellationToken,
        timeout: Duration,
    ) -> Result<ToolOutput, CallFailure> {
        let id = task.task_id.clone();
        tracing::info!(server, tool, task = %id, "the MCP server runs the call as a task");
        if let Some(file) = &self.handler.task_file {
            remember(
                file,
                PendingTask {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    task_id: id.clone(),
                    started_at: now_secs(),
                },
            );
        }
        self.handler.report(
            tool,
            0.0,
            task.status_message.as_deref().or(Some("task started")),
        );
        self.poll_task(
            server,
            tool,
            &id,
            task.poll_interval_ms,
            task.status_message,
            cancel,
            timeout,
        )
        .await
    }

    /// Polls task `id` to its end (see [`Self::run_task`]); the task file
    /// forgets the task once it ended or was cancelled.
    #[expect(
        clippy::too_many_arguments,
        reason = "one call's context, passed through"
    )]
    pub(crate) async fn poll_task(
        &self,
        server: &str,
        tool: &str,
        id: &str,
        poll_interval_ms: Option<u64>,
        status_message: Option<String>,
        cancel: &CancellationToken,
        timeout: Duration,
    ) -> Result<ToolOutput, CallFailure> {
        let outcome = self
            .poll_task_inner(
                server,
                tool,
                id,
                poll_interval_ms,
                status_message,
                cancel,
                timeout,
            )
            .await;
        let ended = match &outcome {
            Ok(_) => true,
            Err(CallFailure::Tool(e)) => !matches!(e, ToolError::Timeout(_)),
            Err(CallFailure::Service(_)) => false,
        };
        if ended && let Some(file) = &self.handler.task_file {
            forget(file, server, id);
        }
        outcome
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one call's context, passed through"
    )]
    async fn poll_task_inner(
        &self,
        server: &str,
        tool: &str,
        id: &str,
        poll_interval_ms: Option<u64>,
        status_message: Option<String>,
        cancel: &CancellationToken,
        timeout: Duration,
    ) -> Result<ToolOutput, CallFailure> {
        let id = id.to_owned();
        let mut interval = poll_interval(poll_interval_ms);
        let mut last_message = status_message;
        let mut polls = 0u32;
        let mut answered = std::collections::BTreeSet::new();
        loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    let sent = tokio::time::timeout(
                        Duration::from_secs(2),
                        self.peer.cancel_task(CancelTaskParams::new(id.clone())),
                    )
                    .await;
                    if !matches!(sent, Ok(Ok(()))) {
                        tracing::debug!(server, task = %id, "could not send tasks/cancel");
                    }
                    return Err(CallFailure::Tool(ToolError::Interrupted(format!(
                        "the call was cancelled and MCP server {server:?} was asked to cancel its task {id} (tasks/cancel)"
                    ))));
                }
                () = tokio::time::sleep(interval) => {}
            }
            polls += 1;
            let got = tokio::select! {
                got = tokio::time::timeout(timeout, self.peer.get_task(GetTaskParams::new(id.clone()))) => match got {
                    Ok(got) => got?,
                    Err(_) => return Err(CallFailure::Tool(ToolError::Timeout(timeout))),
                },
                () = cancel.cancelled() => continue,
            };
            let detailed = got.task;
            interval = poll_interval(detailed.task.poll_interval_ms);
            if detailed.task.status_message != last_message {
                last_message = detailed.task.status_message.clone();
                if let Some(message) = &last_message {
                    self.handler.report(tool, f64::from(polls), Some(message));
                }
            }
            match detailed.payload {
                TaskPayload::Working => {}
                TaskPayload::InputRequired { input_requests } => {
                    // Keys are unique over the task's life: a request
                    // already answered is not asked again while the server
                    // catches up.
                    let fresh: InputRequests = input_requests
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if fresh.is_empty() {
                        continue;
                    }
                    answered.extend(fresh.keys().cloned());
                    let responses = self
                        .handler
                        .fulfil(fresh)
                        .await
                        .map_err(|e| CallFailure::Tool(ToolError::Unavailable(e)))?;
                    tokio::time::timeout(
                        timeout,
                        self.peer
                            .update_task(UpdateTaskParams::new(id.clone(), responses)),
                    )
                    .await
                    .map_err(|_| CallFailure::Tool(ToolError::Timeout(timeout)))??;
                }
                TaskPayload::Completed { result } => {
                    return convert_result(&Value::Object(result)).map_err(CallFailure::Tool);
                }
                TaskPayload::Failed { error } => {
                    let message = error
                        .get("message")
                        .and_then(Value::as_str)
                        .map(clean_text)
                        .unwrap_or_else(|| Value::Object(error.clone()).to_string());
                    return Err(CallFailure::Tool(ToolError::Internal(format!(
                        "MCP server {server:?}'s task {id} failed: {message}"
                    ))));
                }
                TaskPayload::Cancelled => {
                    return Err(CallFailure::Tool(ToolError::Interrupted(format!(
                        "MCP server {server:?} cancelled its task {id}"
                    ))));
                }
                _ => {
                    push_note(
                        &self.handler.notes,
                        format!("task {id} reported a status tack does not know"),
                    );
                }
            }
        }
    }

    pub(crate) fn add_task(&self, task: JoinHandle<()>) {
        self.tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(task);
    }

    /// Closes the connection: stdin closed, then SIGTERM, then kill (rmcp's
    /// stdio shutdown sequence), or the HTTP session deleted.
    pub async fn close(&self) {
        for task in self
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
        {
            task.abort();
        }
        if let Some(service) = self.service.lock().await.take() {
            let _ = service.cancel().await;
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        for task in self
            .tasks
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
        {
            task.abort();
        }
    }
}

fn poll_interval(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// What `connect` needs besides the transport.
pub(crate) struct ConnectArgs<'a> {
    pub server: &'a str,
    pub cwd: &'a Path,
    /// Where the OAuth token file is (`oauth::TokenStore`).
    pub state_dir: &'a Path,
    pub log_path: PathBuf,
    pub sink: Option<ProgressSink>,
    pub list_changed: Arc<Notify>,
    pub requests: Arc<dyn ServerRequests>,
    pub task_file: Option<PathBuf>,
}

fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// Opens a connection and completes the lifecycle. The caller bounds it with
/// the startup timeout; dropping the future kills a spawned process.
pub(crate) async fn connect(
    transport: &ResolvedTransport,
    args: ConnectArgs<'_>,
) -> Result<Connection, String> {
    let routes: Routes = Arc::default();
    let handler = Handler {
        server: args.server.to_owned(),
        routes: routes.clone(),
        sink: args.sink.clone(),
        list_changed: args.list_changed.clone(),
        requests: args.requests.clone(),
        notes: Notes::default(),
        cwd: args.cwd.to_owned(),
        task_file: args.task_file.clone(),
    };
    let kept = handler.clone();
    let (service, pid) = match open(transport, &args, handler.clone(), lifecycle()).await {
        Ok(opened) => opened,
        Err(Failure { error, message }) if retry_with_handshake(&error) => {
            // Some pre-2026 servers answer `server/discover` with an empty
            // result, or choke on it; they get a fresh transport and the
            // `initialize` handshake alone.
            tracing::info!(server = %args.server, "server/discover failed ({error:?}); retrying with the initialize handshake");
            open(transport, &args, handler, ClientLifecycleMode::Initialize)
                .await
                .map_err(|again| {
                    format!(
                        "{message}; and with the initialize handshake alone: {}",
                        again.message
                    )
                })?
        }
        Err(failure) => return Err(failure.message),
    };
    let peer = service.peer().clone();
    let info = peer.peer_info();
    let protocol_version = info
        .as_ref()
        .map(|i| i.protocol_version.to_string())
        .unwrap_or_default();
    let connection = Connection {
        peer: peer.clone(),
        service: tokio::sync::Mutex::new(Some(service)),
        protocol_version,
        pid,
        routes,
        tasks: Mutex::new(Vec::new()),
        handler: kept,
    };
    // On 2026-07-28 list-changed notifications arrive only on a
    // `subscriptions/listen` stream that asked for them.
    let modern = info
        .as_ref()
        .is_some_and(|i| !i.protocol_version.has_initialize());
    let announces = info.as_ref().is_some_and(|i| {
        i.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed)
            .unwrap_or(false)
    });
    if modern && announces {
        let notify = args.list_changed.clone();
        let server = args.server.to_owned();
        connection.add_task(tokio::spawn(async move {
            let filter = SubscriptionFilter::builder().tools_list_changed().build();
            let mut subscription = match peer.listen(filter).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::debug!(server = %server, "subscriptions/listen failed: {e}");
                    return;
                }
            };
            loop {
                match subscription.next().await {
                    Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                        notify.notify_one();
                    }
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => break,
                }
            }
        }));
    }
    Ok(connection)
}

/// A failed attempt to open a connection.
struct Failure {
    /// `None` when the transport itself could not be opened.
    error: Option<ClientInitializeError>,
    message: String,
}

/// Whether a failed `Auto` start is worth a second try with the legacy
/// handshake alone (the server may be a legacy one that mishandled
/// `server/discover`).
fn retry_with_handshake(error: &Option<ClientInitializeError>) -> bool {
    match error {
        Some(
            ClientInitializeError::ExpectedInitResult(_)
            | ClientInitializeError::ExpectedInitResponse(_)
            | ClientInitializeError::ConflictInitResponseId(..)
            | ClientInitializeError::UncorrelatedErrorResponse { .. }
            | ClientInitializeError::JsonRpcError(_)
            | ClientInitializeError::NoCompatibleProtocolVersion { .. }
            | ClientInitializeError::TransportError { .. }
            | ClientInitializeError::ConnectionClosed(_),
        ) => true,
        Some(_) | None => false,
    }
}

type Opened = (RunningService<RoleClient, Handler>, Option<u32>);

/// Spawns the process or opens the HTTP transport, and runs the lifecycle.
async fn open(
    transport: &ResolvedTransport,
    args: &ConnectArgs<'_>,
    handler: Handler,
    lifecycle: ClientLifecycleMode,
) -> Result<Opened, Failure> {
    let plain = |message: String| Failure {
        error: None,
        message,
    };
    match transport {
        ResolvedTransport::Stdio {
            command,
            args: argv,
            env,
            cwd,
        } => {
            let cwd = cwd.clone().unwrap_or_else(|| args.cwd.to_owned());
            let (process, pid) = spawn(command, argv, env, &cwd, &args.log_path).map_err(plain)?;
            let process = Probed::<_, StdioLabel>::new(process);
            match handler.serve_with_lifecycle(process, lifecycle).await {
                Ok(service) => Ok((service, pid)),
                Err(e) => {
                    let mut message = format!("the MCP handshake failed: {}", describe(&e));
                    if let Some(tail) = log_tail(&args.log_path) {
                        message.push_str(&format!("; its stderr ends with: {tail}"));
                    }
                    message.push_str(&format!(" (full log: {})", args.log_path.display()));
                    Err(Failure {
                        error: Some(e),
                        message,
                    })
                }
            }
        }
        ResolvedTransport::Http { url, headers } => {
            let config = StreamableHttpClientTransportConfig::with_uri(url.clone())
                .custom_headers(header_map(headers).map_err(plain)?);
            // A stored OAuth login (`tack mcp login`) brings its bearer token.
            let tokens = super::oauth::TokenStore::new(args.state_dir);
            let authorized = super::oauth::authorized_client(args.server, url, &tokens)
                .await
                .map_err(|e| plain(e.to_string()))?;
            let started = match authorized {
                Some(client) => {
                    let transport = Probed::<_, HttpLabel>::new(
                        StreamableHttpClientTransport::with_client(client, config),
                    );
                    handler.serve_with_lifecycle(transport, lifecycle).await
                }
                None => {
                    let transport = Probed::<_, HttpLabel>::new(
                        StreamableHttpClientTransport::from_config(config),
                    );
                    handler.serve_with_lifecycle(transport, lifecycle).await
                }
            };
            match started {
                Ok(service) => Ok((service, None)),
                Err(e) if e.is_authorization_required() => {
                    Err(plain(super::oauth::needs_login_message(args.server)))
                }
                Err(e) => Err(Failure {
                    message: format!(
                        "could not connect to {url} (streamable HTTP): {}",
                        describe(&e)
                    ),
                    error: Some(e),
                }),
            }
        }
        ResolvedTransport::Sse { url, headers } => {
            // The legacy transport (client/sse.rs): the event stream is opened here.
            let sse = SseTransport::connect(
                url,
                header_map(headers).map_err(plain)?.into_iter().collect(),
            )
            .await
            .map_err(|e| plain(format!("could not connect to {url} (HTTP+SSE): {e}")))?;
            match handler
                .serve_with_lifecycle(Probed::<_, SseLabel>::new(sse), lifecycle)
                .await
            {
                Ok(service) => Ok((service, None)),
                Err(e) => Err(Failure {
                    message: format!("could not connect to {url} (HTTP+SSE): {}", describe(&e)),
                    error: Some(e),
                }),
            }
        }
    }
}

fn spawn(
    command: &str,
    argv: &[String],
    env: &BTreeMap<String, String>,
    cwd: &Path,
    log_path: &Path,
) -> Result<(TokioChildProcess, Option<u32>), String> {
    use std::io::Write as _;
    if let Some(dir) = log_path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("could not create the log directory {}: {e}", dir.display()))?;
    }
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path)
        .map_err(|e| format!("could not open the log {}: {e}", log_path.display()))?;
    let _ = writeln!(
        log,
        "--- tack: starting {command} {} (cwd {}) ---",
        argv.join(" "),
        cwd.display()
    );
    let mut cmd = tack_process::tokio_command(command);
    cmd.args(argv).envs(env).current_dir(cwd);
    let mut wrapped = process_wrap::tokio::CommandWrap::from(cmd);
    // Its own process group: Ctrl-C in the terminal reaches tack (which sends
    // notifications/cancelled) and not the server, and a kill takes the
    // server's own children with it.
    #[cfg(unix)]
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    let (process, _) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "could not run {command:?}: command not found (cwd {})",
                    cwd.display()
                )
            } else {
                format!("could not run {command:?}: {e}")
            }
        })?;
    let pid = process.id();
    Ok((process, pid))
}

fn header_map(
    headers: &BTreeMap<String, String>,
) -> Result<HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>, String> {
    headers
        .iter()
        .map(|(k, v)| {
            let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| format!("{k:?} is not a valid HTTP header name"))?;
            let value = reqwest::header::HeaderValue::from_str(v).map_err(|_| {
                format!("the value of header {k:?} is not a valid HTTP header value")
            })?;
            Ok((name, value))
        })
        .collect()
}

/// The last non-empty lines of a server's log, to quote in a start failure.
fn log_tail(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let since_start = text.rsplit("--- tack: starting").next().unwrap_or(&text);
    let lines: Vec<&str> = since_start
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    Some(clean_text(&tail).chars().take(500).collect())
}
