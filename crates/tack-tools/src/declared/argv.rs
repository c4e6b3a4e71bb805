//! The `command` of a declared tool: slots the call's values fill, one
//! argument per value, never a shell string.
//!
//! A slot is one of:
//! - `"log"`: a literal word. `{project}`, `{cwd}` and `{home}` (tack's, not
//!   the model's) may be anywhere in it; `{{` and `}}` are literal braces.
//! - `"{limit}"`: the value of the input property `limit`, as one argument;
//!   left out when the call gives none and the schema has no default.
//! - `{"flag": "--since", "value": "{since}"}`: `--since VALUE`, both left
//!   out without a value.
//! - `{"flag": "--all", "if": "{all}"}`: `--all` when the boolean is true.
//! - `{"each": "{paths}"}`: one argument per item of an array;
//!   `{"each": "{labels}", "flag": "--label"}`: `--label ITEM` per item.
//! - `{"format": "--since={since}"}`: the one place a value joins a larger
//!   word, because the declaration says so; left out without every value.
//!
//! A value never becomes an option: a word from a value that starts with
//! `-` is refused, unless it follows a literal `--` (the end of options) or
//! it is one of the values the property's schema lists (`enum`, `const`):
//! then the declaration wrote that option itself. A `pattern` pins nothing:
//! a pattern that lets a value start with `-` lets through options the
//! declaration never wrote (`[a-z]` matches `--output=/anywhere`), and one
//! that does not never meets a leading `-` anyway.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

/// Placeholders tack fills itself (never from the model).
pub(crate) const BUILTIN_PLACEHOLDERS: &[&str] = &["project", "cwd", "home"];

/// The longest single argument Linux accepts (MAX_ARG_STRLEN).
pub(crate) const MAX_ARG_BYTES: usize = 128 * 1024;
/// The most bytes all arguments of one call may take together (well under
/// ARG_MAX, which the environment shares).
pub(crate) const MAX_ARGV_BYTES: usize = 1024 * 1024;

/// Where tack's own placeholders point.
#[derive(Debug, Clone)]
pub struct Places {
    pub project: String,
    pub cwd: String,
    pub home: Option<String>,
}

impl Places {
    pub fn new(project: &Path, cwd: &Path, home: Option<&Path>) -> Self {
        Self {
            project: project.display().to_string(),
            cwd: cwd.display().to_string(),
            home: home.map(|h| h.display().to_string()),
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        match name {
            "project" => Some(&self.project),
            "cwd" => Some(&self.cwd),
            "home" => self.home.as_deref(),
            _ => None,
        }
    }
}

/// One piece of a template word.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    /// An input property.
    Input(String),
}

/// A word with placeholders; tack's own are filled in at load.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    /// The property, when the word is exactly one placeholder.
    fn single(&self) -> Option<&str> {
        match self.pieces.as_slice() {
            [Piece::Input(name)] => Some(name),
            _ => None,
        }
    }

    fn inputs(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Input(name) => Some(name.as_str()),
            Piece::Text(_) => None,
        })
    }

    fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Input(_) => return None,
            }
        }
        Some(out)
    }
}

/// Parses `text` into a template, filling tack's placeholders from `places`.
/// `known` are the input properties.
fn parse_template(
    text: &str,
    places: &Places,
    known: &BTreeSet<String>,
) -> Result<Template, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(['{', '}']) {
        literal.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("{{") {
            literal.push('{');
            rest = after;
            continue;
        }
        if let Some(after) = tail.strip_prefix("}}") {
            literal.push('}');
            rest = after;
            continue;
        }
        if let Some(after) = tail.strip_prefix('}') {
            literal.push('}');
            rest = after;
            continue;
        }
        // `{`: a placeholder when an identifier and `}` follow, else text
        // (a jq filter's `{a: .b}`).
        let inner_end = tail[1..].find('}').map(|i| i + 1);
        let ident = inner_end
            .map(|end| &tail[1..end])
            .filter(|name| is_identifier(name));
        let (Some(end), Some(name)) = (inner_end, ident) else {
            literal.push('{');
            rest = &tail[1..];
            continue;
        };
        if known.contains(name) {
            if !literal.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            pieces.push(Piece::Input(name.to_owned()));
        } else if BUILTIN_PLACEHOLDERS.contains(&name) {
            match places.get(name) {
                Some(value) => literal.push_str(value),
                None => return Err(format!("{{{name}}} is unknown here (no home directory)")),
            }
        } else {
            let mut names: Vec<&str> = known.iter().map(String::as_str).collect();
            names.extend(BUILTIN_PLACEHOLDERS);
            let hint = tack_protocol::suggest::closest(name, &names)
                .map(|c| format!("; did you mean {{{c}}}?"))
                .unwrap_or_default();
            return Err(format!(
                "the placeholder {{{name}}} is no property of the input schema and none of tack's ({{project}}, {{cwd}}, {{home}}){hint}; add `{name}` to inputSchema.properties or fix the name (write {{{{ and }}}} for literal braces)"
            ));
        }
        rest = &tail[end + 1..];
    }
    literal.push_str(rest);
    if !literal.is_empty() || pieces.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    Ok(Template { pieces })
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One slot of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    /// A word: literal, one value, or a declared format.
    Word { word: Template, format: bool },
    /// `flag VALUE` when the value is given.
    Flag { flag: String, value: String },
    /// `flag` when the boolean is true.
    If { flag: String, property: String },
    /// One argument per item (each after `flag` when there is one).
    Each {
        property: String,
        flag: Option<String>,
    },
}

