//! The HTTP server: routing, auth, validation, step dispatch and recording.
//!
//! A request goes through: route → auth → parse JSON → validate → take the
//! next step (or the fallback) → check the step's expectation → record →
//! delay → answer. Every stage before "take the next step" may refuse the
//! request; a refused request is recorded but consumes no step.

use std::collections::VecDeque;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use futures::stream::{self, BoxStream};
use serde_json::Value;
use tack_protocol::Usage;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::cache::{CacheUsage, PromptCache};
use crate::listener::{Conn, CuttableListener};
use crate::render::Reply;
use crate::step::{
    Action, Api, DEFAULT_USAGE, Fallback, Step, default_error_message, error_type_for_status,
};
use crate::{anthropic, openai, responses, turn, validate};

const MAX_BODY_BYTES: usize = 64 << 20;

/// A request the mock received, as it came, with the status it was answered.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The URL path, e.g. `/v1/messages`.
    pub path: String,
    /// Headers in arrival order, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The JSON body; a body that is not JSON is kept as a string.
    pub body: Value,
    /// The body's bytes as they came (lossy UTF-8): what the prompt cache
    /// compares, to check that a prefix stays byte-identical.
    pub raw_body: String,
    /// The HTTP status answered; 0 when the connection was cut without one.
    pub status: u16,
    /// Why the mock refused the request (validation, auth, unknown route,
    /// unmet expectation); `None` when a step or the fallback answered it.
    pub error: Option<String>,
    /// How the prompt cache split this request's input tokens (Messages API
    /// requests answered with a reply); `None` otherwise.
    pub cache: Option<CacheUsage>,
}

impl RecordedRequest {
    /// The raw JSON text of a top-level field of the body (`tools`, `system`),
    /// exactly as sent.
    pub fn raw_field(&self, name: &str) -> Option<String> {
        raw_member(&self.raw_body, name)
    }

    /// The first value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A running mock of the model APIs on a local port.
///
/// Cloning gives another handle to the same server; the server stops
/// accepting connections when the last handle is dropped or on
/// [`MockServer::shutdown`].
#[derive(Clone)]
pub struct MockServer {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shutdown.send_replace(true);
    }
}

impl std::fmt::Debug for MockServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockServer")
            .field("url", &self.url())
            .field("remaining", &self.remaining())
            .finish()
    }
}

struct Shared {
    state: Mutex<ServerState>,
}

struct ServerState {
    cache: PromptCache,
    steps: VecDeque<Step>,
    fallback: Fallback,
    require_auth: bool,
    /// The model's context window in estimated tokens; None: no limit.
    context_window: Option<u64>,
    /// What `GET /v1/models` lists (Chat Completions servers' model listing).
    models: Vec<Value>,
    requests: Vec<RecordedRequest>,
    /// Checks each valid model request before it takes a step.
    gate: Option<Gate>,
    /// Steps served so far (the next step's index).
    served: usize,
}

/// A check of each valid model request before it takes a step: given the
/// index of the step it would take (0-based), the API and the body,
/// `Err(why)` refuses it with a 400 (`mock expectation failed`) and the step
/// stays queued. `tack eval` compares each request with a cassette this way.
pub type Gate = Arc<dyn Fn(usize, Api, &Value) -> Result<(), String> + Send + Sync>;

