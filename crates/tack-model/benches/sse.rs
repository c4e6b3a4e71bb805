//! The SSE decoder on a pathological stream: one 16 MiB `data:` line fed in
//! 8 KiB chunks (a rescan of the buffer per chunk made this quadratic: 10 s),
//! and for comparison the same bytes as 16 MiB of ordinary 100-byte events.
//!
//! `cargo bench -p tack-model --bench sse`. Prints the median of runs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::time::{Duration, Instant};

use tack_model::sse::SseDecoder;

const RUNS: usize = 7;
const CHUNK: usize = 8 * 1024;
const SIZE: usize = 16 * 1024 * 1024;

/// Feeds `input` in `CHUNK`-byte pieces; the number of events and the bytes
/// of data they carried.
fn decode(input: &[u8]) -> (usize, usize) {
    let mut decoder = SseDecoder::new();
    let mut events = 0;
    let mut bytes = 0;
    for chunk in input.chunks(CHUNK) {
        for event in decoder.feed(chunk) {
            events += 1;
            bytes += event.data.len();
        }
    }
    if let Some(event) = decoder.finish() {
        events += 1;
        bytes += event.data.len();
    }
    (events, bytes)
}

fn median(input: &[u8], expect_events: usize) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let (events, _) = std::hint::black_box(decode(std::hint::black_box(input)));
            let took = started.elapsed();
            assert_eq!(events, expect_events);
            took
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn report(name: &str, input: &[u8], events: usize) {
    let took = median(input, events);
    let mib_s = input.len() as f64 / (1024.0 * 1024.0) / took.as_secs_f64();
    println!(
        "{name}: median {:.1} ms over {RUNS} runs ({mib_s:.0} MiB/s)",
        took.as_secs_f64() * 1000.0
    );
}

fn main() {
    let long = format!("data: {}\n\n", "x".repeat(SIZE));
    report("one 16 MiB data: line, 8 KiB chunks", long.as_bytes(), 1);

    let event = format!("event: delta\ndata: {}\n\n", "y".repeat(100 - 21));
    let many = event.repeat(SIZE / event.len());
    report(
        "16 MiB of 100-byte events, 8 KiB chunks",
        many.as_bytes(),
        SIZE / event.len(),
    );
}
