//! tack's tool types to MCP's and back: definitions with annotations out,
//! results as MCP content.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock as McpContent, JsonObject, Tool, ToolAnnotations};
use serde_json::Value;
use tack_protocol::{ContentBlock, ToolDefinition, ToolResultContent};
use tack_tool::{ToolAnnotations as TackAnnotations, ToolCallResult};

/// Where a result's metadata goes when the tool declares no output schema:
/// a key of tack's own in the result's `_meta` (the spec reserves prefixes
/// whose second label is `modelcontextprotocol` or `mcp`).
pub(crate) const RESULT_META_KEY: &str = "dev.tack/result";

/// A tool as MCP lists it. The input schema is passed through verbatim
/// (`$schema`, `$defs`, `additionalProperties` included); a tool without a
/// description is described by its name, since clients require one; MCP
/// has no field for example inputs, so a tool's examples end its
/// description, as for Chat Completions. A tool
/// with an output schema ([`tack_tool::Tool::output_schema`]) lists it as
/// `outputSchema`.
pub(crate) fn tool(
    def: ToolDefinition,
    annotations: Option<TackAnnotations>,
    output_schema: Option<Value>,
) -> Tool {
    let description = match def.description_with_examples() {
        Some(d) if !d.trim().is_empty() => d.into_owned(),
        _ => def.name.clone(),
    };
    let schema: JsonObject = match def.input_schema {
        Value::Object(map) => map,
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), "object".into());
            map
        }
    };
    let mut tool = Tool::new(def.name, description, Arc::new(schema));
    if let Some(Value::Object(output)) = output_schema {
        tool.output_schema = Some(Arc::new(output));
    }
    // tack's annotations are all definite answers (false is "no", not "unknown"),
    // so every hint is sent: MCP's defaults for absent destructiveHint and
    // openWorldHint are `true`, which would misdescribe tack's tools.
    tool.annotations = annotations.map(|a| {
        ToolAnnotations::from_raw(
            None,
            Some(a.read_only),
            Some(a.destructive),
            Some(a.idempotent),
            Some(a.open_world),
        )
    });
    tool
}

/// A host's answer as an MCP `CallToolResult`.
///
/// The text content is always what the tool printed: clients show the model
/// `structuredContent` instead of the text when there is one, so
/// `structuredContent` is sent only for a tool that declared an output
/// schema (`has_output_schema`), and is then the result itself. Any other
/// tool's `structured` is metadata about the call (Bash's exit code, Grep's
/// counts) and goes in `_meta` under [`RESULT_META_KEY`].
pub(crate) fn call_result(result: ToolCallResult, has_output_schema: bool) -> CallToolResult {
    let is_error = result.block.is_error;
    let mut content: Vec<McpContent> = match result.block.content {
        None => Vec::new(),
        Some(ToolResultContent::Text(text)) => vec![McpContent::text(text)],
        Some(ToolResultContent::Blocks(blocks)) => blocks.into_iter().map(content_block).collect(),
    };
    // Clients that predate structuredContent read the text, so structured
    // output also goes as JSON text when the tool gave no content.
    if content.is_empty()
        && has_output_schema
        && let Some(structured) = &result.structured
    {
        content.push(McpContent::text(structured.to_string()));
    }
    let mut out = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    match result.structured {
        Some(structured) if has_output_schema && !is_error => {
            out.structured_content = Some(structured);
        }
        Some(metadata) => {
            let mut meta = JsonObject::new();
            meta.insert(RESULT_META_KEY.into(), metadata);
            out.meta = Some(meta.into());
        }
        None => {}
    }
    out
}

