//! The classes of holes a red team found, one section per class: each row
//! is a variant of the class, not only the reported example.

use serde_json::json;
use tack_policy::Verdict::{self, Allow, Ask, Deny};
use tack_policy::{Request, evaluate};

use crate::support::{Case, Fixture, case, case_in, run};

const B: &str = "Bash";

// F3: a function named like a program. Only a bare call reaches the
// function; a wrapper or `command`/`exec`/`builtin` runs the program,
// and when definitions may have changed, every call is the program.

const LS: &[&str] = &[
    "allow Bash(ls *)",
    "allow Bash(echo *)",
    "allow Bash(unset *)",
    "allow Bash(trap *)",
    "allow Bash(source *)",
    "allow Bash(find *)",
    "deny Bash(rm *)",
];

const FUNCTIONS: &[Case] = &[
    case(LS, B, "touch(){ ls; }; touch x", Allow),
    case(LS, B, "touch(){ ls; }; \\touch x", Allow),
    case(LS, B, "touch(){ ls; }; time touch x", Allow),
    case(LS, B, "touch(){ ls; }; ! touch x && touch y", Allow),
    case(LS, B, "command(){ ls; }; command touch x", Allow),
    case(LS, B, "touch(){ ls; }; command touch x", Ask),
    case(LS, B, "touch(){ ls; }; command -p touch x", Ask),
    case(LS, B, "touch(){ ls; }; exec touch x", Ask),
    case(LS, B, "touch(){ ls; }; exec -a t touch x", Ask),
    case(LS, B, "touch(){ ls; }; builtin touch x", Ask),
    case(LS, B, "touch(){ ls; }; env touch x", Ask),
    case(LS, B, "touch(){ ls; }; env -i A=1 touch x", Ask),
    case(LS, B, "touch(){ ls; }; nice -n 5 touch x", Ask),
    case(LS, B, "touch(){ ls; }; timeout 5 touch x", Ask),
    case(LS, B, "touch(){ ls; }; nohup touch x", Ask),
    case(LS, B, "touch(){ ls; }; stdbuf -o0 touch x", Ask),
    case(LS, B, "touch(){ ls; }; echo a | xargs touch", Ask),
    case(LS, B, "touch(){ ls; }; find . -exec touch {} +", Ask),
    case(LS, B, "touch(){ ls; }; sudo touch x", Ask),
    case(LS, B, "touch(){ ls; }; /usr/bin/touch x", Ask),
    case(LS, B, "rm(){ ls; }; command rm x", Deny),
    case(LS, B, "rm(){ ls; }; env rm x", Deny),
    case(&["allow Bash"], B, "touch(){ ls; }; command touch x", Allow),
    // Defined after the call, or where it is not visible afterwards.
    case(LS, B, "touch x; touch(){ ls; }", Ask),
    case(LS, B, "(touch(){ ls; }); touch x", Ask),
    case(LS, B, "if true; then touch(){ ls; }; fi; touch x", Ask),
    case(LS, B, "touch(){ ls; } | ls; touch x", Ask),
    case(LS, B, "f(){ touch(){ ls; }; }; f; touch x", Ask),
    // Removed again, where order alone does not tell.
    case(LS, B, "touch(){ ls; }; unset -f touch; touch x", Ask),
    case(LS, B, "touch(){ ls; }; unset touch; touch x", Ask),
    case(
        LS,
        B,
        "touch(){ ls; }; for i in 1 2; do touch x; unset -f touch; done",
        Ask,
    ),
    case(
        LS,
        B,
        "touch(){ ls; }; while true; do touch x; unset -f touch; done",
        Ask,
    ),
    case(LS, B, "touch(){ ls; }; eval 'unset -f touch'; touch x", Ask),
    case(
        LS,
        B,
        "f(){ unset -f touch; }; touch(){ ls; }; f; touch x",
        Ask,
    ),
    case(
        LS,
        B,
        "touch(){ ls; }; trap 'unset -f touch' DEBUG; touch x",
        Ask,
    ),
    case(LS, B, "touch(){ ls; }; source ./lib.sh; touch x", Ask),
    case(LS, B, "touch(){ ls; }; . ./lib.sh; touch x", Ask),
    // POSIX mode finds special builtins before functions.
    case(LS, B, "exec(){ ls; }; exec touch x", Ask),
    case(LS, B, "eval(){ ls; }; eval touch x", Ask),
    case(LS, B, "trap(){ ls; }; trap 'touch x' EXIT", Ask),
];

#[test]
fn functions_named_like_programs() {
    run(FUNCTIONS);
}

// F4: startup files and interactive or login shells run code that is not
// written in the command: the shell command itself must be allowed, and
// deny or ask rules make it ask.

const ONLY_LS: &[&str] = &["allow Bash(ls *)"];
const ALL_BUT_RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];
const BYPASS_BUT_RM: &[&str] = &["mode bypassPermissions", "deny Bash(rm *)"];

