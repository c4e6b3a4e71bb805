//! Ninth red-team round (files and modes), git's part:
//!
//! - H1: git subcommands that write the files their operands or options
//!   name (`mailinfo MSG PATCH`, `merge-file CURRENT …`, `interpret-trailers
//!   --in-place`, `mailsplit -oDIR`, `--export-marks=F`, `init
//!   --separate-git-dir`, `commit-graph write --object-dir`, …) are edits:
//!   the protected paths, the Edit deny rules and acceptEdits' working
//!   directories see them. A subcommand not known to write nothing (an
//!   alias, a program of git's exec path, `git svn`) may change every path
//!   it names.
//! - H4: `git config` getters that print the user's or the system's
//!   configuration (a list, a regexp, `--global`, `--system`,
//!   `--show-origin`, in any order) read those files: Read deny rules hold,
//!   and outside the working directories they need a rule (plan mode
//!   refuses them). The repository's own (`--local`) and one key stay
//!   read-only.
//! - H5: programs that print a credential file they find by themselves are
//!   reads of that file.
//! - F2/F3: git's read-only listings run without a rule (plan mode too).

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run, run_with_files};

const B: &str = "Bash";

/// The red team's rules: everything allowed, a few files denied.
const STD: &[&str] = &[
    "allow Bash",
    "allow Read",
    "allow Edit",
    "allow Write",
    "deny Read(./.env)",
    "deny Read(./secrets/**)",
    "deny Edit(./src/generated/**)",
    "deny Bash(rm *)",
];
/// Only git allowed.
const GIT: &[&str] = &["allow Bash(git *)"];
/// Only git allowed, in acceptEdits.
const GIT_EDITS: &[&str] = &["allow Bash(git *)", "mode acceptEdits"];
/// `allow Bash` beside an Edit deny rule (no Bash deny rule).
const EDIT_DENY: &[&str] = &["allow Bash", "deny Edit(./src/generated/**)"];
/// No rule at all.
const NONE: &[&str] = &[];
/// Plan mode, no rule.
const PLAN: &[&str] = &["mode plan"];
/// The user's git configuration kept from reading.
const GITCONFIG: &[&str] = &["allow Bash", "deny Read(~/.gitconfig)"];

// H1: a write at a path git's words name.

