//! What a command reads beyond the paths it names: programs that read
//! files named only at run time (`xargs cat`, `cat "$f"`), and programs that
//! read everything under a directory they are given (`grep -r`, `rg`,
//! `tar -c`, `cp -r`, `find … -exec cat {} +`). A Read deny rule for
//! `./.env` must hold against `grep -r KEY .` as against `cat .env`: the
//! directory is checked for what lies inside it (see
//! [`crate::request`]'s walk).

use super::WordVal;

/// Programs whose operands are files they read (so an operand computed at
/// run time is a file read that Read deny and ask rules cannot see).
const READERS: &[&str] = &[
    "cat",
    "tac",
    "head",
    "tail",
    "less",
    "more",
    "most",
    "nl",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "base64",
    "base32",
    "basenc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "ugrep",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sort",
    "uniq",
    "cut",
    "paste",
    "join",
    "comm",
    "wc",
    "diff",
    "cmp",
    "sdiff",
    "diff3",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "jq",
    "yq",
    "tar",
    "zip",
    "gzip",
    "gunzip",
    "zcat",
    "bzip2",
    "bzcat",
    "xz",
    "xzcat",
    "zstd",
    "zstdcat",
    "lz4",
    "cp",
    "rsync",
    "scp",
    "install",
    "iconv",
    "fold",
    "fmt",
    "pr",
    "expand",
    "unexpand",
    "column",
    "split",
    "csplit",
    "tee",
    "look",
    "shuf",
    "tr",
    "vim",
    "vi",
    "view",
    "nano",
    "emacs",
    "bat",
    "batcat",
    "file",
    "openssl",
    "gpg",
    "curl",
    "nc",
    "socat",
    "mail",
    "xclip",
    "xsel",
    "wl-copy",
];

/// Whether `base` reads the files it is given.
pub(crate) fn is_reader(base: &str) -> bool {
    READERS.contains(&base)
}

/// Whether `base` opens none of the files it is given for reading: it
/// looks at their names, types, sizes or modes (`ls .env`, `test -f .env`,
/// `stat .env`, `git check-ignore .env`) or changes only those (`chmod 600
/// .env`, `touch .env`). A Read rule does not hold against these for a
/// file; a directory given stays a read (`ls secrets` lists what it holds).
pub(super) fn looks_only(base: &str, argv: &[WordVal]) -> bool {
    const LOOKERS: &[&str] = &[
        "ls", "dir", "vdir", "stat", "test", "[", "[[", "du", "realpath", "readlink", "basename",
        "dirname", "namei", "lsattr", "getfacl", "touch", "chmod", "chown", "chgrp", "mkdir",
    ];
    LOOKERS.contains(&base)
        || (base == "git" && argv.get(1).and_then(|w| w.literal.as_deref()) == Some("check-ignore"))
}

/// Programs that change none of the files they are given, or whose
/// changes the analysis reads from their options and operands itself (`sed
/// -i`, `cp`, `tar -x`, `git`); any other program may change a file it is
/// given ([`super::Family::MaybeEdit`]).
pub(super) fn leaves_alone(base: &str) -> bool {
    const OTHERS: &[&str] = &[
        "ls", "dir", "vdir", "stat", "du", "df", "tree", "find", "fd", "fdfind", "locate", "echo",
        "printf", "test", "[", "[[", "true", "false", "which", "type", "command", "hash",
        "realpath", "readlink", "basename", "dirname", "pwd", "cd", "pushd", "popd", "chdir",
        "printenv", "id", "whoami", "date", "sleep", "uname", "hostname", "ps", "man", "info",
        "help", "whatis", "apropos", "seq", "expr", "bc", "dc", "git", "exa", "eza", "lsd",
        "namei", "lsattr", "getfacl", "sha3sum", "test", "tput", "clear", "env", "time", "timeout",
        "nice", "nohup", "xargs", "sudo", "doas", "exec", "eval", "source", ".", "export", "unset",
        "set", "shopt", "alias", "unalias", "read", "mapfile", "wait", "jobs", "kill", "trap",
        "ulimit", "umask", "local", "declare", "typeset", "let", "return", "exit", "shift",
        "break", "continue", "builtin", "view",
        // Database clients: their operands name databases and users; what
        // they write is read in `database_clients`.
        "psql", "pgcli", "mysql", "mariadb", "mycli", "sqlcmd", "snowsql", "cqlsh", "mongosh",
        "mongo", "sqlplus",
    ];
    const EDITORS: &[&str] = &["vim", "vi", "nano", "emacs"];
    (READERS.contains(&base) && !EDITORS.contains(&base)) || OTHERS.contains(&base)
}

