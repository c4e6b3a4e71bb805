//! Hook configuration as Claude Code writes it, read from the `hooks` key of
//! settings JSON values.
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Bash",
//!   "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/.hooks/guard.sh",
//!              "timeout": 30, "failClosed": true}]}]}}
//! ```
//!
//! Sources are read in the order given (user, project, local, then the
//! administrator's managed settings); hooks keep that order, and within a
//! file the order of the file. `failClosed` is tack's
//! extension; every other unknown field is ignored so that files written for a
//! newer Claude Code still load.

use std::fmt;
use std::time::Duration;

use regex::Regex;
use serde_json::Value;

use crate::error::{Error, Result};

/// How long a command hook may run when its `timeout` is not set.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The events a hook can be configured for.
///
/// All of Claude Code's core events parse; tack fires the ones with a method
/// on [`Hooks`](crate::Hooks) (SessionStart, UserPromptSubmit, PreToolUse,
/// PostToolUse, PostToolUseFailure, Stop, SubagentStart, SubagentStop, SessionEnd).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum HookEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PermissionRequest,
    PostToolUse,
    PostToolUseFailure,
    Notification,
    Stop,
    SubagentStart,
    SubagentStop,
    PreCompact,
    PostCompact,
    SessionEnd,
}

impl HookEvent {
    /// Every event, in the order of a session.
    pub const ALL: [HookEvent; 13] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PermissionRequest,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::Notification,
        HookEvent::Stop,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::SessionEnd,
    ];

    /// The name used in settings and in `hook_event_name`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::Notification => "Notification",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::PostCompact => "PostCompact",
            HookEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The event named `name` (case-sensitive, as in Claude Code).
    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// Whether the event's `matcher` selects anything. For the others, as in
    /// Claude Code, the matcher is ignored and every hook runs.
    ///
    /// What it is matched against: the tool name (tool events), `source`
    /// (SessionStart), `reason` (SessionEnd), `trigger` (PreCompact, PostCompact), the
    /// notification type (Notification).
    pub fn uses_matcher(self) -> bool {
        match self {
            HookEvent::PreToolUse
            | HookEvent::PermissionRequest
            | HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::Notification
            | HookEvent::PreCompact
            | HookEvent::PostCompact
            | HookEvent::SessionStart
            | HookEvent::SessionEnd => true,
            HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStart
            | HookEvent::SubagentStop => false,
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which names a matcher group applies to.
///
/// Claude Code's rule: `*`, `""` or no matcher matches everything; a matcher of
/// only letters, digits, `_`, `-` and `|` is an exact name or a `|`-separated
/// list of exact names; anything else is a regular expression searched
/// anywhere in the name (unanchored: `Notebook` matches only `Notebook`, but
/// `Note.*` matches `NotebookEdit` and `^mcp__` every MCP tool).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Matcher {
    /// Matches every name.
    All,
    /// Matches exactly one of these names.
    Names(Vec<String>),
    /// Matches names in which the expression is found.
    Regex(Regex),
}

impl Matcher {
    /// Parses a matcher as Claude Code does; fails only on a bad regex.
    pub fn parse(pattern: &str) -> std::result::Result<Matcher, regex::Error> {
        if pattern.is_empty() || pattern == "*" {
            return Ok(Matcher::All);
        }
        let plain = pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|'));
        if plain {
            let names = pattern
                .split('|')
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect();
            return Ok(Matcher::Names(names));
        }
        Regex::new(pattern).map(Matcher::Regex)
    }

    /// Whether `name` is selected.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Names(names) => names.iter().any(|n| n == name),
            Matcher::Regex(re) => re.is_match(name),
        }
    }
}

/// Where a hook was configured: enough to name it in a report or the audit
/// trail.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HookRef {
    /// The command line, as written in the settings.
    pub command: String,
    /// The settings file it came from.
    pub source: String,
    /// Its place in that file, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub location: String,
}

impl fmt::Display for HookRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({} {})", self.command, self.source, self.location)
    }
}

/// One `{"type": "command", ...}` hook.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CommandHook {
    /// Which hook this is.
    pub hook: HookRef,
    /// How long it may run before its process group is killed.
    pub timeout: Duration,
    /// tack's `failClosed`: if the hook fails (times out, crashes, exits with a
    /// code other than 0 or 2, prints invalid JSON), the guarded action is
    /// refused instead of going ahead.
    pub fail_closed: bool,
}

/// A `{"matcher": ..., "hooks": [...]}` entry.
#[derive(Debug, Clone)]
pub(crate) struct MatcherGroup {
    pub(crate) matcher: Matcher,
    pub(crate) hooks: Vec<CommandHook>,
    /// From the administrator's managed settings.
    pub(crate) managed: bool,
}

