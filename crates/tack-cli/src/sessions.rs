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

/// `tack log [SESSION]`: the audit trail of a session's tool calls, with
/// each sub-agent's calls indented under the Agent call that ran it. SESSION
/// may also be a sub-agent's id or a transcript's path.
pub fn log(args: &crate::cli::LogArgs) -> Result<u8, Failure> {
    let env = |k: &str| std::env::var(k).ok();
    let dir = transcript::sessions_dir(&transcript::state_dir(&env));
    let path = match &args.session {
        Some(id) if std::path::Path::new(id).is_file() => std::path::PathBuf::from(id),
        Some(id) => match transcript::find(&dir, id) {
            Ok(path) => path,
            Err(e) => find_subagent(&dir, id).ok_or_else(|| Failure::usage(e))?,
        },
        None => {
            let cwd = current_dir()?;
            transcript::latest_for(&dir, &cwd.to_string_lossy())
                .map_err(Failure::usage)?
                .path
        }
    };
    let log = read_log(&path)?;
    if args.json {
        print_json(&log, None);
        // Then one row per model request and the session's total.
        let mut total = tack_protocol::Usage::default();
        for (n, (ts, usage)) in log.turns.iter().enumerate() {
            total.add(usage);
            outln!(
                "{}",
                json!({"finished_ms": ts, "request": n + 1, "usage": usage})
            );
        }
        let mut with_subagents = total.clone();
        for sub in log.subagents.values() {
            with_subagents.add(&sub.usage);
        }
        outln!(
            "{}",
            json!({"requests": log.turns.len(), "session_usage": total, "usage_with_subagents": with_subagents})
        );
        return Ok(exit::OK);
    }
    if let Some(start) = &log.started_as {
        outln!(
            "sub-agent {} ({}) of session {}, Agent call [{}]: {}",
            start.agent_id,
            start.agent_type,
            start.parent_session_id,
            start.parent_tool_use_id,
            start.description
        );
    }
    if log.rows.is_empty() {
        eprintln!("no tool calls in {}", path.display());
    }
    print_rows(&log, 0);
    print_usage(&log.turns);
    if !log.subagents.is_empty() {
        let mut total = tack_protocol::Usage::default();
        for sub in log.subagents.values() {
            total.add(&sub.usage);
        }
        outln!(
            "sub-agents: {}, {} / {} / {} / {} tokens (counted in the session's cost)",
            log.subagents.len(),
            total.input_tokens,
            total.cache_read_input_tokens,
            total.cache_creation_input_tokens,
            total.output_tokens
        );
    }
    Ok(exit::OK)
}

/// A sub-agent's transcript by its id (a unique prefix is enough):
/// `<sessions>/<parent>/subagents/agent-<id>.jsonl`.
fn find_subagent(dir: &std::path::Path, id: &str) -> Option<std::path::PathBuf> {
    let id = id.strip_prefix("agent-").unwrap_or(id);
    let mut found = Vec::new();
    for parent in std::fs::read_dir(dir).ok()?.filter_map(Result::ok) {
        let Ok(subs) = std::fs::read_dir(parent.path().join("subagents")) else {
            continue;
        };
        for file in subs.filter_map(Result::ok).map(|e| e.path()) {
            let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            if stem
                .strip_prefix("agent-")
                .is_some_and(|s| s.starts_with(id))
            {
                found.push(file);
            }
        }
    }
    (found.len() == 1).then(|| found.remove(0))
}

type Row = (
    u64,
    String,
    String,
    tack_protocol::ToolOutcome,
    bool,
    u64,
    Option<Box<tack_protocol::AuditRecord>>,
);

/// What `tack log` shows of one transcript.
struct Log {
    rows: Vec<Row>,
    /// Token use per model request, in order: (finished_ms, usage).
    turns: Vec<(u64, tack_protocol::Usage)>,
    /// The sub-agents started here, by the Agent call's tool_use id.
    subagents: std::collections::HashMap<String, Subagent>,
    /// Set when this transcript is a sub-agent's: its first event.
    started_as: Option<Started>,
    /// Where and why the conversation was compacted: (ms, line, json).
    compactions: Vec<(u64, String, serde_json::Value)>,
}

struct Started {
    agent_id: String,
    agent_type: String,
    description: String,
    parent_session_id: String,
    parent_tool_use_id: String,
}

struct Subagent {
    agent_id: String,
    agent_type: String,
    path: std::path::PathBuf,
    usage: tack_protocol::Usage,
    turns: u32,
    status: Option<tack_protocol::RunStatus>,
}

