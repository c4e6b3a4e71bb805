//! Context accounting and compaction: how full the model's window is, and
//! what the loop does before a request would overflow it.
//!
//! **Accounting.** [`ContextMeter`] knows the window (the configured size,
//! else the price table's entry for the model, else what an overflow error
//! taught it, else a default by provider) and estimates the next request in
//! tokens from its encoded size. Each response's usage (uncached + cache
//! read + cache write input tokens) calibrates the estimate's tokens per
//! byte, so after the first turn it follows the model's own tokenizer.
//!
//! **Compaction**, cheapest stage first ([`plan_clear`], [`plan_summary`]):
//! 1. old tool results, oldest first, are replaced by a stub naming the
//!    artifact that holds the full output (ReadOutput reads it back: nothing
//!    is lost), keeping the most recent ones whole;
//! 2. if that is not enough, the model summarises the older turns and the
//!    conversation continues from one user message (the original task, the
//!    summary, the current TodoWrite plan, the skills loaded, the files read
//!    and edited) followed by the recent turns verbatim. The cut is always
//!    before an assistant message, so a tool_use is never separated from
//!    its tool_result and thinking blocks stay with their turn.
//!
//! When the summary request fails, the older turns are replaced by a list
//! of what they did ([`rebuild`] with `Err`): the session goes on.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value;
use tack_model::ModelError;
use tack_protocol::{ContentBlock, Message, Role, ToolResultContent, Usage};
use tack_tool::artifacts::ArtifactStore;

/// Compact when the next request would pass this share of the window.
pub const DEFAULT_THRESHOLD_PERCENT: f64 = 80.0;
/// What a compaction aims for, as a share of the window: low enough that
/// the next compactions are many turns away (each one rewrites the
/// prompt-cache prefix from where it changed).
pub const DEFAULT_TARGET_PERCENT: f64 = 50.0;
/// Tool results kept whole by the first stage, newest first.
pub const DEFAULT_KEEP_TOOL_RESULTS: usize = 3;
/// The window assumed for a model the table does not know.
pub const DEFAULT_WINDOW_ANTHROPIC: u64 = 200_000;
pub const DEFAULT_WINDOW_OTHER: u64 = 128_000;
/// When a model's window is not known, the provider's model listing is
/// asked once the conversation's messages pass this many tokens.
pub const ASK_WINDOW_AFTER_TOKENS: u64 = 4_000;
/// Bytes per token before a response has calibrated the estimate: on the
/// low side of real tokenizers (JSON and code are 3.5–4), so the estimate
/// errs towards compacting early.
pub const DEFAULT_BYTES_PER_TOKEN: f64 = 3.5;
/// A result smaller than this is not worth a stub.
const MIN_CLEARABLE_BYTES: usize = 1024;
/// How the first stage's stubs begin (a stub is never cleared again).
pub const CLEARED_PREFIX: &str = "[Cleared to save context:";
/// How the message that carries a summary begins.
pub const COMPACTED_PREFIX: &str = "[This conversation was compacted";
const TASK_HEADING: &str = "The original task:\n";
/// Tools whose results compaction keeps whole: a loaded skill's
/// instructions stay in effect for the rest of the session, and a tool
/// search's references keep the tools they loaded loaded.
pub const KEPT_TOOLS: &[&str] = &["Skill", "ToolSearch"];
/// How a loaded skill's text begins (the Skill tool's result).
const SKILL_CONTENT_PREFIX: &str = "<skill_content";
const SUMMARY_HEADING: &str = "\n\nSummary of the earlier turns:\n";

/// When to compact: a share of the window or a number of tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    Percent(f64),
    Tokens(u64),
}

impl Default for Threshold {
    fn default() -> Self {
        Threshold::Percent(DEFAULT_THRESHOLD_PERCENT)
    }
}

impl Threshold {
    /// `"80%"`, `"80 %"`, `"150000"` or `"150k"`.
    pub fn parse(text: &str) -> Result<Threshold, String> {
        let t = text.trim();
        let bad = || {
            format!(
                "{text:?} is not a compaction threshold: give a share of the context window (\"80%\") or a number of tokens (\"150000\", \"150k\")"
            )
        };
        if let Some(p) = t.strip_suffix('%') {
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            if !(1.0..=100.0).contains(&p) {
                return Err(format!(
                    "the compaction threshold {text:?} must be between 1% and 100%"
                ));
            }
            return Ok(Threshold::Percent(p));
        }
        let (digits, scale) = match t.strip_suffix(['k', 'K']) {
            Some(d) => (d, 1000),
            None => (t, 1),
        };
        let n: u64 = digits.trim().parse().map_err(|_| bad())?;
        if n == 0 {
            return Err(bad());
        }
        Ok(Threshold::Tokens(n * scale))
    }

