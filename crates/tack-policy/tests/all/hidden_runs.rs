//! What a command runs or writes without saying so (the twentieth session's
//! red team): bash's arithmetic variables, names assigned through options,
//! environment variables that name a program or its options, `set -k`,
//! interpreters of small languages, compiler and npm options that run a
//! program, a program named through a link or a path, `jobs -x`,
//! `history -w`, writes through `/dev/stdin`, reads outside the working
//! directories through a redirection, and NUL bytes bash drops.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run, run_with_files, run_with_links};

const B: &str = "Bash";

/// Bash allowed wholesale; rm and python3 denied.
const W: &[&str] = &["allow Bash", "deny Bash(rm *)", "deny Bash(python3 *)"];
/// No rule at all.
const NONE: &[&str] = &[];
const PLAN: &[&str] = &["mode plan"];

const ARITHMETIC: &[Case] = &[
    // bash evaluates what is assigned to these as arithmetic; a subscript
    // there runs its substitution.
    case(W, B, "RANDOM='a[$(rm victim)]'", Ask),
    case(W, B, "SRANDOM='a[$(rm victim)]'", Ask),
    case(W, B, "OPTIND='a[$(rm victim)]'", Ask),
    case(W, B, "HISTCMD='a[$(rm victim)]'", Ask),
    case(W, B, "x='a[$(rm victim)]'; RANDOM=x", Ask),
    case(W, B, "export RANDOM='a[$(rm victim)]'", Ask),
    case(W, B, "read OPTIND <<< 'a[$(rm victim)]'", Ask),
    case(W, B, "for RANDOM in 'a[$(rm victim)]'; do :; done", Ask),
    case(NONE, B, "RANDOM='a[$(touch x)]'", Ask),
    case(PLAN, B, "RANDOM='a[$(touch x)]'", Deny),
    // The name given to `printf -v` attached, and `wait -p`.
    case(W, B, "printf -v'a[$(rm x)]' y", Ask),
    case(PLAN, B, "printf -vRANDOM 'a[$(touch x)]'", Deny),
    case(W, B, "sleep 0 & wait -n -p 'a[$(rm victim)]'", Ask),
    case(W, B, "printf -v x %s y", Allow),
    case(W, B, "x=1; echo $x", Allow),
];

#[test]
fn arithmetic_variables_and_assigned_names_run_their_subscripts() {
    run(ARITHMETIC);
}

