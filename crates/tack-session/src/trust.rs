//! A checked-in project settings file is not the user's word: what in it
//! would let something run without asking — hooks (commands tack runs),
//! `"disableAllHooks": true` (it turns off the user's own hooks too), a
//! permissive `defaultMode` (acceptEdits, bypassPermissions),
//! `additionalDirectories` outside the project, and wide allow rules
//! (tack-policy's [`tack_policy::wide_allow_rule`]) — is withheld until the
//! user approves it, and so is what in its `sandbox` section would widen
//! the OS sandbox (`enabled: false`, `failIfUnavailable: false`,
//! `excludedCommands`, `allowedDomains`, `allowWrite`/`writableRoots`,
//! `allowUnsandboxedCommands: true`, `allowAllUnixSockets: true`,
//! `autoAllowBashIfSandboxed: true`) — and its declared command tools
//! (`tools`: commands tack runs, as hooks are). The rest of the file (narrow allow
//! rules, ask and deny rules, modes that restrict, `sandbox.enabled: true`,
//! `denyRead`, `denyWrite`, `deniedDomains`) applies as written.
//!
//! An approval is bound to a hash of exactly what was withheld (canonical
//! JSON, sorted keys) and to the file's path, and kept in tack's state
//! directory (`settings-approvals.json`), outside the repository, so a
//! repository cannot approve itself; when the file changes what it asks
//! for, it is withheld again. User, local and managed settings and the
//! command line are the user's (or the administrator's) and always apply.
//! `webFetch` and the `webSearch` backend of a project file are never read
//! (its `webSearch.blockedDomains` are: they only restrict) and its MCP servers have their
//! own approval (see [`crate::sources::Mcp`]).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tack_policy::{Level, Mode, Named, SettingsFile, wide_additional_directory, wide_allow_rule};

use crate::error::{Error, Result};

const APPROVALS_FILE: &str = "settings-approvals.json";

/// What a project settings file asks for that would let something run
/// without asking, left out until the user approves it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UntrustedSettings {
    /// The project settings file.
    pub file: PathBuf,
    /// An approval is recorded for this file, for something else: the file
    /// changed since.
    pub changed: bool,
    /// Its hooks, one per command.
    pub hooks: Vec<HookCommand>,
    /// `"disableAllHooks": true`, which would turn off the user's own
    /// hooks (guards, audit shipping), not only the file's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disables_hooks: bool,
    /// A `defaultMode` that widens (acceptEdits, bypassPermissions).
    pub mode: Option<String>,
    /// `additionalDirectories` outside the project.
    pub additional_directories: Vec<String>,
    /// Allow rules that reach past the project, each with why.
    pub allow: Vec<WideRule>,
    /// What in its `sandbox` section widens the OS sandbox, one item each
    /// (`sandbox.enabled: false`, an `allowedDomains` entry, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sandbox: Vec<String>,
    /// The command tools it declares (`tools`), each with the command it
    /// runs: commands tack runs, like hooks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<DeclaredCommand>,
    /// For a local settings file taken as a project file: why tack cannot
    /// tell it is the user's (it comes with the repository, is in none, is
    /// owned by another user, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
    /// The project's files its hooks and command tools run (scripts, task
    /// files): the approval covers what they hold, so a `git pull` that
    /// changes one asks again.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<PathBuf>,
    /// What is withheld, as it is in the file.
    pub withheld: Value,
    /// The hash an approval is bound to.
    pub hash: String,
}

/// One hook command of a project file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookCommand {
    pub event: String,
    pub matcher: Option<String>,
    pub command: String,
}

/// A command tool a project file declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredCommand {
    pub name: String,
    /// Its `command` as written (JSON), e.g. `["git","log","-n","{limit}"]`.
    pub command: String,
}

/// An allow rule that reaches past the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WideRule {
    pub rule: String,
    pub why: String,
}

impl UntrustedSettings {
    /// What is withheld, one item a line, for a person to check.
    pub fn items(&self) -> Vec<String> {
        let mut items = Vec::new();
        for h in &self.hooks {
            let matcher = h
                .matcher
                .as_deref()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default();
            items.push(format!("{} hook{matcher} runs `{}`", h.event, h.command));
        }
        if self.disables_hooks {
            items.push("disableAllHooks: true (turns off your own hooks too)".to_owned());
        }
        if let Some(mode) = &self.mode {
            items.push(format!("defaultMode {mode}"));
        }
        for dir in &self.additional_directories {
            items.push(format!("additionalDirectories {dir}"));
        }
        for rule in &self.allow {
            items.push(format!("allow {} ({})", rule.rule, rule.why));
        }
        items.extend(self.sandbox.iter().cloned());
        for tool in &self.tools {
            items.push(format!("tool {} runs {}", tool.name, tool.command));
        }
        let root = project_root_of(&self.file);
        for script in &self.scripts {
            let shown = root
                .and_then(|r| script.strip_prefix(r).ok())
                .unwrap_or(script);
            items.push(format!(
                "{} as it is now (a script they run: approved with what it holds)",
                shown.display()
            ));
        }
        items
    }

