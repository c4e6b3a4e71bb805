//! `tack tools list|show|call`: the tools of a session assembled as `tack
//! run` assembles it (built-in tools, command tools declared in settings,
//! MCP servers, skills, the Agent tool), without a model.
//!
//! The session's own assembly ([`Session::assemble`]) is the only one, so
//! what is listed is what `tack run` offers. Each tool's source is known by
//! wrapping every source in a [`Recorded`] one that remembers the names of
//! the tools it gave. `tack tools call` runs one call through the session's
//! pipeline — the stages a model's call meets: validation, hooks,
//! permission, timeout, output budget, audit — and exits with the class of
//! its outcome ([`tack_protocol::ToolOutcome::exit_code`]).

use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use anyhow::anyhow;
use async_trait::async_trait;
use serde_json::{Value, json};
use tack_agent::EventBus;
use tack_agent::context::{ContextMeter, group};
use tack_mcp::client::ToolChange;
use tack_model::{EncodedTools, WireFormat};
use tack_protocol::{ContentBlock, ToolDefinition, ToolOutcome, ToolResultContent};
use tack_session::declared::{Declared, declarations};
use tack_session::skills::SkillOptions;
use tack_session::sources::{
    Builtins, Fixtures, Mcp, SourceContext, SourcedTool, ToolSource, ToolUpdates,
};
use tack_session::{
    Begin, Headless, Interaction, ProjectContext, PromptAnswer, PromptRequest, Session,
    SessionOptions, Terminal, UntrustedSettings,
};
use tack_tool::{CallOptions, Exposure, Tool, ToolCall, ToolCallResult, ToolHost as _};
use tack_tools::tool_search::{SearchDoc, ToolIndex, eval};
use tokio_util::sync::CancellationToken;

use crate::cli::{ToolSessionArgs, ToolsArgs, ToolsCommand, WireProvider};
use crate::out::outln;
use crate::{Failure, exit};

