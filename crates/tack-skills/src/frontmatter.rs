//! Reading a `SKILL.md`: the YAML frontmatter between two `---` lines, then
//! the instructions.
//!
//! Two readers share one parse. [`parse`] is lenient, as the Agent Skills
//! client guide asks of hosts: a name that does not match its folder or is
//! too long is a warning and the skill loads; a value with an unquoted colon
//! (`description: Use when: the user asks`, invalid YAML) is read as the
//! author meant it, with a warning; only a file with no frontmatter, YAML
//! that cannot be read even so, or no description is skipped, with the file
//! and line that say why. [`check`] is strict, like the spec's reference
//! validator (`skills-ref validate`): every rule broken is a [`Problem`] of
//! a [`ProblemClass`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

/// The longest name the spec allows, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// The longest description the spec allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// The longest `compatibility` the spec allows, in characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// The keys of the Agent Skills specification.
pub const SPEC_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Keys Claude Code reads beyond the specification: understood by tack
/// (parsed, shown and checked), not reported as unknown.
pub const CLAUDE_CODE_KEYS: &[&str] = &[
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "model",
    "context",
    "agent",
    "hooks",
    "paths",
    "when_to_use",
    "version",
];

/// The frontmatter of a skill, every field the author wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    /// `metadata`: a string map (other scalars are turned into strings).
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools` (experimental): permission-rule-like entries such as
    /// `Bash(git:*)` and `Read`. Shown to the model and recorded; it grants
    /// nothing.
    pub allowed_tools: Vec<String>,
    /// Claude Code: keep the skill out of the model's catalog (a person can
    /// still invoke it).
    pub disable_model_invocation: bool,
    /// Claude Code: whether a person can invoke it as `/name` (default yes).
    pub user_invocable: bool,
    pub argument_hint: Option<String>,
    pub model: Option<String>,
    /// Claude Code: `fork` runs the skill in a sub-agent.
    pub context: Option<String>,
    /// Claude Code: hooks active while the skill is in use (kept as JSON).
    pub hooks: Option<Value>,
    /// Claude Code: globs of the files the skill is about.
    pub paths: Vec<String>,
    /// The whole frontmatter as JSON (what `skills/list` sends verbatim).
    pub raw: Map<String, Value>,
}

/// A parsed `SKILL.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillFile {
    pub frontmatter: Frontmatter,
    /// The instructions after the frontmatter.
    pub body: String,
    /// Lenient readings: what was wrong but read anyway, each with its line.
    pub warnings: Vec<Problem>,
}

/// How bad a problem is, for `tack skills check`'s exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProblemClass {
    /// The file cannot be read as a skill: missing, no frontmatter, YAML
    /// that does not parse or is not a mapping.
    Unreadable,
    /// `name` or `description` breaks the specification's rules.
    Required,
    /// An optional field is invalid, or a key is unknown.
    Optional,
}

impl ProblemClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemClass::Unreadable => "unreadable",
            ProblemClass::Required => "required-field",
            ProblemClass::Optional => "optional-field",
        }
    }
}

/// One thing wrong with a `SKILL.md`, at a line of the file (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub class: ProblemClass,
    pub line: usize,
    pub message: String,
}

impl Problem {
    fn new(class: ProblemClass, line: usize, message: impl Into<String>) -> Self {
        Self {
            class,
            line,
            message: message.into(),
        }
    }

    /// `file:line: message`.
    pub fn at(&self, file: &Path) -> String {
        format!("{}:{}: {}", file.display(), self.line, self.message)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The frontmatter's YAML, its first line in the file, and the body.
struct Split<'a> {
    yaml: String,
    body: &'a str,
}

fn split(text: &str) -> Result<Split<'_>, Problem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rest = text;
    let first = take_line(&mut rest);
    if first.map(str::trim_end) != Some("---") {
        return Err(Problem::new(
            ProblemClass::Unreadable,
            1,
            "a SKILL.md starts with a YAML frontmatter between two `---` lines (name, description); this file has none",
        ));
    }
    let mut yaml = String::new();
    while let Some(line) = take_line(&mut rest) {
        if line.trim_end() == "---" {
            return Ok(Split { yaml, body: rest });
        }
        yaml.push_str(line);
        yaml.push('\n');
    }
    Err(Problem::new(
        ProblemClass::Unreadable,
        1,
        "the frontmatter opened on line 1 is never closed by a `---` line",
    ))
}

