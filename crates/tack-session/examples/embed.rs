//! tack inside a Rust program: one Rust tool, one prompt against the built-in
//! mock of the Messages API, the answer printed. `cargo run --example embed`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use tack_session::{ProjectContext, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tack_tool::{ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Deserialize, JsonSchema)]
struct Input {
    /// The text whose words to count, e.g. "one two three".
    text: String,
}

/// A tool written in Rust.
struct WordCount;

#[async_trait::async_trait]
impl TypedTool for WordCount {
    type Input = Input;
    fn name(&self) -> &str {
        "WordCount"
    }
    fn description(&self) -> &str {
        "Counts the words of a text (separated by white space) and returns the number."
    }
    async fn call(&self, input: Input, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(
            input.text.split_whitespace().count().to_string(),
        ))
    }
}

async fn run() -> Result<String, Box<dyn std::error::Error>> {
    // The mock plays the model: it asks for WordCount, then answers.
    let mock = MockServer::start().await;
    let input = serde_json::json!({"text": "one two three"});
    mock.push_all([
        Step::tool_use("t1", "WordCount", input),
        Step::text("3 words."),
    ]);
    let options = tack_model::ProviderOptions {
        provider: Some(tack_model::ProviderKind::Anthropic),
        base_url: Some(mock.url()),
        ..Default::default()
    };
    let client = tack_model::select_provider(&options, &|_| Some("mock-key".into())).await?;

    // The rules are the project's settings plus these, as with `--allowed-tools`.
    let rules = tack_policy::CliPermissions {
        allowed_tools: vec!["WordCount".into()],
        ..Default::default()
    };
    let project = ProjectContext::load(None, &rules)?;
    let options = SessionOptions::new(SessionOptions::new_id())
        .sources(Vec::new())
        .tool(WordCount);
    let session = Session::assemble(&project, options).await?;
    let outcome = session
        .run(
            Arc::from(client),
            Default::default(),
            "Count: one two three",
            &Default::default(),
        )
        .await;
    let result = mock.requests()[1].body["messages"][2]["content"][0]["content"].to_string();
    Ok(format!("{} (the tool answered {result})", outcome.text))
}

#[tokio::main]
#[cfg_attr(test, allow(dead_code))]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", run().await?);
    Ok(())
}

#[tokio::test]
async fn the_example_runs() {
    let printed = run().await.unwrap();
    assert!(printed.starts_with("3 words."), "{printed}");
    assert!(printed.contains("\"3\""), "the tool ran: {printed}");
}
