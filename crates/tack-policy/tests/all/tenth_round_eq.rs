//! Tenth round, "eq": commands that run a denied program or have its
//! effect under another spelling: code read from the input (`perl -`, a
//! debugger or an editor fed its commands), make's command-line variables,
//! tmux formats and buffers, modules a project shadows, host programs'
//! local commands, npm scripts written and run at once, versioned package
//! specs, and removals, resets and container runs by other commands.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{case, case_in, run, run_with_files};

const B: &str = "Bash";
const RM: &[&str] = &["allow Bash", "deny Bash(rm *)", "mode acceptEdits"];
const PUSH: &[&str] = &["allow Bash", "deny Bash(git push:*)"];
const RESET: &[&str] = &[
    "allow Bash",
    "deny Bash(git reset --hard *)",
    "mode acceptEdits",
];
const RUN: &[&str] = &["allow Bash", "deny Bash(docker run *)"];
const PUBLISH: &[&str] = &[
    "allow Bash",
    "deny Bash(npm publish)",
    "deny Bash(npm publish *)",
];
const CARGO: &[&str] = &["allow Bash", "deny Bash(cargo publish:*)"];
const TF: &[&str] = &[
    "allow Bash",
    "deny Bash(terraform apply *)",
    "deny Bash(terraform apply)",
];
const KUBECTL: &[&str] = &["allow Bash", "deny Bash(kubectl delete *)"];

#[test]
fn a_dash_operand_is_code_read_from_the_input() {
    run(&[
        case(RM, B, "perl - <<< 'system(\"rm x\")'", Ask),
        case(RM, B, "perl - arg <<< 'system(\"rm v1\")'", Ask),
        case(RM, B, "perl -w - <<< 'system(\"rm x\")'", Ask),
        case(RM, B, "perl -- - <<< 'system(\"rm x\")'", Ask),
        case(RM, B, "echo 'unlink q' | perl - arg", Ask),
        case(
            RM,
            B,
            "node - arg <<< 'require(\"fs\").unlinkSync(\"v2\")'",
            Ask,
        ),
        case(RM, B, "echo 'exec rm v3' | tclsh - arg", Ask),
        case(RM, B, "ruby - a <<< 'system(\"rm x\")'", Ask),
        case(RM, B, "lua - a <<< 'os.remove(\"x\")'", Ask),
        case(RM, B, "php - a <<< '<?php unlink(\"x\");'", Ask),
        case(RM, B, "m4 defs.m4 - <<< 'syscmd(rm v4)'", Ask),
        // A script named, `-` as its argument; files of code on disk.
        case(RM, B, "perl script.pl -", Allow),
        case(RM, B, "node build.js - out", Allow),
        case(RM, B, "m4 defs.m4 in.m4", Allow),
        case(RM, B, "perl -e 'print 1'", Allow),
    ]);
}

#[test]
fn debuggers_and_editors_fed_their_commands_run_them() {
    run(&[
        case(RM, B, "gdb -q /bin/true <<< 'shell rm v7'", Ask),
        case(
            PUSH,
            B,
            "echo 'shell git push origin HEAD:x' | gdb -q /bin/true",
            Ask,
        ),
        case(RM, B, "gdb -q -p 1 <<< 'shell rm x'", Ask),
        case(RM, B, "echo run | gdb -q --args rm x", Ask),
        case(RM, B, "gdb -q ./prog < cmds", Ask),
        case(RM, B, "lldb /bin/true <<< 'platform shell rm v8'", Ask),
        case(RM, B, "vim -es a <<< '!rm v1'", Ask),
        case(RM, B, "ex -s a <<< '!rm v2'", Ask),
        case(RM, B, "vim a <<< $':!rm v5\\n:qa!\\n'", Ask),
        case(RM, B, "printf ':!rm v6\\n:qa!\\n' | vi a", Ask),
        case(RM, B, "view -es a < cmds", Ask),
        case(RM, B, "perl -d s.pl <<< 'system(\"rm v1\")'", Ask),
        case(PUSH, B, "perl -d -e 1 <<< 'system(\"git push\")'", Ask),
        case(RM, B, "node inspect s.js <<< 'exec process.exit()'", Ask),
        // Not fed: the input is not the command's.
        case(RM, B, "gdb -q ./prog", Allow),
        case(RM, B, "gdb -batch ./prog < cmds", Allow),
        case(RM, B, "lldb ./prog", Allow),
        case(RM, B, "vim src/main.rs", Allow),
        case(RM, B, "git diff | vim -", Allow),
        case(RM, B, "perl -d s.pl", Allow),
        case(RM, B, "node s.js < input.json", Allow),
        case(RM, B, "perl s.pl < input.txt", Allow),
        case(RM, B, "node inspect s.js", Allow),
    ]);
}

