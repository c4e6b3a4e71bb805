//! Which tools a session defers to tool search, and the settings that say.
//!
//! Key decision: deferral is decided once, when the session is assembled,
//! over the registry as loaded, and the `ToolSearch` tool joins only when
//! something is deferred. Tools that join later (an MCP server's
//! `tools/list_changed`) follow the same decision, so the tools part of the
//! request only ever grows at its end.
//!
//! What is deferred, strongest first:
//! - `off` (`--tool-search off`, `"toolSearch": "off"`,
//!   `ENABLE_TOOL_SEARCH=false`): nothing.
//! - `alwaysLoad`: a server's entry (`"alwaysLoad": true`, Claude Code's
//!   key) or a name in `toolSearch.alwaysLoad`: never deferred.
//! - `deferLoading`: a server's entry (`"deferLoading": true`) or a name in
//!   `toolSearch.defer` (any tool, built-ins too): deferred.
//! - `on`: every MCP tool is deferred.
//! - `auto` (the default): every MCP tool is deferred when the definitions
//!   of all the tools would take more than the threshold (default 10% of
//!   the model's context window, `toolSearch.threshold`,
//!   `ENABLE_TOOL_SEARCH=auto:N`).
//!
//! Built-in tools and the Skill tool stay direct unless named in `defer`.

use std::collections::BTreeSet;

use serde_json::Value;
use tack_mcp::client::McpConfig;
use tack_policy::Settings;
use tack_tool::{Exposure, ToolRegistry};

/// The share of the context window the tools' definitions may take before
/// `auto` defers the MCP tools (Claude Code's default).
pub const DEFAULT_THRESHOLD_PERCENT: f64 = 10.0;

/// Whether tool search defers tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolSearchMode {
    /// MCP tools are deferred when all tools would take more than the
    /// threshold.
    #[default]
    Auto,
    /// Every MCP tool is deferred.
    On,
    /// Nothing is deferred and there is no ToolSearch tool.
    Off,
}

impl ToolSearchMode {
    /// `auto`, `on` (`true`), `off` (`false`).
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Self::Auto),
            "on" | "true" | "always" => Ok(Self::On),
            "off" | "false" | "never" => Ok(Self::Off),
            other => Err(format!(
                "{other:?} is not a tool search mode: use auto, on or off"
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::On => "on",
            Self::Off => "off",
        }
    }
}

/// When `auto` defers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DeferThreshold {
    /// A share of the model's context window, in percent.
    Percent(f64),
    /// A number of tokens.
    Tokens(u64),
}

impl Default for DeferThreshold {
    fn default() -> Self {
        Self::Percent(DEFAULT_THRESHOLD_PERCENT)
    }
}

impl DeferThreshold {
    /// The tokens it allows in a window of `window` tokens.
    pub fn tokens(self, window: u64) -> u64 {
        match self {
            Self::Percent(p) => (window as f64 * p / 100.0) as u64,
            Self::Tokens(t) => t,
        }
    }
}

/// `toolSearch` of every settings file (and `ENABLE_TOOL_SEARCH`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSearchSettings {
    pub mode: ToolSearchMode,
    pub threshold: DeferThreshold,
    /// Tools to defer whatever the mode (but `off`): names, or a prefix
    /// ending in `*` (`mcp__github__*`).
    pub defer: Vec<String>,
    /// Tools never deferred.
    pub always_load: Vec<String>,
}

/// The keys of a `toolSearch` object.
pub const TOOL_SEARCH_KEYS: &[&str] = &["mode", "threshold", "defer", "alwaysLoad"];

