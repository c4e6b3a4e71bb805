//! The system's programs, to know one under another name: a hard link to
//! `/usr/bin/rm` (the same file) or a copy of it (the same bytes) is rm,
//! as a symbolic link to it is. The index of the system directories (each
//! program's file identity and size) is built once per process, the first
//! time a program run by its path outside them is an executable file.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the system's programs are.
const DIRS: &[&str] = &["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

/// A copy is compared byte for byte only up to this size.
const MAX_COMPARED: u64 = 64 * 1024 * 1024;

#[derive(Default)]
struct Index {
    /// (device, inode) → the program's paths (git's file is also
    /// `git-upload-pack`, …).
    files: HashMap<(u64, u64), Vec<PathBuf>>,
    /// Size → the programs of that size.
    sizes: HashMap<u64, Vec<PathBuf>>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index::default();
        for dir in DIRS {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                // Links followed: `/bin/sh` → dash is dash's file.
                let Ok(meta) = std::fs::metadata(&path) else {
                    continue;
                };
                if !meta.is_file() || meta.mode() & 0o111 == 0 {
                    continue;
                }
                index
                    .files
                    .entry((meta.dev(), meta.ino()))
                    .or_default()
                    .push(path.clone());
                index.sizes.entry(meta.len()).or_default().push(path);
            }
        }
        index
    })
}

/// The system program `file` is, when it is one under another name: the
/// same file (a hard link) or the same bytes (a copy). None for a script,
/// a file that is no executable, or one the system does not have.
pub(crate) fn same_as(file: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() || meta.mode() & 0o111 == 0 || meta.len() > MAX_COMPARED {
        return None;
    }
    // Only a compiled program (ELF): a script is read as a script.
    let mut head = [0u8; 4];
    {
        use std::io::Read as _;
        let mut f = std::fs::File::open(file).ok()?;
        f.read_exact(&mut head).ok()?;
    }
    if &head != b"\x7fELF" {
        return None;
    }
    let index = index();
    if let Some(paths) = index.files.get(&(meta.dev(), meta.ino())) {
        return main_name(paths.iter());
    }
    let candidates = index.sizes.get(&meta.len())?;
    let bytes = std::fs::read(file).ok()?;
    main_name(
        candidates
            .iter()
            .filter(|c| std::fs::read(c).is_ok_and(|b| b == bytes)),
    )
}

/// Of the names one program has (a multi-call program: git and
/// `git-upload-pack`, busybox and its applets), the program's own: the
/// shortest. Run under another name, such a program acts as that name says
/// only when it is one of them; as its own, it is itself.
fn main_name<'a>(paths: impl Iterator<Item = &'a PathBuf>) -> Option<PathBuf> {
    paths
        .min_by_key(|p| p.file_name().map_or(usize::MAX, |n| n.len()))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_link_or_a_copy_of_a_system_program_is_that_program() {
        let Some(rm) = ["/usr/bin/rm", "/bin/rm"]
            .iter()
            .map(Path::new)
            .find(|p| p.is_file())
        else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let linked = dir.path().join("d2");
        let copied = dir.path().join("d3");
        // A hard link needs the same file system; a copy does not.
        let hard = std::fs::hard_link(rm, &linked).is_ok();
        std::fs::copy(rm, &copied).unwrap();
        let name = |p: &Path| same_as(p).map(|s| s.file_name().unwrap().to_owned());
        if hard {
            assert_eq!(name(&linked).as_deref(), Some(std::ffi::OsStr::new("rm")));
        }
        assert_eq!(name(&copied).as_deref(), Some(std::ffi::OsStr::new("rm")));
        // A script is not looked up.
        let script = dir.path().join("s");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(same_as(&script), None);
    }
}
