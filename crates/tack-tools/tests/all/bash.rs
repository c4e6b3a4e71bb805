//! Bash, BashOutput and KillShell against real shells and processes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput};
use tack_tools::bash::bash_tools;
use tokio_util::sync::CancellationToken;

/// A session's shell tools in a temporary directory.
struct Session {
    tools: Vec<Arc<dyn Tool>>,
    dir: tempfile::TempDir,
}

impl Session {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        Self {
            tools: bash_tools(root),
            dir,
        }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn tool(&self, name: &str) -> &Arc<dyn Tool> {
        self.tools.iter().find(|t| t.name() == name).unwrap()
    }

    fn ctx(&self, cancel: CancellationToken) -> ToolContext {
        ToolContext::new(self.root(), "s1", "toolu_1", cancel)
    }

    async fn call(&self, name: &str, input: Value) -> Result<ToolOutput, ToolError> {
        self.tool(name)
            .call(input, self.ctx(CancellationToken::new()))
            .await
    }

    /// Runs a command and returns the result text; panics on a tool error.
    async fn run(&self, command: &str) -> String {
        text(
            &self
                .call("Bash", json!({ "command": command }))
                .await
                .unwrap(),
        )
    }
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

/// Whether a process exists and is not a zombie.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let after = &stat[stat.rfind(')').unwrap() + 1..];
            !matches!(after.trim_start().chars().next(), Some('Z' | 'X'))
        }
        Err(_) => false,
    }
}

/// Waits up to 3 s for a process to be gone.
async fn gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// The first number printed on a line of its own.
fn first_pid(text: &str) -> i32 {
    text.lines()
        .find_map(|l| l.trim().parse::<i32>().ok())
        .unwrap_or_else(|| panic!("no pid in {text:?}"))
}

#[tokio::test]
async fn stdout_and_stderr_interleave_in_print_order() {
    let s = Session::new();
    let out = s.run("echo a; echo b >&2; echo c; echo d >&2").await;
    assert_eq!(out, "a\nb\nc\nd\n");
}

