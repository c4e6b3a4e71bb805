//! Orphans re-parented to tack, the child subreaper: killed by
//! `kill_adopted` however they left their group and whatever they did to
//! their tag, and reaped when they end, without taking a status tokio waits
//! for.
//!
//! Each case runs in a probe: this test binary run again as a child, with
//! one ignored test, so that the subreaper and `kill_adopted` (which kills
//! every child of its process) touch nothing of the other tests running
//! beside it.

use std::time::{Duration, Instant};

use tack_process::{Hold, Process, Spec};

use super::support::{ProcId, first_line, sh, start, within};

/// Runs the ignored test `name` of this binary in a child process to its
/// end; its output. Panics unless it passed.
async fn probe(name: &str) -> String {
    let p = start(Spec::new(std::env::current_exe().unwrap()).args([
        "--ignored",
        "--exact",
        &format!("suite::adopted::{name}"),
        "--nocapture",
        "--test-threads=1",
    ]));
    let ending = p.wait(Some(Duration::from_secs(60)), None).await;
    p.output_closed(Duration::from_secs(5)).await;
    let out = p.stdout().take(Hold::Nothing).head;
    assert_eq!(
        ending.exit().and_then(|e| e.code()),
        Some(0),
        "probe {name} failed:\n{out}"
    );
    assert!(out.contains("1 passed"), "probe {name} did not run:\n{out}");
    out
}

/// The pids a probe printed as `label=<pid> <pid> …`.
fn printed(out: &str, label: &str) -> Vec<i32> {
    let prefix = format!("{label}=");
    out.lines()
        .find_map(|l| Some(&l[l.find(&prefix)? + prefix.len()..]))
        .unwrap_or_else(|| panic!("no {label}= in:\n{out}"))
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

/// The parent of `pid`, from `/proc/<pid>/stat`.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    fields.nth(1)?.parse().ok()
}

/// Whether `pid` is this process's zombie (ended, not yet reaped).
fn our_zombie(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    after.trim_start().starts_with('Z') && parent_of(pid) == Some(std::process::id() as i32)
}

/// Starts `script`, waits for its leader to exit and reads the pids it
/// printed on its first line.
async fn leftovers_of(script: &str) -> (Process, Vec<ProcId>) {
    let p = start(sh(script));
    let line = first_line(&p).await;
    let ending = p.wait(Some(Duration::from_secs(10)), None).await;
    assert_eq!(ending.exit().and_then(|e| e.code()), Some(0), "{script}");
    let ids = line
        .split_whitespace()
        .map(|pid| ProcId::of(pid.parse().unwrap()))
        .collect();
    (p, ids)
}

/// Each escape prints its own pid and sleeps: with its tag dropped and in a
/// session of its own (`env -i setsid`); with its tag dropped in a double
/// fork that leaves an orphan in a dead shell's group; and both again one
/// level deeper, under a process that is itself adopted and killed.
const ESCAPES: &str = r#"
env -i setsid sh -c 'echo $$; exec sleep 30' > esc1 2>/dev/null &
env -u TACK_PROCESS_TAG sh -c '(sh -c "echo \$\$; exec sleep 30" > esc2 2>/dev/null &)'
env -i setsid sh -c 'sh -c "echo \$\$; exec sleep 30" > esc3 2>/dev/null & echo $$ > esc4; exec sleep 30' >/dev/null 2>&1 &
while [ ! -s esc1 ] || [ ! -s esc2 ] || [ ! -s esc3 ] || [ ! -s esc4 ]; do sleep 0.01; done
echo $(cat esc1 esc2 esc3 esc4)
"#;

