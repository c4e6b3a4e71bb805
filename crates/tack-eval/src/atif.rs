//! Runs exported as ATIF, the Agent Trajectory Interchange Format of Harbor
//! (Terminal-Bench's harness): one trajectory per run, readable by Harbor's
//! viewer, its validator and the SFT/RL pipelines that take ATIF.
//!
//! **Spec followed: ATIF-v1.7**, Harbor's RFC 0001 "Agent Trajectory
//! Interchange Format (ATIF) Specification" (`docs/rfcs/0001-trajectory-format.md`
//! of `github.com/harbor-framework/harbor`, formerly `laude-institute/harbor`;
//! the v1.7 text dated April 2026) and its reference Pydantic models
//! (`src/harbor/models/trajectories/`: `trajectory.py`, `step.py`, … with
//! `extra = "forbid"` on every model, `schema_version` defaulting to
//! `ATIF-v1.7`). The upstream repository could not be fetched here, so the
//! text was read from copies in the public code index and no commit can be
//! named; `schema_version` says which version a file follows. Harbor ships
//! no JSON Schema: its validator is the Pydantic models, whose rules the
//! tests here check (allowed keys, required fields, sequential `step_id`s,
//! agent-only fields, `source_call_id`s that name a call of their step).
//!
//! ```text
//! tack transcript (JSONL)                    ATIF
//! session_start                          ──► session_id, agent.version, agent.model_name
//! message user (text)                    ──► step source "user"
//! message assistant (text, thinking,     ──► step source "agent": message, reasoning_content,
//!                    tool_use)                tool_calls [{tool_call_id, function_name, arguments}]
//! turn_end usage                         ──► that step's metrics: prompt_tokens (all input, cached
//!                                             included), completion_tokens, cached_tokens;
//!                                             cache writes in metrics.extra
//! tool_result events + message user      ──► that step's observation.results [{source_call_id,
//!                   (tool_result blocks)      content, extra {outcome, is_error, duration_ms,
//!                                             nested_calls}}]
//! compaction / conversation_repaired     ──► step source "system" (extra.context_management)
//! the run record                         ──► extra.tack_eval (status, failure, checks, …),
//!                                             final_metrics (sums of the steps' metrics)
//! ```
//!
//! Without a transcript a trajectory is built from the record alone: one
//! agent step per model turn holding that turn's calls and their results
//! (cut to [`RESULT_EXCERPT`](crate::record::RESULT_EXCERPT) bytes), the
//! answer on the last; the prompt and per-turn tokens are not in a record,
//! so there is no user step and `final_metrics` takes the run's totals. The
//! trajectory's `notes` say which way it was built.
//!
//! Two ways out: [`export_jsonl`], one trajectory per line (a stream, a
//! dataset), and [`write_trajectories`], one `trajectory.json` per run laid
//! out as Harbor lays out trials: `OUT/<task>__<variant>__<repeat>/agent/trajectory.json`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use tack_protocol::{ContentBlock, Message, Role, SessionEvent, ToolResultContent, Usage};

use crate::record::{Call, RunRecord};
use crate::{Error, Result};

/// The ATIF version written.
pub const SCHEMA_VERSION: &str = "ATIF-v1.7";

/// The run as an ATIF trajectory: from its transcript (tack's JSONL, one
/// parsed value per line) when given, else from the record alone.
pub fn trajectory(run: &RunRecord, transcript: Option<&[Value]>) -> Value {
    let built = transcript
        .map(from_transcript)
        .filter(|t| !t.steps.is_empty());
    let (mut trajectory, notes) = match built {
        Some(t) => {
            let notes = format!(
                "Exported by tack eval from the run's transcript ({} event(s){}).",
                t.events,
                if t.unreadable > 0 {
                    format!(", {} unreadable and skipped", t.unreadable)
                } else {
                    String::new()
                }
            );
            (t, notes)
        }
        None => (
            from_record(run),
            "Exported by tack eval from the run record alone (no transcript): one agent step per \
             model turn with its calls; the prompt, the assistant's text before the last turn and \
             per-turn tokens are not in a record; tool results are cut to 2,000 bytes."
                .to_owned(),
        ),
    };
    if trajectory.first_time.is_none() && !run.started.is_empty() {
        trajectory.first_time = Some(run.started.clone());
    }
    trajectory.finish(run, notes)
}

