//! Small pure helpers for shell words: ANSI-C unquoting, backquote
//! unescaping, canonical quoting, brace-expansion and arithmetic checks.

/// Decode the body of `$'…'`. None when an escape is not understood.
pub(crate) fn decode_ansi_c(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                let mut v = e.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v & 0xff)?);
            }
            'x' => {
                let v = hex_digits(&mut chars, 2)?;
                out.push(char::from_u32(v)?);
            }
            'u' => out.push(char::from_u32(hex_digits(&mut chars, 4)?)?),
            'U' => out.push(char::from_u32(hex_digits(&mut chars, 8)?)?),
            'c' => {
                let k = chars.next()?;
                out.push(char::from_u32((k.to_ascii_uppercase() as u32) ^ 0x40)?);
            }
            _ => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    Some(out)
}

fn hex_digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, max: usize) -> Option<u32> {
    let mut v = 0u32;
    let mut n = 0;
    while n < max {
        match chars.peek().and_then(|c| c.to_digit(16)) {
            Some(d) => {
                v = v.checked_mul(16)?.checked_add(d)?;
                chars.next();
                n += 1;
            }
            None => break,
        }
    }
    (n > 0).then_some(v)
}

/// Inside backquotes, `\\`, `` \` `` and `\$` lose their backslash before
/// the text is parsed as a script.
pub(crate) fn unescape_backquoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '\\' | '`' | '$')
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// Quote a literal word so the canonical form of a command reads as shell:
/// words made of ordinary characters stay bare, others are single-quoted.
pub(crate) fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "_-./:=@%+,~^*?[]{}#!".contains(c))
    {
        return word.to_string();
    }
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// Whether the unquoted skeleton of a word (quoted parts replaced by `x`)
/// contains a brace expansion such as `{a,b}` or `{1..3}`, which turns one
/// word into several.
pub(crate) fn has_brace_expansion(skeleton: &str) -> bool {
    // One pass: match braces with a stack; a pair not opened by `${`
    // expands when a `,` or a `..` lies between its braces.
    let bytes = skeleton.as_bytes();
    let mut open: Vec<(bool, usize)> = Vec::new();
    let mut marks = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => open.push((i == 0 || bytes[i - 1] != b'$', marks)),
            b'}' => {
                if let Some((candidate, at_open)) = open.pop()
                    && candidate
                    && marks > at_open
                {
                    return true;
                }
            }
            b',' => marks += 1,
            b'.' if i > 0 && bytes[i - 1] == b'.' => marks += 1,
            _ => {}
        }
    }
    false
}

/// Arithmetic that names no variable cannot run anything; arithmetic on
/// variables can (`x='a[$(cmd)]'; echo $((x))` runs cmd).
pub(crate) fn is_static_arithmetic(expr: &str) -> bool {
    expr.chars()
        .all(|c| c.is_ascii_digit() || c.is_whitespace() || "+-*/%()<>=!&|^~?:,".contains(c))
}

/// A shell variable name.
pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `NAME[subscript]` where the subscript is not a plain number: builtins
/// that take variable names evaluate such subscripts as arithmetic.
pub(crate) fn has_dynamic_subscript(arg: &str) -> bool {
    let name_part = arg.split('=').next().unwrap_or(arg);
    let Some(open) = name_part.find('[') else {
        return false;
    };
    if !is_name(&name_part[..open]) {
        return false;
    }
    let sub = name_part[open + 1..].trim_end_matches(']');
    !(sub.chars().all(|c| c.is_ascii_digit()) || sub == "@" || sub == "*")
}

/// What assigning an environment variable can do to the commands that
/// see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VariableDanger {
    /// Nothing known.
    None,
    /// It changes what a command that otherwise runs nothing of its own
    /// runs (`PATH`, `GIT_TEST_FSMONITOR`, `LESSOPEN`): the command is
    /// uncertain.
    Command,
    /// It names a program, options or a configuration file for a program
    /// (`RSYNC_RSH`, `TAR_OPTIONS`, `RUSTFLAGS`, `KUBECONFIG`): code not
    /// written here, which matters where deny or ask rules exist.
    Code,
}

