//! Settings files on disk: where they are, reading one as a JSON object,
//! and writing an "always allow" rule to the local file. What the files mean
//! is [`crate::Settings`]' business.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_protocol::Verdict;

use crate::error::{Error, Result};
use crate::rule::Level;

/// One settings file as loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsFile {
    /// Its level.
    pub level: Level,
    /// Its path.
    pub path: PathBuf,
    /// The whole JSON document (hooks and other keys included).
    pub value: Value,
    /// The text it was parsed from, kept so that warnings can name lines
    /// ([`crate::lint`]) without reading the file again; empty when the
    /// value was not read from text.
    pub text: String,
}

impl SettingsFile {
    /// Read one settings file of `level`: None when it does not exist; an
    /// error naming the file when it cannot be read or is not a JSON object.
    pub fn read(level: Level, path: impl Into<PathBuf>) -> Result<Option<SettingsFile>> {
        let path = path.into();
        Ok(read_text_json(&path)?.map(|(text, value)| SettingsFile {
            level,
            path,
            value,
            text,
        }))
    }
}

/// Read the layered settings files, weakest level first: user, project,
/// local and managed (`managed_settings`, e.g.
/// [`crate::Settings::default_managed_settings_path`]). At each of the
/// user, project and local levels Claude Code's file comes first and tack's
/// own second, so where one value wins (the mode) tack's file wins over
/// Claude Code's at the same level, and Claude Code's hooks run before
/// tack's; rules of every file combine (a deny in any file still denies):
///
/// | level | Claude Code's file | tack's file |
/// |---|---|---|
/// | user | `<claude_user_dir>/settings.json` (`~/.claude`) | `<user_config_dir>/settings.json` |
/// | project | `<project_root>/.claude/settings.json` | `<project_root>/.tack/settings.json` |
/// | local | `<project_root>/.claude/settings.local.json` | `<project_root>/.tack/settings.local.json` |
///
/// A level whose directory or path is None is left out; a missing file is
/// skipped. Every level fails closed: a file that exists but cannot be read
/// or is not a JSON object is an error naming it. Nothing is interpreted
/// here; [`crate::Settings::from_files`] compiles the `permissions`.
pub fn read_settings_files(
    project_root: &Path,
    user_config_dir: Option<&Path>,
    managed_settings: Option<&Path>,
) -> Result<Vec<SettingsFile>> {
    read_settings_files_with(project_root, None, user_config_dir, managed_settings)
}

/// [`read_settings_files`] with Claude Code's user directory (`~/.claude`,
/// or `CLAUDE_CONFIG_DIR`) too; None leaves its `settings.json` out.
pub fn read_settings_files_with(
    project_root: &Path,
    claude_user_dir: Option<&Path>,
    user_config_dir: Option<&Path>,
    managed_settings: Option<&Path>,
) -> Result<Vec<SettingsFile>> {
    let mut candidates: Vec<(Level, PathBuf)> = Vec::new();
    if let Some(dir) = claude_user_dir {
        candidates.push((Level::User, dir.join("settings.json")));
    }
    if let Some(dir) = user_config_dir {
        candidates.push((Level::User, dir.join("settings.json")));
    }
    candidates.push((Level::Project, project_root.join(".claude/settings.json")));
    candidates.push((Level::Project, project_root.join(".tack/settings.json")));
    candidates.push((
        Level::Local,
        project_root.join(".claude/settings.local.json"),
    ));
    candidates.push((Level::Local, local_settings_path(project_root)));
    if let Some(path) = managed_settings {
        candidates.push((Level::Managed, path.to_path_buf()));
    }
    let mut files = Vec::new();
    for (level, path) in candidates {
        // The same file named twice (a user directory that is also the
        // Claude Code one) is read once.
        if files.iter().any(|f: &SettingsFile| f.path == path) {
            continue;
        }
        files.extend(SettingsFile::read(level, path)?);
    }
    Ok(files)
}

/// The project root of `cwd`: the nearest directory, from `cwd` up, that
/// holds `.tack/`, `.claude/` or `.mcp.json`; else the nearest that holds
/// `.git` (a directory, or a file in a work tree or submodule); else `cwd`.
/// A `.claude` directory in the home directory is Claude Code's user
/// directory, not a project marker, so the home directory is a project root
/// only by `.tack/`, `.mcp.json` or `.git`. `cwd` should be absolute.
pub fn find_project_root(cwd: &Path, home: Option<&Path>) -> PathBuf {
    let marked = |dir: &Path| {
        dir.join(".tack").is_dir()
            || dir.join(".mcp.json").is_file()
            || (dir.join(".claude").is_dir() && Some(dir) != home)
    };
    if let Some(dir) = cwd.ancestors().find(|d| marked(d)) {
        return dir.to_path_buf();
    }
    if let Some(dir) = cwd.ancestors().find(|d| d.join(".git").exists()) {
        return dir.to_path_buf();
    }
    cwd.to_path_buf()
}

