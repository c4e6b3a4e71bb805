//! The model's Markdown, rendered for a terminal: headings and **strong**
//! text bold, *emphasis* italic, `code` and code blocks set apart, lists
//! with bullets, quotes with a bar, links with their address. Parsing is
//! pulldown-cmark's (CommonMark); this module only chooses the escapes.
//!
//! Streamed text is rendered a block at a time ([`Stream`]): a paragraph is
//! printed when the blank line after it arrives, a code block when its fence
//! closes, so nothing is shown twice and nothing waits for the whole answer.
//! Used only when stdout is a terminal and colour is on; piped output stays
//! the model's text, byte for byte.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

const BOLD: &str = "\x1b[1m";
const ITALIC: &str = "\x1b[3m";
const UNDERLINE: &str = "\x1b[4m";
const DIM: &str = "\x1b[2m";
const CODE: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

/// Renders a whole Markdown text for a terminal.
pub fn render(markdown: &str) -> String {
    let mut r = Renderer::default();
    let options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS | Options::ENABLE_TABLES;
    for event in Parser::new_ext(markdown, options) {
        r.event(event);
    }
    r.finish()
}

#[derive(Default)]
struct Renderer {
    out: String,
    /// Escapes in force, innermost last (re-applied after a reset).
    styles: Vec<&'static str>,
    /// Open lists: the next number of an ordered one, None for bullets.
    lists: Vec<Option<u64>>,
    /// Blockquote depth.
    quotes: usize,
    in_code_block: bool,
    /// A link's address, printed after its text.
    links: Vec<String>,
    /// Whether the next text starts a line (and needs the prefix).
    line_start: bool,
}

impl Renderer {
    fn push_style(&mut self, style: &'static str) {
        self.styles.push(style);
        self.out.push_str(style);
    }

    fn pop_style(&mut self) {
        self.styles.pop();
        self.out.push_str(RESET);
        for s in &self.styles {
            self.out.push_str(s);
        }
    }

    /// Ends the current block with one blank line after it.
    fn end_block(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        if self.lists.is_empty() && !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
        self.line_start = true;
    }

    fn prefix(&mut self) {
        if !self.line_start {
            return;
        }
        self.line_start = false;
        for _ in 0..self.quotes {
            self.out.push_str(DIM);
            self.out.push_str("│ ");
            self.out.push_str(RESET);
            for s in &self.styles {
                self.out.push_str(s);
            }
        }
        if self.in_code_block {
            self.out.push_str("    ");
        }
    }

    fn text(&mut self, text: &str) {
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                self.out.push('\n');
                self.line_start = true;
                // A list item's continuation lines line up with its text.
                if !self.in_code_block && !self.lists.is_empty() {
                    self.prefix();
                    self.out.push_str(&"   ".repeat(self.lists.len()));
                }
            }
            if !line.is_empty() {
                self.prefix();
                self.out.push_str(line);
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                self.prefix();
                self.push_style(CODE);
                self.out.push_str(&t);
                self.pop_style();
            }
            Event::SoftBreak => self.text("\n"),
            Event::HardBreak => self.text("\n"),
            Event::Rule => {
                self.prefix();
                self.out.push_str(DIM);
                self.out.push_str(&"─".repeat(40));
                self.out.push_str(RESET);
                self.end_block();
            }
            Event::TaskListMarker(done) => {
                self.out.push_str(if done { "[x] " } else { "[ ] " });
            }
            Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
            Event::FootnoteReference(t) => self.text(&format!("[{t}]")),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.prefix();
                self.push_style(BOLD);
                if level == HeadingLevel::H1 {
                    self.push_style(UNDERLINE);
                }
            }
            Tag::Strong => self.push_style(BOLD),
            Tag::Emphasis => self.push_style(ITALIC),
            Tag::Strikethrough => self.push_style("\x1b[9m"),
            Tag::BlockQuote(_) => {
                self.quotes += 1;
                self.line_start = true;
            }
            Tag::CodeBlock(kind) => {
                self.line_start = true;
                if let CodeBlockKind::Fenced(lang) = kind
                    && !lang.is_empty()
                {
                    self.prefix();
                    self.out.push_str(DIM);
                    self.out.push_str(&lang);
                    self.out.push_str(RESET);
                    self.out.push('\n');
                    self.line_start = true;
                }
                self.in_code_block = true;
                self.push_style(CODE);
            }
            Tag::List(first) => {
                if !self.lists.is_empty() && !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
                self.lists.push(first);
                self.line_start = true;
            }
            Tag::Item => {
                self.line_start = true;
                self.prefix();
                let depth = self.lists.len().saturating_sub(1);
                self.out.push_str(&"   ".repeat(depth));
                match self.lists.last_mut() {
                    Some(Some(n)) => {
                        self.out.push_str(&format!("{n}. "));
                        *n += 1;
                    }
                    _ => self.out.push_str("• "),
                }
            }
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(UNDERLINE);
            }
            Tag::Paragraph
            | Tag::Table(_)
            | Tag::TableHead
            | Tag::TableRow
            | Tag::TableCell
            | Tag::HtmlBlock
            | Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(level) => {
                self.pop_style();
                if level == HeadingLevel::H1 {
                    self.pop_style();
                }
                self.end_block();
            }
            TagEnd::Strong | TagEnd::Emphasis | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Paragraph if self.lists.is_empty() => self.end_block(),
            TagEnd::BlockQuote(_) => {
                self.quotes = self.quotes.saturating_sub(1);
                self.end_block();
            }
            TagEnd::CodeBlock => {
                // The block's text ends with its last newline.
                let end = self.out.trim_end_matches(['\n', ' ']).len();
                self.out.truncate(end);
                self.pop_style();
                self.in_code_block = false;
                self.out.push('\n');
                self.end_block();
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.end_block();
            }
            TagEnd::Item => {
                if !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
                self.line_start = true;
            }
            TagEnd::Link | TagEnd::Image => {
                self.pop_style();
                if let Some(url) = self.links.pop() {
                    self.out.push_str(DIM);
                    self.out.push_str(&format!(" ({url})"));
                    self.out.push_str(RESET);
                }
            }
            TagEnd::TableCell => self.out.push_str("  "),
            TagEnd::TableHead | TagEnd::TableRow => {
                self.out.push('\n');
                self.line_start = true;
            }
            TagEnd::Table => self.end_block(),
            _ => {}
        }
    }

    fn finish(mut self) -> String {
        let end = self.out.trim_end_matches('\n').len();
        self.out.truncate(end);
        self.out
    }
}

