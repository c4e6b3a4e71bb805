//! The tool-use loop.
//!
//! Sends the conversation with the tool definitions; while the model stops for
//! `tool_use`, runs the calls through the [`Pipeline`] (safe calls together,
//! the others one at a time, in order) and answers with one user message whose
//! blocks are the tool_results in tool_use order. Every tool_use is answered by
//! exactly one tool_result, whatever happens: the only place a tool_use can be
//! left unanswered is a killed process, and resuming repairs that
//! ([`crate::transcript::repair`]).

use std::sync::Arc;

use futures::future::join_all;
use tack_model::{MalformedToolInput, ModelClient, ModelError, StreamEvent};
use tack_protocol::{
    ContentBlock, Message, MessagesRequest, RunStatus, SessionEvent, StopReason, SystemPrompt,
    ToolChoice, ToolOutcome, ToolResultBlock, ToolUseBlock, Usage,
};
use tack_tool::{CallOptions, ToolCall};
use tokio_util::sync::CancellationToken;

use crate::events::EventBus;
use crate::hooks::HookRunner;
use crate::pipeline::{Dispatch, Pipeline};

/// Default `max_tokens` of each request.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// How the loop talks to the model.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Overrides the client's model.
    pub model: Option<String>,
    pub max_tokens: u32,
    pub system: Option<String>,
    pub tool_choice: Option<ToolChoice>,
    /// Model requests allowed in one run; `None` = no limit.
    pub max_turns: Option<u32>,
    pub stream: bool,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            model: None,
            max_tokens: DEFAULT_MAX_TOKENS,
            system: None,
            tool_choice: None,
            max_turns: None,
            stream: true,
        }
    }
}

/// The result of [`Agent::run`].
#[derive(Debug)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub stop_reason: Option<StopReason>,
    /// Model requests made in this run.
    pub turns: u32,
    /// Tokens used in this run.
    pub usage: Usage,
    /// The text of the last assistant message.
    pub text: String,
    pub error: Option<ModelError>,
    /// Why a hook stopped the run, when it did.
    pub error_text: Option<String>,
}

/// A conversation with a model and its tools.
pub struct Agent {
    client: Arc<dyn ModelClient>,
    pipeline: Arc<Pipeline>,
    config: AgentConfig,
    events: EventBus,
    messages: Vec<Message>,
    session_usage: Usage,
    session_turns: u32,
    hooks: Option<Arc<HookRunner>>,
}

/// How many times in a row Stop hooks may make the model continue.
const MAX_STOP_HOOK_CONTINUATIONS: u32 = 3;

impl Agent {
    pub fn new(
        client: Arc<dyn ModelClient>,
        pipeline: Arc<Pipeline>,
        config: AgentConfig,
        events: EventBus,
    ) -> Self {
        Self {
            client,
            pipeline,
            config,
            events,
            messages: Vec::new(),
            session_usage: Usage::default(),
            session_turns: 0,
            hooks: None,
        }
    }

