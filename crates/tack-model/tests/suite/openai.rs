//! The OpenAI-compatible client against the mock Chat Completions API.

use serde_json::json;
use tack_model::{ModelClient, ModelError, OpenAiClient};
use tack_protocol::{
    ContentBlock, Message, StopReason, SystemPrompt, ToolResultBlock, ToolUseBlock,
};
use tack_testkit::{MockServer, Step};

use super::support::{Events, ask, openai, openai_config};

fn tool_use(block: &ContentBlock) -> &ToolUseBlock {
    match block {
        ContentBlock::ToolUse(t) => t,
        other => panic!("expected tool_use, got {other:?}"),
    }
}

#[tokio::test]
async fn streams_text_and_parallel_tool_calls() {
    let server = MockServer::start().await;
    server.push(Step::reply(
        vec![
            ContentBlock::text("Reading both files now."),
            serde_json::from_value(
                json!({"type":"tool_use","id":"call_a","name":"Read","input":{"path":"a.txt"}}),
            )
            .unwrap(),
            serde_json::from_value(
                json!({"type":"tool_use","id":"call_b","name":"Read","input":{"path":"b.txt"}}),
            )
            .unwrap(),
        ],
        StopReason::ToolUse,
    ));
    let events = Events::default();
    let mut req = ask("read a and b");
    req.system = Some(SystemPrompt::Text("You are terse.".into()));

    let turn = openai(&server, true)
        .complete(&req, &events.sink())
        .await
        .unwrap();

    let r = &turn.response;
    assert_eq!(r.stop_reason, Some(StopReason::ToolUse));
    assert_eq!(r.content[0], ContentBlock::text("Reading both files now."));
    assert_eq!(tool_use(&r.content[1]).id, "call_a");
    assert_eq!(tool_use(&r.content[1]).input, json!({"path":"a.txt"}));
    assert_eq!(tool_use(&r.content[2]).id, "call_b");
    assert_eq!(tool_use(&r.content[2]).input, json!({"path":"b.txt"}));
    assert_eq!(r.usage.input_tokens, 10);
    assert_eq!(r.usage.output_tokens, 5);
    assert!(events.all().len() >= 2);
    assert_eq!(events.text(), "Reading both files now.");
    assert!(turn.malformed_inputs.is_empty());

    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(sent.body["stream"], true);
    assert_eq!(sent.body["stream_options"], json!({"include_usage": true}));
    // Not api.openai.com: the field local servers understand.
    assert_eq!(sent.body["max_tokens"], 512);
    assert_eq!(sent.body.get("max_completion_tokens"), None);
    assert_eq!(
        sent.body["messages"][0],
        json!({"role":"system","content":"You are terse."})
    );
    assert_eq!(sent.body["tools"][0]["function"]["name"], "Read");
}

#[tokio::test]
async fn non_streaming_response() {
    let server = MockServer::start().await;
    server.push(Step::text("Plain answer."));
    let events = Events::default();

    let turn = openai(&server, false)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert_eq!(
        turn.response.content,
        vec![ContentBlock::text("Plain answer.")]
    );
    assert_eq!(turn.response.stop_reason, Some(StopReason::EndTurn));
    assert!(turn.response.id.starts_with("chatcmpl-"));
    assert!(events.all().is_empty());
    assert_eq!(server.requests()[0].body.get("stream"), None);
}

#[tokio::test]
async fn invalid_arguments_surface_as_malformed_tool_input() {
    for stream in [false, true] {
        let server = MockServer::start().await;
        server.push(
            Step::tool_use("call_1", "Read", json!({"path":"x"}))
                .raw_tool_arguments("call_1", "{\"path\": x}"),
        );

        let turn = openai(&server, stream)
            .complete(&ask("read"), &|_| {})
            .await
            .unwrap();

        let call = tool_use(&turn.response.content[0]);
        assert_eq!(call.input, json!({}), "stream={stream}");
        assert_eq!(turn.malformed_inputs.len(), 1, "stream={stream}");
        let bad = &turn.malformed_inputs[0];
        assert_eq!(bad.tool_use_id, "call_1");
        assert_eq!(bad.raw, "{\"path\": x}");
        assert!(bad.error.contains("expected value"), "{}", bad.error);
    }
}

