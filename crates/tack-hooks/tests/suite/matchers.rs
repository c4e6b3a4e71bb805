//! Matchers: `*`/""/omitted match everything; letters, digits, `_`, `-`, `|`
//! are exact names or a list; anything else is an unanchored regex.

use serde_json::json;
use tack_hooks::{HookEvent, Hooks, Matcher};

use super::support::{Project, bash_input, cmd, one, settings};

fn selects(matcher: Option<&str>, tool: &str) -> bool {
    let hooks = one(settings("PreToolUse", matcher, vec![cmd("true")]));
    !hooks.matching(HookEvent::PreToolUse, tool).is_empty()
}

#[test]
fn exact_names() {
    assert!(selects(Some("Bash"), "Bash"));
    assert!(!selects(Some("Bash"), "BashOutput"));
    assert!(!selects(Some("Bash"), "bash"));
    assert!(!selects(Some("Write"), "NotebookWrite"));
}

#[test]
fn lists_of_exact_names() {
    assert!(selects(Some("Edit|Write"), "Edit"));
    assert!(selects(Some("Edit|Write"), "Write"));
    assert!(!selects(Some("Edit|Write"), "Read"));
    assert!(!selects(Some("Edit|Write"), "MultiEdit"));
}

#[test]
fn everything_matchers() {
    for m in [Some("*"), Some(""), None] {
        assert!(selects(m, "Bash"), "{m:?}");
        assert!(selects(m, "mcp__github__create_issue"), "{m:?}");
    }
    let hooks = one(json!({"hooks": {"PreToolUse": [{"matcher": null, "hooks": [cmd("true")]}]}}));
    assert_eq!(hooks.matching(HookEvent::PreToolUse, "Read").len(), 1);
}

#[test]
fn regexes_are_unanchored() {
    assert!(selects(Some("Notebook.*"), "NotebookEdit"));
    assert!(
        selects(Some("Edit.*"), "MultiEdit"),
        "unanchored: found inside the name"
    );
    assert!(!selects(Some("^Edit.*"), "MultiEdit"));
    assert!(selects(Some("^Bash$"), "Bash"));
    assert!(!selects(Some("^Bash$"), "BashOutput"));
}

#[test]
fn mcp_tool_names() {
    assert!(selects(
        Some("mcp__memory__.*"),
        "mcp__memory__create_entities"
    ));
    assert!(!selects(
        Some("mcp__memory__.*"),
        "mcp__github__create_issue"
    ));
    assert!(selects(Some("mcp__.*__write.*"), "mcp__fs__write_file"));
    // Hyphens keep it an exact name: not a prefix match.
    assert!(selects(
        Some("mcp__my-server__do_thing"),
        "mcp__my-server__do_thing"
    ));
    assert!(!selects(
        Some("mcp__my-server__do_thing"),
        "mcp__my-server__do_thing2"
    ));
}

#[test]
fn matcher_kinds_are_classified_as_claude_code_does() {
    assert!(matches!(Matcher::parse("*").unwrap(), Matcher::All));
    assert!(matches!(Matcher::parse("").unwrap(), Matcher::All));
    assert!(
        matches!(Matcher::parse("Edit|Write").unwrap(), Matcher::Names(n) if n == ["Edit", "Write"])
    );
    assert!(matches!(
        Matcher::parse("mcp__a-b__c_1").unwrap(),
        Matcher::Names(_)
    ));
    assert!(matches!(
        Matcher::parse("Edit.*").unwrap(),
        Matcher::Regex(_)
    ));
    assert!(Matcher::parse("[").is_err());
}

#[test]
fn events_without_matchers_ignore_the_matcher() {
    let hooks = one(settings(
        "UserPromptSubmit",
        Some("Bash"),
        vec![cmd("true")],
    ));
    assert_eq!(hooks.matching(HookEvent::UserPromptSubmit, "").len(), 1);
    let hooks = one(settings("Stop", Some("nothing"), vec![cmd("true")]));
    assert_eq!(hooks.matching(HookEvent::Stop, "").len(), 1);
}

#[tokio::test]
async fn only_matching_groups_run() {
    let p = Project::new();
    let hooks = Hooks::from_settings(&[(
        "s.json".to_owned(),
        &json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [cmd(&p.logs("a", "bash"))]},
            {"matcher": "Edit|Write", "hooks": [cmd(&p.logs("b", "edit-write"))]},
            {"matcher": "mcp__.*", "hooks": [cmd(&p.logs("c", "mcp"))]},
            {"hooks": [cmd(&p.logs("d", "all"))]}
        ]}}),
    )])
    .unwrap();
    let ctx = p.ctx();

    hooks.pre_tool_use(&ctx, "Write", "t1", &json!({})).await;
    hooks
        .pre_tool_use(&ctx, "mcp__memory__read", "t2", &json!({}))
        .await;
    hooks.pre_tool_use(&ctx, "Bash", "t3", &bash_input()).await;

    assert_eq!(p.log(), ["edit-write", "all", "mcp", "all", "bash", "all"]);
}
