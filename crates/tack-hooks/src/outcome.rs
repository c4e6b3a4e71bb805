//! What running the hooks of one event produced.
//!
//! Every piece names the hook it came from ([`HookRef`]) for the audit trail.
//! In every outcome, `stop` (a hook printed `"continue": false`) takes
//! precedence over everything else: the agent ends the turn and shows
//! `stopReason` to the user.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::config::HookRef;
use crate::run::RunStatus;
use tack_protocol::Verdict;

/// A decision about one tool call, and the hook that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDecision {
    pub decision: Verdict,
    /// For `Deny`, what the model is told; for `Allow`/`Ask`, what the user
    /// is shown. `None` if the hook gave none.
    pub reason: Option<String>,
    pub hook: HookRef,
}

/// A text from a hook (context for the model, a reason), and its hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookNote {
    pub text: String,
    pub hook: HookRef,
}

/// A hook asked to stop the agent (`"continue": false`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookStop {
    /// `stopReason`, shown to the user (not the model).
    pub reason: Option<String>,
    pub hook: HookRef,
}

/// What a report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReportKind {
    /// Stdout of a successful hook, for a verbose/transcript view.
    Output,
    /// A `systemMessage`: a warning for the user.
    SystemMessage,
    /// A hook blocked something and this is its message for the user
    /// (UserPromptSubmit), or exit 2 on an event that cannot block
    /// (SessionStart, SessionEnd): stderr for the user only.
    Blocked,
    /// Exit code other than 0 and 2: Claude Code's non-blocking error.
    NonBlockingError,
    /// Ran past its timeout; killed.
    Timeout,
    /// Killed by a signal, or could not be started.
    Crashed,
    /// Exit 0 with stdout starting with `{` that is not valid hook output.
    InvalidOutput,
    /// Stdout or stderr was longer than the capture limit and was cut.
    Truncated,
}

impl ReportKind {
    /// Whether the hook itself failed (a failure makes a fail-closed hook refuse).
    pub fn is_failure(self) -> bool {
        match self {
            ReportKind::NonBlockingError
            | ReportKind::Timeout
            | ReportKind::Crashed
            | ReportKind::InvalidOutput => true,
            ReportKind::Output
            | ReportKind::SystemMessage
            | ReportKind::Blocked
            | ReportKind::Truncated => false,
        }
    }
}

/// Something to show the user about a hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookReport {
    pub kind: ReportKind,
    pub message: String,
    pub hook: HookRef,
}

impl fmt::Display for HookReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hook {}: {}", self.hook, self.message)
    }
}

/// One hook that ran, for the audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    pub hook: HookRef,
    pub status: RunStatus,
    pub duration: Duration,
}

/// Result of the PreToolUse hooks of one call.
#[derive(Debug, Clone, Default)]
pub struct PreToolUseOutcome {
    /// The strictest decision (deny > ask > allow), from the first hook that
    /// reached it; `None` if no hook decided. The permission stage combines
    /// it with the rules; a hook's allow never overrides a deny rule.
    pub decision: Option<HookDecision>,
    /// The input after every rewrite (`updatedInput` replaces the whole
    /// input); `None` if no hook rewrote it. Run the call with this.
    pub updated_input: Option<Value>,
    /// The hooks that rewrote the input, in order.
    pub rewritten_by: Vec<HookRef>,
    /// `additionalContext` for the model, in hook order.
    pub additional_context: Vec<HookNote>,
    pub reports: Vec<HookReport>,
    pub stop: Option<HookStop>,
    pub runs: Vec<HookRun>,
}

impl PreToolUseOutcome {
    /// Whether a hook denied the call (including by stopping the agent or by
    /// failing while fail-closed).
    pub fn denied(&self) -> bool {
        self.decision
            .as_ref()
            .is_some_and(|d| d.decision == Verdict::Deny)
    }
}