/// Editors: what they are given is what they write (in batch mode too,
/// `vim -c wq f`, `ex -sc wq f`, `emacs --batch f -f save-buffer`).
pub(super) fn is_editor(base: &str) -> bool {
    matches!(
        base,
        "vi" | "vim"
            | "nvim"
            | "ex"
            | "gvim"
            | "vimdiff"
            | "nvi"
            | "nano"
            | "pico"
            | "emacs"
            | "emacsclient"
            | "ed"
            | "red"
            | "micro"
            | "kak"
            | "hx"
            | "helix"
            | "joe"
            | "mg"
            | "jed"
            | "code"
            | "subl"
    )
}

/// How a program reads the directories it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// Only the paths named (a directory operand is read as a directory).
    Named,
    /// Everything under each path operand.
    Recursive,
    /// Everything under each path operand, and under `.` when it is given
    /// none (`grep -r KEY`, `rg KEY`).
    RecursiveOrHere,
}

/// How `base` with these words reads directories.
pub(super) fn reach(base: &str, argv: &[WordVal]) -> Reach {
    let words: Vec<&str> = argv[1..]
        .iter()
        .filter_map(|w| w.literal.as_deref())
        .collect();
    let long = |names: &[&str]| {
        words.iter().any(|w| {
            names
                .iter()
                .any(|n| w == n || w.starts_with(&format!("{n}=")))
        })
    };
    // A short-option cluster holding one of `letters` before any letter
    // that takes a value (`-rn` yes, `-e r` no).
    let short = |letters: &str, valued: &str| {
        words.iter().take_while(|w| **w != "--").any(|w| {
            w.starts_with('-')
                && !w.starts_with("--")
                && w.chars()
                    .skip(1)
                    .take_while(|c| !valued.contains(*c))
                    .any(|c| letters.contains(c))
        })
    };
    match base {
        "grep" | "egrep" | "fgrep" => {
            if super::read_only::grep_recursive(argv) {
                Reach::RecursiveOrHere
            } else {
                Reach::Named
            }
        }
        "ugrep" => {
            let by_option = short("rR", "efmABCdDX")
                || long(&["--recursive", "--dereference-recursive"])
                || words.contains(&"--directories=recurse")
                || words.windows(2).any(|p| p == ["-d", "recurse"]);
            if by_option {
                Reach::RecursiveOrHere
            } else {
                Reach::Named
            }
        }
        "rg" | "ag" | "ack" => Reach::RecursiveOrHere,
        "tar" | "bsdtar" | "jar" => {
            let mode_word = words.first().is_some_and(|w| {
                !w.starts_with('-') && w.chars().any(|c| matches!(c, 'c' | 'r' | 'u'))
            });
            let creates = mode_word
                || short("cru", "fCbgHKLNTVX")
                || long(&["--create", "--append", "--update"]);
            if creates && !long(&["--no-recursion"]) {
                Reach::Recursive
            } else {
                Reach::Named
            }
        }
        "cp" => {
            if short("rRa", "StT") || long(&["--recursive", "--archive"]) {
                Reach::Recursive
            } else {
                Reach::Named
            }
        }
        "rsync" => {
            if short("ra", "eBfT") || long(&["--recursive", "--archive"]) {
                Reach::Recursive
            } else {
                Reach::Named
            }
        }
        "scp" => {
            if short("r", "cFiJlloPS") {
                Reach::Recursive
            } else {
                Reach::Named
            }
        }
        "zip" => {
            if short("rR", "bdDinstTxZ") || long(&["--recurse-paths", "--recurse-patterns"]) {
                Reach::Recursive
            } else {
                Reach::Named
            }
        }
        // `gzip -rc .` compresses every file under the directory to stdout.
        "gzip" | "gunzip" | "pigz" | "unpigz" | "zstd" | "unzstd" | "zstdcat" | "lz4" | "unlz4"
        | "lz4cat" | "brotli" | "lzip" | "plzip" | "bzip3" => {
            if short("r", "SopbTLD") || long(&["--recursive"]) {
                Reach::Recursive
            } else {
                Reach::Named
            }
        }
        // What a renamer moves takes everything inside along, under a name
        // no rule covers (as `mv` does).
        "rename" | "rename.ul" | "prename" | "file-rename" | "perl-rename" | "mmv" => {
            Reach::Recursive
        }
        "pax" => {
            if short("w", "fsxbo") {
                Reach::Recursive
            } else {
                Reach::Named
            }
        }
        // Without `-r` too: `diff DIR1 DIR2` compares the files directly
        // inside both.
        "diff" => Reach::Recursive,
        "7z" | "7za" | "7zr" => Reach::Recursive,
        _ => Reach::Named,
    }
}

