//! Tenth round, variables: however bash sets a variable (a prefix or plain
//! assignment, `export`/`declare`/`typeset`/`readonly`/`local` with any
//! value, `env`, `read`, `printf -v`, `mapfile`, `for`, `getopts`, a name
//! reference, a computed name), the same checks apply: what it makes later
//! commands run, the hosts it names, and the file it names for a program to
//! read or write, which meets the Read and Edit rules and the protected
//! paths as that read or write would.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, run};

const B: &str = "Bash";
const RM: &[&str] = &["allow Bash", "deny Bash(rm *)", "deny Bash(git push:*)"];
const NET: &[&str] = &["allow Bash", "deny WebFetch(domain:evil.test)"];
const FILES: &[&str] = &[
    "allow Bash",
    "deny Read(./secrets/**)",
    "deny Read(./.env)",
    "deny Edit(./docs/**)",
    "mode acceptEdits",
];
const DONT_ASK: &[&str] = &["allow Bash", "allow Edit", "mode dontAsk"];

#[test]
fn a_declared_variable_with_a_computed_value_is_checked_as_any_other() {
    run(&[
        case(
            RM,
            B,
            "export EDITOR=\"rm victim #$E\"; git commit --allow-empty",
            Ask,
        ),
        case(RM, B, "export EDITOR='rm victim #'; git commit", Ask),
        case(RM, B, "export PATH=./bin:$PATH; ls victim", Ask),
        case(RM, B, "export PATH=bin:$PATH; cat victim", Ask),
        case(RM, B, "declare -x PATH=./bin:$PATH; ls", Ask),
        case(
            RM,
            B,
            "typeset -x EDITOR=\"rm victim #$E\"; git commit",
            Ask,
        ),
        case(RM, B, "readonly EDITOR=\"rm victim #$E\"; git commit", Ask),
        case(RM, B, "export -- EDITOR=\"rm victim #$E\"; git commit", Ask),
        case(RM, B, "export EDITOR+=\"rm victim #$E\"; git commit", Ask),
        case(
            RM,
            B,
            "declare -gx EDITOR=\"rm victim #$E\"; git commit",
            Ask,
        ),
        case(
            RM,
            B,
            "f() { local -x EDITOR=\"rm victim #$E\"; git commit; }; f",
            Ask,
        ),
        case(
            RM,
            B,
            "export EDITOR=\"rm victim #$(true)\"; git commit",
            Ask,
        ),
        case(RM, B, "export PAGER=\"rm victim$E\"; git log", Ask),
        case(RM, B, "export GIT_PAGER=\"rm victim$E\"; git log", Ask),
        case(RM, B, "export LESSOPEN=\"|rm victim %s$E\"; less a", Ask),
        case(RM, B, "export BASH_ENV=\"$PWD/e.sh\"; bash -c true", Ask),
        case(
            RM,
            B,
            "export PYTHONPATH=\"$PWD\"; python3 -c 'import json'",
            Ask,
        ),
        case(
            RM,
            B,
            "export TAR_OPTIONS=\"--to-command=rm$E\"; tar -xf a.tar",
            Ask,
        ),
        case(
            RM,
            B,
            "export GIT_SSH_COMMAND=\"git push origin HEAD #$E\"; git ls-remote ssh://h/x",
            Ask,
        ),
        // Everyday declarations stay allowed.
        case(RM, B, "export GREETING=\"hi $USER\"; echo ok", Allow),
        case(RM, B, "f() { local x=\"$1\"; echo \"$x\"; }; f a", Allow),
        case(RM, B, "export NODE_ENV=\"$MODE\"; ls", Allow),
        case(RM, B, "declare -x COUNT=$((1 + 2)); ls", Allow),
    ]);
}

