//! The `Code` tool: a program the model writes, run by the engine, whose
//! every tool call goes back through the session's pipeline.
//!
//! Key decision: the bridge is the call's [`HostHandle`]. A nested call is
//! an ordinary call of the host (validation, hooks, permission rules, audit)
//! whose audit record names this `Code` call as its caller, so a call denied
//! when the model makes it is denied from code too. It asks for its result
//! whole ([`CallOptions::full_output`]): the point of code is to filter it,
//! and what the program prints meets the output budget once, as this tool's
//! result. Calls run together under `Promise.all` only when the host says
//! each may (the loop's scheduler rule); the others run one at a time.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_protocol::ToolOutcome;
use tack_tool::{
    CallOptions, HostHandle, OutputBehaviour, Tool, ToolCall, ToolContext, ToolError, ToolOutput,
};
use tokio_util::sync::CancellationToken;

use crate::{BridgeError, CodeError, FoundTool, Limits, ToolBridge};

/// The tool's name.
pub const NAME: &str = "Code";

/// Which tools a program may call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Callable {
    /// Every tool of the session but `Code` itself.
    #[default]
    All,
    /// Only these (names, or prefixes ending in `*`).
    Only(Vec<String>),
}

impl Callable {
    /// Whether a program may call `name` (never `Code` itself).
    pub fn allows(&self, name: &str) -> bool {
        name != NAME
            && match self {
                Callable::All => true,
                Callable::Only(patterns) => patterns.iter().any(|p| match p.strip_suffix('*') {
                    Some(prefix) => name.starts_with(prefix),
                    None => p == name,
                }),
            }
    }
}

/// Runs a JavaScript program that calls the session's tools.
#[derive(Debug, Clone)]
pub struct CodeTool {
    limits: Limits,
    callable: Callable,
    description: String,
    /// `tools.search`'s index, kept across runs and built again only when
    /// the tools a program may call have changed.
    index: Arc<SearchCell>,
}

/// The index `tools.search` last built, and the tools it was built over.
type SearchCell = Mutex<Option<Arc<Searched>>>;

/// An index over the tools whose names hash to `key`.
#[derive(Debug)]
struct Searched {
    key: u64,
    index: tack_tools::tool_search::ToolIndex,
}

impl CodeTool {
    /// `limits` bound each run (a call's `timeout_ms` may only lower the
    /// wall time); `callable` says which tools a program may call;
    /// `declarations` (how to call them, e.g. TypeScript-style signatures)
    /// is appended to the description.
    pub fn new(limits: Limits, callable: Callable, declarations: &str) -> Self {
        let mut description = format!(
            "Runs a short JavaScript program that calls tools, and returns only what it prints \
             and returns. Use it when a task needs many calls, or a filter or sum over a large \
             result: the intermediate results stay in the program instead of coming back to \
             you. The code is the body of an async function: `await tools.Read({{file_path}})` \
             or `await tools[\"mcp__server__tool\"]({{…}})` calls a tool and resolves with its \
             structured result when it has one, else its text; a failed call rejects with an \
             Error whose `kind` and `message` say why (catch it to go on). `Promise.all` over \
             read-only calls runs them at the same time. `console.log` and the value you \
             `return` are the result. `await tools.search(\"words\")` finds more tools and \
             makes them callable. There is no file system, network, environment, timer or \
             module here: everything goes through tools, under the same permission rules as \
             your own calls. Limits: {} s, {} of memory, {} tool calls per run.",
            limits.wall_time.as_secs_f64(),
            crate::Bytes(limits.memory_bytes),
            limits.max_calls
        );
        if !declarations.is_empty() {
            description.push_str("\n\n`tools` has these methods:\n");
            description.push_str(declarations);
        }
        Self {
            limits,
            callable,
            description,
            index: Arc::default(),
        }
    }
}

