//! Sub-agents: the `Agent` tool delegates a task to a nested session and
//! gives back only its conclusion.
//!
//! ```text
//!  parent loop ─► Agent call ─► pipeline (validate: known subagent_type) ─► execute
//!                                  │
//!     Link::run: a fresh tack_agent::Agent, its own conversation and transcript
//!       tools    = the parent's registry, cut to the definition's `tools` (never Agent)
//!       pipeline = Pipeline::for_subagent: the parent's permission stage (rules,
//!                  asks, "always allow" answers), budget and timeout; the parent's
//!                  hooks bound to the sub-agent (agent_id, agent_type in payloads)
//!       prompt   = the session's prompt builder for those tools + the definition's body
//!       cancel   = the parent call's token: Ctrl-C stops every sub-agent, whose own
//!                  calls are answered "interrupted" before the Agent call is
//!  ◄── final text + one short line; usage → the parent's (Pipeline::add_delegated_usage)
//! ```
//!
//! The Agent tool is concurrency-safe (each sub-agent's own calls go through
//! the wall), so several in one response run together. Sub-agents get no
//! Agent tool: delegation is one level deep.
//!
//! Transcripts: `<sessions>/<parent id>/subagents/agent-<id>.jsonl`, whose
//! first event, `subagent_start`, names the parent session and the parent's
//! tool_use id; the same event, and a `subagent_stop` with the usage, go in
//! the parent's transcript.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_agent::hooks::HookRunner;
use tack_agent::permission::{AskingAgent, as_subagent};
use tack_agent::transcript::TranscriptWriter;
use tack_agent::{AgentConfig, EventBus, HookStage, NoHooks, Pipeline, RunStatus, WeakPipeline};
use tack_model::ModelClient;
use tack_protocol::{ContentBlock, SessionEvent};
use tack_tool::{
    Progress, Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool,
};

use crate::agents::{AgentDefinition, AgentDefinitions, GENERAL_PURPOSE};
use crate::prompt::{Environment, InstructionSources, PromptOptions, SessionPrompt};

/// The tool's name (Claude Code's; it was `Task` before).
pub const AGENT_TOOL: &str = "Agent";

/// How long one sub-agent may run: its own model requests and tools have
/// their own limits, so this only catches a sub-agent that never ends.
const SUBAGENT_TIMEOUT: Duration = Duration::from_secs(6 * 60 * 60);

/// What a sub-agent is made from: set at assembly ([`Link::wire`]) and when
/// the loop starts ([`Link::set_model`]).
pub(crate) struct Link {
    agents: AgentDefinitions,
    parent_id: String,
    sessions_dir: PathBuf,
    wiring: OnceLock<Wiring>,
    model: Mutex<Option<(Arc<dyn ModelClient>, AgentConfig)>>,
}

/// Makes a fresh set of tools.
pub(crate) type MakeTools = Box<dyn Fn() -> Vec<Arc<dyn Tool>> + Send + Sync>;

/// The parent session's parts a sub-agent shares.
pub(crate) struct Wiring {
    pub pipeline: WeakPipeline,
    /// A fresh set of the built-in tools (its own shell: working directory
    /// and background jobs; its own read-file state) sharing the session's
    /// artifact store; `None` when the session has no built-ins.
    pub builtins: Option<MakeTools>,
    pub hooks: Option<Arc<HookRunner>>,
    pub environment: Environment,
    pub instructions: InstructionSources,
    pub prompt: PromptOptions,
}

impl Link {
    pub(crate) fn new(agents: AgentDefinitions, parent_id: &str, sessions_dir: PathBuf) -> Self {
        Self {
            agents,
            parent_id: parent_id.to_owned(),
            sessions_dir,
            wiring: OnceLock::new(),
            model: Mutex::new(None),
        }
    }

    pub(crate) fn wire(&self, wiring: Wiring) {
        if self.wiring.set(wiring).is_err() {
            tracing::warn!("the sub-agent link was wired twice; the first wiring stays");
        }
    }

    /// The model client and configuration of the parent's loop (the last
    /// one started).
    pub(crate) fn set_model(&self, client: Arc<dyn ModelClient>, config: AgentConfig) {
        *self.model.lock().unwrap_or_else(|p| p.into_inner()) = Some((client, config));
    }

