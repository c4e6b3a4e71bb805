//! The [`Interaction`] of a terminal: permission prompts (allow once,
//! always (written to the local settings), or deny with a reason for the
//! model) and yes/no approvals on the controlling terminal, notices on stderr.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use async_trait::async_trait;
use tack_agent::permission::{PromptAnswer, PromptRequest};
use tack_mcp::client::ToolChange;

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

fn ask_blocking(request: &PromptRequest) -> std::io::Result<PromptAnswer> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = std::io::BufReader::new(tty);
    writeln!(out, "\ntack wants to run {}", request.call)?;
    if request.destructive {
        writeln!(out, "  ⚠ the tool says it may be destructive")?;
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
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
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
                let mut reason = String::new();
                input.read_line(&mut reason)?;
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
        tokio::task::spawn_blocking(move || ask_blocking(&request))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or(PromptAnswer::Deny {
                reason: "the permission prompt could not be shown".into(),
            })
    }

    async fn approve_server(&self, server: &str) -> bool {
        let _guard = self.lock.lock().await;
        confirm(&format!(
            "The project configures the MCP server {server:?}. Start it?"
        ))
        .await
    }

    async fn approve_changes(&self, server: &str, changes: &[ToolChange]) -> bool {
        let _guard = self.lock.lock().await;
        let tools: Vec<&str> = changes.iter().map(|c| c.tool.as_str()).collect();
        confirm(&format!(
            "The MCP server {server:?} changed the definition of {} since it was approved ({}); `tack mcp diff {server}` shows how. Offer the new definitions?",
            if tools.len() == 1 { "a tool" } else { "some tools" },
            tools.join(", ")
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
