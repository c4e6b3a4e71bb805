//! The `sandbox` section as Claude Code users write it: read from every
//! level (user `~/.claude/settings.json`, project, local, managed), paths
//! made absolute as Claude Code makes them, mistakes named with their file
//! and line, and a checked-in project file that may only restrict the
//! sandbox until the user approves it. Real files in temp directories.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tack_policy::{Level, LoadOptions};
use tack_sandbox::{DomainPattern, Network};
use tack_session::ProjectContext;

use crate::support::Project;

/// A project with a fake home whose `~/.claude` is the user level, and a
/// managed settings file.
struct Layout {
    project: Project,
    home: tempfile::TempDir,
}

impl Layout {
    fn new() -> Self {
        let layout = Self {
            project: Project::new(),
            home: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(layout.claude_dir()).unwrap();
        layout
    }

    fn home(&self) -> PathBuf {
        self.home.path().canonicalize().unwrap()
    }

    fn claude_dir(&self) -> PathBuf {
        self.home.path().join(".claude")
    }

    fn managed(&self) -> PathBuf {
        self.home.path().join("managed-settings.json")
    }

    /// Writes a file as a person would: pretty, one key a line.
    fn write(&self, path: &Path, value: Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    }

    fn user(&self, value: Value) -> &Self {
        self.write(&self.claude_dir().join("settings.json"), value);
        self
    }

    fn project_file(&self, rel: &str, value: Value) -> &Self {
        self.write(&self.project.dir.path().join(rel), value);
        if rel.ends_with("settings.local.json") {
            self.project.users_own_local_settings();
        }
        self
    }

    fn context(&self) -> ProjectContext {
        ProjectContext::load_with(
            self.project.dir.path(),
            self.project.state.path().to_owned(),
            LoadOptions {
                home: Some(self.home()),
                claude_user_dir: Some(self.claude_dir()),
                managed_settings: Some(self.managed()),
                ..Default::default()
            },
        )
        .unwrap()
    }
}

fn domains(list: &[&str]) -> Vec<DomainPattern> {
    list.iter()
        .map(|d| DomainPattern::parse(d).unwrap())
        .collect()
}

#[test]
fn every_level_counts_scalars_override_and_lists_concatenate() {
    let l = Layout::new();
    l.user(json!({"sandbox": {
        "failIfUnavailable": false,
        "autoAllowBashIfSandboxed": false,
        "excludedCommands": ["docker:*"],
        "network": {"allowedDomains": ["github.com"], "deniedDomains": ["evil.example"]},
        "filesystem": {"allowWrite": ["~/.kube", "./cache", "//opt/build", "/srv/out"],
                       "denyRead": ["~/.aws/credentials"]}
    }}));
    l.project_file(
        ".claude/settings.json",
        json!({"sandbox": {
            "enabled": true,
            "network": {"deniedDomains": ["*.ads.example"]},
            "filesystem": {"denyWrite": ["./infra/**", "deploy"], "denyRead": ["./secrets"]}
        }}),
    );
    l.project_file(
        ".claude/settings.local.json",
        json!({"sandbox": {
            "autoAllowBashIfSandboxed": true,
            "allowUnsandboxedCommands": false,
            "excludedCommands": ["npm run test"],
            "writableRoots": ["../shared"],
            "network": {"allowedDomains": ["*.npmjs.org"], "allowAllUnixSockets": true}
        }}),
    );
    l.write(
        &l.managed(),
        json!({"sandbox": {"failIfUnavailable": true}}),
    );
    let ctx = l.context();
    let s = &ctx.settings.sandbox;
    let root = l.project.path();
    let home = l.home();
    assert!(s.enabled);
    let origin = s.enabled_set_in.as_ref().unwrap();
    assert_eq!(origin.level, Level::Project);
    assert_eq!(origin.line, Some(3), "{origin}");
    assert!(s.fail_if_unavailable, "managed is the last word");
    assert_eq!(
        s.fail_if_unavailable_set_in.as_ref().unwrap().level,
        Level::Managed
    );
    assert!(s.auto_allow_bash_if_sandboxed, "local overrides user");
    assert!(!s.allow_unsandboxed_commands);
    assert_eq!(s.excluded_commands, ["docker:*", "npm run test"]);
    assert_eq!(s.allowed_domains, domains(&["github.com", "*.npmjs.org"]));
    assert_eq!(
        s.denied_domains,
        domains(&["evil.example", "*.ads.example"])
    );
    assert!(s.allow_all_unix_sockets);
    assert!(!s.network_unrestricted);
    assert_eq!(
        s.network(),
        Network::Allowed(domains(&["github.com", "*.npmjs.org"]))
    );
    // `./x` in user settings is under `~/.claude`; in project and local
    // settings under the project root; `/x` and `//x` are absolute.
    assert_eq!(
        s.writable_roots,
        [
            home.join(".kube"),
            l.claude_dir().join("cache"),
            PathBuf::from("/opt/build"),
            PathBuf::from("/srv/out"),
            root.parent().unwrap().join("shared"),
        ]
    );
    assert_eq!(s.deny_write, [root.join("infra"), root.join("deploy")]);
    assert_eq!(
        s.deny_read,
        [home.join(".aws/credentials"), root.join("secrets")]
    );
    assert!(
        ctx.settings.unapproved.is_empty(),
        "a project file that restricts needs no approval"
    );
    assert!(
        ctx.settings.warnings.is_empty(),
        "{:?}",
        ctx.settings.warnings
    );
    let hidden = s.hidden(ctx.settings.permissions.policy());
    assert_eq!(
        hidden.paths,
        [home.join(".aws/credentials"), root.join("secrets")]
    );
    let permissions = s.permissions(std::slice::from_ref(&root), None);
    assert!(permissions.auto_allow && !permissions.allow_unsandboxed_commands);
    assert_eq!(permissions.excluded_commands, s.excluded_commands);
}

#[test]
fn defaults_with_no_sandbox_section_and_a_star_is_the_whole_network() {
    let l = Layout::new();
    let ctx = l.context();
    let s = &ctx.settings.sandbox;
    assert_eq!(s.enabled, cfg!(target_os = "linux"));
    assert_eq!(s.enabled_set_in, None);
    assert!(s.fail_if_unavailable && s.allow_unsandboxed_commands);
    // On by tack's default, it does not stop tack from asking.
    assert!(!s.auto_allow_bash_if_sandboxed);
    assert!(!s.allow_all_unix_sockets);
    assert_eq!(s.network(), Network::Off);

    l.user(json!({"sandbox": {"network": {"allowedDomains": ["*"], "deniedDomains": ["x.com"]}}}));
    let ctx = l.context();
    assert!(ctx.settings.sandbox.network_unrestricted);
    assert_eq!(ctx.settings.sandbox.network(), Network::On);
    assert!(
        ctx.settings
            .warnings
            .iter()
            .any(|w| w.contains("deniedDomains (x.com) cannot be enforced")),
        "{:?}",
        ctx.settings.warnings
    );

    // Turned on in the user's own settings, Claude Code's default applies:
    // sandboxed commands inside the roots need no prompt.
    l.user(json!({"sandbox": {"enabled": true}}));
    assert!(l.context().settings.sandbox.auto_allow_bash_if_sandboxed);
    l.user(json!({"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": false}}));
    assert!(!l.context().settings.sandbox.auto_allow_bash_if_sandboxed);
    // A checked-in file saying `enabled: true` does not bring auto-allow.
    l.user(json!({}));
    l.project_file(
        ".claude/settings.json",
        json!({"sandbox": {"enabled": true}}),
    );
    let ctx = l.context();
    assert!(ctx.settings.sandbox.enabled && !ctx.settings.sandbox.auto_allow_bash_if_sandboxed);
    l.project_file(".claude/settings.json", json!({}));

