//! The bundled data set: `data/market.sql` (written by `data/generate.py`)
//! run into an in-memory SQLite database when the program starts.
//!
//! Every query is answered from memory in microseconds; [`MarketData`]
//! knows nothing of faults or retries (that is [`crate::provider`]).

use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::error::DataError;

/// The SQL of the data set, compiled into the program.
pub const MARKET_SQL: &str = include_str!("../data/market.sql");

/// A listed company.
#[derive(Debug, Clone, PartialEq)]
pub struct Company {
    /// As listed: `AAPL`, `BRK.B`, `BF-B`.
    pub ticker: String,
    pub name: String,
    /// Other names people use for it (`Google`, `Coke`).
    pub aliases: Vec<String>,
    pub sector: String,
    pub industry: String,
    pub exchange: String,
    pub currency: String,
    pub shares_outstanding: u64,
    /// One line: what the company does.
    pub summary: String,
}

/// One trading day of one ticker.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub date: String,
    pub open: f64,
    pub high: f64,
    pub low: f64,
    pub close: f64,
    pub volume: u64,
}

/// One fiscal year's results, in millions of the company's currency
/// (EPS per share).
#[derive(Debug, Clone, PartialEq)]
pub struct FiscalYear {
    pub fiscal_year: i64,
    pub period_end: String,
    pub revenue: f64,
    pub gross_profit: f64,
    pub operating_income: f64,
    pub net_income: f64,
    pub eps_diluted: f64,
}

/// A news article.
#[derive(Debug, Clone, PartialEq)]
pub struct Article {
    pub id: String,
    /// The company it is about; None for market-wide news.
    pub ticker: Option<String>,
    pub headline: String,
    /// The publisher.
    pub source: String,
    pub published_at: String,
    /// How much the article matters to its company, 0 to 1.
    pub relevance: f64,
    pub key_points: Vec<String>,
}

/// A competitor of a company, and where they compete.
#[derive(Debug, Clone, PartialEq)]
pub struct Rival {
    pub ticker: String,
    pub overlap: String,
}

/// The data set's "now" and where its figures come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// `2026-11-27T21:00:00Z`: the market close the data set ends at.
    pub clock: String,
    /// What the tools report as their data source.
    pub source: String,
}

impl Meta {
    /// The clock's date, `YYYY-MM-DD`.
    pub fn clock_date(&self) -> &str {
        self.clock.get(..10).unwrap_or(&self.clock)
    }
}

/// The data set, loaded.
pub struct MarketData {
    conn: Mutex<Connection>,
    meta: Meta,
    companies: Vec<Company>,
}

impl std::fmt::Debug for MarketData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MarketData")
            .field("clock", &self.meta.clock)
            .field("companies", &self.companies.len())
            .finish_non_exhaustive()
    }
}

impl MarketData {
    /// Loads the bundled data set ([`MARKET_SQL`]).
    pub fn load() -> Result<Self, DataError> {
        Self::from_sql(MARKET_SQL)
    }

