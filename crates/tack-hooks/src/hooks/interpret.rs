//! What a hook's exit code and output mean, whatever the event: the one
//! place that turns a [`RawRun`] into calls on the event's [`EventState`].

use std::time::Duration;

use serde_json::{Map, Value};

use crate::config::{CommandHook, HookEvent, HookRef};
use crate::outcome::{HookReport, HookRun, HookStop, ReportKind};
use crate::output::HookOutput;
use crate::run::{RawRun, RunStatus};

pub(super) fn interpret<S: EventState>(
    event: HookEvent,
    hook: &CommandHook,
    raw: RawRun,
    state: &mut S,
) {
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
pub(super) struct Common<'a> {
    pub(super) reports: &'a mut Vec<HookReport>,
    pub(super) stop: Option<&'a mut Option<HookStop>>,
    pub(super) runs: &'a mut Vec<HookRun>,
}

/// What one event does with each kind of hook result.
pub(super) trait EventState {
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
