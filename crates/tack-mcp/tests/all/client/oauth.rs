//! OAuth 2.1 against the local authorization server of `oauth_server.rs`:
//! the test plays the browser (it follows the authorization URL with reqwest
//! and delivers the redirect to tack's loopback listener) and the person at
//! the device page.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tack_mcp::client::oauth::{
    self, ClientIdentity, LoginFlow, LoginOutcome, LoginPrompt, LoginRequest, OAuthError,
    OAuthSettings, TokenStore,
};
use tack_mcp::client::{ConfigSource, ServerConfig, ServerState, StartOutcome};

use super::oauth_server::{AsConfig, AuthServer};
use super::support::Home;

/// A browser that follows the authorization URL to the redirect and delivers
/// it, as one would after the person clicks "allow".
fn browser() -> impl Fn(LoginPrompt) + Send + Sync {
    move |prompt| {
        let LoginPrompt::OpenUrl(url) = prompt else {
            panic!("expected a URL to open, got {prompt:?}");
        };
        tokio::spawn(async move {
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap();
            let answer = client.get(&url).send().await.unwrap();
            assert_eq!(answer.status(), 302, "authorize answered {answer:?}");
            let location = answer.headers()["location"].to_str().unwrap().to_owned();
            let page = client.get(&location).send().await.unwrap();
            assert!(page.status().is_success());
        });
    }
}

fn settings(client_id: Option<&str>) -> OAuthSettings {
    let value = match client_id {
        Some(id) => json!({"clientId": id}),
        None => json!({}),
    };
    OAuthSettings::from_value(&value).unwrap()
}

async fn login(
    server: &AuthServer,
    store: &TokenStore,
    settings: OAuthSettings,
) -> Result<LoginOutcome, OAuthError> {
    let request = LoginRequest::new(
        "prot",
        &server.mcp_url(),
        settings,
        LoginFlow::Browser {
            open_browser: false,
        },
    );
    oauth::login(&request, store, &browser()).await
}

fn http_server(server: &AuthServer) -> ServerConfig {
    ServerConfig::http("prot", ConfigSource::UserSettings, &server.mcp_url(), &[])
}

fn store(home: &Home) -> TokenStore {
    TokenStore::new(&home.options().state_dir)
}

fn access_token(store: &TokenStore, server: &AuthServer) -> String {
    let entry = store.entry(&server.mcp_url()).unwrap().unwrap();
    let value = serde_json::to_value(entry.credentials.unwrap().token_response.unwrap()).unwrap();
    value["access_token"].as_str().unwrap().to_owned()
}

/// Calls the protected server's `test_simple_text` through a manager.
async fn call_tool(home: &Home, server: &AuthServer) -> String {
    let manager = home.manager(vec![http_server(server)]);
    let outcome = manager
        .call("prot", "test_simple_text", json!({}))
        .await
        .unwrap();
    manager.shutdown().await;
    format!("{outcome:?}")
}

#[test]
fn oauth_settings_are_read_from_the_entry_and_checked() {
    let entry = json!({"type": "http", "url": "https://mcp.example/mcp",
                       "oauth": {"clientId": "abc", "callbackPort": 8123}});
    let server = ServerConfig::from_value("linear", ConfigSource::UserSettings, &entry).unwrap();
    let settings = server.oauth();
    assert_eq!(settings.client_id.as_deref(), Some("abc"));
    assert_eq!(settings.callback_port, Some(8123));

    let typo = json!({"url": "https://mcp.example/mcp", "oauth": {"clientID": "abc"}});
    let error = ServerConfig::from_value("linear", ConfigSource::UserSettings, &typo)
        .unwrap_err()
        .to_string();
    assert!(error.contains("oauth.clientID"), "{error}");
    assert!(error.contains("did you mean `clientId`"), "{error}");
}

#[tokio::test]
async fn a_fixed_callback_port_is_a_localhost_redirect_as_in_claude_code() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings =
        OAuthSettings::from_value(&json!({"clientId": "tack-preregistered", "callbackPort": port}))
            .unwrap();
    login(&server, &store(&home), settings).await.unwrap();
    assert_eq!(
        server.log().authorize[0]["redirect_uri"],
        format!("http://localhost:{port}/callback")
    );
}

