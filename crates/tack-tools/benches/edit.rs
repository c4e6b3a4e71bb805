//! Edit on a 10 MB file: a single replacement near the end, a replace_all
//! of many occurrences, and the not-found path (fuzzy search for the
//! closest lines over the whole file).
//!
//! `cargo bench -p tack-tools --bench edit`. Prints the median of runs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput};
use tokio_util::sync::CancellationToken;

const RUNS: usize = 9;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let path = root.join("big.rs");
    let mut content = String::with_capacity(10 * 1024 * 1024 + 64);
    let mut i = 0u64;
    while content.len() < 10 * 1024 * 1024 {
        content.push_str(&format!(
            "    let value_{i} = compute(input, {i}); // filler\n"
        ));
        i += 1;
    }
    content.push_str("fn the_end() {}\n");
    std::fs::write(&path, &content).unwrap();
    println!("file: {} bytes, {} lines", content.len(), i + 1);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let tools = tack_tools::files::file_tools();
    let (read, edit) = (&tools[0], &tools[2]);
    let ctx = || ToolContext::new(root.clone(), "bench", "bench", CancellationToken::new());
    let call = |tool: &dyn Tool, input: Value| -> (Duration, Result<ToolOutput, ToolError>) {
        let started = Instant::now();
        let out = rt.block_on(tool.call(input, ctx()));
        (started.elapsed(), out)
    };
    let file = path.to_str().unwrap();

    let (t, out) = call(read.as_ref(), json!({"file_path": file}));
    out.unwrap();
    println!("Read (2000 lines shown, whole file hashed and counted): {t:.1?}");

    let mut times = Vec::new();
    for run in 0..RUNS {
        let (old, new) = if run % 2 == 0 {
            ("fn the_end() {}", "fn the_very_end() {}")
        } else {
            ("fn the_very_end() {}", "fn the_end() {}")
        };
        let (t, out) = call(
            edit.as_ref(),
            json!({"file_path": file, "old_string": old, "new_string": new}),
        );
        out.unwrap();
        times.push(t);
    }
    times.sort();
    println!(
        "Edit, one replacement near the end: median {:.1?} (min {:.1?}, max {:.1?})",
        times[RUNS / 2],
        times[0],
        times[RUNS - 1]
    );

    let mut times = Vec::new();
    for run in 0..RUNS {
        let (old, new) = if run % 2 == 0 {
            ("// filler", "// FILLER")
        } else {
            ("// FILLER", "// filler")
        };
        let (t, out) = call(
            edit.as_ref(),
            json!({"file_path": file, "old_string": old, "new_string": new, "replace_all": true}),
        );
        out.unwrap();
        times.push(t);
    }
    times.sort();
    println!(
        "Edit, replace_all of {i} occurrences: median {:.1?}",
        times[RUNS / 2]
    );

    let mut times = Vec::new();
    for _ in 0..3 {
        let (t, out) = call(
            edit.as_ref(),
            json!({"file_path": file, "old_string": "    let value_12345 = compute(inptu, 12345);\n    let value_12346 = compute(input, 12346); // filer\n", "new_string": "x"}),
        );
        assert!(out.unwrap_err().to_string().contains("lines 12346-12347"));
        times.push(t);
    }
    times.sort();
    println!(
        "Edit, not found (closest-lines search over the file): median {:.1?}",
        times[1]
    );
}
