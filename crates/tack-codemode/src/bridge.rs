//! The program's only way out: [`ToolBridge`], implemented by whoever runs
//! the engine (code mode's tool, over the agent's tool pipeline).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where the program's tool calls go.
///
/// The engine calls it from the task that runs the program, and drives the
/// futures of calls the program makes together (`Promise.all` over eight
/// calls awaits eight `call` futures at once). Whether two calls may really
/// run at the same time (a tool that writes must run alone) is the bridge's
/// decision: hold a lock in `call` to serialise what must be.
///
/// Every effect is the bridge's to authorise: the engine checks only that the
/// name was offered (by [`names`](Self::names) or a search) and counts calls
/// against [`Limits::max_calls`](crate::Limits::max_calls).
#[async_trait]
pub trait ToolBridge: Send + Sync {
    /// The tools the program may call from the start: each becomes a
    /// function `tools[name]`. A tool named `search` is not offered (that
    /// name is [`search`](Self::search)'s).
    fn names(&self) -> Vec<String>;

    /// Runs one call. `input` is the JSON the program passed (`{}` when it
    /// passed nothing). `Ok` resolves the program's promise with the value;
    /// `Err` rejects it with an `Error` carrying the error's `kind` and
    /// `message`.
    async fn call(&self, name: &str, input: Value) -> Result<Value, BridgeError>;

    /// Finds tools for `tools.search(query)`. Each tool found becomes
    /// callable as `tools[name]` for the rest of the run. Default: finds
    /// nothing.
    async fn search(&self, query: &str) -> Result<Vec<FoundTool>, BridgeError> {
        let _ = query;
        Ok(Vec::new())
    }
}

/// A failed call, as the program sees it: the promise rejects with an `Error`
/// whose `kind` and `message` are these (and whose `tool` is the tool's name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct BridgeError {
    /// What kind of failure, a short word the program can branch on
    /// (`invalid_input`, `denied`, `not_found`, `timeout`…): the tool's error
    /// kind. The engine's own kinds are [`BridgeError::LIMIT`] and
    /// [`BridgeError::INVALID_INPUT`].
    pub kind: String,
    /// What failed and what to do next.
    pub message: String,
}

impl BridgeError {
    /// The kind of the rejection of a call past [`Limits::max_calls`](crate::Limits::max_calls).
    pub const LIMIT: &str = "limit";
    /// The kind of the rejection of a call whose input is not JSON.
    pub const INVALID_INPUT: &str = "invalid_input";

    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            message: message.into(),
        }
    }
}

/// One tool a search found; `tools.search` resolves with an array of these
/// as JSON objects (`declaration` left out when there is none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundTool {
    pub name: String,
    pub description: String,
    /// How to call it, e.g. a TypeScript-style signature generated from its
    /// schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
}