const ENVIRONMENT: &[Case] = &[
    // A program to run, its options, or a file of them, named by a
    // variable the program reads.
    case(W, B, "RSYNC_RSH='sh -c \"rm -rf v\"' rsync f x:y", Ask),
    case(W, B, "env RSYNC_RSH=x rsync f x:y", Ask),
    case(
        W,
        B,
        "RSYNC_CONNECT_PROG='rm -rf v' rsync rsync://x/y .",
        Ask,
    ),
    case(W, B, "CVS_RSH='rm -rf v' cvs -d :ext:x:/y co z", Ask),
    case(W, B, "SVN_SSH='rm -rf v' svn co svn+ssh://x/y", Ask),
    case(
        W,
        B,
        "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm\\ v' tar -tf a.tar",
        Ask,
    ),
    case(W, B, "MAKEFLAGS='--eval=x:=$(shell rm v)' make", Ask),
    case(W, B, "GNUMAKEFLAGS='--eval=$(shell rm v)' make", Ask),
    case(W, B, "CC='rm v; true' make a.o", Ask),
    case(W, B, "PERL5DB='system(\"rm v\")' perl -d -e 1", Ask),
    case(
        W,
        B,
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER='rm v' cargo run",
        Ask,
    ),
    case(W, B, "RUSTC_WRAPPER=./w cargo build", Ask),
    case(W, B, "GOFLAGS=-toolexec=./x go build", Ask),
    case(W, B, "ZIPOPT='-TT rm' zip -T a.zip f", Ask),
    case(W, B, "npm_config_script_shell=python3 npm test", Ask),
    case(W, B, "KUBECONFIG=./k kubectl get pods", Ask),
    case(W, B, "RIPGREP_CONFIG_PATH=rgrc rg foo", Ask),
    case(W, B, "LESSKEYIN=lk less f", Ask),
    case(W, B, "GIT_TEST_FSMONITOR='rm v; false' git status", Ask),
    case(W, B, "GIT_TRACE=/tmp/x.pth git log", Ask),
    case(PLAN, B, "GIT_TRACE=/tmp/x.pth git log", Deny),
    case(NONE, B, "GIT_TRACE=1 git status", Allow),
    case(
        W,
        B,
        "SSLKEYLOGFILE=.git/hooks/pre-commit curl https://x.org",
        Ask,
    ),
    case(
        W,
        B,
        "DBUS_SESSION_BUS_ADDRESS=unixexec:path=/bin/rm,argv1=-rf busctl --user list",
        Ask,
    ),
    // Options for a program that runs code anyway matter only where deny
    // or ask rules exist.
    case(
        &["allow Bash(cargo *)"],
        B,
        "RUSTFLAGS=\"-D warnings\" cargo build",
        Allow,
    ),
    case(&["allow Bash(make *)"], B, "MAKEFLAGS=-j4 make", Allow),
    case(
        &["allow Bash(cargo *)", "deny Bash(rm *)"],
        B,
        "RUSTFLAGS=\"-D warnings\" cargo build",
        Ask,
    ),
    // A word naming the home directory is no read.
    case(&["deny Read(./.env)"], B, "echo $HOME", Allow),
    case(
        &["mode plan", "deny Edit(./src/**)"],
        B,
        "echo ~/projects",
        Allow,
    ),
    case(
        &["deny Read(./.env)"],
        B,
        "test -d \"$HOME/.cargo\" && echo y",
        Allow,
    ),
    case(W, B, "GIT_COMMON_DIR=/tmp/evil git status", Ask),
    case(
        W,
        B,
        "GIT_ALLOW_PROTOCOL=ext git ls-remote 'ext::sh -c rm% v'",
        // The `ext::` command is read: `sh -c 'rm v'`.
        Deny,
    ),
    // Without a rule, git is no longer a command that only reads.
    case(
        NONE,
        B,
        "GIT_TEST_FSMONITOR='touch x; false' git status",
        Ask,
    ),
    case(PLAN, B, "GIT_WORK_TREE={root}/outside git diff", Deny),
    case(
        PLAN,
        B,
        "MAGIC={root}/outside/file.txt file src/main.rs",
        Deny,
    ),
    // Everyday variables change nothing.
    case(W, B, "RUST_LOG=debug cargo run", Allow),
    case(W, B, "NODE_ENV=production npm run build", Allow),
    case(W, B, "CARGO_TARGET_DIR=target2 cargo build", Allow),
    case(W, B, "GIT_AUTHOR_NAME=x git commit -m y", Allow),
    case(W, B, "OPTS=-la; ls $OPTS", Allow),
    case(W, B, "SRC=src; ls $SRC", Allow),
    case(NONE, B, "GIT_OPTIONAL_LOCKS=0 git status", Allow),
];

#[test]
fn variables_that_name_a_program_or_its_options_make_a_command_uncertain() {
    run(ENVIRONMENT);
}

const KEYWORD: &[Case] = &[
    // After `set -k` a NAME=value word anywhere goes into the environment.
    case(W, B, "set -k; less f LESSOPEN='|rm victim; cat %s'", Ask),
    case(W, B, "set -o keyword; ls", Ask),
    case(W, B, "set -okeyword; ls", Ask),
    case(W, B, "shopt -so keyword; ls", Ask),
    case(W, B, "set -euk; ls", Ask),
    case(W, B, "bash -k -c ls", Ask),
    case(W, B, "sh -kc ls", Ask),
    case(W, B, "set -euo pipefail; ls", Allow),
    case(W, B, "set -o vi; ls", Allow),
    case(W, B, "shopt -s nullglob; ls", Allow),
];

#[test]
fn set_k_puts_later_assignments_into_the_environment() {
    run(KEYWORD);
}

