//! Declared command tools against real programs: git on a real repository,
//! jq, and a script of this suite that prints what it received and exits
//! with chosen codes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolRegistry};
use tack_tools::declared::{Declaration, DeclaredTool, LoadContext, Places};
use tokio_util::sync::CancellationToken;

fn cmdtool() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/all/fixtures/cmdtool.py")
}

fn load(root: &Path, name: &str, decl: Value) -> DeclaredTool {
    let cx = LoadContext {
        places: Places::new(root, root, None),
        project_root: root.to_path_buf(),
        path: None,
        taken: Vec::new(),
    };
    let decl = Declaration::parse(name, &decl, &cx).unwrap_or_else(|e| panic!("{name}: {e}"));
    DeclaredTool::new(decl, None)
}

fn ctx(root: &Path) -> ToolContext {
    ToolContext::new(root, "s", "toolu_1", CancellationToken::new())
}

/// Validates (schema, then the tool's checks) and runs, as the pipeline does.
async fn call(tool: &DeclaredTool, root: &Path, input: Value) -> Result<ToolOutput, ToolError> {
    let tool: std::sync::Arc<dyn Tool> =
        std::sync::Arc::new(DeclaredTool::new(tool.declaration().clone(), None));
    let mut registry = ToolRegistry::new();
    registry.register(std::sync::Arc::clone(&tool)).unwrap();
    registry.get(tool.name()).unwrap().check_input(&input)?;
    tool.validate(&input, &ctx(root))?;
    tool.call(input, ctx(root)).await
}

fn text(out: &ToolOutput) -> String {
    out.content
        .iter()
        .map(|b| match serde_json::to_value(b).unwrap() {
            Value::Object(o) => o["text"].as_str().unwrap_or_default().to_owned(),
            _ => String::new(),
        })
        .collect()
}

fn echo_tool(root: &Path, command: Value) -> DeclaredTool {
    load(
        root,
        "echo_args",
        json!({
            "description": "Prints the arguments it received as JSON.",
            "command": command,
            "inputSchema": {"type": "object", "properties": {"value": {"type": "string"}}},
            "output": "json"
        }),
    )
}

/// The argv the process received, or the error.
async fn received(tool: &DeclaredTool, root: &Path, value: &str) -> Result<Vec<String>, ToolError> {
    let out = call(tool, root, json!({ "value": value })).await?;
    let got = out.structured.expect("json output is structured");
    Ok(serde_json::from_value(got["argv"].clone()).unwrap())
}

