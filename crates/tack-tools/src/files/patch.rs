//! Claude Code's `structuredPatch`: the hunks of a change, as Write and Edit
//! report it to hook scripts (`tool_response.structuredPatch`).

use std::time::Duration;

use serde_json::{Value, json};
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change, as in Claude Code's patches.
const CONTEXT: usize = 3;

/// A diff of a large or pathological file gives up on a minimal diff after
/// this long (the hunks are then coarser, never wrong).
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// The hunks turning `old` into `new`: `[{oldStart, oldLines, newStart,
/// newLines, lines}]`, each line prefixed with ' ', '-' or '+' and without
/// its line break (unified-diff numbering: 1-based; a side with no lines
/// gives the line before it).
pub(crate) fn structured_patch(old: &str, new: &str) -> Value {
    let diff = TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new);
    let hunks: Vec<Value> = diff
        .grouped_ops(CONTEXT)
        .iter()
        .filter_map(|group| {
            let (first, last) = (group.first()?, group.last()?);
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let lines: Vec<String> = group
                .iter()
                .flat_map(|op| diff.iter_changes(op))
                .map(|change| {
                    let sign = match change.tag() {
                        ChangeTag::Equal => ' ',
                        ChangeTag::Delete => '-',
                        ChangeTag::Insert => '+',
                    };
                    let text = change.value();
                    let text = text.strip_suffix('\n').unwrap_or(text);
                    let text = text.strip_suffix('\r').unwrap_or(text);
                    format!("{sign}{text}")
                })
                .collect();
            let start = |r: &std::ops::Range<usize>| r.start + usize::from(!r.is_empty());
            Some(json!({
                "oldStart": start(&old_range),
                "oldLines": old_range.len(),
                "newStart": start(&new_range),
                "newLines": new_range.len(),
                "lines": lines,
            }))
        })
        .collect();
    Value::Array(hunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_line_in_the_middle_has_three_lines_of_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        assert_eq!(
            structured_patch(old, new),
            json!([{"oldStart": 2, "oldLines": 7, "newStart": 2, "newLines": 7,
                "lines": [" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"]}])
        );
    }

    #[test]
    fn a_new_file_is_one_hunk_of_additions_and_no_change_is_no_hunk() {
        assert_eq!(
            structured_patch("", "a\nb\n"),
            json!([{"oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": 2,
                "lines": ["+a", "+b"]}])
        );
        assert_eq!(structured_patch("same\n", "same\n"), json!([]));
    }
}