    /// The Agent tool over this link.
    pub(crate) fn tool(self: &Arc<Self>) -> AgentTool {
        AgentTool {
            description: describe(&self.agents),
            link: Arc::clone(self),
        }
    }

    fn definition(&self, name: &str) -> Result<&AgentDefinition, ToolError> {
        self.agents.get(name).ok_or_else(|| {
            ToolError::InvalidInput(format!(
                "there is no agent type {name:?}; the agent types are: {}. Call Agent again with one of these as subagent_type (or leave it out for {GENERAL_PURPOSE})",
                self.agents.names_near(name).join(", ")
            ))
        })
    }

    /// One sub-agent, start to end.
    async fn run(&self, input: AgentInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let agent_type = input.agent_type().to_owned();
        let definition = self.definition(&agent_type)?.clone();
        let unavailable =
            || ToolError::Unavailable("the session that runs this Agent tool has ended".into());
        let wiring = self.wiring.get().ok_or_else(unavailable)?;
        let parent = wiring.pipeline.upgrade().ok_or_else(unavailable)?;
        let (client, config) = self
            .model
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| {
                ToolError::Unavailable(
                    "sub-agents run only inside the session's agent loop (Session::agent), and none has started".into(),
                )
            })?;
        let agent_id = uuid::Uuid::now_v7().simple().to_string();
        let path = self
            .sessions_dir
            .join(&self.parent_id)
            .join("subagents")
            .join(format!("agent-{agent_id}.jsonl"));
        let writer = TranscriptWriter::open_file(&path, &agent_id).map_err(|e| {
            ToolError::Internal(format!("the sub-agent's transcript cannot be written: {e}"))
        })?;
        let events = EventBus::new()
            .with(Arc::new(writer))
            .with(Arc::new(progress_reporter(&ctx)));
        let start = SessionEvent::SubagentStart {
            agent_id: agent_id.clone(),
            agent_type: agent_type.clone(),
            description: input.description.clone(),
            parent_session_id: self.parent_id.clone(),
            parent_tool_use_id: ctx.tool_use_id.clone(),
            transcript_path: path.to_string_lossy().into_owned(),
        };
        events.emit(&start);
        parent.events().emit(&start);
        if let Some(hooks) = &wiring.hooks {
            hooks.subagent_start(&agent_id, &agent_type).await;
        }
        let hooks: Arc<dyn HookStage> = match &wiring.hooks {
            Some(hooks) => Arc::new(hooks.for_subagent(&agent_id, &agent_type)),
            None => Arc::new(NoHooks),
        };
        let mut registry = subset(&parent.registry(), &definition);
        for tool in wiring
            .builtins
            .as_ref()
            .map(|make| make())
            .unwrap_or_default()
        {
            registry.replace_instance(tool);
        }
        let pipeline = parent.for_subagent(registry, hooks, events.clone());
        let config = sub_config(config, &definition, wiring, &pipeline);
        let started = Instant::now();
        let mut agent = tack_agent::Agent::new(client, Arc::new(pipeline), config, events.clone());
        let asking = AskingAgent {
            agent_id: agent_id.clone(),
            agent_type: agent_type.clone(),
        };
        let outcome = as_subagent(
            asking,
            agent.run(Some(vec![ContentBlock::text(&input.prompt)]), &ctx.cancel),
        )
        .await;
        let tool_uses = agent
            .messages()
            .iter()
            .map(|m| m.tool_uses().count() as u32)
            .sum::<u32>();
        let duration_ms = started.elapsed().as_millis() as u64;
        parent.add_delegated_usage(&outcome.usage);
        let stop = SessionEvent::SubagentStop {
            agent_id: agent_id.clone(),
            parent_tool_use_id: ctx.tool_use_id.clone(),
            status: outcome.status,
            turns: outcome.turns,
            usage: outcome.usage.clone(),
            tool_uses,
            duration_ms,
            transcript_path: path.to_string_lossy().into_owned(),
        };
        // The parent's record (the sub-agent's own ends with its `result`).
        parent.events().emit(&stop);
        if let Some(hooks) = &wiring.hooks {
            hooks.subagent_stop(&agent_id, &agent_type, &path).await;
        }
        conclude(
            &outcome,
            &Ran {
                agent_id: &agent_id,
                agent_type: &agent_type,
                tool_uses,
                duration_ms,
                prompt: &input.prompt,
                path: &path,
            },
        )
    }
}

