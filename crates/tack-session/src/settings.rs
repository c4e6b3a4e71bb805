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
//! servers, the output budget and WebFetch. A section that is coming next
//! (skills, tools, tool search, code mode, sandbox, compaction) reads its
//! key with [`SessionSettings::section`], in level order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_hooks::Hooks;
use tack_mcp::client::{ConfigSource, McpConfig};
use tack_policy::{Level, LoadOptions, Settings};
use tack_tools::web::WebFetchOptions;

use crate::error::Result;
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
    /// From the user, local and managed files only: a checked-in project file
    /// must not open the way to loopback and private addresses.
    pub web_fetch: WebFetchOptions,
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
        settings.warnings = warnings;
        Ok(settings)
    }

    /// The sections, from settings already loaded by tack-policy. Every file
    /// in them applies as it is: the caller chose them.
    pub fn from_permissions(permissions: Settings, project_root: &Path) -> Result<Self> {
        let hooks = hooks(&permissions)?;
        let mcp_servers = mcp_servers(&permissions, project_root)?;
        let output_budget = output_budget(&permissions);
        let web_fetch = web_fetch(&permissions);
        Ok(Self {
            permissions,
            hooks,
            mcp_servers,
            output_budget,
            web_fetch,
            unapproved: Vec::new(),
            warnings: Vec::new(),
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
    let warnings = tack_policy::lint::check_files(&files, &[])?
        .iter()
        .map(ToString::to_string)
        .collect();
    let (files, unapproved) = trust::withhold(
        files,
        &options.project_root,
        home.as_deref(),
        approvals,
        trust_project,
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
