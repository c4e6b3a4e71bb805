//! What `run` prints, as consumers of the session's events: tool calls on
//! stderr (text), or the result object of `tack run --output-format json`
//! (Claude Code's shape: `type`, `subtype`, `is_error`, `duration_ms`,
//! `duration_api_ms`, `num_turns`, `stop_reason`, `session_id`,
//! `total_cost_usd`, `usage`, `modelUsage`, `permission_denials`, `uuid`,
//! and `result` or `errors`, plus `cost_note` for a model without a price).
//!
//! tack's own printer of that object lives in the `tack` binary (tack-cli's
//! `claude.rs`), which a program cannot link; this is the same object,
//! built from the same `result` event.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use serde_json::{Map, Value, json};
use tack_agent::EventObserver;
use tack_protocol::{Role, RunStatus, SessionEvent, ToolOutcome, Usage};

/// Text output: each tool call and its outcome on stderr, as it happens.
pub struct Progress;

impl EventObserver for Progress {
    fn on_event(&self, event: &SessionEvent) {
        match event {
            SessionEvent::ToolCall { name, input, .. } => {
                eprintln!("  > {name} {input}");
            }
            SessionEvent::ToolResult { name, outcome, .. } if *outcome != ToolOutcome::Ok => {
                let outcome = serde_json::to_value(outcome).unwrap_or_default();
                eprintln!("  < {name}: {}", outcome.as_str().unwrap_or("failed"));
            }
            _ => {}
        }
    }
}

#[derive(Default)]
struct State {
    model: String,
    started: Option<Instant>,
    request_started: Option<Instant>,
    api_ms: u64,
    inputs: HashMap<String, Value>,
    denials: Vec<Value>,
}

/// `--output-format json`: the result object, printed when the run ends.
pub struct ResultObject {
    state: Mutex<State>,
}

impl ResultObject {
    pub fn new() -> Self {
        Self {
            state: Mutex::new(State {
                started: Some(Instant::now()),
                ..State::default()
            }),
        }
    }
}

impl EventObserver for ResultObject {
    fn on_event(&self, event: &SessionEvent) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            SessionEvent::SessionStart { model, .. } => state.model.clone_from(model),
            SessionEvent::Message { message } if message.role == Role::User => {
                state.request_started = Some(Instant::now());
            }
            SessionEvent::Message { message } if message.role == Role::Assistant => {
                if let Some(started) = state.request_started.take() {
                    state.api_ms += u64::try_from(started.elapsed().as_millis()).unwrap_or(0);
                }
            }
            SessionEvent::ToolCall { id, input, .. } => {
                state.inputs.insert(id.clone(), input.clone());
            }
            SessionEvent::ToolResult {
                tool_use_id,
                name,
                outcome: ToolOutcome::Denied,
                audit,
                ..
            } if audit.as_ref().is_none_or(|a| a.caller.is_none()) => {
                let input = state
                    .inputs
                    .get(tool_use_id)
                    .cloned()
                    .unwrap_or(Value::Null);
                state.denials.push(json!({
                    "tool_name": name,
                    "tool_use_id": tool_use_id,
                    "tool_input": input,
                }));
            }
            SessionEvent::Result { .. } => {
                let object = result_object(&state, event);
                println!("{object}");
            }
            _ => {}
        }
    }
}

/// Claude Code's `subtype` for tack's status.
fn subtype(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Completed
        | RunStatus::ModelError
        | RunStatus::MaxTokens
        | RunStatus::Refusal => "success",
        RunStatus::MaxTurns => "error_max_turns",
        RunStatus::Interrupted | RunStatus::HookStopped => "error_during_execution",
    }
}

fn usage_json(usage: &Usage) -> Value {
    json!({
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
    })
}

fn result_object(state: &State, event: &SessionEvent) -> Value {
    let SessionEvent::Result {
        session_id,
        turns,
        usage,
        stop_reason,
        status,
        text,
        is_error,
        error,
        ..
    } = event
    else {
        return Value::Null;
    };
    let price = tack_model::pricing::price(&state.model);
    let cost = price.map_or(0.0, |p| p.cost_usd(usage));
    let mut model_usage = Map::new();
    model_usage.insert(
        state.model.clone(),
        json!({
            "inputTokens": usage.input_tokens,
            "outputTokens": usage.output_tokens,
            "cacheReadInputTokens": usage.cache_read_input_tokens,
            "cacheCreationInputTokens": usage.cache_creation_input_tokens,
            "webSearchRequests": 0,
            "costUSD": cost,
            "contextWindow": price.map_or(0, |p| p.context_window),
            "maxOutputTokens": price.map_or(0, |p| p.max_output_tokens),
        }),
    );
    let subtype = subtype(*status);
    let elapsed = state.started.map_or(0, |s| s.elapsed().as_millis());
    let mut result = json!({
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": u64::try_from(elapsed).unwrap_or(u64::MAX),
        "duration_api_ms": state.api_ms,
        "num_turns": turns,
        "stop_reason": stop_reason,
        "session_id": session_id,
        "total_cost_usd": cost,
        "usage": usage_json(usage),
        "modelUsage": model_usage,
        "permission_denials": state.denials,
        "uuid": uuid::Uuid::now_v7().to_string(),
    });
    let Some(obj) = result.as_object_mut() else {
        return result;
    };
    if subtype == "success" {
        let answer = match (status, error) {
            (RunStatus::ModelError, Some(error)) => error.clone(),
            _ => text.clone(),
        };
        obj.insert("result".into(), Value::String(answer));
    } else {
        let why = error.clone().unwrap_or_else(|| match status {
            RunStatus::MaxTurns => {
                "the turn limit (--max-turns) was reached while the model still wanted tools"
                    .to_owned()
            }
            other => format!("the run ended: {other}"),
        });
        obj.insert("errors".into(), json!([why]));
    }
    if price.is_none() {
        obj.insert(
            "cost_note".into(),
            Value::String(format!(
                "no price is known for the model {:?}, so total_cost_usd is 0, not a real cost",
                state.model
            )),
        );
    }
    result
}
