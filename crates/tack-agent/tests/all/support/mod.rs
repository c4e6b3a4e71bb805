//! A small harness so each test reads as setup, action, expectation.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tack_agent::{Agent, AgentConfig, EventBus, Pipeline, RunOutcome};
use tack_model::{ProviderKind, ProviderOptions, RetryPolicy, select_provider};
use tack_protocol::{ContentBlock, Message, SessionEvent, ToolOutcome, ToolResultBlock};
use tack_testkit::{MockServer, Step};
use tack_tool::ToolRegistry;
use tokio_util::sync::CancellationToken;

pub struct Harness {
    pub mock: MockServer,
    pub events: Arc<Mutex<Vec<SessionEvent>>>,
    pub agent: Agent,
}

pub struct Setup {
    pub provider: ProviderKind,
    pub stream: bool,
    pub config: AgentConfig,
    pub tool_timeout: Option<Duration>,
    pub customize: Option<
        Box<
            dyn FnOnce(
                tack_agent::pipeline::PipelineBuilder,
            ) -> tack_agent::pipeline::PipelineBuilder,
        >,
    >,
    /// Hooks for both the pipeline and the loop.
    pub hooks: Option<Arc<tack_agent::hooks::HookRunner>>,
    /// Tools registered besides the fixture tools.
    pub tools: Vec<Arc<dyn tack_tool::Tool>>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            provider: ProviderKind::Anthropic,
            stream: true,
            config: AgentConfig::default(),
            tool_timeout: None,
            customize: None,
            hooks: None,
            tools: Vec::new(),
        }
    }
}

pub async fn harness(steps: Vec<Step>) -> Harness {
    harness_with(steps, Setup::default()).await
}

pub async fn harness_with(steps: Vec<Step>, setup: Setup) -> Harness {
    let mock = MockServer::start().await;
    mock.push_all(steps);
    let env = move |k: &str| match k {
        "ANTHROPIC_API_KEY" | "OPENAI_API_KEY" => Some("test-key".to_owned()),
        _ => None,
    };
    let client = select_provider(
        &ProviderOptions {
            provider: Some(setup.provider),
            model: Some("mock-model".into()),
            base_url: Some(mock.url()),
            stream: setup.stream,
            retry: RetryPolicy::fast(3),
            ..Default::default()
        },
        &env,
    )
    .await
    .expect("provider");
    let mut registry = ToolRegistry::new();
    tack_testkit::tools::register_fixture_tools(&mut registry).unwrap();
    for tool in setup.tools {
        registry.register(tool).unwrap();
    }
    let events: Arc<Mutex<Vec<SessionEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let bus = EventBus::new().with(Arc::new(move |e: &SessionEvent| {
        sink.lock().unwrap().push(e.clone());
    }));
    let mut builder = Pipeline::builder(Arc::new(registry), std::env::temp_dir(), "test-session")
        .events(bus.clone());
    if let Some(t) = setup.tool_timeout {
        builder = builder.default_timeout(t);
    }
    if let Some(customize) = setup.customize {
        builder = customize(builder);
    }
    if let Some(hooks) = &setup.hooks {
        builder = builder.hooks(hooks.clone());
    }
    let mut config = setup.config;
    config.stream = setup.stream;
    let mut agent = Agent::new(Arc::from(client), Arc::new(builder.build()), config, bus);
    if let Some(hooks) = setup.hooks {
        agent = agent.with_hooks(hooks);
    }
    Harness {
        mock,
        events,
        agent,
    }
}

impl Harness {
    pub async fn run(&mut self, prompt: &str) -> RunOutcome {
        self.agent
            .run(
                Some(vec![ContentBlock::text(prompt)]),
                &CancellationToken::new(),
            )
            .await
    }

    /// The tool results of the conversation's message `index`.
    pub fn results_in(&self, index: usize) -> Vec<ToolResultBlock> {
        results_of(&self.agent.messages()[index])
    }

    /// Every ToolResult event: (tool_use_id, outcome).
    pub fn outcomes(&self) -> Vec<(String, ToolOutcome)> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolResult {
                    tool_use_id,
                    outcome,
                    ..
                } => Some((tool_use_id.clone(), *outcome)),
                _ => None,
            })
            .collect()
    }

    /// The audit record of every dispatched call, sorted by tool_use id
    /// (concurrent calls finish in any order).
    pub fn audits(&self) -> Vec<tack_protocol::AuditRecord> {
        let mut audits: Vec<(String, tack_protocol::AuditRecord)> = self
            .events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolResult {
                    audit, tool_use_id, ..
                } => audit.clone().map(|a| (tool_use_id.clone(), *a)),
                _ => None,
            })
            .collect();
        audits.sort_by(|a, b| a.0.cmp(&b.0));
        audits.into_iter().map(|(_, a)| a).collect()
    }

    /// How many tool calls actually started executing (ToolCall events).
    pub fn calls(&self) -> usize {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, SessionEvent::ToolCall { .. }))
            .count()
    }

    /// The bodies of requests the mock accepted.
    pub fn bodies(&self) -> Vec<Value> {
        let rejected = self.mock.rejections();
        assert!(
            rejected.is_empty(),
            "the mock rejected requests: {:?}",
            rejected.iter().map(|r| r.error.clone()).collect::<Vec<_>>()
        );
        self.mock.requests().into_iter().map(|r| r.body).collect()
    }
}

pub fn results_of(message: &Message) -> Vec<ToolResultBlock> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}
