//! Opening a file at the path the permission policy judged, without
//! following a link in any component of it.
//!
//! The policy judges a file at its physical path: every link resolved, no
//! `.` or `..` ([`tack_policy::tool_paths::physical`]). A tool that then
//! opened the path by name would walk it a second time, and a directory on
//! it replaced by a link in between (a process racing the call, e.g. a
//! background command swapping a directory and a link with
//! `renameat2(RENAME_EXCHANGE)`) would lead the open to a file no rule was
//! asked about. So the judged path is opened with no link followed at all:
//! on Linux by one `openat2` with `RESOLVE_NO_SYMLINKS`, elsewhere (or on a
//! kernel without `openat2`) by one `openat(O_NOFOLLOW)` per component from
//! `/`. A component that has become a link fails the open with `ELOOP`
//! ([`is_replaced`]) instead of leading elsewhere; what is opened is what
//! sits at the judged path.
//!
//! Writes go through the directory opened this way ([`Dir`]): the temporary
//! file is created in it and renamed within it, and missing directories are
//! made one below the other from the last one opened, so the file lands in
//! the directory that was judged whatever its name leads to by then.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, Write as _};
use std::os::fd::OwnedFd;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Whether `e` says a component of a path opened here was a link: the path
/// changed since it was judged (its own resolution had none).
pub(crate) fn is_replaced(e: &io::Error) -> bool {
    e.raw_os_error() == Some(Errno::LOOP.raw_os_error())
}

/// Opens the file at `path` (absolute and physical) for reading, following
/// no link. Non-blocking, so a FIFO put there does not hang the open; the
/// caller judges the type from the opened file's metadata.
pub(crate) fn open_file(path: &Path) -> io::Result<File> {
    open(path, read_flags()).map(File::from)
}

/// A directory opened at its physical path without following a link: what
/// is created, read or renamed through it stays in it.
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
}

