//! `.mcp.json` at the project root: approval, then variables expanded.

use std::sync::Arc;

use serde_json::json;
use tack_mcp::client::{
    ConfigSource, ManagerOptions, McpConfig, McpManager, ServerState, StartOutcome,
};
use tack_protocol::exit;

use super::support::*;

fn write_mcp_json(home: &Home, peers: &Peers, extra_arg: Option<&str>) {
    let mut args = vec![json!(path(&peers.server_py))];
    if let Some(arg) = extra_arg {
        args.push(json!(arg));
    }
    let doc = json!({"mcpServers": {"proj": {
        "command": path(&peers.python),
        "args": args,
        "env": {"TACK_TEST_EXTRA": "${TACK_TEST_VALUE:-fallback}"}
    }}});
    std::fs::write(home.project().join(".mcp.json"), doc.to_string()).unwrap();
}

fn project_manager(home: &Home, tweak: impl FnOnce(&mut ManagerOptions)) -> McpManager {
    let mut config = McpConfig::new();
    config.load_project(&home.project()).unwrap();
    let mut options = home.options();
    options.env = Some(Arc::new(|_: &str| None));
    tweak(&mut options);
    McpManager::new(config, options).unwrap()
}

#[tokio::test]
async fn project_servers_start_only_once_approved_and_expand_variables() {
    let peers = require_peers!();
    let home = Home::new();
    write_mcp_json(&home, &peers, None);

    let manager = project_manager(&home, |_| {});
    let reports = manager.start().await;
    assert!(
        matches!(reports[0].outcome, StartOutcome::NeedsApproval),
        "{reports:?}"
    );
    assert!(manager.tools().is_empty());
    assert_eq!(manager.list()[0].state, ServerState::NeedsApproval);
    let pending = manager.pending_approval();
    assert_eq!(pending[0].name, "proj");
    assert_eq!(pending[0].source, ConfigSource::McpJson);
    assert!(pending[0].target.contains("server.py"), "{:?}", pending[0]);
    let err = manager.call("proj", "env", json!({})).await.unwrap_err();
    assert_eq!(err.exit_code(), exit::NOT_APPROVED, "{err}");

    manager.approve_server("proj").unwrap();
    start_ok(&manager, &["proj"]).await;
    assert_eq!(
        text(&call(&manager, "mcp__proj__env", json!({})).await.unwrap()),
        "fallback"
    );
    manager.shutdown().await;

    // Remembered across sessions; the variable now comes from the environment.
    let manager = project_manager(&home, |o| {
        o.lazy = false;
        o.env = Some(Arc::new(|v: &str| {
            (v == "TACK_TEST_VALUE").then(|| "from-env".to_owned())
        }));
    });
    start_ok(&manager, &["proj"]).await;
    assert_eq!(
        text(&call(&manager, "mcp__proj__env", json!({})).await.unwrap()),
        "from-env"
    );
    manager.shutdown().await;

    // An edited entry needs approval again.
    write_mcp_json(&home, &peers, Some("--unused"));
    let manager = project_manager(&home, |_| {});
    assert!(matches!(
        manager.start().await[0].outcome,
        StartOutcome::NeedsApproval
    ));
}

#[tokio::test]
async fn an_approval_holds_in_its_own_project_only() {
    // The same entry in another repository runs that repository's code.
    let peers = require_peers!();
    let home = Home::new();
    write_mcp_json(&home, &peers, None);
    let manager = project_manager(&home, |_| {});
    manager.start().await;
    manager.approve_server("proj").unwrap();
    manager.shutdown().await;

    let other = home.dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(home.project().join(".mcp.json"), other.join(".mcp.json")).unwrap();
    let mut config = McpConfig::new();
    config.load_project(&other).unwrap();
    let mut options = home.options();
    options.cwd = other;
    let manager = McpManager::new(config, options).unwrap();
    assert!(
        matches!(
            manager.start().await[0].outcome,
            StartOutcome::NeedsApproval
        ),
        "approved in another project"
    );
    // Still approved where it was approved.
    let manager = project_manager(&home, |o| o.lazy = false);
    start_ok(&manager, &["proj"]).await;
    manager.shutdown().await;
}

