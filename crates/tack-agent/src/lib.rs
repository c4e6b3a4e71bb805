//! The tack agent: the tool-use loop, the scheduler, the one dispatch
//! pipeline every tool call takes, and the session transcript.
//!
//! The agent speaks events: [`Agent::run`] emits [`tack_protocol::SessionEvent`]s
//! on an [`EventBus`]; the transcript writer, the CLI printers and any other
//! consumer observe that stream and never reach into the loop.
//!
//! ```no_run
//! # async fn demo(client: std::sync::Arc<dyn tack_model::ModelClient>) {
//! use std::sync::Arc;
//! use tack_agent::{Agent, AgentConfig, EventBus, Pipeline};
//! use tack_tool::ToolRegistry;
//!
//! let registry = Arc::new(ToolRegistry::new());
//! let events = EventBus::new().with(Arc::new(|e: &tack_protocol::SessionEvent| println!("{e:?}")));
//! let pipeline = Pipeline::builder(registry, "/tmp".into(), "session-1").events(events.clone()).build();
//! let mut agent = Agent::new(client, Arc::new(pipeline), AgentConfig::default(), events);
//! let outcome = agent
//!     .run(Some(vec![tack_protocol::ContentBlock::text("hello")]), &Default::default())
//!     .await;
//! println!("{:?}", outcome.status);
//! # }
//! ```

mod agent;
pub mod budget;
pub mod context;
pub mod conversation;
mod destructive;
mod events;
pub mod hooks;
pub mod permission;
pub mod pipeline;
mod scheduler;
pub mod transcript;

pub use agent::{
    Agent, AgentConfig, CompactError, CompactionReport, DEFAULT_MAX_TOKENS, RunOutcome,
};
pub use context::{CompactionConfig, Threshold, Trigger};
pub use conversation::Conversation;
pub use events::{Emitted, EventBus, EventObserver};
pub use pipeline::{
    AllowAll, BudgetStage, Budgeted, Dispatch, HookRuling, HookStage, NoHooks, Permission,
    PermissionStage, Pipeline, PreHookOutcome, Unlimited, WeakPipeline,
};
pub use tack_protocol::RunStatus;
