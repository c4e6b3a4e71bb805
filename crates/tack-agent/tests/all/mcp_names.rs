//! An MCP tool's own name reaches the policy: a rule `mcp__server__tool`
//! decides the tool the server calls `tool`, whatever model-facing name
//! (cut, or suffixed after a collision) the model called it by.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_agent::PermissionStage;
use tack_agent::permission::PolicyStage;
use tack_policy::PolicyBuilder;
use tack_protocol::ToolOutcome;
use tack_testkit::Step;
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput};

use crate::support::{Setup, harness_with};

/// A tool of server `srv` named `own` there, offered as `name`; it counts
/// its calls.
struct Served {
    name: &'static str,
    own: &'static str,
    calls: Arc<Mutex<usize>>,
}

#[async_trait]
impl Tool for Served {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "A tool of an MCP server."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn mcp_origin(&self) -> Option<(&str, &str)> {
        Some(("srv", self.own))
    }
    async fn call(&self, _input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        *self.calls.lock().unwrap() += 1;
        Ok(ToolOutput::text("ran"))
    }
}

fn stage() -> PolicyStage {
    let dir = std::env::temp_dir();
    let policy = PolicyBuilder::new(&dir)
        .home(None)
        .lexical_only()
        .allow("mcp__srv")
        .deny("mcp__srv__rm_rf")
        .build()
        .unwrap();
    PolicyStage::new(policy, dir.clone(), dir, None, None)
}

#[tokio::test]
async fn a_deny_rule_names_the_tool_by_its_servers_name() {
    let real = Arc::new(Served {
        name: "mcp__srv__rm_rf_502c90",
        own: "rm_rf",
        calls: Arc::default(),
    });
    let other = Arc::new(Served {
        name: "mcp__srv__ls",
        own: "ls",
        calls: Arc::default(),
    });
    let mut h = harness_with(
        vec![
            Step::tool_uses(vec![
                ("t1".to_string(), real.name.to_string(), json!({})),
                ("t2".to_string(), other.name.to_string(), json!({})),
            ]),
            Step::text("done"),
        ],
        Setup {
            tools: vec![real.clone(), other.clone()],
            customize: Some(Box::new(|b| b.permission(Arc::new(stage())))),
            ..Setup::default()
        },
    )
    .await;
    h.run("go").await;
    let outcomes = h.outcomes();
    assert_eq!(outcomes[0].1, ToolOutcome::Denied, "{outcomes:?}");
    assert_eq!(*real.calls.lock().unwrap(), 0);
    assert_eq!(*other.calls.lock().unwrap(), 1);
    // Tool search leaves it out too.
    let stage = stage();
    assert!(
        stage
            .refuses_outright(real.name, Some(("srv", "rm_rf")))
            .is_some()
    );
    assert!(
        stage
            .refuses_outright(other.name, Some(("srv", "ls")))
            .is_none()
    );
}