/// `<project_root>/.tack/settings.local.json`.
pub fn local_settings_path(project_root: &Path) -> PathBuf {
    project_root.join(".tack/settings.local.json")
}

/// A settings file as a JSON object; None when it does not exist.
pub(crate) fn read_json(path: &Path) -> Result<Option<Value>> {
    Ok(read_text_json(path)?.map(|(_, value)| value))
}

/// [`read_json`], with the text it parsed.
fn read_text_json(path: &Path) -> Result<Option<(String, Value)>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let value: Value = serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })?;
    if !value.is_object() {
        return Err(Error::Settings {
            origin: path.display().to_string(),
            problem: "the settings file must hold a JSON object".into(),
        });
    }
    Ok(Some((text, value)))
}

/// Add `rule` to `permissions.<kind>` of the local settings file (the
/// "always allow" answer of a prompt), keeping every other key. Returns the
/// file written. The rule is checked first; a rule already present is not
/// added twice.
pub fn add_local_rule(project_root: &Path, kind: Verdict, rule: &str) -> Result<PathBuf> {
    let path = local_settings_path(project_root);
    crate::rule::parse_rule(rule).map_err(|problem| Error::Rule {
        origin: path.display().to_string(),
        rule: rule.to_string(),
        problem,
    })?;
    edit_local_permissions(project_root, |perms, origin| {
        let list = perms
            .entry(kind.as_str())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(list) = list.as_array_mut() else {
            return Err(Error::Settings {
                origin: origin.to_owned(),
                problem: format!("`permissions.{}` must be an array of rules", kind.as_str()),
            });
        };
        if !list.iter().any(|v| is_rule(v, rule)) {
            list.push(Value::String(rule.to_string()));
        }
        Ok(())
    })?;
    Ok(path)
}

/// Removes `rule` from every list (`allow`, `ask`, `deny`) of the local
/// settings file, keeping every other key. Returns the lists it was in
/// (none: the file does not have it, which is not an error).
pub fn remove_local_rule(project_root: &Path, rule: &str) -> Result<Vec<Verdict>> {
    let mut removed = Vec::new();
    if read_json(&local_settings_path(project_root))?.is_none() {
        return Ok(removed);
    }
    edit_local_permissions(project_root, |perms, _| {
        for kind in [Verdict::Allow, Verdict::Ask, Verdict::Deny] {
            if let Some(list) = perms.get_mut(kind.as_str()).and_then(Value::as_array_mut) {
                let before = list.len();
                list.retain(|v| !is_rule(v, rule));
                if list.len() < before {
                    removed.push(kind);
                }
            }
        }
        Ok(())
    })?;
    Ok(removed)
}

/// A list entry is `rule`: the rule as a string, or `{"rule": …}`.
fn is_rule(entry: &Value, rule: &str) -> bool {
    entry.as_str() == Some(rule) || entry.get("rule").and_then(Value::as_str) == Some(rule)
}

/// Reads the local settings file (or starts an empty one), lets `edit`
/// change its `permissions` object and writes it back, every other key
/// kept.
fn edit_local_permissions(
    project_root: &Path,
    edit: impl FnOnce(&mut serde_json::Map<String, Value>, &str) -> Result<()>,
) -> Result<()> {
    let path = local_settings_path(project_root);
    let origin = path.display().to_string();
    let mut value = read_json(&path)?.unwrap_or_else(|| Value::Object(Default::default()));
    let Some(root) = value.as_object_mut() else {
        return Err(Error::Settings {
            origin,
            problem: "the settings file must hold a JSON object".into(),
        });
    };
    let perms = root
        .entry("permissions")
        .or_insert_with(|| Value::Object(Default::default()));
    let Some(perms) = perms.as_object_mut() else {
        return Err(Error::Settings {
            origin,
            problem: "`permissions` must be an object".into(),
        });
    };
    edit(perms, &origin)?;
    let io = |source| Error::Write {
        path: path.clone(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut text = serde_json::to_string_pretty(&value).map_err(|e| Error::Settings {
        origin: origin.clone(),
        problem: e.to_string(),
    })?;
    text.push('\n');
    std::fs::write(&path, text).map_err(io)?;
    Ok(())
}
