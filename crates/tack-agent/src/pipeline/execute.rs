//! The execute stage: the tool runs in its own task (a panic is contained),
//! stops at its timeout, and answers promptly on cancellation.

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt as _;
use serde_json::Value;
use tack_tool::{RegisteredTool, ToolContext, ToolError, ToolOutput};

/// How long a cancelled tool gets to wind down before its task is aborted.
const CANCEL_GRACE: Duration = Duration::from_millis(500);

/// The execute stage: runs the tool in its own task so a panic is contained,
/// stops it at the timeout, and answers promptly on cancellation.
///
/// On a current-thread runtime (`tack mcp serve`) the tool is first polled in
/// place, and only moved into a task when it is not done at once. A task buys
/// no isolation there (a tool that blocks the thread blocks every task), and
/// quick tools then cost no spawn and no timer: arming the first timer of an
/// idle runtime wakes its driver, a syscall on every request.
pub(super) async fn execute(
    tool: &RegisteredTool,
    input: Value,
    ctx: ToolContext,
    timeout: Duration,
) -> Result<ToolOutput, ToolError> {
    let cancel = ctx.cancel.clone();
    let runner = Arc::clone(&tool.tool);
    let mut run = Box::pin(async move {
        std::panic::AssertUnwindSafe(runner.call(input, ctx))
            .catch_unwind()
            .await
    });
    let one_thread = tokio::runtime::Handle::current().runtime_flavor()
        == tokio::runtime::RuntimeFlavor::CurrentThread;
    if one_thread && let Some(outcome) = (&mut run).now_or_never() {
        return tool_outcome(outcome);
    }
    let mut task = tokio::spawn(run);
    let joined = tokio::select! {
        joined = &mut task => joined,
        () = tokio::time::sleep(timeout) => {
            cancel.cancel();
            wind_down(task).await;
            return Err(ToolError::Timeout(timeout));
        }
        () = cancel.cancelled() => {
            wind_down(task).await;
            return Err(ToolError::Interrupted(
                "the user interrupted the session while this call was running".into(),
            ));
        }
    };
    match joined {
        Ok(outcome) => tool_outcome(outcome),
        Err(join) => Err(ToolError::Internal(format!("the tool task failed: {join}"))),
    }
}

/// A tool's answer, or its panic turned into an internal error.
fn tool_outcome(
    outcome: std::thread::Result<Result<ToolOutput, ToolError>>,
) -> Result<ToolOutput, ToolError> {
    match outcome {
        Ok(result) => result,
        Err(panic) => Err(ToolError::Internal(format!(
            "the tool panicked: {}",
            panic_message(panic.as_ref())
        ))),
    }
}

/// Gives a cancelled tool a moment to clean up (kill children, remove temp
/// files), then aborts it.
async fn wind_down(
    mut task: tokio::task::JoinHandle<std::thread::Result<Result<ToolOutput, ToolError>>>,
) {
    if tokio::time::timeout(CANCEL_GRACE, &mut task).await.is_err() {
        task.abort();
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    }
}
