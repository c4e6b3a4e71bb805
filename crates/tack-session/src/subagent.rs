//! Sub-agents: the `Agent` tool delegates a task to a nested session and
//! gives back only its conclusion.
//!
//! ```text
//!  parent loop ─► Agent call ─► pipeline (validate: known subagent_type) ─► execute
//!                                  │
//!     Link::run: a fresh tack_agent::Agent, its own conversation and transcript
//!       tools    = the parent's registry, cut to the definition's `tools` less its
//!                  `disallowedTools` (never Agent); entries name tools as
//!                  permission rules do: `Read`, `mcp__srv`, `mcp__srv__*`, `prefix*`
//!       pipeline = Pipeline::for_subagent: the parent's permission stage (rules,
//!                  asks, "always allow" answers), narrowed by the definition
//!                  (`permissionMode`, `disallowedTools: Bash(rm *)` as deny rules:
//!                  only ever stricter), budget and timeout; the parent's hooks
//!                  bound to the sub-agent (agent_id, agent_type in payloads),
//!                  and the definition's own `hooks`
//!       refused  = a restriction that cannot be applied (a deny rule that does not
//!                  parse, hooks a repository wrote in a project not trusted, hooks
//!                  turned off): the sub-agent does not start, the error names the
//!                  file and the key
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
    /// The session's hooks as a runner even when there are none (it may
    /// be turned off), which an agent's own hooks are added to.
    pub hook_base: Arc<HookRunner>,
    /// Project agent definitions' hooks may run (`--trust-project-settings`).
    pub trust_project_hooks: bool,
    /// Where an agent's deny rules are read from: the working directory,
    /// the project root, the home directory.
    pub rule_base: (PathBuf, PathBuf, Option<PathBuf>),
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
        // Everything the definition restricts, before anything starts: a
        // restriction that cannot be applied stops the sub-agent here.
        let chosen = subset(&parent.registry(), &definition);
        for warning in &chosen.warnings {
            tracing::warn!("{warning}");
        }
        let refuse = |why: String| {
            tracing::warn!("{why}");
            ToolError::Unavailable(why)
        };
        let narrowing = narrowing(&definition, &chosen.deny_rules, wiring).map_err(refuse)?;
        let hooks: Arc<dyn HookStage> = match (&definition.hooks, &definition.file) {
            (Some((value, line)), Some(file)) => {
                let shown = file.display();
                if definition.from_project && !wiring.trust_project_hooks {
                    return Err(refuse(format!(
                        "{shown}:{line}: hooks: the project's agent {agent_type:?} has hooks, commands the repository wrote, and tack runs a project's hooks only when you trust it (run tack with --trust-project-settings); the agent was not started, since its hooks may be what keeps it safe. Do the task without it, or ask the person"
                    )));
                }
                let runner = wiring
                    .hook_base
                    .for_subagent_adding(&agent_id, &agent_type, &shown.to_string(), value)
                    .map_err(|e| {
                        refuse(format!(
                            "{shown}:{line}: hooks: the agent's hooks cannot run ({e}); the agent was not started, since its hooks may be what keeps it safe"
                        ))
                    })?;
                Arc::new(runner)
            }
            _ => match &wiring.hooks {
                Some(hooks) => Arc::new(hooks.for_subagent(&agent_id, &agent_type)),
                None => Arc::new(NoHooks),
            },
        };
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
        let mut registry = chosen.registry;
        for tool in wiring
            .builtins
            .as_ref()
            .map(|make| make())
            .unwrap_or_default()
        {
            registry.replace_instance(tool);
        }
        let pipeline = parent
            .for_subagent(registry, hooks, events.clone(), narrowing)
            .map_err(|e| {
                ToolError::Unavailable(format!("the {agent_type} agent was not started: {e}"))
            })?;
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

/// The tools a sub-agent gets, and what its definition's lists say
/// besides.
struct Subset {
    registry: ToolRegistry,
    /// `disallowedTools` entries with a specifier (`Bash(rm *)`): deny
    /// rules for the sub-agent's calls.
    deny_rules: Vec<String>,
    /// Entries that name no tool, each `file:line: …` with the closest name.
    warnings: Vec<String>,
}

/// Whether the `tools`/`disallowedTools` entry `entry` names `tool`, as a
/// permission rule names tools: the name itself; `mcp__srv` or
/// `mcp__srv__*` every tool of the MCP server `srv` (by its name there, or
/// the name it is called by); `prefix*` every name starting with `prefix`.
fn names_tool(entry: &str, tool: &tack_tool::RegisteredTool) -> bool {
    let name = tool.tool.name();
    if entry == name {
        return true;
    }
    let server = entry
        .strip_prefix("mcp__")
        .and_then(|rest| match rest.split_once("__") {
            None => Some(rest),
            Some((server, "*")) => Some(server),
            Some(_) => None,
        });
    if let Some(server) = server {
        return name.starts_with(&format!("mcp__{server}__"))
            || tool.tool.mcp_origin().is_some_and(|(s, _)| s == server);
    }
    entry
        .strip_suffix('*')
        .is_some_and(|prefix| !prefix.is_empty() && name.starts_with(prefix))
}

