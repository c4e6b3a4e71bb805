//! The session's side of the interactive terminal: one task owns the
//! session and its loop and does what the UI asks, one thing at a time;
//! everything it has to say reaches the UI task as a [`Ui`] message. The UI
//! never waits on it: typing, redraws and Ctrl-C stay instant while a model
//! streams or a tool runs.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use tack_agent::{Agent, EventBus, EventObserver};
use tack_protocol::{ContentBlock, Message, RunStatus, SessionEvent, ToolOutcome};
use tack_session::{Interaction, PromptAnswer, PromptRequest, Resume, Session};
use tack_tool::{CallOptions, ToolCall, ToolHost as _};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::interaction::{Confirm, TuiInteraction};

/// Opens sessions for the interactive terminal: the composition root (the
/// settings, tool sources, model client and transcript) is the binary's;
/// the terminal only asks for a new session or a saved one.
#[async_trait]
pub trait Opener: Send + Sync {
    /// A new session (`resume` None) or a saved one, assembled with
    /// `interaction` for its questions and `events` among its observers (the
    /// opener adds the transcript), begun (SessionStart hooks run).
    async fn open(
        &self,
        resume: Option<Resume>,
        interaction: Arc<dyn Interaction>,
        events: EventBus,
    ) -> anyhow::Result<Opened>;

    /// The saved sessions of this project with a conversation, newest first
    /// (`/resume`).
    fn sessions(&self) -> Vec<SavedSession>;

    /// Whether `resume` names a saved session (checked before the current
    /// one is ended for it); the error says why not.
    fn find(&self, resume: &Resume) -> anyhow::Result<()>;
}

/// A saved session, for the `/resume` list.
#[derive(Debug, Clone)]
pub struct SavedSession {
    pub id: String,
    /// Last event, in ms since the epoch.
    pub updated_ms: u64,
    pub title: String,
    pub turns: u32,
}

/// A session the [`Opener`] assembled and began.
pub struct Opened {
    pub session: Session,
    pub agent: Agent,
    /// What SessionStart hooks (and late MCP results) add to the first prompt.
    pub context: Vec<String>,
    /// The conversation so far, when resumed (shown above the input).
    pub history: Vec<Message>,
    pub provider: String,
    /// The MCP servers (`/mcp`), when the session has the source.
    pub mcp: Option<Arc<tack_session::sources::Mcp>>,
    /// The skills (`/skills`, and `/name` for user-invocable ones).
    pub skills: Option<Arc<tack_session::skills::Skills>>,
    /// The session's transcript.
    pub transcript: PathBuf,
}

/// A skill the person can run as `/name`.
#[derive(Debug, Clone)]
pub struct SkillCommand {
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
}

/// What the session is, for the status line and the header.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub id: String,
    pub model: String,
    pub provider: String,
    pub mode: tack_policy::Mode,
    /// Shift-Tab's handle on the session's mode (applied at once).
    pub modes: tack_session::ModeSwitch,
    pub resumed: bool,
    pub history: Vec<Message>,
    pub skills: Vec<SkillCommand>,
    pub transcript: PathBuf,
    pub window: u64,
    pub threshold: u64,
    pub used: u64,
}

/// What the session tells the UI.
pub enum Ui {
    Opened(Box<SessionInfo>),
    /// Opening a session failed (the message says why); the old one, if
    /// any, goes on.
    OpenFailed(String),
    Event(Box<SessionEvent>),
    Ask(Box<PromptRequest>, oneshot::Sender<PromptAnswer>),
    Confirm(Confirm),
    Notice(String),
    /// Lines for the scrollback (a command's report).
    Report(Vec<String>),
    /// A piece of work ended; the context meter after it.
    Done {
        status: Option<RunStatus>,
        error: Option<String>,
        used: u64,
        window: u64,
    },
    ModelChanged(String),
    /// The saved sessions for `/resume`'s list (read off the UI task).
    Sessions(Vec<SavedSession>),
    /// The session ended and the worker stopped.
    Closed,
}

/// What the UI asks of the session, with the token that withdraws it: a
/// cancelled item that has not started is skipped (still answered with one
/// `Done`), one that runs is interrupted.
#[derive(Debug)]
pub enum Work {
    /// A prompt: its text, and the `@path`s it names to attach.
    Prompt {
        text: String,
        attach: Vec<String>,
    },
    /// `/skill-name args`: the skill loaded through the Skill tool, then a turn.
    Skill {
        name: String,
        args: String,
    },
    Compact {
        focus: Option<String>,
    },
    /// `!command`: Bash through the pipeline (rules, hooks, audit); its
    /// output joins the next prompt.
    Shell {
        command: String,
    },
    SetModel(String),
    Clear,
    Resume(String),
    Tools,
    Cost,
    Mcp,
    McpApprove(String),
    Skills,
    Permissions(crate::commands::Permissions),
    Quit,
}

/// Forwards the session's events to the UI.
struct Forward(mpsc::UnboundedSender<Ui>);

impl EventObserver for Forward {
    fn on_event(&self, event: &SessionEvent) {
        let _ = self.0.send(Ui::Event(Box::new(event.clone())));
    }
}

