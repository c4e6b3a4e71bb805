//! Settings files with Claude Code's `permissions` schema, at four levels
//! (user, project, local, and the administrator's managed settings) plus
//! the command line.
//!
//! ```json
//! {"permissions": {
//!   "allow": ["Bash(npm run test *)", {"rule": "Bash(git push *)",
//!             "matches": ["git push origin main"], "not_matches": ["git pushx"]}],
//!   "ask":   ["Bash(git push *)"],
//!   "deny":  ["Read(./.env)"],
//!   "defaultMode": "acceptEdits",
//!   "additionalDirectories": ["../docs/"]},
//!  "hooks": {"…": "read by tack-hooks from the same files"}}
//! ```
//! Reading the files ([`crate::read_settings_files`]) is one step and
//! compiling them ([`Settings::from_files`]) another, so a caller that reads
//! the files itself still gets tack's rule semantics. Only `permissions` is
//! interpreted; the whole JSON of every file is kept ([`SettingsFile::value`])
//! so other crates read their keys from the same files.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_protocol::Verdict;

use crate::entry::{ManagedRulesOnly, RuleEntry};
use crate::error::{Error, Result};
use crate::files::{SettingsFile, local_settings_path, read_settings_files_with};
use crate::mode::Mode;
use crate::policy::{Policy, PolicyBuilder};
use crate::rule::{Level, Source};

/// Permission flags from the command line (parsed by the CLI).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliPermissions {
    /// `--allowed-tools` rules (see [`crate::split_rule_list`]).
    pub allowed_tools: Vec<String>,
    /// `--disallowed-tools` rules.
    pub disallowed_tools: Vec<String>,
    /// `--permission-mode`.
    pub mode: Option<Mode>,
    /// `--add-dir`.
    pub additional_directories: Vec<PathBuf>,
    /// `--settings` files or inline JSON (level [`crate::Level::CommandLine`]):
    /// a layer above the local settings and below the managed file, added
    /// to the files by [`Settings::from_files`].
    pub settings: Vec<SettingsFile>,
    /// `--mcp-config` documents (`{"mcpServers": {…}}`), for the session's
    /// MCP servers; not read here.
    pub mcp_config: Vec<SettingsFile>,
    /// `--strict-mcp-config`: only the `--mcp-config` servers; not read here.
    pub strict_mcp_config: bool,
}

/// Where to load settings from and how to compile them, for callers that
/// need more than [`Settings::load`] (tests, a different working directory
/// or home, files read elsewhere). [`Settings::from_files`] uses all but
/// `user_config_dir` and `managed_settings`, which only say where
/// [`Settings::load_with`] reads.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The project root (holds `.tack/`).
    pub project_root: PathBuf,
    /// The directory holding the user `settings.json`; None: no user level.
    pub user_config_dir: Option<PathBuf>,
    /// Claude Code's user directory (`~/.claude`, [`Settings::default_claude_user_dir`]),
    /// whose `settings.json` is read at the user level before tack's; None:
    /// not read.
    pub claude_user_dir: Option<PathBuf>,
    /// The administrator's `managed-settings.json` (see
    /// [`Settings::default_managed_settings_path`]); None: no managed level.
    /// A missing file is skipped; an unreadable or malformed one is an error.
    pub managed_settings: Option<PathBuf>,
    /// The home directory for `~/` paths; None: `$HOME`.
    pub home: Option<PathBuf>,
    /// The session's working directory for `./` rules; None: the project root.
    pub cwd: Option<PathBuf>,
    /// Command-line flags.
    pub cli: CliPermissions,
}

/// All settings levels, loaded and compiled.
#[derive(Debug, Clone)]
pub struct Settings {
    files: Vec<SettingsFile>,
    entries: Vec<RuleEntry>,
    mode: Mode,
    mode_source: Source,
    additional: Vec<PathBuf>,
    managed_rules_only: Option<ManagedRulesOnly>,
    project_root: PathBuf,
    home: Option<PathBuf>,
    policy: Policy,
    /// The files its configuration has tack run later (protected paths).
    runs_later: Vec<crate::runs_later::RunFile>,
    /// The strongest level whose `disableBypassPermissionsMode` is "disable".
    bypass_disabled: Option<Source>,
}

