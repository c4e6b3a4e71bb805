//! tack-mcp's integration tests, one binary (link time on 2 cores). The MCP
//! peers they talk to are installed by `tests/setup.sh`.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts the tack binary and MCP peers (node, python, conformance)"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod client;
mod server;
mod skills_served;
