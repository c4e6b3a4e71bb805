//! The dispatch pipeline's pluggable stages: pass-through by default, and each
//! one really in the path (a stage that refuses or rewrites changes the result).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use tack_agent::{BudgetStage, HookStage, Permission, PermissionStage, PreHook, RunStatus};
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
    async fn decide(&self, call: &ToolCall, _tool: &RegisteredTool) -> Permission {
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
}

struct RewriteAndAnnotate;

#[async_trait]
impl HookStage for RewriteAndAnnotate {
    async fn pre_tool_use(&self, call: &mut ToolCall) -> PreHook {
        if call.input["text"] == "block me" {
            return PreHook::Deny {
                reason: "blocked by hook".into(),
                by: "hook test.sh".into(),
            };
        }
        call.input = json!({"text": "rewritten"});
        PreHook::Continue
    }
    async fn post_tool_use(&self, _call: &ToolCall, result: &mut Result<ToolOutput, ToolError>) {
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
}

struct FirstTenBytes;

impl BudgetStage for FirstTenBytes {
    fn apply(&self, _tool: &str, _id: &str, output: ToolOutput) -> ToolOutput {
        let text: String = output
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect();
        ToolOutput::text(format!("{}[cut]", &text[..10.min(text.len())]))
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
}
