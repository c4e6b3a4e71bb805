//! What the permission rules and the OS sandbox say to each other.
//!
//! - [`excluded_command`]: whether a command line is one of
//!   `sandbox.excludedCommands` (and so runs outside the sandbox). Only a
//!   line that is one plain simple command can be: `docker ps && rm -rf /x`
//!   is never `docker`.
//! - [`hidden_paths`]: the paths the sandbox should hide, from the deny
//!   `Read(…)` rules and `sandbox.filesystem.denyRead`, and the rules it
//!   cannot turn into paths.
//! - [`sandbox_decision`]: a Bash call's decision once the sandbox is known
//!   to be in force: `autoAllowBashIfSandboxed` allows what would be asked
//!   only for want of an allow rule, when every path the command names is
//!   inside the writable roots; `dangerouslyDisableSandbox: true` is asked
//!   of a person every time, or refused when `allowUnsandboxedCommands` is
//!   false.
//!
//! ```
//! use tack_policy::excluded_command;
//!
//! let excluded = ["docker:*".to_owned(), "npm run test".to_owned()];
//! assert_eq!(excluded_command("docker ps -a", &excluded).as_deref(), Some("docker:*"));
//! assert_eq!(excluded_command("npm run test", &excluded).as_deref(), Some("npm run test"));
//! assert_eq!(excluded_command("docker ps && rm -rf /x", &excluded), None);
//! assert_eq!(excluded_command("LD_PRELOAD=x docker ps", &excluded), None);
//! ```

use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_protocol::Verdict;

use crate::decision::{DecidedBy, Decision, Why};
use crate::mode::Mode;
use crate::paths::{self, ResolvedPath};
use crate::policy::{Policy, glob_strings, literal_prefix, relative_base};
use crate::request::{Request, Subject};
use crate::rule::{BashPattern, Target};
use crate::shell::{self, Item, UncertainKind};

/// The Bash input field (Claude Code's) with which a call asks to run
/// outside the sandbox.
pub const DISABLE_SANDBOX_FIELD: &str = "dangerouslyDisableSandbox";

/// The `sandbox.excludedCommands` entry that `command_line` is, if any: the
/// whole line must be one simple command of literal words — no `;`, `&&`,
/// `||`, `|`, `&`, newline, redirection, assignment (`LD_PRELOAD=x docker`),
/// `$…`, `` `…` ``, process substitution, glob or brace expansion — and
/// match the entry in Bash-rule syntax (`docker`, `docker:*`, `docker *`,
/// `npm run test`: see `Bash(…)` rules). `bash -c 'docker ps'` is `bash`,
/// not `docker`.
pub fn excluded_command(command_line: &str, patterns: &[String]) -> Option<String> {
    if patterns.is_empty() {
        return None;
    }
    let words = shell::simple_command_words(command_line)?;
    // Matched as a Bash rule matches a command's plain form: literal words
    // joined by single spaces.
    let text = words.join(" ");
    patterns
        .iter()
        .find(|p| {
            let p = p.trim();
            !p.is_empty() && BashPattern::new(p).matches(&text)
        })
        .cloned()
}

/// What the sandbox hides, from the Read deny rules and
/// `sandbox.filesystem.denyRead`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HiddenPaths {
    /// Absolute paths to hide (a file or a whole directory), each once;
    /// both the path as written and where its symlinks lead.
    pub paths: Vec<PathBuf>,
    /// Rules and entries that name no path the sandbox can hide (or keep
    /// read-only): `Read(**/*.pem)`, `Read(.env)` at any depth, `Read`
    /// alone, as written. The rules still stop tack's own tools, but a
    /// command in the sandbox can reach what they name. For `tack sandbox
    /// check`.
    pub unenforced: Vec<String>,
}