/// An entry that names the Agent tool (`Agent`, `Task`, `Agent(worker)`):
/// sub-agents get no Agent tool whatever their list says.
fn names_agent(entry: &str) -> bool {
    let tool = entry.split_once('(').map_or(entry, |(t, _)| t).trim();
    tool == AGENT_TOOL || tool == "Task"
}

/// The parent's tools a sub-agent gets: those its definition names (all
/// when it names none), less `disallowedTools`, never the Agent tool.
fn subset(parent: &ToolRegistry, definition: &AgentDefinition) -> Subset {
    let mut registry = ToolRegistry::clone(parent);
    let all = registry.names();
    let known: Vec<&str> = all.iter().map(String::as_str).collect();
    let file = definition
        .file
        .as_ref()
        .map_or_else(|| "(built-in)".to_owned(), |f| f.display().to_string());
    let mut warnings = Vec::new();
    let mut warn = |key: &str, line: Option<&usize>, entry: &str, what: &str| {
        let near = tack_protocol::suggest::closest(entry, &known)
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        warnings.push(format!(
            "{file}:{}: the agent {:?}'s {key} entry `{entry}` names no tool of this session{near}; {what}",
            line.copied().unwrap_or(1),
            definition.name
        ));
    };
    let matching = |entry: &str| -> Vec<String> {
        all.iter()
            .filter(|n| registry.get(n).is_some_and(|t| names_tool(entry, t)))
            .cloned()
            .collect()
    };
    let mut keep: Vec<String> = match &definition.tools {
        None => all.clone(),
        Some(entries) => {
            let mut keep = Vec::new();
            for (i, entry) in entries.iter().enumerate() {
                if names_agent(entry) {
                    continue;
                }
                let line = definition.tool_lines.0.get(i);
                if entry.contains('(') {
                    warn(
                        "tools",
                        line,
                        entry,
                        "a tools entry takes no specifier, so nothing is given for it (name the tool, and put what it must not do in disallowedTools, e.g. `Bash(rm *)`)",
                    );
                    continue;
                }
                let found = matching(entry);
                if found.is_empty() {
                    warn("tools", line, entry, "nothing is given for it");
                }
                keep.extend(found);
            }
            keep
        }
    };
    let mut deny_rules = Vec::new();
    for (i, entry) in definition.disallowed_tools.iter().enumerate() {
        let line = definition.tool_lines.1.get(i);
        if names_agent(entry) {
            continue;
        }
        if let Some((tool, _)) = entry.split_once('(') {
            // A rule for some of the tool's calls: the tool stays, and the
            // rule denies those calls of this sub-agent.
            deny_rules.push(entry.clone());
            if !all.iter().any(|n| n == tool.trim()) {
                warn(
                    "disallowedTools",
                    line,
                    tool.trim(),
                    "its rule is kept as a deny rule",
                );
            }
            continue;
        }
        let mut found = matching(entry);
        if found.is_empty() {
            // Written in another case (`write`): removed all the same, since
            // leaving a tool the author meant to take away is the worse mistake.
            found = all
                .iter()
                .filter(|n| n.eq_ignore_ascii_case(entry))
                .cloned()
                .collect();
            if found.is_empty() {
                warn("disallowedTools", line, entry, "nothing is removed for it");
            } else {
                warn(
                    "disallowedTools",
                    line,
                    entry,
                    &format!(
                        "{} is removed, as its name in another case",
                        found.join(", ")
                    ),
                );
            }
        }
        keep.retain(|n| !found.contains(n));
    }
    keep.retain(|n| !names_agent(n));
    registry.retain_named(&keep);
    Subset {
        registry,
        deny_rules,
        warnings,
    }
}

/// What the definition adds to the sub-agent's permission stage: its
/// `permissionMode` and its `disallowedTools` rules; `None` when nothing.
/// `Err` (naming the file and the key) when a rule does not parse.
fn narrowing(
    definition: &AgentDefinition,
    deny_rules: &[String],
    wiring: &Wiring,
) -> Result<Option<tack_agent::permission::Narrowing>, String> {
    if definition.permission_mode.is_none() && deny_rules.is_empty() {
        return Ok(None);
    }
    let source = tack_policy::Source {
        level: if definition.from_project {
            tack_policy::Level::Project
        } else {
            tack_policy::Level::User
        },
        path: definition.file.clone(),
    };
    let deny = if deny_rules.is_empty() {
        None
    } else {
        let (cwd, root, home) = &wiring.rule_base;
        let mut builder = tack_policy::PolicyBuilder::new(cwd.clone())
            .project_root(root.clone())
            .home(home.clone());
        for rule in deny_rules {
            builder = builder.rule(tack_policy::RuleEntry::new(
                rule.as_str(),
                tack_policy::RuleKind::Deny,
                source.clone(),
            ));
        }
        Some(builder.build().map_err(|e| {
            let shown = definition
                .file
                .as_ref()
                .map_or_else(String::new, |f| f.display().to_string());
            format!(
                "{shown}: disallowedTools: {e}; the agent {:?} was not started, since that rule is one of its restrictions",
                definition.name
            )
        })?)
    };
    Ok(Some(tack_agent::permission::Narrowing {
        mode: definition.permission_mode.map(|mode| (mode, source)),
        deny,
    }))
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
