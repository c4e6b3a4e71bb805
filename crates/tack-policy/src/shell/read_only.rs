//! Commands that only read, run without an allow rule (Claude Code's
//! "read-only commands"): `ls`, `cat`, `grep`, `git status`, … in a
//! read-only form, on files inside the working directories (what they read
//! is checked in [`crate::evaluate`]: every operand, or the directory they
//! run in when they name none). Deny and ask rules still apply to them and
//! to the files they read, and a redirection is still an edit.

use super::WordVal;
use super::options::{self, Found, Parsed, Spec};

/// How a command of the set reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadOnly {
    /// Not in the set, or not in a read-only form.
    No,
    /// Reads the files it names (or the directory it runs in): allowed when
    /// they are inside the working directories.
    Files,
    /// Reads no file (`echo`, `pwd`, `date`): allowed whatever its words.
    NoFiles,
}

/// Programs that read the files they name and whose options are all
/// harmless: a pattern (`cat *.md`) may expand to anything, an option among
/// it (`ls` shows a followed link's details at most).
const FILE_READERS_ANY_WORD: &[&str] = &["ls", "cat", "head", "tail", "stat", "cmp", "nl", "tac"];

/// Programs that read the files they name, read-only unless an option
/// says otherwise (checked below), and never with a pattern that may
/// expand to an option among their words (a file named `-delete`, or
/// `--files0-from=list` for `wc *`).
const FILE_READERS: &[&str] = &[
    "find", "rg", "sort", "uniq", "cut", "file", "tree", "realpath", "readlink", "wc", "du",
    "grep", "egrep", "fgrep", "diff",
];

/// Programs that read no file (`date` only in the forms [`date`] accepts).
const NO_FILES: &[&str] = &[
    "echo", "printf", "pwd", "date", "whoami", "id", "uname", "true", "false", "which", "basename",
    "dirname", "test", "[", "seq", "sleep",
];

/// git's subcommands that only read (with the forms of `branch`, `tag`,
/// `remote`, `config`, `stash`, `worktree` that list).
const GIT_READS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "shortlog",
    "describe",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "cat-file",
    "rev-list",
    "merge-base",
    "name-rev",
    "whatchanged",
    "show-ref",
    "for-each-ref",
    "cherry",
    "grep",
];

/// Whether the set needs `base`'s operands resolved (see `path_args`).
pub(super) fn reads_files(base: &str) -> bool {
    FILE_READERS_ANY_WORD.contains(&base)
        || FILE_READERS.contains(&base)
        || base == "git"
        || base == "date"
}

/// How `argv` (its program `base`) reads, if it is in the set.
pub(super) fn read_only(base: &str, argv: &[WordVal]) -> ReadOnly {
    if base == "date" {
        return date(argv);
    }
    let words = || argv.iter().skip(1).map(|w| w.literal.as_deref());
    match base {
        // `command -v git`, `type git`: a name looked up, nothing run.
        "command"
            if matches!(
                argv.get(1).and_then(|w| w.literal.as_deref()),
                Some("-v" | "-V")
            ) =>
        {
            return ReadOnly::NoFiles;
        }
        "type" if words().all(|w| w.is_some()) => return ReadOnly::NoFiles,
        // `set -euo pipefail`: the shell's own error handling.
        "set" if words().all(|w| w.is_some_and(harmless_set_word)) && argv.len() > 1 => {
            return ReadOnly::NoFiles;
        }
        _ => {}
    }
    if NO_FILES.contains(&base) {
        return ReadOnly::NoFiles;
    }
    if base == "git" {
        return git(argv);
    }
    if base == "find" {
        return find(argv);
    }
    let Some(opts) = opts_of(base) else {
        return ReadOnly::No;
    };
    let line = parse(argv, opts);
    if !line.known {
        return ReadOnly::No;
    }
    let read = match base {
        // `uniq IN OUT` writes OUT.
        "uniq" => line.operand_count() <= 1,
        _ => true,
    };
    if read { ReadOnly::Files } else { ReadOnly::No }
}

/// Patterns the shell may expand to a name starting with `-` (`*`,
/// `*.txt` matches `--files0-from=list.txt`), or to another option than
/// the one it starts with (`--f*`; not `--include=*.rs`), before `--`, in
/// the command line of a program of the set that reads files: what they
/// match now is looked at where the command is read (see
/// `Analyzer::expands_to_option`).
pub(super) fn option_like_patterns<'a>(base: &str, argv: &'a [WordVal]) -> Vec<&'a WordVal> {
    if !FILE_READERS.contains(&base) && !super::commands::WRITE_COMMANDS.contains(&base) {
        return Vec::new();
    }
    argv.iter()
        .skip(1)
        .take_while(|w| w.literal.as_deref() != Some("--"))
        .filter(|w| {
            w.glob
                && w.literal.as_deref().is_none_or(|l| {
                    let fixed = &l[..l.find(['*', '?', '[']).unwrap_or(l.len())];
                    fixed.is_empty() || (fixed.starts_with('-') && !fixed.contains('='))
                })
        })
        .collect()
}

