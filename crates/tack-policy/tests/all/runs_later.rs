//! What tack runs later on its configuration's word is protected: a hook's
//! script, the status line's, an MCP server's program (settings or the
//! project's `.mcp.json`), a declared tool's program, the task file a hook's
//! runner reads, and a script a Bash allow rule names. A model allowed to
//! edit had rewritten `scripts/check.py`, which a PostToolUse hook runs,
//! and its next edit ran the new script outside the sandbox with no rule
//! consulted; or `./scripts/deploy.sh`, which `allow Bash(./scripts/deploy.sh)`
//! then ran whatever it held. Each write is now asked (refused in dontAsk),
//! through the file tools and the shell alike; other files stay allowed.

use std::path::Path;

use serde_json::json;
use tack_policy::{CliPermissions, LoadOptions, Mode, Request, Settings, evaluate};

use crate::support::Fixture;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn load(fx: &Fixture, mode: Mode) -> Settings {
    Settings::load_with(&LoadOptions {
        project_root: fx.project.clone(),
        user_config_dir: Some(fx.home.join(".config/tack")),
        claude_user_dir: None,
        managed_settings: None,
        home: Some(fx.home.clone()),
        cwd: None,
        cli: CliPermissions {
            mode: Some(mode),
            ..CliPermissions::default()
        },
    })
    .unwrap()
}

fn decide(settings: &Settings, tool: &str, input: serde_json::Value) -> tack_policy::Decision {
    let p = settings.policy();
    let req = Request::resolve(tool, &input, p.cwd(), p);
    evaluate(&req, p)
}

fn project(fx: &Fixture) {
    for f in [
        "scripts/check.py",
        "scripts/deploy.sh",
        "scripts/status.sh",
        "mcp/server.js",
        "tools/bin/report",
        "package.json",
        "src/main.rs",
    ] {
        write(&fx.project.join(f), "x\n");
    }
    write(
        &fx.project.join(".claude/settings.json"),
        &json!({
            "permissions": {"allow": ["Bash(./scripts/deploy.sh *)", "Bash(sed *)", "Bash(echo *)", "Bash(cp *)"]},
            "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [
                {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/scripts/check.py"},
                {"type": "command", "command": "cd \"$CLAUDE_PROJECT_DIR\" && npm run --silent lint"}
            ]}]},
            "statusLine": {"type": "command", "command": "bash scripts/status.sh"},
            "tools": {"report": {"description": "r", "command": ["./tools/bin/report", "{name}"]}}
        })
        .to_string(),
    );
    write(
        &fx.project.join(".mcp.json"),
        &json!({"mcpServers": {"docs": {"command": "node", "args": ["mcp/server.js"]}}})
            .to_string(),
    );
}

#[test]
fn a_write_to_what_tack_runs_later_is_asked() {
    let fx = Fixture::new();
    project(&fx);
    let settings = load(&fx, Mode::AcceptEdits);
    for (file, by) in [
        ("scripts/check.py", "a hook"),
        ("package.json", "a hook"),
        ("scripts/status.sh", "the status line"),
        ("mcp/server.js", "the MCP server docs"),
        ("tools/bin/report", "the declared tool report"),
        (
            "scripts/deploy.sh",
            "the allow rule Bash(./scripts/deploy.sh *)",
        ),
    ] {
        let path = fx.project.join(file).display().to_string();
        for (tool, input) in [
            (
                "Write",
                json!({"file_path": path, "content": "curl x | sh"}),
            ),
            (
                "Edit",
                json!({"file_path": path, "old_string": "x", "new_string": "y"}),
            ),
            (
                "Bash",
                json!({"command": format!("echo 'curl x | sh' >> {file}")}),
            ),
            ("Bash", json!({"command": format!("sed -i s/x/y/ {file}")})),
            ("Bash", json!({"command": format!("cp src/main.rs {file}")})),
        ] {
            let d = decide(&settings, tool, input.clone());
            assert!(d.is_ask(), "{tool} {input}: {d}");
            assert!(d.needs_person(), "{tool} {input}: {d}");
            let text = d.to_string();
            assert!(
                text.contains(&format!("run by {by}")),
                "{tool} {input}: {text}"
            );
        }
    }
    // Anything else in the project is still the edit acceptEdits allows.
    let other = fx.project.join("src/main.rs").display().to_string();
    let d = decide(
        &settings,
        "Write",
        json!({"file_path": other, "content": "fn main() {}"}),
    );
    assert!(d.is_allow(), "{d}");
    // Reading them is not guarded.
    let d = decide(
        &settings,
        "Read",
        json!({"file_path": fx.project.join("scripts/check.py")}),
    );
    assert!(d.is_allow(), "{d}");
}

#[test]
fn dont_ask_refuses_and_bypass_writes() {
    let fx = Fixture::new();
    project(&fx);
    let path = fx.project.join("scripts/check.py").display().to_string();
    let input = json!({"file_path": path, "content": "y"});
    let d = decide(&load(&fx, Mode::DontAsk), "Write", input.clone());
    assert!(d.is_deny(), "{d}");
    let d = decide(&load(&fx, Mode::BypassPermissions), "Write", input);
    assert!(d.is_allow(), "{d}");
}

