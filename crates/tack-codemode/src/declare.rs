//! What the program knows of its tools: a compact TypeScript-style
//! declaration of each one, generated from its JSON Schema.
//!
//! ```text
//! /** Create a new issue in a GitHub repository */
//! create_issue(input: { owner: string; repo: string; title: string; body?: string; assignees?: string[]; milestone?: number; labels?: string[] }): Promise<string>;
//! ```
//!
//! One declaration is the tool's description (its first sentence, up to 120
//! characters) as a `/** … */` line, then the tool as a method of `tools`:
//!
//! - **The name** as it is when it is an ASCII identifier name
//!   (`[A-Za-z_$][A-Za-z0-9_$]*`), quoted otherwise (`"API-get-self"(…)`,
//!   called as `tools["API-get-self"](…)`). Reserved words need no quotes:
//!   `tools.delete(…)` is valid JavaScript (a property name may be any
//!   identifier name), and the same rule applies to property names.
//! - **The input**: `input: T` from the input schema; `input?: T` when the
//!   input is an object with no required property; nothing, `Name()`, when
//!   it is an object with no property that is not open
//!   (`additionalProperties` absent or `false`; the engine passes `{}`).
//! - **The result**: `Promise<T>` from the output schema when the tool has
//!   one (such a tool resolves with its structured content), else
//!   `Promise<string>`: a tool without one resolves with its text.
//!
//! ## From JSON Schema to TypeScript
//! `string`; `number` and `integer` as `number`; `boolean`; `null`; arrays as
//! `T[]` (`(A | B)[]`), tuples (`items: [..]`, `prefixItems`) as `[A, B]`;
//! objects as `{ a: T; b?: U }` in the schema's order, `?` for a property not
//! `required`, with `[key: string]: V` when `additionalProperties` (or
//! `patternProperties`) is a schema, and `Record<string, V>` when there is
//! no property (`Record<string, unknown>` for an open object, `{}` for a
//! closed one); `enum` and `const` as literals (`"open" | "closed"`);
//! `anyOf`/`oneOf` and `type: [..]` as unions, deduplicated (`string |
//! null`; `nullable: true` adds `| null` too); `allOf` as one merged object
//! when every part is a plain object, else an intersection. A local `$ref`
//! (`#/$defs/X`, `#/definitions/X`, any `#/…` pointer) is inlined; a `$ref`
//! met again inside its own expansion, a remote one, or anything nested
//! deeper than [`MAX_DEPTH`] is `unknown`, as is any schema this does not
//! understand. Validation keywords (`format`, `pattern`, `minimum`,
//! `default`…) are dropped. `anyOf`/`oneOf` whose parts only add
//! constraints (`[{required: [a]}, {required: [b]}]`) are ignored.
//!
//! ## Styles and the budget
//! [`Style::Verbose`] adds each property's description (first sentence, up
//! to 60 characters) as a `/** … */` before it; [`Style::Compact`] leaves
//! property descriptions out and cuts the tool's to 80 characters.
//! [`declarations`] fits many tools in a byte budget: as many tools as fit
//! in compact style, in the order given, then as many of those as still fit
//! upgraded to verbose, in order; what does not fit is left out whole and
//! named in [`Declarations::omitted`], for a "N more tools: find them with
//! `tools.search`" line.
//!
//! Measured over the 1,165 tools of `eval/toolsearch/catalog.json` (test
//! `catalog_figures`): on average **221 bytes per declaration compact and 409
//! verbose** (medians 172 and 286; the largest 2,066 and 5,099). A budget of
//! 8,000 bytes holds 44 of the catalog's first 300 tools (test
//! `budget_keeps_whole_declarations`), so past a few dozen tools most are
//! found with `tools.search`.

use serde_json::{Map, Value};

/// How deep a type may nest (objects, arrays, unions, `$ref`s) before the
/// rest is `unknown`.
pub const MAX_DEPTH: usize = 12;

/// The longest tool summary, in characters, per style.
const TOOL_DOC_VERBOSE: usize = 120;
const TOOL_DOC_COMPACT: usize = 80;
/// The longest property summary, in characters (verbose only).
const PROPERTY_DOC: usize = 60;

/// How much of the descriptions a declaration carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// The tool's summary cut to 80 characters; no property descriptions.
    Compact,
    /// The tool's summary up to 120 characters and each property's first
    /// sentence up to 60.
    #[default]
    Verbose,
}

/// What a declaration is made from: one callable tool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolShape<'a> {
    /// The name the program calls it by (`tools[name]`).
    pub name: &'a str,
    pub description: &'a str,
    /// The JSON Schema of its input.
    pub input_schema: &'a Value,
    /// The JSON Schema of its structured content, when it has one.
    pub output_schema: Option<&'a Value>,
}

/// Declarations of many tools within a budget.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Declarations {
    /// The declarations kept, in the order given, separated by newlines
    /// (no newline at the end); at most the budget's bytes long.
    pub text: String,
    /// The names of the tools left out, in the order given.
    pub omitted: Vec<String>,
}

