//! Fixture tools for tests and demos: predictable, observable and able to
//! misbehave on purpose (sleep, fail with each error kind, panic, hang).
//!
//! `tack run --fixture-tools` registers them (a hidden, test-only flag).
//! Every call of every fixture tool is appended to the file named by the
//! `TACK_FIXTURE_LOG` environment variable when it is set, so a test can check
//! that a retry never ran a tool twice.

use std::io::Write as _;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tack_tool::{
    RegistryError, Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput, ToolRegistry,
    TypedTool,
};

/// A catalog tool: only its definition (name, description, schema), as a
/// session registers an MCP server's tools; a call answers "ok". For
/// measuring what many tools cost (benches).
#[derive(Debug, Clone)]
pub struct Listed {
    pub name: String,
    pub description: String,
    pub schema: Value,
}

#[async_trait]
impl Tool for Listed {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    async fn call(&self, _input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

fn log_call(tool: &str, ctx: &ToolContext) {
    let Some(path) = std::env::var_os("TACK_FIXTURE_LOG") else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{tool} {}", ctx.tool_use_id);
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoInput {
    /// The text to return, e.g. "hello".
    pub text: String,
}

/// Returns its text. Read-only, concurrency-safe.
#[derive(Debug, Default)]
pub struct Echo;

#[async_trait]
impl TypedTool for Echo {
    type Input = EchoInput;
    fn name(&self) -> &str {
        "Echo"
    }
    fn description(&self) -> &str {
        "Returns the given text unchanged. A test fixture: use it when asked to echo something."
    }
    fn is_concurrency_safe(&self, _input: &EchoInput) -> bool {
        true
    }
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }
    async fn call(&self, input: EchoInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        log_call("Echo", &ctx);
        Ok(ToolOutput::text(input.text))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SleepInput {
    /// How long to sleep, in milliseconds.
    pub ms: u64,
}

/// Sleeps, then answers "slept N ms". Concurrency-safe; stops early when cancelled.
#[derive(Debug, Default)]
pub struct Sleep;

#[async_trait]
impl TypedTool for Sleep {
    type Input = SleepInput;
    fn name(&self) -> &str {
        "Sleep"
    }
    fn description(&self) -> &str {
        "Waits for the given number of milliseconds, then returns. A test fixture."
    }
    fn is_concurrency_safe(&self, _input: &SleepInput) -> bool {
        true
    }
    async fn call(&self, input: SleepInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        log_call("Sleep", &ctx);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(input.ms)) => {
                Ok(ToolOutput::text(format!("slept {} ms", input.ms)))
            }
            () = ctx.cancel.cancelled() => Err(ToolError::Interrupted("sleep cancelled".into())),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SleepExclusiveInput {
    /// How long to sleep, in milliseconds.
    pub ms: u64,
}

/// Like Sleep, but not concurrency-safe (runs alone, in order).
#[derive(Debug, Default)]
pub struct SleepExclusive;

#[async_trait]
impl TypedTool for SleepExclusive {
    type Input = SleepExclusiveInput;
    fn name(&self) -> &str {
        "SleepExclusive"
    }
    fn description(&self) -> &str {
        "Waits for the given number of milliseconds, alone. A test fixture."
    }
    async fn call(
        &self,
        input: SleepExclusiveInput,
        ctx: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        log_call("SleepExclusive", &ctx);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(input.ms)) => {
                Ok(ToolOutput::text(format!("slept {} ms", input.ms)))
            }
            () = ctx.cancel.cancelled() => Err(ToolError::Interrupted("sleep cancelled".into())),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailKind {
    InvalidInput,
    Denied,
    Transient,
    Unavailable,
    Internal,
    Panic,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FailInput {
    /// Which failure to produce.
    pub kind: FailKind,
}

/// Fails the way it is told to (or panics).
#[derive(Debug, Default)]
pub struct Fail;

#[async_trait]
impl TypedTool for Fail {
    type Input = FailInput;
    fn name(&self) -> &str {
        "Fail"
    }
    fn description(&self) -> &str {
        "Fails with the requested error kind, or panics. A test fixture."
    }
    async fn call(&self, input: FailInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        log_call("Fail", &ctx);
        match input.kind {
            FailKind::InvalidInput => Err(ToolError::InvalidInput("fixture: bad input".into())),
            FailKind::Denied => Err(ToolError::Denied("fixture: denied".into())),
            FailKind::Transient => Err(ToolError::Transient("fixture: flaky".into())),
            FailKind::Unavailable => Err(ToolError::Unavailable("fixture: gone".into())),
            FailKind::Internal => Err(ToolError::Internal("fixture: bug".into())),
            FailKind::Panic => panic!("fixture tool panicked on purpose"),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct HangInput {}

/// Never returns and ignores cancellation: the harness must time it out or abort it.
#[derive(Debug, Default)]
pub struct Hang;

#[async_trait]
impl TypedTool for Hang {
    type Input = HangInput;
    fn name(&self) -> &str {
        "Hang"
    }
    fn description(&self) -> &str {
        "Never returns and ignores cancellation. A test fixture."
    }
    fn timeout(&self) -> Option<Duration> {
        std::env::var("TACK_FIXTURE_HANG_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis)
    }
    async fn call(&self, _input: HangInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        log_call("Hang", &ctx);
        std::future::pending::<()>().await;
        Ok(ToolOutput::default())
    }
}

/// Registers every fixture tool.
pub fn register_fixture_tools(registry: &mut ToolRegistry) -> Result<(), RegistryError> {
    registry.register_typed(Echo)?;
    registry.register_typed(Sleep)?;
    registry.register_typed(SleepExclusive)?;
    registry.register_typed(Fail)?;
    registry.register_typed(Hang)?;
    Ok(())
}
