//! Grep: regular-expression search over file contents, with ripgrep's crates
//! and ripgrep's defaults (gitignore respected, hidden and binary files
//! skipped, Rust regex syntax).
//!
//! Content mode prints ripgrep's `--heading` layout: each file's absolute
//! path once, then its lines as `12:text` (a match) or `13-text` (context),
//! with `--` between groups that are not adjacent. Files come in path order
//! (files_with_matches: most recently modified first), whatever order the
//! parallel walk found them in.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use async_trait::async_trait;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{ToolAnnotations, ToolContext, ToolError, ToolOutput, TypedTool};

use super::{WalkErrors, cancelled, search_root, walk_collect};
use crate::files::plural;

/// Output lines (content mode) or entries (other modes) when head_limit is not given.
pub const DEFAULT_HEAD_LIMIT: usize = 250;
/// Characters of one output line shown before it is cut.
pub const MAX_COLUMNS: usize = 500;
/// Bytes of content-mode lines kept in memory during the walk; files found
/// past this keep only their count and are searched again if shown.
const MAX_STORED_BYTES: usize = 64 * 1024 * 1024;

const DESCRIPTION: &str = "Searches file contents with a regular expression (ripgrep; Rust regex syntax, so escape literal braces and parentheses: fn new\\( finds \"fn new(\", interface\\{\\} finds \"interface{}\"). \
Searches path (a file or directory, default: the working directory), skipping .gitignore'd, hidden and binary files; narrow it with glob (e.g. \"*.ts\") or type (e.g. \"rust\", \"py\"). \
output_mode \"files_with_matches\" (default) lists matching files, most recently modified first; \"content\" shows matching lines under each file's path, as \"12:text\" with line numbers, context lines (-A/-B/-C) as \"13-text\" and \"--\" between groups; \"count\" gives matching lines per file. \
At most head_limit lines or entries are returned (default 250, 0 for all), with a note of how many were left out; offset skips that many first, to read on. \
Use this instead of grep or rg in Bash; use Glob to find files by name.";

/// What Grep returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum OutputMode {
    Content,
    #[default]
    FilesWithMatches,
    Count,
}

// Input of Grep. Field doc comments are the schema descriptions the model reads.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// Regular expression to search for, e.g. "log.*Error" or "fn\s+main".
    pub pattern: String,
    /// File or directory to search, absolute. Omit it to search the working directory.
    pub path: Option<String>,
    /// Only search files matching this glob (rg --glob), e.g. "*.js", "*.{ts,tsx}" or "src/**/*.rs"; "!" in front excludes. Several globs: separate them with spaces.
    pub glob: Option<String>,
    /// Only search files of this type (rg --type), e.g. "rust", "py", "js", "ts", "go", "java", "md".
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    /// "files_with_matches" (default): matching file paths; "content": matching lines; "count": matching lines per file.
    pub output_mode: Option<OutputMode>,
    /// Case-insensitive search (rg -i).
    #[serde(rename = "-i", default)]
    pub case_insensitive: bool,
    /// Show line numbers in content mode (rg -n). Default true.
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Lines of context to show after each match, content mode only (rg -A).
    #[serde(rename = "-A")]
    pub after_context: Option<u32>,
    /// Lines of context to show before each match, content mode only (rg -B).
    #[serde(rename = "-B")]
    pub before_context: Option<u32>,
    /// Lines of context before and after each match, content mode only (rg -C).
    #[serde(rename = "-C")]
    pub context: Option<u32>,
    /// Let the pattern span lines, with "." matching newlines too (rg -U --multiline-dotall), e.g. "struct Foo \{.*?\}".
    #[serde(default)]
    pub multiline: bool,
    /// Return at most this many output lines (content mode) or entries (other modes). Default 250; 0 means no limit.
    pub head_limit: Option<u32>,
    /// Skip this many output lines or entries first (with head_limit, to page through a long result). Default 0.
    pub offset: Option<u32>,
}

/// The Grep tool.
#[derive(Clone, Default)]
pub struct GrepTool {
    /// Files the permission rules forbid reading are skipped.
    pub filter: Option<super::ReadFilter>,
}

impl std::fmt::Debug for GrepTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrepTool")
            .field("filtered", &self.filter.is_some())
            .finish()
    }
}

#[async_trait]
impl TypedTool for GrepTool {
    fn output(&self) -> tack_tool::OutputBehaviour {
        tack_tool::OutputBehaviour::with_hint(
            " You can also narrow the search: a more specific pattern, path, glob or type, output_mode \"files_with_matches\", or head_limit.",
        )
    }
    type Input = GrepInput;

    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn is_concurrency_safe(&self, _input: &GrepInput) -> bool {
        true
    }

