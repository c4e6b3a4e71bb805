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
use tack_session::{Asked, Scripted, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolRegistry};
use tack_tools::artifacts::ArtifactStore;
use tack_tools::{BuiltinOptions, builtin_tools};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, results_of};

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
        program_roots: Vec::new(),
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

/// One turn of a session of `project` (the default sources) with a model of
/// `provider` on the mock: the `tools` of the request the mock answered,
/// and the notices the session gave.
async fn tools_sent(project: &Project, provider: ProviderKind) -> (Vec<Value>, Vec<String>) {
    let mock = MockServer::start().await;
    mock.push(Step::text("ok"));
    let env = |k: &str| matches!(k, "ANTHROPIC_API_KEY" | "OPENAI_API_KEY").then(|| "k".to_owned());
    let client = select_provider(
        &ProviderOptions {
            provider: Some(provider),
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
    let person = Scripted::new();
    let session = Session::assemble(
        &project.context(),
        SessionOptions::new("s").interaction(Arc::new(person.clone())),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            Arc::from(client),
            Default::default(),
            "go",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert!(mock.rejections().is_empty(), "{:?}", mock.rejections());
    let body = mock.requests()[0].body.clone();
    let notices = person
        .asked()
        .into_iter()
        .filter_map(|a| match a {
            Asked::Notice(text) => Some(text),
            _ => None,
        })
        .collect();
    (body["tools"].as_array().unwrap().clone(), notices)
}

/// The tool named `name` of a request's tools, in either API's shape.
fn sent<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name || t["function"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} was not sent"))
}

fn builtin_examples(name: &str) -> Vec<Value> {
    tack_tools::builtin_tools(&BuiltinOptions {
        cwd: std::env::temp_dir(),
        program_roots: Vec::new(),
        artifacts: Arc::new(ArtifactStore::new(std::env::temp_dir().join("tack-ex"))),
        web: Default::default(),
        web_search: None,
        read_filter: None,
        sandbox: None,
    })
    .into_iter()
    .find(|t| t.name() == name)
    .unwrap()
    .input_examples()
}

#[tokio::test]
async fn the_messages_api_gets_the_builtin_examples_as_input_examples() {
    let project = Project::new();
    let (tools, notices) = tools_sent(&project, ProviderKind::Anthropic).await;
    assert!(notices.is_empty(), "{notices:?}");
    for name in ["Grep", "Edit", "Bash"] {
        let examples = sent(&tools, name)["input_examples"].clone();
        assert_eq!(examples, json!(builtin_examples(name)), "{name}");
        assert!(examples.as_array().unwrap().len() >= 2, "{name}");
    }
    let with: Vec<&str> = tools
        .iter()
        .filter(|t| t.get("input_examples").is_some())
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(with, ["Bash", "Edit", "Grep"]);
    let grep = &sent(&tools, "Grep")["input_examples"];
    assert!(
        grep.as_array()
            .unwrap()
            .iter()
            .any(|e| e["output_mode"] == "content" && e["-C"].is_number()),
        "{grep}"
    );
}

#[tokio::test]
async fn chat_completions_gets_the_examples_at_the_end_of_the_descriptions() {
    // The mock refuses an unknown field in a function tool as OpenAI does,
    // so the request was answered only if no tool carried input_examples.
    let project = Project::new();
    let (tools, _) = tools_sent(&project, ProviderKind::OpenAi).await;
    assert!(
        !Value::Array(tools.clone())
            .to_string()
            .contains("input_examples")
    );
    for name in ["Grep", "Edit", "Bash"] {
        let description = sent(&tools, name)["function"]["description"]
            .as_str()
            .unwrap();
        let lines: Vec<String> = builtin_examples(name)
            .iter()
            .map(Value::to_string)
            .collect();
        let tail = format!("\n\nExamples:\n{}", lines.join("\n"));
        assert!(description.ends_with(&tail), "{name}: {description}");
    }
    let read = sent(&tools, "Read")["function"]["description"]
        .as_str()
        .unwrap();
    assert!(!read.contains("Examples:"), "{read}");
}

#[tokio::test]
async fn input_examples_in_settings_replace_a_tools_own_and_mistakes_are_notices() {
    let project = Project::new();
    let mine = json!({"pattern": "TODO", "glob": "*.md", "output_mode": "count"});
    let edit = json!({"file_path": "/p/a.txt", "old_string": "a", "new_string": "b"});
    project.settings(json!({"inputExamples": {"Grep": [{"pattern": "from the project"}]}}));
    project.write(
        ".tack/settings.local.json",
        r#"{
  "permissions": {"allow": ["Edit"]},
  "inputExamples": {
    "Grep": [{"pattern": "TODO", "glob": "*.md", "output_mode": "count"}],
    "Bash": [],
    "Edit": [
      {"file_path": "/p/a.txt", "old_strin": "a", "new_string": "b"},
      {"file_path": "/p/a.txt", "old_string": "a", "new_string": "b"}
    ],
    "Grpe": [{"pattern": "x"}]
  }
}
"#,
    );
    let local = project.path().join(".tack/settings.local.json");
    let (tools, notices) = tools_sent(&project, ProviderKind::Anthropic).await;
    // The local file's list replaces the project file's and Grep's own.
    assert_eq!(sent(&tools, "Grep")["input_examples"], json!([mine]));
    assert!(
        sent(&tools, "Bash").get("input_examples").is_none(),
        "an empty list takes the examples away"
    );
    assert_eq!(sent(&tools, "Edit")["input_examples"], json!([edit]));
    assert!(!Value::Array(tools).to_string().contains("Grpe"));
    let notices = notices.join("\n");
    // Each names the file and the line of the tool's name in the section
    // (not the line of the permission rule naming Edit).
    assert!(
        notices.contains(&format!(
            "{}:10: inputExamples names no tool of this session: \"Grpe\"; did you mean \"Grep\"?",
            local.display()
        )),
        "{notices}"
    );
    assert!(
        notices.contains(&format!(
            "{}:6: inputExamples.Edit example 1 does not match the tool's input schema (",
            local.display()
        )),
        "{notices}"
    );
    assert!(
        notices.contains(r#"(input: "old_string" is a required property); it is left out"#),
        "{notices}"
    );
    assert_eq!(notices.lines().count(), 2, "{notices}");
}

#[test]
fn input_examples_of_the_wrong_shape_are_warnings_with_file_and_line() {
    let project = Project::new();
    project.write(
        ".tack/settings.json",
        "{\n  \"inputExamples\": [\"Grep\"]\n}\n",
    );
    project.write(
        ".tack/settings.local.json",
        "{\n  \"inputExamples\": {\n    \"Grep\": {\"pattern\": \"x\"},\n    \"Read\": [\"/etc/hosts\", {\"file_path\": \"/a\"}]\n  }\n}\n",
    );
    let ctx = project.context();
    let dir = project.path();
    let warnings = ctx.warnings.join("\n");
    for said in [
        format!(
            "{}:2: \"inputExamples\" must be an object",
            dir.join(".tack/settings.json").display()
        ),
        format!(
            "{}:3: inputExamples.Grep must be a list of example inputs",
            dir.join(".tack/settings.local.json").display()
        ),
        format!(
            "{}:4: inputExamples.Read example 1 is not an object",
            dir.join(".tack/settings.local.json").display()
        ),
    ] {
        assert!(warnings.contains(&said), "{said:?} not in:\n{warnings}");
    }
    let read = &ctx.settings.input_examples["Read"];
    assert_eq!(read.examples, [json!({"file_path": "/a"})]);
    assert_eq!(read.numbers, [2]);
    assert!(!ctx.settings.input_examples.contains_key("Grep"));
}
