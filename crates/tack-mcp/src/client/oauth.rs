//! OAuth 2.1 for HTTP MCP servers: `tack mcp login NAME` / `logout NAME`, and
//! the bearer token of every later connection.
//!
//! The key decision: **rmcp's `auth` module does the protocol** (discovery from
//! the 401's `WWW-Authenticate` or the well-known paths, the issuer check of the
//! authorization server metadata, PKCE S256, `state`, RFC 9207 `iss`, the
//! `resource` indicator, the client registration order pre-registered > Client
//! ID Metadata Document > dynamic registration, refresh before expiry and on a
//! 401). This module adds what rmcp leaves to the application:
//!
//! - where the tokens live: one 0600 JSON file under the state dir
//!   ([`TokenStore`]), an entry per (issuer, client id, resource) holding the
//!   authorization server's metadata, so a connection needs no discovery;
//! - the loopback redirect (a one-shot listener on 127.0.0.1) and the browser;
//! - the stricter checks of the 2026-07-28 revision: no login without
//!   published metadata (rmcp would guess `/authorize`), none without
//!   `code_challenge_methods_supported` listing `S256`, a `state` that differs
//!   from the one sent is refused before the code is exchanged;
//! - the device authorization grant (RFC 8628, `--device`), through the
//!   `oauth2` crate rmcp itself is built on;
//! - revocation (RFC 7009) on logout, when the server publishes an endpoint.
//!
//! Tokens are never logged: rmcp's types redact them in `Debug`, and nothing
//! here prints one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oauth2::basic::BasicClient;
use oauth2::{
    ClientId, DeviceAuthorizationUrl, EndpointNotSet, EndpointSet, HttpRequest, HttpResponse,
    Scope, StandardDeviceAuthorizationResponse, TokenResponse as _, TokenUrl,
};
use reqwest::Url;
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationMetadata,
    AuthorizationMetadataSource, AuthorizationRequest, AuthorizationSession,
    CredentialRefreshGuard, CredentialStore, OAuthClientConfig, OAuthTokenResponse,
    StoredCredentials,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;

/// The name tack registers under (dynamic registration) and shows.
pub const CLIENT_NAME: &str = "tack";

/// How long a login waits for the browser to come back.
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// The file under the state dir that holds the tokens.
pub const TOKEN_FILE: &str = "mcp-oauth.json";

/// A server entry's `"oauth"` object, spelled as Claude Code spells it in
/// `.mcp.json`: `{"clientId": "…", "callbackPort": 8080}`, plus tack's
/// `clientMetadataUrl` and `scopes`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthSettings {
    /// A client registered with the authorization server beforehand.
    pub client_id: Option<String>,
    /// The loopback port of the redirect (registered clients often need a
    /// fixed one); else an ephemeral port.
    pub callback_port: Option<u16>,
    /// The URL of a Client ID Metadata Document hosted for tack (an
    /// organisation's own): offered as the `client_id` to an authorization
    /// server that supports them (`client_id_metadata_document_supported`).
    /// tack hosts none of its own, so without it a server is registered with
    /// dynamically.
    pub client_metadata_url: Option<String>,
    /// Scopes to ask for; else the challenge's or the resource's.
    pub scopes: Vec<String>,
    /// The authorization server metadata document, skipping discovery
    /// (Claude Code's `authServerMetadataUrl`; https).
    pub auth_server_metadata_url: Option<String>,
}

const SETTINGS_KEYS: &[&str] = &[
    "clientId",
    "callbackPort",
    "authServerMetadataUrl",
    "scopes",
    "clientMetadataUrl",
];