#[tokio::test]
async fn injection_table_every_value_stays_one_argument_or_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let marker = root.join("pwned");
    let m = marker.display().to_string();
    let plain = echo_tool(root, json!([cmdtool(), "argv", "x", "{value}"]));
    let flagged = echo_tool(
        root,
        json!([cmdtool(), "argv", {"flag": "--name", "value": "{value}"}]),
    );
    let after_dashes = echo_tool(root, json!([cmdtool(), "argv", "--", "{value}"]));
    let formatted = echo_tool(
        root,
        json!([cmdtool(), "argv", {"format": "--name={value}"}]),
    );

    // (value, accepted in a plain slot)
    let long_ok = "a".repeat(100 * 1024);
    let too_long = "a".repeat(200 * 1024);
    let cases: Vec<(String, bool)> = vec![
        ("two words".into(), true),
        ("'single quoted'".into(), true),
        ("\"double quoted\"".into(), true),
        (format!("a; touch {m}"), true),
        (format!("a && touch {m}"), true),
        (format!("a || touch {m}"), true),
        (format!("$(touch {m})"), true),
        (format!("`touch {m}`"), true),
        (format!("a | touch {m}"), true),
        (format!("a > {m}"), true),
        (format!("< {m}"), true),
        (format!("line one\ntouch {m}"), true),
        ("tab\tseparated".into(), true),
        ("carriage\r\nreturn".into(), true),
        ("$HOME ${PATH} $0".into(), true),
        ("*".into(), true),
        ("*.rs ?.txt [a-z]*".into(), true),
        ("~/secret".into(), true),
        ("{value} {project}".into(), true),
        ("%s %n %x".into(), true),
        ("back\\slash\\".into(), true),
        ("a # not a comment".into(), true),
        ("!! !$".into(), true),
        ("&".into(), true),
        ("key=value".into(), true),
        ("ünïcødé 漢字 🎉 \u{202e}rtl".into(), true),
        (String::new(), true),
        (" ".into(), true),
        (long_ok.clone(), true),
        ("-rf".into(), false),
        ("--upload-pack=touch /tmp/x".into(), false),
        ("--".into(), false),
        ("-".into(), false),
        ("-5".into(), false),
        ("nul\0byte".into(), false),
        (too_long.clone(), false),
    ];
    assert!(cases.len() >= 30);
    for (value, accepted) in &cases {
        let shown: String = value.chars().take(40).collect();
        let got = received(&plain, root, value).await;
        if *accepted {
            let argv = got.unwrap_or_else(|e| panic!("{shown:?} refused: {e}"));
            assert_eq!(argv, ["x", value.as_str()], "{shown:?}");
            let argv = received(&flagged, root, value).await.unwrap();
            assert_eq!(argv, ["--name", value.as_str()], "{shown:?}");
        } else {
            let err = got.expect_err(&shown);
            assert!(
                matches!(err, ToolError::InvalidInput(_)),
                "{shown:?}: {err}"
            );
            assert!(received(&flagged, root, value).await.is_err(), "{shown:?}");
        }
        // After `--` and joined to a flag, a leading `-` is harmless.
        let dash_ok = value.starts_with('-');
        let argv = received(&after_dashes, root, value).await;
        assert_eq!(argv.is_ok(), *accepted || dash_ok, "{shown:?} after --");
        if let Ok(argv) = argv {
            assert_eq!(argv, ["--", value.as_str()]);
        }
        let argv = received(&formatted, root, value).await;
        assert_eq!(argv.is_ok(), *accepted || dash_ok, "{shown:?} formatted");
        if let Ok(argv) = argv {
            assert_eq!(argv, [format!("--name={value}")]);
        }
    }
    assert!(!marker.exists(), "a value ran as a command");
}

#[tokio::test]
async fn arrays_expand_only_where_declared_and_defaults_come_from_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tool = load(
        root,
        "t",
        json!({
            "description": "Prints its arguments.",
            "command": [cmdtool(), "argv", "-n", "{limit}", {"flag": "--all", "if": "{all}"},
                        {"each": "{labels}", "flag": "--label"}, "--", {"each": "{paths}"}],
            "inputSchema": {"type": "object", "properties": {
                "limit": {"type": "integer", "default": 20},
                "all": {"type": "boolean"},
                "labels": {"type": "array", "items": {"type": "string"}},
                "paths": {"type": "array", "items": {"type": "string"}}}},
            "output": "json"
        }),
    );
    let out = call(&tool, root, json!({})).await.unwrap();
    assert_eq!(out.structured.unwrap()["argv"], json!(["-n", "20", "--"]));
    let out = call(
        &tool,
        root,
        json!({"limit": 3, "all": true, "labels": ["a b", "c"], "paths": ["x y", "-z"]}),
    )
    .await
    .unwrap();
    assert_eq!(
        out.structured.unwrap()["argv"],
        json!([
            "-n", "3", "--all", "--label", "a b", "--label", "c", "--", "x y", "-z"
        ])
    );
    let err = call(&tool, root, json!({"labels": ["-rf"]}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    let err = call(&tool, root, json!({"limt": 3})).await.unwrap_err();
    assert!(err.to_string().contains("did you mean `limit`"), "{err}");
}

fn git(root: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[tokio::test]
async fn git_log_on_a_real_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    for (file, msg) in [
        ("a.txt", "first"),
        ("src/b.rs", "second"),
        ("c.txt", "third"),
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, msg).unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", msg]);
    }
    let tool = load(
        root,
        "git_log",
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
            "exitCodes": {"128": "invalid_input"}
        }),
    );
    let out = call(&tool, root, json!({})).await.unwrap();
    let lines = out.structured.unwrap()["lines"].as_array().unwrap().clone();
    let subjects: Vec<&str> = lines
        .iter()
        .map(|l| l.as_str().unwrap().rsplit('\t').next().unwrap())
        .collect();
    assert_eq!(subjects, ["third", "second", "first"]);
    let out = call(&tool, root, json!({"limit": 1})).await.unwrap();
    assert!(text(&out).ends_with("\tAda\tthird\n"), "{}", text(&out));
    let out = call(&tool, root, json!({"paths": ["src/"]})).await.unwrap();
    assert_eq!(
        out.structured.unwrap()["lines"].as_array().unwrap().len(),
        1
    );
    // A date git cannot read is its exit 128: invalid input, with git's words.
    let err = call(
        &tool,
        root,
        json!({"since": "2 weeks ago", "paths": ["src/"]}),
    )
    .await;
    assert!(err.is_ok(), "{err:?}");
    // Outside a repository git exits 128.
    let elsewhere = tempfile::tempdir().unwrap();
    let tool = load(
        elsewhere.path(),
        "git_log",
        json!({"description": "x", "command": ["git", "log", "-n", "1"], "cwd": "{project}",
               "env": {"GIT_CEILING_DIRECTORIES": elsewhere.path().parent().unwrap()},
               "exitCodes": {"128": "invalid_input"}}),
    );
    let err = call(&tool, elsewhere.path(), json!({})).await.unwrap_err();
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("exited with code 128"), "{err}");
    assert!(err.to_string().contains("not a git repository"), "{err}");
}