impl Settings {
    /// The default user configuration directory: `$XDG_CONFIG_HOME/tack` or
    /// `~/.config/tack`.
    pub fn default_user_config_dir() -> Option<PathBuf> {
        match std::env::var_os("XDG_CONFIG_HOME") {
            Some(x) if !x.is_empty() => Some(PathBuf::from(x).join("tack")),
            _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/tack")),
        }
    }

    /// Claude Code's user directory: `$CLAUDE_CONFIG_DIR` or `~/.claude`.
    pub fn default_claude_user_dir() -> Option<PathBuf> {
        match std::env::var_os("CLAUDE_CONFIG_DIR") {
            Some(x) if !x.is_empty() => Some(PathBuf::from(x)),
            _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")),
        }
    }

    /// Where an administrator puts managed settings, as Claude Code's
    /// `managed-settings.json`: `/Library/Application Support/tack/managed-settings.json`
    /// on macOS, `/etc/tack/managed-settings.json` on Linux and other Unix
    /// systems; None on Windows (no default location; the CLI's
    /// `TACK_MANAGED_SETTINGS` can name one).
    pub fn default_managed_settings_path() -> Option<PathBuf> {
        if cfg!(target_os = "macos") {
            Some(PathBuf::from(
                "/Library/Application Support/tack/managed-settings.json",
            ))
        } else if cfg!(windows) {
            None
        } else {
            Some(PathBuf::from("/etc/tack/managed-settings.json"))
        }
    }

    /// Load user (`<user_config_dir>/settings.json`), project
    /// (`<project_root>/.tack/settings.json`), local
    /// (`<project_root>/.tack/settings.local.json`) and managed
    /// ([`Settings::default_managed_settings_path`]) settings plus the
    /// command line, check every rule and example, and compile the policy
    /// for a session working in `project_root`. Missing files are skipped.
    pub fn load(
        project_root: &Path,
        user_config_dir: Option<&Path>,
        cli: &CliPermissions,
    ) -> Result<Settings> {
        Settings::load_with(&LoadOptions {
            project_root: project_root.to_path_buf(),
            user_config_dir: user_config_dir.map(Path::to_path_buf),
            claude_user_dir: Settings::default_claude_user_dir(),
            managed_settings: Settings::default_managed_settings_path(),
            home: None,
            cwd: None,
            cli: cli.clone(),
        })
    }

    /// [`Settings::load`] with every input explicit: the files are read
    /// ([`read_settings_files`]), then compiled ([`Settings::from_files`]).
    ///
    /// Precedence: rules of every level are combined (a deny anywhere beats
    /// an ask, which beats an allow); the mode is the strongest one set —
    /// managed settings, then the command line, then local, project and user
    /// settings. In managed settings, `disableBypassPermissionsMode:
    /// "disable"` makes any request for bypassPermissions an error and
    /// `allowManagedPermissionRulesOnly: true` leaves out every rule that is
    /// not in the managed file.
    pub fn load_with(opts: &LoadOptions) -> Result<Settings> {
        let files = read_settings_files_with(
            &opts.project_root,
            opts.claude_user_dir.as_deref(),
            opts.user_config_dir.as_deref(),
            opts.managed_settings.as_deref(),
        )?;
        Settings::from_files(files, opts)
    }

