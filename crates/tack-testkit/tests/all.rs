//! Integration tests of the mock model APIs: real HTTP on 127.0.0.1 with reqwest.
//! One test binary; the modules live in `tests/all/`.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns panic on setup failure, which is what a test wants"
)]

#[path = "all/support.rs"]
mod support;

#[path = "all/anthropic.rs"]
mod anthropic;
#[path = "all/caching.rs"]
mod caching;
#[path = "all/faults.rs"]
mod faults;
#[path = "all/openai.rs"]
mod openai;
#[path = "all/recording.rs"]
mod recording;
#[path = "all/responses.rs"]
mod responses;
#[path = "all/script.rs"]
mod script;
#[path = "all/validation.rs"]
mod validation;