impl OAuthSettings {
    /// Parses the `"oauth"` value of a server entry. The error names the key
    /// (and the closest valid one for a misspelling).
    pub fn from_value(value: &Value) -> Result<Self, (String, String)> {
        let obj = value
            .as_object()
            .ok_or_else(|| ("oauth".to_owned(), "must be a JSON object".to_owned()))?;
        let mut settings = OAuthSettings::default();
        for (key, v) in obj {
            let field = format!("oauth.{key}");
            match key.as_str() {
                "clientId" => settings.client_id = Some(string(&field, v)?),
                "clientMetadataUrl" => {
                    let url = string(&field, v)?;
                    let parsed = Url::parse(&url)
                        .map_err(|e| (field.clone(), format!("is not a URL: {e}")))?;
                    if parsed.scheme() != "https" || parsed.path() == "/" {
                        return Err((field, "must be an https URL with a path".to_owned()));
                    }
                    settings.client_metadata_url = Some(url);
                }
                "callbackPort" => {
                    let port = v
                        .as_u64()
                        .and_then(|n| u16::try_from(n).ok())
                        .filter(|n| *n > 0)
                        .ok_or_else(|| (field.clone(), "must be a port number".to_owned()))?;
                    settings.callback_port = Some(port);
                }
                // Claude Code: one space-separated string; a list is taken too.
                "scopes" => {
                    settings.scopes = match v {
                        Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
                        Value::Array(list) => list
                            .iter()
                            .map(|s| string(&field, s))
                            .collect::<Result<_, _>>()?,
                        _ => {
                            return Err((
                                field,
                                "must be a space-separated string of scopes".to_owned(),
                            ));
                        }
                    };
                    if settings.scopes.is_empty() {
                        return Err((field, "names no scope".to_owned()));
                    }
                }
                "authServerMetadataUrl" => {
                    let url = string(&field, v)?;
                    let parsed = Url::parse(&url)
                        .map_err(|e| (field.clone(), format!("is not a URL: {e}")))?;
                    if parsed.scheme() != "https" {
                        return Err((field, "must be an https URL".to_owned()));
                    }
                    settings.auth_server_metadata_url = Some(url);
                }
                other => {
                    let hint = tack_protocol::suggest::closest(other, SETTINGS_KEYS)
                        .map(|k| format!(" (did you mean `{k}`?)"))
                        .unwrap_or_default();
                    return Err((
                        field,
                        format!(
                            "is not an oauth setting{hint}; valid: {}",
                            SETTINGS_KEYS.join(", ")
                        ),
                    ));
                }
            }
        }
        Ok(settings)
    }
}

fn string(field: &str, v: &Value) -> Result<String, (String, String)> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| (field.to_owned(), "must be a string".to_owned()))
}

/// Why a login, logout or token lookup failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    #[error(
        "{url} publishes no OAuth metadata (no protected resource or authorization server metadata), so tack cannot log in to it"
    )]
    NoMetadata { url: String },
    #[error(
        "the authorization server {issuer} does not list S256 in code_challenge_methods_supported; tack logs in only with PKCE S256"
    )]
    PkceUnsupported { issuer: String },
    #[error(
        "the authorization server {issuer} offers neither Client ID Metadata Documents nor dynamic client registration: register tack with it and set \"oauth\": {{\"clientId\": \"…\"}} in the entry of server {server:?}"
    )]
    ClientIdRequired { server: String, issuer: String },
    #[error(
        "the authorization server {issuer} does not support the device authorization grant (no device_authorization_endpoint); log in without --device"
    )]
    DeviceUnsupported { issuer: String },
    #[error(
        "the redirect's state does not match the one tack sent; the login was refused (a stale or forged redirect)"
    )]
    StateMismatch,
    #[error(
        "the redirect's iss {received:?} is not the authorization server tack asked ({expected}); the login was refused"
    )]
    IssuerMismatch { expected: String, received: String },
    #[error("the authorization server refused: {error}{}", description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Denied {
        error: String,
        description: Option<String>,
    },
    #[error("no answer from the browser within {}s", .0.as_secs())]
    TimedOut(Duration),
    #[error("{}: {message}", path.display())]
    Store { path: PathBuf, message: String },
    #[error("{0}")]
    Protocol(String),
}

impl OAuthError {
    fn from_auth(e: AuthError) -> Self {
        match e {
            AuthError::AuthorizationServerMismatch {
                expected_issuer,
                received_issuer,
            } => OAuthError::IssuerMismatch {
                expected: expected_issuer,
                received: received_issuer,
            },
            AuthError::AuthorizationServerMissingIssuer { expected_issuer } => {
                OAuthError::IssuerMismatch {
                    expected: expected_issuer,
                    received: String::new(),
                }
            }
            other => OAuthError::Protocol(other.to_string()),
        }
    }
}

pub type Result<T, E = OAuthError> = std::result::Result<T, E>;

/// The canonical URI of an MCP server, the `resource` of its tokens: scheme
/// and host lowercased, no fragment (RFC 8707, the revision's "canonical
/// server URI").
pub fn canonical_resource(url: &str) -> Result<String> {
    let mut parsed =
        Url::parse(url).map_err(|e| OAuthError::Protocol(format!("{url:?} is not a URL: {e}")))?;
    parsed.set_fragment(None);
    Ok(parsed.to_string())
}