/// Whether `base`, reading directories whole, follows the links it meets
/// in them: `grep -R` (not `-r`), `rg -L`/`--follow`, `ag -f`, `ugrep -R`,
/// `tar -h`/`--dereference`, `cp -L`, `rsync -L`/`--copy-links`, `zip`
/// (unless `-y`), the compressors' `-r`.
pub(super) fn follows_links(base: &str, argv: &[WordVal]) -> bool {
    let words: Vec<&str> = argv[1..]
        .iter()
        .filter_map(|w| w.literal.as_deref())
        .take_while(|w| *w != "--")
        .collect();
    let has = |names: &[&str]| words.iter().any(|w| names.contains(w));
    let short = |c: char| {
        words
            .iter()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w[1..].contains(c))
    };
    match base {
        "grep" | "egrep" | "fgrep" => short('R') || has(&["--dereference-recursive"]),
        "ugrep" => short('R') || has(&["--dereference-recursive"]),
        "rg" => short('L') || has(&["--follow"]),
        "ag" => short('f') || has(&["--follow"]),
        "tar" | "bsdtar" => short('h') || has(&["--dereference"]),
        "cp" => short('L') || has(&["--dereference"]),
        "rsync" => short('L') || has(&["--copy-links"]),
        "zip" => !short('y') && !has(&["--symlinks"]),
        "gzip" | "gunzip" | "pigz" | "unpigz" | "zstd" | "unzstd" | "zstdcat" | "lz4" | "unlz4"
        | "lz4cat" | "brotli" | "lzip" | "plzip" | "bzip3" => true,
        _ => false,
    }
}

/// How many leading operands of `base` are not paths (grep's pattern).
pub(super) fn leading_non_paths(base: &str, argv: &[WordVal]) -> usize {
    let given_by_option = argv[1..].iter().any(|w| {
        w.literal.as_deref().is_some_and(|l| {
            l == "-e"
                || l == "-f"
                || l.starts_with("--regexp")
                || l.starts_with("--file")
                || (l.starts_with('-') && !l.starts_with("--") && l.contains(['e', 'f']))
        })
    });
    match base {
        "grep" | "egrep" | "fgrep" | "ugrep" | "rg" | "ag" | "ack" if !given_by_option => 1,
        _ => 0,
    }
}

/// The symbolic links under `dir` (at most `budget` entries looked at),
/// each as the path it leads to: diff follows them while comparing
/// directories. `None` when the tree is larger than the budget.
pub(super) fn links_under(dir: &std::path::Path, budget: usize) -> Option<Vec<std::path::PathBuf>> {
    let mut links = Vec::new();
    let mut left = budget;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            left = left.checked_sub(1)?;
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                let path = entry.path();
                links.push(std::fs::canonicalize(&path).unwrap_or(path));
            } else if kind.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    Some(links)
}

/// Whether ripgrep leaves hidden entries out of the directories it reads:
/// its default, unless `--hidden`, `-.` or `-uu` say otherwise, a glob or
/// a file type is given (ripgrep's overrides and types are matched before
/// its hidden filter, so `-g '*'` lets `.env` in), an ignore file is named,
/// an option is computed at run time, or a configuration file
/// (`RIPGREP_CONFIG_PATH`) may add options. Ignore files with `!` lines
/// are looked for by the walk (see `request::look_inside`).
pub(super) fn skips_hidden(base: &str, argv: &[WordVal]) -> bool {
    skips(base, argv).is_some()
}

