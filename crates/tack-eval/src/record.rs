//! What one run leaves: a [`RunRecord`], one JSON line of `runs.jsonl`.
//!
//! A record is self-contained: the report, `tack eval compare`, `merge` and
//! the ATIF export read nothing else (the transcript it names is there for a
//! person who wants the whole story).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version of the record's shape; bumped when a field changes meaning.
pub const RECORD_VERSION: u32 = 1;

/// One run: a task through one variant, one repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// [`RECORD_VERSION`].
    pub version: u32,
    pub suite: String,
    pub task: String,
    pub variant: String,
    /// 0-based repeat of this task and variant.
    pub repeat: u32,
    /// The variant's traits, copied here so a record reads alone.
    pub interface: String,
    pub tool_search: bool,
    pub skill: bool,
    pub code_mode: bool,
    pub provider: String,
    pub model: String,
    /// Where the model's responses came from: `cassette`, `script` or `live`.
    pub source: String,
    /// How the run ended for the evaluation.
    pub status: Status,
    /// The completion checks, each with its verdict.
    pub checks: Vec<CheckResult>,
    /// The failure that explains a failed run (the most specific class
    /// observed); None when it passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Everything noteworthy the run did, failed or not (a retried invalid
    /// call in a passing run is still an `invalid_arguments` here).
    #[serde(default)]
    pub observed: Vec<Failure>,
    /// Every tool call, nested ones included, in the order they finished.
    pub calls: Vec<Call>,
    pub tokens: Tokens,
    /// Model requests answered (the run's turns).
    pub turns: u32,
    /// Model requests retried or refused.
    pub retries: u32,
    /// Wall time of the run, start to exit.
    pub wall_ms: u64,
    /// Time the model (or its stand-in) took to answer, summed.
    pub model_ms: u64,
    /// Time in tools, summed (top-level calls only).
    pub tool_ms: u64,
    /// The evaluation's own time for this run, beyond the program's:
    /// laying out the directory, starting the stand-in, reading the
    /// transcript, the checks, the cassette.
    #[serde(default)]
    pub harness_ms: u64,
    /// The program's exit code (None when killed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// How the session ended, as its `result` event says (`completed`,
    /// `max_turns`, …); None when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_status: Option<String>,
    /// The final answer.
    pub answer: String,
    /// A replayed run whose harness sent something the cassette did not hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
    /// The run's scratch directory and transcript, relative to the output directory.
    pub dir: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// When the run started, RFC 3339.
    pub started: String,
    /// The harness that ran it (`tack 0.1.0`).
    pub harness: String,
}

impl RunRecord {
    /// `task/variant/repeat`: unique within a suite, the key of `--resume` and `merge`.
    pub fn key(&self) -> String {
        run_key(&self.task, &self.variant, self.repeat)
    }

    pub fn passed(&self) -> bool {
        self.status == Status::Passed
    }
}

/// The key of one run.
pub fn run_key(task: &str, variant: &str, repeat: u32) -> String {
    format!("{task}/{variant}/{repeat}")
}

/// How a run ended for the evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every check passed.
    Passed,
    /// A check failed: the agent did not do the task ([`RunRecord::failure`] says why).
    Failed,
    /// A replayed run sent the model something the cassette did not hold:
    /// the harness changed, not the model. Not counted as a model failure.
    Diverged,
    /// The harness could not run the task (program missing, crashed,
    /// no cassette): not the agent's failure either.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Diverged => "diverged",
            Status::Error => "error",
        }
    }
}

/// A completion check and its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// What was checked, e.g. `answer_matches /\$\d+/` or `command: test -f report.md`.
    pub check: String,
    pub passed: bool,
    /// Why it failed (or what it saw).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// A class of failure, with what showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub class: FailureClass,
    pub detail: String,
    /// The tool call that showed it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

