//! What hook scripts receive, end to end: a real PostToolUse hook records
//! its stdin for every built-in tool's call under `tack run`, and each
//! payload is checked against Claude Code's shape (key names and types);
//! a PreToolUse hook's `ask` without a terminal is recorded as that hook's.

use super::*;

/// Settings (the user's local file) with a PostToolUse hook on every tool
/// that saves each stdin to a file of its own in `payloads/`.
fn record_post_tool_use(w: &World, extra: Value) -> PathBuf {
    let payloads = w.cwd.path().join("payloads");
    std::fs::create_dir_all(&payloads).unwrap();
    let hook = format!("cat > \"$(mktemp '{}/post.XXXXXX')\"", payloads.display());
    let mut settings = json!({"hooks": {"PostToolUse": [
        {"matcher": "*", "hooks": [{"type": "command", "command": hook}]}]}});
    if let (Some(s), Some(extra)) = (settings.as_object_mut(), extra.as_object()) {
        s.extend(extra.clone());
    }
    let dir = w.cwd.path().join(".tack");
    std::fs::create_dir_all(&dir).unwrap();
    git_init(w.cwd.path());
    std::fs::write(dir.join("settings.local.json"), settings.to_string()).unwrap();
    payloads
}

/// Runs `tack run` with every built-in allowed; returns the payloads by tool_use_id.
async fn run_and_collect(w: &World, payloads: &Path) -> std::collections::HashMap<String, Value> {
    let mut cmd = w.tack();
    cmd.args([
        "run",
        "--trust-project-settings",
        "--permission-mode",
        "bypassPermissions",
        "x",
    ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::read_dir(payloads)
        .unwrap()
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            (v["tool_use_id"].as_str().unwrap().to_owned(), v)
        })
        .collect()
}

