//! Bounds on what checking one command may cost: its size, how deep it can
//! nest, how many words it has, how many bytes the parsers read for it and
//! for how long.
//!
//! brush-parser has no bounds of its own, and a single tool call could take
//! tack down through it:
//! - its recursive descent uses stack in proportion to nesting (a few
//!   hundred `{ ` exhaust a 2 MiB thread), and a stack overflow aborts the
//!   process: `catch_unwind` cannot catch it;
//! - its tokenizer never returns when the input ends while a here-document
//!   is pending (`x <<'' $(`), allocating until memory runs out;
//! - its word parser backtracks exponentially on array subscripts nested in
//!   `${…}` and on substitutions left open (`${a[${a[${a[…]}]}]}`, `$($($(`);
//! - and the analysis itself reads nested words and scripts again at every
//!   level, which is quadratic in nesting (`${x:-${x:-…}}`).
//!
//! So before text reaches the parser: a size limit; a scan that bounds how
//! deep the text can nest, from which the stack is grown to fit (`stacker`)
//! or the text refused; a line end after a script that holds a
//! here-document operator, so the tokenizer never meets the end of input
//! with one pending; a check of each word's shape against the backtracking
//! cases; and one budget per command of tokens, bytes parsed and time.
//! Beyond any bound the command is uncertain (ask), with a reason naming
//! the bound.

use std::time::Duration;

use brush_parser::Token;

/// Longest command checked (the Write tool takes large files).
pub(crate) const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Tokens the shell parser may read for one command, all scripts together.
const MAX_TOKENS: usize = 4 * 1024;
/// Constructs that may nest, in one script or one word, before it is refused
/// (an upper bound on its depth: each counts as a level).
const MAX_NESTING: usize = 1024;
/// Array subscripts nested in `${…}` (each level multiplies the word
/// parser's work by about 26).
const MAX_SUBSCRIPT_NESTING: usize = 2;
/// `(` in a row: the shell parser tries `((` as arithmetic and again as
/// two subshells, so each one in a row doubles its work.
const MAX_PARENS_IN_A_ROW: usize = 8;
/// `((` open at once: each one the parser has not seen closed may be
/// arithmetic or two subshells, and it tries both (with anything between
/// them, `((<<((<<…`), so the work grows fourfold per level.
const MAX_OPEN_DOUBLE_PARENS: usize = 6;
/// `name[` left open in one word: the shell parser's work doubles with each
/// (`a[$()` 24 times took 16 s, 28 times 4 minutes).
const MAX_OPEN_SUBSCRIPTS: usize = 8;
/// Bytes handed to the parsers for one command: the command once, its words
/// again, nested scripts and words again at each level. Linear in the
/// command: [`PARSED_BYTES_PER_BYTE`] times its length, plus a floor that
/// small commands never reach.
const PARSED_BYTES_PER_BYTE: usize = 6;
const PARSED_BYTES_FLOOR: usize = 16 * 1024;
/// Time one command may take to check.
const MAX_TIME: Duration = Duration::from_millis(200);
/// Stack kept free for a parse, and per level it may nest (the parser's
/// frames take up to ~24 KiB per level in a debug build).
const STACK_BASE: usize = 256 * 1024;
const STACK_PER_LEVEL: usize = 32 * 1024;

/// CPU time this thread has used: a check is bounded by its own work, so
/// a loaded machine does not turn an ordinary command into "ask".
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// What is left of a command's budget.
pub(crate) struct Budget {
    tokens: usize,
    bytes: usize,
    /// This thread's CPU time when the check must end.
    deadline: Duration,
    /// A bound was met: nothing more is parsed.
    spent: bool,
}

/// Why text was not parsed.
pub(crate) enum Refusal {
    /// Over a bound: the reason, said once.
    Bound(String),
    /// The budget was spent earlier (already reported).
    Spent,
}

impl Budget {
    /// The budget of a command `len` bytes long.
    pub(crate) fn new(len: usize) -> Budget {
        Budget {
            tokens: MAX_TOKENS,
            bytes: PARSED_BYTES_FLOOR + PARSED_BYTES_PER_BYTE * len.min(MAX_COMMAND_BYTES),
            deadline: thread_cpu() + MAX_TIME,
            spent: false,
        }
    }

