//! A minimal [`ToolHost`] over a [`ToolRegistry`], and the fixture tools
//! that the official conformance suite calls by fixed names.
//!
//! Neither is tack's real serving path: `tack mcp serve` serves the agent's
//! dispatch pipeline (permissions, hooks, budget, audit). [`RegistryHost`]
//! only validates and runs, for tests, benchmarks and the conformance
//! fixtures (`tack mcp serve --conformance-fixtures`).

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, ImageBlock, ToolDefinition, ToolOutcome, ToolResultBlock};
use tack_tool::{
    CallOptions, Tool, ToolAnnotations, ToolCall, ToolCallResult, ToolContext, ToolError, ToolHost,
    ToolOutput, ToolRegistry,
};

use super::scope;

/// Runs the tools of a registry: validate the input against the schema, the
/// tool's own check, then the call (stopped when `cancel` fires). No
/// permissions, hooks, budget or audit — use the agent's pipeline for that.
#[derive(Debug)]
pub struct RegistryHost {
    registry: ToolRegistry,
    cwd: PathBuf,
    session_id: String,
}

impl RegistryHost {
    pub fn new(registry: ToolRegistry) -> Self {
        Self {
            registry,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            session_id: "mcp-serve".into(),
        }
    }

    /// The working directory the tools see.
    pub fn with_cwd(mut self, cwd: PathBuf) -> Self {
        self.cwd = cwd;
        self
    }

    fn answer(call: &ToolCall, outcome: Result<ToolOutput, ToolError>) -> ToolCallResult {
        match outcome {
            Ok(out) => ToolCallResult {
                block: ToolResultBlock::new(&call.id, out.content, false),
                outcome: ToolOutcome::Ok,
                structured: out.structured,
            },
            Err(e) => ToolCallResult {
                block: e.to_result(&call.name, &call.id),
                outcome: e.outcome(),
                structured: None,
            },
        }
    }
}

#[async_trait]
impl ToolHost for RegistryHost {
    fn definitions(&self) -> Vec<ToolDefinition> {
        self.registry.definitions()
    }

    fn annotations(&self, name: &str) -> Option<ToolAnnotations> {
        self.registry.get(name).map(|t| t.tool.annotations())
    }

    fn output_schema(&self, name: &str) -> Option<serde_json::Value> {
        self.registry.get(name).and_then(|t| t.tool.output_schema())
    }

    async fn call(&self, call: ToolCall, options: CallOptions) -> ToolCallResult {
        let CallOptions {
            cancel, progress, ..
        } = options;
        let Some(tool) = self.registry.get(&call.name) else {
            let names = self.registry.names().join(", ");
            return ToolCallResult {
                block: ToolResultBlock::error(
                    &call.id,
                    format!("Unknown tool: {}. Available tools: {names}.", call.name),
                ),
                outcome: ToolOutcome::UnknownTool,
                structured: None,
            };
        };
        let ctx = ToolContext {
            cwd: self.cwd.clone(),
            session_id: self.session_id.clone(),
            tool_use_id: call.id.clone(),
            cancel: cancel.clone(),
            progress,
            host: tack_tool::HostHandle::none(),
            checked_dir: None,
            checked_files: Vec::new(),
        };
        if let Err(e) = tool
            .check_input(&call.input)
            .and_then(|()| tool.tool.validate(&call.input, &ctx))
        {
            return Self::answer(&call, Err(e));
        }
        let outcome = tokio::select! {
            out = tool.tool.call(call.input.clone(), ctx) => out,
            () = cancel.cancelled() => Err(ToolError::Interrupted(
                "the client cancelled the request".into(),
            )),
        };
        Self::answer(&call, outcome)
    }
}

/// A 1×1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The tools the conformance suite's server scenarios call, by their fixed
/// names (`test_simple_text`, `test_image_content`, … `json_schema_2020_12_tool`),
/// and `echo` (for tests and benchmarks), behind a [`RegistryHost`]. Test-only: exposed by the hidden flag
/// `tack mcp serve --conformance-fixtures`.
///
/// Building it makes every MCP server this process starts afterwards run
/// each call in its request's scope, so these tools can send log messages
/// and progress and ask the client for sampling or elicitation. A process
/// that never builds it sets up no scope per call.
pub fn conformance_fixture_host() -> RegistryHost {
    // The fixtures log, report progress and ask the client mid-call through
    // the request's scope, which servers set up only from now on.
    scope::serve_fixtures();
    let mut registry = ToolRegistry::new();
    for fixture in fixtures() {
        // The names and schemas are fixed and valid; a failure here would be
        // a bug caught by the tests, so it is skipped rather than panicking.
        if let Err(e) = registry.register(std::sync::Arc::new(fixture)) {
            tracing::error!("conformance fixture not registered: {e}");
        }
    }
    RegistryHost::new(registry)
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Echo,
    SimpleText,
    Image,
    Audio,
    EmbeddedResource,
    Mixed,
    Logging,
    LoggingOnce,
    StreamingElicitation,
    NeedsSampling,
    Progress,
    Error,
    Sampling,
    Elicitation,
    ElicitationDefaults,
    ElicitationEnums,
    JsonSchema2020,
}

