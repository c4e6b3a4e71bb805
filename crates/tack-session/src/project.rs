//! Where a session runs: the working directory, the state directory and the
//! settings that apply there.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_agent::permission::Reload;
use tack_agent::transcript;
use tack_policy::{CliPermissions, Level, LoadOptions, Settings};

use crate::error::{Error, Result};
use crate::prompt::InstructionSources;
use crate::settings::{SessionSettings, read_permissions};
use crate::trust::{Approvals, UntrustedSettings};

/// Where a command runs and the settings that apply there.
#[derive(Debug, Clone)]
pub struct ProjectContext {
    /// The working directory (absolute, canonical).
    pub cwd: PathBuf,
    /// The project root of `cwd` ([`tack_policy::find_project_root`]): where
    /// the project and local settings files, `.mcp.json` and the "always
    /// allow" file are, and what `/path` (and, in project and local files,
    /// `./path`) rules are relative to.
    pub project_root: PathBuf,
    /// Where sessions, artifacts, approvals and logs are kept.
    pub state_dir: PathBuf,
    /// The settings in force: what the project file asks for that would let
    /// something run without asking only once approved (see
    /// [`SessionSettings::unapproved`]).
    pub settings: SessionSettings,
    /// Things a person should know, found while loading (e.g. a flag the
    /// administrator's settings override). The front end shows them.
    pub warnings: Vec<String>,
    /// Where the user-level instruction files (`CLAUDE.md`, `AGENTS.md`)
    /// are and the home directory of `@~/` imports (see [`crate::prompt`]).
    /// [`ProjectContext::load`] takes them from the environment,
    /// [`ProjectContext::load_with`] from its options only.
    pub instructions: InstructionSources,
    load: LoadOptions,
    trust_project: bool,
    /// The OS sandbox of Bash's commands, made on first use and shared by
    /// every set of built-in tools of the session (see [`crate::sandbox`]).
    sandbox: Arc<std::sync::OnceLock<SandboxSlot>>,
    sandbox_helper: Option<PathBuf>,
}

/// The session's sandbox, or none (turned off).
type SandboxSlot = Option<Arc<tack_tools::bash::sandbox::ShellSandbox>>;

