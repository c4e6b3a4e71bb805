//! What comes back: console lines in order, formatted; the return value as
//! JSON; output past the cap dropped with a note.

use super::*;

#[tokio::test]
async fn console_lines_are_kept_in_order_across_levels() {
    let out = ok(
        "console.log('one'); console.error('two'); console.warn('three'); \
                  console.info('four'); console.debug('five')",
    )
    .await;
    assert_eq!(
        out.console.render(),
        "one\n[error] two\n[warn] three\nfour\nfive"
    );
    let levels: Vec<_> = out.console.lines().iter().map(|l| l.level).collect();
    assert_eq!(
        levels,
        [
            tack_codemode::Level::Log,
            tack_codemode::Level::Error,
            tack_codemode::Level::Warn,
            tack_codemode::Level::Info,
            tack_codemode::Level::Debug
        ]
    );
}

#[tokio::test]
async fn console_formats_values_readably() {
    let out = ok("const cyclic = { a: 1 }; cyclic.self = cyclic; \
                  console.log('s', 1, 1.5, true, null, undefined, { b: [1, 'x'] }, [1, 2], \
                              new TypeError('bad'), function named() {}, 10n, Symbol('k'), cyclic)")
    .await;
    assert_eq!(
        out.console.render(),
        "s 1 1.5 true null undefined {\"b\":[1,\"x\"]} [1,2] TypeError: bad [Function named] 10n Symbol(k) [object Object]"
    );
}

#[tokio::test]
async fn the_return_value_comes_back_as_json() {
    assert_eq!(
        value("return { n: 1, s: 'x', list: [true, null], nested: { d: 1.5 } }").await,
        json!({ "n": 1, "s": "x", "list": [true, null], "nested": { "d": 1.5 } })
    );
    assert_eq!(ok("const x = 1").await.value, None);
    assert_eq!(ok("return undefined").await.value, None);
    assert_eq!(value("return 'text'").await, json!("text"));
    // What JSON cannot hold comes back as its string.
    assert_eq!(value("return 12n").await, json!("12n"));
    // A top-level await, and a value from a promise.
    assert_eq!(
        value("const v = await Promise.resolve(41); return v + 1").await,
        json!(42)
    );
}

#[tokio::test]
async fn console_output_past_the_cap_is_dropped_with_a_note() {
    let limits = Limits {
        max_output_bytes: 20,
        ..limits()
    };
    let out = run_with(
        "for (let i = 0; i < 100; i++) console.log('line ' + i); return 'done'",
        &limits,
    )
    .await
    .unwrap();
    // "line 0\nline 1\n" is 14 bytes, "line 2\n" fits, "line 3" is cut.
    assert_eq!(out.value, Some(json!("done")));
    assert!(out.console.is_truncated());
    let kept: usize = out.console.lines().iter().map(|l| l.text.len() + 1).sum();
    assert!(kept <= 20 + 1, "{kept}");
    let printed: usize = (0..100).map(|i| format!("line {i}\n").len()).sum();
    assert_eq!(kept - 1 + out.console.dropped_bytes(), printed);
    assert!(
        out.console.render().ends_with(&format!(
            "[console output cut at 20 bytes: {} more bytes (98 lines) dropped]",
            out.console.dropped_bytes()
        )),
        "{}",
        out.console.render()
    );
}
