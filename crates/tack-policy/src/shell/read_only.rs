//! Commands that only read, run without an allow rule (Claude Code's
//! "read-only commands"): `ls`, `cat`, `grep`, `git status`, … in a
//! read-only form, on files inside the working directories (what they read
//! is checked in [`crate::evaluate`]: every operand, or the directory they
//! run in when they name none). Deny and ask rules still apply to them and
//! to the files they read, and a redirection is still an edit.

use super::WordVal;

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

/// Programs that read the files they name and have no option that writes,
/// runs a program or reads a file not named as an operand: a pattern
/// (`ls *.ts`) may expand to anything, an option among it.
const FILE_READERS_ANY_WORD: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "stat", "du", "diff", "cmp", "nl",
    "tac",
];

/// Programs that read the files they name, read-only unless an option
/// says otherwise (checked below), and never with a pattern among their
/// words (it could expand to such an option: a file named `-delete`).
const FILE_READERS: &[&str] = &[
    "find", "rg", "sort", "uniq", "cut", "file", "tree", "realpath", "readlink",
];

/// Programs that read no file (`date` only without `-s`: it sets the
/// clock as root).
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
];

/// Whether the set needs `base`'s operands resolved (see `path_args`).
pub(super) fn reads_files(base: &str) -> bool {
    FILE_READERS_ANY_WORD.contains(&base) || FILE_READERS.contains(&base) || base == "git"
}

/// How `argv` (its program `base`) reads, if it is in the set.
pub(super) fn read_only(base: &str, argv: &[WordVal]) -> ReadOnly {
    let words = || argv.iter().skip(1);
    let literal = |w: &WordVal| w.literal.clone().unwrap_or_default();
    if NO_FILES.contains(&base) {
        let sets_clock = base == "date"
            && words().any(|w| {
                let l = literal(w);
                w.literal.is_none()
                    || l.starts_with("--set")
                    || (l.starts_with('-') && !l.starts_with("--") && l.contains('s'))
            });
        return if sets_clock {
            ReadOnly::No
        } else {
            ReadOnly::NoFiles
        };
    }
    let globbed = words().any(|w| w.glob);
    if FILE_READERS_ANY_WORD.contains(&base) {
        // `tail -f`, `grep -r` read; `--files0-from`/`-f FILE` read a file
        // named as a value, which is an operand to `path_args` too. Links
        // followed while walking lead anywhere: `grep -R`, `du -L`, `ls -L`.
        let follows = match base {
            "grep" | "egrep" | "fgrep" => {
                short_has(argv, 'R') || words().any(|w| literal(w) == "--dereference-recursive")
            }
            "du" | "ls" => {
                short_has(argv, 'L')
                    || words().any(|w| {
                        let l = literal(w);
                        l == "--dereference" || l.starts_with("--dereference-")
                    })
            }
            _ => false,
        };
        return if follows {
            ReadOnly::No
        } else {
            ReadOnly::Files
        };
    }
    if globbed {
        return ReadOnly::No;
    }
    let has = |names: &[&str]| {
        words().any(|w| {
            let l = literal(w);
            names
                .iter()
                .any(|n| l == *n || (n.starts_with("--") && l.starts_with(&format!("{n}="))))
        })
    };
    let read = match base {
        "find" => !words().any(|w| {
            let l = literal(w);
            l.starts_with("-exec")
                || l.starts_with("-ok")
                || l == "-delete"
                || l.starts_with("-fprint")
                || l == "-fls"
                || matches!(l.as_str(), "-L" | "-H" | "-follow")
        }),
        "rg" => {
            !has(&[
                "--pre",
                "--pre-glob",
                "--search-zip",
                "-z",
                "--hostname-bin",
                "-L",
                "--follow",
            ]) && !short_has(argv, 'L')
        }
        "sort" => !has(&["-o", "--output", "--compress-program"]) && !short_has(argv, 'o'),
        // `uniq IN OUT` writes OUT.
        "uniq" => words().filter(|w| !literal(w).starts_with('-')).count() <= 1,
        "file" => !has(&[
            "-m",
            "--magic-file",
            "-f",
            "--files-from",
            "-C",
            "--compile",
        ]),
        "tree" => !has(&["-o", "--fromfile", "-l"]) && !short_has(argv, 'l'),
        "cut" | "realpath" | "readlink" => true,
        "git" => return git(argv),
        _ => false,
    };
    if read { ReadOnly::Files } else { ReadOnly::No }
}

/// A short option cluster holding `flag` (`-uo`).
fn short_has(argv: &[WordVal], flag: char) -> bool {
    argv.iter().skip(1).any(|w| {
        w.literal
            .as_deref()
            .is_some_and(|l| l.starts_with('-') && !l.starts_with("--") && l.contains(flag))
    })
}

/// `git SUBCOMMAND …` with no global option before the subcommand (`-C`,
/// `-c`, `--git-dir` change what it reads or runs) and a subcommand that
/// only reads.
fn git(argv: &[WordVal]) -> ReadOnly {
    let words: Vec<&str> = argv
        .iter()
        .skip(1)
        .map(|w| w.literal.as_deref().unwrap_or("\u{0}"))
        .collect();
    let Some((&sub, rest)) = words.split_first() else {
        return ReadOnly::No;
    };
    let options_only = |allowed: &[&str]| rest.iter().all(|w| allowed.contains(w));
    // `git diff --output=FILE` and `--ext-diff` are found by git's own
    // analysis (an edit, an uncertainty): they are parts of their own.
    let read = match sub {
        s if GIT_READS.contains(&s) => !rest.iter().any(|w| {
            w.starts_with("--output")
                || w.starts_with("--ext-diff")
                || w.starts_with("--textconv")
                || w.starts_with("--exec")
        }),
        "branch" => options_only(&[
            "-a",
            "-r",
            "-v",
            "-vv",
            "-l",
            "--list",
            "--all",
            "--remotes",
            "--show-current",
            "--no-color",
        ]),
        "tag" => options_only(&["-l", "--list"]),
        "remote" => options_only(&["-v", "--verbose"]),
        "stash" => rest == ["list"],
        "worktree" => rest == ["list"],
        "config" => {
            rest.first().is_some_and(|o| {
                matches!(*o, "--get" | "--get-all" | "--get-regexp" | "-l" | "--list")
            }) && !rest.iter().any(|w| w.starts_with("--file") || *w == "-f")
        }
        _ => false,
    };
    if read { ReadOnly::Files } else { ReadOnly::No }
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
