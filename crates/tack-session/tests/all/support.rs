//! Helpers shared by the tests.

use tack_protocol::{ContentBlock, Message, ToolResultBlock};

/// The tool_result blocks of a message.
pub fn results_of(message: &Message) -> Vec<ToolResultBlock> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}
