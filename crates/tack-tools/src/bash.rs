//! Bash, BashOutput and KillShell: a shell for the model, with Claude Code's
//! names and inputs.
//!
//! Each call runs `bash -c` (or `sh -c` without bash) as a fresh process in a
//! process group of its own, with stdout and stderr on one pipe so they
//! interleave as printed. The three tools share one `BashState` per session:
//!
//! - **The working directory persists; nothing else does.** The command is
//!   wrapped in a script whose EXIT trap runs the builtin `pwd -P` into a file,
//!   so a `cd` carries over to the next call without a long-lived shell (whose
//!   state a crashed command could corrupt) and without an extra process.
//! - **Stopping a command stops everything it started.** On timeout, on
//!   cancellation and on KillShell the whole group gets SIGTERM, then SIGKILL
//!   after a short grace (250 ms); dropping a running call kills the group too.
//! - **Background jobs die with the session.** Dropping the last tool of a set
//!   (the session ends) kills every background job and every group a command
//!   left running (`server &`).
//!
//! A timed-out command answers with its output so far and a note saying it was
//! killed (the model needs the partial output, and [`ToolError::Timeout`] has
//! no room for it); a cancelled one answers [`ToolError::Interrupted`] with the
//! output so far in its text.
//!
//! ```no_run
//! # async fn demo() {
//! let tools = tack_tools::bash::bash_tools(std::env::current_dir().unwrap());
//! let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
//! assert_eq!(names, ["Bash", "BashOutput", "KillShell"]);
//! # }
//! ```

mod jobs;
mod process;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use nix::unistd::Pid;
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_tool::{Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput, Typed, TypedTool};

use jobs::{Job, JobStatus, KillOutcome, signal_name};
use process::{Ending, Taken, run_foreground, wrap_command};

/// The timeout of a call that does not set one (ms).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest timeout a call may ask for (ms).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Bash, BashOutput and KillShell sharing one session shell state, whose
/// working directory starts at `session_cwd`.
pub fn bash_tools(session_cwd: PathBuf) -> Vec<Arc<dyn Tool>> {
    let state = Arc::new(BashState::new(session_cwd));
    vec![
        Arc::new(Typed(Bash {
            state: Arc::clone(&state),
        })),
        Arc::new(Typed(BashOutput {
            state: Arc::clone(&state),
        })),
        Arc::new(Typed(KillShell { state })),
    ]
}

/// The session's shell: its working directory, background jobs and groups
/// left running. Dropping it kills every job and leftover group.
pub(crate) struct BashState {
    shell: PathBuf,
    session_cwd: PathBuf,
    cwd: Mutex<PathBuf>,
    jobs: Mutex<BTreeMap<u64, Arc<Job>>>,
    leftovers: Mutex<Vec<Pid>>,
    next_job: AtomicU64,
    next_call: AtomicU64,
    temp_dir: Mutex<Option<PathBuf>>,
}

impl BashState {
    /// A fresh shell state starting in `session_cwd`.
    pub(crate) fn new(session_cwd: PathBuf) -> Self {
        Self {
            shell: process::find_shell(),
            cwd: Mutex::new(session_cwd.clone()),
            session_cwd,
            jobs: Mutex::new(BTreeMap::new()),
            leftovers: Mutex::new(Vec::new()),
            next_job: AtomicU64::new(1),
            next_call: AtomicU64::new(1),
            temp_dir: Mutex::new(None),
        }
    }

    /// The shell's current directory; a note when it had to fall back to the
    /// session directory because the old one is gone.
    fn current_cwd(&self) -> Result<(PathBuf, Option<String>), ToolError> {
        let mut cwd = lock(&self.cwd);
        if cwd.is_dir() {
            return Ok((cwd.clone(), None));
        }
        if !self.session_cwd.is_dir() {
            return Err(ToolError::Unavailable(format!(
                "the working directory {} and the session directory {} no longer exist; \
                 restore the session directory or start a new session",
                cwd.display(),
                self.session_cwd.display()
            )));
        }
        let note = format!(
            "[The working directory {} no longer exists; this command ran in the session directory {}.]",
            cwd.display(),
            self.session_cwd.display()
        );
        *cwd = self.session_cwd.clone();
        Ok((cwd.clone(), Some(note)))
    }

