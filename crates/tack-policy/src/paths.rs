//! Path resolution: lexical normalisation (no IO) and canonicalisation that
//! resolves symlinks even for paths that do not exist yet.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// How many symlinks one resolution may follow (Linux uses 40 too).
const MAX_LINKS: usize = 40;

/// A path as written and as resolved.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResolvedPath {
    /// Absolute, `.` and `..` removed without looking at the file system.
    pub lexical: PathBuf,
    /// Symlinks resolved (deepest existing ancestor canonicalised, the rest
    /// appended); equal to `lexical` when resolution did no IO.
    pub canonical: PathBuf,
}

impl ResolvedPath {
    /// Both forms, without duplicates.
    pub(crate) fn forms(&self) -> impl Iterator<Item = &Path> {
        let second = (self.canonical != self.lexical).then_some(self.canonical.as_path());
        std::iter::once(self.lexical.as_path()).chain(second)
    }
}

/// Whether resolution may touch the file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// Lexical only (pure).
    Lexical,
    /// Resolve symlinks with the file system.
    FileSystem,
}

/// Join `path` onto `base` (when relative) and remove `.` and `..` lexically.
pub(crate) fn lexical(path: &Path, base: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// What one `lstat` said about a path.
#[derive(Debug, Clone)]
enum Stat {
    Missing,
    Plain,
    Link(PathBuf),
}

/// Resolves paths, remembering what it learnt from the file system so the
/// many paths of one request share their `lstat`s.
#[derive(Debug)]
pub(crate) struct Resolver {
    how: Resolution,
    cache: RefCell<HashMap<PathBuf, Stat>>,
}

impl Resolver {
    pub(crate) fn new(how: Resolution) -> Resolver {
        Resolver {
            how,
            cache: RefCell::new(HashMap::new()),
        }
    }

    fn stat(&self, path: &Path) -> Result<Stat, String> {
        if let Some(s) = self.cache.borrow().get(path) {
            return Ok(s.clone());
        }
        let stat = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => Stat::Link(
                std::fs::read_link(path)
                    .map_err(|e| format!("cannot read symbolic link {}: {e}", path.display()))?,
            ),
            Ok(_) => Stat::Plain,
            Err(_) => Stat::Missing,
        };
        self.cache
            .borrow_mut()
            .insert(path.to_path_buf(), stat.clone());
        Ok(stat)
    }

    /// Canonicalise an absolute path: follow every symlink of every existing
    /// component (also dangling ones, whose target is what a write would
    /// create), treat `..` physically, and append what does not exist.
    ///
    /// Returns an error text when a symlink loop or an unreadable link makes
    /// the real location unknowable.
    pub(crate) fn canonical(&self, abs: &Path) -> Result<PathBuf, String> {
        let mut queue: VecDeque<OsString> = abs
            .components()
            .map(|c| c.as_os_str().to_os_string())
            .collect();
        let mut cur = PathBuf::from("/");
        let mut links = 0usize;
        let mut exists = true;
        while let Some(part) = queue.pop_front() {
            if part == "/" || part == "." {
                continue;
            }
            if part == ".." {
                cur.pop();
                // Back out of what did not exist: what follows may exist
                // again (`new/../link/f` goes through the link), and what
                // was reached so far is resolved, so no link is skipped.
                if !exists {
                    exists = !matches!(self.stat(&cur)?, Stat::Missing);
                }
                continue;
            }
            cur.push(&part);
            if let Some(why) = process_relative(&cur) {
                return Err(why);
            }
            if !exists {
                continue;
            }
            match self.stat(&cur)? {
                Stat::Link(target) => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(format!(
                            "too many symbolic links while resolving {}",
                            abs.display()
                        ));
                    }
                    cur.pop();
                    if target.is_absolute() {
                        cur = PathBuf::from("/");
                    }
                    for c in target.components().rev() {
                        queue.push_front(c.as_os_str().to_os_string());
                    }
                }
                Stat::Plain => {}
                Stat::Missing => exists = false,
            }
        }
        Ok(cur)
    }

    /// Whether this resolver may look at the file system.
    pub(crate) fn uses_file_system(&self) -> bool {
        self.how == Resolution::FileSystem
    }

    /// The existing paths a shell pattern (absolute; `*`, `?`, `[…]` in
    /// components) expands to, hidden files included. None when it matches
    /// too much to check.
    pub(crate) fn expand(&self, pattern: &Path) -> Option<Vec<PathBuf>> {
        const MAX_MATCHES: usize = 256;
        const MAX_ENTRIES: usize = 8192;
        let mut current = vec![PathBuf::from("/")];
        let mut seen = 0usize;
        for comp in pattern.components() {
            let text = comp.as_os_str().to_string_lossy();
            if matches!(comp, Component::RootDir | Component::Prefix(_)) {
                continue;
            }
            if !text.contains(['*', '?', '[']) {
                for p in &mut current {
                    p.push(comp.as_os_str());
                }
                continue;
            }
            let matcher = globset::GlobBuilder::new(&text)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .ok()?
                .compile_matcher();
            let mut next = Vec::new();
            for dir in &current {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    seen += 1;
                    if seen > MAX_ENTRIES {
                        return None;
                    }
                    let name = entry.file_name();
                    if matcher.is_match(Path::new(&name)) {
                        next.push(dir.join(&name));
                        if next.len() > MAX_MATCHES {
                            return None;
                        }
                    }
                }
            }
            current = next;
            if current.is_empty() {
                break;
            }
        }
        Some(current)
    }

    /// Resolve `path` (relative to `base`).
    pub(crate) fn resolve(&self, path: &Path, base: &Path) -> Result<ResolvedPath, String> {
        let joined = base.join(path);
        let mut prefix = PathBuf::new();
        for c in joined.components() {
            prefix.push(c);
            if let Some(why) = process_relative(&prefix) {
                return Err(why);
            }
        }
        let lexical_path = lexical(path, base);
        let canonical_path = match self.how {
            Resolution::Lexical => lexical_path.clone(),
            // Resolve the written path physically (a/../b through a symlink
            // a lands where the kernel lands).
            Resolution::FileSystem => self.canonical(&if path.is_absolute() {
                path.to_path_buf()
            } else {
                base.join(path)
            })?,
        };
        Ok(ResolvedPath {
            lexical: lexical_path,
            canonical: canonical_path,
        })
    }
}