/// A transcript's lines as JSON values; lines that do not parse (a torn
/// last line) are left out.
pub fn read_transcript(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Every run's trajectory, one compact JSON object a line. `transcript_of`
/// gives a run's transcript (None: built from the record).
pub fn export_jsonl(
    runs: &[RunRecord],
    mut transcript_of: impl FnMut(&RunRecord) -> Option<Vec<Value>>,
) -> String {
    let mut out = String::new();
    for run in runs {
        let transcript = transcript_of(run);
        out.push_str(&trajectory(run, transcript.as_deref()).to_string());
        out.push('\n');
    }
    out
}

/// Where [`write_trajectories`] puts a run's trajectory, under `out`.
pub fn trajectory_path(out: &Path, run: &RunRecord) -> PathBuf {
    let name = format!(
        "{}__{}__{}",
        path_safe(&run.task),
        path_safe(&run.variant),
        run.repeat
    );
    out.join(name).join("agent").join("trajectory.json")
}

/// Writes each run's trajectory (pretty JSON) to [`trajectory_path`]. A
/// run's transcript is read from `runs_dir` joined with the record's
/// `transcript`; a run without one, or whose file is gone, is exported
/// from its record. Returns the files written.
pub fn write_trajectories(runs: &[RunRecord], runs_dir: &Path, out: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for run in runs {
        let transcript = match &run.transcript {
            Some(rel) => {
                let path = runs_dir.join(rel);
                match std::fs::read_to_string(&path) {
                    Ok(text) => Some(read_transcript(&text)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(source) => return Err(Error::Io { path, source }),
                }
            }
            None => None,
        };
        let value = trajectory(run, transcript.as_deref());
        let path = trajectory_path(out, run);
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        std::fs::write(&path, text).map_err(io)?;
        written.push(path);
    }
    Ok(written)
}

/// A name usable as one path component.
fn path_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() || safe.chars().all(|c| c == '.') {
        "_".to_owned()
    } else {
        safe
    }
}

// ---- building -----------------------------------------------------------

/// A trajectory being built: steps as JSON objects, numbered at the end.
#[derive(Default)]
struct Built {
    steps: Vec<Map<String, Value>>,
    session_id: Option<String>,
    version: Option<String>,
    model: Option<String>,
    tools: Vec<String>,
    /// When the session (or run) started, RFC 3339: the first step's time when it has none.
    first_time: Option<String>,
    /// The `result` event's fields, for `final_metrics.extra`.
    result: Option<Value>,
    events: usize,
    unreadable: usize,
}

impl Built {
    fn push(&mut self, step: Map<String, Value>) -> usize {
        self.steps.push(step);
        self.steps.len() - 1
    }

    fn finish(mut self, run: &RunRecord, notes: String) -> Value {
        if let (Some(time), Some(first)) = (self.first_time.take(), self.steps.first_mut()) {
            first.entry("timestamp").or_insert(Value::String(time));
        }
        for (i, step) in self.steps.iter_mut().enumerate() {
            // step_id first, for a person reading the JSON.
            let mut numbered = Map::new();
            numbered.insert("step_id".into(), json!(i + 1));
            numbered.append(step);
            *step = numbered;
        }
        let (name, harness_version) = match run.harness.split_once(' ') {
            Some((name, version)) => (name.to_owned(), version.trim().to_owned()),
            None if !run.harness.is_empty() => (run.harness.clone(), String::new()),
            None => ("tack".to_owned(), String::new()),
        };
        let version = self
            .version
            .filter(|v| !v.is_empty())
            .or_else(|| (!harness_version.is_empty()).then_some(harness_version))
            .unwrap_or_else(|| "unknown".to_owned());
        let mut agent = Map::new();
        agent.insert("name".into(), json!(name));
        agent.insert("version".into(), json!(version));
        let model = self
            .model
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| run.model.clone());
        if !model.is_empty() {
            agent.insert("model_name".into(), json!(model));
        }
        let mut agent_extra = json!({
            "provider": run.provider,
            "variant": run.variant,
            "interface": run.interface,
            "tool_search": run.tool_search,
            "skill": run.skill,
            "code_mode": run.code_mode,
        });
        if !self.tools.is_empty() {
            agent_extra["tools"] = json!(self.tools);
        }
        agent.insert("extra".into(), agent_extra);

        let final_metrics = final_metrics(&self.steps, run, self.result.take());
        let steps: Vec<Value> = self.steps.into_iter().map(Value::Object).collect();
        let mut root = Map::new();
        root.insert("schema_version".into(), json!(SCHEMA_VERSION));
        root.insert(
            "session_id".into(),
            json!(self.session_id.unwrap_or_else(|| run.key())),
        );
        root.insert(
            "trajectory_id".into(),
            json!(format!("{}/{}", run.suite, run.key())),
        );
        root.insert("agent".into(), Value::Object(agent));
        root.insert("steps".into(), Value::Array(steps));
        root.insert("notes".into(), json!(notes));
        root.insert("final_metrics".into(), final_metrics);
        root.insert("extra".into(), json!({ "tack_eval": verdict(run) }));
        Value::Object(root)
    }
}

/// What the evaluation said of the run.
fn verdict(run: &RunRecord) -> Value {
    let mut v = json!({
        "record_version": run.version,
        "suite": run.suite,
        "task": run.task,
        "variant": run.variant,
        "repeat": run.repeat,
        "key": run.key(),
        "source": run.source,
        "status": run.status,
        "checks": run.checks,
        "observed": run.observed,
        "answer": run.answer,
        "started": run.started,
        "harness": run.harness,
        "dir": run.dir,
    });
    let optional = [
        ("failure", run.failure.as_ref().map(|f| json!(f))),
        ("divergence", run.divergence.as_ref().map(|d| json!(d))),
        ("run_status", run.run_status.as_ref().map(|s| json!(s))),
        ("exit_code", run.exit_code.map(|c| json!(c))),
        ("transcript", run.transcript.as_ref().map(|t| json!(t))),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            v[key] = value;
        }
    }
    v
}

fn final_metrics(steps: &[Map<String, Value>], run: &RunRecord, result: Option<Value>) -> Value {
    let metrics: Vec<&Map<String, Value>> = steps
        .iter()
        .filter_map(|s| s.get("metrics").and_then(Value::as_object))
        .collect();
    let sum = |key: &str| -> u64 {
        metrics
            .iter()
            .filter_map(|m| m.get(key).and_then(Value::as_u64))
            .sum()
    };
    let t = &run.tokens;
    let (prompt, completion, cached) = if metrics.is_empty() {
        (t.input_uncached + t.input_cached, t.output, t.input_cached)
    } else {
        (
            sum("prompt_tokens"),
            sum("completion_tokens"),
            sum("cached_tokens"),
        )
    };
    let mut extra = json!({
        "tack_tokens": t,
        "turns": run.turns,
        "retries": run.retries,
        "wall_ms": run.wall_ms,
        "model_ms": run.model_ms,
        "tool_ms": run.tool_ms,
        "harness_ms": run.harness_ms,
        "tool_calls": run.calls.len(),
    });
    if let Some(result) = result {
        extra["result"] = result;
    }
    json!({
        "total_prompt_tokens": prompt,
        "total_completion_tokens": completion,
        "total_cached_tokens": cached,
        "total_steps": steps.len(),
        "extra": extra,
    })
}

