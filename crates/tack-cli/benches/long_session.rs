//! Long-session benchmarks (a bench binary, not a timed test; issue 12):
//!
//! 1. tack's own CPU (user + system of the `tack run` process, from `wait4`)
//!    for sessions of 50, 100, 200, 400 and 800 tool round trips against
//!    `tack mock-server` in another process. Each round trip is one `Read` of
//!    a ~400-byte file. The marginal CPU per round trip at turns 400–800,
//!    (CPU(800) − CPU(400)) / 400, is compared with turns 50–100,
//!    (CPU(100) − CPU(50)) / 50: the target is within 1.5×.
//! 2. The same 200-turn session driven by the official Anthropic Python SDK's
//!    manual loop (`benches/python/sdk_loop.py`, `anthropic` pinned with
//!    hashes in `benches/python/requirements.txt`, installed into a venv under
//!    `target/`), measured the same way in the same run. Target: tack ≤ 0.1×.
//! 3. Peak RSS of the 800-turn `tack run` (target < 30 MiB).
//!
//! `cargo bench -p tack-cli --bench long_session` (figures in BENCHMARKS.md).
//! `TACK_BENCH_BIN=/path/to/tack` measures another build of tack (e.g. an
//! older commit's); `TACK_BENCH_REPEAT` (default 3) sets the runs per size
//! (the median is reported); `TACK_BENCH_NO_SDK=1` skips the Python loop.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts the tack binary, the mock API and Python processes"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches fail loudly"
)]

use std::io::{BufRead as _, BufReader};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::json;

const SIZES: [usize; 5] = [50, 100, 200, 400, 800];
const SDK_TURNS: usize = 200;

fn tack_bin() -> PathBuf {
    std::env::var_os("TACK_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_tack")))
}

/// CPU and peak RSS of one finished child, from `wait4`.
#[derive(Debug, Clone, Copy)]
struct Usage {
    cpu: Duration,
    max_rss_kib: u64,
}

/// Waits for `child` and returns the CPU it used: the `RUSAGE_CHILDREN`
/// delta around the wait, exact because it is the only child that ends
/// during the wait (the mock server lives on until after). The RSS comes
/// from [`rss_watch`].
fn wait_usage(mut child: Child) -> Usage {
    let before = children_cpu();
    let status = child.wait().unwrap();
    let after = children_cpu();
    assert!(
        status.success(),
        "the measured process failed: {status:?} (signal {:?})",
        status.signal()
    );
    Usage {
        cpu: after.saturating_sub(before),
        max_rss_kib: 0,
    }
}

/// User + system CPU of the waited-for children so far.
fn children_cpu() -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    let u = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap();
    let d = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    d(u.user_time()) + d(u.system_time())
}

/// Polls the peak RSS (VmHWM) of a running process until it exits.
fn rss_watch(pid: u32) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let path = format!("/proc/{pid}/status");
        let mut peak = 0;
        while let Ok(status) = std::fs::read_to_string(&path) {
            if status.contains("State:\tZ") {
                break;
            }
            if let Some(kib) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kib);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        peak
    })
}

struct Mock {
    child: Child,
    url: String,
}

impl Drop for Mock {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// `tack mock-server` scripted with `turns` Read calls of `file` and a final text.
fn start_mock(dir: &Path, turns: usize, file: &Path) -> Mock {
    let mut steps: Vec<serde_json::Value> = (0..turns)
        .map(|i| {
            json!({"reply": {"content": [{"type": "tool_use", "id": format!("toolu_{i:04}"),
                "name": "Read", "input": {"file_path": file}}], "stop_reason": "tool_use"}})
        })
        .collect();
    steps.push(json!({"reply": {"content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn"}}));
    let script = dir.join(format!("script-{turns}.json"));
    std::fs::write(&script, serde_json::to_vec(&steps).unwrap()).unwrap();
    let mut child = Command::new(tack_bin())
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
    Mock {
        child,
        url: url.trim().to_owned(),
    }
}

/// A project directory with the ~400-byte file every round trip reads.
fn project(dir: &Path) -> PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let text: String = (1..=8)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(project.join("notes.txt"), text).unwrap();
    project
}

