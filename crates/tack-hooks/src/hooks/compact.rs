//! PreCompact and PostCompact: around a compaction of the conversation.
//!
//! PreCompact gets Claude Code's `trigger` (`manual` | `auto`) and
//! `custom_instructions`; what it prints (plain stdout of exit 0, or
//! `additionalContext`) is added to the summary instructions, and a block
//! (exit 2, `decision: "block"`, `continue: false`, a fail-closed failure)
//! skips the compaction. PostCompact gets `trigger` and `compact_summary`
//! (the summary, or null when only old tool results were cleared); it cannot
//! change anything.

use serde_json::{Map, Value};

use crate::config::{HookEvent, HookRef};
use crate::outcome::{CompactOutcome, HookNote};
use crate::output::HookOutput;

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
    /// Runs the PreCompact hooks (`trigger` is what matchers select on).
    pub async fn pre_compact(
        &self,
        ctx: &HookContext,
        trigger: &str,
        custom_instructions: Option<&str>,
    ) -> CompactOutcome {
        let mut state = CompactState {
            fields: vec![
                ("trigger", trigger.into()),
                (
                    "custom_instructions",
                    custom_instructions.map_or(Value::Null, Value::from),
                ),
            ],
            pre: true,
            out: CompactOutcome::default(),
        };
        self.drive(HookEvent::PreCompact, trigger, ctx, &mut state)
            .await;
        state.out
    }

    /// Runs the PostCompact hooks.
    pub async fn post_compact(
        &self,
        ctx: &HookContext,
        trigger: &str,
        compact_summary: Option<&str>,
    ) -> CompactOutcome {
        let mut state = CompactState {
            fields: vec![
                ("trigger", trigger.into()),
                (
                    "compact_summary",
                    compact_summary.map_or(Value::Null, Value::from),
                ),
            ],
            pre: false,
            out: CompactOutcome::default(),
        };
        self.drive(HookEvent::PostCompact, trigger, ctx, &mut state)
            .await;
        state.out
    }
}

struct CompactState {
    fields: Vec<(&'static str, Value)>,
    /// PreCompact (may add instructions and block) or PostCompact (observes).
    pre: bool,
    out: CompactOutcome,
}

impl CompactState {
    fn block(&mut self, r: &HookRef, text: String) {
        if !self.pre {
            self.out.reports.push(crate::outcome::HookReport {
                kind: crate::outcome::ReportKind::Blocked,
                message: text,
                hook: r.clone(),
            });
            return;
        }
        if self.out.block.is_none() {
            self.out.block = Some(HookNote {
                text,
                hook: r.clone(),
            });
        }
    }

    fn add(&mut self, r: &HookRef, text: &str) {
        let text = text.trim();
        if self.pre && !text.is_empty() {
            self.out.instructions.push(HookNote {
                text: text.to_owned(),
                hook: r.clone(),
            });
        }
    }
}

impl EventState for CompactState {
    fn fields(&self, payload: &mut Map<String, Value>) {
        for (key, value) in &self.fields {
            payload.insert((*key).into(), value.clone());
        }
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: None,
            runs: &mut self.out.runs,
        }
    }
    fn done(&self) -> bool {
        self.out.block.is_some()
    }
    fn on_plain(&mut self, r: &HookRef, stdout: &str) {
        self.add(r, stdout);
    }
    fn on_json(&mut self, r: &HookRef, output: &HookOutput) {
        if output.blocks() {
            let text = match output.reason.as_deref().map(str::trim) {
                Some(reason) if !reason.is_empty() => reason.to_owned(),
                _ => format!("compaction blocked by PreCompact hook `{}`", r.command),
            };
            self.block(r, text);
            return;
        }
        if let Some(context) = output.additional_context() {
            self.add(r, context);
        }
    }
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.block(r, reason);
    }
    fn on_stop(&mut self, r: &HookRef, reason: Option<&str>) {
        let text = match reason {
            Some(reason) if !reason.trim().is_empty() => reason.to_owned(),
            _ => format!("compaction stopped by hook `{}`", r.command),
        };
        self.block(r, text);
    }
    fn on_fail_closed(&mut self, r: &HookRef, reason: String) {
        self.block(r, reason);
    }
    fn fail_closed_effect(&self) -> &'static str {
        if self.pre {
            "the compaction is skipped"
        } else {
            "reported only (PostCompact cannot change anything)"
        }
    }
}
