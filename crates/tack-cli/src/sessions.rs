//! `tack sessions`: the saved sessions, newest first.

use std::time::{Duration, UNIX_EPOCH};

use serde_json::json;
use tack_agent::transcript;

use crate::{Failure, exit};

pub fn list(args: &crate::cli::SessionsArgs) -> Result<u8, Failure> {
    let env = |k: &str| std::env::var(k).ok();
    let dir = transcript::sessions_dir(&transcript::state_dir(&env));
    let cwd = std::env::current_dir()
        .map_err(Failure::internal)?
        .to_string_lossy()
        .into_owned();
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
        println!("{}", serde_json::Value::Array(rows));
        return Ok(exit::OK);
    }
    if sessions.is_empty() {
        eprintln!("no sessions yet in {}", dir.display());
        return Ok(exit::OK);
    }
    println!(
        "{:<36}  {:<20}  {:>5}  {:<24}  PROMPT",
        "SESSION", "UPDATED (UTC)", "TURNS", "MODEL"
    );
    for s in &sessions {
        let when =
            humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(s.updated_ms))
                .to_string();
        let title: String = s.title.replace('\n', " ").chars().take(50).collect();
        println!(
            "{:<36}  {:<20}  {:>5}  {:<24}  {title}",
            s.session_id,
            when.trim_end_matches('Z').replace('T', " "),
            s.turns,
            s.model
        );
    }
    Ok(exit::OK)
}
