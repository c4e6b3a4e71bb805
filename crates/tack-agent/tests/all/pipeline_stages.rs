//! The dispatch pipeline's pluggable stages: pass-through by default, and each
//! one really in the path (a stage that refuses or rewrites changes the result).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use tack_agent::{
    BudgetStage, Budgeted, HookStage, Permission, PermissionStage, PreHookOutcome, RunStatus,
};
use tack_protocol::{ContentBlock, ToolOutcome};
use tack_testkit::Step;
use tack_tool::{RegisteredTool, ToolCall, ToolError, ToolOutput};

use crate::support::{Setup, harness, harness_with};

#[tokio::test]
async fn default_stages_pass_the_call_and_output_through() {
    let mut h = harness(vec![
        Step::tool_use("t1", "Echo", json!({"text": "unchanged"})),
        Step::text("ok"),
    ])
    .await;
    h.run("x").await;
    let r = &h.results_in(2)[0];
    assert!(!r.is_error);
    assert_eq!(r.text(), "unchanged");
}

struct DenyEcho;

#[async_trait]
impl PermissionStage for DenyEcho {
    async fn decide(
        &self,
        call: &ToolCall,
        _tool: &RegisteredTool,
        _hook: Option<&tack_agent::HookRuling>,
        _dir: Option<&std::path::Path>,
    ) -> Permission {
        if call.name == "Echo" {
            Permission::Deny {
                reason: "Echo is not allowed here".into(),
                by: "test rule Echo".into(),
            }
        } else {
            Permission::Allow { by: "test".into() }
        }
    }
}

#[tokio::test]
async fn permission_stage_denial_is_a_result_and_the_loop_goes_on() {
    let mut h = harness_with(
        vec![
            Step::tool_uses(vec![
                ("t1", "Echo", json!({"text": "no"})),
                ("t2", "Sleep", json!({"ms": 1})),
            ]),
            Step::text("ok"),
        ],
        Setup {
            customize: Some(Box::new(|b| b.permission(Arc::new(DenyEcho)))),
            ..Setup::default()
        },
    )
    .await;
    let out = h.run("x").await;
    assert_eq!(out.status, RunStatus::Completed);
    let results = h.results_in(2);
    assert!(results[0].is_error);
    assert!(results[0].text().contains("Echo is not allowed here"));
    assert!(results[0].text().contains("test rule Echo"));
    assert!(!results[1].is_error);
    assert_eq!(h.outcomes()[0].1, ToolOutcome::Denied);
    let audits = h.audits();
    assert_eq!(
        (audits[0].decision.as_str(), audits[0].decided_by.as_str()),
        ("deny", "test rule Echo")
    );
    assert_eq!(
        (audits[1].decision.as_str(), audits[1].decided_by.as_str()),
        ("allow", "test")
    );
    assert_eq!(audits[1].definition_hash.len(), 32);
}

struct RewriteAndAnnotate;

#[async_trait]
impl HookStage for RewriteAndAnnotate {
    async fn pre_tool_use(&self, call: &mut ToolCall) -> PreHookOutcome {
        if call.input["text"] == "block me" {
            return PreHookOutcome {
                decision: Some(tack_agent::HookRuling {
                    verdict: tack_protocol::Verdict::Deny,
                    reason: "blocked by hook".into(),
                    by: "hook test.sh".into(),
                }),
                ..PreHookOutcome::default()
            };
        }
        if call.input["text"] == "break me" {
            call.input = json!({"text": 42});
        } else {
            call.input = json!({"text": "rewritten"});
        }
        PreHookOutcome {
            rewritten_by: vec!["hook rewrite.sh".into()],
            ..PreHookOutcome::default()
        }
    }
    async fn post_tool_use(
        &self,
        _call: &ToolCall,
        result: &mut Result<ToolOutput, ToolError>,
        _ran: std::time::Duration,
    ) {
        if let Ok(out) = result {
            out.content.push(ContentBlock::text("post-hook note"));
        }
    }
}

#[tokio::test]
async fn hook_stage_rewrites_input_blocks_and_sees_output() {
    let mut h = harness_with(
        vec![
            Step::tool_uses(vec![
                ("t1", "Echo", json!({"text": "original"})),
                ("t2", "Echo", json!({"text": "block me"})),
                ("t3", "Echo", json!({"text": "break me"})),
            ]),
            Step::text("ok"),
        ],
        Setup {
            customize: Some(Box::new(|b| b.hooks(Arc::new(RewriteAndAnnotate)))),
            ..Setup::default()
        },
    )
    .await;
    h.run("x").await;
    let results = h.results_in(2);
    assert_eq!(results[0].text(), "rewritten\npost-hook note");
    assert!(results[1].is_error && results[1].text().contains("blocked by hook"));
    // A rewrite is validated again: the tool never sees a bad input.
    assert!(
        results[2].is_error && results[2].text().contains("rewrote the input"),
        "{}",
        results[2].text()
    );
    let audits = h.audits();
    assert_eq!(
        audits[0].input,
        json!({"text": "rewritten"}),
        "the audit shows the input as run"
    );
    assert_eq!(audits[0].rewritten_by, ["hook rewrite.sh"]);
    assert_eq!(audits[1].decision, "deny");
    assert_eq!(audits[1].decided_by, "hook test.sh");
}

struct FirstTenBytes;

impl BudgetStage for FirstTenBytes {
    fn apply(
        &self,
        _tool: &str,
        _output: &tack_tool::OutputBehaviour,
        _id: &str,
        content: Vec<ContentBlock>,
    ) -> Budgeted {
        let text: String = content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect();
        Budgeted {
            content: vec![ContentBlock::text(format!(
                "{}[cut]",
                &text[..10.min(text.len())]
            ))],
            artifact: Some("art_test".into()),
        }
    }
}