    /// What models get wrong: an unescaped `(`, a file filter as part of
    /// the pattern instead of `type`/`glob`, the flag-named keys (`-n`,
    /// `-C`) of content mode, and a pattern across lines without
    /// `multiline`.
    fn input_examples(&self) -> Vec<Value> {
        vec![
            json!({"pattern": "fn parse_\\w+\\(", "type": "rust", "output_mode": "content", "-n": true, "-C": 2}),
            json!({"pattern": "useEffect\\(", "glob": "src/**/*.{ts,tsx}"}),
            json!({"pattern": "struct Config \\{[^}]*timeout", "multiline": true, "output_mode": "content"}),
        ]
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn validate(&self, input: &GrepInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        Search::matcher(input).map(drop)
    }

    async fn call(&self, input: GrepInput, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let mut search = Search::new(&input, &ctx.cwd)?;
        search.filter = self.filter.clone();
        let cancel = ctx.cancel.clone();
        let task = tokio::task::spawn_blocking(move || search.run(&cancel));
        tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => Err(cancelled("Grep")),
            joined = task => joined.map_err(|e| ToolError::Internal(format!("Grep failed: {e}")))?,
        }
    }
}

/// A search, configured and checked, ready to run.
struct Search {
    pattern: String,
    root: PathBuf,
    matcher: RegexMatcher,
    searcher: SearcherBuilder,
    types: Types,
    overrides: Override,
    mode: OutputMode,
    line_numbers: bool,
    head_limit: usize,
    offset: usize,
    filter: Option<super::ReadFilter>,
}

/// One file with matches.
struct Hit {
    path: PathBuf,
    /// Modification time (files_with_matches mode).
    mtime: SystemTime,
    /// Matching lines (count mode) or output lines (content mode).
    count: usize,
    /// Content mode: the output lines, unless they did not fit in memory.
    lines: Option<Vec<OutLine>>,
}

/// One line of content-mode output.
struct OutLine {
    kind: LineKind,
    number: u64,
    text: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Match,
    Context,
    /// A `--` between groups that are not adjacent.
    Break,
}

impl Search {
    fn new(input: &GrepInput, cwd: &Path) -> Result<Self, ToolError> {
        let matcher = Self::matcher(input)?;
        let root = search_root(input.path.as_deref(), cwd)?;
        let mode = input.output_mode.unwrap_or_default();
        let content = mode == OutputMode::Content;
        let before = input.before_context.or(input.context).unwrap_or(0) as usize;
        let after = input.after_context.or(input.context).unwrap_or(0) as usize;
        let mut searcher = SearcherBuilder::new();
        searcher
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .multi_line(input.multiline)
            .line_number(content)
            .before_context(if content { before } else { 0 })
            .after_context(if content { after } else { 0 });
        Ok(Self {
            pattern: input.pattern.clone(),
            types: types(input.file_type.as_deref())?,
            overrides: overrides(&root, input.glob.as_deref())?,
            root,
            matcher,
            searcher,
            mode,
            line_numbers: input.line_numbers.unwrap_or(true),
            head_limit: match input.head_limit {
                None => DEFAULT_HEAD_LIMIT,
                Some(0) => usize::MAX,
                Some(n) => n as usize,
            },
            offset: input.offset.unwrap_or(0) as usize,
            filter: None,
        })
    }

    /// The matcher ripgrep would build: `^`/`$` match at line boundaries;
    /// without multiline, matches never span a line terminator.
    fn matcher(input: &GrepInput) -> Result<RegexMatcher, ToolError> {
        let mut builder = RegexMatcherBuilder::new();
        builder
            .multi_line(true)
            .case_insensitive(input.case_insensitive)
            .octal(false);
        if input.multiline {
            builder.dot_matches_new_line(true);
        } else {
            builder.line_terminator(Some(b'\n'));
        }
        builder.build(&input.pattern).map_err(|e| {
            let hint = if !input.multiline && e.to_string().contains("\\n") {
                "To match across lines set multiline to true."
            } else {
                "Grep uses Rust regex syntax: escape a literal ( ) [ ] { } . * + ? | ^ $ or \\ with a backslash."
            };
            ToolError::InvalidInput(format!(
                "invalid regular expression {:?}: {e}\n{hint}",
                input.pattern
            ))
        })
    }