const RUNNERS: &[Case] = &[
    // dc's `!` and m4's syscmd run shell commands.
    case(W, B, "dc -e '!rm victim'", Ask),
    case(W, B, "dc <<< '!rm victim'", Ask),
    case(W, B, "echo '!rm victim' | dc", Ask),
    case(W, B, "m4 <<< 'syscmd(rm victim)'", Ask),
    case(W, B, "m4 -D'x=syscmd(rm victim)' <<< x", Ask),
    // The compiler driver runs its programs through -wrapper; npm its
    // scripts through --script-shell.
    case(W, B, "gcc -wrapper 'sh,-c,rm victim,x' -c a.c", Deny),
    case(W, B, "cc -wrapper rm,victim -c a.c", Deny),
    case(W, B, "gcc -O2 -c a.c", Allow),
    case(W, B, "npm test --script-shell=python3", Deny),
    case(W, B, "npm test --script-shell python3", Deny),
    case(W, B, "npm test", Allow),
    // `jobs -x CMD` runs CMD.
    case(W, B, "jobs -x rm victim", Deny),
    case(W, B, "builtin jobs -x rm victim", Deny),
    case(W, B, "jobs -l", Allow),
    // A lesskey file sets LESSOPEN, which less runs.
    case(W, B, "less -k lk f", Ask),
    case(W, B, "less --lesskey-src=lk f", Ask),
    case(W, B, "less --lesskey-s=lk f", Ask),
    case(W, B, "less +G f", Allow),
];

#[test]
fn small_languages_and_options_that_run_a_program() {
    run(RUNNERS);
}

const WRITES: &[Case] = &[
    // `history -w FILE`, `-a FILE` write FILE.
    case(W, B, "history -s x; history -w .git/config", Ask),
    case(W, B, "history -a {home}/.zshrc", Ask),
    case(PLAN, B, "history -w notes.txt", Deny),
    // Writing /dev/stdin reopens the file the input came from.
    case(PLAN, B, "echo PWNED < src/main.rs > /dev/stdin", Deny),
    case(PLAN, B, "exec < src/main.rs; echo PWNED > /dev/stdin", Deny),
    case(PLAN, B, "echo PWNED 0<src/main.rs 1<>/dev/stdin", Deny),
    case(NONE, B, "echo PWNED > /dev/fd/0", Ask),
    // A file opened on the output's descriptor is written through
    // /dev/stdout.
    case(PLAN, B, "echo PWNED 1<src/main.rs >/dev/stdout", Deny),
    case(PLAN, B, "echo PWNED 2<src/main.rs >/dev/stderr", Deny),
    case(W, B, "printf x < .git/config >> /dev/stdin", Ask),
    case(
        &["allow Bash", "allow Edit", "deny Edit(./src/main.rs)"],
        B,
        "echo PWNED < src/main.rs > /dev/stdin",
        Deny,
    ),
    // A writer given /dev/stdin writes the file the input came from.
    case(
        &["mode acceptEdits"],
        B,
        "cp docs/guide.md /dev/stdin < {root}/outside/file.txt",
        Ask,
    ),
    case(W, B, "mv docs/guide.md /dev/fd/0 < .git/config", Ask),
    case(PLAN, B, "cat /dev/stdin < docs/guide.md", Allow),
    // /proc/self/cwd is the command's own directory, /proc/self/root `/`.
    case(W, B, "touch /proc/self/cwd/.git/hooks/x", Ask),
    case(
        W,
        B,
        "cp x /proc/thread-self/cwd/.claude/settings.json",
        Ask,
    ),
    case(NONE, B, "cat /proc/self/root{root}/outside/file.txt", Ask),
    // A program run through a descriptor is whatever file it holds.
    case(W, B, "/dev/fd/3 -f p 3</usr/bin/rm", Ask),
    case(W, B, "/dev/stdin -f p < /usr/bin/rm", Ask),
    case(W, B, "/proc/self/fd/3 x 3</usr/bin/rm", Ask),
    case(PLAN, B, "echo hi >/dev/stderr", Allow),
    case(PLAN, B, "ls > /dev/null 2>&1", Allow),
    case(PLAN, B, "cat < src/main.rs", Allow),
];

