//! Every limit stops the program, is named with its value, and leaves the
//! process (and the next run) unharmed.

use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::*;

fn short_wall_time() -> Limits {
    Limits {
        wall_time: Duration::from_millis(200),
        ..Limits::default()
    }
}

#[tokio::test]
async fn an_infinite_loop_stops_at_the_wall_time() {
    let started = Instant::now();
    let e = fails_with("while (true) {}", &short_wall_time()).await;
    let took = started.elapsed();
    assert_eq!(
        e.error,
        CodeError::WallTime {
            limit: Duration::from_millis(200)
        }
    );
    assert!(e.to_string().contains("wall time limit of 200 ms"), "{e}");
    assert!(took >= Duration::from_millis(200), "{took:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[tokio::test]
async fn catching_does_not_outlast_the_wall_time() {
    let e = fails_with(
        "for (;;) { try { while (true) {} } catch (e) { console.log('caught', e) } }",
        &short_wall_time(),
    )
    .await;
    assert!(matches!(e.error, CodeError::WallTime { .. }), "{e:?}");
    assert!(e.console.is_empty(), "{}", e.console.render());
}

#[tokio::test]
async fn waiting_on_a_call_that_never_answers_stops_at_the_wall_time() {
    let started = Instant::now();
    let e = fails_with(
        "console.log('before'); await tools.Hang({}); console.log('after')",
        &short_wall_time(),
    )
    .await;
    let took = started.elapsed();
    assert!(matches!(e.error, CodeError::WallTime { .. }), "{e:?}");
    assert_eq!(e.console.render(), "before");
    assert_eq!(e.calls, 1);
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[tokio::test]
async fn a_memory_bomb_stops_at_the_memory_limit_and_the_next_run_works() {
    let e = fails("console.log('start'); let a = []; while (true) a.push(new Array(1e6).fill(1));")
        .await;
    assert_eq!(
        e.error,
        CodeError::Memory {
            limit_bytes: 64 * 1024 * 1024
        }
    );
    assert!(e.to_string().contains("memory limit of 64 MiB"), "{e}");
    assert_eq!(e.console.render(), "start");

    assert_eq!(value("return 1 + 1").await, json!(2));
}

#[tokio::test]
async fn a_string_bomb_stops_at_a_small_memory_limit() {
    let limits = Limits {
        memory_bytes: 4 * 1024 * 1024,
        ..limits()
    };
    let e = fails_with("let s = 'x'; while (true) s = s.repeat(2);", &limits).await;
    assert_eq!(
        e.error,
        CodeError::Memory {
            limit_bytes: 4 * 1024 * 1024
        }
    );
}

#[tokio::test]
async fn deep_recursion_stops_at_the_stack_limit() {
    let e = fails("function down(n) { return down(n + 1) + 1 }\nreturn down(0)").await;
    let CodeError::Stack {
        limit_bytes, line, ..
    } = e.error
    else {
        panic!("not the stack limit: {e:?}");
    };
    assert_eq!(limit_bytes, 1024 * 1024);
    assert_eq!(line, Some(1));
    assert!(e.to_string().contains("stack limit of 1 MiB"), "{e}");

    // The program may catch it and go on.
    let got = value(
        "function down(n) { return down(n + 1) + 1 }\n\
         try { down(0) } catch (e) { return e instanceof RangeError }",
    )
    .await;
    assert_eq!(got, json!(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_recursion_on_a_worker_thread_stops_cleanly_too() {
    // A tokio worker has a 2 MiB stack: the 1 MiB limit must trip first.
    let e = fails("const f = (n) => [f(n + 1)]; f(0)").await;
    assert!(matches!(e.error, CodeError::Stack { .. }), "{e:?}");
}

#[tokio::test]
async fn the_call_past_the_limit_rejects_with_kind_limit() {
    let limits = Limits {
        max_calls: 3,
        ..limits()
    };
    let out = tack_codemode::run(
        "const got = []; \
         for (let i = 0; i < 5; i++) { \
           try { await tools.Echo({ i }); got.push('ok') } catch (e) { got.push(e.kind + ': ' + e.message) } \
         } \
         return got",
        &limits,
        Fixture::new(),
    )
    .await
    .unwrap();
    let got = out.value.unwrap();
    assert_eq!(got[0], json!("ok"));
    assert_eq!(got[2], json!("ok"));
    let rejection = got[3].as_str().unwrap();
    assert!(
        rejection
            .starts_with("limit: tool call limit reached: a run may make at most 3 tool calls"),
        "{rejection}"
    );
    assert_eq!(out.calls, 3);
}

#[tokio::test]
async fn an_uncaught_call_past_the_limit_ends_the_run_naming_the_limit() {
    let limits = Limits {
        max_calls: 2,
        ..limits()
    };
    let bridge = Fixture::new();
    let e = tack_codemode::run(
        "for (let i = 0; i < 5; i++) await tools.Echo({ i })",
        &limits,
        bridge.clone(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.error, CodeError::Calls { limit: 2 });
    assert_eq!(e.to_string(), "tool call limit of 2 calls per run reached");
    assert_eq!(bridge.calls().len(), 2);
}

// Multi-threaded: a busy program holds its thread until stopped, and the
// task that cancels needs another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_stops_a_busy_program_and_a_waiting_one() {
    for code in ["while (true) {}", "await tools.Hang({})"] {
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trigger.cancel();
        });
        let started = Instant::now();
        let e = tack_codemode::run_cancellable(code, &limits(), Fixture::new(), &cancel)
            .await
            .unwrap_err();
        assert_eq!(e.error, CodeError::Cancelled, "{code}");
        assert!(started.elapsed() < Duration::from_secs(2), "{code}");
    }
}

#[tokio::test]
async fn dropping_a_run_while_it_waits_leaves_the_next_run_unharmed() {
    let bridge = Fixture::new();
    let dropped = tokio::time::timeout(
        Duration::from_millis(100),
        tack_codemode::run("await tools.Hang({})", &limits(), bridge.clone()),
    )
    .await;
    assert!(dropped.is_err(), "the run should still have been waiting");
    assert_eq!(bridge.calls().len(), 1);
    assert_eq!(value("return 'next'").await, json!("next"));
}

#[tokio::test]
async fn a_catastrophic_regex_stops_at_the_wall_time() {
    let started = Instant::now();
    let e = fails_with(
        "return /^(a+)+$/.test('a'.repeat(40) + 'b')",
        &short_wall_time(),
    )
    .await;
    assert!(matches!(e.error, CodeError::WallTime { .. }), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}
