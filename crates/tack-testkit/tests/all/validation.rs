//! Strictness: malformed requests are refused with the real status and text,
//! and a refused request consumes no step.

use serde_json::{Value, json};
use tack_testkit::{MockServer, Step};

use crate::support::{
    Answer, answered_tool_conversation, anthropic, chat_body, messages_body, openai,
};

/// Send `body` to the Anthropic API with one step queued; expect a 400 with
/// exactly `message`, and the step still queued.
async fn anthropic_rejects(body: Value, message: &str) {
    let server = MockServer::start().await;
    server.push(Step::text("unused"));
    let answer = anthropic(&server, body).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert_eq!(answer.body["type"], "error");
    assert_eq!(answer.error_type(), "invalid_request_error");
    assert_eq!(answer.error_message(), message);
    assert_eq!(server.remaining(), 1, "a rejected request consumes no step");
    let rejections = server.rejections();
    assert_eq!(rejections.len(), 1);
    assert_eq!(rejections[0].status, 400);
    assert_eq!(rejections[0].error.as_deref(), Some(message));
}

async fn anthropic_accepts(body: Value) -> Answer {
    let server = MockServer::start().await;
    server.push(Step::text("fine"));
    let answer = anthropic(&server, body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(server.remaining(), 0);
    answer
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn assistant_tool_uses(ids: &[&str]) -> Value {
    let blocks: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "tool_use", "id": id, "name": "Read", "input": {}}))
        .collect();
    json!({"role": "assistant", "content": blocks})
}

fn result(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": "ok"})
}

