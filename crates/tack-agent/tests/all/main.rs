//! The loop end to end: tack-agent against the strict mock API over real HTTP.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches fail loudly"
)]

mod support;

mod command_tools;
mod hooks_in_the_loop;
mod loop_tests;
mod mcp_names;
mod permission_prompt;
mod pipeline_stages;
mod providers_and_retries;
mod sandbox_permission;
