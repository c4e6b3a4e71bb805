//! From what a person (or a model) writes to one listed company.
//!
//! In order:
//! 1. **The ticker as listed**, after trimming, dropping a leading `$` and
//!    upper-casing: `aapl` → `AAPL`.
//! 2. **The ticker whatever its separators**: letters and digits alone
//!    must match one listing's, so `brk.b`, `BRK-B`, `BRK/B` and `BRK B`
//!    are `BRK.B`, and `bf.b` or `BFB` is `BF-B` (each in its listing's own form).
//! 3. **A company name** (or a common alias: `Google`, `Coke`): every word
//!    given must be a word of the name or the start of one (three letters
//!    at least), with words such as "Inc.", "Corp.", "the" or "Class"
//!    ignored (written like a ticker, `APPL`, only a whole name counts).
//!    A full name wins over a partial one; one company is the
//!    answer, two or more are [`DataError::Ambiguous`] (`Apex` is Apex
//!    Biotech or Apex Industrial), none is [`DataError::UnknownTicker`]
//!    with the closest tickers and names.
//!
//! ```
//! use market_analyst::data::MarketData;
//! use market_analyst::ticker::resolve;
//! let data = MarketData::load().unwrap();
//! assert_eq!(resolve(" brk-b ", data.companies()).unwrap().ticker, "BRK.B");
//! assert_eq!(resolve("Apex Biotech", data.companies()).unwrap().ticker, "APXB");
//! assert!(resolve("Apex", data.companies()).is_err());
//! ```

use crate::data::Company;
use crate::error::{Candidate, DataError};

/// Words a company name carries that say nothing about which company it is.
const NOISE: &[&str] = &[
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "co",
    "company",
    "companies",
    "the",
    "and",
    "of",
    "class",
    "a",
    "b",
    "plc",
    "ltd",
    "group",
    "holdings",
    "stock",
    "shares",
];

/// How many near misses an unknown input is answered with.
const CLOSEST: usize = 3;

/// The company `given` means: a ticker in any case and with any separator,
/// or a name that fits one company.
pub fn resolve<'a>(given: &str, companies: &'a [Company]) -> Result<&'a Company, DataError> {
    let trimmed = given.trim().trim_start_matches('$').trim();
    if trimmed.is_empty() {
        return Err(DataError::EmptyTicker);
    }
    let upper = trimmed.to_uppercase();
    if let Some(company) = companies.iter().find(|c| c.ticker == upper) {
        return Ok(company);
    }
    let key = ticker_key(&upper);
    let by_key: Vec<&Company> = companies
        .iter()
        .filter(|c| !key.is_empty() && ticker_key(&c.ticker) == key)
        .collect();
    match by_key.as_slice() {
        [one] => return Ok(one),
        [] => {}
        several => {
            return Err(DataError::Ambiguous {
                given: trimmed.to_owned(),
                candidates: several.iter().map(|c| candidate(c)).collect(),
            });
        }
    }
    by_name(trimmed, companies)
}

/// A ticker's letters and digits alone: `BRK.B` and `brk b` are both `BRKB`.
fn ticker_key(ticker: &str) -> String {
    ticker
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Short, and no lower-case letter: `APPL`, `BRK B`.
fn looks_like_ticker(given: &str) -> bool {
    given.chars().count() <= 8 && !given.chars().any(char::is_lowercase)
}

/// The words of a name that tell companies apart, lower-cased.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !NOISE.contains(w))
        .map(str::to_owned)
        .collect()
}

/// How well the words of a query fit one of a company's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    None,
    /// Every query word is a word of the name or starts one.
    Partial,
    /// The query is the name (or an alias), noise words aside.
    Full,
}

fn fit(query: &[String], company: &Company) -> Fit {
    std::iter::once(company.name.as_str())
        .chain(company.aliases.iter().map(String::as_str))
        .map(|name| {
            let name = words(name);
            if name == query {
                Fit::Full
            } else if query.iter().all(|q| {
                name.iter()
                    .any(|n| n == q || (q.chars().count() >= 3 && n.starts_with(q.as_str())))
            }) {
                Fit::Partial
            } else {
                Fit::None
            }
        })
        .max()
        .unwrap_or(Fit::None)
}

fn by_name<'a>(given: &str, companies: &'a [Company]) -> Result<&'a Company, DataError> {
    let query = words(given);
    // What is written like a ticker (`APPL`) is not read as the start of
    // a name: that would be a guess. Only a whole name (`APPLE`) counts.
    let least = if looks_like_ticker(given) {
        Fit::Full
    } else {
        Fit::Partial
    };
    if !query.is_empty() {
        let fits: Vec<(Fit, &Company)> = companies
            .iter()
            .map(|c| (fit(&query, c), c))
            .filter(|(f, _)| *f >= least)
            .collect();
        let best = fits.iter().map(|(f, _)| *f).max();
        let matched: Vec<&Company> = fits
            .iter()
            .filter(|(f, _)| Some(*f) == best)
            .map(|(_, c)| *c)
            .collect();
        match matched.as_slice() {
            [one] => return Ok(one),
            [] => {}
            several => {
                return Err(DataError::Ambiguous {
                    given: given.to_owned(),
                    candidates: several.iter().map(|c| candidate(c)).collect(),
                });
            }
        }
    }
    Err(DataError::UnknownTicker {
        given: given.to_owned(),
        closest: closest(given, companies),
        listed: companies.iter().map(|c| c.ticker.clone()).collect(),
    })
}

