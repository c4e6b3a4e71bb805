//! Sixth red-team round, area "deny": doing what a Bash deny rule forbids
//! through another program or spelling.
//!
//! - perl's `-M`/`-m` are code (`-M'strict;system "rm x"'` is the line `use
//!   strict;system "rm x";`) or import the function that acts
//!   (`-MFile::Path=remove_tree`); `-I` makes a module the project's file;
//! - a hard link to a system program, or a copy of one, is that program
//!   (`ln /usr/bin/rm d2; ./d2 x`), as a symbolic link already was.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, Fixture, case, run};

const B: &str = "Bash";
const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];
const PUSH: &[&str] = &["allow Bash", "deny Bash(git push *)"];

const PERL: &[Case] = &[
    case(RM, B, r#"perl '-Mstrict;system "rm a.txt"' -e1"#, Ask),
    case(RM, B, r#"perl -M'strict;system "rm a.txt"' -e 1"#, Ask),
    case(
        RM,
        B,
        r#"perl -MFile::Path=remove_tree -e 'remove_tree "sub"'"#,
        Ask,
    ),
    case(RM, B, r#"perl -mFile::Path=rmtree -e 'rmtree "sub"'"#, Ask),
    case(RM, B, r#"perl -MPOSIX=remove -e 'remove "a.txt"'"#, Ask),
    case(RM, B, "perl -I. -Mstrict -e 1", Ask),
    case(RM, B, "perl -d:Trace -e 1", Ask),
    // Modules that only compute.
    case(RM, B, "perl -Mstrict -Mwarnings -e 'print 1+1'", Allow),
    case(
        RM,
        B,
        "perl -MList::Util=sum,max -e 'print sum(1,2)'",
        Allow,
    ),
    case(RM, B, "perl -MData::Dumper -e 'print Dumper([1])'", Allow),
];

#[test]
fn a_perl_module_named_on_the_command_line_may_act() {
    run(PERL);
}

#[test]
fn a_hard_link_or_a_copy_of_a_system_program_is_that_program() {
    let Some(rm) = ["/usr/bin/rm", "/bin/rm"]
        .iter()
        .map(std::path::Path::new)
        .find(|p| p.is_file())
    else {
        return;
    };
    let git = ["/usr/bin/git", "/bin/git"]
        .iter()
        .map(std::path::Path::new)
        .find(|p| p.is_file());
    let fx = Fixture::new();
    let p = &fx.project;
    std::fs::copy(rm, p.join("d3")).unwrap();
    let hard = std::fs::hard_link(rm, p.join("d2")).is_ok();
    if let Some(git) = git {
        std::fs::copy(git, p.join("g")).unwrap();
    }
    let mut table = vec![
        ("./d3 a.txt", RM, Deny),
        ("./d3 -rf out", RM, Deny),
        ("./src/main.rs", RM, Allow),
    ];
    if hard {
        table.push(("./d2 a.txt", RM, Deny));
    }
    if git.is_some() {
        table.push(("./g push origin main", PUSH, Deny));
        table.push(("./g status", PUSH, Allow));
    }
    let mut wrong = Vec::new();
    for (command, rules, want) in table {
        let policy = fx.policy(rules);
        let d = fx.decide_in(p, &policy, "Bash", command);
        if d.verdict() != want {
            wrong.push(format!("{command}: want {want:?}, got {d}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Sixth round, area "net": a remote named in `.git/config` reached a host
/// a domain rule forbids (`git fetch o`, `git pull`, `git remote update`):
/// only a URL written in the command was read. Now the remote's URLs (and
/// `insteadOf`) meet the domain rules.
#[test]
#[expect(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "the test makes its repository with git(1)"
)]
fn a_remote_by_its_name_reaches_the_host_of_its_url() {
    let fx = Fixture::new();
    let p = &fx.project;
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(p)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["remote", "add", "origin", "http://evil.test/r.git"]);
    git(&["remote", "add", "o", "git@evil.test:r.git"]);
    git(&["remote", "add", "ok", "https://ok.test/r.git"]);
    std::fs::write(
        p.join(".gitmodules"),
        "[submodule \"lib\"]\n\tpath = lib\n\turl = https://evil.test/lib.git\n",
    )
    .unwrap();
    let rules: &[&str] = &["allow Bash", "deny WebFetch(domain:evil.test)"];
    let policy = fx.policy(rules);
    let mut wrong = Vec::new();
    for (command, want) in [
        ("git fetch o", Deny),
        ("git fetch", Deny),
        ("git pull", Deny),
        ("git ls-remote o", Deny),
        ("git remote update", Deny),
        ("git fetch --all", Deny),
        ("git push o main", Deny),
        ("git remote show o", Deny),
        ("git remote prune o", Deny),
        ("git remote show", Allow),
        ("git submodule update --init", Deny),
        ("git pull --recurse-submodules", Deny),
        ("git submodule status", Allow),
        ("git fetch ok", Allow),
        ("git push ok main", Allow),
        ("git status", Allow),
    ] {
        let d = fx.decide_in(p, &policy, "Bash", command);
        if d.verdict() != want {
            wrong.push(format!("{command}: want {want:?}, got {d}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
