//! Claude Code's configuration, read as Claude Code reads it (issue 11):
//! `.claude/settings.json`, `.claude/settings.local.json` and `.mcp.json`
//! beside tack's own files, found from any directory of the project, and
//! mistakes in them named. Real files in temp dirs, the mock model.

use std::path::{Path, PathBuf};

use serde_json::json;
use tack_policy::{LoadOptions, Request, Verdict, evaluate};
use tack_protocol::{ContentBlock, RunStatus, ToolResultBlock};
use tack_session::{ProjectContext, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, client, results_of};

/// A Claude Code project: `.claude/settings.json` denying `.env`, a `.env`
/// holding a secret, `.mcp.json` with one server, and `src/`.
fn claude_project() -> Project {
    let project = Project::new();
    project
        .write(
            ".claude/settings.json",
            &json!({
                "permissions": {
                    "allow": ["Bash(echo *)"],
                    "deny": ["Read(./.env)"]
                },
                "env": {"FOO": "1"},
                "model": "claude-sonnet-4-5",
                "includeCoAuthoredBy": false
            })
            .to_string(),
        )
        .write(".env", "API_KEY=SECRET-IN-ENV\n")
        .write(
            ".mcp.json",
            &json!({"mcpServers": {"docs": {"command": "docs-server"}}}).to_string(),
        )
        .write("src/main.rs", "fn main() {}\n");
    project
}

fn context_in(project: &Project, dir: &Path) -> ProjectContext {
    ProjectContext::load_with(dir, project.state.path().to_owned(), LoadOptions::default()).unwrap()
}

fn verdict(ctx: &ProjectContext, tool: &str, input: serde_json::Value) -> Verdict {
    let policy = ctx.settings.permissions.policy_for_cwd(&ctx.cwd).unwrap();
    evaluate(&Request::resolve(tool, &input, &ctx.cwd, &policy), &policy).verdict()
}

/// One session in `ctx` whose model calls `calls` in turn; their results.
async fn run_calls(
    ctx: &ProjectContext,
    calls: Vec<(&str, serde_json::Value)>,
) -> Vec<ToolResultBlock> {
    let mock = MockServer::start().await;
    let n = calls.len();
    let mut steps: Vec<Step> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (tool, input))| Step::tool_use(format!("c{i}"), tool, input))
        .collect();
    steps.push(Step::text("done"));
    mock.push_all(steps);
    let session = Session::assemble(ctx, SessionOptions::new("claude"))
        .await
        .unwrap();
    session.begin(Default::default()).await;
    let mut agent = session.agent(client(&mock).await, Default::default());
    let out = agent
        .run(
            Some(vec![ContentBlock::text("go")]),
            &CancellationToken::new(),
        )
        .await;
    session.end("other").await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let messages = agent.messages();
    (0..n)
        .map(|i| results_of(&messages[2 + 2 * i])[0].clone())
        .collect()
}

#[tokio::test]
async fn the_env_deny_of_claude_settings_holds_from_the_root_and_from_a_subdirectory() {
    let project = claude_project();
    let root = project.path();
    for dir in [root.clone(), root.join("src")] {
        let ctx = context_in(&project, &dir);
        assert_eq!(ctx.project_root, root, "from {}", dir.display());
        assert_eq!(ctx.cwd, dir);
        assert!(ctx.warnings.is_empty(), "{:?}", ctx.warnings);
        assert!(
            ctx.settings.mcp_servers.get("docs").is_some(),
            ".mcp.json not found from {}",
            dir.display()
        );
        let env = root.join(".env");
        assert_eq!(
            verdict(&ctx, "Read", json!({"file_path": env})),
            Verdict::Deny,
            "from {}",
            dir.display()
        );
        let relative = if dir == root {
            "cat .env"
        } else {
            "cat ../.env"
        };
        assert_eq!(
            verdict(&ctx, "Bash", json!({"command": relative})),
            Verdict::Deny,
            "{relative} from {}",
            dir.display()
        );

        // Through a session: the model's Read is refused, `echo` allowed.
        let results = run_calls(
            &ctx,
            vec![
                ("Read", json!({"file_path": env})),
                (
                    "Bash",
                    json!({"command": "echo allowed-by-claude-settings"}),
                ),
            ],
        )
        .await;
        assert!(results[0].is_error, "{}", results[0].text());
        assert!(!results[0].text().contains("SECRET-IN-ENV"));
        assert!(!results[1].is_error, "{}", results[1].text());
        assert!(results[1].text().contains("allowed-by-claude-settings"));
    }
}

#[test]
fn the_project_root_is_the_nearest_marker_else_the_git_root_else_the_cwd() {
    let project = Project::new();
    project.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    project.write("repo/pkg/.claude/settings.json", "{}");
    project.write("repo/pkg/src/x", "");
    project.write("repo/other/deep/x", "");
    project.write("plain/x", "");
    let root = project.path();
    let at = |rel: &str| context_in(&project, &root.join(rel)).project_root;
    assert_eq!(at("repo/pkg/src"), root.join("repo/pkg"));
    assert_eq!(at("repo/other/deep"), root.join("repo"));
    assert_eq!(at("plain"), root.join("plain"));
    // A `.git` file (a work tree, a submodule) marks a root too.
    project.write("wt/.git", "gitdir: /elsewhere\n");
    project.write("wt/a/x", "");
    assert_eq!(at("wt/a"), root.join("wt"));
}

