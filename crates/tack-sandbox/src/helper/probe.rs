//! `--probe`: tries each mechanism for real, each in a throwaway child, and
//! prints what works as [`Support`] JSON.

use std::io::{Read as _, Write as _};

use nix::sched::CloneFlags;
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::ForkResult;

use super::{Failed, ns, restrict::Restrictions, sys};
use crate::plan::{NetPlan, Plan};
use crate::support::Support;

pub(super) fn main() -> ! {
    let support = Support {
        os: std::env::consts::OS.to_owned(),
        landlock_abi: u8::try_from(sys::landlock_abi()).unwrap_or(u8::MAX),
        namespaces: in_child(namespaces).err(),
        network_namespace: in_child(network_namespace).err(),
        seccomp: in_child(seccomp).is_ok(),
    };
    match serde_json::to_string(&support) {
        Ok(json) => {
            println!("{json}");
            std::process::exit(0)
        }
        Err(e) => Failed::new("writing what this machine supports", e).exit(),
    }
}

/// Runs `test` in a forked child: `Err` with what it said went wrong.
fn in_child(test: fn() -> Result<(), Failed>) -> Result<(), String> {
    let (mut read, mut write) = std::io::pipe().map_err(|e| format!("no pipe: {e}"))?;
    match sys::fork().map_err(|e| format!("fork failed: {e}"))? {
        ForkResult::Child => {
            drop(read);
            let code = match test() {
                Ok(()) => 0,
                Err(failed) => {
                    let _ = write.write_all(failed.to_string().as_bytes());
                    1
                }
            };
            std::process::exit(code)
        }
        ForkResult::Parent { child } => {
            drop(write);
            let mut said = String::new();
            let _ = read.read_to_string(&mut said);
            match waitpid(child, None) {
                Ok(WaitStatus::Exited(_, 0)) => Ok(()),
                Ok(_) if !said.is_empty() => Err(said),
                Ok(status) => Err(format!("the probe ended unexpectedly ({status:?})")),
                Err(e) => Err(format!("the probe could not be waited for: {e}")),
            }
        }
    }
}

/// What ns-init and the helper do: user, mount and PID namespaces with the
/// uid/gid maps, a read-only bind mount, a tmpfs, and a fresh /proc from
/// PID 1 of the new namespace.
fn namespaces() -> Result<(), Failed> {
    ns::unshare_into(
        CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWPID,
    )?;
    use nix::mount::{MsFlags, mount};
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| Failed::new("making the mount tree private", e))?;
    let dir = std::env::temp_dir();
    ns::bind_read_only(&dir)?;
    mount(
        Some("tmpfs"),
        &dir,
        Some("tmpfs"),
        MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("size=4k"),
    )
    .map_err(|e| Failed::new(format!("mounting a tmpfs on {}", dir.display()), e))?;
    in_child(ns::mount_proc).map_err(|why| Failed::new("the PID namespace", why))
}

/// A network namespace of its own with `lo` up and a listener on it.
fn network_namespace() -> Result<(), Failed> {
    ns::unshare_into(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET)?;
    sys::loopback_up().map_err(|e| Failed::new("bringing up lo", e))?;
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .map_err(|e| Failed::new("listening on 127.0.0.1", e))?;
    Ok(())
}

/// The real filters of a plan with the network off.
fn seccomp() -> Result<(), Failed> {
    let plan = Plan {
        writable: Vec::new(),
        read_only: Vec::new(),
        hidden: Vec::new(),
        network: NetPlan::Off,
        unix_sockets: false,
        namespaces: false,
        landlock_abi: 0,
    };
    Restrictions::seccomp_only(&plan)?.apply()
}
