//! Read/Edit rules on canonical paths: symlinks (real ones, in a temp
//! tree), `..` detours, anchors, Grep/Glob, and redirections as edits.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const READ_RULES: &[&str] = &[
    "deny Read(./secrets/**)",
    "deny Read(.env)",
    "deny Read(~/.ssh/**)",
    "allow Bash(cat *)",
    "allow Bash(grep *)",
];

const READS: &[Case] = &[
    case(READ_RULES, "Read", "secrets/key.txt", Deny),
    case(READ_RULES, "Read", "a/../secrets/key.txt", Deny),
    case(READ_RULES, "Read", "./a/./../secrets/key.txt", Deny),
    case(READ_RULES, "Read", "link_to_secrets/key.txt", Deny),
    case(READ_RULES, "Read", "{project}/secrets/key.txt", Deny),
    case(
        READ_RULES,
        "Read",
        "{project}/link_to_secrets/key.txt",
        Deny,
    ),
    case(READ_RULES, "Read", ".env", Deny),
    case(READ_RULES, "Read", "src/.env", Deny),
    case(READ_RULES, "Read", ".env.example", Allow),
    case(READ_RULES, "Read", "src/main.rs", Allow),
    case(READ_RULES, "Read", "{root}/outside/file.txt", Ask),
    case(READ_RULES, "Read", "outside_link/file.txt", Ask),
    case(READ_RULES, "Read", "{home}/.ssh/id_rsa", Deny),
    case(READ_RULES, "Read", "~/.ssh/id_rsa", Deny),
    case(READ_RULES, "Read", "{home}/.zshrc", Ask),
    case(READ_RULES, "Grep", "secrets", Deny),
    case(READ_RULES, "Grep", "link_to_secrets", Deny),
    case(READ_RULES, "Grep", ".", Allow),
    case(READ_RULES, "Glob", "secrets/**/*.txt", Deny),
    case(READ_RULES, "Glob", "**/*.rs", Allow),
    case(READ_RULES, "Glob", "{root}/outside/*", Ask),
    case(READ_RULES, "Bash", "cat secrets/key.txt", Deny),
    case(READ_RULES, "Bash", "cat .env", Deny),
    case(READ_RULES, "Bash", "cat < secrets/key.txt", Deny),
    case(READ_RULES, "Bash", "cat link_to_secrets/key.txt", Deny),
    case(
        READ_RULES,
        "Bash",
        "grep -r token --include=x secrets",
        Deny,
    ),
    case(READ_RULES, "Bash", "cat src/main.rs", Allow),
    case(READ_RULES, "Bash", "cat secr*/key.txt", Deny),
    case(READ_RULES, "Bash", "cat ./*/key.txt", Deny),
    case(READ_RULES, "Bash", "cat $HOME/.ssh/id_rsa", Deny),
    case(READ_RULES, "Bash", "cat ~/.ssh/id_rsa", Deny),
    case(READ_RULES, "Bash", "cat \"$HOME/.ssh/id_rsa\"", Deny),
    case(READ_RULES, "Bash", "cat 'secr*/key.txt'", Allow),
    case(
        &["allow Read(//{root}/outside/**)"],
        "Read",
        "{root}/outside/file.txt",
        Allow,
    ),
    case(
        &["allow Read(//{root}/outside/**)"],
        "Read",
        "outside_link/file.txt",
        Allow,
    ),
    case(
        &["deny Read(//{root}/outside/**)"],
        "Read",
        "outside_link/file.txt",
        Deny,
    ),
    case(
        &["dir {root}/outside"],
        "Read",
        "{root}/outside/file.txt",
        Allow,
    ),
    case(&["deny Read(/docs/**)"], "Read", "docs/guide.md", Deny),
    case(&["deny Read(docs/*.md)"], "Read", "docs/guide.md", Deny),
    case(&["deny Read(./docs)"], "Read", "docs/guide.md", Deny),
    case(&["deny Read(*.md)"], "Read", "docs/guide.md", Deny),
    case(&["deny Read(*.md)"], "Read", "src/main.rs", Allow),
    // A rule naming a symlink follows it as it was when the settings loaded.
    case(
        &["allow Read(./outside_link/**)"],
        "Read",
        "outside_link/file.txt",
        Allow,
    ),
    case(&["allow Read(./**)"], "Read", "outside_link/file.txt", Ask),
];

