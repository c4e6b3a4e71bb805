//! `--permission-prompt-tool mcp__server__tool`: in a run with nobody to
//! ask, a permission ask goes to an MCP tool, as Claude Code does it.
//!
//! The tool is sent `{"tool_name", "input", "tool_use_id"}` (and `agent_id` for a
//! sub-agent's call) and answers with
//! one text block holding a PermissionResult:
//! `{"behavior":"allow","updatedInput":{…}}` or
//! `{"behavior":"deny","message":"…"}`. Anything else — a reply that is not
//! that JSON, a tool error, a server that is gone — is a deny that says why,
//! never an allow. An `updatedInput` replaces the whole input and is judged
//! by the rules again (tack-agent's permission stage), so the tool cannot
//! turn an allowed call into one a deny rule forbids, nor into one only a
//! person may allow.
//!
//! Only ordinary asks go to the tool. What a person must answer every time
//! ([`PromptRequest::person_only`]: a protected path written, a critical
//! removal, a tool marked `anthropic/requiresUserInteraction`, a command
//! run outside the sandbox) is refused with the reason, as with no terminal.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_agent::permission::{PromptAnswer, PromptRequest};
use tack_mcp::client::ToolChange;

use crate::interaction::{Headless, Interaction};
use crate::sources::Mcp;
use crate::trust::UntrustedSettings;

/// How long the prompt tool may take to answer before the call is denied.
pub const PROMPT_TOOL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Asks an MCP tool; everything else is answered as [`Headless`] does.
pub struct PromptTool {
    /// `mcp__server__tool`, as the model would see it.
    name: String,
    server: String,
    tool: String,
    mcp: Arc<Mcp>,
}

/// What the tool may answer (Claude Code's PermissionResult).
#[derive(Debug, Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
enum PermissionResult {
    Allow {
        #[serde(rename = "updatedInput", default)]
        updated_input: Option<Value>,
    },
    Deny {
        #[serde(default)]
        message: Option<String>,
    },
}

