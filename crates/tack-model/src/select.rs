//! Which provider to talk to, decided from flags and the environment.
//!
//! In order:
//! 1. `--provider` wins.
//! 2. The model name: `claude*` with an Anthropic key → Anthropic;
//!    `gpt-*`, `o1*`, `o3*`, `o4*` with OpenAI settings → OpenAI.
//! 3. `ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN` → Anthropic.
//! 4. `OPENAI_API_KEY` or `OPENAI_BASE_URL` → OpenAI-compatible.
//! 5. `--base-url` alone → OpenAI-compatible at that address (llama.cpp,
//!    vLLM, LM Studio and Ollama all speak Chat Completions).
//! 6. An Ollama answering at `OLLAMA_HOST` (default `127.0.0.1:11434`) within
//!    300 ms → Ollama through its OpenAI-compatible endpoint; without
//!    `--model` the first pulled model (`GET /api/tags`) is used.
//! 7. Otherwise a [`ModelError::Config`] that says how to configure one.
//!
//! The environment is read through an injected lookup, so tests never touch
//! the process environment.

use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use serde_json::Value;

use crate::anthropic::{self, AnthropicClient, AnthropicConfig};
use crate::openai::{self, OpenAiClient, OpenAiConfig};
use crate::retry::RetryPolicy;
use crate::{ModelClient, ModelError};

/// Where Ollama listens unless `OLLAMA_HOST` says otherwise.
pub const DEFAULT_OLLAMA_HOST: &str = "http://127.0.0.1:11434";
/// How long the Ollama probe waits.
pub const OLLAMA_PROBE_TIMEOUT: Duration = Duration::from_millis(300);

/// A provider family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
    Ollama,
}

impl FromStr for ProviderKind {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(Self::Anthropic),
            "openai" => Ok(Self::OpenAi),
            "ollama" => Ok(Self::Ollama),
            other => Err(ModelError::Config(format!(
                "unknown provider \"{other}\": use anthropic, openai or ollama"
            ))),
        }
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::Ollama => "ollama",
        })
    }
}

/// What the user asked for on the command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderOptions {
    pub provider: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub stream: bool,
    /// Left at `RetryPolicy::default()`, `TACK_MAX_RETRIES` from the env
    /// lookup adjusts it; any other value is used as given.
    pub retry: RetryPolicy,
    /// Send no prompt-cache breakpoints (Anthropic) and no `prompt_cache_key`
    /// (OpenAI). Off by default: caching is on.
    pub no_prompt_cache: bool,
    /// The OpenAI `prompt_cache_key` (tack passes the session id): sent to
    /// api.openai.com, or to any server when `TACK_PROMPT_CACHE_KEY=1`.
    pub prompt_cache_key: Option<String>,
}

/// The environment variables selection reads, taken once.
#[derive(Debug, Clone, Default)]
struct Env {
    anthropic_api_key: Option<String>,
    anthropic_auth_token: Option<String>,
    anthropic_base_url: Option<String>,
    openai_api_key: Option<String>,
    openai_base_url: Option<String>,
    ollama_host: Option<String>,
    tack_model: Option<String>,
    /// `TACK_PROMPT_CACHE_KEY=1`: send `prompt_cache_key` to any OpenAI-compatible server.
    prompt_cache_key: bool,
}

impl Env {
    fn read(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let get = |k: &str| env(k).filter(|v| !v.trim().is_empty());
        Self {
            anthropic_api_key: get("ANTHROPIC_API_KEY"),
            anthropic_auth_token: get("ANTHROPIC_AUTH_TOKEN"),
            anthropic_base_url: get("ANTHROPIC_BASE_URL"),
            openai_api_key: get("OPENAI_API_KEY"),
            openai_base_url: get("OPENAI_BASE_URL"),
            ollama_host: get("OLLAMA_HOST"),
            tack_model: get("TACK_MODEL"),
            prompt_cache_key: get("TACK_PROMPT_CACHE_KEY")
                .is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes")),
        }
    }

    fn has_anthropic(&self) -> bool {
        self.anthropic_api_key.is_some() || self.anthropic_auth_token.is_some()
    }

    fn has_openai(&self) -> bool {
        self.openai_api_key.is_some() || self.openai_base_url.is_some()
    }
}