/// A tool call as ATIF has it (arguments must be an object).
fn tool_call(id: &str, name: &str, input: &Value) -> Value {
    json!({
        "tool_call_id": id,
        "function_name": name,
        "arguments": arguments(input),
    })
}

fn arguments(input: &Value) -> Value {
    match input {
        Value::Object(_) => input.clone(),
        Value::Null => json!({}),
        other => json!({ "input": other }),
    }
}

fn agent_step(message: String) -> Map<String, Value> {
    let mut step = Map::new();
    step.insert("source".into(), json!("agent"));
    step.insert("message".into(), json!(message));
    step
}

fn push_result(step: &mut Map<String, Value>, result: Value) {
    let observation = step
        .entry("observation")
        .or_insert_with(|| json!({ "results": [] }));
    if let Some(results) = observation.get_mut("results").and_then(Value::as_array_mut) {
        results.push(result);
    }
}

// ---- from the record ----------------------------------------------------

fn from_record(run: &RunRecord) -> Built {
    let mut built = Built::default();
    let top: Vec<&Call> = run.calls.iter().filter(|c| c.caller.is_none()).collect();
    let last_turn = top.iter().map(|c| c.turn).max().unwrap_or(0).max(run.turns);
    if last_turn == 0 {
        let mut step = Map::new();
        step.insert("source".into(), json!("system"));
        step.insert(
            "message".into(),
            json!(format!(
                "The run made no model request (status {}{}).",
                run.status.as_str(),
                run.run_status
                    .as_deref()
                    .map(|s| format!(", session {s}"))
                    .unwrap_or_default()
            )),
        );
        built.push(step);
        return built;
    }
    for turn in 1..=last_turn {
        let message = if turn == last_turn {
            run.answer.clone()
        } else {
            String::new()
        };
        let mut step = agent_step(message);
        let calls: Vec<&&Call> = top.iter().filter(|c| c.turn == turn).collect();
        if !calls.is_empty() {
            step.insert(
                "tool_calls".into(),
                Value::Array(
                    calls
                        .iter()
                        .map(|c| tool_call(&c.id, &c.name, &c.input))
                        .collect(),
                ),
            );
            for call in &calls {
                let nested: Vec<Value> = run
                    .calls
                    .iter()
                    .filter(|n| n.caller.as_deref() == Some(call.id.as_str()))
                    .map(|n| {
                        json!({
                            "tool_call_id": n.id,
                            "function_name": n.name,
                            "arguments": arguments(&n.input),
                            "outcome": n.outcome,
                            "is_error": n.is_error,
                            "duration_ms": n.duration_ms,
                        })
                    })
                    .collect();
                let mut extra = json!({
                    "outcome": call.outcome,
                    "is_error": call.is_error,
                    "duration_ms": call.duration_ms,
                });
                if !call.decision.is_empty() {
                    extra["decision"] = json!(call.decision);
                    extra["decided_by"] = json!(call.decided_by);
                }
                if !nested.is_empty() {
                    extra["nested_calls"] = Value::Array(nested);
                }
                push_result(
                    &mut step,
                    json!({ "source_call_id": call.id, "content": call.result, "extra": extra }),
                );
            }
        }
        built.push(step);
    }
    built
}

// ---- from the transcript ------------------------------------------------

/// What a `tool_result` event said of a call.
struct ResultEvent {
    text: String,
    extra: Value,
}

