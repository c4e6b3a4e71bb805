//! Assembling a session: settings → policy, hooks, built-in and MCP tools,
//! budget → one dispatch pipeline. Shared by `tack run` and `tack mcp serve`
//! so both enforce exactly the same rules.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::anyhow;
use tack_agent::budget::OutputBudget;
use tack_agent::hooks::HookRunner;
use tack_agent::permission::{PolicyStage, Prompter, Reload};
use tack_agent::transcript;
use tack_agent::{EventBus, Pipeline};
use tack_hooks::{HookContext, Hooks};
use tack_mcp::client::{McpManager, StartOutcome};
use tack_policy::{
    CliPermissions, DecidedBy, Level, LoadOptions, Policy, Request, RuleKind, Settings, evaluate,
};
use tack_tool::ToolRegistry;
use tack_tools::artifacts::ArtifactStore;

use crate::Failure;

/// Where a command runs and the settings that apply there.
pub struct ProjectContext {
    pub cwd: PathBuf,
    pub state_dir: PathBuf,
    pub settings: Settings,
    load: LoadOptions,
}

impl ProjectContext {
    /// Loads user, project, local and managed settings for `cwd` (default:
    /// the current directory), plus the command-line permissions.
    /// `TACK_CONFIG_DIR` replaces the user configuration directory;
    /// `TACK_MANAGED_SETTINGS` names the managed settings file on machines
    /// that have none in the system location (see [`managed_settings_file`]).
    pub fn load(cwd: Option<&Path>, cli: &CliPermissions) -> Result<Self, Failure> {
        let cwd = match cwd {
            Some(dir) => dir.to_owned(),
            None => std::env::current_dir().map_err(Failure::internal)?,
        };
        let cwd = std::fs::canonicalize(&cwd).map_err(|e| {
            Failure::usage(anyhow!(
                "the working directory {} is not usable: {e}",
                cwd.display()
            ))
        })?;
        let env = |k: &str| std::env::var(k).ok();
        let load = LoadOptions {
            project_root: cwd.clone(),
            user_config_dir: std::env::var_os("TACK_CONFIG_DIR")
                .map(PathBuf::from)
                .or_else(Settings::default_user_config_dir),
            managed_settings: managed_settings_file(),
            home: None,
            cwd: Some(cwd.clone()),
            cli: cli.clone(),
        };
        let settings = Settings::load_with(&load)
            .map_err(|e| Failure::usage(anyhow!("invalid settings: {e}")))?;
        if let (Some(asked), (mode, source)) = (cli.mode, settings.mode())
            && source.level == Level::Managed
            && asked != mode
        {
            eprintln!(
                "tack: --permission-mode {asked} is overridden by defaultMode {mode} in {source}"
            );
        }
        Ok(Self {
            state_dir: transcript::state_dir(&env),
            cwd,
            settings,
            load,
        })
    }

    /// Re-reads the settings (after "always allow" wrote a rule).
    fn reloader(&self) -> Reload {
        let load = self.load.clone();
        Arc::new(move || {
            Settings::load_with(&load)
                .map(|s| s.policy().clone())
                .map_err(|e| e.to_string())
        })
    }

    /// `outputBudget: {"default": TOKENS, "tools": {"Bash": TOKENS}}` from the
    /// settings files (later levels override earlier ones).
    fn output_budget(&self, store: Arc<ArtifactStore>) -> OutputBudget {
        let mut budget = OutputBudget::new(store);
        for file in self.settings.files() {
            let config = &file.value["outputBudget"];
            if let Some(tokens) = config["default"].as_u64() {
                budget = budget.default_tokens(tokens as usize);
            }
            if let Some(tools) = config["tools"].as_object() {
                for (tool, tokens) in tools {
                    if let Some(tokens) = tokens.as_u64() {
                        budget = budget.tool_tokens(tool.clone(), tokens as usize);
                    }
                }
            }
        }
        budget
    }