    /// The threshold in tokens for `window`, never past the window.
    pub fn tokens(self, window: u64) -> u64 {
        match self {
            Threshold::Percent(p) => (window as f64 * p / 100.0) as u64,
            Threshold::Tokens(n) => n.min(window),
        }
    }
}

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The next request would pass the threshold.
    Auto,
    /// Asked for (`tack run --compact-now`, [`crate::Agent::compact`]).
    Manual,
    /// The API refused a request as too long.
    Overflow,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Auto => "auto",
            Trigger::Manual => "manual",
            Trigger::Overflow => "overflow",
        }
    }

    /// Claude Code's hook `trigger`: `manual` or `auto`.
    pub fn hook_trigger(self) -> &'static str {
        match self {
            Trigger::Manual => "manual",
            Trigger::Auto | Trigger::Overflow => "auto",
        }
    }
}

/// How the loop keeps the conversation inside the window.
#[derive(Debug, Clone)]
pub struct CompactionConfig {
    /// Compact automatically at the threshold (an overflow is compacted
    /// and retried even when off).
    pub auto: bool,
    /// The model's window in tokens, when the user says (wins over the table).
    pub window: Option<u64>,
    pub threshold: Threshold,
    /// The share of the window a compaction aims for.
    pub target_percent: f64,
    /// Tool results the first stage keeps whole, newest first.
    pub keep_tool_results: usize,
    /// Added to the summary request (settings `compaction.instructions`).
    pub instructions: Option<String>,
    /// Where cleared tool results are saved for ReadOutput (the session's
    /// artifact store). Without one a stub points at the transcript.
    pub artifacts: Option<Arc<ArtifactStore>>,
    /// Let the provider compact where it can (Anthropic's context
    /// management: old tool uses cleared and the conversation compacted by
    /// the API, with the same threshold and keep count); tack's own stages
    /// then only run on an overflow and for other providers.
    pub provider: bool,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            auto: true,
            window: None,
            threshold: Threshold::default(),
            target_percent: DEFAULT_TARGET_PERCENT,
            keep_tool_results: DEFAULT_KEEP_TOOL_RESULTS,
            instructions: None,
            artifacts: None,
            provider: false,
        }
    }
}

/// Where the meter's window size came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSource {
    /// `--context-window` or settings.
    Configured,
    /// The model table (tack_model::pricing).
    Table,
    /// The provider's model listing said.
    Listed,
    /// An overflow error named it.
    Learned,
    /// Not known: a default by provider.
    Default,
}

/// How full the window is.
#[derive(Debug, Clone)]
pub struct ContextMeter {
    window: u64,
    source: WindowSource,
    /// Calibrated from the last response: input tokens per request byte.
    tokens_per_byte: Option<f64>,
    /// The input tokens of the last response (all three kinds).
    last_input_tokens: Option<u64>,
}

impl ContextMeter {
    pub fn new(configured: Option<u64>, model: &str, provider: &str) -> Self {
        let (window, source) = match configured {
            Some(w) => (w, WindowSource::Configured),
            None => match tack_model::pricing::price(model) {
                Some(p) => (p.context_window, WindowSource::Table),
                None if provider == "anthropic" => {
                    (DEFAULT_WINDOW_ANTHROPIC, WindowSource::Default)
                }
                None => (DEFAULT_WINDOW_OTHER, WindowSource::Default),
            },
        };
        Self {
            window,
            source,
            tokens_per_byte: None,
            last_input_tokens: None,
        }
    }

    pub fn window(&self) -> u64 {
        self.window
    }

    pub fn source(&self) -> WindowSource {
        self.source
    }

    /// The input tokens the last response reported.
    pub fn last_input_tokens(&self) -> Option<u64> {
        self.last_input_tokens
    }

    /// The provider's model listing gives the window: used when nothing
    /// better (configured, the table) is known.
    pub fn set_listed(&mut self, window: u64) {
        if self.source == WindowSource::Default && window > 0 {
            self.window = window;
            self.source = WindowSource::Listed;
        }
    }

    /// An overflow error named the window: believe it over a table or a
    /// default (not over what the user configured, unless smaller).
    pub fn learn_window(&mut self, maximum: u64) {
        if maximum == 0 {
            return;
        }
        if self.source != WindowSource::Configured || maximum < self.window {
            self.window = maximum;
            self.source = WindowSource::Learned;
        }
    }

    /// The estimated tokens of a request of `bytes` encoded bytes.
    pub fn estimate(&self, bytes: usize) -> u64 {
        let per_byte = self
            .tokens_per_byte
            .unwrap_or(1.0 / DEFAULT_BYTES_PER_TOKEN);
        (bytes as f64 * per_byte).ceil() as u64
    }

    /// The API said a request of `bytes` was `tokens` long.
    pub fn calibrate(&mut self, bytes: usize, tokens: u64) {
        if bytes > 0 && tokens > 0 {
            self.tokens_per_byte = Some(tokens as f64 / bytes as f64);
        }
    }

    /// A response to a request of `bytes` reported `usage`. A ratio no real
    /// tokenizer gives (a server that reports nothing, or made-up counts)
    /// is ignored.
    pub fn observe(&mut self, bytes: usize, usage: &Usage) {
        let tokens =
            usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
        if tokens == 0 || bytes < 2048 {
            return;
        }
        self.last_input_tokens = Some(tokens);
        let ratio = tokens as f64 / bytes as f64;
        // 1.5 to 10 bytes a token.
        if (0.1..=0.67).contains(&ratio) {
            self.tokens_per_byte = Some(ratio);
        }
    }
}