struct Current {
    opened: Opened,
    /// Context for the next prompt (SessionStart hooks, `!` output).
    pending: Vec<String>,
}

/// Runs the session until [`Work::Quit`] or the UI goes away.
pub(crate) async fn run(
    opener: Arc<dyn Opener>,
    resume: Option<Resume>,
    ui: mpsc::UnboundedSender<Ui>,
    mut work: mpsc::UnboundedReceiver<(Work, CancellationToken)>,
) {
    let interaction: Arc<dyn Interaction> = Arc::new(TuiInteraction { ui: ui.clone() });
    let open = |resume: Option<Resume>| {
        let events = EventBus::new().with(Arc::new(Forward(ui.clone())));
        let opener = Arc::clone(&opener);
        let interaction = Arc::clone(&interaction);
        async move { opener.open(resume, interaction, events).await }
    };
    let mut current = match open(resume.clone()).await {
        Ok(opened) => Some(start(opened, resume.is_some(), &ui)),
        Err(e) => {
            let _ = ui.send(Ui::OpenFailed(format!("{e:#}")));
            None
        }
    };
    while let Some((item, cancel)) = work.recv().await {
        if let Work::Quit = item {
            break;
        }
        if cancel.is_cancelled() {
            // Withdrawn before it started (Ctrl-C, Esc, quitting): a prompt
            // never reaches the conversation, a /clear opens nothing.
            done(&ui, current.as_mut(), Some(RunStatus::Interrupted), None);
            continue;
        }
        match item {
            Work::Clear | Work::Resume(_) => {
                let resume = match &item {
                    Work::Resume(id) => Some(Resume::Id(id.clone())),
                    _ => None,
                };
                let reason = if resume.is_some() { "resume" } else { "clear" };
                // A session that cannot be found leaves the current one be.
                if let Some(resume) = &resume
                    && let Err(e) = opener.find(resume)
                {
                    let _ = ui.send(Ui::OpenFailed(format!("{e:#}")));
                    done(&ui, current.as_mut(), None, None);
                    continue;
                }
                if let Some(old) = current.take() {
                    old.opened.session.end(reason).await;
                }
                match open(resume.clone()).await {
                    Ok(opened) => current = Some(start(opened, resume.is_some(), &ui)),
                    Err(e) => {
                        let _ = ui.send(Ui::OpenFailed(format!("{e:#}")));
                        // Nothing to go on with: a new session.
                        if resume.is_some()
                            && let Ok(opened) = open(None).await
                        {
                            current = Some(start(opened, false, &ui));
                        }
                    }
                }
                done(&ui, current.as_mut(), None, None);
            }
            other => match current.as_mut() {
                Some(cur) => handle(cur, other, &cancel, &ui).await,
                None => {
                    let _ = ui.send(Ui::Notice(
                        "no session is open (it could not be assembled); fix what was said above and run /clear".into(),
                    ));
                    done(&ui, None, None, None);
                }
            },
        }
    }
    if let Some(cur) = current {
        cur.opened.session.end("prompt_input_exit").await;
    }
    let _ = ui.send(Ui::Closed);
}

fn start(mut opened: Opened, resumed: bool, ui: &mpsc::UnboundedSender<Ui>) -> Current {
    let (window, used) = opened.agent.context_usage();
    let threshold = opened.agent.compaction_config().threshold.tokens(window);
    let skills = skill_commands(&opened);
    let info = SessionInfo {
        id: opened.session.id().to_owned(),
        model: opened.agent.model(),
        provider: opened.provider.clone(),
        mode: opened.session.permission_mode(),
        modes: opened.session.mode_switch(),
        resumed,
        history: std::mem::take(&mut opened.history),
        skills,
        transcript: opened.transcript.clone(),
        window,
        threshold,
        used,
    };
    let _ = ui.send(Ui::Opened(Box::new(info)));
    Current {
        pending: std::mem::take(&mut opened.context),
        opened,
    }
}

fn skill_commands(opened: &Opened) -> Vec<SkillCommand> {
    let Some(set) = opened.skills.as_ref().and_then(|s| s.set()) else {
        return Vec::new();
    };
    set.discovery
        .skills
        .iter()
        .filter(|s| s.frontmatter.user_invocable)
        .map(|s| SkillCommand {
            name: s.name.clone(),
            description: s.description.clone(),
            argument_hint: s.frontmatter.argument_hint.clone(),
        })
        .collect()
}

fn done(
    ui: &mpsc::UnboundedSender<Ui>,
    current: Option<&mut Current>,
    status: Option<RunStatus>,
    error: Option<String>,
) {
    let (window, used) = current
        .map(|c| c.opened.agent.context_usage())
        .unwrap_or_default();
    let _ = ui.send(Ui::Done {
        status,
        error,
        used,
        window,
    });
}