pub async fn run(args: ToolsArgs) -> Result<u8, Failure> {
    let ToolsArgs { command, json, cwd } = args;
    let cwd = cwd.as_deref();
    match command {
        ToolsCommand::List { session } => {
            let kept = Arc::new(Kept::default());
            let here = Here::quiet(cwd, &session, &kept).await?;
            let code = list(&here, &kept, json);
            here.shutdown().await;
            Ok(code)
        }
        ToolsCommand::Show {
            name,
            provider,
            session,
        } => {
            let kept = Arc::new(Kept::default());
            let here = Here::quiet(cwd, &session, &kept).await?;
            kept.print_except(&[]);
            let shown = show(&here, &name, provider, json);
            here.shutdown().await;
            shown
        }
        ToolsCommand::Call {
            name,
            input,
            session,
        } => call(cwd, &session, name, &input, json).await,
        ToolsCommand::Search {
            query,
            limit,
            catalog,
            queries,
            session,
        } => {
            let docs = match &catalog {
                Some(file) => eval::read_catalog(file).map_err(Failure::usage)?,
                None => {
                    let kept = Arc::new(Kept::default());
                    let here = Here::quiet(cwd, &session, &kept).await?;
                    kept.print_except(&[]);
                    let docs = search_docs(&here);
                    here.shutdown().await;
                    docs
                }
            };
            let index = ToolIndex::new(docs);
            match (queries, query) {
                (Some(file), _) => evaluate(&index, &file, limit, json),
                (None, Some(query)) => Ok(search(&index, &query, limit, json)),
                (None, None) => Err(Failure::usage(anyhow!(
                    "give a query, or --queries FILE.jsonl with --catalog FILE"
                ))),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The session

/// A session as `tack run` assembles it, and where each of its tools came
/// from.
struct Here {
    ctx: ProjectContext,
    session: Session,
    /// The session's sources, in order, each remembering its tools.
    sources: Vec<Arc<Recorded>>,
    mcp: Arc<Mcp>,
}

impl Here {
    /// Assembles the session: `tack run`'s sources (`crate::sources`) and
    /// its Agent tool, with `interaction` for what needs a person.
    async fn assemble(
        ctx: ProjectContext,
        flags: &ToolSessionArgs,
        interaction: Arc<dyn Interaction>,
        session_id: String,
        events: EventBus,
    ) -> Result<Self, Failure> {
        let found = flags.sources(SkillOptions::default());
        let labels = Labels {
            mcp: found.mcp.name().to_owned(),
            skills: found.skills.name().to_owned(),
        };
        let sources: Vec<Arc<Recorded>> = found
            .list
            .into_iter()
            .map(|inner| {
                Arc::new(Recorded {
                    label: labels.of(inner.as_ref()),
                    inner,
                    gave: Mutex::default(),
                })
            })
            .collect();
        let options = SessionOptions::new(session_id)
            .sources(
                sources
                    .iter()
                    .map(|s| Arc::clone(s) as Arc<dyn ToolSource>)
                    .collect(),
            )
            .interaction(interaction)
            .events(events)
            .subagents(true)
            .tool_search(flags.tool_search.map(crate::cli::ToolSearchArg::mode))
            .code_mode(flags.code_mode);
        let session = Session::assemble(&ctx, options).await?;
        Ok(Self {
            ctx,
            session,
            sources,
            mcp: found.mcp,
        })
    }

    /// For `list` and `show`: nobody is asked anything (no approval is
    /// given), notices are kept in `kept`, no transcript is written.
    async fn quiet(
        cwd: Option<&Path>,
        flags: &ToolSessionArgs,
        kept: &Arc<Kept>,
    ) -> Result<Self, Failure> {
        let ctx = crate::project(cwd, &flags.permissions)?;
        let id = format!("tools-{}", SessionOptions::new_id());
        let interaction = Arc::clone(kept) as Arc<dyn Interaction>;
        // Assembly that fails still says what it noticed on the way.
        Self::assemble(ctx, flags, interaction, id, EventBus::new())
            .await
            .inspect_err(|_| kept.print_except(&[]))
    }

    /// Stops what the sources started (MCP servers), without the
    /// SessionEnd hooks of a session that never began.
    async fn shutdown(&self) {
        for source in &self.sources {
            source.shutdown().await;
        }
    }

    /// The source of each tool, by name: `built-in`, `declared`,
    /// `mcp:SERVER`, `skills`… The first source to give a name is the one
    /// the registry kept.
    fn origins(&self) -> HashMap<String, String> {
        let servers = self.servers();
        let mut origins = HashMap::new();
        for source in &self.sources {
            for name in lock(&source.gave).iter() {
                origins.entry(name.clone()).or_insert_with(|| {
                    if source.label == MCP {
                        mcp_label(name, &servers)
                    } else {
                        source.label.clone()
                    }
                });
            }
        }
        origins
    }

    fn servers(&self) -> Vec<String> {
        self.mcp
            .running()
            .map(|m| m.list().into_iter().map(|s| s.name).collect())
            .unwrap_or_default()
    }

    /// The source of `name`: a tool no source gave is the session's own
    /// (the Agent tool), a built-in; one an MCP server announced later is
    /// that server's.
    fn source_of(&self, origins: &HashMap<String, String>, name: &str) -> String {
        match origins.get(name) {
            Some(label) => label.clone(),
            None if name.starts_with("mcp__") => mcp_label(name, &self.servers()),
            None => BUILT_IN.to_owned(),
        }
    }

    /// Exit 10: no tool `name` in this session; why, when it is a
    /// declaration that was left out, else the closest name.
    fn not_found(&self, name: &str) -> Failure {
        let not_found = |message: String| Failure {
            code: exit::NOT_FOUND,
            error: anyhow!(message),
        };
        if let Some(problem) = declarations(&self.ctx)
            .into_iter()
            .find(|f| f.name == name)
            .and_then(|f| f.result.err())
        {
            return not_found(format!(
                "the tool `{name}` is declared but left out: {problem}"
            ));
        }
        if let Some(file) = waiting(&self.ctx).into_iter().find(|w| w.name == name) {
            return not_found(format!(
                "the tool `{name}` is declared in {}, which is not approved: {APPROVAL}",
                file.at
            ));
        }
        let registry = self.session.pipeline().registry();
        if registry
            .get(name)
            .is_some_and(|t| t.exposure == Exposure::Hidden)
        {
            return not_found(format!(
                "the tool `{name}` is hidden: the model never sees it and only other tools call it"
            ));
        }
        let names: Vec<&str> = registry
            .iter()
            .filter(|t| t.exposure != Exposure::Hidden)
            .map(|t| t.definition.name.as_str())
            .collect();
        let hint = match tack_protocol::suggest::closest(name, &names) {
            Some(close) => format!("did you mean {close}? "),
            None => String::new(),
        };
        not_found(format!(
            "no tool named {name:?} in this session; {hint}`tack tools list` shows the {} tools here",
            names.len()
        ))
    }
}

const BUILT_IN: &str = "built-in";
const MCP: &str = "mcp";
const APPROVAL: &str = "a project file's command tools run only once you approve the file (`tack settings approve`, or --trust-project-settings for one run)";

/// The names `tack tools list` gives the sources.
struct Labels {
    mcp: String,
    skills: String,
}

impl Labels {
    fn of(&self, source: &dyn ToolSource) -> String {
        let name = source.name();
        let label = if name == Builtins.name() {
            BUILT_IN
        } else if name == Declared.name() {
            "declared"
        } else if name == self.mcp {
            MCP
        } else if name == self.skills {
            "skills"
        } else if name == Fixtures.name() {
            "fixtures"
        } else {
            name
        };
        label.to_owned()
    }
}

/// `mcp:SERVER` for an MCP tool's name (`mcp__SERVER__tool`, the server's
/// name as the model API allows it); the longest server prefix wins.
fn mcp_label(name: &str, servers: &[String]) -> String {
    servers
        .iter()
        .map(|s| (s, tack_mcp::client::model_tool_name(s, "")))
        .filter(|(_, prefix)| name.starts_with(prefix.as_str()))
        .max_by_key(|(_, prefix)| prefix.len())
        .map_or_else(|| MCP.to_owned(), |(s, _)| format!("{MCP}:{s}"))
}

/// A tool source that remembers the names of the tools it gave.
struct Recorded {
    inner: Arc<dyn ToolSource>,
    /// What `tack tools list` calls it.
    label: String,
    gave: Mutex<Vec<String>>,
}

#[async_trait]
impl ToolSource for Recorded {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn load(&self, cx: &SourceContext<'_>) -> tack_session::Result<Vec<SourcedTool>> {
        let tools = self.inner.load(cx).await?;
        lock(&self.gave).extend(tools.iter().map(|t| t.tool.name().to_owned()));
        Ok(tools)
    }

    fn strict(&self) -> bool {
        self.inner.strict()
    }

    fn updates(&self) -> Option<ToolUpdates> {
        self.inner.updates()
    }

    async fn shutdown(&self) {
        self.inner.shutdown().await;
    }

    fn conversation_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.inner.conversation_tools()
    }

    fn resumed(&self, messages: &[tack_protocol::Message]) {
        self.inner.resumed(messages);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Nobody to ask (a listing approves nothing): notices are kept, and
/// printed on stderr once the listing has shown what it shows itself.
#[derive(Default)]
struct Kept {
    notices: Mutex<Vec<String>>,
}

impl Kept {
    /// Prints every notice but those in `shown`.
    fn print_except(&self, shown: &[String]) {
        for notice in lock(&self.notices).iter() {
            if !shown.contains(notice) {
                eprintln!("tack: {notice}");
            }
        }
    }

    /// The notice that a tool named `name` could not be registered.
    fn left_out(&self, name: &str) -> Option<String> {
        let quoted = format!("{name:?}");
        lock(&self.notices)
            .iter()
            .find(|n| n.contains("was left out") && n.contains(&quoted))
            .cloned()
    }
}

#[async_trait]
impl Interaction for Kept {
    fn can_ask(&self) -> bool {
        false
    }
    async fn permission(&self, request: &PromptRequest) -> PromptAnswer {
        Headless.permission(request).await
    }
    async fn approve_server(&self, _server: &tack_mcp::client::PendingServer) -> bool {
        false
    }
    async fn approve_changes(&self, _server: &str, _changes: &[ToolChange]) -> bool {
        false
    }
    async fn approve_project_settings(&self, _settings: &UntrustedSettings) -> bool {
        false
    }
    fn notice(&self, text: &str) {
        lock(&self.notices).push(text.to_owned());
    }
}

// ---------------------------------------------------------------------------
// Definitions as sent

/// A definition as `format`'s API receives it: the bytes tack sends for it
/// in a request's tools (the session's encoder, so never a second opinion).
fn wire_bytes(definition: &ToolDefinition, format: WireFormat) -> Vec<u8> {
    let tools = EncodedTools::new(format, vec![definition.clone()]);
    let array = tools.bytes();
    array
        .strip_prefix(b"[")
        .and_then(|b| b.strip_suffix(b"]"))
        .unwrap_or(array)
        .to_vec()
}

/// The tokens of a definition as the Anthropic API receives it, estimated
/// as the session's context accounting estimates a request before any
/// response has calibrated it.
fn definition_tokens(definition: &ToolDefinition) -> u64 {
    let bytes = wire_bytes(definition, WireFormat::Messages).len();
    ContextMeter::new(None, "", "anthropic").estimate(bytes)
}

fn exposure_str(exposure: Exposure) -> &'static str {
    match exposure {
        Exposure::Direct => "direct",
        Exposure::Deferred => "deferred",
        Exposure::Hidden => "hidden",
    }
}

// ---------------------------------------------------------------------------
// tack tools list

/// One tool of the session.
struct Row {
    name: String,
    source: String,
    exposure: Exposure,
    read_only: bool,
    tokens: u64,
}

/// A tool declared in settings that is not in the session.
struct LeftOut {
    name: String,
    /// `file:line` (the key at fault when known).
    at: String,
    why: String,
}

fn rows(here: &Here) -> Vec<Row> {
    let origins = here.origins();
    here.session
        .pipeline()
        .registry()
        .iter()
        .map(|t| Row {
            name: t.definition.name.clone(),
            source: here.source_of(&origins, &t.definition.name),
            exposure: t.exposure,
            read_only: t.tool.annotations().read_only,
            tokens: definition_tokens(&t.definition),
        })
        .collect()
}

/// The declarations of the settings that are not in the session, and the
/// notices that say so (shown here, so not again on stderr): a problem in
/// the declaration, a name the registry refused, or a project file not
/// approved yet.
fn left_out(here: &Here, kept: &Kept) -> (Vec<LeftOut>, Vec<String>) {
    let registry = here.session.pipeline().registry();
    let mut out = Vec::new();
    let mut shown = Vec::new();
    for found in declarations(&here.ctx) {
        if let Some(notice) = found.notice() {
            shown.push(notice);
        }
        match found.result {
            Err(problem) => out.push(LeftOut {
                name: found.name,
                at: problem.at,
                why: problem.message,
            }),
            Ok(_) if !registry.contains(&found.name) => {
                let notice = kept.left_out(&found.name);
                let at = match found.line {
                    Some(line) => format!("{}:{line}", found.file.display()),
                    None => found.file.display().to_string(),
                };
                out.push(LeftOut {
                    why: notice.clone().unwrap_or_else(|| {
                        "it is valid but was not registered; a notice on stderr says why".to_owned()
                    }),
                    name: found.name,
                    at,
                });
                shown.extend(notice);
            }
            Ok(_) => {}
        }
    }
    for tool in waiting(&here.ctx) {
        out.push(LeftOut {
            name: tool.name,
            at: tool.at,
            why: APPROVAL.to_owned(),
        });
    }
    (out, shown)
}

/// A tool a project settings file declares, left out until the file is
/// approved.
struct Waiting {
    name: String,
    /// The file, and the line of the tool's name when found.
    at: String,
}

fn waiting(ctx: &ProjectContext) -> Vec<Waiting> {
    ctx.settings
        .unapproved
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(&file.file).unwrap_or_default();
            file.tools.iter().map(move |tool| Waiting {
                name: tool.name.clone(),
                at: match tack_session::declared::line_in(&text, &[&tool.name]) {
                    Some(line) => format!("{}:{line}", file.file.display()),
                    None => file.file.display().to_string(),
                },
            })
        })
        .collect()
}

/// `tack tools list`: exit 2 when a declaration has a problem or was
/// refused, else 0 (a project file waiting for approval is no error).
fn list(here: &Here, kept: &Kept, json: bool) -> u8 {
    let rows = rows(here);
    let (left_out, shown) = left_out(here, kept);
    if json {
        let mut all: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "name": r.name,
                    "source": r.source,
                    "exposure": exposure_str(r.exposure),
                    "read_only": r.read_only,
                    "tokens": r.tokens,
                })
            })
            .collect();
        all.extend(left_out.iter().map(|l| {
            json!({
                "name": l.name,
                "source": "declared",
                "exposure": "left_out",
                "read_only": null,
                "tokens": null,
                "left_out": {"at": l.at, "message": l.why},
            })
        }));
        outln!("{}", Value::Array(all));
    } else {
        print_table(&rows);
        if !left_out.is_empty() {
            outln!();
            outln!("left out (declared in settings):");
            for l in &left_out {
                outln!("  {}: {}: {}", l.name, l.at, l.why);
            }
        }
    }
    kept.print_except(&shown);
    let waiting = waiting(&here.ctx).len();
    if left_out.len() > waiting {
        exit::USAGE
    } else {
        exit::OK
    }
}

