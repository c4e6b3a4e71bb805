//! The stdio transport of `tack mcp serve`: rmcp's, with a fast lane for
//! `tools/call`.
//!
//! rmcp decodes every incoming line as `JsonRpcMessage<ClientRequest, …>`,
//! and `ClientRequest` is an untagged enum of 22 request types: a
//! `tools/call` is tried as 13 other requests first, each failure building a
//! formatted serde error. That is about a quarter of the CPU time of a call
//! through `tack mcp serve`, pipeline included.
//!
//! [`StdioTransport`] reads lines itself (bounded as rmcp bounds them) and
//! decodes a plain `tools/call` (only `name`, `arguments` and `_meta` in its
//! params) straight into rmcp's `CallToolRequest`, exactly as rmcp's decoder
//! would have built it. Every other line goes to rmcp's own
//! [`JsonRpcMessageCodec`]. Well-formed JSON that is no message gets rmcp's
//! Invalid Request answer; a line that is not JSON gets a Parse error
//! (`-32700`, `"id": null`), where rmcp's transport stays silent and the
//! client waits for an answer that never comes.
//!
//! **Batches** (a JSON array of messages) are part of 2025-03-26 only (later
//! revisions removed them) and rmcp has no notion of them. Once the client
//! initialized at 2025-03-26, a batch is split here into its messages, rmcp
//! serves each, and the answers to its requests go out together as one
//! array once the last is ready (none for a batch of notifications), as
//! JSON-RPC 2.0 section 6 says. At any other revision an array is an
//! Invalid Request. Messages are written as rmcp's codec writes them: JSON
//! and a newline.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ErrorData, JsonObject, JsonRpcMessage,
    JsonRpcRequest, ProtocolVersion, RequestId, RequestMetaObject,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
#[cfg(test)]
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::async_rw::{
    DEFAULT_MAX_LINE_LENGTH, JsonRpcMessageCodec, JsonRpcMessageCodecError,
};
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder as _;

/// An rmcp server transport over a byte stream pair (stdin/stdout).
pub(crate) struct StdioTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of a line that was too long, up to its newline.
    discarding: bool,
    max_line_length: usize,
    /// The output, shared by the sends in flight; `None` once closed.
    write: Arc<tokio::sync::Mutex<Option<W>>>,
    /// The client initialized at 2025-03-26, the one revision with batches.
    batches_allowed: bool,
    /// Messages of a batch not yet handed to rmcp.
    queued: VecDeque<RxJsonRpcMessage<RoleServer>>,
    /// Batches whose answers are not all ready.
    batches: Vec<Batch>,
}