impl Shared {
    fn lock(&self) -> MutexGuard<'_, ServerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MockServer {
    /// Start on `127.0.0.1` with a free port.
    ///
    /// # Panics
    /// If no local port can be bound (a broken test machine).
    pub async fn start() -> MockServer {
        match MockServer::start_on(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await {
            Ok(server) => server,
            Err(e) => panic!("tack-testkit: cannot bind a port on 127.0.0.1: {e}"),
        }
    }

    /// Start on this address (port 0 picks a free port).
    pub async fn start_on(addr: SocketAddr) -> io::Result<MockServer> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(ServerState {
                cache: PromptCache::default(),
                steps: VecDeque::new(),
                fallback: Fallback::default(),
                require_auth: true,
                context_window: None,
                models: Vec::new(),
                requests: Vec::new(),
                gate: None,
                served: 0,
            }),
        });
        let (shutdown, mut stop) = watch::channel(false);
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let server = axum::serve(
            CuttableListener(listener),
            app.into_make_service_with_connect_info::<Conn>(),
        )
        .with_graceful_shutdown(async move {
            // Also ends when the sender is gone.
            let _ = stop.wait_for(|stopped| *stopped).await;
        });
        tokio::spawn(async move {
            if let Err(e) = server.await {
                tracing::warn!("mock server on {addr} stopped: {e}");
            }
        });
        Ok(MockServer {
            inner: Arc::new(Inner {
                shared,
                addr,
                shutdown,
            }),
        })
    }

    /// The base URL, `http://127.0.0.1:PORT`; the APIs live at `/v1/messages`
    /// and `/v1/chat/completions`.
    pub fn url(&self) -> String {
        let mut addr = self.inner.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{addr}")
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.inner.addr
    }

    /// Queue a step.
    pub fn push(&self, step: Step) {
        self.inner.shared.lock().steps.push_back(step);
    }

    /// Queue several steps, in order.
    pub fn push_all(&self, steps: impl IntoIterator<Item = Step>) {
        self.inner.shared.lock().steps.extend(steps);
    }

    /// What to answer once the queue is empty.
    pub fn set_fallback(&self, fallback: Fallback) {
        self.inner.shared.lock().fallback = fallback;
    }

    /// Whether to require the API key and version headers (default true).
    pub fn set_require_auth(&self, require: bool) {
        self.inner.shared.lock().require_auth = require;
    }

    /// The smallest prefix the prompt cache writes, in estimated tokens
    /// (bytes / 4); [`crate::cache::DEFAULT_MIN_CACHEABLE_TOKENS`] unless set.
    pub fn set_cache_min_tokens(&self, min_tokens: u64) {
        self.inner.shared.lock().cache.set_min_tokens(min_tokens);
    }

    /// The model's context window, in estimated tokens (bytes / 4 of the
    /// prompt: system, tools and messages). A request whose prompt is larger
    /// gets the API's 400 (Messages: `prompt is too long: N tokens > M
    /// maximum`; Chat Completions: `context_length_exceeded`), is recorded
    /// as a rejection and consumes no step. None (the default): no limit.
    pub fn set_context_window(&self, tokens: Option<u64>) {
        self.inner.shared.lock().context_window = tokens;
    }

    /// What `GET /v1/models` answers in `data` (default: nothing), e.g.
    /// `[{"id": "local", "max_model_len": 30000}]` as vLLM lists a model.
    pub fn set_models(&self, models: Vec<Value>) {
        self.inner.shared.lock().models = models;
    }

    /// Check every valid model request with `gate` before it takes a step
    /// (see [`Gate`]).
    pub fn set_gate(&self, gate: Gate) {
        self.inner.shared.lock().gate = Some(gate);
    }

    /// Forget every prefix the prompt cache holds.
    pub fn clear_cache(&self) {
        self.inner.shared.lock().cache.clear();
    }

    /// Every request received, in order, refused ones included.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.inner.shared.lock().requests.clone()
    }

    /// The requests the mock refused (validation 400s, auth, unknown routes,
    /// unmet expectations): those with [`RecordedRequest::error`] set.
    pub fn rejections(&self) -> Vec<RecordedRequest> {
        let state = self.inner.shared.lock();
        state
            .requests
            .iter()
            .filter(|r| r.error.is_some())
            .cloned()
            .collect()
    }

    /// Steps not yet served.
    pub fn remaining(&self) -> usize {
        self.inner.shared.lock().steps.len()
    }

    /// Stop accepting connections now; requests in flight finish.
    pub fn shutdown(&self) {
        self.inner.shutdown.send_replace(true);
    }
}

