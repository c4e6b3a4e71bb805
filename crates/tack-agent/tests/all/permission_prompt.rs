//! The permission stage and the prompt it shows on a terminal.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_agent::permission::{PolicyStage, PromptAnswer, PromptRequest, Prompter};
use tack_agent::{Permission, PermissionStage};
use tack_policy::{LoadOptions, Settings};
use tack_tool::{Tool, ToolCall, ToolContext, ToolError, ToolOutput, ToolRegistry};

/// Answers every prompt "always allow" and keeps what it was shown.
#[derive(Default)]
struct AlwaysAllow(Mutex<Vec<PromptRequest>>);

#[async_trait]
impl Prompter for AlwaysAllow {
    async fn ask(&self, request: &PromptRequest) -> PromptAnswer {
        self.0.lock().unwrap().push(request.clone());
        PromptAnswer::AllowAlways
    }
}

/// Stands in for Bash: the stage only needs its name and annotations.
struct Bash(tack_tool::ToolAnnotations);

#[async_trait]
impl Tool for Bash {
    fn name(&self) -> &str {
        "Bash"
    }
    fn description(&self) -> &str {
        "Runs a command."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"command": {"type": "string"}}})
    }
    fn annotations(&self) -> tack_tool::ToolAnnotations {
        self.0
    }
    async fn call(&self, _input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ran"))
    }
}

/// The stage for a project in `root` with `managed` as the administrator's settings.
fn stage(root: &std::path::Path, managed: Value, prompter: Arc<AlwaysAllow>) -> PolicyStage {
    let managed_file = root.join("managed-settings.json");
    std::fs::write(&managed_file, managed.to_string()).unwrap();
    let settings = Settings::load_with(&LoadOptions {
        project_root: root.to_owned(),
        user_config_dir: None,
        claude_user_dir: None,
        managed_settings: Some(managed_file),
        home: Some(root.to_owned()),
        cwd: None,
        cli: Default::default(),
    })
    .unwrap();
    let policy = settings.policy_for_cwd(root).unwrap();
    PolicyStage::new(
        policy,
        root.to_owned(),
        root.to_owned(),
        Some(prompter),
        None,
    )
}

async fn ask_for_touch(stage: &PolicyStage) -> Permission {
    let mut registry = ToolRegistry::new();
    registry
        .register(Arc::new(Bash(Default::default())))
        .unwrap();
    let call = ToolCall {
        id: "t1".into(),
        name: "Bash".into(),
        input: json!({"command": "touch x"}),
    };
    stage
        .decide(&call, registry.get("Bash").unwrap(), None, None)
        .await
}

#[tokio::test]
async fn always_allow_saves_a_local_rule() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let prompter = Arc::new(AlwaysAllow::default());
    let stage = stage(&root, json!({}), Arc::clone(&prompter));
    let permission = ask_for_touch(&stage).await;
    assert!(
        matches!(&permission, Permission::Allow { by } if by.contains("always allow")),
        "{permission:?}"
    );
    let shown = prompter.0.lock().unwrap()[0].always_rule.clone();
    assert!(
        shown
            .as_deref()
            .is_some_and(|r| r.starts_with("Bash(touch")),
        "{shown:?}"
    );
    let local = std::fs::read_to_string(root.join(".tack/settings.local.json")).unwrap();
    assert!(local.contains("Bash(touch"), "{local}");
}

#[tokio::test]
async fn with_only_managed_rules_the_prompt_offers_no_always_and_saves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let prompter = Arc::new(AlwaysAllow::default());
    let stage = stage(
        &root,
        json!({"permissions": {"allowManagedPermissionRulesOnly": true}}),
        Arc::clone(&prompter),
    );
    let permission = ask_for_touch(&stage).await;
    assert!(
        matches!(&permission, Permission::Allow { by } if by.contains("none was saved")),
        "{permission:?}"
    );
    assert_eq!(prompter.0.lock().unwrap()[0].always_rule, None);
    assert!(!root.join(".tack/settings.local.json").exists());
}