#[tokio::test]
async fn browser_login_with_dynamic_registration_then_calls_with_the_token() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let store = store(&home);

    let outcome = login(&server, &store, settings(None)).await.unwrap();

    assert_eq!(outcome.identity, ClientIdentity::DynamicRegistration);
    assert_eq!(outcome.issuer.as_deref(), Some(server.issuer().as_str()));
    let log = server.log();
    assert_eq!(log.register.len(), 1);
    assert_eq!(log.register[0]["application_type"], "native");
    let authorize = &log.authorize[0];
    assert_eq!(authorize["client_id"], outcome.client_id);
    assert_eq!(authorize["code_challenge_method"], "S256");
    assert_eq!(authorize["resource"], server.mcp_url());
    assert!(authorize["redirect_uri"].starts_with("http://127.0.0.1:"));
    let exchange = &log.token[0];
    assert_eq!(exchange["grant_type"], "authorization_code");
    assert_eq!(exchange["resource"], server.mcp_url());
    assert!(!exchange["code_verifier"].is_empty());

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(store.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "token file mode {mode:o}");
    }

    let text = call_tool(&home, &server).await;
    assert!(text.contains("This is a simple text response"), "{text}");
    assert_eq!(
        server.log().accepted.last(),
        Some(&access_token(&store, &server))
    );
}

#[tokio::test]
async fn a_preregistered_client_id_is_used_without_registration() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let outcome = login(&server, &store(&home), settings(Some("tack-preregistered")))
        .await
        .unwrap();
    assert_eq!(outcome.identity, ClientIdentity::Preregistered);
    assert_eq!(server.log().authorize[0]["client_id"], "tack-preregistered");
    assert!(server.log().register.is_empty());
}

