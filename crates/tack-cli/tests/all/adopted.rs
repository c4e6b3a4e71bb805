//! What a command leaves running after dropping its `TACK_PROCESS_TAG` and
//! leaving its group (`env -i setsid …`, a double fork without the tag)
//! does not outlive tack: tack is the subreaper of what it starts and kills
//! its adopted children when it ends, normally or on SIGTERM.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_testkit::Step;

use super::{World, pids_with_argv, process_running, stderr};

/// A sleep length that only this test run uses, so that its processes are
/// found by their argv.
fn unique_seconds(n: u32) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{}.{:05}{nanos:09}", 300 + n, std::process::id() % 100_000)
}

/// The pids of live `sleep <seconds>` processes, waiting up to `limit` for
/// there to be none.
async fn left_after(seconds: &[&str], limit: Duration) -> Vec<i32> {
    let deadline = Instant::now() + limit;
    loop {
        let left: Vec<i32> = seconds
            .iter()
            .flat_map(|s| pids_with_argv(&["sleep", s]))
            .collect();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Kills what a failed test left, so it does not linger for five minutes.
fn clean_up(pids: &[i32]) {
    for pid in pids {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

/// A Bash call that leaves two escapes without the tag, each out of the
/// command's group: `env -i setsid sleep A`, and a double fork in a new
/// session of a shell that has already exited.
fn escaping_command(a: &str, b: &str) -> String {
    format!(
        "env -i setsid sleep {a} >/dev/null 2>&1 & \
         env -u TACK_PROCESS_TAG setsid sh -c '(sleep {b} >/dev/null 2>&1 &)' >/dev/null 2>&1; \
         echo started"
    )
}

/// Runs `tack run` with one Bash call of `command` and `settings`, to its
/// end; the Bash result the model got.
async fn run_one_bash_call(command: &str, settings: Option<Value>) -> String {
    let w = World::new(vec![
        Step::tool_use("t1", "Bash", json!({ "command": command })),
        Step::text("done"),
    ])
    .await;
    let mut cmd = w.tack();
    cmd.args(["run", "--permission-mode", "bypassPermissions"]);
    if let Some(settings) = settings {
        cmd.args(["--settings", &settings.to_string()]);
    }
    cmd.arg("x");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    w.mock.requests()[1].body["messages"][2]["content"][0].to_string()
}

async fn escapes_die_with_tack(settings: Option<Value>) {
    let (a, b) = (unique_seconds(1), unique_seconds(2));
    let result = run_one_bash_call(&escaping_command(&a, &b), settings).await;
    assert!(result.contains("started"), "{result}");

    let left = left_after(&[&a, &b], Duration::from_secs(2)).await;
    clean_up(&left);
    assert!(
        left.is_empty(),
        "{left:?} outlived tack (sleep {a}, sleep {b})"
    );
}

#[tokio::test]
async fn what_a_command_left_without_its_tag_dies_when_tack_ends() {
    escapes_die_with_tack(None).await;
}

#[tokio::test]
async fn without_the_sandbox_what_a_command_left_without_its_tag_dies_when_tack_ends() {
    escapes_die_with_tack(Some(json!({"sandbox": {"enabled": false}}))).await;
}

#[tokio::test]
async fn on_sigterm_tack_kills_what_a_command_left_without_its_tag() {
    use std::os::unix::process::ExitStatusExt as _;
    let escaped = unique_seconds(3);
    // Orphaned at once (its subshell exits): tack's child, not the shell's.
    let command = format!(
        "(env -i setsid sleep {escaped} >/dev/null 2>&1 &); echo started > started; sleep 60"
    );
    let w = World::new(vec![Step::tool_use(
        "t1",
        "Bash",
        json!({"command": command, "timeout": 300000}),
    )])
    .await;
    let mut cmd = w.tack();
    let log = w.state.path().join("tack.stderr");
    cmd.args([
        "run",
        "--permission-mode",
        "bypassPermissions",
        "--settings",
        r#"{"sandbox": {"enabled": false}}"#,
        "x",
    ])
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(&log).unwrap());
    let mut tack = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid = loop {
        if w.cwd.path().join("started").exists()
            && let [pid] = pids_with_argv(&["sleep", &escaped])[..]
        {
            break pid;
        }
        assert!(
            Instant::now() < deadline,
            "the command never ran: {}",
            std::fs::read_to_string(&log).unwrap()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(process_running(pid));

    let term = Command::new("kill")
        .args(["-TERM", &tack.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = tack.wait().unwrap();

    // Ended by the signal, as without a handler.
    assert_eq!(status.signal(), Some(15), "{status:?}");
    let left = left_after(&[&escaped], Duration::from_secs(2)).await;
    clean_up(&left);
    assert!(left.is_empty(), "sleep {escaped} ({pid}) outlived tack");
}
