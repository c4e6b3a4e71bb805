//! The processes of a command run in namespaces:
//!
//! ```text
//! helper (tack's child, the group leader; original PID namespace)
//!  └─ ns-init (PID 1 of the new PID namespace: /proc, lo and the bridge)
//!      └─ the command (restricted, then exec'd)
//! ```
//!
//! ns-init reaps everything; when the command ends it writes its status to a
//! pipe, and the helper ends the same way. ns-init stays while what the
//! command left running (a `server &`) runs, as it would unsandboxed; tack
//! kills the group later. The helper and ns-init block the signals a group
//! is stopped with (the command gets them itself: it is in the same group),
//! so the helper ends when, and as, the command does.

use std::ffi::CString;
use std::io::{Read as _, Write as _};

use nix::sys::signal::{SigSet, Signal};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid};

use super::restrict::{self, Restrictions};
use super::{Failed, exec, ns, sys};
use crate::plan::{NetPlan, Plan, SETUP_EXIT};

/// The signals tack (or anyone) may stop the group with: the helper and
/// ns-init wait for the command to act on them instead.
fn group_signals() -> SigSet {
    let mut set = SigSet::empty();
    for signal in [
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGQUIT,
        Signal::SIGTERM,
        Signal::SIGUSR1,
        Signal::SIGUSR2,
        Signal::SIGALRM,
    ] {
        set.add(signal);
    }
    set
}

/// Runs the command under ns-init, started in new namespaces (the helper
/// stays out of them, so that their teardown is not on its way out), and
/// ends as the command ends.
pub(super) fn run(
    plan: &Plan,
    restrictions: Restrictions,
    argv: &[CString],
) -> Result<std::convert::Infallible, Failed> {
    let (status_read, status_write) =
        std::io::pipe().map_err(|e| Failed::new("making the status pipe", e))?;
    group_signals()
        .thread_block()
        .map_err(|e| Failed::new("blocking signals", e))?;
    let ids = ns::Ids::now();
    let flags = ns::flags(plan);
    match sys::fork_into(flags).map_err(ns::unshare_failed(flags))? {
        ForkResult::Parent { child } => {
            drop(status_write);
            drop(restrictions);
            end_as_reported(status_read, child)
        }
        ForkResult::Child => {
            drop(status_read);
            ns_init(plan, ids, restrictions, argv, status_write)
        }
    }
}

/// How a process ended, as it crosses the pipe: the exit code, or minus the signal.
fn encode(status: WaitStatus) -> Option<i32> {
    match status {
        WaitStatus::Exited(_, code) => Some(code),
        WaitStatus::Signaled(_, signal, _) => Some(-(signal as i32)),
        _ => None,
    }
}

/// What ns-init reports: the command's status (4 bytes, [`encode`]) and
/// whether ns-init ends now (nothing else is left in the namespace).
const REPORT_LEN: usize = 5;