/// Why `path` names a file only the process that opens it can resolve:
/// `/proc/self/cwd`, `/proc/<pid>/root`, `/proc/thread-self/fd`, `/dev/fd`,
/// `/dev/stdin`… lead somewhere else in every process (the shell that runs
/// a command is not tack), so where they lead cannot be checked here.
/// `path` is absolute and not normalised (`/proc/self/cwd/..` counts).
fn process_relative(path: &Path) -> Option<String> {
    /// Entries of a `/proc/<pid>/` directory that lead elsewhere.
    const LEADS_ELSEWHERE: &[&str] = &["cwd", "root", "fd", "exe", "map_files", "task", "ns"];
    let mut parts = path.components().filter_map(|c| match c {
        Component::Normal(n) => Some(n.to_string_lossy()),
        _ => None,
    });
    let first = parts.next()?;
    let second = parts.next()?;
    let leads = match first.as_ref() {
        "proc" => {
            let process = second == "self"
                || second == "thread-self"
                || second.bytes().all(|b| b.is_ascii_digit());
            process
                && parts
                    .next()
                    .is_some_and(|third| LEADS_ELSEWHERE.contains(&third.as_ref()))
        }
        "dev" => matches!(second.as_ref(), "fd" | "stdin" | "stdout" | "stderr"),
        _ => false,
    };
    leads.then(|| {
        format!(
            "`{}` leads wherever the process that opens it is (its directory, its root, its open files), so where it leads cannot be checked before it runs",
            path.display()
        )
    })
}

/// Canonicalise once, without a shared cache.
pub(crate) fn canonical(abs: &Path) -> Result<PathBuf, String> {
    Resolver::new(Resolution::FileSystem).canonical(abs)
}

/// Resolve `path` (relative to `base`) in the chosen way, without a shared cache.
pub(crate) fn resolve(path: &Path, base: &Path, how: Resolution) -> Result<ResolvedPath, String> {
    Resolver::new(how).resolve(path, base)
}

/// True when `path` is `dir` or inside it (component-wise).
pub(crate) fn is_within(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_removes_dots() {
        assert_eq!(
            lexical(Path::new("a/../b/./c"), Path::new("/w")),
            PathBuf::from("/w/b/c")
        );
        assert_eq!(
            lexical(Path::new("/../../x"), Path::new("/w")),
            PathBuf::from("/x")
        );
    }

    #[test]
    fn canonical_follows_links_and_dangling_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("secrets")).unwrap();
        std::os::unix::fs::symlink(root.join("secrets"), root.join("link")).unwrap();
        std::os::unix::fs::symlink("secrets/new", root.join("dangling")).unwrap();
        assert_eq!(
            canonical(&root.join("link/x")).unwrap(),
            root.join("secrets/x")
        );
        assert_eq!(
            canonical(&root.join("dangling")).unwrap(),
            root.join("secrets/new")
        );
        // `..` after a symlink is physical.
        std::fs::create_dir_all(root.join("deep/inner")).unwrap();
        std::os::unix::fs::symlink(root.join("deep/inner"), root.join("jump")).unwrap();
        assert_eq!(
            canonical(&root.join("jump/../x")).unwrap(),
            root.join("deep/x")
        );
        // A link after `..` out of a directory that does not exist is
        // still followed.
        assert_eq!(
            canonical(&root.join("missing/../link/x")).unwrap(),
            root.join("secrets/x")
        );
    }

    #[test]
    fn canonical_reports_loops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(root.join("b"), root.join("a")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("b")).unwrap();
        assert!(canonical(&root.join("a/x")).is_err());
    }
}