/// What an overflow error said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Overflow {
    /// The request's size, when the error names it.
    pub tokens: Option<u64>,
    /// The window, when the error names it.
    pub maximum: Option<u64>,
}

fn numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit() && c != ',')
        .map(|s| s.replace(',', ""))
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// Whether `error` says the prompt did not fit the window, and what it
/// says about sizes. Recognised: Anthropic's 400 "prompt is too long: N
/// tokens > M maximum" and "input length and max_tokens exceed context
/// limit: I + O > M"; OpenAI's `context_length_exceeded` ("maximum context
/// length is M tokens. However, your messages resulted in N tokens");
/// llama.cpp's `exceed_context_size_error` ("request (N tokens) exceeds
/// the available context size (M tokens)").
pub fn overflow(error: &ModelError) -> Option<Overflow> {
    let ModelError::Api {
        status,
        kind,
        message,
        ..
    } = error
    else {
        return None;
    };
    if !matches!(status, 400 | 413) {
        return None;
    }
    let lower = message.to_ascii_lowercase();
    let after = |phrase: &str| {
        lower
            .find(phrase)
            .and_then(|at| numbers(&lower[at + phrase.len()..]).first().copied())
    };
    if lower.contains("prompt is too long") {
        let n = numbers(&lower[lower.find("prompt is too long").unwrap_or(0)..]);
        return Some(Overflow {
            tokens: n.first().copied(),
            maximum: n.get(1).copied(),
        });
    }
    if lower.contains("exceed context limit") {
        let n = numbers(&lower[lower.find("exceed context limit").unwrap_or(0)..]);
        return Some(Overflow {
            tokens: n.first().copied(),
            maximum: n.last().copied(),
        });
    }
    if lower.contains("maximum context length") {
        return Some(Overflow {
            tokens: after("resulted in"),
            maximum: after("maximum context length is"),
        });
    }
    if lower.contains("exceeds the available context size") {
        let n = numbers(&lower);
        return Some(Overflow {
            tokens: n.first().copied(),
            maximum: n.get(1).copied(),
        });
    }
    let kind = kind.to_ascii_lowercase();
    if kind == "context_length_exceeded"
        || kind == "exceed_context_size_error"
        || lower.contains("context_length_exceeded")
        || (lower.contains("context") && lower.contains("too long"))
    {
        return Some(Overflow::default());
    }
    None
}

/// The encoded size of one message (compaction only; the loop keeps a
/// running total).
pub fn message_bytes(message: &Message) -> usize {
    serde_json::to_vec(message).map_or(0, |v| v.len())
}

/// One change of the first stage.
#[derive(Debug, Clone)]
pub struct Cleared {
    pub index: usize,
    pub message: Message,
    pub results: u32,
    pub freed_bytes: usize,
}

struct Candidate {
    message: usize,
    block: usize,
    bytes: usize,
}

fn tool_names(messages: &[Message]) -> HashMap<&str, &str> {
    messages
        .iter()
        .flat_map(Message::tool_uses)
        .map(|t| (t.id.as_str(), t.name.as_str()))
        .collect()
}

fn result_text(content: &Option<ToolResultContent>) -> (String, usize) {
    match content {
        None => (String::new(), 0),
        Some(ToolResultContent::Text(t)) => (t.clone(), 0),
        Some(ToolResultContent::Blocks(blocks)) => {
            let mut text = String::new();
            let mut images = 0;
            for block in blocks {
                match block {
                    ContentBlock::Text(t) => {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(&t.text);
                    }
                    ContentBlock::Image(_) => images += 1,
                    other => {
                        if let Ok(v) = serde_json::to_string(other) {
                            text.push_str(&v);
                        }
                    }
                }
            }
            (text, images)
        }
    }
}

fn is_cleared(content: &Option<ToolResultContent>) -> bool {
    match content {
        Some(ToolResultContent::Text(t)) => t.starts_with(CLEARED_PREFIX),
        Some(ToolResultContent::Blocks(blocks)) => matches!(
            blocks.first(),
            Some(ContentBlock::Text(t)) if t.text.starts_with(CLEARED_PREFIX)
        ),
        None => false,
    }
}

fn head_of(text: &str, max: usize) -> String {
    let line = text.trim_start();
    let mut end = line.len().min(max);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let head = line[..end].replace('\n', " ⏎ ");
    if end < line.len() {
        format!("{head}…")
    } else {
        head
    }
}

/// The stub of one result whose full text is `text`.
fn stub(name: &str, text: &str, images: usize, artifact: Option<&str>) -> String {
    let lines = text.lines().count();
    let mut s = format!(
        "{CLEARED_PREFIX} the result of {name} ({} bytes, {lines} lines",
        group(text.len() as u64)
    );
    if images > 0 {
        let _ = write!(s, ", {images} image(s)");
    }
    s.push_str(").");
    if !text.trim().is_empty() {
        let _ = write!(s, " It began: \"{}\".", head_of(text, 160));
    }
    match artifact {
        Some(id) => {
            let _ = write!(
                s,
                " The full text is artifact {id}: call ReadOutput {{\"artifact\": \"{id}\"}} with start_line/end_line or a pattern to read any part.]"
            );
        }
        None => s.push_str(" The full text is in the session transcript.]"),
    }
    s
}

