//! What git prints from the files it tracks is a read of them: with
//! `deny Read(./.env)` and `.env` committed, `git log -p`, `git show`, `git
//! diff`, `git grep`, `git archive`, `git format-patch --stdout`, `git stash
//! show -p` and `git cat-file -p OBJECT` printed it (read-only git needs no
//! rule), though `git show HEAD:.env` was refused. Now each meets the Read
//! rules for every file git tracks that it can print, from git's index;
//! pathspecs after `--` (and `:!x` exclusions) narrow it, and summaries
//! (`--stat`, `--name-only`, `-s`) print no content. A denied file git does
//! not track (an ignored `.env`) changes nothing.

use std::path::Path;

use tack_protocol::Verdict;

use crate::support::Fixture;

#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the test makes its repository with git(1)"
)]
fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A repository with `src/main.rs` and `docs/a.md` committed, and `.env`
/// and `secrets/prod.key` committed too when `committed`, else ignored.
fn repo(committed: bool) -> Fixture {
    let fx = Fixture::new();
    let p = &fx.project;
    git(p, &["init", "-q"]);
    for (f, text) in [
        ("src/main.rs", "fn main() {}\n"),
        ("docs/a.md", "# a\n"),
        (".env", "TOKEN=marker\n"),
        ("secrets/prod.key", "marker\n"),
    ] {
        std::fs::create_dir_all(p.join(f).parent().unwrap()).unwrap();
        std::fs::write(p.join(f), text).unwrap();
    }
    if committed {
        git(p, &["add", "."]);
    } else {
        std::fs::write(p.join(".gitignore"), ".env\nsecrets/\n").unwrap();
        git(p, &["add", "src", "docs", ".gitignore"]);
    }
    git(p, &["commit", "-q", "-m", "one"]);
    git(
        p,
        &["remote", "add", "origin", "https://github.com/x/y.git"],
    );
    fx
}

const RULES: &[&str] = &[
    "deny Read(./.env)",
    "deny Read(./secrets/**)",
    "allow Bash(git grep *)",
    "allow Bash(git archive *)",
    "allow Bash(git stash show *)",
    "allow Bash(git stash show)",
];

