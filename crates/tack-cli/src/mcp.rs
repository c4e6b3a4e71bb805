//! `tack mcp …`: MCP servers as tools (list, tools, call, approve, diff) and
//! `tack mcp serve`, which exposes tack's tools, policy included.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::anyhow;
use serde::Serialize;
use tack_mcp::client::{ClientError, McpManager, ServerState, StartOutcome, StartReport};
use tack_mcp::server::{BearerToken, Error as ServerError, HttpAuth, HttpOptions, HttpServer};
use tack_session::sources::Mcp;
use tack_session::{Begin, Headless, Session, SessionOptions};

use crate::cli::{McpArgs, McpCommand, ServeArgs};
use crate::out::outln;
use crate::{Failure, exit};

pub fn mcp_failure(e: ClientError) -> Failure {
    Failure {
        code: e.exit_code(),
        error: anyhow!(e),
    }
}

fn print<T: Serialize>(json: bool, value: &T, text: impl FnOnce(&T)) {
    if json {
        outln!("{}", serde_json::to_string(value).unwrap_or_default());
    } else {
        text(value);
    }
}

pub async fn run(args: McpArgs) -> Result<u8, Failure> {
    if let McpCommand::Serve(serve) = args.command {
        return serve_command(*serve).await;
    }
    let ctx = crate::project(args.cwd.as_deref(), &Default::default())?;
    if let McpCommand::Login { .. } | McpCommand::Logout { .. } = args.command {
        return crate::mcp_login::run(&ctx, args.command, args.json).await;
    }
    let manager = Mcp::manager(&ctx, false)?;
    let result = command(&manager, args.command, args.json).await;
    manager.shutdown().await;
    result
}

