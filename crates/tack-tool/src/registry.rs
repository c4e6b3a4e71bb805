//! The registry: tools erased once, with their definition and a validator
//! for their input schema.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use tack_protocol::{Extra, ToolDefinition, is_valid_tool_name};

use crate::{Tool, ToolError, Typed, TypedTool};

/// Why a tool could not be registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    #[error("tool name {0:?} is not valid: use 1 to 64 characters among a-z, A-Z, 0-9, _ and -")]
    InvalidName(String),
    #[error("a tool named {0:?} is already registered")]
    Duplicate(String),
    #[error("the input schema of tool {name:?} is not usable: {message}")]
    BadSchema { name: String, message: String },
    #[error("input example {index} of tool {name:?} does not match its input schema: {message}")]
    BadExample {
        name: String,
        /// From 1.
        index: usize,
        message: String,
    },
    #[error("no tool named {0:?} is registered")]
    NotFound(String),
}

/// The key of a definition's example inputs ([`Tool::input_examples`]).
pub use tack_protocol::INPUT_EXAMPLES;

/// The key that marks a deferred tool in an Anthropic request.
pub const DEFER_LOADING: &str = "defer_loading";

/// Whether the model is sent a tool's definition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Exposure {
    /// Its definition is in every request.
    #[default]
    Direct,
    /// Known and callable, found by search; its definition is sent from the
    /// request after it is discovered ([`ToolRegistry::reveal`]) on.
    Deferred,
    /// Callable only by the host (from a tool through its host handle, e.g.
    /// code mode); never sent, and unknown to the model.
    Hidden,
}

/// A tool's input validator, compiled the first time it is needed. Checking
/// a schema against its meta-schema when the tool registers costs ~3 µs;
/// compiling it ~18 µs and a heap of its own: a session with thousands of
/// deferred tools compiles only those it calls (BENCHMARKS.md, "Registering
/// thousands of tools").
type LazyValidator = Arc<OnceLock<Result<jsonschema::Validator, String>>>;

/// A tool with its definition and input validator.
pub struct RegisteredTool {
    pub tool: Arc<dyn Tool>,
    pub definition: ToolDefinition,
    pub exposure: Exposure,
    /// sha256 of the definition as the model sees it (hex, first 16 bytes),
    /// computed when first asked for ([`RegisteredTool::definition_hash`]).
    hash: OnceLock<String>,
    /// Shared by the instances of one tool ([`ToolRegistry::replace_instance`]).
    validator: LazyValidator,
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

impl RegisteredTool {
    /// sha256 of the definition as the model sees it (hex, first 16 bytes).
    pub fn definition_hash(&self) -> &str {
        self.hash.get_or_init(|| definition_hash(&self.definition))
    }

    /// The compiled validator of the input schema (compiled now, the first
    /// time), or why the schema does not compile.
    fn validator(&self) -> Result<&jsonschema::Validator, &str> {
        compiled(&self.validator, &self.definition.input_schema)
    }

