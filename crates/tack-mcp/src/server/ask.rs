//! Permission asks that reach the person at the MCP client: a
//! [`CallAsker`] that sends `elicitation/create` (2025-06-18 and later, to a
//! client that declared the `elicitation` capability) during the call.
//!
//! The form offers tack's own prompt's choices: allow once, allow for this
//! session (adds the rule the prompt names, for the rest of the tack
//! session), deny (with a reason, which the model reads). A client that
//! declines or cancels the form denies the call; one that fails to answer
//! (or a call cancelled meanwhile) leaves the decision to tack's own
//! interaction, which in `tack mcp serve` denies and names the rule or flag
//! that would allow the call.
//!
//! Not done: the 2026-07-28 multi-round-trip form (`input_required` with
//! `inputRequests`), which is the only way to ask a client at that revision
//! (servers may not send it requests); such calls are decided without asking.

use async_trait::async_trait;
use rmcp::model::{ClientResult, CustomRequest, ProtocolVersion, ServerRequest};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::{Value, json};
use tack_tool::{CallAsker, PermissionQuestion, PermissionReply};
use tokio_util::sync::CancellationToken;

/// Asks through the client of one call.
pub(crate) struct ElicitingAsker {
    peer: Peer<RoleServer>,
    cancel: CancellationToken,
}

impl ElicitingAsker {
    /// An asker for this call, when its client can be asked: a session (not
    /// a 2026-07-28 request) whose client declared elicitation.
    pub(crate) fn for_call(context: &RequestContext<RoleServer>) -> Option<Self> {
        let version = context.protocol_version();
        if version.is_some_and(|v| v >= ProtocolVersion::V_2026_07_28) {
            return None;
        }
        let info = context.peer.peer_info()?;
        info.capabilities.elicitation.as_ref()?;
        Some(Self {
            peer: context.peer.clone(),
            cancel: context.ct.clone(),
        })
    }
}

/// The choices, as the form's `decision` values.
const ALLOW_ONCE: &str = "allow_once";
const ALLOW_SESSION: &str = "allow_session";
const DENY: &str = "deny";

/// The `elicitation/create` params for `question`.
pub(crate) fn form(question: &PermissionQuestion) -> Value {
    let mut message = format!("tack asks: may {} run?\n{}", question.call, question.reason);
    if question.destructive {
        message.push_str("\nThis call may delete or overwrite data.");
    }
    let mut choices = vec![json!({"const": ALLOW_ONCE, "title": "Allow once"})];
    if let Some(rule) = &question.session_rule {
        choices.push(json!({
            "const": ALLOW_SESSION,
            "title": format!("Allow always for this session (adds the rule `{rule}`)"),
        }));
    }
    choices.push(json!({"const": DENY, "title": "Deny"}));
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "decision": {
                    "type": "string",
                    "title": "Your answer",
                    "oneOf": choices,
                },
                "reason": {
                    "type": "string",
                    "title": "Why (for a deny: the model reads it)",
                },
            },
            "required": ["decision"],
        },
    })
}

/// The client's `elicitation/create` result as the person's answer.
pub(crate) fn reply(result: &Value, call: &str) -> Option<PermissionReply> {
    let action = result.get("action").and_then(Value::as_str)?;
    let content = result.get("content");
    let reason = content
        .and_then(|c| c.get("reason"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty());
    let denied = |said: &str| PermissionReply::Deny {
        reason: match reason {
            Some(reason) => format!("{said} {call}: {reason}"),
            None => format!("{said} {call}."),
        },
    };
    Some(match action {
        "accept" => match content
            .and_then(|c| c.get("decision"))
            .and_then(Value::as_str)
        {
            Some(ALLOW_ONCE) => PermissionReply::AllowOnce,
            Some(ALLOW_SESSION) => PermissionReply::AllowForSession,
            Some(DENY) => denied("The person at the MCP client denied"),
            // An accept without a choice tack offered is no permission.
            _ => denied("The person at the MCP client gave no answer tack offered to"),
        },
        "decline" => denied("The person at the MCP client declined"),
        "cancel" => denied("The person at the MCP client dismissed the question about"),
        _ => return None,
    })
}

#[async_trait]
impl CallAsker for ElicitingAsker {
    async fn ask(&self, question: &PermissionQuestion) -> Option<PermissionReply> {
        let request = ServerRequest::CustomRequest(CustomRequest::new(
            "elicitation/create",
            Some(form(question)),
        ));
        let sent = tokio::select! {
            sent = self.peer.send_request(request) => sent,
            () = self.cancel.cancelled() => return None,
        };
        let result = match sent {
            Ok(ClientResult::CustomResult(custom)) => custom.0,
            Ok(other) => serde_json::to_value(&other).ok()?,
            Err(e) => {
                tracing::warn!(
                    "the MCP client could not be asked about {}: {e}",
                    question.call
                );
                return None;
            }
        };
        let answer = reply(&result, &question.call);
        if answer.is_none() {
            tracing::warn!(
                "the MCP client answered the question about {} with {result}",
                question.call
            );
        }
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(session_rule: Option<&str>) -> PermissionQuestion {
        PermissionQuestion {
            call: "Bash(git push)".into(),
            reason: "ask rule `Bash(git push:*)` in .claude/settings.json".into(),
            session_rule: session_rule.map(str::to_owned),
            destructive: false,
            tool_name: "Bash".into(),
            input: json!({"command": "git push"}),
        }
    }

    #[test]
    fn the_form_offers_the_prompts_choices() {
        let form = form(&question(Some("Bash(git push:*)")));
        let choices: Vec<&str> = form["requestedSchema"]["properties"]["decision"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["const"].as_str().unwrap())
            .collect();
        assert_eq!(choices, [ALLOW_ONCE, ALLOW_SESSION, DENY]);
        assert!(form["message"].as_str().unwrap().contains("Bash(git push)"));
        let form = super::form(&question(None));
        assert_eq!(
            form["requestedSchema"]["properties"]["decision"]["oneOf"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn answers_map_to_replies() {
        let answer = |v: Value| reply(&v, "Bash(git push)");
        assert_eq!(
            answer(json!({"action": "accept", "content": {"decision": "allow_once"}})),
            Some(PermissionReply::AllowOnce)
        );
        assert_eq!(
            answer(json!({"action": "accept", "content": {"decision": "allow_session"}})),
            Some(PermissionReply::AllowForSession)
        );
        let Some(PermissionReply::Deny { reason }) = answer(
            json!({"action": "accept", "content": {"decision": "deny", "reason": "not today"}}),
        ) else {
            panic!("a deny")
        };
        assert!(
            reason.contains("not today") && reason.contains("Bash(git push)"),
            "{reason}"
        );
        assert!(matches!(
            answer(json!({"action": "decline"})),
            Some(PermissionReply::Deny { .. })
        ));
        assert!(matches!(
            answer(json!({"action": "accept", "content": {"decision": "yes"}})),
            Some(PermissionReply::Deny { .. })
        ));
        assert_eq!(answer(json!({"oops": 1})), None);
    }
}