/// One tool's declaration: its summary as a `/** … */` line (none when it
/// has no description), then its signature, e.g.
///
/// ```
/// use serde_json::json;
/// use tack_codemode::declare::{Style, ToolShape, declaration};
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "file_path": { "type": "string", "description": "The absolute path. Never relative." },
///         "offset": { "type": "integer" },
///     },
///     "required": ["file_path"],
/// });
/// let read = ToolShape {
///     name: "Read",
///     description: "Reads a file. Returns its lines numbered.",
///     input_schema: &schema,
///     output_schema: None,
/// };
/// assert_eq!(
///     declaration(&read, Style::Verbose),
///     "/** Reads a file. */\n\
///      Read(input: { /** The absolute path. */ file_path: string; offset?: number }): Promise<string>;"
/// );
/// assert_eq!(
///     declaration(&read, Style::Compact),
///     "/** Reads a file. */\nRead(input: { file_path: string; offset?: number }): Promise<string>;"
/// );
/// ```
pub fn declaration(tool: &ToolShape<'_>, style: Style) -> String {
    let docs = style == Style::Verbose;
    let limit = if docs {
        TOOL_DOC_VERBOSE
    } else {
        TOOL_DOC_COMPACT
    };
    let mut out = String::new();
    let doc = summary(tool.description, limit);
    if !doc.is_empty() {
        out.push_str(&format!("/** {doc} */\n"));
    }
    out.push_str(&property_name(tool.name));
    out.push('(');
    match input_param(tool.input_schema) {
        Param::None => {}
        param => {
            let ty = Render::new(tool.input_schema, docs).schema(tool.input_schema);
            let q = if param == Param::Optional { "?" } else { "" };
            out.push_str(&format!("input{q}: {}", ty.text()));
        }
    }
    let result = match tool.output_schema {
        Some(schema) => Render::new(schema, docs).schema(schema).text(),
        None => "string".to_owned(),
    };
    out.push_str(&format!("): Promise<{result}>;"));
    out
}

/// Declarations of `tools` in at most `budget` bytes, in the order given.
///
/// A declaration is kept whole or left out: first as many tools as fit in
/// [`Style::Compact`] (a tool that does not fit is skipped and later,
/// smaller ones still tried), then each kept tool, in order, in
/// [`Style::Verbose`] while the text still fits. The budget covers the
/// text and its separating newlines, not any note about what was left out.
/// Pass only callable tools: a tool named `search` is not (the engine keeps
/// that name for `tools.search`).
pub fn declarations(tools: &[ToolShape<'_>], budget: usize) -> Declarations {
    let mut kept: Vec<Option<String>> = Vec::with_capacity(tools.len());
    let mut omitted = Vec::new();
    let mut used = 0;
    for tool in tools {
        let text = declaration(tool, Style::Compact);
        let cost = text.len() + usize::from(used > 0);
        if used + cost <= budget {
            used += cost;
            kept.push(Some(text));
        } else {
            omitted.push(tool.name.to_owned());
            kept.push(None);
        }
    }
    for (tool, slot) in tools.iter().zip(kept.iter_mut()) {
        if let Some(compact) = slot {
            let verbose = declaration(tool, Style::Verbose);
            let grown = verbose.len().saturating_sub(compact.len());
            if used + grown <= budget {
                used += grown;
                *compact = verbose;
            }
        }
    }
    let text = kept.into_iter().flatten().collect::<Vec<_>>().join("\n");
    Declarations { text, omitted }
}

/// The TypeScript type of one JSON Schema (`$ref`s resolved against the
/// schema itself), without property descriptions.
pub fn type_of(schema: &Value) -> String {
    Render::new(schema, false).schema(schema).text()
}

/// Whether `name` can stand unquoted as a property name or after a dot:
/// an ASCII identifier name, `[A-Za-z_$][A-Za-z0-9_$]*` (reserved words
/// included: `tools.delete` is valid).
pub fn is_identifier_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `name` as a property name: bare when it can be, else a quoted string.
fn property_name(name: &str) -> String {
    if is_identifier_name(name) {
        name.to_owned()
    } else {
        Value::from(name).to_string()
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Param {
    /// A tool that takes no property: `Name()`.
    None,
    Optional,
    Required,
}

fn input_param(schema: &Value) -> Param {
    let Some(map) = schema.as_object() else {
        return Param::Required;
    };
    let combined = ["$ref", "anyOf", "oneOf", "allOf", "enum", "const"]
        .iter()
        .any(|k| map.contains_key(*k));
    let object = map.get("type").is_none_or(|t| t == "object");
    if combined || !object {
        return Param::Required;
    }
    let no_properties = map
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    let open = map
        .get("additionalProperties")
        .is_some_and(|a| a.is_object() || a == true)
        || map.contains_key("patternProperties");
    let required = map
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty());
    if no_properties && !open {
        Param::None
    } else if required {
        Param::Required
    } else {
        Param::Optional
    }
}

/// A rendered type, kept apart by how tightly it binds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    /// Binds tightest: `string`, `{ … }`, `T[]`, `"x"`.
    Atom(String),
    /// `A & B`.
    Inter(String),
    /// `A | B`: its parts, none of them a union.
    Union(Vec<Ty>),
}

impl Ty {
    fn atom(s: &str) -> Self {
        Ty::Atom(s.to_owned())
    }

    fn text(&self) -> String {
        match self {
            Ty::Atom(s) | Ty::Inter(s) => s.clone(),
            Ty::Union(parts) => parts.iter().map(Ty::text).collect::<Vec<_>>().join(" | "),
        }
    }

    /// As an operand of `&` (a union in parentheses).
    fn inter_operand(&self) -> String {
        match self {
            Ty::Union(_) => format!("({})", self.text()),
            _ => self.text(),
        }
    }

    /// As the element of `T[]` (anything but an atom in parentheses).
    fn array_operand(&self) -> String {
        match self {
            Ty::Atom(s) => s.clone(),
            _ => format!("({})", self.text()),
        }
    }

    fn is(&self, s: &str) -> bool {
        matches!(self, Ty::Atom(a) if a == s)
    }
}

/// `A | B | …`, flattened and deduplicated; `unknown` absorbs the rest and
/// `never` disappears.
fn union(members: impl IntoIterator<Item = Ty>) -> Ty {
    let mut parts: Vec<Ty> = Vec::new();
    for member in members {
        let flat = match member {
            Ty::Union(inner) => inner,
            other => vec![other],
        };
        for part in flat {
            if !part.is("never") && !parts.contains(&part) {
                parts.push(part);
            }
        }
    }
    if parts.iter().any(|p| p.is("unknown")) {
        return Ty::atom("unknown");
    }
    match parts.len() {
        0 => Ty::atom("never"),
        1 => parts.remove(0),
        _ => Ty::Union(parts),
    }
}

/// `A & B & …`; `unknown` parts disappear.
fn intersection(members: Vec<Ty>) -> Ty {
    let mut parts: Vec<Ty> = Vec::new();
    for member in members {
        if !member.is("unknown") && !parts.contains(&member) {
            parts.push(member);
        }
    }
    match parts.len() {
        0 => Ty::atom("unknown"),
        1 => parts.remove(0),
        _ => Ty::Inter(
            parts
                .iter()
                .map(Ty::inter_operand)
                .collect::<Vec<_>>()
                .join(" & "),
        ),
    }
}

/// Keywords that say what a value is (as opposed to constraining it).
const SHAPE_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "enum",
    "const",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
];