async fn handle(
    cur: &mut Current,
    work: Work,
    cancel: &CancellationToken,
    ui: &mpsc::UnboundedSender<Ui>,
) {
    match work {
        Work::Prompt { text, attach } => {
            let mut blocks = vec![ContentBlock::text(text)];
            for path in attach {
                if let Some(block) = attachment(cur, &path, cancel).await {
                    blocks.push(block);
                }
            }
            turn(cur, blocks, cancel, ui).await;
        }
        Work::Skill { name, args } => {
            let mut input = json!({ "skill": name });
            if !args.trim().is_empty() {
                input["args"] = json!(args);
            }
            let (ok, text) = user_call(cur, "Skill", input, cancel).await;
            if !ok {
                let _ = ui.send(Ui::Notice(format!("/{name}: {text}")));
                done(ui, Some(cur), None, None);
                return;
            }
            let mut blocks = vec![ContentBlock::text(format!(
                "The user ran the skill /{name}{}. Its instructions:\n\n{text}",
                if args.trim().is_empty() {
                    String::new()
                } else {
                    format!(" with: {args}")
                }
            ))];
            if !args.trim().is_empty() {
                blocks.push(ContentBlock::text(args));
            }
            turn(cur, blocks, cancel, ui).await;
        }
        Work::Compact { focus } => {
            let agent = &mut cur.opened.agent;
            let error = match agent.compact(focus.as_deref(), cancel).await {
                Ok(Some(_)) => None,
                Ok(None) => Some(
                    "nothing to compact: the conversation has no older turns or large tool results"
                        .to_owned(),
                ),
                Err(e) => Some(e.to_string()),
            };
            done(ui, Some(cur), None, error);
        }
        Work::Shell { command } => {
            let input =
                json!({ "command": command, "description": "run by the user (! in the prompt)" });
            let (_, text) = user_call(cur, "Bash", input, cancel).await;
            cur.pending.push(format!(
                "<bash-input>{command}</bash-input>\n<bash-output>{text}</bash-output>"
            ));
            done(ui, Some(cur), None, None);
        }
        Work::SetModel(model) => {
            cur.opened.agent.set_model(model.clone());
            let _ = ui.send(Ui::ModelChanged(model));
            done(ui, Some(cur), None, None);
        }
        Work::Tools => {
            let _ = ui.send(Ui::Report(crate::report::tools(&cur.opened.session)));
            done(ui, Some(cur), None, None);
        }
        Work::Cost => {
            let agent = &cur.opened.agent;
            let _ = ui.send(Ui::Report(crate::report::cost(
                &agent.model(),
                agent.session_usage(),
            )));
            done(ui, Some(cur), None, None);
        }
        Work::Mcp => {
            let _ = ui.send(Ui::Report(crate::report::mcp(cur.opened.mcp.as_deref())));
            done(ui, Some(cur), None, None);
        }
        Work::McpApprove(server) => {
            let text = crate::report::mcp_approve(cur.opened.mcp.as_deref(), &server).await;
            let _ = ui.send(Ui::Report(text));
            done(ui, Some(cur), None, None);
        }
        Work::Skills => {
            let _ = ui.send(Ui::Report(crate::report::skills(
                cur.opened.skills.as_deref(),
            )));
            done(ui, Some(cur), None, None);
        }
        Work::Permissions(command) => {
            let _ = ui.send(Ui::Report(crate::report::permissions(
                &cur.opened.session,
                command,
            )));
            done(ui, Some(cur), None, None);
        }
        Work::Clear | Work::Resume(_) | Work::Quit => {}
    }
}

/// One turn of the loop with `blocks` as the prompt (and what is pending).
async fn turn(
    cur: &mut Current,
    mut blocks: Vec<ContentBlock>,
    cancel: &CancellationToken,
    ui: &mpsc::UnboundedSender<Ui>,
) {
    blocks.extend(
        std::mem::take(&mut cur.pending)
            .into_iter()
            .map(ContentBlock::text),
    );
    let outcome = cur.opened.agent.run(Some(blocks), cancel).await;
    let error = outcome
        .error
        .as_ref()
        .map(ToString::to_string)
        .or(outcome.error_text.clone());
    done(ui, Some(cur), Some(outcome.status), error);
}

/// A file named with `@path`, read through the pipeline's Read (its rules,
/// hooks and audit): the block to add, or None when it was refused (the
/// refusal is on the screen as the call's result).
async fn attachment(cur: &Current, path: &str, cancel: &CancellationToken) -> Option<ContentBlock> {
    let (ok, text) = user_call(cur, "Read", json!({ "file_path": path }), cancel).await;
    ok.then(|| {
        ContentBlock::text(format!(
            "Contents of {path} (attached by the user with @):\n{text}"
        ))
    })
}

/// A call the person made (`!`, `@path`, `/skill`), through the session's
/// pipeline like the model's: validated, permission-checked, hooked and
/// audited. Whether it succeeded, and its text.
async fn user_call(
    cur: &Current,
    name: &str,
    input: serde_json::Value,
    cancel: &CancellationToken,
) -> (bool, String) {
    let call = ToolCall {
        id: format!("toolu_user_{}", uuid::Uuid::now_v7().simple()),
        name: name.to_owned(),
        input,
    };
    let result = cur
        .opened
        .session
        .pipeline()
        .call(call, CallOptions::new(cancel.clone()))
        .await;
    (result.outcome == ToolOutcome::Ok, result.block.text())
}
