//! Command tools declared in settings: an existing program becomes a typed
//! tool, run with an argv the call's values fill, never through a shell.
//!
//! ```json
//! "tools": {
//!   "git_log": {
//!     "description": "Recent commits of this repository, newest first. …",
//!     "command": ["git", "log", "--format=%H%x09%an%x09%s", "-n", "{limit}",
//!                 {"flag": "--since", "value": "{since}"}, "--", {"each": "{paths}"}],
//!     "inputSchema": {"type": "object", "properties": {"limit": {"type": "integer", "default": 20}, …}},
//!     "readOnly": true, "timeoutMs": 10000, "output": "lines",
//!     "cwd": "{project}", "env": {"GIT_PAGER": "cat"},
//!     "exitCodes": {"128": "invalid_input"}
//!   }
//! }
//! ```
//!
//! [`Declaration::parse`] checks an entry whole at load (every key, every
//! placeholder against the schema, the schema itself, the examples, the
//! executable, resolved once to an absolute path); a mistake names the key
//! and the fix. The slots are in `declared/argv.rs`; running and reading the result
//! in `declared/run.rs`.

mod argv;
mod run;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tack_tool::{Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput};

pub use argv::Places;
use argv::{ArgError, Command};

use crate::bash::sandbox::ShellSandbox;

/// Every key of a declaration, as written in settings (camelCase like the
/// rest of the file; the API's snake_case spelling of the schema and
/// examples keys is accepted too).
pub const KEYS: &[&str] = &[
    "description",
    "command",
    "inputSchema",
    "outputSchema",
    "output",
    "cwd",
    "env",
    "stdin",
    "timeoutMs",
    "readOnly",
    "idempotent",
    "destructive",
    "openWorld",
    "exitCodes",
    "inputExamples",
];

/// Accepted for the keys whose other spelling is the API's.
const ALIASES: &[(&str, &str)] = &[
    ("input_schema", "inputSchema"),
    ("output_schema", "outputSchema"),
    ("input_examples", "inputExamples"),
];

/// The classes an exit code may be given (`exitCodes`).
pub const EXIT_CLASSES: &[&str] = &[
    "ok",
    "invalid_input",
    "denied",
    "unavailable",
    "transient",
    "failed",
    "internal",
];

/// How long a call may run when `timeoutMs` is not given.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest `timeoutMs` accepted (10 minutes, as Bash's).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// How the program's standard output becomes the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputKind {
    /// As printed.
    #[default]
    Text,
    /// As printed, and as a list of lines in the structured result.
    Lines,
    /// Parsed as JSON: the structured result (checked against
    /// `outputSchema` when there is one).
    Json,
}

/// What one exit code means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitClass {
    /// One of [`EXIT_CLASSES`].
    pub class: String,
    /// Said to the model with the error.
    pub message: Option<String>,
}

/// Where a declaration's paths and placeholders point, and what it may not
/// be called.
#[derive(Debug, Clone)]
pub struct LoadContext {
    pub places: Places,
    pub project_root: PathBuf,
    /// `PATH` to look the executable up in (tack's own when `None`).
    pub path: Option<OsString>,
    /// Names of the session's other tools (built-ins, Claude Code's tools):
    /// a declared tool cannot take one.
    pub taken: Vec<String>,
}

/// A mistake in a declaration: which key, and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DeclarationError {
    /// The key at fault (for the line of the file), when one is.
    pub key: Option<String>,
    /// What is wrong and the fix.
    pub message: String,
}

impl DeclarationError {
    fn at(key: &str, message: impl Into<String>) -> Self {
        Self {
            key: Some(key.to_owned()),
            message: message.into(),
        }
    }
}

/// A declaration, checked.
#[derive(Debug, Clone)]
pub struct Declaration {
    pub name: String,
    pub description: String,
    /// The executable, absolute, resolved at load.
    pub program: PathBuf,
    /// The program as the settings wrote it (`git`, `./bin/tool`): what
    /// messages to the model show, the same on every machine.
    pub program_written: String,
    command: Command,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub output: OutputKind,
    /// Where it runs: `None` is the session's working directory.
    pub cwd: Option<PathBuf>,
    pub env: BTreeMap<String, String>,
    /// The property whose value is written to stdin.
    pub stdin: Option<String>,
    pub timeout: Duration,
    pub annotations: ToolAnnotations,
    pub exit_codes: BTreeMap<i32, ExitClass>,
    pub input_examples: Vec<Value>,
    /// Compiled `outputSchema`.
    output_validator: Option<Arc<jsonschema::Validator>>,
    /// The properties of the input schema (the model's other keys are
    /// refused).
    properties: BTreeSet<String>,
}

