//! Streamable HTTP: rmcp's service mounted at `/mcp` in an axum router,
//! served by hyper with a header-read timeout, behind a guard.
//!
//! The key design decision: **a port on loopback is not a boundary.** Any
//! process of any user on the machine can connect to it, and the tools run as
//! the server's user (Bash included). So:
//!
//! - **Every request carries a bearer token** ([`HttpAuth`]): one generated
//!   when the server binds (the default; read it with [`HttpServer::token`])
//!   or one given. A request without it, or with another, is 401 with
//!   `WWW-Authenticate: Bearer`. [`HttpAuth::None`] exists for tests and is
//!   refused off loopback.
//! - **Loopback addresses only**, unless [`HttpOptions::allow_remote`]; then
//!   a token is mandatory.
//! - `Host` must appear once (else 400) and name a loopback host
//!   (`localhost`, `127.0.0.1`, `[::1]`) with the bound port, or be in
//!   [`HttpOptions::allowed_hosts`]; else 403 (DNS rebinding).
//! - `Origin`, when present, must be a loopback origin (any port, http or
//!   https) or in [`HttpOptions::allowed_origins`]; else 403. Clients that are
//!   not browsers send no `Origin` and pass.
//! - A client has [`HttpOptions::header_read_timeout`] to send a request's
//!   headers (slowloris), and at most [`HttpOptions::max_sessions`] MCP
//!   sessions are open at once (503 past that).
//!
//! The order of the checks is in the `guard` module.
//!
//! With [`HttpServer::bind_per_session`], each MCP session a client
//! initializes gets the host a [`HostFactory`] makes for it, and keeps it
//! until the session closes: for `tack mcp serve`, a pipeline of the one
//! tack session (its policy, hooks, audit trail and MCP servers) with
//! built-in tools of the client's own, so one client's `cd`, background jobs
//! and artifacts are not another's, and closing a session drops its host and
//! so kills its jobs. Stateless (2026-07-28) requests belong to no session
//! and share the host given, as every session does with [`HttpServer::bind`].

mod batch;
mod guard;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tack_tool::ToolHost;
use tokio_util::sync::CancellationToken;

use super::{Error, Result, ServerInfo, ToolServer};

/// Makes the host of one MCP session: called (synchronously, so it must be
/// quick) when a client initializes a session. The host lives as long as
/// its session.
pub type HostFactory = Arc<dyn Fn() -> Arc<dyn ToolHost> + Send + Sync>;

/// Who may use the server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpAuth {
    /// A token generated when the server binds ([`HttpServer::token`]).
    #[default]
    Generate,
    /// This token.
    Token(BearerToken),
    /// None: any process that can reach the port may call the tools.
    /// Refused on a non-loopback address; for tests.
    None,
}

/// A bearer token. Its `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(…)")
    }
}

impl BearerToken {
    /// A token from a person or a file: surrounding whitespace is dropped;
    /// the rest must be non-empty visible ASCII (it travels in a header).
    pub fn new(token: impl Into<String>) -> Result<Self> {
        let token = token.into();
        let token = token.trim();
        if token.is_empty() {
            return Err(Error::InvalidOption("the bearer token is empty".into()));
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(Error::InvalidOption(
                "the bearer token must be visible ASCII characters without spaces (e.g. the output of `openssl rand -hex 32`)".into(),
            ));
        }
        Ok(Self(token.to_owned()))
    }

    /// 32 random bytes from the operating system's generator, as 64 hex digits.
    pub fn generate() -> Self {
        let bytes: [u8; 32] = rand::random();
        Self(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Options of the HTTP transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Host header values accepted besides the loopback names with the bound
    /// port: `"tack.example"` (any port) or `"tack.example:8443"`.
    pub allowed_hosts: Vec<String>,
    /// Origins accepted besides loopback ones, with a scheme:
    /// `"https://app.example"`, `"https://app.example:8443"`, `"http://app.example:*"`.
    pub allowed_origins: Vec<String>,
    /// Where the MCP endpoint is mounted. Default `/mcp`.
    pub path: String,
    /// Who may use the server. Default: a token generated at bind.
    pub auth: HttpAuth,
    /// Accept a bind address that is not loopback (then `auth` may not be
    /// [`HttpAuth::None`]). Default false.
    pub allow_remote: bool,
    /// The most MCP sessions open at once. Default [`DEFAULT_MAX_SESSIONS`].
    pub max_sessions: usize,
    /// How long a client may take to send a request's headers before the
    /// connection is closed. Default 10 s.
    pub header_read_timeout: Duration,
    /// `TCP_NODELAY` on accepted connections. Default on: with Nagle's
    /// algorithm, an answer written in two parts (an SSE stream's headers,
    /// then its event) waits for the client's delayed ACK, ~40 ms a call on
    /// a kept-alive connection. Off only to measure that (benches/http_latency.rs).
    pub tcp_nodelay: bool,
}

/// The default of [`HttpOptions::max_sessions`]: many more than the clients
/// one person runs, few enough that idle ones cannot pile up unbounded.
pub const DEFAULT_MAX_SESSIONS: usize = 64;

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            path: "/mcp".into(),
            auth: HttpAuth::default(),
            allow_remote: false,
            max_sessions: DEFAULT_MAX_SESSIONS,
            header_read_timeout: Duration::from_secs(10),
            tcp_nodelay: true,
        }
    }
}

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// rmcp's own limit on a request body, which the guard applies too when it
/// reads a body to tell an `initialize` apart.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

