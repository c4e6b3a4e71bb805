//! What the model reads: the answer of a foreground run, the progress line of
//! a long one, and BashOutput's reads of a background job.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_process::{Ending, Group, Taken};
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::MAX_TIMEOUT_MS;
use super::jobs::{Job, JobStatus, signal_name};
use super::state::BashState;

/// The line that marks bytes omitted to stay under the memory cap (ending in
/// a newline), if any were.
pub(crate) fn omission_note(taken: &Taken) -> Option<String> {
    if taken.omitted == 0 {
        return None;
    }
    let limit = if taken.cap >= 1024 * 1024 {
        format!("{} MB", taken.cap / (1024 * 1024))
    } else {
        format!("{}-byte", taken.cap)
    };
    Some(format!(
        "[… {} bytes of output omitted here: the output went over the {limit} memory limit …]\n",
        taken.omitted
    ))
}

/// The whole text of a take, with a note where bytes were omitted.
pub(crate) fn taken_text(taken: Taken) -> String {
    match omission_note(&taken) {
        None => taken.head,
        Some(note) => format!("{}\n{note}{}", taken.head, taken.tail),
    }
}

/// The last non-blank line of `recent` output (the one being printed
/// counts), cut to 120 characters; `\r` progress bars give their latest state.
pub(crate) fn last_line(recent: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(recent);
    let line = text
        .split(['\n', '\r'])
        .map(str::trim)
        .rfind(|l| !l.is_empty())?;
    let mut cut: String = line.chars().take(120).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    Some(cut)
}

/// What a foreground run left for the answer.
pub(crate) struct Run {
    pub ending: Ending,
    pub output: Taken,
    pub group: Group,
    /// Processes the command started are still running (e.g. `server &`).
    pub leftover_alive: bool,
    /// Processes that had left the command's group, killed when it ended.
    pub strays_killed: usize,
    pub timeout: Duration,
    pub cwd_note: Option<String>,
    /// What the OS sandbox has to say: a command that ran without it, or a
    /// write or connection it blocked.
    pub sandbox_notes: Vec<String>,
    /// The command ran in a PID namespace of its own (the OS sandbox).
    pub own_pid_namespace: bool,
    pub cwd: PathBuf,
    pub cwd_changed: bool,
    pub description: Option<String>,
}

/// The model's answer for a foreground run: the output, then notes on the
/// exit code, a timeout, processes left running and a new directory. A
/// cancelled run is an error carrying the output so far.
pub(crate) fn answer(run: Run) -> Result<ToolOutput, ToolError> {
    let Run {
        ending,
        output,
        group,
        leftover_alive,
        strays_killed,
        timeout,
        cwd_note,
        sandbox_notes,
        own_pid_namespace,
        cwd,
        cwd_changed,
        description,
    } = run;
    let dropped = output.omitted;
    let mut text = cwd_note.map(|n| n + "\n").unwrap_or_default();
    let printed = taken_text(output);
    text.push_str(&printed);

    let mut notes: Vec<String> = Vec::new();
    let (exit_code, signal) = match &ending {
        Ending::Exited(exit) => (exit.code(), exit.signal()),
        _ => (None, None),
    };
    let timed_out = ending.timed_out();
    match ending {
        Ending::Exited(_) => {
            if let Some(code) = exit_code.filter(|&c| c != 0) {
                notes.push(format!("Exit code: {code}"));
            }
            if let Some(sig) = signal {
                notes.push(format!("Terminated by signal {}", signal_name(sig)));
            }
        }
        Ending::TimedOut(_) => notes.push(format!(
            "[Command timed out after {} and was killed with every process it started. \
             The output so far is above. Raise timeout (at most {MAX_TIMEOUT_MS} ms) or \
             use run_in_background for long commands.]",
            fmt_ms(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX))
        )),
        Ending::Cancelled(_) => {
            let so_far = if text.trim().is_empty() {
                "no output so far".to_owned()
            } else {
                format!("output so far:\n{text}")
            };
            return Err(ToolError::Interrupted(format!(
                "the command was stopped and every process it started was killed; {so_far}"
            )));
        }
        Ending::Lost(why) => return Err(wait_failed(&why, &text)),
        // Any ending a later tack-process adds.
        other => return Err(wait_failed(&format!("{other:?}"), &text)),
    }
    notes.extend(sandbox_notes);
    if strays_killed > 0 {
        notes.push(format!(
            "[{strays_killed} process(es) this command started had left its process group \
             (setsid, a double fork) and were killed when it ended. Use run_in_background \
             to keep a command running.]"
        ));
    }
    if leftover_alive {
        notes.push(format!(
            "[Processes this command started are still running in the background \
             (process group {group}); their output is not captured and they are killed when \
             the session ends. Use run_in_background to keep a command running and read \
             its output.]"
        ));
        if own_pid_namespace {
            notes.push(
                "[They run in this command's own PID namespace (the OS sandbox): a later \
                 command cannot see them with ps or signal them by pid. Start servers with \
                 run_in_background and stop them with KillShell.]"
                    .to_owned(),
            );
        }
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
    // Claude Code's `BashOutput` (the Bash tool's output type): tack's
    // shell prints stdout and stderr into one stream, so all of it is
    // `stdout`; like Claude Code's, it has no exit code.
    let mut response = json!({
        "stdout": printed,
        "stderr": "",
        "interrupted": timed_out,
    });
    if timed_out {
        response["timedOutAfterMs"] = u64::try_from(timeout.as_millis())
            .unwrap_or(u64::MAX)
            .into();
    }
    Ok(ToolOutput::text(text)
        .with_structured(json!({
            "exit_code": exit_code,
            "signal": signal,
            "timed_out": timed_out,
            "cwd": cwd,
            "omitted_bytes": dropped,
            "description": description,
        }))
        .with_response(response))
}

