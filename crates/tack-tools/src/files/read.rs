//! Read: numbered lines of a text file, or an image.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use base64::Engine as _;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, ImageBlock};
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::paths::{Use, blocking, io_error, judged, plural, require_absolute};
use super::physical;
use super::state::{ContentHasher, FileState, Snapshot};

/// Lines returned when no limit is given.
pub const DEFAULT_LIMIT: u64 = 2000;
/// Characters of one line shown before it is cut.
pub const MAX_LINE_CHARS: usize = 2000;
/// Bytes of numbered text returned by one call; past this, the result stops at
/// a line boundary and says how to read on.
pub const MAX_OUTPUT_BYTES: usize = 256 * 1024;
/// Largest image returned: 3.75 MiB, which is 5 MiB once base64-encoded (the
/// API's limit for one image).
pub const MAX_IMAGE_BYTES: u64 = 3 * 1024 * 1024 + 768 * 1024;

/// Bytes looked at to tell text, image and binary apart.
const HEADER_BYTES: usize = 8192;

const DESCRIPTION: &str = "Reads a file from the local filesystem. Returns its lines numbered like `cat -n` (line number, a tab, the line), \
the first 2000 lines unless you pass offset (1-based line to start at) and limit; when more lines remain, the result ends with a note saying \
how many lines the file has and the offset to read on from. Lines longer than 2000 characters are cut. \
PNG, JPEG, GIF and WebP images are returned as images; a notebook (.ipynb) as its cells with ids and outputs \
(offset and limit then count cells); a PDF as text page by page (pages such as \"1-5\" picks pages); other binary files are refused. \
file_path must be absolute. You must Read a file before changing it with Edit, Write or NotebookEdit. \
To find files by name use Glob, to search contents use Grep, to list a directory use Bash ls.";

// Input of Read. Field doc comments are the schema descriptions the model reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// Absolute path of the file, e.g. "/home/me/project/src/main.rs".
    pub file_path: String,
    /// Line number to start at, 1-based. Only needed for files too long to read at once.
    pub offset: Option<u64>,
    /// Number of lines to read (default 2000). For a notebook, offset and limit count cells.
    pub limit: Option<u64>,
    /// PDF only: pages to read, e.g. "3" or "1-5" (at most 20). Default: from page 1 as far as fits.
    pub pages: Option<String>,
}

/// The Read tool.
#[derive(Debug, Clone)]
pub struct ReadTool {
    state: FileState,
}

impl ReadTool {
    pub fn new(state: FileState) -> Self {
        Self { state }
    }
}

#[async_trait]
impl TypedTool for ReadTool {
    fn output(&self) -> tack_tool::OutputBehaviour {
        tack_tool::OutputBehaviour::with_hint(" You can also Read the file with offset and limit.")
    }
    type Input = ReadInput;

    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn is_concurrency_safe(&self, _input: &ReadInput) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn validate(&self, input: &ReadInput, ctx: &ToolContext) -> Result<(), ToolError> {
        require_absolute("file_path", &input.file_path, &ctx.cwd)?;
        if input.limit == Some(0) {
            return Err(ToolError::InvalidInput(
                "limit must be at least 1 (omit it to read up to 2000 lines)".into(),
            ));
        }
        if let Some(pages) = &input.pages {
            super::pdf::PageRange::parse(pages)?;
        }
        Ok(())
    }

    async fn call(&self, input: ReadInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        self.validate(&input, &ctx)?;
        let path = require_absolute("file_path", &input.file_path, &ctx.cwd)?;
        // Models often pass offset 0 to mean "from the start".
        let offset = input.offset.unwrap_or(1).max(1);
        let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
        let state = self.state.clone();
        let pages = input.pages;
        let checked = ctx.checked_files;
        if let Some(meta) = small_file(&path) {
            if ctx.cancel.is_cancelled() {
                return Err(ToolError::Interrupted("Read was cancelled".into()));
            }
            let at = At {
                path: &path,
                checked: &checked,
            };
            return read_file(&state, at, Some(meta), offset, limit, pages.as_deref());
        }
        blocking("Read", Some(&ctx.cancel), move || {
            let at = At {
                path: &path,
                checked: &checked,
            };
            read_file(&state, at, None, offset, limit, pages.as_deref())
        })
        .await
    }
}

