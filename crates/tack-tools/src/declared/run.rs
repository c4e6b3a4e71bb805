//! One call of a declared tool: the argv started through the shared
//! process runner (in the OS sandbox when the session has one), stopped
//! with its whole process group at the timeout or on cancel, and its
//! output read as the declaration says.

use serde_json::{Value, json};
use tack_process::{Ending, Hold, Spec, Stdin, Streams, Taken};
use tack_tool::{ToolContext, ToolError, ToolOutput};

use super::{Declaration, OutputKind};
use crate::bash::output::taken_text;
use crate::bash::sandbox::ShellSandbox;

/// How much of stderr an error quotes (its end: where programs say why).
const STDERR_TAIL: usize = 2000;

/// The structured result of `output: "lines"`.
pub(crate) fn lines_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "lines": {"type": "array", "items": {"type": "string"}},
            "exitCode": {"type": "integer"}
        },
        "required": ["lines", "exitCode"]
    })
}

pub(crate) async fn call(
    decl: &Declaration,
    sandbox: Option<&ShellSandbox>,
    input: &Value,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let argv = decl.argv(input)?;
    let cwd = decl.cwd.clone().unwrap_or_else(|| ctx.cwd.clone());
    if !cwd.is_dir() {
        return Err(ToolError::Unavailable(format!(
            "its working directory {} does not exist",
            cwd.display()
        )));
    }
    let mut spec = Spec::new(&argv[0])
        .args(&argv[1..])
        .cwd(&cwd)
        .streams(Streams::Separate);
    for (k, v) in &decl.env {
        spec = spec.env(k, v);
    }
    if let Some(property) = &decl.stdin
        && let Some(value) = input.get(property).filter(|v| !v.is_null())
    {
        let bytes = match value {
            Value::String(s) => s.clone().into_bytes(),
            other => other.to_string().into_bytes(),
        };
        spec = spec.stdin(Stdin::Bytes(bytes));
    }
    let mut note = None;
    if let Some(sandbox) = sandbox {
        let (wrapped, why) = sandbox.wrap(spec, &[]).await?;
        spec = wrapped;
        note = why;
    }
    let process = tack_process::spawn(spec).map_err(|e| {
        ToolError::Unavailable(format!(
            "could not start {}: {}",
            decl.program.display(),
            e.io_error()
        ))
    })?;
    let ending = process.wait(Some(decl.timeout), Some(&ctx.cancel)).await;
    // Whatever the leader left running in its group dies with it: a
    // declared command has no background jobs. (Checking is one syscall;
    // what left the group is found by its tag when tack ends.)
    let group = process.group();
    if !group.is_empty() {
        group.kill();
    }
    let _ = process
        .output_closed(std::time::Duration::from_millis(500))
        .await;
    let stdout = process.stdout().take(Hold::Nothing);
    let stderr = process
        .stderr()
        .map(|e| e.take(Hold::Nothing))
        .map(taken_text)
        .unwrap_or_default();
    let exit = match ending {
        Ending::TimedOut(_) => return Err(ToolError::Timeout(decl.timeout)),
        Ending::Cancelled(_) => {
            return Err(ToolError::Interrupted(
                "the call was cancelled and the command stopped".into(),
            ));
        }
        Ending::Lost(why) => {
            return Err(ToolError::Internal(format!(
                "waiting for the command failed: {why}"
            )));
        }
        Ending::Exited(exit) => exit,
        _ => {
            return Err(ToolError::Internal(
                "the command ended in an unknown way".into(),
            ));
        }
    };
    let code = match (exit.code(), exit.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => {
            let name = tack_process::signal_name(signal).unwrap_or("a signal");
            return Err(ToolError::Failed(format!(
                "`{}` was killed by {name}{}",
                shown_short(&decl.program_written, &argv),
                stderr_part(&stderr)
            )));
        }
        (None, None) => {
            return Err(ToolError::Internal(
                "the command's exit status is unknown".into(),
            ));
        }
    };
    if code != 0 {
        let class = decl.exit_codes.get(&code);
        let what = format!(
            "`{}` exited with code {code}{}{}",
            shown_short(&decl.program_written, &argv),
            class
                .and_then(|c| c.message.as_deref())
                .map(|m| format!(": {m}"))
                .unwrap_or_default(),
            stderr_part(&stderr)
        );
        match class.map(|c| c.class.as_str()) {
            Some("ok") => {}
            Some("invalid_input") => return Err(ToolError::InvalidInput(what)),
            Some("denied") => return Err(ToolError::Denied(what)),
            Some("unavailable") => return Err(ToolError::Unavailable(what)),
            Some("transient") => return Err(ToolError::Transient(what)),
            Some("internal") => return Err(ToolError::Internal(what)),
            _ => return Err(ToolError::Failed(what)),
        }
    }
    result(decl, stdout, &stderr, code, note)
}

