//! `tack run` and `tack mock-server`: flags → configuration → run.

use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, anyhow};
use tack_agent::transcript::{self, LoadedSession, TranscriptWriter};
use tack_agent::{AgentConfig, EventBus};
use tack_model::{ModelError, ProviderOptions, RetryPolicy, select_provider};
use tack_protocol::{ContentBlock, ToolChoice};
use tack_session::{
    Begin, Headless, Interaction, ProjectContext, PromptTool, Resume, Session, SessionOptions,
    Terminal, find_session,
};
use tokio_util::sync::CancellationToken;

use crate::claude::{ClaudeOutput, InitInfo, Shape};
use crate::cli::{InputFormat, MockServerArgs, OutputFormat, RunArgs, ToolChoiceArg};
use crate::out::outln;
use crate::print::Printer;
use crate::{Failure, exit};

/// Everything `tack run` needs, built from the flags and the environment.
struct RunConfig {
    ctx: ProjectContext,
    sessions_dir: PathBuf,
    resume: Option<LoadedSession>,
    /// The resumed session's transcript, locked (a new session's is opened in `run`).
    writer: Option<TranscriptWriter>,
    prompt: Option<String>,
    provider: ProviderOptions,
    agent: AgentConfig,
    tools: Option<Vec<String>>,
    /// `--system-prompt`, `--append-system-prompt`.
    system_prompt: Option<String>,
    append_system_prompt: Option<String>,
    fixture_tools: bool,
    format: OutputFormat,
    /// `--input-format stream-json`: user messages as JSON lines on stdin.
    stream_input: bool,
    verbose: bool,
    permission_prompt_tool: Option<String>,
    mock: bool,
    approve_mcp: bool,
    trust_project_skills: bool,
    tool_search: Option<tack_session::tool_search::ToolSearchMode>,
    code_mode: bool,
    compact: CompactFlags,
    /// A resumed conversation is waiting for the model (no prompt needed).
    awaits_model: bool,
}

/// The compaction flags, applied over the session's settings.
pub(crate) struct CompactFlags {
    pub(crate) window: Option<u64>,
    threshold: Option<tack_agent::Threshold>,
    no_auto: bool,
    now: bool,
    instructions: Option<String>,
}

