//! Edit: exact string replacement in a file.
//!
//! The edit works on bytes, so a file that is not valid UTF-8 is changed only
//! where old_string matched. In a CRLF file, old_string and new_string written
//! with LF line endings are matched and written with CRLF.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;

use async_trait::async_trait;
use memchr::memmem;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::patch::structured_patch;
use super::paths::{blocking, io_error, missing_path_error, plural, require_absolute};
use super::state::{FileState, Snapshot, hash_bytes};
use super::write::{Opened, check_regular, check_replaceable};

const DESCRIPTION: &str = "Replaces exact text in a file. old_string must match the file's current content exactly, \
including indentation and line breaks: copy it from Read's output without the line-number prefix. \
The file must have been Read in this session and not changed since. \
If old_string is not found, the error shows the closest lines; if it occurs more than once, the error lists where: \
include more surrounding lines to make it unique, or set replace_all to change every occurrence. \
CRLF line endings and file permissions are kept. Returns the edited lines with line numbers. \
To create a file or rewrite all of it, use Write.";

// Input of Edit. Field doc comments are the schema descriptions the model reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// Absolute path of the file to change, e.g. "/home/me/project/src/lib.rs".
    pub file_path: String,
    /// The exact text to replace, as in the file (without Read's line-number prefixes). Include enough surrounding text to match exactly once.
    pub old_string: String,
    /// The text to put in its place; must differ from old_string.
    pub new_string: String,
    /// Replace every occurrence of old_string, not just one (e.g. to rename a variable).
    #[serde(default)]
    pub replace_all: bool,
}

/// The Edit tool.
#[derive(Debug, Clone)]
pub struct EditTool {
    state: FileState,
}

impl EditTool {
    pub fn new(state: FileState) -> Self {
        Self { state }
    }
}

#[async_trait]
impl TypedTool for EditTool {
    type Input = EditInput;

    fn name(&self) -> &str {
        "Edit"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            destructive: true,
            ..Default::default()
        }
    }

    /// What models get wrong: an old_string too short to be unique (one
    /// more line of context, indentation as in the file), and a rename
    /// done one call per occurrence instead of with replace_all.
    fn input_examples(&self) -> Vec<Value> {
        vec![
            json!({"file_path": "/home/me/project/src/lib.rs", "old_string": "    let total = 0;\n    for item in items {", "new_string": "    let mut total = 0;\n    for item in items {"}),
            json!({"file_path": "/home/me/project/app/config.py", "old_string": "max_retries", "new_string": "retry_limit", "replace_all": true}),
        ]
    }

    fn validate(&self, input: &EditInput, ctx: &ToolContext) -> Result<(), ToolError> {
        require_absolute("file_path", &input.file_path, &ctx.cwd)?;
        if input.old_string == input.new_string {
            return Err(ToolError::InvalidInput(
                "old_string and new_string are the same, so nothing would change. Give the new text in new_string.".into(),
            ));
        }
        Ok(())
    }

    async fn call(&self, input: EditInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        self.validate(&input, &ctx)?;
        let path = require_absolute("file_path", &input.file_path, &ctx.cwd)?;
        let state = self.state.clone();
        let checked = ctx.checked_files;
        // Not cancellable: an edit is short and must not be left half-reported.
        blocking("Edit", None, move || {
            edit_file(&state, &path, &checked, &input)
        })
        .await
    }
}

