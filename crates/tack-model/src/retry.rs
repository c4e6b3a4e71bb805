//! When and how long to wait before sending a request again.
//!
//! One loop ([`with_retries`]) serves every provider: it runs an attempt,
//! asks [`ModelError::is_retryable`] whether a failure may pass, waits, tells
//! the sink ([`StreamEvent::Retry`], which voids the deltas of the failed
//! attempt) and tries again. A stream cut in the middle is retried as a whole
//! request.
//!
//! The wait, in order: the server's `retry-after-ms`, else its `retry-after`
//! (seconds; an HTTP date is not read and falls through to backoff), both
//! capped at 60 s; else exponential backoff `base_delay * 2^n` capped at
//! `max_delay`, with **equal jitter** (half the delay fixed, half random), so
//! clients that failed together spread out without ever retrying at once.

use std::future::Future;
use std::time::Duration;

use reqwest::header::HeaderMap;

use crate::{EventSink, ModelError, StreamEvent};

/// The longest a server-requested wait is honoured.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// How often and how patiently to retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` requests at most).
    pub max_retries: u32,
    /// The first backoff delay, before jitter.
    pub base_delay: Duration,
    /// The longest backoff delay, before jitter.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    /// The default policy, with `TACK_MAX_RETRIES` read through `env` when it
    /// is a number.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let mut policy = Self::default();
        if let Some(n) = env("TACK_MAX_RETRIES").and_then(|v| v.trim().parse().ok()) {
            policy.max_retries = n;
        }
        policy
    }

    /// For tests: `max_retries` retries with 1–5 ms of backoff.
    pub fn fast(max_retries: u32) -> Self {
        Self {
            max_retries,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
        }
    }

    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The backoff before retry number `retry` (1 for the first retry), with
    /// equal jitter: in `[d/2, d]` where `d = min(base * 2^(retry-1), max)`.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exp = retry.saturating_sub(1).min(30);
        let ceiling = self
            .base_delay
            .saturating_mul(1u32 << exp)
            .min(self.max_delay);
        let half = ceiling / 2;
        let spread = u64::try_from((ceiling - half).as_micros()).unwrap_or(u64::MAX);
        let jitter = if spread == 0 {
            0
        } else {
            rand::random_range(0..=spread)
        };
        half + Duration::from_micros(jitter)
    }

    /// The wait before retry number `retry` after `err`: the server's
    /// retry-after if it sent one, else [`Self::backoff`].
    pub fn delay_for(&self, err: &ModelError, retry: u32) -> Duration {
        match err {
            ModelError::Api {
                retry_after: Some(wait),
                ..
            } => (*wait).min(MAX_RETRY_AFTER),
            _ => self.backoff(retry),
        }
    }
}

