//! Sub-agents through the binary: transcripts linked both ways, `tack log`
//! as a tree, the sub-agent's tokens in the result, Ctrl-C at both levels.

use super::*;

/// The parent's transcript (the one `.jsonl` file directly in the sessions
/// directory; sub-agents' are in `<id>/subagents/`).
fn parent_transcript(w: &World) -> PathBuf {
    std::fs::read_dir(w.sessions_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a parent transcript")
}

/// The sub-agent transcripts under the sessions directory.
fn subagent_transcripts(sessions: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for parent in std::fs::read_dir(sessions).into_iter().flatten() {
        let subs = parent.unwrap().path().join("subagents");
        for file in std::fs::read_dir(subs).into_iter().flatten() {
            found.push(file.unwrap().path());
        }
    }
    found
}

#[tokio::test]
async fn a_subagents_transcript_links_to_its_parent_and_tack_log_shows_the_tree() {
    let w = World::new(vec![
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Echo a word", "prompt": "Echo the word ping"}),
        ),
        Step::tool_use("s1", "Echo", json!({"text": "ping"})),
        Step::text("the echo said ping"),
        Step::text("all done"),
    ])
    .await;
    let out = w.run(&["--output-format", "json", "delegate"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["result"], "all done");
    // Four responses of 5 output tokens: the sub-agent's two are counted.
    assert_eq!(result["usage"]["output_tokens"], 20, "{result}");

    let parent = parent_transcript(&w);
    let parent_id = parent.file_stem().unwrap().to_str().unwrap().to_owned();
    let subs = subagent_transcripts(&w.sessions_dir());
    assert_eq!(subs.len(), 1);
    assert!(subs[0].starts_with(w.sessions_dir().join(&parent_id).join("subagents")));
    let sub_events = read_lines(&subs[0]);
    assert_eq!(sub_events[0]["type"], "subagent_start");
    assert_eq!(sub_events[0]["parent_session_id"], parent_id.as_str());
    assert_eq!(sub_events[0]["parent_tool_use_id"], "a1");
    let agent_id = sub_events[0]["agent_id"].as_str().unwrap().to_owned();
    let parent_events = read_lines(&parent);
    let link = of_type(&parent_events, "subagent_start");
    assert_eq!(link.len(), 1);
    assert_eq!(link[0]["transcript_path"], subs[0].to_str().unwrap());
    assert_eq!(
        of_type(&parent_events, "subagent_stop")[0]["status"],
        "completed"
    );
    assert!(of_type(&sub_events, "subagent_stop").is_empty());
    // The saved session's usage counts the sub-agent's tokens too.
    let list = w.tack().args(["sessions", "--json"]).output().unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["usage"]["output_tokens"], 20, "{list}");

    let log = w.tack().args(["log", &parent_id]).output().unwrap();
    assert_eq!(log.status.code(), Some(0), "{}", stderr(&log));
    let log = stdout(&log);
    let lines: Vec<&str> = log.lines().collect();
    let agent = lines
        .iter()
        .position(|l| l.contains("  Agent [a1]  Ok"))
        .unwrap_or_else(|| panic!("{log}"));
    let sub = lines
        .iter()
        .position(|l| {
            l.starts_with(&format!(
                "    sub-agent {agent_id} (general-purpose): completed"
            ))
        })
        .unwrap_or_else(|| panic!("{log}"));
    let echo = lines
        .iter()
        .position(|l| l.starts_with("    ") && l.contains("  Echo [s1]  Ok"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(agent < sub && sub < echo, "{log}");
    assert!(log.contains("sub-agents: 1,"), "{log}");

    // The sub-agent's own transcript, by its id.
    let log = w.tack().args(["log", &agent_id[..12]]).output().unwrap();
    assert_eq!(log.status.code(), Some(0), "{}", stderr(&log));
    let log = stdout(&log);
    assert!(
        log.starts_with(&format!(
            "sub-agent {agent_id} (general-purpose) of session {parent_id}, Agent call [a1]: Echo a word"
        )),
        "{log}"
    );
    assert!(log.contains("Echo [s1]"), "{log}");
    assert!(!log.contains("Agent [a1]  Ok"), "{log}");

    // JSON rows name the sub-agent.
    let json_log = w
        .tack()
        .args(["log", "--json", &parent_id])
        .output()
        .unwrap();
    let rows: Vec<Value> = stdout(&json_log)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let echo = rows.iter().find(|r| r["tool_use_id"] == "s1").unwrap();
    assert_eq!(echo["agent_id"], agent_id.as_str());
    assert_eq!(echo["parent_tool_use_id"], "a1");
}

/// Waits until a sub-agent's transcript shows a tool call in flight.
fn wait_for_subagent_call(sessions: &Path) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        for path in subagent_transcripts(sessions) {
            if types(&read_lines(&path)).contains(&"tool_call".to_owned()) {
                return path;
            }
        }
        assert!(Instant::now() < deadline, "no sub-agent tool call seen");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test]
async fn ctrl_c_stops_the_subagent_and_answers_every_call_at_both_levels() {
    let w = World::new(vec![
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Wait a while", "prompt": "Sleep long"}),
        ),
        Step::tool_use("s1", "Sleep", json!({"ms": 30000})),
    ])
    .await;
    let mut cmd = w.tack();
    cmd.args([
        "run",
        "--fixture-tools",
        "--allowed-tools",
        "Sleep",
        "--output-format",
        "json",
        "start",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let sessions = w.sessions_dir();
    let sub = tokio::task::spawn_blocking(move || wait_for_subagent_call(&sessions))
        .await
        .unwrap();
    let started = Instant::now();
    Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(5));

    let answered = |events: &[Value], id: &str| {
        events.iter().any(|e| {
            e["type"] == "message"
                && e["message"]["content"][0]["tool_use_id"] == id
                && e["message"]["content"][0]["is_error"] == true
        })
    };
    let sub_events = read_lines(&sub);
    assert!(answered(&sub_events, "s1"), "{sub_events:#?}");
    let sub_result = &of_type(&sub_events, "tool_result")[0];
    assert_eq!(sub_result["outcome"], "interrupted");
    assert_eq!(sub_result["audit"]["interrupted"], "cancelled");

    let parent_events = read_lines(&parent_transcript(&w));
    assert!(answered(&parent_events, "a1"), "{parent_events:#?}");
    let agent_result = &of_type(&parent_events, "tool_result")[0];
    assert_eq!(agent_result["tool_use_id"], "a1");
    assert_eq!(agent_result["outcome"], "interrupted");
    assert_eq!(
        of_type(&parent_events, "subagent_stop")[0]["status"],
        "interrupted"
    );
    assert_eq!(types(&parent_events).last().unwrap(), "result");
}
