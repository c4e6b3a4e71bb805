//! Sub-agents (the Agent tool) against the strict mock: concurrency,
//! separate contexts, the same wall as the parent (deny rules, tool subsets,
//! MCP approvals, hooks), transcripts linked to the parent, Ctrl-C.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_agent::transcript;
use tack_protocol::{AuditDecision, ContentBlock, RunStatus, SessionEvent, ToolOutcome};
use tack_session::{Asked, PromptAnswer, Scripted, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, everything_server, recorder, results_of};

/// The texts of a request's messages, one string per message.
fn message_texts(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].to_string())
        .collect()
}

/// The names of the tools a request offers.
pub(crate) fn tool_names(request: &Value) -> BTreeSet<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The tool_result block answering `id` in a request body.
fn result_for(request: &Value, id: &str) -> Value {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id} in {request}"))
}

/// The sub-agent transcripts recorded by `subagent_start` events, in order.
fn subagent_transcripts(events: &[SessionEvent]) -> Vec<(String, PathBuf)> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::SubagentStart {
                parent_tool_use_id,
                transcript_path,
                ..
            } => Some((parent_tool_use_id.clone(), PathBuf::from(transcript_path))),
            _ => None,
        })
        .collect()
}

fn read(path: &std::path::Path) -> Vec<SessionEvent> {
    transcript::read_events(path)
        .unwrap()
        .into_iter()
        .map(|(_, e)| e)
        .collect()
}

