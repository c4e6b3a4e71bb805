//! Two safeguards that no allow rule and no hook lifts, as in Claude Code
//! (its permission modes page, "Protected paths" and "Critical paths"):
//!
//! - **Protected paths.** A write to the repository's own state, the
//!   agent's configuration or what a shell or a build runs on its own
//!   (`.git/`, `.claude/`, `.tack/`, `.vscode/`, `.husky/`, `.bashrc`,
//!   `.mcp.json`, …) is asked in the default and acceptEdits modes and
//!   refused in dontAsk, whatever the allow rules say; bypassPermissions
//!   writes it. Without this, a model allowed to edit (acceptEdits, or
//!   `Edit` allowed) could give itself hooks or allow rules in
//!   `.claude/settings.local.json`, or a `.git/hooks/pre-commit` that the
//!   next allowed `git commit` runs.
//! - **Critical removals.** `rm` or `rmdir` of the file system's root, a
//!   top-level directory, the home directory, the working directory or one
//!   of its parents, everything inside one of those or inside an additional
//!   working directory (`rm -rf *`), or a pattern or trailing slash right
//!   under a variable (`rm -rf "$DIR"/*`: from the root when it is empty)
//!   is asked in every mode, bypassPermissions too, and refused in dontAsk.
//!
//! A deny rule still refuses either outright. The ask is a person's each
//! time: a hook's allow does not skip it and no "always allow" is offered
//! ([`crate::Decision::needs_person`]).

use std::path::{Component, Path};

use serde::Serialize;

use crate::decision::{DecidedBy, Decision, Part, Why};
use crate::mode::Mode;
use crate::paths::ResolvedPath;
use crate::policy::Policy;

/// Directories whose every file is protected (Claude Code's list, tack's
/// own `.tack`, `.ssh`, whose `config` runs commands for every `ssh` and
/// `git push` and whose `authorized_keys` lets others in, and the shell
/// start-up directories kept under the home directory: elvish's `.elvish`,
/// the `.bash_completion.d` a `.bash_completion` sources, oh-my-zsh's tree
/// that `.zshrc` sources).
const PROTECTED_DIRS: &[&str] = &[
    ".git",
    ".ssh",
    ".vscode",
    ".idea",
    ".husky",
    ".cargo",
    ".devcontainer",
    ".yarn",
    ".mvn",
    ".claude",
    ".tack",
    ".elvish",
    ".bash_completion.d",
    ".oh-my-zsh",
];

/// Directories two names deep: git's and tack's user configuration, tack's
/// state (its record of approved project settings among it), and the
/// start-up directories of shells that keep them under `~/.config` (fish's
/// `config.fish` and `conf.d`, nushell's `config.nu` and `env.nu`, xonsh's
/// `rc.xsh` and `rc.d`, PowerShell's `profile.ps1`, elvish's `rc.elv`, ion's
/// `initrc`), all run by every interactive shell.
const PROTECTED_PAIRS: &[(&str, &str)] = &[
    (".config", "git"),
    (".config", "tack"),
    (".config", "fish"),
    (".config", "nushell"),
    (".config", "xonsh"),
    (".config", "powershell"),
    (".config", "elvish"),
    (".config", "ion"),
];

/// Directories three names deep: `.local/state/tack`, tack's state
/// directory by default, and bash-completion's per-user completions,
/// sourced by every interactive bash that completes a command.
const PROTECTED_TRIPLES: &[[&str; 3]] = &[
    [".local", "state", "tack"],
    [".local", "share", "bash-completion"],
];

