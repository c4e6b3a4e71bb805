//! What a repository's git configuration says of its remotes: which
//! repository a `git push`, `git fetch` or `git pull` that names a remote
//! (or none) reaches, so that one on this machine is known as one. A push
//! to `backup` whose URL is `/tmp/copy.git` copies what git tracks as
//! surely as `git push /tmp/copy.git` does.
//!
//! The syntax read (git-config(1), "CONFIGURATION FILE"): `[section]`,
//! `[section "subsection"]` and the old `[section.subsection]`; `key =
//! value` and a bare `key` (true); `#` and `;` comments; double quotes and
//! backslash escapes; `include.path` and every `includeIf.*.path` (read
//! whether or not its condition holds: more remotes, never fewer). The
//! files: the user's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`), then
//! the repository's (and its common directory's, for a linked worktree).

use std::path::{Path, PathBuf};

/// Includes followed at most this deep (git's own limit is 10).
const MAX_DEPTH: usize = 10;

/// One `section.subsection.key = value` line: section and key lower-case,
/// the subsection as written (it is case-sensitive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) section: String,
    pub(crate) subsection: Option<String>,
    pub(crate) key: String,
    pub(crate) value: String,
}

/// The configuration of one repository, as git reads it for that
/// repository, plus `-c key=value` pairs given on the command line.
#[derive(Debug, Default)]
pub(crate) struct GitConfig {
    entries: Vec<Entry>,
}

