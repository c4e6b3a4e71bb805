//! What an agent definition restricts holds for its sub-agent's calls
//! (round 12): `permissionMode`, its own `hooks`, `disallowedTools` and
//! `tools` named as permission rules name tools, the user's agent over a
//! project's of the same name, and `Agent(type)` rules.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tack_policy::LoadOptions;
use tack_protocol::RunStatus;
use tack_session::{Asked, ProjectContext, Scripted, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, result_text};

/// A project with a user configuration directory of its own.
struct Setup {
    project: Project,
    user: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        Self {
            project: Project::new(),
            user: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes `<user config>/agents/<name>.md`.
    fn user_agent(&self, name: &str, text: &str) -> PathBuf {
        let path = self.user.path().join("agents").join(format!("{name}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Writes `<user config>/settings.json`, with no OS sandbox (the
    /// test binary has no helper next to it).
    fn user_settings(&self, mut value: Value) {
        value["sandbox"] = json!({"enabled": false});
        std::fs::write(self.user.path().join("settings.json"), value.to_string()).unwrap();
    }

    fn context(&self) -> ProjectContext {
        ProjectContext::load_with(
            self.project.dir.path(),
            self.project.state.path().to_owned(),
            LoadOptions {
                user_config_dir: Some(self.user.path().to_owned()),
                ..LoadOptions::default()
            },
        )
        .unwrap()
    }

    async fn run(&self, mock: &MockServer, person: &Scripted) -> tack_agent::RunOutcome {
        let session = Session::assemble(
            &self.context(),
            SessionOptions::new("parent")
                .interaction(Arc::new(person.clone()))
                .subagents(true),
        )
        .await
        .unwrap();
        session
            .run(
                client(mock).await,
                Default::default(),
                "go",
                &CancellationToken::new(),
            )
            .await
    }
}

fn agent_call(id: &str, agent: &str) -> Step {
    Step::tool_use(
        id,
        "Agent",
        json!({"description": "Do it", "prompt": "Do the task", "subagent_type": agent}),
    )
}

use crate::subagents::tool_names;

/// A minimal MCP server over stdio (JSON-RPC lines): tools `other` and
/// `read`, each of which writes the file its `target` names.
const MCP_SERVER: &str = r#"import sys, json
for line in sys.stdin:
    m = json.loads(line)
    i, meth = m.get("id"), m.get("method")
    if meth == "initialize":
        r = {"protocolVersion": m["params"].get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {}}, "serverInfo": {"name": "a", "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": [{"name": n, "description": "tool " + n, "inputSchema": {"type": "object", "properties": {"target": {"type": "string"}}}} for n in ("other", "read")]}
    elif meth == "tools/call":
        open(m["params"]["arguments"]["target"], "w").write("x")
        r = {"content": [{"type": "text", "text": "wrote it"}]}
    elif i is None:
        continue
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": r}) + "\n")
    sys.stdout.flush()
"#;

fn with_mcp_server(setup: &Setup) {
    setup.project.write("srv.py", MCP_SERVER);
    let script = setup.project.path().join("srv.py");
    setup.project.write(
        ".mcp.json",
        &json!({"mcpServers": {"a": {"command": "python3", "args": [script]}}}).to_string(),
    );
}

#[tokio::test]
async fn a_plan_agent_cannot_write_under_a_parent_in_accept_edits() {
    let setup = Setup::new();
    setup.user_settings(
        json!({"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(touch *)"]}}),
    );
    setup.user_agent(
        "planner",
        "---\nname: planner\ndescription: Plans.\npermissionMode: plan\n---\nYou plan.\n",
    );
    let root = setup.project.path();
    let mock = MockServer::start().await;
    mock.push_all([
        agent_call("a1", "planner"),
        Step::tool_uses([
            (
                "s1",
                "Write",
                json!({"file_path": root.join("planned.txt"), "content": "x"}),
            ),
            ("s2", "Bash", json!({"command": "touch touched"})),
            ("s3", "Read", json!({"file_path": root.join("srv.txt")})),
        ]),
        Step::text("planned"),
        // The parent, in acceptEdits, still writes.
        Step::tool_use(
            "p1",
            "Write",
            json!({"file_path": root.join("parent.txt"), "content": "x"}),
        ),
        Step::text("done"),
    ]);
    setup.project.write("srv.txt", "readable");
    let outcome = setup.run(&mock, &Scripted::new()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert!(!root.join("planned.txt").exists(), "the plan agent wrote");
    assert!(!root.join("touched").exists(), "the plan agent ran touch");
    assert!(
        root.join("parent.txt").exists(),
        "the parent lost acceptEdits"
    );
    let requests = mock.requests();
    let (write, is_error) = result_text(&requests[2].body, "s1");
    assert!(is_error && write.contains("plan"), "{write}");
    let (bash, is_error) = result_text(&requests[2].body, "s2");
    assert!(is_error && bash.contains("plan"), "{bash}");
    let (read, is_error) = result_text(&requests[2].body, "s3");
    assert!(!is_error && read.contains("readable"), "{read}");
}

#[tokio::test]
async fn an_agents_own_pre_tool_use_hook_blocks_its_bash() {
    let setup = Setup::new();
    setup.user_settings(json!({"permissions": {"allow": ["Bash(touch *)"]}}));
    setup.user_agent(
        "hooked",
        "---\nname: hooked\ndescription: Guarded.\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"echo 'no shell for this agent' >&2; exit 2\"\n---\n",
    );
    let root = setup.project.path();
    let mock = MockServer::start().await;
    mock.push_all([
        agent_call("a1", "hooked"),
        Step::tool_use("s1", "Bash", json!({"command": "touch by_agent"})),
        Step::text("blocked"),
        // The hook is the agent's: the parent's Bash runs.
        Step::tool_use("p1", "Bash", json!({"command": "touch by_parent"})),
        Step::text("done"),
    ]);
    let outcome = setup.run(&mock, &Scripted::new()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert!(
        !root.join("by_agent").exists(),
        "the agent's hook did not block"
    );
    let (parent, _) = result_text(&mock.requests()[4].body, "p1");
    assert!(root.join("by_parent").exists(), "{parent}");
    let (text, is_error) = result_text(&mock.requests()[2].body, "s1");
    assert!(
        is_error && text.contains("no shell for this agent"),
        "{text}"
    );
}

#[tokio::test]
async fn a_project_agents_hooks_need_trust_and_the_agent_does_not_start_without_it() {
    let setup = Setup::new();
    setup.project.write(
        ".claude/agents/hooked.md",
        "---\nname: hooked\ndescription: Guarded.\nhooks:\n  PreToolUse:\n    - hooks: [{type: command, command: \"touch hook_ran\"}]\n---\n",
    );
    let root = setup.project.path();
    let mock = MockServer::start().await;
    mock.push_all([agent_call("a1", "hooked"), Step::text("done")]);
    let outcome = setup.run(&mock, &Scripted::new()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "the sub-agent started");
    let (text, is_error) = result_text(&requests[1].body, "a1");
    assert!(
        is_error
            && text.contains(".claude/agents/hooked.md:4: hooks")
            && text.contains("--trust-project-settings"),
        "{text}"
    );
    assert!(!root.join("hook_ran").exists());
}

#[tokio::test]
async fn disallowed_tools_remove_a_server_a_list_and_deny_a_rules_calls() {
    let setup = Setup::new();
    with_mcp_server(&setup);
    setup.user_settings(json!({"permissions": {"defaultMode": "acceptEdits", "allow": ["mcp__a", "Bash(rm *)", "Bash(touch *)"]}}));
    setup.user_agent(
        "careful",
        "---\nname: careful\ndescription: Careful.\ndisallowedTools: mcp__a__*, Write Edit, Bash(rm *), Wirte\n---\n",
    );
    setup.user_agent(
        "noserver",
        "---\nname: noserver\ndescription: No server.\ndisallowedTools:\n  - mcp__a\n---\n",
    );
    let root = setup.project.path();
    setup.project.write("keep.txt", "precious");
    let mock = MockServer::start().await;
    mock.push_all([
        agent_call("a1", "careful"),
        Step::tool_uses([
            ("s1", "Bash", json!({"command": "rm keep.txt"})),
            ("s2", "Bash", json!({"command": "touch made"})),
        ]),
        Step::text("careful done"),
        agent_call("a2", "noserver"),
        Step::text("noserver done"),
        Step::text("done"),
    ]);
    let person = Scripted::new().approve_server(true);
    let outcome = setup.run(&mock, &person).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    let parent_tools = tool_names(&requests[0].body);
    assert!(parent_tools.contains("mcp__a__other") && parent_tools.contains("Write"));
    let careful = tool_names(&requests[1].body);
    for gone in ["mcp__a__other", "mcp__a__read", "Write", "Edit"] {
        assert!(!careful.contains(gone), "{gone} in {careful:?}");
    }
    assert!(
        careful.contains("Bash") && careful.contains("Read"),
        "{careful:?}"
    );
    let (rm, is_error) = result_text(&requests[2].body, "s1");
    assert!(
        is_error && rm.contains("Bash(rm *)") && rm.contains("careful.md"),
        "{rm}"
    );
    assert!(root.join("keep.txt").exists(), "rm ran");
    let (made, _) = result_text(&requests[2].body, "s2");
    assert!(
        root.join("made").exists(),
        "the rule denied more than rm: {made}"
    );
    let noserver = tool_names(&requests[4].body);
    assert!(
        !noserver.contains("mcp__a__other") && noserver.contains("Write"),
        "{noserver:?}"
    );
}

#[tokio::test]
async fn tools_with_a_server_wildcard_give_the_servers_tools() {
    let setup = Setup::new();
    with_mcp_server(&setup);
    setup.user_settings(json!({"permissions": {"allow": ["mcp__a"]}}));
    setup.user_agent(
        "mcponly",
        "---\nname: mcponly\ndescription: MCP.\ntools: Read, mcp__a__*\n---\n",
    );
    let root = setup.project.path();
    let mock = MockServer::start().await;
    mock.push_all([
        agent_call("a1", "mcponly"),
        Step::tool_use(
            "s1",
            "mcp__a__other",
            json!({"target": root.join("m_other")}),
        ),
        Step::text("called"),
        Step::text("done"),
    ]);
    let person = Scripted::new().approve_server(true);
    let outcome = setup.run(&mock, &person).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    assert_eq!(
        tool_names(&requests[1].body),
        BTreeSet::from(["Read".into(), "mcp__a__other".into(), "mcp__a__read".into()])
    );
    let (text, is_error) = result_text(&requests[2].body, "s1");
    assert!(!is_error && text.contains("wrote it"), "{text}");
    assert!(root.join("m_other").exists());
}

#[tokio::test]
async fn the_users_agent_wins_over_the_projects_with_a_notice() {
    let setup = Setup::new();
    setup.user_settings(json!({"permissions": {"allow": ["Bash(touch *)"]}}));
    let user_file = setup.user_agent(
        "reviewer",
        "---\nname: reviewer\ndescription: Reviews.\ntools: Read, Grep, Glob\n---\n",
    );
    setup.project.write(
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Bootstraps.\n---\nAlways start with Bash.\n",
    );
    let root = setup.project.path();
    let mock = MockServer::start().await;
    mock.push_all([
        agent_call("a1", "reviewer"),
        Step::tool_use("s1", "Bash", json!({"command": "touch m_reviewer_bash"})),
        Step::text("reviewed"),
        Step::text("done"),
    ]);
    let person = Scripted::new();
    let outcome = setup.run(&mock, &person).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert!(
        !root.join("m_reviewer_bash").exists(),
        "the project's agent ran"
    );
    let requests = mock.requests();
    assert_eq!(
        tool_names(&requests[1].body),
        BTreeSet::from(["Glob".into(), "Grep".into(), "Read".into()])
    );
    assert!(!requests[1].raw_body.contains("Always start with Bash"));
    let notices: Vec<String> = person
        .asked()
        .into_iter()
        .filter_map(|a| match a {
            Asked::Notice(n) => Some(n),
            _ => None,
        })
        .collect();
    let project_file = root.join(".claude/agents/reviewer.md");
    assert!(
        notices
            .iter()
            .any(|n| n.contains(&*project_file.to_string_lossy())
                && n.contains(&*user_file.to_string_lossy())),
        "{notices:?}"
    );
}

#[tokio::test]
async fn a_deny_agent_rule_refuses_that_type_and_lets_another_run() {
    let setup = Setup::new();
    setup
        .project
        .settings(json!({"permissions": {"deny": ["Agent(Explore)"]}}));
    setup.user_agent(
        "Explore",
        "---\nname: Explore\ndescription: Explores.\n---\n",
    );
    let mock = MockServer::start().await;
    mock.push_all([
        agent_call("a1", "Explore"),
        agent_call("a2", "general-purpose"),
        Step::text("general answer"),
        Step::text("done"),
    ]);
    let outcome = setup.run(&mock, &Scripted::new()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    let (denied, is_error) = result_text(&requests[1].body, "a1");
    assert!(is_error && denied.contains("Agent(Explore)"), "{denied}");
    let (ran, is_error) = result_text(&requests[3].body, "a2");
    assert!(!is_error && ran.contains("general answer"), "{ran}");
}
