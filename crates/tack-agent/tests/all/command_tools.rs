//! Command tools (a tool that runs one argv, `Tool::command_line`): the
//! permission stage decides on the argv the call would run, the prompt
//! shows it, plan mode runs the read-only ones, and the audit records it.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_agent::permission::{PolicyStage, PromptAnswer, PromptRequest, Prompter};
use tack_agent::{Permission, PermissionStage};
use tack_policy::{Mode, PolicyBuilder};
use tack_protocol::ToolOutcome;
use tack_testkit::Step;
use tack_tool::{
    Tool, ToolAnnotations, ToolCall, ToolContext, ToolError, ToolOutput, ToolRegistry,
};

use crate::support::{Setup, harness_with};

const PROGRAM: &str = "/opt/tack-test/bin/deployer";

/// A command tool `name` that would run `deployer <verb> <target>`; it
/// records the argv of each call it gets instead of running it.
struct Deployer {
    name: &'static str,
    verb: &'static str,
    read_only: bool,
    ran: Arc<Mutex<Vec<Vec<String>>>>,
}

impl Deployer {
    fn new(name: &'static str, verb: &'static str, read_only: bool) -> Arc<Self> {
        Arc::new(Self {
            name,
            verb,
            read_only,
            ran: Arc::default(),
        })
    }

    fn argv(&self, target: &str) -> Vec<String> {
        vec![PROGRAM.into(), self.verb.into(), target.into()]
    }

    fn ran(&self) -> Vec<Vec<String>> {
        self.ran.lock().unwrap().clone()
    }
}

#[async_trait]
impl Tool for Deployer {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "Runs the deployer on a target."
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"target": {"type": "string"}},
            "required": ["target"],
        })
    }
    fn annotations(&self) -> ToolAnnotations {
        if self.read_only {
            ToolAnnotations::read_only()
        } else {
            ToolAnnotations::default()
        }
    }
    fn command_line(&self, input: &Value) -> Option<Vec<String>> {
        input["target"].as_str().map(|t| self.argv(t))
    }
    async fn call(&self, input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let argv = self
            .command_line(&input)
            .ok_or_else(|| ToolError::InvalidInput("no target".into()))?;
        let text = format!("ran {}", tack_policy::command_text(&argv));
        self.ran.lock().unwrap().push(argv);
        Ok(ToolOutput::text(text))
    }
}

/// The permission stage with `rules` (`allow …`, `deny …`, `mode …`) and
/// nobody to ask, or `prompter`.
fn stage(rules: &[&str], prompter: Option<Arc<dyn Prompter>>) -> PolicyStage {
    let dir = std::env::temp_dir();
    let mut b = PolicyBuilder::new(&dir).home(None).lexical_only();
    for rule in rules {
        b = match rule.split_once(' ').unwrap() {
            ("allow", r) => b.allow(r),
            ("deny", r) => b.deny(r),
            ("mode", m) => b.mode(m.parse::<Mode>().unwrap()),
            other => panic!("{other:?}"),
        };
    }
    PolicyStage::new(b.build().unwrap(), dir.clone(), dir, prompter, None)
}

/// The loop with `tools` and the policy stage of `rules`, the model calling
/// `calls` (id, tool, target) in one turn.
async fn run(
    tools: Vec<Arc<dyn Tool>>,
    rules: &'static [&'static str],
    calls: &[(&str, &str, &str)],
) -> crate::support::Harness {
    let uses: Vec<(String, String, Value)> = calls
        .iter()
        .map(|(id, tool, target)| (id.to_string(), tool.to_string(), json!({"target": target})))
        .collect();
    let mut h = harness_with(
        vec![Step::tool_uses(uses), Step::text("done")],
        Setup {
            tools,
            customize: Some(Box::new(move |b| {
                b.permission(Arc::new(stage(rules, None)))
            })),
            ..Setup::default()
        },
    )
    .await;
    h.run("deploy").await;
    h
}

