//! Managed (administrator) settings: the strongest level. Its deny beats
//! every allow, its mode beats the command line, it can forbid
//! bypassPermissions and allow only its own rules, and it fails closed.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tack_policy::{
    CliPermissions, DecidedBy, Error, Level, LoadOptions, Mode, Request, RuleKind, Settings,
    Verdict, add_local_rule, evaluate, explain,
};

use crate::support::Fixture;

/// A fixture with the managed settings file outside the project.
struct Managed {
    fx: Fixture,
    path: PathBuf,
}

impl Managed {
    fn new() -> Managed {
        let fx = Fixture::new();
        let path = fx.root.join("etc/tack/managed-settings.json");
        Managed { fx, path }
    }

    fn write(&self, path: &Path, value: &Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    }

    fn managed(&self, value: Value) {
        self.write(&self.path, &value);
    }

    fn project(&self, value: Value) {
        self.write(&self.fx.project.join(".tack/settings.json"), &value);
    }

    fn local(&self, value: Value) {
        self.write(&self.fx.project.join(".tack/settings.local.json"), &value);
    }

    fn user(&self, value: Value) {
        self.write(&self.fx.home.join(".config/tack/settings.json"), &value);
    }

    fn load(&self, cli: CliPermissions) -> tack_policy::Result<Settings> {
        Settings::load_with(&LoadOptions {
            project_root: self.fx.project.clone(),
            user_config_dir: Some(self.fx.home.join(".config/tack")),
            claude_user_dir: None,
            managed_settings: Some(self.path.clone()),
            home: Some(self.fx.home.clone()),
            cwd: None,
            cli,
        })
    }
}

fn bash(settings: &Settings, command: &str) -> tack_policy::Decision {
    let p = settings.policy();
    let req = Request::resolve("Bash", &json!({"command": command}), p.cwd(), p);
    evaluate(&req, p)
}

fn cli_mode(mode: Mode) -> CliPermissions {
    CliPermissions {
        mode: Some(mode),
        ..CliPermissions::default()
    }
}

#[test]
fn managed_deny_beats_local_and_command_line_allows_and_is_named() {
    let m = Managed::new();
    m.managed(json!({"permissions": {"deny": ["Bash(rm *)"]}, "hooks": {"Stop": []}}));
    m.local(json!({"permissions": {"allow": ["Bash(rm *)"]}}));
    let s = m
        .load(CliPermissions {
            allowed_tools: vec!["Bash(rm -rf build)".into()],
            mode: Some(Mode::BypassPermissions),
            ..CliPermissions::default()
        })
        .unwrap();

    let d = bash(&s, "rm -rf build");
    assert_eq!(d.verdict(), Verdict::Deny);
    match &d.why().decided_by {
        DecidedBy::Rule { rule, list, source } => {
            assert_eq!(rule, "Bash(rm *)");
            assert_eq!(*list, RuleKind::Deny);
            assert_eq!(source.level, Level::Managed);
            assert_eq!(source.path.as_deref(), Some(m.path.as_path()));
        }
        other => panic!("decided by {other:?}"),
    }
    assert!(
        d.message()
            .contains(&format!("managed settings {}", m.path.display())),
        "{}",
        d.message()
    );
    // The whole document is kept, strongest level last, for tack-hooks.
    let levels: Vec<Level> = s.files().iter().map(|f| f.level).collect();
    assert_eq!(levels, [Level::Local, Level::Managed]);
    assert_eq!(s.files()[1].value["hooks"], json!({"Stop": []}));
    // Reported first: the strongest level.
    assert_eq!(s.policy().rules()[0].source.level, Level::Managed);
}

#[test]
fn managed_mode_beats_every_file_and_the_command_line() {
    let m = Managed::new();
    m.user(json!({"permissions": {"defaultMode": "bypassPermissions"}}));
    m.project(json!({"permissions": {"defaultMode": "dontAsk"}}));
    m.managed(json!({"permissions": {"defaultMode": "plan"}}));
    let s = m.load(cli_mode(Mode::AcceptEdits)).unwrap();
    assert_eq!(s.mode().0, Mode::Plan);
    assert_eq!(s.mode().1.level, Level::Managed);
    assert_eq!(
        bash(&s, "npm test").verdict(),
        Verdict::Deny,
        "plan mode runs no Bash but commands that only read"
    );

    let e = explain("Bash(ls)", s.policy(), &m.fx.project).unwrap();
    assert!(
        e.to_string().contains(&format!(
            "mode: plan (set in managed settings {})",
            m.path.display()
        )),
        "{e}"
    );

    // Without a managed mode the command line still wins.
    m.managed(json!({"permissions": {}}));
    let s = m.load(cli_mode(Mode::AcceptEdits)).unwrap();
    assert_eq!(s.mode().0, Mode::AcceptEdits);
    assert_eq!(s.mode().1.level, Level::CommandLine);
}

