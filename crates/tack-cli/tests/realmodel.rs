//! Real traffic as a regression suite: the 1,229 recorded API exchanges in
//! `../shared/realmodel` (Anthropic, OpenAI and 30 OpenAI-compatible hosts;
//! streamed and whole; tool calls, thinking, server tools, errors), replayed
//! to the `tack` binary by the corpus's own runner, read in place. Every
//! item must end ok or in its expected error.
//!
//! The corpus is found beside the checkout (`../shared/realmodel` of the
//! workspace, or of a parent); `TACK_REALMODEL_DIR` points elsewhere;
//! `TACK_REALMODEL_GLOB` replays a
//! subset (`o28*.json`); `TACK_REALMODEL_JOBS` sets the parallel runs.
//!
//! The corpus's runner asks for `--output-format json` and checks tack's
//! own report (`text`, `stop_reason`, `usage`); since `json` is Claude
//! Code's result object now, the runner is given a wrapper that asks for
//! `tack-json` (the same result event, in tack's shape) instead.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts the corpus's replay runner"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;
use std::process::Command;

/// `TACK_REALMODEL_DIR`, else `shared/realmodel` beside the checkout or
/// one of its parents (`../shared/realmodel` of the workspace).
fn corpus_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TACK_REALMODEL_DIR") {
        return Some(PathBuf::from(dir));
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/realmodel"))
        .find(|d| d.join("run.sh").is_file())
}

#[test]
fn every_recorded_exchange_replays_ok_or_as_its_expected_error() {
    let Some(dir) = corpus_dir() else {
        // A checkout without the corpus beside it: nothing to replay. Set
        // TACK_REALMODEL_REQUIRED=1 to make that a failure.
        assert!(
            std::env::var_os("TACK_REALMODEL_REQUIRED").is_none(),
            "the real-traffic corpus was not found (set TACK_REALMODEL_DIR)"
        );
        eprintln!("SKIPPED: no shared/realmodel beside the checkout (set TACK_REALMODEL_DIR)");
        return;
    };
    let runner = dir.join("run.sh");
    assert!(runner.is_file(), "no run.sh in {}", dir.display());
    let glob = std::env::var("TACK_REALMODEL_GLOB").unwrap_or_else(|_| "*.json".into());
    let jobs = std::env::var("TACK_REALMODEL_JOBS").unwrap_or_else(|_| {
        std::thread::available_parallelism()
            .map_or(2, |n| n.get() + 1)
            .to_string()
    });
    let wrapper_dir = tempfile::tempdir().unwrap();
    let wrapper = wrapper_dir.path().join("tack");
    std::fs::write(
        &wrapper,
        format!(
            "#!/usr/bin/env bash\n\
             # --output-format json -> tack-json: the corpus checks tack's own result fields.\n\
             args=(); prev=\n\
             for a in \"$@\"; do\n\
             \x20 if [ \"$prev\" = --output-format ] && [ \"$a\" = json ]; then a=tack-json; fi\n\
             \x20 args+=(\"$a\"); prev=$a\n\
             done\n\
             exec '{}' \"${{args[@]}}\"\n",
            env!("CARGO_BIN_EXE_tack")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new("bash")
        .arg(&runner)
        .arg(&wrapper)
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
