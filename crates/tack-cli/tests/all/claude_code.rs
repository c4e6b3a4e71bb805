//! Claude Code's command line and output shapes (`tack -p`, camelCase
//! flags, `--output-format json|stream-json` as `claude -p` prints them,
//! `--input-format stream-json`, `--permission-prompt-tool`).

use super::*;

const MODEL: &str = "claude-sonnet-4-5";

impl World {
    /// `tack ARGS` (e.g. `-p …`) to the end, with `stdin` as its input.
    async fn tack_with_stdin(&self, args: &[&str], stdin: &str) -> Output {
        let mut cmd = self.tack();
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let stdin = stdin.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut child = cmd.spawn().unwrap();
            use std::io::Write as _;
            let mut pipe = child.stdin.take().unwrap();
            pipe.write_all(stdin.as_bytes()).unwrap();
            drop(pipe);
            child.wait_with_output().unwrap()
        })
        .await
        .unwrap()
    }

    async fn tack_args(&self, args: &[&str]) -> Output {
        self.tack_with_stdin(args, "").await
    }
}

fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A value's shape: objects keep their keys, arrays the shape of their
/// first element, scalars become their type name. Ids, durations, costs
/// and the model name (a key of modelUsage) are thereby normalised.
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let k = if map.len() == 1 && v.get("inputTokens").is_some() {
                        "<model>".to_owned()
                    } else {
                        k.clone()
                    };
                    (k, shape(v))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.first().map(shape).into_iter().collect()),
        Value::String(_) => json!("string"),
        Value::Number(_) => json!("number"),
        Value::Bool(_) => json!("boolean"),
        Value::Null => json!("null"),
    }
}

/// Every key of `golden` is in `got` with the same type (recursively, where
/// both have something to compare); `got` has no key outside `golden` but
/// `extra`. `path` names the place in a failure.
fn same_shape(golden: &Value, got: &Value, extra: &[&str], path: &str) {
    // A tool's input is the tool's own: only its type is Claude Code's.
    if path.ends_with(".input") || path.ends_with(".tool_input") {
        assert!(got.is_object(), "{path} is not an object: {got}");
        return;
    }
    match (golden, got) {
        // modelUsage: keyed by the model's name.
        (Value::Object(g), Value::Object(o))
            if g.len() == 1 && g.values().all(|v| v.get("inputTokens").is_some()) =>
        {
            assert_eq!(o.len(), 1, "{path}: one model: {got}");
            let (g, o) = (g.values().next().unwrap(), o.values().next().unwrap());
            same_shape(g, o, extra, &format!("{path}.<model>"));
        }
        (Value::Object(g), Value::Object(o)) => {
            for (k, gv) in g {
                let ov = o
                    .get(k)
                    .unwrap_or_else(|| panic!("{path}.{k} is missing: {got}"));
                same_shape(gv, ov, extra, &format!("{path}.{k}"));
            }
            for k in o.keys() {
                assert!(
                    g.contains_key(k) || extra.contains(&k.as_str()),
                    "{path}.{k} is not in Claude Code's output"
                );
            }
        }
        (Value::Array(g), Value::Array(o)) => {
            if let (Some(g), Some(o)) = (g.first(), o.first()) {
                same_shape(g, o, extra, &format!("{path}[0]"));
            }
        }
        // stop_reason is a string or null, in both.
        (Value::String(_), Value::String(_)) | (Value::Null, Value::Null) => {}
        (Value::String(_) | Value::Null, Value::String(_) | Value::Null)
            if path.ends_with("stop_reason") => {}
        (g, o) => assert_eq!(shape(g), shape(o), "{path} has another type"),
    }
}

fn golden(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name),
    )
    .unwrap()
}

