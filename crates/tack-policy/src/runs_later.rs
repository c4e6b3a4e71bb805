//! The files tack runs later on its own word, named in its configuration:
//! the scripts of hooks (`"command": "python3 scripts/check.py"`), of the
//! status line and the credential helpers, the programs of MCP servers
//! (`"args": ["./mcp/server.js"]`, in settings or the project's
//! `.mcp.json`) and of declared command tools, the task files a hook's
//! runner reads (`npm run lint`: `package.json`), and the scripts a Bash
//! allow rule names (`Bash(./scripts/deploy.sh *)`). A write to one of them
//! is a protected-path write ([`crate::safeguard`]): without it, a model
//! allowed to edit could put any command in a hook's script and have it run
//! at the next tool call, outside the sandbox and past every rule, or widen
//! what an allow rule lets run without the rule changing.
//!
//! A file counts when a fixed word of the command (or an element of an
//! argv, or an option's `=value`) names a regular file that exists when the
//! policy is built, from the working directory or the project root; words
//! computed at run time and files created later are not known here.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::files::SettingsFile;

/// Who runs a file: said where a write to it is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunFile {
    pub path: PathBuf,
    /// `a hook`, `the MCP server docs`, `the rule Bash(./x.sh *)`.
    pub by: String,
}

/// Settings keys whose value is a command line tack (or Claude Code) runs.
const COMMAND_KEYS: &[&str] = &[
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "otelHeadersHelper",
];

/// Task runners and the files in the directory they run in whose contents
/// say what they run.
const TASK_FILES: &[(&[&str], &[&str])] = &[
    (&["npm", "pnpm", "yarn", "bun"], &["package.json"]),
    (&["make", "gmake"], &["Makefile", "makefile", "GNUmakefile"]),
    (&["just"], &["justfile", "Justfile", ".justfile"]),
    (&["task"], &["Taskfile.yml", "Taskfile.yaml"]),
    (&["rake"], &["Rakefile"]),
    (&["deno"], &["deno.json", "deno.jsonc"]),
    (&["composer"], &["composer.json"]),
    (&["nox"], &["noxfile.py"]),
    (&["invoke", "inv"], &["tasks.py"]),
];

/// Where a command of the configuration is read from.
struct Place<'a> {
    dirs: [&'a Path; 2],
    home: Option<&'a Path>,
    vars: [(&'a str, &'a str); 2],
}

impl Place<'_> {
    /// The existing regular files `word` names (an option's `=value` too).
    fn files(&self, word: &str, out: &mut Vec<PathBuf>) {
        let mut candidates = vec![word];
        if word.starts_with('-')
            && let Some((_, value)) = word.split_once('=')
        {
            candidates.push(value);
        }
        for w in candidates {
            if w.is_empty() || w.contains('\0') {
                continue;
            }
            let tilde = w
                .strip_prefix("~/")
                .and_then(|rest| Some(self.home?.join(rest)));
            let paths: Vec<PathBuf> = match tilde {
                Some(p) => vec![p],
                None if w.starts_with('~') => continue,
                None if Path::new(w).is_absolute() => vec![PathBuf::from(w)],
                None => self.dirs.iter().map(|d| d.join(w)).collect(),
            };
            for p in paths {
                if std::fs::metadata(&p).is_ok_and(|m| m.is_file()) && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }

    /// What a shell command line runs from the files.
    fn shell(&self, line: &str, out: &mut Vec<PathBuf>) {
        let vars: Vec<(&str, &str)> = self.vars.to_vec();
        let words = crate::shell::fixed_words(line, &vars);
        self.argv(&words, out);
    }

    /// What an argv runs from the files (its program, its arguments).
    fn argv<S: AsRef<str>>(&self, argv: &[S], out: &mut Vec<PathBuf>) {
        for word in argv {
            let word = word.as_ref();
            let expanded = self.expand(word);
            self.files(&expanded, out);
            let base = Path::new(&expanded)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            for (runners, files) in TASK_FILES {
                if runners.contains(&base) {
                    for f in *files {
                        self.files(f, out);
                    }
                }
            }
        }
    }

    /// `${VAR}` and `$VAR` of `vars` in an argv element (MCP configurations
    /// expand them; no shell reads an argv).
    fn expand(&self, word: &str) -> String {
        let mut s = word.to_owned();
        for (name, value) in self.vars {
            s = s
                .replace(&format!("${{{name}}}"), value)
                .replace(&format!("${name}"), value);
        }
        s
    }
}

/// The files the configuration in `files` (and the project's `.mcp.json`)
/// has tack run later, each with who runs it.
pub(crate) fn from_settings(
    files: &[SettingsFile],
    project_root: &Path,
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<RunFile> {
    let root = project_root.to_str().unwrap_or_default();
    let place = Place {
        dirs: [cwd, project_root],
        home,
        vars: [("CLAUDE_PROJECT_DIR", root), ("TACK_PROJECT_DIR", root)],
    };
    let mut found = Vec::new();
    let mut add = |paths: Vec<PathBuf>, by: String| {
        for path in paths {
            if !found.iter().any(|f: &RunFile| f.path == path) {
                found.push(RunFile {
                    path,
                    by: by.clone(),
                });
            }
        }
    };
    for file in files {
        let v = &file.value;
        let mut hooks = Vec::new();
        if let Some(h) = v.get("hooks") {
            hook_commands(h, &mut hooks);
        }
        for line in hooks {
            let mut out = Vec::new();
            place.shell(line, &mut out);
            add(out, "a hook".to_owned());
        }
        if let Some(line) = v.pointer("/statusLine/command").and_then(Value::as_str) {
            let mut out = Vec::new();
            place.shell(line, &mut out);
            add(out, "the status line".to_owned());
        }
        for key in COMMAND_KEYS {
            if let Some(line) = v.get(*key).and_then(Value::as_str) {
                let mut out = Vec::new();
                place.shell(line, &mut out);
                add(out, format!("`{key}`"));
            }
        }
        if let Some(tools) = v.get("tools").and_then(Value::as_object) {
            for (name, tool) in tools {
                let argv = strings(tool.get("command"));
                // `{limit}`: a value the model gives, not a file.
                let argv: Vec<&str> = argv.into_iter().filter(|w| !w.contains('{')).collect();
                let mut out = Vec::new();
                place.argv(&argv, &mut out);
                add(out, format!("the declared tool {name}"));
            }
        }
        for (name, argv) in mcp_servers(v) {
            let mut out = Vec::new();
            place.argv(&argv, &mut out);
            add(out, format!("the MCP server {name}"));
        }
    }
    if let Ok(text) = std::fs::read_to_string(project_root.join(".mcp.json"))
        && let Ok(v) = serde_json::from_str::<Value>(&text)
    {
        for (name, argv) in mcp_servers(&v) {
            let mut out = Vec::new();
            place.argv(&argv, &mut out);
            add(out, format!("the MCP server {name}"));
        }
    }
    found
}

/// The scripts a Bash allow rule's pattern names (`./deploy.sh *`, `bash
/// scripts/ci.sh`): what the rule lets run changes when they do.
pub(crate) fn from_rule(pattern: &str, cwd: &Path, project_root: &Path) -> Vec<PathBuf> {
    let place = Place {
        dirs: [cwd, project_root],
        home: None,
        vars: [("", ""), ("", "")],
    };
    let head = pattern.split('*').next().unwrap_or_default();
    let mut out = Vec::new();
    for word in crate::shell::fixed_words(head, &[]) {
        // A program found on PATH (`npm`, `git`) is no file of the project.
        if word.contains('/') || has_script_extension(&word) {
            place.files(&word, &mut out);
        }
    }
    out
}

fn has_script_extension(word: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        "sh", "bash", "zsh", "fish", "py", "rb", "pl", "js", "mjs", "cjs", "ts", "php", "lua",
        "ps1", "tcl", "r", "R", "jl",
    ];
    Path::new(word)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e))
}

