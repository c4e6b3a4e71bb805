//! `tack` and `tack "first prompt"` on a terminal: the interactive session
//! (tack-tui), with the sessions assembled exactly as `tack run` assembles
//! them: the same flags, settings, sources, transcript and rules.

use std::io::IsTerminal as _;
use std::sync::Arc;

use anyhow::anyhow;
use async_trait::async_trait;
use tack_agent::EventBus;
use tack_agent::transcript::{self, TranscriptWriter};
use tack_session::{Begin, Interaction, ProjectContext, Resume, Session, SessionOptions};
use tack_tui::{Opened, Opener, SavedSession};

use crate::cli::{InputFormat, OutputFormat, RunArgs};
use crate::run::{Mock, ModelFlags, lock_and_load, model_client};
use crate::{Failure, exit};

/// Whether this process can hold an interactive session: stdin and stdout
/// are a terminal.
pub fn on_a_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

pub async fn run(args: RunArgs) -> Result<u8, Failure> {
    if !on_a_terminal() {
        return Err(Failure::usage(anyhow!(
            "the interactive session needs a terminal (stdin and stdout); to run a prompt without one: tack -p \"…\" (or tack run \"…\")"
        )));
    }
    if args.output_format != OutputFormat::Text || args.input_format != InputFormat::Text {
        return Err(Failure::usage(anyhow!(
            "--output-format and --input-format are for tack run (tack -p); the interactive session draws on the terminal"
        )));
    }
    if args.permission_prompt_tool.is_some() || args.compact_now {
        return Err(Failure::usage(anyhow!(
            "--permission-prompt-tool and --compact-now are for tack run; in the interactive session you answer the prompts and /compact compacts"
        )));
    }
    let ctx = crate::project(args.cwd.as_deref(), &args.session.permissions)?;
    let resume = match (&args.resume, args.continue_) {
        (Some(id), _) => Some(Resume::Id(id.clone())),
        (None, true) => Some(Resume::Latest),
        (None, false) => None,
    };
    // A session to resume that cannot be found is said before the screen is taken.
    if let Some(resume) = &resume {
        tack_session::find_session(&ctx, resume)?;
    }
    let model = ModelFlags::from_args(&args)?;
    let history = ctx
        .state_dir
        .join("history")
        .join(format!("{}.jsonl", project_key(&ctx.project_root)));
    let cwd = ctx.cwd.clone();
    let opener = Arc::new(CliOpener {
        ctx,
        model,
        args,
        mock: std::sync::Mutex::new(None),
    });
    let config = tack_tui::Config {
        first_prompt: opener.args.prompt.clone(),
        resume,
        history,
        cwd,
        color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    tack_tui::run(opener, config).await.map_err(|e| Failure {
        code: exit::INTERNAL,
        error: e,
    })
}

/// The history file's name for a project: its root, made a file name.
fn project_key(root: &std::path::Path) -> String {
    root.to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

struct CliOpener {
    ctx: ProjectContext,
    model: ModelFlags,
    args: RunArgs,
    /// `--mock`'s server, kept for the whole terminal session.
    mock: std::sync::Mutex<Option<tack_testkit::MockServer>>,
}

#[async_trait]
impl Opener for CliOpener {
    async fn open(
        &self,
        resume: Option<Resume>,
        interaction: Arc<dyn Interaction>,
        events: EventBus,
    ) -> anyhow::Result<Opened> {
        let (loaded, writer, session_id) = match &resume {
            Some(r) => {
                let (loaded, writer) = lock_and_load(&self.ctx, r).map_err(|f| f.error)?;
                let id = loaded.session_id.clone();
                (Some(loaded), writer, id)
            }
            None => {
                let id = uuid::Uuid::now_v7().to_string();
                let writer = TranscriptWriter::open(&self.ctx.sessions_dir(), &id)
                    .map_err(tack_session::Error::from)?;
                (None, writer, id)
            }
        };
        let transcript_path = writer.path().to_path_buf();
        let mut provider = self.model.provider.clone();
        provider.prompt_cache_key = Some(session_id.clone());
        // Only the first session starts the mock; /clear and /resume use it.
        let running = self
            .mock
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(tack_testkit::MockServer::url);
        let mock = match (self.args.mock, running) {
            (false, _) => Mock::Off,
            (true, Some(url)) => Mock::At(url),
            (true, None) => Mock::Start,
        };
        let (client, server) = model_client(&mut provider, mock)
            .await
            .map_err(|f| f.error)?;
        if let Some(server) = server {
            *self.mock.lock().unwrap_or_else(|p| p.into_inner()) = Some(server);
        }
        let agent_config = self.model.agent.clone();
        let model_name = agent_config
            .model
            .clone()
            .unwrap_or_else(|| client.model().to_owned());
        let context_window = self
            .model
            .compact
            .window
            .or_else(|| tack_model::pricing::price(&model_name).map(|p| p.context_window));
        let skill_options = tack_session::skills::SkillOptions {
            context_window,
            trust_project: self.args.session.trust_project_skills,
            ..Default::default()
        };
        let crate::sources::Sources {
            list: sources,
            mcp,
            skills,
        } = crate::sources::sources(
            self.args.session.fixture_tools,
            self.args.session.approve_mcp,
            skill_options,
        );
        mcp.set_model(Arc::clone(&client));
        let events = events.with(Arc::new(writer));
        let mut options = SessionOptions::new(session_id.clone())
            .sources(sources)
            .only_tools(self.args.tools.clone())
            .interaction(interaction)
            .events(events)
            .subagents(true)
            .tool_search(
                self.args
                    .session
                    .tool_search
                    .map(crate::cli::ToolSearchArg::mode),
            )
            .code_mode(self.args.session.code_mode)
            .context_window(context_window);
        if let Some(text) = &self.args.system_prompt {
            options = options.system_prompt(text.clone());
        }
        if let Some(text) = &self.args.append_system_prompt {
            options = options.append_system_prompt(text.clone());
        }
        let session = Session::assemble(&self.ctx, options).await?;
        let mut context = session
            .begin(Begin {
                provider: client.provider().to_owned(),
                model: model_name,
                resumed: loaded.is_some(),
            })
            .await;
        if loaded.is_some() {
            context.extend(mcp.late_results().await);
        }
        let mut agent_config = agent_config;
        agent_config.compaction = Some(self.model.compact.apply(session.compaction().clone()));
        let provider_name = client.provider().to_owned();
        let (agent, history) = match &loaded {
            Some(loaded) => (
                session.resume(client, agent_config, loaded),
                loaded.messages.clone(),
            ),
            None => (session.agent(client, agent_config), Vec::new()),
        };
        Ok(Opened {
            session,
            agent,
            context,
            history,
            provider: provider_name,
            mcp: Some(mcp),
            skills: Some(skills),
            transcript: transcript_path,
        })
    }

    fn find(&self, resume: &Resume) -> anyhow::Result<()> {
        tack_session::find_session(&self.ctx, resume)?;
        Ok(())
    }

    fn sessions(&self) -> Vec<SavedSession> {
        let cwd = self.ctx.cwd.to_string_lossy().into_owned();
        transcript::list(&self.ctx.sessions_dir())
            .into_iter()
            .filter(|s| s.cwd == cwd && !s.messages.is_empty())
            .map(|s| SavedSession {
                id: s.session_id,
                updated_ms: s.updated_ms,
                title: s.title,
                turns: s.turns,
            })
            .collect()
    }
}
