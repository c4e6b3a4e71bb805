//! What a server may ask of tack: elicitation (a form or a URL for the
//! person), and `roots/list`. Requests arrive as 2025-11-25 server requests
//! during a call (`elicitation/create`) or inside a 2026-07-28
//! multi-round-trip result (`inputRequests`); both end in [`ServerRequests`],
//! which the session implements over its `Interaction`.
//!
//! tack-mcp knows nothing of terminals: it parses the requested schema into
//! [`FormField`]s (the spec's flat schema: string with format, number,
//! integer, boolean, enum), validates the answer against it, refuses forms
//! that ask for secrets, and turns a refusal into a [`Note`] the call's
//! result shows the model.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use super::convert::clean_text;

/// A server's request for input from the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    /// The server's name in tack's configuration.
    pub server: String,
    /// The server's message (control characters removed).
    pub message: String,
    pub kind: ElicitationKind,
}

/// Form mode (answer fields) or URL mode (visit a page).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitationKind {
    Form {
        fields: Vec<FormField>,
    },
    /// `host` is the URL's host, to show before anything is opened.
    Url {
        url: String,
        host: String,
    },
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
    pub default: Option<Value>,
    pub kind: FieldKind,
}

/// The type of a form field (the spec's primitive schemas).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldKind {
    String {
        /// `email`, `uri`, `date` or `date-time`.
        format: Option<String>,
        min_length: Option<u64>,
        max_length: Option<u64>,
    },
    Number {
        integer: bool,
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    Boolean,
    /// One of `values` (`labels` are what to show, same order), or several
    /// when `multiple`.
    Enum {
        values: Vec<String>,
        labels: Vec<String>,
        multiple: bool,
    },
}

/// The person's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    /// The form's values (empty for URL mode: the person went to the page).
    Accept(Map<String, Value>),
    /// No.
    Decline,
    /// Dismissed without a choice (Ctrl-C, a closed prompt).
    Cancel,
}

/// A server's request for a completion from tack's model
/// (`sampling/createMessage`), text only.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    pub server: String,
    /// `(role, text)`: `user` or `assistant`, in order.
    pub messages: Vec<(String, String)>,
    pub system: Option<String>,
    pub max_tokens: u32,
}

/// The model's answer to a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingAnswer {
    pub text: String,
    pub model: String,
    /// MCP's `stopReason` (`endTurn`, `maxTokens`, `stopSequence`).
    pub stop_reason: Option<String>,
}

/// Answers a server's requests. The session implements it over its
/// `Interaction`; [`NobodyToAsk`] is the default.
#[async_trait]
pub trait ServerRequests: Send + Sync {
    /// Whether a person can be asked. Only then does tack declare the
    /// elicitation capability.
    fn can_elicit(&self) -> bool;
    /// Asks the person (only called when [`ServerRequests::can_elicit`]).
    async fn elicit(&self, request: &Elicitation) -> ElicitAnswer;
    /// Whether `server` may ask for completions at all (then tack declares
    /// the sampling capability to it). Default: no.
    fn may_sample(&self, _server: &str) -> bool {
        false
    }
    /// Runs a completion for a server, or says why not (the server gets the
    /// reason as a JSON-RPC error). Default: sampling is off.
    async fn sample(&self, request: &SamplingRequest) -> Result<SamplingAnswer, String> {
        Err(format!(
            "tack does not let MCP server {:?} use its model (sampling is off)",
            request.server
        ))
    }
}

/// Reads `sampling/createMessage` params (as JSON): text messages only.
pub(crate) fn sampling_request(server: &str, params: &Value) -> Result<SamplingRequest, String> {
    let mut messages = Vec::new();
    for message in params
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("user")
            .to_owned();
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(block) => vec![block.clone()],
            None => Vec::new(),
        };
        let mut text = String::new();
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    text.push_str(block.get("text").and_then(Value::as_str).unwrap_or(""))
                }
                other => {
                    return Err(format!(
                        "tack samples text only; the request has a {} block",
                        other.unwrap_or("untyped")
                    ));
                }
            }
        }
        messages.push((role, text));
    }
    if messages.is_empty() {
        return Err("the sampling request has no messages".into());
    }
    let max_tokens = params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(1024);
    Ok(SamplingRequest {
        server: server.to_owned(),
        messages,
        system: params
            .get("systemPrompt")
            .and_then(Value::as_str)
            .map(str::to_owned),
        max_tokens,
    })
}

