//! The built-in tools through the whole pipeline: concurrency of read-only
//! calls, and the output budget with ReadOutput.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_agent::budget::OutputBudget;
use tack_agent::{Agent, AgentConfig, EventBus, Pipeline, RunStatus};
use tack_model::{ProviderKind, ProviderOptions, RetryPolicy, select_provider};
use tack_protocol::ContentBlock;
use tack_testkit::{MockServer, Step};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolRegistry};
use tack_tools::artifacts::ArtifactStore;
use tack_tools::{BuiltinOptions, builtin_tools};
use tokio_util::sync::CancellationToken;

use crate::support::results_of;

/// A built-in tool made 300 ms slower, keeping its own concurrency answer:
/// the timing then shows what the scheduler did with that answer.
struct Slow(Arc<dyn Tool>);

#[async_trait]
impl Tool for Slow {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn description(&self) -> &str {
        self.0.description()
    }
    fn input_schema(&self) -> Value {
        self.0.input_schema()
    }
    fn is_concurrency_safe(&self, input: &Value) -> bool {
        self.0.is_concurrency_safe(input)
    }
    fn output(&self) -> tack_tool::OutputBehaviour {
        self.0.output()
    }
    async fn call(&self, input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.0.call(input, ctx).await
    }
}

async fn agent(
    mock: &MockServer,
    dir: &std::path::Path,
    slow: bool,
    budget_tokens: usize,
) -> Agent {
    let env = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "k".to_owned());
    let client = select_provider(
        &ProviderOptions {
            provider: Some(ProviderKind::Anthropic),
            model: Some("m".into()),
            base_url: Some(mock.url()),
            stream: true,
            retry: RetryPolicy::fast(1),
            ..Default::default()
        },
        &env,
    )
    .await
    .unwrap();
    let artifacts = Arc::new(ArtifactStore::new(dir.join("artifacts")));
    let mut registry = ToolRegistry::new();
    for tool in builtin_tools(&BuiltinOptions {
        cwd: dir.to_owned(),
        artifacts: artifacts.clone(),
        web: Default::default(),
        web_search: None,
        read_filter: None,
        sandbox: None,
    }) {
        let tool: Arc<dyn Tool> = if slow { Arc::new(Slow(tool)) } else { tool };
        registry.register(tool).unwrap();
    }
    let events = EventBus::new();
    let pipeline = Pipeline::builder(Arc::new(registry), dir.to_owned(), "s")
        .budget(Arc::new(
            OutputBudget::new(artifacts).default_tokens(budget_tokens),
        ))
        .events(events.clone())
        .build();
    Agent::new(
        Arc::from(client),
        Arc::new(pipeline),
        AgentConfig::default(),
        events,
    )
}

#[tokio::test]
async fn sixteen_read_and_grep_calls_run_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = std::fs::canonicalize(dir.path()).unwrap();
    for i in 0..8 {
        std::fs::write(dir_path.join(format!("f{i}.txt")), format!("needle {i}\n")).unwrap();
    }
    let mut calls = Vec::new();
    for i in 0..8 {
        let file = dir_path
            .join(format!("f{i}.txt"))
            .to_string_lossy()
            .into_owned();
        calls.push((format!("r{i:02}"), "Read", json!({"file_path": file})));
        calls.push((
            format!("g{i:02}"),
            "Grep",
            json!({"pattern": format!("needle {i}"), "path": dir_path}),
        ));
    }
    let mock = MockServer::start().await;
    mock.push_all([Step::tool_uses(calls), Step::text("ok")]);
    let mut agent = agent(&mock, &dir_path, true, 10_000).await;
    let started = Instant::now();
    let out = agent
        .run(
            Some(vec![ContentBlock::text("x")]),
            &CancellationToken::new(),
        )
        .await;
    let elapsed = started.elapsed();
    assert_eq!(out.status, RunStatus::Completed);
    // 16 × 300 ms one after the other would be 4.8 s.
    assert!(elapsed < Duration::from_millis(2000), "took {elapsed:?}");
    let results = results_of(&agent.messages()[2]);
    assert_eq!(results.len(), 16);
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
    assert!(results[0].text().contains("needle 0"));
    assert!(
        results[1].text().contains("f0.txt"),
        "{}",
        results[1].text()
    );
}

