//! Settings files: levels, sources, raw JSON kept for other crates, clear
//! configuration errors, rule examples, and "always allow" written back.

use std::path::Path;

use serde_json::json;
use tack_policy::{
    CliPermissions, DecidedBy, Error, Level, LoadOptions, Mode, Request, RuleKind, Settings,
    SettingsFile, Verdict, add_local_rule, evaluate, read_settings_files, split_rule_list,
};

use crate::support::Fixture;

fn write(path: &Path, value: &serde_json::Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

fn write_text(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn load(fx: &Fixture, cli: CliPermissions) -> tack_policy::Result<Settings> {
    Settings::load_with(&LoadOptions {
        project_root: fx.project.clone(),
        user_config_dir: Some(fx.home.join(".config/tack")),
        claude_user_dir: None,
        managed_settings: None,
        home: Some(fx.home.clone()),
        cwd: None,
        cli,
    })
}

fn bash(settings: &Settings, command: &str) -> tack_policy::Decision {
    let p = settings.policy();
    let req = Request::resolve("Bash", &json!({"command": command}), p.cwd(), p);
    evaluate(&req, p)
}

#[test]
fn levels_sources_and_raw_json() {
    let fx = Fixture::new();
    let user = fx.home.join(".config/tack/settings.json");
    let project = fx.project.join(".tack/settings.json");
    let local = fx.project.join(".tack/settings.local.json");
    write(
        &user,
        &json!({"permissions": {"deny": ["Bash(rm *)"], "defaultMode": "plan"}, "theme": "dark"}),
    );
    write(
        &project,
        &json!({
            "permissions": {"allow": ["Bash(git log *)"], "ask": ["Bash(git push *)"],
                            "defaultMode": "acceptEdits", "additionalDirectories": ["../outside"]},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}
        }),
    );
    write(&local, &json!({"permissions": {"allow": ["Bash(rm x)"]}}));
    let cli = CliPermissions {
        allowed_tools: split_rule_list("Bash(ls *),Read"),
        ..CliPermissions::default()
    };
    let s = load(&fx, cli).unwrap();

    // Raw JSON of every file, weakest first, for tack-hooks.
    let levels: Vec<Level> = s.files().iter().map(|f| f.level).collect();
    assert_eq!(levels, [Level::User, Level::Project, Level::Local]);
    assert_eq!(
        s.files()[1].value["hooks"]["PreToolUse"][0]["matcher"],
        "Bash"
    );
    assert_eq!(s.files()[0].value["theme"], "dark");

    // The project's mode beats the user's.
    assert_eq!(s.mode().0, Mode::AcceptEdits);
    assert_eq!(s.mode().1.path.as_deref(), Some(project.as_path()));

    // The user's deny beats the local allow; the decision names the file.
    let d = bash(&s, "rm x");
    assert_eq!(d.verdict(), Verdict::Deny);
    match &d.why().decided_by {
        DecidedBy::Rule { rule, list, source } => {
            assert_eq!(rule, "Bash(rm *)");
            assert_eq!(*list, RuleKind::Deny);
            assert_eq!(source.level, Level::User);
            assert_eq!(source.path.as_deref(), Some(user.as_path()));
        }
        other => panic!("decided by {other:?}"),
    }
    let d = bash(&s, "git push origin");
    assert_eq!(d.verdict(), Verdict::Ask);
    assert!(
        d.message().contains(&project.display().to_string()),
        "{}",
        d.message()
    );
    assert_eq!(bash(&s, "ls -la && git log").verdict(), Verdict::Allow);

    // additionalDirectories are relative to the project root.
    assert!(
        s.policy()
            .working_dirs()
            .contains(&fx.root.join("outside").as_path())
    );
}

#[test]
fn command_line_mode_wins() {
    let fx = Fixture::new();
    write(
        &fx.project.join(".tack/settings.json"),
        &json!({"permissions": {"defaultMode": "acceptEdits"}}),
    );
    let s = load(
        &fx,
        CliPermissions {
            mode: Some(Mode::DontAsk),
            disallowed_tools: vec!["Bash(git *)".into()],
            ..CliPermissions::default()
        },
    )
    .unwrap();
    assert_eq!(s.mode().0, Mode::DontAsk);
    assert_eq!(s.mode().1.level, Level::CommandLine);
    assert_eq!(bash(&s, "git status").verdict(), Verdict::Deny);
    assert_eq!(bash(&s, "npm install").verdict(), Verdict::Deny);
}

#[test]
fn missing_files_are_fine() {
    let fx = Fixture::new();
    let s = Settings::load(&fx.project, None, &CliPermissions::default()).unwrap();
    assert!(s.files().is_empty());
    assert_eq!(s.policy().mode(), Mode::Default);
}

#[test]
fn bad_json_names_the_file() {
    let fx = Fixture::new();
    let path = fx.project.join(".tack/settings.json");
    write_text(&path, "{\"permissions\": {\"allow\": [\"Bash(ls *)\",]}}");
    let err = load(&fx, CliPermissions::default()).unwrap_err();
    assert!(matches!(err, Error::Json { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("line 1"), "{text}");
}

#[test]
fn bad_rules_name_file_rule_and_problem() {
    let fx = Fixture::new();
    let path = fx.project.join(".tack/settings.local.json");
    for (rule, problem) in [
        ("Bash(ls *", "closed by `)`"),
        ("Bash()", "specifier is empty"),
        ("TodoWrite(x)", "takes no specifier"),
        ("WebFetch(https://x.com)", "domain:"),
        ("mcp__db__q*", "only `mcp__server__*`"),
        ("Read(~bob/x)", "`~user` paths"),
        ("Read([)", "bad path pattern"),
        ("Ba sh", "not a tool name"),
    ] {
        write(&path, &json!({"permissions": {"deny": [rule]}}));
        let err = load(&fx, CliPermissions::default()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Rule { .. }), "{rule}: {err:?}");
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains(rule), "{text}");
        assert!(text.contains(problem), "{rule}: {text}");
    }
}

#[test]
fn bad_shapes_and_modes_are_errors() {
    let fx = Fixture::new();
    let path = fx.project.join(".tack/settings.json");
    for (value, problem) in [
        (
            json!({"permissions": {"allow": "Bash"}}),
            "must be an array",
        ),
        (json!({"permissions": {"allow": [3]}}), "holds 3"),
        (
            json!({"permissions": {"defaultMode": "yolo"}}),
            "unknown permission mode `yolo`",
        ),
        (json!({"permissions": []}), "must be an object"),
        (json!([]), "must hold a JSON object"),
        (
            json!({"permissions": {"allow": [{"rules": "Bash"}]}}),
            "without a string `rule`",
        ),
        (
            json!({"permissions": {"allow": [{"rule": "Bash", "example": ["x"]}]}}),
            "unknown key `example`",
        ),
    ] {
        write(&path, &value);
        let text = load(&fx, CliPermissions::default())
            .unwrap_err()
            .to_string();
        assert!(text.contains(problem), "{value}: {text}");
        assert!(text.contains(&path.display().to_string()), "{text}");
    }
}

/// A misspelt mode stops loading (read as `default` it could be less strict
/// than meant) with the file, the line and the mode meant.
#[test]
fn a_misspelt_mode_names_the_file_the_line_and_the_mode_meant() {
    let fx = Fixture::new();
    let path = fx.project.join(".claude/settings.json");
    write_text(
        &path,
        "{\n  \"permissions\": {\n    \"allow\": [\"Read\"],\n    \"defaultMode\": \"acceptEdit\"\n  }\n}\n",
    );
    let text = load(&fx, CliPermissions::default())
        .unwrap_err()
        .to_string();
    assert!(text.contains(&format!("{}:4", path.display())), "{text}");
    assert!(text.contains("did you mean `acceptEdits`?"), "{text}");
}

#[test]
fn command_line_rule_errors_say_command_line() {
    let fx = Fixture::new();
    let err = load(
        &fx,
        CliPermissions {
            allowed_tools: vec!["Bash(".into()],
            ..CliPermissions::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("command line"), "{err}");
}

#[test]
fn examples_are_checked_when_loading() {
    let fx = Fixture::new();
    let path = fx.project.join(".tack/settings.json");
    let ok = json!({"permissions": {
        "allow": [{"rule": "Bash(git push *)", "matches": ["git push origin main", "git push"],
                   "not_matches": ["git pushx", "git pull"]},
                  {"rule": "Read(./docs/**)", "matches": ["docs/guide.md", "./docs/a/b.md"],
                   "not_matches": ["src/main.rs", "docs"]},
                  {"rule": "WebFetch(domain:*.example.com)", "matches": ["https://a.example.com/x"],
                   "not_matches": ["https://example.com/", "http://example.com@evil.com/"]},
                  {"rule": "mcp__db", "matches": ["mcp__db__query"], "not_matches": ["mcp__dbx__q"]}],
        "deny": [{"rule": "Bash(rm *)", "matches": ["/bin/rm -rf x", "'rm' x"], "notMatches": ["rmdir x"]}]}});
    write(&path, &ok);
    load(&fx, CliPermissions::default()).unwrap();

    let bad_match = json!({"permissions": {"allow": [
        {"rule": "Bash(git push *)", "matches": ["git pushx origin"]}]}});
    write(&path, &bad_match);
    let err = load(&fx, CliPermissions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Example {
                expected_match: true,
                ..
            }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    for part in [
        path.display().to_string(),
        "Bash(git push *)".to_string(),
        "does not match".to_string(),
        "git pushx origin".to_string(),
    ] {
        assert!(text.contains(&part), "{text}");
    }

    let bad_not_match = json!({"permissions": {"deny": [
        {"rule": "Read(./secrets/**)", "not_matches": ["a/../secrets/key.txt"]}]}});
    write(&path, &bad_not_match);
    let text = load(&fx, CliPermissions::default())
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("matches its example `a/../secrets/key.txt`"),
        "{text}"
    );
    assert!(text.contains("secrets/key.txt"), "{text}");

    let compound = json!({"permissions": {"allow": [
        {"rule": "Bash(ls *)", "matches": ["ls && rm x"]}]}});
    write(&path, &compound);
    let text = load(&fx, CliPermissions::default())
        .unwrap_err()
        .to_string();
    assert!(text.contains("one simple command"), "{text}");
}

#[test]
fn bypass_can_be_disabled() {
    let fx = Fixture::new();
    write(
        &fx.project.join(".tack/settings.json"),
        &json!({"permissions": {"disableBypassPermissionsMode": "disable"}}),
    );
    let err = load(
        &fx,
        CliPermissions {
            mode: Some(Mode::BypassPermissions),
            ..CliPermissions::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("disableBypassPermissionsMode"),
        "{err}"
    );
}

#[test]
fn always_allow_is_written_to_local_settings() {
    let fx = Fixture::new();
    let local = fx.project.join(".tack/settings.local.json");
    write(
        &local,
        &json!({"permissions": {"allow": ["Bash(ls *)"], "defaultMode": "default"}, "hooks": {"Stop": []}}),
    );
    let before = load(&fx, CliPermissions::default()).unwrap();
    assert_eq!(
        bash(&before, "git push origin main").verdict(),
        Verdict::Ask
    );

    let written = add_local_rule(&fx.project, RuleKind::Allow, "Bash(git push *)").unwrap();
    add_local_rule(&fx.project, RuleKind::Allow, "Bash(git push *)").unwrap();
    assert_eq!(written, local);
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(
        value["permissions"]["allow"],
        json!(["Bash(ls *)", "Bash(git push *)"])
    );
    assert_eq!(value["hooks"], json!({"Stop": []}));

    let after = load(&fx, CliPermissions::default()).unwrap();
    assert_eq!(
        bash(&after, "git push origin main").verdict(),
        Verdict::Allow
    );

    assert!(add_local_rule(&fx.project, RuleKind::Allow, "Bash(").is_err());

    // Taken out again (the interactive `/permissions remove`), other keys kept.
    let removed = tack_policy::remove_local_rule(&fx.project, "Bash(git push *)").unwrap();
    assert_eq!(removed, [RuleKind::Allow]);
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(value["permissions"]["allow"], json!(["Bash(ls *)"]));
    assert_eq!(value["hooks"], json!({"Stop": []}));
    assert!(
        tack_policy::remove_local_rule(&fx.project, "Bash(absent)")
            .unwrap()
            .is_empty()
    );
    let gone = load(&fx, CliPermissions::default()).unwrap();
    assert_eq!(bash(&gone, "git push origin main").verdict(), Verdict::Ask);
}

#[test]
fn cwd_relative_rules_of_a_project_file_mean_its_root_and_of_a_user_file_the_session_directory() {
    let fx = Fixture::new();
    write(
        &fx.project.join(".tack/settings.json"),
        &json!({"permissions": {"deny": ["Read(./key.txt)", "Read(/docs/**)"]}}),
    );
    write(
        &fx.home.join(".config/tack/settings.json"),
        &json!({"permissions": {"deny": ["Read(./user.txt)"]}}),
    );
    let s = load(&fx, CliPermissions::default()).unwrap();
    let in_secrets = s.policy_for_cwd(&fx.project.join("secrets")).unwrap();
    let read = |p: &tack_policy::Policy, path: &str| {
        let req = Request::resolve("Read", &json!({"file_path": path}), p.cwd(), p);
        evaluate(&req, p).verdict()
    };
    // A project file's `./` is the project root, from any directory below
    // (where Claude Code is started for the file to apply).
    assert_eq!(read(&in_secrets, "../key.txt"), Verdict::Deny);
    assert_eq!(read(&in_secrets, "key.txt"), Verdict::Allow);
    assert_eq!(read(s.policy(), "key.txt"), Verdict::Deny);
    // A user file's `./` follows the session directory.
    assert_eq!(read(&in_secrets, "user.txt"), Verdict::Deny);
    // (Not denied; outside the session directory, so it asks.)
    assert_eq!(read(&in_secrets, "../user.txt"), Verdict::Ask);
    // `/docs` is relative to the project root, wherever the session is.
    assert_eq!(read(&in_secrets, "../docs/guide.md"), Verdict::Deny);
}

#[test]
fn reading_the_files_then_compiling_them_is_load_with() {
    let fx = Fixture::new();
    let user_dir = fx.home.join(".config/tack");
    let managed = fx.root.join("etc/managed-settings.json");
    write(
        &user_dir.join("settings.json"),
        &json!({"permissions": {"deny": ["Bash(rm *)"]}, "theme": "dark"}),
    );
    write(
        &fx.project.join(".tack/settings.json"),
        &json!({"permissions": {"allow": ["Bash(git log *)"], "defaultMode": "acceptEdits"}}),
    );
    write(
        &managed,
        &json!({"permissions": {"ask": ["Bash(git push *)"], "defaultMode": "plan"}}),
    );

    // No local file: skipped.
    let files = read_settings_files(&fx.project, Some(&user_dir), Some(&managed)).unwrap();
    let levels: Vec<Level> = files.iter().map(|f| f.level).collect();
    assert_eq!(levels, [Level::User, Level::Project, Level::Managed]);
    assert_eq!(files[0].value["theme"], "dark");
    assert_eq!(files[2].path, managed);

    let opts = LoadOptions {
        project_root: fx.project.clone(),
        user_config_dir: Some(user_dir),
        claude_user_dir: None,
        managed_settings: Some(managed.clone()),
        home: Some(fx.home.clone()),
        cwd: None,
        cli: CliPermissions::default(),
    };
    let compiled = Settings::from_files(files, &opts).unwrap();
    let loaded = Settings::load_with(&opts).unwrap();
    assert_eq!(compiled.files(), loaded.files());
    assert_eq!(compiled.rules(), loaded.rules());
    assert_eq!(compiled.mode(), loaded.mode());
    assert_eq!(compiled.mode().0, Mode::Plan);
    assert_eq!(compiled.mode().1.path.as_deref(), Some(managed.as_path()));
}

#[test]
fn from_files_compiles_files_it_did_not_read() {
    let fx = Fixture::new();
    // Where load_with would read: a deny-everything file from_files must not see.
    let unused = fx.home.join(".config/tack");
    write(
        &unused.join("settings.json"),
        &json!({"permissions": {"deny": ["Bash"]}}),
    );
    let file = |level, name: &str, value| SettingsFile {
        level,
        path: fx.root.join("given").join(name),
        value,
        text: String::new(),
    };
    // Given strongest first: kept weakest first.
    let files = vec![
        file(
            Level::Managed,
            "managed.json",
            json!({"permissions": {"deny": ["Bash(rm *)"]}}),
        ),
        file(
            Level::Local,
            "local.json",
            json!({"permissions": {"allow": ["Bash(rm x)", "Bash(ls *)"]}}),
        ),
        file(Level::User, "user.json", json!({"hooks": {"Stop": []}})),
    ];
    let opts = LoadOptions {
        project_root: fx.project.clone(),
        user_config_dir: Some(unused),
        claude_user_dir: None,
        managed_settings: None,
        home: Some(fx.home.clone()),
        cwd: None,
        cli: CliPermissions::default(),
    };
    let s = Settings::from_files(files, &opts).unwrap();
    let levels: Vec<Level> = s.files().iter().map(|f| f.level).collect();
    assert_eq!(levels, [Level::User, Level::Local, Level::Managed]);
    assert_eq!(s.files()[0].value["hooks"]["Stop"], json!([]));

    assert_eq!(bash(&s, "ls -la").verdict(), Verdict::Allow);
    let d = bash(&s, "rm x");
    assert_eq!(d.verdict(), Verdict::Deny);
    match &d.why().decided_by {
        DecidedBy::Rule { source, .. } => {
            assert_eq!(source.level, Level::Managed);
            assert_eq!(
                source.path.as_deref(),
                Some(fx.root.join("given/managed.json").as_path())
            );
        }
        other => panic!("decided by {other:?}"),
    }
}

#[test]
fn reading_a_file_that_is_not_an_object_names_it() {
    let fx = Fixture::new();
    let path = fx.project.join(".tack/settings.local.json");
    write(&path, &json!(["Bash(ls *)"]));
    let err = read_settings_files(&fx.project, None, None).unwrap_err();
    assert!(matches!(err, Error::Settings { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    assert_eq!(
        SettingsFile::read(Level::Local, fx.project.join("missing.json")).unwrap(),
        None
    );
}

#[test]
fn claude_code_files_are_read_before_tacks_at_each_level() {
    let fx = Fixture::new();
    let claude_home = fx.home.join(".claude");
    for (path, mode) in [
        (claude_home.join("settings.json"), "plan"),
        (fx.home.join(".config/tack/settings.json"), "default"),
        (fx.project.join(".claude/settings.json"), "plan"),
        (fx.project.join(".tack/settings.json"), "default"),
        (fx.project.join(".claude/settings.local.json"), "plan"),
        (fx.project.join(".tack/settings.local.json"), "dontAsk"),
    ] {
        write(&path, &json!({"permissions": {"defaultMode": mode}}));
    }
    let files = tack_policy::read_settings_files_with(
        &fx.project,
        Some(&claude_home),
        Some(&fx.home.join(".config/tack")),
        None,
    )
    .unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            let rel = f
                .path
                .strip_prefix(&fx.project)
                .or_else(|_| f.path.strip_prefix(&fx.home))
                .unwrap();
            format!("{:?} {}", f.level, rel.display())
        })
        .collect();
    assert_eq!(
        names,
        [
            "User .claude/settings.json",
            "User .config/tack/settings.json",
            "Project .claude/settings.json",
            "Project .tack/settings.json",
            "Local .claude/settings.local.json",
            "Local .tack/settings.local.json",
        ]
    );
    let opts = LoadOptions {
        project_root: fx.project.clone(),
        home: Some(fx.home.clone()),
        ..LoadOptions::default()
    };
    let s = Settings::from_files(files, &opts).unwrap();
    let (mode, source) = s.mode();
    assert_eq!(mode.as_str(), "dontAsk");
    assert_eq!(
        source.path.as_deref(),
        Some(fx.project.join(".tack/settings.local.json").as_path())
    );
}

#[test]
fn the_home_directorys_claude_directory_does_not_make_it_a_project() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.home.join(".claude")).unwrap();
    std::fs::create_dir_all(fx.home.join("scratch/deep")).unwrap();
    let deep = fx.home.join("scratch/deep");
    assert_eq!(tack_policy::find_project_root(&deep, Some(&fx.home)), deep);
    assert_eq!(tack_policy::find_project_root(&deep, None), fx.home);
}