    // allowLocalBinding: no domain, but a loopback of the commands' own.
    l.user(json!({"sandbox": {"network": {"allowLocalBinding": true}}}));
    assert_eq!(l.context().settings.sandbox.network(), Network::Loopback);
    l.user(
        json!({"sandbox": {"network": {"allowLocalBinding": true, "allowedDomains": ["a.dev"]}}}),
    );
    assert!(matches!(
        l.context().settings.sandbox.network(),
        Network::Allowed(_)
    ));
}

#[test]
fn mistakes_are_named_with_file_line_and_what_was_meant() {
    let l = Layout::new();
    l.user(json!({"sandbox": {
        "enabeld": false,
        "failIfUnavailable": "no",
        "excludedCommands": "docker",
        "bwrapPath": "/usr/bin/bwrap",
        "credentials": {"files": ["~/.aws"]},
        "network": {"allowedDomains": ["https://github.com", "ok.example"],
                    "allowUnixSockets": ["/var/run/docker.sock"],
                    "httpProxyPort": 8080, "alowAllUnixSockets": true},
        "filesystem": {"allowWrite": ["~/*.log", "~bob/x"], "denyWrite": ["./a/*.txt"],
                       "allowRead": ["~"]}
    }}));
    let ctx = l.context();
    let w = ctx.settings.warnings.join("\n");
    let file = l.claude_dir().join("settings.json");
    let line = |needle: &str| {
        let text = std::fs::read_to_string(&file).unwrap();
        let at = text.find(needle).unwrap();
        format!(
            "{}:{}:",
            file.display(),
            text[..at].matches('\n').count() + 1
        )
    };
    for (needle, says) in [
        (
            "\"enabeld\"",
            "unknown key sandbox.enabeld, ignored; did you mean \"enabled\"?",
        ),
        (
            "\"failIfUnavailable\"",
            "sandbox.failIfUnavailable must be true or false",
        ),
        (
            "\"excludedCommands\"",
            "sandbox.excludedCommands must be a list of strings",
        ),
        ("\"bwrapPath\"", "note: tack ignores sandbox.bwrapPath"),
        ("\"credentials\"", "tack does not hide credential files"),
        ("\"https://github.com\"", "is not a domain pattern"),
        (
            "\"allowUnixSockets\"",
            "on Linux only sandbox.network.allowAllUnixSockets applies",
        ),
        (
            "\"httpProxyPort\"",
            "note: tack ignores sandbox.network.httpProxyPort",
        ),
        (
            "\"alowAllUnixSockets\"",
            "did you mean \"allowAllUnixSockets\"?",
        ),
        (
            "\"~/*.log\"",
            "a writable root is a directory, not a pattern",
        ),
        ("\"~bob/x\"", "`~user` paths are not supported"),
        (
            "\"./a/*.txt\"",
            "only a path or `dir/**` can be kept read-only",
        ),
        (
            "\"allowRead\"",
            "note: tack ignores sandbox.filesystem.allowRead",
        ),
    ] {
        let expected = format!("{} {says}", line(needle));
        assert!(
            ctx.settings
                .warnings
                .iter()
                .any(|x| x.starts_with(&line(needle)) && x.contains(says)),
            "expected {expected:?} in:\n{w}"
        );
    }
    let s = &ctx.settings.sandbox;
    assert!(s.fail_if_unavailable, "a wrong type keeps the default");
    assert_eq!(s.allowed_domains, domains(&["ok.example"]));
    assert!(s.writable_roots.is_empty() && s.deny_write.is_empty());
    assert!(!s.allow_all_unix_sockets);
}

