//! Holes the files red team found in the file rules and the protected
//! paths, one table per cause.
//!
//! C: `mv src src2` moved a directory holding what `deny Edit(./src/locked/**)`
//! (or a Read deny) protects; the files were then written or read under
//! `src2/locked`, a name no rule knows, and moved back. A move of a
//! directory now changes (and may expose) everything in it.
//!
//! D: `cp -r tmpd/. src/`, `rsync -a tmpd/ src/`, `cp -r nested/. .` wrote,
//! under the destination, the names the source tree holds (`src/locked/a.rs`,
//! `./.git/config`) while only the destination was checked. Where a tree
//! lands is now checked as changed inside against the Edit rules, and the
//! protected names the tree holds as writes of protected paths.
//!
//! G: an operand of a program tack does not know to leave its files alone
//! (`objcopy … .git/config`, `gcc -o .git/hooks/pre-commit`, `pip install
//! --target .git`) met Edit deny rules but not the protected paths, in
//! dontAsk too; the safeguard now sees it.

use tack_protocol::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run_with_files};

const LOCKED: &[&str] = &["mode acceptEdits", "deny Edit(./src/locked/**)"];
const LOCKED_READ: &[&str] = &["mode acceptEdits", "deny Read(./src/locked/**)"];
const MV: &[&str] = &["allow Bash(mv *)", "deny Edit(./src/locked/**)"];
const RSYNC: &[&str] = &[
    "mode acceptEdits",
    "allow Bash(rsync *)",
    "deny Edit(./src/locked/**)",
];
const ACCEPT: &[&str] = &["mode acceptEdits"];
const DONT_ASK: &[&str] = &["mode dontAsk", "allow Bash"];
const GCC: &[&str] = &["mode acceptEdits", "allow Bash(gcc *)"];
const OBJCOPY: &[&str] = &["mode dontAsk", "allow Bash(objcopy *)"];
const ALLOW_ALL: &[&str] = &[
    "mode acceptEdits",
    "allow Bash",
    "allow Edit",
    "allow Write",
];
const LOCKED_ALLOW_ALL: &[&str] = &[
    "mode acceptEdits",
    "allow Bash",
    "allow Edit",
    "allow Write",
    "deny Edit(./src/locked/**)",
];

const FILES: &[(&str, &str, bool)] = &[
    ("src/locked/a.rs", "locked", false),
    ("src/ok/b.rs", "ok", false),
    ("tmpd/locked/a.rs", "pwned", false),
    ("nested/.git/config", "[core]", false),
    ("nested/.claude/settings.local.json", "{}", false),
    ("nested/readme.md", "x", false),
    ("plain/readme.md", "x", false),
    ("plain/sub/x.txt", "x", false),
    ("x.c", "int main(){}", false),
];

const MOVED_ANCESTOR: &[Case] = &[
    case(
        LOCKED,
        "Bash",
        "mv src src2 && echo pwned > src2/locked/a.rs && mv src2 src",
        Ask,
    ),
    case(LOCKED, "Bash", "mv src src2", Ask),
    case(LOCKED, "Bash", "mv -t plain src", Ask),
    case(MV, "Bash", "mv src src2", Ask),
    case(
        LOCKED_READ,
        "Bash",
        "mv src src2 && cat src2/locked/a.rs; mv src2 src",
        Deny,
    ),
    case(LOCKED, "Bash", "mv src/locked x", Deny),
    // A move that holds nothing a rule names, or a file, is as before.
    case(LOCKED, "Bash", "mv plain plain2", Allow),
    case(LOCKED, "Bash", "mv docs docs2", Allow),
    case(LOCKED, "Bash", "mv x.c y.c", Allow),
    case(MV, "Bash", "mv plain plain2", Allow),
    // Protected names move with their directory.
    case(ACCEPT, "Bash", "mv .git x", Ask),
    case(ACCEPT, "Bash", "mv nested n2", Ask),
];