/// Whether ripgrep, leaving hidden entries out (see [`skips_hidden`]),
/// also leaves out what its ignore files name: unless `-u` or a
/// `--no-ignore…`/`--no-require-git` option says otherwise.
pub(super) fn respects_ignore_files(argv: &[WordVal]) -> bool {
    skips("rg", argv).is_some_and(|unrestricted| unrestricted == 0)
        && !argv[1..].iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                l.starts_with("--no-ignore") || l == "--no-require-git" || l == "--unrestricted"
            })
        })
}

/// How many `-u` ripgrep is given, when it leaves hidden entries out.
fn skips(base: &str, argv: &[WordVal]) -> Option<usize> {
    if base != "rg" {
        return None;
    }
    let mut unrestricted = 0;
    let mut no_config = false;
    for w in &argv[1..] {
        let l = w.literal.as_deref()?;
        if l == "--" {
            break;
        }
        if let Some(long) = l.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            match name {
                "hidden" | "glob" | "iglob" | "type" | "type-add" | "ignore-file" | "pre" => {
                    return None;
                }
                "unrestricted" => unrestricted += 1,
                "no-config" => no_config = true,
                _ => {}
            }
        } else if let Some(short) = l.strip_prefix('-') {
            if short.contains(['.', 'g', 't']) {
                return None;
            }
            unrestricted += short.chars().filter(|c| *c == 'u').count();
        }
    }
    (unrestricted < 2 && (no_config || std::env::var_os("RIPGREP_CONFIG_PATH").is_none()))
        .then_some(unrestricted)
}

/// How a program's own filters narrow the files it reads under a
/// directory it reads whole (see [`NameFilter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filtering {
    /// grep's `--include`/`--exclude` (base names; the last that matches
    /// decides, and none matching keeps a file unless the first is an
    /// `--include`) and `--exclude-dir`.
    Grep,
    /// ripgrep's `-g`/`--iglob`/`-t` (the last that matches decides; none
    /// matching keeps a file unless a glob without `!` is given).
    Ripgrep,
    /// tar's `--exclude` (a file, or a directory and all in it, whose name
    /// matches).
    Tar,
    /// zip's `-x`/`-i` (the name stored, `*` matching `/` too).
    Zip,
    /// rsync's `--exclude` alone (a name anywhere in the tree; a trailing
    /// `/`: directories only). Any `--include`, `--filter` or rules file
    /// and the filters are not read.
    Rsync,
}

/// One of a program's filters: whether what it matches is kept, whether
/// it applies to directories alone (`--exclude-dir`), and its pattern
/// (`None`: computed at run time, or not read; it may match anything).
#[derive(Debug, Clone)]
struct NameRule {
    keep: bool,
    dirs_only: bool,
    glob: Option<globset::GlobMatcher>,
}

impl NameRule {
    /// Whether it matches `name`: `None` when that cannot be known.
    fn matches(&self, name: &str) -> Option<bool> {
        self.glob.as_ref().map(|g| g.is_match(name))
    }
}

/// The filters a program reading a directory whole is given (`rg -g
/// '*.rs'`, `grep -r --exclude=.env`, `tar --exclude=.env`, `zip -r . -x
/// .env`): a file under the directory they leave out is not read, so a
/// Read rule for it does not hold against the command (see
/// `request::look_inside`). A filter that cannot be read is taken to let
/// everything through.
#[derive(Debug, Clone)]
pub(crate) struct NameFilter {
    how: Filtering,
    rules: Vec<NameRule>,
}

