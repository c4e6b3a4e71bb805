//! `tack mcp …`: MCP servers as tools (list, tools, call, approve, diff) and
//! `tack mcp serve`, which exposes tack's tools, policy included.

use std::path::Path;
use std::sync::Arc;

use anyhow::anyhow;
use serde::Serialize;
use tack_mcp::client::{
    ClientError, ConfigSource, ManagerOptions, McpConfig, McpManager, ProgressUpdate,
};
use tack_policy::{Level, Settings};

use crate::cli::{McpArgs, McpCommand, ServeArgs};
use crate::session::{ProjectContext, SessionOptions, assemble};
use crate::{Failure, exit};

/// The MCP servers of a project: `.mcp.json` plus `mcpServers` in every settings file.
pub fn config(project_root: &Path, settings: &Settings) -> Result<McpConfig, Failure> {
    let mut config = McpConfig::new();
    config.load_project(project_root).map_err(mcp_failure)?;
    for file in settings.files() {
        let source = match file.level {
            Level::User => ConfigSource::UserSettings,
            Level::Project => ConfigSource::ProjectSettings,
            Level::Local => ConfigSource::LocalSettings,
            Level::Managed => ConfigSource::ManagedSettings,
            _ => continue,
        };
        config
            .add_servers(source, &file.value)
            .map_err(mcp_failure)?;
    }
    Ok(config)
}

/// The manager of a session's servers (starts nothing).
pub fn manager(
    project_root: &Path,
    state_dir: &Path,
    settings: &Settings,
    approve_project_servers: bool,
) -> Result<McpManager, Failure> {
    let mut options = ManagerOptions::new(
        state_dir.to_owned(),
        state_dir.join("mcp-cache"),
        state_dir.join("logs").join("mcp"),
        project_root.to_owned(),
    );
    options.approve_project_servers = approve_project_servers;
    // Progress notifications of long MCP calls, on stderr.
    options.progress = Some(Arc::new(|update: &ProgressUpdate| {
        eprintln!("{}", progress_line(update));
    }));
    McpManager::new(config(project_root, settings)?, options).map_err(mcp_failure)
}

/// `mcp__server__tool: 3/10 (indexing)`.
fn progress_line(update: &ProgressUpdate) -> String {
    let amount = match update.total {
        Some(total) => format!("{}/{}", update.progress, total),
        None => format!("{}", update.progress),
    };
    let message = update
        .message
        .as_deref()
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    format!("  … {} {}: {amount}{message}", update.server, update.tool)
}

pub fn mcp_failure(e: ClientError) -> Failure {
    Failure {
        code: e.exit_code(),
        error: anyhow!(e),
    }
}

fn print<T: Serialize>(json: bool, value: &T, text: impl FnOnce(&T)) {
    if json {
        println!("{}", serde_json::to_string(value).unwrap_or_default());
    } else {
        text(value);
    }
}

pub async fn run(args: McpArgs) -> Result<u8, Failure> {
    if let McpCommand::Serve(serve) = args.command {
        return serve_command(serve).await;
    }
    let ctx = ProjectContext::load(args.cwd.as_deref(), &Default::default())?;
    let manager = manager(&ctx.cwd, &ctx.state_dir, &ctx.settings, false)?;
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
                    println!(
                        "{:<20} {:<14} {:>3} tools  ~{:>6} tokens  {} ({})",
                        s.name,
                        state.as_str().unwrap_or(""),
                        s.tools,
                        s.definition_tokens,
                        s.transport,
                        s.source.as_str(),
                    );
                    if let Some(error) = &s.error {
                        println!("    error: {error}");
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
                    println!("{}  [{flags}]", t.name);
                    println!("    {}", t.description.lines().next().unwrap_or(""));
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
            print(json, &outcome, |o| println!("{}", o.text));
            Ok(exit::OK)
        }
        McpCommand::Approve { server, changes } => {
            if changes {
                let approved = manager
                    .approve_changes(&server)
                    .await
                    .map_err(mcp_failure)?;
                print(json, &approved, |a| {
                    println!(
                        "approved {} changed tool definition(s) of {server}",
                        a.len()
                    )
                });
            } else {
                manager.approve_server(&server).map_err(mcp_failure)?;
                if !json {
                    println!("approved MCP server {server}");
                }
            }
            Ok(exit::OK)
        }
        McpCommand::Diff { server } => {
            let changes = manager.diff(&server).await.map_err(mcp_failure)?;
            print(json, &changes, |changes| {
                if changes.is_empty() {
                    println!("no tool of {server} changed since it was approved");
                }
                for c in changes {
                    let v = serde_json::to_value(c).unwrap_or_default();
                    println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
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
    let host: Arc<dyn tack_tool::ToolHost> = if args.conformance_fixtures {
        Arc::new(tack_mcp::server::conformance_fixture_host())
    } else {
        let ctx = ProjectContext::load(args.cwd.as_deref(), &args.permissions.to_cli()?)?;
        let session_id = format!("mcp-{}", uuid::Uuid::now_v7());
        let writer = tack_agent::transcript::TranscriptWriter::open(
            &tack_agent::transcript::sessions_dir(&ctx.state_dir),
            &session_id,
        )
        .map_err(Failure::internal)?;
        let events = tack_agent::EventBus::new().with(Arc::new(writer));
        let assembled = assemble(
            &ctx,
            SessionOptions {
                session_id: &session_id,
                fixture_tools: args.fixture_tools,
                only_tools: args.tools.as_deref(),
                prompter: None,
                approve_mcp: args.approve_mcp,
            },
            &events,
        )
        .await?;
        events.emit(&tack_protocol::SessionEvent::SessionStart {
            session_id: session_id.clone(),
            cwd: ctx.cwd.to_string_lossy().into_owned(),
            provider: "mcp-client".into(),
            model: String::new(),
            tools: assembled.pipeline.registry().names(),
            resumed: false,
            time: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        });
        assembled.pipeline
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
    result.map_err(|e| Failure::internal(anyhow!("MCP server: {e}")))?;
    Ok(exit::OK)
}
