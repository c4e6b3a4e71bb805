//! MCP server: exposes a [`ToolHost`] — tack's whole dispatch pipeline — to
//! MCP clients over stdio ([`serve_stdio`]) and streamable HTTP ([`serve_http`]).
//!
//! The key design decision: **the server adds no policy of its own.** Every
//! `tools/call` goes to [`ToolHost::call`], which validates, asks the
//! permission rules, runs hooks, applies the output budget and writes the
//! audit exactly as `tack run` does. This module only translates: tool
//! definitions and annotations out, calls in, results back as MCP content, and
//! a client's `notifications/cancelled` into the call's
//! [`CancellationToken`](tokio_util::sync::CancellationToken).
//!
//! Protocol: rmcp 3.11 speaks 2024-11-05 through 2026-07-28. Clients that send
//! `initialize` negotiate 2025-11-25 or older (2026-07-28 has no handshake);
//! clients on 2026-07-28 send `server/discover` or self-describing requests
//! (`_meta` with protocol version, client info and capabilities) and over HTTP
//! are served statelessly. Both lifecycles are handled by rmcp.
//!
//! Errors: a call the host answers with `is_error` (bad input, denied,
//! timeout…) is a tool execution error (`isError: true`); a call to a tool
//! that does not exist is a JSON-RPC protocol error `-32602` whose message is
//! the host's own text (it names the available tools), as the spec requires.
//!
//! Test support (the `conformance` feature): `RegistryHost` runs a tool
//! registry without the pipeline, and `conformance_fixture_host` serves the
//! conformance suite's fixture tools, which log, report progress and ask the
//! client for sampling or elicitation mid-call. Only once a fixture host is
//! built does the server put each call in its MCP request's scope (the
//! crate-internal `scope` module); serving tack's pipeline sets up nothing
//! per call beyond progress forwarding.
//!
//! ```no_run
//! # async fn run(host: std::sync::Arc<dyn tack_tool::ToolHost>) -> tack_mcp::server::Result<()> {
//! use tack_mcp::server::{HttpOptions, ServerInfo, serve_http};
//!
//! // `host`: tack's dispatch pipeline (implemented by the agent).
//! let addr = "127.0.0.1:8808".parse().expect("address");
//! serve_http(host, ServerInfo::new("tack", "0.1.0"), addr, HttpOptions::default()).await
//! # }
//! ```

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt as _};
use tack_protocol::ToolOutcome;
use tack_tool::{CallOptions, ToolCall, ToolCallResult, ToolHost};

mod convert;
#[cfg(feature = "conformance")]
mod fixtures;
mod http;
mod progress;
#[cfg(feature = "conformance")]
mod scope;
mod stdio;

#[cfg(feature = "conformance")]
pub use fixtures::{RegistryHost, conformance_fixture_host};
pub use http::{HttpOptions, HttpServer, serve_http};
use progress::ProgressForwarder;

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The address for `--http` could not be bound.
    #[error(
        "could not listen on {addr}: {source}; choose another port or stop the process using it"
    )]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The HTTP server failed while running.
    #[error("the MCP HTTP server on {addr} failed: {source}")]
    Http {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The client on stdio did not complete the MCP handshake.
    #[error("the MCP client on stdio did not initialize the session: {0}")]
    Initialize(String),
    /// The stdio session ended abnormally.
    #[error("the MCP stdio session ended abnormally: {0}")]
    Session(String),
    /// An option is not usable (e.g. an allowed origin without a scheme).
    #[error("invalid MCP server option: {0}")]
    InvalidOption(String),
}

/// Result of the server functions.
pub type Result<T> = std::result::Result<T, Error>;

/// How the server introduces itself in `initialize` / `server/discover`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    /// Optional guidance for the client's model on how to use the server.
    pub instructions: Option<String>,
}

impl ServerInfo {
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            instructions: None,
        }
    }

    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }
}