impl ProjectContext {
    /// Loads user, project, local and managed settings for `cwd` (default:
    /// the current directory), plus the command-line permissions.
    /// `TACK_CONFIG_DIR` replaces the user configuration directory (where
    /// the user's `settings.json` and `AGENTS.md` are); `CLAUDE_CONFIG_DIR`
    /// replaces `~/.claude` (where the user's `CLAUDE.md` is);
    /// `TACK_MANAGED_SETTINGS` names the managed settings file on machines
    /// that have none in the system location (see [`managed_settings_file`]).
    pub fn load(cwd: Option<&Path>, cli: &CliPermissions) -> Result<Self> {
        let env = |k: &str| std::env::var(k).ok();
        let cwd = match cwd {
            Some(dir) => dir.to_owned(),
            None => std::env::current_dir().map_err(|source| Error::WorkingDirectory {
                path: PathBuf::from("."),
                source,
            })?,
        };
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let load = LoadOptions {
            project_root: PathBuf::new(),
            user_config_dir: std::env::var_os("TACK_CONFIG_DIR")
                .map(PathBuf::from)
                .or_else(Settings::default_user_config_dir),
            claude_user_dir: Settings::default_claude_user_dir(),
            managed_settings: managed_settings_file(),
            home: home.clone(),
            cwd: None,
            cli: cli.clone(),
        };
        let claude_dir = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".claude")));
        let instructions = InstructionSources::user(
            claude_dir.as_deref(),
            load.user_config_dir.as_deref(),
            home.as_deref(),
        );
        Ok(Self::load_with(&cwd, transcript::state_dir(&env), load)?
            .with_instructions(instructions))
    }

    /// Loads the settings of `cwd` with explicit options (embedders, tests):
    /// `load.cwd` is set to the canonical `cwd` and `load.project_root` to
    /// its project root, the nearest directory from `cwd` up holding
    /// `.tack/`, `.claude/` or `.mcp.json`, else the nearest holding `.git`,
    /// else `cwd` ([`tack_policy::find_project_root`]).
    /// What the project settings file asks for that would let something run
    /// without asking applies only when `<state_dir>/settings-approvals.json`
    /// holds its approval. The user-level instruction files are
    /// `<load.home>/.claude/CLAUDE.md` and `<load.user_config_dir>/AGENTS.md`
    /// (neither when the option is None: nothing of the real home is read).
    pub fn load_with(cwd: &Path, state_dir: PathBuf, mut load: LoadOptions) -> Result<Self> {
        let cwd = std::fs::canonicalize(cwd).map_err(|source| Error::WorkingDirectory {
            path: cwd.to_owned(),
            source,
        })?;
        let home = load
            .home
            .clone()
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
            .map(|h| std::fs::canonicalize(&h).unwrap_or(h));
        load.project_root = tack_policy::find_project_root(&cwd, home.as_deref());
        load.cwd = Some(cwd.clone());
        let settings = SessionSettings::load_approved(&load, &Approvals::load(&state_dir)?, false)?;
        let claude_dir = load.home.as_ref().map(|h| h.join(".claude"));
        let instructions = InstructionSources::user(
            claude_dir.as_deref(),
            load.user_config_dir.as_deref(),
            load.home.as_deref(),
        );
        let mut ctx = Self {
            project_root: load.project_root.clone(),
            cwd,
            state_dir,
            settings,
            warnings: Vec::new(),
            instructions,
            load,
            trust_project: false,
            sandbox: Arc::default(),
            sandbox_helper: None,
        };
        ctx.note_overrides();
        Ok(ctx)
    }

    /// The session's OS sandbox for commands: made once, on first use, from
    /// the `sandbox` settings; `None` when they turn it off.
    pub fn sandbox(&self) -> SandboxSlot {
        self.sandbox
            .get_or_init(|| crate::sandbox::shell_sandbox(self))
            .clone()
    }

    /// Where the sandbox's helper (`tack-sandbox-exec`) is, for an embedder
    /// whose program is not installed next to it (default: next to the
    /// running program, then on `PATH`).
    pub fn with_sandbox_helper(mut self, helper: impl Into<PathBuf>) -> Self {
        self.sandbox_helper = Some(helper.into());
        self
    }

    pub(crate) fn sandbox_helper(&self) -> Option<PathBuf> {
        self.sandbox_helper.clone()
    }

    /// Whether every project settings file is trusted for this process
    /// (`--trust-project-settings`): then the hooks of the project's agent
    /// definitions run too.
    pub(crate) fn trusts_project(&self) -> bool {
        self.trust_project
    }

    /// Where agent definitions (`*.md`) are read, strongest first: the
    /// user's `<config dir>/agents` (`~/.config/tack/agents`) and
    /// `<Claude Code dir>/agents` (`~/.claude/agents`), then the project's
    /// `.tack/agents` and `.claude/agents` (at the project root). A name
    /// defined in an earlier directory hides the same name in a later one,
    /// so a repository cannot replace an agent of the user's (as with skills).
    pub fn agent_dirs(&self) -> Vec<crate::agents::AgentDir> {
        use tack_protocol::places::{CONFIG_AGENT_FOLDER, PROJECT_AGENT_FOLDERS};
        let configs = [&self.load.user_config_dir, &self.load.claude_user_dir];
        let mut dirs: Vec<_> = configs
            .into_iter()
            .flatten()
            .map(|d| crate::agents::AgentDir {
                path: d.join(CONFIG_AGENT_FOLDER),
                project: false,
            })
            .collect();
        dirs.extend(
            PROJECT_AGENT_FOLDERS
                .iter()
                .map(|f| crate::agents::AgentDir {
                    path: self.project_root.join(f),
                    project: true,
                }),
        );
        dirs
    }

    /// Where skills are looked for (see [`tack_skills::discover`]): the
    /// administrator's `skills` folder beside the managed settings file
    /// (`/etc/tack/skills`), the user's `<config dir>/skills`,
    /// `<Claude Code dir>/skills` and `~/.agents/skills`, and the project's
    /// folders from the working directory up to the project root and below it.
    pub fn skill_places(&self) -> tack_skills::Places {
        let home = self.home();
        tack_skills::Places {
            managed: self
                .load
                .managed_settings
                .as_ref()
                .and_then(|f| f.parent())
                .map(|d| d.join(tack_protocol::places::CONFIG_SKILL_FOLDER)),
            user: tack_skills::Places::user_folders(
                self.load.user_config_dir.as_deref(),
                self.load.claude_user_dir.as_deref(),
                home.as_deref(),
            ),
            project: Some((self.cwd.clone(), self.project_root.clone())),
            nested: true,
        }
    }

    /// The home directory of user-level files, when known
    /// ([`ProjectContext::load`] takes `$HOME`; with
    /// [`ProjectContext::load_with`], only what its options say).
    pub fn home(&self) -> Option<PathBuf> {
        self.load.home.clone()
    }

    /// Reads the user-level instruction files from `sources` instead.
    pub fn with_instructions(mut self, sources: InstructionSources) -> Self {
        self.instructions = sources;
        self
    }

    /// Everything the project settings files ask for applies, approved or
    /// not, for this process only (`--trust-project-settings`; nothing is
    /// recorded).
    pub fn trusting_project_settings(mut self) -> Result<Self> {
        self.trust_project = true;
        self.reload()?;
        Ok(self)
    }

    /// Records the user's approval of `settings` (as it was shown: a file
    /// that changed since needs approval again) and reloads, so it applies
    /// from now on, in this process and the next.
    pub fn approve_project_settings(&mut self, settings: &UntrustedSettings) -> Result<()> {
        Approvals::load(&self.state_dir)?.approve(settings)?;
        self.reload()
    }

    /// Reads the settings again, with the approvals recorded now.
    fn reload(&mut self) -> Result<()> {
        let approvals = Approvals::load(&self.state_dir)?;
        self.settings = SessionSettings::load_approved(&self.load, &approvals, self.trust_project)?;
        self.warnings.clear();
        self.note_overrides();
        Ok(())
    }

    fn note_overrides(&mut self) {
        self.warnings.extend(self.settings.warnings.iter().cloned());
        if let (Some(asked), (mode, source)) =
            (self.load.cli.mode, self.settings.permissions.mode())
            && source.level == Level::Managed
            && asked != mode
        {
            self.warnings.push(format!(
                "--permission-mode {asked} is overridden by defaultMode {mode} in {source}"
            ));
        }
    }

    /// The directory of session transcripts.
    pub fn sessions_dir(&self) -> PathBuf {
        transcript::sessions_dir(&self.state_dir)
    }

    /// Re-reads the permissions (after "always allow" wrote a rule), with
    /// the same care for project settings as at load; what tack wrote to
    /// the local file is recorded as the user's first
    /// ([`crate::trust::record_own_write`]).
    pub(crate) fn reloader(&self) -> Reload {
        let load = self.load.clone();
        let state_dir = self.state_dir.clone();
        let trust_project = self.trust_project;
        Arc::new(move |write| {
            if let Some(write) = write {
                let home = load
                    .home
                    .clone()
                    .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
                if let Err(e) = crate::trust::record_own_write(
                    &state_dir,
                    &load.project_root,
                    home.as_deref(),
                    write,
                ) {
                    tracing::warn!("could not record what tack wrote to the local settings: {e}");
                }
            }
            let approvals = Approvals::load(&state_dir).map_err(|e| e.to_string())?;
            read_permissions(&load, &approvals, trust_project)
                .map(|(s, _, _)| s.policy().clone())
                .map_err(|e| e.to_string())
        })
    }
}

/// The administrator's settings file: the system one when it exists (an
/// environment variable must not let a user set the administrator's policy
/// aside), else `TACK_MANAGED_SETTINGS` (for tests and packagers; empty is
/// unset), else the system location (a missing file is no policy).
pub fn managed_settings_file() -> Option<PathBuf> {
    let system = Settings::default_managed_settings_path();
    if system.as_deref().is_some_and(Path::exists) {
        return system;
    }
    std::env::var_os("TACK_MANAGED_SETTINGS")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or(system)
}