    /// A fresh file for the EXIT trap to write the final directory into, in a
    /// private directory made on first use.
    fn cwd_file(&self) -> Result<PathBuf, ToolError> {
        let mut dir = lock(&self.temp_dir);
        let dir = match &*dir {
            Some(d) if d.is_dir() => d.clone(),
            _ => {
                let made = make_private_dir().map_err(|e| {
                    ToolError::Unavailable(format!(
                        "could not create a temporary directory in {}: {e}; check TMPDIR",
                        std::env::temp_dir().display()
                    ))
                })?;
                *dir = Some(made.clone());
                made
            }
        };
        let n = self.next_call.fetch_add(1, Ordering::Relaxed);
        Ok(dir.join(format!("cwd-{n}")))
    }

    /// Reads the directory the trap recorded; returns it when it changed.
    fn record_cwd(&self, cwd_file: &Path, before: &Path) -> Option<PathBuf> {
        let text = std::fs::read_to_string(cwd_file).ok();
        let _ = std::fs::remove_file(cwd_file);
        let recorded = text?;
        let path = PathBuf::from(recorded.strip_suffix('\n').unwrap_or(&recorded));
        if !path.is_absolute() || !path.is_dir() {
            return None;
        }
        let mut cwd = lock(&self.cwd);
        *cwd = path.clone();
        (path != before).then_some(path)
    }

    fn remember_leftover(&self, pgid: Pid) {
        let mut leftovers = lock(&self.leftovers);
        leftovers.retain(|&p| process::group_alive(p));
        leftovers.push(pgid);
    }

    fn start_job(&self, command: &str, cwd: &Path) -> Result<(String, Pid), ToolError> {
        let spawned =
            process::spawn(&self.shell, command, cwd).map_err(|e| self.spawn_error(&e))?;
        let n = self.next_job.fetch_add(1, Ordering::Relaxed);
        let id = format!("bash_{n}");
        let pgid = spawned.pgid;
        let job = Job::start(id.clone(), command.to_owned(), spawned);
        lock(&self.jobs).insert(n, Arc::new(job));
        Ok((id, pgid))
    }

    fn spawn_error(&self, e: &std::io::Error) -> ToolError {
        ToolError::Unavailable(format!(
            "could not start the shell {}: {e}",
            self.shell.display()
        ))
    }

    fn job(&self, id: &str) -> Result<Arc<Job>, ToolError> {
        let jobs = lock(&self.jobs);
        let job = id
            .strip_prefix("bash_")
            .and_then(|n| n.parse::<u64>().ok())
            .and_then(|n| jobs.get(&n));
        job.cloned().ok_or_else(|| {
            let known: Vec<&str> = jobs.values().map(|j| j.id.as_str()).collect();
            ToolError::InvalidInput(if known.is_empty() {
                format!(
                    "there is no background shell {id:?}: none was started in this session \
                     (start one with Bash and run_in_background: true)"
                )
            } else {
                format!(
                    "there is no background shell {id:?}; the ids of this session are: {}",
                    known.join(", ")
                )
            })
        })
    }
}

