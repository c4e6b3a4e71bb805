//! The permission mode: what happens to a call no rule decides.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// A permission mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Mode {
    /// Ask for anything not allowed; read-only built-ins inside the working
    /// directories run without asking.
    #[default]
    Default,
    /// Like default, and file edits inside the working directories (Edit,
    /// Write, redirections, `mkdir touch mv cp`) run without asking.
    AcceptEdits,
    /// Read-only tools only; everything else is denied.
    Plan,
    /// Deny whatever is not allowed by a rule (never ask).
    DontAsk,
    /// Allow whatever no deny or ask rule stops.
    BypassPermissions,
}

impl Mode {
    /// The settings spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::DontAsk => "dontAsk",
            Mode::BypassPermissions => "bypassPermissions",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Mode, String> {
        Ok(match s {
            "default" => Mode::Default,
            "acceptEdits" => Mode::AcceptEdits,
            "plan" => Mode::Plan,
            "dontAsk" => Mode::DontAsk,
            "bypassPermissions" => Mode::BypassPermissions,
            other => {
                const MODES: &[&str] = &[
                    "default",
                    "acceptEdits",
                    "plan",
                    "dontAsk",
                    "bypassPermissions",
                ];
                let hint = tack_protocol::suggest::closest(other, MODES)
                    .map(|m| format!("did you mean `{m}`? "))
                    .unwrap_or_default();
                return Err(format!(
                    "unknown permission mode `{other}`; {hint}expected default, acceptEdits, plan, dontAsk or bypassPermissions"
                ));
            }
        })
    }
}
