//! The output budget: one stage of the dispatch pipeline, so it covers every
//! tool (built-in, MCP, declared, library).
//!
//! A result over its tool's budget is never an error. The full text is saved as
//! an artifact of the session; the model receives the head and the tail with a
//! marker stating the total size, what was shown, the artifact id and how to
//! get more (ReadOutput), plus the tool's own hint on narrowing the query.
//! How to cut and the hint come from the tool ([`OutputBehaviour`]): this
//! stage names no tool.
//! Tokens are estimated from bytes (4 bytes a token) where no tokenizer is at hand.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use tack_protocol::ContentBlock;
use tack_tool::artifacts::{ArtifactError, ArtifactStore};
use tack_tool::{OutputBehaviour, OutputCut, floor_char};

use crate::pipeline::{BudgetStage, Budgeted};

/// Default budget of one tool result, in (estimated) tokens.
pub const DEFAULT_BUDGET_TOKENS: usize = 10_000;
/// Bytes per token used for the estimate.
pub const BYTES_PER_TOKEN: usize = 4;

/// Per-tool output budgets backed by an artifact store.
#[derive(Debug, Clone)]
pub struct OutputBudget {
    default_tokens: usize,
    per_tool: HashMap<String, usize>,
    store: Arc<ArtifactStore>,
}

impl OutputBudget {
    pub fn new(store: Arc<ArtifactStore>) -> Self {
        Self {
            default_tokens: DEFAULT_BUDGET_TOKENS,
            per_tool: HashMap::new(),
            store,
        }
    }

    pub fn default_tokens(mut self, tokens: usize) -> Self {
        self.default_tokens = tokens;
        self
    }

    /// Sets one tool's budget (e.g. from settings `outputBudgets: {"Bash": 20000}`).
    pub fn tool_tokens(mut self, tool: impl Into<String>, tokens: usize) -> Self {
        self.per_tool.insert(tool.into(), tokens);
        self
    }

    fn budget_bytes(&self, tool: &str) -> usize {
        self.per_tool
            .get(tool)
            .copied()
            .unwrap_or(self.default_tokens)
            .saturating_mul(BYTES_PER_TOKEN)
    }
}

impl BudgetStage for OutputBudget {
    fn apply(
        &self,
        tool: &str,
        output: &OutputBehaviour,
        tool_use_id: &str,
        content: Vec<ContentBlock>,
    ) -> Budgeted {
        let unchanged = |content| Budgeted {
            content,
            artifact: None,
        };
        // ReadOutput caps its own answers and points at the same artifact.
        if output.cut == OutputCut::SelfLimited {
            return unchanged(content);
        }
        let budget = self.budget_bytes(tool);
        let text_bytes: usize = content
            .iter()
            .map(|b| match b {
                ContentBlock::Text(t) => t.text.len(),
                _ => 0,
            })
            .sum();
        if text_bytes <= budget {
            return unchanged(content);
        }
        let mut full = String::with_capacity(text_bytes);
        let mut others = Vec::new();
        for block in content {
            match block {
                ContentBlock::Text(t) => {
                    if !full.is_empty() && !full.ends_with('\n') {
                        full.push('\n');
                    }
                    full.push_str(&t.text);
                }
                other => others.push(other),
            }
        }
        let saved = self.store.save(tool_use_id, &full);
        let artifact = saved.as_ref().ok().cloned();
        let mut out = vec![ContentBlock::text(cut(&full, budget, output, saved))];
        out.extend(others);
        Budgeted {
            content: out,
            artifact,
        }
    }
}

/// Head and tail of `full` within `budget` bytes, cut at line ends where possible.
fn cut(
    full: &str,
    budget: usize,
    output: &OutputBehaviour,
    saved: Result<String, ArtifactError>,
) -> String {
    let marker_room = 600.min(budget / 2);
    let room = budget.saturating_sub(marker_room);
    let (head_end, tail_start) = match output.cut {
        OutputCut::Head => (line_floor(full, room), full.len()),
        _ => {
            let head_end = line_floor(full, room * 7 / 10);
            let tail_start = line_ceil(full, full.len().saturating_sub(room - head_end.min(room)));
            (head_end, tail_start.max(head_end))
        }
    };
    let head = &full[..head_end];
    let tail = &full[tail_start..];
    let total_lines = full.lines().count();
    let head_lines = head.lines().count();
    let tail_lines = tail.lines().count();
    let mut marker = String::new();
    let _ = write!(
        marker,
        "[… output cut to fit the budget: {} bytes, {total_lines} lines in total (~{} tokens). ",
        full.len(),
        full.len() / BYTES_PER_TOKEN,
    );
    if tail_lines == 0 {
        let _ = write!(marker, "Shown: lines 1–{head_lines}.");
    } else {
        let _ = write!(
            marker,
            "Shown: lines 1–{head_lines} and {}–{total_lines}.",
            total_lines - tail_lines + 1
        );
    }
    match saved {
        Ok(id) => {
            let _ = write!(
                marker,
                " The full output is saved as artifact {id}: call ReadOutput {{\"artifact\": \"{id}\", \"start_line\": {}, \"end_line\": {}}} for the lines in between, or with \"pattern\" to find lines.",
                head_lines + 1,
                (head_lines + 400).min(total_lines)
            );
        }
        Err(e) => {
            let _ = write!(marker, " The full output could not be saved ({e}).");
        }
    }
    if let Some(hint) = &output.narrowing_hint {
        marker.push_str(hint);
    }
    marker.push(']');
    let mut out = String::with_capacity(head.len() + tail.len() + marker.len() + 2);
    out.push_str(head);
    if !out.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&marker);
    if !tail.is_empty() {
        out.push('\n');
        out.push_str(tail);
    }
    out
}

