//! A strict mock of the model APIs over real HTTP on 127.0.0.1.
//!
//! [`MockServer`] serves the Anthropic Messages API (`POST /v1/messages`) and
//! the OpenAI Chat Completions API (`POST /v1/chat/completions`), streamed and
//! not, from one FIFO queue of scripted [`Step`]s. The key design decision is
//! **strictness**: before a step is consumed, the request is checked the way
//! the real API checks it (auth headers, required fields, tool names, a
//! tool's `input_examples` against its schema, and above all the pairing of
//! tool calls with tool results) and refused with the real status and error
//! text. A refused request consumes no step, so a test sees the 400 and the
//! script stays aligned. Every request is recorded.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use serde_json::json;
//! use tack_testkit::{MockServer, Step};
//!
//! let server = MockServer::start().await;
//! server.push_all([
//!     Step::tool_use("toolu_1", "Read", json!({"path": "README.md"})),
//!     Step::text("It is a README.").header("x-mock", "1"),
//! ]);
//! assert!(server.url().starts_with("http://127.0.0.1:"));
//! assert_eq!(server.remaining(), 2);
//!
//! // The checks also work without HTTP:
//! let unanswered = json!({
//!     "model": "m", "max_tokens": 10,
//!     "messages": [
//!         {"role": "user", "content": "read it"},
//!         {"role": "assistant", "content": [
//!             {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]},
//!         {"role": "user", "content": "well?"}
//!     ]
//! });
//! let err = tack_testkit::validate::anthropic_request(&unanswered).unwrap_err();
//! assert!(err.message.starts_with("messages.2: `tool_use` ids were found without"));
//! # }
//! ```

mod anthropic;
pub mod cache;
mod listener;
mod openai;
mod render;
mod responses;
mod server;
mod step;
pub mod tools;
mod turn;
pub mod validate;

pub use cache::{CacheUsage, PromptCache};
pub use server::{Gate, MockServer, RecordedRequest, serve_forever};
pub use step::{Api, DEFAULT_USAGE, Expect, Fallback, Step, error_type_for_status};

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A script file is not a JSON array of steps.
    #[error("invalid mock script (expected a JSON array of steps): {0}")]
    Script(#[source] serde_json::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
