//! market-analyst's tests against its real binary: the tools through
//! `cli`, `run` against the in-repo mock of the model API (real HTTP),
//! `mcp` answering a JSON-RPC client on its stdio, `reports`, the declared
//! settings and the data set kept in step with their generators, and `tack
//! run` using the interface folders.
//!
//! Each test runs the binary with a home, config and state of its own, so
//! nothing of the machine's settings or sessions is read or written.

// These tests start the binary under test (and tack) as child processes,
// and their helpers fail loudly.
#![allow(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests start real processes and fail loudly"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[path = "all/cli.rs"]
mod cli;
#[path = "all/data.rs"]
mod data;
#[path = "all/declared.rs"]
mod declared;
#[path = "all/mcp.rs"]
mod mcp;
#[path = "all/reports.rs"]
mod reports;
#[path = "all/run.rs"]
mod run;
#[path = "all/tack.rs"]
mod tack;

/// The binary under test.
fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_market-analyst"))
}

/// The example's folder (where `interfaces/` is).
fn example_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A private home, config and state, and a working directory.
struct Sandbox {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    state: PathBuf,
    cwd: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (home, state, cwd) = (base.join("home"), base.join("state"), base.join("work"));
        for dir in [&home, &state, &cwd.join(".tack")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        Self {
            _tmp: tmp,
            home,
            state,
            cwd,
        }
    }

    /// `program` in `cwd` with the private home and state, no terminal,
    /// and none of the variables that would change what it does.
    fn command(&self, program: &Path, cwd: &Path) -> Command {
        let mut cmd = Command::new(program);
        for var in [
            "TACK_MANAGED_SETTINGS",
            "XDG_STATE_HOME",
            "TACK_LOG",
            "TACK_MODEL",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "ANTHROPIC_BASE_URL",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "OLLAMA_HOST",
            "MARKET_ANALYST_FAULTS",
            "MARKET_ANALYST_BROKEN",
            "MARKET_ANALYST_REPORTS",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &self.home)
            .env("TACK_CONFIG_DIR", self.home.join(".config/tack"))
            .env("CLAUDE_CONFIG_DIR", self.home.join(".claude"))
            .env("TACK_STATE_DIR", &self.state)
            .env("NO_COLOR", "1")
            .current_dir(cwd)
            .stdin(Stdio::null());
        cmd
    }

    /// `market-analyst ARGS` in the sandbox's working directory.
    fn market_analyst(&self) -> Command {
        self.command(binary(), &self.cwd)
    }

    /// Every event of every transcript in the state directory.
    fn events(&self) -> Vec<Value> {
        let mut events = Vec::new();
        let Ok(entries) = std::fs::read_dir(self.state.join("sessions")) else {
            return events;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(&path).unwrap();
                events.extend(
                    text.lines()
                        .map(|l| serde_json::from_str::<Value>(l).unwrap()),
                );
            }
        }
        events
    }

    /// The `tool_result` events of the transcripts, for the tool `name`.
    fn tool_results(&self, name: &str) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["type"] == "tool_result" && e["name"] == name)
            .collect()
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The text of a tool_result event's content.
fn result_text(event: &Value) -> String {
    event["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}
