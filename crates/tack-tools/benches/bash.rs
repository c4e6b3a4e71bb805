//! Bash spawn overhead: 200 calls of `true` through the Bash tool, against a
//! bare `bash -c true` spawned from Rust (tokio and std).
//!
//! `cargo bench -p tack-tools --bench bash`. Prints mean, p50 and p99 per call.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "measures bare tokio and std spawns against the Bash tool"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_tool::ToolContext;
use tokio_util::sync::CancellationToken;

const CALLS: usize = 200;
const WARMUP: usize = 10;

fn stats(name: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let mean = times.iter().sum::<Duration>() / u32::try_from(times.len()).unwrap();
    let pick = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{name:<34} mean {:>8.2?}  p50 {:>8.2?}  p99 {:>8.2?}",
        mean,
        pick(0.50),
        pick(0.99)
    );
    mean
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let tools = tack_tools::bash::bash_tools(root.clone());
    let bash = tools.iter().find(|t| t.name() == "Bash").unwrap();
    let ctx = ToolContext::new(
        root.clone(),
        "bench",
        "toolu_bench",
        CancellationToken::new(),
    );

    println!("{CALLS} calls each after {WARMUP} warm-up calls, the three kinds interleaved:");
    rt.block_on(async {
        let tool_call = || async {
            let out = bash
                .call(json!({"command": "true"}), ctx.clone())
                .await
                .unwrap();
            assert!(out.structured.unwrap()["exit_code"] == 0);
        };
        let bare_tokio = || async {
            let status = tokio::process::Command::new("bash")
                .args(["-c", "true"])
                .current_dir(&root)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .await
                .unwrap();
            assert!(status.success());
        };
        let bare_std = || {
            let status = std::process::Command::new("bash")
                .args(["-c", "true"])
                .current_dir(&root)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        };
        for _ in 0..WARMUP {
            tool_call().await;
            bare_tokio().await;
            bare_std();
        }
        let (mut tool, mut tokio_times, mut std_times) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..CALLS {
            // rotate the order so drift in machine load hits all three alike
            for k in 0..3 {
                let t = Instant::now();
                match (i + k) % 3 {
                    0 => {
                        tool_call().await;
                        tool.push(t.elapsed());
                    }
                    1 => {
                        bare_tokio().await;
                        tokio_times.push(t.elapsed());
                    }
                    _ => {
                        bare_std();
                        std_times.push(t.elapsed());
                    }
                }
            }
        }
        let t = stats("Bash tool (`true`)", tool);
        let b = stats("bare `bash -c true` (tokio)", tokio_times);
        stats("bare `bash -c true` (std)", std_times);
        println!(
            "mean overhead of the tool over a bare tokio spawn: {:.2?} per call",
            t.saturating_sub(b)
        );
    });
}