fn verdicts(fx: &Fixture, cwd: &Path, rules: &[&str], table: &[(&str, Verdict)]) {
    let policy = fx.policy(rules);
    let mut wrong = Vec::new();
    for (command, want) in table {
        let d = fx.decide_in(cwd, &policy, "Bash", command);
        if d.verdict() != *want {
            wrong.push(format!("{command}: want {want:?}, got {d}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn git_printing_a_denied_tracked_file_meets_the_read_rule() {
    use Verdict::{Allow, Deny};
    let fx = repo(true);
    verdicts(
        &fx,
        &fx.project,
        RULES,
        &[
            ("git log -p", Deny),
            ("git log --patch -3", Deny),
            ("git log -u --all", Deny),
            ("git log --word-diff", Deny),
            ("git log -L1,2:src/main.rs", Deny),
            ("git whatchanged -p", Deny),
            ("git show", Deny),
            ("git show HEAD~0", Deny),
            ("git show --stat -p", Deny),
            ("git diff", Deny),
            ("git diff HEAD~0 HEAD", Deny),
            ("git diff --cached", Deny),
            ("git diff-tree -p HEAD", Deny),
            ("git format-patch --stdout -1", Deny),
            ("git stash show -p", Deny),
            (
                "git cat-file -p 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
                Deny,
            ),
            (
                "git cat-file blob 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
                Deny,
            ),
            ("git cat-file --batch", Deny),
            ("git grep marker", Deny),
            ("git archive HEAD", Deny),
            ("git log -p -- .", Deny),
            ("git log -p -- secrets", Deny),
            ("git log -p -- ':(glob)**'", Deny),
            ("git log -p -- . ':!.env'", Deny),
            // Narrowed to what the rules leave alone, or no content printed.
            ("git log -p -- src docs", Allow),
            ("git log -p -- . ':!.env' ':!secrets'", Allow),
            ("git log -p -- . ':(exclude).env' ':^secrets'", Allow),
            ("git log", Allow),
            ("git log --oneline --stat", Allow),
            ("git log --name-only", Allow),
            ("git show --stat", Allow),
            ("git show -s --format=%H", Allow),
            ("git show --name-status HEAD", Allow),
            ("git diff --stat", Allow),
            ("git diff --name-only HEAD~0", Allow),
            ("git diff -- src", Allow),
            ("git stash show", Allow),
            ("git cat-file -t HEAD", Allow),
            ("git grep marker -- src", Allow),
            ("git status", Allow),
        ],
    );
    // `git grep` searches below the directory it runs in.
    verdicts(
        &fx,
        &fx.project.join("src"),
        RULES,
        &[("git grep marker", Verdict::Allow), ("git log -p", Deny)],
    );
    // `git -C DIR`: the repository DIR is in.
    let elsewhere = fx.root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let dash_c = format!("git -C {} log -p", fx.project.display());
    verdicts(&fx, &elsewhere, RULES, &[(dash_c.as_str(), Deny)]);
}

#[test]
fn an_ask_rule_asks_and_the_reason_names_the_file() {
    let fx = repo(true);
    let policy = fx.policy(&["ask Read(./secrets/**)"]);
    let d = fx.decide_in(&fx.project, &policy, "Bash", "git log -p");
    assert!(d.is_ask(), "{d}");
    let text = d.to_string();
    assert!(text.contains("secrets/"), "{text}");
    assert!(text.contains("after `--`"), "{text}");
}

#[test]
fn a_denied_file_git_does_not_track_changes_nothing() {
    use Verdict::{Allow, Deny};
    let fx = repo(false);
    verdicts(
        &fx,
        &fx.project,
        RULES,
        &[
            ("git log -p", Allow),
            ("git show", Allow),
            ("git diff", Allow),
            ("git grep marker", Allow),
            ("git archive HEAD", Allow),
            // Untracked files are searched too: the rule inside counts.
            ("git grep --untracked marker", Deny),
            ("git grep --no-index marker", Deny),
            // Named outright, as before.
            ("git show HEAD:.env", Deny),
            ("cat .env", Deny),
        ],
    );
}

/// Taking the file out of the index first (`git rm -r --cached .`, allowed
/// under `allow Bash`) leaves it in the commits `git log -p` prints: what
/// the index held when the policy was built still counts.
#[test]
fn untracking_the_file_first_does_not_get_it_out() {
    let fx = repo(true);
    let policy = fx.policy(&["allow Bash", "deny Read(./.env)"]);
    git(&fx.project, &["rm", "-q", "-r", "--cached", "."]);
    let d = fx.decide_in(&fx.project, &policy, "Bash", "git log -p");
    assert!(d.is_deny(), "{d}");
}

/// Fourth red-team round (read): git commands that copy or print what git
/// tracks without the list of printers knowing them (`merge-file -p
/// --object-id`, `unpack-file`, `checkout-index -a --prefix`, `clone .`,
/// `worktree add`, `reflog -p`), the pickaxe's yes/no on a file's text (`log
/// -G`, `-S`), a stash of what git does not track (`stash -u`, then `stash
/// show -p -u`, `show stash^3`, `log -p --all`), `git mv` of the directory
/// that holds a denied file, and `git diff --no-index DIR OTHER`. Any git
/// command not known to print nothing of what files hold is now a read of
/// what git tracks.
#[test]
fn every_way_git_has_of_giving_a_tracked_file_out() {
    use Verdict::{Allow, Deny};
    let fx = repo(true);
    let b = "3b18e512dba79e4c8300dd08aeb37f8e728b8dad";
    let merge_file = format!("git merge-file -p --object-id {b} {b} {b}");
    let unpack = format!("git unpack-file {b}");
    verdicts(
        &fx,
        &fx.project,
        &[
            "allow Bash",
            "allow Edit",
            "deny Read(./.env)",
            "deny Read(./secrets/**)",
        ],
        &[
            (merge_file.as_str(), Deny),
            (unpack.as_str(), Deny),
            ("git checkout-index -a --prefix=out/", Deny),
            ("git read-tree --prefix=z/ HEAD", Deny),
            ("git clone . sub/clone", Deny),
            ("git clone -q --bare ./ /tmp/x.git", Deny),
            ("git clone file://{project} x", Deny),
            ("git worktree add wt HEAD", Deny),
            ("git reflog -p", Deny),
            ("git reflog show --patch", Deny),
            ("git log --all -G '^TOKEN=m' --format=%h", Deny),
            ("git log -S marker --oneline", Deny),
            ("git log --pickaxe-regex -S 'mark.*'", Deny),
            ("git mv secrets public", Deny),
            ("git diff --no-index . src", Deny),
            ("git diff --no-index secrets /tmp", Deny),
            ("git pack-objects --stdout", Deny),
            ("git push /tmp/copy.git main", Deny),
            ("git push ../copy HEAD:main", Deny),
            ("git push file:///tmp/copy.git", Deny),
            ("git some-new-command", Deny),
            // Names, ids and counts, and writes at the files' own paths.
            ("git ls-files -s", Allow),
            ("git rev-parse HEAD:src/main.rs", Allow),
            ("git worktree list", Allow),
            ("git checkout-index -a", Allow),
            ("git push origin main", Allow),
            ("git clone https://github.com/x/y", Allow),
            ("git clone git@github.com:x/y.git", Allow),
            ("git log --all --oneline", Allow),
            ("git log -G marker -- src", Allow),
            ("git mv src/main.rs src/app.rs", Allow),
            ("git diff --no-index src docs", Allow),
            ("git status", Allow),
            ("git commit -m x", Allow),
        ],
    );
}

#[test]
fn a_stash_of_what_git_does_not_track_is_a_read_of_it() {
    use Verdict::{Allow, Deny};
    let fx = repo(false);
    verdicts(
        &fx,
        &fx.project,
        &["allow Bash", "deny Read(./.env)", "deny Read(./secrets/**)"],
        &[
            ("git stash -u", Deny),
            ("git stash push --include-untracked", Deny),
            ("git stash -a", Deny),
            ("git stash save -u wip", Deny),
            ("git stash show -p -u", Deny),
            ("git stash show --only-untracked -p", Deny),
            ("git show stash^3", Deny),
            ("git log -p --all", Deny),
            ("git diff stash^3 HEAD", Deny),
            // What git tracks holds no denied file here.
            ("git stash", Allow),
            ("git stash list", Allow),
            ("git log -p", Allow),
            ("git show", Allow),
        ],
    );
}

/// A push to a remote by its name copies what git tracks as a push to its
/// URL does: `git remote add backup /tmp/copy.git`, then `git push backup`,
/// had put a denied file where `git -C /tmp/copy.git show` prints it (only a
/// path written in the push was seen). The name is looked up in the
/// repository's configuration (and the user's, `-c` pairs, `insteadOf`
/// rewrites, the branch's own remote when none is named); a name no remote
/// has is a path to git. A fetch or pull from the project into a repository
/// elsewhere, and `git submodule add` of it, copy it the same way.
#[test]
fn a_remote_on_this_machine_is_a_copy_whatever_names_it() {
    use Verdict::{Allow, Deny};
    let fx = repo(true);
    let p = &fx.project;
    git(p, &["remote", "add", "backup", "/tmp/copy.git"]);
    git(
        p,
        &["remote", "add", "mirror", "https://github.com/x/m.git"],
    );
    git(p, &["config", "remote.mirror.pushurl", "../m.git"]);
    git(p, &["remote", "add", "gh", "https://example.com/x/g.git"]);
    git(p, &["remote", "add", "local", "file:///srv/l.git"]);
    std::fs::write(
        fx.home.join(".gitconfig"),
        "[url \"/srv/git/\"]\n\tpushInsteadOf = https://example.com/\n",
    )
    .unwrap();
    let rules = &["allow Bash", "deny Read(./.env)", "deny Read(./secrets/**)"];
    verdicts(
        &fx,
        p,
        rules,
        &[
            ("git push backup", Deny),
            ("git push backup main", Deny),
            ("git push -u backup HEAD", Deny),
            ("git push --repo=backup", Deny),
            ("git push --repo backup", Deny),
            ("git push mirror", Deny),
            ("git push gh main", Deny),
            ("git push local", Deny),
            ("git push nosuch-remote", Deny),
            ("git push \"$R\" main", Deny),
            ("git -c remote.z.url=/tmp/z.git push z", Deny),
            (
                "git -c url./tmp/u/.insteadOf=https://github.com/ push origin",
                Deny,
            ),
            ("git -C {root}/other fetch {project}", Deny),
            ("git -C {root}/other pull {project} main", Deny),
            ("git -C {root}/other fetch --multiple x {project}", Deny),
            ("git submodule add {project} sub", Deny),
            // A remote elsewhere, a fetch into the project.
            ("git push", Allow),
            ("git push origin", Allow),
            ("git push -u origin feature", Allow),
            ("git fetch mirror", Allow),
            ("git fetch --all", Allow),
            ("git pull", Allow),
            ("git remote update", Allow),
            ("git remote -v", Allow),
        ],
    );
    // The branch's remote is where a push with none named goes.
    git(p, &["config", "branch.master.remote", "backup"]);
    git(p, &["config", "branch.main.remote", "backup"]);
    verdicts(&fx, p, rules, &[("git push", Deny), ("git pull", Allow)]);
    // A fetch from a repository on this machine whose remote is the project.
    let other = fx.root.join("other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q"]);
    git(&other, &["remote", "add", "up", &p.to_string_lossy()]);
    verdicts(
        &fx,
        &other,
        rules,
        &[
            ("git fetch up", Deny),
            ("git pull up main", Deny),
            ("git fetch --all", Deny),
            ("git remote update", Deny),
            ("git status", Allow),
        ],
    );
}

/// Red-team round 12: the sandbox hides a Read-denied path, but a file git
/// tracks there has a copy it cannot hide (its committed content in
/// `.git/objects`), which a program tack cannot see into reads. `tack
/// sandbox check` says so for each such path; an ignored one is hidden whole.
#[test]
fn a_hidden_path_git_tracks_is_reported_as_not_hidden_from_git() {
    let said = |committed: bool| {
        let fx = repo(committed);
        let policy = fx.policy(RULES);
        tack_policy::hidden_paths(&policy, &[]).unenforced
    };
    let committed = said(true);
    for name in [".env", "secrets"] {
        assert!(
            committed
                .iter()
                .any(|u| u.starts_with(&format!("{name}: git tracks it"))),
            "{name}: {committed:?}"
        );
    }
    let ignored = said(false);
    assert!(
        !ignored.iter().any(|u| u.contains("git tracks it")),
        "{ignored:?}"
    );
}
