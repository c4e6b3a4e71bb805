//! UserPromptSubmit: hooks may add context to a prompt or block it; the
//! first block ends the loop.

use serde_json::{Map, Value};

use crate::config::{HookEvent, HookRef};
use crate::outcome::{HookNote, UserPromptSubmitOutcome};
use crate::output::HookOutput;

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
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