fn missing(index: usize, ids: &str) -> String {
    format!(
        "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )
}

fn unexpected(path: &str, id: &str) -> String {
    format!(
        "{path}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )
}

fn with_tools(tools: Value) -> Value {
    let mut body = messages_body(json!([user("hi")]));
    body["tools"] = tools;
    body
}

fn tool(name: &str) -> Value {
    json!({"name": name, "description": "d", "input_schema": {"type": "object", "properties": {}}})
}

#[tokio::test]
async fn anthropic_top_level_fields() {
    let mut no_model = messages_body(json!([user("hi")]));
    no_model.as_object_mut().unwrap().remove("model");
    anthropic_rejects(no_model, "model: Field required").await;

    let mut empty_model = messages_body(json!([user("hi")]));
    empty_model["model"] = json!("");
    anthropic_rejects(
        empty_model,
        "model: String should have at least 1 character",
    )
    .await;

    let mut no_max = messages_body(json!([user("hi")]));
    no_max.as_object_mut().unwrap().remove("max_tokens");
    anthropic_rejects(no_max, "max_tokens: Field required").await;

    let mut zero_max = messages_body(json!([user("hi")]));
    zero_max["max_tokens"] = json!(0);
    anthropic_rejects(
        zero_max,
        "max_tokens: Input should be greater than or equal to 1",
    )
    .await;

    anthropic_rejects(
        json!({"model": "m", "max_tokens": 5}),
        "messages: Field required",
    )
    .await;
    anthropic_rejects(
        messages_body(json!([])),
        "messages: at least one message is required",
    )
    .await;
}

#[tokio::test]
async fn anthropic_roles() {
    anthropic_rejects(
        messages_body(json!([{"role": "assistant", "content": "hi"}, user("hi")])),
        "messages: first message must use the \"user\" role",
    )
    .await;
    anthropic_rejects(
        messages_body(json!([{"role": "system", "content": "be brief"}, user("hi")])),
        "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.",
    )
    .await;
    anthropic_rejects(
        messages_body(json!([user("hi"), {"role": "tool", "content": "x"}])),
        "messages.1.role: Input should be 'user' or 'assistant'",
    )
    .await;
}

#[tokio::test]
async fn anthropic_tools() {
    anthropic_rejects(
        with_tools(json!([tool("fs.read")])),
        "tools.0.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    )
    .await;
    anthropic_rejects(
        with_tools(json!([tool("Read"), tool(&"a".repeat(65))])),
        "tools.1.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    )
    .await;
    anthropic_rejects(
        with_tools(json!([tool("Read"), tool("Grep"), tool("Read")])),
        "tools: Tool names must be unique.",
    )
    .await;
    anthropic_rejects(
        with_tools(json!([{"name": "Read", "input_schema": {"properties": {}}}])),
        "tools.0.input_schema.type: Field required",
    )
    .await;
    anthropic_rejects(
        with_tools(json!([tool("Read"), {"name": "Grep", "input_schema": {"type": "string"}}])),
        "tools.1.input_schema.type: Input should be 'object'",
    )
    .await;
    anthropic_rejects(
        with_tools(json!([{"name": "Read"}])),
        "tools.0.input_schema: Field required",
    )
    .await;

    let mut choice = with_tools(json!([tool("Read")]));
    choice["tool_choice"] = json!({"type": "tool", "name": "Write"});
    anthropic_rejects(
        choice,
        "tool_choice.name: Tool 'Write' not found in the provided tools",
    )
    .await;

    // Valid: a 64-character name, a server tool without schema, a named choice.
    let mut ok = with_tools(json!([
        tool(&"a".repeat(64)),
        tool("mcp__fs__read_file"),
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    ]));
    ok["tool_choice"] = json!({"type": "tool", "name": "mcp__fs__read_file"});
    anthropic_accepts(ok).await;
}

/// A Grep-like tool whose `input_examples` are `examples`.
fn with_examples(examples: Value) -> Value {
    json!({"name": "Grep", "description": "d", "input_examples": examples, "input_schema": {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "output_mode": {"enum": ["content", "count"]}
        },
        "required": ["pattern"],
        "additionalProperties": false
    }})
}

#[tokio::test]
async fn anthropic_input_examples_must_match_the_input_schema() {
    let good = json!({"pattern": "fn\\s+main", "output_mode": "content"});
    anthropic_accepts(with_tools(json!([
        tool("Read"),
        with_examples(json!([good]))
    ])))
    .await;
    anthropic_rejects(
        with_tools(json!([
            tool("Read"),
            with_examples(json!([good, {"pattern": "x", "output_mode": "lines"}]))
        ])),
        r#"tools.1.input_examples.1: input example 1 of tool 'Grep' does not match the tool's input_schema: input.output_mode: "lines" is not one of "content" or "count""#,
    )
    .await;
    anthropic_rejects(
        with_tools(json!([with_examples(json!([{"output_mode": "count"}]))])),
        r#"tools.0.input_examples.0: input example 0 of tool 'Grep' does not match the tool's input_schema: input: "pattern" is a required property"#,
    )
    .await;
    anthropic_rejects(
        with_tools(json!([with_examples(json!([good, "pattern: x"]))])),
        "tools.0.input_examples.1: Input should be a valid dictionary",
    )
    .await;
    anthropic_rejects(
        with_tools(json!([with_examples(good)])),
        "tools.0.input_examples: Input should be a valid list",
    )
    .await;
    // Not on server tools.
    anthropic_rejects(
        with_tools(json!([
            tool("Read"),
            {"type": "web_search_20250305", "name": "web_search", "input_examples": [{"query": "x"}]}
        ])),
        "tools.1.web_search_20250305.input_examples: Extra inputs are not permitted",
    )
    .await;
}

/// Client-side tool search: deferred tools and `tool_reference` results are
/// checked as the API checks them.
#[tokio::test]
async fn anthropic_deferred_tools_and_tool_references() {
    let deferred = |name: &str| {
        json!({"name": name, "description": "d", "defer_loading": true,
               "input_schema": {"type": "object"}})
    };
    anthropic_rejects(
        with_tools(json!([deferred("a"), deferred("b")])),
        "At least one tool must have defer_loading=false. All tools cannot be deferred.",
    )
    .await;
    anthropic_rejects(
        with_tools(
            json!([tool("ToolSearch"), {"name": "a", "defer_loading": "yes",
            "input_schema": {"type": "object"}}]),
        ),
        "tools.1.defer_loading: Input should be a valid boolean",
    )
    .await;
    anthropic_accepts(with_tools(json!([tool("ToolSearch"), deferred("a")]))).await;

    let searched = |reference: &str| {
        json!({
            "model": "m", "max_tokens": 10,
            "tools": [tool("ToolSearch"), deferred("get_weather")],
            "messages": [
                user("weather?"),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
                    "name": "ToolSearch", "input": {"query": "weather"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                    "content": [{"type": "tool_reference", "tool_name": reference}]}]}
            ]
        })
    };
    anthropic_accepts(searched("get_weather")).await;
    anthropic_rejects(
        searched("get_forecast"),
        "Tool reference 'get_forecast' not found in available tools",
    )
    .await;
}

#[tokio::test]
async fn anthropic_tool_use_needs_results_in_the_next_message() {
    // Answered by plain text.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1"]),
            user("well?")
        ])),
        &missing(2, "toolu_1"),
    )
    .await;
    // One of a parallel batch unanswered.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1", "toolu_2", "toolu_3"]),
            {"role": "user", "content": [result("toolu_1"), result("toolu_3")]}
        ])),
        &missing(2, "toolu_2"),
    )
    .await;
    // Results of one batch split over two user messages.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1", "toolu_2"]),
            {"role": "user", "content": [result("toolu_1")]},
            {"role": "user", "content": [result("toolu_2")]}
        ])),
        &missing(2, "toolu_2"),
    )
    .await;
    // A trailing tool_use with no message after it.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1", "toolu_2"])
        ])),
        &missing(2, "toolu_1, toolu_2"),
    )
    .await;
    // Followed by another assistant message.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1"]),
            {"role": "assistant", "content": "hmm"}
        ])),
        &missing(2, "toolu_1"),
    )
    .await;
}

