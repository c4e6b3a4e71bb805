//! Exposure and the host handle: a Deferred tool is callable but not sent
//! until revealed, the tools part of requests only grows and stays
//! byte-identical, a Hidden tool is reachable only from another tool, and a
//! nested call meets the same rules and names its caller in the audit.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_protocol::{AuditDecision, Caller, ContentBlock, RunStatus};
use tack_session::sources::{Builtins, RustTools};
use tack_session::{Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tack_tool::{Exposure, ToolCall, ToolContext, ToolError, ToolOutput, Typed, TypedTool};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, audits, client, client_for, recorder, results_of};

#[derive(Deserialize, JsonSchema)]
struct NoInput {}

/// A tool that answers its own name.
struct Named(&'static str);

#[async_trait]
impl TypedTool for Named {
    type Input = NoInput;
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "Answers with its own name."
    }
    async fn call(&self, _: NoInput, _: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("this is {}", self.0)))
    }
}

#[derive(Deserialize, JsonSchema)]
struct RelayInput {
    /// The tool to call.
    tool: String,
    /// Its input.
    input: Value,
}

/// Calls another tool through its host handle and returns what it got.
struct Relay;

#[async_trait]
impl TypedTool for Relay {
    type Input = RelayInput;
    fn name(&self) -> &str {
        "Relay"
    }
    fn description(&self) -> &str {
        "Calls another tool and returns its result."
    }
    async fn call(&self, input: RelayInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let call = ToolCall {
            id: format!("{}-inner", ctx.tool_use_id),
            name: input.tool,
            input: input.input,
        };
        let result = ctx.host.call(call, ctx.cancel.clone()).await;
        Ok(ToolOutput::text(format!(
            "inner outcome {:?}: {}",
            result.outcome,
            result.block.text()
        )))
    }
}

fn tools() -> RustTools {
    RustTools::new()
        .typed(Named("Now"))
        .tool(Arc::new(Typed(Named("Later"))), Exposure::Deferred)
        .tool(Arc::new(Typed(Named("Inner"))), Exposure::Hidden)
        .typed(Relay)
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn deferred_tools_are_callable_unsent_until_revealed_and_the_tools_only_grow() {
    let project = Project::new();
    project.settings(json!({"permissions": {"allow": ["Later", "Inner"]}}));
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("t1", "Later", json!({})),
        Step::tool_use("t2", "Inner", json!({})),
        Step::text("first run done"),
        Step::text("second run done"),
    ]);
    let ctx = project.context();
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("x1").sources(vec![Arc::new(tools())]),
    )
    .await
    .unwrap();
    // A model without `tool_reference` support: deferred tools are sent
    // once revealed, appended.
    let client = client_for(&mock, "claude-sonnet-4-20250514").await;
    let mut agent = session.agent(client, Default::default());
    let cancel = CancellationToken::new();
    let out = agent
        .run(Some(vec![ContentBlock::text("one")]), &cancel)
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let results = results_of(&agent.messages()[2]);
    assert!(
        !results[0].is_error,
        "a deferred tool is callable: {results:?}"
    );
    assert_eq!(results[0].text(), "this is Later");
    let hidden = &results_of(&agent.messages()[4])[0];
    assert!(hidden.is_error, "the model cannot call a hidden tool");
    assert!(
        hidden.text().contains("No tool named \"Inner\""),
        "{}",
        hidden.text()
    );
    assert!(
        !hidden.text().contains("Inner,"),
        "hidden tools are not listed"
    );

    // Called without a search, "Later" joined the request (appended).
    assert!(
        session
            .pipeline()
            .reveal(&["Later", "Inner", "Now"])
            .is_empty()
    );
    let out = agent
        .run(Some(vec![ContentBlock::text("two")]), &cancel)
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);

    let requests = mock.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        tool_names(&requests[0].body),
        ["Now", "Relay", "ToolSearch"]
    );
    // As the prompt cache compares them: without the breakpoint markers,
    // which move to the newest last tool.
    let tools_of = |i: usize| {
        let mut tools = requests[i].body["tools"].clone();
        for t in tools.as_array_mut().into_iter().flatten() {
            if let Some(t) = t.as_object_mut() {
                t.remove("cache_control");
            }
        }
        serde_json::to_string(&tools).unwrap()
    };
    assert_eq!(
        tool_names(&requests[1].body),
        ["Now", "Relay", "ToolSearch", "Later"]
    );
    let (before, after) = (tools_of(0), tools_of(1));
    assert!(
        after.starts_with(&before[..before.len() - 1]),
        "a revealed tool is appended: the earlier tools stay a byte-identical prefix"
    );
    assert_eq!(tools_of(1), tools_of(2), "byte-identical from then on");
    assert_eq!(tools_of(2), tools_of(3));
}