async fn command(manager: &McpManager, command: McpCommand, json: bool) -> Result<u8, Failure> {
    match command {
        McpCommand::List => {
            let reports = manager.start().await;
            let listing = Listing::new(manager.list(), &reports);
            // `--json` prints the servers (an array, as before); the entries
            // that could not be read go to stderr in both forms.
            print(json, &listing.servers, |servers| {
                if servers.is_empty() && listing.invalid.is_empty() {
                    eprintln!("no MCP servers configured (.mcp.json or mcpServers in settings)");
                }
                for s in servers {
                    let state = serde_json::to_value(s.state).unwrap_or_default();
                    outln!(
                        "{:<20} {:<14} {:>3} tools  ~{:>6} tokens  {} ({})",
                        s.name,
                        state.as_str().unwrap_or(""),
                        s.tools,
                        s.definition_tokens,
                        s.transport,
                        s.source.as_str(),
                    );
                    if s.skills + s.withheld_skills > 0 {
                        let withheld = if s.withheld_skills > 0 {
                            format!(
                                ", {} withheld (changed since approved: tack mcp diff {})",
                                s.withheld_skills, s.name
                            )
                        } else {
                            String::new()
                        };
                        outln!("    skills: {}{withheld}", s.skills);
                    }
                    if let Some(error) = &s.error {
                        outln!("    error: {error}");
                    }
                }
            });
            for error in &listing.invalid {
                eprintln!("tack: {error}");
            }
            Ok(listing.exit_code())
        }
        McpCommand::Tools { server } => {
            let tools = manager.server_tools(&server).await.map_err(mcp_failure)?;
            print(json, &tools, |tools| {
                for t in tools {
                    let flags = [
                        (t.read_only, "read-only"),
                        (t.destructive, "destructive"),
                        (
                            t.withheld,
                            "WITHHELD: definition changed, see tack mcp diff",
                        ),
                    ]
                    .iter()
                    .filter(|(on, _)| *on)
                    .map(|(_, f)| *f)
                    .collect::<Vec<_>>()
                    .join(", ");
                    outln!("{}  [{flags}]", t.name);
                    outln!("    {}", t.description.lines().next().unwrap_or(""));
                }
            });
            Ok(exit::OK)
        }
        McpCommand::Call {
            server,
            tool,
            arguments,
        } => {
            let arguments: serde_json::Value = serde_json::from_str(&arguments)
                .map_err(|e| Failure::usage(anyhow!("the arguments are not valid JSON: {e}")))?;
            let outcome = manager
                .call(&server, &tool, arguments)
                .await
                .map_err(mcp_failure)?;
            print(json, &outcome, |o| outln!("{}", o.text));
            Ok(exit::OK)
        }
        McpCommand::Approve { server, changes } => {
            if changes {
                let approved = manager
                    .approve_changes(&server)
                    .await
                    .map_err(mcp_failure)?;
                let skills = manager
                    .approve_skill_changes(&server)
                    .await
                    .map_err(mcp_failure)?;
                // `--json`: one array, the tools' changes (`tool`) then the
                // skills' (`skill`).
                let all = Changes {
                    tools: &approved,
                    skills: &skills,
                };
                print(json, &all, |all| {
                    outln!(
                        "approved {} changed tool definition(s) and {} changed skill(s) of {server}",
                        all.tools.len(),
                        all.skills.len()
                    )
                });
            } else {
                let pending = manager
                    .pending_approval()
                    .into_iter()
                    .find(|p| p.name == server);
                manager.approve_server(&server).map_err(mcp_failure)?;
                if !json {
                    outln!("approved MCP server {server}");
                    // What was approved, so a person who approved blind sees it.
                    for line in pending.iter().flat_map(|p| p.describe()) {
                        outln!("  {line}");
                    }
                }
            }
            Ok(exit::OK)
        }
        McpCommand::Diff { server } => {
            let changes = manager.diff(&server).await.map_err(mcp_failure)?;
            let skills = manager.skill_changes(&server).await.map_err(mcp_failure)?;
            let all = Changes {
                tools: &changes,
                skills: &skills,
            };
            print(json, &all, |all| {
                if all.tools.is_empty() && all.skills.is_empty() {
                    outln!("no tool or skill of {server} changed since it was approved");
                }
                for c in all.tools {
                    let v = serde_json::to_value(c).unwrap_or_default();
                    outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
                }
                for c in all.skills {
                    outln!("skill {}: {}", c.skill, c.summary());
                    let v = serde_json::to_value(c).unwrap_or_default();
                    outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
                }
            });
            Ok(exit::OK)
        }
        McpCommand::Serve(_) | McpCommand::Login { .. } | McpCommand::Logout { .. } => {
            Err(Failure::internal(anyhow!("unreachable")))
        }
    }
}

/// A server's changed tool definitions and skill manifests: one JSON array,
/// the tools' (each with `tool`) then the skills' (each with `skill`).
struct Changes<'a> {
    tools: &'a [tack_mcp::client::ToolChange],
    skills: &'a [tack_mcp::client::SkillChange],
}

impl Serialize for Changes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let mut seq = serializer.serialize_seq(Some(self.tools.len() + self.skills.len()))?;
        for change in self.tools {
            seq.serialize_element(change)?;
        }
        for change in self.skills {
            seq.serialize_element(change)?;
        }
        seq.end()
    }
}

/// What `tack mcp list` shows: every configured server, and the config
/// errors (an entry that could not be read, named with its file and line; a
/// variable of a listed server that is not set).
struct Listing {
    servers: Vec<tack_mcp::client::ServerListing>,
    invalid: Vec<ClientError>,
}

impl Listing {
    fn new(servers: Vec<tack_mcp::client::ServerListing>, reports: &[StartReport]) -> Self {
        let invalid = reports
            .iter()
            .filter_map(|r| match &r.outcome {
                StartOutcome::Failed { error } if matches!(error, ClientError::Config { .. }) => {
                    Some(error.clone())
                }
                _ => None,
            })
            .collect();
        Self { servers, invalid }
    }

