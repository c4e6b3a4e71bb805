//! Options that run commands, under rules that read as read-only: the
//! command is analysed as `bash -c` would run it when it is written out
//! (so a deny rule denies it and it must be allowed itself), and asked when
//! git or the program takes it from somewhere not written here.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

/// Read-only-looking rules, `touch` not allowed, `rm` denied.
const R: &[&str] = &[
    "allow Bash(git grep *)",
    "allow Bash(git fetch *)",
    "allow Bash(git pull *)",
    "allow Bash(git ls-remote *)",
    "allow Bash(git clone *)",
    "allow Bash(git push *)",
    "allow Bash(git archive *)",
    "allow Bash(git log *)",
    "allow Bash(git diff *)",
    "allow Bash(git difftool *)",
    "allow Bash(git submodule *)",
    "allow Bash(git bisect *)",
    "allow Bash(git rebase *)",
    "allow Bash(git filter-branch *)",
    "allow Bash(git config *)",
    "allow Bash(rsync *)",
    "allow Bash(ssh *)",
    "allow Bash(scp *)",
    "allow Bash(tar *)",
    "allow Bash(less *)",
    "allow Bash(man *)",
    "allow Bash(vim *)",
    "allow Bash(awk *)",
    "allow Bash(sed *)",
    "allow Bash(sort *)",
    "allow Bash(echo *)",
    "allow Bash(ls *)",
    "deny Bash(rm *)",
];

/// `git` allowed wholesale, nothing denied: what runs besides git must
/// still be allowed.
const GIT_ANY: &[&str] = &["allow Bash(git *)", "allow Bash(ls *)"];

const B: &str = "Bash";

const GIT: &[Case] = &[
    case(R, B, "git grep -O'touch X' x", Ask),
    case(R, B, "git grep -Otouch x", Ask),
    case(R, B, "git grep -O'rm -rf /' x", Deny),
    case(R, B, "git grep -iO'rm x' y", Deny),
    case(R, B, "git grep --open-files-in-pager='touch X' x", Ask),
    case(R, B, "git grep --open-files-in-pager='rm x' x", Deny),
    case(R, B, "git grep --open-files-in-pager x", Ask),
    case(R, B, "git grep -O x", Ask),
    case(R, B, "git grep -O'ls -la' x", Allow),
    case(R, B, "git grep -e -O x", Allow),
    case(R, B, "git grep -n needle", Allow),
    case(R, B, "git fetch --upload-pack='touch X;' .", Ask),
    case(R, B, "git fetch --upload-pack 'rm x' .", Deny),
    case(R, B, "git fetch --upload-pack=\"$CMD\" .", Ask),
    case(R, B, "git fetch origin main", Allow),
    case(R, B, "git pull --upload-pack='touch X' .", Ask),
    case(R, B, "git ls-remote --upload-pack='touch X' .", Ask),
    case(R, B, "git ls-remote -u 'rm x' .", Deny),
    case(R, B, "git clone -u 'rm x' . y", Deny),
    case(R, B, "git clone --upload-pack='touch X' . y", Ask),
    case(R, B, "git push --receive-pack='rm x' .", Deny),
    case(R, B, "git push --exec='touch X' .", Ask),
    case(R, B, "git archive --remote=. --exec='touch X' HEAD", Ask),
    case(R, B, "git log --oneline", Allow),
    case(R, B, "git diff --ext-diff", Ask),
    case(R, B, "git log -p --textconv", Ask),
    case(R, B, "git difftool -x 'rm x'", Deny),
    case(R, B, "git difftool --extcmd='touch X'", Ask),
    case(R, B, "git submodule foreach 'rm x'", Deny),
    case(R, B, "git submodule foreach --recursive touch X", Ask),
    case(R, B, "git bisect run rm x", Deny),
    case(R, B, "git bisect run make test", Ask),
    case(R, B, "git rebase --exec 'rm x' main", Deny),
    case(R, B, "git rebase -x 'touch X' main", Ask),
    case(R, B, "git filter-branch --tree-filter 'rm x' HEAD", Deny),
    case(R, B, "git filter-branch --msg-filter 'touch X' HEAD", Ask),
    case(R, B, "git config alias.x '!rm x'", Deny),
    case(R, B, "git config core.sshCommand 'touch X'", Ask),
    case(R, B, "git config core.pager 'touch X'", Ask),
    case(R, B, "git config user.name Alice", Allow),
    case(R, B, "git -c core.pager='rm x' log", Ask),
    case(R, B, "GIT_SSH_COMMAND='touch X' git fetch", Ask),
    case(R, B, "GIT_EXTERNAL_DIFF='touch X' git diff", Ask),
    case(GIT_ANY, B, "git -c alias.x='!touch X' x", Ask),
    case(GIT_ANY, B, "git -c alias.x='!ls' x", Allow),
    case(GIT_ANY, B, "git -c core.sshCommand='touch X' fetch", Ask),
    case(GIT_ANY, B, "git -c core.pager='touch X' log", Ask),
    case(GIT_ANY, B, "git -c diff.external='touch X' diff", Ask),
    case(GIT_ANY, B, "git -c core.hooksPath=hooks commit -m x", Ask),
    case(GIT_ANY, B, "git -c color.ui=always log", Allow),
    case(GIT_ANY, B, "git --config-env=alias.x=CMD x", Ask),
    case(GIT_ANY, B, "git --config-env core.pager=P log", Ask),
    case(GIT_ANY, B, "git --config-env=color.ui=C log", Allow),
    case(GIT_ANY, B, "git -c \"$X\" log", Ask),
    case(GIT_ANY, B, "git --exec-path=/tmp/x log", Ask),
    case(GIT_ANY, B, "git $FLAGS log", Ask),
    case(GIT_ANY, B, "git fetch --upload-pack=\"$CMD\" .", Ask),
    case(GIT_ANY, B, "git grep \"$PATTERN\" -- src", Ask),
    case(GIT_ANY, B, "git -c user.name=x commit -m x", Allow),
    case(
        GIT_ANY,
        B,
        "git clone -c core.fsmonitor='touch X' url y",
        Ask,
    ),
    case(GIT_ANY, B, "git grep -O'touch X' x", Ask),
    case(GIT_ANY, B, "git status", Allow),
];