#[tokio::test]
async fn anthropic_tool_results_come_first() {
    // Text before the results: the real API reports the ids as unanswered.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1"]),
            {"role": "user", "content": [{"type": "text", "text": "here:"}, result("toolu_1")]}
        ])),
        &missing(2, "toolu_1"),
    )
    .await;
    // A result after other content, its id already answered at the start.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1"]),
            {"role": "user", "content": [result("toolu_1"), {"type": "text", "text": "and"}, result("toolu_1")]}
        ])),
        "messages.2: `tool_result` blocks must come first in the user message content, before any other content",
    )
    .await;
}

#[tokio::test]
async fn anthropic_tool_result_must_answer_the_previous_message() {
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1"]),
            {"role": "user", "content": [result("toolu_1"), result("toolu_X")]}
        ])),
        &unexpected("messages.2.content.1", "toolu_X"),
    )
    .await;
    anthropic_rejects(
        messages_body(json!([{"role": "user", "content": [result("toolu_1")]}])),
        &unexpected("messages.0.content.0", "toolu_1"),
    )
    .await;
    // Answering an older assistant message is not allowed either.
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1"]),
            {"role": "user", "content": [result("toolu_1")]},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": [result("toolu_1")]}
        ])),
        &unexpected("messages.4.content.0", "toolu_1"),
    )
    .await;
}

#[tokio::test]
async fn anthropic_tool_use_ids() {
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1", "toolu_1"]),
            {"role": "user", "content": [result("toolu_1")]}
        ])),
        "messages.1.content.1: `tool_use` ids must be unique",
    )
    .await;
    // An id used again in a later turn: the real API answered 200
    // (../shared/realmodel, a048-…-cross_provider_capability_replay…).
    let server = MockServer::start().await;
    server.push(Step::text("ok"));
    let answer = anthropic(
        &server,
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["toolu_1"]),
            {"role": "user", "content": [result("toolu_1")]},
            assistant_tool_uses(&["toolu_1"]),
            {"role": "user", "content": [result("toolu_1")]}
        ])),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            assistant_tool_uses(&["call.1"]),
            {"role": "user", "content": [result("call.1")]}
        ])),
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    )
    .await;
    anthropic_rejects(
        messages_body(json!([
            user("go"),
            {"role": "assistant", "content": [{"type": "tool_use", "name": "Read", "input": {}}]}
        ])),
        "messages.1.content.0.tool_use.id: Field required",
    )
    .await;
}