impl GitConfig {
    /// The configuration git reads in the working tree `worktree`: the
    /// user's files under `home`, then the repository's.
    pub(crate) fn of_worktree(worktree: &Path, home: Option<&Path>) -> GitConfig {
        let mut config = GitConfig::of_user(home);
        if let Some(git_dir) = crate::git_index::git_dir(worktree) {
            if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
                config.read_file(&git_dir.join(common.trim()).join("config"), 0);
            }
            config.read_file(&git_dir.join("config"), 0);
            // With `extensions.worktreeConfig`, a worktree's own settings
            // (read whether or not it is set: more remotes, never fewer).
            config.read_file(&git_dir.join("config.worktree"), 0);
        }
        config
    }

    /// The user's configuration (`$XDG_CONFIG_HOME/git/config`,
    /// `~/.gitconfig`).
    pub(crate) fn of_user(home: Option<&Path>) -> GitConfig {
        let mut config = GitConfig::default();
        config.read_file(Path::new("/etc/gitconfig"), 0);
        if let Some(home) = home {
            config.read_file(&xdg_config(home).join("git/config"), 0);
            config.read_file(&home.join(".gitconfig"), 0);
        }
        config
    }

    /// The files of ignore patterns every repository of the user's has:
    /// `core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`.
    pub(crate) fn excludes_files(&self, home: &Path) -> Vec<PathBuf> {
        match self.last("core", None, "excludesfile") {
            Some(f) => match f.strip_prefix("~/") {
                Some(rest) => vec![home.join(rest)],
                None => vec![PathBuf::from(f)],
            },
            None => vec![xdg_config(home).join("git/ignore")],
        }
    }

    /// Adds `key=value` as `git -c` gives it (the last word wins for a
    /// single value, as in git; a URL list gains one).
    pub(crate) fn set(&mut self, pair: &str) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, "true"));
        let Some((section, rest)) = key.split_once('.') else {
            return;
        };
        let (subsection, key) = match rest.rsplit_once('.') {
            Some((sub, key)) => (Some(sub.to_string()), key),
            None => (None, rest),
        };
        self.entries.push(Entry {
            section: section.to_ascii_lowercase(),
            subsection,
            key: key.to_ascii_lowercase(),
            value: value.to_string(),
        });
    }

    fn read_file(&mut self, file: &Path, depth: usize) {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        read_with_includes(
            file,
            home.as_deref(),
            depth,
            &mut self.entries,
            &mut Vec::new(),
        );
    }

    /// Every value of `section.subsection.key`, in the order git reads
    /// them.
    fn values(&self, section: &str, subsection: Option<&str>, key: &str) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| {
                e.section == section && e.subsection.as_deref() == subsection && e.key == key
            })
            .map(|e| e.value.as_str())
            .collect()
    }

    /// The last value of `section.subsection.key`.
    fn last(&self, section: &str, subsection: Option<&str>, key: &str) -> Option<&str> {
        self.values(section, subsection, key).pop()
    }

    /// The remotes' names.
    pub(crate) fn remotes(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for e in &self.entries {
            if e.section == "remote"
                && let Some(name) = e.subsection.as_deref()
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
        names
    }

    fn is_remote(&self, name: &str) -> bool {
        self.entries
            .iter()
            .any(|e| e.section == "remote" && e.subsection.as_deref() == Some(name))
    }

    /// The remote a push or fetch with none named reaches, from the branch
    /// checked out (`branch` of `HEAD`).
    fn default_remote(&self, branch: Option<&str>, push: bool) -> Option<&str> {
        let of_branch = |key| branch.and_then(|b| self.last("branch", Some(b), key));
        let pushed = if push {
            of_branch("pushremote").or_else(|| self.last("remote", None, "pushdefault"))
        } else {
            None
        };
        pushed.or_else(|| of_branch("remote")).or(Some("origin"))
    }

    /// The URLs `git push` (`push`) or `git fetch` reaches for `repository`
    /// (a remote's name or a URL; None: the default remote, or with
    /// `all`, every remote), each rewritten by `url.<base>.insteadOf` (and
    /// `pushInsteadOf` for a push) as git does, the URL as written kept
    /// too.
    pub(crate) fn urls(
        &self,
        repository: Option<&str>,
        all: bool,
        push: bool,
        branch: Option<&str>,
    ) -> Vec<String> {
        let names: Vec<&str> = if all {
            self.remotes()
        } else {
            match repository {
                Some(r) if !self.is_remote(r) => return self.rewritten(r, push, false),
                Some(r) => vec![r],
                None => self.default_remote(branch, push).into_iter().collect(),
            }
        };
        let mut out = Vec::new();
        for name in names {
            let push_urls: Vec<&str> = if push {
                self.values("remote", Some(name), "pushurl")
            } else {
                Vec::new()
            };
            if push_urls.is_empty() {
                for url in self.values("remote", Some(name), "url") {
                    out.extend(self.rewritten(url, push, false));
                }
            } else {
                for url in push_urls {
                    out.extend(self.rewritten(url, push, true));
                }
            }
        }
        out
    }

    /// The proxies git may connect through: `http.proxy`,
    /// `http.<url>.proxy` and `remote.<name>.proxy`, whatever URL or remote
    /// they are for.
    pub(crate) fn proxies(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .entries
            .iter()
            .filter(|e| e.key == "proxy" && matches!(e.section.as_str(), "http" | "remote"))
            .map(|e| e.value.as_str())
            .filter(|v| !v.is_empty())
            .collect();
        // `http.curloptResolve` (and `http.<url>.curloptResolve`):
        // `[+]HOST:PORT:ADDR[,ADDR]` connects to each ADDR for HOST.
        for e in self
            .entries
            .iter()
            .filter(|e| e.section == "http" && e.key == "curloptresolve")
        {
            let value = e.value.trim_start_matches('+');
            if let Some(addresses) = value.splitn(3, ':').nth(2) {
                out.extend(addresses.split(',').filter(|a| !a.is_empty()));
            }
        }
        out
    }

    /// The submodules' URLs the repository's configuration holds
    /// (`submodule.NAME.url`, which `git submodule init` copied from
    /// `.gitmodules` and which git uses from then on), each with what
    /// `insteadOf` makes of it.
    pub(crate) fn submodule_urls(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| e.section == "submodule" && e.key == "url" && e.subsection.is_some())
            .flat_map(|e| self.rewritten(&e.value, false, false))
            .collect()
    }

    /// What `insteadOf` makes of a URL (the URL first).
    pub(crate) fn rewrite(&self, url: &str) -> Vec<String> {
        self.rewritten(url, false, false)
    }

    /// `url` and what the longest matching `insteadOf` (or, for a push of
    /// a remote's `url`, `pushInsteadOf`) makes of it.
    fn rewritten(&self, url: &str, push: bool, push_url: bool) -> Vec<String> {
        let mut out = vec![url.to_string()];
        let mut keys = vec!["insteadof"];
        if push && !push_url {
            keys.push("pushinsteadof");
        }
        for key in keys {
            let best = self
                .entries
                .iter()
                .filter(|e| e.section == "url" && e.key == key && url.starts_with(&e.value))
                .max_by_key(|e| e.value.len());
            if let Some(e) = best
                && let Some(base) = &e.subsection
            {
                out.push(format!("{base}{}", &url[e.value.len()..]));
            }
        }
        out
    }
}