    /// 0 when every server is fine; `USAGE` (2) when an entry could not be
    /// read; `SERVER_FAILED` (8) when a server failed to start. Servers
    /// waiting for approval or not started yet are not failures.
    fn exit_code(&self) -> u8 {
        if !self.invalid.is_empty() {
            exit::USAGE
        } else if self
            .servers
            .iter()
            .any(|s| matches!(s.state, ServerState::Failed))
        {
            exit::SERVER_FAILED
        } else {
            exit::OK
        }
    }
}

/// `tack mcp serve`: tack's tools through the same pipeline as `tack run`
/// (rules, hooks, budget, audit). No terminal: when a rule asks, the person
/// at the client is asked through MCP elicitation if the client declared it
/// (tack-mcp's server `ask` module); else the ask is a deny that names the
/// rule or flag that would allow the call (`Headless`). The session's skills
/// are offered too: with the skills extension and as prompts.
async fn serve_command(args: ServeArgs) -> Result<u8, Failure> {
    // The HTTP flags are checked before anything starts.
    let http = args
        .http
        .as_deref()
        .map(|addr| HttpConfig::build(addr, &args, &|k| std::env::var(k).ok()))
        .transpose()?;
    let mut info = tack_mcp::server::ServerInfo::new("tack", env!("CARGO_PKG_VERSION"));
    let mut served: Option<Arc<Session>> = None;
    let host: Arc<dyn tack_tool::ToolHost> = if args.conformance_fixtures {
        Arc::new(tack_mcp::server::conformance_fixture_host())
    } else {
        let ctx = crate::project(args.cwd.as_deref(), &args.session.permissions)?;
        let session_id = format!("mcp-{}", SessionOptions::new_id());
        let writer =
            tack_agent::transcript::TranscriptWriter::open(&ctx.sessions_dir(), &session_id)
                .map_err(Failure::internal)?;
        let events = tack_agent::EventBus::new().with(Arc::new(writer));
        let sources = args.session.sources(tack_session::skills::SkillOptions {
            dedupe: false,
            ..Default::default()
        });
        let session = Session::assemble(
            &ctx,
            SessionOptions::new(session_id.clone())
                .sources(sources.list.clone())
                .only_tools(args.tools.clone())
                .interaction(Arc::new(Headless))
                .events(events)
                // A client is offered every tool and searches on its own
                // side; --tool-search on gives it tack's ToolSearch too.
                .code_mode(args.session.code_mode)
                .tool_search(Some(args.session.tool_search.map_or(
                    tack_session::tool_search::ToolSearchMode::Off,
                    crate::cli::ToolSearchArg::mode,
                ))),
        )
        .await?;
        if let Some(set) = sources.skills.set() {
            info = info.with_skills(served_skills(&sources.skills, set, &session_id));
        }
        let _ = session
            .begin(Begin {
                provider: "mcp-client".into(),
                model: String::new(),
                resumed: false,
            })
            .await;
        let session = Arc::new(session);
        served = Some(Arc::clone(&session));
        Arc::new(session.pipeline().clone())
    };
    let result = match http {
        Some(http) => match bind_http(host, served.as_ref(), info, &http).await {
            Ok(server) => {
                http.announce(&server);
                server.run().await
            }
            Err(e) => Err(e),
        },
        None => tack_mcp::server::serve_stdio(host, info).await,
    };
    if let Some(session) = served {
        session.end("other").await;
    }
    result.map_err(|e| match e {
        ServerError::InvalidOption(_) => Failure::usage(anyhow!("MCP server: {e}")),
        e => Failure::internal(anyhow!("MCP server: {e}")),
    })?;
    Ok(exit::OK)
}

