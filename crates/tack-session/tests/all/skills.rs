//! Skills in a session against the strict mock: the model loads a skill,
//! reads a bundled reference and runs a bundled script under the permission
//! rules; project skills wait for trust; a skill is sent once per
//! conversation (a sub-agent has its own); the catalog and the tool's
//! definition as the model sees them.

use std::sync::Arc;

use serde_json::{Value, json};
use tack_protocol::{AuditDecision, RunStatus};
use tack_session::{Asked, Headless, Interaction, Scripted, Session, SessionOptions};
use tack_testkit::{MockServer, Step};
use tokio_util::sync::CancellationToken;

use crate::support::{Project, audits, client, recorder, result_text};

/// A project with one skill, `release-notes`, in `.claude/skills`: a
/// reference file and a script, and allowed-tools that name the script.
fn project_with_skill() -> Project {
    let p = Project::new();
    p.write(
        ".claude/skills/release-notes/SKILL.md",
        "---\nname: release-notes\ndescription: Write release notes from the git log. Use when the user asks for release notes or a changelog.\nallowed-tools: Bash(bash scripts/count.sh:*) Read\n---\n# Release notes\n\n1. Read references/format.md for the format.\n2. Run `bash ${CLAUDE_SKILL_DIR}/scripts/count.sh` to count the changes.\n3. Topic: $ARGUMENTS\n",
    )
    .write(
        ".claude/skills/release-notes/references/format.md",
        "FORMAT-MARKER: one line per change, newest first.\n",
    )
    .write(
        ".claude/skills/release-notes/scripts/count.sh",
        "echo COUNT-MARKER 42\n",
    );
    p
}

fn tool<'a>(request: &'a Value, name: &str) -> Option<&'a Value> {
    request["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|d| d["name"] == name))
}

