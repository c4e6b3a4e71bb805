//! The [`Interaction`] of a terminal: permission prompts (allow once,
//! always (written to the local settings), or deny with a reason for the
//! model) and yes/no approvals on the controlling terminal, notices on stderr.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use serde_json::Map;
use tack_agent::permission::{PromptAnswer, PromptRequest};
use tack_mcp::client::{
    ElicitAnswer, Elicitation, ElicitationKind, FieldKind, FormField, ToolChange,
};

use crate::interaction::Interaction;
use crate::trust::UntrustedSettings;

/// Asks on the controlling terminal (`/dev/tty`), so it works even when
/// stdin carries the prompt.
#[derive(Debug)]
pub struct Terminal {
    lock: tokio::sync::Mutex<()>,
}

impl Terminal {
    /// A terminal when stderr is one and /dev/tty can be opened.
    pub fn detect() -> Option<Self> {
        if !std::io::stderr().is_terminal() {
            return None;
        }
        std::fs::File::open("/dev/tty").ok()?;
        Some(Self {
            lock: tokio::sync::Mutex::new(()),
        })
    }
}

/// What a Ctrl-C at the prompt answers (the session is interrupted too: the
/// run's own Ctrl-C handler sees the same signal).
const INTERRUPTED_AT_PROMPT: &str = "the user pressed Ctrl-C at the permission prompt";

/// Reads one line from `input`, waking every 100 ms to see whether the
/// prompt was abandoned (Ctrl-C): then it returns `Ok(None)` without taking
/// what the person types next, which belongs to whatever asks next.
/// `Ok(Some(""))` at end of input.
fn read_line_unless<R: std::io::Read + std::os::fd::AsFd>(
    input: &mut std::io::BufReader<R>,
    abandoned: &AtomicBool,
) -> std::io::Result<Option<String>> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let tick = Timespec {
        tv_sec: 0,
        tv_nsec: 100_000_000,
    };
    loop {
        if abandoned.load(Ordering::SeqCst) {
            return Ok(None);
        }
        if input.buffer().is_empty() {
            let mut fds = [PollFd::new(input.get_ref(), PollFlags::IN)];
            match poll(&mut fds, Some(&tick)) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        let mut line = String::new();
        input.read_line(&mut line)?;
        return Ok(Some(line));
    }
}

/// Runs a blocking question on the terminal off the runtime; Ctrl-C while
/// it waits abandons it and answers `on_interrupt`. `None`: the question
/// could not be asked.
async fn at_the_tty<T: Send + 'static>(
    ask: impl FnOnce(&AtomicBool) -> std::io::Result<T> + Send + 'static,
    on_interrupt: T,
) -> Option<T> {
    let abandoned = Arc::new(AtomicBool::new(false));
    let asking = {
        let abandoned = Arc::clone(&abandoned);
        tokio::task::spawn_blocking(move || ask(&abandoned))
    };
    tokio::select! {
        answer = asking => answer.ok().and_then(Result::ok),
        _ = tokio::signal::ctrl_c() => {
            abandoned.store(true, Ordering::SeqCst);
            eprintln!();
            Some(on_interrupt)
        }
    }
}

fn ask_blocking(request: &PromptRequest, abandoned: &AtomicBool) -> std::io::Result<PromptAnswer> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = std::io::BufReader::new(tty);
    let interrupted = || PromptAnswer::Deny {
        reason: INTERRUPTED_AT_PROMPT.into(),
    };
    writeln!(out, "\ntack wants to run {}", request.call)?;
    if let Some(agent) = &request.agent {
        writeln!(
            out,
            "  asked by: the {} sub-agent {}",
            agent.agent_type, agent.agent_id
        )?;
    }
    if request.destructive {
        writeln!(out, "  ⚠ this call may delete or overwrite data")?;
    }
    writeln!(out, "  why it asks: {}", request.reason)?;
    loop {
        match &request.always_rule {
            Some(rule) => write!(
                out,
                "  [y] allow once   [a] always allow ({rule})   [n] deny  > "
            )?,
            None => write!(out, "  [y] allow once   [n] deny  > ")?,
        }
        out.flush()?;
        let Some(line) = read_line_unless(&mut input, abandoned)? else {
            return Ok(interrupted());
        };
        if line.is_empty() {
            return Ok(PromptAnswer::Deny {
                reason: "the user closed the prompt".into(),
            });
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Ok(PromptAnswer::AllowOnce),
            "a" | "always" if request.always_rule.is_some() => {
                return Ok(PromptAnswer::AllowAlways);
            }
            "n" | "no" | "" => {
                write!(out, "  reason for the model (optional) > ")?;
                out.flush()?;
                let Some(reason) = read_line_unless(&mut input, abandoned)? else {
                    return Ok(interrupted());
                };
                let reason = reason.trim();
                return Ok(PromptAnswer::Deny {
                    reason: if reason.is_empty() {
                        "the user denied this call".into()
                    } else {
                        format!("the user denied this call: {reason}")
                    },
                });
            }
            _ => continue,
        }
    }
}