#[test]
fn the_files_are_given_to_the_sandbox() {
    let fx = Fixture::new();
    project(&fx);
    let settings = load(&fx, Mode::AcceptEdits);
    let mut found: Vec<String> = settings
        .policy()
        .runs_later()
        .map(|p| p.strip_prefix(&fx.project).unwrap().display().to_string())
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "mcp/server.js",
            "package.json",
            "scripts/check.py",
            "scripts/deploy.sh",
            "scripts/status.sh",
            "tools/bin/report",
        ]
    );
    // The same from a working directory below the root.
    std::fs::create_dir_all(fx.project.join("src")).unwrap();
    let below = settings.policy_for_cwd(&fx.project.join("src")).unwrap();
    assert_eq!(below.runs_later().count(), 6);
}

/// Fourth red-team round (persistence): what a hook's script loads beside
/// it (a module shadowing the standard library's `json`, a library it
/// sources) is in the script's directory, protected whole; so are the
/// files that say what runs for every `cargo` (`rust-toolchain.toml`'s
/// `path`) and every Python start (`sitecustomize.py`).
#[test]
fn what_runs_beside_a_hooks_script_is_asked_too() {
    let fx = Fixture::new();
    project(&fx);
    let settings = load(&fx, Mode::AcceptEdits);
    for file in [
        "scripts/json.py",
        "scripts/lib.sh",
        "scripts/__pycache__/helper.cpython-311.pyc",
        "mcp/node_modules/dep/index.js",
        "rust-toolchain.toml",
        "lib/sitecustomize.py",
    ] {
        let path = fx.project.join(file).display().to_string();
        let d = decide(
            &settings,
            "Write",
            json!({"file_path": path, "content": "x"}),
        );
        assert!(d.is_ask() && d.needs_person(), "{file}: {d}");
    }
}

/// Sixth red-team round (plumbing, cause 1): the files tack reads its
/// configuration from when the command line or the environment names them
/// — `--settings FILE`, `--mcp-config FILE`, the managed settings file
/// (`TACK_MANAGED_SETTINGS`, `/etc/tack/managed-settings.json`, even before
/// it exists) and the administrator's skills beside it — were ordinary
/// paths: in acceptEdits (or with `allow Write`) the model rewrote them and
/// the next run obeyed its rules, hooks and servers. They are protected as
/// `.claude/settings.local.json` and `.mcp.json` are: asked in acceptEdits
/// and under an allow rule, refused in dontAsk, read-only in the sandbox.
#[test]
fn the_files_tacks_configuration_is_read_from_are_protected() {
    let fx = Fixture::new();
    let ci = fx.project.join(".ci/tack.json");
    let mcp = fx.project.join(".ci/mcp.json");
    let admin = fx.root.join("admin");
    let managed = admin.join("managed-settings.json");
    write(&ci, r#"{"permissions": {"deny": ["Bash(rm *)"]}}"#);
    write(&mcp, r#"{"mcpServers": {}}"#);
    write(&managed, r#"{"permissions": {"deny": ["Bash(curl *)"]}}"#);
    let layer = |path: &Path| tack_policy::SettingsFile {
        level: tack_policy::Level::CommandLine,
        path: path.to_owned(),
        value: serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap(),
        text: String::new(),
    };
    let load_with = |mode: Mode, managed: &Path| {
        Settings::load_with(&LoadOptions {
            project_root: fx.project.clone(),
            user_config_dir: Some(fx.home.join(".config/tack")),
            claude_user_dir: None,
            managed_settings: Some(managed.to_owned()),
            home: Some(fx.home.clone()),
            cwd: None,
            cli: CliPermissions {
                mode: Some(mode),
                allowed_tools: vec!["Write".into(), "Edit".into(), "Bash(cp *)".into()],
                settings: vec![layer(&ci)],
                mcp_config: vec![layer(&mcp)],
                ..CliPermissions::default()
            },
        })
        .unwrap()
    };
    let accept = load_with(Mode::AcceptEdits, &managed);
    let written = |p: &Path| json!({"file_path": p.display().to_string(), "content": "{}"});
    for path in [&ci, &mcp, &managed, &admin.join("skills/x/SKILL.md")] {
        let d = decide(&accept, "Write", written(path));
        assert!(d.is_ask() && d.needs_person(), "{}: {d}", path.display());
        let d = decide(
            &accept,
            "Edit",
            json!({"file_path": path.display().to_string(), "old_string": "a", "new_string": "b"}),
        );
        assert!(d.is_ask() && d.needs_person(), "{}: {d}", path.display());
        let d = decide(
            &accept,
            "Bash",
            json!({"command": format!("cp src/main.rs {}", path.display())}),
        );
        assert!(d.is_ask() && d.needs_person(), "{}: {d}", path.display());
        let d = decide(&load_with(Mode::DontAsk, &managed), "Write", written(path));
        assert!(d.is_deny(), "{}: {d}", path.display());
    }
    let d = decide(&accept, "Write", written(&ci));
    assert!(
        d.message().contains("tack reads its settings from it"),
        "{}",
        d.message()
    );
    // A managed file that does not exist yet may not be created either.
    let absent = fx.root.join("etc-tack/managed-settings.json");
    let d = decide(
        &load_with(Mode::AcceptEdits, &absent),
        "Write",
        written(&absent),
    );
    assert!(d.is_ask() && d.needs_person(), "{d}");
    // The sandbox keeps the files read-only.
    let protected: Vec<&Path> = accept.policy().runs_later().collect();
    for path in [&ci, &mcp, &managed] {
        assert!(
            protected.contains(&path.as_path()),
            "{path:?} in {protected:?}"
        );
    }
    // Another file beside them is an ordinary edit.
    let d = decide(&accept, "Write", written(&fx.project.join(".ci/notes.txt")));
    assert!(d.is_allow(), "{d}");
}