    fn run(self, cancel: &tokio_util::sync::CancellationToken) -> Result<ToolOutput, ToolError> {
        let errors = WalkErrors::default();
        let stored = AtomicUsize::new(0);
        let withheld = AtomicUsize::new(0);
        let walk = WalkBuilder::new(&self.root)
            .add_custom_ignore_filename(".rgignore")
            .types(self.types.clone())
            .overrides(self.overrides.clone())
            .build_parallel();
        let mut hits: Vec<Hit> = walk_collect(walk, cancel, &errors, || {
            let mut searcher = self.searcher.build();
            let matcher = self.matcher.clone();
            let (mode, errors, stored) = (self.mode, &errors, &stored);
            let (filter, withheld) = (&self.filter, &withheld);
            move |entry: ignore::DirEntry, local: &mut Vec<Hit>| {
                if entry.file_type().is_some_and(|t| t.is_file())
                    && super::allowed(filter, "Grep", entry.path(), withheld)
                {
                    match search_file(&mut searcher, &matcher, mode, entry.path(), stored) {
                        Ok(Some(mut hit)) => {
                            if mode == OutputMode::FilesWithMatches {
                                hit.mtime = entry
                                    .metadata()
                                    .ok()
                                    .and_then(|m| m.modified().ok())
                                    .unwrap_or(SystemTime::UNIX_EPOCH);
                            }
                            local.push(hit);
                        }
                        Ok(None) => {}
                        Err(e) if crate::files::replaced_while_opening(&e) => errors.add(format_args!(
                            "{}: it changed while it was being opened (a directory in its path was replaced by a link), so it was not searched",
                            entry.path().display()
                        )),
                        Err(e) => errors.add(format_args!("{}: {e}", entry.path().display())),
                    }
                }
                WalkState::Continue
            }
        });
        if cancel.is_cancelled() {
            return Err(cancelled("Grep"));
        }
        let mut out = match self.mode {
            OutputMode::FilesWithMatches => {
                hits.sort_unstable_by(|a, b| {
                    b.mtime.cmp(&a.mtime).then_with(|| a.path.cmp(&b.path))
                });
                self.render_files(&hits)
            }
            OutputMode::Count => {
                hits.sort_unstable_by(|a, b| a.path.cmp(&b.path));
                self.render_counts(&hits)
            }
            OutputMode::Content => {
                hits.sort_unstable_by(|a, b| a.path.cmp(&b.path));
                self.render_content(&mut hits)
            }
        };
        for note in [errors.note(), super::withheld_note(withheld.into_inner())]
            .into_iter()
            .flatten()
        {
            if let Some(tack_protocol::ContentBlock::Text(t)) = out.content.first_mut() {
                t.text.push('\n');
                t.text.push_str(&note);
            }
        }
        Ok(out)
    }

