//! Code mode in a session: the `codeMode` settings and the `Code` tool's
//! place in the registry.
//!
//! `"codeMode": true` (or `--code-mode`) adds the `Code` tool; the object
//! form says more: `{"enabled": true, "tools": ["Read", "mcp__github__*"],
//! "hidden": ["mcp__db__*"], "timeoutMs": 30000, "memoryMb": 64,
//! "maxCalls": 100, "maxOutputBytes": 1048576}`. `tools` are the tools a
//! program may call (default: every tool of the session); `hidden` tools are
//! callable from code only: their definitions never go to the model.
//! A stronger file's values win; the lists add up.

use std::time::Duration;

use serde_json::Value;
use tack_codemode::Limits;
use tack_codemode::declare::{ToolShape, declarations};
use tack_codemode::tool::{Callable, CodeTool};
use tack_policy::Settings;
use tack_tool::ToolRegistry;

use crate::tool_search::{matches, string_list};

/// `codeMode` of every settings file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CodeModeSettings {
    pub enabled: bool,
    /// What a program may call (names or `prefix*`); empty: every tool.
    pub tools: Vec<String>,
    /// Tools callable from code only.
    pub hidden: Vec<String>,
    pub limits: Limits,
}

/// The bytes of tool declarations in the Code tool's description.
const DECLARATIONS_BUDGET: usize = 8_000;

/// The keys of a `codeMode` object.
pub const CODE_MODE_KEYS: &[&str] = &[
    "enabled",
    "tools",
    "hidden",
    "timeoutMs",
    "memoryMb",
    "maxCalls",
    "maxOutputBytes",
];

/// Reads `codeMode` of every file, weakest first; each warning names the
/// file, the line and the closest valid key.
pub(crate) fn code_mode(settings: &Settings) -> (CodeModeSettings, Vec<String>) {
    let mut out = CodeModeSettings::default();
    let mut warnings = Vec::new();
    for file in settings.files() {
        let Some(section) = file.value.get("codeMode") else {
            continue;
        };
        let at = |key: &str| match tack_policy::lint::line_of(&file.text, &format!("\"{key}\"")) {
            Some(line) => format!("{}:{line}", file.path.display()),
            None => file.path.display().to_string(),
        };
        let map = match section {
            Value::Bool(b) => {
                out.enabled = *b;
                continue;
            }
            Value::Object(map) => map,
            _ => {
                warnings.push(format!(
                    "{}: \"codeMode\" must be true, false or an object such as {{\"enabled\": true, \"tools\": [\"Read\"]}}",
                    at("codeMode")
                ));
                continue;
            }
        };
        // An object turns code mode on unless it says otherwise.
        out.enabled = true;
        for (key, value) in map {
            let bad = |what: &str| format!("{}: codeMode.{key} {what}", at(key));
            let number = |min: u64| value.as_u64().filter(|n| *n >= min);
            match key.as_str() {
                "enabled" => match value.as_bool() {
                    Some(b) => out.enabled = b,
                    None => warnings.push(bad("must be true or false")),
                },
                "tools" | "hidden" => match string_list(value) {
                    Some(list) if key == "tools" => out.tools.extend(list),
                    Some(list) => out.hidden.extend(list),
                    None => warnings.push(bad(
                        "must be a list of tool names, such as [\"Read\", \"mcp__github__*\"]",
                    )),
                },
                "timeoutMs" => match number(1) {
                    Some(ms) => out.limits.wall_time = Duration::from_millis(ms),
                    None => warnings.push(bad("must be a positive number of milliseconds")),
                },
                "memoryMb" => match number(1) {
                    Some(mb) => out.limits.memory_bytes = (mb as usize) << 20,
                    None => warnings.push(bad("must be a positive number of MiB")),
                },
                "maxCalls" => match number(1) {
                    Some(n) => out.limits.max_calls = u32::try_from(n).unwrap_or(u32::MAX),
                    None => warnings.push(bad("must be a positive number")),
                },
                "maxOutputBytes" => match number(1) {
                    Some(n) => out.limits.max_output_bytes = n as usize,
                    None => warnings.push(bad("must be a positive number of bytes")),
                },
                other => {
                    let hint = tack_policy::lint::closest(other, CODE_MODE_KEYS)
                        .map(|k| format!("; did you mean \"{k}\"?"))
                        .unwrap_or_default();
                    warnings.push(format!(
                        "{}: unknown key codeMode.{other}{hint} (known: {})",
                        at(other),
                        CODE_MODE_KEYS.join(", ")
                    ));
                }
            }
        }
    }
    (out, warnings)
}

/// Hides the `hidden` tools and registers the `Code` tool, its description
/// listing what a program may call.
pub(crate) fn apply(
    settings: &CodeModeSettings,
    registry: &mut ToolRegistry,
) -> Result<(), String> {
    let names = registry.names();
    for name in &names {
        if settings.hidden.iter().any(|p| matches(p, name)) {
            registry.hide(name);
        }
    }
    let callable = if settings.tools.is_empty() {
        Callable::All
    } else {
        Callable::Only(settings.tools.clone())
    };
    // How to call each tool a program may call, within a budget; the rest
    // are found with tools.search.
    let listed: Vec<(String, String, Value, Option<Value>)> = registry
        .iter()
        .filter(|t| t.definition.name != "search" && callable.allows(&t.definition.name))
        .map(|t| {
            (
                t.definition.name.clone(),
                t.definition.description.clone().unwrap_or_default(),
                t.definition.input_schema.clone(),
                t.tool.output_schema(),
            )
        })
        .collect();
    let shapes: Vec<ToolShape<'_>> = listed
        .iter()
        .map(|(name, description, input, output)| ToolShape {
            name,
            description,
            input_schema: input,
            output_schema: output.as_ref(),
        })
        .collect();
    let declared = declarations(&shapes, DECLARATIONS_BUDGET);
    let mut text = declared.text;
    if !declared.omitted.is_empty() {
        text.push_str(&format!(
            "\n… and {} more tools: find them with `await tools.search(\"words\")`",
            declared.omitted.len()
        ));
    }
    let tool = CodeTool::new(settings.limits.clone(), callable, &text);
    registry
        .register(std::sync::Arc::new(tool))
        .map_err(|e| e.to_string())
}
