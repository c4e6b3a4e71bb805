//! Command tools declared in settings: `t` and `t(pattern)` rules decide on
//! the argv a call would run, written by `command_text`, so an argument
//! holding a space, a quote or a newline never reads as more words.

use proptest::prelude::*;
use serde_json::json;
use tack_policy::Verdict::{self, Allow, Ask, Deny};
use tack_policy::{
    DecidedBy, Decision, Policy, PolicyBuilder, Request, RuleEntry, RuleKind, Source, command_text,
    evaluate, explain,
};

use crate::support::Fixture;

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The call of the command tool `t` running `words` (read-only or not).
fn decide(policy: &Policy, words: &[&str], read_only: bool) -> Decision {
    let req = Request::command(
        "t",
        &json!({}),
        argv(words),
        read_only,
        policy.cwd(),
        policy,
    );
    evaluate(&req, policy)
}

/// One row: rules, the argv `t` runs, whether `t` is read-only, the verdict.
type Row = (
    &'static [&'static str],
    &'static [&'static str],
    bool,
    Verdict,
);

fn run(rows: &[Row]) {
    let fx = Fixture::new();
    let mut failures = Vec::new();
    for (i, (rules, words, read_only, expect)) in rows.iter().enumerate() {
        let d = decide(&fx.policy(rules), words, *read_only);
        if d.verdict() != *expect {
            failures.push(format!(
                "#{i} t {words:?} (read_only {read_only}) with {rules:?}: expected {expect}, got {d}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const PROG: &str = "/usr/bin/prog";

#[test]
fn argv_patterns_allow_ask_and_deny() {
    run(&[
        // A final ` *` also matches the prefix alone; `:*` is read as ` *`.
        (
            &["allow t(prog read *)"],
            &[PROG, "read", "x"],
            false,
            Allow,
        ),
        (&["allow t(prog read *)"], &[PROG, "read"], false, Allow),
        (&["allow t(prog read:*)"], &[PROG, "read"], false, Allow),
        (&["allow t(prog read *)"], &[PROG, "write", "x"], false, Ask),
        (&["allow t(prog read *)"], &[PROG, "reader"], false, Ask),
        // The tool named whole, or `t(*)`: every argv.
        (&["allow t"], &[PROG, "anything", "at all"], false, Allow),
        (&["allow t(*)"], &[PROG, "anything"], false, Allow),
        (&["deny t"], &[PROG, "read"], false, Deny),
        // Ask rules ask, whatever allows.
        (
            &["allow t", "ask t(prog push *)"],
            &[PROG, "push"],
            false,
            Ask,
        ),
        // Rules of other tools, and Bash rules, do not apply.
        (&["allow u(prog read *)"], &[PROG, "read"], false, Ask),
        (&["allow Bash(prog read *)"], &[PROG, "read"], false, Ask),
        (&["allow Bash"], &[PROG, "read"], false, Ask),
        // Arguments are matched as they are quoted.
        (&["allow t(prog 'a b')"], &[PROG, "a b"], false, Allow),
        (&["allow t(prog 'a b')"], &[PROG, "a", "b"], false, Ask),
        (&["allow t(prog $'a\\nb')"], &[PROG, "a\nb"], false, Allow),
    ]);
}

#[test]
fn deny_beats_allow() {
    run(&[
        (
            &["allow t", "deny t(prog push *)"],
            &[PROG, "push", "origin"],
            false,
            Deny,
        ),
        (
            &["allow t", "deny t(prog push *)"],
            &[PROG, "status"],
            false,
            Allow,
        ),
        (
            &["allow t(prog *)", "deny t(/usr/bin/prog push *)"],
            &[PROG, "push"],
            false,
            Deny,
        ),
        // A deny in a weaker level still beats an allow in a stronger one.
        (
            &["allow@cli t(prog push *)", "deny@user t(prog push *)"],
            &[PROG, "push"],
            false,
            Deny,
        ),
        (
            &["mode bypassPermissions", "deny t(prog push *)"],
            &[PROG, "push"],
            false,
            Deny,
        ),
    ]);
}

#[test]
fn the_program_by_its_file_name_or_its_absolute_path() {
    run(&[
        (&["allow t(prog read *)"], &[PROG, "read"], false, Allow),
        (
            &["allow t(/usr/bin/prog read *)"],
            &[PROG, "read"],
            false,
            Allow,
        ),
        // A path names that program only; a file name, any of that name.
        (
            &["allow t(/usr/bin/prog read *)"],
            &["/opt/prog", "read"],
            false,
            Ask,
        ),
        (
            &["allow t(prog read *)"],
            &["/opt/prog", "read"],
            false,
            Allow,
        ),
        (
            &["deny t(prog read *)"],
            &["/opt/prog", "read"],
            false,
            Deny,
        ),
        (&["allow t(bin/prog read *)"], &[PROG, "read"], false, Ask),
        // A path that needs quoting is quoted, its file name too.
        (
            &["allow t('run it' x)"],
            &["/opt/my tools/run it", "x"],
            false,
            Allow,
        ),
        (
            &["allow t('/opt/my tools/run it' x)"],
            &["/opt/my tools/run it", "x"],
            false,
            Allow,
        ),
    ]);
}

/// What a pattern allows is what it reads as, never more: an argument that
/// holds a space, a quote, a newline or shell syntax is one quoted word.
#[test]
fn an_argument_cannot_make_a_pattern_match_more_than_intended() {
    let exact: &[&str] = &["allow t(prog deploy staging)"];
    let read: &[&str] = &["allow t(prog read *)"];
    let tail: &[&str] = &["deny t(prog * --force)", "allow t"];
    run(&[
        (exact, &[PROG, "deploy", "staging"], false, Allow),
        (exact, &[PROG, "deploy staging"], false, Ask),
        (exact, &[PROG, "deploy", "staging", "--force"], false, Ask),
        (exact, &[PROG, "deploy", "staging --force"], false, Ask),
        (exact, &[PROG, "deploy", "staging\n"], false, Ask),
        (exact, &[PROG, "deploy", "staging\u{202e}"], false, Ask),
        (exact, &[PROG, "deploy", "'staging'"], false, Ask),
        (exact, &[PROG, "deploy", ""], false, Ask),
        // `read x; rm -rf /` is one argument: not the subcommand `read`.
        (read, &[PROG, "read x; rm -rf /"], false, Ask),
        (read, &[PROG, "read\nrm -rf /"], false, Ask),
        (read, &[PROG, "read'", "x"], false, Ask),
        // After `read`, any arguments: that is what `*` says (no shell
        // runs them).
        (read, &[PROG, "read", "x; rm -rf /"], false, Allow),
        (&["allow t(prog read*)"], &[PROG, "read x"], false, Ask),
        // A word that ends a deny pattern is a whole word, never the end of
        // a quoted one.
        (tail, &[PROG, "x", "--force"], false, Deny),
        (tail, &[PROG, "x --force"], false, Allow),
        (tail, &[PROG, "x", "a' --force"], false, Allow),
    ]);
}

#[test]
fn modes() {
    run(&[
        (&[], &[PROG, "read"], false, Ask),
        (&["mode dontAsk"], &[PROG, "read"], false, Deny),
        (
            &["mode dontAsk", "allow t(prog read *)"],
            &[PROG, "read"],
            false,
            Allow,
        ),
        (&["mode dontAsk", "ask t"], &[PROG, "read"], false, Deny),
        (&["mode bypassPermissions"], &[PROG, "read"], false, Allow),
        (
            &["mode bypassPermissions", "ask t"],
            &[PROG, "read"],
            false,
            Ask,
        ),
        (&["mode acceptEdits"], &[PROG, "read"], false, Ask),
        // Plan mode: a read-only command tool is as a read-only tool...
        (&["mode plan"], &[PROG, "read"], true, Ask),
        (
            &["mode plan", "allow t(prog read *)"],
            &[PROG, "read"],
            true,
            Allow,
        ),
        (
            &["mode plan", "deny t(prog read *)"],
            &[PROG, "read"],
            true,
            Deny,
        ),
        // ...any other is denied, allowed or not.
        (&["mode plan"], &[PROG, "read"], false, Deny),
        (&["mode plan", "allow t"], &[PROG, "read"], false, Deny),
    ]);
}

#[test]
fn the_decision_names_the_argv_and_suggests_the_tool() {
    let fx = Fixture::new();
    let asked = decide(&fx.policy(&[]), &[PROG, "log", "-n", "5", "a b"], false);
    let why = asked.why();
    assert_eq!(why.subject, "t(prog log -n 5 'a b')");
    assert_eq!(why.suggestions, ["t"]);
    let message = asked.clone().without_tty().message();
    assert!(message.contains("t(prog log -n 5 'a b')"), "{message}");
    assert!(message.contains("`t`"), "{message}");

    let denied = decide(
        &fx.policy(&["allow t", "deny t(prog log *)"]),
        &[PROG, "log"],
        false,
    );
    assert!(
        matches!(&denied.why().decided_by, DecidedBy::Rule { rule, .. } if rule == "t(prog log *)"),
        "{denied}"
    );
    assert!(denied.message().contains("deny rule `t(prog log *)`"));

    let plan = decide(&fx.policy(&["mode plan", "allow t"]), &[PROG, "log"], false);
    assert!(plan.message().contains("plan mode"), "{}", plan.message());
}

#[test]
fn an_empty_argv_is_never_allowed() {
    let fx = Fixture::new();
    assert_eq!(decide(&fx.policy(&["allow t"]), &[], false).verdict(), Ask);
    assert_eq!(decide(&fx.policy(&["deny t"]), &[], false).verdict(), Deny);
}

/// A call of `t` that names no argv (the tool built none from its input)
/// cannot be checked against `t(…)` deny and ask rules: it is asked.
#[test]
fn a_call_without_an_argv_meets_its_argv_rules_as_unknown() {
    let fx = Fixture::new();
    let no_argv = |rules: &[&str]| {
        let policy = fx.policy(rules);
        let req = Request::resolve("t", &json!({}), &fx.project, &policy);
        evaluate(&req, &policy).verdict()
    };
    assert_eq!(no_argv(&["allow t", "deny t(prog push *)"]), Ask);
    assert_eq!(no_argv(&["mode dontAsk", "allow t", "ask t(prog x)"]), Deny);
    assert_eq!(no_argv(&["allow t", "deny t"]), Deny);
    assert_eq!(no_argv(&["allow t", "allow t(prog read *)"]), Allow);
    assert_eq!(no_argv(&["allow t(prog read *)"]), Ask);
}

#[test]
fn rule_examples_are_argvs_written_as_shell_words() {
    let build = |matches: &[&str], not_matches: &[&str]| {
        let mut entry = RuleEntry::new("t(prog read *)", RuleKind::Allow, Source::code());
        entry.matches = argv(matches);
        entry.not_matches = argv(not_matches);
        PolicyBuilder::new("/w").lexical_only().rule(entry).build()
    };
    build(
        &["/usr/bin/prog read x", "prog read", "prog read 'a b' \"c\""],
        &["prog 'read x'", "prog write", "'prog read'"],
    )
    .unwrap();
    let err = build(&["prog 'read x'"], &[]).unwrap_err().to_string();
    assert!(err.contains("prog 'read x'"), "{err}");
    let err = build(&["prog read $X"], &[]).unwrap_err().to_string();
    assert!(err.contains("argv"), "{err}");
}

#[test]
fn explain_reads_a_command_tools_argv() {
    let fx = Fixture::new();
    let policy = fx.policy(&["allow t(prog read *)", "deny t(prog read secret *)"]);
    let e = explain("t(/usr/bin/prog read 'a b')", &policy, &fx.project).unwrap();
    assert_eq!(e.decision.verdict(), Allow);
    assert_eq!(e.argv, Some(argv(&[PROG, "read", "a b"])));
    let text = e.to_string();
    assert!(text.contains("runs: /usr/bin/prog read 'a b'"), "{text}");
    let e = explain("t(/usr/bin/prog read secret x)", &policy, &fx.project).unwrap();
    assert_eq!(e.decision.verdict(), Deny);
    for bad in ["t(prog $X)", "t(prog *)", "t(a | b)", "TodoWrite(x)"] {
        let err = explain(bad, &policy, &fx.project).unwrap_err();
        assert!(err.to_string().contains(bad), "{err}");
    }
}

/// Reads a line written by `command_text` back into words, by the quoting
/// rules it documents (bare words, `'…'` with `'\''`, `$'…'`).
fn read_back(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut chars = text.chars().peekable();
    if text.is_empty() {
        return Some(words);
    }
    loop {
        let mut word = String::new();
        let mut any = false;
        while let Some(&c) = chars.peek() {
            match c {
                ' ' => break,
                '\'' => {
                    chars.next();
                    loop {
                        match chars.next()? {
                            '\'' => break,
                            c => word.push(c),
                        }
                    }
                }
                '\\' => {
                    chars.next();
                    word.push(chars.next()?);
                }
                '$' => {
                    chars.next();
                    if chars.next()? != '\'' {
                        return None;
                    }
                    loop {
                        match chars.next()? {
                            '\'' => break,
                            '\\' => {
                                let e = chars.next()?;
                                let hex = |n: usize, chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                                    let digits: String = (0..n).filter_map(|_| chars.next()).collect();
                                    u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32)
                                };
                                word.push(match e {
                                    'n' => '\n',
                                    't' => '\t',
                                    'r' => '\r',
                                    'e' => '\x1b',
                                    'a' => '\x07',
                                    'b' => '\x08',
                                    'v' => '\x0b',
                                    'f' => '\x0c',
                                    '\\' | '\'' => e,
                                    'x' => hex(2, &mut chars)?,
                                    'u' => hex(4, &mut chars)?,
                                    'U' => hex(8, &mut chars)?,
                                    _ => return None,
                                });
                            }
                            c => word.push(c),
                        }
                    }
                }
                c => {
                    chars.next();
                    word.push(c);
                }
            }
            any = true;
        }
        if !any {
            return None;
        }
        words.push(word);
        match chars.next() {
            None => return Some(words),
            Some(' ') => {}
            Some(_) => return None,
        }
    }
}

/// Any characters, with the ones quoting is about and the words the
/// patterns name over-represented (`read x`, `deploy' staging`, …).
fn word() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        " ",
        "'",
        "\"",
        "\\",
        "$",
        "\n",
        "\t",
        "\0",
        "\x1b",
        "\x7f",
        "\u{85}",
        "\u{202e}",
        "\u{e0041}",
        "*",
        "~",
        "x",
        "7",
        "=",
        "-",
        "/",
        "é",
        "prog",
    ])
    .prop_map(str::to_string);
    let named = prop::sample::select(vec!["read", "deploy", "staging", " ", "'", "x"])
        .prop_map(str::to_string);
    let piece = prop_oneof![
        3 => named,
        2 => special,
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..5).prop_map(|pieces| pieces.concat())
}