const STARTUP: &[Case] = &[
    case(ONLY_LS, B, "bash -c ls", Allow),
    case(ONLY_LS, B, "bash --norc --noprofile -c ls", Allow),
    case(ONLY_LS, B, "bash -o pipefail -O extglob -c ls", Allow),
    case(ONLY_LS, B, "bash --rcfile ./evil -ic ls", Ask),
    case(ONLY_LS, B, "bash --init-file ./evil -i -c ls", Ask),
    case(ONLY_LS, B, "bash --rcfile <(echo x) -ic ls", Ask),
    case(ONLY_LS, B, "bash -ic ls", Ask),
    case(ONLY_LS, B, "bash -xic ls", Ask),
    case(ONLY_LS, B, "bash -c -i ls", Ask),
    case(ONLY_LS, B, "bash -lc ls", Ask),
    case(ONLY_LS, B, "bash --login -c ls", Ask),
    case(ONLY_LS, B, "bash --debugger -c ls", Ask),
    case(ONLY_LS, B, "bash --some-new-option -c ls", Ask),
    case(ONLY_LS, B, "sh -i -c ls", Ask),
    case(ONLY_LS, B, "dash -ic ls", Ask),
    case(ONLY_LS, B, "ksh -l -c ls", Ask),
    case(ONLY_LS, B, "zsh -c ls", Allow),
    case(ONLY_LS, B, "fish -C 'touch x' -c ls", Ask),
    case(ONLY_LS, B, "zsh -o login -f -c ls", Ask),
    case(ONLY_LS, B, "zsh -f -c ls", Allow),
    case(ONLY_LS, B, "/bin/bash -ic ls", Ask),
    case(ONLY_LS, B, "exec -l bash -c ls", Ask),
    case(ONLY_LS, B, "exec -a -bash bash -c ls", Ask),
    case(ONLY_LS, B, "env bash -ic ls", Ask),
    case(ONLY_LS, B, "BASH_ENV=./evil bash -c ls", Ask),
    case(ONLY_LS, B, "env BASH_ENV=./evil bash -c ls", Ask),
    case(ONLY_LS, B, "export BASH_ENV=./evil; bash -c ls", Ask),
    case(ONLY_LS, B, "ENV=./evil sh -i", Ask),
    case(ONLY_LS, B, "bash ./script.sh", Ask),
    case(ONLY_LS, B, "source ./script.sh", Ask),
    case(ONLY_LS, B, ". ./script.sh && ls", Ask),
    case(ALL_BUT_RM, B, "bash --rcfile ./evil -ic ls", Ask),
    case(ALL_BUT_RM, B, "bash -lc ls", Ask),
    case(ALL_BUT_RM, B, "sh -i", Ask),
    case(ALL_BUT_RM, B, "bash ./script.sh", Ask),
    case(ALL_BUT_RM, B, "BASH_ENV=./evil bash -c ls", Ask),
    case(ALL_BUT_RM, B, "bash -ic 'rm x'", Deny),
    case(ALL_BUT_RM, B, "bash -c ls", Allow),
    case(BYPASS_BUT_RM, B, "bash --init-file ./evil -ic ls", Ask),
    case(BYPASS_BUT_RM, B, "source ./evil", Ask),
    case(&["allow Bash"], B, "bash --rcfile ./evil -ic ls", Allow),
    // A rule allowing the whole command form keeps allowing it.
    case(
        &[
            "allow Bash(bash --rcfile ./env.sh -ic *)",
            "allow Bash(ls *)",
        ],
        B,
        "bash --rcfile ./env.sh -ic 'ls -la'",
        Allow,
    ),
    case(
        &["allow Bash(bash --rcfile ./env.sh -ic *)"],
        B,
        "bash --rcfile ./env.sh -ic 'touch x'",
        Ask,
    ),
    case(&["allow Bash(bash *)"], B, "bash build.sh", Allow),
];

#[test]
fn startup_files_and_interactive_shells() {
    run(STARTUP);
}

// F8: deny rules hold when Bash is allowed wholesale or in bypass mode:
// builtins that run strings have those strings analysed, and wrappers
// are seen through by a table of their options (an unknown one asks).

const STRINGS: &[Case] = &[
    case(ALL_BUT_RM, B, "trap -- 'rm -f v' EXIT", Deny),
    case(ALL_BUT_RM, B, "trap -- \"rm -f v\" EXIT INT", Deny),
    case(ALL_BUT_RM, B, "command trap -- 'rm x' EXIT", Deny),
    case(ALL_BUT_RM, B, "trap 'rm x' 0", Deny),
    case(ALL_BUT_RM, B, "trap -x 'rm x' EXIT", Ask),
    case(ALL_BUT_RM, B, "trap -- - EXIT", Allow),
    case(ALL_BUT_RM, B, "trap -p EXIT", Allow),
    case(ALL_BUT_RM, B, "trap '' INT", Allow),
    case(ALL_BUT_RM, B, "eval -- 'rm x'", Deny),
    case(ALL_BUT_RM, B, "builtin eval -- rm x", Deny),
    case(ALL_BUT_RM, B, "mapfile -C 'rm x' -c 1 a <<< a", Deny),
    case(
        ALL_BUT_RM,
        B,
        "readarray -t -C 'rm -f' -c1 a < /dev/null",
        Deny,
    ),
    case(ALL_BUT_RM, B, "mapfile -tC'rm x' a <<< a", Deny),
    case(ALL_BUT_RM, B, "mapfile -X 'rm x' a", Ask),
    case(ALL_BUT_RM, B, "mapfile -t a < /dev/null", Allow),
    case(ALL_BUT_RM, B, "compgen -W '$(rm x)' a", Deny),
    case(ALL_BUT_RM, B, "compgen -o default -W '`rm x`' -- a", Deny),
    case(ALL_BUT_RM, B, "compgen -W \"$WORDS\" a", Ask),
    case(ALL_BUT_RM, B, "compgen -W 'a b c' a", Allow),
    case(ALL_BUT_RM, B, "compgen -A file -C 'rm x' a", Deny),
    case(ALL_BUT_RM, B, "compgen -C'rm x' a", Deny),
    case(ALL_BUT_RM, B, "complete -C 'rm x' foo", Deny),
    case(ALL_BUT_RM, B, "complete -o default -C 'rm x' foo", Deny),
    case(ALL_BUT_RM, B, "complete -F rm ls", Deny),
    case(ALL_BUT_RM, B, "bind -x '\"\\C-a\": rm x'", Ask),
    case(ALL_BUT_RM, B, "bind -m emacs -x '\"\\C-a\": ls'", Ask),
    case(ALL_BUT_RM, B, "PROMPT_COMMAND='rm x'", Deny),
    case(ALL_BUT_RM, B, "PROMPT_COMMAND=('ls' 'rm x')", Deny),
    case(ALL_BUT_RM, B, "export PROMPT_COMMAND='rm x'", Deny),
    case(ALL_BUT_RM, B, "PS4='$(rm x)'; set -x; ls", Deny),
    case(ALL_BUT_RM, B, "declare PS1='`rm x`'", Deny),
    case(ALL_BUT_RM, B, "PS4='\\$(rm x)'; set -x", Ask),
    case(BYPASS_BUT_RM, B, "trap -- 'rm x' EXIT", Deny),
    case(BYPASS_BUT_RM, B, "eval -- 'rm x'", Deny),
    case(BYPASS_BUT_RM, B, "mapfile -C 'rm x' a < /dev/null", Deny),
    case(BYPASS_BUT_RM, B, "compgen -W '$(rm x)' a", Deny),
    case(ONLY_LS, B, "mapfile -C ls a < /dev/null", Ask),
];

