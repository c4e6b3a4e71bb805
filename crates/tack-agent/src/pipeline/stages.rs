//! The stages of one call, in order; `run_stages` is the orchestrator and
//! each stage is a small function that returns a value or a [`Stop`].

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tack_protocol::{
    AuditDecision, AuditRecord, Caller, ContentBlock, Interruption, SessionEvent, ToolOutcome,
    ToolResultBlock, Verdict,
};
use tack_tool::{
    CallOptions, Exposure, HostHandle, OutputBehaviour, Progress, ProgressSink, RegisteredTool,
    ToolCall, ToolCallResult, ToolContext, ToolError, ToolOutput, ToolRegistry,
};

use super::execute::execute;
use super::{Dispatch, HookRuling, Permission, Pipeline, PreHookOutcome};

/// Where a call ended before or after running.
pub(super) enum Stop {
    Answer(Result<ToolOutput, ToolError>),
    UnknownTool(String),
}

impl Pipeline {
    /// Runs one call through every stage. Never fails: errors are results.
    /// The tool's progress reports become `tool_progress` events and also go
    /// to `options.progress`.
    pub async fn dispatch(&self, dispatch: Dispatch, options: CallOptions) -> ToolCallResult {
        let started = Instant::now();
        let Dispatch {
            mut call,
            input_error,
        } = dispatch;
        self.shared.events.emit(&SessionEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone(),
        });
        let mut audit = AuditRecord {
            decision: AuditDecision::NotReached,
            started_ms: crate::transcript::now_ms(),
            caller: options.caller.clone(),
            ..AuditRecord::default()
        };
        let options_full_output = options.full_output;
        let registry = self.registry();
        let (stop, output) = match find(&registry, &call, &options) {
            Some(tool) => {
                // A deferred tool the model called without a search (it
                // saw the name in ToolSearch's list): its definition joins
                // the request from now on, so the next call has it.
                if tool.exposure == Exposure::Deferred
                    && options.caller.is_none()
                    && !registry.is_sent(&call.name)
                {
                    self.reveal(&[call.name.as_str()]);
                }
                let output = tool.tool.output();
                let stop = self
                    .run_stages(tool, &mut call, input_error, options, &mut audit)
                    .await;
                (stop, output)
            }
            None => (
                Stop::UnknownTool(unknown_tool_text(&registry, &call.name)),
                OutputBehaviour::default(),
            ),
        };
        audit.input = call.input.clone();
        self.record(&call, stop, &output, started, audit, options_full_output)
    }

    async fn run_stages(
        &self,
        tool: &RegisteredTool,
        call: &mut ToolCall,
        input_error: Option<String>,
        options: CallOptions,
        audit: &mut AuditRecord,
    ) -> Stop {
        tool.definition_hash()
            .clone_into(&mut audit.definition_hash);
        if options.cancel.is_cancelled() {
            return Stop::Answer(Err(ToolError::Interrupted(
                "the user interrupted the session before this call started; it did not run".into(),
            )));
        }
        let asker = options.asker.clone();
        let mut ctx = self.context(call, options);
        if let Err(e) = validate(tool, call, input_error, &ctx) {
            return Stop::Answer(Err(e));
        }
        let hooks = match self.pre_hooks(tool, call, &ctx, audit).await {
            Ok(hooks) => hooks,
            Err(stop) => return stop,
        };
        // Judged where it will run, and run only there (see
        // `ToolContext::checked_dir`).
        ctx.checked_dir = tool.tool.working_dir();
        let asked = Instant::now();
        let permission = crate::permission::with_call_asker(
            asker,
            self.permission(
                tool,
                call,
                hooks.decision.as_ref(),
                ctx.checked_dir.as_deref(),
                audit,
            ),
        )
        .await;
        ctx.checked_files = self.shared.permission.take_checked_files(&call.id);
        // A prompt's wait is the person's time, not the tool's.
        let waited = asked.elapsed().as_millis() as u64;
        audit.permission_wait_ms = (waited > 0).then_some(waited);
        match permission {
            Err(stop) => return stop,
            Ok(None) => {}
            Ok(Some(input)) => {
                call.input = input;
                if let Err(e) = validate(tool, call, None, &ctx) {
                    audit.decision = AuditDecision::Deny;
                    return Stop::Answer(Err(ToolError::InvalidInput(format!(
                        "the permission answer ({}) changed the input into one that is not valid: {e}",
                        audit.decided_by
                    ))));
                }
            }
        }
        let timeout = tool.tool.timeout().unwrap_or(self.shared.default_timeout);
        let ran = Instant::now();
        let mut result = execute(tool, call.input.clone(), ctx, timeout).await;
        let ran = ran.elapsed();
        audit.sandbox = tool.tool.sandbox_profile(&call.input);
        audit.argv = tool.tool.command_line(&call.input);
        audit.skill = tool.tool.skill_load(&call.id);
        audit.discovery = tool.tool.discovery(&call.id);
        if let Ok(out) = &mut result {
            out.content
                .extend(hooks.context.iter().map(|c| ContentBlock::text(c.clone())));
        }
        self.shared
            .hooks
            .post_tool_use(call, &mut result, ran)
            .await;
        // (the output budget is applied in `record`, to errors as well)
        Stop::Answer(result)
    }

    /// Pre-hooks: they may rewrite the input (validated again) or decide; a
    /// hook's deny is final (the strictest decision wins).
    async fn pre_hooks(
        &self,
        tool: &RegisteredTool,
        call: &mut ToolCall,
        ctx: &ToolContext,
        audit: &mut AuditRecord,
    ) -> Result<PreHookOutcome, Stop> {
        let original = call.input.clone();
        let hooks = self.shared.hooks.pre_tool_use(call).await;
        audit.rewritten_by.clone_from(&hooks.rewritten_by);
        if call.input != original
            && let Err(e) = validate(tool, call, None, ctx)
        {
            return Err(Stop::Answer(Err(ToolError::InvalidInput(format!(
                "a PreToolUse hook ({}) rewrote the input into one that is not valid: {e}",
                hooks.rewritten_by.join(", ")
            )))));
        }
        if let Some(HookRuling {
            verdict: Verdict::Deny,
            reason,
            by,
        }) = &hooks.decision
        {
            audit.decision = AuditDecision::Deny;
            audit.decided_by.clone_from(by);
            return Err(Stop::Answer(Err(ToolError::Denied(format!(
                "{reason} (decided by {by})"
            )))));
        }
        Ok(hooks)
    }

    /// The permission stage, on the input as it will run. `Some(input)`:
    /// allowed with this input instead (to be validated).
    async fn permission(
        &self,
        tool: &RegisteredTool,
        call: &ToolCall,
        hook: Option<&HookRuling>,
        dir: Option<&std::path::Path>,
        audit: &mut AuditRecord,
    ) -> Result<Option<Value>, Stop> {
        match self.shared.permission.decide(call, tool, hook, dir).await {
            Permission::Allow { by } => {
                audit.decision = AuditDecision::Allow;
                audit.decided_by = by;
                Ok(None)
            }
            Permission::AllowWithInput { by, input } => {
                audit.decision = AuditDecision::Allow;
                audit.decided_by = by;
                Ok(Some(input))
            }
            Permission::Deny { reason, by } => {
                audit.decision = AuditDecision::Deny;
                audit.decided_by.clone_from(&by);
                Err(Stop::Answer(Err(ToolError::Denied(format!(
                    "{reason} (decided by {by})"
                )))))
            }
        }
    }

    /// The call's context: its progress goes on the bus (and to the caller's
    /// sink); its host handle brings nested calls back through this pipeline.
    fn context(&self, call: &ToolCall, options: CallOptions) -> ToolContext {
        let events = self.shared.events.clone();
        let (id, name) = (call.id.clone(), call.name.clone());
        let on_bus = ProgressSink::new(move |p: Progress| {
            events.emit(&SessionEvent::ToolProgress {
                tool_use_id: id.clone(),
                name: name.clone(),
                progress: p.progress,
                total: p.total,
                message: p.message,
            });
        });
        let caller = Caller {
            tool: call.name.clone(),
            tool_use_id: call.id.clone(),
        };
        ToolContext {
            cwd: self.shared.cwd.clone(),
            session_id: self.shared.session_id.clone(),
            tool_use_id: call.id.clone(),
            cancel: options.cancel.child_token(),
            progress: on_bus.and(options.progress),
            host: HostHandle::new(Arc::new(self.clone()), caller, options.depth),
            checked_dir: None,
            checked_files: Vec::new(),
        }
    }

    /// Turns the outcome into a tool_result (through the output budget) and
    /// records it with its audit.
    fn record(
        &self,
        call: &ToolCall,
        stop: Stop,
        output: &OutputBehaviour,
        started: Instant,
        mut audit: AuditRecord,
        full_output: bool,
    ) -> ToolCallResult {
        let (content, is_error, outcome, structured, response) = match stop {
            Stop::UnknownTool(text) => (
                vec![ContentBlock::text(text)],
                true,
                ToolOutcome::UnknownTool,
                None,
                None,
            ),
            // The response is moved, not copied (a Read's can be the whole
            // file); a tool without one gets the content array from the
            // listener that wants it (`tool_use_result`).
            Stop::Answer(Ok(out)) => (
                out.content,
                false,
                ToolOutcome::Ok,
                out.structured,
                out.response,
            ),
            Stop::Answer(Err(e)) => (
                vec![ContentBlock::text(e.to_model_text(&call.name))],
                true,
                e.outcome(),
                None,
                None,
            ),
        };
        // A caller that filters the result itself gets it whole.
        let budgeted = if full_output {
            crate::pipeline::Budgeted {
                content,
                artifact: None,
            }
        } else {
            self.shared
                .budget
                .apply(&call.name, output, &call.id, content)
        };
        audit.artifacts.extend(budgeted.artifact);
        if outcome == ToolOutcome::Interrupted {
            audit.interrupted = Some(Interruption::Cancelled);
        }
        let block = ToolResultBlock::new(&call.id, budgeted.content, is_error);
        self.shared.events.emit(&SessionEvent::ToolResult {
            tool_use_id: call.id.clone(),
            name: call.name.clone(),
            outcome,
            is_error,
            content: result_blocks(&block),
            duration_ms: (started.elapsed().as_millis() as u64)
                .saturating_sub(audit.permission_wait_ms.unwrap_or(0)),
            audit: Some(Box::new(audit)),
            response,
        });
        ToolCallResult {
            block,
            outcome,
            structured,
        }
    }
}

