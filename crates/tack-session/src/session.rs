//! Assembly and lifecycle: settings (with what the project file asks for
//! that needs approval asked about first) and tool sources → one registry,
//! one dispatch pipeline with its stages → a session that begins
//! (SessionStart event and hooks, once), runs the loop, and ends (SessionEnd
//! hooks, sources shut down, once).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tack_agent::budget::OutputBudget;
use tack_agent::hooks::HookRunner;
use tack_agent::permission::{PolicyStage, Prompter};
use tack_agent::transcript::{self, LoadedSession};
use tack_agent::{Agent, AgentConfig, EventBus, Pipeline, RunOutcome};
use tack_hooks::HookContext;
use tack_model::ModelClient;
use tack_protocol::{ContentBlock, SessionEvent};
use tack_tool::artifacts::ArtifactStore;
use tack_tool::{ToolRegistry, TypedTool};
use tokio_util::sync::CancellationToken;

use crate::agents::AgentDefinitions;
use crate::error::{Error, Result};
use crate::interaction::{Headless, Interaction, InteractionPrompter};
use crate::project::ProjectContext;
use crate::prompt::{Environment, PromptOptions, SessionPrompt};
use crate::sources::{
    Builtins, LivePolicy, RustTools, SourceContext, ToolSource, default_sources, source_error,
};
use crate::subagent::{Link, Wiring};
use crate::tool_search::{Deferral, DeferralReport, ToolSearchMode};

/// What a session is assembled from.
pub struct SessionOptions {
    pub session_id: String,
    /// The tool sources, in the order their tools are registered.
    pub sources: Vec<Arc<dyn ToolSource>>,
    /// Only these tools (`--tools`); an unknown name is an error.
    pub only_tools: Option<Vec<String>>,
    /// Who answers questions (default: [`Headless`]).
    pub interaction: Arc<dyn Interaction>,
    /// Where the session's events go (transcript, printer…).
    pub events: EventBus,
    /// A replacement or an addition to tack's system prompt.
    pub prompt: PromptOptions,
    /// The environment the system prompt describes (default: detected).
    pub environment: Option<Environment>,
    /// Whether the session has the Agent tool (sub-agents; see
    /// [`crate::subagent`]). Default: no.
    pub subagents: bool,
    /// Tool search's mode, over the settings' (`--tool-search`).
    pub tool_search: Option<ToolSearchMode>,
    /// Code mode on (`--code-mode`), over the settings' `codeMode.enabled`.
    pub code_mode: bool,
    /// The context window of the model the session will talk to, when
    /// known: `auto` tool search measures the MCP tools against it
    /// (default: the `compaction.contextWindow` setting, else 200,000).
    pub context_window: Option<u64>,
}

impl SessionOptions {
    /// A new session with the default sources (built-ins, then MCP servers
    /// that need no approval), headless, with no event consumers.
    pub fn new(session_id: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            sources: default_sources(false),
            only_tools: None,
            interaction: Arc::new(Headless),
            events: EventBus::new(),
            prompt: PromptOptions::default(),
            environment: None,
            subagents: false,
            tool_search: None,
            code_mode: false,
            context_window: None,
        }
    }

    /// Tool search's mode, over what the settings say (`--tool-search`).
    pub fn tool_search(mut self, mode: Option<ToolSearchMode>) -> Self {
        self.tool_search = mode;
        self
    }

    /// Adds the Code tool (`--code-mode`), whatever `codeMode.enabled` says.
    pub fn code_mode(mut self, on: bool) -> Self {
        self.code_mode = on;
        self
    }

    /// The context window of the session's model (for `auto` tool
    /// search's share of it).
    pub fn context_window(mut self, window: Option<u64>) -> Self {
        self.context_window = window;
        self
    }

    /// Adds the Agent tool: sub-agents from the agent definitions of the
    /// project and the user ([`crate::agents`]), or the built-in one.
    pub fn subagents(mut self, on: bool) -> Self {
        self.subagents = on;
        self
    }

    /// A new session id (UUIDv7: sorts by time).
    pub fn new_id() -> String {
        uuid::Uuid::now_v7().to_string()
    }

    /// Replaces the sources.
    pub fn sources(mut self, sources: Vec<Arc<dyn ToolSource>>) -> Self {
        self.sources = sources;
        self
    }

    /// Adds a source after the others.
    pub fn source(mut self, source: Arc<dyn ToolSource>) -> Self {
        self.sources.push(source);
        self
    }

    /// Adds one typed Rust tool (sent to the model).
    pub fn tool<T: TypedTool>(self, tool: T) -> Self {
        self.source(Arc::new(RustTools::new().typed(tool)))
    }

    pub fn interaction(mut self, interaction: Arc<dyn Interaction>) -> Self {
        self.interaction = interaction;
        self
    }

    pub fn events(mut self, events: EventBus) -> Self {
        self.events = events;
        self
    }

    pub fn only_tools(mut self, names: Option<Vec<String>>) -> Self {
        self.only_tools = names;
        self
    }

    /// Replaces the whole system prompt tack would send (environment, tool
    /// use, instruction files) with `text` (`--system-prompt`).
    pub fn system_prompt(mut self, text: impl Into<String>) -> Self {
        self.prompt.replace = Some(text.into());
        self
    }

    /// Adds `text` at the end of the system prompt (`--append-system-prompt`).
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.prompt.append = Some(text.into());
        self
    }

    /// The environment the system prompt describes, instead of the one
    /// detected (tests: a fixed date, platform and shell).
    pub fn environment(mut self, environment: Environment) -> Self {
        self.environment = Some(environment);
        self
    }
}