/// Every `command` string of the hooks configuration (any event, any
/// matcher; `type` absent or `command`).
fn hook_commands<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(map) => {
            let is_command = map
                .get("type")
                .is_none_or(|t| t.as_str() == Some("command"));
            match map.get("command") {
                Some(Value::String(c)) if is_command => out.push(c),
                _ => {}
            }
            for (k, child) in map {
                if k != "command" {
                    hook_commands(child, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| hook_commands(i, out)),
        _ => {}
    }
}

/// The stdio MCP servers of a configuration (`mcpServers`), each as its
/// argv.
fn mcp_servers(v: &Value) -> Vec<(String, Vec<String>)> {
    let Some(servers) = v.get("mcpServers").and_then(Value::as_object) else {
        return Vec::new();
    };
    servers
        .iter()
        .filter_map(|(name, s)| {
            let command = s.get("command")?.as_str()?;
            let mut argv = vec![command.to_owned()];
            argv.extend(strings(s.get("args")).into_iter().map(str::to_owned));
            Some((name.clone(), argv))
        })
        .collect()
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(value: Value) -> SettingsFile {
        SettingsFile {
            level: crate::Level::Project,
            path: PathBuf::from("/x/.claude/settings.json"),
            value,
            text: String::new(),
        }
    }

    #[test]
    fn hooks_servers_tools_and_runners_name_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "scripts/check.py",
            "scripts/fmt.sh",
            "mcp/server.js",
            "bin/tool",
            "package.json",
            "status.sh",
            "cfg/lint.toml",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        let settings = file(serde_json::json!({
            "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
                {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/scripts/check.py --config=cfg/lint.toml"},
                {"type": "command", "command": "cd \"${CLAUDE_PROJECT_DIR}\" && npm run lint"},
                {"type": "command", "command": "./scripts/missing.sh; scripts/fmt.sh"}
            ]}]},
            "statusLine": {"type": "command", "command": "bash status.sh"},
            "tools": {"t": {"command": ["./bin/tool", "{limit}"]}},
            "mcpServers": {"docs": {"command": "node", "args": ["${CLAUDE_PROJECT_DIR}/mcp/server.js"]}}
        }));
        let found = from_settings(&[settings], root, root, None);
        let mut names: Vec<String> = found
            .iter()
            .map(|f| {
                let rel = f.path.strip_prefix(root).unwrap().display().to_string();
                format!("{rel} ({})", f.by)
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "bin/tool (the declared tool t)",
                "cfg/lint.toml (a hook)",
                "mcp/server.js (the MCP server docs)",
                "package.json (a hook)",
                "scripts/check.py (a hook)",
                "scripts/fmt.sh (a hook)",
                "status.sh (the status line)",
            ]
        );
    }

    #[test]
    fn a_bash_rule_names_its_script_not_its_program() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/deploy.sh"), "x").unwrap();
        std::fs::write(root.join("git"), "x").unwrap();
        let rel = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.strip_prefix(root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            rel(from_rule("./scripts/deploy.sh *", root, root)),
            ["scripts/deploy.sh"]
        );
        assert_eq!(
            rel(from_rule("bash scripts/deploy.sh", root, root)),
            ["scripts/deploy.sh"]
        );
        assert!(from_rule("git push *", root, root).is_empty());
        assert!(from_rule("*", root, root).is_empty());
    }
}
