//! Code mode's engine: runs one async JavaScript program in a fresh QuickJS
//! runtime and returns what it printed and returned.
//!
//! **Key decision: the program's only way out is the tools it is handed.**
//! Each run gets a new [`rquickjs`] runtime and context holding only the
//! standard ECMAScript built-ins, plus `console` (captured) and `tools`
//! (calls to a [`ToolBridge`]). There is no file system, network, clock
//! other than `Date`, environment, process, module loading (`import`,
//! `import()`, `require`), timer (`setTimeout`), `fetch`, `process` or
//! `Deno`; nothing one run does is visible to the next. Every effect goes
//! through the bridge, which decides what each call may do.
//!
//! ## How a program is written
//! The code is the **body of an async function**: top-level `await` works,
//! and `return` gives the run's value (as JSON; `undefined`, a function or a
//! symbol gives none; a value JSON cannot hold, a cycle or a BigInt, gives its
//! string). The code runs in sloppy mode, as a script.
//!
//! ```js
//! const issues = await tools["mcp__github__list_issues"]({ state: "open" });
//! const stale = issues.filter((i) => i.comments === 0);
//! console.log(`${stale.length} of ${issues.length} have no comments`);
//! return stale.map((i) => i.number);
//! ```
//!
//! - `tools[name](input)` calls a tool: a promise that resolves with the JSON
//!   the bridge answers and rejects with an `Error` named `ToolError` that has
//!   `kind` (the tool's error kind), `message` and `tool`. `input` is any JSON
//!   value (`{}` when left out).
//! - **Unknown names are `undefined`**: `tools.nope` is `undefined`, and
//!   calling it throws a `TypeError` the program can catch (`"nope" in tools`
//!   tests for a tool). `tools` has no prototype, and `Object.keys(tools)`
//!   lists exactly the callable tools.
//! - `await tools.search(query)` asks the bridge for more tools: it resolves
//!   with `[{name, description, declaration?}]`, and each tool found is
//!   callable as `tools[name]` from then on.
//! - `Promise.all([...])` over calls runs them **concurrently**: the runtime
//!   polls every call's future together. Whether two calls may really run at
//!   once is the bridge's decision.
//! - `console.log`, `info`, `debug`, `warn` and `error` print one line each
//!   (arguments joined by spaces; strings as they are, other values as compact
//!   JSON), kept in order up to [`Limits::max_output_bytes`].
//! - Calls still running when the program returns (started without `await`)
//!   are waited for, within the wall time. A rejection nothing handles in a
//!   promise the program did not await is ignored (the program's own promise
//!   is what counts).
//!
//! ## Threads
//! While the program computes, it holds the thread that polls the run (the
//! interrupt handler, not the async runtime, stops it at the wall time or on
//! cancel); while it waits for tools it yields. The run's future is `Send`,
//! so it may move between a multi-threaded runtime's workers; the stack limit
//! must fit the stack of whichever thread polls it ([`Limits::stack_bytes`]).
//!
//! ## Limits
//! [`Limits`] bounds memory, wall time (computing and waiting on tools
//! alike), native stack, tool calls and console output. Each limit hit is
//! named with its value in the [`CodeError`] it ends the run with; the call
//! past [`Limits::max_calls`] rejects with kind `limit` (catchable), and
//! output past the cap is dropped and counted ([`Console`]). Syntax errors
//! and uncaught exceptions come back as a [`ScriptError`] with line and
//! column in the code as written and a short stack trace.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use serde_json::{Value, json};
//! use tack_codemode::{BridgeError, Limits, ToolBridge};
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl ToolBridge for Echo {
//!     fn names(&self) -> Vec<String> {
//!         vec!["Echo".to_owned()]
//!     }
//!     async fn call(&self, _name: &str, input: Value) -> Result<Value, BridgeError> {
//!         Ok(input)
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let code = r#"
//!     const [a, b] = await Promise.all([tools.Echo({ n: 1 }), tools.Echo({ n: 2 })]);
//!     console.log("sum", a.n + b.n);
//!     return { sum: a.n + b.n };
//! "#;
//! let out = tack_codemode::run(code, &Limits::default(), Arc::new(Echo)).await?;
//! assert_eq!(out.console.render(), "sum 3");
//! assert_eq!(out.value, Some(json!({ "sum": 3 })));
//! assert_eq!(out.calls, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok(())
//! # }
//! ```

mod bridge;
mod console;
mod engine;
mod error;
mod globals;
mod limits;
mod thrown;

pub mod declare;
pub mod tool;

pub use bridge::{BridgeError, FoundTool, ToolBridge};
pub use console::{Console, Level, Line};
pub use engine::{run, run_cancellable};
pub use error::{CodeError, RunError, ScriptError};
pub use limits::{Bytes, Limits};

/// What a run that finished gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// What the program returned, as JSON (`None` for `undefined`).
    pub value: Option<serde_json::Value>,
    /// What it printed.
    pub console: Console,
    /// Tool calls it made (and `tools.search` requests).
    pub calls: u32,
}

/// A run's result.
pub type Result<T, E = RunError> = std::result::Result<T, E>;