#[tokio::test]
async fn anthropic_content_rules() {
    anthropic_rejects(
        messages_body(json!([
            {"role": "user", "content": [{"type": "text", "text": ""}]},
            {"role": "assistant", "content": "ok"},
            user("again")
        ])),
        "messages: text content blocks must be non-empty",
    )
    .await;
    anthropic_rejects(
        messages_body(json!([{"role": "user", "content": [{"type": "text", "text": "  \n"}]}])),
        "messages: text content blocks must contain non-whitespace text",
    )
    .await;
    anthropic_rejects(
        messages_body(json!([user("hi"), {"role": "assistant", "content": []}, user("again")])),
        "messages.1: all messages must have non-empty content except for the optional final assistant message",
    )
    .await;
    anthropic_rejects(
        messages_body(json!([user("hi"), {"role": "assistant", "content": "Sure: "}])),
        "messages: final assistant content cannot end with trailing whitespace",
    )
    .await;
    // A final assistant message is a prefill: accepted.
    anthropic_accepts(messages_body(
        json!([user("hi"), {"role": "assistant", "content": "Sure:"}]),
    ))
    .await;
}

#[tokio::test]
async fn anthropic_accepts_a_correct_tool_conversation() {
    let mut body = messages_body(answered_tool_conversation());
    body["system"] = json!("be brief");
    body["tools"] = json!([tool("Read")]);
    let answer = anthropic_accepts(body).await;
    assert_eq!(answer.body["content"][0]["text"], "fine");
}

#[tokio::test]
async fn anthropic_auth_and_routes() {
    let server = MockServer::start().await;
    server.push(Step::text("unused"));
    let client = reqwest::Client::new();
    let url = format!("{}/v1/messages", server.url());
    let body = messages_body(json!([user("hi")]));

    let no_key = crate::support::answer(
        client
            .post(&url)
            .header("anthropic-version", "2023-06-01")
            .json(&body),
    )
    .await;
    assert_eq!(no_key.status, 401);
    assert_eq!(no_key.error_type(), "authentication_error");
    assert_eq!(no_key.error_message(), "x-api-key header is required");

    let no_version =
        crate::support::answer(client.post(&url).header("x-api-key", "k").json(&body)).await;
    assert_eq!(no_version.status, 400);
    assert_eq!(
        no_version.error_message(),
        "anthropic-version: header is required"
    );

    let bearer = crate::support::answer(
        client
            .post(&url)
            .bearer_auth("oauth-token")
            .header("anthropic-version", "2023-06-01")
            .json(&body),
    )
    .await;
    assert_eq!(bearer.status, 200, "Authorization: Bearer is accepted");

    let wrong_path = crate::support::answer(
        client
            .post(format!("{}/v1/message", server.url()))
            .header("x-api-key", "k")
            .json(&body),
    )
    .await;
    assert_eq!(wrong_path.status, 404);
    assert_eq!(wrong_path.body["type"], "error");
    assert_eq!(wrong_path.error_type(), "not_found_error");

    let wrong_method = crate::support::answer(client.get(&url)).await;
    assert_eq!(wrong_method.status, 404);

    let not_json = crate::support::answer(
        client
            .post(&url)
            .header("x-api-key", "k")
            .header("anthropic-version", "2023-06-01")
            .body("{not json"),
    )
    .await;
    assert_eq!(not_json.status, 400);
    assert_eq!(not_json.error_type(), "invalid_request_error");

    assert_eq!(server.requests().len(), 6);
    assert_eq!(server.rejections().len(), 5);
    assert_eq!(
        server.remaining(),
        0,
        "only the valid request consumed the step"
    );
}