    /// What part of `total` lines or entries this answer shows, and how to
    /// see the rest; `None` when it shows all of them.
    /// The output mode as Claude Code's Grep names it in its output.
    fn mode_key(&self) -> &'static str {
        match self.mode {
            OutputMode::Content => "content",
            OutputMode::FilesWithMatches => "files_with_matches",
            OutputMode::Count => "count",
        }
    }

    /// Adds the paging Claude Code's `GrepOutput` reports, when there was any.
    fn paged(&self, mut response: Value) -> Value {
        if self.head_limit != usize::MAX {
            response["appliedLimit"] = self.head_limit.into();
        }
        if self.offset > 0 {
            response["appliedOffset"] = self.offset.into();
        }
        response
    }

    fn page_note(&self, shown: usize, total: usize, unit: &str, from: &str) -> Option<String> {
        let offset = self.offset;
        if offset == 0 && shown == total {
            return None;
        }
        if shown == 0 {
            return Some(format!(
                "offset {offset} is past the end: there are {total} {unit}{from}. Use a smaller offset."
            ));
        }
        let after = total.saturating_sub(offset + shown);
        let mut note = if offset == 0 {
            format!("Showing {shown} of {total} {unit}{from}; {after} left out.")
        } else {
            format!(
                "Showing {unit} {}-{} of {total}{from} (offset {offset}); {after} after these.",
                offset + 1,
                offset + shown
            )
        };
        if after > 0 {
            note.push_str(&format!(
                " Narrow the search, raise head_limit (0 for all), or read on with offset {}.",
                offset + shown
            ));
        }
        Some(note)
    }

    fn no_match(&self) -> ToolOutput {
        ToolOutput::text(format!(
            "No matches for {:?} in {} (hidden, binary and .gitignore'd files are skipped).",
            self.pattern,
            self.root.display()
        ))
        .with_structured(json!({"files": [], "total": 0}))
        .with_response(json!({
            "mode": self.mode_key(),
            "numFiles": 0,
            "filenames": [],
        }))
    }

    fn render_files(&self, hits: &[Hit]) -> ToolOutput {
        if hits.is_empty() {
            return self.no_match();
        }
        let shown: Vec<String> = hits
            .iter()
            .skip(self.offset)
            .take(self.head_limit)
            .map(|h| h.path.display().to_string())
            .collect();
        let mut text = shown.join("\n");
        if let Some(note) = self.page_note(
            shown.len(),
            hits.len(),
            "matching files",
            ", most recently modified first",
        ) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("({note})"));
        }
        let response = self.paged(json!({
            "mode": "files_with_matches",
            "numFiles": shown.len(),
            "filenames": shown,
        }));
        ToolOutput::text(text)
            .with_structured(json!({"files": shown, "total": hits.len(), "offset": self.offset}))
            .with_response(response)
    }

    fn render_counts(&self, hits: &[Hit]) -> ToolOutput {
        if hits.is_empty() {
            return self.no_match();
        }
        let total: usize = hits.iter().map(|h| h.count).sum();
        let mut counts = serde_json::Map::new();
        let mut text = String::new();
        for hit in hits.iter().skip(self.offset).take(self.head_limit) {
            let path = hit.path.display().to_string();
            text.push_str(&format!("{path}:{}\n", hit.count));
            counts.insert(path, hit.count.into());
        }
        let shown_matches: usize = hits
            .iter()
            .skip(self.offset)
            .take(self.head_limit)
            .map(|h| h.count)
            .sum();
        let response = self.paged(json!({
            "mode": "count",
            "numFiles": counts.len(),
            "filenames": counts.keys().collect::<Vec<_>>(),
            "content": text.trim_end(),
            "numMatches": shown_matches,
        }));
        text.push_str(&format!(
            "({} in {}.",
            plural(total, "matching line"),
            plural(hits.len(), "file")
        ));
        if let Some(note) = self.page_note(counts.len(), hits.len(), "files", "") {
            text.push(' ');
            text.push_str(&note);
        }
        text.push(')');
        ToolOutput::text(text)
            .with_structured(json!({"counts": counts, "total": total}))
            .with_response(response)
    }

    fn render_content(&self, hits: &mut [Hit]) -> ToolOutput {
        if hits.is_empty() {
            return self.no_match();
        }
        let total: usize = hits.iter().map(|h| h.count).sum();
        let mut text = String::new();
        let mut shown = 0usize;
        let mut skipped = 0usize;
        let mut searcher = None;
        let mut files: Vec<String> = Vec::new();
        for hit in hits.iter_mut() {
            if shown >= self.head_limit {
                break;
            }
            // Files wholly before the offset are skipped by their count.
            if skipped + hit.count <= self.offset {
                skipped += hit.count;
                continue;
            }
            if hit.lines.is_none() {
                // Left out of memory during the walk: search it again now.
                let searcher = searcher.get_or_insert_with(|| self.searcher.build());
                let again = search_file(
                    searcher,
                    &self.matcher,
                    OutputMode::Content,
                    &hit.path,
                    &AtomicUsize::new(0),
                );
                hit.lines = again.ok().flatten().and_then(|h| h.lines);
            }
            let Some(lines) = &hit.lines else { continue };
            let mut started = false;
            for line in lines {
                if line.kind == LineKind::Break {
                    // a group break only between lines shown from this file
                    if !started {
                        continue;
                    }
                } else {
                    if skipped < self.offset {
                        skipped += 1;
                        continue;
                    }
                    if shown >= self.head_limit {
                        break;
                    }
                    shown += 1;
                }
                if !started {
                    started = true;
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    files.push(hit.path.display().to_string());
                    text.push_str(&hit.path.display().to_string());
                    text.push('\n');
                }
                match (line.kind, self.line_numbers) {
                    (LineKind::Break, _) => text.push_str("--"),
                    (LineKind::Match, true) => {
                        text.push_str(&format!("{}:{}", line.number, line.text))
                    }
                    (LineKind::Context, true) => {
                        text.push_str(&format!("{}-{}", line.number, line.text))
                    }
                    (_, false) => text.push_str(&line.text),
                }
                text.push('\n');
            }
        }
        if text.ends_with('\n') {
            text.pop();
        }
        let response = self.paged(json!({
            "mode": "content",
            "numFiles": files.len(),
            "filenames": files,
            "content": text,
            "numLines": shown,
        }));
        let from = format!(" from {}", plural(hits.len(), "file"));
        if let Some(note) = self.page_note(shown, total, "lines", &from) {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&format!("({note})"));
        }
        ToolOutput::text(text)
            .with_structured(
                json!({"files": hits.len(), "lines": total, "shown": shown, "offset": self.offset}),
            )
            .with_response(response)
    }
}