fn from_transcript(lines: &[Value]) -> Built {
    let mut built = Built::default();
    // The step holding each tool_use, by its id.
    let mut call_step: HashMap<String, usize> = HashMap::new();
    // The agent step whose turn_end has not come yet.
    let mut awaiting_usage: Option<usize> = None;
    let mut results: HashMap<String, ResultEvent> = HashMap::new();
    let mut nested: HashMap<String, Vec<Value>> = HashMap::new();

    for line in lines {
        let Ok(event) = serde_json::from_value::<SessionEvent>(line.clone()) else {
            built.unreadable += 1;
            continue;
        };
        built.events += 1;
        let time = line
            .get("ts")
            .and_then(Value::as_u64)
            .filter(|ts| *ts > 0)
            .map(rfc3339_ms);
        match event {
            SessionEvent::SessionStart {
                session_id,
                model,
                tools,
                time: started,
                version,
                ..
            } => {
                built.session_id.get_or_insert(session_id);
                built.model.get_or_insert(model);
                built.version.get_or_insert(version);
                if built.tools.is_empty() {
                    built.tools = tools;
                }
                if built.first_time.is_none() && !started.is_empty() {
                    built.first_time = Some(started);
                }
            }
            SessionEvent::Message { message } => match message.role {
                Role::Assistant => {
                    let index = built.push(assistant_step(&message, time));
                    for block in &message.content {
                        if let ContentBlock::ToolUse(t) = block {
                            call_step.insert(t.id.clone(), index);
                        }
                    }
                    awaiting_usage = Some(index);
                }
                Role::User => {
                    user_message(
                        &mut built,
                        &message,
                        time,
                        &call_step,
                        &mut results,
                        &mut nested,
                    );
                }
            },
            SessionEvent::TurnEnd {
                turn,
                stop_reason,
                usage,
            } => {
                let index = match awaiting_usage.take() {
                    Some(index) => index,
                    // A response with no content is not added to the conversation.
                    None => built.push(agent_step(String::new())),
                };
                if let Some(step) = built.steps.get_mut(index) {
                    step.insert("metrics".into(), metrics(&usage));
                    step.insert("llm_call_count".into(), json!(1));
                    step.insert(
                        "extra".into(),
                        json!({ "turn": turn, "stop_reason": stop_reason }),
                    );
                    if let Some(time) = time {
                        step.entry("timestamp").or_insert(json!(time));
                    }
                }
            }
            SessionEvent::ToolResult {
                tool_use_id,
                name,
                outcome,
                is_error,
                content,
                duration_ms,
                audit,
                ..
            } => {
                let text = blocks_text(&content);
                let mut extra = json!({
                    "outcome": outcome,
                    "is_error": is_error,
                    "duration_ms": duration_ms,
                });
                if let Some(audit) = &audit {
                    extra["decision"] = json!(audit.decision);
                    if !audit.decided_by.is_empty() {
                        extra["decided_by"] = json!(audit.decided_by);
                    }
                }
                match audit.as_ref().and_then(|a| a.caller.as_ref()) {
                    Some(caller) => {
                        let input = audit
                            .as_ref()
                            .map(|a| arguments(&a.input))
                            .unwrap_or_default();
                        let mut record = json!({
                            "tool_call_id": tool_use_id,
                            "function_name": name,
                            "arguments": input,
                            "content": text,
                        });
                        if let (Some(r), Some(e)) = (record.as_object_mut(), extra.as_object()) {
                            r.extend(e.clone());
                        }
                        nested
                            .entry(caller.tool_use_id.clone())
                            .or_default()
                            .push(record);
                    }
                    None => {
                        results.insert(tool_use_id, ResultEvent { text, extra });
                    }
                }
            }
            SessionEvent::Compaction {
                trigger,
                reason,
                stages,
                tokens_before,
                tokens_after,
                cleared_tool_results,
                summarized_messages,
                summary,
                usage,
                ..
            } => {
                let (kind, boundary) = if summarized_messages > 0 {
                    ("compaction", "replace")
                } else {
                    ("pruning", "truncate")
                };
                let mut step =
                    system_step(format!("Context compacted ({trigger}): {reason}"), time);
                let content = summary.unwrap_or_else(|| {
                    format!("{cleared_tool_results} old tool result(s) replaced by a stub naming their artifact")
                });
                step.insert(
                    "observation".into(),
                    json!({ "results": [{ "content": content }] }),
                );
                step.insert(
                    "extra".into(),
                    json!({
                        "context_management": { "type": kind, "boundary": boundary },
                        "stages": stages,
                        "tokens_before": tokens_before,
                        "tokens_after": tokens_after,
                        "cleared_tool_results": cleared_tool_results,
                        "summarized_messages": summarized_messages,
                        "usage": usage,
                    }),
                );
                built.push(step);
            }
            SessionEvent::ConversationRepaired { repairs, .. } => {
                let mut step = system_step(
                    format!(
                        "The conversation was repaired on resume: {}",
                        repairs.join("; ")
                    ),
                    time,
                );
                step.insert("extra".into(), json!({ "repairs": repairs }));
                built.push(step);
            }
            SessionEvent::Result {
                turns,
                usage,
                stop_reason,
                status,
                is_error,
                error,
                ..
            } => {
                let mut result = json!({
                    "status": status,
                    "turns": turns,
                    "usage": usage,
                    "stop_reason": stop_reason,
                    "is_error": is_error,
                });
                if let Some(error) = error {
                    result["error"] = json!(error);
                }
                built.result = Some(result);
            }
            // Streamed text, progress, retries, sub-agents and sampling:
            // not steps of this conversation.
            _ => {}
        }
    }
    built
}

fn system_step(message: String, time: Option<String>) -> Map<String, Value> {
    let mut step = Map::new();
    if let Some(time) = time {
        step.insert("timestamp".into(), json!(time));
    }
    step.insert("source".into(), json!("system"));
    step.insert("message".into(), json!(message));
    step
}

fn assistant_step(message: &Message, time: Option<String>) -> Map<String, Value> {
    let mut text = Vec::new();
    let mut thinking = Vec::new();
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text(t) => text.push(t.text.as_str()),
            ContentBlock::Thinking(t) => thinking.push(t.thinking.as_str()),
            ContentBlock::ToolUse(t) => calls.push(tool_call(&t.id, &t.name, &t.input)),
            _ => {}
        }
    }
    let mut step = Map::new();
    if let Some(time) = time {
        step.insert("timestamp".into(), json!(time));
    }
    step.append(&mut agent_step(text.join("\n\n")));
    if !thinking.is_empty() {
        step.insert("reasoning_content".into(), json!(thinking.join("\n\n")));
    }
    if !calls.is_empty() {
        step.insert("tool_calls".into(), Value::Array(calls));
    }
    step
}

/// A user message: its tool results go to the steps that made the calls,
/// its text (a prompt, a hook's reason to go on) becomes a user step.
fn user_message(
    built: &mut Built,
    message: &Message,
    time: Option<String>,
    call_step: &HashMap<String, usize>,
    results: &mut HashMap<String, ResultEvent>,
    nested: &mut HashMap<String, Vec<Value>>,
) {
    let mut text = Vec::new();
    for block in &message.content {
        let ContentBlock::ToolResult(r) = block else {
            if let Some(t) = block_text(block) {
                text.push(t);
            }
            continue;
        };
        let (content, mut extra) = match results.remove(&r.tool_use_id) {
            Some(event) => (event.text, event.extra),
            None => {
                let content = match &r.content {
                    None => String::new(),
                    Some(ToolResultContent::Text(t)) => t.clone(),
                    Some(ToolResultContent::Blocks(b)) => blocks_text(b),
                };
                (content, json!({ "is_error": r.is_error }))
            }
        };
        if let Some(calls) = nested.remove(&r.tool_use_id) {
            extra["nested_calls"] = Value::Array(calls);
        }
        let target = call_step.get(&r.tool_use_id).copied();
        let result = if target.is_some() {
            json!({ "source_call_id": r.tool_use_id, "content": content, "extra": extra })
        } else {
            // Its call is not in the transcript: a result with no source call.
            extra["tool_use_id"] = json!(r.tool_use_id);
            json!({ "content": content, "extra": extra })
        };
        let index = target.or_else(|| {
            built
                .steps
                .iter()
                .rposition(|s| s.get("source") == Some(&json!("agent")))
        });
        match index.and_then(|i| built.steps.get_mut(i)) {
            Some(step) => push_result(step, result),
            None => {
                let mut step =
                    system_step("A tool result with no call before it.".into(), time.clone());
                push_result(&mut step, result);
                built.push(step);
            }
        }
    }
    if !text.is_empty() {
        let mut step = Map::new();
        if let Some(time) = time {
            step.insert("timestamp".into(), json!(time));
        }
        step.insert("source".into(), json!("user"));
        step.insert("message".into(), json!(text.join("\n\n")));
        built.push(step);
    }
}

