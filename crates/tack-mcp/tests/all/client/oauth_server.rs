//! A local OAuth 2.1 authorization server and an MCP server it protects, on
//! one 127.0.0.1 port, for the OAuth client tests:
//!
//! - `/as` is the issuer (an issuer with a path, so discovery needs the
//!   path-aware well-known forms): metadata, `/as/authorize` (approves at once
//!   and redirects, as a person clicking "allow" would), `/as/token`
//!   (authorization code with PKCE S256 checked, refresh, device code),
//!   `/as/register` (RFC 7591), `/as/device` (RFC 8628), `/as/revoke`
//!   (RFC 7009);
//! - `/mcp` is tack's own MCP server (the conformance fixtures) behind a
//!   bearer check against the tokens this server issued: 401 with
//!   `WWW-Authenticate: Bearer resource_metadata=…` otherwise; its protected
//!   resource metadata is at `/.well-known/oauth-protected-resource/mcp`.
//!
//! Everything the client sent is recorded for the tests to assert on.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::Digest as _;
use tack_mcp::server::{HttpAuth, HttpOptions, HttpServer, ServerInfo, conformance_fixture_host};

/// What the authorization server offers and how it misbehaves.
#[derive(Debug, Clone)]
pub struct AsConfig {
    pub registration: bool,
    pub device: bool,
    pub cimd: bool,
    pub s256: bool,
    /// The `issuer` the metadata claims (`None`: the real one).
    pub claimed_issuer: Option<String>,
    /// The `iss` put on the redirect (`None`: the real one).
    pub redirect_iss: Option<String>,
    /// Replace the redirect's `state` with this.
    pub redirect_state: Option<String>,
    /// `expires_in` of access tokens.
    pub expires_in: u64,
    /// Pre-registered clients.
    pub clients: Vec<String>,
}

impl Default for AsConfig {
    fn default() -> Self {
        Self {
            registration: true,
            device: true,
            cimd: false,
            s256: true,
            claimed_issuer: None,
            redirect_iss: None,
            redirect_state: None,
            expires_in: 3600,
            clients: vec!["tack-preregistered".into()],
        }
    }
}

/// What the client did, for the assertions.
#[derive(Debug, Default, Clone)]
pub struct Log {
    pub authorize: Vec<HashMap<String, String>>,
    pub token: Vec<HashMap<String, String>>,
    pub register: Vec<Value>,
    pub revoked: Vec<String>,
    /// Bearer tokens the MCP endpoint accepted, in order.
    pub accepted: Vec<String>,
    /// Requests the MCP endpoint refused (401).
    pub refused: usize,
}

#[derive(Default)]
struct Grants {
    /// code → (client_id, challenge, redirect_uri)
    codes: HashMap<String, (String, String, String)>,
    access: HashSet<String>,
    /// refresh token → client id
    refresh: HashMap<String, String>,
    /// device code → (client id, approved)
    devices: HashMap<String, (String, bool)>,
    user_codes: HashMap<String, String>,
    clients: HashSet<String>,
    counter: u64,
}

struct Inner {
    config: Mutex<AsConfig>,
    log: Mutex<Log>,
    grants: Mutex<Grants>,
    base: String,
    upstream: String,
    http: reqwest::Client,
}

/// The running servers; dropped, they stop.
pub struct AuthServer {
    inner: Arc<Inner>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    _upstream: tokio::task::JoinHandle<()>,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self._upstream.abort();
    }
}