/// Serves `host` over this process's stdin/stdout until the client closes
/// the stream. Logs must go to stderr: stdout carries only JSON-RPC.
pub async fn serve_stdio(host: Arc<dyn ToolHost>, info: ServerInfo) -> Result<()> {
    let server = ToolServer::new(host, info);
    let (read, write) = rmcp::transport::stdio_pipes();
    let running = server
        .serve(stdio::StdioTransport::new(read, write))
        .await
        .map_err(|e| Error::Initialize(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| Error::Session(e.to_string()))?;
    Ok(())
}

/// Serves `host` over any byte stream pair (a socket, a pipe, an in-memory
/// duplex for tests) until the peer closes it.
pub async fn serve_io<R, W>(
    host: Arc<dyn ToolHost>,
    info: ServerInfo,
    read: R,
    write: W,
) -> Result<()>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let server = ToolServer::new(host, info);
    let running = server
        .serve((read, write))
        .await
        .map_err(|e| Error::Initialize(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| Error::Session(e.to_string()))?;
    Ok(())
}

/// Numbers the calls of this process so each ToolCall id is unique across
/// sessions (MCP request ids repeat from one session to the next).
static CALL_SEQ: AtomicU64 = AtomicU64::new(1);

/// The MCP handler: one per stdio session or HTTP session (stateless HTTP
/// requests get a fresh one each), sharing the host.
#[derive(Clone)]
pub(crate) struct ToolServer {
    host: Arc<dyn ToolHost>,
    info: Arc<ServerInfo>,
    /// Set when this process serves the conformance fixtures: each call then
    /// runs in its MCP request's scope.
    #[cfg(feature = "conformance")]
    scopes: Option<scope::RequestScopes>,
}

impl ToolServer {
    pub(crate) fn new(host: Arc<dyn ToolHost>, info: ServerInfo) -> Self {
        Self {
            host,
            info: Arc::new(info),
            #[cfg(feature = "conformance")]
            scopes: scope::RequestScopes::if_fixtures_served(),
        }
    }

    /// The host's answer to one call. Serving the conformance fixtures, the
    /// call runs in its request's scope and a fixture may answer with a
    /// protocol error instead.
    async fn run_host(
        &self,
        call: ToolCall,
        options: CallOptions,
        context: &RequestContext<RoleServer>,
    ) -> std::result::Result<ToolCallResult, ErrorData> {
        #[cfg(feature = "conformance")]
        if let Some(scopes) = &self.scopes {
            return scopes.run(context, self.host.call(call, options)).await;
        }
        #[cfg(not(feature = "conformance"))]
        let _ = context;
        Ok(self.host.call(call, options).await)
    }

    /// Runs one call through the host and maps its answer to MCP.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let name = request.name.into_owned();
        let input = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall {
            id: format!("mcp_{}", CALL_SEQ.fetch_add(1, Ordering::Relaxed)),
            name,
            input,
        };
        let name = call.name.clone();
        // The tool's own progress reports, as notifications/progress when
        // the client sent a progressToken.
        let (progress, forwarder) = match context.meta.get_progress_token() {
            Some(token) => {
                let (sink, forwarder) = ProgressForwarder::start(context.peer.clone(), token);
                (sink, Some(forwarder))
            }
            None => (tack_tool::ProgressSink::none(), None),
        };
        // `context.ct` is cancelled by rmcp when the client sends
        // notifications/cancelled for this request (or the session ends).
        let options = CallOptions::new(context.ct.clone()).with_progress(progress);
        let answer = self.run_host(call, options, &context).await;
        if let Some(forwarder) = forwarder {
            // Reports made during the call go out before its response; none after.
            forwarder.finish().await;
        }
        let result = answer?;
        if result.outcome == ToolOutcome::UnknownTool {
            return Err(ErrorData::invalid_params(
                result.block.text(),
                Some(serde_json::json!({ "tool": name })),
            ));
        }
        Ok(CallToolResponse::Complete(convert::call_result(result)))
    }
}

#[expect(
    deprecated,
    reason = "logging/setLevel is deprecated by SEP-2577 (2026-07-28) but part of 2025-11-25"
)]
impl ServerHandler for ToolServer {
    fn get_info(&self) -> InitializeResult {
        let mut capabilities = ServerCapabilities::default();
        capabilities.tools = Some(Default::default());
        capabilities.logging = Some(Default::default());
        let mut result = InitializeResult::new(capabilities).with_server_info(Implementation::new(
            self.info.name.clone(),
            self.info.version.clone(),
        ));
        if let Some(instructions) = &self.info.instructions {
            result = result.with_instructions(instructions.clone());
        }
        result
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let host = &self.host;
        let tools = host
            .definitions()
            .into_iter()
            .map(|def| {
                let annotations = host.annotations(&def.name);
                convert::tool(def, annotations)
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    /// Accepted always; only the conformance fixtures send log messages
    /// (tack's tools have no MCP log channel).
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        #[cfg(feature = "conformance")]
        if let Some(scopes) = &self.scopes {
            scopes.set_level(request.level);
        }
        #[cfg(not(feature = "conformance"))]
        let _ = request;
        Ok(())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [rmcp::model::ProtocolVersion]> {
        Cow::Borrowed(rmcp::model::ProtocolVersion::KNOWN_VERSIONS)
    }
}