const WRAPPER_TABLE: &[Case] = &[
    case(ALL_BUT_RM, B, "taskset -c 0 rm x", Deny),
    case(ALL_BUT_RM, B, "taskset 0x3 rm x", Deny),
    case(ALL_BUT_RM, B, "taskset -a --cpu-list 0-3 rm x", Deny),
    case(ALL_BUT_RM, B, "taskset 1 -- rm x", Deny),
    case(ALL_BUT_RM, B, "taskset --frob 0 rm x", Ask),
    case(ALL_BUT_RM, B, "taskset -p 1", Allow),
    case(ALL_BUT_RM, B, "chrt -f 1 rm x", Deny),
    case(ALL_BUT_RM, B, "chrt --other rm x", Deny),
    case(ALL_BUT_RM, B, "chrt -T 100 -d 0 rm x", Deny),
    case(ALL_BUT_RM, B, "chrt $P rm x", Ask),
    case(ALL_BUT_RM, B, "prlimit --nofile=10 rm x", Deny),
    case(ALL_BUT_RM, B, "prlimit -n10 --as rm x", Deny),
    case(
        ALL_BUT_RM,
        B,
        "setpriv --reuid 1000 --init-groups rm x",
        Deny,
    ),
    case(ALL_BUT_RM, B, "chroot --userspec=a:b / rm x", Deny),
    case(ALL_BUT_RM, B, "chroot /jail", Ask),
    case(ALL_BUT_RM, B, "unshare -mr rm x", Deny),
    case(
        ALL_BUT_RM,
        B,
        "unshare --map-root-user --fork -- rm x",
        Deny,
    ),
    case(ALL_BUT_RM, B, "unshare -r", Ask),
    case(ALL_BUT_RM, B, "nsenter -t 1 -m rm x", Deny),
    case(
        ALL_BUT_RM,
        B,
        "nsenter --target=1 -m/proc/1/ns/mnt rm x",
        Deny,
    ),
    case(ALL_BUT_RM, B, "strace -o log rm x", Deny),
    case(ALL_BUT_RM, B, "strace -ff -e trace=open -s 100 rm x", Deny),
    case(ALL_BUT_RM, B, "strace -o '|rm x' ls", Deny),
    case(ALL_BUT_RM, B, "strace --output='!rm x' ls", Deny),
    case(ALL_BUT_RM, B, "strace -E LD_PRELOAD=./x.so ls", Ask),
    case(ALL_BUT_RM, B, "ltrace -S -o log rm x", Deny),
    case(ALL_BUT_RM, B, "sg wheel -c 'rm x'", Deny),
    case(ALL_BUT_RM, B, "sg - wheel 'rm x'", Deny),
    case(ALL_BUT_RM, B, "sg wheel", Ask),
    case(ALL_BUT_RM, B, "su -c 'rm x' root", Deny),
    case(ALL_BUT_RM, B, "su - root -c ls", Ask),
    case(ALL_BUT_RM, B, "su -s ./evil -c ls", Ask),
    case(ALL_BUT_RM, B, "runuser -u nobody -- rm x", Deny),
    case(ALL_BUT_RM, B, "runuser --user=nobody rm x", Deny),
    case(ALL_BUT_RM, B, "runuser -l root -c 'rm x'", Deny),
    case(ALL_BUT_RM, B, "parallel rm ::: x", Deny),
    case(ALL_BUT_RM, B, "parallel -j4 'rm {}' ::: a b", Deny),
    case(ALL_BUT_RM, B, "parallel --jobs 4 -q rm ::: a", Deny),
    case(ALL_BUT_RM, B, "parallel ::: ls 'rm x'", Deny),
    case(ALL_BUT_RM, B, "parallel {} ::: 'rm x'", Ask),
    case(ALL_BUT_RM, B, "ls | parallel", Ask),
    case(ALL_BUT_RM, B, "ls | parallel rm", Deny),
    case(ALL_BUT_RM, B, "parallel 'echo {=system(1)=}' ::: a", Ask),
    case(ALL_BUT_RM, B, "parallel --frob rm ::: a", Ask),
    case(ALL_BUT_RM, B, "parallel -I ,, rm ,, ::: a", Deny),
    case(ALL_BUT_RM, B, "script -qc 'rm x' /dev/null", Deny),
    case(ALL_BUT_RM, B, "script /dev/null -q -c 'rm x'", Deny),
    case(ALL_BUT_RM, B, "script --command='rm x' -q /dev/null", Deny),
    case(ALL_BUT_RM, B, "script -q /dev/null", Ask),
    case(ALL_BUT_RM, B, "watch -n1 rm x", Deny),
    case(ALL_BUT_RM, B, "flock -x /tmp/l rm x", Deny),
    case(ALL_BUT_RM, B, "ionice -c2 -n7 rm x", Deny),
    case(ALL_BUT_RM, B, "stdbuf -i0 -o0 -e0 rm x", Deny),
    case(ALL_BUT_RM, B, "time -p rm x", Deny),
    case(ALL_BUT_RM, B, "doas -u root rm x", Deny),
    case(ALL_BUT_RM, B, "busybox sh -c 'rm x'", Deny),
    case(ALL_BUT_RM, B, "dbus-launch --exit-with-session rm x", Deny),
    case(ALL_BUT_RM, B, "dbus-run-session -- rm x", Deny),
    case(ALL_BUT_RM, B, "fakeroot -- rm x", Deny),
    case(ALL_BUT_RM, B, "fakeroot -l ./evil.so ls", Ask),
    case(ALL_BUT_RM, B, "xvfb-run -a rm x", Deny),
    case(ALL_BUT_RM, B, "systemd-run --user --scope rm x", Deny),
    case(ALL_BUT_RM, B, "run0 rm x", Deny),
    case(ALL_BUT_RM, B, "setarch x86_64 -R rm x", Deny),
    case(ALL_BUT_RM, B, "linux64 rm x", Deny),
    case(ALL_BUT_RM, B, "numactl --interleave=all rm x", Deny),
    case(ALL_BUT_RM, B, "eatmydata rm x", Deny),
    case(ALL_BUT_RM, B, "torsocks rm x", Deny),
    case(ALL_BUT_RM, B, "entr -s 'rm x'", Deny),
    case(ALL_BUT_RM, B, "valgrind --leak-check=full rm x", Deny),
    case(
        ALL_BUT_RM,
        B,
        "nohup nice -n 5 timeout 1 taskset 1 rm x",
        Deny,
    ),
    case(
        ALL_BUT_RM,
        B,
        "env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls",
        Ask,
    ),
    case(ALL_BUT_RM, B, "env -- LD_PRELOAD=./x.so ls", Ask),
    case(ALL_BUT_RM, B, "find . -delete", Deny),
    case(ALL_BUT_RM, B, "find . -name '*.o' -delete -print", Deny),
    case(ALL_BUT_RM, B, "echo 'rm x' | sudo -s", Ask),
    case(ALL_BUT_RM, B, "echo 'rm x' | doas -s", Ask),
    case(ALL_BUT_RM, B, "gtimeout 5 rm x", Deny),
    case(ALL_BUT_RM, B, "gfind . -exec rm {} +", Deny),
    case(ALL_BUT_RM, B, "caffeinate -i rm x", Deny),
    case(ALL_BUT_RM, B, "systemd-inhibit --what=idle rm x", Deny),
    case(ALL_BUT_RM, B, "chronic ifne rm x", Deny),
    case(ALL_BUT_RM, B, "ls | pee cat 'rm x'", Deny),
    case(ALL_BUT_RM, B, "firejail --private rm x", Deny),
    case(BYPASS_BUT_RM, B, "taskset -c 0 rm x", Deny),
    case(BYPASS_BUT_RM, B, "script -qc 'rm x' /dev/null", Deny),
    case(BYPASS_BUT_RM, B, "chrt 1 rm x", Deny),
    case(BYPASS_BUT_RM, B, "taskset --frob 0 rm x", Ask),
    case(ONLY_LS, B, "taskset 1 ls -la", Allow),
    // A file named like a wrapper runs itself: it must be allowed.
    case(ONLY_LS, B, "./env ls", Ask),
    case(ONLY_LS, B, "./bin/timeout 5 ls", Ask),
    case(ONLY_LS, B, "/tmp/x/nice ls", Ask),
    case(ONLY_LS, B, "./bash -c ls", Ask),
    case(ONLY_LS, B, "./taskset 1 ls", Ask),
    case(ONLY_LS, B, "/usr/bin/env ls -la", Allow),
    case(ONLY_LS, B, "/bin/bash -c ls", Allow),
    case(ALL_BUT_RM, B, "./env rm x", Deny),
    case(ONLY_LS, B, "chroot / ls", Ask),
    case(ONLY_LS, B, "parallel ls ::: a b", Allow),
    case(
        &["allow Bash(find *)"],
        B,
        "find . -name '*.o' -delete",
        Ask,
    ),
];

