//! What git's configuration makes a protected path: the hooks directory git
//! runs (`core.hooksPath`: `.githooks`, `scripts/hooks`, a shared
//! directory) for the repository a write lands in, and the configuration
//! files themselves. A script planted in the hooks directory runs at the
//! next `git commit` as surely as one in `.git/hooks`; a configuration file
//! can set that directory, `core.fsmonitor`, a pager or an alias.
//!
//! The files are those git reads, from their text (git is not run): the
//! system's (`/etc/gitconfig`, `$GIT_CONFIG_SYSTEM`), the user's
//! (`~/.gitconfig`, `~/.config/git/config`, `$XDG_CONFIG_HOME/git/config`,
//! `$GIT_CONFIG_GLOBAL`), `GIT_CONFIG_COUNT`'s `GIT_CONFIG_KEY_n` and
//! `GIT_CONFIG_VALUE_n`, then the repository's (`.git/config`, through a
//! `.git` file's `gitdir:`, a worktree's `commondir` and `config.worktree`),
//! each with what it includes (`include.path`, every `includeIf.*.path`,
//! whether or not its condition holds). Every one of them is read whatever
//! `GIT_CONFIG_NOSYSTEM` or `GIT_CONFIG_GLOBAL` say: the person's own `git
//! commit`, in another shell, may not have them set.
//!
//! The user's and the system's files are read when the policy is built. The
//! repository is the written path's own (the nearest directory holding
//! `.git`: the project's, an additional directory's, a nested repository, a
//! submodule), found at each check; what its files say is kept per
//! repository and read again when one of them changes.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::git_config::{Entry, read_with_includes};
use crate::paths::{Resolution, ResolvedPath, is_within};

/// The repositories whose configuration is kept at most (then it is read
/// afresh).
const MAX_REPOSITORIES: usize = 256;

/// Where the environment has git find its configuration. Built from the
/// process's environment unless given ([`GitEnvironment::from_vars`]).
#[derive(Debug, Clone, Default)]
pub struct GitEnvironment {
    xdg_config_home: Option<PathBuf>,
    global: Option<PathBuf>,
    system: Option<PathBuf>,
    /// `GIT_CONFIG_KEY_n` and `GIT_CONFIG_VALUE_n`, up to `GIT_CONFIG_COUNT`.
    pairs: Vec<(String, String)>,
}

impl GitEnvironment {
    /// The process's environment.
    pub fn from_process() -> GitEnvironment {
        GitEnvironment::from_vars(std::env::vars_os())
    }

    /// An environment of these variables (others are ignored).
    pub fn from_vars<K, V>(vars: impl IntoIterator<Item = (K, V)>) -> GitEnvironment
    where
        K: Into<OsString>,
        V: Into<OsString>,
    {
        let vars: HashMap<String, OsString> = vars
            .into_iter()
            .filter_map(|(k, v)| Some((k.into().into_string().ok()?, v.into())))
            .filter(|(k, v)| {
                (k.starts_with("GIT_CONFIG") || k == "XDG_CONFIG_HOME") && !v.is_empty()
            })
            .collect();
        let path = |k: &str| vars.get(k).map(PathBuf::from);
        let text = |k: &str| vars.get(k).and_then(|v| v.to_str());
        let count: usize = text("GIT_CONFIG_COUNT")
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        let pairs = (0..count.min(1000))
            .filter_map(|i| {
                let key = text(&format!("GIT_CONFIG_KEY_{i}"))?;
                let value = text(&format!("GIT_CONFIG_VALUE_{i}")).unwrap_or_default();
                Some((key.to_owned(), value.to_owned()))
            })
            .collect();
        GitEnvironment {
            xdg_config_home: path("XDG_CONFIG_HOME").filter(|p| p.is_absolute()),
            global: path("GIT_CONFIG_GLOBAL"),
            system: path("GIT_CONFIG_SYSTEM"),
            pairs,
        }
    }

    /// The system's and the user's configuration files (whether or not
    /// they exist), and the directories of the user's (`~/.config/git`,
    /// `$XDG_CONFIG_HOME/git`: its `attributes` and `ignore` too).
    fn user_files(&self, home: Option<&Path>) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let mut files: Vec<PathBuf> = [
            "/etc/gitconfig",
            "/usr/local/etc/gitconfig",
            "/opt/homebrew/etc/gitconfig",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        files.extend(self.system.clone());
        let mut dirs = Vec::new();
        dirs.extend(self.xdg_config_home.as_ref().map(|x| x.join("git")));
        dirs.extend(home.map(|h| h.join(".config/git")));
        files.extend(dirs.iter().map(|d| d.join("config")));
        files.extend(home.map(|h| h.join(".gitconfig")));
        files.extend(self.global.clone());
        (files, dirs)
    }
}

/// A protected place git's configuration makes: a directory (and
/// everything in it) or a file, and why it is protected.
#[derive(Debug, Clone)]
struct Place {
    path: ResolvedPath,
    dir: bool,
    why: &'static str,
}

