//! What MCP servers ask of a session: sampling through the session's model
//! (the in-repo mock over HTTP), allowed per server in the settings, within
//! a budget, and recorded as `mcp_sampling` events; elicitation through the
//! session's Interaction.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tack_mcp::client::ElicitAnswer;
use tack_protocol::{AuditDecision, RunStatus, SessionEvent};
use tack_session::sources::{Builtins, Mcp};
use tack_session::{Asked, Scripted, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, recorder, results_of};

fn python() -> Option<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tack-mcp/tests/python");
    let python = dir.join(".venv/bin/python");
    if !python.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "run crates/tack-mcp/tests/setup.sh first"
        );
        eprintln!("SKIPPED: run crates/tack-mcp/tests/setup.sh first");
        return None;
    }
    Some((
        python.to_string_lossy().into_owned(),
        dir.to_string_lossy().into_owned(),
    ))
}

fn sampling_events(events: &[SessionEvent]) -> Vec<(String, AuditDecision, u64, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::McpSampling {
                server,
                decision,
                budget_used,
                budget,
                ..
            } => Some((server.clone(), *decision, *budget_used, *budget)),
            _ => None,
        })
        .collect()
}

async fn run(project: &Project, mock: &MockServer, person: Scripted) -> Vec<SessionEvent> {
    let (events, seen) = recorder();
    let model = client(mock).await;
    let mcp = Arc::new(Mcp::new(false));
    mcp.set_model(Arc::clone(&model));
    let ctx = project.context();
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("s1")
            .sources(vec![Arc::new(Builtins), mcp.clone()])
            .interaction(Arc::new(person))
            .events(events),
    )
    .await
    .unwrap();
    let outcome = session
        .run(model, Default::default(), "go", &CancellationToken::new())
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    if let Some(manager) = mcp.running() {
        manager.shutdown().await;
    }
    seen.lock().unwrap().clone()
}

fn tool_result_text(mock: &MockServer, request: usize) -> String {
    let requests = mock.requests();
    let body: tack_protocol::MessagesRequest =
        serde_json::from_value(requests[request].body.clone()).unwrap();
    results_of(body.messages.last().unwrap())
        .iter()
        .map(|r| serde_json::to_string(&r.content).unwrap())
        .collect()
}

