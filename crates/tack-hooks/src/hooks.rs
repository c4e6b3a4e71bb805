//! Running the hooks of one event: the loop and what each event does with
//! each kind of hook result.
//!
//! ```text
//!  matching hooks (declared order, deduplicated by command)
//!    └─► for each: stdin JSON ─► run (sh -c, timeout) ─► interpret ─► event state
//!          exit 0, stdout `{…}` ─► JSON fields (continue, systemMessage, decision, hookSpecificOutput)
//!          exit 0, other stdout ─► context (UserPromptSubmit, SessionStart) or output report
//!          exit 2              ─► block with stderr as the reason
//!          other / timeout / signal / invalid JSON ─► report; fail-closed hooks also block
//! ```
//!
//! PreToolUse and UserPromptSubmit stop at the first hook that denies, blocks
//! or stops the agent; the other events run every matching hook, since what
//! they observe has already happened.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};
use tack_protocol::Verdict;

use crate::config::{CommandHook, Config, HookEvent, HookRef};
use crate::error::Result;
use crate::outcome::{
    HookDecision, HookNote, HookReport, HookRun, HookStop, PostToolUseOutcome, PreToolUseOutcome,
    ReportKind, SessionEndOutcome, SessionStartOutcome, StopOutcome, UserPromptSubmitOutcome,
};
use crate::output::{HookOutput, TopDecision};
use crate::run::{self, RawRun, RunStatus};

/// The session facts every hook receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookContext {
    /// `session_id` on stdin.
    pub session_id: String,
    /// `transcript_path` on stdin: the session's JSONL transcript.
    pub transcript_path: PathBuf,
    /// `cwd` on stdin: the agent's working directory.
    pub cwd: PathBuf,
    /// `permission_mode` on stdin: `default`, `acceptEdits`, `plan`,
    /// `dontAsk` or `bypassPermissions`.
    pub permission_mode: String,
    /// The hook's working directory, and `CLAUDE_PROJECT_DIR` /
    /// `TACK_PROJECT_DIR` in its environment.
    pub project_dir: PathBuf,
}

/// The hooks of a session, read from settings; runs them per event.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    config: Config,
}

impl Hooks {
    /// Reads the `hooks` key (and `disableAllHooks`) of each settings value,
    /// given as `(file path, parsed JSON)` in the order user, project, local
    /// (managed settings: [`Hooks::from_settings_with_managed`]).
    /// Hooks run in that order, and within a file in the file's order.
    ///
    /// A value of the wrong shape, a missing `command` or a bad regex is an
    /// [`Error`](crate::Error) naming the file and the JSON path. An unknown
    /// event name or hook type is not an error (files are shared with newer
    /// Claude Code versions): it is skipped and listed in [`warnings`](Self::warnings).
    pub fn from_settings(sources: &[(String, &Value)]) -> Result<Hooks> {
        Ok(Hooks {
            config: Config::parse(sources)?,
        })
    }

    /// [`Hooks::from_settings`] for `sources` (user, project, local) plus the
    /// administrator's `managed` settings, whose hooks run last: they judge
    /// the input as the other hooks rewrote it, and a copy of a managed
    /// command in another file runs at the managed place, not before.
    /// `disableAllHooks` in `sources` does not turn off managed hooks (in
    /// `managed` it turns off every hook), and `allowManagedHooksOnly: true`
    /// in `managed` leaves out every other hook, as in Claude Code.
    pub fn from_settings_with_managed(
        sources: &[(String, &Value)],
        managed: &[(String, &Value)],
    ) -> Result<Hooks> {
        Ok(Hooks {
            config: Config::parse_with_managed(sources, managed)?,
        })
    }

    /// What was skipped while reading the settings, for the user.
    pub fn warnings(&self) -> &[String] {
        &self.config.warnings
    }

    /// The file that set `"disableAllHooks": true`, if one did; then no hook runs.
    pub fn disabled_by(&self) -> Option<&str> {
        self.config.disabled_by.as_deref()
    }

    /// Whether no hook can ever run.
    pub fn is_empty(&self) -> bool {
        self.config.disabled_by.is_some()
            || self.config.groups.iter().all(|(_, g)| g.hooks.is_empty())
    }

