//! The model's Markdown, rendered to terminal rows.
//!
//! [`render`] turns CommonMark (with GitHub tables, strikethrough and task
//! lists) into ratatui [`Line`]s that each fit in `width` columns, so the
//! number of lines is the number of rows the text takes. It wraps text
//! itself rather than leaving that to the terminal or a widget: the caller
//! pushes finished rows into the terminal's scrollback and must know their
//! height up front. Code is never reflowed, but a code line wider than the
//! terminal is cut into rows, so nothing is clipped.
//!
//! Every top-level block is followed by one blank row. That makes rendering
//! concatenative: rendering a document's top-level blocks one by one gives
//! the same rows as rendering it whole. [`Stream`] relies on it to print a
//! streamed reply block by block as each block completes.
//!
//! With `color` false (`NO_COLOR`) the same text comes out with no styles
//! at all; bullets, bars, indentation and heading markers carry the
//! structure.
//!
//! ```
//! use tack_tui::markdown::{render, Stream};
//!
//! let rows = render("A *short* paragraph.", 80, false);
//! assert_eq!(rows.len(), 2); // the paragraph and the blank row after it
//!
//! let mut stream = Stream::default();
//! assert_eq!(stream.push("# Title\nSome "), Some("# Title\n".to_owned()));
//! assert_eq!(stream.push("text"), None);
//! assert_eq!(stream.pending(), "Some text");
//! assert_eq!(stream.finish(), "Some text");
//! ```

use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::input::{cluster_width, clusters, display_width};

const BULLET: &str = "• ";
const QUOTE_BAR: &str = "│ ";
const CODE_INDENT: &str = "  ";
const TAB_STOP: usize = 4;
const COLUMN_SEPARATOR: &str = " │ ";

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Renders `markdown` to rows of at most `width` columns (unless a nesting
/// prefix alone is wider, or a single character is, at absurdly small
/// widths). Styled when `color` is true, plain otherwise.
pub fn render(markdown: &str, width: u16, color: bool) -> Vec<Line<'static>> {
    let mut renderer = Renderer::new(usize::from(width).max(1), color);
    for event in Parser::new_ext(markdown, options()) {
        renderer.event(event);
    }
    renderer.out
}

/// Splits streamed Markdown into complete top-level blocks, so each can be
/// rendered once and printed for good while the rest is still arriving.
///
/// A block is complete when the next top-level block has begun, or, for a
/// paragraph, heading, quote, table or HTML block, once a blank line
/// follows it, and for a fenced code block when its closing fence arrives.
/// A list or an indented code block is complete only when a following
/// block has begun, since an indented line after a blank line may still
/// belong to it. Blocks are found by parsing the pending text, so a list or
/// fence is never split. Only complete lines are considered.
///
/// Rendering the returned chunks one by one gives the same rows as
/// rendering the whole text, except where a link uses a reference defined
/// in a later chunk.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pending: String,
    /// Length of the prefix of `pending` already examined.
    scanned: usize,
}

impl Stream {
    /// A stream with nothing received yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `delta`; returns the Markdown of the blocks it completed, if any.
    pub fn push(&mut self, delta: &str) -> Option<String> {
        self.pending.push_str(delta);
        let complete = self.pending.rfind('\n').map_or(0, |i| i + 1);
        if complete <= self.scanned {
            return None;
        }
        let new_lines = self.scanned..complete;
        self.scanned = complete;
        if self.inside_open_fence(new_lines) {
            return None;
        }
        let split = split_point(&self.pending[..complete]);
        if split == 0 {
            return None;
        }
        let rest = self.pending.split_off(split);
        self.scanned -= split;
        Some(std::mem::replace(&mut self.pending, rest))
    }

    /// What has arrived but is not complete yet, for showing live.
    pub fn pending(&self) -> &str {
        &self.pending
    }

    /// Everything not yet returned, at the end of the message.
    pub fn finish(&mut self) -> String {
        self.scanned = 0;
        std::mem::take(&mut self.pending)
    }

    /// Whether the pending text is a fenced code block that none of the
    /// lines in `new_lines` can close: then nothing can be complete, and
    /// parsing a long code block again on every line is skipped.
    fn inside_open_fence(&self, new_lines: std::ops::Range<usize>) -> bool {
        let mut opening_end = 0;
        let mut fence = None;
        for line in self.pending.split_inclusive('\n') {
            opening_end += line.len();
            if !line.trim().is_empty() {
                fence = Fence::open(line);
                break;
            }
        }
        let Some(fence) = fence else {
            return false;
        };
        let new_start = new_lines.start.max(opening_end);
        let new_end = new_lines.end.max(new_start);
        !self.pending[new_start..new_end]
            .lines()
            .any(|line| fence.closes(line))
    }
}

