//! Commands that only read need no allow rule, as in Claude Code: `ls`,
//! `cat`, `grep`, `find`, `git status`, `echo` … in a read-only form, on
//! files inside the working directories, in every mode (plan mode runs
//! them). Deny and ask rules still apply, to them and to what they read;
//! a file outside, a computed operand, a write option, a redirection, a
//! wrapper or `sudo`, a pattern where it could expand to an option, git
//! after a `cd`, all still ask.

use tack_protocol::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, case_in, run};

const NONE: &[&str] = &[];
const B: &str = "Bash";

const ROWS: &[Case] = &[
    case(NONE, B, "ls", Allow),
    case(NONE, B, "ls -la src", Allow),
    case(NONE, B, "ls src/*", Allow),
    // `*` here matches `outside_link`, which leads outside.
    case(NONE, B, "ls *", Ask),
    case(NONE, B, "cat src/main.rs | wc -l", Allow),
    case(NONE, B, "head -n 5 docs/guide.md", Allow),
    case(NONE, B, "grep -rn main src", Allow),
    case(NONE, B, "grep -r TODO", Allow),
    case(NONE, B, "find . -name '*.rs'", Allow),
    case(NONE, B, "sort src/main.rs | uniq -c", Allow),
    case(NONE, B, "git status", Allow),
    case(NONE, B, "git log --oneline -5", Allow),
    case(NONE, B, "git diff HEAD~1 -- src", Allow),
    case(NONE, B, "git branch -a", Allow),
    case(NONE, B, "echo done", Allow),
    case(NONE, B, "pwd && date", Allow),
    case(NONE, B, "cd src && ls", Allow),
    case_in("src", NONE, B, "cat main.rs", Allow),
    case(&["mode dontAsk"], B, "ls src", Allow),
    case(&["mode plan"], B, "git log -1 && grep -r x src", Allow),
    // Outside the working directories, or not known before running.
    case(NONE, B, "cat {root}/outside/file.txt", Ask),
    case(NONE, B, "cat outside_link/file.txt", Ask),
    case(NONE, B, "ls ~", Ask),
    case(NONE, B, "grep -r x /", Ask),
    case(NONE, B, "cat \"$F\"", Ask),
    case(NONE, B, "ls | xargs cat", Ask),
    case(NONE, B, "cd {root}/outside && ls", Ask),
    case(NONE, B, "grep -f {home}/.ssh/id_rsa src", Ask),
    // Links followed while walking lead outside (`outside_link`).
    case(NONE, B, "grep -R secret .", Ask),
    case(NONE, B, "find -L . -name '*.txt'", Ask),
    case(NONE, B, "du -L .", Ask),
    case(
        &["dir {root}/outside"],
        B,
        "cat {root}/outside/file.txt",
        Allow,
    ),
    // Not in a read-only form.
    case(NONE, B, "ls > listing.txt", Ask),
    case(NONE, B, "sort -o out/x src/main.rs", Ask),
    case(NONE, B, "find . -delete", Ask),
    case(NONE, B, "find . -exec touch {} +", Ask),
    case(NONE, B, "find *", Ask),
    case(NONE, B, "rg --pre sh x", Ask),
    case(NONE, B, "git push", Ask),
    case(NONE, B, "git branch new", Ask),
    case(NONE, B, "git -C {root}/outside status", Ask),
    case(NONE, B, "cd docs && git status", Ask),
    case(NONE, B, "sudo cat src/main.rs", Ask),
    case(NONE, B, "timeout 5 cat src/main.rs", Ask),
    case(NONE, B, "sed -n 1p src/main.rs", Ask),
    case(NONE, B, "ls && npm test", Ask),
    case(&["mode plan"], B, "ls && npm test", Deny),
    case(&["mode plan"], B, "ls > x", Deny),
    case(&["mode dontAsk"], B, "cat {root}/outside/file.txt", Deny),
    // Rules still hold.
    case(&["deny Read(./.env)"], B, "cat .env", Deny),
    case(&["deny Read(./.env)"], B, "grep -r KEY .", Deny),
    case(&["deny Read(./secrets/**)"], B, "ls link_to_secrets", Deny),
    case(&["deny Bash(ls *)"], B, "ls -la", Deny),
    case(&["ask Bash(git status)"], B, "git status", Ask),
    case(&["ask Bash"], B, "ls", Ask),
    // Reading refused or asked whole: no file is read without a rule.
    case(&["deny Read"], B, "cat src/main.rs", Ask),
    case(&["ask Read"], B, "ls", Ask),
    case(&["deny Read"], B, "echo hi", Allow),
];

#[test]
fn commands_that_only_read_need_no_rule_inside_the_working_directories() {
    run(ROWS);
}