    /// Checks `input` against the schema. The error names each failing field
    /// (as a path such as `input.todos[0].status`) and what was expected.
    pub fn check_input(&self, input: &Value) -> Result<(), ToolError> {
        let Some(fields) = input.as_object() else {
            return Err(ToolError::InvalidInput(format!(
                "the input must be a JSON object, got {}",
                json_kind(input)
            )));
        };
        let cleaned;
        let input = if fields.values().any(Value::is_null) {
            cleaned = drop_nulls(input);
            &cleaned
        } else {
            input
        };
        let mut problems = String::new();
        let mut count = 0usize;
        let validator = self.validator().map_err(|message| {
            ToolError::Unavailable(format!(
                "the input schema of tool {:?} is not usable: {message}",
                self.definition.name
            ))
        })?;
        for error in validator.iter_errors(input) {
            count += 1;
            if count <= 5 {
                let path = pointer_to_path(error.instance_path().as_str());
                let _ = write!(problems, "\n- {path}: {error}");
            }
        }
        if count == 0 {
            return Ok(());
        }
        if count > 5 {
            let _ = write!(problems, "\n- … and {} more", count - 5);
        }
        Err(ToolError::InvalidInput(format!(
            "the input does not match the schema:{problems}"
        )))
    }
}

/// The input without top-level null fields: models send `"offset": null` for
/// "not given", and an optional field's schema does not list null.
pub fn drop_nulls(input: &Value) -> Value {
    match input {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `/todos/0/status` → `input.todos[0].status`.
fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::from("input");
    for part in pointer.split('/').skip(1) {
        let part = part.replace("~1", "/").replace("~0", "~");
        if part.parse::<usize>().is_ok() {
            let _ = write!(out, "[{part}]");
        } else {
            let _ = write!(out, ".{part}");
        }
    }
    out
}

/// `validator`, compiled from `schema` if it is not yet.
fn compiled<'v>(
    validator: &'v OnceLock<Result<jsonschema::Validator, String>>,
    schema: &Value,
) -> Result<&'v jsonschema::Validator, &'v str> {
    validator
        .get_or_init(|| jsonschema::validator_for(schema).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(String::as_str)
}

/// The first example of `examples` that does not match the tool's schema,
/// as [`RegistryError::BadExample`].
fn check_examples(
    name: &str,
    validator: &jsonschema::Validator,
    examples: &[Value],
) -> Result<(), RegistryError> {
    for (i, example) in examples.iter().enumerate() {
        if let Some(error) = validator.iter_errors(example).next() {
            return Err(RegistryError::BadExample {
                name: name.to_owned(),
                index: i + 1,
                message: format!(
                    "{}: {error}",
                    pointer_to_path(error.instance_path().as_str())
                ),
            });
        }
    }
    Ok(())
}

/// sha256 of a definition's JSON (hex of the first 16 bytes).
pub fn definition_hash(definition: &ToolDefinition) -> String {
    use sha2::Digest as _;
    let bytes = serde_json::to_vec(definition).unwrap_or_default();
    let digest = sha2::Sha256::digest(&bytes);
    digest[..16]
        .iter()
        .fold(String::with_capacity(32), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The tools of a session, in registration order. Cloning is cheap (the
/// entries are shared), so a session can grow its tool set by copy-and-add.
///
/// The definitions sent to the model ([`ToolRegistry::definitions`]) are the
/// `Direct` tools and the `Deferred` ones revealed so far, in the order they
/// joined: the set only grows and its order never changes, so the tools part
/// of successive requests is byte-identical and the prompt cache holds.
#[derive(Debug, Default, Clone)]
pub struct ToolRegistry {
    tools: Vec<Arc<RegisteredTool>>,
    index: HashMap<String, usize>,
    /// Indexes into `tools` of the definitions sent, in send order.
    sent: Vec<usize>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a `Direct` tool; its schema is checked here and compiled
    /// when a call (or an input example) first needs it.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.register_as(tool, Exposure::Direct)
    }

    /// Registers a tool with the given exposure.
    pub fn register_as(
        &mut self,
        tool: Arc<dyn Tool>,
        exposure: Exposure,
    ) -> Result<(), RegistryError> {
        let name = tool.name().to_owned();
        if !is_valid_tool_name(&name) {
            return Err(RegistryError::InvalidName(name));
        }
        if self.index.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        let schema = tool.input_schema();
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(RegistryError::BadSchema {
                name,
                message: "the schema must have \"type\": \"object\"".into(),
            });
        }
        // Checked against its meta-schema now, compiled when first needed
        // (examples are checked now, so theirs compiles now).
        jsonschema::meta::validate(&schema).map_err(|e| RegistryError::BadSchema {
            name: name.clone(),
            message: e.to_string(),
        })?;
        let validator = LazyValidator::default();
        let examples = tool.input_examples();
        if !examples.is_empty() {
            let compiled = compiled(&validator, &schema).map_err(|e| RegistryError::BadSchema {
                name: name.clone(),
                message: e.to_owned(),
            })?;
            check_examples(&name, compiled, &examples)?;
        }
        let mut extra = Extra::new();
        if !examples.is_empty() {
            extra.insert(INPUT_EXAMPLES.into(), Value::Array(examples));
        }
        let definition = ToolDefinition {
            name: name.clone(),
            description: Some(tool.description().to_owned()),
            input_schema: schema,
            extra,
        };
        if exposure == Exposure::Direct {
            self.sent.push(self.tools.len());
        }
        self.index.insert(name, self.tools.len());
        self.tools.push(Arc::new(RegisteredTool {
            tool,
            definition,
            exposure,
            hash: OnceLock::new(),
            validator,
        }));
        Ok(())
    }

    /// Puts `tool` in the place of the registered tool of the same name,
    /// keeping its definition, exposure, hash and compiled schema: for
    /// another instance of the same tool with state of its own (the built-in
    /// tools of one client of `tack mcp serve --http`). The definition is not
    /// compared: the caller makes the instance the way the first was made.
    /// Returns false (and changes nothing) when no tool has that name.
    pub fn replace_instance(&mut self, tool: Arc<dyn Tool>) -> bool {
        let Some(&i) = self.index.get(tool.name()) else {
            return false;
        };
        let old = &self.tools[i];
        self.tools[i] = Arc::new(RegisteredTool {
            tool,
            definition: old.definition.clone(),
            exposure: old.exposure,
            hash: old.hash.clone(),
            validator: Arc::clone(&old.validator),
        });
        true
    }

    /// Replaces the example inputs of the tool `name` (the ones its
    /// [`Tool::input_examples`] gave, or an earlier call's): its definition's
    /// [`INPUT_EXAMPLES`] (removed when `examples` is empty) and its
    /// [`RegisteredTool::definition_hash`] are rebuilt. For settings that
    /// give any tool examples, applied when a session is assembled: a
    /// definition already sent changes, and with it the prompt cache's
    /// prefix. Instances put in later with [`ToolRegistry::replace_instance`]
    /// keep these examples.
    ///
    /// Errors (and nothing changes): [`RegistryError::NotFound`] when no
    /// tool has that name; [`RegistryError::BadExample`] for the first
    /// example that does not match the tool's input schema.
    pub fn set_input_examples(
        &mut self,
        name: &str,
        examples: Vec<Value>,
    ) -> Result<(), RegistryError> {
        let Some(&i) = self.index.get(name) else {
            return Err(RegistryError::NotFound(name.to_owned()));
        };
        let old = &self.tools[i];
        if !examples.is_empty() {
            let validator = old.validator().map_err(|e| RegistryError::BadSchema {
                name: name.to_owned(),
                message: e.to_owned(),
            })?;
            check_examples(name, validator, &examples)?;
        }
        let mut definition = old.definition.clone();
        if examples.is_empty() {
            definition.extra.shift_remove(INPUT_EXAMPLES);
        } else {
            definition
                .extra
                .insert(INPUT_EXAMPLES.into(), Value::Array(examples));
        }
        self.tools[i] = Arc::new(RegisteredTool {
            tool: Arc::clone(&old.tool),
            definition,
            exposure: old.exposure,
            hash: OnceLock::new(),
            validator: Arc::clone(&old.validator),
        });
        Ok(())
    }

    /// Starts sending a `Deferred` tool's definition (it was discovered).
    /// Returns whether it was added: false when it is unknown, `Hidden`, or
    /// sent already.
    pub fn reveal(&mut self, name: &str) -> bool {
        let Some(&i) = self.index.get(name) else {
            return false;
        };
        if self.tools[i].exposure != Exposure::Deferred || self.sent.contains(&i) {
            return false;
        }
        self.sent.push(i);
        true
    }

    /// Makes a `Direct` tool `Deferred` (found by search; not sent until
    /// revealed), when a session decides what to defer before its first
    /// request. Returns whether it changed: false when the tool is unknown
    /// or not `Direct`.
    pub fn defer(&mut self, name: &str) -> bool {
        let Some(&i) = self.index.get(name) else {
            return false;
        };
        if self.tools[i].exposure != Exposure::Direct {
            return false;
        }
        let old = &self.tools[i];
        self.tools[i] = Arc::new(RegisteredTool {
            tool: Arc::clone(&old.tool),
            definition: old.definition.clone(),
            exposure: Exposure::Deferred,
            hash: old.hash.clone(),
            validator: Arc::clone(&old.validator),
        });
        self.sent.retain(|&s| s != i);
        true
    }

    /// Makes a tool `Hidden` (callable only through a host handle, e.g.
    /// from code; never sent), when a session is assembled. Returns
    /// whether it changed: false when the tool is unknown or hidden already.
    pub fn hide(&mut self, name: &str) -> bool {
        let Some(&i) = self.index.get(name) else {
            return false;
        };
        if self.tools[i].exposure == Exposure::Hidden {
            return false;
        }
        let old = &self.tools[i];
        self.tools[i] = Arc::new(RegisteredTool {
            tool: Arc::clone(&old.tool),
            definition: old.definition.clone(),
            exposure: Exposure::Hidden,
            hash: old.hash.clone(),
            validator: Arc::clone(&old.validator),
        });
        self.sent.retain(|&s| s != i);
        true
    }

    /// The `Deferred` tools revealed so far, in the order they were.
    pub fn revealed(&self) -> Vec<String> {
        self.sent
            .iter()
            .map(|&i| &self.tools[i])
            .filter(|t| t.exposure == Exposure::Deferred)
            .map(|t| t.definition.name.clone())
            .collect()
    }

    /// Whether any tool is `Deferred`.
    pub fn has_deferred(&self) -> bool {
        self.tools.iter().any(|t| t.exposure == Exposure::Deferred)
    }

    /// The definitions for an API that loads deferred tools itself
    /// (Anthropic's `defer_loading`, expanded by `tool_reference` blocks):
    /// every tool but `Hidden` ones, in registration order, each `Deferred`
    /// one marked `"defer_loading": true` (revealed or not: the reference
    /// in the conversation is what loads it) unless it is in `loaded` (its
    /// reference left the conversation, e.g. compacted away, so it is sent
    /// whole). Tools only join at the end, so successive requests' tools
    /// stay byte-identical while `loaded` does.
    pub fn deferring_definitions(
        &self,
        loaded: &std::collections::BTreeSet<String>,
    ) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .filter(|t| t.exposure != Exposure::Hidden)
            .map(|t| {
                let mut definition = t.definition.clone();
                if t.exposure == Exposure::Deferred && !loaded.contains(&definition.name) {
                    definition
                        .extra
                        .insert(DEFER_LOADING.into(), Value::Bool(true));
                }
                definition
            })
            .collect()
    }

    /// Whether the model is sent this tool's definition now.
    pub fn is_sent(&self, name: &str) -> bool {
        self.index.get(name).is_some_and(|i| self.sent.contains(i))
    }

    /// Registers a typed tool.
    pub fn register_typed<T: TypedTool>(&mut self, tool: T) -> Result<(), RegistryError> {
        self.register(Arc::new(Typed(tool)))
    }

    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.index.get(name).map(|&i| self.tools[i].as_ref())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    pub fn names(&self) -> Vec<String> {
        self.tools
            .iter()
            .map(|t| t.definition.name.clone())
            .collect()
    }

    /// The definitions sent to the model, in send order (see the type's docs).
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.sent
            .iter()
            .map(|&i| self.tools[i].definition.clone())
            .collect()
    }

    /// The definitions of every tool a client may call (`Direct` and
    /// `Deferred`, not `Hidden`), in registration order.
    pub fn callable_definitions(&self) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .filter(|t| t.exposure != Exposure::Hidden)
            .map(|t| t.definition.clone())
            .collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &RegisteredTool> {
        self.tools.iter().map(AsRef::as_ref)
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Keeps only the named tools (for `--tools`); unknown names are returned.
    pub fn retain_named(&mut self, names: &[String]) -> Vec<String> {
        let unknown: Vec<String> = names
            .iter()
            .filter(|n| !self.index.contains_key(n.as_str()))
            .cloned()
            .collect();
        let sent: Vec<String> = self
            .sent
            .iter()
            .map(|&i| self.tools[i].definition.name.clone())
            .collect();
        self.tools
            .retain(|t| names.iter().any(|n| n == &t.definition.name));
        self.index = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.definition.name.clone(), i))
            .collect();
        self.sent = sent
            .iter()
            .filter_map(|n| self.index.get(n).copied())
            .collect();
        unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolContext, ToolOutput};
    use async_trait::async_trait;
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct TodoInput {
        /// The list.
        todos: Vec<Todo>,
        limit: Option<u32>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Todo {
        content: String,
        status: Status,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Status {
        Pending,
        Completed,
    }

    struct Todos;

    #[async_trait]
    impl TypedTool for Todos {
        type Input = TodoInput;
        fn name(&self) -> &str {
            "TodoWrite"
        }
        fn description(&self) -> &str {
            "Plans."
        }
        async fn call(&self, input: TodoInput, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(format!("{} todos", input.todos.len())))
        }
    }

    fn registry() -> ToolRegistry {
        let mut r = ToolRegistry::new();
        r.register_typed(Todos).unwrap();
        r
    }

    #[test]
    fn schema_is_generated_and_trimmed() {
        let r = registry();
        let def = &r.get("TodoWrite").unwrap().definition;
        assert_eq!(def.input_schema["type"], "object");
        assert!(def.input_schema.get("$schema").is_none());
        assert!(def.input_schema.get("title").is_none());
        assert_eq!(def.input_schema["required"], json!(["todos"]));
    }

    #[test]
    fn violations_name_the_field_and_expectation() {
        let r = registry();
        let t = r.get("TodoWrite").unwrap();
        let err = t
            .check_input(&json!({"todos": [{"content": "a", "status": "doing"}], "limit": "x"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("input.todos[0].status"), "{err}");
        assert!(err.contains("\"doing\""), "{err}");
        assert!(err.contains("input.limit"), "{err}");
        let missing = t.check_input(&json!({})).unwrap_err().to_string();
        assert!(
            missing.contains("\"todos\" is a required property"),
            "{missing}"
        );
        let not_object = t.check_input(&json!([1])).unwrap_err().to_string();
        assert!(not_object.contains("must be a JSON object"), "{not_object}");
        assert!(t.check_input(&json!({"todos": []})).is_ok());
        // null means "not given" for an optional field.
        assert!(t.check_input(&json!({"todos": [], "limit": null})).is_ok());
    }

    #[test]
    fn names_are_checked_and_unique() {
        let mut r = registry();
        assert!(matches!(
            r.register_typed(Todos),
            Err(RegistryError::Duplicate(_))
        ));
        struct Bad;
        #[async_trait]
        impl TypedTool for Bad {
            type Input = TodoInput;
            fn name(&self) -> &str {
                "bad.name"
            }
            fn description(&self) -> &str {
                ""
            }
            async fn call(&self, _: TodoInput, _: ToolContext) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::default())
            }
        }
        assert!(matches!(
            r.register_typed(Bad),
            Err(RegistryError::InvalidName(_))
        ));
    }

    /// A tool with the schema it is given.
    struct Schemed(&'static str, Value);

    #[async_trait]
    impl crate::Tool for Schemed {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            "A test tool."
        }
        fn input_schema(&self) -> Value {
            self.1.clone()
        }
        async fn call(&self, _: Value, _: ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(self.0))
        }
    }