/// Serve `steps` on `addr` until Ctrl-C: the body of `tack mock-server`.
/// `on_ready` runs once the port is bound (print [`MockServer::url`] there).
pub async fn serve_forever(
    addr: SocketAddr,
    steps: Vec<Step>,
    fallback: Fallback,
    on_ready: impl FnOnce(&MockServer),
) -> io::Result<()> {
    let server = MockServer::start_on(addr).await?;
    server.push_all(steps);
    server.set_fallback(fallback);
    on_ready(&server);
    tokio::signal::ctrl_c().await?;
    server.shutdown();
    Ok(())
}

/// A request the mock answers itself, without consuming a step.
struct Refusal {
    api: Api,
    status: u16,
    error_type: &'static str,
    message: String,
    param: Option<String>,
    code: Option<String>,
}

impl Refusal {
    fn new(api: Api, status: u16, error_type: &'static str, message: impl Into<String>) -> Self {
        Refusal {
            api,
            status,
            error_type,
            message: message.into(),
            param: None,
            code: None,
        }
    }
}

/// A request answered by a step (or the fallback).
struct Serving {
    api: Api,
    step: Step,
    /// The prompt cache's split of the input (Messages API replies).
    cache: Option<CacheUsage>,
    n: usize,
    model: String,
    stream: bool,
    include_usage: bool,
    /// The request's namespaced functions (Responses API): `(namespace, name)`.
    namespaces: Vec<(String, String)>,
}

impl Serving {
    fn cuts_without_response(&self) -> bool {
        self.step.cut_after.is_some()
            && (!self.stream || matches!(self.step.action, Action::Error { .. }))
    }

    fn status(&self) -> u16 {
        match &self.step.action {
            _ if self.cuts_without_response() => 0,
            Action::Error { status, .. } => *status,
            Action::Reply { .. } => 200,
        }
    }
}

enum Plan {
    Refuse(Refusal),
    Serve(Box<Serving>),
    /// A JSON answer with status 200: `count_tokens`' estimate, the
    /// `/v1/models` listing.
    Json(Value),
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(conn): ConnectInfo<Conn>,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .unwrap_or_default();
    let (plan, n) = plan(
        &shared,
        &parts.method,
        parts.uri.path(),
        &parts.headers,
        &bytes,
    );
    let request_id = format!("req_mock_{n}");
    match plan {
        Plan::Refuse(refusal) => error_response(
            refusal.api,
            refusal.status,
            refusal.error_type,
            &refusal.message,
            refusal.param.as_deref(),
            refusal.code.as_deref(),
            &request_id,
            &[],
        ),
        Plan::Serve(serving) => serve(*serving, &request_id, &conn).await,
        Plan::Json(body) => (
            StatusCode::OK,
            [("request-id", request_id.as_str())],
            axum::Json(body),
        )
            .into_response(),
    }
}

/// Decide how to answer and record the request, under one lock so steps are
/// consumed in arrival order. Returns the plan and the request's number.
fn plan(
    shared: &Shared,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    bytes: &Bytes,
) -> (Plan, usize) {
    let parsed: Result<Value, _> = serde_json::from_slice(bytes);
    let mut record = RecordedRequest {
        path: path.to_owned(),
        headers: headers
            .iter()
            .map(|(k, v)| {
                let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
                (k.as_str().to_ascii_lowercase(), value)
            })
            .collect(),
        body: match &parsed {
            Ok(v) => v.clone(),
            Err(_) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
        },
        raw_body: String::from_utf8_lossy(bytes).into_owned(),
        status: 0,
        error: None,
        cache: None,
    };
    let mut state = shared.lock();
    let n = state.requests.len() + 1;
    let plan = decide(&mut state, n, method, path, headers, parsed);
    match &plan {
        Plan::Refuse(r) => {
            record.status = r.status;
            record.error = Some(r.message.clone());
        }
        Plan::Serve(s) => {
            record.status = s.status();
            record.cache = s.cache;
        }
        Plan::Json(_) => record.status = 200,
    }
    state.requests.push(record);
    (plan, n)
}