/// The paths the sandbox should hide: each deny `Read(…)` rule of `policy`
/// that names a literal path or a `dir/**` subtree, resolved exactly as the
/// rule is (`//abs`, `~/…`, `/…` from the project root, `./…` and bare
/// paths from the project root for project and local files and the working
/// directory otherwise), and each `deny_read` entry (absolute already; see
/// tack-session's sandbox settings) that is a literal path or `dir/**`.
pub fn hidden_paths(policy: &Policy, deny_read: &[PathBuf]) -> HiddenPaths {
    let mut hidden = rule_paths(policy, "Read", deny_read, "sandbox.filesystem.denyRead");
    // A hidden file git tracks has a copy the sandbox cannot hide: its
    // committed content in `.git/objects`, which git itself (and any
    // program) reads. tack's own analysis refuses the git commands that
    // print it (`git show`, `git log -p`); a program it cannot see into
    // (`make`, a script) is the sandbox's, so say so.
    let mut said = Vec::new();
    for path in &hidden.paths {
        let Some(worktree) = crate::git_index::worktree_of(path) else {
            continue;
        };
        let tracked = crate::git_index::tracked(worktree)
            .is_some_and(|files| files.iter().any(|f| f == path || f.starts_with(path)));
        if tracked && !path.starts_with(worktree.join(".git")) {
            let shown = path
                .strip_prefix(worktree)
                .unwrap_or(path)
                .display()
                .to_string();
            if !said.contains(&shown) {
                said.push(shown);
            }
        }
    }
    hidden.unenforced.extend(said.into_iter().map(|shown| {
        format!(
            "{shown}: git tracks it, so its committed copy in .git/objects stays readable to \
             commands (take it out of git's history to keep it from them)"
        )
    }));
    hidden
}

/// The paths the sandbox should keep read-only, as [`hidden_paths`] but
/// from the deny `Edit(…)` rules and `sandbox.filesystem.denyWrite`
/// (Claude Code applies Edit deny rules to sandboxed commands too).
pub fn read_only_paths(policy: &Policy, deny_write: &[PathBuf]) -> HiddenPaths {
    rule_paths(policy, "Edit", deny_write, "sandbox.filesystem.denyWrite")
}

/// The domains the `WebFetch(domain:…)` rules give the sandbox's network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleDomains {
    /// Of allow rules: `host` or `*.host` (subdomains), each once.
    pub allowed: Vec<String>,
    /// Of deny rules, the same way.
    pub denied: Vec<String>,
}

/// The domains of `policy`'s `WebFetch(domain:…)` rules, as Claude Code's
/// sandbox takes them for its network: a deny rule's domain is refused to
/// sandboxed commands (`deniedDomains`), an allow rule's may be reached
/// (`allowedDomains`) when `allow_from` accepts the level of the file it
/// came from (a checked-in project file may not widen the sandbox without
/// approval; with `allowManagedDomainsOnly`, only managed settings may).
pub fn rule_domains(policy: &Policy, allow_from: impl Fn(crate::Level) -> bool) -> RuleDomains {
    let mut out = RuleDomains::default();
    for rule in &policy.rules {
        let Target::Domain(d) = &rule.target else {
            continue;
        };
        let text = if d.subdomains {
            format!("*.{}", d.host)
        } else {
            d.host.clone()
        };
        let list = match rule.kind {
            Verdict::Deny => &mut out.denied,
            Verdict::Allow if allow_from(rule.source.level) => &mut out.allowed,
            _ => continue,
        };
        if !list.contains(&text) {
            list.push(text);
        }
    }
    out
}

fn rule_paths(policy: &Policy, family: &str, extra: &[PathBuf], setting: &str) -> HiddenPaths {
    let mut out = HiddenPaths::default();
    for rule in policy.rules.iter().filter(|r| r.kind == Verdict::Deny) {
        match &rule.target {
            Target::Tool(tool) if tool == family => out.unenforced.push(rule.text.clone()),
            // A Write deny rule holds for every writer, as an Edit one.
            Target::Path { tool, pattern }
                if tool == family || (family == "Edit" && tool == "Write") =>
            {
                let here = relative_base(rule.source.level, &policy.cwd, &policy.project_root);
                let globs = glob_strings(
                    pattern,
                    here,
                    &policy.project_root,
                    policy.home.as_ref(),
                    policy.resolution,
                );
                let found: Option<Vec<PathBuf>> = globs.iter().map(|g| path_of_glob(g)).collect();
                match found {
                    // The root itself cannot be hidden (`Read(//**)`).
                    Some(found)
                        if !found.is_empty() && found.iter().all(|p| p.parent().is_some()) =>
                    {
                        out.add(found);
                    }
                    _ => out.unenforced.push(rule.text.clone()),
                }
            }
            _ => {}
        }
    }
    for entry in extra {
        let text = entry.to_string_lossy();
        match path_of_glob(&text).filter(|p| p.parent().is_some()) {
            Some(path) => {
                let canonical = paths::resolve(&path, Path::new("/"), policy.resolution)
                    .map(|p| p.canonical)
                    .unwrap_or_else(|_| path.clone());
                out.add([path, canonical]);
            }
            None => out.unenforced.push(format!("{setting} {text}")),
        }
    }
    out
}

