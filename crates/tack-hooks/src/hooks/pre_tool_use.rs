//! PreToolUse: hooks judge (and may rewrite) a tool call before it runs;
//! the strictest decision wins and the first deny ends the loop.

use serde_json::{Map, Value};
use tack_protocol::Verdict;

use crate::config::{HookEvent, HookRef};
use crate::outcome::{HookDecision, HookNote, PreToolUseOutcome};
use crate::output::{HookOutput, TopDecision};

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
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
        super::insert_tool_name(payload, self.tool_name);
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
