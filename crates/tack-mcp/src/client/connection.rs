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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientCapabilities, ClientConfig, Implementation,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestId, ServerNotification,
    SubscriptionFilter,
};
use rmcp::service::ClientInitializeError;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, Peer, RoleClient};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::config::ResolvedTransport;
use super::convert::clean_text;
use super::probe::{HttpLabel, Probed, SseLabel, StdioLabel, describe};
use super::sse::SseTransport;

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
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("tack", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
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

/// What `connect` needs besides the transport.
pub(crate) struct ConnectArgs<'a> {
    pub server: &'a str,
    pub cwd: &'a Path,
    /// Where the OAuth token file is (`oauth::TokenStore`).
    pub state_dir: &'a Path,
    pub log_path: PathBuf,
    pub sink: Option<ProgressSink>,
    pub list_changed: Arc<Notify>,
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
    };
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