/// `path`'s metadata when it is a regular file small enough to read on the
/// caller's thread: up to [`INLINE_READ_MAX`] bytes and not a PDF, whose
/// parse costs more than its size says. Reading it takes microseconds, less
/// than handing it to the blocking pool and back (two thread switches: on
/// `tack mcp serve`'s single thread, a third of a small Read's cost;
/// BENCHMARKS.md, "`tack mcp serve`: a small Read without the blocking pool").
fn small_file(path: &Path) -> Option<std::fs::Metadata> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
    {
        return None;
    }
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file() && m.len() <= INLINE_READ_MAX)
}

/// See [`small_file`].
const INLINE_READ_MAX: u64 = 64 * 1024;

/// The file a Read names, and the files the permission check judged it to
/// be ([`tack_tool::ToolContext::checked_files`]; empty: not checked here).
#[derive(Clone, Copy)]
struct At<'a> {
    path: &'a Path,
    checked: &'a [std::path::PathBuf],
}

fn read_file(
    state: &FileState,
    at: At<'_>,
    meta: Option<std::fs::Metadata>,
    offset: u64,
    limit: u64,
    pages: Option<&str>,
) -> Result<ToolOutput, ToolError> {
    let path = at.path;
    let target = judged(path, at.checked, Use::Read)?;
    // A first look by name, so a directory, a device or a FIFO is refused
    // without being opened; what was opened is judged by its own metadata
    // below.
    let named = match meta {
        Some(meta) => meta,
        None => std::fs::metadata(&target).map_err(|e| io_error("read", path, &e))?,
    };
    not_a_file(path, &named)?;
    // Opened at the path judged, no link followed: a directory on it
    // replaced by a link since the check fails the open.
    let mut file = physical::open_file(&target).map_err(|e| io_error("read", path, &e))?;
    let meta = file.metadata().map_err(|e| io_error("read", path, &e))?;
    not_a_file(path, &meta)?;
    let canonical = target;
    let header = read_header(&mut file, meta.len()).map_err(|e| io_error("read", path, &e))?;
    // All of it when the header holds the size the file had (files in /proc
    // say 0 and are read to their end).
    let whole = meta.len() > 0 && header.len() as u64 >= meta.len();

    // Notebooks and PDFs have readers of their own.
    let is_pdf = super::pdf::is_pdf(path, &header);
    if let Some(pages) = pages.filter(|_| !is_pdf) {
        return Err(ToolError::InvalidInput(format!(
            "pages ({pages:?}) is only for PDF files, and {} is not one. Use offset and limit instead.",
            path.display()
        )));
    }
    // Both read from the file opened here, never by name again.
    let opened = OpenFile { file, header };
    if is_pdf {
        return super::pdf::read_pdf(state, path, canonical, &meta, opened, pages);
    }
    if super::notebook::is_notebook(path) {
        return super::notebook::read_notebook(
            state, path, canonical, &meta, opened, offset, limit,
        );
    }
    let OpenFile { mut file, header } = opened;

    if let Some((media_type, label)) = image_type(&header) {
        return read_image(
            state, path, canonical, &meta, file, header, media_type, label,
        );
    }
    if header.is_empty() {
        state.record(
            canonical,
            Snapshot::of(&meta, ContentHasher::default().finish()),
        );
        return Ok(
            ToolOutput::text(format!("The file {} exists but is empty.", path.display()))
                .with_response(text_response(path, "", 0, 1, 0)),
        );
    }
    let utf16 = match content_inspector::inspect(&header) {
        content_inspector::ContentType::UTF_16LE => Some(true),
        content_inspector::ContentType::UTF_16BE => Some(false),
        kind if kind.is_binary() || memchr::memchr(0, &header).is_some() => {
            return Err(ToolError::Unavailable(format!(
                "{} is a binary file ({}, {} bytes); Read shows only text and PNG/JPEG/GIF/WebP images. To inspect it use Bash, e.g. `file`, `xxd | head`, or `unzip -l` for an archive.",
                path.display(),
                binary_kind(&header),
                meta.len()
            )));
        }
        _ => None,
    };

    let mut hasher = ContentHasher::default();
    let mut lines = Numberer::new(offset, limit);
    let mut note_encoding = None;
    if let Some(little_endian) = utf16 {
        let mut raw = header;
        file.read_to_end(&mut raw)
            .map_err(|e| io_error("read", path, &e))?;
        hasher.update(&raw);
        lines.feed(decode_utf16(&raw, little_endian).as_bytes());
        note_encoding = Some(if little_endian {
            "UTF-16LE"
        } else {
            "UTF-16BE"
        });
    } else {
        hasher.update(&header);
        lines.feed(&header);
        if !whole {
            let mut reader = BufReader::with_capacity(64 * 1024, file);
            loop {
                let chunk = reader.fill_buf().map_err(|e| io_error("read", path, &e))?;
                if chunk.is_empty() {
                    break;
                }
                hasher.update(chunk);
                lines.feed(chunk);
                let n = chunk.len();
                reader.consume(n);
            }
        }
    }
    let seen = lines.finish();
    if seen.shown == 0 {
        return Err(ToolError::InvalidInput(format!(
            "offset {offset} is past the end of {}, which has {}. Call Read with a smaller offset.",
            path.display(),
            plural(seen.total as usize, "line")
        )));
    }
    state.record(canonical, Snapshot::of(&meta, hasher.finish()));

    let mut text = seen.out;
    let last_shown = offset + seen.shown - 1;
    if let Some(encoding) = note_encoding {
        text.push_str(&format!("\n(Decoded from {encoding}.)"));
    }
    if seen.invalid_utf8 {
        text.push_str("\n(The file is not valid UTF-8: undecodable bytes are shown as \u{FFFD}. Edit can still replace text in its valid parts.)");
    }
    if seen.cut_lines > 0 {
        text.push_str(&format!(
            "\n({} longer than {MAX_LINE_CHARS} characters cut.)",
            plural(seen.cut_lines, "line")
        ));
    }
    if last_shown < seen.total {
        let why = if seen.budget_hit {
            format!(
                " (output is limited to {} KB per call)",
                MAX_OUTPUT_BYTES / 1024
            )
        } else {
            String::new()
        };
        text.push_str(&format!(
            "\n(The file has {} lines; this shows lines {offset}-{last_shown}{why}. To read on, call Read with offset={}.)",
            seen.total,
            last_shown + 1
        ));
    }
    let mut response = text_response(path, &seen.plain, seen.shown, offset, seen.total);
    if seen.budget_hit {
        response["file"]["truncatedByTokenCap"] = true.into();
    }
    Ok(ToolOutput::text(text).with_response(response))
}

