//! `tack mcp login NAME` / `tack mcp logout NAME` end to end: the binary
//! against tack-mcp's test authorization server and the MCP server it
//! protects; the test plays the browser with the URL tack prints.

use tokio::io::AsyncBufReadExt as _;

use super::World;
use super::oauth_server::{AsConfig, AuthServer};

/// Follows the authorization URL to tack's loopback redirect.
async fn play_browser(url: &str) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = client.get(url).send().await.unwrap();
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    let page = client.get(&location).send().await.unwrap();
    assert!(page.status().is_success());
}

async fn tack(world: &World, args: &[&str]) -> std::process::Output {
    let mut cmd = world.tack();
    cmd.args(args);
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn login_call_logout() {
    let server = AuthServer::start(AsConfig::default()).await;
    let world = World::new(vec![]).await;
    std::fs::write(
        world.cwd.path().join(".mcp.json"),
        serde_json::to_string(&serde_json::json!({"mcpServers": {"prot": {
            "type": "http", "url": server.mcp_url(),
            "oauth": {"clientId": "tack-preregistered"}
        }}}))
        .unwrap(),
    )
    .unwrap();
    let approve = tack(&world, &["mcp", "approve", "prot"]).await;
    assert!(approve.status.success(), "{}", super::stderr(&approve));

    // Before the login: the server says so, and nothing hangs.
    let list = tack(&world, &["mcp", "list"]).await;
    let text = super::stdout(&list);
    assert!(text.contains("needs_login"), "{text}");
    assert!(text.contains("tack mcp login prot"), "{text}");

    let mut login = tokio::process::Command::from({
        let mut cmd = world.tack();
        cmd.args(["mcp", "login", "prot", "--no-browser"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd
    })
    .spawn()
    .unwrap();
    let mut lines = tokio::io::BufReader::new(login.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next_line().await.unwrap().expect("no URL printed");
        if let Some(url) = line.trim().strip_prefix("http://") {
            break format!("http://{url}");
        }
    };
    assert!(url.contains("client_id=tack-preregistered"), "{url}");
    play_browser(&url).await;
    let done = login.wait_with_output().await.unwrap();
    let out = String::from_utf8_lossy(&done.stdout);
    assert!(done.status.success(), "{out}");
    assert!(out.contains("prot: logged in at"), "{out}");
    let token_file = world.state.path().join("mcp-oauth.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let call = tack(&world, &["mcp", "call", "prot", "test_simple_text"]).await;
    let text = super::stdout(&call);
    assert!(
        text.contains("This is a simple text response"),
        "{text}{}",
        super::stderr(&call)
    );

    let logout = tack(&world, &["mcp", "logout", "prot"]).await;
    let text = super::stdout(&logout);
    assert!(text.contains("revoked and deleted"), "{text}");
    assert_eq!(server.log().revoked.len(), 1);
    let file = std::fs::read_to_string(&token_file).unwrap();
    assert!(!file.contains(&server.mcp_url()), "{file}");

    let again = tack(&world, &["mcp", "logout", "prot"]).await;
    assert!(super::stdout(&again).contains("not logged in"));
}

#[tokio::test]
async fn login_names_a_missing_server_and_refuses_a_stdio_one() {
    let world = World::new(vec![]).await;
    std::fs::write(
        world.cwd.path().join(".mcp.json"),
        r#"{"mcpServers": {"local": {"command": "true"}}}"#,
    )
    .unwrap();
    let missing = tack(&world, &["mcp", "login", "nope"]).await;
    assert_eq!(missing.status.code(), Some(10));
    assert!(super::stderr(&missing).contains("configured: local"));
    let stdio = tack(&world, &["mcp", "login", "local"]).await;
    assert_eq!(stdio.status.code(), Some(2));
    assert!(super::stderr(&stdio).contains("OAuth login is for HTTP servers"));
}

#[tokio::test]
async fn a_session_says_which_server_needs_login_and_goes_on() {
    let server = AuthServer::start(AsConfig::default()).await;
    let world = World::new(vec![tack_testkit::Step::text("done")]).await;
    let config =
        serde_json::json!({"mcpServers": {"prot": {"type": "http", "url": server.mcp_url()}}});
    let out = tack(
        &world,
        &["run", "--mcp-config", &config.to_string(), "hello"],
    )
    .await;
    assert!(out.status.success(), "{}", super::stderr(&out));
    assert!(super::stdout(&out).contains("done"));
    let err = super::stderr(&out);
    assert!(err.contains("run `tack mcp login prot`"), "{err}");
}