impl HiddenPaths {
    fn add(&mut self, paths: impl IntoIterator<Item = PathBuf>) {
        for p in paths {
            if !self.paths.contains(&p) {
                self.paths.push(p);
            }
        }
    }
}

/// The file or directory an absolute glob (as [`glob_strings`] makes them,
/// meta-characters of the path escaped as `[c]`) names whole: itself when
/// it holds no pattern, `dir` for `dir/**`; None for any other pattern.
fn path_of_glob(glob: &str) -> Option<PathBuf> {
    let body = glob.strip_suffix("/**").unwrap_or(glob);
    let body = if body.is_empty() { "/" } else { body };
    let prefix = literal_prefix(body);
    // The literal prefix is the whole when every component is literal.
    let components = body.split('/').filter(|c| !c.is_empty()).count();
    (prefix.components().count() == components + 1).then_some(prefix)
}

/// What the permission stage needs to know about the session's OS
/// sandbox (built by the session from its sandbox settings, only when the
/// sandbox is in force).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPermissions {
    /// Where sandboxed commands may write (canonical; see
    /// [`SandboxPermissions::new`]).
    pub writable_roots: Vec<PathBuf>,
    /// `sandbox.excludedCommands`: these run outside the sandbox, so they
    /// are never allowed for being sandboxed.
    pub excluded_commands: Vec<String>,
    /// `sandbox.autoAllowBashIfSandboxed`.
    pub auto_allow: bool,
    /// `sandbox.allowUnsandboxedCommands`: whether a call may ask to run
    /// outside the sandbox (`dangerouslyDisableSandbox`) at all.
    pub allow_unsandboxed_commands: bool,
    /// The session's temporary directory (the commands' `$TMPDIR`), which
    /// the session works in as in the project.
    pub temp_dir: Option<PathBuf>,
}

impl SandboxPermissions {
    /// Writable roots and the sandbox's temp directory, made canonical
    /// (symlinks followed; a path that cannot be resolved is kept as
    /// given), with Claude Code's defaults: auto-allow on, unsandboxed
    /// commands allowed when a person says so, nothing excluded.
    pub fn new(writable_roots: &[PathBuf], temp_dir: Option<&Path>) -> Self {
        let mut roots: Vec<PathBuf> = Vec::new();
        for root in writable_roots.iter().map(PathBuf::as_path).chain(temp_dir) {
            let root = paths::lexical(root, Path::new("/"));
            for form in [
                paths::canonical(&root).unwrap_or_else(|_| root.clone()),
                root,
            ] {
                if !roots.contains(&form) {
                    roots.push(form);
                }
            }
        }
        Self {
            writable_roots: roots,
            excluded_commands: Vec::new(),
            auto_allow: true,
            allow_unsandboxed_commands: true,
            temp_dir: temp_dir.map(Path::to_path_buf),
        }
    }

    /// Whether a canonical path lies inside a writable root.
    fn holds(&self, path: &ResolvedPath) -> bool {
        self.writable_roots
            .iter()
            .any(|root| paths::is_within(&path.canonical, root))
    }
}

/// Whether a Bash input asks to run outside the sandbox.
pub fn asks_unsandboxed(input: &Value) -> bool {
    input.get(DISABLE_SANDBOX_FIELD).and_then(Value::as_bool) == Some(true)
}

