//! The third red-team round's shell findings (2026-12-07): a name tested
//! with `[[ -v ]]` whose value holds a subscript, `{a[SUB]}>file`
//! redirections, files named in a value attached to an option of a
//! program whose options tack does not know, shells and interpreters
//! under other installed names, `run-parts`; and everyday commands that
//! had been asked.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run, run_with_files};

const B: &str = "Bash";

/// Bash allowed wholesale; rm and perl denied; .env unreadable.
const W: &[&str] = &[
    "allow Bash",
    "deny Bash(rm *)",
    "deny Bash(perl *)",
    "deny Read(./.env)",
];
const NONE: &[&str] = &[];
const PLAN: &[&str] = &["mode plan"];

const SUBSCRIPTS: &[Case] = &[
    // bash expands the word, then evaluates the subscript of the name.
    case(W, B, "x='b[$(rm victim)]'; [[ -v $x ]]", Ask),
    case(PLAN, B, "[[ -v $(cat f) ]]", Deny),
    case(PLAN, B, "x=$(cat f); [[ -v $x ]]", Deny),
    case(NONE, B, "[[ -v ${x} ]] && echo set", Ask),
    case(PLAN, B, "[[ -v HOME ]] && echo set", Allow),
    // `{a[SUB]}>file` assigns the descriptor to an array element.
    case(W, B, "x='b[$(rm victim)]'; echo {a[x]}>/dev/null", Ask),
    case(PLAN, B, "echo {a[$(<f)]}>/dev/null", Deny),
    case(W, B, "x='b[$(rm victim)]'; ls {a[x]}</dev/null", Ask),
    case(PLAN, B, "echo {a[1]}>/dev/null", Allow),
];

#[test]
fn a_subscript_bash_evaluates_from_a_value_is_code() {
    run(SUBSCRIPTS);
}

const ATTACHED: &[Case] = &[
    // The detached forms were already refused; these printed .env.
    case(W, B, "git blame -S.env src/main.rs", Deny),
    case(
        W,
        B,
        "git -c blame.ignoreRevsFile=.env blame src/main.rs",
        Deny,
    ),
    case(W, B, "git fmt-merge-msg -F.env", Deny),
    case(W, B, "git config -f.env --list", Deny),
    case(W, B, "git tag -a v1 -F.env", Deny),
    case(W, B, "git merge -F.env side", Deny),
    case(W, B, "tar -cf /dev/null -T.env", Deny),
    case(W, B, "tar -cT.env -f /dev/null", Deny),
    case(W, B, "make -pf.env", Deny),
    case(W, B, "gcc -include.env -E -x c /dev/null", Deny),
    case(W, B, "cpp -imacros.env /dev/null", Deny),
    case(W, B, "gcc @.env", Deny),
    case(W, B, "ld @.env", Deny),
    case(W, B, "git ls-files -o -X.env", Deny),
    case(PLAN, B, "git diff -O/etc/shadow", Deny),
    case(PLAN, B, "git log -p -O/etc/shadow", Deny),
    // Options that name no file.
    case(W, B, "make -j4", Allow),
    case(W, B, "gcc -O2 -Wall -o out src/main.rs", Allow),
    case(W, B, "git log --oneline -5", Allow),
    case(PLAN, B, "git diff -U3", Allow),
    case(PLAN, B, "sort -t. -k2 src/main.rs", Allow),
];

#[test]
fn a_file_attached_to_an_option_is_read() {
    run(ATTACHED);
}

const OTHER_NAMES: &[Case] = &[
    // rbash is bash: restricted mode does not stop running programs.
    case(W, B, "rbash <<< 'rm victim'", Ask),
    case(W, B, "echo 'rm victim' | /bin/rbash -s", Ask),
    case(W, B, "rbash x.sh", Deny),
    case(W, B, "bash-static x.sh", Deny),
    // run-parts runs every program in the directory.
    case(W, B, "run-parts rp", Ask),
    case(
        &["allow Bash(run-parts *)", "deny Bash(rm *)"],
        B,
        "run-parts rp",
        Ask,
    ),
    // Interpreters under their versioned and multiarch names.
    case(W, B, "tclsh8.6 <<< 'exec rm victim'", Ask),
    case(W, B, "perl5.36-x86_64-linux-gnu -e 1", Deny),
    case(
        &["allow Bash", "deny Bash(rm *)"],
        B,
        "perl5.36-x86_64-linux-gnu -e 'unlink \"victim\"'",
        Ask,
    ),
    case(
        &["allow Bash", "deny Bash(rm *)"],
        B,
        "perl5.36.0 -e 'system(\"rm victim\")'",
        Ask,
    ),
    case(W, B, "rbash -c 'ls'", Allow),
];

#[test]
fn shells_and_interpreters_under_other_names_are_read_as_themselves() {
    run_with_files(
        &[
            ("x.sh", "rm victim\n", false),
            ("rp/x", "#!/bin/sh\nrm victim\n", true),
        ],
        OTHER_NAMES,
    );
}