const COPIED_INTO_ANCESTOR: &[Case] = &[
    case(LOCKED, "Bash", "cp -r tmpd/locked src/", Deny),
    case(LOCKED, "Bash", "cp -r tmpd/. src/", Ask),
    case(LOCKED, "Bash", "cp -rT tmpd src", Ask),
    case(LOCKED, "Bash", "cp -a tmpd/. src", Ask),
    case(LOCKED, "Bash", "cp -r tmpd/. src/ok/..", Ask),
    case(LOCKED, "Bash", "cp -r -t src tmpd/locked", Deny),
    case(
        LOCKED,
        "Bash",
        "mkdir -p t2/locked && echo pwned > t2/locked/a.rs && cp -r t2/. src/",
        Ask,
    ),
    case(RSYNC, "Bash", "rsync -a tmpd/ src/", Ask),
    case(RSYNC, "Bash", "rsync -a tmpd/locked src", Deny),
    case(RSYNC, "Bash", "rsync -a tmpd src/", Allow),
    case(ACCEPT, "Bash", "cp -r nested/. .", Ask),
    case(ACCEPT, "Bash", "cp -rT nested .", Ask),
    case(ACCEPT, "Bash", "cp -a nested/. docs", Ask),
    case(ALLOW_ALL, "Bash", "rsync -a nested/ out/", Ask),
    case(
        &["mode dontAsk", "allow Bash"],
        "Bash",
        "cp -r nested/. .",
        Deny,
    ),
    // Trees that hold nothing protected, into places no rule speaks for.
    case(ACCEPT, "Bash", "cp -r plain/. docs/", Allow),
    case(ACCEPT, "Bash", "cp -r plain out", Allow),
    case(ACCEPT, "Bash", "cp -r tmpd out", Allow),
    case(ALLOW_ALL, "Bash", "rsync -a plain/ out/", Allow),
    case(LOCKED_ALLOW_ALL, "Bash", "cp -r plain/. docs/", Allow),
    case(LOCKED_ALLOW_ALL, "Bash", "cp x.c src/", Allow),
];

const UNKNOWN_OUTPUTS: &[Case] = &[
    case(
        OBJCOPY,
        "Bash",
        "objcopy -I binary -O binary newcfg .git/config",
        Deny,
    ),
    case(
        OBJCOPY,
        "Bash",
        "objcopy -I binary -O binary newcfg .claude/settings.local.json",
        Deny,
    ),
    case(GCC, "Bash", "gcc -o .git/hooks/pre-commit x.c", Ask),
    case(DONT_ASK, "Bash", "gcc -o .git/hooks/pre-commit x.c", Deny),
    case(DONT_ASK, "Bash", "gcc -o.git/hooks/pre-commit x.c", Deny),
    case(DONT_ASK, "Bash", "cc x.c -o .git/hooks/pre-commit", Deny),
    case(
        DONT_ASK,
        "Bash",
        "rustc -o .git/hooks/pre-commit x.rs",
        Deny,
    ),
    case(DONT_ASK, "Bash", "go build -o .git/hooks/pre-commit", Deny),
    case(DONT_ASK, "Bash", "cargo build --target-dir .git", Deny),
    case(DONT_ASK, "Bash", "pip install --target=.git x", Deny),
    case(DONT_ASK, "Bash", "pip install --target .git x", Deny),
    case(DONT_ASK, "Bash", "npm install --prefix .git", Deny),
    case(DONT_ASK, "Bash", "ld -o .git/x a.o", Deny),
    case(DONT_ASK, "Bash", "ffmpeg -i x .vscode/settings.json", Deny),
    case(DONT_ASK, "Bash", "mytool --out=.git/hooks/pre-commit", Deny),
    case(DONT_ASK, "Bash", "g++ -o ~/.bashrc x.c", Deny),
    case(ALLOW_ALL, "Bash", "black .claude/settings.local.json", Ask),
    case(
        ALLOW_ALL,
        "Bash",
        "prettier --write .vscode/settings.json",
        Ask,
    ),
    case(ALLOW_ALL, "Bash", "./build.sh .git/config", Ask),
    // With Edit rules the operand was seen by them; now by the safeguard too.
    case(
        LOCKED_ALLOW_ALL,
        "Bash",
        "mytool .git/hooks/pre-commit",
        Ask,
    ),
    case(
        &["mode dontAsk", "allow Bash", "deny Edit(./src/locked/**)"],
        "Bash",
        "objcopy -I binary -O binary newcfg .git/config",
        Deny,
    ),
    // Everyday forms still allowed.
    case(DONT_ASK, "Bash", "gcc -o app x.c", Allow),
    case(DONT_ASK, "Bash", "gcc -I./include -o out/app x.c", Allow),
    case(DONT_ASK, "Bash", "cargo build --target-dir target", Allow),
    case(DONT_ASK, "Bash", "black .", Allow),
    case(DONT_ASK, "Bash", "prettier --write .", Allow),
    case(DONT_ASK, "Bash", "cat .git/config", Allow),
    case(DONT_ASK, "Bash", "grep -n x .git/config", Allow),
    case(DONT_ASK, "Bash", "jq . .vscode/settings.json", Allow),
    case(DONT_ASK, "Bash", "git diff .git", Allow),
];

#[test]
fn c_moving_a_directory_moves_what_rules_protect_inside() {
    run_with_files(FILES, MOVED_ANCESTOR);
}

#[test]
fn d_a_tree_copied_into_a_directory_writes_the_names_it_holds() {
    run_with_files(FILES, COPIED_INTO_ANCESTOR);
}

#[test]
fn g_outputs_of_unknown_programs_meet_the_protected_paths() {
    run_with_files(FILES, UNKNOWN_OUTPUTS);
}