/// What a finished sub-agent did, for its Agent call's result.
struct Ran<'a> {
    agent_id: &'a str,
    agent_type: &'a str,
    tool_uses: u32,
    duration_ms: u64,
    prompt: &'a str,
    path: &'a std::path::Path,
}

/// The Agent call's result: the sub-agent's final text and one line for the
/// model; Claude Code's output object (with usage and turns) for hooks,
/// stream-json and embedders. Stopped or failed sub-agents are errors.
fn conclude(outcome: &tack_agent::RunOutcome, ran: &Ran<'_>) -> Result<ToolOutput, ToolError> {
    let Ran {
        agent_id,
        agent_type,
        tool_uses,
        duration_ms,
        prompt,
        path,
    } = *ran;
    let u = &outcome.usage;
    let tokens = u.input_tokens
        + u.output_tokens
        + u.cache_read_input_tokens
        + u.cache_creation_input_tokens;
    let line = format!(
        "[{agent_type} agent {agent_id}: {} model requests, {tool_uses} tool calls, {tokens} tokens]",
        outcome.turns
    );
    let text = match outcome.status {
        RunStatus::Completed if outcome.text.trim().is_empty() => {
            "(The agent ended without a final answer.)".to_owned()
        }
        RunStatus::Completed => outcome.text.clone(),
        RunStatus::Interrupted => {
            return Err(ToolError::Interrupted(format!(
                "the {agent_type} agent was stopped before it finished; its own calls were answered as interrupted. {line}"
            )));
        }
        RunStatus::ModelError => {
            let why = outcome
                .error
                .as_ref()
                .map_or_else(|| "unknown".to_owned(), ToString::to_string);
            return Err(ToolError::Transient(format!(
                "the {agent_type} agent's model request failed: {why}. {line}"
            )));
        }
        other => format!(
            "{}\n\n(The agent stopped before it finished: {}{}.)",
            outcome.text,
            other.as_str(),
            outcome
                .error_text
                .as_ref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ),
    };
    let response = json!({
        "status": "completed",
        "agentId": agent_id,
        "agentType": agent_type,
        "runStatus": outcome.status,
        "content": [{"type": "text", "text": text}],
        "totalToolUseCount": tool_uses,
        "totalDurationMs": duration_ms,
        "totalTokens": tokens,
        "totalTurns": outcome.turns,
        "usage": outcome.usage,
        "prompt": prompt,
        "transcriptPath": path,
    });
    Ok(ToolOutput::text(format!("{text}\n\n{line}"))
        .with_structured(response.clone())
        .with_response(response))
}

/// Each call the sub-agent makes, as a progress report of the Agent call
/// (the terminal's spinner line; `notifications/progress` when served).
fn progress_reporter(ctx: &ToolContext) -> impl Fn(&SessionEvent) + Send + Sync + 'static {
    let sink = ctx.progress.clone();
    let calls = std::sync::atomic::AtomicU64::new(0);
    move |event: &SessionEvent| {
        if let SessionEvent::ToolCall { name, input, .. } = event {
            let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            let input: String = input.to_string().chars().take(80).collect();
            sink.report(Progress {
                progress: n as f64,
                total: None,
                message: Some(format!("{name} {input}")),
            });
        }
    }
}

/// The sub-agent's loop configuration: the parent's, with its own system
/// prompt (the session's builder, for its tools, plus the definition's
/// body), the definition's model, and no forced tool choice.
fn sub_config(
    mut config: AgentConfig,
    definition: &AgentDefinition,
    wiring: &Wiring,
    pipeline: &Pipeline,
) -> AgentConfig {
    let tools: Vec<String> = pipeline
        .registry()
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    let options = if definition.prompt.is_empty() {
        wiring.prompt.clone()
    } else {
        PromptOptions {
            replace: None,
            append: Some(definition.prompt.clone()),
        }
    };
    let prompt = SessionPrompt::build(&wiring.environment, &tools, &wiring.instructions, &options);
    config.system = (!prompt.text().is_empty()).then(|| prompt.text().to_owned());
    if definition.model.is_some() {
        config.model.clone_from(&definition.model);
    }
    config.tool_choice = None;
    config
}

