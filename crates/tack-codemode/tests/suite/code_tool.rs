//! The `Code` tool over a real pipeline: nested calls meet the permission
//! rules and are audited with the Code call as their caller, get their
//! results whole, and run together only when each may.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_agent::permission::PolicyStage;
use tack_agent::{EventBus, Pipeline};
use tack_codemode::Limits;
use tack_codemode::tool::{Callable, CodeTool};
use tack_protocol::{AuditDecision, SessionEvent};
use tack_tool::{
    CallOptions, Tool, ToolCall, ToolCallResult, ToolContext, ToolError, ToolHost, ToolOutput,
    ToolRegistry,
};
use tokio_util::sync::CancellationToken;

/// `Slow` sleeps 200 ms and may run with others; `Store` sleeps 100 ms
/// and must run alone; `Secret` is denied by a rule; `Big` answers 200 KB.
struct Fixture(&'static str);

#[async_trait]
impl Tool for Fixture {
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "A fixture."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        self.0 == "Slow"
    }
    async fn call(&self, _input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        match self.0 {
            "Slow" => tokio::time::sleep(Duration::from_millis(200)).await,
            "Store" => tokio::time::sleep(Duration::from_millis(100)).await,
            _ => {}
        }
        Ok(match self.0 {
            "Big" => ToolOutput::text("x".repeat(200_000)),
            name => ToolOutput::text(format!("{name} done")),
        })
    }
}

struct World {
    pipeline: Pipeline,
    events: Arc<Mutex<Vec<SessionEvent>>>,
    _dir: tempfile::TempDir,
}

fn world(callable: Callable) -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut registry = ToolRegistry::new();
    for name in ["Slow", "Store", "Secret", "Big", "Maybe"] {
        registry.register(Arc::new(Fixture(name))).unwrap();
    }
    registry
        .register(Arc::new(CodeTool::new(Limits::default(), callable, "")))
        .unwrap();
    let policy = tack_policy::PolicyBuilder::new(root.clone())
        .project_root(root.clone())
        .allow("Slow")
        .allow("Store")
        .allow("Big")
        .allow("Code")
        .deny("Secret")
        .build()
        .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let bus = EventBus::new().with(Arc::new(move |e: &SessionEvent| {
        seen.lock().unwrap().push(e.clone());
    }));
    let pipeline = Pipeline::builder(Arc::new(registry), root.clone(), "code-test")
        .events(bus)
        .permission(Arc::new(PolicyStage::new(
            policy,
            root.clone(),
            root,
            None,
            None,
        )))
        .budget(Arc::new(tack_agent::budget::OutputBudget::new(Arc::new(
            tack_tool::artifacts::ArtifactStore::new(dir.path().join("artifacts")),
        ))))
        .build();
    World {
        pipeline,
        events,
        _dir: dir,
    }
}

async fn code(w: &World, code: &str) -> ToolCallResult {
    w.pipeline
        .call(
            ToolCall {
                id: "toolu_code".into(),
                name: "Code".into(),
                input: json!({"code": code}),
            },
            CallOptions::new(CancellationToken::new()),
        )
        .await
}