/// A declared command, checked: the executable and its slots.
#[derive(Debug, Clone)]
pub(crate) struct Command {
    /// The executable, as written (for messages).
    pub program_written: String,
    slots: Vec<Slot>,
    /// Per property, the values its schema lists (`enum`, `const`) as
    /// arguments: only these may start with `-` (the declaration wrote
    /// them). Checked here, whatever the schema check before did.
    pinned: BTreeMap<String, Vec<String>>,
    /// Top-level defaults of the input schema.
    defaults: Map<String, Value>,
    /// Index of the first literal `--` among the slots, if any.
    end_of_options: Option<usize>,
}

/// Why a call's values cannot make an argv: the model fixes its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgError(pub String);

impl Command {
    /// Checks `command` (the JSON array after its first element, the
    /// executable) against the input `schema`. Returns the command and the
    /// properties it uses.
    pub(crate) fn parse(
        program_written: String,
        slots_json: &[Value],
        schema: &Value,
        places: &Places,
    ) -> Result<(Command, BTreeSet<String>), String> {
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let known: BTreeSet<String> = properties.keys().cloned().collect();
        for reserved in BUILTIN_PLACEHOLDERS {
            if known.contains(*reserved) {
                return Err(format!(
                    "the input property `{reserved}` has the name of tack's placeholder {{{reserved}}}; rename the property"
                ));
            }
        }
        let type_of = |name: &str| -> Option<String> {
            properties
                .get(name)
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let mut used = BTreeSet::new();
        let mut slots = Vec::new();
        let mut end_of_options = None;
        for (i, slot) in slots_json.iter().enumerate() {
            let at = |msg: String| format!("command[{}]: {msg}", i + 1);
            let one_property = |text: &str, key: &str| -> Result<String, String> {
                let t = parse_template(text, places, &known).map_err(at)?;
                t.single().map(str::to_owned).ok_or_else(|| {
                    at(format!(
                        "\"{key}\" must be one placeholder such as \"{{name}}\", not {text:?}"
                    ))
                })
            };
            let parsed = match slot {
                Value::String(text) => {
                    let word = parse_template(text, places, &known).map_err(at)?;
                    if word.single().is_none() && word.inputs().next().is_some() {
                        return Err(at(format!(
                            "{text:?} puts a value inside a larger word; a value is one argument of its own (\"{{name}}\"), or, when the program needs it joined, say so with {{\"format\": {text:?}}}"
                        )));
                    }
                    if word.literal().as_deref() == Some("--") && end_of_options.is_none() {
                        end_of_options = Some(i);
                    }
                    Slot::Word {
                        word,
                        format: false,
                    }
                }
                Value::Object(map) => {
                    let keys: BTreeSet<&str> = map.keys().map(String::as_str).collect();
                    let str_of = |key: &str| -> Result<Option<String>, String> {
                        match map.get(key) {
                            None => Ok(None),
                            Some(Value::String(s)) => Ok(Some(s.clone())),
                            Some(_) => Err(at(format!("\"{key}\" must be a string"))),
                        }
                    };
                    let allowed: &[&[&str]] = &[
                        &["flag", "value"],
                        &["flag", "if"],
                        &["each"],
                        &["each", "flag"],
                        &["format"],
                    ];
                    if !allowed.iter().any(|shape| {
                        shape.len() == keys.len() && shape.iter().all(|k| keys.contains(k))
                    }) {
                        return Err(at(format!(
                            "{} is no slot; write a string, {{\"flag\", \"value\"}}, {{\"flag\", \"if\"}}, {{\"each\"}} (with an optional \"flag\") or {{\"format\"}}",
                            Value::Object(map.clone())
                        )));
                    }
                    if let Some(format) = str_of("format")? {
                        let word = parse_template(&format, places, &known).map_err(at)?;
                        if word.inputs().next().is_none() {
                            return Err(at(format!(
                                "the format {format:?} has no placeholder; write it as a plain string"
                            )));
                        }
                        for name in word.inputs() {
                            if type_of(name).as_deref() == Some("array") {
                                return Err(at(format!(
                                    "`{name}` is an array: use {{\"each\": \"{{{name}}}\"}}"
                                )));
                            }
                        }
                        Slot::Word { word, format: true }
                    } else if let Some(each) = str_of("each")? {
                        let property = one_property(&each, "each")?;
                        if type_of(&property).as_deref() != Some("array") {
                            return Err(at(format!(
                                "\"each\" needs an array property; give `{property}` \"type\": \"array\" in the input schema"
                            )));
                        }
                        Slot::Each {
                            property,
                            flag: str_of("flag")?,
                        }
                    } else if let Some(cond) = str_of("if")? {
                        let property = one_property(&cond, "if")?;
                        if type_of(&property).as_deref() != Some("boolean") {
                            return Err(at(format!(
                                "\"if\" needs a boolean property; give `{property}` \"type\": \"boolean\" in the input schema"
                            )));
                        }
                        Slot::If {
                            flag: str_of("flag")?.unwrap_or_default(),
                            property,
                        }
                    } else {
                        let value = str_of("value")?.unwrap_or_default();
                        let property = one_property(&value, "value")?;
                        Slot::Flag {
                            flag: str_of("flag")?.unwrap_or_default(),
                            value: property,
                        }
                    }
                }
                other => {
                    return Err(at(format!(
                        "{other} is no slot; write a string or an object such as {{\"flag\": \"--since\", \"value\": \"{{since}}\"}}"
                    )));
                }
            };
            match &parsed {
                Slot::Word { word, .. } => {
                    for name in word.inputs() {
                        if !matches!(parsed, Slot::Word { format: true, .. })
                            && type_of(name).as_deref() == Some("array")
                        {
                            return Err(at(format!(
                                "`{name}` is an array: use {{\"each\": \"{{{name}}}\"}} so each item is one argument"
                            )));
                        }
                        used.insert(name.to_owned());
                    }
                }
                Slot::Flag { flag, value } => {
                    if flag.is_empty() {
                        return Err(at("\"flag\" is empty".into()));
                    }
                    if type_of(value).as_deref() == Some("array") {
                        return Err(at(format!(
                            "`{value}` is an array: use {{\"each\": \"{{{value}}}\", \"flag\": {flag:?}}}"
                        )));
                    }
                    used.insert(value.clone());
                }
                Slot::If { flag, property } => {
                    if flag.is_empty() {
                        return Err(at("\"flag\" is empty".into()));
                    }
                    used.insert(property.clone());
                }
                Slot::Each { property, .. } => {
                    used.insert(property.clone());
                }
            }
            slots.push(parsed);
        }
        let pinned = properties
            .iter()
            .map(|(k, p)| {
                let listed = p
                    .get("enum")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                let values = listed.chain(p.get("const")).map(text_of).collect();
                (k.clone(), values)
            })
            .collect();
        let defaults = properties
            .iter()
            .filter_map(|(k, p)| p.get("default").map(|d| (k.clone(), d.clone())))
            .collect();
        Ok((
            Command {
                program_written,
                slots,
                pinned,
                defaults,
                end_of_options,
            },
            used,
        ))
    }

    /// The arguments (after the executable) for `input`, defaults applied.
    pub(crate) fn arguments(&self, input: &Value) -> Result<Vec<String>, ArgError> {
        let value_of = |name: &str| -> Option<&Value> {
            input
                .get(name)
                .filter(|v| !v.is_null())
                .or_else(|| self.defaults.get(name))
        };
        let mut out: Vec<String> = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            let after_dashes = self.end_of_options.is_some_and(|e| i > e);
            match slot {
                Slot::Word { word, .. } => {
                    let mut text = String::new();
                    let mut missing = false;
                    // The value the word's first character comes from, if
                    // a value gives it (a literal start was declared).
                    let mut lead: Option<(&str, String)> = None;
                    for piece in &word.pieces {
                        let at_start = text.is_empty();
                        match piece {
                            Piece::Text(t) => text.push_str(t),
                            Piece::Input(name) => match value_of(name) {
                                Some(v) => {
                                    let rendered = self.render(name, v)?;
                                    text.push_str(&rendered);
                                    if at_start && !rendered.is_empty() {
                                        lead = Some((name, rendered));
                                    }
                                }
                                None => missing = true,
                            },
                        }
                    }
                    if missing {
                        continue;
                    }
                    if let Some((name, value)) = &lead
                        && !after_dashes
                    {
                        self.no_option(name, value)?;
                    }
                    out.push(text);
                }
                Slot::Flag { flag, value } => {
                    if let Some(v) = value_of(value) {
                        let text = self.render(value, v)?;
                        if !after_dashes {
                            self.no_option(value, &text)?;
                        }
                        out.push(flag.clone());
                        out.push(text);
                    }
                }
                Slot::If { flag, property } => match value_of(property) {
                    Some(Value::Bool(true)) => out.push(flag.clone()),
                    Some(Value::Bool(false)) | None => {}
                    Some(other) => {
                        return Err(ArgError(format!(
                            "`{property}` must be true or false, got {other}"
                        )));
                    }
                },
                Slot::Each { property, flag } => match value_of(property) {
                    None => {}
                    Some(Value::Array(items)) => {
                        for item in items {
                            let text = self.render(property, item)?;
                            if !after_dashes {
                                self.no_option(property, &text)?;
                            }
                            if let Some(flag) = flag {
                                out.push(flag.clone());
                            }
                            out.push(text);
                        }
                    }
                    Some(other) => {
                        return Err(ArgError(format!(
                            "`{property}` must be an array, got {other}"
                        )));
                    }
                },
            }
        }
        let total: usize = out.iter().map(|a| a.len() + 1).sum();
        if total > MAX_ARGV_BYTES {
            return Err(ArgError(format!(
                "the arguments come to {total} bytes, over the {MAX_ARGV_BYTES}-byte limit of one command; pass less at once"
            )));
        }
        Ok(out)
    }

