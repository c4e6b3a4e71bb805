//! `tack mcp serve` over stdio with the official Python SDK as the client
//! (crates/tack-mcp/tests/python/client.py): a permission ask reaches the
//! person at the client through elicitation, and rmcp's log lines stay off
//! the terminal.

use super::*;

/// Runs client.py against `tack mcp serve` (stdio) in `cwd`, making `calls`
/// and answering elicitations as `elicit` says (`None`: no elicitation
/// capability). Returns the client's report and stderr (tack's included).
fn serve_with_python(cwd: &Path, calls: Value, elicit: Option<&str>) -> (Value, String) {
    let state = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(python());
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tack-mcp/tests/python/client.py"))
        .args(["--stdio", "--", env!("CARGO_BIN_EXE_tack"), "mcp", "serve"])
        .env("TACK_TEST_CALLS", calls.to_string())
        .env_remove("TACK_LOG")
        .env("TACK_STATE_DIR", state.path())
        .env("TACK_CONFIG_DIR", state.path().join("config"))
        .env("CLAUDE_CONFIG_DIR", state.path().join("claude"))
        .env("NO_COLOR", "1")
        .current_dir(cwd)
        .stdin(Stdio::null());
    match elicit {
        Some(how) => cmd.env("TACK_TEST_ELICIT", how),
        None => cmd.env_remove("TACK_TEST_ELICIT"),
    };
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "client.py failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    (serde_json::from_str(&stdout(&out)).unwrap(), stderr(&out))
}

fn touch(name: &str) -> Value {
    json!({"name": "Bash", "arguments": {"command": format!("touch {name}")}})
}

