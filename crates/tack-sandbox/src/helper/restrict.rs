//! What the command is restricted by from its exec on: Landlock (where it
//! may write, what TCP it may use, what it may signal) and seccomp (which
//! sockets and system calls it may not use). Both are built before the
//! helper forks, and applied by the command's own process just before exec.

use std::collections::BTreeMap;
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use super::{Failed, sys};
use crate::plan::{NetPlan, Plan};

/// The Landlock ruleset and seccomp filter of a plan, ready to apply.
pub(super) struct Restrictions {
    /// `None` only when the plan asks for no Landlock (ABI 0) and the kernel has none.
    landlock: Option<RulesetCreated>,
    seccomp: BpfProgram,
}

impl Restrictions {
    pub(super) fn for_plan(plan: &Plan) -> Result<Restrictions, Failed> {
        Ok(Restrictions {
            landlock: landlock(plan)?,
            seccomp: seccomp(plan)?,
        })
    }

    /// Only the seccomp filter of `plan` (the probe tries them).
    pub(super) fn seccomp_only(plan: &Plan) -> Result<Restrictions, Failed> {
        Ok(Restrictions {
            landlock: None,
            seccomp: seccomp(plan)?,
        })
    }

    /// Allows writing to the device paths of `plan` that ns-init has just
    /// mounted its own instance over (`/dev/pts`, `/dev/ptmx`, `/dev/shm`):
    /// a Landlock rule is tied to an inode, and one made on the machine's
    /// would not reach through the mount put over it.
    pub(super) fn allow_own_devices(&mut self, plan: &Plan) -> Result<(), Failed> {
        let Some(mut ruleset) = self.landlock.take() else {
            return Ok(());
        };
        let abi = ABI::from(sys::landlock_abi());
        for device in super::ns::MOUNTED_DEVICES {
            let path = Path::new(device);
            if plan.writable.iter().any(|w| w == path) {
                ruleset = allow_writes(ruleset, path, abi)?;
            }
        }
        self.landlock = Some(ruleset);
        Ok(())
    }

    /// Restricts this process (and what it execs) for good: `no_new_privs`,
    /// then Landlock, then seccomp.
    pub(super) fn apply(self) -> Result<(), Failed> {
        nix::sys::prctl::set_no_new_privs().map_err(|e| Failed::new("setting no_new_privs", e))?;
        if let Some(ruleset) = self.landlock {
            ruleset
                .restrict_self()
                .map_err(|e| Failed::new("enforcing the Landlock ruleset", e))?;
        }
        seccompiler::apply_filter(&self.seccomp)
            .map_err(|e| Failed::new("installing the seccomp filter", e))
    }
}

/// Drops every capability for good, so that uid 0 inside the user namespace
/// (tack run as root) does not get them back when it execs the command.
pub(super) fn drop_capabilities() -> Result<(), Failed> {
    let failed = |what: &str| {
        let what = format!("dropping capabilities ({what})");
        move |e| Failed::new(what, e)
    };
    sys::lock_securebits().map_err(failed("securebits"))?;
    sys::clear_ambient().map_err(failed("the ambient set"))?;
    sys::drop_bounding_set().map_err(failed("the bounding set"))?;
    sys::clear_capabilities().map_err(failed("capset"))
}

