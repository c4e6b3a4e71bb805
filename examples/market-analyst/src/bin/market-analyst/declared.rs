//! `market-analyst declared-settings`: the settings file that declares the
//! `cli` and `reports` commands as tack command tools. The stock tools'
//! names, descriptions and input and output schemas are the typed tools'
//! own, so the declared interface differs from the others only in how a
//! call travels (a process per call, exit codes for error kinds).
//! `interfaces/declared/.tack/settings.json` is this command's output (a
//! test keeps the two equal).

use std::sync::Arc;

use market_analyst::data::MarketData;
use market_analyst::tools::{
    GetFinancials, GetPriceHistory, GetStockSnapshot, SearchCompetitors, SearchNews,
};
use serde_json::{Map, Value, json};
use tack_tool::{Tool, Typed, TypedTool};

use crate::Failure;

/// Exit codes of `market-analyst cli` and the error kinds they stand for.
fn stock_exit_codes() -> Value {
    json!({"1": "internal", "2": "invalid_input", "3": "unavailable", "4": "transient"})
}

/// A stock tool declared over `market-analyst cli SUBCOMMAND` with one
/// `--flag=value` argument per input property (joined, so a value that
/// starts with `-` stays a value).
fn stock_tool<T: TypedTool>(tool: T, subcommand: &str, flags: &[&str]) -> (String, Value) {
    let tool = Typed(tool);
    let mut command = vec![json!("market-analyst"), json!("cli"), json!(subcommand)];
    command.extend(
        flags
            .iter()
            .map(|f| json!({"format": format!("--{f}={{{f}}}")})),
    );
    let mut declaration = json!({
        "description": tool.description(),
        "command": command,
        "inputSchema": tool.input_schema(),
        "output": "json",
    });
    if let (Some(obj), Some(schema)) = (declaration.as_object_mut(), tool.output_schema()) {
        obj.insert("outputSchema".into(), schema);
        obj.insert("readOnly".into(), Value::Bool(true));
        obj.insert("timeoutMs".into(), json!(30_000));
        obj.insert("exitCodes".into(), stock_exit_codes());
    }
    (tool.name().to_owned(), declaration)
}

/// The settings, as JSON.
pub fn settings() -> Result<Value, Failure> {
    let provider = Arc::new(market_analyst::Provider::new(
        MarketData::load().map_err(Failure::internal)?,
    ));
    let p = || Arc::clone(&provider);
    let mut tools = Map::new();
    for (name, declaration) in [
        stock_tool(GetStockSnapshot::new(p()), "snapshot", &["ticker"]),
        stock_tool(GetPriceHistory::new(p()), "history", &["ticker", "period"]),
        stock_tool(GetFinancials::new(p()), "financials", &["ticker"]),
        stock_tool(SearchNews::new(p()), "news", &["ticker", "query", "limit"]),
        stock_tool(SearchCompetitors::new(p()), "competitors", &["ticker"]),
    ] {
        tools.insert(name, declaration);
    }
    tools.insert("list_reports".into(), json!({
        "description": "Lists the saved stock reports (Markdown files in the reports folder of the working directory), newest first, each with its `id`, `ticker`, `title`, `created` time, `path` and size in bytes. Use it to find an earlier report on a company before writing a new overview; to read one use show_report with its id. Returns JSON {\"dir\": …, \"reports\": […]}; an empty list means no report is saved yet.",
        "command": ["market-analyst", "reports", "list"],
        "inputSchema": {"type": "object", "properties": {}},
        "output": "json",
        "readOnly": true,
        "timeoutMs": 10_000,
        "exitCodes": {"1": "internal"},
    }));
    tools.insert("show_report".into(), json!({
        "description": "The whole of one saved report, by the id list_reports gives: its `ticker`, `title`, `created` time, `path` and Markdown `body`. Use it to read what an earlier overview said, e.g. to compare it with today's figures; to find ids use list_reports. An unknown id fails as invalid input, naming the closest id. Returns one JSON object.",
        "command": ["market-analyst", "reports", "show", "{id}"],
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {
                    "type": "string",
                    "pattern": "^[a-z0-9][a-z0-9.-]*$",
                    "description": "The report's id as list_reports shows it, e.g. aapl-apple-overview."
                }
            },
            "required": ["id"]
        },
        "output": "json",
        "readOnly": true,
        "timeoutMs": 10_000,
        "exitCodes": {"1": "internal", "2": "invalid_input"},
    }));
    let allow: Vec<&String> = tools.keys().collect();
    Ok(json!({
        "permissions": {"allow": allow},
        "tools": tools,
    }))
}

pub fn print() -> Result<u8, Failure> {
    let text = serde_json::to_string_pretty(&settings()?).map_err(Failure::internal)?;
    println!("{text}");
    Ok(0)
}