#[test]
fn tack_files_come_after_claude_files_at_each_level_and_deny_wins_from_any() {
    let project = Project::new();
    project
        .write(
            ".claude/settings.json",
            &json!({"permissions": {"defaultMode": "plan", "deny": ["Bash(git push *)"]}})
                .to_string(),
        )
        .settings(json!({"permissions": {"defaultMode": "dontAsk"}}))
        .write(
            ".claude/settings.local.json",
            &json!({"permissions": {"allow": ["Bash(git push *)"]}}).to_string(),
        );
    let root = project.path();
    let ctx = context_in(&project, &root);
    let files: Vec<PathBuf> = ctx
        .settings
        .permissions
        .files()
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(
        files,
        [
            root.join(".claude/settings.json"),
            root.join(".tack/settings.json"),
            root.join(".claude/settings.local.json"),
        ]
    );
    let (mode, source) = ctx.settings.permissions.mode();
    assert_eq!(mode.as_str(), "dontAsk", "tack's file wins within a level");
    assert_eq!(
        source.path.as_deref(),
        Some(root.join(".tack/settings.json").as_path())
    );
    assert_eq!(
        verdict(&ctx, "Bash", json!({"command": "git push origin main"})),
        Verdict::Deny,
        "a local allow does not beat a project deny"
    );
}

#[tokio::test]
async fn claude_local_settings_are_the_users_and_their_hooks_run() {
    let project = Project::new();
    let marker = project.state.path().join("local-hook-ran");
    project.write(
        ".claude/settings.local.json",
        &json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command",
            "command": format!("touch {}", marker.display())}]}]}})
        .to_string(),
    );
    let ctx = project.context();
    assert!(ctx.settings.unapproved.is_empty());
    run_calls(&ctx, vec![]).await;
    assert!(marker.exists(), "the local file's hook did not run");
}

#[test]
fn misspelt_keys_and_unknown_tools_are_named_with_file_line_and_suggestion() {
    let project = Project::new();
    project.write(
        ".claude/settings.json",
        "{\n  \"permisions\": {\"deny\": [\"Read(./.env)\"]},\n  \"statusLine\": {\"type\": \"command\", \"command\": \"x\"},\n  \"permissions\": {\n    \"alow\": [],\n    \"allow\": [\"Raed\", \"mcp__docs__search\", \"Frobnicate\"]\n  }\n}\n",
    );
    let ctx = project.context();
    let file = project.path().join(".claude/settings.json");
    let warnings = ctx.warnings.join("\n");
    for said in [
        format!(
            "{}:2: unknown key `permisions`, ignored; did you mean `permissions`?",
            file.display()
        ),
        format!(
            "{}:5: unknown key in `permissions` `alow`, ignored; did you mean `allow`?",
            file.display()
        ),
        format!(
            "{}:6: the allow rule `Raed` names `Raed`, which is no known tool (did you mean `Read`?)",
            file.display()
        ),
        "`Frobnicate`, which is no known tool; it matches nothing".to_owned(),
    ] {
        assert!(warnings.contains(&said), "{said:?} not in:\n{warnings}");
    }
    assert_eq!(ctx.warnings.len(), 4, "{warnings}");
}

#[test]
fn every_key_claude_code_accepts_loads_without_a_warning() {
    let project = Project::new();
    project.write(
        ".claude/settings.json",
        &json!({
            "$schema": "https://json.schemastore.org/claude-code-settings.json",
            "env": {"A": "1"}, "model": "opus", "statusLine": {"type": "command", "command": "x"},
            "apiKeyHelper": "x", "cleanupPeriodDays": 30, "includeCoAuthoredBy": true,
            "enableAllProjectMcpServers": false, "enabledMcpjsonServers": [],
            "disabledMcpjsonServers": [], "outputStyle": "Explanatory", "sandbox": {"enabled": false},
            "enabledPlugins": {}, "extraKnownMarketplaces": {}, "companyAnnouncements": [],
            "forceLoginMethod": "claudeai", "awsAuthRefresh": "x", "awsCredentialExport": "x",
            "alwaysThinkingEnabled": true, "spinnerTipsEnabled": true, "attribution": {},
            "disableAllHooks": false, "hooks": {},
            "permissions": {"allow": ["WebSearch", "Task", "Agent", "Skill", "TodoWrite", "NotebookEdit"],
                "ask": ["MultiEdit", "LS", "KillShell", "BashOutput", "ExitPlanMode"],
                "deny": ["Read(./secrets/**)", "mcp__github__*", "mcp__github"],
                "defaultMode": "default", "additionalDirectories": [],
                "disableBypassPermissionsMode": "disable"}
        })
        .to_string(),
    );
    let ctx = project.context();
    assert!(ctx.warnings.is_empty(), "{:?}", ctx.warnings);
}

#[test]
fn a_deny_rule_for_no_known_tool_stops_loading_naming_file_line_and_the_tool_meant() {
    for (list, rule, why) in [
        ("deny", "Raed(./.env)", "protect nothing"),
        ("deny", "Raed", "protect nothing"),
        ("allow", "Raed(./docs/**)", "take a specifier"),
    ] {
        let project = Project::new();
        project.write(
            ".claude/settings.json",
            &format!("{{\n  \"permissions\": {{\n    \"{list}\": [\"{rule}\"]\n  }}\n}}\n"),
        );
        let err = ProjectContext::load_with(
            project.dir.path(),
            project.state.path().to_owned(),
            LoadOptions::default(),
        )
        .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let text = err.to_string();
        let file = project.path().join(".claude/settings.json");
        for said in [
            format!("{}:3", file.display()),
            format!("`{rule}`"),
            "did you mean `Read`?".into(),
            why.into(),
        ] {
            assert!(text.contains(&said), "{said:?} not in: {text}");
        }
    }
}
