//! `tools/call` latency, one call at a time, of tack's MCP server over
//! streamable HTTP in session mode (one kept-alive connection, as Claude Code
//! and the SDKs use it) against the same server over stdio, on this machine.
//!
//! Both servers are this binary re-run as a child (`TACK_MCP_BENCH_LATENCY_SERVE`
//! = `stdio` or `http`) serving the conformance fixture host's `echo`. The
//! driver sends `initialize`, `notifications/initialized`, 200 warm-up calls,
//! then N calls (`TACK_MCP_BENCH_CALLS`, default 2000), each once the last
//! answered, and prints p50/p90/p99/max per transport. Over HTTP it is
//! reqwest with one pooled connection and `Mcp-Session-Id`; the answer of a
//! session POST is an SSE stream, read to its end.
//!
//! A server that leaves Nagle's algorithm on shows here as every call after
//! the first on a kept-alive connection taking ~40 ms (the client's delayed
//! ACK); `TACK_MCP_BENCH_NODELAY=0` serves HTTP without `TCP_NODELAY` to show it.
//!
//! `cargo bench -p tack-mcp --bench http_latency`

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts tack as a child server"
)]
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

const SERVE_ENV: &str = "TACK_MCP_BENCH_LATENCY_SERVE";
const WARMUP: usize = 200;

fn main() {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("http_latency: no tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let result = match std::env::var(SERVE_ENV).as_deref() {
        Ok("stdio") => runtime.block_on(serve_stdio()),
        Ok("http") => runtime.block_on(serve_http()),
        Ok("http-floor") => runtime.block_on(serve_http_floor()),
        _ => runtime.block_on(bench()),
    };
    if let Err(e) = result {
        eprintln!("http_latency: {e}");
        std::process::exit(1);
    }
}

fn info() -> tack_mcp::server::ServerInfo {
    tack_mcp::server::ServerInfo::new("tack-bench", env!("CARGO_PKG_VERSION"))
}

async fn serve_stdio() -> Result<(), String> {
    let host = Arc::new(tack_mcp::server::conformance_fixture_host());
    tack_mcp::server::serve_stdio(host, info())
        .await
        .map_err(|e| e.to_string())
}

async fn serve_http() -> Result<(), String> {
    let host = Arc::new(tack_mcp::server::conformance_fixture_host());
    let options = tack_mcp::server::HttpOptions {
        auth: tack_mcp::server::HttpAuth::None,
        tcp_nodelay: std::env::var("TACK_MCP_BENCH_NODELAY").as_deref() != Ok("0"),
        ..Default::default()
    };
    let addr = "127.0.0.1:0".parse().map_err(|e| format!("{e}"))?;
    let server = tack_mcp::server::HttpServer::bind(host, info(), addr, options)
        .await
        .map_err(|e| e.to_string())?;
    // The parent reads the port from the first line.
    println!("{}", server.local_addr().port());
    server.run().await.map_err(|e| e.to_string())
}

/// The HTTP floor: a server that answers every POST with the same SSE event
/// (a `tools/call` result) and a session id, without parsing it. What the
/// HTTP stack (hyper, the router, reqwest, loopback TCP) costs per request
/// on this machine, which any HTTP MCP server pays on top of its own work.
async fn serve_http_floor() -> Result<(), String> {
    use axum::http::header::CONTENT_TYPE;
    const ANSWER: &str = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ping\"}]}}\n\n";
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(|| async {
            (
                [
                    (CONTENT_TYPE, "text/event-stream"),
                    (
                        axum::http::HeaderName::from_static("mcp-session-id"),
                        "floor",
                    ),
                ],
                ANSWER,
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "{}",
        listener.local_addr().map_err(|e| e.to_string())?.port()
    );
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn child(mode: &str) -> Result<tokio::process::Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    Command::new(exe)
        .env(SERVE_ENV, mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start the {mode} server: {e}"))
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "bench", "version": "1"}}})
}

fn call(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "echo", "arguments": {"text": "ping"}}})
}