    /// Whether any hook is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.config.disabled_by.is_none()
            && self
                .config
                .groups
                .iter()
                .any(|(e, g)| *e == event && !g.hooks.is_empty())
    }

    /// The hooks that run for `event` on `subject` (tool name, session start
    /// source, session end reason), in order.
    ///
    /// Identical commands run once, at the place of the first, as in Claude
    /// Code (except that a managed hook keeps its own place); if any of the
    /// copies is fail-closed, the one run is.
    pub fn matching(&self, event: HookEvent, subject: &str) -> Vec<CommandHook> {
        // Each hook with whether it is managed.
        let mut hooks: Vec<(CommandHook, bool)> = Vec::new();
        if self.config.disabled_by.is_some() {
            return Vec::new();
        }
        for (e, group) in &self.config.groups {
            if *e != event || (event.uses_matcher() && !group.matcher.matches(subject)) {
                continue;
            }
            for hook in &group.hooks {
                let same = hooks
                    .iter()
                    .position(|(h, _)| h.hook.command == hook.hook.command);
                match same {
                    // A copy in another file must not move the
                    // administrator's hook before the rewrites it judges.
                    Some(i) if group.managed && !hooks.get(i).is_some_and(|(_, m)| *m) => {
                        let (earlier, _) = hooks.remove(i);
                        let mut hook = hook.clone();
                        hook.fail_closed |= earlier.fail_closed;
                        hooks.push((hook, true));
                    }
                    Some(i) => {
                        if let Some((first, _)) = hooks.get_mut(i) {
                            first.fail_closed |= hook.fail_closed;
                        }
                    }
                    None => hooks.push((hook.clone(), group.managed)),
                }
            }
        }
        hooks.into_iter().map(|(h, _)| h).collect()
    }

    /// Runs the PreToolUse hooks of a call, one after the other: each sees the
    /// input as rewritten by the one before. Stops at the first deny.
    ///
    /// The returned decision is only the hooks' view; the permission stage
    /// combines it with the rules: a deny rule always wins, then a hook deny
    /// denies, a hook ask asks, a hook allow runs the call without asking.
    pub async fn pre_tool_use(
        &self,
        ctx: &HookContext,
        tool_name: &str,
        tool_use_id: &str,
        input: &Value,
    ) -> PreToolUseOutcome {
        let mut state = PreState {
            tool_name,
            tool_use_id,
            input: input.clone(),
            rewritten: false,
            out: PreToolUseOutcome::default(),
        };
        self.drive(HookEvent::PreToolUse, tool_name, ctx, &mut state)
            .await;
        let mut out = state.out;
        if state.rewritten {
            out.updated_input = Some(state.input);
        }
        out
    }

    /// Runs the PostToolUse hooks of a call that succeeded. `input` is the
    /// input as executed; `response` the tool's result as JSON.
    pub async fn post_tool_use(
        &self,
        ctx: &HookContext,
        tool_name: &str,
        tool_use_id: &str,
        input: &Value,
        response: &Value,
    ) -> PostToolUseOutcome {
        let mut state = PostState {
            tool_name,
            tool_use_id,
            input,
            result: PostResult::Success(response),
            event: HookEvent::PostToolUse,
            out: PostToolUseOutcome::default(),
        };
        self.drive(HookEvent::PostToolUse, tool_name, ctx, &mut state)
            .await;
        state.out
    }

    /// Runs the PostToolUseFailure hooks of a call that failed with `error`
    /// (`is_interrupt`: the user interrupted it).
    pub async fn post_tool_use_failure(
        &self,
        ctx: &HookContext,
        tool_name: &str,
        tool_use_id: &str,
        input: &Value,
        error: &str,
        is_interrupt: bool,
    ) -> PostToolUseOutcome {
        let mut state = PostState {
            tool_name,
            tool_use_id,
            input,
            result: PostResult::Failure {
                error,
                is_interrupt,
            },
            event: HookEvent::PostToolUseFailure,
            out: PostToolUseOutcome::default(),
        };
        self.drive(HookEvent::PostToolUseFailure, tool_name, ctx, &mut state)
            .await;
        state.out
    }

    /// Runs the UserPromptSubmit hooks before `prompt` goes to the model.
    /// Stops at the first block.
    pub async fn user_prompt_submit(
        &self,
        ctx: &HookContext,
        prompt: &str,
    ) -> UserPromptSubmitOutcome {
        let mut state = PromptState {
            prompt,
            out: UserPromptSubmitOutcome::default(),
        };
        self.drive(HookEvent::UserPromptSubmit, "", ctx, &mut state)
            .await;
        state.out
    }

    /// Runs the Stop hooks when the model ends its turn. `stop_hook_active`
    /// is true when the turn is already a continuation forced by a Stop hook
    /// (scripts use it to avoid looping; the caller should also cap how many
    /// times in a row Stop hooks may force a continuation).
    pub async fn stop(&self, ctx: &HookContext, stop_hook_active: bool) -> StopOutcome {
        let mut state = StopState {
            stop_hook_active,
            out: StopOutcome::default(),
        };
        self.drive(HookEvent::Stop, "", ctx, &mut state).await;
        state.out
    }

    /// Runs the SessionStart hooks; `source` is `startup`, `resume`, `clear`
    /// or `compact` (and is what matchers select on).
    pub async fn session_start(&self, ctx: &HookContext, source: &str) -> SessionStartOutcome {
        let mut state = StartState {
            source,
            out: SessionStartOutcome::default(),
        };
        self.drive(HookEvent::SessionStart, source, ctx, &mut state)
            .await;
        state.out
    }

    /// Runs the SessionEnd hooks; `reason` is e.g. `clear`, `logout`,
    /// `prompt_input_exit` or `other` (and is what matchers select on).
    pub async fn session_end(&self, ctx: &HookContext, reason: &str) -> SessionEndOutcome {
        let mut state = EndState {
            reason,
            out: SessionEndOutcome::default(),
        };
        self.drive(HookEvent::SessionEnd, reason, ctx, &mut state)
            .await;
        state.out
    }

    async fn drive<S: EventState>(
        &self,
        event: HookEvent,
        subject: &str,
        ctx: &HookContext,
        state: &mut S,
    ) {
        for hook in self.matching(event, subject) {
            if state.done() {
                break;
            }
            let mut payload = Map::new();
            payload.insert("session_id".into(), ctx.session_id.clone().into());
            payload.insert(
                "transcript_path".into(),
                ctx.transcript_path.to_string_lossy().into_owned().into(),
            );
            payload.insert("cwd".into(), ctx.cwd.to_string_lossy().into_owned().into());
            payload.insert("permission_mode".into(), ctx.permission_mode.clone().into());
            payload.insert("hook_event_name".into(), event.as_str().into());
            state.fields(&mut payload);
            let stdin = serde_json::to_vec(&Value::Object(payload)).unwrap_or_default();
            tracing::debug!(event = %event, command = %hook.hook.command, "running hook");
            let raw = run::run(&hook.hook.command, hook.timeout, &ctx.project_dir, stdin).await;
            let common = state.common();
            common.runs.push(HookRun {
                hook: hook.hook.clone(),
                status: raw.status.clone(),
                duration: raw.duration,
            });
            if raw.truncated {
                common.reports.push(HookReport {
                    kind: ReportKind::Truncated,
                    message: format!(
                        "printed more than {} bytes; the rest was dropped",
                        run::MAX_CAPTURE
                    ),
                    hook: hook.hook.clone(),
                });
            }
            interpret(event, &hook, raw, state);
        }
    }
}