struct Fixture {
    name: &'static str,
    description: &'static str,
    schema: Value,
    kind: Kind,
}

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

fn fixtures() -> Vec<Fixture> {
    let f = |name, description, schema, kind| Fixture {
        name,
        description,
        schema,
        kind,
    };
    vec![
        f(
            "echo",
            "Returns its text unchanged (for tests and benchmarks).",
            json!({"type": "object",
                   "properties": {"text": {"type": "string", "description": "The text to send back"}},
                   "required": ["text"]}),
            Kind::Echo,
        ),
        f(
            "test_simple_text",
            "Returns a simple text response.",
            no_args(),
            Kind::SimpleText,
        ),
        f(
            "test_image_content",
            "Returns a 1x1 PNG image.",
            no_args(),
            Kind::Image,
        ),
        f(
            "test_audio_content",
            "Returns a tiny WAV audio clip.",
            no_args(),
            Kind::Audio,
        ),
        f(
            "test_embedded_resource",
            "Returns an embedded text resource.",
            no_args(),
            Kind::EmbeddedResource,
        ),
        f(
            "test_multiple_content_types",
            "Returns text, an image and an embedded resource.",
            no_args(),
            Kind::Mixed,
        ),
        f(
            "test_tool_with_logging",
            "Sends three log messages while it runs.",
            no_args(),
            Kind::Logging,
        ),
        f(
            "test_logging_tool",
            "Sends one log message, only if the client asked for logs (2026-07-28).",
            no_args(),
            Kind::LoggingOnce,
        ),
        f(
            "test_streaming_elicitation",
            "Tries to ask the user mid-call; refused on 2026-07-28, which forbids \
             server-to-client requests.",
            no_args(),
            Kind::StreamingElicitation,
        ),
        f(
            "test_missing_capability",
            "Needs the client's sampling capability; without it the call is refused \
             with MissingRequiredClientCapability (-32021).",
            no_args(),
            Kind::NeedsSampling,
        ),
        f(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100 while it runs.",
            no_args(),
            Kind::Progress,
        ),
        f(
            "test_error_handling",
            "Always fails, to test error results.",
            no_args(),
            Kind::Error,
        ),
        f(
            "test_sampling",
            "Asks the client's model to complete a prompt (sampling).",
            json!({"type": "object",
                   "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
                   "required": ["prompt"]}),
            Kind::Sampling,
        ),
        f(
            "test_elicitation",
            "Asks the user for input (elicitation).",
            json!({"type": "object",
                   "properties": {"message": {"type": "string", "description": "The message to show the user"}},
                   "required": ["message"]}),
            Kind::Elicitation,
        ),
        f(
            "test_elicitation_sep1034_defaults",
            "Asks the user for input with default values (SEP-1034).",
            no_args(),
            Kind::ElicitationDefaults,
        ),
        f(
            "test_elicitation_sep1330_enums",
            "Asks the user to pick from enums of every kind (SEP-1330).",
            no_args(),
            Kind::ElicitationEnums,
        ),
        f(
            "json_schema_2020_12_tool",
            "Has a JSON Schema 2020-12 input schema with $defs (SEP-1613).",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
            Kind::JsonSchema2020,
        ),
    ]
}

fn raw(value: Value) -> ContentBlock {
    ContentBlock::Unknown(value)
}

fn elicit_form(message: &str, properties: Value) -> Value {
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": []}
    })
}

