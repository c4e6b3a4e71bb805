//! `tack run` and `tack mock-server`: flags → configuration → run.

use std::io::{IsTerminal as _, Read as _};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, anyhow};
use tack_agent::transcript::{self, LoadedSession, TranscriptWriter};
use tack_agent::{Agent, AgentConfig, EventBus, RunStatus};
use tack_model::{ModelError, ProviderOptions, RetryPolicy, select_provider};
use tack_protocol::{ContentBlock, SessionEvent, ToolChoice};
use tokio_util::sync::CancellationToken;

use crate::cli::{MockServerArgs, OutputFormat, RunArgs, ToolChoiceArg};
use crate::print::Printer;
use crate::session::{ProjectContext, SessionOptions, assemble};
use crate::{Failure, exit};

/// Everything `tack run` needs, built from the flags and the environment.
struct RunConfig {
    ctx: ProjectContext,
    sessions_dir: PathBuf,
    resume: Option<LoadedSession>,
    prompt: Option<String>,
    provider: ProviderOptions,
    agent: AgentConfig,
    tools: Option<Vec<String>>,
    fixture_tools: bool,
    format: OutputFormat,
    mock: bool,
    approve_mcp: bool,
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

impl RunConfig {
    fn build(args: RunArgs) -> Result<Self, Failure> {
        let ctx = ProjectContext::load(args.cwd.as_deref(), &args.permissions.to_cli()?)?;
        let cwd = ctx.cwd.clone();
        let sessions_dir = transcript::sessions_dir(&ctx.state_dir);
        let resume = if let Some(id) = &args.resume {
            let path = transcript::find(&sessions_dir, id).map_err(Failure::usage)?;
            Some(transcript::load(&path).map_err(Failure::internal)?)
        } else if args.continue_ {
            Some(
                transcript::latest_for(&sessions_dir, &cwd.to_string_lossy())
                    .map_err(Failure::usage)?,
            )
        } else {
            None
        };
        let awaits_model = resume.as_ref().is_some_and(|s| {
            s.messages
                .last()
                .is_some_and(|m| m.role == tack_protocol::Role::User)
                || transcript::repair(s).is_some()
        });
        let prompt = read_prompt(args.prompt, awaits_model)?;
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
        };
        let disable = args.no_parallel_tools.then_some(true);
        let tool_choice = match (args.tool, args.tool_choice) {
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
            model: args.model,
            max_tokens: args.max_tokens,
            system: args.system,
            tool_choice,
            max_turns: args.max_turns,
            stream: !args.no_stream,
        };
        Ok(Self {
            ctx,
            sessions_dir,
            resume,
            prompt,
            provider,
            agent,
            tools: args.tools,
            fixture_tools: args.fixture_tools,
            format: args.output_format,
            mock: args.mock,
            approve_mcp: args.approve_mcp,
        })
    }
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
    // `--mock`: the built-in mock API, answering on 127.0.0.1 for this run only.
    let _mock = if config.mock {
        let mock = tack_testkit::MockServer::start().await;
        mock.set_fallback(tack_testkit::Fallback::Echo);
        config.provider.provider = Some(tack_model::ProviderKind::Anthropic);
        config.provider.base_url = Some(mock.url());
        Some(mock)
    } else {
        None
    };
    let mock_env = |key: &str| match key {
        "ANTHROPIC_API_KEY" => Some("mock".to_owned()),
        _ => None,
    };
    let env_lookup: &dyn Fn(&str) -> Option<String> = if config.mock { &mock_env } else { &env };
    let client = select_provider(&config.provider, env_lookup)
        .await
        .map_err(|e| match e {
            ModelError::Config(_) => Failure::usage(e),
            other => Failure {
                code: exit::MODEL_API,
                error: other.into(),
            },
        })?;
    let client: Arc<dyn tack_model::ModelClient> = Arc::from(client);