/// The parent's tools a sub-agent gets: those its definition names (all
/// when it names none), less `disallowedTools`, never the Agent tool.
fn subset(parent: &ToolRegistry, definition: &AgentDefinition) -> ToolRegistry {
    let mut registry = ToolRegistry::clone(parent);
    let wanted: Vec<String> = match &definition.tools {
        Some(names) => names.clone(),
        None => registry.names(),
    };
    let keep: Vec<String> = wanted
        .into_iter()
        .filter(|n| {
            n != AGENT_TOOL && n != "Task" && !n.starts_with("Agent(") && !n.starts_with("Task(")
        })
        .filter(|n| !definition.disallowed_tools.contains(n))
        .collect();
    let unknown = registry.retain_named(&keep);
    if !unknown.is_empty() {
        tracing::warn!(
            "the agent {:?} names tools this session does not have, left out: {}",
            definition.name,
            unknown.join(", ")
        );
    }
    registry
}

/// The Agent tool's description: when to delegate, and the agent types.
fn describe(agents: &AgentDefinitions) -> String {
    let mut text = String::from(
        "Starts a sub-agent: a separate model session that works on one task with its own tools and its own context, and returns only its final answer, followed by one line naming the agent and the model requests, tool calls and tokens it used.\n\
         Use it for broad searches (finding where something is defined or used when it may take several tries), for independent sub-tasks, and to keep your own context lean: the sub-agent's reading and intermediate results never enter this conversation.\n\
         Do not use it for a single file read or a search you can do in one call; call that tool directly.\n\
         The sub-agent sees nothing of this conversation: write a self-contained prompt with the goal, what you already know (paths, names, constraints) and exactly what its answer must contain. Its answer comes back as this tool's result; the person does not see it, so report what matters yourself.\n\
         Several Agent calls in one response run at the same time. The sub-agent's tool calls meet the same permission rules and hooks as yours. Sub-agents cannot start sub-agents.\n\n\
         Agent types (subagent_type):\n",
    );
    for agent in agents.all() {
        let tools = match &agent.tools {
            Some(t) if t.is_empty() => "no tools".to_owned(),
            Some(t) => format!("tools: {}", t.join(", ")),
            None => "all tools".to_owned(),
        };
        text.push_str(&format!(
            "- {}: {} ({tools})\n",
            agent.name,
            agent.description.trim()
        ));
    }
    text
}

// The Agent tool's input (Claude Code's `AgentInput`). Not a doc comment:
// it would go to the model in the schema.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AgentInput {
    /// A short (3-5 word) description of the task, e.g. "Find config loaders".
    pub description: String,
    /// The task for the agent, self-contained: the agent sees nothing of this conversation.
    pub prompt: String,
    /// The type of agent to use, one of the types listed in the description; default "general-purpose".
    pub subagent_type: Option<String>,
}

impl AgentInput {
    fn agent_type(&self) -> &str {
        self.subagent_type
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or(GENERAL_PURPOSE)
    }
}

/// The Agent tool.
pub(crate) struct AgentTool {
    description: String,
    link: Arc<Link>,
}

#[async_trait::async_trait]
impl TypedTool for AgentTool {
    type Input = AgentInput;

    fn name(&self) -> &str {
        AGENT_TOOL
    }

    fn description(&self) -> &str {
        &self.description
    }

    /// Each sub-agent's own calls go through the pipeline, so sub-agents run together.
    fn is_concurrency_safe(&self, _input: &AgentInput) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            open_world: true,
            ..ToolAnnotations::default()
        }
    }

    fn timeout(&self) -> Option<Duration> {
        Some(SUBAGENT_TIMEOUT)
    }

    fn validate(&self, input: &AgentInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.prompt.trim().is_empty() {
            return Err(ToolError::InvalidInput(
                "prompt is empty; give the agent its whole task".into(),
            ));
        }
        self.link.definition(input.agent_type()).map(|_| ())
    }

    async fn call(&self, input: AgentInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        // Its own task: if the call is abandoned (cancelled and its grace
        // spent), the sub-agent still answers its calls and ends its transcript.
        let link = Arc::clone(&self.link);
        tokio::spawn(async move { link.run(input, ctx).await })
            .await
            .map_err(|e| ToolError::Internal(format!("the sub-agent's task failed: {e}")))?
    }
}
