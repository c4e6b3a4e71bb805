//! The outcome of a permission check, what made it, and the texts a person
//! or the model reads.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use tack_protocol::Verdict;

use crate::mode::Mode;
use crate::rule::Source;

/// A permission decision and what decided it. Derives `Ord` with
/// `Allow < Ask < Deny`, so `decisions.max()` is the strictest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "decision", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Decision {
    /// Run without asking.
    Allow(Why),
    /// Ask the user first.
    Ask(Why),
    /// Refuse.
    Deny(Why),
}

/// What decided a [`Decision`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecidedBy {
    /// A rule from a settings file or the command line.
    Rule {
        /// The rule text as written.
        rule: String,
        /// The list it is in.
        list: Verdict,
        /// Where it was written.
        source: Source,
    },
    /// The permission mode (no rule matched).
    Mode {
        /// The mode.
        mode: Mode,
        /// Where the mode was set.
        source: Source,
    },
    /// No rule matched and the mode asks.
    NoRuleMatched {
        /// The mode in force.
        mode: Mode,
    },
    /// What would run cannot be known before running (see `detail`).
    Uncertain,
    /// Nothing that needs permission (e.g. a todo list, an empty command,
    /// `cd` inside the working directories).
    NoPermissionNeeded,
    /// Every part of a compound command was allowed.
    AllParts,
    /// The OS sandbox settings (see [`crate::sandbox_decision`]):
    /// `autoAllowBashIfSandboxed` allowed it, or the call asks to run
    /// outside the sandbox (`dangerouslyDisableSandbox`), which a person
    /// must allow, or `allowUnsandboxedCommands` is false.
    Sandbox {
        /// The setting or input field that decided.
        setting: String,
    },
    /// A safeguard no allow rule or hook lifts (see [`crate::Safeguard`]):
    /// a write to a protected path, a critical removal.
    Safeguard {
        #[serde(flatten)]
        safeguard: crate::Safeguard,
    },
}

/// The reasons behind a [`Decision`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[non_exhaustive]
pub struct Why {
    /// What was decided, as a rule would name it: `Bash(git push)`,
    /// `Edit(/abs/file)`, `WebFetch(https://…)`, `mcp__db__query`.
    pub subject: String,
    /// What decided it.
    pub decided_by: DecidedBy,
    /// For a compound command: the part that decided the whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// More explanation (why uncertain, which mode, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Rules that would allow it, when adding allow rules would help.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// The settings file an "always allow" should go to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings_file: Option<PathBuf>,
    /// An ask turned into a deny because there is no terminal to ask on.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub headless: bool,
    /// Asked because deny or ask rules exist that cannot be checked against
    /// what the call will do (`eval "$S"`, `$X file`, a path computed at run
    /// time): the ask stands for those rules.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rules_unchecked: bool,
    /// For a Bash command: each sub-command, file written and uncertainty,
    /// with its own decision.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
}

impl Why {
    pub(crate) fn new(subject: impl Into<String>, decided_by: DecidedBy) -> Why {
        Why {
            subject: subject.into(),
            decided_by,
            via: None,
            detail: None,
            suggestions: Vec::new(),
            settings_file: None,
            headless: false,
            rules_unchecked: false,
            parts: Vec::new(),
        }
    }

    pub(crate) fn detail(mut self, d: impl Into<String>) -> Why {
        self.detail = Some(d.into());
        self
    }
}

/// One part of a compound decision.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[non_exhaustive]
pub struct Part {
    /// What this part is: `Bash(rm -rf y)`, `Edit(/abs/out.txt)`, `Read(/abs/.env)`.
    pub subject: String,
    /// Its own decision.
    pub decision: Decision,
}

impl Decision {
    /// The bare outcome.
    pub fn verdict(&self) -> Verdict {
        match self {
            Decision::Allow(_) => Verdict::Allow,
            Decision::Ask(_) => Verdict::Ask,
            Decision::Deny(_) => Verdict::Deny,
        }
    }

    /// The reasons.
    pub fn why(&self) -> &Why {
        match self {
            Decision::Allow(w) | Decision::Ask(w) | Decision::Deny(w) => w,
        }
    }

