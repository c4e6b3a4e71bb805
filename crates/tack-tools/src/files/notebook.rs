//! Jupyter notebooks (`.ipynb`): Read shows the cells with their outputs, and
//! NotebookEdit ([`super::notebook_edit`]) replaces, inserts or deletes one.
//!
//! A notebook is JSON (nbformat 4). Read renders each cell as a tagged block
//! with its id, type and source, followed by its outputs: stream text, results
//! as text, errors with their traceback (ANSI colours stripped), and images as
//! image blocks while they fit this call's image allowance. `offset` and
//! `limit` of Read count cells here, so a notebook too big for one call is
//! read on from the cell the note names.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Map, Value};
use tack_protocol::{ContentBlock, ImageBlock};
use tack_tool::{ToolError, ToolOutput};

use super::paths::{io_error, plural};
use super::read::{MAX_IMAGE_BYTES, MAX_OUTPUT_BYTES};
use super::state::{FileState, Snapshot, hash_bytes};

/// Characters of one output shown; a longer output is replaced by a note.
pub const MAX_OUTPUT_CHARS: usize = 10_000;
/// Images returned by one Read of a notebook.
pub const MAX_IMAGES: usize = 8;

/// Whether `path` names a notebook (by its extension, as Jupyter does).
pub(crate) fn is_notebook(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}

/// A parsed notebook: the JSON object and its cells.
pub(crate) struct Notebook {
    pub(crate) root: Map<String, Value>,
}

impl Notebook {
    /// Parses `raw` (the bytes of `path`), refusing what is not an nbformat 4
    /// notebook with a message saying what is wrong.
    pub(crate) fn parse(path: &Path, raw: &[u8]) -> Result<Self, ToolError> {
        let value: Value = serde_json::from_slice(raw).map_err(|e| {
            ToolError::Unavailable(format!(
                "{} is not a valid notebook: its JSON does not parse ({e}). Look at the raw file with Bash (e.g. `head -c 2000 {}`), or fix it with Write.",
                path.display(),
                path.display()
            ))
        })?;
        let Value::Object(root) = value else {
            return Err(malformed(path, "the top level is not a JSON object"));
        };
        let major = root.get("nbformat").and_then(Value::as_u64);
        if major.is_some_and(|m| m < 4) {
            return Err(ToolError::Unavailable(format!(
                "{} is an nbformat {} notebook; only nbformat 4 is supported. Convert it with Bash: `jupyter nbconvert --to notebook --nbformat 4 --output {} {}`.",
                path.display(),
                major.unwrap_or(0),
                path.display(),
                path.display()
            )));
        }
        match root.get("cells") {
            Some(Value::Array(cells)) => {
                for (i, cell) in cells.iter().enumerate() {
                    if !cell.is_object() {
                        return Err(malformed(path, &format!("cell {i} is not a JSON object")));
                    }
                }
            }
            Some(_) => return Err(malformed(path, "\"cells\" is not a list")),
            None => return Err(malformed(path, "it has no \"cells\" list")),
        }
        Ok(Self { root })
    }

    pub(crate) fn cells(&self) -> &[Value] {
        match self.root.get("cells") {
            Some(Value::Array(cells)) => cells,
            _ => &[],
        }
    }

    pub(crate) fn cells_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self.root.get_mut("cells") {
            Some(Value::Array(cells)) => Some(cells),
            _ => None,
        }
    }

    /// The notebook's language (from its metadata), e.g. "python".
    pub(crate) fn language(&self) -> String {
        let meta = self.root.get("metadata");
        meta.and_then(|m| m.pointer("/language_info/name"))
            .or_else(|| meta.and_then(|m| m.pointer("/kernelspec/language")))
            .and_then(Value::as_str)
            .unwrap_or("python")
            .to_owned()
    }

    /// Whether cells of this notebook carry ids (nbformat 4.5 and later).
    pub(crate) fn has_cell_ids(&self) -> bool {
        let major = self.root.get("nbformat").and_then(Value::as_u64);
        let minor = self.root.get("nbformat_minor").and_then(Value::as_u64);
        major.is_some_and(|m| m > 4)
            || minor.is_some_and(|m| m >= 5)
            || self.cells().iter().any(|c| c.get("id").is_some())
    }
}

fn malformed(path: &Path, what: &str) -> ToolError {
    ToolError::Unavailable(format!(
        "{} is not a valid notebook: {what}. Look at the raw file with Bash (e.g. `head -c 2000 {}`).",
        path.display(),
        path.display()
    ))
}

/// Text in nbformat's "multiline string" form: a string, or a list of strings
/// to join.
pub(crate) fn multiline(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// The id Read shows for the cell at `index`: its own, or `cell-N` (which
/// NotebookEdit also accepts) when the notebook predates cell ids.
pub(crate) fn cell_label(cell: &Value, index: usize) -> String {
    cell.get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("cell-{index}"), str::to_owned)
}

