//! Calls the server runs as tasks (`io.modelcontextprotocol/tasks`, 2026-07-28):
//! `tests/python/task_server.py`, raw JSON-RPC because the pinned Python SDK
//! has no server side for the extension.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tack_mcp::client::{ElicitAnswer, ProgressUpdate, ServerConfig};
use tack_tool::ToolError;
use tokio_util::sync::CancellationToken;

use super::elicitation::Answers;
use super::support::*;

fn server(peers: &Peers, home: &Home) -> ServerConfig {
    peers.python_script(
        "tk",
        "task_server.py",
        &[("TACK_TEST_MARKERS", &home.markers_env())],
    )
}

fn requests(home: &Home) -> Vec<Value> {
    std::fs::read_to_string(home.markers().join("requests"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn a_task_is_polled_to_its_result_and_its_status_reaches_the_progress_sink() {
    let peers = require_peers!();
    let home = Home::new();
    let seen: Arc<Mutex<Vec<ProgressUpdate>>> = Arc::default();
    let sink = seen.clone();
    let manager = home.manager_with(vec![server(&peers, &home)], |o| {
        o.progress = Some(Arc::new(move |u| sink.lock().unwrap().push(u.clone())));
    });
    start_ok(&manager, &["tk"]).await;

    let out = call(
        &manager,
        "mcp__tk__brew",
        json!({"kind": "coffee", "steps": 3}),
    )
    .await
    .unwrap();
    assert_eq!(text(&out), "brewed coffee");
    let messages: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .filter_map(|u| u.message.clone())
        .collect();
    assert_eq!(messages, ["queued", "step 1 of 3", "step 2 of 3", "done"]);
    let sent = requests(&home);
    let call = sent.iter().find(|r| r["method"] == "tools/call").unwrap();
    assert!(
        call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            .get("io.modelcontextprotocol/tasks")
            .is_some(),
        "the call opts in to tasks: {call}"
    );
    let polls: Vec<&Value> = sent.iter().filter(|r| r["method"] == "tasks/get").collect();
    assert_eq!(polls.len(), 3, "{polls:?}");
    assert!(polls.iter().all(|p| p["params"]["taskId"] == "task-1"));
    manager.shutdown().await;
}

#[tokio::test]
async fn an_input_required_task_is_answered_once_with_tasks_update() {
    let peers = require_peers!();
    let home = Home::new();
    let answers = Answers::new(vec![ElicitAnswer::Accept(
        json!({"confirm": true}).as_object().unwrap().clone(),
    )]);
    let requests_to = answers.clone();
    let manager = home.manager_with(vec![server(&peers, &home)], |o| o.requests = requests_to);
    start_ok(&manager, &["tk"]).await;

    let out = call(&manager, "mcp__tk__approve", json!({})).await.unwrap();
    assert_eq!(text(&out), "approve: the client answered accept");
    let asked = answers.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].message, "Deploy to production?");
    let update = requests(&home)
        .into_iter()
        .find(|r| r["method"] == "tasks/update")
        .unwrap();
    assert_eq!(
        update["params"]["inputResponses"]["ok"],
        json!({"action": "accept", "content": {"confirm": true}})
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn cancelling_the_call_sends_tasks_cancel() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![server(&peers, &home)]);
    start_ok(&manager, &["tk"]).await;

    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        trigger.cancel();
    });
    let err = tool(&manager, "mcp__tk__forever")
        .call(json!({}), ctx_with(cancel))
        .await
        .unwrap_err();
    match &err {
        ToolError::Interrupted(text) => assert!(text.contains("tasks/cancel"), "{text}"),
        other => panic!("expected Interrupted, got {other:?}"),
    }
    let marker = home.markers().join("task-cancelled");
    eventually(5, "tasks/cancel reached the server", || marker.exists()).await;
    assert_eq!(std::fs::read_to_string(marker).unwrap().trim(), "task-1");
    manager.shutdown().await;
}

#[tokio::test]
async fn a_failed_task_is_an_error_with_the_servers_message() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![server(&peers, &home)]);
    start_ok(&manager, &["tk"]).await;

    let err = call(&manager, "mcp__tk__broken", json!({}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("the kettle exploded"), "{err}");
    let out = call(&manager, "mcp__tk__plain", json!({})).await.unwrap();
    assert_eq!(text(&out), "plain answer");
    manager.shutdown().await;
}

#[tokio::test]
async fn a_task_left_running_when_tack_stops_is_collected_by_the_next_session() {
    let peers = require_peers!();
    let home = Home::new();
    let task_file = home.dir.path().join("session").join("mcp-tasks.json");
    let file = task_file.clone();
    let manager = home.manager_with(vec![server(&peers, &home)], |o| o.task_file = Some(file));
    start_ok(&manager, &["tk"]).await;

    // tack stops while the task runs: the call is dropped mid-poll.
    let call_it = call(
        &manager,
        "mcp__tk__brew",
        json!({"kind": "oolong", "steps": 8}),
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(150), call_it)
            .await
            .is_err()
    );
    let pending = tack_mcp::client::read_pending(&task_file);
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(
        (pending[0].server.as_str(), pending[0].tool.as_str()),
        ("tk", "brew")
    );
    assert_eq!(pending[0].task_id, "task-1");
    manager.shutdown().await;

    // The next session (a new server process too) collects the result.
    let file = task_file.clone();
    let manager = home.manager_with(vec![server(&peers, &home)], |o| o.task_file = Some(file));
    let late = manager.resume_tasks(&CancellationToken::new()).await;
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].task.task_id, "task-1");
    assert_eq!(text(late[0].outcome.as_ref().unwrap()), "brewed oolong");
    assert!(tack_mcp::client::read_pending(&task_file).is_empty());
    // Collected by polling, not by calling the tool again.
    let calls = requests(&home)
        .iter()
        .filter(|r| r["method"] == "tools/call")
        .count();
    assert_eq!(calls, 1);
    manager.shutdown().await;
}
