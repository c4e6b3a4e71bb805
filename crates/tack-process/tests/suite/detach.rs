//! The process group and session a process is started in.

use nix::unistd::{Pid, getpgid, getsid};
use tack_process::{Detach, Spec};

use super::support::{sh, start};

/// The pid, process group and session of a process started as `detach`
/// says, and whether it could open a terminal.
async fn ids(detach: Detach) -> (Pid, Pid, Pid, String) {
    let p = start(
        sh("if (: </dev/tty) 2>/dev/null; then echo tty; else echo no-tty; fi; sleep 30")
            .detach(detach),
    );
    let line = super::support::first_line(&p).await;
    let pid = Pid::from_raw(i32::try_from(p.pid()).unwrap());
    let pgid = getpgid(Some(pid)).unwrap();
    let sid = getsid(Some(pid)).unwrap();
    (pid, pgid, sid, line)
}

#[tokio::test]
async fn a_group_is_new_but_the_session_is_tacks() {
    let (pid, pgid, sid, _) = ids(Detach::Group).await;
    assert_eq!(pgid, pid, "the process leads a group of its own");
    assert_eq!(sid, getsid(None).unwrap(), "in tack's session");
    assert_ne!(getpgid(None).unwrap(), pgid);
}

#[tokio::test]
async fn a_session_is_new_and_has_no_terminal() {
    let (pid, pgid, sid, tty) = ids(Detach::Session).await;
    assert_eq!((pgid, sid), (pid, pid), "leads its group and its session");
    assert_eq!(tty, "no-tty");
}

#[tokio::test]
async fn session_if_terminal_follows_whether_tack_has_one() {
    let tack_has_terminal = std::fs::File::open("/dev/tty").is_ok();
    let (pid, pgid, sid, tty) = ids(Detach::SessionIfTerminal).await;
    assert_eq!(pgid, pid);
    if tack_has_terminal {
        assert_eq!((sid, tty.as_str()), (pid, "no-tty"));
    } else {
        assert_eq!(sid, getsid(None).unwrap());
    }
}

#[tokio::test]
async fn tokio_command_starts_a_process_group_leader() {
    let mut child = tack_process::tokio_command("sleep")
        .arg("30")
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = Pid::from_raw(i32::try_from(child.id().unwrap()).unwrap());

    assert_eq!(getpgid(Some(pid)).unwrap(), pid);
    child.kill().await.unwrap();
}

#[test]
fn spec_names_its_program_and_directory() {
    let spec = Spec::new("sh").cwd("/tmp");
    assert_eq!(spec.program(), "sh");
    assert_eq!(spec.dir(), Some(std::path::Path::new("/tmp")));
}
