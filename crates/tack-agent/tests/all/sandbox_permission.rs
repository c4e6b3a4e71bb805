//! The permission stage with the OS sandbox in force: a Bash command asked
//! only for want of an allow rule runs without asking when it stays inside
//! the writable roots (autoAllowBashIfSandboxed), and a call that asks to
//! leave the sandbox (dangerouslyDisableSandbox) is a person's word every
//! time. Real directories; the stage as the session builds it.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_agent::permission::{PolicyStage, PromptAnswer, PromptRequest, Prompter};
use tack_agent::{HookRuling, Permission, PermissionStage};
use tack_policy::{PolicyBuilder, SandboxPermissions};
use tack_protocol::Verdict;
use tack_tool::{Tool, ToolCall, ToolContext, ToolError, ToolOutput, ToolRegistry};

/// Answers every prompt "always allow" and keeps what it was shown.
#[derive(Default)]
struct Person(Mutex<Vec<PromptRequest>>);

#[async_trait]
impl Prompter for Person {
    async fn ask(&self, request: &PromptRequest) -> PromptAnswer {
        self.0.lock().unwrap().push(request.clone());
        PromptAnswer::AllowAlways
    }
}

struct Bash;

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
    async fn call(&self, _input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ran"))
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    person: Arc<Person>,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("project/src")).unwrap();
        Self {
            _dir: dir,
            root,
            person: Arc::default(),
        }
    }

    fn project(&self) -> std::path::PathBuf {
        self.root.join("project")
    }

    /// The stage for `rules`, with a person to ask (or none) and the sandbox
    /// (writable root: the project) or none.
    fn stage(&self, rules: &[&str], ask: bool, sandbox: Option<SandboxPermissions>) -> PolicyStage {
        let mut b = PolicyBuilder::new(self.project()).home(Some(self.root.clone()));
        for rule in rules {
            b = match rule.split_once(' ').unwrap() {
                ("allow", r) => b.allow(r),
                ("deny", r) => b.deny(r),
                ("mode", m) => b.mode(m.parse().unwrap()),
                other => panic!("{other:?}"),
            };
        }
        let prompter = ask.then(|| Arc::clone(&self.person) as Arc<dyn Prompter>);
        PolicyStage::new(
            b.build().unwrap(),
            self.project(),
            self.project(),
            prompter,
            None,
        )
        .with_sandbox(sandbox)
    }

    fn sandbox(&self) -> SandboxPermissions {
        SandboxPermissions::new(&[self.project()], Some(&self.root.join("tmp")))
    }

    fn asked(&self) -> usize {
        self.person.0.lock().unwrap().len()
    }
}

async fn bash(stage: &PolicyStage, input: Value, hook: Option<&HookRuling>) -> Permission {
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Bash)).unwrap();
    let call = ToolCall {
        id: "t1".into(),
        name: "Bash".into(),
        input,
    };
    stage
        .decide(&call, registry.get("Bash").unwrap(), hook, None)
        .await
}

#[tokio::test]
async fn a_sandboxed_command_inside_the_roots_runs_without_asking_and_says_why() {
    let s = Setup::new();
    let sandboxed = s.stage(&[], false, Some(s.sandbox()));
    let p = bash(
        &sandboxed,
        json!({"command": "ls src && echo ok > src/out"}),
        None,
    )
    .await;
    assert!(
        matches!(&p, Permission::Allow { by } if by.starts_with("sandbox: autoAllowBashIfSandboxed (")),
        "{p:?}"
    );
    // Outside the roots it asks, which headless is a deny.
    let outside = format!("cat {}/elsewhere", s.root.display());
    let p = bash(&sandboxed, json!({"command": outside}), None).await;
    assert!(matches!(p, Permission::Deny { .. }), "{p:?}");
    // Without the sandbox the same command asks (its `ls` alone would not:
    // it only reads, inside).
    let plain = s.stage(&[], false, None);
    let p = bash(
        &plain,
        json!({"command": "ls src && echo ok > src/out"}),
        None,
    )
    .await;
    assert!(matches!(p, Permission::Deny { .. }), "{p:?}");
    // A deny rule wins.
    let denied = s.stage(&["deny Bash(ls *)"], false, Some(s.sandbox()));
    let p = bash(&denied, json!({"command": "ls src"}), None).await;
    assert!(
        matches!(&p, Permission::Deny { by, .. } if by.contains("deny rule")),
        "{p:?}"
    );
}