#[tokio::test]
async fn auth_can_be_switched_off() {
    let server = MockServer::start().await;
    server.set_require_auth(false);
    server.push_all([Step::text("a"), Step::text("b")]);
    let client = reqwest::Client::new();

    let a = crate::support::answer(
        client
            .post(format!("{}/v1/messages", server.url()))
            .json(&messages_body(json!([user("hi")]))),
    )
    .await;
    let b = crate::support::answer(
        client
            .post(format!("{}/v1/chat/completions", server.url()))
            .json(&chat_body(json!([user("hi")]))),
    )
    .await;

    assert_eq!((a.status, b.status), (200, 200));
    assert_eq!(b.body["choices"][0]["message"]["content"], "b");
}

// ------------------------------------------------------------------ OpenAI

async fn openai_rejects(body: Value, message: &str, param: Value) {
    let server = MockServer::start().await;
    server.push(Step::text("unused"));
    let answer = openai(&server, body).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    assert_eq!(answer.error_type(), "invalid_request_error");
    assert_eq!(answer.error_message(), message);
    assert_eq!(answer.body["error"]["param"], param);
    assert!(
        answer.body["error"].get("code").is_some(),
        "code is present (maybe null)"
    );
    assert_eq!(server.remaining(), 1, "a rejected request consumes no step");
    assert_eq!(server.rejections().len(), 1);
}

fn assistant_calls(ids: &[&str]) -> Value {
    let calls: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "type": "function", "function": {"name": "Read", "arguments": "{}"}}))
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

fn tool_message(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "ok"})
}