fn words() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(word(), 0..6)
}

proptest! {
    /// The line reads back as the argv, so two argvs never share a line.
    #[test]
    fn the_line_is_unambiguous(a in words(), b in words()) {
        let text = command_text(&a);
        prop_assert_eq!(read_back(&text), Some(a.clone()), "{}", text);
        if a != b {
            prop_assert_ne!(text, command_text(&b));
        }
    }

    /// `t(prog read *)` allows exactly the argvs whose second word is
    /// `read`; `t(prog deploy staging)` exactly one argv.
    #[test]
    fn a_pattern_allows_what_it_reads_as(rest in words()) {
        let policy = PolicyBuilder::new("/w")
            .lexical_only()
            .allow("t(prog read *)")
            .allow("t(prog deploy staging)")
            .build()
            .unwrap();
        for first in [vec![], vec!["read".to_string()], vec!["deploy".to_string()]] {
            let mut call = vec![PROG.to_string()];
            call.extend(first);
            call.extend(rest.iter().cloned());
            let req = Request::command("t", &json!({}), call.clone(), false, "/w".as_ref(), &policy);
            let allowed = evaluate(&req, &policy).is_allow();
            let intended = call.get(1).map(String::as_str) == Some("read")
                || call == argv(&[PROG, "deploy", "staging"]);
            prop_assert_eq!(allowed, intended, "{:?}", call);
        }
    }
}