/// Reads `toolSearch` of every file, weakest first (a stronger file's
/// `mode` and `threshold` win; the lists add up), after
/// `ENABLE_TOOL_SEARCH` (`true`, `false`, `auto`, `auto:N` for N percent).
/// Each warning names the file, the line and the closest valid key.
pub(crate) fn tool_search(
    settings: &Settings,
    env: impl Fn(&str) -> Option<String>,
) -> (ToolSearchSettings, Vec<String>) {
    let mut out = ToolSearchSettings::default();
    let mut warnings = Vec::new();
    if let Some(value) = env("ENABLE_TOOL_SEARCH") {
        let value = value.trim();
        match value.split_once(':') {
            Some((mode, percent)) if mode.eq_ignore_ascii_case("auto") => {
                match percent.trim().trim_end_matches('%').parse::<f64>() {
                    Ok(p) if (0.0..=100.0).contains(&p) => {
                        out.threshold = DeferThreshold::Percent(p);
                    }
                    _ => warnings.push(format!(
                        "ENABLE_TOOL_SEARCH={value}: the share after auto: must be a percentage from 0 to 100; 10 is used"
                    )),
                }
            }
            _ => match ToolSearchMode::parse(value) {
                Ok(mode) => out.mode = mode,
                Err(e) => warnings.push(format!("ENABLE_TOOL_SEARCH: {e}")),
            },
        }
    }
    for file in settings.files() {
        let Some(section) = file.value.get("toolSearch") else {
            continue;
        };
        let at = |key: &str| match tack_policy::lint::line_of(&file.text, &format!("\"{key}\"")) {
            Some(line) => format!("{}:{line}", file.path.display()),
            None => file.path.display().to_string(),
        };
        match section {
            Value::String(s) => match ToolSearchMode::parse(s) {
                Ok(mode) => out.mode = mode,
                Err(e) => warnings.push(format!("{}: toolSearch: {e}", at("toolSearch"))),
            },
            Value::Bool(b) => {
                out.mode = if *b {
                    ToolSearchMode::On
                } else {
                    ToolSearchMode::Off
                };
            }
            Value::Object(map) => {
                for (key, value) in map {
                    let bad = |what: &str| format!("{}: toolSearch.{key} {what}", at(key));
                    match key.as_str() {
                        "mode" => match value.as_str().map(ToolSearchMode::parse) {
                            Some(Ok(mode)) => out.mode = mode,
                            Some(Err(e)) => warnings.push(bad(&format!(": {e}"))),
                            None => warnings.push(bad("must be \"auto\", \"on\" or \"off\"")),
                        },
                        "threshold" => match threshold(value) {
                            Ok(t) => out.threshold = t,
                            Err(e) => warnings.push(bad(&e)),
                        },
                        "defer" | "alwaysLoad" => {
                            match string_list(value) {
                                Some(names) if key == "defer" => out.defer.extend(names),
                                Some(names) => out.always_load.extend(names),
                                None => warnings.push(bad(
                                    "must be a list of tool names, such as [\"mcp__github__*\", \"git_log\"]",
                                )),
                            }
                        }
                        other => {
                            let hint = tack_policy::lint::closest(other, TOOL_SEARCH_KEYS)
                                .map(|k| format!("; did you mean \"{k}\"?"))
                                .unwrap_or_default();
                            warnings.push(format!(
                                "{}: unknown key toolSearch.{other}{hint} (known: {})",
                                at(other),
                                TOOL_SEARCH_KEYS.join(", ")
                            ));
                        }
                    }
                }
            }
            _ => warnings.push(format!(
                "{}: \"toolSearch\" must be \"auto\", \"on\", \"off\" or an object such as {{\"mode\": \"auto\", \"threshold\": \"10%\"}}",
                at("toolSearch")
            )),
        }
    }
    (out, warnings)
}