/// Files protected wherever they are: Claude Code's list, and the start-up
/// files every shell reads as its manual gives them (bash: `.bash_profile`,
/// `.bash_login`, `.profile`, `.bashrc`, `.bash_logout`, and readline's
/// `.inputrc`, bash-completion's `.bash_completion`; zsh: `.zshenv`,
/// `.zprofile`, `.zshrc`, `.zlogin`, `.zlogout`; ksh and mksh: `.kshrc`,
/// `.mkshrc` (and `$ENV`, which `.profile` sets); csh and tcsh: `.cshrc`,
/// `.tcshrc`, `.login`, `.logout`, `.cshdirs`; yash: `.yashrc`,
/// `.yash_profile`; POSIX sh's conventional `.shrc`; xonsh: `.xonshrc`;
/// elvish: `.elvish/rc.elv` under its directory below; and what an X
/// session runs at login: `.xprofile`, `.xsession`, `.xinitrc`).
const PROTECTED_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".bash_completion",
    ".inputrc",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".profile",
    ".shrc",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
    ".login",
    ".logout",
    ".cshdirs",
    ".yashrc",
    ".yash_profile",
    ".xonshrc",
    ".xprofile",
    ".xsession",
    ".xinitrc",
    ".envrc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    ".ripgreprc",
    "pyrightconfig.json",
    ".mcp.json",
    ".claude.json",
    // What rustup runs for every `cargo` and `rustc` (`path = …`), and
    // mise's tasks and hooks.
    "rust-toolchain",
    "rust-toolchain.toml",
    "mise.toml",
    ".mise.toml",
    "mise.local.toml",
    ".mise.local.toml",
    // What every Python start runs from the directories on its path.
    "sitecustomize.py",
    "usercustomize.py",
];

/// The directories Python's `site` reads `*.pth` files from at every start
/// of the interpreter (a line starting with `import` runs).
const SITE_DIRS: &[&str] = &["site-packages", "dist-packages"];

/// What a virtual environment (a directory holding `pyvenv.cfg`) runs: its
/// `pyvenv.cfg` chooses the interpreter, and its `bin/` (`Scripts/` on
/// Windows) holds `python` and the `activate` scripts shells source.
const VENV_CONFIG: &str = "pyvenv.cfg";
const VENV_PROGRAM_DIRS: &[&str] = &["bin", "Scripts"];

/// What the protected-path safeguard guards wherever it is: the names of
/// directories and files (`.git`, `.vscode`, `.envrc`), and the paths of
/// two or three names (`.config/git`, `.local/state/tack`). For the OS
/// sandbox, which keeps them read-only where it finds them inside the
/// writable roots, so that a script or a build cannot write them either.
pub fn protected_names() -> (Vec<&'static str>, Vec<String>) {
    let names = PROTECTED_DIRS
        .iter()
        .chain(PROTECTED_FILES)
        .copied()
        .collect();
    let nested = PROTECTED_PAIRS
        .iter()
        .map(|(a, b)| format!("{a}/{b}"))
        .chain(PROTECTED_TRIPLES.iter().map(|t| t.join("/")))
        .chain(tack_protocol::places::loaded_folders().map(str::to_owned))
        .collect();
    (names, nested)
}

/// Which safeguard decided.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "safeguard", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Safeguard {
    /// A write to a protected path; `name` is what makes it protected
    /// (`.git`, `.bashrc`, `.config/git`).
    ProtectedPath { name: String },
    /// `rm` or `rmdir` of a critical path; `what` says which.
    CriticalRemoval { what: String },
    /// A tool that needs a person for every call (an MCP tool marked
    /// `anthropic/requiresUserInteraction`).
    UserInteraction,
}

/// What makes `path` (absolute) protected, if anything: a protected
/// directory it is in or is (tack's skills and agents folders among them),
/// its protected file name, or being a Python start-up file (`*.pth` in a
/// `site-packages`, a `pyvenv.cfg`), by its names alone.
pub(crate) fn protected(path: &Path) -> Option<String> {
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => n.to_str(),
            _ => None,
        })
        .collect();
    // Names compare without case: on a file system that ignores it (macOS,
    // Windows), `.Git/hooks` is `.git/hooks`.
    let is = |name: &str, listed: &str| name.eq_ignore_ascii_case(listed);
    let listed = |name: &str, list: &[&str]| list.iter().any(|l| is(name, l));
    for (i, name) in names.iter().enumerate() {
        let next = names.get(i + 1).copied();
        // Claude Code keeps its own git worktrees in `.claude/worktrees`.
        let worktrees = is(name, ".claude") && next.is_some_and(|n| is(n, "worktrees"));
        if listed(name, PROTECTED_DIRS) && !worktrees {
            return Some(name.to_ascii_lowercase());
        }
        if let Some(next) = next
            && PROTECTED_PAIRS
                .iter()
                .any(|(a, b)| is(name, a) && is(next, b))
        {
            return Some(format!("{name}/{next}"));
        }
        if let Some(three) = names.get(i..i + 3)
            && let Some(triple) = PROTECTED_TRIPLES
                .iter()
                .find(|t| three.iter().zip(t.iter()).all(|(n, s)| is(n, s)))
        {
            return Some(triple.join("/"));
        }
        // The folders tack loads skills and agents from (`.agents/skills`),
        // named where the loaders find them.
        if let Some(folder) = tack_protocol::places::loaded_folders().find(|f| {
            let parts = f.split('/');
            let count = parts.clone().count();
            names
                .get(i..i + count)
                .is_some_and(|here| here.iter().zip(parts).all(|(n, p)| is(n, p)))
        }) {
            return Some(folder.to_owned());
        }
    }
    let last = names.last()?;
    if listed(last, PROTECTED_FILES) || is(last, VENV_CONFIG) {
        return Some((*last).to_owned());
    }
    let pth = last.len() > 4 && last.get(last.len() - 4..).is_some_and(|e| is(e, ".pth"));
    let site = names.iter().rev().skip(1).find(|n| listed(n, SITE_DIRS));
    match (pth, site) {
        (true, Some(site)) => Some(format!("{site}/*.pth")),
        _ => None,
    }
}