impl AuthServer {
    pub async fn start(config: AsConfig) -> Self {
        // The MCP server itself, open, on its own port; only this process
        // reaches it, through the bearer check below.
        let upstream = HttpServer::bind(
            Arc::new(conformance_fixture_host()),
            ServerInfo::new("protected", "1.0.0"),
            "127.0.0.1:0".parse().unwrap(),
            HttpOptions {
                auth: HttpAuth::None,
                ..HttpOptions::default()
            },
        )
        .await
        .unwrap();
        let upstream_addr = upstream.local_addr();
        let upstream_task = tokio::spawn(async move {
            let _ = upstream.run().await;
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut grants = Grants::default();
        grants.clients.extend(config.clients.iter().cloned());
        let inner = Arc::new(Inner {
            config: Mutex::new(config),
            log: Mutex::default(),
            grants: Mutex::new(grants),
            base: format!("http://{addr}"),
            upstream: format!("http://{upstream_addr}/mcp"),
            http: reqwest::Client::new(),
        });
        let app = Router::new()
            .route(
                "/.well-known/oauth-protected-resource/mcp",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-authorization-server/as",
                get(server_metadata),
            )
            .route("/as/authorize", get(authorize))
            .route("/as/token", post(token))
            .route("/as/register", post(register))
            .route("/as/device", post(device))
            .route("/as/device/approve", get(approve_device))
            .route("/as/revoke", post(revoke))
            .route("/mcp", any(mcp))
            .with_state(inner.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Self {
            inner,
            stop: Some(stop),
            _upstream: upstream_task,
        }
    }

    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.inner.base)
    }

    pub fn issuer(&self) -> String {
        format!("{}/as", self.inner.base)
    }

    pub fn log(&self) -> Log {
        self.inner.log.lock().unwrap().clone()
    }

    /// Invalidates every access token (as a server-side revocation would);
    /// refresh tokens stay good.
    pub fn expire_access_tokens(&self) {
        self.inner.grants.lock().unwrap().access.clear();
    }

    /// Revokes every grant, access and refresh tokens alike (the user
    /// revoked tack's access at the authorization server).
    pub fn revoke_all(&self) {
        let mut grants = self.inner.grants.lock().unwrap();
        grants.access.clear();
        grants.refresh.clear();
    }

    /// Whether `token` is a live refresh token.
    pub fn refresh_token_live(&self, token: &str) -> bool {
        self.inner
            .grants
            .lock()
            .unwrap()
            .refresh
            .contains_key(token)
    }

    /// The person approves the device login with `user_code`.
    pub async fn approve_device(base: &str, user_code: &str) {
        let response = reqwest::get(format!("{base}/as/device/approve?user_code={user_code}"))
            .await
            .unwrap();
        assert!(response.status().is_success());
    }

    pub fn base(&self) -> String {
        self.inner.base.clone()
    }
}

fn pairs(text: &str) -> HashMap<String, String> {
    reqwest::Url::parse(&format!("http://x/?{text}"))
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

fn oauth_error(status: StatusCode, error: &str) -> Response {
    (status, Json(json!({"error": error}))).into_response()
}

async fn resource_metadata(State(s): State<Arc<Inner>>) -> Json<Value> {
    Json(json!({
        "resource": format!("{}/mcp", s.base),
        "authorization_servers": [format!("{}/as", s.base)],
        "scopes_supported": ["mcp:tools"],
    }))
}

async fn server_metadata(State(s): State<Arc<Inner>>) -> Json<Value> {
    let config = s.config.lock().unwrap().clone();
    let issuer = format!("{}/as", s.base);
    let mut m = json!({
        "issuer": config.claimed_issuer.clone().unwrap_or(issuer.clone()),
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "revocation_endpoint": format!("{issuer}/revoke"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
        "token_endpoint_auth_methods_supported": ["none"],
        "authorization_response_iss_parameter_supported": true,
        "client_id_metadata_document_supported": config.cimd,
    });
    if config.s256 {
        m["code_challenge_methods_supported"] = json!(["S256"]);
    } else {
        m["code_challenge_methods_supported"] = json!(["plain"]);
    }
    if config.registration {
        m["registration_endpoint"] = json!(format!("{issuer}/register"));
    }
    if config.device {
        m["device_authorization_endpoint"] = json!(format!("{issuer}/device"));
    }
    Json(m)
}

fn next(grants: &mut Grants, prefix: &str) -> String {
    grants.counter += 1;
    format!("{prefix}-{}-{}", grants.counter, rand::random::<u32>())
}

async fn authorize(State(s): State<Arc<Inner>>, uri: Uri) -> Response {
    let q = pairs(uri.query().unwrap_or(""));
    s.log.lock().unwrap().authorize.push(q.clone());
    let config = s.config.lock().unwrap().clone();
    let (Some(client), Some(redirect), Some(challenge)) = (
        q.get("client_id"),
        q.get("redirect_uri"),
        q.get("code_challenge"),
    ) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request");
    };
    if q.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request");
    }
    let code = {
        let mut g = s.grants.lock().unwrap();
        let known = g.clients.contains(client) || (config.cimd && client.starts_with("https://"));
        if !known {
            return oauth_error(StatusCode::BAD_REQUEST, "unauthorized_client");
        }
        let code = next(&mut g, "code");
        g.codes.insert(
            code.clone(),
            (client.clone(), challenge.clone(), redirect.clone()),
        );
        code
    };
    let mut location = reqwest::Url::parse(redirect).unwrap();
    let state = config
        .redirect_state
        .clone()
        .or_else(|| q.get("state").cloned())
        .unwrap_or_default();
    let iss = config
        .redirect_iss
        .clone()
        .unwrap_or(format!("{}/as", s.base));
    location
        .query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &state)
        .append_pair("iss", &iss);
    (StatusCode::FOUND, [("location", location.to_string())]).into_response()
}

fn tokens(s: &Inner, g: &mut Grants, client: &str, refresh: Option<String>) -> Response {
    let access = next(g, "access");
    g.access.insert(access.clone());
    let refresh = refresh.unwrap_or_else(|| next(g, "refresh"));
    g.refresh.insert(refresh.clone(), client.to_owned());
    let expires_in = s.config.lock().unwrap().expires_in;
    Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": expires_in,
        "refresh_token": refresh,
        "scope": "mcp:tools",
    }))
    .into_response()
}