/// The result of a run that counts as success.
fn result(
    decl: &Declaration,
    stdout: Taken,
    stderr: &str,
    code: i32,
    note: Option<String>,
) -> Result<ToolOutput, ToolError> {
    let cut = stdout.omitted > 0;
    let text = taken_text(stdout);
    let with_notes = |body: String| {
        let mut body = body;
        if code != 0 {
            body.push_str(&format!("\n(exit code {code})"));
        }
        if let Some(note) = &note {
            body.push('\n');
            body.push_str(note);
        }
        body
    };
    match decl.output {
        OutputKind::Json => {
            if cut {
                return Err(ToolError::Failed(
                    "the command printed more JSON than tack keeps in memory; ask for less".into(),
                ));
            }
            let value: Value = serde_json::from_str(&text).map_err(|e| {
                let start: String = text.chars().take(200).collect();
                ToolError::Failed(format!(
                    "the command was to print JSON but its output does not parse ({e}); it begins: {start:?}{}",
                    stderr_part(stderr)
                ))
            })?;
            if let Some(validator) = &decl.output_validator
                && let Some(e) = validator.iter_errors(&value).next()
            {
                return Err(ToolError::Internal(format!(
                    "the command's JSON does not match the tool's outputSchema at `{}`: {e}",
                    e.instance_path()
                )));
            }
            let body = serde_json::to_string(&value).unwrap_or(text);
            Ok(ToolOutput::text(with_notes(body)).with_structured(value))
        }
        OutputKind::Lines => {
            let lines: Vec<&str> = text.lines().collect();
            let structured = json!({"lines": lines, "exitCode": code});
            let body = if text.is_empty() {
                "(no lines)".to_owned()
            } else {
                text.clone()
            };
            Ok(ToolOutput::text(with_notes(body)).with_structured(structured))
        }
        OutputKind::Text => {
            let body = match (text.is_empty(), stderr.trim().is_empty()) {
                (false, _) => text,
                (true, false) => format!("(nothing on stdout; stderr:)\n{}", stderr.trim_end()),
                (true, true) => "(no output)".to_owned(),
            };
            Ok(ToolOutput::text(with_notes(body)).with_structured(json!({"exitCode": code})))
        }
    }
}

fn stderr_part(stderr: &str) -> String {
    let trimmed = stderr.trim_end();
    if trimmed.is_empty() {
        return String::new();
    }
    let start = trimmed.len().saturating_sub(STDERR_TAIL);
    let start = tack_tool::floor_char(trimmed, start);
    let cut = if start > 0 { "…" } else { "" };
    format!("\nstderr:\n{cut}{}", &trimmed[start..])
}

/// The argv for a message: the program as written in the settings (not
/// where it resolved to, which differs between machines), long values
/// shortened.
fn shown_short(program: &str, argv: &[String]) -> String {
    std::iter::once(program)
        .chain(argv.iter().skip(1).map(String::as_str))
        .map(|a| {
            if a.chars().count() > 80 {
                let head: String = a.chars().take(77).collect();
                format!("{head}…")
            } else {
                a.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
