//! MCP wire shapes → tack: tool definitions and `tools/call` results.
//!
//! Works on the JSON as the server sent it (not on rmcp's typed model), so an
//! unknown content type or a field a newer revision adds degrades to a note
//! instead of a decoding error. Everything a server sends is data: it is
//! passed to the model as tool text, never interpreted by tack.

use serde_json::{Map, Value};
use tack_protocol::{ContentBlock, ImageBlock};
use tack_tool::{ToolAnnotations, ToolError, ToolOutput};

/// Longest description handed to the model; longer ones are cut with a note.
pub const MAX_DESCRIPTION_CHARS: usize = 2048;

const MODEL_IMAGE_TYPES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];

/// One tool as a server listed it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ServerTool {
    pub name: String,
    pub description: Option<String>,
    pub input_schema: Value,
    pub annotations: ToolAnnotations,
    /// `_meta["anthropic/requiresUserInteraction"]` is `true` (the JSON
    /// boolean; any other value is ignored, as Claude Code ignores it).
    pub requires_user_interaction: bool,
    pub raw: Value,
}

impl ServerTool {
    pub(crate) fn parse(raw: &Value) -> Option<Self> {
        let name = raw.get("name")?.as_str()?.to_owned();
        let description = raw
            .get("description")
            .and_then(Value::as_str)
            .or_else(|| raw.get("title").and_then(Value::as_str))
            .map(str::to_owned);
        let input_schema = raw.get("inputSchema").cloned().unwrap_or(Value::Null);
        let ann = raw.get("annotations");
        let hint = |key: &str| ann.and_then(|a| a.get(key)).and_then(Value::as_bool);
        // MCP defaults: readOnly false, destructive true (when not read-only),
        // idempotent false, openWorld true.
        let read_only = hint("readOnlyHint").unwrap_or(false);
        let annotations = ToolAnnotations {
            read_only,
            destructive: !read_only && hint("destructiveHint").unwrap_or(true),
            idempotent: hint("idempotentHint").unwrap_or(false),
            open_world: hint("openWorldHint").unwrap_or(true),
        };
        let requires_user_interaction = raw
            .get("_meta")
            .and_then(|m| m.get("anthropic/requiresUserInteraction"))
            == Some(&Value::Bool(true));
        Some(Self {
            name,
            description,
            input_schema,
            annotations,
            requires_user_interaction,
            raw: raw.clone(),
        })
    }

    /// The description as the model sees it: control characters removed,
    /// cut at [`MAX_DESCRIPTION_CHARS`].
    pub(crate) fn model_description(&self) -> String {
        let text = clean_text(self.description.as_deref().unwrap_or_default());
        if text.chars().count() <= MAX_DESCRIPTION_CHARS {
            return text;
        }
        let cut: String = text.chars().take(MAX_DESCRIPTION_CHARS).collect();
        format!("{cut}… (description truncated by tack)")
    }

    /// The input schema as the model APIs need it: an object schema.
    pub(crate) fn model_schema(&self) -> Value {
        model_schema(&self.input_schema)
    }
}

/// Removes control characters other than newline and tab (terminal escapes in
/// a description could hide text in an approval prompt).
pub(crate) fn clean_text(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

fn model_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(obj) => {
            let mut obj = obj.clone();
            match obj.get("type") {
                Some(Value::String(t)) if t == "object" => {}
                None => {
                    obj.insert("type".into(), "object".into());
                }
                Some(other) => {
                    tracing::warn!(schema_type = %other, "MCP tool input schema is not an object schema; using an open object schema");
                    return open_object();
                }
            }
            obj.remove("$schema");
            Value::Object(obj)
        }
        _ => open_object(),
    }
}

fn open_object() -> Value {
    let mut obj = Map::new();
    obj.insert("type".into(), "object".into());
    obj.insert("properties".into(), Value::Object(Map::new()));
    Value::Object(obj)
}

