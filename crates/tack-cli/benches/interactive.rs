//! The interactive terminal's speed (a bench binary, not a timed test;
//! issue 20), on a real pseudo-terminal read by a terminal emulator:
//!
//! 1. **First frame**: from spawning `tack` to its viewport on the screen
//!    (the rule above the input), and to the session open (the model on
//!    the status line); the same for Claude Code's and Codex's TUIs (their
//!    first visible text), in the same run. Target: first frame < 50 ms.
//! 2. **Input to screen**: a key sent to the screen showing it, while idle,
//!    while a Bash call runs, and after a 10,000-line tool result.
//! 3. **Memory after 500 turns**: VmRSS and VmHWM of `tack` after 10 and
//!    after 500 prompts answered (the mock echoes), so growth per turn shows.
//!
//! `cargo bench -p tack-cli --bench interactive` (figures in BENCHMARKS.md).
//! `TACK_BENCH_BIN=/path/to/tack` measures another build; `TACK_BENCH_TURNS`
//! (default 500) sets the long session's length; `TACK_BENCH_NO_PEERS=1`
//! skips Claude Code and Codex.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "starts the tack binary and peer TUIs"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests and benches fail loudly"
)]

#[path = "../tests/all/pty.rs"]
mod pty;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pty::{CommandBuilder, Pty, keys};
use serde_json::json;
use tack_testkit::{MockServer, Step};

const WAIT: Duration = Duration::from_secs(60);
const FIRST_FRAME_RUNS: usize = 20;

struct Env {
    mock: MockServer,
    state: tempfile::TempDir,
    cwd: tempfile::TempDir,
    bin: PathBuf,
}

impl Env {
    fn tack(&self, args: &[&str]) -> CommandBuilder {
        let mut cmd = CommandBuilder::new(&self.bin);
        for var in [
            "ANTHROPIC_AUTH_TOKEN",
            "OPENAI_API_KEY",
            "TACK_MODEL",
            "XDG_STATE_HOME",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("ANTHROPIC_API_KEY", "bench");
        cmd.env("ANTHROPIC_BASE_URL", self.mock.url());
        cmd.env("TACK_STATE_DIR", self.state.path());
        cmd.env("TACK_CONFIG_DIR", self.state.path().join("config"));
        cmd.env("CLAUDE_CONFIG_DIR", self.state.path().join("claude"));
        cmd.env("HOME", self.state.path().join("home"));
        cmd.env("NO_COLOR", "1");
        cmd.args(args);
        cmd.cwd(self.cwd.path());
        cmd
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mock = runtime.block_on(MockServer::start());
    mock.set_fallback(tack_testkit::Fallback::Echo);
    let bin = std::env::var_os("TACK_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_tack")));
    let env = Env {
        mock,
        state: tempfile::tempdir().unwrap(),
        cwd: tempfile::tempdir().unwrap(),
        bin,
    };
    std::fs::create_dir_all(env.cwd.path().join(".tack")).unwrap();
    std::fs::write(
        env.cwd.path().join(".tack/settings.local.json"),
        r#"{"permissions":{"allow":["Bash(sleep *)","Bash(seq *)"]}}"#,
    )
    .unwrap();
    println!("tack: {}", env.bin.display());

    first_frame(&env);
    input_latency(&env);
    long_session(&env);
}

/// Spawns `cmd`, waits for `frame`'s text, returns the time it took.
fn time_to(cmd: CommandBuilder, frame: &dyn Fn(&str) -> bool) -> (Duration, Pty) {
    let started = Instant::now();
    let pty = Pty::spawn(cmd, 30, 100);
    pty.wait_until(|s| frame(s), WAIT, "the frame");
    (started.elapsed(), pty)
}

fn first_frame(env: &Env) {
    let mut frame = Vec::new();
    let mut open = Vec::new();
    for _ in 0..FIRST_FRAME_RUNS {
        let started = Instant::now();
        let mut pty = Pty::spawn(env.tack(&[]), 30, 100);
        pty.wait_until(|s| s.contains("───"), WAIT, "the first frame");
        frame.push(started.elapsed());
        pty.wait_until(
            |s| s.contains("shift+tab") && s.contains("ctx "),
            WAIT,
            "the session open",
        );
        open.push(started.elapsed());
        pty.send(keys::CTRL_D);
        pty.wait_exit(WAIT);
    }
    report("first frame: tack", &mut frame);
    report("session open: tack", &mut open);
    if std::env::var_os("TACK_BENCH_NO_PEERS").is_some() {
        return;
    }
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/node_modules/.bin");
    for (name, program) in [("Claude Code", "claude"), ("Codex", "codex")] {
        let path = clients.join(program);
        if !path.exists() {
            println!("first frame: {name}: not installed (crates/tack-cli/tests/clients/setup.sh)");
            continue;
        }
        let mut times = Vec::new();
        for _ in 0..5 {
            let home = tempfile::tempdir().unwrap();
            let mut cmd = CommandBuilder::new(&path);
            cmd.env("HOME", home.path());
            cmd.env("ANTHROPIC_API_KEY", "bench");
            cmd.env("ANTHROPIC_BASE_URL", env.mock.url());
            cmd.env("OPENAI_API_KEY", "bench");
            cmd.env("CODEX_HOME", home.path().join(".codex"));
            cmd.cwd(env.cwd.path());
            let (took, pty) = time_to(cmd, &|s: &str| s.chars().any(|c| c.is_alphanumeric()));
            times.push(took);
            // Dropping the terminal kills the peer.
            drop(pty);
        }
        report(
            &format!("first frame: {name} (first visible text)"),
            &mut times,
        );
    }
}