async fn session(project: &Project, options: SessionOptions) -> Session {
    Session::assemble(&project.context(), options.subagents(true))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_subagents_in_one_response_run_together_each_with_only_its_own_prompt() {
    let project = Project::new();
    let mock = MockServer::start().await;
    let delay = Duration::from_millis(800);
    mock.push_all([
        Step::tool_uses([
            (
                "a1",
                "Agent",
                json!({"description": "Find alpha", "prompt": "Look for ALPHA"}),
            ),
            (
                "a2",
                "Agent",
                json!({"description": "Find beta", "prompt": "Look for BETA"}),
            ),
        ]),
        Step::text("answer one").with_delay(delay),
        Step::text("answer two").with_delay(delay),
        Step::text("both found"),
    ]);
    let (events, seen) = recorder();
    let session = session(&project, SessionOptions::new("parent-1").events(events)).await;
    let started = Instant::now();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "find both",
            &CancellationToken::new(),
        )
        .await;
    let elapsed = started.elapsed();
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert_eq!(outcome.text, "both found");

    let requests = mock.requests();
    assert_eq!(requests.len(), 4, "{requests:?}");
    // The parent offers Agent; a sub-agent gets every tool but Agent.
    assert!(tool_names(&requests[0].body).contains("Agent"));
    let mut prompts = BTreeSet::new();
    for sub in &requests[1..3] {
        let texts = message_texts(&sub.body);
        assert_eq!(texts.len(), 1, "a fresh context: {texts:?}");
        assert!(
            !sub.raw_body.contains("find both"),
            "the parent's prompt leaked"
        );
        let tools = tool_names(&sub.body);
        assert!(
            !tools.contains("Agent") && tools.contains("Bash"),
            "{tools:?}"
        );
        let text = &texts[0];
        prompts.insert(
            if text.contains("Look for ALPHA") && !text.contains("BETA") {
                "alpha"
            } else if text.contains("Look for BETA") && !text.contains("ALPHA") {
                "beta"
            } else {
                panic!("{text}")
            },
        );
    }
    assert_eq!(prompts, BTreeSet::from(["alpha", "beta"]));
    // Both started before either stopped, and the two delays overlapped.
    let seen = seen.lock().unwrap();
    let order: Vec<&str> = seen
        .iter()
        .filter_map(|e| match e {
            SessionEvent::SubagentStart { .. } => Some("start"),
            SessionEvent::SubagentStop { .. } => Some("stop"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["start", "start", "stop", "stop"]);
    assert!(elapsed < delay * 2, "took {elapsed:?}: not concurrent");

    // Only the conclusions come back, with a short line each.
    let last = &requests[3].body;
    let answers: BTreeSet<String> = ["a1", "a2"]
        .iter()
        .map(|id| {
            let result = result_for(last, id);
            let text = result["content"].to_string();
            assert!(text.contains("[general-purpose agent "), "{text}");
            assert!(!text.contains("Look for"), "{text}");
            if text.contains("answer one") {
                "one".into()
            } else {
                "two".into()
            }
        })
        .collect();
    assert_eq!(answers.len(), 2);
    // The sub-agents' tokens count in the parent's usage (4 responses of 5
    // output tokens each).
    assert_eq!(outcome.usage.output_tokens, 20, "{:?}", outcome.usage);

    // Each has its own transcript, whose first event names its parent.
    let transcripts = subagent_transcripts(&seen);
    assert_eq!(transcripts.len(), 2);
    for (tool_use_id, path) in &transcripts {
        assert!(
            path.starts_with(project.state.path().join("sessions/parent-1/subagents")),
            "{path:?}"
        );
        let events = read(path);
        match &events[0] {
            SessionEvent::SubagentStart {
                parent_session_id,
                parent_tool_use_id,
                ..
            } => {
                assert_eq!(parent_session_id, "parent-1");
                assert_eq!(parent_tool_use_id, tool_use_id);
            }
            other => panic!("first event {other:?}"),
        }
        assert!(
            events
                .iter()
                .any(|e| matches!(e, SessionEvent::Result { .. }))
        );
    }
}

#[tokio::test]
async fn a_subagents_call_meets_the_parents_deny_rule_and_its_hooks_know_the_agent() {
    let project = Project::new();
    let hook_log = project.path().join("hooks.jsonl");
    project.write("keep.txt", "precious");
    project.local_settings(json!({
        "permissions": {"deny": ["Bash(rm *)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": format!("cat >> {}; echo >> {}", hook_log.display(), hook_log.display())}]}],
            "SubagentStart": [{"hooks": [
                {"type": "command", "command": format!("cat >> {}; echo >> {}", hook_log.display(), hook_log.display())}]}],
            "SubagentStop": [{"hooks": [
                {"type": "command", "command": format!("cat >> {}; echo >> {}", hook_log.display(), hook_log.display())}]}],
        }
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Clean up", "prompt": "Remove keep.txt"}),
        ),
        Step::tool_use("s1", "Bash", json!({"command": "rm keep.txt"})),
        Step::text("could not remove it"),
        Step::text("done"),
    ]);
    let (events, seen) = recorder();
    let session = session(&project, SessionOptions::new("parent-2").events(events)).await;
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "clean",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert!(project.path().join("keep.txt").exists(), "rm ran");

    // The sub-agent's model got the deny; the parent got the conclusion.
    let requests = mock.requests();
    let denied = result_for(&requests[2].body, "s1").to_string();
    assert!(
        denied.contains("denied") && denied.contains("Bash(rm *)"),
        "{denied}"
    );
    let answer = result_for(&requests[3].body, "a1").to_string();
    assert!(answer.contains("could not remove it"), "{answer}");

    // The denied call is audited in the sub-agent's transcript, not the parent's.
    let seen = seen.lock().unwrap();
    assert!(!seen.iter().any(|e| matches!(e,
        SessionEvent::ToolResult { tool_use_id, .. } if tool_use_id == "s1")));
    // The parent sees the sub-agent's calls as progress of its Agent call.
    let progress: Vec<String> = seen
        .iter()
        .filter_map(|e| match e {
            SessionEvent::ToolProgress {
                tool_use_id,
                message,
                ..
            } if tool_use_id == "a1" => message.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert!(progress[0].starts_with("Bash {"), "{progress:?}");
    let (_, path) = &subagent_transcripts(&seen)[0];
    let audit = read(path)
        .into_iter()
        .find_map(|e| match e {
            SessionEvent::ToolResult {
                tool_use_id,
                outcome,
                audit,
                ..
            } if tool_use_id == "s1" => Some((outcome, audit.unwrap())),
            _ => None,
        })
        .unwrap();
    assert_eq!(audit.0, ToolOutcome::Denied);
    assert_eq!(audit.1.decision, AuditDecision::Deny);
    assert!(audit.1.decided_by.contains("Bash(rm *)"), "{:?}", audit.1);

    // Hooks ran with the sub-agent's identity.
    let lines: Vec<Value> = std::fs::read_to_string(&hook_log)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events: Vec<&str> = lines
        .iter()
        .map(|l| l["hook_event_name"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["SubagentStart", "PreToolUse", "SubagentStop"]);
    let agent_id = lines[0]["agent_id"].as_str().unwrap();
    assert_eq!(lines[1]["agent_id"], agent_id);
    assert_eq!(lines[1]["agent_type"], "general-purpose");
    assert_eq!(lines[1]["tool_name"], "Bash");
    assert_eq!(
        lines[2]["agent_transcript_path"],
        path.to_string_lossy().as_ref()
    );
}

#[tokio::test]
async fn a_subagent_with_read_and_grep_cannot_call_bash() {
    let project = Project::new();
    project.write(
        ".claude/agents/reader.md",
        "---\nname: reader\ndescription: Reads files.\ntools: Read, Grep\nmodel: claude-reader-1\n---\nYou only read.\n",
    );
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Read things", "prompt": "Read it", "subagent_type": "reader"}),
        ),
        Step::tool_use("s1", "Bash", json!({"command": "touch made"})),
        Step::text("no shell here"),
        Step::text("done"),
    ]);
    let session = session(&project, SessionOptions::new("parent-3")).await;
    let description = session
        .pipeline()
        .registry()
        .get("Agent")
        .unwrap()
        .definition
        .description
        .clone()
        .unwrap();
    assert!(
        description.contains("- reader: Reads files. (tools: Read, Grep)"),
        "{description}"
    );
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "go",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    assert_eq!(
        tool_names(&requests[1].body),
        BTreeSet::from(["Grep".to_owned(), "Read".to_owned()])
    );
    assert_eq!(requests[1].body["model"], "claude-reader-1");
    assert_eq!(requests[0].body["model"], "m");
    let system = requests[1].body["system"].to_string();
    assert!(system.contains("You only read."), "{system}");
    let refused = result_for(&requests[2].body, "s1");
    assert_eq!(refused["is_error"], true);
    assert!(
        refused.to_string().contains("No tool named \\\"Bash\\\""),
        "{refused}"
    );
    assert!(!project.path().join("made").exists());
}

