//! The OpenAI Chat Completions API: JSON and SSE renderings of scripted steps.

use serde_json::{Value, json};
use tack_protocol::{ContentBlock, StopReason, Usage};
use tack_testkit::{MockServer, Step};

use crate::support::{chat_body, openai, openai_request, parse_sse, stream_text};

fn hello() -> Value {
    chat_body(
        json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]),
    )
}

#[tokio::test]
async fn non_streamed_text_reply() {
    let server = MockServer::start().await;
    server.push(Step::text("Hi there.").with_usage(Usage {
        input_tokens: 21,
        output_tokens: 4,
        ..Default::default()
    }));

    let answer = openai(&server, hello()).await;

    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("x-request-id"), Some("req_mock_1"));
    assert_eq!(answer.body["object"], "chat.completion");
    assert_eq!(answer.body["model"], "gpt-test");
    let choice = &answer.body["choices"][0];
    assert_eq!(choice["message"]["role"], "assistant");
    assert_eq!(choice["message"]["content"], "Hi there.");
    assert!(choice["message"].get("tool_calls").is_none());
    assert_eq!(choice["finish_reason"], "stop");
    assert_eq!(
        answer.body["usage"],
        json!({"prompt_tokens": 21, "completion_tokens": 4, "total_tokens": 25})
    );
}

#[tokio::test]
async fn non_streamed_tool_calls_carry_json_string_arguments() {
    let server = MockServer::start().await;
    server.push(Step::tool_uses(vec![
        ("call_1", "Read", json!({"path": "a"})),
        ("call_2", "Grep", json!({"pattern": "fn main"})),
    ]));

    let answer = openai(&server, hello()).await;

    let choice = &answer.body["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], Value::Null);
    let calls = choice["message"]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1]["id"], "call_2");
    assert_eq!(calls[1]["type"], "function");
    assert_eq!(calls[1]["function"]["name"], "Grep");
    let args = calls[1]["function"]["arguments"]
        .as_str()
        .expect("a string");
    assert_eq!(
        serde_json::from_str::<Value>(args).unwrap(),
        json!({"pattern": "fn main"})
    );
}

#[tokio::test]
async fn finish_reasons_map_from_stop_reasons() {
    let cases = [
        (StopReason::EndTurn, "stop"),
        (StopReason::StopSequence, "stop"),
        (StopReason::MaxTokens, "length"),
        (StopReason::Refusal, "content_filter"),
        (StopReason::ToolUse, "tool_calls"),
    ];
    let server = MockServer::start().await;
    server.push_all(
        cases
            .iter()
            .map(|(stop, _)| Step::reply(vec![ContentBlock::text("x")], stop.clone())),
    );
    for (stop, finish) in cases {
        let answer = openai(&server, hello()).await;
        assert_eq!(
            answer.body["choices"][0]["finish_reason"], finish,
            "{stop:?}"
        );
    }
}

#[tokio::test]
async fn raw_tool_arguments_are_sent_verbatim() {
    let server = MockServer::start().await;
    server.push(
        Step::tool_use("call_1", "Read", json!({"path": "a"}))
            .raw_tool_arguments("call_1", "{\"path\": "),
    );

    let answer = openai(&server, hello()).await;

    assert_eq!(
        answer.body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        "{\"path\": "
    );
}

#[tokio::test]
async fn streamed_reply_with_tool_calls_and_usage() {
    let server = MockServer::start().await;
    let input_a = json!({"path": "src/lib.rs", "offset": 10, "limit": 200});
    let input_b = json!({"pattern": "TODO", "glob": "**/*.rs"});
    server.push(
        Step::reply(
            vec![
                ContentBlock::text("Let me look at two things."),
                serde_json::from_value(
                    json!({"type": "tool_use", "id": "call_a", "name": "Read", "input": input_a}),
                )
                .unwrap(),
                serde_json::from_value(
                    json!({"type": "tool_use", "id": "call_b", "name": "Grep", "input": input_b}),
                )
                .unwrap(),
            ],
            StopReason::ToolUse,
        )
        .with_usage(Usage {
            input_tokens: 30,
            output_tokens: 12,
            ..Default::default()
        }),
    );
    let mut body = hello();
    body["stream"] = json!(true);
    body["stream_options"] = json!({"include_usage": true});

    let (status, text) = stream_text(openai_request(&server, &body)).await;

    assert_eq!(status, 200);
    let events = parse_sse(&text);
    assert!(events.iter().all(|e| e.name.is_none()), "data-only lines");
    let (done, chunks) = events.split_last().unwrap();
    assert_eq!(done.data, "[DONE]");
    let chunks: Vec<Value> = chunks.iter().map(|e| e.json()).collect();
    assert!(
        chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk")
    );

    // The last chunk carries only usage; the one before it the finish reason.
    let (usage_chunk, rest) = chunks.split_last().unwrap();
    assert_eq!(usage_chunk["choices"], json!([]));
    assert_eq!(usage_chunk["usage"]["prompt_tokens"], 30);
    assert_eq!(usage_chunk["usage"]["completion_tokens"], 12);
    let (final_chunk, rest) = rest.split_last().unwrap();
    assert_eq!(final_chunk["choices"][0]["delta"], json!({}));
    assert_eq!(final_chunk["choices"][0]["finish_reason"], "tool_calls");
    assert!(
        rest.iter()
            .all(|c| c["choices"][0]["finish_reason"].is_null())
    );

    let deltas: Vec<&Value> = rest.iter().map(|c| &c["choices"][0]["delta"]).collect();
    let text: String = deltas
        .iter()
        .filter_map(|d| d["content"].as_str())
        .collect();
    assert_eq!(text, "Let me look at two things.");
    assert!(
        deltas
            .iter()
            .filter(|d| d["content"].as_str().is_some_and(|s| !s.is_empty()))
            .count()
            >= 2
    );

    for (index, (id, name, input)) in [("call_a", "Read", &input_a), ("call_b", "Grep", &input_b)]
        .into_iter()
        .enumerate()
    {
        let fragments: Vec<&Value> = deltas
            .iter()
            .filter_map(|d| d["tool_calls"].as_array())
            .flatten()
            .filter(|f| f["index"] == index)
            .collect();
        let (first, later) = fragments.split_first().unwrap();
        assert_eq!(first["id"], id);
        assert_eq!(first["type"], "function");
        assert_eq!(first["function"]["name"], name);
        assert!(later.len() >= 3, "arguments in several pieces: {later:?}");
        for f in later {
            assert!(
                f.get("id").is_none() && f["function"].get("name").is_none(),
                "{f}"
            );
        }
        let args: String = fragments
            .iter()
            .map(|f| f["function"]["arguments"].as_str().unwrap())
            .collect();
        assert_eq!(&serde_json::from_str::<Value>(&args).unwrap(), input);
    }
}

#[tokio::test]
async fn streamed_reply_without_usage_option_has_no_usage_chunk() {
    let server = MockServer::start().await;
    server.push(Step::text("ok"));
    let mut body = hello();
    body["stream"] = json!(true);

    let (_, text) = stream_text(openai_request(&server, &body)).await;

    let events = parse_sse(&text);
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let last_chunk = events[events.len() - 2].json();
    assert_eq!(last_chunk["choices"][0]["finish_reason"], "stop");
    assert!(!text.contains("usage"), "{text}");
}
