//! The compiled policy: rules parsed and indexed once at load (Bash rules
//! by their first word, path rules as one glob set per tool and list,
//! domains by host), so a decision with a thousand rules stays in
//! microseconds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use globset::{Candidate, GlobBuilder, GlobSet, GlobSetBuilder};
use tack_protocol::Verdict;

use crate::entry::{ManagedRulesOnly, RuleEntry};
use crate::error::{Error, Result};
use crate::git_protected::GitEnvironment;
use crate::mode::Mode;
use crate::paths::{self, Resolution, ResolvedPath};
use crate::request::McpOrigin;
use crate::rule::{self, Anchor, Level, PathSpec, Source, Target};
use crate::shell::{self, Item};
use crate::spelling::{Meets, RuleShape, Shape};

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule text as written.
    pub text: String,
    /// Its list.
    pub kind: Verdict,
    /// Where it was written.
    pub source: Source,
    pub(crate) target: Target,
    /// For path rules: the rule's own globs (examples are checked with it).
    globs: Option<GlobSet>,
}

/// Rules of one list, indexed.
#[derive(Debug, Clone, Default)]
pub(crate) struct KindIndex {
    /// Tool name → first rule without specifier.
    pub tools: HashMap<String, usize>,
    /// First word → Bash rules (ascending).
    pub bash_keyed: HashMap<String, Vec<usize>>,
    /// Bash rules whose first word has a `*` (ascending).
    pub bash_wild: Vec<usize>,
    /// Deny and ask Bash rules read as their program reads a command
    /// line, by the program as written (ascending; see [`crate::spelling`]).
    pub bash_shapes: HashMap<String, Vec<(usize, RuleShape)>>,
    /// Tool as written in the rule (`Read`, `Edit`, `Write`, …) → path rules.
    pub paths: HashMap<String, PathIndex>,
    /// Host → first exact domain rule.
    pub domains_exact: HashMap<String, usize>,
    /// `*.host` domain rules (ascending).
    pub domains_wild: Vec<usize>,
    /// MCP rules (ascending).
    pub mcp: Vec<usize>,
    /// `Skill(…)` rules (ascending).
    pub skills: Vec<usize>,
    /// `Agent(…)` and `Task(…)` rules (ascending).
    pub agents: Vec<usize>,
    /// Command tool → its `NAME(pattern)` rules (ascending).
    pub commands: HashMap<String, Vec<usize>>,
    /// Deny and ask command-tool rules read as their program reads a
    /// command line, by rule (see [`crate::spelling`]).
    pub command_shapes: HashMap<usize, RuleShape>,
}

/// One glob set and the rule each glob belongs to.
#[derive(Debug, Clone)]
pub(crate) struct PathIndex {
    set: GlobSet,
    owners: Vec<usize>,
    /// Each pattern's literal leading directories (what it can match lies
    /// below them), and its rule.
    prefixes: Vec<(PathBuf, usize)>,
}

/// A compiled permission policy: rules from every level, the mode, and the
/// directories the session works in. Build it with [`crate::Settings::load`]
/// or [`PolicyBuilder`].
#[derive(Debug, Clone)]
pub struct Policy {
    pub(crate) rules: Vec<Rule>,
    pub(crate) mode: Mode,
    pub(crate) mode_source: Source,
    pub(crate) cwd: ResolvedPath,
    pub(crate) project_root: ResolvedPath,
    pub(crate) additional: Vec<ResolvedPath>,
    pub(crate) home: Option<ResolvedPath>,
    pub(crate) resolution: Resolution,
    /// `allowManagedPermissionRulesOnly` in force (the other rules were left
    /// out before building).
    pub(crate) managed_rules_only: Option<ManagedRulesOnly>,
    /// tack's (and Claude Code's) own directories where the environment
    /// moves them: protected paths (see [`crate::safeguard`]).
    pub(crate) own_dirs: Vec<ResolvedPath>,
    /// The hooks directories git is configured to run (`core.hooksPath`)
    /// and the files it reads its configuration from: protected paths (see
    /// [`crate::git_protected`]).
    pub(crate) git: std::sync::Arc<crate::git_protected::GitProtection>,
    /// The files tack runs later on its configuration's word (a hook's
    /// script, an MCP server's program, a script a Bash allow rule names),
    /// each with who runs it: protected paths (see [`crate::runs_later`]).
    pub(crate) runs_later: Vec<RunsLater>,
    /// Indexed by `Verdict as usize`: allow, ask, deny.
    pub(crate) index: [KindIndex; 3],
}

pub(crate) fn slot(kind: Verdict) -> usize {
    match kind {
        Verdict::Allow => 0,
        Verdict::Ask => 1,
        Verdict::Deny => 2,
    }
}

/// A file (or everything under a directory) tack runs later on its
/// configuration's word, and who runs it (see [`crate::runs_later`]).
#[derive(Debug, Clone)]
pub(crate) struct RunsLater {
    pub path: ResolvedPath,
    /// Who runs it or why tack reads it, as shown: `run by a hook`.
    pub by: String,
    pub dir: bool,
}

