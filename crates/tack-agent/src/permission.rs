//! The permission stage: tack-policy's pure decision on the input as it will
//! run, combined with the pre-hooks' decision, then the user's answer when
//! the decision is "ask" and a terminal is there to ask.

use async_trait::async_trait;

/// What the user is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRequest {
    /// The call, e.g. `Bash(git push origin main)`.
    pub call: String,
    /// Why it asks (the rule and its file, or the mode).
    pub reason: String,
    /// The rule "always allow" would add to the local settings.
    pub always_rule: String,
    /// The tool says it may be destructive (MCP destructiveHint).
    pub destructive: bool,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptAnswer {
    AllowOnce,
    /// Allow, and add the rule to the local settings.
    AllowAlways,
    /// Deny; the reason goes to the model.
    Deny {
        reason: String,
    },
}

/// Asks the user about a call.
#[async_trait]
pub trait Prompter: Send + Sync {
    async fn ask(&self, request: &PromptRequest) -> PromptAnswer;
}