fn interpret<S: EventState>(event: HookEvent, hook: &CommandHook, raw: RawRun, state: &mut S) {
    let r = &hook.hook;
    match raw.status {
        RunStatus::Exited(0) => {
            if raw.stdout.trim_start().starts_with('{') {
                match HookOutput::parse(event, &raw.stdout) {
                    Ok(output) => apply_json(r, &output, &raw.stdout, state),
                    Err(why) => fail(hook, ReportKind::InvalidOutput, why, state),
                }
            } else {
                state.on_plain(r, &raw.stdout);
            }
        }
        RunStatus::Exited(2) => {
            let reason = match raw.stderr.trim() {
                "" => format!(
                    "blocked by {event} hook `{}` (it gave no reason)",
                    r.command
                ),
                text => text.to_owned(),
            };
            state.on_block(r, reason);
        }
        RunStatus::Exited(code) => {
            // `sh -c` reports a command killed by signal N as exit 128+N.
            let (kind, what) = match code - 128 {
                signal @ 1..=64 => (
                    ReportKind::Crashed,
                    format!("was killed by signal {signal} (exit code {code})"),
                ),
                _ => (
                    ReportKind::NonBlockingError,
                    format!("exited with code {code}"),
                ),
            };
            let what = match raw.stderr.trim() {
                "" => what,
                text => format!("{what}: {text}"),
            };
            fail(hook, kind, what, state);
        }
        RunStatus::Signaled(signal) => fail(
            hook,
            ReportKind::Crashed,
            format!("was killed by signal {signal}"),
            state,
        ),
        RunStatus::TimedOut => fail(
            hook,
            ReportKind::Timeout,
            format!("timed out after {} and was killed", seconds(hook.timeout)),
            state,
        ),
        RunStatus::Failed(e) => fail(hook, ReportKind::Crashed, e, state),
    }
}

