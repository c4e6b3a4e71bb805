//! Property tests over the rule parser and the shell analysis: no panics on
//! any input, no input judged in over a second or with over 100 MiB (see
//! [`crate::bounds`]), and a compound command is allowed only if each part
//! is.

use proptest::prelude::*;
use serde_json::json;
use tack_policy::{Policy, PolicyBuilder, Request, Verdict, evaluate};

fn policy() -> Policy {
    PolicyBuilder::new("/w/project")
        .home(Some("/w/home".into()))
        .allow("Bash(ls *)")
        .allow("Bash(echo *)")
        .allow("Bash(cat *)")
        .deny("Bash(rm *)")
        .deny("Edit(./secrets/**)")
        .lexical_only()
        .build()
        .unwrap()
}

fn decide(policy: &Policy, command: &str) -> Verdict {
    let req = Request::lexical(
        "Bash",
        &json!({"command": command}),
        "/w/project".as_ref(),
        policy,
    );
    evaluate(&req, policy).verdict()
}

/// Leaves: three allowed, one denied, one asked.
const LEAVES: &[&str] = &[
    "ls -la",
    "echo hi",
    "cat file",
    "rm -rf x",
    "git push origin",
];
const ALLOWED: usize = 3;
const DENIED: usize = 3;

/// A generated command structure.
#[derive(Debug, Clone)]
enum Cmd {
    Leaf(usize),
    Wrapped(usize, usize),
    List(Box<Cmd>, usize, Box<Cmd>),
    Subshell(Box<Cmd>),
    Group(Box<Cmd>),
    Substitution(Box<Cmd>),
    Backticks(usize),
    BashC(Box<Cmd>),
    Eval(Box<Cmd>),
    If(Box<Cmd>, Box<Cmd>),
    For(Box<Cmd>),
    Function(Box<Cmd>),
    ProcessSubstitution(Box<Cmd>),
}

const OPERATORS: &[&str] = &[" ; ", " && ", " || ", " | ", " & ", "\n"];
const WRAPPERS: &[&str] = &[
    "timeout 5 ",
    "env FOO=1 ",
    "nice -n 1 ",
    "command ",
    "nohup ",
    "FOO=1 ",
    "stdbuf -o0 ",
    "builtin ",
];

/// Pieces that nest, stay open or repeat: what made the parsers overflow
/// the stack, loop or backtrack exponentially.
const NASTY: &[&str] = &[
    "${",
    "}",
    "[",
    "]",
    "$(",
    ")",
    "$((",
    "))",
    "\"",
    "'",
    "x",
    ":-",
    "/",
    "#",
    "%",
    "@",
    "!",
    "`",
    "$[",
    "(",
    " ",
    "<<",
    "<<-",
    "''",
    "EOF\n",
    "\n",
    ";",
    "|",
    "&&",
    "{ ",
    "$'",
    "\\",
    "a[",
    "=",
    "if ",
    "case ",
    "\t",
    "<<<",
    "x)",
    "*",
    // Programs whose options write files or run commands.
    "sed ",
    "-i",
    "s/a/b/w ",
    "e ",
    "tar ",
    "-x",
    "-C ",
    "-f ",
    "git ",
    "grep ",
    "-O",
    "-c ",
    "curl ",
    "-o ",
    "find ",
    "-delete",
    "rm ",
    "-r ",
    "awk ",
    "{print > x}",
    "ssh ",
    "ProxyCommand=",
    "--output=",
    "--upload-pack=",
    "xargs ",
    "secrets/",
    "-- ",
];

fn nasty(pieces: &[usize]) -> String {
    pieces.iter().map(|&i| NASTY[i]).collect()
}

fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Cmd {
    fn render(&self) -> String {
        match self {
            Cmd::Leaf(i) => LEAVES[*i].to_string(),
            Cmd::Wrapped(w, i) => format!("{}{}", WRAPPERS[*w], LEAVES[*i]),
            Cmd::List(a, op, b) => format!("{}{}{}", a.render(), OPERATORS[*op], b.render()),
            // Never `((x))` (arithmetic in bash); brush-parser also reads
            // `( (x) )` as arithmetic (a false alarm: it asks), so the
            // subshell starts with a command.
            Cmd::Subshell(c) => format!("(echo; {})", c.render()),
            Cmd::Group(c) => format!("{{ {}; }}", c.render()),
            Cmd::Substitution(c) => format!("echo \"$( {} )\"", c.render()),
            Cmd::Backticks(i) => format!("echo `{}`", LEAVES[*i]),
            Cmd::BashC(c) => format!("bash -c {}", single_quote(&c.render())),
            Cmd::Eval(c) => format!("eval {}", single_quote(&c.render())),
            Cmd::If(a, b) => format!("if {}; then {}; fi", a.render(), b.render()),
            Cmd::For(c) => format!("for f in a b; do {}; done", c.render()),
            Cmd::Function(c) => format!("{{ f() {{ {}; }}; f; }}", c.render()),
            Cmd::ProcessSubstitution(c) => format!("cat <({})", c.render()),
        }
    }

    fn leaves(&self, out: &mut Vec<usize>) {
        match self {
            Cmd::Leaf(i) | Cmd::Wrapped(_, i) | Cmd::Backticks(i) => out.push(*i),
            Cmd::List(a, _, b) | Cmd::If(a, b) => {
                a.leaves(out);
                b.leaves(out);
            }
            Cmd::Subshell(c)
            | Cmd::Group(c)
            | Cmd::BashC(c)
            | Cmd::Eval(c)
            | Cmd::For(c)
            | Cmd::Function(c) => c.leaves(out),
            Cmd::Substitution(c) | Cmd::ProcessSubstitution(c) => {
                out.push(1); // the `echo` / `cat` around it
                c.leaves(out);
            }
        }
    }

    /// Parser nesting depth (each re-parsed string counts).
    fn depth(&self) -> usize {
        match self {
            Cmd::Leaf(_) | Cmd::Wrapped(..) => 0,
            Cmd::Backticks(_) => 1,
            Cmd::List(a, _, b) | Cmd::If(a, b) => a.depth().max(b.depth()),
            Cmd::Subshell(c) | Cmd::Group(c) | Cmd::For(c) | Cmd::Function(c) => c.depth(),
            Cmd::Substitution(c) | Cmd::BashC(c) | Cmd::Eval(c) | Cmd::ProcessSubstitution(c) => {
                1 + c.depth()
            }
        }
    }
}