fn print_table(rows: &[Row]) {
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                r.name.clone(),
                r.source.clone(),
                exposure_str(r.exposure).to_owned(),
                if r.read_only { "yes" } else { "no" }.to_owned(),
                group(r.tokens),
            ]
        })
        .collect();
    let title = ["NAME", "SOURCE", "EXPOSURE", "READ-ONLY", "TOKENS"];
    let width = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .chain([title[i].len()])
            .max()
            .unwrap_or(0)
    };
    let w = [width(0), width(1), width(2), width(3), width(4)];
    let line = |c: [&str; 5]| {
        format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {:>w4$}",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4],
        )
    };
    outln!("{}", line(title));
    for c in &cells {
        outln!("{}", line([&c[0], &c[1], &c[2], &c[3], &c[4]]));
    }
    let sum = |exposure: Exposure| -> (usize, u64) {
        rows.iter()
            .filter(|r| r.exposure == exposure)
            .fold((0, 0), |(n, t), r| (n + 1, t + r.tokens))
    };
    let (direct, direct_tokens) = sum(Exposure::Direct);
    let (deferred, deferred_tokens) = sum(Exposure::Deferred);
    let (hidden, _) = sum(Exposure::Hidden);
    let mut total = format!(
        "total: {} tool{}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    );
    if direct < rows.len() {
        total.push_str(&format!("; {direct} direct"));
    }
    total.push_str(&format!(
        ", {} tokens of definitions in every request",
        group(direct_tokens)
    ));
    if deferred > 0 {
        total.push_str(&format!(
            "; {deferred} deferred, {} tokens once discovered",
            group(deferred_tokens)
        ));
    }
    if hidden > 0 {
        total.push_str(&format!("; {hidden} hidden, never sent"));
    }
    outln!("{total}");
}

