//! The five typed tools, and what they share.
//!
//! Each tool resolves its company first (no provider read: a bad name is
//! invalid input even during an outage), then makes one provider read
//! ([`Provider::read`], retried while the provider fails for now), and
//! answers with compact JSON: as the result's text, and as its structured
//! content, which the tool's output schema describes (code mode and MCP
//! clients get the object itself).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tack_session::sources::RustTools;
use tack_tool::{ToolError, ToolOutput};

use crate::data::MarketData;
use crate::error::DataError;
use crate::provider::Provider;

pub mod competitors;
pub mod financials;
pub mod history;
pub mod news;
pub mod snapshot;

pub use competitors::{Competitor, Competitors, SearchCompetitors};
pub use financials::{FinancialYear, Financials, GetFinancials};
pub use history::{GetPriceHistory, HistoryInput, Period, PriceBar, PriceHistory};
pub use news::{News, NewsArticle, NewsInput, SearchNews};
pub use snapshot::{GetStockSnapshot, Snapshot};

/// The tools' names, in the order they are offered.
pub const TOOL_NAMES: [&str; 5] = [
    snapshot::NAME,
    history::NAME,
    financials::NAME,
    news::NAME,
    competitors::NAME,
];

/// The five tools over `provider`, as a tool source for a tack session.
pub fn tools(provider: Arc<Provider>) -> RustTools {
    RustTools::new()
        .typed(GetStockSnapshot::new(Arc::clone(&provider)))
        .typed(GetPriceHistory::new(Arc::clone(&provider)))
        .typed(GetFinancials::new(Arc::clone(&provider)))
        .typed(SearchNews::new(Arc::clone(&provider)))
        .typed(SearchCompetitors::new(provider))
}

// The input of the tools that take one company. Not a doc comment: that
// would become the schema's description, sent with every request.
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
pub struct TickerInput {
    /// The company: its ticker as listed, e.g. AAPL, BRK.B or BF-B (case, spaces, `.` and `-` are forgiven), or its name when that names one company, e.g. "Apple".
    pub ticker: String,
}

/// The JSON Schema of a tool's structured output: what the type
/// serializes to. Unlike an input schema it keeps `null` where a field may
/// be null; like one, it loses the Rust number formats (`uint64`) and the
/// line breaks of doc comments.
pub fn output_schema<T: JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(T).to_value();
    tidy(&mut schema);
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
    }
    schema
}

fn tidy(schema: &mut Value) {
    match schema {
        Value::Object(obj) => {
            if obj.get("format").and_then(Value::as_str).is_some_and(|f| {
                f.starts_with("int") || f.starts_with("uint") || f == "double" || f == "float"
            }) {
                obj.remove("format");
            }
            if let Some(Value::String(text)) = obj.get_mut("description") {
                *text = text.replace('\n', " ");
            }
            obj.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// A tool's answer: compact JSON as the text, the same object as the
/// structured content.
/// The call of a tool about one company: `ticker` resolved (a bad name is
/// invalid input, with no provider read), `read` made as one provider read,
/// the answer as JSON; each failure as the tool error of its class.
pub(crate) async fn company_answer<T: Serialize>(
    provider: &Provider,
    ticker: &str,
    cancel: &tokio_util::sync::CancellationToken,
    read: impl Fn(&MarketData, &crate::data::Company) -> Result<T, DataError>,
) -> Result<ToolOutput, ToolError> {
    let company = provider.resolve(ticker).map_err(|e| e.to_tool_error())?;
    let answer = provider
        .read(cancel, |data| read(data, company))
        .await
        .map_err(|e| e.to_tool_error())?;
    json_output(&answer)
}

pub(crate) fn json_output<T: Serialize>(value: &T) -> Result<ToolOutput, ToolError> {
    let value = serde_json::to_value(value)
        .map_err(|e| ToolError::Internal(format!("the answer could not be encoded: {e}")))?;
    Ok(ToolOutput::text(value.to_string()).with_structured(value))
}

/// `x` rounded to `places` decimals (prices to cents, percentages to a
/// hundredth).
pub(crate) fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

/// When a quote of `date` was valid, and how old it is against the clock.
pub(crate) struct Freshness {
    /// The market close of `date`, in UTC.
    pub as_of: String,
    pub trading_days_old: u32,
    pub stale: bool,
}

/// More than this many trading days before the clock, a quote is stale.
pub const STALE_AFTER_TRADING_DAYS: u32 = 1;

pub(crate) fn freshness(data: &MarketData, date: &str) -> Result<Freshness, DataError> {
    let as_of = data
        .close_time(date)?
        .unwrap_or_else(|| format!("{date}T21:00:00Z"));
    let trading_days_old = data.trading_days_since(date)?;
    Ok(Freshness {
        as_of,
        trading_days_old,
        stale: trading_days_old > STALE_AFTER_TRADING_DAYS,
    })
}

/// The note a stale quote carries.
pub(crate) fn stale_note(date: &str, days: u32, clock: &str) -> String {
    format!(
        "The last quote is from {date}, {days} trading days before the data's clock ({clock}): the price is stale. Say so and give its date."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every answer of every tool, for every company, matches the tool's
    /// output schema (declared tools check it; strict MCP clients do too).
    #[test]
    fn every_answer_matches_its_output_schema() {
        fn check<T: Serialize + JsonSchema>(answers: &[T]) {
            let schema = output_schema::<T>();
            let validator = jsonschema::validator_for(&schema).unwrap();
            for answer in answers {
                let value = serde_json::to_value(answer).unwrap();
                if let Some(e) = validator.iter_errors(&value).next() {
                    panic!("{e} at {}: {value}", e.instance_path());
                }
            }
        }
        let data = MarketData::load().unwrap();
        let bug = Some(crate::provider::Broken::ZeroPrice);
        let mut snapshots = Vec::new();
        let mut histories = Vec::new();
        let mut financials = Vec::new();
        let mut news = Vec::new();
        let mut rivals = Vec::new();
        for company in data.companies() {
            snapshots.extend(snapshot::snapshot(&data, company, None).ok());
            snapshots.extend(snapshot::snapshot(&data, company, bug).ok());
            for period in ["1d", "5d", "1mo", "3mo", "6mo", "1y"] {
                let period = period.parse().unwrap();
                histories.extend(history::history(&data, company, period).ok());
            }
            financials.extend(financials::financials(&data, company).ok());
            news.push(news::search(&data, Some(company), None, 10).unwrap());
            rivals.push(competitors::competitors(&data, company).unwrap());
        }
        news.push(news::search(&data, None, Some("rates"), 3).unwrap());
        assert!(snapshots.len() > 36 && histories.len() > 200);
        check(&snapshots);
        check(&histories);
        check(&financials);
        check(&news);
        check(&rivals);
    }

    #[test]
    fn rounding() {
        assert_eq!(round(1.23456, 2), 1.23);
        assert_eq!(round(-0.005_1, 2), -0.01);
    }
}
