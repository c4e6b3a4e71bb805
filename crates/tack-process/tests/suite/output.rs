//! What a process prints, reads and is given, and how much of it is kept.

use std::time::Duration;

use tack_process::{Cap, Ending, Hold, Spec, Stdin, Streams};

use super::support::{first_line, sh, start, within};

const LIMIT: Option<Duration> = Some(Duration::from_secs(10));

#[tokio::test]
async fn stdout_and_stderr_interleave_as_printed_with_the_exit_code() {
    let p = start(sh("echo one; echo two >&2; echo three; exit 3"));

    let ending = p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    assert_eq!(ending.exit().and_then(|e| e.code()), Some(3));
    assert!(matches!(ending, Ending::Exited(_)), "{ending:?}");
    assert_eq!(p.stdout().take(Hold::Nothing).head, "one\ntwo\nthree\n");
    assert!(p.stderr().is_none(), "merged into stdout");
}

#[tokio::test]
async fn separate_streams_are_kept_apart() {
    let p = start(sh("echo out; echo err >&2; echo out2").streams(Streams::Separate));

    p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    assert_eq!(p.stdout().take(Hold::Nothing).head, "out\nout2\n");
    let stderr = p.stderr().expect("captured apart");
    assert_eq!(stderr.take(Hold::Nothing).head, "err\n");
}

#[tokio::test]
async fn over_the_cap_the_head_and_tail_are_kept_and_everything_is_counted() {
    let script = "printf HEAD; head -c 1000 /dev/zero | tr '\\0' x; printf TAIL";
    let p = start(sh(script).cap(Cap::head_and_tail(10)));

    p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    assert_eq!(p.stdout().total(), 1008);
    let taken = p.stdout().take(Hold::Nothing);
    assert_eq!(
        (taken.head.as_str(), taken.omitted, taken.tail.as_str()),
        ("HEADx", 998, "xTAIL")
    );
    assert_eq!(taken.cap, 10);
}

#[tokio::test]
async fn a_head_cap_keeps_the_start_of_each_stream() {
    let script = "printf 'out-0123456789'; printf 'err-0123456789' >&2";
    let spec = sh(script).streams(Streams::Separate).cap(Cap::head(6));
    let p = start(spec);

    p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    let out = p.stdout().take(Hold::Nothing);
    assert_eq!((out.head.as_str(), out.omitted), ("out-01", 8));
    let err = p.stderr().expect("apart").take(Hold::Nothing);
    assert_eq!((err.head.as_str(), err.omitted), ("err-01", 8));
}

#[tokio::test]
async fn stdin_bytes_reach_the_process() {
    let p = start(Spec::new("cat").stdin(Stdin::Bytes(b"hello\nworld".to_vec())));

    let ending = p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    assert_eq!(ending.exit().and_then(|e| e.code()), Some(0));
    assert_eq!(p.stdout().take(Hold::Nothing).head, "hello\nworld");
}

#[tokio::test]
async fn a_process_that_prints_before_reading_a_large_input_does_not_deadlock() {
    // 1 MiB of input is far more than a pipe holds; the process first prints
    // more than a pipe holds too.
    let script = "head -c 200000 /dev/zero; wc -c | tr -d ' '";
    let input = vec![b'a'; 1024 * 1024];
    let p = start(
        sh(script)
            .stdin(Stdin::Bytes(input))
            .cap(Cap::head_and_tail(64)),
    );

    let ending = p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    assert!(matches!(ending, Ending::Exited(_)), "{ending:?}");
    assert!(p.stdout().take(Hold::Nothing).tail.ends_with("1048576\n"));
}

#[tokio::test]
async fn without_input_stdin_is_empty() {
    let p = start(sh("cat; echo end"));

    p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    assert_eq!(p.stdout().take(Hold::Nothing).head, "end\n");
}

#[tokio::test]
async fn the_directory_and_environment_are_as_asked() {
    let spec = sh("pwd; echo ${TACK_A-unset} ${HOME-unset}")
        .cwd("/")
        .env("TACK_A", "a b")
        .env_remove("HOME");
    let p = start(spec);

    p.wait(LIMIT, None).await;
    assert!(p.output_closed(Duration::from_secs(5)).await);

    assert_eq!(p.stdout().take(Hold::Nothing).head, "/\na b unset\n");
}

#[tokio::test]
async fn output_is_read_while_the_process_runs() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let script = "echo one; while [ ! -e \"$GO\" ]; do sleep 0.01; done; printf two";
    let p = start(sh(script).env("GO", &go));

    assert_eq!(first_line(&p).await, "one");
    assert_eq!(p.state(), tack_process::State::Running);
    std::fs::write(&go, "").unwrap();
    assert!(within(Duration::from_secs(10), || p.stdout().is_closed()).await);

    let ending = p.wait(LIMIT, None).await;
    assert_eq!(ending.exit().and_then(|e| e.code()), Some(0));
    assert_eq!(p.stdout().recent(100), b"two");
    assert_eq!(p.stdout().take(Hold::Nothing).head, "two");
    assert_eq!(p.stdout().total(), 7);
}

#[tokio::test]
async fn a_program_that_does_not_exist_is_a_spawn_error() {
    let err = tack_process::spawn(Spec::new("tack-no-such-program")).unwrap_err();
    assert_eq!(err.io_error().kind(), std::io::ErrorKind::NotFound);
    assert!(
        err.to_string()
            .starts_with("could not start `tack-no-such-program`: "),
        "{err}"
    );

    let err = tack_process::spawn(sh("true").cwd("/tack/no/such/dir")).unwrap_err();
    assert!(err.to_string().contains("in /tack/no/such/dir"), "{err}");
}
