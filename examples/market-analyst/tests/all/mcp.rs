//! `market-analyst mcp` answers an MCP client speaking JSON-RPC on its
//! stdio: initialize, notifications/initialized, tools/list, tools/call.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use super::Sandbox;

struct Client {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// A request, and the response with its id (notifications skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }
}

#[test]
fn mcp_lists_and_calls_the_typed_tools() {
    let sandbox = Sandbox::new();
    let mut child = sandbox
        .market_analyst()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut client = Client {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        next: 0,
    };
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "market-analyst-test", "version": "0"}}),
    );
    assert_eq!(
        init["result"]["serverInfo"]["name"], "market-analyst",
        "{init}"
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = client.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    let mut expected = market_analyst::TOOL_NAMES;
    expected.sort_unstable();
    assert_eq!(names, expected, "{list}");
    let snapshot = tools
        .iter()
        .find(|t| t["name"] == "get_stock_snapshot")
        .unwrap();
    assert!(snapshot["description"].as_str().unwrap().contains("as_of"));
    assert_eq!(snapshot["inputSchema"]["required"][0], "ticker");
    assert!(snapshot["outputSchema"].is_object(), "{snapshot}");
    assert_eq!(snapshot["annotations"]["readOnlyHint"], true);

    let call = client.request(
        "tools/call",
        json!({"name": "get_stock_snapshot", "arguments": {"ticker": "bf.b"}}),
    );
    let result = &call["result"];
    assert_eq!(result["isError"], false, "{call}");
    assert_eq!(result["structuredContent"]["ticker"], "BF-B");
    assert_eq!(result["structuredContent"]["as_of"], "2026-11-27T21:00:00Z");

    let missing = client.request(
        "tools/call",
        json!({"name": "get_stock_snapshot", "arguments": {"ticker": "QLTX"}}),
    );
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    let text = missing["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("no price is available"), "{text}");

    let bad = client.request(
        "tools/call",
        json!({"name": "get_price_history", "arguments": {"ticker": "AAPL", "period": "2w"}}),
    );
    assert_eq!(
        bad["result"]["isError"], true,
        "the schema refuses 2w: {bad}"
    );

    drop(client);
    assert!(
        child.wait().unwrap().success(),
        "it ends when the client closes"
    );
    // The sidecar's pipeline kept an audit trail.
    let results = sandbox.tool_results("get_stock_snapshot");
    let outcomes: Vec<&str> = results
        .iter()
        .filter_map(|r| r["outcome"].as_str())
        .collect();
    assert_eq!(outcomes, ["ok", "unavailable"]);
}