/// The session's skills as `tack mcp serve` offers them: with the skills
/// extension (their files as resources) and as prompts, which the Skill
/// tool renders (a fresh instance: trust of project skills, `$ARGUMENTS`,
/// the skill's folder and files, as for the model).
fn served_skills(
    skills: &tack_session::skills::Skills,
    set: Arc<tack_skills::SkillSet>,
    session_id: &str,
) -> tack_mcp::server::ServedSkills {
    use tack_session::sources::ToolSource as _;
    let tool = skills
        .conversation_tools()
        .into_iter()
        .find(|t| t.name() == tack_skills::tool::NAME);
    // Without the session's trust (never loaded), no project skill is
    // served; without its policy, no file is.
    let trust = skills.trust().unwrap_or_else(|| Arc::new(TrustNone));
    let read_check = skills.read_check().unwrap_or_else(|| {
        Arc::new(|_: &std::path::Path| Err("the session has no rules loaded".into()))
    });
    tack_mcp::server::ServedSkills::new(set, tool, trust, session_id).with_read_check(read_check)
}

/// Trusts no project skill.
struct TrustNone;

#[async_trait::async_trait]
impl tack_skills::Trust for TrustNone {
    async fn check(&self, skill: &tack_skills::Skill, _digest: &str) -> Result<(), String> {
        Err(format!("the project skill {} is not trusted", skill.name))
    }
}

/// The HTTP server: over a tack session, each MCP session gets a pipeline of
/// its own (`Session::client_pipeline`: its own shell, jobs and artifacts;
/// the session's rules, hooks, audit and MCP servers); stateless requests,
/// and everything without a tack session, use `host`.
async fn bind_http(
    host: Arc<dyn tack_tool::ToolHost>,
    session: Option<&Arc<Session>>,
    info: tack_mcp::server::ServerInfo,
    http: &HttpConfig,
) -> tack_mcp::server::Result<HttpServer> {
    let options = http.options.clone();
    match session {
        Some(session) => {
            // The factory holds the session weakly: the session ends (and its
            // sources shut down) when serving stops, not when the last
            // client's session closes.
            let weak = Arc::downgrade(session);
            let shared = Arc::clone(&host);
            let hosts: tack_mcp::server::HostFactory = Arc::new(move || match weak.upgrade() {
                Some(session) => Arc::new(session.client_pipeline()),
                None => Arc::clone(&shared),
            });
            HttpServer::bind_per_session(host, hosts, info, http.addr, options).await
        }
        None => HttpServer::bind(host, info, http.addr, options).await,
    }
}

/// Where the bearer token of `--http` came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TokenSource {
    Generated,
    File(PathBuf),
    Env,
    NoAuth,
}

/// `tack mcp serve --http`, built from the flags and the environment.
#[derive(Debug)]
struct HttpConfig {
    addr: SocketAddr,
    options: HttpOptions,
    source: TokenSource,
}

/// Where `TACK_MCP_TOKEN` is read from.
const TOKEN_ENV: &str = "TACK_MCP_TOKEN";