fn read_log(path: &std::path::Path) -> Result<Log, Failure> {
    use tack_protocol::SessionEvent;
    let events = transcript::read_events(path).map_err(Failure::internal)?;
    let mut log = Log {
        rows: Vec::new(),
        turns: Vec::new(),
        subagents: Default::default(),
        started_as: None,
        compactions: Vec::new(),
    };
    for (n, (ts, event)) in events.into_iter().enumerate() {
        match event {
            SessionEvent::TurnEnd { usage, .. } => log.turns.push((ts, usage)),
            SessionEvent::Compaction {
                trigger,
                reason,
                stages,
                tokens_before,
                tokens_after,
                cleared_tool_results,
                summarized_messages,
                ..
            } => {
                let when = humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ts));
                let freed = tokens_before.saturating_sub(tokens_after);
                let group = tack_agent::context::group;
                let line = format!(
                    "{when}  compacted ({trigger}: {reason}): {} → {} tokens, freed {}; {}: {cleared_tool_results} tool result(s) cleared, {summarized_messages} message(s) summarised",
                    group(tokens_before),
                    group(tokens_after),
                    group(freed),
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
                        "freed_tokens": freed,
                        "cleared_tool_results": cleared_tool_results,
                        "summarized_messages": summarized_messages,
                    },
                });
                log.compactions.push((ts, line, value));
            }
            SessionEvent::ToolResult {
                tool_use_id,
                name,
                outcome,
                is_error,
                duration_ms,
                audit,
                ..
            } => log
                .rows
                .push((ts, tool_use_id, name, outcome, is_error, duration_ms, audit)),
            SessionEvent::SubagentStart {
                agent_id,
                agent_type,
                description,
                parent_session_id,
                parent_tool_use_id,
                transcript_path,
            } => {
                if n == 0 {
                    log.started_as = Some(Started {
                        agent_id,
                        agent_type,
                        description,
                        parent_session_id,
                        parent_tool_use_id,
                    });
                } else {
                    log.subagents.insert(
                        parent_tool_use_id,
                        Subagent {
                            agent_id,
                            agent_type,
                            path: transcript_path.into(),
                            usage: Default::default(),
                            turns: 0,
                            status: None,
                        },
                    );
                }
            }
            SessionEvent::SubagentStop {
                parent_tool_use_id,
                status,
                turns,
                usage,
                ..
            } => {
                if let Some(sub) = log.subagents.get_mut(&parent_tool_use_id) {
                    sub.usage = usage;
                    sub.turns = turns;
                    sub.status = Some(status);
                }
            }
            _ => {}
        }
    }
    Ok(log)
}

/// The rows of `log`, sub-agents' calls under their Agent call, `depth` deep.
fn print_rows(log: &Log, depth: usize) {
    let pad = "    ".repeat(depth);
    let mut compactions = log.compactions.iter().peekable();
    // Tools found by a search so far: a later call of one says so.
    let mut found: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (ts, id, name, outcome, _, duration_ms, audit) in &log.rows {
        while let Some((_, line, _)) = compactions.next_if(|(at, _, _)| at <= ts) {
            outln!("{pad}{line}");
        }
        let Some(a) = audit else {
            outln!("{pad}{name} [{id}]  not run ({outcome:?})");
            continue;
        };
        let when =
            humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(a.started_ms));
        let input = serde_json::to_string(&a.input).unwrap_or_default();
        let input: String = input.chars().take(160).collect();
        let discovered = if found.contains(name.as_str()) {
            "  (found by search)"
        } else {
            ""
        };
        outln!("{pad}{when}  {name} [{id}]  {outcome:?} in {duration_ms} ms{discovered}");
        outln!("{pad}    input: {input}");
        if !a.rewritten_by.is_empty() {
            outln!("{pad}    rewritten by: {}", a.rewritten_by.join(", "));
        }
        if let Some(caller) = &a.caller {
            outln!(
                "{pad}    called by: {} [{}]",
                caller.tool,
                caller.tool_use_id
            );
        }
        outln!("{pad}    decision: {} by {}", a.decision, a.decided_by);
        if let Some(argv) = &a.argv {
            outln!("{pad}    ran: {}", tack_policy::command_text(argv));
        }
        if let Some(sandbox) = &a.sandbox {
            outln!("{pad}    sandbox: {sandbox}");
        }
        if let Some(skill) = &a.skill {
            outln!(
                "{pad}    skill: {} ({}, {}), ~{} tokens{}",
                skill.name,
                skill.scope,
                skill.location,
                skill.tokens,
                if skill.repeat {
                    ", already loaded: a reminder was sent"
                } else {
                    ""
                }
            );
            if !skill.allowed_tools.is_empty() {
                outln!(
                    "{pad}    allowed-tools (not a grant): {}",
                    skill.allowed_tools.join(" ")
                );
            }
        }
        if let Some(d) = &a.discovery {
            outln!(
                "{pad}    searched {:?} over {} deferred tools",
                d.query,
                d.searched
            );
            if d.found.is_empty() {
                outln!("{pad}    found nothing");
            } else {
                outln!("{pad}    found: {}", d.found.join(", "));
            }
            if !d.loaded.is_empty() {
                outln!("{pad}    loaded: {}", d.loaded.join(", "));
            }
            found.extend(d.found.iter().map(String::as_str));
        }
        if let Some(how) = a.interrupted {
            outln!("{pad}    interrupted: {}", how.as_str());
        }
        if !a.artifacts.is_empty() {
            outln!("{pad}    artifacts: {}", a.artifacts.join(", "));
        }
        outln!("{pad}    definition: {}", a.definition_hash);
        if let Some(sub) = log.subagents.get(id) {
            print_subagent(sub, depth + 1);
        }
    }
    for (_, line, _) in compactions {
        outln!("{pad}{line}");
    }
    if let Some(line) = discovery_summary(log) {
        outln!("{pad}{line}");
    }
}