/// The helper: waits for ns-init's report and ends the same way. When
/// ns-init ends too, the helper reaps it first: a group member left as a
/// zombie would make tack think the command left processes running.
fn end_as_reported(mut status: std::io::PipeReader, init: Pid) -> ! {
    let mut bytes = [0u8; REPORT_LEN];
    if status.read_exact(&mut bytes).is_err() {
        eprintln!(
            "tack sandbox: the sandbox's init process ended without saying how the command ended \
             (it was killed, or ran out of memory)"
        );
        let _ = nix::sys::signal::raise(Signal::SIGKILL);
        std::process::exit(SETUP_EXIT)
    }
    if bytes[4] == 1 {
        let _ = waitpid(init, Some(WaitPidFlag::__WALL));
    }
    end_as(i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// The report of `status`, saying whether ns-init ends now.
fn report_of(status: i32, init_ends: bool) -> [u8; REPORT_LEN] {
    let code = status.to_le_bytes();
    [code[0], code[1], code[2], code[3], u8::from(init_ends)]
}

/// Exits with `status` (an exit code), or dies by the signal it names.
fn end_as(status: i32) -> ! {
    if status >= 0 {
        std::process::exit(status)
    }
    let number = -status;
    if let Ok(signal) = Signal::try_from(number) {
        // No core file of the helper for the command's crash.
        let _ = nix::sys::prctl::set_dumpable(false);
        let _ = sys::default_action(signal);
        let mut set = SigSet::empty();
        set.add(signal);
        let _ = set.thread_unblock();
        let _ = nix::sys::signal::raise(signal);
    }
    // A signal whose default is not to end the process.
    std::process::exit(128 + number)
}

/// PID 1 of the namespace: sets it up, starts the command, reaps.
fn ns_init(
    plan: &Plan,
    ids: ns::Ids,
    mut restrictions: Restrictions,
    argv: &[CString],
    mut report: std::io::PipeWriter,
) -> ! {
    let set_up = ns::set_up(plan, ids)
        .and_then(|()| restrictions.allow_own_devices(plan))
        .and_then(|()| init_setup(plan));
    let listener = match set_up {
        Ok(listener) => listener,
        Err(failed) => {
            failed.print();
            let _ = report.write_all(&report_of(SETUP_EXIT, false));
            std::process::exit(SETUP_EXIT)
        }
    };
    let command = match sys::fork() {
        Ok(ForkResult::Child) => {
            drop(report);
            drop(listener);
            command(restrictions, argv)
        }
        Ok(ForkResult::Parent { child }) => child,
        Err(e) => {
            Failed::new("starting the command (fork)", e).print();
            let _ = report.write_all(&report_of(SETUP_EXIT, false));
            std::process::exit(SETUP_EXIT)
        }
    };
    drop(restrictions);
    if let (Some(listener), NetPlan::Proxy { socket, .. }) = (listener, &plan.network) {
        let socket = socket.clone();
        std::thread::spawn(move || super::bridge::serve(listener, socket));
    }
    // The pipes tack reads close when the command's side closes them.
    if let Ok(null) = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = nix::unistd::dup2_stdin(&null);
        let _ = nix::unistd::dup2_stdout(&null);
        let _ = nix::unistd::dup2_stderr(&null);
    }
    reap(command, Some(report))
}

/// What ns-init sets up before the command starts: a fresh `/proc` (of this
/// PID namespace), and for the proxy, `lo` up and the bridge's listener.
fn init_setup(plan: &Plan) -> Result<Option<std::net::TcpListener>, Failed> {
    ns::mount_proc()?;
    let port = match plan.network {
        NetPlan::On | NetPlan::Off => return Ok(None),
        NetPlan::Loopback | NetPlan::Proxy { .. } => {
            sys::loopback_up()
                .map_err(|e| Failed::new("bringing up lo in the network namespace", e))?;
            match plan.network {
                NetPlan::Proxy { port, .. } => port,
                _ => return Ok(None),
            }
        }
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
        Failed::new(
            format!("listening on 127.0.0.1:{port} for the bridge to the proxy"),
            e,
        )
    })?;
    Ok(Some(listener))
}

/// Reaps every child until none is left; the command's status goes to
/// `report`, saying whether anything else is left (when nothing is, ns-init
/// ends at once and the helper reaps it).
fn reap(command: Pid, mut report: Option<std::io::PipeWriter>) -> ! {
    loop {
        match waitpid(None::<Pid>, Some(WaitPidFlag::__WALL)) {
            Ok(status) => {
                if status.pid() == Some(command)
                    && let (Some(code), Some(mut pipe)) = (encode(status), report.take())
                {
                    let alone = nothing_else_left();
                    let _ = pipe.write_all(&report_of(code, alone));
                    if alone {
                        std::process::exit(0)
                    }
                }
            }
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => break,
        }
    }
    std::process::exit(0)
}

/// Reaps what has already ended; true when no child is left.
fn nothing_else_left() -> bool {
    loop {
        match waitpid(
            None::<Pid>,
            Some(WaitPidFlag::__WALL | WaitPidFlag::WNOHANG),
        ) {
            Ok(WaitStatus::StillAlive) => return false,
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return true,
        }
    }
}

/// The command's process: no capabilities, restricted, exec'd.
fn command(restrictions: Restrictions, argv: &[CString]) -> ! {
    let _ = group_signals().thread_unblock();
    let prepared = restrict::drop_capabilities().and_then(|()| restrictions.apply());
    if let Err(failed) = prepared {
        failed.exit()
    }
    exec(argv)
}
