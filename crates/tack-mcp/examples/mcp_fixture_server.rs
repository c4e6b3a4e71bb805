//! A runnable MCP server over a [`RegistryHost`], for the conformance suite,
//! the inspector and manual testing. tack's real serving path is
//! `tack mcp serve` (the agent's pipeline); this one has no permission rules.
//!
//! ```text
//! mcp_fixture_server [--tools fixtures|builtin] [--http ADDR] [--token T] [--allow-host H]... [--allow-origin O]...
//!   --tools fixtures   the conformance fixture tools and `echo` (default)
//!   --tools builtin    tack's built-in tools (Read, Glob, Grep, Bash, …), cwd = current dir
//!   --http ADDR        streamable HTTP at http://ADDR/mcp (port 0: any free port);
//!                      prints `MCP_URL=http://…/mcp` on stdout once listening.
//!                      Without it: stdio.
//!   --token T          require `Authorization: Bearer T`. Without it the HTTP
//!                      server has no authentication (loopback only): the
//!                      conformance suite cannot send a header.
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use tack_mcp::server::{
    BearerToken, HttpAuth, HttpOptions, HttpServer, RegistryHost, ServerInfo,
    conformance_fixture_host, serve_stdio,
};
use tack_tool::{ToolHost, ToolRegistry};

struct Args {
    tools: String,
    http: Option<SocketAddr>,
    options: HttpOptions,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        tools: "fixtures".into(),
        http: None,
        options: HttpOptions {
            auth: HttpAuth::None,
            ..HttpOptions::default()
        },
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--tools" => args.tools = value()?,
            "--http" => {
                let v = value()?;
                args.http = Some(v.parse().map_err(|e| format!("--http {v}: {e}"))?);
            }
            "--token" => {
                let token = BearerToken::new(value()?).map_err(|e| e.to_string())?;
                args.options.auth = HttpAuth::Token(token);
            }
            "--allow-host" => args.options.allowed_hosts.push(value()?),
            "--allow-origin" => args.options.allowed_origins.push(value()?),
            "-h" | "--help" => {
                return Err(
                    "usage: mcp_fixture_server [--tools fixtures|builtin] [--http ADDR] \
                            [--token T] [--allow-host H]... [--allow-origin O]..."
                        .into(),
                );
            }
            other => return Err(format!("unknown argument {other:?}; see --help")),
        }
    }
    Ok(args)
}

fn host(tools: &str) -> Result<Arc<dyn ToolHost>, String> {
    match tools {
        "fixtures" => Ok(Arc::new(conformance_fixture_host())),
        "builtin" => {
            let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
            let state =
                std::env::temp_dir().join(format!("tack-mcp-fixture-{}", std::process::id()));
            let options = tack_tools::BuiltinOptions {
                cwd: cwd.clone(),
                program_roots: Vec::new(),
                artifacts: Arc::new(tack_tools::artifacts::ArtifactStore::new(state)),
                web: Default::default(),
                web_search: None,
                read_filter: None,
                sandbox: None,
            };
            let mut registry = ToolRegistry::new();
            for tool in tack_tools::builtin_tools(&options) {
                registry.register(tool).map_err(|e| e.to_string())?;
            }
            Ok(Arc::new(RegistryHost::new(registry).with_cwd(cwd)))
        }
        other => Err(format!(
            "unknown tool set {other:?}: use fixtures or builtin"
        )),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("mcp_fixture_server: {e}");
            return ExitCode::from(2);
        }
    };
    let host = match host(&args.tools) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("mcp_fixture_server: {e}");
            return ExitCode::from(2);
        }
    };
    let info = ServerInfo::new("tack-fixtures", env!("CARGO_PKG_VERSION"));
    let result = match args.http {
        None => serve_stdio(host, info).await,
        Some(addr) => match HttpServer::bind(host, info, addr, args.options).await {
            Ok(server) => {
                println!("MCP_URL=http://{}/mcp", server.local_addr());
                server
                    .run_until(async {
                        let _ = tokio::signal::ctrl_c().await;
                    })
                    .await
            }
            Err(e) => Err(e),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp_fixture_server: {e}");
            ExitCode::FAILURE
        }
    }
}