/// The prompt's estimated tokens: bytes / 4 of its system, tools and
/// messages as sent (the same estimate as the prompt cache's).
fn prompt_tokens(body: &Value) -> u64 {
    let bytes: usize = ["system", "tools", "messages", "instructions", "input"]
        .iter()
        .filter_map(|k| body.get(*k))
        .map(|v| serde_json::to_vec(v).map_or(0, |b| b.len()))
        .sum();
    crate::cache::estimate_tokens(bytes)
}

/// The `anthropic-beta` values a request sent (comma-separated, repeatable).
fn betas(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all("anthropic-beta")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|b| b.trim().to_owned())
        .collect()
}

/// The Messages API takes `context_management` only with the beta header of
/// each kind of edit it lists (as the real API refuses it without).
fn check_betas(body: &Value, headers: &HeaderMap) -> std::result::Result<(), Refusal> {
    let Some(cm) = body.get("context_management") else {
        return Ok(());
    };
    let betas = betas(headers);
    let refuse = |beta: &str| {
        Err(Refusal::new(
            Api::Anthropic,
            400,
            "invalid_request_error",
            format!(
                "context_management: Extra inputs are not permitted (this edit needs the anthropic-beta header {beta})"
            ),
        ))
    };
    let edits = cm
        .get("edits")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for edit in &edits {
        let kind = edit.get("type").and_then(Value::as_str).unwrap_or("");
        let needs = if kind.starts_with("compact_") {
            "compact-2026-01-12"
        } else {
            "context-management-2025-06-27"
        };
        if !betas.iter().any(|b| b == needs) {
            return refuse(needs);
        }
    }
    Ok(())
}

/// `POST /v1/messages/count_tokens`: a Messages body without `max_tokens`
/// and `stream`, answered with the same estimate the window check uses.
fn count_tokens(
    state: &ServerState,
    headers: &HeaderMap,
    parsed: Result<Value, serde_json::Error>,
) -> Plan {
    let refuse = |message: String| {
        Plan::Refuse(Refusal::new(
            Api::Anthropic,
            400,
            "invalid_request_error",
            message,
        ))
    };
    if state.require_auth
        && let Err(refusal) = check_auth(Api::Anthropic, headers)
    {
        return Plan::Refuse(refusal);
    }
    let body = match parsed {
        Ok(body) => body,
        Err(e) => return refuse(format!("There was an error parsing the body: {e}")),
    };
    for extra in ["max_tokens", "stream", "stop_sequences", "temperature"] {
        if body.get(extra).is_some() {
            return refuse(format!("{extra}: Extra inputs are not permitted"));
        }
    }
    let mut checked = body.clone();
    if let Value::Object(map) = &mut checked {
        map.insert("max_tokens".into(), Value::from(1));
    }
    if let Err(rejection) = validate::anthropic_request(&checked) {
        return refuse(rejection.message);
    }
    if let Err(refusal) = check_betas(&body, headers) {
        return Plan::Refuse(refusal);
    }
    Plan::Json(serde_json::json!({"input_tokens": prompt_tokens(&body)}))
}

/// The API's refusal of a prompt larger than the context window.
fn too_long(api: Api, tokens: u64, max: u64) -> Refusal {
    match api {
        Api::Anthropic => Refusal::new(
            api,
            400,
            "invalid_request_error",
            format!("prompt is too long: {tokens} tokens > {max} maximum"),
        ),
        Api::OpenAi => {
            let mut refusal = Refusal::new(
                api,
                400,
                "invalid_request_error",
                format!(
                    "This model's maximum context length is {max} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages."
                ),
            );
            refusal.param = Some("messages".into());
            refusal.code = Some("context_length_exceeded".into());
            refusal
        }
        Api::Responses => {
            let mut refusal = Refusal::new(
                api,
                400,
                "invalid_request_error",
                "Your input exceeds the context window of this model. Please adjust your input and try again.",
            );
            refusal.param = Some("input".into());
            refusal.code = Some("context_length_exceeded".into());
            refusal
        }
    }
}

