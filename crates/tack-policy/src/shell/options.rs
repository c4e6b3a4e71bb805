//! Reading a program's command line the way GNU `getopt_long` does:
//! options anywhere before `--` (operands and options may mix), short
//! options clustered (`-xzf FILE`), values attached (`-oFILE`,
//! `--output=FILE`) or in the next word. A table of what each program
//! accepts ([`Spec`]) says which options take a value; anything else is
//! reported as unknown, for the caller to judge.

use super::WordVal;

/// The options a program accepts.
#[derive(Default)]
pub(crate) struct Spec {
    /// Short options without a value.
    pub flags: &'static str,
    /// Short options with a value (attached or the next word).
    pub with_arg: &'static str,
    /// Short options whose value may only be attached (`-i.bak`).
    pub optional_arg: &'static str,
    /// Long options without a value.
    pub long_flags: &'static [&'static str],
    /// Long options with a value (`--file=F` or `--file F`).
    pub long_with_arg: &'static [&'static str],
    /// Long options whose value may only be attached (`--in-place=.bak`).
    pub long_optional: &'static [&'static str],
    /// Options stop at the first operand (POSIX order), as for programs
    /// that take a command or a script after their options.
    pub posix: bool,
}

/// An option found: its name as a program documents it (`-o`,
/// `--output`) and its value.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub name: String,
    pub value: Option<WordVal>,
}

/// A command line read against a [`Spec`].
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub found: Vec<Found>,
    pub operands: Vec<WordVal>,
    /// Options the spec does not know, as written.
    pub unknown: Vec<String>,
    /// A word in option position is computed at run time (it may be any
    /// option).
    pub dynamic: bool,
}

impl Parsed {
    /// Values of the options named (in order).
    pub fn values<'a>(&'a self, names: &'a [&str]) -> impl Iterator<Item = Option<&'a WordVal>> {
        self.found
            .iter()
            .filter(move |f| names.contains(&f.name.as_str()))
            .map(|f| f.value.as_ref())
    }

    /// Whether any of the options named was given.
    pub fn has(&self, names: &[&str]) -> bool {
        self.found.iter().any(|f| names.contains(&f.name.as_str()))
    }
}

/// Whether a word computed at run time may expand to an option: it starts
/// with an expansion (or a dash).
pub(crate) fn could_be_option(raw: &str) -> bool {
    let mut chars = raw.chars();
    match chars.next() {
        Some('$' | '`' | '-') => !raw.starts_with("$'"),
        Some('"') => matches!(chars.next(), Some('$' | '`')),
        _ => false,
    }
}

/// Read `words` (the arguments after the program name) against `spec`.
pub(crate) fn parse(words: &[WordVal], spec: &Spec) -> Parsed {
    let mut p = Parsed::default();
    let mut i = 0;
    let mut only_operands = false;
    while let Some(w) = words.get(i) {
        i += 1;
        let lit = match &w.literal {
            Some(l) if !only_operands => l,
            Some(_) => {
                p.operands.push(w.clone());
                continue;
            }
            None => {
                // `$X` may be an option or an operand.
                if !only_operands && could_be_option(&w.raw) {
                    p.dynamic = true;
                }
                p.operands.push(w.clone());
                continue;
            }
        };
        if lit == "--" {
            only_operands = true;
            continue;
        }
        if !lit.starts_with('-') || lit == "-" {
            p.operands.push(w.clone());
            if spec.posix {
                only_operands = true;
            }
            continue;
        }
        if let Some(long) = lit.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let dashed = format!("--{name}");
            let d = dashed.as_str();
            if spec.long_with_arg.contains(&d) {
                let value = match value {
                    Some(v) => Some(WordVal::literal(v)),
                    None => {
                        i += 1;
                        words.get(i - 1).cloned()
                    }
                };
                p.found.push(Found {
                    name: dashed,
                    value,
                });
            } else if spec.long_flags.contains(&d) || spec.long_optional.contains(&d) {
                if value.is_some() && spec.long_flags.contains(&d) {
                    p.unknown.push(lit.clone());
                }
                p.found.push(Found {
                    name: dashed,
                    value: value.map(WordVal::literal),
                });
            } else {
                p.unknown.push(lit.clone());
            }
            continue;
        }
        // `rest` is a slice, not a copy: a copy per letter is quadratic in
        // the word (a 16 KB cluster took over a second).
        let cluster = &lit[1..];
        for (k, c) in cluster.char_indices() {
            let rest = &cluster[k + c.len_utf8()..];
            if spec.with_arg.contains(c) {
                let value = if rest.is_empty() {
                    i += 1;
                    words.get(i - 1).cloned()
                } else {
                    Some(WordVal::literal(rest))
                };
                p.found.push(Found {
                    name: format!("-{c}"),
                    value,
                });
                break;
            }
            if spec.optional_arg.contains(c) {
                p.found.push(Found {
                    name: format!("-{c}"),
                    value: (!rest.is_empty()).then(|| WordVal::literal(rest)),
                });
                break;
            }
            if spec.flags.contains(c) {
                p.found.push(Found {
                    name: format!("-{c}"),
                    value: None,
                });
            } else {
                p.unknown.push(format!("-{c}"));
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<WordVal> {
        s.split(' ').map(WordVal::literal).collect()
    }

    const SED: Spec = Spec {
        flags: "nrEsuz",
        with_arg: "ef",
        optional_arg: "i",
        long_flags: &["--quiet", "--posix"],
        long_with_arg: &["--expression", "--file"],
        long_optional: &["--in-place"],
        posix: false,
    };

    #[test]
    fn clusters_values_and_order() {
        let p = parse(&words("-ni.bak s/a/b/ f -e x --in-place=.orig -- -i"), &SED);
        let names: Vec<&str> = p.found.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["-n", "-i", "-e", "--in-place"]);
        assert_eq!(p.found[1].value.as_ref().unwrap().raw, ".bak");
        let ops: Vec<&str> = p.operands.iter().map(|w| w.raw.as_str()).collect();
        assert_eq!(ops, ["s/a/b/", "f", "-i"]);
        assert!(p.unknown.is_empty());
        let p = parse(&words("-x --frob=1 --quiet=2"), &SED);
        assert_eq!(p.unknown, ["-x", "--frob=1", "--quiet=2"]);
    }
}