/// ripgrep's file types this reads (`-t rust`); another type is not read.
const RG_TYPES: &[(&str, &[&str])] = &[
    ("rust", &["*.rs"]),
    ("py", &["*.py", "*.pyi"]),
    ("js", &["*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"]),
    ("ts", &["*.ts", "*.tsx", "*.cts", "*.mts"]),
    ("go", &["*.go"]),
    ("c", &["*.[chH]", "*.[chH].in", "*.cats"]),
    (
        "cpp",
        &["*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl"],
    ),
    ("java", &["*.java", "*.jsp", "*.jspx", "*.properties"]),
    (
        "md",
        &[
            "*.markdown",
            "*.md",
            "*.mdown",
            "*.mdwn",
            "*.mkd",
            "*.mkdn",
            "*.mdx",
        ],
    ),
    ("toml", &["*.toml", "Cargo.lock"]),
    (
        "sh",
        &["*.bash", "*.sh", "*.zsh", "*.ksh", "*.csh", "*.tcsh"],
    ),
    (
        "ruby",
        &[
            "*.rb",
            "*.gemspec",
            "Gemfile",
            "Rakefile",
            "*.rake",
            "config.ru",
        ],
    ),
    ("html", &["*.htm", "*.html", "*.ejs"]),
    ("css", &["*.css", "*.scss"]),
];

