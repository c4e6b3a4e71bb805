//! market-analyst: a research agent that prepares stock overviews, and the
//! tools it does it with, as a library.
//!
//! The tools read a bundled, synthetic data set ([`data`]: a few dozen
//! companies, a year of daily prices up to a fixed clock, financials, news
//! and competitors) through a [`provider::Provider`] that can be made to
//! fail for a while (and retries) or to carry a planted bug, so that an
//! evaluation can see how each way of offering the tools copes. The key
//! design decision: **one implementation, every interface**. The five
//! [`tools`] are `tack_tool::TypedTool`s; the `market-analyst` binary
//! offers them as Rust tools of an embedded session (`run`), over MCP
//! (`mcp`), and as a command line that settings can declare as command
//! tools (`cli`); their errors keep three kinds apart everywhere (invalid
//! input, unavailable data, a temporary failure), and a missing price is
//! never a number.
//!
//! ```
//! use std::sync::Arc;
//! use market_analyst::data::MarketData;
//! use market_analyst::provider::Provider;
//! use market_analyst::tools::{GetStockSnapshot, TickerInput};
//! use tack_tool::{ToolContext, ToolError, TypedTool};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let provider = Arc::new(Provider::new(MarketData::load().unwrap()));
//! let tool = GetStockSnapshot::new(provider);
//! let ctx = ToolContext::new("/", "doc", "call-1", Default::default());
//! let out = tool.call(TickerInput { ticker: "brk-b".into() }, ctx.clone()).await.unwrap();
//! assert_eq!(out.structured.unwrap()["ticker"], "BRK.B");
//! let missing = tool.call(TickerInput { ticker: "QLTX".into() }, ctx).await.unwrap_err();
//! assert!(matches!(missing, ToolError::Unavailable(_)));
//! # });
//! ```

pub mod data;
pub mod dates;
pub mod error;
pub mod provider;
pub mod reports;
pub mod ticker;
pub mod tools;

pub use error::{DataError, ErrorKind};
pub use provider::Provider;
pub use tools::{TOOL_NAMES, tools};