impl Declaration {
    /// Checks one entry of `tools`. Every problem found is an error: the
    /// session leaves the tool out and says why.
    pub fn parse(name: &str, value: &Value, cx: &LoadContext) -> Result<Self, DeclarationError> {
        check_name(name, cx)?;
        let Some(map) = value.as_object() else {
            return Err(DeclarationError {
                key: None,
                message: format!(
                    "the tool `{name}` must be an object with at least \"description\" and \"command\""
                ),
            });
        };
        let map = canonical_keys(map)?;
        let get = |key: &str| map.get(key);
        let description = match get("description") {
            Some(Value::String(d)) if !d.trim().is_empty() => d.trim().to_owned(),
            Some(Value::String(_)) | None => {
                return Err(DeclarationError::at(
                    "description",
                    "\"description\" is missing or empty; say what the tool does, when to use it and what it returns (the model chooses tools by it)",
                ));
            }
            Some(_) => {
                return Err(DeclarationError::at(
                    "description",
                    "\"description\" must be a string",
                ));
            }
        };
        let input_schema = match get("inputSchema") {
            None => json!({"type": "object", "properties": {}}),
            Some(schema) => schema.clone(),
        };
        if input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(DeclarationError::at(
                "inputSchema",
                "\"inputSchema\" must be a JSON Schema with \"type\": \"object\" and its \"properties\"",
            ));
        }
        let validator = jsonschema::validator_for(&input_schema).map_err(|e| {
            DeclarationError::at(
                "inputSchema",
                format!("\"inputSchema\" does not compile: {e}"),
            )
        })?;
        let (program_written, slots) = match get("command") {
            Some(Value::Array(items)) if !items.is_empty() => match &items[0] {
                Value::String(p) if !p.trim().is_empty() => (p.clone(), &items[1..]),
                _ => {
                    return Err(DeclarationError::at(
                        "command",
                        "the first item of \"command\" must be the program, a string such as \"git\"",
                    ));
                }
            },
            _ => {
                return Err(DeclarationError::at(
                    "command",
                    "\"command\" must be a non-empty array: the program, then its arguments, e.g. [\"git\", \"log\", \"-n\", \"{limit}\"]",
                ));
            }
        };
        let (command, used) =
            Command::parse(program_written.clone(), slots, &input_schema, &cx.places)
                .map_err(|m| DeclarationError::at("command", m))?;
        let program = resolve_program(&program_written, cx)
            .map_err(|m| DeclarationError::at("command", m))?;
        let stdin = match get("stdin") {
            None => None,
            Some(Value::String(s)) => {
                let property = s
                    .strip_prefix('{')
                    .and_then(|s| s.strip_suffix('}'))
                    .filter(|p| input_schema["properties"].get(*p).is_some())
                    .ok_or_else(|| {
                        DeclarationError::at(
                            "stdin",
                            format!("\"stdin\" must be one placeholder of an input property, such as \"{{json}}\"; {s:?} is not"),
                        )
                    })?;
                Some(property.to_owned())
            }
            Some(_) => {
                return Err(DeclarationError::at(
                    "stdin",
                    "\"stdin\" must be a string such as \"{json}\"",
                ));
            }
        };
        let properties: BTreeSet<String> = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        if let Some(unused) = properties
            .iter()
            .find(|p| !used.contains(*p) && stdin.as_deref() != Some(p.as_str()))
        {
            return Err(DeclarationError::at(
                "command",
                format!(
                    "the input property `{unused}` is in no slot of \"command\" (nor \"stdin\"), so the model's value would be ignored; use \"{{{unused}}}\" in \"command\" or remove the property"
                ),
            ));
        }
        let output = match get("output").map(|v| v.as_str()) {
            None => OutputKind::Text,
            Some(Some("text")) => OutputKind::Text,
            Some(Some("lines")) => OutputKind::Lines,
            Some(Some("json")) => OutputKind::Json,
            Some(other) => {
                return Err(DeclarationError::at(
                    "output",
                    format!(
                        "\"output\" must be \"text\", \"lines\" or \"json\", not {}",
                        other.map_or_else(
                            || get("output").map(Value::to_string).unwrap_or_default(),
                            |s| format!("{s:?}")
                        )
                    ),
                ));
            }
        };
        let output_schema = get("outputSchema").cloned();
        let output_validator = match &output_schema {
            None => None,
            Some(schema) => {
                if output != OutputKind::Json {
                    return Err(DeclarationError::at(
                        "outputSchema",
                        "\"outputSchema\" describes JSON output: set \"output\": \"json\" or remove it",
                    ));
                }
                if schema.get("type").and_then(Value::as_str) != Some("object") {
                    return Err(DeclarationError::at(
                        "outputSchema",
                        "\"outputSchema\" must have \"type\": \"object\" (MCP's structured content is an object)",
                    ));
                }
                Some(Arc::new(jsonschema::validator_for(schema).map_err(
                    |e| {
                        DeclarationError::at(
                            "outputSchema",
                            format!("\"outputSchema\" does not compile: {e}"),
                        )
                    },
                )?))
            }
        };
        let cwd = match get("cwd") {
            None => None,
            Some(Value::String(dir)) => {
                Some(resolve_dir(dir, cx).map_err(|m| DeclarationError::at("cwd", m))?)
            }
            Some(_) => {
                return Err(DeclarationError::at(
                    "cwd",
                    "\"cwd\" must be a string such as \"{project}\"",
                ));
            }
        };
        let env = match get("env") {
            None => BTreeMap::new(),
            Some(Value::Object(vars)) => {
                let mut env = BTreeMap::new();
                for (k, v) in vars {
                    let Some(v) = v.as_str() else {
                        return Err(DeclarationError::at(
                            "env",
                            format!("env.{k} must be a string"),
                        ));
                    };
                    if k.is_empty() || k.contains(['=', '\0']) {
                        return Err(DeclarationError::at(
                            "env",
                            format!("{k:?} is not a variable name"),
                        ));
                    }
                    env.insert(
                        k.clone(),
                        fill_places(v, &cx.places)
                            .map_err(|m| DeclarationError::at("env", format!("env.{k}: {m}")))?,
                    );
                }
                env
            }
            Some(_) => {
                return Err(DeclarationError::at(
                    "env",
                    "\"env\" must be an object of strings, e.g. {\"GIT_PAGER\": \"cat\"}",
                ));
            }
        };
        let timeout = match get("timeoutMs") {
            None => DEFAULT_TIMEOUT,
            Some(v) => match v.as_u64().filter(|ms| *ms >= 1) {
                Some(ms) if Duration::from_millis(ms) <= MAX_TIMEOUT => Duration::from_millis(ms),
                _ => {
                    return Err(DeclarationError::at(
                        "timeoutMs",
                        format!(
                            "\"timeoutMs\" must be a number of milliseconds from 1 to {}",
                            MAX_TIMEOUT.as_millis()
                        ),
                    ));
                }
            },
        };
        let flag = |key: &str| -> Result<bool, DeclarationError> {
            match get(key) {
                None => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(DeclarationError::at(
                    key,
                    format!("\"{key}\" must be true or false"),
                )),
            }
        };
        let read_only = flag("readOnly")?;
        let destructive = flag("destructive")?;
        if read_only && destructive {
            return Err(DeclarationError::at(
                "destructive",
                "a tool cannot be both \"readOnly\" and \"destructive\"; keep the one that is true",
            ));
        }
        let annotations = ToolAnnotations {
            read_only,
            destructive,
            idempotent: read_only || flag("idempotent")?,
            open_world: flag("openWorld")?,
        };
        let exit_codes = exit_codes(get("exitCodes"))?;
        let input_examples = match get("inputExamples") {
            None => Vec::new(),
            Some(Value::Array(examples)) => {
                for (i, example) in examples.iter().enumerate() {
                    if !example.is_object() {
                        return Err(DeclarationError::at(
                            "inputExamples",
                            format!(
                                "inputExamples[{i}] must be an object: an input the model could send"
                            ),
                        ));
                    }
                    if let Some(e) = validator.iter_errors(example).next() {
                        return Err(DeclarationError::at(
                            "inputExamples",
                            format!(
                                "inputExamples[{i}] does not match inputSchema ({}: {e}); the API refuses such a request",
                                e.instance_path()
                            ),
                        ));
                    }
                    if let Err(ArgError(m)) = command.arguments(example) {
                        return Err(DeclarationError::at(
                            "inputExamples",
                            format!("inputExamples[{i}] makes no command: {m}"),
                        ));
                    }
                }
                examples.clone()
            }
            Some(_) => {
                return Err(DeclarationError::at(
                    "inputExamples",
                    "\"inputExamples\" must be an array of inputs",
                ));
            }
        };
        Ok(Declaration {
            name: name.to_owned(),
            description,
            program,
            program_written,
            command,
            input_schema,
            output_schema,
            output,
            cwd,
            env,
            stdin,
            timeout,
            annotations,
            exit_codes,
            input_examples,
            output_validator,
            properties,
        })
    }

    /// The argv a call with `input` runs (`argv[0]` absolute).
    pub fn argv(&self, input: &Value) -> Result<Vec<String>, ToolError> {
        let mut argv = vec![self.program.display().to_string()];
        argv.extend(
            self.command
                .arguments(input)
                .map_err(|ArgError(m)| ToolError::InvalidInput(m))?,
        );
        Ok(argv)
    }
}

