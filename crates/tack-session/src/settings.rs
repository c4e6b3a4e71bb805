//! The layered settings, read once into typed sections.
//!
//! The files (user `~/.claude/settings.json` and
//! `~/.config/tack/settings.json`, project `.claude/settings.json` and
//! `.tack/settings.json`, local `.claude/settings.local.json` and
//! `.tack/settings.local.json`, the administrator's managed file, strongest;
//! see [`tack_policy::read_settings_files`]) and the command line are read
//! once per session. What the project file asks for that would let
//! something run without asking is left out unless approved
//! ([`crate::trust`]). Each section a part of tack needs is interpreted here,
//! once: permissions (rule semantics stay in tack-policy), hooks, MCP
//! servers, the output budget, WebFetch, WebSearch, compaction, tools'
//! example inputs (`inputExamples`) and the sandbox
//! ([`crate::sandbox_settings`]). A section that is coming next (skills,
//! tools, tool search, code mode) reads its key with
//! [`SessionSettings::section`], in level order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_hooks::Hooks;
use tack_mcp::client::{ConfigSource, McpConfig};
use tack_policy::{Level, LoadOptions, Settings};
use tack_tools::web::WebFetchOptions;
use tack_tools::web::search::{BRAVE_URL, SearchProvider, WebSearchOptions};

use crate::error::Result;
use crate::sandbox_settings::SandboxSettings;
use crate::trust::{self, Approvals, UntrustedSettings};

/// `outputBudget: {"default": TOKENS, "tools": {"Bash": TOKENS}}`; later
/// levels override earlier ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputBudgetSettings {
    /// The budget of every tool without its own, in tokens.
    pub default_tokens: Option<usize>,
    /// Budgets of single tools, in tokens.
    pub tools: BTreeMap<String, usize>,
}

/// `compaction: {"auto": true, "threshold": "80%" | TOKENS, "contextWindow":
/// TOKENS, "keepToolResults": N, "targetPercent": 50, "instructions": "…",
/// "provider": false}`;
/// later levels override earlier ones. Claude Code's environment variables
/// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (a percentage) and `DISABLE_AUTO_COMPACT`
/// are read too; a settings file wins over them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactionSettings {
    pub auto: Option<bool>,
    pub threshold: Option<tack_agent::Threshold>,
    pub context_window: Option<u64>,
    pub keep_tool_results: Option<usize>,
    pub target_percent: Option<f64>,
    pub instructions: Option<String>,
    /// `"provider": true`: the provider compacts where it can.
    pub provider: Option<bool>,
}

impl CompactionSettings {
    /// The loop's configuration: these settings over the defaults.
    pub fn config(
        &self,
        artifacts: Option<std::sync::Arc<tack_tool::artifacts::ArtifactStore>>,
    ) -> tack_agent::CompactionConfig {
        let mut c = tack_agent::CompactionConfig::default();
        if let Some(auto) = self.auto {
            c.auto = auto;
        }
        if let Some(t) = self.threshold {
            c.threshold = t;
        }
        c.window = self.context_window;
        if let Some(k) = self.keep_tool_results {
            c.keep_tool_results = k;
        }
        if let Some(p) = self.target_percent {
            c.target_percent = p;
        }
        c.instructions = self.instructions.clone();
        if let Some(p) = self.provider {
            c.provider = p;
        }
        c.artifacts = artifacts;
        c
    }
}

const COMPACTION_KEYS: &[&str] = &[
    "auto",
    "threshold",
    "contextWindow",
    "keepToolResults",
    "targetPercent",
    "instructions",
    "provider",
];

