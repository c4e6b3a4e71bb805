//! Claude Code's headless output (`--output-format json|stream-json`), as a
//! consumer of the session event stream: scripts written for `claude -p`
//! read tack's output unchanged (protocols-2.md §4).
//!
//! - `json`: one result object when a turn ends (`jq -r .result`); with
//!   `--verbose` an array of every message, the result last.
//! - `stream-json`: `system`/`init`, then one `assistant` frame per model
//!   response, one `user` frame per tool result, and one `result` per turn.
//!
//! tack's own events stay available as `tack-json` / `tack-stream-json`
//! ([`crate::print::Printer`]). What tack does not know is not invented:
//! the cost of a model that is not in [`tack_model::pricing`] is 0 with a
//! `cost_note` saying so; message ids are tack's own (`msg_tack_…`).

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Map, Value, json};
use tack_agent::EventObserver;
use tack_protocol::{ContentBlock, Message, Role, RunStatus, SessionEvent, ToolOutcome, Usage};

/// What the `system`/`init` frame says that the events do not.
#[derive(Debug, Clone, Default)]
pub struct InitInfo {
    /// `(name, status)` of each MCP server (`connected`, `failed`, …).
    pub mcp_servers: Vec<(String, String)>,
    /// The permission mode in force (`default`, `acceptEdits`, …).
    pub permission_mode: String,
    /// Where the API key came from (`ANTHROPIC_API_KEY`, `none`, …).
    pub api_key_source: String,
    /// The skills the model may load (the Skill tool's catalog).
    pub skills: Vec<String>,
    /// Skills a person may invoke as `/name`.
    pub slash_commands: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One result object per turn (`verbose`: an array of every message).
    Json { verbose: bool },
    /// One message per line.
    StreamJson,
}

struct State {
    init: InitInfo,
    session_id: String,
    model: String,
    turn_started: Instant,
    request_started: Option<Instant>,
    api_ms: u64,
    /// The assistant message waiting for its turn_end (usage, stop reason).
    assistant: Option<Message>,
    /// Tool inputs by tool_use id, for permission_denials.
    inputs: HashMap<String, Value>,
    denials: Vec<Value>,
    /// `--verbose` json: the messages of the turn so far.
    frames: Vec<Value>,
}

/// Prints Claude Code's shapes from the session events.
pub struct ClaudeOutput {
    shape: Shape,
    state: Mutex<State>,
}

fn uuid() -> String {
    uuid::Uuid::now_v7().to_string()
}

