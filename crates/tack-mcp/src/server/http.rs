//! Streamable HTTP: rmcp's service mounted at `/mcp` in an axum router, with
//! the Host and Origin checks that keep a browser page from reaching a local
//! server through DNS rebinding.
//!
//! - `Host` must name a loopback host (`localhost`, `127.0.0.1`, `[::1]`) with
//!   the bound port, or be in [`HttpOptions::allowed_hosts`]; else 403.
//! - `Origin`, when present, must be a loopback origin (any port, http or
//!   https) or in [`HttpOptions::allowed_origins`]; else 403. Clients that are
//!   not browsers send no `Origin` and pass.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tack_tool::ToolHost;
use tokio_util::sync::CancellationToken;

use super::{Error, Result, ServerInfo, ToolServer};

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
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            path: "/mcp".into(),
        }
    }
}

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

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
    /// Binds `addr` and prepares the endpoint.
    pub async fn bind(
        host: Arc<dyn ToolHost>,
        info: ServerInfo,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<Self> {
        options.check()?;
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
            .with_cancellation_token(sessions.clone());
        let server = ToolServer::new(host, info);
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let router = axum::Router::new().nest_service(&options.path, service);
        Ok(Self {
            listener,
            router,
            addr,
            sessions,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until the process ends or the listener fails.
    pub async fn run(self) -> Result<()> {
        self.run_until(std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then closes every session (open
    /// SSE streams included) and returns.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<()> {
        let Self {
            listener,
            router,
            addr,
            sessions,
        } = self;
        let stop = sessions.clone();
        tracing::info!("MCP server listening on http://{addr}");
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stop.cancel();
            })
            .await
            .map_err(|source| Error::Http { addr, source })?;
        sessions.cancel();
        Ok(())
    }
}

/// Serves `host` over streamable HTTP at `addr` (endpoint [`HttpOptions::path`],
/// `/mcp` by default) until the process ends. Bind a loopback address unless
/// the server must be reachable from elsewhere, and then list its public
/// names in [`HttpOptions::allowed_hosts`].
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
