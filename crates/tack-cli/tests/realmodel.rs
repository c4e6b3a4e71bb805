//! Real traffic as a regression suite: the 1,229 recorded API exchanges in
//! `../shared/realmodel` (Anthropic, OpenAI and 30 OpenAI-compatible hosts;
//! streamed and whole; tool calls, thinking, server tools, errors), replayed
//! to the `tack` binary by the corpus's own runner, read in place. Every
//! item must end ok or in its expected error.
//!
//! `TACK_REALMODEL_DIR` points elsewhere; `TACK_REALMODEL_GLOB` replays a
//! subset (`o28*.json`); `TACK_REALMODEL_JOBS` sets the parallel runs.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts the corpus's replay runner"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;
use std::process::Command;

fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TACK_REALMODEL_DIR") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realmodel")
}

#[test]
fn every_recorded_exchange_replays_ok_or_as_its_expected_error() {
    let dir = corpus_dir();
    let runner = dir.join("run.sh");
    assert!(
        runner.is_file(),
        "the real-traffic corpus is not at {} (set TACK_REALMODEL_DIR)",
        dir.display()
    );
    let glob = std::env::var("TACK_REALMODEL_GLOB").unwrap_or_else(|_| "*.json".into());
    let jobs = std::env::var("TACK_REALMODEL_JOBS").unwrap_or_else(|_| {
        std::thread::available_parallelism()
            .map_or(2, |n| n.get() + 1)
            .to_string()
    });
    let out = Command::new("bash")
        .arg(&runner)
        .arg(env!("CARGO_BIN_EXE_tack"))
        .arg(&glob)
        .env("JOBS", jobs)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("realmodel:"))
        .unwrap_or("no summary line");
    eprintln!("{summary}");
    assert!(out.status.success(), "{summary}\n{stdout}\n{stderr}");
    // The runner's own count: all of them, not a subset that happened to run.
    let (ok, total) = summary
        .trim_start_matches("realmodel: ")
        .trim_end_matches(" ok")
        .split_once('/')
        .expect("N/M in the summary");
    assert_eq!(ok, total, "{summary}");
    if glob == "*.json" {
        assert!(total.parse::<usize>().unwrap() >= 1229, "{summary}");
    }
}
