//! Reading `hooks` from settings: Claude Code's shape, defaults, errors that
//! name file and path, tolerated unknowns.

use std::time::Duration;

use serde_json::{Value, json};
use tack_hooks::{DEFAULT_TIMEOUT, Error, HookEvent, Hooks};

use super::support::{Project, bash_input, cmd, many, one, settings};

fn error_of(file: &str, value: Value) -> String {
    match Hooks::from_settings(&[(file.to_owned(), &value)]) {
        Ok(_) => panic!("expected a configuration error for {value}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reads_claude_code_settings_with_defaults_and_extensions() {
    let hooks = one(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.hooks/a.sh", "timeout": 30},
            {"type": "command", "command": "b.sh", "failClosed": true},
            {"type": "command", "command": "c.sh", "timeout": 0.5, "async": false}
        ]}]}}),
    );

    let found = hooks.matching(HookEvent::PreToolUse, "Bash");
    let summary: Vec<_> = found
        .iter()
        .map(|h| (h.hook.command.as_str(), h.timeout, h.fail_closed))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "$CLAUDE_PROJECT_DIR/.hooks/a.sh",
                Duration::from_secs(30),
                false
            ),
            ("b.sh", DEFAULT_TIMEOUT, true),
            ("c.sh", Duration::from_millis(500), false),
        ]
    );
    assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(60));
    assert_eq!(found[1].hook.source, "project/settings.json");
    assert_eq!(found[1].hook.location, "hooks.PreToolUse[0].hooks[1]");
    assert!(hooks.has(HookEvent::PreToolUse));
    assert!(!hooks.has(HookEvent::Stop));
    assert!(hooks.warnings().is_empty());
}

#[test]
fn no_hooks_key_means_no_hooks() {
    let hooks = one(json!({"permissions": {"allow": ["Bash"]}}));
    assert!(hooks.is_empty());
    assert!(hooks.matching(HookEvent::PreToolUse, "Bash").is_empty());
}

#[test]
fn errors_name_the_file_and_the_json_path() {
    let cases = [
        (
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "ok.sh"}, {"type": "command"}]}]}}),
            "user.json: hooks.PreToolUse[0].hooks[1].command: missing",
        ),
        (
            json!({"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}),
            "user.json: hooks.PreToolUse[0].matcher: `(` is not a valid regular expression",
        ),
        (json!({"hooks": []}), "user.json: hooks: expected an object"),
        (
            json!({"hooks": {"Stop": {"hooks": []}}}),
            "user.json: hooks.Stop: expected an array",
        ),
        (
            json!({"hooks": {"Stop": [{"matcher": "x"}]}}),
            "user.json: hooks.Stop[0].hooks: missing",
        ),
        (
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}),
            "user.json: hooks.Stop[0].hooks[0].timeout: expected a number of seconds between 0 and 86400, found -1",
        ),
        (
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}}),
            "user.json: hooks.Stop[0].hooks[0].timeout: expected a number of seconds, found a string",
        ),
        (
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "failClosed": "yes"}]}]}}),
            "user.json: hooks.Stop[0].hooks[0].failClosed: expected true or false",
        ),
        (
            json!({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}),
            "user.json: hooks.Stop[0].hooks[0].type: missing",
        ),
        (
            json!({"hooks": {"Stop": [{"matcher": 3, "hooks": []}]}}),
            "user.json: hooks.Stop[0].matcher: expected a string",
        ),
        (json!([1]), "user.json: (top level): expected a JSON object"),
    ];
    for (value, expected) in cases {
        let message = error_of("user.json", value.clone());
        assert!(
            message.starts_with(expected),
            "for {value}\n  got:  {message}\n  want: {expected}…"
        );
    }
}

#[test]
fn config_error_is_structured() {
    let value = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ""}]}]}});
    let err = Hooks::from_settings(&[("local.json".to_owned(), &value)]).unwrap_err();
    let Error::Config { file, path, .. } = err else {
        panic!("unexpected error {err:?}")
    };
    assert_eq!(file, "local.json");
    assert_eq!(path, "hooks.Stop[0].hooks[0].command");
}

#[test]
fn an_error_in_a_later_file_names_that_file() {
    let good = settings("Stop", None, vec![cmd("true")]);
    let bad = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": 5}]}]}});
    let err = Hooks::from_settings(&[
        ("user.json".to_owned(), &good),
        ("local.json".to_owned(), &bad),
    ])
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("local.json: hooks.Stop[0].hooks[0].command"),
        "{err}"
    );
}