/// One login: the tokens of one resource, from one issuer, for one client.
#[derive(Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenEntry {
    /// The server's name when it logged in (for `logout` and people reading).
    pub server: String,
    pub resource: String,
    pub issuer: Option<String>,
    pub client_id: String,
    /// The secret of a confidential pre-registered client, kept for refreshes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The authorization server's metadata as discovered at login, so a
    /// connection can refresh without discovery.
    pub metadata: AuthorizationMetadata,
    pub credentials: Option<StoredCredentials>,
}

impl std::fmt::Debug for TokenEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenEntry")
            .field("server", &self.server)
            .field("resource", &self.resource)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("credentials", &self.credentials)
            .finish_non_exhaustive()
    }
}

#[derive(Default, Serialize, Deserialize)]
struct TokenFile {
    #[serde(default)]
    entries: Vec<TokenEntry>,
}

/// The token file: `<state dir>/mcp-oauth.json`, mode 0600, written whole
/// through a temporary file and a rename. Every access reads it again, so two
/// tack processes see each other's refreshes.
#[derive(Debug, Clone)]
pub struct TokenStore {
    path: PathBuf,
    lock: Arc<std::sync::Mutex<()>>,
}

impl TokenStore {
    pub fn new(state_dir: &Path) -> Self {
        Self {
            path: state_dir.join(TOKEN_FILE),
            lock: Arc::new(std::sync::Mutex::new(())),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, message: impl std::fmt::Display) -> OAuthError {
        OAuthError::Store {
            path: self.path.clone(),
            message: message.to_string(),
        }
    }

    fn read(&self) -> Result<TokenFile> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                self.error(format!(
                    "not a tack token file ({e}); delete it and log in again"
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TokenFile::default()),
            Err(e) => Err(self.error(e)),
        }
    }

    fn write(&self, file: &TokenFile) -> Result<()> {
        use std::io::Write as _;
        let dir = self
            .path
            .parent()
            .ok_or_else(|| self.error("has no parent directory"))?;
        std::fs::create_dir_all(dir).map_err(|e| self.error(e))?;
        let bytes = serde_json::to_vec_pretty(file).map_err(|e| self.error(e))?;
        let tmp = self
            .path
            .with_extension(format!("json.{}.tmp", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut out = options.open(&tmp).map_err(|e| self.error(e))?;
        out.write_all(&bytes)
            .and_then(|()| out.sync_all())
            .map_err(|e| self.error(e))?;
        std::fs::rename(&tmp, &self.path).map_err(|e| self.error(e))
    }

    fn update<T>(&self, f: impl FnOnce(&mut TokenFile) -> T) -> Result<T> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.read()?;
        let out = f(&mut file);
        self.write(&file)?;
        Ok(out)
    }

    /// The login for `resource` (a canonical server URL), if any.
    pub fn entry(&self, resource: &str) -> Result<Option<TokenEntry>> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        Ok(self
            .read()?
            .entries
            .into_iter()
            .find(|e| e.resource == resource))
    }

    /// Whether `url` has tokens (an access or a refresh token).
    pub fn has_tokens(&self, url: &str) -> bool {
        let Ok(resource) = canonical_resource(url) else {
            return false;
        };
        matches!(self.entry(&resource), Ok(Some(e)) if e.credentials.as_ref().is_some_and(|c| c.token_response.is_some()))
    }

    /// Puts `entry` in, replacing the login of the same resource.
    fn put(&self, entry: TokenEntry) -> Result<()> {
        self.update(|file| {
            file.entries.retain(|e| e.resource != entry.resource);
            file.entries.push(entry);
        })
    }

    /// Removes the login of `resource`, returning it.
    pub fn remove(&self, resource: &str) -> Result<Option<TokenEntry>> {
        if !self.path.exists() {
            return Ok(None);
        }
        self.update(|file| {
            let at = file.entries.iter().position(|e| e.resource == resource)?;
            Some(file.entries.remove(at))
        })
    }
}

/// rmcp's view of one entry of the token file.
struct EntryStore {
    store: TokenStore,
    server: String,
    resource: String,
    metadata: AuthorizationMetadata,
    client_secret: Option<String>,
}

