//! `tack mcp login NAME` / `tack mcp logout NAME`: OAuth for HTTP MCP
//! servers (the protocol is in `tack_mcp::client::oauth`). What the person
//! must do (open a URL, enter a code) goes to stderr; the result to stdout.

use anyhow::anyhow;
use tack_mcp::client::ResolvedTransport;
use tack_mcp::client::oauth::{self, LoginFlow, LoginPrompt, LoginRequest, TokenStore};
use tack_session::ProjectContext;

use crate::cli::McpCommand;
use crate::out::outln;
use crate::{Failure, exit};

pub async fn run(ctx: &ProjectContext, command: McpCommand, json: bool) -> Result<u8, Failure> {
    let (server, flow) = match &command {
        McpCommand::Login {
            server,
            device,
            no_browser,
        } => (
            server,
            Some(if *device {
                LoginFlow::Device
            } else {
                LoginFlow::Browser {
                    open_browser: !no_browser,
                }
            }),
        ),
        McpCommand::Logout { server } => (server, None),
        _ => return Err(Failure::internal(anyhow!("not a login command"))),
    };
    let servers = &ctx.settings.mcp_servers;
    let Some(config) = servers.get(server) else {
        let names: Vec<&str> = servers.servers().map(|s| s.name.as_str()).collect();
        return Err(Failure {
            code: exit::NOT_FOUND,
            error: anyhow!(
                "no MCP server {server:?} (configured: {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ),
        });
    };
    let url = match config
        .resolve(&|name| std::env::var(name).ok())
        .map_err(crate::mcp::mcp_failure)?
    {
        ResolvedTransport::Http { url, .. } => url,
        _ => {
            return Err(Failure::usage(anyhow!(
                "{server} is a {} server; OAuth login is for HTTP servers",
                config.transport.kind()
            )));
        }
    };
    let store = TokenStore::new(&ctx.state_dir);
    let failed = |e: oauth::OAuthError| Failure {
        code: exit::SERVER_FAILED,
        error: anyhow!("{server}: {e}"),
    };
    let Some(flow) = flow else {
        let outcome = oauth::logout(&url, &store).await.map_err(failed)?;
        if json {
            outln!("{}", serde_json::to_string(&outcome).unwrap_or_default());
        } else if !outcome.removed {
            outln!("{server}: not logged in (no tokens stored)");
        } else {
            match &outcome.revoked {
                Some(Ok(())) => outln!("{server}: logged out; the tokens are revoked and deleted"),
                Some(Err(e)) => outln!(
                    "{server}: logged out; the tokens are deleted, but revoking them failed: {e}"
                ),
                None => outln!(
                    "{server}: logged out; the tokens are deleted (the server offers no revocation)"
                ),
            }
        }
        return Ok(exit::OK);
    };
    let mut request = LoginRequest::new(server, &url, config.oauth(), flow);
    request.client_secret = std::env::var("MCP_CLIENT_SECRET")
        .ok()
        .filter(|s| !s.is_empty());
    let name = server.clone();
    let prompt = move |prompt: LoginPrompt| match prompt {
        LoginPrompt::OpenUrl(url) => {
            eprintln!("To log in to {name}, open this URL in a browser:\n\n  {url}\n");
        }
        LoginPrompt::DeviceCode {
            verification_uri,
            user_code,
            verification_uri_complete,
        } => {
            eprintln!(
                "To log in to {name}, go to {verification_uri} and enter the code {user_code}"
            );
            if let Some(complete) = verification_uri_complete {
                eprintln!("(or open {complete})");
            }
        }
        _ => {}
    };
    let outcome = oauth::login(&request, &store, &prompt)
        .await
        .map_err(failed)?;
    if json {
        outln!("{}", serde_json::to_string(&outcome).unwrap_or_default());
    } else {
        outln!(
            "{server}: logged in at {} as client {}; tokens in {}",
            outcome
                .issuer
                .as_deref()
                .unwrap_or("the authorization server"),
            outcome.client_id,
            outcome.token_file.display()
        );
    }
    Ok(exit::OK)
}