/// The `compaction` section of every file, and what is wrong in it (each
/// warning names the file, the line and the closest valid key).
fn compaction(
    settings: &Settings,
    env: impl Fn(&str) -> Option<String>,
) -> (CompactionSettings, Vec<String>) {
    let mut out = CompactionSettings::default();
    let mut warnings = Vec::new();
    if let Some(p) = env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
        && let Ok(p) = p.trim().trim_end_matches('%').parse::<f64>()
        && (1.0..=100.0).contains(&p)
    {
        out.threshold = Some(tack_agent::Threshold::Percent(p));
    }
    if env("DISABLE_AUTO_COMPACT").is_some_and(|v| matches!(v.trim(), "1" | "true")) {
        out.auto = Some(false);
    }
    for file in settings.files() {
        let Some(section) = file.value.get("compaction") else {
            continue;
        };
        let at = |key: &str| match tack_policy::lint::line_of(&file.text, &format!("\"{key}\"")) {
            Some(line) => format!("{}:{line}", file.path.display()),
            None => file.path.display().to_string(),
        };
        let Some(map) = section.as_object() else {
            warnings.push(format!(
                "{}: \"compaction\" must be an object such as {{\"threshold\": \"80%\"}}",
                at("compaction")
            ));
            continue;
        };
        for (key, value) in map {
            let bad = |what: &str| format!("{}: compaction.{key} {what}", at(key));
            match key.as_str() {
                "auto" => match value.as_bool() {
                    Some(b) => out.auto = Some(b),
                    None => warnings.push(bad("must be true or false")),
                },
                "threshold" => {
                    let parsed = match value {
                        Value::String(s) => tack_agent::Threshold::parse(s),
                        Value::Number(n) => n
                            .as_u64()
                            .filter(|n| *n > 0)
                            .map(tack_agent::Threshold::Tokens)
                            .ok_or_else(|| "must be a positive number of tokens".to_owned()),
                        _ => Err("must be \"80%\" or a number of tokens".to_owned()),
                    };
                    match parsed {
                        Ok(t) => out.threshold = Some(t),
                        Err(e) => warnings.push(bad(&e)),
                    }
                }
                "contextWindow" => match value.as_u64().filter(|n| *n >= 1000) {
                    Some(n) => out.context_window = Some(n),
                    None => warnings.push(bad("must be a number of tokens (at least 1000)")),
                },
                "keepToolResults" => match value.as_u64() {
                    Some(n) => out.keep_tool_results = Some(n as usize),
                    None => warnings.push(bad("must be a number")),
                },
                "targetPercent" => match value.as_f64().filter(|p| (5.0..=95.0).contains(p)) {
                    Some(p) => out.target_percent = Some(p),
                    None => warnings.push(bad("must be a percentage between 5 and 95")),
                },
                "provider" => match value.as_bool() {
                    Some(b) => out.provider = Some(b),
                    None => warnings.push(bad("must be true or false")),
                },
                "instructions" => match value.as_str() {
                    Some(t) => out.instructions = Some(t.to_owned()),
                    None => warnings.push(bad("must be a string")),
                },
                other => {
                    let hint = tack_policy::lint::closest(other, COMPACTION_KEYS)
                        .map(|k| format!("; did you mean \"{k}\"?"))
                        .unwrap_or_default();
                    warnings.push(format!(
                        "{}: unknown key compaction.{other}{hint} (known: {})",
                        at(other),
                        COMPACTION_KEYS.join(", ")
                    ));
                }
            }
        }
    }
    (out, warnings)
}

/// One tool's list of `inputExamples`, and where it was set.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExamples {
    /// The example inputs, each a JSON object (whether it matches the
    /// tool's schema is checked when the session is assembled).
    pub examples: Vec<Value>,
    /// Each example's number in the file's list (from 1), for warnings: an
    /// entry that is not an object is not in `examples`.
    pub numbers: Vec<usize>,
    /// `FILE:LINE` of the tool's name in the file that set the list (the
    /// file alone when the line cannot be found), for warnings.
    pub at: String,
}