fn apply_json<S: EventState>(r: &HookRef, output: &HookOutput, stdout: &str, state: &mut S) {
    let common = state.common();
    if let Some(message) = output.system_message.as_deref().filter(|m| !m.is_empty()) {
        common.reports.push(HookReport {
            kind: ReportKind::SystemMessage,
            message: message.to_owned(),
            hook: r.clone(),
        });
    }
    if !output.suppress_output {
        common.reports.push(HookReport {
            kind: ReportKind::Output,
            message: stdout.trim().to_owned(),
            hook: r.clone(),
        });
    }
    if !output.continue_ {
        // `continue: false` takes precedence over any decision.
        if let Some(slot) = common.stop
            && slot.is_none()
        {
            *slot = Some(HookStop {
                reason: output.stop_reason.clone(),
                hook: r.clone(),
            });
        }
        state.on_stop(r, output.stop_reason.as_deref());
        return;
    }
    state.on_json(r, output);
}

fn fail<S: EventState>(hook: &CommandHook, kind: ReportKind, what: String, state: &mut S) {
    let r = &hook.hook;
    let message = if hook.fail_closed {
        format!("{what}; fail-closed: {}", state.fail_closed_effect())
    } else {
        format!("{what}; ignored")
    };
    state.common().reports.push(HookReport {
        kind,
        message,
        hook: r.clone(),
    });
    if hook.fail_closed {
        state.on_fail_closed(
            r,
            format!("hook `{}` is fail-closed and failed: it {what}", r.command),
        );
    }
}

fn seconds(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

/// The `reports`, `stop` and `runs` every outcome has (SessionEnd has no
/// `stop`: it cannot stop anything).
struct Common<'a> {
    reports: &'a mut Vec<HookReport>,
    stop: Option<&'a mut Option<HookStop>>,
    runs: &'a mut Vec<HookRun>,
}

/// What one event does with each kind of hook result.
trait EventState {
    /// Adds the event's own stdin fields after the common ones.
    fn fields(&self, payload: &mut Map<String, Value>);
    fn common(&mut self) -> Common<'_>;
    /// Whether later hooks should not run.
    fn done(&self) -> bool {
        false
    }
    /// Exit 0 with stdout that is not JSON.
    fn on_plain(&mut self, r: &HookRef, stdout: &str) {
        let text = stdout.trim();
        if !text.is_empty() {
            self.common().reports.push(HookReport {
                kind: ReportKind::Output,
                message: text.to_owned(),
                hook: r.clone(),
            });
        }
    }
    /// Exit 0 with valid JSON and `continue` not false.
    fn on_json(&mut self, r: &HookRef, output: &HookOutput);
    /// Exit 2; `reason` is stderr.
    fn on_block(&mut self, r: &HookRef, reason: String);
    /// `continue: false` (already recorded in `stop`).
    fn on_stop(&mut self, _r: &HookRef, _reason: Option<&str>) {}
    /// A fail-closed hook failed.
    fn on_fail_closed(&mut self, r: &HookRef, reason: String);
    /// What a fail-closed failure does, for the report.
    fn fail_closed_effect(&self) -> &'static str;
}

struct PreState<'a> {
    tool_name: &'a str,
    tool_use_id: &'a str,
    input: Value,
    rewritten: bool,
    out: PreToolUseOutcome,
}

impl PreState<'_> {
    fn decide(&mut self, decision: Verdict, reason: Option<String>, r: &HookRef) {
        let stricter = self
            .out
            .decision
            .as_ref()
            .is_none_or(|d| decision > d.decision);
        if stricter {
            let reason = match (decision, reason.filter(|s| !s.trim().is_empty())) {
                (_, Some(reason)) => Some(reason),
                (Verdict::Deny, None) => Some(format!("denied by PreToolUse hook `{}`", r.command)),
                (_, None) => None,
            };
            self.out.decision = Some(HookDecision {
                decision,
                reason,
                hook: r.clone(),
            });
        }
    }
}

