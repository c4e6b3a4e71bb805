//! Prompt caching end to end: the breakpoints the clients send, and what
//! the caching mock reads and writes from one request to the next.

use std::collections::HashMap;

use serde_json::{Value, json};
use tack_model::{AnthropicClient, ModelClient, ProviderOptions, RetryPolicy, select_provider};
use tack_protocol::{
    ContentBlock, Extra, Message, MessagesRequest, SystemPrompt, ToolDefinition, ToolResultBlock,
    ToolUseBlock,
};
use tack_testkit::{MockServer, Step};

use super::support::{anthropic, anthropic_config, ask, request};

fn big_tool(name: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.into(),
        description: Some(format!("{name}: {}", "reads files. ".repeat(200))),
        input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        extra: Extra::new(),
    }
}

/// The conversation after `n` tool calls, with two big tools.
fn after_calls(n: usize, system: Option<&str>) -> MessagesRequest {
    let mut messages = vec![Message::user_text("read them all")];
    for i in 0..n {
        messages.push(Message::assistant(vec![ContentBlock::ToolUse(
            ToolUseBlock {
                id: format!("toolu_{i}"),
                name: "Read".into(),
                input: json!({"path": format!("src/{i}.rs")}),
                extra: Extra::new(),
            },
        )]));
        messages.push(Message::user(vec![ContentBlock::ToolResult(
            ToolResultBlock::new(
                format!("toolu_{i}"),
                vec![ContentBlock::text(format!("fn f{i}() {{}}\n").repeat(20))],
                false,
            ),
        )]));
    }
    let mut r = request(messages);
    r.tools = vec![big_tool("Glob"), big_tool("Read")];
    r.system = system.map(|s| SystemPrompt::Text(s.into()));
    r
}

fn marked_paths(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut walk = |prefix: &str, items: Option<&Value>| {
        for (i, b) in items
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if b.get("cache_control").is_some() {
                out.push(format!("{prefix}{i}"));
            }
        }
    };
    walk("tools.", body.get("tools"));
    walk("system.", body.get("system"));
    for (m, message) in body["messages"].as_array().unwrap().iter().enumerate() {
        walk(&format!("messages.{m}.content."), message.get("content"));
    }
    out
}

#[tokio::test]
async fn breakpoints_sit_on_the_static_prefix_and_the_newest_turns() {
    let server = MockServer::start().await;
    server.push_all([Step::text("a"), Step::text("b")]);
    let client = anthropic(&server, false);

    client
        .complete(&after_calls(2, None), &|_| {})
        .await
        .unwrap();
    client
        .complete(&after_calls(2, Some("You are terse.")), &|_| {})
        .await
        .unwrap();

    let sent = server.requests();
    assert_eq!(
        marked_paths(&sent[0].body),
        ["tools.1", "messages.2.content.0", "messages.4.content.0"]
    );
    assert_eq!(
        marked_paths(&sent[1].body),
        [
            "tools.1",
            "system.0",
            "messages.2.content.0",
            "messages.4.content.0"
        ]
    );
    assert_eq!(
        sent[1].body["system"],
        json!([{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}])
    );
    assert!(server.rejections().is_empty());
}

#[tokio::test]
async fn each_request_reads_what_the_previous_one_wrote() {
    let server = MockServer::start().await;
    server.push_all((0..4).map(|i| Step::text(format!("r{i}"))));
    let client = anthropic(&server, true);

    let mut usages = Vec::new();
    for n in 0..4 {
        let turn = client
            .complete(&after_calls(n, Some("You are terse.")), &|_| {})
            .await
            .unwrap();
        usages.push(turn.response.usage);
    }

    assert_eq!(usages[0].cache_read_input_tokens, 0);
    assert!(usages[0].cache_creation_input_tokens > 1024);
    for pair in usages.windows(2) {
        let (before, now) = (&pair[0], &pair[1]);
        // All that was input before is read now; only the new turn is written.
        assert_eq!(
            now.cache_read_input_tokens,
            before.cache_read_input_tokens + before.cache_creation_input_tokens
        );
        assert!(now.cache_creation_input_tokens > 0);
        assert_eq!(now.input_tokens, 0);
    }
}

#[tokio::test]
async fn caching_off_sends_no_cache_control_and_reads_nothing() {
    let server = MockServer::start().await;
    server.push_all([Step::text("a"), Step::text("b")]);
    let mut config = anthropic_config(&server, false);
    config.prompt_cache = false;
    let client = AnthropicClient::new(config).unwrap();

    for n in 0..2 {
        let turn = client
            .complete(&after_calls(n, Some("S")), &|_| {})
            .await
            .unwrap();
        assert_eq!(turn.response.usage.cache_read_input_tokens, 0);
        assert_eq!(turn.response.usage.cache_creation_input_tokens, 0);
    }
    for r in server.requests() {
        assert!(!r.raw_body.contains("cache_control"), "{}", r.raw_body);
        assert_eq!(r.body["system"], "S", "the system stays a string");
    }
}

#[tokio::test]
async fn no_prompt_cache_option_reaches_the_anthropic_client() {
    let server = MockServer::start().await;
    server.push(Step::text("a"));
    let opts = ProviderOptions {
        base_url: Some(server.url()),
        retry: RetryPolicy::fast(0),
        no_prompt_cache: true,
        ..Default::default()
    };
    let client = select_provider(&opts, &|k| (k == "ANTHROPIC_API_KEY").then(|| "k".into()))
        .await
        .unwrap();
    client.complete(&ask("hi"), &|_| {}).await.unwrap();
    assert!(!server.requests()[0].raw_body.contains("cache_control"));
}

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

#[tokio::test]
async fn prompt_cache_key_only_where_configured() {
    let server = MockServer::start().await;
    server.push_all([Step::text("a"), Step::text("b")]);
    let opts = ProviderOptions {
        model: Some("gpt-4.1".into()),
        retry: RetryPolicy::fast(0),
        prompt_cache_key: Some("session-1".into()),
        ..Default::default()
    };
    let plain = env_of(&[("OPENAI_API_KEY", "o"), ("OPENAI_BASE_URL", &server.url())]);
    let opted_in = env_of(&[
        ("OPENAI_API_KEY", "o"),
        ("OPENAI_BASE_URL", &server.url()),
        ("TACK_PROMPT_CACHE_KEY", "1"),
    ]);

    for env in [&plain as &dyn Fn(&str) -> Option<String>, &opted_in] {
        let client = select_provider(&opts, env).await.unwrap();
        client.complete(&ask("hi"), &|_| {}).await.unwrap();
    }

    let sent = server.requests();
    assert_eq!(
        sent[0].body.get("prompt_cache_key"),
        None,
        "a server not known to take it"
    );
    assert_eq!(sent[1].body["prompt_cache_key"], "session-1");
}

#[tokio::test]
async fn openai_cached_tokens_are_cache_reads() {
    let server = MockServer::start().await;
    server.push(Step::text("a").with_usage(tack_protocol::Usage {
        input_tokens: 100,
        output_tokens: 5,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 900,
    }));
    let turn = super::support::openai(&server, false)
        .complete(&ask("hi"), &|_| {})
        .await
        .unwrap();
    assert_eq!(turn.response.usage.cache_read_input_tokens, 900);
    assert_eq!(turn.response.usage.input_tokens, 100);
}