#[async_trait]
impl Tool for Fixture {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        self.description
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        }
    }

    #[expect(
        deprecated,
        reason = "logging is deprecated by SEP-2577 but still part of 2025-11-25"
    )]
    async fn call(&self, input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        use rmcp::model::LoggingLevel;
        let pause = || tokio::time::sleep(Duration::from_millis(50));
        Ok(match self.kind {
            Kind::Echo => ToolOutput::text(input.get("text").and_then(Value::as_str).unwrap_or("")),
            Kind::SimpleText => ToolOutput::text("This is a simple text response for testing."),
            Kind::Image => ToolOutput {
                content: vec![ContentBlock::Image(ImageBlock::base64(
                    "image/png",
                    PNG.into(),
                ))],
                structured: None,
                response: None,
            },
            Kind::Audio => ToolOutput {
                content: vec![raw(
                    json!({"type": "audio", "data": WAV, "mimeType": "audio/wav"}),
                )],
                structured: None,
                response: None,
            },
            Kind::EmbeddedResource => ToolOutput {
                content: vec![raw(json!({"type": "resource", "resource": {
                    "uri": "test://embedded-resource", "mimeType": "text/plain",
                    "text": "This is an embedded resource content."}}))],
                structured: None,
                response: None,
            },
            Kind::Mixed => ToolOutput {
                content: vec![
                    ContentBlock::text("Multiple content types test:"),
                    ContentBlock::Image(ImageBlock::base64("image/png", PNG.into())),
                    raw(json!({"type": "resource", "resource": {
                        "uri": "test://mixed-content-resource", "mimeType": "application/json",
                        "text": json!({"test": "data", "value": 123}).to_string()}})),
                ],
                structured: None,
                response: None,
            },
            Kind::Logging => {
                for (i, text) in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ]
                .into_iter()
                .enumerate()
                {
                    if i > 0 {
                        pause().await;
                    }
                    scope::log(LoggingLevel::Info, "conformance-fixtures", json!(text)).await;
                }
                ToolOutput::text("Tool with logging executed successfully")
            }
            Kind::LoggingOnce => {
                let sent = scope::log(
                    LoggingLevel::Info,
                    "conformance-fixtures",
                    json!("test_logging_tool ran"),
                )
                .await;
                ToolOutput::text(if sent {
                    "logged"
                } else {
                    "not logged: no log level requested"
                })
            }
            Kind::StreamingElicitation => {
                let params = elicit_form(
                    "Please confirm",
                    json!({"ok": {"type": "boolean", "description": "Confirm"}}),
                );
                elicitation_text("Elicitation completed", params).await
            }
            Kind::NeedsSampling => {
                if !scope::client_declared("sampling") {
                    scope::fail_request(rmcp::model::ErrorData::new(
                        rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                        "test_missing_capability needs the client's sampling capability",
                        Some(json!({"requiredCapabilities": {"sampling": {}}})),
                    ));
                }
                ToolOutput::text("The client declared sampling.")
            }
            Kind::Progress => {
                for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        pause().await;
                    }
                    let message = format!("Completed step {step} of 100");
                    scope::progress(step, Some(100.0), Some(message)).await;
                }
                ToolOutput::text("Progress reported: 0, 50, 100 of 100")
            }
            Kind::Error => {
                return Err(ToolError::Internal(
                    "This tool intentionally returns an error for testing".into(),
                ));
            }
            Kind::Sampling => {
                let prompt = input.get("prompt").and_then(Value::as_str).unwrap_or("");
                let params = json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                    "maxTokens": 100
                });
                let text = match scope::client_request("sampling/createMessage", params).await {
                    Ok(result) => {
                        let reply = result
                            .pointer("/content/text")
                            .and_then(Value::as_str)
                            .unwrap_or("No response");
                        format!("LLM response: {reply}")
                    }
                    Err(e) => format!("Sampling not supported or error: {e}"),
                };
                ToolOutput::text(text)
            }
            Kind::Elicitation => {
                let message = input.get("message").and_then(Value::as_str).unwrap_or("");
                let mut params = elicit_form(
                    message,
                    json!({"response": {"type": "string", "description": "User's response"}}),
                );
                params["requestedSchema"]["required"] = json!(["response"]);
                elicitation_text("User response", params).await
            }
            Kind::ElicitationDefaults => {
                let params = elicit_form(
                    "Please review and update the form fields with defaults",
                    json!({
                        "name": {"type": "string", "description": "User name", "default": "John Doe"},
                        "age": {"type": "integer", "description": "User age", "default": 30},
                        "score": {"type": "number", "description": "User score", "default": 95.5},
                        "status": {"type": "string", "description": "User status",
                                   "enum": ["active", "inactive", "pending"], "default": "active"},
                        "verified": {"type": "boolean", "description": "Verification status", "default": true}
                    }),
                );
                elicitation_text("Elicitation completed", params).await
            }
            Kind::ElicitationEnums => {
                let titled = |a: &str, b: &str, c: &str, word: &str| {
                    json!([{"const": "value1", "title": format!("{a} {word}")},
                           {"const": "value2", "title": format!("{b} {word}")},
                           {"const": "value3", "title": format!("{c} {word}")}])
                };
                let params = elicit_form(
                    "Please select options from the enum fields",
                    json!({
                        "untitledSingle": {"type": "string", "description": "Select one option",
                            "enum": ["option1", "option2", "option3"]},
                        "titledSingle": {"type": "string", "description": "Select one option with titles",
                            "oneOf": titled("First", "Second", "Third", "Option")},
                        "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                            "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"]},
                        "untitledMulti": {"type": "array", "description": "Select multiple options",
                            "minItems": 1, "maxItems": 3,
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                        "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                            "minItems": 1, "maxItems": 3,
                            "items": {"anyOf": titled("First", "Second", "Third", "Choice")}}
                    }),
                );
                elicitation_text("Elicitation completed", params).await
            }
            Kind::JsonSchema2020 => {
                ToolOutput::text(format!("JSON Schema 2020-12 tool called with: {input}"))
            }
        })
    }
}

async fn elicitation_text(label: &str, params: Value) -> ToolOutput {
    let text = match scope::client_request("elicitation/create", params).await {
        Ok(result) => {
            let action = result.get("action").and_then(Value::as_str).unwrap_or("");
            let content = result.get("content").cloned().unwrap_or(json!({}));
            format!("{label}: action={action}, content={content}")
        }
        Err(e) => format!("Elicitation not supported or error: {e}"),
    };
    ToolOutput::text(text)
}