    pub(crate) fn why_mut(&mut self) -> &mut Why {
        match self {
            Decision::Allow(w) | Decision::Ask(w) | Decision::Deny(w) => w,
        }
    }

    pub(crate) fn with_verdict(verdict: Verdict, why: Why) -> Decision {
        match verdict {
            Verdict::Allow => Decision::Allow(why),
            Verdict::Ask => Decision::Ask(why),
            Verdict::Deny => Decision::Deny(why),
        }
    }

    /// True for [`Decision::Allow`].
    pub fn is_allow(&self) -> bool {
        matches!(self, Decision::Allow(_))
    }

    /// True for [`Decision::Ask`].
    pub fn is_ask(&self) -> bool {
        matches!(self, Decision::Ask(_))
    }

    /// True for [`Decision::Deny`].
    pub fn is_deny(&self) -> bool {
        matches!(self, Decision::Deny(_))
    }

    /// An ask that only a person may answer, each time: a safeguard asked
    /// (a protected path written, a critical removal), here or in a part.
    /// A hook's allow does not skip it, and no rule is offered to allow it
    /// always (allow rules do not lift it).
    pub fn needs_person(&self) -> bool {
        self.is_ask()
            && (matches!(self.why().decided_by, DecidedBy::Safeguard { .. })
                || self.why().parts.iter().any(|p| p.decision.needs_person()))
    }

    /// An ask that stands for a rule, here or in a part: an ask rule
    /// matched, or deny or ask rules could not be checked against what the
    /// call will do. A hook's allow does not answer it (as in Claude Code,
    /// where a hook's allow skips the prompt but not deny or ask rules).
    pub fn asked_by_rules(&self) -> bool {
        self.is_ask()
            && (matches!(
                self.why().decided_by,
                DecidedBy::Rule {
                    list: Verdict::Ask,
                    ..
                }
            ) || self.why().rules_unchecked
                || self.why().parts.iter().any(|p| p.decision.asked_by_rules()))
    }

    /// An ask that may stand for a deny rule tack could not check (what the
    /// call runs, reads or reaches is known only when it runs): a program
    /// that answers asks (a hook, a permission prompt tool) sees only the
    /// call, not the rule it may break, so only a person may allow it.
    pub fn rules_unchecked(&self) -> bool {
        self.is_ask()
            && (self.why().rules_unchecked
                || self
                    .why()
                    .parts
                    .iter()
                    .any(|p| p.decision.rules_unchecked()))
    }

    /// The decision when nobody can be asked (no terminal): an ask becomes a
    /// deny whose [`Decision::message`] says which rule or flag would allow
    /// the call. Allow and deny are unchanged.
    pub fn without_tty(self) -> Decision {
        match self {
            Decision::Ask(mut why) => {
                why.headless = true;
                Decision::Deny(why)
            }
            other => other,
        }
    }

    /// The text for the model when the call is not run (an `is_error`
    /// tool result): what was refused, why, what would allow it, and that
    /// it should choose another way. For an allow, a one-line summary.
    pub fn message(&self) -> String {
        let why = self.why();
        let what = match &why.via {
            Some(part) if part != &why.subject => format!("{} (because of {part})", why.subject),
            _ => why.subject.clone(),
        };
        match self {
            Decision::Allow(_) => format!("Allowed: {what}: {}.", reason_text(why)),
            Decision::Ask(_) => format!(
                "Permission needed for {what}: {}.{}",
                reason_text(why),
                how_to_allow(why)
            ),
            Decision::Deny(_) if why.headless => format!(
                "Permission denied for {what}: it needs approval ({}) and there is no terminal to ask on.{} Do not retry the same call; choose another way to reach the goal, or tell the user what you need.",
                reason_text(why),
                how_to_allow(why)
            ),
            Decision::Deny(_) => format!(
                "Permission denied for {what}: {}.{} Do not retry the same call; choose another way to reach the goal, or tell the user what you need.",
                reason_text(why),
                how_to_allow(why)
            ),
        }
    }
}

