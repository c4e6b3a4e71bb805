//! The read-only set reads its programs' command lines by their options:
//! every file an option reads is held to the working directories and the
//! Read rules whatever its spelling (attached `-f.env`, `--file=F`, the
//! next word, a GNU abbreviation `--exclude-fr F`); an option not known to
//! be harmless, in a cluster (`file -bC`) or abbreviated (`date --se=`),
//! keeps a command out of the set; the pattern of grep and rg is found
//! after options that take values, so `grep -r -e KEY` walks `.`.

use tack_protocol::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run, run_with_files};

const NONE: &[&str] = &[];
const B: &str = "Bash";
const ENV: &[&str] = &["deny Read(./.env)"];
const PLAN: &[&str] = &["mode plan"];

const ROWS: &[Case] = &[
    // date: files it reads, the clock it sets.
    case(NONE, B, "date -f {root}/outside/file.txt", Ask),
    case(NONE, B, "date --file={root}/outside/file.txt", Ask),
    case(NONE, B, "date -r {root}/outside/file.txt", Ask),
    case(NONE, B, "date --ref {root}/outside/file.txt", Ask),
    case(ENV, B, "date -f.env", Deny),
    case(ENV, B, "date -uf.env", Deny),
    case(NONE, B, "date --se=2020-01-01", Ask),
    case(NONE, B, "date --s=2020-01-01", Ask),
    case(NONE, B, "date -us 2020-01-01", Ask),
    case(NONE, B, "date 0101000020", Ask),
    case(NONE, B, "date", Allow),
    case(NONE, B, "date +%Y-%m-%d", Allow),
    case(NONE, B, "date -u +%s", Allow),
    case(NONE, B, "date -d yesterday", Allow),
    case(NONE, B, "date -Iseconds", Allow),
    case(NONE, B, "date --iso-8601=seconds", Allow),
    case(NONE, B, "date -R", Allow),
    case(NONE, B, "date --rfc-3339=date", Allow),
    case(NONE, B, "date -r src/main.rs", Allow),
    // Lists of files read from a file or stdin.
    case(NONE, B, "sort --files0-from=list0", Ask),
    case(NONE, B, "sort --files0-from list0", Ask),
    case(NONE, B, "sort --files0=list0", Ask),
    case(NONE, B, "wc --files0-from=-", Ask),
    case(NONE, B, "du --files0-from=list0", Ask),
    case(NONE, B, "find -files0-from list0", Ask),
    case(PLAN, B, "find -files0-from -", Deny),
    case(NONE, B, "file -bf list", Ask),
    case(NONE, B, "file --files=list", Ask),
    // Values attached to the option, or of options taking a next word.
    case(NONE, B, "grep -f{root}/outside/file.txt src", Ask),
    case(ENV, B, "grep -if.env src", Deny),
    case(ENV, B, "grep -of.env src", Deny),
    case(ENV, B, "rg -f.env src", Deny),
    case(NONE, B, "rg -f{root}/outside/file.txt src", Ask),
    case(
        NONE,
        B,
        "grep --exclude-from {root}/outside/file.txt x .",
        Ask,
    ),
    case(
        NONE,
        B,
        "grep --exclude-fr {root}/outside/file.txt x .",
        Ask,
    ),
    case(NONE, B, "rg --ignore-file {root}/outside/file.txt x", Ask),
    case(NONE, B, "du -X{root}/outside/file.txt .", Ask),
    case(NONE, B, "diff -X{root}/outside/file.txt src docs", Ask),
    case(NONE, B, "git config -l -f{root}/outside/file.txt", Ask),
    case(NONE, B, "git config -l --fil={root}/outside/file.txt", Ask),
    case(
        NONE,
        B,
        "git blame -S{root}/outside/file.txt src/main.rs",
        Ask,
    ),
    case(NONE, B, "git ls-files -oX{root}/outside/file.txt", Ask),
    case(NONE, B, "grep -f src/main.rs docs", Allow),
    case(NONE, B, "git config --get user.name", Allow),
    // diff reads the files inside directories, and follows links there.
    case(ENV, B, "diff . docs", Deny),
    case(ENV, B, "diff --recur . docs", Deny),
    case(NONE, B, "diff -r . docs", Ask),
    case(PLAN, B, "diff . docs", Deny),
    case(NONE, B, "diff -r --no-dereference . docs", Allow),
    case(NONE, B, "diff -r src docs", Allow),
    case(NONE, B, "diff -u src/main.rs docs/guide.md", Allow),
    // Write and run options in clusters and abbreviations.
    case(NONE, B, "file -bC", Ask),
    case(NONE, B, "file -z src/main.rs", Ask),
    case(NONE, B, "file -bz src/main.rs", Ask),
    case(NONE, B, "tree -R -L 1 -H .", Ask),
    case(NONE, B, "tree -RL 1 -H .", Ask),
    case(NONE, B, "rg -iz foo", Ask),
    case(NONE, B, "rg -zi foo", Ask),
    case(NONE, B, "diff -l src/main.rs docs/guide.md", Ask),
    case(NONE, B, "diff --paginate src/main.rs docs/guide.md", Ask),
    case(NONE, B, "diff --pag src/main.rs docs/guide.md", Ask),
    case(NONE, B, "sort -bo out src/main.rs", Ask),
    case(NONE, B, "sort --out=x src/main.rs", Ask),
    case(NONE, B, "file -b src/main.rs", Allow),
    case(NONE, B, "tree -L 2 src", Allow),
    case(NONE, B, "rg -i foo src", Allow),
    // git running gpg.
    case(NONE, B, "git log --show-signature", Ask),
    case(NONE, B, "git show -s --format=%GS", Ask),
    case(NONE, B, "git log -1 --format=%GG HEAD", Ask),
    case(NONE, B, "git log --format='%h %GK'", Ask),
    case(NONE, B, "git log --format='%h %s'", Allow),
    // grep and rg: the pattern after options with values (rg with
    // `--hidden`, else it leaves `.env` out; see fifth_round.rs).
    case(ENV, B, "grep -r -e SECRET", Deny),
    case(ENV, B, "grep -ire SECRET", Deny),
    case(ENV, B, "grep -r -e SECRET --", Deny),
    case(ENV, B, "grep -rf src/main.rs", Deny),
    case(ENV, B, "grep -r -m 5 SECRET", Deny),
    case(ENV, B, "grep -rA 1 SECRET", Deny),
    case(ENV, B, "grep -r --max-count 5 SECRET", Deny),
    case(ENV, B, "grep -r --exclude-dir .git SECRET", Deny),
    case(ENV, B, "rg --hidden -e SECRET", Deny),
    case(ENV, B, "rg --hidden --regexp SECRET", Deny),
    case(ENV, B, "rg --hidden -A 1 SECRET", Deny),
    case(ENV, B, "rg --hidden -j 1 SECRET", Deny),
    case(ENV, B, "rg --hidden --engine default SECRET", Deny),
    case(ENV, B, "rg -g '*' SECRET", Deny),
    case(NONE, B, "grep -r -e main src", Allow),
    case(NONE, B, "grep -rn -m 5 main src", Allow),
    case(NONE, B, "rg -e main src", Allow),
    // grep's recursion and link following, abbreviated.
    case(ENV, B, "grep --recur SECRET .", Deny),
    case(ENV, B, "grep --rec SECRET .", Deny),
    case(ENV, B, "grep --directories=rec SECRET .", Deny),
    case(ENV, B, "grep --dir=recurse SECRET .", Deny),
    case(ENV, B, "grep -drecurse SECRET .", Deny),
    case(ENV, B, "grep -d rec SECRET .", Deny),
    case(NONE, B, "grep --deref TOP .", Ask),
    case(NONE, B, "grep --dereference TOP .", Ask),
    case(NONE, B, "grep -rl TOP src", Allow),
    // A pattern that matches no name starting with `-` here.
    case(NONE, B, "wc *=*", Allow),
    case(NONE, B, "wc -l *.rs", Allow),
    case(NONE, B, "wc -l d*/*", Allow),
    case(NONE, B, "wc --f*", Ask),
    case(NONE, B, "wc -l src/*.rs", Allow),
    case(NONE, B, "grep main src/*", Allow),
    case(NONE, B, "wc -l -- *.md", Allow),
    case(NONE, B, "grep -rn main --include=*.rs src", Allow),
    case(NONE, B, "grep -rn main --f* src", Ask),
    // Harmless forms refused before.
    case(NONE, B, "git --no-pager log -5", Allow),
    case(NONE, B, "git --no-pager diff", Allow),
    case(NONE, B, "uniq -f 1 src/main.rs", Allow),
    case(NONE, B, "uniq -s 1 src/main.rs", Allow),
    case(NONE, B, "uniq src/main.rs out/x", Ask),
    case(NONE, B, "head -5 src/main.rs", Allow),
    case(NONE, B, "tail -n 5 src/main.rs", Allow),
    case(NONE, B, "ls -la --color=auto src", Allow),
    case(NONE, B, "sort -t: -k2 -n src/main.rs", Allow),
    case(NONE, B, "cut -d, -f1 src/main.rs", Allow),
    case(NONE, B, "du -sh src", Allow),
    case(NONE, B, "stat -c %s src/main.rs", Allow),
];

#[test]
fn read_only_commands_are_read_by_their_options() {
    run(ROWS);
}

/// A file named like an option in the project (`--files0-from=list0`,
/// which a cloned repository can hold): a pattern that matches it is an
/// option, and `wc *` would read what the list names.
const PLANTED: &[Case] = &[
    case(NONE, B, "wc *=*", Ask),
    case(NONE, B, "du *=*", Ask),
    case(NONE, B, "wc -l *", Ask),
    case(NONE, B, "grep main *", Ask),
    case(NONE, B, "sort *0", Ask),
    case(NONE, B, "wc -l src/*.rs", Allow),
    case(NONE, B, "wc -l *.rs", Allow),
    case(NONE, B, "grep main src/*", Allow),
];

#[test]
fn a_pattern_that_matches_a_file_named_like_an_option_is_an_option() {
    run_with_files(
        &[
            ("--files0-from=list0", "x", false),
            ("list0", "/etc/hostname\0", false),
        ],
        PLANTED,
    );
}