/// The wait a response asks for: `retry-after-ms` (milliseconds), else
/// `retry-after` (seconds, fractions allowed), capped at [`MAX_RETRY_AFTER`].
/// Negative, unreadable or HTTP-date values give `None`.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| -> Option<f64> {
        let value = headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    };
    let wait = if let Some(ms) = number("retry-after-ms") {
        Duration::from_secs_f64(ms / 1000.0)
    } else {
        Duration::from_secs_f64(number("retry-after")?.min(MAX_RETRY_AFTER.as_secs_f64()))
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// The `x-should-retry: true|false` override, if the server sent one.
pub fn should_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Runs `attempt` until it succeeds, fails for good, or the policy's retries
/// are spent. `attempt` gets the attempt number (0 for the first request).
/// Before each retry the sink gets [`StreamEvent::Retry`] whose `attempt` is
/// the retry number (1 for the first retry).
pub async fn with_retries<T, F, Fut>(
    policy: &RetryPolicy,
    sink: &dyn EventSink,
    mut attempt: F,
) -> Result<T, ModelError>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, ModelError>>,
{
    let mut n = 0;
    loop {
        match attempt(n).await {
            Ok(value) => return Ok(value),
            Err(err) if err.is_retryable() && n < policy.max_retries => {
                n += 1;
                let delay = policy.delay_for(&err, n);
                // Debug, not warn: the sink's Retry event is what a person
                // sees (one line per retry); the log keeps the detail.
                tracing::debug!(
                    retry = n,
                    max_retries = policy.max_retries,
                    delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                    "model request failed, retrying: {err}"
                );
                sink.event(StreamEvent::Retry {
                    attempt: n,
                    delay,
                    reason: err.to_string(),
                });
                tokio::time::sleep(delay).await;
            }
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;
    use std::sync::Mutex;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    fn api(status: u16, should_retry: Option<bool>, retry_after: Option<Duration>) -> ModelError {
        ModelError::Api {
            provider: "anthropic".into(),
            status,
            kind: "x".into(),
            message: "m".into(),
            hint: String::new(),
            retry_after,
            should_retry,
        }
    }

    #[test]
    fn retry_after_headers() {
        assert_eq!(
            retry_after(&headers(&[("retry-after-ms", "250"), ("retry-after", "9")])),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")])),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1.5")])),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "3600")])),
            Some(MAX_RETRY_AFTER)
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after-ms", "999999")])),
            Some(MAX_RETRY_AFTER)
        );
        assert_eq!(
            retry_after(&headers(&[(
                "retry-after",
                "Wed, 21 Oct 2015 07:28:00 GMT"
            )])),
            None
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")])), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn should_retry_header() {
        assert_eq!(
            should_retry(&headers(&[("x-should-retry", "true")])),
            Some(true)
        );
        assert_eq!(
            should_retry(&headers(&[("x-should-retry", "false")])),
            Some(false)
        );
        assert_eq!(should_retry(&headers(&[("x-should-retry", "maybe")])), None);
    }

    #[test]
    fn backoff_grows_is_capped_and_jittered_within_half() {
        let p = RetryPolicy::default();
        for _ in 0..200 {
            let d1 = p.backoff(1);
            assert!(d1 >= Duration::from_millis(250) && d1 <= Duration::from_millis(500));
            let d3 = p.backoff(3);
            assert!(d3 >= Duration::from_secs(1) && d3 <= Duration::from_secs(2));
            let d10 = p.backoff(10);
            assert!(d10 >= Duration::from_secs(4) && d10 <= Duration::from_secs(8));
            assert!(p.backoff(u32::MAX) <= Duration::from_secs(8));
        }
        let samples: std::collections::HashSet<_> = (0..50).map(|_| p.backoff(2)).collect();
        assert!(samples.len() > 1, "jitter must vary the delay");
    }

    #[test]
    fn delay_prefers_the_server_wait() {
        let p = RetryPolicy::default();
        let err = api(429, None, Some(Duration::from_secs(3)));
        assert_eq!(p.delay_for(&err, 1), Duration::from_secs(3));
        let err = api(529, None, None);
        assert!(p.delay_for(&err, 1) <= Duration::from_millis(500));
    }

    #[test]
    fn classification() {
        for status in [408, 409, 429, 500, 502, 503, 529] {
            assert!(api(status, None, None).is_retryable(), "{status}");
        }
        for status in [400, 401, 403, 404, 413, 422] {
            assert!(!api(status, None, None).is_retryable(), "{status}");
        }
        assert!(!api(529, Some(false), None).is_retryable());
        assert!(api(400, Some(true), None).is_retryable());
        assert!(
            ModelError::Connection {
                url: "u".into(),
                message: "m".into()
            }
            .is_retryable()
        );
        assert!(
            ModelError::Stream {
                message: "cut".into(),
                retryable: true
            }
            .is_retryable()
        );
        assert!(!ModelError::Decode("x".into()).is_retryable());
        assert!(!ModelError::Config("x".into()).is_retryable());
    }

    #[test]
    fn max_retries_from_env() {
        let env = |k: &str| (k == "TACK_MAX_RETRIES").then(|| "7".to_string());
        assert_eq!(RetryPolicy::from_env(&env).max_retries, 7);
        let env = |_: &str| Some("lots".to_string());
        assert_eq!(RetryPolicy::from_env(&env).max_retries, 4);
    }

    #[tokio::test]
    async fn loop_retries_retryable_errors_and_reports_each_retry() {
        let events = Mutex::new(Vec::new());
        let sink = |e: StreamEvent| events.lock().unwrap().push(e);
        let mut calls = 0;
        let result = with_retries(&RetryPolicy::fast(4), &sink, |n| {
            calls += 1;
            async move {
                if n < 2 {
                    Err(api(529, None, None))
                } else {
                    Ok(n)
                }
            }
        })
        .await;
        assert_eq!(result.unwrap(), 2);
        assert_eq!(calls, 3);
        let events = events.into_inner().unwrap();
        assert_eq!(events.len(), 2);
        assert!(
            matches!(&events[1], StreamEvent::Retry { attempt: 2, reason, .. } if reason.contains("529"))
        );
    }

    #[tokio::test]
    async fn loop_gives_up_after_max_retries_and_never_retries_a_401() {
        let sink = |_: StreamEvent| {};
        let mut calls = 0;
        let err = with_retries(&RetryPolicy::fast(2), &sink, |_| {
            calls += 1;
            async { Err::<(), _>(api(503, None, None)) }
        })
        .await
        .unwrap_err();
        assert!(matches!(err, ModelError::Api { status: 503, .. }));
        assert_eq!(calls, 3);

        let mut calls = 0;
        with_retries(&RetryPolicy::fast(2), &sink, |_| {
            calls += 1;
            async { Err::<(), _>(api(401, None, None)) }
        })
        .await
        .unwrap_err();
        assert_eq!(calls, 1);
    }
}