const GIT_WRITES: &[Case] = &[
    // A command kept in the repository's configuration, which the next git
    // command runs: a write of .git/config whatever allows git.
    case(W, B, "git config core.fsmonitor ./x.sh", Ask),
    case(W, B, "git config core.hooksPath .githooks", Ask),
    case(W, B, "git config alias.p '!rm -rf x'", Deny),
    case(W, B, "git config alias.p '!make'", Ask),
    case(
        &["allow Bash", "mode dontAsk"],
        B,
        "git config core.pager ./p.sh",
        Deny,
    ),
    case(W, B, "git config user.name Bob", Allow),
    case(W, B, "git config pull.rebase true", Allow),
    case(W, B, "git config --get core.fsmonitor", Allow),
    // git's work tree moved onto a protected path, or files checked out
    // under a prefix there.
    case(
        &["allow Bash(git *)"],
        B,
        "git --work-tree=.git/hooks checkout HEAD -- pre-commit",
        Ask,
    ),
    case(
        &["allow Bash(git *)"],
        B,
        "git --work-tree .git/hooks checkout HEAD -- pre-commit",
        Ask,
    ),
    case(
        &["allow Bash(git *)"],
        B,
        "git checkout-index --prefix=.git/hooks/ -a",
        Ask,
    ),
    case(
        &["allow Bash(git *)"],
        B,
        "git --work-tree={home} checkout HEAD -- .zshrc",
        Ask,
    ),
    case(&["allow Bash(git *)"], B, "git checkout -- src", Allow),
    case(&["allow Bash(git *)"], B, "git checkout main", Allow),
];

#[test]
fn git_writing_its_configuration_or_a_moved_work_tree_meets_the_protected_paths() {
    run(GIT_WRITES);
}

#[test]
fn history_files_and_writes_through_the_standard_descriptors() {
    run(WRITES);
}

const OUTSIDE: &[Case] = &[
    // A read outside the working directories needs a rule, however the
    // file is opened.
    case(NONE, B, "cat < {root}/outside/file.txt", Ask),
    case(NONE, B, "echo \"$(< {home}/.ssh/id_rsa)\"", Ask),
    case(NONE, B, "exec 3< {root}/outside/file.txt; cat <&3", Ask),
    case(NONE, B, "{ cat; } < {home}/.zshrc", Ask),
    case(NONE, B, "cat < /dev/tcp/127.0.0.1/80", Ask),
    case(PLAN, B, "cat < {root}/outside/file.txt", Deny),
    case(&["mode dontAsk"], B, "cat < {root}/outside/file.txt", Deny),
    case(
        &["mode bypassPermissions"],
        B,
        "cat < {root}/outside/file.txt",
        Allow,
    ),
    case(
        &["allow Bash(cat *)"],
        B,
        "cat < {root}/outside/file.txt",
        Allow,
    ),
    case(NONE, B, "cat < src/main.rs", Allow),
    case(PLAN, B, "wc -l < docs/guide.md", Allow),
    case(
        &["dir {root}/outside"],
        B,
        "cat < {root}/outside/file.txt",
        Allow,
    ),
];

#[test]
fn reading_outside_the_working_directories_through_a_redirection_needs_a_rule() {
    run(OUTSIDE);
}

const NUL: &[Case] = &[
    // bash drops NUL bytes from the script it reads: `r\0m` is rm.
    case(W, B, "r\0m victim", Deny),
    case(W, B, "ls; r\0m victim", Deny),
    case(W, B, "echo hi\nr\0m victim", Deny),
    case(W, B, "l\0s", Allow),
];

#[test]
fn nul_bytes_are_dropped_as_bash_drops_them() {
    run(NUL);
}

const COMPUTED: &[Case] = &[
    // A program computed at run time is given its files: deny rules on
    // them hold.
    case(
        &["allow Bash", "deny Read(./.env)"],
        B,
        "c=cat; $c .env",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(./.env)"],
        B,
        "$(echo cat) .env",
        Deny,
    ),
    case(
        &["allow Bash", "deny Edit(./src/**)"],
        B,
        "c=tee; echo x | $c src/main.rs",
        Ask,
    ),
    case(
        &["allow Bash", "deny Read(./.env)"],
        B,
        "c=cat; $c docs/guide.md",
        Allow,
    ),
    // And it meets the protected paths, with no path rule at all.
    case(W, B, "c=tee; echo x | $c .git/hooks/pre-commit", Ask),
    case(
        &["allow Bash", "mode dontAsk"],
        B,
        "$(echo tee) .claude/settings.json",
        Deny,
    ),
];

