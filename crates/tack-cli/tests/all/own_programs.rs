//! What tack runs on its own (the Bash tool's shell, the `git` of the
//! local-settings check) is never a program the project puts on `PATH`:
//! a `bin/` a user's direnv or virtualenv adds, or an empty `PATH` entry
//! (the current directory).

use std::path::{Path, PathBuf};
use std::process::Output;

use super::{stderr, stdout};

struct Project {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    root: PathBuf,
    state: PathBuf,
}

/// A stand-in for `name` that leaves `PWN_<name>` in the project, then
/// runs the system's program.
fn impostor(dir: &Path, name: &str, marker: &Path, real: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\necho ran > '{}'\nexec {real} \"$@\"\n",
        marker.display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

impl Project {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (home, root, state) = (base.join("home"), base.join("project"), base.join("state"));
        for dir in [&home, &root.join(".claude"), &state] {
            std::fs::create_dir_all(dir).unwrap();
        }
        for (dir, name) in [
            (root.join("bin"), "bash"),
            (root.join("bin"), "git"),
            (root.clone(), "bash"),
            (root.clone(), "git"),
        ] {
            let marker = dir.join(format!("PWN_{name}"));
            impostor(&dir, name, &marker, "/bin/sh");
        }
        Self {
            _tmp: tmp,
            home,
            root,
            state,
        }
    }

    fn markers(&self) -> Vec<PathBuf> {
        [self.root.join("bin"), self.root.clone()]
            .iter()
            .flat_map(|d| ["PWN_bash", "PWN_git"].map(|m| d.join(m)))
            .filter(|m| m.exists())
            .collect()
    }

    fn tack(&self, path: &str, args: &[&str]) -> Output {
        super::isolated_tack(&self.home, &self.state, &self.root)
            .env("PATH", path)
            .args(args)
            .output()
            .unwrap()
    }
}

/// `PATH` with the project's `bin` first, and an empty entry (the current
/// directory, the project) first.
fn paths(root: &Path) -> [String; 2] {
    let system = std::env::var("PATH").unwrap_or_default();
    [
        format!("{}:{system}", root.join("bin").display()),
        format!(":{system}"),
    ]
}

#[test]
fn the_bash_tools_shell_is_not_the_projects() {
    let p = Project::new();
    for path in paths(&p.root) {
        let out = p.tack(
            &path,
            &[
                "tools",
                "call",
                "Bash",
                r#"{"command": "echo hello"}"#,
                "--allowed-tools",
                "Bash(echo:*)",
            ],
        );
        assert_eq!(stdout(&out).trim(), "hello", "{path}: {}", stderr(&out));
        assert_eq!(p.markers(), Vec::<PathBuf>::new(), "{path}");
    }
}

#[test]
fn the_local_settings_check_runs_the_systems_git() {
    let p = Project::new();
    std::fs::write(
        p.root.join(".claude/settings.local.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    for path in paths(&p.root) {
        let out = p.tack(&path, &["permissions", "explain", "Bash(ls)"]);
        assert!(out.status.success(), "{path}: {}", stderr(&out));
        assert_eq!(p.markers(), Vec::<PathBuf>::new(), "{path}");
    }
}