    /// A value as the text of one argument.
    fn render(&self, name: &str, value: &Value) -> Result<String, ArgError> {
        let text = text_of(value);
        if text.contains('\0') {
            return Err(ArgError(format!(
                "`{name}` contains a NUL byte, which no command argument can carry; remove it"
            )));
        }
        if text.len() > MAX_ARG_BYTES {
            return Err(ArgError(format!(
                "`{name}` is {} bytes, over the {MAX_ARG_BYTES}-byte limit of one command argument; pass a shorter value",
                text.len()
            )));
        }
        Ok(text)
    }

    /// Refuses a value that would read as an option, unless the schema
    /// lists it for the property.
    fn no_option(&self, name: &str, text: &str) -> Result<(), ArgError> {
        let listed = self
            .pinned
            .get(name)
            .is_some_and(|values| values.iter().any(|v| v == text));
        if text.starts_with('-') && !listed {
            return Err(ArgError(format!(
                "`{name}` is {text:?}, which starts with `-` and would be read as an option of {}; values cannot be options (leave out the leading `-`)",
                self.program_written
            )));
        }
        Ok(())
    }
}

/// A value as the text of one argument, unchecked.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        Value::Array(_) | Value::Object(_) => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn places() -> Places {
        Places {
            project: "/p".into(),
            cwd: "/p/sub".into(),
            home: Some("/home/u".into()),
        }
    }

    fn command(slots: Value, schema: Value) -> Result<Command, String> {
        Command::parse(
            "prog".into(),
            slots.as_array().map(Vec::as_slice).unwrap_or_default(),
            &schema,
            &places(),
        )
        .map(|(c, _)| c)
    }

    #[test]
    fn slots_fill_one_argument_each_and_optional_parts_disappear() {
        let schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "default": 20},
            "since": {"type": "string"},
            "all": {"type": "boolean"},
            "paths": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "array", "items": {"type": "string"}},
            "ref": {"type": "string"}
        }});
        let c = command(
            json!(["log", "-n", "{limit}", {"flag": "--since", "value": "{since}"},
                   {"flag": "--all", "if": "{all}"}, {"each": "{labels}", "flag": "--label"},
                   {"format": "refs/heads/{ref}"}, "{project}/x", "{{literal}}", "{a: .b}", "--", {"each": "{paths}"}]),
            schema,
        )
        .unwrap();
        assert_eq!(
            c.arguments(&json!({})).unwrap(),
            ["log", "-n", "20", "/p/x", "{literal}", "{a: .b}", "--"]
        );
        assert_eq!(
            c.arguments(&json!({"limit": 5, "since": "2 weeks ago", "all": true,
                "labels": ["a b", "c"], "ref": "main", "paths": ["-weird", "src/"]}))
                .unwrap(),
            [
                "log",
                "-n",
                "5",
                "--since",
                "2 weeks ago",
                "--all",
                "--label",
                "a b",
                "--label",
                "c",
                "refs/heads/main",
                "/p/x",
                "{literal}",
                "{a: .b}",
                "--",
                "-weird",
                "src/"
            ]
        );
    }

    #[test]
    fn a_value_never_becomes_an_option_unless_pinned_or_after_dashes() {
        let schema = json!({"type": "object", "properties": {
            "rev": {"type": "string"},
            "mode": {"type": "string", "enum": ["--oneline", "--stat"]},
            "n": {"type": "integer"}
        }});
        let c = command(json!(["show", "{rev}", "{mode}", "{n}"]), schema).unwrap();
        let err = c
            .arguments(&json!({"rev": "--upload-pack=touch /tmp/x"}))
            .unwrap_err();
        assert!(err.0.contains("starts with `-`"), "{}", err.0);
        assert!(c.arguments(&json!({"n": -5})).is_err());
        assert_eq!(
            c.arguments(&json!({"mode": "--stat"})).unwrap(),
            ["show", "--stat"]
        );
    }

    /// A `pattern` does not pin a value down: unanchored (`[a-z]`) it lets
    /// `--output=/anywhere` through, and anchored it still lists no option
    /// the declaration wrote. Only a value the schema lists may start with
    /// `-`, and only as listed (the schema check is not relied on).
    #[test]
    fn only_a_listed_value_may_be_an_option() {
        let schema = json!({"type": "object", "properties": {
            "key": {"type": "string", "pattern": "[a-z]"},
            "anchored": {"type": "string", "pattern": "^-[a-z]$"},
            "order": {"type": "string", "enum": ["-r", "asc"]},
            "fixed": {"const": "--numeric-sort"},
            "n": {"type": "integer", "enum": [-1, 5]},
            "path": {"type": "string"}
        }});
        let c = command(
            json!([
                "sort",
                "{key}",
                "{anchored}",
                "{order}",
                "{fixed}",
                "{n}",
                {"format": "{order}{key}"},
                "--",
                "{path}"
            ]),
            schema,
        )
        .unwrap();
        for bad in [
            json!({"key": "--output=/elsewhere/x", "path": "a"}),
            json!({"key": "-o", "path": "a"}),
            json!({"anchored": "-o", "path": "a"}),
            json!({"order": "--output=/x", "path": "a"}),
            json!({"order": "-R", "path": "a"}),
            json!({"fixed": "-o", "path": "a"}),
            json!({"n": -2, "path": "a"}),
            json!({"order": "asc", "key": "-o/x"}),
        ] {
            let err = c.arguments(&bad).unwrap_err();
            assert!(err.0.contains("starts with `-`"), "{bad}: {}", err.0);
        }
        assert_eq!(
            c.arguments(&json!({"key": "k", "order": "-r", "fixed": "--numeric-sort", "n": -1, "path": "-a"}))
                .unwrap(),
            ["sort", "k", "-r", "--numeric-sort", "-1", "-rk", "--", "-a"]
        );
        // A literal start is the declaration's; a listed value may lead a
        // format, which then holds the rest of the word.
        assert!(c.arguments(&json!({"order": "-r", "key": "x"})).is_ok());
    }

    #[test]
    fn bad_declarations_say_what_to_write() {
        let schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer"}, "paths": {"type": "array"}, "project": {"type": "string"}
        }});
        let e = command(
            json!(["{limt}"]),
            json!({"type": "object", "properties": {"limit": {}}}),
        )
        .unwrap_err();
        assert!(
            e.contains("{limt}") && e.contains("did you mean {limit}"),
            "{e}"
        );
        let e = command(
            json!(["-n{limit}"]),
            json!({"type": "object", "properties": {"limit": {}}}),
        )
        .unwrap_err();
        assert!(e.contains("format"), "{e}");
        let e = command(
            json!(["{paths}"]),
            json!({"type": "object", "properties": {"paths": {"type": "array"}}}),
        )
        .unwrap_err();
        assert!(e.contains("each"), "{e}");
        let e = command(json!(["x"]), schema).unwrap_err();
        assert!(e.contains("`project`"), "{e}");
        let e = command(json!([{"flag": "--x"}]), json!({"type": "object"})).unwrap_err();
        assert!(e.contains("no slot"), "{e}");
    }
}
