//! The Python server (mcp==2.3.0): 2026-07-28 over stdio and streamable HTTP.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tack_mcp::client::{ConfigSource, ProgressUpdate, ServerConfig, ServerState};
use tack_protocol::is_valid_tool_name;
use tack_tool::ToolError;
use tokio_util::sync::CancellationToken;

use super::support::*;

fn py(peers: &Peers, home: &Home) -> ServerConfig {
    peers.python("py", &[("TACK_TEST_MARKERS", &home.markers_env())])
}

#[tokio::test]
async fn speaks_2026_07_28_over_stdio_and_maps_annotations() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![py(&peers, &home)]);
    start_ok(&manager, &["py"]).await;

    let listing = &manager.list()[0];
    assert_eq!(listing.state, ServerState::Running);
    assert_eq!(listing.protocol_version.as_deref(), Some("2026-07-28"));
    let echo = tool(&manager, "mcp__py__echo");
    assert!(
        echo.is_concurrency_safe(&json!({})),
        "readOnlyHint makes echo concurrency-safe"
    );
    assert!(!echo.annotations().destructive);
    let fail = tool(&manager, "mcp__py__fail");
    assert!(fail.annotations().destructive && !fail.is_concurrency_safe(&json!({})));
    assert_eq!(echo.input_schema()["type"], "object");

    let out = call(&manager, "mcp__py__echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "echo: hi");
    manager.shutdown().await;
}

#[tokio::test]
async fn structured_content_is_kept_and_is_error_is_the_servers_text() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![py(&peers, &home)]);
    start_ok(&manager, &["py"]).await;

    let out = call(&manager, "mcp__py__add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(out.structured, Some(json!({"a": 2, "b": 3, "sum": 5})));
    let as_json: serde_json::Value = serde_json::from_str(&text(&out)).unwrap();
    assert_eq!(as_json["sum"], 5);

    let err = call(
        &manager,
        "mcp__py__fail",
        json!({"message": "disk on fire"}),
    )
    .await
    .unwrap_err();
    match err {
        ToolError::Failed(text) => assert!(text.contains("disk on fire"), "{text}"),
        other => panic!("expected Failed, got {other:?}"),
    }
    manager.shutdown().await;
}

#[tokio::test]
async fn a_call_past_its_timeout_is_cancelled_on_the_server() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager_with(vec![py(&peers, &home)], |o| {
        o.call_timeout = Duration::from_secs(1)
    });
    start_ok(&manager, &["py"]).await;

    let started = Instant::now();
    let err = call(&manager, "mcp__py__slow", json!({"seconds": 20}))
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::Timeout(Duration::from_secs(1)));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    eventually(10, "the server to see notifications/cancelled", || {
        home.cancelled_marker()
    })
    .await;
    // The server is still usable.
    let out = call(&manager, "mcp__py__echo", json!({"text": "after"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "echo: after");
    manager.shutdown().await;
}

#[tokio::test]
async fn cancelling_the_context_interrupts_and_tells_the_server() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![py(&peers, &home)]);
    start_ok(&manager, &["py"]).await;
    let pid = manager.server_pid("py").unwrap();

    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let err = tool(&manager, "mcp__py__slow")
        .call(json!({"seconds": 20}), ctx_with(cancel))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Interrupted(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    eventually(10, "the server to see notifications/cancelled", || {
        home.cancelled_marker()
    })
    .await;
    assert_eq!(
        manager.server_pid("py"),
        Some(pid),
        "cancelling a call does not restart the server"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn progress_notifications_reach_the_sink() {
    let peers = require_peers!();
    let home = Home::new();
    let updates: Arc<Mutex<Vec<ProgressUpdate>>> = Arc::default();
    let seen = updates.clone();
    let manager = home.manager_with(vec![py(&peers, &home)], move |o| {
        o.progress = Some(Arc::new(move |u: &ProgressUpdate| {
            seen.lock().unwrap().push(u.clone())
        }));
    });
    start_ok(&manager, &["py"]).await;

    let out = call(&manager, "mcp__py__slow", json!({"seconds": 0.5}))
        .await
        .unwrap();
    assert_eq!(text(&out), "slept 0.5");
    let updates = updates.lock().unwrap().clone();
    assert!(updates.len() >= 3, "{updates:?}");
    let last = updates.last().unwrap();
    assert_eq!((last.server.as_str(), last.tool.as_str()), ("py", "slow"));
    assert_eq!(last.total, Some(5.0));
    assert_eq!(last.message.as_deref(), Some("step 5"));
    manager.shutdown().await;
}

#[tokio::test]
async fn a_server_killed_mid_call_fails_that_call_and_restarts_on_the_next() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![py(&peers, &home)]);
    start_ok(&manager, &["py"]).await;
    let first = manager.server_pid("py").unwrap();

    let slow = tool(&manager, "mcp__py__slow");
    let running = tokio::spawn(async move { slow.call(json!({"seconds": 20}), ctx()).await });
    tokio::time::sleep(Duration::from_millis(800)).await;
    kill(first);
    let err = running.await.unwrap().unwrap_err();
    match &err {
        ToolError::Transient(text) => {
            assert!(
                text.contains("stopped during the call") && text.contains("next call"),
                "{text}"
            )
        }
        other => panic!("expected Transient, got {other:?}"),
    }

    let out = call(&manager, "mcp__py__pid", json!({})).await.unwrap();
    let second: u32 = text(&out).parse().unwrap();
    assert_ne!(second, first);
    assert_eq!(home.starts(), 2);
    manager.shutdown().await;
}

