//! WebSearch against a fake search backend on 127.0.0.1 that speaks the
//! SearxNG JSON API (`/search?q=…&format=json`) and Brave's
//! (`/res/v1/web/search`, key in `X-Subscription-Token`). A path prefix
//! picks a failure: `/429`, `/500`, `/badjson`, `/slow`.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, Typed};
use tack_tools::web::search::{SearchProvider, WebSearch, WebSearchOptions};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use url::Url;

const KEY: &str = "test-key-123";

/// One request the fake saw: its path with query, and its headers (lower-case names).
#[derive(Debug, Clone)]
struct Seen {
    target: String,
    headers: Vec<(String, String)>,
}

struct Fake {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, Arc::clone(&log)));
            }
        });
        Self { addr, seen }
    }

    fn url(&self, prefix: &str) -> Url {
        Url::parse(&format!("http://{}{prefix}", self.addr)).unwrap()
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn results() -> Vec<Value> {
    vec![
        json!({"title": "Tokio JoinSet docs", "url": "https://docs.rs/tokio/latest/tokio/task/struct.JoinSet.html", "content": "A collection of tasks spawned on a Tokio runtime."}),
        json!({"title": "Blocked spam", "url": "https://www.spam.example/joinset", "content": "Buy now"}),
        json!({"title": "JoinSet example", "url": "https://github.com/tokio-rs/tokio/issues/1", "content": "Using <strong>JoinSet</strong> &amp; abort_all"}),
        json!({"title": "Forum thread", "url": "https://users.rust-lang.org/t/joinset", "content": "How do I wait for all tasks?"}),
    ]
}

async fn serve(mut stream: TcpStream, log: Arc<Mutex<Vec<Seen>>>) {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&request).into_owned();
    let mut lines = text.split("\r\n");
    let target = lines
        .next()
        .unwrap_or("")
        .split(' ')
        .nth(1)
        .unwrap_or("/")
        .to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_owned()))
        .collect();
    log.lock().unwrap().push(Seen {
        target: target.clone(),
        headers: headers.clone(),
    });
    let path = target.split('?').next().unwrap_or("");
    // `/to/PORT/rest`: a redirect to `rest` on localhost:PORT (another host).
    let away = target
        .strip_prefix("/to/")
        .and_then(|t| t.split_once('/'))
        .map(|(port, rest)| format!("Location: http://localhost:{port}/{rest}\r\n"));
    let (status, extra, body) = if let Some(location) = &away {
        ("302 Found", location.as_str(), String::new())
    } else if let Some(rest) = target.strip_prefix("/here") {
        // A redirect on the same host.
        let location = format!("Location: {rest}\r\n");
        let response = format!(
            "HTTP/1.1 302 Found\r\n{location}Content-Length: 0\r\nConnection: close\r\n\r\n"
        );
        let _ = stream.write_all(response.as_bytes()).await;
        return;
    } else if path.starts_with("/429") {
        (
            "429 Too Many Requests",
            "Retry-After: 7\r\n",
            "slow down".to_owned(),
        )
    } else if path.starts_with("/500") {
        ("500 Internal Server Error", "", "engine crashed".to_owned())
    } else if path.starts_with("/badjson") {
        ("200 OK", "", "<html>not json</html>".to_owned())
    } else if path.starts_with("/slow") {
        tokio::time::sleep(Duration::from_secs(5)).await;
        ("200 OK", "", "{}".to_owned())
    } else if path.ends_with("/res/v1/web/search") {
        let key = headers
            .iter()
            .find(|(k, _)| k == "x-subscription-token")
            .map(|(_, v)| v.as_str());
        if key != Some(KEY) {
            (
                "401 Unauthorized",
                "",
                "{\"error\": \"bad token\"}".to_owned(),
            )
        } else {
            let web: Vec<Value> = results()
                .into_iter()
                .map(|r| json!({"title": r["title"], "url": r["url"], "description": r["content"]}))
                .collect();
            (
                "200 OK",
                "",
                json!({"type": "search", "query": {"original": "q"}, "web": {"results": web}})
                    .to_string(),
            )
        }
    } else if path.ends_with("/search") {
        if !target.contains("format=json") {
            ("403 Forbidden", "", "format not allowed".to_owned())
        } else {
            (
                "200 OK",
                "",
                json!({"query": "q", "results": results()}).to_string(),
            )
        }
    } else {
        ("404 Not Found", "", String::new())
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
}