fn wait_failed(why: &str, text: &str) -> ToolError {
    ToolError::Internal(format!(
        "waiting for the shell failed ({why}); the command was stopped and every \
         process it started was killed; output so far:\n{text}"
    ))
}

fn fmt_ms(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
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
    pub(crate) state: Arc<BashState>,
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
            None => (taken_text(taken), None),
            Some(re) => {
                let (text, counts) = filter_lines(taken, re);
                (text, Some(counts))
            }
        };
        let response = job_response(&job, &status, &output, input.filter.as_deref());
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
        let watch = job.watch_if_ended();
        for line in self.state.move_aside_created(watch.as_ref()) {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
        }
        let exit_code = match status {
            JobStatus::Exited(code) => Some(code),
            _ => None,
        };
        Ok(ToolOutput::text(text)
            .with_response(response)
            .with_structured(json!({
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

/// BashOutput's output in the shape of Claude Code's tool of that name
/// (before it became TaskOutput): the new output is all `stdout`, as
/// tack's shell prints both streams into one.
fn job_response(job: &Job, status: &JobStatus, output: &str, filter: Option<&str>) -> Value {
    let (state, exit_code) = match status {
        JobStatus::Running => ("running", None),
        JobStatus::Exited(0) => ("completed", Some(0)),
        JobStatus::Exited(code) => ("failed", Some(*code)),
        JobStatus::Killed => ("killed", None),
        JobStatus::Signaled(_) | JobStatus::Lost(_) => ("failed", None),
    };
    let mut response = json!({
        "shellId": job.id,
        "command": job.command,
        "status": state,
        "exitCode": exit_code,
        "stdout": output,
        "stderr": "",
        "stdoutLines": output.lines().count(),
        "stderrLines": 0,
        "timestamp": humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
    });
    if let Some(filter) = filter.filter(|f| !f.is_empty()) {
        response["filterPattern"] = filter.into();
    }
    response
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
    if let Some(note) = omission_note(&taken) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_is_the_last_line_printed() {
        assert_eq!(last_line(b""), None);
        let mut recent = b"Compiling a\nCompiling b\n\n".to_vec();
        assert_eq!(last_line(&recent).as_deref(), Some("Compiling b"));
        recent.extend_from_slice(b"[##  ] 40%\r[### ] 60%");
        assert_eq!(last_line(&recent).as_deref(), Some("[### ] 60%"));
        recent.extend_from_slice(&[b'x'; 1024]);
        let line = last_line(&recent).unwrap();
        assert_eq!(line.chars().count(), 121, "120 and an ellipsis");
    }

    #[test]
    fn omitted_bytes_are_marked_where_they_were() {
        let mut taken = taken_with("01234", 9, "efXYZ", 10);
        assert_eq!(
            taken_text(taken.clone()),
            "01234\n[… 9 bytes of output omitted here: the output went over the 10-byte \
             memory limit …]\nefXYZ"
        );
        taken.cap = 30 * 1024 * 1024;
        assert!(
            omission_note(&taken)
                .unwrap()
                .contains("the 30 MB memory limit")
        );
        taken.omitted = 0;
        assert_eq!(omission_note(&taken), None);
    }

    fn taken_with(head: &str, omitted: u64, tail: &str, cap: usize) -> Taken {
        Taken {
            head: head.to_owned(),
            omitted,
            tail: tail.to_owned(),
            held: 0,
            cap,
        }
    }
}
