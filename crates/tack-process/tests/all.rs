//! Integration tests of tack-process: real `sh` processes, their groups and
//! children checked in `/proc`. One test binary, modules under `suite/`.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers outside #[test] fns panic on setup failure, which is what a test wants"
)]

mod suite;