/// Reads the notebook at `path` for Read: cells `[offset, offset + limit)`
/// (1-based), bounded by [`MAX_OUTPUT_BYTES`] of text and the image allowance.
pub(crate) fn read_notebook(
    state: &FileState,
    path: &Path,
    canonical: PathBuf,
    meta: &std::fs::Metadata,
    opened: super::read::OpenFile,
    offset: u64,
    limit: u64,
) -> Result<ToolOutput, ToolError> {
    let raw = opened.read_all().map_err(|e| io_error("read", path, &e))?;
    let notebook = Notebook::parse(path, &raw)?;
    let cells = notebook.cells();
    let total = cells.len();
    if total == 0 {
        state.record(canonical, Snapshot::of(meta, hash_bytes(&raw)));
        return Ok(ToolOutput::text(format!(
            "The notebook {} has no cells. Add one with NotebookEdit (edit_mode \"insert\").",
            path.display()
        )));
    }
    let first = usize::try_from(offset.saturating_sub(1)).unwrap_or(usize::MAX);
    if first >= total {
        return Err(ToolError::InvalidInput(format!(
            "offset {offset} is past the last cell of {}, which has {}. For a notebook, offset and limit count cells: call Read with a smaller offset.",
            path.display(),
            plural(total, "cell")
        )));
    }
    let want = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut render = Renderer::new(path);
    let mut shown = 0;
    for (index, cell) in cells.iter().enumerate().skip(first).take(want) {
        let (images, image_bytes) = (render.images.len(), render.image_bytes);
        let block = render.cell(cell, index);
        if shown > 0 && render.text.len() + block.len() > MAX_OUTPUT_BYTES {
            // The images of a cell not shown are not sent either.
            render.images.truncate(images);
            render.image_bytes = image_bytes;
            render.budget_hit = true;
            break;
        }
        render.text.push_str(&block);
        shown += 1;
    }
    state.record(canonical, Snapshot::of(meta, hash_bytes(&raw)));

    let last = first + shown;
    let mut header = format!(
        "Notebook {} ({}, language {}).",
        path.display(),
        plural(total, "cell"),
        notebook.language()
    );
    if shown < total {
        let _ = write!(header, " Showing cells {first}-{} (0-based).", last - 1);
    }
    header.push('\n');
    let mut text = header + render.text.trim_end_matches('\n');
    if last < total {
        let why = if render.budget_hit {
            format!(
                " (output is limited to {} KB per call)",
                MAX_OUTPUT_BYTES / 1024
            )
        } else {
            String::new()
        };
        let _ = write!(
            text,
            "\n(The notebook has {total} cells; this shows cells {first}-{}{why}. To read on, call Read with offset={} — for a notebook, offset and limit count cells, offset 1 being cell 0.)",
            last - 1,
            last + 1
        );
    }
    // Claude Code's `notebook` output: the cells shown, as the file has them.
    let response = serde_json::json!({
        "type": "notebook",
        "file": {
            "filePath": path.display().to_string(),
            "cells": &cells[first..last],
        },
    });
    let mut output = ToolOutput::text(text).with_response(response);
    output.content.extend(render.images);
    Ok(output)
}

/// Renders cells as text, collecting image outputs that fit the allowance.
struct Renderer<'a> {
    path: &'a Path,
    text: String,
    images: Vec<ContentBlock>,
    image_bytes: usize,
    budget_hit: bool,
}

impl<'a> Renderer<'a> {
    fn new(path: &'a Path) -> Self {
        Self {
            path,
            text: String::new(),
            images: Vec::new(),
            image_bytes: 0,
            budget_hit: false,
        }
    }

    fn cell(&mut self, cell: &Value, index: usize) -> String {
        let id = cell_label(cell, index);
        let kind = cell
            .get("cell_type")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let mut out = format!("<cell index=\"{index}\" id=\"{id}\" type=\"{kind}\"");
        if let Some(n) = cell.get("execution_count").and_then(Value::as_u64) {
            let _ = write!(out, " execution_count=\"{n}\"");
        }
        out.push_str(">\n");
        let source = multiline(cell.get("source"));
        out.push_str(&source);
        if !source.is_empty() && !source.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("</cell>\n");
        if let Some(Value::Array(outputs)) = cell.get("outputs") {
            for (n, output) in outputs.iter().enumerate() {
                self.output(&mut out, output, index, n);
            }
        }
        out
    }