impl Drop for BashState {
    fn drop(&mut self) {
        for job in lock(&self.jobs).values() {
            job.kill_now();
        }
        for &pgid in lock(&self.leftovers).iter() {
            if process::group_alive(pgid) {
                process::kill_group_now(pgid);
            }
        }
        if let Some(dir) = lock(&self.temp_dir).take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn make_private_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut last = None;
    for attempt in 0..16u32 {
        let dir = base.join(format!(
            "tack-bash-{}-{nanos:x}-{attempt}",
            std::process::id()
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no attempt made")))
}

fn fmt_ms(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

// The input of Bash. Not a doc comment: that would become the schema's
// description, sent with every request.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashInput {
    /// The command line to run with bash, e.g. `cargo test -p core 2>&1 | tail -n 50`.
    /// Quote paths that contain spaces: `cd "/tmp/my dir"`.
    pub command: String,
    /// Time limit in milliseconds (default 120000, at most 600000). On timeout
    /// the command and every process it started are killed.
    #[schemars(range(min = 1, max = 600_000))]
    pub timeout: Option<u64>,
    /// What the command does in 5 to 10 words, shown to the user, e.g.
    /// "Run the core crate's unit tests".
    pub description: Option<String>,
    /// Start the command and return at once with a shell id (e.g. "bash_1"),
    /// for servers, watchers and long builds; read its output with BashOutput.
    #[serde(default)]
    pub run_in_background: bool,
}

/// Runs a shell command in the session's shell directory.
pub struct Bash {
    state: Arc<BashState>,
}

impl Bash {
    fn check_timeout(input: &BashInput) -> Result<Duration, ToolError> {
        match input.timeout {
            None => Ok(Duration::from_millis(DEFAULT_TIMEOUT_MS)),
            Some(0) => Err(ToolError::InvalidInput(
                "timeout must be at least 1 ms; omit it for the default of 120000 ms".into(),
            )),
            Some(ms) if ms > MAX_TIMEOUT_MS => Err(ToolError::InvalidInput(format!(
                "timeout {ms} ms is above the maximum of {MAX_TIMEOUT_MS} ms (10 minutes); \
                 use a smaller timeout, or run_in_background: true for longer commands"
            ))),
            Some(ms) => Ok(Duration::from_millis(ms)),
        }
    }

    async fn run_background(&self, input: &BashInput) -> Result<ToolOutput, ToolError> {
        let (cwd, note) = self.state.current_cwd()?;
        let (id, pgid) = self.state.start_job(&input.command, &cwd)?;
        let mut text = String::new();
        if let Some(note) = note {
            text.push_str(&note);
            text.push('\n');
        }
        let _ = write!(
            text,
            "Started in the background as {id} (in {}). Read its output with BashOutput \
             (bash_id: \"{id}\"); stop it with KillShell (shell_id: \"{id}\").",
            cwd.display()
        );
        Ok(ToolOutput::text(text).with_structured(json!({
            "bash_id": id,
            "pgid": pgid.as_raw(),
            "cwd": cwd,
        })))
    }
}

const BASH_DESCRIPTION: &str = "\
Runs a shell command with bash and returns its output: stdout and stderr interleaved as printed, \
then \"Exit code: N\" when the code is not 0. Use it for builds, tests, git, package managers and \
other programs. The working directory persists between calls (a `cd` carries over); environment \
variables, aliases and functions do not: each call is a fresh shell, with empty stdin, so avoid \
interactive commands. Do not use it to read, search or edit files: use Read instead of \
cat/head/tail, Grep instead of grep/rg, Glob instead of find/ls, Edit or Write instead of \
sed/awk/echo >. Quote paths containing spaces; chain dependent commands with &&. Timeout: \
120000 ms by default, at most 600000; a command that runs out of time is killed with every \
process it started, and its output so far is returned. For servers, watchers and other \
long-running commands set run_in_background: it returns a shell id at once; read new output \
with BashOutput and stop it with KillShell.";

#[async_trait]
impl TypedTool for Bash {
    fn output(&self) -> tack_tool::OutputBehaviour {
        tack_tool::OutputBehaviour::with_hint(
            " You can also filter the command's output (grep, head, tail) or write it to a file and search that.",
        )
    }
    type Input = BashInput;

    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> &str {
        BASH_DESCRIPTION
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        }
    }

    /// The tool enforces the call's own timeout (up to 10 minutes); the
    /// harness limit only has to lie beyond it.
    fn timeout(&self) -> Option<Duration> {
        Some(Duration::from_millis(MAX_TIMEOUT_MS) + Duration::from_secs(15))
    }

    fn validate(&self, input: &BashInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.command.trim().is_empty() {
            return Err(ToolError::InvalidInput(
                "command is empty; give the command line to run".into(),
            ));
        }
        Self::check_timeout(input).map(drop)
    }

    async fn call(&self, input: BashInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        self.validate(&input, &ctx)?;
        let timeout = Self::check_timeout(&input)?;
        if input.run_in_background {
            return self.run_background(&input).await;
        }
        let state = &self.state;
        let (cwd, note) = state.current_cwd()?;
        let cwd_file = state.cwd_file()?;
        let script = wrap_command(&input.command, &cwd_file);
        let spawned =
            process::spawn(&state.shell, &script, &cwd).map_err(|e| state.spawn_error(&e))?;
        let pgid = spawned.pgid;
        let finished = run_foreground(spawned, timeout, &ctx.cancel, &ctx.progress).await;
        let new_cwd = state.record_cwd(&cwd_file, &cwd);
        if finished.leftover_alive {
            state.remember_leftover(pgid);
        }
        answer(Run {
            finished,
            pgid,
            timeout,
            cwd_note: note,
            cwd: new_cwd.clone().unwrap_or(cwd),
            cwd_changed: new_cwd.is_some(),
            description: input.description,
        })
    }
}

/// What a foreground run left for the answer.
struct Run {
    finished: process::Finished,
    pgid: Pid,
    timeout: Duration,
    cwd_note: Option<String>,
    cwd: PathBuf,
    cwd_changed: bool,
    description: Option<String>,
}

/// The model's answer for a foreground run: the output, then notes on the
/// exit code, a timeout, processes left running and a new directory. A
/// cancelled run is an error carrying the output so far.
fn answer(run: Run) -> Result<ToolOutput, ToolError> {
    let Run {
        finished,
        pgid,
        timeout,
        cwd_note,
        cwd,
        cwd_changed,
        description,
    } = run;
    if let Some(mut pipe) = finished.leftover {
        // Processes left running still hold the pipe: keep draining it so
        // they do not die of SIGPIPE; their output is not kept.
        tokio::spawn(async move {
            let _ = tokio::io::copy(&mut pipe, &mut tokio::io::sink()).await;
        });
    }
    let mut output = finished.output;
    let dropped = output.dropped();
    let mut text = cwd_note.map(|n| n + "\n").unwrap_or_default();
    text.push_str(&output.take_text(false));

    let mut notes: Vec<String> = Vec::new();
    let (exit_code, signal) = match &finished.ending {
        Ending::Exited(status) => (status.code(), status.signal()),
        Ending::TimedOut | Ending::Cancelled | Ending::WaitFailed(_) => (None, None),
    };
    let timed_out = matches!(finished.ending, Ending::TimedOut);
    match finished.ending {
        Ending::Exited(_) => {
            if let Some(code) = exit_code.filter(|&c| c != 0) {
                notes.push(format!("Exit code: {code}"));
            }
            if let Some(sig) = signal {
                notes.push(format!("Terminated by signal {}", signal_name(sig)));
            }
        }
        Ending::TimedOut => notes.push(format!(
            "[Command timed out after {} and was killed with every process it started. \
             The output so far is above. Raise timeout (at most {MAX_TIMEOUT_MS} ms) or \
             use run_in_background for long commands.]",
            fmt_ms(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX))
        )),
        Ending::Cancelled => {
            let so_far = if text.trim().is_empty() {
                "no output so far".to_owned()
            } else {
                format!("output so far:\n{text}")
            };
            return Err(ToolError::Interrupted(format!(
                "the command was stopped and every process it started was killed; {so_far}"
            )));
        }
        Ending::WaitFailed(e) => {
            return Err(ToolError::Internal(format!(
                "waiting for the shell failed ({e}); the command was stopped and every \
                 process it started was killed; output so far:\n{text}"
            )));
        }
    }
    if finished.leftover_alive {
        notes.push(format!(
            "[Processes this command started are still running in the background \
             (process group {pgid}); their output is not captured and they are killed when \
             the session ends. Use run_in_background to keep a command running and read \
             its output.]"
        ));
    }
    if cwd_changed {
        notes.push(format!("[Working directory is now {}]", cwd.display()));
    }
    if text.trim().is_empty() && notes.is_empty() {
        text.push_str("(no output)");
    }
    for n in notes {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&n);
    }
    Ok(ToolOutput::text(text).with_structured(json!({
        "exit_code": exit_code,
        "signal": signal,
        "timed_out": timed_out,
        "cwd": cwd,
        "omitted_bytes": dropped,
        "description": description,
    })))
}

// The input of BashOutput. Not a doc comment: that would become the schema's
// description, sent with every request.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashOutputInput {
    /// The id Bash returned for a background command, e.g. "bash_1".
    pub bash_id: String,
    /// A regular expression, e.g. "error|warning" or "(?i)listening on": only new
    /// lines matching it are returned; the other new lines are dropped and cannot
    /// be read again.
    pub filter: Option<String>,
}