/// A write into a virtual environment's `bin/` or `Scripts/` (its
/// `python`, the `activate` scripts): named by the environment's directory,
/// found by its `pyvenv.cfg`.
fn venv_program(path: &Path) -> Option<String> {
    for dir in path.ancestors().skip(1).take(2) {
        let name = dir.file_name()?.to_str()?;
        if !VENV_PROGRAM_DIRS.contains(&name) {
            continue;
        }
        let venv = dir.parent()?;
        if venv.join(VENV_CONFIG).is_file() {
            return Some(format!(
                "{} (a virtual environment's programs)",
                dir.display()
            ));
        }
    }
    None
}

/// What git finds in a directory that makes it take the directory for a
/// repository's own (`.git`) directory, as it takes a bare repository.
const GIT_DIRECTORY: [&str; 3] = ["HEAD", "objects", "refs"];

/// Names in a repository's own directory that git reads or runs.
const GIT_DIRECTORY_MEMBERS: &[&str] = &[
    "HEAD",
    "config",
    "objects",
    "refs",
    "hooks",
    "info",
    "commondir",
    "packed-refs",
    "index",
];

/// A write into a directory git would take for a repository's own directory
/// under another name than `.git` (holding `HEAD`, `objects/` and `refs/`,
/// or holding them once this write is done): git looks for one in the
/// working directory and each above it, so four files written into a
/// project with no `.git` (or a subdirectory of one) make its `config` the
/// configuration the next `git status` runs (`core.fsmonitor`). Named as
/// `.git` is, with the directory.
fn git_directory_member(path: &Path) -> Option<String> {
    let mut below = path;
    // `refs/heads/x`, `objects/info/packs`: a few levels are enough.
    for dir in path.ancestors().skip(1).take(3) {
        let member = below.file_name()?.to_str()?;
        below = dir;
        if !GIT_DIRECTORY_MEMBERS.contains(&member) {
            continue;
        }
        let complete = GIT_DIRECTORY
            .iter()
            .all(|name| *name == member || dir.join(name).exists());
        if complete {
            return Some(format!("{} (a git directory)", dir.display()));
        }
    }
    None
}

/// Whether git, run in `dir`, would take it or a directory above it for a
/// repository's own directory (see [`git_directory_member`]) before it
/// finds a `.git`: its configuration there is not one a person wrote.
pub(crate) fn bare_git_directory_above(dir: &Path) -> bool {
    for d in dir.ancestors() {
        if d.join(".git").exists() {
            return false;
        }
        if GIT_DIRECTORY.iter().all(|name| d.join(name).exists()) {
            return true;
        }
    }
    false
}

/// What `rm`/`rmdir` removes, for the critical-removal safeguard.
#[derive(Debug, Clone)]
pub(crate) enum Removed {
    /// The path itself (`rm -rf build`).
    Path(ResolvedPath),
    /// Everything in a directory (`rm -rf *`, `rm -rf dir/.*`).
    Everything(ResolvedPath),
    /// A pattern or a trailing slash right under a variable
    /// (`rm -rf "$DIR"/*`): from the root when the variable is empty.
    UnderVariable,
}