/// The message when nothing is configured.
pub const NO_PROVIDER_HELP: &str = "no model provider is configured. Do one of:\n  \
    - export ANTHROPIC_API_KEY=... (Anthropic; ANTHROPIC_AUTH_TOKEN for a bearer token)\n  \
    - export OPENAI_API_KEY=... (OpenAI), or OPENAI_BASE_URL=http://host:port/v1 for an OpenAI-compatible server\n  \
    - pass --provider anthropic|openai|ollama and --base-url URL (e.g. --base-url http://127.0.0.1:8080 for llama.cpp)\n  \
    - start Ollama with `ollama serve` (and `ollama pull <model>`); it is found on 127.0.0.1:11434 or OLLAMA_HOST\n  \
    - try tack without a key: run `tack mock-server` and pass the --base-url it prints";

/// Picks and builds the client. `env` is the environment lookup (the process
/// environment in the CLI, a map in tests); it is read before the returned
/// future first awaits, so the future is `Send` and does not borrow `env`.
pub fn select_provider<'a>(
    opts: &'a ProviderOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> impl Future<Output = Result<Box<dyn ModelClient>, ModelError>> + Send + use<'a> {
    let vars = Env::read(env);
    let retry = if opts.retry == RetryPolicy::default() {
        // Options carry the default: let TACK_MAX_RETRIES adjust it.
        RetryPolicy::from_env(env)
    } else {
        opts.retry.clone()
    };
    async move { select(opts, vars, retry).await }
}

async fn select(
    opts: &ProviderOptions,
    env: Env,
    retry: RetryPolicy,
) -> Result<Box<dyn ModelClient>, ModelError> {
    let model = opts.model.clone().or_else(|| env.tack_model.clone());
    let kind = match opts.provider {
        Some(kind) => kind,
        None => match infer(model.as_deref(), opts.base_url.is_some(), &env) {
            Some(kind) => kind,
            None => {
                let host = ollama_host(env.ollama_host.as_deref());
                if probe_ollama(&host).await {
                    ProviderKind::Ollama
                } else {
                    return Err(ModelError::Config(NO_PROVIDER_HELP.to_owned()));
                }
            }
        },
    };
    tracing::debug!(provider = %kind, "selected model provider");
    match kind {
        ProviderKind::Anthropic => {
            let base_url = base_url(opts, &env.anthropic_base_url, "ANTHROPIC_BASE_URL")?
                .unwrap_or_else(|| anthropic::DEFAULT_BASE_URL.to_owned());
            if !env.has_anthropic() && is_official(&base_url, "api.anthropic.com") {
                return Err(ModelError::Config(
                    "the Anthropic provider needs a key: export ANTHROPIC_API_KEY=... \
                     (or ANTHROPIC_AUTH_TOKEN), or pass --base-url for a server that needs none"
                        .to_owned(),
                ));
            }
            let config = AnthropicConfig {
                base_url,
                api_key: env.anthropic_api_key,
                auth_token: env.anthropic_auth_token,
                model: model.unwrap_or_else(|| anthropic::DEFAULT_MODEL.to_owned()),
                retry,
                stream: opts.stream,
                timeout: anthropic::DEFAULT_TIMEOUT,
                prompt_cache: !opts.no_prompt_cache,
            };
            Ok(Box::new(AnthropicClient::new(config)?))
        }
        ProviderKind::OpenAi => {
            let base_url = base_url(opts, &env.openai_base_url, "OPENAI_BASE_URL")?
                .unwrap_or_else(|| openai::DEFAULT_BASE_URL.to_owned());
            if env.openai_api_key.is_none() && is_official(&base_url, "api.openai.com") {
                return Err(ModelError::Config(
                    "the OpenAI provider needs a key: export OPENAI_API_KEY=..., \
                     or pass --base-url (or set OPENAI_BASE_URL) for a local server that needs none"
                        .to_owned(),
                ));
            }
            // Unknown fields can be refused by other servers: only where it is known.
            let prompt_cache_key = opts
                .prompt_cache_key
                .clone()
                .filter(|_| !opts.no_prompt_cache)
                .filter(|_| is_official(&base_url, "api.openai.com") || env.prompt_cache_key);
            let config = OpenAiConfig {
                prompt_cache_key,
                base_url,
                api_key: env.openai_api_key,
                model: model.unwrap_or_else(|| openai::DEFAULT_MODEL.to_owned()),
                retry,
                stream: opts.stream,
                timeout: anthropic::DEFAULT_TIMEOUT,
                provider_name: "openai".to_owned(),
            };
            Ok(Box::new(OpenAiClient::new(config)?))
        }
        ProviderKind::Ollama => {
            let host = match base_url(opts, &None, "")? {
                Some(base) => base
                    .trim_end_matches('/')
                    .trim_end_matches("/v1")
                    .to_owned(),
                None => ollama_host(env.ollama_host.as_deref()),
            };
            let model = match model {
                Some(m) => m,
                None => first_ollama_model(&host).await?,
            };
            let config = OpenAiConfig {
                base_url: format!("{host}/v1"),
                api_key: None,
                model,
                retry,
                stream: opts.stream,
                timeout: anthropic::DEFAULT_TIMEOUT,
                provider_name: "ollama".to_owned(),
                prompt_cache_key: None,
            };
            Ok(Box::new(OpenAiClient::new(config)?))
        }
    }
}