    /// What a person reads when it is left out: the file, what was ignored
    /// and how to approve it.
    pub fn notice(&self) -> String {
        let root = project_root_of(&self.file);
        let kind = match &self.local {
            Some(why) => format!("local settings file, which {why},"),
            None => "project settings file".to_owned(),
        };
        format!(
            "the {} {} {}, so it is ignored: {}. The rest of the file applies. Check it, then run `tack settings approve{}` to apply it from now on (or pass --trust-project-settings for one run)",
            kind,
            self.file.display(),
            if self.changed {
                "changed since you approved it (its settings, or a script they run) and asks for what would let commands run without asking"
            } else {
                "asks for what would let commands run without asking and is not approved"
            },
            self.items().join("; "),
            root.map(|r| format!(" --cwd {}", r.display()))
                .unwrap_or_default(),
        )
    }
}

impl fmt::Display for UntrustedSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}:", self.file.display())?;
        for item in self.items() {
            writeln!(f, "  {item}")?;
        }
        Ok(())
    }
}

/// A local settings file (`.claude/settings.local.json`,
/// `.tack/settings.local.json`) is the user's word only when tack can tell
/// the user wrote it: an untracked file, owned by the user, in the user's
/// own checkout of the directory it belongs to — a git repository that
/// tracks files under that directory and whose index git wrote on this
/// machine for them ([`crate::checkout::made_here`]). Being untracked
/// alone says nothing: any repository around the file answers "untracked"
/// (a dotfiles repository at `$HOME` around `~/Downloads/x`, a monorepo
/// around an untracked `third_party/x`), and so does a `.git` an archive
/// brings (a skeleton, a whole repository, a `.git` file naming another).
/// One the repository supplies — tracked by
/// git, or reached through a link (the file or its directory) — is the
/// repository's word, as in Claude Code; and so is one whose authorship
/// cannot be established: in no git repository (a downloaded archive, a
/// release tarball, which ships it like a project file), owned by another
/// user (a shared `/tmp`), above the repository the session works in (a
/// parent directory's `.claude/`), or where git cannot answer. Such a file
/// becomes a project file, so what in it would let something run without
/// asking (hooks, a permissive mode, wide allow rules, command tools, MCP
/// servers, sandbox exceptions) waits for approval, with the same notice
/// and `tack settings approve`; what tack itself wrote there ("always
/// allow") is recorded as approved when written ([`record_own_write`]).
/// Only a file that asks for such things is checked (git is run then, with
/// its fsmonitor off, so the repository runs nothing). Returns the files
/// and, for each local file taken as a project file, why.
pub(crate) fn repository_local_as_project(
    mut files: Vec<SettingsFile>,
    root: &Path,
    cwd: Option<&Path>,
    home: Option<&Path>,
    users: &UsersOwn,
) -> (Vec<SettingsFile>, Vec<(PathBuf, String)>) {
    let mut why = Vec::new();
    for file in &mut files {
        if file.level == Level::Local
            && (split_with(file, root, home, users).is_some() || grants_more(&file.value))
            && let Some(reason) = not_the_users(&file.path, root, cwd)
        {
            file.level = Level::Project;
            why.push((file.path.clone(), reason));
        }
    }
    (files, why)
}

/// Keys a project file's own approval or reading rules cover, beside those
/// [`split`] withholds: MCP servers, the web tools' backends.
fn grants_more(value: &Value) -> bool {
    ["mcpServers", "webFetch", "webSearch"]
        .iter()
        .any(|k| value.get(*k).is_some())
}

