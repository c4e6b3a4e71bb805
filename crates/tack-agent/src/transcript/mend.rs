//! Making a conversation read back from a transcript valid for the model API
//! again, whatever line was lost or damaged.
//!
//! The rules are the Messages API's (the strict mock in tack-testkit checks
//! the same ones): the first message is the user's; no message is empty;
//! text blocks are not blank; tool_use ids are unique; every assistant
//! tool_use is answered by a tool_result at the start of the next message,
//! which is the user's; a tool_result answers a tool_use of the message just
//! before it. [`mend`] walks the messages once per rule and fixes what breaks
//! one, saying what it did; a conversation that breaks none comes back
//! unchanged with no fixes.
//!
//! A trailing assistant message whose calls have no answer is left alone:
//! that is a run killed mid-turn, and [`super::repair`] answers it with a
//! message appended at the end, as the agent itself would have.
//!
//! A missing answer gets the result recorded by the call's `tool_result`
//! event when that line survived, else an error result saying the call was
//! interrupted or its result not recorded (the model is told to check before
//! repeating it). A tool_result whose call was lost is kept as text, so the
//! model still sees what it said.

use std::collections::{HashMap, HashSet};

use tack_protocol::{ContentBlock, Message, Role, ToolOutcome, ToolResultBlock, ToolUseBlock};

/// The results recorded for tool calls: `tool_use_id → (is_error, content, outcome)`.
pub(super) type Recorded = HashMap<String, (bool, Vec<ContentBlock>, ToolOutcome)>;

/// `messages` made valid, and one line per fix (empty when nothing was wrong).
pub(super) fn mend(messages: Vec<Message>, recorded: &Recorded) -> (Vec<Message>, Vec<String>) {
    let mut fixes = Vec::new();
    let messages = drop_blank_text(messages, &mut fixes);
    let messages = drop_repeated_tool_uses(messages, &mut fixes);
    let messages = drop_empty(messages, &mut fixes);
    let messages = start_with_user(messages, &mut fixes);
    let messages = pair_results(messages, recorded, &mut fixes);
    (messages, fixes)
}

/// A call answered by mending (or by [`super::repair`]) that has no
/// `tool_result` event, so the audit trail has no record of it yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Unrecorded {
    pub call: ToolUseBlock,
    /// The answer the conversation now holds for it.
    pub answer: ContentBlock,
}

/// The calls of `messages` whose answer was made by this module (it names
/// the call and says it was interrupted or not recorded) and that have no
/// recorded result. A trailing unanswered turn is not looked at.
pub(super) fn unrecorded(messages: &[Message], recorded: &Recorded) -> Vec<Unrecorded> {
    let mut out = Vec::new();
    for pair in messages.windows(2) {
        let [asked, answered] = pair else { continue };
        for call in asked.tool_uses() {
            if recorded.contains_key(&call.id) {
                continue;
            }
            let made_here = answered
                .content
                .iter()
                .find(|b| matches!(b, ContentBlock::ToolResult(r) if r.tool_use_id == call.id));
            if let Some(answer) = made_here.filter(|a| is_made_answer(a, call)) {
                out.push(Unrecorded {
                    call: call.clone(),
                    answer: answer.clone(),
                });
            }
        }
    }
    out
}

/// Whether `block` is the answer [`answer`] makes for `call` when nothing
/// was recorded.
fn is_made_answer(block: &ContentBlock, call: &ToolUseBlock) -> bool {
    [INTERRUPTED, NOT_RECORDED]
        .iter()
        .any(|wording| *block == made_answer(call, wording))
}

fn made_answer(call: &ToolUseBlock, not_recorded: &str) -> ContentBlock {
    ContentBlock::ToolResult(ToolResultBlock::error(
        &call.id,
        format!(
            "{} {not_recorded}, and it may or may not have taken effect. Check before repeating it.",
            call.name
        ),
    ))
}

/// The answer to one call whose result is not in the conversation.
pub(super) fn answer(call: &ToolUseBlock, recorded: &Recorded, not_recorded: &str) -> ContentBlock {
    match recorded.get(&call.id) {
        Some((is_error, content, outcome)) if *outcome != ToolOutcome::Interrupted => {
            ContentBlock::ToolResult(ToolResultBlock::new(&call.id, content.clone(), *is_error))
        }
        _ => made_answer(call, not_recorded),
    }
}

/// The wording for a call the session stopped in (the last turn).
pub(super) const INTERRUPTED: &str =
    "was interrupted: the session stopped before this call finished";
/// The wording for a call earlier in the conversation whose result was lost.
const NOT_RECORDED: &str = "was interrupted or its result was not recorded: the transcript line that held it is missing or damaged";

fn is_last(i: usize, len: usize) -> bool {
    i + 1 == len
}

/// Blank text blocks are refused except in the final assistant message.
fn drop_blank_text(messages: Vec<Message>, fixes: &mut Vec<String>) -> Vec<Message> {
    let len = messages.len();
    messages
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            if is_last(i, len) && m.role == Role::Assistant {
                return m;
            }
            let before = m.content.len();
            m.content
                .retain(|b| !matches!(b, ContentBlock::Text(t) if t.text.trim().is_empty()));
            if m.content.len() < before {
                fixes.push(format!("message {i}: dropped a blank text block"));
            }
            m
        })
        .collect()
}