#[tokio::test]
async fn json_output_has_claude_codes_result_shape() {
    let w = World::new(vec![
        Step::tool_uses([
            ("toolu_ok", "Echo", json!({"text": "ping"})),
            ("toolu_no", "Bash", json!({"command": "rm -rf build"})),
        ]),
        Step::text("The tool said ping."),
    ])
    .await;
    let out = w
        .tack_args(&[
            "-p",
            "--fixture-tools",
            "--model",
            MODEL,
            "--allowedTools",
            "Echo",
            "--disallowedTools",
            "Bash(rm *)",
            "--output-format",
            "json",
            "use echo",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "one object: {}", stdout(&out));
    let result = &lines[0];
    let want: Value = serde_json::from_str(&golden("claude_json_result.json")).unwrap();
    same_shape(&want, result, &[], "result");
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "The tool said ping.");
    assert_eq!(result["num_turns"], 2);
    assert_eq!(result["stop_reason"], "end_turn");
    // The denied call, with its input.
    assert_eq!(
        result["permission_denials"],
        json!([{"tool_name": "Bash", "tool_use_id": "toolu_no", "tool_input": {"command": "rm -rf build"}}])
    );
    // The cost is the price table's, for the usage reported.
    let usage = &result["usage"];
    let tokens = |k: &str| usage[k].as_f64().unwrap();
    let expected = (tokens("input_tokens") * 3.0
        + tokens("output_tokens") * 15.0
        + tokens("cache_creation_input_tokens") * 3.75
        + tokens("cache_read_input_tokens") * 0.3)
        / 1_000_000.0;
    let cost = result["total_cost_usd"].as_f64().unwrap();
    assert!(
        cost > 0.0 && (cost - expected).abs() < 1e-9,
        "{cost} vs {expected}"
    );
    let per_model = &result["modelUsage"][MODEL];
    assert_eq!(per_model["outputTokens"], usage["output_tokens"]);
    assert_eq!(per_model["contextWindow"], 200_000);
    assert!(result["duration_ms"].as_u64().unwrap() >= result["duration_api_ms"].as_u64().unwrap());
    // The session id is the session's: --resume finds it.
    let id = result["session_id"].as_str().unwrap();
    assert!(
        w.sessions_dir().join(format!("{id}.jsonl")).exists() || {
            std::fs::read_dir(w.sessions_dir())
                .unwrap()
                .any(|e| e.unwrap().file_name().to_string_lossy().contains(id))
        }
    );
}