fn route(method: &Method, path: &str) -> Result<Api, Refusal> {
    match (method == Method::POST, path) {
        (true, "/v1/messages") => Ok(Api::Anthropic),
        (true, "/v1/chat/completions") => Ok(Api::OpenAi),
        (true, "/v1/responses") => Ok(Api::Responses),
        _ if path.contains("chat") || path.contains("completions") => Err(Refusal::new(
            Api::OpenAi,
            404,
            "invalid_request_error",
            format!("Invalid URL ({method} {path})"),
        )),
        _ => Err(Refusal::new(
            Api::Anthropic,
            404,
            "not_found_error",
            "Not Found",
        )),
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = header(headers, "authorization")?;
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then_some(token)
}

fn check_auth(api: Api, headers: &HeaderMap) -> Result<(), Refusal> {
    match api {
        Api::Anthropic => {
            if header(headers, "x-api-key").is_none() && bearer(headers).is_none() {
                return Err(Refusal::new(
                    api,
                    401,
                    "authentication_error",
                    "x-api-key header is required",
                ));
            }
            if header(headers, "anthropic-version").is_none() {
                return Err(Refusal::new(
                    api,
                    400,
                    "invalid_request_error",
                    "anthropic-version: header is required",
                ));
            }
        }
        Api::OpenAi | Api::Responses => {
            if bearer(headers).is_none() {
                return Err(Refusal::new(
                    api,
                    401,
                    "invalid_request_error",
                    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                ));
            }
        }
    }
    Ok(())
}

fn decide(
    state: &mut ServerState,
    n: usize,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    parsed: Result<Value, serde_json::Error>,
) -> Plan {
    if method == Method::GET && path == "/v1/models" {
        return Plan::Json(serde_json::json!({"object": "list", "data": state.models}));
    }
    if method == Method::POST && path == "/v1/messages/count_tokens" {
        return count_tokens(state, headers, parsed);
    }
    let api = match route(method, path) {
        Ok(api) => api,
        Err(refusal) => return Plan::Refuse(refusal),
    };
    if state.require_auth
        && let Err(refusal) = check_auth(api, headers)
    {
        return Plan::Refuse(refusal);
    }
    let body = match parsed {
        Ok(body) => body,
        Err(e) => {
            let message = match api {
                Api::Anthropic => format!("There was an error parsing the body: {e}"),
                Api::OpenAi | Api::Responses => {
                    "We could not parse the JSON body of your request.".to_owned()
                }
            };
            return Plan::Refuse(Refusal::new(api, 400, "invalid_request_error", message));
        }
    };
    let checked = match api {
        Api::Anthropic => validate::anthropic_request_with_betas(&body, &betas(headers)),
        Api::OpenAi => validate::openai_request(&body),
        Api::Responses => validate::responses_request(&body),
    };
    if let Err(rejection) = checked {
        let mut refusal = Refusal::new(api, 400, "invalid_request_error", rejection.message);
        refusal.param = rejection.param;
        refusal.code = rejection.code;
        return Plan::Refuse(refusal);
    }
    if api == Api::Anthropic
        && let Err(refusal) = check_betas(&body, headers)
    {
        return Plan::Refuse(refusal);
    }
    if let Some(max) = state.context_window {
        let tokens = prompt_tokens(&body);
        if tokens > max {
            return Plan::Refuse(too_long(api, tokens, max));
        }
    }
    let stream = body.get("stream") == Some(&Value::Bool(true));
    let include_usage = body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true));
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("mock-model")
        .to_owned();
    let last_turn = turn::last_turn(api, &body);
    let namespaces = match api {
        Api::Responses => responses::namespaced_functions(&body),
        _ => Vec::new(),
    };
    if let Some(gate) = &state.gate
        && let Err(why) = gate(state.served, api, &body)
    {
        return Plan::Refuse(Refusal::new(
            api,
            400,
            "invalid_request_error",
            format!("mock expectation failed for request {n}: {why}"),
        ));
    }
    let step = match state.steps.pop_front() {
        Some(step) => {
            if let Some(expect) = &step.expect
                && let Err(why) = turn::check(expect, api, stream, &last_turn)
            {
                state.steps.push_front(step);
                return Plan::Refuse(Refusal::new(
                    api,
                    400,
                    "invalid_request_error",
                    format!("mock expectation failed for request {n}: {why}"),
                ));
            }
            state.served += 1;
            step
        }
        None => match state.fallback {
            Fallback::Exhausted => Step::error(500).with_message(format!(
                "mock script exhausted: no scripted response left for request {n}"
            )),
            Fallback::Echo => Step::text(turn::echo(&last_turn)),
        },
    };
    // The cache is read and written only by a request the API would answer.
    let cache = match (&step.action, api) {
        (Action::Reply { .. }, Api::Anthropic) => state.cache.serve(&body).ok(),
        _ => None,
    };
    Plan::Serve(Box::new(Serving {
        api,
        step,
        cache,
        n,
        model,
        stream,
        include_usage,
        namespaces,
    }))
}