/// A step's metrics from a response's usage: ATIF's `prompt_tokens` is all
/// input, cached or not (tack's `input_tokens` excludes cache reads and writes).
fn metrics(usage: &Usage) -> Value {
    let prompt =
        usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    let mut m = json!({
        "prompt_tokens": prompt,
        "completion_tokens": usage.output_tokens,
        "cached_tokens": usage.cache_read_input_tokens,
    });
    if usage.cache_creation_input_tokens > 0 {
        m["extra"] = json!({ "cache_creation_input_tokens": usage.cache_creation_input_tokens });
    }
    m
}

fn block_text(block: &ContentBlock) -> Option<String> {
    match block {
        ContentBlock::Text(t) => Some(t.text.clone()),
        ContentBlock::Image(_) => Some("[image]".into()),
        ContentBlock::ToolUse(_) | ContentBlock::ToolResult(_) => None,
        ContentBlock::Thinking(_) | ContentBlock::RedactedThinking(_) => None,
        other => Some(match other.referenced_tool() {
            Some(tool) => format!("[tool loaded: {tool}]"),
            None => format!("[{}]", other.kind()),
        }),
    }
}

fn blocks_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(block_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Milliseconds since the Unix epoch as RFC 3339 UTC with milliseconds.
fn rfc3339_ms(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{FailureClass, Status};
    use crate::report::tests::{call, run};

    /// A two-turn transcript as tack writes it: prompt, a turn with two
    /// calls (one made from inside the other), their results, the answer.
    fn transcript() -> Vec<Value> {
        let lines = [
            json!({"ts": 1762077600000u64, "type": "session_start", "session_id": "s-1", "cwd": "/w",
                   "provider": "anthropic", "model": "claude-sonnet-4-5", "tools": ["Code", "get_quote"],
                   "time": "2025-11-02T10:00:00Z", "version": "0.1.0"}),
            json!({"ts": 1762077600001u64, "type": "message", "message": {"role": "user",
                   "content": [{"type": "text", "text": "What is AAPL trading at?"}]}}),
            json!({"ts": 1762077601500u64, "type": "message", "message": {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Use the quote tool.", "signature": "x"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "Code", "input": {"code": "get_quote('AAPL')"}}]}}),
            json!({"ts": 1762077601501u64, "type": "turn_end", "turn": 1, "stop_reason": "tool_use",
                   "usage": {"input_tokens": 100, "output_tokens": 40, "cache_read_input_tokens": 2000,
                             "cache_creation_input_tokens": 300}}),
            json!({"ts": 1762077601502u64, "type": "tool_call", "id": "toolu_1", "name": "Code",
                   "input": {"code": "get_quote('AAPL')"}}),
            json!({"ts": 1762077601600u64, "type": "tool_result", "tool_use_id": "code_1", "name": "get_quote",
                   "outcome": "ok", "is_error": false, "content": [{"type": "text", "text": "190.12"}],
                   "duration_ms": 5,
                   "audit": {"input": {"symbol": "AAPL"}, "decision": "allow", "decided_by": "mode",
                             "started_ms": 1, "caller": {"tool": "Code", "tool_use_id": "toolu_1"}}}),
            json!({"ts": 1762077601700u64, "type": "tool_result", "tool_use_id": "toolu_1", "name": "Code",
                   "outcome": "ok", "is_error": false, "content": [{"type": "text", "text": "AAPL: 190.12"}],
                   "duration_ms": 120,
                   "audit": {"input": {"code": "get_quote('AAPL')"}, "decision": "allow", "decided_by": "mode",
                             "started_ms": 1}}),
            json!({"ts": 1762077601701u64, "type": "message", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "AAPL: 190.12"}]}]}}),
            json!({"ts": 1762077603000u64, "type": "message", "message": {"role": "assistant",
                   "content": [{"type": "text", "text": "AAPL is at $190.12."}]}}),
            json!({"ts": 1762077603001u64, "type": "turn_end", "turn": 2, "stop_reason": "end_turn",
                   "usage": {"input_tokens": 50, "output_tokens": 12, "cache_read_input_tokens": 2400}}),
            json!({"ts": 1762077603002u64, "type": "result", "session_id": "s-1", "turns": 2,
                   "usage": {"input_tokens": 150, "output_tokens": 52, "cache_read_input_tokens": 4400,
                             "cache_creation_input_tokens": 300},
                   "stop_reason": "end_turn", "status": "completed", "text": "AAPL is at $190.12.",
                   "is_error": false, "session_turns": 2,
                   "session_usage": {"input_tokens": 150, "output_tokens": 52}}),
        ];
        lines.to_vec()
    }

    fn code_run() -> RunRecord {
        let mut r = run("quote", "code", 0, Status::Failed);
        r.failure = Some(crate::record::Failure {
            class: FailureClass::GaveUp,
            detail: "no price".into(),
            call_id: None,
        });
        let mut nested = call("code_1", "get_quote", "ok", 0);
        nested.caller = Some("toolu_1".into());
        r.calls = vec![nested, call("toolu_1", "Code", "ok", 1)];
        r.turns = 2;
        r
    }

    #[test]
    fn a_transcript_becomes_user_agent_steps_with_calls_results_and_metrics() {
        let t = trajectory(&code_run(), Some(&transcript()));
        assert_eq!(validate(&t), Ok(()), "{t:#}");
        assert_eq!(t["schema_version"], "ATIF-v1.7");
        assert_eq!(t["session_id"], "s-1");
        assert_eq!(t["agent"]["name"], "tack");
        assert_eq!(t["agent"]["version"], "0.1.0");
        assert_eq!(t["agent"]["model_name"], "claude-sonnet-4-5");
        let steps = t["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 3, "{t:#}");
        assert_eq!(steps[0]["source"], "user");
        assert_eq!(steps[0]["message"], "What is AAPL trading at?");
        assert_eq!(steps[0]["timestamp"], "2025-11-02T10:00:00.001Z");

        let turn1 = &steps[1];
        assert_eq!(turn1["source"], "agent");
        assert_eq!(turn1["message"], "Checking.");
        assert_eq!(turn1["reasoning_content"], "Use the quote tool.");
        assert_eq!(
            turn1["tool_calls"],
            json!([{"tool_call_id": "toolu_1", "function_name": "Code",
                    "arguments": {"code": "get_quote('AAPL')"}}])
        );
        let result = &turn1["observation"]["results"][0];
        assert_eq!(result["source_call_id"], "toolu_1");
        assert_eq!(result["content"], "AAPL: 190.12");
        assert_eq!(result["extra"]["outcome"], "ok");
        assert_eq!(result["extra"]["duration_ms"], 120);
        let inner = &result["extra"]["nested_calls"][0];
        assert_eq!(inner["function_name"], "get_quote");
        assert_eq!(inner["arguments"], json!({"symbol": "AAPL"}));
        assert_eq!(inner["content"], "190.12");
        assert_eq!(
            turn1["metrics"],
            json!({"prompt_tokens": 2400, "completion_tokens": 40, "cached_tokens": 2000,
                   "extra": {"cache_creation_input_tokens": 300}})
        );
        assert_eq!(turn1["extra"]["stop_reason"], "tool_use");

        assert_eq!(steps[2]["message"], "AAPL is at $190.12.");
        assert_eq!(steps[2]["metrics"]["prompt_tokens"], 2450);
        let fm = &t["final_metrics"];
        assert_eq!(fm["total_prompt_tokens"], 4850);
        assert_eq!(fm["total_completion_tokens"], 52);
        assert_eq!(fm["total_cached_tokens"], 4400);
        assert_eq!(fm["total_steps"], 3);
        assert_eq!(fm["extra"]["result"]["status"], "completed");
        let verdict = &t["extra"]["tack_eval"];
        assert_eq!(verdict["status"], "failed");
        assert_eq!(verdict["failure"]["class"], "gave_up");
        assert_eq!(verdict["key"], "quote/code/0");
    }

    #[test]
    fn without_a_transcript_the_record_gives_one_step_per_turn() {
        let t = trajectory(&run("quote", "mcp", 0, Status::Passed), None);
        assert_eq!(validate(&t), Ok(()), "{t:#}");
        let steps = t["steps"].as_array().unwrap();
        // Turn 1: get_quote; turn 2: Bash; turn 3: the answer.
        assert_eq!(steps.len(), 3, "{t:#}");
        assert_eq!(steps[0]["timestamp"], "2025-11-02T10:00:00Z");
        assert_eq!(
            steps[0]["tool_calls"][0]["function_name"],
            "mcp__market__get_quote"
        );
        assert_eq!(
            steps[0]["observation"]["results"][0]["source_call_id"],
            "toolu_1"
        );
        assert_eq!(steps[1]["tool_calls"][0]["function_name"], "Bash");
        assert_eq!(steps[2]["message"], "AAPL is at $190.");
        assert!(steps[2].get("tool_calls").is_none());
        assert_eq!(t["session_id"], "quote/mcp/0");
        assert_eq!(t["final_metrics"]["total_prompt_tokens"], 4000);
        assert_eq!(t["final_metrics"]["total_cached_tokens"], 3000);
        assert!(t["notes"].as_str().unwrap().contains("record alone"));

        let nested = trajectory(&code_run(), None);
        assert_eq!(validate(&nested), Ok(()), "{nested:#}");
        let result = &nested["steps"][0]["observation"]["results"][0];
        assert_eq!(
            result["extra"]["nested_calls"][0]["function_name"],
            "get_quote"
        );
    }

    #[test]
    fn a_run_that_never_reached_the_model_is_one_system_step() {
        let mut r = run("quote", "mcp", 0, Status::Error);
        r.calls.clear();
        r.turns = 0;
        let t = trajectory(&r, None);
        assert_eq!(validate(&t), Ok(()), "{t:#}");
        assert_eq!(t["steps"][0]["source"], "system");
    }

    #[test]
    fn compaction_unreadable_lines_and_an_empty_response_are_handled() {
        let mut lines = transcript();
        lines.insert(
            4,
            json!({"ts": 1762077601501u64, "type": "compaction", "trigger": "auto",
                   "reason": "84,000 of 100,000 tokens", "stages": ["summary"], "tokens_before": 84000,
                   "tokens_after": 9000, "summarized_messages": 3, "summary": "Asked for AAPL.",
                   "messages": []}),
        );
        lines.insert(5, json!({"type": "from_the_future"}));
        lines.push(
            json!({"ts": 1762077604000u64, "type": "turn_end", "turn": 3, "stop_reason": "end_turn",
                          "usage": {"input_tokens": 1, "output_tokens": 0}}),
        );
        let t = trajectory(&code_run(), Some(&lines));
        assert_eq!(validate(&t), Ok(()), "{t:#}");
        let steps = t["steps"].as_array().unwrap();
        assert_eq!(steps[2]["source"], "system");
        assert_eq!(
            steps[2]["extra"]["context_management"]["boundary"],
            "replace"
        );
        assert_eq!(
            steps[2]["observation"]["results"][0]["content"],
            "Asked for AAPL."
        );
        assert_eq!(steps.last().unwrap()["message"], "");
        assert_eq!(steps.last().unwrap()["metrics"]["prompt_tokens"], 1);
        assert!(t["notes"].as_str().unwrap().contains("1 unreadable"));
    }

    #[test]
    fn jsonl_has_one_trajectory_a_line_and_files_go_where_harbor_puts_them() {
        let runs = [run("quote", "mcp", 0, Status::Passed), code_run()];
        let jsonl = export_jsonl(&runs, |r| (r.variant == "code").then(transcript));
        let lines: Vec<Value> = jsonl
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["session_id"], "s-1");

        let dir = tempfile::tempdir().unwrap();
        let runs_dir = dir.path().join("out");
        let transcript_path = runs_dir.join(runs[1].transcript.as_ref().unwrap());
        std::fs::create_dir_all(transcript_path.parent().unwrap()).unwrap();
        let text: String = transcript().iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(&transcript_path, format!("{text}{{\"torn")).unwrap();
        let written = write_trajectories(&runs, &runs_dir, &dir.path().join("atif")).unwrap();
        assert_eq!(
            written[1],
            dir.path().join("atif/quote__code__0/agent/trajectory.json")
        );
        let t: Value =
            serde_json::from_str(&std::fs::read_to_string(&written[1]).unwrap()).unwrap();
        assert_eq!(t["session_id"], "s-1");
        let t: Value =
            serde_json::from_str(&std::fs::read_to_string(&written[0]).unwrap()).unwrap();
        assert_eq!(t["session_id"], "quote/mcp/0");
        assert_eq!(path_safe("../x/y"), ".._x_y");
        assert_eq!(path_safe(".."), "_");
    }

    #[test]
    fn milliseconds_read_as_utc_dates() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(1_762_077_600_001), "2025-11-02T10:00:00.001Z");
        assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn the_validator_refuses_what_harbor_refuses() {
        let good = trajectory(&run("quote", "mcp", 0, Status::Passed), None);
        let broken = |f: &dyn Fn(&mut Value)| {
            let mut t = good.clone();
            f(&mut t);
            validate(&t).unwrap_err()
        };
        assert!(broken(&|t| t["steps"][1]["step_id"] = json!(5)).contains("step_id"));
        assert!(broken(&|t| t["surprise"] = json!(1)).contains("surprise"));
        assert!(broken(&|t| t["steps"][0]["source"] = json!("user")).contains("only applicable"));
        assert!(
            broken(
                &|t| t["steps"][0]["observation"]["results"][0]["source_call_id"] = json!("nope")
            )
            .contains("nope")
        );
        assert!(
            broken(&|t| t["steps"][0]["tool_calls"][0]["arguments"] = json!("x"))
                .contains("arguments")
        );
        assert!(broken(&|t| t["steps"][0]["timestamp"] = json!("yesterday")).contains("timestamp"));
        let no_version = broken(&|t| {
            t["agent"].as_object_mut().unwrap().remove("version");
        });
        assert!(no_version.contains("agent.version"), "{no_version}");
    }

    // ---- a validator with the rules of Harbor's Pydantic models (ATIF-v1.7) ----

    type Check = Result<(), String>;

    const VERSIONS: [&str; 8] = [
        "ATIF-v1.0",
        "ATIF-v1.1",
        "ATIF-v1.2",
        "ATIF-v1.3",
        "ATIF-v1.4",
        "ATIF-v1.5",
        "ATIF-v1.6",
        "ATIF-v1.7",
    ];

    fn object<'a>(
        v: &'a Value,
        at: &str,
        allowed: &[&str],
        required: &[&str],
    ) -> Result<&'a Map<String, Value>, String> {
        let map = v.as_object().ok_or(format!("{at}: not an object"))?;
        for key in map.keys() {
            if !allowed.contains(&key.as_str()) {
                return Err(format!("{at}.{key}: extra fields not permitted"));
            }
        }
        for key in required {
            if map.get(*key).is_none_or(Value::is_null) {
                return Err(format!("{at}.{key}: field required"));
            }
        }
        Ok(map)
    }

    fn kind(v: Option<&Value>, at: &str, ok: fn(&Value) -> bool, what: &str) -> Check {
        match v {
            Some(v) if !v.is_null() && !ok(v) => Err(format!("{at}: not {what}: {v}")),
            _ => Ok(()),
        }
    }

    fn int(v: Option<&Value>, at: &str) -> Check {
        kind(v, at, |v| v.is_u64(), "a non-negative integer")
    }

    fn validate(t: &Value) -> Check {
        let root = object(
            t,
            "trajectory",
            &[
                "schema_version",
                "session_id",
                "trajectory_id",
                "agent",
                "steps",
                "notes",
                "final_metrics",
                "continued_trajectory_ref",
                "extra",
                "subagent_trajectories",
            ],
            &["schema_version", "agent", "steps"],
        )?;
        let version = root["schema_version"].as_str().unwrap_or("");
        if !VERSIONS.contains(&version) {
            return Err(format!("schema_version: {version} is not an ATIF version"));
        }
        for key in ["session_id", "trajectory_id", "notes"] {
            kind(root.get(key), key, Value::is_string, "a string")?;
        }
        kind(root.get("extra"), "extra", Value::is_object, "an object")?;
        let agent = object(
            &root["agent"],
            "agent",
            &["name", "version", "model_name", "tool_definitions", "extra"],
            &["name", "version"],
        )?;
        for key in ["name", "version", "model_name"] {
            kind(
                agent.get(key),
                &format!("agent.{key}"),
                Value::is_string,
                "a string",
            )?;
        }
        kind(
            agent.get("extra"),
            "agent.extra",
            Value::is_object,
            "an object",
        )?;
        let steps = root["steps"].as_array().ok_or("steps: not an array")?;
        if steps.is_empty() {
            return Err("steps: at least 1 item".into());
        }
        let iso =
            regex::Regex::new(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
                .unwrap();
        for (i, step) in steps.iter().enumerate() {
            let at = format!("steps[{i}]");
            let s = object(
                step,
                &at,
                &[
                    "step_id",
                    "timestamp",
                    "source",
                    "model_name",
                    "reasoning_effort",
                    "message",
                    "reasoning_content",
                    "tool_calls",
                    "observation",
                    "metrics",
                    "is_copied_context",
                    "llm_call_count",
                    "extra",
                ],
                &["step_id", "source", "message"],
            )?;
            if s["step_id"].as_u64() != Some(i as u64 + 1) {
                return Err(format!(
                    "{at}.step_id: expected {} (sequential from 1), got {}",
                    i + 1,
                    s["step_id"]
                ));
            }
            if let Some(ts) = s.get("timestamp").and_then(Value::as_str)
                && !iso.is_match(ts)
            {
                return Err(format!("{at}.timestamp: Invalid ISO 8601 timestamp: {ts}"));
            }
            kind(
                s.get("timestamp"),
                &format!("{at}.timestamp"),
                Value::is_string,
                "a string",
            )?;
            let source = s["source"].as_str().unwrap_or("");
            if !["system", "user", "agent"].contains(&source) {
                return Err(format!(
                    "{at}.source: {source} is not system, user or agent"
                ));
            }
            if source != "agent" {
                for key in [
                    "model_name",
                    "reasoning_effort",
                    "reasoning_content",
                    "tool_calls",
                    "metrics",
                ] {
                    if s.get(key).is_some_and(|v| !v.is_null()) {
                        return Err(format!(
                            "{at}: Field '{key}' is only applicable when source is 'agent'"
                        ));
                    }
                }
            }
            kind(
                s.get("message"),
                &format!("{at}.message"),
                |v| v.is_string() || v.is_array(),
                "a string or parts",
            )?;
            kind(
                s.get("reasoning_content"),
                &format!("{at}.reasoning_content"),
                Value::is_string,
                "a string",
            )?;
            int(s.get("llm_call_count"), &format!("{at}.llm_call_count"))?;
            kind(
                s.get("extra"),
                &format!("{at}.extra"),
                Value::is_object,
                "an object",
            )?;
            let mut ids = Vec::new();
            if let Some(calls) = s.get("tool_calls").filter(|v| !v.is_null()) {
                let calls = calls
                    .as_array()
                    .ok_or(format!("{at}.tool_calls: not an array"))?;
                for (j, call) in calls.iter().enumerate() {
                    let at = format!("{at}.tool_calls[{j}]");
                    let c = object(
                        call,
                        &at,
                        &["tool_call_id", "function_name", "arguments", "extra"],
                        &["tool_call_id", "function_name", "arguments"],
                    )?;
                    let id = c["tool_call_id"]
                        .as_str()
                        .ok_or(format!("{at}.tool_call_id: not a string"))?;
                    if ids.contains(&id) {
                        return Err(format!("{at}: duplicate tool_call_id '{id}'"));
                    }
                    ids.push(id);
                    kind(
                        c.get("function_name"),
                        &format!("{at}.function_name"),
                        Value::is_string,
                        "a string",
                    )?;
                    kind(
                        c.get("arguments"),
                        &format!("{at}.arguments"),
                        Value::is_object,
                        "an object",
                    )?;
                }
            }
            if let Some(obs) = s.get("observation").filter(|v| !v.is_null()) {
                let o = object(
                    obs,
                    &format!("{at}.observation"),
                    &["results"],
                    &["results"],
                )?;
                let results = o["results"]
                    .as_array()
                    .ok_or(format!("{at}.observation.results: not an array"))?;
                for (j, result) in results.iter().enumerate() {
                    let at = format!("{at}.observation.results[{j}]");
                    let r = object(
                        result,
                        &at,
                        &[
                            "source_call_id",
                            "content",
                            "subagent_trajectory_ref",
                            "extra",
                        ],
                        &[],
                    )?;
                    if let Some(id) = r.get("source_call_id").and_then(Value::as_str)
                        && !ids.contains(&id)
                    {
                        return Err(format!(
                            "{at}: source_call_id '{id}' is not found in the step's tool_calls"
                        ));
                    }
                    kind(
                        r.get("content"),
                        &format!("{at}.content"),
                        |v| v.is_string() || v.is_array(),
                        "a string or parts",
                    )?;
                    kind(
                        r.get("extra"),
                        &format!("{at}.extra"),
                        Value::is_object,
                        "an object",
                    )?;
                }
            }
            if let Some(m) = s.get("metrics").filter(|v| !v.is_null()) {
                let at = format!("{at}.metrics");
                let m = object(
                    m,
                    &at,
                    &[
                        "prompt_tokens",
                        "completion_tokens",
                        "cached_tokens",
                        "cost_usd",
                        "prompt_token_ids",
                        "completion_token_ids",
                        "logprobs",
                        "extra",
                    ],
                    &[],
                )?;
                for key in ["prompt_tokens", "completion_tokens", "cached_tokens"] {
                    int(m.get(key), &format!("{at}.{key}"))?;
                }
                kind(
                    m.get("extra"),
                    &format!("{at}.extra"),
                    Value::is_object,
                    "an object",
                )?;
            }
        }
        if let Some(fm) = root.get("final_metrics").filter(|v| !v.is_null()) {
            let fm = object(
                fm,
                "final_metrics",
                &[
                    "total_prompt_tokens",
                    "total_completion_tokens",
                    "total_cached_tokens",
                    "total_cost_usd",
                    "total_steps",
                    "extra",
                ],
                &[],
            )?;
            for key in [
                "total_prompt_tokens",
                "total_completion_tokens",
                "total_cached_tokens",
                "total_steps",
            ] {
                int(fm.get(key), &format!("final_metrics.{key}"))?;
            }
            kind(
                fm.get("extra"),
                "final_metrics.extra",
                Value::is_object,
                "an object",
            )?;
        }
        Ok(())
    }
}