/// The ruleset: every file-system right of the kernel's ABI handled; reading
/// and executing allowed beneath `/`, everything beneath each writable path;
/// TCP as the network plan says (ABI 4); no abstract Unix sockets or signals
/// out of the sandbox (ABI 6).
fn landlock(plan: &Plan) -> Result<Option<RulesetCreated>, Failed> {
    let kernel = sys::landlock_abi();
    if kernel < i32::from(plan.landlock_abi) {
        return Err(Failed::new(
            "Landlock",
            format!(
                "this kernel's Landlock ABI is {kernel} and the plan needs {} (Linux 5.13 or later \
                 with landlock in the kernel's lsm= list); `tack sandbox check` shows what this \
                 machine supports",
                plan.landlock_abi
            ),
        ));
    }
    if kernel == 0 {
        return Ok(None);
    }
    let abi = ABI::from(kernel);
    let failed = |e: landlock::RulesetError| Failed::new("building the Landlock ruleset", e);
    let all = AccessFs::from_all(abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(all)
        .map_err(failed)?;
    if abi >= ABI::V4 {
        // With the proxy, the network namespace of its own is the wall: its
        // only way out is the bridge, and a command may still talk to a
        // server it started on its own loopback (a test suite's).
        let tcp = match plan.network {
            NetPlan::On | NetPlan::Proxy { .. } | NetPlan::Loopback => None,
            NetPlan::Off => Some(AccessNet::BindTcp | AccessNet::ConnectTcp),
        };
        if let Some(tcp) = tcp {
            ruleset = ruleset.handle_access(tcp).map_err(failed)?;
        }
    }
    if abi >= ABI::V6 {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(failed)?;
    }
    let mut ruleset = ruleset.create().map_err(failed)?;

    let mut read = AccessFs::from_read(abi);
    if plan.unix_sockets {
        // Connecting to a Unix socket anywhere (ABI 9 handles it).
        read |= all & AccessFs::ResolveUnix;
    }
    let root = PathFd::new("/").map_err(|e| Failed::new("opening / for Landlock", e))?;
    ruleset = ruleset
        .add_rule(PathBeneath::new(root, read))
        .map_err(failed)?;
    for path in &plan.writable {
        if plan.namespaces
            && super::ns::MOUNTED_DEVICES
                .iter()
                .any(|d| path == Path::new(d))
        {
            // Their rules go on the helper's own mounts ([`Restrictions::allow_own_devices`]).
            continue;
        }
        // Without namespaces nothing pins a root nested in another: a
        // command could have swapped it for a link to `/`.
        super::ns::same_path(path)?;
        ruleset = allow_writes(ruleset, path, abi)?;
    }
    Ok(Some(ruleset))
}

/// `ruleset` with writing allowed beneath `path` (everything beneath a
/// directory; a file's rights on a file), as `path` is now.
fn allow_writes(ruleset: RulesetCreated, path: &Path, abi: ABI) -> Result<RulesetCreated, Failed> {
    let failed = |e: landlock::RulesetError| Failed::new("building the Landlock ruleset", e);
    let is_dir = match std::fs::metadata(path) {
        Ok(meta) => meta.is_dir(),
        // A writable path that is gone allows nothing.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ruleset),
        Err(e) => {
            return Err(Failed::new(
                format!("reading writable path {}", path.display()),
                e,
            ));
        }
    };
    let access = if is_dir {
        AccessFs::from_all(abi)
    } else {
        AccessFs::from_file(abi)
    };
    let fd = PathFd::new(path)
        .map_err(|e| Failed::new(format!("opening writable path {}", path.display()), e))?;
    ruleset
        .add_rule(PathBeneath::new(fd, access))
        .map_err(failed)
}

/// System calls refused (EPERM) whatever the plan: io_uring (its operations
/// bypass the socket checks below), tracing and writing other processes,
/// mounting, new user namespaces, BPF, perf, kexec, the kernel keyrings.
const REFUSED: &[libc::c_long] = &[
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_ptrace,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_fsconfig,
    libc::SYS_mount_setattr,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_add_key,
    libc::SYS_keyctl,
    libc::SYS_request_key,
];

/// The seccomp filter, one program (the kernel compiles each filter on its
/// own, so one is cheaper than two): first ENOSYS for `clone3` (a filter
/// cannot read its flags, so libc falls back to `clone`) and, on x86_64,
/// for every x32 call (they would dodge the numbers below); then EPERM for
/// sockets as the plan says, the [`REFUSED`] calls, and `unshare`/`clone`
/// with `CLONE_NEWUSER`.
fn seccomp(plan: &Plan) -> Result<BpfProgram, Failed> {
    let failed = |e: seccompiler::BackendError| Failed::new("building the seccomp filter", e);
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(failed)?;
    // `int` arguments: only the low 32 bits count (the kernel ignores the
    // rest, so a filter must too).
    let arg0 = |op, value: libc::c_int| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, value as u64).map_err(failed)
    };
    let one = |condition| SeccompRule::new(vec![condition]).map_err(failed);

    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let socket = match (&plan.network, plan.unix_sockets) {
        // Every domain but Unix (inet, netlink, packet, vsock…).
        (NetPlan::Off, true) => Some(vec![one(arg0(SeccompCmpOp::Ne, libc::AF_UNIX)?)?]),
        (NetPlan::Off, false) => Some(Vec::new()),
        (NetPlan::On | NetPlan::Proxy { .. } | NetPlan::Loopback, false) => {
            Some(vec![one(arg0(SeccompCmpOp::Eq, libc::AF_UNIX)?)?])
        }
        (NetPlan::On | NetPlan::Proxy { .. } | NetPlan::Loopback, true) => None,
    };
    if let Some(socket) = socket {
        rules.insert(libc::SYS_socket, socket);
    }
    for &call in REFUSED {
        rules.insert(call, Vec::new());
    }
    let new_user = libc::CLONE_NEWUSER;
    for call in [libc::SYS_unshare, libc::SYS_clone] {
        let masked = SeccompCmpOp::MaskedEq(new_user as u64);
        rules.insert(call, vec![one(arg0(masked, new_user)?)?]);
    }
    let eperm = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(failed)?;
    let mut program = enosys_prefix(arch);
    program.extend(BpfProgram::try_from(eperm).map_err(failed)?);
    Ok(program)
}

/// The ENOSYS part, written out (seccompiler cannot compare the call number
/// with `>=`); what it does not refuse falls through to the next instruction.
fn enosys_prefix(arch: TargetArch) -> BpfProgram {
    const LD_W_ABS: u16 = 0x20;
    const JA: u16 = 0x05;
    const JEQ_K: u16 = 0x15;
    const JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    const NR: u32 = 0;
    const ARCH: u32 = 4;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let audit_arch = match arch {
        TargetArch::x86_64 => 0xC000_003E,
        TargetArch::aarch64 => 0xC000_00B7,
        TargetArch::riscv64 => 0xC000_00F3,
    };
    let op = |code, k, jt, jf| sock_filter { code, jt, jf, k };
    let clone3 = libc::SYS_clone3 as u32;
    let mut program = vec![
        op(LD_W_ABS, ARCH, 0, 0),
        op(JEQ_K, audit_arch, 1, 0),
        op(RET_K, libc::SECCOMP_RET_KILL_PROCESS, 0, 0),
        op(LD_W_ABS, NR, 0, 0),
    ];
    if arch == TargetArch::x86_64 {
        // To the ENOSYS return, past the next two.
        program.push(op(JGE_K, X32_SYSCALL_BIT, 2, 0));
    }
    program.extend([
        op(JEQ_K, clone3, 1, 0),
        // Past the ENOSYS return, on to the rest of the filter.
        op(JA, 1, 0, 0),
        op(
            RET_K,
            libc::SECCOMP_RET_ERRNO | (libc::ENOSYS as u32 & libc::SECCOMP_RET_DATA),
            0,
            0,
        ),
    ]);
    program
}