    let writer =
        TranscriptWriter::open(&config.sessions_dir, &session_id).map_err(Failure::internal)?;
    let events = EventBus::new()
        .with(Arc::new(writer))
        .with(Arc::new(Printer::new(config.format)));
    let prompter: Option<Arc<dyn tack_agent::permission::Prompter>> =
        crate::prompt::TtyPrompter::detect().map(|p| Arc::new(p) as _);
    let assembled = assemble(
        &config.ctx,
        SessionOptions {
            session_id: &session_id,
            fixture_tools: config.fixture_tools,
            only_tools: config.tools.as_deref(),
            prompter,
            approve_mcp: config.approve_mcp,
        },
        &events,
    )
    .await?;
    events.emit(&SessionEvent::SessionStart {
        session_id: session_id.clone(),
        cwd: config.ctx.cwd.to_string_lossy().into_owned(),
        provider: client.provider().to_owned(),
        model: config
            .agent
            .model
            .clone()
            .unwrap_or_else(|| client.model().to_owned()),
        tools: assembled.pipeline.registry().names(),
        resumed: config.resume.is_some(),
        time: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    });

    let mut agent = Agent::new(
        client,
        assembled.pipeline.clone(),
        config.agent,
        events.clone(),
    );
    if let Some(hooks) = &assembled.hooks {
        agent = agent.with_hooks(hooks.clone());
    }
    if let Some(loaded) = &config.resume {
        if loaded.skipped_lines > 0 {
            tracing::warn!(
                "{} unreadable line(s) in {} were skipped",
                loaded.skipped_lines,
                loaded.path.display()
            );
        }
        let mut messages = loaded.messages.clone();
        if let Some(fix) = transcript::repair(loaded) {
            events.emit(&SessionEvent::Message {
                message: fix.clone(),
            });
            messages.push(fix);
        }
        agent = agent.with_history(messages, loaded.usage.clone(), loaded.turns);
    }

    let mut prompt = config.prompt.map(|p| vec![ContentBlock::text(p)]);
    if let Some(hooks) = &assembled.hooks {
        let source = if config.resume.is_some() {
            "resume"
        } else {
            "startup"
        };
        let context = hooks.session_start(source).await;
        if let Some(prompt) = prompt.as_mut() {
            prompt.extend(context.into_iter().map(ContentBlock::text));
        }
    }
    let cancel = CancellationToken::new();
    tokio::spawn(watch_ctrl_c(cancel.clone()));
    let outcome = agent.run(prompt, &cancel).await;
    if let Some(hooks) = &assembled.hooks {
        hooks.session_end("other").await;
    }
    if let Some(mcp) = &assembled.mcp {
        mcp.shutdown().await;
    }
    Ok(match outcome.status {
        RunStatus::Completed => exit::OK,
        RunStatus::MaxTurns => exit::MAX_TURNS,
        RunStatus::MaxTokens => exit::MAX_TOKENS,
        RunStatus::Refusal => exit::REFUSAL,
        RunStatus::Interrupted => exit::INTERRUPTED,
        RunStatus::ModelError => exit::MODEL_API,
        RunStatus::HookStopped => exit::HOOK_STOPPED,
    })
}

/// The first Ctrl-C cancels the run (calls in flight are answered
/// "interrupted" and the session saved); a second one exits at once.
async fn watch_ctrl_c(cancel: CancellationToken) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    cancel.cancel();
    eprintln!("\ntack: interrupting… (press Ctrl-C again to exit at once)");
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(i32::from(exit::INTERRUPTED));
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
    println!("{}", mock.url());
    eprintln!(
        "mock API listening. Try:\n  ANTHROPIC_BASE_URL={url} ANTHROPIC_API_KEY=mock tack run \"hello\"\n  OPENAI_BASE_URL={url}/v1 OPENAI_API_KEY=mock tack run --provider openai --model mock \"hello\"\nCtrl-C stops it.",
        url = mock.url()
    );
    let _ = tokio::signal::ctrl_c().await;
    Ok(exit::OK)
}