/// How a session begins, for its `session_start` event and hooks.
#[derive(Debug, Clone, Default)]
pub struct Begin {
    /// The model provider, or who the client is (`mcp-client`).
    pub provider: String,
    pub model: String,
    /// A resumed session (SessionStart hooks get `resume`, else `startup`).
    pub resumed: bool,
}

/// Changes a session's permission mode ([`Session::mode_switch`]).
#[derive(Clone)]
pub struct ModeSwitch {
    stage: Arc<PolicyStage>,
    bypass_disabled: Option<String>,
}

impl std::fmt::Debug for ModeSwitch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModeSwitch")
            .field("mode", &self.get())
            .finish_non_exhaustive()
    }
}

impl ModeSwitch {
    /// The mode in force.
    pub fn get(&self) -> tack_policy::Mode {
        self.stage.mode()
    }

    /// Sets the mode; `bypassPermissions` is refused where
    /// `disableBypassPermissionsMode` says so.
    pub fn set(&self, mode: tack_policy::Mode) -> std::result::Result<(), String> {
        if mode == tack_policy::Mode::BypassPermissions
            && let Some(source) = &self.bypass_disabled
        {
            return Err(format!(
                "bypassPermissions is disabled by `permissions.disableBypassPermissionsMode` in {source}"
            ));
        }
        self.stage.set_mode(mode);
        Ok(())
    }
}

/// An assembled session.
pub struct Session {
    id: String,
    cwd: std::path::PathBuf,
    pipeline: Pipeline,
    hooks: Option<Arc<HookRunner>>,
    sources: Vec<Arc<dyn ToolSource>>,
    events: EventBus,
    begun: AtomicBool,
    ended: AtomicBool,
    /// Built once at assembly; every request of the session sends it as is.
    prompt: SessionPrompt,
    /// How the conversation is kept inside the window (settings and the
    /// session's artifact store, where cleared tool results go).
    compaction: tack_agent::CompactionConfig,
    /// What [`Session::client_pipeline`] builds a client's tools from.
    recipe: ClientRecipe,
    /// What tool search deferred.
    tool_search: DeferralReport,
    /// The Agent tool's way to the session's loop, when it has one.
    subagents: Option<Arc<Link>>,
    /// The permission stage, for a mode changed during the session.
    permission: Arc<PolicyStage>,
    /// Where `disableBypassPermissionsMode` forbids bypassPermissions.
    bypass_disabled: Option<String>,
}

