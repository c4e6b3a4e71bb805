//! Request validation: reject malformed conversations the way the real APIs do.
//!
//! Both functions report the first failure only, with the real API's message
//! text where it is known (gathered from public error reports). Checks run in
//! this order: top-level fields, messages and roles, tools, tool_choice, then
//! the conversation (tool call / tool result pairing), message by message.

use std::collections::HashSet;

use serde_json::{Map, Value};
use tack_protocol::{ContentBlock, Role, is_valid_tool_name};

/// Why a request was refused (HTTP 400, `invalid_request_error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The error message, as the real API words it.
    pub message: String,
    /// OpenAI's `param` (the offending field), if any.
    pub param: Option<String>,
    /// OpenAI's `code`, if any.
    pub code: Option<String>,
}

impl Rejection {
    fn new(message: impl Into<String>) -> Rejection {
        Rejection {
            message: message.into(),
            param: None,
            code: None,
        }
    }

    fn param(mut self, param: impl Into<String>) -> Rejection {
        self.param = Some(param.into());
        self
    }

    fn code(mut self, code: &str) -> Rejection {
        self.code = Some(code.to_owned());
        self
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

type Check = std::result::Result<(), Rejection>;

fn fail<T>(message: impl Into<String>) -> std::result::Result<T, Rejection> {
    Err(Rejection::new(message))
}

const TOOL_NAME_PATTERN: &str = "^[a-zA-Z0-9_-]{1,64}$";

// ---------------------------------------------------------------- Anthropic

/// The beta that lets `messages` carry `role: "system"` messages between
/// turns (Claude Code 2.1 sends its reminders that way).
pub const MID_CONVERSATION_SYSTEM_BETA: &str = "mid-conversation-system-2026-04-07";

/// Validate a Messages API request body (`POST /v1/messages`).
pub fn anthropic_request(body: &Value) -> Check {
    anthropic_request_with_betas(body, &[])
}

/// [`anthropic_request`] for a request that sent these `anthropic-beta`
/// values: with [`MID_CONVERSATION_SYSTEM_BETA`], a `system` message after
/// the first is accepted (its content text only) and stays out of the
/// user/assistant alternation.
pub fn anthropic_request_with_betas(body: &Value, betas: &[String]) -> Check {
    let system_messages = betas.iter().any(|b| b == MID_CONVERSATION_SYSTEM_BETA);
    let Some(obj) = body.as_object() else {
        return fail("body: Input should be a valid dictionary");
    };
    match obj.get("model") {
        None | Some(Value::Null) => return fail("model: Field required"),
        Some(Value::String(s)) if s.is_empty() => {
            return fail("model: String should have at least 1 character");
        }
        Some(Value::String(_)) => {}
        Some(_) => return fail("model: Input should be a valid string"),
    }
    match obj.get("max_tokens") {
        None | Some(Value::Null) => return fail("max_tokens: Field required"),
        Some(v) => match v.as_i64() {
            Some(n) if n >= 1 => {}
            Some(_) => return fail("max_tokens: Input should be greater than or equal to 1"),
            None => return fail("max_tokens: Input should be a valid integer"),
        },
    }
    let raw_messages = match obj.get("messages") {
        None | Some(Value::Null) => return fail("messages: Field required"),
        Some(Value::Array(a)) => a,
        Some(_) => return fail("messages: Input should be a valid list"),
    };
    if raw_messages.is_empty() {
        return fail("messages: at least one message is required");
    }
    let mut messages = Vec::with_capacity(raw_messages.len());
    for (i, m) in raw_messages.iter().enumerate() {
        if system_messages && i > 0 && m.get("role").and_then(Value::as_str) == Some("system") {
            mid_conversation_system(i, m)?;
            continue;
        }
        messages.push(parse_anthropic_message(i, m)?);
    }
    if messages[0].0 != Role::User {
        return fail("messages: first message must use the \"user\" role");
    }
    let tool_names = anthropic_tools(obj)?;
    anthropic_tool_choice(obj, &tool_names)?;
    tool_references(raw_messages, &tool_names)?;
    anthropic_conversation(&merge_turns(messages))?;
    // Breakpoints: where `cache_control` may sit, and how many.
    crate::cache::layout(body)
        .map(|_| ())
        .map_err(Rejection::new)
}

fn mid_conversation_system(i: usize, m: &Value) -> Check {
    match m.get("content") {
        Some(Value::String(s)) if !s.is_empty() => Ok(()),
        Some(Value::Array(blocks))
            if !blocks.is_empty()
                && blocks
                    .iter()
                    .all(|b| b.get("type").and_then(Value::as_str) == Some("text")) =>
        {
            Ok(())
        }
        _ => fail(format!(
            "messages.{i}.content: a system message must be a non-empty string or text blocks"
        )),
    }
}

fn parse_anthropic_message(
    i: usize,
    m: &Value,
) -> std::result::Result<(Role, Vec<ContentBlock>), Rejection> {
    let Some(mo) = m.as_object() else {
        return fail(format!("messages.{i}: Input should be a valid dictionary"));
    };
    let role = match mo.get("role").and_then(Value::as_str) {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("system") => {
            return fail(
                "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.",
            );
        }
        Some(_) => {
            return fail(format!(
                "messages.{i}.role: Input should be 'user' or 'assistant'"
            ));
        }
        None => return fail(format!("messages.{i}.role: Field required")),
    };
    let content = match mo.get("content") {
        None | Some(Value::Null) => return fail(format!("messages.{i}.content: Field required")),
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![ContentBlock::text(s.clone())],
        Some(Value::Array(items)) => {
            let mut blocks = Vec::with_capacity(items.len());
            for (j, item) in items.iter().enumerate() {
                blocks.push(parse_anthropic_block(
                    &format!("messages.{i}.content.{j}"),
                    item,
                )?);
            }
            blocks
        }
        Some(_) => {
            return fail(format!(
                "messages.{i}.content: Input should be a valid list"
            ));
        }
    };
    Ok((role, content))
}

/// Required fields of the block types tack models; a block of one of these
/// types that lacks one is refused (the protocol crate would keep it as
/// `Unknown`).
fn required_fields(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "text" => &["text"],
        "image" => &["source"],
        "tool_use" => &["id", "name", "input"],
        "tool_result" => &["tool_use_id"],
        "thinking" => &["thinking", "signature"],
        "redacted_thinking" => &["data"],
        _ => return None,
    })
}

