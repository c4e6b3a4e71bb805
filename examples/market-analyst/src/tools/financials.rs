//! `get_financials`: a company's annual results, with margins and growth.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::{TickerInput, company_answer, output_schema, round};
use crate::data::{Company, MarketData};
use crate::error::DataError;
use crate::provider::Provider;

pub(crate) const NAME: &str = "get_financials";

const DESCRIPTION: &str = "Annual results of one listed company for its latest fiscal years (usually three, newest first): revenue, gross profit, operating income and net income in millions of the company's currency, diluted EPS, gross, operating and net margins in %, and revenue growth against the year before. Use it for growth, profitability and earnings; for the current price and P/E use get_stock_snapshot, for the events behind the numbers use search_news. Fiscal years end in different months per company: cite `fiscal_year` together with `period_end`. Takes a ticker or a company name, as get_stock_snapshot does. Returns one JSON object.";

/// One fiscal year.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FinancialYear {
    pub fiscal_year: i64,
    /// The last day of the fiscal year.
    pub period_end: String,
    pub revenue: f64,
    /// Against the year before, in percent (absent for the oldest year).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revenue_growth_pct: Option<f64>,
    pub gross_profit: f64,
    pub operating_income: f64,
    pub net_income: f64,
    /// Diluted earnings per share, in `currency`.
    pub eps_diluted: f64,
    pub gross_margin_pct: f64,
    pub operating_margin_pct: f64,
    pub net_margin_pct: f64,
}

/// A company's annual results.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Financials {
    pub ticker: String,
    pub name: String,
    pub currency: String,
    /// The unit of the amounts.
    pub units: String,
    /// Newest first.
    pub years: Vec<FinancialYear>,
    pub data_clock: String,
    pub data_source: String,
}

/// The tool.
pub struct GetFinancials {
    provider: Arc<Provider>,
}

impl GetFinancials {
    pub fn new(provider: Arc<Provider>) -> Self {
        Self { provider }
    }
}

fn pct(part: f64, whole: f64) -> f64 {
    if whole == 0.0 {
        0.0
    } else {
        round(part / whole * 100.0, 1)
    }
}

/// The financials of `company`, or why there are none.
pub fn financials(data: &MarketData, company: &Company) -> Result<Financials, DataError> {
    let rows = data.financials(&company.ticker)?;
    if rows.is_empty() {
        return Err(DataError::Missing(format!(
            "the data set has no financial statements for {} ({}); do not estimate them, say they are unavailable",
            company.ticker, company.name
        )));
    }
    let years = rows
        .iter()
        .enumerate()
        .map(|(i, y)| FinancialYear {
            fiscal_year: y.fiscal_year,
            period_end: y.period_end.clone(),
            revenue: y.revenue,
            revenue_growth_pct: rows
                .get(i + 1)
                .filter(|before| before.revenue > 0.0)
                .map(|before| round((y.revenue / before.revenue - 1.0) * 100.0, 1)),
            gross_profit: y.gross_profit,
            operating_income: y.operating_income,
            net_income: y.net_income,
            eps_diluted: y.eps_diluted,
            gross_margin_pct: pct(y.gross_profit, y.revenue),
            operating_margin_pct: pct(y.operating_income, y.revenue),
            net_margin_pct: pct(y.net_income, y.revenue),
        })
        .collect();
    let meta = data.meta();
    Ok(Financials {
        ticker: company.ticker.clone(),
        name: company.name.clone(),
        currency: company.currency.clone(),
        units: format!(
            "millions of {} (eps_diluted: {} per share)",
            company.currency, company.currency
        ),
        years,
        data_clock: meta.clock.clone(),
        data_source: meta.source.clone(),
    })
}

#[async_trait]
impl TypedTool for GetFinancials {
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
        Some(output_schema::<Financials>())
    }

    async fn call(&self, input: TickerInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        company_answer(&self.provider, &input.ticker, &ctx.cancel, financials).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_newest_first_with_margins_and_growth() {
        let data = MarketData::load().unwrap();
        let f = financials(&data, data.company("AAPL").unwrap()).unwrap();
        assert_eq!(f.years.len(), 3);
        assert!(f.years[0].fiscal_year > f.years[1].fiscal_year);
        assert!(f.years[0].revenue_growth_pct.is_some());
        assert!(f.years[2].revenue_growth_pct.is_none());
        assert!(f.years[0].gross_margin_pct > 30.0);
        // A loss-making company: negative margins, no invented profit.
        let q = financials(&data, data.company("QLTX").unwrap()).unwrap();
        assert!(q.years[0].net_income < 0.0 && q.years[0].net_margin_pct < 0.0);
    }
}