/// The user's configuration files git reads (`$XDG_CONFIG_HOME/git/config`,
/// `~/.gitconfig`), whether or not they exist.
pub(crate) fn user_files(home: &Path) -> Vec<PathBuf> {
    vec![xdg_config(home).join("git/config"), home.join(".gitconfig")]
}

/// Reads a configuration file as git does: its entries into `entries`, each
/// file it includes (`include.path`, every `includeIf.*.path`; `~/` from
/// `home`) read in place; every file read or looked for on the way, the
/// file itself first, into `files`.
pub(crate) fn read_with_includes(
    file: &Path,
    home: Option<&Path>,
    depth: usize,
    entries: &mut Vec<Entry>,
    files: &mut Vec<PathBuf>,
) {
    if depth > MAX_DEPTH || files.iter().any(|f| f == file) {
        return;
    }
    files.push(file.to_path_buf());
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    for entry in entries_of(&text) {
        match include_of(&entry, file, home) {
            Some(path) => read_with_includes(&path, home, depth + 1, entries, files),
            None => entries.push(entry),
        }
    }
}

/// The files `files` include (`include.path`, every `includeIf.*.path`),
/// and theirs, as git finds them: the files read to find them are those git
/// itself reads. Not `files` themselves.
pub(crate) fn included_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut todo: Vec<(PathBuf, usize)> = files.iter().map(|f| (f.clone(), 0)).collect();
    while let Some((file, depth)) = todo.pop() {
        if depth > MAX_DEPTH {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        for path in entries_of(&text)
            .iter()
            .filter_map(|e| include_of(e, &file, home.as_deref()))
        {
            if !out.contains(&path) && !files.contains(&path) {
                out.push(path.clone());
                todo.push((path, depth + 1));
            }
        }
    }
    out
}

/// The entries of a configuration file's text, in order (a key with no
/// `=` is `true`); comments and keys outside a section are left out.
fn entries_of(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut subsection: Option<String> = None;
    for line in text.lines() {
        let mut line = line.trim_start();
        if let Some(rest) = line.strip_prefix('[') {
            let Some((header, after)) = rest.split_once(']') else {
                continue;
            };
            (section, subsection) = parse_header(header);
            line = after.trim_start();
            if line.is_empty() {
                continue;
            }
        }
        if line.starts_with(['#', ';']) || line.is_empty() || section.is_empty() {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), parse_value(v)),
            None => (line.trim(), "true".to_string()),
        };
        out.push(Entry {
            section: section.clone(),
            subsection: subsection.clone(),
            key: key.to_ascii_lowercase(),
            value,
        });
    }
    out
}

/// The file an `include.path` or `includeIf.*.path` entry of `file`
/// names, as git finds it (`~/` from `home`, else from `file`'s directory).
fn include_of(entry: &Entry, file: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let include = entry.key == "path"
        && (entry.section == "include"
            || (entry.section == "includeif" && entry.subsection.is_some()));
    if !include {
        return None;
    }
    Some(match entry.value.strip_prefix("~/") {
        Some(rest) => home.map(|h| h.join(rest)).unwrap_or_default(),
        None => crate::paths::lexical(
            Path::new(&entry.value),
            file.parent().unwrap_or(Path::new("/")),
        ),
    })
}

fn xdg_config(home: &Path) -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".config"))
}