impl ClaudeOutput {
    pub fn new(shape: Shape) -> Self {
        Self {
            shape,
            state: Mutex::new(State {
                init: InitInfo::default(),
                session_id: String::new(),
                model: String::new(),
                turn_started: Instant::now(),
                request_started: None,
                api_ms: 0,
                assistant: None,
                inputs: HashMap::new(),
                denials: Vec::new(),
                frames: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the init frame needs besides the `session_start` event (set
    /// before the session begins).
    pub fn set_init(&self, init: InitInfo) {
        self.lock().init = init;
    }

    /// A new turn starts now (its `duration_ms` counts from here).
    pub fn start_turn(&self) {
        let mut state = self.lock();
        state.turn_started = Instant::now();
        state.request_started = Some(Instant::now());
        state.api_ms = 0;
        state.denials.clear();
    }

    /// A frame: printed as a line (stream-json) or kept (verbose json).
    fn frame(&self, state: &mut State, value: Value) {
        match self.shape {
            Shape::StreamJson => print_line(&value),
            Shape::Json { verbose: true } => state.frames.push(value),
            Shape::Json { verbose: false } => {}
        }
    }

    fn on(&self, state: &mut State, event: &SessionEvent) {
        match event {
            SessionEvent::SessionStart {
                session_id,
                cwd,
                model,
                tools,
                ..
            } => {
                state.session_id.clone_from(session_id);
                state.model.clone_from(model);
                let init = init_frame(&state.init, session_id, cwd, model, tools);
                self.frame(state, init);
            }
            SessionEvent::Message { message } if message.role == Role::User => {
                state.request_started = Some(Instant::now());
            }
            // Claude Code's compact_boundary frame.
            SessionEvent::Compaction {
                trigger,
                tokens_before,
                ..
            } => {
                let frame = serde_json::json!({
                    "type": "system",
                    "subtype": "compact_boundary",
                    "session_id": state.session_id,
                    "uuid": uuid(),
                    "compact_metadata": {
                        "trigger": if trigger == "manual" { "manual" } else { "auto" },
                        "pre_tokens": tokens_before,
                    },
                });
                self.frame(state, frame);
            }
            SessionEvent::Message { message } if message.role == Role::Assistant => {
                if let Some(started) = state.request_started.take() {
                    state.api_ms += started.elapsed().as_millis() as u64;
                }
                state.assistant = Some(message.clone());
            }
            SessionEvent::TurnEnd {
                stop_reason, usage, ..
            } => {
                if let Some(message) = state.assistant.take() {
                    let frame = json!({
                        "type": "assistant",
                        "message": {
                            "id": format!("msg_tack_{}", uuid().replace('-', "")),
                            "type": "message",
                            "role": "assistant",
                            "model": state.model,
                            "content": message.content,
                            "stop_reason": stop_reason,
                            "stop_sequence": null,
                            "usage": usage,
                        },
                        "parent_tool_use_id": null,
                        "session_id": state.session_id,
                        "uuid": uuid(),
                    });
                    self.frame(state, frame);
                }
            }
            SessionEvent::ToolCall { id, input, .. } => {
                state.inputs.insert(id.clone(), input.clone());
            }
            SessionEvent::ToolResult {
                tool_use_id,
                name,
                outcome,
                is_error,
                content,
                audit,
                response,
                ..
            } => {
                let input = audit
                    .as_ref()
                    .map(|a| a.input.clone())
                    .filter(|i| !i.is_null())
                    .or_else(|| state.inputs.get(tool_use_id).cloned())
                    .unwrap_or(Value::Null);
                // Every refusal, a code-mode program's calls' too: a CI job
                // reads this list to learn what was not allowed.
                if *outcome == ToolOutcome::Denied {
                    state.denials.push(json!({
                        "tool_name": name,
                        "tool_use_id": tool_use_id,
                        "tool_input": input,
                    }));
                }
                // A call made from inside a tool is not in the conversation.
                if audit.as_ref().is_some_and(|a| a.caller.is_some()) {
                    return;
                }
                let frame = json!({
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [{
                            "type": "tool_result",
                            "tool_use_id": tool_use_id,
                            "content": result_content(content),
                            "is_error": is_error,
                        }],
                    },
                    "parent_tool_use_id": null,
                    "tool_use_result": tool_use_result(response.as_ref(), *is_error, content),
                    "session_id": state.session_id,
                    "uuid": uuid(),
                });
                self.frame(state, frame);
            }
            SessionEvent::Retry {
                attempt,
                delay_ms,
                reason,
            } => {
                let frame = json!({
                    "type": "system",
                    "subtype": "api_retry",
                    "attempt": attempt,
                    "retry_delay_ms": delay_ms,
                    "error": reason,
                    "session_id": state.session_id,
                    "uuid": uuid(),
                });
                self.frame(state, frame);
            }
            SessionEvent::Result { .. } => {
                let result = result_object(state, event);
                match self.shape {
                    Shape::StreamJson => print_line(&result),
                    Shape::Json { verbose: false } => print_line(&result),
                    Shape::Json { verbose: true } => {
                        let mut frames = std::mem::take(&mut state.frames);
                        frames.push(result);
                        print_line(&Value::Array(frames));
                    }
                }
                state.denials.clear();
                state.api_ms = 0;
                state.turn_started = Instant::now();
            }
            _ => {}
        }
    }
}

impl EventObserver for ClaudeOutput {
    fn on_event(&self, event: &SessionEvent) {
        let mut state = self.lock();
        self.on(&mut state, event);
    }
}

fn print_line(value: &Value) {
    let mut out = std::io::stdout().lock();
    if serde_json::to_writer(&mut out, value).is_ok() {
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}

fn init_frame(
    init: &InitInfo,
    session_id: &str,
    cwd: &str,
    model: &str,
    tools: &[String],
) -> Value {
    let servers: Vec<Value> = init
        .mcp_servers
        .iter()
        .map(|(name, status)| json!({"name": name, "status": status}))
        .collect();
    json!({
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": session_id,
        "tools": tools,
        "mcp_servers": servers,
        "model": model,
        "permissionMode": init.permission_mode,
        "slash_commands": init.slash_commands,
        "apiKeySource": init.api_key_source,
        "tack_version": env!("CARGO_PKG_VERSION"),
        "output_style": "default",
        "agents": [],
        "skills": init.skills,
        "plugins": [],
        "uuid": uuid(),
    })
}

/// The text of a tool result as Claude Code sends it: a string when it is
/// all text, else the blocks.
fn result_content(content: &[ContentBlock]) -> Value {
    let texts: Option<Vec<&str>> = content
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    match texts {
        Some(texts) => Value::String(texts.join("\n")),
        None => serde_json::to_value(content).unwrap_or(Value::Null),
    }
}

/// `user.tool_use_result`: the tool's whole output in Claude Code's shape
/// (`ToolOutput::response`, the same object PostToolUse hooks get), or
/// Claude Code's `"Error: …"` string for a failed call.
pub fn tool_use_result(
    response: Option<&Value>,
    is_error: bool,
    content: &[ContentBlock],
) -> Value {
    match (response, is_error) {
        (Some(response), false) => response.clone(),
        // A tool without Claude Code's shape (MCP, an embedder's): its
        // content array, as `ToolOutput::hook_response` gives hooks.
        (None, false) => serde_json::to_value(content).unwrap_or(Value::Array(Vec::new())),
        (_, true) => {
            let text = match result_content(content) {
                Value::String(text) => text,
                other => other.to_string(),
            };
            Value::String(format!("Error: {text}"))
        }
    }
}

/// Claude Code's `subtype` and whether the run failed, from tack's status.
fn subtype(status: RunStatus) -> &'static str {
    match status {
        // An API error is a "success" with is_error and the error as result,
        // as Claude Code reports it; a cut or refused answer is still one.
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
    let mut result = json!({
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": state.turn_started.elapsed().as_millis() as u64,
        "duration_api_ms": state.api_ms,
        "num_turns": turns,
        "stop_reason": stop_reason,
        "session_id": session_id,
        "total_cost_usd": cost,
        "usage": usage_json(usage),
        "modelUsage": model_usage,
        "permission_denials": state.denials,
        "uuid": uuid(),
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