fn edit_file(
    state: &FileState,
    path: &Path,
    checked: &[std::path::PathBuf],
    input: &EditInput,
) -> Result<ToolOutput, ToolError> {
    let mut opened = Opened::open(path, checked)?;
    let Some(mut file) = opened.file.take() else {
        if !input.old_string.is_empty() {
            let ToolError::Unavailable(msg) = missing_path_error(path, "File") else {
                return Err(missing_path_error(path, "File"));
            };
            return Err(ToolError::Unavailable(format!(
                "{msg} To create a new file, use Write (or Edit with an empty old_string)."
            )));
        }
        let content = input.new_string.as_bytes();
        let meta = opened.replace(path, content, None)?;
        state.record(opened.target, Snapshot::of(&meta, hash_bytes(content)));
        return Ok(ToolOutput::text(format!(
            "Created {} with new_string as its content ({}).",
            path.display(),
            plural(content.len(), "byte")
        ))
        .with_response(response(path, input, b"", content)));
    };

    let meta = file.metadata().map_err(|e| io_error("edit", path, &e))?;
    check_regular(path, &meta)?;
    let mut content = Vec::new();
    file.read_to_end(&mut content)
        .map_err(|e| io_error("read", path, &e))?;
    drop(file);
    let target = opened.target.clone();
    check_replaceable(state, path, &target, &meta, Some(&content))?;
    if content.starts_with(&[0xFF, 0xFE]) || content.starts_with(&[0xFE, 0xFF]) {
        return Err(ToolError::Unavailable(format!(
            "{} is UTF-16 text; Edit changes UTF-8 files only. Rewrite it with Write (which saves UTF-8) or convert it with Bash iconv.",
            path.display()
        )));
    }

    if input.old_string.is_empty() {
        if !content.is_empty() {
            return Err(ToolError::InvalidInput(format!(
                "old_string is empty, but {} is not empty. Give the exact text to replace, or use Write to replace the whole file.",
                path.display()
            )));
        }
        let new = input.new_string.as_bytes();
        let meta = opened.replace(path, new, Some(&meta))?;
        state.record(target, Snapshot::of(&meta, hash_bytes(new)));
        return Ok(ToolOutput::text(format!(
            "Wrote new_string into the empty file {} ({}).",
            path.display(),
            plural(new.len(), "byte")
        ))
        .with_response(response(path, input, b"", new)));
    }

    let Some((old, new, matches)) = find_matches(&content, &input.old_string, &input.new_string)
    else {
        return Err(ToolError::InvalidInput(not_found_message(
            path,
            &content,
            &input.old_string,
        )));
    };
    if matches.len() > 1 && !input.replace_all {
        let lines = line_numbers(&content, &matches);
        return Err(ToolError::InvalidInput(format!(
            "old_string occurs {} times in {} (at lines {}). Include more surrounding lines in old_string so it matches exactly once, or set replace_all to true to replace every occurrence.",
            matches.len(),
            path.display(),
            list_numbers(&lines, 20)
        )));
    }

    let mut edited =
        Vec::with_capacity(content.len() + matches.len() * new.len().saturating_sub(old.len()));
    let mut from = 0;
    for &at in &matches {
        edited.extend_from_slice(&content[from..at]);
        edited.extend_from_slice(&new);
        from = at + old.len();
    }
    edited.extend_from_slice(&content[from..]);

    let written = opened.replace(path, &edited, Some(&meta))?;
    state.record(target, Snapshot::of(&written, hash_bytes(&edited)));

    let first = matches[0];
    let snippet = snippet(&edited, first, first + new.len());
    let summary = if matches.len() == 1 {
        format!("Edited {}.", path.display())
    } else {
        let lines = line_numbers(&content, &matches);
        format!(
            "Replaced {} occurrences in {} (lines {} before the edit).",
            matches.len(),
            path.display(),
            list_numbers(&lines, 20)
        )
    };
    Ok(ToolOutput::text(format!(
        "{summary} The {} now reads:\n{}",
        if matches.len() == 1 {
            "edited part"
        } else {
            "first edited part"
        },
        snippet.text
    ))
    .with_response(response(path, input, &content, &edited)))
}

/// Edit's output in Claude Code's shape (`FileEditOutput`).
fn response(path: &Path, input: &EditInput, before: &[u8], after: &[u8]) -> Value {
    let original = String::from_utf8_lossy(before);
    json!({
        "filePath": path.display().to_string(),
        "oldString": input.old_string,
        "newString": input.new_string,
        "originalFile": original,
        "structuredPatch": structured_patch(&original, &String::from_utf8_lossy(after)),
        "userModified": false,
        "replaceAll": input.replace_all,
    })
}

/// The strings to match and write, and the match offsets. In a file whose
/// lines end with CRLF, the LF forms are tried first as CRLF; then the strings
/// as given.
fn find_matches(content: &[u8], old: &str, new: &str) -> Option<(Vec<u8>, Vec<u8>, Vec<usize>)> {
    let mut tries: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(3);
    if uses_crlf(content) {
        tries.push((to_crlf(old), to_crlf(new)));
    }
    tries.push((old.as_bytes().to_vec(), new.as_bytes().to_vec()));
    if old.contains("\r\n") {
        tries.push((
            old.replace("\r\n", "\n").into_bytes(),
            new.replace("\r\n", "\n").into_bytes(),
        ));
    }
    tries.into_iter().find_map(|(old, new)| {
        let matches: Vec<usize> = memmem::find_iter(content, &old).collect();
        (!matches.is_empty()).then_some((old, new, matches))
    })
}

/// Whether the file's first line ends with CRLF.
fn uses_crlf(content: &[u8]) -> bool {
    memchr::memchr(b'\n', content).is_some_and(|i| i > 0 && content[i - 1] == b'\r')
}

fn to_crlf(s: &str) -> Vec<u8> {
    s.replace("\r\n", "\n").replace('\n', "\r\n").into_bytes()
}

/// The 1-based line number of each (sorted) byte offset.
fn line_numbers(content: &[u8], offsets: &[usize]) -> Vec<usize> {
    let mut line = 1;
    let mut from = 0;
    offsets
        .iter()
        .map(|&at| {
            line += memchr::memchr_iter(b'\n', &content[from..at]).count();
            from = at;
            line
        })
        .collect()
}