/// Why the local file at `path` cannot be taken as the user's own (see
/// [`repository_local_as_project`]); None when it can. When git cannot say
/// (not installed, too slow, an error, no repository), the file is not the
/// user's: a checkout owned by another user, where git refuses to answer,
/// must not turn a committed file into the user's own, nor an archive's
/// file that no repository knows.
fn not_the_users(path: &Path, root: &Path, cwd: Option<&Path>) -> Option<String> {
    let is_link = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Some("tack cannot place".to_owned());
    };
    if is_link(path) || is_link(dir) {
        return Some("comes with the repository (a link)".to_owned());
    }
    let me = rustix::process::geteuid().as_raw();
    let owner = |p: &Path| {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::symlink_metadata(p).map(|m| m.uid()).ok()
    };
    if [path, dir].iter().any(|p| owner(p) != Some(me)) {
        return Some("is owned by another user".to_owned());
    }
    let repository = |from: &Path| {
        from.ancestors()
            .find(|d| d.join(".git").exists())
            .map(Path::to_path_buf)
    };
    let own = repository(dir);
    if let Some(cwd) = cwd
        && let Some(working) = repository(cwd)
        && working != root
        && working.starts_with(root)
        && own.as_deref() != Some(working.as_path())
    {
        return Some(format!(
            "lies above the git repository you work in ({})",
            working.display()
        ));
    }
    // `safe.directory` from the command line lets git answer in a checkout
    // owned by another user; `ls-files` with the file-system monitor off
    // runs nothing of the repository's own.
    let args: [&std::ffi::OsStr; 8] = [
        "-c".as_ref(),
        "safe.directory=*".as_ref(),
        "-c".as_ref(),
        "core.fsmonitor=false".as_ref(),
        "ls-files".as_ref(),
        "--error-unmatch".as_ref(),
        "--".as_ref(),
        name,
    ];
    // The system's git, never one the project puts on PATH (`bin/git` with
    // direnv, an empty PATH entry): this check keeps the repository's word
    // from applying unapproved, so it must not run the repository's code.
    let roots: Vec<&Path> = [Some(dir), project_root_of(path)]
        .into_iter()
        .flatten()
        .collect();
    let Ok(git) = tack_process::find_program("git", &roots) else {
        return Some("cannot be checked (no git outside the project to ask)".to_owned());
    };
    match tack_process::exit_status(
        git.as_os_str(),
        &args,
        dir,
        std::time::Duration::from_secs(2),
    )
    .map(|s| s.code())
    {
        Some(Some(0)) => Some("comes with the repository (tracked by git)".to_owned()),
        // `--error-unmatch`: not tracked. Untracked says nothing of who
        // wrote it unless the repository is the user's checkout of this
        // directory (see [`crate::checkout`]).
        Some(Some(1)) => match (own.as_deref(), project_root_of(path)) {
            (Some(top), Some(settings_root)) if crate::checkout::made_here(top, settings_root) => {
                None
            }
            _ => Some(format!(
                "is not in a checkout git made here of the directory it belongs to ({}: a repository around it that does not track that directory, or one that came whole, as an archive with its `.git` does)",
                own.as_deref().unwrap_or(dir).display()
            )),
        },
        _ if in_repository(dir) => {
            Some("may come with the repository (git cannot say whether it tracks it)".to_owned())
        }
        _ => Some(
            "is in no git repository (a downloaded archive ships it as a project file would)"
                .to_owned(),
        ),
    }
}

/// Whether `dir` is inside a git work tree: a repository's `.git`
/// directory (one with a `HEAD`) or a worktree's `.git` file above it.
fn in_repository(dir: &Path) -> bool {
    dir.ancestors().any(|d| {
        let git = d.join(".git");
        git.join("HEAD").is_file() || git.is_file()
    })
}

/// Records what tack itself just wrote to the local settings file
/// `write.file` (an "always allow" answer, a rule added or removed) as
/// approved, so that a local file tack cannot otherwise tell is the user's
/// (see [`repository_local_as_project`]) keeps applying what the user said
/// through tack. Only when the file was the user's word before the write —
/// it did not exist, asked for nothing that needs approval, or what it
/// asked for was approved — so a write by tack never approves what
/// someone else put in the file.
pub(crate) fn record_own_write(
    state_dir: &Path,
    root: &Path,
    home: Option<&Path>,
    write: &tack_agent::permission::LocalWrite,
) -> Result<()> {
    let split = |file: &SettingsFile, root: &Path, home: Option<&Path>| {
        split_with(file, root, home, &UsersOwn::default())
    };
    let mut approvals = Approvals::load(state_dir)?;
    let as_project = |value: Value| SettingsFile {
        level: Level::Project,
        path: write.file.clone(),
        value,
        text: String::new(),
    };
    let was_the_users = match &write.before {
        None => true,
        Some(before) => match split(&as_project(before.clone()), root, home) {
            None => true,
            Some((_, held)) => approvals.hash_of(&write.file) == Some(held.hash.as_str()),
        },
    };
    if !was_the_users {
        return Ok(());
    }
    let Ok(Some(now)) = SettingsFile::read(Level::Project, &write.file) else {
        return Ok(());
    };
    match split(&now, root, home) {
        Some((_, held)) => approvals.approve(&held),
        None => Ok(()),
    }
}

/// `<root>` of `<root>/.tack/settings.json` or `<root>/.claude/settings.json`.
fn project_root_of(file: &Path) -> Option<&Path> {
    file.parent()?.parent()
}

/// The settings files with what needs approval and has none taken out of
/// the project files, and what was taken out.
pub(crate) fn withhold(
    files: Vec<SettingsFile>,
    project_root: &Path,
    home: Option<&Path>,
    approvals: &Approvals,
    trust_project: bool,
    local: &[(PathBuf, String)],
    users: &UsersOwn,
) -> (Vec<SettingsFile>, Vec<UntrustedSettings>) {
    let mut kept = Vec::with_capacity(files.len());
    let mut unapproved = Vec::new();
    for mut file in files {
        if file.level == Level::Project
            && let Some((trusted, mut untrusted)) = split_with(&file, project_root, home, users)
            && !trust_project
        {
            match approvals.hash_of(&file.path) {
                Some(hash) if hash == untrusted.hash => {}
                previous => {
                    untrusted.changed = previous.is_some();
                    untrusted.local = local
                        .iter()
                        .find(|(p, _)| *p == file.path)
                        .map(|(_, why)| why.clone());
                    file.value = trusted;
                    unapproved.push(untrusted);
                }
            }
        }
        kept.push(file);
    }
    (kept, unapproved)
}

