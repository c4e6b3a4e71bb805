//! A small Server-Sent Events decoder.
//!
//! Why not a crate: `eventsource-stream` (the usual choice) has had no release
//! since 2022 and pulls in `nom`; `reqwest-eventsource` adds its own retry logic
//! that would fight ours (a cut stream must be retried as a whole request by
//! `retry.rs`, not resumed). What both providers need is small: split bytes
//! into lines (`\n`, `\r\n` or `\r`, even when a chunk ends between `\r` and
//! `\n` or inside a UTF-8 character), read `event:` and `data:` fields, skip
//! comments, and dispatch on a blank line. That is the code below, tested on
//! streams fed in awkward pieces.

use std::collections::VecDeque;
use std::pin::Pin;

use bytes::Bytes;
use futures::{Stream, StreamExt};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any (OpenAI sends none).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental decoder: feed it chunks, get complete events back.
///
/// Linear in the bytes fed, however they are chunked: the unfinished last line
/// stays in `buf` and `scanned` remembers how much of it holds no line end, so
/// a 16 MiB `data:` line arriving in 8 KiB chunks is searched once, not once
/// per chunk (which was quadratic: 10 s for that line).
#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// The first `scanned` bytes of `buf` hold no `\n` or `\r`.
    scanned: usize,
    event: Option<String>,
    data: String,
    has_data: bool,
    /// Bytes looked at for a line end, in all: the tests check it stays
    /// linear in the input.
    #[cfg(test)]
    looked_at: usize,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds bytes; returns the events completed by them.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(chunk);
        let mut events = Vec::new();
        // Where the current line starts, and where to look for its end.
        let mut start = 0;
        let mut from = self.scanned;
        loop {
            let found = memchr::memchr2(b'\n', b'\r', &self.buf[from..]);
            #[cfg(test)]
            {
                self.looked_at += found.map_or(self.buf.len() - from, |rel| rel + 1);
            }
            let Some(rel) = found else { break };
            let end = from + rel;
            let terminator = if self.buf[end] == b'\r' {
                match self.buf.get(end + 1) {
                    Some(b'\n') => 2,
                    Some(_) => 1,
                    // A `\r` at the end of what we have: a `\n` may follow in
                    // the next chunk, so wait for it (and look at it again).
                    None => break,
                }
            } else {
                1
            };
            let line = String::from_utf8_lossy(&self.buf[start..end]).into_owned();
            start = end + terminator;
            from = start;
            if let Some(event) = self.line(&line) {
                events.push(event);
            }
        }
        // Up to a held-back `\r` (looked at again next time), or all of it.
        let searched = match self.buf.last() {
            Some(b'\r') if self.buf.len() > start => self.buf.len() - 1,
            _ => self.buf.len(),
        };
        self.buf.drain(..start);
        self.scanned = searched - start;
        events
    }

    /// The stream ended. An event whose lines are complete but which lacks
    /// the closing blank line is still dispatched (some servers close right
    /// after the last `data:` line); an unterminated last line is a cut and
    /// is dropped, so a half-sent JSON object never reaches a parser.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let rest = std::mem::take(&mut self.buf);
        self.scanned = 0;
        if let Some(line) = rest.strip_suffix(b"\r") {
            // A `\r` held back in case a `\n` followed: the line was complete.
            let line = String::from_utf8_lossy(line).into_owned();
            if let Some(event) = self.line(&line) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None; // comment
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {} // id, retry and unknown fields do not matter here
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
        })
    }
}

/// Whether a provider's stream reader wants more events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// Events read from a byte stream (e.g. `reqwest::Response::bytes_stream`).
pub struct SseStream<E> {
    inner: Pin<Box<dyn Stream<Item = Result<Bytes, E>> + Send>>,
    decoder: SseDecoder,
    pending: VecDeque<SseEvent>,
    ended: bool,
}

impl<E> SseStream<E> {
    pub fn new(inner: impl Stream<Item = Result<Bytes, E>> + Send + 'static) -> Self {
        Self {
            inner: Box::pin(inner),
            decoder: SseDecoder::new(),
            pending: VecDeque::new(),
            ended: false,
        }
    }