#[async_trait::async_trait]
impl CredentialStore for EntryStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let entry = self
            .store
            .entry(&self.resource)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        // Tokens of another issuer are not this server's any more.
        Ok(entry
            .filter(|e| e.issuer == self.metadata.issuer)
            .and_then(|e| e.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.store
            .put(TokenEntry {
                server: self.server.clone(),
                resource: self.resource.clone(),
                issuer: self.metadata.issuer.clone(),
                client_id: credentials.client_id.clone(),
                client_secret: self.client_secret.clone(),
                metadata: self.metadata.clone(),
                credentials: Some(credentials),
            })
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.store
            .remove(&self.resource)
            .map(drop)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }

    /// One refresh at a time across tack processes (an exclusive lock on
    /// `mcp-oauth.json.lock`): rmcp loads the tokens after taking it, so a
    /// second process uses the refresh token the first one rotated in.
    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let path = self.store.path.with_extension("json.lock");
        let file = tokio::task::spawn_blocking(move || {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)?;
            file.lock()?;
            Ok::<_, std::io::Error>(file)
        })
        .await
        .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?
        .map_err(|e| AuthError::CredentialStoreError(format!("the token file lock: {e}")))?;
        Ok(Some(CredentialRefreshGuard::new(file)))
    }
}

/// How the person proves who they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoginFlow {
    /// Authorization code with PKCE through a browser and a loopback
    /// redirect; `open_browser` false only prints the URL.
    Browser { open_browser: bool },
    /// The device authorization grant (RFC 8628): a code to enter on another
    /// device.
    Device,
}

/// What the person has to do, shown by the caller (the URL is always shown,
/// so a login over ssh works).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoginPrompt {
    /// Open this URL in a browser.
    OpenUrl(String),
    /// Go to `verification_uri` and enter `user_code`.
    DeviceCode {
        verification_uri: String,
        user_code: String,
        verification_uri_complete: Option<String>,
    },
}

/// One login.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LoginRequest {
    pub server: String,
    pub url: String,
    pub settings: OAuthSettings,
    pub flow: LoginFlow,
    pub timeout: Duration,
    /// The secret of a confidential pre-registered client (`tack mcp login`
    /// reads `MCP_CLIENT_SECRET`, as Claude Code does); never in a config file.
    pub client_secret: Option<String>,
}

impl LoginRequest {
    pub fn new(server: &str, url: &str, settings: OAuthSettings, flow: LoginFlow) -> Self {
        Self {
            server: server.to_owned(),
            url: url.to_owned(),
            settings,
            flow,
            timeout: DEFAULT_LOGIN_TIMEOUT,
            client_secret: None,
        }
    }
}

/// How the client was identified to the authorization server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ClientIdentity {
    Preregistered,
    MetadataDocument,
    DynamicRegistration,
}

/// A login that succeeded.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct LoginOutcome {
    pub server: String,
    pub resource: String,
    pub issuer: Option<String>,
    pub client_id: String,
    pub identity: ClientIdentity,
    pub scopes: Vec<String>,
    pub token_file: PathBuf,
}

