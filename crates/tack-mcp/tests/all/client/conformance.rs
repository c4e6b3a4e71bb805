//! The official conformance suite (@modelcontextprotocol/conformance) against
//! tack's client. The suite runs a command with the server URL appended; that
//! command is this test binary running `conformance_driver` alone.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tack_mcp::client::{
    ConfigSource, ElicitAnswer, Elicitation, ElicitationKind, ServerConfig, ServerRequests,
    StartOutcome,
};

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

/// The person at the driver: accepts every form with its fields' defaults
/// (the elicitation-defaults scenario checks the client applies them).
struct TakeDefaults;

#[async_trait]
impl ServerRequests for TakeDefaults {
    fn can_elicit(&self) -> bool {
        true
    }
    async fn elicit(&self, request: &Elicitation) -> ElicitAnswer {
        match &request.kind {
            ElicitationKind::Form { fields } => ElicitAnswer::Accept(
                fields
                    .iter()
                    .filter_map(|f| Some((f.name.clone(), f.default.clone()?)))
                    .collect(),
            ),
            _ => ElicitAnswer::Accept(Map::new()),
        }
    }
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
        o.requests = Arc::new(TakeDefaults);
    });
    let reports = manager.start().await;
    println!("start: {reports:?}");
    if !matches!(reports[0].outcome, StartOutcome::Started { .. }) {
        std::process::exit(1);
    }
    let tools = manager.server_tools("conformance").await.unwrap();
    for tool in &tools {
        let mut args = arguments_for(&tool.input_schema);
        // The schema-preservation scenario's echo tool takes another
        // tool's inputSchema, as the client received it, back verbatim.
        if tool.input_schema["properties"]["schema"]["type"] == "object"
            && let Some(other) = tools.iter().find(|t| t.tool != tool.tool)
        {
            args["schema"] = other.input_schema.clone();
        }
        let outcome = manager.call("conformance", &tool.tool, args).await;
        println!("{}: {outcome:?}", tool.tool);
    }
    manager.shutdown().await;
}

/// The suite's client scenarios for `version`, OAuth ones left out (they
/// belong to the OAuth work, listed as such in the expected-failures file).
fn client_scenarios(node: &std::path::Path, suite: &std::path::Path, version: &str) -> Vec<String> {
    let output = Command::new(node)
        .arg(suite)
        .args(["list", "--client", "--spec-version", version])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| !name.starts_with("auth/"))
        .map(str::to_owned)
        .collect()
}

/// `tests/conformance-client-expected.txt`: `version scenario reason`.
fn expected_client_failures() -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance-client-expected.txt");
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let version = parts.next().unwrap().to_owned();
            let scenario = parts.next().unwrap().to_owned();
            assert!(
                parts.next().is_some(),
                "{}: no reason given: {l}",
                path.display()
            );
            (version, scenario)
        })
        .collect()
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
    let expected = expected_client_failures();
    let mut unexpected = Vec::new();
    let mut ran = 0;
    for version in ["2025-11-25", "2026-07-28"] {
        let scenarios = client_scenarios(&peers.node, &suite, version);
        assert!(scenarios.iter().any(|s| s == "tools_call"), "{scenarios:?}");
        for scenario in scenarios {
            ran += 1;
            let output = Command::new(&peers.node)
                .arg(&suite)
                .args(["client", "--command", &command, "--scenario", &scenario])
                .args(["--spec-version", version])
                .current_dir(home.dir.path())
                .output()
                .unwrap();
            let passed = output.status.success();
            println!(
                "--- {version} {scenario}: {}\n{}\n{}",
                if passed { "passed" } else { "FAILED" },
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            let listed = expected.iter().any(|(v, s)| v == version && *s == scenario);
            match (passed, listed) {
                (false, false) => unexpected.push(format!("{version} {scenario} failed")),
                (true, true) => unexpected.push(format!(
                    "{version} {scenario} passes now: take it out of conformance-client-expected.txt"
                )),
                _ => {}
            }
        }
    }
    assert!(ran >= 10, "only {ran} scenarios ran");
    assert!(unexpected.is_empty(), "{unexpected:#?}");
}