/// Why a run failed. Declared from the most specific to the least: when a
/// failed run shows several, the first in this order explains it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// A call was refused by a rule, a hook or the mode.
    Denied,
    /// The run (or a tool in it) ran out of time.
    Timeout,
    /// A code-mode program did not parse or threw.
    CodeError,
    /// The same side-effecting call (same tool, same input) ran twice.
    RepeatedSideEffect,
    /// The tool the task needs was deferred and never found by search.
    MissedDiscovery,
    /// A tool the task must not use was called, one it needs was not, or
    /// the model named a tool that does not exist.
    WrongTool,
    /// A call's input was refused as invalid (schema or the tool's own check).
    InvalidArguments,
    /// The right move was to ask the user; the agent answered instead.
    ShouldHaveAsked,
    /// The run ended without an answer (turn limit, max tokens, refusal, an
    /// answer saying it could not).
    GaveUp,
    /// The final answer or the final state is wrong.
    WrongFinalAnswer,
}

impl FailureClass {
    pub const ALL: [FailureClass; 10] = [
        FailureClass::Denied,
        FailureClass::Timeout,
        FailureClass::CodeError,
        FailureClass::RepeatedSideEffect,
        FailureClass::MissedDiscovery,
        FailureClass::WrongTool,
        FailureClass::InvalidArguments,
        FailureClass::ShouldHaveAsked,
        FailureClass::GaveUp,
        FailureClass::WrongFinalAnswer,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Denied => "denied",
            FailureClass::Timeout => "timeout",
            FailureClass::CodeError => "code_error",
            FailureClass::RepeatedSideEffect => "repeated_side_effect",
            FailureClass::MissedDiscovery => "missed_discovery",
            FailureClass::WrongTool => "wrong_tool",
            FailureClass::InvalidArguments => "invalid_arguments",
            FailureClass::ShouldHaveAsked => "should_have_asked",
            FailureClass::GaveUp => "gave_up",
            FailureClass::WrongFinalAnswer => "wrong_final_answer",
        }
    }
}

/// One tool call as the transcript recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub id: String,
    /// The tool as the model called it (`mcp__market__get_stock_snapshot`).
    pub name: String,
    pub input: Value,
    /// tack's outcome: `ok`, `invalid_input`, `denied`, …
    pub outcome: String,
    pub is_error: bool,
    pub duration_ms: u64,
    /// The permission decision and what made it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub decision: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub decided_by: String,
    /// The outer call of a nested call (code mode, a tool calling a tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// The result's text, cut to [`RESULT_EXCERPT`] bytes.
    pub result: String,
    /// The model turn (1-based) whose response made this call; 0 for a nested call.
    pub turn: u32,
}

/// How much of a result's text a [`Call`] keeps.
pub const RESULT_EXCERPT: usize = 2000;

/// Tokens of a run, split by what they paid for. Input tokens are counted
/// once per request (a conversation resent is paid again).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Input tokens not read from the cache (cache writes included).
    pub input_uncached: u64,
    /// Input tokens read from the prompt cache.
    pub input_cached: u64,
    pub output: u64,
    /// The part of input (cached or not) that was tool definitions; None
    /// when the requests were not seen (a live run goes straight to the API).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_definitions: Option<u64>,
    /// The part of input that was tool search: its calls, its results and
    /// the definitions it loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<u64>,
    /// Input and output of requests that were retried (their answer thrown away).
    pub retries: u64,
}

impl Tokens {
    /// Every token the run was billed for: input (cached or not) and output.
    pub fn total(&self) -> u64 {
        self.input_uncached + self.input_cached + self.output
    }

    pub fn add(&mut self, other: &Tokens) {
        self.input_uncached += other.input_uncached;
        self.input_cached += other.input_cached;
        self.output += other.output;
        self.retries += other.retries;
        self.tool_definitions = sum_opt(self.tool_definitions, other.tool_definitions);
        self.discovery = sum_opt(self.discovery, other.discovery);
    }
}

fn sum_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

/// Where a replayed run left its cassette.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// The 0-based model request that differed.
    pub request: usize,
    /// What the cassette held and what the harness sent, for a person.
    pub detail: String,
}

/// Reads a `runs.jsonl`: every line that parses (a torn last line, left by
/// a kill, is skipped and counted).
pub fn read_runs(text: &str) -> (Vec<RunRecord>, usize) {
    let mut runs = Vec::new();
    let mut skipped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(run) => runs.push(run),
            Err(_) => skipped += 1,
        }
    }
    (runs, skipped)
}