#[tokio::test]
async fn an_mcp_tool_the_person_allowed_always_for_the_parent_is_usable_by_a_subagent() {
    let project = Project::new();
    let (node, script) = everything_server();
    project.write(
        ".mcp.json",
        &json!({"mcpServers": {"everything": {"command": node, "args": [script, "stdio"]}}})
            .to_string(),
    );
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "p1",
            "mcp__everything__echo",
            json!({"message": "from parent"}),
        ),
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Echo something", "prompt": "Echo it"}),
        ),
        Step::tool_use(
            "s1",
            "mcp__everything__echo",
            json!({"message": "from sub-agent"}),
        ),
        Step::text("echoed"),
        Step::text("done"),
    ]);
    // One answer only: a second ask would be refused.
    let person = Scripted::new()
        .approve_server(true)
        .permission(PromptAnswer::AllowAlways);
    let session = session(
        &project,
        SessionOptions::new("parent-4").interaction(Arc::new(person.clone())),
    )
    .await;
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "echo",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    let sub = result_for(&requests[3].body, "s1");
    assert_ne!(sub["is_error"], true, "{sub}");
    assert!(sub.to_string().contains("from sub-agent"), "{sub}");
    let asks: Vec<String> = person
        .asked()
        .into_iter()
        .filter_map(|a| match a {
            Asked::Permission(p) => Some(p.call),
            _ => None,
        })
        .collect();
    assert_eq!(asks.len(), 1, "asked again for the sub-agent: {asks:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_parent_stops_the_subagent_and_answers_every_call_at_both_levels() {
    let project = Project::new();
    project.local_settings(json!({"permissions": {"allow": ["Bash(sleep *)"]}}));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Wait a while", "prompt": "Sleep"}),
        ),
        Step::tool_use("s1", "Bash", json!({"command": "sleep 30"})),
    ]);
    let (events, seen) = recorder();
    let session = session(&project, SessionOptions::new("parent-5").events(events)).await;
    let mut agent = session.agent(client(&mock).await, Default::default());
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        stopper.cancel();
    });
    let started = Instant::now();
    let outcome = agent
        .run(Some(vec![ContentBlock::text("wait")]), &cancel)
        .await;
    assert_eq!(outcome.status, RunStatus::Interrupted);
    assert!(started.elapsed() < Duration::from_secs(10));
    // The parent's Agent call is answered "interrupted".
    let last = agent.messages().last().unwrap();
    let results = results_of(last);
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error);
    assert!(
        results[0].text().contains("interrupted"),
        "{:?}",
        results[0]
    );
    // The sub-agent's Bash call is answered too, in its own conversation.
    let seen = seen.lock().unwrap();
    let (_, path) = &subagent_transcripts(&seen)[0];
    let events = read(path);
    let sub_result = events
        .iter()
        .find_map(|e| match e {
            SessionEvent::ToolResult {
                tool_use_id,
                outcome,
                audit,
                ..
            } if tool_use_id == "s1" => Some((*outcome, audit.clone())),
            _ => None,
        })
        .expect("the sub-agent's call has a result");
    assert_eq!(sub_result.0, ToolOutcome::Interrupted);
    let answered = events.iter().rev().find_map(|e| match e {
        SessionEvent::Message { message } => Some(message.clone()),
        _ => None,
    });
    let answered = results_of(&answered.unwrap());
    assert_eq!(answered.len(), 1);
    assert_eq!(answered[0].tool_use_id, "s1");
    assert!(seen.iter().any(|e| matches!(
        e,
        SessionEvent::SubagentStop {
            status: RunStatus::Interrupted,
            ..
        }
    )));
}