/// `CreateMessageResult` JSON for an answer.
pub(crate) fn sampling_result(answer: &SamplingAnswer) -> Value {
    let mut result = serde_json::json!({
        "model": answer.model,
        "role": "assistant",
        "content": {"type": "text", "text": answer.text},
    });
    if let (Some(reason), Some(obj)) = (&answer.stop_reason, result.as_object_mut()) {
        obj.insert("stopReason".into(), Value::String(reason.clone()));
    }
    result
}

/// Nobody to ask: every elicitation is declined.
#[derive(Debug, Default, Clone, Copy)]
pub struct NobodyToAsk;

#[async_trait]
impl ServerRequests for NobodyToAsk {
    fn can_elicit(&self) -> bool {
        false
    }
    async fn elicit(&self, _request: &Elicitation) -> ElicitAnswer {
        ElicitAnswer::Decline
    }
}

/// Something that happened during a call that the model should read with
/// its result (an elicitation declined because nobody can be asked, say).
pub(crate) type Notes = Arc<Mutex<Vec<String>>>;

pub(crate) fn push_note(notes: &Notes, note: String) {
    notes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(note);
}

pub(crate) fn take_notes(notes: &Notes) -> Vec<String> {
    std::mem::take(&mut *notes.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Field names that mean a secret: the spec forbids asking for them in
/// form mode (URL mode exists for credentials).
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "private_key",
    "credential",
    "otp",
    "pin",
];

fn looks_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| {
        lower == *w
            || lower
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|part| part == *w)
            || (w.len() > 4 && lower.contains(w))
    })
}