/// `inputExamples: {"TOOL": [{…}, …]}` of every file, by tool name: example
/// inputs for any tool of the session (built-in, MCP `mcp__server__tool`,
/// declared), sent as the tool's `input_examples` (in its description for
/// providers without the field). A later level's list replaces an earlier
/// one's, and an empty list takes a tool's examples away (the built-in ones
/// too). Mistakes of shape are warnings naming the file and the line, and
/// what is wrong is left out; whether a name is a tool of the session and an
/// example matches its schema is checked when the session is assembled.
fn input_examples(settings: &Settings) -> (BTreeMap<String, ToolExamples>, Vec<String>) {
    let mut out = BTreeMap::new();
    let mut warnings = Vec::new();
    for file in settings.files() {
        let Some(section) = file.value.get("inputExamples") else {
            continue;
        };
        // Names are looked for after the section's key, so that a tool named
        // in the permissions above is not taken for this one.
        let start = file.text.find("\"inputExamples\"").unwrap_or(0);
        let at = |key: &str| {
            let needle = format!("\"{key}\"");
            match file.text[start..].find(&needle) {
                Some(i) => format!(
                    "{}:{}",
                    file.path.display(),
                    file.text[..start + i].matches('\n').count() + 1
                ),
                None => file.path.display().to_string(),
            }
        };
        let Some(tools) = section.as_object() else {
            warnings.push(format!(
                "{}: \"inputExamples\" must be an object of example inputs by tool name, such as {{\"Grep\": [{{\"pattern\": \"fn main\", \"type\": \"rust\"}}]}}",
                at("inputExamples")
            ));
            continue;
        };
        for (tool, list) in tools {
            let Some(list) = list.as_array() else {
                warnings.push(format!(
                    "{}: inputExamples.{tool} must be a list of example inputs, such as [{{\"pattern\": \"fn main\"}}]; it is ignored",
                    at(tool)
                ));
                continue;
            };
            let mut examples = Vec::with_capacity(list.len());
            let mut numbers = Vec::with_capacity(list.len());
            for (i, example) in list.iter().enumerate() {
                if example.is_object() {
                    examples.push(example.clone());
                    numbers.push(i + 1);
                } else {
                    warnings.push(format!(
                        "{}: inputExamples.{tool} example {} is not an object (an example is a whole input, such as {{\"pattern\": \"fn main\"}}); it is left out",
                        at(tool),
                        i + 1
                    ));
                }
            }
            out.insert(
                tool.clone(),
                ToolExamples {
                    examples,
                    numbers,
                    at: at(tool),
                },
            );
        }
    }
    (out, warnings)
}

/// The settings of a session, read once.
#[derive(Debug, Clone)]
pub struct SessionSettings {
    /// Permissions (and the files as loaded): tack-policy's semantics.
    pub permissions: Settings,
    /// Command hooks from every file (managed ones run last).
    pub hooks: Hooks,
    /// MCP servers: `.mcp.json` plus `mcpServers` in every settings file.
    pub mcp_servers: McpConfig,
    pub output_budget: OutputBudgetSettings,
    /// How the conversation is kept inside the model's window.
    pub compaction: CompactionSettings,
    /// The OS sandbox around Bash (`sandbox` of every file; a project
    /// file's widening parts only once approved).
    pub sandbox: SandboxSettings,
    /// From the user, local and managed files only: a checked-in project file
    /// must not open the way to loopback and private addresses.
    pub web_fetch: WebFetchOptions,
    /// The WebSearch backend (`webSearch` of the user, local and managed
    /// files; `blockedDomains` of every file): `None` when none is set, and
    /// then WebSearch is not offered.
    pub web_search: Option<WebSearchOptions>,
    /// Example inputs for tools of the session, by tool name
    /// (`inputExamples` of every file; see [`ToolExamples`]).
    pub input_examples: BTreeMap<String, ToolExamples>,
    /// What tool search defers (`toolSearch` of every file, and
    /// `ENABLE_TOOL_SEARCH`; see [`crate::tool_search`]).
    pub tool_search: crate::tool_search::ToolSearchSettings,
    /// Code mode (`codeMode` of every file; see [`crate::code_mode`]).
    pub code_mode: crate::code_mode::CodeModeSettings,
    /// MCP servers that may use the session's model (`mcpSampling` of the
    /// user, local, command-line and managed files; a project file cannot
    /// grant it), by server name.
    pub mcp_sampling: std::collections::BTreeMap<String, SamplingGrant>,
    /// What project settings files ask for that would let something run
    /// without asking, left out of every section above because the user has
    /// not approved it (see [`UntrustedSettings::notice`]).
    pub unapproved: Vec<UntrustedSettings>,
    /// Mistakes found in the files that do not stop loading (an unknown key,
    /// a rule naming no known tool), each naming the file, the line and what
    /// was probably meant ([`tack_policy::lint`]).
    pub warnings: Vec<String>,
}