#[tokio::test]
async fn an_allowed_server_samples_the_sessions_model_within_its_budget_and_is_audited() {
    let Some((python, dir)) = python() else {
        return;
    };
    let project = Project::new();
    project.local_settings(json!({
        "mcpServers": {"sm": {"command": python, "args": [format!("{dir}/sample_server.py")]}},
        "mcpSampling": {"sm": {"allow": true, "maxTokens": 5000}},
        "permissions": {"allow": ["mcp__sm"]},
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use(
            "t1",
            "mcp__sm__summarize",
            json!({"text": "the quick brown fox"}),
        ),
        // The server's sampling request reaches the mock…
        Step::text("a fox, quickly"),
        Step::text("done"),
    ]);
    let events = run(&project, &mock, Scripted::new()).await;

    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    let sampled = &requests[1].body;
    assert_eq!(
        sampled["system"][0]["text"],
        "You write one-line summaries."
    );
    let asked = sampled["messages"][0]["content"].to_string();
    assert!(asked.contains("Summarize: the quick brown fox"), "{asked}");
    assert!(sampled["max_tokens"].as_u64().unwrap() <= 200);
    assert!(
        sampled
            .get("tools")
            .is_none_or(|t| t.as_array().is_some_and(Vec::is_empty))
    );
    // …and the server gets the mock's text.
    let result = tool_result_text(&mock, 2);
    assert!(result.contains("summary: a fox, quickly"), "{result}");
    let audit = sampling_events(&events);
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(
        (audit[0].0.as_str(), audit[0].1),
        ("sm", AuditDecision::Allow)
    );
    assert!(audit[0].2 > 0 && audit[0].3 == 5000, "{audit:?}");
}

#[tokio::test]
async fn a_server_not_allowed_is_refused_with_how_to_allow_it_and_audited() {
    let Some((python, dir)) = python() else {
        return;
    };
    let project = Project::new();
    project.local_settings(json!({
        "mcpServers": {"sm": {"command": python, "args": [format!("{dir}/sample_server.py")]}},
        "permissions": {"allow": ["mcp__sm"]},
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("t1", "mcp__sm__forced_sample", json!({})),
        Step::text("done"),
    ]);
    let events = run(&project, &mock, Scripted::new()).await;

    assert_eq!(
        mock.requests().len(),
        2,
        "the model was not asked for the server"
    );
    let result = tool_result_text(&mock, 1);
    assert!(
        result.contains("mcpSampling") && result.contains("\\\"allow\\\": true"),
        "{result}"
    );
    let audit = sampling_events(&events);
    assert_eq!(audit, [("sm".to_owned(), AuditDecision::Deny, 0, 0)]);
}

#[tokio::test]
async fn an_elicitation_reaches_the_sessions_interaction() {
    let Some((python, dir)) = python() else {
        return;
    };
    let project = Project::new();
    project.local_settings(json!({
        "mcpServers": {"el": {"command": python, "args": [format!("{dir}/elicit_server.py")]}},
        "permissions": {"allow": ["mcp__el"]},
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("t1", "mcp__el__book", json!({})),
        Step::text("done"),
    ]);
    let answer: serde_json::Map<String, Value> =
        serde_json::from_value(json!({"name": "Ada", "guests": 2, "email": "a@b.co"})).unwrap();
    let person = Scripted::new().elicit(ElicitAnswer::Accept(answer));
    run(&project, &mock, person.clone()).await;

    let result = tool_result_text(&mock, 1);
    assert!(
        result.contains("booked for Ada, 2 guests, vegetarian=False"),
        "{result}"
    );
    assert!(
        person.asked().iter().any(|a| matches!(a,
        Asked::Elicitation { server, message, fields, url: None }
            if server == "el" && message == "Book a table: who is coming?"
                && fields.iter().any(|f| f == "guests"))),
        "{:?}",
        person.asked()
    );
}

#[tokio::test]
async fn a_server_past_its_budget_is_refused_for_the_rest_of_the_session() {
    let Some((python, dir)) = python() else {
        return;
    };
    let project = Project::new();
    project.local_settings(json!({
        "mcpServers": {"sm": {"command": python, "args": [format!("{dir}/sample_server.py")]}},
        "mcpSampling": {"sm": {"allow": true, "maxTokens": 3}},
        "permissions": {"allow": ["mcp__sm"]},
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("t1", "mcp__sm__summarize", json!({"text": "one"})),
        Step::text("first"),
        Step::tool_use("t2", "mcp__sm__summarize", json!({"text": "two"})),
        Step::text("done"),
    ]);
    let events = run(&project, &mock, Scripted::new()).await;

    let requests = mock.requests();
    assert_eq!(requests.len(), 4, "the second summary was not sampled");
    // The first request is held to what is left of the budget.
    assert_eq!(requests[1].body["max_tokens"], 3);
    assert!(tool_result_text(&mock, 2).contains("summary: first"));
    let refused = tool_result_text(&mock, 3);
    assert!(
        refused.contains("used its sampling budget of 3 tokens"),
        "{refused}"
    );
    let audit = sampling_events(&events);
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(audit[0].1, AuditDecision::Allow);
    assert_eq!(audit[1].1, AuditDecision::Deny);
    assert!(audit[1].2 >= 3, "{audit:?}");
}

#[test]
fn sampling_grants_come_from_the_users_files_and_mistakes_are_named() {
    let project = Project::new();
    project.settings(json!({"mcpSampling": {"repo-server": {"allow": true}}}));
    project.local_settings(json!({"mcpSampling": {
        "a": {"allow": true},
        "b": {"allow": true, "maxTokes": 5},
        "c": {"allow": "yes"},
        "d": {"allow": true, "maxTokens": 0},
    }}));
    let ctx = project.context();
    let settings = &ctx.settings;
    let grants: Vec<(&str, u64)> = settings
        .mcp_sampling
        .iter()
        .map(|(k, g)| (k.as_str(), g.max_tokens))
        .collect();
    // A project file cannot grant; the default budget applies; a bad entry grants nothing.
    assert_eq!(grants, [("a", 10_000), ("b", 10_000)]);
    let warnings = ctx.warnings.join("\n");
    assert!(
        warnings.contains("ignored in a project settings file"),
        "{warnings}"
    );
    assert!(warnings.contains("settings.local.json:"), "{warnings}");
    assert!(
        warnings.contains(r#"no key "maxTokes" (did you mean "maxTokens"?)"#),
        "{warnings}"
    );
    assert!(
        warnings.contains("mcpSampling.c.allow must be true or false"),
        "{warnings}"
    );
    assert!(
        warnings.contains("mcpSampling.d.maxTokens must be a whole number above 0"),
        "{warnings}"
    );
}

#[tokio::test]
async fn a_task_left_by_the_last_run_of_the_session_reaches_the_next_prompt() {
    let Some((python, dir)) = python() else {
        return;
    };
    let project = Project::new();
    let markers = tempfile::tempdir().unwrap();
    project.local_settings(json!({
        "mcpServers": {"tk": {
            "command": python,
            "args": [format!("{dir}/task_server.py")],
            "env": {"TACK_TEST_MARKERS": markers.path()},
        }},
    }));
    // The last run left task-1 working on the server and pending in the
    // session's task file.
    std::fs::write(
        markers.path().join("tasks.json"),
        json!({"task-1": {"id": "task-1", "tool": "brew", "args": {"kind": "late", "steps": 2},
            "status": "working", "message": "queued", "created": "2026-01-01T00:00:00Z", "polls": 0}})
            .to_string(),
    )
    .unwrap();
    let ctx = project.context();
    let task_file = Mcp::task_file(&ctx, "s1");
    std::fs::create_dir_all(task_file.parent().unwrap()).unwrap();
    std::fs::write(
        &task_file,
        json!([{"server": "tk", "tool": "brew", "taskId": "task-1", "startedAt": 1}]).to_string(),
    )
    .unwrap();

    let mcp = Arc::new(Mcp::new(false));
    let _session = Session::assemble(
        &ctx,
        SessionOptions::new("s1").sources(vec![Arc::new(Builtins), mcp.clone()]),
    )
    .await
    .unwrap();
    let late = mcp.late_results().await;
    assert_eq!(late.len(), 1, "{late:?}");
    assert!(
        late[0].starts_with("[tack: the MCP tool call mcp__tk__brew (server \"tk\", task task-1) was still running when this session last stopped; its result arrived since:]"),
        "{}",
        late[0]
    );
    assert!(late[0].ends_with("\nbrewed late"), "{}", late[0]);
    assert!(tack_mcp::client::read_pending(&task_file).is_empty());
    assert!(mcp.late_results().await.is_empty(), "collected once");
    mcp.running().unwrap().shutdown().await;
}