#[test]
fn builtins_that_run_strings() {
    run(STRINGS);
}

#[test]
fn wrappers_run_their_command() {
    run(WRAPPER_TABLE);
}

// F11: every way bash assigns a variable counts as setting it, so the
// dangerous ones (PATH, IFS, LD_PRELOAD, BASH_ENV…) ask as prefix
// assignments and `export` do.

const BUILTINS: &[&str] = &[
    "allow Bash(ls *)",
    "allow Bash(echo *)",
    "allow Bash(printf *)",
    "allow Bash(read *)",
    "allow Bash(mapfile *)",
    "allow Bash(readarray *)",
    "allow Bash(getopts *)",
    "allow Bash(wait *)",
    "allow Bash(declare *)",
    "allow Bash(typeset *)",
    "allow Bash(local *)",
    "allow Bash(readonly *)",
    "allow Bash(unset *)",
    "allow Bash(compgen *)",
];

const ASSIGNMENTS: &[Case] = &[
    case(BUILTINS, B, "for PATH in ./evil; do ls; done", Ask),
    case(BUILTINS, B, "for LD_PRELOAD in ./x.so; do ls; done", Ask),
    case(BUILTINS, B, "for BASH_ENV; do ls; done", Ask),
    case(BUILTINS, B, "for f in a b; do ls $f; done", Allow),
    case(BUILTINS, B, "printf -v PATH ./evil; ls", Ask),
    case(BUILTINS, B, "printf -vIFS x; ls", Ask),
    case(BUILTINS, B, "printf -v x %s y; echo \"$x\"", Allow),
    case(BUILTINS, B, "read PATH <<< ./evil; ls", Ask),
    case(BUILTINS, B, "read -r -a PATH < /dev/null; ls", Ask),
    case(BUILTINS, B, "read -p prompt -t 1 x y PATH; ls", Ask),
    case(BUILTINS, B, "read -r line < /dev/null", Allow),
    case(
        BUILTINS,
        B,
        "while read -r PATH; do ls; done < /dev/null",
        Ask,
    ),
    case(BUILTINS, B, "mapfile PATH < /dev/null; ls", Ask),
    case(
        BUILTINS,
        B,
        "readarray -t -n 1 LD_PRELOAD < /dev/null; ls",
        Ask,
    ),
    case(BUILTINS, B, "mapfile -t lines < /dev/null", Allow),
    case(BUILTINS, B, "getopts ab PATH; ls", Ask),
    case(BUILTINS, B, "getopts ab \"$name\"", Ask),
    case(BUILTINS, B, "while getopts ab opt; do ls; done", Allow),
    case(BUILTINS, B, "wait -p PATH; ls", Ask),
    case(BUILTINS, B, "compgen -V PATH -W a; ls", Ask),
    case(BUILTINS, B, "declare PATH=./evil; ls", Ask),
    case(BUILTINS, B, "typeset -x IFS=x; ls", Ask),
    case(BUILTINS, B, "readonly BASH_ENV=./evil", Ask),
    case(BUILTINS, B, "f(){ local PATH; ls; }; f", Ask),
    case(BUILTINS, B, "f(){ local x=1; ls; }; f", Allow),
    case(BUILTINS, B, "declare -f ls", Allow),
    case(BUILTINS, B, "unset PATH; ls", Ask),
    case(BUILTINS, B, "unset -v IFS", Ask),
    case(BUILTINS, B, "unset x", Allow),
    case(BUILTINS, B, "let PATH=1; ls", Ask),
    case(BUILTINS, B, "(( PATH = 1 )); ls", Ask),
    case(BUILTINS, B, "echo $(( IFS = 1 ))", Ask),
    case(BUILTINS, B, "echo ${PATH:=./evil}; ls", Ask),
    case(BUILTINS, B, "echo ${BASH_ENV=./evil}", Ask),
    case(BUILTINS, B, "echo ${x:=1}", Allow),
    case(BUILTINS, B, "coproc PATH { ls; }", Ask),
    case(ALL_BUT_RM, B, "for PATH in ./evil; do ls; done", Ask),
    case(ALL_BUT_RM, B, "read PATH < ./f; ls", Ask),
    case(ALL_BUT_RM, B, "exec {PATH}>/dev/null; ls", Ask),
    case(ALL_BUT_RM, B, "env -u PATH bash -c ls", Ask),
    case(ALL_BUT_RM, B, "XDG_CONFIG_HOME=./x git log", Ask),
    case(ALL_BUT_RM, B, "ZDOTDIR=./x zsh -f -c ls", Ask),
    case(ALL_BUT_RM, B, "for f in a b; do ls $f; done", Allow),
    case(BYPASS_BUT_RM, B, "printf -v PATH ./evil; ls", Ask),
    case(BYPASS_BUT_RM, B, "mapfile -t PATH < ./f; ls", Ask),
];