/// Environment variables a program writes the file named by (`curl`'s
/// `SSLKEYLOGFILE`, `GIT_TRACE=FILE`): the value is a file written.
pub(crate) fn writes_named_file(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with("LOGFILE")
        || upper.ends_with("_LOG_FILE")
        || upper.ends_with("_LOG_PATH")
        || upper == "HISTFILE"
        || upper.starts_with("GIT_TRACE")
}

/// What assigning `name` can do (see [`VariableDanger`]).
pub(crate) fn variable_danger(name: &str) -> VariableDanger {
    const EXACT: &[&str] = &[
        "PATH",
        "IFS",
        "ENV",
        "CDPATH",
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "GLOBIGNORE",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "NODE_OPTIONS",
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "PYTHONHOME",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "SHELL",
        "TERMINFO",
        "HOME",
        "GIT_SSH",
        "GIT_EXTERNAL_DIFF",
        "GIT_ASKPASS",
        "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR",
        "GIT_DIR",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        // Startup files and code found through them (zsh, fish, git, iconv).
        "ZDOTDIR",
        "XDG_CONFIG_HOME",
        "XDG_CONFIG_DIRS",
        "FPATH",
        "GCONV_PATH",
        "EXECIGNORE",
        "PARALLEL",
        "PARALLEL_SHELL",
        // bash evaluates what is assigned to these as arithmetic, and a
        // subscript there runs its `$(…)`: `RANDOM='a[$(rm x)]'`.
        "RANDOM",
        "SRANDOM",
        "OPTIND",
        "HISTCMD",
        // file(1)'s magic database: read from anywhere.
        "MAGIC",
    ];
    // `TF_CLI_ARGS_apply=-destroy` adds options to `terraform apply`.
    const PREFIXES: &[&str] = &["LD_", "DYLD_", "BASH_", "GIT_CONFIG", "TF_CLI_ARGS"];
    // Not a name but a kind of name: a program to run (`RSYNC_RSH`,
    // `SVN_SSH`, `RSYNC_CONNECT_PROG`, `RUSTC_WRAPPER`, a cargo target's
    // `_RUNNER`), options a program takes as its own (`TAR_OPTIONS` holds
    // `--checkpoint-action=exec=`, `MAKEFLAGS` `--eval`, `GOFLAGS`
    // `-toolexec`, `ZIPOPT` `-TT`, `CFLAGS` gcc's `-wrapper`), a file of
    // them or a directory holding one (`RIPGREP_CONFIG_PATH` `--pre`,
    // `KUBECONFIG` exec plugins, `AWS_CONFIG_FILE` `credential_process`,
    // `OPENSSL_CONF` engines, `WGETRC`, `CURL_HOME`), or commands
    // (`VIMINIT`, `EXINIT`, `LESS`'s `+!`). Compared without case:
    // `npm_config_script_shell` is read as `NPM_CONFIG_SCRIPT_SHELL`.
    const SUFFIXES: &[&str] = &[
        "_RSH",
        "_SSH",
        "_PROG",
        "_PROGRAM",
        "_WRAPPER",
        "_RUNNER",
        "_LINKER",
        "_SHELL",
        "_OPT",
        "_ARGS",
        "OPTIONS",
        "OPTS",
        "FLAGS",
        "CONFIG",
        "_CONF",
        "CONFIG_FILE",
        "CONFIG_PATH",
        "RCPATH",
    ];
    const MORE: &[&str] = &[
        "LESS",
        "LESSKEY",
        "LESSKEYIN",
        "LESSKEYIN_SYSTEM",
        "LESSKEY_SYSTEM",
        "MORE",
        "MANOPT",
        "ZIPOPT",
        "UNZIPOPT",
        "GZIP",
        "BZIP2",
        "UNZIP",
        "WGETRC",
        "CURL_HOME",
        "MYVIMRC",
        "VIMINIT",
        "GVIMINIT",
        "EXINIT",
        "FCEDIT",
        "HOSTALIASES",
        "RUSTC",
        "RUSTDOC",
        "CC",
        "CXX",
        "CPP",
        "AR",
        "LD",
        "MAKE",
        "INPUTRC",
        "PERL5DB",
        "SSLKEYLOGFILE",
    ];
    let upper = name.to_ascii_uppercase();
    // git reads dozens of variables, and many of them run a program
    // (`GIT_TEST_FSMONITOR`, `GIT_ALLOW_PROTOCOL=ext`), write a file
    // (`GIT_TRACE=FILE`) or take the repository from elsewhere
    // (`GIT_COMMON_DIR`, `GIT_WORK_TREE`): all but the few that only name
    // who is committing or quiet a prompt.
    const GIT_PLAIN: &[&str] = &[
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_TERMINAL_PROMPT",
        "GIT_OPTIONAL_LOCKS",
        "GIT_MERGE_AUTOEDIT",
        "GIT_FLUSH",
        "GIT_LITERAL_PATHSPECS",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_ADVICE",
        "GIT_LFS_SKIP_SMUDGE",
    ];
    if upper.starts_with("GIT_") && name.starts_with("GIT_") {
        // `GIT_TRACE=1` prints to the error output; a file it names is a
        // file written (see [`writes_named_file`]).
        return if GIT_PLAIN.contains(&name) || name.starts_with("GIT_TRACE") {
            VariableDanger::None
        } else {
            VariableDanger::Command
        };
    }
    // A command (a pager, an editor, a bus's `unixexec:`) run by programs
    // that otherwise run none, and the file the read-only set's programs
    // take their options from.
    let runs_command = ["_COMMAND", "_EDITOR", "_PAGER"]
        .iter()
        .any(|s| name.ends_with(s))
        || matches!(
            name,
            "RIPGREP_CONFIG_PATH" | "DBUS_SESSION_BUS_ADDRESS" | "DBUS_SYSTEM_BUS_ADDRESS"
        );
    if EXACT.contains(&name) || runs_command || PREFIXES.iter().any(|p| name.starts_with(p)) {
        return VariableDanger::Command;
    }
    // A suffix with something before it: `OPTS` or `CONFIG` alone is
    // a script's own variable, which no program reads.
    if MORE.contains(&upper.as_str())
        || upper.starts_with("NPM_CONFIG_")
        || SUFFIXES
            .iter()
            .any(|s| upper.len() > s.len() && upper.ends_with(s))
    {
        return VariableDanger::Code;
    }
    VariableDanger::None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_c() {
        assert_eq!(decode_ansi_c(r"\x72m").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"\162m").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"a\'b").as_deref(), Some("a'b"));
        assert_eq!(decode_ansi_c(r"\u0072m").as_deref(), Some("rm"));
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("ls"), "ls");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn braces() {
        assert!(has_brace_expansion("{-rf,/}"));
        assert!(has_brace_expansion("a{1..3}"));
        assert!(!has_brace_expansion("{}"));
        assert!(!has_brace_expansion("x{y}"));
        assert!(has_brace_expansion("{{b,c}}"));
        assert!(has_brace_expansion("${x}{a..b}"));
        assert!(!has_brace_expansion("${x,y}"));
        assert!(!has_brace_expansion("..{x}.."));
        assert!(!has_brace_expansion("{a,"));
        assert!(!has_brace_expansion(&"{".repeat(100_000)));
    }

    #[test]
    fn subscripts() {
        assert!(has_dynamic_subscript("a[$(rm)]"));
        assert!(has_dynamic_subscript("a[i]=1"));
        assert!(!has_dynamic_subscript("a[1]=1"));
        assert!(!has_dynamic_subscript("x=[y]"));
    }
}