/// Parses a flat `requestedSchema` into fields. Errors name the field.
pub fn parse_form(schema: &Value) -> Result<Vec<FormField>, String> {
    let properties = match schema.get("properties") {
        Some(Value::Object(p)) => p,
        None => return Ok(Vec::new()),
        Some(_) => return Err("`properties` of the requested schema is not an object".into()),
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields = Vec::new();
    for (name, prop) in properties {
        if looks_secret(name) {
            return Err(format!(
                "field {name:?} looks like a secret, which a form must not ask for (servers should use URL mode for credentials)"
            ));
        }
        let text = |key: &str| prop.get(key).and_then(Value::as_str).map(clean_text);
        let uint = |key: &str| prop.get(key).and_then(Value::as_u64);
        let float = |key: &str| prop.get(key).and_then(Value::as_f64);
        let enum_of = |values: &Value| -> Vec<String> {
            values
                .as_array()
                .map(|v| {
                    v.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let one_of = |key: &str| -> Option<(Vec<String>, Vec<String>)> {
            Some(titled_options(prop.get(key)?.as_array()?))
        };
        let kind = match prop.get("type").and_then(Value::as_str) {
            Some("string") => {
                if let Some(values) = prop.get("enum") {
                    let values = enum_of(values);
                    let labels = prop
                        .get("enumNames")
                        .map(enum_of)
                        .filter(|l| l.len() == values.len())
                        .unwrap_or_else(|| values.clone());
                    FieldKind::Enum {
                        values,
                        labels,
                        multiple: false,
                    }
                } else if let Some((values, labels)) = one_of("oneOf") {
                    FieldKind::Enum {
                        values,
                        labels,
                        multiple: false,
                    }
                } else {
                    let format = text("format");
                    if let Some(f) = &format
                        && !matches!(f.as_str(), "email" | "uri" | "date" | "date-time")
                    {
                        return Err(format!(
                            "field {name:?} has format {f:?}; a form allows email, uri, date and date-time"
                        ));
                    }
                    FieldKind::String {
                        format,
                        min_length: uint("minLength"),
                        max_length: uint("maxLength"),
                    }
                }
            }
            Some(t @ ("number" | "integer")) => FieldKind::Number {
                integer: t == "integer",
                minimum: float("minimum"),
                maximum: float("maximum"),
            },
            Some("boolean") => FieldKind::Boolean,
            Some("array") => {
                let items = prop.get("items").cloned().unwrap_or(Value::Null);
                let (values, labels) = if let Some(values) = items.get("enum") {
                    let v = enum_of(values);
                    (v.clone(), v)
                } else if let Some(options) = items.get("anyOf").and_then(Value::as_array) {
                    titled_options(options)
                } else {
                    return Err(format!(
                        "field {name:?} is an array without enum items; a form allows only multi-select enums"
                    ));
                };
                FieldKind::Enum {
                    values,
                    labels,
                    multiple: true,
                }
            }
            other => {
                return Err(format!(
                    "field {name:?} has type {}; a form allows string, number, integer, boolean and enum fields",
                    other.map_or_else(|| "none".to_owned(), |t| format!("{t:?}"))
                ));
            }
        };
        fields.push(FormField {
            name: name.clone(),
            title: text("title"),
            description: text("description"),
            required: required.contains(&name.as_str()),
            default: prop.get("default").cloned(),
            kind,
        });
    }
    Ok(fields)
}

impl FormField {
    /// Reads what a person typed for this field: `Ok(None)` for an empty
    /// answer (the default, or nothing), else the typed value or what is
    /// wrong with it.
    pub fn parse_input(&self, input: &str) -> Result<Option<Value>, String> {
        let input = input.trim();
        if input.is_empty() {
            return match (&self.default, self.required) {
                (Some(d), _) => Ok(Some(d.clone())),
                (None, true) => Err("an answer is required".into()),
                (None, false) => Ok(None),
            };
        }
        let value = match &self.kind {
            FieldKind::String { .. } => Value::String(input.to_owned()),
            FieldKind::Number { integer: true, .. } => input
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| format!("{input:?} is not a whole number"))?,
            FieldKind::Number { .. } => input
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| format!("{input:?} is not a number"))?,
            FieldKind::Boolean => match input.to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" => Value::Bool(true),
                "n" | "no" | "false" => Value::Bool(false),
                _ => return Err("answer y or n".into()),
            },
            FieldKind::Enum {
                values,
                labels,
                multiple,
            } => {
                let pick = |one: &str| -> Result<Value, String> {
                    let one = one.trim();
                    if let Ok(n) = one.parse::<usize>()
                        && (1..=values.len()).contains(&n)
                    {
                        return Ok(Value::String(values[n - 1].clone()));
                    }
                    values
                        .iter()
                        .zip(labels)
                        .find(|(v, l)| v.as_str() == one || l.eq_ignore_ascii_case(one))
                        .map(|(v, _)| Value::String(v.clone()))
                        .ok_or_else(|| {
                            format!("{one:?} is not one of the choices (1–{})", values.len())
                        })
                };
                if *multiple {
                    Value::Array(input.split(',').map(pick).collect::<Result<_, _>>()?)
                } else {
                    pick(input)?
                }
            }
        };
        self.check(&value)?;
        Ok(Some(value))
    }

    /// Whether `value` satisfies this field's schema.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        match (&self.kind, value) {
            (
                FieldKind::String {
                    format,
                    min_length,
                    max_length,
                },
                Value::String(s),
            ) => {
                let len = s.chars().count() as u64;
                if min_length.is_some_and(|m| len < m) {
                    return Err(format!("at least {} characters", min_length.unwrap_or(0)));
                }
                if max_length.is_some_and(|m| len > m) {
                    return Err(format!("at most {} characters", max_length.unwrap_or(0)));
                }
                match format.as_deref() {
                    Some("email") if !looks_like_email(s) => {
                        Err("not an email address (name@host)".into())
                    }
                    Some("uri") if !s.contains(':') => {
                        Err("not a URI (scheme:…, e.g. https://…)".into())
                    }
                    Some("date") if !looks_like_date(s) => Err("not a date (YYYY-MM-DD)".into()),
                    Some("date-time") if !looks_like_date_time(s) => {
                        Err("not a date and time (YYYY-MM-DDTHH:MM:SSZ)".into())
                    }
                    _ => Ok(()),
                }
            }
            (
                FieldKind::Number {
                    integer,
                    minimum,
                    maximum,
                },
                Value::Number(n),
            ) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if *integer && !(n.is_i64() || n.is_u64()) {
                    return Err("must be a whole number".into());
                }
                if let Some(m) = minimum
                    && x < *m
                {
                    return Err(format!("at least {m}"));
                }
                if let Some(m) = maximum
                    && x > *m
                {
                    return Err(format!("at most {m}"));
                }
                Ok(())
            }
            (FieldKind::Boolean, Value::Bool(_)) => Ok(()),
            (
                FieldKind::Enum {
                    values,
                    multiple: false,
                    ..
                },
                Value::String(s),
            ) if values.contains(s) => Ok(()),
            (
                FieldKind::Enum {
                    values,
                    multiple: true,
                    ..
                },
                Value::Array(items),
            ) if items
                .iter()
                .all(|i| i.as_str().is_some_and(|s| values.iter().any(|v| v == s))) =>
            {
                Ok(())
            }
            (FieldKind::Enum { values, .. }, _) => {
                Err(format!("must be one of {}", values.join(", ")))
            }
            (kind, other) => Err(format!("{other} does not match {kind:?}")),
        }
    }
}