/// Where complete blocks end in `text` (complete lines only): the start of
/// the line where the last top-level block begins, or the whole text when
/// that block is complete too; 0 when nothing is complete.
fn split_point(text: &str) -> usize {
    let blocks = top_level_blocks(text);
    let Some(last) = blocks.last() else {
        return 0;
    };
    let complete = match last.kind {
        BlockKind::Heading | BlockKind::Rule => true,
        BlockKind::Paragraph | BlockKind::Quote | BlockKind::Table | BlockKind::Html => {
            blank_line_after(text, last.end)
        }
        BlockKind::FencedCode => fence_closed(&text[last.start..last.end]),
        BlockKind::IndentedCode | BlockKind::List | BlockKind::Other => false,
    };
    if complete {
        text.len()
    } else if blocks.len() >= 2 {
        line_start(text, last.start)
    } else {
        0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Paragraph,
    Heading,
    Quote,
    FencedCode,
    IndentedCode,
    List,
    Table,
    Html,
    Rule,
    Other,
}

#[derive(Debug)]
struct Block {
    start: usize,
    end: usize,
    kind: BlockKind,
}

/// The top-level blocks of `text`, in order, with their byte ranges.
fn top_level_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        let kind = match &event {
            Event::Start(tag) if depth == 0 => Some(match tag {
                Tag::Paragraph => BlockKind::Paragraph,
                Tag::Heading { .. } => BlockKind::Heading,
                Tag::BlockQuote(_) => BlockKind::Quote,
                Tag::CodeBlock(CodeBlockKind::Fenced(_)) => BlockKind::FencedCode,
                Tag::CodeBlock(CodeBlockKind::Indented) => BlockKind::IndentedCode,
                Tag::List(_) => BlockKind::List,
                Tag::Table(_) => BlockKind::Table,
                Tag::HtmlBlock => BlockKind::Html,
                _ => BlockKind::Other,
            }),
            Event::Rule if depth == 0 => Some(BlockKind::Rule),
            _ => None,
        };
        if let Some(kind) = kind {
            blocks.push(Block {
                start: range.start,
                end: range.end,
                kind,
            });
        }
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    blocks
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Whether a blank line follows the block ending at `end`.
fn blank_line_after(text: &str, end: usize) -> bool {
    let mut rest = &text[end..];
    if end > 0 && !text[..end].ends_with('\n') {
        // The block ended inside its last line: skip the rest of that line.
        rest = rest.split_once('\n').map_or("", |(_, after)| after);
    }
    rest.split_inclusive('\n')
        .any(|line| line.ends_with('\n') && line.trim().is_empty())
}

/// Whether a fenced code block's source ends with its closing fence.
fn fence_closed(block: &str) -> bool {
    let mut lines = block.lines();
    let Some(fence) = lines.next().and_then(Fence::open) else {
        return false;
    };
    lines.last().is_some_and(|line| fence.closes(line))
}

/// The opening of a fenced code block: its character and length.
#[derive(Debug, Clone, Copy)]
struct Fence {
    marker: char,
    len: usize,
}

impl Fence {
    fn open(line: &str) -> Option<Fence> {
        let body = strip_indent(line)?;
        let marker = body.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let len = body.chars().take_while(|&c| c == marker).count();
        let info = &body[len..];
        (len >= 3 && !(marker == '`' && info.contains('`'))).then_some(Fence { marker, len })
    }

    fn closes(&self, line: &str) -> bool {
        strip_indent(line).is_some_and(|body| {
            let len = body.chars().take_while(|&c| c == self.marker).count();
            len >= self.len && body[len..].trim().is_empty()
        })
    }
}

/// `line` without up to three leading spaces; `None` if indented more.
fn strip_indent(line: &str) -> Option<&str> {
    let body = line.trim_start_matches(' ');
    (line.len() - body.len() <= 3).then_some(body)
}

/// A run of inline text with one style, or a hard line break.
#[derive(Debug, Clone)]
enum Piece {
    Text(String, Style),
    Break,
}

/// A container the current block sits in.
#[derive(Debug)]
enum Frame {
    Quote {
        blocks: usize,
    },
    Item {
        marker: String,
        /// Whether the marker has been printed; later rows get spaces.
        marker_shown: bool,
        blocks: usize,
        first_in_list: bool,
    },
}

#[derive(Debug)]
struct List {
    /// The next item's number, for an ordered list.
    next: Option<u64>,
    items: usize,
    /// A loose list (items separated by blank lines) has paragraphs in its
    /// items, and gets a blank row between them.
    loose: bool,
}

#[derive(Debug)]
struct Table {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<Vec<Piece>>>,
    row: Vec<Vec<Piece>>,
    in_head: bool,
}

struct Renderer {
    width: usize,
    color: bool,
    out: Vec<Line<'static>>,
    /// Quotes and list items around the current block, outermost first.
    frames: Vec<Frame>,
    lists: Vec<List>,
    /// Inline content of the paragraph, heading, tight item or table cell
    /// being read, wrapped when it ends.
    inline: Vec<Piece>,
    /// Styles of the open inline elements, innermost last.
    styles: Vec<Style>,
    /// Open links: where their text starts in `inline`, and their target.
    links: Vec<(usize, String)>,
    code: Option<String>,
    html: Option<String>,
    table: Option<Table>,
}

impl Renderer {
    fn new(width: usize, color: bool) -> Self {
        Renderer {
            width,
            color,
            out: Vec::new(),
            frames: Vec::new(),
            lists: Vec::new(),
            inline: Vec::new(),
            styles: Vec::new(),
            links: Vec::new(),
            code: None,
            html: None,
            table: None,
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                let style = self.current_style().patch(self.code_style());
                self.push_text(&code, style);
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => self.text(&text),
            Event::Html(html) | Event::InlineHtml(html) => match &mut self.html {
                Some(block) => block.push_str(&html),
                None => self.text(&html),
            },
            Event::FootnoteReference(label) => self.text(&format!("[^{label}]")),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.inline.push(Piece::Break),
            Event::Rule => self.rule(),
            Event::TaskListMarker(done) => {
                let style = self.styled(Style::new().add_modifier(Modifier::BOLD));
                self.push_text(if done { "[x] " } else { "[ ] " }, style);
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.begin_block(true),
            Tag::Heading { level, .. } => {
                self.begin_block(false);
                let mut style = Style::new().add_modifier(Modifier::BOLD);
                if level == pulldown_cmark::HeadingLevel::H1 {
                    style = style.add_modifier(Modifier::UNDERLINED);
                }
                let style = self.styled(style);
                self.styles.push(style);
                self.push_text(&format!("{} ", "#".repeat(level as usize)), style);
            }
            Tag::BlockQuote(_) => {
                self.begin_block(false);
                self.frames.push(Frame::Quote { blocks: 0 });
            }
            Tag::CodeBlock(_) => {
                self.begin_block(false);
                self.code = Some(String::new());
            }
            Tag::HtmlBlock => {
                self.begin_block(false);
                self.html = Some(String::new());
            }
            Tag::List(start) => {
                self.begin_block(false);
                self.lists.push(List {
                    next: start,
                    items: 0,
                    loose: false,
                });
            }
            Tag::Item => self.start_item(),
            Tag::Table(alignments) => {
                self.begin_block(false);
                self.table = Some(Table {
                    alignments,
                    rows: Vec::new(),
                    row: Vec::new(),
                    in_head: false,
                });
            }
            Tag::TableHead => {
                if let Some(table) = &mut self.table {
                    table.in_head = true;
                }
                let style = self.styled(Style::new().add_modifier(Modifier::BOLD));
                self.styles.push(style);
            }
            Tag::TableRow | Tag::TableCell => {}
            Tag::Emphasis => self.push_modifier(Modifier::ITALIC),
            Tag::Strong => self.push_modifier(Modifier::BOLD),
            Tag::Strikethrough => self.push_modifier(Modifier::CROSSED_OUT),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push((self.inline.len(), dest_url.into_string()));
                self.push_modifier(Modifier::UNDERLINED);
            }
            Tag::Superscript | Tag::Subscript => self.push_modifier(Modifier::empty()),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush_inline();
                self.end_block();
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush_inline();
                self.end_block();
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.frames.pop();
                self.end_block();
            }
            TagEnd::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                self.verbatim(&code, CODE_INDENT, self.code_style());
                self.end_block();
            }
            TagEnd::HtmlBlock => {
                let html = self.html.take().unwrap_or_default();
                self.verbatim(&html, "", Style::new());
                self.end_block();
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.end_block();
            }
            TagEnd::Item => {
                self.flush_inline();
                if let Some(Frame::Item {
                    marker_shown: false,
                    ..
                }) = self.frames.last()
                {
                    self.emit(Vec::new()); // an empty item: just its marker
                }
                self.frames.pop();
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.table(table);
                }
                self.end_block();
            }
            TagEnd::TableHead => {
                self.styles.pop();
                if let Some(table) = &mut self.table {
                    table.in_head = false;
                    table.rows.push(std::mem::take(&mut table.row));
                }
            }
            TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    table.rows.push(std::mem::take(&mut table.row));
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(table) = &mut self.table {
                    table.row.push(cell);
                }
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                self.end_link();
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {}
        }
    }

    fn start_item(&mut self) {
        let (marker, first_in_list) = match self.lists.last_mut() {
            Some(list) => {
                let marker = match &mut list.next {
                    Some(number) => {
                        let marker = format!("{number}. ");
                        *number += 1;
                        marker
                    }
                    None => BULLET.to_owned(),
                };
                list.items += 1;
                (marker, list.items == 1)
            }
            None => (BULLET.to_owned(), true),
        };
        self.frames.push(Frame::Item {
            marker,
            marker_shown: false,
            blocks: 0,
            first_in_list,
        });
    }

    /// Appends " (url)" after a link's text, unless the text is the url.
    fn end_link(&mut self) {
        let Some((start, url)) = self.links.pop() else {
            return;
        };
        let text: String = self.inline[start..]
            .iter()
            .filter_map(|piece| match piece {
                Piece::Text(text, _) => Some(text.as_str()),
                Piece::Break => None,
            })
            .collect();
        if url.is_empty() || url.strip_prefix("mailto:").unwrap_or(&url) == text {
            return;
        }
        let style = self.dim();
        self.push_text(&format!(" ({url})"), style);
    }

    /// Prepares for a block inside the current container: prints pending
    /// text of a tight list item, and a blank row between this block and
    /// the container's previous one (or the previous item of a loose list).
    fn begin_block(&mut self, paragraph: bool) {
        self.flush_inline();
        let loose = self.lists.last().is_some_and(|list| list.loose);
        let separate = match self.frames.last_mut() {
            None => false,
            Some(Frame::Quote { blocks }) => {
                *blocks += 1;
                *blocks > 1
            }
            Some(Frame::Item {
                blocks,
                first_in_list,
                ..
            }) => {
                *blocks += 1;
                *blocks > 1 || (!*first_in_list && (paragraph || loose))
            }
        };
        if paragraph
            && matches!(self.frames.last(), Some(Frame::Item { .. }))
            && let Some(list) = self.lists.last_mut()
        {
            list.loose = true;
        }
        if separate {
            let blank = self.prefix(false);
            self.out.push(Line::from(trim_end(blank)));
        }
    }

    /// Ends a block: a top-level block is followed by a blank row.
    fn end_block(&mut self) {
        if self.frames.is_empty() {
            self.out.push(Line::default());
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(code) = &mut self.code {
            code.push_str(text);
        } else if let Some(html) = &mut self.html {
            html.push_str(text);
        } else {
            self.push_text(text, self.current_style());
        }
    }

    fn push_text(&mut self, text: &str, style: Style) {
        let text: String = text
            .chars()
            .map(|c| if c == '\t' || c == '\n' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        if !text.is_empty() {
            self.inline.push(Piece::Text(text, style));
        }
    }

    fn current_style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_modifier(&mut self, modifier: Modifier) {
        let style = self
            .current_style()
            .patch(self.styled(Style::new().add_modifier(modifier)));
        self.styles.push(style);
    }

    /// `style` when colour is on, no style at all otherwise.
    fn styled(&self, style: Style) -> Style {
        if self.color { style } else { Style::new() }
    }

    fn code_style(&self) -> Style {
        self.styled(Style::new().fg(Color::Cyan))
    }

    fn dim(&self) -> Style {
        self.styled(Style::new().add_modifier(Modifier::DIM))
    }

    /// Columns left for content after the containers' prefix.
    fn available(&self) -> usize {
        self.width.saturating_sub(self.prefix_width()).max(1)
    }

    fn prefix_width(&self) -> usize {
        let full: usize = self
            .frames
            .iter()
            .map(|frame| match frame {
                Frame::Quote { .. } => display_width(QUOTE_BAR),
                Frame::Item { marker, .. } => display_width(marker),
            })
            .sum();
        full.min(self.width - 1)
    }

    /// The containers' prefix for a row: quote bars, and list markers
    /// (`markers`) or the spaces that stand for them. Cut to leave at least
    /// one column for content.
    fn prefix(&self, markers: bool) -> Vec<Span<'static>> {
        let spans = self
            .frames
            .iter()
            .map(|frame| match frame {
                Frame::Quote { .. } => Span::styled(QUOTE_BAR, self.dim()),
                Frame::Item {
                    marker,
                    marker_shown,
                    ..
                } => {
                    if markers && !marker_shown {
                        Span::raw(marker.clone())
                    } else {
                        Span::raw(" ".repeat(display_width(marker)))
                    }
                }
            })
            .collect();
        if self.width == 1 {
            return Vec::new();
        }
        break_spans(spans, self.width - 1)
            .into_iter()
            .next()
            .unwrap_or_default()
    }

    /// Adds a row: the containers' prefix, then `body`.
    fn emit(&mut self, body: Vec<Span<'static>>) {
        let mut spans = self.prefix(true);
        spans.extend(body);
        self.out.push(Line::from(spans));
        for frame in &mut self.frames {
            if let Frame::Item { marker_shown, .. } = frame {
                *marker_shown = true;
            }
        }
    }

    /// Wraps and prints the pending inline content.
    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let pieces = std::mem::take(&mut self.inline);
        for row in wrap(&pieces, self.available()) {
            self.emit(row);
        }
    }

    /// Prints `text` line by line, not reflowed: tabs expanded, each line
    /// after `indent`, a line wider than the room left cut into rows.
    fn verbatim(&mut self, text: &str, indent: &str, style: Style) {
        let room = self
            .available()
            .saturating_sub(display_width(indent))
            .max(1);
        for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
            let line = expand_tabs(line);
            for part in break_text(&line, room) {
                let mut row = vec![Span::raw(indent.to_owned())];
                if !part.is_empty() {
                    row.push(Span::styled(part, style));
                }
                self.emit(row);
            }
        }
    }

    fn rule(&mut self) {
        self.begin_block(false);
        let rule = "─".repeat(self.available());
        let style = self.dim();
        self.emit(vec![Span::styled(rule, style)]);
        self.end_block();
    }

    /// Prints a table as aligned columns with a rule under the header.
    /// Columns too wide for the terminal are narrowed, widest first, and
    /// their cells wrapped.
    fn table(&mut self, table: Table) {
        let columns = table
            .rows
            .iter()
            .map(Vec::len)
            .chain([table.alignments.len()])
            .max()
            .unwrap_or(0);
        if columns == 0 {
            return;
        }
        let mut widths = vec![1; columns];
        for row in &table.rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(pieces_width(cell));
            }
        }
        let separator_width = display_width(COLUMN_SEPARATOR) * (columns - 1);
        narrow(
            &mut widths,
            self.available().saturating_sub(separator_width),
        );

        let separator = Span::styled(COLUMN_SEPARATOR, self.dim());
        let mut rows = Vec::new();
        for (index, row) in table.rows.iter().enumerate() {
            let cells: Vec<Vec<Vec<Span<'static>>>> = widths
                .iter()
                .enumerate()
                .map(|(column, &width)| {
                    row.get(column)
                        .map_or_else(Vec::new, |cell| wrap(cell, width))
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(0).max(1);
            for line in 0..height {
                let mut spans = Vec::new();
                for (column, cell) in cells.iter().enumerate() {
                    if column > 0 {
                        spans.push(separator.clone());
                    }
                    let content = cell.get(line).cloned().unwrap_or_default();
                    let alignment = table
                        .alignments
                        .get(column)
                        .copied()
                        .unwrap_or(Alignment::None);
                    let last = column + 1 == columns;
                    spans.extend(align(content, widths[column], alignment, last));
                }
                rows.push(spans);
            }
            if index == 0 {
                let rule = widths
                    .iter()
                    .map(|&width| "─".repeat(width))
                    .collect::<Vec<_>>()
                    .join("─┼─");
                rows.push(vec![Span::styled(rule, self.dim())]);
            }
        }
        let room = self.available();
        for row in rows {
            for part in break_spans(row, room) {
                self.emit(part);
            }
        }
    }
}

