//! How the file and search tools read the paths in their input, in one
//! place for the policy ([`crate::Request`]) and for the tools themselves
//! (tack-tools).
//!
//! The key design decision: **the path the policy checks is the file the
//! tool opens**, so neither reads a path its own way. Both trim the input
//! the same way ([`written`], [`search_dir`], [`split_glob`]) and resolve
//! it the way the kernel will when the tool opens it ([`physical`]): a
//! `..` goes up from where the symlink before it led, not from the name
//! written before it. A tool that normalised `link/..` by hand while the
//! policy followed the link would write, or search, somewhere the policy
//! never looked.
//!
//! ```
//! use tack_policy::tool_paths::{search_dir, split_glob, written};
//! assert_eq!(written(" /etc/passwd\n"), "/etc/passwd");
//! assert_eq!(search_dir(Some(" null ")), None);
//! assert_eq!(
//!     split_glob("/repo/src/../lib/**/*.rs", None),
//!     (Some("/repo/src/../lib".to_string()), "**/*.rs".to_string())
//! );
//! ```

use std::path::{Component, Path, PathBuf};

use crate::paths::{Resolution, Resolver};

/// A path as the tools read it from their input: surrounding whitespace
/// dropped (models add a space or a newline; a path starting with one is
/// not what they meant).
pub fn written(raw: &str) -> &str {
    raw.trim()
}

/// The directory a search (Grep, Glob, LS) starts from, as written (see
/// [`written`]); None: the working directory. Models sometimes spell "no
/// path" as a string (`"null"`, `"undefined"`) or as `.`.
pub fn search_dir(raw: Option<&str>) -> Option<&str> {
    raw.map(written)
        .filter(|p| !p.is_empty() && *p != "null" && *p != "undefined" && *p != ".")
}

/// Glob's `pattern` and `path` as the directory the walk starts from (None:
/// the working directory; read it with [`search_dir`]) and the pattern
/// matched against paths below it. An absolute pattern such as
/// `/repo/src/**/*.rs` names its own directory (`/repo/src`), which
/// overrides `path`; its literal components are kept as written, `..`
/// included, so the directory is resolved like any other path. A leading
/// `./` of a relative pattern is dropped.
pub fn split_glob(pattern: &str, path: Option<&str>) -> (Option<String>, String) {
    let pattern = written(pattern);
    if !pattern.starts_with('/') {
        let relative = pattern.strip_prefix("./").unwrap_or(pattern);
        return (path.map(str::to_owned), relative.to_owned());
    }
    let is_glob = |s: &str| s.contains(['*', '?', '[', '{']);
    let parts: Vec<String> = Path::new(pattern)
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_owned()),
            _ => None,
        })
        .collect();
    let literal = parts
        .iter()
        .take(parts.len().saturating_sub(1))
        .take_while(|p| !is_glob(p))
        .count();
    let base = format!("/{}", parts[..literal].join("/"));
    (Some(base), parts[literal..].join("/"))
}

/// Where the kernel finds `path` (absolute, or relative to `cwd`): every
/// component walked in turn, the symlinks among the existing ones followed
/// (a dangling one too: a write creates its target), `..` applied to the
/// directory reached so far, and what does not exist yet appended as
/// written. The policy checks this path ([`crate::Request::resolve`]); a
/// tool that writes or searches must use it too.
///
/// An error text when no one path can be named: a symlink loop, an
/// unreadable link, or a path through `/proc/self/cwd` and the like, which
/// lead wherever the process that opens them is.
pub fn physical(path: &Path, cwd: &Path) -> Result<PathBuf, String> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    Resolver::new(Resolution::FileSystem).canonical(&joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_keeps_dotdot_in_its_directory() {
        assert_eq!(
            split_glob(" /a/b/../../etc/pass* ", None),
            (Some("/a/b/../../etc".into()), "pass*".into())
        );
        assert_eq!(
            split_glob("/a/*/x", Some("/ignored")),
            (Some("/a".into()), "*/x".into())
        );
        assert_eq!(
            split_glob("./src/*.rs", Some("/p")),
            (Some("/p".into()), "src/*.rs".into())
        );
        assert_eq!(
            split_glob("/repo/Cargo.toml", None),
            (Some("/repo".into()), "Cargo.toml".into())
        );
        assert_eq!(split_glob("./src/*.rs", None), (None, "src/*.rs".into()));
    }
}