/// The next line without its end, advancing `rest`; `None` at the end.
fn take_line<'a>(rest: &mut &'a str) -> Option<&'a str> {
    if rest.is_empty() {
        return None;
    }
    let (line, tail) = match rest.find('\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (*rest, ""),
    };
    *rest = tail;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// Parses the YAML into a JSON object. An unquoted colon in a value is
/// retried quoted; `quoted` says which lines were.
fn yaml_object(yaml: &str) -> Result<(Map<String, Value>, Vec<usize>), Problem> {
    let first = match serde_saphyr::from_str::<Value>(yaml) {
        Ok(value) => return object(value).map(|o| (o, Vec::new())),
        Err(e) => e,
    };
    if let Some((fixed, lines)) = quote_colon_values(yaml)
        && let Ok(value) = serde_saphyr::from_str::<Value>(&fixed)
    {
        return object(value).map(|o| (o, lines));
    }
    // Line 1 of the YAML is line 2 of the file.
    let line = first.location().map_or(2, |l| l.line() as usize + 1);
    let message = first.without_snippet().to_string();
    let message = message.lines().next().unwrap_or("invalid YAML").to_owned();
    Err(Problem::new(
        ProblemClass::Unreadable,
        line,
        format!("the frontmatter is not valid YAML ({message})"),
    ))
}

fn object(value: Value) -> Result<Map<String, Value>, Problem> {
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(Problem::new(
            ProblemClass::Unreadable,
            2,
            format!(
                "the frontmatter must be a YAML mapping of keys to values, not a {}",
                json_kind(&other)
            ),
        )),
    }
}