/// The prompt warns of destruction for the call that destroys, not for
/// every call of a tool that can.
#[tokio::test]
async fn the_prompt_warns_only_for_calls_that_may_destroy_data() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("kept.txt"), "x").unwrap();
    let mut registry = ToolRegistry::new();
    // As tack's own Bash is annotated: destructive at worst.
    let annotated = tack_tool::ToolAnnotations {
        destructive: true,
        ..Default::default()
    };
    registry.register(Arc::new(Bash(annotated))).unwrap();
    let mut shown = Vec::new();
    for command in [
        "make -n",
        "git fetch",
        "rm -rf build",
        "echo hi > kept.txt",
        "echo hi > new.txt",
        "git push origin main --force",
    ] {
        let prompter = Arc::new(AlwaysAllow::default());
        let stage = stage(&root, json!({}), prompter.clone());
        let call = ToolCall {
            id: "t1".into(),
            name: "Bash".into(),
            input: json!({ "command": command }),
        };
        stage
            .decide(&call, registry.get("Bash").unwrap(), None, None)
            .await;
        let asked = prompter.0.lock().unwrap();
        shown.push((command, asked.first().map(|r| r.destructive)));
    }
    assert_eq!(
        shown,
        [
            ("make -n", Some(false)),
            ("git fetch", Some(false)),
            ("rm -rf build", Some(true)),
            ("echo hi > kept.txt", Some(true)),
            ("echo hi > new.txt", Some(false)),
            ("git push origin main --force", Some(true)),
        ]
    );
}

/// The stage deciding a Bash `command` in `root`'s project, with a hook's
/// ruling when given; what the prompter was shown.
async fn decide_bash(
    root: &std::path::Path,
    settings: Value,
    command: &str,
    hook: Option<tack_agent::HookRuling>,
) -> (Permission, Vec<PromptRequest>) {
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(
        root.join(".claude/settings.local.json"),
        settings.to_string(),
    )
    .unwrap();
    let prompter = Arc::new(AlwaysAllow::default());
    let stage = stage(root, json!({}), Arc::clone(&prompter));
    let mut registry = ToolRegistry::new();
    registry
        .register(Arc::new(Bash(Default::default())))
        .unwrap();
    let call = ToolCall {
        id: "t1".into(),
        name: "Bash".into(),
        input: json!({ "command": command }),
    };
    let permission = stage
        .decide(&call, registry.get("Bash").unwrap(), hook.as_ref(), None)
        .await;
    let shown = prompter.0.lock().unwrap().clone();
    (permission, shown)
}

/// A write to a protected path and a critical removal are a person's word
/// each time: asked under `allow Bash` in acceptEdits, with no "always"
/// offered and nothing saved, and a hook's allow does not skip the prompt
/// (it does for an ordinary ask).
#[tokio::test]
async fn a_safeguards_ask_is_a_persons_each_time_whatever_hooks_and_rules_say() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let settings = json!({"permissions": {"allow": ["Bash"], "defaultMode": "acceptEdits"}});
    let hook_allows = || {
        Some(tack_agent::HookRuling {
            verdict: tack_protocol::Verdict::Allow,
            reason: "looks fine".into(),
            by: "PreToolUse hook `approve-all`".into(),
        })
    };
    for command in [
        "echo '#!/bin/sh' > .git/hooks/pre-commit",
        "cp evil.json .claude/settings.local.json",
        "rm -rf ~",
        "rm -rf \"$DIR\"/*",
    ] {
        for hook in [None, hook_allows()] {
            let hooked = hook.is_some();
            let (permission, shown) = decide_bash(&root, settings.clone(), command, hook).await;
            assert!(
                matches!(&permission, Permission::Allow { by } if by.contains("allow once") && by.contains("none was saved")),
                "{command} (hook: {hooked}): {permission:?}"
            );
            assert_eq!(shown.len(), 1, "{command}: asked once");
            assert_eq!(shown[0].always_rule, None, "{command}: no always");
        }
    }
    let local = std::fs::read_to_string(root.join(".tack/settings.local.json")).unwrap_or_default();
    assert!(!local.contains("Bash("), "nothing saved: {local}");
    // An ordinary ask is still the hook's to allow.
    let settings = json!({"permissions": {"allow": ["Bash(ls *)"]}});
    let (permission, shown) = decide_bash(&root, settings, "touch x", hook_allows()).await;
    assert!(
        matches!(&permission, Permission::Allow { by } if by.contains("approve-all")),
        "{permission:?}"
    );
    assert!(shown.is_empty());
}