#[tokio::test]
async fn a_call_denied_to_the_model_is_denied_from_code_and_the_audit_names_the_code_call() {
    let w = world(Callable::All);
    let result = code(
        &w,
        "try { await tools.Secret({}) } catch (e) { console.log(e.kind, e.message) }",
    )
    .await;
    assert!(!result.block.is_error, "{}", result.block.text());
    let text = result.block.text();
    assert!(text.starts_with("denied "), "{text}");
    let events = w.events.lock().unwrap();
    let nested = events
        .iter()
        .find_map(|e| match e {
            SessionEvent::ToolResult {
                name,
                audit: Some(audit),
                ..
            } if name == "Secret" => Some(audit.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(nested.decision, AuditDecision::Deny);
    let caller = nested.caller.unwrap();
    assert_eq!(
        (caller.tool.as_str(), caller.tool_use_id.as_str()),
        ("Code", "toolu_code")
    );
}

#[tokio::test]
async fn slow_read_only_calls_run_together_and_the_others_one_at_a_time() {
    let w = world(Callable::All);
    let started = Instant::now();
    let result = code(
        &w,
        "const r = await Promise.all([1,2,3,4,5,6,7,8].map(() => tools.Slow({}))); return r.length",
    )
    .await;
    let took = started.elapsed();
    assert!(
        result.block.text().contains("returned: 8"),
        "{}",
        result.block.text()
    );
    assert!(
        took < Duration::from_millis(800),
        "8 × 200 ms took {took:?}"
    );
    let started = Instant::now();
    let result = code(
        &w,
        "return await Promise.all([1,2,3].map(() => tools.Store({})))",
    )
    .await;
    assert!(
        result.block.text().contains("Store done"),
        "{}",
        result.block.text()
    );
    assert!(
        started.elapsed() >= Duration::from_millis(290),
        "three writes of 100 ms ran together: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn code_gets_a_result_whole_and_its_own_output_meets_the_budget() {
    let w = world(Callable::All);
    let result = code(&w, "const t = await tools.Big({}); return t.length").await;
    assert!(
        result.block.text().contains("returned: 200000"),
        "{}",
        result.block.text()
    );
    let result = code(&w, "console.log(await tools.Big({}))").await;
    assert!(
        result.block.text().len() < 100_000,
        "the program's output is cut once"
    );
}

#[tokio::test]
async fn only_the_callable_tools_are_offered_and_code_cannot_call_code() {
    let w = world(Callable::Only(vec!["Slow".into()]));
    let result = code(
        &w,
        "return [Object.keys(tools).sort(), typeof tools.Code, typeof tools.Big]",
    )
    .await;
    assert!(
        result
            .block
            .text()
            .contains(r#"returned: [["Slow"],"undefined","undefined"]"#),
        "{}",
        result.block.text()
    );
}

#[tokio::test]
async fn a_syntax_error_is_invalid_input_with_its_line() {
    let w = world(Callable::All);
    let result = code(&w, "const a = 1;\nconst = 2;").await;
    assert!(result.block.is_error);
    let text = result.block.text();
    assert!(text.contains('2'), "{text}");
    assert_eq!(
        result.outcome,
        tack_protocol::ToolOutcome::InvalidInput,
        "{text}"
    );
    let _ = w.pipeline.definitions();
}

#[tokio::test]
async fn tools_search_ranks_the_callable_tools_with_tool_searchs_ranker() {
    let w = world(Callable::Only(vec!["Slow".into(), "Big".into()]));
    let result = code(
        &w,
        "const found = await tools.search('Big'); return found.map((t) => t.name)",
    )
    .await;
    let text = result.block.text();
    assert!(text.starts_with(r#"returned: ["Big""#), "{text}");
    assert!(!text.contains("Secret"), "only callable tools: {text}");
}

#[tokio::test]
async fn tools_search_sees_a_tool_that_joins_after_an_earlier_search() {
    // The index is kept across runs; a tool added since is searched too.
    let w = world(Callable::All);
    let search = "const found = await tools.search('Late'); return found.map((t) => t.name)";
    let before = code(&w, search).await.block.text();
    assert!(!before.contains("Late"), "{before}");
    w.pipeline.add_tools(vec![Arc::new(Fixture("Late"))]);
    let after = code(&w, search).await.block.text();
    assert!(after.starts_with(r#"returned: ["Late""#), "{after}");
    let again = code(&w, search).await.block.text();
    assert_eq!(again, after);
}

#[tokio::test]
async fn a_call_that_would_be_asked_is_asked_the_same_way_and_headless_means_no() {
    // No rule allows Maybe and nobody can be asked (no prompter): the call
    // the model would have had to ask for is refused from code too.
    let w = world(Callable::All);
    let result = code(
        &w,
        "try { await tools.Maybe({}); return 'ran' } catch (e) { return [e.kind, e.message] }",
    )
    .await;
    let text = result.block.text();
    assert!(text.contains(r#"returned: ["denied","#), "{text}");
    assert!(text.contains("no terminal to ask on"), "{text}");
}