#[tokio::test]
async fn a_server_that_died_while_idle_is_restarted_by_the_next_call() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![py(&peers, &home)]);
    start_ok(&manager, &["py"]).await;
    let first = manager.server_pid("py").unwrap();

    kill(first);
    eventually(10, "the manager to notice the exit", || {
        manager.list()[0].state == ServerState::Stopped
    })
    .await;
    let out = call(&manager, "mcp__py__echo", json!({"text": "again"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "echo: again");
    assert_ne!(manager.server_pid("py"), Some(first));
    assert_eq!(manager.list()[0].state, ServerState::Running);
    manager.shutdown().await;
}

#[tokio::test]
async fn list_changed_adds_tools_and_a_vanished_tool_says_so() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![py(&peers, &home)]);
    start_ok(&manager, &["py"]).await;
    let mut changes = manager.subscribe();
    changes.borrow_and_update();

    let out = call(&manager, "mcp__py__add_tool", json!({"name": "fresh"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "added fresh");
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .unwrap()
        .unwrap();
    assert!(names(&manager).contains(&"mcp__py__fresh".to_owned()));
    let out = call(&manager, "mcp__py__fresh", json!({"text": "x"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "added: x");

    call(&manager, "mcp__py__remove_tool", json!({"name": "env"}))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match call(&manager, "mcp__py__env", json!({})).await {
            Err(ToolError::Unavailable(text)) => {
                assert!(text.contains("no longer offers"), "{text}");
                break;
            }
            // Until the refresh lands, the call reaches the server, which no longer knows it.
            Ok(_) => assert!(Instant::now() < deadline, "env was never reported as gone"),
            Err(ToolError::InvalidInput(text) | ToolError::Failed(text))
                if text.contains("Unknown tool") =>
            {
                assert!(Instant::now() < deadline, "env was never reported as gone");
            }
            Err(other) => panic!("unexpected {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        names(&manager).contains(&"mcp__py__env".to_owned()),
        "tools are never removed from what the model sees"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn names_are_sanitised_truncated_and_made_unique() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![py(&peers, &home)]);
    start_ok(&manager, &["py"]).await;

    let names = names(&manager);
    assert!(names.iter().all(|n| is_valid_tool_name(n)), "{names:?}");
    let dotted: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with("mcp__py__dotted_name"))
        .collect();
    assert_eq!(dotted.len(), 2, "{names:?}");
    let long: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with("mcp__py__a_tool_name"))
        .collect();
    assert_eq!(long.len(), 1);
    assert_eq!(long[0].len(), 64);

    // Each name reaches its own tool.
    let mut answers = Vec::new();
    for name in dotted {
        answers.push(text(&call(&manager, name, json!({})).await.unwrap()));
    }
    answers.sort();
    assert_eq!(answers, vec!["dot".to_owned(), "underscore".to_owned()]);
    assert_eq!(
        text(&call(&manager, long[0], json!({})).await.unwrap()),
        "long"
    );
    // The server lists `dotted.name` first, yet `dotted_name`, whose name
    // needs no rewriting, keeps the plain name (a rule naming it means it).
    assert_eq!(
        text(
            &call(&manager, "mcp__py__dotted_name", json!({}))
                .await
                .unwrap()
        ),
        "underscore"
    );
    // Each tool tells the permission rules its server and own name.
    assert_eq!(
        tool(&manager, "mcp__py__dotted_name").mcp_origin(),
        Some(("py", "dotted_name"))
    );
    assert_eq!(
        tool(&manager, long[0]).mcp_origin(),
        Some((
            "py",
            "a_tool_name_that_is_much_longer_than_the_model_apis_allow_for_names"
        ))
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn streamable_http_with_headers_from_the_environment() {
    let peers = require_peers!();
    let home = Home::new();
    let (_server, url) = python_http(&peers, &home, &[]).await;
    let config = ServerConfig::from_value(
        "pyhttp",
        ConfigSource::UserSettings,
        &json!({"type": "http", "url": url, "headers": {"Authorization": "Bearer ${TACK_TEST_TOKEN}"}}),
    )
    .unwrap();
    let updates: Arc<Mutex<Vec<ProgressUpdate>>> = Arc::default();
    let seen = updates.clone();
    let manager = home.manager_with(vec![config], move |o| {
        o.env = Some(Arc::new(|v: &str| {
            (v == "TACK_TEST_TOKEN").then(|| "s3cret".to_owned())
        }));
        o.progress = Some(Arc::new(move |u: &ProgressUpdate| {
            seen.lock().unwrap().push(u.clone())
        }));
    });
    start_ok(&manager, &["pyhttp"]).await;

    assert_eq!(
        manager.list()[0].protocol_version.as_deref(),
        Some("2026-07-28")
    );
    let out = call(&manager, "mcp__pyhttp__whoami", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&out), "Bearer s3cret");
    let out = call(&manager, "mcp__pyhttp__slow", json!({"seconds": 0.3}))
        .await
        .unwrap();
    assert_eq!(text(&out), "slept 0.3");
    assert!(!updates.lock().unwrap().is_empty(), "progress over HTTP");
    let err = call(&manager, "mcp__pyhttp__fail", json!({"message": "nope"}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ToolError::Failed(ref t) if t.contains("nope")),
        "{err:?}"
    );
    manager.shutdown().await;
}
