//! Bash, BashOutput and KillShell: a shell for the model, with Claude Code's
//! names and inputs.
//!
//! Each call runs `bash FILE` (or `sh FILE` without bash) as a fresh process,
//! the command written to a file (mode 0600) in the session's private
//! temporary directory, not passed in argv (whose arguments the kernel limits
//! to 128 KiB each),
//! started by tack-process in a process group of its own (a session of its
//! own when tack has a terminal), with stdout and stderr on one pipe so they
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
//! - **Nothing escapes.** A process that leaves the command's group (`setsid`,
//!   a double fork into a new session) is still found by tack-process (by the
//!   tag it inherited): a foreground command's are killed when the call ends,
//!   a background job's with the job, and everything when tack is gone.
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
mod kill;
pub(crate) mod output;
pub mod sandbox;
mod state;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_process::{Ending, Hold, Process};
use tack_tool::{Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput, Typed, TypedTool};

pub use kill::{KillShell, KillShellInput};
pub use output::{BashOutput, BashOutputInput};
pub use state::find_shell;

use output::{Run, answer, last_line};
use state::{BashState, wrap_command};

/// The timeout of a call that does not set one (ms).
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest timeout a call may ask for (ms).
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// How long output is still read after the shell exited while processes it
/// left behind keep the pipe open.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(50);
/// How often a running command reports progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);
/// How much of the latest output the progress line is looked for in.
const PROGRESS_LOOKBACK: usize = 1024;

/// Bash, BashOutput and KillShell sharing one session shell state, whose
/// working directory starts at `session_cwd`.
pub fn bash_tools(session_cwd: std::path::PathBuf) -> Vec<Arc<dyn Tool>> {
    bash_tools_sandboxed(session_cwd, None)
}

/// [`bash_tools`] whose commands run in the session's OS sandbox, when it
/// has one.
pub fn bash_tools_sandboxed(
    session_cwd: std::path::PathBuf,
    sandbox: Option<Arc<sandbox::ShellSandbox>>,
) -> Vec<Arc<dyn Tool>> {
    bash_tools_in(session_cwd, &[], sandbox)
}

