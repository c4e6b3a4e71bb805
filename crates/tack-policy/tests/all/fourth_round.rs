//! Fourth red-team round, area "read" (the content of a file a `deny
//! Read(...)` rule protects): the routes that reached it, by cause. The git
//! ones are in git_content.rs.
//!
//! - running a denied file by its path (`./.env`): the shell runs a file
//!   with no `#!` itself and prints each line it cannot run;
//! - the file-list options of `wc`, `du`, `file`, `tree` (`--files0-from`,
//!   `-f`, `--fromfile`) under an allow rule: the list is read, and the
//!   names it cannot open printed;
//! - the recursive mode of compressors (`gzip -rc .`, `zstd -r`, `pigz`,
//!   `lz4`) and archivers tack did not list (`jar`, `bsdtar`, `pax -w`);
//! - a renamer (`rename`, util-linux's `rename.ul`) moving the directory
//!   that holds a denied file;
//! - `ln -s ../.env d/e`: a relative target is read from the link's
//!   directory, not the working directory.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";
const STD: &[&str] = &[
    "allow Bash",
    "allow Edit",
    "deny Read(./.env)",
    "deny Read(./secrets/**)",
];

const READ_ROUTES: &[Case] = &[
    // Running it.
    case(STD, B, "./.env", Deny),
    case(STD, B, "./secrets/key.txt 2>&1 | cat", Deny),
    case(STD, B, "bash -c ./.env", Deny),
    case(STD, B, "env ./.env", Deny),
    case(STD, B, "./src/main.rs", Allow),
    // File lists.
    case(STD, B, "wc --files0-from=.env", Deny),
    case(STD, B, "wc --files0-from .env", Deny),
    case(STD, B, "du --files0-from=secrets/key.txt", Deny),
    case(STD, B, "file -f .env", Deny),
    case(STD, B, "file --files-from .env", Deny),
    case(STD, B, "tree --fromfile=.env", Deny),
    case(STD, B, "wc --files0-from=docs/guide.md", Allow),
    // Recursive compressors and other archivers.
    case(STD, B, "gzip -rc . | zcat", Deny),
    case(STD, B, "gzip --recursive --stdout .", Deny),
    case(STD, B, "zstd -q -r -c . | zstd -dc", Deny),
    case(STD, B, "pigz -rc secrets", Deny),
    case(STD, B, "lz4 -r -c .", Deny),
    case(STD, B, "jar cf out/x.jar .", Deny),
    case(STD, B, "bsdtar -cf - .", Deny),
    case(STD, B, "pax -w .", Deny),
    case(STD, B, "python3 -m tarfile -c out/t.tar .", Deny),
    case(STD, B, "python3 -m zipfile -c out/z.zip docs secrets", Deny),
    case(STD, B, "python3 -m zipfile -c out/z.zip src", Allow),
    case(STD, B, "gzip -rk src", Allow),
    case(STD, B, "gzip -c src/main.rs", Allow),
    // Renamers moving the directory that holds it.
    case(STD, B, "rename secrets public secrets", Deny),
    case(STD, B, "rename.ul -v secrets public secrets", Deny),
    case(STD, B, "rename src lib src", Allow),
    // A link's relative target, from the link's directory.
    case(STD, B, "ln -s ../.env docs/e", Deny),
    case(STD, B, "mkdir -p d9 && ln -s ../secrets d9/s", Deny),
    case(STD, B, "ln -s -t docs ../.env", Deny),
    case(STD, B, "ln -s ../src/main.rs docs/m", Allow),
];

#[test]
fn each_route_to_a_denied_files_content_meets_the_read_rule() {
    run(READ_ROUTES);
}