#[tokio::test]
async fn tool_results_are_sent_as_tool_messages_the_strict_mock_accepts() {
    let server = MockServer::start().await;
    server.push_all([
        Step::tool_uses([
            ("call_a", "Read", json!({"path":"a"})),
            ("call_b", "Read", json!({"path":"b"})),
        ]),
        Step::text("Done."),
    ]);
    let client = openai(&server, true);
    let mut req = ask("read a and b");
    let first = client.complete(&req, &|_| {}).await.unwrap();
    req.messages.push(first.response.to_message());
    req.messages.push(Message::user(vec![
        ContentBlock::ToolResult(ToolResultBlock::new(
            "call_a",
            vec![ContentBlock::text("A")],
            false,
        )),
        ContentBlock::ToolResult(ToolResultBlock::error("call_b", "missing")),
        ContentBlock::text("Summarize."),
    ]));

    let second = client.complete(&req, &|_| {}).await.unwrap();

    assert_eq!(second.response.content, vec![ContentBlock::text("Done.")]);
    assert!(server.rejections().is_empty(), "{:?}", server.rejections());
    let messages = &server.requests()[1].body["messages"];
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["tool_calls"][1]["function"]["arguments"],
        "{\"path\":\"b\"}"
    );
    assert_eq!(
        messages[2],
        json!({"role":"tool","tool_call_id":"call_a","content":"A"})
    );
    assert_eq!(
        messages[3],
        json!({"role":"tool","tool_call_id":"call_b","content":"Error: missing"})
    );
    assert_eq!(messages[4], json!({"role":"user","content":"Summarize."}));
}

#[tokio::test]
async fn a_cut_stream_is_retried() {
    let server = MockServer::start().await;
    let full = "An answer long enough to arrive in several chunks.";
    server.push_all([Step::text(full).cut_after(2), Step::text(full)]);
    let events = Events::default();

    let turn = openai(&server, true)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert_eq!(events.retries().len(), 1);
    assert_eq!(events.text_after_last_retry(), full);
    assert_eq!(turn.response.content, vec![ContentBlock::text(full)]);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn an_error_chunk_mid_stream_is_retried_when_the_server_failed() {
    let server = MockServer::start().await;
    server.push_all([
        Step::text("partial").stream_error_after(2, "api_error"),
        Step::text("complete"),
    ]);
    let events = Events::default();

    let turn = openai(&server, true)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert_eq!(turn.response.content, vec![ContentBlock::text("complete")]);
    assert_eq!(events.retries().len(), 1);
}

#[tokio::test]
async fn unauthorized_names_the_openai_key() {
    let server = MockServer::start().await;
    let mut config = openai_config(&server, true);
    config.api_key = None;

    let err = OpenAiClient::new(config)
        .unwrap()
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap_err();

    assert!(
        matches!(err, ModelError::Api { status: 401, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("You didn't provide an API key"), "{text}");
    assert!(
        text.contains("OPENAI_API_KEY") && text.contains("--base-url"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_local_server_without_a_key_works() {
    let server = MockServer::start().await;
    server.set_require_auth(false);
    server.push(Step::text("local"));
    let mut config = openai_config(&server, false);
    config.api_key = None;
    config.base_url = format!("{}/v1/", server.url());
    config.provider_name = "ollama".into();
    let client = OpenAiClient::new(config).unwrap();

    let turn = client.complete(&ask("hi"), &|_| {}).await.unwrap();

    assert_eq!(client.provider(), "ollama");
    assert_eq!(turn.response.content, vec![ContentBlock::text("local")]);
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn rate_limit_with_retry_after_ms() {
    let server = MockServer::start().await;
    server.push_all([
        Step::error(429).header("retry-after-ms", "150"),
        Step::text("ok"),
    ]);
    let events = Events::default();
    let started = std::time::Instant::now();

    openai(&server, true)
        .complete(&ask("hi"), &events.sink())
        .await
        .unwrap();

    assert!(started.elapsed() >= std::time::Duration::from_millis(150));
    assert_eq!(events.retries()[0].1, std::time::Duration::from_millis(150));
}

#[tokio::test]
async fn input_examples_go_at_the_end_of_the_description_not_in_a_field() {
    let server = MockServer::start().await;
    server.push(Step::text("fine"));
    let mut req = ask("read it");
    req.tools[0].extra.insert(
        "input_examples".into(),
        json!([{"path": "/src/main.rs"}, {"path": "notes.md"}]),
    );

    // The mock refuses a function tool with a field OpenAI does not know.
    openai(&server, false)
        .complete(&req, &|_| {})
        .await
        .unwrap();

    let body = &server.requests()[0].body;
    assert!(!body.to_string().contains("input_examples"), "{body}");
    assert_eq!(
        body["tools"][0]["function"]["description"],
        "Read a file\n\nExamples:\n{\"path\":\"/src/main.rs\"}\n{\"path\":\"notes.md\"}"
    );
}