async fn bench() -> Result<(), String> {
    let calls = env_usize("TACK_MCP_BENCH_CALLS", 2000);
    println!("tools/call latency, sequential, {calls} calls after {WARMUP} warm-up (ms)");
    println!(
        "{:<24} {:>8} {:>8} {:>8} {:>8}",
        "transport", "p50", "p90", "p99", "max"
    );
    let stdio = stdio_latencies(calls).await?;
    report("stdio", stdio.clone());
    let http = http_latencies("http", calls).await?;
    let floor = http_latencies("http-floor", calls).await?;
    let (stdio_p50, http_p50, floor_p50) = (
        percentile(&stdio, 50.0),
        percentile(&http, 50.0),
        percentile(&floor, 50.0),
    );
    report("http (session mode)", http);
    report("http floor (no server)", floor);
    println!(
        "http p50 / stdio p50 = {:.2}; http floor p50 / stdio p50 = {:.2}; tack above the http floor: {:.3} ms",
        http_p50.as_secs_f64() / stdio_p50.as_secs_f64(),
        floor_p50.as_secs_f64() / stdio_p50.as_secs_f64(),
        (http_p50.saturating_sub(floor_p50)).as_secs_f64() * 1000.0,
    );
    Ok(())
}

async fn stdio_latencies(calls: usize) -> Result<Vec<Duration>, String> {
    let mut server = child("stdio")?;
    let mut stdin = server.stdin.take().ok_or("no stdin")?;
    let mut lines = BufReader::new(server.stdout.take().ok_or("no stdout")?).lines();
    let mut send = async |message: Value| -> Result<(), String> {
        let mut line = message.to_string();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| e.to_string())
    };
    send(initialize(0)).await?;
    lines.next_line().await.map_err(|e| e.to_string())?;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
    let mut latencies = Vec::with_capacity(calls);
    for i in 0..WARMUP + calls {
        let started = Instant::now();
        send(call(i + 1)).await?;
        let line = lines
            .next_line()
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the stdio server closed")?;
        if !line.contains("\"result\"") {
            return Err(format!("unexpected answer: {line}"));
        }
        if i >= WARMUP {
            latencies.push(started.elapsed());
        }
    }
    Ok(latencies)
}

async fn http_latencies(mode: &str, calls: usize) -> Result<Vec<Duration>, String> {
    let mut server = child(mode)?;
    let mut out = BufReader::new(server.stdout.take().ok_or("no stdout")?).lines();
    let port: u16 = out
        .next_line()
        .await
        .map_err(|e| e.to_string())?
        .and_then(|l| l.trim().parse().ok())
        .ok_or("the http server printed no port")?;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .build()
        .map_err(|e| e.to_string())?;
    let post =
        async |body: Value, session: Option<&str>| -> Result<(String, Option<String>), String> {
            let mut request = client
                .post(&url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .body(body.to_string());
            if let Some(session) = session {
                request = request
                    .header("Mcp-Session-Id", session)
                    .header("MCP-Protocol-Version", "2025-11-25");
            }
            let response = request.send().await.map_err(|e| e.to_string())?;
            let session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let text = response.text().await.map_err(|e| e.to_string())?;
            Ok((text, session))
        };
    let (_, session) = post(initialize(0), None).await?;
    let session = session.ok_or("no Mcp-Session-Id: not session mode")?;
    post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(&session),
    )
    .await?;
    let mut latencies = Vec::with_capacity(calls);
    for i in 0..WARMUP + calls {
        let started = Instant::now();
        let (text, _) = post(call(i + 1), Some(&session)).await?;
        if !text.contains("\"result\"") {
            return Err(format!("unexpected answer: {text}"));
        }
        if i >= WARMUP {
            latencies.push(started.elapsed());
        }
    }
    Ok(latencies)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let mut v = sorted.to_vec();
    v.sort_unstable();
    let at = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    v[at.min(v.len() - 1)]
}

fn report(name: &str, latencies: Vec<Duration>) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{:<24} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
        name,
        ms(percentile(&latencies, 50.0)),
        ms(percentile(&latencies, 90.0)),
        ms(percentile(&latencies, 99.0)),
        ms(percentile(&latencies, 100.0)),
    );
}