/// Logs in to the HTTP MCP server at `request.url` and stores its tokens.
pub async fn login(
    request: &LoginRequest,
    store: &TokenStore,
    prompt: &(dyn Fn(LoginPrompt) + Send + Sync),
) -> Result<LoginOutcome> {
    let resource = canonical_resource(&request.url)?;
    let challenge = challenge(&request.url).await;
    let mut manager = AuthorizationManager::new(request.url.as_str())
        .await
        .map_err(OAuthError::from_auth)?;
    let metadata = match &request.settings.auth_server_metadata_url {
        Some(url) => metadata_from(url).await?,
        None => {
            let resolution = manager
                .resolve_metadata_from_challenge(challenge.as_deref())
                .await
                .map_err(OAuthError::from_auth)?;
            if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
                return Err(OAuthError::NoMetadata {
                    url: request.url.clone(),
                });
            }
            resolution.metadata
        }
    };
    let issuer_name = metadata
        .issuer
        .clone()
        .unwrap_or_else(|| metadata.authorization_endpoint.clone());
    let supports = |field: &str| {
        metadata
            .additional_fields
            .get(field)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let client_metadata_url = request.settings.client_metadata_url.clone();
    let cimd = supports("client_id_metadata_document_supported") && client_metadata_url.is_some();
    let identity = if request.settings.client_id.is_some() {
        ClientIdentity::Preregistered
    } else if cimd {
        ClientIdentity::MetadataDocument
    } else if metadata.registration_endpoint.is_some() {
        ClientIdentity::DynamicRegistration
    } else {
        return Err(OAuthError::ClientIdRequired {
            server: request.server.clone(),
            issuer: issuer_name,
        });
    };
    manager.set_metadata(metadata.clone());
    let client_secret = request
        .settings
        .client_id
        .as_ref()
        .and(request.client_secret.clone());
    manager.set_credential_store(EntryStore {
        store: store.clone(),
        server: request.server.clone(),
        resource: resource.clone(),
        metadata: metadata.clone(),
        client_secret: client_secret.clone(),
    });
    let (client_id, scopes) = match request.flow {
        LoginFlow::Browser { open_browser } => {
            // PKCE S256 or nothing: rmcp tolerates a server that does not say.
            let s256 = metadata
                .code_challenge_methods_supported
                .as_ref()
                .is_some_and(|m| m.iter().any(|m| m == "S256"));
            if !s256 {
                return Err(OAuthError::PkceUnsupported {
                    issuer: issuer_name,
                });
            }
            let listener = Loopback::bind(request.settings.callback_port).await?;
            let mut auth = AuthorizationRequest::new(listener.redirect_uri.clone())
                .with_client_name(CLIENT_NAME);
            if let Some(url) = client_metadata_url.filter(|_| cimd) {
                auth = auth.with_client_metadata_url(url);
            }
            if let Some(id) = &request.settings.client_id {
                auth = auth.with_preregistered_client(id.clone());
                if let Some(secret) = &client_secret {
                    auth = auth.with_client_secret(secret.clone());
                }
            }
            if !request.settings.scopes.is_empty() {
                auth = auth.with_scopes(request.settings.scopes.iter().cloned());
            }
            let session = AuthorizationSession::new(manager, auth)
                .await
                .map_err(|(_, e)| OAuthError::from_auth(e))?;
            let auth_url = session.get_authorization_url().to_owned();
            let sent_state = Url::parse(&auth_url)
                .ok()
                .and_then(|u| {
                    u.query_pairs()
                        .find(|(k, _)| k == "state")
                        .map(|(_, v)| v.into_owned())
                })
                .ok_or_else(|| OAuthError::Protocol("the authorization URL has no state".into()))?;
            prompt(LoginPrompt::OpenUrl(auth_url.clone()));
            if open_browser && has_graphical_session() {
                // Off the runtime, not awaited: a browser that fails to start
                // (or one that takes its time) is not the login's business;
                // the URL is shown anyway.
                let url = auth_url.clone();
                tokio::task::spawn_blocking(move || {
                    let _ = webbrowser::open(&url);
                });
            }
            let redirect = tokio::time::timeout(request.timeout, listener.wait())
                .await
                .map_err(|_| OAuthError::TimedOut(request.timeout))??;
            let params: HashMap<String, String> = redirect.query_pairs().into_owned().collect();
            if params.get("state") != Some(&sent_state) {
                return Err(OAuthError::StateMismatch);
            }
            if let Some(error) = params.get("error") {
                return Err(OAuthError::Denied {
                    error: error.clone(),
                    description: params.get("error_description").cloned(),
                });
            }
            let callback = AuthorizationCallback::from_redirect_url(redirect.as_str())
                .map_err(OAuthError::from_auth)?;
            session
                .handle_callback_with_issuer(
                    &callback.code,
                    &callback.csrf_token,
                    callback.issuer.as_deref(),
                )
                .await
                .map_err(OAuthError::from_auth)?;
            let (client_id, _) = session
                .get_credentials()
                .await
                .map_err(OAuthError::from_auth)?;
            let scopes = session.auth_manager.get_current_scopes().await;
            (client_id, scopes)
        }
        LoginFlow::Device => {
            device_login(
                request,
                store,
                &resource,
                manager,
                &metadata,
                identity,
                client_metadata_url,
                prompt,
            )
            .await?
        }
    };
    Ok(LoginOutcome {
        server: request.server.clone(),
        resource,
        issuer: metadata.issuer.clone(),
        client_id,
        identity,
        scopes,
        token_file: store.path().to_owned(),
    })
}

/// The authorization server metadata at `url` (`authServerMetadataUrl`),
/// which must name its issuer.
async fn metadata_from(url: &str) -> Result<AuthorizationMetadata> {
    let bad = |why: String| OAuthError::Protocol(format!("authServerMetadataUrl {url}: {why}"));
    let response = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| bad(e.to_string()))?
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| bad(e.to_string()))?;
    if !response.status().is_success() {
        return Err(bad(format!("answered {}", response.status())));
    }
    let metadata: AuthorizationMetadata = response
        .json()
        .await
        .map_err(|e| bad(format!("not authorization server metadata: {e}")))?;
    if metadata.issuer.as_deref().is_none_or(str::is_empty) {
        return Err(bad("the metadata has no issuer".to_owned()));
    }
    Ok(metadata)
}

/// Whether a browser can be opened here. On Linux and the BSDs only with a
/// display: without one (ssh, a container) `webbrowser` would fall back to a
/// text browser in this very terminal.
fn has_graphical_session() -> bool {
    if cfg!(any(target_os = "macos", target_os = "windows")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()))
}