#[tokio::test]
async fn a_deny_rule_on_the_argv_denies_and_an_allow_rule_runs_it() {
    let deploy = Deployer::new("deploy", "deploy", false);
    let h = run(
        vec![deploy.clone()],
        &[
            "allow deploy(deployer deploy *)",
            "deny deploy(/opt/tack-test/bin/deployer deploy production)",
        ],
        &[
            ("t1", "deploy", "production"),
            ("t2", "deploy", "staging"),
            ("t3", "deploy", "production eu"),
        ],
    )
    .await;
    let results = h.results_in(2);
    // The model reads what was refused (the argv) and which rule refused it.
    assert!(results[0].is_error);
    let text = results[0].text();
    assert!(
        text.contains("deploy(deployer deploy production)"),
        "{text}"
    );
    assert!(
        text.contains("deploy(/opt/tack-test/bin/deployer deploy production)"),
        "{text}"
    );
    assert_eq!(h.outcomes()[0].1, ToolOutcome::Denied);
    // Allowed: it ran, with that argv, and the audit records the argv.
    assert!(!results[1].is_error, "{}", results[1].text());
    assert_eq!(
        results[1].text(),
        "ran /opt/tack-test/bin/deployer deploy staging"
    );
    // One argument holding a space is not the denied argv: the allow rule's
    // `*` takes it.
    assert!(!results[2].is_error, "{}", results[2].text());
    assert_eq!(
        deploy.ran(),
        [deploy.argv("staging"), deploy.argv("production eu")]
    );
    let audits = h.audits();
    assert_eq!(audits[0].decision, "deny");
    assert!(
        audits[0].decided_by.contains("deny rule"),
        "{}",
        audits[0].decided_by
    );
    assert_eq!(audits[0].argv, None, "a denied call ran nothing");
    assert_eq!(audits[1].argv, Some(deploy.argv("staging")));
    assert!(audits[1].decided_by.contains("deploy(deployer deploy *)"));
    assert_eq!(audits[2].argv, Some(deploy.argv("production eu")));
    // The audit line as a transcript stores it.
    let stored = serde_json::to_value(&audits[1]).unwrap();
    assert_eq!(stored["argv"], json!([PROGRAM, "deploy", "staging"]));
    assert!(
        serde_json::to_value(&audits[0])
            .unwrap()
            .get("argv")
            .is_none()
    );
}

#[tokio::test]
async fn plan_mode_runs_a_read_only_command_tool_only() {
    let status = Deployer::new("status", "status", true);
    let deploy = Deployer::new("deploy", "deploy", false);
    let h = run(
        vec![status.clone(), deploy.clone()],
        &["mode plan", "allow status", "allow deploy"],
        &[("t1", "status", "staging"), ("t2", "deploy", "staging")],
    )
    .await;
    let results = h.results_in(2);
    assert!(!results[0].is_error, "{}", results[0].text());
    assert_eq!(status.ran(), [status.argv("staging")]);
    assert!(results[1].is_error);
    assert!(
        results[1].text().contains("plan mode"),
        "{}",
        results[1].text()
    );
    assert!(deploy.ran().is_empty());
}

/// Answers every prompt with `answer` and keeps what it was shown.
struct Person {
    answer: PromptAnswer,
    shown: Mutex<Vec<PromptRequest>>,
}

#[async_trait]
impl Prompter for Person {
    async fn ask(&self, request: &PromptRequest) -> PromptAnswer {
        self.shown.lock().unwrap().push(request.clone());
        self.answer.clone()
    }
}

async fn decide(
    rules: &[&str],
    answer: PromptAnswer,
    target: &str,
) -> (Permission, Vec<PromptRequest>) {
    let person = Arc::new(Person {
        answer,
        shown: Mutex::default(),
    });
    let stage = stage(rules, Some(person.clone()));
    let mut registry = ToolRegistry::new();
    registry
        .register(Deployer::new("deploy", "deploy", false))
        .unwrap();
    let call = ToolCall {
        id: "t1".into(),
        name: "deploy".into(),
        input: json!({"target": target}),
    };
    let permission = stage
        .decide(&call, registry.get("deploy").unwrap(), None, None)
        .await;
    let shown = person.shown.lock().unwrap().clone();
    (permission, shown)
}

#[tokio::test]
async fn the_prompt_shows_the_argv_and_offers_the_tool() {
    let (permission, shown) = decide(&[], PromptAnswer::AllowOnce, "eu west").await;
    assert!(
        matches!(permission, Permission::Allow { .. }),
        "{permission:?}"
    );
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].call, "deploy(deployer deploy 'eu west')");
    assert_eq!(shown[0].always_rule.as_deref(), Some("deploy"));
    assert_eq!(shown[0].input, json!({"target": "eu west"}));
}

#[tokio::test]
async fn a_changed_input_meets_the_argv_rules_again() {
    let answer = PromptAnswer::AllowWithInput {
        input: json!({"target": "production"}),
        by: "the reviewer".into(),
    };
    let (permission, shown) = decide(
        &["deny deploy(deployer deploy production)"],
        answer,
        "staging",
    )
    .await;
    assert_eq!(shown[0].call, "deploy(deployer deploy staging)");
    assert!(
        matches!(&permission, Permission::Deny { reason, .. }
            if reason.contains("deploy(deployer deploy production)")),
        "{permission:?}"
    );
}