#[test]
fn a_make_variable_set_on_its_command_line_is_code() {
    run(&[
        case(RM, B, "make 'LINK.c=rm victim.c;:' victim", Deny),
        case(
            RM,
            B,
            "make SHELL=/bin/rm .SHELLFLAGS='-f important' victim",
            Ask,
        ),
        case(
            PUSH,
            B,
            "make 'LINK.c=git push origin HEAD:pwn;:' victim",
            Deny,
        ),
        case(RM, B, "make CC=rm victim", Deny),
        case(RM, B, "make -j1 SHELL=/bin/rm .SHELLFLAGS=-rf victim", Ask),
        case(RM, B, "gmake 'COMPILE.c=rm x;:' x.o", Deny),
        case(PUBLISH, B, "make 'LINK.c=npm publish;:' victim", Ask),
        case(RM, B, "make MAKEFLAGS=--eval=x", Ask),
        case(RM, B, "make MAKEFILES=evil.mk", Ask),
        case(RM, B, "make \"CC=$CMD\" x", Ask),
        case(RM, B, "make 'override CC=rm' x", Deny),
        // Plain values.
        case(RM, B, "make CFLAGS='-O2 -Wall' all", Allow),
        case(RM, B, "make PREFIX=/usr/local install", Allow),
        case(RM, B, "make CC=clang -j4", Allow),
        case(RM, B, "make V=1 test", Allow),
        case(RM, B, "make rm", Allow),
    ]);
}

#[test]
fn removals_under_other_names_meet_the_rm_rule() {
    run(&[
        case(RM, B, "rsync -a --delete empty/ proj/", Deny),
        case(RM, B, "rsync -a --del empty/ proj/", Deny),
        case(RM, B, "rsync -r --delete-before /dev/null/ proj/", Deny),
        case(
            RM,
            B,
            "rsync -a --delete-excluded --exclude='*' a/ b/",
            Deny,
        ),
        case(RM, B, "tar --remove-files -cf /dev/null t", Deny),
        case(RM, B, "tar cf /dev/null --remove-files t", Deny),
        case(RM, B, "tar --remove-files -cf - proj > /dev/null", Deny),
        case(RM, B, "zip -qm - zf > /dev/null", Deny),
        case(RM, B, "zip -mr - dir > /dev/null", Deny),
        case(RM, B, "zip --move out.zip a", Deny),
        case(RM, B, "rimraf --no-glob src", Deny),
        case(RM, B, "npx rimraf src2", Deny),
        case(RM, B, "npx del-cli x", Deny),
        // Keeping the files.
        case(RM, B, "rsync -a src/ dest/", Allow),
        case(RM, B, "tar -cf out.tar src", Allow),
        case(RM, B, "zip -r out.zip src", Allow),
        case(RM, B, "zip -qr - src > out.zip", Allow),
    ]);
}

#[test]
fn discarding_the_work_tree_otherwise_meets_the_reset_rule() {
    run(&[
        case(RESET, B, "git diff | git apply -R", Ask),
        case(RESET, B, "git diff > p && git apply -R p", Ask),
        case(RESET, B, "git diff | patch -R -p1", Ask),
        case(RESET, B, "git reset --merge", Deny),
        case(RESET, B, "yes | git checkout -p", Deny),
        case(RESET, B, "git checkout -p <<< y", Deny),
        case(RESET, B, "git checkout --patch HEAD", Deny),
        case(RESET, B, "git worktree remove --force wt", Deny),
        case(RM, B, "git worktree remove -f ../wt", Deny),
        case(RESET, B, "git submodule update --force", Deny),
        // Keeping the work.
        case(RESET, B, "git apply fix.patch", Allow),
        case(RESET, B, "git reset --keep HEAD~1", Allow),
        case(RESET, B, "git reset --soft HEAD~1", Allow),
        case(RESET, B, "git worktree remove wt", Allow),
        case(RESET, B, "git submodule update --init", Allow),
        case(RESET, B, "git checkout -b topic", Allow),
        case(RESET, B, "patch -p1 < fix.patch", Allow),
    ]);
}