/// The `WWW-Authenticate` of an unauthenticated request, if the server
/// answers 401.
async fn challenge(url: &str) -> Option<String> {
    let response = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)?
        .to_str()
        .ok()
        .map(str::to_owned)
}

#[expect(
    clippy::too_many_arguments,
    reason = "one call site: the device branch of login, handed what login resolved"
)]
async fn device_login(
    request: &LoginRequest,
    store: &TokenStore,
    resource: &str,
    mut manager: AuthorizationManager,
    metadata: &AuthorizationMetadata,
    identity: ClientIdentity,
    client_metadata_url: Option<String>,
    prompt: &(dyn Fn(LoginPrompt) + Send + Sync),
) -> Result<(String, Vec<String>)> {
    let issuer_name = metadata
        .issuer
        .clone()
        .unwrap_or_else(|| metadata.token_endpoint.clone());
    let device_endpoint = metadata
        .additional_fields
        .get("device_authorization_endpoint")
        .and_then(Value::as_str)
        .ok_or_else(|| OAuthError::DeviceUnsupported {
            issuer: issuer_name.clone(),
        })?;
    let scopes = request.settings.scopes.clone();
    let client_id = match identity {
        ClientIdentity::Preregistered => request.settings.client_id.clone().unwrap_or_default(),
        ClientIdentity::MetadataDocument => client_metadata_url.unwrap_or_default(),
        ClientIdentity::DynamicRegistration => {
            let scope_refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
            manager
                .register_client(CLIENT_NAME, "http://127.0.0.1/callback", &scope_refs)
                .await
                .map_err(OAuthError::from_auth)?
                .client_id
        }
    };
    let mut client = device_client(&client_id, device_endpoint, &metadata.token_endpoint)?;
    let client_secret = request
        .client_secret
        .clone()
        .filter(|_| identity == ClientIdentity::Preregistered);
    if let Some(secret) = &client_secret {
        client = client.set_client_secret(oauth2::ClientSecret::new(secret.clone()));
    }
    let http = http_client()?;
    let details: StandardDeviceAuthorizationResponse = client
        .exchange_device_code()
        .add_scopes(scopes.iter().cloned().map(Scope::new))
        .add_extra_param("resource", resource)
        .request_async(&http)
        .await
        .map_err(|e| OAuthError::Protocol(format!("device authorization failed: {e}")))?;
    prompt(LoginPrompt::DeviceCode {
        verification_uri: details.verification_uri().to_string(),
        user_code: details.user_code().secret().clone(),
        verification_uri_complete: details
            .verification_uri_complete()
            .map(|u| u.secret().clone()),
    });
    let token = client
        .exchange_device_access_token(&details)
        .add_extra_param("resource", resource)
        .request_async(&http, tokio::time::sleep, Some(request.timeout))
        .await
        .map_err(|e| OAuthError::Protocol(format!("the device login did not complete: {e}")))?;
    let granted: Vec<String> = token
        .scopes()
        .map(|s| s.iter().map(|s| s.to_string()).collect())
        .unwrap_or(scopes);
    // rmcp's token type keeps the fields oauth2's basic one drops.
    let token: OAuthTokenResponse = serde_json::to_value(&token)
        .and_then(serde_json::from_value)
        .map_err(|e| OAuthError::Protocol(format!("the token response: {e}")))?;
    let credentials =
        StoredCredentials::new(client_id.clone(), Some(token), granted.clone(), Some(now()))
            .with_issuer(metadata.issuer.clone());
    store.put(TokenEntry {
        server: request.server.clone(),
        resource: resource.to_owned(),
        issuer: metadata.issuer.clone(),
        client_id: client_id.clone(),
        client_secret,
        metadata: metadata.clone(),
        credentials: Some(credentials),
    })?;
    Ok((client_id, granted))
}

type DeviceClient =
    BasicClient<EndpointNotSet, EndpointSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