/// The base URL from `--base-url`, else from the variable `var`, checked:
/// a URL that is not http(s) with a host is a configuration error naming
/// where it came from, found before any request (not a connection failure
/// retried until the retries run out).
fn base_url(
    opts: &ProviderOptions,
    from_env: &Option<String>,
    var: &str,
) -> Result<Option<String>, ModelError> {
    let (url, source) = match (&opts.base_url, from_env) {
        (Some(url), _) => (url, "--base-url"),
        (None, Some(url)) => (url, var),
        (None, None) => return Ok(None),
    };
    let bad = |why: String| {
        ModelError::Config(format!(
            "the base URL {url:?} (from {source}) {why}; write it as e.g. http://127.0.0.1:8080 or https://api.example.com/v1"
        ))
    };
    if !url.contains("://") {
        return Err(bad("has no scheme (http:// or https://)".into()));
    }
    match url::Url::parse(url) {
        Ok(u) if !matches!(u.scheme(), "http" | "https") => Err(bad(format!(
            "has the scheme `{}://` where http:// or https:// is needed",
            u.scheme()
        ))),
        Ok(u) if u.host_str().is_none_or(str::is_empty) => Err(bad("names no host".into())),
        Ok(_) => Ok(Some(url.clone())),
        Err(e) => Err(bad(format!("is not a URL ({e})"))),
    }
}

/// Rules 2–5; `None` means "probe for Ollama".
fn infer(model: Option<&str>, has_base_url: bool, env: &Env) -> Option<ProviderKind> {
    if let Some(model) = model {
        let m = model.to_ascii_lowercase();
        if m.starts_with("claude") && env.has_anthropic() {
            return Some(ProviderKind::Anthropic);
        }
        let openai_name = ["gpt-", "o1", "o3", "o4"].iter().any(|p| m.starts_with(p));
        if openai_name && env.has_openai() {
            return Some(ProviderKind::OpenAi);
        }
    }
    if env.has_anthropic() {
        return Some(ProviderKind::Anthropic);
    }
    if env.has_openai() || has_base_url {
        return Some(ProviderKind::OpenAi);
    }
    None
}

fn is_official(base_url: &str, host: &str) -> bool {
    let rest = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    rest.split(['/', ':'])
        .next()
        .is_some_and(|h| h.eq_ignore_ascii_case(host))
}

/// `OLLAMA_HOST` as Ollama reads it: `host`, `host:port` or a URL; the scheme
/// defaults to http, the port to 11434, and a listen-anywhere address
/// (`0.0.0.0`, `::`) means this machine.
pub fn ollama_host(value: Option<&str>) -> String {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return DEFAULT_OLLAMA_HOST.to_owned();
    };
    let (scheme, rest) = match value.split_once("://") {
        Some((s, r)) => (s, r),
        None => ("http", value),
    };
    let rest = rest.trim_end_matches('/');
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let (host, port) = if let Some(stripped) = authority.strip_prefix('[') {
        // [v6]:port
        match stripped.split_once(']') {
            Some((h, p)) => (format!("[{h}]"), p.strip_prefix(':').map(str::to_owned)),
            None => (authority.to_owned(), None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h.to_owned(), Some(p.to_owned())),
            _ => (authority.to_owned(), None),
        }
    };
    let host = match host.as_str() {
        "" | "0.0.0.0" => "127.0.0.1".to_owned(),
        "[::]" => "[::1]".to_owned(),
        _ => host,
    };
    let port = port
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| match scheme {
            "https" => "443".to_owned(),
            _ => "11434".to_owned(),
        });
    format!("{scheme}://{host}:{port}{path}")
}