#[test]
fn a_program_computed_at_run_time_is_given_its_files() {
    run(COMPUTED);
}

const LINKED: &[Case] = &[
    // A program named through a link is the program the link names.
    case(W, B, "./del victim", Deny),
    case(W, B, "tools/ls -rf victim", Deny),
    case(NONE, B, "tools/ls src", Ask),
    case(PLAN, B, "tools/ls src", Deny),
    case(&["allow Bash(./del *)"], B, "./del victim", Ask),
    case(W, B, "./cat2 src/main.rs", Allow),
];

const VERSIONED: &[Case] = &[
    // Deny rules meet a program under its versioned names.
    case(W, B, "python3.11 -c 'print(1)'", Deny),
    case(W, B, "/usr/bin/python3.11 s.py", Deny),
    case(
        &["allow Bash", "deny Bash(perl *)"],
        B,
        "perl5.36.0 -e 1",
        Deny,
    ),
    case(&["allow Bash", "ask Bash(gcc *)"], B, "gcc-12 -c a.c", Ask),
    case(
        &["allow Bash", "deny Bash(python *)"],
        B,
        "python3 -V",
        Deny,
    ),
    // git's commands in its exec path are git's subcommands.
    case(
        &["allow Bash", "deny Bash(git push *)"],
        B,
        "/usr/lib/git-core/git-push --force origin main",
        Deny,
    ),
    case(
        &["allow Bash", "deny Bash(git push *)"],
        B,
        "git -c alias.p='!git-push origin main' p",
        Deny,
    ),
    case(
        &["allow Bash", "ask Bash(git reset --hard *)"],
        B,
        "/usr/lib/git-core/git-reset --hard HEAD~1",
        Ask,
    ),
    case(
        &["allow Bash", "deny Bash(git push *)"],
        B,
        "git-log -1",
        Allow,
    ),
    // Allow rules still match the name as written.
    case(&["allow Bash(python *)"], B, "python3.11 s.py", Ask),
];

#[test]
fn deny_rules_meet_a_program_under_its_versioned_names() {
    run(VERSIONED);
}

#[test]
fn a_program_named_through_a_link_is_the_program_linked_to() {
    run_with_links(
        &[
            ("del", "/bin/rm"),
            ("tools/ls", "/bin/rm"),
            ("cat2", "/bin/cat"),
        ],
        LINKED,
    );
}

const BY_PATH: &[Case] = &[
    // `bin/cat` is whatever file has that name, not the system's cat.
    case(NONE, B, "bin/cat src/main.rs", Ask),
    case(PLAN, B, "bin/cat src/main.rs", Deny),
    case(PLAN, B, "./ls", Deny),
    case(PLAN, B, "/usr/bin/ls src", Allow),
    case(PLAN, B, "ls src", Allow),
];

const BRACKET: &[Case] = &[
    // An unmatched `[` matches itself: `[` is the test builtin.
    case(NONE, B, "[ -f src/main.rs ] && cat src/main.rs", Allow),
    case(PLAN, B, "[ -n \"x\" ]", Allow),
    case(W, B, "[ -d src ] && echo y", Allow),
    // A bracket expression is still a pattern.
    case(NONE, B, "cat src/[m]ain.rs", Allow),
    case(W, B, "/bin/r[m] x", Ask),
];

#[test]
fn an_unmatched_bracket_is_no_pattern() {
    run(BRACKET);
}

#[test]
fn a_program_named_by_a_path_is_not_the_systems_reader() {
    run_with_files(
        &[
            ("bin/cat", "#!/bin/sh\ntouch x\n", true),
            ("ls", "#!/bin/sh\ntouch x\n", true),
        ],
        BY_PATH,
    );
}