#[tokio::test]
async fn leaving_the_sandbox_is_asked_every_time_whatever_allows_it() {
    let s = Setup::new();
    let out = json!({"command": "ls src", "dangerouslyDisableSandbox": true});
    for rules in [
        &["allow Bash(ls *)"][..],
        &["allow Bash"],
        &["mode bypassPermissions"],
    ] {
        let stage = s.stage(rules, true, Some(s.sandbox()));
        let before = s.asked();
        for _ in 0..2 {
            let p = bash(&stage, out.clone(), None).await;
            assert!(
                matches!(&p, Permission::Allow { by } if by.contains("allow once") && by.contains("outside the sandbox")),
                "{rules:?}: {p:?}"
            );
        }
        assert_eq!(s.asked(), before + 2, "asked each time ({rules:?})");
        // A hook's allow does not skip the person either.
        let hook = HookRuling {
            verdict: Verdict::Allow,
            reason: "fine".into(),
            by: "PreToolUse hook `ok`".into(),
        };
        bash(&stage, out.clone(), Some(&hook)).await;
        assert_eq!(s.asked(), before + 3, "{rules:?}");
    }
    let shown = s.person.0.lock().unwrap()[0].clone();
    assert_eq!(shown.always_rule, None, "no \"always allow\" is offered");
    assert!(
        shown.reason.contains("dangerouslyDisableSandbox"),
        "{}",
        shown.reason
    );
    // Nothing was saved for the next call.
    assert!(!s.project().join(".tack/settings.local.json").exists());

    // Nobody to ask: denied, saying why and what to do.
    let headless = s.stage(&["allow Bash(ls *)"], false, Some(s.sandbox()));
    let p = bash(&headless, out.clone(), None).await;
    let Permission::Deny { reason, by } = p else {
        panic!("{p:?}")
    };
    assert!(reason.contains("no terminal"), "{reason}");
    assert!(
        reason.contains("Run it without dangerouslyDisableSandbox"),
        "{reason}"
    );
    assert!(by.starts_with("sandbox: dangerouslyDisableSandbox"), "{by}");

    // allowUnsandboxedCommands: false refuses it without asking.
    let mut never = s.sandbox();
    never.allow_unsandboxed_commands = false;
    let stage = s.stage(&["allow Bash(ls *)"], true, Some(never));
    let before = s.asked();
    let p = bash(&stage, out, None).await;
    assert!(
        matches!(&p, Permission::Deny { reason, .. } if reason.contains("sandbox.allowUnsandboxedCommands is false")),
        "{p:?}"
    );
    assert_eq!(s.asked(), before);
}

/// A file tool by name (the stage judges the call, the tool never runs).
struct FileTool(&'static str);

#[async_trait]
impl Tool for FileTool {
    fn name(&self) -> &str {
        self.0
    }
    fn description(&self) -> &str {
        "A file tool."
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"file_path": {"type": "string"}}})
    }
    async fn call(&self, _input: Value, _ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("done"))
    }
}

async fn file_tool(stage: &PolicyStage, tool: &'static str, path: &std::path::Path) -> Permission {
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(FileTool(tool))).unwrap();
    let call = ToolCall {
        id: "t1".into(),
        name: tool.into(),
        input: json!({"file_path": path, "content": "x"}),
    };
    stage
        .decide(&call, registry.get(tool).unwrap(), None, None)
        .await
}

/// Red-team round 12 (false refusal): the sandbox's own temporary directory,
/// the commands' `$TMPDIR`, is a working directory of the session: what a
/// command wrote there (`git diff > $TMPDIR/d.patch`) the file tools read
/// back as they read the project's files, and write there as in the
/// project. It stays one after the settings are read again.
#[tokio::test]
async fn the_sandboxs_temporary_directory_is_a_working_directory() {
    let s = Setup::new();
    let tmp = s.root.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(tmp.join("d.patch"), "diff").unwrap();
    let rules = ["allow Bash", "mode acceptEdits"];
    let stage = s.stage(&rules, false, Some(s.sandbox()));
    assert!(stage.policy().working_dirs().contains(&tmp.as_path()));
    for (tool, path) in [
        ("Read", tmp.join("d.patch")),
        ("Write", tmp.join("notes.md")),
    ] {
        let p = file_tool(&stage, tool, &path).await;
        assert!(matches!(p, Permission::Allow { .. }), "{tool}: {p:?}");
    }
    // Outside it, as before, they ask (a deny with no one to ask).
    for (tool, path) in [("Read", s.root.join("x")), ("Write", s.root.join("y"))] {
        let p = file_tool(&stage, tool, &path).await;
        assert!(matches!(p, Permission::Deny { .. }), "{tool}: {p:?}");
    }
    // Without the sandbox the directory is nothing of the session's.
    let plain = s.stage(&rules, false, None);
    assert!(!plain.policy().working_dirs().contains(&tmp.as_path()));
    let p = file_tool(&plain, "Read", &tmp.join("d.patch")).await;
    assert!(matches!(p, Permission::Deny { .. }), "{p:?}");
}
