//! What the program threw, as a [`ScriptError`] placed in the code as the
//! model wrote it (the engine's wrapper line taken off).

use rquickjs::{Coerced, Ctx, Object, Value};

use crate::error::ScriptError;
use crate::globals;

/// The file name the program's code is compiled under; its frames read
/// `code:LINE:COLUMN`.
pub(crate) const FILE: &str = "code";

/// What the wrapper puts before the program's first character, on the
/// same line: line numbers in the code and in the compiled source agree, and
/// only columns on the first line are shifted (by this prefix's length).
const PREFIX: &str = "(async function () {";

/// The program's code as the body of an async function (so that top-level
/// `await` and `return` work), evaluating to that function.
pub(crate) fn wrap(code: &str) -> String {
    // The closing line stays on its own so a `//` comment on the code's last
    // line does not swallow it.
    format!("{PREFIX}{code}\n}})")
}

/// Describes `thrown` (an error object, or any value a `throw` threw).
pub(crate) fn describe<'js>(ctx: &Ctx<'js>, thrown: &Value<'js>, code: &str) -> ScriptError {
    let Some(object) = thrown.as_object().filter(|_| thrown.is_error()) else {
        return ScriptError {
            name: "Error".to_owned(),
            message: format!(
                "(a thrown {}) {}",
                thrown.type_name(),
                globals::format_value_lossy(ctx, thrown)
            ),
            line: None,
            column: None,
            stack: Vec::new(),
            kind: None,
        };
    };
    let name = string_prop(object, "name").unwrap_or_else(|| "Error".to_owned());
    let message = string_prop(object, "message").unwrap_or_default();
    let kind = string_prop(object, "kind");
    let frames: Vec<Frame> = string_prop(object, "stack")
        .unwrap_or_default()
        .lines()
        .filter_map(|line| Frame::parse(line, code))
        .collect();
    let place = frames.iter().find_map(|f| f.place);
    ScriptError {
        name,
        message,
        line: place.map(|(line, _)| line),
        column: place.map(|(_, column)| column),
        stack: frames
            .into_iter()
            .take(ScriptError::MAX_FRAMES)
            .map(|f| f.text)
            .collect(),
        kind,
    }
}

fn string_prop(object: &Object<'_>, key: &str) -> Option<String> {
    object
        .get::<_, Option<Coerced<String>>>(key)
        .ok()
        .flatten()
        .map(|s| s.0)
}

/// One line of an error's `stack`, its place in the program's code (when it
/// is there) moved to the code's own numbering.
struct Frame {
    text: String,
    place: Option<(u32, u32)>,
}

impl Frame {
    /// `    at f (code:4:9)` → `at f (code:3:9)`; frames of the engine's own
    /// JavaScript are left out; blank lines give none.
    fn parse(line: &str, code: &str) -> Option<Frame> {
        let line = line.trim();
        if line.is_empty() || line.contains(globals::PRELUDE_FILE) {
            return None;
        }
        let marker = format!("{FILE}:");
        let Some(start) = find_location(line, &marker) else {
            return Some(Frame {
                text: line.to_owned(),
                place: None,
            });
        };
        let rest = &line[start + marker.len()..];
        let (line_no, rest) = split_number(rest)?;
        let rest = rest.strip_prefix(':')?;
        let (column, rest) = split_number(rest)?;
        let (line_no, column) = relocate(line_no, column, code);
        let text = format!("{}{marker}{line_no}:{column}{rest}", &line[..start]);
        Some(Frame {
            text,
            place: Some((line_no, column)),
        })
    }
}

/// Where `marker` starts as a location (after `(`, `at ` or at the start).
fn find_location(line: &str, marker: &str) -> Option<usize> {
    line.match_indices(marker).map(|(i, _)| i).find(|&i| {
        let before = &line[..i];
        before.is_empty() || before.ends_with('(') || before.ends_with(' ')
    })
}

fn split_number(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse().ok()?;
    Some((n, &s[end..]))
}

/// A place in the wrapped source as a place in `code`: a column on the
/// first line loses the wrapper's prefix; the wrapper's closing line is just
/// past the code's end (where an unclosed `{` is noticed).
pub(crate) fn relocate(line: u32, column: u32, code: &str) -> (u32, u32) {
    let code_lines = u32::try_from(code.split('\n').count()).unwrap_or(u32::MAX);
    let prefix = u32::try_from(PREFIX.len()).unwrap_or(0);
    if line > code_lines {
        let last = code.rsplit('\n').next().unwrap_or_default();
        let column = u32::try_from(last.chars().count()).unwrap_or(u32::MAX - 1) + 1;
        (code_lines, column)
    } else if line <= 1 {
        (1, column.saturating_sub(prefix).max(1))
    } else {
        (line, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_on_the_first_line_lose_the_wrappers_prefix() {
        let code = "a\nb\nc";
        let frame = Frame::parse("    at f (code:2:9)", code).unwrap();
        assert_eq!(frame.text, "at f (code:2:9)");
        assert_eq!(frame.place, Some((2, 9)));
        let frame = Frame::parse("    at code:1:25", code).unwrap();
        assert_eq!(frame.text, "at code:1:5");
        let native = Frame::parse("    at JSON.parse (native)", code).unwrap();
        assert_eq!(native.text, "at JSON.parse (native)");
        assert_eq!(native.place, None);
        assert!(Frame::parse("   ", code).is_none());
    }

    #[test]
    fn the_wrappers_closing_line_is_the_end_of_the_code() {
        assert_eq!(relocate(4, 1, "a\nbc\nxyz"), (3, 4));
        assert_eq!(relocate(1, 21, "a"), (1, 1));
    }
}
