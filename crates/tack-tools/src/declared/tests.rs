#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use serde_json::{Value, json};

use super::*;

fn cx() -> LoadContext {
    LoadContext {
        places: Places::new(Path::new("/tmp"), Path::new("/tmp"), None),
        project_root: PathBuf::from("/tmp"),
        path: None,
        taken: vec!["Bash".into(), "Read".into()],
    }
}

fn git_log() -> Value {
    json!({
        "description": "Recent commits of this repository, newest first.",
        "command": ["git", "log", "--format=%H%x09%an%x09%s", "-n", "{limit}",
                    {"flag": "--since", "value": "{since}"}, "--", {"each": "{paths}"}],
        "input_schema": {"type": "object", "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 20},
            "since": {"type": "string"},
            "paths": {"type": "array", "items": {"type": "string"}}}},
        "readOnly": true, "idempotent": true, "timeoutMs": 10000,
        "output": "lines", "cwd": "{project}", "env": {"GIT_PAGER": "cat"},
        "exitCodes": {"128": "invalid_input"},
        "inputExamples": [{"limit": 5}, {"since": "2 weeks ago", "paths": ["src/"]}]
    })
}

fn error_of(name: &str, value: Value) -> DeclarationError {
    Declaration::parse(name, &value, &cx()).unwrap_err()
}

fn with(mut base: Value, key: &str, value: Value) -> Value {
    base[key] = value;
    base
}

#[test]
fn the_issue_example_loads_with_every_key_read() {
    let d = Declaration::parse("git_log", &git_log(), &cx()).unwrap();
    assert!(d.program.is_absolute() && d.program.ends_with("git"));
    assert_eq!(d.output, OutputKind::Lines);
    assert_eq!(d.timeout, Duration::from_secs(10));
    assert_eq!(d.cwd.as_deref(), Some(Path::new("/tmp")));
    assert_eq!(d.env["GIT_PAGER"], "cat");
    assert!(d.annotations.read_only && d.annotations.idempotent);
    assert_eq!(d.exit_codes[&128].class, "invalid_input");
    assert_eq!(d.input_examples.len(), 2);
    let argv = d
        .argv(&json!({"since": "2 weeks ago", "paths": ["src/", "-x"]}))
        .unwrap();
    assert_eq!(
        argv[1..],
        [
            "log",
            "--format=%H%x09%an%x09%s",
            "-n",
            "20",
            "--since",
            "2 weeks ago",
            "--",
            "src/",
            "-x"
        ]
    );
}

#[test]
fn every_bad_declaration_names_the_key_and_the_fix() {
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "unknown placeholder",
            with(git_log(), "command", json!(["git", "log", "-n", "{limt}"])),
            "command",
            "did you mean {limit}",
        ),
        (
            "unknown key",
            with(git_log(), "readonly", json!(true)),
            "readonly",
            "did you mean \"readOnly\"",
        ),
        (
            "bad schema",
            with(
                git_log(),
                "input_schema",
                json!({"type": "object", "properties": {"limit": {"type": "integr"}}}),
            ),
            "inputSchema",
            "does not compile",
        ),
        (
            "missing executable",
            with(git_log(), "command", json!(["gti-not-installed", "log"])),
            "command",
            "not on PATH",
        ),
        (
            "no description",
            with(git_log(), "description", json!("")),
            "description",
            "description",
        ),
        (
            "bad class",
            with(git_log(), "exitCodes", json!({"128": "invalid-input"})),
            "exitCodes",
            "did you mean \"invalid_input\"",
        ),
        (
            "bad example",
            with(git_log(), "inputExamples", json!([{"limit": 0}])),
            "inputExamples",
            "does not match",
        ),
        (
            "bad output",
            with(git_log(), "output", json!("yaml")),
            "output",
            "\"text\", \"lines\" or \"json\"",
        ),
        (
            "unused property",
            with(
                git_log(),
                "command",
                json!(["git", "log", "-n", "{limit}", "--", {"each": "{paths}"}]),
            ),
            "command",
            "`since`",
        ),
        (
            "interpolated value",
            with(git_log(), "command", json!(["git", "log", "-n{limit}"])),
            "command",
            "format",
        ),
        (
            "timeout",
            with(git_log(), "timeoutMs", json!(0)),
            "timeoutMs",
            "milliseconds",
        ),
    ];
    for (what, value, key, needle) in cases {
        let e = error_of("git_log", value);
        assert_eq!(e.key.as_deref(), Some(key), "{what}: {e}");
        assert!(e.message.contains(needle), "{what}: {e}");
    }
    let clash = error_of("Bash", git_log());
    assert!(clash.message.contains("already has"), "{clash}");
    let clash = error_of("read", git_log());
    assert!(clash.message.contains("`Read`"), "{clash}");
    let bad_name = error_of("git log", git_log());
    assert!(bad_name.message.contains("not a tool name"), "{bad_name}");
}

#[test]
fn a_relative_program_is_found_from_the_project_root() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("scripts/x.sh");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
    let cx = LoadContext {
        project_root: dir.path().to_path_buf(),
        places: Places::new(dir.path(), dir.path(), None),
        ..cx()
    };
    let decl = json!({"description": "x", "command": ["scripts/x.sh"]});
    let e = Declaration::parse("x", &decl, &cx).unwrap_err();
    assert!(e.message.contains("chmod +x"), "{e}");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let d = Declaration::parse("x", &decl, &cx).unwrap();
    assert_eq!(d.program, script);
    let d = Declaration::parse(
        "x",
        &json!({"description": "x", "command": ["{project}/scripts/x.sh"]}),
        &cx,
    )
    .unwrap();
    assert_eq!(d.program, script);
}
