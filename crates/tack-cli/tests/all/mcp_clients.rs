//! Claude Code and Codex CLI, real MCP clients installed from npm
//! (tests/clients, pinned by its lockfile), use `tack mcp serve` as their MCP
//! server while the in-repo mock plays their model. What their model reads
//! back from tack's Bash, Grep and WebFetch must be what the tool printed,
//! not the call's metadata.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use super::*;

/// The npm packages' directory (installed by tests/clients/setup.sh, which
/// scripts/test runs).
fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/node_modules")
}

fn native(relative: &str) -> PathBuf {
    let path = clients_dir().join(relative);
    assert!(
        path.is_file(),
        "{} is missing: run `bash crates/tack-cli/tests/clients/setup.sh` (scripts/test does)",
        path.display()
    );
    path
}

/// Claude Code's native binary (the npm wrapper's postinstall would copy it
/// over bin/claude.exe; npm 11 skips install scripts it was not told to trust).
fn claude_bin() -> PathBuf {
    let arch = if cfg!(target_arch = "aarch64") {
        "arm64"
    } else {
        "x64"
    };
    native(&format!("@anthropic-ai/claude-code-linux-{arch}/claude"))
}

fn codex_bin() -> PathBuf {
    let (pkg, triple) = if cfg!(target_arch = "aarch64") {
        ("arm64", "aarch64-unknown-linux-musl")
    } else {
        ("x64", "x86_64-unknown-linux-musl")
    };
    native(&format!(
        "@openai/codex-linux-{pkg}/vendor/{triple}/bin/codex"
    ))
}

/// A one-page web server on 127.0.0.1 for WebFetch; answers every request
/// with the same HTML until the test ends.
fn web_page(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/page.html")
}

const PAGE: &str = "<html><head><title>t</title></head><body><h1>Interop</h1><p>webfetch-marker-paragraph</p></body></html>";

/// The world both clients share: a project with a file to grep, a page to
/// fetch, and the `tack mcp serve` command line with Bash, Grep and WebFetch
/// allowed (and loopback fetches, for the page).
struct Peer {
    world: World,
    home: tempfile::TempDir,
}