impl EventState for PreState<'_> {
    fn fields(&self, payload: &mut Map<String, Value>) {
        payload.insert("tool_name".into(), self.tool_name.into());
        payload.insert("tool_input".into(), self.input.clone());
        payload.insert("tool_use_id".into(), self.tool_use_id.into());
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: Some(&mut self.out.stop),
            runs: &mut self.out.runs,
        }
    }
    fn done(&self) -> bool {
        self.out.denied() || self.out.stop.is_some()
    }
    fn on_json(&mut self, r: &HookRef, output: &HookOutput) {
        let specific = output.specific();
        let decision = match specific.and_then(|s| s.permission_decision) {
            Some(d) => Some((
                d,
                specific.and_then(|s| s.permission_decision_reason.clone()),
            )),
            None => output.decision.map(|d| match d {
                TopDecision::Approve => (Verdict::Allow, output.reason.clone()),
                TopDecision::Block => (Verdict::Deny, output.reason.clone()),
            }),
        };
        let denies = matches!(decision, Some((Verdict::Deny, _)));
        if let Some((decision, reason)) = decision {
            self.decide(decision, reason, r);
        }
        if !denies && let Some(updated) = specific.and_then(|s| s.updated_input.as_ref()) {
            self.input = Value::Object(updated.clone());
            self.rewritten = true;
            self.out.rewritten_by.push(r.clone());
        }
        if let Some(context) = output.additional_context() {
            self.out.additional_context.push(HookNote {
                text: context.to_owned(),
                hook: r.clone(),
            });
        }
    }
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.decide(Verdict::Deny, Some(reason), r);
    }
    fn on_stop(&mut self, r: &HookRef, reason: Option<&str>) {
        let reason = match reason {
            Some(reason) if !reason.trim().is_empty() => format!("the agent was stopped: {reason}"),
            _ => format!("the agent was stopped by PreToolUse hook `{}`", r.command),
        };
        self.decide(Verdict::Deny, Some(reason), r);
    }
    fn on_fail_closed(&mut self, r: &HookRef, reason: String) {
        self.decide(Verdict::Deny, Some(reason), r);
    }
    fn fail_closed_effect(&self) -> &'static str {
        "the call is denied"
    }
}

enum PostResult<'a> {
    Success(&'a Value),
    Failure { error: &'a str, is_interrupt: bool },
}

struct PostState<'a> {
    tool_name: &'a str,
    tool_use_id: &'a str,
    input: &'a Value,
    result: PostResult<'a>,
    event: HookEvent,
    out: PostToolUseOutcome,
}

impl EventState for PostState<'_> {
    fn fields(&self, payload: &mut Map<String, Value>) {
        payload.insert("tool_name".into(), self.tool_name.into());
        payload.insert("tool_input".into(), self.input.clone());
        match self.result {
            PostResult::Success(response) => {
                payload.insert("tool_response".into(), response.clone());
                payload.insert("tool_use_id".into(), self.tool_use_id.into());
            }
            PostResult::Failure {
                error,
                is_interrupt,
            } => {
                payload.insert("tool_use_id".into(), self.tool_use_id.into());
                payload.insert("error".into(), error.into());
                payload.insert("is_interrupt".into(), is_interrupt.into());
            }
        }
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: Some(&mut self.out.stop),
            runs: &mut self.out.runs,
        }
    }
    fn on_json(&mut self, r: &HookRef, output: &HookOutput) {
        if output.blocks() {
            let text = match output.reason.as_deref().map(str::trim) {
                Some(reason) if !reason.is_empty() => reason.to_owned(),
                _ => format!(
                    "blocked by {} hook `{}` (it gave no reason)",
                    self.event, r.command
                ),
            };
            self.out.blocks.push(HookNote {
                text,
                hook: r.clone(),
            });
        }
        if let Some(context) = output.additional_context() {
            self.out.additional_context.push(HookNote {
                text: context.to_owned(),
                hook: r.clone(),
            });
        }
    }
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.out.blocks.push(HookNote {
            text: reason,
            hook: r.clone(),
        });
    }
    fn on_fail_closed(&mut self, r: &HookRef, reason: String) {
        self.on_block(r, reason);
    }
    fn fail_closed_effect(&self) -> &'static str {
        "the model is told the check failed"
    }
}

struct PromptState<'a> {
    prompt: &'a str,
    out: UserPromptSubmitOutcome,
}

impl PromptState<'_> {
    fn block(&mut self, r: &HookRef, text: String) {
        if self.out.block.is_none() {
            self.out.block = Some(HookNote {
                text,
                hook: r.clone(),
            });
        }
    }
}

