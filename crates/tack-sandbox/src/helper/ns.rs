//! Entering the user, mount and PID (and network) namespaces, and the
//! mounts made in them before anything of the command runs: protected paths
//! read-only, denied paths hidden.

use std::path::{Path, PathBuf};

use nix::mount::{MntFlags, MsFlags, mount, umount2};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};

use super::{Failed, sys};
use crate::plan::{NetPlan, Plan};

const NONE: Option<&str> = None;

/// The namespaces ns-init starts in: user, mount and PID, and with
/// [`NetPlan::Proxy`] a network namespace.
pub(super) fn flags(plan: &Plan) -> CloneFlags {
    let mut flags = CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWPID;
    if matches!(plan.network, NetPlan::Proxy { .. } | NetPlan::Loopback) {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    flags
}

/// In the new namespaces: the same uid and gid as outside (`ids`, read
/// before), then the plan's mounts in a private mount tree.
pub(super) fn set_up(plan: &Plan, ids: Ids) -> Result<(), Failed> {
    ids.map()?;
    mount(NONE, "/", NONE, MsFlags::MS_REC | MsFlags::MS_PRIVATE, NONE)
        .map_err(|e| Failed::new("making the mount tree private", e))?;
    read_only_outside_the_roots(plan)?;
    // Mounted after the tree is made read-only: their own, writable.
    own_terminals()?;
    own_shared_memory()?;
    for path in pins(plan) {
        pin(&path)?;
    }
    for path in &plan.read_only {
        bind_read_only(path)?;
    }
    hide(&plan.hidden)?;
    // The working directory was entered before these mounts: entered again,
    // it is the directory they show (the writable root's, not the read-only
    // tree's beneath it).
    let cwd =
        std::env::current_dir().map_err(|e| Failed::new("reading the working directory", e))?;
    std::env::set_current_dir(&cwd)
        .map_err(|e| Failed::new(format!("entering {} again", cwd.display()), e))
}

/// Every mount read-only, then each writable root bound over itself
/// read-write: Landlock stops writing outside the roots but not changing a
/// file's metadata there (chmod, chown, utimes, extended attributes: a
/// setuid bit on a binary, `chmod 644 ~/.ssh/id_rsa`), which a read-only
/// mount stops too. Device files stay usable (a read-only mount does not
/// stop writing to `/dev/null`). On a kernel without mount_setattr(2)
/// (before 5.12) the tree is left as it was, and Landlock alone guards it.
fn read_only_outside_the_roots(plan: &Plan) -> Result<(), Failed> {
    let rdonly = libc::MOUNT_ATTR_RDONLY;
    match sys::mount_setattr(Path::new("/"), true, rdonly, 0) {
        Err(nix::errno::Errno::ENOSYS) => return Ok(()),
        other => other.map_err(|e| Failed::new("making the mount tree read-only", e))?,
    }
    for root in &plan.writable {
        if std::fs::symlink_metadata(root).is_err() {
            continue;
        }
        same_path(root)?;
        let failed = |e| Failed::new(format!("keeping {} writable", root.display()), e);
        mount(
            Some(root),
            root,
            NONE,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            NONE,
        )
        .map_err(failed)?;
        // A mount beneath the root that was read-only before stays so (the
        // kernel refuses to clear it: EPERM); the root's own mount is made
        // writable anyway.
        sys::mount_setattr(root, true, 0, rdonly)
            .or_else(|_| sys::mount_setattr(root, false, 0, rdonly))
            .map_err(failed)?;
    }
    Ok(())
}

/// The directories a command must not rename, remove or replace, because
/// the plan names them or something beneath them by path, and the next
/// command's mounts and Landlock rules are made by those paths: every
/// directory strictly beneath a writable root on the way to (and including)
/// a writable root nested in another (`--add-dir` of a monorepo with the
/// project inside), a read-only path or a hidden one. Renaming a directory
/// that holds a mount is allowed, so a protected path's parent could
/// otherwise be moved away and a decoy put in its place (`mv config
/// config.orig && mkdir config`), and a nested root swapped for a link to
/// `/`. Shallowest first; each is made a mount point ([`pin`]), which
/// rename(2) and rmdir(2) refuse (EBUSY) in this mount namespace.
pub(super) fn pins(plan: &Plan) -> Vec<PathBuf> {
    let below_a_root = |p: &Path| plan.writable.iter().any(|w| p != w && p.starts_with(w));
    let mut pins: Vec<PathBuf> = Vec::new();
    let nested_roots = plan.writable.iter().filter(|w| below_a_root(w));
    let inside = plan.read_only.iter().chain(&plan.hidden);
    let ancestors = plan
        .writable
        .iter()
        .chain(inside)
        .flat_map(|p| p.ancestors().skip(1));
    for path in nested_roots.map(PathBuf::as_path).chain(ancestors) {
        if below_a_root(path) && !pins.iter().any(|p| p == path) {
            pins.push(path.to_path_buf());
        }
    }
    pins.sort_by_key(|p| p.components().count());
    pins
}

/// Binds `path` onto itself (with what is mounted beneath it), so that it
/// cannot be renamed or removed; one that is gone is left alone.
fn pin(path: &Path) -> Result<(), Failed> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    same_path(path)?;
    mount(
        Some(path),
        path,
        NONE,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        NONE,
    )
    .map_err(|e| Failed::new(format!("pinning {}", path.display()), e))
}

