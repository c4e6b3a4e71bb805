//! The Anthropic Messages API: JSON and SSE renderings of scripted steps.

use serde_json::{Value, json};
use tack_protocol::{
    ContentBlock, MessageResponse, StopReason, ThinkingBlock, ToolUseBlock, Usage,
};
use tack_testkit::{DEFAULT_USAGE, MockServer, Step};

use crate::support::{anthropic, anthropic_request, messages_body, parse_sse, stream_text};

fn hello() -> Value {
    messages_body(json!([{"role": "user", "content": "hello"}]))
}

#[tokio::test]
async fn non_streamed_reply_is_a_message() {
    let server = MockServer::start().await;
    server.push(Step::tool_use(
        "toolu_1",
        "Read",
        json!({"path": "src/lib.rs"}),
    ));

    let answer = anthropic(&server, hello()).await;

    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("request-id"), Some("req_mock_1"));
    assert_eq!(answer.body["id"], "msg_mock_1");
    assert_eq!(answer.body["type"], "message");
    assert_eq!(answer.body["role"], "assistant");
    assert_eq!(
        answer.body["model"], "claude-test",
        "model echoes the request"
    );
    assert_eq!(answer.body["stop_sequence"], Value::Null);
    let response: MessageResponse = serde_json::from_value(answer.body.clone()).unwrap();
    assert_eq!(response.stop_reason, Some(StopReason::ToolUse));
    // Without scripted usage the input is estimated from the request (bytes / 4).
    let estimated = server.requests()[0].cache.unwrap().input_tokens;
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: estimated,
            ..DEFAULT_USAGE
        }
    );
    assert!(response.usage.input_tokens > 0 && response.usage.output_tokens > 0);
    assert_eq!(
        answer.body["usage"]["cache_creation"]["ephemeral_5m_input_tokens"],
        0
    );
    let [ContentBlock::ToolUse(tool)] = response.content.as_slice() else {
        panic!("one tool_use expected: {:?}", response.content);
    };
    assert_eq!((tool.id.as_str(), tool.name.as_str()), ("toolu_1", "Read"));
    assert_eq!(tool.input, json!({"path": "src/lib.rs"}));
    assert_eq!(server.remaining(), 0);
}

#[tokio::test]
async fn unknown_blocks_and_usage_pass_through() {
    let server = MockServer::start().await;
    let unknown = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}});
    let usage = Usage {
        input_tokens: 7,
        output_tokens: 3,
        cache_creation_input_tokens: 11,
        cache_read_input_tokens: 13,
    };
    server.push(
        Step::reply(
            vec![
                ContentBlock::Unknown(unknown.clone()),
                ContentBlock::text("found"),
            ],
            StopReason::Other("brand_new".into()),
        )
        .with_usage(usage),
    );

    let answer = anthropic(&server, hello()).await;

    assert_eq!(answer.body["content"][0], unknown);
    assert_eq!(answer.body["stop_reason"], "brand_new");
    assert_eq!(
        answer.body["usage"],
        json!({"input_tokens": 7, "cache_creation_input_tokens": 11, "cache_read_input_tokens": 13, "output_tokens": 3})
    );
}