async fn token(State(s): State<Arc<Inner>>, body: Bytes) -> Response {
    let form = pairs(std::str::from_utf8(&body).unwrap());
    s.log.lock().unwrap().token.push(form.clone());
    let mut g = s.grants.lock().unwrap();
    match form.get("grant_type").map(String::as_str) {
        Some("authorization_code") => {
            let Some((client, challenge, redirect)) =
                form.get("code").and_then(|c| g.codes.remove(c))
            else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            let verifier = form.get("code_verifier").cloned().unwrap_or_default();
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(verifier.as_bytes()));
            if computed != challenge
                || form.get("client_id") != Some(&client)
                || form.get("redirect_uri") != Some(&redirect)
            {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            }
            tokens(&s, &mut g, &client, None)
        }
        Some("refresh_token") => {
            let Some(refresh) = form.get("refresh_token") else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_request");
            };
            let Some(client) = g.refresh.get(refresh).cloned() else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            tokens(&s, &mut g, &client, Some(refresh.clone()))
        }
        Some("urn:ietf:params:oauth:grant-type:device_code") => {
            let Some((client, approved)) = form
                .get("device_code")
                .and_then(|d| g.devices.get(d))
                .cloned()
            else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            if !approved {
                return oauth_error(StatusCode::BAD_REQUEST, "authorization_pending");
            }
            if let Some(d) = form.get("device_code") {
                g.devices.remove(d);
            }
            tokens(&s, &mut g, &client, None)
        }
        _ => oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type"),
    }
}

async fn register(State(s): State<Arc<Inner>>, Json(body): Json<Value>) -> Response {
    s.log.lock().unwrap().register.push(body.clone());
    let mut g = s.grants.lock().unwrap();
    let id = next(&mut g, "dcr-client");
    g.clients.insert(id.clone());
    (
        StatusCode::CREATED,
        Json(json!({
            "client_id": id,
            "client_name": body["client_name"],
            "redirect_uris": body["redirect_uris"],
        })),
    )
        .into_response()
}

async fn device(State(s): State<Arc<Inner>>, body: Bytes) -> Response {
    let form = pairs(std::str::from_utf8(&body).unwrap());
    s.log.lock().unwrap().token.push(form.clone());
    let mut g = s.grants.lock().unwrap();
    let Some(client) = form
        .get("client_id")
        .filter(|c| g.clients.contains(*c))
        .cloned()
    else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_client");
    };
    let device_code = next(&mut g, "device");
    let user_code = format!("U{}", g.counter);
    g.devices.insert(device_code.clone(), (client, false));
    g.user_codes.insert(user_code.clone(), device_code.clone());
    Json(json!({
        "device_code": device_code,
        "user_code": user_code,
        "verification_uri": format!("{}/as/device/approve", s.base),
        "expires_in": 600,
        "interval": 1,
    }))
    .into_response()
}

async fn approve_device(State(s): State<Arc<Inner>>, uri: Uri) -> Response {
    let q = pairs(uri.query().unwrap_or(""));
    let mut g = s.grants.lock().unwrap();
    let Some(device) = q
        .get("user_code")
        .and_then(|u| g.user_codes.get(u))
        .cloned()
    else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if let Some(entry) = g.devices.get_mut(&device) {
        entry.1 = true;
    }
    "approved".into_response()
}

async fn revoke(State(s): State<Arc<Inner>>, body: Bytes) -> Response {
    let form = pairs(std::str::from_utf8(&body).unwrap());
    let token = form.get("token").cloned().unwrap_or_default();
    let mut g = s.grants.lock().unwrap();
    g.refresh.remove(&token);
    g.access.remove(&token);
    s.log.lock().unwrap().revoked.push(token);
    StatusCode::OK.into_response()
}

/// The protected MCP endpoint: the bearer check, then the request passed on
/// to the MCP server as it came.
async fn mcp(
    State(s): State<Arc<Inner>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let live = bearer
        .as_ref()
        .is_some_and(|t| s.grants.lock().unwrap().access.contains(t));
    let Some(bearer) = bearer.filter(|_| live) else {
        s.log.lock().unwrap().refused += 1;
        let challenge = format!(
            r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools""#,
            s.base
        );
        return (
            StatusCode::UNAUTHORIZED,
            [("www-authenticate", challenge)],
            "unauthorized",
        )
            .into_response();
    };
    s.log.lock().unwrap().accepted.push(bearer);
    let mut request = s.http.request(method, &s.upstream).body(body);
    for (name, value) in &headers {
        if !matches!(name.as_str(), "host" | "authorization" | "content-length") {
            request = request.header(name, value);
        }
    }
    let upstream = match request.send().await {
        Ok(r) => r,
        Err(e) => return (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    };
    let mut response = Response::builder().status(upstream.status());
    for (name, value) in upstream.headers() {
        if !matches!(
            name.as_str(),
            "content-length" | "transfer-encoding" | "connection"
        ) {
            response = response.header(name, value);
        }
    }
    response
        .body(Body::from_stream(upstream.bytes_stream()))
        .unwrap()
}