impl Dir {
    /// Opens the existing directory `path` (absolute and physical).
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        open(path, dir_flags()).map(|fd| Dir { fd })
    }

    /// Opens the directory `path` (absolute and physical), making the
    /// missing ones on the way (as `create_dir_all`), each inside the one
    /// opened before it.
    pub(crate) fn create_all(path: &Path) -> io::Result<Dir> {
        let mut dir = rustix::fs::openat(CWD, "/", dir_flags(), Mode::empty())?;
        for part in normal_parts(path)? {
            dir = match open_in(&dir, part, dir_flags()) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    match rustix::fs::mkdirat(&dir, part, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(e.into()),
                    }
                    open_in(&dir, part, dir_flags())?
                }
                other => other?,
            };
        }
        Ok(Dir { fd: dir })
    }

    /// The entry `name` of this directory opened for reading, not followed
    /// if it is a link (`ELOOP`, see [`is_replaced`]); None when there is
    /// none.
    pub(crate) fn open_file(&self, name: &OsStr) -> io::Result<Option<File>> {
        match open_in(&self.fd, name, read_flags()) {
            Ok(fd) => Ok(Some(File::from(fd))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Replaces (or creates) the entry `name` with `data` atomically: the
    /// data goes to a new temporary file in this directory, which is synced
    /// and renamed over `name` within it. The permissions (and, where
    /// allowed, the owner) of `existing` are kept. Returns the metadata of
    /// the new file.
    pub(crate) fn replace(
        &self,
        name: &OsStr,
        data: &[u8],
        existing: Option<&Metadata>,
    ) -> io::Result<Metadata> {
        let shown = name.to_string_lossy();
        let (temp, mut file) = loop {
            let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let candidate = format!(".{shown}.tack-{}-{n}.tmp", std::process::id());
            let flags =
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            match rustix::fs::openat(&self.fd, &candidate, flags, Mode::from_raw_mode(0o666)) {
                Ok(fd) => break (candidate, File::from(fd)),
                Err(Errno::EXIST) if n < u64::MAX => continue,
                Err(e) => return Err(e.into()),
            }
        };
        let result = (|| {
            file.write_all(data)?;
            if let Some(meta) = existing {
                file.set_permissions(meta.permissions())?;
                keep_owner(&file, meta);
            }
            file.sync_all()?;
            rustix::fs::renameat(&self.fd, &temp, &self.fd, name)?;
            file.metadata()
        })();
        if result.is_err() {
            let _ = rustix::fs::unlinkat(&self.fd, &temp, AtFlags::empty());
        }
        result
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn keep_owner(file: &File, meta: &Metadata) {
    use std::os::unix::fs::MetadataExt as _;
    if let Ok(now) = file.metadata()
        && (now.uid() != meta.uid() || now.gid() != meta.gid())
    {
        // Only root may give a file away; otherwise the new file keeps our
        // ownership, as an editor's save would.
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
    }
}

fn read_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

/// A directory handle: on Linux `O_PATH`, which needs only search
/// permission on the directory (as walking through it by name did).
fn dir_flags() -> OFlags {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let flags = OFlags::PATH;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let flags = OFlags::RDONLY;
    flags | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// Opens `path` with `flags`, following no link in any component.
fn open(path: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    // Not physical (a `..` would be taken where the path leads by then).
    normal_parts(path)?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match rustix::fs::openat2(
        CWD,
        path,
        flags,
        Mode::empty(),
        rustix::fs::ResolveFlags::NO_SYMLINKS,
    ) {
        // A kernel before 5.6, or a seccomp filter refusing the call.
        Err(Errno::NOSYS | Errno::PERM) => {}
        // With O_DIRECTORY a link as the last component is "not a
        // directory"; say what it is.
        Err(Errno::NOTDIR) if is_link(CWD, path) => return Err(Errno::LOOP.into()),
        other => return Ok(other?),
    }
    open_by_components(path, flags)
}

/// [`open`] without `openat2`: each component opened from the one before,
/// none followed if it is a link.
fn open_by_components(path: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    let parts = normal_parts(path)?;
    let Some((last, parents)) = parts.split_last() else {
        return Ok(rustix::fs::openat(CWD, "/", flags, Mode::empty())?);
    };
    let mut dir = rustix::fs::openat(CWD, "/", dir_flags(), Mode::empty())?;
    for part in parents {
        dir = open_in(&dir, part, dir_flags())?;
    }
    open_in(&dir, last, flags)
}

/// Opens the entry `name` of `dir` with `flags`, not following it if it is
/// a link (`ELOOP`).
fn open_in(dir: &OwnedFd, name: &OsStr, flags: OFlags) -> io::Result<OwnedFd> {
    match rustix::fs::openat(dir, name, flags | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => Ok(fd),
        Err(Errno::NOTDIR) if is_link(dir, name) => Err(Errno::LOOP.into()),
        Err(e) => Err(e.into()),
    }
}

fn is_link<Fd: std::os::fd::AsFd, P: rustix::path::Arg>(dir: Fd, name: P) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink)
}

/// The names of `path`'s components after `/`; an error for a path that
/// is not absolute or has a `.` or `..` in it (not a physical path).
fn normal_parts(path: &Path) -> io::Result<Vec<&OsStr>> {
    let mut components = path.components();
    let rooted = components.next() == Some(Component::RootDir);
    let parts: Option<Vec<&OsStr>> = components
        .map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    match parts {
        Some(parts) if rooted => Ok(parts),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not a resolved absolute path (it has `.` or `..`, or no leading `/`)",
                path.display()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    /// A directory with `real/f` ("real") and `secret/f` ("secret").
    fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (sub, text) in [("real", "real"), ("secret", "secret")] {
            std::fs::create_dir(root.join(sub)).unwrap();
            std::fs::write(root.join(sub).join("f"), text).unwrap();
        }
        (dir, root)
    }

    fn text(mut file: File) -> String {
        let mut s = String::new();
        file.read_to_string(&mut s).unwrap();
        s
    }

    /// `real` renamed away and a link to `secret` put in its place.
    fn swap_for_link(root: &Path) {
        std::fs::rename(root.join("real"), root.join("moved")).unwrap();
        std::os::unix::fs::symlink(root.join("secret"), root.join("real")).unwrap();
    }

    #[test]
    fn a_directory_replaced_by_a_link_is_not_followed_by_either_way_of_opening() {
        let (_dir, root) = tree();
        let path = root.join("real/f");
        assert_eq!(text(open_file(&path).unwrap()), "real");
        assert_eq!(
            text(File::from(open_by_components(&path, read_flags()).unwrap())),
            "real"
        );
        swap_for_link(&root);
        for result in [
            open_file(&path),
            open_by_components(&path, read_flags()).map(File::from),
        ] {
            let err = result.unwrap_err();
            assert!(is_replaced(&err), "{err}");
        }
        for result in [
            Dir::open(&root.join("real")),
            Dir::create_all(&root.join("real/new")),
        ] {
            let err = result.unwrap_err();
            assert!(is_replaced(&err), "{err}");
        }
        assert!(!root.join("secret/new").exists());
    }

    #[test]
    fn a_write_lands_in_the_directory_opened_whatever_its_name_leads_to_later() {
        let (_dir, root) = tree();
        let dir = Dir::create_all(&root.join("real/a/b")).unwrap();
        std::fs::rename(root.join("real"), root.join("moved")).unwrap();
        std::os::unix::fs::symlink(root.join("secret"), root.join("real")).unwrap();
        dir.replace(OsStr::new("out.txt"), b"written", None)
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("moved/a/b/out.txt")).unwrap(),
            "written"
        );
        assert_eq!(std::fs::read_dir(root.join("secret")).unwrap().count(), 1);
        // The file itself a link: not opened as the file.
        let real = Dir::open(&root.join("moved")).unwrap();
        std::os::unix::fs::symlink(root.join("secret/f"), root.join("moved/f2")).unwrap();
        assert!(is_replaced(&real.open_file(OsStr::new("f2")).unwrap_err()));
        assert!(real.open_file(OsStr::new("none")).unwrap().is_none());
    }

    #[test]
    fn only_resolved_absolute_paths_are_opened() {
        let (_dir, root) = tree();
        for path in [root.join("secret/../real/f"), "real/f".into()] {
            let err = open_file(&path).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{path:?}");
        }
    }
}
