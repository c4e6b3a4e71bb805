//! `search_competitors`: the listed rivals of one company.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::{TickerInput, company_answer, output_schema};
use crate::data::{Company, MarketData};
use crate::error::DataError;
use crate::provider::Provider;

pub(crate) const NAME: &str = "search_competitors";

const DESCRIPTION: &str = "The listed companies that compete with one company, each with its sector, industry and where they compete (`overlap`). Use it to choose peers for a comparison; then get_stock_snapshot or get_financials gives each peer's figures, and search_news what happened to them. Only companies in the data set are listed: an empty list means none is listed here, not that the company has no rivals, so do not name others as if the data had them. Takes a ticker or a company name, as get_stock_snapshot does. Returns one JSON object.";

/// One competitor.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Competitor {
    pub ticker: String,
    pub name: String,
    pub sector: String,
    pub industry: String,
    /// Where the two compete.
    pub overlap: String,
}

/// A company and its listed competitors.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Competitors {
    pub ticker: String,
    pub name: String,
    pub sector: String,
    pub industry: String,
    pub competitors: Vec<Competitor>,
    /// What an empty list means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub data_source: String,
}

/// The tool.
pub struct SearchCompetitors {
    provider: Arc<Provider>,
}

impl SearchCompetitors {
    pub fn new(provider: Arc<Provider>) -> Self {
        Self { provider }
    }
}

/// The competitors of `company` listed in the data set.
pub fn competitors(data: &MarketData, company: &Company) -> Result<Competitors, DataError> {
    let competitors: Vec<Competitor> = data
        .rivals(&company.ticker)?
        .into_iter()
        .filter_map(|rival| {
            data.company(&rival.ticker).map(|c| Competitor {
                ticker: c.ticker.clone(),
                name: c.name.clone(),
                sector: c.sector.clone(),
                industry: c.industry.clone(),
                overlap: rival.overlap,
            })
        })
        .collect();
    let note = competitors.is_empty().then(|| {
        format!(
            "No competitor of {} is listed in the data set; its rivals are outside it. Say so rather than naming companies the data does not have.",
            company.ticker
        )
    });
    Ok(Competitors {
        ticker: company.ticker.clone(),
        name: company.name.clone(),
        sector: company.sector.clone(),
        industry: company.industry.clone(),
        competitors,
        note,
        data_source: data.meta().source.clone(),
    })
}

#[async_trait]
impl TypedTool for SearchCompetitors {
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
        Some(output_schema::<Competitors>())
    }

    async fn call(&self, input: TickerInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        company_answer(&self.provider, &input.ticker, &ctx.cancel, competitors).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rivals_both_ways_and_an_empty_list_explained() {
        let data = MarketData::load().unwrap();
        let ko = competitors(&data, data.company("KO").unwrap()).unwrap();
        let tickers: Vec<&str> = ko.competitors.iter().map(|c| c.ticker.as_str()).collect();
        assert_eq!(tickers, ["BF-B", "PEP"]);
        let tsla = competitors(&data, data.company("TSLA").unwrap()).unwrap();
        assert!(tsla.competitors.is_empty() && tsla.note.is_some());
    }
}