const EDIT_RULES: &[&str] = &[
    "deny Edit(./secrets/**)",
    "deny Edit(//etc/**)",
    "allow Edit(./out/**)",
    "allow Bash(echo *)",
    "allow Bash(cat *)",
    "allow Bash(cd *)",
];

const EDITS: &[Case] = &[
    case(EDIT_RULES, "Write", "out/a.txt", Allow),
    case(EDIT_RULES, "Write", "secrets/x", Deny),
    case(EDIT_RULES, "Edit", "a/../secrets/key.txt", Deny),
    case(EDIT_RULES, "Write", "link_to_secrets/new", Deny),
    case(EDIT_RULES, "Write", "dangling", Deny),
    case(EDIT_RULES, "MultiEdit", "secrets/key.txt", Deny),
    case(EDIT_RULES, "NotebookEdit", "secrets/n.ipynb", Deny),
    case(EDIT_RULES, "Write", "notes.txt", Ask),
    case(EDIT_RULES, "Write", "/etc/passwd", Deny),
    case(&["deny Write(./secrets/**)"], "Write", "secrets/x", Deny),
    // A Write deny rule holds for every writer (fourth red-team round).
    case(&["deny Write(./secrets/**)"], "Edit", "secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi > out/a.txt", Allow),
    case(EDIT_RULES, "Bash", "echo hi > secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi >> secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi >| secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi &> secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi >& secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi 2> secrets/log", Deny),
    case(EDIT_RULES, "Bash", "cat <> secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi | tee secrets/x", Deny),
    case(
        EDIT_RULES,
        "Bash",
        "echo hi | tee -a out/log secrets/x",
        Deny,
    ),
    case(EDIT_RULES, "Bash", "echo hi > a/../secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi > out/../secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi > link_to_secrets/x", Deny),
    case(EDIT_RULES, "Bash", "echo hi > dangling", Deny),
    case(EDIT_RULES, "Bash", "cd secrets && echo hi > x", Deny),
    case(EDIT_RULES, "Bash", "cd secrets; echo hi > x", Deny),
    case(
        EDIT_RULES,
        "Bash",
        "cd a && cd ../secrets && echo hi > x",
        Deny,
    ),
    case(EDIT_RULES, "Bash", "echo hi > /etc/passwd", Deny),
    case(EDIT_RULES, "Bash", "cd /etc && echo hi > passwd", Deny),
    case(EDIT_RULES, "Bash", "echo hi > $F", Ask),
    case(EDIT_RULES, "Bash", "echo hi > notes.txt", Ask),
    case(EDIT_RULES, "Bash", "echo hi > /dev/null", Allow),
    case(EDIT_RULES, "Bash", "echo hi > secr*/key.txt", Deny),
    case(EDIT_RULES, "Bash", "echo hi > link_to_s?crets/new", Deny),
    case(EDIT_RULES, "Bash", "echo hi > out/*.txt", Allow),
    case(
        EDIT_RULES,
        "Bash",
        "for i in 1 2; do echo > x; cd secrets; done",
        Ask,
    ),
    case(EDIT_RULES, "Bash", "f() { echo > x; }; cd secrets; f", Ask),
    case(EDIT_RULES, "Bash", "{ echo hi; } > secrets/x", Deny),
    case(
        EDIT_RULES,
        "Bash",
        "/usr/bin/time -o secrets/t echo hi",
        Deny,
    ),
    case(EDIT_RULES, "Bash", "find . -fprint secrets/list", Deny),
    case(EDIT_RULES, "Bash", "exec 3> secrets/x", Deny),
    case(
        &["deny Edit(./secrets/**)", "allow Bash(rm *)"],
        "Bash",
        "rm secrets/key.txt",
        Deny,
    ),
    case(
        &["deny Edit(./secrets/**)", "allow Bash(cp *)"],
        "Bash",
        "cp x link_to_secrets/",
        Deny,
    ),
    case(
        &["allow Edit", "allow Bash(echo *)"],
        "Bash",
        "echo hi > $F",
        Allow,
    ),
];

#[test]
fn reads() {
    run(READS);
}

#[test]
fn edits() {
    run(EDITS);
}

pub const COUNT: usize = READS.len() + EDITS.len();