/// The find stage: a `Hidden` tool exists only for nested calls.
fn find<'r>(
    registry: &'r ToolRegistry,
    call: &ToolCall,
    options: &CallOptions,
) -> Option<&'r RegisteredTool> {
    registry
        .get(&call.name)
        .filter(|t| t.exposure != Exposure::Hidden || options.caller.is_some())
}

fn unknown_tool_text(registry: &ToolRegistry, name: &str) -> String {
    let names: Vec<String> = registry.definitions().into_iter().map(|d| d.name).collect();
    let available = if names.is_empty() {
        "none (this session has no tools)".to_owned()
    } else {
        names.join(", ")
    };
    format!(
        "No tool named {name:?} exists. Available tools: {available}.\nCall one of these by its exact name."
    )
}

fn result_blocks(block: &ToolResultBlock) -> Vec<ContentBlock> {
    match &block.content {
        None => Vec::new(),
        Some(tack_protocol::ToolResultContent::Text(t)) => vec![ContentBlock::text(t.clone())],
        Some(tack_protocol::ToolResultContent::Blocks(b)) => b.clone(),
    }
}

/// Drops top-level null fields, which models send for "not given".
fn normalize(call: &mut ToolCall) {
    if call
        .input
        .as_object()
        .is_some_and(|m| m.values().any(Value::is_null))
    {
        call.input = tack_tool::drop_nulls(&call.input);
    }
}

/// The validate stage: null fields dropped, then the JSON parse error from
/// the provider, the schema, and the tool's own check.
fn validate(
    tool: &RegisteredTool,
    call: &mut ToolCall,
    input_error: Option<String>,
    ctx: &ToolContext,
) -> Result<(), ToolError> {
    normalize(call);
    if let Some(err) = input_error {
        return Err(ToolError::InvalidInput(format!(
            "the input is not valid JSON ({err}); send the input as one JSON object"
        )));
    }
    tool.check_input(&call.input)?;
    tool.tool.validate(&call.input, ctx)
}