impl CompactFlags {
    pub(crate) fn apply(
        &self,
        mut config: tack_agent::CompactionConfig,
    ) -> tack_agent::CompactionConfig {
        if self.window.is_some() {
            config.window = self.window;
        }
        if let Some(t) = self.threshold {
            config.threshold = t;
        }
        if self.no_auto {
            config.auto = false;
        }
        config
    }
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

impl RunConfig {
    fn build(args: RunArgs) -> Result<Self, Failure> {
        let ctx = crate::project(args.cwd.as_deref(), &args.session.permissions)?;
        let sessions_dir = ctx.sessions_dir();
        let resume = match (&args.resume, args.continue_) {
            (Some(id), _) => Some(Resume::Id(id.clone())),
            (None, true) => Some(Resume::Latest),
            (None, false) => None,
        };
        let (resume, writer) = match resume {
            Some(r) => {
                let (loaded, writer) = lock_and_load(&ctx, &r)?;
                (Some(loaded), Some(writer))
            }
            None => (None, None),
        };
        let awaits_model = resume.as_ref().is_some_and(|s| {
            s.messages
                .last()
                .is_some_and(|m| m.role == tack_protocol::Role::User)
                || transcript::repair(s).is_some()
        });
        let stream_input = args.input_format == InputFormat::StreamJson;
        let prompt = if stream_input {
            if !args.output_format.is_stream() {
                return Err(Failure::usage(anyhow!(
                    "--input-format stream-json needs --output-format stream-json (or tack-stream-json): each user line gets its own result"
                )));
            }
            if args.prompt.is_some() {
                return Err(Failure::usage(anyhow!(
                    "--input-format stream-json reads the prompts from stdin: pass no prompt argument"
                )));
            }
            None
        } else {
            read_prompt(args.prompt.clone(), awaits_model || args.compact_now)?
        };
        if args
            .permission_prompt_tool
            .as_deref()
            .is_some_and(|t| t == "stdio")
        {
            return Err(Failure::usage(anyhow!(
                "--permission-prompt-tool stdio (asking over stream-json control requests) is not supported yet; name an MCP tool, mcp__<server>__<tool>"
            )));
        }
        let model = ModelFlags::from_args(&args)?;
        Ok(Self {
            ctx,
            sessions_dir,
            resume,
            writer,
            prompt,
            provider: model.provider,
            agent: model.agent,
            tools: args.tools,
            system_prompt: args.system_prompt,
            append_system_prompt: args.append_system_prompt,
            fixture_tools: args.session.fixture_tools,
            format: args.output_format,
            stream_input,
            verbose: args.verbose,
            permission_prompt_tool: args.permission_prompt_tool,
            mock: args.mock,
            approve_mcp: args.session.approve_mcp,
            trust_project_skills: args.session.trust_project_skills,
            tool_search: args
                .session
                .tool_search
                .map(crate::cli::ToolSearchArg::mode),
            code_mode: args.session.code_mode,
            compact: model.compact,
            awaits_model,
        })
    }
}

/// The model's side of a session, from the flags of `tack run` (and of the
/// interactive terminal, which takes the same ones).
pub(crate) struct ModelFlags {
    pub(crate) provider: ProviderOptions,
    pub(crate) agent: AgentConfig,
    pub(crate) compact: CompactFlags,
}

impl ModelFlags {
    pub(crate) fn from_args(args: &RunArgs) -> Result<Self, Failure> {
        let provider = ProviderOptions {
            provider: args
                .provider
                .as_deref()
                .map(str::parse)
                .transpose()
                .map_err(|e: ModelError| Failure::usage(e))?,
            model: args.model.clone(),
            base_url: args.base_url.clone(),
            stream: !args.no_stream,
            retry: RetryPolicy::from_env(&env),
            no_prompt_cache: args.no_prompt_cache
                || env("TACK_NO_PROMPT_CACHE").is_some_and(|v| matches!(v.trim(), "1" | "true")),
            prompt_cache_key: None,
        };
        let disable = args.no_parallel_tools.then_some(true);
        let tool_choice = match (args.tool.clone(), args.tool_choice) {
            (Some(name), _) => Some(ToolChoice::Tool {
                name,
                disable_parallel_tool_use: disable,
            }),
            (None, Some(ToolChoiceArg::Any)) => Some(ToolChoice::Any {
                disable_parallel_tool_use: disable,
            }),
            (None, Some(ToolChoiceArg::None)) => Some(ToolChoice::None),
            (None, Some(ToolChoiceArg::Auto)) | (None, None) if disable.is_some() => {
                Some(ToolChoice::Auto {
                    disable_parallel_tool_use: disable,
                })
            }
            (None, Some(ToolChoiceArg::Auto)) => Some(ToolChoice::Auto {
                disable_parallel_tool_use: None,
            }),
            (None, None) => None,
        };
        let agent = AgentConfig {
            model: args.model.clone(),
            max_tokens: args.max_tokens,
            // The session's own (Session::agent), or --system-prompt's.
            system: None,
            tool_choice,
            max_turns: args.max_turns,
            stream: !args.no_stream,
            // The session's settings with the flags over them (in `run`).
            compaction: None,
        };
        Ok(Self {
            provider,
            agent,
            compact: CompactFlags {
                window: args.context_window,
                threshold: args.compact_threshold,
                no_auto: args.no_auto_compact,
                now: args.compact_now,
                instructions: args.compact_instructions.clone(),
            },
        })
    }
}

/// The built-in mock API for `--mock`: one to start, or one running at
/// this URL (the interactive session's later sessions share the first's).
pub(crate) enum Mock {
    Off,
    Start,
    At(String),
}

/// The model client the flags ask for; with `--mock`, the built-in mock
/// API (a started one is kept alive by the returned server).
pub(crate) async fn model_client(
    provider: &mut ProviderOptions,
    mock: Mock,
) -> Result<
    (
        Arc<dyn tack_model::ModelClient>,
        Option<tack_testkit::MockServer>,
    ),
    Failure,
> {
    let (server, url) = match mock {
        Mock::Off => (None, None),
        Mock::Start => {
            let server = tack_testkit::MockServer::start().await;
            server.set_fallback(tack_testkit::Fallback::Echo);
            let url = server.url();
            (Some(server), Some(url))
        }
        Mock::At(url) => (None, Some(url)),
    };
    let mock = url.is_some();
    if let Some(url) = url {
        provider.provider = Some(tack_model::ProviderKind::Anthropic);
        provider.base_url = Some(url);
    }
    let mock_env = |key: &str| match key {
        "ANTHROPIC_API_KEY" => Some("mock".to_owned()),
        _ => None,
    };
    let env_lookup: &dyn Fn(&str) -> Option<String> = if mock { &mock_env } else { &env };
    let client = select_provider(provider, env_lookup)
        .await
        .map_err(|e| match e {
            ModelError::Config(_) => Failure::usage(e),
            other => Failure {
                code: exit::MODEL_API,
                error: other.into(),
            },
        })?;
    Ok((Arc::from(client), server))
}

/// The session to resume, read after its transcript was locked: a second
/// `tack run --resume` of a session that is running stops here, before it
/// reads a conversation the first one is still adding to or writes a line.
pub(crate) fn lock_and_load(
    ctx: &ProjectContext,
    resume: &Resume,
) -> Result<(LoadedSession, TranscriptWriter), Failure> {
    let found = find_session(ctx, resume)?;
    let writer = TranscriptWriter::open_file(&found.path, &found.session_id)
        .map_err(|e| Failure::from(tack_session::Error::from(e)))?;
    let loaded =
        transcript::load(writer.path()).map_err(|e| Failure::from(tack_session::Error::from(e)))?;
    Ok((loaded, writer))
}

/// The prompt from the argument, or stdin when absent or "-". None is only
/// allowed when a resumed conversation is waiting for the model.
fn read_prompt(arg: Option<String>, may_be_empty: bool) -> Result<Option<String>, Failure> {
    let text = match arg.as_deref() {
        Some("-") | None if !std::io::stdin().is_terminal() => {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .context("cannot read the prompt from stdin")
                .map_err(Failure::usage)?;
            buf
        }
        Some("-") | None => String::new(),
        Some(text) => text.to_owned(),
    };
    if text.trim().is_empty() {
        if may_be_empty {
            return Ok(None);
        }
        return Err(Failure::usage(anyhow!(
            "no prompt: pass it as an argument (tack run \"…\") or on stdin (echo \"…\" | tack run)"
        )));
    }
    Ok(Some(text))
}

pub async fn run(args: RunArgs) -> Result<u8, Failure> {
    let mut config = RunConfig::build(args)?;
    let session_id = config
        .resume
        .as_ref()
        .map(|s| s.session_id.clone())
        .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    config.provider.prompt_cache_key = Some(session_id.clone());
    // `--mock`: the built-in mock API, answering on 127.0.0.1 for this run only.
    let mock = if config.mock { Mock::Start } else { Mock::Off };
    let (client, _mock) = model_client(&mut config.provider, mock).await?;

    let writer = match config.writer.take() {
        Some(writer) => writer,
        None => TranscriptWriter::open(&config.sessions_dir, &session_id)
            .map_err(|e| Failure::from(tack_session::Error::from(e)))?,
    };
    let claude = match config.format {
        OutputFormat::Json => Some(Arc::new(ClaudeOutput::new(Shape::Json {
            verbose: config.verbose,
        }))),
        OutputFormat::StreamJson => Some(Arc::new(ClaudeOutput::new(Shape::StreamJson))),
        _ => None,
    };
    let printer: Arc<dyn tack_agent::EventObserver> = match &claude {
        Some(claude) => Arc::clone(claude) as _,
        None => Arc::new(Printer::new(config.format)),
    };
    let events = EventBus::new().with(Arc::new(writer)).with(printer);
    let context_window = config.compact.window.or_else(|| {
        tack_model::pricing::price(config.agent.model.as_deref().unwrap_or(client.model()))
            .map(|p| p.context_window)
    });
    let skill_options = tack_session::skills::SkillOptions {
        context_window,
        trust_project: config.trust_project_skills,
        ..Default::default()
    };
    let crate::sources::Sources {
        list: sources,
        mcp,
        skills,
    } = crate::sources::sources(config.fixture_tools, config.approve_mcp, skill_options);
    mcp.set_model(Arc::clone(&client));
    let interaction: Arc<dyn Interaction> = match &config.permission_prompt_tool {
        Some(name) => Arc::new(
            PromptTool::new(name, Arc::clone(&mcp)).map_err(|e| Failure::usage(anyhow!(e)))?,
        ),
        None => match Terminal::detect() {
            Some(terminal) => Arc::new(terminal),
            None => Arc::new(Headless),
        },
    };
    let mut options = SessionOptions::new(session_id.clone())
        .sources(sources)
        .only_tools(config.tools.clone())
        .interaction(interaction)
        .events(events)
        .subagents(true)
        .tool_search(config.tool_search)
        .code_mode(config.code_mode)
        .context_window(context_window);
    if let Some(text) = config.system_prompt.take() {
        options = options.system_prompt(text);
    }
    if let Some(text) = config.append_system_prompt.take() {
        options = options.append_system_prompt(text);
    }
    let session = Session::assemble(&config.ctx, options).await?;
    if let Some(name) = &config.permission_prompt_tool
        && session.pipeline().registry().get(name).is_none()
    {
        let offered: Vec<String> = session
            .pipeline()
            .registry()
            .names()
            .into_iter()
            .filter(|n| n.starts_with("mcp__"))
            .collect();
        session.end("other").await;
        return Err(Failure::usage(anyhow!(
            "--permission-prompt-tool {name}: no such tool in this session (MCP tools: {}); add its server with --mcp-config or .mcp.json",
            if offered.is_empty() {
                "none".to_owned()
            } else {
                offered.join(", ")
            }
        )));
    }
    if let Some(claude) = &claude {
        let skill_set = skills.set();
        claude.set_init(InitInfo {
            mcp_servers: mcp
                .running()
                .map(|m| m.list())
                .unwrap_or_default()
                .into_iter()
                .map(|s| (s.name, server_status(s.state).to_owned()))
                .collect(),
            permission_mode: config.ctx.settings.permissions.mode().0.to_string(),
            api_key_source: api_key_source(client.provider(), config.mock),
            skills: skill_set
                .as_ref()
                .map(|s| s.catalog.names.clone())
                .unwrap_or_default(),
            slash_commands: skill_set
                .iter()
                .flat_map(|s| &s.discovery.skills)
                .filter(|k| k.frontmatter.user_invocable)
                .map(|k| k.name.clone())
                .collect(),
        });
    }
    let mut context = session
        .begin(Begin {
            provider: client.provider().to_owned(),
            model: config
                .agent
                .model
                .clone()
                .unwrap_or_else(|| client.model().to_owned()),
            resumed: config.resume.is_some(),
        })
        .await;
    // Results of MCP tasks a previous run of this session left running
    // reach the model with its next prompt, as hook context does.
    if config.resume.is_some() {
        context.extend(mcp.late_results().await);
    }
    config.agent.compaction = Some(config.compact.apply(session.compaction().clone()));
    let mut agent = match &config.resume {
        Some(loaded) => session.resume(client, config.agent, loaded),
        None => session.agent(client, config.agent),
    };
    let cancel = CancellationToken::new();
    tokio::spawn(watch_ctrl_c(cancel.clone()));
    if config.compact.now {
        let instructions = config.compact.instructions.as_deref();
        match agent.compact(instructions, &cancel).await {
            Ok(Some(_)) => {}
            Ok(None) => eprintln!(
                "tack: nothing to compact: the conversation has no older turns or large tool results"
            ),
            Err(tack_agent::CompactError::Interrupted) => {
                session.end("other").await;
                return Ok(exit::INTERRUPTED);
            }
            Err(e) => eprintln!("tack: {e}"),
        }
        if config.prompt.is_none() && !config.awaits_model && !config.stream_input {
            session.end("other").await;
            return Ok(exit::OK);
        }
    }
    if config.stream_input {
        let ended = stream_turns(&mut agent, context, claude.as_deref(), &cancel).await;
        session.end("other").await;
        return ended;
    }
    let mut prompt = config.prompt.map(|p| vec![ContentBlock::text(p)]);
    if let Some(prompt) = prompt.as_mut() {
        prompt.extend(context.into_iter().map(ContentBlock::text));
    }
    if let Some(claude) = &claude {
        claude.start_turn();
    }
    let outcome = agent.run(prompt, &cancel).await;
    session.end("other").await;
    Ok(outcome.status.exit_code())
}

/// `--input-format stream-json`: each user line of stdin starts a turn with
/// its own result. A line that is not a user message stops the run with an
/// error naming it; the turns before it are done and saved.
async fn stream_turns(
    agent: &mut tack_agent::Agent,
    mut context: Vec<String>,
    claude: Option<&ClaudeOutput>,
    cancel: &CancellationToken,
) -> Result<u8, Failure> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<std::io::Result<String>>(16);
    std::thread::spawn(move || {
        use std::io::BufRead as _;
        for line in std::io::stdin().lock().lines() {
            let stop = line.is_err();
            if tx.blocking_send(line).is_err() || stop {
                break;
            }
        }
    });
    let mut code = exit::OK;
    let mut turns = 0;
    let mut number = 0;
    while let Some(line) = rx.recv().await {
        number += 1;
        let line = line.context("cannot read stdin").map_err(Failure::usage)?;
        if line.trim().is_empty() {
            continue;
        }
        let mut blocks = match stream_line(&line) {
            Ok(StreamLine::User(blocks)) => blocks,
            Ok(StreamLine::Control { request_id }) => {
                crate::out::outln!(
                    "{}",
                    serde_json::json!({
                        "type": "control_response",
                        "response": {
                            "subtype": "error",
                            "request_id": request_id,
                            "error": "tack does not support control requests yet",
                        },
                    })
                );
                continue;
            }
            Err(problem) => {
                return Err(Failure::usage(anyhow!(
                    "stdin line {number} is not a stream-json user message ({problem}); {turns} turn(s) before it ran and are saved in the session"
                )));
            }
        };
        blocks.extend(
            std::mem::take(&mut context)
                .into_iter()
                .map(ContentBlock::text),
        );
        if let Some(claude) = claude {
            claude.start_turn();
        }
        let outcome = agent.run(Some(blocks), cancel).await;
        turns += 1;
        let this = outcome.status.exit_code();
        if code == exit::OK {
            code = this;
        }
        if cancel.is_cancelled() {
            break;
        }
    }
    if turns == 0 {
        return Err(Failure::usage(anyhow!(
            "--input-format stream-json: no user message on stdin (one JSON object per line: {{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"…\"}}}})"
        )));
    }
    Ok(code)
}