    /// Compile settings files that were already read (by
    /// [`read_settings_files`] or by the caller) with the command line in
    /// `opts`: only each file's `permissions` is interpreted — its rules and
    /// their examples, `defaultMode`, `additionalDirectories`,
    /// `disableBypassPermissionsMode`, and in managed settings
    /// `allowManagedPermissionRulesOnly`. Precedence as in
    /// [`Settings::load_with`]. The files may come in any order; they are
    /// kept weakest level first (stable within a level), as
    /// [`Settings::files`] returns them. `opts.user_config_dir`,
    /// `opts.claude_user_dir` and `opts.managed_settings` are not read (they
    /// say where to read); they are protected paths, with the skills and
    /// agents tack loads from them.
    pub fn from_files(mut files: Vec<SettingsFile>, opts: &LoadOptions) -> Result<Settings> {
        // `--settings` layers are part of the command line: they join here.
        files.extend(opts.cli.settings.iter().cloned());
        files.sort_by_key(|f| f.level);
        let home = opts
            .home
            .clone()
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
        let root = &opts.project_root;

        let mut found = Permissions::default();
        for file in &files {
            found.add_file(file, root, home.as_deref())?;
        }
        found.add_command_line(&opts.cli, root, home.as_deref());
        let (mode, mode_source) = found.settle_mode();
        if let Some(disabled_by) = found.bypass_disabled.clone() {
            check_bypass(&found.modes, disabled_by)?;
        }
        let managed_rules_only = found.keep_managed_rules_only();

        let cwd = opts.cwd.clone().unwrap_or_else(|| root.clone());
        let mut runs_later = crate::runs_later::from_settings(&files, root, &cwd, home.as_deref());
        let user_dirs: Vec<&Path> = [&opts.user_config_dir, &opts.claude_user_dir]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
            .collect();
        crate::runs_later::config_files(
            &files,
            &opts.cli.mcp_config,
            opts.managed_settings.as_deref(),
            &user_dirs,
            &mut runs_later,
        );
        let policy = build_policy(
            &runs_later,
            &found.entries,
            mode,
            &mode_source,
            &found.additional,
            managed_rules_only.as_ref(),
            root,
            &cwd,
            home.clone(),
        )?;
        Ok(Settings {
            files,
            entries: found.entries,
            mode,
            mode_source,
            additional: found.additional,
            managed_rules_only,
            project_root: root.clone(),
            home,
            policy,
            runs_later,
            bypass_disabled: found.bypass_disabled,
        })
    }

    /// Where `disableBypassPermissionsMode: "disable"` is set, if anywhere
    /// (no session may switch to bypassPermissions then).
    pub fn bypass_disabled_by(&self) -> Option<&Source> {
        self.bypass_disabled.as_ref()
    }

    /// The compiled policy for a session working in the project root.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Compile the policy for a session working in another directory (for
    /// `./` rules and "inside the working directory").
    pub fn policy_for_cwd(&self, cwd: &Path) -> Result<Policy> {
        build_policy(
            &self.runs_later,
            &self.entries,
            self.mode,
            &self.mode_source,
            &self.additional,
            self.managed_rules_only.as_ref(),
            &self.project_root,
            cwd,
            self.home.clone(),
        )
    }

    /// The settings files found, weakest level first (user, project, local,
    /// managed), with their whole JSON: tack-hooks reads `hooks` from here,
    /// so managed hooks run last and see the input as the other hooks left it.
    pub fn files(&self) -> &[SettingsFile] {
        &self.files
    }

    /// Every rule in force, in the order given (files by level, then the
    /// command line); only the managed ones under
    /// [`Settings::managed_rules_only`].
    pub fn rules(&self) -> &[RuleEntry] {
        &self.entries
    }

    /// Whether managed settings allow only their own rules
    /// (`allowManagedPermissionRulesOnly`), and how many rules that left out.
    pub fn managed_rules_only(&self) -> Option<&ManagedRulesOnly> {
        self.managed_rules_only.as_ref()
    }

    /// The permission mode in force and where it was set.
    pub fn mode(&self) -> (Mode, &Source) {
        (self.mode, &self.mode_source)
    }

    /// The local settings file (where "always allow" answers are written;
    /// never the managed file).
    pub fn local_settings_path(&self) -> PathBuf {
        local_settings_path(&self.project_root)
    }
}

