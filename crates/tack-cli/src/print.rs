//! Printers: consumers of the session event stream. Results go to stdout;
//! tool calls, progress and the spinner go to stderr. This one prints text
//! and tack's own JSON (`tack-json`, `tack-stream-json`); Claude Code's
//! shapes are [`crate::claude`].

use std::io::{IsTerminal as _, Write as _};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use tack_agent::{Emitted, EventObserver};
use tack_protocol::{Role, RunStatus, SessionEvent};

use crate::cli::OutputFormat;

/// Colour only on a terminal, and never when NO_COLOR is set (any value).
pub fn color_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

struct State {
    /// Whether text of the current response was already printed as deltas.
    streamed: bool,
    /// Whether the last thing printed to stdout ended a line.
    at_line_start: bool,
    spinner: Option<ProgressBar>,
    /// When each running tool call started: a tool's spinner counts from
    /// there (the one timer on the line; tools report no time of their own).
    started: std::collections::HashMap<String, std::time::Instant>,
    /// The answer's Markdown, rendered a block at a time (None: printed as
    /// the model wrote it, when stdout is not a terminal or colour is off).
    markdown: Option<crate::markdown::Stream>,
}

pub struct Printer {
    format: OutputFormat,
    color: bool,
    spinner_enabled: bool,
    state: Mutex<State>,
}

