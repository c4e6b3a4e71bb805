//! `get_price_history`: one company's prices over a period, with a summary
//! of the move.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::{company_answer, freshness, output_schema, round, stale_note};
use crate::data::{Bar, Company, MarketData};
use crate::dates;
use crate::error::DataError;
use crate::provider::Provider;

pub(crate) const NAME: &str = "get_price_history";

const DESCRIPTION: &str = "Prices of one listed company over a period ending at the data's clock: 1d, 5d, 1mo or 3mo as daily bars, 6mo or 1y as weekly bars (the week's first open, its high and low, its last close, its total volume). Use it for the trend, the range and the change over a period; for the latest quote with volume, market cap and P/E use get_stock_snapshot instead. Returns one JSON object: the bars oldest first, the change over the period in % (from the close before the period to the last close), the period's high and low with their dates, the average daily volume, and `as_of` and `stale` for the last bar as get_stock_snapshot gives them. A company with no price at all, or none inside the period, fails as unavailable; the message gives the last quote's date when there is one. Takes a ticker or a company name, as get_stock_snapshot does.";

/// How far back a history goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[schemars(inline)]
pub enum Period {
    #[serde(rename = "1d")]
    OneDay,
    #[serde(rename = "5d")]
    FiveDays,
    #[serde(rename = "1mo")]
    OneMonth,
    #[serde(rename = "3mo")]
    ThreeMonths,
    #[serde(rename = "6mo")]
    SixMonths,
    #[serde(rename = "1y")]
    OneYear,
}

impl Period {
    /// As written in the input: `1d`, `5d`, `1mo`, `3mo`, `6mo`, `1y`.
    pub fn as_str(self) -> &'static str {
        match self {
            Period::OneDay => "1d",
            Period::FiveDays => "5d",
            Period::OneMonth => "1mo",
            Period::ThreeMonths => "3mo",
            Period::SixMonths => "6mo",
            Period::OneYear => "1y",
        }
    }

    /// Weekly bars for the long periods (a year of days is ~250 bars).
    fn weekly(self) -> bool {
        matches!(self, Period::SixMonths | Period::OneYear)
    }
}

impl std::str::FromStr for Period {
    type Err = DataError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Period::OneDay,
            Period::FiveDays,
            Period::OneMonth,
            Period::ThreeMonths,
            Period::SixMonths,
            Period::OneYear,
        ]
        .into_iter()
        .find(|p| p.as_str() == s.trim())
        .ok_or_else(|| {
            DataError::Input(format!(
                "period {s:?} is not one of 1d, 5d, 1mo, 3mo, 6mo, 1y"
            ))
        })
    }
}

// The input of get_price_history. Not a doc comment: that would become the
// schema's description, sent with every request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct HistoryInput {
    /// The company: its ticker as listed, e.g. AAPL, BRK.B or BF-B (case, spaces, `.` and `-` are forgiven), or its name when that names one company, e.g. "Apple".
    pub ticker: String,
    /// How far back from the data's clock: 1d (the last trading day), 5d, 1mo, 3mo, 6mo or 1y.
    pub period: Period,
}

/// One bar: a trading day, or a week of them.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PriceBar {
    /// The (last) trading day of the bar.
    pub date: String,
    pub open: f64,
    pub high: f64,
    pub low: f64,
    pub close: f64,
    pub volume: u64,
}

/// A company's prices over a period.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PriceHistory {
    pub ticker: String,
    pub name: String,
    pub currency: String,
    /// The period asked for.
    pub period: Period,
    /// `1d` (daily bars) or `1wk` (weekly bars).
    pub interval: String,
    /// The first trading day inside the period.
    pub from: String,
    /// The last trading day inside the period.
    pub to: String,
    /// The close the change is measured from: the last one before the
    /// period (the first bar's open when the data starts inside it).
    pub reference_close: f64,
    pub last_close: f64,
    /// From `reference_close` to `last_close`, in percent.
    pub change_pct: f64,
    pub high: f64,
    pub high_date: String,
    pub low: f64,
    pub low_date: String,
    pub average_daily_volume: u64,
    /// The market close (UTC) the last bar is valid for.
    pub as_of: String,
    pub trading_days_old: u32,
    /// The last bar is more than one trading day older than the clock.
    pub stale: bool,
    pub data_clock: String,
    pub data_source: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Oldest first.
    pub bars: Vec<PriceBar>,
}

/// The tool.
pub struct GetPriceHistory {
    provider: Arc<Provider>,
}

impl GetPriceHistory {
    pub fn new(provider: Arc<Provider>) -> Self {
        Self { provider }
    }
}

/// The date a period starts after (exclusive): its bars are those after it.
fn period_start(data: &MarketData, period: Period) -> Result<String, DataError> {
    let clock = data.meta().clock_date();
    let months = match period {
        Period::OneDay | Period::FiveDays => {
            let n = if period == Period::OneDay { 1 } else { 5 };
            let first = data
                .nth_latest_trading_day(n)?
                .ok_or_else(|| DataError::Store("the data set has too few trading days".into()))?;
            return dates::day_before(&first)
                .ok_or_else(|| DataError::Store(format!("{first:?} is not a date")));
        }
        Period::OneMonth => 1,
        Period::ThreeMonths => 3,
        Period::SixMonths => 6,
        Period::OneYear => 12,
    };
    dates::months_before(clock, months)
        .ok_or_else(|| DataError::Store(format!("the data set's clock {clock:?} is not a date")))
}

