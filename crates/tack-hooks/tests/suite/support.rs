//! Setup helpers so each test reads: settings, action, expectation.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tack_hooks::{HookContext, Hooks};
use tempfile::TempDir;

/// A project directory holding hook scripts and what they record.
pub struct Project {
    dir: TempDir,
}

impl Project {
    pub fn new() -> Project {
        Project {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A file in the project (where scripts record things).
    pub fn file(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    /// Writes an executable `#!/bin/sh` script; returns `sh '<path>'`, to use
    /// as the hook command. `$OUT` in the body is the project directory.
    ///
    /// Run through `sh` rather than executed: exec'ing a file just written
    /// can fail with ETXTBSY while another test thread forks.
    pub fn sh(&self, name: &str, body: &str) -> String {
        let path = self.file(name);
        let text = format!("#!/bin/sh\nOUT='{}'\n{body}\n", self.path().display());
        fs::write(&path, text).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        format!("sh '{}'", path.display())
    }

    /// Writes a Python script that gets the stdin JSON as `data` and the
    /// project directory as `OUT`; returns the command running it.
    pub fn py(&self, name: &str, body: &str) -> String {
        let path = self.file(name);
        let text = format!(
            "import json, os, sys\nOUT = {:?}\ndata = json.load(sys.stdin)\n{body}\n",
            self.path().display().to_string()
        );
        fs::write(&path, text).unwrap();
        format!("python3 '{}'", path.display())
    }

    /// A script that prints `stdout` (as is) and exits 0.
    pub fn prints(&self, name: &str, stdout: &Value) -> String {
        let json_path = self.file(&format!("{name}.out"));
        fs::write(&json_path, stdout.to_string()).unwrap();
        self.sh(
            name,
            &format!("cat > /dev/null; cat '{}'", json_path.display()),
        )
    }

    /// A script that appends `tag` to `log` (one line per run).
    pub fn logs(&self, name: &str, tag: &str) -> String {
        self.sh(
            name,
            &format!("cat > /dev/null; echo {tag} >> \"$OUT/log\""),
        )
    }

    /// The lines appended to `log`, in order.
    pub fn log(&self) -> Vec<String> {
        fs::read_to_string(self.file("log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    pub fn read_json(&self, name: &str) -> Value {
        let text = fs::read_to_string(self.file(name))
            .unwrap_or_else(|e| panic!("{name} was not written: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}: {text}"))
    }

    pub fn ctx(&self) -> HookContext {
        HookContext {
            session_id: "sess-123".into(),
            transcript_path: self.file("transcript.jsonl"),
            cwd: self.path().join("work"),
            permission_mode: "default".into(),
            project_dir: self.path().to_path_buf(),
            agent: None,
        }
    }
}

/// `{"type": "command", "command": command}`.
pub fn cmd(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

/// Settings with one matcher group for `event`.
pub fn settings(event: &str, matcher: Option<&str>, hooks: Vec<Value>) -> Value {
    let mut group = json!({"hooks": hooks});
    if let Some(m) = matcher {
        group["matcher"] = json!(m);
    }
    json!({"hooks": {event: [group]}})
}

/// Hooks from one project settings file.
pub fn one(settings: Value) -> Hooks {
    Hooks::from_settings(&[("project/settings.json".to_owned(), &settings)]).unwrap()
}

/// Hooks from several files, in order.
pub fn many(files: &[(&str, Value)]) -> Hooks {
    let sources: Vec<(String, &Value)> = files.iter().map(|(f, v)| ((*f).to_owned(), v)).collect();
    Hooks::from_settings(&sources).unwrap()
}

/// PreToolUse hooks for Bash.
pub fn pre(hooks: Vec<Value>) -> Hooks {
    one(settings("PreToolUse", Some("Bash"), hooks))
}

pub fn bash_input() -> Value {
    json!({"command": "ls -la", "description": "list"})
}
