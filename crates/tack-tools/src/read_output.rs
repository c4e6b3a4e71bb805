//! ReadOutput: reads back any part of an output that was cut to fit a budget.

use std::fmt::Write as _;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use crate::artifacts::{ArtifactError, ArtifactStore};

/// The most ReadOutput returns in one call (about 10,000 tokens).
pub const READ_OUTPUT_MAX_BYTES: usize = 40_000;
const MAX_MATCHES: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadOutputInput {
    /// The artifact id from the cut-output marker, e.g. "art_toolu_01A".
    pub artifact: String,
    /// First line to return (1-based). Use with end_line, e.g. 200 and 400.
    #[serde(default)]
    pub start_line: Option<usize>,
    /// Last line to return (inclusive).
    #[serde(default)]
    pub end_line: Option<usize>,
    /// First byte to return (0-based), for outputs without useful lines.
    #[serde(default)]
    pub start_byte: Option<usize>,
    /// Byte to stop before (exclusive).
    #[serde(default)]
    pub end_byte: Option<usize>,
    /// A regular expression: return only the matching lines, numbered, e.g. "error|warning".
    #[serde(default)]
    pub pattern: Option<String>,
}

/// Reads any line range, byte range or the matching lines of an artifact.
#[derive(Debug, Clone)]
pub struct ReadOutput {
    store: Arc<ArtifactStore>,
}

impl ReadOutput {
    pub fn new(store: Arc<ArtifactStore>) -> Self {
        Self { store }
    }
}

#[async_trait]
impl TypedTool for ReadOutput {
    fn output(&self) -> tack_tool::OutputBehaviour {
        tack_tool::OutputBehaviour::self_limited()
    }
    type Input = ReadOutputInput;

    fn name(&self) -> &str {
        "ReadOutput"
    }

    fn description(&self) -> &str {
        "Reads part of a tool output that was cut to fit the context budget. A cut result ends with a marker naming \
         its artifact id and size; pass that id with a line range (start_line, end_line), a byte range (start_byte, \
         end_byte) or a regex pattern (returns matching lines with their numbers). Returns numbered lines like Read. \
         Use it instead of re-running a command or search just to see more of its output."
    }

    fn is_concurrency_safe(&self, _input: &ReadOutputInput) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn validate(&self, input: &ReadOutputInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        let lines = input.start_line.is_some() || input.end_line.is_some();
        let bytes = input.start_byte.is_some() || input.end_byte.is_some();
        let modes = usize::from(lines) + usize::from(bytes) + usize::from(input.pattern.is_some());
        if modes > 1 {
            return Err(ToolError::InvalidInput(
                "give either a line range, a byte range or a pattern, not several".into(),
            ));
        }
        if input.start_line == Some(0) {
            return Err(ToolError::InvalidInput(
                "start_line is 1-based; use 1 for the first line".into(),
            ));
        }
        Ok(())
    }

    async fn call(
        &self,
        input: ReadOutputInput,
        _ctx: ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let text = self.store.read(&input.artifact).map_err(|e| match e {
            ArtifactError::NotFound { .. } | ArtifactError::BadId(_) => ToolError::InvalidInput(
                format!("{e}. Use the artifact id exactly as the cut-output marker gives it."),
            ),
            other => ToolError::Unavailable(other.to_string()),
        })?;
        let (mode, out) = if let Some(pattern) = &input.pattern {
            ("pattern", grep(&text, pattern, &input.artifact)?)
        } else if input.start_byte.is_some() || input.end_byte.is_some() {
            let start = input.start_byte.unwrap_or(0);
            (
                "bytes",
                bytes(&text, start, input.end_byte, &input.artifact),
            )
        } else {
            let start = input.start_line.unwrap_or(1);
            (
                "lines",
                lines(&text, start, input.end_line, &input.artifact),
            )
        };
        // Claude Code has no such tool: tack's own shape, the text as the
        // model read it and the size of the whole artifact.
        let shown = out.content.iter().find_map(|b| match b {
            tack_protocol::ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        });
        let response = json!({
            "artifact": input.artifact,
            "mode": mode,
            "content": shown.unwrap_or_default(),
            "totalBytes": text.len(),
            "totalLines": text.lines().count(),
        });
        Ok(out.with_response(response))
    }
}

