//! Harness benchmarks (a bench binary, not a timed test):
//!
//! 1. overhead per tool round trip: from a model response received to the next
//!    request sent, with a no-op tool, against the mock API in another process;
//! 2. peak RSS of a 200-turn session (this process is the agent, as in `tack run`);
//! 3. wall time of `tack --version`.
//!
//! `cargo bench -p tack-cli --bench harness` (figures in BENCHMARKS.md).

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts the tack binary and the mock API process"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches fail loudly"
)]

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::json;
use tack_agent::{Agent, AgentConfig, EventBus, Pipeline, RunStatus};
use tack_model::{
    AnthropicClient, AnthropicConfig, EncodedRequest, EventSink, ModelClient, ModelError,
    ModelTurn, RetryPolicy, WireFormat,
};
use tack_protocol::{ContentBlock, MessagesRequest};
use tack_testkit::Step;
use tack_tool::ToolRegistry;
use tokio_util::sync::CancellationToken;

const TURNS: usize = 200;

/// Records when each response came back and when the next request left.
struct Timed {
    inner: AnthropicClient,
    last_return: Mutex<Option<Instant>>,
    gaps: Mutex<Vec<Duration>>,
    /// Time to assemble each request body (the provider does this after
    /// `complete_encoded` is called, so it is measured here separately and added).
    encode: Mutex<Vec<Duration>>,
}

#[async_trait]
impl ModelClient for Timed {
    fn provider(&self) -> &str {
        self.inner.provider()
    }
    fn model(&self) -> &str {
        self.inner.model()
    }
    async fn complete(
        &self,
        request: &MessagesRequest,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        if let Some(t) = self.last_return.lock().unwrap().take() {
            self.gaps.lock().unwrap().push(t.elapsed());
            let started = Instant::now();
            std::hint::black_box(serde_json::to_vec(request).unwrap());
            self.encode.lock().unwrap().push(started.elapsed());
        }
        let out = self.inner.complete(request, sink).await;
        *self.last_return.lock().unwrap() = Some(Instant::now());
        out
    }
    fn wire_format(&self) -> Option<WireFormat> {
        self.inner.wire_format()
    }
    async fn complete_encoded(
        &self,
        request: &EncodedRequest<'_>,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        if let Some(t) = self.last_return.lock().unwrap().take() {
            self.gaps.lock().unwrap().push(t.elapsed());
            let started = Instant::now();
            std::hint::black_box(self.inner.body(request));
            self.encode.lock().unwrap().push(started.elapsed());
        }
        let out = self.inner.complete_encoded(request, sink).await;
        *self.last_return.lock().unwrap() = Some(Instant::now());
        out
    }
}

fn tack() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tack"))
}

/// Starts `tack mock-server` with a script of TURNS no-op tool calls and a final text.
fn start_mock(dir: &std::path::Path) -> (std::process::Child, String) {
    let mut steps: Vec<Step> = (0..TURNS)
        .map(|i| Step::tool_use(format!("toolu_{i}"), "Echo", json!({"text": "x"})))
        .collect();
    steps.push(Step::text("done"));
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_vec(&steps).unwrap()).unwrap();
    let mut child = tack()
        .args(["mock-server", "--port", "0", "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    (child, url.trim().to_owned())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn session(url: &str, stream: bool) -> (Vec<Duration>, Vec<Duration>, u64) {
    let env = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "bench".to_owned());
    let inner = AnthropicClient::new(AnthropicConfig {
        base_url: url.to_owned(),
        model: "bench".into(),
        stream,
        retry: RetryPolicy::none(),
        ..AnthropicConfig::from_env_with(&env)
    })
    .unwrap();
    let client = Arc::new(Timed {
        inner,
        last_return: Mutex::new(None),
        gaps: Mutex::new(Vec::new()),
        encode: Mutex::new(Vec::new()),
    });
    let mut registry = ToolRegistry::new();
    tack_testkit::tools::register_fixture_tools(&mut registry).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let writer = tack_agent::transcript::TranscriptWriter::open(dir.path(), "bench").unwrap();
    let events = EventBus::new().with(Arc::new(writer));
    let pipeline = Pipeline::builder(Arc::new(registry), dir.path().into(), "bench")
        .events(events.clone())
        .build();
    let config = AgentConfig {
        stream,
        ..AgentConfig::default()
    };
    let mut agent = Agent::new(client.clone(), Arc::new(pipeline), config, events);
    let out = agent
        .run(
            Some(vec![ContentBlock::text("go")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    assert_eq!(out.turns as usize, TURNS + 1);
    let gaps = client.gaps.lock().unwrap().clone();
    let encode = client.encode.lock().unwrap().clone();
    let total = gaps.iter().zip(&encode).map(|(g, e)| *g + *e).collect();
    (gaps, total, peak_rss_kib())
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    for stream in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let (mut mock, url) = start_mock(dir.path());
        let (gaps, total, rss) = rt.block_on(session(&url, stream));
        mock.kill().ok();
        mock.wait().ok();
        for (label, mut xs) in [("loop only", gaps), ("loop + request encoding", total)] {
            xs.sort();
            let mean = xs.iter().sum::<Duration>() / xs.len() as u32;
            println!(
                "round-trip overhead, {label} (stream={stream}, {} round trips, no-op tool, transcript on): mean {:?}  p50 {:?}  p99 {:?}  max {:?}",
                xs.len(),
                mean,
                percentile(&xs, 0.5),
                percentile(&xs, 0.99),
                xs.last().unwrap()
            );
        }
        println!(
            "peak RSS after a {}-turn session (stream={stream}): {:.1} MiB",
            TURNS + 1,
            rss as f64 / 1024.0
        );
    }
    let mut times: Vec<Duration> = (0..100)
        .map(|_| {
            let t = Instant::now();
            let out = tack().arg("--version").output().unwrap();
            assert!(out.status.success());
            t.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "tack --version wall time (100 runs): p50 {:?}  p99 {:?}  min {:?}",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times[0]
    );
}
