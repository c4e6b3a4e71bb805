//! The hook stage: Claude Code compatible command hooks (tack-hooks) plugged
//! into the dispatch pipeline (PreToolUse, PostToolUse, PostToolUseFailure)
//! and into the loop (UserPromptSubmit, Stop, PreCompact, PostCompact).
//!
//! Contract with the permission stage: a hook's deny ends the call here; a
//! hook's ask or allow is handed to the permission stage, where an allow may
//! skip a prompt but never overrides a deny rule. A hook that prints
//! `continue: false` stops the session after the current batch of calls.

use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use tack_hooks::{HookContext, HookDecision, HookRef, HookReport, Hooks, Verdict};
use tack_protocol::ContentBlock;
use tack_tool::{ToolCall, ToolError, ToolOutput};

use crate::pipeline::{HookRuling, HookStage, PreHookOutcome};

/// Command hooks of a session.
pub struct HookRunner {
    hooks: Hooks,
    ctx: HookContext,
    stop: Mutex<Option<String>>,
    /// The permission mode in force now, when it can change during the
    /// session (Shift-Tab): each payload's `permission_mode` is read from it.
    mode: Option<ModeSource>,
}

/// Says the permission mode in force (`default`, `acceptEdits`, …).
pub type ModeSource = std::sync::Arc<dyn Fn() -> String + Send + Sync>;

impl std::fmt::Debug for HookRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookRunner").finish_non_exhaustive()
    }
}

/// How a hook is named in decisions and the audit trail.
fn by(hook: &HookRef) -> String {
    format!(
        "hook `{}` ({} {})",
        hook.command, hook.source, hook.location
    )
}

fn report_all(reports: &[HookReport]) {
    for report in reports {
        if report.kind.is_failure() {
            tracing::warn!("{report}");
        } else if matches!(report.kind, tack_hooks::ReportKind::Output) {
            tracing::debug!("{report}");
        } else {
            tracing::warn!("{report}");
        }
    }
}

impl HookRunner {
    pub fn new(hooks: Hooks, ctx: HookContext) -> Self {
        // A runner with nothing to run (kept for hooks added later, a
        // sub-agent's own) says nothing.
        if !hooks.is_empty() {
            for warning in hooks.warnings() {
                tracing::warn!("hooks: {warning}");
            }
        }
        Self {
            hooks,
            ctx,
            stop: Mutex::new(None),
            mode: None,
        }
    }

    /// Hooks get the mode in force when they run, not the one the session
    /// started in.
    pub fn with_mode(mut self, mode: ModeSource) -> Self {
        self.mode = Some(mode);
        self
    }

