//! Shell aliases: `alias NAME=VALUE`, then `NAME WORDS…` runs VALUE
//! followed by WORDS.
//!
//! bash expands an alias where it reads a command's first word, and only
//! with `shopt -s expand_aliases` outside an interactive shell, and only in
//! lines read after the one that defined it. Whether it will (an earlier
//! line, a branch that may not run, an `unalias` that may not run) is not
//! always known here, so both readings are checked: the word as the
//! program it names (see [`Analyzer::call`]), and the text bash would read
//! in its place. That text is the alias's value followed by the words
//! after the name as written; when the value ends in a blank, the next
//! word is looked up as an alias too (`alias s='sudo '`). An alias is not
//! expanded again inside its own expansion (`alias ls='ls -F'`).
//!
//! The value is also read as a command where the alias is defined (its
//! programs meet the Bash rules, its hosts the domain rules), as a
//! function's body is: one that is no whole command (`alias L='while
//! true; do'`) changes how the lines after it are read, which is not
//! known here, so it is uncertain. An alias whose name or value is
//! computed at run time (`alias "$A"`, `BASH_ALIASES[c]=…`) can stand for
//! any command, reaching any host.

use super::{Analyzer, UncertainKind, WordVal};

/// The aliases defined so far.
#[derive(Default)]
pub(super) struct Aliases {
    /// Name and value, in the order defined (the last one of a name wins).
    defined: Vec<(String, String)>,
    /// The aliases being expanded (not expanded again inside themselves).
    expanding: Vec<String>,
}

impl Aliases {
    fn value(&self, name: &str) -> Option<&str> {
        if self.expanding.iter().any(|e| e == name) {
            return None;
        }
        self.defined
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Analyzer {
    /// The `alias` builtin: each `NAME=VALUE` defines an alias, whose value
    /// is read as a command; a word computed at run time may define any.
    pub(super) fn alias_builtin(&mut self, argv: &[WordVal]) {
        self.emit(argv);
        let mut options_done = false;
        for w in &argv[1..] {
            let Some(l) = w.literal.as_deref() else {
                self.alias_unknown(&w.raw);
                continue;
            };
            if !options_done && l == "--" {
                options_done = true;
                continue;
            }
            if !options_done && l.starts_with('-') {
                continue;
            }
            // `alias NAME` prints it.
            if let Some((name, value)) = l.split_once('=') {
                self.define_alias(name, value);
            }
        }
    }

    /// An alias defined: its value read as a command now, and kept for the
    /// words that call it later.
    fn define_alias(&mut self, name: &str, value: &str) {
        let text = format!("alias {}", super::words::quote(&format!("{name}={value}")));
        self.outer.push(text.into());
        self.script(value);
        self.outer.pop();
        self.aliases
            .defined
            .push((name.to_string(), value.to_string()));
    }

    /// An alias whose name or value is known only at run time.
    fn alias_unknown(&mut self, raw: &str) {
        self.uncertain(
            UncertainKind::Command,
            raw,
            "an alias computed at run time can change what a later command runs",
        );
        self.uncertain(
            UncertainKind::Host,
            raw,
            "an alias computed at run time can stand for a command that reaches any host",
        );
    }

    /// `BASH_ALIASES[NAME]=VALUE` (or any assignment to it) defines aliases.
    pub(super) fn alias_variable(&mut self, name: &str) {
        if name == "BASH_ALIASES" {
            self.alias_unknown(name);
        }
    }

    /// A command whose first word names an alias: the text bash reads in
    /// its place (see the module's documentation), read as a script. The
    /// caller goes on to read the words as the program they name.
    pub(super) fn expand_alias(&mut self, argv: &[WordVal]) {
        if self.aliases.defined.is_empty() {
            return;
        }
        let mut text = String::new();
        let mut expanded: Vec<String> = Vec::new();
        let mut rest = 0;
        while let Some(w) = argv.get(rest) {
            let Some(value) = w.literal.as_deref().and_then(|n| {
                if expanded.iter().any(|e| e == n) {
                    None
                } else {
                    self.aliases.value(n)
                }
            }) else {
                break;
            };
            text.push_str(value);
            expanded.push(w.literal.clone().unwrap_or_default());
            rest += 1;
            if !value.ends_with([' ', '\t']) {
                break;
            }
        }
        if expanded.is_empty() {
            return;
        }
        for w in &argv[rest..] {
            text.push(' ');
            // A process substitution's word stands for the file bash gives
            // (its commands were read where it was written).
            match w.raw.as_str() {
                "<(…)" | ">(…)" => text.push_str("/dev/fd/63"),
                raw => text.push_str(raw),
            }
        }
        let known = self.aliases.expanding.len();
        self.aliases.expanding.extend(expanded);
        self.outer.push(self.text(argv));
        self.script(&text);
        self.outer.pop();
        self.aliases.expanding.truncate(known);
    }
}