fn parse_anthropic_block(path: &str, item: &Value) -> std::result::Result<ContentBlock, Rejection> {
    let Some(obj) = item.as_object() else {
        return fail(format!("{path}: Input should be a valid dictionary"));
    };
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        return fail(format!("{path}.type: Field required"));
    };
    if let Some(fields) = required_fields(kind) {
        for field in fields {
            if !obj.contains_key(*field) {
                return fail(format!("{path}.{kind}.{field}: Field required"));
            }
        }
    }
    let block: ContentBlock =
        serde_json::from_value(item.clone()).map_err(|e| Rejection::new(format!("{path}: {e}")))?;
    if matches!(block, ContentBlock::Unknown(_)) && required_fields(kind).is_some() {
        return fail(format!(
            "{path}.{kind}: Input should be a valid `{kind}` block"
        ));
    }
    Ok(block)
}

fn anthropic_tools(obj: &Map<String, Value>) -> std::result::Result<Vec<String>, Rejection> {
    let tools = match obj.get("tools") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return fail("tools: Input should be a valid list"),
    };
    let mut names = Vec::with_capacity(tools.len());
    for (n, tool) in tools.iter().enumerate() {
        let Some(t) = tool.as_object() else {
            return fail(format!("tools.{n}: Input should be a valid dictionary"));
        };
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            return fail(format!("tools.{n}.name: Field required"));
        };
        if !is_valid_tool_name(name) {
            return fail(format!(
                "tools.{n}.name: String should match pattern '{TOOL_NAME_PATTERN}'"
            ));
        }
        names.push(name.to_owned());
    }
    let mut seen = HashSet::new();
    if !names.iter().all(|n| seen.insert(n.as_str())) {
        return fail("tools: Tool names must be unique.");
    }
    deferred_tools(tools)?;
    for (n, tool) in tools.iter().enumerate() {
        // Server tools (`{"type": "web_search_20250305", ...}`) carry no schema.
        let kind = tool.get("type").and_then(Value::as_str);
        let custom = matches!(kind, None | Some("custom"));
        if !custom {
            if tool.get("input_examples").is_some() {
                return fail(format!(
                    "tools.{n}.{}.input_examples: Extra inputs are not permitted",
                    kind.unwrap_or("custom")
                ));
            }
            continue;
        }
        match tool.get("input_schema") {
            None | Some(Value::Null) => {
                return fail(format!("tools.{n}.input_schema: Field required"));
            }
            Some(Value::Object(schema)) => match schema.get("type") {
                None => return fail(format!("tools.{n}.input_schema.type: Field required")),
                Some(Value::String(t)) if t == "object" => {}
                Some(_) => {
                    return fail(format!(
                        "tools.{n}.input_schema.type: Input should be 'object'"
                    ));
                }
            },
            Some(_) => {
                return fail(format!(
                    "tools.{n}.input_schema: Input should be a valid dictionary"
                ));
            }
        }
        input_examples(n, &names[n], tool)?;
    }
    Ok(names)
}