#[test]
fn a_proxy_set_other_than_by_a_literal_assignment_is_a_host_unknown() {
    run(&[
        case(
            NET,
            B,
            "export $(cat plain.env); curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "export $(grep -v '^#' plain.env | xargs); curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "while IFS== read -r k v; do export \"$k=$v\"; done < plain.env; curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "declare -x \"$(cat plain.env)\"; curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "env -S \"$(cat plain.env)\" curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "read http_proxy <<< 127.0.0.2:8099; export http_proxy; curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "read -r ALL_PROXY <<< socks5h://h:1; export ALL_PROXY; curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "printf -v http_proxy %s evil.test:8099; export http_proxy; curl -s http://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "mapfile -t HTTPS_PROXY < p; export HTTPS_PROXY; curl -s https://ok.test/x",
            Ask,
        ),
        case(
            NET,
            B,
            "for http_proxy in evil.test:8099; do export http_proxy; curl -s http://ok.test/x; done",
            Deny,
        ),
        case(
            NET,
            B,
            "for PGHOST in $HOSTS; do export PGHOST; psql -c 'select 1'; done",
            Ask,
        ),
        case(
            NET,
            B,
            "declare -n p=http_proxy; p=127.0.0.2:8099; export http_proxy; curl -s http://ok.test/x",
            Ask,
        ),
        case(NET, B, "export \"$V\"; git fetch", Ask),
        case(
            NET,
            B,
            "f() { local -x \"$V\"; curl -s http://ok.test/; }; f",
            Ask,
        ),
        case(
            NET,
            B,
            "export http_proxy=evil.test:3128; curl -s http://ok.test/",
            Deny,
        ),
        // Builtins assigning variables that name no host.
        case(NET, B, "read -r name <<< x; echo \"$name\"", Allow),
        case(NET, B, "printf -v line '%s' x; echo \"$line\"", Allow),
        case(NET, B, "for f in a b; do echo \"$f\"; done", Allow),
        case(
            NET,
            B,
            "export NODE_ENV=production; curl -s http://ok.test/",
            Allow,
        ),
        case(NET, B, "while getopts ab o; do echo $o; done", Allow),
        case(NET, B, "export -n FOO; curl -s http://ok.test/", Allow),
        case(
            NET,
            B,
            "f() { local -n ref=$1; ref=x; }; f y; curl -s http://ok.test/",
            Ask,
        ),
    ]);
}