// ---------------------------------------------------------------------------
// tack tools show

/// `tack tools show NAME`: the definition as the provider's API receives
/// it, pretty-printed (`--json`: the bytes sent, one line).
fn show(here: &Here, name: &str, provider: WireProvider, json: bool) -> Result<u8, Failure> {
    let registry = here.session.pipeline().registry();
    let Some(tool) = registry.get(name) else {
        return Err(here.not_found(name));
    };
    let format = match provider {
        WireProvider::Anthropic => WireFormat::Messages,
        WireProvider::Openai => WireFormat::ChatCompletions,
    };
    let bytes = wire_bytes(&tool.definition, format);
    if json {
        outln!("{}", String::from_utf8_lossy(&bytes));
    } else {
        let value: Value = serde_json::from_slice(&bytes).map_err(Failure::internal)?;
        let pretty = serde_json::to_string_pretty(&value).map_err(Failure::internal)?;
        outln!("{pretty}");
    }
    match tool.exposure {
        Exposure::Direct => {}
        Exposure::Deferred => eprintln!(
            "tack: {name} is deferred: its definition is sent from the request after the model discovers it"
        ),
        Exposure::Hidden => eprintln!(
            "tack: {name} is hidden: its definition is never sent; only other tools call it"
        ),
    }
    Ok(exit::OK)
}