/// The MCP servers and command tools the user declared (user, local and
/// managed settings, the command line, `--mcp-config`): a project allow
/// rule naming one of them lets the repository act with the user's
/// credentials on the user's systems (chat, a database, a deploy), so it is
/// wide ([`tack_policy::named_in_rule`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct UsersOwn {
    servers: Vec<String>,
    tools: Vec<String>,
}

impl UsersOwn {
    /// What `files` (and the command line's `extra` documents) declare at
    /// the user's levels: every level but the project's.
    pub(crate) fn of<'a>(
        files: impl IntoIterator<Item = &'a SettingsFile>,
        extra: impl IntoIterator<Item = &'a SettingsFile>,
    ) -> Self {
        let mut own = Self::default();
        let keys = |v: &Value, key: &str| -> Vec<String> {
            v.get(key)
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default()
        };
        for file in files
            .into_iter()
            .filter(|f| f.level != Level::Project)
            .chain(extra)
        {
            own.servers.extend(keys(&file.value, "mcpServers"));
            own.tools.extend(keys(&file.value, "tools"));
        }
        own
    }

    /// Why the allow rule `rule` reaches the user's own server or tool.
    fn why(&self, rule: &str) -> Option<String> {
        match tack_policy::named_in_rule(rule)? {
            Named::Server(s) if self.servers.contains(&s) => Some(format!(
                "uses `{s}`, an MCP server of your own settings (your credentials), not the project's"
            )),
            Named::Tool(t) if self.tools.contains(&t) => Some(format!(
                "runs `{t}`, a tool of your own settings, not the project's"
            )),
            _ => None,
        }
    }
}

/// [`split_with`] as if the user declared no server or tool.
#[cfg(test)]
fn split(
    file: &SettingsFile,
    root: &Path,
    home: Option<&Path>,
) -> Option<(Value, UntrustedSettings)> {
    split_with(file, root, home, &UsersOwn::default())
}

/// The project file without what needs approval, and that part; None when
/// nothing in it needs approval.
fn split_with(
    file: &SettingsFile,
    root: &Path,
    home: Option<&Path>,
    users: &UsersOwn,
) -> Option<(Value, UntrustedSettings)> {
    let mut trusted = file.value.clone();
    let obj = trusted.as_object_mut()?;
    let mut withheld = Map::new();
    let mut untrusted = UntrustedSettings {
        file: file.path.clone(),
        changed: false,
        hooks: Vec::new(),
        disables_hooks: false,
        mode: None,
        additional_directories: Vec::new(),
        allow: Vec::new(),
        sandbox: Vec::new(),
        tools: Vec::new(),
        local: None,
        scripts: Vec::new(),
        withheld: Value::Null,
        hash: String::new(),
    };
    // `"hooks": {}` (or events without groups) runs nothing and stays.
    let commands = obj.get("hooks").map(hook_commands).unwrap_or_default();
    if !commands.is_empty()
        && let Some(hooks) = obj.remove("hooks")
    {
        untrusted.hooks = commands;
        withheld.insert("hooks".into(), hooks);
    }
    // Turning every hook off turns off the user's too (a guard that
    // blocks, a hook that ships the audit): not the repository's to say.
    if obj.get("disableAllHooks") == Some(&Value::Bool(true))
        && let Some(value) = obj.remove("disableAllHooks")
    {
        untrusted.disables_hooks = true;
        withheld.insert("disableAllHooks".into(), value);
    }
    // Declared command tools are commands tack runs, as hooks are. A
    // `tools` of another shape stays, for loading to report.
    if obj
        .get("tools")
        .and_then(Value::as_object)
        .is_some_and(|t| !t.is_empty())
        && let Some(Value::Object(tools)) = obj.remove("tools")
    {
        untrusted.tools = tools
            .iter()
            .map(|(name, decl)| DeclaredCommand {
                name: name.clone(),
                command: decl
                    .get("command")
                    .map_or_else(|| "(no command)".to_owned(), Value::to_string),
            })
            .collect();
        withheld.insert("tools".into(), Value::Object(tools));
    }
    if let Some(perms) = obj.get_mut("permissions").and_then(Value::as_object_mut) {
        let mut held = Map::new();
        let mode = perms.get("defaultMode").and_then(Value::as_str);
        if let Some(mode) = mode.and_then(|m| m.parse::<Mode>().ok())
            && mode.widens()
            && let Some(value) = perms.remove("defaultMode")
        {
            untrusted.mode = Some(mode.as_str().to_owned());
            held.insert("defaultMode".into(), value);
        }
        // A list of the wrong shape stays, for loading to report.
        if let Some(Value::Array(dirs)) = perms.get_mut("additionalDirectories") {
            let wide: Vec<Value> = take(dirs, |d| {
                d.as_str()
                    .is_some_and(|d| wide_additional_directory(d, root, home).is_some())
            });
            untrusted
                .additional_directories
                .extend(wide.iter().filter_map(Value::as_str).map(str::to_owned));
            if !wide.is_empty() {
                held.insert("additionalDirectories".into(), Value::Array(wide));
            }
        }
        if let Some(Value::Array(rules)) = perms.get_mut("allow") {
            let why = |r: &Value| {
                let text = r
                    .as_str()
                    .or_else(|| r.get("rule").and_then(Value::as_str))?;
                let why = wide_allow_rule(text, root, home).or_else(|| users.why(text))?;
                Some((text.to_owned(), why))
            };
            let wide: Vec<Value> = take(rules, |r| why(r).is_some());
            untrusted.allow.extend(
                wide.iter()
                    .filter_map(why)
                    .map(|(rule, why)| WideRule { rule, why }),
            );
            if !wide.is_empty() {
                held.insert("allow".into(), Value::Array(wide));
            }
        }
        if !held.is_empty() {
            withheld.insert("permissions".into(), Value::Object(held));
        }
    }
    if let Some(sandbox) = obj.get_mut("sandbox").and_then(Value::as_object_mut) {
        let (held, items) = withhold_sandbox(sandbox);
        if !held.is_empty() {
            untrusted.sandbox = items;
            withheld.insert("sandbox".into(), Value::Object(held));
        }
    }
    if withheld.is_empty() {
        return None;
    }
    untrusted.scripts = scripts_run(&withheld, root, home);
    untrusted.withheld = Value::Object(withheld);
    let mut hashed = canonical_json(&untrusted.withheld);
    if !untrusted.scripts.is_empty() {
        hashed.push('\n');
        hashed.push_str(&tack_policy::scripts_digest(&untrusted.scripts, root));
    }
    untrusted.hash = hash_hex(hashed.as_bytes());
    Some((trusted, untrusted))
}