/// Word-wraps inline pieces into rows of at most `width` columns. Spaces
/// between words are kept within a row and dropped at a break; a word wider
/// than a row is cut.
fn wrap(pieces: &[Piece], width: usize) -> Vec<Vec<Span<'static>>> {
    let mut wrapper = Wrapper {
        width,
        rows: Vec::new(),
        row: Vec::new(),
        row_width: 0,
        space: Vec::new(),
        space_width: 0,
        word: Vec::new(),
        word_width: 0,
    };
    for piece in pieces {
        match piece {
            Piece::Break => {
                wrapper.place_word();
                wrapper.new_row();
            }
            Piece::Text(text, style) => {
                for cluster in clusters(text) {
                    if cluster == " " {
                        wrapper.place_word();
                        push_styled(&mut wrapper.space, " ", *style);
                        wrapper.space_width += 1;
                    } else {
                        push_styled(&mut wrapper.word, cluster, *style);
                        wrapper.word_width += cluster_width(cluster);
                    }
                }
            }
        }
    }
    wrapper.place_word();
    if !wrapper.row.is_empty() {
        wrapper.new_row();
    }
    wrapper.rows
}

struct Wrapper {
    width: usize,
    rows: Vec<Vec<Span<'static>>>,
    row: Vec<Span<'static>>,
    row_width: usize,
    /// Whitespace since the last word, placed only if another word follows
    /// on the same row.
    space: Vec<Span<'static>>,
    space_width: usize,
    word: Vec<Span<'static>>,
    word_width: usize,
}