fn lines(text: &str, start: usize, end: Option<usize>, id: &str) -> ToolOutput {
    let total = text.lines().count();
    let end = end.unwrap_or(total).min(total);
    if start > total {
        return ToolOutput::text(format!(
            "{id} has {total} lines; start_line {start} is past the end."
        ));
    }
    let mut out = String::new();
    let mut last = start.saturating_sub(1);
    for (i, line) in text.lines().enumerate().take(end).skip(start - 1) {
        if out.len() + line.len() > READ_OUTPUT_MAX_BYTES {
            break;
        }
        let _ = writeln!(out, "{:>6}\t{line}", i + 1);
        last = i + 1;
    }
    if last < end {
        let _ = write!(
            out,
            "[… stopped at line {last} of {total} to stay within {READ_OUTPUT_MAX_BYTES} bytes; continue with start_line={}]",
            last + 1
        );
    } else if end < total {
        let _ = write!(out, "[lines {start}–{end} of {total}]");
    }
    ToolOutput::text(out)
}

fn bytes(text: &str, start: usize, end: Option<usize>, id: &str) -> ToolOutput {
    let total = text.len();
    if start >= total {
        return ToolOutput::text(format!(
            "{id} has {total} bytes; start_byte {start} is past the end."
        ));
    }
    let end = end
        .unwrap_or(total)
        .min(total)
        .min(start + READ_OUTPUT_MAX_BYTES);
    let (s, e) = (floor_char(text, start), floor_char(text, end.max(start)));
    let mut out = text[s..e].to_owned();
    if e < total {
        let _ = write!(
            out,
            "\n[bytes {s}–{e} of {total}; continue with start_byte={e}]"
        );
    }
    ToolOutput::text(out)
}

fn grep(text: &str, pattern: &str, id: &str) -> Result<ToolOutput, ToolError> {
    let re = regex::Regex::new(pattern)
        .map_err(|e| ToolError::InvalidInput(format!("the pattern is not a valid regex: {e}")))?;
    let mut out = String::new();
    let mut found = 0usize;
    for (i, line) in text.lines().enumerate() {
        if !re.is_match(line) {
            continue;
        }
        found += 1;
        if found <= MAX_MATCHES && out.len() + line.len() <= READ_OUTPUT_MAX_BYTES {
            let _ = writeln!(out, "{:>6}\t{line}", i + 1);
        }
    }
    if found == 0 {
        return Ok(ToolOutput::text(format!(
            "No line of {id} matches {pattern:?}."
        )));
    }
    let shown = out.lines().count();
    if shown < found {
        let _ = write!(
            out,
            "[{found} matching lines; showing the first {shown}. Use a narrower pattern or a line range.]"
        );
    }
    Ok(ToolOutput::text(out))
}

pub use tack_tool::floor_char;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_tool::ToolRegistry;
    use tokio_util::sync::CancellationToken;

    fn ctx() -> ToolContext {
        ToolContext::new(std::env::temp_dir(), "s", "t", CancellationToken::new())
    }

    async fn call(
        store: &Arc<ArtifactStore>,
        input: serde_json::Value,
    ) -> Result<String, ToolError> {
        let mut r = ToolRegistry::new();
        r.register_typed(ReadOutput::new(store.clone())).unwrap();
        let t = r.get("ReadOutput").unwrap();
        t.check_input(&input)?;
        t.tool.validate(&input, &ctx())?;
        let out = t.tool.call(input, ctx()).await?;
        Ok(match &out.content[0] {
            tack_protocol::ContentBlock::Text(t) => t.text.clone(),
            _ => panic!(),
        })
    }

    #[tokio::test]
    async fn lines_bytes_and_patterns() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::new(dir.path()));
        let text: String = (1..=1000)
            .map(|i| format!("line {i}{}\n", if i % 100 == 0 { " error" } else { "" }))
            .collect();
        let id = store.save("toolu_1", &text).unwrap();
        let out = call(
            &store,
            json!({"artifact": id, "start_line": 10, "end_line": 12}),
        )
        .await
        .unwrap();
        assert_eq!(
            out,
            "    10\tline 10\n    11\tline 11\n    12\tline 12\n[lines 10–12 of 1000]"
        );
        let out = call(
            &store,
            json!({"artifact": id, "start_byte": 0, "end_byte": 7}),
        )
        .await
        .unwrap();
        assert!(out.starts_with("line 1\n"), "{out}");
        assert!(out.contains("continue with start_byte=7"));
        let out = call(&store, json!({"artifact": id, "pattern": "error$"}))
            .await
            .unwrap();
        assert_eq!(out.lines().count(), 10);
        assert!(out.starts_with("   100\tline 100 error"));
        let err = call(
            &store,
            json!({"artifact": id, "pattern": "x", "start_line": 1}),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, ToolError::InvalidInput(_)));
        let err = call(&store, json!({"artifact": "art_missing"}))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("no artifact"), "{err}");
        let err = call(&store, json!({"artifact": id, "pattern": "("}))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("not a valid regex"), "{err}");
    }
}
