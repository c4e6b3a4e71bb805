//! How session events read on the screen: a tool call as one line
//! (`● Bash(cargo test)`), its result collapsed to a line under it, the
//! conversation of a resumed session, the status line's figures. Pure
//! functions of the data, so they are tested without a terminal.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use tack_protocol::{ContentBlock, Message, Role, ToolOutcome};

/// Styles, or none at all (`NO_COLOR`).
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn style(self, style: Style) -> Style {
        if self.color { style } else { Style::default() }
    }
    pub fn dim(self) -> Style {
        self.style(Style::default().add_modifier(Modifier::DIM))
    }
    pub fn bold(self) -> Style {
        self.style(Style::default().add_modifier(Modifier::BOLD))
    }
    pub fn fg(self, color: Color) -> Style {
        self.style(Style::default().fg(color))
    }
    pub fn span(self, text: impl Into<String>, style: Style) -> Span<'static> {
        Span::styled(text.into(), self.style(style))
    }
}

/// The input of a call in a few words: the command, the file, the pattern.
pub fn summarize(name: &str, input: &Value) -> String {
    let field = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_owned);
    let main = match name {
        "Bash" => field("command"),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            field("file_path").or_else(|| field("notebook_path"))
        }
        "Grep" => field("pattern").map(|p| match field("path") {
            Some(path) => format!("{p} in {path}"),
            None => p,
        }),
        "Glob" => field("pattern"),
        "WebFetch" => field("url"),
        "WebSearch" => field("query"),
        "Agent" | "Task" => field("description"),
        "Skill" => field("skill"),
        "BashOutput" | "KillShell" => field("bash_id").or_else(|| field("shell_id")),
        _ => None,
    };
    let text = main.unwrap_or_else(|| {
        let compact = input.to_string();
        if compact == "{}" {
            String::new()
        } else {
            compact
        }
    });
    one_line(&text, 160)
}

/// `text` without escape sequences and control characters: a line from
/// stderr is shown as text, never interpreted by the terminal.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                match chars.next() {
                    // CSI: parameters, then a final byte in @..~.
                    Some('[') => {
                        for c in chars.by_ref() {
                            if ('@'..='~').contains(&c) {
                                break;
                            }
                        }
                    }
                    // OSC, DCS and the like: up to BEL or ESC \.
                    Some(']' | 'P' | '_' | '^') => {
                        while let Some(c) = chars.next() {
                            if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                                break;
                            }
                        }
                    }
                    _ => {}
                }
            }
            '\t' => out.push_str("    "),
            c if c.is_control() => {}
            // Bidirectional overrides and isolates reorder what is shown.
            '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    out
}

/// `text` wrapped to rows of at most `width` columns (by character, at
/// line breaks too), shown as text.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for line in text.split('\n') {
        let line = plain(line);
        let mut row = String::new();
        let mut used = 0;
        for c in line.chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > width && !row.is_empty() {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            row.push(c);
            used += w;
        }
        rows.push(row);
    }
    rows
}

/// `text` on one line, at most `max` characters (an ellipsis says it was cut).
pub fn one_line(text: &str, max: usize) -> String {
    let flat = plain(&text.replace(['\n', '\r', '\t'], " "));
    let flat = flat.trim();
    if flat.chars().count() <= max {
        return flat.to_owned();
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The line that says a call started: `● Bash(cargo test)`.
pub fn call_line(theme: Theme, name: &str, summary: &str) -> Line<'static> {
    let mut spans = vec![
        theme.span("● ", Style::default().fg(Color::Cyan)),
        theme.span(
            name.to_owned(),
            Style::default().add_modifier(Modifier::BOLD),
        ),
    ];
    if !summary.is_empty() {
        spans.push(Span::raw(format!("({summary})")));
    }
    Line::from(spans)
}

/// What the scrollback keeps of a result: its first line and how much more
/// there is, `Ctrl-O` expands it.
pub fn result_line(
    theme: Theme,
    outcome: ToolOutcome,
    is_error: bool,
    text: &str,
    duration_ms: u64,
) -> Line<'static> {
    let lines = text.lines().count();
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut shown = one_line(first, 100);
    if shown.is_empty() {
        shown = match outcome {
            ToolOutcome::Ok => "(no output)".into(),
            other => format!("({})", format!("{other:?}").to_lowercase()),
        };
    }
    let style = if is_error {
        Style::default().fg(Color::Red)
    } else {
        Style::default()
    };
    let mut spans = vec![
        theme.span("  ⎿ ", Style::default().add_modifier(Modifier::DIM)),
        theme.span(shown, style),
    ];
    let mut more = Vec::new();
    if lines > 1 {
        more.push(format!("{lines} lines"));
    }
    if duration_ms >= 1000 {
        more.push(format!("{:.1}s", duration_ms as f64 / 1000.0));
    }
    if lines > 1 {
        more.push("ctrl+o expands".into());
    }
    if !more.is_empty() {
        spans.push(theme.span(
            format!("  ({})", more.join(", ")),
            Style::default().add_modifier(Modifier::DIM),
        ));
    }
    Line::from(spans)
}