/// Everything read from the settings sources.
#[derive(Debug, Clone, Default)]
pub(crate) struct Config {
    pub(crate) groups: Vec<(HookEvent, MatcherGroup)>,
    pub(crate) warnings: Vec<String>,
    pub(crate) disabled_by: Option<String>,
    /// The managed settings file that set `allowManagedHooksOnly: true`.
    pub(crate) managed_only: Option<String>,
}

impl Config {
    pub(crate) fn parse(sources: &[(String, &Value)]) -> Result<Config> {
        let mut config = Config::default();
        for (file, settings) in sources {
            config.add_source(file, settings)?;
        }
        Ok(config)
    }

    /// `sources` (user, project, local) then the administrator's `managed`
    /// settings, whose hooks run last. `disableAllHooks` in `sources` turns
    /// off only their hooks when managed hooks exist; in `managed` it turns
    /// off every hook. `allowManagedHooksOnly: true` in `managed` leaves out
    /// the hooks of `sources`.
    pub(crate) fn parse_with_managed(
        sources: &[(String, &Value)],
        managed: &[(String, &Value)],
    ) -> Result<Config> {
        let mut config = Config::parse(sources)?;
        if managed.is_empty() {
            return Ok(config);
        }
        let mut admin = Config::parse(managed)?;
        for (_, group) in &mut admin.groups {
            group.managed = true;
        }
        let mut managed_only = None;
        for (file, settings) in managed {
            match settings.get("allowManagedHooksOnly") {
                None | Some(Value::Bool(false)) => {}
                Some(Value::Bool(true)) => managed_only = Some(file),
                Some(other) => {
                    return Err(Error::Config {
                        file: file.clone(),
                        path: "allowManagedHooksOnly".into(),
                        message: format!("expected true or false, found {}", kind(other)),
                    });
                }
            }
        }
        config.warnings.append(&mut admin.warnings);
        if admin.disabled_by.is_some() {
            config.disabled_by = admin.disabled_by;
            return Ok(config);
        }
        let others = config
            .groups
            .iter()
            .map(|(_, g)| g.hooks.len())
            .sum::<usize>();
        if let Some(file) = managed_only {
            if others > 0 {
                config.warnings.push(format!(
                    "{file}: allowManagedHooksOnly leaves out {others} hook(s) of user, project and local settings"
                ));
            }
            config.groups.clear();
            config.disabled_by = None;
            config.managed_only = Some(file.clone());
        } else if !admin.groups.is_empty()
            && let Some(by) = config.disabled_by.take()
        {
            config.warnings.push(format!(
                "{by}: disableAllHooks turns off the hooks of user, project and local settings; the managed hooks still run"
            ));
            config.groups.clear();
        }
        config.groups.append(&mut admin.groups);
        Ok(config)
    }

    fn add_source(&mut self, file: &str, settings: &Value) -> Result<()> {
        let err = |path: &str, message: String| Error::Config {
            file: file.to_owned(),
            path: path.to_owned(),
            message,
        };
        let Some(settings) = settings.as_object() else {
            return Err(err(
                "(top level)",
                format!("expected a JSON object, found {}", kind(settings)),
            ));
        };
        match settings.get("disableAllHooks") {
            None | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => {
                if self.disabled_by.is_none() {
                    self.disabled_by = Some(file.to_owned());
                }
            }
            Some(other) => {
                return Err(err(
                    "disableAllHooks",
                    format!("expected true or false, found {}", kind(other)),
                ));
            }
        }
        let Some(hooks) = settings.get("hooks") else {
            return Ok(());
        };
        let Some(hooks) = hooks.as_object() else {
            return Err(err(
                "hooks",
                format!(
                    "expected an object of event names, e.g. {{\"PreToolUse\": [...]}}, found {}",
                    kind(hooks)
                ),
            ));
        };
        for (name, groups) in hooks {
            let path = format!("hooks.{name}");
            let Some(event) = HookEvent::from_name(name) else {
                self.warnings.push(format!(
                    "{file}: {path}: unknown hook event `{name}` is ignored (tack runs: {})",
                    HookEvent::ALL.map(HookEvent::as_str).join(", ")
                ));
                continue;
            };
            let Some(groups) = groups.as_array() else {
                return Err(err(
                    &path,
                    format!(
                        "expected an array of {{\"matcher\": ..., \"hooks\": [...]}}, found {}",
                        kind(groups)
                    ),
                ));
            };
            for (i, group) in groups.iter().enumerate() {
                let path = format!("{path}[{i}]");
                let group = self.parse_group(file, &path, group)?;
                self.groups.push((event, group));
            }
        }
        Ok(())
    }

