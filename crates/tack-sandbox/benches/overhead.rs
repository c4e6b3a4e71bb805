//! What the sandbox adds to starting a command: `sh -c true` through
//! `tack_process::spawn`, unsandboxed and through the helper (this binary
//! acts as the helper when its first argument is `--probe` or a plan), 200
//! runs each; prints p50 and p90 in milliseconds.
//!
//! `cargo bench -p tack-sandbox --bench overhead [RUNS]`

#![allow(clippy::disallowed_types, clippy::disallowed_methods)]
#![expect(
    clippy::unwrap_used,
    reason = "a benchmark that cannot set up should stop"
)]

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tack_process::Spec;
use tack_sandbox::{NetPlan, Plan};

fn main() {
    if let Some(first) = std::env::args_os().nth(1)
        && (first == "--probe" || first.as_bytes().starts_with(b"{"))
    {
        tack_sandbox::helper::main()
    }
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap().join("root");
    for dir in [".git", ".tack"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let socket = tmp.path().join("proxy.sock");
    let _proxy = std::os::unix::net::UnixListener::bind(&socket).unwrap();

    let base = Plan {
        writable: [root.clone()]
            .into_iter()
            .chain(
                [
                    "/dev/null",
                    "/dev/zero",
                    "/dev/full",
                    "/dev/tty",
                    "/dev/pts",
                ]
                .iter()
                .map(PathBuf::from)
                .filter(|p| p.exists()),
            )
            .collect(),
        read_only: vec![root.join(".git"), root.join(".tack")],
        hidden: Vec::new(),
        network: NetPlan::Off,
        unix_sockets: false,
        namespaces: true,
        landlock_abi: 1,
    };
    let fast = Plan {
        read_only: Vec::new(),
        namespaces: false,
        ..base.clone()
    };
    let proxy = Plan {
        network: NetPlan::Proxy {
            socket: socket.clone(),
            port: 3128,
        },
        ..base.clone()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let cases: [(&str, Option<&Plan>); 4] = [
        ("unsandboxed", None),
        ("landlock + seccomp, no namespaces", Some(&fast)),
        ("namespaces, network off, 2 read-only", Some(&base)),
        ("namespaces, network proxy", Some(&proxy)),
    ];
    // In rounds (each case once per round), so that a change in the
    // machine's load falls on every case alike.
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for _ in 0..runs {
        for ((_, plan), times) in cases.iter().zip(&mut times) {
            times.push(runtime.block_on(once(*plan, &root)));
        }
    }
    println!("sh -c true, {runs} runs each (ms)");
    println!("{:<40} {:>7} {:>7}", "", "p50", "p90");
    let mut unsandboxed = Duration::ZERO;
    for ((name, plan), mut times) in cases.into_iter().zip(times) {
        times.sort();
        let p50 = times[times.len() / 2];
        let p90 = times[times.len() * 9 / 10];
        let over = match plan {
            None => {
                unsandboxed = p50;
                String::new()
            }
            Some(_) => format!("  (+{:.2} p50)", ms(p50.saturating_sub(unsandboxed))),
        };
        println!("{name:<40} {:>7.2} {:>7.2}{over}", ms(p50), ms(p90));
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One `sh -c true`, from spawn to its output closed.
async fn once(plan: Option<&Plan>, cwd: &Path) -> Duration {
    let mut spec = Spec::new("sh").args(["-c", "true"]).cwd(cwd);
    if let Some(plan) = plan {
        let json = serde_json::to_string(plan).unwrap();
        spec = spec.wrapped(std::env::current_exe().unwrap(), [json]);
    }
    let start = Instant::now();
    let process = tack_process::spawn(spec).unwrap();
    let ending = process.wait(Some(Duration::from_secs(10)), None).await;
    process.output_closed(Duration::from_secs(5)).await;
    let took = start.elapsed();
    assert_eq!(
        ending.exit().and_then(|e| e.code()),
        Some(0),
        "{}",
        process.stdout().take(tack_process::Hold::Nothing).head
    );
    took
}
