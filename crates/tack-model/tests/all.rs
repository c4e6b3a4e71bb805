//! Integration tests of tack-model over real HTTP against the strict mock API
//! (`tack-testkit`). One test binary, modules under `suite/`.

#![expect(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] fns panic on setup failure, which is what a test wants"
)]

mod suite;