const OTHERS: &[Case] = &[
    case(R, B, "rsync -e 'rm x' a host:b", Deny),
    case(R, B, "rsync -e 'sh -c \"touch X\"' a host:b", Ask),
    case(R, B, "rsync --rsh='touch X' a host:b", Ask),
    case(R, B, "rsync -avze 'touch X' a host:b", Ask),
    case(R, B, "rsync -avz -e ssh a host:b", Allow),
    case(R, B, "rsync -a src/ out/", Allow),
    case(R, B, "ssh -o ProxyCommand='rm x' host", Deny),
    case(R, B, "ssh -oProxyCommand='touch X' host", Ask),
    case(R, B, "ssh -o 'ProxyCommand touch X' host", Ask),
    case(R, B, "ssh -o proxycommand='touch X' host", Ask),
    case(
        R,
        B,
        "ssh -o PermitLocalCommand=yes -o LocalCommand='touch X' host",
        Ask,
    ),
    case(R, B, "ssh -F ./evil_config host", Ask),
    case(R, B, "ssh -o ConnectTimeout=5 host uptime", Allow),
    case(R, B, "scp -S 'touch X' a host:b", Ask),
    case(R, B, "scp -o ProxyCommand='rm x' a host:b", Deny),
    case(R, B, "tar --to-command='rm x' -xf a.tar", Deny),
    case(R, B, "tar -I 'touch X' -tf a.tar", Ask),
    case(R, B, "tar --use-compress-program='touch X' -tf a.tar", Ask),
    case(
        R,
        B,
        "tar --checkpoint-action=exec='touch X' -tf a.tar",
        Ask,
    ),
    case(R, B, "tar -tf a.tar --rsh-command='touch X'", Ask),
    case(R, B, "tar -tzf a.tgz", Allow),
    case(R, B, "less '+!touch X' f", Ask),
    case(R, B, "less +G f", Allow),
    case(R, B, "LESSOPEN='|touch X %s' less f", Ask),
    case(R, B, "man -P 'touch X' ls", Ask),
    case(R, B, "man --pager='rm x' ls", Deny),
    case(R, B, "man ls", Allow),
    case(R, B, "MANPAGER='touch X' man ls", Ask),
    case(R, B, "vim -c '!touch X' f", Ask),
    case(R, B, "vim +'!touch X' f", Ask),
    case(R, B, "vim --cmd 'set makeprg=touch\\ X' -c make f", Ask),
    case(R, B, "vim --cmd 'set foldexpr=system(\"touch X\")' f", Ask),
    case(R, B, "vim --cmd 'set nu ts=4' f", Allow),
    case(R, B, "vim +10 f", Allow),
    case(R, B, "awk 'BEGIN{system(\"touch X\")}'", Ask),
    case(R, B, "awk '{print | \"sh\"}' f", Ask),
    case(R, B, "awk '{\"date\" | getline d}' f", Ask),
    case(R, B, "awk '{print $1}' f", Allow),
    case(R, B, "awk '/a|b/ {print}' f", Allow),
    case(R, B, "awk -F: '$3 > 1000 {print $1}' /etc/passwd", Allow),
    case(R, B, "sed 'e touch X' f", Ask),
    case(R, B, "sed '1e rm x' f", Deny),
    case(R, B, "sed 's/.*/touch X/e' f", Ask),
    case(R, B, "sed -n 's/a/b/p' f", Allow),
    case(R, B, "sort --compress-program='rm x' f", Deny),
    case(R, B, "sort -k2 f", Allow),
];

#[test]
fn git_options_that_run_commands() {
    run(GIT);
}

#[test]
fn other_programs_options_that_run_commands() {
    run(OTHERS);
}