/// Builds a [`Policy`] from rules given in code (tests, embedders) or by
/// [`crate::Settings`].
#[derive(Debug, Clone)]
pub struct PolicyBuilder {
    cwd: PathBuf,
    project_root: Option<PathBuf>,
    home: Option<PathBuf>,
    mode: Mode,
    mode_source: Source,
    additional: Vec<PathBuf>,
    entries: Vec<RuleEntry>,
    resolution: Resolution,
    managed_rules_only: Option<ManagedRulesOnly>,
    own_dirs: Vec<PathBuf>,
    runs_later: Vec<crate::runs_later::RunFile>,
    git_environment: GitEnvironment,
}

/// Where the environment puts tack's state and configuration and Claude
/// Code's configuration (`TACK_STATE_DIR`, `XDG_STATE_HOME/tack`,
/// `TACK_CONFIG_DIR`, `XDG_CONFIG_HOME/tack`, `CLAUDE_CONFIG_DIR`).
fn own_dirs_from_env() -> Vec<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    [
        var("TACK_STATE_DIR"),
        var("XDG_STATE_HOME").map(|d| d.join("tack")),
        var("TACK_CONFIG_DIR"),
        var("XDG_CONFIG_HOME").map(|d| d.join("tack")),
        var("CLAUDE_CONFIG_DIR"),
    ]
    .into_iter()
    .flatten()
    .filter(|d| d.is_absolute())
    .collect()
}

impl PolicyBuilder {
    /// A policy for a session working in `cwd` (also the project root unless
    /// set), default mode, no rules, home from `$HOME`.
    pub fn new(cwd: impl Into<PathBuf>) -> PolicyBuilder {
        PolicyBuilder {
            cwd: cwd.into(),
            project_root: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            mode: Mode::Default,
            mode_source: Source::code(),
            additional: Vec::new(),
            entries: Vec::new(),
            resolution: Resolution::FileSystem,
            managed_rules_only: None,
            own_dirs: own_dirs_from_env(),
            runs_later: Vec::new(),
            git_environment: GitEnvironment::from_process(),
        }
    }

    /// Where git finds its configuration (`XDG_CONFIG_HOME`,
    /// `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_COUNT`, …),
    /// for the hooks directory it runs and the files it reads, both
    /// protected (from the process's environment unless set).
    pub fn git_environment(mut self, env: GitEnvironment) -> PolicyBuilder {
        self.git_environment = env;
        self
    }

    /// The files the configuration has tack run later (found by
    /// [`crate::runs_later::from_settings`]): protected paths.
    pub(crate) fn runs_later(mut self, files: Vec<crate::runs_later::RunFile>) -> PolicyBuilder {
        self.runs_later = files;
        self
    }

    /// tack's own directories, protected wherever they are (from the
    /// environment unless set: `TACK_STATE_DIR`, `TACK_CONFIG_DIR`, …).
    pub fn own_dirs(mut self, dirs: Vec<PathBuf>) -> PolicyBuilder {
        self.own_dirs = dirs;
        self
    }

    /// The project root (`/path` rules are relative to it).
    pub fn project_root(mut self, root: impl Into<PathBuf>) -> PolicyBuilder {
        self.project_root = Some(root.into());
        self
    }

    /// The home directory for `~/` (None: no home; `~` rules never match).
    pub fn home(mut self, home: Option<PathBuf>) -> PolicyBuilder {
        self.home = home;
        self
    }

    /// The permission mode (source: built-in configuration).
    pub fn mode(self, mode: Mode) -> PolicyBuilder {
        self.mode_from(mode, Source::code())
    }

    /// The permission mode and where it was set.
    pub fn mode_from(mut self, mode: Mode, source: Source) -> PolicyBuilder {
        self.mode = mode;
        self.mode_source = source;
        self
    }

    /// Another working directory (`additionalDirectories`, `--add-dir`).
    pub fn additional_directory(mut self, dir: impl Into<PathBuf>) -> PolicyBuilder {
        self.additional.push(dir.into());
        self
    }

    /// Add a rule with its source and examples.
    pub fn rule(mut self, entry: RuleEntry) -> PolicyBuilder {
        self.entries.push(entry);
        self
    }

    /// Add an allow rule written in code.
    pub fn allow(self, rule: &str) -> PolicyBuilder {
        self.rule(RuleEntry::new(rule, Verdict::Allow, Source::code()))
    }

    /// Add an ask rule written in code.
    pub fn ask(self, rule: &str) -> PolicyBuilder {
        self.rule(RuleEntry::new(rule, Verdict::Ask, Source::code()))
    }

    /// Add a deny rule written in code.
    pub fn deny(self, rule: &str) -> PolicyBuilder {
        self.rule(RuleEntry::new(rule, Verdict::Deny, Source::code()))
    }

    /// Record that only managed rules count (the caller left the others
    /// out): decisions then suggest no allow rules and say why.
    pub(crate) fn managed_rules_only(mut self, m: Option<ManagedRulesOnly>) -> PolicyBuilder {
        self.managed_rules_only = m;
        self
    }

    /// Do not touch the file system (no symlink resolution) when compiling
    /// rule directories; for pure tests.
    pub fn lexical_only(mut self) -> PolicyBuilder {
        self.resolution = Resolution::Lexical;
        self
    }

