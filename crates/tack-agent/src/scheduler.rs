//! The scheduler: consecutive concurrency-safe calls of one response run
//! together, every other call alone, in order. Results come back in tool_use
//! order, one for each call.

use futures::future::join_all;
use tack_model::MalformedToolInput;
use tack_protocol::{ContentBlock, ToolUseBlock};
use tack_tool::{CallOptions, ToolCall};
use tokio_util::sync::CancellationToken;

use crate::pipeline::{Dispatch, Pipeline};

/// Runs the calls of one response through `pipeline`.
pub(crate) async fn run_tools(
    pipeline: &Pipeline,
    tool_uses: Vec<ToolUseBlock>,
    malformed: Vec<MalformedToolInput>,
    cancel: &CancellationToken,
) -> Vec<ContentBlock> {
    let dispatches: Vec<Dispatch> = tool_uses
        .into_iter()
        .map(|t| Dispatch {
            input_error: malformed
                .iter()
                .find(|m| m.tool_use_id == t.id)
                .map(|m| format!("{}; the input received was: {}", m.error, m.raw)),
            call: ToolCall {
                id: t.id,
                name: t.name,
                input: t.input,
            },
        })
        .collect();
    let mut results = Vec::with_capacity(dispatches.len());
    let mut batch: Vec<Dispatch> = Vec::new();
    for dispatch in dispatches {
        if pipeline.is_concurrency_safe(&dispatch) {
            batch.push(dispatch);
            continue;
        }
        results.extend(run_batch(pipeline, std::mem::take(&mut batch), cancel).await);
        let result = pipeline
            .dispatch(dispatch, CallOptions::new(cancel.clone()))
            .await;
        results.push(ContentBlock::ToolResult(result.block));
    }
    results.extend(run_batch(pipeline, batch, cancel).await);
    results
}

/// Safe calls, together.
async fn run_batch(
    pipeline: &Pipeline,
    batch: Vec<Dispatch>,
    cancel: &CancellationToken,
) -> Vec<ContentBlock> {
    join_all(
        batch
            .into_iter()
            .map(|d| pipeline.dispatch(d, CallOptions::new(cancel.clone()))),
    )
    .await
    .into_iter()
    .map(|r| ContentBlock::ToolResult(r.block))
    .collect()
}