    /// The next event; `None` when the byte stream has ended.
    pub async fn next_event(&mut self) -> Option<Result<SseEvent, E>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.ended {
                return None;
            }
            match self.inner.next().await {
                Some(Ok(chunk)) => self.pending.extend(self.decoder.feed(&chunk)),
                Some(Err(e)) => {
                    self.ended = true;
                    return Some(Err(e));
                }
                None => {
                    self.ended = true;
                    self.pending.extend(self.decoder.finish());
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The literal stream of protocols.md §1.6 (SDK fixture).
    pub(crate) const ANTHROPIC_TOOL_STREAM: &str = concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_019Q1hrJbZG26Fb9BQhrkHEr\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-20250514\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":377,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":1,\"service_tier\":\"standard\"}}}\n",
        "\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n",
        "\n",
        "event: ping\n",
        "data: {\"type\": \"ping\"}\n",
        "\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"I'll check the current weather in Paris for you.\"}}\n",
        "\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n",
        "\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01NRLabsLyVHZPKxbKvkfSMn\",\"name\":\"get_weather\",\"input\":{}}}\n",
        "\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n",
        "\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"locati\"}}\n",
        "\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"on\\\": \\\"Paris\\\"}\"}}\n",
        "\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":1}\n",
        "\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":65}}\n",
        "\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n",
        "\n",
    );

    fn decode_in_chunks(input: &[u8], sizes: &[usize]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        let mut rest = input;
        let mut i = 0;
        while !rest.is_empty() {
            let n = sizes[i % sizes.len()].min(rest.len());
            out.extend(decoder.feed(&rest[..n]));
            rest = &rest[n..];
            i += 1;
        }
        out.extend(decoder.finish());
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300),
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Bounded fuzzing: any bytes, cut anywhere, decode without a panic
        /// and to the same events as the whole input at once.
        #[test]
        fn any_bytes_in_any_chunks_decode_as_the_whole(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::collection::vec(proptest::prelude::any::<u8>(), 0..16),
                    proptest::sample::select(vec![
                        b"data: ".to_vec(), b"event: x".to_vec(), b"\r\n".to_vec(),
                        b"\n".to_vec(), b"\r".to_vec(), b":".to_vec(), b"\n\n".to_vec(),
                        "é".as_bytes().to_vec(), b"data:{}".to_vec(), b"id: 1".to_vec(),
                    ]),
                ],
                0..64,
            ),
            cuts in proptest::collection::vec(1usize..40, 1..16),
        ) {
            let input: Vec<u8> = pieces.concat();
            let whole = decode_in_chunks(&input, &[input.len().max(1)]);
            let cut = decode_in_chunks(&input, &cuts);
            proptest::prop_assert_eq!(whole, cut);
        }
    }

    #[test]
    fn fixture_decodes_the_same_whatever_the_chunking() {
        let whole = decode_in_chunks(ANTHROPIC_TOOL_STREAM.as_bytes(), &[usize::MAX]);
        assert_eq!(whole.len(), 12);
        assert_eq!(whole[0].event.as_deref(), Some("message_start"));
        assert_eq!(whole[2].event.as_deref(), Some("ping"));
        assert_eq!(whole[2].data, r#"{"type": "ping"}"#);
        assert_eq!(whole[11].data, r#"{"type":"message_stop"}"#);
        for sizes in [&[1][..], &[2], &[3, 7], &[5, 1, 13], &[64], &[17, 2, 1, 40]] {
            assert_eq!(
                decode_in_chunks(ANTHROPIC_TOOL_STREAM.as_bytes(), sizes),
                whole,
                "chunk sizes {sizes:?}"
            );
        }
    }

    #[test]
    fn crlf_and_cr_line_endings_split_across_chunks() {
        let lf = ANTHROPIC_TOOL_STREAM;
        let crlf = lf.replace('\n', "\r\n");
        let cr = lf.replace('\n', "\r");
        let expected = decode_in_chunks(lf.as_bytes(), &[usize::MAX]);
        for input in [&crlf, &cr] {
            for sizes in [&[1][..], &[2], &[3, 5], &[usize::MAX]] {
                assert_eq!(decode_in_chunks(input.as_bytes(), sizes), expected);
            }
        }
    }

    #[test]
    fn utf8_split_inside_a_character() {
        let input = "data: {\"text\":\"héllo ✓\"}\n\n".as_bytes();
        for n in 1..input.len() {
            let mut d = SseDecoder::new();
            let mut got = d.feed(&input[..n]);
            got.extend(d.feed(&input[n..]));
            assert_eq!(got.len(), 1, "split at {n}");
            assert_eq!(got[0].data, "{\"text\":\"héllo ✓\"}");
        }
    }

    #[test]
    fn comments_multiline_data_and_missing_space() {
        let mut d = SseDecoder::new();
        let got = d.feed(b": keep-alive\n\ndata:a\ndata: b\nid: 7\nretry: 10\n\nevent: x\n\n");
        // A comment alone and an event with no data dispatch nothing.
        assert_eq!(
            got,
            vec![SseEvent {
                event: None,
                data: "a\nb".into()
            }]
        );
        // The event name does not leak into the next event.
        let got = d.feed(b"data: c\n\n");
        assert_eq!(got[0].event, None);
    }

    #[test]
    fn end_of_stream_keeps_complete_lines_and_drops_a_cut_one() {
        let mut d = SseDecoder::new();
        assert!(d.feed(b"data: {\"a\":1}\n\ndata: [DONE]\n").len() == 1);
        assert_eq!(d.finish().map(|e| e.data), Some("[DONE]".into()));
        assert_eq!(d.finish(), None);

        let mut d = SseDecoder::new();
        assert!(d.feed(b"data: [DONE]\r").is_empty());
        assert_eq!(d.finish().map(|e| e.data), Some("[DONE]".into()));

        let mut d = SseDecoder::new();
        assert!(
            d.feed(b"event: content_block_delta\ndata: {\"type\":\"content_bl")
                .is_empty()
        );
        assert_eq!(d.finish(), None);
    }

    /// A 16 MiB `data:` line of multi-byte characters fed in 8 KiB chunks
    /// (each cutting a character), ended by `\r\n` split between two chunks,
    /// then events ended by a lone `\r` at the end of a chunk and by `\n`.
    #[test]
    fn a_long_line_in_many_chunks_is_searched_once_and_decodes_whole() {
        let text = "é✓x".repeat(16 * 1024 * 1024 / 6);
        let mut input = format!("event: big\r\ndata: {text}\r\n\r\n").into_bytes();
        let cut = input.len() - 3; // between the `\r` and `\n` ending the data line
        input.extend_from_slice(b"data: after-cr\r\rdata: last\n\n");
        let mut d = SseDecoder::new();
        let mut got = Vec::new();
        let mut at = 0;
        while at < cut {
            let next = (at + 8 * 1024).min(cut);
            got.extend(d.feed(&input[at..next]));
            at = next;
        }
        assert!(got.is_empty());
        got.extend(d.feed(&input[cut..cut + 17])); // "\n\r\ndata: after-cr\r"
        assert_eq!(got.len(), 1, "the big event, once its blank line came");
        got.extend(d.feed(&input[cut + 17..]));

        assert_eq!(
            got,
            [
                SseEvent {
                    event: Some("big".into()),
                    data: text
                },
                SseEvent {
                    event: None,
                    data: "after-cr".into()
                },
                SseEvent {
                    event: None,
                    data: "last".into()
                },
            ]
        );
        assert!(
            d.looked_at <= input.len() + 2,
            "looked at {} bytes for line ends in an input of {}",
            d.looked_at,
            input.len()
        );
    }

    #[tokio::test]
    async fn stream_wrapper_reports_transport_errors() {
        let chunks: Vec<Result<Bytes, String>> = vec![
            Ok(Bytes::from_static(b"data: 1\n\nda")),
            Ok(Bytes::from_static(b"ta: 2\n\n")),
            Err("reset".into()),
        ];
        let mut s = SseStream::new(futures::stream::iter(chunks));
        assert_eq!(s.next_event().await.unwrap().unwrap().data, "1");
        assert_eq!(s.next_event().await.unwrap().unwrap().data, "2");
        assert_eq!(s.next_event().await.unwrap().unwrap_err(), "reset");
        assert!(s.next_event().await.is_none());
    }
}