/// Converts a `tools/call` result (the JSON-RPC `result` object).
///
/// `isError: true` becomes [`ToolError::InvalidInput`] with the server's text:
/// the MCP spec describes tool execution errors as "actionable feedback that
/// language models can use to self-correct and retry with adjusted
/// parameters", which is the next step InvalidInput tells the model.
pub(crate) fn convert_result(result: &Value) -> Result<ToolOutput, ToolError> {
    if let Some(kind) = result.get("resultType").and_then(Value::as_str)
        && kind != "complete"
    {
        return Err(ToolError::Unavailable(format!(
            "the server answered with a `{kind}` result (it asks for user input or runs the call as a task), which tack's MCP client does not support"
        )));
    }
    let mut content = Vec::new();
    let mut has_text = false;
    if let Some(blocks) = result.get("content").and_then(Value::as_array) {
        for block in blocks {
            let converted = convert_block(block);
            has_text |= matches!(converted, ContentBlock::Text(_));
            content.push(converted);
        }
    }
    let structured = result
        .get("structuredContent")
        .filter(|v| !v.is_null())
        .cloned();
    if let Some(structured) = &structured
        && !has_text
    {
        content.insert(0, ContentBlock::text(structured.to_string()));
    }
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    if is_error {
        let text: Vec<String> = content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect();
        let text = if text.is_empty() {
            "the server reported an error without a message".to_owned()
        } else {
            text.join("\n")
        };
        return Err(ToolError::Failed(text));
    }
    if content.is_empty() {
        content.push(ContentBlock::text("(the tool returned no content)"));
    }
    // No Claude Code shape of its own: hooks get the content array, as
    // Claude Code sends for MCP tools (`ToolOutput::hook_response`).
    Ok(ToolOutput {
        content,
        structured,
        response: None,
    })
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn convert_block(block: &Value) -> ContentBlock {
    let kind = str_field(block, "type").unwrap_or("unknown");
    match kind {
        "text" => ContentBlock::text(str_field(block, "text").unwrap_or_default()),
        "image" => {
            let mime = str_field(block, "mimeType").unwrap_or("application/octet-stream");
            let data = str_field(block, "data").unwrap_or_default();
            if MODEL_IMAGE_TYPES.contains(&mime) {
                ContentBlock::Image(ImageBlock::base64(mime, data.to_owned()))
            } else {
                ContentBlock::text(format!(
                    "[an image of type {mime} ({} bytes) that the model cannot be shown]",
                    base64_len(data)
                ))
            }
        }
        "audio" => {
            let mime = str_field(block, "mimeType").unwrap_or("audio");
            ContentBlock::text(format!(
                "[audio of type {mime} ({} bytes), not shown]",
                base64_len(str_field(block, "data").unwrap_or_default())
            ))
        }
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let uri = str_field(resource, "uri").unwrap_or("(no uri)");
            let mime = str_field(resource, "mimeType");
            let mime_note = mime.map(|m| format!(" ({m})")).unwrap_or_default();
            if let Some(text) = str_field(resource, "text") {
                ContentBlock::text(format!("Resource {uri}{mime_note}:\n{text}"))
            } else {
                let size = base64_len(str_field(resource, "blob").unwrap_or_default());
                ContentBlock::text(format!(
                    "[binary resource {uri}{mime_note}, {size} bytes, not shown]"
                ))
            }
        }
        "resource_link" => {
            let uri = str_field(block, "uri").unwrap_or("(no uri)");
            let name = str_field(block, "name").unwrap_or(uri);
            let mut text = format!("Resource link: {name} <{uri}>");
            if let Some(mime) = str_field(block, "mimeType") {
                text.push_str(&format!(" ({mime})"));
            }
            if let Some(description) = str_field(block, "description") {
                text.push_str(&format!(": {description}"));
            }
            ContentBlock::text(text)
        }
        other => ContentBlock::text(format!(
            "[content of type {other:?} that tack does not show]"
        )),
    }
}

/// Decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let trimmed = data.trim_end_matches('=');
    trimmed.len() * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(out: &ToolOutput) -> Vec<String> {
        out.content
            .iter()
            .map(|b| match b {
                ContentBlock::Text(t) => t.text.clone(),
                other => other.kind().to_owned(),
            })
            .collect()
    }

    #[test]
    fn converts_every_content_kind() {
        let out = convert_result(&json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zz4="},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "body"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA"}},
            {"type": "resource_link", "uri": "demo://x", "name": "x", "description": "a link"},
            {"type": "hologram"}
        ]}))
        .unwrap();
        assert_eq!(
            texts(&out),
            vec![
                "hi".to_owned(),
                "image".into(),
                "[an image of type image/svg+xml (5 bytes) that the model cannot be shown]".into(),
                "Resource file:///a.txt (text/plain):\nbody".into(),
                "[binary resource file:///b.bin, 3 bytes, not shown]".into(),
                "Resource link: x <demo://x>: a link".into(),
                "[content of type \"hologram\" that tack does not show]".into(),
            ]
        );
        assert!(out.structured.is_none());
    }

    #[test]
    fn structured_content_is_text_only_without_text_and_always_structured() {
        let only =
            convert_result(&json!({"content": [], "structuredContent": {"sum": 3}})).unwrap();
        assert_eq!(texts(&only), vec![r#"{"sum":3}"#.to_owned()]);
        assert_eq!(only.structured, Some(json!({"sum": 3})));
        let both = convert_result(
            &json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}}),
        )
        .unwrap();
        assert_eq!(texts(&both), vec!["3".to_owned()]);
        assert_eq!(both.structured, Some(json!({"sum": 3})));
    }

    #[test]
    fn is_error_and_unsupported_result_types() {
        let err = convert_result(
            &json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}),
        )
        .unwrap_err();
        assert_eq!(err, ToolError::Failed("no such file".into()));
        let err = convert_result(&json!({"resultType": "input_required"})).unwrap_err();
        assert!(matches!(err, ToolError::Unavailable(_)));
    }

    #[test]
    fn requires_user_interaction_is_the_json_boolean_true_only() {
        let parse = |meta: Value| {
            ServerTool::parse(&json!({"name": "t", "_meta": meta}))
                .unwrap()
                .requires_user_interaction
        };
        assert!(parse(json!({"anthropic/requiresUserInteraction": true})));
        assert!(!parse(json!({"anthropic/requiresUserInteraction": "true"})));
        assert!(!parse(json!({"anthropic/requiresUserInteraction": false})));
        assert!(!parse(json!({"requiresUserInteraction": true})));
        assert!(!parse(Value::Null));
    }

    #[test]
    fn annotations_follow_mcp_defaults_and_schemas_become_objects() {
        let t =
            ServerTool::parse(&json!({"name": "t", "inputSchema": {"properties": {}}})).unwrap();
        assert_eq!(
            t.annotations,
            ToolAnnotations {
                read_only: false,
                destructive: true,
                idempotent: false,
                open_world: true
            }
        );
        assert_eq!(
            t.model_schema(),
            json!({"properties": {}, "type": "object"})
        );
        let r = ServerTool::parse(
            &json!({"name": "r", "annotations": {"readOnlyHint": true, "destructiveHint": true}}),
        )
        .unwrap();
        assert!(r.annotations.read_only && !r.annotations.destructive);
        assert_eq!(
            r.model_schema(),
            json!({"type": "object", "properties": {}})
        );
        let d = ServerTool::parse(
            &json!({"name": "d", "description": format!("a\u{1b}[8mhidden{}", "x".repeat(3000))}),
        )
        .unwrap();
        let desc = d.model_description();
        assert!(!desc.contains('\u{1b}'));
        assert!(desc.ends_with("(description truncated by tack)"));
    }
}
