//! `tack mcp …`: MCP servers as tools (list, tools, call, approve, diff) and
//! `tack mcp serve`, which exposes tack's tools, policy included.

use std::sync::Arc;

use anyhow::anyhow;
use serde::Serialize;
use tack_mcp::client::{ClientError, McpManager};
use tack_session::sources::Mcp;
use tack_session::{Begin, Headless, Session, SessionOptions};

use crate::cli::{McpArgs, McpCommand, ServeArgs};
use crate::out::outln;
use crate::{Failure, exit};

pub fn mcp_failure(e: ClientError) -> Failure {
    Failure {
        code: e.exit_code(),
        error: anyhow!(e),
    }
}

fn print<T: Serialize>(json: bool, value: &T, text: impl FnOnce(&T)) {
    if json {
        outln!("{}", serde_json::to_string(value).unwrap_or_default());
    } else {
        text(value);
    }
}

pub async fn run(args: McpArgs) -> Result<u8, Failure> {
    if let McpCommand::Serve(serve) = args.command {
        return serve_command(serve).await;
    }
    let ctx = crate::project(args.cwd.as_deref(), &Default::default())?;
    let manager = Mcp::manager(&ctx, false)?;
    let result = command(&manager, args.command, args.json).await;
    manager.shutdown().await;
    result
}

async fn command(manager: &McpManager, command: McpCommand, json: bool) -> Result<u8, Failure> {
    match command {
        McpCommand::List => {
            manager.start().await;
            let servers = manager.list();
            print(json, &servers, |servers| {
                if servers.is_empty() {
                    eprintln!("no MCP servers configured (.mcp.json or mcpServers in settings)");
                }
                for s in servers {
                    let state = serde_json::to_value(s.state).unwrap_or_default();
                    outln!(
                        "{:<20} {:<14} {:>3} tools  ~{:>6} tokens  {} ({})",
                        s.name,
                        state.as_str().unwrap_or(""),
                        s.tools,
                        s.definition_tokens,
                        s.transport,
                        s.source.as_str(),
                    );
                    if let Some(error) = &s.error {
                        outln!("    error: {error}");
                    }
                }
            });
            Ok(exit::OK)
        }
        McpCommand::Tools { server } => {
            let tools = manager.server_tools(&server).await.map_err(mcp_failure)?;
            print(json, &tools, |tools| {
                for t in tools {
                    let flags = [
                        (t.read_only, "read-only"),
                        (t.destructive, "destructive"),
                        (
                            t.withheld,
                            "WITHHELD: definition changed, see tack mcp diff",
                        ),
                    ]
                    .iter()
                    .filter(|(on, _)| *on)
                    .map(|(_, f)| *f)
                    .collect::<Vec<_>>()
                    .join(", ");
                    outln!("{}  [{flags}]", t.name);
                    outln!("    {}", t.description.lines().next().unwrap_or(""));
                }
            });
            Ok(exit::OK)
        }
        McpCommand::Call {
            server,
            tool,
            arguments,
        } => {
            let arguments: serde_json::Value = serde_json::from_str(&arguments)
                .map_err(|e| Failure::usage(anyhow!("the arguments are not valid JSON: {e}")))?;
            let outcome = manager
                .call(&server, &tool, arguments)
                .await
                .map_err(mcp_failure)?;
            print(json, &outcome, |o| outln!("{}", o.text));
            Ok(exit::OK)
        }
        McpCommand::Approve { server, changes } => {
            if changes {
                let approved = manager
                    .approve_changes(&server)
                    .await
                    .map_err(mcp_failure)?;
                print(json, &approved, |a| {
                    outln!(
                        "approved {} changed tool definition(s) of {server}",
                        a.len()
                    )
                });
            } else {
                manager.approve_server(&server).map_err(mcp_failure)?;
                if !json {
                    outln!("approved MCP server {server}");
                }
            }
            Ok(exit::OK)
        }
        McpCommand::Diff { server } => {
            let changes = manager.diff(&server).await.map_err(mcp_failure)?;
            print(json, &changes, |changes| {
                if changes.is_empty() {
                    outln!("no tool of {server} changed since it was approved");
                }
                for c in changes {
                    let v = serde_json::to_value(c).unwrap_or_default();
                    outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
                }
            });
            Ok(exit::OK)
        }
        McpCommand::Serve(_) => Err(Failure::internal(anyhow!("unreachable"))),
    }
}

/// `tack mcp serve`: tack's tools through the same pipeline as `tack run`
/// (rules, hooks, budget, audit). No terminal: ask means deny unless a mode
/// or rule says otherwise.
async fn serve_command(args: ServeArgs) -> Result<u8, Failure> {
    let info = tack_mcp::server::ServerInfo::new("tack", env!("CARGO_PKG_VERSION"));
    let mut served: Option<Arc<Session>> = None;
    let host: Arc<dyn tack_tool::ToolHost> = if args.conformance_fixtures {
        Arc::new(tack_mcp::server::conformance_fixture_host())
    } else {
        let ctx = crate::project(args.cwd.as_deref(), &args.permissions.to_cli()?)?;
        let session_id = format!("mcp-{}", SessionOptions::new_id());
        let writer =
            tack_agent::transcript::TranscriptWriter::open(&ctx.sessions_dir(), &session_id)
                .map_err(Failure::internal)?;
        let events = tack_agent::EventBus::new().with(Arc::new(writer));
        let session = Session::assemble(
            &ctx,
            SessionOptions::new(session_id)
                .sources(crate::sources::sources(
                    args.fixture_tools,
                    args.approve_mcp,
                ))
                .only_tools(args.tools.clone())
                .interaction(Arc::new(Headless))
                .events(events),
        )
        .await?;
        let _ = session
            .begin(Begin {
                provider: "mcp-client".into(),
                model: String::new(),
                resumed: false,
            })
            .await;
        let session = Arc::new(session);
        served = Some(Arc::clone(&session));
        Arc::new(session.pipeline().clone())
    };
    let result = match &args.http {
        Some(addr) => {
            let addr: std::net::SocketAddr = addr
                .parse()
                .map_err(|e| Failure::usage(anyhow!("--http {addr}: not an address: {e}")))?;
            let mut options = tack_mcp::server::HttpOptions::default();
            for host in &args.allowed_hosts {
                options.allowed_hosts.push(host.clone());
            }
            tack_mcp::server::serve_http(host, info, addr, options).await
        }
        None => tack_mcp::server::serve_stdio(host, info).await,
    };
    if let Some(session) = served {
        session.end("other").await;
    }
    result.map_err(|e| Failure::internal(anyhow!("MCP server: {e}")))?;
    Ok(exit::OK)
}