/// Why removing `removed` is critical, if it is.
fn critical(policy: &Policy, removed: &Removed) -> Option<String> {
    let (path, everything) = match removed {
        Removed::UnderVariable => {
            return Some(
                "what a pattern or trailing slash right under a variable names: from the file system's root when the variable is empty"
                    .to_owned(),
            );
        }
        Removed::Path(p) => (p, false),
        Removed::Everything(p) => (p, true),
    };
    let inside = if everything { "everything in " } else { "" };
    let root = Path::new("/");
    for form in path.forms() {
        if form == root {
            return Some(format!("{inside}the file system's root"));
        }
        if policy
            .home
            .as_ref()
            .is_some_and(|h| h.forms().any(|f| f == form))
        {
            return Some(format!("{inside}the home directory"));
        }
        if form.parent() == Some(root) {
            return Some(format!(
                "{inside}the top-level directory {}",
                form.display()
            ));
        }
        let working = std::iter::once(&policy.cwd).chain(std::iter::once(&policy.project_root));
        for dir in working {
            if dir.forms().any(|d| d.starts_with(form)) {
                return Some(if dir.forms().any(|d| d == form) {
                    format!("{inside}the working directory")
                } else {
                    format!(
                        "{inside}{}, a parent of the working directory",
                        form.display()
                    )
                });
            }
        }
        for dir in &policy.additional {
            if dir.forms().any(|d| d != form && d.starts_with(form)) {
                return Some(format!(
                    "{inside}{}, a parent of the additional working directory {}",
                    form.display(),
                    dir.lexical.display()
                ));
            }
            if everything && dir.forms().any(|d| d == form) {
                return Some(format!(
                    "everything in the additional working directory {}",
                    form.display()
                ));
            }
        }
    }
    None
}

/// The protected-path part for a write to `path` (`written` as the call
/// wrote it): asked, refused in dontAsk; none in bypassPermissions or for a
/// path that is not protected.
pub(crate) fn protected_write(policy: &Policy, path: &ResolvedPath, written: &str) -> Option<Part> {
    if policy.mode == Mode::BypassPermissions {
        return None;
    }
    let name = protected(&path.canonical)
        .or_else(|| protected(&path.lexical))
        .or_else(|| git_directory_member(&path.canonical))
        .or_else(|| venv_program(&path.canonical))
        .or_else(|| {
            // tack's state and configuration where the environment moved
            // them.
            let own = policy.own_dirs.iter().find(|d| {
                path.forms()
                    .any(|p| d.forms().any(|d| crate::paths::is_within(p, d)))
            })?;
            Some(own.lexical.display().to_string())
        })
        // The hooks directory git is configured to run for the repository
        // the path is in, and the files git reads its configuration from.
        .or_else(|| policy.git.protecting(path))
        .or_else(|| {
            // The file itself first, then a directory it is in.
            let meets = |r: &&crate::policy::RunsLater, within: bool| {
                path.forms().any(|p| {
                    r.path.forms().any(|f| {
                        if within {
                            r.dir && crate::paths::is_within(p, f)
                        } else {
                            p == f
                        }
                    })
                })
            };
            let found = policy
                .runs_later
                .iter()
                .find(|r| meets(r, false))
                .or_else(|| policy.runs_later.iter().find(|r| meets(r, true)))?;
            Some(format!("{} ({})", path.lexical.display(), found.by))
        })?;
    let subject = format!("Edit({})", path.canonical.display());
    let shown = if Path::new(written) == path.canonical {
        String::new()
    } else {
        format!(" (written as `{written}`)")
    };
    let why = Why::new(
        subject.clone(),
        DecidedBy::Safeguard {
            safeguard: Safeguard::ProtectedPath { name: name.clone() },
        },
    )
    .detail(format!(
        "`{name}` is protected{shown}: a write there can change what git, a shell, a build or tack itself runs later, so a person confirms each one; allow rules and hooks do not"
    ));
    Some(Part {
        decision: crate::evaluate::ask_or_refuse(policy, why),
        subject,
    })
}

