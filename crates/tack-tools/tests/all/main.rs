//! Built-in tools against real files, processes and sockets.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the search tests run the rg binary to compare against"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod bash;
mod declared;
mod definitions;
mod files;
mod notebook;
mod pdf;
mod search;
mod swapped_paths;
mod tool_search;
mod web;
mod websearch;