enum StreamLine {
    User(Vec<ContentBlock>),
    Control { request_id: serde_json::Value },
}

/// One stdin line of `--input-format stream-json` (protocols-2.md §4).
fn stream_line(line: &str) -> Result<StreamLine, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    match value["type"].as_str() {
        Some("user") => {}
        Some("control_request") => {
            return Ok(StreamLine::Control {
                request_id: value["request_id"].clone(),
            });
        }
        Some(other) => return Err(format!("type {other:?}; expected \"user\"")),
        None => return Err("no \"type\"; expected \"type\":\"user\"".into()),
    }
    if value
        .get("shouldQuery")
        .and_then(serde_json::Value::as_bool)
        == Some(false)
    {
        return Err("shouldQuery:false (a message without a turn) is not supported yet".into());
    }
    let message: tack_protocol::Message = serde_json::from_value(value["message"].clone())
        .map_err(|e| format!("its message is not {{\"role\":\"user\",\"content\":…}}: {e}"))?;
    if message.role != tack_protocol::Role::User {
        return Err("its message's role is not \"user\"".into());
    }
    if message.content.is_empty() {
        return Err("its message has no content".into());
    }
    Ok(StreamLine::User(message.content))
}

/// Claude Code's word for an MCP server's state in the init message.
fn server_status(state: tack_mcp::client::ServerState) -> &'static str {
    use tack_mcp::client::ServerState;
    match state {
        ServerState::Running | ServerState::Deferred => "connected",
        ServerState::Failed | ServerState::Stopped => "failed",
        ServerState::NeedsApproval => "needs-approval",
        ServerState::NotStarted | ServerState::Starting => "pending",
        _ => "unknown",
    }
}