/// The files a command of the set reads, as named in its words: its
/// operands that are files (not grep's pattern, not `date`'s format) and
/// the values of its options that name a file it reads (`grep -f PATS`,
/// `-fPATS`, `--file=PATS`, `--fi PATS`). `None` for a program whose
/// options are not known here.
pub(super) fn path_words(base: &str, argv: &[WordVal]) -> Option<PathWords> {
    let opts = if base == "date" {
        &DATE
    } else {
        opts_of(base)?
    };
    let line = parse(argv, opts);
    let mut named: Vec<(usize, String)> = line
        .found()
        .filter(|f| opts.files.contains(&f.name))
        .filter_map(|f| Some((f.at + 1, f.value.as_ref()?.literal.clone()?)))
        .collect();
    let pattern_given = line.found().any(|f| {
        matches!(
            f.name,
            "-e" | "--regexp" | "-f" | "--file" | "--files" | "--type-list"
        )
    });
    let skip = match base {
        "grep" | "egrep" | "fgrep" | "rg" if !pattern_given => 1,
        // `date +%s`: a format.
        "date" => line.operand_count(),
        _ => 0,
    };
    let operands: Vec<(usize, String)> = line
        .operands()
        .skip(skip)
        .filter_map(|k| Some((k, argv.get(k)?.literal.clone()?)))
        .collect();
    let count = line.operand_count().saturating_sub(skip);
    named.extend(operands);
    Some(PathWords {
        named,
        operands: count,
    })
}

/// What [`path_words`] finds.
pub(super) struct PathWords {
    /// The index of each word naming a file read, and the file as written
    /// there (the whole word, or the value attached to an option).
    pub named: Vec<(usize, String)>,
    /// How many operands name files (computed ones included).
    pub operands: usize,
}

/// Whether grep (with these words) reads the directories it is given
/// whole: `-r`, `--recursive`, `--rec`, `-d recurse`, `-drec`,
/// `--directories=rec`, `--dereference-recursive`.
pub(super) fn grep_recursive(argv: &[WordVal]) -> bool {
    let line = parse(argv, &GREP);
    line.found().any(|f| match f.name {
        "-r" | "-R" | "--recursive" | "--dereference-recursive" => true,
        // GNU takes a unique prefix of the action (`rec`; `r` and `re`
        // are ambiguous with `read`, and refused).
        "-d" | "--directories" => f
            .value
            .as_ref()
            .and_then(|v| v.literal.as_deref())
            .is_some_and(|v| v.len() >= 3 && "recurse".starts_with(v)),
        _ => false,
    })
}

/// Whether diff (with these words) follows the links it finds inside the
/// directories it compares (GNU diff does unless `--no-dereference`).
pub(super) fn diff_follows_links(argv: &[WordVal]) -> bool {
    !parse(argv, &DIFF).parsed.has(&["--no-dereference"])
}

/// `date` reads no file, unless `-f FILE` / `-r FILE` (held as files it
/// reads), sets the clock with `-s`/`--set` or an operand not a `+FORMAT`,
/// and is read-only only with options known here.
fn date(argv: &[WordVal]) -> ReadOnly {
    let line = parse(argv, &DATE);
    let formats_only = line.operand_count() <= 1
        && line.operands().all(|k| {
            argv.get(k)
                .and_then(|w| w.literal.as_deref())
                .is_some_and(|l| l.starts_with('+'))
        });
    if !line.known || !formats_only {
        ReadOnly::No
    } else if line.parsed.has(DATE.files) {
        ReadOnly::Files
    } else {
        ReadOnly::NoFiles
    }
}

/// `find` with no action that writes, runs a program, follows links or
/// reads its starting points from a file (`-files0-from`).
fn find(argv: &[WordVal]) -> ReadOnly {
    if argv.iter().skip(1).any(|w| w.glob) {
        return ReadOnly::No;
    }
    let refused = argv.iter().skip(1).any(|w| {
        let l = w.literal.as_deref().unwrap_or("-exec");
        l.starts_with("-exec")
            || l.starts_with("-ok")
            || l == "-delete"
            || l.starts_with("-fprint")
            || l == "-fls"
            || l == "-files0-from"
            || matches!(l, "-L" | "-H" | "-follow")
    });
    if refused {
        ReadOnly::No
    } else {
        ReadOnly::Files
    }
}

/// A word of `set` that changes only how the shell reports and stops:
/// `-e`, `-euo`, `+x`, `pipefail` (not `-k`, `-f`, `-o keyword`, nor
/// positional parameters).
fn harmless_set_word(w: &str) -> bool {
    const NAMES: &[&str] = &[
        "pipefail", "errexit", "nounset", "xtrace", "verbose", "errtrace",
    ];
    NAMES.contains(&w)
        || w.strip_prefix(['-', '+'])
            .is_some_and(|l| !l.is_empty() && l.chars().all(|c| "euxvoE".contains(c)))
}

/// The options of a program of the set: everything it accepts that only
/// changes how it reads or prints, the options whose value is a file it
/// reads, and those known to write, run a program, follow links out of
/// the working directories or read files named elsewhere (`refused`). An
/// option not listed makes the command not read-only: the tables say what
/// is known safe, not what is known dangerous.
pub(super) struct Reader {
    /// Everything it accepts, read as `getopt_long` does (with unique
    /// prefixes of long options, but for ripgrep and tree).
    pub spec: Spec,
    /// Options (among the above) whose value names a file it reads.
    files: &'static [&'static str],
    /// Options (among the above) that keep the command out of the set.
    refused: &'static [&'static str],
}