    /// The session facts for a hook run now.
    fn ctx(&self) -> std::borrow::Cow<'_, HookContext> {
        match &self.mode {
            Some(mode) => {
                let mut ctx = self.ctx.clone();
                ctx.permission_mode = mode();
                std::borrow::Cow::Owned(ctx)
            }
            None => std::borrow::Cow::Borrowed(&self.ctx),
        }
    }

    /// A hook asked to stop the session (`continue: false`); taken once.
    pub fn take_stop(&self) -> Option<String> {
        self.stop.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn request_stop(&self, reason: Option<String>, hook: &HookRef) {
        let text = reason.unwrap_or_else(|| format!("stopped by {}", by(hook)));
        *self.stop.lock().unwrap_or_else(|p| p.into_inner()) = Some(text);
    }

    /// UserPromptSubmit: `Err(reason)` when a hook blocks the prompt, else the
    /// context the hooks add to it.
    pub async fn user_prompt_submit(&self, prompt: &str) -> Result<Vec<String>, String> {
        let out = self.hooks.user_prompt_submit(&self.ctx(), prompt).await;
        report_all(&out.reports);
        if let Some(stop) = &out.stop {
            self.request_stop(stop.reason.clone(), &stop.hook);
        }
        if let Some(block) = out.block {
            return Err(format!(
                "the prompt was blocked by {}: {}",
                by(&block.hook),
                block.text
            ));
        }
        Ok(out.additional_context.into_iter().map(|n| n.text).collect())
    }

    /// Stop: `Some(reason)` when a hook wants the model to continue.
    pub async fn stop_hooks(&self, stop_hook_active: bool) -> Option<String> {
        let out = self.hooks.stop(&self.ctx(), stop_hook_active).await;
        report_all(&out.reports);
        if let Some(stop) = &out.stop {
            self.request_stop(stop.reason.clone(), &stop.hook);
            return None;
        }
        out.continue_with()
    }

    /// SessionStart: the context hooks add to the session.
    pub async fn session_start(&self, source: &str) -> Vec<String> {
        let out = self.hooks.session_start(&self.ctx(), source).await;
        report_all(&out.reports);
        out.additional_context.into_iter().map(|n| n.text).collect()
    }

    /// PreCompact: `Err(reason)` when a hook blocks the compaction, else the
    /// instructions the hooks add to the summary request.
    pub async fn pre_compact(
        &self,
        trigger: &str,
        custom_instructions: Option<&str>,
    ) -> Result<Vec<String>, String> {
        let out = self
            .hooks
            .pre_compact(&self.ctx(), trigger, custom_instructions)
            .await;
        report_all(&out.reports);
        if let Some(block) = out.block {
            return Err(format!(
                "the compaction was blocked by {}: {}",
                by(&block.hook),
                block.text
            ));
        }
        Ok(out.instructions.into_iter().map(|n| n.text).collect())
    }

    /// PostCompact, with the summary (None when no summary was made).
    pub async fn post_compact(&self, trigger: &str, summary: Option<&str>) {
        let out = self.hooks.post_compact(&self.ctx(), trigger, summary).await;
        report_all(&out.reports);
    }

    /// SessionEnd.
    pub async fn session_end(&self, reason: &str) {
        let out = self.hooks.session_end(&self.ctx(), reason).await;
        report_all(&out.reports);
    }

    /// The same hooks for a sub-agent: every payload also carries its
    /// `agent_id` and `agent_type`, and `transcript_path` stays the parent's
    /// (as in Claude Code). Its own stop requests are its own.
    pub fn for_subagent(&self, agent_id: &str, agent_type: &str) -> HookRunner {
        let mut ctx = self.ctx.clone();
        ctx.agent = Some(tack_hooks::SubagentIdentity {
            agent_id: agent_id.to_owned(),
            agent_type: agent_type.to_owned(),
        });
        HookRunner {
            hooks: self.hooks.clone(),
            ctx,
            stop: Mutex::new(None),
            mode: self.mode.clone(),
        }
    }

    /// [`HookRunner::for_subagent`] with the sub-agent's own hooks added
    /// (its definition's `hooks`, from `file`): they run after the
    /// session's and before the administrator's. `Err` when they cannot
    /// run here ([`Hooks::with_added`]).
    pub fn for_subagent_adding(
        &self,
        agent_id: &str,
        agent_type: &str,
        file: &str,
        hooks: &serde_json::Value,
    ) -> Result<HookRunner, String> {
        let added = self.hooks.with_added(file, hooks)?;
        for warning in added.warnings().iter().skip(self.hooks.warnings().len()) {
            tracing::warn!("hooks: {warning}");
        }
        let mut runner = self.for_subagent(agent_id, agent_type);
        runner.hooks = added;
        Ok(runner)
    }

    /// SubagentStart (observed only).
    pub async fn subagent_start(&self, agent_id: &str, agent_type: &str) {
        let out = self
            .hooks
            .subagent_start(&self.ctx(), agent_id, agent_type)
            .await;
        report_all(&out.reports);
    }

    /// SubagentStop (observed only), with the sub-agent's transcript.
    pub async fn subagent_stop(
        &self,
        agent_id: &str,
        agent_type: &str,
        transcript: &std::path::Path,
    ) {
        let out = self
            .hooks
            .subagent_stop(&self.ctx(), agent_id, agent_type, transcript)
            .await;
        report_all(&out.reports);
    }
}

/// What the PermissionRequest hooks answered for a call the rules would
/// ask about (see [`HookRunner::permission_request`]).
#[derive(Debug, Clone, PartialEq)]
pub enum HookAnswer {
    /// Allowed, with the input to run (None: as it is).
    Allow {
        input: Option<serde_json::Value>,
        by: String,
    },
    Deny {
        reason: String,
        by: String,
    },
}

