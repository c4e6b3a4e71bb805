//! Request recording, step order, expectations and the server's lifetime.

use serde_json::json;
use tack_testkit::{Api, Expect, MockServer, Step};

use crate::support::{anthropic, anthropic_request, chat_body, messages_body, openai};

#[tokio::test]
async fn every_request_is_recorded_in_order() {
    let server = MockServer::start().await;
    server.push_all([Step::text("one"), Step::text("two")]);
    let valid = messages_body(json!([{"role": "user", "content": "first"}]));
    let invalid = messages_body(json!([{"role": "assistant", "content": "x"}]));

    anthropic(&server, valid.clone()).await;
    anthropic(&server, invalid.clone()).await;
    let chat = openai(
        &server,
        chat_body(json!([{"role": "user", "content": "third"}])),
    )
    .await;

    assert_eq!(
        chat.body["choices"][0]["message"]["content"], "two",
        "FIFO across both APIs"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].body, valid);
    assert_eq!(requests[0].status, 200);
    assert_eq!(requests[0].error, None);
    assert_eq!(requests[0].header("x-api-key"), Some("test-key"));
    assert_eq!(requests[0].header("Anthropic-Version"), Some("2023-06-01"));
    assert!(
        requests[0]
            .headers
            .iter()
            .all(|(k, _)| k == &k.to_lowercase())
    );
    assert_eq!(requests[1].body, invalid);
    assert_eq!(requests[1].status, 400);
    assert!(
        requests[1]
            .error
            .as_deref()
            .unwrap()
            .contains("first message")
    );
    assert_eq!(requests[2].path, "/v1/chat/completions");
    assert_eq!(requests[2].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(server.rejections(), vec![requests[1].clone()]);
}

#[tokio::test]
async fn rejected_requests_keep_the_script_aligned() {
    let server = MockServer::start().await;
    server.push_all([
        Step::tool_use("toolu_1", "Read", json!({})),
        Step::text("done"),
    ]);
    let first = anthropic(
        &server,
        messages_body(json!([{"role": "user", "content": "go"}])),
    )
    .await;
    assert_eq!(first.body["stop_reason"], "tool_use");

    // A client that forgets the tool result is refused, and the next step waits.
    let forgot = messages_body(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": first.body["content"]},
        {"role": "user", "content": "and?"}
    ]));
    assert_eq!(anthropic(&server, forgot).await.status, 400);
    assert_eq!(server.remaining(), 1);

    let fixed = messages_body(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": first.body["content"]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}
    ]));
    let answer = anthropic(&server, fixed).await;
    assert_eq!(answer.body["content"][0]["text"], "done");
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn expectations_refuse_without_consuming() {
    let server = MockServer::start().await;
    server.push(Step::text("thanks").expect(Expect {
        api: Some(Api::Anthropic),
        tool_results_for: vec!["toolu_7".into()],
        last_user_contains: Some("42".into()),
        ..Expect::default()
    }));

    let wrong = anthropic(
        &server,
        messages_body(json!([{"role": "user", "content": "hi"}])),
    )
    .await;
    assert_eq!(wrong.status, 400);
    assert!(
        wrong
            .error_message()
            .starts_with("mock expectation failed for request 1:"),
        "{}",
        wrong.error_message()
    );
    assert_eq!(server.remaining(), 1);

    let right = anthropic(
        &server,
        messages_body(json!([
            {"role": "user", "content": "compute"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_7", "name": "Calc", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_7", "content": "42"}]}
        ])),
    )
    .await;
    assert_eq!(right.status, 200, "{}", right.body);
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn clones_share_one_server() {
    let server = MockServer::start().await;
    let handle = server.clone();
    handle.push(Step::text("from the clone"));

    let answer = anthropic(
        &server,
        messages_body(json!([{"role": "user", "content": "hi"}])),
    )
    .await;

    assert_eq!(answer.body["content"][0]["text"], "from the clone");
    assert_eq!(handle.requests().len(), 1);
}

async fn refuses_connections(url: &str) -> bool {
    for _ in 0..50 {
        let sent = reqwest::Client::new()
            .post(format!("{url}/v1/messages"))
            .send()
            .await;
        if sent.is_err() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn dropping_the_last_handle_stops_the_server() {
    let server = MockServer::start().await;
    let url = server.url();
    let clone = server.clone();
    drop(server);
    assert!(
        reqwest::Client::new()
            .post(format!("{url}/v1/messages"))
            .send()
            .await
            .is_ok(),
        "still served while a clone lives"
    );

    drop(clone);

    assert!(refuses_connections(&url).await);
}

#[tokio::test]
async fn explicit_shutdown_stops_the_server() {
    let server = MockServer::start().await;
    let body = messages_body(json!([{"role": "user", "content": "hi"}]));
    assert!(anthropic_request(&server, &body).send().await.is_ok());

    server.shutdown();

    assert!(refuses_connections(&server.url()).await);
}

#[tokio::test]
async fn start_on_a_given_address() {
    let server = MockServer::start_on("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let taken = server.addr();

    let again = MockServer::start_on(taken).await;

    assert!(server.url().ends_with(&format!(":{}", taken.port())));
    assert!(again.is_err(), "the port is in use");
}
