//! The client of the conformance suite's `auth/*` client scenarios
//! (`tests/conformance.sh --client`): tack's real path, end to end.
//!
//! `oauth_conformance_client URL` connects to the MCP server at URL as a
//! session would; when it answers "needs login", it logs in with
//! `tack_mcp::client::oauth` (the example plays the browser: it follows the
//! authorization URL and delivers the redirect to the loopback listener),
//! connects again with the stored tokens, lists the tools and calls the
//! first one. `MCP_CONFORMANCE_CONTEXT` may carry a pre-registered
//! `client_id` / `client_secret`. Exit 0 when the call went through.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "an example fails loudly"
)]

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};
use tack_mcp::client::oauth::{self, LoginFlow, LoginPrompt, LoginRequest, OAuthSettings};
use tack_mcp::client::{
    ConfigSource, ManagerOptions, McpConfig, McpManager, ServerConfig, StartOutcome,
};

/// The client id metadata document URL the suite's authorization server accepts.
const CONFORMANCE_CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

fn manager(url: &str, state: &std::path::Path) -> McpManager {
    let mut config = McpConfig::new();
    config.insert(ServerConfig::http(
        "conformance",
        ConfigSource::UserSettings,
        url,
        &[],
    ));
    let mut options = ManagerOptions::new(
        state.to_owned(),
        state.join("cache"),
        state.join("logs"),
        state.to_owned(),
    );
    options.startup_timeout = Duration::from_secs(20);
    McpManager::new(config, options).unwrap()
}

/// Follows the authorization URL to its redirect and delivers it.
fn browser(prompt: LoginPrompt) {
    let LoginPrompt::OpenUrl(url) = prompt else {
        return;
    };
    tokio::spawn(async move {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let mut next = url;
        // The authorization server may redirect through its own pages first.
        for _ in 0..5 {
            let Ok(answer) = client.get(&next).send().await else {
                return;
            };
            let Some(location) = answer.headers().get("location") else {
                return;
            };
            next = location.to_str().unwrap_or_default().to_owned();
            if next.starts_with("http://127.0.0.1:") && next.contains("/callback") {
                let _ = client.get(&next).send().await;
                return;
            }
        }
    });
}

/// `tack mcp login`, as the person would run it.
async fn login(url: &str, context: &Value, state: &std::path::Path) -> bool {
    let mut settings = json!({"clientMetadataUrl": CONFORMANCE_CLIENT_METADATA_URL});
    if let Some(id) = context["client_id"].as_str() {
        settings["clientId"] = json!(id);
    }
    let settings = OAuthSettings::from_value(&settings).unwrap();
    let mut request = LoginRequest::new(
        "conformance",
        url,
        settings,
        LoginFlow::Browser {
            open_browser: false,
        },
    );
    request.client_secret = context["client_secret"].as_str().map(str::to_owned);
    request.timeout = Duration::from_secs(20);
    let store = oauth::TokenStore::new(state);
    match oauth::login(&request, &store, &browser).await {
        Ok(outcome) => {
            eprintln!("logged in: {outcome:?}");
            true
        }
        Err(e) => {
            eprintln!("login failed: {e}");
            false
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: oauth_conformance_client URL");
        return ExitCode::from(2);
    };
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(json!({}));
    let state = tempfile::tempdir().unwrap();

    let first = manager(&url, state.path());
    let reports = first.start().await;
    first.shutdown().await;
    let needs_login = reports.iter().any(|r| {
        matches!(&r.outcome, StartOutcome::Failed { error } if oauth::is_needs_login(&error.to_string()))
    });
    if needs_login && !login(&url, &context, state.path()).await {
        return ExitCode::FAILURE;
    }
    let mut second = manager(&url, state.path());
    let mut listed = second.server_tools("conformance").await;
    // A token refused after the handshake (the server moved to another
    // authorization server): the person logs in again, as the error says.
    if let Err(e) = &listed
        && e.to_string().contains("Auth required")
    {
        second.shutdown().await;
        if !login(&url, &context, state.path()).await {
            return ExitCode::FAILURE;
        }
        second = manager(&url, state.path());
        listed = second.server_tools("conformance").await;
    }
    let tools = match listed {
        Ok(tools) => tools,
        Err(e) => {
            eprintln!("listing tools failed: {e}");
            second.shutdown().await;
            return ExitCode::FAILURE;
        }
    };
    let mut code = ExitCode::SUCCESS;
    if let Some(tool) = tools.first() {
        match second.call("conformance", &tool.tool, json!({})).await {
            Ok(outcome) => eprintln!("called {}: {outcome:?}", tool.tool),
            Err(e) => {
                eprintln!("calling {} failed: {e}", tool.tool);
                code = ExitCode::FAILURE;
            }
        }
    }
    second.shutdown().await;
    code
}
