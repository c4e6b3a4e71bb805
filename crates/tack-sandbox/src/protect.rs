//! The names the sandbox keeps read-only wherever it finds them inside the
//! writable roots: what git, an editor, a shell or tack itself runs on its
//! own (hooks, `core.fsmonitor`, `.vscode/tasks.json`, `.envrc`, agent
//! settings). A command that could write them would have code run outside
//! the sandbox later, by the user's next `git status` or the next session.
//!
//! The names are the permission layer's protected-path safeguard (given in
//! the [`Config`](crate::Config)), less what ordinary builds write
//! themselves ([`WRITTEN_BY_BUILDS`]). The permission layer judges only the paths a command line
//! names; the sandbox holds for what a script or a build writes.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Names of the safeguard's that stay writable: Yarn's `.yarn`, `.pnp.cjs`
/// and `.pnp.loader.mjs`. Every `yarn install` rewrites them (a read-only
/// copy would break it), and they run only when the project's own code runs
/// through Yarn, which a command may change anyway.
const WRITTEN_BY_BUILDS: &[&str] = &[".yarn", ".pnp.cjs", ".pnp.loader.mjs"];

/// How deep beneath a root the walk looks (a root's own entries are depth
/// 1: `vendor/lib/.git` is found reading `vendor/lib`, depth 3 reads).
const MAX_DEPTH: usize = 4;
/// How many directories the walk reads in all, whatever the roots: the
/// shallowest first, so a huge tree costs this and no more.
const MAX_DIRS: usize = 2000;
/// How many directory entries it looks at in all (a directory of a
/// hundred thousand files costs as much as a thousand small ones).
const MAX_ENTRIES: usize = 20_000;
/// How long it may take in all, whatever the file system (a network one,
/// a cold cache): what it has found by then is kept.
const MAX_TIME: std::time::Duration = std::time::Duration::from_millis(100);
/// How many protected paths it keeps (each is a mount at every command).
const MAX_FOUND: usize = 256;
/// Directories not walked into: what package managers and builds fill,
/// where no one keeps a repository or editor settings of their own.
const SKIPPED: &[&str] = &[
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".gradle",
    ".yarn",
];

/// The protected paths beneath `roots` that exist now: each root's
/// `nested` paths, every entry of `names` found by a breadth-first
/// walk ([`MAX_DEPTH`] deep, at most [`MAX_DIRS`] directories,
/// [`MAX_ENTRIES`] entries and [`MAX_TIME`] in all, links not followed,
/// protected and [`SKIPPED`] directories not entered), and
/// the `.git` of each submodule a root's `.gitmodules` names, at any depth.
pub(crate) fn find(roots: &[PathBuf], names: &[String], nested: &[String]) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for root in roots {
        found.extend(
            nested
                .iter()
                .map(|n| root.join(n))
                .filter(|p| p.symlink_metadata().is_ok()),
        );
        found.extend(
            submodules(root)
                .into_iter()
                .map(|p| p.join(".git"))
                .filter(|p| p.symlink_metadata().is_ok()),
        );
    }
    let mut queue: VecDeque<(PathBuf, usize)> = roots.iter().map(|r| (r.clone(), 1)).collect();
    let deadline = std::time::Instant::now() + MAX_TIME;
    let (mut read, mut seen) = (0, 0);
    'walk: while let Some((dir, depth)) = queue.pop_front() {
        if read >= MAX_DIRS || found.len() >= MAX_FOUND || std::time::Instant::now() > deadline {
            break;
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                break 'walk;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if is_protected(name, names) {
                found.push(entry.path());
                continue;
            }
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && depth < MAX_DEPTH && !SKIPPED.contains(&name) {
                queue.push_back((entry.path(), depth + 1));
            }
        }
    }
    found.truncate(MAX_FOUND);
    found
}

/// Whether `name` is one of `names` (without case, as the safeguard
/// compares: on a file system that ignores it, `.Git` is `.git`) and not
/// one builds write.
pub(crate) fn is_protected(name: &str, names: &[String]) -> bool {
    names.iter().any(|n| n.eq_ignore_ascii_case(name))
        && !WRITTEN_BY_BUILDS
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
}

/// The submodule paths `root/.gitmodules` names (`path = vendor/lib`),
/// those inside `root` only.
fn submodules(root: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(root.join(".gitmodules")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "path").then(|| value.trim().trim_matches('"'))
        })
        .map(Path::new)
        .filter(|p| {
            p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
        })
        .map(|p| root.join(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_repositories_editor_settings_and_submodules_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in [
            ".git/hooks",
            "vendor/lib/.git",
            "app/.vscode",
            "deep/a/b/c/.git",
            "node_modules/x/.git",
            "ext/mod",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".envrc"), "").unwrap();
        std::fs::write(root.join("ext/mod/.git"), "gitdir: ../../.git/modules/mod").unwrap();
        std::fs::write(
            root.join(".gitmodules"),
            "[submodule \"m\"]\n\tpath = ext/mod\n",
        )
        .unwrap();
        let (names, nested) = crate::sandbox::tests::guarded();
        let found = find(&[root.to_path_buf()], &names, &nested);
        for p in [
            ".git",
            "vendor/lib/.git",
            "app/.vscode",
            ".envrc",
            ".gitmodules",
            "ext/mod/.git",
        ] {
            assert!(found.contains(&root.join(p)), "{p}: {found:?}");
        }
        // Deeper than the bound, and inside node_modules: not looked for.
        assert!(!found.contains(&root.join("deep/a/b/c/.git")), "{found:?}");
        assert!(
            !found.contains(&root.join("node_modules/x/.git")),
            "{found:?}"
        );
        // Nothing inside a protected directory is walked.
        assert!(!found.iter().any(|p| p.starts_with(root.join(".git/hooks"))));
    }
}