    /// Runs UserPromptSubmit and Stop hooks in the loop (the same runner
    /// should be the pipeline's hook stage).
    pub fn with_hooks(mut self, hooks: Arc<HookRunner>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Continues an earlier conversation (already repaired; see
    /// [`crate::transcript::LoadedSession`]).
    pub fn with_history(mut self, messages: Vec<Message>, usage: Usage, turns: u32) -> Self {
        self.messages = messages;
        self.session_usage = usage;
        self.session_turns = turns;
        self
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn session_usage(&self) -> &Usage {
        &self.session_usage
    }

    fn push(&mut self, message: Message) {
        self.events.emit(&SessionEvent::Message {
            message: message.clone(),
        });
        self.messages.push(message);
    }

    fn request(&self) -> MessagesRequest {
        MessagesRequest {
            model: self
                .config
                .model
                .clone()
                .unwrap_or_else(|| self.client.model().to_owned()),
            max_tokens: self.config.max_tokens,
            messages: self.messages.clone(),
            system: self.config.system.clone().map(SystemPrompt::Text),
            tools: self.pipeline.registry().definitions(),
            tool_choice: self.config.tool_choice.clone(),
            stream: self.config.stream,
            temperature: None,
            stop_sequences: Vec::new(),
            extra: Default::default(),
        }
    }

    /// Runs the loop: adds `prompt` (if any) as a user message, then asks the
    /// model until it stops asking for tools, the turn limit is reached, the
    /// API fails or `cancel` fires.
    pub async fn run(
        &mut self,
        prompt: Option<Vec<ContentBlock>>,
        cancel: &CancellationToken,
    ) -> RunOutcome {
        let mut run = RunOutcome {
            status: RunStatus::Completed,
            stop_reason: None,
            turns: 0,
            usage: Usage::default(),
            text: String::new(),
            error: None,
            error_text: None,
        };
        if let Some(mut prompt) = prompt {
            if let Some(hooks) = &self.hooks {
                let text = Message::user(prompt.clone()).text();
                match hooks.user_prompt_submit(&text).await {
                    Ok(context) => prompt.extend(context.into_iter().map(ContentBlock::text)),
                    Err(reason) => {
                        run.status = RunStatus::HookStopped;
                        run.error_text = Some(reason);
                        return self.finish(run);
                    }
                }
                if let Some(reason) = hooks.take_stop() {
                    run.status = RunStatus::HookStopped;
                    run.error_text = Some(reason);
                    return self.finish(run);
                }
            }
            self.push(Message::user(prompt));
        }
        let mut stop_continuations = 0;
        loop {
            if self.config.max_turns.is_some_and(|max| run.turns >= max) {
                run.status = RunStatus::MaxTurns;
                break;
            }
            let request = self.request();
            let events = self.events.clone();
            let sink = move |event: StreamEvent| match event {
                StreamEvent::TextDelta(text) => events.emit(&SessionEvent::TextDelta { text }),
                StreamEvent::Retry {
                    attempt,
                    delay,
                    reason,
                } => events.emit(&SessionEvent::Retry {
                    attempt,
                    delay_ms: delay.as_millis() as u64,
                    reason,
                }),
            };
            let turn = tokio::select! {
                turn = self.client.complete(&request, &sink) => turn,
                () = cancel.cancelled() => {
                    run.status = RunStatus::Interrupted;
                    break;
                }
            };
            let turn = match turn {
                Ok(turn) => turn,
                Err(error) => {
                    run.status = RunStatus::ModelError;
                    run.error = Some(error);
                    break;
                }
            };
            run.turns += 1;
            self.session_turns += 1;
            let response = turn.response;
            run.usage.add(&response.usage);
            self.session_usage.add(&response.usage);
            let message = response.to_message();
            let tool_uses: Vec<ToolUseBlock> = message.tool_uses().cloned().collect();
            let stop = response
                .stop_reason
                .clone()
                .unwrap_or(if tool_uses.is_empty() {
                    StopReason::EndTurn
                } else {
                    StopReason::ToolUse
                });
            run.text = message.text();
            run.stop_reason = Some(stop.clone());
            // An empty assistant message would make the next request invalid.
            if !message.content.is_empty() {
                self.push(message);
            }
            self.events.emit(&SessionEvent::TurnEnd {
                turn: self.session_turns,
                stop_reason: stop.clone(),
                usage: response.usage.clone(),
            });
            match stop {
                StopReason::ToolUse if !tool_uses.is_empty() => {
                    let results = self
                        .run_tools(tool_uses, turn.malformed_inputs, cancel)
                        .await;
                    self.push(Message::user(results));
                    if cancel.is_cancelled() {
                        run.status = RunStatus::Interrupted;
                        break;
                    }
                    if let Some(reason) = self.hooks.as_ref().and_then(|h| h.take_stop()) {
                        run.status = RunStatus::HookStopped;
                        run.error_text = Some(reason);
                        break;
                    }
                }
                // Resend as is: the API continues the paused turn.
                StopReason::PauseTurn => {}
                StopReason::MaxTokens => {
                    self.answer_unrun(
                        &tool_uses,
                        "the response reached max_tokens before this call was complete, so its input may be cut off. Send the call again, with a shorter input if it was long.",
                    );
                    run.status = RunStatus::MaxTokens;
                    break;
                }
                StopReason::Refusal => {
                    self.answer_unrun(&tool_uses, "the response ended with a refusal.");
                    run.status = RunStatus::Refusal;
                    break;
                }
                _ => {
                    // end_turn, stop_sequence and anything new. A tool_use left
                    // in such a response is answered so the conversation stays valid.
                    self.answer_unrun(
                        &tool_uses,
                        "the response ended without asking for tools to run (stop_reason was not tool_use).",
                    );
                    run.status = RunStatus::Completed;
                    if let Some(hooks) = self.hooks.clone() {
                        let active = stop_continuations > 0;
                        if stop_continuations < MAX_STOP_HOOK_CONTINUATIONS
                            && let Some(reason) = hooks.stop_hooks(active).await
                        {
                            stop_continuations += 1;
                            self.push(Message::user_text(reason));
                            continue;
                        }
                        if let Some(reason) = hooks.take_stop() {
                            run.status = RunStatus::HookStopped;
                            run.error_text = Some(reason);
                        }
                    }
                    break;
                }
            }
        }
        self.finish(run)
    }

    /// Emits the result event.
    fn finish(&self, run: RunOutcome) -> RunOutcome {
        let error = run
            .error
            .as_ref()
            .map(ToString::to_string)
            .or_else(|| run.error_text.clone());
        self.events.emit(&SessionEvent::Result {
            session_id: self.pipeline.session_id().to_owned(),
            turns: run.turns,
            usage: run.usage.clone(),
            stop_reason: run.stop_reason.clone(),
            status: run.status,
            text: run.text.clone(),
            is_error: !matches!(run.status, RunStatus::Completed),
            error,
            session_turns: self.session_turns,
            session_usage: self.session_usage.clone(),
        });
        run
    }

    /// Answers tool_use blocks that will not run (response cut by max_tokens, refusal).
    fn answer_unrun(&mut self, tool_uses: &[ToolUseBlock], why: &str) {
        if tool_uses.is_empty() {
            return;
        }
        let results = tool_uses
            .iter()
            .map(|t| {
                let block = ToolResultBlock::error(&t.id, format!("{} was not run: {why}", t.name));
                self.events.emit(&SessionEvent::ToolResult {
                    tool_use_id: t.id.clone(),
                    name: t.name.clone(),
                    outcome: ToolOutcome::NotRun,
                    is_error: true,
                    content: vec![ContentBlock::text(block.text())],
                    duration_ms: 0,
                    audit: None,
                });
                ContentBlock::ToolResult(block)
            })
            .collect();
        self.push(Message::user(results));
    }

    /// The scheduler: consecutive concurrency-safe calls run together, every
    /// other call alone, in order. Results come back in tool_use order.
    async fn run_tools(
        &self,
        tool_uses: Vec<ToolUseBlock>,
        malformed: Vec<MalformedToolInput>,
        cancel: &CancellationToken,
    ) -> Vec<ContentBlock> {
        let dispatches: Vec<Dispatch> = tool_uses
            .into_iter()
            .map(|t| Dispatch {
                input_error: malformed
                    .iter()
                    .find(|m| m.tool_use_id == t.id)
                    .map(|m| format!("{}; the input received was: {}", m.error, m.raw)),
                call: ToolCall {
                    id: t.id,
                    name: t.name,
                    input: t.input,
                },
            })
            .collect();
        let mut results = Vec::with_capacity(dispatches.len());
        let mut batch: Vec<Dispatch> = Vec::new();
        for dispatch in dispatches {
            if self.pipeline.is_concurrency_safe(&dispatch) {
                batch.push(dispatch);
                continue;
            }
            results.extend(self.run_batch(std::mem::take(&mut batch), cancel).await);
            let result = self
                .pipeline
                .dispatch(dispatch, CallOptions::new(cancel.clone()))
                .await;
            results.push(ContentBlock::ToolResult(result.block));
        }
        results.extend(self.run_batch(batch, cancel).await);
        results
    }

    async fn run_batch(
        &self,
        batch: Vec<Dispatch>,
        cancel: &CancellationToken,
    ) -> Vec<ContentBlock> {
        join_all(
            batch
                .into_iter()
                .map(|d| self.pipeline.dispatch(d, CallOptions::new(cancel.clone()))),
        )
        .await
        .into_iter()
        .map(|r| ContentBlock::ToolResult(r.block))
        .collect()
    }
}