#[test]
fn every_assignment_counts() {
    run(ASSIGNMENTS);
}

/// The number of table rows in this module.
pub const COUNT: usize =
    FUNCTIONS.len() + STARTUP.len() + STRINGS.len() + WRAPPER_TABLE.len() + ASSIGNMENTS.len();

// F1: relative paths are judged where the shell is: the directory a
// persisted `cd` left it in (the request's cwd; see tack-agent's
// permission stage), and after any `cd` earlier in the same command.

const CD_CAT: &[&str] = &[
    "allow Bash(cd *)",
    "allow Bash(cat *)",
    "allow Bash(ls *)",
    "allow Bash(echo *)",
    "allow Bash(cp *)",
    "deny Read(./secrets/**)",
    "deny Edit(./docs/**)",
    "allow Edit(./**)",
];

const WHERE_THE_SHELL_IS: &[Case] = &[
    case_in("src", CD_CAT, B, "cat ../secrets/key.txt", Deny),
    case_in("src", CD_CAT, B, "cat ./../secrets/key.txt", Deny),
    case_in("src", CD_CAT, B, "cat ../secrets", Deny),
    case_in("src", CD_CAT, B, "cat < ../secrets/key.txt", Deny),
    case_in("src", CD_CAT, B, "echo x > ../docs/guide.md", Deny),
    case_in("src", CD_CAT, B, "cp main.rs ../docs/", Deny),
    case_in("a", CD_CAT, B, "cd .. && cat secrets/key.txt", Deny),
    case_in("a", CD_CAT, B, "cat ../src/main.rs", Allow),
    case_in("src", CD_CAT, B, "cat main.rs", Allow),
    case_in("secrets", CD_CAT, B, "cat key.txt", Deny),
    case_in("secrets", CD_CAT, B, "ls", Allow),
    case_in("src", CD_CAT, B, "echo x > ../out/f", Allow),
    case(CD_CAT, B, "cd src && cat ../secrets/key.txt", Deny),
    case(CD_CAT, B, "cd src; cd ..; cat secrets/key.txt", Deny),
    case(
        CD_CAT,
        B,
        "cd a && cd ../src && cat ../secrets/key.txt",
        Deny,
    ),
    case(CD_CAT, B, "cd src || cd a; cat ../secrets/key.txt", Deny),
    case(CD_CAT, B, "pushd src && cat ../secrets/key.txt", Deny),
    case(CD_CAT, B, "cd src && echo x > ../docs/x", Deny),
    case(CD_CAT, B, "cd src && cat main.rs", Allow),
    // Where a loop or function leaves the shell is unknown.
    case(
        CD_CAT,
        B,
        "for d in src a; do cd $d; cat ../secrets/key.txt; done",
        Ask,
    ),
];

#[test]
fn paths_are_judged_where_the_shell_is() {
    run(WHERE_THE_SHELL_IS);
}

// F2: paths through /proc/<pid>/… and /dev/fd lead wherever the process
// that opens them is; they cannot be resolved here, but for the command's
// own `/proc/self/cwd` (the shell's directory) and `/proc/self/root` (`/`).

const READ_DENIED: &[&str] = &[
    "allow Bash(cd *)",
    "allow Bash(cat *)",
    "allow Bash(ls *)",
    "allow Bash(grep *)",
    "allow Bash(echo *)",
    "deny Read(./.env)",
    "deny Read(./secrets/**)",
];