// ---------------------------------------------------------------------------
// tack tools call

/// `tack tools call NAME INPUT`: one call through the session's pipeline,
/// recorded as a session of its own; the exit code is the outcome's.
async fn call(
    cwd: Option<&Path>,
    flags: &ToolSessionArgs,
    name: String,
    input: &str,
    json: bool,
) -> Result<u8, Failure> {
    let input = parse_input(&name, input)?;
    let ctx = crate::project(cwd, &flags.permissions)?;
    let session_id = format!("tools-{}", SessionOptions::new_id());
    let writer = tack_agent::transcript::TranscriptWriter::open(&ctx.sessions_dir(), &session_id)
        .map_err(|e| Failure::from(tack_session::Error::from(e)))?;
    let interaction: Arc<dyn Interaction> = match Terminal::detect() {
        Some(terminal) => Arc::new(terminal),
        None => Arc::new(Headless),
    };
    let events = EventBus::new().with(Arc::new(writer));
    let here = Here::assemble(ctx, flags, interaction, session_id.clone(), events).await?;
    let _ = here
        .session
        .begin(Begin {
            provider: "tack-tools-call".into(),
            model: String::new(),
            resumed: false,
        })
        .await;
    let cancel = CancellationToken::new();
    let watch = tokio::spawn(crate::run::watch_ctrl_c(cancel.clone()));
    let call = ToolCall {
        id: format!("toolu_{}", uuid::Uuid::now_v7().simple()),
        name: name.clone(),
        input,
    };
    let result = here
        .session
        .pipeline()
        .call(call, CallOptions::new(cancel))
        .await;
    watch.abort();
    here.session.end("other").await;
    if json {
        outln!("{}", result_json(&result, &session_id));
    }
    if result.outcome == ToolOutcome::UnknownTool {
        return Err(here.not_found(&name));
    }
    if !json {
        print_result(&name, &result);
    }
    Ok(result.outcome.exit_code())
}

