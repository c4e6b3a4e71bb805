//! `market-analyst run` against tack-testkit's mock of the Messages API
//! (real HTTP on 127.0.0.1): the mock plays the model, the binary runs the
//! tools and writes its transcript where `tack run` does.

use std::process::Output;

use serde_json::{Value, json};
use tack_testkit::{MockServer, Step};

use super::{Sandbox, result_text, stderr, stdout};

/// `market-analyst run ARGS` against `mock`, with `env` set.
async fn run(sandbox: &Sandbox, mock: &MockServer, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = sandbox.market_analyst();
    cmd.arg("run")
        .args(args)
        .env("ANTHROPIC_BASE_URL", mock.url())
        .env("ANTHROPIC_API_KEY", "mock-key");
    for (k, v) in env {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// The mock asks for one call, then answers `answer`.
fn one_call(mock: &MockServer, tool: &str, input: Value, answer: &str) {
    mock.push_all([Step::tool_use("call_1", tool, input), Step::text(answer)]);
}

#[tokio::test(flavor = "multi_thread")]
async fn run_answers_and_writes_its_transcript_under_the_state_dir() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    one_call(
        &mock,
        "get_stock_snapshot",
        json!({"ticker": "brk-b"}),
        "BRK.B is at 438.71 USD.",
    );
    let out = run(&sandbox, &mock, &[], &["Quote Berkshire"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "BRK.B is at 438.71 USD.");
    let sessions: Vec<_> = std::fs::read_dir(sandbox.state.join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert!(sessions[0].extension().is_some_and(|e| e == "jsonl"));
    let results = sandbox.tool_results("get_stock_snapshot");
    assert_eq!(results[0]["outcome"], "ok");
    assert!(result_text(&results[0]).contains("\"ticker\":\"BRK.B\""));
    // The audit says who allowed it: the grant on the command-line level.
    assert_eq!(results[0]["audit"]["decision"], "allow");
    // The model saw the five tools.
    let tools: Vec<String> = mock.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    for name in market_analyst::TOOL_NAMES {
        assert!(tools.iter().any(|t| t == name), "{name} in {tools:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_price_is_recorded_as_unavailable() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    one_call(
        &mock,
        "get_stock_snapshot",
        json!({"ticker": "QLTX"}),
        "The price is unavailable.",
    );
    let out = run(&sandbox, &mock, &[], &["Quote QLTX"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = &sandbox.tool_results("get_stock_snapshot")[0];
    assert_eq!(result["outcome"], "unavailable");
    assert_eq!(result["is_error"], true);
    assert!(
        result_text(result).contains("no price is available"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_planted_bug_records_a_price_of_zero() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    one_call(
        &mock,
        "get_stock_snapshot",
        json!({"ticker": "QLTX"}),
        "QLTX is at 0.",
    );
    let broken = [("MARKET_ANALYST_BROKEN", "zero-price")];
    let out = run(&sandbox, &mock, &broken, &["Quote QLTX"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result = &sandbox.tool_results("get_stock_snapshot")[0];
    assert_eq!(result["outcome"], "ok");
    assert!(result_text(result).contains("\"price\":0.0"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn error_kinds_reach_the_transcript() {
    type Env = &'static [(&'static str, &'static str)];
    let cases: [(Env, Value, &str); 4] = [
        (&[], json!({"ticker": "Apex"}), "invalid_input"),
        (
            &[("MARKET_ANALYST_FAULTS", "transient:10")],
            json!({"ticker": "AAPL"}),
            "transient",
        ),
        (
            &[("MARKET_ANALYST_FAULTS", "transient:2")],
            json!({"ticker": "AAPL"}),
            "ok",
        ),
        (&[], json!({"ticker": "KSTM"}), "ok"),
    ];
    for (env, input, outcome) in cases {
        let sandbox = Sandbox::new();
        let mock = MockServer::start().await;
        one_call(&mock, "get_stock_snapshot", input.clone(), "Done.");
        let out = run(&sandbox, &mock, env, &["Quote it"]).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let result = &sandbox.tool_results("get_stock_snapshot")[0];
        assert_eq!(result["outcome"], outcome, "{input}: {result}");
        let text = result_text(result);
        match outcome {
            "invalid_input" => assert!(text.contains("APXB") && text.contains("APXI"), "{text}"),
            "transient" => assert!(
                text.contains("Retrying the same call may succeed"),
                "{text}"
            ),
            _ if input["ticker"] == "KSTM" => assert!(text.contains("\"stale\":true"), "{text}"),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn json_output_is_the_result_object_of_tack_run() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    one_call(
        &mock,
        "get_financials",
        json!({"ticker": "AAPL"}),
        "Apple grew.",
    );
    let out = run(
        &sandbox,
        &mock,
        &[],
        &["--output-format", "json", "How is Apple doing?"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "Apple grew.");
    assert_eq!(result["num_turns"], 2);
    let id = result["session_id"].as_str().unwrap();
    assert!(sandbox.state.join(format!("sessions/{id}.jsonl")).is_file());
}

#[tokio::test(flavor = "multi_thread")]
async fn max_turns_exits_4() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    mock.push(Step::tool_use(
        "call_1",
        "get_stock_snapshot",
        json!({"ticker": "AAPL"}),
    ));
    let out = run(&sandbox, &mock, &[], &["--max-turns", "1", "Quote Apple"]).await;
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn code_mode_calls_the_tools_from_a_program() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    let code = "const s = await tools.get_stock_snapshot({ticker: 'AAPL'}); \
                const h = await tools.get_price_history({ticker: 'AAPL', period: '5d'}); \
                return {price: s.price, bars: h.bars.length};";
    one_call(&mock, "Code", json!({"code": code}), "Done.");
    let out = run(&sandbox, &mock, &[], &["--code-mode", "Quote Apple"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let code_result = &sandbox.tool_results("Code")[0];
    assert_eq!(code_result["outcome"], "ok", "{code_result}");
    let text = result_text(code_result);
    assert!(
        text.contains("\"bars\":5") || text.contains("\"bars\": 5"),
        "the structured result reached the program: {text}"
    );
    // Each nested call has its own audited result, made by the Code call.
    let nested = &sandbox.tool_results("get_stock_snapshot")[0];
    assert_eq!(nested["audit"]["caller"]["tool"], "Code");
}

/// `market-analyst run` in one of the checked-in interface folders.
async fn run_in(folder: &str, sandbox: &Sandbox, mock: &MockServer, args: &[&str]) -> Output {
    let cwd = super::example_dir().join("interfaces").join(folder);
    let mut cmd = sandbox.command(super::binary(), &cwd);
    cmd.arg("run")
        .args(args)
        .env("ANTHROPIC_BASE_URL", mock.url())
        .env("ANTHROPIC_API_KEY", "mock-key");
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typed_folder_runs_without_warnings() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    one_call(
        &mock,
        "get_stock_snapshot",
        json!({"ticker": "KSTM"}),
        "Stale.",
    );
    let out = run_in("typed", &sandbox, &mock, &["Quote KSTM"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("no known tool"), "{}", stderr(&out));
    let result = &sandbox.tool_results("get_stock_snapshot")[0];
    assert!(result_text(result).contains("\"stale\":true"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_skill_folder_offers_the_stock_overview_skill() {
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    one_call(
        &mock,
        "Skill",
        json!({"skill": "stock-overview"}),
        "Loaded.",
    );
    let out = run_in(
        "skill",
        &sandbox,
        &mock,
        &["--trust-project-skills", "Overview of BRK.B"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let skill_tool = mock.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Skill")
        .cloned()
        .unwrap();
    assert!(
        skill_tool["description"]
            .as_str()
            .unwrap()
            .contains("stock-overview"),
        "the catalog lists it: {skill_tool}"
    );
    let loaded = &sandbox.tool_results("Skill")[0];
    assert_eq!(loaded["outcome"], "ok", "{loaded}");
    assert!(result_text(loaded).contains("Snapshot first"), "{loaded}");
}
