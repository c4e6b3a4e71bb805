//! tack's interactive terminal: `tack` and `tack "first prompt"`.
//!
//! The key design decisions:
//! - **Two tasks.** The worker ([`worker`]) owns the session and its loop
//!   and does one thing at a time; the UI task owns the terminal and never
//!   waits on it. They speak through channels: the UI sends [`Work`], the
//!   worker sends session events, questions and reports back. Typing,
//!   redraws and Esc stay instant while the model streams or a tool runs.
//! - **An inline viewport** (ratatui's `Viewport::Inline`): a few rows at
//!   the bottom hold what is live (streaming text, running tools, a
//!   question, the input, the status line); whatever is finished is
//!   inserted above them, into the terminal's own scrollback, so search,
//!   copy and `tmux` history work as with any command, and the memory a
//!   long session needs does not grow with its length.
//! - **The same session as `tack run`**: the binary's [`Opener`] assembles
//!   it (settings, sources, transcript), so rules, hooks, the audit trail
//!   and resuming are exactly the headless ones. Questions (permissions,
//!   servers, project settings, skills) come through the session's
//!   `Interaction` as messages and are answered with one key.
//! - **Nothing else writes to the screen, nothing else reads the keys**:
//!   stderr is a pipe while the session runs (what arrives on it is shown
//!   as dim lines, `stderr.rs`); one thread reads the terminal's input
//!   (`keys.rs`), and the backend never asks the terminal where the cursor
//!   is once keys are being read (`backend.rs`).

pub mod commands;
pub mod history;
pub mod input;
pub mod markdown;
pub mod view;

mod app;
mod backend;
mod interaction;
mod keys;
mod report;
mod stderr;
mod worker;

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::terminal::{disable_raw_mode, enable_raw_mode};
use ratatui::{Terminal, TerminalOptions, Viewport};
use tack_session::Resume;
use tokio::sync::mpsc;

pub use interaction::Confirm;
pub use worker::{Opened, Opener, SavedSession, SessionInfo, SkillCommand, Ui, Work};

/// How the interactive session starts.
#[derive(Debug, Clone)]
pub struct Config {
    /// Sent as soon as the session is open (`tack "first prompt"`).
    pub first_prompt: Option<String>,
    /// Continue a saved session (`--resume ID`, `--continue`).
    pub resume: Option<Resume>,
    /// The prompt history of this project (↑/↓, Ctrl-R).
    pub history: PathBuf,
    /// The working directory (`@path` completion).
    pub cwd: PathBuf,
    /// Colours and styles; off with `NO_COLOR`.
    pub color: bool,
}

/// Runs the interactive session on this process's terminal (stdin and
/// stdout must be one) until the person exits. Returns the exit code.
pub async fn run(opener: Arc<dyn Opener>, config: Config) -> anyhow::Result<u8> {
    let (_, rows) = crossterm::terminal::size().unwrap_or((80, 24));
    let height = viewport_height(rows);
    enable_raw_mode()?;
    let mut stdout = std::io::stdout();
    crossterm::execute!(stdout, EnableBracketedPaste)?;
    let restore = Restore;
    install_panic_hook();
    let backend = backend::Tracked::new(std::io::stdout());
    let mut terminal = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Inline(height),
        },
    )?;
    let redirect = stderr::Redirect::start();

    let (ui_tx, ui_rx) = mpsc::unbounded_channel();
    let (work_tx, work_rx) = mpsc::unbounded_channel();
    // The app keeps a weak sender: when the worker is gone (ended, or
    // died), the channel closes and the app stops.
    let ui_weak = ui_tx.downgrade();
    let worker = tokio::spawn(worker::run(
        Arc::clone(&opener),
        config.resume.clone(),
        ui_tx,
        work_rx,
    ));
    let app = app::App::new(
        view::Theme {
            color: config.color,
        },
        opener,
        work_tx,
        ui_weak,
        history::History::load(config.history.clone()),
        config.cwd.clone(),
    );
    let ended = app.run(&mut terminal, ui_rx, config.first_prompt).await;
    // The viewport is cleared: what stays on the screen is the scrollback.
    let _ = terminal.clear();
    drop(terminal);
    drop(redirect);
    drop(restore);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(3), worker).await;
    let id = ended?;
    if let Some(id) = id {
        println!("Resume this session with: tack --resume {id}");
    }
    Ok(tack_session::exit::OK)
}

/// The viewport's rows: room for a question and a few input rows, never
/// the whole screen.
fn viewport_height(rows: u16) -> u16 {
    (rows / 2).clamp(8, 16).min(rows.saturating_sub(1)).max(3)
}

/// Puts the terminal back (raw mode off, bracketed paste off) when the
/// session ends, whichever way.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn restore_terminal() {
    let _ = disable_raw_mode();
    let mut stdout = std::io::stdout();
    let _ = crossterm::execute!(stdout, DisableBracketedPaste, crossterm::cursor::Show);
    let _ = stdout.flush();
}

/// A panic of the UI (this thread) restores the terminal and stderr
/// before its message is printed. A panic elsewhere (a tool's, which the
/// pipeline turns into an error result) leaves the screen alone: the
/// session goes on.
fn install_panic_hook() {
    let ui = std::thread::current().id();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui {
            restore_terminal();
            stderr::restore();
        }
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_viewport_leaves_most_of_the_screen_to_the_scrollback() {
        assert_eq!(super::viewport_height(24), 12);
        assert_eq!(super::viewport_height(10), 8);
        assert_eq!(super::viewport_height(60), 16);
        assert_eq!(super::viewport_height(5), 4);
    }
}
