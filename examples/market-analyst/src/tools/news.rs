//! `search_news`: recent articles by company, by words, or both.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::{json_output, output_schema};
use crate::data::{Article, Company, MarketData};
use crate::error::DataError;
use crate::provider::Provider;

pub(crate) const NAME: &str = "search_news";

/// The most articles one call returns.
pub const MAX_LIMIT: u32 = 10;
/// How many articles a call returns unless it says.
pub const DEFAULT_LIMIT: u32 = 5;

const DESCRIPTION: &str = "Searches recent news articles (up to the data's clock) about one company, for words, or both, and returns up to `limit` articles (at most 10), most relevant first: headline, publisher (`source`), `published_at`, relevance (0 to 1) and key points. Use it for what happened lately and why a stock moved, and cite each article's source and date. For the company's rivals use search_competitors; for figures use get_stock_snapshot or get_financials. Give `ticker` for one company's news, `query` for words (e.g. \"interest rates\") across all articles, market-wide news included, or both. An empty `articles` list means the data set has no matching article: say there is no recent news, and do not invent any. Returns one JSON object; `total_matching` counts the matches before the limit.";

/// Words a query carries that match everything.
const QUERY_NOISE: &[&str] = &[
    "the", "and", "for", "about", "news", "latest", "recent", "with", "from", "of", "in", "on",
    "a", "an", "to", "is", "any",
];

fn default_limit() -> u32 {
    DEFAULT_LIMIT
}

// The input of search_news. Not a doc comment: that would become the
// schema's description, sent with every request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct NewsInput {
    /// Only news about this company: a ticker as listed (AAPL, BRK.B, BF-B) or a company name. Give `ticker`, `query` or both.
    pub ticker: Option<String>,
    /// Words to find in headlines and key points, e.g. "trial data" or "interest rates": an article matches when it has any of them, and articles with more of them come first.
    pub query: Option<String>,
    /// How many articles to return at most, 1 to 10.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 10))]
    pub limit: u32,
}

/// One article.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct NewsArticle {
    pub id: String,
    /// The company it is about; absent for market-wide news.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticker: Option<String>,
    pub headline: String,
    /// The publisher, to cite.
    pub source: String,
    /// When it was published (UTC), to cite.
    pub published_at: String,
    /// How much it matters to its company, 0 to 1.
    pub relevance: f64,
    pub key_points: Vec<String>,
}

/// The articles found.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct News {
    /// The company searched for, as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticker: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The words searched for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// How many articles matched, before the limit.
    pub total_matching: usize,
    /// Most relevant first.
    pub articles: Vec<NewsArticle>,
    /// What an empty or cut list means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub data_clock: String,
    pub data_source: String,
}

/// The tool.
pub struct SearchNews {
    provider: Arc<Provider>,
}

impl SearchNews {
    pub fn new(provider: Arc<Provider>) -> Self {
        Self { provider }
    }
}

/// A word as compared: lower case, a plural `s` dropped.
fn stem(word: &str) -> String {
    let word = word.to_lowercase();
    match word.strip_suffix('s') {
        Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => stem.to_owned(),
        _ => word,
    }
}

fn terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !QUERY_NOISE.contains(&w.to_lowercase().as_str()))
        .map(stem)
        .collect();
    terms.sort();
    terms.dedup();
    terms
}

/// How many of `query` an article has (a term matches a word it equals,
/// or that it starts when it has four letters or more).
fn score(query: &[String], article: &Article, companies: &[Company]) -> usize {
    let mut text = format!("{} {}", article.headline, article.key_points.join(" "));
    if let Some(company) = article
        .ticker
        .as_deref()
        .and_then(|t| companies.iter().find(|c| c.ticker == t))
    {
        text.push(' ');
        text.push_str(&company.ticker);
        text.push(' ');
        text.push_str(&company.name);
    }
    let words = terms(&text);
    query
        .iter()
        .filter(|q| {
            words
                .iter()
                .any(|w| w == *q || (q.chars().count() >= 4 && w.starts_with(q.as_str())))
        })
        .count()
}