#[tokio::test]
async fn a_huge_bash_output_is_cut_saved_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = std::fs::canonicalize(dir.path()).unwrap();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("toolu_big", "Bash", json!({"command": "seq 1 200000"})),
        Step::tool_use(
            "toolu_back",
            "ReadOutput",
            json!({"artifact": "art_toolu_big", "start_line": 100000, "end_line": 100002}),
        ),
        Step::tool_use(
            "toolu_grep",
            "ReadOutput",
            json!({"artifact": "art_toolu_big", "pattern": "^19999[0-9]$"}),
        ),
        Step::text("ok"),
    ]);
    let mut agent = agent(&mock, &dir_path, false, 2_000).await;
    let out = agent
        .run(
            Some(vec![ContentBlock::text("x")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed);
    let cut = results_of(&agent.messages()[2])[0].clone();
    assert!(!cut.is_error, "a big output is not an error");
    let text = cut.text();
    assert!(text.len() < 2_000 * 4 + 1_000, "{} bytes", text.len());
    assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..50]);
    assert!(text.contains("200000 lines in total"), "{text}");
    assert!(text.contains("art_toolu_big"));
    assert!(text.contains("filter the command's output"), "Bash hint");
    assert!(text.trim_end().ends_with("200000"), "the tail is kept");
    let back = results_of(&agent.messages()[4])[0].text();
    assert!(
        back.contains("100000\t100000\n") && back.contains("100002\t100002"),
        "{back}"
    );
    let found = results_of(&agent.messages()[6])[0].text();
    assert_eq!(found.lines().count(), 10, "{found}");
    assert!(mock.rejections().is_empty());
}

#[tokio::test]
async fn a_big_notebook_read_is_cut_by_the_budget_and_read_back_or_paged_by_cells() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = std::fs::canonicalize(dir.path()).unwrap();
    let cells: Vec<Value> = (0..300)
        .map(|i| {
            json!({"cell_type": "code", "execution_count": i, "id": format!("c{i:03}"), "metadata": {},
                   "outputs": [{"name": "stdout", "output_type": "stream", "text": format!("result {i}\n")}],
                   "source": format!("print('result {i}')")})
        })
        .collect();
    let nb = json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    let path = dir_path.join("big.ipynb");
    std::fs::write(&path, serde_json::to_string_pretty(&nb).unwrap()).unwrap();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("toolu_nb", "Read", json!({"file_path": path})),
        Step::tool_use(
            "toolu_back",
            "ReadOutput",
            json!({"artifact": "art_toolu_nb", "pattern": "id=\"c150\""}),
        ),
        Step::tool_use(
            "toolu_cells",
            "Read",
            json!({"file_path": path, "offset": 201, "limit": 2}),
        ),
        Step::text("ok"),
    ]);
    let mut agent = agent(&mock, &dir_path, false, 2_000).await;
    let out = agent
        .run(
            Some(vec![ContentBlock::text("x")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed);
    let cut = results_of(&agent.messages()[2])[0].text();
    assert!(cut.len() < 2_000 * 4 + 1_000, "{} bytes", cut.len());
    assert!(cut.contains("art_toolu_nb"), "{cut}");
    assert!(cut.contains("offset and limit"), "the Read hint: {cut}");
    let back = results_of(&agent.messages()[4])[0].text();
    assert!(back.contains("<cell index=\"150\" id=\"c150\""), "{back}");
    let cells = results_of(&agent.messages()[6])[0].text();
    assert!(
        cells.contains("id=\"c200\"") && cells.contains("id=\"c201\""),
        "{cells}"
    );
    assert!(
        !cells.contains("id=\"c202\"") && cells.contains("offset=203"),
        "{cells}"
    );
    assert!(mock.rejections().is_empty());
}