/// Gives the tools of `registry` the example inputs of the settings
/// (`inputExamples`, see [`crate::settings::ToolExamples`]), replacing their
/// own; returns what is wrong, each naming the file, the line and the tool:
/// a name that is no tool of the session (with the closest tool name), an
/// example that does not match the tool's input schema (left out, the
/// others kept). Applied once, when the session is assembled, to the tools
/// registered then: an MCP server's tools announced later (`list_changed`)
/// keep their own examples.
fn apply_input_examples(
    registry: &mut ToolRegistry,
    settings: &std::collections::BTreeMap<String, crate::settings::ToolExamples>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (name, set) in settings {
        let mut examples = set.examples.clone();
        let mut numbers = set.numbers.clone();
        // Each refusal names one example: leave it out and try the rest.
        loop {
            match registry.set_input_examples(name, examples.clone()) {
                Ok(()) => break,
                Err(tack_tool::RegistryError::BadExample { index, message, .. })
                    if (1..=examples.len()).contains(&index) =>
                {
                    examples.remove(index - 1);
                    let number = if index <= numbers.len() {
                        numbers.remove(index - 1)
                    } else {
                        index
                    };
                    warnings.push(format!(
                        "{}: inputExamples.{name} example {number} does not match the tool's input schema ({message}); it is left out",
                        set.at
                    ));
                }
                Err(tack_tool::RegistryError::NotFound(_)) => {
                    let names = registry.names();
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    let hint = tack_policy::lint::closest(name, &names)
                        .map(|n| format!("; did you mean \"{n}\"?"))
                        .unwrap_or_default();
                    warnings.push(format!(
                        "{}: inputExamples names no tool of this session: \"{name}\"{hint}",
                        set.at
                    ));
                    break;
                }
                Err(e) => {
                    warnings.push(format!("{}: inputExamples.{name}: {e}", set.at));
                    break;
                }
            }
        }
    }
    warnings
}