/// Sends one key and times it to the screen.
fn keystroke(pty: &Pty, c: char, expect: &str) -> Duration {
    let started = Instant::now();
    pty.send_str(&c.to_string());
    pty.wait_until(|s| s.contains(expect), WAIT, "the typed text");
    started.elapsed()
}

/// Types `word` (no spaces: the screen's rows are read trimmed) a key at
/// a time, timing each to the screen.
fn type_and_time(pty: &Pty, word: &str, samples: &mut Vec<Duration>) {
    let mut typed = String::from("› ");
    for c in word.chars() {
        typed.push(c);
        samples.push(keystroke(pty, c, &typed));
    }
    // Clear the input (Ctrl-U).
    pty.send(b"\x15");
    pty.wait_until(|s| !s.contains(&typed), WAIT, "the input cleared");
}

fn input_latency(env: &Env) {
    let pty = Pty::spawn(env.tack(&[]), 30, 100);
    pty.wait_until(|s| s.contains("ctx "), WAIT, "the session open");
    let mut idle = Vec::new();
    for _ in 0..4 {
        type_and_time(&pty, "thequickbrownfoxjumpsover", &mut idle);
    }
    report("input to screen: idle", &mut idle);

    // While a Bash call runs (and the spinner redraws every 100 ms).
    env.mock.push_all([
        Step::tool_use("b1", "Bash", json!({"command": "sleep 8"})),
        Step::text("slept"),
    ]);
    pty.send_str("sleep please");
    pty.send(keys::ENTER);
    pty.wait_until(|s| s.contains("Bash(sleep 8)"), WAIT, "the call running");
    let mut busy = Vec::new();
    for _ in 0..2 {
        type_and_time(&pty, "typingwhileatoolruns", &mut busy);
    }
    report("input to screen: a tool running", &mut busy);
    pty.wait_until(|s| s.contains("slept"), WAIT, "the turn's end");

    // After a 10,000-line result (collapsed to a line; Ctrl-O expands).
    env.mock.push_all([
        Step::tool_use("b2", "Bash", json!({"command": "seq 1 10000"})),
        Step::text("counted"),
    ]);
    pty.send_str("count");
    pty.send(keys::ENTER);
    pty.wait_until(|s| s.contains("counted"), WAIT, "the turn's end");
    let mut after = Vec::new();
    for _ in 0..4 {
        type_and_time(&pty, "thequickbrownfoxjumpsover", &mut after);
    }
    report("input to screen: after a 10,000-line result", &mut after);
    let started = Instant::now();
    pty.send(b"\x0f"); // Ctrl-O
    pty.wait_until(|s| s.contains("more line(s)"), WAIT, "the expanded result");
    println!(
        "expand (Ctrl-O) a 10,000-line result: {:.1} ms to the screen",
        started.elapsed().as_secs_f64() * 1000.0
    );
}

fn long_session(env: &Env) {
    let turns: usize = std::env::var("TACK_BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let pty = Pty::spawn(env.tack(&[]), 30, 100);
    pty.wait_until(|s| s.contains("ctx "), WAIT, "the session open");
    let pid = pty.pid().unwrap();
    let started = Instant::now();
    let mut at_10 = None;
    for turn in 1..=turns {
        pty.send_str(&format!("prompt number {turn}"));
        pty.send(keys::ENTER);
        let answer = format!("You said: prompt number {turn}");
        pty.wait_until(
            |s| s.contains(&answer) && !s.contains("esc interrupts"),
            WAIT,
            "the answer",
        );
        if turn == 10 {
            at_10 = Some(memory(pid));
        }
    }
    let took = started.elapsed();
    let (rss, hwm) = memory(pid);
    let (rss_10, _) = at_10.unwrap_or((0, 0));
    println!(
        "long session: {turns} turns in {:.1} s ({:.1} ms per turn, model and screen included)",
        took.as_secs_f64(),
        took.as_secs_f64() * 1000.0 / turns as f64
    );
    println!(
        "memory: VmRSS {:.1} MiB after 10 turns, {:.1} MiB after {turns} (peak VmHWM {:.1} MiB); {:.1} KiB per turn",
        rss_10 as f64 / 1024.0,
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0,
        (rss.saturating_sub(rss_10)) as f64 / (turns.saturating_sub(10).max(1)) as f64
    );
    let mut input = Vec::new();
    type_and_time(&pty, "thequickbrownfoxjumpsover", &mut input);
    report(&format!("input to screen: after {turns} turns"), &mut input);
}

/// VmRSS and VmHWM of `pid`, in KiB.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn report(what: &str, samples: &mut [Duration]) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = samples[samples.len() / 2];
    let p95 = samples[(samples.len() * 95 / 100).min(samples.len() - 1)];
    println!(
        "{what}: median {:.2} ms, p95 {:.2} ms, max {:.2} ms (n={})",
        ms(median),
        ms(p95),
        ms(samples[samples.len() - 1]),
        samples.len()
    );
}
