//! The OS sandbox's cost per Bash call (a bench binary, not a timed test;
//! issue 14): p50 and p90 of the Bash tool running `true`, unsandboxed and
//! under the session's sandbox, in the same run, with the installed helper
//! (`tack-sandbox-exec` of this build). Target: < 2 ms p50 overhead.
//!
//! Cases: unsandboxed; sandboxed with the default settings (Landlock,
//! user/mount/PID namespaces with the project's `.git`, `.tack` and
//! `.claude` read-only, seccomp, network off); with `allowLocalBinding`
//! (a network namespace of its own); with an allowlist (the proxy and its
//! bridge).
//!
//! `cargo bench -p tack-cli --bench sandbox` (figures in BENCHMARKS.md);
//! `TACK_BENCH_RUNS` (default 300) sets the calls per case.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches fail loudly"
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tack_sandbox::{Config, DomainPattern, Network, Sandbox};
use tack_tool::ToolContext;
use tack_tools::bash::sandbox::ShellSandbox;
use tokio_util::sync::CancellationToken;

fn shell_sandbox(root: &Path, network: Network) -> Arc<ShellSandbox> {
    let protected = [".git", ".tack", ".claude", ".mcp.json"]
        .iter()
        .map(|n| root.join(n))
        .collect();
    let (names, guarded_nested) = tack_policy::protected_names();
    let config = Config {
        writable_roots: vec![root.to_path_buf()],
        protected,
        guarded_names: names.into_iter().map(str::to_owned).collect(),
        guarded_nested,
        hidden: Vec::new(),
        unenforced_reads: Vec::new(),
        network,
        denied_domains: Vec::new(),
        allow_unix_sockets: false,
    };
    let helper = PathBuf::from(env!("CARGO_BIN_EXE_tack-sandbox-exec"));
    Arc::new(ShellSandbox {
        sandbox: Arc::new(Sandbox::new(config, Some(helper))),
        excluded: Arc::new(|_: &str| None),
        allow_unsandboxed: true,
        fail_closed: true,
    })
}

async fn measure(root: &Path, sandbox: Option<Arc<ShellSandbox>>, runs: usize) -> (f64, f64) {
    let tools = tack_tools::bash::bash_tools_sandboxed(root.to_path_buf(), sandbox);
    let bash = &tools[0];
    let call = |n: usize| {
        let ctx = ToolContext::new(root, "bench", format!("t{n}"), CancellationToken::new());
        bash.call(json!({"command": "true"}), ctx)
    };
    // The first call probes the machine and starts the proxy: not counted.
    for n in 0..5 {
        let out = call(n).await.expect("the warm-up call");
        assert!(
            !format!("{out:?}").contains("sandbox"),
            "the warm-up call said: {out:?}"
        );
    }
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for n in 0..runs {
        let started = Instant::now();
        call(n).await.expect("a call");
        times.push(started.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(times[runs / 2]), ms(times[runs * 9 / 10]))
}

fn main() {
    let runs: usize = std::env::var("TACK_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(300);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let project = tempfile::tempdir().unwrap();
        let root = project.path().canonicalize().unwrap();
        for dir in [".git/hooks", ".tack", ".claude"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let cases: Vec<(&str, Option<Network>)> = vec![
            ("unsandboxed", None),
            ("sandboxed, network off", Some(Network::Off)),
            ("sandboxed, allowLocalBinding", Some(Network::Loopback)),
            (
                "sandboxed, allowedDomains (proxy)",
                Some(Network::Allowed(vec![
                    DomainPattern::parse("example.com").unwrap(),
                ])),
            ),
        ];
        println!(
            "Bash `true`, {runs} calls per case, helper {}",
            env!("CARGO_BIN_EXE_tack-sandbox-exec")
        );
        println!("| case | p50 ms | p90 ms | p50 overhead ms |");
        println!("|---|---|---|---|");
        let mut base = None;
        for (name, network) in cases {
            let sandbox = network.map(|n| shell_sandbox(&root, n));
            let (p50, p90) = measure(&root, sandbox, runs).await;
            let base_p50 = *base.get_or_insert(p50);
            println!("| {name} | {p50:.2} | {p90:.2} | {:+.2} |", p50 - base_p50);
        }
    });
}