impl SessionSettings {
    /// Reads every level for `options` once and interprets each section.
    /// Nothing of the project file that needs approval applies (no record
    /// of approvals is read): [`crate::ProjectContext`] reads them.
    pub fn load(options: &LoadOptions) -> Result<Self> {
        Self::load_approved(options, &Approvals::none(), false)
    }

    /// [`SessionSettings::load`] with the project settings `approvals` has,
    /// or (`trust_project`) all of them.
    pub(crate) fn load_approved(
        options: &LoadOptions,
        approvals: &Approvals,
        trust_project: bool,
    ) -> Result<Self> {
        let (permissions, unapproved, warnings) =
            read_permissions(options, approvals, trust_project)?;
        let mut settings = Self::from_permissions(permissions, &options.project_root)?;
        settings.mcp_servers =
            command_line_mcp(std::mem::take(&mut settings.mcp_servers), options)?;
        settings.unapproved = unapproved;
        settings.warnings.splice(0..0, warnings);
        Ok(settings)
    }

    /// The sections, from settings already loaded by tack-policy. Every file
    /// in them applies as it is: the caller chose them.
    pub fn from_permissions(permissions: Settings, project_root: &Path) -> Result<Self> {
        let hooks = hooks(&permissions)?;
        let mut mcp_servers = mcp_servers(&permissions, project_root)?;
        let mcp_json_warnings = choose_mcp_json(&permissions, &mut mcp_servers);
        let output_budget = output_budget(&permissions);
        let (compaction, compaction_warnings) =
            compaction(&permissions, |name| std::env::var(name).ok());
        let web_fetch = web_fetch(&permissions);
        let web_search = web_search(&permissions, |name| std::env::var(name).ok())?;
        let (mcp_sampling, sampling_warnings) = mcp_sampling(&permissions);
        let home = permissions.policy().home().map(Path::to_path_buf);
        let (sandbox, sandbox_warnings) =
            crate::sandbox_settings::sandbox(&permissions, project_root, home.as_deref());
        let (input_examples, examples_warnings) = input_examples(&permissions);
        let (tool_search, tool_search_warnings) =
            crate::tool_search::tool_search(&permissions, |name| std::env::var(name).ok());
        let (code_mode, code_mode_warnings) = crate::code_mode::code_mode(&permissions);
        let mut warnings = compaction_warnings;
        warnings.extend(mcp_json_warnings);
        warnings.extend(sampling_warnings);
        warnings.extend(sandbox_warnings);
        warnings.extend(examples_warnings);
        warnings.extend(tool_search_warnings);
        warnings.extend(code_mode_warnings);
        Ok(Self {
            permissions,
            hooks,
            mcp_servers,
            output_budget,
            compaction,
            sandbox,
            web_fetch,
            web_search,
            mcp_sampling,
            input_examples,
            tool_search,
            code_mode,
            unapproved: Vec::new(),
            warnings,
        })
    }

    /// One key of every settings file that has it, weakest level first (user,
    /// project, local, managed), with the file it came from.
    pub fn section<'a>(&'a self, key: &'a str) -> impl Iterator<Item = Section<'a>> + 'a {
        self.permissions.files().iter().filter_map(move |file| {
            file.value.get(key).map(|value| Section {
                level: file.level,
                path: &file.path,
                value,
            })
        })
    }
}

