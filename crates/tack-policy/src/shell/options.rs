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
    /// A unique prefix of a long option stands for it (`getopt_long`:
    /// `--rec` for `--recursive`; an ambiguous one is unknown). Tables that
    /// do not say so read a prefix as an unknown option, which callers take
    /// as the uncertain answer.
    pub abbreviations: bool,
}

impl Spec {
    /// No options (what a table does not list is unknown).
    pub const NONE: Spec = Spec {
        flags: "",
        with_arg: "",
        optional_arg: "",
        long_flags: &[],
        long_with_arg: &[],
        long_optional: &[],
        posix: false,
        abbreviations: false,
    };

    /// The long option `written` (after `--`) stands for: itself, or with
    /// [`Spec::abbreviations`] the one it is a unique prefix of.
    fn long_name(&self, written: &str) -> Option<&'static str> {
        let all = || {
            self.long_flags
                .iter()
                .chain(self.long_with_arg)
                .chain(self.long_optional)
                .copied()
        };
        if let Some(exact) = all().find(|n| n.get(2..) == Some(written)) {
            return Some(exact);
        }
        if !self.abbreviations || written.is_empty() {
            return None;
        }
        let mut matches = all().filter(|n| n.get(2..).is_some_and(|n| n.starts_with(written)));
        let first = matches.next()?;
        // Ambiguous: the program refuses it.
        matches.next().is_none().then_some(first)
    }
}

/// An option found: its name as the program's table spells it (`-o`,
/// `--output`, whatever prefix was written), its value, and where.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub name: &'static str,
    /// The value: attached (a literal word made of what follows), the next
    /// word as written (computed ones included), or none (a flag, or a
    /// value missing at the end of the line).
    pub value: Option<WordVal>,
    /// The index (in the words parsed) of the word holding the value, or of
    /// the option when it has none.
    pub at: usize,
}

/// A command line read against a [`Spec`].
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub found: Vec<Found>,
    pub operands: Vec<WordVal>,
    /// The index of each operand in the words parsed.
    pub operand_at: Vec<usize>,
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
            .filter(move |f| names.contains(&f.name))
            .map(|f| f.value.as_ref())
    }

    /// Whether any of the options named was given.
    pub fn has(&self, names: &[&str]) -> bool {
        self.found.iter().any(|f| names.contains(&f.name))
    }

    /// Whether every option is known and none of its values, nor any word
    /// where an option may be, is computed at run time: what the command
    /// does is all in its words.
    pub fn fully_known(&self) -> bool {
        self.unknown.is_empty()
            && !self.dynamic
            && self
                .found
                .iter()
                .all(|f| f.value.as_ref().is_none_or(|v| v.literal.is_some()))
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
    parse_as(words, spec, spec.posix)
}

/// Read the options before the first operand, as a wrapper reads them
/// (`timeout 5 cmd -x`: `-x` is the command's), whatever `spec` says.
pub(crate) fn leading(words: &[WordVal], spec: &Spec) -> Parsed {
    parse_as(words, spec, true)
}

