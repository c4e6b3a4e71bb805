//! Finding a program tack runs on its own (the Bash tool's shell, the
//! `git` of a settings check, the shell a hook runs in) without running one
//! a repository supplies.
//!
//! A plain `PATH` lookup takes the first match, and `PATH` may name
//! directories of the project: an activated `.venv/bin`, direnv's
//! `PATH_add bin`, `node_modules/.bin`, or an empty or relative entry, which
//! is the current directory. [`find_program`] looks only in `PATH` entries
//! that are absolute and outside the directories given (the project root,
//! the working directories), in the user's order (a newer bash or git the
//! user installed still wins), then in the standard system directories. What a hook or the model's own command runs keeps the
//! user's `PATH`: that is theirs to choose; this is only what tack picks.

use std::ffi::OsStr;
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Where a program tack runs on its own is looked for when no usable `PATH`
/// entry has it, in this order.
pub const SYSTEM_DIRS: &[&str] = &[
    "/usr/bin",
    "/bin",
    "/usr/local/bin",
    "/opt/homebrew/bin",
    "/usr/sbin",
    "/sbin",
];

/// No usable `name` was found (see [`find_program`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramNotFound {
    /// The program looked for.
    pub name: String,
    /// The `PATH` entries left out: relative, empty, or inside a root.
    pub skipped: Vec<String>,
}

impl fmt::Display for ProgramNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` was not found in the system directories ({}) nor in an absolute PATH \
             directory outside the project and the working directories",
            self.name,
            SYSTEM_DIRS.join(", ")
        )?;
        if !self.skipped.is_empty() {
            write!(
                f,
                " (left out, as tack never runs a program of its own from them: {})",
                self.skipped.join(", ")
            )?;
        }
        write!(f, "; install it in a system directory")
    }
}

impl std::error::Error for ProgramNotFound {}

/// The executable `name` from the first `PATH` entry that is absolute and
/// not inside any of `roots` (nor one of them), else from [`SYSTEM_DIRS`];
/// a directory inside a root is never used, a system one included. A root
/// that is `/` is ignored (it would leave nothing).
pub fn find_program(name: &str, roots: &[&Path]) -> Result<PathBuf, ProgramNotFound> {
    find_program_in(name, std::env::var_os("PATH").as_deref(), roots)
}

/// [`find_program`] with `path` as `PATH`.
pub fn find_program_in(
    name: &str,
    path: Option<&OsStr>,
    roots: &[&Path],
) -> Result<PathBuf, ProgramNotFound> {
    let mut tops: Vec<PathBuf> = Vec::new();
    for root in roots {
        if !root.is_absolute() || root.parent().is_none() {
            continue;
        }
        tops.push(root.to_path_buf());
        if let Ok(real) = root.canonicalize()
            && real.parent().is_some()
        {
            tops.push(real);
        }
    }
    let inside = |dir: &Path| {
        let real = dir.canonicalize().ok();
        tops.iter().any(|top| {
            dir.starts_with(top) || real.as_deref().is_some_and(|real| real.starts_with(top))
        })
    };
    let found = |dir: &Path| {
        let candidate = dir.join(name);
        is_executable(&candidate).then_some(candidate)
    };
    let mut skipped = Vec::new();
    for dir in path.map(std::env::split_paths).into_iter().flatten() {
        if !dir.is_absolute() || inside(&dir) {
            let shown = if dir.as_os_str().is_empty() {
                "(empty entry)".to_owned()
            } else {
                dir.display().to_string()
            };
            skipped.push(shown);
            continue;
        }
        if let Some(found) = found(&dir) {
            return Ok(found);
        }
    }
    for dir in SYSTEM_DIRS.iter().map(Path::new) {
        if !inside(dir)
            && let Some(found) = found(dir)
        {
            return Ok(found);
        }
    }
    Err(ProgramNotFound {
        name: name.to_owned(),
        skipped,
    })
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn program(dir: &Path, name: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn path_of(dirs: &[&Path]) -> OsString {
        std::env::join_paths(dirs).unwrap()
    }

    #[test]
    fn the_users_path_comes_first_and_the_system_directories_after() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        let mine = program(&elsewhere, "sh");
        let found = find_program_in("sh", Some(&path_of(&[&elsewhere])), &[]).unwrap();
        assert_eq!(found, mine);
        // Inside a root: the system's.
        let found = find_program_in("sh", Some(&path_of(&[&elsewhere])), &[tmp.path()]).unwrap();
        assert!(
            SYSTEM_DIRS.iter().any(|d| found.starts_with(d)),
            "{}",
            found.display()
        );
    }

    #[test]
    fn a_path_entry_inside_a_root_is_never_used() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let name = "tack-test-program-xyz";
        program(&project.join(".venv/bin"), name);
        let path = path_of(&[&project.join(".venv/bin")]);
        let err = find_program_in(name, Some(&path), &[&project]).unwrap_err();
        assert_eq!(
            err.skipped,
            [project.join(".venv/bin").display().to_string()]
        );
        let message = err.to_string();
        assert!(
            message.contains(name) && message.contains(".venv/bin"),
            "{message}"
        );
        // Outside every root it is found.
        let other = tmp.path().join("other");
        assert_eq!(
            find_program_in(name, Some(&path), &[&other]).unwrap(),
            project.join(".venv/bin").join(name)
        );
    }

    #[test]
    fn a_root_reached_through_a_link_is_still_a_root() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let name = "tack-test-program-xyz";
        program(&project.join("bin"), name);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&project, &link).unwrap();
        let path = path_of(&[&link.join("bin")]);
        assert!(find_program_in(name, Some(&path), &[&project]).is_err());
        let path = path_of(&[&project.join("bin")]);
        assert!(find_program_in(name, Some(&path), &[&link]).is_err());
    }

    #[test]
    fn empty_and_relative_entries_are_never_used() {
        let name = "tack-test-program-xyz";
        for path in [":", "bin", "./bin:", "::"] {
            let err = find_program_in(name, Some(OsStr::new(path)), &[]).unwrap_err();
            assert!(!err.skipped.is_empty(), "{path}: {err:?}");
        }
    }

    #[test]
    fn a_later_entry_outside_the_roots_is_used() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let tools = tmp.path().join("tools");
        let name = "tack-test-program-xyz";
        program(&project.join("bin"), name);
        let good = program(&tools, name);
        let path = path_of(&[Path::new(""), &project.join("bin"), &tools]);
        assert_eq!(
            find_program_in(name, Some(&path), &[&project]).unwrap(),
            good
        );
    }

    #[test]
    fn a_file_that_is_not_executable_is_not_a_program() {
        let tmp = tempfile::tempdir().unwrap();
        let name = "tack-test-program-xyz";
        std::fs::write(tmp.path().join(name), "").unwrap();
        let path = path_of(&[tmp.path()]);
        assert!(find_program_in(name, Some(&path), &[]).is_err());
    }

    #[test]
    fn a_root_of_slash_is_ignored() {
        assert!(find_program_in("sh", None, &[Path::new("/")]).is_ok());
    }
}