#[tokio::test]
async fn non_zero_exit_codes_are_reported() {
    let s = Session::new();
    let out = s
        .call("Bash", json!({"command": "echo oops; exit 3"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "oops\nExit code: 3");
    assert_eq!(out.structured.as_ref().unwrap()["exit_code"], 3);

    let ok = s.call("Bash", json!({"command": "true"})).await.unwrap();
    assert_eq!(text(&ok), "(no output)");
    assert_eq!(ok.structured.as_ref().unwrap()["exit_code"], 0);

    assert_eq!(s.run("false").await, "Exit code: 1");
    // a syntax error is the shell's exit code 2, with its message
    let syntax = s.run("if then").await;
    assert!(syntax.contains("syntax error"), "{syntax}");
    assert!(syntax.ends_with("Exit code: 2"), "{syntax}");
}

#[tokio::test]
async fn output_beyond_30_mb_keeps_its_head_and_tail() {
    let s = Session::new();
    let out = s
        .call(
            "Bash",
            json!({"command": "echo FIRST; head -c 40000000 /dev/zero | tr '\\0' x; echo; echo LAST"}),
        )
        .await
        .unwrap();
    let body = text(&out);
    let omitted = out.structured.as_ref().unwrap()["omitted_bytes"]
        .as_u64()
        .unwrap();
    let total = 6 + 40_000_000 + 1 + 5;
    assert_eq!(omitted, total - 30 * 1024 * 1024);
    assert!(body.starts_with("FIRST\nxxx"));
    assert!(body.ends_with("xxx\nLAST\n"));
    assert!(body.contains(&format!("[… {omitted} bytes of output omitted here")));
    assert!(body.len() < 30 * 1024 * 1024 + 200);
}

#[tokio::test]
async fn a_signal_death_is_reported() {
    let s = Session::new();
    let out = s.run("kill -9 $$").await;
    assert!(out.contains("Terminated by signal 9 (SIGKILL)"), "{out}");
}

#[tokio::test]
async fn cd_persists_between_calls_of_a_session_only() {
    let s = Session::new();
    let root = s.root();
    std::fs::create_dir(root.join("my dir")).unwrap();
    let moved = s.run("cd \"my dir\"").await;
    assert!(moved.contains("Working directory is now"), "{moved}");
    assert_eq!(
        s.run("pwd").await.trim(),
        root.join("my dir").to_str().unwrap()
    );
    // also after `exit N` and a failure
    s.run("cd .. && exit 4").await;
    assert_eq!(s.run("pwd").await.trim(), root.to_str().unwrap());

    // another session starts in its own directory
    let other = Session::new();
    assert_eq!(
        other.run("pwd").await.trim(),
        other.root().to_str().unwrap()
    );
}

#[tokio::test]
async fn environment_is_inherited_but_exports_do_not_persist() {
    let s = Session::new();
    assert_eq!(
        s.run("echo \"$HOME\"").await.trim(),
        std::env::var("HOME").unwrap()
    );
    assert_eq!(s.run("export TACK_X=1; echo ${TACK_X}").await, "1\n");
    assert_eq!(s.run("echo ${TACK_X:-unset}").await, "unset\n");
    assert_eq!(s.run("GREETING=hi bash -c 'echo $GREETING'").await, "hi\n");
}

#[tokio::test]
async fn stdin_is_empty() {
    let s = Session::new();
    let started = Instant::now();
    assert_eq!(s.run("cat; echo done").await, "done\n");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn unicode_output_survives() {
    let s = Session::new();
    assert_eq!(
        s.run("printf 'héllo wörld ✓ 日本語 🦀\\n'").await,
        "héllo wörld ✓ 日本語 🦀\n"
    );
}

#[tokio::test]
async fn a_hung_command_is_killed_on_timeout_with_its_children() {
    let s = Session::new();
    let started = Instant::now();
    let out = s
        .call(
            "Bash",
            json!({"command": "sleep 1000 & echo $!; echo started; sleep 1000", "timeout": 700}),
        )
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let body = text(&out);
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(body.contains("started\n"), "{body}");
    assert!(body.contains("timed out after 700ms"), "{body}");
    assert_eq!(out.structured.as_ref().unwrap()["timed_out"], true);
    let child = first_pid(&body);
    assert!(
        gone(child).await,
        "the background child {child} survived the timeout"
    );
}

#[tokio::test]
async fn a_command_that_ignores_sigterm_is_killed() {
    let s = Session::new();
    let started = Instant::now();
    let out = s
        .run_with_timeout(
            "trap '' TERM; sh -c 'trap \"\" TERM; sleep 1000' & echo $!; wait",
            500,
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(gone(first_pid(&out)).await, "{out}");
}

impl Session {
    async fn run_with_timeout(&self, command: &str, ms: u64) -> String {
        text(
            &self
                .call("Bash", json!({"command": command, "timeout": ms}))
                .await
                .unwrap(),
        )
    }
}

#[tokio::test]
async fn cancellation_kills_the_group_and_returns_the_output_so_far() {
    let s = Session::new();
    let cancel = CancellationToken::new();
    let ctx = s.ctx(cancel.clone());
    let bash = Arc::clone(s.tool("Bash"));
    let call = tokio::spawn(async move {
        bash.call(
            json!({"command": "sleep 1000 & echo $!; echo working; sleep 1000"}),
            ctx,
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    let cancelled_at = Instant::now();
    cancel.cancel();
    let result = call.await.unwrap();
    // designed to stop within TERM_GRACE (250 ms), under the pipeline's
    // 500 ms cancel grace; the bound leaves room for a loaded machine
    assert!(
        cancelled_at.elapsed() < Duration::from_millis(1000),
        "slow to stop"
    );
    let Err(ToolError::Interrupted(message)) = result else {
        panic!("expected Interrupted, got {result:?}");
    };
    assert!(message.contains("working"), "{message}");
    assert!(gone(first_pid(&message)).await, "{message}");
}

#[tokio::test]
async fn timeout_bounds_are_checked_before_running() {
    let s = Session::new();
    let bash = s.tool("Bash");
    let ctx = s.ctx(CancellationToken::new());
    for bad in [0u64, 600_001, 10_000_000] {
        let err = bash
            .validate(&json!({"command": "touch ran", "timeout": bad}), &ctx)
            .unwrap_err();
        assert!(matches!(err, ToolError::InvalidInput(_)), "{bad}: {err:?}");
        let err = s
            .call("Bash", json!({"command": "touch ran", "timeout": bad}))
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::InvalidInput(_)), "{bad}: {err:?}");
    }
    assert!(!s.root().join("ran").exists(), "a refused call ran");
    bash.validate(&json!({"command": "true", "timeout": 600_000}), &ctx)
        .unwrap();
    bash.validate(&json!({"command": "true"}), &ctx).unwrap();
    // the schema carries the bounds too
    let schema = bash.input_schema();
    assert_eq!(schema["properties"]["timeout"]["maximum"], 600_000);
    assert_eq!(schema["required"], json!(["command"]));
}

#[tokio::test]
async fn a_deleted_working_directory_falls_back_to_the_session_directory() {
    let s = Session::new();
    std::fs::create_dir(s.root().join("doomed")).unwrap();
    s.run("cd doomed").await;
    std::fs::remove_dir(s.root().join("doomed")).unwrap();
    let out = s.run("pwd").await;
    assert!(out.contains("no longer exists"), "{out}");
    assert!(out.ends_with(&format!("{}\n", s.root().display())), "{out}");
    // and the next call runs there without a note
    assert_eq!(s.run("pwd").await.trim(), s.root().to_str().unwrap());
}

#[tokio::test]
async fn a_command_that_deletes_its_own_directory_does_not_break_the_shell() {
    let s = Session::new();
    std::fs::create_dir(s.root().join("tmpdir")).unwrap();
    s.run("cd tmpdir").await;
    s.run("rmdir \"$PWD\"").await;
    let out = s.run("echo still here").await;
    assert!(out.contains("still here"), "{out}");
    assert!(out.contains("no longer exists"), "{out}");
}

#[tokio::test]
async fn background_runs_are_read_incrementally_and_finish() {
    let s = Session::new();
    let started = Instant::now();
    let out = s
        .call(
            "Bash",
            json!({
                "command": "echo one; sleep 1; echo two >&2; sleep 0.5; echo three; exit 5",
                "run_in_background": true,
                "description": "Print three lines slowly"
            }),
        )
        .await
        .unwrap();
    // the command takes 1.5 s; the call must not wait for it
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "did not return at once"
    );
    let id = out.structured.as_ref().unwrap()["bash_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(id, "bash_1");
    assert!(text(&out).contains("bash_1"));

    tokio::time::sleep(Duration::from_millis(200)).await;
    let first = text(&s.call("BashOutput", json!({"bash_id": id})).await.unwrap());
    assert!(first.starts_with("bash_1: running"), "{first}");
    assert_eq!(first.split_once('\n').unwrap().1, "one\n", "{first}");

    tokio::time::sleep(Duration::from_millis(2000)).await;
    let second = s.call("BashOutput", json!({"bash_id": id})).await.unwrap();
    let second_text = text(&second);
    assert!(
        second_text.starts_with("bash_1: exited with code 5"),
        "{second_text}"
    );
    // only what was printed since the last read: no "one" again
    assert_eq!(
        second_text.split_once('\n').unwrap().1,
        "two\nthree\n",
        "{second_text}"
    );
    assert_eq!(second.structured.as_ref().unwrap()["exit_code"], 5);

    let third = text(&s.call("BashOutput", json!({"bash_id": id})).await.unwrap());
    assert!(third.ends_with("(no new output)"), "{third}");
}

/// Starts a background command and returns its shell id.
async fn start_background(s: &Session, command: &str) -> String {
    let out = s
        .call(
            "Bash",
            json!({"command": command, "run_in_background": true}),
        )
        .await
        .unwrap();
    out.structured.as_ref().unwrap()["bash_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Waits up to 5 s for a file the command creates once it has printed, then
/// a moment for the output to be read from the pipe.
async fn printed(s: &Session, file: &str) {
    let path = s.root().join(file);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !path.exists() {
        assert!(Instant::now() < deadline, "{file} never appeared");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
}

/// The result text after the status line.
fn body(out: &ToolOutput) -> String {
    text(out).split_once('\n').unwrap().1.to_owned()
}

#[tokio::test]
async fn a_filter_returns_matching_lines_and_drops_the_rest_for_good() {
    let s = Session::new();
    let id = start_background(
        &s,
        "printf 'ok 1\nerror: a\nok 2\nwarning: b\nok 3\n'; echo 'error: on stderr' >&2; \
         touch first; while [ ! -e go ]; do sleep 0.05; done; echo 'ok 4'; echo 'error: late'",
    )
    .await;
    printed(&s, "first").await;

    let read = s
        .call(
            "BashOutput",
            json!({"bash_id": id, "filter": "^(error|warning):"}),
        )
        .await
        .unwrap();
    assert!(
        text(&read).starts_with("bash_1: running"),
        "{}",
        text(&read)
    );
    // stdout and stderr lines alike, in print order, then the count
    assert_eq!(
        body(&read),
        "error: a\nwarning: b\nerror: on stderr\n\
         (filter: 3 of 6 new lines did not match and were dropped)",
    );
    assert_eq!(
        read.structured.as_ref().unwrap()["filter"],
        json!({"lines": 6, "matched": 3, "dropped": 3, "held_bytes": 0})
    );

    std::fs::write(s.root().join("go"), "").unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let next = s.call("BashOutput", json!({"bash_id": id})).await.unwrap();
    // only what came after: neither the dropped "ok" lines nor the matches
    assert_eq!(body(&next), "ok 4\nerror: late\n");
    assert!(
        text(&next).starts_with("bash_1: exited with code 0"),
        "{}",
        text(&next)
    );
    assert_eq!(next.structured.as_ref().unwrap()["filter"], Value::Null);
}

#[tokio::test]
async fn a_filter_that_matches_nothing_says_so() {
    let s = Session::new();
    let id = start_background(&s, "seq 1 5; touch first").await;
    printed(&s, "first").await;
    let read = s
        .call("BashOutput", json!({"bash_id": id, "filter": "(?i)ERROR"}))
        .await
        .unwrap();
    assert_eq!(
        body(&read),
        "(filter: 5 of 5 new lines did not match and were dropped)"
    );
    let again = s
        .call("BashOutput", json!({"bash_id": id, "filter": "(?i)ERROR"}))
        .await
        .unwrap();
    assert_eq!(body(&again), "(no new output)");
}

#[tokio::test]
async fn a_filtered_read_waits_for_a_line_still_being_printed() {
    let s = Session::new();
    let id = start_background(
        &s,
        "echo 'error: one'; printf 'error: tw'; touch first; \
         while [ ! -e go ]; do sleep 0.05; done; echo 'o'; printf 'error: no newline'",
    )
    .await;
    printed(&s, "first").await;
    let read = s
        .call(
            "BashOutput",
            json!({"bash_id": id, "filter": "^error: (one|two)$"}),
        )
        .await
        .unwrap();
    // "error: tw" would not match; the rest of its line is still to come
    assert_eq!(
        body(&read),
        "error: one\n(filter: 0 of 1 new line did not match and were dropped; \
         an unfinished last line is kept for the next read)"
    );
    assert_eq!(read.structured.as_ref().unwrap()["filter"]["held_bytes"], 9);

    std::fs::write(s.root().join("go"), "").unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let next = s
        .call("BashOutput", json!({"bash_id": id, "filter": "^error"}))
        .await
        .unwrap();
    // once the command has ended its last line counts even without a newline
    assert_eq!(
        body(&next),
        "error: two\nerror: no newline\n\
         (filter: 0 of 2 new lines did not match and were dropped)"
    );
}

#[tokio::test]
async fn an_invalid_filter_is_invalid_input_and_consumes_nothing() {
    let s = Session::new();
    let id = start_background(&s, "echo one; echo two >&2; touch first").await;
    printed(&s, "first").await;
    let input = json!({"bash_id": id, "filter": "error: (unclosed"});
    let err = s.call("BashOutput", input.clone()).await.unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidInput(m)
            if m.contains("not a valid regular expression")
                && m.contains("unclosed group")
                && m.contains("No output was read")),
        "{err:?}"
    );
    // the harness's validate stage rejects it too
    let validated = s
        .tool("BashOutput")
        .validate(&input, &s.ctx(CancellationToken::new()));
    assert!(
        matches!(validated, Err(ToolError::InvalidInput(_))),
        "{validated:?}"
    );
    let read = s.call("BashOutput", json!({"bash_id": id})).await.unwrap();
    assert_eq!(body(&read), "one\ntwo\n");
}

#[tokio::test]
async fn an_empty_filter_is_no_filter() {
    let s = Session::new();
    let id = start_background(&s, "echo one; echo two; touch first").await;
    printed(&s, "first").await;
    let read = s
        .call("BashOutput", json!({"bash_id": id, "filter": ""}))
        .await
        .unwrap();
    assert_eq!(body(&read), "one\ntwo\n");
    assert_eq!(read.structured.as_ref().unwrap()["filter"], Value::Null);
}

#[tokio::test]
async fn kill_shell_stops_a_background_command_and_its_children() {
    let s = Session::new();
    let out = s
        .call(
            "Bash",
            json!({"command": "sleep 1000 & echo $!; sleep 1000", "run_in_background": true}),
        )
        .await
        .unwrap();
    let id = out.structured.as_ref().unwrap()["bash_id"]
        .as_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let read = text(&s.call("BashOutput", json!({"bash_id": id})).await.unwrap());
    let child = first_pid(&read);
    assert!(alive(child));

    let killed = text(&s.call("KillShell", json!({"shell_id": id})).await.unwrap());
    assert!(killed.contains("Killed bash_1"), "{killed}");
    assert!(gone(child).await, "child {child} survived KillShell");
    let status = text(&s.call("BashOutput", json!({"bash_id": id})).await.unwrap());
    assert!(status.starts_with("bash_1: killed"), "{status}");

    let again = text(&s.call("KillShell", json!({"shell_id": id})).await.unwrap());
    assert!(again.contains("nothing to stop"), "{again}");
}

#[tokio::test]
async fn unknown_shell_ids_are_invalid_input() {
    let s = Session::new();
    let err = s
        .call("BashOutput", json!({"bash_id": "bash_9"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidInput(m) if m.contains("none was started")),
        "{err:?}"
    );
    s.call(
        "Bash",
        json!({"command": "true", "run_in_background": true}),
    )
    .await
    .unwrap();
    let err = s
        .call("KillShell", json!({"shell_id": "nope"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidInput(m) if m.contains("bash_1")),
        "{err:?}"
    );
}

#[tokio::test]
async fn ending_the_session_kills_background_jobs_and_leftovers() {
    let s = Session::new();
    let out = s
        .call(
            "Bash",
            json!({"command": "sleep 1000 & echo $!; wait", "run_in_background": true}),
        )
        .await
        .unwrap();
    let id = out.structured.as_ref().unwrap()["bash_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // a foreground command that leaves a process running returns at once
    let started = Instant::now();
    let fg = s.run("sleep 1000 & echo $!").await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "waited for the leftover"
    );
    assert!(fg.contains("still running"), "{fg}");
    let leftover = first_pid(&fg);

    tokio::time::sleep(Duration::from_millis(300)).await;
    let bg = first_pid(&text(
        &s.call("BashOutput", json!({"bash_id": id})).await.unwrap(),
    ));
    assert!(alive(bg) && alive(leftover));
    drop(s);
    assert!(gone(bg).await, "background job {bg} outlived the session");
    assert!(
        gone(leftover).await,
        "leftover {leftover} outlived the session"
    );
}

#[tokio::test]
async fn the_tool_set_has_claude_code_names_and_fields() {
    let s = Session::new();
    let names: Vec<&str> = s.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["Bash", "BashOutput", "KillShell"]);
    let props = |name: &str| -> Vec<String> {
        let schema = s.tool(name).input_schema();
        let mut keys: Vec<String> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(
        props("Bash"),
        [
            "command",
            "dangerouslyDisableSandbox",
            "description",
            "run_in_background",
            "timeout"
        ]
    );
    assert_eq!(props("BashOutput"), ["bash_id", "filter"]);
    assert_eq!(props("KillShell"), ["shell_id"]);
    for tool in &s.tools {
        let schema = tool.input_schema();
        for (field, spec) in schema["properties"].as_object().unwrap() {
            assert!(
                spec.get("description").is_some(),
                "{} {field} is undocumented",
                tool.name()
            );
        }
    }
}

#[tokio::test]
async fn a_long_command_reports_elapsed_seconds_and_its_last_line() {
    let s = Session::new();
    let seen = Arc::new(std::sync::Mutex::new(Vec::<tack_tool::Progress>::new()));
    let mut ctx = s.ctx(CancellationToken::new());
    let sink = Arc::clone(&seen);
    ctx.progress = tack_tool::ProgressSink::new(move |p| sink.lock().unwrap().push(p));
    let out = s
        .tool("Bash")
        .call(
            json!({"command": "echo compiling one; sleep 1.4; printf 'compiling two\\n[## ] 50%%\\r[###] 75%%'; sleep 1.3; echo; echo done"}),
            ctx,
        )
        .await
        .unwrap();
    assert!(text(&out).contains("done"), "{}", text(&out));
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() >= 2, "{seen:?}");
    assert_eq!(seen[0].progress, 1.0);
    // The seconds are the progress; the message is the output alone (a
    // watcher's spinner is the one timer on the line).
    assert_eq!(seen[0].message.as_deref(), Some("compiling one"));
    assert_eq!(seen[1].progress, 2.0);
    assert_eq!(seen[1].message.as_deref(), Some("[###] 75%"));
    // a quick command reports nothing
    let quick = Arc::new(std::sync::Mutex::new(0));
    let mut ctx = s.ctx(CancellationToken::new());
    let count = Arc::clone(&quick);
    ctx.progress = tack_tool::ProgressSink::new(move |_| *count.lock().unwrap() += 1);
    s.tool("Bash")
        .call(json!({"command": "echo hi"}), ctx)
        .await
        .unwrap();
    assert_eq!(*quick.lock().unwrap(), 0);
}

#[tokio::test]
async fn it_runs_only_in_the_directory_the_permission_check_judged() {
    let s = Session::new();
    std::fs::create_dir(s.root().join("sub")).unwrap();
    let bash = s.tool("Bash");
    assert_eq!(bash.working_dir(), Some(s.root()));
    s.run("cd sub").await;
    assert_eq!(bash.working_dir(), Some(s.root().join("sub")));
    // Judged in sub/: runs.
    let mut ctx = s.ctx(CancellationToken::new());
    ctx.checked_dir = Some(s.root().join("sub"));
    let out = bash
        .call(json!({"command": "touch here"}), ctx)
        .await
        .unwrap();
    assert!(s.root().join("sub/here").exists(), "{}", text(&out));
    // Judged in the root, but the shell has moved on: nothing runs.
    for background in [false, true] {
        let mut ctx = s.ctx(CancellationToken::new());
        ctx.checked_dir = Some(s.root());
        let err = bash
            .call(
                json!({"command": "touch moved", "run_in_background": background}),
                ctx,
            )
            .await
            .unwrap_err();
        assert!(matches!(err, ToolError::Transient(_)), "{err}");
        assert!(err.to_string().contains("changed"), "{err}");
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!s.root().join("sub/moved").exists());
    assert!(!s.root().join("moved").exists());
}

/// A command of `lines` lines of `: padding…` (the no-op builtin) then `tail`,
/// about 100 bytes a line.
fn long_command(lines: usize, tail: &str) -> String {
    let mut command = ": ".to_owned() + &"x".repeat(96) + "\n";
    command = command.repeat(lines);
    command.push_str(tail);
    command
}

#[tokio::test]
async fn a_one_mebibyte_command_runs_and_keeps_its_directory_change() {
    let s = Session::new();
    std::fs::create_dir(s.root().join("sub")).unwrap();
    // 1 MiB on one line too: one argv string may hold only 128 KiB.
    let one_line = format!("echo {} | wc -c", "y".repeat(1024 * 1024));
    let command = long_command(10_000, &format!("{one_line}\ncd sub && echo done\nexit 3"));
    assert!(command.len() > 2_000_000);

    let out = s.run(&command).await;

    assert!(out.contains("1048577\ndone\n"), "{out}");
    assert!(out.contains("Exit code: 3"), "{out}");
    assert!(
        s.run("pwd")
            .await
            .starts_with(&format!("{}/sub", s.root().display())),
        "the cd carried over"
    );
}

#[tokio::test]
async fn a_one_mebibyte_background_command_runs() {
    let s = Session::new();
    let command = long_command(11_000, "sleep 0.3; echo finished > bg-done");

    start_background(&s, &command).await;

    printed(&s, "bg-done").await;
    assert_eq!(
        std::fs::read_to_string(s.root().join("bg-done")).unwrap(),
        "finished\n"
    );
}

#[tokio::test]
async fn the_script_file_is_private_and_removed_after_the_call() {
    let s = Session::new();
    // $0 is the script the shell runs.
    let out = s.run("stat -c %a \"$0\"; echo \"$0\"").await;
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("600"), "{out}");
    let script = PathBuf::from(lines.next().unwrap());
    assert!(script.is_absolute(), "{out}");
    assert!(!script.exists(), "{} was left behind", script.display());
}

/// Every number printed on a line of its own.
fn pids(text: &str) -> Vec<i32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

#[tokio::test]
async fn processes_that_leave_the_group_die_when_a_foreground_call_ends() {
    let s = Session::new();
    let started = Instant::now();
    // setsid into a new session; a double fork into another; nohup in the group.
    let out = s
        .run(
            "setsid sleep 1000 & echo $!; setsid sh -c 'sleep 1000 & echo $!'; \
             nohup sleep 1000 >/dev/null 2>&1 & echo $!",
        )
        .await;

    assert!(started.elapsed() < Duration::from_secs(3), "{out}");
    let [setsid, double_fork, nohup] = pids(&out)[..] else {
        panic!("{out}")
    };
    assert!(
        gone(setsid).await,
        "setsid sleep {setsid} outlived the call: {out}"
    );
    assert!(
        gone(double_fork).await,
        "double-forked {double_fork} outlived the call"
    );
    assert!(
        out.contains("2 process(es)") && out.contains("left its process group"),
        "{out}"
    );
    // nohup stays in the group: a leftover, killed at session end.
    assert!(alive(nohup), "{out}");
    assert!(out.contains("still running"), "{out}");
    drop(s);
    assert!(
        gone(nohup).await,
        "nohup sleep {nohup} outlived the session"
    );
}

#[tokio::test]
async fn processes_that_leave_a_background_jobs_group_die_with_the_session_and_kill_shell() {
    let s = Session::new();
    let first = start_background(&s, "setsid sleep 1000 & echo $! > first; wait").await;
    start_background(
        &s,
        "setsid sh -c 'sleep 1000 & echo $! > second'; sleep 1000",
    )
    .await;
    printed(&s, "first").await;
    printed(&s, "second").await;
    let read = |f: &str| -> i32 {
        std::fs::read_to_string(s.root().join(f))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let (first_pid, second_pid) = (read("first"), read("second"));
    assert!(
        alive(first_pid) && alive(second_pid),
        "jobs keep theirs while they run"
    );

    s.call("KillShell", json!({"shell_id": first}))
        .await
        .unwrap();
    assert!(gone(first_pid).await, "KillShell left {first_pid}");
    assert!(alive(second_pid));

    drop(s);
    assert!(gone(second_pid).await, "{second_pid} outlived the session");
}