/// The project's files the withheld hooks and command tools run
/// ([`tack_policy::project_scripts`]), each once, in order.
fn scripts_run(withheld: &Map<String, Value>, root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    use tack_policy::ConfiguredCommand;
    let mut scripts: Vec<PathBuf> = Vec::new();
    let mut add = |found: Vec<PathBuf>| {
        for f in found {
            if !scripts.contains(&f) {
                scripts.push(f);
            }
        }
    };
    if let Some(hooks) = withheld.get("hooks") {
        for h in hook_commands(hooks) {
            add(tack_policy::project_scripts(
                ConfiguredCommand::Shell(&h.command),
                root,
                home,
            ));
        }
    }
    if let Some(tools) = withheld.get("tools").and_then(Value::as_object) {
        for decl in tools.values() {
            let argv: Vec<String> = match decl.get("command") {
                Some(Value::Array(words)) => words
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => continue,
            };
            add(tack_policy::project_scripts(
                ConfiguredCommand::Argv(&argv),
                root,
                home,
            ));
        }
    }
    scripts
}

/// Settings of a project file's `sandbox` that widen the sandbox past what
/// the user's own settings make it: a value that turns a protection off, and
/// any entry of a list that lets commands out.
const SANDBOX_WIDENING: &[(&str, Option<&str>, Widens, &str)] = &[
    (
        "enabled",
        None,
        Widens::When(false),
        "turns the sandbox off",
    ),
    (
        "failIfUnavailable",
        None,
        Widens::When(false),
        "runs commands unsandboxed when the sandbox cannot be set up",
    ),
    (
        "allowUnsandboxedCommands",
        None,
        Widens::When(true),
        "lets a call ask to run outside the sandbox",
    ),
    (
        "autoAllowBashIfSandboxed",
        None,
        Widens::When(true),
        "runs sandboxed commands without asking",
    ),
    (
        "excludedCommands",
        None,
        Widens::Entries,
        "runs outside the sandbox",
    ),
    (
        "writableRoots",
        None,
        Widens::Entries,
        "writable by commands",
    ),
    (
        "allowedDomains",
        Some("network"),
        Widens::Entries,
        "reachable by commands",
    ),
    (
        "allowAllUnixSockets",
        Some("network"),
        Widens::When(true),
        "lets commands use any Unix socket",
    ),
    (
        "allowWrite",
        Some("filesystem"),
        Widens::Entries,
        "writable by commands",
    ),
    (
        "writableRoots",
        Some("filesystem"),
        Widens::Entries,
        "writable by commands",
    ),
];

#[derive(Clone, Copy)]
enum Widens {
    /// This boolean value.
    When(bool),
    /// A non-empty list (one of another shape stays, for loading to report).
    Entries,
}