/// Where the API key came from, for the init message.
pub(crate) fn api_key_source(provider: &str, mock: bool) -> String {
    if mock {
        return "none".into();
    }
    let candidates: &[&str] = match provider {
        "anthropic" => &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
        "openai" => &["OPENAI_API_KEY"],
        _ => &[],
    };
    candidates
        .iter()
        .find(|k| env(k).is_some_and(|v| !v.is_empty()))
        .map_or_else(|| "none".to_owned(), |k| (*k).to_owned())
}

/// The first Ctrl-C cancels the run (calls in flight are answered
/// "interrupted" and the session saved); a second one exits at once. Also
/// `tack tools call`'s.
pub(crate) async fn watch_ctrl_c(cancel: CancellationToken) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    cancel.cancel();
    eprintln!("\ntack: interrupting… (press Ctrl-C again to exit at once)");
    if tokio::signal::ctrl_c().await.is_ok() {
        crate::exit_now(exit::INTERRUPTED);
    }
}

pub async fn mock_server(args: MockServerArgs) -> Result<u8, Failure> {
    let steps = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the script {}", path.display()))
                .map_err(Failure::usage)?;
            tack_testkit::Step::parse_script(&text)
                .with_context(|| {
                    format!("the script {} is not a JSON array of steps", path.display())
                })
                .map_err(Failure::usage)?
        }
        None => Vec::new(),
    };
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], args.port));
    let mock = tack_testkit::MockServer::start_on(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))
        .map_err(Failure::usage)?;
    mock.set_fallback(if args.script.is_some() {
        tack_testkit::Fallback::Exhausted
    } else {
        tack_testkit::Fallback::Echo
    });
    mock.push_all(steps);
    mock.set_context_window(args.context_window);
    outln!("{}", mock.url());
    eprintln!(
        "mock API listening. Try:\n  ANTHROPIC_BASE_URL={url} ANTHROPIC_API_KEY=mock tack run \"hello\"\n  OPENAI_BASE_URL={url}/v1 OPENAI_API_KEY=mock tack run --provider openai --model mock \"hello\"\nCtrl-C stops it.",
        url = mock.url()
    );
    let _ = tokio::signal::ctrl_c().await;
    Ok(exit::OK)
}
