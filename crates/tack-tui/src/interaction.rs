//! The session's [`Interaction`] in the interactive terminal: every
//! question goes to the screen as a message and waits for the person's key.
//! Nothing here touches the terminal: the UI task owns it.

use async_trait::async_trait;
use tack_mcp::client::ToolChange;
use tack_session::{Interaction, PromptAnswer, PromptRequest, SkillApproval, UntrustedSettings};
use tokio::sync::{mpsc, oneshot};

use crate::worker::Ui;

/// A yes/no question for the person (a server to start, changed tools, the
/// project's settings, a skill to trust).
#[derive(Debug)]
pub struct Confirm {
    pub title: String,
    pub lines: Vec<String>,
    pub reply: oneshot::Sender<bool>,
}

/// Puts the session's questions to the UI task.
pub(crate) struct TuiInteraction {
    pub(crate) ui: mpsc::UnboundedSender<Ui>,
}

impl TuiInteraction {
    async fn confirm(&self, title: String, lines: Vec<String>) -> bool {
        let (reply, answer) = oneshot::channel();
        if self
            .ui
            .send(Ui::Confirm(Confirm {
                title,
                lines,
                reply,
            }))
            .is_err()
        {
            return false;
        }
        answer.await.unwrap_or(false)
    }
}

#[async_trait]
impl Interaction for TuiInteraction {
    fn can_ask(&self) -> bool {
        true
    }

    async fn permission(&self, request: &PromptRequest) -> PromptAnswer {
        let (reply, answer) = oneshot::channel();
        let closed = || PromptAnswer::Deny {
            reason: "the interactive session closed before the user answered".into(),
        };
        if self
            .ui
            .send(Ui::Ask(Box::new(request.clone()), reply))
            .is_err()
        {
            return closed();
        }
        answer.await.unwrap_or_else(|_| closed())
    }

    async fn approve_server(&self, server: &tack_mcp::client::PendingServer) -> bool {
        let mut lines = server.describe();
        lines.push("It is defined in this project, not by you: yes is remembered.".into());
        self.confirm(
            format!("Start the project's MCP server `{}`?", server.name),
            lines,
        )
        .await
    }

    async fn approve_changes(&self, server: &str, changes: &[ToolChange]) -> bool {
        let mut lines: Vec<String> = changes.iter().map(|c| format!("  {}", c.tool)).collect();
        lines.push("Yes offers the new definitions to the model (and pins them).".into());
        self.confirm(
            format!("The tools of the MCP server `{server}` changed since you approved them"),
            lines,
        )
        .await
    }

    async fn approve_project_settings(&self, settings: &UntrustedSettings) -> bool {
        self.confirm(
            "The project's settings ask for what runs without asking".into(),
            vec![
                settings.notice(),
                "Yes applies them (remembered until the file changes what it asks for).".into(),
            ],
        )
        .await
    }

    async fn approve_skill(&self, skill: &SkillApproval) -> bool {
        let mut lines = vec![
            format!("{} — {}", skill.location, skill.description),
            "It came with the repository or an MCP server: yes is remembered until its instructions change.".into(),
        ];
        if !skill.allowed_tools.is_empty() {
            lines.push(format!(
                "allowed-tools (shown, they grant nothing): {}",
                skill.allowed_tools.join(", ")
            ));
        }
        self.confirm(format!("Use the skill `{}`?", skill.name), lines)
            .await
    }

    fn notice(&self, text: &str) {
        let _ = self.ui.send(Ui::Notice(text.to_owned()));
    }
}
