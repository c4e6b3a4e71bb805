//! `tack sessions`: the saved sessions, newest first.

use std::time::{Duration, UNIX_EPOCH};

use serde_json::json;
use tack_agent::transcript;

use crate::out::outln;
use crate::{Failure, exit};

pub fn list(args: &crate::cli::SessionsArgs) -> Result<u8, Failure> {
    let env = |k: &str| std::env::var(k).ok();
    let dir = transcript::sessions_dir(&transcript::state_dir(&env));
    let cwd = current_dir()?.to_string_lossy().into_owned();
    let sessions: Vec<_> = transcript::list(&dir)
        .into_iter()
        .filter(|s| !args.here || s.cwd == cwd)
        .collect();
    if args.json {
        let rows: Vec<_> = sessions
            .iter()
            .map(|s| {
                json!({
                    "session_id": s.session_id,
                    "cwd": s.cwd,
                    "provider": s.provider,
                    "model": s.model,
                    "started_ms": s.started_ms,
                    "updated_ms": s.updated_ms,
                    "messages": s.messages.len(),
                    "turns": s.turns,
                    "usage": s.usage,
                    "title": s.title,
                    "path": s.path,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(rows));
        return Ok(exit::OK);
    }
    if sessions.is_empty() {
        eprintln!("no sessions yet in {}", dir.display());
        return Ok(exit::OK);
    }
    outln!(
        "{:<36}  {:<20}  {:>5}  {:<24}  PROMPT",
        "SESSION",
        "UPDATED (UTC)",
        "TURNS",
        "MODEL"
    );
    for s in &sessions {
        let when =
            humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(s.updated_ms))
                .to_string();
        let title: String = s.title.replace('\n', " ").chars().take(50).collect();
        outln!(
            "{:<36}  {:<20}  {:>5}  {:<24}  {title}",
            s.session_id,
            when.trim_end_matches('Z').replace('T', " "),
            s.turns,
            s.model
        );
    }
    Ok(exit::OK)
}

/// `tack log [SESSION]`: the audit trail of a session's tool calls.
pub fn log(args: &crate::cli::LogArgs) -> Result<u8, Failure> {
    let env = |k: &str| std::env::var(k).ok();
    let dir = transcript::sessions_dir(&transcript::state_dir(&env));
    let path = match &args.session {
        Some(id) => transcript::find(&dir, id).map_err(Failure::usage)?,
        None => {
            let cwd = current_dir()?;
            transcript::latest_for(&dir, &cwd.to_string_lossy())
                .map_err(Failure::usage)?
                .path
        }
    };
    let events = transcript::read_events(&path).map_err(Failure::internal)?;
    let mut rows = Vec::new();
    // Token use per model request, in order: (finished_ms, usage).
    let mut turns: Vec<(u64, tack_protocol::Usage)> = Vec::new();
    // Where and why the conversation was compacted: (ms, line, json).
    let mut compactions: Vec<(u64, String, serde_json::Value)> = Vec::new();
    for (ts, event) in events {
        if let tack_protocol::SessionEvent::Compaction {
            trigger,
            reason,
            stages,
            tokens_before,
            tokens_after,
            cleared_tool_results,
            summarized_messages,
            ..
        } = &event
        {
            let when = humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ts));
            let line = format!(
                "{when}  compacted ({trigger}: {reason}): {} → {} tokens, freed {}; {}: {cleared_tool_results} tool result(s) cleared, {summarized_messages} message(s) summarised",
                tack_agent::context::group(*tokens_before),
                tack_agent::context::group(*tokens_after),
                tack_agent::context::group(tokens_before.saturating_sub(*tokens_after)),
                stages.join(" + "),
            );
            let value = json!({
                "finished_ms": ts,
                "compaction": {
                    "trigger": trigger,
                    "reason": reason,
                    "stages": stages,
                    "tokens_before": tokens_before,
                    "tokens_after": tokens_after,
                    "freed_tokens": tokens_before.saturating_sub(*tokens_after),
                    "cleared_tool_results": cleared_tool_results,
                    "summarized_messages": summarized_messages,
                },
            });
            compactions.push((ts, line, value));
            continue;
        }
        if let tack_protocol::SessionEvent::TurnEnd { usage, .. } = &event {
            turns.push((ts, usage.clone()));
            continue;
        }
        if let tack_protocol::SessionEvent::ToolResult {
            tool_use_id,
            name,
            outcome,
            is_error,
            duration_ms,
            audit,
            ..
        } = event
        {
            rows.push((ts, tool_use_id, name, outcome, is_error, duration_ms, audit));
        }
    }
    if args.json {
        for (_, _, value) in &compactions {
            outln!("{value}");
        }
        for (ts, id, name, outcome, is_error, duration_ms, audit) in &rows {
            outln!(
                "{}",
                json!({
                    "finished_ms": ts,
                    "tool_use_id": id,
                    "tool": name,
                    "outcome": outcome,
                    "is_error": is_error,
                    "duration_ms": duration_ms,
                    "audit": audit,
                })
            );
        }
        // Then one row per model request and the session's total.
        let mut total = tack_protocol::Usage::default();
        for (n, (ts, usage)) in turns.iter().enumerate() {
            total.add(usage);
            outln!(
                "{}",
                json!({"finished_ms": ts, "request": n + 1, "usage": usage})
            );
        }
        outln!(
            "{}",
            json!({"requests": turns.len(), "session_usage": total})
        );
        return Ok(exit::OK);
    }
    if rows.is_empty() {
        eprintln!("no tool calls in {}", path.display());
    }
    let mut pending = compactions.iter().peekable();
    for (ts, id, name, outcome, _, duration_ms, audit) in &rows {
        while let Some((_, line, _)) = pending.next_if(|(at, _, _)| at <= ts) {
            outln!("{line}");
        }
        let Some(a) = audit else {
            outln!("{name} [{id}]  not run ({outcome:?})");
            continue;
        };
        let when =
            humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(a.started_ms));
        let input = serde_json::to_string(&a.input).unwrap_or_default();
        let input: String = input.chars().take(160).collect();
        outln!("{when}  {name} [{id}]  {outcome:?} in {duration_ms} ms");
        outln!("    input: {input}");
        if !a.rewritten_by.is_empty() {
            outln!("    rewritten by: {}", a.rewritten_by.join(", "));
        }
        outln!("    decision: {} by {}", a.decision, a.decided_by);
        if let Some(how) = a.interrupted {
            outln!("    interrupted: {}", how.as_str());
        }
        if !a.artifacts.is_empty() {
            outln!("    artifacts: {}", a.artifacts.join(", "));
        }
        outln!("    definition: {}", a.definition_hash);
    }
    for (_, line, _) in pending {
        outln!("{line}");
    }
    print_usage(&turns);
    Ok(exit::OK)
}

