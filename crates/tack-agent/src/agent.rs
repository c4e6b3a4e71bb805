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

use tack_model::{MalformedToolInput, ModelClient, ModelError, StreamEvent, WireFormat};
use tack_protocol::{
    ContentBlock, Message, MessagesRequest, RunStatus, SessionEvent, StopReason, SystemPrompt,
    ToolChoice, ToolOutcome, ToolResultBlock, ToolUseBlock, Usage,
};
use tokio_util::sync::CancellationToken;

use crate::context::{self, CompactionConfig, ContextMeter, Trigger};
use crate::conversation::{Conversation, EncodedPrefix};
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
    /// How the conversation is kept inside the model's context window;
    /// `None`: the defaults (a session fills in its settings).
    pub compaction: Option<CompactionConfig>,
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
            compaction: None,
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

impl RunOutcome {
    /// A run that has done nothing yet.
    fn new() -> Self {
        Self {
            status: RunStatus::Completed,
            stop_reason: None,
            turns: 0,
            usage: Usage::default(),
            text: String::new(),
            error: None,
            error_text: None,
        }
    }
}

/// A conversation with a model and its tools.
pub struct Agent {
    client: Arc<dyn ModelClient>,
    pipeline: Arc<Pipeline>,
    config: AgentConfig,
    events: EventBus,
    conversation: Conversation,
    /// The system prompt and tools, encoded for the client.
    prefix: EncodedPrefix,
    session_usage: Usage,
    session_turns: u32,
    hooks: Option<Arc<HookRunner>>,
    /// How full the window is; made at the first request (the model is known then).
    meter: Option<ContextMeter>,
    compaction: CompactionConfig,
    /// Body fields of every request (Anthropic's `context_management` when
    /// the provider compacts).
    extra: tack_protocol::Extra,
    /// Whether the provider's model listing was asked for the window.
    window_asked: bool,
    /// The API loads deferred tools itself: every tool is sent, deferred
    /// ones marked `defer_loading` ([`ToolRegistry::deferring_definitions`]).
    tool_references: bool,
    /// With `tool_references`: deferred tools found by a search whose
    /// reference left the conversation (compacted away, or a conversation
    /// resumed from a transcript), sent whole from then on.
    pinned: std::collections::BTreeSet<String>,
}

/// What a compaction did ([`Agent::compact`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionReport {
    pub trigger: Trigger,
    /// `tool_results`, `summary`, `fallback`.
    pub stages: Vec<String>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub cleared_tool_results: u32,
    pub summarized_messages: u32,
    pub summary: Option<String>,
}

