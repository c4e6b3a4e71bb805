//! MCP both ways: [`client`] turns MCP servers into tack Tools, [`server`]
//! exposes a [`tack_tool::ToolHost`] (tack's full dispatch pipeline) to MCP clients.

pub mod client;
pub mod server;