const EVERYDAY: &[Case] = &[
    case(PLAN, B, "git --version", Allow),
    case(PLAN, B, "git version", Allow),
    case(PLAN, B, "command -v git", Allow),
    case(PLAN, B, "type git", Allow),
    case(PLAN, B, "git config user.name", Allow),
    case(PLAN, B, "set -e; ls", Allow),
    case(PLAN, B, "set -euo pipefail; git status", Allow),
    // Still not read-only.
    case(PLAN, B, "git config user.name x", Deny),
    case(PLAN, B, "set -k; ls", Deny),
    case(PLAN, B, "command rm x", Deny),
];

#[test]
fn everyday_lookups_need_no_rule() {
    run(EVERYDAY);
}

const FORCE_PUSH: &[&str] = &["allow Bash", "deny Bash(git push --force *)"];

const FORCED: &[Case] = &[
    // They overwrite the remote's refs as --force does.
    case(
        FORCE_PUSH,
        B,
        "git push --force-with-lease origin main",
        Deny,
    ),
    case(
        FORCE_PUSH,
        B,
        "git push --force-with-lease=main:abc origin main",
        Deny,
    ),
    case(FORCE_PUSH, B, "git push --mirror origin", Deny),
    case(FORCE_PUSH, B, "git push origin main", Allow),
    case(
        &["allow Bash(git push --force-with-lease origin main)"],
        B,
        "git push --force-with-lease origin main",
        Allow,
    ),
];

#[test]
fn a_rule_naming_force_meets_every_push_that_overwrites() {
    run(FORCED);
}

const DOCS: &[&str] = &["allow Bash(cat docs/*)", "allow Bash(./scripts/*)"];

const DIRECTORY_RULES: &[Case] = &[
    // An allow rule naming a directory allows what is in it, not what its
    // wildcard can climb to (the compose red team read ~/.aws/credentials
    // through a checked-in `Bash(cat docs/*)`).
    case(DOCS, B, "cat docs/guide.md", Allow),
    case(DOCS, B, "cat docs/guide.md docs/other.md", Allow),
    case(DOCS, B, "cat docs/../../outside/file.txt", Ask),
    case(DOCS, B, "cat docs/guide.md /etc/passwd", Ask),
    case(DOCS, B, "cat docs/guide.md ~/.ssh/id_rsa", Ask),
    case(DOCS, B, "cat docs/a ../outside/file.txt", Ask),
    // A script's further words are its arguments, not files it was allowed.
    case(DOCS, B, "./scripts/build.sh --out /tmp/x", Allow),
    case(DOCS, B, "./scripts/../../bin/x", Ask),
    // Deny rules match as before.
    case(
        &["allow Bash", "deny Bash(cat secrets/*)"],
        B,
        "cat secrets/../secrets/key.txt",
        Deny,
    ),
];

#[test]
fn an_allow_rule_naming_a_directory_does_not_reach_out_of_it() {
    run(DIRECTORY_RULES);
}

const LINKED: &[Case] = &[
    // A link the model made inside the directory a rule names (or under the
    // very name a rule allows) leads out of the working directories: the
    // rule allowed the name, not what it leads to.
    case(DOCS, B, "cat docs/k", Ask),
    case(&["allow Bash(cat notes.txt)"], B, "cat notes.txt", Ask),
    case(&["allow Bash(head *)"], B, "head -n 3 docs/k", Ask),
    // A link that stays inside, and a plain file, as before.
    case(DOCS, B, "cat docs/inside/main.rs", Allow),
    case(DOCS, B, "cat docs/guide.md", Allow),
    // `allow Bash` allows every command, whatever it reads.
    case(&["allow Bash"], B, "cat docs/k", Allow),
    // A rule that names the outside file itself allows it.
    case(
        &["allow Bash(cat /etc/passwd)"],
        B,
        "cat /etc/passwd",
        Allow,
    ),
];

#[test]
fn an_allow_rule_allows_the_names_it_gives_not_where_links_lead() {
    crate::support::run_with_links(
        &[
            ("docs/k", "/etc/passwd"),
            ("notes.txt", "/etc/passwd"),
            ("docs/inside", "../src"),
        ],
        LINKED,
    );
}

#[test]
fn a_rule_stopped_by_a_link_says_where_it_leads() {
    let fx = crate::support::Fixture::new();
    std::fs::create_dir_all(fx.project.join("docs")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", fx.project.join("docs/k")).unwrap();
    let policy = fx.policy(DOCS);
    let d = fx.decide_in(&fx.project, &policy, B, "cat docs/k");
    let text = d.to_string();
    assert!(d.is_ask(), "{text}");
    assert!(text.contains("leads to /etc/passwd"), "{text}");
    assert!(text.contains("Bash(cat docs/*)"), "{text}");
}
