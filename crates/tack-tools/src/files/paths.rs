//! Paths and IO shared by the file and search tools: absolute-path checks,
//! the path a tool uses checked against the permission check's, "did you
//! mean" suggestions, IO error mapping and running blocking work off the
//! async runtime.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use tack_tool::ToolError;
use tokio_util::sync::CancellationToken;

/// Checks that `raw` (the value of input field `field`), read as the
/// permission policy reads it ([`tack_policy::tool_paths::written`]:
/// surrounding whitespace dropped), is an absolute path. A relative path is
/// refused with the absolute path it would be under `cwd`.
pub(crate) fn require_absolute(field: &str, raw: &str, cwd: &Path) -> Result<PathBuf, ToolError> {
    let raw = tack_policy::tool_paths::written(raw);
    if raw.is_empty() {
        return Err(ToolError::InvalidInput(format!(
            "{field} is empty: give the absolute path of a file, e.g. {}",
            cwd.join("README.md").display()
        )));
    }
    let path = Path::new(raw);
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    let suggestion = match raw.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(rest)),
        None => None,
    }
    .unwrap_or_else(|| normalize_lexically(&cwd.join(path)));
    Err(ToolError::InvalidInput(format!(
        "{field} must be an absolute path, got {raw:?}. Under the working directory it would be {:?}; pass that if it is the file you mean.",
        suggestion.display().to_string()
    )))
}

/// Removes `.` and resolves `..` without touching the file system: for the
/// path a message suggests, never for one a tool opens (that is
/// [`judged`], which goes where the kernel goes).
fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(part);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// What a file tool does with the file it names, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    Read,
    Write,
}

/// Where the kernel finds `path` (absolute), checked against the files the
/// permission check judged: the permission policy's resolution
/// ([`tack_policy::tool_paths::physical`]), so the file used is the file
/// the policy checked. `..` goes up from where the symlink before it led;
/// what does not exist yet is appended as written. The tool opens the path
/// returned without following a link ([`super::physical`]), so a directory
/// on it replaced by a link after this fails the open instead of leading
/// elsewhere.
pub(crate) fn judged(path: &Path, checked: &[PathBuf], using: Use) -> Result<PathBuf, ToolError> {
    // A read in the common case, without walking the path again: the check
    // judged the path exactly as given (absolute, no `.` or `..`), so it
    // held no link then; the open follows none, so a link put in since
    // fails it. (A write walks it: a link put in the file's own place is
    // then refused as changed, rather than replaced.)
    let plain = using == Use::Read
        && path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    if plain && checked.iter().any(|c| c == path) {
        return Ok(path.to_path_buf());
    }
    let target = tack_policy::tool_paths::physical(path, Path::new("/"))
        .map_err(|why| ToolError::InvalidInput(format!("cannot use {}: {why}", path.display())))?;
    // The file the permission check judged (`ToolContext::checked_files`),
    // or another that a link put in place since leads to: not used.
    if !checked.is_empty() && !checked.contains(&target) {
        return Err(ToolError::Denied(match using {
            Use::Read => format!(
                "{} changed between the permission check and the read (a link was put in its place), so it was not read; nothing of it was shown. Read it again if it is meant to be read.",
                path.display()
            ),
            Use::Write => format!(
                "{} changed between the permission check and the write (a link was put in its place), so nothing was written. Write it again if it is meant to be written.",
                path.display()
            ),
        }));
    }
    Ok(target)
}

/// The directory and the name of the file at `target` (physical, from
/// [`judged`]); an error for `/`.
pub(crate) fn split(target: &Path) -> Result<(&Path, &OsStr), ToolError> {
    match (target.parent(), target.file_name()) {
        (Some(dir), Some(name)) => Ok((dir, name)),
        _ => Err(ToolError::InvalidInput(format!(
            "{} is a directory: give the path of a file.",
            target.display()
        ))),
    }
}