/// The end of the last whole line at or before `i` (or `i` itself, on a char
/// boundary, when there is no line end in the last quarter).
fn line_floor(s: &str, i: usize) -> usize {
    let i = floor_char(s, i);
    match s[..i].rfind('\n') {
        Some(nl) if nl + 1 >= i - i / 4 => nl + 1,
        _ => i,
    }
}

/// The start of the first whole line at or after `i`.
fn line_ceil(s: &str, i: usize) -> usize {
    let i = floor_char(s, i);
    if i == 0 || s.as_bytes().get(i - 1) == Some(&b'\n') {
        return i;
    }
    match s[i..].find('\n') {
        Some(nl) if nl < (s.len() - i) / 4 + 1 => i + nl + 1,
        _ => i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the Grep tool declares (tack-tools is not a dependency here).
    fn grep_output() -> OutputBehaviour {
        OutputBehaviour::with_hint(
            " You can also narrow the search: a more specific pattern, path, glob or type, output_mode \"files_with_matches\", or head_limit.",
        )
    }

    fn text_of(b: &Budgeted) -> String {
        match &b.content[0] {
            ContentBlock::Text(t) => t.text.clone(),
            _ => panic!(),
        }
    }

    #[test]
    fn small_outputs_pass_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let budget = OutputBudget::new(Arc::new(ArtifactStore::new(dir.path())));
        let content = vec![ContentBlock::text("short")];
        assert_eq!(
            budget
                .apply("Bash", &OutputBehaviour::default(), "t1", content.clone())
                .content,
            content
        );
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }

    #[test]
    fn big_outputs_keep_head_and_tail_and_are_saved_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ArtifactStore::new(dir.path()));
        let budget = OutputBudget::new(store.clone()).tool_tokens("Grep", 500);
        let full: String = (1..=10_000).map(|i| format!("match {i}\n")).collect();
        let out = budget.apply(
            "Grep",
            &grep_output(),
            "toolu_9",
            vec![ContentBlock::text(full.clone())],
        );
        assert_eq!(out.artifact.as_deref(), Some("art_toolu_9"));
        let text = text_of(&out);
        assert!(text.len() <= 500 * BYTES_PER_TOKEN + 200, "{}", text.len());
        assert!(text.starts_with("match 1\nmatch 2\n"));
        assert!(text.ends_with("match 10000\n"));
        assert!(text.contains("10000 lines in total"), "{text}");
        assert!(
            text.contains("ReadOutput {\"artifact\": \"art_toolu_9\""),
            "{text}"
        );
        assert!(text.contains("head_limit"), "Grep hint: {text}");
        assert_eq!(store.read("art_toolu_9").unwrap(), full);
        // Every shown line is whole.
        for line in text.lines().filter(|l| l.starts_with("match")) {
            assert!(line["match ".len()..].parse::<u32>().is_ok(), "{line:?}");
        }
    }

    #[test]
    fn unicode_and_one_huge_line_are_cut_on_char_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let budget =
            OutputBudget::new(Arc::new(ArtifactStore::new(dir.path()))).default_tokens(100);
        let full = "é".repeat(10_000);
        let text = text_of(&budget.apply(
            "X",
            &OutputBehaviour::default(),
            "t",
            vec![ContentBlock::text(full)],
        ));
        assert!(text.contains("output cut"));
        assert!(text.starts_with('é'));
    }

    #[test]
    fn head_only_tools_keep_the_head_and_self_limited_ones_pass() {
        let dir = tempfile::tempdir().unwrap();
        let budget =
            OutputBudget::new(Arc::new(ArtifactStore::new(dir.path()))).default_tokens(200);
        let full: String = (1..=5_000).map(|i| format!("row {i}\n")).collect();
        let head = OutputBehaviour::with_hint(" Ask for fewer rows.").cut(OutputCut::Head);
        let text =
            text_of(&budget.apply("Rows", &head, "t1", vec![ContentBlock::text(full.clone())]));
        assert!(text.starts_with("row 1\nrow 2\n"), "{text}");
        assert!(!text.contains("row 5000"), "no tail: {text}");
        assert!(text.contains("Shown: lines 1–"), "{text}");
        assert!(text.contains("Ask for fewer rows."), "{text}");
        let content = vec![ContentBlock::text(full)];
        let out = budget.apply(
            "ReadOutput",
            &OutputBehaviour::self_limited(),
            "t2",
            content.clone(),
        );
        assert_eq!(out.content, content);
        assert!(out.artifact.is_none());
    }
}