/// A number with thousands separators.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The first stage: which old tool results to replace by stubs, oldest
/// first, until `need_bytes` are freed; the newest `keep` results stay
/// whole (all may go when `keep` is 0). A result whose artifact cannot be
/// saved is left whole. Returns the changed messages.
pub fn plan_clear(
    messages: &[Message],
    keep: usize,
    need_bytes: usize,
    artifacts: Option<&ArtifactStore>,
) -> Vec<Cleared> {
    let mut candidates = Vec::new();
    for (mi, message) in messages.iter().enumerate() {
        if message.role != Role::User {
            continue;
        }
        for (bi, block) in message.content.iter().enumerate() {
            if let ContentBlock::ToolResult(r) = block
                && !is_cleared(&r.content)
            {
                let bytes = serde_json::to_vec(&r.content).map_or(0, |v| v.len());
                candidates.push(Candidate {
                    message: mi,
                    block: bi,
                    bytes,
                });
            }
        }
    }
    let names = tool_names(messages);
    candidates.retain(|c| {
        let ContentBlock::ToolResult(r) = &messages[c.message].content[c.block] else {
            return false;
        };
        !names
            .get(r.tool_use_id.as_str())
            .is_some_and(|n| KEPT_TOOLS.contains(n))
    });
    let clearable = candidates.len().saturating_sub(keep);
    let mut changed: BTreeMap<usize, Cleared> = BTreeMap::new();
    let mut freed = 0usize;
    for c in candidates.into_iter().take(clearable) {
        if freed >= need_bytes {
            break;
        }
        if c.bytes < MIN_CLEARABLE_BYTES {
            continue;
        }
        let entry = changed.entry(c.message).or_insert_with(|| Cleared {
            index: c.message,
            message: messages[c.message].clone(),
            results: 0,
            freed_bytes: 0,
        });
        let ContentBlock::ToolResult(result) = &mut entry.message.content[c.block] else {
            continue;
        };
        let (text, images) = result_text(&result.content);
        let artifact = match artifacts {
            Some(store) => {
                let id = ArtifactStore::id_for(&result.tool_use_id);
                if store.exists(&id) {
                    Some(id)
                } else {
                    match store.save(&result.tool_use_id, &text) {
                        Ok(id) => Some(id),
                        Err(e) => {
                            tracing::warn!("compaction keeps a tool result whole: {e}");
                            continue;
                        }
                    }
                }
            }
            None => None,
        };
        let name = names
            .get(result.tool_use_id.as_str())
            .copied()
            .unwrap_or("a tool");
        let stub = stub(name, &text, images, artifact.as_deref());
        let stub_bytes = stub.len() + 40;
        result.content = Some(ToolResultContent::Blocks(vec![ContentBlock::text(stub)]));
        entry.results += 1;
        let saved = c.bytes.saturating_sub(stub_bytes);
        entry.freed_bytes += saved;
        freed += saved;
    }
    changed.into_values().filter(|c| c.results > 0).collect()
}

/// Where the second stage cuts: the index of the assistant message the
/// verbatim recent turns start with, keeping at most `keep_bytes` of
/// recent messages (always at least the last assistant message and what
/// follows it). None when there is nothing older than that to summarise.
pub fn plan_summary(messages: &[Message], keep_bytes: usize) -> Option<usize> {
    let mut kept = 0usize;
    let mut cut = None;
    for (i, message) in messages.iter().enumerate().rev() {
        kept += message_bytes(message);
        if message.role == Role::Assistant {
            if cut.is_some() && kept > keep_bytes {
                break;
            }
            cut = Some(i);
        }
    }
    // Something older than the cut besides the first prompt alone.
    cut.filter(|&c| c >= 2)
}

/// The default instructions of the summary request.
pub const SUMMARY_PROMPT: &str = "The conversation above is about to be compacted to fit the context window: everything before this message will be replaced by the summary you write now, followed by the most recent turns verbatim. Write the summary for yourself, to carry on the work without loss:
1. The user's requests and intent, in full.
2. Key decisions, facts learned and technical details (names, paths, commands, values).
3. Files read and changed, with what matters about each.
4. Errors met and how they were resolved.
5. What has been done, what is pending, and the next step.
Reply with the summary only, as plain text. Do not call any tool.";

/// The messages of the summary request: the older part (`messages[..cut]`,
/// which ends with a user message) with the instructions added to its last
/// user message. Pairs after the first prompt are dropped from the front
/// while the request would exceed `max_bytes`.
pub fn summary_request(
    messages: &[Message],
    cut: usize,
    instructions: &str,
    max_bytes: usize,
) -> Vec<Message> {
    let mut older: Vec<Message> = messages[..cut].to_vec();
    let mut size: usize = older.iter().map(message_bytes).sum();
    // Drop assistant+user pairs after the first prompt while too large.
    while size > max_bytes && older.len() > 3 {
        let a = older.remove(1);
        let u = older.remove(1);
        size -= message_bytes(&a) + message_bytes(&u);
    }
    match older.last_mut() {
        Some(last) if last.role == Role::User => {
            last.content.push(ContentBlock::text(instructions))
        }
        _ => older.push(Message::user_text(instructions)),
    }
    older
}