#[tokio::test]
async fn jq_reads_the_value_on_stdin_and_its_json_is_structured() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tool = load(
        root,
        "jq_query",
        json!({
            "description": "Runs a jq filter over a JSON document.",
            "command": ["jq", "-c", "{filter}"],
            "stdin": "{document}",
            "inputSchema": {"type": "object", "required": ["filter", "document"], "properties": {
                "filter": {"type": "string"},
                "document": {"type": "object"}}},
            "output": "json",
            "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
            "exitCodes": {"3": "invalid_input", "5": "invalid_input"}
        }),
    );
    let doc = json!({"items": [1, 2, 3]});
    let out = call(
        &tool,
        root,
        json!({"filter": "{count: (.items | length)}", "document": doc}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured, Some(json!({"count": 3})));
    assert_eq!(text(&out), r#"{"count":3}"#);
    // Not the declared shape: the tool's fault, said so.
    let err = call(&tool, root, json!({"filter": "{n: 1}", "document": doc}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Internal(_)), "{err}");
    assert!(err.to_string().contains("outputSchema"), "{err}");
    // A filter jq cannot compile is its exit 3.
    let err = call(&tool, root, json!({"filter": "{count: (", "document": doc}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("code 3"), "{err}");
}

fn exit_tool(root: &Path) -> DeclaredTool {
    load(
        root,
        "exits",
        json!({
            "description": "Exits with the code given.",
            "command": [cmdtool(), "exit", "{code}", "{message}"],
            "inputSchema": {"type": "object", "required": ["code", "message"], "properties": {
                "code": {"type": "integer"}, "message": {"type": "string"}}},
            "exitCodes": {"1": "ok", "3": {"class": "invalid_input", "message": "the name is unknown"},
                          "4": "transient", "5": "unavailable", "6": "denied"}
        }),
    )
}

#[tokio::test]
async fn exit_codes_map_to_error_classes_with_the_tail_of_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tool = exit_tool(root);
    let out = call(&tool, root, json!({"code": 1, "message": "nothing found"}))
        .await
        .unwrap();
    assert!(text(&out).contains("(exit code 1)"), "{}", text(&out));
    assert_eq!(out.structured, Some(json!({"exitCode": 1})));
    type Is = fn(&ToolError) -> bool;
    let cases: [(i64, Is); 5] = [
        (3, |e| matches!(e, ToolError::InvalidInput(_))),
        (4, |e| matches!(e, ToolError::Transient(_))),
        (5, |e| matches!(e, ToolError::Unavailable(_))),
        (6, |e| matches!(e, ToolError::Denied(_))),
        (7, |e| matches!(e, ToolError::Failed(_))),
    ];
    for (code, is) in cases {
        let err = call(
            &tool,
            root,
            json!({"code": code, "message": "why it failed"}),
        )
        .await
        .unwrap_err();
        assert!(is(&err), "{code}: {err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("exited with code {code}")), "{msg}");
        assert!(msg.contains("stderr:\nwhy it failed"), "{msg}");
    }
    let err = call(&tool, root, json!({"code": 3, "message": "x"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("the name is unknown"), "{err}");
    // Only the end of a long stderr is quoted.
    let long = format!("{}THE END", "noise ".repeat(2000));
    let err = call(&tool, root, json!({"code": 9, "message": long}))
        .await
        .unwrap_err();
    assert!(err.to_string().ends_with("THE END"), "{err}");
    assert!(err.to_string().len() < 2500);
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let pidfile = root.join("child.pid");
    let tool = load(
        root,
        "slow",
        json!({"description": "Sleeps.", "command": [cmdtool(), "tree", pidfile], "timeoutMs": 700}),
    );
    let started = std::time::Instant::now();
    let err = call(&tool, root, json!({})).await.unwrap_err();
    assert!(matches!(err, ToolError::Timeout(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while std::path::Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the child {pid} outlived the timeout"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn text_and_json_results_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let printer = |output: &str| {
        load(
            root,
            "printer",
            json!({"description": "Prints.", "command": [cmdtool(), "print", "{text}"],
                   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                   "output": output}),
        )
    };
    let err = call(&printer("json"), root, json!({"text": "not json"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Failed(_)), "{err}");
    assert!(err.to_string().contains("does not parse"), "{err}");
    let out = call(&printer("json"), root, json!({"text": "[1, 2]"}))
        .await
        .unwrap();
    assert_eq!(out.structured, Some(json!([1, 2])));
    let out = call(&printer("text"), root, json!({"text": ""}))
        .await
        .unwrap();
    assert_eq!(text(&out), "(no output)");
    let out = call(&printer("lines"), root, json!({"text": "a\nb\n"}))
        .await
        .unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"lines": ["a", "b"], "exitCode": 0}))
    );
    // Over MCP a lines tool's structured result must match its output schema.
    let tool = printer("lines");
    let schema = tool.output_schema().unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&out.structured.unwrap()));
    // A big output arrives whole here: the session's output budget cuts it.
    let big = load(
        root,
        "big",
        json!({"description": "Prints a lot.", "command": [cmdtool(), "big", "2000000"]}),
    );
    let out = call(&big, root, json!({})).await.unwrap();
    assert_eq!(text(&out).len(), 2_000_000);
}

#[tokio::test]
async fn env_cwd_and_the_argv_for_rules_and_audit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    let tool = load(
        root,
        "where",
        json!({"description": "Says where it runs.", "command": [cmdtool(), "argv", "{name}"],
               "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
               "cwd": "sub", "env": {"CMDTOOL_ROOT": "{project}"}, "output": "json"}),
    );
    let out = call(&tool, root, json!({"name": "x y"}))
        .await
        .unwrap()
        .structured
        .unwrap();
    let canonical = std::fs::canonicalize(root.join("sub")).unwrap();
    assert_eq!(Path::new(out["cwd"].as_str().unwrap()), canonical);
    assert_eq!(out["env"]["CMDTOOL_ROOT"], root.display().to_string());
    let argv = tool.command_line(&json!({"name": "x y"})).unwrap();
    assert_eq!(
        argv,
        [cmdtool().display().to_string(), "argv".into(), "x y".into()]
    );
    assert_eq!(tool.command_line(&json!({"name": "-x"})), None);
}