const PROCESS_RELATIVE: &[Case] = &[
    case(READ_DENIED, B, "cd src && cat /proc/self/cwd/../.env", Deny),
    case(READ_DENIED, B, "cat /proc/self/cwd/.env", Deny),
    case(READ_DENIED, B, "cat /proc/thread-self/cwd/.env", Deny),
    case(READ_DENIED, B, "cat /proc/$$/cwd/.env", Ask),
    case(READ_DENIED, B, "cat /proc/1/root/etc/hostname", Ask),
    case(READ_DENIED, B, "cat /proc/self/root{project}/.env", Deny),
    case(READ_DENIED, B, "cat /dev/fd/3 3< /dev/null", Ask),
    case(READ_DENIED, B, "cat < /proc/self/cwd/.env", Deny),
    case(
        READ_DENIED,
        B,
        "grep KEY /proc/self/cwd/secrets/key.txt",
        Deny,
    ),
    case(READ_DENIED, B, "cat /proc/self/task/1/cwd/.env", Ask),
    case(READ_DENIED, "Read", "/proc/self/cwd/.env", Ask),
    // Harmless /proc files and the standard streams stay as they were.
    case(READ_DENIED, B, "cat /proc/cpuinfo", Allow),
    case(READ_DENIED, B, "cat /proc/self/status", Allow),
    case(READ_DENIED, B, "cat /dev/stdin", Allow),
    case(READ_DENIED, B, "echo x > /dev/stderr", Allow),
    // Without a rule to get around, nothing to ask.
    case(&["allow Bash(cat *)"], B, "cat /proc/self/cwd/x", Allow),
];

#[test]
fn process_relative_paths_are_uncertain() {
    run(PROCESS_RELATIVE);
}

// F12: a command that reads a whole directory reads what its Read deny
// rules protect; so does one whose files are named only at run time.

const GREP_ETC: &[&str] = &[
    "allow Bash(grep *)",
    "allow Bash(rg *)",
    "allow Bash(tar *)",
    "allow Bash(cat *)",
    "allow Bash(cp *)",
    "allow Bash(find *)",
    "allow Bash(xargs *)",
    "allow Bash(zip *)",
    "allow Bash(rsync *)",
    "allow Bash(diff *)",
    "allow Bash(ls *)",
    "allow Bash(echo *)",
    "allow Edit(./**)",
    "deny Read(./.env)",
    "ask Read(./secrets/**)",
];

const WHOLE_DIRECTORIES: &[Case] = &[
    case(GREP_ETC, B, "grep -r KEY .", Deny),
    case(GREP_ETC, B, "grep -rn KEY .", Deny),
    case(GREP_ETC, B, "grep -R KEY {project}", Deny),
    case(GREP_ETC, B, "grep --recursive KEY .", Deny),
    case(GREP_ETC, B, "grep -d recurse KEY .", Deny),
    case(GREP_ETC, B, "grep -r KEY", Deny),
    case(GREP_ETC, B, "grep -ri -e KEY .", Deny),
    // ripgrep leaves the hidden `.env` out (see fifth_round.rs); what
    // `secrets/` holds is asked.
    case(GREP_ETC, B, "rg KEY", Ask),
    case(GREP_ETC, B, "rg --hidden KEY .", Deny),
    case(GREP_ETC, B, "tar -cf - . | cat", Deny),
    case(GREP_ETC, B, "tar czf /dev/stdout .", Deny),
    case(GREP_ETC, B, "cp -r . out/backup", Deny),
    case(GREP_ETC, B, "cp -a . out/backup", Deny),
    case(GREP_ETC, B, "rsync -a ./ out/backup", Deny),
    case(GREP_ETC, B, "zip -r out/a.zip .", Deny),
    case(GREP_ETC, B, "diff -r . out", Deny),
    case(GREP_ETC, B, "find . -type f -exec cat {} +", Deny),
    case(GREP_ETC, B, "find . -name '*' -exec grep KEY {} \\;", Deny),
    case_in("src", GREP_ETC, B, "grep -r KEY ..", Deny),
    // An ask rule inside asks.
    case(GREP_ETC, B, "grep -r KEY secrets", Ask),
    case(GREP_ETC, B, "grep -r KEY src secrets", Ask),
    // Files named at run time.
    case(GREP_ETC, B, "find . -type f | xargs cat", Ask),
    case(GREP_ETC, B, "ls | xargs grep KEY", Ask),
    case(GREP_ETC, B, "cat $(ls -a)", Ask),
    case(GREP_ETC, B, "cat \"$F\"", Ask),
    // Directories that hold nothing a rule names.
    case(GREP_ETC, B, "grep -r KEY src", Allow),
    case(GREP_ETC, B, "rg KEY src docs", Allow),
    case(GREP_ETC, B, "tar -cf out/src.tar src", Allow),
    case(GREP_ETC, B, "find src -type f -exec cat {} +", Allow),
    case(GREP_ETC, B, "grep KEY .", Allow),
    case(GREP_ETC, B, "grep KEY src/main.rs", Allow),
    case(GREP_ETC, B, "grep .env src/main.rs", Allow),
    case(GREP_ETC, B, "tar -xf out/x.tar -C out", Allow),
    case(GREP_ETC, B, "ls -R .", Allow),
    case(GREP_ETC, B, "echo \"$HOME\"", Allow),
];

#[test]
fn reading_a_directory_reads_what_is_inside() {
    run(WHOLE_DIRECTORIES);
}

// F13: `..` is applied where the kernel applies it: after the symlink
// before it is followed, and, after `..` out of a directory that does not
// exist, to links that do (`new/../link/f` goes through `link`). The
// tools resolve with the same function (`tool_paths::physical`).

const EDITS: &[&str] = &[
    "allow Edit(./**)",
    "deny Edit(./secrets/**)",
    "deny Read(./secrets/**)",
];

