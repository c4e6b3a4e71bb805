//! `tack run` in the interface folders calls the stock tools: over the MCP
//! sidecar (`interfaces/mcp`) and as declared command tools
//! (`interfaces/declared`), with `market-analyst` on PATH and the mock as
//! the model. Needs the tack binary next to market-analyst's (`cargo build
//! -p tack-cli` with the same target directory) or at `$TACK_BIN`; without
//! it the tests say so and pass.

use std::path::PathBuf;
use std::process::Output;

use serde_json::{Value, json};
use tack_testkit::{MockServer, Step};

use super::{Sandbox, binary, example_dir, result_text, stderr};

/// The tack binary, when it was built.
fn tack() -> Option<PathBuf> {
    let path = std::env::var_os("TACK_BIN")
        .map(PathBuf::from)
        .or_else(|| binary().parent().map(|dir| dir.join("tack")))?;
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "SKIPPED: no tack binary at {}; build it with `cargo build -p tack-cli` (same CARGO_TARGET_DIR) or set TACK_BIN",
            path.display()
        );
        None
    }
}

/// `tack run ARGS` in `interfaces/<folder>` with market-analyst on PATH.
async fn tack_run(
    sandbox: &Sandbox,
    tack: &std::path::Path,
    folder: &str,
    mock: &MockServer,
    args: &[&str],
) -> Output {
    let cwd = example_dir().join("interfaces").join(folder);
    let mut cmd = sandbox.command(tack, &cwd);
    let bin_dir = binary().parent().unwrap().to_owned();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir];
    dirs.extend(std::env::split_paths(&path));
    cmd.env("PATH", std::env::join_paths(dirs).unwrap())
        .env("ANTHROPIC_BASE_URL", mock.url())
        .env("ANTHROPIC_API_KEY", "mock-key")
        .arg("run")
        .args(args);
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// The mock calls `tool` twice (a price, then a missing price), then answers.
fn script(mock: &MockServer, tool: &str) {
    mock.push_all([
        Step::tool_use("call_1", tool, json!({"ticker": "brk-b"})),
        Step::tool_use("call_2", tool, json!({"ticker": "QLTX"})),
        Step::text("BRK.B has a price; QLTX has none."),
    ]);
}

fn outcomes(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["outcome"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_run_calls_the_sidecar_in_interfaces_mcp() {
    let Some(tack) = tack() else { return };
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    let tool = "mcp__market__get_stock_snapshot";
    script(&mock, tool);
    let out = tack_run(
        &sandbox,
        &tack,
        "mcp",
        &mock,
        &["--approve-mcp", "Quote BRK.B and QLTX"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let results = sandbox.tool_results(tool);
    assert_eq!(results.len(), 2, "{}", stderr(&out));
    let first = result_text(&results[0]);
    assert_eq!(results[0]["outcome"], "ok", "{first}");
    assert!(first.contains("\"ticker\":\"BRK.B\""), "{first}");
    // Over MCP an error has no kind: tack's client records the server's
    // isError as invalid input; the sidecar's own text keeps the kind.
    let second = result_text(&results[1]);
    assert_eq!(results[1]["is_error"], true);
    assert!(
        second.contains("get_stock_snapshot is unavailable: no price is available"),
        "{second}"
    );
    // The sidecar's own transcript recorded the kind.
    let served = sandbox.tool_results("get_stock_snapshot");
    assert_eq!(outcomes(&served), ["ok", "unavailable"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_run_calls_the_declared_tools_in_interfaces_declared() {
    let Some(tack) = tack() else { return };
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    let tool = "get_stock_snapshot";
    script(&mock, tool);
    let out = tack_run(
        &sandbox,
        &tack,
        "declared",
        &mock,
        &["--trust-project-settings", "Quote BRK.B and QLTX"],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let results = sandbox.tool_results(tool);
    assert_eq!(
        outcomes(&results),
        ["ok", "unavailable"],
        "{}",
        stderr(&out)
    );
    assert!(result_text(&results[0]).contains("\"ticker\":\"BRK.B\""));
    // The exact argv is in the audit.
    let argv = &results[0]["audit"]["argv"];
    assert_eq!(argv[1], "cli", "{argv}");
    assert_eq!(argv[3], "--ticker=brk-b", "{argv}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_run_lists_reports_through_the_declared_tools() {
    let Some(tack) = tack() else { return };
    let sandbox = Sandbox::new();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_use("call_1", "list_reports", json!({})),
        Step::tool_use("call_2", "show_report", json!({"id": "nope"})),
        Step::text("No reports."),
    ]);
    let reports = sandbox.cwd.join("reports");
    let out = {
        let cwd = example_dir().join("interfaces/declared");
        let mut cmd = sandbox.command(&tack, &cwd);
        let bin_dir = binary().parent().unwrap().to_owned();
        let mut dirs = vec![bin_dir];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap())
            .env("ANTHROPIC_BASE_URL", mock.url())
            .env("ANTHROPIC_API_KEY", "mock-key")
            .env("MARKET_ANALYST_REPORTS", &reports)
            .args(["run", "--trust-project-settings", "List the reports"]);
        tokio::task::spawn_blocking(move || cmd.output().unwrap())
            .await
            .unwrap()
    };
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = &sandbox.tool_results("list_reports")[0];
    assert_eq!(listed["outcome"], "ok", "{listed}");
    assert!(result_text(listed).contains("\"reports\":[]"), "{listed}");
    let shown = &sandbox.tool_results("show_report")[0];
    assert_eq!(shown["outcome"], "invalid_input", "{shown}");
}