impl HookRunner {
    /// PermissionRequest: what the hooks answer in the person's place for
    /// `call` (None: no hook decided; ask the person). `suggestions`: the
    /// rules that would allow it always.
    pub async fn permission_request(
        &self,
        call: &ToolCall,
        suggestions: &[String],
    ) -> Option<HookAnswer> {
        let out = self
            .hooks
            .permission_request(&self.ctx(), &call.name, &call.input, suggestions)
            .await;
        report_all(&out.reports);
        if let Some(stop) = &out.stop {
            self.request_stop(stop.reason.clone(), &stop.hook);
        }
        let answer = out.decision?;
        let who = by(&answer.hook);
        if answer.interrupt {
            self.request_stop(answer.message.clone(), &answer.hook);
        }
        Some(if answer.allow {
            HookAnswer::Allow {
                input: answer.updated_input,
                by: format!("{who} (PermissionRequest)"),
            }
        } else {
            HookAnswer::Deny {
                reason: answer
                    .message
                    .unwrap_or_else(|| format!("denied by PermissionRequest {who}")),
                by: format!("{who} (PermissionRequest)"),
            }
        })
    }
}

fn ruling(decision: HookDecision) -> HookRuling {
    let by = by(&decision.hook);
    let reason = decision
        .reason
        .unwrap_or_else(|| format!("{} by {by}", decision.decision.as_str()));
    HookRuling {
        verdict: decision.decision,
        reason,
        by,
    }
}

/// Adds hook feedback to an error's text, keeping its kind.
fn with_feedback(error: ToolError, feedback: &str) -> ToolError {
    let add = |m: String| format!("{m}\n{feedback}");
    match error {
        ToolError::InvalidInput(m) => ToolError::InvalidInput(add(m)),
        ToolError::Denied(m) => ToolError::Denied(add(m)),
        ToolError::Transient(m) => ToolError::Transient(add(m)),
        ToolError::Unavailable(m) => ToolError::Unavailable(add(m)),
        ToolError::Interrupted(m) => ToolError::Interrupted(add(m)),
        ToolError::Internal(m) => ToolError::Internal(add(m)),
        // Timeout carries no text; the feedback is dropped rather than the kind changed.
        other => other,
    }
}

#[async_trait]
impl HookStage for HookRunner {
    async fn pre_tool_use(&self, call: &mut ToolCall) -> PreHookOutcome {
        let out = self
            .hooks
            .pre_tool_use(&self.ctx(), &call.name, &call.id, &call.input)
            .await;
        report_all(&out.reports);
        if let Some(input) = out.updated_input {
            call.input = input;
        }
        let mut decision = out.decision.map(ruling);
        if let Some(stop) = &out.stop {
            self.request_stop(stop.reason.clone(), &stop.hook);
            decision = Some(HookRuling {
                verdict: Verdict::Deny,
                reason: "a hook stopped the session".into(),
                by: by(&stop.hook),
            });
        }
        PreHookOutcome {
            decision,
            rewritten_by: out.rewritten_by.iter().map(by).collect(),
            context: out.additional_context.into_iter().map(|n| n.text).collect(),
        }
    }

    async fn post_tool_use(
        &self,
        call: &ToolCall,
        result: &mut Result<ToolOutput, ToolError>,
        ran: Duration,
    ) {
        let out = match result {
            Ok(output) => {
                self.hooks
                    .post_tool_use(
                        &self.ctx(),
                        &call.name,
                        &call.id,
                        &call.input,
                        &output.hook_response(),
                        Some(ran),
                    )
                    .await
            }
            Err(error) => {
                let interrupted = matches!(error, ToolError::Interrupted(_));
                self.hooks
                    .post_tool_use_failure(
                        &self.ctx(),
                        &call.name,
                        &call.id,
                        &call.input,
                        &error.to_string(),
                        interrupted,
                        Some(ran),
                    )
                    .await
            }
        };
        report_all(&out.reports);
        if let Some(stop) = &out.stop {
            self.request_stop(stop.reason.clone(), &stop.hook);
        }
        let feedback: Vec<String> = out
            .feedback_for_model()
            .into_iter()
            .map(|n| format!("[{}] {}", by(&n.hook), n.text))
            .collect();
        if feedback.is_empty() {
            return;
        }
        let feedback = feedback.join("\n");
        match result {
            Ok(output) => output.content.push(ContentBlock::text(feedback)),
            Err(error) => *error = with_feedback(error.clone(), &feedback),
        }
    }
}