fn tool(options: WebSearchOptions) -> Arc<dyn Tool> {
    Arc::new(Typed(WebSearch::new(options)))
}

async fn call(tool: &Arc<dyn Tool>, input: Value) -> Result<ToolOutput, ToolError> {
    let ctx = ToolContext::new("/", "test", "toolu_1", CancellationToken::new());
    tool.validate(&input, &ctx)?;
    tool.call(input, ctx).await
}

fn text(out: &ToolOutput) -> String {
    crate::files::text(out)
}

fn searxng(fake: &Fake, prefix: &str) -> WebSearchOptions {
    WebSearchOptions::new(SearchProvider::Searxng, fake.url(prefix))
}

#[tokio::test]
async fn searxng_results_are_titles_urls_and_snippets() {
    let fake = Fake::start().await;
    let t = tool(searxng(&fake, ""));
    let out = call(&t, json!({"query": "tokio joinset & abort"}))
        .await
        .unwrap();
    let shown = text(&out);
    insta::assert_snapshot!("websearch_searxng", shown);
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].target,
        "/search?q=tokio+joinset+%26+abort&format=json"
    );
    // Claude Code's WebSearch output object, also the structured result.
    assert_eq!(out.response, out.structured);
    let structured = out.structured.unwrap();
    assert_eq!(structured["query"], "tokio joinset & abort");
    assert_eq!(structured["results"].as_array().unwrap().len(), 4);
    assert_eq!(
        structured["results"][2]["snippet"],
        "Using JoinSet & abort_all"
    );
}