async fn serve(serving: Serving, request_id: &str, conn: &Conn) -> Response {
    if let Some(delay) = serving.step.delay() {
        tokio::time::sleep(delay).await;
    }
    if serving.cuts_without_response() {
        conn.cut();
        // Never delivered: writing it fails and hyper drops the connection.
        return StatusCode::OK.into_response();
    }
    let step = &serving.step;
    let (content, stop_reason) = match &step.action {
        Action::Error {
            status,
            error_type,
            message,
        } => {
            let error_type = error_type
                .as_deref()
                .unwrap_or_else(|| error_type_for_status(*status));
            let message = message
                .as_deref()
                .unwrap_or_else(|| default_error_message(error_type));
            return error_response(
                serving.api,
                *status,
                error_type,
                message,
                None,
                None,
                request_id,
                &step.headers,
            );
        }
        Action::Reply {
            content,
            stop_reason,
        } => (content, stop_reason),
    };
    let usage = match (&step.usage, serving.cache) {
        (Some(scripted), _) => scripted.clone(),
        (None, Some(cache)) => Usage {
            input_tokens: cache.input_tokens,
            output_tokens: DEFAULT_USAGE.output_tokens,
            cache_creation_input_tokens: cache.cache_creation_input_tokens,
            cache_read_input_tokens: cache.cache_read_input_tokens,
        },
        (None, None) => step.usage_or_default(),
    };
    // The TTL split goes with computed usage only (scripted usage has none).
    let cache_split = serving.cache.filter(|_| step.usage.is_none());
    let response_id = match serving.api {
        Api::Anthropic => format!("msg_mock_{}", serving.n),
        Api::OpenAi => format!("chatcmpl-mock-{}", serving.n),
        Api::Responses => format!("resp_mock_{}", serving.n),
    };
    let reply = Reply {
        id: &response_id,
        model: &serving.model,
        content,
        stop_reason,
        usage: &usage,
        cache_split,
        raw_tool_arguments: &step.raw_tool_arguments,
    };
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    if !serving.stream {
        let json = match serving.api {
            Api::Anthropic => anthropic::message_json(&reply),
            Api::OpenAi => openai::completion_json(&reply, created),
            Api::Responses => responses::response_body(&reply, created, &serving.namespaces),
        };
        return respond(
            serving.api,
            200,
            "application/json",
            Body::from(json.to_string()),
            request_id,
            &step.headers,
        );
    }
    let stream_error = step.stream_error_after.as_ref();
    let (events, terminator, error_event) = match serving.api {
        Api::Anthropic => {
            let (events, stop) = anthropic::stream_events(&reply);
            let error = stream_error.map(|e| {
                let message = default_error_message(&e.error_type);
                (
                    e.after,
                    anthropic::stream_error_event(&e.error_type, message),
                )
            });
            (events, stop, error)
        }
        Api::OpenAi => {
            let chunks = openai::stream_chunks(&reply, created, serving.include_usage);
            let error = stream_error.map(|e| {
                let message = default_error_message(&e.error_type);
                (e.after, openai::stream_error_chunk(&e.error_type, message))
            });
            (chunks, openai::DONE.to_owned(), error)
        }
        Api::Responses => {
            let events = responses::stream_events(&reply, created, &serving.namespaces);
            let error = stream_error.map(|e| {
                let message = default_error_message(&e.error_type);
                (
                    e.after,
                    responses::stream_error_event(&e.error_type, message),
                )
            });
            // A Responses stream ends with its `response.completed` event.
            (events, String::new(), error)
        }
    };
    let body = sse_body(events, terminator, step.cut_after, error_event);
    let mut response = respond(
        serving.api,
        200,
        "text/event-stream",
        body,
        request_id,
        &step.headers,
    );
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The stream body: all events then the terminator; or the first `cut` events
/// then a broken connection; or the first `n` events then an error event.
fn sse_body(
    events: Vec<String>,
    terminator: String,
    cut: Option<usize>,
    error: Option<(usize, String)>,
) -> Body {
    let ok = |s: String| Ok::<Bytes, io::Error>(Bytes::from(s));
    let stream: BoxStream<'static, Result<Bytes, io::Error>> = if let Some(n) = cut {
        let head: Vec<String> = events.into_iter().take(n).collect();
        stream::iter(head.into_iter().map(ok))
            .chain(stream::once(async {
                // Let hyper flush what was sent before it sees the failure.
                tokio::time::sleep(Duration::from_millis(30)).await;
                Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "mock server: stream cut by script",
                ))
            }))
            .boxed()
    } else if let Some((n, error_event)) = error {
        let mut items: Vec<String> = events.into_iter().take(n).collect();
        items.push(error_event);
        stream::iter(items.into_iter().map(ok)).boxed()
    } else {
        let mut items = events;
        items.push(terminator);
        stream::iter(items.into_iter().map(ok)).boxed()
    };
    Body::from_stream(stream)
}