impl Place {
    fn new(path: &Path, dir: bool, why: &'static str) -> Place {
        Place {
            path: resolve(path),
            dir,
            why,
        }
    }

    /// Whether `path` is this place or, for a directory, inside it.
    fn holds(&self, path: &ResolvedPath) -> bool {
        path.forms().any(|p| {
            self.path
                .forms()
                .any(|d| if self.dir { is_within(p, d) } else { p == d })
        })
    }

    fn name(&self) -> String {
        format!("{} ({})", self.path.lexical.display(), self.why)
    }
}

const HOOKS: &str = "the hooks directory git runs, core.hooksPath";
const CONFIG: &str = "a file git reads its configuration from";

/// What git's configuration protects, for a policy: the user's and the
/// system's part read at build, each repository's when a write lands in it.
#[derive(Debug, Default)]
pub(crate) struct GitProtection {
    /// Whether to look at the file system at all (not for a lexical policy).
    enabled: bool,
    home: Option<PathBuf>,
    /// `core.hooksPath` values of the user's and the system's files and of
    /// the environment, as written (a relative one is relative to each
    /// repository's working tree).
    user_hooks: Vec<String>,
    /// The user's files and what they include, and the absolute hooks
    /// directories they name; and the repositories of the working
    /// directories (so a hooks directory they name outside any repository
    /// is known too).
    fixed: Vec<Place>,
    repositories: Mutex<HashMap<PathBuf, Arc<Repository>>>,
}

/// What one repository's configuration protects; the stamp of its `.git`
/// then, and of the files it was read from (None: not there).
#[derive(Debug)]
struct Repository {
    places: Vec<Place>,
    dot_git: Option<Stamp>,
    stamps: Vec<(PathBuf, Option<Stamp>)>,
}

type Stamp = (SystemTime, u64);

fn stamp_of(meta: &std::fs::Metadata) -> Option<Stamp> {
    Some((meta.modified().ok()?, meta.len()))
}

fn stamp(path: &Path) -> Option<Stamp> {
    stamp_of(&std::fs::metadata(path).ok()?)
}

fn resolve(path: &Path) -> ResolvedPath {
    crate::paths::resolve(path, Path::new("/"), Resolution::FileSystem).unwrap_or_else(|_| {
        let lexical = crate::paths::lexical(path, Path::new("/"));
        ResolvedPath {
            lexical: lexical.clone(),
            canonical: lexical,
        }
    })
}

/// The `core.hooksPath` values among `entries`.
fn hooks_values(entries: &[Entry]) -> impl Iterator<Item = &str> {
    entries
        .iter()
        .filter(|e| e.section == "core" && e.subsection.is_none() && e.key == "hookspath")
        .map(|e| e.value.trim())
        .filter(|v| !v.is_empty())
}