    /// `webFetch: {"allowPrivate": bool, "allowedHosts": [..]}`, read from the
    /// user, local and managed settings only: a checked-in project file must
    /// not open the way to loopback and private addresses.
    fn web_fetch(&self) -> tack_tools::web::WebFetchOptions {
        let mut options = tack_tools::web::WebFetchOptions::default();
        for file in self.settings.files() {
            if !matches!(file.level, Level::User | Level::Local | Level::Managed) {
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

    /// The `(file, document)` pairs of the settings files, for hooks: user,
    /// project and local first, then managed (whose hooks run last and judge
    /// the input as the other hooks rewrote it).
    fn setting_documents(&self) -> (Documents<'_>, Documents<'_>) {
        let mut others = Vec::new();
        let mut managed = Vec::new();
        for f in self.settings.files() {
            let pair = (f.path.display().to_string(), &f.value);
            match f.level {
                Level::Managed => managed.push(pair),
                _ => others.push(pair),
            }
        }
        (others, managed)
    }
}

/// `(file, document)` pairs of settings files, as tack-hooks reads them.
type Documents<'a> = Vec<(String, &'a serde_json::Value)>;

/// What a session is assembled from.
pub struct SessionOptions<'a> {
    pub session_id: &'a str,
    pub fixture_tools: bool,
    /// Only these tools (`--tools`).
    pub only_tools: Option<&'a [String]>,
    /// Asks the user on a terminal; `None` = headless (ask means deny).
    pub prompter: Option<Arc<dyn Prompter>>,
    /// Start project MCP servers without a recorded approval.
    pub approve_mcp: bool,
}

/// An assembled session.
pub struct Assembled {
    pub pipeline: Arc<Pipeline>,
    pub hooks: Option<Arc<HookRunner>>,
    pub mcp: Option<McpManager>,
}

/// Read deny and ask rules applied to each file Grep and Glob find, so a
/// denied `.env` cannot be read through a search. `None` when no such rule
/// exists (no cost then).
fn read_filter(ctx: &ProjectContext, policy: &Policy) -> Option<tack_tools::search::ReadFilter> {
    let has_read_limits = ctx
        .settings
        .rules()
        .iter()
        .any(|r| r.kind != RuleKind::Allow && r.text.trim_start().starts_with("Read"));
    if !has_read_limits {
        return None;
    }
    let policy = policy.clone();
    let cwd = ctx.cwd.clone();
    Some(Arc::new(move |path: &Path| {
        let input = serde_json::json!({ "file_path": path });
        let decision = evaluate(&Request::resolve("Read", &input, &cwd, &policy), &policy);
        let by_rule = matches!(decision.why().decided_by, DecidedBy::Rule { .. });
        !(decision.is_deny() || (decision.is_ask() && by_rule))
    }))
}

pub async fn assemble(
    ctx: &ProjectContext,
    opts: SessionOptions<'_>,
    events: &EventBus,
) -> Result<Assembled, Failure> {
    let artifacts = Arc::new(ArtifactStore::for_session(&ctx.state_dir, opts.session_id));
    let policy = ctx
        .settings
        .policy_for_cwd(&ctx.cwd)
        .map_err(|e| Failure::usage(anyhow!("invalid settings: {e}")))?;
    let mut registry = ToolRegistry::new();
    let builtins = tack_tools::builtin_tools(&tack_tools::BuiltinOptions {
        cwd: ctx.cwd.clone(),
        artifacts: Arc::clone(&artifacts),
        web: ctx.web_fetch(),
        read_filter: read_filter(ctx, &policy),
    });
    for tool in builtins {
        registry.register(tool).map_err(Failure::internal)?;
    }
    if opts.fixture_tools {
        tack_testkit::tools::register_fixture_tools(&mut registry).map_err(Failure::internal)?;
    }

    // MCP servers: started in parallel, failures reported once, tools added.
    let manager = crate::mcp::manager(&ctx.cwd, &ctx.state_dir, &ctx.settings, opts.approve_mcp)?;
    let mcp = if manager.list().is_empty() {
        None
    } else {
        for pending in manager.pending_approval() {
            let name = pending.name;
            let approved = match &opts.prompter {
                Some(_) => {
                    crate::prompt::confirm(&format!(
                        "The project configures the MCP server {name:?}. Start it?"
                    ))
                    .await
                }
                None => false,
            };
            if approved {
                manager
                    .approve_server(&name)
                    .map_err(crate::mcp::mcp_failure)?;
            } else {
                eprintln!(
                    "tack: the project MCP server {name:?} is not approved, so its tools are left out: run `tack mcp approve {name}` or pass --approve-mcp"
                );
            }
        }
        for report in manager.start().await {
            if let StartOutcome::Failed { error } = &report.outcome {
                eprintln!(
                    "tack: the MCP server {:?} failed to start, so its tools are left out: {error}",
                    report.server
                );
            }
        }
        for tool in manager.tools() {
            if let Err(e) = registry.register(tool) {
                eprintln!("tack: an MCP tool was left out: {e}");
            }
        }
        Some(manager)
    };

    if let Some(names) = opts.only_tools {
        let names: Vec<String> = names
            .iter()
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect();
        let available = registry.names();
        let unknown = registry.retain_named(&names);
        if !unknown.is_empty() {
            return Err(Failure::usage(anyhow!(
                "--tools names unknown tools: {}. Available: {}",
                unknown.join(", "),
                available.join(", ")
            )));
        }
    }

    let (documents, managed) = ctx.setting_documents();
    let hooks = Hooks::from_settings_with_managed(&documents, &managed)
        .map_err(|e| Failure::usage(anyhow!("invalid hooks: {e}")))?;
    let (mode, _) = ctx.settings.mode();
    let hooks = (!hooks.is_empty()).then(|| {
        Arc::new(HookRunner::new(
            hooks,
            HookContext {
                session_id: opts.session_id.to_owned(),
                transcript_path: transcript::sessions_dir(&ctx.state_dir)
                    .join(format!("{}.jsonl", opts.session_id)),
                cwd: ctx.cwd.clone(),
                permission_mode: mode.as_str().to_owned(),
                project_dir: ctx.cwd.clone(),
            },
        ))
    });

    let permission = PolicyStage::new(
        policy,
        ctx.cwd.clone(),
        ctx.cwd.clone(),
        opts.prompter,
        Some(ctx.reloader()),
    );
    let mut builder = Pipeline::builder(Arc::new(registry), ctx.cwd.clone(), opts.session_id)
        .events(events.clone())
        .permission(Arc::new(permission))
        .budget(Arc::new(ctx.output_budget(artifacts)));
    if let Some(hooks) = &hooks {
        builder = builder.hooks(hooks.clone());
    }
    let pipeline = Arc::new(builder.build());
    if let Some(manager) = &mcp {
        // tools/list_changed: new tools join the session; none is ever removed.
        let mut changes = manager.subscribe();
        let manager = manager.clone();
        let weak = Arc::downgrade(&pipeline);
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                let Some(pipeline) = weak.upgrade() else {
                    break;
                };
                for name in pipeline.add_tools(manager.tools()) {
                    tracing::info!("MCP tool {name} is now available");
                }
            }
        });
    }
    Ok(Assembled {
        pipeline,
        hooks,
        mcp,
    })
}

/// The administrator's settings file: the system one when it exists (an
/// environment variable must not let a user set the administrator's policy
/// aside), else `TACK_MANAGED_SETTINGS` (for tests and packagers; empty is
/// unset), else the system location (a missing file is no policy).
fn managed_settings_file() -> Option<PathBuf> {
    let system = Settings::default_managed_settings_path();
    if system.as_deref().is_some_and(Path::exists) {
        return system;
    }
    std::env::var_os("TACK_MANAGED_SETTINGS")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or(system)
}
