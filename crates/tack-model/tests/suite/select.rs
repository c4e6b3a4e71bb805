//! Provider selection against real local servers: the mock API and a tiny
//! fake Ollama that answers `/api/version` and `/api/tags`.

use std::collections::HashMap;

use serde_json::json;
use tack_model::{ModelError, ProviderKind, ProviderOptions, RetryPolicy, select_provider};
use tack_protocol::ContentBlock;
use tack_testkit::{MockServer, Step};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::support::ask;

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

/// A fake Ollama on 127.0.0.1 that lists `models`; returns its `host:port`.
async fn fake_ollama(models: Vec<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let models = models.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let (status, body) = match path.as_str() {
                    "/api/version" => ("200 OK", json!({"version": "0.9.0"})),
                    "/api/tags" => (
                        "200 OK",
                        json!({"models": models.iter().map(|m| json!({"name": m, "model": m})).collect::<Vec<_>>()}),
                    ),
                    _ => ("404 Not Found", json!({"error": "not found"})),
                };
                let body = body.to_string();
                let resp = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    addr.to_string()
}

#[tokio::test]
async fn ollama_is_found_by_probe_and_its_first_model_used() {
    let host = fake_ollama(vec!["qwen3:8b", "llama3.2"]).await;

    let client = select_provider(
        &ProviderOptions::default(),
        &env_of(&[("OLLAMA_HOST", &host)]),
    )
    .await
    .unwrap();

    assert_eq!(client.provider(), "ollama");
    assert_eq!(client.model(), "qwen3:8b");
}

#[tokio::test]
async fn ollama_with_no_models_says_to_pull_one() {
    let host = fake_ollama(vec![]).await;

    let err = select_provider(
        &ProviderOptions::default(),
        &env_of(&[("OLLAMA_HOST", &host)]),
    )
    .await
    .err()
    .unwrap();

    assert!(matches!(err, ModelError::Config(_)));
    assert!(err.to_string().contains("ollama pull"), "{err}");
}

#[tokio::test]
async fn explicit_ollama_with_model_skips_the_tags_lookup() {
    let opts = ProviderOptions {
        provider: Some(ProviderKind::Ollama),
        model: Some("gemma3".into()),
        ..Default::default()
    };
    // Nothing listens there, and nothing needs to.
    let client = select_provider(&opts, &env_of(&[("OLLAMA_HOST", "127.0.0.1:9")]))
        .await
        .unwrap();
    assert_eq!((client.provider(), client.model()), ("ollama", "gemma3"));
}

#[tokio::test]
async fn anthropic_key_and_base_url_reach_the_mock() {
    let server = MockServer::start().await;
    server.push(Step::text("selected"));
    let opts = ProviderOptions {
        base_url: Some(server.url()),
        stream: true,
        retry: RetryPolicy::fast(0),
        ..Default::default()
    };

    let client = select_provider(&opts, &env_of(&[("ANTHROPIC_API_KEY", "k")]))
        .await
        .unwrap();
    let turn = client.complete(&ask("hi"), &|_| {}).await.unwrap();

    assert_eq!(client.provider(), "anthropic");
    assert_eq!(turn.response.content, vec![ContentBlock::text("selected")]);
    assert_eq!(server.requests()[0].path, "/v1/messages");
    assert_eq!(server.requests()[0].body["model"], "claude-sonnet-4-5");
}

#[tokio::test]
async fn gpt_model_with_openai_base_url_reaches_the_mock() {
    let server = MockServer::start().await;
    server.push(Step::text("via chat completions"));
    let opts = ProviderOptions {
        model: Some("gpt-4.1-mini".into()),
        stream: false,
        ..Default::default()
    };
    let env = env_of(&[
        ("ANTHROPIC_API_KEY", "a"),
        ("OPENAI_API_KEY", "o"),
        ("OPENAI_BASE_URL", &server.url()),
    ]);

    let client = select_provider(&opts, &env).await.unwrap();
    let turn = client.complete(&ask("hi"), &|_| {}).await.unwrap();

    assert_eq!(client.provider(), "openai");
    assert_eq!(
        turn.response.content,
        vec![ContentBlock::text("via chat completions")]
    );
    assert_eq!(server.requests()[0].path, "/v1/chat/completions");
    assert_eq!(server.requests()[0].body["model"], "gpt-4.1-mini");
}
