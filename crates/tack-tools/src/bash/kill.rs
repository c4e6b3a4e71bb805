//! KillShell: stops a background command and everything it started, and
//! says what it did.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::jobs::KillOutcome;
use super::state::BashState;

// The input of KillShell. Not a doc comment: that would become the schema's
// description, sent with every request.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct KillShellInput {
    /// The id of the background command to stop, e.g. "bash_1".
    pub shell_id: String,
}

/// Stops a background command and every process it started.
pub struct KillShell {
    pub(crate) state: Arc<BashState>,
}

#[async_trait]
impl TypedTool for KillShell {
    type Input = KillShellInput;

    fn name(&self) -> &str {
        "KillShell"
    }

    fn description(&self) -> &str {
        "Stops a background command started by Bash with run_in_background, together with every \
         process it started (SIGTERM, then SIGKILL after a moment). Takes the id Bash returned, \
         e.g. \"bash_1\". Output it printed before being stopped can still be read with \
         BashOutput. Stopping a command that already ended is harmless and says so."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            destructive: true,
            idempotent: true,
            ..Default::default()
        }
    }

    async fn call(
        &self,
        input: KillShellInput,
        _ctx: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let job = self.state.job(&input.shell_id)?;
        let outcome = job.kill().await;
        let id = job.id.clone();
        let text = match &outcome {
            KillOutcome::Killed => format!("Killed {id} and every process it started."),
            KillOutcome::KilledLeftovers(status) => {
                format!("{id} had already ended ({status}); killed the processes it left running.")
            }
            KillOutcome::AlreadyEnded(status) => {
                format!("{id} had already ended ({status}); nothing to stop.")
            }
        };
        // Claude Code's KillShell gave `{message, shell_id}`; its successor
        // TaskStop gives `{message, task_id, task_type, command}`: both fit.
        let response = json!({
            "message": text,
            "shell_id": id,
            "task_id": id,
            "task_type": "local_bash",
            "command": job.command,
        });
        Ok(ToolOutput::text(text)
            .with_structured(json!({
                "shell_id": id,
                "killed": !matches!(outcome, KillOutcome::AlreadyEnded(_)),
            }))
            .with_response(response))
    }
}