    /// A budget whose time ran out before it began.
    #[cfg(test)]
    pub(crate) fn out_of_time() -> Budget {
        Budget {
            deadline: Duration::ZERO,
            ..Budget::new(0)
        }
    }

    fn refuse(&mut self, reason: String) -> Refusal {
        self.spent = true;
        Refusal::Bound(reason)
    }

    /// Whether there is time left: checked where text is parsed and before
    /// each command line is read, so no part of the analysis outlasts it.
    pub(crate) fn check_time(&mut self) -> Result<(), Refusal> {
        if self.spent {
            return Err(Refusal::Spent);
        }
        if thread_cpu() > self.deadline {
            return Err(self.refuse(format!(
                "checking it took longer than {} ms",
                MAX_TIME.as_millis()
            )));
        }
        Ok(())
    }

    /// Count `len` bytes about to be parsed.
    fn charge(&mut self, len: usize) -> Result<(), Refusal> {
        self.check_time()?;
        match self.bytes.checked_sub(len) {
            Some(left) => {
                self.bytes = left;
                Ok(())
            }
            None => Err(self.refuse(format!(
                "it nests too much to check: its nested words and scripts would be read again more than {PARSED_BYTES_PER_BYTE} times over"
            ))),
        }
    }

    fn charge_tokens(&mut self, n: usize) -> Result<(), Refusal> {
        match self.tokens.checked_sub(n) {
            Some(left) => {
                self.tokens = left;
                Ok(())
            }
            None => Err(self.refuse(format!(
                "it has too many words and operators to check (more than {MAX_TOKENS})"
            ))),
        }
    }
}

/// Refuse a command longer than [`MAX_COMMAND_BYTES`].
pub(crate) fn check_size(command: &str) -> Result<(), String> {
    if command.len() > MAX_COMMAND_BYTES {
        return Err(format!(
            "it is too long to check ({} KiB; the limit is {} KiB): write large files with the Write tool",
            command.len().div_ceil(1024),
            MAX_COMMAND_BYTES / 1024
        ));
    }
    Ok(())
}

/// Run `f` with room on the stack for `levels` levels of nesting, on a
/// larger stack when the current one has too little left.
pub(crate) fn with_stack<R>(levels: usize, f: impl FnOnce() -> R) -> R {
    let need = STACK_BASE + levels.saturating_mul(STACK_PER_LEVEL);
    stacker::maybe_grow(need, need, f)
}

fn nesting_error(levels: usize) -> String {
    format!("it nests too deeply to check ({levels} levels may nest; the limit is {MAX_NESTING})")
}

/// Tokenize a script, within the budget. Returns the tokens.
pub(crate) fn tokenize(
    src: &str,
    opts: &brush_parser::ParserOptions,
    budget: &mut Budget,
) -> Result<Vec<Token>, Refusal> {
    if let Err(reason) = check_size(src) {
        return Err(budget.refuse(reason));
    }
    budget.charge(src.len())?;
    let estimate = token_estimate(src);
    if estimate > budget.tokens.saturating_mul(2) {
        return Err(budget.refuse(format!(
            "it has too many words and operators to check (about {estimate}; the limit is {MAX_TOKENS})"
        )));
    }
    // The tokenizer recurses into `$(…)`, `${…}` and `$[…]`.
    let substitutions = substitution_count(src);
    if substitutions > MAX_NESTING {
        return Err(budget.refuse(nesting_error(substitutions)));
    }
    // At the end of input with a here-document pending (no line end after
    // its operator yet) the tokenizer loops forever. Two line ends (one
    // may continue a trailing backslash) settle every pending one; they
    // change nothing else a script means.
    let text = if src.contains("<<") {
        std::borrow::Cow::Owned(format!("{src}\n\n"))
    } else {
        std::borrow::Cow::Borrowed(src)
    };
    let options = opts.tokenizer_options();
    let result = with_stack(substitutions, || {
        std::panic::catch_unwind(|| brush_parser::uncached_tokenize_str(&text, &options))
    });
    let tokens = match result {
        Ok(Ok(tokens)) => tokens,
        Ok(Err(e)) => {
            return Err(Refusal::Bound(format!(
                "the shell parser cannot read it ({e})"
            )));
        }
        Err(_) => return Err(Refusal::Bound("the shell parser failed on it".into())),
    };
    budget.charge_tokens(tokens.len())?;
    Ok(tokens)
}