const FOLLOWED: &[Case] = &[
    // `docs/e -> ../.env`, `lib/s -> ../secrets` (made earlier, or checked
    // in): a program that follows the links it meets reads where they lead.
    case(STD, B, "grep -R MARKER docs", Deny),
    case(STD, B, "grep --dereference-recursive MARKER lib", Deny),
    case(STD, B, "rg -L MARKER docs", Deny),
    case(STD, B, "rg --follow MARKER lib", Deny),
    case(STD, B, "tar -chf - docs", Deny),
    case(STD, B, "zip -r out/x.zip docs", Deny),
    case(STD, B, "gzip -rc lib", Deny),
    // Those that leave links as links.
    case(STD, B, "grep -r MARKER docs", Allow),
    case(STD, B, "rg MARKER docs", Allow),
    case(STD, B, "tar -cf - docs", Allow),
    case(STD, B, "zip -ry out/x.zip docs", Allow),
    case(STD, B, "grep -R MARKER src", Allow),
];

#[test]
fn a_program_that_follows_links_reads_where_they_lead() {
    crate::support::run_with_links(&[("docs/e", "../.env"), ("lib/s", "../secrets")], FOLLOWED);
}

/// Fourth red-team round, area "write": a target directory attached to
/// its option (`cp -t../outside`), or set by a file named `-t…` a pattern
/// expands to; a file attached to a short option of a program tack does not
/// model (`gcc -osrc/x`, `-Wl,-o,src/x`); a `Write(…)` deny rule, which held
/// for the Write tool only; links brought in by an earlier part of the
/// command (`mv sub x && mv x/up .`, `cp -a sub/. .`).
const ACCEPT: &[&str] = &["mode acceptEdits"];
const NO_SRC: &[&str] = &["allow Bash", "allow Edit", "deny Edit(./src/**)"];
const NO_CONFIG: &[&str] = &["mode acceptEdits", "allow Bash", "deny Write(./config/**)"];

const WRITES: &[Case] = &[
    case(ACCEPT, B, "cp -t../outside docs/guide.md", Ask),
    case(ACCEPT, B, "mv -vt../outside docs/guide.md", Ask),
    case(ACCEPT, B, "install -t.git/hooks docs/guide.md", Ask),
    case(ACCEPT, B, "ln -st.claude docs/guide.md", Ask),
    case(NO_SRC, B, "cp -tsrc docs/guide.md", Deny),
    case(ACCEPT, B, "cp -t out docs/guide.md", Allow),
    case(NO_SRC, B, "gcc -osrc/m.rs a.c", Ask),
    case(NO_SRC, B, "cpp a.c -osrc/m.i", Ask),
    case(NO_SRC, B, "gcc -Wl,-o,src/x a.c", Ask),
    case(NO_SRC, B, "gcc -oout/x a.c", Allow),
    case(NO_CONFIG, "Edit", "config/c.yml", Deny),
    case(NO_CONFIG, B, "echo x > config/c.yml", Deny),
    case(NO_CONFIG, B, "cp docs/guide.md config/", Deny),
    case(NO_CONFIG, B, "touch config/x", Deny),
    case(NO_CONFIG, B, "echo x > docs/x", Allow),
    case(
        ACCEPT,
        B,
        "mv sub x && mv x/up . && touch up/outside/pwn",
        Ask,
    ),
    case(ACCEPT, B, "cp -a lnk/. . && touch up/outside/pwn", Ask),
    case(ACCEPT, B, "cp -a docs/. out && touch out/guide.md", Allow),
];

#[test]
fn writes_the_mode_or_the_rules_forbid_are_not_allowed() {
    crate::support::run_with_links(&[("lnk/up", "..")], WRITES);
}

#[test]
fn a_file_named_like_an_option_a_pattern_expands_to_is_asked() {
    let fx = crate::support::Fixture::new();
    std::fs::create_dir_all(fx.project.join("s2")).unwrap();
    std::fs::write(fx.project.join("s2/a"), "x").unwrap();
    std::fs::write(fx.project.join("-t.."), "").unwrap();
    let policy = fx.policy(ACCEPT);
    let d = fx.decide_in(&fx.project, &policy, B, "cp * s2/");
    assert!(d.is_ask(), "{d}");
    let d = fx.decide_in(&fx.project, &policy, B, "cp s2/* out/");
    assert!(d.is_allow(), "{d}");
}
