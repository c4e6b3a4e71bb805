//! tack-sandbox's integration tests: one binary, a module per part, each
//! driving real sockets, files and processes.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts curl in front of the proxy"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and their helpers fail loudly"
)]

#[path = "all/proxy.rs"]
mod proxy;
