//! Integration tests of tack-hooks: real hook scripts run by `sh -c` in temp
//! directories. One test binary, modules under `suite/`.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] fns panic on setup failure, which is what a test wants"
)]

mod suite;