/// The input: JSON text, or `-` for stdin. Text that is not JSON is a
/// usage error (the tool is not called); JSON that does not fit the tool
/// is for the pipeline to refuse (exit 15).
fn parse_input(name: &str, input: &str) -> Result<Value, Failure> {
    let text = if input == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Failure::usage(anyhow!("cannot read the input from stdin: {e}")))?;
        text
    } else {
        input.to_owned()
    };
    serde_json::from_str(&text).map_err(|e| {
        Failure::usage(anyhow!(
            "the input is not JSON ({e}), so {name} was not called; pass one JSON object, e.g. tack tools call {name} '{{\"key\": \"value\"}}'"
        ))
    })
}

/// `--json`: what the pipeline answered, and the session it is recorded in.
fn result_json(result: &ToolCallResult, session_id: &str) -> Value {
    let content = match &result.block.content {
        None => json!([]),
        Some(content) => serde_json::to_value(content).unwrap_or(Value::Null),
    };
    json!({
        "content": content,
        "is_error": result.block.is_error,
        "outcome": result.outcome,
        "structured": result.structured,
        "session_id": session_id,
    })
}

/// The result's text: on stdout, or on stderr when it is an error (with
/// the outcome), so a pipe never takes an error message for output.
fn print_result(name: &str, result: &ToolCallResult) {
    let text = result.block.text();
    if result.block.is_error {
        let outcome = serde_json::to_value(result.outcome).unwrap_or_default();
        eprintln!(
            "tack: {name} ({}): {}",
            outcome.as_str().unwrap_or("failed"),
            text.trim_end()
        );
        return;
    }
    if !text.is_empty() {
        let newline = if text.ends_with('\n') { "" } else { "\n" };
        crate::out::write(format_args!("{text}{newline}"));
    }
    let other = match &result.block.content {
        Some(ToolResultContent::Blocks(blocks)) => blocks
            .iter()
            .filter(|b| !matches!(b, ContentBlock::Text(_)))
            .count(),
        _ => 0,
    };
    if other > 0 {
        eprintln!(
            "tack: the result also holds {other} block(s) that are not text; --json shows them"
        );
    }
}

// ---------------------------------------------------------------------------
// tack tools search