    /// Check and compile every rule and example.
    pub fn build(self) -> Result<Policy> {
        let how = self.resolution;
        let dir = |p: &Path| -> ResolvedPath {
            paths::resolve(p, Path::new("/"), how).unwrap_or_else(|_| ResolvedPath {
                lexical: paths::lexical(p, Path::new("/")),
                canonical: paths::lexical(p, Path::new("/")),
            })
        };
        let cwd = dir(&self.cwd);
        let project_root = self
            .project_root
            .as_deref()
            .map(dir)
            .unwrap_or_else(|| cwd.clone());
        let home = self.home.as_deref().map(dir);
        let additional: Vec<ResolvedPath> = self
            .additional
            .iter()
            .map(|d| dir(&paths::lexical(d, &cwd.lexical)))
            .collect();

        // Report the strongest level first: managed, command line, local,
        // project, user.
        let mut entries = self.entries;
        entries.sort_by_key(|e| std::cmp::Reverse(e.source.level));

        let mut rules = Vec::with_capacity(entries.len());
        let mut globs: [HashMap<String, Vec<(String, usize)>>; 3] = Default::default();
        let mut index: [KindIndex; 3] = Default::default();
        for (i, e) in entries.iter().enumerate() {
            let target = rule::parse_rule(&e.text).map_err(|problem| Error::Rule {
                origin: e.origin(),
                rule: e.text.clone(),
                problem,
            })?;
            let k = slot(e.kind);
            let mut own_globs = None;
            match &target {
                Target::Tool(name) => {
                    index[k].tools.entry(name.clone()).or_insert(i);
                }
                Target::Bash(p) => {
                    match &p.key {
                        Some(key) => index[k].bash_keyed.entry(key.clone()).or_default().push(i),
                        None => index[k].bash_wild.push(i),
                    }
                    if e.kind != Verdict::Allow
                        && let Some(shape) = RuleShape::new(&p.text)
                    {
                        index[k]
                            .bash_shapes
                            .entry(shape.program().to_string())
                            .or_default()
                            .push((i, shape));
                    }
                }
                Target::Path { tool, pattern } => {
                    let here = relative_base(e.source.level, &cwd, &project_root);
                    let strs = glob_strings(pattern, here, &project_root, home.as_ref(), how);
                    let mut b = GlobSetBuilder::new();
                    for s in &strs {
                        for g in compile_glob_and_inside(s).map_err(|problem| Error::Rule {
                            origin: e.origin(),
                            rule: e.text.clone(),
                            problem,
                        })? {
                            b.add(g);
                        }
                    }
                    own_globs = Some(b.build().map_err(|err| Error::Rule {
                        origin: e.origin(),
                        rule: e.text.clone(),
                        problem: err.to_string(),
                    })?);
                    // A `Write(…)` deny or ask rule says the place is not to
                    // be written: it holds for every writer, as an `Edit(…)`
                    // rule does (an allow stays the Write tool's).
                    if e.kind != Verdict::Allow && tool == "Write" {
                        let edit = globs[k].entry("Edit".to_owned()).or_default();
                        edit.extend(strs.iter().map(|s| (s.clone(), i)));
                    }
                    let entry = globs[k].entry(tool.clone()).or_default();
                    entry.extend(strs.into_iter().map(|s| (s, i)));
                }
                Target::Domain(d) => {
                    if d.subdomains {
                        index[k].domains_wild.push(i);
                    } else {
                        index[k].domains_exact.entry(d.host.clone()).or_insert(i);
                    }
                }
                Target::Mcp { .. } => index[k].mcp.push(i),
                Target::Skill(_) => index[k].skills.push(i),
                Target::Agent(_) => index[k].agents.push(i),
                Target::Command { tool, pattern } => {
                    index[k].commands.entry(tool.clone()).or_default().push(i);
                    if e.kind != Verdict::Allow
                        && let Some(shape) = RuleShape::new(&pattern.text)
                    {
                        index[k].command_shapes.insert(i, shape);
                    }
                }
            }
            rules.push(Rule {
                text: e.text.clone(),
                kind: e.kind,
                source: e.source.clone(),
                target,
                globs: own_globs,
            });
        }
        for (k, by_tool) in globs.into_iter().enumerate() {
            for (tool, list) in by_tool {
                let mut b = GlobSetBuilder::new();
                let mut owners = Vec::with_capacity(list.len());
                let mut prefixes = Vec::with_capacity(list.len());
                for (s, owner) in list {
                    // Compiled once above already; cannot fail here.
                    if let Ok(both) = compile_glob_and_inside(&s) {
                        for g in both {
                            b.add(g);
                            owners.push(owner);
                        }
                        prefixes.push((literal_prefix(&s), owner));
                    }
                }
                let set = b.build().map_err(|err| Error::Settings {
                    origin: "path rules".into(),
                    problem: err.to_string(),
                })?;
                index[k].paths.insert(
                    tool,
                    PathIndex {
                        set,
                        owners,
                        prefixes,
                    },
                );
            }
        }

        let working: Vec<&Path> = [&cwd, &project_root]
            .into_iter()
            .chain(&additional)
            .map(|d| d.canonical.as_path())
            .collect();
        let git = crate::git_protected::GitProtection::new(
            &self.git_environment,
            home.as_ref().map(|h| h.lexical.as_path()),
            &working,
            how,
        );
        let mut runs_later: Vec<RunsLater> = Vec::new();
        if how == Resolution::FileSystem {
            let from_rules = rules.iter().filter_map(|r| match (&r.kind, &r.target) {
                (Verdict::Allow, Target::Bash(p)) => Some((
                    crate::runs_later::from_rule(&p.text, &cwd.lexical, &project_root.lexical),
                    format!("run by the allow rule {}", r.text),
                    false,
                )),
                _ => None,
            });
            let given = self.runs_later.iter().map(|f| {
                let by = if f.config {
                    f.by.clone()
                } else {
                    format!("run by {}", f.by)
                };
                (vec![f.path.clone()], by, f.dir)
            });
            for (paths, by, is_dir) in given.chain(from_rules) {
                for p in paths {
                    let path = dir(&p);
                    if !runs_later
                        .iter()
                        .any(|r| r.path.canonical == path.canonical)
                    {
                        runs_later.push(RunsLater {
                            path,
                            by: by.clone(),
                            dir: is_dir,
                        });
                    }
                }
            }
        }
        if how == Resolution::FileSystem
            && (rules.iter().any(|r| {
                r.kind != Verdict::Allow
                    && matches!(&r.target, Target::Path { tool, .. } if tool == "Read")
            }))
            && let Some(worktree) = crate::git_index::worktree_of(&project_root.canonical)
        {
            // What git tracks when the session starts (see
            // `git_index::tracked`).
            crate::git_index::tracked(worktree);
        }
        let policy = Policy {
            rules,
            mode: self.mode,
            mode_source: self.mode_source,
            cwd,
            project_root,
            additional,
            home,
            resolution: how,
            managed_rules_only: self.managed_rules_only,
            own_dirs: self.own_dirs.iter().map(|d| dir(d)).collect(),
            git: std::sync::Arc::new(git),
            runs_later,
            index,
        };
        for (i, e) in entries.iter().enumerate() {
            policy.check_examples(i, e)?;
        }
        Ok(policy)
    }
}