/// A deny or ask rule on a command tool meets the options it names however
/// the argv spells them, as Bash rules do; allow rules match as written.
#[test]
fn deny_and_ask_rules_meet_options_however_the_argv_spells_them() {
    const RULES: &[&str] = &["allow t", "deny t(git push --force *)", "ask t(rm -rf *)"];
    run(&[
        (
            RULES,
            &["git", "push", "--force", "origin", "main"],
            false,
            Deny,
        ),
        (RULES, &["git", "push", "-f", "origin", "main"], false, Deny),
        (
            RULES,
            &["git", "push", "origin", "main", "--force"],
            false,
            Deny,
        ),
        (
            RULES,
            &["/usr/bin/git", "push", "origin", "+main"],
            false,
            Deny,
        ),
        (RULES, &["git", "push", "origin", "main"], false, Allow),
        (RULES, &["rm", "-fr", "build"], false, Ask),
        (
            RULES,
            &["rm", "--recursive", "--force", "build"],
            false,
            Ask,
        ),
        (RULES, &["rm", "-r", "build"], false, Allow),
        // A word holding a space is one word, never an option.
        (RULES, &["rm", "-r -f", "build"], false, Allow),
        (
            &["allow t(git push *)"],
            &["git", "push", "-f", "origin", "main"],
            false,
            Allow,
        ),
        (
            &["allow t(rm -r build)"],
            &["rm", "-rf", "build"],
            false,
            Ask,
        ),
    ]);
}

