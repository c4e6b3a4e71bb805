//! Builtins that run a string as code, now or later: `eval`, `trap`,
//! `mapfile -C`, `compgen`/`complete` (`-W`, `-C`, `-F`), `bind -x`, and
//! the variables whose value the shell runs (`PROMPT_COMMAND`, `PS4`…).
//! Each string is analysed as the code it is; what cannot be read before
//! running is uncertain.

use super::skip_options;
use crate::shell::options::Spec;
use crate::shell::words::{self, quote};
use crate::shell::{Analyzer, UncertainKind, WordVal};

/// Stands for the arguments a builtin appends to a command string
/// (`mapfile -C cb` runs `cb INDEX LINE`): a dynamic word.
const APPENDED: &str = "\"$@\"";

impl Analyzer {
    /// `eval [--] args…`: the arguments joined by spaces are a script.
    pub(super) fn builtin_eval(&mut self, argv: &[WordVal]) {
        let from = 1 + usize::from(argv.get(1).and_then(|w| w.literal.as_deref()) == Some("--"));
        let all: Option<Vec<&str>> = argv[from..].iter().map(|w| w.literal.as_deref()).collect();
        match all {
            Some(parts) if parts.is_empty() => {}
            Some(parts) => self.nested_script(argv, &parts.join(" ")),
            None => {
                let text = self.text(argv);
                self.unseen_shell_code(
                    UncertainKind::Command,
                    &text,
                    "eval runs text computed at run time",
                );
            }
        }
    }

    /// `trap [-lpP] [--] [action signal…]`: the action is a script (run
    /// when the signal comes). One operand, `-`, an empty string or a
    /// signal number reset or ignore signals; `-l`, `-p`, `-P` only list.
    pub(super) fn builtin_trap(&mut self, argv: &[WordVal]) {
        self.emit(argv);
        let spec = Spec {
            flags: "lpP",
            ..Spec::default()
        };
        let (start, found) = match skip_options(argv, 1, &spec) {
            Ok(x) => x,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        if !found.is_empty() {
            return;
        }
        let [action, _, ..] = &argv[start..] else {
            return;
        };
        match &action.literal {
            Some(l) if l.is_empty() || l == "-" || l.chars().all(|c| c.is_ascii_digit()) => {}
            Some(l) => {
                let l = l.clone();
                self.nested_script(argv, &l);
            }
            None => {
                let raw = action.raw.clone();
                self.unseen_shell_code(
                    UncertainKind::Command,
                    &raw,
                    "trap runs text computed at run time",
                );
            }
        }
    }

    /// `mapfile`/`readarray`: `-C callback` runs `callback INDEX LINE`.
    pub(super) fn builtin_mapfile(&mut self, argv: &[WordVal]) {
        let spec = Spec {
            flags: "t",
            with_arg: "dnOsuCc",
            ..Spec::default()
        };
        match skip_options(argv, 1, &spec) {
            Ok((_, found)) => {
                for f in found.iter().filter(|f| f.name == "-C") {
                    self.callback(argv, f.value.as_ref());
                }
            }
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    /// `compgen`/`complete`: `-W` words are expanded again (their
    /// substitutions run), `-C` runs a command with the word appended,
    /// `-F` calls a function.
    pub(super) fn builtin_completion(&mut self, argv: &[WordVal]) {
        self.emit(argv);
        let spec = Spec {
            flags: "abcdefgjksuvpDEIr",
            with_arg: "oAGWFCXPSV",
            ..Spec::default()
        };
        let found = match skip_options(argv, 1, &spec) {
            Ok((_, found)) => found,
            Err(opt) => return self.unknown_option(argv, &opt),
        };
        for f in found {
            match f.name {
                "-W" => self.expanded_again(argv, f.value.as_ref()),
                "-V" => match f.value.as_ref().and_then(|v| v.literal.as_deref()) {
                    Some(name) => self.assigned_name(name),
                    None => self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        "the variable assigned is computed at run time",
                    ),
                },
                "-C" => self.callback(argv, f.value.as_ref()),
                "-F" => match f.value {
                    Some(name) if name.literal.is_some() => {
                        self.outer.push(self.text(argv));
                        self.call(vec![name, WordVal::dynamic(APPENDED)]);
                        self.outer.pop();
                    }
                    _ => self.uncertain(
                        UncertainKind::Command,
                        &self.text(argv),
                        "the function called is computed at run time",
                    ),
                },
                _ => {}
            }
        }
    }

    /// `bind -x 'keyseq: command'` runs the command on a key press.
    pub(super) fn builtin_bind(&mut self, argv: &[WordVal]) {
        self.emit(argv);
        let spec = Spec {
            flags: "lpPsSvVX",
            with_arg: "mfqurx",
            ..Spec::default()
        };
        match skip_options(argv, 1, &spec) {
            Ok((_, found)) if !found.iter().any(|f| f.name == "-x") => {}
            Ok(_) => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "bind -x runs a command on a key press that cannot be checked here",
            ),
            Err(opt) => self.unknown_option(argv, &opt),
        }
    }

    /// The variables a builtin assigns (`read PATH`, `printf -v PATH`,
    /// `mapfile PATH`, `getopts o PATH`, `wait -p PATH`, `local PATH`,
    /// `unset PATH`): each counts as setting it, as a prefix assignment
    /// does. (Names given as `NAME=value` to declare and friends, and
    /// names computed at run time, are handled with the subscripts.)
    pub(super) fn builtin_assigns(&mut self, b: &str, argv: &[WordVal]) {
        let (spec, value_opts): (Spec, &[&str]) = match b {
            "read" => (
                Spec {
                    flags: "ers",
                    with_arg: "adinNptu",
                    ..Spec::default()
                },
                &["-a"],
            ),
            "mapfile" | "readarray" => (
                Spec {
                    flags: "t",
                    with_arg: "dnOsuCc",
                    ..Spec::default()
                },
                &[],
            ),
            "printf" => (
                Spec {
                    with_arg: "v",
                    ..Spec::default()
                },
                &["-v"],
            ),
            "wait" => (
                Spec {
                    flags: "fn",
                    with_arg: "p",
                    ..Spec::default()
                },
                &["-p"],
            ),
            "getopts" | "unset" | "declare" | "typeset" | "local" => (Spec::default(), &[]),
            _ => return,
        };
        let mut names: Vec<String> = Vec::new();
        let operands: &[WordVal] = if matches!(b, "unset" | "declare" | "typeset" | "local") {
            // Options may be `+x` too; every word not an option is a name.
            let opts: Vec<&str> = argv[1..]
                .iter()
                .filter_map(|w| w.literal.as_deref())
                .filter(|l| l.starts_with('-') || l.starts_with('+'))
                .collect();
            let functions = opts.iter().any(|l| {
                l.starts_with('-') && (l.contains('f') || l.contains('F') || l.contains('p'))
            });
            if functions {
                return;
            }
            &argv[1..]
        } else {
            match skip_options(argv, 1, &spec) {
                Ok((start, found)) => {
                    for f in found.iter().filter(|f| value_opts.contains(&f.name)) {
                        match f.value.as_ref().and_then(|v| v.literal.clone()) {
                            Some(n) => names.push(n),
                            None => self.unknown_variable_set(&self.text(argv)),
                        }
                    }
                    &argv[start..]
                }
                Err(opt) => return self.unknown_option(argv, &opt),
            }
        };
        let operands: Vec<&WordVal> = match b {
            "read" | "unset" | "declare" | "typeset" | "local" => operands.iter().collect(),
            "mapfile" | "readarray" => operands.iter().take(1).collect(),
            "getopts" => operands.iter().skip(1).take(1).collect(),
            _ => Vec::new(),
        };
        for w in operands {
            match w.literal.as_deref() {
                Some(l) if l.starts_with('-') || l.starts_with('+') => {}
                Some(l) => names.push(l.to_string()),
                // `read "$n"`, `getopts o "$n"`; `declare "$spec"` is
                // [`Analyzer::name_builtin`]'s.
                None if matches!(b, "read" | "mapfile" | "readarray" | "getopts") => {
                    self.unknown_variable_set(&self.text(argv))
                }
                None => {}
            }
        }
        // What `read`, `printf -v`, `mapfile`, `getopts` and `wait -p`
        // assign is known only at run time; `declare NAME=value` is read
        // with its value in [`Analyzer::name_builtin`].
        let run_time = !matches!(b, "unset" | "declare" | "typeset" | "local");
        for name in names {
            let name = name.split(['=', '[']).next().unwrap_or_default();
            let name = name.trim_end_matches('+');
            match (name.is_empty(), run_time) {
                (true, _) => {}
                (false, true) => self.variable_set(name, None),
                (false, false) => self.assigned_name(name),
            }
        }
    }

    /// A command string run with arguments appended (`mapfile -C`,
    /// `compgen -C`): analysed as a script ending in dynamic arguments.
    fn callback(&mut self, argv: &[WordVal], value: Option<&WordVal>) {
        match value.and_then(|v| v.literal.as_deref()) {
            Some(cb) => {
                let script = format!("{cb} {APPENDED}");
                self.nested_script(argv, &script);
            }
            None => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "it runs a command computed at run time",
            ),
        }
    }