fn device_client(client_id: &str, device: &str, token: &str) -> Result<DeviceClient> {
    let bad = |what: &str, e: oauth2::url::ParseError| {
        OAuthError::Protocol(format!(
            "the authorization server's {what} is not a URL: {e}"
        ))
    };
    Ok(BasicClient::new(ClientId::new(client_id.to_owned()))
        .set_device_authorization_url(
            DeviceAuthorizationUrl::new(device.to_owned())
                .map_err(|e| bad("device_authorization_endpoint", e))?,
        )
        .set_token_uri(TokenUrl::new(token.to_owned()).map_err(|e| bad("token_endpoint", e))?))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

type HttpFuture =
    std::pin::Pin<Box<dyn Future<Output = Result<HttpResponse, reqwest::Error>> + Send>>;

/// The HTTP client the `oauth2` crate's requests go through (reqwest, no
/// redirects: a token endpoint that redirects is not followed).
fn http_client() -> Result<impl Fn(HttpRequest) -> HttpFuture> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| OAuthError::Protocol(e.to_string()))?;
    Ok(move |request: HttpRequest| {
        let client = client.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let mut builder = client
                .request(parts.method, parts.uri.to_string())
                .body(body);
            for (name, value) in &parts.headers {
                builder = builder.header(name, value);
            }
            let response = builder.send().await?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes().await?.to_vec();
            let mut out = HttpResponse::new(body);
            *out.status_mut() = status;
            *out.headers_mut() = headers;
            Ok(out)
        }) as HttpFuture
    })
}

/// What `logout` did.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct LogoutOutcome {
    /// Tokens were stored and are deleted.
    pub removed: bool,
    /// The authorization server has a revocation endpoint and was asked to
    /// revoke; `Some(Err)` says why it failed (the tokens are deleted anyway).
    pub revoked: Option<Result<(), String>>,
}

/// Deletes the tokens of the server at `url`, revoking them first when the
/// authorization server publishes a `revocation_endpoint`.
pub async fn logout(url: &str, store: &TokenStore) -> Result<LogoutOutcome> {
    let resource = canonical_resource(url)?;
    let Some(entry) = store.remove(&resource)? else {
        return Ok(LogoutOutcome {
            removed: false,
            revoked: None,
        });
    };
    let revocation = entry
        .metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(Value::as_str);
    let token = entry
        .credentials
        .as_ref()
        .and_then(|c| c.token_response.as_ref());
    let revoked = match (revocation, token) {
        (Some(endpoint), Some(token)) => Some(revoke(&entry.client_id, endpoint, token).await),
        _ => None,
    };
    Ok(LogoutOutcome {
        removed: true,
        revoked,
    })
}

/// Revokes the refresh token (revoking it ends the grant, RFC 7009 §2.1), or
/// the access token when there is none. A plain form POST: the `oauth2`
/// crate's revocation refuses an `http` endpoint even on loopback, where the
/// MCP authorization spec allows one.
async fn revoke(client_id: &str, endpoint: &str, token: &OAuthTokenResponse) -> Result<(), String> {
    let (token, hint) = match token.refresh_token() {
        Some(r) => (r.secret().clone(), "refresh_token"),
        None => (token.access_token().secret().clone(), "access_token"),
    };
    let body = oauth2::url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", &token)
        .append_pair("token_type_hint", hint)
        .append_pair("client_id", client_id)
        .finish();
    let response = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?
        .post(endpoint)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| format!("{endpoint}: {e}"))?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(format!("{endpoint} answered {}", response.status()))
    }
}

/// The HTTP client of a connection to `url`: rmcp's [`AuthClient`] over the
/// stored login (it refreshes before expiry and once on a 401), or `None`
/// when there is no login for `url`.
pub async fn authorized_client(
    server: &str,
    url: &str,
    store: &TokenStore,
) -> Result<Option<AuthClient<reqwest::Client>>> {
    let resource = canonical_resource(url)?;
    let Some(entry) = store.entry(&resource)? else {
        return Ok(None);
    };
    if entry
        .credentials
        .as_ref()
        .is_none_or(|c| c.token_response.is_none())
    {
        return Ok(None);
    }
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(OAuthError::from_auth)?;
    manager.set_metadata(entry.metadata.clone());
    manager.set_credential_store(EntryStore {
        store: store.clone(),
        server: server.to_owned(),
        resource,
        metadata: entry.metadata.clone(),
        client_secret: entry.client_secret.clone(),
    });
    let mut client = OAuthClientConfig::new(entry.client_id.clone(), url.to_owned());
    if let Some(secret) = &entry.client_secret {
        client = client.with_client_secret(secret.clone());
    }
    manager
        .configure_client(client)
        .map_err(OAuthError::from_auth)?;
    Ok(Some(AuthClient::new(reqwest::Client::new(), manager)))
}

const NEEDS_LOGIN: &str = "needs login: the server requires OAuth; run `tack mcp login ";

/// The text of a connection that the server refused for want of a login.
pub fn needs_login_message(server: &str) -> String {
    format!("{NEEDS_LOGIN}{server}`")
}

/// Whether a start failure is [`needs_login_message`].
pub fn is_needs_login(message: &str) -> bool {
    message.contains(NEEDS_LOGIN)
}

