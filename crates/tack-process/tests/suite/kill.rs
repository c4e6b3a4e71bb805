//! Stopping a process stops everything it started: a grandchild in the
//! background dies on timeout, on cancel and when the handle is dropped.

use std::time::Duration;

use tack_process::{Hold, Process};
use tokio_util::sync::CancellationToken;

use super::support::{ProcId, sh, start};

/// A shell that starts a `sleep` in the background, prints its pid, and
/// waits in a second `sleep`.
async fn with_grandchild() -> (Process, ProcId, ProcId) {
    let p = start(sh("sleep 30 & echo $!; sleep 30"));
    let grandchild = ProcId::printed_by(&p).await;
    let leader = ProcId::of(i32::try_from(p.pid()).unwrap());
    assert!(grandchild.is_running() && leader.is_running());
    (p, leader, grandchild)
}

#[tokio::test]
async fn a_timeout_kills_the_grandchild() {
    let (p, leader, grandchild) = with_grandchild().await;

    let ending = p.wait(Some(Duration::from_millis(10)), None).await;

    assert!(ending.timed_out());
    assert!(
        grandchild.ends().await,
        "grandchild {} survived",
        grandchild.pid
    );
    assert!(leader.ends().await);
    assert!(!p.group().is_alive());
}

#[tokio::test]
async fn a_cancel_kills_the_grandchild() {
    let (p, leader, grandchild) = with_grandchild().await;
    let cancel = CancellationToken::new();
    cancel.cancel();

    let ending = p.wait(None, Some(&cancel)).await;

    assert!(ending.cancelled());
    assert!(
        grandchild.ends().await,
        "grandchild {} survived",
        grandchild.pid
    );
    assert!(leader.ends().await);
}

#[tokio::test]
async fn dropping_a_running_process_kills_the_grandchild() {
    let (p, leader, grandchild) = with_grandchild().await;
    let group = p.group();

    drop(p);

    assert!(
        grandchild.ends().await,
        "grandchild {} survived",
        grandchild.pid
    );
    assert!(leader.ends().await);
    assert!(!group.is_alive());
}

#[tokio::test]
async fn dropping_an_ended_process_leaves_what_it_started_to_its_group() {
    // The background sleep closes the pipes, so the output ends with the shell.
    let p = start(sh("sleep 30 >/dev/null 2>&1 & echo $!"));
    let grandchild = ProcId::printed_by(&p).await;
    let ending = p.wait(Some(Duration::from_secs(10)), None).await;
    assert_eq!(ending.exit().and_then(|e| e.code()), Some(0));
    assert!(p.output_closed(Duration::from_secs(5)).await);
    let group = p.group();

    drop(p);

    assert!(grandchild.is_running(), "left running on purpose");
    assert!(group.is_alive());
    group.kill();
    assert!(grandchild.ends().await);
    assert!(!group.is_alive());
}

#[tokio::test]
async fn a_grandchild_holding_the_pipe_keeps_the_output_open_until_killed() {
    let p = start(sh("sleep 30 & echo $!"));
    let grandchild = ProcId::printed_by(&p).await;
    p.wait(Some(Duration::from_secs(10)), None).await;

    assert!(!p.output_closed(Duration::from_millis(50)).await);
    p.group().kill();

    assert!(p.output_closed(Duration::from_secs(5)).await);
    assert!(grandchild.ends().await);
    assert_eq!(p.stdout().take(Hold::Nothing).head, "");
}
