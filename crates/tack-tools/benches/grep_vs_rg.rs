//! Grep (the tool) against the `rg` binary on the same generated tree of
//! 50,000 files, same pattern, in files_with_matches and content modes.
//!
//! `cargo bench -p tack-tools --bench grep_vs_rg` (needs `rg` on PATH).
//! Prints the median of several warm runs of each, and the ratio.

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

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_tool::{Tool, ToolContext};
use tokio_util::sync::CancellationToken;

const FILES: usize = 50_000;
const RUNS: usize = 7;

/// A deterministic tree: 500 directories of 100 files of about 2 KB of
/// words; about 1 file in 50 holds "needle_<n>".
fn generate(root: &Path) {
    let words = [
        "alpha", "beta", "gamma", "delta", "struct", "impl", "fn", "let", "match", "return",
        "self", "value", "config", "error", "result", "option", "string", "vector", "map", "iter",
    ];
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for d in 0..FILES / 100 {
        let dir = root.join(format!("dir{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            let mut text = String::with_capacity(2200);
            let with_needle = next() % 50 == 0;
            for line in 0..40 {
                for _ in 0..8 {
                    text.push_str(words[(next() % words.len() as u64) as usize]);
                    text.push(' ');
                }
                if with_needle && line == 20 {
                    text.push_str(&format!("needle_{}", next() % 1000));
                }
                text.push('\n');
            }
            std::fs::write(dir.join(format!("file{f:03}.txt")), text).unwrap();
        }
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time_rg(args: &[&str], root: &Path) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        let out = Command::new("rg").args(args).arg(root).output().unwrap();
        times.push(started.elapsed());
        lines = out.stdout.iter().filter(|&&b| b == b'\n').count();
    }
    (median(times), lines)
}

fn time_tool(
    rt: &tokio::runtime::Runtime,
    tool: &dyn Tool,
    input: serde_json::Value,
    root: &Path,
) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..RUNS {
        let ctx = ToolContext::new(
            root.to_path_buf(),
            "bench",
            "bench",
            CancellationToken::new(),
        );
        let started = Instant::now();
        let out = rt.block_on(tool.call(input.clone(), ctx)).unwrap();
        times.push(started.elapsed());
        lines = match &out.content[0] {
            tack_protocol::ContentBlock::Text(t) => t.text.lines().count(),
            _ => 0,
        };
    }
    (median(times), lines)
}

fn main() {
    if Command::new("rg").arg("--version").output().is_err() {
        eprintln!("rg is not installed (apt-get install ripgrep); nothing to compare with");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let started = Instant::now();
    generate(&root);
    println!(
        "generated {FILES} files in {:.1?} under {}",
        started.elapsed(),
        root.display()
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let tools = tack_tools::search::search_tools();
    let grep = tools.iter().find(|t| t.name() == "Grep").unwrap();
    let pattern = "needle_[0-9]+";
    // Warm the page cache for both.
    time_rg(&["-l", pattern], &root);

    println!("median of {RUNS} warm runs, pattern {pattern:?}:");
    for (mode, rg_args) in [
        ("files_with_matches", vec!["-l", pattern]),
        ("content", vec!["--heading", "-n", pattern]),
    ] {
        let (rg_time, rg_lines) = time_rg(&rg_args, &root);
        let (ours, our_lines) = time_tool(
            &rt,
            grep.as_ref(),
            json!({"pattern": pattern, "output_mode": mode, "head_limit": 0}),
            &root,
        );
        println!(
            "  {mode:<18} Grep {:>8.1?} ({our_lines} lines)   rg {:>8.1?} ({rg_lines} lines)   ratio {:.2}x",
            ours,
            rg_time,
            ours.as_secs_f64() / rg_time.as_secs_f64()
        );
    }
}