#[async_trait]
impl Interaction for Terminal {
    fn can_ask(&self) -> bool {
        true
    }

    async fn permission(&self, request: &PromptRequest) -> PromptAnswer {
        // One prompt at a time, even when safe calls run in parallel.
        let _guard = self.lock.lock().await;
        let request = request.clone();
        // The first Ctrl-C at the prompt denies this call (and, through the
        // run's own handler, interrupts the session).
        let answer = at_the_tty(
            move |abandoned| ask_blocking(&request, abandoned),
            PromptAnswer::Deny {
                reason: INTERRUPTED_AT_PROMPT.into(),
            },
        )
        .await;
        answer.unwrap_or(PromptAnswer::Deny {
            reason: "the permission prompt could not be shown".into(),
        })
    }

    async fn approve_server(&self, server: &tack_mcp::client::PendingServer) -> bool {
        let _guard = self.lock.lock().await;
        confirm(&format!(
            "The project configures the MCP server {:?} ({}). Start it?",
            server.name,
            server.describe().join("; ")
        ))
        .await
    }

    async fn approve_changes(&self, server: &str, changes: &[ToolChange]) -> bool {
        let _guard = self.lock.lock().await;
        let tools: Vec<&str> = changes.iter().map(|c| c.tool.as_str()).collect();
        confirm(&format!(
            "The MCP server {server:?} changed {} since it was approved ({}); `tack mcp diff {server}` shows how. Offer the new definitions?",
            if tools.len() == 1 { "a definition" } else { "some definitions" },
            tools.join(", ")
        ))
        .await
    }

    async fn approve_skill(&self, skill: &crate::interaction::SkillApproval) -> bool {
        let _guard = self.lock.lock().await;
        let tools = if skill.allowed_tools.is_empty() {
            String::new()
        } else {
            format!(
                " It lists allowed-tools {} (they grant nothing; its calls still meet your rules).",
                skill.allowed_tools.join(" ")
            )
        };
        confirm(&format!(
            "The model wants to load the skill {:?} from {}, which you have not trusted yet: its instructions will be followed as yours.{tools} Trust it?",
            skill.name, skill.location
        ))
        .await
    }

    async fn approve_project_settings(&self, settings: &UntrustedSettings) -> bool {
        let _guard = self.lock.lock().await;
        let items: String = settings
            .items()
            .iter()
            .map(|item| format!("\n  {item}"))
            .collect();
        confirm(&format!(
            "The project settings file {} {} that would run without asking:{items}\nIt is a file of the repository, not your settings. Apply it (remembered until the file changes)?",
            settings.file.display(),
            if settings.changed {
                "changed since you approved it and asks for"
            } else {
                "asks for"
            },
        ))
        .await
    }

    fn notice(&self, text: &str) {
        eprintln!("tack: {text}");
    }

    fn can_elicit(&self) -> bool {
        true
    }

    async fn elicit(&self, request: &Elicitation) -> ElicitAnswer {
        let _guard = self.lock.lock().await;
        let asked = request.clone();
        let answer = at_the_tty(
            move |abandoned| elicit_blocking(&asked, abandoned),
            ElicitAnswer::Cancel,
        )
        .await
        .unwrap_or(ElicitAnswer::Cancel);
        if let (ElicitAnswer::Accept(_), ElicitationKind::Url { url, .. }) =
            (&answer, &request.kind)
            && let Err(e) = webbrowser::open(url)
        {
            eprintln!("tack: could not open a browser ({e}); open this page yourself: {url}");
        }
        answer
    }
}

/// How a field is described in its question.
fn field_hint(field: &FormField) -> String {
    let kind = match &field.kind {
        FieldKind::String {
            format: Some(f), ..
        } => f.clone(),
        FieldKind::String { .. } => "text".into(),
        FieldKind::Number { integer: true, .. } => "whole number".into(),
        FieldKind::Number { .. } => "number".into(),
        FieldKind::Boolean => "y/n".into(),
        FieldKind::Enum { multiple: true, .. } => "numbers or names, comma-separated".into(),
        FieldKind::Enum { .. } => "number or name".into(),
        _ => "answer".into(),
    };
    let mut hint = kind;
    if field.required {
        hint.push_str(", required");
    }
    if let Some(default) = &field.default {
        hint.push_str(&format!(", Enter for {default}"));
    }
    hint
}