fn has_shape(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => SHAPE_KEYWORDS.iter().any(|k| map.contains_key(*k)),
        Value::Bool(false) => true,
        _ => false,
    }
}

/// Renders schemas against one root (for `$ref`s).
struct Render<'a> {
    root: &'a Value,
    docs: bool,
    /// The `$ref`s being expanded, outermost first.
    refs: Vec<String>,
    depth: usize,
}

impl<'a> Render<'a> {
    fn new(root: &'a Value, docs: bool) -> Self {
        Self {
            root,
            docs,
            refs: Vec::new(),
            depth: 0,
        }
    }

    fn schema(&mut self, schema: &Value) -> Ty {
        if self.depth >= MAX_DEPTH {
            return Ty::atom("unknown");
        }
        self.depth += 1;
        let ty = match schema {
            Value::Object(map) => self.map(map),
            Value::Bool(false) => Ty::atom("never"),
            _ => Ty::atom("unknown"),
        };
        self.depth -= 1;
        ty
    }

    fn map(&mut self, map: &Map<String, Value>) -> Ty {
        let ty = self.map_inner(map, true);
        if map.get("nullable") == Some(&Value::Bool(true)) {
            union([ty, Ty::atom("null")])
        } else {
            ty
        }
    }

    /// `alternatives`: whether to read `anyOf`/`oneOf`.
    fn map_inner(&mut self, map: &Map<String, Value>, alternatives: bool) -> Ty {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(reference);
        }
        if let Some(value) = map.get("const") {
            return literal(value);
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            return union(values.iter().map(literal));
        }
        let alternatives = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| map.get(*k).and_then(Value::as_array))
            .find(|parts| alternatives && parts.iter().any(has_shape));
        if let Some(parts) = alternatives {
            // Properties beside the alternatives hold for each of them; a
            // part that only constrains is the schema without alternatives.
            let with_properties = map.contains_key("properties");
            let mut members = Vec::with_capacity(parts.len());
            for part in parts {
                members.push(match has_shape(part) {
                    true => self.schema(part),
                    false if with_properties => Ty::atom("unknown"),
                    false => self.map_inner(map, false),
                });
            }
            return if with_properties {
                intersection(vec![self.object(&[map]), union(members)])
            } else {
                union(members)
            };
        }
        if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
            return self.all_of(map, parts);
        }
        match map.get("type") {
            Some(Value::String(t)) => self.typed(map, t),
            Some(Value::Array(types)) => union(
                types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.typed(map, t))
                    .collect::<Vec<_>>(),
            ),
            _ if ["properties", "additionalProperties", "patternProperties"]
                .iter()
                .any(|k| map.contains_key(*k)) =>
            {
                self.object(&[map])
            }
            _ if map.contains_key("items") || map.contains_key("prefixItems") => self.array(map),
            _ => Ty::atom("unknown"),
        }
    }

    fn typed(&mut self, map: &Map<String, Value>, t: &str) -> Ty {
        match t {
            "string" | "number" | "boolean" | "null" => Ty::atom(t),
            "integer" => Ty::atom("number"),
            "array" => self.array(map),
            "object" => self.object(&[map]),
            _ => Ty::atom("unknown"),
        }
    }

    fn reference(&mut self, reference: &str) -> Ty {
        let target = reference
            .strip_prefix('#')
            .filter(|_| !self.refs.iter().any(|r| r == reference))
            .and_then(|pointer| self.root.pointer(pointer));
        let Some(target) = target else {
            return Ty::atom("unknown");
        };
        self.refs.push(reference.to_owned());
        let ty = self.schema(target);
        self.refs.pop();
        ty
    }

    fn array(&mut self, map: &Map<String, Value>) -> Ty {
        let tuple = map
            .get("prefixItems")
            .or_else(|| map.get("items").filter(|i| i.is_array()))
            .and_then(Value::as_array);
        if let Some(items) = tuple {
            let items: Vec<String> = items.iter().map(|i| self.schema(i).text()).collect();
            return Ty::Atom(format!("[{}]", items.join(", ")));
        }
        let item = match map.get("items") {
            Some(items) => self.schema(items),
            None => Ty::atom("unknown"),
        };
        Ty::Atom(format!("{}[]", item.array_operand()))
    }

    /// `allOf`: one object when the schema and every part are plain objects
    /// (after `$ref`s), else an intersection.
    fn all_of(&mut self, map: &Map<String, Value>, parts: &[Value]) -> Ty {
        let mut maps: Vec<&Map<String, Value>> = Vec::new();
        if map.contains_key("properties") {
            maps.push(map);
        }
        let mut plain = true;
        for part in parts {
            match self.resolve(part).and_then(Value::as_object) {
                Some(m) if is_plain_object(m) => maps.push(m),
                _ => plain = false,
            }
        }
        if plain {
            return self.object(&maps);
        }
        let mut members = Vec::new();
        if map.contains_key("properties") {
            members.push(self.object(&[map]));
        }
        members.extend(parts.iter().map(|p| self.schema(p)));
        intersection(members)
    }

    /// `schema` with its `$ref`s followed (a few at most).
    fn resolve<'v>(&self, mut schema: &'v Value) -> Option<&'v Value>
    where
        'a: 'v,
    {
        for _ in 0..8 {
            match schema.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    schema = self.root.pointer(reference.strip_prefix('#')?)?;
                }
                None => return Some(schema),
            }
        }
        None
    }

    /// One object type from the properties of `maps`, merged in order.
    fn object(&mut self, maps: &[&Map<String, Value>]) -> Ty {
        let mut properties: Vec<(&String, &Value)> = Vec::new();
        let mut required: Vec<&str> = Vec::new();
        let mut rest: Option<Ty> = None;
        let mut closed = false;
        for map in maps {
            if let Some(props) = map.get("properties").and_then(Value::as_object) {
                for (name, schema) in props {
                    match properties.iter_mut().find(|(n, _)| *n == name) {
                        Some(slot) => slot.1 = schema,
                        None => properties.push((name, schema)),
                    }
                }
            }
            if let Some(names) = map.get("required").and_then(Value::as_array) {
                required.extend(names.iter().filter_map(Value::as_str));
            }
            let mut values: Vec<&Value> = map
                .get("patternProperties")
                .and_then(Value::as_object)
                .map(|p| p.values().collect())
                .unwrap_or_default();
            match map.get("additionalProperties") {
                Some(Value::Bool(false)) => closed = true,
                Some(schema @ Value::Object(m)) if !m.is_empty() => values.push(schema),
                _ => {}
            }
            if !values.is_empty() {
                let tys: Vec<Ty> = values.into_iter().map(|v| self.schema(v)).collect();
                rest = Some(union(rest.into_iter().chain(tys)));
            }
        }
        if properties.is_empty() {
            return match rest {
                Some(ty) => Ty::Atom(format!("Record<string, {}>", ty.text())),
                None if closed => Ty::atom("{}"),
                None => Ty::atom("Record<string, unknown>"),
            };
        }
        let mut fields: Vec<String> = Vec::with_capacity(properties.len() + 1);
        for (name, schema) in properties {
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let doc = if self.docs {
                let doc = summary(
                    schema
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                    PROPERTY_DOC,
                );
                if doc.is_empty() {
                    doc
                } else {
                    format!("/** {doc} */ ")
                }
            } else {
                String::new()
            };
            let ty = self.schema(schema).text();
            fields.push(format!("{doc}{}{optional}: {ty}", property_name(name)));
        }
        if let Some(ty) = rest {
            fields.push(format!("[key: string]: {}", ty.text()));
        }
        Ty::Atom(format!("{{ {} }}", fields.join("; ")))
    }
}

