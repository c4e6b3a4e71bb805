//! `market-analyst run PROMPT`: one prompt to completion in an embedded
//! tack session, assembled as `tack run` assembles its own:
//!
//! - settings from the working directory (`ProjectContext::load`): the
//!   project's permissions, hooks and skills apply;
//! - the five tools as Rust tools, granted on the command-line level (as
//!   `--allowed-tools` would: an ask rule in settings still wins; a deny
//!   rule cannot name them yet, see [`about_our_tools`]), then the
//!   project's skills;
//! - headless: an ask is a deny that names the rule that would allow it;
//! - the provider from the environment, as `tack run` selects it;
//! - the transcript where `tack run` writes it,
//!   `$TACK_STATE_DIR/sessions/<id>.jsonl`.
//!
//! The exit code is tack's: 0 completed, 2 usage, 3 model API, 4 max turns…

use std::io::{IsTerminal as _, Read as _};
use std::sync::Arc;

use tack_agent::transcript::TranscriptWriter;
use tack_agent::{AgentConfig, EventBus, EventObserver};
use tack_model::{ModelError, ProviderOptions, RetryPolicy, select_provider};
use tack_protocol::{ContentBlock, RunStatus, exit};
use tack_session::skills::{SkillOptions, Skills};
use tack_session::{Begin, Headless, ProjectContext, Session, SessionOptions};
use tokio_util::sync::CancellationToken;

use crate::args::{OutputFormat, RunArgs};
use crate::output::{Progress, ResultObject};
use crate::{Failure, env};

/// The project's settings in the working directory, with the five tools
/// allowed as `--allowed-tools` would allow them. Settings warnings go to
/// stderr.
pub fn project() -> Result<ProjectContext, Failure> {
    let grant = tack_policy::CliPermissions {
        allowed_tools: market_analyst::TOOL_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .collect(),
        ..Default::default()
    };
    let ctx = ProjectContext::load(None, &grant)?;
    for warning in ctx.warnings.iter().filter(|w| !about_our_tools(w)) {
        eprintln!("market-analyst: {warning}");
    }
    Ok(ctx)
}

/// Whether a settings warning says a rule naming one of the five tools
/// "matches nothing". tack-session checks rules against the tools it
/// knows (built-in, declared in settings, MCP) and cannot yet be told an
/// embedder's, so these warnings are false: the rules do match. (For the
/// same reason a *deny* rule naming one of them is refused as a
/// configuration error, exit 2, until tack-session takes an embedder's
/// tool names.)
fn about_our_tools(warning: &str) -> bool {
    market_analyst::TOOL_NAMES
        .iter()
        .any(|name| warning.contains(&format!("names `{name}`, which is no known tool")))
}

/// The prompt from the argument, else stdin.
fn read_prompt(arg: Option<String>) -> Result<String, Failure> {
    let text = match arg.as_deref() {
        Some("-") | None if !std::io::stdin().is_terminal() => {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .map_err(|e| Failure::usage(format!("cannot read the prompt from stdin: {e}")))?;
            buf
        }
        Some("-") | None => String::new(),
        Some(text) => text.to_owned(),
    };
    if text.trim().is_empty() {
        return Err(Failure::usage(
            "no prompt: pass it as an argument (market-analyst run \"…\") or on stdin",
        ));
    }
    Ok(text)
}

pub async fn run(args: RunArgs) -> Result<u8, Failure> {
    let prompt = read_prompt(args.prompt)?;
    let provider = crate::cli::provider()?;
    let ctx = project()?;
    let session_id = SessionOptions::new_id();
    let options = ProviderOptions {
        provider: args
            .provider
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e: ModelError| Failure::usage(e))?,
        model: args.model.clone(),
        base_url: args.base_url,
        stream: true,
        retry: RetryPolicy::from_env(&env),
        no_prompt_cache: env("TACK_NO_PROMPT_CACHE")
            .is_some_and(|v| matches!(v.trim(), "1" | "true")),
        prompt_cache_key: Some(session_id.clone()),
    };
    let client = select_provider(&options, &env).await.map_err(|e| match e {
        ModelError::Config(_) => Failure::usage(e),
        other => Failure::new(exit::MODEL_API, other),
    })?;
    let client: Arc<dyn tack_model::ModelClient> = Arc::from(client);
    let model = args
        .model
        .clone()
        .unwrap_or_else(|| client.model().to_owned());

    let writer = TranscriptWriter::open(&ctx.sessions_dir(), &session_id)
        .map_err(|e| Failure::from(tack_session::Error::from(e)))?;
    let printer: Arc<dyn EventObserver> = match args.output_format {
        OutputFormat::Text => Arc::new(Progress),
        OutputFormat::Json => Arc::new(ResultObject::new()),
    };
    let events = EventBus::new().with(Arc::new(writer)).with(printer);
    let context_window = tack_model::pricing::price(&model).map(|p| p.context_window);
    let skills = Skills::new(SkillOptions {
        context_window,
        trust_project: args.trust_project_skills,
        ..Default::default()
    });
    let mut options = SessionOptions::new(session_id.clone())
        .sources(vec![
            Arc::new(market_analyst::tools(provider)),
            Arc::new(skills),
        ])
        .interaction(Arc::new(Headless))
        .events(events)
        .code_mode(args.code_mode)
        .context_window(context_window);
    if let Some(text) = args.system_prompt {
        options = options.system_prompt(text);
    }
    if let Some(text) = args.append_system_prompt {
        options = options.append_system_prompt(text);
    }
    let session = Session::assemble(&ctx, options).await?;
    let context = session
        .begin(Begin {
            provider: client.provider().to_owned(),
            model: model.clone(),
            resumed: false,
        })
        .await;
    let mut agent = session.agent(
        client,
        AgentConfig {
            model: args.model,
            max_turns: args.max_turns,
            ..AgentConfig::default()
        },
    );
    let cancel = CancellationToken::new();
    let watch = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\nmarket-analyst: interrupting… (the session is saved)");
            watch.cancel();
        }
    });
    let mut blocks = vec![ContentBlock::text(prompt)];
    blocks.extend(context.into_iter().map(ContentBlock::text));
    let outcome = agent.run(Some(blocks), &cancel).await;
    session.end("other").await;
    if args.output_format == OutputFormat::Text {
        if !outcome.text.is_empty() {
            println!("{}", outcome.text);
        }
        match outcome.status {
            RunStatus::Completed => {}
            RunStatus::ModelError => {
                let why = outcome
                    .error
                    .as_ref()
                    .map_or_else(|| "unknown error".to_owned(), ToString::to_string);
                eprintln!("market-analyst: the model API failed: {why}");
            }
            RunStatus::MaxTurns => eprintln!(
                "market-analyst: --max-turns was reached while the model still wanted tools"
            ),
            other => eprintln!("market-analyst: the run ended: {other}"),
        }
    }
    eprintln!("market-analyst: session {session_id}");
    Ok(outcome.status.exit_code())
}
