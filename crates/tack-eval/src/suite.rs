//! A suite file (TOML): tasks, the variants to run them through, and how to
//! tell that a run did the task.
//!
//! ```toml
//! name = "market-analyst"
//! model = "claude-sonnet-4-5"
//! repeats = 2
//!
//! [[variant]]
//! name = "mcp"
//! interface = "mcp"
//! dir = "interfaces/mcp"          # laid out as the run's working directory
//!
//! [[task]]
//! id = "snapshot"
//! prompt = "What is AAPL trading at?"
//! tools = ["get_stock_snapshot"]  # a correct run calls these
//! [task.check]
//! answer_matches = ['\$\d+']
//! ```
//!
//! Unknown keys are errors naming the file, the line and the closest valid
//! key; paths are relative to the suite file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use tack_protocol::suggest::closest;

use crate::{Error, Result};

/// Interfaces a variant may name (the report groups by them).
pub const INTERFACES: [&str; 6] = ["builtin", "typed", "declared", "mcp", "code", "skill"];

/// A parsed, checked suite.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub description: String,
    /// The suite file.
    pub path: PathBuf,
    /// The directory paths in the suite are relative to.
    pub root: PathBuf,
    pub variants: Vec<Variant>,
    pub tasks: Vec<Task>,
    /// Where cassettes are read and written.
    pub cassettes: PathBuf,
    /// Directories put first on the runs' PATH.
    pub path_dirs: Vec<PathBuf>,
    /// Tools whose repeated identical call is a repeated side effect (names or `prefix*`).
    pub side_effects: Vec<String>,
    /// Replacements applied to what the harness sends before it is compared
    /// with a cassette (volatile text: times, ids).
    pub normalize: Vec<(Regex, String)>,
    /// Seconds a run may take before it is stopped (a `timeout` failure).
    pub timeout_secs: u64,
    pub max_turns: u32,
}

/// One way of running the tasks.
#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    pub interface: String,
    /// The program a run starts; None: this tack.
    pub program: Option<String>,
    /// Its arguments, before the prompt. `{prompt}` in one is replaced by the
    /// prompt (else the prompt is the last argument).
    pub args: Vec<String>,
    /// A directory copied into the run's working directory.
    pub dir: Option<PathBuf>,
    pub files: BTreeMap<String, String>,
    pub env: BTreeMap<String, String>,
    /// `--tool-search` for tack (`on`, `off`, `auto`).
    pub tool_search: Option<String>,
    pub code_mode: bool,
    /// A skill is part of this variant (a label for the report).
    pub skill: bool,
    pub provider: Option<String>,
    pub model: Option<String>,
}

impl Variant {
    /// Whether tool search is on (for the report).
    pub fn searches(&self) -> bool {
        self.tool_search.as_deref() == Some("on")
    }
}

/// What the right move is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// Do the task and answer.
    #[default]
    Answer,
    /// Ask the user (the request is ambiguous): the answer is a question and
    /// no side effect ran.
    Ask,
    /// Stop and say why (stale data, a missing price): judged by the checks.
    Stop,
}

/// One task.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    /// The user's turns, in order, in one session (most tasks have one).
    pub prompts: Vec<String>,
    /// The variants it runs through (all when the file names none).
    pub variants: Vec<String>,
    pub repeats: u32,
    pub dir: Option<PathBuf>,
    pub files: BTreeMap<String, String>,
    /// Tools a correct run calls (by name; `mcp__server__name` and a
    /// declared tool of that name count).
    pub tools: Vec<String>,
    /// Tools a correct run does not call.
    pub forbid_tools: Vec<String>,
    pub expect: Expect,
    pub check: Check,
    /// Scripted model responses (a JSON array of mock steps) per variant,
    /// `*` for every variant (`{variant}` in a path is the variant's name): the model stand-in when cassettes are made
    /// without a key.
    pub scripts: BTreeMap<String, PathBuf>,
}

/// How a run is judged, beyond the task's tools.
#[derive(Debug, Clone, Default)]
pub struct Check {
    pub answer_matches: Vec<Regex>,
    pub answer_not_matches: Vec<Regex>,
    /// The answer (or the JSON object in it) at a JSON pointer equals a value.
    pub answer_json: Vec<(String, Value)>,
    /// A command run in the working directory after the run; exit 0 passes.
    pub command: Option<Vec<String>>,
}