#[test]
fn a_container_created_then_started_meets_the_run_rule() {
    run(&[
        case(
            RUN,
            B,
            "docker create --name c -v /:/host alpine touch /host/tmp/pwn && docker start c",
            Deny,
        ),
        case(RUN, B, "docker container create alpine", Deny),
        case(RUN, B, "podman create alpine; podman start c", Deny),
        case(RUN, B, "docker -H unix:///x.sock create alpine", Deny),
        case(RUN, B, "docker start c1", Allow),
        case(RUN, B, "docker ps -a", Allow),
        case(RUN, B, "docker network create net", Allow),
        case(RUN, B, "docker volume create v", Allow),
    ]);
}

#[test]
fn cheap_gaps_of_other_spellings() {
    run(&[
        case(CARGO, B, "cargo --config 'alias.x=\"publish\"' x", Deny),
        case(CARGO, B, "cargo --config alias.x=publish x", Deny),
        case(CARGO, B, "cargo --config=alias.x=publish x", Deny),
        case(
            CARGO,
            B,
            "cargo --config 'alias.x=[\"publish\", \"--dry-run\"]' x",
            Deny,
        ),
        case(CARGO, B, "cargo --config 'alias.b=\"build\"' b", Allow),
        case(CARGO, B, "cargo --config net.offline=true build", Allow),
        case(TF, B, "terragrunt apply", Deny),
        case(TF, B, "terragrunt run-all apply", Deny),
        case(TF, B, "terragrunt run -- apply", Deny),
        case(TF, B, "terragrunt plan", Allow),
        case(KUBECTL, B, "kubectl taint nodes n k=v:NoExecute", Deny),
        case(KUBECTL, B, "kubectl taint nodes n k=v:NoSchedule", Allow),
    ]);
}

#[test]
fn tmux_formats_buffers_and_typing_into_a_terminal_run_commands() {
    run(&[
        case(RM, B, "tmux display -p '#(rm victim)'", Ask),
        case(PUSH, B, "tmux ls -F '#(git push origin HEAD:x)'", Ask),
        case(RM, B, "tmux list-windows -F '#(rm v4)'", Ask),
        case(RM, B, "tmux display-message -p 'x #(rm v)'", Ask),
        case(
            RM,
            B,
            "tmux setb -b b 'rm v2' && tmux pasteb -t s -b b",
            Ask,
        ),
        case(RM, B, "tmux paste-buffer -t s", Ask),
        case(RM, B, "tmux setw -g automatic-rename-format '#(rm x)'", Ask),
        case(
            RM,
            B,
            "tmux display-menu -T m x x 'run-shell \"rm x\"'",
            Ask,
        ),
        case(RM, B, "tmate send-keys 'rm x' Enter", Ask),
        case(RM, B, "kitty @ send-text 'rm x\\n'", Ask),
        case(RM, B, "wezterm cli send-text 'rm x'", Ask),
        case(RM, B, "zellij action write-chars 'rm x'", Ask),
        case(RM, B, "xdotool type 'rm x'", Ask),
        // Listing and showing.
        case(RM, B, "tmux ls", Allow),
        case(RM, B, "tmux capture-pane -p", Allow),
        case(RM, B, "tmux display -p '#{session_name}'", Allow),
        case(
            RM,
            B,
            "tmux list-panes -a -F '#{pane_id} #{pane_pid}'",
            Allow,
        ),
        case(RM, B, "kitty --version", Allow),
        case(RM, B, "xdotool getactivewindow", Allow),
    ]);
}

#[test]
fn modules_the_working_directory_shadows_are_the_projects() {
    run_with_files(
        &[("json.py", "import os\nos.remove('victim')\n", false)],
        &[
            case(RM, B, "python3 -c 'import json; print(1)'", Ask),
            case(RM, B, "python3 -m json.tool a.json", Ask),
            case(RM, B, "python3 -c 'print(1 + 1)'", Allow),
            case(RM, B, "python3 -I -c 'import json; print(1)'", Allow),
        ],
    );
    run_with_files(
        &[("pkg/re/__init__.py", "import os\n", false)],
        &[case_in(
            "pkg",
            RM,
            B,
            "python3 -c 'import re; print(1)'",
            Ask,
        )],
    );
    run(&[
        case(
            RM,
            B,
            "echo 'import os' > re.py; python3 -c 'import re'",
            Ask,
        ),
        case(
            RM,
            B,
            "printf 'x' > json.py && python3 -c 'import json; print(json.dumps(1))'",
            Ask,
        ),
        case(
            RM,
            B,
            "python3 -c 'import json; print(json.dumps(1))'",
            Allow,
        ),
        case(RM, B, "python3 -m json.tool a.json", Allow),
    ]);
}