/// The one-shot loopback listener of the redirect.
struct Loopback {
    redirect_uri: String,
    received: oneshot::Receiver<Url>,
    shutdown: tokio_util::sync::CancellationToken,
}

impl Loopback {
    async fn bind(port: Option<u16>) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port.unwrap_or(0)))
            .await
            .map_err(|e| {
                OAuthError::Protocol(format!(
                    "could not listen on 127.0.0.1:{} for the login redirect: {e}",
                    port.unwrap_or(0)
                ))
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| OAuthError::Protocol(e.to_string()))?;
        // A fixed port is one registered with the authorization server, and
        // Claude Code's docs have people register `http://localhost:PORT/callback`:
        // tack sends the same, and listens on ::1 too for browsers that resolve
        // localhost to it. An ephemeral port gets the RFC 8252 literal.
        let (redirect_uri, also) = match port {
            Some(port) => (
                format!("http://localhost:{port}/callback"),
                tokio::net::TcpListener::bind(("::1", port)).await.ok(),
            ),
            None => (format!("http://127.0.0.1:{}/callback", addr.port()), None),
        };
        let (sender, received) = oneshot::channel();
        let sender = Arc::new(std::sync::Mutex::new(Some(sender)));
        let base = redirect_uri.clone();
        let app = axum::Router::new().route(
            "/callback",
            axum::routing::get(move |uri: axum::http::Uri| {
                let sender = sender.clone();
                let base = base.clone();
                async move {
                    let full = format!("{base}?{}", uri.query().unwrap_or(""));
                    let taken = sender.lock().unwrap_or_else(|p| p.into_inner()).take();
                    match (Url::parse(&full), taken) {
                        (Ok(url), Some(sender)) => {
                            let _ = sender.send(url);
                            axum::response::Html(
                                "<p>tack: the login is complete; you can close this tab.</p>",
                            )
                        }
                        _ => axum::response::Html("<p>tack: this login was already answered.</p>"),
                    }
                }
            }),
        );
        let shutdown = tokio_util::sync::CancellationToken::new();
        for listener in std::iter::once(listener).chain(also) {
            let stop = shutdown.clone();
            let app = app.clone();
            tokio::spawn(async move {
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(stop.cancelled_owned())
                    .await;
            });
        }
        Ok(Self {
            redirect_uri,
            received,
            shutdown,
        })
    }

    async fn wait(mut self) -> Result<Url> {
        let url = (&mut self.received)
            .await
            .map_err(|_| OAuthError::Protocol("the login redirect listener stopped".into()))?;
        Ok(url)
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_claude_code_spelling() {
        let s = OAuthSettings::from_value(
            &serde_json::json!({"clientId": "abc", "callbackPort": 8080}),
        )
        .unwrap();
        assert_eq!(s.client_id.as_deref(), Some("abc"));
        assert_eq!(s.callback_port, Some(8080));
    }

    #[test]
    fn misspelled_setting_names_the_closest() {
        let (field, message) =
            OAuthSettings::from_value(&serde_json::json!({"clientID": "abc"})).unwrap_err();
        assert_eq!(field, "oauth.clientID");
        assert!(message.contains("did you mean `clientId`"), "{message}");
        let (_, message) =
            OAuthSettings::from_value(&serde_json::json!({"callbackPort": 0})).unwrap_err();
        assert!(message.contains("port number"), "{message}");
    }

    #[test]
    fn scopes_are_claude_codes_string_or_a_list() {
        let s = OAuthSettings::from_value(&serde_json::json!({"scopes": "read write"})).unwrap();
        assert_eq!(s.scopes, ["read", "write"]);
        let s = OAuthSettings::from_value(&serde_json::json!({"scopes": ["read"]})).unwrap();
        assert_eq!(s.scopes, ["read"]);
        let (_, message) =
            OAuthSettings::from_value(&serde_json::json!({"scopes": " "})).unwrap_err();
        assert!(message.contains("names no scope"), "{message}");
        let (_, message) = OAuthSettings::from_value(
            &serde_json::json!({"authServerMetadataUrl": "http://as.example/.well-known/x"}),
        )
        .unwrap_err();
        assert!(message.contains("https"), "{message}");
    }

    #[test]
    fn metadata_url_must_be_https_with_a_path() {
        for bad in ["http://x.example/doc.json", "https://x.example/"] {
            let (_, message) =
                OAuthSettings::from_value(&serde_json::json!({"clientMetadataUrl": bad}))
                    .unwrap_err();
            assert!(message.contains("https URL with a path"), "{message}");
        }
    }
}
