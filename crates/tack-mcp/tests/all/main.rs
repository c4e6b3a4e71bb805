//! tack-mcp's integration tests, one binary (link time on 2 cores). The MCP
//! peers they talk to are installed by `tests/setup.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod client;
mod server;