impl GitProtection {
    /// Reads the user's and the system's configuration (found as `env`
    /// says), and the configuration of the repositories `working` (the
    /// working directories) are in.
    pub(crate) fn new(
        env: &GitEnvironment,
        home: Option<&Path>,
        working: &[&Path],
        how: Resolution,
    ) -> GitProtection {
        if how != Resolution::FileSystem {
            return GitProtection::default();
        }
        let (files, dirs) = env.user_files(home);
        let mut entries = Vec::new();
        let mut read = Vec::new();
        for file in &files {
            read_with_includes(file, home, 0, &mut entries, &mut read);
        }
        let mut user_hooks: Vec<String> = hooks_values(&entries).map(str::to_owned).collect();
        user_hooks.extend(
            env.pairs
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("core.hookspath"))
                .map(|(_, v)| v.clone()),
        );
        let mut fixed: Vec<Place> = dirs.iter().map(|d| Place::new(d, true, CONFIG)).collect();
        fixed.extend(read.iter().map(|f| Place::new(f, false, CONFIG)));
        let mut protection = GitProtection {
            enabled: true,
            home: home.map(Path::to_path_buf),
            user_hooks,
            fixed: Vec::new(),
            repositories: Mutex::new(HashMap::new()),
        };
        // A hooks directory named by an absolute path is one wherever the
        // repository is; a relative one only inside a repository.
        for value in &protection.user_hooks {
            if let Some(dir) = protection.absolute(value) {
                fixed.push(Place::new(&dir, true, HOOKS));
            }
        }
        for dir in working {
            if let Some(repo) = protection.repository_of(dir) {
                fixed.extend(repo.places.iter().cloned());
            }
        }
        protection.fixed = fixed;
        protection
    }

    /// A hooks directory `value` names wherever the repository is: `~/…`
    /// or an absolute path.
    fn absolute(&self, value: &str) -> Option<PathBuf> {
        match (value.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(home)) => Some(home.join(rest)),
            _ => Path::new(value).is_absolute().then(|| PathBuf::from(value)),
        }
    }

    /// What makes `path` protected by git's configuration, if anything.
    pub(crate) fn protecting(&self, path: &ResolvedPath) -> Option<String> {
        if !self.enabled {
            return None;
        }
        if let Some(place) = self.fixed.iter().find(|p| p.holds(path)) {
            return Some(place.name());
        }
        let start = path.canonical.parent()?;
        let repo = self.repository_of(start)?;
        repo.places.iter().find(|p| p.holds(path)).map(Place::name)
    }

    /// The configuration of the repository `dir` is in (the nearest
    /// directory at or above it holding `.git`), read again when one of
    /// its files changed.
    fn repository_of(&self, dir: &Path) -> Option<Arc<Repository>> {
        let (worktree, meta) = dir.ancestors().find_map(|d| {
            let meta = std::fs::symlink_metadata(d.join(".git")).ok()?;
            Some((d, meta))
        })?;
        let dot_git = stamp_of(&meta);
        let mut cache = self
            .repositories
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(repo) = cache.get(worktree)
            && repo.dot_git == dot_git
            && repo.stamps.iter().all(|(f, s)| stamp(f) == *s)
        {
            return Some(Arc::clone(repo));
        }
        let repo = Arc::new(self.read_repository(worktree, dot_git, meta.is_dir()));
        if cache.len() >= MAX_REPOSITORIES {
            cache.clear();
        }
        cache.insert(worktree.to_path_buf(), Arc::clone(&repo));
        Some(repo)
    }

    /// Reads the configuration of the repository in `worktree`, whose
    /// `.git` has the stamp `dot_git` (a directory when `is_dir`).
    fn read_repository(&self, worktree: &Path, dot_git: Option<Stamp>, is_dir: bool) -> Repository {
        let dot_git_path = worktree.join(".git");
        let mut looked_at = Vec::new();
        let git_dir = if is_dir {
            Some(dot_git_path)
        } else {
            std::fs::read_to_string(&dot_git_path)
                .ok()
                .and_then(|text| {
                    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
                    Some(crate::paths::lexical(Path::new(target), worktree))
                })
        };
        let mut entries = Vec::new();
        let mut read = Vec::new();
        if let Some(git_dir) = git_dir {
            let commondir = git_dir.join("commondir");
            looked_at.push(commondir.clone());
            if let Ok(common) = std::fs::read_to_string(&commondir) {
                let common = crate::paths::lexical(Path::new(common.trim()), &git_dir);
                read_with_includes(
                    &common.join("config"),
                    self.home.as_deref(),
                    0,
                    &mut entries,
                    &mut read,
                );
            }
            for name in ["config", "config.worktree"] {
                read_with_includes(
                    &git_dir.join(name),
                    self.home.as_deref(),
                    0,
                    &mut entries,
                    &mut read,
                );
            }
        }
        let mut places: Vec<Place> = read.iter().map(|f| Place::new(f, false, CONFIG)).collect();
        let values = self
            .user_hooks
            .iter()
            .map(String::as_str)
            .chain(hooks_values(&entries));
        for value in values {
            // A relative value is relative to the working tree, where git
            // runs the hooks.
            let dir = self
                .absolute(value)
                .unwrap_or_else(|| crate::paths::lexical(Path::new(value), worktree));
            places.push(Place::new(&dir, true, HOOKS));
        }
        looked_at.extend(read);
        let stamps = looked_at
            .into_iter()
            .map(|f| {
                let s = stamp(&f);
                (f, s)
            })
            // A file made or replaced in a `.git` directory (git writes its
            // configuration to `config.lock`, then renames it) changes the
            // directory's stamp: only a file there edited in place, or one
            // elsewhere, needs its own.
            .filter(|(f, s)| {
                !(is_dir && s.is_none() && f.parent() == Some(&worktree.join(".git")))
            });
        Repository {
            places,
            dot_git,
            stamps: stamps.collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_names_the_files_git_reads() {
        let env = GitEnvironment::from_vars([
            ("XDG_CONFIG_HOME", "/x"),
            ("GIT_CONFIG_GLOBAL", "/g/config"),
            ("GIT_CONFIG_SYSTEM", "/s/config"),
            ("GIT_CONFIG_COUNT", "2"),
            ("GIT_CONFIG_KEY_0", "core.hooksPath"),
            ("GIT_CONFIG_VALUE_0", "hk"),
            ("GIT_CONFIG_KEY_1", "user.name"),
            ("PATH", "/bin"),
        ]);
        let (files, dirs) = env.user_files(Some(Path::new("/h")));
        for f in [
            "/etc/gitconfig",
            "/s/config",
            "/x/git/config",
            "/h/.config/git/config",
            "/h/.gitconfig",
            "/g/config",
        ] {
            assert!(files.contains(&PathBuf::from(f)), "{f}: {files:?}");
        }
        assert_eq!(
            dirs,
            [PathBuf::from("/x/git"), PathBuf::from("/h/.config/git")]
        );
        assert_eq!(
            env.pairs,
            [
                ("core.hooksPath".to_owned(), "hk".to_owned()),
                ("user.name".to_owned(), String::new())
            ]
        );
    }
}
