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
//! At 2026-07-28 servers may not send clients requests; the question goes
//! back as the call's result instead (the multi-round-trip form, SEP-2322):
//! a [`DeferringAsker`] notes it and answers [`PermissionReply::Pending`]
//! (the attempt does not run), and the server answers `input_required` with
//! the form as `inputRequests["permission"]` and a `requestState`. The
//! client asks its person and calls again with `inputResponses` and the
//! state; the server checks the state is one it issued (kept in this
//! process for 10 minutes, once) for the same tool and arguments, and an
//! [`AnsweredAsker`] gives the permission stage that answer.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rmcp::model::{
    ClientResult, CustomRequest, ElicitRequest, ElicitRequestParams, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, JsonObject, ProtocolVersion, ServerRequest,
};
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

/// Whether a call can be asked about by a multi-round-trip result: a
/// 2026-07-28 request whose client declared elicitation in its `_meta`.
pub(crate) fn can_defer(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
        && context
            .meta
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some())
}

/// Notes the question of a first attempt (2026-07-28) instead of asking.
#[derive(Default)]
pub(crate) struct DeferringAsker {
    asked: Mutex<Option<PermissionQuestion>>,
}

impl DeferringAsker {
    /// The question the attempt stopped at, if it did.
    pub(crate) fn asked(&self) -> Option<PermissionQuestion> {
        self.asked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

#[async_trait]
impl CallAsker for DeferringAsker {
    async fn ask(&self, question: &PermissionQuestion) -> Option<PermissionReply> {
        *self.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(question.clone());
        Some(PermissionReply::Pending)
    }
}

/// Gives the permission stage the answer a retried call carries.
pub(crate) struct AnsweredAsker {
    call: String,
    reply: PermissionReply,
}

#[async_trait]
impl CallAsker for AnsweredAsker {
    async fn ask(&self, question: &PermissionQuestion) -> Option<PermissionReply> {
        // The answer is to this question, not to another the call now raises.
        (question.call == self.call).then(|| self.reply.clone())
    }
}

/// The key of the question in `inputRequests` / `inputResponses`.
pub(crate) const INPUT_KEY: &str = "permission";

/// How long an `input_required` answer may take to come back.
const PENDING_TTL: Duration = Duration::from_secs(600);
/// The most questions awaiting an answer at once (the oldest go first).
const MAX_PENDING: usize = 256;

/// A question sent in an `input_required` result, awaiting its retry.
struct Pending {
    tool: String,
    arguments: Option<JsonObject>,
    question: PermissionQuestion,
    sent: Instant,
}

static PENDING: Mutex<Option<HashMap<String, Pending>>> = Mutex::new(None);

/// The `input_required` result asking `question` about this call.
pub(crate) fn input_required(
    tool: &str,
    arguments: Option<JsonObject>,
    question: PermissionQuestion,
) -> Result<InputRequiredResult, String> {
    let params: ElicitRequestParams =
        serde_json::from_value(form(&question)).map_err(|e| e.to_string())?;
    let mut requests = InputRequests::new();
    requests.insert(
        INPUT_KEY.to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(params)),
    );
    let bytes: [u8; 24] = rand::random();
    let state: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut pending = PENDING.lock().unwrap_or_else(PoisonError::into_inner);
    let pending = pending.get_or_insert_with(HashMap::new);
    pending.retain(|_, p| p.sent.elapsed() < PENDING_TTL);
    while pending.len() >= MAX_PENDING {
        let Some(oldest) = pending
            .iter()
            .min_by_key(|(_, p)| p.sent)
            .map(|(k, _)| k.clone())
        else {
            break;
        };
        pending.remove(&oldest);
    }
    pending.insert(
        state.clone(),
        Pending {
            tool: tool.to_owned(),
            arguments,
            question,
            sent: Instant::now(),
        },
    );
    Ok(InputRequiredResult::new(Some(requests), Some(state)))
}

/// The asker of a retried call: the answer in `responses` to the question
/// `state` stands for. Err: the state is not one this process issued for
/// this call (unknown, used, expired, or another call's).
pub(crate) fn answered(
    state: &str,
    tool: &str,
    arguments: Option<&JsonObject>,
    responses: Option<&InputResponses>,
) -> Result<AnsweredAsker, String> {
    let pending = PENDING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
        .and_then(|p| p.remove(state))
        .filter(|p| p.sent.elapsed() < PENDING_TTL)
        .ok_or_else(|| {
            "requestState is not one this server issued, or it was used or expired (10 minutes); \
             call the tool again without requestState"
                .to_owned()
        })?;
    if pending.tool != tool || pending.arguments.as_ref() != arguments {
        return Err(format!(
            "requestState was issued for another call (of {}); retry the call it was issued for \
             with the same arguments",
            pending.tool
        ));
    }
    let call = pending.question.call.clone();
    let reply = responses
        .and_then(|r| r.get(INPUT_KEY))
        .and_then(|answer| reply(answer, &call))
        .unwrap_or_else(|| PermissionReply::Deny {
            reason: format!(
                "The MCP client sent no answer to the question about {call} (inputResponses[\"{INPUT_KEY}\"])."
            ),
        });
    Ok(AnsweredAsker { call, reply })
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
