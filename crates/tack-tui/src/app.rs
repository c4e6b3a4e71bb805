//! The UI task: the terminal, the keys, the screen. It owns an inline
//! viewport at the bottom of the terminal (live text, running tools, a
//! question, the input, the status line); everything finished goes above
//! it, into the terminal's own scrollback, where search and copy work.
//!
//! The loop never waits on the session: keys, session messages and the
//! spinner's tick arrive on one `select!`, messages are drained in a batch,
//! and the screen is drawn once per batch.

use std::collections::VecDeque;
use std::io::Stdout;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Position};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Paragraph, Widget as _, Wrap};
use ratatui::{Frame, Terminal};
use tack_policy::Mode;
use tack_protocol::{RunStatus, SessionEvent, ToolOutcome, Usage};
use tack_session::{PromptAnswer, PromptRequest};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::commands::{self, Command};
use crate::history::History;
use crate::input::{Edit, Input};
use crate::interaction::Confirm;
use crate::markdown;
use crate::view::{self, Theme};
use crate::worker::{Opener, SavedSession, SessionInfo, Ui, Work};

type Term = Terminal<crate::backend::Tracked<Stdout>>;

/// The prompt's mark.
const PROMPT: &str = "› ";
/// Results kept for Ctrl-O (the newest).
const KEPT_RESULTS: usize = 50;
/// What of a result is kept for Ctrl-O, and shown of it.
const KEPT_RESULT_BYTES: usize = 256 * 1024;
const EXPANDED_LINES: usize = 200;
/// The second Ctrl-C on an empty input exits within this (the hint that
/// says so stays as long).
const EXIT_WINDOW: Duration = Duration::from_secs(3);
/// A question ignores keys for this long after it appears: what was being
/// typed for the prompt is not taken as its answer.
const QUESTION_GRACE: Duration = Duration::from_millis(400);
const SPINNER: &[&str] = &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

struct Running {
    id: String,
    name: String,
    summary: String,
    started: Instant,
    progress: Option<String>,
}

struct Kept {
    title: String,
    text: String,
    expanded: bool,
}

/// A question on screen.
enum Question {
    Permission {
        request: Box<PromptRequest>,
        reply: Option<oneshot::Sender<PromptAnswer>>,
        stage: AskStage,
    },
    Confirm(Confirm),
}

#[derive(PartialEq, Eq)]
enum AskStage {
    Choose,
    /// Typing the reason for the model (in the input area).
    Reason,
    /// Editing the rule "always" saves (in the input area).
    Rule,
}

/// `/resume`'s list.
struct Picker {
    sessions: Vec<SavedSession>,
    selected: usize,
}

/// Ctrl-R.
struct Search {
    query: String,
    skip: usize,
    /// The draft before the search began (Esc gives it back).
    draft: String,
}

pub(crate) struct App {
    theme: Theme,
    opener: Arc<dyn Opener>,
    work: mpsc::UnboundedSender<(Work, CancellationToken)>,
    /// For messages of the UI's own helpers (`/log`, `/resume`'s list):
    /// weak, so a worker that died closes the channel.
    ui_tx: mpsc::WeakUnboundedSender<Ui>,
    info: Option<SessionInfo>,
    input: Input,
    /// The draft set aside while a question uses the input area.
    stashed: Option<String>,
    history: History,
    mode: Mode,
    /// Shift-Tab offers bypassPermissions only when the session began in it.
    bypass_in_cycle: bool,
    /// Work sent and not done, oldest first, with its cancel token.
    pending: VecDeque<(String, CancellationToken)>,
    busy_since: Option<Instant>,
    stream: markdown::Stream,
    streamed: bool,
    running: Vec<Running>,
    kept: VecDeque<Kept>,
    questions: VecDeque<Question>,
    /// When the question in front appeared.
    question_since: Instant,
    picker: Option<Picker>,
    search: Option<Search>,
    usage: Usage,
    window: u64,
    used: u64,
    threshold: u64,
    last_ctrl_c: Option<Instant>,
    hint: Option<(String, Instant)>,
    /// Lines for the scrollback, inserted at the next draw.
    out: Vec<Line<'static>>,
    quitting: bool,
    closed: bool,
    tick: usize,
    cwd: PathBuf,
}

impl App {
    pub(crate) fn new(
        theme: Theme,
        opener: Arc<dyn Opener>,
        work: mpsc::UnboundedSender<(Work, CancellationToken)>,
        ui_tx: mpsc::WeakUnboundedSender<Ui>,
        history: History,
        cwd: PathBuf,
    ) -> Self {
        Self {
            theme,
            opener,
            work,
            ui_tx,
            info: None,
            input: Input::new(),
            stashed: None,
            history,
            mode: Mode::Default,
            bypass_in_cycle: false,
            pending: VecDeque::new(),
            busy_since: None,
            stream: markdown::Stream::default(),
            streamed: false,
            running: Vec::new(),
            kept: VecDeque::new(),
            questions: VecDeque::new(),
            question_since: Instant::now(),
            picker: None,
            search: None,
            usage: Usage::default(),
            window: 0,
            used: 0,
            threshold: 0,
            last_ctrl_c: None,
            hint: None,
            out: Vec::new(),
            quitting: false,
            closed: false,
            tick: 0,
            cwd,
        }
    }