/// What the `permissions` sections of the files and the command line say,
/// gathered before the policy is compiled.
#[derive(Debug, Default)]
struct Permissions {
    entries: Vec<RuleEntry>,
    /// Every mode set, with where; the strongest level wins.
    modes: Vec<(Mode, Source)>,
    additional: Vec<PathBuf>,
    /// The strongest level whose `disableBypassPermissionsMode` is "disable".
    bypass_disabled: Option<Source>,
    /// The managed file that sets `allowManagedPermissionRulesOnly: true`.
    managed_only: Option<PathBuf>,
}

impl Permissions {
    /// One file's `permissions` (a file without it adds nothing).
    fn add_file(&mut self, file: &SettingsFile, root: &Path, home: Option<&Path>) -> Result<()> {
        let source = Source::file(file.level, &file.path);
        let origin = file.path.display().to_string();
        let Some(perms) = file.value.get("permissions") else {
            return Ok(());
        };
        let Some(perms) = perms.as_object() else {
            return Err(Error::Settings {
                origin,
                problem: "`permissions` must be an object".into(),
            });
        };
        for kind in [Verdict::Allow, Verdict::Ask, Verdict::Deny] {
            if let Some(list) = perms.get(kind.as_str()) {
                self.entries
                    .extend(parse_rule_list(list, kind, &source, &origin)?);
            }
        }
        if let Some(m) = perms.get("defaultMode") {
            // Where it is written: a misspelt mode stops loading (`"plann"`
            // read as default would be less strict than meant).
            let at = crate::lint::line_of(&file.text, "\"defaultMode\"")
                .map_or(origin.clone(), |line| format!("{origin}:{line}"));
            self.modes.push((default_mode(m, &at)?, source.clone()));
        }
        if let Some(dirs) = perms.get("additionalDirectories") {
            self.additional
                .extend(additional_directories(dirs, root, home, &origin)?);
        }
        let managed = file.level == Level::Managed;
        if disables_bypass(perms.get("disableBypassPermissionsMode"), managed, &origin)? {
            // The strongest level that disables it is the one named.
            self.bypass_disabled = Some(source);
        }
        if managed && managed_rules_only_set(perms.get("allowManagedPermissionRulesOnly"), &origin)?
        {
            self.managed_only = Some(file.path.clone());
        }
        Ok(())
    }

    /// `--allowed-tools`, `--disallowed-tools`, `--permission-mode` and
    /// `--add-dir`, after every file.
    fn add_command_line(&mut self, cli: &CliPermissions, root: &Path, home: Option<&Path>) {
        let source = Source::command_line();
        for text in &cli.allowed_tools {
            let entry = RuleEntry::new(text.clone(), Verdict::Allow, source.clone());
            self.entries.push(entry);
        }
        for text in &cli.disallowed_tools {
            let entry = RuleEntry::new(text.clone(), Verdict::Deny, source.clone());
            self.entries.push(entry);
        }
        if let Some(m) = cli.mode {
            self.modes.push((m, source));
        }
        for d in &cli.additional_directories {
            self.additional
                .push(expand_dir(&d.to_string_lossy(), root, home));
        }
    }

    /// Orders the modes by level (stable: within a level, the order of the
    /// files) and returns the one in force: the strongest, else default.
    fn settle_mode(&mut self) -> (Mode, Source) {
        self.modes.sort_by_key(|(_, source)| source.level);
        self.modes
            .last()
            .cloned()
            .unwrap_or((Mode::Default, Source::code()))
    }

    /// Under `allowManagedPermissionRulesOnly`, drops every rule not in the
    /// managed file and says how many were dropped.
    fn keep_managed_rules_only(&mut self) -> Option<ManagedRulesOnly> {
        let file = self.managed_only.clone()?;
        let before = self.entries.len();
        self.entries.retain(|e| e.source.level == Level::Managed);
        Some(ManagedRulesOnly {
            file,
            ignored_rules: before - self.entries.len(),
        })
    }
}