#[async_trait]
impl Tool for CodeTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": "The body of an async function: await tool calls, console.log what matters, return a value."
                },
                "timeout_ms": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "A shorter wall-time limit for this run, in milliseconds."
                }
            },
            "required": ["code"],
            "additionalProperties": false
        })
    }

    fn timeout(&self) -> Option<Duration> {
        // The engine enforces the wall time and names it; the pipeline's
        // own timeout is a backstop a little later.
        Some(self.limits.wall_time + Duration::from_secs(5))
    }

    fn output(&self) -> OutputBehaviour {
        OutputBehaviour::default()
    }

    async fn call(&self, input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let code = input
            .get("code")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if code.trim().is_empty() {
            return Err(ToolError::InvalidInput(
                "the code is empty: write the body of an async function that calls tools".into(),
            ));
        }
        let mut limits = self.limits.clone();
        if let Some(ms) = input.get("timeout_ms").and_then(Value::as_u64) {
            limits.wall_time = limits.wall_time.min(Duration::from_millis(ms));
        }
        let bridge = Arc::new(HostBridge {
            host: ctx.host.clone(),
            callable: self.callable.clone(),
            call_id: ctx.tool_use_id.clone(),
            cancel: ctx.cancel.clone(),
            next: AtomicU32::new(1),
            exclusive: tokio::sync::RwLock::new(()),
            index: Arc::clone(&self.index),
        });
        match crate::run_cancellable(code, &limits, bridge, &ctx.cancel).await {
            Ok(out) => {
                let mut text = out.console.render();
                if let Some(value) = &out.value {
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(&format!("returned: {value}"));
                }
                if text.is_empty() {
                    text = format!(
                        "the program printed and returned nothing ({} tool calls)",
                        out.calls
                    );
                }
                Ok(ToolOutput::text(text)
                    .with_structured(json!({"value": out.value, "calls": out.calls})))
            }
            Err(failed) => {
                let mut text = failed.error.to_string();
                if !failed.console.is_empty() {
                    text.push_str("\nIt printed before that:\n");
                    text.push_str(&failed.console.render());
                }
                Err(match failed.error {
                    CodeError::Cancelled => ToolError::Interrupted(text),
                    CodeError::Syntax(_) => ToolError::InvalidInput(text),
                    _ => ToolError::Failed(text),
                })
            }
        }
    }
}

/// The engine's way to the session's tools: this `Code` call's host handle.
struct HostBridge {
    host: HostHandle,
    callable: Callable,
    call_id: String,
    cancel: CancellationToken,
    next: AtomicU32,
    /// Held shared by calls that may run together, alone by the others.
    exclusive: tokio::sync::RwLock<()>,
    /// The `Code` tool's search index, shared by its runs.
    index: Arc<SearchCell>,
}

impl HostBridge {
    /// Every tool a program may reach, `Hidden` ones included (they are
    /// callable from code only).
    fn definitions(&self) -> Vec<tack_protocol::ToolDefinition> {
        match self.host.registry() {
            Some(registry) => registry.iter().map(|t| t.definition.clone()).collect(),
            None => self.host.definitions(),
        }
    }

    /// The index over every tool a program may call: the last one built
    /// when those tools are the same (by name: a session's tools are only
    /// ever added), else a new one, built off the async threads when that
    /// is slow.
    async fn index(&self) -> Result<Arc<Searched>, BridgeError> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        match self.host.registry() {
            Some(registry) => registry
                .iter()
                .filter(|t| self.callable.allows(&t.definition.name))
                .for_each(|t| t.definition.name.hash(&mut hasher)),
            None => self
                .host
                .definitions()
                .iter()
                .filter(|d| self.callable.allows(&d.name))
                .for_each(|d| d.name.hash(&mut hasher)),
        }
        let key = hasher.finish();
        let cached = self.index.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(searched) = cached.filter(|s| s.key == key) {
            return Ok(searched);
        }
        let definitions: Vec<tack_protocol::ToolDefinition> = self
            .definitions()
            .into_iter()
            .filter(|d| self.callable.allows(&d.name))
            .collect();
        let docs = definitions
            .iter()
            .map(tack_tools::tool_search::tool::search_doc)
            .collect();
        let searched = tack_tools::tool_search::run_search(move || {
            Arc::new(Searched {
                key,
                index: tack_tools::tool_search::ToolIndex::new(docs),
            })
        })
        .await
        .map_err(|message| BridgeError::new("unavailable", message))?;
        *self.index.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&searched));
        Ok(searched)
    }
}