fn candidate(company: &Company) -> Candidate {
    Candidate {
        ticker: company.ticker.clone(),
        name: company.name.clone(),
        sector: company.sector.clone(),
    }
}

/// The companies whose ticker is a letter or two away from `given`, or
/// whose name is close to it, nearest first.
fn closest(given: &str, companies: &[Company]) -> Vec<Candidate> {
    let key = ticker_key(given);
    let name = words(given).join(" ");
    let limit = (key.len() / 3).clamp(1, 2);
    let mut scored: Vec<(f64, &Company)> = companies
        .iter()
        .filter_map(|c| {
            let distance = strsim::osa_distance(&key, &ticker_key(&c.ticker));
            let by_ticker = (distance <= limit).then(|| 1.0 - distance as f64 / 10.0);
            let by_name = std::iter::once(&c.name)
                .chain(&c.aliases)
                .map(|n| strsim::jaro_winkler(&name, &words(n).join(" ")))
                .fold(0.0_f64, f64::max);
            let by_name = (!name.is_empty() && by_name >= 0.85).then_some(by_name);
            let score = match (by_ticker, by_name) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            score.map(|score| (score, c))
        })
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.1.ticker.cmp(&b.1.ticker))
    });
    scored
        .into_iter()
        .take(CLOSEST)
        .map(|(_, c)| candidate(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::MarketData;

    fn ticker_of(given: &str) -> Result<String, DataError> {
        static DATA: std::sync::OnceLock<MarketData> = std::sync::OnceLock::new();
        let data = DATA.get_or_init(|| MarketData::load().unwrap());
        resolve(given, data.companies()).map(|c| c.ticker.clone())
    }

    #[test]
    fn tickers_in_any_case_and_with_any_separator() {
        for (given, listed) in [
            ("AAPL", "AAPL"),
            (" aapl ", "AAPL"),
            ("$msft", "MSFT"),
            ("brk.b", "BRK.B"),
            ("BRK-B", "BRK.B"),
            ("BRK B", "BRK.B"),
            ("brk/b", "BRK.B"),
            ("BRKB", "BRK.B"),
            ("bf-b", "BF-B"),
            ("BF.B", "BF-B"),
            ("bf b", "BF-B"),
            ("v", "V"),
        ] {
            assert_eq!(ticker_of(given).unwrap(), listed, "{given:?}");
        }
    }

    #[test]
    fn names_resolve_when_they_fit_one_company() {
        for (given, listed) in [
            ("Apple", "AAPL"),
            ("apple inc.", "AAPL"),
            ("Berkshire Hathaway", "BRK.B"),
            ("Brown-Forman", "BF-B"),
            ("Google", "GOOGL"),
            ("Pepsi", "PEP"),
            ("Apex Biotech", "APXB"),
            ("apex industrial corp", "APXI"),
            ("Bank of America", "BAC"),
            ("The Home Depot", "HD"),
        ] {
            assert_eq!(ticker_of(given).unwrap(), listed, "{given:?}");
        }
    }

    #[test]
    fn an_ambiguous_name_lists_every_candidate_and_says_to_ask() {
        let err = ticker_of("Apex").unwrap_err();
        let DataError::Ambiguous { candidates, .. } = &err else {
            panic!("{err:?}");
        };
        let tickers: Vec<&str> = candidates.iter().map(|c| c.ticker.as_str()).collect();
        assert_eq!(tickers, ["APXB", "APXI"]);
        let text = err.to_string();
        assert!(text.contains("Apex Biotech Inc."), "{text}");
        assert!(text.contains("Apex Industrial Corp."), "{text}");
        assert!(text.contains("Ask the user"), "{text}");
    }

    #[test]
    fn an_unknown_ticker_names_the_closest() {
        let err = ticker_of("APPL").unwrap_err();
        let DataError::UnknownTicker { closest, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(closest[0].ticker, "AAPL", "{closest:?}");
        let err = ticker_of("BRK").unwrap_err();
        assert!(err.to_string().contains("BRK.B"), "{err}");
        let err = ticker_of("Zyxwvut Quantum").unwrap_err();
        assert!(
            err.to_string().contains("The data set lists: AAPL"),
            "{err}"
        );
        assert_eq!(ticker_of("  ").unwrap_err(), DataError::EmptyTicker);
    }
}