/// What the older turns did, gathered from their calls.
#[derive(Debug, Default)]
struct Facts {
    task: String,
    files_read: Vec<String>,
    files_edited: Vec<String>,
    skills: Vec<String>,
    /// The loaded skills' texts, whole (older turns and an earlier compaction).
    skill_texts: Vec<String>,
    plan: Option<String>,
    calls: BTreeMap<String, u32>,
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !item.is_empty() && !list.iter().any(|i| i == item) {
        list.push(item.to_owned());
    }
}

/// The original task: the first prompt, or what an earlier compaction kept of it.
fn original_task(first: Option<&Message>) -> String {
    let Some(first) = first else {
        return String::new();
    };
    let text: Vec<&str> = first
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    let text = text.join("\n");
    if text.starts_with(COMPACTED_PREFIX)
        && let Some(start) = text.find(TASK_HEADING)
    {
        let rest = &text[start + TASK_HEADING.len()..];
        let end = rest.find(SUMMARY_HEADING).unwrap_or(rest.len());
        return rest[..end].to_owned();
    }
    text
}

/// The texts of the skills loaded in `messages[..cut]`, whole, in order,
/// each once: what an earlier compaction kept (its extra text blocks) and
/// the results of Skill calls.
fn skill_texts(messages: &[Message], cut: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |text: &str| {
        if text.starts_with(SKILL_CONTENT_PREFIX) && !out.iter().any(|t| t == text) {
            out.push(text.to_owned());
        }
    };
    if let Some(first) = messages.first()
        && first.text().starts_with(COMPACTED_PREFIX)
    {
        for block in &first.content {
            if let ContentBlock::Text(t) = block {
                push(&t.text);
            }
        }
    }
    let names = tool_names(messages);
    for message in &messages[..cut.min(messages.len())] {
        for block in &message.content {
            if let ContentBlock::ToolResult(r) = block
                && !r.is_error
                && names
                    .get(r.tool_use_id.as_str())
                    .is_some_and(|n| KEPT_TOOLS.contains(n))
            {
                push(&result_text(&r.content).0);
            }
        }
    }
    out
}

fn facts(messages: &[Message], cut: usize) -> Facts {
    let mut f = Facts {
        task: original_task(messages.first()),
        skill_texts: skill_texts(messages, cut),
        ..Facts::default()
    };
    for (i, message) in messages.iter().enumerate() {
        for call in message.tool_uses() {
            let path = |key: &str| call.input.get(key).and_then(Value::as_str).unwrap_or("");
            if call.name == "TodoWrite"
                && let Some(todos) = call.input.get("todos").and_then(Value::as_array)
            {
                let mut plan = String::new();
                for todo in todos {
                    let status = todo.get("status").and_then(Value::as_str).unwrap_or("?");
                    let content = todo.get("content").and_then(Value::as_str).unwrap_or("");
                    let _ = writeln!(plan, "- [{status}] {content}");
                }
                f.plan = Some(plan);
            }
            if call.name == "Skill" {
                let name = ["skill", "name", "command"]
                    .iter()
                    .find_map(|k| call.input.get(*k).and_then(Value::as_str))
                    .unwrap_or("");
                push_unique(&mut f.skills, name);
            }
            if i >= cut {
                continue;
            }
            *f.calls.entry(call.name.clone()).or_default() += 1;
            match call.name.as_str() {
                "Read" => push_unique(&mut f.files_read, path("file_path")),
                "Write" | "Edit" | "MultiEdit" => {
                    push_unique(&mut f.files_edited, path("file_path"))
                }
                "NotebookEdit" => push_unique(&mut f.files_edited, path("notebook_path")),
                _ => {}
            }
        }
    }
    f
}

fn list(items: &[String]) -> String {
    const MAX: usize = 50;
    let mut s = items
        .iter()
        .take(MAX)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > MAX {
        let _ = write!(s, " and {} more", items.len() - MAX);
    }
    s
}