impl EventState for PromptState<'_> {
    fn fields(&self, payload: &mut Map<String, Value>) {
        payload.insert("prompt".into(), self.prompt.into());
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: Some(&mut self.out.stop),
            runs: &mut self.out.runs,
        }
    }
    fn done(&self) -> bool {
        self.out.block.is_some() || self.out.stop.is_some()
    }
    fn on_plain(&mut self, r: &HookRef, stdout: &str) {
        let text = stdout.trim();
        if !text.is_empty() {
            self.out.additional_context.push(HookNote {
                text: text.to_owned(),
                hook: r.clone(),
            });
        }
    }
    fn on_json(&mut self, r: &HookRef, output: &HookOutput) {
        if output.blocks() {
            let text = match output.reason.as_deref().map(str::trim) {
                Some(reason) if !reason.is_empty() => reason.to_owned(),
                _ => format!("prompt blocked by UserPromptSubmit hook `{}`", r.command),
            };
            self.block(r, text);
            return;
        }
        if let Some(context) = output.additional_context() {
            self.out.additional_context.push(HookNote {
                text: context.to_owned(),
                hook: r.clone(),
            });
        }
    }
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.block(r, reason);
    }
    fn on_stop(&mut self, r: &HookRef, reason: Option<&str>) {
        let text = match reason {
            Some(reason) if !reason.trim().is_empty() => reason.to_owned(),
            _ => format!("stopped by UserPromptSubmit hook `{}`", r.command),
        };
        self.block(r, text);
    }
    fn on_fail_closed(&mut self, r: &HookRef, reason: String) {
        self.block(r, reason);
    }
    fn fail_closed_effect(&self) -> &'static str {
        "the prompt is blocked"
    }
}

struct StopState {
    stop_hook_active: bool,
    out: StopOutcome,
}

impl EventState for StopState {
    fn fields(&self, payload: &mut Map<String, Value>) {
        payload.insert("stop_hook_active".into(), self.stop_hook_active.into());
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: Some(&mut self.out.stop),
            runs: &mut self.out.runs,
        }
    }
    fn on_json(&mut self, r: &HookRef, output: &HookOutput) {
        if output.blocks() {
            let text = match output.reason.as_deref().map(str::trim) {
                Some(reason) if !reason.is_empty() => reason.to_owned(),
                _ => format!(
                    "Stop hook `{}` asked you to continue (it gave no reason)",
                    r.command
                ),
            };
            self.on_block(r, text);
        }
    }
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.out.blocks.push(HookNote {
            text: reason,
            hook: r.clone(),
        });
    }
    fn on_fail_closed(&mut self, r: &HookRef, reason: String) {
        self.on_block(r, reason);
    }
    fn fail_closed_effect(&self) -> &'static str {
        "the agent continues"
    }
}

struct StartState<'a> {
    source: &'a str,
    out: SessionStartOutcome,
}

impl EventState for StartState<'_> {
    fn fields(&self, payload: &mut Map<String, Value>) {
        payload.insert("source".into(), self.source.into());
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: Some(&mut self.out.stop),
            runs: &mut self.out.runs,
        }
    }
    fn on_plain(&mut self, r: &HookRef, stdout: &str) {
        let text = stdout.trim();
        if !text.is_empty() {
            self.out.additional_context.push(HookNote {
                text: text.to_owned(),
                hook: r.clone(),
            });
        }
    }
    fn on_json(&mut self, r: &HookRef, output: &HookOutput) {
        if let Some(context) = output.additional_context() {
            self.out.additional_context.push(HookNote {
                text: context.to_owned(),
                hook: r.clone(),
            });
        }
    }
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.out.reports.push(HookReport {
            kind: ReportKind::Blocked,
            message: reason,
            hook: r.clone(),
        });
    }
    fn on_fail_closed(&mut self, _r: &HookRef, _reason: String) {}
    fn fail_closed_effect(&self) -> &'static str {
        "reported only (SessionStart cannot be blocked)"
    }
}

struct EndState<'a> {
    reason: &'a str,
    out: SessionEndOutcome,
}

impl EventState for EndState<'_> {
    fn fields(&self, payload: &mut Map<String, Value>) {
        payload.insert("reason".into(), self.reason.into());
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: None,
            runs: &mut self.out.runs,
        }
    }
    fn on_json(&mut self, _r: &HookRef, _output: &HookOutput) {}
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.out.reports.push(HookReport {
            kind: ReportKind::Blocked,
            message: reason,
            hook: r.clone(),
        });
    }
    fn on_fail_closed(&mut self, _r: &HookRef, _reason: String) {}
    fn fail_closed_effect(&self) -> &'static str {
        "reported only (SessionEnd cannot be blocked)"
    }
}
