//! The files git tracks in a working tree, read from its index: what `git
//! log -p`, `git show`, `git diff`, `git grep`, `git archive` and `git
//! cat-file` can print without naming them. A file a Read rule denies is
//! printed by those commands only when git has it, so the policy asks
//! about them only then (and not for every repository that has a `.env`
//! beside it, ignored).
//!
//! The index format (`Documentation/gitformat-index.txt`): versions 2 to
//! 4, SHA-1 or SHA-256 object names. A split index (its `link` extension)
//! keeps most entries in another file: it is read as unknown, and so is an
//! index over 64 MiB.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

const MAX_INDEX: u64 = 64 * 1024 * 1024;

/// The working tree `dir` is in: the nearest directory at or above it that
/// holds `.git` (a directory, or a file naming one).
pub(crate) fn worktree_of(dir: &Path) -> Option<&Path> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
}

/// What git tracks in `worktree` (absolute paths under it), or None when
/// it cannot be known (no index to read, a split index, too large). What
/// this process has once seen tracked there stays in: a file taken out of
/// the index (`git rm --cached .env`, `git read-tree --empty`) is still in
/// the commits `git log -p` prints. The policy reads the index of the
/// project's repository when it is built, so this holds from the session's
/// start.
pub(crate) fn tracked(worktree: &Path) -> Option<Arc<[PathBuf]>> {
    static CACHE: Mutex<Option<HashMap<PathBuf, Cached>>> = Mutex::new(None);
    let git_dir = git_dir(worktree)?;
    let index = git_dir.join("index");
    let meta = std::fs::metadata(&index).ok()?;
    if !meta.is_file() || meta.len() > MAX_INDEX {
        return None;
    }
    let stamp = (meta.modified().ok()?, meta.len());
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(c) = cache.get(&index)
        && c.stamp == stamp
        && c.worktree == worktree
    {
        return Some(Arc::clone(&c.files));
    }
    let bytes = std::fs::read(&index).ok()?;
    let names = parse(&bytes, hash_len(&git_dir))?;
    let mut files: Vec<PathBuf> = names
        .iter()
        .filter_map(|n| std::str::from_utf8(n).ok())
        .map(|n| worktree.join(n.trim_end_matches('/')))
        .collect();
    if let Some(before) = cache.get(&index).filter(|c| c.worktree == worktree) {
        let now: std::collections::HashSet<&PathBuf> = files.iter().collect();
        let gone: Vec<PathBuf> = before
            .files
            .iter()
            .filter(|f| !now.contains(f))
            .cloned()
            .collect();
        files.extend(gone);
    }
    let files: Arc<[PathBuf]> = files.into();
    cache.insert(
        index,
        Cached {
            stamp,
            worktree: worktree.to_path_buf(),
            files: Arc::clone(&files),
        },
    );
    Some(files)
}

struct Cached {
    stamp: (SystemTime, u64),
    worktree: PathBuf,
    files: Arc<[PathBuf]>,
}

/// The repository directory of `worktree`: its `.git`, or where a `.git`
/// file (`gitdir: …`, a linked worktree or a submodule) points.
pub(crate) fn git_dir(worktree: &Path) -> Option<PathBuf> {
    let dot_git = worktree.join(".git");
    let meta = std::fs::metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(worktree.join(target))
}

/// 32 for a SHA-256 repository (`extensions.objectFormat = sha256` in its
/// configuration, or its common directory's), else 20.
fn hash_len(git_dir: &Path) -> usize {
    let mut dirs = vec![git_dir.to_path_buf()];
    if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
        dirs.push(git_dir.join(common.trim()));
    }
    let sha256 = dirs.iter().any(|d| {
        std::fs::read_to_string(d.join("config")).is_ok_and(|c| {
            c.lines().any(|l| {
                let l = l.trim().to_ascii_lowercase().replace(' ', "");
                l == "objectformat=sha256"
            })
        })
    });
    if sha256 { 32 } else { 20 }
}

