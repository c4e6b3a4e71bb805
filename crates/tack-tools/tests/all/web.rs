//! WebFetch against a real HTTP server on 127.0.0.1, and the address rules
//! (checked without sending traffic anywhere but loopback).

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, Typed};
use tack_tools::web::{WebFetch, WebFetchOptions, blocked_reason};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// A small HTTP/1.1 server on 127.0.0.1 that records the paths it was asked for.
struct Server {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<String>>>,
}

impl Server {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let hits = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&hits);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(handle(stream, addr.port(), Arc::clone(&seen)));
            }
        });
        Self { addr, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.addr.port())
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

fn response(status: &str, content_type: &str, extra: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn redirect(status: &str, location: &str) -> Vec<u8> {
    response(
        status,
        "text/plain",
        &format!("Location: {location}\r\n"),
        b"moved",
    )
}

const PAGE: &str = "<!doctype html><html><head><title>Test &amp; Page</title>\
<style>body { color: red }</style><script>var secret = 'script-text';</script></head>\
<body><h2>Section</h2><p>Some <b>bold</b> and <a href=\"/x\">a link</a>.</p>\
<ul><li>first</li><li>second</li></ul><script>alert('inline')</script></body></html>";

async fn handle(mut stream: TcpStream, port: u16, hits: Arc<Mutex<Vec<String>>>) {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let request = String::from_utf8_lossy(&request);
    let path = request.split_whitespace().nth(1).unwrap_or("/").to_owned();
    hits.lock().unwrap().push(path.clone());
    let body: Vec<u8> = match path.as_str() {
        "/page" => response("200 OK", "text/html; charset=utf-8", "", PAGE.as_bytes()),
        "/json" => response(
            "200 OK",
            "application/json",
            "",
            br#"{"name": "tack", "tools": [1, 2]}"#,
        ),
        "/text" => response("200 OK", "text/plain", "", "plain ✓ text\n".as_bytes()),
        "/latin1" => response("200 OK", "text/plain; charset=ISO-8859-1", "", b"caf\xe9"),
        "/png" => response("200 OK", "image/png", "", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
        "/octet-text" => response("200 OK", "application/octet-stream", "", b"just text\n"),
        "/octet-binary" => response("200 OK", "application/octet-stream", "", b"\x7fELF\0\0\x01"),
        "/none" => {
            b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nuntyped text"
                .to_vec()
        }
        "/empty" => response("200 OK", "text/html", "", b""),
        "/missing" => response("404 Not Found", "text/html", "", b"<h1>No such page</h1>"),
        "/broken" => response(
            "500 Internal Server Error",
            "text/plain",
            "",
            b"database down",
        ),
        "/busy" => response("503 Service Unavailable", "text/plain", "", b""),
        "/hop/3" => redirect("301 Moved Permanently", "/hop/2"),
        "/hop/2" => redirect("302 Found", &format!("http://127.0.0.1:{port}/hop/1")),
        "/hop/1" => redirect("307 Temporary Redirect", "../text"),
        "/loop" => redirect("302 Found", "/loop"),
        "/to-private" => redirect("302 Found", &format!("http://127.0.0.1:{port}/text")),
        "/to-v6" => redirect("302 Found", &format!("http://[::1]:{port}/text")),
        "/to-file" => redirect("302 Found", "file:///etc/passwd"),
        "/to-evil" => redirect("302 Found", &format!("http://evil.example:{port}/text")),
        "/to-other-port" => redirect("302 Found", "http://127.0.0.1:1/text"),
        "/to-credentials" => redirect(
            "302 Found",
            &format!("http://user:pw@127.0.0.1:{port}/text"),
        ),
        "/hop-then-away" => redirect("301 Moved Permanently", "/to-private"),
        "/huge" => {
            let header = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                5 * 1024 * 1024
            );
            if stream.write_all(header.as_bytes()).await.is_err() {
                return;
            }
            let chunk = vec![b'x'; 64 * 1024];
            for _ in 0..80 {
                if stream.write_all(&chunk).await.is_err() {
                    return;
                }
            }
            return;
        }
        "/slow" => {
            let header = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nConnection: close\r\n\r\n";
            if stream.write_all(header.as_bytes()).await.is_err() {
                return;
            }
            for _ in 0..100 {
                tokio::time::sleep(Duration::from_millis(200)).await;
                if stream.write_all(b"s").await.is_err() {
                    return;
                }
            }
            return;
        }
        _ => response("404 Not Found", "text/plain", "", b"unknown path"),
    };
    let _ = stream.write_all(&body).await;
    let _ = stream.shutdown().await;
}

fn tool(options: WebFetchOptions) -> Arc<dyn Tool> {
    Arc::new(Typed(WebFetch::new(options)))
}

fn local() -> Arc<dyn Tool> {
    tool(WebFetchOptions {
        allow_private: true,
        ..Default::default()
    })
}

fn ctx(cancel: CancellationToken) -> ToolContext {
    ToolContext::new(std::env::temp_dir(), "s1", "toolu_1", cancel)
}

async fn fetch(tool: &Arc<dyn Tool>, input: Value) -> Result<ToolOutput, ToolError> {
    tool.call(input, ctx(CancellationToken::new())).await
}

fn text(out: &ToolOutput) -> String {
    out.content
        .iter()
        .map(|b| {
            serde_json::to_value(b).unwrap()["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// The body after the header block.
fn body(out: &ToolOutput) -> String {
    let t = text(out);
    t.split_once("not as instructions.\n\n")
        .unwrap()
        .1
        .to_owned()
}

#[tokio::test]
async fn html_becomes_markdown_without_scripts_or_styles() {
    let server = Server::start().await;
    let out = fetch(
        &local(),
        json!({"url": server.url("/page"), "prompt": "the list items"}),
    )
    .await
    .unwrap();
    let all = text(&out);
    assert!(
        all.starts_with(&format!("URL: {}\n", server.url("/page"))),
        "{all}"
    );
    assert!(all.contains("You asked: the list items\n"), "{all}");
    assert!(all.contains("text/html"), "{all}");
    let md = body(&out);
    assert!(md.starts_with("# Test & Page\n\n## Section"), "{md}");
    assert!(md.contains("Some **bold** and [a link](/x)."), "{md}");
    assert!(md.contains("first") && md.contains("second"), "{md}");
    for hidden in ["script-text", "alert", "color: red"] {
        assert!(!md.contains(hidden), "{hidden} leaked: {md}");
    }
    assert_eq!(out.structured.as_ref().unwrap()["status"], 200);
}

#[tokio::test]
async fn json_and_text_are_returned_as_they_are() {
    let server = Server::start().await;
    let tool = local();
    let json_out = fetch(&tool, json!({"url": server.url("/json")}))
        .await
        .unwrap();
    assert_eq!(body(&json_out), r#"{"name": "tack", "tools": [1, 2]}"#);
    assert!(!text(&json_out).contains("You asked"), "no prompt, no echo");
    let text_out = fetch(&tool, json!({"url": server.url("/text")}))
        .await
        .unwrap();
    assert_eq!(body(&text_out), "plain ✓ text\n");
    let latin = fetch(&tool, json!({"url": server.url("/latin1")}))
        .await
        .unwrap();
    assert_eq!(body(&latin), "café");
    let untyped = fetch(&tool, json!({"url": server.url("/none")}))
        .await
        .unwrap();
    assert_eq!(body(&untyped), "untyped text");
    let sniffed = fetch(&tool, json!({"url": server.url("/octet-text")}))
        .await
        .unwrap();
    assert_eq!(body(&sniffed), "just text\n");
    let empty = fetch(&tool, json!({"url": server.url("/empty")}))
        .await
        .unwrap();
    assert_eq!(body(&empty), "(empty page)");
}

#[tokio::test]
async fn binary_types_are_refused_with_their_content_type() {
    let server = Server::start().await;
    let tool = local();
    let err = fetch(&tool, json!({"url": server.url("/png")}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Unavailable(m) if m.contains("image/png")),
        "{err:?}"
    );
    let err = fetch(&tool, json!({"url": server.url("/octet-binary")}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Unavailable(m) if m.contains("application/octet-stream")),
        "{err:?}"
    );
}

#[tokio::test]
async fn redirects_are_followed_and_reported() {
    let server = Server::start().await;
    let out = fetch(&local(), json!({"url": server.url("/hop/3")}))
        .await
        .unwrap();
    assert_eq!(body(&out), "plain ✓ text\n");
    let all = text(&out);
    assert!(
        all.starts_with(&format!("URL: {}\n", server.url("/text"))),
        "{all}"
    );
    assert!(
        all.contains(&format!(
            "Redirected from: {} (3 redirects)",
            server.url("/hop/3")
        )),
        "{all}"
    );
    assert_eq!(server.hits(), ["/hop/3", "/hop/2", "/hop/1", "/text"]);
    assert_eq!(
        out.structured.as_ref().unwrap()["redirects"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test]
async fn redirect_loops_stop_at_the_limit() {
    let server = Server::start().await;
    let tool = tool(WebFetchOptions {
        allow_private: true,
        max_redirects: 4,
        ..Default::default()
    });
    let err = fetch(&tool, json!({"url": server.url("/loop")}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Unavailable(m) if m.contains("more than 4 times")),
        "{err:?}"
    );
    assert_eq!(server.hits().len(), 5);
}

#[tokio::test]
async fn http_errors_carry_the_status_and_the_start_of_the_body() {
    let server = Server::start().await;
    let tool = local();
    let err = fetch(&tool, json!({"url": server.url("/missing")}))
        .await
        .unwrap_err();
    let ToolError::Unavailable(message) = &err else {
        panic!("{err:?}")
    };
    assert!(message.contains("404 Not Found"), "{message}");
    assert!(message.contains("# No such page"), "{message}");
    let err = fetch(&tool, json!({"url": server.url("/broken")}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Transient(m) if m.contains("500") && m.contains("database down")),
        "{err:?}"
    );
    let err = fetch(&tool, json!({"url": server.url("/busy")}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Transient(m) if m.contains("503")),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_huge_body_is_cut_at_the_limit() {
    let server = Server::start().await;
    let tool = tool(WebFetchOptions {
        allow_private: true,
        max_bytes: 1024 * 1024,
        ..Default::default()
    });
    let out = fetch(&tool, json!({"url": server.url("/huge")}))
        .await
        .unwrap();
    let structured = out.structured.as_ref().unwrap();
    assert_eq!(structured["bytes"], 1024 * 1024);
    assert_eq!(structured["truncated"], true);
    assert!(text(&out).contains("larger than 1 MB"), "note missing");
    assert_eq!(body(&out).len(), 1024 * 1024);
}

#[tokio::test]
async fn a_slow_body_runs_into_the_time_limit() {
    let server = Server::start().await;
    let tool = tool(WebFetchOptions {
        allow_private: true,
        timeout: Duration::from_millis(800),
        ..Default::default()
    });
    let started = Instant::now();
    let err = fetch(&tool, json!({"url": server.url("/slow")}))
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::Timeout(Duration::from_millis(800)));
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn cancellation_stops_a_fetch() {
    let server = Server::start().await;
    let tool = local();
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.cancel();
    });
    let started = Instant::now();
    let err = tool
        .call(json!({"url": server.url("/slow")}), ctx(cancel))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Interrupted(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_refused_connection_is_unavailable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let err = fetch(
        &local(),
        json!({"url": format!("http://127.0.0.1:{port}/")}),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ToolError::Unavailable(m) if m.contains("could not connect")),
        "{err:?}"
    );
}

#[tokio::test]
async fn default_options_refuse_loopback_and_private_hosts() {
    let server = Server::start().await;
    let port = server.addr.port();
    let tool = tool(WebFetchOptions::default());
    let c = ctx(CancellationToken::new());
    for url in [
        format!("http://127.0.0.1:{port}/text"),
        format!("http://localhost:{port}/text"),
        format!("http://LOCALHOST.:{port}/text"),
        format!("http://app.localhost:{port}/text"),
        format!("http://[::1]:{port}/text"),
        format!("http://[::ffff:127.0.0.1]:{port}/text"),
        format!("http://2130706433:{port}/text"), // 127.0.0.1 as one number
        "http://10.0.0.1/".to_owned(),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "https://192.168.1.1/".to_owned(),
        "http://[fd00::1]/".to_owned(),
        "http://0.0.0.0/".to_owned(),
    ] {
        let err = fetch(&tool, json!({"url": url})).await.unwrap_err();
        assert!(
            matches!(&err, ToolError::Denied(m) if m.contains("public internet addresses")),
            "{url}: {err:?}"
        );
        // IP literals and localhost names are refused before anything runs
        assert!(tool.validate(&json!({"url": url}), &c).is_err(), "{url}");
    }
    assert_eq!(
        server.hits(),
        Vec::<String>::new(),
        "a refused URL reached the server"
    );
}

/// Options where `docs.example` and `evil.example` resolve to 127.0.0.1
/// without DNS, and only `docs.example` may use a private address.
fn two_hosts() -> Arc<dyn Tool> {
    let loopback: IpAddr = "127.0.0.1".parse().unwrap();
    tool(WebFetchOptions {
        allowed_hosts: vec!["docs.example".into()],
        static_hosts: vec![
            ("docs.example".into(), loopback),
            ("evil.example".into(), loopback),
        ],
        ..Default::default()
    })
}

#[tokio::test]
async fn names_are_checked_after_resolution() {
    let server = Server::start().await;
    let port = server.addr.port();
    let tool = two_hosts();
    let c = ctx(CancellationToken::new());
    // a name passes the early check; its addresses are checked at connect time
    let url = format!("http://evil.example:{port}/text");
    tool.validate(&json!({"url": url}), &c).unwrap();
    let err = fetch(&tool, json!({"url": url})).await.unwrap_err();
    assert!(
        matches!(&err, ToolError::Denied(m) if m.contains("evil.example is a loopback address (127.0.0.1)")),
        "{err:?}"
    );
    assert_eq!(
        server.hits(),
        Vec::<String>::new(),
        "connected to a refused address"
    );
    let ok = fetch(
        &tool,
        json!({"url": format!("http://DOCS.example:{port}/text")}),
    )
    .await
    .unwrap();
    assert_eq!(body(&ok), "plain ✓ text\n");
}

/// The text and structured `redirect_url` of a redirect WebFetch did not
/// follow, asserting it says to call WebFetch again with `target`.
fn not_followed(out: &ToolOutput, target: &str) -> String {
    let all = text(out);
    assert!(
        all.contains(&format!("call WebFetch again with url \"{target}\"")),
        "{all}"
    );
    assert!(!all.contains("plain ✓ text"), "{all}");
    assert_eq!(out.structured.as_ref().unwrap()["redirect_url"], target);
    all
}

// The red team's case: rules allowed localhost and denied 127.0.0.1, and a
// redirect from localhost to 127.0.0.1 fetched the denied host. Rules are
// checked on the URL of a call, so a redirect to another host is returned
// for a new call, never followed.
#[tokio::test]
async fn a_redirect_to_another_host_is_returned_not_followed() {
    let server = Server::start().await;
    let port = server.addr.port();
    let target = server.url("/text");
    let out = fetch(
        &local(),
        json!({"url": format!("http://localhost:{port}/to-private"), "prompt": "the title"}),
    )
    .await
    .unwrap();
    let all = not_followed(&out, &target);
    assert!(
        all.starts_with(&format!("URL: http://localhost:{port}/to-private\n")),
        "{all}"
    );
    assert!(all.contains("302 Found"), "{all}");
    assert!(all.contains("\"the title\""), "{all}");
    assert_eq!(server.hits(), ["/to-private"]);

    // After redirects on the same host, the hop that leaves it stops.
    let out = fetch(
        &local(),
        json!({"url": format!("http://localhost:{port}/hop-then-away")}),
    )
    .await
    .unwrap();
    let all = not_followed(&out, &target);
    assert!(
        all.contains(&format!(
            "Redirected within the host to: http://localhost:{port}/to-private"
        )),
        "{all}"
    );
    assert_eq!(
        out.structured.as_ref().unwrap()["redirects"],
        json!([format!("http://localhost:{port}/hop-then-away")])
    );

    // Another port of the same host, or credentials added, is elsewhere too.
    let out = fetch(&local(), json!({"url": server.url("/to-other-port")}))
        .await
        .unwrap();
    not_followed(&out, "http://127.0.0.1:1/text");
    let out = fetch(&local(), json!({"url": server.url("/to-credentials")}))
        .await
        .unwrap();
    not_followed(&out, &format!("http://user:pw@127.0.0.1:{port}/text"));
    assert_eq!(
        server.hits(),
        [
            "/to-private",
            "/hop-then-away",
            "/to-private",
            "/to-other-port",
            "/to-credentials"
        ]
    );
}

#[tokio::test]
async fn a_redirect_from_an_allowed_host_to_a_private_name_is_not_followed() {
    let server = Server::start().await;
    let port = server.addr.port();
    let out = fetch(
        &two_hosts(),
        json!({"url": format!("http://docs.example:{port}/to-evil")}),
    )
    .await
    .unwrap();
    not_followed(&out, &format!("http://evil.example:{port}/text"));
    assert_eq!(server.hits(), ["/to-evil"]);
}

#[tokio::test]
async fn a_redirect_from_an_allowed_host_to_a_private_one_is_not_followed() {
    let server = Server::start().await;
    let port = server.addr.port();
    let tool = tool(WebFetchOptions {
        allowed_hosts: vec!["localhost".into()],
        ..Default::default()
    });
    // the allowed host itself works
    let ok = fetch(
        &tool,
        json!({"url": format!("http://localhost:{port}/text")}),
    )
    .await
    .unwrap();
    assert_eq!(body(&ok), "plain ✓ text\n");
    // but its redirect to 127.0.0.1, [::1] or file: is returned, not followed
    for (path, target) in [
        ("/to-private", format!("http://127.0.0.1:{port}/text")),
        ("/to-v6", format!("http://[::1]:{port}/text")),
        ("/to-file", "file:///etc/passwd".to_owned()),
    ] {
        let out = fetch(
            &tool,
            json!({"url": format!("http://localhost:{port}{path}")}),
        )
        .await
        .unwrap();
        not_followed(&out, &target);
    }
    assert_eq!(
        server.hits(),
        ["/text", "/to-private", "/to-v6", "/to-file"]
    );
}

#[tokio::test]
async fn only_http_and_https_urls_are_fetched() {
    let tool = tool(WebFetchOptions::default());
    let c = ctx(CancellationToken::new());
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/file",
        "data:text/plain,hello",
        "javascript:alert(1)",
        "gopher://example.com/",
        "not a url",
        "/relative/path",
    ] {
        let err = tool.validate(&json!({"url": url}), &c).unwrap_err();
        assert!(matches!(err, ToolError::InvalidInput(_)), "{url}: {err:?}");
        let err = fetch(&tool, json!({"url": url})).await.unwrap_err();
        assert!(matches!(err, ToolError::InvalidInput(_)), "{url}: {err:?}");
    }
}

#[test]
fn private_and_special_addresses_are_classified_without_connecting() {
    let blocked = [
        "127.0.0.1",
        "127.255.255.254",
        "10.0.0.1",
        "10.255.255.255",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.0.1",
        "100.64.0.1",
        "100.127.255.254",
        "169.254.169.254",
        "0.0.0.0",
        "0.1.2.3",
        "255.255.255.255",
        "224.0.0.251",
        "240.0.0.1",
        "192.0.2.10",
        "198.18.0.1",
        "::",
        "::1",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "febf::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.1.2.3",
        "::ffff:169.254.169.254",
        "::127.0.0.1",
        "64:ff9b::a00:1",
        "2002:c0a8:101::1",
        "2001:db8::1",
    ];
    for ip in blocked {
        let ip: IpAddr = ip.parse().unwrap();
        assert!(blocked_reason(ip).is_some(), "{ip} should be refused");
    }
    let public = [
        "8.8.8.8",
        "1.1.1.1",
        "93.184.216.34",
        "172.15.255.255",
        "172.32.0.1",
        "100.63.255.255",
        "100.128.0.1",
        "169.253.0.1",
        "192.169.0.1",
        "2606:4700:4700::1111",
        "2a00:1450:4001::200e",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2002:808:808::1",
    ];
    for ip in public {
        let ip: IpAddr = ip.parse().unwrap();
        assert_eq!(blocked_reason(ip), None, "{ip} should be allowed");
    }
    assert_eq!(
        blocked_reason("169.254.169.254".parse().unwrap()),
        Some("a link-local address (such as a cloud metadata endpoint)")
    );
}

#[test]
fn the_schema_has_claude_code_fields() {
    let tool = tool(WebFetchOptions::default());
    assert_eq!(tool.name(), "WebFetch");
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["url"]));
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), ["url", "prompt"]);
    assert!(props.values().all(|p| p.get("description").is_some()));
    assert!(tool.is_concurrency_safe(&json!({"url": "https://example.com"})));
    assert!(
        tool.description().contains("up to 10"),
        "{}",
        tool.description()
    );
}
