//! `market-analyst cli TOOL …`: one call of one typed tool, outside any
//! session. The answer's JSON goes to stdout; an error goes to stderr and
//! picks the exit code by its kind (2 invalid input, 3 unavailable, 4
//! temporary failure, 1 internal), which the declared tools map back to
//! the same kinds.

use std::sync::Arc;

use market_analyst::Provider;
use market_analyst::tools::{
    GetFinancials, GetPriceHistory, GetStockSnapshot, HistoryInput, NewsInput, SearchCompetitors,
    SearchNews, TickerInput,
};
use tack_protocol::ContentBlock;
use tack_tool::{ToolContext, ToolError, ToolOutput, TypedTool};
use tokio_util::sync::CancellationToken;

use crate::Failure;
use crate::args::{CliArgs, CliTool};

/// The provider of a command: the bundled data with the environment's
/// faults and planted bug (a bad value of either is a usage error).
pub fn provider() -> Result<Arc<Provider>, Failure> {
    Provider::from_env(&crate::env)
        .map(Arc::new)
        .map_err(|e| match e {
            market_analyst::provider::ProviderSetupError::Config(e) => Failure::usage(e),
            other => Failure::internal(other),
        })
}

async fn call_tool<T: TypedTool>(
    tool: T,
    input: T::Input,
    cancel: CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let ctx = ToolContext::new(cwd, "cli", "cli", cancel);
    tool.validate(&input, &ctx)?;
    tool.call(input, ctx).await
}

pub async fn call(args: CliArgs) -> Result<u8, Failure> {
    let provider = provider()?;
    let cancel = CancellationToken::new();
    let watch = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            watch.cancel();
        }
    });
    let result = match args.tool {
        CliTool::Snapshot(t) => {
            let input = TickerInput { ticker: t.ticker };
            call_tool(GetStockSnapshot::new(provider), input, cancel).await
        }
        CliTool::History { ticker, period } => match period.parse() {
            Ok(period) => {
                let input = HistoryInput {
                    ticker: ticker.ticker,
                    period,
                };
                call_tool(GetPriceHistory::new(provider), input, cancel).await
            }
            Err(e) => Err(market_analyst::DataError::to_tool_error(&e)),
        },
        CliTool::Financials(t) => {
            let input = TickerInput { ticker: t.ticker };
            call_tool(GetFinancials::new(provider), input, cancel).await
        }
        CliTool::News {
            ticker,
            query,
            limit,
        } => {
            let input = NewsInput {
                ticker,
                query,
                limit,
            };
            call_tool(SearchNews::new(provider), input, cancel).await
        }
        CliTool::Competitors(t) => {
            let input = TickerInput { ticker: t.ticker };
            call_tool(SearchCompetitors::new(provider), input, cancel).await
        }
    };
    match result {
        Ok(output) => {
            for block in &output.content {
                if let ContentBlock::Text(text) = block {
                    println!("{}", text.text);
                }
            }
            Ok(0)
        }
        Err(e) => Ok(report_error(&e)),
    }
}

/// Says on stderr what failed (each message says what to do next);
/// returns the exit code of its kind.
fn report_error(error: &ToolError) -> u8 {
    eprintln!("market-analyst: {error}");
    market_analyst::ErrorKind::of(error).exit_code()
}
