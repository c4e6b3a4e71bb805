//! The MCP client against real servers: @modelcontextprotocol/server-everything
//! and server-filesystem (Node 22), and `tests/python/server.py` (mcp==2.3.0,
//! speaking 2026-07-28), over stdio and streamable HTTP on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod support;

mod cli;
mod config;
mod conformance;
mod elicitation;
mod everything;
mod filesystem;
mod lifecycle;
mod oauth;
mod oauth_server;
mod python;
mod real_servers;
mod robust;
mod skills;
mod tasks;