fn probe_client(host: &str) -> Option<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .timeout(OLLAMA_PROBE_TIMEOUT)
        .no_proxy();
    crate::http::plain_http_if(host, builder).build().ok()
}

/// Whether an Ollama answers `GET {host}/api/version` in time.
async fn probe_ollama(host: &str) -> bool {
    let Some(client) = probe_client(host) else {
        return false;
    };
    let url = format!("{host}/api/version");
    match client.get(&url).send().await {
        Ok(resp) if resp.status().is_success() => {
            tracing::debug!(%url, "found Ollama");
            true
        }
        Ok(resp) => {
            tracing::debug!(%url, status = resp.status().as_u16(), "no Ollama");
            false
        }
        Err(e) => {
            tracing::debug!(%url, "no Ollama: {e}");
            false
        }
    }
}

/// The first model Ollama lists (`GET /api/tags`).
async fn first_ollama_model(host: &str) -> Result<String, ModelError> {
    let url = format!("{host}/api/tags");
    let builder = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .no_proxy();
    let client = crate::http::plain_http_if(host, builder)
        .build()
        .map_err(|e| ModelError::Config(format!("cannot set up the HTTP client: {e}")))?;
    let resp = client
        .get(&url)
        .send()
        .await
        .map_err(|e| crate::http::connection_error(&url, &e))?;
    if !resp.status().is_success() {
        return Err(ModelError::Config(format!(
            "Ollama at {host} answered {} to GET /api/tags; pass --model NAME",
            resp.status()
        )));
    }
    let tags: Value = resp
        .json()
        .await
        .map_err(|e| ModelError::Decode(format!("Ollama's model list: {e}")))?;
    tags.get("models")
        .and_then(Value::as_array)
        .and_then(|models| {
            models.iter().find_map(|m| {
                m.get("name")
                    .or_else(|| m.get("model"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
        })
        .ok_or_else(|| {
            ModelError::Config(format!(
                "Ollama is running at {host} but has no models: pull one with \
                 `ollama pull qwen3` (any model with tool support), or pass --model NAME"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn infer_with(model: Option<&str>, base: bool, pairs: &[(&str, &str)]) -> Option<ProviderKind> {
        infer(model, base, &Env::read(&env_of(pairs)))
    }

    #[test]
    fn provider_kind_parses() {
        assert_eq!(
            "anthropic".parse::<ProviderKind>().unwrap(),
            ProviderKind::Anthropic
        );
        assert_eq!(
            "OpenAI".parse::<ProviderKind>().unwrap(),
            ProviderKind::OpenAi
        );
        assert_eq!(
            "ollama".parse::<ProviderKind>().unwrap(),
            ProviderKind::Ollama
        );
        let err = "gemini".parse::<ProviderKind>().unwrap_err().to_string();
        assert!(err.contains("gemini") && err.contains("anthropic, openai or ollama"));
    }

    #[test]
    fn inference_rules() {
        use ProviderKind::*;
        let both = [("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")];
        assert_eq!(
            infer_with(Some("claude-opus-4"), false, &both),
            Some(Anthropic)
        );
        assert_eq!(infer_with(Some("gpt-4.1"), false, &both), Some(OpenAi));
        assert_eq!(infer_with(Some("o3-mini"), false, &both), Some(OpenAi));
        assert_eq!(infer_with(Some("o4-mini"), false, &both), Some(OpenAi));
        // No OpenAI settings: the name alone does not pick OpenAI.
        assert_eq!(
            infer_with(Some("gpt-4.1"), false, &[("ANTHROPIC_API_KEY", "a")]),
            Some(Anthropic)
        );
        assert_eq!(infer_with(Some("qwen3"), false, &both), Some(Anthropic));
        assert_eq!(
            infer_with(None, false, &[("ANTHROPIC_AUTH_TOKEN", "t")]),
            Some(Anthropic)
        );
        assert_eq!(
            infer_with(None, false, &[("OPENAI_API_KEY", "o")]),
            Some(OpenAi)
        );
        assert_eq!(
            infer_with(Some("claude-x"), false, &[("OPENAI_BASE_URL", "http://x")]),
            Some(OpenAi)
        );
        assert_eq!(infer_with(None, true, &[]), Some(OpenAi));
        assert_eq!(infer_with(None, false, &[("ANTHROPIC_API_KEY", "")]), None);
        assert_eq!(infer_with(None, false, &[]), None);
    }

    #[test]
    fn ollama_host_forms() {
        assert_eq!(ollama_host(None), "http://127.0.0.1:11434");
        assert_eq!(ollama_host(Some("0.0.0.0")), "http://127.0.0.1:11434");
        assert_eq!(ollama_host(Some("127.0.0.1:5000")), "http://127.0.0.1:5000");
        assert_eq!(
            ollama_host(Some("http://localhost:5000/")),
            "http://localhost:5000"
        );
        assert_eq!(
            ollama_host(Some("https://ollama.example")),
            "https://ollama.example:443"
        );
        assert_eq!(ollama_host(Some("[::1]:7")), "http://[::1]:7");
        assert_eq!(ollama_host(Some("0.0.0.0:8")), "http://127.0.0.1:8");
    }

    #[tokio::test]
    async fn a_bad_base_url_is_a_configuration_error_naming_its_source() {
        for (url, why) in [
            ("localhost:8080", "has no scheme"),
            ("htp://127.0.0.1:8080", "has the scheme `htp://`"),
            ("http://", "is not a URL"),
            ("http://exa mple.com", "is not a URL"),
        ] {
            let opts = ProviderOptions {
                provider: Some(ProviderKind::OpenAi),
                base_url: Some(url.into()),
                ..Default::default()
            };
            let err = select_provider(&opts, &env_of(&[])).await.err().unwrap();
            let text = err.to_string();
            assert!(matches!(err, ModelError::Config(_)), "{url}: {err:?}");
            assert!(
                text.contains(why) && text.contains("--base-url"),
                "{url}: {text}"
            );
        }
        let err = select_provider(
            &ProviderOptions::default(),
            &env_of(&[
                ("ANTHROPIC_API_KEY", "k"),
                ("ANTHROPIC_BASE_URL", "ftp://x"),
            ]),
        )
        .await
        .err()
        .unwrap();
        assert!(
            err.to_string().contains("(from ANTHROPIC_BASE_URL)"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn explicit_provider_and_env_build_the_right_client() {
        let opts = ProviderOptions {
            provider: Some(ProviderKind::OpenAi),
            base_url: Some("http://127.0.0.1:1".into()),
            ..Default::default()
        };
        let client = select_provider(&opts, &env_of(&[("ANTHROPIC_API_KEY", "a")]))
            .await
            .unwrap();
        assert_eq!(client.provider(), "openai");
        assert_eq!(client.model(), "gpt-4.1");

        let opts = ProviderOptions::default();
        let client = select_provider(&opts, &env_of(&[("ANTHROPIC_API_KEY", "a")]))
            .await
            .unwrap();
        assert_eq!(client.provider(), "anthropic");
        assert_eq!(client.model(), "claude-sonnet-4-5");

        let client = select_provider(
            &opts,
            &env_of(&[
                ("ANTHROPIC_API_KEY", "a"),
                ("TACK_MODEL", "claude-opus-4-1"),
            ]),
        )
        .await
        .unwrap();
        assert_eq!(client.model(), "claude-opus-4-1");
    }

    #[tokio::test]
    async fn missing_keys_for_official_apis_are_config_errors() {
        let opts = ProviderOptions {
            provider: Some(ProviderKind::Anthropic),
            ..Default::default()
        };
        let err = select_provider(&opts, &env_of(&[])).await.err().unwrap();
        assert!(err.to_string().contains("ANTHROPIC_API_KEY"), "{err}");
        let opts = ProviderOptions {
            provider: Some(ProviderKind::OpenAi),
            ..Default::default()
        };
        let err = select_provider(&opts, &env_of(&[])).await.err().unwrap();
        assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
    }

    #[tokio::test]
    async fn nothing_configured_and_no_ollama_explains_every_way() {
        // A port nothing listens on: bind one, then drop it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let host = format!("127.0.0.1:{port}");
        let started = std::time::Instant::now();
        let err = select_provider(
            &ProviderOptions::default(),
            &env_of(&[("OLLAMA_HOST", &host)]),
        )
        .await
        .err()
        .unwrap();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(matches!(err, ModelError::Config(_)));
        let text = err.to_string();
        for needle in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "--provider",
            "--base-url",
            "ollama serve",
            "tack mock-server",
        ] {
            assert!(text.contains(needle), "missing {needle} in: {text}");
        }
    }

    #[test]
    fn select_future_is_send() {
        fn assert_send<T: Send>(_: &T) {}
        let opts = ProviderOptions::default();
        let fut = select_provider(&opts, &|_| None);
        assert_send(&fut);
    }
}