#[test]
fn unknown_events_and_hook_types_are_skipped_with_a_warning() {
    let hooks = one(json!({"hooks": {
        "FileChanged": [{"hooks": [{"type": "command", "command": "x"}]}],
        "Stop": [{"hooks": [
            {"type": "prompt", "prompt": "is it done?"},
            {"type": "command", "command": "kept.sh"}]}]}}));

    let stop: Vec<_> = hooks
        .matching(HookEvent::Stop, "")
        .into_iter()
        .map(|h| h.hook.command)
        .collect();
    assert_eq!(stop, ["kept.sh"]);
    let warnings = hooks.warnings().join("\n");
    assert!(
        warnings.contains("hooks.FileChanged: unknown hook event `FileChanged`"),
        "{warnings}"
    );
    assert!(
        warnings.contains("hooks.Stop[0].hooks[0].type: hook type `prompt` is not supported"),
        "{warnings}"
    );
}

#[tokio::test]
async fn disable_all_hooks_in_any_file_turns_every_hook_off() {
    let p = Project::new();
    let user = settings("PreToolUse", None, vec![cmd(&p.logs("a", "ran"))]);
    let local = json!({"disableAllHooks": true});
    let hooks = many(&[("user.json", user), ("local.json", local)]);

    let out = hooks
        .pre_tool_use(&p.ctx(), "Bash", "t1", &bash_input())
        .await;

    assert_eq!(hooks.disabled_by(), Some("local.json"));
    assert!(hooks.is_empty());
    assert!(out.runs.is_empty());
    assert!(p.log().is_empty());
}

/// Commands of the PreToolUse hooks for Bash, with the files in `managed`
/// read as the administrator's managed settings.
fn managed_commands(others: &[(&str, Value)], managed: &[(&str, Value)]) -> (Vec<String>, Hooks) {
    let others: Vec<(String, &Value)> = others.iter().map(|(f, v)| ((*f).to_owned(), v)).collect();
    let managed: Vec<(String, &Value)> =
        managed.iter().map(|(f, v)| ((*f).to_owned(), v)).collect();
    let hooks = Hooks::from_settings_with_managed(&others, &managed).unwrap();
    let commands = hooks
        .matching(HookEvent::PreToolUse, "Bash")
        .into_iter()
        .map(|h| h.hook.command)
        .collect();
    (commands, hooks)
}

#[test]
fn only_managed_settings_turn_managed_hooks_off() {
    let user = settings("PreToolUse", None, vec![cmd("user.sh")]);
    let admin = settings("PreToolUse", None, vec![cmd("admin.sh")]);

    // disableAllHooks elsewhere turns off only the other hooks.
    let (commands, hooks) = managed_commands(
        &[
            ("user.json", user.clone()),
            ("local.json", json!({"disableAllHooks": true})),
        ],
        &[("managed.json", admin.clone())],
    );
    assert_eq!(commands, ["admin.sh"]);
    assert_eq!(hooks.disabled_by(), None);
    assert!(
        hooks
            .warnings()
            .join("\n")
            .contains("local.json: disableAllHooks"),
        "{:?}",
        hooks.warnings()
    );

    // In the managed file it turns off every hook.
    let mut off = admin.clone();
    off["disableAllHooks"] = json!(true);
    let (commands, hooks) =
        managed_commands(&[("user.json", user.clone())], &[("managed.json", off)]);
    assert!(commands.is_empty());
    assert_eq!(hooks.disabled_by(), Some("managed.json"));

    // allowManagedHooksOnly leaves out the others; elsewhere it means nothing.
    let mut only = admin.clone();
    only["allowManagedHooksOnly"] = json!(true);
    let (commands, _) = managed_commands(&[("user.json", user.clone())], &[("managed.json", only)]);
    assert_eq!(commands, ["admin.sh"]);
    let mut user_only = user.clone();
    user_only["allowManagedHooksOnly"] = json!(true);
    let (commands, _) = managed_commands(
        &[("user.json", user_only)],
        &[("managed.json", admin.clone())],
    );
    assert_eq!(commands, ["user.sh", "admin.sh"]);

    let mut typo = admin;
    typo["allowManagedHooksOnly"] = json!("yes");
    let err = Hooks::from_settings_with_managed(&[], &[("managed.json".to_owned(), &typo)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("managed.json") && err.contains("allowManagedHooksOnly"),
        "{err}"
    );
}