    fn output(&mut self, out: &mut String, output: &Value, cell: usize, n: usize) {
        let kind = output
            .get("output_type")
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let (open, body) = match kind {
            "stream" => {
                let name = output
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("stdout");
                (
                    format!("<output type=\"stream\" name=\"{name}\">"),
                    strip_ansi(&multiline(output.get("text"))),
                )
            }
            "error" => {
                let ename = output.get("ename").and_then(Value::as_str).unwrap_or("");
                let evalue = output.get("evalue").and_then(Value::as_str).unwrap_or("");
                let traceback: Vec<&str> = output
                    .get("traceback")
                    .and_then(Value::as_array)
                    .map(|t| t.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let body = if traceback.is_empty() {
                    format!("{ename}: {evalue}")
                } else {
                    traceback.join("\n")
                };
                (
                    format!("<output type=\"error\" ename=\"{ename}\">"),
                    strip_ansi(&body),
                )
            }
            "execute_result" | "display_data" => {
                let data = output.get("data").and_then(Value::as_object);
                let body = self.data(data, cell, n);
                (format!("<output type=\"{kind}\">"), body)
            }
            other => (format!("<output type=\"{other}\">"), String::new()),
        };
        out.push_str(&open);
        out.push('\n');
        let chars = body.chars().count();
        if chars > MAX_OUTPUT_CHARS {
            let _ = writeln!(
                out,
                "(This output has {chars} characters, too many to show. See it with Bash: `jq -r '.cells[{cell}].outputs[{n}]' {}`.)",
                self.path.display()
            );
        } else {
            out.push_str(&body);
            if !body.is_empty() && !body.ends_with('\n') {
                out.push('\n');
            }
        }
        out.push_str("</output>\n");
    }

    /// The text of a rich output: an image (added as an image block, or a
    /// note when over the allowance), Markdown, plain text, or a note naming
    /// the types that cannot be shown.
    fn data(&mut self, data: Option<&Map<String, Value>>, cell: usize, n: usize) -> String {
        let Some(data) = data else {
            return String::new();
        };
        let mut parts = Vec::new();
        for media in ["image/png", "image/jpeg", "image/gif", "image/webp"] {
            if let Some(encoded) = data.get(media) {
                parts.push(self.image(media, &multiline(Some(encoded)), cell, n));
                break;
            }
        }
        let text = ["text/markdown", "text/plain", "text/latex"]
            .iter()
            .find_map(|m| data.get(*m).map(|v| multiline(Some(v))));
        match text {
            Some(t) => parts.push(strip_ansi(&t)),
            None if parts.is_empty() => {
                let kinds: Vec<&str> = data.keys().map(String::as_str).collect();
                parts.push(format!(
                    "({} output not shown as text.)",
                    if kinds.is_empty() {
                        "empty".to_owned()
                    } else {
                        kinds.join(", ")
                    }
                ));
            }
            None => {}
        }
        parts.join("\n")
    }

    fn image(&mut self, media: &str, encoded: &str, cell: usize, n: usize) -> String {
        let compact: String = encoded.chars().filter(|c| !c.is_whitespace()).collect();
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(&compact) else {
            return format!("({media} output with invalid base64 data, not shown.)");
        };
        let size = bytes.len();
        if self.images.len() >= MAX_IMAGES || self.image_bytes + size > MAX_IMAGE_BYTES as usize {
            return format!(
                "({media} image of {}, not shown: this call's image allowance is used up. Read this cell alone with offset={} limit=1 to see it, or save it with Bash: `jq -r '.cells[{cell}].outputs[{n}].data[\"{media}\"]' {} | base64 -d > out`.)",
                plural(size, "byte"),
                cell + 1,
                self.path.display()
            );
        }
        self.image_bytes += size;
        self.images
            .push(ContentBlock::Image(ImageBlock::base64(media, compact)));
        format!(
            "({media} image of {}: image {} after the text.)",
            plural(size, "byte"),
            self.images.len()
        )
    }
}

/// `text` without terminal escape sequences (colours in tracebacks).
fn strip_ansi(text: &str) -> String {
    if !text.contains('\u{1b}') {
        return text.to_owned();
    }
    String::from_utf8_lossy(&strip_ansi_escapes::strip(text)).into_owned()
}

/// The indent of a JSON text written pretty (the leading whitespace of its
/// second line), or `None` when it is on one line.
pub(crate) fn detect_indent(raw: &[u8]) -> Option<Vec<u8>> {
    let start = memchr::memchr(b'\n', raw)? + 1;
    let rest = &raw[start..];
    let width = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    Some(rest[..width].to_vec())
}

/// The notebook serialised the way the file was: the same indent (nbformat
/// writes one space), key order as read, and a final newline if it had one.
pub(crate) fn serialize_like(root: &Map<String, Value>, original: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(original.len() + 256);
    let written = match detect_indent(original) {
        Some(indent) => {
            let formatter = serde_json::ser::PrettyFormatter::with_indent(&indent);
            let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(root, &mut ser)
        }
        None => serde_json::to_writer(&mut out, root),
    };
    // Serialising a JSON value into memory cannot fail.
    debug_assert!(written.is_ok());
    if original.ends_with(b"\n") {
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colours_from_tracebacks() {
        let t = "\u{1b}[0;31mValueError\u{1b}[0m: bad";
        assert_eq!(strip_ansi(t), "ValueError: bad");
    }

    #[test]
    fn multiline_joins_lists_and_takes_strings() {
        let v = serde_json::json!(["a\n", "b"]);
        assert_eq!(multiline(Some(&v)), "a\nb");
        assert_eq!(multiline(Some(&Value::String("x".into()))), "x");
        assert_eq!(multiline(None), "");
    }

    #[test]
    fn indent_is_taken_from_the_second_line() {
        assert_eq!(detect_indent(b"{\n \"a\": 1\n}\n"), Some(b" ".to_vec()));
        assert_eq!(detect_indent(b"{\n    \"a\": 1\n}"), Some(b"    ".to_vec()));
        assert_eq!(detect_indent(b"{\"a\": 1}"), None);
    }
}
