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
    if needs_login {
        let mut settings = json!({"clientMetadataUrl": CONFORMANCE_CLIENT_METADATA_URL});
        if let Some(id) = context["client_id"].as_str() {
            settings["clientId"] = json!(id);
        }
        let settings = OAuthSettings::from_value(&settings).unwrap();
        let mut request = LoginRequest::new(
            "conformance",
            &url,
            settings,
            LoginFlow::Browser {
                open_browser: false,
            },
        );
        request.client_secret = context["client_secret"].as_str().map(str::to_owned);
        request.timeout = Duration::from_secs(20);
        let store = oauth::TokenStore::new(state.path());
        match oauth::login(&request, &store, &browser).await {
            Ok(outcome) => eprintln!("logged in: {outcome:?}"),
            Err(e) => {
                eprintln!("login failed: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        eprintln!("start: {reports:?}");
    }

    let second = manager(&url, state.path());
    let tools = match second.server_tools("conformance").await {
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
