//! Built-in tools against real files, processes and sockets.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod bash;
mod definitions;
mod files;
mod search;
mod web;
