//! The `webSearch` settings section, and WebSearch in a whole session: the
//! mock model calls it, a fake SearxNG on 127.0.0.1 answers.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tack_protocol::RunStatus;
use tack_session::{Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tack_tools::web::search::{BRAVE_URL, SearchProvider};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, results_of};

/// A SearxNG stand-in: answers every request with two results and records
/// the request lines.
async fn fake_searxng() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buf = vec![0u8; 8192];
            let n = stream.read(&mut buf).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            log.lock()
                .unwrap()
                .push(head.lines().next().unwrap_or("").to_owned());
            let body = json!({"results": [
                {"title": "Rust Book", "url": "https://doc.rust-lang.org/book/", "content": "The Rust Programming Language"},
                {"title": "Ad", "url": "https://ads.example/x", "content": "buy"},
            ]})
            .to_string();
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
        }
    });
    (url, seen)
}

#[test]
fn the_backend_comes_from_the_users_files_and_blocks_from_every_file() {
    let project = Project::new();
    project.local_settings(json!({"webSearch": {
        "provider": "searxng",
        "url": "http://127.0.0.1:8888",
        "blockedDomains": ["local-block.example"],
        "allowedDomains": ["rust-lang.org"]
    }}));
    // A checked-in project file cannot move the backend, only block more.
    project.settings(json!({"webSearch": {
        "provider": "brave",
        "url": "http://attacker.example",
        "blockedDomains": ["project-block.example"]
    }}));
    let ctx = project.context();
    let search = ctx.settings.web_search.clone().unwrap();
    assert_eq!(search.provider, SearchProvider::Searxng);
    assert_eq!(search.url.as_str(), "http://127.0.0.1:8888/");
    assert_eq!(search.allowed_domains, ["rust-lang.org"]);
    let mut blocked = search.blocked_domains.clone();
    blocked.sort();
    assert_eq!(blocked, ["local-block.example", "project-block.example"]);
}

#[test]
fn brave_defaults_its_address_and_reads_the_key_from_the_named_variable() {
    let project = Project::new();
    // HOME is set in any test environment: it stands in for BRAVE_API_KEY
    // without changing the process environment.
    project.local_settings(json!({"webSearch": {"provider": "brave", "apiKeyEnv": "HOME"}}));
    let search = project.context().settings.web_search.unwrap();
    assert_eq!(search.provider, SearchProvider::Brave);
    assert_eq!(search.url.as_str(), format!("{BRAVE_URL}/"));
    assert_eq!(search.api_key, std::env::var("HOME").ok());
    assert_eq!(search.api_key_env.as_deref(), Some("HOME"));
}

#[test]
fn no_section_no_search_and_bad_sections_are_clear_errors() {
    let project = Project::new();
    assert!(project.context().settings.web_search.is_none());
    for (bad, expect) in [
        (json!({"provider": "bing"}), "not known"),
        (json!({"provider": "searxng"}), "needs its url"),
        (json!({"url": "http://127.0.0.1:1"}), "provider is not"),
        (
            json!({"provider": "searxng", "url": "ftp://x"}),
            "not an http(s) address",
        ),
        (
            json!({"provider": "brave", "blockedDomains": "x.com"}),
            "list of domain strings",
        ),
        (json!("searxng"), "must be an object"),
    ] {
        let project = Project::new();
        project.local_settings(json!({ "webSearch": bad }));
        let e = tack_session::ProjectContext::load_with(
            project.dir.path(),
            project.state.path().to_owned(),
            tack_policy::LoadOptions::default(),
        )
        .err()
        .unwrap_or_else(|| panic!("{bad} was accepted"));
        let text = e.to_string();
        assert!(
            text.contains("webSearch") && text.contains(expect),
            "{bad}: {text}"
        );
    }
}

#[tokio::test]
async fn a_session_offers_web_search_and_the_model_gets_filtered_results() {
    let (url, seen) = fake_searxng().await;
    let project = Project::new();
    project.local_settings(json!({
        "webSearch": {"provider": "searxng", "url": url, "blockedDomains": ["ads.example"]},
        "permissions": {"allow": ["WebSearch"]}
    }));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("s1", "WebSearch", json!({"query": "rust book"})),
        Step::text("found it"),
    ]);
    let ctx = project.context();
    let session = Session::assemble(&ctx, SessionOptions::new("ws"))
        .await
        .unwrap();
    let mut agent = session.agent(client(&mock).await, Default::default());
    let out = agent
        .run(
            Some(vec![tack_protocol::ContentBlock::text("search")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let first = &mock.requests()[0].body;
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"WebSearch"), "{names:?}");
    let result = &results_of(&agent.messages()[2])[0];
    assert!(!result.is_error, "{}", result.text());
    let text = result.text();
    assert!(
        text.contains("Rust Book\n   https://doc.rust-lang.org/book/"),
        "{text}"
    );
    assert!(!text.contains("ads.example"), "{text}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert!(seen.lock().unwrap()[0].starts_with("GET /search?q=rust+book&format=json "));
}

#[tokio::test]
async fn a_deny_rule_stops_web_search_before_the_backend_is_asked() {
    let (url, seen) = fake_searxng().await;
    let project = Project::new();
    project.local_settings(json!({"webSearch": {"provider": "searxng", "url": url}}));
    project.settings(json!({"permissions": {"deny": ["WebSearch"]}}));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("s1", "WebSearch", json!({"query": "rust book"})),
        Step::text("ok"),
    ]);
    let ctx = project.context();
    let session = Session::assemble(&ctx, SessionOptions::new("ws2"))
        .await
        .unwrap();
    let mut agent = session.agent(client(&mock).await, Default::default());
    agent
        .run(
            Some(vec![tack_protocol::ContentBlock::text("search")]),
            &CancellationToken::new(),
        )
        .await;
    let result = &results_of(&agent.messages()[2])[0];
    assert!(result.is_error);
    assert!(result.text().contains("WebSearch"), "{}", result.text());
    assert!(seen.lock().unwrap().is_empty(), "the backend was not asked");
}