/// Takes what widens out of a project file's `sandbox` object: what was
/// taken (in the same shape) and one item per setting for a person.
fn withhold_sandbox(sandbox: &mut Map<String, Value>) -> (Map<String, Value>, Vec<String>) {
    let mut held = Map::new();
    let mut items = Vec::new();
    for &(key, parent, widens, what) in SANDBOX_WIDENING {
        let section = match parent {
            None => Some(&mut *sandbox),
            Some(p) => sandbox.get_mut(p).and_then(Value::as_object_mut),
        };
        let Some(section) = section else { continue };
        let wide = match (widens, section.get(key)) {
            (Widens::When(b), Some(Value::Bool(v))) => *v == b,
            (Widens::Entries, Some(Value::Array(list))) => !list.is_empty(),
            _ => false,
        };
        let Some(value) = wide.then(|| section.remove(key)).flatten() else {
            continue;
        };
        let name = match parent {
            Some(p) => format!("sandbox.{p}.{key}"),
            None => format!("sandbox.{key}"),
        };
        match &value {
            Value::Array(list) => {
                for entry in list {
                    let entry = entry
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| entry.to_string());
                    items.push(format!("{name} {entry} ({what})"));
                }
            }
            other => items.push(format!("{name}: {other} ({what})")),
        }
        let slot = match parent {
            None => &mut held,
            Some(p) => match held
                .entry(p)
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
            {
                Some(m) => m,
                None => continue,
            },
        };
        slot.insert(key.to_owned(), value);
    }
    (held, items)
}

/// Removes the items `wide` says yes to, in order, and returns them.
fn take(items: &mut Vec<Value>, wide: impl Fn(&Value) -> bool) -> Vec<Value> {
    let (out, keep): (Vec<Value>, Vec<Value>) = std::mem::take(items).into_iter().partition(wide);
    *items = keep;
    out
}

/// The commands of a `hooks` section, as far as it has the expected shape
/// (a section of another shape is shown whole).
fn hook_commands(hooks: &Value) -> Vec<HookCommand> {
    let mut out = Vec::new();
    let Some(events) = hooks.as_object() else {
        return vec![HookCommand {
            event: "hooks".into(),
            matcher: None,
            command: hooks.to_string(),
        }];
    };
    for (event, groups) in events {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .map(str::to_owned);
            for hook in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let command = match hook.get("command").and_then(Value::as_str) {
                    Some(c) => c.to_owned(),
                    None => hook.to_string(),
                };
                out.push(HookCommand {
                    event: event.clone(),
                    matcher: matcher.clone(),
                    command,
                });
            }
        }
        if groups.as_array().is_none() {
            out.push(HookCommand {
                event: event.clone(),
                matcher: None,
                command: groups.to_string(),
            });
        }
    }
    out
}