/// [`bash_tools_sandboxed`] whose shell is never taken from inside
/// `session_cwd` or `roots` (the project root, the working directories),
/// whatever `PATH` says ([`find_shell`]).
pub fn bash_tools_in(
    session_cwd: std::path::PathBuf,
    roots: &[std::path::PathBuf],
    sandbox: Option<Arc<sandbox::ShellSandbox>>,
) -> Vec<Arc<dyn Tool>> {
    let state = Arc::new(BashState::new(session_cwd, roots, sandbox));
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
    /// Run outside the OS sandbox. Only when the user asked for it or a
    /// command failed because the sandbox blocked it and the user should
    /// decide: the user is asked every time.
    #[serde(default, rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox: bool,
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

    /// The shell's directory, which must be the one the permission check
    /// judged the command in: a call that ran `cd` in between (another
    /// session sharing this shell, a concurrent caller) would move relative
    /// paths somewhere the rules never saw.
    fn cwd_checked(&self, ctx: &ToolContext) -> Result<(PathBuf, Option<String>), ToolError> {
        let (cwd, note) = self.state.current_cwd()?;
        match &ctx.checked_dir {
            Some(checked) if *checked != cwd => Err(ToolError::Transient(format!(
                "the shell's working directory changed from {} to {} after this command was checked, so it did not run; run it again to have it checked where the shell is now",
                checked.display(),
                cwd.display()
            ))),
            _ => Ok((cwd, note)),
        }
    }

    async fn run_background(
        &self,
        input: &BashInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let (cwd, note) = self.cwd_checked(ctx)?;
        let mut excluded_note = None;
        let confinement = self.state.confinement(
            &input.command,
            input.dangerously_disable_sandbox,
            &cwd,
            &mut excluded_note,
        )?;
        let (id, group, sandbox_note) = self
            .state
            .start_job(&input.command, &cwd, &confinement)
            .await?;
        let mut text = String::new();
        for note in [note, excluded_note, sandbox_note].into_iter().flatten() {
            text.push_str(&note);
            text.push('\n');
        }
        let _ = write!(
            text,
            "Started in the background as {id} (in {}). Read its output with BashOutput \
             (bash_id: \"{id}\"); stop it with KillShell (shell_id: \"{id}\").",
            cwd.display()
        );
        Ok(ToolOutput::text(text)
            .with_structured(json!({
                "bash_id": id,
                "pgid": group.id(),
                "cwd": cwd,
            }))
            .with_response(json!({
                "stdout": "",
                "stderr": "",
                "interrupted": false,
                "backgroundTaskId": id,
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

    fn working_dir(&self) -> Option<PathBuf> {
        Some(self.state.next_cwd())
    }

    fn sandbox_profile(&self, input: &BashInput) -> Option<String> {
        let sandbox = self.state.sandbox.as_ref()?;
        let cwd = self.state.next_cwd();
        let confinement = self
            .state
            .confinement(
                &input.command,
                input.dangerously_disable_sandbox,
                &cwd,
                &mut None,
            )
            .ok()?;
        sandbox.profile(&confinement)
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        }
    }

    /// What models get wrong: a server started in the foreground (or with
    /// `&`) instead of `run_in_background`, and a timeout in seconds.
    fn input_examples(&self) -> Vec<serde_json::Value> {
        vec![
            json!({"command": "npm run dev", "description": "Start the dev server", "run_in_background": true}),
            json!({"command": "cargo test --workspace 2>&1 | tail -n 40", "description": "Run all tests", "timeout": 600000}),
        ]
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
            return self.run_background(&input, &ctx).await;
        }
        let state = &self.state;
        let (cwd, note) = self.cwd_checked(&ctx)?;
        let mut excluded_note = None;
        let confinement = state.confinement(
            &input.command,
            input.dangerously_disable_sandbox,
            &cwd,
            &mut excluded_note,
        )?;
        let files = state.call_files()?;
        let script = wrap_command(&input.command, &files.cwd);
        let denials_before = state
            .sandbox
            .as_ref()
            .map_or(0, |s| s.sandbox.denials_so_far());
        let watch = state.watch(&confinement);
        let (process, unsandboxed_note) = state.spawn(&script, &files, &cwd, &confinement).await?;
        let ending = wait_reporting_progress(&process, timeout, &ctx).await;
        // What left the command's process group (setsid, a double fork into a
        // new session) dies with the call; a timeout or cancel killed it
        // already. What stayed in the group is a leftover, killed at session
        // end.
        // A command in a PID namespace of its own whose group is empty has
        // nothing left: its namespace died with its init (no /proc scans).
        let contained = confinement == sandbox::Confinement::Sandboxed
            && state
                .sandbox
                .as_ref()
                .is_some_and(|s| s.sandbox.pid_namespace())
            && process.group().is_empty();
        let strays_killed = match ending {
            Ending::Exited(_) if !contained => process.group().kill_strays(),
            _ => 0,
        };
        // Output may still be in the pipe, or processes the command left
        // running may hold it open: read it a moment longer, not more.
        process.output_closed(DRAIN_AFTER_EXIT).await;
        let leftover_alive =
            matches!(ending, Ending::Exited(_)) && !contained && process.group().is_alive();
        let output = process.stdout().take(Hold::Nothing);
        let group = process.group();
        let sandbox_note = match (&confinement, &state.sandbox) {
            (sandbox::Confinement::Sandboxed, Some(s)) if unsandboxed_note.is_none() => {
                if let Some(failure) = sandbox::setup_failure(&output.head) {
                    let _ = std::fs::remove_file(&files.script);
                    return Err(ToolError::Unavailable(failure));
                }
                // A refused connection may not fail the command (curl prints
                // the proxy's 403 and exits 0).
                let failed = !matches!(ending, Ending::Exited(e) if e.success())
                    || s.sandbox.denials_so_far() > denials_before;
                failed
                    .then(|| {
                        s.sandbox
                            .explain(&input.command, &taken_all(&output), &cwd, denials_before)
                    })
                    .flatten()
                    .map(|blocked| format!("[{blocked}]"))
            }
            _ => None,
        };
        // The leader has ended: dropping the process leaves what it started
        // running (killed at session end), its output drained and not kept.
        drop(process);
        let _ = std::fs::remove_file(&files.script);
        let new_cwd = state.record_cwd(&files.cwd, &cwd);
        let moved_aside = state.move_aside_created(watch.as_ref());
        if leftover_alive {
            state.remember_leftover(group, watch);
        }
        answer(Run {
            ending,
            output,
            group,
            leftover_alive,
            strays_killed,
            timeout,
            cwd_note: note,
            sandbox_notes: [excluded_note, unsandboxed_note, sandbox_note]
                .into_iter()
                .flatten()
                .chain(moved_aside)
                .collect(),
            own_pid_namespace: confinement == sandbox::Confinement::Sandboxed,
            cwd: new_cwd.clone().unwrap_or(cwd),
            cwd_changed: new_cwd.is_some(),
            description: input.description,
        })
    }
}

/// The head and tail of a take, for looking at what the command printed.
fn taken_all(taken: &tack_process::Taken) -> String {
    if taken.tail.is_empty() {
        taken.head.clone()
    } else {
        format!("{}\n{}", taken.head, taken.tail)
    }
}

/// Waits for the command (its timeout, the call's cancellation) and, for
/// whoever watches the call, reports once a second the elapsed seconds (as
/// the progress) and the last line printed (as the message).
async fn wait_reporting_progress(
    process: &Process,
    timeout: Duration,
    ctx: &ToolContext,
) -> Ending {
    let wait = process.wait(Some(timeout), Some(&ctx.cancel));
    if !ctx.progress.is_active() {
        return wait.await;
    }
    tokio::pin!(wait);
    let started = Instant::now();
    let mut ticks =
        tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            biased;
            ending = &mut wait => return ending,
            _ = ticks.tick() => {
                // The seconds are the progress; the message is the output
                // (a watcher shows its own timer: one timer, not two).
                let secs = started.elapsed().as_secs();
                let message = last_line(&process.stdout().recent(PROGRESS_LOOKBACK))
                    .unwrap_or_else(|| "no output yet".to_owned());
                ctx.progress.report(tack_tool::Progress {
                    progress: secs as f64,
                    total: None,
                    message: Some(message),
                });
            }
        }
    }
}