impl BashOutputInput {
    /// The compiled filter; `None` without one. An empty filter is none:
    /// models fill optional strings with "".
    fn filter(&self) -> Result<Option<Regex>, ToolError> {
        let Some(pattern) = self.filter.as_deref().filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        Regex::new(pattern).map(Some).map_err(|e| {
            ToolError::InvalidInput(format!(
                "filter {pattern:?} is not a valid regular expression: {e}\n\
                 Fix the pattern (Rust regex syntax: escape ( ) [ ] {{ }} . * + ? | \\ with a \
                 backslash to match them literally; look-around and backreferences are not \
                 supported) or leave filter out. No output was read or dropped."
            ))
        })
    }
}

/// Reads new output of a background command.
pub struct BashOutput {
    state: Arc<BashState>,
}

#[async_trait]
impl TypedTool for BashOutput {
    type Input = BashOutputInput;

    fn name(&self) -> &str {
        "BashOutput"
    }

    fn description(&self) -> &str {
        "Returns the output a background command (started by Bash with run_in_background) printed \
         since the last BashOutput call for it, after a first line with its status: running, \
         exited with code N, or killed. Call it again later to follow a server or a long build; \
         an empty read says \"(no new output)\". Takes the id Bash returned, e.g. \"bash_1\", \
         and optionally a filter regex to keep only the new lines that match."
    }