/// Asks one question per field (re-asking until the answer fits the
/// field), then whether to send; or, in URL mode, whether to open the page.
fn elicit_blocking(request: &Elicitation, abandoned: &AtomicBool) -> std::io::Result<ElicitAnswer> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = std::io::BufReader::new(tty);
    writeln!(
        out,
        "\nThe MCP server {:?} asks: {}",
        request.server, request.message
    )?;
    match &request.kind {
        ElicitationKind::Url { url, host } => {
            writeln!(out, "  It wants you to open a page on {host}:\n  {url}")?;
            write!(out, "  Open it in your browser? [y] open   [n] decline  > ")?;
            out.flush()?;
            let Some(line) = read_line_unless(&mut input, abandoned)? else {
                return Ok(ElicitAnswer::Cancel);
            };
            Ok(match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => ElicitAnswer::Accept(Map::new()),
                _ if line.is_empty() => ElicitAnswer::Cancel,
                _ => ElicitAnswer::Decline,
            })
        }
        ElicitationKind::Form { fields } => {
            writeln!(out, "  (never type passwords or keys here; Ctrl-C cancels)")?;
            let mut content = Map::new();
            for field in fields {
                let label = field.title.as_deref().unwrap_or(&field.name);
                if let Some(description) = &field.description {
                    writeln!(out, "  {label}: {description}")?;
                }
                if let FieldKind::Enum { labels, .. } = &field.kind {
                    for (i, choice) in labels.iter().enumerate() {
                        writeln!(out, "    {}. {choice}", i + 1)?;
                    }
                }
                loop {
                    write!(out, "  {label} ({}) > ", field_hint(field))?;
                    out.flush()?;
                    let Some(line) = read_line_unless(&mut input, abandoned)? else {
                        return Ok(ElicitAnswer::Cancel);
                    };
                    if line.is_empty() {
                        return Ok(ElicitAnswer::Cancel);
                    }
                    match field.parse_input(&line) {
                        Ok(Some(value)) => {
                            content.insert(field.name.clone(), value);
                            break;
                        }
                        Ok(None) => break,
                        Err(why) => writeln!(out, "    {why}")?,
                    }
                }
            }
            write!(
                out,
                "  Send this to {:?}? [y] send   [n] decline  > ",
                request.server
            )?;
            out.flush()?;
            let Some(line) = read_line_unless(&mut input, abandoned)? else {
                return Ok(ElicitAnswer::Cancel);
            };
            Ok(match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" | "" if !line.is_empty() => ElicitAnswer::Accept(content),
                _ => ElicitAnswer::Decline,
            })
        }
        _ => Ok(ElicitAnswer::Decline),
    }
}

/// Asks a yes/no question on the terminal; false when there is none.
async fn confirm(question: &str) -> bool {
    let question = question.to_owned();
    tokio::task::spawn_blocking(move || -> std::io::Result<bool> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")?;
        let mut out = tty.try_clone()?;
        write!(out, "\n{question} [y/N] > ")?;
        out.flush()?;
        let mut line = String::new();
        std::io::BufReader::new(tty).read_line(&mut line)?;
        Ok(matches!(
            line.trim().to_ascii_lowercase().as_str(),
            "y" | "yes"
        ))
    })
    .await
    .ok()
    .and_then(Result::ok)
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_and_an_abandoned_prompt_takes_nothing() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let mut input = std::io::BufReader::new(reader);
        let abandoned = AtomicBool::new(false);
        writer.write_all(b"y\n").unwrap();
        assert_eq!(
            read_line_unless(&mut input, &abandoned).unwrap().as_deref(),
            Some("y\n")
        );
        // Nothing typed: abandoning ends the wait within a tick…
        let started = std::time::Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(150));
                abandoned.store(true, Ordering::SeqCst);
            });
            assert_eq!(read_line_unless(&mut input, &abandoned).unwrap(), None);
        });
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        // …and what is typed afterwards is left for the next reader.
        writer.write_all(b"n\n").unwrap();
        let mut rest = String::new();
        input.read_line(&mut rest).unwrap();
        assert_eq!(rest, "n\n");
        drop(writer);
        let fresh = AtomicBool::new(false);
        assert_eq!(
            read_line_unless(&mut input, &fresh).unwrap().as_deref(),
            Some("")
        );
    }
}