/// The articles about `company` and/or matching `query`, best first.
pub fn search(
    data: &MarketData,
    company: Option<&Company>,
    query: Option<&str>,
    limit: u32,
) -> Result<News, DataError> {
    let meta = data.meta();
    let articles = data.articles(company.map(|c| c.ticker.as_str()))?;
    let query_terms = query.map(terms).unwrap_or_default();
    if query.is_some() && query_terms.is_empty() {
        return Err(DataError::Input(
            "the query has no words to search for; give words such as \"earnings\" or \"interest rates\", or leave it out and give a ticker".into(),
        ));
    }
    let mut found: Vec<(usize, Article)> = articles
        .into_iter()
        .map(|a| (score(&query_terms, &a, data.companies()), a))
        .filter(|(s, _)| query_terms.is_empty() || *s > 0)
        .collect();
    found.sort_by(|(sa, a), (sb, b)| {
        sb.cmp(sa)
            .then(b.relevance.total_cmp(&a.relevance))
            .then_with(|| b.published_at.cmp(&a.published_at))
    });
    let total_matching = found.len();
    let note = match (total_matching, company) {
        (0, Some(c)) => Some(format!(
            "No article about {} ({}){} is in the data set. Say there is no recent news; do not invent any.",
            c.ticker,
            c.name,
            query.map(|q| format!(" matches {q:?}")).unwrap_or_default()
        )),
        (0, None) => Some(
            "No article matches these words. Try other words, or say there is no news on it."
                .to_owned(),
        ),
        (n, _) if n > limit as usize => Some(format!(
            "{n} articles match; the {limit} most relevant are here (limit {limit}, at most {MAX_LIMIT})."
        )),
        _ => None,
    };
    Ok(News {
        ticker: company.map(|c| c.ticker.clone()),
        name: company.map(|c| c.name.clone()),
        query: query.map(str::to_owned),
        total_matching,
        articles: found
            .into_iter()
            .take(limit as usize)
            .map(|(_, a)| NewsArticle {
                id: a.id,
                ticker: a.ticker,
                headline: a.headline,
                source: a.source,
                published_at: a.published_at,
                relevance: a.relevance,
                key_points: a.key_points,
            })
            .collect(),
        note,
        data_clock: meta.clock.clone(),
        data_source: meta.source.clone(),
    })
}

/// The checks the schema cannot make: a ticker or a query, and the limit.
fn check(input: &NewsInput) -> Result<(), DataError> {
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if blank(&input.ticker) && blank(&input.query) {
        return Err(DataError::Input(
            "give `ticker` (a company, e.g. AAPL) or `query` (words, e.g. \"interest rates\"), or both".into(),
        ));
    }
    if !(1..=MAX_LIMIT).contains(&input.limit) {
        return Err(DataError::Input(format!(
            "limit {} is out of range: give 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})",
            input.limit
        )));
    }
    Ok(())
}

#[async_trait]
impl TypedTool for SearchNews {
    type Input = NewsInput;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn is_concurrency_safe(&self, _input: &NewsInput) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn output_schema(&self) -> Option<Value> {
        Some(output_schema::<News>())
    }

    fn validate(&self, input: &NewsInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        check(input).map_err(|e| e.to_tool_error())
    }

    async fn call(&self, input: NewsInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        check(&input).map_err(|e| e.to_tool_error())?;
        let company = match input.ticker.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(given) => Some(
                self.provider
                    .resolve(given)
                    .map_err(|e| e.to_tool_error())?,
            ),
            None => None,
        };
        let query = input.query.as_deref().filter(|q| !q.trim().is_empty());
        let answer = self
            .provider
            .read(&ctx.cancel, |data| {
                search(data, company, query, input.limit)
            })
            .await
            .map_err(|e| e.to_tool_error())?;
        json_output(&answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_company_most_relevant_first() {
        let data = MarketData::load().unwrap();
        let news = search(&data, data.company("APXB"), None, 3).unwrap();
        assert_eq!(news.articles.len(), 3);
        assert!(news.total_matching > 3 && news.note.is_some());
        assert!(news.articles[0].relevance >= news.articles[1].relevance);
        assert!(
            news.articles
                .iter()
                .all(|a| a.ticker.as_deref() == Some("APXB"))
        );
    }

    #[test]
    fn a_company_without_news_gets_an_empty_list_and_a_note() {
        let data = MarketData::load().unwrap();
        let news = search(&data, data.company("GFTC"), None, 5).unwrap();
        assert!(news.articles.is_empty());
        assert!(news.note.unwrap().contains("do not invent"));
    }

    #[test]
    fn words_find_market_wide_news() {
        let data = MarketData::load().unwrap();
        let news = search(&data, None, Some("interest rate"), 5).unwrap();
        assert!(
            news.articles[0].headline.contains("interest rates"),
            "{news:?}"
        );
        assert!(news.articles[0].ticker.is_none());
    }

    #[test]
    fn input_needs_a_ticker_or_words_and_a_limit_in_range() {
        let input = |ticker: Option<&str>, query: Option<&str>, limit| NewsInput {
            ticker: ticker.map(str::to_owned),
            query: query.map(str::to_owned),
            limit,
        };
        assert!(check(&input(None, None, 5)).is_err());
        assert!(check(&input(Some(" "), None, 5)).is_err());
        assert!(check(&input(Some("AAPL"), None, 11)).is_err());
        assert!(check(&input(None, Some("rates"), 10)).is_ok());
    }
}