/// Searches one file; `None` when nothing matched.
fn search_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    mode: OutputMode,
    path: &Path,
    stored: &AtomicUsize,
) -> std::io::Result<Option<Hit>> {
    let mut sink = HitSink {
        mode,
        count: 0,
        store: mode == OutputMode::Content && stored.load(Ordering::Relaxed) < MAX_STORED_BYTES,
        bytes: 0,
        lines: Vec::new(),
    };
    // Opened with no link followed: `path` is where the walk found the
    // file under the search root (both physical) and what the read filter
    // judged, and a directory on it swapped for a link since then fails
    // the open instead of leading to a file no rule was asked about.
    let file = crate::files::open_physical(path)?;
    searcher.search_file(matcher, &file, &mut sink)?;
    if sink.count == 0 {
        return Ok(None);
    }
    stored.fetch_add(sink.bytes, Ordering::Relaxed);
    Ok(Some(Hit {
        path: path.to_path_buf(),
        mtime: SystemTime::UNIX_EPOCH,
        count: sink.count,
        lines: sink.store.then_some(sink.lines),
    }))
}

/// Collects what one file's search reports, as the mode needs it.
struct HitSink {
    mode: OutputMode,
    count: usize,
    store: bool,
    bytes: usize,
    lines: Vec<OutLine>,
}

impl HitSink {
    fn push(&mut self, kind: LineKind, number: u64, bytes: &[u8]) {
        self.count += 1;
        if self.store {
            let text = line_text(bytes);
            self.bytes += text.len() + 32;
            self.lines.push(OutLine { kind, number, text });
        }
    }
}

impl Sink for HitSink {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        match self.mode {
            OutputMode::FilesWithMatches => {
                self.count = 1;
                Ok(false)
            }
            OutputMode::Count => {
                self.count += mat.lines().count().max(1);
                Ok(true)
            }
            OutputMode::Content => {
                let first = mat.line_number().unwrap_or(0);
                for (i, line) in mat.lines().enumerate() {
                    self.push(LineKind::Match, first + i as u64, line);
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.push(
            LineKind::Context,
            context.line_number().unwrap_or(0),
            context.bytes(),
        );
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        if self.store && !self.lines.is_empty() {
            self.lines.push(OutLine {
                kind: LineKind::Break,
                number: 0,
                text: String::new(),
            });
        }
        Ok(true)
    }
}

/// A line for display: without its terminator, decoded lossily, cut at
/// MAX_COLUMNS characters.
fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(MAX_COLUMNS) {
        Some((cut, _)) => format!(
            "{}… [line cut: {} characters]",
            &text[..cut],
            text.chars().count()
        ),
        None => text.into_owned(),
    }
}

/// The file types to search (rg --type); several may be given, comma-separated.
fn types(file_type: Option<&str>) -> Result<Types, ToolError> {
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    if let Some(names) = file_type {
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            builder.select(name);
        }
    }
    builder.build().map_err(|e| {
        ToolError::InvalidInput(format!(
            "{e}. Use a ripgrep type name such as rust, py, js, ts, go, java, c, cpp, md, json, yaml, sh, or filter with glob instead (e.g. \"*.vue\")."
        ))
    })
}

/// The globs to search (rg --glob), separated by whitespace.
fn overrides(root: &Path, glob: Option<&str>) -> Result<Override, ToolError> {
    let Some(glob) = glob else {
        return Ok(Override::empty());
    };
    let base = if root.is_dir() {
        root
    } else {
        root.parent().unwrap_or(root)
    };
    let mut builder = OverrideBuilder::new(base);
    for g in glob.split_whitespace() {
        builder
            .add(g)
            .map_err(|e| ToolError::InvalidInput(format!("invalid glob {g:?}: {e}")))?;
    }
    builder
        .build()
        .map_err(|e| ToolError::InvalidInput(format!("invalid glob {glob:?}: {e}")))
}