    /// Loads a data set from its SQL (the schema of `data/generate.py`).
    pub fn from_sql(sql: &str) -> Result<Self, DataError> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(sql)?;
        let meta_value = |key: &str| -> Result<String, DataError> {
            conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .optional()?
                .ok_or_else(|| DataError::Store(format!("the data set has no meta.{key}")))
        };
        let meta = Meta {
            clock: meta_value("clock")?,
            source: meta_value("source")?,
        };
        let companies = read_companies(&conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
            meta,
            companies,
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Every listed company, by ticker.
    pub fn companies(&self) -> &[Company] {
        &self.companies
    }

    /// The company listed under exactly this ticker.
    pub fn company(&self, ticker: &str) -> Option<&Company> {
        self.companies.iter().find(|c| c.ticker == ticker)
    }

    /// The latest `n` bars of `ticker` up to the clock, newest first.
    pub fn latest_bars(&self, ticker: &str, n: u32) -> Result<Vec<Bar>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT date, open, high, low, close, volume FROM prices \
             WHERE ticker = ?1 AND date <= ?2 ORDER BY date DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(params![ticker, self.meta.clock_date(), n], bar)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The bars of `ticker` after `after` up to the clock, oldest first.
    pub fn bars_after(&self, ticker: &str, after: &str) -> Result<Vec<Bar>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT date, open, high, low, close, volume FROM prices \
             WHERE ticker = ?1 AND date > ?2 AND date <= ?3 ORDER BY date",
        )?;
        let rows = stmt.query_map(params![ticker, after, self.meta.clock_date()], bar)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The last bar of `ticker` before `date`.
    pub fn bar_before(&self, ticker: &str, date: &str) -> Result<Option<Bar>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT date, open, high, low, close, volume FROM prices \
             WHERE ticker = ?1 AND date < ?2 ORDER BY date DESC LIMIT 1",
        )?;
        Ok(stmt.query_row(params![ticker, date], bar).optional()?)
    }

    /// The market close of a trading day in UTC (`2026-11-27T21:00:00Z`).
    pub fn close_time(&self, date: &str) -> Result<Option<String>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached("SELECT close_utc FROM trading_days WHERE date = ?1")?;
        Ok(stmt.query_row([date], |r| r.get(0)).optional()?)
    }

    /// How many trading days after `date` the clock's day is (0 on the
    /// clock's own day).
    pub fn trading_days_since(&self, date: &str) -> Result<u32, DataError> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached("SELECT COUNT(*) FROM trading_days WHERE date > ?1 AND date <= ?2")?;
        Ok(stmt.query_row(params![date, self.meta.clock_date()], |r| r.get(0))?)
    }

    /// The `n`th latest trading day up to the clock (1: the latest).
    pub fn nth_latest_trading_day(&self, n: u32) -> Result<Option<String>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT date FROM trading_days WHERE date <= ?1 ORDER BY date DESC LIMIT 1 OFFSET ?2",
        )?;
        Ok(stmt
            .query_row(params![self.meta.clock_date(), n.saturating_sub(1)], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// The fiscal years of `ticker`, newest first.
    pub fn financials(&self, ticker: &str) -> Result<Vec<FiscalYear>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT fiscal_year, period_end, revenue, gross_profit, operating_income, net_income, \
             eps_diluted FROM financials WHERE ticker = ?1 ORDER BY fiscal_year DESC",
        )?;
        let rows = stmt.query_map([ticker], |r| {
            Ok(FiscalYear {
                fiscal_year: r.get(0)?,
                period_end: r.get(1)?,
                revenue: r.get(2)?,
                gross_profit: r.get(3)?,
                operating_income: r.get(4)?,
                net_income: r.get(5)?,
                eps_diluted: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The articles about `ticker` (every article when None), published
    /// up to the clock, in id order.
    pub fn articles(&self, ticker: Option<&str>) -> Result<Vec<Article>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT n.id, n.ticker, n.headline, n.source, n.published_at, n.relevance, \
             COALESCE((SELECT group_concat(text, char(10) ORDER BY position) \
                 FROM news_points p WHERE p.news_id = n.id), '') \
             FROM news n WHERE (?1 IS NULL OR n.ticker = ?1) AND n.published_at <= ?2 ORDER BY n.id",
        )?;
        let rows = stmt.query_map(params![ticker, self.meta.clock], |r| {
            let points: String = r.get(6)?;
            Ok(Article {
                id: r.get(0)?,
                ticker: r.get(1)?,
                headline: r.get(2)?,
                source: r.get(3)?,
                published_at: r.get(4)?,
                relevance: r.get(5)?,
                key_points: points
                    .lines()
                    .filter(|l| !l.is_empty())
                    .map(str::to_owned)
                    .collect(),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The competitors of `ticker`, by ticker.
    pub fn rivals(&self, ticker: &str) -> Result<Vec<Rival>, DataError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT competitor, overlap FROM competitors WHERE ticker = ?1 ORDER BY competitor",
        )?;
        let rows = stmt.query_map([ticker], |r| {
            Ok(Rival {
                ticker: r.get(0)?,
                overlap: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn bar(r: &rusqlite::Row<'_>) -> rusqlite::Result<Bar> {
    Ok(Bar {
        date: r.get(0)?,
        open: r.get(1)?,
        high: r.get(2)?,
        low: r.get(3)?,
        close: r.get(4)?,
        volume: r.get(5)?,
    })
}

fn read_companies(conn: &Connection) -> Result<Vec<Company>, DataError> {
    let mut stmt = conn.prepare(
        "SELECT ticker, name, aliases, sector, industry, exchange, currency, shares_outstanding, \
         summary FROM companies ORDER BY ticker",
    )?;
    let rows = stmt.query_map([], |r| {
        let aliases: String = r.get(2)?;
        Ok(Company {
            ticker: r.get(0)?,
            name: r.get(1)?,
            aliases: aliases
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_owned)
                .collect(),
            sector: r.get(3)?,
            industry: r.get(4)?,
            exchange: r.get(5)?,
            currency: r.get(6)?,
            shares_outstanding: r.get(7)?,
            summary: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_data_set_has_its_edge_cases() {
        let data = MarketData::load().unwrap();
        assert_eq!(data.meta().clock, "2026-11-27T21:00:00Z");
        assert!(data.companies().len() >= 30, "{}", data.companies().len());
        for ticker in ["BRK.B", "BF-B", "APXB", "APXI", "QLTX", "KSTM", "GFTC"] {
            assert!(data.company(ticker).is_some(), "{ticker} is listed");
        }
        assert!(data.latest_bars("QLTX", 1).unwrap().is_empty(), "no price");
        assert_eq!(data.latest_bars("KSTM", 1).unwrap()[0].date, "2026-10-23");
        assert_eq!(data.latest_bars("AAPL", 1).unwrap()[0].date, "2026-11-27");
        assert!(data.articles(Some("GFTC")).unwrap().is_empty(), "no news");
        assert_eq!(data.trading_days_since("2026-11-27").unwrap(), 0);
        // Thanksgiving (11-26) is no trading day.
        assert_eq!(data.trading_days_since("2026-11-25").unwrap(), 1);
        let article = &data.articles(Some("APXB")).unwrap()[0];
        assert!(article.key_points.len() >= 2, "{article:?}");
    }
}