/// A batch being answered: the requests still to answer, the answers so far.
struct Batch {
    waiting: Vec<RequestId>,
    answers: Vec<TxJsonRpcMessage<RoleServer>>,
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(crate) fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
            write: Arc::new(tokio::sync::Mutex::new(Some(write))),
            batches_allowed: false,
            queued: VecDeque::new(),
            batches: Vec::new(),
        }
    }

    /// Writes `bytes` (one line, newline included) after the sends before it.
    fn write_line(
        &self,
        bytes: Vec<u8>,
    ) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut write = write.lock().await;
            let Some(write) = write.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the transport is closed",
                ));
            };
            write.write_all(&bytes).await?;
            write.flush().await
        }
    }

    /// Sends an answer of the transport's own (to a line rmcp never sees).
    fn answer_on_its_own(&self, bytes: Vec<u8>) {
        let send = self.write_line(bytes);
        tokio::spawn(async move {
            if let Err(e) = send.await {
                tracing::error!("could not answer an unusable incoming line: {e}");
            }
        });
    }

    /// Splits a batch: its messages queued for rmcp, its requests awaited,
    /// its unusable members answered (in the batch's answer).
    fn open_batch(&mut self, items: Vec<serde_json::Value>) {
        if items.is_empty() {
            // "an empty Array": one Invalid Request, not an array
            self.answer_on_its_own(line_of(&invalid_request()));
            return;
        }
        let mut batch = Batch {
            waiting: Vec::new(),
            answers: Vec::new(),
        };
        for item in items {
            let mut framed = BytesMut::from(item.to_string().as_bytes());
            framed.extend_from_slice(b"\n");
            match JsonRpcMessageCodec::<RxJsonRpcMessage<RoleServer>>::default().decode(&mut framed)
            {
                Ok(Some(message)) => {
                    if let JsonRpcMessage::Request(request) = &message {
                        batch.waiting.push(request.id.clone());
                    }
                    self.queued.push_back(message);
                }
                Ok(None) | Err(_) => batch.answers.push(invalid_request()),
            }
        }
        if !batch.waiting.is_empty() {
            self.batches.push(batch);
        } else if !batch.answers.is_empty() {
            self.answer_on_its_own(array_line(&batch.answers));
        }
    }

    /// Notes the revision an `initialize` asks for: batches only at 2025-03-26.
    fn note_revision(&mut self, message: &RxJsonRpcMessage<RoleServer>) {
        if let JsonRpcMessage::Request(request) = message
            && let ClientRequest::InitializeRequest(init) = &request.request
        {
            self.batches_allowed = init.params.protocol_version == ProtocolVersion::V_2025_03_26;
        }
    }

    /// The line to write for `item`: the message itself, or when it answers
    /// a batch's request, nothing until it is the batch's last answer and
    /// then the batch's array.
    fn outgoing(&mut self, item: TxJsonRpcMessage<RoleServer>) -> Option<Vec<u8>> {
        let id = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let Some((at, id)) = id.and_then(|id| {
            self.batches
                .iter()
                .position(|batch| batch.waiting.contains(&id))
                .map(|at| (at, id))
        }) else {
            return Some(line_of(&item));
        };
        let batch = &mut self.batches[at];
        batch.waiting.retain(|waiting| *waiting != id);
        batch.answers.push(item);
        if !batch.waiting.is_empty() {
            return None;
        }
        let batch = self.batches.remove(at);
        Some(array_line(&batch.answers))
    }

    #[cfg(test)]
    fn with_max_line_length(mut self, max: usize) -> Self {
        self.max_line_length = max;
        self
    }

    /// Reads one `\n`-terminated line into `self.line`, never letting it grow
    /// past the limit. Cancellation-safe: a partial line stays in
    /// `self.line` for the next call (rmcp's service loop drops `receive`
    /// whenever another branch of its `select!` is ready).
    async fn read_line(&mut self) -> std::io::Result<Line> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Line::Eof);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let outcome = if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                }
                None
            } else if self.line.len().saturating_add(take) > self.max_line_length {
                self.line.clear();
                self.discarding = newline.is_none();
                Some(Line::TooLong)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| Line::Whole)
            };
            self.read.consume(take);
            if let Some(outcome) = outcome {
                return Ok(outcome);
            }
        }
    }

    /// Decodes the line in `self.line`: `Ok(None)` for a line to skip.
    fn decode(&self) -> Result<Option<RxJsonRpcMessage<RoleServer>>, JsonRpcMessageCodecError> {
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return Ok(None);
        }
        if let Some(message) = fast_tools_call(line) {
            return Ok(Some(message));
        }
        let mut framed = BytesMut::with_capacity(line.len() + 1);
        framed.extend_from_slice(line);
        framed.extend_from_slice(b"\n");
        JsonRpcMessageCodec::<RxJsonRpcMessage<RoleServer>>::default().decode(&mut framed)
    }
}

impl<R, W> StdioTransport<R, W> {
    /// The line as a batch's members, when it is a JSON array.
    fn batch(&self) -> Option<Vec<serde_json::Value>> {
        let start = self.line.iter().position(|b| !b.is_ascii_whitespace())?;
        if self.line[start] != b'[' {
            return None;
        }
        serde_json::from_slice(&self.line).ok()
    }
}

enum Line {
    Whole,
    TooLong,
    Eof,
}

