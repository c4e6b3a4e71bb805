//! Whether a command line is one plain simple command, and its words: what
//! `sandbox.excludedCommands` may match. Stricter than the analyser on
//! purpose: anything that makes the line more than one program run with
//! fixed arguments (a list, a pipeline, a redirection, an assignment, a
//! substitution, a parameter, a glob or brace expansion) makes it no
//! simple command at all, so it runs inside the sandbox.

use brush_parser::ast;
use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource};

use super::{has_glob, limits, parse_tokens, words};

/// The words of `src` with quotes removed, when the whole of it is one
/// simple command of literal words; None otherwise.
pub(crate) fn simple_command_words(src: &str) -> Option<Vec<String>> {
    let opts = brush_parser::ParserOptions::default();
    let mut budget = limits::Budget::new(src.len());
    let tokens = limits::tokenize(src, &opts, &mut budget).ok()?;
    let levels = limits::token_nesting(&tokens, &mut budget).ok()?;
    limits::with_stack(levels, || {
        let program = parse_tokens(&tokens, &opts).ok()?;
        let [list] = program.complete_commands.as_slice() else {
            return None;
        };
        let [ast::CompoundListItem(and_or, ast::SeparatorOperator::Sequence)] = list.0.as_slice()
        else {
            return None;
        };
        if !and_or.additional.is_empty() {
            return None;
        }
        let pipeline = &and_or.first;
        if pipeline.bang || pipeline.timed.is_some() {
            return None;
        }
        let [ast::Command::Simple(sc)] = pipeline.seq.as_slice() else {
            return None;
        };
        if sc.prefix.is_some() {
            // Assignments (`LD_PRELOAD=x docker`) and redirections before it.
            return None;
        }
        let mut out = vec![literal(&sc.word_or_name.as_ref()?.value, &opts)?];
        for item in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                // `docker run -e X=1`: a word to the program.
                ast::CommandPrefixOrSuffixItem::Word(w)
                | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                    out.push(literal(&w.value, &opts)?);
                }
                ast::CommandPrefixOrSuffixItem::IoRedirect(_)
                | ast::CommandPrefixOrSuffixItem::ProcessSubstitution(..) => return None,
            }
        }
        Some(out)
    })
}

/// Every word of the command line `src` whose value is fixed before it runs
/// (quotes removed), the parameters in `vars` taking the values given
/// (`$CLAUDE_PROJECT_DIR` of a hook's line), in order; the other words and
/// the operators are left out. Empty when `src` cannot be read.
pub(crate) fn fixed_words(src: &str, vars: &[(&str, &str)]) -> Vec<String> {
    let opts = brush_parser::ParserOptions::default();
    let mut budget = limits::Budget::new(src.len());
    let Ok(tokens) = limits::tokenize(src, &opts, &mut budget) else {
        return Vec::new();
    };
    tokens
        .iter()
        .filter_map(|t| match t {
            brush_parser::Token::Word(w, _) => literal_with(w, &opts, vars),
            brush_parser::Token::Operator(..) => None,
        })
        .collect()
}

/// The fixed tails of the words of `src` whose start is computed when it
/// runs (`"$(pwd)/h/b.sh"`, `$ROOT/x.py`, `"$(git rev-parse
/// --show-toplevel)/h/e.sh"`): `h/b.sh`, `x.py`, `h/e.sh`, the path below
/// a directory the run computes.
pub(crate) fn computed_prefix_tails(src: &str) -> Vec<String> {
    let opts = brush_parser::ParserOptions::default();
    let mut budget = limits::Budget::new(src.len());
    let Ok(tokens) = limits::tokenize(src, &opts, &mut budget) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in &tokens {
        let brush_parser::Token::Word(w, _) = t else {
            continue;
        };
        if literal(w, &opts).is_some() || !w.contains('$') {
            continue;
        }
        let unquoted: String = w.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
        // After the last `)` or `}` of a substitution, or after `$NAME`.
        let after = match unquoted.rfind([')', '}']) {
            Some(k) => &unquoted[k + 1..],
            None => {
                let Some(k) = unquoted.rfind('$') else {
                    continue;
                };
                let rest = &unquoted[k + 1..];
                let name = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[name..]
            }
        };
        if let Some(tail) = after.strip_prefix('/')
            && !tail.is_empty()
            && !tail.contains(['$', '`', '*', '?', '['])
        {
            out.push(tail.to_owned());
        }
    }
    out
}

/// A word's value when it is fixed before running and expands to itself.
fn literal(raw: &str, opts: &brush_parser::ParserOptions) -> Option<String> {
    literal_with(raw, opts, &[])
}

/// [`literal`], with the parameters in `vars` taking the values given.
fn literal_with(
    raw: &str,
    opts: &brush_parser::ParserOptions,
    vars: &[(&str, &str)],
) -> Option<String> {
    let pieces = std::panic::catch_unwind(|| brush_parser::word::parse(raw, opts))
        .ok()?
        .ok()?;
    let mut out = String::new();
    let mut skeleton = String::new();
    pieces_literal(&pieces, false, vars, &mut out, &mut skeleton)?;
    if has_glob(&skeleton) || words::has_brace_expansion(&skeleton) {
        return None;
    }
    Some(out)
}

fn pieces_literal(
    pieces: &[WordPieceWithSource],
    quoted: bool,
    vars: &[(&str, &str)],
    out: &mut String,
    skeleton: &mut String,
) -> Option<()> {
    for p in pieces {
        match &p.piece {
            WordPiece::Text(s) => {
                out.push_str(s);
                if quoted {
                    skeleton.push('x');
                } else {
                    skeleton.push_str(s);
                }
            }
            WordPiece::SingleQuotedText(s) => {
                out.push_str(s);
                skeleton.push('x');
            }
            WordPiece::AnsiCQuotedText(s) => {
                out.push_str(&words::decode_ansi_c(s)?);
                skeleton.push('x');
            }
            WordPiece::DoubleQuotedSequence(inner) => {
                pieces_literal(inner, true, vars, out, skeleton)?;
                skeleton.push('x');
            }
            WordPiece::EscapeSequence(e) => {
                let rest: String = e.chars().skip(1).collect();
                if rest != "\n" {
                    out.push_str(&rest);
                }
                skeleton.push('x');
            }
            WordPiece::TildeExpansion(TildeExpr::Home) if !quoted && out.is_empty() => {
                out.push('~');
                skeleton.push('x');
            }
            WordPiece::ParameterExpansion(ParameterExpr::Parameter {
                parameter: Parameter::Named(name),
                indirect: false,
            }) if vars.iter().any(|(n, _)| n == name) => {
                let value = vars.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
                out.push_str(value.unwrap_or_default());
                skeleton.push('x');
            }
            // `${CLAUDE_PROJECT_DIR:-.}`: set, so its value.
            WordPiece::ParameterExpansion(
                ParameterExpr::UseDefaultValues {
                    parameter: Parameter::Named(name),
                    indirect: false,
                    ..
                }
                | ParameterExpr::AssignDefaultValues {
                    parameter: Parameter::Named(name),
                    indirect: false,
                    ..
                },
            ) if vars.iter().any(|(n, v)| n == name && !v.is_empty()) => {
                let value = vars.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
                out.push_str(value.unwrap_or_default());
                skeleton.push('x');
            }
            // Parameters, substitutions, arithmetic, `$"…"`, `~user`.
            _ => return None,
        }
    }
    Some(())
}