#[tokio::test]
async fn an_unknown_model_costs_zero_and_says_so() {
    let w = World::new(vec![Step::text("hi")]).await;
    let out = w
        .tack_args(&[
            "-p",
            "--model",
            "my-local-model",
            "--output-format",
            "json",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["total_cost_usd"], 0.0);
    let note = result["cost_note"].as_str().unwrap();
    assert!(note.contains("my-local-model"), "{note}");
}

#[tokio::test]
async fn verbose_json_is_an_array_of_every_message_with_the_result_last() {
    let w = World::new(vec![
        Step::tool_use("toolu_1", "Echo", json!({"text": "ping"})),
        Step::text("done"),
    ])
    .await;
    let out = w
        .tack_args(&[
            "--print",
            "--fixture-tools",
            "--allowed-tools",
            "Echo",
            "--output-format",
            "json",
            "--verbose",
            "go",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let all: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let kinds: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["system", "assistant", "user", "assistant", "result"]
    );
    assert_eq!(all[4]["result"], "done");
}

#[tokio::test]
async fn stream_json_speaks_claude_codes_vocabulary() {
    let w = World::new(Vec::new()).await;
    let file = std::fs::canonicalize(w.cwd.path()).unwrap().join("a");
    std::fs::write(&file, "x\n").unwrap();
    w.mock.push_all(vec![
        Step::tool_use("toolu_1", "Read", json!({"file_path": file})),
        Step::text("done"),
    ]);
    let out = w
        .tack_args(&[
            "-p",
            "--fixture-tools",
            "--model",
            MODEL,
            "--allowed-tools",
            "Echo",
            "--output-format",
            "stream-json",
            "--verbose",
            "go",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let frames = json_lines(&out);
    let kinds: Vec<String> = frames
        .iter()
        .map(|f| {
            format!(
                "{}{}",
                f["type"].as_str().unwrap(),
                f["subtype"]
                    .as_str()
                    .map(|s| format!("/{s}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "system/init",
            "assistant",
            "user",
            "assistant",
            "result/success"
        ]
    );
    let golden: Vec<Value> = golden("claude_stream.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // init: Claude Code's keys, tack's version instead of claude_code_version.
    let mut init = golden[0].clone();
    let obj = init.as_object_mut().unwrap();
    obj.remove("claude_code_version");
    obj.insert("tack_version".into(), json!("0.0.0"));
    // An empty list in tack's frame has no element to compare.
    same_shape(&init, &frames[0], &[], "init");
    assert!(frames[0].get("claude_code_version").is_none());
    assert_eq!(frames[0]["tack_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(frames[0]["model"], MODEL);
    assert_eq!(frames[0]["permissionMode"], "default");
    assert_eq!(frames[0]["apiKeySource"], "ANTHROPIC_API_KEY");
    assert!(
        frames[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "Echo")
    );
    // assistant: one API message per frame.
    same_shape(&golden[1], &frames[1], &[], "assistant");
    assert_eq!(frames[1]["message"]["content"][0]["type"], "tool_use");
    assert_eq!(frames[1]["message"]["content"][0]["id"], "toolu_1");
    assert_eq!(frames[3]["message"]["content"][0]["text"], "done");
    // user: the tool result, and the tool's output as tool_use_result.
    let mut user = golden[2].clone();
    user["message"]["content"][0]["is_error"] = json!(false);
    same_shape(&user, &frames[2], &[], "user");
    assert_eq!(frames[2]["message"]["content"][0]["tool_use_id"], "toolu_1");
    // Read's own output object, as Claude Code sends it (and hooks get it).
    let read = &frames[2]["tool_use_result"];
    assert_eq!(read["type"], "text");
    assert_eq!(read["file"]["filePath"], file.to_str().unwrap());
    assert_eq!(read["file"]["content"], "x");
    // result: as json prints it.
    same_shape(&golden[3], &frames[4], &[], "result");
    assert_eq!(frames[4]["result"], "done");
    let id = &frames[0]["session_id"];
    assert!(frames.iter().all(|f| &f["session_id"] == id));
    let uuids: std::collections::HashSet<&str> =
        frames.iter().map(|f| f["uuid"].as_str().unwrap()).collect();
    assert_eq!(uuids.len(), frames.len(), "every frame has its own uuid");
}

#[tokio::test]
async fn tacks_own_events_stay_available() {
    let w = World::new(vec![Step::text("hi")]).await;
    let out = w
        .tack_args(&["-p", "--output-format", "tack-json", "x"])
        .await;
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["status"], "completed");
    assert_eq!(result["text"], "hi");
    let w = World::new(vec![Step::text("hi")]).await;
    let out = w
        .tack_args(&["-p", "--output-format", "tack-stream-json", "x"])
        .await;
    let events = json_lines(&out);
    assert_eq!(events[0]["type"], "session_start");
    assert!(events.iter().any(|e| e["type"] == "text_delta"));
}

#[tokio::test]
async fn a_consumer_script_written_for_claude_p_works_unchanged() {
    let w = World::new(vec![Step::text("forty-two")]).await;
    let bin = Path::new(env!("CARGO_BIN_EXE_tack"));
    let dir = tempfile::tempdir().unwrap();
    // The script calls `claude`; here `claude` is tack.
    std::os::unix::fs::symlink(bin, dir.path().join("claude")).unwrap();
    let script = r#"
set -euo pipefail
out=$(claude -p --output-format json "what is the answer?")
if command -v jq >/dev/null; then
  echo "answer=$(echo "$out" | jq -r .result)"
  echo "error=$(echo "$out" | jq -r .is_error)"
  echo "turns=$(echo "$out" | jq -r .num_turns)"
  echo "session=$(echo "$out" | jq -r .session_id)"
else
  echo "$out"
fi
"#;
    let mut cmd = w.tack();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path);
    let mut cmd = {
        // The script runs under bash, with the environment of w.tack().
        let mut bash = Command::new("bash");
        bash.args(["-c", script]);
        for (k, v) in cmd.get_envs() {
            match v {
                Some(v) => bash.env(k, v),
                None => bash.env_remove(k),
            };
        }
        bash.current_dir(w.cwd.path()).stdin(Stdio::null());
        bash
    };
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    if text.starts_with("answer=") {
        assert!(text.contains("answer=forty-two\n"), "{text}");
        assert!(text.contains("error=false\n"), "{text}");
        assert!(text.contains("turns=1\n"), "{text}");
        assert!(!text.contains("session=null"), "{text}");
    } else {
        // No jq here: the same fields, read with serde.
        let v: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(v["result"], "forty-two");
        assert_eq!(v["is_error"], false);
    }
}

#[tokio::test]
async fn print_mode_reads_the_prompt_from_stdin() {
    let w = World::new(vec![Step::text("hi back")]).await;
    let out = w
        .tack_with_stdin(&["-p", "--output-format", "json"], "hello from stdin")
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["result"], "hi back");
    assert_eq!(
        w.mock.requests()[0].body["messages"][0]["content"][0]["text"],
        "hello from stdin"
    );
}

#[tokio::test]
async fn print_mode_takes_claude_codes_flags_in_both_spellings() {
    // --systemPrompt / --append-system-prompt / --model / --maxTurns.
    let w = World::new(vec![Step::tool_use(
        "toolu_1",
        "Echo",
        json!({"text": "a"}),
    )])
    .await;
    let out = w
        .tack_args(&[
            "-p",
            "--fixture-tools",
            "--allowed-tools",
            "Echo",
            "--systemPrompt",
            "You are terse.",
            "--appendSystemPrompt",
            "Answer in French.",
            "--model",
            "claude-haiku-4-5",
            "--maxTurns",
            "1",
            "--outputFormat",
            "json",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(4), "max turns: {}", stderr(&out));
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["is_error"], true);
    assert!(result.get("result").is_none(), "errors carry no result");
    assert!(result["errors"][0].as_str().unwrap().contains("max-turns"));
    let body = &w.mock.requests()[0].body;
    assert_eq!(body["model"], "claude-haiku-4-5");
    let system = body["system"].to_string();
    assert!(system.contains("You are terse."), "{system}");
    assert!(system.contains("Answer in French."), "{system}");

    // --permissionMode plan refuses a write; --disallowed-tools wins.
    let w = World::new(vec![
        Step::tool_use(
            "toolu_1",
            "Write",
            json!({"file_path": "/tmp/never-written-by-tack", "content": "x"}),
        ),
        Step::text("ok"),
    ])
    .await;
    let out = w
        .tack_args(&[
            "-p",
            "--permissionMode",
            "plan",
            "--output-format",
            "json",
            "x",
        ])
        .await;
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["permission_denials"][0]["tool_name"], "Write");
    assert!(!Path::new("/tmp/never-written-by-tack").exists());
}

#[tokio::test]
async fn dangerously_skip_permissions_runs_without_asking_but_deny_rules_hold() {
    let w = World::new(vec![
        Step::tool_uses([
            ("toolu_a", "Bash", json!({"command": "touch ran.txt"})),
            ("toolu_b", "Bash", json!({"command": "touch denied.txt"})),
        ]),
        Step::text("ok"),
    ])
    .await;
    let out = w
        .tack_args(&[
            "-p",
            "--dangerously-skip-permissions",
            "--disallowedTools",
            "Bash(touch denied.txt)",
            "--output-format",
            "json",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        w.cwd.path().join("ran.txt").exists(),
        "bypassPermissions ran it"
    );
    assert!(
        !w.cwd.path().join("denied.txt").exists(),
        "the deny rule held"
    );
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["permission_denials"][0]["tool_use_id"], "toolu_b");
    // The flag and --permission-mode together are a usage error.
    let out = w
        .tack_args(&[
            "-p",
            "--dangerously-skip-permissions",
            "--permission-mode",
            "plan",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(2));
}

#[tokio::test]
async fn settings_flag_is_a_layer_from_a_file_or_inline_json() {
    // Inline: its deny rule holds.
    let w = World::new(vec![
        Step::tool_use("toolu_1", "Bash", json!({"command": "touch inline.txt"})),
        Step::text("ok"),
    ])
    .await;
    let out = w
        .tack_args(&[
            "-p",
            "--dangerously-skip-permissions",
            "--settings",
            r#"{"permissions": {"deny": ["Bash(touch inline.txt)"]}}"#,
            "--output-format",
            "json",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!w.cwd.path().join("inline.txt").exists());
    // A file: its allow rule lets the command run without asking.
    let w = World::new(vec![
        Step::tool_use("toolu_1", "Bash", json!({"command": "touch file.txt"})),
        Step::text("ok"),
    ])
    .await;
    let file = w.state.path().join("extra-settings.json");
    std::fs::write(
        &file,
        r#"{"permissions": {"allow": ["Bash(touch file.txt)"]}}"#,
    )
    .unwrap();
    let out = w
        .tack_args(&[
            "-p",
            "--settings",
            file.to_str().unwrap(),
            "--output-format",
            "json",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(w.cwd.path().join("file.txt").exists(), "{}", stdout(&out));
    // A missing file or bad JSON is a usage error naming it.
    let out = w
        .tack_args(&["-p", "--settings", "/nonexistent/s.json", "x"])
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--settings /nonexistent/s.json"),
        "{}",
        stderr(&out)
    );
    let out = w.tack_args(&["-p", "--settings", "{not json", "x"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not valid JSON"), "{}", stderr(&out));
}

fn approver() -> (String, String) {
    let python =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tack-mcp/tests/python/.venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tack-mcp/tests/python/approver.py");
    assert!(
        python.exists(),
        "run crates/tack-mcp/tests/setup.sh first (the Python MCP SDK)"
    );
    (
        python.to_str().unwrap().to_owned(),
        script.to_str().unwrap().to_owned(),
    )
}

/// `tack -p --mcp-config <approver> --strict-mcp-config
/// --permission-prompt-tool mcp__approver__approve` on a Bash `command`.
async fn ask_approver(w: &World, command: &str, extra: &[&str]) -> (Output, Value) {
    ask_approver_input(w, json!({"command": command}), extra).await
}

/// [`ask_approver`] on a whole Bash input.
async fn ask_approver_input(w: &World, input: Value, extra: &[&str]) -> (Output, Value) {
    let (python, script) = approver();
    let log = w.state.path().join("approver.jsonl");
    let config = json!({"mcpServers": {"approver": {
        "command": python, "args": [script], "env": {"TACK_APPROVER_LOG": log}
    }}})
    .to_string();
    w.mock.push(Step::tool_use("toolu_ask", "Bash", input));
    w.mock.push(Step::text("done"));
    let mut args = vec![
        "-p",
        "--mcpConfig",
        &config,
        "--strict-mcp-config",
        "--permission-prompt-tool",
        "mcp__approver__approve",
        "--output-format",
        "json",
    ];
    args.extend_from_slice(extra);
    args.push("go");
    let out = w.tack_args(&args).await;
    let result: Value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    (out, result)
}

/// The tool_result the model got for the asked call.
fn model_saw(w: &World) -> String {
    let requests = w.mock.requests();
    let last = &requests.last().unwrap().body["messages"];
    last.as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result" && b["tool_use_id"] == "toolu_ask")
        .map(|b| b["content"].to_string())
        .collect()
}

/// An MCP tool marked `_meta["anthropic/requiresUserInteraction"]: true`
/// needs a person for every call, as in Claude Code: allowed whole and in
/// bypassPermissions, with a permission prompt tool that allows everything,
/// it is still refused without a terminal, saying why; the same server's
/// unmarked tool runs.
#[tokio::test]
async fn a_tool_that_needs_a_person_every_call_is_never_allowed_unattended() {
    let w = World::new(vec![]).await;
    let (python, script) = approver();
    let config =
        json!({"mcpServers": {"approver": {"command": python, "args": [script]}}}).to_string();
    let marked = w.cwd.path().join("marked.txt");
    let plain = w.cwd.path().join("plain.txt");
    let both_calls = || {
        w.mock.push(Step::tool_uses(vec![
            (
                "toolu_ask",
                "mcp__approver__grant_access",
                json!({"path": marked.to_str().unwrap()}),
            ),
            (
                "toolu_plain",
                "mcp__approver__grant_plain",
                json!({"path": plain.to_str().unwrap()}),
            ),
        ]));
        w.mock.push(Step::text("done"));
    };
    both_calls();
    for extra in [
        &["--permission-mode", "bypassPermissions"][..],
        &[
            "--allowedTools",
            "mcp__approver",
            "--permission-prompt-tool",
            "mcp__approver__approve",
        ][..],
    ] {
        let mut args = vec!["-p", "--mcpConfig", &config, "--strict-mcp-config"];
        args.extend_from_slice(extra);
        args.extend(["--output-format", "json", "go"]);
        let out = w.tack_args(&args).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(!marked.exists(), "{extra:?}: {}", model_saw(&w));
        assert!(plain.exists(), "{extra:?}: the unmarked tool runs");
        let saw = model_saw(&w);
        assert!(saw.contains("requiresUserInteraction"), "{saw}");
        std::fs::remove_file(&plain).unwrap();
        both_calls();
    }
}

#[tokio::test]
async fn the_permission_prompt_tool_allows() {
    let w = World::new(vec![]).await;
    let (out, result) = ask_approver(&w, "touch allow.txt", &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(w.cwd.path().join("allow.txt").exists(), "{}", model_saw(&w));
    assert_eq!(result["permission_denials"], json!([]));
    // It was sent Claude Code's payload.
    let sent = read_lines(&w.state.path().join("approver.jsonl"));
    assert_eq!(
        sent,
        [
            json!({"tool_name": "Bash", "input": {"command": "touch allow.txt"}, "tool_use_id": "toolu_ask"})
        ]
    );
}

#[tokio::test]
async fn the_permission_prompt_tool_denies_with_its_message() {
    let w = World::new(vec![]).await;
    let (_, result) = ask_approver(&w, "touch deny.txt", &[]).await;
    assert!(!w.cwd.path().join("deny.txt").exists());
    assert_eq!(result["permission_denials"][0]["tool_use_id"], "toolu_ask");
    let saw = model_saw(&w);
    assert!(saw.contains("Not allowed in CI"), "{saw}");
}

#[tokio::test]
async fn a_malformed_prompt_tool_reply_is_a_deny_that_says_why() {
    let w = World::new(vec![]).await;
    let (_, result) = ask_approver(&w, "touch malformed.txt", &[]).await;
    assert!(!w.cwd.path().join("malformed.txt").exists());
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    let saw = model_saw(&w);
    assert!(saw.contains("no usable answer"), "{saw}");
    assert!(saw.contains("sure, go ahead"), "{saw}");
}

#[tokio::test]
async fn a_dead_prompt_tool_server_is_a_deny() {
    let w = World::new(vec![]).await;
    let (_, _) = ask_approver(&w, "touch crash.txt", &[]).await;
    assert!(!w.cwd.path().join("crash.txt").exists());
    let saw = model_saw(&w);
    assert!(saw.contains("no usable answer"), "{saw}");
}

#[tokio::test]
async fn an_updated_input_meets_the_rules_again() {
    // The tool rewrites `touch smuggle.txt` into a curl a deny rule forbids.
    let w = World::new(vec![]).await;
    let (_, result) = ask_approver(
        &w,
        "touch smuggle.txt",
        &["--disallowedTools", "Bash(curl *)"],
    )
    .await;
    assert!(!w.cwd.path().join("smuggle.txt").exists());
    assert_eq!(result["permission_denials"][0]["tool_use_id"], "toolu_ask");
    let saw = model_saw(&w);
    assert!(saw.contains("changed input, which is denied"), "{saw}");
    // An allowed rewrite runs the new input, not the old one.
    let w = World::new(vec![]).await;
    let (out, _) = ask_approver(&w, "touch rewrite.txt", &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        w.cwd.path().join("rewritten.txt").exists(),
        "{}",
        model_saw(&w)
    );
    assert!(!w.cwd.path().join("rewrite.txt").exists());
    let log = w.tack().args(["log", "--json"]).output().unwrap();
    let log = stdout(&log);
    assert!(
        log.contains("touch rewritten.txt"),
        "the audit has the input as run: {log}"
    );
}

/// What only a person may allow, each time (a critical removal, a write to
/// a protected path, a command run outside the sandbox), never goes to the
/// permission prompt tool, which is a program: without a terminal it is
/// refused with the reason, though the tool would allow anything. Nor may
/// the tool's changed input turn an ordinary ask into one of these.
#[tokio::test]
async fn the_permission_prompt_tool_never_answers_for_a_person() {
    let sandboxed = json!({"sandbox": {"enabled": true}}).to_string();
    for (input, extra, kept, why) in [
        (
            json!({"command": "rm -rf * # allow"}),
            &[][..],
            "keep.txt",
            "critical removal",
        ),
        (
            json!({"command": "rm -fr ./* # allow"}),
            &[][..],
            "keep.txt",
            "critical removal",
        ),
        (
            json!({"command": "echo x > .mcp.json # allow"}),
            &[][..],
            ".mcp.json",
            "protected path",
        ),
        (
            json!({"command": "touch allow_out.txt", "dangerouslyDisableSandbox": true}),
            &["--settings", sandboxed.as_str()][..],
            "",
            "sandbox",
        ),
    ] {
        let w = World::new(vec![]).await;
        std::fs::write(w.cwd.path().join("keep.txt"), "keep").unwrap();
        let (out, result) = ask_approver_input(&w, input.clone(), extra).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let saw = model_saw(&w);
        assert!(
            w.cwd.path().join("keep.txt").exists(),
            "{input}: removed: {saw}"
        );
        match kept {
            ".mcp.json" => assert!(!w.cwd.path().join(".mcp.json").exists(), "{saw}"),
            "" => assert!(!w.cwd.path().join("allow_out.txt").exists(), "{saw}"),
            _ => {}
        }
        assert_eq!(
            result["permission_denials"][0]["tool_use_id"], "toolu_ask",
            "{input}: {saw}"
        );
        assert!(saw.contains("only a person may allow"), "{input}: {saw}");
        assert!(saw.contains(why), "{input}: {saw}");
        assert!(
            !w.state.path().join("approver.jsonl").exists(),
            "{input}: the prompt tool was asked"
        );
    }
    // An ordinary ask goes to the tool; its answer may not escalate.
    let asked_in_sandbox =
        json!({"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": false}}).to_string();
    for (command, extra) in [
        ("touch escalate.txt", &[][..]),
        (
            "touch unsandbox.txt",
            &["--settings", asked_in_sandbox.as_str()][..],
        ),
    ] {
        let w = World::new(vec![]).await;
        std::fs::write(w.cwd.path().join("keep.txt"), "keep").unwrap();
        let (_, result) = ask_approver(&w, command, extra).await;
        let saw = model_saw(&w);
        assert!(w.cwd.path().join("keep.txt").exists(), "{command}: {saw}");
        assert!(!w.cwd.path().join("unsandbox.txt").exists(), "{saw}");
        assert_eq!(result["permission_denials"][0]["tool_use_id"], "toolu_ask");
        assert!(saw.contains("only a person may allow"), "{command}: {saw}");
        assert!(w.state.path().join("approver.jsonl").exists());
    }
}

#[tokio::test]
async fn a_permission_prompt_tool_that_is_not_there_is_a_usage_error() {
    let w = World::new(vec![Step::text("x")]).await;
    let out = w
        .tack_args(&[
            "-p",
            "--permission-prompt-tool",
            "mcp__nobody__approve",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("mcp__nobody__approve: no such tool"),
        "{}",
        stderr(&out)
    );
    let out = w
        .tack_args(&["-p", "--permission-prompt-tool", "approve", "x"])
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("mcp__<server>__<tool>"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn stream_json_input_runs_a_turn_per_user_line() {
    let w = World::new(vec![
        Step::text("first answer"),
        Step::text("second answer"),
    ])
    .await;
    let input = [
        json!({"type": "user", "message": {"role": "user", "content": "one"}, "parent_tool_use_id": null, "session_id": ""}),
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "two"}]}}),
    ]
    .map(|l| l.to_string())
    .join("\n");
    let out = w
        .tack_with_stdin(
            &[
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--verbose",
            ],
            &input,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let frames = json_lines(&out);
    let results: Vec<&Value> = frames.iter().filter(|f| f["type"] == "result").collect();
    assert_eq!(results.len(), 2, "{}", stdout(&out));
    assert_eq!(results[0]["result"], "first answer");
    assert_eq!(results[1]["result"], "second answer");
    assert_eq!(results[1]["num_turns"], 1, "per turn");
    assert_eq!(frames.iter().filter(|f| f["subtype"] == "init").count(), 1);
    // One conversation: the second request carries the first exchange.
    let second = &w.mock.requests()[1].body["messages"];
    assert_eq!(second.as_array().unwrap().len(), 3);
    assert_eq!(second[2]["content"][0]["text"], "two");
}

#[tokio::test]
async fn a_malformed_stream_json_line_is_a_clear_error_that_keeps_what_ran() {
    let w = World::new(vec![Step::text("first answer")]).await;
    let input = format!(
        "{}\n{{\"type\":\"user\",\"message\":\n",
        json!({"type": "user", "message": {"role": "user", "content": "one"}})
    );
    let out = w
        .tack_with_stdin(
            &[
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ],
            &input,
        )
        .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("stdin line 2"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 turn(s) before it ran"),
        "{}",
        stderr(&out)
    );
    let frames = json_lines(&out);
    assert_eq!(frames.last().unwrap()["result"], "first answer");
    // The first turn is in the session.
    let (_, lines) = w.transcript();
    assert!(
        lines
            .iter()
            .any(|l| l["message"]["content"][0]["text"] == "first answer")
    );
    // stream-json input needs stream-json output.
    let out = w
        .tack_with_stdin(
            &[
                "-p",
                "--input-format",
                "stream-json",
                "--output-format",
                "json",
            ],
            "",
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("needs --output-format stream-json"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn continue_and_resume_work_in_print_mode() {
    let w = World::new(vec![Step::text("first"), Step::text("second")]).await;
    let out = w.tack_args(&["-p", "--output-format", "json", "one"]).await;
    let first: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let out = w
        .tack_args(&["-p", "--continue", "--output-format", "json", "two"])
        .await;
    let second: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(second["session_id"], first["session_id"]);
    assert_eq!(
        w.mock.requests()[1].body["messages"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // --resume with the session_id a json result gave.
    w.mock.push(Step::text("third"));
    let id = first["session_id"].as_str().unwrap();
    let out = w
        .tack_args(&["-p", "--resume", id, "--output-format", "json", "three"])
        .await;
    let third: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(third["session_id"], id);
    assert_eq!(third["result"], "third");
    assert_eq!(
        w.mock.requests()[2].body["messages"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
}

#[tokio::test]
async fn claude_code_flags_tack_lacks_are_named() {
    let w = World::new(vec![]).await;
    let out = w
        .tack_args(&[
            "-p",
            "--include-partial-messages",
            "--output-format",
            "stream-json",
            "x",
        ])
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("--include-partial-messages is a Claude Code flag tack does not support yet"),
        "{}",
        stderr(&out)
    );
    assert!(w.mock.requests().is_empty());
}

#[tokio::test]
async fn add_dir_in_both_spellings() {
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("note.txt"), "outside").unwrap();
    let path = other.path().join("note.txt");
    let w = World::new(vec![
        Step::tool_use(
            "toolu_1",
            "Read",
            json!({"file_path": path.to_str().unwrap()}),
        ),
        Step::text("ok"),
    ])
    .await;
    let out = w
        .tack_args(&[
            "-p",
            "--addDir",
            other.path().to_str().unwrap(),
            "--output-format",
            "json",
            "x",
        ])
        .await;
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(
        result["permission_denials"],
        json!([]),
        "{}",
        model_saw_any(&w)
    );
    assert!(model_saw_any(&w).contains("outside"));
}

fn model_saw_any(w: &World) -> String {
    w.mock.requests().last().unwrap().body["messages"].to_string()
}

#[tokio::test]
async fn strict_mcp_config_leaves_out_the_projects_servers() {
    let (python, script) = approver();
    let w = World::new(vec![]).await;
    std::fs::write(
        w.cwd.path().join(".mcp.json"),
        json!({"mcpServers": {"project": {"command": "/bin/false"}}}).to_string(),
    )
    .unwrap();
    let config = json!({"mcpServers": {"approver": {"command": python, "args": [script]}}});
    let file = w.state.path().join("mcp.json");
    std::fs::write(&file, config.to_string()).unwrap();
    let servers = |out: &Output| -> Vec<(String, String)> {
        let frames = json_lines(out);
        frames[0]["mcp_servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_owned(),
                    s["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    w.mock.push(Step::text("a"));
    let both = w
        .tack_args(&[
            "-p",
            "--mcp-config",
            file.to_str().unwrap(),
            "--output-format",
            "stream-json",
            "x",
        ])
        .await;
    assert_eq!(both.status.code(), Some(0), "{}", stderr(&both));
    assert_eq!(
        servers(&both),
        [
            ("approver".to_owned(), "connected".to_owned()),
            ("project".to_owned(), "needs-approval".to_owned())
        ]
    );
    w.mock.push(Step::text("b"));
    let strict = w
        .tack_args(&[
            "-p",
            "--mcp-config",
            file.to_str().unwrap(),
            "--strict-mcp-config",
            "--output-format",
            "stream-json",
            "x",
        ])
        .await;
    // The second session offers the approver's cached tools at once: it is
    // connected, or still pending while its stale list (the Python SDK's
    // `ttlMs: 0`) is revalidated in the background.
    let strict_servers = servers(&strict);
    assert_eq!(strict_servers.len(), 1, "{strict_servers:?}");
    assert_eq!(strict_servers[0].0, "approver");
    assert!(
        ["connected", "pending"].contains(&strict_servers[0].1.as_str()),
        "{strict_servers:?}"
    );
    // Its tools are offered.
    let tools = json_lines(&strict)[0]["tools"].to_string();
    assert!(tools.contains("mcp__approver__approve"), "{tools}");
    // A --mcp-config that is not a file or JSON is a usage error naming it.
    let out = w.tack_args(&["-p", "--mcp-config", "nope.json", "x"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--mcp-config nope.json"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn an_api_error_is_a_result_with_is_error_and_the_error_text() {
    let w = World::new(vec![Step::error(401)]).await;
    let out = w.tack_args(&["-p", "--output-format", "json", "x"]).await;
    assert_eq!(
        out.status.code(),
        Some(3),
        "tack's exit code: {}",
        stderr(&out)
    );
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["num_turns"], 0);
    assert!(
        result["result"].as_str().unwrap().contains("401"),
        "{result}"
    );
}

/// Red-team round 12: the ask that stands for a deny rule tack cannot check
/// (`X=rm; $X f` under `deny Bash(rm *)`) is a person's: the prompt tool,
/// which is sent only the call and not the rule, is not asked. An ordinary
/// ask it answers is recorded as the tool's answer, not the user's.
#[tokio::test]
async fn the_permission_prompt_tool_does_not_answer_for_an_unchecked_deny_rule() {
    let deny_rm = json!({"permissions": {"deny": ["Bash(rm *)"]}}).to_string();
    for command in [
        "X=rm; $X keep.txt # allow",
        "echo rm keep.txt | bash # allow",
    ] {
        let w = World::new(vec![]).await;
        std::fs::write(w.cwd.path().join("keep.txt"), "keep").unwrap();
        let (out, result) = ask_approver(&w, command, &["--settings", &deny_rm]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let saw = model_saw(&w);
        assert!(w.cwd.path().join("keep.txt").exists(), "{command}: {saw}");
        assert_eq!(result["permission_denials"][0]["tool_use_id"], "toolu_ask");
        assert!(saw.contains("only a person may allow"), "{command}: {saw}");
        assert!(
            !w.state.path().join("approver.jsonl").exists(),
            "{command}: the prompt tool was asked"
        );
    }

    let w = World::new(vec![]).await;
    let (out, _) = ask_approver(&w, "touch allow.txt", &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(w.cwd.path().join("allow.txt").exists());
    let log = w.tack_args(&["log", "--json"]).await;
    let by: Vec<String> = stdout(&log)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| r["audit"]["decided_by"].as_str().map(str::to_owned))
        .collect();
    assert!(
        by.iter()
            .any(|b| b.starts_with("the permission prompt tool mcp__approver__approve")),
        "{by:?}"
    );
    assert!(!by.iter().any(|b| b.contains("the user")), "{by:?}");
}