impl HttpOptions {
    fn check(&self) -> Result<()> {
        if !self.path.starts_with('/') || self.path.len() < 2 {
            return Err(Error::InvalidOption(format!(
                "the endpoint path {:?} must start with '/' and name a path, e.g. \"/mcp\"",
                self.path
            )));
        }
        if let Some(bad) = self.allowed_origins.iter().find(|o| !o.contains("://")) {
            return Err(Error::InvalidOption(format!(
                "allowed origin {bad:?} has no scheme; write it as \"https://{bad}\""
            )));
        }
        if self.max_sessions == 0 {
            return Err(Error::InvalidOption(
                "the session limit must be at least 1".into(),
            ));
        }
        Ok(())
    }

    /// Loopback only unless `allow_remote`, and never without a token then.
    fn check_addr(&self, addr: SocketAddr) -> Result<()> {
        if !addr.ip().is_loopback() {
            if !self.allow_remote {
                return Err(Error::InvalidOption(format!(
                    "refusing to listen on {addr}: it is not a loopback address, so other machines could call the tools (Bash included) as this user. Listen on 127.0.0.1:{port}, or allow remote clients explicitly (allow_remote; `tack mcp serve --allow-remote`)",
                    port = addr.port()
                )));
            }
            if self.auth == HttpAuth::None {
                return Err(Error::InvalidOption(format!(
                    "refusing to listen on {addr} without authentication: a server other machines can reach needs a bearer token"
                )));
            }
        }
        Ok(())
    }

    /// The allowed Host values for a server bound at `port`.
    fn hosts(&self, port: u16) -> Vec<String> {
        LOOPBACK_NAMES
            .iter()
            .map(|name| format!("{name}:{port}"))
            .chain(self.allowed_hosts.iter().cloned())
            .collect()
    }

    /// The allowed Origin values: loopback on any port, plus the configured ones.
    fn origins(&self) -> Vec<String> {
        ["http", "https"]
            .iter()
            .flat_map(|scheme| {
                LOOPBACK_NAMES
                    .iter()
                    .map(move |name| format!("{scheme}://{name}:*"))
            })
            .chain(self.allowed_origins.iter().cloned())
            .collect()
    }
}

