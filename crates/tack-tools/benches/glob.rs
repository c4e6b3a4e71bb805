//! Glob over a generated tree of 100,000 files.
//!
//! `cargo bench -p tack-tools --bench glob`. Prints the median of warm runs,
//! and `rg --files -g PATTERN` on the same tree for reference (rg's globs
//! match at any depth, so its counts can differ; rg does not sort by mtime).

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "runs the rg binary to compare against"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::time::{Duration, Instant};

use serde_json::json;
use tack_tool::ToolContext;
use tokio_util::sync::CancellationToken;

const FILES: usize = 100_000;
const RUNS: usize = 7;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let started = Instant::now();
    let extensions = ["rs", "txt", "md", "toml"];
    for d in 0..FILES / 100 {
        let sub = root.join(format!("a{}/b{}/dir{d:04}", d % 10, d % 7));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..100 {
            std::fs::write(sub.join(format!("file{f:03}.{}", extensions[f % 4])), "").unwrap();
        }
    }
    println!("generated {FILES} files in {:.1?}", started.elapsed());

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let tools = tack_tools::search::search_tools();
    let glob = tools.iter().find(|t| t.name() == "Glob").unwrap();
    println!("median of {RUNS} warm runs:");
    for pattern in ["**/*.rs", "**/file007.*", "a3/**/dir00*/*.md", "**/*"] {
        let mut times: Vec<Duration> = Vec::new();
        let mut first_line = String::new();
        for _ in 0..RUNS {
            let ctx = ToolContext::new(root.clone(), "bench", "bench", CancellationToken::new());
            let started = Instant::now();
            let out = rt
                .block_on(glob.call(json!({"pattern": pattern}), ctx))
                .unwrap();
            times.push(started.elapsed());
            let total = out.structured.as_ref().unwrap()["total"].as_u64().unwrap();
            first_line = format!("{total} matches");
        }
        times.sort();
        // For reference: `rg --files` with the same glob, when rg is installed.
        let mut rg_times: Vec<Duration> = Vec::new();
        for _ in 0..RUNS {
            let started = Instant::now();
            let Ok(out) = std::process::Command::new("rg")
                .args(["--files", "--hidden", "-g", pattern])
                .arg(&root)
                .output()
            else {
                break;
            };
            assert!(out.status.success() || out.stdout.is_empty());
            rg_times.push(started.elapsed());
        }
        rg_times.sort();
        let reference = rg_times
            .get(rg_times.len() / 2)
            .map(|t| format!("   rg --files -g: {t:>8.1?}"))
            .unwrap_or_default();
        println!(
            "  {pattern:<22} Glob {:>8.1?}  ({first_line}){reference}",
            times[RUNS / 2]
        );
    }
}