/// Client-side tool search (protocols-2.md §2): `defer_loading` is a
/// boolean; at least one tool stays loaded; at most 10,000 are deferred.
fn deferred_tools(tools: &[Value]) -> Check {
    let mut deferred = 0usize;
    for (n, tool) in tools.iter().enumerate() {
        match tool.get("defer_loading") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => {}
            Some(Value::Bool(true)) => deferred += 1,
            Some(_) => {
                return fail(format!(
                    "tools.{n}.defer_loading: Input should be a valid boolean"
                ));
            }
        }
    }
    if deferred > 0 && deferred == tools.len() {
        return fail(
            "At least one tool must have defer_loading=false. All tools cannot be deferred.",
        );
    }
    if deferred > MAX_DEFERRED_TOOLS {
        return fail(format!(
            "tools: at most {MAX_DEFERRED_TOOLS} tools can have defer_loading=true, got {deferred}"
        ));
    }
    Ok(())
}

/// The most deferred tools one request may carry.
const MAX_DEFERRED_TOOLS: usize = 10_000;

/// Every `tool_reference` in a `tool_result` names a tool of the request
/// (the API expands it into that tool's definition).
fn tool_references(messages: &[Value], tools: &[String]) -> Check {
    for (i, message) in messages.iter().enumerate() {
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            continue;
        };
        for (j, block) in blocks.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let Some(inner) = block.get("content").and_then(Value::as_array) else {
                continue;
            };
            for (k, item) in inner.iter().enumerate() {
                if item.get("type").and_then(Value::as_str) != Some("tool_reference") {
                    continue;
                }
                let Some(name) = item.get("tool_name").and_then(Value::as_str) else {
                    return fail(format!(
                        "messages.{i}.content.{j}.tool_result.content.{k}.tool_reference.tool_name: Field required"
                    ));
                };
                if !tools.iter().any(|t| t == name) {
                    return fail(format!(
                        "Tool reference '{name}' not found in available tools"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A custom tool's `input_examples`: a list of objects, each valid against
/// the tool's `input_schema` (checked with the JSON Schema validator tack's
/// own registry uses). The API's wording for an example that does not match
/// is not known; this one names the tool, the example (from 0, as the path
/// does) and what does not match.
fn input_examples(n: usize, name: &str, tool: &Value) -> Check {
    let examples = match tool.get("input_examples") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(examples)) => examples,
        Some(_) => {
            return fail(format!(
                "tools.{n}.input_examples: Input should be a valid list"
            ));
        }
    };
    if let Some(k) = examples.iter().position(|e| !e.is_object()) {
        return fail(format!(
            "tools.{n}.input_examples.{k}: Input should be a valid dictionary"
        ));
    }
    let schema = tool.get("input_schema").cloned().unwrap_or(Value::Null);
    let mut registry = tack_tool::ToolRegistry::new();
    if registry
        .register(std::sync::Arc::new(SchemaOnly {
            name: name.to_owned(),
            schema,
        }))
        .is_err()
    {
        // A schema the validator cannot compile: nothing to check against.
        return Ok(());
    }
    match registry.set_input_examples(name, examples.clone()) {
        Err(tack_tool::RegistryError::BadExample { index, message, .. }) => {
            let k = index.saturating_sub(1);
            fail(format!(
                "tools.{n}.input_examples.{k}: input example {k} of tool '{name}' does not match the tool's input_schema: {message}"
            ))
        }
        _ => Ok(()),
    }
}

/// A tool that is only a name and a schema: the mock checks examples with
/// the registry's validator.
struct SchemaOnly {
    name: String,
    schema: Value,
}

#[async_trait::async_trait]
impl tack_tool::Tool for SchemaOnly {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        ""
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    async fn call(
        &self,
        _input: Value,
        _ctx: tack_tool::ToolContext,
    ) -> Result<tack_tool::ToolOutput, tack_tool::ToolError> {
        Err(tack_tool::ToolError::Internal("never called".into()))
    }
}

fn anthropic_tool_choice(obj: &Map<String, Value>, tool_names: &[String]) -> Check {
    let Some(choice) = obj.get("tool_choice").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    match choice.get("type").and_then(Value::as_str) {
        Some("auto" | "any" | "none") => Ok(()),
        Some("tool") => match choice.get("name").and_then(Value::as_str) {
            None => fail("tool_choice.tool.name: Field required"),
            Some(name) if tool_names.iter().any(|t| t == name) => Ok(()),
            Some(name) => fail(format!(
                "tool_choice.name: Tool '{name}' not found in the provided tools"
            )),
        },
        _ => fail(
            "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
        ),
    }
}

fn tool_use_ids(blocks: &[ContentBlock]) -> Vec<&str> {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse(t) => Some(t.id.as_str()),
            _ => None,
        })
        .collect()
}

fn missing_results(index: usize, ids: &[&str]) -> Rejection {
    Rejection::new(format!(
        "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        ids.join(", ")
    ))
}

fn is_valid_tool_use_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Consecutive assistant messages as one turn, as the real API combines
/// them (recorded: two assistant messages in a row, their calls answered in
/// the one user message after them, taken with 200). Results split over
/// two user messages stay refused: no recording shows otherwise.
fn merge_turns(messages: Vec<(Role, Vec<ContentBlock>)>) -> Vec<(Role, Vec<ContentBlock>)> {
    let mut merged: Vec<(Role, Vec<ContentBlock>)> = Vec::with_capacity(messages.len());
    for (role, blocks) in messages {
        match merged.last_mut() {
            Some((last, content)) if *last == role && role == Role::Assistant => {
                content.extend(blocks);
            }
            _ => merged.push((role, blocks)),
        }
    }
    merged
}

fn anthropic_conversation(messages: &[(Role, Vec<ContentBlock>)]) -> Check {
    let last = messages.len() - 1;
    for (k, (role, blocks)) in messages.iter().enumerate() {
        // Unique within a message: the real API took an id used again in a
        // later turn (recorded: pydantic-ai's cross-provider replay).
        let mut seen_ids: HashSet<&str> = HashSet::new();
        let final_assistant = k == last && *role == Role::Assistant;
        if blocks.is_empty() && !final_assistant {
            return fail(format!(
                "messages.{k}: all messages must have non-empty content except for the optional final assistant message"
            ));
        }
        // The tool_use ids of the previous assistant turn must be answered by
        // tool_result blocks at the very start of this message.
        let expected: Vec<&str> = match k.checked_sub(1).map(|p| &messages[p]) {
            Some((Role::Assistant, prev)) => tool_use_ids(prev),
            _ => Vec::new(),
        };
        let leading: Vec<&str> = blocks
            .iter()
            .map_while(|b| match b {
                ContentBlock::ToolResult(r) => Some(r.tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        if !expected.is_empty() {
            let missing: Vec<&str> = if *role == Role::User {
                expected
                    .iter()
                    .copied()
                    .filter(|id| !leading.contains(id))
                    .collect()
            } else {
                expected.clone()
            };
            if !missing.is_empty() {
                return Err(missing_results(k, &missing));
            }
        }
        for (j, block) in blocks.iter().enumerate() {
            match block {
                ContentBlock::Text(t) if !final_assistant && t.text.is_empty() => {
                    return fail("messages: text content blocks must be non-empty");
                }
                ContentBlock::Text(t) if !final_assistant && t.text.trim().is_empty() => {
                    return fail("messages: text content blocks must contain non-whitespace text");
                }
                ContentBlock::ToolUse(t) => {
                    if !is_valid_tool_use_id(&t.id) {
                        return fail(format!(
                            "messages.{k}.content.{j}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
                        ));
                    }
                    if !seen_ids.insert(t.id.as_str()) {
                        return fail(format!(
                            "messages.{k}.content.{j}: `tool_use` ids must be unique"
                        ));
                    }
                }
                ContentBlock::ToolResult(r) if *role == Role::User => {
                    if !expected.contains(&r.tool_use_id.as_str()) {
                        return fail(format!(
                            "messages.{k}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
                            r.tool_use_id
                        ));
                    }
                    if j >= leading.len() {
                        return fail(format!(
                            "messages.{k}: `tool_result` blocks must come first in the user message content, before any other content"
                        ));
                    }
                }
                _ => {}
            }
        }
        if final_assistant
            && let Some(ContentBlock::Text(t)) = blocks.last()
            && t.text != t.text.trim_end()
        {
            return fail("messages: final assistant content cannot end with trailing whitespace");
        }
    }
    // A trailing assistant turn with tool_use blocks has no results at all.
    if let (Role::Assistant, blocks) = &messages[last] {
        let ids = tool_use_ids(blocks);
        if !ids.is_empty() {
            return Err(missing_results(last + 1, &ids));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------- OpenAI

/// Validate a Chat Completions request body (`POST /v1/chat/completions`).
pub fn openai_request(body: &Value) -> Check {
    let Some(obj) = body.as_object() else {
        return Err(
            Rejection::new("We could not parse the JSON body of your request.")
                .code("invalid_json"),
        );
    };
    match obj.get("model") {
        Some(Value::String(s)) if !s.is_empty() => {}
        _ => return fail("you must provide a model parameter"),
    }
    let messages = match obj.get("messages") {
        None | Some(Value::Null) => {
            return Err(Rejection::new("Missing required parameter: 'messages'.")
                .param("messages")
                .code("missing_required_parameter"));
        }
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(Rejection::new(
                "Invalid type for 'messages': expected an array of objects.",
            )
            .param("messages")
            .code("invalid_type"));
        }
    };
    if messages.is_empty() {
        return Err(Rejection::new(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        )
        .param("messages")
        .code("empty_array"));
    }
    for (i, m) in messages.iter().enumerate() {
        match m.get("role").and_then(Value::as_str) {
            Some("system" | "developer" | "user" | "assistant" | "tool" | "function") => {}
            Some(other) => {
                return Err(Rejection::new(format!(
                    "Invalid value: '{other}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."
                ))
                .param(format!("messages[{i}].role"))
                .code("invalid_value"));
            }
            None => {
                return Err(Rejection::new(format!(
                    "Missing required parameter: 'messages[{i}].role'."
                ))
                .param(format!("messages[{i}].role"))
                .code("missing_required_parameter"));
            }
        }
    }
    openai_tools(obj)?;
    openai_conversation(messages)
}

fn openai_tools(obj: &Map<String, Value>) -> Check {
    let tools = match obj.get("tools") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(a)) => a,
        Some(_) => {
            return Err(
                Rejection::new("Invalid type for 'tools': expected an array.")
                    .param("tools")
                    .code("invalid_type"),
            );
        }
    };
    let mut seen = HashSet::new();
    for (n, tool) in tools.iter().enumerate() {
        let param = format!("tools[{n}].function.name");
        let Some(name) = tool.pointer("/function/name").and_then(Value::as_str) else {
            return Err(
                Rejection::new(format!("Missing required parameter: '{param}'."))
                    .param(param)
                    .code("missing_required_parameter"),
            );
        };
        openai_tool_name(&param, name)?;
        unknown_tool_parameters(n, tool)?;
        if !seen.insert(name) {
            return Err(Rejection::new(format!(
                "Invalid 'tools': tool names must be unique, '{name}' appears more than once."
            ))
            .param("tools"));
        }
    }
    Ok(())
}

/// The fields of a Chat Completions function tool, and of its `function`.
const FUNCTION_TOOL_KEYS: &[&str] = &["type", "function"];
const FUNCTION_KEYS: &[&str] = &["name", "description", "parameters", "strict"];

/// OpenAI refuses a field it does not know in a function tool (Anthropic's
/// `input_examples`, say) as an unknown parameter.
fn unknown_tool_parameters(n: usize, tool: &Value) -> Check {
    if tool.get("type").and_then(Value::as_str) != Some("function") {
        return Ok(());
    }
    let unknown = |object: Option<&Value>, known: &[&str]| {
        object
            .and_then(Value::as_object)
            .and_then(|o| o.keys().find(|k| !known.contains(&k.as_str())).cloned())
    };
    let param = if let Some(key) = unknown(Some(tool), FUNCTION_TOOL_KEYS) {
        format!("tools[{n}].{key}")
    } else if let Some(key) = unknown(tool.get("function"), FUNCTION_KEYS) {
        format!("tools[{n}].function.{key}")
    } else {
        return Ok(());
    };
    Err(Rejection::new(format!("Unknown parameter: '{param}'."))
        .param(param)
        .code("unknown_parameter"))
}

/// OpenAI's refusal of a tool name the APIs do not take (both OpenAI APIs).
fn openai_tool_name(param: &str, name: &str) -> Check {
    if is_valid_tool_name(name) {
        return Ok(());
    }
    Err(Rejection::new(format!(
        "Invalid '{param}': string does not match pattern. Expected a string that matches the pattern '{TOOL_NAME_PATTERN}'."
    ))
    .param(param)
    .code("invalid_value"))
}

fn openai_tool_call_ids(message: &Value) -> Vec<&str> {
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .filter_map(|c| c.get("id").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default()
}

fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

fn openai_conversation(messages: &[Value]) -> Check {
    for (i, m) in messages.iter().enumerate() {
        match role(m) {
            "assistant" => {
                if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
                    for (c, call) in calls.iter().enumerate() {
                        if call.get("id").and_then(Value::as_str).is_none() {
                            let param = format!("messages[{i}].tool_calls[{c}].id");
                            return Err(Rejection::new(format!(
                                "Missing required parameter: '{param}'."
                            ))
                            .param(param)
                            .code("missing_required_parameter"));
                        }
                    }
                }
                let ids = openai_tool_call_ids(m);
                if ids.is_empty() {
                    continue;
                }
                let answered: Vec<&str> = messages[i + 1..]
                    .iter()
                    .take_while(|n| role(n) == "tool")
                    .filter_map(|n| n.get("tool_call_id").and_then(Value::as_str))
                    .collect();
                let missing: Vec<&str> = ids
                    .into_iter()
                    .filter(|id| !answered.contains(id))
                    .collect();
                if !missing.is_empty() {
                    return Err(Rejection::new(format!(
                        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                        missing.join(", ")
                    ))
                    .param(format!("messages.[{i}].role")));
                }
            }
            "tool" => {
                let Some(id) = m.get("tool_call_id").and_then(Value::as_str) else {
                    let param = format!("messages[{i}].tool_call_id");
                    return Err(
                        Rejection::new(format!("Missing required parameter: '{param}'."))
                            .param(param)
                            .code("missing_required_parameter"),
                    );
                };
                // The nearest message before the run of tool messages.
                let owner = messages[..i].iter().rev().find(|p| role(p) != "tool");
                let calls = owner
                    .filter(|p| role(p) == "assistant")
                    .map(openai_tool_call_ids)
                    .unwrap_or_default();
                if calls.is_empty() {
                    return Err(Rejection::new(
                        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
                    )
                    .param(format!("messages.[{i}].role")));
                }
                if !calls.contains(&id) {
                    return Err(Rejection::new(format!(
                        "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."
                    ))
                    .param(format!("messages.[{i}].tool_call_id")));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- Responses

/// Validate a Responses API request body (`POST /v1/responses`), as the API
/// does for a stateless request (`store: false`, no `previous_response_id`):
/// every `function_call` in `input` needs a `function_call_output` with its
/// `call_id`, and every output answers an earlier call.
pub fn responses_request(body: &Value) -> Check {
    let Some(obj) = body.as_object() else {
        return Err(
            Rejection::new("We could not parse the JSON body of your request.")
                .code("invalid_json"),
        );
    };
    match obj.get("model") {
        Some(Value::String(s)) if !s.is_empty() => {}
        _ => {
            return Err(Rejection::new("Missing required parameter: 'model'.")
                .param("model")
                .code("missing_required_parameter"));
        }
    }
    let items = match obj.get("input") {
        None | Some(Value::Null) | Some(Value::String(_)) => return responses_tools(obj),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(Rejection::new(
                "Invalid type for 'input': expected one of a string or an array of input items.",
            )
            .param("input")
            .code("invalid_type"));
        }
    };
    let mut calls: Vec<&str> = Vec::new();
    let mut outputs: Vec<&str> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        let call_id = || -> std::result::Result<&str, Rejection> {
            item.get("call_id").and_then(Value::as_str).ok_or_else(|| {
                Rejection::new(format!("Missing required parameter: 'input[{i}].call_id'."))
                    .param(format!("input[{i}].call_id"))
                    .code("missing_required_parameter")
            })
        };
        match kind {
            "message" => match item.get("role").and_then(Value::as_str) {
                Some("user" | "assistant" | "system" | "developer") => {}
                other => {
                    return Err(Rejection::new(format!(
                        "Invalid value: '{}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
                        other.unwrap_or("")
                    ))
                    .param(format!("input[{i}].role"))
                    .code("invalid_value"));
                }
            },
            "function_call" | "custom_tool_call" => {
                let id = call_id()?;
                if item.get("name").and_then(Value::as_str).is_none() {
                    return Err(Rejection::new(format!(
                        "Missing required parameter: 'input[{i}].name'."
                    ))
                    .param(format!("input[{i}].name"))
                    .code("missing_required_parameter"));
                }
                calls.push(id);
            }
            "function_call_output" | "custom_tool_call_output" => {
                let id = call_id()?;
                if !calls.contains(&id) {
                    return Err(Rejection::new(format!(
                        "No tool call found for function call output with call_id {id}."
                    ))
                    .param("input"));
                }
                outputs.push(id);
            }
            _ => {}
        }
    }
    if let Some(unanswered) = calls.iter().find(|id| !outputs.contains(id)) {
        return Err(Rejection::new(format!(
            "No tool output found for function call {unanswered}."
        ))
        .param("input"));
    }
    responses_tools(obj)
}

fn responses_tools(obj: &Map<String, Value>) -> Check {
    let Some(tools) = obj.get("tools").and_then(Value::as_array) else {
        return Ok(());
    };
    let mut seen = HashSet::new();
    let check = |param: String, tool: &Value| -> Check {
        if tool.get("type").and_then(Value::as_str) != Some("function") {
            return Ok(());
        }
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            return Err(
                Rejection::new(format!("Missing required parameter: '{param}'."))
                    .param(param)
                    .code("missing_required_parameter"),
            );
        };
        openai_tool_name(&param, name)?;
        if tool.get("input_examples").is_some() {
            let param = format!("{}.input_examples", param.trim_end_matches(".name"));
            return Err(Rejection::new(format!("Unknown parameter: '{param}'."))
                .param(param)
                .code("unknown_parameter"));
        }
        Ok(())
    };
    for (n, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        if !name.is_empty() && !seen.insert(name.to_owned()) {
            return Err(Rejection::new(format!(
                "Invalid 'tools': tool names must be unique, '{name}' appears more than once."
            ))
            .param("tools"));
        }
        check(format!("tools[{n}].name"), tool)?;
        for (m, inner) in tool
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            check(format!("tools[{n}].tools[{m}].name"), inner)?;
        }
    }
    Ok(())
}