    /// Text the builtin expands once more (`compgen -W`): the expansions in
    /// it run then.
    fn expanded_again(&mut self, argv: &[WordVal], value: Option<&WordVal>) {
        match value.and_then(|v| v.literal.clone()) {
            Some(text) if text.contains("<(") || text.contains(">(") => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "the words are expanded again, and a process substitution in them runs",
            ),
            Some(text) => {
                if text.contains('$') || text.contains('`') {
                    self.outer.push(self.text(argv));
                    self.eval_word(&text);
                    self.outer.pop();
                }
            }
            None => self.uncertain(
                UncertainKind::Command,
                &self.text(argv),
                "the words are computed at run time and expanded again, which can run commands",
            ),
        }
    }

    /// A variable whose value the shell runs later: `PROMPT_COMMAND` as a
    /// script, the prompts (`PS4` with `set -x`) expanded. Setting one is
    /// uncertain anyway ([`Analyzer::assigned_name`]); this finds what a
    /// literal value would run, so deny rules apply to it.
    pub(in crate::shell) fn code_variable(&mut self, name: &str, value: &WordVal) {
        self.assigned_value(name, value);
        if words::writes_named_file(name)
            && value
                .literal
                .as_deref()
                .is_none_or(|v| v.contains('/') || v.contains('.'))
        {
            // `SSLKEYLOGFILE=.git/hooks/pre-commit curl …`,
            // `GIT_TRACE=~/.bashrc git status` (a number turns it on).
            self.edit_target(value);
        }
        let Some(text) = &value.literal else { return };
        let outer = format!("{name}={}", quote(text));
        match name {
            "PROMPT_COMMAND" => {
                self.outer.push(outer.into());
                self.script(text);
                self.outer.pop();
            }
            "PS0" | "PS1" | "PS2" | "PS4" if text.contains('$') || text.contains('`') => {
                self.outer.push(outer.into());
                self.eval_word(text);
                self.outer.pop();
            }
            _ => {}
        }
    }
}