/// An approval covers the project's code the server runs, not only its
/// entry: a `git pull` that changes `mcp/server.py` (or a file beside it,
/// which it may import) runs new code, and is asked about again.
#[tokio::test]
async fn an_approval_lapses_when_the_projects_server_code_changes() {
    let peers = require_peers!();
    let home = Home::new();
    let dir = home.project().join("mcp");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("server.py");
    std::fs::copy(&peers.server_py, &script).unwrap();
    let doc = json!({"mcpServers": {"proj": {
        "command": path(&peers.python),
        "args": ["mcp/server.py"]
    }}});
    std::fs::write(home.project().join(".mcp.json"), doc.to_string()).unwrap();
    let needs_approval = |manager: &McpManager| {
        let manager = manager.clone();
        async move {
            matches!(
                manager.start().await[0].outcome,
                StartOutcome::NeedsApproval
            )
        }
    };

    let manager = project_manager(&home, |_| {});
    assert!(needs_approval(&manager).await);
    manager.approve_server("proj").unwrap();
    manager.shutdown().await;
    let manager = project_manager(&home, |o| o.lazy = false);
    start_ok(&manager, &["proj"]).await;
    manager.shutdown().await;

    // A file elsewhere in the project changes nothing.
    std::fs::write(home.project().join("README.md"), "changed\n").unwrap();
    let manager = project_manager(&home, |o| o.lazy = false);
    start_ok(&manager, &["proj"]).await;
    manager.shutdown().await;

    // The server's own code changes: asked again.
    let mut code = std::fs::read_to_string(&script).unwrap();
    code.push_str("\n# pulled\n");
    std::fs::write(&script, &code).unwrap();
    let manager = project_manager(&home, |_| {});
    assert!(
        needs_approval(&manager).await,
        "a changed script ran unasked"
    );
    assert_eq!(manager.list()[0].state, ServerState::NeedsApproval);
    manager.approve_server("proj").unwrap();
    manager.shutdown().await;
    let manager = project_manager(&home, |o| o.lazy = false);
    start_ok(&manager, &["proj"]).await;
    manager.shutdown().await;

    // A module beside it appears (the server may import it): asked again.
    std::fs::write(dir.join("helpers.py"), "X = 1\n").unwrap();
    let manager = project_manager(&home, |_| {});
    assert!(
        needs_approval(&manager).await,
        "a new module beside the script ran unasked"
    );
}

#[tokio::test]
async fn the_headless_flag_approves_for_the_session_only() {
    let peers = require_peers!();
    let home = Home::new();
    write_mcp_json(&home, &peers, None);

    let manager = project_manager(&home, |o| o.approve_project_servers = true);
    start_ok(&manager, &["proj"]).await;
    manager.shutdown().await;

    let manager = project_manager(&home, |_| {});
    assert!(matches!(
        manager.start().await[0].outcome,
        StartOutcome::NeedsApproval
    ));
}

#[tokio::test]
async fn a_server_gets_a_credential_tack_withholds_only_when_its_env_lists_it() {
    let peers = require_peers!();
    let home = Home::new();
    let keyed = json!({"mcpServers": {
        "keyed": {
            "command": path(&peers.python),
            "args": [path(&peers.server_py)],
            "env": {"OPENAI_API_KEY": "${OPENAI_API_KEY}"}
        },
    }});
    let plain = json!({"mcpServers": {
        "plain": {"command": path(&peers.python), "args": [path(&peers.server_py)]}
    }});
    let options = |o: &mut ManagerOptions| {
        o.approve_project_servers = true;
        o.env = Some(Arc::new(|v: &str| {
            (v == "OPENAI_API_KEY").then(|| "sk-for-the-server".to_owned())
        }));
    };
    // A repository's entry that names the credential is refused (red-team
    // round 12): the repository would choose where the key goes.
    std::fs::write(home.project().join(".mcp.json"), keyed.to_string()).unwrap();
    let manager = project_manager(&home, options);
    let reports = manager.start().await;
    let said = format!("{reports:?}");
    assert!(said.contains("tack's own credential"), "{said}");
    manager.shutdown().await;

    // The user's own entry passes it on purpose.
    std::fs::write(home.project().join(".mcp.json"), plain.to_string()).unwrap();
    let mut config = McpConfig::new();
    config.load_project(&home.project()).unwrap();
    config
        .add_servers(ConfigSource::UserSettings, &keyed)
        .unwrap();
    let mut o = home.options();
    options(&mut o);
    let manager = McpManager::new(config, o).unwrap();
    start_ok(&manager, &["keyed", "plain"]).await;
    let key = |server: &str| {
        let name = format!("mcp__{server}__env");
        let manager = &manager;
        async move {
            text(
                &call(manager, &name, json!({"name": "OPENAI_API_KEY"}))
                    .await
                    .unwrap(),
            )
        }
    };

    assert_eq!(key("keyed").await, "sk-for-the-server");
    assert_eq!(key("plain").await, "<unset>");
    manager.shutdown().await;
}
