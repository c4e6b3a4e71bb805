//! What can go wrong when the data is asked for, in the three kinds a
//! caller acts on differently: fix the input, retry later, or go without.

use std::fmt::Write as _;

use tack_tool::ToolError;

/// One listed company offered as a possible meaning of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub ticker: String,
    pub name: String,
    pub sector: String,
}

impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {})", self.ticker, self.name, self.sector)
    }
}

/// The kind of a failure: what the caller should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input names nothing the data has, or names too many things: fix
    /// the call (or ask the user).
    InvalidInput,
    /// The data does not exist: go without it and say so.
    Unavailable,
    /// The provider failed for now: the same call may succeed later.
    Transient,
    /// The call was cancelled.
    Interrupted,
    /// A fault in this program, not in the input.
    Internal,
}

impl ErrorKind {
    /// The exit code of `market-analyst cli` (and `reports`) for this kind:
    /// 2 invalid input, 3 unavailable, 4 transient, 130 interrupted, 1 internal.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::InvalidInput => 2,
            ErrorKind::Unavailable => 3,
            ErrorKind::Transient => 4,
            ErrorKind::Interrupted => 130,
            ErrorKind::Internal => 1,
        }
    }

    /// The kind of a tool error (a denial, a timeout or an unclassified
    /// failure counts as internal: the tools never raise them).
    pub fn of(error: &ToolError) -> Self {
        match error {
            ToolError::InvalidInput(_) => ErrorKind::InvalidInput,
            ToolError::Unavailable(_) => ErrorKind::Unavailable,
            ToolError::Transient(_) => ErrorKind::Transient,
            ToolError::Interrupted(_) => ErrorKind::Interrupted,
            _ => ErrorKind::Internal,
        }
    }

    /// The name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid input",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Transient => "temporary failure",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Internal => "internal error",
        }
    }
}

/// A failed request for market data. Each message says what failed and
/// what to do next.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// The ticker (or name) given is empty.
    #[error(
        "no company was given: pass a ticker such as AAPL or BRK.B, or a company name such as \"Apple\""
    )]
    EmptyTicker,
    /// Nothing listed has this ticker or name.
    #[error("{}", unknown_text(given, closest, listed))]
    UnknownTicker {
        given: String,
        /// The nearest tickers and names, best first (may be empty).
        closest: Vec<Candidate>,
        /// Every ticker of the data set, offered when nothing is close.
        listed: Vec<String>,
    },
    /// A name that fits more than one company.
    #[error("{}", ambiguous_text(given, candidates))]
    Ambiguous {
        given: String,
        candidates: Vec<Candidate>,
    },
    /// Any other input the tool cannot use (the message says why and how to fix it).
    #[error("{0}")]
    Input(String),
    /// The company is listed but the data set has no price for it.
    #[error(
        "no price is available for {ticker} ({name}): the data provider has no quote for this listing. Do not state, estimate or assume a price (not 0 either); tell the user the price is unavailable. get_financials, search_news and search_competitors may still have data for {ticker}."
    )]
    NoPrice { ticker: String, name: String },
    /// Other data the data set lacks (the message says what and what to do).
    #[error("{0}")]
    Missing(String),
    /// Prices exist, but none inside the period asked for.
    #[error(
        "{ticker} ({name}) has no quote in the last {period}: its last quote is from {last_date}, so its data is stale. Ask get_price_history for a longer period (e.g. 3mo) to see its last prices, and tell the user they end on {last_date}."
    )]
    NoPricesInPeriod {
        ticker: String,
        name: String,
        period: String,
        last_date: String,
    },
    /// The provider kept failing after the retries.
    #[error(
        "the market data provider did not answer after {attempts} attempts over {waited_ms} ms (a temporary outage). Call the tool again in a few seconds; if it keeps failing, tell the user the data is temporarily unavailable rather than guessing."
    )]
    Transient { attempts: u32, waited_ms: u64 },
    /// The call was cancelled while it waited to retry.
    #[error("the call was cancelled before the data provider answered")]
    Cancelled,
    /// The bundled database failed: a fault in this program.
    #[error("the bundled market database failed: {0}")]
    Store(String),
}

impl DataError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            DataError::EmptyTicker
            | DataError::UnknownTicker { .. }
            | DataError::Ambiguous { .. }
            | DataError::Input(_) => ErrorKind::InvalidInput,
            DataError::NoPrice { .. }
            | DataError::NoPricesInPeriod { .. }
            | DataError::Missing(_) => ErrorKind::Unavailable,
            DataError::Transient { .. } => ErrorKind::Transient,
            DataError::Cancelled => ErrorKind::Interrupted,
            DataError::Store(_) => ErrorKind::Internal,
        }
    }

    /// The tool error of this failure: its kind decides the outcome the
    /// pipeline records and the next step tack tells the model.
    pub fn to_tool_error(&self) -> ToolError {
        let text = self.to_string();
        match self.kind() {
            ErrorKind::InvalidInput => ToolError::InvalidInput(text),
            ErrorKind::Unavailable => ToolError::Unavailable(text),
            ErrorKind::Transient => ToolError::Transient(text),
            ErrorKind::Interrupted => ToolError::Interrupted(text),
            ErrorKind::Internal => ToolError::Internal(text),
        }
    }
}

impl From<rusqlite::Error> for DataError {
    fn from(e: rusqlite::Error) -> Self {
        DataError::Store(e.to_string())
    }
}

fn unknown_text(given: &str, closest: &[Candidate], listed: &[String]) -> String {
    let mut text = format!("no listed company has the ticker or name {given:?}.");
    if closest.is_empty() {
        let _ = write!(
            text,
            " Nothing listed is close. The data set lists: {}. Call again with one of them, or ask the user which company is meant.",
            listed.join(", ")
        );
    } else {
        let list: Vec<String> = closest.iter().map(ToString::to_string).collect();
        let _ = write!(
            text,
            " The closest: {}. Call again with the right ticker if one of them is clearly meant; otherwise ask the user.",
            list.join("; ")
        );
    }
    text
}

fn ambiguous_text(given: &str, candidates: &[Candidate]) -> String {
    let list: Vec<String> = candidates.iter().map(ToString::to_string).collect();
    format!(
        "{given:?} is ambiguous: it matches {} listed companies: {}. Ask the user which one is meant (do not pick one yourself), then call again with its ticker.",
        candidates.len(),
        list.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_maps_to_its_tool_error_and_exit_code() {
        let unavailable = DataError::NoPrice {
            ticker: "QLTX".into(),
            name: "Quill Therapeutics Inc.".into(),
        };
        assert!(matches!(
            unavailable.to_tool_error(),
            ToolError::Unavailable(_)
        ));
        assert_eq!(unavailable.kind().exit_code(), 3);
        let transient = DataError::Transient {
            attempts: 4,
            waited_ms: 350,
        };
        assert!(matches!(transient.to_tool_error(), ToolError::Transient(_)));
        assert_eq!(transient.kind().exit_code(), 4);
        assert_eq!(DataError::EmptyTicker.kind().exit_code(), 2);
    }
}
