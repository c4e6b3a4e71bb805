//! The official conformance suite (@modelcontextprotocol/conformance) against
//! tack's client. The suite runs a command with the server URL appended; that
//! command is this test binary running `conformance_driver` alone.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tack_mcp::client::{ConfigSource, ServerConfig, StartOutcome};

use super::support::*;

/// Arguments for a tool from its schema: each required property gets a
/// plain value of its type.
fn arguments_for(schema: &Value) -> Value {
    let mut args = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for name in required {
        let value = match schema["properties"][name]["type"].as_str() {
            Some("number" | "integer") => json!(2),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("x"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

/// The client under test: connects to the URL the suite appends, lists the
/// tools and calls each one. Does nothing when not run by the suite.
#[tokio::test]
#[ignore = "the conformance suite runs this as its client; see conformance_client_scenarios"]
async fn conformance_driver() {
    let Some(url) = std::env::args().find(|a| a.starts_with("http://")) else {
        return;
    };
    let home = Home::new();
    let server = ServerConfig::http("conformance", ConfigSource::UserSettings, &url, &[]);
    let manager = home.manager_with(vec![server], |o| {
        o.startup_timeout = Duration::from_secs(20);
        o.env = Some(Arc::new(|_: &str| None));
    });
    let reports = manager.start().await;
    println!("start: {reports:?}");
    if !matches!(reports[0].outcome, StartOutcome::Started { .. }) {
        std::process::exit(1);
    }
    for tool in manager.server_tools("conformance").await.unwrap() {
        let args = arguments_for(&tool.input_schema);
        let outcome = manager.call("conformance", &tool.tool, args).await;
        println!("{}: {outcome:?}", tool.tool);
    }
    manager.shutdown().await;
}

#[tokio::test]
async fn conformance_client_scenarios() {
    let peers = require_peers!();
    let home = Home::new();
    let exe = std::env::current_exe().unwrap();
    let suite = peers
        .everything
        .ancestors()
        .nth(3)
        .unwrap()
        .join("conformance/dist/index.js");
    let command = format!(
        "{} client::conformance::conformance_driver --exact --ignored --nocapture --test-threads 1",
        exe.display()
    );
    let mut failed = Vec::new();
    for scenario in ["initialize", "tools_call", "sse-retry"] {
        let output = Command::new(&peers.node)
            .arg(&suite)
            .args(["client", "--command", &command, "--scenario", scenario])
            .current_dir(home.dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        println!(
            "--- {scenario}\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        if !output.status.success() {
            failed.push(scenario);
        }
    }
    assert!(
        failed.is_empty(),
        "conformance scenarios failed: {failed:?}"
    );
}