#[tokio::test]
#[ignore = "a probe run by escapes_that_drop_their_tag_are_killed_as_adopted"]
async fn probe_kill_adopted() {
    assert!(tack_process::adopt_orphans(), "not a subreaper");
    let dir = tempfile::tempdir().unwrap();
    let (_p, escaped) = leftovers_of(&format!("cd '{}'; {ESCAPES}", dir.path().display())).await;
    assert_eq!(escaped.len(), 4);
    let me = std::process::id() as i32;
    for id in &escaped {
        assert!(id.is_running(), "{} did not start", id.pid);
    }
    // The ones whose parent is gone are this process's children now; the
    // third is the child of the fourth.
    for id in [escaped[0], escaped[1], escaped[3]] {
        assert!(
            within(Duration::from_secs(5), || parent_of(id.pid) == Some(me)).await,
            "{} was not adopted (parent {:?})",
            id.pid,
            parent_of(id.pid)
        );
    }
    let pids: Vec<String> = escaped.iter().map(|id| id.pid.to_string()).collect();
    println!("escaped={}", pids.join(" "));
    // A child in this process's own group, not started through
    // tack-process (as a library's browser would be).
    #[allow(
        clippy::disallowed_types,
        clippy::disallowed_methods,
        reason = "a child that tack-process did not start"
    )]
    let mut own = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let own_id = ProcId::of(own.id() as i32);

    let killed = tack_process::kill_adopted();

    for id in &escaped {
        assert!(!id.is_running(), "{} survived kill_adopted", id.pid);
    }
    assert!(killed >= escaped.len(), "killed {killed}");
    assert!(
        own_id.is_running(),
        "a child in tack's own group was killed"
    );
    own.kill().unwrap();
    own.wait().unwrap();
    // Nothing left: the cost of a call at the end of a session.
    let rounds: u32 = 100;
    let start = Instant::now();
    for _ in 0..rounds {
        assert_eq!(tack_process::kill_adopted(), 0);
    }
    let each = start.elapsed() / rounds;
    println!("kill_adopted with nothing left: {each:?} per call");
    assert!(each < Duration::from_millis(20), "{each:?}");
    let start = Instant::now();
    for _ in 0..rounds {
        tack_process::reap_adopted();
    }
    println!(
        "reap_adopted with nothing to reap: {:?} per call",
        start.elapsed() / rounds
    );
}

#[tokio::test]
async fn escapes_that_drop_their_tag_are_killed_as_adopted() {
    let out = probe("probe_kill_adopted").await;
    // The probe checked each escape by its pid and start time.
    assert_eq!(printed(&out, "escaped").len(), 4);
    let timing = out.lines().filter_map(|l| {
        Some(
            &l[l.find("kill_adopted with")
                .or(l.find("reap_adopted with"))?..],
        )
    });
    for line in timing {
        println!("{line}");
    }
}

#[tokio::test]
#[ignore = "a probe run by adopted_orphans_that_end_are_reaped"]
async fn probe_reap_adopted() {
    assert!(tack_process::adopt_orphans());
    let me = std::process::id() as i32;
    // Left in the shell's group: adopted once the shell exits, then ends.
    let (_p, ids) = leftovers_of("sleep 0.3 & echo $!").await;
    let in_group = ids[0].pid;
    assert!(
        within(Duration::from_secs(5), || our_zombie(in_group)).await,
        "{in_group} did not end as this process's zombie"
    );
    assert_eq!(tack_process::reap_adopted(), 1);
    assert!(std::fs::metadata(format!("/proc/{in_group}")).is_err());

    // Out of the group with its tag: killed as a stray of its group, then
    // reaped.
    let (p, ids) = leftovers_of("setsid sleep 30 & echo $!").await;
    let stray = ids[0];
    assert!(within(Duration::from_secs(5), || parent_of(stray.pid) == Some(me)).await);
    assert_eq!(p.group().kill_strays(), 1);
    assert!(within(Duration::from_secs(5), || our_zombie(stray.pid)).await);
    assert_eq!(tack_process::reap_adopted(), 1);
    assert!(std::fs::metadata(format!("/proc/{}", stray.pid)).is_err());

    // Starting a process reaps what ended meanwhile (at most once a second).
    let (_p, ids) = leftovers_of("sleep 0.1 & echo $!").await;
    let later = ids[0].pid;
    assert!(within(Duration::from_secs(5), || our_zombie(later)).await);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let p = start(sh("true"));
    p.wait(Some(Duration::from_secs(10)), None).await;
    assert!(
        std::fs::metadata(format!("/proc/{later}")).is_err(),
        "{later} was not reaped when a process started"
    );
}

#[tokio::test]
async fn adopted_orphans_that_end_are_reaped() {
    probe("probe_reap_adopted").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a probe run by reaping_adopted_orphans_takes_no_status_tokio_waits_for"]
async fn probe_reap_beside_tokio() {
    assert!(tack_process::adopt_orphans());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reaping = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut reaped = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                reaped += tack_process::reap_adopted();
            }
            reaped
        })
    };
    // Each leaves an orphan that ends at about the time its shell does, and
    // ends with a status of its own, which tokio must get.
    let mut running = Vec::new();
    for i in 0..40 {
        let script = format!("sleep 0.0{} & exit {}", i % 5, 10 + i % 7);
        running.push((10 + i % 7, start(sh(&script))));
    }
    for (code, p) in &running {
        let ending = p.wait(Some(Duration::from_secs(20)), None).await;
        assert_eq!(
            ending.exit().and_then(|e| e.code()),
            Some(*code),
            "{ending:?}"
        );
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reaped = reaping.join().unwrap();
    println!("reaped={reaped}");
    assert!(reaped > 0, "no orphan was reaped");
}

#[tokio::test]
async fn reaping_adopted_orphans_takes_no_status_tokio_waits_for() {
    probe("probe_reap_beside_tokio").await;
}