    #[test]
    fn a_schema_is_checked_when_registered_and_compiled_when_first_used() {
        let mut r = ToolRegistry::new();
        // Not a schema (`properties` must be an object): refused now.
        let err = r
            .register(Arc::new(Schemed(
                "Broken",
                json!({"type": "object", "properties": 5}),
            )))
            .unwrap_err();
        assert!(matches!(err, RegistryError::BadSchema { .. }), "{err}");
        assert!(r.get("Broken").is_none());
        // A schema, but one that does not compile (its pattern is no
        // regular expression): registered; a call says why it cannot run.
        r.register(Arc::new(Schemed(
            "BadPattern",
            json!({"type": "object", "properties": {"q": {"type": "string", "pattern": "(unclosed"}}}),
        )))
        .unwrap();
        let err = r
            .get("BadPattern")
            .unwrap()
            .check_input(&json!({"q": "x"}))
            .unwrap_err();
        assert!(matches!(err, ToolError::Unavailable(_)), "{err}");
        assert!(
            err.to_string()
                .contains("the input schema of tool \"BadPattern\" is not usable"),
            "{err}"
        );
        // Compiled once, shared by a tool's instances.
        r.register(Arc::new(Schemed(
            "Counted",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        )))
        .unwrap();
        let first = r.get("Counted").unwrap();
        assert!(first.validator.get().is_none());
        assert!(first.check_input(&json!({"n": "x"})).is_err());
        assert!(first.validator.get().is_some());
        let cell = Arc::clone(&first.validator);
        assert!(r.replace_instance(Arc::new(Schemed("Counted", json!({})))));
        let second = r.get("Counted").unwrap();
        assert!(Arc::ptr_eq(&cell, &second.validator));
        assert!(second.check_input(&json!({"n": 3})).is_ok());
    }