const DOTDOT_AFTER_LINKS: &[Case] = &[
    case(
        EDITS,
        "Write",
        "{project}/nope/../link_to_secrets/new.txt",
        Deny,
    ),
    case(
        EDITS,
        "Write",
        "{project}/a/nope/../../link_to_secrets/x",
        Deny,
    ),
    case(
        EDITS,
        "Edit",
        "{project}/nope/../link_to_secrets/key.txt",
        Deny,
    ),
    case(
        EDITS,
        "Read",
        "{project}/nope/../link_to_secrets/key.txt",
        Deny,
    ),
    case(EDITS, "Grep", "{project}/nope/../link_to_secrets", Deny),
    case(EDITS, "Glob", "{project}/nope/../link_to_secrets/*", Deny),
    // Through a link that leads out: `..` goes up from where it led.
    case(
        EDITS,
        "Read",
        "{project}/outside_link/../project/secrets/key.txt",
        Deny,
    ),
    case(EDITS, "Write", "{project}/outside_link/../x", Ask),
    // A path that never leaves the project stays allowed.
    case(EDITS, "Write", "{project}/nope/../src/new.rs", Allow),
    case(
        EDITS,
        "Write",
        "{project}/link_to_secrets/../src/new.rs",
        Allow,
    ),
];

#[test]
fn dotdot_is_applied_where_the_kernel_applies_it() {
    run(DOTDOT_AFTER_LINKS);
}

// F14: whitespace around a path is read the same way by the policy and
// the tools (`tool_paths::written`: trimmed), so ` /etc` is /etc, never a
// name inside the working directory.

const WHITESPACE: &[Case] = &[
    case(&[], "Grep", " {root}/outside", Ask),
    case(&[], "Grep", "{root}/outside\n", Ask),
    case(&[], "Grep", "\t{root}/outside ", Ask),
    case(&[], "Glob", " {root}/outside/*", Ask),
    case(&[], "Glob", "\n{root}/outside/**/*.txt", Ask),
    case(&[], "Read", " {root}/outside/file.txt", Ask),
    case(EDITS, "Grep", " {project}/secrets", Deny),
    case(EDITS, "Glob", " {project}/secrets/*", Deny),
    case(EDITS, "Read", " {project}/secrets/key.txt", Deny),
    case(EDITS, "Write", " {project}/secrets/key.txt", Deny),
    case(EDITS, "Edit", "{project}/secrets/key.txt\n", Deny),
    // Inside the project, trimmed or not, as before.
    case(&[], "Grep", " {project}/src ", Allow),
    case(&[], "Grep", " null ", Allow),
];

#[test]
fn whitespace_around_a_path_is_read_as_the_tools_read_it() {
    run(WHITESPACE);
}

// F15: a file a search finds meets the deny and ask rules of the tool
// that searched as well as Read's (`may_show_found`): `Grep(./secrets/**)`
// keeps secrets/ out of a Grep of the whole project.

#[test]
fn files_a_search_finds_meet_the_searching_tools_rules() {
    let fx = Fixture::new();
    let shown = |rules: &[&str], tool: &str, rel: &str| {
        tack_policy::may_show_found(&fx.policy(rules), tool, &fx.project.join(rel))
    };
    assert!(!shown(
        &["deny Grep(./secrets/**)"],
        "Grep",
        "secrets/key.txt"
    ));
    assert!(!shown(
        &["ask Glob(./secrets/**)"],
        "Glob",
        "secrets/key.txt"
    ));
    assert!(!shown(
        &["deny Read(./secrets/**)"],
        "Glob",
        "secrets/key.txt"
    ));
    assert!(!shown(
        &["deny Read(./secrets/**)"],
        "Grep",
        "secrets/key.txt"
    ));
    assert!(!shown(&["deny Read"], "Grep", "src/main.rs"));
    // Found through a link, the file is where the link leads.
    assert!(!shown(
        &["deny Grep(./secrets/**)"],
        "Grep",
        "link_to_secrets/key.txt"
    ));
    // Another tool's rule is not this one's; other files are shown.
    assert!(shown(
        &["deny Grep(./secrets/**)"],
        "Glob",
        "secrets/key.txt"
    ));
    assert!(shown(&["deny Grep(./secrets/**)"], "Grep", "src/main.rs"));
    // A whole-tool ask decided the search itself (answered yes).
    assert!(shown(&["ask Grep"], "Grep", "secrets/key.txt"));
    assert!(shown(&[], "Grep", "secrets/key.txt"));
}

// W2: the host the rules match is the host WebFetch connects to. The
// policy reads a URL with the same WHATWG parser as the tool, so a URL
// without `//`, with backslashes or an upper-case scheme, or an IPv4
// address written as IPv6, another number form or a trailing dot, is
// matched as the address it reaches; a rule is read the same way.

const WEB_DENY_LOCAL: &[&str] = &["allow WebFetch", "deny WebFetch(domain:127.0.0.1)"];
const WEB_ALLOW_ONE: &[&str] = &["allow WebFetch(domain:example.com)"];
const WF: &str = "WebFetch";

const URL_SPELLINGS: &[Case] = &[
    case(WEB_DENY_LOCAL, WF, "http://127.0.0.1:18402/evil", Deny),
    case(WEB_DENY_LOCAL, WF, "http:/127.0.0.1:18402/evil", Deny),
    case(WEB_DENY_LOCAL, WF, "http:127.0.0.1:18402/evil", Deny),
    case(WEB_DENY_LOCAL, WF, "http:\\\\127.0.0.1:18402\\evil", Deny),
    case(WEB_DENY_LOCAL, WF, "http:/\\127.0.0.1:18402/evil", Deny),
    case(WEB_DENY_LOCAL, WF, "HTTP:/127.0.0.1:18402/evil", Deny),
    case(WEB_DENY_LOCAL, WF, "hTtPs:///127.0.0.1/evil", Deny),
    case(WEB_DENY_LOCAL, WF, "  http:/127.0.0.1/evil  ", Deny),
    case(WEB_DENY_LOCAL, WF, "http://[::ffff:127.0.0.1]:18402/", Deny),
    case(WEB_DENY_LOCAL, WF, "http://[::ffff:7f00:1]:18402/", Deny),
    case(WEB_DENY_LOCAL, WF, "http://127.1:18402/", Deny),
    case(WEB_DENY_LOCAL, WF, "http://2130706433/", Deny),
    case(WEB_DENY_LOCAL, WF, "http://0x7f.0.0.1/", Deny),
    case(WEB_DENY_LOCAL, WF, "http://127.0.0.1./", Deny),
    case(WEB_DENY_LOCAL, WF, "http://%31%32%37.0.0.1/", Deny),
    case(WEB_DENY_LOCAL, WF, "http://x@127.0.0.1/", Deny),
    // Other addresses are still the tool-wide rule's.
    case(WEB_DENY_LOCAL, WF, "http:/127.0.0.2/", Allow),
    case(WEB_DENY_LOCAL, WF, "http://[::1]/", Allow),
    // An allow rule for one host does not reach another through them.
    case(WEB_ALLOW_ONE, WF, "http:/example.com/x", Allow),
    case(WEB_ALLOW_ONE, WF, "http:\\\\example.com\\x", Allow),
    case(WEB_ALLOW_ONE, WF, "http:/evil.com/example.com", Ask),
    case(WEB_ALLOW_ONE, WF, "http:evil.com/example.com", Ask),
    case(WEB_ALLOW_ONE, WF, "http:\\\\evil.com\\@example.com", Ask),
];