fn chat_tools(names: &[&str]) -> Value {
    let mut body = chat_body(json!([user("hi")]));
    body["tools"] = names
        .iter()
        .map(|n| json!({"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}))
        .collect();
    body
}

#[tokio::test]
async fn openai_top_level_fields_and_tools() {
    openai_rejects(
        json!({"messages": [user("hi")]}),
        "you must provide a model parameter",
        Value::Null,
    )
    .await;
    openai_rejects(
        chat_body(json!([])),
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        json!("messages"),
    )
    .await;
    openai_rejects(
        chat_body(json!([{"role": "robot", "content": "hi"}])),
        "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
        json!("messages[0].role"),
    )
    .await;
    openai_rejects(
        chat_tools(&["Read", "fs/read"]),
        "Invalid 'tools[1].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.",
        json!("tools[1].function.name"),
    )
    .await;
    openai_rejects(
        chat_tools(&["Read", "Read"]),
        "Invalid 'tools': tool names must be unique, 'Read' appears more than once.",
        json!("tools"),
    )
    .await;
}

#[tokio::test]
async fn openai_refuses_input_examples_in_a_function_tool() {
    let mut body = chat_tools(&["Read", "Grep"]);
    body["tools"][1]["function"]["input_examples"] = json!([{"pattern": "x"}]);
    openai_rejects(
        body,
        "Unknown parameter: 'tools[1].function.input_examples'.",
        json!("tools[1].function.input_examples"),
    )
    .await;
    let mut body = chat_tools(&["Read"]);
    body["tools"][0]["input_examples"] = json!([{"pattern": "x"}]);
    openai_rejects(
        body,
        "Unknown parameter: 'tools[0].input_examples'.",
        json!("tools[0].input_examples"),
    )
    .await;
    // Nor does it know Anthropic's deferred loading: an OpenAI-compatible
    // request must carry found tools in `tools`, not mark the rest deferred.
    let mut body = chat_tools(&["Read", "Grep"]);
    body["tools"][1]["defer_loading"] = json!(true);
    openai_rejects(
        body,
        "Unknown parameter: 'tools[1].defer_loading'.",
        json!("tools[1].defer_loading"),
    )
    .await;
    // The fields OpenAI knows are taken.
    let mut body = chat_tools(&["Read"]);
    body["tools"][0]["function"]["description"] = json!("Reads.\n\nExamples:\n{\"path\":\"/a\"}");
    body["tools"][0]["function"]["strict"] = json!(false);
    let server = MockServer::start().await;
    server.push(Step::text("fine"));
    let answer = openai(&server, body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
}

#[tokio::test]
async fn openai_tool_calls_need_tool_messages() {
    openai_rejects(
        chat_body(json!([user("go"), assistant_calls(&["call_1", "call_2"]), tool_message("call_1"), user("next")])),
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
        json!("messages.[1].role"),
    )
    .await;
    openai_rejects(
        chat_body(json!([user("go"), tool_message("call_1")])),
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        json!("messages.[1].role"),
    )
    .await;
    openai_rejects(
        chat_body(json!([user("go"), assistant_calls(&["call_1"]), tool_message("call_1"), tool_message("call_9")])),
        "Invalid parameter: 'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message.",
        json!("messages.[3].tool_call_id"),
    )
    .await;

    // Valid: every call answered, then the conversation goes on.
    let server = MockServer::start().await;
    server.push(Step::text("fine"));
    let ok = openai(
        &server,
        chat_body(json!([
            {"role": "developer", "content": "be brief"},
            user("go"),
            assistant_calls(&["call_1", "call_2"]),
            tool_message("call_2"),
            tool_message("call_1"),
            {"role": "assistant", "content": "done"},
            user("thanks")
        ])),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
}

#[tokio::test]
async fn openai_auth_and_routes() {
    let server = MockServer::start().await;
    let client = reqwest::Client::new();
    let body = chat_body(json!([user("hi")]));

    let no_key = crate::support::answer(
        client
            .post(format!("{}/v1/chat/completions", server.url()))
            .json(&body),
    )
    .await;
    assert_eq!(no_key.status, 401);
    assert!(
        no_key
            .error_message()
            .starts_with("You didn't provide an API key.")
    );
    assert!(
        no_key.body.get("type").is_none(),
        "OpenAI shape, not Anthropic's"
    );

    let wrong_path = crate::support::answer(
        client
            .post(format!("{}/v1/chat/complete", server.url()))
            .bearer_auth("k")
            .json(&body),
    )
    .await;
    assert_eq!(wrong_path.status, 404);
    assert_eq!(
        wrong_path.error_message(),
        "Invalid URL (POST /v1/chat/complete)"
    );
}

#[test]
fn validation_is_usable_without_http() {
    let body = messages_body(answered_tool_conversation());
    assert_eq!(tack_testkit::validate::anthropic_request(&body), Ok(()));
    let err =
        tack_testkit::validate::openai_request(&json!({"model": "m", "messages": []})).unwrap_err();
    assert_eq!(err.param.as_deref(), Some("messages"));
    assert_eq!(err.code.as_deref(), Some("empty_array"));
}

/// The recorded real exchanges (`../shared/realmodel`, beside the checkout
/// or `TACK_REALMODEL_DIR`) whose Anthropic requests carry tool search's
/// parts (`defer_loading` tools, `tool_reference` blocks): the real API
/// answered each with 200, so the mock must accept each.
#[test]
fn every_recorded_tool_search_request_the_real_api_took_passes_the_mock() {
    let dir = std::env::var_os("TACK_REALMODEL_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .map(|a| a.join("shared/realmodel"))
                .find(|d| d.join("corpus").is_dir())
        });
    let Some(dir) = dir else {
        eprintln!("SKIPPED: no shared/realmodel beside the checkout (set TACK_REALMODEL_DIR)");
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.join("corpus")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if !text.contains("defer_loading") && !text.contains("tool_reference") {
            continue;
        }
        let item: Value = serde_json::from_str(&text).unwrap();
        // Some items recorded the response only; those with `system`
        // messages (tool_addition) needed a beta header not recorded.
        let system_messages = item["request"]["messages"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["role"] == "system"));
        if item["provider"] != "anthropic"
            || item["response_status"] != 200
            || !item["request"].is_object()
            || system_messages
        {
            continue;
        }
        let request = &item["request"];
        let betas: Vec<String> = item["request_headers"]["anthropic-beta"]
            .as_str()
            .map(|b| b.split(',').map(|s| s.trim().to_owned()).collect())
            .unwrap_or_default();
        if let Err(e) = tack_testkit::validate::anthropic_request_with_betas(request, &betas) {
            panic!(
                "{}: the real API took it, the mock refused: {e}",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 30,
        "only {checked} recorded tool-search requests found"
    );
}
