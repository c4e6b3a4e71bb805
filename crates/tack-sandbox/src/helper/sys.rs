//! The system calls the helper needs that have no safe wrapper in `nix`,
//! each the smallest `unsafe` item it can be, in one place to review.

use nix::errno::Errno;
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::unistd::ForkResult;

/// `fork(2)`. The helper calls it only while it is single-threaded (before
/// ns-init starts the bridge's threads), which [`helper::main`](super::main)
/// requires of its caller.
#[expect(
    unsafe_code,
    reason = "fork(2): the helper forks ns-init and the command"
)]
pub(super) fn fork() -> nix::Result<ForkResult> {
    // SAFETY: the helper is single-threaded whenever it forks (main() is
    // called before any thread starts, and ns-init forks the command before
    // it starts the bridge), so the child cannot inherit a lock held by
    // another thread, and it may allocate.
    unsafe { nix::unistd::fork() }
}

/// `clone(2)` like `fork(2)` (no new stack: the child returns here on a
/// copy of this one), the child in the new namespaces `flags` name: with
/// `CLONE_NEWPID` it is PID 1 of the new PID namespace, and this process
/// stays where it was. Single-threaded callers only, as [`fork`].
#[expect(
    unsafe_code,
    reason = "clone(2) with namespace flags: ns-init starts in its namespaces, the helper stays out"
)]
pub(super) fn fork_into(flags: nix::sched::CloneFlags) -> nix::Result<ForkResult> {
    let flags = flags.bits() as libc::c_ulong | libc::SIGCHLD as libc::c_ulong;
    // SAFETY: as for fork: the process is single-threaded, so the child
    // inherits no lock held by another thread. With a null stack the kernel
    // gives the child a copy of this address space and stack, as fork
    // does; the other arguments (tids, tls) are unused without the flags
    // that read them.
    let r = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    match Errno::result(r)? {
        0 => Ok(ForkResult::Child),
        pid => Ok(ForkResult::Parent {
            child: nix::unistd::Pid::from_raw(pid as libc::pid_t),
        }),
    }
}

/// `prctl(option, arg2, arg3, 0, 0)` for the options that take integers.
#[expect(
    unsafe_code,
    reason = "prctl(2) options nix does not wrap: securebits, the bounding set, ambient capabilities"
)]
fn prctl(option: libc::c_int, arg2: libc::c_ulong, arg3: libc::c_ulong) -> nix::Result<()> {
    // SAFETY: the options used here (PR_SET_SECUREBITS, PR_CAPBSET_DROP,
    // PR_CAP_AMBIENT) take integer arguments only; no memory is passed.
    let r = unsafe { libc::prctl(option, arg2, arg3, 0 as libc::c_ulong, 0 as libc::c_ulong) };
    Errno::result(r).map(drop)
}

/// `SECBIT_NOROOT | SECBIT_NO_SETUID_FIXUP`, both locked: uid 0 gains no
/// capabilities on exec, and changing uids keeps them as they are (none).
pub(super) fn lock_securebits() -> nix::Result<()> {
    let bits = libc::SECBIT_NOROOT
        | libc::SECBIT_NOROOT_LOCKED
        | libc::SECBIT_NO_SETUID_FIXUP
        | libc::SECBIT_NO_SETUID_FIXUP_LOCKED;
    prctl(libc::PR_SET_SECUREBITS, bits as libc::c_ulong, 0)
}

