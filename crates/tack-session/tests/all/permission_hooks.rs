//! PermissionRequest hooks (Claude Code's event) answer a call the rules
//! would ask about before a person is asked, or, with no one to ask, before
//! it is denied. They had been accepted in settings and never run, so a
//! Claude Code user's approver did nothing. A hook never lifts a deny rule
//! (it is not even run), nor what only a person may allow (a protected
//! path), and an input it changes meets the rules again.

use serde_json::json;
use tack_protocol::RunStatus;
use tack_session::{Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client};

const HOOK: &str = r#"import json, sys
event = json.load(sys.stdin)
command = event["tool_input"].get("command", "") or event["tool_input"].get("file_path", "")
with open(sys.argv[1], "a") as log:
    log.write(json.dumps({"command": command, "suggestions": event.get("permission_suggestions")}) + "\n")
def answer(decision):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}))
if "allowed.txt" in command:
    answer({"behavior": "allow"})
elif "deny-me" in command:
    answer({"behavior": "deny", "message": "the hook says no"})
elif "rewrite" in command:
    answer({"behavior": "allow", "updatedInput": {"command": "rm keep.txt"}})
elif "settings.json" in command:
    answer({"behavior": "allow"})
"#;

#[tokio::test]
async fn permission_request_hooks_answer_what_the_rules_would_ask() {
    let project = Project::new();
    let log = project.path().join("hook.log");
    project.write("hook.py", HOOK).write("keep.txt", "precious");
    project.local_settings(json!({
        "permissions": {"deny": ["Bash(rm *)"]},
        "hooks": {"PermissionRequest": [{"matcher": "Bash|Write", "hooks": [
            {"type": "command", "command": format!("python3 hook.py {}", log.display())}
        ]}]}
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("c1", "Bash", json!({"command": "touch allowed.txt"})),
        Step::tool_use("c2", "Bash", json!({"command": "touch deny-me.txt"})),
        Step::tool_use("c3", "Bash", json!({"command": "touch rewrite.txt"})),
        Step::tool_use("c4", "Bash", json!({"command": "rm keep.txt"})),
        Step::tool_use(
            "c5",
            "Write",
            json!({"file_path": project.path().join(".claude/settings.json"), "content": "{}"}),
        ),
        Step::tool_use("c6", "Bash", json!({"command": "touch nobody-answers.txt"})),
        Step::text("done"),
    ]);
    let session = Session::assemble(&project.context(), SessionOptions::new("perm-hooks"))
        .await
        .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "go",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let p = project.path();
    assert!(
        p.join("allowed.txt").exists(),
        "the hook's allow did not run it"
    );
    assert!(!p.join("deny-me.txt").exists());
    assert!(
        p.join("keep.txt").exists(),
        "a changed input got past a deny rule"
    );
    assert!(!p.join("rewrite.txt").exists());
    assert!(!p.join("nobody-answers.txt").exists());
    assert!(
        !p.join(".claude/settings.json").exists(),
        "a protected path was written"
    );

    let text = |i: usize| mock.requests()[i].body.to_string();
    assert!(text(2).contains("the hook says no"), "{}", text(2));
    assert!(
        text(3).contains("denied") && text(3).contains("Bash(rm *)"),
        "{}",
        text(3)
    );
    // The hook ran for the asks it may answer, not for the deny rule's call
    // nor the protected path.
    let ran: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let commands: Vec<&str> = ran.iter().map(|r| r["command"].as_str().unwrap()).collect();
    assert_eq!(
        commands,
        [
            "touch allowed.txt",
            "touch deny-me.txt",
            "touch rewrite.txt",
            "touch nobody-answers.txt"
        ]
    );
    let suggestion = &ran[0]["suggestions"][0];
    assert_eq!(suggestion["rules"][0]["toolName"], "Bash", "{suggestion}");
}