#[tokio::test]
async fn budget_stage_shapes_every_successful_output() {
    let mut h = harness_with(
        vec![
            Step::tool_use("t1", "Echo", json!({"text": "0123456789abcdef"})),
            Step::text("ok"),
        ],
        Setup {
            customize: Some(Box::new(|b| b.budget(Arc::new(FirstTenBytes)))),
            ..Setup::default()
        },
    )
    .await;
    h.run("x").await;
    assert_eq!(h.results_in(2)[0].text(), "0123456789[cut]");
    assert_eq!(h.audits()[0].artifacts, ["art_test"]);
}

#[tokio::test]
async fn tools_added_mid_session_are_offered_and_never_removed() {
    use tack_tool::{ToolHost as _, ToolRegistry};
    let mut registry = ToolRegistry::new();
    registry.register_typed(tack_testkit::tools::Echo).unwrap();
    let pipeline =
        tack_agent::Pipeline::builder(Arc::new(registry), std::env::temp_dir(), "s").build();
    let before = pipeline.registry();
    let added = pipeline.add_tools(vec![
        Arc::new(tack_tool::Typed(tack_testkit::tools::Sleep)),
        Arc::new(tack_tool::Typed(tack_testkit::tools::Echo)),
    ]);
    assert_eq!(added, ["Sleep"], "an existing name is not replaced");
    let names: Vec<String> = pipeline.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["Echo", "Sleep"], "order kept, new tools at the end");
    assert_eq!(
        before.names(),
        ["Echo"],
        "a snapshot taken earlier is unchanged"
    );
    let result = pipeline
        .call(
            tack_tool::ToolCall {
                id: "t".into(),
                name: "Sleep".into(),
                input: json!({"ms": 1}),
            },
            Default::default(),
        )
        .await;
    assert!(!result.block.is_error, "{:?}", result.block);
}

/// Reports two steps, the second from another task.
struct TwoSteps;

#[async_trait]
impl tack_tool::Tool for TwoSteps {
    fn name(&self) -> &str {
        "TwoSteps"
    }
    fn description(&self) -> &str {
        "Reports progress."
    }
    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(
        &self,
        _input: serde_json::Value,
        ctx: tack_tool::ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let step = |n: f64| tack_tool::Progress {
            progress: n,
            total: Some(2.0),
            message: Some(format!("step {n}")),
        };
        ctx.report(step(1.0));
        tokio::spawn(async move { ctx.report(step(2.0)) })
            .await
            .map_err(|e| ToolError::Internal(e.to_string()))?;
        Ok(ToolOutput::text("ok"))
    }
}

#[tokio::test]
async fn progress_goes_to_the_event_bus_and_to_the_callers_sink() {
    use std::sync::Mutex;
    use tack_protocol::SessionEvent;
    use tack_tool::{ProgressSink, ToolHost as _, ToolRegistry};
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(TwoSteps)).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let bus = tack_agent::EventBus::new().with(Arc::new(move |e: &SessionEvent| {
        seen.lock().unwrap().push(e.clone());
    }));
    let pipeline = tack_agent::Pipeline::builder(Arc::new(registry), std::env::temp_dir(), "s")
        .events(bus)
        .build();
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let call = ToolCall {
        id: "t1".into(),
        name: "TwoSteps".into(),
        input: json!({}),
    };
    let result = pipeline
        .call(
            call,
            tack_tool::CallOptions::default().with_progress(ProgressSink::new(move |p| {
                sink.lock().unwrap().push(p.progress)
            })),
        )
        .await;
    assert!(!result.block.is_error, "{:?}", result.block);
    assert_eq!(*reports.lock().unwrap(), [1.0, 2.0]);
    let events = events.lock().unwrap();
    let progress: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::ToolProgress {
                tool_use_id,
                name,
                progress,
                message,
                ..
            } => Some((
                tool_use_id.as_str(),
                name.as_str(),
                *progress,
                message.clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        [
            ("t1", "TwoSteps", 1.0, Some("step 1".to_owned())),
            ("t1", "TwoSteps", 2.0, Some("step 2".to_owned())),
        ]
    );
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, SessionEvent::ToolProgress { .. }))
            .all(SessionEvent::is_ephemeral)
    );
}

/// Allows every call after "a person" took `.0` to answer.
struct SlowAnswer(std::time::Duration);

#[async_trait]
impl PermissionStage for SlowAnswer {
    async fn decide(
        &self,
        _call: &ToolCall,
        _tool: &RegisteredTool,
        _hook: Option<&tack_agent::HookRuling>,
        _dir: Option<&std::path::Path>,
    ) -> Permission {
        tokio::time::sleep(self.0).await;
        Permission::Allow {
            by: "the user (allow once)".into(),
        }
    }
}

#[tokio::test]
async fn a_calls_duration_leaves_out_the_wait_for_the_person_asked() {
    let wait = std::time::Duration::from_millis(600);
    let mut h = harness_with(
        vec![
            Step::tool_use("t1", "Sleep", json!({"ms": 1})),
            Step::text("ok"),
        ],
        Setup {
            customize: Some(Box::new(move |b| b.permission(Arc::new(SlowAnswer(wait))))),
            ..Setup::default()
        },
    )
    .await;
    h.run("x").await;
    let durations: Vec<u64> = h
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            tack_protocol::SessionEvent::ToolResult { duration_ms, .. } => Some(*duration_ms),
            _ => None,
        })
        .collect();
    assert_eq!(durations.len(), 1);
    assert!(durations[0] < 300, "the wait was counted: {durations:?}");
    let waited = h.audits()[0].permission_wait_ms.unwrap();
    assert!(waited >= 600, "{waited}");
}
