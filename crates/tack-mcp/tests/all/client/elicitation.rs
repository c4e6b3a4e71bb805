//! A server asks for input during a call: form and URL elicitation inside
//! 2026-07-28 multi-round-trip results (`tests/python/elicit_server.py`, on
//! the Python SDK), answered through `ManagerOptions::requests`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use tack_mcp::client::{
    ElicitAnswer, Elicitation, ElicitationKind, FieldKind, ServerConfig, ServerRequests,
};
use tack_tool::ToolError;

use super::support::*;

/// Answers from a list and records every request.
#[derive(Default)]
pub(super) struct Answers {
    answers: Mutex<VecDeque<ElicitAnswer>>,
    asked: Mutex<Vec<Elicitation>>,
}

impl Answers {
    pub(super) fn new(answers: Vec<ElicitAnswer>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            asked: Mutex::default(),
        })
    }
    pub(super) fn asked(&self) -> Vec<Elicitation> {
        self.asked.lock().unwrap().clone()
    }
}

#[async_trait]
impl ServerRequests for Answers {
    fn can_elicit(&self) -> bool {
        true
    }
    async fn elicit(&self, request: &Elicitation) -> ElicitAnswer {
        self.asked.lock().unwrap().push(request.clone());
        self.answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(ElicitAnswer::Cancel)
    }
}

fn form(value: Value) -> ElicitAnswer {
    match value {
        Value::Object(map) => ElicitAnswer::Accept(map),
        other => panic!("not an object: {other}"),
    }
}

fn server(peers: &Peers, home: &Home) -> ServerConfig {
    peers.python_script(
        "el",
        "elicit_server.py",
        &[("TACK_TEST_MARKERS", &home.markers_env())],
    )
}

#[tokio::test]
async fn a_form_is_asked_with_typed_fields_and_the_answer_reaches_the_server() {
    let peers = require_peers!();
    let home = Home::new();
    let answers = Answers::new(vec![form(json!({
        "name": "Ada", "guests": 4, "vegetarian": true, "email": "ada@example.com"
    }))]);
    let requests = answers.clone();
    let manager = home.manager_with(vec![server(&peers, &home)], |o| o.requests = requests);
    start_ok(&manager, &["el"]).await;
    assert_eq!(
        manager.list()[0].protocol_version.as_deref(),
        Some("2026-07-28")
    );

    let out = call(&manager, "mcp__el__book", json!({})).await.unwrap();
    assert_eq!(
        text(&out),
        "booked for Ada, 4 guests, vegetarian=True, confirm to ada@example.com"
    );
    let asked = answers.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].server, "el");
    assert_eq!(asked[0].message, "Book a table: who is coming?");
    let ElicitationKind::Form { fields } = &asked[0].kind else {
        panic!("not a form: {:?}", asked[0].kind)
    };
    let kinds: Vec<(&str, bool, &FieldKind)> = fields
        .iter()
        .map(|f| (f.name.as_str(), f.required, &f.kind))
        .collect();
    assert!(
        kinds.contains(&(
            "guests",
            true,
            &FieldKind::Number {
                integer: true,
                minimum: Some(1.0),
                maximum: Some(12.0)
            }
        )),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("vegetarian", false, &FieldKind::Boolean)),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().any(|(n, _, k)| *n == "email"
            && matches!(k, FieldKind::String { format: Some(f), .. } if f == "email")),
        "{kinds:?}"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn an_answer_that_breaks_the_schema_is_declined_and_the_model_told_why() {
    let peers = require_peers!();
    let home = Home::new();
    let answers = Answers::new(vec![form(json!({
        "name": "Ada", "guests": 40, "email": "ada@example.com"
    }))]);
    let requests = answers.clone();
    let manager = home.manager_with(vec![server(&peers, &home)], |o| o.requests = requests);
    start_ok(&manager, &["el"]).await;

    let out = call(&manager, "mcp__el__book", json!({})).await.unwrap();
    let text = text(&out);
    assert!(
        text.starts_with("not booked: the client answered decline"),
        "{text}"
    );
    assert!(
        text.contains("did not match its schema") && text.contains("guests"),
        "{text}"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn headless_declines_says_so_and_does_not_declare_elicitation() {
    let peers = require_peers!();
    let home = Home::new();
    // The default: nobody to ask.
    let manager = home.manager(vec![server(&peers, &home)]);
    start_ok(&manager, &["el"]).await;

    let out = call(&manager, "mcp__el__forced_ask", json!({}))
        .await
        .unwrap();
    let text = text(&out);
    assert!(
        text.starts_with("forced_ask: the client answered decline"),
        "{text}"
    );
    assert!(
        text.contains("Which branch should I deploy?") && text.contains("nobody can be asked"),
        "{text}"
    );
    // The SDK asks only clients that declared elicitation: without the
    // capability it refuses to ask, so book fails instead of hanging.
    let err = call(&manager, "mcp__el__book", json!({}))
        .await
        .unwrap_err();
    assert!(
        err.to_string().to_lowercase().contains("elicitation"),
        "{err}"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn url_mode_shows_the_host_and_the_consent_reaches_the_server() {
    let peers = require_peers!();
    let home = Home::new();
    let answers = Answers::new(vec![ElicitAnswer::Accept(Map::new())]);
    let requests = answers.clone();
    let manager = home.manager_with(vec![server(&peers, &home)], |o| o.requests = requests);
    start_ok(&manager, &["el"]).await;

    let out = call(&manager, "mcp__el__visit", json!({})).await.unwrap();
    assert_eq!(text(&out), "visit: the client answered accept");
    let asked = answers.asked();
    assert_eq!(
        asked[0].kind,
        ElicitationKind::Url {
            url: "https://accounts.example.com/link?session=42".into(),
            host: "accounts.example.com".into()
        }
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn input_rounds_are_capped_and_request_state_comes_back_byte_exact() {
    let peers = require_peers!();
    let home = Home::new();
    let manager = home.manager(vec![server(&peers, &home)]);
    start_ok(&manager, &["el"]).await;

    let err = call(&manager, "mcp__el__looping", json!({}))
        .await
        .unwrap_err();
    match &err {
        ToolError::Unavailable(text) => assert!(text.contains("8 times"), "{text}"),
        other => panic!("expected Unavailable, got {other:?}"),
    }
    // Eight requests: the first without state, each later one with the
    // state of the answer before (the SDK seals it: a changed byte would
    // have failed the call instead).
    let states: Vec<Value> = std::fs::read_to_string(home.markers().join("states"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(states.len(), 8, "{states:?}");
    assert_eq!(states[0], Value::Null);
    assert!(
        states[1..]
            .iter()
            .all(|s| s.as_str().is_some_and(|s| s.contains("\"été\""))),
        "{states:?}"
    );
    assert_eq!(
        states[7].as_str().unwrap().lines().next().unwrap(),
        r#"round 6 "été" \u00e9 {"k": [1, 2.50]}"#
    );
    manager.shutdown().await;
}
