//! tack-session end to end: sessions assembled from settings and tool
//! sources, driven against the strict mock API over real HTTP.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches fail loudly"
)]

mod support;

mod agent_definitions;
mod builtin_tools;
mod claude_config;
mod command_options;
mod declared_tools;
mod exposure;
mod fuzz;
mod mcp_requests;
mod permission_hooks;
mod project_trust;
mod red_team;
mod sandbox_settings;
mod sessions;
mod skills;
mod subagents;
mod system_prompt;
mod web_search;
mod write_options;
