//! A program tack does not know may run a command it is given: `devbox run
//! rm -rf x`, `tsp rm x`, `xonsh -c 'rm x'`, `julia -e 'run(`rm x`)'`. Its
//! words are guessed as commands ([`Command::guessed`]): each run of words
//! from one that could name a program, and the value of an option named for
//! a command (`-c`, `-e`, `--exec`, `--cmd`, …) split where a shell would
//! split it. A deny or ask rule that matches a guess makes the command an
//! ask (it may run what the rule forbids); a guess needs no allow rule of
//! its own, since the program itself was allowed as written.

use std::sync::Arc;

use super::words::quote;
use super::{Analyzer, Command, Item, ReadOnly, WordVal};

/// Guesses made for one program, at most.
const MAX_GUESSES: usize = 12;

/// Option names (without dashes, before any `=`) whose value is taken as a
/// command line.
const COMMAND_OPTIONS: &[&str] = &[
    "c",
    "e",
    "x",
    "a",
    "cmd",
    "command",
    "exec",
    "eval",
    "run",
    "script",
    "shell",
    "shell-command",
    "editor-cmd",
    "sh-exec",
    "do",
    "execute",
    "args",
];

/// Characters a shell (or a language's `system`-like call) splits a
/// command line at.
const SEPARATORS: &[char] = &[';', '&', '|', '!', '`', '(', ')', '\n', '"', '\'', '{', '}'];

/// Whether `word` could name a program (`rm`, `./x`, `/bin/rm`, `git`).
fn names_a_program(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && !word.contains('=')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '+' | '-'))
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

/// The option a word names, without dashes and value: `--exec=x` → `exec`.
fn option_name(word: &str) -> Option<&str> {
    let name = word.strip_prefix('-')?;
    let name = name.strip_prefix('-').unwrap_or(name);
    Some(name.split('=').next().unwrap_or(name))
}

impl Analyzer {
    /// Guess what the unknown program of `argv` may run.
    pub(super) fn guess_runs(&mut self, argv: &[WordVal]) {
        let words: Vec<Option<&str>> = argv.iter().map(|w| w.literal.as_deref()).collect();
        let mut guesses: Vec<Vec<String>> = Vec::new();
        for i in 1..words.len() {
            if guesses.len() >= MAX_GUESSES {
                break;
            }
            let Some(word) = words[i] else { continue };
            // The words from here on, when this one could name a program.
            if names_a_program(word) {
                let rest: Option<Vec<String>> =
                    words[i..].iter().map(|w| w.map(str::to_owned)).collect();
                if let Some(rest) = rest {
                    guesses.push(rest);
                }
            }
            // An option's value that is a command line.
            let value = match word.split_once('=') {
                Some((opt, v))
                    if option_name(opt).is_some_and(|n| COMMAND_OPTIONS.contains(&n)) =>
                {
                    Some(v)
                }
                _ => (i > 1)
                    .then(|| words[i - 1])
                    .flatten()
                    .and_then(option_name)
                    .filter(|n| COMMAND_OPTIONS.contains(n))
                    .map(|_| word),
            };
            if let Some(line) = value.filter(|v| v.contains(char::is_whitespace)) {
                for part in line.split(SEPARATORS) {
                    let parts: Vec<String> = part.split_whitespace().map(str::to_owned).collect();
                    if parts.first().is_some_and(|p| names_a_program(p)) {
                        guesses.push(parts);
                    }
                }
            }
        }
        guesses.truncate(MAX_GUESSES);
        for guess in guesses {
            self.push_guess(guess);
        }
    }

    fn push_guess(&mut self, words: Vec<String>) {
        let Some(name) = words.first() else { return };
        let base = name.rsplit('/').next().unwrap_or(name).to_owned();
        let text = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        let plain = words.join(" ");
        let basename_forms = if &base == name {
            Vec::new()
        } else {
            vec![format!("{base}{}", &plain[name.len()..])]
        };
        self.push(Item::Command(Command {
            base,
            text,
            raw: plain.clone(),
            plain,
            basename_forms,
            outer: self.outer.clone(),
            privileged: Vec::<Arc<str>>::new(),
            dynamic_prefix: None,
            path_args: None,
            checked_elsewhere: Some("a program tack does not know may run it"),
            read_only: ReadOnly::No,
            equivalent: None,
            guessed: true,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_names() {
        for w in ["rm", "./x.sh", "/bin/rm", "git", "python3", "g++"] {
            assert!(names_a_program(w), "{w}");
        }
        for w in ["-rf", "a=b", "123", "", "x y", "$X"] {
            assert!(!names_a_program(w), "{w}");
        }
    }
}
