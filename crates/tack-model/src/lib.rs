//! Model providers behind one trait.
//!
//! The loop only knows [`ModelClient`]: it sends a [`MessagesRequest`] in the
//! Anthropic shape and gets back a [`ModelTurn`] in the same shape, whatever the
//! provider. Streamed text is reported through an [`EventSink`] as it arrives.
//! Retries (408, 409, 429, 5xx, 529, connection failures, streams cut before
//! their end) happen inside `complete`, always before any tool of that turn has
//! run, so a retry never runs a tool twice.
//!
//! A caller that keeps its conversation (a long session) gives each part
//! once, encoded in the client's [`WireFormat`], and sends
//! [`EncodedRequest`]s with [`ModelClient::complete_encoded`]: a request body
//! is then a concatenation of bytes, with no per-request encoding of the
//! conversation ([`encoded`]).
//!
//! Providers: [`AnthropicClient`] (Messages API, native shape) and
//! [`OpenAiClient`] (Chat Completions: OpenAI, Ollama, llama.cpp, vLLM; the
//! request and response are translated). [`select_provider`] picks one from
//! flags and the environment. Both share one retry loop ([`retry`]) and one
//! SSE decoder ([`sse`]).
//!
//! ```no_run
//! use tack_model::{ModelClient, ProviderOptions, StreamEvent, select_provider};
//! use tack_protocol::{Message, MessagesRequest};
//!
//! # async fn run() -> Result<(), tack_model::ModelError> {
//! let opts = ProviderOptions { stream: true, ..Default::default() };
//! let client = select_provider(&opts, &|k| std::env::var(k).ok()).await?;
//! let request = MessagesRequest {
//!     model: String::new(), // the client's model
//!     max_tokens: 1024,
//!     messages: vec![Message::user_text("Say hi")],
//!     system: None,
//!     tools: vec![],
//!     tool_choice: None,
//!     stream: false,
//!     temperature: None,
//!     stop_sequences: vec![],
//!     extra: Default::default(),
//! };
//! let print = |e: StreamEvent| {
//!     if let StreamEvent::TextDelta(t) = e {
//!         eprint!("{t}");
//!     }
//! };
//! let turn = client.complete(&request, &print).await?;
//! println!("{:?}", turn.response.stop_reason);
//! # Ok(())
//! # }
//! ```

pub mod anthropic;
pub mod cache;
pub mod encoded;
mod http;
#[doc(hidden)]
pub mod legacy;
pub mod openai;
pub mod pricing;
pub mod retry;
pub mod select;
pub mod sse;

pub use anthropic::{AnthropicClient, AnthropicConfig};
pub use encoded::{EncodedMessage, EncodedRequest, EncodedSystem, EncodedTools, WireFormat};
pub use openai::{OpenAiClient, OpenAiConfig};
pub use retry::RetryPolicy;
pub use select::{ProviderKind, ProviderOptions, select_provider};

use async_trait::async_trait;
use tack_protocol::{MessageResponse, MessagesRequest};

/// Something reported while a response is produced.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// A piece of assistant text.
    TextDelta(String),
    /// The request is retried; deltas reported before this are void.
    /// `attempt` is the retry number (1 for the first retry), `delay` the
    /// wait before it, `reason` the error that caused it.
    Retry {
        attempt: u32,
        delay: std::time::Duration,
        reason: String,
    },
}

/// Receives [`StreamEvent`]s. Implemented for closures.
pub trait EventSink: Send + Sync {
    fn event(&self, event: StreamEvent);
}

impl<F: Fn(StreamEvent) + Send + Sync> EventSink for F {
    fn event(&self, event: StreamEvent) {
        self(event)
    }
}

/// A tool_use whose input was not valid JSON (OpenAI `arguments`, or a broken
/// `input_json_delta` stream). The block in the response carries `{}` as input;
/// the loop answers it with an error result instead of running the tool.
#[derive(Debug, Clone, PartialEq)]
pub struct MalformedToolInput {
    pub tool_use_id: String,
    pub raw: String,
    pub error: String,
}

/// One model response.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelTurn {
    pub response: MessageResponse,
    pub malformed_inputs: Vec<MalformedToolInput>,
}

/// A model provider.
#[async_trait]
pub trait ModelClient: Send + Sync {
    /// "anthropic", "openai", "ollama", ...
    fn provider(&self) -> &str;
    /// The model requests are sent to (the request's `model` wins if set).
    fn model(&self) -> &str;
    /// Sends one request (retrying as the policy says) and returns the response.
    async fn complete(
        &self,
        request: &MessagesRequest,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError>;

    /// Whether the API, for `model`, takes tools marked `defer_loading`
    /// and expands `tool_reference` blocks in tool results into their
    /// definitions (Anthropic's tool search, client side). Default: no.
    fn tool_references(&self, _model: &str) -> bool {
        false
    }

    /// The wire shape this client sends, so a caller can keep its parts
    /// encoded in it ([`encoded`]). `None` (the default): the client takes
    /// [`MessagesRequest`]s only.
    fn wire_format(&self) -> Option<WireFormat> {
        None
    }

    /// [`ModelClient::complete`] for a request made of parts encoded once
    /// (in [`ModelClient::wire_format`]); the providers assemble the body
    /// from their bytes. The default copies the parts into a
    /// [`MessagesRequest`] and calls `complete`.
    async fn complete_encoded(
        &self,
        request: &EncodedRequest<'_>,
        sink: &dyn EventSink,
    ) -> Result<ModelTurn, ModelError> {
        self.complete(&request.to_request(), sink).await
    }

    /// The provider's own count of a request's input tokens, where it has
    /// an endpoint for it (Anthropic's `POST /v1/messages/count_tokens`);
    /// `Ok(None)` (the default) where it has none.
    async fn count_tokens(&self, _request: &EncodedRequest<'_>) -> Result<Option<u64>, ModelError> {
        Ok(None)
    }

    /// The context window of `model` as the provider's model listing says
    /// (OpenAI-compatible servers: `GET /v1/models`, the entry's
    /// `max_model_len` (vLLM), `context_length` (OpenRouter, LM Studio),
    /// `context_window` or `meta.n_ctx_train` (llama.cpp)); `None` (the
    /// default) where the listing says nothing. Asked once, only for a
    /// model tack's table does not know.
    async fn context_window(&self, _model: &str) -> Option<u64> {
        None
    }
}

/// Why a model request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The API answered with an error status.
    #[error("{provider} API error {status} ({kind}): {message}{hint}")]
    Api {
        provider: String,
        status: u16,
        kind: String,
        message: String,
        /// What the user should do, starting with ". " or empty.
        hint: String,
        retry_after: Option<std::time::Duration>,
        should_retry: Option<bool>,
    },
    /// The connection failed or dropped.
    #[error("cannot reach {url}: {message}")]
    Connection { url: String, message: String },
    /// The stream ended before its end, or sent an error event.
    #[error("stream failed: {message}")]
    Stream { message: String, retryable: bool },
    /// The response could not be read.
    #[error("unexpected response from the model API: {0}")]
    Decode(String),
    /// No provider could be set up.
    #[error("{0}")]
    Config(String),
}

impl ModelError {
    /// Whether a retry may succeed. Exhaustive on purpose: a new variant must decide.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Api {
                status,
                should_retry,
                ..
            } => match should_retry {
                Some(explicit) => *explicit,
                None => matches!(status, 408 | 409 | 429 | 500..=599),
            },
            ModelError::Connection { .. } => true,
            ModelError::Stream { retryable, .. } => *retryable,
            ModelError::Decode(_) => false,
            ModelError::Config(_) => false,
        }
    }
}