/// The JSON type of the value at `pointer`, or "missing".
fn kind(v: &Value, pointer: &str) -> &'static str {
    match v.pointer(pointer) {
        None => "missing",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

/// Asserts each `(pointer, type)` of `v`.
fn assert_shape(v: &Value, shape: &[(&str, &str)]) {
    for (pointer, want) in shape {
        assert_eq!(kind(v, pointer), *want, "{pointer} in {v:#}");
    }
}

/// Every tool event's fields besides the tool's own (protocols.md §3, protocols-2.md §6).
fn assert_common(v: &Value, tool: &str) {
    assert_eq!(v["hook_event_name"], "PostToolUse");
    assert_eq!(v["tool_name"], tool);
    assert_eq!(v["permission_mode"], "bypassPermissions");
    assert_shape(
        v,
        &[
            ("/session_id", "string"),
            ("/transcript_path", "string"),
            ("/cwd", "string"),
            ("/tool_input", "object"),
            ("/tool_use_id", "string"),
            ("/duration_ms", "number"),
            ("/tool_response", "object"),
        ],
    );
}

#[tokio::test]
async fn write_read_edit_send_claude_codes_tool_response() {
    let w = World::new(vec![]).await;
    let file = w.cwd.path().join("notes.txt");
    let path = file.display().to_string();
    w.mock.push_all(vec![
        Step::tool_use(
            "t_create",
            "Write",
            json!({"file_path": path, "content": "alpha\nbeta\n"}),
        ),
        Step::tool_use("t_read", "Read", json!({"file_path": path})),
        Step::tool_use(
            "t_edit",
            "Edit",
            json!({"file_path": path, "old_string": "beta", "new_string": "gamma"}),
        ),
        Step::tool_use(
            "t_update",
            "Write",
            json!({"file_path": path, "content": "one line\n"}),
        ),
        Step::text("done"),
    ]);
    let payloads = record_post_tool_use(&w, json!({}));
    let got = run_and_collect(&w, &payloads).await;

    let create = &got["t_create"];
    assert_common(create, "Write");
    assert_eq!(create["tool_response"]["type"], "create");
    assert_eq!(create["tool_response"]["filePath"], path.as_str());
    assert_eq!(create["tool_response"]["content"], "alpha\nbeta\n");
    assert_shape(
        create,
        &[
            ("/tool_response/structuredPatch", "array"),
            ("/tool_response/originalFile", "null"),
        ],
    );

    let read = &got["t_read"];
    assert_common(read, "Read");
    assert_eq!(
        read["tool_response"],
        json!({"type": "text", "file": {"filePath": path, "content": "alpha\nbeta",
            "numLines": 2, "startLine": 1, "totalLines": 2}}),
        "the content without Read's line numbers"
    );

    let edit = &got["t_edit"];
    assert_common(edit, "Edit");
    let r = &edit["tool_response"];
    assert_eq!(r["filePath"], path.as_str());
    assert_eq!(r["oldString"], "beta");
    assert_eq!(r["newString"], "gamma");
    assert_eq!(r["originalFile"], "alpha\nbeta\n");
    assert_eq!(r["replaceAll"], false);
    assert_eq!(r["userModified"], false);
    assert_eq!(
        r["structuredPatch"],
        json!([{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2,
            "lines": [" alpha", "-beta", "+gamma"]}])
    );

    let update = &got["t_update"];
    assert_eq!(update["tool_response"]["type"], "update");
    assert_eq!(update["tool_response"]["originalFile"], "alpha\ngamma\n");
    assert_shape(
        update,
        &[
            ("/tool_response/structuredPatch/0/oldStart", "number"),
            ("/tool_response/structuredPatch/0/oldLines", "number"),
            ("/tool_response/structuredPatch/0/newStart", "number"),
            ("/tool_response/structuredPatch/0/newLines", "number"),
            ("/tool_response/structuredPatch/0/lines", "array"),
        ],
    );
}

#[tokio::test]
async fn bash_and_its_background_tools_send_claude_codes_tool_response() {
    let w = World::new(vec![
        Step::tool_use(
            "t_fg",
            "Bash",
            json!({"command": "echo out; echo err >&2; exit 3"}),
        ),
        Step::tool_use(
            "t_bg",
            "Bash",
            json!({"command": "echo started; sleep 30", "run_in_background": true}),
        ),
        Step::tool_use("t_wait", "Bash", json!({"command": "sleep 0.3"})),
        Step::tool_use("t_out", "BashOutput", json!({"bash_id": "bash_1"})),
        Step::tool_use("t_kill", "KillShell", json!({"shell_id": "bash_1"})),
        Step::text("done"),
    ])
    .await;
    let payloads = record_post_tool_use(&w, json!({}));
    let got = run_and_collect(&w, &payloads).await;

    let fg = &got["t_fg"];
    assert_common(fg, "Bash");
    assert_eq!(fg["tool_response"]["stdout"], "out\nerr\n", "{fg:#}");
    assert_eq!(fg["tool_response"]["stderr"], "");
    assert_eq!(fg["tool_response"]["interrupted"], false);
    assert_eq!(
        kind(fg, "/tool_response/exit_code"),
        "missing",
        "Claude Code sends no exit code"
    );

    let bg = &got["t_bg"];
    assert_eq!(bg["tool_response"]["backgroundTaskId"], "bash_1");
    assert_eq!(bg["tool_response"]["stdout"], "");

    let out = &got["t_out"];
    assert_common(out, "BashOutput");
    let r = &out["tool_response"];
    assert_eq!(r["shellId"], "bash_1");
    assert_eq!(r["command"], "echo started; sleep 30");
    assert_eq!(r["status"], "running");
    assert_eq!(r["stdout"], "started\n");
    assert_eq!(r["stdoutLines"], 1);
    assert_shape(
        out,
        &[
            ("/tool_response/timestamp", "string"),
            ("/tool_response/stderr", "string"),
        ],
    );

    let kill = &got["t_kill"];
    assert_common(kill, "KillShell");
    assert_eq!(kill["tool_response"]["shell_id"], "bash_1");
    assert_shape(kill, &[("/tool_response/message", "string")]);
}

/// A one-page HTTP server on 127.0.0.1 (for WebFetch).
fn serve_page(body: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/page", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        use std::io::{Read as _, Write as _};
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

#[tokio::test]
async fn search_todo_web_and_read_output_send_claude_codes_tool_response() {
    let w = World::new(vec![]).await;
    // Apart from the recorded payloads, which name the pattern too.
    let src = w.cwd.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("a.txt"), "needle one\nhay\nneedle two\n").unwrap();
    std::fs::write(src.join("b.txt"), "hay\n").unwrap();
    let src = src.display().to_string();
    let url = serve_page("plain page text");
    let todos =
        json!([{"content": "Write tests", "status": "in_progress", "activeForm": "Writing tests"}]);
    w.mock.push_all(vec![
        Step::tool_use("t_glob", "Glob", json!({"pattern": "*.txt", "path": src})),
        Step::tool_use("t_files", "Grep", json!({"pattern": "needle", "path": src})),
        Step::tool_use(
            "t_content",
            "Grep",
            json!({"pattern": "needle", "path": src, "output_mode": "content"}),
        ),
        Step::tool_use(
            "t_count",
            "Grep",
            json!({"pattern": "needle", "path": src, "output_mode": "count"}),
        ),
        Step::tool_use("t_todo", "TodoWrite", json!({"todos": todos})),
        Step::tool_use(
            "t_web",
            "WebFetch",
            json!({"url": url, "prompt": "what does it say?"}),
        ),
        Step::tool_use("t_seq", "Bash", json!({"command": "seq 1 500"})),
        Step::tool_use(
            "t_art",
            "ReadOutput",
            json!({"artifact": "art_t_seq", "start_line": 10, "end_line": 12}),
        ),
        Step::text("done"),
    ]);
    let payloads = record_post_tool_use(
        &w,
        json!({"webFetch": {"allowPrivate": true}, "outputBudget": {"tools": {"Bash": 200}}}),
    );
    let got = run_and_collect(&w, &payloads).await;
    let a = format!("{src}/a.txt");

    let glob = &got["t_glob"];
    assert_common(glob, "Glob");
    assert_eq!(glob["tool_response"]["numFiles"], 2);
    assert_eq!(glob["tool_response"]["truncated"], false);
    assert_shape(
        glob,
        &[
            ("/tool_response/durationMs", "number"),
            ("/tool_response/filenames/0", "string"),
        ],
    );

    let files = &got["t_files"]["tool_response"];
    assert_eq!(files["mode"], "files_with_matches");
    assert_eq!(files["numFiles"], 1);
    assert_eq!(files["filenames"], json!([a]));

    let content = &got["t_content"]["tool_response"];
    assert_eq!(content["mode"], "content");
    assert_eq!(content["numLines"], 2);
    assert_eq!(content["filenames"], json!([a]));
    assert!(
        content["content"]
            .as_str()
            .unwrap()
            .contains("1:needle one"),
        "{content}"
    );

    let count = &got["t_count"]["tool_response"];
    assert_eq!(count["mode"], "count");
    assert_eq!(count["numMatches"], 2);
    assert_eq!(count["numFiles"], 1);

    let todo = &got["t_todo"];
    assert_common(todo, "TodoWrite");
    assert_eq!(
        todo["tool_response"],
        json!({"oldTodos": [], "newTodos": todos})
    );

    let web = &got["t_web"];
    assert_common(web, "WebFetch");
    let r = &web["tool_response"];
    assert_eq!(r["code"], 200);
    assert_eq!(r["codeText"], "OK");
    assert_eq!(r["url"], url.as_str());
    assert_eq!(r["bytes"], "plain page text".len());
    assert!(
        r["result"].as_str().unwrap().contains("plain page text"),
        "{r}"
    );
    assert_shape(web, &[("/tool_response/durationMs", "number")]);

    let art = &got["t_art"];
    assert_common(art, "ReadOutput");
    assert_eq!(art["tool_response"]["artifact"], "art_t_seq");
    assert_eq!(art["tool_response"]["totalLines"], 500);
    assert!(
        art["tool_response"]["content"]
            .as_str()
            .unwrap()
            .contains("\t11\n")
    );
}

#[tokio::test]
async fn a_hooks_ask_without_a_terminal_is_denied_as_that_hooks_with_its_reason() {
    let w = World::new(vec![
        Step::tool_use("t1", "Bash", json!({"command": "touch ran"})),
        Step::text("ok"),
    ])
    .await;
    let dir = w.cwd.path().join(".tack");
    std::fs::create_dir_all(&dir).unwrap();
    git_init(w.cwd.path());
    let hook = r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"touching files needs a human"}}'"#;
    std::fs::write(
        dir.join("settings.local.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    )
    .unwrap();
    let mut cmd = w.tack();
    // The rules alone would allow the call: only the hook stands in its way.
    cmd.args([
        "run",
        "--trust-project-settings",
        "--allowed-tools",
        "Bash",
        "x",
    ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!w.cwd.path().join("ran").exists(), "the call did not run");

    let sent = &w.mock.requests()[1].body["messages"][2]["content"][0];
    assert_eq!(sent["is_error"], true);
    let text = sent["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("asked for confirmation and no one could answer")
            && text.contains("touching files needs a human")
            && text.contains("hook `printf"),
        "{text}"
    );

    let log = w.tack().args(["log", "--json"]).output().unwrap();
    assert_eq!(log.status.code(), Some(0), "{}", stderr(&log));
    let row: Value = serde_json::from_str(stdout(&log).lines().next().unwrap()).unwrap();
    assert_eq!(row["audit"]["decision"], "deny", "{row}");
    let by = row["audit"]["decided_by"].as_str().unwrap();
    assert!(
        by.starts_with("hook `printf") && by.contains("no terminal"),
        "{by}"
    );
    assert!(
        !by.contains("mode"),
        "not put down to the permission mode: {by}"
    );
}

/// Red-team round 12: a PreToolUse hook's `allow` skips the prompt a mode
/// would show, never an ask a rule makes: not an ask rule's, and not the
/// ask that stands for a deny rule tack cannot check (`X=rm; $X f` under
/// `deny Bash(rm *)`), which a program answering asks cannot see either.
#[tokio::test]
async fn a_hooks_allow_does_not_answer_an_ask_a_rule_makes() {
    let w = World::new(vec![
        Step::tool_use("t1", "Bash", json!({"command": "X=rm; $X victim1"})),
        Step::tool_use(
            "t2",
            "Bash",
            json!({"command": "S='rm victim2'; eval \"$S\""}),
        ),
        Step::tool_use("t3", "Bash", json!({"command": "touch asked"})),
        Step::tool_use("t4", "Bash", json!({"command": "touch plain"})),
        Step::text("ok"),
    ])
    .await;
    let dir = w.cwd.path().join(".tack");
    std::fs::create_dir_all(&dir).unwrap();
    git_init(w.cwd.path());
    for f in ["victim1", "victim2"] {
        std::fs::write(w.cwd.path().join(f), "keep me").unwrap();
    }
    let hook = r#"printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'"#;
    std::fs::write(
        dir.join("settings.local.json"),
        json!({
            "permissions": {"deny": ["Bash(rm *)"], "ask": ["Bash(touch asked)"]},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]}
        })
        .to_string(),
    )
    .unwrap();
    let mut cmd = w.tack();
    cmd.args(["run", "--trust-project-settings", "x"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cwd = w.cwd.path();
    assert!(cwd.join("victim1").exists(), "X=rm; $X ran");
    assert!(cwd.join("victim2").exists(), "eval ran");
    assert!(
        !cwd.join("asked").exists(),
        "the ask rule was answered by the hook"
    );
    // With no rule in the way, the hook's allow skips the mode's prompt.
    assert!(cwd.join("plain").exists(), "the hook's allow was not taken");

    let log = w.tack().args(["log", "--json"]).output().unwrap();
    let rows: Vec<Value> = stdout(&log)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["audit"]["decision"].is_string())
        .collect();
    let by: Vec<&str> = rows
        .iter()
        .map(|r| r["audit"]["decided_by"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(rows.len(), 4, "{by:?}");
    for row in &rows[..3] {
        assert_eq!(row["audit"]["decision"], "deny", "{row}");
    }
    assert_eq!(rows[3]["audit"]["decision"], "allow", "{by:?}");
}