fn looks_like_email(s: &str) -> bool {
    s.split_once('@')
        .is_some_and(|(a, b)| !a.is_empty() && b.contains('.') && !s.contains(char::is_whitespace))
}

fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn looks_like_date_time(s: &str) -> bool {
    s.len() > 11 && looks_like_date(&s[..10]) && matches!(s.as_bytes()[10], b'T' | b't' | b' ')
}

/// Checks a whole accepted form: required fields present, each value valid,
/// no field the schema does not have.
pub fn check_form(fields: &[FormField], content: &Map<String, Value>) -> Result<(), String> {
    for field in fields {
        match content.get(&field.name) {
            Some(value) => field
                .check(value)
                .map_err(|e| format!("field {:?}: {e}", field.name))?,
            None if field.required => return Err(format!("field {:?} is required", field.name)),
            None => {}
        }
    }
    if let Some(extra) = content
        .keys()
        .find(|k| !fields.iter().any(|f| &f.name == *k))
    {
        return Err(format!("the form has no field {extra:?}"));
    }
    Ok(())
}

/// Answers one elicitation for `server`: parses, asks (or declines when
/// nobody can be asked), validates, and leaves a note for the model when the
/// answer was not the person's.
pub(crate) async fn answer_elicitation(
    server: &str,
    requests: &dyn ServerRequests,
    notes: &Notes,
    params: ElicitRequestParams,
) -> ElicitResult {
    let (message, kind) = match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
            match parse_form(&schema) {
                Ok(fields) => (message, ElicitationKind::Form { fields }),
                Err(why) => {
                    push_note(
                        notes,
                        format!(
                            "MCP server {server:?} asked for input ({:?}) with a form tack cannot show: {why}; tack declined",
                            clean_text(&message)
                        ),
                    );
                    return ElicitResult::new(ElicitationAction::Decline);
                }
            }
        }
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
            let host = reqwest::Url::parse(&url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned));
            match host {
                Some(host) => (message, ElicitationKind::Url { url, host }),
                None => {
                    push_note(
                        notes,
                        format!(
                            "MCP server {server:?} asked the user to open {:?}, which is not a URL with a host; tack declined",
                            clean_text(&url)
                        ),
                    );
                    return ElicitResult::new(ElicitationAction::Decline);
                }
            }
        }
        _ => {
            push_note(
                notes,
                format!(
                    "MCP server {server:?} asked for input in a mode tack does not know; tack declined"
                ),
            );
            return ElicitResult::new(ElicitationAction::Decline);
        }
    };
    let message = clean_text(&message);
    if !requests.can_elicit() {
        push_note(
            notes,
            format!(
                "MCP server {server:?} requested input during this call ({message:?}); tack declined because nobody can be asked in this session (run tack interactively to answer such requests)"
            ),
        );
        return ElicitResult::new(ElicitationAction::Decline);
    }
    let request = Elicitation {
        server: server.to_owned(),
        message,
        kind,
    };
    match requests.elicit(&request).await {
        ElicitAnswer::Accept(content) => {
            if let ElicitationKind::Form { fields } = &request.kind {
                if let Err(why) = check_form(fields, &content) {
                    push_note(
                        notes,
                        format!(
                            "the answer to MCP server {server:?}'s form did not match its schema ({why}); tack declined"
                        ),
                    );
                    return ElicitResult::new(ElicitationAction::Decline);
                }
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            } else {
                ElicitResult::new(ElicitationAction::Accept)
            }
        }
        ElicitAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
        ElicitAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// A titled enum's options (`oneOf`/`anyOf` of `{const, title}`): the
/// values, and the labels shown (the title, else the value).
fn titled_options(options: &[Value]) -> (Vec<String>, Vec<String>) {
    let values = options
        .iter()
        .filter_map(|o| o.get("const")?.as_str().map(str::to_owned))
        .collect();
    let labels = options
        .iter()
        .map(|o| {
            o.get("title")
                .or_else(|| o.get("const"))
                .and_then(Value::as_str)
                .map(clean_text)
                .unwrap_or_default()
        })
        .collect();
    (values, labels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 2},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 0},
            "ok": {"type": "boolean", "default": true},
            "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
        }, "required": ["name", "age"]})
    }

    #[test]
    fn a_flat_schema_becomes_typed_fields_and_answers_are_checked() {
        let fields = parse_form(&schema()).unwrap();
        let by = |n: &str| fields.iter().find(|f| f.name == n).unwrap();
        assert!(by("name").required && !by("email").required);
        assert_eq!(by("age").parse_input("41").unwrap(), Some(json!(41)));
        assert!(by("age").parse_input("4.5").is_err());
        assert!(by("age").parse_input("-1").is_err());
        assert!(by("age").parse_input("").is_err(), "required");
        assert_eq!(by("ok").parse_input("").unwrap(), Some(json!(true)));
        assert_eq!(by("ok").parse_input("n").unwrap(), Some(json!(false)));
        assert_eq!(by("color").parse_input("2").unwrap(), Some(json!("g")));
        assert_eq!(by("color").parse_input("red").unwrap(), Some(json!("r")));
        assert!(by("color").parse_input("blue").is_err());
        assert!(by("email").parse_input("nope").is_err());
        assert_eq!(by("email").parse_input("").unwrap(), None);
        assert!(by("name").parse_input("a").is_err());

        let mut ok = Map::new();
        ok.insert("name".into(), json!("Ada"));
        ok.insert("age".into(), json!(36));
        assert!(check_form(&fields, &ok).is_ok());
        ok.insert("age".into(), json!("36"));
        assert!(check_form(&fields, &ok).unwrap_err().contains("age"));
    }

    #[test]
    fn a_sampling_request_is_read_as_text_and_an_image_is_refused() {
        let params = json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            ],
            "systemPrompt": "be brief",
            "maxTokens": 50,
        });
        let request = sampling_request("s", &params).unwrap();
        assert_eq!(
            request.messages,
            [
                ("user".to_owned(), "hi".to_owned()),
                ("assistant".to_owned(), "ab".to_owned())
            ]
        );
        assert_eq!(
            (request.system.as_deref(), request.max_tokens),
            (Some("be brief"), 50)
        );
        let image = json!({"messages": [{"role": "user", "content": {"type": "image", "data": "", "mimeType": "image/png"}}], "maxTokens": 5});
        assert!(sampling_request("s", &image).unwrap_err().contains("image"));
        let answer = SamplingAnswer {
            text: "ok".into(),
            model: "m".into(),
            stop_reason: Some("endTurn".into()),
        };
        assert_eq!(
            sampling_result(&answer),
            json!({"model": "m", "role": "assistant", "content": {"type": "text", "text": "ok"}, "stopReason": "endTurn"})
        );
    }

    #[test]
    fn forms_that_ask_for_secrets_or_nested_objects_are_refused() {
        let secret = json!({"properties": {"github_token": {"type": "string"}}});
        assert!(parse_form(&secret).unwrap_err().contains("secret"));
        let nested = json!({"properties": {"addr": {"type": "object"}}});
        assert!(parse_form(&nested).unwrap_err().contains("\"addr\""));
        // Words that merely contain a short secret word are fine.
        let fine =
            json!({"properties": {"opinion": {"type": "string"}, "spinner": {"type": "boolean"}}});
        assert_eq!(parse_form(&fine).unwrap().len(), 2);
    }
}
