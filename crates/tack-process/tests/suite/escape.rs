//! Processes that leave the group (`setsid`, a double fork into a new
//! session) are still reached: by a timeout, a drop, `Group::kill`,
//! `Group::kill_strays`, and by the sentinel once tack is gone.

use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, getsid};
use tack_process::{Hold, Spec};

use super::support::{ProcId, first_line, sh, start, within};

/// `setsid sleep` in the background (a new session, so a new group), then
/// a double fork into another new session; prints both pids.
const ESCAPES: &str = "setsid sleep 30 & echo $!; setsid sh -c 'sleep 30 & echo $!'";

/// Starts ESCAPES then `then`, which prints `more` pids; returns the process
/// and every pid printed (the two escapees first).
async fn escaping(then: &str, more: usize) -> (tack_process::Process, Vec<ProcId>) {
    let p = start(sh(&format!("{ESCAPES}; {then}")));
    let mut lines = Vec::new();
    assert!(
        within(Duration::from_secs(10), || {
            let text = p.stdout().take(Hold::PartialLine).head;
            lines.extend(text.lines().map(str::to_owned));
            lines.len() >= 2 + more
        })
        .await,
        "not all pids printed: {lines:?}"
    );
    let ids: Vec<ProcId> = lines
        .iter()
        .map(|l| ProcId::of(l.trim().parse().unwrap()))
        .collect();
    for id in &ids[..2] {
        let sid = getsid(Some(Pid::from_raw(id.pid))).unwrap();
        assert_ne!(sid, getsid(None).unwrap(), "{} left tack's session", id.pid);
        assert_ne!(sid.as_raw(), i32::try_from(p.pid()).unwrap());
    }
    (p, ids)
}

#[tokio::test]
async fn a_timeout_kills_processes_that_left_the_group() {
    let (p, ids) = escaping("sleep 30", 0).await;
    let [setsid, double_fork] = ids[..] else {
        unreachable!()
    };

    let ending = p.wait(Some(Duration::from_millis(10)), None).await;

    assert!(ending.timed_out());
    assert!(setsid.ends().await, "setsid sleep {} survived", setsid.pid);
    assert!(double_fork.ends().await, "{} survived", double_fork.pid);
    assert!(!p.group().is_alive());
}

#[tokio::test]
async fn dropping_a_running_process_kills_processes_that_left_the_group() {
    let (p, ids) = escaping("sleep 30", 0).await;
    let [setsid, double_fork] = ids[..] else {
        unreachable!()
    };

    drop(p);

    assert!(setsid.ends().await, "setsid sleep {} survived", setsid.pid);
    assert!(double_fork.ends().await, "{} survived", double_fork.pid);
}

#[tokio::test]
async fn after_the_leader_ends_strays_can_be_killed_apart_from_the_group() {
    // The in-group sleep keeps the group alive; the escapees are strays.
    let (p, ids) = escaping("sleep 30 >/dev/null & echo $!", 1).await;
    let [setsid, double_fork, in_group] = ids[..] else {
        unreachable!()
    };
    let ending = p.wait(Some(Duration::from_secs(10)), None).await;
    assert_eq!(ending.exit().and_then(|e| e.code()), Some(0));
    let group = p.group();
    drop(p);
    assert!(
        setsid.is_running() && double_fork.is_running(),
        "left to the caller"
    );
    assert!(group.is_alive());

    assert_eq!(group.kill_strays(), 2);

    assert!(setsid.ends().await && double_fork.ends().await);
    assert!(in_group.is_running(), "the group itself is left alone");
    group.kill();
    assert!(in_group.ends().await);
    assert!(!group.is_alive());
}

/// Run only as a child of `killing_tack_kills_what_left_the_group`: starts an
/// escapee, prints its pid, and waits to be killed.
#[tokio::test]
#[ignore = "a probe run by another test, which kills it"]
async fn probe_start_an_escapee_and_wait() {
    let p = start(sh("setsid sleep 300 & echo $!; sleep 300"));
    let pid = first_line(&p).await;
    println!("escapee={pid}");
    tokio::time::sleep(Duration::from_secs(300)).await;
}

#[tokio::test]
async fn killing_tack_kills_what_left_the_group() {
    let probe = start(Spec::new(std::env::current_exe().unwrap()).args([
        "--ignored",
        "--exact",
        "suite::escape::probe_start_an_escapee_and_wait",
        "--nocapture",
    ]));
    let mut pid = None;
    assert!(
        within(Duration::from_secs(20), || {
            let out = probe.stdout().take(Hold::Nothing).head;
            pid = pid.or_else(|| {
                out.lines()
                    .find_map(|l| l.strip_prefix("escapee=")?.trim().parse().ok())
            });
            pid.is_some()
        })
        .await
    );
    let escapee = ProcId::of(pid.unwrap());

    // SIGKILL to the probe alone: nothing of it can clean up.
    kill(
        Pid::from_raw(i32::try_from(probe.pid()).unwrap()),
        Signal::SIGKILL,
    )
    .unwrap();

    assert!(
        escapee.ends().await,
        "escapee {} outlived the tack that started it",
        escapee.pid
    );
}