/// Refuses a path of the plan (canonical when the plan was made) that now
/// leads elsewhere: a link or a renamed directory put in its way since the
/// session began. A mount or a rule made through it would land on what the
/// command chose.
pub(super) fn same_path(path: &Path) -> Result<(), Failed> {
    match std::fs::canonicalize(path) {
        Ok(now) if now != path => Err(Failed::new(
            format!("using {}", path.display()),
            format!(
                "it now leads to {}: a command replaced it with a link or moved a directory \
                 above it since the session began; start a new session",
                now.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// Where terminals are: `/dev/pts` holds every pseudo-terminal of the
/// machine's devpts instance (tack's own, the user's other windows), which
/// the user can open, read keystrokes from and write escape sequences to.
const PTS: &str = "/dev/pts";
const PTMX: &str = "/dev/ptmx";

/// A devpts instance of the command's own over `/dev/pts`, its `ptmx` bound
/// over `/dev/ptmx`: only the pseudo-terminals the command opens itself are
/// there (what bubblewrap's `--dev` does). Where the kernel refuses a new
/// instance, an empty read-only directory goes there instead: no terminal
/// of the machine is reachable, and the command cannot open ptys.
fn own_terminals() -> Result<(), Failed> {
    if !Path::new(PTS).is_dir() {
        return Ok(());
    }
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC;
    // No gid= option: the tty group may not be mapped in the user namespace.
    let own = mount(
        Some("devpts"),
        PTS,
        Some("devpts"),
        flags,
        Some("newinstance,ptmxmode=0666,mode=0620"),
    );
    if own.is_err() {
        return mount(
            Some("tmpfs"),
            PTS,
            Some("tmpfs"),
            flags | MsFlags::MS_NODEV | MsFlags::MS_RDONLY,
            Some("size=4k,mode=555"),
        )
        .map_err(|e| Failed::new("hiding the machine's terminals (/dev/pts)", e));
    }
    // A /dev/ptmx that is a link (to pts/ptmx) already leads to the new one.
    match std::fs::symlink_metadata(PTMX) {
        Ok(meta) if !meta.file_type().is_symlink() => {
            let ptmx = Path::new(PTS).join("ptmx");
            mount(Some(&ptmx), PTMX, NONE, MsFlags::MS_BIND, NONE)
                .map_err(|e| Failed::new("binding the new /dev/pts/ptmx over /dev/ptmx", e))
        }
        _ => Ok(()),
    }
}

/// Where POSIX shared memory and semaphores live (`shm_open`, `sem_open`).
const SHM: &str = "/dev/shm";

/// The device paths ns-init mounts an instance of the command's own over.
pub(super) const MOUNTED_DEVICES: &[&str] = &[PTS, PTMX, SHM];

/// A tmpfs of the command's own over `/dev/shm`, so that nothing it leaves
/// there outlives it or is seen by the machine's other processes, and the
/// segments and semaphores of the user's other programs are out of its
/// reach. Its size is capped like a container's.
fn own_shared_memory() -> Result<(), Failed> {
    if !Path::new(SHM).is_dir() {
        return Ok(());
    }
    mount(
        Some("tmpfs"),
        SHM,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("size=256m,mode=1777"),
    )
    .map_err(|e| Failed::new("mounting a /dev/shm of its own", e))
}

/// A fresh `/proc`, of the PID namespace this process is in (ns-init's,
/// and the probe's child's).
pub(super) fn mount_proc() -> Result<(), Failed> {
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        NONE,
    )
    .map_err(|e| Failed::new("mounting /proc for the PID namespace", e))
}

/// The uid and gid outside the user namespace (inside, before the maps are
/// written, they read as the overflow ids).
#[derive(Clone, Copy)]
pub(super) struct Ids {
    uid: nix::unistd::Uid,
    gid: nix::unistd::Gid,
}

impl Ids {
    pub(super) fn now() -> Ids {
        Ids {
            uid: nix::unistd::getuid(),
            gid: nix::unistd::getgid(),
        }
    }

    /// Writes this process's uid and gid maps: the same ids inside.
    fn map(self) -> Result<(), Failed> {
        let write = |file: &str, text: String| {
            std::fs::write(file, text).map_err(|e| {
                Failed::new(
                    format!("writing {file}"),
                    format!(
                        "{e}; AppArmor may restrict unprivileged user namespaces here \
                         (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 23.10 and later)"
                    ),
                )
            })
        };
        let Ids { uid, gid } = self;
        write("/proc/self/setgroups", "deny".to_owned())?;
        write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
        write("/proc/self/gid_map", format!("{gid} {gid} 1"))
    }
}

/// Why the namespaces `flags` name could not be made, for a person.
pub(super) fn unshare_failed(flags: CloneFlags) -> impl FnOnce(nix::errno::Errno) -> Failed {
    move |e| {
        let net = if flags.contains(CloneFlags::CLONE_NEWNET) {
            " and a network namespace"
        } else {
            ""
        };
        Failed::new(
            format!("entering new user, mount and PID namespaces{net}"),
            format!(
                "{e}; unprivileged user namespaces may be off here \
                 (kernel.apparmor_restrict_unprivileged_userns, user.max_user_namespaces); \
                 `tack sandbox check` shows what this machine supports"
            ),
        )
    }
}

/// `unshare(flags)` and the maps (the probe's way in).
pub(super) fn unshare_into(flags: CloneFlags) -> Result<(), Failed> {
    let ids = Ids::now();
    unshare(flags).map_err(unshare_failed(flags))?;
    ids.map()
}

/// Binds `path` onto itself and makes that mount read-only, keeping the flags
/// the kernel locks in a user namespace (remounting without them fails).
pub(super) fn bind_read_only(path: &Path) -> Result<(), Failed> {
    same_path(path)?;
    let failed = |how: &str| {
        let what = format!("making {} read-only ({how})", path.display());
        move |e| Failed::new(what, e)
    };
    mount(
        Some(path),
        path,
        NONE,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        NONE,
    )
    .map_err(failed("bind mount"))?;
    let flags = locked_flags(path).map_err(failed("statvfs"))?;
    mount(
        NONE,
        path,
        NONE,
        MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | flags,
        NONE,
    )
    .map_err(failed("read-only remount"))
}

/// The mount flags of the mount `path` is on that a remount must keep.
fn locked_flags(path: &Path) -> nix::Result<MsFlags> {
    let have = statvfs(path)?.flags();
    let pairs = [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ];
    Ok(pairs
        .into_iter()
        .filter(|(st, _)| have.contains(*st))
        .fold(MsFlags::empty(), |acc, (_, ms)| acc | ms))
}

/// Where a scratch tmpfs holding the empty file is mounted for a moment (a
/// fresh `/proc` goes over it later anyway).
const SCRATCH: &str = "/proc";

/// Hides each path: an empty read-only tmpfs over a directory, an empty
/// read-only file bound over a file.
fn hide(paths: &[std::path::PathBuf]) -> Result<(), Failed> {
    let read_only_tmpfs =
        MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
    let mut files = Vec::new();
    for path in paths {
        let failed = |e: String| Failed::new(format!("hiding {}", path.display()), e);
        if path.starts_with(SCRATCH) {
            return Err(failed("paths under /proc cannot be hidden".to_owned()));
        }
        same_path(path)?;
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => mount(
                Some("tmpfs"),
                path,
                Some("tmpfs"),
                read_only_tmpfs,
                Some("size=4k,mode=555"),
            )
            .map_err(|e| failed(e.to_string()))?,
            Ok(_) => files.push(path),
            // Gone since the plan was made: nothing to hide.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Failed::new(format!("hiding {}", path.display()), e)),
        }
    }
    if files.is_empty() {
        return Ok(());
    }
    let failed = |e: nix::errno::Errno| Failed::new("making an empty file to hide files with", e);
    let scratch_flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC;
    mount(
        Some("tmpfs"),
        SCRATCH,
        Some("tmpfs"),
        scratch_flags,
        Some("size=4k,mode=555"),
    )
    .map_err(failed)?;
    let empty = Path::new(SCRATCH).join("empty");
    std::fs::File::create(&empty)
        .map_err(|e| Failed::new("making an empty file to hide files with", e))?;
    mount(
        NONE,
        SCRATCH,
        NONE,
        MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | scratch_flags,
        NONE,
    )
    .map_err(failed)?;
    for path in files {
        mount(Some(&empty), path, NONE, MsFlags::MS_BIND, NONE)
            .map_err(|e| Failed::new(format!("hiding {}", path.display()), e))?;
    }
    umount2(SCRATCH, MntFlags::MNT_DETACH).map_err(failed)
}