fn text(call: &Value) -> String {
    call["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn an_ask_reaches_the_person_at_an_eliciting_client_and_allow_runs_the_call() {
    let cwd = tempfile::tempdir().unwrap();
    let (report, _) =
        serve_with_python(cwd.path(), json!([touch("asked.txt")]), Some("allow_once"));
    let call = &report["calls"][0];
    assert_eq!(call["result"]["isError"], false, "{report}");
    assert!(cwd.path().join("asked.txt").exists(), "{report}");
    let asked = report["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{report}");
    let message = asked[0]["message"].as_str().unwrap();
    assert!(message.contains("touch asked.txt"), "{message}");
    let choices: Vec<&str> = asked[0]["requestedSchema"]["properties"]["decision"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["const"].as_str().unwrap())
        .collect();
    assert_eq!(choices, ["allow_once", "allow_session", "deny"], "{report}");
}

#[test]
fn allow_for_the_session_asks_once_for_calls_the_rule_covers() {
    let cwd = tempfile::tempdir().unwrap();
    let (report, _) = serve_with_python(
        cwd.path(),
        json!([touch("one.txt"), touch("one.txt")]),
        Some("allow_session"),
    );
    for call in report["calls"].as_array().unwrap() {
        assert_eq!(call["result"]["isError"], false, "{report}");
    }
    assert_eq!(
        report["elicitations"].as_array().unwrap().len(),
        1,
        "{report}"
    );
    assert!(cwd.path().join("one.txt").exists());
}

#[test]
fn a_decline_or_deny_at_the_client_denies_the_call_with_the_reason() {
    let cwd = tempfile::tempdir().unwrap();
    let (report, _) =
        serve_with_python(cwd.path(), json!([touch("declined.txt")]), Some("decline"));
    let call = &report["calls"][0];
    assert_eq!(call["result"]["isError"], true, "{report}");
    assert!(text(call).contains("declined"), "{report}");
    assert!(!cwd.path().join("declined.txt").exists());

    let (report, _) = serve_with_python(
        cwd.path(),
        json!([touch("denied.txt")]),
        Some("deny:not on a Friday"),
    );
    let call = &report["calls"][0];
    assert_eq!(call["result"]["isError"], true, "{report}");
    assert!(text(call).contains("not on a Friday"), "{report}");
    assert!(!cwd.path().join("denied.txt").exists());
}

#[test]
fn without_elicitation_an_ask_is_a_deny_that_names_what_would_allow_it() {
    let cwd = tempfile::tempdir().unwrap();
    let (report, _) = serve_with_python(cwd.path(), json!([touch("never.txt")]), None);
    let call = &report["calls"][0];
    assert_eq!(call["result"]["isError"], true, "{report}");
    assert!(report["elicitations"].as_array().unwrap().is_empty());
    let text = text(call);
    assert!(
        text.contains("--allowed-tools")
            || text.contains("allow rule")
            || text.contains("--permission-mode"),
        "the deny names a rule or flag: {text}"
    );
    assert!(!cwd.path().join("never.txt").exists());
}

#[test]
fn rmcps_log_lines_do_not_reach_the_terminal() {
    let cwd = tempfile::tempdir().unwrap();
    // an unknown tool: rmcp logs the protocol error it sends at WARN
    let (report, stderr) = serve_with_python(
        cwd.path(),
        json!([{"name": "NoSuchTool", "arguments": {}}]),
        None,
    );
    assert!(report["calls"][0]["error"].is_string(), "{report}");
    for internal in ["ErrorData", "rmcp", "response error"] {
        assert!(
            !stderr.contains(internal),
            "{internal} on the terminal:\n{stderr}"
        );
    }
}

/// A command tool declared in settings, served to the Python SDK: its
/// annotations come from its flags, its lines arrive as structured content
/// matching its output schema, and an ask shows the argv it would run.
#[test]
fn a_declared_command_tool_is_served_with_annotations_and_structured_lines() {
    let cwd = tempfile::tempdir().unwrap();
    let root = cwd.path();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_AUTHOR_NAME", "Ada")
            .env("GIT_AUTHOR_EMAIL", "ada@example.com")
            .env("GIT_COMMITTER_NAME", "Ada")
            .env("GIT_COMMITTER_EMAIL", "ada@example.com")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(root.join("a.txt"), "a").unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "the first commit"]);
    std::fs::create_dir(root.join(".tack")).unwrap();
    std::fs::write(
        root.join(".tack/settings.local.json"),
        json!({
            "tools": {
                "git_log": {
                    "description": "Recent commits of this repository, newest first.",
                    "command": ["git", "log", "--format=%s", "-n", "{limit}"],
                    "inputSchema": {"type": "object", "properties": {
                        "limit": {"type": "integer", "minimum": 1, "default": 20}}},
                    "readOnly": true, "output": "lines", "cwd": "{project}"
                },
                "git_tag": {
                    "description": "Tags the current commit.",
                    "command": ["git", "tag", "{name}"],
                    "inputSchema": {"type": "object", "required": ["name"],
                                    "properties": {"name": {"type": "string"}}},
                    "destructive": false, "idempotent": true, "cwd": "{project}"
                }
            },
            "permissions": {"allow": ["git_log"]}
        })
        .to_string(),
    )
    .unwrap();
    let calls = json!([
        {"name": "git_log", "arguments": {"limit": 1}},
        {"name": "git_tag", "arguments": {"name": "v1 beta"}}
    ]);
    let (report, _) = serve_with_python(root, calls, Some("deny:tags are for humans"));
    let tools = report["tools"].as_array().unwrap();
    let log = tools
        .iter()
        .find(|t| t["name"] == "git_log")
        .expect("git_log served");
    assert_eq!(log["annotations"]["readOnlyHint"], true, "{log}");
    assert_eq!(log["annotations"]["idempotentHint"], true, "{log}");
    assert_eq!(
        log["outputSchema"]["properties"]["lines"]["type"], "array",
        "{log}"
    );
    let tag = tools
        .iter()
        .find(|t| t["name"] == "git_tag")
        .expect("git_tag served");
    assert_eq!(tag["annotations"]["readOnlyHint"], false, "{tag}");
    assert_eq!(tag["annotations"]["idempotentHint"], true, "{tag}");

    let call = &report["calls"][0];
    assert_eq!(call["result"]["isError"], false, "{report}");
    assert_eq!(
        call["result"]["structuredContent"],
        json!({"lines": ["the first commit"], "exitCode": 0}),
        "{report}"
    );
    let call = &report["calls"][1];
    assert_eq!(call["result"]["isError"], true, "{report}");
    assert!(text(call).contains("tags are for humans"), "{report}");
    let message = report["elicitations"][0]["message"].as_str().unwrap();
    assert!(message.contains("git_tag(git tag 'v1 beta')"), "{message}");
}

#[test]
fn the_code_tool_is_served_and_its_nested_calls_meet_the_rules() {
    let cwd = tempfile::tempdir().unwrap();
    let root = cwd.path();
    std::fs::write(root.join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::create_dir(root.join(".tack")).unwrap();
    std::fs::write(
        root.join(".tack/settings.local.json"),
        json!({"codeMode": true, "permissions": {"deny": ["Bash(rm *)"]}}).to_string(),
    )
    .unwrap();
    let program = format!(
        "const t = await tools.Read({{file_path: {}}});\n\
         try {{ await tools.Bash({{command: 'rm notes.txt'}}) }} catch (e) {{ console.log(e.kind) }}\n\
         return t.split('\\n').length",
        serde_json::to_string(&root.join("notes.txt")).unwrap()
    );
    let calls = json!([{"name": "Code", "arguments": {"code": program}}]);
    let (report, _) = serve_with_python(root, calls, None);
    assert!(
        report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "Code"),
        "{report}"
    );
    let call = &report["calls"][0];
    let out = text(call);
    assert!(out.contains("denied"), "{call}");
    assert!(out.contains("returned: "), "{call}");
    assert!(root.join("notes.txt").exists(), "the denied rm did not run");
}
