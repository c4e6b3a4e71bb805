//! `market-analyst reports list|show|save`, in `./reports` or
//! `$MARKET_ANALYST_REPORTS`.

use std::io::Write as _;
use std::process::Stdio;

use serde_json::Value;

use super::{Sandbox, stderr, stdout};

fn reports(sandbox: &Sandbox, args: &[&str], stdin: Option<&str>) -> (i32, Value, String) {
    let mut cmd = sandbox.market_analyst();
    cmd.arg("reports").args(args);
    let out = match stdin {
        Some(text) => {
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
            child.wait_with_output().unwrap()
        }
        None => cmd.output().unwrap(),
    };
    let json = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr(&out))
}

#[test]
fn save_then_list_and_show() {
    let sandbox = Sandbox::new();
    let (code, list, err) = reports(&sandbox, &["list"], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(list["reports"], serde_json::json!([]), "none yet");

    let body = "# Berkshire Hathaway (BRK.B)\n\nPrice: 438.71 USD\n";
    let args = ["save", "--ticker", "brk-b", "--title", "Berkshire overview"];
    let (code, saved, err) = reports(&sandbox, &args, Some(body));
    assert_eq!(code, 0, "{err}");
    assert_eq!(saved["id"], "brk-b-berkshire-overview");
    assert_eq!(saved["created"], true);
    assert!(
        sandbox
            .cwd
            .join("reports/brk-b-berkshire-overview.md")
            .is_file()
    );
    // The same report again changes nothing.
    let (_, again, _) = reports(&sandbox, &args, Some(body));
    assert_eq!(
        (again["id"].as_str(), again["created"].as_bool()),
        (Some("brk-b-berkshire-overview"), Some(false))
    );

    let (code, list, _) = reports(&sandbox, &["list"], None);
    assert_eq!(code, 0);
    let listed = &list["reports"][0];
    assert_eq!(listed["ticker"], "BRK.B", "the ticker as listed");
    assert_eq!(listed["title"], "Berkshire overview");

    let (code, shown, _) = reports(&sandbox, &["show", "brk-b-berkshire-overview"], None);
    assert_eq!(code, 0);
    assert_eq!(shown["body"], body);
}

#[test]
fn bad_input_exits_2() {
    let sandbox = Sandbox::new();
    let (code, _, err) = reports(&sandbox, &["show", "no-such-report"], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no report has the id"), "{err}");
    let (code, _, err) = reports(&sandbox, &["show", "../../etc/passwd"], None);
    assert_eq!(code, 2, "{err}");
    let args = ["save", "--ticker", "NOPE1", "--title", "x"];
    let (code, _, err) = reports(&sandbox, &args, Some("# x"));
    assert_eq!(code, 2, "an unknown ticker: {err}");
    let args = ["save", "--ticker", "AAPL", "--title", "empty"];
    let (code, _, err) = reports(&sandbox, &args, Some("  \n"));
    assert_eq!(code, 2, "an empty body: {err}");
}

#[test]
fn the_folder_can_be_chosen() {
    let sandbox = Sandbox::new();
    let dir = sandbox.cwd.join("elsewhere");
    let mut cmd = sandbox.market_analyst();
    cmd.env("MARKET_ANALYST_REPORTS", &dir)
        .args(["reports", "save", "--ticker", "KO", "--title", "Coke"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"# Coca-Cola")
        .unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    assert!(dir.join("ko-coke.md").is_file());
}