impl Wrapper {
    fn place_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let space = std::mem::take(&mut self.space);
        let space_width = std::mem::replace(&mut self.space_width, 0);
        let word = std::mem::take(&mut self.word);
        let word_width = std::mem::replace(&mut self.word_width, 0);
        if self.row_width > 0 {
            if self.row_width + space_width + word_width <= self.width {
                self.append(space, space_width);
                self.append(word, word_width);
                return;
            }
            self.new_row();
        }
        if word_width <= self.width {
            self.append(word, word_width);
            return;
        }
        let mut parts = break_spans(word, self.width);
        let last = parts.pop().unwrap_or_default();
        for part in parts {
            self.rows.push(part);
        }
        self.row_width = spans_width(&last);
        self.row = last;
    }

    fn append(&mut self, spans: Vec<Span<'static>>, width: usize) {
        for span in spans {
            push_styled(&mut self.row, &span.content, span.style);
        }
        self.row_width += width;
    }

    fn new_row(&mut self) {
        self.rows.push(std::mem::take(&mut self.row));
        self.row_width = 0;
        self.space.clear();
        self.space_width = 0;
    }
}

/// Appends `text` to the last span if it has the same style.
fn push_styled(spans: &mut Vec<Span<'static>>, text: &str, style: Style) {
    match spans.last_mut() {
        Some(last) if last.style == style => last.content.to_mut().push_str(text),
        _ => spans.push(Span::styled(text.to_owned(), style)),
    }
}

fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|span| display_width(&span.content)).sum()
}

fn pieces_width(pieces: &[Piece]) -> usize {
    pieces
        .iter()
        .map(|piece| match piece {
            Piece::Text(text, _) => display_width(text),
            Piece::Break => 1,
        })
        .sum()
}

/// Cuts `spans` into rows of at most `width` columns at cluster
/// boundaries. Always at least one row.
fn break_spans(spans: Vec<Span<'static>>, width: usize) -> Vec<Vec<Span<'static>>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut row_width = 0;
    for span in spans {
        for cluster in clusters(&span.content) {
            let w = cluster_width(cluster);
            if row_width > 0 && row_width + w > width {
                rows.push(std::mem::take(&mut row));
                row_width = 0;
            }
            push_styled(&mut row, cluster, span.style);
            row_width += w;
        }
    }
    rows.push(row);
    rows
}

/// Cuts `text` into pieces of at most `width` columns. Always at least one.
fn break_text(text: &str, width: usize) -> Vec<String> {
    if display_width(text) <= width {
        return vec![text.to_owned()];
    }
    break_spans(vec![Span::raw(text.to_owned())], width)
        .into_iter()
        .map(|row| row.into_iter().map(|span| span.content).collect())
        .collect()
}

/// Tabs to spaces up to the next tab stop; other control characters
/// dropped, so nothing the model writes can drive the terminal.
fn expand_tabs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut column = 0;
    for cluster in clusters(line) {
        if cluster == "\t" {
            let spaces = TAB_STOP - column % TAB_STOP;
            out.extend(std::iter::repeat_n(' ', spaces));
            column += spaces;
        } else if !cluster.starts_with(char::is_control) {
            out.push_str(cluster);
            column += cluster_width(cluster);
        }
    }
    out
}

/// Narrows the widest columns until all fit in `room` (each keeps at
/// least one column).
fn narrow(widths: &mut [usize], room: usize) {
    if widths.iter().sum::<usize>() <= room {
        return;
    }
    // The largest cap that fits, found by bisection: columns wider than it
    // are cut to it.
    let (mut low, mut high) = (1, widths.iter().copied().max().unwrap_or(1));
    while low < high {
        let cap = (low + high).div_ceil(2);
        if widths.iter().map(|&w| w.min(cap)).sum::<usize>() <= room {
            low = cap;
        } else {
            high = cap - 1;
        }
    }
    for width in widths.iter_mut() {
        *width = (*width).min(low);
    }
}

/// Pads a cell's row to `width` as aligned; the last column of a
/// left-aligned table gets no trailing padding.
fn align(
    content: Vec<Span<'static>>,
    width: usize,
    alignment: Alignment,
    last: bool,
) -> Vec<Span<'static>> {
    let gap = width.saturating_sub(spans_width(&content));
    let (left, right) = match alignment {
        Alignment::Right => (gap, 0),
        Alignment::Center => (gap / 2, gap - gap / 2),
        Alignment::Left | Alignment::None => (0, if last { 0 } else { gap }),
    };
    let right = if last { 0 } else { right };
    let mut spans = Vec::new();
    if left > 0 {
        spans.push(Span::raw(" ".repeat(left)));
    }
    spans.extend(content);
    if right > 0 {
        spans.push(Span::raw(" ".repeat(right)));
    }
    spans
}