/// A JSON list of strings (the tool lists of `toolSearch` and `codeMode`).
pub(crate) fn string_list(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn threshold(value: &Value) -> Result<DeferThreshold, String> {
    match value {
        Value::String(s) => {
            let t = s.trim();
            if let Some(p) = t.strip_suffix('%') {
                return match p.trim().parse::<f64>() {
                    Ok(p) if (0.0..=100.0).contains(&p) => Ok(DeferThreshold::Percent(p)),
                    _ => Err("must be a share of the window from 0% to 100%".into()),
                };
            }
            t.parse::<u64>()
                .map(DeferThreshold::Tokens)
                .map_err(|_| "must be a share of the window (\"10%\") or a number of tokens".into())
        }
        Value::Number(n) => n
            .as_u64()
            .map(DeferThreshold::Tokens)
            .ok_or_else(|| "must be a whole number of tokens".into()),
        _ => Err("must be a share of the window (\"10%\") or a number of tokens".into()),
    }
}

/// The session's decision about what to defer ([`Deferral::apply`]), kept
/// for the tools that join later ([`Deferral::exposure`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Deferral {
    mode: ToolSearchMode,
    threshold: DeferThreshold,
    /// Tool-name prefixes (`mcp__server__`) of servers marked `deferLoading`.
    deferred_servers: Vec<String>,
    /// … and of servers marked `alwaysLoad`.
    loaded_servers: Vec<String>,
    defer: Vec<String>,
    always_load: Vec<String>,
    /// `auto` found the MCP tools over the threshold.
    over_threshold: bool,
}

/// What [`Deferral::apply`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeferralReport {
    pub mode: ToolSearchMode,
    /// Tools deferred.
    pub deferred: usize,
    /// Their definitions' estimated tokens (no longer in every request).
    pub deferred_tokens: u64,
    /// All the tools' estimated tokens and what `auto` allows them.
    pub tools_tokens: u64,
    pub threshold_tokens: u64,
}

/// `name` matches `pattern`: equal, or a prefix when it ends in `*` (the
/// tool lists of `toolSearch` and `codeMode`).
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// A definition's estimated tokens.
fn tokens(definition: &tack_protocol::ToolDefinition) -> u64 {
    let bytes = serde_json::to_vec(definition).map_or(0, |v| v.len());
    (bytes as f64 / tack_agent::context::DEFAULT_BYTES_PER_TOKEN).ceil() as u64
}

impl Deferral {
    pub(crate) fn new(
        settings: &ToolSearchSettings,
        mode: Option<ToolSearchMode>,
        servers: &McpConfig,
    ) -> Self {
        let prefix = |name: &str| tack_mcp::client::model_tool_name(name, "");
        Self {
            mode: mode.unwrap_or(settings.mode),
            threshold: settings.threshold,
            deferred_servers: servers
                .servers()
                .filter(|s| s.defer_loading)
                .map(|s| prefix(&s.name))
                .collect(),
            loaded_servers: servers
                .servers()
                .filter(|s| s.always_load)
                .map(|s| prefix(&s.name))
                .collect(),
            defer: settings.defer.clone(),
            always_load: settings.always_load.clone(),
            over_threshold: false,
        }
    }

    /// Whether `name` is deferred, given whether the MCP tools are over the
    /// threshold.
    fn defers(&self, name: &str) -> bool {
        if self.mode == ToolSearchMode::Off
            || self.always_load.iter().any(|p| matches(p, name))
            || self.loaded_servers.iter().any(|p| name.starts_with(p))
        {
            return false;
        }
        if self.defer.iter().any(|p| matches(p, name))
            || self.deferred_servers.iter().any(|p| name.starts_with(p))
        {
            return true;
        }
        name.starts_with("mcp__") && (self.mode == ToolSearchMode::On || self.over_threshold)
    }