/// The permissions of every level, with what the project files ask for
/// that is not approved left out (and returned), and the mistakes found in
/// the files (every file checked whole, before anything is withheld; a deny
/// rule naming no known tool is an error).
pub(crate) fn read_permissions(
    options: &LoadOptions,
    approvals: &Approvals,
    trust_project: bool,
) -> Result<(Settings, Vec<UntrustedSettings>, Vec<String>)> {
    let files = tack_policy::read_settings_files_with(
        &options.project_root,
        options.claude_user_dir.as_deref(),
        options.user_config_dir.as_deref(),
        options.managed_settings.as_deref(),
    )?;
    let home = options
        .home
        .clone()
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
    let users = trust::UsersOwn::of(
        &files,
        options.cli.settings.iter().chain(&options.cli.mcp_config),
    );
    let (files, local) = trust::repository_local_as_project(
        files,
        &options.project_root,
        options.cwd.as_deref(),
        home.as_deref(),
        &users,
    );
    // A local file taken as a project file declares for the project.
    let users = trust::UsersOwn::of(
        &files,
        options.cli.settings.iter().chain(&options.cli.mcp_config),
    );
    // Command tools declared in any file (approved or not) may be named by
    // rules, with or without a specifier.
    let declared: Vec<String> = files
        .iter()
        .chain(&options.cli.settings)
        .filter_map(|f| f.value.get("tools").and_then(serde_json::Value::as_object))
        .flat_map(|tools| tools.keys().cloned())
        .collect();
    let declared: Vec<&str> = declared.iter().map(String::as_str).collect();
    let mut warnings: Vec<String> = tack_policy::lint::check_files(&files, &declared)?
        .into_iter()
        .chain(tack_policy::lint::check_files(
            &options.cli.settings,
            &declared,
        )?)
        .map(|w| w.to_string())
        .collect();
    warnings.extend(tack_policy::lint::check_command_line(
        &options.cli,
        &declared,
    )?);
    let (files, unapproved) = trust::withhold(
        files,
        &options.project_root,
        home.as_deref(),
        approvals,
        trust_project,
        &local,
        &users,
    );
    Ok((Settings::from_files(files, options)?, unapproved, warnings))
}

/// One file's value of a settings key.
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    pub level: Level,
    pub path: &'a PathBuf,
    pub value: &'a Value,
}

/// `(file, document)` pairs, as tack-hooks reads them: user, project and
/// local first, then managed (whose hooks run last and judge the input as
/// the other hooks rewrote it).
fn hooks(settings: &Settings) -> Result<Hooks> {
    let mut others = Vec::new();
    let mut managed = Vec::new();
    for f in settings.files() {
        let pair = (f.path.display().to_string(), &f.value);
        match f.level {
            Level::Managed => managed.push(pair),
            _ => others.push(pair),
        }
    }
    Ok(Hooks::from_settings_with_managed(&others, &managed)?)
}

fn mcp_servers(settings: &Settings, project_root: &Path) -> Result<McpConfig> {
    let mut config = McpConfig::new();
    config.load_project(project_root)?;
    for file in settings.files() {
        let source = match file.level {
            Level::User => ConfigSource::UserSettings,
            Level::Project => ConfigSource::ProjectSettings,
            Level::Local => ConfigSource::LocalSettings,
            Level::Managed => ConfigSource::ManagedSettings,
            Level::CommandLine => ConfigSource::CommandLine,
            _ => continue,
        };
        config.add_servers_from(source, Some(&file.path), &file.value)?;
    }
    Ok(config)
}

