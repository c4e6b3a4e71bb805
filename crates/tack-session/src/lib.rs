//! A tack session as a library: what turns settings into a running session.
//!
//! The key design decisions:
//! - **Settings are read once into typed sections** ([`SessionSettings`]):
//!   permissions (tack-policy's rule semantics), hooks, MCP servers, output
//!   budget, WebFetch, WebSearch; coming sections read their key with
//!   [`SessionSettings::section`].
//! - **Tools come from sources** ([`ToolSource`]): built-ins, MCP servers,
//!   fixtures, an embedder's Rust tools. Each contributes to one registry;
//!   a new kind of tool is a new source, not a new branch in assembly.
//! - **Everything that needs a person is an [`Interaction`]**: the
//!   [`Terminal`], [`Headless`] (an ask is a deny naming the rule or flag
//!   that would allow it), [`PromptTool`] (an ask goes to an MCP tool,
//!   `--permission-prompt-tool`) or [`Scripted`] (tests, embedders).
//! - **A checked-in project file is not the user's word**: its hooks, a
//!   permissive mode, directories outside the project and wide allow rules
//!   apply only once the user approves them ([`UntrustedSettings`], asked
//!   through the [`Interaction`] when a session is assembled).
//! - **The system prompt is built once, at assembly** ([`SessionPrompt`]):
//!   the environment, how to use the tools the session has, and the
//!   instruction files (`CLAUDE.md`, `AGENTS.md`… with `@path` imports);
//!   every request sends the same bytes, so prompt caching holds.
//! - **The lifecycle happens once**: [`Session::begin`] emits
//!   `session_start` and runs SessionStart hooks, [`Session::end`] runs
//!   SessionEnd hooks and shuts the sources down.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use tack_session::{ProjectContext, Session, SessionOptions};
//!
//! let project = ProjectContext::load(None, &Default::default())?;
//! let session = Session::assemble(&project, SessionOptions::new(SessionOptions::new_id())).await?;
//! let client: Arc<dyn tack_model::ModelClient> =
//!     Arc::from(tack_model::select_provider(&Default::default(), &|k| std::env::var(k).ok()).await?);
//! let outcome = session.run(client, Default::default(), "hello", &Default::default()).await;
//! println!("{}", outcome.text);
//! # Ok(()) }
//! ```
//! `examples/embed.rs` registers a Rust tool and runs against the built-in mock.

pub mod agents;
mod checkout;
pub mod code_mode;
pub mod declared;
mod error;
mod interaction;
mod project;
pub mod prompt;
mod prompt_tool;
mod sampling;
mod sandbox;
pub mod sandbox_settings;
mod session;
mod settings;
pub mod skills;
pub mod sources;
pub mod subagent;
mod terminal;
pub mod tool_search;
mod trust;

pub use error::{Error, Result};
pub use interaction::{Asked, Headless, Interaction, Scripted, SkillApproval};
pub use project::{ProjectContext, managed_settings_file};
pub use prompt::{
    Environment, InstructionSources, PromptGate, PromptOptions, ReadGate, SessionPrompt,
};
pub use prompt_tool::{PROMPT_TOOL_TIMEOUT, PromptTool};
pub use sandbox_settings::{SandboxSettings, SettingOrigin};
pub use session::{Begin, ModeSwitch, Resume, Session, SessionOptions, find_session};
pub use settings::{OutputBudgetSettings, SamplingGrant, Section, SessionSettings, ToolExamples};
pub use sources::{ToolSource, default_sources};
pub use subagent::{AGENT_TOOL, AgentInput};
pub use terminal::Terminal;
pub use trust::{HookCommand, UntrustedSettings, WideRule};

pub use tack_agent::permission::{PromptAnswer, PromptRequest};
pub use tack_protocol::exit;