impl Printer {
    pub fn new(format: OutputFormat) -> Self {
        Self {
            format,
            color: color_enabled(),
            spinner_enabled: format == OutputFormat::Text && std::io::stderr().is_terminal(),
            state: Mutex::new(State {
                streamed: false,
                at_line_start: true,
                spinner: None,
                started: Default::default(),
                markdown: (format == OutputFormat::Text
                    && std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()))
                .then(crate::markdown::Stream::default),
            }),
        }
    }

    fn dim(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    fn text_event(&self, state: &mut State, event: &SessionEvent) {
        match event {
            SessionEvent::TextDelta { text } => {
                stop_spinner(state);
                let ready = match &mut state.markdown {
                    Some(md) => md.push(text),
                    None => text.clone(),
                };
                print_out(state, &ready);
                state.streamed = true;
            }
            SessionEvent::Message { message } if message.role == Role::Assistant => {
                stop_spinner(state);
                let rest = match (&mut state.markdown, state.streamed) {
                    (Some(md), true) => md.finish(),
                    (Some(md), false) => {
                        md.push(&message.text());
                        md.finish()
                    }
                    (None, true) => String::new(),
                    (None, false) => message.text(),
                };
                print_out(state, &rest);
                state.streamed = false;
                if !state.at_line_start {
                    print_out(state, "\n");
                }
            }
            SessionEvent::Message { message } if message.role == Role::User => {
                self.start_spinner(state, "thinking");
            }
            SessionEvent::Compaction {
                trigger,
                stages,
                tokens_before,
                tokens_after,
                cleared_tool_results,
                summarized_messages,
                ..
            } => {
                stop_spinner(state);
                let mut what = Vec::new();
                if *cleared_tool_results > 0 {
                    what.push(format!("{cleared_tool_results} old tool result(s) cleared"));
                }
                if *summarized_messages > 0 {
                    let how = if stages.iter().any(|s| s == "fallback") {
                        "dropped (the summary failed; a list of their calls is kept)"
                    } else {
                        "summarised"
                    };
                    what.push(format!("{summarized_messages} earlier message(s) {how}"));
                }
                eprintln!(
                    "{}",
                    self.dim(&format!(
                        "✂ compacted ({trigger}): {} → {} tokens; {}",
                        tack_agent::context::group(*tokens_before),
                        tack_agent::context::group(*tokens_after),
                        what.join(", ")
                    ))
                );
            }
            SessionEvent::ToolCall { id, name, input } => {
                stop_spinner(state);
                state.started.insert(id.clone(), std::time::Instant::now());
                eprintln!(
                    "{}",
                    self.dim(&format!("● {name}({})", summarize(input, 100)))
                );
            }
            SessionEvent::ToolProgress {
                tool_use_id,
                name,
                message,
                ..
            } => {
                // A long call's last word, on the spinner line.
                let label = match message {
                    Some(m) => format!("{name}: {}", truncate(&m.replace('\n', " "), 100)),
                    None => format!("{name}: running"),
                };
                match &state.spinner {
                    Some(bar) => bar.set_message(label),
                    None => {
                        let since = state.started.get(tool_use_id).map(|t| t.elapsed());
                        self.start_spinner_at(state, &label, since.unwrap_or_default());
                    }
                }
            }
            SessionEvent::ToolResult {
                tool_use_id,
                name,
                is_error,
                content,
                duration_ms,
                outcome,
                ..
            } => {
                stop_spinner(state);
                state.started.remove(tool_use_id);
                let first = content
                    .iter()
                    .find_map(|b| match b {
                        tack_protocol::ContentBlock::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("");
                let status = if *is_error {
                    format!("{} ({outcome:?})", truncate(first, 120))
                } else {
                    format!("ok, {duration_ms} ms")
                };
                eprintln!("{}", self.dim(&format!("  └ {name}: {status}")));
            }
            SessionEvent::Retry {
                attempt,
                delay_ms,
                reason,
            } => {
                stop_spinner(state);
                if let Some(md) = &mut state.markdown {
                    // What was streamed before the retry is void.
                    *md = crate::markdown::Stream::default();
                }
                if state.streamed && !state.at_line_start {
                    print_out(state, "\n");
                }
                state.streamed = false;
                eprintln!(
                    "{}",
                    self.dim(&format!(
                        "retrying the model request (attempt {attempt}, in {:.1} s): {reason}",
                        *delay_ms as f64 / 1000.0
                    ))
                );
            }
            SessionEvent::Result {
                status,
                error,
                session_id,
                ..
            } => {
                stop_spinner(state);
                // Text of an answer cut short (an interrupt) is still shown.
                if let Some(rest) = state.markdown.as_mut().map(crate::markdown::Stream::finish) {
                    print_out(state, &rest);
                }
                if !state.at_line_start {
                    print_out(state, "\n");
                }
                match status {
                    RunStatus::Completed => {}
                    RunStatus::Interrupted => eprintln!(
                        "tack: interrupted; the session is saved: tack run --resume {session_id} \"…\""
                    ),
                    RunStatus::MaxTurns => eprintln!(
                        "tack: stopped after --max-turns requests while the model still wanted tools; continue with: tack run --resume {session_id} \"…\""
                    ),
                    RunStatus::MaxTokens => eprintln!(
                        "tack: the response was cut off by max_tokens; raise --max-tokens or continue with: tack run --resume {session_id} \"continue\""
                    ),
                    RunStatus::Refusal => eprintln!("tack: the model refused to continue"),
                    RunStatus::HookStopped => eprintln!(
                        "tack: stopped by a hook: {}",
                        error.as_deref().unwrap_or("no reason given")
                    ),
                    _ => {
                        if let Some(error) = error {
                            eprintln!("tack: {error}");
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn start_spinner(&self, state: &mut State, label: &str) {
        self.start_spinner_at(state, label, Duration::ZERO);
    }

    /// A spinner whose timer starts at `elapsed`.
    fn start_spinner_at(&self, state: &mut State, label: &str, elapsed: Duration) {
        if !self.spinner_enabled || state.spinner.is_some() {
            return;
        }
        let bar = ProgressBar::new_spinner().with_elapsed(elapsed);
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            bar.set_style(style);
        }
        bar.set_message(label.to_owned());
        bar.enable_steady_tick(Duration::from_millis(100));
        state.spinner = Some(bar);
    }
}

fn stop_spinner(state: &mut State) {
    if let Some(bar) = state.spinner.take() {
        bar.finish_and_clear();
    }
}

fn print_out(state: &mut State, text: &str) {
    if text.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    state.at_line_start = text.ends_with('\n');
}

fn print_json_line(value: &impl serde::Serialize) {
    let mut out = std::io::stdout().lock();
    if serde_json::to_writer(&mut out, value).is_ok() {
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}

/// A one-line view of a tool input.
fn summarize(input: &Value, max: usize) -> String {
    let s = match input {
        Value::Object(map) if map.len() == 1 => match map.values().next() {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        },
        other => other.to_string(),
    };
    truncate(&s.replace('\n', " "), max)
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{cut}…")
}

/// One JSON line from an event's JSON encoded already (shared with the
/// transcript writer: the event is encoded once).
fn print_emitted_line(emitted: &Emitted<'_>) {
    match emitted.json() {
        Ok(json) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(json);
            let _ = out.write_all(b"\n");
            let _ = out.flush();
        }
        Err(_) => print_json_line(emitted.event()),
    }
}

impl EventObserver for Printer {
    fn on_emitted(&self, emitted: &Emitted<'_>) {
        match self.format {
            OutputFormat::TackStreamJson => print_emitted_line(emitted),
            OutputFormat::TackJson if matches!(emitted.event(), SessionEvent::Result { .. }) => {
                print_emitted_line(emitted)
            }
            _ => self.on_event(emitted.event()),
        }
    }

    fn on_event(&self, event: &SessionEvent) {
        match self.format {
            OutputFormat::TackStreamJson => print_json_line(event),
            OutputFormat::TackJson => {
                if matches!(event, SessionEvent::Result { .. }) {
                    print_json_line(event);
                }
            }
            // Claude Code's shapes: crate::claude::ClaudeOutput.
            OutputFormat::Json | OutputFormat::StreamJson => {}
            OutputFormat::Text => {
                let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
                self.text_event(&mut state, event);
            }
        }
    }
}
