//! Claude Code compatible hooks for tack.
//!
//! Hooks are shell commands the user configures in settings (`"hooks"` key,
//! same schema as Claude Code) to run at points of a session: SessionStart,
//! UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop,
//! SessionEnd. Each gets the event as JSON on stdin and answers with its exit
//! code and stdout/stderr, exactly as for Claude Code, so existing hook
//! scripts work unchanged. `CLAUDE_PROJECT_DIR` and `TACK_PROJECT_DIR` are both
//! set.
//!
//! **Key decision: defined behaviour where Claude Code leaves it open.** Hooks
//! of one event run one after the other in the order declared (user, project,
//! local settings, then the administrator's managed settings; within a file
//! in order), never in parallel. So each
//! PreToolUse hook sees the input as rewritten by the one before, the
//! strictest decision wins (deny > ask > allow), and once a hook denies, later
//! PreToolUse hooks do not run. A hook that times out, crashes, cannot start,
//! exits with a code other than 0 or 2, or prints invalid JSON is reported and
//! ignored, unless it is marked `"failClosed": true` (tack's extension), in
//! which case the guarded action is refused with a reason naming the hook.
//!
//! **Contract with the permission stage.** [`Hooks::pre_tool_use`] returns only
//! the hooks' decision. The caller combines it with the rules: a deny rule
//! always wins (a hook's allow never overrides it); otherwise a hook deny
//! denies (reason to the model), a hook ask asks the user, a hook allow runs
//! the call without asking, and no hook decision leaves it to the rules and
//! the mode. Run the call with [`PreToolUseOutcome::updated_input`] when set,
//! and record [`HookDecision::hook`] / [`PreToolUseOutcome::rewritten_by`] in
//! the audit trail. If [`PreToolUseOutcome::stop`] is set the agent ends the
//! turn (the decision is then also deny, so the call never runs).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use tack_hooks::{HookContext, Hooks, Verdict};
//!
//! let project = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//!     {"type": "command", "command": "echo 'no rm here' >&2; exit 2"}]}]}});
//! let hooks = Hooks::from_settings(&[(".tack/settings.json".to_owned(), &project)])?;
//!
//! let ctx = HookContext {
//!     session_id: "s1".into(),
//!     transcript_path: "/tmp/s1.jsonl".into(),
//!     cwd: std::env::temp_dir(),
//!     permission_mode: "default".into(),
//!     project_dir: std::env::temp_dir(),
//!     agent: None,
//! };
//! let runtime = tokio::runtime::Runtime::new()?;
//! let outcome = runtime.block_on(hooks.pre_tool_use(
//!     &ctx, "Bash", "toolu_1", &json!({"command": "rm -rf /"})));
//!
//! let decision = outcome.decision.ok_or("expected a decision")?;
//! assert_eq!(decision.decision, Verdict::Deny);
//! assert_eq!(decision.reason.as_deref(), Some("no rm here"));
//! assert_eq!(decision.hook.command, "echo 'no rm here' >&2; exit 2");
//! # Ok(())
//! # }
//! ```

mod config;
mod error;
#[cfg(test)]
mod fuzz;
mod hooks;
mod outcome;
mod output;
mod run;

pub use config::{CommandHook, DEFAULT_TIMEOUT, HookEvent, HookRef, Matcher};
pub use error::{Error, Result};
pub use hooks::{HookContext, Hooks, SubagentIdentity};
pub use outcome::{
    CompactOutcome, HookDecision, HookNote, HookReport, HookRun, HookStop, PermissionAnswer,
    PermissionRequestOutcome, PostToolUseOutcome, PreToolUseOutcome, ReportKind, SessionEndOutcome,
    SessionStartOutcome, StopOutcome, UserPromptSubmitOutcome,
};
pub use run::{MAX_CAPTURE, PIPE_GRACE, RunStatus};
pub use tack_protocol::Verdict;