/// Result of the PostToolUse or PostToolUseFailure hooks of one call.
#[derive(Debug, Clone, Default)]
pub struct PostToolUseOutcome {
    /// Hooks that blocked (exit 2 stderr, `decision: "block"` + `reason`, or a
    /// fail-closed hook's failure). The tool already ran; these reasons go to
    /// the model with the result.
    pub blocks: Vec<HookNote>,
    /// `additionalContext` for the model, in hook order.
    pub additional_context: Vec<HookNote>,
    pub reports: Vec<HookReport>,
    pub stop: Option<HookStop>,
    pub runs: Vec<HookRun>,
}

impl PostToolUseOutcome {
    /// Everything the model should read after the result: block reasons and
    /// context, in hook order within each kind.
    pub fn feedback_for_model(&self) -> Vec<&HookNote> {
        self.blocks
            .iter()
            .chain(self.additional_context.iter())
            .collect()
    }
}

/// Result of the UserPromptSubmit hooks of one prompt.
#[derive(Debug, Clone, Default)]
pub struct UserPromptSubmitOutcome {
    /// Set if the prompt must not be sent; the text is for the user, not
    /// the model. Later hooks did not run.
    pub block: Option<HookNote>,
    /// Context for the model (plain stdout of exit 0, or `additionalContext`).
    pub additional_context: Vec<HookNote>,
    pub reports: Vec<HookReport>,
    pub stop: Option<HookStop>,
    pub runs: Vec<HookRun>,
}

/// Result of the Stop hooks at the end of a turn.
#[derive(Debug, Clone, Default)]
pub struct StopOutcome {
    /// Hooks that refused the stop: the agent must continue, and these
    /// reasons go to the model as the next instruction.
    pub blocks: Vec<HookNote>,
    pub reports: Vec<HookReport>,
    pub stop: Option<HookStop>,
    pub runs: Vec<HookRun>,
}

impl StopOutcome {
    /// What to tell the model if it must go on; `None` if it may stop.
    /// `stop` (end now) wins over this.
    pub fn continue_with(&self) -> Option<String> {
        if self.stop.is_some() || self.blocks.is_empty() {
            return None;
        }
        Some(
            self.blocks
                .iter()
                .map(|b| b.text.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }
}

/// Result of the SessionStart hooks.
#[derive(Debug, Clone, Default)]
pub struct SessionStartOutcome {
    /// Context for the model (plain stdout of exit 0, or `additionalContext`).
    pub additional_context: Vec<HookNote>,
    pub reports: Vec<HookReport>,
    pub stop: Option<HookStop>,
    pub runs: Vec<HookRun>,
}

/// Result of the PreCompact or PostCompact hooks.
#[derive(Debug, Clone, Default)]
pub struct CompactOutcome {
    /// PreCompact: what the hooks add to the summary instructions (plain
    /// stdout of exit 0, or `additionalContext`).
    pub instructions: Vec<HookNote>,
    /// PreCompact: a hook blocked the compaction (exit 2 or `decision: block`).
    pub block: Option<HookNote>,
    pub reports: Vec<HookReport>,
    pub runs: Vec<HookRun>,
}

/// Result of the SessionEnd hooks (they cannot change anything).
#[derive(Debug, Clone, Default)]
pub struct SessionEndOutcome {
    pub reports: Vec<HookReport>,
    pub runs: Vec<HookRun>,
}

/// Result of the PermissionRequest hooks of one call that would be asked
/// about: the first hook that decides answers for the person.
#[derive(Debug, Clone, Default)]
pub struct PermissionRequestOutcome {
    /// The first decision; `None` if no hook decided (the person is asked).
    pub decision: Option<PermissionAnswer>,
    pub reports: Vec<HookReport>,
    pub stop: Option<HookStop>,
    pub runs: Vec<HookRun>,
}

/// What a PermissionRequest hook answered.
#[derive(Debug, Clone)]
pub struct PermissionAnswer {
    /// `behavior: "allow"` (else deny).
    pub allow: bool,
    /// An allow's `updatedInput`: the call runs with it (checked again).
    pub updated_input: Option<Value>,
    /// A deny's `message` (or exit 2's stderr), for the model.
    pub message: Option<String>,
    /// A deny's `interrupt: true`: the agent stops too.
    pub interrupt: bool,
    pub hook: HookRef,
}