fn tack_run(dir: &Path, turns: usize) -> Usage {
    let project = project(dir);
    let file = project.join("notes.txt");
    let mock = start_mock(dir, turns, &file);
    let state = dir.join(format!("state-{turns}"));
    let child = Command::new(tack_bin())
        .args(["run", "read notes.txt again and again"])
        .current_dir(&project)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("ANTHROPIC_API_KEY", "bench")
        .env("ANTHROPIC_BASE_URL", &mock.url)
        .env("TACK_STATE_DIR", &state)
        .env("TACK_CONFIG_DIR", dir.join("config"))
        .env("CLAUDE_CONFIG_DIR", dir.join("claude"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rss = rss_watch(child.id());
    let mut usage = wait_usage(child);
    usage.max_rss_kib = rss.join().unwrap();
    drop(mock);
    usage
}

/// The venv with the pinned SDK, made on first use under target/.
fn sdk_python() -> Option<PathBuf> {
    let bench_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/python");
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-sdk-venv");
    let python = venv.join("bin/python");
    let marker = venv.join(".installed");
    let requirements = bench_dir.join("requirements.txt");
    let fresh = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .ok()
        .zip(
            std::fs::metadata(&requirements)
                .and_then(|m| m.modified())
                .ok(),
        )
        .is_some_and(|(done, req)| done >= req);
    if !fresh {
        let ok = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success())
            && Command::new(&python)
                .args(["-m", "pip", "install", "-q", "--require-hashes", "-r"])
                .arg(&requirements)
                .status()
                .is_ok_and(|s| s.success());
        if !ok {
            eprintln!(
                "cannot set up the SDK venv at {}; skipping the SDK loop",
                venv.display()
            );
            return None;
        }
        std::fs::write(&marker, b"").unwrap();
    }
    Some(python)
}

fn sdk_run(python: &Path, dir: &Path, turns: usize) -> Usage {
    let project = project(dir);
    let file = project.join("notes.txt");
    let mock = start_mock(dir, turns, &file);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/python/sdk_loop.py");
    let child = Command::new(python)
        .arg(&script)
        .env("ANTHROPIC_API_KEY", "bench")
        .env("ANTHROPIC_BASE_URL", &mock.url)
        .env("SDK_LOOP_FILE", &file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let rss = rss_watch(child.id());
    let mut usage = wait_usage(child);
    usage.max_rss_kib = rss.join().unwrap();
    usage
}

fn median(mut xs: Vec<Usage>) -> Usage {
    xs.sort_by_key(|u| u.cpu);
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let repeat: usize = std::env::var("TACK_BENCH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    println!("tack binary: {}", tack_bin().display());
    let dir = tempfile::tempdir().unwrap();
    let mut cpu = std::collections::BTreeMap::new();
    let mut rss_800 = 0;
    for &turns in &SIZES {
        let runs: Vec<Usage> = (0..repeat)
            .map(|r| tack_run(&dir.path().join(format!("t{turns}-{r}")), turns))
            .collect();
        let m = median(runs.clone());
        let all: Vec<String> = runs.iter().map(|u| format!("{:.0}", ms(u.cpu))).collect();
        println!(
            "tack run, {turns} round trips: CPU {:.1} ms (median of {repeat}: {} ms), {:.3} ms per round trip, peak RSS {:.1} MiB",
            ms(m.cpu),
            all.join(", "),
            ms(m.cpu) / turns as f64,
            m.max_rss_kib as f64 / 1024.0
        );
        if turns == 800 {
            rss_800 = runs.iter().map(|u| u.max_rss_kib).max().unwrap_or(0);
        }
        cpu.insert(turns, m.cpu);
    }
    let early = (ms(cpu[&100]) - ms(cpu[&50])) / 50.0;
    let late = (ms(cpu[&800]) - ms(cpu[&400])) / 400.0;
    println!(
        "marginal CPU per round trip: turns 50-100 {early:.3} ms, turns 400-800 {late:.3} ms, ratio {:.2} (target <= 1.5)",
        late / early
    );
    println!(
        "peak RSS of an 800-turn session: {:.1} MiB (target < 30 MiB)",
        rss_800 as f64 / 1024.0
    );
    if std::env::var_os("TACK_BENCH_NO_SDK").is_some() {
        return;
    }
    let Some(python) = sdk_python() else {
        return;
    };
    let sdk: Vec<Usage> = (0..repeat)
        .map(|r| sdk_run(&python, &dir.path().join(format!("sdk-{r}")), SDK_TURNS))
        .collect();
    let sdk = median(sdk);
    let tack = ms(cpu[&SDK_TURNS]) / SDK_TURNS as f64;
    let theirs = ms(sdk.cpu) / SDK_TURNS as f64;
    println!(
        "Anthropic Python SDK manual loop, {SDK_TURNS} round trips: CPU {:.1} ms, {theirs:.3} ms per round trip, peak RSS {:.1} MiB",
        ms(sdk.cpu),
        sdk.max_rss_kib as f64 / 1024.0
    );
    println!(
        "tack / SDK CPU per round trip at {SDK_TURNS} turns: {tack:.3} / {theirs:.3} ms = {:.3} (target <= 0.1)",
        tack / theirs
    );
}
