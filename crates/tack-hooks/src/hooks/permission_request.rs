//! PermissionRequest: before a person is asked about a call, hooks may
//! answer for them (Claude Code's event): `hookSpecificOutput.decision`
//! `{behavior: "allow", updatedInput?}` or `{behavior: "deny", message?,
//! interrupt?}`; exit 2 denies with stderr. The first hook that decides
//! answers; one that decides nothing leaves the question to the person.
//! What a hook may answer is the permission stage's to limit (never a deny
//! rule, never a call only a person may allow, a changed input checked
//! again).

use serde_json::{Map, Value};

use crate::config::{HookEvent, HookRef};
use crate::outcome::{PermissionAnswer, PermissionRequestOutcome};
use crate::output::HookOutput;

use super::interpret::{Common, EventState};
use super::{HookContext, Hooks};

impl Hooks {
    /// Runs the PermissionRequest hooks of a call the rules would ask
    /// about. `suggestions`: the rules that would allow it always
    /// (`Bash(npm test)`), offered to the hooks as Claude Code offers them.
    pub async fn permission_request(
        &self,
        ctx: &HookContext,
        tool_name: &str,
        input: &Value,
        suggestions: &[String],
    ) -> PermissionRequestOutcome {
        let mut state = RequestState {
            tool_name,
            input,
            suggestions,
            out: PermissionRequestOutcome::default(),
        };
        self.drive(HookEvent::PermissionRequest, tool_name, ctx, &mut state)
            .await;
        state.out
    }
}

struct RequestState<'a> {
    tool_name: &'a str,
    input: &'a Value,
    suggestions: &'a [String],
    out: PermissionRequestOutcome,
}

impl RequestState<'_> {
    fn deny(&mut self, message: Option<String>, interrupt: bool, r: &HookRef) {
        self.out.decision.get_or_insert(PermissionAnswer {
            allow: false,
            updated_input: None,
            message: message.filter(|m| !m.trim().is_empty()),
            interrupt,
            hook: r.clone(),
        });
    }
}

/// A rule as Claude Code's `permission_suggestions` write it: `Bash(npm
/// test)` is `{toolName: "Bash", ruleContent: "npm test"}`.
fn suggestion(rule: &str) -> Value {
    let (tool, content) = match rule.split_once('(') {
        Some((tool, rest)) if rest.ends_with(')') => (tool, Some(&rest[..rest.len() - 1])),
        _ => (rule, None),
    };
    let mut r = Map::new();
    r.insert("toolName".into(), tool.into());
    if let Some(content) = content {
        r.insert("ruleContent".into(), content.into());
    }
    serde_json::json!({
        "type": "addRules",
        "rules": [Value::Object(r)],
        "behavior": "allow",
        "destination": "localSettings",
    })
}

impl EventState for RequestState<'_> {
    fn fields(&self, payload: &mut Map<String, Value>) {
        super::insert_tool_name(payload, self.tool_name);
        payload.insert("tool_input".into(), self.input.clone());
        payload.insert(
            "permission_suggestions".into(),
            self.suggestions.iter().map(|s| suggestion(s)).collect(),
        );
    }
    fn common(&mut self) -> Common<'_> {
        Common {
            reports: &mut self.out.reports,
            stop: Some(&mut self.out.stop),
            runs: &mut self.out.runs,
        }
    }
    fn done(&self) -> bool {
        self.out.decision.is_some() || self.out.stop.is_some()
    }
    fn on_json(&mut self, r: &HookRef, output: &HookOutput) {
        let Some(decision) = output.specific().and_then(|s| s.decision.as_ref()) else {
            return;
        };
        let field = |k: &str| decision.get(k);
        match field("behavior").and_then(Value::as_str) {
            Some("allow") => {
                self.out.decision = Some(PermissionAnswer {
                    allow: true,
                    updated_input: field("updatedInput").filter(|v| v.is_object()).cloned(),
                    message: None,
                    interrupt: false,
                    hook: r.clone(),
                });
            }
            Some("deny") => {
                let message = field("message").and_then(Value::as_str).map(str::to_owned);
                let interrupt = field("interrupt").and_then(Value::as_bool) == Some(true);
                self.deny(message, interrupt, r);
            }
            _ => {}
        }
    }
    fn on_block(&mut self, r: &HookRef, reason: String) {
        self.deny(Some(reason), false, r);
    }
    fn on_stop(&mut self, r: &HookRef, reason: Option<&str>) {
        self.deny(reason.map(str::to_owned), true, r);
    }
    fn on_fail_closed(&mut self, r: &HookRef, reason: String) {
        self.deny(Some(reason), false, r);
    }
    fn fail_closed_effect(&self) -> &'static str {
        "the call is denied"
    }
}