    fn is_concurrency_safe(&self, _input: &BashOutputInput) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            read_only: true,
            ..Default::default()
        }
    }

    fn validate(&self, input: &BashOutputInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        input.filter().map(drop)
    }

    async fn call(
        &self,
        input: BashOutputInput,
        _ctx: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        // Both checks come before the read: a failed call consumes nothing.
        let filter = input.filter()?;
        let job = self.state.job(&input.bash_id)?;
        let status = job.status();
        // A filter matches whole lines: one still being printed waits.
        let taken = job.take_output(filter.is_some());
        let omitted = taken.omitted;
        let held = taken.held;
        let (output, filtered) = match &filter {
            None => (taken.into_text(), None),
            Some(re) => {
                let (text, counts) = filter_lines(taken, re);
                (text, Some(counts))
            }
        };
        let elapsed = job.started.elapsed().as_secs();
        let mut text = format!(
            "{}: {status} (started {elapsed}s ago: {})\n",
            job.id,
            one_line(&job.command, 80)
        );
        let no_lines = filtered.as_ref().is_some_and(|f| f.lines == 0);
        if output.is_empty() && (filtered.is_none() || no_lines) {
            text.push_str("(no new output)");
        } else {
            text.push_str(&output);
        }
        if let Some(note) = filtered.as_ref().and_then(|f| f.note(held)) {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&note);
        }
        let exit_code = match status {
            JobStatus::Exited(code) => Some(code),
            _ => None,
        };
        Ok(ToolOutput::text(text).with_structured(json!({
            "bash_id": job.id,
            "status": status.key(),
            "exit_code": exit_code,
            "omitted_bytes": omitted,
            "filter": filtered.map(|f| json!({
                "lines": f.lines,
                "matched": f.kept,
                "dropped": f.lines - f.kept,
                "held_bytes": held,
            })),
        })))
    }
}