/// How deep the shell parser may recurse on these tokens (an upper bound:
/// every construct that can nest counts, nested or not), or a refusal.
pub(crate) fn token_nesting(tokens: &[Token], budget: &mut Budget) -> Result<usize, Refusal> {
    let mut levels = 0usize;
    let mut in_test = false;
    let mut parens = 0usize;
    // For each `(` still open: whether it followed another `(` (a `((`).
    let mut open: Vec<bool> = Vec::new();
    let mut open_doubles = 0usize;
    for t in tokens {
        match t {
            Token::Operator(op, _) if op == "(" => {
                let double = parens > 0;
                open.push(double);
                open_doubles += usize::from(double);
                if open_doubles > MAX_OPEN_DOUBLE_PARENS {
                    return Err(Refusal::Bound(format!(
                        "more than {MAX_OPEN_DOUBLE_PARENS} `((` left open are too ambiguous to check"
                    )));
                }
            }
            Token::Operator(op, _) if op == ")" && open.pop() == Some(true) => {
                open_doubles -= 1;
            }
            _ => {}
        }
        if matches!(t, Token::Operator(op, _) if op == "(") {
            parens += 1;
            if parens > MAX_PARENS_IN_A_ROW {
                return Err(Refusal::Bound(format!(
                    "more than {MAX_PARENS_IN_A_ROW} `(` in a row are too ambiguous to check"
                )));
            }
        } else {
            parens = 0;
        }
        let opens = match t {
            Token::Operator(op, _) => op == "(" || (in_test && matches!(op.as_str(), "&&" | "||")),
            Token::Word(w, _) => {
                let open = open_subscripts(w);
                if open > MAX_OPEN_SUBSCRIPTS {
                    return Err(Refusal::Bound(format!(
                        "a word leaves {open} `name[` open; the limit is {MAX_OPEN_SUBSCRIPTS}"
                    )));
                }
                match w.as_str() {
                    "[[" => in_test = true,
                    "]]" => in_test = false,
                    _ => {}
                }
                matches!(
                    w.as_str(),
                    "{" | "if"
                        | "case"
                        | "for"
                        | "select"
                        | "while"
                        | "until"
                        | "function"
                        | "coproc"
                        | "[["
                        | "!"
                )
            }
        };
        levels += usize::from(opens);
    }
    if levels > MAX_NESTING {
        return Err(budget.refuse(nesting_error(levels)));
    }
    Ok(levels)
}

/// The shape of a word as brush-parser's word parser will read it: how
/// deep it may recurse and whether it is one the parser backtracks on
/// exponentially.
pub(crate) fn check_word(raw: &str, heredoc: bool, budget: &mut Budget) -> Result<usize, Refusal> {
    budget.charge(raw.len())?;
    let shape = word_shape(raw, heredoc);
    if shape.levels > MAX_NESTING {
        return Err(budget.refuse(nesting_error(shape.levels)));
    }
    if shape.subscripts > MAX_SUBSCRIPT_NESTING {
        return Err(Refusal::Bound(format!(
            "array subscripts nest {} deep in `${{…}}`; the limit is {MAX_SUBSCRIPT_NESTING}",
            shape.subscripts
        )));
    }
    if shape.unclosed {
        return Err(Refusal::Bound(
            "a substitution (`$(`, `${`, `$((`, `$[` or a backquote) is not closed".into(),
        ));
    }
    Ok(shape.levels)
}