/// A tool_use id seen earlier (a line written twice) is dropped; its result
/// then has no call and is kept as text by [`pair_results`].
fn drop_repeated_tool_uses(messages: Vec<Message>, fixes: &mut Vec<String>) -> Vec<Message> {
    let mut seen = HashSet::new();
    messages
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            if m.role != Role::Assistant {
                return m;
            }
            m.content.retain(|b| match b {
                ContentBlock::ToolUse(t) if !seen.insert(t.id.clone()) => {
                    fixes.push(format!(
                        "message {i}: dropped a repeated call {} ({})",
                        t.id, t.name
                    ));
                    false
                }
                _ => true,
            });
            m
        })
        .collect()
}

/// Empty messages are refused except the final assistant one.
fn drop_empty(messages: Vec<Message>, fixes: &mut Vec<String>) -> Vec<Message> {
    let len = messages.len();
    messages
        .into_iter()
        .enumerate()
        .filter(|(i, m)| {
            let keep = !m.content.is_empty() || (is_last(*i, len) && m.role == Role::Assistant);
            if !keep {
                fixes.push(format!("message {i}: dropped an empty message"));
            }
            keep
        })
        .map(|(_, m)| m)
        .collect()
}

/// The first message must be the user's.
fn start_with_user(mut messages: Vec<Message>, fixes: &mut Vec<String>) -> Vec<Message> {
    if messages.first().is_some_and(|m| m.role == Role::Assistant) {
        messages.insert(
            0,
            Message::user_text(
                "[The start of this conversation was lost from the session transcript.]",
            ),
        );
        fixes.push("the first message was lost: a note stands in for it".into());
    }
    messages
}

/// Every call answered, in order, at the start of the next message; every
/// result answering a call of the message before it.
fn pair_results(
    messages: Vec<Message>,
    recorded: &Recorded,
    fixes: &mut Vec<String>,
) -> Vec<Message> {
    let len = messages.len();
    let mut out: Vec<Message> = Vec::with_capacity(len);
    let mut pending: Option<Vec<ToolUseBlock>> = None;
    for (i, message) in messages.into_iter().enumerate() {
        let calls = pending.take();
        match (message.role, calls) {
            (Role::User, Some(calls)) => out.push(answered(message, &calls, recorded, i, fixes)),
            (Role::User, None) => out.push(without_orphans(message, i, fixes)),
            (Role::Assistant, calls) => {
                if let Some(calls) = calls {
                    // The user message that answered the previous one was lost.
                    fixes.push(format!(
                        "message {i}: the answer to {} call(s) before it was lost; answered them",
                        calls.len()
                    ));
                    let results = calls
                        .iter()
                        .map(|c| answer(c, recorded, NOT_RECORDED))
                        .collect();
                    out.push(Message::user(results));
                }
                let calls: Vec<ToolUseBlock> = message.tool_uses().cloned().collect();
                // A trailing unanswered turn is super::repair's to answer.
                if !calls.is_empty() && !is_last(i, len) {
                    pending = Some(calls);
                }
                out.push(message);
            }
        }
    }
    out
}

/// `message` rebuilt to answer `calls`: their results first, in call order
/// (the recorded one, or an error, for a result that is missing), then the
/// rest of its content, with results of other calls kept as text.
fn answered(
    message: Message,
    calls: &[ToolUseBlock],
    recorded: &Recorded,
    i: usize,
    fixes: &mut Vec<String>,
) -> Message {
    let Message {
        role,
        content,
        extra,
    } = message;
    let original = content.clone();
    let fixes_before = fixes.len();
    let mut results: HashMap<String, ToolResultBlock> = HashMap::new();
    let mut rest = Vec::new();
    for block in content {
        match block {
            ContentBlock::ToolResult(r)
                if calls.iter().any(|c| c.id == r.tool_use_id)
                    && !results.contains_key(&r.tool_use_id) =>
            {
                results.insert(r.tool_use_id.clone(), r);
            }
            ContentBlock::ToolResult(r) => {
                fixes.push(format!(
                    "message {i}: the call {} of a result was lost; kept the result as text",
                    r.tool_use_id
                ));
                rest.push(orphan_as_text(&r));
            }
            other => rest.push(other),
        }
    }
    let mut content: Vec<ContentBlock> = calls
        .iter()
        .map(|c| match results.remove(&c.id) {
            Some(r) => ContentBlock::ToolResult(r),
            None => {
                fixes.push(format!(
                    "message {i}: the result of {} ({}) was lost; answered it",
                    c.id, c.name
                ));
                answer(c, recorded, NOT_RECORDED)
            }
        })
        .collect();
    content.extend(rest);
    if content != original && fixes.len() == fixes_before {
        fixes.push(format!(
            "message {i}: put the tool results first, in call order"
        ));
    }
    Message {
        role,
        content,
        extra,
    }
}

/// A user message that answers no call: any tool_result in it lost its call.
fn without_orphans(mut message: Message, i: usize, fixes: &mut Vec<String>) -> Message {
    for block in &mut message.content {
        if let ContentBlock::ToolResult(r) = block {
            fixes.push(format!(
                "message {i}: the call {} of a result was lost; kept the result as text",
                r.tool_use_id
            ));
            *block = orphan_as_text(r);
        }
    }
    message
}

fn orphan_as_text(result: &ToolResultBlock) -> ContentBlock {
    let text = result.text();
    let text = if text.trim().is_empty() {
        "(no text)".to_owned()
    } else {
        text
    };
    ContentBlock::text(format!(
        "[A tool result whose call ({}) was lost from the session transcript{}:]\n{text}",
        result.tool_use_id,
        if result.is_error { ", an error" } else { "" }
    ))
}
