//! Rules as configured, before they are compiled into a [`crate::Policy`]:
//! their text, list and source, and which ones managed settings left out.

use std::path::PathBuf;

use serde::Serialize;
use tack_protocol::Verdict;

use crate::rule::Source;

/// A rule as configured, before compilation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    /// The rule text, e.g. `Bash(git push *)`.
    pub text: String,
    /// Its list.
    pub kind: Verdict,
    /// Where it was written.
    pub source: Source,
    /// Examples the rule must match (checked when loading).
    pub matches: Vec<String>,
    /// Examples the rule must not match.
    pub not_matches: Vec<String>,
}

impl RuleEntry {
    /// A rule without examples.
    pub fn new(text: impl Into<String>, kind: Verdict, source: Source) -> RuleEntry {
        RuleEntry {
            text: text.into(),
            kind,
            source,
            matches: Vec::new(),
            not_matches: Vec::new(),
        }
    }

    /// Where it was written, as error messages name it.
    pub(crate) fn origin(&self) -> String {
        origin_of(&self.source)
    }
}

/// A file's path, or the level when there is no file (`command line`).
pub(crate) fn origin_of(source: &Source) -> String {
    match &source.path {
        Some(p) => p.display().to_string(),
        None => source.level.to_string(),
    }
}

/// `permissions.allowManagedPermissionRulesOnly: true` in managed settings:
/// only the managed file's allow, ask and deny rules count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ManagedRulesOnly {
    /// The managed settings file that says so.
    pub file: PathBuf,
    /// How many rules from user, project and local settings and the command
    /// line were left out.
    pub ignored_rules: usize,
}