#[test]
fn disabled_bypass_rejects_the_command_line_flag() {
    let m = Managed::new();
    m.managed(json!({"permissions": {"disableBypassPermissionsMode": "disable"}}));
    let err = m.load(cli_mode(Mode::BypassPermissions)).unwrap_err();
    match &err {
        Error::BypassDisabled {
            requested_by,
            disabled_by,
            ..
        } => {
            assert_eq!(requested_by.level, Level::CommandLine);
            assert_eq!(disabled_by.level, Level::Managed);
        }
        other => panic!("{other:?}"),
    }
    let text = err.to_string();
    for part in [
        "`--permission-mode bypassPermissions` on the command line",
        &format!("managed settings {}", m.path.display()),
        "disableBypassPermissionsMode",
        "set by the administrator",
        "run without `--permission-mode bypassPermissions`",
    ] {
        assert!(text.contains(part), "{part:?} not in: {text}");
    }
    // Other modes load.
    assert_eq!(
        m.load(cli_mode(Mode::AcceptEdits)).unwrap().mode().0,
        Mode::AcceptEdits
    );
}

#[test]
fn disabled_bypass_rejects_a_project_file_even_when_another_mode_wins() {
    let m = Managed::new();
    let project = m.fx.project.join(".tack/settings.json");
    m.project(json!({"permissions": {"defaultMode": "bypassPermissions"}}));
    m.managed(json!({"permissions": {"disableBypassPermissionsMode": "disable"}}));
    // The command line's mode would win, but the request is still refused.
    let err = m.load(cli_mode(Mode::Default)).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::BypassDisabled { .. }), "{err:?}");
    assert!(
        text.contains(&format!("in project settings {}", project.display())),
        "{text}"
    );
    assert!(text.contains(&m.path.display().to_string()), "{text}");
    assert!(
        text.contains(&format!(
            "remove `\"defaultMode\": \"bypassPermissions\"` from {}",
            project.display()
        )),
        "{text}"
    );

    // The managed file may not contradict itself either.
    m.project(json!({}));
    m.managed(
        json!({"permissions": {"disableBypassPermissionsMode": "disable",
                                      "defaultMode": "bypassPermissions"}}),
    );
    let text = m.load(CliPermissions::default()).unwrap_err().to_string();
    assert!(text.contains("the administrator must fix it"), "{text}");
}

#[test]
fn a_bad_disable_value_in_managed_settings_is_an_error_elsewhere_ignored() {
    let m = Managed::new();
    m.managed(json!({"permissions": {"disableBypassPermissionsMode": true}}));
    let text = m.load(CliPermissions::default()).unwrap_err().to_string();
    assert!(text.contains(&m.path.display().to_string()), "{text}");
    assert!(text.contains("must be \"disable\""), "{text}");

    m.managed(json!({}));
    m.project(json!({"permissions": {"disableBypassPermissionsMode": true}}));
    let s = m.load(cli_mode(Mode::BypassPermissions)).unwrap();
    assert_eq!(s.mode().0, Mode::BypassPermissions);
}