impl<R, W> Transport<RoleServer> for StdioTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = if self.batches.is_empty() {
            Some(line_of(&item))
        } else {
            self.outgoing(item)
        };
        let send = line.map(|line| self.write_line(line));
        async move {
            match send {
                Some(send) => send.await,
                None => Ok(()),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(message) = self.queued.pop_front() {
                return Some(message);
            }
            match self.read_line().await {
                Ok(Line::Whole) => {}
                Ok(Line::TooLong) => {
                    tracing::error!(
                        max_line_length = self.max_line_length,
                        "an incoming message exceeded the maximum line length; it was dropped"
                    );
                    continue;
                }
                Ok(Line::Eof) => return None,
                Err(e) => {
                    tracing::error!("error reading from stdin: {e}");
                    return None;
                }
            }
            if self.batches_allowed
                && let Some(items) = self.batch()
            {
                self.line.clear();
                self.open_batch(items);
                continue;
            }
            let decoded = self.decode();
            self.line.clear();
            match decoded {
                Ok(Some(message)) => {
                    self.note_revision(&message);
                    return Some(message);
                }
                Ok(None) => {}
                Err(JsonRpcMessageCodecError::Serde(e))
                    if matches!(
                        e.classify(),
                        serde_json::error::Category::Data | serde_json::error::Category::Io
                    ) =>
                {
                    // Well-formed JSON that is no MCP message: Invalid Request,
                    // as rmcp answers it (a batch too, at revisions without them).
                    tracing::debug!("protocol error on an incoming message: {e}");
                    self.answer_on_its_own(line_of(&invalid_request()));
                }
                Err(e) => {
                    // Not JSON at all: a Parse error whose id is null (JSON-RPC
                    // 2.0 section 5.1: the id could not be read), and the
                    // session goes on.
                    tracing::debug!("an incoming line is not JSON: {e}");
                    self.answer_on_its_own(parse_error_line(&e.to_string()));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut write = self.write.lock().await;
        if let Some(mut write) = write.take() {
            write.flush().await?;
        }
        Ok(())
    }
}

/// rmcp's Invalid Request answer (no id: it could not be read).
fn invalid_request() -> TxJsonRpcMessage<RoleServer> {
    TxJsonRpcMessage::<RoleServer>::error(ErrorData::invalid_request("Invalid request", None), None)
}

/// A message as one line, as rmcp's codec writes it.
fn line_of(message: &TxJsonRpcMessage<RoleServer>) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// A batch's answers as one line: a JSON array.
fn array_line(answers: &[TxJsonRpcMessage<RoleServer>]) -> Vec<u8> {
    let mut line = serde_json::to_vec(answers).unwrap_or_default();
    line.push(b'\n');
    line
}

/// The Parse error answer, `"id": null` as JSON-RPC 2.0 has it.
fn parse_error_line(detail: &str) -> Vec<u8> {
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": ErrorData::parse_error("", None).code.0,
            "message": format!("Parse error: the line is not JSON ({detail})"),
        },
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// A `tools/call` request with nothing but the fields tack reads.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastCall<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: FastParams,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FastParams {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    #[serde(rename = "_meta", default)]
    meta: Option<JsonObject>,
}

/// Decodes a plain `tools/call` as rmcp's decoder would, or `None` to leave
/// the line to rmcp (any other message, any other field, anything odd).
fn fast_tools_call(line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
    let call: FastCall<'_> = serde_json::from_slice(line).ok()?;
    if call.jsonrpc != "2.0" || call.method != "tools/call" {
        return None;
    }
    let mut params = CallToolRequestParams::new(call.params.name);
    params.arguments = call.params.arguments;
    let mut request = CallToolRequest::new(params);
    if let Some(meta) = call.params.meta {
        // rmcp keeps a request's `_meta` in its extensions, not its params.
        request.extensions.insert(RequestMetaObject::from(meta));
    }
    Some(JsonRpcMessage::Request(JsonRpcRequest::new(
        call.id,
        ClientRequest::CallToolRequest(request),
    )))
}

#[cfg(test)]
mod tests {
    use rmcp::model::GetMeta as _;
    use serde_json::{Value, json};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::*;

    /// What rmcp's own decoder makes of a line.
    fn rmcp_decode(line: &str) -> RxJsonRpcMessage<RoleServer> {
        let mut framed = BytesMut::from(format!("{line}\n").as_bytes());
        JsonRpcMessageCodec::<RxJsonRpcMessage<RoleServer>>::default()
            .decode(&mut framed)
            .unwrap()
            .unwrap()
    }

    /// The message as JSON plus its request `_meta`, which rmcp keeps aside.
    fn observable(message: &RxJsonRpcMessage<RoleServer>) -> (Value, Value) {
        let meta = match message {
            JsonRpcMessage::Request(r) => {
                assert!(matches!(r.request, ClientRequest::CallToolRequest(_)));
                serde_json::to_value(r.request.get_meta()).unwrap()
            }
            other => panic!("not a request: {other:?}"),
        };
        (serde_json::to_value(message).unwrap(), meta)
    }

    #[test]
    fn the_fast_lane_builds_what_rmcp_builds() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","arguments":{"text":"x"}}}"#,
            r#"{"jsonrpc":"2.0","id":"a-7","method":"tools/call","params":{"name":"Read"}}"#,
            r#"{"id":9007199254740993,"params":{"arguments":null,"name":"Bash"},"method":"tools/call","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Echo","arguments":{"a":[1,{"b":null}]},"_meta":{"progressToken":"p1","io.example/x":{"y":true}}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"progressToken":5},"name":"\u00e9\"q\"","arguments":{}}}"#,
        ];
        for line in lines {
            let fast = fast_tools_call(line.as_bytes()).unwrap_or_else(|| panic!("slow: {line}"));
            assert_eq!(observable(&fast), observable(&rmcp_decode(line)), "{line}");
        }
    }

    #[test]
    fn anything_else_is_left_to_rmcp() {
        let lines = [
            // other methods and messages
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            // fields the fast lane does not know
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","task":{"ttl":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo"},"extra":1}"#,
            // wrong version, notification form, bad shapes
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"Echo"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"Echo"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","name":"Other"}}"#,
            "not json",
        ];
        for line in lines {
            assert!(fast_tools_call(line.as_bytes()).is_none(), "{line}");
        }
    }

    /// Feeds `input` to a transport and collects what it receives and what it
    /// writes back on its own.
    async fn through<T: Transport<RoleServer>>(
        input: &[u8],
        make: impl FnOnce(tokio::io::DuplexStream, tokio::io::DuplexStream) -> T,
    ) -> (Vec<String>, String) {
        let (mut client, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, mut answers) = tokio::io::duplex(1 << 20);
        let mut transport = make(server_in, server_out);
        client.write_all(input).await.unwrap();
        drop(client);
        let mut received = Vec::new();
        while let Some(message) = transport.receive().await {
            received.push(serde_json::to_string(&message).unwrap());
        }
        // let the spawned answers to bad lines go out before closing
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        transport.close().await.unwrap();
        drop(transport);
        let mut written = String::new();
        answers.read_to_string(&mut written).await.unwrap();
        (received, written)
    }

    #[tokio::test]
    async fn it_receives_and_answers_what_rmcps_transport_does() {
        let long = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"{}"}}}}"#,
            "x".repeat(300)
        );
        let inputs = [
            vec![
                "\r",
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"A"}}"#,
                r#"{"jsonrpc":"2.0","id":2,"method":"no/such"}"#,
                &long,
                r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
                "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"B\"}}\r",
                r#"{"jsonrpc":"2.0","method":"notifications/lsp/whatever"}"#,
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"C","arguments":{"k":1},"_meta":{"progressToken":"t"}}}"#,
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"C","arguments":"oops"}}"#,
                "",
            ],
            vec![r#"{"jsonrpc":"2.0","id":1,"method":7}"#, ""],
            // the last line has no newline: dropped at EOF
            vec![
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                r#"{"jsonrpc":"2.0","id":2"#,
            ],
        ];
        let mut outcomes = Vec::new();
        for input in inputs {
            let input = input.join("\n");
            let ours = through(input.as_bytes(), |r, w| {
                StdioTransport::new(r, w).with_max_line_length(200)
            })
            .await;
            let theirs = through(input.as_bytes(), |r, w| {
                AsyncRwTransport::<RoleServer, _, _>::new(r, w).with_max_line_length(200)
            })
            .await;
            assert_eq!(ours, theirs, "{input}");
            outcomes.push(ours);
        }
        let ids = |received: &[String]| -> Vec<Value> {
            received
                .iter()
                .map(|m| serde_json::from_str::<Value>(m).unwrap()["id"].clone())
                .collect()
        };
        // the long line dropped, the rest in order
        // (rmcp takes a call with bad arguments for a custom request)
        assert_eq!(
            ids(&outcomes[0].0),
            [
                json!(1),
                json!(2),
                json!(3),
                json!(4),
                Value::Null,
                json!(6),
                json!(7)
            ]
        );
        assert_eq!(outcomes[0].1, "");
        // well-formed JSON that is no message is an Invalid Request
        assert!(outcomes[1].0.is_empty());
        assert_eq!(
            outcomes[1].1.matches("-32600").count(),
            1,
            "{}",
            outcomes[1].1
        );
        assert_eq!(ids(&outcomes[2].0), [json!(1)]);
    }

    #[tokio::test]
    async fn a_line_split_across_reads_arrives_whole() {
        let (mut client, server_in) = tokio::io::duplex(16);
        let (server_out, _answers) = tokio::io::duplex(1 << 16);
        let mut transport = StdioTransport::new(server_in, server_out);
        let writer = tokio::spawn(async move {
            let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"Echo\",\"arguments\":{\"text\":\"hello\"}}}\n";
            for chunk in line.chunks(7) {
                client.write_all(chunk).await.unwrap();
                tokio::task::yield_now().await;
            }
        });
        let message = transport.receive().await.unwrap();
        writer.await.unwrap();
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(value["params"]["arguments"]["text"], json!("hello"));
    }

    /// What the transport writes back for `lines`, as JSON values, and the
    /// ids of what it hands to rmcp.
    async fn answers(lines: &[&str]) -> (Vec<Value>, Vec<Value>) {
        let input = format!("{}\n", lines.join("\n"));
        let (received, written) = through(input.as_bytes(), StdioTransport::new).await;
        let ids = received
            .iter()
            .map(|m| serde_json::from_str::<Value>(m).unwrap()["id"].clone())
            .collect();
        let written = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (ids, written)
    }

    #[tokio::test]
    async fn a_line_that_is_not_json_gets_a_parse_error_and_the_session_goes_on() {
        let (ids, written) = answers(&[
            "this is not json",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        ])
        .await;
        assert_eq!(ids, [json!(2)]);
        assert_eq!(written.len(), 2, "{written:?}");
        for answer in &written {
            assert_eq!(answer["error"]["code"], -32700, "{answer}");
            assert_eq!(answer["id"], Value::Null, "{answer}");
            assert!(answer.as_object().unwrap().contains_key("id"), "{answer}");
        }
    }

    const INIT_2025_03_26: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

    #[tokio::test]
    async fn a_batch_at_2025_03_26_is_split_for_rmcp() {
        let (ids, written) = answers(&[
            INIT_2025_03_26,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/list"},{"nope":1}]"#,
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            "[]",
        ])
        .await;
        assert_eq!(
            ids,
            [json!(0), json!(1), Value::Null, json!("b"), Value::Null]
        );
        // the odd member is answered when the batch is (here: its requests
        // are unanswered, so only the empty batch's Invalid Request is out)
        assert_eq!(written.len(), 1, "{written:?}");
        assert_eq!(written[0]["error"]["code"], -32600, "{written:?}");
    }

    #[tokio::test]
    async fn a_batch_is_invalid_at_other_revisions() {
        let init = INIT_2025_03_26.replace("2025-03-26", "2025-11-25");
        let (ids, written) =
            answers(&[&init, r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#]).await;
        assert_eq!(ids, [json!(0)]);
        assert_eq!(written.len(), 1, "{written:?}");
        assert_eq!(written[0]["error"]["code"], -32600, "{written:?}");
    }

    #[tokio::test]
    async fn a_batchs_answers_go_out_together_as_one_array() {
        let (read, _client) = tokio::io::duplex(1 << 16);
        let (server_out, mut out) = tokio::io::duplex(1 << 16);
        let mut transport = StdioTransport::new(read, server_out);
        transport.batches_allowed = true;
        transport.open_batch(vec![
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
            json!(7),
        ]);
        let response = |id: i64| {
            TxJsonRpcMessage::<RoleServer>::response(
                rmcp::model::ServerResult::empty(()),
                RequestId::Number(id),
            )
        };
        // an answer outside the batch goes at once; the batch's wait for the last
        transport.send(response(9)).await.unwrap();
        transport.send(response(2)).await.unwrap();
        transport.send(response(1)).await.unwrap();
        transport.close().await.unwrap();
        drop(transport);
        let mut written = String::new();
        out.read_to_string(&mut written).await.unwrap();
        let lines: Vec<Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{written}");
        assert_eq!(lines[0]["id"], 9);
        let batch = lines[1].as_array().unwrap();
        assert_eq!(batch.len(), 3, "{written}");
        assert_eq!(batch[0]["error"]["code"], -32600, "{written}");
        assert_eq!(batch[1]["id"], 2);
        assert_eq!(batch[2]["id"], 1);
    }
}