fn check_name(name: &str, cx: &LoadContext) -> Result<(), DeclarationError> {
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(DeclarationError {
            key: None,
            message: format!(
                "`{name}` is not a tool name: use 1 to 64 characters among a-z, A-Z, 0-9, _ and -"
            ),
        });
    }
    if name.starts_with("mcp__") {
        return Err(DeclarationError {
            key: None,
            message: format!(
                "`{name}` starts with mcp__, which names MCP tools; choose another name"
            ),
        });
    }
    // `bash` next to `Bash` would confuse the model and the rules alike.
    if let Some(taken) = cx.taken.iter().find(|t| t.eq_ignore_ascii_case(name)) {
        return Err(DeclarationError {
            key: None,
            message: format!(
                "`{name}` is (or differs only in case from) `{taken}`, a tool tack already has; choose another name (e.g. `{}_cmd`)",
                name.to_lowercase()
            ),
        });
    }
    Ok(())
}

/// The entry with aliases renamed, and unknown keys refused with the
/// closest known key.
fn canonical_keys(map: &Map<String, Value>) -> Result<Map<String, Value>, DeclarationError> {
    let mut out = Map::new();
    for (key, value) in map {
        let canonical = ALIASES
            .iter()
            .find(|(alias, _)| alias == key)
            .map_or(key.as_str(), |(_, k)| k);
        if !KEYS.contains(&canonical) {
            let hint = tack_protocol::suggest::closest(key, KEYS)
                .map(|k| format!("; did you mean \"{k}\"?"))
                .unwrap_or_default();
            return Err(DeclarationError::at(
                key,
                format!("unknown key \"{key}\"{hint} (known: {})", KEYS.join(", ")),
            ));
        }
        if out.insert(canonical.to_owned(), value.clone()).is_some() {
            return Err(DeclarationError::at(
                key,
                format!("\"{canonical}\" is given twice (once as \"{key}\"); keep one"),
            ));
        }
    }
    Ok(out)
}