    fn parse_group(&mut self, file: &str, path: &str, group: &Value) -> Result<MatcherGroup> {
        let err = |path: &str, message: String| Error::Config {
            file: file.to_owned(),
            path: path.to_owned(),
            message,
        };
        let Some(group) = group.as_object() else {
            return Err(err(
                path,
                format!(
                    "expected {{\"matcher\": ..., \"hooks\": [...]}}, found {}",
                    kind(group)
                ),
            ));
        };
        let matcher = match group.get("matcher") {
            None | Some(Value::Null) => Matcher::All,
            Some(Value::String(pattern)) => Matcher::parse(pattern).map_err(|e| {
                err(
                    &format!("{path}.matcher"),
                    format!("`{pattern}` is not a valid regular expression: {e}"),
                )
            })?,
            Some(other) => {
                return Err(err(
                    &format!("{path}.matcher"),
                    format!(
                        "expected a string such as \"Bash\", \"Edit|Write\" or \"mcp__.*\", found {}",
                        kind(other)
                    ),
                ));
            }
        };
        let hooks_path = format!("{path}.hooks");
        let hooks = match group.get("hooks") {
            Some(Value::Array(hooks)) => hooks,
            None => {
                return Err(err(
                    &hooks_path,
                    "missing: add \"hooks\": [{\"type\": \"command\", \"command\": \"...\"}]"
                        .to_owned(),
                ));
            }
            Some(other) => {
                return Err(err(
                    &hooks_path,
                    format!("expected an array of hooks, found {}", kind(other)),
                ));
            }
        };
        let mut parsed = Vec::with_capacity(hooks.len());
        for (j, hook) in hooks.iter().enumerate() {
            let path = format!("{hooks_path}[{j}]");
            if let Some(hook) = parse_hook(file, &path, hook, &mut self.warnings)? {
                parsed.push(hook);
            }
        }
        Ok(MatcherGroup {
            matcher,
            hooks: parsed,
            managed: false,
        })
    }
}

fn parse_hook(
    file: &str,
    path: &str,
    hook: &Value,
    warnings: &mut Vec<String>,
) -> Result<Option<CommandHook>> {
    let err = |field: &str, message: String| Error::Config {
        file: file.to_owned(),
        path: if field.is_empty() {
            path.to_owned()
        } else {
            format!("{path}.{field}")
        },
        message,
    };
    let Some(hook) = hook.as_object() else {
        return Err(err(
            "",
            format!(
                "expected {{\"type\": \"command\", \"command\": \"...\"}}, found {}",
                kind(hook)
            ),
        ));
    };
    match hook.get("type") {
        Some(Value::String(t)) if t == "command" => {}
        Some(Value::String(t)) => {
            warnings.push(format!(
                "{file}: {path}.type: hook type `{t}` is not supported by tack and is skipped \
                 (only \"command\" hooks run)"
            ));
            return Ok(None);
        }
        None => return Err(err("type", "missing: add \"type\": \"command\"".to_owned())),
        Some(other) => {
            return Err(err(
                "type",
                format!("expected \"command\", found {}", kind(other)),
            ));
        }
    }
    let command = match hook.get("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
        Some(Value::String(_)) => {
            return Err(err(
                "command",
                "is empty: give the shell command to run".to_owned(),
            ));
        }
        None => {
            return Err(err(
                "command",
                "missing: give the shell command to run".to_owned(),
            ));
        }
        Some(other) => {
            return Err(err(
                "command",
                format!("expected a string, found {}", kind(other)),
            ));
        }
    };
    let timeout = match hook.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs > 0.0 && secs.is_finite() && secs <= 86_400.0 => {
                Duration::from_secs_f64(secs)
            }
            _ => {
                return Err(err(
                    "timeout",
                    format!("expected a number of seconds between 0 and 86400, found {n}"),
                ));
            }
        },
        Some(other) => {
            return Err(err(
                "timeout",
                format!("expected a number of seconds, found {}", kind(other)),
            ));
        }
    };
    let fail_closed = match hook.get("failClosed") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(err(
                "failClosed",
                format!("expected true or false, found {}", kind(other)),
            ));
        }
    };
    Ok(Some(CommandHook {
        hook: HookRef {
            command,
            source: file.to_owned(),
            location: path.to_owned(),
        },
        timeout,
        fail_closed,
    }))
}

/// "a string", "an array", ... for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