impl PromptTool {
    /// `name` is `mcp__<server>__<tool>`; `mcp` the session's MCP source
    /// (the server is reached through its manager when a call is asked
    /// about). An error says what the name should look like.
    pub fn new(name: &str, mcp: Arc<Mcp>) -> Result<Self, String> {
        let (server, tool) = name
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split_once("__"))
            .filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
            .ok_or_else(|| {
                format!(
                    "--permission-prompt-tool {name:?}: expected the name of an MCP tool, mcp__<server>__<tool> (e.g. mcp__approver__check)"
                )
            })?;
        Ok(Self {
            name: name.to_owned(),
            server: server.to_owned(),
            tool: tool.to_owned(),
            mcp,
        })
    }

    /// The tool's name, `mcp__<server>__<tool>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn deny(&self, why: impl std::fmt::Display) -> PromptAnswer {
        PromptAnswer::Deny {
            reason: format!(
                "the permission prompt tool {} gave no usable answer ({why}), so the call was denied",
                self.name
            ),
        }
    }

    /// The answer in the tool's reply text.
    fn answer(&self, request: &PromptRequest, text: &str) -> PromptAnswer {
        let result: PermissionResult = match serde_json::from_str(text.trim()) {
            Ok(result) => result,
            Err(e) => {
                return self.deny(format!(
                    "its reply is not a PermissionResult {{\"behavior\":\"allow\"|\"deny\", …}}: {e}; it said: {}",
                    shorten(text, 200)
                ));
            }
        };
        match result {
            PermissionResult::Deny { message } => PromptAnswer::Deny {
                reason: format!(
                    "denied by the permission prompt tool {}: {}",
                    self.name,
                    message
                        .filter(|m| !m.trim().is_empty())
                        .unwrap_or_else(|| "no reason given".into())
                ),
            },
            // The audit names the tool that answered, not "the user".
            PermissionResult::Allow { updated_input } => match updated_input {
                None => PromptAnswer::AllowWithInput {
                    input: request.input.clone(),
                    by: format!("the permission prompt tool {} (allow once)", self.name),
                },
                Some(input) if input == request.input => PromptAnswer::AllowWithInput {
                    input,
                    by: format!("the permission prompt tool {} (allow once)", self.name),
                },
                Some(input) if input.is_object() => PromptAnswer::AllowWithInput {
                    input,
                    by: format!("the permission prompt tool {}", self.name),
                },
                Some(other) => self.deny(format!(
                    "its updatedInput must be a JSON object, not {}",
                    shorten(&other.to_string(), 100)
                )),
            },
        }
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

#[async_trait]
impl Interaction for PromptTool {
    fn can_ask(&self) -> bool {
        true
    }

    async fn permission(&self, request: &PromptRequest) -> PromptAnswer {
        // A safeguard's ask (a protected path, a critical removal, a tool
        // marked anthropic/requiresUserInteraction) or a command leaving the
        // sandbox is a person's, each time: a prompt tool is a program, so
        // it is not even asked, and without a terminal the call is refused.
        if request.person_only {
            return PromptAnswer::Deny {
                reason: format!(
                    "only a person may allow this call, each time, and this run has no terminal to ask on; the permission prompt tool {} was not asked. Why: {}",
                    self.name, request.reason
                ),
            };
        }
        let Some(manager) = self.mcp.running() else {
            return self.deny("no MCP server is running in this session");
        };
        let mut arguments = json!({
            "tool_name": request.tool_name,
            "input": request.input,
            "tool_use_id": request.tool_use_id,
        });
        if let (Some(agent), Some(obj)) = (&request.agent, arguments.as_object_mut()) {
            obj.insert("agent_id".into(), agent.agent_id.clone().into());
        }
        let call = manager.call(&self.server, &self.tool, arguments);
        match tokio::time::timeout(PROMPT_TOOL_TIMEOUT, call).await {
            Err(_) => self.deny(format!(
                "it did not answer within {} s",
                PROMPT_TOOL_TIMEOUT.as_secs()
            )),
            Ok(Err(e)) => self.deny(format!("the call failed: {e}")),
            Ok(Ok(outcome)) => self.answer(request, &outcome.text),
        }
    }

    async fn approve_server(&self, server: &tack_mcp::client::PendingServer) -> bool {
        Headless.approve_server(server).await
    }

    async fn approve_changes(&self, server: &str, changes: &[ToolChange]) -> bool {
        Headless.approve_changes(server, changes).await
    }

    async fn approve_project_settings(&self, settings: &UntrustedSettings) -> bool {
        Headless.approve_project_settings(settings).await
    }

    fn notice(&self, text: &str) {
        Headless.notice(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool() -> PromptTool {
        PromptTool::new("mcp__approver__approve", Arc::new(Mcp::new(false))).unwrap()
    }

    fn request() -> PromptRequest {
        PromptRequest {
            call: "Bash(ls)".into(),
            reason: "asked".into(),
            always_rule: None,
            destructive: false,
            tool_name: "Bash".into(),
            input: json!({"command": "ls"}),
            tool_use_id: "toolu_1".into(),
            agent: None,
            person_only: false,
        }
    }

    fn denied(answer: PromptAnswer) -> String {
        match answer {
            PromptAnswer::Deny { reason } => reason,
            other => panic!("not a deny: {other:?}"),
        }
    }

    #[test]
    fn only_a_well_formed_allow_allows() {
        let t = tool();
        let r = request();
        assert_eq!(
            t.answer(
                &r,
                r#"{"behavior":"allow","updatedInput":{"command":"ls"}}"#
            ),
            PromptAnswer::AllowWithInput {
                input: json!({"command": "ls"}),
                by: "the permission prompt tool mcp__approver__approve (allow once)".into()
            }
        );
        assert_eq!(
            t.answer(&r, r#" {"behavior":"allow"} "#),
            PromptAnswer::AllowWithInput {
                input: json!({"command": "ls"}),
                by: "the permission prompt tool mcp__approver__approve (allow once)".into()
            }
        );
        assert_eq!(
            t.answer(
                &r,
                r#"{"behavior":"allow","updatedInput":{"command":"pwd"}}"#
            ),
            PromptAnswer::AllowWithInput {
                input: json!({"command": "pwd"}),
                by: "the permission prompt tool mcp__approver__approve".into()
            }
        );
        let why = denied(t.answer(&r, r#"{"behavior":"deny","message":"Not in CI"}"#));
        assert!(why.ends_with("Not in CI"), "{why}");
        let why = denied(t.answer(&r, r#"{"behavior":"deny"}"#));
        assert!(why.ends_with("no reason given"), "{why}");
        for bad in [
            "yes",
            "",
            r#"{"behavior":"maybe"}"#,
            r#"{"allow":true}"#,
            r#"{"behavior":"allow","updatedInput":"rm -rf /"}"#,
        ] {
            let why = denied(t.answer(&r, bad));
            assert!(why.contains("gave no usable answer"), "{bad}: {why}");
        }
    }

    #[test]
    fn the_name_must_be_an_mcp_tool() {
        for bad in ["approve", "mcp__approver", "mcp____x", "mcp__a__"] {
            let err = PromptTool::new(bad, Arc::new(Mcp::new(false)))
                .err()
                .unwrap();
            assert!(err.contains("mcp__<server>__<tool>"), "{bad}: {err}");
        }
    }
}