fn exit_codes(value: Option<&Value>) -> Result<BTreeMap<i32, ExitClass>, DeclarationError> {
    let Some(value) = value else {
        return Ok(BTreeMap::new());
    };
    let Some(map) = value.as_object() else {
        return Err(DeclarationError::at(
            "exitCodes",
            "\"exitCodes\" must be an object such as {\"1\": \"ok\", \"128\": \"invalid_input\"}",
        ));
    };
    let mut out = BTreeMap::new();
    for (code, class) in map {
        let Ok(number) = code.parse::<i32>() else {
            return Err(DeclarationError::at(
                "exitCodes",
                format!("exitCodes: {code:?} is not an exit code (a number from 1 to 255)"),
            ));
        };
        if !(1..=255).contains(&number) {
            return Err(DeclarationError::at(
                "exitCodes",
                format!("exitCodes: {number} is not an exit code from 1 to 255 (0 is success)"),
            ));
        }
        let (class, message) = match class {
            Value::String(c) => (c.clone(), None),
            Value::Object(o) => (
                o.get("class")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                o.get("message").and_then(Value::as_str).map(str::to_owned),
            ),
            _ => (String::new(), None),
        };
        if !EXIT_CLASSES.contains(&class.as_str()) {
            let hint = tack_protocol::suggest::closest(&class, EXIT_CLASSES)
                .map(|k| format!("; did you mean \"{k}\"?"))
                .unwrap_or_default();
            return Err(DeclarationError::at(
                "exitCodes",
                format!(
                    "exitCodes.{code}: {class:?} is no class{hint} (one of {}, or {{\"class\": …, \"message\": …}})",
                    EXIT_CLASSES.join(", ")
                ),
            ));
        }
        out.insert(number, ExitClass { class, message });
    }
    Ok(out)
}