/// One content block. Text and base64 images map directly; a URL image
/// becomes a text reference; a block tack does not model (kept as raw JSON)
/// goes through unchanged when it is MCP content (audio, resource,
/// resource_link), else as its JSON text.
fn content_block(block: ContentBlock) -> McpContent {
    match block {
        ContentBlock::Text(t) => McpContent::text(t.text),
        ContentBlock::Image(image) => {
            let source = &image.source;
            let kind = source.get("type").and_then(Value::as_str);
            let data = source.get("data").and_then(Value::as_str);
            let media_type = source.get("media_type").and_then(Value::as_str);
            match (kind, data, media_type) {
                (Some("base64"), Some(data), Some(media_type)) => {
                    McpContent::image(data, media_type)
                }
                _ => match source.get("url").and_then(Value::as_str) {
                    Some(url) => McpContent::text(format!("[image: {url}]")),
                    None => McpContent::text(source.to_string()),
                },
            }
        }
        ContentBlock::Unknown(raw) => match serde_json::from_value::<McpContent>(raw.clone()) {
            Ok(content) => content,
            Err(_) => McpContent::text(raw.to_string()),
        },
        other => McpContent::text(serde_json::to_string(&other).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tack_protocol::{Extra, ImageBlock, ToolOutcome, ToolResultBlock};

    fn def(description: Option<&str>, schema: Value) -> ToolDefinition {
        ToolDefinition {
            name: "Read".into(),
            description: description.map(str::to_owned),
            input_schema: schema,
            extra: Extra::new(),
        }
    }

    #[test]
    fn tools_carry_every_hint_and_the_schema_verbatim() {
        let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "$defs": {"a": {"type": "string"}}, "additionalProperties": false});
        let annotations = TackAnnotations {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        };
        let wire = serde_json::to_value(tool(
            def(Some("Reads."), schema.clone()),
            Some(annotations),
            None,
        ))
        .unwrap();
        assert_eq!(wire["inputSchema"], schema);
        assert_eq!(wire["description"], "Reads.");
        assert_eq!(
            wire["annotations"],
            json!({"readOnlyHint": true, "destructiveHint": false,
                   "idempotentHint": true, "openWorldHint": false})
        );
    }

    #[test]
    fn examples_end_the_description_since_mcp_has_no_field_for_them() {
        let mut d = def(Some("Reads."), json!({"type": "object"}));
        d.extra.insert(
            tack_protocol::INPUT_EXAMPLES.into(),
            json!([{"file_path": "/a"}, {"file_path": "/b", "limit": 5}]),
        );
        let wire = serde_json::to_value(tool(d, None, None)).unwrap();
        assert_eq!(
            wire["description"],
            "Reads.\n\nExamples:\n{\"file_path\":\"/a\"}\n{\"file_path\":\"/b\",\"limit\":5}"
        );
        assert!(wire.get("input_examples").is_none());
    }

    #[test]
    fn a_missing_description_or_schema_is_filled_in() {
        let wire = serde_json::to_value(tool(def(None, json!(null)), None, None)).unwrap();
        assert_eq!(wire["description"], "Read");
        assert_eq!(wire["inputSchema"], json!({"type": "object"}));
        assert!(wire.get("annotations").is_none());
    }

    fn result(
        blocks: Vec<ContentBlock>,
        is_error: bool,
        structured: Option<Value>,
        has_output_schema: bool,
    ) -> Value {
        let r = ToolCallResult {
            block: ToolResultBlock::new("id", blocks, is_error),
            outcome: ToolOutcome::Ok,
            structured,
        };
        serde_json::to_value(call_result(r, has_output_schema)).unwrap()
    }

    #[test]
    fn results_map_text_images_and_raw_mcp_content() {
        let audio = json!({"type": "audio", "data": "UklG", "mimeType": "audio/wav"});
        let odd = json!({"type": "document", "x": 1});
        let wire = result(
            vec![
                ContentBlock::text("hi"),
                ContentBlock::Image(ImageBlock::base64("image/png", "iVBO".into())),
                ContentBlock::Unknown(audio.clone()),
                ContentBlock::Unknown(odd.clone()),
            ],
            false,
            None,
            false,
        );
        assert_eq!(wire["content"][0], json!({"type": "text", "text": "hi"}));
        assert_eq!(
            wire["content"][1],
            json!({"type": "image", "data": "iVBO", "mimeType": "image/png"})
        );
        assert_eq!(wire["content"][2], audio);
        assert_eq!(wire["content"][3]["text"], odd.to_string());
        assert_eq!(wire["isError"], false);
    }

    #[test]
    fn structured_output_of_a_declared_schema_is_the_result_and_also_text() {
        let wire = result(vec![ContentBlock::text("denied")], true, None, true);
        assert_eq!(wire["isError"], true);
        let wire = result(vec![], false, Some(json!({"n": 1})), true);
        assert_eq!(wire["structuredContent"], json!({"n": 1}));
        assert_eq!(wire["content"][0]["text"], "{\"n\":1}");
        assert!(wire.get("_meta").is_none(), "{wire}");
    }

    #[test]
    fn metadata_of_a_tool_without_an_output_schema_goes_to_meta_not_the_result() {
        let metadata = json!({"exit_code": 0, "signal": null, "timed_out": false});
        let wire = result(
            vec![ContentBlock::text("hello\n")],
            false,
            Some(metadata.clone()),
            false,
        );
        assert!(wire.get("structuredContent").is_none(), "{wire}");
        assert_eq!(
            wire["content"],
            json!([{"type": "text", "text": "hello\n"}])
        );
        assert_eq!(wire["_meta"][RESULT_META_KEY], metadata);
        // an error's metadata too; and it never becomes the text
        let wire = result(vec![], true, Some(metadata.clone()), false);
        assert!(wire.get("structuredContent").is_none(), "{wire}");
        assert_eq!(wire["content"], json!([]));
        assert_eq!(wire["_meta"][RESULT_META_KEY], metadata);
    }
}