#[test]
fn managed_settings_may_allow_only_their_own_domains() {
    let l = Layout::new();
    l.user(json!({"sandbox": {"network": {"allowedDomains": ["mine.example"]}}}));
    l.write(
        &l.managed(),
        json!({"sandbox": {"network": {
        "allowManagedDomainsOnly": true, "allowedDomains": ["corp.example"]}}}),
    );
    let ctx = l.context();
    assert_eq!(
        ctx.settings.sandbox.allowed_domains,
        domains(&["corp.example"])
    );
    assert!(
        ctx.settings
            .warnings
            .iter()
            .any(|w| w.contains("allowManagedDomainsOnly")),
        "{:?}",
        ctx.settings.warnings
    );
}

#[test]
fn a_repository_cannot_turn_the_sandbox_off_or_open_it_without_approval() {
    let l = Layout::new();
    l.project_file(
        ".claude/settings.json",
        json!({"sandbox": {
            "enabled": false,
            "excludedCommands": ["curl:*"],
            "network": {"allowedDomains": ["*"], "deniedDomains": ["evil.example"]},
            "filesystem": {"allowWrite": ["~"], "denyRead": ["./keys"]}
        }}),
    );
    let mut ctx = l.context();
    let s = ctx.settings.sandbox.clone();
    assert_eq!(
        s.enabled,
        cfg!(target_os = "linux"),
        "enabled: false is withheld"
    );
    assert_eq!(s.enabled_set_in, None);
    assert!(s.excluded_commands.is_empty());
    assert!(!s.network_unrestricted);
    assert!(s.writable_roots.is_empty());
    // What restricts applies as written.
    assert_eq!(s.denied_domains, domains(&["evil.example"]));
    assert_eq!(s.deny_read, [l.project.path().join("keys")]);
    let [untrusted] = ctx.settings.unapproved.as_slice() else {
        panic!("{:?}", ctx.settings.unapproved)
    };
    let items = untrusted.items();
    assert!(
        items.contains(&"sandbox.enabled: false (turns the sandbox off)".to_owned()),
        "{items:?}"
    );
    assert!(
        untrusted
            .notice()
            .contains("sandbox.excludedCommands curl:*"),
        "{}",
        untrusted.notice()
    );

    // Approved, it applies.
    let untrusted = untrusted.clone();
    ctx.approve_project_settings(&untrusted).unwrap();
    let ctx = l.context();
    let s = &ctx.settings.sandbox;
    assert!(!s.enabled);
    assert_eq!(s.enabled_set_in.as_ref().unwrap().level, Level::Project);
    assert_eq!(s.excluded_commands, ["curl:*"]);
    assert!(s.network_unrestricted);
    assert_eq!(s.writable_roots, [l.home()]);
    assert!(ctx.settings.unapproved.is_empty());

    // The user's own local file may turn it off without asking anyone.
    let l = Layout::new();
    l.project_file(
        ".claude/settings.local.json",
        json!({"sandbox": {"enabled": false}}),
    );
    let ctx = l.context();
    assert!(!ctx.settings.sandbox.enabled);
    assert!(ctx.settings.unapproved.is_empty());
}