// Rules written in another form name the same address.
const RULE_SPELLINGS: &[Case] = &[
    case(
        &["allow WebFetch", "deny WebFetch(domain:127.1)"],
        WF,
        "http://127.0.0.1/",
        Deny,
    ),
    case(
        &["allow WebFetch", "deny WebFetch(domain:[::1])"],
        WF,
        "http://[0::1]/",
        Deny,
    ),
    case(
        &["allow WebFetch", "deny WebFetch(domain:Bücher.example)"],
        WF,
        "https://xn--bcher-kva.example/",
        Deny,
    ),
];

#[test]
fn webfetch_urls_are_read_as_the_tool_reads_them() {
    run(URL_SPELLINGS);
}

#[test]
fn webfetch_rules_name_hosts_as_urls_do() {
    run(RULE_SPELLINGS);
}

// M3: an MCP rule names a tool by its server and its own name there, not
// only by the name the model calls, which is rewritten to fit the model
// APIs: cut with a hash when long, given a hash suffix when another tool
// took it (`rm.rf` listed before `rm_rf`). A deny rule for the tool holds
// under any model-facing name; one for a decoy that took the name still
// holds for the decoy.

/// (rules, model-facing name, server, the tool's own name, verdict)
type McpCase = (
    &'static [&'static str],
    &'static str,
    &'static str,
    &'static str,
    Verdict,
);

const LONG: &str = "delete_every_record_in_the_production_database_right_now_please";
const MCP_ALL_BUT_LONG: &[&str] = &[
    "allow mcp__srv",
    "deny mcp__srv__delete_every_record_in_the_production_database_right_now_please",
];
const MCP_ALL_BUT_RM: &[&str] = &["allow mcp__srv", "deny mcp__srv__rm_rf"];

const MCP_NAMES: &[McpCase] = &[
    (
        MCP_ALL_BUT_LONG,
        "mcp__srv__delete_every_record_in_the_production_database__be80ff",
        "srv",
        LONG,
        Deny,
    ),
    (
        MCP_ALL_BUT_RM,
        "mcp__srv__rm_rf_502c90",
        "srv",
        "rm_rf",
        Deny,
    ),
    // The decoy that took the plain name is still denied by it.
    (MCP_ALL_BUT_RM, "mcp__srv__rm_rf", "srv", "rm.rf", Deny),
    (MCP_ALL_BUT_RM, "mcp__srv__ls", "srv", "ls", Allow),
    (MCP_ALL_BUT_RM, "mcp__srv__rm_rf_x", "srv", "rm_rf_x", Allow),
    // A server whose name has characters a rule cannot write.
    (
        &["allow mcp__my_db", "deny mcp__my_db__drop"],
        "mcp__my_db__drop_1a2b3c",
        "my.db",
        "drop",
        Deny,
    ),
    // Another server's tool of that name is not named.
    (
        &["deny mcp__other__rm_rf"],
        "mcp__srv__rm_rf_502c90",
        "srv",
        "rm_rf",
        Ask,
    ),
    (
        &["deny mcp__srv__rm_rf"],
        "mcp__other__rm_rf",
        "other",
        "rm_rf",
        Ask,
    ),
    // Allow and ask rules name it the same way.
    (
        &["allow mcp__srv__rm_rf"],
        "mcp__srv__rm_rf_502c90",
        "srv",
        "rm_rf",
        Allow,
    ),
    (
        &["allow mcp__srv", "ask mcp__srv__rm_rf"],
        "mcp__srv__rm_rf_502c90",
        "srv",
        "rm_rf",
        Ask,
    ),
    // A server name so long that the model-facing name lost its end.
    (
        &[
            "allow mcp__a",
            "deny mcp__a_very_long_server_name_that_goes_on_and_on_and_on_and_on",
        ],
        "mcp__a_very_long_server_name_that_goes_on_and_on_and_on_a_0c3f1e",
        "a_very_long_server_name_that_goes_on_and_on_and_on_and_on",
        "x",
        Deny,
    ),
];

#[test]
fn mcp_rules_name_tools_by_their_servers_names() {
    let fx = Fixture::new();
    let mut failures = Vec::new();
    for (i, (rules, name, server, tool, expect)) in MCP_NAMES.iter().enumerate() {
        let policy = fx.policy(rules);
        let request =
            Request::resolve(name, &json!({}), &fx.project, &policy).with_mcp_tool(server, tool);
        let got = evaluate(&request, &policy).verdict();
        if got != *expect {
            failures.push(format!(
                "#{i} {name} ({server}: {tool}) with {rules:?}: expected {expect}, got {got}"
            ));
        }
        // What tool search leaves out follows the same rules.
        let refused = policy.refuses_mcp_tool(name, server, tool).is_some();
        if refused != (*expect == Deny) {
            failures.push(format!(
                "#{i} {name} ({server}: {tool}) with {rules:?}: refused outright: {refused}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