/// Whether an `allOf` part can merge into one object type.
fn is_plain_object(map: &Map<String, Value>) -> bool {
    map.get("type").is_none_or(|t| t == "object")
        && map.contains_key("properties")
        && !["anyOf", "oneOf", "allOf", "enum", "const", "items", "$ref"]
            .iter()
            .any(|k| map.contains_key(*k))
}

/// A JSON value as a literal type; objects and arrays are `unknown`.
fn literal(value: &Value) -> Ty {
    match value {
        Value::Object(_) | Value::Array(_) => Ty::atom("unknown"),
        other => Ty::Atom(other.to_string()),
    }
}

/// The first sentence of `text` (up to a sentence end, or a line break not
/// followed by a lower-case continuation), on one line, without an
/// "(Optional)" prefix, cut at a word boundary to `max` characters with `…`,
/// safe inside `/** … */`.
fn summary(text: &str, max: usize) -> String {
    let mut text = text.trim();
    // `?` says it already.
    for prefix in ["(Optional)", "(optional)", "Optional:", "Optional."] {
        text = text.strip_prefix(prefix).unwrap_or(text).trim_start();
    }
    let mut end = text.len();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let sentence_end = matches!(c, '.' | '!' | '?')
            && next.is_none_or(char::is_whitespace)
            && !(c == '.'
                && text[..i]
                    .rsplit(char::is_whitespace)
                    .next()
                    .is_some_and(|w| w.contains('.')));
        if sentence_end {
            end = i + c.len_utf8();
            break;
        }
        if c == '\n' {
            let rest = text[i..].trim_start();
            if !rest.starts_with(|n: char| n.is_lowercase()) {
                end = i;
                break;
            }
        }
    }
    let one_line = text[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = if one_line.chars().count() <= max {
        one_line
    } else {
        let at = one_line
            .char_indices()
            .nth(max.saturating_sub(1))
            .map_or(one_line.len(), |(i, _)| i);
        let head = &one_line[..at];
        let head = head.rfind(' ').map_or(head, |space| &head[..space]);
        format!("{}…", head.trim_end_matches([',', ';', ':', ' ']))
    };
    cut.replace("*/", "*\\/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ty(schema: Value) -> String {
        type_of(&schema)
    }

    fn tool<'a>(name: &'a str, input_schema: &'a Value) -> ToolShape<'a> {
        ToolShape {
            name,
            description: "",
            input_schema,
            output_schema: None,
        }
    }

    #[test]
    fn primitives_and_unknown() {
        assert_eq!(ty(json!({"type": "string", "format": "uuid"})), "string");
        assert_eq!(ty(json!({"type": "integer", "minimum": 1})), "number");
        assert_eq!(ty(json!({"type": "number"})), "number");
        assert_eq!(ty(json!({"type": "boolean"})), "boolean");
        assert_eq!(ty(json!({"type": "null"})), "null");
        assert_eq!(ty(json!({})), "unknown");
        assert_eq!(ty(json!(true)), "unknown");
        assert_eq!(ty(json!(false)), "never");
        assert_eq!(ty(json!({"type": "frobnicate"})), "unknown");
        assert_eq!(ty(json!({"description": "anything"})), "unknown");
    }

    #[test]
    fn arrays_and_tuples() {
        assert_eq!(
            ty(json!({"type": "array", "items": {"type": "string"}})),
            "string[]"
        );
        assert_eq!(ty(json!({"type": "array"})), "unknown[]");
        assert_eq!(
            ty(json!({"type": "array", "items": {"type": ["string", "number"]}})),
            "(string | number)[]"
        );
        assert_eq!(
            ty(json!({"type": "array", "items": {"type": "array", "items": {"enum": [1, 2]}}})),
            "(1 | 2)[][]"
        );
        assert_eq!(
            ty(json!({"type": "array", "items": [{"type": "string"}, {"type": "number"}]})),
            "[string, number]"
        );
        assert_eq!(
            ty(json!({"prefixItems": [{"type": "number"}, {"type": "number"}]})),
            "[number, number]"
        );
    }

    #[test]
    fn objects_required_optional_and_quoted() {
        let schema = json!({
            "type": "object",
            "properties": {
                "b": {"type": "string"},
                "a": {"type": "number"},
                "content-type": {"type": "string"},
                "delete": {"type": "boolean"},
                "$x": {"type": "null"},
                "2nd": {},
            },
            "required": ["a", "content-type", "missing"],
        });
        assert_eq!(
            ty(schema),
            r#"{ b?: string; a: number; "content-type": string; delete?: boolean; $x?: null; "2nd"?: unknown }"#
        );
        assert_eq!(
            ty(json!({"properties": {"x": {"type": "string"}}})),
            "{ x?: string }"
        );
    }

    #[test]
    fn open_and_closed_objects() {
        assert_eq!(ty(json!({"type": "object"})), "Record<string, unknown>");
        assert_eq!(
            ty(json!({"type": "object", "additionalProperties": true})),
            "Record<string, unknown>"
        );
        assert_eq!(
            ty(json!({"type": "object", "additionalProperties": {}})),
            "Record<string, unknown>"
        );
        assert_eq!(
            ty(json!({"type": "object", "additionalProperties": false})),
            "{}"
        );
        assert_eq!(
            ty(json!({"type": "object", "additionalProperties": {"type": "number"}})),
            "Record<string, number>"
        );
        assert_eq!(
            ty(json!({
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
                "additionalProperties": {"type": ["string", "number"]},
            })),
            "{ id: string; [key: string]: string | number }"
        );
        assert_eq!(
            ty(json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}})),
            "Record<string, string>"
        );
        // An open object with known properties lists only those.
        assert_eq!(
            ty(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true})
            ),
            "{ a?: string }"
        );
    }

    #[test]
    fn enums_and_consts_are_literals() {
        assert_eq!(
            ty(json!({"type": "string", "enum": ["open", "closed", "all"]})),
            r#""open" | "closed" | "all""#
        );
        assert_eq!(
            ty(json!({"enum": [1, 2.5, true, null, "say \"hi\""]})),
            r#"1 | 2.5 | true | null | "say \"hi\"""#
        );
        assert_eq!(ty(json!({"enum": ["a", "a"]})), r#""a""#);
        assert_eq!(ty(json!({"const": "workspace"})), r#""workspace""#);
        assert_eq!(ty(json!({"type": "boolean", "const": true})), "true");
        assert_eq!(ty(json!({"const": {"a": 1}})), "unknown");
    }

    #[test]
    fn unions_and_nullables() {
        assert_eq!(
            ty(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            "string | null"
        );
        assert_eq!(
            ty(json!({"type": ["object", "null"]})),
            "Record<string, unknown> | null"
        );
        assert_eq!(
            ty(json!({"type": "string", "nullable": true})),
            "string | null"
        );
        assert_eq!(
            ty(
                json!({"oneOf": [{"type": "string"}, {"type": "string"}, {"anyOf": [{"type": "number"}, {"type": "string"}]}]})
            ),
            "string | number"
        );
        assert_eq!(ty(json!({"anyOf": [{"type": "string"}, {}]})), "unknown");
        assert_eq!(ty(json!({"anyOf": [{"type": "string"}, false]})), "string");
        // Parts that only constrain leave the base type.
        assert_eq!(
            ty(json!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
            })),
            "{ a?: string; b?: string }"
        );
        assert_eq!(
            ty(json!({"type": "string", "anyOf": [{"enum": ["a", "b"]}, {"pattern": "^x"}]})),
            r#""a" | "b" | string"#
        );
        // Properties beside typed alternatives hold for each.
        assert_eq!(
            ty(json!({
                "properties": {"id": {"type": "string"}},
                "oneOf": [{"properties": {"x": {"type": "number"}}}, {"properties": {"y": {"type": "number"}}}],
            })),
            "{ id?: string } & ({ x?: number } | { y?: number })"
        );
    }

    #[test]
    fn all_of_merges_plain_objects_else_intersects() {
        let schema = json!({
            "$defs": {"Base": {"type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "string"}}, "required": ["id"]}},
            "allOf": [
                {"$ref": "#/$defs/Base"},
                {"properties": {"n": {"type": "number"}, "extra": {"type": "boolean"}}, "required": ["n"]},
            ],
        });
        assert_eq!(ty(schema), "{ id: string; n: number; extra?: boolean }");
        assert_eq!(
            ty(
                json!({"allOf": [{"properties": {"a": {"type": "string"}}}, {"anyOf": [{"type": "string"}, {"type": "number"}]}]})
            ),
            "{ a?: string } & (string | number)"
        );
        assert_eq!(
            ty(json!({"allOf": [{"type": "string"}, {"minLength": 1}]})),
            "string"
        );
        assert_eq!(
            ty(json!({"type": "array", "items": {"allOf": [{"type": "string"}, {"enum": ["a"]}]}})),
            r#"(string & "a")[]"#
        );
    }

    #[test]
    fn refs_are_inlined_with_a_recursion_guard() {
        let schema = json!({
            "definitions": {"Tag": {"type": "string", "enum": ["a", "b"]}},
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {"tag": {"$ref": "#/definitions/Tag"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                    "required": ["tag"],
                },
            },
            "$ref": "#/$defs/Node",
        });
        assert_eq!(ty(schema), r#"{ tag: "a" | "b"; children?: unknown[] }"#);
        assert_eq!(ty(json!({"$ref": "#/$defs/Missing"})), "unknown");
        assert_eq!(
            ty(json!({"$ref": "https://example.com/schema.json"})),
            "unknown"
        );
        // Refs that loop through each other end too.
        let cycle = json!({
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
            "allOf": [{"$ref": "#/$defs/A"}],
        });
        assert_eq!(ty(cycle), "unknown");
    }

    #[test]
    fn depth_is_bounded() {
        let mut schema = json!({"type": "string"});
        for _ in 0..40 {
            schema = json!({"type": "array", "items": schema});
        }
        let text = ty(schema);
        assert!(text.starts_with("unknown[]"), "{text}");
        assert_eq!(text.matches("[]").count(), MAX_DEPTH);
    }

    #[test]
    fn names_and_parameters() {
        assert!(is_identifier_name("mcp__github__list_issues"));
        assert!(
            is_identifier_name("$ref") && is_identifier_name("_x9") && is_identifier_name("delete")
        );
        assert!(
            !is_identifier_name("my-tool") && !is_identifier_name("9x") && !is_identifier_name("")
        );
        assert!(!is_identifier_name("a.b") && !is_identifier_name("café"));

        let none = json!({"type": "object", "properties": {}});
        assert_eq!(
            declaration(&tool("my-tool", &none), Style::Verbose),
            r#""my-tool"(): Promise<string>;"#
        );
        let open = json!({"type": "object", "additionalProperties": true});
        assert_eq!(
            declaration(&tool("Any", &open), Style::Verbose),
            "Any(input?: Record<string, unknown>): Promise<string>;"
        );
        let closed = json!({"type": "object", "additionalProperties": false});
        assert_eq!(
            declaration(&tool("Now", &closed), Style::Verbose),
            "Now(): Promise<string>;"
        );
        let optional = json!({"type": "object", "properties": {"page": {"type": "integer"}}});
        assert_eq!(
            declaration(&tool("List", &optional), Style::Verbose),
            "List(input?: { page?: number }): Promise<string>;"
        );
        let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
        assert_eq!(
            declaration(&tool("Env", &map), Style::Verbose),
            "Env(input?: Record<string, string>): Promise<string>;"
        );
        let union = json!({"anyOf": [{"type": "string"}, {"type": "number"}]});
        assert_eq!(
            declaration(&tool("Any", &union), Style::Verbose),
            "Any(input: string | number): Promise<string>;"
        );
    }

    #[test]
    fn output_schema_types_the_promise() {
        let input =
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
        let output = json!({
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Hit"}}, "total": {"type": "integer"}},
            "required": ["items", "total"],
            "$defs": {"Hit": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}},
        });
        let shape = ToolShape {
            name: "Search",
            description: "Searches the web.",
            input_schema: &input,
            output_schema: Some(&output),
        };
        assert_eq!(
            declaration(&shape, Style::Compact),
            "/** Searches the web. */\nSearch(input: { q: string }): Promise<{ items: { url: string }[]; total: number }>;"
        );
    }

    #[test]
    fn docs_are_first_sentences_on_one_line() {
        assert_eq!(
            summary("Reads a file. Returns lines.", 120),
            "Reads a file."
        );
        assert_eq!(
            summary("  Lists things e.g. files, i.e. entries. More.", 120),
            "Lists things e.g. files, i.e. entries."
        );
        assert_eq!(
            summary("Version 1.5 of it\nis here. Yes", 120),
            "Version 1.5 of it is here."
        );
        assert_eq!(
            summary("Notion | Create a page\nError Responses:\n400", 120),
            "Notion | Create a page"
        );
        assert_eq!(summary("Opens README.md now", 120), "Opens README.md now");
        assert_eq!(summary("(Optional) The page size.", 120), "The page size.");
        assert_eq!(
            summary("Closes a /* comment */ early", 120),
            r"Closes a /* comment *\/ early"
        );
        assert_eq!(summary("one two three four", 12), "one two…");
        assert_eq!(summary("", 12), "");

        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Where the file is.\nAbsolute."},
                "depth": {"type": "integer", "description": ""},
            },
            "required": ["path"],
        });
        let shape = ToolShape {
            name: "Stat",
            description: "Describes a file: its size, its kind, its owner, its permissions and the times it was created, changed and read.",
            input_schema: &schema,
            output_schema: None,
        };
        assert_eq!(
            declaration(&shape, Style::Verbose),
            "/** Describes a file: its size, its kind, its owner, its permissions and the times it was created, changed and read. */\n\
             Stat(input: { /** Where the file is. */ path: string; depth?: number }): Promise<string>;"
        );
        assert_eq!(
            declaration(&shape, Style::Compact),
            "/** Describes a file: its size, its kind, its owner, its permissions and the times… */\n\
             Stat(input: { path: string; depth?: number }): Promise<string>;"
        );
    }

    fn catalog() -> Vec<Value> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../eval/toolsearch/catalog.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn shape(tool: &Value) -> ToolShape<'_> {
        ToolShape {
            name: tool["name"].as_str().unwrap(),
            description: tool["description"].as_str().unwrap(),
            input_schema: &tool["inputSchema"],
            output_schema: None,
        }
    }

    fn real(server: &str, name: &str, style: Style) -> String {
        let catalog = catalog();
        let tool = catalog
            .iter()
            .find(|t| t["server"] == server && t["name"] == name)
            .unwrap();
        declaration(&shape(tool), style)
    }

    #[test]
    fn real_declarations() {
        assert_eq!(
            real("github", "create_issue", Style::Verbose),
            r#"/** Create a new issue in a GitHub repository */
create_issue(input: { owner: string; repo: string; title: string; body?: string; assignees?: string[]; milestone?: number; labels?: string[] }): Promise<string>;"#
        );
        assert_eq!(
            real("notion", "API-post-page", Style::Compact),
            r#"/** Notion | Create a page */
"API-post-page"(input: { parent: { page_id: string } | { type?: "database_id"; database_id: string } | { type: "workspace" } | string; properties: Record<string, unknown> | string; children?: (string | Record<string, unknown>)[]; icon?: string; cover?: string }): Promise<string>;"#
        );
        assert_eq!(
            real("notion", "API-post-page", Style::Verbose),
            r#"/** Notion | Create a page */
"API-post-page"(input: { parent: { page_id: string } | { type?: "database_id"; database_id: string } | { type: "workspace" } | string; properties: Record<string, unknown> | string; /** The content to be rendered on the new page, represented as… */ children?: (string | Record<string, unknown>)[]; /** The icon of the new page. */ icon?: string; /** The cover image of the new page, represented as a [file… */ cover?: string }): Promise<string>;"#
        );
        assert_eq!(
            real("notion", "API-get-self", Style::Compact),
            r#"/** Notion | Retrieve your token's bot user */
"API-get-self"(): Promise<string>;"#
        );
        assert_eq!(
            real("aws-cloudwatch", "analyze_metric", Style::Compact),
            r#"/** Analyzes CloudWatch metric data to determine seasonality, trend, data density… */
analyze_metric(input: { namespace: string; metric_name: string; dimensions?: { name: string; value: string }[]; region?: string | null; profile_name?: string | null; statistic?: "AVG" | "COUNT" | "MAX" | "MIN" | "SUM" | "Average" | "Sum" | "Maximum" | "Minimum" | "SampleCount" }): Promise<string>;"#
        );
        assert_eq!(
            real("linear", "linear_updateWorkflowState", Style::Verbose),
            r#"/** Update a workflow state. */
linear_updateWorkflowState(input: { /** ID of the workflow state to update */ id: string; name?: string; color?: string | null; description?: string | null; position?: number }): Promise<string>;"#
        );
        assert_eq!(
            real("linear", "linear_rotateWebhookSecret", Style::Compact),
            r#"/** Rotate an ordinary workspace webhook signing secret. */
linear_rotateWebhookSecret(input: { id: string; confirmSecretExposure: true }): Promise<string>;"#
        );
        assert_eq!(
            real("mongodb", "count", Style::Compact),
            r#"/** Gets the number of documents in a MongoDB collection using… */
count(input: { connectionId: string; database: string; collection: string; query?: Record<string, unknown> }): Promise<string>;"#
        );
        assert_eq!(
            real("airtable", "create_record", Style::Verbose),
            r#"/** Create a new record in a table */
create_record(input: { /** The ID of the base */ baseId: string; /** The ID or name of the table */ tableId: string; /** The fields for the new record */ fields: Record<string, unknown> }): Promise<string>;"#
        );
    }

    /// The figures in the module's docs: mean bytes per declaration over the
    /// whole catalog (printed with `--nocapture`; checked within 10%).
    #[test]
    fn catalog_figures() {
        let catalog = catalog();
        let shapes: Vec<ToolShape<'_>> = catalog.iter().map(shape).collect();
        assert_eq!(shapes.len(), 1165);
        for (style, documented) in [(Style::Compact, 221), (Style::Verbose, 409)] {
            let mut sizes: Vec<usize> =
                shapes.iter().map(|s| declaration(s, style).len()).collect();
            sizes.sort_unstable();
            let mean = sizes.iter().sum::<usize>() / sizes.len();
            let median = sizes[sizes.len() / 2];
            println!(
                "{style:?}: mean {mean}, median {median}, max {}",
                sizes[sizes.len() - 1]
            );
            assert!(
                mean.abs_diff(documented) * 10 <= documented,
                "{style:?} mean {mean}"
            );
        }
    }

    #[test]
    fn budget_keeps_whole_declarations() {
        let catalog = catalog();
        let shapes: Vec<ToolShape<'_>> = catalog.iter().take(300).map(shape).collect();
        let out = declarations(&shapes, 8000);
        println!(
            "kept {} of 300 in {} bytes",
            300 - out.omitted.len(),
            out.text.len()
        );
        assert!(out.text.len() <= 8000);
        assert!(
            out.text.len() > 7500,
            "the budget is used: {}",
            out.text.len()
        );

        // The text is exactly the kept tools' declarations, whole and in
        // order, each compact or verbose; the rest are named in order.
        let (mut rest, mut omitted, mut verbose) = (out.text.as_str(), Vec::new(), 0);
        for (i, tool) in shapes.iter().enumerate() {
            let sep = if rest.len() == out.text.len() {
                ""
            } else {
                "\n"
            };
            let compact = format!("{sep}{}", declaration(tool, Style::Compact));
            let full = format!("{sep}{}", declaration(tool, Style::Verbose));
            if let Some(r) = rest.strip_prefix(&full) {
                rest = r;
                verbose += usize::from(full != compact);
            } else if let Some(r) = rest.strip_prefix(&compact) {
                rest = r;
            } else {
                omitted.push(tool.name.to_owned());
                assert!(i > 0);
            }
        }
        assert_eq!(rest, "");
        assert_eq!(omitted, out.omitted);
        assert!(out.omitted.len() > 200 && verbose > 0, "{verbose} verbose");

        // Room for everything: everything verbose.
        let few = &shapes[..3];
        let all = declarations(few, usize::MAX);
        let verbose: Vec<String> = few.iter().map(|t| declaration(t, Style::Verbose)).collect();
        assert_eq!(all.text, verbose.join("\n"));
        assert!(all.omitted.is_empty());
        // No room: nothing.
        assert_eq!(
            declarations(few, 10),
            Declarations {
                text: String::new(),
                omitted: few.iter().map(|t| t.name.to_owned()).collect(),
            }
        );
    }
}