/// A rough count of tokens: operator characters and runs of blanks, quoted
/// or not, leaving out the bodies of here-documents (one token each). It
/// only decides whether tokenizing is worth it: the tokens are counted
/// exactly after.
fn token_estimate(src: &str) -> usize {
    let mut n = 0usize;
    let mut blank = false;
    let mut pending: Vec<(String, bool)> = Vec::new();
    let mut lines = src.split_inclusive('\n');
    while let Some(line) = lines.next() {
        for (k, b) in line.bytes().enumerate() {
            let is_blank = matches!(b, b' ' | b'\t');
            if is_blank && !blank {
                n += 1;
            }
            blank = is_blank;
            n += usize::from(matches!(
                b,
                b';' | b'&' | b'|' | b'\n' | b'(' | b')' | b'<' | b'>'
            ));
            if b == b'<'
                && line[k..].starts_with("<<")
                && !line[k..].starts_with("<<<")
                && (k == 0 || line.as_bytes()[k - 1] != b'<')
            {
                let rest = &line[k + 2..];
                let tabs = rest.starts_with('-');
                let word: String = rest
                    .trim_start_matches('-')
                    .trim_start_matches([' ', '\t'])
                    .chars()
                    .take_while(|c| {
                        !matches!(
                            c,
                            ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
                        )
                    })
                    .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                    .collect();
                if !word.is_empty() {
                    pending.push((word, tabs));
                }
            }
        }
        // The bodies start on the next line, one after the other.
        for (delimiter, tabs) in std::mem::take(&mut pending) {
            for body in lines.by_ref() {
                let body = body.trim_end_matches('\n');
                let body = if tabs {
                    body.trim_start_matches('\t')
                } else {
                    body
                };
                if body == delimiter {
                    break;
                }
            }
        }
    }
    n
}

/// `[` after a name character that no `]` closes, quoted or not.
fn open_subscripts(word: &str) -> usize {
    let mut open = 0usize;
    let mut prev = b' ';
    for b in word.bytes() {
        match b {
            b'[' if prev.is_ascii_alphanumeric() || prev == b'_' => open += 1,
            b']' => open = open.saturating_sub(1),
            _ => {}
        }
        prev = b;
    }
    open
}

/// `$(`, `${` and `$[` anywhere, quoted or not.
fn substitution_count(src: &str) -> usize {
    src.as_bytes()
        .windows(2)
        .filter(|w| w[0] == b'$' && matches!(w[1], b'(' | b'{' | b'['))
        .count()
}

#[derive(Debug, Default, PartialEq, Eq)]
struct WordShape {
    /// Constructs that may nest (an upper bound on the recursion depth).
    levels: usize,
    /// Deepest nesting of array subscripts inside `${…}`.
    subscripts: usize,
    /// A substitution is left open (the parser then retries every way to
    /// read what follows it, at every level).
    unclosed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `$(`
    Command,
    /// `$((`
    Arithmetic,
    /// `${`
    Parameter,
    /// `[` inside `${`
    Subscript,
    /// `$[`
    LegacyArithmetic,
    /// `(` inside `$(…)` or arithmetic
    Paren,
    /// `"`
    Quoted,
}

