//! `tools`: calls reach the bridge with their input, answers and errors come
//! back as values and rejections, and calls under `Promise.all` overlap.

use std::time::Instant;

use super::*;

#[tokio::test]
async fn a_call_sends_its_input_and_resolves_with_the_answer() {
    let bridge = Fixture::new();
    let out = tack_codemode::run(
        "const echoed = await tools.Echo({ file_path: '/tmp/a', n: [1, 2] }); \
         const issues = await tools['mcp__github__list_issues']({ state: 'open' }); \
         const empty = await tools.Echo(); \
         return { echoed, titles: issues.map((i) => i.title), empty }",
        &limits(),
        bridge.clone(),
    )
    .await
    .unwrap();
    assert_eq!(
        out.value,
        Some(json!({
            "echoed": { "file_path": "/tmp/a", "n": [1, 2] },
            "titles": ["first", "second"],
            "empty": {},
        }))
    );
    assert_eq!(
        bridge.calls(),
        vec![
            (
                "Echo".to_owned(),
                json!({ "file_path": "/tmp/a", "n": [1, 2] })
            ),
            (
                "mcp__github__list_issues".to_owned(),
                json!({ "state": "open" })
            ),
            ("Echo".to_owned(), json!({})),
        ]
    );
    assert_eq!(out.calls, 3);
}

#[tokio::test]
async fn a_tool_error_rejects_with_its_kind_and_message_and_can_be_caught() {
    let got = value(
        "try { await tools.Fail({ kind: 'denied', message: 'Bash is denied by a rule' }); return 'no error' } \
         catch (e) { return [e instanceof Error, e.name, e.kind, e.message, e.tool] }",
    )
    .await;
    assert_eq!(
        got,
        json!([
            true,
            "ToolError",
            "denied",
            "Bash is denied by a rule",
            "Fail"
        ])
    );
}

#[tokio::test]
async fn an_uncaught_tool_error_ends_the_run_with_its_message() {
    let e = fails(
        "console.log('start');\nawait tools.Fail({ kind: 'not_found', message: 'no such file: /x' });\nreturn 1",
    )
    .await;
    let error = uncaught(&e);
    assert_eq!(error.name, "ToolError");
    assert_eq!(error.kind.as_deref(), Some("not_found"));
    assert_eq!(error.message, "no such file: /x");
    assert_eq!(e.console.render(), "start");
    assert!(
        e.to_string()
            .starts_with("uncaught ToolError (not_found): no such file: /x"),
        "{e}"
    );
}

#[tokio::test]
async fn an_unknown_tool_is_undefined_and_calling_it_is_a_catchable_type_error() {
    let got = value(
        "const seen = [typeof tools.nope, 'nope' in tools, 'Echo' in tools, Object.keys(tools)]; \
         try { await tools.nope({}) } catch (e) { seen.push(e.name) } \
         return seen",
    )
    .await;
    assert_eq!(
        got,
        json!([
            "undefined",
            false,
            true,
            ["Echo", "Slow", "Fail", "Hang", "mcp__github__list_issues"],
            "TypeError"
        ])
    );
}

#[tokio::test]
async fn input_that_is_not_json_rejects_without_reaching_the_bridge() {
    let bridge = Fixture::new();
    let out = tack_codemode::run(
        "const cyclic = {}; cyclic.self = cyclic; \
         const kinds = []; \
         for (const input of [cyclic, { n: 1n }, () => 1]) { \
           try { await tools.Echo(input) } catch (e) { kinds.push(e.kind) } \
         } \
         return kinds",
        &limits(),
        bridge.clone(),
    )
    .await
    .unwrap();
    assert_eq!(
        out.value,
        Some(json!(["invalid_input", "invalid_input", "invalid_input"]))
    );
    assert!(bridge.calls().is_empty());
}

#[tokio::test]
async fn search_finds_tools_and_makes_them_callable() {
    let got = value(
        "const before = 'Weather' in tools; \
         const found = await tools.search('weather today'); \
         const none = await tools.search('nothing'); \
         const weather = await tools.Weather({}); \
         return { before, found, none, weather, keys: Object.keys(tools).includes('Weather') }",
    )
    .await;
    assert_eq!(
        got,
        json!({
            "before": false,
            "found": [{
                "name": "Weather",
                "description": "Today's weather.",
                "declaration": "Weather(input: {}): {temp: number}",
            }],
            "none": [],
            "weather": { "temp": 20 },
            "keys": true,
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_under_promise_all_run_together() {
    let one_call = Duration::from_millis(200);
    let started = Instant::now();
    // Spawned, as the agent runs a tool: the run moves between workers.
    let out = tokio::spawn(ok("const answers = await Promise.all( \
                                 [1, 2, 3, 4, 5, 6, 7, 8].map(() => tools.Slow({ ms: 200 }))); \
                               return answers.length"))
    .await
    .unwrap();
    let took = started.elapsed();
    assert_eq!(out.value, Some(json!(8)));
    assert_eq!(out.calls, 8);
    assert!(took >= one_call, "{took:?}");
    assert!(
        took < 2 * one_call,
        "8 calls of 200 ms took {took:?}: they did not overlap"
    );
}

#[tokio::test]
async fn calls_still_running_when_the_program_returns_are_finished_first() {
    let bridge = Fixture::new();
    let started = Instant::now();
    let out = tack_codemode::run(
        "tools.Slow({ ms: 150 }).then((r) => console.log('settled', r.slept)); return 'returned'",
        &limits(),
        bridge.clone(),
    )
    .await
    .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert_eq!(out.value, Some(json!("returned")));
    assert_eq!(out.console.render(), "settled 150");
    assert_eq!(bridge.calls().len(), 1);
}