/// Streamed Markdown, rendered a block at a time.
#[derive(Debug, Default)]
pub struct Stream {
    pending: String,
}

impl Stream {
    /// Takes a piece of streamed text; returns what is ready to print: the
    /// complete blocks so far, rendered, each ending with a blank line.
    pub fn push(&mut self, text: &str) -> String {
        self.pending.push_str(text);
        let Some(end) = ready_prefix(&self.pending) else {
            return String::new();
        };
        let ready: String = self.pending.drain(..end).collect();
        let mut out = render(&ready);
        out.push_str("\n\n");
        out
    }

    /// The rest at the end of the message, rendered.
    pub fn finish(&mut self) -> String {
        let rest = std::mem::take(&mut self.pending);
        if rest.trim().is_empty() {
            return String::new();
        }
        let mut out = render(&rest);
        out.push('\n');
        out
    }
}

/// The length of the longest prefix of `text` that ends at a blank line
/// outside a code fence and outside a list (whose items may continue after
/// a blank line): blocks that later text cannot change.
fn ready_prefix(text: &str) -> Option<usize> {
    let mut in_fence: Option<&str> = None;
    let mut ready = None;
    let mut offset = 0;
    let mut previous_blank = true;
    let mut in_list = false;
    for line in text.split_inclusive('\n') {
        let complete = line.ends_with('\n');
        let trimmed = line.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
        match (in_fence, fence) {
            (None, Some(f)) => in_fence = Some(f),
            (Some(open), Some(f)) if f == open && trimmed.trim_end() == f => in_fence = None,
            _ => {}
        }
        let blank = line.trim().is_empty();
        if in_fence.is_none() && !blank {
            let item = trimmed.starts_with(['-', '*', '+'])
                || trimmed
                    .split_once(['.', ')'])
                    .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            if previous_blank {
                in_list = item;
            } else {
                in_list |= item;
            }
        }
        offset += line.len();
        if complete && blank && in_fence.is_none() && !in_list && !previous_blank {
            ready = Some(offset);
        }
        previous_blank = blank;
    }
    ready
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn the_common_shapes_render() {
        let md = "# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n```rust\nfn main() {}\n```\n\n> quoted\n\nSee [docs](https://x.dev).";
        let out = render(md);
        assert!(out.contains(&format!("{BOLD}{UNDERLINE}Title")), "{out:?}");
        assert!(out.contains(&format!("{BOLD}bold{RESET}")), "{out:?}");
        assert!(out.contains(&format!("{CODE}code{RESET}")), "{out:?}");
        assert_eq!(
            plain(&out),
            "Title\n\nSome bold and code.\n\n• one\n• two\n\n1. first\n2. second\n\nrust\n    fn main() {}\n\n│ quoted\n\nSee docs (https://x.dev)."
        );
    }

    #[test]
    fn a_stream_prints_each_block_once_when_it_is_complete() {
        let mut s = Stream::default();
        let mut shown = String::new();
        for piece in [
            "Hello **wor",
            "ld**.\n",
            "\n```\ncode\n\nmore",
            "\n```\n\nEnd",
            ".",
        ] {
            shown.push_str(&s.push(piece));
        }
        // The open paragraph "End." waits for the end of the message.
        assert!(!plain(&shown).contains("End"), "{shown:?}");
        shown.push_str(&s.finish());
        assert_eq!(
            plain(&shown),
            "Hello world.\n\n    code\n\n    more\n\nEnd.\n"
        );
    }

    #[test]
    fn a_list_is_held_until_it_ends() {
        assert_eq!(ready_prefix("- a\n\n- b\n"), None);
        assert_eq!(ready_prefix("- a\n- b\n\npara\n\n"), Some(15));
        assert_eq!(ready_prefix("para\n\n"), Some(6));
        assert_eq!(ready_prefix("```\nx\n\n"), None);
    }
}