/// The critical-removal part for `rm`/`rmdir` of `removed` (`written` as
/// the command wrote it): asked in every mode but dontAsk, which refuses.
pub(crate) fn critical_removal(policy: &Policy, removed: &Removed, written: &str) -> Option<Part> {
    let what = critical(policy, removed)?;
    let subject = format!("Bash(rm {written})");
    let why = Why::new(
        subject.clone(),
        DecidedBy::Safeguard {
            safeguard: Safeguard::CriticalRemoval { what: what.clone() },
        },
    )
    .detail(format!(
        "`{written}` removes {what}; a person confirms such a removal each time, in every permission mode, whatever the allow rules and hooks say"
    ));
    Some(Part {
        decision: crate::evaluate::ask_or_refuse(policy, why),
        subject,
    })
}

/// The decision on a call of a tool that needs a person for every call
/// (see [`Safeguard::UserInteraction`]), from the rules' `decision`: a deny
/// stays; anything else is asked, in every mode (refused in dontAsk).
pub fn person_each_call(policy: &Policy, decision: Decision) -> Decision {
    if decision.is_deny() {
        return decision;
    }
    let subject = decision.why().subject.clone();
    let why = Why::new(
        subject,
        DecidedBy::Safeguard {
            safeguard: Safeguard::UserInteraction,
        },
    )
    .detail(
        "its server marks it as needing a person's yes for every call (anthropic/requiresUserInteraction), in every permission mode, whatever the allow rules and hooks say",
    );
    crate::evaluate::ask_or_refuse(policy, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_names_anywhere_in_the_path() {
        for (path, name) in [
            ("/p/.git/hooks/pre-commit", Some(".git")),
            ("/p/.git", Some(".git")),
            ("/p/sub/.git/config", Some(".git")),
            ("/p/.claude/settings.local.json", Some(".claude")),
            ("/p/.claude/worktrees/x/src/a.rs", None),
            ("/p/.claude/worktrees/x/.git/config", Some(".git")),
            ("/p/.tack/settings.json", Some(".tack")),
            ("/home/u/.bashrc", Some(".bashrc")),
            ("/home/u/.config/git/config", Some(".config/git")),
            ("/home/u/.config/tack/settings.json", Some(".config/tack")),
            (
                "/home/u/.local/state/tack/settings-approvals.json",
                Some(".local/state/tack"),
            ),
            ("/p/.mcp.json", Some(".mcp.json")),
            ("/home/u/.kshrc", Some(".kshrc")),
            ("/home/u/.tcshrc", Some(".tcshrc")),
            ("/home/u/.login", Some(".login")),
            ("/home/u/.bash_completion", Some(".bash_completion")),
            ("/home/u/.inputrc", Some(".inputrc")),
            ("/home/u/.config/fish/conf.d/x.fish", Some(".config/fish")),
            ("/home/u/.config/nushell/config.nu", Some(".config/nushell")),
            (
                "/home/u/.local/share/bash-completion/completions/git",
                Some(".local/share/bash-completion"),
            ),
            ("/home/u/.local/share/other/x", None),
            ("/p/src/login.rs", None),
            ("/p/.Git/hooks/x", Some(".git")),
            ("/home/u/.ssh/config", Some(".ssh")),
            ("/p/src/main.rs", None),
            ("/p/.github/workflows/ci.yml", None),
            ("/p/.gitignore", None),
            ("/p/git/x", None),
            ("/home/u/.config/other/x", None),
            ("/home/u/.agents/skills/x/SKILL.md", Some(".agents/skills")),
            ("/p/.Agents/Skills/x/run.sh", Some(".agents/skills")),
            ("/p/.claude/agents/x.md", Some(".claude")),
            ("/p/.agents/notes.md", None),
            ("/p/skills/x/SKILL.md", None),
            (
                "/p/.venv/lib/python3.11/site-packages/x.pth",
                Some("site-packages/*.pth"),
            ),
            (
                "/usr/lib/python3/dist-packages/y.PTH",
                Some("dist-packages/*.pth"),
            ),
            ("/p/.venv/lib/python3.11/site-packages/x.py", None),
            ("/p/site-packages", None),
            ("/p/notes.pth", None),
            ("/p/.venv/pyvenv.cfg", Some("pyvenv.cfg")),
        ] {
            assert_eq!(protected(Path::new(path)).as_deref(), name, "{path}");
        }
    }
}