fn parse_as(words: &[WordVal], spec: &Spec, posix: bool) -> Parsed {
    let mut p = Parsed::default();
    let mut i = 0;
    let mut only_operands = false;
    while let Some(w) = words.get(i) {
        let at = i;
        i += 1;
        let lit = match &w.literal {
            Some(l) if !only_operands => l,
            Some(_) => {
                p.push_operand(w, at);
                continue;
            }
            None => {
                // `$X` may be an option or an operand.
                if !only_operands && could_be_option(&w.raw) {
                    p.dynamic = true;
                }
                p.push_operand(w, at);
                only_operands |= posix;
                continue;
            }
        };
        if lit == "--" {
            only_operands = true;
            continue;
        }
        if !lit.starts_with('-') || lit == "-" {
            p.push_operand(w, at);
            only_operands |= posix;
            continue;
        }
        if let Some(long) = lit.strip_prefix("--") {
            let (written, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let Some(name) = spec.long_name(written) else {
                p.unknown.push(lit.clone());
                continue;
            };
            let (value, value_at) = if spec.long_with_arg.contains(&name) {
                match attached {
                    Some(v) => (Some(WordVal::literal(v)), at),
                    None => {
                        i += 1;
                        (words.get(i - 1).cloned(), i - 1)
                    }
                }
            } else {
                // A flag given a value is no option its program knows.
                if attached.is_some() && !spec.long_optional.contains(&name) {
                    p.unknown.push(lit.clone());
                }
                (attached.map(WordVal::literal), at)
            };
            p.found.push(Found {
                name,
                value,
                at: value_at,
            });
            continue;
        }
        // `rest` is a slice, not a copy: a copy per letter is quadratic in
        // the word (a 16 KB cluster took over a second).
        let cluster = &lit[1..];
        for (k, c) in cluster.char_indices() {
            let rest = &cluster[k + c.len_utf8()..];
            let name = short_name(c);
            let (Some(name), true) = (name, spec_has(spec, c)) else {
                p.unknown.push(format!("-{c}"));
                continue;
            };
            if spec.with_arg.contains(c) {
                let (value, value_at) = if rest.is_empty() {
                    i += 1;
                    (words.get(i - 1).cloned(), i - 1)
                } else {
                    (Some(WordVal::literal(rest)), at)
                };
                p.found.push(Found {
                    name,
                    value,
                    at: value_at,
                });
                break;
            }
            if spec.optional_arg.contains(c) {
                p.found.push(Found {
                    name,
                    value: (!rest.is_empty()).then(|| WordVal::literal(rest)),
                    at,
                });
                break;
            }
            p.found.push(Found {
                name,
                value: None,
                at,
            });
        }
    }
    p
}

impl Parsed {
    fn push_operand(&mut self, w: &WordVal, at: usize) {
        self.operands.push(w.clone());
        self.operand_at.push(at);
    }
}

/// Whether `c` is one of `spec`'s short options.
fn spec_has(spec: &Spec, c: char) -> bool {
    spec.flags.contains(c) || spec.with_arg.contains(c) || spec.optional_arg.contains(c)
}

/// The name of short option `c` as the tables spell it (`-f`); `None` for
/// a letter no table uses.
fn short_name(c: char) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-i", "-j", "-k", "-l", "-m", "-n", "-o",
        "-p", "-q", "-r", "-s", "-t", "-u", "-v", "-w", "-x", "-y", "-z", "-A", "-B", "-C", "-D",
        "-E", "-F", "-G", "-H", "-I", "-J", "-K", "-L", "-M", "-N", "-O", "-P", "-Q", "-R", "-S",
        "-T", "-U", "-V", "-W", "-X", "-Y", "-Z", "-0", "-1", "-2", "-3", "-4", "-5", "-6", "-7",
        "-8", "-9", "-.", "-#", "-:", "-@", "-?",
    ];
    NAMES
        .iter()
        .copied()
        .find(|n| n.len() == 1 + c.len_utf8() && n[1..].starts_with(c))
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
        abbreviations: false,
    };

    #[test]
    fn clusters_values_and_order() {
        let p = parse(&words("-ni.bak s/a/b/ f -e x --in-place=.orig -- -i"), &SED);
        let names: Vec<&str> = p.found.iter().map(|f| f.name).collect();
        assert_eq!(names, ["-n", "-i", "-e", "--in-place"]);
        assert_eq!(p.found[1].value.as_ref().unwrap().raw, ".bak");
        let ops: Vec<&str> = p.operands.iter().map(|w| w.raw.as_str()).collect();
        assert_eq!(ops, ["s/a/b/", "f", "-i"]);
        assert!(p.unknown.is_empty());
        let p = parse(&words("-x --frob=1 --quiet=2"), &SED);
        assert_eq!(p.unknown, ["-x", "--frob=1", "--quiet=2"]);
    }

    #[test]
    fn abbreviations_positions_and_leading_options() {
        const SORT: Spec = Spec {
            flags: "ru",
            with_arg: "o",
            long_flags: &["--reverse", "--random-sort"],
            long_with_arg: &["--output"],
            abbreviations: true,
            ..Spec::NONE
        };
        let p = parse(&words("a --out=x --rev b -o y"), &SORT);
        let names: Vec<&str> = p.found.iter().map(|f| f.name).collect();
        assert_eq!(names, ["--output", "--reverse", "-o"]);
        assert_eq!(p.found[2].at, 5, "the value's own word");
        assert_eq!(p.operand_at, [0, 3]);
        // Ambiguous (`--r` is --reverse or --random-sort): unknown.
        assert_eq!(parse(&words("--r a"), &SORT).unknown, ["--r"]);
        // Without abbreviations a prefix is unknown.
        let exact = Spec {
            abbreviations: false,
            ..SORT
        };
        assert_eq!(parse(&words("--out=x"), &exact).unknown, ["--out=x"]);
        // A wrapper's options end at its first operand.
        let p = leading(&words("-r cmd -o x"), &SORT);
        assert_eq!(p.found.len(), 1);
        assert_eq!(p.operand_at, [1, 2, 3]);
        assert!(p.fully_known());
    }
}
