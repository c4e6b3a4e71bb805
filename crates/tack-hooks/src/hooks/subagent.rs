//! SubagentStart and SubagentStop: a sub-agent (the Agent tool) starts and
//! ends. tack only reports what these hooks print: a block does not make the
//! sub-agent go on (Claude Code's SubagentStop may), it is reported.

use std::path::Path;

use serde_json::{Map, Value};

use crate::config::{HookEvent, HookRef};
use crate::outcome::{HookReport, ReportKind, SessionEndOutcome};
use crate::output::HookOutput;

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
    /// Runs the SubagentStart hooks (`agent_id`, `agent_type` on stdin).
    pub async fn subagent_start(
        &self,
        ctx: &HookContext,
        agent_id: &str,
        agent_type: &str,
    ) -> SessionEndOutcome {
        let mut state = SubagentState {
            fields: vec![
                ("agent_id", agent_id.into()),
                ("agent_type", agent_type.into()),
            ],
            event: "SubagentStart",
            out: SessionEndOutcome::default(),
        };
        self.drive(HookEvent::SubagentStart, agent_type, ctx, &mut state)
            .await;
        state.out
    }

    /// Runs the SubagentStop hooks (`stop_hook_active`, `agent_id`,
    /// `agent_type`, `agent_transcript_path` on stdin).
    pub async fn subagent_stop(
        &self,
        ctx: &HookContext,
        agent_id: &str,
        agent_type: &str,
        agent_transcript_path: &Path,
    ) -> SessionEndOutcome {
        let mut state = SubagentState {
            fields: vec![
                ("stop_hook_active", false.into()),
                ("agent_id", agent_id.into()),
                ("agent_type", agent_type.into()),
                (
                    "agent_transcript_path",
                    agent_transcript_path.to_string_lossy().into_owned().into(),
                ),
            ],
            event: "SubagentStop",
            out: SessionEndOutcome::default(),
        };
        self.drive(HookEvent::SubagentStop, agent_type, ctx, &mut state)
            .await;
        state.out
    }
}

struct SubagentState {
    fields: Vec<(&'static str, Value)>,
    event: &'static str,
    out: SessionEndOutcome,
}

impl EventState for SubagentState {
    fn fields(&self, payload: &mut Map<String, Value>) {
        for (k, v) in &self.fields {
            payload.insert((*k).into(), v.clone());
        }
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
            message: format!("{reason} (a {} hook cannot block in tack)", self.event),
            hook: r.clone(),
        });
    }
    fn on_fail_closed(&mut self, _r: &HookRef, _reason: String) {}
    fn fail_closed_effect(&self) -> &'static str {
        "reported only (a sub-agent's start and stop cannot be blocked)"
    }
}
