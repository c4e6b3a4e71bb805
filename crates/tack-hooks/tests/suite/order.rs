//! Defined behaviour where Claude Code runs hooks in parallel: declared order
//! (user, project, local; file order), chained rewrites, strictest decision,
//! no hooks after a deny, identical commands once.

use serde_json::json;
use tack_hooks::Verdict;

use super::support::{Project, bash_input, cmd, many, pre, settings};

#[tokio::test]
async fn hooks_run_in_declared_order_across_files() {
    let p = Project::new();
    let user = settings("PreToolUse", Some("Bash"), vec![cmd(&p.logs("u", "user"))]);
    let project = settings("PreToolUse", None, vec![cmd(&p.logs("p", "project"))]);
    let local = json!({"hooks": {"PreToolUse": [
        {"matcher": "*", "hooks": [cmd(&p.logs("l1", "local-1")), cmd(&p.logs("l2", "local-2"))]},
        {"matcher": "Bash|Read", "hooks": [cmd(&p.logs("l3", "local-3"))]}
    ]}});
    let hooks = many(&[
        ("user.json", user),
        ("project.json", project),
        ("local.json", local),
    ]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    assert_eq!(
        p.log(),
        ["user", "project", "local-1", "local-2", "local-3"]
    );
    let sources: Vec<_> = out.runs.iter().map(|r| r.hook.source.as_str()).collect();
    assert_eq!(
        sources,
        [
            "user.json",
            "project.json",
            "local.json",
            "local.json",
            "local.json"
        ]
    );
}

#[tokio::test]
async fn each_hook_sees_the_input_rewritten_by_the_one_before() {
    let p = Project::new();
    let rewrite = |name: &str, suffix: &str| {
        p.py(
            name,
            &format!(
                r#"open(os.path.join(OUT, "{name}.stdin"), "w").write(json.dumps(data))
new = dict(data["tool_input"])
new["command"] = new["command"] + " {suffix}"
print(json.dumps({{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "updatedInput": new}}}}))"#
            ),
        )
    };
    let first = rewrite("one", "--one");
    let second = rewrite("two", "--two");
    let hooks = pre(vec![cmd(&first), cmd(&second)]);

    let out = hooks
        .pre_tool_use(
            &p.ctx(),
            "Bash",
            "t1",
            &json!({"command": "make", "timeout": 5}),
        )
        .await;

    assert_eq!(
        p.read_json("one.stdin")["tool_input"],
        json!({"command": "make", "timeout": 5})
    );
    assert_eq!(
        p.read_json("two.stdin")["tool_input"],
        json!({"command": "make --one", "timeout": 5})
    );
    assert_eq!(
        out.updated_input,
        Some(json!({"command": "make --one --two", "timeout": 5}))
    );
    let by: Vec<_> = out
        .rewritten_by
        .iter()
        .map(|h| h.command.as_str())
        .collect();
    assert_eq!(by, [first.as_str(), second.as_str()]);
}

fn decides(p: &Project, name: &str, decision: &str) -> String {
    p.prints(
        name,
        &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": decision, "permissionDecisionReason": name}}),
    )
}

#[tokio::test]
async fn the_strictest_decision_wins() {
    let p = Project::new();
    let allow = decides(&p, "allow-1", "allow");
    let ask = decides(&p, "ask-1", "ask");
    let allow2 = decides(&p, "allow-2", "allow");
    let ask2 = decides(&p, "ask-2", "ask");
    let hooks = pre(vec![cmd(&allow), cmd(&ask), cmd(&allow2), cmd(&ask2)]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    let d = out.decision.unwrap();
    assert_eq!(d.decision, Verdict::Ask);
    assert_eq!(
        d.hook.command, ask,
        "the first hook to reach the strictest level decides"
    );
    assert_eq!(d.reason.as_deref(), Some("ask-1"));
    assert_eq!(out.runs.len(), 4, "allow and ask do not stop the chain");
}

#[tokio::test]
async fn deny_beats_earlier_allow_and_ask_and_later_hooks_do_not_run() {
    let p = Project::new();
    let hooks = pre(vec![
        cmd(&decides(&p, "allow", "allow")),
        cmd(&decides(&p, "ask", "ask")),
        cmd(&decides(&p, "deny", "deny")),
        cmd(&p.logs("after", "after-deny")),
    ]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    let d = out.decision.unwrap();
    assert_eq!(
        (d.decision, d.reason.as_deref()),
        (Verdict::Deny, Some("deny"))
    );
    assert_eq!(out.runs.len(), 3);
    assert!(p.log().is_empty(), "no PreToolUse hook runs after a deny");
}

#[test]
fn decisions_order_by_strictness() {
    use Verdict::*;
    assert!(Allow < Ask && Ask < Deny);
    assert_eq!([Allow, Deny, Ask].into_iter().max(), Some(Deny));
}

#[tokio::test]
async fn identical_commands_run_once_and_keep_fail_closed() {
    let p = Project::new();
    let same = p.logs("same", "ran");
    let user = settings("PreToolUse", None, vec![cmd(&same)]);
    let project = settings(
        "PreToolUse",
        Some("Bash"),
        vec![json!({"type": "command", "command": same, "failClosed": true})],
    );
    let hooks = many(&[("user.json", user), ("project.json", project)]);

    let found = hooks.matching(tack_hooks::HookEvent::PreToolUse, "Bash");
    assert_eq!(found.len(), 1);
    assert!(found[0].fail_closed);
    assert_eq!(found[0].hook.source, "user.json");

    hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;
    assert_eq!(p.log(), ["ran"]);
}

#[tokio::test]
async fn managed_hooks_run_last_even_when_another_file_copies_them() {
    let p = Project::new();
    let admin = p.logs("m", "managed");
    let user = settings(
        "PreToolUse",
        None,
        vec![cmd(&admin), cmd(&p.logs("u", "user"))],
    );
    let local = settings("PreToolUse", None, vec![cmd(&p.logs("l", "local"))]);
    let managed = settings("PreToolUse", Some("Bash"), vec![cmd(&admin)]);
    let hooks = tack_hooks::Hooks::from_settings_with_managed(
        &[
            ("user.json".to_owned(), &user),
            ("local.json".to_owned(), &local),
        ],
        &[("managed.json".to_owned(), &managed)],
    )
    .unwrap();

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    // The administrator's hook judges the input after every other hook, once.
    assert_eq!(p.log(), ["user", "local", "managed"]);
    let sources: Vec<_> = out.runs.iter().map(|r| r.hook.source.as_str()).collect();
    assert_eq!(sources, ["user.json", "local.json", "managed.json"]);
}