/// A resumed conversation, shortened: each prompt, each answer's text and
/// each call on a line; the newest `keep` messages, with a count of the rest.
pub fn conversation(theme: Theme, messages: &[Message], keep: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let skip = messages.len().saturating_sub(keep);
    if skip > 0 {
        lines.push(Line::styled(
            format!("… {skip} earlier message(s)"),
            theme.dim(),
        ));
    }
    for message in &messages[skip..] {
        for block in &message.content {
            match (message.role, block) {
                (Role::User, ContentBlock::Text(t)) => lines.push(Line::from(vec![
                    theme.span("› ", Style::default().fg(Color::Cyan)),
                    Span::raw(one_line(&t.text, 200)),
                ])),
                (Role::Assistant, ContentBlock::Text(t)) => {
                    lines.push(Line::raw(one_line(&t.text, 200)));
                }
                (Role::Assistant, ContentBlock::ToolUse(u)) => {
                    lines.push(call_line(theme, &u.name, &summarize(&u.name, &u.input)));
                }
                _ => {}
            }
        }
    }
    lines
}

/// `12.3k`.
pub fn short_tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0).replace(".0k", "k"),
        _ => format!("{:.2}M", n as f64 / 1_000_000.0).replace(".00M", "M"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_call_is_summarised_by_what_matters_for_its_tool() {
        assert_eq!(
            summarize("Bash", &json!({"command": "cargo test\n  --all"})),
            "cargo test   --all"
        );
        assert_eq!(
            summarize("Read", &json!({"file_path": "/a/b.rs"})),
            "/a/b.rs"
        );
        assert_eq!(
            summarize("Grep", &json!({"pattern": "fn main", "path": "src"})),
            "fn main in src"
        );
        assert_eq!(summarize("mcp__x__y", &json!({"q": 1})), r#"{"q":1}"#);
        assert_eq!(summarize("TodoWrite", &json!({})), "");
        let long = "x".repeat(500);
        assert_eq!(
            summarize("Bash", &json!({ "command": long }))
                .chars()
                .count(),
            160
        );
    }

    #[test]
    fn a_result_is_one_line_with_its_length() {
        let theme = Theme { color: false };
        let line = result_line(theme, ToolOutcome::Ok, false, "a\nb\nc\n", 2500);
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "  ⎿ a  (3 lines, 2.5s, ctrl+o expands)");
        let empty = result_line(theme, ToolOutcome::Ok, false, "", 3);
        let text: String = empty.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "  ⎿ (no output)");
    }

    #[test]
    fn escapes_and_control_characters_are_dropped() {
        assert_eq!(
            plain("\x1b[33mWARN\x1b[0m tack: x\x07\tand y"),
            "WARN tack: x    and y"
        );
        assert_eq!(plain("\x1b]52;c;aGk=\x07copied"), "copied");
        assert_eq!(plain("\x1b]8;;http://x\x1b\\link"), "link");
        assert_eq!(one_line("a\nb\x1b[2Jc", 20), "a bc");
        assert_eq!(plain("rm -rf /\u{202e}txt.exe"), "rm -rf /txt.exe");
    }

    #[test]
    fn wrap_keeps_every_character() {
        assert_eq!(wrap("abcdef", 4), ["abcd", "ef"]);
        assert_eq!(wrap("ab\ncd", 10), ["ab", "cd"]);
        assert_eq!(wrap("中文字", 4), ["中文", "字"]);
    }

    #[test]
    fn tokens_are_short() {
        assert_eq!(short_tokens(999), "999");
        assert_eq!(short_tokens(12_345), "12.3k");
        assert_eq!(short_tokens(2_500_000), "2.50M");
        assert_eq!(short_tokens(200_000), "200k");
        assert_eq!(short_tokens(1_000_000), "1M");
    }
}