/// Why a compaction did not happen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompactError {
    #[error("{0}")]
    Blocked(String),
    #[error("the compaction was interrupted")]
    Interrupted,
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
        let compaction = config.compaction.clone().unwrap_or_default();
        let mut conversation = Conversation::new();
        if let Some(format) = client.wire_format() {
            conversation.set_format(format);
        }
        let model = config.model.as_deref().unwrap_or_else(|| client.model());
        let tool_references = client.tool_references(model);
        pipeline.set_tool_references(tool_references);
        Self {
            client,
            pipeline,
            config,
            events,
            conversation,
            prefix: EncodedPrefix::default(),
            session_usage: Usage::default(),
            session_turns: 0,
            hooks: None,
            meter: None,
            extra: Default::default(),
            window_asked: false,
            compaction,
            tool_references,
            pinned: Default::default(),
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
        self.conversation.reset(messages);
        self.session_usage = usage;
        self.session_turns = turns;
        self.pin_unreferenced();
        self
    }

    /// With an API that loads deferred tools by reference: the tools found
    /// before whose reference is no longer in the conversation are sent
    /// whole (once the prefix is encoded again), so they stay loaded.
    fn pin_unreferenced(&mut self) {
        if !self.tool_references {
            return;
        }
        let referenced: std::collections::BTreeSet<&str> = self
            .conversation
            .messages()
            .iter()
            .flat_map(|m| &m.content)
            .filter_map(|b| match b {
                ContentBlock::ToolResult(r) => Some(r),
                _ => None,
            })
            .filter_map(|r| match &r.content {
                Some(tack_protocol::ToolResultContent::Blocks(blocks)) => Some(blocks),
                _ => None,
            })
            .flatten()
            .filter_map(ContentBlock::referenced_tool)
            .collect();
        let lost: Vec<String> = self
            .pipeline
            .registry()
            .revealed()
            .into_iter()
            .filter(|n| !referenced.contains(n.as_str()))
            .collect();
        self.pinned.extend(lost);
    }

    pub fn messages(&self) -> &[Message] {
        self.conversation.messages()
    }

    /// The conversation with its encoded form.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    pub fn session_usage(&self) -> &Usage {
        &self.session_usage
    }

    /// The model requests go to.
    pub fn model(&self) -> String {
        self.model_name()
    }

    /// Sends the next requests to `model` (the interactive `/model`). Its
    /// context window is looked up again at the next request; the prompt
    /// cache of the old model does not carry over.
    pub fn set_model(&mut self, model: impl Into<String>) {
        self.config.model = Some(model.into());
        self.meter = None;
        self.window_asked = false;
        let model = self.model_name();
        self.tool_references = self.client.tool_references(&model);
        self.pipeline.set_tool_references(self.tool_references);
        self.prefix = EncodedPrefix::default();
    }

    /// The compaction settings in force (the threshold the status line shows).
    pub fn compaction_config(&self) -> &CompactionConfig {
        &self.compaction
    }

    fn push(&mut self, message: Message) {
        let event = SessionEvent::Message {
            message: message.clone(),
        };
        self.conversation.push(message);
        // The transcript line reuses the message's encoding when it is the
        // Messages shape (tack's own, the transcript's).
        let json = match self.conversation.format() {
            WireFormat::Messages => self.conversation.encoded().last().map(|e| e.bytes()),
            _ => None,
        };
        self.events.emit_message(&event, json);
    }

    /// The model requests go to.
    fn model_name(&self) -> String {
        self.config
            .model
            .clone()
            .unwrap_or_else(|| self.client.model().to_owned())
    }

    fn meter(&mut self) -> &mut ContextMeter {
        if self.meter.is_none() {
            let model = self.model_name();
            let meter = ContextMeter::new(self.compaction.window, &model, self.client.provider());
            self.set_context_management(meter.window());
            self.meter = Some(meter);
        }
        self.meter
            .get_or_insert_with(|| ContextMeter::new(None, "", ""))
    }

    /// How full the window is, as far as the loop knows: the window and
    /// the estimated tokens of the next request.
    pub fn context_usage(&mut self) -> (u64, u64) {
        self.refresh_prefix();
        self.estimate_next()
    }

    /// [`Agent::context_usage`] with the prefix as it was last refreshed.
    fn estimate_next(&mut self) -> (u64, u64) {
        let bytes = self.static_bytes() + self.conversation.encoded_len();
        let meter = self.meter();
        (meter.window(), meter.estimate(bytes))
    }

    /// Brings the encoded system prompt and tools up to date (each is
    /// encoded again only when it changes).
    fn refresh_prefix(&mut self) {
        self.prefix.refresh(
            self.conversation.format(),
            self.config.system.as_deref(),
            self.pipeline.registry(),
            self.tool_references,
            &self.pinned,
        );
    }

    /// The encoded size of what every request sends besides the messages:
    /// the system prompt, the tools and the settings.
    fn static_bytes(&self) -> usize {
        self.prefix.system().map_or(0, |s| s.bytes().len()) + self.prefix.tools_in_context() + 96
    }

    /// The request's settings: every field but the conversation, the system
    /// prompt and the tools, which go encoded ([`Conversation::request`]).
    fn request(&self) -> MessagesRequest {
        MessagesRequest {
            model: self.model_name(),
            max_tokens: self.config.max_tokens,
            messages: Vec::new(),
            system: None,
            tools: Vec::new(),
            tool_choice: self.config.tool_choice.clone(),
            stream: self.config.stream,
            temperature: None,
            stop_sequences: Vec::new(),
            extra: self.extra.clone(),
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
        let mut run = RunOutcome::new();
        if let Some(prompt) = prompt
            && let Err(reason) = self.submit_prompt(prompt).await
        {
            run.status = RunStatus::HookStopped;
            run.error_text = Some(reason);
            return self.finish(run);
        }
        let mut stop_continuations = 0;
        let mut window_compacted = false;
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
                    window_compacted = false;
                    self.answer_tools(tool_uses, turn.malformed_inputs, cancel)
                        .await
                }
                // Resend as is: the API continues the paused turn (or, for
                // the beta `compaction` stop, goes on after its summary).
                StopReason::PauseTurn => Next::Ask,
                StopReason::Other(reason) if reason == "compaction" => Next::Ask,
                // Input and output filled the window: the response is cut
                // short. Compact and go on, once in a row.
                StopReason::ModelContextWindowExceeded if !window_compacted => {
                    self.answer_unrun(
                        &tool_uses,
                        "the response filled the model's context window before this call was complete; the conversation was compacted. Send the call again.",
                    );
                    window_compacted = true;
                    match self
                        .compact_with(
                            Trigger::Overflow,
                            None,
                            "the response stopped at the model's context window".to_owned(),
                            &mut run,
                            cancel,
                        )
                        .await
                    {
                        Ok(Some(_)) => Next::Ask,
                        Err(CompactError::Interrupted) => {
                            Next::Finish(RunStatus::Interrupted, None)
                        }
                        Ok(None) | Err(CompactError::Blocked(_)) => {
                            Next::Finish(RunStatus::MaxTokens, None)
                        }
                    }
                }
                StopReason::MaxTokens | StopReason::ModelContextWindowExceeded => {
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
    /// Before it, the conversation is compacted when the request would pass
    /// the threshold; a request the API refuses as too long is compacted
    /// and sent again, once (no tool runs again: the calls of the previous
    /// turn are answered already).
    async fn ask_model(
        &mut self,
        run: &mut RunOutcome,
        cancel: &CancellationToken,
    ) -> Option<tack_model::ModelTurn> {
        let mut retried_overflow = false;
        loop {
            // Once per request; compaction changes only the messages.
            self.refresh_prefix();
            self.ask_window().await;
            if self.compaction.auto && !self.provider_compacts() {
                let (window, mut estimate) = self.estimate_next();
                let threshold = self.compaction.threshold.tokens(window);
                // Near the threshold and not calibrated yet (a resumed
                // session's first request): ask the provider's count.
                let near = estimate > threshold * 7 / 10 && estimate < threshold * 13 / 10;
                if near && self.meter().last_input_tokens().is_none() {
                    estimate = self.count_tokens().await.unwrap_or(estimate);
                }
                if estimate > threshold {
                    let reason = format!(
                        "{} of {} tokens (over the {} threshold)",
                        context::group(estimate),
                        context::group(window),
                        describe_threshold(self.compaction.threshold),
                    );
                    if let Err(CompactError::Interrupted) = self
                        .compact_with(Trigger::Auto, None, reason, run, cancel)
                        .await
                    {
                        run.status = RunStatus::Interrupted;
                        return None;
                    }
                }
            }
            let bytes = self.static_bytes() + self.conversation.encoded_len();
            let settings = self.request();
            let request =
                self.conversation
                    .request(&settings, self.prefix.system(), self.prefix.tools());
            let sink = self.sink();
            let turn = tokio::select! {
                turn = self.client.complete_encoded(&request, &sink) => turn,
                () = cancel.cancelled() => {
                    run.status = RunStatus::Interrupted;
                    return None;
                }
            };
            let error = match turn {
                Ok(turn) => {
                    self.meter().observe(bytes, &turn.response.usage);
                    return Some(turn);
                }
                Err(error) => error,
            };
            if let Some(over) = context::overflow(&error) {
                if let Some(maximum) = over.maximum {
                    self.meter().learn_window(maximum);
                }
                if let Some(tokens) = over.tokens {
                    self.meter().calibrate(bytes, tokens);
                }
                if !retried_overflow {
                    retried_overflow = true;
                    let reason = format!("the API refused the request: {error}");
                    match self
                        .compact_with(Trigger::Overflow, None, reason, run, cancel)
                        .await
                    {
                        Ok(Some(_)) => continue,
                        Err(CompactError::Interrupted) => {
                            run.status = RunStatus::Interrupted;
                            return None;
                        }
                        Ok(None) | Err(CompactError::Blocked(_)) => {}
                    }
                }
                run.error_text = Some(self.overflow_explanation(bytes));
            }
            run.status = RunStatus::ModelError;
            run.error = Some(error);
            return None;
        }
    }

    /// A model the table does not know: its window from the provider's
    /// model listing, asked once, when the conversation (without the system
    /// prompt and tools) first passes [`context::ASK_WINDOW_AFTER_TOKENS`]
    /// (a short session never pays
    /// the extra request; a smaller window than that is learned from the
    /// overflow error, which names it).
    async fn ask_window(&mut self) {
        if self.window_asked || self.meter().source() != context::WindowSource::Default {
            return;
        }
        let conversation = self.conversation.encoded_len();
        if self.meter().estimate(conversation) <= context::ASK_WINDOW_AFTER_TOKENS {
            return;
        }
        self.window_asked = true;
        let model = self.model_name();
        if let Some(window) = self.client.context_window(&model).await {
            self.meter().set_listed(window);
            self.set_context_management(window);
        }
    }

    /// Anthropic's `context_management` for `window`, in every request's
    /// body, when the provider compacts.
    fn set_context_management(&mut self, window: u64) {
        if self.provider_compacts() {
            self.extra.insert(
                "context_management".into(),
                context::anthropic_context_management(&self.compaction, window),
            );
        }
    }

    /// Whether the provider compacts this session itself (Anthropic's
    /// context management, when the settings ask for it).
    fn provider_compacts(&self) -> bool {
        self.compaction.provider && self.client.provider() == "anthropic"
    }

    /// The provider's count of the next request, calibrating the meter;
    /// `None` where there is no such endpoint or it failed.
    async fn count_tokens(&mut self) -> Option<u64> {
        self.refresh_prefix();
        let bytes = self.static_bytes() + self.conversation.encoded_len();
        let settings = self.request();
        let request =
            self.conversation
                .request(&settings, self.prefix.system(), self.prefix.tools());
        match self.client.count_tokens(&request).await {
            Ok(Some(tokens)) => {
                self.meter().calibrate(bytes, tokens);
                Some(tokens)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::debug!("token count failed: {e}");
                None
            }
        }
    }

    /// Streams a request's text and retries to the event bus.
    fn sink(&self) -> impl Fn(StreamEvent) + Send + Sync + use<> {
        let events = self.events.clone();
        move |event: StreamEvent| match event {
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
        }
    }

    /// What does not fit, and how to go on: for a request still too long
    /// after compacting.
    fn overflow_explanation(&mut self, bytes: usize) -> String {
        let meter = self.meter().clone();
        let tokens = |b: usize| context::group(meter.estimate(b));
        let system = self.prefix.system().map_or(0, |s| s.bytes().len());
        let definitions = self
            .prefix
            .tools()
            .map(|t| t.definitions())
            .unwrap_or_default();
        let mut tools: Vec<(usize, &str)> = definitions
            .iter()
            .map(|t| {
                (
                    serde_json::to_vec(t).map_or(0, |v| v.len()),
                    t.name.as_str(),
                )
            })
            .collect();
        let tools_bytes: usize = tools.iter().map(|t| t.0).sum();
        tools.sort_by_key(|t| std::cmp::Reverse(t.0));
        let largest_tools: Vec<String> = tools
            .iter()
            .take(3)
            .map(|(b, n)| format!("{n} ≈{}", tokens(*b)))
            .collect();
        let largest_message = self
            .conversation
            .encoded()
            .iter()
            .enumerate()
            .map(|(i, m)| (m.len(), i))
            .max();
        let mut text = format!(
            "the conversation does not fit the model's context window even after compacting: about {} tokens for a window of {}. System prompt ≈{} tokens; {} tool definitions ≈{} tokens",
            tokens(bytes),
            context::group(meter.window()),
            tokens(system),
            definitions.len(),
            tokens(tools_bytes),
        );
        if !largest_tools.is_empty() {
            text.push_str(&format!(" (largest: {})", largest_tools.join(", ")));
        }
        text.push_str(&format!(
            "; {} messages ≈{} tokens",
            self.conversation.len(),
            tokens(self.conversation.encoded_len())
        ));
        if let Some((b, i)) = largest_message {
            text.push_str(&format!(
                " (largest: message {} ≈{} tokens)",
                i + 1,
                tokens(b)
            ));
        }
        text.push_str(&format!(
            ". To go on: resume the session (tack run --resume {}) with a model with a larger window, fewer MCP servers or tools, a smaller outputBudget, or --context-window if tack has the window wrong",
            self.pipeline.session_id()
        ));
        text
    }

    /// Compacts the conversation now (`tack run --compact-now`, a
    /// terminal's `/compact`): old tool results cleared and the older
    /// turns summarised, with `instructions` added to the summary request.
    /// `Ok(None)` when there was nothing to compact.
    pub async fn compact(
        &mut self,
        instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<Option<CompactionReport>, CompactError> {
        let mut run = RunOutcome::new();
        self.compact_with(
            Trigger::Manual,
            instructions,
            "asked for".to_owned(),
            &mut run,
            cancel,
        )
        .await
    }

    /// The compaction stages, cheapest first (see [`crate::context`]).
    /// Records a `compaction` event and runs the PreCompact and PostCompact
    /// hooks. Nothing changes until it is done: a kill mid-way loses nothing.
    async fn compact_with(
        &mut self,
        trigger: Trigger,
        instructions: Option<&str>,
        reason: String,
        run: &mut RunOutcome,
        cancel: &CancellationToken,
    ) -> Result<Option<CompactionReport>, CompactError> {
        let config = self.compaction.clone();
        let mut extra: Vec<String> = config.instructions.iter().cloned().collect();
        extra.extend(instructions.map(str::to_owned));
        if let Some(hooks) = self.hooks.clone() {
            let custom = instructions.map(str::to_owned);
            match hooks
                .pre_compact(trigger.hook_trigger(), custom.as_deref())
                .await
            {
                Ok(added) => extra.extend(added),
                Err(reason) => {
                    tracing::warn!("{reason}");
                    return Err(CompactError::Blocked(reason));
                }
            }
        }
        self.refresh_prefix();
        let static_bytes = self.static_bytes();
        let meter = self.meter().clone();
        let window = meter.window();
        let bytes_for = |tokens: u64| -> usize {
            let per_byte = meter.estimate(1_000_000) as f64 / 1_000_000.0;
            (tokens as f64 / per_byte.max(1e-6)) as usize
        };
        let before = meter.estimate(static_bytes + self.conversation.encoded_len());
        let mut target = (window as f64 * config.target_percent / 100.0) as u64;
        if trigger == Trigger::Overflow {
            // The API says it did not fit, whatever the estimate says: halve it.
            target = target.min(before / 2);
        }
        let threshold = config.threshold.tokens(window).min(window);
        let mut messages = self.conversation.messages().to_vec();
        let mut size: usize = self.conversation.encoded_len();
        let mut replaced = Vec::new();
        let mut stages = Vec::new();
        let mut cleared = 0u32;
        let store = config.artifacts.as_deref();
        // 1. Old tool results: the newest kept whole unless that is not enough.
        for keep in [config.keep_tool_results, 1] {
            let over = meter.estimate(static_bytes + size).saturating_sub(target);
            if over == 0 && trigger != Trigger::Manual {
                break;
            }
            if keep == 1 && meter.estimate(static_bytes + size) <= threshold {
                break;
            }
            let need = if trigger == Trigger::Manual {
                usize::MAX
            } else {
                bytes_for(over)
            };
            for change in context::plan_clear(&messages, keep, need, store) {
                cleared += change.results;
                size = size - context::message_bytes(&messages[change.index])
                    + context::message_bytes(&change.message);
                replaced.push(change.index);
                messages[change.index] = change.message;
            }
        }
        if cleared > 0 {
            stages.push("tool_results".to_owned());
        }
        // 2. A summary of the older turns.
        let mut summary = None;
        let mut summarized = 0u32;
        let mut summary_usage = None;
        // Only when clearing could not bring the request under the
        // threshold (or when asked): a summary costs a model request.
        if trigger == Trigger::Manual || meter.estimate(static_bytes + size) > threshold {
            // Asked for: everything before the last assistant turn.
            let keep_bytes = if trigger == Trigger::Manual {
                0
            } else {
                bytes_for(window / 5)
            };
            if let Some(cut) = context::plan_summary(&messages, keep_bytes) {
                let mut prompt = context::SUMMARY_PROMPT.to_owned();
                for e in &extra {
                    prompt.push_str("\n\nAdditional instructions: ");
                    prompt.push_str(e);
                }
                let room = bytes_for(window * 9 / 10)
                    .saturating_sub(static_bytes)
                    .saturating_sub(bytes_for(u64::from(self.config.max_tokens)));
                let mut summary_request = self.request();
                summary_request.system = self.config.system.clone().map(SystemPrompt::Text);
                summary_request.tools = self
                    .prefix
                    .tools()
                    .map(|t| t.definitions().to_vec())
                    .unwrap_or_default();
                summary_request.messages = context::summary_request(&messages, cut, &prompt, room);
                summary_request.tool_choice = Some(ToolChoice::None);
                let quiet = |_: StreamEvent| {};
                let answer = tokio::select! {
                    answer = self.client.complete(&summary_request, &quiet) => answer,
                    () = cancel.cancelled() => return Err(CompactError::Interrupted),
                };
                let text = match answer {
                    Ok(turn) => {
                        run.usage.add(&turn.response.usage);
                        self.session_usage.add(&turn.response.usage);
                        summary_usage = Some(turn.response.usage.clone());
                        let text = turn.response.to_message().text();
                        if text.trim().is_empty() {
                            Err("the summary request returned no text".to_owned())
                        } else {
                            Ok(text)
                        }
                    }
                    Err(e) => Err(e.to_string()),
                };
                match &text {
                    Ok(t) => {
                        messages = context::rebuild(&messages, cut, Ok(t));
                        stages.push("summary".to_owned());
                        summary = Some(t.clone());
                    }
                    Err(why) => {
                        tracing::warn!(
                            "the summary request failed ({why}); older turns are replaced by a list of what they did"
                        );
                        messages = context::rebuild(&messages, cut, Err(why));
                        stages.push("fallback".to_owned());
                    }
                }
                summarized = cut as u32;
                size = messages.iter().map(context::message_bytes).sum();
            }
        }
        if stages.is_empty() {
            return Ok(None);
        }
        let after = meter.estimate(static_bytes + size);
        self.events.emit(&SessionEvent::Compaction {
            trigger: trigger.as_str().to_owned(),
            reason,
            stages: stages.clone(),
            tokens_before: before,
            tokens_after: after,
            cleared_tool_results: cleared,
            summarized_messages: summarized,
            summary: summary.clone(),
            usage: summary_usage,
            messages: messages.clone(),
        });
        if summarized > 0 {
            self.conversation.reset(messages);
            self.pin_unreferenced();
        } else {
            for index in replaced {
                self.conversation.replace(index, messages[index].clone());
            }
        }
        if let Some(hooks) = self.hooks.clone() {
            hooks
                .post_compact(trigger.hook_trigger(), summary.as_deref())
                .await;
        }
        Ok(Some(CompactionReport {
            trigger,
            stages,
            tokens_before: before,
            tokens_after: after,
            cleared_tool_results: cleared,
            summarized_messages: summarized,
            summary,
        }))
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
        let error = match (&run.error, &run.error_text) {
            (Some(e), Some(why)) => Some(format!("{e}: {why}")),
            (Some(e), None) => Some(e.to_string()),
            (None, why) => why.clone(),
        };
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

fn describe_threshold(threshold: context::Threshold) -> String {
    match threshold {
        context::Threshold::Percent(p) => format!("{p}%"),
        context::Threshold::Tokens(n) => format!("{}-token", context::group(n)),
    }
}

/// What the loop does after a response.
enum Next {
    /// Send the next request.
    Ask,
    /// End the run, with a reason for a hook stop.
    Finish(RunStatus, Option<String>),
}
