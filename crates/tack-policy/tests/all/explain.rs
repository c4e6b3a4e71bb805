//! What a person and the model read: `tack permissions explain`, its JSON,
//! and the messages of denials.

use serde_json::json;
use tack_policy::{CliPermissions, LoadOptions, Settings, Verdict, explain};

use crate::support::Fixture;

fn settings(fx: &Fixture) -> Settings {
    let path = fx.project.join(".tack/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        json!({"permissions": {
            "allow": ["Bash(cd *)", "Bash(ls *)", "Bash(git status)"],
            "ask": ["Bash(git push *)"],
            "deny": ["Bash(rm *)", "Edit(./secrets/**)", "Agent(Explore)"]}})
        .to_string(),
    )
    .unwrap();
    Settings::load_with(&LoadOptions {
        project_root: fx.project.clone(),
        home: Some(fx.home.clone()),
        cli: CliPermissions::default(),
        ..LoadOptions::default()
    })
    .unwrap()
}

fn mask(fx: &Fixture, s: &str) -> String {
    s.replace(&fx.root.display().to_string(), "[ROOT]")
}

#[test]
fn explain_a_compound_command() {
    let fx = Fixture::new();
    let s = settings(&fx);
    let e = explain(
        "Bash(cd src && rm -rf build; git status > secrets/log)",
        s.policy(),
        &fx.project,
    )
    .unwrap();
    assert_eq!(e.decision.verdict(), Verdict::Deny);
    insta::assert_snapshot!("explain_compound_text", mask(&fx, &e.to_string()));
    let json = serde_json::to_string_pretty(&e).unwrap();
    insta::assert_snapshot!("explain_compound_json", mask(&fx, &json));
}

#[test]
fn explain_an_ask_says_what_would_allow_it() {
    let fx = Fixture::new();
    let s = settings(&fx);
    let e = explain("Bash(ls && npm publish)", s.policy(), &fx.project).unwrap();
    assert_eq!(e.decision.verdict(), Verdict::Ask);
    assert_eq!(e.without_tty.verdict(), Verdict::Deny);
    insta::assert_snapshot!("explain_ask_text", mask(&fx, &e.to_string()));
}

#[test]
fn model_messages() {
    let fx = Fixture::new();
    let s = settings(&fx);
    let message = |spec: &str| {
        let e = explain(spec, s.policy(), &fx.project).unwrap();
        mask(&fx, &e.without_tty.message())
    };
    insta::assert_snapshot!("message_deny_rule", message("Bash(cd x && rm -rf y)"));
    insta::assert_snapshot!(
        "message_ask_rule_headless",
        message("Bash(git push origin main)")
    );
    insta::assert_snapshot!("message_no_rule_headless", message("Bash(npm publish)"));
    insta::assert_snapshot!("message_uncertain_headless", message("Bash($CMD x)"));
    insta::assert_snapshot!("message_edit_headless", message("Write(notes.txt)"));
}

#[test]
fn explain_reads_paths_urls_and_names() {
    let fx = Fixture::new();
    let s = settings(&fx);
    let p = s.policy();
    let v = |spec: &str| explain(spec, p, &fx.project).unwrap().decision.verdict();
    assert_eq!(v("Read(src/main.rs)"), Verdict::Allow);
    assert_eq!(v("Edit(secrets/x)"), Verdict::Deny);
    assert_eq!(v("WebFetch(domain:example.com)"), Verdict::Ask);
    assert_eq!(v("mcp__db__query"), Verdict::Ask);
    assert_eq!(v("TodoWrite"), Verdict::Allow);
    // Claude Code's `Agent(type)` rule, explained by type or by the call's input.
    assert_eq!(v("Agent(Explore)"), Verdict::Deny);
    assert_eq!(
        v(r#"Agent({"subagent_type": "Explore", "prompt": "p", "description": "d"})"#),
        Verdict::Deny
    );
    assert_eq!(v("Task(Explore)"), Verdict::Deny);
    assert_eq!(v("Agent(reviewer)"), Verdict::Allow);
    assert_eq!(v(r#"Agent({"prompt": "p"})"#), Verdict::Allow);
    // `Foo(x)` is a command tool's argv: see `command_tools`.
    for bad in ["Bash", "Read", "TodoWrite(x)", "Foo($X)", "Bash(ls", "(x)"] {
        let err = explain(bad, p, &fx.project).unwrap_err();
        assert!(err.to_string().contains(bad), "{err}");
    }
}