#[test]
fn host_clients_run_local_commands_they_are_given() {
    run(&[
        case(RM, B, "lftp -c '!rm victim'", Ask),
        case(RM, B, "lftp -e '!rm victim; exit'", Ask),
        case(RM, B, "echo '!rm victim2' | lftp", Ask),
        case(RM, B, "lftp <<< '!rm x'", Ask),
        case(RM, B, "smbclient //h/s -c '!rm x'", Ask),
        case(RM, B, "rpcclient -c '!rm x' h", Ask),
        case(RM, B, "ftp h <<< '!rm x'", Ask),
        case(RM, B, "mosh h -- rm x", Deny),
        case(PUSH, B, "mosh localhost -- git push", Deny),
        case(RM, B, "mosh h rm x", Deny),
        case(RM, B, "mosh --ssh='rm x' h", Deny),
        // A connection only.
        case(RM, B, "lftp ftp.example.org", Allow),
        // An interactive shell there, as `ssh h` is.
        case(RM, B, "mosh h", Ask),
        case(RM, B, "mosh -p 60001 h -- htop", Allow),
        case(RM, B, "telnet \"$HOST\" 80", Allow),
        case(RM, B, "ping -c 3 example.org", Allow),
    ]);
}

#[test]
fn an_npm_script_written_and_run_meets_the_rules() {
    run(&[
        case(
            RM,
            B,
            "npm pkg set scripts.x='rm victim' && npm run x",
            Deny,
        ),
        case(
            PUSH,
            B,
            "npm pkg set scripts.test='git push origin HEAD:x' && npm test",
            Deny,
        ),
        case(RM, B, "npm pkg set 'scripts.x=rm victim'; npm run x", Deny),
        case(RM, B, "npm set-script x 'rm victim' && npm run x", Deny),
        case(RM, B, "npm pkg set \"scripts.x=$CMD\"", Ask),
        case(RM, B, "npm pkg set scripts.build='tsc -p .'", Allow),
        case(RM, B, "npm pkg set name=x version=1.0.0", Allow),
        case(RM, B, "npm pkg get scripts", Allow),
    ]);
}

#[test]
fn a_versioned_package_spec_is_the_package_run() {
    run(&[
        case(PUBLISH, B, "npx -y npm@10 publish", Deny),
        case(PUBLISH, B, "npx npm@latest publish", Deny),
        case(PUBLISH, B, "npm exec npm@10 -- publish", Deny),
        case(PUBLISH, B, "npm exec -y -- npm@10 publish", Deny),
        case(PUBLISH, B, "pnpm dlx npm@10 publish", Deny),
        case(PUBLISH, B, "npx 'npm@>=9' publish", Deny),
        case(PUBLISH, B, "npx npm@npm:npm@10 publish", Deny),
        case(PUBLISH, B, "npx yarn@1 publish", Deny),
        case(RM, B, "npx -y rimraf@5 x", Deny),
        case(PUBLISH, B, "npx npm@10 --version", Allow),
        case(PUBLISH, B, "npx prettier@3 --check .", Allow),
        case(PUBLISH, B, "npx @scope/tool@1 build", Allow),
    ]);
}

#[test]
fn pushes_and_runs_by_other_tools() {
    run(&[
        case(PUSH, B, "gh repo create x --source=. --push", Deny),
        case(PUSH, B, "git svn dcommit", Deny),
        case(PUSH, B, "git p4 submit", Deny),
        case(PUSH, B, "git lfs push origin main", Deny),
        case(PUSH, B, "gh repo create x --private", Allow),
        case(PUSH, B, "git svn fetch", Allow),
        case(PUSH, B, "git lfs pull", Allow),
        case(
            RM,
            B,
            "mvn exec:exec -Dexec.executable=rm -Dexec.args=x",
            Deny,
        ),
        case(
            RM,
            B,
            "mvn exec:exec -Dexec.executable=java -Dexec.args='-jar a.jar'",
            Allow,
        ),
        case(RM, B, "mvn -q test", Allow),
    ]);
}