fn list_numbers(numbers: &[usize], max: usize) -> String {
    let shown: Vec<String> = numbers.iter().take(max).map(ToString::to_string).collect();
    let mut out = shown.join(", ");
    if numbers.len() > max {
        let _ = write!(out, " and {} more", numbers.len() - max);
    }
    out
}

/// Context lines shown around an edit, and the most lines a snippet shows.
const SNIPPET_CONTEXT: usize = 3;
const SNIPPET_MAX_LINES: usize = 40;
const SNIPPET_MAX_CHARS: usize = 500;

struct Snippet {
    text: String,
}

/// Numbered lines of `content` around the byte range `[start, end)`:
/// SNIPPET_CONTEXT lines before and after, at most SNIPPET_MAX_LINES.
fn snippet(content: &[u8], start: usize, end: usize) -> Snippet {
    let begin = memchr::memrchr_iter(b'\n', &content[..start])
        .nth(SNIPPET_CONTEXT)
        .map_or(0, |i| i + 1);
    let from_line = 1 + memchr::memchr_iter(b'\n', &content[..begin]).count();
    // An edit ending with a newline ends on the line of that newline.
    let last = if end > start && content[end - 1] == b'\n' {
        end - 1
    } else {
        end
    };
    let finish = memchr::memchr_iter(b'\n', &content[last..])
        .nth(SNIPPET_CONTEXT)
        .map_or(content.len(), |i| last + i);
    let mut region = &content[begin..finish];
    if let Some(rest) = region.strip_suffix(b"\n") {
        region = rest;
    }
    let region = String::from_utf8_lossy(region);
    let lines: Vec<&str> = region.split('\n').collect();
    let mut text = String::new();
    for (i, line) in lines.iter().take(SNIPPET_MAX_LINES).enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let _ = writeln!(
            text,
            "{:>6}\t{}",
            from_line + i,
            cut_chars(line, SNIPPET_MAX_CHARS)
        );
    }
    if lines.len() > SNIPPET_MAX_LINES {
        let _ = writeln!(
            text,
            "(… {} more lines; Read the file to see them.)",
            lines.len() - SNIPPET_MAX_LINES
        );
    }
    text.pop();
    Snippet { text }
}

fn cut_chars(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    }
}

/// The error text when old_string is not in the file: the closest regions,
/// numbered, and hints for the usual causes.
fn not_found_message(path: &Path, content: &[u8], old: &str) -> String {
    let mut msg = format!("old_string was not found in {}.", path.display());
    if looks_line_numbered(old) {
        msg.push_str(" It seems to contain Read's line-number prefixes (like \"    12\\t\"); remove them and keep only the file's text.");
    }
    let text = String::from_utf8_lossy(content);
    let candidates = closest_regions(&text, old, 3);
    if candidates.is_empty() {
        msg.push_str(" No similar lines were found either: Read the file to see its current content, then call again.");
        return msg;
    }
    msg.push_str(if candidates.len() == 1 {
        " The most similar part of the file:"
    } else {
        " The most similar parts of the file:"
    });
    for c in &candidates {
        let how = if c.whitespace_only {
            "differs only in whitespace".to_owned()
        } else {
            format!("{:.0}% similar", c.score * 100.0)
        };
        let _ = write!(
            msg,
            "\nlines {}-{} ({how}):\n{}",
            c.first_line,
            c.first_line + c.lines.len() - 1,
            c.text()
        );
    }
    msg.push_str("\nCopy the text exactly as it is in the file (without the line-number prefix) and call Edit again, or Read the file to see its current content.");
    msg
}

fn looks_line_numbered(old: &str) -> bool {
    let mut lines = old.lines().filter(|l| !l.trim().is_empty()).peekable();
    lines.peek().is_some()
        && lines.all(|l| {
            let t = l.trim_start();
            let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            digits > 0 && (t[digits..].starts_with('\t') || t[digits..].starts_with('→'))
        })
}

/// A region of the file like old_string.
struct Candidate<'a> {
    first_line: usize,
    lines: Vec<&'a str>,
    score: f64,
    whitespace_only: bool,
}

/// Lines of a candidate shown in the error.
const CANDIDATE_MAX_LINES: usize = 12;

impl Candidate<'_> {
    fn text(&self) -> String {
        let mut out = String::new();
        for (i, line) in self.lines.iter().take(CANDIDATE_MAX_LINES).enumerate() {
            let _ = writeln!(out, "{:>6}\t{}", self.first_line + i, cut_chars(line, 200));
        }
        if self.lines.len() > CANDIDATE_MAX_LINES {
            let _ = writeln!(
                out,
                "(… {} more lines)",
                self.lines.len() - CANDIDATE_MAX_LINES
            );
        }
        out.pop();
        out
    }
}