#[test]
fn allow_managed_permission_rules_only_drops_every_other_rule() {
    let m = Managed::new();
    m.user(json!({"permissions": {"deny": ["Bash(git status)"]}}));
    m.project(
        json!({"permissions": {"allowManagedPermissionRulesOnly": false,
                                      "allow": ["Bash(npm test)"]}}),
    );
    m.local(json!({"permissions": {"ask": ["Bash(git log *)"]}}));
    m.managed(
        json!({"permissions": {"allowManagedPermissionRulesOnly": true,
                                      "allow": ["Bash(git *)"]}}),
    );
    let s = m
        .load(CliPermissions {
            allowed_tools: vec!["Bash(ls *)".into()],
            disallowed_tools: vec!["Bash(git diff *)".into()],
            ..CliPermissions::default()
        })
        .unwrap();

    let only = s.managed_rules_only().unwrap();
    assert_eq!(only.file, m.path);
    assert_eq!(only.ignored_rules, 5);
    assert!(s.rules().iter().all(|r| r.source.level == Level::Managed));
    // The user's deny, the local ask and the command line's deny are gone...
    for cmd in ["git status", "git log -1", "git diff"] {
        assert_eq!(bash(&s, cmd).verdict(), Verdict::Allow, "{cmd}");
    }
    // ...and so are the project's and the command line's allows.
    for cmd in ["npm test", "ls -la | python3"] {
        let d = bash(&s, cmd);
        assert_eq!(d.verdict(), Verdict::Ask, "{cmd}");
        assert!(d.why().suggestions.is_empty(), "{:?}", d.why().suggestions);
        let message = d.without_tty().message();
        assert!(
            message.contains("allowManagedPermissionRulesOnly"),
            "{message}"
        );
        assert!(!message.contains("--allowed-tools"), "{message}");
    }

    let e = explain("Bash(npm test)", s.policy(), &m.fx.project).unwrap();
    let text = e.to_string();
    assert!(
        text.contains(&format!(
            "rules: only those in managed settings {} count (allowManagedPermissionRulesOnly); 5 rules",
            m.path.display()
        )),
        "{text}"
    );
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["managed_rules_only"]["ignored_rules"], 5, "{json}");
}

#[test]
fn allow_managed_permission_rules_only_outside_managed_settings_means_nothing() {
    let m = Managed::new();
    m.project(
        json!({"permissions": {"allowManagedPermissionRulesOnly": true,
                                      "allow": ["Bash(npm test)"]}}),
    );
    let s = m.load(CliPermissions::default()).unwrap();
    assert!(s.managed_rules_only().is_none());
    assert_eq!(bash(&s, "npm test").verdict(), Verdict::Allow);

    m.managed(json!({"permissions": {"allowManagedPermissionRulesOnly": "yes"}}));
    let text = m.load(CliPermissions::default()).unwrap_err().to_string();
    assert!(text.contains("must be true or false"), "{text}");
}

#[test]
fn a_malformed_or_unreadable_managed_file_is_an_error() {
    let m = Managed::new();
    m.project(json!({"permissions": {"allow": ["Bash(ls *)"]}}));
    std::fs::create_dir_all(m.path.parent().unwrap()).unwrap();

    std::fs::write(&m.path, "{\"permissions\": {\"deny\": [\"Bash(rm *)\",]}}").unwrap();
    let err = m.load(CliPermissions::default()).unwrap_err();
    assert!(matches!(err, Error::Json { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&m.path.display().to_string()),
        "{err}"
    );

    std::fs::write(&m.path, "[]").unwrap();
    let text = m.load(CliPermissions::default()).unwrap_err().to_string();
    assert!(text.contains("must hold a JSON object"), "{text}");

    m.managed(json!({"permissions": {"deny": ["Bash("]}}));
    let err = m.load(CliPermissions::default()).unwrap_err();
    assert!(matches!(err, Error::Rule { .. }), "{err:?}");

    // A directory where the file should be cannot be read: not skipped.
    std::fs::remove_file(&m.path).unwrap();
    std::fs::create_dir(&m.path).unwrap();
    let err = m.load(CliPermissions::default()).unwrap_err();
    assert!(matches!(err, Error::Read { .. }), "{err:?}");
}

#[test]
fn a_missing_managed_file_is_fine() {
    let m = Managed::new();
    m.project(json!({"permissions": {"allow": ["Bash(ls *)"]}}));
    let s = m.load(CliPermissions::default()).unwrap();
    assert!(s.files().iter().all(|f| f.level != Level::Managed));
    assert_eq!(bash(&s, "ls").verdict(), Verdict::Allow);
    assert_eq!(s.mode().0, Mode::Default);
}

#[test]
fn always_allow_never_writes_the_managed_file() {
    let m = Managed::new();
    m.managed(json!({"permissions": {"ask": ["Bash(git push *)"]}}));
    let before = std::fs::read(&m.path).unwrap();
    let s = m.load(CliPermissions::default()).unwrap();
    assert_eq!(
        s.local_settings_path(),
        m.fx.project.join(".tack/settings.local.json")
    );

    let written = add_local_rule(&m.fx.project, RuleKind::Allow, "Bash(npm test)").unwrap();
    assert_eq!(written, m.fx.project.join(".tack/settings.local.json"));
    assert_eq!(std::fs::read(&m.path).unwrap(), before);
    let s = m.load(CliPermissions::default()).unwrap();
    assert_eq!(bash(&s, "npm test").verdict(), Verdict::Allow);
    assert_eq!(bash(&s, "git push origin").verdict(), Verdict::Ask);
}