/// JSON with every object's keys sorted: the same value hashes the same
/// however its file orders it.
fn canonical_json(value: &Value) -> String {
    fn sort(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let sorted: BTreeMap<&String, Value> =
                    map.iter().map(|(k, v)| (k, sort(v))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

/// sha256, the first 16 bytes in hex (as tack-mcp's approvals).
fn hash_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    sha2::Sha256::digest(bytes)[..16]
        .iter()
        .fold(String::with_capacity(32), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ApprovalsFile {
    /// By the settings file's absolute path.
    #[serde(default)]
    files: BTreeMap<PathBuf, Approval>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Approval {
    /// The hash of what was approved ([`UntrustedSettings::hash`]).
    hash: String,
}

/// The project settings the user approved, in
/// `<state_dir>/settings-approvals.json`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Approvals {
    path: Option<PathBuf>,
    file: ApprovalsFile,
}

impl Approvals {
    /// Nothing approved, nowhere to record (settings loaded without a state
    /// directory).
    pub(crate) fn none() -> Self {
        Self::default()
    }

    /// Loads `<state_dir>/settings-approvals.json` (missing: nothing approved).
    pub(crate) fn load(state_dir: &Path) -> Result<Self> {
        let path = state_dir.join(APPROVALS_FILE);
        let file = read(&path)?;
        Ok(Self {
            path: Some(path),
            file,
        })
    }

    fn hash_of(&self, file: &Path) -> Option<&str> {
        self.file.files.get(file).map(|a| a.hash.as_str())
    }

    /// Records the approval of `settings` (as it was shown), and saves.
    pub(crate) fn approve(&mut self, settings: &UntrustedSettings) -> Result<()> {
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        // Merge with what another tack process may have written meanwhile.
        let mut latest = read(&path)?;
        latest.files.insert(
            settings.file.clone(),
            Approval {
                hash: settings.hash.clone(),
            },
        );
        write(&path, &latest)?;
        self.file = latest;
        Ok(())
    }
}

fn read(path: &Path) -> Result<ApprovalsFile> {
    let error = |source| Error::Approvals {
        path: path.to_owned(),
        source,
    };
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| error(std::io::Error::new(std::io::ErrorKind::InvalidData, e))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ApprovalsFile::default()),
        Err(e) => Err(error(e)),
    }
}

/// Written atomically (temp file + rename).
fn write(path: &Path, value: &ApprovalsFile) -> Result<()> {
    let error = |source| Error::Approvals {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(error)?;
    }
    let bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| error(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(error)?;
    std::fs::rename(&tmp, path).map_err(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(value: Value) -> SettingsFile {
        SettingsFile {
            level: Level::Project,
            path: PathBuf::from("/p/.tack/settings.json"),
            value,
            text: String::new(),
        }
    }

    #[test]
    fn a_project_files_command_tools_wait_for_approval() {
        let f = file(json!({
            "tools": {"deploy": {"description": "x", "command": ["./deploy.sh", "{env}"]}},
            "permissions": {"allow": ["deploy"]}
        }));
        let (trusted, untrusted) = split(&f, Path::new("/p"), None).unwrap();
        assert_eq!(trusted, json!({"permissions": {"allow": ["deploy"]}}));
        assert_eq!(untrusted.tools[0].name, "deploy");
        assert_eq!(
            untrusted.items(),
            [r#"tool deploy runs ["./deploy.sh","{env}"]"#]
        );
        // An empty or misshapen section declares nothing and stays.
        assert!(split(&file(json!({"tools": {}})), Path::new("/p"), None).is_none());
        assert!(split(&file(json!({"tools": []})), Path::new("/p"), None).is_none());
    }

    #[test]
    fn only_what_widens_is_withheld_and_the_hash_ignores_key_order() {
        let f = file(json!({
            "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch x"}]}]},
            "permissions": {
                "defaultMode": "bypassPermissions",
                "allow": ["Bash", "Bash(npm run test *)", {"rule": "Read(//**)"}],
                "deny": ["Bash(rm *)"],
                "additionalDirectories": ["/", "docs"]
            },
            "outputBudget": {"default": 100}
        }));
        let (trusted, untrusted) = split(&f, Path::new("/p"), None).unwrap();
        assert_eq!(
            trusted,
            json!({
                "permissions": {
                    "allow": ["Bash(npm run test *)"],
                    "deny": ["Bash(rm *)"],
                    "additionalDirectories": ["docs"]
                },
                "outputBudget": {"default": 100}
            })
        );
        assert_eq!(untrusted.mode.as_deref(), Some("bypassPermissions"));
        assert_eq!(untrusted.additional_directories, ["/"]);
        assert_eq!(untrusted.hooks[0].command, "touch x");
        let rules: Vec<&str> = untrusted.allow.iter().map(|r| r.rule.as_str()).collect();
        assert_eq!(rules, ["Bash", "Read(//**)"]);

        let reordered = file(json!({
            "permissions": {
                "additionalDirectories": ["docs", "/"],
                "allow": [{"rule": "Read(//**)"}, "Bash(npm run test *)", "Bash"],
                "defaultMode": "bypassPermissions"
            },
            "hooks": {"SessionStart": [{"hooks": [{"command": "touch x", "type": "command"}]}]}
        }));
        let (_, again) = split(&reordered, Path::new("/p"), None).unwrap();
        assert_ne!(again.hash, untrusted.hash, "the order of rules is kept");
        let same = file(json!({
            "permissions": {
                "allow": ["Bash", "Bash(npm run test *)", {"rule": "Read(//**)"}],
                "additionalDirectories": ["/", "docs"],
                "defaultMode": "bypassPermissions"
            },
            "hooks": {"SessionStart": [{"hooks": [{"command": "touch x", "type": "command"}]}]}
        }));
        let (_, same) = split(&same, Path::new("/p"), None).unwrap();
        assert_eq!(same.hash, untrusted.hash, "keys are sorted");
    }

    #[test]
    fn a_file_that_only_restricts_needs_no_approval() {
        let f = file(json!({"permissions": {
            "defaultMode": "plan",
            "allow": ["Bash(git status)"],
            "ask": ["Bash"],
            "deny": ["Read(//**)"]
        }, "disableAllHooks": false, "hooks": {"PreToolUse": []}}));
        assert!(split(&f, Path::new("/p"), None).is_none());
    }

    /// Tenth red-team round (finding 3): a project file's
    /// `"disableAllHooks": true` turned off the user's own hooks, unapproved.
    #[test]
    fn turning_every_hook_off_waits_for_approval() {
        let f = file(json!({"disableAllHooks": true, "permissions": {"deny": ["Bash(rm *)"]}}));
        let (trusted, untrusted) = split(&f, Path::new("/p"), None).unwrap();
        assert_eq!(trusted, json!({"permissions": {"deny": ["Bash(rm *)"]}}));
        assert!(untrusted.disables_hooks);
        assert_eq!(
            untrusted.items(),
            ["disableAllHooks: true (turns off your own hooks too)"]
        );
    }

    #[test]
    fn a_project_sandbox_may_restrict_and_may_not_widen() {
        let f = file(json!({"sandbox": {
            "enabled": false,
            "failIfUnavailable": false,
            "autoAllowBashIfSandboxed": true,
            "allowUnsandboxedCommands": true,
            "excludedCommands": ["docker:*"],
            "writableRoots": ["~/.cache"],
            "network": {"allowedDomains": ["*"], "deniedDomains": ["evil.example"], "allowAllUnixSockets": true},
            "filesystem": {"allowWrite": ["/"], "denyWrite": ["./infra"], "denyRead": ["~/.aws"]}
        }}));
        let (trusted, untrusted) = split(&f, Path::new("/p"), None).unwrap();
        assert_eq!(
            trusted,
            json!({"sandbox": {
                "network": {"deniedDomains": ["evil.example"]},
                "filesystem": {"denyWrite": ["./infra"], "denyRead": ["~/.aws"]}
            }})
        );
        let items = untrusted.items();
        for expected in [
            "sandbox.enabled: false (turns the sandbox off)",
            "sandbox.excludedCommands docker:* (runs outside the sandbox)",
            "sandbox.network.allowedDomains * (reachable by commands)",
            "sandbox.filesystem.allowWrite / (writable by commands)",
        ] {
            assert!(
                items.iter().any(|i| i == expected),
                "{expected} in {items:?}"
            );
        }
        assert_eq!(untrusted.sandbox.len(), 9, "{items:?}");
        // What restricts needs no approval.
        let f = file(json!({"sandbox": {
            "enabled": true, "failIfUnavailable": true, "autoAllowBashIfSandboxed": false,
            "allowUnsandboxedCommands": false, "excludedCommands": [],
            "network": {"deniedDomains": ["x.com"], "allowAllUnixSockets": false},
            "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": []}
        }}));
        assert!(split(&f, Path::new("/p"), None).is_none());
    }

    /// Sixth red-team round (cause C): what tack itself writes to a local
    /// file it cannot otherwise tell is the user's (no repository here)
    /// keeps applying; a write by tack to a file someone else filled
    /// approves nothing.
    #[test]
    fn what_tack_writes_to_a_local_file_stays_the_users() {
        let dir = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let root = dir.path();
        let file = root.join(".tack/settings.local.json");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let load = |value: &Value| {
            std::fs::write(&file, value.to_string()).unwrap();
            let read = SettingsFile::read(Level::Local, &file).unwrap().unwrap();
            let users = UsersOwn::default();
            let (files, why) =
                repository_local_as_project(vec![read], root, Some(root), None, &users);
            let approvals = Approvals::load(state.path()).unwrap();
            withhold(files, root, None, &approvals, false, &why, &users).1
        };
        let wide = json!({"permissions": {"allow": ["Bash(python3 *)"]}});
        let held = load(&wide);
        assert_eq!(held.len(), 1, "no repository: not the user's");
        assert!(
            held[0].notice().contains("in no git repository"),
            "{}",
            held[0].notice()
        );
        // tack wrote it (an "always allow" into a file that did not exist).
        let write = tack_agent::permission::LocalWrite {
            file: file.clone(),
            before: None,
        };
        record_own_write(state.path(), root, None, &write).unwrap();
        assert!(load(&wide).is_empty());
        // tack adds a rule to a file with hooks it did not write: nothing of
        // it is approved.
        let planted = json!({"hooks": {"SessionStart": [{"hooks": [{"command": "touch x"}]}]},
            "permissions": {"allow": ["Bash(python3 *)"]}});
        std::fs::write(&file, planted.to_string()).unwrap();
        let mut after = planted.clone();
        after["permissions"]["allow"] = json!(["Bash(python3 *)", "Bash(node *)"]);
        std::fs::write(&file, after.to_string()).unwrap();
        let write = tack_agent::permission::LocalWrite {
            file: file.clone(),
            before: Some(planted),
        };
        record_own_write(state.path(), root, None, &write).unwrap();
        assert_eq!(load(&after).len(), 1);
    }

    /// Tenth red-team round (finding 4): a project allow rule granted the
    /// user's own MCP servers and declared tools, unapproved.
    #[test]
    fn a_project_rule_naming_the_users_own_server_or_tool_waits_for_approval() {
        let user = SettingsFile {
            level: Level::User,
            path: PathBuf::from("/home/u/.config/tack/settings.json"),
            value: json!({"mcpServers": {"slack": {"command": "x"}},
                "tools": {"deploy": {"command": ["touch", "x"]}}}),
            text: String::new(),
        };
        let users = UsersOwn::of([&user], []);
        for wide in [
            "mcp__slack",
            "mcp__slack__post_message",
            "mcp__slack__*",
            "deploy",
            "deploy(touch *)",
        ] {
            let f = file(json!({"permissions": {"allow": [wide]}}));
            let held = split_with(&f, Path::new("/p"), None, &users);
            assert!(held.is_some(), "{wide}");
        }
        for narrow in [
            "mcp__db",
            "mcp__db__query",
            "lint",
            "TodoWrite",
            "Bash(git status)",
        ] {
            let f = file(json!({"permissions": {"allow": [narrow]}}));
            assert!(
                split_with(&f, Path::new("/p"), None, &users).is_none(),
                "{narrow}"
            );
        }
        // The project's own servers are the project's to allow.
        let project = file(json!({"mcpServers": {"db": {"command": "x"}}}));
        let users = UsersOwn::of([&project], []);
        let f = file(json!({"permissions": {"allow": ["mcp__db"]}}));
        assert!(split_with(&f, Path::new("/p"), None, &users).is_none());
    }

    #[test]
    fn hooks_of_another_shape_are_withheld_and_shown_whole() {
        let f = file(json!({"hooks": {"PreToolUse": "touch x"}}));
        let (trusted, untrusted) = split(&f, Path::new("/p"), None).unwrap();
        assert_eq!(trusted, json!({}));
        assert_eq!(untrusted.hooks[0].command, "\"touch x\"");
        let f = file(json!({"hooks": "touch x"}));
        assert!(split(&f, Path::new("/p"), None).is_some());
    }
}
