//! @modelcontextprotocol/server-everything (TypeScript SDK, 2025-11-25): the
//! client falls back from server/discover to the initialize handshake.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tack_mcp::client::{ConfigSource, ProgressUpdate, ServerConfig};
use tack_protocol::ContentBlock;
use tack_tool::ToolError;

use super::support::*;

#[tokio::test]
async fn falls_back_to_the_handshake_and_converts_text_image_and_resources() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![peers.everything("everything")]);
    start_ok(&manager, &["everything"]).await;
    assert_eq!(
        manager.list()[0].protocol_version.as_deref(),
        Some("2025-11-25")
    );
    let names = names(&manager);
    for expected in [
        "mcp__everything__echo",
        "mcp__everything__get-sum",
        "mcp__everything__get-tiny-image",
    ] {
        assert!(
            names.contains(&expected.to_owned()),
            "{expected} missing from {names:?}"
        );
    }

    let out = call(&manager, "mcp__everything__echo", json!({"message": "hi"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "Echo: hi");

    let out = call(&manager, "mcp__everything__get-tiny-image", json!({}))
        .await
        .unwrap();
    let image = out
        .content
        .iter()
        .find_map(|b| match b {
            ContentBlock::Image(i) => Some(i),
            _ => None,
        })
        .expect("an image block");
    assert_eq!(image.source["type"], "base64");
    assert_eq!(image.source["media_type"], "image/png");
    assert!(image.source["data"].as_str().unwrap().len() > 100);
    assert!(text(&out).contains("MCP logo"));

    let out = call(
        &manager,
        "mcp__everything__get-resource-reference",
        json!({"resourceType": "Text", "resourceId": 1}),
    )
    .await
    .unwrap();
    assert!(text(&out).contains("Resource demo://"), "{}", text(&out));
    let out = call(
        &manager,
        "mcp__everything__get-resource-reference",
        json!({"resourceType": "Blob", "resourceId": 1}),
    )
    .await
    .unwrap();
    assert!(
        text(&out).contains("[binary resource demo://"),
        "{}",
        text(&out)
    );

    let out = call(
        &manager,
        "mcp__everything__get-resource-links",
        json!({"count": 2}),
    )
    .await
    .unwrap();
    assert_eq!(
        text(&out).matches("Resource link:").count(),
        2,
        "{}",
        text(&out)
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn structured_content_progress_and_errors() {
    let peers = require_peers!();
    let home = Home::new();
    let updates: Arc<Mutex<Vec<ProgressUpdate>>> = Arc::default();
    let seen = updates.clone();
    let manager = home.manager_with(vec![peers.everything("everything")], move |o| {
        o.progress = Some(Arc::new(move |u: &ProgressUpdate| {
            seen.lock().unwrap().push(u.clone())
        }));
    });
    start_ok(&manager, &["everything"]).await;

    let out = call(
        &manager,
        "mcp__everything__get-structured-content",
        json!({"location": "New York"}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured.as_ref().unwrap()["temperature"], 33);

    let long = tool(&manager, "mcp__everything__trigger-long-running-operation");
    assert!(long.is_concurrency_safe(&json!({})), "readOnlyHint: true");
    let out = long
        .call(json!({"duration": 0.6, "steps": 3}), ctx())
        .await
        .unwrap();
    assert!(text(&out).contains("Long running operation completed"));
    let progress: Vec<f64> = updates.lock().unwrap().iter().map(|u| u.progress).collect();
    assert_eq!(progress, vec![1.0, 2.0, 3.0]);
    assert_eq!(updates.lock().unwrap()[0].total, Some(3.0));

    let err = call(
        &manager,
        "mcp__everything__get-sum",
        json!({"a": "two", "b": 1}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolError::Failed(_)), "{err:?}");
    manager.shutdown().await;
}

#[tokio::test]
async fn streamable_http_mode() {
    let peers = require_peers!();
    let home = Home::new();
    let port = free_port();
    let _server = Child(
        std::process::Command::new(&peers.node)
            .arg(&peers.everything)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for_port(port).await;
    let config = ServerConfig::http(
        "ehttp",
        ConfigSource::UserSettings,
        &format!("http://127.0.0.1:{port}/mcp"),
        &[],
    );
    let manager = home.manager(vec![config]);
    start_ok(&manager, &["ehttp"]).await;
    assert_eq!(
        manager.list()[0].protocol_version.as_deref(),
        Some("2025-11-25")
    );
    let out = call(&manager, "mcp__ehttp__get-sum", json!({"a": 2, "b": 40}))
        .await
        .unwrap();
    assert_eq!(text(&out), "The sum of 2 and 40 is 42.");
    manager.shutdown().await;
}
