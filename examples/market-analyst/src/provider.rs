//! The market data provider as the tools see it: the data set behind a
//! read that can fail for a while, retried with exponential backoff.
//!
//! Two switches, read from the environment by [`Provider::from_env`], make
//! the provider misbehave on purpose, for evaluations:
//! - `MARKET_ANALYST_FAULTS=transient:N`: the first N provider reads of
//!   the process fail as a temporary outage. Each tool call retries
//!   ([`Retry`]: 4 attempts, 50, 100 and 200 ms apart), so N=2 is absorbed
//!   and N=10 makes the first calls fail as [`DataError::Transient`].
//!   `market-analyst cli` is one process per call, so there every call
//!   meets the first N failures.
//! - `MARKET_ANALYST_BROKEN=zero-price`: a planted bug, for an evaluation
//!   to catch: `get_stock_snapshot` reports a price of 0 for a company
//!   that has no price, instead of failing as unavailable.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::data::{Company, MarketData};
use crate::error::DataError;
use crate::ticker;

/// The variable that injects provider faults: `transient:N`.
pub const FAULTS_ENV: &str = "MARKET_ANALYST_FAULTS";
/// The variable that plants a bug: `zero-price`.
pub const BROKEN_ENV: &str = "MARKET_ANALYST_BROKEN";

/// A bug planted on purpose, to check that an evaluation notices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Broken {
    /// A missing price is reported as 0 instead of as unavailable.
    ZeroPrice,
}

/// How a read is retried: the waits between attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retry {
    pub delays: Vec<Duration>,
}

impl Default for Retry {
    /// 4 attempts: the first, then after 50, 100 and 200 ms.
    fn default() -> Self {
        Self {
            delays: [50, 100, 200].map(Duration::from_millis).to_vec(),
        }
    }
}

/// A value of [`FAULTS_ENV`] or [`BROKEN_ENV`] that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable}={value:?} is not understood: {expected}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub value: String,
    pub expected: &'static str,
}

/// The data set behind reads that may fail and are retried.
#[derive(Debug)]
pub struct Provider {
    data: MarketData,
    /// Reads still to fail ([`FAULTS_ENV`]).
    failing: AtomicU64,
    broken: Option<Broken>,
    retry: Retry,
}

impl Provider {
    /// The bundled data set, with no faults and no planted bug.
    pub fn new(data: MarketData) -> Self {
        Self {
            data,
            failing: AtomicU64::new(0),
            broken: None,
            retry: Retry::default(),
        }
    }

    /// The bundled data set, with the faults and the bug the environment
    /// asks for ([`FAULTS_ENV`], [`BROKEN_ENV`]).
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Self, ProviderSetupError> {
        let faults = parse_faults(env(FAULTS_ENV).as_deref())?;
        let broken = parse_broken(env(BROKEN_ENV).as_deref())?;
        let mut provider = Self::new(MarketData::load()?).failing_reads(faults);
        provider.broken = broken;
        Ok(provider)
    }

    /// The first `n` reads fail as a temporary outage.
    pub fn failing_reads(self, n: u64) -> Self {
        self.failing.store(n, Ordering::SeqCst);
        self
    }

    /// Plants `bug`.
    pub fn broken(mut self, bug: Broken) -> Self {
        self.broken = Some(bug);
        self
    }

    /// Retries reads with these waits.
    pub fn retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    /// The planted bug, if any.
    pub fn bug(&self) -> Option<Broken> {
        self.broken
    }

    /// The data set, read directly: no faults, no retries (for resolving
    /// tickers and for the reports, which are no provider reads).
    pub fn data(&self) -> &MarketData {
        &self.data
    }

    /// The company `given` means ([`ticker::resolve`]).
    pub fn resolve(&self, given: &str) -> Result<&Company, DataError> {
        ticker::resolve(given, self.data.companies())
    }

    /// One provider read: `read` over the data set, retried with backoff
    /// while the provider fails temporarily. An error of `read` itself
    /// (no such data) is returned at once: retrying cannot change it.
    pub async fn read<T>(
        &self,
        cancel: &CancellationToken,
        read: impl Fn(&MarketData) -> Result<T, DataError>,
    ) -> Result<T, DataError> {
        let mut waited = Duration::ZERO;
        let mut attempts = 0;
        let mut delays = self.retry.delays.iter();
        loop {
            attempts += 1;
            if !self.fails_now() {
                return read(&self.data);
            }
            let Some(delay) = delays.next() else {
                return Err(DataError::Transient {
                    attempts,
                    waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
                });
            };
            tokio::select! {
                () = cancel.cancelled() => return Err(DataError::Cancelled),
                () = tokio::time::sleep(*delay) => waited += *delay,
            }
        }
    }

    /// Whether this read fails (and one fewer will).
    fn fails_now(&self) -> bool {
        self.failing
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }
}

/// Why the provider could not be set up.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderSetupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Data(#[from] DataError),
}

fn parse_faults(value: Option<&str>) -> Result<u64, ConfigError> {
    let error = |value: &str| ConfigError {
        variable: FAULTS_ENV,
        value: value.to_owned(),
        expected: "write transient:N, e.g. transient:2 (the first N provider reads fail)",
    };
    match value.map(str::trim) {
        None | Some("") => Ok(0),
        Some(text) => text
            .strip_prefix("transient:")
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| error(text)),
    }
}

fn parse_broken(value: Option<&str>) -> Result<Option<Broken>, ConfigError> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some("zero-price") => Ok(Some(Broken::ZeroPrice)),
        Some(other) => Err(ConfigError {
            variable: BROKEN_ENV,
            value: other.to_owned(),
            expected: "the only planted bug is zero-price",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(failing: u64) -> Provider {
        Provider::new(MarketData::load().unwrap())
            .failing_reads(failing)
            .retry(Retry {
                delays: vec![Duration::from_millis(1); 3],
            })
    }

    #[tokio::test]
    async fn a_short_outage_is_absorbed_by_the_retries() {
        let provider = provider(2);
        let cancel = CancellationToken::new();
        let n = provider
            .read(&cancel, |d| Ok(d.companies().len()))
            .await
            .unwrap();
        assert!(n > 0);
    }

    #[tokio::test]
    async fn a_long_outage_is_transient_after_every_attempt() {
        let provider = provider(10);
        let cancel = CancellationToken::new();
        let err = provider.read(&cancel, |_| Ok(())).await.unwrap_err();
        assert!(
            matches!(err, DataError::Transient { attempts: 4, .. }),
            "{err:?}"
        );
        // 4 of the 10 failing reads are spent; 6 remain.
        assert_eq!(provider.failing.load(Ordering::SeqCst), 6);
    }

    #[test]
    fn the_switches_are_read_strictly() {
        assert_eq!(parse_faults(Some("transient:3")), Ok(3));
        assert_eq!(parse_faults(None), Ok(0));
        assert!(parse_faults(Some("flaky")).is_err());
        assert_eq!(
            parse_broken(Some("zero-price")),
            Ok(Some(Broken::ZeroPrice))
        );
        assert!(parse_broken(Some("everything")).is_err());
    }
}