/// A pattern compiled the way `how` reads it (`None` when it cannot be).
fn compile(pattern: &str, how: Filtering, case_insensitive: bool) -> Option<globset::GlobMatcher> {
    // ripgrep's globs with a `/` are matched against the path from the
    // directory searched, which this does not follow.
    if how != Filtering::Zip && pattern.contains('/') {
        return None;
    }
    globset::GlobBuilder::new(pattern)
        .literal_separator(how != Filtering::Zip)
        .case_insensitive(case_insensitive)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// The filters `base` is given in `argv`, and the indices of the words
/// that are patterns, not paths. `None` when it is given none, or when
/// they cannot be read (`rg --type-add`, `-nt rust`).
pub(super) fn name_filter(base: &str, argv: &[WordVal]) -> Option<(NameFilter, Vec<usize>)> {
    let how = match base {
        "grep" | "egrep" | "fgrep" => Filtering::Grep,
        "rg" => Filtering::Ripgrep,
        "tar" | "bsdtar" => Filtering::Tar,
        "zip" => Filtering::Zip,
        "rsync" => Filtering::Rsync,
        _ => return None,
    };
    let mut rules = Vec::new();
    let mut patterns = Vec::new();
    let push =
        |rules: &mut Vec<NameRule>, keep: bool, dirs_only: bool, value: Option<&str>, ci: bool| {
            match value {
                Some(v) if how == Filtering::Ripgrep && v.starts_with('!') => {
                    rules.push(NameRule {
                        keep: !keep,
                        dirs_only,
                        glob: compile(&v[1..], how, ci),
                    })
                }
                Some(v) => rules.push(NameRule {
                    keep,
                    dirs_only,
                    glob: compile(v, how, ci),
                }),
                None => rules.push(NameRule {
                    keep,
                    dirs_only,
                    glob: None,
                }),
            }
        };
    // Options whose value is the next word (`grep -e --exclude=x`: a
    // pattern, not a filter), as short letters (also ending a cluster) and
    // long names; and options that change how the filters match.
    let (valued, valued_long, unread): (&str, &[&str], &[&str]) = match how {
        Filtering::Grep => (
            "efmABCdD",
            &["--regexp", "--file", "--max-count", "--label", "--context"],
            &[],
        ),
        Filtering::Ripgrep => (
            "efrmABCMjEd",
            &[
                "--regexp",
                "--file",
                "--replace",
                "--max-count",
                "--encoding",
                "--max-depth",
                "--threads",
            ],
            &[
                "--glob-case-insensitive",
                "--type-add",
                "--type-clear",
                "--pre",
                "--ignore-file",
            ],
        ),
        Filtering::Tar => (
            "fCbgHKLNTVX",
            &["--file", "--directory", "--files-from", "--exclude-from"],
            &[
                "--anchored",
                "--no-wildcards",
                "--wildcards-match-slash",
                "--no-ignore-case",
            ],
        ),
        Filtering::Zip => (
            "bdnOptPsZ",
            &["--temp-path", "--output-file"],
            &["-nw", "-ws", "--no-wild", "--wild-stop-dirs"],
        ),
        Filtering::Rsync => (
            "eBTM",
            &[
                "--rsh",
                "--rsync-path",
                "--partial-dir",
                "--temp-dir",
                "--compare-dest",
                "--copy-dest",
                "--link-dest",
                "--backup-dir",
                "--suffix",
                "--chmod",
                "--log-file",
                "--password-file",
                "--out-format",
            ],
            &[
                "--include",
                "--filter",
                "-f",
                "-F",
                "--include-from",
                "--exclude-from",
                "--files-from",
                "--cvs-exclude",
                "-C",
            ],
        ),
    };
    // ripgrep's configuration file may add globs and types.
    if how == Filtering::Ripgrep
        && std::env::var_os("RIPGREP_CONFIG_PATH").is_some()
        && !argv
            .iter()
            .any(|w| w.literal.as_deref() == Some("--no-config"))
    {
        return None;
    }
    let mut i = 1;
    if how == Filtering::Tar
        && let Some(first) = argv.get(1).and_then(|w| w.literal.as_deref())
        && !first.starts_with('-')
    {
        // `tar czf ARCHIVE …`: the old form's letters take the next words.
        i += 1 + first.chars().filter(|c| valued.contains(*c)).count();
    }
    let mut zip_list: Option<bool> = None;
    while let Some(w) = argv.get(i) {
        // A word computed at run time may be any option (`"$P"` may be
        // `-g.env`): the filters cannot be read.
        let l = w.literal.as_deref()?;
        if l == "--" {
            break;
        }
        let name = l.split_once('=').map_or(l, |(n, _)| n);
        if unread.contains(&name) {
            return None;
        }
        // zip's `-x`/`-i` lists run to the next option.
        if let Some(keep) = zip_list {
            if l.starts_with('-') {
                zip_list = None;
            } else {
                push(&mut rules, keep, false, Some(l), false);
                patterns.push(i);
                i += 1;
                continue;
            }
        }
        let cluster_valued = l.len() > 1
            && l.starts_with('-')
            && !l.starts_with("--")
            && l.chars().skip(1).position(|c| valued.contains(c)) == Some(l.len() - 2);
        if cluster_valued || valued_long.contains(&l) {
            // Its value is the next word, whatever it looks like.
            i += 2;
            continue;
        }
        let (name, attached) = match l.split_once('=') {
            Some((n, v)) if l.starts_with("--") => (n, Some(v)),
            _ => (l, None),
        };
        // (kept, directories only, case-insensitive) of a filter option.
        let kind = match (how, name) {
            (Filtering::Grep, "--include") => Some((true, false, false)),
            (Filtering::Grep, "--exclude") => Some((false, false, false)),
            (Filtering::Grep, "--exclude-dir") => Some((false, true, false)),
            (Filtering::Ripgrep, "-g" | "--glob") => Some((true, false, false)),
            (Filtering::Ripgrep, "--iglob") => Some((true, false, true)),
            (Filtering::Ripgrep, "-t" | "--type" | "-T" | "--type-not") => {
                let value = match attached {
                    Some(v) => v,
                    None => {
                        i += 1;
                        argv.get(i)?.literal.as_deref()?
                    }
                };
                let globs = RG_TYPES.iter().find(|(t, _)| *t == value)?.1;
                let keep = matches!(name, "-t" | "--type");
                for g in globs {
                    push(&mut rules, keep, false, Some(g), false);
                }
                patterns.push(i);
                i += 1;
                continue;
            }
            (Filtering::Ripgrep, "--type-add" | "--type-clear" | "--pre" | "--ignore-file") => {
                return None;
            }
            (Filtering::Ripgrep, n)
                if n.starts_with("-g") && n.len() > 2 && !n.starts_with("--") =>
            {
                push(&mut rules, true, false, Some(&n[2..]), false);
                patterns.push(i);
                i += 1;
                continue;
            }
            (Filtering::Ripgrep, n)
                if n.starts_with('-') && !n.starts_with("--") && n.contains(['g', 't', 'T']) =>
            {
                return None;
            }
            (Filtering::Tar, "--exclude") => Some((false, false, false)),
            (Filtering::Rsync, "--exclude") => {
                let value = match attached {
                    Some(v) => v,
                    None => {
                        i += 1;
                        argv.get(i)?.literal.as_deref()?
                    }
                };
                // Anchored (`/x`) or holding a path (`a/b`): not read here.
                let (pattern, dirs_only) = match value.strip_suffix('/') {
                    Some(p) => (p, true),
                    None => (value, false),
                };
                if pattern.is_empty() || pattern.contains('/') {
                    return None;
                }
                push(&mut rules, false, dirs_only, Some(pattern), false);
                patterns.push(i);
                i += 1;
                continue;
            }
            (Filtering::Zip, "-x" | "--exclude") => {
                zip_list = Some(false);
                i += 1;
                continue;
            }
            (Filtering::Zip, "-i" | "--include") => {
                zip_list = Some(true);
                i += 1;
                continue;
            }
            _ => None,
        };
        if let Some((keep, dirs_only, ci)) = kind {
            let value = match attached {
                Some(v) => v,
                None => {
                    i += 1;
                    argv.get(i)?.literal.as_deref()?
                }
            };
            // `tar --exclude=./secrets .`: the members' names start `./`.
            let value = if how == Filtering::Tar {
                value.strip_prefix("./").unwrap_or(value)
            } else {
                value
            };
            push(&mut rules, keep, dirs_only, Some(value), ci);
            patterns.push(i);
        }
        i += 1;
    }
    (!rules.is_empty()).then_some((NameFilter { how, rules }, patterns))
}

impl NameFilter {
    /// Whether the program reads the entry `rel` (its path from the
    /// directory read whole, written `root` on the command line) given
    /// these filters; a directory `is_dir`. When in doubt, it does.
    pub(crate) fn reads(&self, root: &str, rel: &std::path::Path, is_dir: bool) -> bool {
        let names: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let Some((last, above)) = names.split_last() else {
            return true;
        };
        let dirs = if is_dir { &names[..] } else { above };
        if dirs.iter().any(|d| self.leaves_out_directory(d)) {
            return false;
        }
        if is_dir {
            return true;
        }
        match self.how {
            Filtering::Grep | Filtering::Ripgrep => match self.last_match(last, false) {
                Some(keep) => keep,
                None if self.how == Filtering::Grep => !self
                    .rules
                    .iter()
                    .find(|r| !r.dirs_only)
                    .is_some_and(|r| r.keep),
                None => !self.rules.iter().any(|r| r.keep),
            },
            Filtering::Tar => !self.rules.iter().any(|r| r.matches(last) == Some(true)),
            Filtering::Rsync => !self
                .rules
                .iter()
                .any(|r| !r.dirs_only && r.matches(last) == Some(true)),
            Filtering::Zip => {
                let prefix = root.trim_start_matches("./").trim_end_matches('/');
                if prefix.starts_with('/') || prefix.split('/').any(|c| c == "..") {
                    return true;
                }
                let stored = if prefix.is_empty() || prefix == "." {
                    names.join("/")
                } else {
                    format!("{prefix}/{}", names.join("/"))
                };
                let excluded = self
                    .rules
                    .iter()
                    .any(|r| !r.keep && r.matches(&stored) == Some(true));
                let includes: Vec<&NameRule> = self.rules.iter().filter(|r| r.keep).collect();
                !excluded
                    && (includes.is_empty()
                        || includes.iter().any(|r| r.matches(&stored) != Some(false)))
            }
        }
    }

    /// Whether the filters leave out a directory named `name`, and all in
    /// it (`--exclude-dir=secrets`, `rg -g '!secrets'`, `tar --exclude`).
    fn leaves_out_directory(&self, name: &str) -> bool {
        match self.how {
            Filtering::Grep => self
                .rules
                .iter()
                .any(|r| r.dirs_only && r.matches(name) == Some(true)),
            Filtering::Ripgrep => self.last_match(name, true) == Some(false),
            Filtering::Tar | Filtering::Rsync => {
                self.rules.iter().any(|r| r.matches(name) == Some(true))
            }
            Filtering::Zip => false,
        }
    }

    /// What the last filter that matches `name` says (kept or not); a
    /// filter that may match and would keep it keeps it. `dirs`: the
    /// filters of directories too.
    fn last_match(&self, name: &str, dirs: bool) -> Option<bool> {
        for r in self.rules.iter().rev().filter(|r| dirs || !r.dirs_only) {
            match r.matches(name) {
                Some(true) => return Some(r.keep),
                None if r.keep => return Some(true),
                _ => {}
            }
        }
        None
    }
}