/// Scan a word the way brush-parser's word grammar nests: `'…'` and
/// `$'…'` are literal (when closed) outside double quotes, `\` escapes the
/// next character, backquotes run to the next unescaped backquote; in a
/// here-document body quotes are literal. A closer only closes the frame
/// it belongs to.
fn word_shape(raw: &str, heredoc: bool) -> WordShape {
    let b = raw.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut shape = WordShape::default();
    let mut subscripts = 0usize;
    let mut i = 0;
    let find = |from: usize, quote: u8, escapes: bool| -> Option<usize> {
        let mut j = from;
        while j < b.len() {
            if escapes && b[j] == b'\\' {
                j += 2;
                continue;
            }
            if b[j] == quote {
                return Some(j);
            }
            j += 1;
        }
        None
    };
    while i < b.len() {
        let top = stack.last().copied();
        let in_quotes = top == Some(Frame::Quoted);
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'\\' => {
                i += 2;
                continue;
            }
            b'\'' if !heredoc && !in_quotes => {
                if let Some(end) = find(i + 1, b'\'', false) {
                    i = end + 1;
                    continue;
                }
            }
            b'`' => match find(i + 1, b'`', true) {
                Some(end) => {
                    i = end + 1;
                    continue;
                }
                None => shape.unclosed = true,
            },
            b'"' if !heredoc => {
                if in_quotes {
                    stack.pop();
                } else {
                    stack.push(Frame::Quoted);
                }
            }
            b'$' => match next {
                Some(b'\'') if !heredoc && !in_quotes => {
                    if let Some(end) = find(i + 2, b'\'', true) {
                        i = end + 1;
                        continue;
                    }
                }
                Some(b'(') if b.get(i + 2) == Some(&b'(') => {
                    stack.push(Frame::Arithmetic);
                    shape.levels += 1;
                    i += 3;
                    continue;
                }
                Some(b'(') => {
                    stack.push(Frame::Command);
                    shape.levels += 1;
                    i += 2;
                    continue;
                }
                Some(b'{') => {
                    stack.push(Frame::Parameter);
                    shape.levels += 1;
                    i += 2;
                    continue;
                }
                Some(b'[') => {
                    stack.push(Frame::LegacyArithmetic);
                    shape.levels += 1;
                    i += 2;
                    continue;
                }
                _ => {}
            },
            b'(' if matches!(
                top,
                Some(Frame::Command | Frame::Arithmetic | Frame::LegacyArithmetic | Frame::Paren)
            ) =>
            {
                stack.push(Frame::Paren);
                shape.levels += 1;
            }
            b'[' if top == Some(Frame::Parameter) => {
                stack.push(Frame::Subscript);
                subscripts += 1;
                shape.subscripts = shape.subscripts.max(subscripts);
            }
            b')' if top == Some(Frame::Arithmetic) && next == Some(b')') => {
                stack.pop();
                i += 2;
                continue;
            }
            b')' if matches!(top, Some(Frame::Command | Frame::Paren)) => {
                stack.pop();
            }
            b'}' if top == Some(Frame::Parameter) => {
                stack.pop();
            }
            b']' if top == Some(Frame::Subscript) => {
                stack.pop();
                subscripts -= 1;
            }
            b']' if top == Some(Frame::LegacyArithmetic) => {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    shape.unclosed |= stack.iter().any(|f| *f != Frame::Quoted);
    shape
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(raw: &str) -> WordShape {
        word_shape(raw, false)
    }

    #[test]
    fn balanced_words_are_readable() {
        for w in [
            "plain",
            "\"$(ls \"$x\")\"",
            "${x:-\"}\"}",
            "${a[1]}${b[$i]}",
            "$(( (1 + 2) * 3 ))",
            "'$(' and '${'",
            "$'it\\'s $('",
            "`echo \\`x\\``",
            "\\$(",
        ] {
            let s = shape(w);
            assert!(!s.unclosed, "{w}: {s:?}");
            assert!(s.subscripts <= MAX_SUBSCRIPT_NESTING, "{w}: {s:?}");
        }
    }

    #[test]
    fn backtracking_shapes_are_caught() {
        assert!(shape("$($($(x").unclosed);
        assert!(shape("${x:-${x:-'}'").unclosed);
        assert!(shape("$(( $(( x").unclosed);
        assert!(shape("`x").unclosed);
        assert_eq!(shape("${a[${a[${a[x]}]}]}").subscripts, 3);
        assert!(word_shape("$(", true).unclosed);
        // In a here-document body a quote hides nothing.
        assert!(word_shape("'$('", true).unclosed);
    }

    #[test]
    fn nesting_counts_every_level() {
        assert_eq!(shape("${x:-${x:-${x}}}").levels, 3);
        assert_eq!(substitution_count("$($(${x}))"), 3);
        assert!(token_estimate("ls; ls | wc -l") >= 6);
        let doc = format!(
            "cat <<'EOF' > f\n{}EOF\nls; ls\n",
            "a b; c | d\n".repeat(1000)
        );
        let n = token_estimate(&doc);
        assert!((8..20).contains(&n), "{n}");
    }
}
