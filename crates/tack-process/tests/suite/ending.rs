//! How a process ended: its code, the signal, and whether we stopped it.

use std::time::Duration;

use tack_process::{Ending, signal_name};
use tokio_util::sync::CancellationToken;

use super::support::{first_line, sh, start};

#[tokio::test]
async fn the_signal_that_ended_the_process_is_reported() {
    let p = start(sh("kill -TERM $$"));

    let ending = p.wait(Some(Duration::from_secs(10)), None).await;

    let exit = ending.exit().expect("reaped");
    assert!(matches!(ending, Ending::Exited(_)), "{ending:?}");
    assert_eq!((exit.code(), exit.signal()), (None, Some(15)));
    assert!(!exit.success());
    assert_eq!(signal_name(15), Some("SIGTERM"));
    assert_eq!(signal_name(0), None);
}

#[tokio::test]
async fn a_timeout_stops_the_process_and_says_so() {
    let p = start(sh("echo started; sleep 30"));
    assert_eq!(first_line(&p).await, "started");

    let ending = p.wait(Some(Duration::from_millis(50)), None).await;

    assert!(ending.timed_out() && !ending.cancelled(), "{ending:?}");
    assert_eq!(ending.exit().and_then(|e| e.signal()), Some(15));
    assert_eq!(p.exit(), ending.exit());
}

#[tokio::test]
async fn a_cancelled_token_stops_the_process_and_says_so() {
    let p = start(sh("sleep 30"));
    let cancel = CancellationToken::new();
    let canceller = {
        let cancel = cancel.clone();
        tokio::spawn(async move { cancel.cancel() })
    };

    let ending = p.wait(Some(Duration::from_secs(30)), Some(&cancel)).await;

    canceller.await.unwrap();
    assert!(ending.cancelled() && !ending.timed_out(), "{ending:?}");
    assert_eq!(ending.exit().and_then(|e| e.signal()), Some(15));
}

#[tokio::test]
async fn a_process_that_ignores_sigterm_is_killed_after_the_grace() {
    let grace = Duration::from_millis(200);
    let p = start(sh("trap '' TERM; echo ready; while :; do sleep 0.05; done").grace(grace));
    assert_eq!(first_line(&p).await, "ready");

    let started = std::time::Instant::now();
    let ending = p.wait(Some(Duration::from_millis(1)), None).await;

    assert!(started.elapsed() >= grace, "{:?}", started.elapsed());
    assert!(ending.timed_out());
    assert_eq!(ending.exit().and_then(|e| e.signal()), Some(9));
}

#[tokio::test]
async fn a_zero_grace_kills_at_once() {
    let p = start(sh("trap 'echo got TERM' TERM; echo ready; sleep 30").grace(Duration::ZERO));
    assert_eq!(first_line(&p).await, "ready");

    let ending = p.terminate().await;

    assert_eq!(ending.and_then(|e| e.signal()), Some(9));
}