impl Peer {
    async fn new(steps: impl FnOnce(&Path, &str) -> Vec<Step>) -> Peer {
        let world = World::new(Vec::new()).await;
        std::fs::write(
            world.cwd.path().join("notes.txt"),
            "first line\ngrep-marker-line here\nlast line\n",
        )
        .unwrap();
        let url = web_page(PAGE);
        world.mock.push_all(steps(world.cwd.path(), &url));
        Peer {
            world,
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn serve_args(&self) -> Vec<String> {
        [
            "mcp",
            "serve",
            "--allowed-tools",
            "Bash,Grep,WebFetch",
            "--settings",
            r#"{"webFetch":{"allowPrivate":true}}"#,
        ]
        .map(String::from)
        .to_vec()
    }

    /// What the tack server needs in its environment: its own state.
    fn serve_env(&self) -> Vec<(String, String)> {
        let state = self.world.state.path();
        vec![
            ("TACK_STATE_DIR".into(), state.display().to_string()),
            (
                "TACK_CONFIG_DIR".into(),
                state.join("config").display().to_string(),
            ),
        ]
    }

    /// A client command with a private home and nothing of the user's.
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("TMPDIR", self.home.path())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .current_dir(self.world.cwd.path())
            .stdin(Stdio::null());
        cmd
    }
}

async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// The three calls the model makes, the same for both clients.
fn calls(prefix: &str, cwd: &Path, url: &str) -> Vec<(String, String, Value)> {
    vec![
        (
            "call_bash".into(),
            format!("{prefix}Bash"),
            json!({"command": "echo bash-marker-$((6*7))", "description": "print a marker"}),
        ),
        (
            "call_grep".into(),
            format!("{prefix}Grep"),
            json!({"pattern": "grep-marker", "path": cwd.display().to_string(), "output_mode": "content"}),
        ),
        (
            "call_fetch".into(),
            format!("{prefix}WebFetch"),
            json!({"url": url, "prompt": "the paragraph"}),
        ),
    ]
}

/// What each call's result must show the model, and what it must not.
const EXPECTED: [(&str, &str); 3] = [
    ("call_bash", "bash-marker-42"),
    ("call_grep", "grep-marker-line here"),
    ("call_fetch", "webfetch-marker-paragraph"),
];

fn assert_results(results: &[(String, String)], client: &str) {
    for (id, marker) in EXPECTED {
        let (_, text) = results
            .iter()
            .find(|(have, _)| have == id)
            .unwrap_or_else(|| panic!("{client} sent no result for {id}: {results:?}"));
        assert!(
            text.contains(marker),
            "{client}'s model did not see the output of {id}: {text}"
        );
        for metadata in ["\"exit_code\"", "\"timed_out\"", "\"files\":"] {
            assert!(
                !text.contains(metadata),
                "{client}'s model was shown call metadata for {id}: {text}"
            );
        }
    }
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| p.get("text").map(text_of).unwrap_or_else(|| p.to_string()))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// How the client reaches tack: it spawns `tack mcp serve` (stdio), or it
/// connects to one serving streamable HTTP with a bearer token.
enum Transport {
    Stdio,
    Http(HttpServe),
}

/// `tack mcp serve --http 127.0.0.1:0`, killed when the test ends.
struct HttpServe {
    child: std::process::Child,
    url: String,
    token: String,
}

impl HttpServe {
    fn start(peer: &Peer) -> HttpServe {
        let token = "interop-token-0123456789abcdef".to_owned();
        let token_file = peer.home.path().join("token");
        std::fs::write(&token_file, &token).unwrap();
        std::fs::set_permissions(
            &token_file,
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tack"));
        cmd.args(peer.serve_args())
            .args(["--http", "127.0.0.1:0", "--token-file"])
            .arg(&token_file)
            .envs(peer.serve_env())
            .current_dir(peer.world.cwd.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        let url = loop {
            line.clear();
            assert!(
                stderr.read_line(&mut line).unwrap() > 0,
                "tack mcp serve --http ended before listening"
            );
            if let Some(url) = line.trim().strip_prefix("tack: MCP server listening on ") {
                break url.to_owned();
            }
        };
        // Keep draining its stderr so the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        HttpServe { child, url, token }
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn three_calls(cwd: &Path, url: &str) -> Vec<Step> {
    vec![
        Step::tool_uses(calls("mcp__tack__", cwd, url)),
        Step::text("done"),
    ]
}

/// Claude Code in print mode against the mock, with tack as its only MCP
/// server; returns what its model was sent back for each call.
async fn claude_code(peer: &Peer, transport: &Transport) -> Vec<(String, String)> {
    let server = match transport {
        Transport::Stdio => json!({
            "command": env!("CARGO_BIN_EXE_tack"),
            "args": peer.serve_args(),
            "env": peer
                .serve_env()
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect::<serde_json::Map<_, _>>(),
        }),
        Transport::Http(serve) => json!({
            "type": "http",
            "url": serve.url,
            "headers": {"Authorization": format!("Bearer {}", serve.token)},
        }),
    };
    let config_path = peer.home.path().join("mcp.json");
    std::fs::write(
        &config_path,
        json!({"mcpServers": {"tack": server}}).to_string(),
    )
    .unwrap();
    let mut cmd = peer.command(&claude_bin());
    cmd.env("ANTHROPIC_BASE_URL", peer.world.mock.url())
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("CLAUDE_CONFIG_DIR", peer.home.path().join(".claude"))
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .args(["-p", "Use the tack tools."])
        .arg("--mcp-config")
        .arg(&config_path)
        .args([
            "--strict-mcp-config",
            "--allowedTools",
            "mcp__tack__Bash,mcp__tack__Grep,mcp__tack__WebFetch",
            "--output-format",
            "json",
        ]);
    let out = output(cmd).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result["result"], "done", "{result}");
    // Claude Code's runtime probes `GET /` once (a 404, as from the real API).
    let refused: Vec<_> = peer
        .world
        .mock
        .rejections()
        .into_iter()
        .filter(|r| r.path != "/")
        .collect();
    assert!(refused.is_empty(), "{refused:?}");
    let requests = peer.world.mock.requests();
    let last = requests.last().unwrap();
    let messages = last.body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            (
                b["tool_use_id"].as_str().unwrap().to_owned(),
                text_of(&b["content"]),
            )
        })
        .collect()
}

/// `codex exec` against the mock (Responses API), with tack as its only MCP
/// server; returns what its model was sent back for each call.
async fn codex(peer: &Peer, transport: &Transport) -> Vec<(String, String)> {
    let codex_home = peer.home.path().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let quote = |s: &str| Value::String(s.to_owned()).to_string();
    let server = match transport {
        Transport::Stdio => {
            let args: Vec<String> = peer.serve_args().iter().map(|a| quote(a)).collect();
            let env: Vec<String> = peer
                .serve_env()
                .iter()
                .map(|(k, v)| format!("{k} = {}", quote(v)))
                .collect();
            format!(
                "command = {}\nargs = [{}]\nenv = {{ {} }}\n",
                quote(env!("CARGO_BIN_EXE_tack")),
                args.join(", "),
                env.join(", ")
            )
        }
        Transport::Http(serve) => format!(
            "url = {}\nbearer_token_env_var = \"TACK_MCP_TEST_TOKEN\"\n",
            quote(&serve.url)
        ),
    };
    let config = format!(
        "model = \"mock-model\"\nmodel_provider = \"mock\"\n\n\
         [model_providers.mock]\nname = \"mock\"\nbase_url = {}\nenv_key = \"MOCK_API_KEY\"\nwire_api = \"responses\"\n\n\
         [mcp_servers.tack]\n{server}",
        quote(&format!("{}/v1", peer.world.mock.url())),
    );
    std::fs::write(codex_home.join("config.toml"), config).unwrap();
    let mut cmd = peer.command(&codex_bin());
    cmd.env("CODEX_HOME", &codex_home)
        .env("MOCK_API_KEY", "test-key")
        .args([
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "--json",
            "Use the tack tools.",
        ]);
    if let Transport::Http(serve) = transport {
        cmd.env("TACK_MCP_TEST_TOKEN", &serve.token);
    }
    let out = output(cmd).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).contains("done"), "{}", stdout(&out));
    assert!(
        peer.world.mock.rejections().is_empty(),
        "{:?}",
        peer.world.mock.rejections()
    );
    let requests = peer.world.mock.requests();
    let last = requests.last().unwrap();
    last.body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| {
            (
                i["call_id"].as_str().unwrap().to_owned(),
                text_of(&i["output"]),
            )
        })
        .collect()
}

#[tokio::test]
async fn claude_code_reads_the_output_of_tacks_bash_grep_and_webfetch() {
    let peer = Peer::new(three_calls).await;
    let results = claude_code(&peer, &Transport::Stdio).await;
    assert_results(&results, "Claude Code");
}

#[tokio::test]
async fn claude_code_over_http_reads_the_output_of_tacks_tools() {
    let peer = Peer::new(three_calls).await;
    let serve = Transport::Http(HttpServe::start(&peer));
    let results = claude_code(&peer, &serve).await;
    assert_results(&results, "Claude Code over HTTP");
}

#[tokio::test]
async fn codex_reads_the_output_of_tacks_bash_grep_and_webfetch() {
    let peer = Peer::new(three_calls).await;
    let results = codex(&peer, &Transport::Stdio).await;
    assert_results(&results, "Codex");
}

#[tokio::test]
async fn codex_over_http_reads_the_output_of_tacks_tools() {
    let peer = Peer::new(three_calls).await;
    let serve = Transport::Http(HttpServe::start(&peer));
    let results = codex(&peer, &serve).await;
    assert_results(&results, "Codex over HTTP");
}
