//! Whether a git work tree is the checkout git made on this machine, read
//! from git's index: git records, for each file it checks out or stages,
//! the file's inode and change time. A repository that arrives whole (an
//! archive with its `.git`, a `.git` skeleton, a `.git` file naming some
//! other repository) has an index recorded on another machine, or none:
//! extracting gives every file a new inode and a change time of now, and
//! neither can be set by the archive. So an entry whose file still has the
//! recorded inode and change time shows the files were checked out or
//! staged here, by the user's git.

use std::path::{Path, PathBuf};

/// How many bytes of an index are read at most (a large monorepo's index is
/// tens of MB; the proof needs one entry under the directory in question).
const INDEX_LIMIT: u64 = 64 << 20;

/// Whether the repository whose work tree is `top` has, under `under` (a
/// directory in it), a file git checked out or staged here: an index entry
/// whose file has the inode and change time (seconds) the index recorded.
/// False when there is no such entry or the index cannot be read (no
/// index, another format, a split index).
pub(crate) fn made_here(top: &Path, under: &Path) -> bool {
    let Ok(prefix) = under.strip_prefix(top) else {
        return false;
    };
    let Some(git_dir) = git_dir(top) else {
        return false;
    };
    let Some(index) = read_limited(&git_dir.join("index")) else {
        return false;
    };
    let hash_len = if sha256(&git_dir) { 32 } else { 20 };
    entries(&index, hash_len)
        .into_iter()
        .filter(|e| Path::new(&e.path).starts_with(prefix))
        .any(|e| {
            use std::os::unix::fs::MetadataExt as _;
            std::fs::symlink_metadata(top.join(&e.path)).is_ok_and(|m| {
                // git keeps the low 32 bits.
                (m.ino() & 0xffff_ffff) as u32 == e.ino
                    && (m.ctime() & 0xffff_ffff) as u32 == e.ctime
            })
        })
}

/// The git directory of the work tree `top`: `top/.git`, or the directory
/// a `.git` file names (a worktree, a submodule).
fn git_dir(top: &Path) -> Option<PathBuf> {
    let dot_git = top.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let named = text.strip_prefix("gitdir:")?.trim();
    Some(top.join(named))
}

/// Whether the repository's objects are named by SHA-256
/// (`extensions.objectFormat = sha256`).
fn sha256(git_dir: &Path) -> bool {
    let config = std::fs::read_to_string(git_dir.join("config")).unwrap_or_default();
    let config = config.to_ascii_lowercase();
    config.lines().any(|l| {
        let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        l == "objectformat=sha256"
    }) || std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .is_some_and(|c| sha256(&git_dir.join(c.trim())))
}

fn read_limited(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(INDEX_LIMIT)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

/// One entry of git's index, as far as the proof needs it.
#[derive(Debug)]
struct Entry {
    ctime: u32,
    ino: u32,
    path: String,
}

/// The entries of an index (versions 2 to 4), as far as they can be read.
fn entries(index: &[u8], hash_len: usize) -> Vec<Entry> {
    let u32_at = |at: usize| -> Option<u32> {
        let b = index.get(at..at + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut out = Vec::new();
    if index.get(..4) != Some(b"DIRC") {
        return out;
    }
    let (Some(version), Some(count)) = (u32_at(4), u32_at(8)) else {
        return out;
    };
    if !(2..=4).contains(&version) {
        return out;
    }
    let mut at = 12;
    let mut previous = Vec::<u8>::new();
    for _ in 0..count {
        let start = at;
        let (Some(ctime), Some(ino)) = (u32_at(at), u32_at(at + 20)) else {
            break;
        };
        let flags_at = at + 40 + hash_len;
        let Some(flags) = index
            .get(flags_at..flags_at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
        else {
            break;
        };
        at = flags_at + 2;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        let path = if version == 4 {
            let Some((strip, used)) = varint(index.get(at..).unwrap_or_default()) else {
                break;
            };
            at += used;
            let Some(end) = index.get(at..).and_then(|r| r.iter().position(|b| *b == 0)) else {
                break;
            };
            let keep = previous.len().saturating_sub(strip);
            let mut path = previous[..keep].to_vec();
            path.extend_from_slice(&index[at..at + end]);
            at += end + 1;
            path
        } else {
            let Some(end) = index.get(at..).and_then(|r| r.iter().position(|b| *b == 0)) else {
                break;
            };
            let path = index[at..at + end].to_vec();
            // Padded with 1 to 8 NULs to a multiple of 8 from the entry's start.
            let len = at + end - start;
            at = start + (len + 8) / 8 * 8;
            path
        };
        previous.clone_from(&path);
        out.push(Entry {
            ctime,
            ino,
            path: String::from_utf8_lossy(&path).into_owned(),
        });
    }
    out
}

/// git's offset varint (index version 4): the value and the bytes it took.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut iter = bytes.iter();
    let mut c = *iter.next()?;
    let mut value = usize::from(c & 127);
    let mut used = 1;
    while c & 128 != 0 {
        c = *iter.next()?;
        used += 1;
        value = value.checked_add(1)?.checked_shl(7)? | usize::from(c & 127);
    }
    Some((value, used))
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "the test builds a repository and copies it"
)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=A", "-c", "user.email=a@example.com"])
            .args(args)
            .current_dir(dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn a_checkout_made_here_and_one_that_arrived_whole() {
        for version in ["2", "3", "4"] {
            let dir = tempfile::tempdir().unwrap();
            let top = dir.path().canonicalize().unwrap();
            std::fs::create_dir_all(top.join("a/b")).unwrap();
            std::fs::write(top.join("a/b/x"), "x").unwrap();
            std::fs::write(top.join("a/y"), "y").unwrap();
            std::fs::create_dir_all(top.join("c")).unwrap();
            git(&top, &["init", "-q"]);
            git(&top, &["update-index", "--index-version", version]);
            assert!(!made_here(&top, &top), "no index yet");
            git(&top, &["add", "a"]);
            git(&top, &["update-index", "--index-version", version]);
            assert!(made_here(&top, &top), "v{version}");
            assert!(made_here(&top, &top.join("a/b")), "v{version}");
            assert!(!made_here(&top, &top.join("c")), "nothing tracked under c");
            // The same tree copied elsewhere (as an archive extracts it).
            let copy = tempfile::tempdir().unwrap();
            let ok = std::process::Command::new("cp")
                .arg("-a")
                .arg(format!("{}/.", top.display()))
                .arg(copy.path())
                .status()
                .unwrap()
                .success();
            assert!(ok);
            assert!(!made_here(copy.path(), copy.path()), "v{version}");
        }
    }
}