/// The branch `HEAD` of the repository in `worktree` names, if any.
pub(crate) fn head_branch(worktree: &Path) -> Option<String> {
    let git_dir = crate::git_index::git_dir(worktree)?;
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

/// The directory on this machine a git URL names, if it names one: a path
/// (`/srv/x.git`, `../x`, `~/x`, `x`), or `file://…`; not a URL of another
/// scheme, nor `host:path` (git's scp form: a colon before any slash).
pub(crate) fn local_path(url: &str) -> Option<&str> {
    if let Some(path) = url.strip_prefix("file://") {
        return Some(path);
    }
    if url.contains("://") || url.is_empty() {
        return None;
    }
    match (url.find(':'), url.find('/')) {
        (Some(colon), Some(slash)) if colon < slash => None,
        (Some(_), None) => None,
        _ => Some(url),
    }
}

fn parse_header(header: &str) -> (String, Option<String>) {
    match header.split_once('"') {
        Some((section, rest)) => {
            let mut sub = String::new();
            let mut chars = rest.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => sub.extend(chars.next()),
                    '"' => break,
                    c => sub.push(c),
                }
            }
            (section.trim().to_ascii_lowercase(), Some(sub))
        }
        // `[section.subsection]`, the old form: the subsection lower-case.
        None => match header.trim().split_once('.') {
            Some((section, sub)) => (section.to_ascii_lowercase(), Some(sub.to_ascii_lowercase())),
            None => (header.trim().to_ascii_lowercase(), None),
        },
    }
}

/// A value: quotes taken off, escapes read, a comment outside quotes cut.
fn parse_value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(c) => out.push(c),
                None => {}
            },
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> GitConfig {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config");
        std::fs::write(&file, text).unwrap();
        let mut c = GitConfig::default();
        c.read_file(&file, 0);
        c
    }

    #[test]
    fn a_remotes_urls_are_read_as_git_reads_them() {
        let c = config(
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/a/b.git\n\
             \tfetch = +refs/heads/*:refs/remotes/origin/*\n[remote \"backup\"]\n\t\
             url = \"/srv/backup.git\" # a comment\n\tpushurl = ../mirror.git\n\
             [branch \"main\"]\n\tremote = backup\n[remote.old]\n\turl = file:///srv/old\n",
        );
        assert_eq!(c.remotes(), ["origin", "backup", "old"]);
        assert_eq!(
            c.urls(Some("origin"), false, true, None),
            ["https://github.com/a/b.git"]
        );
        assert_eq!(
            c.urls(Some("backup"), false, false, None),
            ["/srv/backup.git"]
        );
        assert_eq!(c.urls(Some("backup"), false, true, None), ["../mirror.git"]);
        // The branch's remote, else origin.
        assert_eq!(
            c.urls(None, false, false, Some("main")),
            ["/srv/backup.git"]
        );
        assert_eq!(
            c.urls(None, false, false, Some("dev")),
            ["https://github.com/a/b.git"]
        );
        // A name no remote has is a path or URL.
        assert_eq!(c.urls(Some("../x"), false, true, None), ["../x"]);
        assert_eq!(c.urls(None, true, false, None).len(), 3);
    }

    #[test]
    fn instead_of_rewrites_and_includes_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("more"),
            "[url \"/srv/local/\"]\n\tpushInsteadOf = https://github.com/\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("config"),
            "[include]\n\tpath = more\n[remote \"origin\"]\n\turl = https://github.com/a/b\n",
        )
        .unwrap();
        let mut c = GitConfig::default();
        c.read_file(&dir.path().join("config"), 0);
        assert_eq!(
            c.urls(Some("origin"), false, true, None),
            ["https://github.com/a/b", "/srv/local/a/b"]
        );
        assert_eq!(
            c.urls(Some("origin"), false, false, None),
            ["https://github.com/a/b"]
        );
        c.set("remote.z.url=/tmp/z");
        assert_eq!(c.urls(Some("z"), false, true, None), ["/tmp/z"]);
    }

    #[test]
    fn local_paths_are_told_from_remote_urls() {
        for local in ["/srv/x.git", "../x", "x", "~/x", "file:///srv/x", "./a:b"] {
            assert!(local_path(local).is_some(), "{local}");
        }
        for remote in [
            "https://github.com/a/b",
            "ssh://host/x",
            "git@github.com:a/b",
            "host:x",
            "",
        ] {
            assert!(local_path(remote).is_none(), "{remote}");
        }
    }
}