    /// Decides over the registry as loaded, for a model with a context
    /// window of `window` tokens, and defers what it should.
    pub(crate) fn apply(&mut self, registry: &mut ToolRegistry, window: u64) -> DeferralReport {
        // Every tool the model would be sent counts; only MCP tools are
        // deferred for it (none: nothing to measure).
        let measure = self.mode == ToolSearchMode::Auto
            && registry
                .iter()
                .any(|t| t.exposure == Exposure::Direct && t.definition.name.starts_with("mcp__"));
        let tools_tokens: u64 = if measure {
            registry
                .iter()
                .filter(|t| t.exposure == Exposure::Direct)
                .map(|t| tokens(&t.definition))
                .sum()
        } else {
            0
        };
        let threshold_tokens = self.threshold.tokens(window);
        self.over_threshold = self.mode == ToolSearchMode::Auto && tools_tokens > threshold_tokens;
        let mut report = DeferralReport {
            mode: self.mode,
            tools_tokens,
            threshold_tokens,
            ..DeferralReport::default()
        };
        let names: Vec<(String, u64)> = registry
            .iter()
            .filter(|t| t.exposure == Exposure::Direct && self.defers(&t.definition.name))
            .map(|t| (t.definition.name.clone(), tokens(&t.definition)))
            .collect();
        for (name, cost) in names {
            if registry.defer(&name) {
                report.deferred += 1;
                report.deferred_tokens += cost;
            }
        }
        report
    }

    /// How a tool that joins later is exposed.
    pub(crate) fn exposure(&self, name: &str) -> Exposure {
        if self.defers(name) {
            Exposure::Deferred
        } else {
            Exposure::Direct
        }
    }
}

/// The deferred tools a resumed conversation had loaded, in the order they
/// were (so the tools part of its requests is the same bytes again): those
/// its tool searches returned (as `tool_reference` blocks, or as listed in
/// a text result) and those the model called.
pub(crate) fn loaded_in(messages: &[tack_protocol::Message]) -> Vec<String> {
    use tack_protocol::{ContentBlock, ToolResultContent};
    let mut names = Names::default();
    let mut searches = BTreeSet::new();
    for message in messages {
        for block in &message.content {
            match block {
                ContentBlock::ToolUse(u) => {
                    if u.name == tack_tools::tool_search::tool::NAME {
                        searches.insert(u.id.clone());
                    } else {
                        names.insert(u.name.clone());
                    }
                }
                ContentBlock::ToolResult(r) if searches.contains(&r.tool_use_id) => {
                    if let Some(ToolResultContent::Blocks(blocks)) = &r.content {
                        names.extend(
                            blocks
                                .iter()
                                .filter_map(ContentBlock::referenced_tool)
                                .map(str::to_owned),
                        );
                    }
                    names.extend(tack_tools::tool_search::tool::listed(&r.text()));
                }
                _ => {}
            }
        }
    }
    names.order
}

/// Names in the order first seen, each once.
#[derive(Default)]
struct Names {
    seen: BTreeSet<String>,
    order: Vec<String>,
}

impl Names {
    fn insert(&mut self, name: String) {
        if self.seen.insert(name.clone()) {
            self.order.push(name);
        }
    }
}

impl Extend<String> for Names {
    fn extend<I: IntoIterator<Item = String>>(&mut self, names: I) {
        for name in names {
            self.insert(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_names_and_prefixes() {
        assert!(matches("mcp__github__*", "mcp__github__create_issue"));
        assert!(!matches("mcp__github__*", "mcp__gitlab__create_issue"));
        assert!(matches("git_log", "git_log"));
        assert!(!matches("git_log", "git_log2"));
    }

    #[test]
    fn modes_parse_with_claude_codes_spellings() {
        assert_eq!(ToolSearchMode::parse("true"), Ok(ToolSearchMode::On));
        assert_eq!(ToolSearchMode::parse("OFF"), Ok(ToolSearchMode::Off));
        assert_eq!(ToolSearchMode::parse("auto"), Ok(ToolSearchMode::Auto));
        assert!(ToolSearchMode::parse("sometimes").is_err());
    }

    #[test]
    fn thresholds_are_shares_or_tokens() {
        assert_eq!(
            threshold(&Value::from("5%")),
            Ok(DeferThreshold::Percent(5.0))
        );
        assert_eq!(
            threshold(&Value::from(20000)),
            Ok(DeferThreshold::Tokens(20000))
        );
        assert!(threshold(&Value::from("lots")).is_err());
        assert_eq!(DeferThreshold::Percent(10.0).tokens(200_000), 20_000);
    }
}
