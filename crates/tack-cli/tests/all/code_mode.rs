//! Code mode in a session (`--code-mode`, `codeMode`): the model's program
//! calls tools through the same rules, the audit and `tack log` name the
//! Code call, hidden tools are callable from code only.

use serde_json::json;
use tack_testkit::{Expect, Step};

use super::{World, of_type, stderr, stdout};

#[tokio::test]
async fn a_program_reads_a_file_is_refused_a_denied_command_and_says_only_what_it_prints() {
    let w = World::new(vec![]).await;
    let notes = w.cwd.path().join("notes.txt");
    std::fs::write(&notes, "one\ntwo\nthree\n").unwrap();
    let program = format!(
        "const text = await tools.Read({{file_path: {path}}});\n\
         try {{ await tools.Bash({{command: 'rm -rf build'}}) }} catch (e) {{ console.log('bash:', e.kind) }}\n\
         return text.includes('three')",
        path = serde_json::to_string(&notes).unwrap()
    );
    w.mock.push_all([
        Step::tool_use("toolu_code", "Code", json!({"code": program})),
        Step::text("done").expect(Expect {
            last_user_contains: Some("bash: denied".into()),
            ..Expect::default()
        }),
    ]);
    std::fs::create_dir_all(w.cwd.path().join(".claude")).unwrap();
    std::fs::write(
        w.cwd.path().join(".claude/settings.local.json"),
        json!({"permissions": {"deny": ["Bash(rm *)"]}}).to_string(),
    )
    .unwrap();
    let mut cmd = w.tack();
    cmd.args([
        "-p",
        "--code-mode",
        "--trust-project-settings",
        "--output-format",
        "json",
        "tidy up",
    ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["result"], "done", "{result}");
    // The program's refused call is among the run's denials.
    assert_eq!(
        result["permission_denials"][0]["tool_name"], "Bash",
        "{result}"
    );
    assert_eq!(
        result["permission_denials"][0]["tool_input"]["command"],
        "rm -rf build"
    );
    let requests = w.mock.requests();
    let code = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Code")
        .unwrap()
        .clone();
    assert!(
        code["description"].as_str().unwrap().contains("Read"),
        "{code}"
    );
    let answer = requests[1].body["messages"].to_string();
    assert!(answer.contains("returned: true"), "{answer}");
    assert!(
        !answer.contains("two\\nthree"),
        "the file's text stayed in the program"
    );
    let (_, events) = w.transcript();
    let bash = of_type(&events, "tool_result")
        .into_iter()
        .find(|r| r["name"] == "Bash")
        .unwrap();
    assert_eq!(bash["audit"]["decision"], "deny");
    assert_eq!(bash["audit"]["caller"]["tool"], "Code");
    let log = w.tack().args(["log"]).output().unwrap();
    let log = stdout(&log);
    assert!(log.contains("called by: Code [toolu_code]"), "{log}");
}

#[tokio::test]
async fn a_hidden_tool_is_never_sent_but_code_can_call_it() {
    let w = World::new(vec![
        Step::tool_use(
            "toolu_code",
            "Code",
            json!({"code": "const r = await tools.Glob({pattern: '*.txt'}); return typeof r"}),
        ),
        Step::text("ok"),
    ])
    .await;
    std::fs::write(w.cwd.path().join("a.txt"), "a").unwrap();
    std::fs::create_dir_all(w.cwd.path().join(".claude")).unwrap();
    std::fs::write(
        w.cwd.path().join(".claude/settings.local.json"),
        json!({"codeMode": {"hidden": ["Glob"], "timeoutMs": 5000}}).to_string(),
    )
    .unwrap();
    let mut cmd = w.tack();
    cmd.args(["run", "--trust-project-settings", "look"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = w.mock.requests();
    let names: Vec<String> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"Code".to_owned()), "{names:?}");
    assert!(!names.contains(&"Glob".to_owned()), "{names:?}");
    // Glob declares an output schema: code gets its structured result.
    let answer = requests[1].body["messages"].to_string();
    assert!(answer.contains("returned: \\\"object\\\""), "{answer}");
}