/// `permissions.defaultMode`.
fn default_mode(value: &Value, origin: &str) -> Result<Mode> {
    let Some(s) = value.as_str() else {
        return Err(Error::Settings {
            origin: origin.to_string(),
            problem: "`permissions.defaultMode` must be a string".into(),
        });
    };
    s.parse().map_err(|problem| Error::Settings {
        origin: origin.to_string(),
        problem,
    })
}

/// `permissions.additionalDirectories`, expanded (`~/`, relative to the
/// project root).
fn additional_directories(
    value: &Value,
    root: &Path,
    home: Option<&Path>,
    origin: &str,
) -> Result<Vec<PathBuf>> {
    let Some(dirs) = value.as_array() else {
        return Err(Error::Settings {
            origin: origin.to_string(),
            problem: "`permissions.additionalDirectories` must be an array of paths".into(),
        });
    };
    dirs.iter()
        .map(|d| match d.as_str() {
            Some(d) => Ok(expand_dir(d, root, home)),
            None => Err(Error::Settings {
                origin: origin.to_string(),
                problem: format!(
                    "`permissions.additionalDirectories` holds {d}, which is not a path string"
                ),
            }),
        })
        .collect()
}

/// Whether `permissions.disableBypassPermissionsMode` is "disable". An
/// administrator's typo must not leave bypass enabled unnoticed, so in
/// managed settings any other value is an error; elsewhere it is ignored.
fn disables_bypass(value: Option<&Value>, managed: bool, origin: &str) -> Result<bool> {
    match value {
        Some(v) if v.as_str() == Some("disable") => Ok(true),
        Some(other) if managed => Err(Error::Settings {
            origin: origin.to_string(),
            problem: format!(
                "`permissions.disableBypassPermissionsMode` must be \"disable\" (or left out), not {other}"
            ),
        }),
        _ => Ok(false),
    }
}

/// `permissions.allowManagedPermissionRulesOnly` of the managed file.
fn managed_rules_only_set(value: Option<&Value>, origin: &str) -> Result<bool> {
    match value {
        None | Some(Value::Bool(false)) => Ok(false),
        Some(Value::Bool(true)) => Ok(true),
        Some(other) => Err(Error::Settings {
            origin: origin.to_string(),
            problem: format!(
                "`permissions.allowManagedPermissionRulesOnly` must be true or false, not {other}"
            ),
        }),
    }
}

/// With bypassPermissions disabled in `disabled_by`: an error naming the
/// request for it. A managed file forbids every request (settings files or
/// the command line, whichever level wins); a file at another level only the
/// mode in force.
fn check_bypass(modes: &[(Mode, Source)], disabled_by: Source) -> Result<()> {
    let managed = disabled_by.level == Level::Managed;
    let requests: Vec<&Source> = if managed {
        modes
            .iter()
            .filter(|(m, _)| *m == Mode::BypassPermissions)
            .map(|(_, s)| s)
            .collect()
    } else {
        modes
            .last()
            .filter(|(m, _)| *m == Mode::BypassPermissions)
            .map(|(_, s)| s)
            .into_iter()
            .collect()
    };
    // Name the strongest request: the one a person is most likely to have
    // just typed (the command line) or the managed file itself.
    let Some(requested_by) = requests.last() else {
        return Ok(());
    };
    let advice = match (&requested_by.level, &requested_by.path) {
        (Level::Managed, Some(path)) => format!(
            "the managed settings file {} both sets and disables bypassPermissions; the administrator must fix it",
            path.display()
        ),
        (_, Some(path)) => format!(
            "remove `\"defaultMode\": \"bypassPermissions\"` from {} or set another mode there (default, acceptEdits, plan or dontAsk)",
            path.display()
        ),
        _ => "run without `--permission-mode bypassPermissions`, or choose another mode (default, acceptEdits, plan or dontAsk) with allow rules for what the session needs".into(),
    };
    Err(Error::BypassDisabled {
        requested_by: (*requested_by).clone(),
        disabled_by,
        advice,
    })
}