/// The compacted conversation: one user message carrying the original
/// task, the summary (`Ok`) or what the older turns did (`Err(why the
/// summary failed)`), the plan, skills and files, then `messages[cut..]`
/// verbatim.
pub fn rebuild(messages: &[Message], cut: usize, summary: Result<&str, &str>) -> Vec<Message> {
    let f = facts(messages, cut);
    let mut text = format!(
        "{COMPACTED_PREFIX} to fit the model's context window: {cut} earlier messages are summarised here; the full history is in the session transcript.]\n\n"
    );
    text.push_str(TASK_HEADING);
    text.push_str(f.task.trim());
    text.push_str(SUMMARY_HEADING);
    match summary {
        Ok(summary) => text.push_str(summary.trim()),
        Err(why) => {
            let calls: Vec<String> = f
                .calls
                .iter()
                .map(|(name, n)| format!("{name} ×{n}"))
                .collect();
            let _ = write!(
                text,
                "(No summary could be made: {why}.) The earlier turns made these calls: {}.",
                if calls.is_empty() {
                    "none".to_owned()
                } else {
                    calls.join(", ")
                }
            );
            let said: Vec<String> = messages[..cut]
                .iter()
                .filter(|m| m.role == Role::Assistant)
                .map(Message::text)
                .filter(|t| !t.trim().is_empty())
                .collect();
            if let Some(last) = said.last() {
                let _ = write!(
                    text,
                    "\nThe last thing you said then: \"{}\"",
                    head_of(last, 2000)
                );
            }
        }
    }
    if let Some(plan) = &f.plan {
        let _ = write!(
            text,
            "\n\nCurrent plan (the latest TodoWrite):\n{}",
            plan.trim_end()
        );
    }
    if !f.skills.is_empty() {
        let _ = write!(text, "\n\nSkills loaded: {}.", list(&f.skills));
        if !f.skill_texts.is_empty() {
            text.push_str(" Their instructions follow whole and still apply.");
        }
    }
    if !f.files_read.is_empty() {
        let _ = write!(text, "\n\nFiles read: {}.", list(&f.files_read));
    }
    if !f.files_edited.is_empty() {
        let _ = write!(text, "\n\nFiles edited: {}.", list(&f.files_edited));
    }
    text.push_str("\n\nEarlier tool outputs can be read back with ReadOutput where a stub names their artifact. The most recent turns follow verbatim.");
    let mut out = Vec::with_capacity(messages.len() - cut + 1);
    let mut first = Message::user_text(text);
    // Each loaded skill's text rides whole as a block of its own (a later
    // compaction finds it there again).
    first
        .content
        .extend(f.skill_texts.iter().map(|t| ContentBlock::text(t.clone())));
    out.push(first);
    out.extend_from_slice(&messages[cut..]);
    out
}