/// Tokens per model request and for the session: input as sent uncached,
/// read from and written to the prompt cache, output.
fn print_usage(turns: &[(u64, tack_protocol::Usage)]) {
    if turns.is_empty() {
        return;
    }
    let mut total = tack_protocol::Usage::default();
    outln!("tokens per model request (input uncached / cache read / cache write / output):");
    for (n, (_, u)) in turns.iter().enumerate() {
        total.add(u);
        outln!(
            "  {:>4}  {} / {} / {} / {}",
            n + 1,
            u.input_tokens,
            u.cache_read_input_tokens,
            u.cache_creation_input_tokens,
            u.output_tokens
        );
    }
    let input =
        total.input_tokens + total.cache_read_input_tokens + total.cache_creation_input_tokens;
    let share = if input == 0 {
        0.0
    } else {
        100.0 * total.cache_read_input_tokens as f64 / input as f64
    };
    outln!(
        "session: {} requests, {} / {} / {} / {} ({share:.1}% of input read from cache)",
        turns.len(),
        total.input_tokens,
        total.cache_read_input_tokens,
        total.cache_creation_input_tokens,
        total.output_tokens
    );
}

/// The current directory as sessions record it (canonical).
fn current_dir() -> Result<std::path::PathBuf, Failure> {
    let cwd = std::env::current_dir().map_err(Failure::internal)?;
    Ok(std::fs::canonicalize(&cwd).unwrap_or(cwd))
}
