//! Programs that run a command they are given, seen through like `timeout`:
//! bwrap, proot, trickle, perf, hyperfine, watchexec, nodemon, expect and
//! `cmake -E`. For each, the command inside meets the rules (`rm` is
//! denied), an option the table does not know or a word computed at run
//! time where an option may stand asks, and everyday uses stay allowed.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";

/// Everything allowed but `rm`.
const ALL_BUT_RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];

/// Everything allowed but changing `out/`.
const NOT_OUT: &[&str] = &["allow Bash", "deny Edit(./out/**)"];

const MORE_WRAPPERS: &[Case] = &[
    // bwrap: each option a word with 0 to 3 values.
    case(ALL_BUT_RM, B, "bwrap --bind / / rm x", Deny),
    case(
        ALL_BUT_RM,
        B,
        "bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent --new-session rm -rf x",
        Deny,
    ),
    case(
        ALL_BUT_RM,
        B,
        "bwrap --setenv A 1 --chdir /tmp --symlink usr/lib /lib --file 3 /etc/x --uid 0 rm x",
        Deny,
    ),
    case(
        ALL_BUT_RM,
        B,
        "bwrap --overlay-src a --overlay rw work /mnt rm x",
        Deny,
    ),
    case(ALL_BUT_RM, B, "bwrap -- rm x", Deny),
    // `--overlay` takes three values: `rm` is its mount point, `x` runs.
    case(ALL_BUT_RM, B, "bwrap --overlay a b rm x", Allow),
    case(ALL_BUT_RM, B, "bwrap --ro-bind / / ls", Allow),
    case(ALL_BUT_RM, B, "bwrap --help", Allow),
    case(ALL_BUT_RM, B, "bwrap --args 3 ls", Ask),
    case(ALL_BUT_RM, B, "bwrap --frob x rm y", Ask),
    case(ALL_BUT_RM, B, "bwrap --bind $SRC / ls", Ask),
    case(ALL_BUT_RM, B, "bwrap --setenv PATH /tmp ls", Ask),
    // proot: `-r DIR`, `-r' 'DIR` in one word, `--rootfs=DIR`; `-q` runs
    // QEMU; without a command, /bin/sh.
    case(ALL_BUT_RM, B, "proot rm x", Deny),
    case(ALL_BUT_RM, B, "proot -r /srv/root -b /proc rm x", Deny),
    case(ALL_BUT_RM, B, "proot --rootfs=/srv/root -w / rm x", Deny),
    case(ALL_BUT_RM, B, "proot -0 -i 1000:1000 -k 5.4 rm x", Deny),
    case(ALL_BUT_RM, B, "proot -q rm ls", Deny),
    case(ALL_BUT_RM, B, "proot '-q rm' ls", Deny),
    case(ALL_BUT_RM, B, "proot -r /srv/root ls", Allow),
    case(ALL_BUT_RM, B, "proot -q 'qemu-arm -cpu max' ls", Allow),
    case(ALL_BUT_RM, B, "proot -V", Allow),
    case(ALL_BUT_RM, B, "proot", Ask),
    case(ALL_BUT_RM, B, "proot --rootfs /srv/root ls", Ask),
    case(ALL_BUT_RM, B, "proot -- rm x", Ask),
    case(ALL_BUT_RM, B, "proot -P ext.py ls", Ask),
    case(ALL_BUT_RM, B, "proot -q \"$QEMU\" ls", Ask),
    case(NOT_OUT, B, "proot touch out/a", Deny),
    // trickle: its own getopt, options stop at the command.
    case(ALL_BUT_RM, B, "trickle -d 5 rm x", Deny),
    case(ALL_BUT_RM, B, "trickle -s -u 10 -d20 -w 512 rm x", Deny),
    case(ALL_BUT_RM, B, "trickle -d 5 ls", Allow),
    case(ALL_BUT_RM, B, "trickle -V", Allow),
    case(ALL_BUT_RM, B, "trickle -x rm x", Ask),
    case(ALL_BUT_RM, B, "trickle -d $RATE rm x", Ask),
    // perf stat, record and trace run the command after their options,
    // with `-p PID` or `-a` too; `--pre` and `--post` are shell lines.
    case(ALL_BUT_RM, B, "perf stat rm x", Deny),
    case(ALL_BUT_RM, B, "perf record -g rm x", Deny),
    case(ALL_BUT_RM, B, "perf trace rm x", Deny),
    case(ALL_BUT_RM, B, "perf stat -e cycles -r 3 -- rm x", Deny),
    case(ALL_BUT_RM, B, "perf stat -p 1234 rm x", Deny),
    case(ALL_BUT_RM, B, "perf stat -a rm x", Deny),
    case(ALL_BUT_RM, B, "perf stat --pre 'rm x' ls", Deny),
    case(ALL_BUT_RM, B, "perf stat record rm x", Deny),
    case(ALL_BUT_RM, B, "perf trace record rm x", Deny),
    case(ALL_BUT_RM, B, "perf --no-pager stat rm x", Deny),
    case(ALL_BUT_RM, B, "perf record -F 99 -o - rm x", Deny),
    case(ALL_BUT_RM, B, "perf stat ls", Allow),
    case(
        ALL_BUT_RM,
        B,
        "perf stat -e cycles,instructions -- cargo test",
        Allow,
    ),
    case(ALL_BUT_RM, B, "perf stat -p 1234", Allow),
    case(ALL_BUT_RM, B, "perf record -o - ls", Allow),
    case(ALL_BUT_RM, B, "perf trace -i perf.data", Allow),
    case(ALL_BUT_RM, B, "perf report", Allow),
    case(ALL_BUT_RM, B, "perf list", Allow),
    // A recording is written to perf.data: an edit.
    case(ALL_BUT_RM, B, "perf record ls", Ask),
    case(NOT_OUT, B, "perf record -o out/p.data ls", Deny),
    case(ALL_BUT_RM, B, "perf stat --frob ls", Ask),
    case(ALL_BUT_RM, B, "perf stat $OPTS rm x", Ask),
    case(ALL_BUT_RM, B, "perf -x stat ls", Ask),
    case(ALL_BUT_RM, B, "perf ftrace ls", Ask),
    case(ALL_BUT_RM, B, "perf sched record ls", Ask),
    // hyperfine: every command (and --setup, --prepare, --conclude,
    // --cleanup, --reference) is a shell line; `{VAR}` takes each value.
    case(ALL_BUT_RM, B, "hyperfine 'rm x'", Deny),
    case(ALL_BUT_RM, B, "hyperfine -w 3 'sleep 0.1' 'rm x'", Deny),
    case(ALL_BUT_RM, B, "hyperfine 'sleep 1 && rm x'", Deny),
    case(
        ALL_BUT_RM,
        B,
        "hyperfine --prepare 'rm x' 'sleep 0.1'",
        Deny,
    ),
    case(ALL_BUT_RM, B, "hyperfine -p sync -c 'rm x' ls", Deny),
    case(ALL_BUT_RM, B, "hyperfine --setup='rm x' ls", Deny),
    case(ALL_BUT_RM, B, "hyperfine -C 'rm x' ls", Deny),
    case(ALL_BUT_RM, B, "hyperfine --reference 'rm x' ls", Deny),
    case(ALL_BUT_RM, B, "hyperfine -L cmd ls,rm '{cmd} x'", Deny),
    case(ALL_BUT_RM, B, "hyperfine -S bash 'rm x'", Deny),
    case(ALL_BUT_RM, B, "hyperfine -S 'rm -f' ls", Deny),
    case(ALL_BUT_RM, B, "hyperfine -N 'rm x'", Deny),
    case(ALL_BUT_RM, B, "hyperfine --shell=none 'rm x'", Deny),
    case(ALL_BUT_RM, B, "hyperfine -Nw3 'rm x'", Deny),
    case(ALL_BUT_RM, B, "hyperfine 'sleep 0.1'", Allow),
    case(
        ALL_BUT_RM,
        B,
        "hyperfine -w 3 -r 10 'sleep 0.1' 'sleep 0.2'",
        Allow,
    ),
    case(ALL_BUT_RM, B, "hyperfine -L n 1,2 'sleep {n}'", Allow),
    case(ALL_BUT_RM, B, "hyperfine -P n 1 5 -D 2 'sleep {n}'", Allow),
    case(ALL_BUT_RM, B, "hyperfine -n \"$NAME\" 'sleep 0.1'", Allow),
    case(
        ALL_BUT_RM,
        B,
        "hyperfine --output=null -i 'sleep 0.1'",
        Allow,
    ),
    case(ALL_BUT_RM, B, "hyperfine --version", Allow),
    // The exports are files written: edits.
    case(
        ALL_BUT_RM,
        B,
        "hyperfine --export-json out.json 'sleep 0.1'",
        Ask,
    ),
    case(
        NOT_OUT,
        B,
        "hyperfine --export-json out/b.json 'sleep 0.1'",
        Deny,
    ),
    case(ALL_BUT_RM, B, "hyperfine --frob ls", Ask),
    case(ALL_BUT_RM, B, "hyperfine $CMD", Ask),
    case(ALL_BUT_RM, B, "hyperfine \"$CMD\"", Ask),
    case(ALL_BUT_RM, B, "hyperfine -w $N ls", Ask),
    case(ALL_BUT_RM, B, "hyperfine -S \"$SH\" ls", Ask),
    // watchexec: the command words joined are a shell line, unless -n or
    // --shell=none; `-c`, `-N` and `--poll` may take the next word.
    case(ALL_BUT_RM, B, "watchexec rm x", Deny),
    case(ALL_BUT_RM, B, "watchexec -- rm x", Deny),
    case(ALL_BUT_RM, B, "watchexec -e rs 'rm x'", Deny),
    case(ALL_BUT_RM, B, "watchexec -w src -r -- rm -rf target", Deny),
    case(ALL_BUT_RM, B, "watchexec echo 'done; rm x'", Deny),
    case(ALL_BUT_RM, B, "watchexec -n rm x", Deny),
    case(ALL_BUT_RM, B, "watchexec --shell=none rm x", Deny),
    case(ALL_BUT_RM, B, "watchexec --shell=bash -- rm x", Deny),
    case(ALL_BUT_RM, B, "watchexec -c -- rm x", Deny),
    case(ALL_BUT_RM, B, "watchexec --clear=reset rm x", Deny),
    case(ALL_BUT_RM, B, "watchexec -e rs 'cargo test'", Allow),
    case(ALL_BUT_RM, B, "watchexec -w src -r -- cargo run", Allow),
    case(ALL_BUT_RM, B, "watchexec --poll=1s cargo test", Allow),
    case(ALL_BUT_RM, B, "watchexec --workdir /tmp ls", Allow),
    case(ALL_BUT_RM, B, "watchexec -c rm x", Ask),
    case(ALL_BUT_RM, B, "watchexec --poll rm x", Ask),
    case(ALL_BUT_RM, B, "watchexec @args", Ask),
    case(ALL_BUT_RM, B, "watchexec --frob ls", Ask),
    case(ALL_BUT_RM, B, "watchexec -E PATH=/tmp ls", Ask),
    case(ALL_BUT_RM, B, "watchexec -w $DIR ls", Ask),
    case(ALL_BUT_RM, B, "watchexec --shell=\"$SH\" ls", Ask),
    case(NOT_OUT, B, "watchexec touch out/a", Deny),
    // nodemon: `sh -c` runs `EXEC ARGS`, the arguments written in as they
    // are unless they hold a space.
    case(ALL_BUT_RM, B, "nodemon --exec 'rm x'", Deny),
    case(ALL_BUT_RM, B, "nodemon -x 'rm x'", Deny),
    case(ALL_BUT_RM, B, "nodemon -x rm x", Deny),
    case(ALL_BUT_RM, B, "nodemon -w src -e ts -x 'rm x'", Deny),
    case(ALL_BUT_RM, B, "nodemon app.js --exec 'rm x'", Deny),
    case(ALL_BUT_RM, B, "nodemon -x echo 'a;rm'", Deny),
    case(ALL_BUT_RM, B, "nodemon -x '{{filename}}' notes rm", Deny),
    case(NOT_OUT, B, "nodemon --cwd out -x 'touch a'", Deny),
    case(ALL_BUT_RM, B, "nodemon --exec 'cargo test'", Allow),
    case(ALL_BUT_RM, B, "nodemon app.js", Allow),
    case(ALL_BUT_RM, B, "nodemon --inspect app.js --port 3000", Allow),
    case(ALL_BUT_RM, B, "nodemon app.js 'a;rm x'", Allow),
    case(ALL_BUT_RM, B, "nodemon app.js -- -x 'rm x'", Allow),
    case(
        ALL_BUT_RM,
        B,
        "nodemon -x 'python {{filename}}' app.py",
        Allow,
    ),
    case(ALL_BUT_RM, B, "nodemon --help", Allow),
    case(ALL_BUT_RM, B, "nodemon app.js 'a;rm'", Ask),
    case(ALL_BUT_RM, B, "nodemon $ARGS", Ask),
    case(ALL_BUT_RM, B, "nodemon -x \"$CMD\"", Ask),
    case(ALL_BUT_RM, B, "nodemon -w $DIR app.js", Ask),
    // expect: Tcl code in -c, or read from the input, can run anything.
    case(ALL_BUT_RM, B, "expect -c 'spawn rm x'", Ask),
    case(ALL_BUT_RM, B, "expect -dc 'spawn rm x'", Ask),
    case(ALL_BUT_RM, B, "expect -c'spawn rm x' run.exp", Ask),
    case(ALL_BUT_RM, B, "expect", Ask),
    case(ALL_BUT_RM, B, "expect -", Ask),
    case(ALL_BUT_RM, B, "expect -i run.exp", Ask),
    case(ALL_BUT_RM, B, "expect $ARGS", Ask),
    case(ALL_BUT_RM, B, "expect run.exp", Allow),
    case(ALL_BUT_RM, B, "expect -f run.exp arg", Allow),
    case(ALL_BUT_RM, B, "expect -v", Allow),
    // cmake -E: env, chdir and time run a command; the file modes are
    // the command each amounts to.
    case(ALL_BUT_RM, B, "cmake -E env FOO=1 rm x", Deny),
    case(ALL_BUT_RM, B, "cmake -E env --unset=FOO -- rm x", Deny),
    case(ALL_BUT_RM, B, "cmake -E chdir /tmp rm x", Deny),
    case(ALL_BUT_RM, B, "cmake -E time rm x", Deny),
    case(ALL_BUT_RM, B, "cmake -E rm -rf build", Deny),
    case(ALL_BUT_RM, B, "cmake -E remove_directory build", Deny),
    case(ALL_BUT_RM, B, "cmake --build build", Allow),
    case(ALL_BUT_RM, B, "cmake -S . -B build", Allow),
    case(ALL_BUT_RM, B, "cmake -E env FOO=1 cargo test", Allow),
    case(ALL_BUT_RM, B, "cmake -E echo hi", Allow),
    case(ALL_BUT_RM, B, "cmake -E touch stamp", Allow),
    case(ALL_BUT_RM, B, "cmake -E copy a b", Allow),
    case(ALL_BUT_RM, B, "cmake -E env PATH=/tmp ls", Ask),
    case(ALL_BUT_RM, B, "cmake -E env --frob ls", Ask),
    case(ALL_BUT_RM, B, "cmake -E $MODE rm x", Ask),
    case(ALL_BUT_RM, B, "cmake $ARGS env rm x", Ask),
    case(ALL_BUT_RM, B, "cmake \"$SRC\"", Allow),
    case(ALL_BUT_RM, B, "cmake -E cmake_depends x", Ask),
    case(ALL_BUT_RM, B, "cmake -E tar xf a.tar", Ask),
    case(NOT_OUT, B, "cmake -E touch out/a", Deny),
    case(NOT_OUT, B, "cmake -E remove_directory out", Deny),
    case(NOT_OUT, B, "cmake -E copy a out/", Deny),
    case(NOT_OUT, B, "cmake -E chdir out touch a", Deny),
    case(NOT_OUT, B, "cmake -E touch src/a", Allow),
];

#[test]
fn the_command_a_wrapper_runs_meets_the_rules() {
    run(MORE_WRAPPERS);
}