/// Anthropic's `context_management` for `config` and `window`: clear old
/// tool uses past the threshold (at least down to the target, so the cache
/// breaks seldom), and compact past the midpoint between the threshold and
/// the window (the API's minimum trigger is 50,000 tokens).
pub fn anthropic_context_management(config: &CompactionConfig, window: u64) -> Value {
    let threshold = config.threshold.tokens(window);
    let target = (window as f64 * config.target_percent / 100.0) as u64;
    let compact_at = (threshold + window.saturating_sub(threshold) / 2)
        .min(window * 95 / 100)
        .max(50_000);
    let mut compact = serde_json::json!({
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": compact_at},
    });
    if let Some(instructions) = &config.instructions {
        compact["instructions"] = Value::from(instructions.as_str());
    }
    serde_json::json!({"edits": [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": threshold},
            "keep": {"type": "tool_uses", "value": config.keep_tool_results},
            "clear_at_least": {"type": "input_tokens", "value": threshold.saturating_sub(target).max(1)},
            "exclude_tools": KEPT_TOOLS,
        },
        compact,
    ]})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_protocol::{ToolResultBlock, ToolUseBlock};

    fn call(id: &str, name: &str, input: Value) -> Message {
        Message::assistant(vec![ContentBlock::ToolUse(ToolUseBlock {
            id: id.into(),
            name: name.into(),
            input,
            extra: Default::default(),
        })])
    }

    fn result(id: &str, text: &str) -> Message {
        Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
            id,
            vec![ContentBlock::text(text)],
            false,
        ))])
    }

    fn session(n: usize, size: usize) -> Vec<Message> {
        let mut m = vec![Message::user_text("count the lines")];
        for i in 0..n {
            m.push(call(&format!("t{i}"), "Bash", json!({"command": "seq"})));
            m.push(result(&format!("t{i}"), &"line\n".repeat(size / 5)));
        }
        m
    }

    #[test]
    fn a_loaded_skill_is_never_cleared_and_survives_every_summary() {
        let skill = format!(
            "<skill_content name=\"pdf\">\n{}Skill directory: /s/pdf\n</skill_content>",
            "Fill the form field by field.\n".repeat(100)
        );
        let mut m = vec![Message::user_text("fill the pdf")];
        m.push(call("s1", "Skill", json!({"skill": "pdf"})));
        m.push(result("s1", &skill));
        m.extend(session(6, 4000).into_iter().skip(1));
        // Stage 1 stubs the old Bash results, never the Skill's.
        let cleared = plan_clear(&m, 1, usize::MAX, None);
        assert!(!cleared.is_empty());
        assert!(
            cleared.iter().all(|c| c.index != 2),
            "the skill was cleared"
        );
        // Stage 2: the summary carries the skill whole, as a block of its own.
        let cut = m.len() - 2;
        let once = rebuild(&m, cut, Ok("did things"));
        let kept: Vec<&str> = once[0]
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert_eq!(kept[1], skill);
        assert!(kept[0].contains("Skills loaded: pdf. Their instructions follow whole"));
        // A second compaction finds it in the first one and keeps it again, once.
        let mut again = once.clone();
        again.extend(session(4, 4000).into_iter().skip(1));
        let cut = again.len() - 2;
        let twice = rebuild(&again, cut, Ok("did more"));
        let skills: Vec<&ContentBlock> = twice[0]
            .content
            .iter()
            .filter(|b| matches!(b, ContentBlock::Text(t) if t.text == skill))
            .collect();
        assert_eq!(skills.len(), 1);
        assert!(original_task(twice.first()).contains("fill the pdf"));
        // An error result (a refused load) is not a loaded skill.
        let mut refused = vec![Message::user_text("x")];
        refused.push(call("s1", "Skill", json!({"skill": "pdf"})));
        refused.push(Message::user(vec![ContentBlock::ToolResult(
            ToolResultBlock::new("s1", vec![ContentBlock::text(skill.clone())], true),
        )]));
        refused.extend(session(2, 10).into_iter().skip(1));
        assert_eq!(rebuild(&refused, 3, Ok("s"))[0].content.len(), 1);
    }

    #[test]
    fn anthropic_clearing_keeps_skill_and_tool_search_results() {
        let edits = anthropic_context_management(&CompactionConfig::default(), 200_000);
        assert_eq!(
            edits["edits"][0]["exclude_tools"],
            json!(["Skill", "ToolSearch"])
        );
    }

    #[test]
    fn thresholds_parse_as_percent_or_tokens() {
        assert_eq!(Threshold::parse("80%").unwrap(), Threshold::Percent(80.0));
        assert_eq!(
            Threshold::parse("150k").unwrap(),
            Threshold::Tokens(150_000)
        );
        assert_eq!(Threshold::parse(" 9000 ").unwrap(), Threshold::Tokens(9000));
        assert!(Threshold::parse("0").is_err());
        assert!(Threshold::parse("120%").unwrap_err().contains("between"));
        assert!(Threshold::parse("lots").unwrap_err().contains("80%"));
        assert_eq!(Threshold::Tokens(500_000).tokens(200_000), 200_000);
        assert_eq!(Threshold::Percent(50.0).tokens(200_000), 100_000);
    }

    #[test]
    fn overflow_errors_of_every_provider_are_recognised() {
        let api = |status, kind: &str, message: &str| ModelError::Api {
            provider: "x".into(),
            status,
            kind: kind.into(),
            message: message.into(),
            hint: String::new(),
            retry_after: None,
            should_retry: None,
        };
        let o = overflow(&api(
            400,
            "invalid_request_error",
            "prompt is too long: 213462 tokens > 200000 maximum",
        ))
        .unwrap();
        assert_eq!((o.tokens, o.maximum), (Some(213_462), Some(200_000)));
        let o = overflow(&api(400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 199000 + 8000 > 200000, decrease input length or `max_tokens` and try again")).unwrap();
        assert_eq!((o.tokens, o.maximum), (Some(199_000), Some(200_000)));
        let o = overflow(&api(400, "invalid_request_error", "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.")).unwrap();
        assert_eq!((o.tokens, o.maximum), (Some(130_512), Some(128_000)));
        let o = overflow(&api(400, "exceed_context_size_error", "request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it")).unwrap();
        assert_eq!((o.tokens, o.maximum), (Some(9412), Some(8192)));
        assert!(overflow(&api(400, "context_length_exceeded", "too big")).is_some());
        assert!(
            overflow(&api(
                400,
                "invalid_request_error",
                "messages: roles must alternate"
            ))
            .is_none()
        );
        assert!(overflow(&api(500, "api_error", "prompt is too long")).is_none());
    }

    #[test]
    fn the_meter_calibrates_and_ignores_nonsense() {
        let mut m = ContextMeter::new(None, "claude-sonnet-4-5", "anthropic");
        assert_eq!((m.window(), m.source()), (200_000, WindowSource::Table));
        assert_eq!(m.estimate(35_000), 10_000);
        m.observe(
            40_000,
            &Usage {
                input_tokens: 10,
                output_tokens: 1,
                ..Usage::default()
            },
        );
        assert_eq!(
            m.estimate(35_000),
            10_000,
            "10 tokens for 40 KB is not a tokenizer"
        );
        m.observe(
            40_000,
            &Usage {
                input_tokens: 2_000,
                cache_read_input_tokens: 8_000,
                ..Usage::default()
            },
        );
        assert_eq!(m.estimate(40_000), 10_000);
        m.learn_window(100_000);
        assert_eq!((m.window(), m.source()), (100_000, WindowSource::Learned));
        let mut c = ContextMeter::new(Some(50_000), "x", "openai");
        c.learn_window(80_000);
        assert_eq!(
            c.window(),
            50_000,
            "a configured window is kept unless the API says smaller"
        );
        assert_eq!(
            ContextMeter::new(None, "qwen3", "ollama").window(),
            DEFAULT_WINDOW_OTHER
        );
    }

    #[test]
    fn clearing_goes_oldest_first_keeps_the_newest_and_saves_artifacts() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(dir.path());
        let messages = session(6, 4000);
        let plan = plan_clear(&messages, 3, 7000, Some(&store));
        assert_eq!(plan.iter().map(|c| c.index).collect::<Vec<_>>(), vec![2, 4]);
        let ContentBlock::ToolResult(r) = &plan[0].message.content[0] else {
            panic!()
        };
        let text = r.text();
        assert!(text.starts_with(CLEARED_PREFIX), "{text}");
        assert!(
            text.contains("the result of Bash (4,000 bytes, 800 lines)"),
            "{text}"
        );
        assert!(
            text.contains("ReadOutput {\"artifact\": \"art_t0\"}"),
            "{text}"
        );
        assert_eq!(
            store.read("art_t0").unwrap(),
            "line\n".repeat(800).trim_end_matches('\n').to_owned() + "\n"
        );
        // Everything clearable at once; the newest 3 stay; stubs are not cleared again.
        let all = plan_clear(&messages, 3, usize::MAX, Some(&store));
        assert_eq!(all.len(), 3);
        let mut again = messages.clone();
        for c in all {
            again[c.index] = c.message;
        }
        assert!(plan_clear(&again, 3, usize::MAX, Some(&store)).is_empty());
    }

    #[test]
    fn an_artifact_saved_by_the_budget_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(dir.path());
        store.save("t0", "the FULL output").unwrap();
        let messages = session(2, 3000);
        let plan = plan_clear(&messages, 0, usize::MAX, Some(&store));
        assert_eq!(plan.len(), 2);
        assert_eq!(store.read("art_t0").unwrap(), "the FULL output");
    }

    #[test]
    fn the_cut_is_before_an_assistant_message_and_keeps_pairs_whole() {
        let messages = session(10, 2000);
        let cut = plan_summary(&messages, 5000).unwrap();
        assert_eq!(messages[cut].role, Role::Assistant);
        assert!(cut > 2 && cut < messages.len() - 1);
        let rebuilt = rebuild(&messages, cut, Ok("did things"));
        assert_eq!(rebuilt[0].role, Role::User);
        assert_eq!(rebuilt[1].role, Role::Assistant);
        let text = rebuilt[0].text();
        assert!(
            text.contains("The original task:\ncount the lines"),
            "{text}"
        );
        assert!(text.contains("did things"));
        // Too little to summarise.
        assert!(plan_summary(&session(1, 100), 10).is_none());
        // A second compaction keeps the original task.
        let twice = rebuild(&rebuilt, 3, Ok("more"));
        assert!(
            twice[0]
                .text()
                .contains("The original task:\ncount the lines\n\nSummary"),
            "{}",
            twice[0].text()
        );
    }

    #[test]
    fn thinking_blocks_stay_with_their_turn() {
        let thinking = || {
            ContentBlock::Thinking(tack_protocol::ThinkingBlock {
                thinking: "let me see".into(),
                signature: "sig==".into(),
                extra: Default::default(),
            })
        };
        let mut messages = vec![Message::user_text("task")];
        for i in 0..6 {
            let mut turn = call(&format!("t{i}"), "Bash", json!({"command": "ls"}));
            turn.content.insert(0, thinking());
            messages.push(turn);
            messages.push(result(&format!("t{i}"), &"x".repeat(3000)));
        }
        let cut = plan_summary(&messages, 4000).unwrap();
        let rebuilt = rebuild(&messages, cut, Ok("s"));
        // The kept turns are the originals, thinking first, each with its results next.
        assert_eq!(&rebuilt[1..], &messages[cut..]);
        assert!(matches!(rebuilt[1].content[0], ContentBlock::Thinking(_)));
        // Clearing results leaves assistant turns (and their thinking) alone.
        for c in plan_clear(&messages, 0, usize::MAX, None) {
            assert_eq!(messages[c.index].role, Role::User);
        }
    }

    #[test]
    fn the_fallback_lists_what_the_older_turns_did() {
        let mut messages = session(3, 100);
        messages.insert(1, call("r", "Read", json!({"file_path": "/a.rs"})));
        messages.insert(2, result("r", "fn main"));
        messages.insert(
            3,
            call(
                "w",
                "TodoWrite",
                json!({"todos": [{"content": "fix it", "status": "in_progress"}]}),
            ),
        );
        messages.insert(4, result("w", "ok"));
        let rebuilt = rebuild(&messages, 5, Err("API error 500"));
        let text = rebuilt[0].text();
        assert!(
            text.contains("No summary could be made: API error 500"),
            "{text}"
        );
        assert!(text.contains("Read ×1"), "{text}");
        assert!(text.contains("Files read: /a.rs."), "{text}");
        assert!(text.contains("- [in_progress] fix it"), "{text}");
    }

    #[test]
    fn the_summary_request_ends_with_the_instructions_and_fits() {
        let messages = session(20, 2000);
        let cut = plan_summary(&messages, 4000).unwrap();
        let req = summary_request(&messages, cut, SUMMARY_PROMPT, 10_000);
        assert!(req.iter().map(message_bytes).sum::<usize>() < 12_000);
        assert_eq!(req[0].text(), "count the lines");
        let last = req.last().unwrap();
        assert_eq!(last.role, Role::User);
        assert!(last.text().contains("about to be compacted"));
        // Roles still alternate.
        for pair in req.windows(2) {
            assert_ne!(pair[0].role, pair[1].role);
        }
    }
}
