//! Command tools: tools declared in settings that run one program with an
//! argv and no shell in between (`git_log` runs
//! `["/usr/bin/git", "log", "--format=%H", "-n", "5", "--", "src/"]`).
//!
//! A rule `git_log(pattern)` matches the argv written as one line,
//! [`command_text`]: each word as a shell would need it written, so an
//! argument holding a space or a quote reads as one quoted word and can
//! never pass for several (`t(prog deploy staging)` does not match the argv
//! `[prog, "deploy staging"]`, which reads `prog 'deploy staging'`). The
//! pattern has Bash rule syntax (`*` matches any text, a final ` *` or
//! `:*` also matches the bare prefix) and must match the whole line. Its
//! first word is the program, by its absolute path or its file name: the
//! line is tried with argv\[0\] as given and with argv\[0\] as its file
//! name, and either matching counts.

/// The argv as one line a person reads and a rule matches. Words made of
/// `A-Z a-z 0-9 _ @ % + = : , . / -` stand as they are; the empty word is
/// `''`; a word with a control character (newline, tab, ESC, …) or an
/// invisible formatting character (bidi overrides, zero-width spaces, tag
/// characters) is ANSI-C quoted, `$'a\nb'`; any other word is single-quoted,
/// with `'` written `'\''`. Words are separated by one space.
///
/// Unambiguous: read with shell quoting, the line gives back the argv, so
/// two different argvs never give the same line.
///
/// ```
/// use tack_policy::command_text;
///
/// let argv = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(
///     command_text(&argv(&["/usr/bin/git", "log", "--format=%H", "--", "src/"])),
///     "/usr/bin/git log --format=%H -- src/"
/// );
/// assert_eq!(command_text(&argv(&["echo", "a b", "it's", ""])), r"echo 'a b' 'it'\''s' ''");
/// assert_eq!(command_text(&argv(&["printf", "a\nb"])), r"printf $'a\nb'");
/// ```
pub fn command_text(argv: &[String]) -> String {
    let mut out = String::new();
    for (i, word) in argv.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_word(&mut out, word);
    }
    out
}

/// The file name of a program path (`/usr/bin/git` → `git`); the path
/// itself when it has no `/` or ends with one.
pub(crate) fn file_name(program: &str) -> &str {
    match program.rsplit('/').next() {
        Some(name) if !name.is_empty() => name,
        _ => program,
    }
}

/// The lines a rule is matched against: argv\[0\] as given, and argv\[0\] as
/// its file name (the second only when it differs).
pub(crate) fn texts(argv: &[String]) -> Vec<String> {
    let given = command_text(argv);
    let Some((program, _)) = argv.split_first() else {
        return vec![given];
    };
    let name = file_name(program);
    if name == program {
        return vec![given];
    }
    let mut named = argv.to_vec();
    named[0] = name.to_string();
    vec![given, command_text(&named)]
}

fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c)
}

/// Characters a person could not see or that would change how the line
/// looks: control characters (C0, DEL, C1) and invisible formatting ones.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

fn push_word(out: &mut String, word: &str) {
    if word.is_empty() {
        out.push_str("''");
    } else if word.chars().all(is_plain) {
        out.push_str(word);
    } else if word.chars().any(is_hidden) {
        push_ansi_c(out, word);
    } else {
        out.push('\'');
        for c in word.chars() {
            if c == '\'' {
                out.push_str(r"'\''");
            } else {
                out.push(c);
            }
        }
        out.push('\'');
    }
}

/// `$'…'`: `\` and `'` escaped, hidden characters as named escapes or
/// fixed-width hex (`\xHH` below U+0080, `\uHHHH`, `\UHHHHHHHH`), so the
/// next character can never be read as part of the escape.
fn push_ansi_c(out: &mut String, word: &str) {
    use std::fmt::Write as _;
    out.push_str("$'");
    for c in word.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\'' => out.push_str(r"\'"),
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            '\r' => out.push_str(r"\r"),
            '\x1b' => out.push_str(r"\e"),
            '\x07' => out.push_str(r"\a"),
            '\x08' => out.push_str(r"\b"),
            '\x0b' => out.push_str(r"\v"),
            '\x0c' => out.push_str(r"\f"),
            c if is_hidden(c) => {
                let v = c as u32;
                // Writing to a String cannot fail.
                let _ = if v < 0x80 {
                    write!(out, "\\x{v:02x}")
                } else if v <= 0xFFFF {
                    write!(out, "\\u{v:04x}")
                } else {
                    write!(out, "\\U{v:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn words_are_written_as_a_shell_reads_them() {
        for (words, text) in [
            (
                &["/usr/bin/git", "log", "-n", "5"][..],
                "/usr/bin/git log -n 5",
            ),
            (&["p", "a@b%c+d=e:f,g./h-_"], "p a@b%c+d=e:f,g./h-_"),
            (&["p", ""], "p ''"),
            (&["p", "a b"], "p 'a b'"),
            (&["p", "'"], r"p ''\'''"),
            (&["p", "x; rm -rf /"], "p 'x; rm -rf /'"),
            (
                &["p", "$HOME", "~", "*", "a\"b"],
                r#"p '$HOME' '~' '*' 'a"b'"#,
            ),
            (
                &["p", "a\nb", "\t", "\x1b[31m"],
                r"p $'a\nb' $'\t' $'\e[31m'",
            ),
            (&["p", "it's\n\\"], r"p $'it\'s\n\\'"),
            (
                &["p", "\x01", "\x7f", "\u{85}"],
                r"p $'\x01' $'\x7f' $'\u0085'",
            ),
            (
                &["p", "a\u{202e}b", "\u{e0041}"],
                r"p $'a\u202eb' $'\U000e0041'",
            ),
            (&["p", "café"], "p 'café'"),
        ] {
            assert_eq!(command_text(&argv(words)), text, "{words:?}");
        }
        assert_eq!(command_text(&[]), "");
    }

    #[test]
    fn rules_see_the_path_and_the_file_name() {
        assert_eq!(
            texts(&argv(&["/usr/bin/git", "log"])),
            ["/usr/bin/git log", "git log"]
        );
        assert_eq!(texts(&argv(&["git", "log"])), ["git log"]);
        assert_eq!(
            texts(&argv(&["/opt/my tools/run it", "x"])),
            ["'/opt/my tools/run it' x", "'run it' x"]
        );
        assert_eq!(file_name("/usr/bin/"), "/usr/bin/");
    }

    /// Any character, with the ones quoting is about over-represented.
    fn word() -> impl Strategy<Value = String> {
        let special = prop::sample::select(vec![
            ' ',
            '\'',
            '"',
            '\\',
            '$',
            '\n',
            '\t',
            '\x1b',
            '\x7f',
            '\u{85}',
            '\u{202e}',
            '*',
            '~',
            'a',
            '0',
            '=',
            '-',
            '/',
            'é',
            '\u{e0041}',
            '\u{1f600}',
        ]);
        let c = prop_oneof![special, any::<char>().prop_filter("no NUL", |c| *c != '\0')];
        prop::collection::vec(c, 0..8).prop_map(|cs| cs.into_iter().collect())
    }

    proptest! {
        /// A shell parser (brush-parser, as the Bash analysis uses) reads
        /// the line back into the same argv: the line is unambiguous.
        #[test]
        fn the_line_reads_back_as_the_argv(
            rest in prop::collection::vec(word(), 0..6),
        ) {
            let mut argv = vec!["/bin/prog".to_string()];
            argv.extend(rest);
            let text = command_text(&argv);
            prop_assert_eq!(crate::shell::simple_command_words(&text), Some(argv), "{}", text);
        }
    }
}
