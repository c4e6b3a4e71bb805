//! Anthropic prompt caching, as the Messages API documents it.
//!
//! A request is read as one sequence of blocks, in the order the API caches
//! them: every `tools[]` entry, then the `system` blocks (a string is one
//! block), then the content blocks of every message (a string content is one
//! block). The identity of a prefix is a running hash of the blocks' JSON as
//! sent, with each block's `cache_control` left out (moving a breakpoint
//! must not change the prefix it moved over), plus the model, the message
//! roles and, between tools and system, `tool_choice` and `thinking` (which
//! the API documents as invalidating the system and message caches but not
//! the tools cache).
//!
//! The rules (protocols-2.md §1, from the prompt caching docs):
//! - A block carrying `cache_control: {"type": "ephemeral"}` (a breakpoint)
//!   writes the prefix up to and including it, if that prefix has at least
//!   the minimum number of tokens (1024 here unless set); a shorter prefix
//!   is not cached, with no error. A top-level `cache_control` (automatic
//!   caching) is a breakpoint on the last block that may carry one.
//! - At most 4 breakpoints (a 5th is a 400); none on thinking blocks or
//!   empty text blocks (400), none on `defer_loading` tools (400).
//! - A read checks each breakpoint, then walks back one block at a time,
//!   20 positions in all (the breakpoint included), for a prefix an earlier
//!   request wrote; the longest hit is read.
//! - Usage: `cache_read_input_tokens` = the prefix read,
//!   `cache_creation_input_tokens` = from there to the last breakpoint
//!   written, `input_tokens` = the rest (after the last breakpoint); the
//!   total input is the sum of the three.
//!
//! Tokens are estimated as a quarter of the bytes of a block's JSON (rounded
//! up). TTLs are accepted (`5m`, `1h`) and split the creation count in
//! `cache_creation`, but entries never expire: a test is shorter than 5 minutes.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Map, Value};

/// The minimum cacheable prefix of most models (Sonnet 4.5, Opus 4.1, ...).
pub const DEFAULT_MIN_CACHEABLE_TOKENS: u64 = 1024;

/// How many blocks a read looks at per breakpoint, the breakpoint included.
pub const LOOKBACK_BLOCKS: usize = 20;

/// The most breakpoints one request may carry.
pub const MAX_BREAKPOINTS: usize = 4;

static NULL: Value = Value::Null;

/// Estimated tokens of a piece of JSON: bytes / 4, rounded up.
pub fn estimate_tokens(bytes: usize) -> u64 {
    u64::try_from(bytes.div_ceil(4)).unwrap_or(u64::MAX)
}

/// The cache's part of a response's usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUsage {
    /// Tokens after the last breakpoint written (or all, with none).
    pub input_tokens: u64,
    /// Tokens written to the cache by this request.
    pub cache_creation_input_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read_input_tokens: u64,
    /// Of the creation tokens, those written with the 5-minute TTL...
    pub ephemeral_5m_input_tokens: u64,
    /// ...and those written with the 1-hour TTL.
    pub ephemeral_1h_input_tokens: u64,
}

impl CacheUsage {
    /// All input tokens: the three counts summed.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ttl {
    FiveMinutes,
    OneHour,
}

/// One breakpoint: the block it sits on and its TTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Breakpoint {
    block: usize,
    ttl: Ttl,
}

/// A request read as the cache sees it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Layout {
    /// Identity of the prefix ending with block `i`.
    prefix_ids: Vec<u64>,
    /// Tokens of the prefix ending with block `i`.
    prefix_tokens: Vec<u64>,
    breakpoints: Vec<Breakpoint>,
}

impl Layout {
    fn total_tokens(&self) -> u64 {
        self.prefix_tokens.last().copied().unwrap_or(0)
    }
}