/// Claude Code's keys for the servers of a project's `.mcp.json`:
/// `enableAllProjectMcpServers`, `enabledMcpjsonServers` (start without
/// asking) and `disabledMcpjsonServers` (never start), read from the user's
/// own files (user, local, command line, managed). In a project settings
/// file the first two are ignored: a repository cannot
/// approve its own servers (no warning: many repositories check them in
/// for Claude Code). Later files add to earlier ones.
fn choose_mcp_json(settings: &Settings, config: &mut McpConfig) -> Vec<String> {
    let (mut all, mut enabled, mut disabled) = (false, Vec::new(), Vec::new());
    let mut warnings = Vec::new();
    for file in settings.files() {
        let users_own = matches!(
            file.level,
            Level::User | Level::Local | Level::CommandLine | Level::Managed
        );
        let at = |key: &str| match tack_policy::lint::line_of(&file.text, &format!("\"{key}\"")) {
            Some(line) => format!("{}:{line}", file.path.display()),
            None => file.path.display().to_string(),
        };
        let names = |key: &str, warnings: &mut Vec<String>| -> Vec<String> {
            match file.value.get(key) {
                None | Some(serde_json::Value::Null) => Vec::new(),
                Some(serde_json::Value::Array(items)) if items.iter().all(|i| i.is_string()) => {
                    items
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_owned))
                        .collect()
                }
                Some(_) => {
                    warnings.push(format!(
                        "{}: \"{key}\" must be a list of server names such as [\"github\"]",
                        at(key)
                    ));
                    Vec::new()
                }
            }
        };
        // In a project's file the first two approve nothing, silently: many
        // repositories check them in for Claude Code, and their users cannot
        // change that (README says where they count).
        if users_own {
            match file.value.get("enableAllProjectMcpServers") {
                None | Some(serde_json::Value::Null) => {}
                Some(serde_json::Value::Bool(b)) => all = *b,
                Some(_) => warnings.push(format!(
                    "{}: \"enableAllProjectMcpServers\" must be true or false",
                    at("enableAllProjectMcpServers")
                )),
            }
            enabled.extend(names("enabledMcpjsonServers", &mut warnings));
        }
        // Leaving a server out is never a loosening: a project's file may.
        disabled.extend(names("disabledMcpjsonServers", &mut warnings));
    }
    config.choose_mcp_json(all, &enabled, &disabled);
    warnings
}

/// `--mcp-config` servers join (or, with `--strict-mcp-config`, replace)
/// the servers of the files; they are the user's own and need no approval.
fn command_line_mcp(found: McpConfig, options: &LoadOptions) -> Result<McpConfig> {
    let mut config = if options.cli.strict_mcp_config {
        McpConfig::new()
    } else {
        found
    };
    for file in &options.cli.mcp_config {
        config.add_servers_from(ConfigSource::CommandLine, Some(&file.path), &file.value)?;
    }
    Ok(config)
}

fn output_budget(settings: &Settings) -> OutputBudgetSettings {
    let mut budget = OutputBudgetSettings::default();
    for file in settings.files() {
        let config = &file.value["outputBudget"];
        if let Some(tokens) = config["default"].as_u64() {
            budget.default_tokens = Some(tokens as usize);
        }
        if let Some(tools) = config["tools"].as_object() {
            for (tool, tokens) in tools {
                if let Some(tokens) = tokens.as_u64() {
                    budget.tools.insert(tool.clone(), tokens as usize);
                }
            }
        }
    }
    budget
}