/// `text` with `{project}`, `{cwd}` and `{home}` filled in; no other
/// placeholder is allowed.
fn fill_places(text: &str, places: &Places) -> Result<String, String> {
    let (command, _) = Command::parse(
        String::new(),
        &[Value::String(text.to_owned())],
        &json!({"type": "object", "properties": {}}),
        places,
    )?;
    command
        .arguments(&json!({}))
        .map(|mut a| a.pop().unwrap_or_default())
        .map_err(|ArgError(m)| m)
}

fn resolve_dir(dir: &str, cx: &LoadContext) -> Result<PathBuf, String> {
    let filled = fill_places(dir, &cx.places)?;
    let path = Path::new(&filled);
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        cx.project_root.join(path)
    })
}

/// The executable: a name looked up in `PATH`, or a path (absolute, or
/// relative to the project root), resolved once.
fn resolve_program(written: &str, cx: &LoadContext) -> Result<PathBuf, String> {
    let filled = fill_places(written, &cx.places)?;
    if filled.contains('/') {
        let path = Path::new(&filled);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            cx.project_root.join(path)
        };
        return match which::which_in(&path, None::<&str>, &cx.project_root) {
            Ok(found) => Ok(found),
            Err(_) if path.exists() => Err(format!(
                "{} is not executable; `chmod +x` it",
                path.display()
            )),
            Err(_) => Err(format!("{} does not exist; fix the path", path.display())),
        };
    }
    let path = cx
        .path
        .clone()
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    which::which_in(&filled, Some(path), &cx.project_root).map_err(|_| {
        format!("`{filled}` is not on PATH; install it, or write its absolute path in \"command\"")
    })
}

/// A declared command tool.
pub struct DeclaredTool {
    decl: Arc<Declaration>,
    sandbox: Option<Arc<ShellSandbox>>,
}

impl std::fmt::Debug for DeclaredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeclaredTool")
            .field("name", &self.decl.name)
            .field("program", &self.decl.program)
            .finish_non_exhaustive()
    }
}

impl DeclaredTool {
    /// The tool of `decl`; its commands run in `sandbox` when there is one.
    pub fn new(decl: Declaration, sandbox: Option<Arc<ShellSandbox>>) -> Self {
        Self {
            decl: Arc::new(decl),
            sandbox,
        }
    }

    pub fn declaration(&self) -> &Declaration {
        &self.decl
    }
}

#[async_trait]
impl Tool for DeclaredTool {
    fn name(&self) -> &str {
        &self.decl.name
    }

    fn description(&self) -> &str {
        &self.decl.description
    }

    fn input_schema(&self) -> Value {
        self.decl.input_schema.clone()
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.decl.annotations.read_only
    }

    fn annotations(&self) -> ToolAnnotations {
        self.decl.annotations
    }

    fn output_schema(&self) -> Option<Value> {
        match self.decl.output {
            OutputKind::Json => self.decl.output_schema.clone(),
            OutputKind::Lines => Some(run::lines_schema()),
            OutputKind::Text => None,
        }
    }

    fn timeout(&self) -> Option<Duration> {
        // The process is stopped at the declared timeout; the pipeline's
        // limit is the backstop.
        Some(self.decl.timeout + Duration::from_secs(5))
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        if let Some(extra) = input
            .as_object()
            .and_then(|o| o.keys().find(|k| !self.decl.properties.contains(*k)))
        {
            let known: Vec<&str> = self.decl.properties.iter().map(String::as_str).collect();
            let hint = tack_protocol::suggest::closest(extra, &known)
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            return Err(ToolError::InvalidInput(format!(
                "`{extra}` is no input of {}{hint} (inputs: {})",
                self.decl.name,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        }
        self.decl.argv(input).map(|_| ())
    }

    fn command_line(&self, input: &Value) -> Option<Vec<String>> {
        self.decl.argv(input).ok()
    }

    /// Its `cwd`, where its argv's relative paths are judged (the session's
    /// when it has none).
    fn working_dir(&self) -> Option<std::path::PathBuf> {
        self.decl.cwd.clone()
    }

    fn input_examples(&self) -> Vec<Value> {
        self.decl.input_examples.clone()
    }

    fn sandbox_profile(&self, _input: &Value) -> Option<String> {
        let sandbox = self.sandbox.as_ref()?;
        Some(
            sandbox
                .sandbox
                .profile()
                .map_or_else(|| "sandbox (not started)".to_owned(), str::to_owned),
        )
    }

    async fn call(&self, input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        run::call(&self.decl, self.sandbox.as_deref(), &input, &ctx).await
    }
}

#[cfg(test)]
mod tests;