/// `WebFetch(domain:…)` rules are the sandbox's network lists as in Claude
/// Code: deny rules of any level are denied domains; allow rules of the
/// user's own files are allowed domains, a checked-in project file's are not
/// (it may not widen the sandbox unapproved), and with
/// `allowManagedDomainsOnly` only managed ones count.
#[test]
fn domain_rules_give_the_sandbox_its_network_lists() {
    let l = Layout::new();
    l.user(json!({
        "permissions": {"allow": ["WebFetch(domain:github.com)", "WebFetch(domain:*.npmjs.org)"],
                        "deny": ["WebFetch(domain:evil.example)"]},
        "sandbox": {"enabled": true, "network": {"allowedDomains": ["docs.rs"]}}
    }));
    l.project_file(
        ".claude/settings.json",
        json!({"permissions": {"allow": ["WebFetch(domain:repo-asks.example)"],
                               "deny": ["WebFetch(domain:*.ads.example)"]}}),
    );
    let ctx = l.context();
    let settings = with_rule_domains(&ctx);
    assert_eq!(
        settings.network(),
        Network::Allowed(domains(&["docs.rs", "github.com", "*.npmjs.org"]))
    );
    assert_eq!(
        settings.denied_domains,
        domains(&["*.ads.example", "evil.example"])
    );
    // What the session's sandbox is built with.
    if let Some(shell) = ctx.sandbox() {
        let config = shell.sandbox.config();
        assert_eq!(
            config.network,
            Network::Allowed(domains(&["docs.rs", "github.com", "*.npmjs.org"]))
        );
        assert!(
            config
                .denied_domains
                .contains(&DomainPattern::parse("evil.example").unwrap())
        );
    }
    // A rule denying a domain an allow rule names takes it out.
    l.user(json!({
        "permissions": {"allow": ["WebFetch(domain:github.com)"],
                        "deny": ["WebFetch(domain:github.com)"]},
        "sandbox": {"enabled": true}
    }));
    let settings = with_rule_domains(&l.context());
    assert_eq!(settings.network(), Network::Off);

    // Managed settings that allow only their own domains.
    l.write(
        &l.managed(),
        json!({"permissions": {"allow": ["WebFetch(domain:corp.example)"]},
               "sandbox": {"network": {"allowManagedDomainsOnly": true}}}),
    );
    l.user(json!({"permissions": {"allow": ["WebFetch(domain:github.com)"]}}));
    let settings = with_rule_domains(&l.context());
    assert_eq!(
        settings.network(),
        Network::Allowed(domains(&["corp.example"]))
    );
}

/// The session's sandbox settings with its `WebFetch(domain:…)` rules added.
fn with_rule_domains(ctx: &ProjectContext) -> tack_session::SandboxSettings {
    ctx.settings
        .sandbox
        .with_rule_domains(ctx.settings.permissions.policy())
}

/// What tack runs later on its own (a hook's script, an MCP server's
/// program) is read-only inside the sandbox too, so a sandboxed command
/// cannot rewrite what the next hook runs outside it.
#[test]
fn the_sandbox_keeps_what_hooks_and_servers_run_read_only() {
    let l = Layout::new();
    let root = l.project.dir.path();
    for f in ["scripts/check.py", "mcp/server.js"] {
        std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
        std::fs::write(root.join(f), "x").unwrap();
    }
    l.user(json!({
        "sandbox": {"enabled": true},
        "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
            {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR/scripts/check.py\""}
        ]}]}
    }));
    l.project_file(
        ".mcp.json",
        json!({"mcpServers": {"docs": {"command": "node", "args": ["mcp/server.js"]}}}),
    );
    let ctx = l.context();
    let found: Vec<PathBuf> = ctx
        .settings
        .permissions
        .policy()
        .runs_later()
        .map(Path::to_path_buf)
        .collect();
    let canonical = |f: &str| root.join(f).canonicalize().unwrap();
    assert!(found.contains(&canonical("scripts/check.py")), "{found:?}");
    assert!(found.contains(&canonical("mcp/server.js")), "{found:?}");
    if let Some(shell) = ctx.sandbox() {
        let protected = &shell.sandbox.config().protected;
        for f in ["scripts/check.py", "mcp/server.js"] {
            assert!(protected.contains(&canonical(f)), "{f}: {protected:?}");
        }
    }
}
