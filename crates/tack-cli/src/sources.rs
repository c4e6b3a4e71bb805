//! The tool sources of `tack run` and `tack mcp serve`.

use std::sync::Arc;

use tack_mcp::client::ProgressUpdate;
use tack_session::sources::{Builtins, Fixtures, Mcp, ToolSource};

/// The tool sources of `tack run` and `tack mcp serve`: built-ins, the
/// fixture tools when asked for, then MCP servers (progress on stderr),
/// which are also returned (their manager, once loaded, reaches the servers).
pub fn sources(fixture_tools: bool, approve_mcp: bool) -> (Vec<Arc<dyn ToolSource>>, Arc<Mcp>) {
    let mut sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(Builtins)];
    if fixture_tools {
        sources.push(Arc::new(Fixtures));
    }
    let mcp = Arc::new(Mcp::new(approve_mcp).on_progress(Arc::new(|update| {
        eprintln!("{}", progress_line(update));
    })));
    sources.push(Arc::clone(&mcp) as _);
    (sources, mcp)
}

/// `mcp__server__tool: 3/10 (indexing)`.
pub fn progress_line(update: &ProgressUpdate) -> String {
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
