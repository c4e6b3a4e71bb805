//! What both renderers share: the reply being rendered and string splitting.

use std::collections::BTreeMap;

use tack_protocol::{ContentBlock, StopReason, ToolUseBlock, Usage};

/// Everything needed to render one successful reply.
pub(crate) struct Reply<'a> {
    pub(crate) id: &'a str,
    pub(crate) model: &'a str,
    pub(crate) content: &'a [ContentBlock],
    pub(crate) stop_reason: &'a StopReason,
    pub(crate) usage: &'a Usage,
    /// The prompt cache's split of the input, when the mock computed the usage.
    pub(crate) cache_split: Option<crate::cache::CacheUsage>,
    pub(crate) raw_tool_arguments: &'a BTreeMap<String, String>,
}

/// The reply's text blocks, joined.
pub(crate) fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

/// The reply's tool calls, in order.
pub(crate) fn tool_uses(content: &[ContentBlock]) -> impl Iterator<Item = &ToolUseBlock> {
    content.iter().filter_map(|b| match b {
        ContentBlock::ToolUse(t) => Some(t),
        _ => None,
    })
}

/// Split `s` into at least `min_pieces` pieces (fewer only if `s` has fewer
/// characters) of roughly `target_len` characters, on character boundaries.
/// An empty string gives no pieces.
pub(crate) fn split_pieces(s: &str, min_pieces: usize, target_len: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let wanted = chars
        .len()
        .div_ceil(target_len.max(1))
        .max(min_pieces.max(1));
    let pieces = wanted.min(chars.len());
    let base = chars.len() / pieces;
    let extra = chars.len() % pieces;
    let mut out = Vec::with_capacity(pieces);
    let mut at = 0;
    for i in 0..pieces {
        let len = base + usize::from(i < extra);
        out.push(chars[at..at + len].iter().collect());
        at += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split_pieces;

    #[test]
    fn pieces_rejoin_and_respect_minimum() {
        for (s, min) in [
            ("hello world", 2),
            ("{\"a\":1}", 3),
            ("héllo wörld ✓", 4),
            ("x", 3),
        ] {
            let pieces = split_pieces(s, min, 12);
            assert_eq!(pieces.concat(), s);
            assert_eq!(pieces.len(), min.min(s.chars().count()));
        }
        assert!(split_pieces("", 2, 12).is_empty());
        assert_eq!(split_pieces(&"a".repeat(100), 2, 10).len(), 10);
    }
}