    struct Named(&'static str);

    #[async_trait]
    impl crate::Tool for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            "A test tool."
        }
        fn input_schema(&self) -> Value {
            json!({"type": "object", "properties": {}})
        }
        async fn call(&self, _: Value, _: ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(self.0))
        }
    }

    fn names_of(defs: &[ToolDefinition]) -> Vec<&str> {
        defs.iter().map(|d| d.name.as_str()).collect()
    }

    #[test]
    fn only_direct_and_revealed_tools_are_sent_and_the_order_only_grows() {
        let mut r = ToolRegistry::new();
        r.register(Arc::new(Named("A"))).unwrap();
        r.register_as(Arc::new(Named("Later")), Exposure::Deferred)
            .unwrap();
        r.register_as(Arc::new(Named("Inner")), Exposure::Hidden)
            .unwrap();
        r.register(Arc::new(Named("B"))).unwrap();
        assert_eq!(names_of(&r.definitions()), ["A", "B"]);
        assert_eq!(names_of(&r.callable_definitions()), ["A", "Later", "B"]);
        assert!(r.get("Later").is_some() && r.get("Inner").is_some());
        let before = serde_json::to_vec(&r.definitions()).unwrap();
        assert!(!r.reveal("Inner"), "a hidden tool is never sent");
        assert!(!r.reveal("A"), "a direct tool is sent already");
        assert!(!r.reveal("Nope"));
        assert!(r.reveal("Later"));
        assert!(!r.reveal("Later"), "revealed once");
        let after = serde_json::to_vec(&r.definitions()).unwrap();
        assert_eq!(names_of(&r.definitions()), ["A", "B", "Later"]);
        // Appended: the earlier definitions are a byte-identical prefix.
        assert_eq!(&after[..before.len() - 1], &before[..before.len() - 1]);
        r.retain_named(&["Later".into(), "A".into()]);
        assert_eq!(names_of(&r.definitions()), ["A", "Later"]);
    }

    #[test]
    fn deferring_marks_deferred_tools_and_never_changes_with_a_reveal() {
        let mut r = ToolRegistry::new();
        for name in ["A", "Mcp", "B"] {
            r.register(Arc::new(Named(name))).unwrap();
        }
        r.register_as(Arc::new(Named("Inner")), Exposure::Hidden)
            .unwrap();
        assert!(!r.has_deferred());
        assert!(r.defer("Mcp"));
        assert!(!r.defer("Mcp") && !r.defer("Inner") && !r.defer("Nope"));
        assert!(r.has_deferred());
        assert_eq!(names_of(&r.definitions()), ["A", "B"]);
        let none = std::collections::BTreeSet::new();
        let deferring = r.deferring_definitions(&none);
        assert_eq!(names_of(&deferring), ["A", "Mcp", "B"]);
        assert_eq!(
            deferring[1].extra.get(DEFER_LOADING),
            Some(&Value::Bool(true))
        );
        assert!(deferring[0].extra.get(DEFER_LOADING).is_none());
        assert!(r.reveal("Mcp"));
        assert_eq!(r.revealed(), ["Mcp"]);
        assert_eq!(
            r.deferring_definitions(&none),
            deferring,
            "a reveal changes nothing here"
        );
        let pinned = std::collections::BTreeSet::from(["Mcp".to_owned()]);
        assert!(
            r.deferring_definitions(&pinned)[1]
                .extra
                .get(DEFER_LOADING)
                .is_none()
        );
        assert_eq!(names_of(&r.definitions()), ["A", "B", "Mcp"]);
    }

    #[test]
    fn set_input_examples_checks_them_and_rebuilds_the_definition_and_its_hash() {
        let mut r = registry();
        let before = r.get("TodoWrite").unwrap().definition_hash().to_owned();
        let example = json!({"todos": [{"content": "Write the tests", "status": "pending"}]});
        r.set_input_examples("TodoWrite", vec![example.clone()])
            .unwrap();
        let t = r.get("TodoWrite").unwrap();
        assert_eq!(t.definition.extra[INPUT_EXAMPLES], json!([example]));
        assert_eq!(t.definition_hash(), definition_hash(&t.definition));
        assert_ne!(t.definition_hash(), before);
        assert_eq!(r.definitions()[0], t.definition, "what is sent");
        let with_one = t.definition_hash().to_owned();

        let bad = json!({"todos": [{"content": "x", "status": "doing"}]});
        let err = r
            .set_input_examples("TodoWrite", vec![example.clone(), bad])
            .unwrap_err();
        assert!(
            matches!(&err, RegistryError::BadExample { index: 2, message, .. }
                if message.starts_with("input.todos[0].status:")),
            "{err}"
        );
        let err = r.set_input_examples("TodoWrite", vec![json!("todos")]);
        assert!(matches!(
            err,
            Err(RegistryError::BadExample { index: 1, .. })
        ));
        assert_eq!(
            r.get("TodoWrite").unwrap().definition_hash(),
            with_one,
            "a refused list changes nothing"
        );

        let err = r.set_input_examples("Todo", vec![]).unwrap_err();
        assert_eq!(err.to_string(), "no tool named \"Todo\" is registered");

        r.set_input_examples("TodoWrite", vec![]).unwrap();
        let t = r.get("TodoWrite").unwrap();
        assert!(t.definition.extra.get(INPUT_EXAMPLES).is_none());
        assert_eq!(t.definition_hash(), before, "no examples: as registered");
        // Another instance keeps the examples set.
        r.set_input_examples("TodoWrite", vec![example.clone()])
            .unwrap();
        assert!(r.replace_instance(Arc::new(Typed(Todos))));
        assert_eq!(
            r.get("TodoWrite").unwrap().definition.extra[INPUT_EXAMPLES],
            json!([example])
        );
    }

    #[test]
    fn retain_named_reports_unknown() {
        let mut r = registry();
        assert_eq!(r.retain_named(&["Nope".into()]), vec!["Nope".to_string()]);
        assert!(r.is_empty());
    }

    #[test]
    fn default_is_not_concurrency_safe() {
        let r = registry();
        assert!(
            !r.get("TodoWrite")
                .unwrap()
                .tool
                .is_concurrency_safe(&json!({"todos": []}))
        );
    }

    #[test]
    fn error_texts_say_what_to_do() {
        let e = ToolError::Timeout(std::time::Duration::from_secs(3));
        assert!(
            e.to_model_text("Bash")
                .starts_with("Bash timed out after 3s")
        );
        let r = ToolError::Denied("rule Bash(rm *)".into()).to_result("Bash", "toolu_1");
        assert!(r.is_error);
        assert!(r.text().contains("Do not repeat"));
    }
}