/// `webSearch: {"provider": "searxng"|"brave", "url": "...", "apiKeyEnv":
/// "BRAVE_API_KEY", "allowedDomains": [...], "blockedDomains": [...]}`.
/// The backend (provider, url, key, allowed domains) comes from the user,
/// local and managed files only, later levels overriding earlier ones: a
/// checked-in project file must not send the session's queries to a server
/// of its choosing. `blockedDomains` only restricts, so every file's count.
pub(crate) fn web_search(
    settings: &Settings,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<WebSearchOptions>> {
    let mut provider: Option<(SearchProvider, &Path)> = None;
    let mut url: Option<(String, &Path)> = None;
    let mut key_env: Option<String> = None;
    let mut allowed = Vec::new();
    let mut blocked = Vec::new();
    let strings = |v: &Value, key: &str, path: &Path| -> Result<Vec<String>> {
        match v.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(list)) => list
                .iter()
                .map(|d| {
                    d.as_str().map(str::to_owned).ok_or_else(|| {
                        invalid(
                            path,
                            &format!(
                                "{key} must be a list of domain strings, e.g. [\"pinterest.com\"]"
                            ),
                        )
                    })
                })
                .collect(),
            Some(_) => Err(invalid(
                path,
                &format!("{key} must be a list of domain strings, e.g. [\"pinterest.com\"]"),
            )),
        }
    };
    for file in settings.files() {
        let Some(config) = file.value.get("webSearch") else {
            continue;
        };
        let path = file.path.as_path();
        if !config.is_object() {
            return Err(invalid(
                path,
                "webSearch must be an object, e.g. {\"provider\": \"searxng\", \"url\": \"http://127.0.0.1:8888\"}",
            ));
        }
        blocked.extend(strings(config, "blockedDomains", path)?);
        if !matches!(file.level, Level::User | Level::Local | Level::Managed) {
            continue;
        }
        if let Some(p) = config.get("provider") {
            let parsed = p.as_str().and_then(SearchProvider::parse).ok_or_else(|| {
                invalid(
                    path,
                    &format!("provider {p} is not known; use \"searxng\" or \"brave\""),
                )
            })?;
            provider = Some((parsed, path));
        }
        if let Some(u) = config.get("url") {
            let u = u.as_str().ok_or_else(|| {
                invalid(path, "url must be a string, e.g. \"http://127.0.0.1:8888\"")
            })?;
            url = Some((u.to_owned(), path));
        }
        if let Some(k) = config.get("apiKeyEnv") {
            let k = k.as_str().ok_or_else(|| {
                invalid(
                    path,
                    "apiKeyEnv must be the name of an environment variable, e.g. \"BRAVE_API_KEY\"",
                )
            })?;
            key_env = Some(k.to_owned());
        }
        allowed.extend(strings(config, "allowedDomains", path)?);
    }
    let Some((provider, provider_path)) = provider else {
        if let Some((_, path)) = url {
            return Err(invalid(
                path,
                "url is set but provider is not; add \"provider\": \"searxng\" or \"brave\"",
            ));
        }
        return Ok(None);
    };
    let (raw_url, url_path) = match (url, provider) {
        (Some((u, p)), _) => (u, p),
        (None, SearchProvider::Brave) => (BRAVE_URL.to_owned(), provider_path),
        (None, _) => {
            return Err(invalid(
                provider_path,
                "a SearxNG backend needs its url, e.g. \"url\": \"http://127.0.0.1:8888\"",
            ));
        }
    };
    let parsed = url::Url::parse(&raw_url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| {
            invalid(
                url_path,
                &format!("url {raw_url:?} is not an http(s) address"),
            )
        })?;
    let mut options = WebSearchOptions::new(provider, parsed);
    if provider == SearchProvider::Brave && key_env.is_none() {
        key_env = Some("BRAVE_API_KEY".to_owned());
    }
    options.api_key = key_env.as_deref().and_then(&env).filter(|k| !k.is_empty());
    options.api_key_env = key_env;
    options.allowed_domains = allowed;
    options.blocked_domains = blocked;
    Ok(Some(options))
}

fn invalid(path: &Path, message: &str) -> crate::error::Error {
    crate::error::Error::WebSearch {
        path: path.to_path_buf(),
        message: message.to_owned(),
    }
}

/// One server's sampling grant: `{"allow": true, "maxTokens": N}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplingGrant {
    /// Tokens (input and output) the server may use in one session.
    pub max_tokens: u64,
}

/// The budget of a grant that names none.
pub const DEFAULT_SAMPLING_TOKENS: u64 = 10_000;