const NAMED_WRITES: &[Case] = &[
    // mailinfo writes both operands.
    case(STD, B, "git mailinfo .git/config patch < mbox", Ask),
    case(GIT, B, "git mailinfo .git/config patch < mbox", Ask),
    case(
        GIT_EDITS,
        B,
        "git mailinfo .claude/settings.local.json /dev/null < mbox",
        Ask,
    ),
    case(STD, B, "git mailinfo ~/.bashrc /dev/null < mbox", Ask),
    case(STD, B, "git mailinfo msg src/generated/g.rs < mbox", Deny),
    case(
        STD,
        B,
        "git mailinfo -k --encoding=utf-8 msg .tack/x < mbox",
        Ask,
    ),
    case(STD, B, "git mailinfo msg patch < mbox", Allow),
    case(GIT_EDITS, B, "git mailinfo msg patch < mbox", Allow),
    case(GIT, B, "git mailinfo msg patch < mbox", Ask),
    // merge-file writes CURRENT, unless printed.
    case(
        STD,
        B,
        "git merge-file .git/config base.txt theirs.txt",
        Ask,
    ),
    case(GIT_EDITS, B, "git merge-file .mcp.json base.txt b.txt", Ask),
    case(
        STD,
        B,
        "git merge-file src/generated/g.rs a.txt b.txt",
        Deny,
    ),
    case(
        STD,
        B,
        "git merge-file --ours -q src/generated/g.rs a b",
        Deny,
    ),
    case(STD, B, "git merge-file -L a -L b -L c .envrc a b", Ask),
    case(
        STD,
        B,
        "git merge-file -p .git/config base.txt b.txt",
        Allow,
    ),
    case(
        STD,
        B,
        "git merge-file --stdout src/generated/g.rs a b",
        Allow,
    ),
    case(STD, B, "git merge-file a.txt base.txt b.txt", Allow),
    case(GIT_EDITS, B, "git merge-file a.txt base.txt b.txt", Allow),
    case(
        GIT_EDITS,
        B,
        "git merge-file {root}/outside/v base.txt b.txt",
        Ask,
    ),
    // interpret-trailers --in-place rewrites its files.
    case(
        STD,
        B,
        "git interpret-trailers --in-place --trailer 'a: b' src/generated/g.rs",
        Deny,
    ),
    case(
        GIT,
        B,
        "git interpret-trailers --in-place --trailer 'Fix: x' ~/.bashrc",
        Ask,
    ),
    case(
        STD,
        B,
        "git interpret-trailers --in-pl --trailer a:b .envrc",
        Ask,
    ),
    case(
        STD,
        B,
        "git interpret-trailers --trailer 'a: b' src/generated/g.rs",
        Allow,
    ),
    // mailsplit -oDIR writes into DIR.
    case(STD, B, "git mailsplit -o.git/hooks mbox", Ask),
    case(STD, B, "git mailsplit -osrc/generated mbox", Deny),
    case(STD, B, "git mailsplit -oout mbox", Allow),
    // Marks files.
    case(
        STD,
        B,
        "git fast-export --export-marks=src/generated/g.rs HEAD",
        Deny,
    ),
    case(
        STD,
        B,
        "git fast-export --export-marks src/generated/g.rs HEAD",
        Deny,
    ),
    case(
        STD,
        B,
        "git fast-import --export-marks=.tack/settings.local.json < /dev/null",
        Ask,
    ),
    case(
        STD,
        B,
        "git fast-import --export-pack-edges=src/generated/e",
        Deny,
    ),
    case(STD, B, "git fast-import --allow-unsafe-features < s", Ask),
    case(STD, B, "git fast-export --import-marks=m HEAD", Allow),
    case(STD, B, "git fast-export --import-marks=.env HEAD", Deny),
    case(STD, B, "git fast-export --all", Allow),
    // A git directory, a commit-graph, elsewhere.
    case(
        STD,
        B,
        "git init --separate-git-dir=src/generated/x y",
        Deny,
    ),
    case(STD, B, "git init --separate-git-dir .claude/g y", Ask),
    case(STD, B, "git clone --separate-git-dir=.git/hooks/x u d", Ask),
    case(
        STD,
        B,
        "git commit-graph write --object-dir src/generated",
        Deny,
    ),
    case(
        STD,
        B,
        "git multi-pack-index --object-dir=.git/hooks write",
        Ask,
    ),
    case(STD, B, "git commit-graph write --reachable", Allow),
    // More of git's plumbing that writes where it is told.
    case(
        STD,
        B,
        "git read-tree --index-output=src/generated/i HEAD",
        Deny,
    ),
    case(STD, B, "git apply --build-fake-ancestor=.envrc p.diff", Ask),
    case(STD, B, "git daemon --pid-file=src/generated/pid", Deny),
    case(STD, B, "git bugreport -o src/generated", Deny),
    case(STD, B, "git diagnose --output-directory=.vscode", Ask),
    case(STD, B, "git index-pack -o src/generated/x.idx p.pack", Deny),
    case(STD, B, "git index-pack src/generated/p.pack", Deny),
    case(STD, B, "git pack-objects src/generated/p < list", Deny),
    case(STD, B, "git pack-objects --stdout < list", Allow),
    case(STD, B, "git worktree move wt src/generated/wt", Deny),
    case(STD, B, "git credential-store --file=.envrc store", Ask),
    case(STD, B, "git maintenance register", Ask),
    case(STD, B, "git merge-index 'rm -rf x' -a", Deny),
    case(
        STD,
        B,
        "git for-each-repo --config=r mailinfo .git/config p",
        Ask,
    ),
    // Everyday commands stay as they were.
    case(STD, B, "git status", Allow),
    case(STD, B, "git log -p", Allow),
    case(STD, B, "git commit -m x", Allow),
    case(STD, B, "git diff HEAD", Allow),
    case(GIT, B, "git fetch origin", Allow),
    case(GIT, B, "git push origin main", Allow),
    case(GIT, B, "git branch -D old", Allow),
    case(GIT, B, "git checkout -b feature", Allow),
    case(GIT, B, "git stash list", Allow),
    case(GIT, B, "git rebase main", Allow),
    case(GIT, B, "git tag v1", Allow),
    case(GIT, B, "git add src/main.rs", Allow),
];