/// `tool search: 2 searches found 6 tools; 1 of them called (mcp__x__y)`,
/// when the session searched.
fn discovery_summary(log: &Log) -> Option<String> {
    let mut searches = 0;
    let mut found: Vec<&str> = Vec::new();
    let mut called: Vec<&str> = Vec::new();
    for (_, _, name, _, _, _, audit) in &log.rows {
        if let Some(d) = audit.as_ref().and_then(|a| a.discovery.as_ref()) {
            searches += 1;
            for tool in &d.found {
                if !found.contains(&tool.as_str()) {
                    found.push(tool);
                }
            }
        } else if found.contains(&name.as_str()) && !called.contains(&name.as_str()) {
            called.push(name);
        }
    }
    (searches > 0).then(|| {
        let mut line = format!(
            "tool search: {searches} search{} found {} tool{}; {} of them called",
            if searches == 1 { "" } else { "es" },
            found.len(),
            if found.len() == 1 { "" } else { "s" },
            called.len()
        );
        if !called.is_empty() {
            line.push_str(&format!(" ({})", called.join(", ")));
        }
        line
    })
}

fn print_subagent(sub: &Subagent, depth: usize) {
    let pad = "    ".repeat(depth);
    let u = &sub.usage;
    outln!(
        "{pad}sub-agent {} ({}): {}, {} requests, {} / {} / {} / {} tokens, transcript {}",
        sub.agent_id,
        sub.agent_type,
        sub.status.map_or("unfinished", |s| s.as_str()),
        sub.turns,
        u.input_tokens,
        u.cache_read_input_tokens,
        u.cache_creation_input_tokens,
        u.output_tokens,
        sub.path.display()
    );
    match read_log(&sub.path) {
        Ok(log) => print_rows(&log, depth),
        Err(_) => outln!("{pad}    (its transcript cannot be read)"),
    }
}

/// One JSON object per call; a sub-agent's calls follow its Agent call and
/// carry its `agent_id` and the Agent call's id as `parent_tool_use_id`.
fn print_json(log: &Log, agent: Option<(&str, &str)>) {
    for (_, _, value) in &log.compactions {
        outln!("{value}");
    }
    for (ts, id, name, outcome, is_error, duration_ms, audit) in &log.rows {
        let mut row = json!({
            "finished_ms": ts,
            "tool_use_id": id,
            "tool": name,
            "outcome": outcome,
            "is_error": is_error,
            "duration_ms": duration_ms,
            "audit": audit,
        });
        if let (Some((agent_id, parent)), Some(obj)) = (agent, row.as_object_mut()) {
            obj.insert("agent_id".into(), agent_id.into());
            obj.insert("parent_tool_use_id".into(), parent.into());
        }
        outln!("{row}");
        if let Some(sub) = log.subagents.get(id)
            && let Ok(sub_log) = read_log(&sub.path)
        {
            print_json(&sub_log, Some((&sub.agent_id, id)));
        }
    }
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
    let share = total.cache_read_percent().unwrap_or(0.0);
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