/// What a command tool's argv names meets the path and domain rules, read
/// as Bash reads the same command line: `cat_file {path: ".env"}` running
/// `cat .env` is refused under `deny Read(./.env)` as `cat .env` is, though
/// the tool itself is allowed.
#[test]
fn the_files_and_hosts_an_argv_names_meet_the_rules() {
    const RULES: &[&str] = &[
        "allow t",
        "deny Read(./.env)",
        "deny Edit(./protected/**)",
        "deny WebFetch(domain:evil.com)",
    ];
    run(&[
        (RULES, &["/bin/cat", ".env"], true, Deny),
        (
            RULES,
            &["/usr/bin/git", "log", "-p", "--", ".env"],
            true,
            Deny,
        ),
        (RULES, &["/usr/bin/grep", "-r", "KEY", "."], true, Deny),
        (
            RULES,
            &["/usr/bin/sort", "-o", "protected/x", "a.txt"],
            false,
            Deny,
        ),
        (
            RULES,
            &["/usr/bin/curl", "-s", "https://evil.com/x"],
            true,
            Deny,
        ),
        (
            RULES,
            &["/usr/bin/prettier", "--write", "protected/a.js"],
            false,
            Ask,
        ),
        // A value that only looks like a command is one word.
        (RULES, &["/bin/echo", "cat .env"], true, Allow),
        (RULES, &["/bin/cat", "a.txt"], true, Allow),
        (
            RULES,
            &["/usr/bin/curl", "-s", "https://ok.org/x"],
            true,
            Allow,
        ),
        (&["allow t"], &["/bin/cat", ".env"], true, Allow),
    ]);
}

