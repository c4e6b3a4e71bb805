//! `market-analyst mcp`: the five tools over MCP on stdin/stdout, through
//! a tack session's pipeline, as `tack mcp serve` serves tack's: schema
//! validation, the working directory's rules and hooks, the audit trail
//! (a transcript `$TACK_STATE_DIR/sessions/mcp-<id>.jsonl`). The tools are
//! granted as in `run`; stdout carries JSON-RPC only.

use std::sync::Arc;

use tack_mcp::server::ServerInfo;
use tack_session::{Begin, Headless, Session, SessionOptions};

use crate::Failure;
use crate::args::McpArgs;

const INSTRUCTIONS: &str = "Market data over a synthetic data set whose clock is 2026-11-27T21:00:00Z (the market close). Start with get_stock_snapshot; report `as_of` and say when `stale` is true; a missing price is an error, never a number.";

pub async fn serve(_args: McpArgs) -> Result<u8, Failure> {
    let provider = crate::cli::provider()?;
    let ctx = crate::run::project()?;
    let session_id = format!("mcp-{}", SessionOptions::new_id());
    let writer = tack_agent::transcript::TranscriptWriter::open(&ctx.sessions_dir(), &session_id)
        .map_err(|e| Failure::from(tack_session::Error::from(e)))?;
    let events = tack_agent::EventBus::new().with(Arc::new(writer));
    let session = Session::assemble(
        &ctx,
        SessionOptions::new(session_id)
            .sources(vec![Arc::new(market_analyst::tools(provider))])
            .interaction(Arc::new(Headless))
            .events(events)
            .tool_search(Some(tack_session::tool_search::ToolSearchMode::Off)),
    )
    .await?;
    let _ = session
        .begin(Begin {
            provider: "mcp-client".into(),
            model: String::new(),
            resumed: false,
        })
        .await;
    let mut info = ServerInfo::new("market-analyst", env!("CARGO_PKG_VERSION"));
    info.instructions = Some(INSTRUCTIONS.to_owned());
    let host: Arc<dyn tack_tool::ToolHost> = Arc::new(session.pipeline().clone());
    let served = tack_mcp::server::serve_stdio(host, info).await;
    session.end("other").await;
    served.map_err(|e| Failure::internal(format!("MCP server: {e}")))?;
    Ok(tack_protocol::exit::OK)
}
