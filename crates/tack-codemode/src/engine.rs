//! One run, in stages:
//!
//! 1. **start**: a new runtime with the memory and stack limits and an
//!    interrupt handler that stops the program at the deadline or on cancel;
//! 2. **context**: the standard built-ins only ([`Standard`]);
//! 3. **globals**: `console` and `tools` ([`globals::install`]);
//! 4. **compile** the code as the body of an async function;
//! 5. **run**: call it and await its promise, the runtime polling every tool
//!    call's future meanwhile; the whole run under a timeout at the deadline
//!    (the interrupt handler stops JavaScript that runs, the timeout a
//!    program that waits);
//! 6. **settle**: wait for tool calls the program started but did not await;
//! 7. **classify** how it ended ([`classify`]): a value, or the limit hit, or
//!    the error thrown, placed in the code.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rquickjs::context::{EvalOptions, intrinsic};
use rquickjs::{AsyncContext, AsyncRuntime, Ctx, Promise, Value};
use serde_json::Value as Json;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::bridge::ToolBridge;
use crate::console::{Console, Level};
use crate::error::{CodeError, RunError, ScriptError};
use crate::limits::Limits;
use crate::{RunOutput, globals, thrown};

/// The built-ins a program gets: ECMAScript's own (base objects, `Date`,
/// `eval` and `Function`, `RegExp`, `JSON`, `Proxy`, `Map`/`Set`, typed
/// arrays, `Promise`, `WeakRef`). Left out of QuickJS's full set: `performance`
/// (a clock), `atob`/`btoa` and `DOMException` (web APIs). QuickJS's `std`
/// and `os` modules (files, processes, timers) belong to its command-line
/// tool, not to the library, and no module loader is set.
type Standard = (
    intrinsic::Date,
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::Proxy,
    intrinsic::MapSet,
    intrinsic::TypedArrays,
    intrinsic::Promise,
    intrinsic::WeakRef,
);

/// Runs `code` with `limits`, its tool calls going to `bridge`.
///
/// See the [crate docs](crate) for how the code is written and what it can
/// reach.
pub async fn run(
    code: &str,
    limits: &Limits,
    bridge: Arc<dyn ToolBridge>,
) -> Result<RunOutput, RunError> {
    run_cancellable(code, limits, bridge, &CancellationToken::new()).await
}

/// [`run`], stopped with [`CodeError::Cancelled`] when `cancel` is
/// cancelled, whether the program is computing or waiting for a tool.
pub async fn run_cancellable(
    code: &str,
    limits: &Limits,
    bridge: Arc<dyn ToolBridge>,
    cancel: &CancellationToken,
) -> Result<RunOutput, RunError> {
    let shared = Arc::new(Shared::new(limits));
    let ended = execute(code, limits, bridge, cancel, &shared).await;
    let console = shared.take_console();
    let calls = shared.calls();
    match ended {
        Ok(value) => Ok(RunOutput {
            value,
            console,
            calls,
        }),
        Err(error) => Err(RunError {
            error,
            console,
            calls,
        }),
    }
}

async fn execute(
    code: &str,
    limits: &Limits,
    bridge: Arc<dyn ToolBridge>,
    cancel: &CancellationToken,
    shared: &Arc<Shared>,
) -> Result<Option<Json>, CodeError> {
    let deadline = tokio::time::Instant::now() + limits.wall_time;
    let runtime = start(limits, deadline.into_std(), cancel, shared).await?;
    let context = AsyncContext::custom::<Standard>(&runtime)
        .await
        .map_err(|e| CodeError::Engine(format!("could not create a context: {e}")))?;

    let program =
        context.async_with(async |ctx| run_program(ctx, code, bridge, shared, limits).await);
    let ended = tokio::select! {
        biased;
        () = cancel.cancelled() => Err(CodeError::Cancelled),
        ended = tokio::time::timeout_at(deadline, program) => ended.unwrap_or(Err(
            CodeError::WallTime { limit: limits.wall_time },
        )),
    };
    // When the interrupt handler stopped the program, that is why it ended,
    // whatever the program's promise did after.
    match shared.stop() {
        Some(Stop::WallTime) => Err(CodeError::WallTime {
            limit: limits.wall_time,
        }),
        Some(Stop::Cancelled) => Err(CodeError::Cancelled),
        None => ended,
    }
}

