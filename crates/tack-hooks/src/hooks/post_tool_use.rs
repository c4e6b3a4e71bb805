//! PostToolUse and PostToolUseFailure: hooks see a call's result (or its
//! error) and may block it with a note for the model; every hook runs.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::config::{HookEvent, HookRef};
use crate::outcome::{HookNote, PostToolUseOutcome};
use crate::output::HookOutput;

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
    /// Runs the PostToolUse hooks of a call that succeeded. `input` is the
    /// input as executed; `response` the tool's result as JSON (Claude
    /// Code's `tool_response`); `duration` how long the tool ran
    /// (`duration_ms`, left out when unknown).
    pub async fn post_tool_use(
        &self,
        ctx: &HookContext,
        tool_name: &str,
        tool_use_id: &str,
        input: &Value,
        response: &Value,
        duration: Option<Duration>,
    ) -> PostToolUseOutcome {
        let mut state = PostState {
            tool_name,
            tool_use_id,
            input,
            duration,
            result: PostResult::Success(response),
            event: HookEvent::PostToolUse,
            out: PostToolUseOutcome::default(),
        };
        self.drive(HookEvent::PostToolUse, tool_name, ctx, &mut state)
            .await;
        state.out
    }

    /// Runs the PostToolUseFailure hooks of a call that failed with `error`
    /// (`is_interrupt`: the user interrupted it) after running for `duration`.
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per field of Claude Code's PostToolUseFailure payload"
    )]
    pub async fn post_tool_use_failure(
        &self,
        ctx: &HookContext,
        tool_name: &str,
        tool_use_id: &str,
        input: &Value,
        error: &str,
        is_interrupt: bool,
        duration: Option<Duration>,
    ) -> PostToolUseOutcome {
        let mut state = PostState {
            tool_name,
            tool_use_id,
            input,
            duration,
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
}

enum PostResult<'a> {
    Success(&'a Value),
    Failure { error: &'a str, is_interrupt: bool },
}

struct PostState<'a> {
    tool_name: &'a str,
    tool_use_id: &'a str,
    input: &'a Value,
    duration: Option<Duration>,
    result: PostResult<'a>,
    event: HookEvent,
    out: PostToolUseOutcome,
}

impl EventState for PostState<'_> {
    fn fields(&self, payload: &mut Map<String, Value>) {
        super::insert_tool_name(payload, self.tool_name);
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
        if let Some(duration) = self.duration {
            let ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
            payload.insert("duration_ms".into(), ms.into());
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
