//! SessionStart and SessionEnd: hooks may add context at the start; neither
//! event can be blocked, so a block or a fail-closed failure is only reported.

use serde_json::{Map, Value};

use crate::config::{HookEvent, HookRef};
use crate::outcome::{HookNote, HookReport, ReportKind, SessionEndOutcome, SessionStartOutcome};
use crate::output::HookOutput;

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
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