/// A command tool's argv that writes outside the working directories is
/// asked, as the same command line is under a Bash allow rule for its
/// program: allowing the tool allows what it is for, not every option of
/// its program (`sort --output=/anywhere`, `tar -C /anywhere`). An Edit
/// rule or an added directory allows it; inside, the declared tool's
/// writes stay allowed, and reads outside are as Bash's.
#[test]
fn an_argv_writing_outside_the_working_directories_is_asked() {
    let fx = Fixture::new();
    let rows: &[(&[&str], &[&str], bool, Verdict)] = &[
        (
            &["allow t"],
            &["/usr/bin/sort", "--output={root}/outside/x", "--", "a.txt"],
            false,
            Ask,
        ),
        (
            &["allow t"],
            &["/usr/bin/sort", "-o", "{root}/outside/x", "a.txt"],
            false,
            Ask,
        ),
        (
            &["allow t"],
            &["/usr/bin/sort", "-o", "{home}/.profile_x", "a.txt"],
            false,
            Ask,
        ),
        (
            &["allow t"],
            &["/usr/bin/tee", "{root}/outside/x"],
            false,
            Ask,
        ),
        (
            &["allow t"],
            &["/usr/bin/tar", "-xf", "a.tar", "-C", "{root}/outside"],
            false,
            Ask,
        ),
        (
            &["allow t", "mode acceptEdits"],
            &["/usr/bin/sort", "-o", "{root}/outside/x", "a.txt"],
            false,
            Ask,
        ),
        (
            &["allow t", "mode dontAsk"],
            &["/usr/bin/sort", "-o", "{root}/outside/x", "a.txt"],
            false,
            Deny,
        ),
        // What allows the write outside.
        (
            &["allow t", "allow Edit(/{root}/outside/**)"],
            &["/usr/bin/sort", "-o", "{root}/outside/x", "a.txt"],
            false,
            Allow,
        ),
        (
            &["allow t", "dir {root}/outside"],
            &["/usr/bin/sort", "-o", "{root}/outside/x", "a.txt"],
            false,
            Allow,
        ),
        (
            &["allow t", "mode bypassPermissions"],
            &["/usr/bin/sort", "-o", "{root}/outside/x", "a.txt"],
            false,
            Allow,
        ),
        // Unchanged: writes inside, reads anywhere.
        (
            &["allow t"],
            &["/usr/bin/sort", "-o", "out/x", "a.txt"],
            false,
            Allow,
        ),
        (
            &["allow t"],
            &["/usr/bin/tar", "-xf", "a.tar", "-C", "out"],
            false,
            Allow,
        ),
        (
            &["allow t"],
            &["/usr/bin/sort", "{root}/outside/file.txt"],
            true,
            Allow,
        ),
        (&["allow t"], &["/bin/cat", "{home}/.zshrc"], true, Allow),
    ];
    let mut failures = Vec::new();
    for (rules, words, read_only, expect) in rows {
        let words: Vec<String> = words.iter().map(|w| fx.expand(w)).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let d = decide(&fx.policy(rules), &words, *read_only);
        if d.verdict() != *expect {
            failures.push(format!(
                "t {words:?} with {rules:?}: expected {expect}, got {d}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A command tool's line too large to read whole reads, writes and reaches
/// what is unknown: asked under path and domain rules, not allowed by the
/// tool's own rule (round 11: `sed '1r secrets/key' …` with 70 KB more).
#[test]
fn a_command_tools_argv_too_large_to_read_is_asked_under_path_rules() {
    let fx = Fixture::new();
    let script = format!("1r secrets/key\n#{}", "x".repeat(70_000));
    let policy = fx.policy(&["allow t", "deny Read(./secrets/**)"]);
    let d = decide(&policy, &["sed", &script, "README.md"], false);
    assert_eq!(d.verdict(), Ask, "{d}");
    let mut words = vec!["cat"];
    words.extend(std::iter::repeat_n("README.md", 20_000));
    words.push("secrets/key");
    let d = decide(&policy, &words, false);
    assert_ne!(d.verdict(), Allow, "{d}");
    let plain = fx.policy(&["allow t"]);
    let d = decide(&plain, &["sed", &script, "README.md"], false);
    assert_eq!(d.verdict(), Allow, "{d}");
}