/// What `./path` and `path` in a rule are relative to: the project root
/// for a rule of a project or local settings file (the directory Claude Code
/// is started in for that file to apply, so the rule means what it means
/// there, from any directory below), the working directory for every other
/// level (user and managed settings, the command line, code).
pub(crate) fn relative_base<'a>(
    level: Level,
    cwd: &'a ResolvedPath,
    project_root: &'a ResolvedPath,
) -> &'a ResolvedPath {
    match level {
        Level::Project | Level::Local => project_root,
        _ => cwd,
    }
}

/// A path pattern, and the same pattern for everything inside what it
/// matches (`P/**`): a rule for a directory covers its contents, and a path
/// is matched once, not once for each of its ancestors (which is quadratic
/// in a long path: 30,000 components took 1.8 s).
fn compile_glob_and_inside(s: &str) -> std::result::Result<[globset::Glob; 2], String> {
    let inside = if s.ends_with('/') {
        format!("{s}**")
    } else {
        format!("{s}/**")
    };
    Ok([compile_glob(s)?, compile_glob(&inside)?])
}

fn compile_glob(s: &str) -> std::result::Result<globset::Glob, String> {
    GlobBuilder::new(s)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| format!("bad path pattern: {e}"))
}

/// The literal leading directories of an absolute glob made by
/// [`glob_strings`] (escaped meta-characters are `[c]`).
pub(crate) fn literal_prefix(glob: &str) -> PathBuf {
    let mut prefix = PathBuf::from("/");
    for component in glob.split('/').filter(|c| !c.is_empty()) {
        let mut plain = String::new();
        let chars: Vec<char> = component.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '[' if chars.get(i + 2) == Some(&']') => {
                    plain.push(chars[i + 1]);
                    i += 3;
                }
                '*' | '?' | '[' | '{' | '\\' => return prefix,
                c => {
                    plain.push(c);
                    i += 1;
                }
            }
        }
        prefix.push(plain);
    }
    prefix
}

fn has_meta(component: &str) -> bool {
    component.contains(['*', '?', '[', '{', '\\'])
}

/// The absolute globs for a path pattern: its literal leading directories
/// resolved (lexically and through symlinks), the rest appended.
pub(crate) fn glob_strings(
    spec: &PathSpec,
    cwd: &ResolvedPath,
    root: &ResolvedPath,
    home: Option<&ResolvedPath>,
    how: Resolution,
) -> Vec<String> {
    let slash = ResolvedPath {
        lexical: PathBuf::from("/"),
        canonical: PathBuf::from("/"),
    };
    let base = match spec.anchor {
        Anchor::Absolute => &slash,
        Anchor::Root => root,
        Anchor::Cwd => cwd,
        Anchor::Home => match home {
            Some(h) => h,
            None => return Vec::new(),
        },
    };
    let components: Vec<&str> = spec.rest.split('/').filter(|c| !c.is_empty()).collect();
    let literal_len = if spec.any_depth {
        0
    } else {
        components.iter().take_while(|c| !has_meta(c)).count()
    };
    let literal: PathBuf = components[..literal_len].iter().collect();
    let rest: Vec<&str> = components[literal_len..].to_vec();
    let mut prefixes: Vec<PathBuf> = Vec::new();
    for b in base.forms() {
        let lexical = paths::lexical(&literal, b);
        if let Ok(p) = paths::resolve(&literal, b, how)
            && !prefixes.contains(&p.canonical)
        {
            prefixes.push(p.canonical);
        }
        if !prefixes.contains(&lexical) {
            prefixes.push(lexical);
        }
    }
    prefixes
        .into_iter()
        .map(|prefix| {
            let mut s = globset::escape(&prefix.to_string_lossy());
            if s.ends_with('/') {
                s.pop();
            }
            if spec.any_depth {
                s.push_str("/**");
            }
            for c in &rest {
                s.push('/');
                s.push_str(c);
            }
            if s.is_empty() {
                s.push('/');
            }
            s
        })
        .collect()
}

