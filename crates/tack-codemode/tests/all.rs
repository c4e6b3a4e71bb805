//! Integration tests of tack-codemode: real programs in the real engine, their
//! tool calls answered by a bridge that sleeps, fails or never answers on
//! demand. One test binary, modules under `suite/`.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] fns panic on setup failure, which is what a test wants"
)]

mod suite;