#[expect(
    clippy::too_many_arguments,
    reason = "one private constructor fed from two places"
)]
fn build_policy(
    runs_later: &[crate::runs_later::RunFile],
    entries: &[RuleEntry],
    mode: Mode,
    mode_source: &Source,
    additional: &[PathBuf],
    managed_rules_only: Option<&ManagedRulesOnly>,
    root: &Path,
    cwd: &Path,
    home: Option<PathBuf>,
) -> Result<Policy> {
    let mut b = PolicyBuilder::new(cwd)
        .project_root(root)
        .home(home)
        .mode_from(mode, mode_source.clone())
        .managed_rules_only(managed_rules_only.cloned())
        .runs_later(runs_later.to_vec());
    for d in additional {
        b = b.additional_directory(d);
    }
    for e in entries {
        b = b.rule(e.clone());
    }
    b.build()
}

pub(crate) fn expand_dir(d: &str, root: &Path, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(h)) = (d.strip_prefix("~/"), home) {
        return h.join(rest);
    }
    if d == "~"
        && let Some(h) = home
    {
        return h.to_path_buf();
    }
    crate::paths::lexical(Path::new(d), root)
}

fn parse_rule_list(
    list: &Value,
    kind: Verdict,
    source: &Source,
    origin: &str,
) -> Result<Vec<RuleEntry>> {
    let key = kind.as_str();
    let Some(items) = list.as_array() else {
        return Err(Error::Settings {
            origin: origin.to_string(),
            problem: format!("`permissions.{key}` must be an array of rules"),
        });
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            Value::String(s) => out.push(RuleEntry::new(s.clone(), kind, source.clone())),
            Value::Object(obj) => {
                let Some(text) = obj.get("rule").and_then(Value::as_str) else {
                    return Err(Error::Settings {
                        origin: origin.to_string(),
                        problem: format!(
                            "an entry of `permissions.{key}` is an object without a string `rule`: {item}"
                        ),
                    });
                };
                let examples = |field: &str| -> Result<Vec<String>> {
                    match obj.get(field) {
                        None => Ok(Vec::new()),
                        Some(Value::Array(a)) => a
                            .iter()
                            .map(|v| {
                                v.as_str().map(str::to_string).ok_or_else(|| Error::Rule {
                                    origin: origin.to_string(),
                                    rule: text.to_string(),
                                    problem: format!("`{field}` must hold strings, found {v}"),
                                })
                            })
                            .collect(),
                        Some(other) => Err(Error::Rule {
                            origin: origin.to_string(),
                            rule: text.to_string(),
                            problem: format!(
                                "`{field}` must be an array of strings, found {other}"
                            ),
                        }),
                    }
                };
                let mut not_matches = examples("not_matches")?;
                not_matches.extend(examples("notMatches")?);
                for k in obj.keys() {
                    if !matches!(
                        k.as_str(),
                        "rule" | "matches" | "not_matches" | "notMatches"
                    ) {
                        return Err(Error::Rule {
                            origin: origin.to_string(),
                            rule: text.to_string(),
                            problem: format!(
                                "unknown key `{k}` (a rule object has `rule`, `matches` and `not_matches`)"
                            ),
                        });
                    }
                }
                out.push(RuleEntry {
                    text: text.to_string(),
                    kind,
                    source: source.clone(),
                    matches: examples("matches")?,
                    not_matches,
                });
            }
            other => {
                return Err(Error::Settings {
                    origin: origin.to_string(),
                    problem: format!(
                        "`permissions.{key}` holds {other}; a rule is a string like \"Bash(git log *)\" or an object {{\"rule\": …, \"matches\": […], \"not_matches\": […]}}"
                    ),
                });
            }
        }
    }
    Ok(out)
}