#[expect(clippy::too_many_arguments, reason = "one flat call per error shape")]
fn error_response(
    api: Api,
    status: u16,
    error_type: &str,
    message: &str,
    param: Option<&str>,
    code: Option<&str>,
    request_id: &str,
    headers: &[(String, String)],
) -> Response {
    let json = match api {
        Api::Anthropic => anthropic::error_json(error_type, message, request_id),
        Api::OpenAi | Api::Responses => openai::error_json(error_type, message, param, code),
    };
    respond(
        api,
        status,
        "application/json",
        Body::from(json.to_string()),
        request_id,
        headers,
    )
}

fn respond(
    api: Api,
    status: u16,
    content_type: &'static str,
    body: Body,
    request_id: &str,
    headers: &[(String, String)],
) -> Response {
    let mut response = Response::new(body);
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let map = response.headers_mut();
    map.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    let id_header = match api {
        Api::Anthropic => "request-id",
        Api::OpenAi | Api::Responses => "x-request-id",
    };
    if let Ok(value) = HeaderValue::from_str(request_id) {
        map.insert(HeaderName::from_static(id_header), value);
    }
    for (name, value) in headers {
        match (
            HeaderName::try_from(name.as_str()),
            HeaderValue::try_from(value.as_str()),
        ) {
            (Ok(name), Ok(value)) => {
                map.append(name, value);
            }
            _ => {
                tracing::warn!("mock server: skipping invalid scripted header {name:?}: {value:?}")
            }
        }
    }
    response
}

/// The raw text of the value of top-level member `name` of the JSON object
/// `text`. Walks the text with a small scanner (strings, escapes, nesting),
/// so the bytes are the sender's, not a re-serialization.
fn raw_member(text: &str, name: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0usize;
    let want = serde_json::to_string(name).ok()?;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let key = text.get(start..=i.min(bytes.len() - 1))?;
                i += 1;
                if depth == 1 && key == want {
                    // Skip whitespace and the colon; is this a key?
                    let mut j = i;
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if bytes.get(j) == Some(&b':') {
                        let value_start = j + 1;
                        let mut de = serde_json::Deserializer::from_str(text.get(value_start..)?)
                            .into_iter::<serde::de::IgnoredAny>();
                        de.next()?.ok()?;
                        let len = de.byte_offset();
                        return Some(text.get(value_start..value_start + len)?.trim().to_owned());
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}