/// Daily bars folded into weeks (Monday to Sunday).
fn weekly(bars: &[Bar]) -> Vec<PriceBar> {
    let mut weeks: Vec<(Option<i64>, PriceBar)> = Vec::new();
    for bar in bars {
        let week = dates::week(&bar.date);
        match weeks.last_mut() {
            Some((w, acc)) if *w == week => {
                acc.date.clone_from(&bar.date);
                acc.high = acc.high.max(bar.high);
                acc.low = acc.low.min(bar.low);
                acc.close = bar.close;
                acc.volume += bar.volume;
            }
            _ => weeks.push((week, price_bar(bar))),
        }
    }
    weeks.into_iter().map(|(_, bar)| bar).collect()
}

fn price_bar(bar: &Bar) -> PriceBar {
    PriceBar {
        date: bar.date.clone(),
        open: bar.open,
        high: bar.high,
        low: bar.low,
        close: bar.close,
        volume: bar.volume,
    }
}

/// The history of `company` over `period`, or why there is none.
pub fn history(
    data: &MarketData,
    company: &Company,
    period: Period,
) -> Result<PriceHistory, DataError> {
    let meta = data.meta();
    let ticker = &company.ticker;
    let Some(last_ever) = data.latest_bars(ticker, 1)?.into_iter().next() else {
        return Err(DataError::NoPrice {
            ticker: ticker.clone(),
            name: company.name.clone(),
        });
    };
    let start = period_start(data, period)?;
    let daily = data.bars_after(ticker, &start)?;
    let (Some(first), Some(last)) = (daily.first(), daily.last()) else {
        return Err(DataError::NoPricesInPeriod {
            ticker: ticker.clone(),
            name: company.name.clone(),
            period: period.as_str().to_owned(),
            last_date: last_ever.date,
        });
    };
    let reference_close = data
        .bar_before(ticker, &first.date)?
        .map_or(first.open, |b| b.close);
    let high = daily
        .iter()
        .max_by(|a, b| a.high.total_cmp(&b.high))
        .unwrap_or(first);
    let low = daily
        .iter()
        .min_by(|a, b| a.low.total_cmp(&b.low))
        .unwrap_or(first);
    let volume: u64 = daily.iter().map(|b| b.volume).sum();
    let fresh = freshness(data, &last.date)?;
    let mut notes = Vec::new();
    if fresh.stale {
        notes.push(stale_note(&last.date, fresh.trading_days_old, &meta.clock));
    }
    Ok(PriceHistory {
        ticker: ticker.clone(),
        name: company.name.clone(),
        currency: company.currency.clone(),
        period,
        interval: if period.weekly() { "1wk" } else { "1d" }.to_owned(),
        from: first.date.clone(),
        to: last.date.clone(),
        reference_close,
        last_close: last.close,
        change_pct: if reference_close > 0.0 {
            round((last.close / reference_close - 1.0) * 100.0, 2)
        } else {
            0.0
        },
        high: high.high,
        high_date: high.date.clone(),
        low: low.low,
        low_date: low.date.clone(),
        average_daily_volume: volume / daily.len() as u64,
        as_of: fresh.as_of,
        trading_days_old: fresh.trading_days_old,
        stale: fresh.stale,
        data_clock: meta.clock.clone(),
        data_source: meta.source.clone(),
        notes,
        bars: if period.weekly() {
            weekly(&daily)
        } else {
            daily.iter().map(price_bar).collect()
        },
    })
}

#[async_trait]
impl TypedTool for GetPriceHistory {
    type Input = HistoryInput;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn is_concurrency_safe(&self, _input: &HistoryInput) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn output_schema(&self) -> Option<Value> {
        Some(output_schema::<PriceHistory>())
    }

    async fn call(&self, input: HistoryInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        company_answer(
            &self.provider,
            &input.ticker,
            &ctx.cancel,
            |data, company| history(data, company, input.period),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(ticker: &str, period: Period) -> Result<PriceHistory, DataError> {
        let data = MarketData::load().unwrap();
        let company = data.company(ticker).unwrap().clone();
        history(&data, &company, period)
    }

    #[test]
    fn periods_end_at_the_clock() {
        let one = hist("AAPL", Period::OneDay).unwrap();
        assert_eq!((one.bars.len(), one.to.as_str()), (1, "2026-11-27"));
        let five = hist("AAPL", Period::FiveDays).unwrap();
        assert_eq!(five.bars.len(), 5);
        // Thanksgiving, 11-26, is no trading day.
        assert_eq!(five.from, "2026-11-20");
        let month = hist("AAPL", Period::OneMonth).unwrap();
        assert_eq!(month.from, "2026-10-28");
        assert_eq!(month.interval, "1d");
        let year = hist("AAPL", Period::OneYear).unwrap();
        assert_eq!(year.interval, "1wk");
        assert!((50..=54).contains(&year.bars.len()), "{}", year.bars.len());
        assert!(year.high >= year.low);
    }

    #[test]
    fn a_stale_ticker_has_history_only_over_long_periods() {
        let err = hist("KSTM", Period::FiveDays).unwrap_err();
        assert!(err.to_string().contains("2026-10-23"), "{err}");
        let three = hist("KSTM", Period::ThreeMonths).unwrap();
        assert!(three.stale && three.to == "2026-10-23");
    }

    #[test]
    fn no_price_is_unavailable() {
        let err = hist("QLTX", Period::OneMonth).unwrap_err();
        assert!(matches!(err, DataError::NoPrice { .. }), "{err:?}");
    }
}