    /// Runs until the person exits; the session was ended by then.
    pub(crate) async fn run(
        mut self,
        terminal: &mut Term,
        mut ui: mpsc::UnboundedReceiver<Ui>,
        first_prompt: Option<String>,
    ) -> std::io::Result<Option<String>> {
        let mut keys = crate::keys::Reader::start();
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        self.draw(terminal)?;
        if let Some(prompt) = first_prompt {
            self.submit(prompt);
        }
        let mut quit_deadline: Option<Instant> = None;
        let mut keys_open = true;
        loop {
            tokio::select! {
                biased;
                key = keys.next(), if keys_open => match key {
                    Some(Ok(event)) => {
                        self.on_terminal(event, terminal)?;
                        // A burst (a paste, fast typing) is handled before one draw.
                        while let Some(Ok(event)) = keys.try_next() {
                            self.on_terminal(event, terminal)?;
                        }
                    }
                    // The terminal is gone (a closed SSH connection): the
                    // session ends as if the person had quit, saved.
                    Some(Err(_)) | None => {
                        keys_open = false;
                        self.quit();
                    }
                },
                message = ui.recv() => match message {
                    Some(message) => {
                        self.on_ui(message);
                        // A burst (streamed text) is drawn once.
                        while let Ok(message) = ui.try_recv() {
                            self.on_ui(message);
                        }
                    }
                    None => self.closed = true,
                },
                _ = tick.tick() => {
                    self.tick = self.tick.wrapping_add(1);
                }
            }
            for line in crate::stderr::drain() {
                self.out
                    .push(Line::styled(format!("  {line}"), self.theme.dim()));
            }
            self.draw(terminal)?;
            let deadline_passed = self.quitting
                && Instant::now()
                    > *quit_deadline.get_or_insert_with(|| Instant::now() + Duration::from_secs(5));
            if self.closed || deadline_passed {
                return Ok(self.info.map(|i| i.id));
            }
        }
    }

    // ---------------------------------------------------------------- keys

    fn on_terminal(&mut self, event: Event, terminal: &mut Term) -> std::io::Result<()> {
        match event {
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Event::Paste(text) if self.search.is_none() && self.picker.is_none() => {
                self.input.insert_str(&text);
            }
            // ratatui's resize clears the viewport and places it again.
            Event::Resize(_, _) => terminal.autoresize()?,
            _ => {}
        }
        Ok(())
    }

    fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c();
        }
        if self.questions.front().is_some() {
            return self.question_key(key);
        }
        if self.picker.is_some() {
            return self.picker_key(key);
        }
        if self.search.is_some() {
            return self.search_key(key);
        }
        match (key.code, ctrl) {
            (KeyCode::Esc, _) => {
                if let Some((_, cancel)) = self.pending.front() {
                    cancel.cancel();
                    self.say("interrupting…");
                }
                return;
            }
            (KeyCode::BackTab, _) => return self.cycle_mode(),
            (KeyCode::Char('r'), true) => {
                self.search = Some(Search {
                    query: String::new(),
                    skip: 0,
                    draft: self.input.text().to_owned(),
                });
                return;
            }
            (KeyCode::Char('o'), true) => return self.expand(),
            (KeyCode::Char('d'), true) if self.input.is_empty() => return self.quit(),
            (KeyCode::Char('l'), true) => return,
            (KeyCode::Tab, _) => return self.complete(),
            _ => {}
        }
        match self.input.handle_key(key) {
            Edit::Submit => {
                let text = self.input.take();
                self.history.reset_navigation();
                self.submit(text);
            }
            Edit::HistoryPrev => {
                let current = self.input.text().to_owned();
                if let Some(text) = self.history.prev(&current).map(str::to_owned) {
                    self.input.set_text(&text);
                }
            }
            Edit::HistoryNext => {
                if let Some(text) = self.history.next().map(str::to_owned) {
                    self.input.set_text(&text);
                }
            }
            Edit::Changed | Edit::Unchanged | Edit::NotMine => {}
        }
    }

    /// Ctrl-C: deny the question and stop the turn; else stop the work;
    /// else clear the input; twice on an empty input, exit.
    fn ctrl_c(&mut self) {
        if let Some(question) = self.questions.pop_front() {
            self.answer_question(
                question,
                false,
                Some("the user pressed Ctrl-C at the permission prompt".into()),
            );
            self.interrupt_all();
            return;
        }
        if self.picker.take().is_some() {
            return;
        }
        if let Some(search) = self.search.take() {
            self.input.set_text(&search.draft);
            return;
        }
        if !self.pending.is_empty() {
            self.interrupt_all();
            return;
        }
        if !self.input.is_empty() {
            self.input.clear();
            return;
        }
        match self.last_ctrl_c {
            Some(at) if at.elapsed() < EXIT_WINDOW => self.quit(),
            _ => {
                self.last_ctrl_c = Some(Instant::now());
                self.say("press Ctrl-C again to exit");
            }
        }
    }

    fn interrupt_all(&mut self) {
        for (_, cancel) in &self.pending {
            cancel.cancel();
        }
        if !self.pending.is_empty() {
            self.say("interrupting…");
        }
    }

    fn question_key(&mut self, key: KeyEvent) {
        // Keys typed for the prompt just before a question appeared are
        // not its answer.
        if self.question_since.elapsed() < QUESTION_GRACE {
            return;
        }
        if key.code == KeyCode::Char('v')
            && !matches!(
                self.questions.front(),
                Some(Question::Permission {
                    stage: AskStage::Reason | AskStage::Rule,
                    ..
                })
            )
        {
            return self.view_question();
        }
        let Some(question) = self.questions.front_mut() else {
            return;
        };
        match question {
            Question::Confirm(_) => {
                let yes = match key.code {
                    KeyCode::Char('y' | 'Y') => true,
                    KeyCode::Char('n' | 'N') | KeyCode::Esc => false,
                    _ => return,
                };
                if let Some(question) = self.questions.pop_front() {
                    self.question_since = Instant::now();
                    self.answer_question(question, yes, None);
                }
            }
            Question::Permission { request, stage, .. } => match stage {
                AskStage::Choose => match key.code {
                    KeyCode::Char('y' | 'Y') | KeyCode::Char('1') => {
                        self.answer_permission(PromptAnswer::AllowOnce)
                    }
                    KeyCode::Char('a' | 'A') | KeyCode::Char('2')
                        if request.always_rule.is_some() =>
                    {
                        self.answer_permission(PromptAnswer::AllowAlways)
                    }
                    KeyCode::Char('e' | 'E') if request.always_rule.is_some() => {
                        let rule = request.always_rule.clone().unwrap_or_default();
                        *stage = AskStage::Rule;
                        self.stash_input(&rule);
                    }
                    KeyCode::Char('n' | 'N') | KeyCode::Char('3') => {
                        *stage = AskStage::Reason;
                        self.stash_input("");
                    }
                    KeyCode::Esc => {
                        self.answer_permission(PromptAnswer::Deny {
                            reason: "the user pressed Esc: denied, and the turn was stopped".into(),
                        });
                        if let Some((_, cancel)) = self.pending.front() {
                            cancel.cancel();
                        }
                    }
                    _ => {}
                },
                AskStage::Reason | AskStage::Rule => {
                    let rule = *stage == AskStage::Rule;
                    if key.code == KeyCode::Esc {
                        *stage = AskStage::Choose;
                        self.unstash_input();
                        return;
                    }
                    if let Edit::Submit = self.input.handle_key(key) {
                        let text = self.input.take();
                        self.unstash_input();
                        let answer = if rule {
                            PromptAnswer::AllowRule { rule: text }
                        } else if text.trim().is_empty() {
                            PromptAnswer::Deny {
                                reason: "the user denied this call".into(),
                            }
                        } else {
                            PromptAnswer::Deny {
                                reason: format!("the user denied this call: {}", text.trim()),
                            }
                        };
                        self.answer_permission(answer);
                    }
                }
            },
        }
    }

    /// A question for the person: shown when those before it are answered;
    /// after the person asked to exit, denied at once.
    fn ask(&mut self, question: Question) {
        if self.quitting {
            return self.answer_question(question, false, Some("the user exited".into()));
        }
        if self.questions.is_empty() {
            self.question_since = Instant::now();
        }
        self.questions.push_back(question);
    }

    fn stash_input(&mut self, text: &str) {
        self.stashed = Some(self.input.text().to_owned());
        self.input.set_text(text);
    }

    fn unstash_input(&mut self) {
        let text = self.stashed.take().unwrap_or_default();
        self.input.set_text(&text);
    }

    fn answer_permission(&mut self, answer: PromptAnswer) {
        let Some(Question::Permission { request, reply, .. }) = self.questions.pop_front() else {
            return;
        };
        self.question_since = Instant::now();
        let said = match &answer {
            PromptAnswer::AllowOnce => "allowed once".to_owned(),
            PromptAnswer::AllowAlways => format!(
                "allowed; always allow `{}` (/permissions shows whether it was saved)",
                request.always_rule.as_deref().unwrap_or("")
            ),
            PromptAnswer::AllowRule { rule } => {
                format!("allowed; always allow `{rule}` (/permissions shows whether it was saved)")
            }
            PromptAnswer::Deny { reason } => format!("denied ({reason})"),
            PromptAnswer::AllowWithInput { .. } => "allowed".to_owned(),
        };
        self.out.push(Line::from(vec![
            self.theme.span("  ⏵ ", Style::default().fg(Color::Yellow)),
            self.theme
                .span(format!("{}: {said}", request.call), self.theme.dim()),
        ]));
        if let Some(reply) = reply {
            let _ = reply.send(answer);
        }
    }

    fn answer_question(&mut self, question: Question, yes: bool, reason: Option<String>) {
        match question {
            Question::Permission {
                request,
                reply,
                stage,
            } => {
                if stage != AskStage::Choose {
                    self.unstash_input();
                }
                self.questions.push_front(Question::Permission {
                    request,
                    reply,
                    stage: AskStage::Choose,
                });
                self.answer_permission(PromptAnswer::Deny {
                    reason: reason.unwrap_or_else(|| "the user denied this call".into()),
                });
            }
            Question::Confirm(confirm) => {
                self.out.push(Line::styled(
                    format!("  {}: {}", confirm.title, if yes { "yes" } else { "no" }),
                    self.theme.dim(),
                ));
                let _ = confirm.reply.send(yes);
            }
        }
    }

    fn picker_key(&mut self, key: KeyEvent) {
        let Some(picker) = self.picker.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Up => picker.selected = picker.selected.saturating_sub(1),
            KeyCode::Down => {
                picker.selected =
                    (picker.selected + 1).min(picker.sessions.len().saturating_sub(1));
            }
            KeyCode::Enter => {
                let chosen = picker.sessions.get(picker.selected).map(|s| s.id.clone());
                self.picker = None;
                if let Some(id) = chosen {
                    self.send("/resume".into(), Work::Resume(id));
                }
            }
            KeyCode::Esc => self.picker = None,
            _ => {}
        }
    }

    fn search_key(&mut self, key: KeyEvent) {
        let Some(search) = self.search.as_mut() else {
            return;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('r') if ctrl => search.skip += 1,
            KeyCode::Char(c) if !ctrl => {
                search.query.push(c);
                search.skip = 0;
            }
            KeyCode::Backspace => {
                search.query.pop();
                search.skip = 0;
            }
            KeyCode::Esc | KeyCode::Char('g') => {
                let draft = std::mem::take(&mut search.draft);
                self.search = None;
                self.input.set_text(&draft);
            }
            KeyCode::Enter | KeyCode::Right | KeyCode::Left | KeyCode::Tab => {
                let found = self
                    .history
                    .search(&search.query, search.skip)
                    .map(|(_, t)| t.to_owned());
                let draft = std::mem::take(&mut search.draft);
                self.search = None;
                self.input.set_text(found.as_deref().unwrap_or(&draft));
            }
            _ => {}
        }
    }

    /// Shift-Tab: default → acceptEdits → plan (→ bypassPermissions, when
    /// the session began in it) → default.
    fn cycle_mode(&mut self) {
        let next = match self.mode {
            Mode::Default => Mode::AcceptEdits,
            Mode::AcceptEdits => Mode::Plan,
            Mode::Plan if self.bypass_in_cycle => Mode::BypassPermissions,
            _ => Mode::Default,
        };
        // At once, even while a turn runs: the next decision sees it.
        let Some(info) = &self.info else {
            return;
        };
        match info.modes.set(next) {
            Ok(()) => self.mode = next,
            Err(e) => self.say(&e),
        }
    }

    /// Tab: a command's name after `/`, a path after `@`.
    fn complete(&mut self) {
        let text = self.input.text().to_owned();
        let skills: Vec<String> = self
            .info
            .as_ref()
            .map(|i| i.skills.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        match commands::complete(&text, &self.cwd, &skills) {
            commands::Completion::One(done) => self.input.set_text(&done),
            commands::Completion::Many(options) => {
                self.say(&options.join("  "));
            }
            commands::Completion::None => {}
        }
    }

    /// Ctrl-O: the newest collapsed result, whole (up to a limit), into the
    /// scrollback.
    fn expand(&mut self) {
        let Some(kept) = self.kept.iter_mut().rev().find(|k| !k.expanded) else {
            self.say("no collapsed result to expand");
            return;
        };
        kept.expanded = true;
        let title = kept.title.clone();
        let lines: Vec<String> = kept.text.lines().map(str::to_owned).collect();
        let more = lines.len().saturating_sub(EXPANDED_LINES);
        self.out
            .push(Line::styled(format!("  ┌ {title}"), self.theme.dim()));
        for line in lines.into_iter().take(EXPANDED_LINES) {
            self.out
                .push(Line::raw(format!("  │ {}", view::plain(&line))));
        }
        if more > 0 {
            self.out.push(Line::styled(
                format!("  └ … {more} more line(s): the whole result is in the transcript (/log)"),
                self.theme.dim(),
            ));
        } else {
            self.out
                .push(Line::styled("  └".to_owned(), self.theme.dim()));
        }
    }

    fn quit(&mut self) {
        if self.quitting {
            return;
        }
        self.quitting = true;
        self.interrupt_all();
        for question in std::mem::take(&mut self.questions) {
            self.answer_question(question, false, Some("the user exited".into()));
        }
        let _ = self.work.send((Work::Quit, CancellationToken::new()));
    }

    fn say(&mut self, text: &str) {
        self.hint = Some((text.to_owned(), Instant::now()));
    }

    // -------------------------------------------------------------- submit

    fn submit(&mut self, text: String) {
        if text.trim().is_empty() {
            return;
        }
        if let Err(e) = self.history.add(&text) {
            self.say(&format!("history not saved: {e}"));
        }
        let echo = Line::from(vec![
            self.theme.span(PROMPT, Style::default().fg(Color::Cyan)),
            self.theme.span(
                text.lines().next().unwrap_or("").to_owned(),
                Style::default().add_modifier(Modifier::BOLD),
            ),
        ]);
        // A long paste is shown by its size, not line by line.
        let lines = text.lines().count();
        if lines > 12 {
            let first = text.lines().next().unwrap_or("").to_owned();
            self.out.push(Line::from(vec![
                self.theme.span(PROMPT, Style::default().fg(Color::Cyan)),
                Span::raw(view::one_line(&first, 120)),
            ]));
            self.out.push(Line::styled(
                format!("  … {lines} lines, {} characters", text.chars().count()),
                self.theme.dim(),
            ));
        } else {
            for (i, line) in text.lines().enumerate() {
                if i == 0 {
                    self.out.push(echo.clone());
                } else {
                    self.out.push(Line::raw(format!("  {line}")));
                }
            }
        }
        let skills: Vec<String> = self
            .info
            .as_ref()
            .map(|i| i.skills.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        match commands::parse(&text, &skills) {
            Command::Prompt { text, attach } => {
                let attach = attach.iter().map(|p| absolute(&self.cwd, p)).collect();
                self.send("prompt".into(), Work::Prompt { text, attach });
            }
            Command::Shell(command) => self.send("!".into(), Work::Shell { command }),
            Command::Skill { name, args } => {
                self.send(format!("/{name}"), Work::Skill { name, args });
            }
            Command::Compact(focus) => self.send("/compact".into(), Work::Compact { focus }),
            Command::Clear => {
                self.out.push(Line::styled(
                    "── new session ──".to_owned(),
                    self.theme.dim(),
                ));
                self.send("/clear".into(), Work::Clear);
            }
            Command::Resume(Some(id)) => self.send("/resume".into(), Work::Resume(id)),
            Command::Resume(None) => {
                // While /clear or /resume opens another, the one on the
                // status line is no longer the current session.
                let opening = self
                    .pending
                    .iter()
                    .any(|(what, _)| what == "/clear" || what == "/resume");
                let current = self
                    .info
                    .as_ref()
                    .filter(|_| !opening)
                    .map(|i| i.id.clone());
                // Reading the transcripts takes what it takes: not on this task.
                let opener = Arc::clone(&self.opener);
                let Some(ui) = self.ui_tx.upgrade() else {
                    return;
                };
                tokio::task::spawn_blocking(move || {
                    let sessions: Vec<SavedSession> = opener
                        .sessions()
                        .into_iter()
                        .filter(|s| Some(&s.id) != current.as_ref())
                        .take(20)
                        .collect();
                    let _ = ui.send(Ui::Sessions(sessions));
                });
            }
            Command::Model(None) => {
                let model = self
                    .info
                    .as_ref()
                    .map(|i| i.model.clone())
                    .unwrap_or_default();
                self.report(commands::model_help(&model));
            }
            Command::Model(Some(model)) => self.send("/model".into(), Work::SetModel(model)),
            Command::Permissions(spec) => self.send("/permissions".into(), Work::Permissions(spec)),
            Command::Tools => self.send("/tools".into(), Work::Tools),
            Command::Skills => self.send("/skills".into(), Work::Skills),
            Command::Mcp(None) => self.send("/mcp".into(), Work::Mcp),
            Command::Mcp(Some(server)) => self.send("/mcp".into(), Work::McpApprove(server)),
            Command::Cost => self.send("/cost".into(), Work::Cost),
            Command::Log => self.log(),
            Command::Help => {
                let skills = self
                    .info
                    .as_ref()
                    .map(|i| i.skills.clone())
                    .unwrap_or_default();
                self.report(commands::help(&skills));
            }
            Command::Exit => self.quit(),
            Command::Unknown(message) => self.report(vec![message]),
        }
    }

    fn send(&mut self, what: String, work: Work) {
        let cancel = CancellationToken::new();
        if self.work.send((work, cancel.clone())).is_err() {
            self.report(vec!["the session has ended".into()]);
            return;
        }
        if self.pending.is_empty() {
            self.busy_since = Some(Instant::now());
        }
        self.pending.push_back((what, cancel));
    }

    /// `/log`: `tack log` of this session, run as a command so it reads
    /// exactly as it does outside.
    fn log(&mut self) {
        let Some(info) = &self.info else {
            return;
        };
        let id = info.id.clone();
        let Some(ui) = self.ui_tx.upgrade() else {
            return;
        };
        tokio::spawn(async move {
            let exe = std::env::current_exe().unwrap_or_else(|_| "tack".into());
            let lines = match tack_process::tokio_command(exe)
                .args(["log", &id])
                .env("NO_COLOR", "1")
                .output()
                .await
            {
                Ok(out) => {
                    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
                    text.push_str(&String::from_utf8_lossy(&out.stderr));
                    text.lines().map(str::to_owned).collect()
                }
                Err(e) => vec![format!("tack log could not run: {e}")],
            };
            let _ = ui.send(Ui::Report(lines));
        });
    }

    fn report(&mut self, lines: Vec<String>) {
        for line in lines {
            self.out
                .push(Line::raw(format!("  {}", view::plain(&line))));
        }
    }

    // ------------------------------------------------------------- session

    fn on_ui(&mut self, message: Ui) {
        match message {
            Ui::Opened(info) => {
                self.mode = info.mode;
                if info.mode == Mode::BypassPermissions {
                    self.bypass_in_cycle = true;
                }
                self.window = info.window;
                self.used = info.used;
                self.threshold = info.threshold;
                self.usage = Usage::default();
                let header = Line::from(vec![
                    self.theme.span("tack ", self.theme.bold()),
                    self.theme.span(
                        format!(
                            "{} · {} · {} · session {}",
                            env!("CARGO_PKG_VERSION"),
                            info.model,
                            self.cwd.display(),
                            info.id
                        ),
                        self.theme.dim(),
                    ),
                ]);
                self.out.push(header);
                if info.resumed {
                    self.out
                        .extend(view::conversation(self.theme, &info.history, 40));
                    self.out.push(Line::styled(
                        format!("  resumed: {} message(s)", info.history.len()),
                        self.theme.dim(),
                    ));
                } else {
                    self.out.push(Line::styled(
                        "  /help for commands · shift+tab changes the permission mode · esc stops a turn".to_owned(),
                        self.theme.dim(),
                    ));
                }
                self.info = Some(*info);
            }
            Ui::OpenFailed(message) => {
                self.out.push(Line::styled(
                    format!("tack: the session could not start: {message}"),
                    self.theme.fg(Color::Red),
                ));
            }
            Ui::Event(event) => self.on_event(*event),
            Ui::Ask(request, reply) => self.ask(Question::Permission {
                request,
                reply: Some(reply),
                stage: AskStage::Choose,
            }),
            Ui::Confirm(confirm) => self.ask(Question::Confirm(confirm)),
            Ui::Notice(text) => self.out.push(Line::styled(
                format!("  tack: {text}"),
                self.theme.fg(Color::Yellow),
            )),
            Ui::Report(lines) => self.report(lines),
            Ui::Done {
                status,
                error,
                used,
                window,
            } => {
                self.flush_stream();
                self.running.clear();
                self.pending.pop_front();
                self.busy_since = (!self.pending.is_empty()).then(Instant::now);
                if window > 0 {
                    self.window = window;
                }
                self.used = used;
                match status {
                    Some(RunStatus::Interrupted) => self.out.push(Line::styled(
                        "  ⏹ interrupted".to_owned(),
                        self.theme.fg(Color::Yellow),
                    )),
                    Some(RunStatus::MaxTurns) => self.out.push(Line::styled(
                        "  the turn limit was reached".to_owned(),
                        self.theme.fg(Color::Yellow),
                    )),
                    Some(RunStatus::MaxTokens) => self.out.push(Line::styled(
                        "  the answer was cut at the output limit".to_owned(),
                        self.theme.fg(Color::Yellow),
                    )),
                    _ => {}
                }
                if let Some(error) = error {
                    self.out.push(Line::styled(
                        format!("  tack: {error}"),
                        self.theme.fg(Color::Red),
                    ));
                }
            }
            Ui::ModelChanged(model) => {
                if let Some(info) = self.info.as_mut() {
                    info.model = model.clone();
                }
                self.report(vec![format!("model: {model} from the next request")]);
            }
            Ui::Sessions(sessions) if sessions.is_empty() => {
                self.report(vec!["no saved conversation here to resume".into()]);
            }
            Ui::Sessions(sessions) => {
                self.picker = Some(Picker {
                    sessions,
                    selected: 0,
                });
            }
            Ui::Closed => self.closed = true,
        }
    }

    fn on_event(&mut self, event: SessionEvent) {
        match event {
            SessionEvent::TextDelta { text } => {
                self.streamed = true;
                if let Some(block) = self.stream.push(&text) {
                    self.push_markdown(&block);
                }
            }
            SessionEvent::Message { message } if message.role == tack_protocol::Role::Assistant => {
                if self.streamed {
                    self.flush_stream();
                } else {
                    let text = message.text();
                    if !text.trim().is_empty() {
                        self.push_markdown(&text);
                    }
                }
                self.streamed = false;
            }
            SessionEvent::Retry {
                attempt, reason, ..
            } => {
                self.stream = markdown::Stream::default();
                self.streamed = false;
                self.out.push(Line::styled(
                    format!("  retrying (attempt {attempt}): {reason}"),
                    self.theme.fg(Color::Yellow),
                ));
            }
            SessionEvent::ToolCall { id, name, input } => {
                self.flush_stream();
                let summary = view::summarize(&name, &input);
                self.running.push(Running {
                    id,
                    name,
                    summary,
                    started: Instant::now(),
                    progress: None,
                });
            }
            SessionEvent::ToolProgress {
                tool_use_id,
                progress,
                total,
                message,
                ..
            } => {
                if let Some(r) = self.running.iter_mut().find(|r| r.id == tool_use_id) {
                    let amount = match total {
                        Some(total) => format!("{progress}/{total}"),
                        None => format!("{progress}"),
                    };
                    r.progress = Some(match message {
                        Some(m) => format!("{amount} {m}"),
                        None => amount,
                    });
                }
            }
            SessionEvent::ToolResult {
                tool_use_id,
                name,
                outcome,
                is_error,
                content,
                duration_ms,
                ..
            } => {
                let summary = match self.running.iter().position(|r| r.id == tool_use_id) {
                    Some(i) => self.running.remove(i).summary,
                    None => String::new(),
                };
                let text: String = content
                    .iter()
                    .filter_map(|b| match b {
                        tack_protocol::ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                self.out.push(view::call_line(self.theme, &name, &summary));
                self.out.push(view::result_line(
                    self.theme,
                    outcome,
                    is_error || outcome != ToolOutcome::Ok,
                    &text,
                    duration_ms,
                ));
                let mut kept = text;
                if kept.len() > KEPT_RESULT_BYTES {
                    let cut = tack_tool::floor_char(&kept, KEPT_RESULT_BYTES);
                    kept.truncate(cut);
                }
                self.kept.push_back(Kept {
                    title: format!("{name}({summary})"),
                    text: kept,
                    expanded: false,
                });
                if self.kept.len() > KEPT_RESULTS {
                    self.kept.pop_front();
                }
            }
            SessionEvent::TurnEnd { usage, .. } => {
                self.usage.add(&usage);
                self.used = usage.input_total() + usage.output_tokens;
            }
            SessionEvent::Result { session_usage, .. } => {
                self.usage = session_usage;
            }
            SessionEvent::Compaction {
                trigger,
                reason,
                tokens_before,
                tokens_after,
                ..
            } => {
                self.used = tokens_after;
                self.out.push(Line::styled(
                    format!(
                        "  ⟳ compacted ({trigger}): {reason}; {} → {} tokens",
                        view::short_tokens(tokens_before),
                        view::short_tokens(tokens_after)
                    ),
                    self.theme.fg(Color::Magenta),
                ));
            }
            SessionEvent::ConversationRepaired { repairs, .. } => {
                for repair in repairs {
                    self.out.push(Line::styled(
                        format!("  repaired: {repair}"),
                        self.theme.fg(Color::Yellow),
                    ));
                }
            }
            SessionEvent::SubagentStart {
                agent_type,
                description,
                ..
            } => self.out.push(Line::styled(
                format!("  ↳ sub-agent {agent_type}: {description}"),
                self.theme.dim(),
            )),
            SessionEvent::SubagentStop {
                status,
                tool_uses,
                duration_ms,
                ..
            } => self.out.push(Line::styled(
                format!(
                    "  ↲ sub-agent {}: {tool_uses} call(s), {:.1}s",
                    format!("{status:?}").to_lowercase(),
                    duration_ms as f64 / 1000.0
                ),
                self.theme.dim(),
            )),
            _ => {}
        }
    }

    fn flush_stream(&mut self) {
        let rest = self.stream.finish();
        if !rest.trim().is_empty() {
            self.push_markdown(&rest);
        }
    }

    fn push_markdown(&mut self, text: &str) {
        let width = crossterm::terminal::size().map(|(w, _)| w).unwrap_or(80);
        self.out.extend(markdown::render(
            text,
            width.saturating_sub(1).max(20),
            self.theme.color,
        ));
    }

    // ---------------------------------------------------------------- draw

    fn draw(&mut self, terminal: &mut Term) -> std::io::Result<()> {
        if !self.out.is_empty() {
            let width = terminal.size()?.width.max(1);
            let lines = std::mem::take(&mut self.out);
            let paragraph = Paragraph::new(Text::from(lines)).wrap(Wrap { trim: false });
            let height = u16::try_from(paragraph.line_count(width)).unwrap_or(u16::MAX);
            terminal.insert_before(height, |buf| paragraph.render(buf.area, buf))?;
        }
        terminal.draw(|frame| self.render(frame))?;
        Ok(())
    }

    fn render(&mut self, frame: &mut Frame<'_>) {
        let area = frame.area();
        let width = area.width.max(1);
        let (prompt, input_rows, cursor) = self.input_rows(width);
        let input_height = u16::try_from(input_rows.len()).unwrap_or(1).max(1);
        // Top-aligned: the input follows what is live, right under the
        // scrollback; the rows left over stay blank below the status line.
        let room = area.height.saturating_sub(input_height + 2);
        let live_lines = self.live_lines(width, room);
        let skip = live_lines.len().saturating_sub(usize::from(room));
        let shown: Vec<Line<'static>> = live_lines.into_iter().skip(skip).collect();
        let live_height = u16::try_from(shown.len()).unwrap_or(room).min(room);
        let [live, rule, input, status, _] = Layout::vertical([
            Constraint::Length(live_height),
            Constraint::Length(1),
            Constraint::Length(input_height),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(area);
        frame.render_widget(Paragraph::new(shown), live);

        frame.render_widget(
            Paragraph::new(Line::styled(
                "─".repeat(usize::from(width)),
                self.theme.dim(),
            )),
            rule,
        );
        let rows: Vec<Line<'static>> = input_rows
            .into_iter()
            .enumerate()
            .map(|(i, row)| {
                if i == 0 && row.starts_with(&prompt) {
                    let rest = row[prompt.len()..].to_owned();
                    Line::from(vec![
                        self.theme
                            .span(prompt.clone(), Style::default().fg(Color::Cyan)),
                        Span::raw(rest),
                    ])
                } else {
                    Line::raw(row)
                }
            })
            .collect();
        frame.render_widget(Paragraph::new(rows), input);
        frame.render_widget(Paragraph::new(self.status_line(width)), status);
        if let Some((row, col)) = cursor {
            frame.set_cursor_position(Position::new(
                input.x + col.min(width.saturating_sub(1)),
                input.y + row.min(input_height.saturating_sub(1)),
            ));
        }
    }

    /// The input area's rows and the cursor in them.
    fn input_rows(&self, width: u16) -> (String, Vec<String>, Option<(u16, u16)>) {
        if let Some(search) = &self.search {
            let found = self
                .history
                .search(&search.query, search.skip)
                .map(|(_, t)| view::one_line(t, usize::from(width)))
                .unwrap_or_default();
            let head = format!("(reverse-i-search)`{}': ", search.query);
            let cursor = u16::try_from(crate::input::display_width(&head)).unwrap_or(0);
            return (
                String::new(),
                vec![format!("{head}{found}")],
                Some((0, cursor.saturating_sub(3))),
            );
        }
        let prompt = match self.questions.front() {
            Some(Question::Permission {
                stage: AskStage::Reason,
                ..
            }) => "reason for the model (Enter sends, Esc goes back) › ",
            Some(Question::Permission {
                stage: AskStage::Rule,
                ..
            }) => "rule to save (Enter saves) › ",
            _ => PROMPT,
        };
        let (rows, cursor) = self.input.visible(width, prompt, 8);
        (prompt.to_owned(), rows, Some(cursor))
    }

    /// The live area: the question, the `/resume` list, or what runs now
    /// (the tools, the text still streaming, the spinner).
    fn live_lines(&self, width: u16, height: u16) -> Vec<Line<'static>> {
        let theme = self.theme;
        if let Some(question) = self.questions.front() {
            return self.question_lines(question, width, height);
        }
        if let Some(picker) = &self.picker {
            let mut lines = vec![Line::styled(
                "Resume which session? (↑/↓, Enter, Esc)".to_owned(),
                theme.bold(),
            )];
            let first = picker
                .selected
                .saturating_sub(usize::from(height.saturating_sub(2)));
            for (i, s) in picker.sessions.iter().enumerate().skip(first) {
                let mark = if i == picker.selected { "› " } else { "  " };
                let title = view::one_line(&s.title, 60);
                let text = format!(
                    "{mark}{}  {:>3} turns  {} ago  {}",
                    s.id.chars().take(8).collect::<String>(),
                    s.turns,
                    ago(s.updated_ms),
                    title
                );
                let style = if i == picker.selected {
                    theme.fg(Color::Cyan)
                } else {
                    Style::default()
                };
                lines.push(Line::styled(text, style));
            }
            return lines;
        }
        let mut lines = Vec::new();
        let spin = SPINNER[self.tick % SPINNER.len()];
        let pending = self.stream.pending();
        if !pending.is_empty() {
            // Only the tail is laid out: a long paragraph still streaming
            // costs the same to draw as a short one.
            let start = pending.len().saturating_sub(4096);
            let start = (start..pending.len())
                .find(|&i| pending.is_char_boundary(i))
                .unwrap_or(pending.len());
            let w = usize::from(width.max(10)) - 1;
            for row in pending[start..].lines() {
                let chars: Vec<char> = row.chars().collect();
                for chunk in chars.chunks(w) {
                    lines.push(Line::raw(chunk.iter().collect::<String>()));
                }
            }
        }
        for r in &self.running {
            let elapsed = r.started.elapsed().as_secs_f64();
            let mut spans = vec![
                theme.span(format!("{spin} "), Style::default().fg(Color::Cyan)),
                theme.span(
                    r.name.clone(),
                    Style::default().add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!(
                    "({})",
                    view::one_line(&r.summary, usize::from(width).saturating_sub(30).max(10))
                )),
                theme.span(format!(" {elapsed:.1}s"), theme.dim()),
            ];
            if let Some(p) = &r.progress {
                spans.push(theme.span(format!(" {p}"), theme.dim()));
            }
            lines.push(Line::from(spans));
        }
        if let Some(since) = self.busy_since
            && self.running.is_empty()
            && pending.is_empty()
        {
            let what = self.pending.front().map(|(w, _)| w.as_str()).unwrap_or("");
            let doing = match what {
                "prompt" => "thinking",
                "/compact" => "compacting",
                "!" => "running",
                _ => "working",
            };
            lines.push(Line::from(vec![
                theme.span(
                    format!("{spin} {doing}… "),
                    Style::default().fg(Color::Cyan),
                ),
                theme.span(
                    format!("{:.1}s", since.elapsed().as_secs_f64()),
                    theme.dim(),
                ),
            ]));
        }
        let queued = self.pending.len().saturating_sub(1);
        if queued > 0 {
            lines.push(Line::styled(
                format!("  {queued} queued (they run after this one)"),
                theme.dim(),
            ));
        }
        lines
    }

    /// The question, whole: the call and every line of the reason wrapped,
    /// not cut; when the rows are too few, the title and the keys stay and
    /// the middle is shortened (`v` prints all of it above).
    fn question_lines(&self, question: &Question, width: u16, height: u16) -> Vec<Line<'static>> {
        let theme = self.theme;
        let w = usize::from(width).saturating_sub(2).max(20);
        let wrapped = |text: &str, indent: &str, style: Style| -> Vec<Line<'static>> {
            view::wrap(text, w.saturating_sub(indent.len()))
                .into_iter()
                .map(|row| Line::styled(format!("{indent}{row}"), style))
                .collect()
        };
        let (title, body, keys) = match question {
            Question::Confirm(confirm) => {
                let title = Line::styled(
                    format!("? {}", view::plain(&confirm.title)),
                    theme.fg(Color::Yellow).add_modifier(Modifier::BOLD),
                );
                let body: Vec<Line<'static>> = confirm
                    .lines
                    .iter()
                    .flat_map(|l| wrapped(l, "  ", Style::default()))
                    .collect();
                let keys =
                    Line::styled("  [y] yes   [n] no   [v] view all".to_owned(), theme.bold());
                (title, body, keys)
            }
            Question::Permission { request, stage, .. } => {
                // The call on the title row, its rest (a long command) below.
                let mut rows = view::wrap(&request.call, w.saturating_sub(8)).into_iter();
                let title = Line::from(vec![
                    theme.span("? ", Style::default().fg(Color::Yellow)),
                    theme.span("Allow ", theme.bold()),
                    Span::raw(rows.next().unwrap_or_default()),
                ]);
                let mut body: Vec<Line<'static>> = rows
                    .map(|row| Line::raw(format!("        {row}")))
                    .collect();
                if let Some(agent) = &request.agent {
                    body.push(Line::styled(
                        format!(
                            "  asked by the {} sub-agent {}",
                            agent.agent_type, agent.agent_id
                        ),
                        theme.dim(),
                    ));
                }
                if request.destructive {
                    body.push(Line::styled(
                        "  ⚠ this call may delete or overwrite data".to_owned(),
                        theme.fg(Color::Red),
                    ));
                }
                body.extend(wrapped(
                    &format!("why it asks: {}", request.reason),
                    "  ",
                    theme.dim(),
                ));
                let keys = match (&request.always_rule, stage) {
                    (_, AskStage::Reason) => "  type why (the model reads it), Enter denies".into(),
                    (_, AskStage::Rule) => "  edit the rule, Enter saves it and allows".into(),
                    (Some(rule), AskStage::Choose) => format!(
                        "  [y] once   [a] always: {}   [e] edit rule   [n] deny   [esc] deny & stop   [v] view all",
                        view::one_line(rule, 40)
                    ),
                    (None, AskStage::Choose) => {
                        "  [y] once   [n] deny   [esc] deny & stop   [v] view all".into()
                    }
                };
                (title, body, Line::styled(keys, theme.bold()))
            }
        };
        let room = usize::from(height).saturating_sub(2);
        let mut lines = vec![title];
        if body.len() <= room {
            lines.extend(body);
        } else {
            let shown = room.saturating_sub(1);
            let more = body.len() - shown;
            lines.extend(body.into_iter().take(shown));
            lines.push(Line::styled(
                format!("  … {more} more line(s): [v] prints the whole question above"),
                theme.fg(Color::Yellow),
            ));
        }
        lines.push(keys);
        lines
    }

    /// `v` at a question: all of it into the scrollback.
    fn view_question(&mut self) {
        let Some(question) = self.questions.front() else {
            return;
        };
        let text = match question {
            Question::Confirm(confirm) => {
                let mut text = confirm.title.clone();
                for line in &confirm.lines {
                    text.push('\n');
                    text.push_str(line);
                }
                text
            }
            Question::Permission { request, .. } => format!(
                "{}\nwhy it asks: {}{}",
                request.call,
                request.reason,
                request
                    .always_rule
                    .as_ref()
                    .map(|r| format!("\nalways would save: {r}"))
                    .unwrap_or_default()
            ),
        };
        self.out.push(Line::styled(
            "  ┌ the question, whole".to_owned(),
            self.theme.dim(),
        ));
        for line in text.lines() {
            self.out
                .push(Line::raw(format!("  │ {}", view::plain(line))));
        }
        self.out
            .push(Line::styled("  └".to_owned(), self.theme.dim()));
    }

    fn status_line(&self, width: u16) -> Line<'static> {
        let theme = self.theme;
        if let Some((hint, at)) = &self.hint
            && at.elapsed() < EXIT_WINDOW
        {
            return Line::styled(
                view::one_line(hint, usize::from(width)),
                theme.fg(Color::Yellow),
            );
        }
        let Some(info) = &self.info else {
            return Line::styled("opening the session…".to_owned(), theme.dim());
        };
        // Most important first: what does not fit the width is left out
        // from the end.
        let mut parts = vec![info.model.clone()];
        if self.window > 0 {
            let pct = 100 * self.used / self.window.max(1);
            parts.push(format!(
                "ctx {}/{} {pct}%",
                view::short_tokens(self.used),
                view::short_tokens(self.window)
            ));
        }
        if let Some(price) = tack_model::pricing::price(&info.model) {
            parts.push(format!("${:.4}", price.cost_usd(&self.usage)));
        }
        if let Some(share) = self.usage.cache_read_percent() {
            parts.push(format!("cache {share:.0}%"));
        }
        if self.window > 0 {
            parts.push(format!(
                "compacts at {}",
                view::short_tokens(self.threshold)
            ));
        }
        let mode = format!("{} (shift+tab)", self.mode.as_str());
        let mode_style = match self.mode {
            Mode::Default => theme.dim(),
            Mode::AcceptEdits => theme.fg(Color::Magenta),
            Mode::Plan => theme.fg(Color::Cyan),
            _ => theme.fg(Color::Red),
        };
        let busy = if self.pending.is_empty() { 0 } else { 17 };
        let room = usize::from(width).saturating_sub(mode.chars().count() + 3 + busy);
        let mut text = String::new();
        for part in parts {
            let grown = if text.is_empty() {
                part.clone()
            } else {
                format!("{text} · {part}")
            };
            if grown.chars().count() > room {
                break;
            }
            text = grown;
        }
        let mut spans = vec![
            theme.span(text, theme.dim()),
            theme.span(" · ", theme.dim()),
            theme.span(mode, mode_style),
        ];
        // Whenever work is queued or running, so a glance (or a test) tells
        // a busy session from an idle one.
        if !self.pending.is_empty() {
            spans.push(theme.span(" · esc interrupts", theme.fg(Color::Yellow)));
        }
        Line::from(spans)
    }
}

/// An `@path` as Read takes it: absolute (`~/` is the home directory).
fn absolute(cwd: &std::path::Path, path: &str) -> String {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let full = match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => cwd.join(path),
    };
    full.display().to_string()
}

/// `3m`, `2h`, `5d`.
fn ago(ms: u64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(ms);
    let s = now.saturating_sub(ms) / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}
