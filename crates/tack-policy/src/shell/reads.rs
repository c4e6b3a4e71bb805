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