#[tokio::test]
async fn with_tool_references_every_deferred_tool_is_sent_marked_and_nothing_changes() {
    let project = Project::new();
    project.settings(json!({"permissions": {"allow": ["Later"]}}));
    let mock = MockServer::start().await;
    mock.push_all([Step::tool_use("t1", "Later", json!({})), Step::text("done")]);
    let ctx = project.context();
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("x2").sources(vec![Arc::new(tools())]),
    )
    .await
    .unwrap();
    let mut agent = session.agent(
        client_for(&mock, "claude-sonnet-4-5").await,
        Default::default(),
    );
    let out = agent
        .run(
            Some(vec![ContentBlock::text("one")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    assert!(
        session.pipeline().reveal(&["Later"]).is_empty(),
        "the call revealed it"
    );
    let requests = mock.requests();
    let first = &requests[0].body["tools"];
    assert_eq!(
        tool_names(&requests[0].body),
        ["Now", "Later", "Relay", "ToolSearch"]
    );
    assert_eq!(first[1]["defer_loading"], json!(true));
    assert!(first[0].get("defer_loading").is_none());
    assert_eq!(
        requests[1].body["tools"], *first,
        "the same tools every request"
    );
}

#[tokio::test]
async fn a_nested_call_meets_the_deny_rule_and_its_audit_names_the_caller() {
    let project = Project::new();
    project.settings(json!({"permissions": {
        "allow": ["Relay", "Inner", "Bash(touch *)"],
        "deny": ["Bash(rm *)"]
    }}));
    let dir = project.path();
    std::fs::write(dir.join("keep.txt"), "keep").unwrap();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([
            (
                "t1",
                "Relay",
                json!({"tool": "Bash", "input": {"command": "rm keep.txt"}}),
            ),
            ("t2", "Relay", json!({"tool": "Inner", "input": {}})),
            (
                "t3",
                "Relay",
                json!({"tool": "Bash", "input": {"command": "touch made.txt"}}),
            ),
        ]),
        Step::text("done"),
    ]);
    let (events, seen) = recorder();
    let ctx = project.context();
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("x2")
            .sources(vec![Arc::new(Builtins), Arc::new(tools())])
            .events(events),
    )
    .await
    .unwrap();
    let mut agent = session.agent(client(&mock).await, Default::default());
    let out = agent
        .run(
            Some(vec![ContentBlock::text("go")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    assert!(dir.join("keep.txt").exists(), "the nested rm was denied");
    assert!(dir.join("made.txt").exists(), "the nested touch ran");
    let results = results_of(&agent.messages()[2]);
    assert!(
        results[0].text().contains("Denied"),
        "{}",
        results[0].text()
    );
    assert!(
        results[0].text().contains("Bash(rm *)"),
        "{}",
        results[0].text()
    );
    assert_eq!(results[1].text(), "inner outcome Ok: this is Inner");

    let seen = seen.lock().unwrap();
    let audits = audits(&seen);
    let inner = |id: &str| audits.iter().find(|(i, _)| i == id).unwrap().1.clone();
    let denied = inner("t1-inner");
    assert_eq!(denied.decision, AuditDecision::Deny);
    assert!(
        denied.decided_by.contains("Bash(rm *)"),
        "{}",
        denied.decided_by
    );
    assert_eq!(
        denied.caller,
        Some(Caller {
            tool: "Relay".into(),
            tool_use_id: "t1".into()
        })
    );
    assert_eq!(inner("t3-inner").decision, AuditDecision::Allow);
    assert_eq!(
        inner("t1").caller,
        None,
        "the model's own call has no caller"
    );
}

#[tokio::test]
async fn calls_nested_deeper_than_the_limit_are_refused() {
    let project = Project::new();
    project.settings(json!({"permissions": {"allow": ["Relay", "Now"]}}));
    let mut input = json!({"tool": "Now", "input": {}});
    for _ in 0..tack_tool::MAX_NESTING + 1 {
        input = json!({"tool": "Relay", "input": input});
    }
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("t1", "Relay", input["input"].clone()),
        Step::tool_use(
            "t2",
            "Relay",
            json!({"tool": "Relay", "input": {"tool": "Now", "input": {}}}),
        ),
        Step::text("done"),
    ]);
    let ctx = project.context();
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("x3").sources(vec![Arc::new(tools())]),
    )
    .await
    .unwrap();
    let mut agent = session.agent(client(&mock).await, Default::default());
    let out = agent
        .run(
            Some(vec![ContentBlock::text("go")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let deep = results_of(&agent.messages()[2])[0].text();
    assert!(deep.contains("nested more than 4 deep"), "{deep}");
    assert!(!deep.contains("this is Now"), "{deep}");
    let shallow = results_of(&agent.messages()[4])[0].text();
    assert!(shallow.ends_with("this is Now"), "{shallow}");
}

/// A tool every call of which a deny rule refuses is not sent to the model
/// (as in Claude Code): its definition would cost every request and a call
/// could only fail. A rule that denies some of its calls leaves it offered.
#[tokio::test]
async fn a_tool_denied_outright_is_not_offered() {
    let project = Project::new();
    project.settings(json!({"permissions": {"deny": ["WebFetch", "Bash(rm *)"]}}));
    let mock = MockServer::start().await;
    mock.push_all([Step::text("done")]);
    let ctx = project.context();
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("x1").sources(vec![Arc::new(Builtins), Arc::new(tools())]),
    )
    .await
    .unwrap();
    let client = client_for(&mock, "claude-sonnet-4-20250514").await;
    let mut agent = session.agent(client, Default::default());
    let out = agent
        .run(
            Some(vec![ContentBlock::text("one")]),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let names = tool_names(&mock.requests()[0].body);
    assert!(!names.contains(&"WebFetch".to_owned()), "{names:?}");
    assert!(names.contains(&"Bash".to_owned()), "{names:?}");
    assert!(names.contains(&"Read".to_owned()), "{names:?}");
}