/// `spans` without trailing spaces (for a blank row's prefix).
fn trim_end(mut spans: Vec<Span<'static>>) -> Vec<Span<'static>> {
    while let Some(last) = spans.last_mut() {
        let trimmed = last.content.trim_end().len();
        if trimmed > 0 {
            last.content.to_mut().truncate(trimmed);
            break;
        }
        spans.pop();
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of each row.
    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|line| line.to_string()).collect()
    }

    fn plain(markdown: &str, width: u16) -> Vec<String> {
        text(&render(markdown, width, false))
    }

    /// The style of the first span containing `needle`.
    fn style_of(lines: &[Line<'_>], needle: &str) -> Style {
        lines
            .iter()
            .flat_map(|line| &line.spans)
            .find(|span| span.content.contains(needle))
            .map(|span| span.style)
            .unwrap_or_else(|| panic!("no span contains {needle:?}"))
    }

    #[test]
    fn a_paragraph_is_followed_by_a_blank_row() {
        assert_eq!(plain("Hello, world.", 80), ["Hello, world.", ""]);
        assert_eq!(plain("one\ntwo", 80), ["one two", ""]);
        assert_eq!(plain("one\n\ntwo", 80), ["one", "", "two", ""]);
        assert!(plain("", 80).is_empty());
        assert!(plain("\n\n  \n", 80).is_empty());
    }

    #[test]
    fn headings_keep_their_markers_and_are_bold() {
        let lines = render("# Title\n\n## Section\n\ntext", 80, true);
        assert_eq!(text(&lines), ["# Title", "", "## Section", "", "text", ""]);
        let h1 = style_of(&lines, "Title");
        assert!(
            h1.add_modifier
                .contains(Modifier::BOLD | Modifier::UNDERLINED)
        );
        let h2 = style_of(&lines, "Section");
        assert!(h2.add_modifier.contains(Modifier::BOLD));
        assert!(!h2.add_modifier.contains(Modifier::UNDERLINED));
        assert_eq!(style_of(&lines, "text"), Style::new());
    }

    #[test]
    fn inline_styles() {
        let lines = render("**bold** *it* ~~gone~~ `code` ***both***", 80, true);
        assert_eq!(text(&lines), ["bold it gone code both", ""]);
        assert_eq!(
            style_of(&lines, "bold"),
            Style::new().add_modifier(Modifier::BOLD)
        );
        assert_eq!(
            style_of(&lines, "it"),
            Style::new().add_modifier(Modifier::ITALIC)
        );
        assert_eq!(
            style_of(&lines, "gone"),
            Style::new().add_modifier(Modifier::CROSSED_OUT)
        );
        assert_eq!(style_of(&lines, "code"), Style::new().fg(Color::Cyan));
        assert!(
            style_of(&lines, "both")
                .add_modifier
                .contains(Modifier::BOLD | Modifier::ITALIC)
        );
    }

    #[test]
    fn code_inside_bold_keeps_both() {
        let lines = render("**a `b` c**", 80, true);
        assert_eq!(
            style_of(&lines, "b"),
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
        );
    }

    #[test]
    fn fenced_code_is_kept_verbatim_and_indented() {
        let markdown =
            "Before:\n\n```rust\nfn main() {\n\tlet  x = 1;   // spaced\n\n}\n```\nAfter.";
        let lines = render(markdown, 80, true);
        assert_eq!(
            text(&lines),
            [
                "Before:",
                "",
                "  fn main() {",
                "      let  x = 1;   // spaced",
                "  ",
                "  }",
                "",
                "After.",
                ""
            ]
        );
        assert_eq!(style_of(&lines, "fn main"), Style::new().fg(Color::Cyan));
    }

    #[test]
    fn indented_code_is_kept_verbatim() {
        assert_eq!(
            plain("text\n\n    a  b\n      c\n", 80),
            ["text", "", "  a  b", "    c", ""]
        );
    }

    #[test]
    fn long_code_lines_are_cut_not_wrapped_at_words() {
        assert_eq!(
            plain("```\nabc def ghi jkl\n```", 8),
            ["  abc de", "  f ghi ", "  jkl", ""]
        );
    }

    #[test]
    fn bullet_lists_nest() {
        let markdown = "- one\n- two\n  - two a\n  - two b\n    - deep\n- three";
        assert_eq!(
            plain(markdown, 80),
            [
                "• one",
                "• two",
                "  • two a",
                "  • two b",
                "    • deep",
                "• three",
                ""
            ]
        );
    }

    #[test]
    fn ordered_lists_count_from_their_start() {
        assert_eq!(
            plain("3. three\n4. four\n   1. sub\n", 80),
            ["3. three", "4. four", "   1. sub", ""]
        );
    }

    #[test]
    fn list_numbers_of_different_widths_indent_their_own_text() {
        let items: String = (1..=10).map(|i| format!("{i}. item {i} wraps\n")).collect();
        let rows = plain(&items, 10);
        assert_eq!(rows[0..2], ["1. item 1", "   wraps"]);
        assert_eq!(rows[18..], ["10. item", "    10", "    wraps", ""]);
    }

    #[test]
    fn loose_lists_have_blank_rows_between_items() {
        assert_eq!(
            plain("- one\n\n- two\n\n  more\n- three", 80),
            ["• one", "", "• two", "", "  more", "", "• three", ""]
        );
    }

    #[test]
    fn task_lists() {
        assert_eq!(
            plain("- [x] done\n- [ ] todo", 80),
            ["• [x] done", "• [ ] todo", ""]
        );
    }

    #[test]
    fn an_empty_item_shows_its_marker() {
        assert_eq!(plain("- \n- b", 80), ["• ", "• b", ""]);
    }

    #[test]
    fn block_quotes_have_a_bar() {
        assert_eq!(
            plain("> quoted\n> text\n>\n> - item\n>\n> > nested", 80),
            ["│ quoted text", "│", "│ • item", "│", "│ │ nested", ""]
        );
    }

    #[test]
    fn a_code_block_in_a_list_item_is_indented_under_it() {
        assert_eq!(
            plain("- run:\n  ```\n  cargo test\n  ```\n- done", 80),
            ["• run:", "    cargo test", "• done", ""]
        );
    }

    #[test]
    fn links_show_their_target_unless_it_is_the_text() {
        assert_eq!(
            plain(
                "See [the docs](https://x.dev/docs) and <https://x.dev>.",
                80
            ),
            ["See the docs (https://x.dev/docs) and https://x.dev.", ""]
        );
        assert_eq!(plain("<me@x.dev>", 80), ["me@x.dev", ""]);
        assert_eq!(plain("![a cat](cat.png)", 80), ["a cat (cat.png)", ""]);
        let lines = render("[docs](https://x.dev)", 80, true);
        assert!(
            style_of(&lines, "docs")
                .add_modifier
                .contains(Modifier::UNDERLINED)
        );
        assert!(
            style_of(&lines, "(https")
                .add_modifier
                .contains(Modifier::DIM)
        );
    }

    #[test]
    fn a_rule_spans_the_width() {
        assert_eq!(
            plain("a\n\n---\n\nb", 10),
            ["a", "", "─".repeat(10).as_str(), "", "b", ""]
        );
        assert_eq!(plain("> ***", 6), ["│ ────", ""]);
    }

    #[test]
    fn tables_align_their_columns() {
        let markdown = "| Name | Size | Kind |\n|:-----|-----:|:----:|\n| a.rs | 10 | file |\n| src | 2048 | dir |";
        assert_eq!(
            plain(markdown, 80),
            [
                "Name │ Size │ Kind",
                "─────┼──────┼─────",
                "a.rs │   10 │ file",
                "src  │ 2048 │ dir",
                ""
            ]
        );
        let lines = render(markdown, 80, true);
        assert!(
            style_of(&lines, "Name")
                .add_modifier
                .contains(Modifier::BOLD)
        );
        assert!(
            !style_of(&lines, "a.rs")
                .add_modifier
                .contains(Modifier::BOLD)
        );
    }

    #[test]
    fn a_wide_table_wraps_its_widest_column() {
        let markdown = "| k | description |\n|---|---|\n| a | one two three four |";
        assert_eq!(
            plain(markdown, 14),
            [
                "k │ descriptio",
                "  │ n",
                "──┼───────────",
                "a │ one two",
                "  │ three four",
                ""
            ]
        );
    }

    #[test]
    fn html_is_shown_as_written() {
        assert_eq!(
            plain(
                "<details>\n<summary>x</summary>\n</details>\n\ntext <b>bold</b>",
                80
            ),
            [
                "<details>",
                "<summary>x</summary>",
                "</details>",
                "",
                "text <b>bold</b>",
                ""
            ]
        );
    }

    #[test]
    fn hard_breaks_end_a_row() {
        assert_eq!(
            plain("one  \ntwo\\\nthree", 80),
            ["one", "two", "three", ""]
        );
    }

    #[test]
    fn control_characters_are_dropped() {
        assert_eq!(
            plain("red \u{1b}[31mtext\u{7}\n\n```\n\u{1b}[2Jcode\n```", 80),
            ["red [31mtext", "", "  [2Jcode", ""]
        );
    }

    #[test]
    fn paragraphs_wrap_at_the_width() {
        assert_eq!(
            plain("The quick brown fox jumps over the lazy dog.", 16),
            ["The quick brown", "fox jumps over", "the lazy dog.", ""]
        );
    }

    #[test]
    fn wrapped_rows_keep_list_and_quote_indentation() {
        assert_eq!(
            plain("- alpha beta gamma delta\n  - epsilon zeta eta", 14),
            [
                "• alpha beta",
                "  gamma delta",
                "  • epsilon",
                "    zeta eta",
                ""
            ]
        );
        assert_eq!(
            plain("> alpha beta gamma", 10),
            ["│ alpha", "│ beta", "│ gamma", ""]
        );
    }

    #[test]
    fn a_word_wider_than_the_row_is_cut() {
        assert_eq!(
            plain("see https://example.com/a/long/path now", 12),
            ["see", "https://exam", "ple.com/a/lo", "ng/path now", ""]
        );
    }

    #[test]
    fn wrapping_counts_wide_characters() {
        assert_eq!(
            plain("中文 字符 测试 文本", 9),
            ["中文 字符", "测试 文本", ""]
        );
        assert_eq!(plain("中文字符测试", 5), ["中文", "字符", "测试", ""]);
        assert_eq!(
            plain("go 👍🏽 👨\u{200d}👩\u{200d}👧 ok", 7),
            ["go 👍🏽", "👨\u{200d}👩\u{200d}👧 ok", ""]
        );
    }

    #[test]
    fn styled_words_wrap_as_one_word() {
        let lines = render("aaaa **bb**cc", 6, true);
        assert_eq!(text(&lines), ["aaaa", "bbcc", ""]);
        assert_eq!(lines[1].spans.len(), 2);
    }

    #[test]
    fn no_row_is_wider_than_the_width() {
        for width in [8u16, 13, 20, 33, 80] {
            for document in DOCUMENTS {
                for line in render(document, width, true) {
                    assert!(
                        line.width() <= usize::from(width),
                        "{width}: {:?} in {document:?}",
                        line.to_string()
                    );
                }
            }
        }
    }

    #[test]
    fn without_colour_the_text_is_the_same_and_unstyled() {
        for document in DOCUMENTS {
            let coloured = render(document, 40, true);
            let plain = render(document, 40, false);
            assert_eq!(text(&coloured), text(&plain));
            for line in &plain {
                assert_eq!(line.style, Style::default());
                for span in &line.spans {
                    assert_eq!(
                        span.style,
                        Style::default(),
                        "{:?} in {document:?}",
                        span.content
                    );
                }
            }
        }
        assert!(
            DOCUMENTS
                .iter()
                .flat_map(|document| render(document, 40, true))
                .flat_map(|line| line.spans)
                .any(|span| span.style != Style::default()),
            "the documents do have styles when coloured"
        );
    }

    #[test]
    fn stream_returns_a_paragraph_once_a_blank_line_follows() {
        let mut stream = Stream::new();
        assert_eq!(stream.push("Hello "), None);
        assert_eq!(stream.push("world.\nMore"), None);
        assert_eq!(stream.push(".\n"), None);
        assert_eq!(
            stream.push("\nNext"),
            Some("Hello world.\nMore.\n\n".to_owned())
        );
        assert_eq!(stream.pending(), "Next");
        assert_eq!(stream.finish(), "Next");
        assert_eq!(stream.pending(), "");
    }

    #[test]
    fn stream_returns_a_fenced_block_when_it_closes() {
        let mut stream = Stream::new();
        assert_eq!(stream.push("```\nfn a() {}\n\nfn b() {}\n"), None);
        assert_eq!(stream.push("``"), None);
        assert_eq!(
            stream.push("`\n"),
            Some("```\nfn a() {}\n\nfn b() {}\n```\n".to_owned())
        );
        assert_eq!(stream.pending(), "");
    }

    #[test]
    fn stream_does_not_close_a_fence_with_a_shorter_one() {
        let mut stream = Stream::new();
        assert_eq!(
            stream.push("````md\n```\nnot closed\n```\n\npara\n\n"),
            None
        );
        assert_eq!(
            stream.push("````\n"),
            Some("````md\n```\nnot closed\n```\n\npara\n\n````\n".to_owned())
        );
    }

    #[test]
    fn stream_holds_a_list_until_something_else_starts() {
        let mut stream = Stream::new();
        assert_eq!(stream.push("- one\n\n- two\n\n"), None);
        assert_eq!(stream.push("  still two\n\n"), None);
        assert_eq!(
            stream.push("After.\n"),
            Some("- one\n\n- two\n\n  still two\n\n".to_owned())
        );
        assert_eq!(stream.pending(), "After.\n");
    }

    #[test]
    fn stream_returns_a_heading_at_its_line_end() {
        let mut stream = Stream::new();
        assert_eq!(stream.push("## Plan\n"), Some("## Plan\n".to_owned()));
        assert_eq!(stream.push("Title\n"), None);
        assert_eq!(stream.push("===\n"), Some("Title\n===\n".to_owned()));
    }

    /// Documents for the properties above and below: every construct, with
    /// and without blank lines between blocks.
    const DOCUMENTS: &[&str] = &[
        "# Plan\n\nFirst, *read* the **code**. Then `cargo test`.\n\n## Steps\n\n1. one\n2. two\n   - nested\n   - more\n3. three\n\nDone.\n",
        "Intro paragraph that is long enough to wrap a few times at narrow widths.\n\n```rust\nfn main() {\n\n    println!(\"hi\");\n}\n```\n\n~~~\ntilde fence\n~~~\nText right after.\n",
        "- [x] done\n- [ ] todo\n\n- loose\n\n  with paragraph\n\n> quote **bold**\n> > nested quote\n\n---\n\n| a | b |\n|---|:-:|\n| 1 | two words |\n| 3 | 4 |\n\nend",
        "# H\npara right after\n```\ncode right after\n```\n- list right after\n- second\n\n    indented code\n\n    more indented\n\nlast <b>html</b> and [link](https://example.com/x) and <https://e.x>\n",
        "<div>\nhtml block\n</div>\n\n1) paren list\n2) second\n\n* star\n+ plus\n\nHard  \nbreak\\\nhere 中文 emoji 👍🏽 wide\n\n***\n\n> quote\nlazy continuation\n\ntrailing",
        "```\nunclosed fence\n\nstill code\n",
        "Setext\n======\n\nSub\n---\npara\n\n  - indented list\n\n  continuation?\n\nend\n",
    ];

    /// Renders each chunk a stream returns for `deltas`, and what is left.
    fn streamed<'a>(
        deltas: impl IntoIterator<Item = &'a str>,
        width: u16,
    ) -> (Vec<String>, String) {
        let mut stream = Stream::new();
        let mut rows = Vec::new();
        let mut source = String::new();
        for delta in deltas {
            if let Some(chunk) = stream.push(delta) {
                assert!(!chunk.is_empty());
                source.push_str(&chunk);
                rows.extend(text(&render(&chunk, width, false)));
            }
        }
        let rest = stream.finish();
        source.push_str(&rest);
        rows.extend(text(&render(&rest, width, false)));
        (rows, source)
    }

    /// Cuts `text` into pieces of 1 to 7 characters, the same way each time.
    fn random_deltas(text: &str, seed: u64) -> Vec<&str> {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
            | 1;
        let mut deltas = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let chars = 1 + (state % 7) as usize;
            let end = rest
                .char_indices()
                .nth(chars)
                .map_or(rest.len(), |(i, _)| i);
            let (delta, tail) = rest.split_at(end);
            deltas.push(delta);
            rest = tail;
        }
        deltas
    }

    #[test]
    fn streamed_chunks_render_like_the_whole_text() {
        for (index, document) in DOCUMENTS.iter().enumerate() {
            for width in [12u16, 30, 80] {
                let whole = plain(document, width);
                for seed in 0..8 {
                    let (rows, source) = streamed(random_deltas(document, seed), width);
                    assert_eq!(source, *document);
                    assert_eq!(rows, whole, "document {index}, width {width}, seed {seed}");
                }
                let by_char: Vec<String> = document.chars().map(String::from).collect();
                let (rows, _) = streamed(by_char.iter().map(String::as_str), width);
                assert_eq!(rows, whole, "document {index}, width {width}, char by char");
            }
        }
    }

    #[test]
    fn streamed_chunks_are_blocks_not_everything_at_the_end() {
        let mut stream = Stream::new();
        let chunks: Vec<String> = DOCUMENTS[0]
            .chars()
            .filter_map(|c| stream.push(c.encode_utf8(&mut [0; 4])))
            .collect();
        assert_eq!(
            chunks,
            [
                "# Plan\n",
                "\nFirst, *read* the **code**. Then `cargo test`.\n\n",
                "## Steps\n",
                "\n1. one\n2. two\n   - nested\n   - more\n3. three\n\n",
            ]
        );
        assert_eq!(stream.finish(), "Done.\n");
    }

    #[test]
    fn a_long_streamed_code_block_is_not_parsed_per_line() {
        // Correctness of the fast path: the block still comes out whole.
        let code: String = (0..2_000).map(|i| format!("line {i}\n\n")).collect();
        let document = format!("```\n{code}```\nafter\n");
        let mut stream = Stream::new();
        let mut chunks = Vec::new();
        for line in document.split_inclusive('\n') {
            chunks.extend(stream.push(line));
        }
        assert_eq!(chunks, [format!("```\n{code}```\n")]);
        assert_eq!(stream.finish(), "after\n");
    }
}
