//! Steps as JSON: the script format of `tack mock-server --script`.

use std::time::Duration;

use serde_json::json;
use tack_protocol::{ContentBlock, StopReason, Usage};
use tack_testkit::{Api, Expect, MockServer, Step};

use crate::support::{anthropic, messages_body};

#[test]
fn steps_round_trip_through_json() {
    let steps = vec![
        Step::text("hi"),
        Step::tool_uses(vec![
            ("t1", "Read", json!({"p": 1})),
            ("t2", "Grep", json!({})),
        ])
        .with_usage(Usage {
            input_tokens: 1,
            output_tokens: 2,
            cache_creation_input_tokens: 3,
            cache_read_input_tokens: 4,
        })
        .raw_tool_arguments("t1", "{bad")
        .with_delay(Duration::from_millis(250)),
        Step::reply(
            vec![ContentBlock::Unknown(
                json!({"type": "future_block", "x": 1}),
            )],
            StopReason::Other("new_reason".into()),
        )
        .cut_after(3)
        .stream_error_after(2, "overloaded_error"),
        Step::error(429)
            .header("retry-after", "1")
            .with_message("slow down")
            .expect(Expect {
                api: Some(Api::OpenAi),
                stream: Some(true),
                last_user_contains: Some("x".into()),
                tool_results_for: vec!["t1".into()],
            }),
    ];

    let text = serde_json::to_string_pretty(&steps).unwrap();
    let back = Step::parse_script(&text).unwrap();

    assert_eq!(back, steps);
    let wire: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        wire[0],
        json!({"reply": {"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn"}})
    );
    assert_eq!(wire[1]["delay_ms"], 250);
    assert_eq!(
        wire[3]["error"],
        json!({"status": 429, "message": "slow down"})
    );
    assert_eq!(wire[3]["headers"], json!([["retry-after", "1"]]));
    assert_eq!(wire[3]["expect"]["api"], "openai");
}

#[test]
fn bad_scripts_are_errors() {
    assert!(Step::parse_script("{}").is_err(), "not an array");
    assert!(
        Step::parse_script(r#"[{"delay_ms": 5}]"#).is_err(),
        "neither reply nor error"
    );
    let err = Step::parse_script("[").unwrap_err();
    assert!(err.to_string().starts_with("invalid mock script"), "{err}");
}

#[tokio::test]
async fn a_handwritten_script_is_served() {
    let script = r#"[
        {"error": {"status": 529}, "headers": [["retry-after", "0"]]},
        {"reply": {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a"}}],
                   "stop_reason": "tool_use"},
         "usage": {"input_tokens": 3, "output_tokens": 4}}
    ]"#;
    let server = MockServer::start().await;
    server.push_all(Step::parse_script(script).unwrap());
    let body = messages_body(json!([{"role": "user", "content": "hi"}]));

    let first = anthropic(&server, body.clone()).await;
    let second = anthropic(&server, body).await;

    assert_eq!(first.status, 529);
    assert_eq!(first.error_type(), "overloaded_error");
    assert_eq!(first.header("retry-after"), Some("0"));
    assert_eq!(second.body["content"][0]["input"], json!({"path": "a"}));
    assert_eq!(second.body["usage"]["output_tokens"], 4);
}