const SAMPLING_KEYS: &[&str] = &["allow", "maxTokens"];

/// `mcpSampling`: `{"<server>": {"allow": true, "maxTokens": N}}`, later
/// files overriding earlier ones per server; `"allow": false` takes a grant
/// back. Mistakes are warnings naming the file, the line and the closest key.
fn mcp_sampling(
    settings: &Settings,
) -> (
    std::collections::BTreeMap<String, SamplingGrant>,
    Vec<String>,
) {
    let mut grants = std::collections::BTreeMap::new();
    let mut warnings = Vec::new();
    for file in settings.files() {
        let Some(section) = file.value.get("mcpSampling") else {
            continue;
        };
        let at = |key: &str| match tack_policy::lint::line_of(&file.text, &format!("\"{key}\"")) {
            Some(line) => format!("{}:{line}", file.path.display()),
            None => file.path.display().to_string(),
        };
        if !matches!(
            file.level,
            Level::User | Level::Local | Level::CommandLine | Level::Managed
        ) {
            warnings.push(format!(
                "{}: \"mcpSampling\" is ignored in a project settings file (a repository cannot let its own servers use your model); put it in your user or local settings",
                at("mcpSampling")
            ));
            continue;
        }
        let Some(servers) = section.as_object() else {
            warnings.push(format!(
                "{}: \"mcpSampling\" must be an object such as {{\"my-server\": {{\"allow\": true, \"maxTokens\": 4000}}}}",
                at("mcpSampling")
            ));
            continue;
        };
        for (server, grant) in servers {
            let Some(grant) = grant.as_object() else {
                warnings.push(format!(
                    "{}: mcpSampling.{server} must be an object such as {{\"allow\": true, \"maxTokens\": 4000}}",
                    at(server)
                ));
                continue;
            };
            let mut allow = false;
            let mut max_tokens = DEFAULT_SAMPLING_TOKENS;
            let mut valid = true;
            for (key, value) in grant {
                match key.as_str() {
                    "allow" => match value.as_bool() {
                        Some(b) => allow = b,
                        None => {
                            valid = false;
                            warnings.push(format!(
                                "{}: mcpSampling.{server}.allow must be true or false",
                                at(key)
                            ));
                        }
                    },
                    "maxTokens" => match value.as_u64().filter(|n| *n > 0) {
                        Some(n) => max_tokens = n,
                        None => {
                            valid = false;
                            warnings.push(format!(
                                "{}: mcpSampling.{server}.maxTokens must be a whole number above 0",
                                at(key)
                            ));
                        }
                    },
                    other => {
                        let closest = SAMPLING_KEYS
                            .iter()
                            .max_by(|a, b| {
                                strsim::jaro_winkler(other, a)
                                    .total_cmp(&strsim::jaro_winkler(other, b))
                            })
                            .copied()
                            .unwrap_or("allow");
                        warnings.push(format!(
                            "{}: mcpSampling.{server} has no key {other:?} (did you mean {closest:?}?)",
                            at(other)
                        ));
                    }
                }
            }
            if !valid {
                continue;
            }
            if allow {
                grants.insert(server.clone(), SamplingGrant { max_tokens });
            } else {
                grants.remove(server);
            }
        }
    }
    (grants, warnings)
}

fn web_fetch(settings: &Settings) -> WebFetchOptions {
    let mut options = WebFetchOptions::default();
    for file in settings.files() {
        if !matches!(
            file.level,
            Level::User | Level::Local | Level::CommandLine | Level::Managed
        ) {
            continue;
        }
        let config = &file.value["webFetch"];
        if let Some(allow) = config["allowPrivate"].as_bool() {
            options.allow_private = allow;
        }
        for host in config["allowedHosts"].as_array().into_iter().flatten() {
            if let Some(host) = host.as_str() {
                options.allowed_hosts.push(host.to_owned());
            }
        }
    }
    options
}