fn cmd() -> impl Strategy<Value = Cmd> {
    let leaf = prop_oneof![
        (0..LEAVES.len()).prop_map(Cmd::Leaf),
        (0..WRAPPERS.len(), 0..LEAVES.len()).prop_map(|(w, i)| Cmd::Wrapped(w, i)),
        (0..LEAVES.len()).prop_map(Cmd::Backticks),
    ];
    leaf.prop_recursive(5, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), 0..OPERATORS.len(), inner.clone()).prop_map(|(a, op, b)| Cmd::List(
                Box::new(a),
                op,
                Box::new(b)
            )),
            inner.clone().prop_map(|c| Cmd::Subshell(Box::new(c))),
            inner.clone().prop_map(|c| Cmd::Group(Box::new(c))),
            inner.clone().prop_map(|c| Cmd::Substitution(Box::new(c))),
            inner.clone().prop_map(|c| Cmd::BashC(Box::new(c))),
            inner.clone().prop_map(|c| Cmd::Eval(Box::new(c))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cmd::If(Box::new(a), Box::new(b))),
            inner.clone().prop_map(|c| Cmd::For(Box::new(c))),
            inner.clone().prop_map(|c| Cmd::Function(Box::new(c))),
            inner.prop_map(|c| Cmd::ProcessSubstitution(Box::new(c))),
        ]
    })
}

proptest! {
    // 400 cases by default; PROPTEST_CASES=20000 for a longer run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(400),
        ..ProptestConfig::default()
    })]

    #[test]
    fn rule_parser_never_panics(text in any::<String>()) {
        let _ = PolicyBuilder::new("/w").lexical_only().allow(&text).build();
    }

    #[test]
    fn rule_parser_never_panics_on_rule_like_text(
        text in "(Bash|Read|Edit|WebFetch|mcp__[a-z_*]{0,6})(\\([ -~]{0,30}\\))?"
    ) {
        let _ = PolicyBuilder::new("/w").lexical_only().deny(&text).build();
    }

    #[test]
    fn shell_analysis_never_panics(command in any::<String>()) {
        let _ = decide(&policy(), &command);
    }

    #[test]
    fn shell_analysis_never_panics_on_shell_like_text(
        command in "[a-z $(){}`'\";&|<>\\\\\n*?=!#~\\[\\]-]{0,80}"
    ) {
        let _ = decide(&policy(), &command);
    }

    #[test]
    fn nasty_text_is_judged_within_bounds(
        pieces in proptest::collection::vec(0..NASTY.len(), 0..48)
    ) {
        crate::bounds::decide_within_bounds(&policy(), &nasty(&pieces));
    }

    #[test]
    fn nasty_nesting_is_judged_within_bounds(
        open in proptest::collection::vec(0..NASTY.len(), 1..4),
        middle in proptest::collection::vec(0..NASTY.len(), 0..3),
        close in proptest::collection::vec(0..NASTY.len(), 0..3),
        n in 1usize..3000,
    ) {
        let command = format!(
            "{}{}{}",
            nasty(&open).repeat(n),
            nasty(&middle),
            nasty(&close).repeat(n)
        );
        crate::bounds::decide_within_bounds(&policy(), &command);
    }

    #[test]
    fn compound_allowed_only_if_every_part_is(c in cmd()) {
        let p = policy();
        let text = c.render();
        let verdict = decide(&p, &text);
        let mut leaves = Vec::new();
        c.leaves(&mut leaves);
        if verdict == Verdict::Allow {
            for &i in &leaves {
                prop_assert_eq!(
                    decide(&p, LEAVES[i]), Verdict::Allow,
                    "{:?} allowed but its part {:?} is not", text, LEAVES[i]
                );
            }
        }
        if leaves.contains(&DENIED) {
            prop_assert_ne!(verdict, Verdict::Allow, "{:?} hides a denied part", text);
            if c.depth() < 7 {
                prop_assert_eq!(verdict, Verdict::Deny, "{:?} should be denied", text);
            }
        }
        // Completeness: nothing is refused that every part allows.
        if leaves.iter().all(|&i| i < ALLOWED) && c.depth() < 7 {
            prop_assert_eq!(verdict, Verdict::Allow, "{:?} should be allowed", text);
        }
    }
}