/// Stage 1: a runtime that stops at `deadline` or on `cancel`.
async fn start(
    limits: &Limits,
    deadline: Instant,
    cancel: &CancellationToken,
    shared: &Arc<Shared>,
) -> Result<AsyncRuntime, CodeError> {
    let runtime = AsyncRuntime::new()
        .map_err(|e| CodeError::Engine(format!("could not start a runtime: {e}")))?;
    runtime.set_memory_limit(limits.memory_bytes).await;
    runtime.set_max_stack_size(limits.stack_bytes).await;
    let shared = shared.clone();
    let cancel = cancel.clone();
    runtime
        .set_interrupt_handler(Some(Box::new(move || {
            if shared.stop().is_some() {
                true
            } else if cancel.is_cancelled() {
                shared.set_stop(Stop::Cancelled);
                true
            } else if Instant::now() >= deadline {
                shared.set_stop(Stop::WallTime);
                true
            } else {
                false
            }
        })))
        .await;
    Ok(runtime)
}

/// Stages 3 to 7, inside the context.
async fn run_program<'js>(
    ctx: Ctx<'js>,
    code: &str,
    bridge: Arc<dyn ToolBridge>,
    shared: &Arc<Shared>,
    limits: &Limits,
) -> Result<Option<Json>, CodeError> {
    let classify =
        |error: rquickjs::Error, phase: Phase| classify(&ctx, error, phase, code, shared, limits);
    globals::install(&ctx, bridge, shared.clone()).map_err(|e| {
        let error = classify(e, Phase::Start);
        match error {
            CodeError::Memory { .. } => error,
            other => CodeError::Engine(format!("could not set up the globals: {other}")),
        }
    })?;

    let mut options = EvalOptions::default();
    options.strict = false;
    options.filename = Some(thrown::FILE.to_owned());
    let compiled: Value = ctx
        .eval_with_options(thrown::wrap(code), options)
        .map_err(|e| classify(e, Phase::Compile))?;
    let Some(program) = compiled.into_function() else {
        return Err(CodeError::Syntax(unbalanced()));
    };

    let ended = match program.call::<_, Promise>(()) {
        Ok(promise) => promise.into_future::<Value>().await,
        Err(e) => Err(e),
    };
    let ended = ended
        .map_err(|e| classify(e, Phase::Run))
        .and_then(|value| globals::to_output(&ctx, value).map_err(|e| classify(e, Phase::Run)));
    if shared.stop().is_none() {
        shared.settled().await;
    }
    ended
}

/// The code closed the function it is the body of (`}); …`).
fn unbalanced() -> ScriptError {
    ScriptError {
        name: "SyntaxError".to_owned(),
        message: "the code closes the async function it is the body of: look for an extra `}`"
            .to_owned(),
        line: None,
        column: None,
        stack: Vec::new(),
        kind: None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    Compile,
    Run,
}

/// Stage 7: what an exception (or an engine error) means. A limit is named
/// when the error is the one QuickJS raises for it; a `SyntaxError` is the
/// code's only while it compiles (at run time it is `JSON.parse`'s or
/// `eval`'s, thrown like any other).
fn classify<'js>(
    ctx: &Ctx<'js>,
    error: rquickjs::Error,
    phase: Phase,
    code: &str,
    shared: &Shared,
    limits: &Limits,
) -> CodeError {
    match shared.stop() {
        Some(Stop::WallTime) => {
            return CodeError::WallTime {
                limit: limits.wall_time,
            };
        }
        Some(Stop::Cancelled) => return CodeError::Cancelled,
        None => {}
    }
    let memory = CodeError::Memory {
        limit_bytes: limits.memory_bytes,
    };
    match error {
        rquickjs::Error::Exception => {}
        rquickjs::Error::Allocation => return memory,
        other => return CodeError::Engine(other.to_string()),
    }
    let thrown = ctx.catch();
    // Out of memory, QuickJS may fail to allocate even the error object;
    // then what is thrown is not an object at all.
    if globals::is_out_of_memory(&thrown)
        || thrown.is_null()
        || thrown.type_of() == rquickjs::Type::Uninitialized
    {
        return memory;
    }
    let error = thrown::describe(ctx, &thrown, code);
    if error.name == "RangeError" && error.message == "Maximum call stack size exceeded" {
        return CodeError::Stack {
            limit_bytes: limits.stack_bytes,
            line: error.line,
            column: error.column,
        };
    }
    if error.kind.as_deref() == Some(crate::BridgeError::LIMIT)
        && shared.call_limit_hit.load(Ordering::Relaxed)
    {
        return CodeError::Calls {
            limit: limits.max_calls,
        };
    }
    if phase == Phase::Compile && error.name == "SyntaxError" {
        return CodeError::Syntax(error);
    }
    CodeError::Uncaught(error)
}