/// The error for a path that does not exist, with close names from the same
/// directory as suggestions.
pub(crate) fn missing_path_error(path: &Path, what: &str) -> ToolError {
    let mut msg = format!("{what} does not exist: {}.", path.display());
    let parent = path.parent().unwrap_or(Path::new("/"));
    if parent.is_dir() {
        let suggestions = similar_names(path);
        if !suggestions.is_empty() {
            let list: Vec<String> = suggestions
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            msg.push_str(&format!(" Did you mean {}?", list.join(" or ")));
        }
    } else if let Some(existing) = path.ancestors().skip(1).find(|a| a.is_dir()) {
        msg.push_str(&format!(
            " Its directory does not exist either; the nearest existing one is {}.",
            existing.display()
        ));
    }
    msg.push_str(" Use Glob to find files by name.");
    ToolError::Unavailable(msg)
}

/// Entries of `path`'s directory whose names are close to its name: the same
/// name in another case, the same stem with another extension, or a name a
/// couple of edits away. At most three, closest first.
fn similar_names(path: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy().to_lowercase();
    let stem = Path::new(&name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    let max_distance = (name.chars().count() / 3).clamp(1, 3);
    let mut scored: Vec<(usize, PathBuf)> = entries
        .take(10_000)
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let candidate = entry.file_name().to_string_lossy().to_lowercase();
            let candidate_stem = Path::new(&candidate)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let score = if candidate == name {
                0
            } else if !stem.is_empty() && candidate_stem == stem {
                1
            } else {
                let lengths = (name.chars().count(), candidate.chars().count());
                if lengths.0.abs_diff(lengths.1) > max_distance {
                    return None;
                }
                let d = edit_distance(&name, &candidate);
                if d > max_distance {
                    return None;
                }
                1 + d
            };
            Some((score, entry.path()))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, p)| p).collect()
}

/// Edit distance where swapping two neighbouring characters counts as one
/// edit (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j - 1] + cost)
                .min(d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// Maps an IO error on `path` to the error kind the model can act on.
pub(crate) fn io_error(action: &str, path: &Path, e: &io::Error) -> ToolError {
    if super::physical::is_replaced(e) {
        return ToolError::Unavailable(format!(
            "cannot {action} {}: it changed while it was being opened (a directory in its path was replaced by a link), so it was not opened. Try again.",
            path.display()
        ));
    }
    match e.kind() {
        io::ErrorKind::NotFound => missing_path_error(path, "File"),
        io::ErrorKind::PermissionDenied => ToolError::Unavailable(format!(
            "permission denied: cannot {action} {}",
            path.display()
        )),
        io::ErrorKind::NotADirectory => ToolError::InvalidInput(format!(
            "cannot {action} {}: a part of the path is a file, not a directory",
            path.display()
        )),
        io::ErrorKind::IsADirectory => ToolError::InvalidInput(format!(
            "cannot {action} {}: it is a directory",
            path.display()
        )),
        _ => ToolError::Unavailable(format!("cannot {action} {}: {e}", path.display())),
    }
}

/// Runs blocking work on the blocking pool. When `cancel` is given, returns
/// `Interrupted` as soon as it fires (the work itself stops at its own pace).
pub(crate) async fn blocking<T, F>(
    what: &str,
    cancel: Option<&CancellationToken>,
    work: F,
) -> Result<T, ToolError>
where
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
    T: Send + 'static,
{
    let interrupted = || ToolError::Interrupted(format!("{what} was cancelled"));
    if cancel.is_some_and(CancellationToken::is_cancelled) {
        return Err(interrupted());
    }
    let task = tokio::task::spawn_blocking(work);
    let joined = match cancel {
        Some(cancel) => tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(interrupted()),
            joined = task => joined,
        },
        None => task.await,
    };
    joined.map_err(|e| ToolError::Internal(format!("{what} failed: {e}")))?
}

/// `n` with an English noun, pluralised: "1 line", "3 lines".
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