#[test]
fn a_variable_that_names_a_file_is_that_files_read_or_write() {
    run(&[
        case(FILES, B, "BASH_ENV=.env bash -c 'echo \"$API_KEY\"'", Deny),
        case(FILES, B, "env BASH_ENV=.env bash -c 'echo $API_KEY'", Deny),
        case(FILES, B, "export BASH_ENV=.env; bash -c true", Deny),
        case(FILES, B, "BASH_ENV=.env ./build.sh", Deny),
        case(FILES, B, "ENV=.env sh -i </dev/null", Deny),
        case(FILES, B, "INPUTRC=.env bash -ic true", Deny),
        case(FILES, B, "PYTHONSTARTUP=secrets/key.txt python3 -i", Deny),
        case(
            FILES,
            B,
            "NODE_OPTIONS='--require ./.env' npm --version",
            Deny,
        ),
        case(
            FILES,
            B,
            "NODE_OPTIONS=--require=./.env npx --version",
            Deny,
        ),
        case(
            FILES,
            B,
            "NODE_OPTIONS='-r ./secrets/key.txt' node x.js",
            Deny,
        ),
        case(
            FILES,
            B,
            "NODE_OPTIONS='--import=./secrets/key.txt' node x.js",
            Deny,
        ),
        case(FILES, B, "CURL_HOME=secrets curl -s https://ok.test/", Deny),
        case(FILES, B, "WGETRC=.env wget -q https://ok.test/", Deny),
        case(FILES, B, "PSQLRC=.env psql -c 'select 1'", Deny),
        case(FILES, B, "GIT_CONFIG_SYSTEM=.env git config -l", Deny),
        case(
            FILES,
            B,
            "GIT_CONFIG_GLOBAL=secrets/.gitconfig git config --global user.name",
            Deny,
        ),
        case(FILES, B, "HOME=secrets git config --global user.name", Deny),
        case(
            FILES,
            B,
            "XDG_CONFIG_HOME=secrets git config --global -l",
            Deny,
        ),
        case(
            FILES,
            B,
            "GIT_INDEX_FILE=docs/new.idx git add src/main.rs",
            Deny,
        ),
        case(
            FILES,
            B,
            "GIT_OBJECT_DIRECTORY=docs git hash-object -w src/main.rs",
            Deny,
        ),
        case(FILES, B, "TMPDIR=docs mktemp", Deny),
        case(FILES, B, "export TMPDIR=docs; mktemp", Deny),
        case(
            FILES,
            B,
            "PYTHONPYCACHEPREFIX=docs python3 -m py_compile src/a.py",
            Deny,
        ),
        // However the variable is set.
        case(
            FILES,
            B,
            "for BASH_ENV in .env; do bash -c true; done",
            Deny,
        ),
        case(FILES, B, "declare -x BASH_ENV=.env; bash -c true", Deny),
        case(
            FILES,
            B,
            "read BASH_ENV < f; export BASH_ENV; bash -c true",
            Ask,
        ),
        case(FILES, B, "export BASH_ENV=\"$F\"; bash -c true", Ask),
        case(FILES, B, "export \"$K=$V\"; bash -c true", Ask),
        // HOME moved, then `~` and a bare `cd` follow it.
        case(FILES, B, "HOME=secrets; cat ~/key.txt", Deny),
        case(FILES, B, "export HOME=secrets; cat ~/key.txt", Deny),
        case(FILES, B, "HOME=secrets; cd; cat key.txt", Deny),
        case(FILES, B, "read HOME < f; cat ~/key.txt", Ask),
        // Everyday settings, and ones that name files no rule covers.
        case(FILES, B, "TMPDIR=/tmp/x mktemp", Allow),
        case(FILES, B, "TMPDIR=out cargo test", Allow),
        case(
            FILES,
            B,
            "NODE_OPTIONS=--max-old-space-size=4096 npm test",
            Allow,
        ),
        case(FILES, B, "ENV=production node app.js", Allow),
        case(FILES, B, "env=.env node app.js", Allow),
        case(FILES, B, "npm_config_userconfig=secrets/npmrc npm ci", Deny),
        case(FILES, B, "KUBECONFIG=a:secrets/k kubectl get pods", Deny),
        case(FILES, B, "BASH_ENV=src/env.sh bash -c true", Allow),
        case(
            FILES,
            B,
            "GIT_INDEX_FILE=/tmp/idx git add src/main.rs",
            Allow,
        ),
        case(FILES, B, "HOME=/tmp/h; cat ~/x", Allow),
        case(FILES, B, "HOME=/tmp/h npm --version", Allow),
        case(FILES, B, "HOME=secrets echo ~/x", Allow),
        case(FILES, B, "cd; ls", Allow),
        case(FILES, B, "git config --global user.name", Allow),
        case(
            FILES,
            B,
            "GIT_CONFIG_GLOBAL=/tmp/gc git config --global -l",
            Allow,
        ),
    ]);
}

#[test]
fn git_config_scopes_follow_the_variables_that_move_them() {
    run(&[
        case(
            DONT_ASK,
            B,
            "GIT_CONFIG_SYSTEM=.git/config git config --system core.fsmonitor 'touch x'",
            Deny,
        ),
        case(
            DONT_ASK,
            B,
            "GIT_CONFIG_GLOBAL=.git/config git config --global core.hooksPath docs",
            Deny,
        ),
        case(
            DONT_ASK,
            B,
            "export GIT_CONFIG_GLOBAL=.git/config; git config --global core.fsmonitor x",
            Deny,
        ),
        case(
            DONT_ASK,
            B,
            "HOME=.git git config --global core.fsmonitor x",
            Deny,
        ),
        case(
            DONT_ASK,
            B,
            "XDG_CONFIG_HOME=.git/x git config --global core.fsmonitor x",
            Deny,
        ),
        case(
            DONT_ASK,
            B,
            "GIT_INDEX_FILE=.git/hooks/pre-commit git add docs/a.md",
            Deny,
        ),
        case(DONT_ASK, B, "TMPDIR=.git/hooks mktemp", Deny),
        case(
            DONT_ASK,
            B,
            "PYTHONPYCACHEPREFIX=.git/hooks python3 -m py_compile a.py",
            Deny,
        ),
        // The scopes where nothing moves them, and files moved elsewhere.
        // (`.gitconfig` is a protected name wherever it is.)
        case(DONT_ASK, B, "git config --global user.name x", Deny),
        case(
            DONT_ASK,
            B,
            "HOME=/tmp/h git config --global user.name x",
            Deny,
        ),
        case(DONT_ASK, B, "HOME=/tmp/h git config --global -l", Allow),
        case(
            DONT_ASK,
            B,
            "GIT_CONFIG_GLOBAL=/tmp/gc git config --global user.name x",
            Allow,
        ),
        case(
            DONT_ASK,
            B,
            "GIT_CONFIG_GLOBAL=/tmp/gc git config --global user.name x; git status",
            Allow,
        ),
        case(DONT_ASK, B, "TMPDIR=/tmp/x mktemp", Allow),
    ]);
}

