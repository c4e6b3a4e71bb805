//! The command line, as clap reads it (the commands build their
//! configuration from these).

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};

const AFTER_HELP: &str = "\
Examples:
  market-analyst run \"Give me an overview of Berkshire Hathaway\"
  market-analyst run --output-format json --max-turns 12 \"How is BF-B doing?\"
  market-analyst cli snapshot --ticker brk.b
  market-analyst cli history --ticker AAPL --period 1mo
  market-analyst cli news --query \"interest rates\" --limit 3
  market-analyst reports list
  echo '# Apple' | market-analyst reports save --ticker AAPL --title \"Apple overview\"
  market-analyst mcp                 # serve the tools over MCP on stdio

Environment:
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL, TACK_MODEL
                                  the model provider, as `tack run` reads them (run)
  TACK_STATE_DIR                  where transcripts go (<dir>/sessions/<id>.jsonl)
  MARKET_ANALYST_FAULTS=transient:N   the first N provider reads fail (retried)
  MARKET_ANALYST_BROKEN=zero-price    a planted bug: a missing price reads as 0
  MARKET_ANALYST_REPORTS=DIR      the reports folder (default ./reports)

Exit codes of `cli` and `reports`: 0 ok, 1 internal error, 2 invalid input,
3 unavailable data, 4 temporary failure (retries exhausted).
Exit codes of `run` and `mcp`: tack's table (`tack --help`): 0 completed, 2 usage,
3 model API failed, 4 max turns, ...";

/// A research agent that prepares stock overviews from a bundled,
/// synthetic market data set (clock 2026-11-27T21:00:00Z).
#[derive(Debug, Parser)]
#[command(name = "market-analyst", version, after_help = AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a prompt to completion in an embedded tack session, the tools as
    /// Rust tools, and print the answer.
    Run(RunArgs),
    /// Serve the tools over MCP on stdin/stdout (an MCP sidecar).
    Mcp(McpArgs),
    /// Call one tool and print its JSON answer.
    Cli(CliArgs),
    /// List, show or save reports (Markdown files in ./reports).
    Reports(ReportsArgs),
    /// Print the settings that declare `cli` and `reports` as command tools
    /// (interfaces/declared/.tack/settings.json is this output).
    DeclaredSettings,
}

/// How `run` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The answer on stdout; tool calls on stderr.
    Text,
    /// Claude Code's result object (as `tack run --output-format json`).
    Json,
}

#[derive(Debug, ClapArgs)]
pub struct RunArgs {
    /// The prompt; read from stdin when absent or "-".
    pub prompt: Option<String>,
    /// The model (else TACK_MODEL, else the provider's default).
    #[arg(long)]
    pub model: Option<String>,
    /// anthropic, openai or ollama (else chosen from the environment, as tack does).
    #[arg(long)]
    pub provider: Option<String>,
    /// The API's base URL (else ANTHROPIC_BASE_URL / OPENAI_BASE_URL).
    #[arg(long)]
    pub base_url: Option<String>,
    /// Model requests allowed in the run (exit 4 when reached).
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Offer the Code tool: the model may call the tools from a JavaScript program.
    #[arg(long)]
    pub code_mode: bool,
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,
    /// Trust the project's skills (.tack/skills) for this run without asking.
    #[arg(long)]
    pub trust_project_skills: bool,
    /// Replace tack's system prompt.
    #[arg(long)]
    pub system_prompt: Option<String>,
    /// Add to the end of tack's system prompt.
    #[arg(long)]
    pub append_system_prompt: Option<String>,
}

#[derive(Debug, ClapArgs)]
pub struct McpArgs {}

#[derive(Debug, ClapArgs)]
pub struct CliArgs {
    #[command(subcommand)]
    pub tool: CliTool,
}

/// One tool call. Each command is also known by the tool's own name.
#[derive(Debug, Subcommand)]
pub enum CliTool {
    /// get_stock_snapshot: the latest quote.
    #[command(alias = "get_stock_snapshot")]
    Snapshot(TickerArg),
    /// get_price_history: prices over a period.
    #[command(alias = "get_price_history")]
    History {
        #[command(flatten)]
        ticker: TickerArg,
        /// 1d, 5d, 1mo, 3mo, 6mo or 1y.
        #[arg(long)]
        period: String,
    },
    /// get_financials: annual results.
    #[command(alias = "get_financials")]
    Financials(TickerArg),
    /// search_news: articles by company and/or words.
    #[command(alias = "search_news")]
    News {
        /// A ticker or company name.
        #[arg(long)]
        ticker: Option<String>,
        /// Words to search for.
        #[arg(long)]
        query: Option<String>,
        /// At most this many articles, 1 to 10.
        #[arg(long, default_value_t = market_analyst::tools::news::DEFAULT_LIMIT)]
        limit: u32,
    },
    /// search_competitors: the listed rivals.
    #[command(alias = "search_competitors")]
    Competitors(TickerArg),
}

#[derive(Debug, ClapArgs)]
pub struct TickerArg {
    /// A ticker (AAPL, BRK.B, BF-B; any case or separator) or a company name.
    #[arg(long)]
    pub ticker: String,
}

#[derive(Debug, ClapArgs)]
pub struct ReportsArgs {
    #[command(subcommand)]
    pub command: ReportsCommand,
}

#[derive(Debug, Subcommand)]
pub enum ReportsCommand {
    /// Every report, newest first: {"dir", "reports": [{id, ticker, title, created, path, bytes}]}.
    List,
    /// One report: {id, ticker, title, created, path, body}.
    Show {
        /// The report's id, as `list` shows it.
        id: String,
    },
    /// Save the Markdown on stdin as a report; saving the same again changes nothing.
    Save {
        /// The company (normalised to its listed ticker).
        #[arg(long)]
        ticker: String,
        /// One line.
        #[arg(long)]
        title: String,
    },
}
