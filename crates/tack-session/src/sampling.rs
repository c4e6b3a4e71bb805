//! MCP sampling: a server may ask the session's model for a completion
//! (`sampling/createMessage`) only when the user's settings allow it
//! (`mcpSampling`, see [`crate::settings::SamplingGrant`]), within a token
//! budget per server per session. Every request, allowed or refused, is an
//! `mcp_sampling` event in the transcript (the audit trail).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tack_agent::EventBus;
use tack_mcp::client::{SamplingAnswer, SamplingRequest};
use tack_model::ModelClient;
use tack_protocol::{
    AuditDecision, ContentBlock, Extra, Message, MessagesRequest, SessionEvent, StopReason,
    SystemPrompt, Usage,
};

use crate::settings::SamplingGrant;

/// Runs the completions servers are allowed.
pub(crate) struct Sampler {
    grants: BTreeMap<String, SamplingGrant>,
    used: Mutex<BTreeMap<String, u64>>,
    client: Arc<dyn ModelClient>,
    events: EventBus,
}

impl Sampler {
    pub(crate) fn new(
        grants: BTreeMap<String, SamplingGrant>,
        client: Arc<dyn ModelClient>,
        events: EventBus,
    ) -> Self {
        Self {
            grants,
            used: Mutex::default(),
            client,
            events,
        }
    }

    pub(crate) fn may_sample(&self, server: &str) -> bool {
        self.grants.contains_key(server)
    }

    fn record(
        &self,
        server: &str,
        decision: AuditDecision,
        decided_by: String,
        max_tokens: u32,
        usage: Usage,
        (used, budget): (u64, u64),
    ) {
        self.events.emit(&SessionEvent::McpSampling {
            server: server.to_owned(),
            decision,
            decided_by,
            max_tokens,
            usage,
            budget_used: used,
            budget,
        });
    }

    pub(crate) async fn sample(&self, request: &SamplingRequest) -> Result<SamplingAnswer, String> {
        let server = request.server.as_str();
        let Some(grant) = self.grants.get(server) else {
            let why = refused_message(server);
            self.record(
                server,
                AuditDecision::Deny,
                "sampling is off for this server".into(),
                0,
                Usage::default(),
                (0, 0),
            );
            return Err(why);
        };
        let used = self
            .used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(server)
            .copied()
            .unwrap_or(0);
        let left = grant.max_tokens.saturating_sub(used);
        if left == 0 {
            self.record(
                server,
                AuditDecision::Deny,
                "budget used up".into(),
                0,
                Usage::default(),
                (used, grant.max_tokens),
            );
            return Err(format!(
                "MCP server {server:?} has used its sampling budget of {} tokens for this session; raise mcpSampling.{server}.maxTokens in your settings to allow more",
                grant.max_tokens
            ));
        }
        let max_tokens = u32::try_from(left)
            .unwrap_or(u32::MAX)
            .min(request.max_tokens)
            .max(1);
        let messages = request
            .messages
            .iter()
            .map(|(role, text)| match role.as_str() {
                "assistant" => Message::assistant(vec![ContentBlock::text(text.clone())]),
                _ => Message::user_text(text.clone()),
            })
            .collect();
        let body = MessagesRequest {
            model: self.client.model().to_owned(),
            max_tokens,
            messages,
            system: request.system.clone().map(SystemPrompt::Text),
            tools: Vec::new(),
            tool_choice: None,
            stream: false,
            temperature: None,
            stop_sequences: Vec::new(),
            extra: Extra::default(),
        };
        let sink = |_event| {};
        let turn = match self.client.complete(&body, &sink).await {
            Ok(turn) => turn,
            Err(e) => {
                self.record(
                    server,
                    AuditDecision::Allow,
                    format!("mcpSampling.{server} (the model failed: {e})"),
                    max_tokens,
                    Usage::default(),
                    (used, grant.max_tokens),
                );
                return Err(format!("tack's model failed: {e}"));
            }
        };
        let usage = turn.response.usage.clone();
        let spent = usage.input_tokens + usage.output_tokens;
        let now_used = {
            let mut all = self.used.lock().unwrap_or_else(|p| p.into_inner());
            let entry = all.entry(server.to_owned()).or_insert(0);
            *entry += spent;
            *entry
        };
        self.record(
            server,
            AuditDecision::Allow,
            format!("mcpSampling.{server} in the settings"),
            max_tokens,
            usage,
            (now_used, grant.max_tokens),
        );
        let text = turn
            .response
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("");
        let stop_reason = turn.response.stop_reason.as_ref().map(|r| match r {
            StopReason::MaxTokens => "maxTokens".to_owned(),
            StopReason::StopSequence => "stopSequence".to_owned(),
            _ => "endTurn".to_owned(),
        });
        Ok(SamplingAnswer {
            text,
            model: turn.response.model.clone(),
            stop_reason,
        })
    }
}

/// What a server that may not sample is told (a JSON-RPC error message).
pub(crate) fn refused_message(server: &str) -> String {
    format!(
        "tack does not let MCP server {server:?} use its model (sampling is off by default); to allow it, add {{\"mcpSampling\": {{\"{server}\": {{\"allow\": true, \"maxTokens\": 4000}}}}}} to your user settings (~/.config/tack/settings.json) or .tack/settings.local.json"
    )
}