const LS: Reader = Reader {
    spec: Spec {
        flags: "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
        with_arg: "ITw",
        optional_arg: "",
        long_flags: &[
            "--all",
            "--almost-all",
            "--author",
            "--escape",
            "--ignore-backups",
            "--directory",
            "--dired",
            "--file-type",
            "--full-time",
            "--group-directories-first",
            "--no-group",
            "--human-readable",
            "--si",
            "--dereference-command-line",
            "--dereference-command-line-symlink-to-dir",
            "--inode",
            "--kibibytes",
            "--dereference",
            "--literal",
            "--numeric-uid-gid",
            "--hide-control-chars",
            "--show-control-chars",
            "--quote-name",
            "--reverse",
            "--recursive",
            "--size",
            "--context",
            "--zero",
            "--help",
            "--version",
        ],
        long_with_arg: &[
            "--block-size",
            "--hide",
            "--indicator-style",
            "--ignore",
            "--quoting-style",
            "--sort",
            "--time",
            "--time-style",
            "--tabsize",
            "--width",
            "--format",
        ],
        long_optional: &["--color", "--colour", "--classify", "--hyperlink"],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    // Links followed lead anywhere.
    refused: &["-L", "--dereference"],
};

const CAT: Reader = Reader {
    spec: Spec {
        flags: "AbeEnstTuv",
        with_arg: "",
        optional_arg: "",
        long_flags: &[
            "--show-all",
            "--number-nonblank",
            "--show-ends",
            "--number",
            "--squeeze-blank",
            "--show-tabs",
            "--show-nonprinting",
            "--help",
            "--version",
        ],
        long_with_arg: &[],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const HEAD: Reader = Reader {
    spec: Spec {
        flags: "qvz0123456789",
        with_arg: "cn",
        optional_arg: "",
        long_flags: &[
            "--quiet",
            "--silent",
            "--verbose",
            "--zero-terminated",
            "--help",
            "--version",
        ],
        long_with_arg: &["--bytes", "--lines"],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const TAIL: Reader = Reader {
    spec: Spec {
        flags: "fFqvz0123456789",
        with_arg: "cns",
        optional_arg: "",
        long_flags: &[
            "--quiet",
            "--silent",
            "--verbose",
            "--zero-terminated",
            "--retry",
            "--help",
            "--version",
        ],
        long_with_arg: &[
            "--bytes",
            "--lines",
            "--max-unchanged-stats",
            "--pid",
            "--sleep-interval",
        ],
        long_optional: &["--follow"],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const STAT: Reader = Reader {
    spec: Spec {
        flags: "LftZ",
        with_arg: "c",
        optional_arg: "",
        long_flags: &[
            "--dereference",
            "--file-system",
            "--terse",
            "--help",
            "--version",
        ],
        long_with_arg: &["--format", "--printf", "--cached"],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const CMP: Reader = Reader {
    spec: Spec {
        flags: "blsv",
        with_arg: "in",
        optional_arg: "",
        long_flags: &[
            "--print-bytes",
            "--verbose",
            "--quiet",
            "--silent",
            "--help",
            "--version",
        ],
        long_with_arg: &["--ignore-initial", "--bytes"],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const NL: Reader = Reader {
    spec: Spec {
        flags: "p",
        with_arg: "bdfhilnsvw",
        optional_arg: "",
        long_flags: &["--no-renumber", "--help", "--version"],
        long_with_arg: &[
            "--body-numbering",
            "--section-delimiter",
            "--footer-numbering",
            "--header-numbering",
            "--line-increment",
            "--join-blank-lines",
            "--number-format",
            "--number-separator",
            "--starting-line-number",
            "--number-width",
        ],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const TAC: Reader = Reader {
    spec: Spec {
        flags: "br",
        with_arg: "s",
        optional_arg: "",
        long_flags: &["--before", "--regex", "--help", "--version"],
        long_with_arg: &["--separator"],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const WC: Reader = Reader {
    spec: Spec {
        flags: "clmwL",
        with_arg: "",
        optional_arg: "",
        long_flags: &[
            "--bytes",
            "--chars",
            "--lines",
            "--words",
            "--max-line-length",
            "--help",
            "--version",
        ],
        long_with_arg: &["--total", "--files0-from"],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &["--files0-from"],
    // The files it reads are named in a file (or on stdin).
    refused: &["--files0-from"],
};

const DU: Reader = Reader {
    spec: Spec {
        flags: "0abcDhHklLmPsSx",
        with_arg: "BdtX",
        optional_arg: "",
        long_flags: &[
            "--null",
            "--all",
            "--apparent-size",
            "--bytes",
            "--total",
            "--dereference-args",
            "--human-readable",
            "--inodes",
            "--dereference",
            "--count-links",
            "--no-dereference",
            "--separate-dirs",
            "--si",
            "--summarize",
            "--one-file-system",
            "--help",
            "--version",
        ],
        long_with_arg: &[
            "--block-size",
            "--max-depth",
            "--threshold",
            "--time-style",
            "--exclude-from",
            "--exclude",
            "--files0-from",
        ],
        long_optional: &["--time"],
        posix: false,
        abbreviations: true,
    },
    files: &["-X", "--exclude-from", "--files0-from"],
    refused: &["-L", "--dereference", "--files0-from"],
};

const GREP: Reader = Reader {
    spec: Spec {
        flags: "EFGPiyvwxcLloqsbHhnTZzaIrRuUV0123456789",
        with_arg: "efmABCdDX",
        optional_arg: "",
        long_flags: &[
            "--extended-regexp",
            "--fixed-strings",
            "--basic-regexp",
            "--perl-regexp",
            "--ignore-case",
            "--no-ignore-case",
            "--word-regexp",
            "--line-regexp",
            "--null-data",
            "--no-messages",
            "--invert-match",
            "--version",
            "--help",
            "--count",
            "--files-without-match",
            "--files-with-matches",
            "--only-matching",
            "--quiet",
            "--silent",
            "--byte-offset",
            "--with-filename",
            "--no-filename",
            "--line-number",
            "--initial-tab",
            "--unix-byte-offsets",
            "--null",
            "--text",
            "--recursive",
            "--dereference-recursive",
            "--line-buffered",
            "--binary",
            "--no-group-separator",
        ],
        long_with_arg: &[
            "--regexp",
            "--file",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--label",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--exclude-from",
            "--binary-files",
            "--devices",
            "--directories",
            "--group-separator",
        ],
        long_optional: &["--color", "--colour"],
        posix: false,
        abbreviations: true,
    },
    files: &["-f", "--file", "--exclude-from"],
    // Links followed while walking lead anywhere.
    refused: &["-R", "--dereference-recursive"],
};

const DIFF: Reader = Reader {
    spec: Spec {
        flags: "abBcdeEilnNpqrsStTuwyZ0123456789",
        with_arg: "CDFILSUWxX",
        optional_arg: "",
        long_flags: &[
            "--normal",
            "--brief",
            "--report-identical-files",
            "--ed",
            "--rcs",
            "--side-by-side",
            "--left-column",
            "--suppress-common-lines",
            "--show-c-function",
            "--expand-tabs",
            "--initial-tab",
            "--suppress-blank-empty",
            "--recursive",
            "--no-dereference",
            "--new-file",
            "--unidirectional-new-file",
            "--ignore-file-name-case",
            "--no-ignore-file-name-case",
            "--ignore-case",
            "--ignore-tab-expansion",
            "--ignore-trailing-space",
            "--ignore-space-change",
            "--ignore-all-space",
            "--ignore-blank-lines",
            "--text",
            "--strip-trailing-cr",
            "--minimal",
            "--speed-large-files",
            "--help",
            "--version",
            "--paginate",
        ],
        long_with_arg: &[
            "--show-function-line",
            "--label",
            "--width",
            "--tabsize",
            "--exclude",
            "--exclude-from",
            "--starting-file",
            "--from-file",
            "--to-file",
            "--ignore-matching-lines",
            "--horizon-lines",
            "--line-format",
            "--old-line-format",
            "--new-line-format",
            "--unchanged-line-format",
            "--old-group-format",
            "--new-group-format",
            "--changed-group-format",
            "--unchanged-group-format",
            "--ifdef",
            "--palette",
        ],
        long_optional: &["--context", "--unified", "--color"],
        posix: false,
        abbreviations: true,
    },
    files: &["-X", "--exclude-from", "--from-file", "--to-file"],
    // `-l` pipes the output through `pr`.
    refused: &["-l", "--paginate"],
};

const RG: Reader = Reader {
    spec: Spec {
        flags: "abcFHiIlnNopqsSuUvVwxzL0.h",
        with_arg: "ABCdEefgjmMrtT",
        optional_arg: "",
        long_flags: &[
            "--binary",
            "--no-binary",
            "--block-buffered",
            "--no-block-buffered",
            "--byte-offset",
            "--no-byte-offset",
            "--case-sensitive",
            "--column",
            "--no-column",
            "--count",
            "--count-matches",
            "--crlf",
            "--no-crlf",
            "--debug",
            "--trace",
            "--fixed-strings",
            "--no-fixed-strings",
            "--files",
            "--files-with-matches",
            "--files-without-match",
            "--glob-case-insensitive",
            "--no-glob-case-insensitive",
            "--heading",
            "--no-heading",
            "--hidden",
            "--no-hidden",
            "--ignore-case",
            "--ignore-file-case-insensitive",
            "--no-ignore-file-case-insensitive",
            "--include-zero",
            "--no-include-zero",
            "--invert-match",
            "--no-invert-match",
            "--json",
            "--no-json",
            "--line-buffered",
            "--no-line-buffered",
            "--line-number",
            "--no-line-number",
            "--line-regexp",
            "--max-columns-preview",
            "--no-max-columns-preview",
            "--mmap",
            "--no-mmap",
            "--multiline",
            "--no-multiline",
            "--multiline-dotall",
            "--no-multiline-dotall",
            "--no-config",
            "--no-ignore",
            "--ignore",
            "--no-ignore-dot",
            "--ignore-dot",
            "--no-ignore-exclude",
            "--ignore-exclude",
            "--no-ignore-files",
            "--ignore-files",
            "--no-ignore-global",
            "--ignore-global",
            "--no-ignore-messages",
            "--ignore-messages",
            "--no-ignore-parent",
            "--ignore-parent",
            "--no-ignore-vcs",
            "--ignore-vcs",
            "--no-messages",
            "--messages",
            "--no-require-git",
            "--require-git",
            "--no-unicode",
            "--unicode",
            "--null",
            "--null-data",
            "--one-file-system",
            "--no-one-file-system",
            "--only-matching",
            "--passthru",
            "--passthrough",
            "--pcre2",
            "--no-pcre2",
            "--pcre2-version",
            "--pretty",
            "--quiet",
            "--search-zip",
            "--no-search-zip",
            "--smart-case",
            "--sort-files",
            "--no-sort-files",
            "--stats",
            "--no-stats",
            "--text",
            "--no-text",
            "--trim",
            "--no-trim",
            "--type-list",
            "--unrestricted",
            "--vimgrep",
            "--with-filename",
            "--no-filename",
            "--word-regexp",
            "--auto-hybrid-regex",
            "--no-auto-hybrid-regex",
            "--follow",
            "--no-follow",
            "--help",
            "--version",
            "--no-pre",
            "--stop-on-nonmatch",
            "--no-context-separator",
            "--no-pcre2-unicode",
            "--pcre2-unicode",
            "--no-encoding",
        ],
        long_with_arg: &[
            "--after-context",
            "--before-context",
            "--context",
            "--max-depth",
            "--maxdepth",
            "--encoding",
            "--regexp",
            "--file",
            "--glob",
            "--iglob",
            "--threads",
            "--max-count",
            "--max-columns",
            "--replace",
            "--type",
            "--type-not",
            "--type-add",
            "--type-clear",
            "--max-filesize",
            "--dfa-size-limit",
            "--regex-size-limit",
            "--engine",
            "--color",
            "--colors",
            "--sort",
            "--sortr",
            "--context-separator",
            "--field-context-separator",
            "--field-match-separator",
            "--path-separator",
            "--generate",
            "--hyperlink-format",
            "--ignore-file",
            "--pre",
            "--pre-glob",
            "--hostname-bin",
        ],
        long_optional: &[],
        posix: false,
        abbreviations: false,
    },
    files: &["-f", "--file", "--ignore-file"],
    // `--pre` and `-z` run programs; `-L` follows links anywhere.
    refused: &[
        "--pre",
        "--pre-glob",
        "--search-zip",
        "-z",
        "--hostname-bin",
        "-L",
        "--follow",
    ],
};

pub(super) const SORT: Reader = Reader {
    spec: Spec {
        flags: "bdfgiMhnRrVcCmsuz",
        with_arg: "kStTo",
        optional_arg: "",
        long_flags: &[
            "--ignore-leading-blanks",
            "--dictionary-order",
            "--ignore-case",
            "--general-numeric-sort",
            "--ignore-nonprinting",
            "--month-sort",
            "--human-numeric-sort",
            "--numeric-sort",
            "--random-sort",
            "--reverse",
            "--version-sort",
            "--debug",
            "--merge",
            "--stable",
            "--unique",
            "--zero-terminated",
            "--help",
            "--version",
        ],
        long_with_arg: &[
            "--sort",
            "--random-source",
            "--batch-size",
            "--compress-program",
            "--files0-from",
            "--key",
            "--output",
            "--buffer-size",
            "--field-separator",
            "--temporary-directory",
            "--parallel",
        ],
        long_optional: &["--check"],
        posix: false,
        abbreviations: true,
    },
    // Temporary files go to `-T DIR`.
    files: &["--random-source", "-T", "--temporary-directory"],
    refused: &["-o", "--output", "--compress-program", "--files0-from"],
};

pub(super) const UNIQ: Reader = Reader {
    spec: Spec {
        flags: "cdDiuz",
        with_arg: "fsw",
        optional_arg: "",
        long_flags: &[
            "--count",
            "--repeated",
            "--ignore-case",
            "--unique",
            "--zero-terminated",
            "--help",
            "--version",
        ],
        long_with_arg: &["--skip-fields", "--skip-chars", "--check-chars"],
        long_optional: &["--all-repeated", "--group"],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const CUT: Reader = Reader {
    spec: Spec {
        flags: "nsz",
        with_arg: "bcdf",
        optional_arg: "",
        long_flags: &[
            "--complement",
            "--only-delimited",
            "--zero-terminated",
            "--help",
            "--version",
        ],
        long_with_arg: &[
            "--bytes",
            "--characters",
            "--delimiter",
            "--fields",
            "--output-delimiter",
        ],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const FILE: Reader = Reader {
    spec: Spec {
        flags: "0bcCdEhikLlNnprsSvzZ",
        with_arg: "efFmP",
        optional_arg: "",
        long_flags: &[
            "--apple",
            "--brief",
            "--checking-printout",
            "--compile",
            "--debug",
            "--extension",
            "--no-dereference",
            "--mime",
            "--mime-type",
            "--mime-encoding",
            "--keep-going",
            "--list",
            "--dereference",
            "--no-pad",
            "--no-buffer",
            "--preserve-date",
            "--raw",
            "--special-files",
            "--no-sandbox",
            "--version",
            "--uncompress",
            "--uncompress-noreport",
            "--print0",
            "--help",
        ],
        long_with_arg: &[
            "--exclude",
            "--exclude-quiet",
            "--files-from",
            "--separator",
            "--magic-file",
            "--parameter",
        ],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    // Read whatever the command is (refused below for the set all the same:
    // the files it lists are not known here).
    files: &["-f", "--files-from", "-m", "--magic-file"],
    // `-C` writes a compiled magic file, `-z` runs decompressors, `-p`
    // resets access times, `-f` reads the files to examine from a file.
    refused: &[
        "-C",
        "--compile",
        "-z",
        "-Z",
        "--uncompress",
        "--uncompress-noreport",
        "-p",
        "--preserve-date",
        "-f",
        "--files-from",
        "-m",
        "--magic-file",
        "-S",
        "--no-sandbox",
    ],
};

const TREE: Reader = Reader {
    spec: Spec {
        flags: "adlfxRPqNQpugshDFvtcUrACSnXJi",
        with_arg: "LPIoHT",
        optional_arg: "",
        long_flags: &[
            "--gitignore",
            "--ignore-case",
            "--matchdirs",
            "--metafirst",
            "--prune",
            "--info",
            "--noreport",
            "--dirsfirst",
            "--filesfirst",
            "--si",
            "--du",
            "--inodes",
            "--device",
            "--nolinks",
            "--fflinks",
            "--version",
            "--help",
            "--condense",
            "--hyperlink",
        ],
        long_with_arg: &[
            "--gitfile",
            "--infofile",
            "--charset",
            "--filelimit",
            "--timefmt",
            "--sort",
            "--hintro",
            "--houtro",
            "--fromfile",
            "--fromtabfile",
            "--output",
            "--scheme",
            "--authority",
        ],
        long_optional: &[],
        posix: false,
        abbreviations: false,
    },
    files: &[
        "--gitfile",
        "--infofile",
        "--hintro",
        "--houtro",
        "--fromfile",
        "--fromtabfile",
    ],
    // `-o` writes; `-R` with `-H` writes a page into every directory; `-l`
    // follows links; `--fromfile` reads the listing from a file.
    refused: &["-o", "--output", "-R", "-l", "--fromfile", "--fromtabfile"],
};

const REALPATH: Reader = Reader {
    spec: Spec {
        flags: "eLmPqsz",
        with_arg: "",
        optional_arg: "",
        long_flags: &[
            "--canonicalize-existing",
            "--canonicalize-missing",
            "--logical",
            "--physical",
            "--quiet",
            "--strip",
            "--no-symlinks",
            "--zero",
            "--help",
            "--version",
        ],
        long_with_arg: &["--relative-to", "--relative-base"],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const READLINK: Reader = Reader {
    spec: Spec {
        flags: "femnqsvz",
        with_arg: "",
        optional_arg: "",
        long_flags: &[
            "--canonicalize",
            "--canonicalize-existing",
            "--canonicalize-missing",
            "--no-newline",
            "--quiet",
            "--silent",
            "--verbose",
            "--zero",
            "--help",
            "--version",
        ],
        long_with_arg: &[],
        long_optional: &[],
        posix: false,
        abbreviations: true,
    },
    files: &[],
    refused: &[],
};

const DATE: Reader = Reader {
    spec: Spec {
        flags: "uR",
        with_arg: "dfrs",
        optional_arg: "I",
        long_flags: &[
            "--utc",
            "--universal",
            "--rfc-email",
            "--rfc-2822",
            "--debug",
            "--resolution",
            "--help",
            "--version",
        ],
        long_with_arg: &["--date", "--file", "--reference", "--set", "--rfc-3339"],
        long_optional: &["--iso-8601"],
        posix: false,
        abbreviations: true,
    },
    files: &["-f", "--file", "-r", "--reference"],
    // It sets the clock (as root).
    refused: &["-s", "--set"],
};

/// The options of `base`, when it is a program of the set read by them.
fn opts_of(base: &str) -> Option<&'static Reader> {
    Some(match base {
        "ls" => &LS,
        "cat" => &CAT,
        "head" => &HEAD,
        "tail" => &TAIL,
        "stat" => &STAT,
        "cmp" => &CMP,
        "nl" => &NL,
        "tac" => &TAC,
        "wc" => &WC,
        "du" => &DU,
        "grep" | "egrep" | "fgrep" => &GREP,
        "diff" => &DIFF,
        "rg" => &RG,
        "sort" => &SORT,
        "uniq" => &UNIQ,
        "cut" => &CUT,
        "file" => &FILE,
        "tree" => &TREE,
        "realpath" => &REALPATH,
        "readlink" => &READLINK,
        _ => return None,
    })
}

/// A command line read against a [`Reader`]'s options.
struct Line {
    parsed: Parsed,
    /// Every option known, none refused, nothing computed where an option
    /// or an option's value may be.
    known: bool,
}

impl Line {
    fn found(&self) -> impl Iterator<Item = &Found> {
        self.parsed.found.iter()
    }

    /// The operands, by their index in `argv`.
    fn operands(&self) -> impl Iterator<Item = usize> + '_ {
        self.parsed.operand_at.iter().map(|k| k + 1)
    }

    fn operand_count(&self) -> usize {
        self.parsed.operand_at.len()
    }
}

/// Read `argv` (the program's name first) against `reader`'s options.
fn parse(argv: &[WordVal], reader: &Reader) -> Line {
    let parsed = options::parse(argv.get(1..).unwrap_or_default(), &reader.spec);
    let known = parsed.fully_known() && !parsed.has(reader.refused);
    Line { parsed, known }
}

/// `git SUBCOMMAND …` with no global option before the subcommand (`-C`,
/// `-c`, `--git-dir` change what it reads or runs; `--no-pager`, `-P` and
/// `--no-optional-locks` do not) and a subcommand that only reads.
fn git(argv: &[WordVal]) -> ReadOnly {
    let words: Vec<&str> = argv
        .iter()
        .skip(1)
        .map(|w| w.literal.as_deref().unwrap_or("\u{0}"))
        .skip_while(|w| matches!(*w, "--no-pager" | "-P" | "--no-optional-locks"))
        .collect();
    let Some((&sub, rest)) = words.split_first() else {
        return ReadOnly::No;
    };
    let options_only = |allowed: &[&str]| rest.iter().all(|w| allowed.contains(w));
    // A short option of `sub` with a file attached (`blame -S/x`,
    // `ls-files -oX/x`): the file is not an operand the checks see.
    let attached_file = |letter: char| {
        rest.iter().any(|w| {
            !w.starts_with("--")
                && w.strip_prefix('-')
                    .and_then(|c| c.split_once(letter))
                    .is_some_and(|(_, value)| !value.is_empty())
        })
    };
    // `git diff --output=FILE` and `--ext-diff` are found by git's own
    // analysis (an edit, an uncertainty): they are parts of their own.
    // The first word that is not an option (`reflog show`, `submodule
    // status`).
    let action = rest.iter().find(|w| !w.starts_with('-')).copied();
    let read = match sub {
        s if GIT_READS.contains(&s)
            || (s == "reflog" && matches!(action, None | Some("show" | "exists"))) =>
        {
            // `--orderfile` attached (`-O/etc/x`) is read as a file too.
            let file_attached = (sub == "blame" && attached_file('S'))
                || (sub == "grep" && attached_file('f'))
                || (sub == "ls-files" && attached_file('X'))
                || (matches!(sub, "diff" | "log" | "show" | "whatchanged") && attached_file('O'));
            // `git grep -O[cmd]`, `--open-files-in-pager`: the files
            // are opened with a program.
            let opens = sub == "grep"
                && rest.iter().any(|w| {
                    w.starts_with("--open")
                        || (w.starts_with('-') && !w.starts_with("--") && w.contains('O'))
                });
            !file_attached
                && !opens
                && !rest.iter().any(|w| {
                    // `--output=FILE` (not `--output-indicator-new=+`).
                    *w == "--output"
                        || w.starts_with("--output=")
                        || w.starts_with("--ext-diff")
                        || w.starts_with("--textconv")
                        || w.starts_with("--exec")
                        || runs_gpg(w)
                })
        }
        "branch" | "tag" => lists_refs(sub, rest),
        // `git symbolic-ref HEAD`: one name read (two set it).
        "symbolic-ref" => {
            rest.iter().filter(|w| !w.starts_with('-')).count() == 1
                && rest.iter().filter(|w| w.starts_with('-')).all(|w| {
                    matches!(
                        *w,
                        "-q" | "--quiet" | "--short" | "--no-recurse" | "--recurse"
                    )
                })
        }
        "count-objects" => options_only(&["-v", "--verbose", "-H", "--human-readable", "-vH"]),
        "submodule" => {
            matches!(action, None | Some("status"))
                && rest
                    .iter()
                    .filter(|w| w.starts_with('-'))
                    .all(|w| matches!(*w, "--cached" | "--recursive" | "-q" | "--quiet" | "--"))
        }
        // `git help log`, `git help -a`: not `-w`/`--web` (a browser) nor
        // `-i`/`--info`.
        "help" => rest.iter().filter(|w| w.starts_with('-')).all(|w| {
            matches!(
                *w,
                "-a" | "--all"
                    | "-g"
                    | "--guides"
                    | "-c"
                    | "--config"
                    | "-m"
                    | "--man"
                    | "--verbose"
                    | "--no-verbose"
                    | "--external-commands"
                    | "--no-external-commands"
                    | "--aliases"
                    | "--no-aliases"
                    | "--user-interfaces"
                    | "--developer-interfaces"
            )
        }),
        "remote" => options_only(&["-v", "--verbose"]),
        "stash" => rest == ["list"],
        "worktree" => rest == ["list"],
        "config" => config_reads(rest),
        "version" | "--version" => rest.iter().all(|w| *w == "--build-options"),
        _ => false,
    };
    if read { ReadOnly::Files } else { ReadOnly::No }
}

/// `git branch` and `git tag` in a form that lists: only listing options
/// (a filter such as `--contains REV`, `--merged REV`, `--points-at OBJ`,
/// `--sort=KEY`, `--format=FMT` takes its value attached or in the next
/// word), and an operand only as a pattern of the list (`--list`, `-l`, or
/// a filter: git lists then).
fn lists_refs(sub: &str, rest: &[&str]) -> bool {
    const FLAGS: &[&str] = &[
        "-a",
        "-r",
        "-v",
        "-vv",
        "--verbose",
        "-l",
        "--list",
        "--all",
        "--remotes",
        "--show-current",
        "--no-color",
        "--color",
        "-i",
        "--ignore-case",
        "--omit-empty",
        "--column",
        "--no-column",
        "--abbrev",
        "--no-abbrev",
    ];
    // Filters: their value may be left out (`--contains` is HEAD).
    const FILTERS: &[&str] = &[
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
    ];
    const WITH_VALUE: &[&str] = &["--sort", "--format"];
    let mut listing = false;
    let mut operands = 0;
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        k += 1;
        let name = w.split_once('=').map_or(*w, |(n, _)| n);
        if FILTERS.contains(&name) {
            listing = true;
            if !w.contains('=') && rest.get(k).is_some_and(|v| !v.starts_with('-')) {
                k += 1;
            }
        } else if WITH_VALUE.contains(&name) {
            if !w.contains('=') {
                k += 1;
            }
        } else if FLAGS.contains(w)
            || name == "--abbrev"
            || name == "--color"
            || name == "--column"
            || (sub == "tag" && w.starts_with("-n") && w[2..].chars().all(|c| c.is_ascii_digit()))
        {
            listing |= matches!(*w, "-l" | "--list") || (sub == "tag" && w.starts_with("-n"));
        } else if w.starts_with('-') {
            return false;
        } else {
            operands += 1;
        }
    }
    operands == 0 || listing
}

/// `git log --show-signature` and the `%G…` placeholders of a format
/// (`%G?`, `%GG`, `%GS`, `%GK`, `%GF`, `%GP`, `%GT`) run gpg on every
/// signed commit.
fn runs_gpg(word: &str) -> bool {
    word.starts_with("--show-sig")
        || word
            .match_indices("%G")
            .any(|(k, _)| word[k + 2..].starts_with(['?', 'G', 'S', 'K', 'F', 'P', 'T']))
}

/// `git config` in a form that only reads: a getting action (or one key
/// and nothing else), anywhere among options known to change only what is
/// printed (not `-f FILE`, `-fFILE`, `--fil=FILE`, `--blob`, which read
/// another file, nor an action that writes). What it reads outside the
/// working directories (the user's and the system's files, for a list, a
/// regexp, `--global`, `--show-origin`, …) is held to them in git's own
/// analysis, as a file read through a redirection is.
fn config_reads(rest: &[&str]) -> bool {
    const GETS: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "-l",
        "--list",
        "get",
        "list",
    ];
    const SHOWS: &[&str] = &[
        "--local",
        "--global",
        "--system",
        "--worktree",
        "--show-origin",
        "--show-scope",
        "--show-names",
        "--no-show-names",
        "-z",
        "--null",
        "--name-only",
        "--includes",
        "--no-includes",
        "--bool",
        "--int",
        "--bool-or-int",
        "--path",
        "--expiry-date",
        "--no-type",
        "--all",
        "--regexp",
    ];
    let key_like = |key: &str| {
        !key.starts_with('-')
            && key.contains('.')
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    };
    // `git config user.name`: one key and no value is a get.
    if let [key] = rest
        && key_like(key)
    {
        return true;
    }
    // The action: an option anywhere, or the first word of the
    // subcommand form (`git config get KEY`, `git config list`).
    let first_word = rest.iter().find(|w| !w.starts_with('-'));
    let action = rest.iter().any(|w| w.starts_with('-') && GETS.contains(w))
        || first_word.is_some_and(|w| matches!(*w, "get" | "list"));
    action
        && rest.iter().all(|w| {
            !w.starts_with('-')
                || GETS.contains(w)
                || SHOWS.contains(w)
                || w.starts_with("--type=")
                || w.starts_with("--default=")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<WordVal> {
        line.split(' ')
            .map(|w| {
                let mut v = WordVal::literal(w);
                v.glob = w.contains('*');
                v
            })
            .collect()
    }

    fn of(line: &str) -> ReadOnly {
        let argv = words(line);
        let base = argv[0].literal.clone().unwrap();
        read_only(&base, &argv)
    }

    #[test]
    fn read_only_forms() {
        for line in [
            "ls -la",
            "cat a b",
            "ls *.ts",
            "grep -rn x .",
            "find . -name x",
            "sort f",
            "git status",
            "git log --oneline -5",
            "git branch -a",
            "git config --get user.name",
            "git stash list",
            "file README",
        ] {
            assert_eq!(of(line), ReadOnly::Files, "{line}");
        }
        for line in ["echo hi", "pwd", "date"] {
            assert_eq!(of(line), ReadOnly::NoFiles, "{line}");
        }
        for line in [
            "find . -delete",
            "find . -exec cat {} ;",
            "find *",
            "sort -o out f",
            "sort -uo out f",
            "rg --pre sh x",
            "uniq in out",
            "git -C /x status",
            "git branch new",
            "git tag v1",
            "git config user.name x",
            "git stash",
            "git push",
            "git diff --ext-diff",
            "git log --output=x",
            "file -m magic x",
            "date -s 2020-01-01",
            "date --set=2020-01-01",
            "rg --hostname-bin=sh x",
            "grep -R x .",
            "grep -rRn x .",
            "du -L .",
            "ls -RL",
            "find -L . -name x",
            "find . -follow",
            "rg -L x",
            "tree -l",
            "sed -n 1p f",
            "awk 1 f",
            "rm x",
            "git *",
        ] {
            assert_eq!(of(line), ReadOnly::No, "{line}");
        }
    }
}