#[tokio::test]
async fn streamed_reply_follows_the_real_event_sequence() {
    let server = MockServer::start().await;
    let input = json!({"path": "src/main.rs", "limit": 20, "note": "ünïcödé"});
    server.push(
        Step::reply(
            vec![
                ContentBlock::Thinking(ThinkingBlock {
                    thinking: "Let me think about which file to read.".into(),
                    signature: "sig==".into(),
                    extra: Default::default(),
                }),
                ContentBlock::text("I'll read the main file for you now."),
                ContentBlock::ToolUse(ToolUseBlock {
                    id: "toolu_9".into(),
                    name: "Read".into(),
                    input: input.clone(),
                    extra: Default::default(),
                }),
            ],
            StopReason::ToolUse,
        )
        .with_usage(Usage {
            input_tokens: 40,
            output_tokens: 65,
            ..Default::default()
        }),
    );
    let mut body = hello();
    body["stream"] = json!(true);

    let response = anthropic_request(&server, &body).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let events = parse_sse(&response.text().await.unwrap());

    // Every event's data.type is its name.
    for e in &events {
        assert_eq!(e.json()["type"].as_str(), e.name.as_deref(), "{e:?}");
    }
    let names: Vec<&str> = events.iter().filter_map(|e| e.name.as_deref()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(names.last(), Some(&"message_stop"));
    assert_eq!(names[names.len() - 2], "message_delta");
    assert!(names.contains(&"ping"), "a ping event: {names:?}");
    assert!(
        names.contains(&"future_event"),
        "an unknown event: {names:?}"
    );

    // Blocks: start, deltas, stop, in index order, never interleaved.
    let blocks: Vec<(u64, &str)> = events
        .iter()
        .filter(|e| {
            e.name
                .as_deref()
                .is_some_and(|n| n.starts_with("content_block"))
        })
        .map(|e| {
            (
                e.json()["index"].as_u64().unwrap(),
                e.name.as_deref().unwrap(),
            )
        })
        .collect();
    let mut expected_index = 0;
    let mut open = false;
    for (index, name) in &blocks {
        assert_eq!(*index, expected_index, "{blocks:?}");
        match *name {
            "content_block_start" => {
                assert!(!open);
                open = true;
            }
            "content_block_delta" => assert!(open),
            "content_block_stop" => {
                assert!(open);
                open = false;
                expected_index += 1;
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(expected_index, 3);

    let deltas = |index: u64| -> Vec<Value> {
        events
            .iter()
            .filter(|e| e.name.as_deref() == Some("content_block_delta"))
            .map(|e| e.json())
            .filter(|d| d["index"] == index)
            .map(|d| d["delta"].clone())
            .collect()
    };
    // Thinking: thinking_delta pieces then one signature_delta.
    let thinking = deltas(0);
    let (sig, pieces) = thinking.split_last().unwrap();
    assert_eq!(
        sig,
        &json!({"type": "signature_delta", "signature": "sig=="})
    );
    assert!(pieces.len() >= 2);
    let joined: String = pieces
        .iter()
        .map(|d| d["thinking"].as_str().unwrap())
        .collect();
    assert_eq!(joined, "Let me think about which file to read.");
    // Text: 2+ text_delta chunks.
    let text = deltas(1);
    assert!(text.len() >= 2 && text.iter().all(|d| d["type"] == "text_delta"));
    let joined: String = text.iter().map(|d| d["text"].as_str().unwrap()).collect();
    assert_eq!(joined, "I'll read the main file for you now.");
    // Tool input: first fragment "", then several pieces that concatenate to the input.
    let json_deltas = deltas(2);
    assert_eq!(
        json_deltas[0],
        json!({"type": "input_json_delta", "partial_json": ""})
    );
    assert!(json_deltas.len() >= 4, "several fragments: {json_deltas:?}");
    let joined: String = json_deltas
        .iter()
        .map(|d| d["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(serde_json::from_str::<Value>(&joined).unwrap(), input);
    let start = events
        .iter()
        .find(|e| e.name.as_deref() == Some("content_block_start") && e.json()["index"] == 2)
        .unwrap()
        .json();
    assert_eq!(
        start["content_block"],
        json!({"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {}})
    );

    let message_start = events[0].json();
    assert_eq!(message_start["message"]["content"], json!([]));
    assert_eq!(message_start["message"]["stop_reason"], Value::Null);
    assert_eq!(message_start["message"]["usage"]["input_tokens"], 40);
    let delta = events[events.len() - 2].json();
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");
    assert_eq!(delta["usage"]["output_tokens"], 65);
}

#[tokio::test]
async fn streamed_unknown_and_redacted_blocks_arrive_whole() {
    let server = MockServer::start().await;
    let unknown =
        json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []});
    server.push(Step::reply(
        vec![
            ContentBlock::Unknown(unknown.clone()),
            serde_json::from_value(json!({"type": "redacted_thinking", "data": "opaque"})).unwrap(),
        ],
        StopReason::EndTurn,
    ));
    let mut body = hello();
    body["stream"] = json!(true);

    let (status, text) = stream_text(anthropic_request(&server, &body)).await;

    assert_eq!(status, 200);
    let starts: Vec<Value> = parse_sse(&text)
        .iter()
        .filter(|e| e.name.as_deref() == Some("content_block_start"))
        .map(|e| e.json()["content_block"].clone())
        .collect();
    assert_eq!(
        starts,
        vec![
            unknown,
            json!({"type": "redacted_thinking", "data": "opaque"})
        ]
    );
}

#[tokio::test]
async fn raw_tool_arguments_reach_the_anthropic_stream() {
    let server = MockServer::start().await;
    server.push(
        Step::tool_use("toolu_1", "Read", json!({"path": "a"}))
            .raw_tool_arguments("toolu_1", "{\"path\": \"a"),
    );
    let mut body = hello();
    body["stream"] = json!(true);

    let (_, text) = stream_text(anthropic_request(&server, &body)).await;

    let joined: String = parse_sse(&text)
        .iter()
        .filter(|e| e.name.as_deref() == Some("content_block_delta"))
        .map(|e| {
            e.json()["delta"]["partial_json"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(joined, "{\"path\": \"a");
}