/// Which forms of a path a check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Forms {
    /// The canonical path only (allow rules: a symlink must not lead out).
    Canonical,
    /// Lexical and canonical (deny and ask rules: neither may be reached).
    Both,
}

impl Policy {
    /// The permission mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Where the mode in force was set.
    pub fn mode_source(&self) -> &Source {
        &self.mode_source
    }

    /// Changes the mode (a person switching it during a session). The rules
    /// are unchanged: a deny rule still denies in every mode.
    pub fn set_mode(&mut self, mode: Mode, source: Source) {
        self.mode = mode;
        self.mode_source = source;
    }

    /// Whether only managed rules count (`allowManagedPermissionRulesOnly`).
    pub fn managed_rules_only(&self) -> Option<&ManagedRulesOnly> {
        self.managed_rules_only.as_ref()
    }

    /// Every compiled rule, strongest level first.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Adds a working directory for this session (the OS sandbox's own
    /// temporary directory, the commands' `$TMPDIR`): files in it are read
    /// and edited as the project's are. An absolute path; a relative one is
    /// ignored.
    pub fn add_working_dir(&mut self, dir: &Path) {
        if !dir.is_absolute() {
            return;
        }
        let root = Path::new("/");
        let resolved =
            paths::resolve(dir, root, self.resolution).unwrap_or_else(|_| ResolvedPath {
                lexical: paths::lexical(dir, root),
                canonical: paths::lexical(dir, root),
            });
        if !self.additional.contains(&resolved) {
            self.additional.push(resolved);
        }
    }

    /// The working directory and additional directories (canonical).
    pub fn working_dirs(&self) -> Vec<&Path> {
        std::iter::once(self.cwd.canonical.as_path())
            .chain(self.additional.iter().map(|d| d.canonical.as_path()))
            .collect()
    }

    /// The session's working directory as given.
    pub fn cwd(&self) -> &Path {
        &self.cwd.lexical
    }