// H1's backstop: a subcommand tack does not know may change what it names.

const UNKNOWN_WRITES: &[Case] = &[
    case(EDIT_DENY, B, "git svn clone https://h/r src/generated", Ask),
    case(EDIT_DENY, B, "git archimport -o src/generated/x", Ask),
    case(EDIT_DENY, B, "git lfs track src/generated/g.rs", Ask),
    case(EDIT_DENY, B, "git p4 clone //depot .", Ask),
    case(EDIT_DENY, B, "git frob --out=src/generated/g.rs", Ask),
    case(EDIT_DENY, B, "git-http-fetch -w src/generated/r c u", Ask),
    case(EDIT_DENY, B, "git svn fetch \"$D\"", Ask),
    // An alias set here for a writer, or any name, given a protected path.
    case(GIT, B, "git -c alias.mf=merge-file mf .git/config b c", Ask),
    case(GIT_EDITS, B, "git lfs track .envrc", Ask),
    case(GIT, B, "git flow init .husky", Ask),
    // Nothing they name is guarded: as before.
    case(EDIT_DENY, B, "git lfs install", Allow),
    case(EDIT_DENY, B, "git svn clone https://h/r dir", Allow),
    case(GIT, B, "git lfs pull", Allow),
    case(EDIT_DENY, B, "git status src/generated", Allow),
    case(EDIT_DENY, B, "git log src/generated", Allow),
];

// H4: what `git config` prints of the user's and the system's files.

