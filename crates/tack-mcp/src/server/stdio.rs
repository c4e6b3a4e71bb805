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
//! [`JsonRpcMessageCodec`], and unparsable or ill-shaped lines are handled
//! as rmcp's stdio transport handles them. Sending is rmcp's.

use std::borrow::Cow;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ErrorData, JsonObject, JsonRpcMessage,
    JsonRpcRequest, RequestId, RequestMetaObject,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{
    AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH, JsonRpcMessageCodec, JsonRpcMessageCodecError,
};
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, BufReader};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder as _;

/// An rmcp server transport over a byte stream pair (stdin/stdout).
pub(crate) struct StdioTransport<R, W: AsyncWrite> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of a line that was too long, up to its newline.
    discarding: bool,
    max_line_length: usize,
    /// rmcp's transport, used to send (its reader side is never read).
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
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
            write: AsyncRwTransport::new(tokio::io::empty(), write),
        }
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
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
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
            let decoded = self.decode();
            self.line.clear();
            match decoded {
                Ok(Some(message)) => return Some(message),
                Ok(None) => {}
                Err(JsonRpcMessageCodecError::Serde(e))
                    if matches!(
                        e.classify(),
                        serde_json::error::Category::Data | serde_json::error::Category::Io
                    ) =>
                {
                    // Well-formed JSON that is no MCP message: Invalid Request,
                    // as rmcp answers it. (Unparsable input is ignored: there
                    // is no id to answer, and answering could start an error
                    // storm with a peer that echoes.)
                    tracing::debug!("protocol error on an incoming message: {e}");
                    let answer = TxJsonRpcMessage::<RoleServer>::error(
                        ErrorData::invalid_request("Invalid request", None),
                        None,
                    );
                    let send = self.write.send(answer);
                    tokio::spawn(async move {
                        if let Err(e) = send.await {
                            tracing::error!("could not answer an invalid request: {e}");
                        }
                    });
                }
                Err(e) => tracing::debug!("ignoring an unparsable incoming message: {e}"),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.close().await
    }
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
                "this is not json",
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
        // the long line and the unparsable one dropped, the rest in order
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
}
