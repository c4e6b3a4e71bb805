//! Stop: when the model ends its turn, hooks may ask it to continue.

use serde_json::{Map, Value};

use crate::config::{HookEvent, HookRef};
use crate::outcome::{HookNote, StopOutcome};
use crate::output::HookOutput;

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
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
