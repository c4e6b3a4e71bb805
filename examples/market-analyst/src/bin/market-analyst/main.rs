//! `market-analyst`: the stock-overview agent and its tools, offered every
//! way tack takes tools (see the README beside Cargo.toml).
//!
//! - `run PROMPT`: an embedded tack session with the tools as Rust tools.
//! - `mcp`: the same tools over MCP on stdio (a sidecar for `.mcp.json`).
//! - `cli TOOL --flags`: one tool call, JSON on stdout (for declared tools).
//! - `reports list|show|save`: the saved reports.
//! - `declared-settings`: the settings that declare `cli` as command tools.

use std::process::ExitCode;

use clap::Parser as _;

mod args;
mod cli;
mod declared;
mod mcp;
mod output;
mod reports;
mod run;

use args::{Args, Command};

/// A failed command: its exit code and what to tell the person.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl std::fmt::Display) -> Self {
        Self {
            code,
            message: message.to_string(),
        }
    }

    /// A usage or configuration error (exit 2).
    pub fn usage(message: impl std::fmt::Display) -> Self {
        Self::new(tack_protocol::exit::USAGE, message)
    }

    /// A fault of this program or the machine (exit 1).
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self::new(tack_protocol::exit::INTERNAL, message)
    }
}

impl From<tack_session::Error> for Failure {
    fn from(e: tack_session::Error) -> Self {
        Self::new(e.exit_code(), e)
    }
}

/// The process environment, as the library's `env` parameters take it.
pub fn env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

async fn dispatch(command: Command) -> Result<u8, Failure> {
    match command {
        Command::Run(args) => run::run(args).await,
        Command::Mcp(args) => mcp::serve(args).await,
        Command::Cli(args) => cli::call(args).await,
        Command::Reports(args) => reports::run(args),
        Command::DeclaredSettings => declared::print(),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("market-analyst: cannot start the async runtime: {e}");
            return ExitCode::from(tack_protocol::exit::INTERNAL);
        }
    };
    match runtime.block_on(dispatch(args.command)) {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            eprintln!("market-analyst: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