#[tokio::test]
async fn a_client_id_metadata_document_comes_before_registration() {
    let server = AuthServer::start(AsConfig {
        cimd: true,
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let url = "https://example.com/tack-client.json";
    let with_document = OAuthSettings::from_value(&json!({"clientMetadataUrl": url})).unwrap();
    let outcome = login(&server, &store(&home), with_document).await.unwrap();
    assert_eq!(outcome.identity, ClientIdentity::MetadataDocument);
    assert_eq!(outcome.client_id, url);
    assert!(server.log().register.is_empty());
    // tack hosts no document of its own: without one configured, a server
    // that supports them is registered with.
    let home = Home::new();
    let outcome = login(&server, &store(&home), settings(None)).await.unwrap();
    assert_eq!(outcome.identity, ClientIdentity::DynamicRegistration);
    assert_eq!(server.log().register.len(), 1);
}

#[tokio::test]
async fn a_redirect_from_another_issuer_is_refused() {
    let server = AuthServer::start(AsConfig {
        redirect_iss: Some("http://127.0.0.1:1/evil".into()),
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let store = store(&home);
    let error = login(&server, &store, settings(None)).await.unwrap_err();
    assert!(
        matches!(&error, OAuthError::IssuerMismatch { received, .. } if received == "http://127.0.0.1:1/evil"),
        "{error:?}"
    );
    assert!(
        server.log().token.is_empty(),
        "the code was exchanged: {:?}",
        server.log().token
    );
    assert!(!store.has_tokens(&server.mcp_url()));
}

#[tokio::test]
async fn a_redirect_with_another_state_is_refused() {
    let server = AuthServer::start(AsConfig {
        redirect_state: Some("forged".into()),
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let store = store(&home);
    let error = login(&server, &store, settings(None)).await.unwrap_err();
    assert!(matches!(error, OAuthError::StateMismatch), "{error:?}");
    assert!(server.log().token.is_empty());
    assert!(!store.has_tokens(&server.mcp_url()));
}

#[tokio::test]
async fn metadata_whose_issuer_differs_is_refused() {
    let server = AuthServer::start(AsConfig {
        claimed_issuer: Some("http://127.0.0.1:1/other".into()),
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let error = login(&server, &store(&home), settings(None))
        .await
        .unwrap_err();
    assert!(server.log().authorize.is_empty(), "{error}");
}

#[tokio::test]
async fn an_authorization_server_without_s256_is_refused() {
    let server = AuthServer::start(AsConfig {
        s256: false,
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let error = login(&server, &store(&home), settings(None))
        .await
        .unwrap_err();
    assert!(
        matches!(error, OAuthError::PkceUnsupported { .. }),
        "{error:?}"
    );
    assert!(server.log().authorize.is_empty());
}

#[tokio::test]
async fn no_way_to_identify_the_client_asks_for_a_client_id() {
    let server = AuthServer::start(AsConfig {
        registration: false,
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let error = login(&server, &store(&home), settings(None))
        .await
        .unwrap_err();
    assert!(
        matches!(error, OAuthError::ClientIdRequired { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("\"clientId\""), "{error}");
}

#[tokio::test]
async fn an_expired_token_is_refreshed_before_the_call() {
    let server = AuthServer::start(AsConfig {
        expires_in: 1,
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let store = store(&home);
    login(&server, &store, settings(None)).await.unwrap();
    let first = access_token(&store, &server);
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let text = call_tool(&home, &server).await;

    assert!(text.contains("This is a simple text response"), "{text}");
    let log = server.log();
    let refresh = log
        .token
        .iter()
        .find(|t| t.get("grant_type").is_some_and(|g| g == "refresh_token"))
        .expect("no refresh");
    assert_eq!(refresh["resource"], server.mcp_url());
    let second = access_token(&store, &server);
    assert_ne!(first, second, "the stored token was not replaced");
    assert!(!log.accepted.contains(&first));
}

#[tokio::test]
async fn a_token_the_server_rejects_is_refreshed_once_and_the_call_retried() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let store = store(&home);
    login(&server, &store, settings(None)).await.unwrap();
    let first = access_token(&store, &server);
    server.expire_access_tokens();

    let text = call_tool(&home, &server).await;

    assert!(text.contains("This is a simple text response"), "{text}");
    assert!(server.log().refused >= 1);
    assert_ne!(access_token(&store, &server), first);
}

/// A login revoked mid-session (refresh refused too): the next call says to
/// log in again, in words, with none of rmcp's transport type names.
#[tokio::test]
async fn a_login_revoked_during_the_session_says_to_log_in_again() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let store = store(&home);
    login(&server, &store, settings(None)).await.unwrap();
    let manager = home.manager(vec![http_server(&server)]);
    manager
        .call("prot", "test_simple_text", json!({}))
        .await
        .unwrap();
    server.revoke_all();

    let error = manager
        .call("prot", "test_simple_text", json!({}))
        .await
        .unwrap_err()
        .to_string();

    assert!(error.contains("tack mcp login prot"), "{error}");
    for internal in ["Transport [", "Worker", "StreamableHttp", "reqwest"] {
        assert!(!error.contains(internal), "{internal:?} in {error}");
    }
    manager.shutdown().await;
}

#[tokio::test]
async fn a_server_that_needs_login_says_so_and_does_not_hang() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let manager = home.manager(vec![http_server(&server)]);

    let started = tokio::time::timeout(Duration::from_secs(20), manager.start())
        .await
        .expect("start hung");

    let report = started.iter().find(|r| r.server == "prot").unwrap();
    let StartOutcome::Failed { error } = &report.outcome else {
        panic!("started without a login: {report:?}");
    };
    let message = error.to_string();
    assert!(message.contains("run `tack mcp login prot`"), "{message}");
    assert_eq!(manager.list()[0].state, ServerState::NeedsLogin);
    // The tool is unavailable with the same explanation, at once.
    let called = tokio::time::timeout(
        Duration::from_secs(20),
        manager.call("prot", "test_simple_text", json!({})),
    )
    .await
    .expect("the call hung");
    let message = format!("{called:?}");
    assert!(message.contains("tack mcp login prot"), "{message}");
    manager.shutdown().await;
}

#[tokio::test]
async fn logout_revokes_and_deletes_the_tokens() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let store = store(&home);
    login(&server, &store, settings(None)).await.unwrap();
    let entry = store.entry(&server.mcp_url()).unwrap().unwrap();
    let refresh = serde_json::to_value(entry.credentials.unwrap().token_response.unwrap()).unwrap()
        ["refresh_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(server.refresh_token_live(&refresh));

    let outcome = oauth::logout(&server.mcp_url(), &store).await.unwrap();

    assert!(outcome.removed);
    assert_eq!(outcome.revoked, Some(Ok(())));
    assert_eq!(server.log().revoked, vec![refresh.clone()]);
    assert!(!server.refresh_token_live(&refresh));
    assert!(!store.has_tokens(&server.mcp_url()));
    let again = oauth::logout(&server.mcp_url(), &store).await.unwrap();
    assert!(!again.removed);
}

#[tokio::test]
async fn device_flow_login_then_calls_with_the_token() {
    let server = AuthServer::start(AsConfig::default()).await;
    let home = Home::new();
    let store = store(&home);
    let shown = Arc::new(Mutex::new(None));
    let base = server.base();
    let seen = shown.clone();
    let person = move |prompt: LoginPrompt| {
        let LoginPrompt::DeviceCode {
            user_code,
            verification_uri,
            ..
        } = prompt
        else {
            panic!("expected a device code, got {prompt:?}");
        };
        *seen.lock().unwrap() = Some(verification_uri);
        let base = base.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            AuthServer::approve_device(&base, &user_code).await;
        });
    };
    let request = LoginRequest::new("prot", &server.mcp_url(), settings(None), LoginFlow::Device);

    let outcome = oauth::login(&request, &store, &person).await.unwrap();

    assert_eq!(outcome.identity, ClientIdentity::DynamicRegistration);
    assert!(
        shown
            .lock()
            .unwrap()
            .as_deref()
            .is_some_and(|u| u.ends_with("/as/device/approve"))
    );
    let log = server.log();
    let device_grant = log
        .token
        .iter()
        .find(|t| {
            t.get("grant_type")
                .is_some_and(|g| g == "urn:ietf:params:oauth:grant-type:device_code")
        })
        .expect("no device-code token request");
    assert_eq!(device_grant["resource"], server.mcp_url());
    let text = call_tool(&home, &server).await;
    assert!(text.contains("This is a simple text response"), "{text}");
}

#[tokio::test]
async fn device_flow_needs_a_device_endpoint() {
    let server = AuthServer::start(AsConfig {
        device: false,
        ..AsConfig::default()
    })
    .await;
    let home = Home::new();
    let request = LoginRequest::new("prot", &server.mcp_url(), settings(None), LoginFlow::Device);
    let error = oauth::login(&request, &store(&home), &|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(error, OAuthError::DeviceUnsupported { .. }),
        "{error:?}"
    );
}

/// The conformance suite's `auth/*` client scenarios, with the example
/// client (`examples/oauth_conformance_client.rs`, built by `cargo test`), at
/// 2026-07-28 (and the two 2025-03-26 back-compat ones). Failures allowed only
/// as listed, with reasons, in `tests/conformance-auth-expected.yml`.
#[tokio::test]
async fn conformance_auth_scenarios() {
    let peers = super::support::require_peers!();
    let exe = std::env::current_exe().unwrap();
    let client = exe
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("examples/oauth_conformance_client");
    if !client.exists() {
        let message = format!(
            "{} is not built: run `cargo test -p tack-mcp` (all targets)",
            client.display()
        );
        assert!(std::env::var_os("CI").is_none(), "{message}");
        eprintln!("\n!!! SKIPPED: {message}\n");
        return;
    }
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let suite = tests.join("node/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let baseline = tests.join("conformance-auth-expected.yml");
    let mut runs: Vec<(&str, &str)> = [
        "metadata-default",
        "metadata-var1",
        "metadata-var2",
        "metadata-var3",
        "basic-cimd",
        "scope-from-www-authenticate",
        "scope-from-scopes-supported",
        "scope-omitted-when-undefined",
        "scope-step-up",
        "scope-retry-limit",
        "token-endpoint-auth-basic",
        "token-endpoint-auth-post",
        "token-endpoint-auth-none",
        "pre-registration",
        "resource-mismatch",
        "offline-access-scope",
        "offline-access-not-supported",
        "authorization-server-migration",
        "iss-supported",
        "iss-not-advertised",
        "iss-supported-missing",
        "iss-wrong-issuer",
        "iss-unexpected",
        "iss-normalized",
        "metadata-issuer-mismatch",
    ]
    .into_iter()
    .map(|s| (s, "2026-07-28"))
    .collect();
    runs.push(("2025-03-26-oauth-metadata-backcompat", "2025-03-26"));
    runs.push(("2025-03-26-oauth-endpoint-fallback", "2025-03-26"));
    let home = Home::new();
    let mut failed = Vec::new();
    for (scenario, version) in runs {
        let scenario = format!("auth/{scenario}");
        let output = tokio::process::Command::new(&peers.node)
            .arg(&suite)
            .args(["client", "--command"])
            .arg(&client)
            .args(["--scenario", &scenario, "--spec-version", version])
            .arg("--expected-failures")
            .arg(&baseline)
            .current_dir(home.dir.path())
            .output()
            .await
            .unwrap();
        if !output.status.success() {
            println!(
                "--- {scenario} {version}\n{}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            failed.push(format!("{scenario}@{version}"));
        }
    }
    assert!(
        failed.is_empty(),
        "auth scenarios failed outside tests/conformance-auth-expected.yml: {failed:?}"
    );
}