/// How a filter sorted one read's lines.
struct Filtered {
    /// New lines read, matching or not.
    lines: usize,
    /// Lines that matched and were returned.
    kept: usize,
}

impl Filtered {
    /// "(filter: 12 of 15 new lines did not match and were dropped)", and a
    /// word on an unfinished last line held for the next read.
    fn note(&self, held: usize) -> Option<String> {
        let mut parts = Vec::new();
        if self.lines > 0 {
            let dropped = self.lines - self.kept;
            parts.push(format!(
                "{dropped} of {} new {} did not match and {} dropped",
                self.lines,
                if self.lines == 1 { "line" } else { "lines" },
                if dropped == 1 { "was" } else { "were" },
            ));
        }
        if held > 0 {
            parts.push("an unfinished last line is kept for the next read".to_owned());
        }
        (!parts.is_empty()).then(|| format!("(filter: {})", parts.join("; ")))
    }
}

/// Keeps the lines that match `re`, stdout and stderr alike (they share one
/// pipe). A line is matched without its line ending; the note on omitted
/// bytes is kept and is not a line.
fn filter_lines(taken: Taken, re: &Regex) -> (String, Filtered) {
    let mut text = String::new();
    let mut counts = Filtered { lines: 0, kept: 0 };
    let mut add = |part: &str, text: &mut String| {
        for line in part.split_inclusive('\n') {
            let bare = line.strip_suffix('\n').unwrap_or(line);
            let bare = bare.strip_suffix('\r').unwrap_or(bare);
            counts.lines += 1;
            if re.is_match(bare) {
                counts.kept += 1;
                text.push_str(line);
                if !line.ends_with('\n') {
                    text.push('\n');
                }
            }
        }
    };
    add(&taken.head, &mut text);
    if let Some(note) = taken.omission_note() {
        text.push_str(&note);
    }
    add(&taken.tail, &mut text);
    (text, counts)
}

fn one_line(s: &str, max_chars: usize) -> String {
    let first = s.lines().next().unwrap_or("");
    let more = s.lines().nth(1).is_some();
    let mut out: String = first.chars().take(max_chars).collect();
    if more || first.chars().count() > max_chars {
        out.push('…');
    }
    out
}

// The input of KillShell. Not a doc comment: that would become the schema's
// description, sent with every request.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct KillShellInput {
    /// The id of the background command to stop, e.g. "bash_1".
    pub shell_id: String,
}

/// Stops a background command and every process it started.
pub struct KillShell {
    state: Arc<BashState>,
}

#[async_trait]
impl TypedTool for KillShell {
    type Input = KillShellInput;

    fn name(&self) -> &str {
        "KillShell"
    }

    fn description(&self) -> &str {
        "Stops a background command started by Bash with run_in_background, together with every \
         process it started (SIGTERM, then SIGKILL after a moment). Takes the id Bash returned, \
         e.g. \"bash_1\". Output it printed before being stopped can still be read with \
         BashOutput. Stopping a command that already ended is harmless and says so."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            destructive: true,
            idempotent: true,
            ..Default::default()
        }
    }

    async fn call(
        &self,
        input: KillShellInput,
        _ctx: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let job = self.state.job(&input.shell_id)?;
        let outcome = job.kill().await;
        let id = job.id.clone();
        let text = match &outcome {
            KillOutcome::Killed => format!("Killed {id} and every process it started."),
            KillOutcome::KilledLeftovers(status) => {
                format!("{id} had already ended ({status}); killed the processes it left running.")
            }
            KillOutcome::AlreadyEnded(status) => {
                format!("{id} had already ended ({status}); nothing to stop.")
            }
        };
        Ok(ToolOutput::text(text).with_structured(json!({
            "shell_id": id,
            "killed": !matches!(outcome, KillOutcome::AlreadyEnded(_)),
        })))
    }
}