/// The word a program branches on for a failed call.
fn kind(outcome: ToolOutcome) -> &'static str {
    match outcome {
        ToolOutcome::Ok => "ok",
        ToolOutcome::Denied => "denied",
        ToolOutcome::InvalidInput => "invalid_input",
        ToolOutcome::UnknownTool => "unknown_tool",
        ToolOutcome::Timeout => "timeout",
        ToolOutcome::Interrupted => "interrupted",
        ToolOutcome::Unavailable => "unavailable",
        ToolOutcome::Transient => "transient",
        ToolOutcome::Internal => "internal",
        _ => "failed",
    }
}

#[async_trait]
impl ToolBridge for HostBridge {
    fn names(&self) -> Vec<String> {
        self.definitions()
            .into_iter()
            .map(|d| d.name)
            .filter(|n| self.callable.allows(n))
            .collect()
    }

    async fn call(&self, name: &str, input: Value) -> Result<Value, BridgeError> {
        if !self.callable.allows(name) {
            return Err(BridgeError::new(
                "denied",
                format!("{name} is not one of the tools code may call here"),
            ));
        }
        let together = self.host.is_concurrency_safe(name, &input);
        let _turn = if together {
            Turn::Shared(self.exclusive.read().await)
        } else {
            Turn::Alone(self.exclusive.write().await)
        };
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let call = ToolCall {
            id: format!("{}_code{n}", self.call_id),
            name: name.to_owned(),
            input,
        };
        let mut options = CallOptions::new(self.cancel.child_token());
        options.full_output = true;
        let result = self.host.call_with(call, options).await;
        let text = result.block.text();
        if result.block.is_error {
            return Err(BridgeError::new(kind(result.outcome), text));
        }
        // Structured content is the result only for a tool that declares
        // an output schema; otherwise it is metadata and the text is.
        match result.structured {
            Some(value) if self.host.output_schema(name).is_some() => Ok(value),
            _ => Ok(Value::String(text)),
        }
    }

    async fn search(&self, query: &str) -> Result<Vec<FoundTool>, BridgeError> {
        // Tool search's own ranker, over every tool a program may call.
        let searched = self.index().await?;
        let query = query.to_owned();
        let (searched, hits) = tack_tools::tool_search::run_search(move || {
            let hits = searched.index.search(&query, SEARCH_LIMIT);
            (searched, hits)
        })
        .await
        .map_err(|message| BridgeError::new("unavailable", message))?;
        let index = &searched.index;
        Ok(hits
            .into_iter()
            .map(|hit| {
                let doc = index.doc(hit.doc);
                let output = self.host.output_schema(&doc.tool);
                let shape = crate::declare::ToolShape {
                    name: &doc.tool,
                    description: &doc.description,
                    input_schema: &doc.input_schema,
                    output_schema: output.as_ref(),
                };
                FoundTool {
                    name: doc.tool.clone(),
                    description: doc
                        .description
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                    declaration: Some(crate::declare::declaration(
                        &shape,
                        crate::declare::Style::Verbose,
                    )),
                }
            })
            .collect())
    }
}

/// The most tools `tools.search` returns.
const SEARCH_LIMIT: usize = 8;

/// A call's hold on the bridge's lock, kept while it runs.
enum Turn<'a> {
    Shared(#[allow(dead_code)] tokio::sync::RwLockReadGuard<'a, ()>),
    Alone(#[allow(dead_code)] tokio::sync::RwLockWriteGuard<'a, ()>),
}
