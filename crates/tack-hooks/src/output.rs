//! The JSON a hook may print on stdout (exit 0, stdout starting with `{`).
//!
//! Fields, as in Claude Code: `continue` (false stops the agent, with
//! `stopReason`), `suppressOutput`, `systemMessage`, `decision` (`"block"`;
//! legacy `"approve"` for PreToolUse) with `reason`, and `hookSpecificOutput`
//! with `hookEventName`, `permissionDecision`, `permissionDecisionReason`,
//! `updatedInput`, `additionalContext`. Unknown fields are ignored; a known
//! field of the wrong type makes the whole output invalid.

use serde::Deserialize;
use serde_json::{Map, Value};

use tack_protocol::Verdict;

use crate::config::HookEvent;

/// Top-level `decision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TopDecision {
    /// Legacy PreToolUse allow.
    Approve,
    Block,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HookOutput {
    #[serde(rename = "continue", default = "yes")]
    pub(crate) continue_: bool,
    #[serde(default)]
    pub(crate) stop_reason: Option<String>,
    #[serde(default)]
    pub(crate) suppress_output: bool,
    #[serde(default)]
    pub(crate) system_message: Option<String>,
    #[serde(default)]
    pub(crate) decision: Option<TopDecision>,
    #[serde(default)]
    pub(crate) reason: Option<String>,
    #[serde(default)]
    pub(crate) hook_specific_output: Option<SpecificOutput>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SpecificOutput {
    #[serde(default)]
    pub(crate) hook_event_name: Option<String>,
    #[serde(default)]
    pub(crate) permission_decision: Option<Verdict>,
    #[serde(default)]
    pub(crate) permission_decision_reason: Option<String>,
    #[serde(default)]
    pub(crate) updated_input: Option<Map<String, Value>>,
    #[serde(default)]
    pub(crate) additional_context: Option<String>,
    /// PermissionRequest's `{behavior: "allow", updatedInput?} | {behavior:
    /// "deny", message?, interrupt?}`, read by that event only.
    #[serde(default)]
    pub(crate) decision: Option<Value>,
}

impl HookOutput {
    /// Parses `stdout` (already known to start with `{`) for `event`.
    pub(crate) fn parse(event: HookEvent, stdout: &str) -> Result<HookOutput, String> {
        let output: HookOutput = serde_json::from_str(stdout.trim())
            .map_err(|e| format!("printed invalid JSON output ({e})"))?;
        if let Some(specific) = &output.hook_specific_output
            && let Some(name) = &specific.hook_event_name
            && name != event.as_str()
        {
            return Err(format!(
                "printed hookSpecificOutput for event `{name}` while running for `{event}`"
            ));
        }
        Ok(output)
    }

    pub(crate) fn specific(&self) -> Option<&SpecificOutput> {
        self.hook_specific_output.as_ref()
    }

    pub(crate) fn additional_context(&self) -> Option<&str> {
        self.specific()
            .and_then(|s| s.additional_context.as_deref())
            .filter(|c| !c.trim().is_empty())
    }

    pub(crate) fn blocks(&self) -> bool {
        self.decision == Some(TopDecision::Block)
    }
}
