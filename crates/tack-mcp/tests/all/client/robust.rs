//! Robustness and configuration against real servers: a slow start (spawned
//! once, within one deadline, its tools still approved at another protocol
//! version), configurable timeouts, config errors that name the file, the
//! line and the key meant, the tool-list cache's `ttlMs`/`cacheScope`, the
//! deterministic tool order, and the legacy HTTP+SSE transport.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_mcp::client::{ClientError, ConfigSource, McpConfig, ServerConfig, StartOutcome};
use tack_tool::ToolError;

use super::support::*;

/// The Python server from a `.mcp.json`-style entry, with `extra` keys
/// (timeouts) and environment variables.
fn py_entry(peers: &Peers, home: &Home, env: &[(&str, &str)], extra: Value) -> ServerConfig {
    let mut env_map = serde_json::Map::new();
    env_map.insert("TACK_TEST_MARKERS".into(), json!(home.markers_env()));
    for (k, v) in env {
        env_map.insert((*k).into(), json!(v));
    }
    let mut entry = json!({
        "command": path(&peers.python),
        "args": [path(&peers.server_py)],
        "env": env_map,
    });
    if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
        entry.extend(extra);
    }
    ServerConfig::from_value("py", ConfigSource::UserSettings, &entry).unwrap()
}

#[tokio::test]
async fn a_slow_server_is_spawned_once_within_one_deadline() {
    let peers = require_peers!();
    let home = Home::new();
    // A boot just past rmcp's 10 s `server/discover` probe: `initialize`
    // goes out while the server is still booting, and it then answers the
    // probe first. The old client took that for a broken handshake and
    // spawned the server again (two processes, 2 × 10.5 s of boot). The
    // entry's `startupTimeout` (30 s, as the issue's 16 s boot needed) wins
    // over the manager's 60 s.
    let slow = py_entry(
        &peers,
        &home,
        &[("TACK_TEST_BOOT_DELAY", "10.5")],
        json!({"startupTimeout": 30000}),
    );
    let manager = home.manager_with(vec![slow], |o| {
        o.lazy = false;
        o.startup_timeout = Duration::from_secs(60);
    });
    let at = Instant::now();
    start_ok(&manager, &["py"]).await;
    assert_eq!(home.starts(), 1, "a slow server is spawned once");
    assert!(at.elapsed() < Duration::from_secs(30), "{:?}", at.elapsed());
    let listing = &manager.list()[0];
    assert_eq!(
        listing.protocol_version.as_deref(),
        Some("2026-07-28"),
        "the late discovery answer is the one used: {listing:?}"
    );
    let out = call(&manager, "mcp__py__add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(out.structured, Some(json!({"a": 1, "b": 2, "sum": 3})));
    assert_eq!(home.starts(), 1);
    manager.shutdown().await;
}

#[tokio::test]
async fn tools_pinned_at_one_protocol_version_stay_approved_at_another() {
    let peers = require_peers!();
    let home = Home::new();
    // First start at 2025-11-25 (the server refuses `server/discover`, as
    // a pre-2026 one does, or as a slow start that fell back once did).
    let legacy = py_entry(&peers, &home, &[("TACK_TEST_LEGACY", "1")], json!({}));
    let manager = home.manager_with(vec![legacy], |o| o.lazy = false);
    start_ok(&manager, &["py"]).await;
    let first = manager.list()[0].clone();
    assert_eq!(first.protocol_version.as_deref(), Some("2025-11-25"));
    manager.shutdown().await;

    // Next start at 2026-07-28: the server orders its schemas' keys
    // differently (`type` first), the definitions mean the same, so nothing
    // is withheld.
    let modern = py_entry(&peers, &home, &[], json!({}));
    let manager = home.manager_with(vec![modern], |o| o.lazy = false);
    start_ok(&manager, &["py"]).await;
    let second = &manager.list()[0];
    assert_eq!(second.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(second.withheld, 0, "{second:?}");
    assert_eq!(second.tools, first.tools);
    let out = call(&manager, "mcp__py__echo", json!({"text": "still approved"}))
        .await
        .unwrap();
    assert_eq!(text(&out), "echo: still approved");
    manager.shutdown().await;
}

#[tokio::test]
async fn startup_and_call_timeouts_come_from_the_entry_or_the_environment() {
    let peers = require_peers!();
    let home = Home::new();

    // `startupTimeout` (ms) of the entry.
    let slow = py_entry(
        &peers,
        &home,
        &[("TACK_TEST_BOOT_DELAY", "3")],
        json!({"startupTimeout": 500}),
    );
    let manager = home.manager_with(vec![slow], |o| o.lazy = false);
    let reports = manager.start().await;
    match &reports[0].outcome {
        StartOutcome::Failed { error } => {
            let text = error.to_string();
            assert!(text.contains("within 0.5s"), "{text}");
            assert!(text.contains("\"py\""), "names the server: {text}");
        }
        other => panic!("expected a start failure, got {other:?}"),
    }
    manager.shutdown().await;

    // `timeout` (ms) of the entry: one call.
    let quick = py_entry(&peers, &home, &[], json!({"timeout": 300}));
    let manager = home.manager_with(vec![quick], |o| o.lazy = false);
    start_ok(&manager, &["py"]).await;
    let err = call(&manager, "mcp__py__slow", json!({"seconds": 5}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ToolError::Timeout(t) if t == Duration::from_millis(300)),
        "{err:?}"
    );
    manager.shutdown().await;

    // MCP_TIMEOUT / MCP_TOOL_TIMEOUT, as Claude Code reads them.
    let mut options = home.options();
    let env = |k: &str| match k {
        "MCP_TIMEOUT" => Some("20000".to_owned()),
        "MCP_TOOL_TIMEOUT" => Some("250".to_owned()),
        _ => None,
    };
    options.timeouts_from_env(&env).unwrap();
    assert_eq!(options.startup_timeout, Duration::from_millis(20000));
    assert_eq!(options.call_timeout, Duration::from_millis(250));
    let manager = {
        let mut config = McpConfig::new();
        config.insert(py_entry(&peers, &home, &[], json!({})));
        options.lazy = false;
        tack_mcp::client::McpManager::new(config, options).unwrap()
    };
    start_ok(&manager, &["py"]).await;
    let err = call(&manager, "mcp__py__slow", json!({"seconds": 5}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ToolError::Timeout(t) if t == Duration::from_millis(250)),
        "{err:?}"
    );
    manager.shutdown().await;

    // A value that is not a number of milliseconds is refused, by name.
    let mut options = home.options();
    let err = options
        .timeouts_from_env(&|k: &str| (k == "MCP_TIMEOUT").then(|| "30s".to_owned()))
        .unwrap_err();
    assert!(err.to_string().contains("MCP_TIMEOUT"), "{err}");
    assert!(err.to_string().contains("\"30s\""), "{err}");
    for bad in [json!("soon"), json!(0), json!(-5), json!(1.5)] {
        let err = ServerConfig::from_value(
            "x",
            ConfigSource::UserSettings,
            &json!({"command": "x", "startupTimeout": bad}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("startupTimeout"), "{err}");
        assert!(err.to_string().contains("milliseconds"), "{err}");
    }
}

#[tokio::test]
async fn a_misspelled_key_names_the_file_the_line_and_the_key_meant() {
    let peers = require_peers!();
    let home = Home::new();
    let python = path(&peers.python);
    let server_py = path(&peers.server_py);
    // Written by hand, as a user would (so lines are lines).
    let text = format!(
        r#"{{
  "mcpServers": {{
    "good": {{
      "command": "{python}",
      "args": ["{server_py}"]
    }},
    "typo": {{
      "commnd": "{python}",
      "args": ["{server_py}"]
    }},
    "other-clients-keys": {{
      "command": "{python}",
      "args": ["{server_py}"],
      "autoApprove": ["echo"]
    }}
  }}
}}
"#
    );
    let file = home.project().join(".mcp.json");
    std::fs::write(&file, text).unwrap();
    let mut config = McpConfig::new();
    config.load_project(&home.project()).unwrap();

    assert!(config.get("good").is_some());
    assert!(
        config.get("other-clients-keys").is_some(),
        "keys of other clients are ignored"
    );
    assert!(config.get("typo").is_none());
    assert_eq!(config.invalid.len(), 1, "{:?}", config.invalid);
    let err = &config.invalid[0];
    let message = err.to_string();
    assert!(
        message.contains(&format!("{}, line 8", file.display())),
        "{message}"
    );
    assert!(message.contains("`commnd`"), "{message}");
    assert!(message.contains("did you mean `command`?"), "{message}");
    assert!(matches!(err, ClientError::Config { server: Some(s), .. } if s == "typo"));

    // The same in a settings file's `mcpServers`.
    let settings = home.dir.path().join("settings.json");
    let text = "{\n  \"model\": \"x\",\n  \"mcpServers\": {\n    \"s\": {\n      \"url\": \"http://127.0.0.1:1/mcp\",\n      \"headrs\": {}\n    }\n  }\n}\n";
    std::fs::write(&settings, text).unwrap();
    let mut from_settings = McpConfig::new();
    from_settings
        .add_servers_from(
            ConfigSource::UserSettings,
            Some(&settings),
            &serde_json::from_str(text).unwrap(),
        )
        .unwrap();
    let message = from_settings.invalid[0].to_string();
    assert!(
        message.contains(&format!("{}, line 6", settings.display())),
        "{message}"
    );
    assert!(message.contains("did you mean `headers`?"), "{message}");

    // The manager reports it once, with the others started.
    let mut options = home.options();
    options.lazy = false;
    options.approve_project_servers = true;
    let manager = tack_mcp::client::McpManager::new(config, options).unwrap();
    let reports = manager.start().await;
    assert!(
        reports.iter().any(|r| r.server == "typo"
            && matches!(&r.outcome, StartOutcome::Failed { error } if error.to_string().contains("line 8"))),
        "{reports:?}"
    );
    assert!(
        reports
            .iter()
            .any(|r| r.server == "good" && matches!(r.outcome, StartOutcome::Started { .. }))
    );
    manager.shutdown().await;
}

/// Waits (up to 20 s) until the Python server has been started `n` times.
async fn wait_for_starts(home: &Home, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while home.starts() < n {
        assert!(
            Instant::now() < deadline,
            "{} starts, wanted {n}",
            home.starts()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_tool_list_cache_honours_ttl_ms_and_cache_scope() {
    let peers = require_peers!();
    let home = Home::new();
    let run = |env: &[(&str, &str)]| {
        let mut all = vec![("TACK_TEST_MARKERS", home.markers_env())];
        all.extend(env.iter().map(|(k, v)| (*k, (*v).to_owned())));
        let all: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
        peers.python("py", &all)
    };
    let deferred = |reports: &[tack_mcp::client::StartReport]| {
        matches!(reports[0].outcome, StartOutcome::Deferred { .. })
    };

    // ttlMs 5000: fresh right after, so the next session defers the start…
    let fresh = run(&[("TACK_TEST_TOOLS_TTL_MS", "5000")]);
    let manager = home.manager(vec![fresh.clone()]);
    start_ok(&manager, &["py"]).await;
    let listed = Instant::now();
    manager.shutdown().await;
    let manager = home.manager(vec![fresh.clone()]);
    assert!(deferred(&manager.start().await), "fresh: deferred");
    manager.shutdown().await;
    assert_eq!(home.starts(), 1);
    // …and once now ≥ received + ttlMs, the stale list is still offered at
    // once (the session does not wait) while the server is started in the
    // background to list again.
    tokio::time::sleep_until((listed + Duration::from_millis(5100)).into()).await;
    let manager = home.manager(vec![fresh]);
    let reports = manager.start().await;
    assert!(deferred(&reports), "stale: offered: {reports:?}");
    wait_for_starts(&home, 2).await;
    manager.shutdown().await;
    assert_eq!(home.starts(), 2);

    // ttlMs 0 (the Python SDK's default): stale at once; with no list cached
    // the start is waited for, with one it is revalidated in the background.
    let zero = run(&[("TACK_TEST_TOOLS_TTL_MS", "0")]);
    let manager = home.manager(vec![zero.clone()]);
    assert!(!deferred(&manager.start().await));
    manager.shutdown().await;
    for want in [4, 5] {
        let manager = home.manager(vec![zero.clone()]);
        let reports = manager.start().await;
        assert!(deferred(&reports), "{reports:?}");
        wait_for_starts(&home, want).await;
        let out = call(&manager, "mcp__py__echo", json!({"text": "x"}))
            .await
            .unwrap();
        assert_eq!(text(&out), "echo: x");
        manager.shutdown().await;
    }

    // A private list serves only the auth context it was listed under: the
    // same entry whose `${TOKEN}` resolves to someone else lists again.
    let private_for = |token: &'static str| {
        let entry = json!({
            "command": path(&peers.python),
            "args": [path(&peers.server_py)],
            "env": {
                "TACK_TEST_MARKERS": home.markers_env(),
                "TACK_TEST_TOOLS_TTL_MS": "3600000",
                "TACK_TEST_TOOLS_SCOPE": "private",
                "TACK_TEST_EXTRA": "${TOKEN}",
            },
        });
        let server = ServerConfig::from_value("py", ConfigSource::UserSettings, &entry).unwrap();
        home.manager_with(vec![server], move |o| {
            o.env = Some(Arc::new(move |k: &str| {
                (k == "TOKEN").then(|| token.to_owned())
            }));
        })
    };
    let manager = private_for("alice");
    start_ok(&manager, &["py"]).await;
    manager.shutdown().await;
    let manager = private_for("alice");
    assert!(deferred(&manager.start().await), "same context: cached");
    manager.shutdown().await;
    let manager = private_for("bob");
    let reports = manager.start().await;
    assert!(
        matches!(reports[0].outcome, StartOutcome::Started { .. }),
        "another context: listed again: {reports:?}"
    );
    manager.shutdown().await;
}

#[tokio::test]
async fn tools_are_offered_in_server_then_tool_name_order_whoever_starts_first() {
    let peers = require_peers!();
    let home = Home::new();
    // `a` boots slowest, so it finishes last; its tools still come first.
    let a = peers.python("a", &[("TACK_TEST_BOOT_DELAY", "1.5")]);
    let b = peers.python("b", &[]);
    let manager = home.manager_with(vec![b, a], |o| o.lazy = false);
    start_ok(&manager, &["a", "b"]).await;
    let offered = names(&manager);
    let mut sorted = offered.clone();
    sorted.sort_by_key(|n| {
        let server = n.split("__").nth(1).unwrap_or_default().to_owned();
        (server, n.clone())
    });
    assert_eq!(offered, sorted);
    assert!(offered[0].starts_with("mcp__a__"), "{offered:?}");
    manager.shutdown().await;
}

#[tokio::test]
async fn the_legacy_http_sse_transport_reaches_server_everything() {
    let peers = require_peers!();
    let home = Home::new();
    let port = free_port();
    let log = std::fs::File::create(home.dir.path().join("everything-sse.log")).unwrap();
    let _server = Child(
        std::process::Command::new(&peers.node)
            .arg(&peers.everything)
            .arg("sse")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    wait_for_port(port).await;
    let entry = json!({"type": "sse", "url": format!("http://127.0.0.1:{port}/sse")});
    let server = ServerConfig::from_value("legacy", ConfigSource::UserSettings, &entry).unwrap();
    let manager = home.manager_with(vec![server], |o| o.lazy = false);
    start_ok(&manager, &["legacy"]).await;
    let listing = &manager.list()[0];
    assert_eq!(listing.transport, "sse");
    assert!(listing.tools > 5, "{listing:?}");
    let out = call(
        &manager,
        "mcp__legacy__echo",
        json!({"message": "over sse"}),
    )
    .await
    .unwrap();
    assert_eq!(text(&out), "Echo: over sse");
    manager.shutdown().await;

    // A URL with nothing behind it: the error says what failed, in words.
    let dead = free_port();
    let entry = json!({"type": "sse", "url": format!("http://127.0.0.1:{dead}/sse")});
    let server = ServerConfig::from_value("gone", ConfigSource::UserSettings, &entry).unwrap();
    let manager = home.manager_with(vec![server], |o| o.lazy = false);
    let reports = manager.start().await;
    let StartOutcome::Failed { error } = &reports[0].outcome else {
        panic!("{reports:?}")
    };
    let text = error.to_string();
    assert!(text.contains("\"gone\""), "{text}");
    assert!(text.contains("HTTP+SSE"), "{text}");
    assert!(text.contains(&format!("127.0.0.1:{dead}")), "{text}");
    assert!(!text.contains("Worker") && !text.contains('<'), "{text}");
}

#[tokio::test]
async fn a_dead_streamable_http_url_fails_in_words() {
    let home = Home::new();
    let dead = free_port();
    let url = format!("http://127.0.0.1:{dead}/mcp");
    let server = ServerConfig::http("remote", ConfigSource::UserSettings, &url, &[]);
    let manager = home.manager_with(vec![server], |o| o.lazy = false);
    let reports = manager.start().await;
    let StartOutcome::Failed { error } = &reports[0].outcome else {
        panic!("{reports:?}")
    };
    let text = error.to_string();
    assert!(text.contains("\"remote\""), "{text}");
    assert!(text.contains(&url), "{text}");
    assert!(text.contains("streamable HTTP"), "{text}");
    assert!(
        !text.contains("WorkerTransport") && !text.contains("StreamableHttpClientWorker"),
        "no Rust type names: {text}"
    );
}