/// What a client's own built-in tools and artifact store are made from.
struct ClientRecipe {
    project: ProjectContext,
    /// The session's policy as it stands (shared with its permission stage).
    policy: LivePolicy,
    /// Whether the session has the built-in tools at all.
    builtins: bool,
    next: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("pipeline", &self.pipeline)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Loads every source into one registry and builds the pipeline: the
    /// policy of `project`, its hooks, the output budget, the interaction
    /// for asks. Starts no model. First, what the project settings file asks
    /// for that is not approved is put to the person (yes is recorded); when
    /// nobody can be asked, or the answer is no, it stays out and a notice
    /// says what and how to approve it.
    pub async fn assemble(project: &ProjectContext, options: SessionOptions) -> Result<Session> {
        let SessionOptions {
            session_id,
            sources,
            only_tools,
            interaction,
            events,
            prompt,
            environment,
            subagents,
            tool_search,
            code_mode,
            context_window,
        } = options;
        let approved;
        let project = if project.settings.unapproved.is_empty() {
            project
        } else {
            approved = settle_project_settings(project, interaction.as_ref()).await?;
            &approved
        };
        let settings = &project.settings;
        let artifacts = Arc::new(ArtifactStore::for_session(&project.state_dir, &session_id));
        let policy = settings.permissions.policy_for_cwd(&project.cwd)?;
        // One cell for the permission stage and the tools that apply the
        // policy themselves (the search tools' filter), so a rule added
        // during the session reaches both.
        let live_policy: LivePolicy = Arc::new(std::sync::RwLock::new(policy.clone()));
        let recipe = ClientRecipe {
            project: project.clone(),
            policy: Arc::clone(&live_policy),
            builtins: sources.iter().any(|s| s.name() == Builtins::NAME),
            next: std::sync::atomic::AtomicU64::new(1),
        };
        let cx = SourceContext {
            project,
            session_id: &session_id,
            artifacts: &artifacts,
            policy: &policy,
            live_policy: &live_policy,
            interaction: &interaction,
            events: &events,
        };
        let mut registry = ToolRegistry::new();
        for source in &sources {
            for sourced in source.load(&cx).await? {
                match registry.register_as(sourced.tool, sourced.exposure) {
                    Ok(()) => {}
                    Err(e) if source.strict() => return Err(source_error(source.as_ref(), e)),
                    Err(e) => interaction.notice(&format!(
                        "a tool of the {} was left out: {e}",
                        source.name()
                    )),
                }
            }
        }
        let link = subagents.then(|| {
            let agents = AgentDefinitions::load(&project.agent_dirs());
            for notice in agents.notices() {
                interaction.notice(notice);
            }
            Arc::new(Link::new(agents, &session_id, project.sessions_dir()))
        });
        if let Some(link) = &link
            && let Err(e) = registry.register_typed(link.tool())
        {
            interaction.notice(&format!("the Agent tool was left out: {e}"));
        }
        for warning in apply_input_examples(&mut registry, &settings.input_examples) {
            interaction.notice(&warning);
        }
        if let Some(mut names) = only_tools {
            // ToolSearch joins below when something is deferred, Code when
            // code mode is on.
            names.retain(|n| {
                n.trim() != tack_tools::tool_search::tool::NAME
                    && n.trim() != tack_codemode::tool::NAME
            });
            keep_only(&mut registry, &names)?;
        }
        // A tool every call of which a deny rule refuses is not offered, as
        // in Claude Code (`deny mcp__db__drop_table`, `--disallowed-tools
        // WebFetch`): its definition would be paid for in every request, and
        // a call of it could only fail. Not in code mode's `tools` either.
        let offered: Vec<String> = registry
            .names()
            .into_iter()
            .filter(|name| !refused_outright(&registry, &policy, name))
            .collect();
        if offered.len() < registry.names().len() {
            registry.retain_named(&offered);
        }
        if code_mode || settings.code_mode.enabled {
            let mut code = settings.code_mode.clone();
            code.enabled = true;
            if let Err(e) = crate::code_mode::apply(&code, &mut registry) {
                interaction.notice(&format!("the Code tool was left out: {e}"));
            }
        }
        let mut deferral = Deferral::new(&settings.tool_search, tool_search, &settings.mcp_servers);
        let window = context_window
            .or(settings.compaction.context_window)
            .unwrap_or(DEFAULT_WINDOW);
        let tool_search = deferral.apply(&mut registry, window);
        let searchable = registry.has_deferred();
        if searchable {
            let refused = |name: &str| refused_outright(&registry, &policy, name);
            let search = tack_tools::tool_search::tool::ToolSearch::new(&registry, &refused);
            if let Err(e) = registry.register(Arc::new(search)) {
                interaction.notice(&format!("the ToolSearch tool was left out: {e}"));
            }
        }
        if tool_search.deferred > 0 {
            tracing::info!(
                "tool search defers {} tools (~{} tokens); all tools ~{} tokens, threshold {}",
                tool_search.deferred,
                tool_search.deferred_tokens,
                tool_search.tools_tokens,
                tool_search.threshold_tokens
            );
        }
        let environment = environment.unwrap_or_else(|| {
            let additional = policy
                .working_dirs()
                .into_iter()
                .skip(1)
                .map(std::path::Path::to_owned)
                .collect();
            Environment::detect(&project.cwd, additional)
        });
        // The tools sent to the model now (one found later is not named:
        // the prompt does not change within a session).
        let sent: Vec<String> = registry.definitions().into_iter().map(|d| d.name).collect();
        let mut instructions = project.instructions.clone();
        instructions
            .project_root
            .get_or_insert_with(|| project.project_root.clone());
        if instructions.gate.0.is_none() {
            instructions.gate = prompt_gate(
                policy.clone(),
                project.cwd.clone(),
                project.project_root.clone(),
            );
        }
        let prompt_options = prompt;
        let prompt = SessionPrompt::build(&environment, &sent, &instructions, &prompt_options);
        for warning in prompt.warnings() {
            interaction.notice(warning);
        }

        let prompter: Option<Arc<dyn Prompter>> = interaction
            .can_ask()
            .then(|| Arc::new(InteractionPrompter(Arc::clone(&interaction))) as _);
        let permission = PolicyStage::sharing(
            live_policy,
            project.cwd.clone(),
            project.project_root.clone(),
            prompter,
            Some(project.reloader()),
        )
        .with_sandbox(crate::sandbox::permissions(project));
        let permission = Arc::new(permission);
        let hook_base = {
            let (mode, _) = settings.permissions.mode();
            Arc::new(
                HookRunner::new(
                    settings.hooks.clone(),
                    HookContext {
                        session_id: session_id.clone(),
                        transcript_path: project.sessions_dir().join(format!("{session_id}.jsonl")),
                        cwd: project.cwd.clone(),
                        permission_mode: mode.as_str().to_owned(),
                        project_dir: project.project_root.clone(),
                        agent: None,
                    },
                )
                // The mode in force when a hook runs (Shift-Tab can change it).
                .with_mode({
                    let stage = Arc::clone(&permission);
                    Arc::new(move || stage.mode().as_str().to_owned())
                }),
            )
        };
        let hooks = (!settings.hooks.is_empty()).then(|| Arc::clone(&hook_base));
        let mut builder = Pipeline::builder(Arc::new(registry), project.cwd.clone(), &session_id)
            .events(events.clone())
            .permission(Arc::clone(&permission) as _)
            .budget(Arc::new(output_budget(project, Arc::clone(&artifacts))));
        if let Some(hooks) = &hooks {
            builder = builder.hooks(hooks.clone());
            permission.set_hooks(hooks);
        }
        let pipeline = builder.build();
        let rule_base = (
            project.cwd.clone(),
            project.project_root.clone(),
            policy.home().map(std::path::Path::to_path_buf),
        );
        let trust_project_hooks = project.trusts_project();
        if let Some(link) = &link {
            let (project, policy) = (recipe.project.clone(), Arc::clone(&recipe.policy));
            let artifacts = Arc::clone(&artifacts);
            let has_builtins = recipe.builtins;
            let sources = sources.clone();
            let builtins = Some(Box::new(move || {
                let mut tools = if has_builtins {
                    Builtins::tools(&project, &policy, &artifacts)
                } else {
                    Vec::new()
                };
                tools.extend(sources.iter().flat_map(|s| s.conversation_tools()));
                tools
            }) as _);
            link.wire(Wiring {
                pipeline: pipeline.downgrade(),
                builtins,
                hooks: hooks.clone(),
                hook_base,
                trust_project_hooks,
                rule_base,
                environment: environment.clone(),
                instructions: instructions.clone(),
                prompt: prompt_options.clone(),
            });
        }
        // Tools that join later are deferred as the session decided, when
        // there is a ToolSearch to find them.
        let later = searchable.then_some(deferral);
        for source in &sources {
            if let Some(updates) = source.updates() {
                follow(updates, &pipeline, later.clone());
            }
        }
        Ok(Session {
            id: session_id,
            cwd: project.cwd.clone(),
            pipeline,
            hooks,
            sources,
            events,
            begun: AtomicBool::new(false),
            ended: AtomicBool::new(false),
            prompt,
            compaction: settings.compaction.config(Some(artifacts.clone())),
            recipe,
            subagents: link,
            tool_search,
            permission,
            bypass_disabled: project
                .settings
                .permissions
                .bypass_disabled_by()
                .map(ToString::to_string),
        })
    }

