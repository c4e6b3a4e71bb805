//! What opening the judged path costs the file tools on small files: Read
//! of a 10-line file six directories deep, Write (create or replace) of a
//! small file beside it, and Grep over 200 such files. Since round 12 a
//! tool opens the physical path without following a link (`openat2` with
//! `RESOLVE_NO_SYMLINKS`), and writes go through the directory opened so.
//!
//! `cargo bench -p tack-tools --bench small_files`. Prints the median and
//! p99 of each over many runs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext};
use tokio_util::sync::CancellationToken;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let deep = root.join("a/b/c/d/e/f");
    std::fs::create_dir_all(&deep).unwrap();
    let text: String = (1..=10)
        .map(|i| format!("line {i} of the file\n"))
        .collect();
    let file = deep.join("notes.txt");
    std::fs::write(&file, &text).unwrap();
    let many = root.join("src");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..200 {
        std::fs::write(
            many.join(format!("m{i}.rs")),
            format!("fn f{i}() {{}}\n{text}"),
        )
        .unwrap();
    }

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let files = tack_tools::files::file_tools();
    let read = files.iter().find(|t| t.name() == "Read").unwrap();
    let write = files.iter().find(|t| t.name() == "Write").unwrap();
    let search = tack_tools::search::search_tools();
    let grep = search.iter().find(|t| t.name() == "Grep").unwrap();
    // As the pipeline calls them: with the files the permission check
    // judged the call's path to be.
    let ctx = |checked: Option<&Value>| {
        let mut ctx = ToolContext::new(root.clone(), "bench", "bench", CancellationToken::new());
        ctx.checked_files = checked
            .and_then(Value::as_str)
            .map(|p| vec![std::path::PathBuf::from(p)])
            .unwrap_or_default();
        ctx
    };
    let time = |tool: &dyn Tool, input: &Value, runs: usize| -> (Duration, Duration) {
        let mut times: Vec<Duration> = (0..runs)
            .map(|_| {
                let started = Instant::now();
                rt.block_on(tool.call(input.clone(), ctx(input.get("file_path"))))
                    .unwrap();
                started.elapsed()
            })
            .collect();
        times.sort();
        (times[runs / 2], times[runs * 99 / 100])
    };

    let (p50, p99) = time(read.as_ref(), &json!({"file_path": file}), 5000);
    println!("Read, 10 lines, 6 directories deep: p50 {p50:.1?}, p99 {p99:.1?}");
    // Write wants the file read first; replacing it again is allowed after
    // each write (the tool records what it wrote).
    let target = deep.join("out.txt");
    let input = json!({"file_path": target, "content": text});
    let (p50, p99) = time(write.as_ref(), &input, 2000);
    println!("Write, 10 lines, 6 directories deep: p50 {p50:.1?}, p99 {p99:.1?}");
    let input = json!({"pattern": "fn f1", "path": many, "output_mode": "content"});
    let (p50, p99) = time(grep.as_ref(), &input, 300);
    println!("Grep, 200 small files: p50 {p50:.1?}, p99 {p99:.1?}");
}