/// Wrappers, default-value expansions, the builtins that assign, and a
/// HOME given to a program alone (its scripts follow it, the shell's `~`
/// does not).
#[test]
fn every_way_of_setting_a_variable_meets_the_same_checks() {
    run(&[
        case(NET, B, "env http_proxy=$P curl -s http://ok.test/", Ask),
        case(NET, B, "env \"$K=$V\" curl -s http://ok.test/", Ask),
        case(NET, B, "env $KV curl -s http://ok.test/", Ask),
        case(
            NET,
            B,
            ": ${http_proxy:=evil.test:1}; export http_proxy; curl -s http://ok.test/",
            Ask,
        ),
        case(
            NET,
            B,
            "sudo http_proxy=evil.test:1 curl -s http://ok.test/",
            Deny,
        ),
        case(
            NET,
            B,
            "wait -p http_proxy; export http_proxy; curl http://ok.test/",
            Ask,
        ),
        case(
            NET,
            B,
            "getopts a: https_proxy; export https_proxy; curl http://ok.test/",
            Ask,
        ),
        case(NET, B, "eval \"export $x\"; curl http://ok.test/", Ask),
        case(FILES, B, "env HOME=secrets bash -c 'cat ~/key.txt'", Deny),
        case(FILES, B, "HOME=secrets bash -c 'cat ~/key.txt'", Deny),
        case(FILES, B, "HOME=~/x; cat ~/y", Allow),
        case(FILES, B, "cd /tmp; HOME=secrets; cat ~/key.txt", Ask),
        case(FILES, B, "env HOME=secrets true; cat ~/key.txt", Allow),
        case(FILES, B, "HOME=secrets true; cat ~/key.txt", Allow),
        case(
            FILES,
            B,
            "HOME=secrets find . -exec sh -c 'cat ~/key.txt' \\; -exec sh -c 'cat ~/key.txt' \\;",
            Deny,
        ),
        case(FILES, B, "KUBECONFIG=secrets/k kubectl get pods", Deny),
        case(FILES, B, "GIT_INDEX_FILE=docs/i git status", Deny),
        case(FILES, B, "export HISTFILE=docs/h", Deny),
        case(FILES, B, "HOME=secrets; cat $HOME/key.txt", Deny),
        case(FILES, B, "HOME=secrets; cd ~; cat key.txt", Deny),
        case(FILES, B, "export HOME=$(mktemp -d); cat ~/key.txt", Ask),
        case(
            FILES,
            B,
            "strace -E HOME=secrets bash -c 'cat ~/key.txt'",
            Deny,
        ),
        case(
            FILES,
            B,
            "while read -r line; do echo \"$line\"; done < src/main.rs",
            Allow,
        ),
        case(
            NET,
            B,
            "for url in a.test b.test; do echo \"$url\"; done",
            Allow,
        ),
        case(
            NET,
            B,
            "for url in ok.test evil.test; do curl -s \"$url\"; done",
            Deny,
        ),
        case(RM, B, "export EDITOR=~/x; git commit", Ask),
        case(RM, B, "x=1; export EDITOR=\"$x\"; git commit", Ask),
    ]);
}