    /// The permission mode in force.
    pub fn permission_mode(&self) -> tack_policy::Mode {
        self.permission.mode()
    }

    /// Changes the permission mode for the rest of the session (the
    /// interactive terminal's Shift-Tab); the rules stay as they are. Not
    /// written to any file. `bypassPermissions` is refused where the
    /// settings disable it.
    pub fn set_permission_mode(&self, mode: tack_policy::Mode) -> std::result::Result<(), String> {
        self.mode_switch().set(mode)
    }

    /// A handle that changes the mode from outside the session's loop, at
    /// once, even while a turn runs (the next permission decision sees it).
    pub fn mode_switch(&self) -> ModeSwitch {
        ModeSwitch {
            stage: Arc::clone(&self.permission),
            bypass_disabled: self.bypass_disabled.clone(),
        }
    }

    /// What the rules in force say about `spec` (`Bash(git push)`,
    /// `Read(./.env)`): the decision, the rule that made it and its file
    /// (`tack permissions explain`, for the session's own policy, a mode
    /// changed during the session included).
    pub fn explain_permission(&self, spec: &str) -> std::result::Result<String, String> {
        let policy = self.permission.policy();
        tack_policy::explain(spec, &policy, &self.cwd)
            .map(|e| e.to_string())
            .map_err(|e| e.to_string())
    }

    /// Adds `rule` to the `kind` list (`allow`, `ask`, `deny`) of the
    /// project's local settings (`.tack/settings.local.json`) and applies it
    /// from the next call on. The file written.
    pub fn add_permission_rule(
        &self,
        kind: tack_protocol::Verdict,
        rule: &str,
    ) -> std::result::Result<std::path::PathBuf, String> {
        self.permission.add_rule(kind, rule)
    }

    /// Removes `rule` from the local settings' lists; the lists it was in
    /// (empty: the local file does not have it, another file may).
    pub fn remove_permission_rule(
        &self,
        rule: &str,
    ) -> std::result::Result<Vec<tack_protocol::Verdict>, String> {
        self.permission.remove_rule(rule)
    }