/// A Bash call's decision with the sandbox in force (`evaluate`'s decision
/// on `request`, then this). Other tools' decisions are returned as they are.
///
/// - A deny stays a deny.
/// - `dangerouslyDisableSandbox: true`: denied when
///   `allowUnsandboxedCommands` is false (saying so); otherwise an ask
///   whatever the rules or the mode allow ([`DecidedBy::Sandbox`]), a deny
///   in dontAsk mode. The permission stage asks it of a person every time.
/// - `autoAllowBashIfSandboxed`: an ask only because no rule matched (every
///   asking part has [`DecidedBy::NoRuleMatched`]; never an ask rule or an
///   uncertainty) is allowed when the command is not excluded and every
///   path it reads or writes, as the shell analysis sees them, is inside a
///   writable root. Commands that run code not written in the line (a
///   script) are allowed too: the sandbox holds whatever they do.
///
/// Reading the command again for the paths it reads resolves them through
/// the file system when the request was resolved so (the one IO step, as in
/// [`Request::resolve`]).
pub fn sandbox_decision(
    decision: Decision,
    request: &Request,
    policy: &Policy,
    sandbox: &SandboxPermissions,
) -> Decision {
    let Subject::Bash { command, .. } = &request.subject else {
        return decision;
    };
    if decision.is_deny() {
        return decision;
    }
    let subject = decision.why().subject.clone();
    if asks_unsandboxed(request.input()) {
        let mut why = Why::new(
            subject,
            DecidedBy::Sandbox {
                setting: if sandbox.allow_unsandboxed_commands {
                    DISABLE_SANDBOX_FIELD.to_owned()
                } else {
                    "allowUnsandboxedCommands".to_owned()
                },
            },
        );
        why.parts = decision.why().parts.clone();
        if !sandbox.allow_unsandboxed_commands {
            return Decision::Deny(why.detail(
                "the call asks to run outside the OS sandbox (dangerouslyDisableSandbox: true) and sandbox.allowUnsandboxedCommands is false in the settings, so no command may; run it without dangerouslyDisableSandbox",
            ));
        }
        let why = why.detail(
            "the call asks to run outside the OS sandbox (dangerouslyDisableSandbox: true), which a person must allow each time",
        );
        return if policy.mode == Mode::DontAsk {
            Decision::Deny(why)
        } else {
            Decision::Ask(why)
        };
    }
    if !sandbox.auto_allow || !asks_for_an_allow_rule_only(&decision) {
        return decision;
    }
    if excluded_command(command, &sandbox.excluded_commands).is_some() {
        return decision;
    }
    let items = shell::analyze(command, request.cwd(), policy.home(), request.how, true);
    let inside = items.iter().all(|item| match item {
        Item::Command(_) => true,
        Item::Edit { path, .. }
        | Item::EditInside { path, .. }
        | Item::Touch { path, .. }
        | Item::ReadVisible { path, .. }
        | Item::ReadNarrowed { path, .. }
        | Item::Input { path }
        | Item::Written { path, .. } => sandbox.holds(path),
        Item::GitContent { worktree, .. } => sandbox.holds(worktree),
        // What `rm` removes is a Written item too.
        Item::Removal { .. } => true,
        // The sandbox's network allowlist holds what a command reaches.
        Item::Host { .. } => true,
        Item::Uncertain { kind, .. } => {
            matches!(kind, UncertainKind::Opaque | UncertainKind::Host)
        }
    });
    if !inside {
        return decision;
    }
    let mut why = Why::new(
        subject,
        DecidedBy::Sandbox {
            setting: "autoAllowBashIfSandboxed".to_owned(),
        },
    )
    .detail("it runs inside the OS sandbox and every path it names is inside the writable roots");
    why.parts = decision.why().parts.clone();
    Decision::Allow(why)
}

/// An ask whose every asking part asks for want of an allow rule.
fn asks_for_an_allow_rule_only(decision: &Decision) -> bool {
    let why = decision.why();
    decision.is_ask()
        && matches!(why.decided_by, DecidedBy::NoRuleMatched { .. })
        && why.parts.iter().all(|p| match &p.decision {
            Decision::Allow(_) => true,
            Decision::Ask(w) => matches!(w.decided_by, DecidedBy::NoRuleMatched { .. }),
            Decision::Deny(_) => false,
        })
}