/// A block of the request, before hashing.
struct Block<'a> {
    /// `tools.3`, `system.0`, `messages.2.content.1`: for error messages.
    path: String,
    value: &'a Value,
    /// What the hash takes in before this block (a message's role, the
    /// tool_choice after the tools).
    preamble: Option<String>,
    /// A string `system`/`content`, read as one text block.
    text: Option<&'a str>,
    kind: BlockKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Tool,
    System,
    Content,
}

fn blocks(body: &Map<String, Value>) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    if let Some(Value::Array(tools)) = body.get("tools") {
        for (n, tool) in tools.iter().enumerate() {
            out.push(Block {
                path: format!("tools.{n}"),
                value: tool,
                preamble: None,
                text: None,
                kind: BlockKind::Tool,
            });
        }
    }
    // Changing these invalidates the system and message caches, not the tools'.
    let after_tools = format!(
        "tool_choice={}|thinking={}",
        body.get("tool_choice").unwrap_or(&Value::Null),
        body.get("thinking").unwrap_or(&Value::Null)
    );
    let mut preamble = Some(after_tools);
    match body.get("system") {
        Some(Value::String(s)) if !s.is_empty() => out.push(Block {
            path: "system".to_owned(),
            value: &NULL,
            preamble: preamble.take(),
            text: Some(s),
            kind: BlockKind::System,
        }),
        Some(Value::Array(items)) => {
            for (j, item) in items.iter().enumerate() {
                out.push(Block {
                    path: format!("system.{j}"),
                    value: item,
                    preamble: preamble.take(),
                    text: None,
                    kind: BlockKind::System,
                });
            }
        }
        _ => {}
    }
    if let Some(Value::Array(messages)) = body.get("messages") {
        for (i, message) in messages.iter().enumerate() {
            let role = message.get("role").and_then(Value::as_str).unwrap_or("");
            let mut message_preamble = Some(format!(
                "{}role={role}",
                preamble.take().unwrap_or_default()
            ));
            match message.get("content") {
                Some(Value::String(s)) => out.push(Block {
                    path: format!("messages.{i}.content"),
                    value: &NULL,
                    preamble: message_preamble.take(),
                    text: Some(s),
                    kind: BlockKind::Content,
                }),
                Some(Value::Array(items)) => {
                    for (j, item) in items.iter().enumerate() {
                        out.push(Block {
                            path: format!("messages.{i}.content.{j}"),
                            value: item,
                            preamble: message_preamble.take(),
                            text: None,
                            kind: BlockKind::Content,
                        });
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The JSON of a block as the cache identifies it: as sent, minus `cache_control`.
fn identity(block: &Block<'_>) -> String {
    if let Some(text) = block.text {
        return serde_json::json!({"type": "text", "text": text}).to_string();
    }
    match block.value {
        Value::Object(map) if map.contains_key("cache_control") => {
            let mut map = map.clone();
            map.shift_remove("cache_control");
            Value::Object(map).to_string()
        }
        other => other.to_string(),
    }
}

/// Why a breakpoint is refused; `None` when it may sit on this block.
fn refuse_breakpoint(block: &Block<'_>) -> Option<String> {
    let path = &block.path;
    let kind = block
        .value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("");
    match block.kind {
        BlockKind::Tool if block.value.get("defer_loading") == Some(&Value::Bool(true)) => Some(
            format!("{path}: cache_control cannot be set on a tool with defer_loading=true"),
        ),
        BlockKind::Content if kind == "thinking" || kind == "redacted_thinking" => Some(format!(
            "{path}.{kind}.cache_control: Extra inputs are not permitted"
        )),
        BlockKind::System | BlockKind::Content
            if kind == "text"
                && block
                    .value
                    .get("text")
                    .and_then(Value::as_str)
                    .is_some_and(str::is_empty) =>
        {
            Some(format!(
                "{path}.text: cache_control cannot be set for empty text blocks"
            ))
        }
        _ => None,
    }
}

fn parse_marker(path: &str, marker: &Value) -> Result<Ttl, String> {
    match marker.get("type").and_then(Value::as_str) {
        Some("ephemeral") => {}
        _ => {
            return Err(format!(
                "{path}.cache_control.type: Input should be 'ephemeral'"
            ));
        }
    }
    match marker.get("ttl") {
        None | Some(Value::Null) => Ok(Ttl::FiveMinutes),
        Some(Value::String(t)) if t == "5m" => Ok(Ttl::FiveMinutes),
        Some(Value::String(t)) if t == "1h" => Ok(Ttl::OneHour),
        Some(_) => Err(format!(
            "{path}.cache_control.ephemeral.ttl: Input should be '5m' or '1h'"
        )),
    }
}

/// Read a Messages request as the cache sees it; the error is the 400's
/// message for a misplaced or extra breakpoint.
pub(crate) fn layout(body: &Value) -> Result<Layout, String> {
    let Some(obj) = body.as_object() else {
        return Ok(Layout::default());
    };
    let blocks = blocks(obj);
    let mut layout = Layout::default();
    let mut hasher = DefaultHasher::new();
    obj.get("model")
        .and_then(Value::as_str)
        .unwrap_or("")
        .hash(&mut hasher);
    let mut tokens = 0u64;
    for (i, block) in blocks.iter().enumerate() {
        if let Some(preamble) = &block.preamble {
            preamble.hash(&mut hasher);
        }
        let id = identity(block);
        id.hash(&mut hasher);
        tokens += estimate_tokens(id.len());
        layout.prefix_ids.push(hasher.clone().finish());
        layout.prefix_tokens.push(tokens);
        if let Some(marker) = block.value.get("cache_control").filter(|m| !m.is_null()) {
            if let Some(why) = refuse_breakpoint(block) {
                return Err(why);
            }
            let ttl = parse_marker(&block.path, marker)?;
            layout.breakpoints.push(Breakpoint { block: i, ttl });
        }
    }
    if let Some(marker) = obj.get("cache_control").filter(|m| !m.is_null()) {
        let ttl = parse_marker("", marker).map_err(|e| e.trim_start_matches('.').to_owned())?;
        // Automatic caching: the last block that may carry a breakpoint.
        let last = blocks.iter().rposition(|b| {
            b.text
                .map_or_else(|| refuse_breakpoint(b).is_none(), |t| !t.is_empty())
        });
        if let Some(block) = last
            && !layout.breakpoints.iter().any(|b| b.block == block)
        {
            layout.breakpoints.push(Breakpoint { block, ttl });
        }
    }
    if layout.breakpoints.len() > MAX_BREAKPOINTS {
        return Err(format!(
            "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {}.",
            layout.breakpoints.len()
        ));
    }
    Ok(layout)
}

/// The prefixes written so far, across requests, and the minimum length.
#[derive(Debug, Clone)]
pub struct PromptCache {
    min_tokens: u64,
    entries: HashSet<u64>,
}

impl Default for PromptCache {
    fn default() -> Self {
        PromptCache::new(DEFAULT_MIN_CACHEABLE_TOKENS)
    }
}

impl PromptCache {
    /// An empty cache that writes prefixes of at least `min_tokens`.
    pub fn new(min_tokens: u64) -> PromptCache {
        PromptCache {
            min_tokens,
            entries: HashSet::new(),
        }
    }

    /// The minimum cacheable prefix, in estimated tokens.
    pub fn min_tokens(&self) -> u64 {
        self.min_tokens
    }

    /// Change the minimum; entries written stay.
    pub fn set_min_tokens(&mut self, min_tokens: u64) {
        self.min_tokens = min_tokens;
    }

    /// Forget every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many prefixes are cached.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Serve one Messages request body: read what earlier requests wrote,
    /// write this request's breakpoints, and say how its input tokens split.
    /// The error is the 400's message of a request with misplaced or too
    /// many breakpoints (nothing is read or written then).
    pub fn serve(&mut self, body: &Value) -> Result<CacheUsage, String> {
        Ok(self.apply(&layout(body)?))
    }

    pub(crate) fn apply(&mut self, layout: &Layout) -> CacheUsage {
        let total = layout.total_tokens();
        // Read: from each breakpoint, look back for the longest written prefix.
        let mut read_end: Option<usize> = None;
        for bp in &layout.breakpoints {
            let first = bp.block.saturating_sub(LOOKBACK_BLOCKS - 1);
            let hit = (first..=bp.block)
                .rev()
                .find(|&pos| self.entries.contains(&layout.prefix_ids[pos]));
            read_end = read_end.max(hit);
        }
        let read = read_end.map_or(0, |p| layout.prefix_tokens[p]);
        // Write: every breakpoint whose prefix is long enough.
        let mut usage = CacheUsage {
            cache_read_input_tokens: read,
            ..CacheUsage::default()
        };
        let mut written_to = read;
        for bp in &layout.breakpoints {
            let tokens = layout.prefix_tokens[bp.block];
            if tokens < self.min_tokens {
                continue;
            }
            self.entries.insert(layout.prefix_ids[bp.block]);
            if tokens > written_to {
                let fresh = tokens - written_to;
                match bp.ttl {
                    Ttl::FiveMinutes => usage.ephemeral_5m_input_tokens += fresh,
                    Ttl::OneHour => usage.ephemeral_1h_input_tokens += fresh,
                }
                usage.cache_creation_input_tokens += fresh;
                written_to = tokens;
            }
        }
        usage.input_tokens = total.saturating_sub(written_to);
        usage
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{CacheUsage, PromptCache, estimate_tokens, layout};

    const MARK: &str = r#"{"type":"ephemeral"}"#;

    fn mark() -> Value {
        serde_json::from_str(MARK).unwrap()
    }

    /// A text block of about `tokens` estimated tokens (its JSON is `4 * tokens` bytes).
    fn text(tokens: usize, tag: &str) -> Value {
        let overhead = json!({"type": "text", "text": tag}).to_string().len();
        let pad = (4 * tokens).saturating_sub(overhead);
        json!({"type": "text", "text": format!("{tag}{}", "x".repeat(pad))})
    }

    fn marked(mut block: Value) -> Value {
        block["cache_control"] = mark();
        block
    }

    fn tool(name: &str, tokens: usize) -> Value {
        let overhead = json!({"name": name, "description": "", "input_schema": {"type": "object"}})
            .to_string()
            .len();
        json!({"name": name, "description": "d".repeat((4 * tokens).saturating_sub(overhead)),
               "input_schema": {"type": "object"}})
    }

    fn body(tools: Vec<Value>, system: Option<Value>, messages: Vec<Value>) -> Value {
        let mut b = json!({"model": "claude-test", "max_tokens": 10, "messages": messages});
        if !tools.is_empty() {
            b["tools"] = Value::Array(tools);
        }
        if let Some(s) = system {
            b["system"] = s;
        }
        b
    }

    fn user(blocks: Vec<Value>) -> Value {
        json!({"role": "user", "content": blocks})
    }

    fn assistant(blocks: Vec<Value>) -> Value {
        json!({"role": "assistant", "content": blocks})
    }

    fn total(b: &Value) -> u64 {
        layout(b).unwrap().total_tokens()
    }

    #[test]
    fn tokens_are_a_quarter_of_the_bytes_rounded_up() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(8), 2);
        assert_eq!(estimate_tokens(9), 3);
        assert_eq!(
            total(&body(vec![], None, vec![user(vec![text(300, "a")])])),
            300
        );
    }

    #[test]
    fn no_breakpoint_nothing_cached_everything_is_input() {
        let mut cache = PromptCache::new(100);
        let b = body(vec![tool("A", 500)], None, vec![user(vec![text(300, "q")])]);
        for _ in 0..2 {
            let u = cache.serve(&b).unwrap();
            assert_eq!(
                u,
                CacheUsage {
                    input_tokens: 800,
                    ..Default::default()
                }
            );
        }
        assert!(cache.is_empty());
    }

    #[test]
    fn a_breakpoint_writes_then_the_same_prefix_is_read() {
        let mut cache = PromptCache::new(100);
        let b = body(
            vec![tool("A", 200), marked(tool("B", 300))],
            None,
            vec![user(vec![text(50, "q")])],
        );
        let first = cache.serve(&b).unwrap();
        assert_eq!(first.cache_creation_input_tokens, 500);
        assert_eq!(first.ephemeral_5m_input_tokens, 500);
        assert_eq!(first.cache_read_input_tokens, 0);
        assert_eq!(first.input_tokens, 50);
        let second = cache.serve(&b).unwrap();
        assert_eq!(second.cache_creation_input_tokens, 0);
        assert_eq!(second.cache_read_input_tokens, 500);
        assert_eq!(second.input_tokens, 50);
        assert_eq!(second.total_input(), first.total_input());
    }

    #[test]
    fn below_the_minimum_nothing_is_written_and_no_error() {
        let mut cache = PromptCache::new(1024);
        let b = body(
            vec![marked(tool("A", 1000))],
            None,
            vec![user(vec![text(10, "q")])],
        );
        for _ in 0..2 {
            let u = cache.serve(&b).unwrap();
            assert_eq!(u.cache_creation_input_tokens + u.cache_read_input_tokens, 0);
            assert_eq!(u.input_tokens, 1010);
        }
        cache.set_min_tokens(1000);
        assert_eq!(cache.serve(&b).unwrap().cache_creation_input_tokens, 1000);
    }

    #[test]
    fn the_prefix_order_is_tools_system_messages_and_a_tool_change_invalidates_all() {
        let mut cache = PromptCache::new(100);
        let system = json!([marked(text(200, "sys"))]);
        let b1 = body(
            vec![tool("A", 200)],
            Some(system.clone()),
            vec![user(vec![text(50, "q")])],
        );
        assert_eq!(cache.serve(&b1).unwrap().cache_creation_input_tokens, 400);
        // The system breakpoint covers the tools before it.
        let b2 = body(
            vec![tool("A", 201)],
            Some(system.clone()),
            vec![user(vec![text(50, "q")])],
        );
        let u = cache.serve(&b2).unwrap();
        assert_eq!(
            u.cache_read_input_tokens, 0,
            "a changed tool invalidates the system"
        );
        assert_eq!(u.cache_creation_input_tokens, 401);
        // A change in the messages leaves the system prefix readable.
        let b3 = body(
            vec![tool("A", 201)],
            Some(system),
            vec![user(vec![text(70, "other")])],
        );
        let u = cache.serve(&b3).unwrap();
        assert_eq!(u.cache_read_input_tokens, 401);
        assert_eq!(u.input_tokens, 70);
    }

    #[test]
    fn tool_choice_invalidates_system_and_messages_but_not_tools() {
        let mut cache = PromptCache::new(100);
        let mut b = body(
            vec![marked(tool("A", 300))],
            Some(json!([marked(text(200, "sys"))])),
            vec![user(vec![text(50, "q")])],
        );
        cache.serve(&b).unwrap();
        b["tool_choice"] = json!({"type": "any"});
        let u = cache.serve(&b).unwrap();
        assert_eq!(u.cache_read_input_tokens, 300);
        assert_eq!(u.cache_creation_input_tokens, 200);
    }

    #[test]
    fn a_string_system_is_one_block_and_equals_nothing_else() {
        let mut cache = PromptCache::new(100);
        let mut b = body(
            vec![marked(tool("A", 300))],
            Some(json!("be brief")),
            vec![],
        );
        b["messages"] = json!([{"role": "user", "content": "hi"}]);
        let u = cache.serve(&b).unwrap();
        assert_eq!(u.cache_creation_input_tokens, 300);
        assert!(u.input_tokens > 0);
        b["system"] = json!("be long");
        assert_eq!(cache.serve(&b).unwrap().cache_read_input_tokens, 300);
    }

    #[test]
    fn a_moved_breakpoint_reads_the_previous_prefix_and_writes_the_new_part() {
        let mut cache = PromptCache::new(100);
        let tools = vec![marked(tool("A", 500))];
        let r1 = body(
            tools.clone(),
            None,
            vec![user(vec![marked(text(100, "q1"))])],
        );
        let u1 = cache.serve(&r1).unwrap();
        assert_eq!(u1.cache_creation_input_tokens, 600);
        assert_eq!(u1.input_tokens, 0);
        let r2 = body(
            tools,
            None,
            vec![
                user(vec![text(100, "q1")]),
                assistant(vec![text(40, "a1")]),
                user(vec![marked(text(60, "q2"))]),
            ],
        );
        let u2 = cache.serve(&r2).unwrap();
        assert_eq!(
            u2.cache_read_input_tokens, 600,
            "cache_control is not part of the prefix"
        );
        assert_eq!(u2.cache_creation_input_tokens, 100);
        assert_eq!(u2.input_tokens, 0);
    }

    #[test]
    fn a_changed_block_before_the_breakpoint_misses_after_it() {
        let mut cache = PromptCache::new(100);
        let r1 = body(
            vec![marked(tool("A", 500))],
            None,
            vec![user(vec![text(100, "q1"), marked(text(100, "q2"))])],
        );
        cache.serve(&r1).unwrap();
        let r2 = body(
            vec![marked(tool("A", 500))],
            None,
            vec![user(vec![text(100, "Q1"), marked(text(100, "q2"))])],
        );
        let u = cache.serve(&r2).unwrap();
        assert_eq!(u.cache_read_input_tokens, 500);
        assert_eq!(u.cache_creation_input_tokens, 200);
    }

    #[test]
    fn key_order_is_part_of_the_identity() {
        let mut cache = PromptCache::new(10);
        let use_a: Value = serde_json::from_str(
            r#"{"type":"tool_use","id":"t1","name":"A","input":{"a":1,"b":2}}"#,
        )
        .unwrap();
        let use_b: Value = serde_json::from_str(
            r#"{"type":"tool_use","id":"t1","name":"A","input":{"b":2,"a":1}}"#,
        )
        .unwrap();
        let result = marked(json!({"type": "tool_result", "tool_use_id": "t1", "content": "ok"}));
        let conv = |u: &Value| {
            body(
                vec![],
                None,
                vec![
                    user(vec![text(50, "q")]),
                    assistant(vec![u.clone()]),
                    user(vec![result.clone()]),
                ],
            )
        };
        cache.serve(&conv(&use_a)).unwrap();
        assert!(cache.serve(&conv(&use_a)).unwrap().cache_read_input_tokens > 0);
        assert_eq!(
            cache.serve(&conv(&use_b)).unwrap().cache_read_input_tokens,
            0
        );
    }

    /// A conversation of `n` single-block messages after a marked tool.
    fn long(n: usize, marks: &[usize]) -> Value {
        let messages = (0..n)
            .map(|i| {
                let mut block = text(20, &format!("m{i}"));
                if marks.contains(&i) {
                    block = marked(block);
                }
                if i % 2 == 0 {
                    user(vec![block])
                } else {
                    assistant(vec![block])
                }
            })
            .collect();
        body(vec![marked(tool("A", 500))], None, messages)
    }

    #[test]
    fn the_lookback_finds_a_write_up_to_20_blocks_back_and_no_further() {
        // Block 0 is the tool; message i is block i + 1.
        let mut cache = PromptCache::new(100);
        cache.serve(&long(3, &[2])).unwrap(); // writes through block 3
        // The new breakpoint on block 22: 3 is 20 positions back, counting 22.
        let u = cache.serve(&long(22, &[21])).unwrap();
        assert_eq!(u.cache_read_input_tokens, 500 + 3 * 20);

        let mut cache = PromptCache::new(100);
        cache.serve(&long(3, &[2])).unwrap();
        // Block 23: block 3 is 21 positions back; only the tool's prefix is found.
        let u = cache.serve(&long(23, &[22])).unwrap();
        assert_eq!(u.cache_read_input_tokens, 500);
        assert_eq!(u.cache_creation_input_tokens, 23 * 20);
        // A second breakpoint on the last write reads it.
        let mut cache = PromptCache::new(100);
        cache.serve(&long(3, &[2])).unwrap();
        let u = cache.serve(&long(23, &[2, 22])).unwrap();
        assert_eq!(u.cache_read_input_tokens, 500 + 3 * 20);
        assert_eq!(u.cache_creation_input_tokens, 20 * 20);
    }

    #[test]
    fn ttls_split_the_creation_count() {
        let mut cache = PromptCache::new(100);
        let mut t = tool("A", 300);
        t["cache_control"] = json!({"type": "ephemeral", "ttl": "1h"});
        let b = body(vec![t], None, vec![user(vec![marked(text(200, "q"))])]);
        let u = cache.serve(&b).unwrap();
        assert_eq!(u.ephemeral_1h_input_tokens, 300);
        assert_eq!(u.ephemeral_5m_input_tokens, 200);
        assert_eq!(u.cache_creation_input_tokens, 500);
    }

    #[test]
    fn automatic_caching_marks_the_last_eligible_block() {
        let mut cache = PromptCache::new(100);
        let mut b = body(
            vec![tool("A", 300)],
            None,
            vec![
                user(vec![text(100, "q")]),
                assistant(vec![
                    text(50, "a"),
                    json!({"type": "thinking", "thinking": "", "signature": "s"}),
                ]),
            ],
        );
        b["cache_control"] = mark();
        let u = cache.serve(&b).unwrap();
        assert_eq!(u.cache_creation_input_tokens, 450);
        assert_eq!(u.input_tokens, total(&b) - 450);
    }

    #[test]
    fn more_than_four_breakpoints_is_the_api_error() {
        let b = long(5, &[0, 1, 2, 3]);
        assert_eq!(
            layout(&b).unwrap_err(),
            "A maximum of 4 blocks with cache_control may be provided. Found 5."
        );
        let mut b = long(5, &[0, 1, 2]);
        assert!(layout(&b).is_ok());
        b["cache_control"] = mark();
        assert_eq!(
            layout(&b).unwrap_err(),
            "A maximum of 4 blocks with cache_control may be provided. Found 5."
        );
    }

    #[test]
    fn breakpoints_on_thinking_or_empty_text_are_refused() {
        let thinking = body(
            vec![],
            None,
            vec![
                user(vec![text(10, "q")]),
                assistant(vec![marked(
                    json!({"type": "thinking", "thinking": "hm", "signature": "s"}),
                )]),
            ],
        );
        assert_eq!(
            layout(&thinking).unwrap_err(),
            "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted"
        );
        let empty = body(
            vec![],
            None,
            vec![user(vec![
                text(10, "q"),
                marked(json!({"type": "text", "text": ""})),
            ])],
        );
        assert_eq!(
            layout(&empty).unwrap_err(),
            "messages.0.content.1.text: cache_control cannot be set for empty text blocks"
        );
        let mut bad = long(1, &[]);
        bad["messages"][0]["content"][0]["cache_control"] = json!({"type": "persistent"});
        assert_eq!(
            layout(&bad).unwrap_err(),
            "messages.0.content.0.cache_control.type: Input should be 'ephemeral'"
        );
    }

    #[test]
    fn a_different_model_has_a_cache_of_its_own() {
        let mut cache = PromptCache::new(100);
        let mut b = long(1, &[]);
        cache.serve(&b).unwrap();
        assert_eq!(cache.serve(&b).unwrap().cache_read_input_tokens, 500);
        b["model"] = json!("claude-other");
        assert_eq!(cache.serve(&b).unwrap().cache_read_input_tokens, 0);
    }
}