impl HttpConfig {
    fn build(
        addr: &str,
        args: &ServeArgs,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, Failure> {
        let addr: SocketAddr = addr
            .parse()
            .map_err(|e| Failure::usage(anyhow!("--http {addr}: not an address: {e}")))?;
        if !addr.ip().is_loopback() && !args.allow_remote {
            return Err(Failure::usage(anyhow!(
                "refusing to listen on {addr}: it is not a loopback address, so any machine that can reach it could run tack's tools (Bash included) as you. Listen on 127.0.0.1:{port}, or add --allow-remote to accept other machines (each client then needs the bearer token)",
                port = addr.port()
            )));
        }
        // Other machines may try tokens as fast as the network carries
        // them: a short token or one others can read protects nothing.
        let remote = args.allow_remote && !addr.ip().is_loopback();
        let token =
            |text: String| BearerToken::new(text).map_err(|e| Failure::usage(anyhow!("{e}")));
        let (auth, source) = if args.no_auth {
            (HttpAuth::None, TokenSource::NoAuth)
        } else if let Some(path) = &args.token_file {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Failure::usage(anyhow!("cannot read --token-file {}: {e}", path.display()))
            })?;
            let first = text.lines().next().unwrap_or_default().to_owned();
            if let Some(mode) = readable_by_others(path) {
                if remote {
                    return Err(Failure::usage(anyhow!(
                        "--token-file {} can be read by other users (mode {mode:o}), and --allow-remote lets other machines in with it: `chmod 600` it",
                        path.display()
                    )));
                }
                eprintln!(
                    "tack: --token-file {} can be read by other users (mode {mode:o}); `chmod 600` it",
                    path.display()
                );
            }
            (
                HttpAuth::Token(token(first)?),
                TokenSource::File(path.clone()),
            )
        } else if let Some(text) = env(TOKEN_ENV).filter(|t| !t.trim().is_empty()) {
            (HttpAuth::Token(token(text)?), TokenSource::Env)
        } else {
            (HttpAuth::Generate, TokenSource::Generated)
        };
        if let HttpAuth::Token(t) = &auth
            && t.as_str().len() < MIN_TOKEN
        {
            if remote {
                return Err(Failure::usage(anyhow!(
                    "the bearer token is only {} characters long, and --allow-remote lets other machines try tokens: use one of {MIN_TOKEN} characters or more (e.g. `openssl rand -hex 32`), or leave {TOKEN_ENV} and --token-file out to have one generated",
                    t.as_str().len()
                )));
            }
            eprintln!(
                "tack: the bearer token is only {} characters long; a guessable token protects nothing (e.g. `openssl rand -hex 32` makes a good one)",
                t.as_str().len()
            );
        }
        let options = HttpOptions {
            allowed_hosts: args.allowed_hosts.clone(),
            auth,
            allow_remote: args.allow_remote,
            max_sessions: args.max_sessions,
            ..HttpOptions::default()
        };
        Ok(Self {
            addr,
            options,
            source,
        })
    }

    /// Says on stderr where the server is, how to authenticate, and (once)
    /// a generated token.
    fn announce(&self, server: &HttpServer) {
        let url = format!("http://{}{}", server.local_addr(), self.options.path);
        eprintln!("tack: MCP server listening on {url}");
        match (&self.source, server.token()) {
            (TokenSource::NoAuth, _) | (_, None) => eprintln!(
                "tack: WARNING: --no-auth: no authentication; any process on this machine can call these tools (Bash included) as you"
            ),
            (TokenSource::Generated, Some(token)) => eprintln!(
                "tack: every request needs this header (a token generated for this run, not shown again):\n  \
                 Authorization: Bearer {token}\n\
                 tack: e.g. claude mcp add --transport http tack {url} --header \"Authorization: Bearer {token}\"\n\
                 tack: to choose the token yourself, set {TOKEN_ENV} or pass --token-file FILE",
                token = token.as_str()
            ),
            (TokenSource::File(path), Some(_)) => eprintln!(
                "tack: every request needs `Authorization: Bearer <token>`, with the token in {}",
                path.display()
            ),
            (TokenSource::Env, Some(_)) => eprintln!(
                "tack: every request needs `Authorization: Bearer <token>`, with the token in {TOKEN_ENV}"
            ),
        }
        if self.options.allow_remote && !self.addr.ip().is_loopback() {
            eprintln!(
                "tack: --allow-remote: other machines can reach {addr}; a bearer token is mandatory and every request must carry it. Plain HTTP sends it in clear text: use a network you trust, or put a TLS proxy in front. Clients must use a Host listed with --allowed-hosts (the name or address they connect to)",
                addr = server.local_addr()
            );
        }
    }
}

/// The shortest bearer token `--http` takes without a warning, and at all
/// with `--allow-remote`.
const MIN_TOKEN: usize = 16;

/// A token file others can read is a token others have: its mode, if so.
fn readable_by_others(path: &std::path::Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(path).ok()?.permissions().mode();
        (mode & 0o077 != 0).then_some(mode & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