const CONFIG_READS: &[Case] = &[
    case(GITCONFIG, B, "git config --list --global", Deny),
    case(GITCONFIG, B, "git config --global --list", Deny),
    case(GITCONFIG, B, "git config --list --show-origin", Deny),
    case(GITCONFIG, B, "git config --show-origin --list", Deny),
    case(GITCONFIG, B, "git config --get-regexp .", Deny),
    case(GITCONFIG, B, "git config --get-regexp extraheader", Deny),
    case(GITCONFIG, B, "git config -l", Deny),
    case(GITCONFIG, B, "git config list --global", Deny),
    case(GITCONFIG, B, "git config get --all --regexp http", Deny),
    case(GITCONFIG, B, "git config --get http.extraheader", Deny),
    case(
        GITCONFIG,
        B,
        "git config --global --get-all user.name",
        Deny,
    ),
    case(GITCONFIG, B, "git config --local --list", Allow),
    case(GITCONFIG, B, "git config --list --local", Allow),
    case(GITCONFIG, B, "git config --local user.name", Allow),
    case(GITCONFIG, B, "git config --system --list", Allow),
    case(
        &["allow Bash", "deny Read(//etc/gitconfig)"],
        B,
        "git config --list --system",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/git/**)"],
        B,
        "git config --get-regexp .",
        Deny,
    ),
    // Another file read as configuration.
    case(STD, B, "git config -f .env --list", Deny),
    case(STD, B, "git config --file=.env --get-regexp .", Deny),
    case(STD, B, "git config --blob HEAD:.env --list", Deny),
    case(STD, B, "git config --blob=HEAD:a.txt --list", Allow),
    // No rule: outside the working directories, it needs one.
    case(PLAN, B, "git config --list --global", Deny),
    case(PLAN, B, "git config --global --list", Deny),
    case(PLAN, B, "git config --list --show-origin", Deny),
    case(PLAN, B, "git config --get-regexp .", Deny),
    case(PLAN, B, "git config --system -l", Deny),
    case(NONE, B, "git config --list --global", Ask),
    case(NONE, B, "git config --get-regexp http", Ask),
    case(NONE, B, "git config --show-origin --get user.name", Ask),
    // One key, or the repository's own file: read-only.
    case(PLAN, B, "git config user.name", Allow),
    case(PLAN, B, "git config --get user.email", Allow),
    case(PLAN, B, "git config --local --list", Allow),
    case(PLAN, B, "git config --list --local", Allow),
    case(PLAN, B, "git config --local --get-regexp remote", Allow),
    case(NONE, B, "git config --local -l", Allow),
    // Still a write.
    case(NONE, B, "git config --global --unset user.name", Ask),
    case(GIT, B, "git config --global user.name me", Ask),
    case(GIT, B, "git config user.name me", Allow),
];

// F2: `git config --list` alone reads the user's files as well, decided as
// the forms above are (it was refused as a key named `--list`).

const CONFIG_LIST: &[Case] = &[
    case(PLAN, B, "git config --list", Deny),
    case(PLAN, B, "git config -l", Deny),
    case(NONE, B, "git config --list", Ask),
    case(NONE, B, "git config -l", Ask),
    case(GITCONFIG, B, "git config --list", Deny),
    case(&["allow Bash"], B, "git config --list", Allow),
    case(&["allow Bash(git config *)"], B, "git config -l", Allow),
    case(PLAN, B, "git config --local -l", Allow),
];

// H5: a credential file the program prints.

const CREDENTIALS: &[Case] = &[
    case(
        &["allow Bash", "deny Read(~/.git-credentials)"],
        B,
        "printf 'protocol=https\\nhost=github.com\\n\\n' | git credential fill",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.git-credentials)"],
        B,
        "git -c credential.helper=store credential fill < q",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.git-credentials)"],
        B,
        "echo host=github.com | git credential-store get",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.git-credentials)"],
        B,
        "git-credential-store get < q",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/git/**)"],
        B,
        "git credential fill < q",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.kube/**)"],
        B,
        "kubectl config view --raw",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.kube/**)"],
        B,
        "kubectl config view --minify --raw -o jsonpath='{.users[0].user.token}'",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.kube/**)"],
        B,
        "oc -n x config view --raw=true",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.kube/**)"],
        B,
        "KUBECONFIG=k kubectl config view --raw",
        Ask,
    ),
    case(
        &["allow Bash", "deny Read(./secrets/**)"],
        B,
        "kubectl --kubeconfig secrets/k config view --raw",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.aws/**)"],
        B,
        "aws configure get aws_secret_access_key",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.aws/**)"],
        B,
        "aws configure export-credentials --profile p",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.aws/credentials)"],
        B,
        "aws --profile p configure get aws_secret_access_key",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.aws/**)"],
        B,
        "HOME=. aws configure get aws_secret_access_key",
        Ask,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/gh/**)"],
        B,
        "gh auth token",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/gh/**)"],
        B,
        "gh auth status -t",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/gh/**)"],
        B,
        "gh auth status --show-token",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.ssh/**)"],
        B,
        "ssh -G prod",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/gcloud/**)"],
        B,
        "gcloud auth print-access-token",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.azure/**)"],
        B,
        "az account get-access-token",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.netrc)"],
        B,
        "heroku auth:token",
        Deny,
    ),
    case(
        &["allow Bash", "deny Read(~/.password-store/**)"],
        B,
        "echo https://r | docker-credential-pass get",
        Deny,
    ),
    case(
        &["allow Bash", "ask Read(~/.aws/**)"],
        B,
        "aws configure get region",
        Ask,
    ),
    // What prints no credential, or no rule for the file: as before.
    case(
        &["allow Bash", "deny Read(~/.kube/**)"],
        B,
        "kubectl config view",
        Allow,
    ),
    case(
        &["allow Bash", "deny Read(~/.kube/**)"],
        B,
        "kubectl get pods",
        Allow,
    ),
    case(
        &["allow Bash", "deny Read(~/.aws/**)"],
        B,
        "aws s3 ls",
        Allow,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/gh/**)"],
        B,
        "gh auth status",
        Allow,
    ),
    case(
        &["allow Bash", "deny Read(~/.config/gh/**)"],
        B,
        "gh pr list",
        Allow,
    ),
    case(&["allow Bash", "deny Read(~/.ssh/**)"], B, "ssh -V", Allow),
    case(
        &["allow Bash", "deny Read(~/.git-credentials)"],
        B,
        "git credential approve < q",
        Allow,
    ),
    case(&["allow Bash"], B, "kubectl config view --raw", Allow),
    case(&["allow Bash"], B, "aws configure get region", Allow),
];

// F3: git's read-only listings, with no rule, in plan mode too.

const READ_ONLY: &[Case] = &[
    case(PLAN, B, "git reflog", Allow),
    case(PLAN, B, "git reflog show main", Allow),
    case(PLAN, B, "git show-ref", Allow),
    case(PLAN, B, "git show-ref --heads", Allow),
    case(PLAN, B, "git for-each-ref", Allow),
    case(
        PLAN,
        B,
        "git for-each-ref --sort=-committerdate --format='%(refname:short)' refs/heads/",
        Allow,
    ),
    case(PLAN, B, "git symbolic-ref HEAD", Allow),
    case(PLAN, B, "git symbolic-ref --short HEAD", Allow),
    case(PLAN, B, "git branch --contains HEAD", Allow),
    case(PLAN, B, "git branch -a --merged main", Allow),
    case(PLAN, B, "git branch --list 'feat*'", Allow),
    case(PLAN, B, "git tag --contains HEAD", Allow),
    case(PLAN, B, "git cherry -v", Allow),
    case(PLAN, B, "git count-objects -v", Allow),
    case(PLAN, B, "git submodule status", Allow),
    case(PLAN, B, "git submodule status --recursive", Allow),
    case(PLAN, B, "git grep x", Allow),
    case(PLAN, B, "git grep -n TODO -- src", Allow),
    case(PLAN, B, "git help log", Allow),
    case(PLAN, B, "git help -a", Allow),
    case(PLAN, B, "git diff --output-indicator-new=+", Allow),
    case(NONE, B, "git reflog", Allow),
    case(NONE, B, "git show-ref", Allow),
    case(NONE, B, "git grep x", Allow),
    // Forms that write or run something.
    case(PLAN, B, "git reflog expire --all", Deny),
    case(PLAN, B, "git reflog delete HEAD@{1}", Deny),
    case(PLAN, B, "git symbolic-ref HEAD refs/heads/x", Deny),
    case(PLAN, B, "git symbolic-ref -d HEAD", Deny),
    case(PLAN, B, "git branch x", Deny),
    case(PLAN, B, "git branch -d x", Deny),
    case(PLAN, B, "git branch --contains HEAD -D x", Deny),
    case(PLAN, B, "git tag v2", Deny),
    case(PLAN, B, "git submodule update", Deny),
    case(PLAN, B, "git submodule foreach ls", Deny),
    case(PLAN, B, "git grep -O x", Deny),
    case(PLAN, B, "git grep -Ovim x", Deny),
    case(PLAN, B, "git grep --open-files-in-pager=vim x", Deny),
    case(PLAN, B, "git grep -f/etc/passwd", Deny),
    case(PLAN, B, "git help -w log", Deny),
    case(PLAN, B, "git help --info log", Deny),
    case(PLAN, B, "git diff --output=x", Deny),
    case(PLAN, B, "git diff --output x", Deny),
    case(NONE, B, "git reflog expire --all", Ask),
    case(NONE, B, "git grep -O x", Ask),
];

#[test]
fn ninth_round_git_named_writes() {
    assert_eq!(run(NAMED_WRITES), NAMED_WRITES.len());
}

#[test]
fn ninth_round_git_unknown_subcommand_writes() {
    assert_eq!(run(UNKNOWN_WRITES), UNKNOWN_WRITES.len());
}

#[test]
fn ninth_round_git_config_reads_user_files() {
    assert_eq!(run(CONFIG_READS), CONFIG_READS.len());
}

#[test]
fn ninth_round_git_config_list_decided_consistently() {
    assert_eq!(run(CONFIG_LIST), CONFIG_LIST.len());
}

#[test]
fn ninth_round_credential_printers_read_their_files() {
    assert_eq!(run(CREDENTIALS), CREDENTIALS.len());
}

#[test]
fn ninth_round_git_read_only_listings() {
    assert_eq!(run(READ_ONLY), READ_ONLY.len());
}

/// An include in the user's configuration is read by a list too.
#[test]
fn ninth_round_git_config_includes_followed() {
    let fx_rules: &[&str] = &["allow Bash", "deny Read(./secrets/**)"];
    let table = [
        case(fx_rules, B, "git config --includes --local --list", Deny),
        case(fx_rules, B, "git config --local --list", Allow),
    ];
    let files: &[(&str, &str, bool)] = &[
        (".git/config", "[include]\n\tpath = ../secrets/inc\n", false),
        (".git/HEAD", "ref: refs/heads/main\n", false),
        ("secrets/inc", "[user]\n\tname = x\n", false),
    ];
    assert_eq!(run_with_files(files, &table), table.len());
}