/// The session's tools as tool search indexes them: every one the model
/// can see (hidden ones are not searched), an MCP tool with its server and
/// its name unprefixed.
fn search_docs(here: &Here) -> Vec<SearchDoc> {
    let origins = here.origins();
    let servers = here.servers();
    here.session
        .pipeline()
        .registry()
        .iter()
        .filter(|t| t.exposure != Exposure::Hidden)
        .map(|t| {
            let def = &t.definition;
            let source = here.source_of(&origins, &def.name);
            let server = source
                .strip_prefix("mcp:")
                .filter(|s| servers.iter().any(|known| known == s));
            let own = server
                .and_then(|s| {
                    def.name
                        .strip_prefix(&tack_mcp::client::model_tool_name(s, ""))
                })
                .unwrap_or(&def.name);
            SearchDoc {
                tool: def.name.clone(),
                server: server.map(str::to_owned),
                name: own.to_owned(),
                description: def.description.clone().unwrap_or_default(),
                input_schema: def.input_schema.clone(),
            }
        })
        .collect()
}

/// `tack tools search QUERY`: the ranked tools (none is no error).
fn search(index: &ToolIndex, query: &str, limit: usize, json: bool) -> u8 {
    let hits = index.search(query, limit);
    if json {
        let rows: Vec<Value> = hits
            .iter()
            .map(|h| {
                let doc = index.doc(h.doc);
                json!({"server": doc.server, "name": doc.name, "tool": doc.tool, "score": h.score})
            })
            .collect();
        outln!("{}", Value::Array(rows));
        return exit::OK;
    }
    if hits.is_empty() {
        eprintln!(
            "tack: no tool of the {} matches {query:?}",
            plural(index.len(), "tool")
        );
        return exit::OK;
    }
    let width = hits
        .iter()
        .map(|h| index.doc(h.doc).tool.chars().count())
        .chain(["TOOL".len()])
        .max()
        .unwrap_or(0);
    outln!("{:>4}  {:<width$}  {:>7}  SERVER", "RANK", "TOOL", "SCORE");
    for (rank, h) in hits.iter().enumerate() {
        let doc = index.doc(h.doc);
        outln!(
            "{:>4}  {:<width$}  {:>7.3}  {}",
            rank + 1,
            doc.tool,
            h.score,
            doc.server.as_deref().unwrap_or("-")
        );
    }
    exit::OK
}

/// `tack tools search --catalog FILE --queries FILE.jsonl`: the figures per
/// kind of query.
fn evaluate(index: &ToolIndex, file: &Path, limit: usize, json: bool) -> Result<u8, Failure> {
    let queries = eval::read_queries(file).map_err(Failure::usage)?;
    let report = eval::evaluate(index, &queries);
    for name in &report.unknown_tools {
        eprintln!("tack: the labels name {name}, which is not in the catalog");
    }
    let unlabelled = report.queries.iter().filter(|q| !q.labelled).count();
    if unlabelled > 0 {
        eprintln!(
            "tack: {unlabelled} {} of {} without \"steps\": ranked and listed, not measured",
            if unlabelled == 1 { "query" } else { "queries" },
            file.display()
        );
    }
    if json {
        let value = serde_json::to_value(&report).map_err(Failure::internal)?;
        outln!("{value}");
        return Ok(exit::OK);
    }
    for q in report.queries.iter().filter(|q| !q.labelled) {
        outln!("{}  {}", q.id, q.query);
        for (rank, found) in q.results.iter().take(limit).enumerate() {
            outln!("{:>4}  {}  {:.3}", rank + 1, found.tool, found.score);
        }
    }
    if unlabelled == report.queries.len() {
        return Ok(exit::OK);
    }
    outln!(
        "{:<12} {:>7} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {:>4} {:>8} {:>9} {:>9}",
        "KIND",
        "QUERIES",
        "STEPS",
        "R@1",
        "R@5",
        "R@10",
        "S@5",
        "MRR",
        "TOP",
        "NONE",
        "NONE-TOP",
        "TOKENS@5",
        "ALL"
    );
    for k in &report.kinds {
        outln!(
            "{:<12} {:>7} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.2}  {:>4} {:>8.2} {:>9} {:>9}",
            k.kind,
            k.queries,
            k.steps,
            k.recall_at_1,
            k.recall_at_5,
            k.recall_at_10,
            k.success_at_5,
            k.mrr,
            k.top_score,
            k.none_queries,
            k.none_top_score,
            group(k.top5_tokens.round() as u64),
            group(k.all_tokens)
        );
    }
    Ok(exit::OK)
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