/// Drops every capability from the bounding set (up to the first one the
/// kernel does not know).
pub(super) fn drop_bounding_set() -> nix::Result<()> {
    for cap in 0..64 {
        match prctl(libc::PR_CAPBSET_DROP, cap, 0) {
            Ok(()) => {}
            Err(Errno::EINVAL) => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Clears the ambient capabilities.
pub(super) fn clear_ambient() -> nix::Result<()> {
    prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
        0,
    )
}

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`: two [`CapData`] (64 capabilities).
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Empties the effective, permitted and inheritable sets (`capset(2)`).
#[expect(unsafe_code, reason = "capset(2) has no wrapper in nix or libc")]
pub(super) fn clear_capabilities() -> nix::Result<()> {
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: header and data are valid for the call, laid out as the
    // kernel's structs for version 3 (a header and two data structs).
    let r = unsafe { libc::syscall(libc::SYS_capset, &raw mut header, data.as_ptr()) };
    Errno::result(r).map(drop)
}

/// The kernel's Landlock ABI version: 0 when it has none or it is off.
#[expect(
    unsafe_code,
    reason = "landlock_create_ruleset(2) asking for the version; the landlock crate keeps it private"
)]
pub(super) fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute pointer, size 0 and the VERSION flag the
    // call reads no memory and returns the ABI version or -1.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(v).unwrap_or(0).max(0)
}

/// Brings the loopback interface of this network namespace up (`SIOCSIFFLAGS`).
#[expect(
    unsafe_code,
    reason = "ioctl(2) SIOCGIFFLAGS/SIOCSIFFLAGS has no safe wrapper"
)]
pub(super) fn loopback_up() -> nix::Result<()> {
    use std::os::fd::AsRawFd as _;
    let socket = nix::sys::socket::socket(
        nix::sys::socket::AddressFamily::Inet,
        nix::sys::socket::SockType::Datagram,
        nix::sys::socket::SockFlag::SOCK_CLOEXEC,
        None,
    )?;
    // SAFETY: ifreq is plain data; all zeroes is a valid value.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    // SAFETY: `request` is a valid ifreq naming "lo"; SIOCGIFFLAGS fills
    // its flags and SIOCSIFFLAGS reads them; the socket is open.
    unsafe {
        Errno::result(libc::ioctl(
            socket.as_raw_fd(),
            libc::SIOCGIFFLAGS,
            &raw mut request,
        ))?;
        request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        Errno::result(libc::ioctl(
            socket.as_raw_fd(),
            libc::SIOCSIFFLAGS,
            &raw const request,
        ))?;
    }
    Ok(())
}

/// Sets `signal` to its default action (the Rust runtime ignores SIGPIPE, and
/// an ignored signal stays ignored across exec).
#[expect(
    unsafe_code,
    reason = "sigaction(2) is unsafe in nix because of handlers; SIG_DFL runs no code"
)]
pub(super) fn default_action(signal: Signal) -> nix::Result<()> {
    let action = SigAction::new(SigHandler::SigDfl, SaFlags::empty(), SigSet::empty());
    // SAFETY: SIG_DFL installs no handler, so no code of ours runs in a
    // signal context.
    unsafe { nix::sys::signal::sigaction(signal, &action) }.map(drop)
}

/// Marks every descriptor from 3 up close-on-exec, so that what tack's
/// parent left open without the flag (a connected socket, a file opened for
/// writing outside the roots: an IDE, a CI runner or a wrapper may leave
/// them) does not reach the command, which could use it past Landlock and
/// the network rules, both judged only when a file or socket is opened.
/// `close_range(2)` (Linux 5.11); on an older kernel, each descriptor
/// `/proc/self/fd` lists.
#[expect(
    unsafe_code,
    reason = "close_range(2) has no wrapper in nix; it takes integers only"
)]
pub(super) fn close_inherited_on_exec() -> nix::Result<()> {
    const FIRST: libc::c_uint = 3;
    // SAFETY: close_range takes integers only, and with CLOSE_RANGE_CLOEXEC
    // it closes nothing this process still uses: the descriptors stay open
    // until exec.
    let r = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            FIRST,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if Errno::result(r).is_ok() {
        return Ok(());
    }
    let fds: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .map_err(|_| Errno::EBADF)?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd >= FIRST as i32)
        .collect();
    for fd in fds {
        // SAFETY: only the descriptor's flags change; a descriptor that the
        // listing's own handle held (closed since) answers EBADF.
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
        match nix::fcntl::fcntl(
            fd,
            nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
        ) {
            Ok(_) | Err(Errno::EBADF) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `mount_setattr(2)` on the mount at `path` (and, with `recursive`, every
/// mount beneath it): sets the attributes `set`, clears `clear`
/// (`MOUNT_ATTR_RDONLY`, …). Linux 5.12; ENOSYS before.
#[expect(
    unsafe_code,
    reason = "mount_setattr(2) has no wrapper in nix; it reads a path and a small struct"
)]
pub(super) fn mount_setattr(
    path: &std::path::Path,
    recursive: bool,
    set: u64,
    clear: u64,
) -> nix::Result<()> {
    use std::os::unix::ffi::OsStrExt as _;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| Errno::EINVAL)?;
    let attr = libc::mount_attr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { libc::AT_RECURSIVE } else { 0 };
    // SAFETY: `path` is a NUL-terminated string and `attr` a mount_attr that
    // both outlive the call, whose size is passed with it; the kernel only
    // reads them.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags as libc::c_uint,
            &raw const attr,
            std::mem::size_of::<libc::mount_attr>(),
        )
    };
    Errno::result(r).map(drop)
}