    /// The home directory, if known.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_ref().map(|h| h.lexical.as_path())
    }

    /// The files tack runs later on its configuration's word (a hook's
    /// script, an MCP server's program, a script a Bash allow rule names),
    /// as found when the policy was built: a write to one is asked (a
    /// protected path), and the OS sandbox keeps them read-only. (A write
    /// into the directories around them — a script's own, a virtual
    /// environment, a directory on `PATH` — is asked too; the sandbox leaves
    /// those writable, for `pip install` and the like.)
    pub fn runs_later(&self) -> impl Iterator<Item = &Path> {
        self.runs_later
            .iter()
            .filter(|r| !r.dir)
            .map(|r| r.path.canonical.as_path())
    }

    /// The local settings file, where "always allow" answers go (never the
    /// managed file).
    pub fn local_settings_path(&self) -> PathBuf {
        crate::files::local_settings_path(&self.project_root.lexical)
    }

    pub(crate) fn kind(&self, kind: Verdict) -> &KindIndex {
        &self.index[slot(kind)]
    }

    /// The deny rule that refuses every call of the tool `name`, whatever
    /// its input: a rule naming the tool whole (`mcp__github__delete_repo`,
    /// `git_push`), or its MCP server (`mcp__github`, `mcp__github__*`).
    /// Tool search does not offer such a tool.
    pub fn refuses_tool(&self, name: &str) -> Option<&Rule> {
        self.refuses(name, None)
    }

    /// [`Policy::refuses_tool`] for a tool of the MCP server `server` whose
    /// own name there is `tool` (`name` is what the model calls): rules
    /// naming it by either name refuse it (see [`crate::Request::with_mcp_tool`]).
    pub fn refuses_mcp_tool(&self, name: &str, server: &str, tool: &str) -> Option<&Rule> {
        let origin = McpOrigin {
            server: server.to_string(),
            tool: tool.to_string(),
        };
        self.refuses(name, Some(&origin))
    }

    fn refuses(&self, name: &str, mcp: Option<&McpOrigin>) -> Option<&Rule> {
        // `Task` is Claude Code's old name of the Agent tool.
        let whole = if name == "Agent" {
            self.tool_rule(Verdict::Deny, &["Agent", "Task"])
        } else {
            self.tool_rule(Verdict::Deny, &[name])
        };
        let server = if name.starts_with("mcp__") || mcp.is_some() {
            self.mcp_rule(Verdict::Deny, name, mcp)
        } else {
            None
        };
        whole
            .into_iter()
            .chain(server)
            .min()
            .and_then(|i| self.rules.get(i))
    }

    /// First whole-tool rule of `kind` for any of `tools`.
    pub(crate) fn tool_rule(&self, kind: Verdict, tools: &[&str]) -> Option<usize> {
        let idx = self.kind(kind);
        tools
            .iter()
            .filter_map(|t| idx.tools.get(*t).copied())
            .min()
    }

    /// First Bash rule of `kind` matching any of `forms`.
    pub(crate) fn bash_rule<'s>(
        &self,
        kind: Verdict,
        forms: impl IntoIterator<Item = &'s str>,
    ) -> Option<usize> {
        let idx = self.kind(kind);
        // An allow rule naming a directory does not reach out of it.
        let matches = |p: &rule::BashPattern, form: &str| match kind {
            Verdict::Allow => p.allows(form),
            _ => p.matches(form),
        };
        let mut best: Option<usize> = None;
        for form in forms {
            let key = form.split(' ').next().unwrap_or(form);
            if let Some(list) = idx.bash_keyed.get(key) {
                for &i in list {
                    if best.is_some_and(|b| b <= i) {
                        break;
                    }
                    if self.bash_pattern(i).is_some_and(|p| matches(p, form)) {
                        best = Some(i);
                        break;
                    }
                }
            }
            for &i in &idx.bash_wild {
                if best.is_some_and(|b| b <= i) {
                    break;
                }
                if self.bash_pattern(i).is_some_and(|p| matches(p, form)) {
                    best = Some(i);
                    break;
                }
            }
        }
        best
    }

    /// A command's forms (canonical texts) read as their programs read
    /// them, for [`Policy::bash_rule_by_shape`]: only those whose program
    /// some deny or ask rule names.
    pub(crate) fn bash_shapes<'s>(&self, forms: impl IntoIterator<Item = &'s str>) -> Vec<Shape> {
        let [deny, ask] = [Verdict::Deny, Verdict::Ask].map(|k| &self.kind(k).bash_shapes);
        if deny.is_empty() && ask.is_empty() {
            return Vec::new();
        }
        forms
            .into_iter()
            .filter(|form| {
                let program = form.split(' ').next().unwrap_or(form);
                deny.contains_key(program) || ask.contains_key(program)
            })
            .filter_map(Shape::of_command)
            .collect()
    }

    /// First Bash deny/ask rule of `kind` that a command meets read as its
    /// program reads it (options in any spelling and order; see
    /// [`crate::spelling`]), and the first it might meet once its computed
    /// words are known.
    pub(crate) fn bash_rule_by_shape(
        &self,
        kind: Verdict,
        shapes: &[Shape],
    ) -> (Option<usize>, Option<usize>) {
        let idx = self.kind(kind);
        let (mut meets, mut might) = (None::<usize>, None::<usize>);
        for command in shapes {
            let Some(rules) = idx.bash_shapes.get(command.program()) else {
                continue;
            };
            for (i, rule) in rules {
                let slot = match rule.meets(command) {
                    Meets::Yes => &mut meets,
                    Meets::Maybe => &mut might,
                    Meets::No => continue,
                };
                if slot.is_none_or(|b| *i < b) {
                    *slot = Some(*i);
                }
            }
        }
        (meets, might)
    }

    /// First Bash deny/ask rule of `kind` that could match some command
    /// starting with `prefix` (whose rest is dynamic).
    pub(crate) fn bash_rule_could_match(
        &self,
        kind: Verdict,
        first_word: &str,
        prefix: &str,
    ) -> Option<usize> {
        let idx = self.kind(kind);
        let keyed = idx.bash_keyed.get(first_word).into_iter().flatten();
        keyed
            .chain(idx.bash_wild.iter())
            .copied()
            .filter(|&i| {
                self.bash_pattern(i)
                    .is_some_and(|p| p.could_match_prefix(prefix))
            })
            .min()
    }

    fn bash_pattern(&self, i: usize) -> Option<&rule::BashPattern> {
        match &self.rules.get(i)?.target {
            Target::Bash(p) => Some(p),
            _ => None,
        }
    }

    /// Whether any Bash rule of `kind` exists (whole-tool or pattern).
    pub(crate) fn has_bash_rules(&self, kind: Verdict) -> bool {
        let idx = self.kind(kind);
        idx.tools.contains_key("Bash") || !idx.bash_keyed.is_empty() || !idx.bash_wild.is_empty()
    }

    /// Whether deny or ask rules on Read or Edit paths exist (only then are
    /// paths named by Bash arguments worth collecting).
    pub(crate) fn restricts_paths(&self) -> bool {
        [Verdict::Deny, Verdict::Ask].iter().any(|&k| {
            self.kind(k)
                .paths
                .keys()
                .any(|t| t == "Read" || t == "Edit")
        })
    }

    /// Whether writes meet the protected paths (every mode but
    /// bypassPermissions; see [`crate::safeguard`]).
    pub(crate) fn guards_writes(&self) -> bool {
        self.mode != crate::mode::Mode::BypassPermissions
    }

    /// Whether any path or whole-tool rule of `kind` exists for `tools`.
    pub(crate) fn has_path_rules(&self, kind: Verdict, tools: &[&str]) -> bool {
        let idx = self.kind(kind);
        tools
            .iter()
            .any(|t| idx.tools.contains_key(*t) || idx.paths.contains_key(*t))
    }

    /// First path rule of `kind` (for any of `tools`) matching `path` or one
    /// of its ancestors; with `probe`, also a hypothetical entry inside it
    /// (a directory searched by Grep or Glob).
    pub(crate) fn path_rule(
        &self,
        kind: Verdict,
        tools: &[&str],
        path: &ResolvedPath,
        forms: Forms,
        probe: bool,
    ) -> Option<usize> {
        let idx = self.kind(kind);
        let sets: Vec<&PathIndex> = tools.iter().filter_map(|t| idx.paths.get(*t)).collect();
        if sets.is_empty() {
            return None;
        }
        let candidates: Vec<&Path> = match forms {
            Forms::Canonical => vec![path.canonical.as_path()],
            Forms::Both => path.forms().collect(),
        };
        let mut best: Option<usize> = None;
        let mut hits = Vec::new();
        for p in candidates {
            let probed = probe.then(|| p.join("\u{1}probe"));
            for candidate in probed.iter().map(PathBuf::as_path).chain([p]) {
                let c = Candidate::new(candidate);
                for s in &sets {
                    s.set.matches_candidate_into(&c, &mut hits);
                    for &h in &hits {
                        if let Some(&owner) = s.owners.get(h) {
                            best = Some(best.map_or(owner, |b| b.min(owner)));
                        }
                    }
                }
            }
        }
        best
    }

    /// First path rule of `kind` (for any of `tools`) that could match
    /// something inside the directory `dir`: its literal leading
    /// directories lie inside `dir`, or `dir` inside them.
    pub(crate) fn path_rule_inside(
        &self,
        kind: Verdict,
        tools: &[&str],
        dir: &ResolvedPath,
    ) -> Option<usize> {
        let idx = self.kind(kind);
        tools
            .iter()
            .filter_map(|t| idx.paths.get(*t))
            .flat_map(|s| &s.prefixes)
            .filter(|(prefix, _)| {
                dir.forms()
                    .any(|d| prefix.starts_with(d) || d.starts_with(prefix))
            })
            .map(|&(_, owner)| owner)
            .min()
    }

    /// First domain rule of `kind` matching `host`.
    pub(crate) fn domain_rule(&self, kind: Verdict, host: &str) -> Option<usize> {
        let idx = self.kind(kind);
        let exact = idx.domains_exact.get(host).copied();
        let wild = idx.domains_wild.iter().copied().find(|&i| {
            matches!(&self.rules.get(i).map(|r| &r.target), Some(Target::Domain(d)) if d.matches(host))
        });
        exact.into_iter().chain(wild).min()
    }

    /// Whether any domain rule of `kind` exists.
    pub(crate) fn has_domain_rules(&self, kind: Verdict) -> bool {
        let idx = self.kind(kind);
        !idx.domains_exact.is_empty() || !idx.domains_wild.is_empty()
    }

    /// First MCP rule of `kind` matching the tool name, or, for a tool
    /// whose server and own name are known (`mcp`), those.
    pub(crate) fn mcp_rule(
        &self,
        kind: Verdict,
        name: &str,
        mcp: Option<&McpOrigin>,
    ) -> Option<usize> {
        // A restriction holds whatever the case of the names; an allow
        // rule allows only the names it writes.
        let fold = kind != Verdict::Allow;
        self.kind(kind).mcp.iter().copied().find(|&i| {
            matches!(&self.rules.get(i).map(|r| &r.target),
                Some(Target::Mcp { server, tool }) if rule::mcp_matches(server, tool.as_deref(), name, fold)
                    || mcp.is_some_and(|o| rule::mcp_origin_matches(server, tool.as_deref(), &o.server, &o.tool, fold)))
        })
    }

    /// First `Skill(…)` rule of `kind` matching the skill `name`.
    pub(crate) fn skill_rule(&self, kind: Verdict, name: &str) -> Option<usize> {
        self.kind(kind).skills.iter().copied().find(|&i| {
            matches!(&self.rules.get(i).map(|r| &r.target), Some(Target::Skill(p)) if p.matches(name))
        })
    }

    /// First `Agent(name)` (or `Task(name)`) rule of `kind` naming the
    /// agent type `name`.
    pub(crate) fn agent_rule(&self, kind: Verdict, name: &str) -> Option<usize> {
        self.kind(kind).agents.iter().copied().find(|&i| {
            matches!(&self.rules.get(i).map(|r| &r.target), Some(Target::Agent(a)) if a == name)
        })
    }

    /// First `NAME(pattern)` rule of `kind` for the command tool `tool`
    /// whose pattern matches any of `texts` (the argv's lines).
    pub(crate) fn command_rule(&self, kind: Verdict, tool: &str, texts: &[&str]) -> Option<usize> {
        let idx = self.kind(kind);
        let list = idx.commands.get(tool)?;
        // Deny and ask rules also meet their options however the argv
        // spells them, as Bash rules do (see [`crate::spelling`]).
        let shapes: Vec<Shape> = if idx.command_shapes.is_empty() {
            Vec::new()
        } else {
            texts.iter().filter_map(|t| Shape::of_command(t)).collect()
        };
        list.iter().copied().find(|&i| {
            let Some(Target::Command { pattern, .. }) = self.rules.get(i).map(|r| &r.target) else {
                return false;
            };
            texts.iter().any(|t| pattern.matches(t))
                || idx
                    .command_shapes
                    .get(&i)
                    .is_some_and(|rule| shapes.iter().any(|c| rule.meets(c) == Meets::Yes))
        })
    }

    /// First `NAME(pattern)` rule of `kind` for `tool`, whatever it matches.
    pub(crate) fn any_command_rule(&self, kind: Verdict, tool: &str) -> Option<usize> {
        self.kind(kind).commands.get(tool)?.first().copied()
    }

    /// Whether `path` (canonical) is inside a working directory.
    /// Whether `path` as written (its lexical form) is inside the working
    /// directories, wherever its links lead.
    pub(crate) fn in_working_dirs_as_written(&self, path: &ResolvedPath) -> bool {
        std::iter::once(&self.cwd)
            .chain(self.additional.iter())
            .any(|d| d.forms().any(|d| paths::is_within(&path.lexical, d)))
    }

    pub(crate) fn in_working_dirs(&self, path: &ResolvedPath) -> bool {
        std::iter::once(&self.cwd)
            .chain(self.additional.iter())
            .any(|d| paths::is_within(&path.canonical, &d.canonical))
    }

    /// Check a rule's examples.
    fn check_examples(&self, i: usize, e: &RuleEntry) -> Result<()> {
        for (examples, expected) in [(&e.matches, true), (&e.not_matches, false)] {
            for ex in examples {
                let (matched, detail) =
                    self.example_matches(i, ex).map_err(|problem| Error::Rule {
                        origin: e.origin(),
                        rule: e.text.clone(),
                        problem: format!("example `{ex}`: {problem}"),
                    })?;
                if matched != expected {
                    return Err(Error::Example {
                        origin: e.origin(),
                        rule: e.text.clone(),
                        example: ex.clone(),
                        expected_match: expected,
                        detail,
                    });
                }
            }
        }
        Ok(())
    }

    /// Whether rule `i` matches an example (a command, path, URL, tool
    /// name or a command tool's argv by the rule's tool), and how the
    /// example was read.
    fn example_matches(
        &self,
        i: usize,
        example: &str,
    ) -> std::result::Result<(bool, String), String> {
        let Some(rule) = self.rules.get(i) else {
            return Err("internal: no such rule".into());
        };
        let deny_like = rule.kind != Verdict::Allow;
        match &rule.target {
            Target::Tool(name) => {
                let family_member = (name == "Read" && rule::READ_TOOLS.contains(&example))
                    || (name == "Edit" && rule::EDIT_TOOLS.contains(&example));
                let any_input = matches!(name.as_str(), "Bash" | "WebFetch" | "Read" | "Edit");
                Ok((
                    example == name || family_member || any_input,
                    format!("read as a call of {name}"),
                ))
            }
            Target::Bash(p) => {
                let items = shell::analyze(
                    example,
                    &self.cwd.lexical,
                    self.home(),
                    self.resolution,
                    false,
                );
                let commands: Vec<&shell::Command> = items
                    .iter()
                    .filter_map(|it| match it {
                        Item::Command(c) if c.equivalent.is_none() => Some(c),
                        _ => None,
                    })
                    .collect();
                // What the command amounts to meets a deny or ask rule too
                // (`unlink x` for `deny Bash(rm *)`).
                let equivalents = items.iter().filter_map(|it| match it {
                    Item::Command(c) if c.equivalent.is_some() => Some(c.text.as_str()),
                    _ => None,
                });
                let [c] = commands.as_slice() else {
                    return Err(format!(
                        "an example must be one simple command; it holds {}",
                        commands.len()
                    ));
                };
                let mut forms: Vec<&str> = vec![&c.text, &c.raw];
                if deny_like {
                    forms.push(&c.plain);
                    forms.extend(c.basename_forms.iter().map(String::as_str));
                    forms.extend(equivalents);
                }
                Ok((
                    forms.iter().any(|f| p.matches(f)),
                    format!("read as the command `{}`", c.text),
                ))
            }
            Target::Path { .. } => {
                let here = relative_base(rule.source.level, &self.cwd, &self.project_root);
                let path = paths::resolve(Path::new(example), &here.lexical, self.resolution)?;
                let Some(set) = &rule.globs else {
                    return Ok((false, "no pattern".into()));
                };
                let candidates: Vec<&Path> = if deny_like {
                    path.forms().collect()
                } else {
                    vec![path.canonical.as_path()]
                };
                let matched = candidates.iter().any(|p| set.is_match(p));
                Ok((
                    matched,
                    format!("read as the path {}", path.canonical.display()),
                ))
            }
            Target::Domain(d) => {
                let host = rule::url_host(example)?;
                Ok((d.matches(&host), format!("read as the host {host}")))
            }
            Target::Mcp { server, tool } => Ok((
                rule::mcp_matches(server, tool.as_deref(), example, deny_like),
                "read as an MCP tool name".into(),
            )),
            Target::Skill(p) => Ok((p.matches(example), "read as a skill name".into())),
            Target::Agent(name) => Ok((name == example.trim(), "read as an agent type".into())),
            Target::Command { pattern, .. } => {
                let argv = shell::simple_command_words(example).ok_or_else(|| {
                    "an example of a command tool's rule is the argv it runs, written as words quoted as a shell would (`/usr/bin/git log -n 5 'a b'`), with no variables, globs or operators".to_string()
                })?;
                let texts = crate::command::texts(&argv);
                Ok((
                    texts.iter().any(|t| pattern.matches(t)),
                    format!("read as the argv `{}`", crate::command::command_text(&argv)),
                ))
            }
        }
    }
}