    /// The permission rules in force, strongest first, each with its file.
    pub fn permission_rules(&self) -> Vec<String> {
        self.permission
            .policy()
            .rules()
            .iter()
            .map(|r| format!("{:<5} {}  ({})", r.kind.as_str(), r.text, r.source))
            .collect()
    }

    /// What tool search deferred when the session was assembled.
    pub fn tool_search(&self) -> &DeferralReport {
        &self.tool_search
    }

    /// A pipeline for one client of a shared server (`tack mcp serve
    /// --http`: one per MCP session): the session's policy, hooks, audit
    /// trail and MCP servers, with built-in tools of its own — its own shell
    /// (working directory, background jobs), read-file state and artifact
    /// store (`<state>/artifacts/<session>-client-<n>`). Dropping it (the
    /// client's session closed) kills its background jobs. Tools the session
    /// gains later (an MCP server's `list_changed`) do not reach it.
    pub fn client_pipeline(&self) -> Pipeline {
        let recipe = &self.recipe;
        let n = recipe.next.fetch_add(1, Ordering::Relaxed);
        let project = &recipe.project;
        let artifacts = Arc::new(ArtifactStore::for_session(
            &project.state_dir,
            &format!("{}-client-{n}", self.id),
        ));
        let mut tools = if recipe.builtins {
            Builtins::tools(project, &recipe.policy, &artifacts)
        } else {
            Vec::new()
        };
        tools.extend(self.sources.iter().flat_map(|s| s.conversation_tools()));
        self.pipeline
            .with_own_tools(tools, Arc::new(output_budget(project, artifacts)))
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The session's dispatch pipeline (also its [`tack_tool::ToolHost`]).
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    pub fn events(&self) -> &EventBus {
        &self.events
    }

    /// The command hooks, when the settings have any.
    pub fn hooks(&self) -> Option<&Arc<HookRunner>> {
        self.hooks.as_ref()
    }

    /// Emits `session_start` and runs the SessionStart hooks, once; returns
    /// the context the hooks add (for the first prompt).
    pub async fn begin(&self, begin: Begin) -> Vec<String> {
        if self.begun.swap(true, Ordering::SeqCst) {
            return Vec::new();
        }
        self.events.emit(&SessionEvent::SessionStart {
            session_id: self.id.clone(),
            cwd: self.cwd.to_string_lossy().into_owned(),
            provider: begin.provider,
            model: begin.model,
            tools: self.pipeline.registry().names(),
            resumed: begin.resumed,
            time: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        });
        match &self.hooks {
            Some(hooks) => {
                let source = if begin.resumed { "resume" } else { "startup" };
                hooks.session_start(source).await
            }
            None => Vec::new(),
        }
    }

    /// How the session compacts (its settings; the artifact store for
    /// cleared results): what [`Session::agent`] uses when the config has
    /// none, and where a front end applies its flags.
    pub fn compaction(&self) -> &tack_agent::CompactionConfig {
        &self.compaction
    }

    /// The system prompt, as built at assembly.
    pub fn system_prompt(&self) -> &SessionPrompt {
        &self.prompt
    }

    /// The loop over this session's pipeline and hooks, with the session's
    /// system prompt unless `config.system` holds one already.
    pub fn agent(&self, client: Arc<dyn ModelClient>, mut config: AgentConfig) -> Agent {
        // Sub-agents compact like their parent (cleared results go to the
        // same artifact store: their ids are their own calls').
        if config.compaction.is_none() {
            config.compaction = Some(self.compaction.clone());
        }
        if let Some(link) = &self.subagents {
            link.set_model(Arc::clone(&client), config.clone());
        }
        if config.system.is_none() && !self.prompt.text().is_empty() {
            config.system = Some(self.prompt.text().to_owned());
        }
        let agent = Agent::new(
            client,
            Arc::new(self.pipeline.clone()),
            config,
            self.events.clone(),
        );
        match &self.hooks {
            Some(hooks) => agent.with_hooks(hooks.clone()),
            None => agent,
        }
    }

    /// The loop, continuing `loaded`. What [`transcript::load`] fixed in
    /// the conversation (lost or damaged lines) is recorded first, as a
    /// `conversation_repaired` event; then a transcript cut mid-turn is
    /// repaired (unanswered calls answered) and that recorded too. Hold the
    /// session's [`transcript::TranscriptWriter`] (its lock) before loading.
    pub fn resume(
        &self,
        client: Arc<dyn ModelClient>,
        config: AgentConfig,
        loaded: &LoadedSession,
    ) -> Agent {
        let path = loaded.path.display();
        if loaded.skipped_lines > 0 {
            tracing::warn!(
                "{} unreadable line(s) in {path} were skipped",
                loaded.skipped_lines
            );
        }
        if loaded.lossy_lines > 0 {
            tracing::warn!(
                "{} line(s) in {path} had invalid UTF-8; the bad bytes were read as U+FFFD",
                loaded.lossy_lines
            );
        }
        if !loaded.repairs.is_empty() {
            tracing::warn!(
                "the conversation in {path} was repaired: {}",
                loaded.repairs.join("; ")
            );
            self.events.emit(&SessionEvent::ConversationRepaired {
                messages: loaded.messages.clone(),
                repairs: loaded.repairs.clone(),
            });
        }
        for source in &self.sources {
            source.resumed(&loaded.messages);
        }
        // The deferred tools the conversation had loaded stay loaded.
        let registry = self.pipeline.registry();
        if registry.has_deferred() {
            let loaded_before = crate::tool_search::loaded_in(&loaded.messages);
            let names: Vec<&str> = loaded_before.iter().map(String::as_str).collect();
            self.pipeline.reveal(&names);
        }
        let mut messages = loaded.messages.clone();
        if let Some(fix) = transcript::repair(loaded) {
            self.events.emit(&SessionEvent::Message {
                message: fix.clone(),
            });
            messages.push(fix);
        }
        // Every call answered without a recorded result gets its audit
        // record now: interrupted, by the session stopping.
        for call in transcript::unrecorded(&messages, loaded) {
            self.events.emit(&transcript::unrecorded_result(&call));
        }
        self.agent(client, config)
            .with_history(messages, loaded.usage.clone(), loaded.turns)
    }

    /// Runs the SessionEnd hooks and shuts the sources down, once.
    pub async fn end(&self, reason: &str) {
        if self.ended.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some(hooks) = &self.hooks {
            hooks.session_end(reason).await;
        }
        for source in &self.sources {
            source.shutdown().await;
        }
    }

    /// One prompt, start to end: begin, run the loop, end. For embedders;
    /// `tack run` does the same with resume and Ctrl-C around it.
    pub async fn run(
        &self,
        client: Arc<dyn ModelClient>,
        config: AgentConfig,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> RunOutcome {
        let begin = Begin {
            provider: client.provider().to_owned(),
            model: config
                .model
                .clone()
                .unwrap_or_else(|| client.model().to_owned()),
            resumed: false,
        };
        let context = self.begin(begin).await;
        let mut blocks = vec![ContentBlock::text(prompt)];
        blocks.extend(context.into_iter().map(ContentBlock::text));
        let outcome = self.agent(client, config).run(Some(blocks), cancel).await;
        self.end("other").await;
        outcome
    }
}

/// Asks about each project settings file's unapproved part; a yes is
/// recorded and applied, the rest is left out with a notice.
async fn settle_project_settings(
    project: &ProjectContext,
    interaction: &dyn Interaction,
) -> Result<ProjectContext> {
    let mut project = project.clone();
    for untrusted in project.settings.unapproved.clone() {
        if interaction.can_ask() && interaction.approve_project_settings(&untrusted).await {
            project.approve_project_settings(&untrusted)?;
        } else {
            interaction.notice(&untrusted.notice());
        }
    }
    Ok(project)
}

/// What lets a file into the system prompt: what a Read of it would be
/// allowed (an instruction file, or what one imports with `@path`, is read
/// by tack before any person could be asked). A deny rule, an ask rule,
/// tack's own environment, or a file outside the working directories and
/// the project that a project's file names leaves it out; the user's own
/// files and what they import may lie outside the working directories, and
/// so may the project's own (its root's CLAUDE.md seen from `src/`).
fn prompt_gate(
    policy: tack_policy::Policy,
    cwd: std::path::PathBuf,
    project_root: std::path::PathBuf,
) -> crate::PromptGate {
    use tack_policy::DecidedBy;
    let root = std::fs::canonicalize(&project_root).unwrap_or(project_root);
    crate::PromptGate(Some(Arc::new(
        move |path: &std::path::Path, user_level: bool| {
            let input = serde_json::json!({ "file_path": path });
            let request = tack_policy::Request::resolve("Read", &input, &cwd, &policy);
            let decision = tack_policy::evaluate(&request, &policy);
            let why = decision.why();
            let rule = match &why.decided_by {
                DecidedBy::Rule { rule, .. } => Some(rule.clone()),
                _ => None,
            };
            // Asked only for lying outside the working directories.
            let outside = matches!(
                why.decided_by,
                DecidedBy::NoRuleMatched { .. } | DecidedBy::Mode { .. }
            );
            let in_project = || {
                root.parent().is_some()
                    && std::fs::canonicalize(path).is_ok_and(|p| p.starts_with(&root))
            };
            if decision.is_allow() || (decision.is_ask() && outside && (user_level || in_project()))
            {
                Ok(())
            } else if decision.is_deny() {
                Err(match rule {
                    Some(rule) => format!("a Read of it is refused by the rule `{rule}`"),
                    None => "a Read of it is refused".to_owned(),
                })
            } else {
                Err(match rule {
                    Some(rule) => format!("a Read of it asks first (the rule `{rule}`)"),
                    None => format!(
                        "it lies outside the project and the working directories; an allow rule `Read({})` or --add-dir lets it in",
                        path.display()
                    ),
                })
            }
        },
    )))
}

/// Whether a deny rule refuses every call of the tool `name`, whatever its
/// input.
fn refused_outright(registry: &ToolRegistry, policy: &tack_policy::Policy, name: &str) -> bool {
    match registry.get(name).and_then(|t| t.tool.mcp_origin()) {
        Some((server, own)) => policy.refuses_mcp_tool(name, server, own),
        None => policy.refuses_tool(name),
    }
    .is_some()
}

/// Keeps only the named tools; unknown names are an error listing what exists.
fn keep_only(registry: &mut ToolRegistry, names: &[String]) -> Result<()> {
    let names: Vec<String> = names
        .iter()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    let available = registry.names();
    let unknown = registry.retain_named(&names);
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Error::UnknownTools {
        unknown: unknown.join(", "),
        available: available.join(", "),
    })
}

fn output_budget(project: &ProjectContext, store: Arc<ArtifactStore>) -> OutputBudget {
    let config = &project.settings.output_budget;
    let mut budget = OutputBudget::new(store);
    if let Some(tokens) = config.default_tokens {
        budget = budget.default_tokens(tokens);
    }
    for (tool, tokens) in &config.tools {
        budget = budget.tool_tokens(tool.clone(), *tokens);
    }
    budget
}

/// The context window assumed for `auto` tool search when the model's is
/// not known.
const DEFAULT_WINDOW: u64 = 200_000;

/// New tools of a source join the session (deferred as `deferral` says);
/// none is ever removed.
fn follow(updates: crate::sources::ToolUpdates, pipeline: &Pipeline, deferral: Option<Deferral>) {
    let crate::sources::ToolUpdates { mut changed, tools } = updates;
    let weak = pipeline.downgrade();
    tokio::spawn(async move {
        while changed.changed().await.is_ok() {
            let Some(pipeline) = weak.upgrade() else {
                break;
            };
            let exposure = |name: &str| {
                deferral
                    .as_ref()
                    .map_or(tack_tool::Exposure::Direct, |d| d.exposure(name))
            };
            for name in pipeline.add_tools_as(tools(), &exposure) {
                tracing::info!("tool {name} is now available");
            }
        }
    });
}

/// Finds the session to continue: by id (a unique prefix), or the latest
/// one of `project`'s directory.
pub fn find_session(project: &ProjectContext, resume: &Resume) -> Result<LoadedSession> {
    let dir = project.sessions_dir();
    Ok(match resume {
        Resume::Id(id) => transcript::load(&transcript::find(&dir, id)?)?,
        Resume::Latest => {
            transcript::latest_conversation_for(&dir, &project.cwd.to_string_lossy())?
        }
    })
}

/// Which session to continue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// This id, or a unique prefix of it.
    Id(String),
    /// The latest session of the working directory.
    Latest,
}