/// Read's output in Claude Code's shape (`FileReadOutput`, type "text").
fn text_response(path: &Path, content: &str, shown: u64, start: u64, total: u64) -> Value {
    json!({"type": "text", "file": {
        "filePath": path.display().to_string(),
        "content": content,
        "numLines": shown,
        "startLine": start,
        "totalLines": total,
    }})
}

/// A file opened for reading and its first bytes, already read.
pub(crate) struct OpenFile {
    pub(crate) file: File,
    pub(crate) header: Vec<u8>,
}

impl OpenFile {
    /// All of the file's content.
    pub(crate) fn read_all(self) -> std::io::Result<Vec<u8>> {
        let OpenFile { mut file, header } = self;
        let mut all = header;
        file.read_to_end(&mut all)?;
        Ok(all)
    }
}

/// Refuses what Read does not read: a directory (with how to list it), a
/// device, FIFO or socket.
fn not_a_file(path: &Path, meta: &std::fs::Metadata) -> Result<(), ToolError> {
    if meta.is_dir() {
        return Err(ToolError::InvalidInput(format!(
            "{0} is a directory, not a file. To list it use Glob with path \"{0}\" and pattern \"*\" (or \"**/*\" for everything under it), or Bash ls.",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(ToolError::InvalidInput(format!(
            "{} is not a regular file (a device, FIFO or socket); Read only reads regular files.",
            path.display()
        )));
    }
    Ok(())
}

/// The file's first [`HEADER_BYTES`], or all of it: reading stops at the end
/// or at `size` (the size it had; 0 for unknown), so a small file costs one
/// read.
fn read_header(file: &mut File, size: u64) -> std::io::Result<Vec<u8>> {
    let want = match usize::try_from(size) {
        Ok(size) if size > 0 => size.min(HEADER_BYTES),
        _ => HEADER_BYTES,
    };
    let mut header = vec![0; want];
    let mut filled = 0;
    while filled < want {
        match file.read(&mut header[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    header.truncate(filled);
    Ok(header)
}

#[expect(
    clippy::too_many_arguments,
    reason = "one call site, all parts of one read"
)]
fn read_image(
    state: &FileState,
    path: &Path,
    canonical: PathBuf,
    meta: &std::fs::Metadata,
    mut file: File,
    header: Vec<u8>,
    media_type: &str,
    label: &str,
) -> Result<ToolOutput, ToolError> {
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(ToolError::Unavailable(format!(
            "{} is a {label} image of {:.1} MB; images over {:.2} MB (5 MB once encoded) cannot be sent. Make a smaller copy with Bash (e.g. `convert in.png -resize 50% out.png`) and Read that.",
            path.display(),
            meta.len() as f64 / 1_048_576.0,
            MAX_IMAGE_BYTES as f64 / 1_048_576.0
        )));
    }
    let mut data = header;
    file.read_to_end(&mut data)
        .map_err(|e| io_error("read", path, &e))?;
    let mut hasher = ContentHasher::default();
    hasher.update(&data);
    state.record(canonical, Snapshot::of(meta, hasher.finish()));
    let encoded = base64::engine::general_purpose::STANDARD.encode(&data);
    let response = json!({"type": "image", "file": {
        "base64": encoded,
        "type": media_type,
        "originalSize": data.len(),
    }});
    Ok(ToolOutput {
        content: vec![
            ContentBlock::Image(ImageBlock::base64(media_type, encoded)),
            ContentBlock::text(format!(
                "{label} image {} ({} bytes).",
                path.display(),
                data.len()
            )),
        ],
        structured: None,
        response: Some(response),
    })
}

/// The media type of an image the API accepts, from its magic bytes.
fn image_type(header: &[u8]) -> Option<(&'static str, &'static str)> {
    if header.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(("image/png", "PNG"))
    } else if header.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(("image/jpeg", "JPEG"))
    } else if header.starts_with(b"GIF87a") || header.starts_with(b"GIF89a") {
        Some(("image/gif", "GIF"))
    } else if header.len() >= 12 && &header[..4] == b"RIFF" && &header[8..12] == b"WEBP" {
        Some(("image/webp", "WebP"))
    } else {
        None
    }
}

/// A name for common binary formats, for the refusal message.
fn binary_kind(header: &[u8]) -> &'static str {
    const KINDS: &[(&[u8], &str)] = &[
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x7fELF", "an ELF executable"),
        (b"\x1f\x8b", "gzip-compressed data"),
        (b"\xfd7zXZ", "xz-compressed data"),
        (b"BZh", "bzip2-compressed data"),
        (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
        (b"SQLite format 3", "an SQLite database"),
        (b"\0asm", "WebAssembly"),
    ];
    KINDS
        .iter()
        .find(|(magic, _)| header.starts_with(magic))
        .map_or("contains NUL bytes", |(_, kind)| kind)
}

fn decode_utf16(raw: &[u8], little_endian: bool) -> String {
    let units = raw.chunks_exact(2).skip(1).map(|pair| {
        if little_endian {
            u16::from_le_bytes([pair[0], pair[1]])
        } else {
            u16::from_be_bytes([pair[0], pair[1]])
        }
    });
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// Bytes of one line kept for display: enough for MAX_LINE_CHARS characters
/// of up to 4 bytes, plus one more character to know the line was cut.
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4 + 4;

/// Turns a stream of bytes into `cat -n` lines for the window
/// `[first, first + limit)`, counting all lines of the file.
struct Numberer {
    first: u64,
    last: u64,
    /// The number of the line being fed (1-based).
    line_no: u64,
    /// Whether the stream so far ends inside a line (its last byte is not `\n`).
    in_line: bool,
    /// Bytes of the current line, up to MAX_LINE_BYTES.
    cur: Vec<u8>,
    /// Characters of the current line past what `cur` keeps.
    overflow_chars: usize,
    out: String,
    shown: u64,
    budget_hit: bool,
    invalid_utf8: bool,
    cut_lines: usize,
    /// The lines shown, without numbers (Claude Code's `file.content`).
    plain: String,
}

struct Numbered {
    out: String,
    plain: String,
    shown: u64,
    total: u64,
    budget_hit: bool,
    invalid_utf8: bool,
    cut_lines: usize,
}

impl Numberer {
    fn new(first: u64, limit: u64) -> Self {
        Self {
            first,
            last: first.saturating_add(limit.saturating_sub(1)),
            line_no: 1,
            in_line: false,
            cur: Vec::new(),
            overflow_chars: 0,
            out: String::new(),
            shown: 0,
            budget_hit: false,
            invalid_utf8: false,
            cut_lines: 0,
            plain: String::new(),
        }
    }

    fn collecting(&self) -> bool {
        !self.budget_hit && self.line_no >= self.first && self.line_no <= self.last
    }

    fn feed(&mut self, mut data: &[u8]) {
        let Some(&last) = data.last() else {
            return;
        };
        self.in_line = last != b'\n';
        while !data.is_empty() {
            if self.collecting() {
                match memchr::memchr(b'\n', data) {
                    Some(i) => {
                        self.push(&data[..i]);
                        self.end_line();
                        data = &data[i + 1..];
                    }
                    None => {
                        self.push(data);
                        return;
                    }
                }
            } else if self.line_no < self.first {
                match memchr::memchr(b'\n', data) {
                    Some(i) => {
                        self.line_no += 1;
                        data = &data[i + 1..];
                    }
                    None => return,
                }
            } else {
                self.line_no += memchr::memchr_iter(b'\n', data).count() as u64;
                return;
            }
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = MAX_LINE_BYTES - self.cur.len();
        if bytes.len() <= room {
            self.cur.extend_from_slice(bytes);
        } else {
            self.cur.extend_from_slice(&bytes[..room]);
            self.overflow_chars += count_chars(&bytes[room..]);
        }
    }

    fn end_line(&mut self) {
        let overflowed = self.overflow_chars > 0;
        // `cur` is borrowed, not taken: its buffer serves every line.
        let bytes = &self.cur;
        let mut text: Cow<'_, str> = match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            // A character split by the MAX_LINE_BYTES cut lies past the
            // characters shown: it is not an encoding error.
            Err(e) if overflowed && e.error_len().is_none() => {
                Cow::Owned(String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned())
            }
            Err(_) => {
                self.invalid_utf8 = true;
                String::from_utf8_lossy(bytes)
            }
        };
        if !overflowed && text.ends_with('\r') {
            text = match text {
                Cow::Borrowed(s) => Cow::Borrowed(&s[..s.len() - 1]),
                Cow::Owned(mut s) => {
                    s.pop();
                    Cow::Owned(s)
                }
            };
        }
        if self.line_no == 1
            && let Some(rest) = text.strip_prefix('\u{FEFF}')
        {
            text = Cow::Owned(rest.to_owned());
        }
        // A line of at most MAX_LINE_CHARS bytes has at most as many
        // characters: only a longer one is counted.
        let total_chars = if !overflowed && text.len() <= MAX_LINE_CHARS {
            0
        } else {
            text.chars().count() + self.overflow_chars
        };
        self.overflow_chars = 0;
        let shown: Cow<'_, str> = if total_chars > MAX_LINE_CHARS {
            self.cut_lines += 1;
            let cut: String = text.chars().take(MAX_LINE_CHARS).collect();
            Cow::Owned(format!("{cut}… [line cut: {total_chars} characters]"))
        } else {
            text
        };
        // `cat -n`: the number right-aligned in six columns, a tab, the line.
        let before = self.out.len();
        push_line_number(&mut self.out, self.line_no);
        if self.shown > 0 && self.out.len() + shown.len() + 1 > MAX_OUTPUT_BYTES {
            self.out.truncate(before);
            self.budget_hit = true;
        } else {
            self.out.push_str(&shown);
            self.out.push('\n');
            if self.shown > 0 {
                self.plain.push('\n');
            }
            self.plain.push_str(&shown);
            self.shown += 1;
        }
        self.line_no += 1;
        self.cur.clear();
    }

    fn finish(mut self) -> Numbered {
        // A last line without a final newline still counts.
        if self.in_line && self.collecting() {
            self.end_line();
        } else if self.in_line {
            self.line_no += 1;
        }
        if self.out.ends_with('\n') {
            self.out.pop();
        }
        Numbered {
            out: self.out,
            plain: self.plain,
            shown: self.shown,
            total: self.line_no - 1,
            budget_hit: self.budget_hit,
            invalid_utf8: self.invalid_utf8,
            cut_lines: self.cut_lines,
        }
    }
}

/// `cat -n`'s number: right-aligned in six columns, then a tab (through
/// `itoa`, not `fmt`: it runs once for every line shown).
fn push_line_number(out: &mut String, n: u64) {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(n);
    out.extend(std::iter::repeat_n(
        ' ',
        6usize.saturating_sub(digits.len()),
    ));
    out.push_str(digits);
    out.push('\t');
}

/// Characters in a UTF-8 byte slice (bytes that do not continue a character).
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(input: &[u8], first: u64, limit: u64, chunk: usize) -> Numbered {
        let mut n = Numberer::new(first, limit);
        for piece in input.chunks(chunk) {
            n.feed(piece);
        }
        n.finish()
    }

    #[test]
    fn line_numbers_are_right_aligned_in_six_columns() {
        for (n, text) in [
            (1, "     1\t"),
            (42, "    42\t"),
            (999_999, "999999\t"),
            (1_234_567, "1234567\t"),
            (u64::MAX, "18446744073709551615\t"),
        ] {
            let mut out = String::new();
            push_line_number(&mut out, n);
            assert_eq!(out, text);
            assert_eq!(out, format!("{n:>6}\t"));
        }
    }

    #[test]
    fn counts_lines_with_and_without_final_newline_in_any_chunking() {
        for chunk in [1, 2, 3, 7, 100] {
            let a = number(b"a\nb\nc\n", 1, 10, chunk);
            assert_eq!((a.total, a.shown), (3, 3), "chunk {chunk}");
            assert_eq!(a.out, "     1\ta\n     2\tb\n     3\tc");
            let b = number(b"a\nb\nc", 1, 10, chunk);
            assert_eq!((b.total, b.shown), (3, 3), "chunk {chunk}");
            let c = number(b"a\nb\nc", 2, 1, chunk);
            assert_eq!((c.total, c.shown, c.out.as_str()), (3, 1, "     2\tb"));
            let d = number(b"a\nb\nc\nd", 4, 5, chunk);
            assert_eq!((d.total, d.out.as_str()), (4, "     4\td"));
        }
    }

    #[test]
    fn counts_characters_past_the_cut() {
        let line = "é".repeat(MAX_LINE_CHARS + 10);
        let n = number(line.as_bytes(), 1, 10, 4096);
        assert_eq!(n.cut_lines, 1);
        assert!(!n.invalid_utf8);
        assert!(
            n.out
                .ends_with(&format!("[line cut: {} characters]", MAX_LINE_CHARS + 10))
        );
    }
}