/// The entries' names of an index file, or None when it is not one this
/// reads whole.
fn parse(b: &[u8], hash_len: usize) -> Option<Vec<Vec<u8>>> {
    let u32_at =
        |i: usize| -> Option<u32> { Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?)) };
    if b.get(..4)? != b"DIRC" {
        return None;
    }
    let version = u32_at(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = u32_at(8)? as usize;
    let mut names: Vec<Vec<u8>> = Vec::with_capacity(count.min(1 << 20));
    let mut pos = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = pos;
        // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each).
        pos += 40 + hash_len;
        let flags = u16::from_be_bytes(b.get(pos..pos + 2)?.try_into().ok()?);
        pos += 2;
        if version >= 3 && flags & 0x4000 != 0 {
            pos += 2;
        }
        let name = if version == 4 {
            let (strip, used) = varint(b.get(pos..)?)?;
            pos += used;
            let end = pos + b.get(pos..)?.iter().position(|&c| c == 0)?;
            let keep = prev.len().checked_sub(strip)?;
            let mut name = prev[..keep].to_vec();
            name.extend_from_slice(&b[pos..end]);
            pos = end + 1;
            name
        } else {
            let len = match (flags & 0x0fff) as usize {
                0x0fff => b.get(pos..)?.iter().position(|&c| c == 0)?,
                n => n,
            };
            let name = b.get(pos..pos + len)?.to_vec();
            pos += len;
            // NUL-padded to a multiple of eight, at least one NUL.
            pos = start + ((pos - start + 8) & !7);
            name
        };
        prev.clone_from(&name);
        names.push(name);
    }
    // Extensions, up to the trailing checksum: a split index keeps its
    // other entries elsewhere.
    while pos + 8 <= b.len().saturating_sub(hash_len) {
        let sig = b.get(pos..pos + 4)?;
        if sig == b"link" {
            return None;
        }
        let size = u32_at(pos + 4)? as usize;
        pos = pos.checked_add(8 + size)?;
    }
    Some(names)
}

/// git's offset varint (`decode_varint`): the value and the bytes used.
fn varint(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    let mut c = *b.first()?;
    let mut val = (c & 127) as usize;
    while c & 128 != 0 {
        i += 1;
        c = *b.get(i)?;
        val = val.checked_add(1)?.checked_shl(7)? + (c & 127) as usize;
    }
    Some((val, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[expect(
        clippy::disallowed_types,
        clippy::disallowed_methods,
        reason = "the test makes its repositories with git(1)"
    )]
    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    /// Every index version git writes, read as `git ls-files` lists it.
    #[test]
    fn reads_what_git_writes() {
        for version in ["2", "3", "4"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().canonicalize().unwrap();
            git(&root, &["init", "-q"]);
            let long = format!("deep/{0}/{0}/{0}/file.txt", "d".repeat(200));
            for f in [
                ".env",
                "src/main.rs",
                "src/lib.rs",
                "secrets/prod.key",
                &long,
            ] {
                let p = root.join(f);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, "x").unwrap();
            }
            std::fs::write(root.join("ignored.txt"), "x").unwrap();
            git(&root, &["add", ".env", "src", "secrets", "deep"]);
            git(&root, &["update-index", "--index-version", version]);
            if version == "3" {
                // An extended flag (intent-to-add) makes an entry longer.
                std::fs::write(root.join("later.txt"), "x").unwrap();
                git(&root, &["add", "-N", "later.txt"]);
            }
            let files = tracked(&root).expect(version);
            let mut got: Vec<String> = files
                .iter()
                .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
                .collect();
            got.sort();
            let mut want = vec![".env", "secrets/prod.key", "src/lib.rs", "src/main.rs"];
            want.push(&long);
            if version == "3" {
                want.push("later.txt");
            }
            want.sort();
            assert_eq!(got, want, "index version {version}");
        }
    }

    #[test]
    fn a_file_once_tracked_stays_in() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        git(&root, &["init", "-q"]);
        std::fs::write(root.join(".env"), "x").unwrap();
        std::fs::write(root.join("a"), "x").unwrap();
        git(&root, &["add", "."]);
        assert_eq!(tracked(&root).unwrap().len(), 2);
        git(&root, &["rm", "-q", "--cached", ".env"]);
        // The index changed (its size at least): read again, `.env` kept.
        let files = tracked(&root).unwrap();
        assert!(files.contains(&root.join(".env")), "{files:?}");
        assert!(files.contains(&root.join("a")), "{files:?}");
    }

    #[test]
    fn no_repository_or_no_index_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        assert!(worktree_of(dir.path()).is_none() || tracked(dir.path()).is_none());
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert!(tracked(dir.path()).is_none());
        assert!(parse(b"DIRC\0\0\0\x09\0\0\0\0", 20).is_none());
        assert!(parse(b"NOPE", 20).is_none());
    }
}