async fn assemble(p: &Project, interaction: Arc<dyn Interaction>, settings: Value) -> Session {
    p.local_settings(settings);
    Session::assemble(
        &p.context(),
        SessionOptions::new(SessionOptions::new_id()).interaction(interaction),
    )
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_loads_a_skill_reads_its_reference_and_its_script_meets_the_rules() {
    let p = project_with_skill();
    let dir = p.path().join(".claude/skills/release-notes");
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([(
            "s1",
            "Skill",
            json!({"skill": "release-notes", "args": "v2.0"}),
        )]),
        Step::tool_uses([(
            "r1",
            "Read",
            json!({"file_path": dir.join("references/format.md")}),
        )]),
        Step::tool_uses([(
            "b1",
            "Bash",
            json!({"command": format!("bash {}", dir.join("scripts/count.sh").display())}),
        )]),
        Step::text("done"),
    ]);
    let answers = Scripted::new().approve_skill(true);
    let (events, seen) = recorder();
    p.local_settings(json!({"permissions": {"deny": ["Bash(bash *count.sh*)"]}}));
    let session = Session::assemble(
        &p.context(),
        SessionOptions::new("skills-1")
            .interaction(Arc::new(answers.clone()))
            .events(events),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "write the release notes",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    assert_eq!(requests.len(), 4);

    // The catalog is in the Skill tool's description; the enum names it.
    let skill_tool = tool(&requests[0].body, "Skill").expect("a Skill tool");
    let description = skill_tool["description"].as_str().unwrap();
    assert!(
        description.contains("- release-notes: Write release notes from the git log."),
        "{description}"
    );
    assert!(description.contains("[project .claude/skills]\n- release-notes: "));
    assert_eq!(
        skill_tool["input_schema"]["properties"]["skill"]["enum"],
        json!(["release-notes"])
    );

    // The project skill needed trust, asked once.
    assert!(
        answers
            .asked()
            .contains(&Asked::Skill("release-notes".into()))
    );

    // Loading gives the instructions (arguments and folder filled in), the
    // folder and the bundled files, not their contents.
    let (loaded, is_error) = result_text(&requests[1].body, "s1");
    assert!(!is_error, "{loaded}");
    assert!(
        loaded.starts_with("<skill_content name=\"release-notes\">"),
        "{loaded}"
    );
    assert!(loaded.contains("3. Topic: v2.0"), "{loaded}");
    assert!(
        loaded.contains(&format!("Run `bash {}/scripts/count.sh`", dir.display())),
        "{loaded}"
    );
    assert!(loaded.contains(&format!("Skill directory: {}", dir.display())));
    assert!(loaded.contains("<file>references/format.md</file>"));
    assert!(loaded.contains("<file>scripts/count.sh</file>"));
    assert!(!loaded.contains("FORMAT-MARKER") && !loaded.contains("COUNT-MARKER"));
    assert!(loaded.contains("allowed-tools): Bash(bash scripts/count.sh:*) Read"));
    assert!(loaded.contains("This grants nothing"));

    // The model reads the reference with Read.
    let (reference, is_error) = result_text(&requests[2].body, "r1");
    assert!(
        !is_error && reference.contains("FORMAT-MARKER"),
        "{reference}"
    );

    // The script is denied by the rule, whatever allowed-tools says.
    let (script, is_error) = result_text(&requests[3].body, "b1");
    assert!(is_error, "{script}");
    assert!(script.contains("denied"), "{script}");
    assert!(!script.contains("COUNT-MARKER"));

    // The audit says what was loaded and what it cost.
    let seen = seen.lock().unwrap();
    let audit = audits(&seen);
    let (_, skill) = audit.iter().find(|(id, _)| id == "s1").unwrap();
    let load = skill.skill.as_ref().expect("the skill in the audit record");
    assert_eq!(load.name, "release-notes");
    assert_eq!(load.scope, "project");
    assert!(load.location.ends_with("release-notes/SKILL.md"));
    assert!(load.tokens > 50, "{load:?}");
    assert!(!load.repeat);
    assert_eq!(
        load.allowed_tools,
        ["Bash(bash scripts/count.sh:*)", "Read"]
    );
    let (_, bash) = audit.iter().find(|(id, _)| id == "b1").unwrap();
    assert_eq!(bash.decision, AuditDecision::Deny);
    assert!(bash.skill.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_a_rule_allows_runs_and_a_skill_loaded_twice_is_sent_once() {
    let p = project_with_skill();
    let dir = p.path().join(".claude/skills/release-notes");
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([("s1", "Skill", json!({"skill": "release-notes"}))]),
        Step::tool_uses([(
            "b1",
            "Bash",
            json!({"command": format!("bash {}", dir.join("scripts/count.sh").display())}),
        )]),
        Step::tool_uses([(
            "s2",
            "Skill",
            json!({"skill": "release-notes", "args": "again"}),
        )]),
        Step::text("done"),
    ]);
    let (events, seen) = recorder();
    p.local_settings(json!({"permissions": {"allow": ["Bash(bash *count.sh)"]}}));
    let project = p.context();
    // Trusted ahead of time: nobody is asked (headless).
    let found = tack_session::skills::Skills::new(Default::default())
        .find(&project)
        .await;
    tack_session::skills::SkillApprovals::trust(
        p.state.path(),
        found.get("release-notes").unwrap(),
    )
    .unwrap();
    let session = Session::assemble(
        &project,
        SessionOptions::new("skills-2")
            .interaction(Arc::new(Headless))
            .events(events),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "notes",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    let (first, _) = result_text(&requests[1].body, "s1");
    assert!(first.contains("# Release notes"), "{first}");
    let (script, is_error) = result_text(&requests[2].body, "b1");
    assert!(!is_error && script.contains("COUNT-MARKER 42"), "{script}");
    let (second, is_error) = result_text(&requests[3].body, "s2");
    assert!(!is_error);
    assert!(!second.contains("# Release notes"), "sent twice: {second}");
    assert!(second.contains("already loaded in this conversation (the result of Skill call s1)"));
    assert!(second.contains("ARGUMENTS for this use: again"));
    assert!(second.contains(&format!("Read {}", dir.join("SKILL.md").display())));
    let seen = seen.lock().unwrap();
    let audit = audits(&seen);
    let (_, s2) = audit.iter().find(|(id, _)| id == "s2").unwrap();
    assert!(s2.skill.as_ref().unwrap().repeat);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_project_skill_is_refused_headless_and_a_changed_one_asks_again() {
    let p = project_with_skill();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([("s1", "Skill", json!({"skill": "release-notes"}))]),
        Step::text("ok"),
    ]);
    let session = assemble(&p, Arc::new(Headless), json!({})).await;
    session
        .run(
            client(&mock).await,
            Default::default(),
            "x",
            &CancellationToken::new(),
        )
        .await;
    let (text, is_error) = result_text(&mock.requests()[1].body, "s1");
    assert!(is_error, "{text}");
    assert!(text.contains("needs the user's trust"), "{text}");
    assert!(text.contains("tack skills trust release-notes"), "{text}");
    assert!(!text.contains("# Release notes"));

    // Trusted, then changed: asked again (and refused when nobody answers yes).
    let project = p.context();
    let found = tack_session::skills::Skills::new(Default::default())
        .find(&project)
        .await;
    tack_session::skills::SkillApprovals::trust(
        p.state.path(),
        found.get("release-notes").unwrap(),
    )
    .unwrap();
    p.write(
        ".claude/skills/release-notes/SKILL.md",
        "---\nname: release-notes\ndescription: Changed.\n---\nNow do something else.\n",
    );
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([("s1", "Skill", json!({"skill": "release-notes"}))]),
        Step::text("ok"),
    ]);
    let answers = Scripted::new().approve_skill(false);
    let session = assemble(&p, Arc::new(answers.clone()), json!({})).await;
    session
        .run(
            client(&mock).await,
            Default::default(),
            "x",
            &CancellationToken::new(),
        )
        .await;
    assert!(
        answers
            .asked()
            .contains(&Asked::Skill("release-notes".into()))
    );
    let (text, is_error) = result_text(&mock.requests()[1].body, "s1");
    assert!(is_error && text.contains("did not trust"), "{text}");

    // A user skill needs no trust; a deny rule keeps a skill out of the catalog.
    let u = Project::new();
    let home = u.path().join("home");
    u.write(
        "home/.claude/skills/mine/SKILL.md",
        "---\nname: mine\ndescription: The user's own.\n---\nbody\n",
    );
    u.write(
        "home/.claude/skills/secret/SKILL.md",
        "---\nname: secret\ndescription: Denied by a rule.\n---\nbody\n",
    );
    u.local_settings(json!({"permissions": {"deny": ["Skill(secret)"]}}));
    let ctx = tack_session::ProjectContext::load_with(
        u.dir.path(),
        u.state.path().to_owned(),
        tack_policy::LoadOptions {
            claude_user_dir: Some(home.join(".claude")),
            home: Some(home.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([("s1", "Skill", json!({"skill": "mine"}))]),
        Step::text("ok"),
    ]);
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("skills-user").interaction(Arc::new(Headless)),
    )
    .await
    .unwrap();
    session
        .run(
            client(&mock).await,
            Default::default(),
            "x",
            &CancellationToken::new(),
        )
        .await;
    let requests = mock.requests();
    let skill = tool(&requests[0].body, "Skill").unwrap();
    assert_eq!(
        skill["input_schema"]["properties"]["skill"]["enum"],
        json!(["mine"])
    );
    assert!(!skill["description"].as_str().unwrap().contains("secret"));
    let (text, is_error) = result_text(&requests[1].body, "s1");
    assert!(
        !is_error && text.contains("<skill_content name=\"mine\">"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_skills_no_tool_and_a_subagent_gets_the_skill_whole() {
    let empty = Project::new();
    let mock = MockServer::start().await;
    mock.push_all([Step::text("hi")]);
    let session = assemble(&empty, Arc::new(Headless), json!({})).await;
    session
        .run(
            client(&mock).await,
            Default::default(),
            "x",
            &CancellationToken::new(),
        )
        .await;
    assert!(tool(&mock.requests()[0].body, "Skill").is_none());

    // The parent loads the skill; a sub-agent that loads it too gets the
    // whole text (its conversation never saw it), then the parent's second
    // load is a reminder.
    let p = project_with_skill();
    let mock = MockServer::start().await;
    mock.push_all([
        Step::tool_uses([("s1", "Skill", json!({"skill": "release-notes"}))]),
        Step::tool_uses([(
            "a1",
            "Agent",
            json!({"description": "Notes", "prompt": "load release-notes"}),
        )]),
        Step::tool_uses([("sub1", "Skill", json!({"skill": "release-notes"}))]),
        Step::text("sub done"),
        Step::tool_uses([("s2", "Skill", json!({"skill": "release-notes"}))]),
        Step::text("done"),
    ]);
    p.local_settings(json!({}));
    let session = Session::assemble(
        &p.context(),
        SessionOptions::new("skills-sub")
            .interaction(Arc::new(Scripted::new().approve_skill(true)))
            .subagents(true),
    )
    .await
    .unwrap();
    let outcome = session
        .run(
            client(&mock).await,
            Default::default(),
            "x",
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let requests = mock.requests();
    let (sub, _) = result_text(&requests[3].body, "sub1");
    assert!(
        sub.contains("# Release notes"),
        "the sub-agent got a reminder: {sub}"
    );
    let (again, _) = result_text(&requests[5].body, "s2");
    assert!(again.contains("already loaded"), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalog_and_the_skill_tool_as_the_model_sees_them() {
    let p = Project::new();
    for (name, description) in [
        (
            "pdf",
            "Extract text and tables from PDF files, fill PDF forms, merge and split documents. Use when the user works with PDF files or asks for a form to be filled.",
        ),
        (
            "release-notes",
            "Write release notes from the git log since the last tag, grouped by kind of change. Use when the user asks for release notes or a changelog.",
        ),
    ] {
        p.write(
            &format!(".claude/skills/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
        );
    }
    let mock = MockServer::start().await;
    mock.push_all([Step::text("hi")]);
    let session = assemble(&p, Arc::new(Headless), json!({})).await;
    session
        .run(
            client(&mock).await,
            Default::default(),
            "x",
            &CancellationToken::new(),
        )
        .await;
    let skill = tool(&mock.requests()[0].body, "Skill").unwrap().clone();
    insta::assert_json_snapshot!("skill_tool_definition", skill);
}

/// Every folder a session loads skills or agents from — as its loaders list
/// them, in the project, a package below it, the user's configuration
/// directories, the home directory and beside the managed settings — is a
/// protected path: a write there asks a person in acceptEdits, with the
/// home directory inside the working directory (as when tack runs in `~`).
/// `~/.agents/skills` was an ordinary edit (round 12).
#[test]
fn every_folder_skills_and_agents_are_loaded_from_is_protected() {
    use tack_policy::{CliPermissions, LoadOptions, Mode, Request, evaluate};
    use tack_session::ProjectContext;

    let p = Project::new();
    p.write("pkg/.agents/skills/x/SKILL.md", "---\nname: x\n---\n")
        .write("pkg/.claude/skills/y/SKILL.md", "---\nname: y\n---\n");
    let root = p.path();
    for (config, claude) in [(".config/tack", ".claude"), ("my-tack", "my-claude")] {
        let options = LoadOptions {
            user_config_dir: Some(root.join(config)),
            claude_user_dir: Some(root.join(claude)),
            managed_settings: Some(root.join("managed/managed-settings.json")),
            home: Some(root.clone()),
            cli: CliPermissions {
                mode: Some(Mode::AcceptEdits),
                ..Default::default()
            },
            ..Default::default()
        };
        let ctx = ProjectContext::load_with(&root, p.state.path().to_owned(), options).unwrap();
        let policy = ctx.settings.permissions.policy();
        let (roots, _) = ctx.skill_places().roots();
        let folders: Vec<_> = roots
            .into_iter()
            .map(|r| r.dir)
            .chain(ctx.agent_dirs().into_iter().map(|d| d.path))
            .collect();
        for name in [
            ".agents/skills",
            "pkg/.agents/skills",
            "my-tack/skills",
            "my-claude/agents",
        ] {
            if config == "my-tack" || !name.starts_with("my-") {
                assert!(
                    folders.contains(&root.join(name)),
                    "{name} is not among {folders:?}"
                );
            }
        }
        for folder in folders {
            let file = folder.join("x/SKILL.md");
            let input = serde_json::json!({"file_path": file, "content": "x"});
            let decision = evaluate(&Request::resolve("Write", &input, &root, policy), policy);
            assert!(
                decision.is_ask() && decision.needs_person(),
                "{}: {decision}",
                file.display()
            );
        }
    }
}