/// Why the interrupt handler stopped the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    WallTime = 1,
    Cancelled = 2,
}

/// What the run's JavaScript functions, the interrupt handler and the run
/// itself share.
pub(crate) struct Shared {
    console: Mutex<Console>,
    calls: AtomicU32,
    max_calls: u32,
    call_limit_hit: AtomicBool,
    in_flight: AtomicU32,
    settled: Notify,
    stop: AtomicU8,
}

impl Shared {
    fn new(limits: &Limits) -> Self {
        Self {
            console: Mutex::new(Console::new(limits.max_output_bytes)),
            calls: AtomicU32::new(0),
            max_calls: limits.max_calls,
            call_limit_hit: AtomicBool::new(false),
            in_flight: AtomicU32::new(0),
            settled: Notify::new(),
            stop: AtomicU8::new(0),
        }
    }

    pub(crate) fn print(&self, level: Level, text: String) {
        self.console
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(level, text);
    }

    fn take_console(&self) -> Console {
        std::mem::take(&mut *self.console.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Counts one call; `Err` with the message of the rejection when it is
    /// past the limit.
    pub(crate) fn take_call(&self) -> Result<(), String> {
        let max = self.max_calls;
        let counted = self
            .calls
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |made| {
                (made < max).then_some(made + 1)
            });
        if counted.is_ok() {
            return Ok(());
        }
        self.call_limit_hit.store(true, Ordering::Relaxed);
        Err(format!(
            "tool call limit reached: a run may make at most {max} tool calls (tools.search included); \
             do more in each call or finish this run and start another"
        ))
    }

    fn calls(&self) -> u32 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Marks a call in flight until the guard is dropped.
    pub(crate) fn start_call(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(self.clone())
    }

    /// Waits until no call is in flight.
    async fn settled(&self) {
        loop {
            let notified = self.settled.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.in_flight.load(Ordering::Acquire) == 0 {
                return;
            }
            notified.await;
        }
    }

    fn stop(&self) -> Option<Stop> {
        match self.stop.load(Ordering::Acquire) {
            1 => Some(Stop::WallTime),
            2 => Some(Stop::Cancelled),
            _ => None,
        }
    }

    fn set_stop(&self, stop: Stop) {
        let _ = self
            .stop
            .compare_exchange(0, stop as u8, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// A call in flight; dropping it (the call settled, or was dropped with the
/// run) counts it out.
pub(crate) struct InFlight(Arc<Shared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.settled.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    struct NoTools;

    #[async_trait::async_trait]
    impl ToolBridge for NoTools {
        fn names(&self) -> Vec<String> {
            Vec::new()
        }
        async fn call(&self, _: &str, _: Json) -> Result<Json, crate::BridgeError> {
            Ok(Json::Null)
        }
    }

    /// A `Tool`'s `call` is an `async_trait` future and must be `Send`.
    #[test]
    fn a_run_is_send() {
        let limits = Limits::default();
        let run = run("return 1", &limits, Arc::new(NoTools));
        assert_send(&run);
    }
}