/// A bound, not yet running, MCP HTTP server. Bind to port 0 and read
/// [`HttpServer::local_addr`] to let the system choose a free port.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    addr: SocketAddr,
    token: Option<BearerToken>,
    header_read_timeout: Duration,
    tcp_nodelay: bool,
    sessions: CancellationToken,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// Binds `addr` and prepares the endpoint. Refuses a non-loopback `addr`
    /// unless [`HttpOptions::allow_remote`], and then without a token.
    pub async fn bind(
        host: Arc<dyn ToolHost>,
        info: ServerInfo,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<Self> {
        Self::bind_with(host, None, info, addr, options).await
    }

    /// [`bind`](Self::bind), with a host of its own for each MCP session,
    /// made by `hosts`; stateless requests use `host`.
    pub async fn bind_per_session(
        host: Arc<dyn ToolHost>,
        hosts: HostFactory,
        info: ServerInfo,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<Self> {
        Self::bind_with(host, Some(hosts), info, addr, options).await
    }

    async fn bind_with(
        host: Arc<dyn ToolHost>,
        hosts: Option<HostFactory>,
        info: ServerInfo,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<Self> {
        options.check()?;
        options.check_addr(addr)?;
        let token = match &options.auth {
            HttpAuth::Generate => Some(BearerToken::generate()),
            HttpAuth::Token(token) => Some(token.clone()),
            HttpAuth::None => None,
        };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| Error::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| Error::Bind { addr, source })?;
        let sessions = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(options.hosts(addr.port()))
            .with_allowed_origins(options.origins())
            .enforce_origin_validation()
            // Stateless (2026-07-28) calls that send nothing before their
            // result are answered as plain JSON rather than a one-event stream.
            .with_json_response(true)
            .with_max_request_body_bytes(MAX_BODY_BYTES)
            .with_cancellation_token(sessions.clone());
        let info = Arc::new(info);
        let manager = Arc::new(LocalSessionManager::default());
        let service = StreamableHttpService::new(
            move || {
                let server = ToolServer::with_info(Arc::clone(&host), Arc::clone(&info));
                Ok(match &hosts {
                    Some(hosts) => server.with_session_hosts(Arc::clone(hosts)),
                    None => server,
                })
            },
            Arc::clone(&manager),
            config,
        );
        let guard = Arc::new(guard::Guard::new(
            token.as_ref(),
            manager,
            options.max_sessions,
            MAX_BODY_BYTES,
        ));
        let router = axum::Router::new()
            .nest_service(&options.path, service)
            .layer(axum::middleware::from_fn_with_state(guard, guard::guard));
        Ok(Self {
            listener,
            router,
            addr,
            token,
            header_read_timeout: options.header_read_timeout,
            tcp_nodelay: options.tcp_nodelay,
            sessions,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The token every request must carry (`Authorization: Bearer …`), unless
    /// the server was bound with [`HttpAuth::None`].
    pub fn token(&self) -> Option<&BearerToken> {
        self.token.as_ref()
    }

    /// Serves until the process ends or the listener fails.
    pub async fn run(self) -> Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then closes every session (open
    /// SSE streams included), lets requests in flight finish (for up to 5
    /// s) and returns.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        let Self {
            listener,
            router,
            addr,
            header_read_timeout,
            tcp_nodelay,
            sessions,
            ..
        } = self;
        tracing::info!("MCP server listening on http://{addr}");
        let connections = hyper_util::server::graceful::GracefulShutdown::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        accept_failed(e).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            if let Err(e) = stream.set_nodelay(tcp_nodelay) {
                tracing::debug!("TCP_NODELAY could not be set on a connection: {e}");
            }
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout)
                .serve_connection(
                    TokioIo::new(stream),
                    TowerToHyperService::new(router.clone()),
                );
            let connection = connections.watch(connection);
            tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::debug!("an MCP HTTP connection ended: {e}");
                }
            });
        }
        drop(listener);
        sessions.cancel();
        if tokio::time::timeout(Duration::from_secs(5), connections.shutdown())
            .await
            .is_err()
        {
            tracing::debug!("MCP HTTP connections still open after 5 s were dropped");
        }
        Ok(())
    }
}

/// After a failed accept: a client that went away is nothing; running out of
/// file descriptors (or worse) waits a little rather than spinning.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::warn!("the MCP HTTP server could not accept a connection: {e}");
    tokio::time::sleep(Duration::from_millis(200)).await;
}

/// Serves `host` over streamable HTTP at `addr` (endpoint [`HttpOptions::path`],
/// `/mcp` by default) until the process ends. With [`HttpAuth::Generate`]
/// (the default) nobody learns the token: use [`HttpServer::bind`] and
/// [`HttpServer::token`], or give one ([`HttpAuth::Token`]).
pub async fn serve_http(
    host: Arc<dyn ToolHost>,
    info: ServerInfo,
    addr: SocketAddr,
    options: HttpOptions,
) -> Result<()> {
    HttpServer::bind(host, info, addr, options)
        .await?
        .run()
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_carry_the_port_and_origins_any_port() {
        let options = HttpOptions {
            allowed_hosts: vec!["tack.example".into()],
            allowed_origins: vec!["https://app.example:443".into()],
            ..HttpOptions::default()
        };
        assert_eq!(
            options.hosts(8808),
            [
                "localhost:8808",
                "127.0.0.1:8808",
                "[::1]:8808",
                "tack.example"
            ]
        );
        let origins = options.origins();
        assert!(origins.contains(&"http://localhost:*".to_owned()));
        assert!(origins.contains(&"https://[::1]:*".to_owned()));
        assert_eq!(
            origins.last().map(String::as_str),
            Some("https://app.example:443")
        );
    }

    #[test]
    fn bad_options_are_refused_with_a_fix() {
        let no_scheme = HttpOptions {
            allowed_origins: vec!["app.example".into()],
            ..HttpOptions::default()
        };
        let err = no_scheme.check().unwrap_err().to_string();
        assert!(err.contains("https://app.example"), "{err}");
        let bad_path = HttpOptions {
            path: "mcp".into(),
            ..HttpOptions::default()
        };
        assert!(bad_path.check().is_err());
    }
}
