//! What a compaction costs tack itself (the model's summary request aside):
//! planning and applying the first stage (old tool results to stubs, the
//! artifacts written) and building the second stage's request and the
//! compacted conversation, on sessions of 200 and 800 tool round trips with
//! 20 KB results. Prints mean and max of each over several runs.
//!
//! `cargo bench -p tack-agent --bench compaction`
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a benchmark fails loudly"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_agent::context::{self, SUMMARY_PROMPT};
use tack_protocol::{ContentBlock, Message, ToolResultBlock, ToolUseBlock};
use tack_tool::artifacts::ArtifactStore;

const RUNS: usize = 10;

fn session(turns: usize) -> Vec<Message> {
    let mut m = vec![Message::user_text("go through the logs")];
    let output =
        "2026-12-01 12:00:00 INFO a line of a log file, about eighty bytes long\n".repeat(280);
    for i in 0..turns {
        m.push(Message::assistant(vec![
            ContentBlock::text(format!("Reading part {i}.")),
            ContentBlock::ToolUse(ToolUseBlock {
                id: format!("toolu_{i:04}"),
                name: "Bash".into(),
                input: json!({"command": format!("sed -n {i}p logs")}),
                extra: Default::default(),
            }),
        ]));
        m.push(Message::user(vec![ContentBlock::ToolResult(
            ToolResultBlock::new(
                format!("toolu_{i:04}"),
                vec![ContentBlock::text(&output)],
                false,
            ),
        )]));
    }
    m
}

fn report(name: &str, times: &[Duration]) {
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    let max = times.iter().max().unwrap();
    println!(
        "{name:<58} mean {:>8.2} ms  max {:>8.2} ms",
        mean.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3
    );
}

fn main() {
    for turns in [200, 800] {
        let messages = session(turns);
        let mut clear = Vec::new();
        let mut summary = Vec::new();
        for _ in 0..RUNS {
            let dir = tempfile::tempdir().unwrap();
            let store = ArtifactStore::new(dir.path());
            let started = Instant::now();
            let plan = context::plan_clear(&messages, 3, usize::MAX, Some(&store));
            let mut compacted = messages.clone();
            for change in plan {
                compacted[change.index] = change.message;
            }
            clear.push(started.elapsed());
            black_box(&compacted);

            let started = Instant::now();
            let cut = context::plan_summary(&compacted, 160_000).unwrap();
            let request = context::summary_request(&compacted, cut, SUMMARY_PROMPT, 600_000);
            let rebuilt = context::rebuild(&compacted, cut, Ok("the summary"));
            summary.push(started.elapsed());
            black_box((request, rebuilt));
        }
        report(
            &format!("stage 1, {turns} results of 20 KB to stubs (artifacts written)"),
            &clear,
        );
        report(
            &format!("stage 2 plan, request and rebuild, {turns} turns"),
            &summary,
        );
    }
}
