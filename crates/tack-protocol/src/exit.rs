//! The exit codes of every `tack` subcommand: one table, one meaning per
//! code (printed by `tack --help` and listed in the README).

/// The command did what was asked.
pub const OK: u8 = 0;
/// A fault inside tack or the machine (an unreadable state file, a full disk).
pub const INTERNAL: u8 = 1;
/// Bad flags or configuration (settings, `.mcp.json`, hooks, no prompt, no
/// provider), or a request that conflicts with what is running (resuming a
/// session another tack is writing to): nothing is broken, the invocation
/// has to change or wait.
pub const USAGE: u8 = 2;
/// The model API failed (after retries): a bad key, an unknown model, an outage.
pub const MODEL_API: u8 = 3;
/// `--max-turns` was reached while the model still wanted tools.
pub const MAX_TURNS: u8 = 4;
/// The response was cut off by max_tokens.
pub const MAX_TOKENS: u8 = 5;
/// The model refused.
pub const REFUSAL: u8 = 6;
/// A hook blocked the prompt or stopped the session (`continue: false`).
pub const HOOK_STOPPED: u8 = 7;
/// An MCP server failed to start or stopped answering.
pub const SERVER_FAILED: u8 = 8;
/// A tool call failed (`tack mcp call`; `tack tools call` when no class
/// below fits: an internal error, a command's unclassified exit code).
pub const TOOL_FAILED: u8 = 9;
/// No such thing: an MCP server, a tool, a session, a skill.
pub const NOT_FOUND: u8 = 10;
/// An approval is needed first (`tack mcp approve NAME`).
pub const NOT_APPROVED: u8 = 11;
/// `tack skills check`: a `SKILL.md` cannot be read as a skill (missing, no
/// frontmatter, YAML that does not parse or is not a mapping). The most
/// severe of the three skill classes: it decides when several occur.
pub const SKILL_UNREADABLE: u8 = 12;
/// `tack skills check`: a required field is invalid (`name` breaks the
/// naming rules or is not its folder's name; `description` missing, empty or
/// too long).
pub const SKILL_REQUIRED_FIELD: u8 = 13;
/// `tack skills check`: an optional field is invalid, or a frontmatter key
/// is unknown.
pub const SKILL_OPTIONAL_FIELD: u8 = 14;
/// `tack tools call`: the input does not fit the tool (schema, checks, a
/// command's exit code declared `invalid_input`).
pub const TOOL_INVALID_INPUT: u8 = 15;
/// `tack tools call`: a rule, hook or the user denied the call.
pub const TOOL_DENIED: u8 = 16;
/// `tack tools call`: the call ran out of time and was stopped.
pub const TOOL_TIMEOUT: u8 = 17;
/// `tack tools call`: what the tool needs is unavailable, or failed in a way
/// a retry may not meet again (transient).
pub const TOOL_UNAVAILABLE: u8 = 18;
/// `tack eval`: a run diverged from its cassette or could not run (with
/// `--strict`, also: a run failed its checks).
pub const EVAL_FAILED: u8 = 19;
/// Interrupted (Ctrl-C); the session is saved and can be resumed.
pub const INTERRUPTED: u8 = 130;

/// Every code with its meaning, in order, for `--help` and the README.
pub const TABLE: &[(u8, &str)] = &[
    (OK, "the command completed"),
    (
        INTERNAL,
        "an internal error (e.g. a state file could not be read or written)",
    ),
    (
        USAGE,
        "usage or configuration error (bad flags or settings, no prompt, no provider, a session in use by another tack)",
    ),
    (
        MODEL_API,
        "the model API failed (after retries), e.g. a bad key or an unknown model",
    ),
    (
        MAX_TURNS,
        "--max-turns was reached while the model still wanted tools",
    ),
    (MAX_TOKENS, "the response was cut off by max_tokens"),
    (REFUSAL, "the model refused"),
    (
        HOOK_STOPPED,
        "a hook blocked the prompt or stopped the session (continue: false)",
    ),
    (SERVER_FAILED, "an MCP server failed to start or to answer"),
    (
        TOOL_FAILED,
        "the tool call failed (tack mcp call; tack tools call when no class below fits)",
    ),
    (NOT_FOUND, "no such MCP server, tool, session or skill"),
    (
        NOT_APPROVED,
        "the MCP server is not approved yet (tack mcp approve NAME)",
    ),
    (
        SKILL_UNREADABLE,
        "tack skills check: a SKILL.md cannot be read as a skill (missing, no frontmatter, invalid YAML, not a mapping)",
    ),
    (
        SKILL_REQUIRED_FIELD,
        "tack skills check: a required field is invalid (name rules, name not the folder's, description missing, empty or too long)",
    ),
    (
        SKILL_OPTIONAL_FIELD,
        "tack skills check: an optional field is invalid or a frontmatter key is unknown",
    ),
    (
        TOOL_INVALID_INPUT,
        "tack tools call: the input does not fit the tool (schema, checks, an exit code declared invalid_input)",
    ),
    (
        TOOL_DENIED,
        "tack tools call: a rule, a hook or the user denied the call",
    ),
    (
        TOOL_TIMEOUT,
        "tack tools call: the call timed out and was stopped",
    ),
    (
        TOOL_UNAVAILABLE,
        "tack tools call: what the tool needs is unavailable, or it failed temporarily",
    ),
    (
        EVAL_FAILED,
        "tack eval: a run diverged from its cassette or could not run (--strict: or failed)",
    ),
    (
        INTERRUPTED,
        "interrupted (Ctrl-C); the session is saved and can be resumed",
    ),
];

impl crate::ToolOutcome {
    /// The exit code of `tack tools call` for a call that ended this way.
    pub fn exit_code(self) -> u8 {
        use crate::ToolOutcome as O;
        match self {
            O::Ok => OK,
            O::InvalidInput => TOOL_INVALID_INPUT,
            O::UnknownTool => NOT_FOUND,
            O::Denied => TOOL_DENIED,
            O::Timeout => TOOL_TIMEOUT,
            O::Transient | O::Unavailable => TOOL_UNAVAILABLE,
            O::Interrupted => INTERRUPTED,
            O::Internal | O::Failed | O::NotRun => TOOL_FAILED,
        }
    }
}

impl crate::RunStatus {
    /// The exit code of a run that ended this way.
    pub fn exit_code(self) -> u8 {
        match self {
            crate::RunStatus::Completed => OK,
            crate::RunStatus::MaxTurns => MAX_TURNS,
            crate::RunStatus::MaxTokens => MAX_TOKENS,
            crate::RunStatus::Refusal => REFUSAL,
            crate::RunStatus::Interrupted => INTERRUPTED,
            crate::RunStatus::ModelError => MODEL_API,
            crate::RunStatus::HookStopped => HOOK_STOPPED,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_code_has_one_meaning() {
        let mut codes: Vec<u8> = super::TABLE.iter().map(|(c, _)| *c).collect();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n, "a code appears twice");
        assert!(super::TABLE.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