// ---- the file ------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default = "one")]
    repeats: u32,
    #[serde(default = "default_timeout")]
    timeout_secs: u64,
    #[serde(default = "default_max_turns")]
    max_turns: u32,
    #[serde(default)]
    provider: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    cassettes: Option<String>,
    #[serde(default)]
    path: Vec<String>,
    #[serde(default)]
    side_effects: Vec<String>,
    #[serde(default)]
    normalize: Vec<NormalizeFile>,
    #[serde(default)]
    variant: Vec<VariantFile>,
    #[serde(default)]
    task: Vec<TaskFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NormalizeFile {
    pattern: String,
    #[serde(default)]
    replace: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantFile {
    name: String,
    interface: String,
    #[serde(default)]
    program: Option<String>,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    dir: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    tool_search: Option<String>,
    #[serde(default)]
    code_mode: bool,
    #[serde(default)]
    skill: bool,
    #[serde(default)]
    provider: Option<String>,
    #[serde(default)]
    model: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskFile {
    id: String,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    prompts: Vec<String>,
    #[serde(default)]
    variants: Vec<String>,
    #[serde(default)]
    repeats: Option<u32>,
    #[serde(default)]
    dir: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    forbid_tools: Vec<String>,
    #[serde(default)]
    expect: Expect,
    #[serde(default)]
    check: CheckFile,
    #[serde(default)]
    script: Option<ScriptFile>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ScriptFile {
    All(String),
    PerVariant(BTreeMap<String, String>),
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct CheckFile {
    #[serde(default)]
    answer_matches: Vec<String>,
    #[serde(default)]
    answer_not_matches: Vec<String>,
    #[serde(default)]
    answer_json: BTreeMap<String, Value>,
    #[serde(default)]
    command: Option<Vec<String>>,
}

fn one() -> u32 {
    1
}
fn default_timeout() -> u64 {
    300
}
fn default_max_turns() -> u32 {
    30
}

impl Suite {
    /// Reads and checks a suite file.
    pub fn load(path: &Path) -> Result<Suite> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.to_owned(),
            source: e,
        })?;
        // Absolute, so the suite's paths hold from a run's own directory.
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        Suite::parse(&text, &path)
    }

    /// Parses a suite's text; `path` names it in errors and anchors relative paths.
    pub fn parse(text: &str, path: &Path) -> Result<Suite> {
        let file: File = toml::from_str(text).map_err(|e| invalid(path, text, &e))?;
        let root = path
            .parent()
            .map(Path::to_owned)
            .unwrap_or_else(|| PathBuf::from("."));
        let at = |needle: &str| Location::find(path, text, needle);
        let resolve = |p: &str| root.join(p);

        let mut variants = Vec::new();
        for v in file.variant {
            if !INTERFACES.contains(&v.interface.as_str()) {
                return Err(at(&v.interface).error(format!(
                    "variant `{}`: unknown interface `{}`{}; one of {}",
                    v.name,
                    v.interface,
                    did_you_mean(&v.interface, &INTERFACES),
                    INTERFACES.join(", ")
                )));
            }
            if let Some(mode) = &v.tool_search
                && !["on", "off", "auto"].contains(&mode.as_str())
            {
                return Err(at(mode).error(format!(
                    "variant `{}`: tool_search is `on`, `off` or `auto`, not `{mode}`",
                    v.name
                )));
            }
            if variants.iter().any(|x: &Variant| x.name == v.name) {
                return Err(at(&v.name).error(format!("two variants are named `{}`", v.name)));
            }
            variants.push(Variant {
                args: v.args.unwrap_or_default(),
                dir: v.dir.as_deref().map(resolve),
                name: v.name,
                interface: v.interface,
                program: v.program,
                files: v.files,
                env: v.env,
                tool_search: v.tool_search,
                code_mode: v.code_mode,
                skill: v.skill,
                provider: v.provider.or_else(|| file.provider.clone()),
                model: v.model.or_else(|| file.model.clone()),
            });
        }
        if variants.is_empty() {
            return Err(Location::start(path).error(
                "the suite has no [[variant]]; add one, e.g. [[variant]] name = \"builtin\" interface = \"builtin\"".into(),
            ));
        }
        let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();

        let mut tasks = Vec::new();
        for t in file.task {
            if tasks.iter().any(|x: &Task| x.id == t.id) {
                return Err(at(&t.id).error(format!("two tasks have the id `{}`", t.id)));
            }
            for v in &t.variants {
                if !names.contains(&v.as_str()) {
                    return Err(at(v).error(format!(
                        "task `{}`: no variant `{v}`{}; the variants are {}",
                        t.id,
                        did_you_mean(v, &names),
                        names.join(", ")
                    )));
                }
            }
            let regexes = |list: &[String]| -> Result<Vec<Regex>> {
                list.iter()
                    .map(|p| {
                        Regex::new(p).map_err(|e| {
                            at(p).error(format!("task `{}`: bad pattern `{p}`: {e}", t.id))
                        })
                    })
                    .collect()
            };
            let check = Check {
                answer_matches: regexes(&t.check.answer_matches)?,
                answer_not_matches: regexes(&t.check.answer_not_matches)?,
                answer_json: t.check.answer_json.into_iter().collect(),
                command: t.check.command,
            };
            let scripts = match t.script {
                None => BTreeMap::new(),
                Some(ScriptFile::All(p)) => BTreeMap::from([("*".to_owned(), resolve(&p))]),
                Some(ScriptFile::PerVariant(map)) => {
                    for v in map.keys() {
                        if v != "*" && !names.contains(&v.as_str()) {
                            return Err(at(v).error(format!(
                                "task `{}`: script for unknown variant `{v}`{}",
                                t.id,
                                did_you_mean(v, &names)
                            )));
                        }
                    }
                    map.into_iter().map(|(k, p)| (k, resolve(&p))).collect()
                }
            };
            let prompts = match (t.prompt, t.prompts.is_empty()) {
                (Some(p), true) => vec![p],
                (None, false) => t.prompts,
                (Some(_), false) => {
                    return Err(at(&t.id).error(format!(
                        "task `{}`: give `prompt` or `prompts` (several turns), not both",
                        t.id
                    )));
                }
                (None, true) => {
                    return Err(at(&t.id).error(format!("task `{}` has no `prompt`", t.id)));
                }
            };
            tasks.push(Task {
                variants: if t.variants.is_empty() {
                    names.iter().map(|s| (*s).to_owned()).collect()
                } else {
                    t.variants
                },
                repeats: t.repeats.unwrap_or(file.repeats).max(1),
                dir: t.dir.as_deref().map(resolve),
                id: t.id,
                prompts,
                files: t.files,
                tools: t.tools,
                forbid_tools: t.forbid_tools,
                expect: t.expect,
                check,
                scripts,
            });
        }
        if tasks.is_empty() {
            return Err(Location::start(path).error("the suite has no [[task]]".into()));
        }
        let mut normalize = Vec::new();
        for n in file.normalize {
            let re = Regex::new(&n.pattern).map_err(|e| {
                at(&n.pattern).error(format!("normalize: bad pattern `{}`: {e}", n.pattern))
            })?;
            normalize.push((re, n.replace));
        }
        Ok(Suite {
            name: file.name,
            description: file.description,
            cassettes: resolve(file.cassettes.as_deref().unwrap_or("cassettes")),
            path_dirs: file.path.iter().map(|p| resolve(p)).collect(),
            side_effects: file.side_effects,
            normalize,
            timeout_secs: file.timeout_secs,
            max_turns: file.max_turns,
            variants,
            tasks,
            path: path.to_owned(),
            root,
        })
    }

    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// Every run of the suite, in a fixed order (task, variant, repeat):
    /// the order shards split.
    pub fn runs(&self) -> Vec<(&Task, &Variant, u32)> {
        let mut out = Vec::new();
        for task in &self.tasks {
            for name in &task.variants {
                if let Some(variant) = self.variant(name) {
                    for repeat in 0..task.repeats {
                        out.push((task, variant, repeat));
                    }
                }
            }
        }
        out
    }
}

impl Task {
    /// The script for a variant, if the task has one (`{variant}` in its
    /// path is the variant's name).
    pub fn script(&self, variant: &str) -> Option<PathBuf> {
        self.scripts
            .get(variant)
            .or_else(|| self.scripts.get("*"))
            .map(|p| PathBuf::from(p.to_string_lossy().replace("{variant}", variant)))
    }
}

/// Whether a tool name (as the model called it) is `wanted`: the same name,
/// an MCP tool of that name on any server (`mcp__srv__wanted`), or a
/// pattern ending in `*` that it starts with.
pub fn tool_matches(called: &str, wanted: &str) -> bool {
    if let Some(prefix) = wanted.strip_suffix('*') {
        return called.starts_with(prefix) || mcp_name(called).starts_with(prefix);
    }
    called == wanted || mcp_name(called) == wanted
}

/// The tool's own name: `get_quote` for `mcp__market__get_quote`.
pub fn mcp_name(called: &str) -> &str {
    called
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .map_or(called, |(_, name)| name)
}

fn did_you_mean(name: &str, known: &[&str]) -> String {
    closest(name, known)
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

/// Where in a suite file something is.
struct Location {
    path: PathBuf,
    line: usize,
    column: usize,
}

impl Location {
    fn start(path: &Path) -> Location {
        Location {
            path: path.to_owned(),
            line: 1,
            column: 1,
        }
    }

    /// The first place `needle` is written (good enough to point a person at it).
    fn find(path: &Path, text: &str, needle: &str) -> Location {
        match text.find(needle) {
            Some(offset) => Location::at(path, text, offset),
            None => Location::start(path),
        }
    }

    fn at(path: &Path, text: &str, offset: usize) -> Location {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        Location {
            path: path.to_owned(),
            line,
            column,
        }
    }

    fn error(self, message: String) -> Error {
        Error::Suite {
            path: self.path,
            line: self.line,
            column: self.column,
            message,
        }
    }
}

/// A TOML or shape error, with "did you mean" for an unknown key.
fn invalid(path: &Path, text: &str, e: &toml::de::Error) -> Error {
    let location = match e.span() {
        Some(span) => Location::at(path, text, span.start),
        None => Location::start(path),
    };
    let mut message = e.message().trim().to_owned();
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((name, expected)) = rest.split_once("`, expected ")
    {
        let known: Vec<&str> = expected
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 1)
            .map(|(_, s)| s)
            .collect();
        message.push_str(&did_you_mean(name, &known));
    }
    location.error(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
name = "s"
[[variant]]
name = "builtin"
interface = "builtin"
[[task]]
id = "t"
prompt = "hi"
[task.check]
answer_matches = ["hello"]
"#;

    #[test]
    fn a_minimal_suite_has_one_run_per_task_variant_and_repeat() {
        let suite = Suite::parse(MINIMAL, Path::new("/x/suite.toml")).unwrap();
        assert_eq!(suite.runs().len(), 1);
        assert_eq!(suite.cassettes, Path::new("/x/cassettes"));
        assert_eq!(suite.tasks[0].variants, ["builtin"]);
    }

    #[test]
    fn a_misspelt_key_names_the_file_the_line_and_the_closest_key() {
        let text = MINIMAL.replace("prompt = \"hi\"", "prompt = \"hi\"\nrepeates = 3");
        let err = Suite::parse(&text, Path::new("suite.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("suite.toml:9:"), "{err}");
        assert!(err.contains("did you mean `repeats`?"), "{err}");
    }

    #[test]
    fn an_unknown_variant_or_interface_is_named_with_a_suggestion() {
        let text = MINIMAL.replace(
            "prompt = \"hi\"",
            "prompt = \"hi\"\nvariants = [\"bultin\"]",
        );
        let err = Suite::parse(&text, Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no variant `bultin` (did you mean `builtin`?)"),
            "{err}"
        );
        let text = MINIMAL.replace("interface = \"builtin\"", "interface = \"tpyed\"");
        let err = Suite::parse(&text, Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("s.toml:5:"), "{err}");
        assert!(err.contains("did you mean `typed`?"), "{err}");
    }

    #[test]
    fn tool_names_match_mcp_names_and_prefixes() {
        assert!(tool_matches("mcp__market__get_quote", "get_quote"));
        assert!(tool_matches("get_quote", "get_quote"));
        assert!(tool_matches("mcp__market__get_quote", "mcp__market__*"));
        assert!(tool_matches("Write", "Wri*"));
        assert!(!tool_matches("mcp__market__get_quotes", "get_quote"));
    }
}