#[tokio::test]
async fn an_unknown_subagent_type_is_an_error_naming_the_closest_type_first() {
    let project = Project::new();
    project.write(
        ".tack/agents/code-reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews code.\n---\nReview.\n",
    );
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Review", "prompt": "Review it", "subagent_type": "code-reveiwer"}),
        ),
        Step::text("ok"),
    ]);
    let session = session(&project, SessionOptions::new("parent-6")).await;
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "review",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed);
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "no sub-agent ran");
    let result = result_for(&requests[1].body, "a1");
    assert_eq!(result["is_error"], true);
    let text = result["content"].to_string();
    assert!(
        text.contains("there is no agent type \\\"code-reveiwer\\\"; the agent types are: code-reviewer, general-purpose"),
        "{text}"
    );
}

#[tokio::test]
async fn a_bad_agent_definition_is_a_notice_with_file_and_line_and_the_others_load() {
    let project = Project::new();
    project.write(
        ".claude/agents/bad.md",
        "---\nname: bad\ndescription: Broken.\ntools: [Read\n---\nBody.\n",
    );
    project.write(
        ".claude/agents/good.md",
        "---\nname: good\ndescription: Works.\n---\nBody.\n",
    );
    let person = Scripted::new();
    let session = session(
        &project,
        SessionOptions::new("parent-7").interaction(Arc::new(person.clone())),
    )
    .await;
    let notices: Vec<String> = person
        .asked()
        .into_iter()
        .filter_map(|a| match a {
            Asked::Notice(n) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    let file = project.path().join(".claude/agents/bad.md");
    assert!(
        notices[0].starts_with(&format!("{}:", file.display())),
        "{}",
        notices[0]
    );
    let line: u32 = notices[0][file.display().to_string().len() + 1..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((4..=5).contains(&line), "{}", notices[0]);
    let description = session
        .pipeline()
        .registry()
        .get("Agent")
        .unwrap()
        .definition
        .description
        .clone()
        .unwrap();
    assert!(description.contains("- good: Works."), "{description}");
    assert!(!description.contains("- bad:"), "{description}");
}

#[tokio::test]
async fn a_subagents_cd_does_not_move_the_parents_shell() {
    let project = Project::new();
    project.write("inner/file.txt", "x");
    project.local_settings(json!({"permissions": {"allow": ["Bash"]}}));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Go inside", "prompt": "cd inner"}),
        ),
        Step::tool_use("s1", "Bash", json!({"command": "cd inner"})),
        Step::tool_use("s2", "Bash", json!({"command": "pwd"})),
        Step::text("went in"),
        Step::tool_use("p1", "Bash", json!({"command": "pwd"})),
        Step::text("done"),
    ]);
    let session = session(&project, SessionOptions::new("parent-8")).await;
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "go",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    let inside = result_for(&requests[3].body, "s2").to_string();
    assert!(inside.contains("/inner"), "{inside}");
    let parent = result_for(&requests[5].body, "p1").to_string();
    assert!(
        !parent.contains("/inner"),
        "the parent's shell moved: {parent}"
    );
    assert!(
        parent.contains(project.path().to_str().unwrap()),
        "{parent}"
    );
}

#[tokio::test]
async fn the_agent_tools_definition_as_the_model_sees_it() {
    let project = Project::new();
    project.write(
        ".claude/agents/reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews a change for bugs and missing tests.\ntools: Read, Grep, Glob\n---\nReview.\n",
    );
    let session = session(&project, SessionOptions::new("parent-9")).await;
    let definition = session
        .pipeline()
        .registry()
        .definitions()
        .into_iter()
        .find(|d| d.name == "Agent")
        .unwrap();
    insta::assert_json_snapshot!(definition);
}

#[tokio::test]
async fn a_subagents_ask_goes_to_the_person_naming_the_subagent() {
    let project = Project::new();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "a1",
            "Agent",
            json!({"description": "Make a file", "prompt": "touch made"}),
        ),
        Step::tool_use("s1", "Bash", json!({"command": "touch made"})),
        Step::text("made it"),
        Step::text("done"),
    ]);
    let person = Scripted::new().permission(PromptAnswer::AllowOnce);
    let session = session(
        &project,
        SessionOptions::new("parent-10").interaction(Arc::new(person.clone())),
    )
    .await;
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "go",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert!(project.path().join("made").exists());
    let asks: Vec<_> = person
        .asked()
        .into_iter()
        .filter_map(|a| match a {
            Asked::Permission(p) => Some(p),
            _ => None,
        })
        .collect();
    assert_eq!(asks.len(), 1);
    assert_eq!(asks[0].tool_use_id, "s1");
    let agent = asks[0].agent.clone().expect("the ask names the sub-agent");
    assert_eq!(agent.agent_type, "general-purpose");
    assert_eq!(agent.agent_id.len(), 32);
}
