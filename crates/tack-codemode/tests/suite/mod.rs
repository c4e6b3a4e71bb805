//! Shared helpers: [`Fixture`], a bridge with a handful of tools, and `run`
//! helpers so each test reads as code, then expectation.

mod code_tool;
mod errors;
mod escape;
mod limits;
mod output;
mod tools;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tack_codemode::{BridgeError, CodeError, FoundTool, Limits, RunError, RunOutput, ToolBridge};

/// A bridge whose tools do what their names say:
/// - `Echo` answers its input;
/// - `Slow` sleeps `input.ms` (default 200) and answers `{ slept: ms }`;
/// - `Fail` fails with `input.kind` and `input.message`;
/// - `Hang` never answers;
/// - `mcp__github__list_issues` answers two issues;
/// - `Weather` is only found by `tools.search("weather")`.
///
/// It records every call it gets.
#[derive(Default)]
pub struct Fixture {
    pub calls: Mutex<Vec<(String, Value)>>,
}

impl Fixture {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn calls(&self) -> Vec<(String, Value)> {
        self.calls.lock().unwrap().clone()
    }
}

#[async_trait::async_trait]
impl ToolBridge for Fixture {
    fn names(&self) -> Vec<String> {
        ["Echo", "Slow", "Fail", "Hang", "mcp__github__list_issues"]
            .map(str::to_owned)
            .to_vec()
    }

    async fn call(&self, name: &str, input: Value) -> Result<Value, BridgeError> {
        self.calls
            .lock()
            .unwrap()
            .push((name.to_owned(), input.clone()));
        match name {
            "Echo" => Ok(input),
            "Slow" => {
                let ms = input["ms"].as_u64().unwrap_or(200);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(json!({ "slept": ms }))
            }
            "Fail" => Err(BridgeError::new(
                input["kind"].as_str().unwrap_or("denied"),
                input["message"].as_str().unwrap_or("refused by a rule"),
            )),
            "Hang" => std::future::pending().await,
            "mcp__github__list_issues" => Ok(json!([
                { "number": 1, "title": "first", "comments": 0 },
                { "number": 2, "title": "second", "comments": 3 },
            ])),
            "Weather" => Ok(json!({ "temp": 20 })),
            other => Err(BridgeError::new("not_found", format!("no tool {other}"))),
        }
    }

    async fn search(&self, query: &str) -> Result<Vec<FoundTool>, BridgeError> {
        Ok(if query.contains("weather") {
            vec![FoundTool {
                name: "Weather".to_owned(),
                description: "Today's weather.".to_owned(),
                declaration: Some("Weather(input: {}): {temp: number}".to_owned()),
            }]
        } else {
            Vec::new()
        })
    }
}

/// Limits for tests: the defaults with a 10 s wall time, so a hang fails
/// the test rather than stalling it.
pub fn limits() -> Limits {
    Limits {
        wall_time: Duration::from_secs(10),
        ..Limits::default()
    }
}

pub async fn run_with(code: &str, limits: &Limits) -> Result<RunOutput, RunError> {
    tack_codemode::run(code, limits, Fixture::new()).await
}

/// Runs `code` with [`limits`]; it must finish.
pub async fn ok(code: &str) -> RunOutput {
    match run_with(code, &limits()).await {
        Ok(out) => out,
        Err(e) => panic!("the run failed: {e}\nconsole: {}", e.console.render()),
    }
}

/// Runs `code` with [`limits`]; it must fail.
pub async fn fails(code: &str) -> RunError {
    fails_with(code, &limits()).await
}

pub async fn fails_with(code: &str, limits: &Limits) -> RunError {
    match run_with(code, limits).await {
        Ok(out) => panic!("the run finished: {out:?}"),
        Err(e) => e,
    }
}

/// What the program returned.
pub async fn value(code: &str) -> Value {
    ok(code).await.value.unwrap_or(Value::Null)
}

/// The script error of an uncaught exception.
pub fn uncaught(e: &RunError) -> &tack_codemode::ScriptError {
    match &e.error {
        CodeError::Uncaught(s) => s,
        other => panic!("not an uncaught exception: {other:?}"),
    }
}
