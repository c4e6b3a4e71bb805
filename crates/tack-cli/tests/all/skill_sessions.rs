//! Skills in `tack run` end to end: headless trust with
//! --trust-project-skills, Claude Code's init message, a resumed session
//! that remembers what it loaded, and a compaction that keeps a loaded
//! skill whole.

use super::*;
use tack_testkit::Expect;

/// A project skill `deploy` in `.claude/skills`.
fn write_skill(w: &World) {
    let dir = w.cwd.path().join(".claude/skills/deploy");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: deploy\ndescription: Deploy the service to staging. Use when the user asks to deploy.\n---\nDEPLOY-STEPS: build, push, verify.\n",
    )
    .unwrap();
    std::fs::write(dir.join("scripts/push.sh"), "echo pushed\n").unwrap();
}

fn result_of(request: &Value, id: &str) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["tool_use_id"] == id)
        .map(|b| b["content"].to_string())
        .unwrap_or_else(|| panic!("no result for {id}"))
}

#[tokio::test]
async fn headless_trust_init_message_and_a_resumed_session_sends_a_skill_once() {
    let w = World::new(vec![
        Step::tool_use("s1", "Skill", json!({"skill": "deploy"})),
        Step::text("deployed"),
        Step::tool_use("s2", "Skill", json!({"skill": "deploy"})),
        Step::text("again"),
    ])
    .await;
    write_skill(&w);
    // Without trust, headless: refused with how to allow it.
    let refused = World::new(vec![
        Step::tool_use("s1", "Skill", json!({"skill": "deploy"})),
        Step::text("could not"),
    ])
    .await;
    write_skill(&refused);
    let out = refused.run(&["go"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = result_of(&refused.mock.requests()[1].body, "s1");
    assert!(text.contains("--trust-project-skills"), "{text}");
    assert!(!text.contains("DEPLOY-STEPS"));

    let out = w
        .run(&[
            "--trust-project-skills",
            "--output-format",
            "stream-json",
            "--verbose",
            "deploy it",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let init = &lines[0];
    assert_eq!(init["subtype"], "init");
    assert_eq!(init["skills"], json!(["deploy"]));
    assert_eq!(init["slash_commands"], json!(["deploy"]));
    assert!(init["tools"].as_array().unwrap().contains(&json!("Skill")));
    let loaded = result_of(&w.mock.requests()[1].body, "s1");
    assert!(loaded.contains("DEPLOY-STEPS"), "{loaded}");
    let session_id = init["session_id"].as_str().unwrap().to_owned();

    // Resumed: the conversation has the skill, so it is not sent again.
    let out = w
        .run(&[
            "--trust-project-skills",
            "--resume",
            &session_id,
            "and again",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let again = result_of(&w.mock.requests()[3].body, "s2");
    assert!(again.contains("already loaded"), "{again}");
    assert!(!again.contains("DEPLOY-STEPS"), "{again}");
    // The audit trail names the skill and its cost.
    let (_, events) = w.transcript();
    let audits: Vec<&Value> = of_type(&events, "tool_result")
        .into_iter()
        .filter(|e| e["name"] == "Skill")
        .collect();
    assert_eq!(audits.len(), 2);
    assert_eq!(audits[0]["audit"]["skill"]["name"], "deploy");
    assert_eq!(audits[0]["audit"]["skill"]["scope"], "project");
    assert!(audits[0]["audit"]["skill"]["tokens"].as_u64().unwrap() > 10);
    assert_eq!(audits[1]["audit"]["skill"]["repeat"], true);
    let log = w.tack().args(["log"]).output().unwrap();
    let log = stdout(&log);
    assert!(log.contains("skill: deploy (project, "), "{log}");
    assert!(log.contains("already loaded: a reminder was sent"), "{log}");
}

#[tokio::test]
async fn a_compaction_keeps_a_loaded_skill_whole() {
    let mut steps = vec![
        Step::tool_use("s1", "Skill", json!({"skill": "deploy"})),
        Step::text("loaded"),
    ];
    for i in 0..3 {
        steps.push(Step::text(format!("part {i}: {}", "words ".repeat(400))));
    }
    steps.push(Step::text("SUMMARY: deployed things").expect(Expect {
        last_user_contains: Some("about to be compacted".into()),
        ..Expect::default()
    }));
    steps.push(Step::text("after compaction").expect(Expect {
        last_user_contains: Some("next".into()),
        ..Expect::default()
    }));
    let w = World::new(steps).await;
    write_skill(&w);
    let out = w.run(&["--trust-project-skills", "deploy it"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (path, _) = w.transcript();
    let id = path.file_stem().unwrap().to_string_lossy().into_owned();
    for i in 0..3 {
        let out = w
            .run(&[
                "--trust-project-skills",
                "--resume",
                &id,
                &format!("tell part {i}"),
            ])
            .await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = w
        .run(&[
            "--trust-project-skills",
            "--resume",
            &id,
            "--compact-now",
            "next",
        ])
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = w.mock.requests();
    let after = &requests.last().unwrap().body["messages"];
    let first = &after[0]["content"];
    let blocks: Vec<&str> = first
        .as_array()
        .map(|b| b.iter().filter_map(|x| x["text"].as_str()).collect())
        .unwrap_or_else(|| vec![first.as_str().unwrap()]);
    assert!(blocks[0].contains("SUMMARY: deployed things"), "{first}");
    assert!(blocks[0].contains("Skills loaded: deploy."), "{first}");
    assert!(
        blocks
            .iter()
            .any(|b| b.starts_with("<skill_content name=\"deploy\">") && b.contains("DEPLOY-STEPS")),
        "the skill's text is not kept whole: {first}"
    );
}
