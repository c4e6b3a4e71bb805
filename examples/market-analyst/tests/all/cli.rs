//! `market-analyst cli`: each tool's JSON on stdout, and an exit code per
//! error kind (2 invalid input, 3 unavailable, 4 temporary failure).

use serde_json::Value;

use super::{Sandbox, stderr, stdout};

/// `market-analyst cli ARGS` with `env` set: (exit code, stdout JSON or
/// Null, stderr).
fn cli(env: &[(&str, &str)], args: &[&str]) -> (i32, Value, String) {
    let sandbox = Sandbox::new();
    let mut cmd = sandbox.market_analyst();
    cmd.arg("cli").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let json = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr(&out))
}

#[test]
fn tickers_are_normalised_to_the_listing_s_own_form() {
    for (given, listed) in [
        ("brk.b", "BRK.B"),
        ("BRK-B", "BRK.B"),
        ("BRK B", "BRK.B"),
        ("bf-b", "BF-B"),
        ("BF.B", "BF-B"),
        (" aapl ", "AAPL"),
        ("Apple", "AAPL"),
        ("Apex Biotech", "APXB"),
    ] {
        let (code, json, err) = cli(&[], &["snapshot", "--ticker", given]);
        assert_eq!(code, 0, "{given:?}: {err}");
        assert_eq!(json["ticker"], listed, "{given:?}");
    }
}

#[test]
fn every_tool_answers_by_its_short_and_its_tool_name() {
    for args in [
        &["snapshot", "--ticker", "AAPL"][..],
        &["get_stock_snapshot", "--ticker", "AAPL"],
        &["history", "--ticker", "AAPL", "--period", "1mo"],
        &["financials", "--ticker", "AAPL"],
        &["news", "--ticker", "AAPL", "--limit", "2"],
        &["search_news", "--query", "interest rates"],
        &["competitors", "--ticker", "AAPL"],
    ] {
        let (code, json, err) = cli(&[], args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(json.is_object(), "{args:?}");
    }
    let (_, history, _) = cli(&[], &["history", "--ticker", "AAPL", "--period", "1mo"]);
    assert_eq!(history["period"], "1mo");
    assert!(history["bars"].as_array().unwrap().len() >= 18);
    let (_, news, _) = cli(&[], &["news", "--ticker", "AAPL", "--limit", "2"]);
    assert!(news["articles"].as_array().unwrap().len() <= 2);
    let article = &news["articles"][0];
    for key in [
        "headline",
        "source",
        "published_at",
        "relevance",
        "key_points",
    ] {
        assert!(!article[key].is_null(), "{key} in {article}");
    }
}

#[test]
fn a_missing_price_is_unavailable_exit_3_never_zero() {
    let (code, json, err) = cli(&[], &["snapshot", "--ticker", "QLTX"]);
    assert_eq!(code, 3, "{err}");
    assert!(json.is_null(), "nothing on stdout: {json}");
    assert!(err.contains("no price is available for QLTX"), "{err}");
    // Other tools still answer for it.
    let (code, json, _) = cli(&[], &["financials", "--ticker", "QLTX"]);
    assert_eq!((code, json["ticker"].as_str()), (0, Some("QLTX")));
}

#[test]
fn the_planted_bug_reports_price_zero() {
    let broken = [("MARKET_ANALYST_BROKEN", "zero-price")];
    let (code, json, err) = cli(&broken, &["snapshot", "--ticker", "QLTX"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["price"], 0.0);
    let (code, _, err) = cli(
        &[("MARKET_ANALYST_BROKEN", "everything")],
        &["snapshot", "--ticker", "AAPL"],
    );
    assert_eq!(code, 2, "an unknown bug is a usage error: {err}");
}

#[test]
fn an_ambiguous_name_is_invalid_input_listing_both() {
    let (code, _, err) = cli(&[], &["snapshot", "--ticker", "Apex"]);
    assert_eq!(code, 2, "{err}");
    for part in [
        "APXB",
        "Apex Biotech Inc.",
        "APXI",
        "Apex Industrial Corp.",
        "Ask the user",
    ] {
        assert!(err.contains(part), "{part} in {err}");
    }
}

#[test]
fn an_unknown_ticker_is_invalid_input_with_the_closest() {
    let (code, _, err) = cli(&[], &["snapshot", "--ticker", "APPL"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("AAPL (Apple Inc."), "{err}");
    let (code, _, err) = cli(&[], &["history", "--ticker", "AAPL", "--period", "2w"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = cli(&[], &["news"]);
    assert_eq!(code, 2, "a ticker or a query is needed: {err}");
}

#[test]
fn transient_faults_are_retried_then_reported_exit_4() {
    let (code, json, err) = cli(
        &[("MARKET_ANALYST_FAULTS", "transient:2")],
        &["snapshot", "--ticker", "AAPL"],
    );
    assert_eq!(code, 0, "two failures are absorbed by the retries: {err}");
    assert_eq!(json["ticker"], "AAPL");
    let started = std::time::Instant::now();
    let (code, _, err) = cli(
        &[("MARKET_ANALYST_FAULTS", "transient:10")],
        &["snapshot", "--ticker", "AAPL"],
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("after 4 attempts"), "{err}");
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(350),
        "backoff 50 + 100 + 200 ms"
    );
}

#[test]
fn a_weeks_old_quote_is_flagged_stale() {
    let (code, stale, _) = cli(&[], &["snapshot", "--ticker", "KSTM"]);
    assert_eq!(code, 0);
    assert_eq!(stale["stale"], true);
    assert_eq!(stale["as_of"], "2026-10-23T20:00:00Z");
    let (_, fresh, _) = cli(&[], &["snapshot", "--ticker", "AAPL"]);
    assert_eq!(fresh["stale"], false);
    assert_eq!(fresh["as_of"], "2026-11-27T21:00:00Z");
    // No quote inside five days: unavailable, with the last date.
    let (code, _, err) = cli(&[], &["history", "--ticker", "KSTM", "--period", "5d"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("2026-10-23"), "{err}");
}

#[test]
fn a_ticker_without_news_gets_an_empty_list() {
    let (code, json, _) = cli(&[], &["news", "--ticker", "GFTC"]);
    assert_eq!(code, 0);
    assert_eq!(json["articles"], serde_json::json!([]));
    assert!(json["note"].as_str().unwrap().contains("do not invent"));
}