/// Top-level `key: value` lines whose plain value holds `": "` (which YAML
/// reads as a nested mapping and refuses), with the value single-quoted.
fn quote_colon_values(yaml: &str) -> Option<(String, Vec<usize>)> {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut lines = Vec::new();
    for (i, line) in yaml.lines().enumerate() {
        if let Some((key, value)) = top_level_pair(line)
            && (value.contains(": ") || value.ends_with(':'))
            && !value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!'])
        {
            out.push_str(key);
            out.push_str(": '");
            out.push_str(&value.replace('\'', "''"));
            out.push_str("'\n");
            lines.push(i + 2);
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    (!lines.is_empty()).then_some((out, lines))
}

/// `key: value` at column 0, with a non-empty value.
fn top_level_pair(line: &str) -> Option<(&str, &str)> {
    if line.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    let (key, value) = line.split_once(':')?;
    let value = value.trim();
    let key_ok = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    (key_ok && !value.is_empty()).then_some((key, value))
}

/// The line (1-based, in the file) where `key` is set, else 2.
fn key_line(yaml: &str, key: &str) -> usize {
    yaml.lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or(2, |i| i + 2)
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

/// A scalar as a string (YAML `version: 1.0` is a number to the parser).
fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn bool_value(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "true" || s == "false" => Some(s == "true"),
        _ => None,
    }
}

/// `allowed-tools`: a space- or comma-separated string (spaces inside
/// parentheses belong to the entry: `Bash(git log:*)`) or a list.
pub fn split_tool_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            c if depth == 0 && (c.is_whitespace() || c == ',') => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// What the frontmatter holds, read leniently, with a problem for each
/// field that does not have the shape the spec gives it.
fn fields(raw: Map<String, Value>, yaml: &str) -> (Frontmatter, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut bad = |key: &str, class: ProblemClass, message: String| {
        problems.push(Problem::new(class, key_line(yaml, key), message));
    };
    let mut f = Frontmatter {
        user_invocable: true,
        ..Frontmatter::default()
    };
    for (key, value) in &raw {
        let text = || scalar_string(value);
        match key.as_str() {
            "name" => match value {
                Value::String(s) => f.name = Some(s.clone()),
                other => bad(
                    key,
                    ProblemClass::Required,
                    format!("`name` must be a string, not a {}", json_kind(other)),
                ),
            },
            "description" => match text() {
                Some(s) => f.description = Some(s),
                None => bad(
                    key,
                    ProblemClass::Required,
                    format!("`description` must be text, not a {}", json_kind(value)),
                ),
            },
            "license" => f.license = text(),
            "compatibility" => f.compatibility = text(),
            "argument-hint" => f.argument_hint = text(),
            "model" => f.model = text(),
            "context" => f.context = text(),
            "metadata" => match value {
                Value::Object(map) => {
                    for (k, v) in map {
                        match scalar_string(v) {
                            Some(s) => {
                                f.metadata.insert(k.clone(), s);
                            }
                            None => bad(
                                key,
                                ProblemClass::Optional,
                                format!("`metadata.{k}` must be a string, not a {}", json_kind(v)),
                            ),
                        }
                    }
                }
                other => bad(
                    key,
                    ProblemClass::Optional,
                    format!(
                        "`metadata` must be a mapping of strings, not a {}",
                        json_kind(other)
                    ),
                ),
            },
            "allowed-tools" => match value {
                Value::String(s) => f.allowed_tools = split_tool_list(s),
                Value::Array(items) => {
                    f.allowed_tools = items.iter().filter_map(scalar_string).collect()
                }
                other => bad(
                    key,
                    ProblemClass::Optional,
                    format!(
                        "`allowed-tools` must be a space-separated string, not a {}",
                        json_kind(other)
                    ),
                ),
            },
            "paths" => match value {
                Value::String(s) => f.paths = split_tool_list(s),
                Value::Array(items) => f.paths = items.iter().filter_map(scalar_string).collect(),
                other => bad(
                    key,
                    ProblemClass::Optional,
                    format!(
                        "`paths` must be a list of globs, not a {}",
                        json_kind(other)
                    ),
                ),
            },
            "hooks" => f.hooks = Some(value.clone()),
            "disable-model-invocation" | "user-invocable" => match bool_value(value) {
                Some(b) if key == "user-invocable" => f.user_invocable = b,
                Some(b) => f.disable_model_invocation = b,
                None => bad(
                    key,
                    ProblemClass::Optional,
                    format!("`{key}` must be true or false, not a {}", json_kind(value)),
                ),
            },
            _ => {}
        }
    }
    f.raw = raw;
    (f, problems)
}

/// Reads a `SKILL.md` leniently. `folder` is the name of its folder (the
/// name's default and what it should equal). `Err`: why the skill cannot
/// be loaded (no frontmatter, unreadable YAML, no description).
pub fn parse(text: &str, folder: &str) -> Result<SkillFile, Problem> {
    let split = split(text)?;
    let (raw, quoted) = yaml_object(&split.yaml)?;
    let (mut frontmatter, problems) = fields(raw, &split.yaml);
    let mut warnings = Vec::new();
    for line in quoted {
        warnings.push(Problem::new(
            ProblemClass::Unreadable,
            line,
            "the value holds an unquoted `: ` (invalid YAML); it was read as one string. Quote it",
        ));
    }
    for p in problems {
        if p.class == ProblemClass::Required {
            return Err(p);
        }
        warnings.push(p);
    }
    let description = frontmatter
        .description
        .as_deref()
        .map(str::trim)
        .unwrap_or("");
    if description.is_empty() {
        return Err(Problem::new(
            ProblemClass::Required,
            key_line(&split.yaml, "description"),
            "the frontmatter has no `description`, which says what the skill does and when to use it; the model could not choose it",
        ));
    }
    frontmatter.description = Some(description.to_owned());
    match frontmatter.name.as_deref().map(str::trim) {
        None | Some("") => frontmatter.name = Some(folder.to_owned()),
        Some(name) => {
            let line = key_line(&split.yaml, "name");
            match check_name(name) {
                // A name that cannot be one (`PDF Processing`) is not what
                // the model calls, a rule names or a URI holds: the
                // folder's name is, when it is valid.
                Err(why) if check_name(folder).is_ok() => {
                    warnings.push(Problem::new(
                        ProblemClass::Required,
                        line,
                        format!("{why}; the skill is called {folder:?}, its folder's name"),
                    ));
                    frontmatter.name = Some(folder.to_owned());
                }
                Err(why) => {
                    warnings.push(Problem::new(ProblemClass::Required, line, why));
                    frontmatter.name = Some(name.to_owned());
                }
                Ok(()) => {
                    if !same_name(name, folder) {
                        warnings.push(Problem::new(
                            ProblemClass::Required,
                            line,
                            format!("the name {name:?} is not its folder's name {folder:?}"),
                        ));
                    }
                    frontmatter.name = Some(name.to_owned());
                }
            }
        }
    }
    Ok(SkillFile {
        frontmatter,
        body: split.body.to_owned(),
        warnings,
    })
}

/// Whether two names are the same skill name (compared in NFKC form).
fn same_name(a: &str, b: &str) -> bool {
    a.nfkc().eq(b.nfkc())
}

/// The specification's name rules: 1–64 characters (after NFKC
/// normalisation), lowercase letters, digits and single hyphens, no hyphen
/// at either end.
pub fn check_name(name: &str) -> Result<(), String> {
    let normal: String = name.nfkc().collect();
    let count = normal.chars().count();
    if count == 0 {
        return Err("the name is empty".into());
    }
    if count > MAX_NAME_CHARS {
        return Err(format!(
            "the name is {count} characters; the limit is {MAX_NAME_CHARS}"
        ));
    }
    if normal.starts_with('-') || normal.ends_with('-') {
        return Err(format!(
            "the name {name:?} starts or ends with a hyphen; use lowercase letters, digits and single hyphens"
        ));
    }
    if normal.contains("--") {
        return Err(format!(
            "the name {name:?} has two hyphens in a row; use single hyphens"
        ));
    }
    if let Some(c) = normal
        .chars()
        .find(|&c| !(c == '-' || (c.is_alphanumeric() && !c.is_uppercase())))
    {
        return Err(format!(
            "the name {name:?} has {c:?}; use lowercase letters, digits and single hyphens (e.g. {:?})",
            suggest_name(name)
        ));
    }
    Ok(())
}

/// A valid name close to `name` (lowercased, other characters as hyphens).
pub fn suggest_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.nfkc().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    out.chars().take(MAX_NAME_CHARS).collect()
}

/// Checks a `SKILL.md` strictly, as the spec's reference validator does
/// (with Claude Code's fields understood). `folder`: its folder's name.
/// Empty: valid.
pub fn check(text: &str, folder: &str) -> Vec<Problem> {
    let split = match split(text) {
        Ok(s) => s,
        Err(p) => return vec![p],
    };
    let mut problems = Vec::new();
    let raw = match serde_saphyr::from_str::<Value>(&split.yaml) {
        Ok(value) => match object(value) {
            Ok(map) => map,
            Err(p) => return vec![p],
        },
        Err(_) => match yaml_object(&split.yaml) {
            // Readable only with the unquoted-colon repair: strict says so.
            Ok((map, lines)) => {
                for line in lines {
                    problems.push(Problem::new(
                        ProblemClass::Unreadable,
                        line,
                        "invalid YAML: the value holds an unquoted `: `; quote the value",
                    ));
                }
                map
            }
            Err(p) => return vec![p],
        },
    };
    let (f, field_problems) = fields(raw.clone(), &split.yaml);
    problems.extend(field_problems);
    let line = |key| key_line(&split.yaml, key);
    match f.name.as_deref() {
        // A name that is not a string is reported by `fields`.
        None if raw.contains_key("name") => {}
        None => problems.push(Problem::new(
            ProblemClass::Required,
            2,
            "the frontmatter has no `name` (required: the folder's name)",
        )),
        Some(name) => {
            if let Err(why) = check_name(name) {
                problems.push(Problem::new(ProblemClass::Required, line("name"), why));
            }
            if !same_name(name, folder) {
                problems.push(Problem::new(
                    ProblemClass::Required,
                    line("name"),
                    format!("the name {name:?} must equal its folder's name {folder:?}"),
                ));
            }
        }
    }
    match f.description.as_deref() {
        None if !raw.contains_key("description") => problems.push(Problem::new(
            ProblemClass::Required,
            2,
            "the frontmatter has no `description` (required: what the skill does and when to use it)",
        )),
        None => {}
        Some(d) if d.trim().is_empty() => problems.push(Problem::new(
            ProblemClass::Required,
            line("description"),
            "the description is empty",
        )),
        Some(d) => {
            let n = d.chars().count();
            if n > MAX_DESCRIPTION_CHARS {
                problems.push(Problem::new(
                    ProblemClass::Required,
                    line("description"),
                    format!("the description is {n} characters; the limit is {MAX_DESCRIPTION_CHARS}"),
                ));
            }
        }
    }
    if let Some(c) = &f.compatibility {
        let n = c.chars().count();
        if n == 0 || n > MAX_COMPATIBILITY_CHARS {
            problems.push(Problem::new(
                ProblemClass::Optional,
                line("compatibility"),
                format!(
                    "`compatibility` is {n} characters; it must be 1 to {MAX_COMPATIBILITY_CHARS}"
                ),
            ));
        }
    }
    for key in raw.keys() {
        if !SPEC_KEYS.contains(&key.as_str()) && !CLAUDE_CODE_KEYS.contains(&key.as_str()) {
            let known: Vec<&str> = SPEC_KEYS.iter().chain(CLAUDE_CODE_KEYS).copied().collect();
            let hint = closest(key, &known)
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            problems.push(Problem::new(
                ProblemClass::Optional,
                line(key),
                format!(
                    "unknown frontmatter key `{key}`{hint} (the spec's keys: {})",
                    SPEC_KEYS.join(", ")
                ),
            ));
        }
    }
    problems.sort_by_key(|p| (p.line, p.class));
    problems
}

/// The known key closest to `key`, when close enough to be a misspelling.
fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let key = key.to_ascii_lowercase().replace('_', "-");
    known
        .iter()
        .map(|k| (strsim::levenshtein(&key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(front: &str) -> String {
        format!("---\n{front}---\n# Body\nDo it.\n")
    }

    #[test]
    fn a_valid_skill_reads_every_field() {
        let text = skill(
            "name: pdf-tools\ndescription: Fill PDF forms. Use when the user has a PDF.\nlicense: MIT\ncompatibility: needs python3\nmetadata:\n  author: me\n  version: 1.0\nallowed-tools: Bash(python3 scripts/fill.py:*) Read\ndisable-model-invocation: false\nuser-invocable: false\nargument-hint: \"[file]\"\npaths:\n  - \"**/*.pdf\"\n",
        );
        let f = parse(&text, "pdf-tools").unwrap_or_else(|p| panic!("{p}"));
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
        let m = &f.frontmatter;
        assert_eq!(m.name.as_deref(), Some("pdf-tools"));
        assert_eq!(m.metadata.get("version").map(String::as_str), Some("1.0"));
        assert_eq!(
            m.allowed_tools,
            vec!["Bash(python3 scripts/fill.py:*)", "Read"]
        );
        assert!(!m.user_invocable);
        assert_eq!(m.paths, vec!["**/*.pdf"]);
        assert_eq!(f.body, "# Body\nDo it.\n");
        assert!(check(&text, "pdf-tools").is_empty());
    }

    #[test]
    fn an_unquoted_colon_is_read_as_meant_and_named() {
        let text = skill("name: x\ndescription: Use when: the user asks for x\n");
        let f = parse(&text, "x").unwrap_or_else(|p| panic!("{p}"));
        assert_eq!(
            f.frontmatter.description.as_deref(),
            Some("Use when: the user asks for x")
        );
        assert_eq!(f.warnings.len(), 1);
        assert_eq!(f.warnings[0].line, 3);
        let strict = check(&text, "x");
        assert_eq!(strict.len(), 1, "{strict:?}");
        assert_eq!(strict[0].class, ProblemClass::Unreadable);
    }

    #[test]
    fn bad_yaml_is_skipped_with_its_line() {
        let text = skill("name: x\ndescription: fine\nmetadata: [unclosed\n");
        let p = parse(&text, "x").unwrap_err();
        assert_eq!(p.class, ProblemClass::Unreadable);
        assert!(p.line >= 4, "{p:?}");
        assert!(p.message.contains("not valid YAML"), "{p}");
    }

    #[test]
    fn no_description_is_skipped() {
        let p = parse(&skill("name: x\n"), "x").unwrap_err();
        assert!(p.message.contains("no `description`"), "{p}");
        let p = parse("# just markdown\n", "x").unwrap_err();
        assert_eq!((p.class, p.line), (ProblemClass::Unreadable, 1));
        let p = parse("---\nname: x\n", "x").unwrap_err();
        assert!(p.message.contains("never closed"), "{p}");
    }

    #[test]
    fn a_mismatched_or_long_name_loads_with_a_warning() {
        let f =
            parse(&skill("name: other\ndescription: d\n"), "x").unwrap_or_else(|p| panic!("{p}"));
        assert_eq!(f.frontmatter.name.as_deref(), Some("other"));
        assert!(
            f.warnings[0].message.contains("not its folder"),
            "{:?}",
            f.warnings
        );
        let long = "a".repeat(70);
        let f = parse(&skill(&format!("name: {long}\ndescription: d\n")), &long)
            .unwrap_or_else(|p| panic!("{p}"));
        assert!(
            f.warnings[0].message.contains("limit is 64"),
            "{:?}",
            f.warnings
        );
        // A name that cannot be one: the folder's, when it can.
        let f = parse(&skill("name: PDF Processing\ndescription: d\n"), "pdf")
            .unwrap_or_else(|p| panic!("{p}"));
        assert_eq!(f.frontmatter.name.as_deref(), Some("pdf"));
        assert!(
            f.warnings[0]
                .message
                .contains("the skill is called \"pdf\""),
            "{:?}",
            f.warnings
        );
        // No name: the folder's.
        let f = parse(&skill("description: d\n"), "folder").unwrap_or_else(|p| panic!("{p}"));
        assert_eq!(f.frontmatter.name.as_deref(), Some("folder"));
    }

    #[test]
    fn strict_check_names_every_rule() {
        let cases: &[(&str, &str, &str)] = &[
            ("name: PDF\ndescription: d\n", "PDF", "lowercase"),
            ("name: -x\ndescription: d\n", "-x", "hyphen"),
            ("name: a--b\ndescription: d\n", "a--b", "two hyphens"),
            ("name: a_b\ndescription: d\n", "a_b", "'_'"),
            ("name: a\ndescription: d\n", "b", "must equal"),
            ("name: a\ndescription: \"\"\n", "a", "empty"),
            ("name: a\n", "a", "no `description`"),
            ("description: d\n", "a", "no `name`"),
            (
                "name: a\ndescription: d\ncompatibility: \"\"\n",
                "a",
                "compatibility",
            ),
            ("name: a\ndescription: d\nmetadata: [1]\n", "a", "metadata"),
            (
                "name: a\ndescription: d\nlicence: MIT\n",
                "a",
                "did you mean `license`",
            ),
            ("name: 123\ndescription: d\n", "123", "must be a string"),
        ];
        for (front, folder, expect) in cases {
            let problems = check(&skill(front), folder);
            assert!(
                problems.iter().any(|p| p.message.contains(expect)),
                "{front:?}: {problems:?}"
            );
        }
        assert_eq!(check(&skill("name: 123\ndescription: d\n"), "123").len(), 1);
        let long = format!("name: a\ndescription: {}\n", "d".repeat(1025));
        assert!(
            check(&skill(&long), "a")[0]
                .message
                .contains("1025 characters")
        );
        // Non-ASCII lowercase letters pass, as in the reference validator.
        assert!(check(&skill("name: café\ndescription: d\n"), "café").is_empty());
    }

    #[test]
    fn allowed_tools_keep_spaces_inside_parentheses() {
        assert_eq!(
            split_tool_list("Bash(git log:*) Read, Edit(src/**)"),
            vec!["Bash(git log:*)", "Read", "Edit(src/**)"]
        );
    }
}