/// Work budget for the fuzzy search, in (file line × old_string line) pairs.
const FUZZY_BUDGET: usize = 20_000_000;
/// Candidates scoring below this are not shown.
const MIN_SCORE: f64 = 0.5;

/// The regions of `text` most like `old`, best first: windows of as many
/// lines as `old`, scored line by line on character bigrams (whitespace
/// collapsed). Inner lines score by Dice similarity; the first and last lines
/// by how much of old_string's line they contain, since old_string often
/// starts or ends mid-line.
fn closest_regions<'a>(text: &'a str, old: &str, max: usize) -> Vec<Candidate<'a>> {
    let file_lines: Vec<&str> = text.lines().collect();
    let mut old_lines: Vec<&str> = old.lines().collect();
    while old_lines.len() > 1 && old_lines.last().is_some_and(|l| l.trim().is_empty()) {
        old_lines.pop();
    }
    let k = old_lines.len();
    if k == 0 || file_lines.len() < k {
        return Vec::new();
    }
    // Score with as many old lines as the budget allows.
    let scored = k.min((FUZZY_BUDGET / file_lines.len()).max(1));
    let old_norm: Vec<String> = old_lines[..scored].iter().map(|l| normalize(l)).collect();
    let old_grams: Vec<Vec<u64>> = old_norm.iter().map(|l| bigrams(l)).collect();
    let weights: Vec<f64> = old_grams.iter().map(|g| g.len().max(1) as f64).collect();
    let total_weight: f64 = weights.iter().sum();
    let windows = file_lines.len() - k + 1;
    let mut scores = vec![0.0f64; windows];
    let mut exact = vec![0usize; windows];
    for (l, line) in file_lines.iter().enumerate() {
        let norm = normalize(cut_chars(line, 1000).as_ref());
        let grams = bigrams(&norm);
        for j in 0..scored {
            let Some(w) = l.checked_sub(j).filter(|&w| w < windows) else {
                continue;
            };
            let is_edge = j == 0 || j + 1 == k;
            let s = if norm == old_norm[j] {
                exact[w] += 1;
                1.0
            } else if old_grams[j].is_empty() || grams.is_empty() {
                0.0
            } else {
                let common = intersection(&grams, &old_grams[j]) as f64;
                if is_edge {
                    common / old_grams[j].len() as f64
                } else {
                    2.0 * common / (grams.len() + old_grams[j].len()) as f64
                }
            };
            scores[w] += s * weights[j];
        }
    }
    let mut order: Vec<usize> = (0..windows)
        .filter(|&w| scores[w] / total_weight >= MIN_SCORE)
        .collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut picked: Vec<usize> = Vec::new();
    for w in order {
        if picked.len() == max {
            break;
        }
        if picked.iter().all(|&p| p.abs_diff(w) >= k) {
            picked.push(w);
        }
    }
    picked
        .into_iter()
        .map(|w| Candidate {
            first_line: w + 1,
            lines: file_lines[w..w + k].to_vec(),
            score: scores[w] / total_weight,
            whitespace_only: exact[w] == scored,
        })
        .collect()
}

/// A line with runs of whitespace collapsed to one space and the ends trimmed.
fn normalize(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sorted character bigrams of a line.
fn bigrams(line: &str) -> Vec<u64> {
    let chars: Vec<char> = line.chars().collect();
    let mut grams: Vec<u64> = chars
        .windows(2)
        .map(|w| (u64::from(w[0]) << 32) | u64::from(w[1]))
        .collect();
    grams.sort_unstable();
    grams
}

/// The size of the multiset intersection of two sorted lists.
fn intersection(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_shows_three_lines_around_the_edit() {
        let content: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let start = content.find("line 10").unwrap();
        let s = snippet(content.as_bytes(), start, start + "line 10".len());
        let first = s.text.lines().next().unwrap();
        let last = s.text.lines().last().unwrap();
        assert_eq!(first, "     7\tline 7");
        assert_eq!(last, "    13\tline 13");
        let s = snippet(content.as_bytes(), 0, 6);
        assert!(s.text.starts_with("     1\tline 1\n"), "{}", s.text);
        assert_eq!(s.text.lines().count(), 4);
    }

    #[test]
    fn closest_prefers_the_whitespace_variant() {
        let text = "fn a() {}\nfn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
        let found = closest_regions(text, "fn main() {\n  let x = 1;\n", 3);
        assert_eq!(found[0].first_line, 2);
        assert!(found[0].whitespace_only);
    }

    #[test]
    fn line_number_prefixes_are_recognised() {
        assert!(looks_line_numbered("    12\tfoo\n    13\tbar"));
        assert!(!looks_line_numbered("foo\n12 bar"));
    }
}
