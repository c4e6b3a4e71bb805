//! `get_stock_snapshot`: the latest quote of one company, with when it was
//! valid and whether it is stale.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::{TickerInput, company_answer, freshness, output_schema, round, stale_note};
use crate::data::{Company, MarketData};
use crate::error::DataError;
use crate::provider::{Broken, Provider};

pub(crate) const NAME: &str = "get_stock_snapshot";

const DESCRIPTION: &str = "The latest quote of one listed company: price, change since the previous close (absolute and %), volume, market capitalisation, P/E ratio, a one-line summary of the business, the data source, and `as_of`, the market close the quote is valid for. Use it first for a stock's current price or valuation; for the trend over days to a year use get_price_history, for revenue, earnings and margins use get_financials. `stale: true` means the quote is more than one trading day older than the data's clock (`data_clock`): say the price is stale and give its date. When the data has no price the call fails as unavailable: then say the price is unavailable and never give a number for it. Takes a ticker (AAPL, BRK.B, BF-B; case and separators are forgiven) or a company name; a name that fits several companies fails with the candidates, so you can ask the user which one is meant. Returns one JSON object.";

/// The latest quote of one company.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Snapshot {
    /// The ticker as listed, e.g. BRK.B.
    pub ticker: String,
    pub name: String,
    pub exchange: String,
    pub currency: String,
    /// The last price: the close of the session `as_of` ends.
    pub price: f64,
    /// The close of the session before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_close: Option<f64>,
    /// `price` minus `previous_close`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    /// The change in percent of `previous_close`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_pct: Option<f64>,
    /// Shares traded in the `as_of` session.
    pub volume: u64,
    /// Price times shares outstanding, in billions of `currency`.
    pub market_cap_billions: f64,
    /// Price over the latest fiscal year's diluted EPS; absent when that
    /// EPS is zero or negative (no meaningful P/E).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pe_ratio: Option<f64>,
    /// What the company does, in one line.
    pub summary: String,
    /// The market close (UTC) the quote is valid for.
    pub as_of: String,
    /// Trading days between `as_of` and the data's clock.
    pub trading_days_old: u32,
    /// More than one trading day old: the price is not current.
    pub stale: bool,
    /// The data set's "now" (UTC).
    pub data_clock: String,
    pub data_source: String,
    /// What to tell the user about this quote (staleness, P/E).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The tool.
pub struct GetStockSnapshot {
    provider: Arc<Provider>,
}

impl GetStockSnapshot {
    pub fn new(provider: Arc<Provider>) -> Self {
        Self { provider }
    }
}

/// The snapshot of `company`, or why there is none.
pub fn snapshot(
    data: &MarketData,
    company: &Company,
    bug: Option<Broken>,
) -> Result<Snapshot, DataError> {
    let meta = data.meta();
    let bars = data.latest_bars(&company.ticker, 2)?;
    let Some(last) = bars.first() else {
        return match bug {
            Some(Broken::ZeroPrice) => Ok(zero_price(data, company)),
            None => Err(DataError::NoPrice {
                ticker: company.ticker.clone(),
                name: company.name.clone(),
            }),
        };
    };
    let fresh = freshness(data, &last.date)?;
    let previous_close = bars.get(1).map(|b| b.close);
    let eps = data
        .financials(&company.ticker)?
        .first()
        .map(|y| y.eps_diluted);
    let mut notes = Vec::new();
    if fresh.stale {
        notes.push(stale_note(&last.date, fresh.trading_days_old, &meta.clock));
    }
    let pe_ratio = match eps {
        Some(eps) if eps > 0.0 => Some(round(last.close / eps, 1)),
        Some(eps) => {
            notes.push(format!(
                "No P/E: the latest fiscal year's diluted EPS is {eps:.2} (not positive)."
            ));
            None
        }
        None => None,
    };
    Ok(Snapshot {
        ticker: company.ticker.clone(),
        name: company.name.clone(),
        exchange: company.exchange.clone(),
        currency: company.currency.clone(),
        price: last.close,
        previous_close,
        change: previous_close.map(|p| round(last.close - p, 2)),
        change_pct: previous_close
            .filter(|p| *p > 0.0)
            .map(|p| round((last.close / p - 1.0) * 100.0, 2)),
        volume: last.volume,
        market_cap_billions: round(last.close * company.shares_outstanding as f64 / 1e9, 2),
        pe_ratio,
        summary: company.summary.clone(),
        as_of: fresh.as_of,
        trading_days_old: fresh.trading_days_old,
        stale: fresh.stale,
        data_clock: meta.clock.clone(),
        data_source: meta.source.clone(),
        notes,
    })
}

/// The planted bug ([`Broken::ZeroPrice`]): a missing price as 0, as if
/// quoted at the clock. Exactly what the tool must never do.
fn zero_price(data: &MarketData, company: &Company) -> Snapshot {
    let meta = data.meta();
    Snapshot {
        ticker: company.ticker.clone(),
        name: company.name.clone(),
        exchange: company.exchange.clone(),
        currency: company.currency.clone(),
        price: 0.0,
        previous_close: None,
        change: None,
        change_pct: None,
        volume: 0,
        market_cap_billions: 0.0,
        pe_ratio: None,
        summary: company.summary.clone(),
        as_of: meta.clock.clone(),
        trading_days_old: 0,
        stale: false,
        data_clock: meta.clock.clone(),
        data_source: meta.source.clone(),
        notes: Vec::new(),
    }
}

#[async_trait]
impl TypedTool for GetStockSnapshot {
    type Input = TickerInput;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn is_concurrency_safe(&self, _input: &TickerInput) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn output_schema(&self) -> Option<Value> {
        Some(output_schema::<Snapshot>())
    }

    async fn call(&self, input: TickerInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let bug = self.provider.bug();
        company_answer(
            &self.provider,
            &input.ticker,
            &ctx.cancel,
            |data, company| snapshot(data, company, bug),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(ticker: &str, bug: Option<Broken>) -> Result<Snapshot, DataError> {
        let data = MarketData::load().unwrap();
        let company = data.company(ticker).unwrap().clone();
        snapshot(&data, &company, bug)
    }

    #[test]
    fn a_current_quote_is_not_stale() {
        let s = snap("AAPL", None).unwrap();
        assert_eq!(s.as_of, "2026-11-27T21:00:00Z");
        assert!(!s.stale);
        assert!(s.price > 0.0 && s.pe_ratio.is_some() && s.change_pct.is_some());
    }

    #[test]
    fn a_weeks_old_quote_is_stale_and_says_so() {
        let s = snap("KSTM", None).unwrap();
        assert_eq!(s.as_of, "2026-10-23T20:00:00Z");
        assert!(s.stale && s.trading_days_old > 20, "{s:?}");
        assert!(s.notes[0].contains("stale"), "{:?}", s.notes);
    }

    #[test]
    fn a_missing_price_is_unavailable_never_zero() {
        let err = snap("QLTX", None).unwrap_err();
        assert!(matches!(err, DataError::NoPrice { .. }), "{err:?}");
        // ...unless the bug is planted.
        assert_eq!(snap("QLTX", Some(Broken::ZeroPrice)).unwrap().price, 0.0);
        // The bug changes nothing where a price exists.
        assert!(snap("AAPL", Some(Broken::ZeroPrice)).unwrap().price > 0.0);
    }
}
