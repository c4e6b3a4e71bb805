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

use tack_model::{MalformedToolInput, ModelClient, ModelError, StreamEvent};
use tack_protocol::{
    ContentBlock, Message, MessagesRequest, RunStatus, SessionEvent, StopReason, SystemPrompt,
    ToolChoice, ToolOutcome, ToolResultBlock, ToolUseBlock, Usage,
};
use tokio_util::sync::CancellationToken;

use crate::events::EventBus;
use crate::hooks::HookRunner;
use crate::pipeline::Pipeline;
use crate::scheduler;

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
        if let Some(prompt) = prompt
            && let Err(reason) = self.submit_prompt(prompt).await
        {
            run.status = RunStatus::HookStopped;
            run.error_text = Some(reason);
            return self.finish(run);
        }
        let mut stop_continuations = 0;
        loop {
            if self.config.max_turns.is_some_and(|max| run.turns >= max) {
                run.status = RunStatus::MaxTurns;
                break;
            }
            let Some(turn) = self.ask_model(&mut run, cancel).await else {
                break;
            };
            let (stop, tool_uses) = self.record_response(&mut run, turn.response);
            let next = match stop {
                StopReason::ToolUse if !tool_uses.is_empty() => {
                    self.answer_tools(tool_uses, turn.malformed_inputs, cancel)
                        .await
                }
                // Resend as is: the API continues the paused turn.
                StopReason::PauseTurn => Next::Ask,
                StopReason::MaxTokens => {
                    self.answer_unrun(
                        &tool_uses,
                        "the response reached max_tokens before this call was complete, so its input may be cut off. Send the call again, with a shorter input if it was long.",
                    );
                    Next::Finish(RunStatus::MaxTokens, None)
                }
                StopReason::Refusal => {
                    self.answer_unrun(&tool_uses, "the response ended with a refusal.");
                    Next::Finish(RunStatus::Refusal, None)
                }
                _ => {
                    // end_turn, stop_sequence and anything new. A tool_use left
                    // in such a response is answered so the conversation stays valid.
                    self.answer_unrun(
                        &tool_uses,
                        "the response ended without asking for tools to run (stop_reason was not tool_use).",
                    );
                    self.end_turn(&mut stop_continuations).await
                }
            };
            // Tokens sub-agents (the Agent tool) spent in this response's calls.
            let delegated = self.pipeline.take_delegated_usage();
            run.usage.add(&delegated);
            self.session_usage.add(&delegated);
            if let Next::Finish(status, reason) = next {
                run.status = status;
                run.error_text = reason;
                break;
            }
        }
        self.finish(run)
    }

    /// The user's prompt, through the UserPromptSubmit hooks (which may add
    /// context, or block it: `Err(reason)`), joins the conversation.
    async fn submit_prompt(&mut self, mut prompt: Vec<ContentBlock>) -> Result<(), String> {
        if let Some(hooks) = &self.hooks {
            let text = Message::user(prompt.clone()).text();
            let context = hooks.user_prompt_submit(&text).await?;
            prompt.extend(context.into_iter().map(ContentBlock::text));
            if let Some(reason) = hooks.take_stop() {
                return Err(reason);
            }
        }
        self.push(Message::user(prompt));
        Ok(())
    }

    /// One model request, streamed to the event bus. `None` ends the run
    /// (interrupted, or the API failed after its retries; `run` says which).
    async fn ask_model(
        &mut self,
        run: &mut RunOutcome,
        cancel: &CancellationToken,
    ) -> Option<tack_model::ModelTurn> {
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
                return None;
            }
        };
        match turn {
            Ok(turn) => Some(turn),
            Err(error) => {
                run.status = RunStatus::ModelError;
                run.error = Some(error);
                None
            }
        }
    }

    /// Counts the response, adds it to the conversation and emits `turn_end`;
    /// returns its stop reason and tool calls.
    fn record_response(
        &mut self,
        run: &mut RunOutcome,
        response: tack_protocol::MessageResponse,
    ) -> (StopReason, Vec<ToolUseBlock>) {
        run.turns += 1;
        self.session_turns += 1;
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
            usage: response.usage,
        });
        (stop, tool_uses)
    }

    /// Runs the calls (the scheduler) and answers them in one user message.
    async fn answer_tools(
        &mut self,
        tool_uses: Vec<ToolUseBlock>,
        malformed: Vec<MalformedToolInput>,
        cancel: &CancellationToken,
    ) -> Next {
        let results = scheduler::run_tools(&self.pipeline, tool_uses, malformed, cancel).await;
        self.push(Message::user(results));
        if cancel.is_cancelled() {
            return Next::Finish(RunStatus::Interrupted, None);
        }
        match self.hooks.as_ref().and_then(|h| h.take_stop()) {
            Some(reason) => Next::Finish(RunStatus::HookStopped, Some(reason)),
            None => Next::Ask,
        }
    }

    /// The model ended its turn: Stop hooks may make it go on (at most
    /// [`MAX_STOP_HOOK_CONTINUATIONS`] times in a row) or stop the session.
    async fn end_turn(&mut self, continuations: &mut u32) -> Next {
        let Some(hooks) = self.hooks.clone() else {
            return Next::Finish(RunStatus::Completed, None);
        };
        let active = *continuations > 0;
        if *continuations < MAX_STOP_HOOK_CONTINUATIONS
            && let Some(reason) = hooks.stop_hooks(active).await
        {
            *continuations += 1;
            self.push(Message::user_text(reason));
            return Next::Ask;
        }
        match hooks.take_stop() {
            Some(reason) => Next::Finish(RunStatus::HookStopped, Some(reason)),
            None => Next::Finish(RunStatus::Completed, None),
        }
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
                    response: None,
                });
                ContentBlock::ToolResult(block)
            })
            .collect();
        self.push(Message::user(results));
    }
}

/// What the loop does after a response.
enum Next {
    /// Send the next request.
    Ask,
    /// End the run, with a reason for a hook stop.
    Finish(RunStatus, Option<String>),
}
