//! `market-analyst reports list|show|save`: the saved reports as JSON on
//! stdout; an error on stderr with the exit code of its kind (2 invalid
//! input, 1 internal).

use std::io::Read as _;

use market_analyst::data::MarketData;
use market_analyst::reports::{ReportError, ReportStore};
use serde::Serialize;

use crate::Failure;
use crate::args::{ReportsArgs, ReportsCommand};

fn failure(e: ReportError) -> Failure {
    Failure::new(e.kind().exit_code(), e)
}

fn print<T: Serialize>(value: &T) -> Result<u8, Failure> {
    let text = serde_json::to_string(value).map_err(Failure::internal)?;
    println!("{text}");
    Ok(0)
}

pub fn run(args: ReportsArgs) -> Result<u8, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::internal(format!("cannot read the working directory: {e}")))?;
    let store = ReportStore::from_env(&cwd, &crate::env);
    match args.command {
        ReportsCommand::List => {
            let reports = store.list().map_err(failure)?;
            print(&serde_json::json!({
                "dir": store.dir().display().to_string(),
                "reports": reports,
            }))
        }
        ReportsCommand::Show { id } => print(&store.show(&id).map_err(failure)?),
        ReportsCommand::Save { ticker, title } => {
            let data = MarketData::load().map_err(Failure::internal)?;
            let company = market_analyst::ticker::resolve(&ticker, data.companies())
                .map_err(|e| Failure::new(e.kind().exit_code(), e))?;
            let mut body = String::new();
            std::io::stdin()
                .read_to_string(&mut body)
                .map_err(|e| Failure::usage(format!("cannot read the report from stdin: {e}")))?;
            let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
            let saved = store
                .save(&company.ticker, &title, &body, &now)
                .map_err(failure)?;
            print(&saved)
        }
    }
}
