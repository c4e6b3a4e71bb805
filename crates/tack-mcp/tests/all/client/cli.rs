//! The data behind `tack mcp list / tools / call`, and their exit codes.

use serde_json::json;
use tack_mcp::client::{ClientError, ConfigSource, ServerConfig, ServerState};
use tack_protocol::exit;
use tack_tool::ToolError;

use super::support::*;

#[tokio::test]
async fn list_tools_and_call_with_distinct_exit_codes() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![
        peers.python("py", &[]),
        ServerConfig::stdio(
            "broken",
            ConfigSource::UserSettings,
            "/nonexistent/server",
            &[],
            &[],
        ),
    ]);
    manager.start().await;

    let list = manager.list();
    let py = list.iter().find(|s| s.name == "py").unwrap();
    assert_eq!(py.state, ServerState::Running);
    assert_eq!(py.transport, "stdio");
    assert!(py.tools >= 10, "{py:?}");
    assert!(py.definition_tokens > 100, "{py:?}");
    let broken = list.iter().find(|s| s.name == "broken").unwrap();
    assert_eq!(broken.state, ServerState::Failed);
    assert!(
        broken
            .error
            .as_deref()
            .unwrap()
            .contains("command not found")
    );
    let as_json = serde_json::to_value(&list).unwrap();
    assert_eq!(as_json[1]["name"], "py");
    assert_eq!(as_json[1]["state"], "running");

    let tools = manager.server_tools("py").await.unwrap();
    let echo = tools.iter().find(|t| t.tool == "echo").unwrap();
    assert_eq!(echo.name, "mcp__py__echo");
    assert!(echo.read_only && !echo.destructive && !echo.withheld);
    assert_eq!(echo.input_schema["properties"]["text"]["type"], "string");

    let outcome = manager
        .call("py", "add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(outcome.structured, Some(json!({"a": 1, "b": 2, "sum": 3})));
    assert!(outcome.text.contains('3'));

    let err = manager
        .call("py", "fail", json!({"message": "bad"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ClientError::Tool { error: ToolError::Failed(t), .. } if t.contains("bad")),
        "{err:?}"
    );
    assert_eq!(err.exit_code(), exit::TOOL_FAILED);
    let err = manager.call("nope", "echo", json!({})).await.unwrap_err();
    assert_eq!(err.exit_code(), exit::NOT_FOUND, "{err}");
    let err = manager.call("py", "nope", json!({})).await.unwrap_err();
    assert_eq!(err.exit_code(), exit::NOT_FOUND, "{err}");
    assert!(
        err.to_string().contains("echo"),
        "lists the server's tools: {err}"
    );
    let err = manager.call("broken", "x", json!({})).await.unwrap_err();
    assert_eq!(err.exit_code(), exit::SERVER_FAILED, "{err}");
    let as_json = serde_json::to_value(&err).unwrap();
    assert_eq!(as_json["kind"], "start_failed");
    assert_eq!(as_json["exit_code"], exit::SERVER_FAILED);
    manager.shutdown().await;
}