#[tokio::test]
async fn brave_sends_the_key_and_reads_its_answer() {
    let fake = Fake::start().await;
    let mut options = WebSearchOptions::new(SearchProvider::Brave, fake.url("/"));
    options.api_key = Some(KEY.into());
    options.api_key_env = Some("BRAVE_API_KEY".into());
    let out = call(&tool(options.clone()), json!({"query": "tokio"}))
        .await
        .unwrap();
    let shown = text(&out);
    assert!(
        shown.starts_with("Web search for \"tokio\" (Brave Search): 4 results."),
        "{shown}"
    );
    assert!(shown.contains("3. JoinSet example\n   https://github.com/tokio-rs/tokio/issues/1\n   Using JoinSet & abort_all"), "{shown}");
    let seen = fake.seen();
    assert!(
        seen[0].target.starts_with("/res/v1/web/search?q=tokio"),
        "{:?}",
        seen[0]
    );
    assert!(
        seen[0]
            .headers
            .iter()
            .any(|(k, v)| k == "x-subscription-token" && v == KEY)
    );

    options.api_key = Some("wrong".into());
    let e = call(&tool(options.clone()), json!({"query": "tokio"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ToolError::Unavailable(m) if m.contains("HTTP 401") && m.contains("BRAVE_API_KEY")),
        "{e}"
    );
    options.api_key = None;
    let before = fake.seen().len();
    let e = call(&tool(options), json!({"query": "tokio"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ToolError::Unavailable(m) if m.contains("needs an API key")),
        "{e}"
    );
    assert_eq!(fake.seen().len(), before, "nothing is sent without a key");
}

// The Brave key rides in `X-Subscription-Token`, which an HTTP client keeps
// on a redirect to another host: such a redirect is not followed.
#[tokio::test]
async fn a_redirect_to_another_host_is_not_followed_with_the_key() {
    let fake = Fake::start().await;
    let elsewhere = Fake::start().await;
    let mut options = WebSearchOptions::new(
        SearchProvider::Brave,
        fake.url(&format!("/to/{}", elsewhere.addr.port())),
    );
    options.api_key = Some(KEY.into());
    let e = call(&tool(options), json!({"query": "tokio"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ToolError::Unavailable(m) if m.contains("302") && m.contains("does not follow")),
        "{e}"
    );
    assert_eq!(fake.seen().len(), 1);
    assert!(
        elsewhere.seen().is_empty(),
        "the key went to another host: {:?}",
        elsewhere.seen()
    );
    // On the same host a redirect is followed.
    let mut options = WebSearchOptions::new(SearchProvider::Brave, fake.url("/here"));
    options.api_key = Some(KEY.into());
    let out = call(&tool(options), json!({"query": "tokio"}))
        .await
        .unwrap();
    assert!(text(&out).contains("4 results"), "{}", text(&out));
}

#[tokio::test]
async fn domain_lists_filter_and_settings_blocks_hold() {
    let fake = Fake::start().await;
    let mut options = searxng(&fake, "");
    options.blocked_domains = vec!["spam.example".into()];
    let t = tool(options.clone());
    let shown = text(&call(&t, json!({"query": "joinset"})).await.unwrap());
    assert!(!shown.contains("spam.example"), "{shown}");
    assert!(
        shown.contains("1 of 4 left out by domain rules") || shown.contains("; 1 of 4"),
        "{shown}"
    );

    // The model cannot allow what the settings block.
    let shown = text(
        &call(
            &t,
            json!({"query": "joinset", "allowed_domains": ["spam.example", "docs.rs"]}),
        )
        .await
        .unwrap(),
    );
    assert!(
        !shown.contains("spam.example") && shown.contains("docs.rs/tokio"),
        "{shown}"
    );
    assert!(!shown.contains("github.com"), "{shown}");

    let shown = text(
        &call(
            &t,
            json!({"query": "joinset", "blocked_domains": ["https://GitHub.com/"]}),
        )
        .await
        .unwrap(),
    );
    assert!(
        !shown.contains("github.com") && shown.contains("users.rust-lang.org"),
        "{shown}"
    );

    // A settings allow list bounds the call's.
    options.allowed_domains = vec!["rust-lang.org".into()];
    let shown = text(
        &call(
            &tool(options),
            json!({"query": "joinset", "allowed_domains": ["docs.rs"]}),
        )
        .await
        .unwrap(),
    );
    assert!(shown.contains("no results"), "{shown}");
}

#[tokio::test]
async fn backend_failures_are_results_of_the_right_kind() {
    let fake = Fake::start().await;
    let e = call(&tool(searxng(&fake, "/429")), json!({"query": "x y"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ToolError::Transient(m) if m.contains("429") && m.contains("retry after 7 s")),
        "{e}"
    );
    let e = call(&tool(searxng(&fake, "/500")), json!({"query": "x y"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ToolError::Transient(m) if m.contains("HTTP 500") && m.contains("engine crashed")),
        "{e}"
    );
    let e = call(&tool(searxng(&fake, "/badjson")), json!({"query": "x y"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ToolError::Unavailable(m) if m.contains("not its JSON API")),
        "{e}"
    );
    let mut slow = searxng(&fake, "/slow");
    slow.timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let e = call(&tool(slow), json!({"query": "x y"}))
        .await
        .unwrap_err();
    assert_eq!(e, ToolError::Timeout(Duration::from_millis(300)));
    assert!(started.elapsed() < Duration::from_secs(3));

    // Nothing listening: unavailable, saying where it tried.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let down = WebSearchOptions::new(
        SearchProvider::Searxng,
        Url::parse(&format!("http://{addr}")).unwrap(),
    );
    let e = call(&tool(down), json!({"query": "x y"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ToolError::Unavailable(m) if m.contains(&addr.to_string())),
        "{e}"
    );
}

#[tokio::test]
async fn bad_input_is_refused_before_any_request() {
    let fake = Fake::start().await;
    let t = tool(searxng(&fake, ""));
    for input in [
        json!({"query": " x "}),
        json!({"query": "ok query", "allowed_domains": ["  "]}),
    ] {
        let e = call(&t, input.clone()).await.unwrap_err();
        assert!(matches!(e, ToolError::InvalidInput(_)), "{input}: {e}");
    }
    assert!(fake.seen().is_empty());
}