/// The reason in words, without the subject.
pub(crate) fn reason_text(why: &Why) -> String {
    let base = match &why.decided_by {
        DecidedBy::Rule { rule, list, source } => {
            format!("it matches the {list} rule `{rule}` in {source}")
        }
        DecidedBy::Mode { mode, source } => match mode {
            Mode::Plan => format!("plan mode (set in {source}) allows only read-only tools"),
            Mode::DontAsk => format!(
                "no allow rule matches and the permission mode is dontAsk (set in {source})"
            ),
            Mode::BypassPermissions => format!("bypassPermissions mode (set in {source})"),
            Mode::AcceptEdits => format!("acceptEdits mode (set in {source})"),
            Mode::Default => format!("the default mode (set in {source})"),
        },
        DecidedBy::NoRuleMatched { mode } => {
            format!("no permission rule allows it (mode {mode})")
        }
        DecidedBy::Uncertain => "what it would do cannot be known before it runs".to_string(),
        DecidedBy::NoPermissionNeeded => "it needs no permission".to_string(),
        DecidedBy::AllParts => "every part of it is allowed".to_string(),
        DecidedBy::Sandbox { setting } => format!("the sandbox ({setting})"),
        DecidedBy::Safeguard { safeguard } => match safeguard {
            crate::Safeguard::ProtectedPath { .. } => "it writes a protected path".to_string(),
            crate::Safeguard::CriticalRemoval { .. } => "it is a critical removal".to_string(),
            crate::Safeguard::UserInteraction => "the tool needs a person every call".to_string(),
        },
    };
    match &why.detail {
        Some(d) => format!("{base}; {d}"),
        None => base,
    }
}

/// A sentence on how the user could allow it, when an allow rule would.
fn how_to_allow(why: &Why) -> String {
    match &why.decided_by {
        DecidedBy::Rule {
            list: Verdict::Deny, ..
        } => String::new(),
        DecidedBy::Rule {
            list: Verdict::Ask,
            rule,
            source,
        } => format!(
            " An allow rule cannot override the ask rule `{rule}`; confirm it on a terminal or remove the rule from {source}."
        ),
        DecidedBy::Sandbox { setting } if setting == crate::sandbox::DISABLE_SANDBOX_FIELD => " Run it without dangerouslyDisableSandbox so it runs inside the sandbox; a command that must run outside it needs a person to allow it on a terminal each time (or an entry in sandbox.excludedCommands of your user or local settings, after which the permission rules apply to it as to any command).".to_string(),
        DecidedBy::Sandbox { .. } => String::new(),
        DecidedBy::Safeguard { safeguard: crate::Safeguard::ProtectedPath { .. } } => " Confirm it on a terminal; allow rules do not allow it. Only bypassPermissions mode writes protected paths without asking (use it in a container or VM).".to_string(),
        DecidedBy::Safeguard { safeguard: crate::Safeguard::UserInteraction } => " Confirm it on a terminal; no mode, rule, hook or permission prompt tool allows it.".to_string(),
        DecidedBy::Safeguard { .. } => " Confirm it on a terminal (no mode or allow rule allows it), or remove something narrower.".to_string(),
        DecidedBy::Uncertain => " Rewrite the command with literal command and file names (no $VAR, $(…) or eval in those places), or run it where it can be confirmed on a terminal.".to_string(),
        _ if why.suggestions.is_empty() => String::new(),
        _ => {
            let rules: Vec<String> = why.suggestions.iter().map(|s| format!("`{s}`")).collect();
            let flag: Vec<String> = why.suggestions.iter().map(|s| format!("'{s}'")).collect();
            let file = why
                .settings_file
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| ".tack/settings.local.json".into());
            format!(
                " To allow it, add {} to permissions.allow in {file} or pass --allowed-tools {}.",
                rules.join(", "),
                flag.join(" ")
            )
        }
    }
}

impl fmt::Display for Decision {
    /// One line: `deny Bash(rm -rf y): it matches the deny rule …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = self.why();
        write!(f, "{} {}", self.verdict(), why.subject)?;
        if let Some(via) = &why.via
            && via != &why.subject
        {
            write!(f, " (because of {via})")?;
        }
        write!(f, ": {}", reason_text(why))?;
        if why.headless {
            write!(f, " (no terminal to ask on)")?;
        }
        Ok(())
    }
}
