//! Modes, WebFetch, MCP, other tools, and precedence across levels.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const MODES: &[Case] = &[
    // plan: read-only tools only.
    case(
        &["mode plan", "allow Bash(ls *)"],
        "Read",
        "src/main.rs",
        Allow,
    ),
    // A command that only reads runs in plan mode whether or not an allow
    // rule names it (an allow rule gives, never takes away); one that
    // writes or runs another program does not, whatever allows it.
    case(&["mode plan", "allow Bash(ls *)"], "Bash", "ls", Allow),
    case(
        &["mode plan", "allow Bash(git status:*)"],
        "Bash",
        "git status",
        Allow,
    ),
    case(
        &["mode plan", "allow Bash"],
        "Bash",
        "cat src/main.rs",
        Allow,
    ),
    case(
        &["mode plan", "allow Bash"],
        "Bash",
        "git log --oneline | head",
        Allow,
    ),
    case(&["mode plan", "allow Bash"], "Bash", "rm src/main.rs", Deny),
    case(
        &["mode plan", "allow Bash"],
        "Bash",
        "echo x > notes.txt",
        Deny,
    ),
    case(
        &["mode plan", "allow Bash(ls *)"],
        "Bash",
        "ls > listing.txt",
        Deny,
    ),
    case(
        &["mode plan", "allow Bash(cargo *)"],
        "Bash",
        "cargo build",
        Deny,
    ),
    case(
        &["mode plan", "allow Bash", "deny Read(./.env)"],
        "Bash",
        "cat .env",
        Deny,
    ),
    case(
        &["mode plan", "allow Bash", "ask Bash(git log *)"],
        "Bash",
        "git log",
        Deny,
    ),
    case(&["mode plan"], "Write", "src/x.rs", Deny),
    case(&["mode plan"], "TodoWrite", "", Allow),
    case(&["mode plan"], "WebFetch", "https://example.com/", Ask),
    case(&["mode plan"], "mcp__db__query", "", Deny),
    // dontAsk: what is not allowed is denied.
    case(
        &["mode dontAsk", "allow Bash(ls *)"],
        "Bash",
        "npm install",
        Deny,
    ),
    case(
        &["mode dontAsk", "allow Bash(ls *)"],
        "Bash",
        "ls -la",
        Allow,
    ),
    case(&["mode dontAsk"], "Read", "src/main.rs", Allow),
    case(&["mode dontAsk"], "Read", "{root}/outside/file.txt", Deny),
    case(
        &["mode dontAsk", "ask Bash(git push *)", "allow Bash(git *)"],
        "Bash",
        "git push",
        Deny,
    ),
    case(
        &["mode dontAsk", "allow Bash(ls *)"],
        "Bash",
        "ls $(npm bin)",
        Deny,
    ),
    // bypassPermissions: deny and ask rules still apply.
    case(&["mode bypassPermissions"], "Bash", "npm install", Allow),
    case(
        &["mode bypassPermissions", "deny Bash(rm *)"],
        "Bash",
        "rm x",
        Deny,
    ),
    case(
        &["mode bypassPermissions", "deny Bash(rm *)"],
        "Bash",
        "ls && rm x",
        Deny,
    ),
    case(
        &["mode bypassPermissions", "ask Bash(git push *)"],
        "Bash",
        "git push origin",
        Ask,
    ),
    case(
        &["mode bypassPermissions", "deny Bash(rm *)"],
        "Bash",
        "$CMD x",
        Ask,
    ),
    case(&["mode bypassPermissions"], "Bash", "$CMD x", Allow),
    case(
        &["mode bypassPermissions"],
        "Write",
        "{root}/outside/x",
        Allow,
    ),
    case(
        &["mode bypassPermissions", "deny Edit(./secrets/**)"],
        "Write",
        "secrets/x",
        Deny,
    ),
    case(
        &["mode bypassPermissions", "deny Edit(./secrets/**)"],
        "Bash",
        "echo > $F",
        Ask,
    ),
    // acceptEdits: file edits inside the working directories.
    case(&["mode acceptEdits"], "Write", "src/new.rs", Allow),
    case(
        &["mode acceptEdits"],
        "Edit",
        "{root}/outside/file.txt",
        Ask,
    ),
    case(&["mode acceptEdits"], "Write", "outside_link/x", Ask),
    case(&["mode acceptEdits"], "Bash", "mkdir newdir", Allow),
    case(
        &["mode acceptEdits"],
        "Bash",
        "touch a && mv a b && cp b c",
        Allow,
    ),
    case(&["mode acceptEdits"], "Bash", "mkdir /tmp/elsewhere", Ask),
    case(&["mode acceptEdits"], "Bash", "rm x", Ask),
    case(&["mode acceptEdits"], "Bash", "mv $X y", Ask),
    case(
        &["mode acceptEdits", "allow Bash(echo *)"],
        "Bash",
        "echo hi > notes.txt",
        Allow,
    ),
    case(
        &["mode acceptEdits", "allow Bash(echo *)"],
        "Bash",
        "echo hi > ../x",
        Ask,
    ),
    case(
        &["mode acceptEdits", "deny Edit(./secrets/**)"],
        "Write",
        "secrets/x",
        Deny,
    ),
    // default.
    case(&[], "TodoWrite", "", Allow),
    case(&[], "Task", "", Ask),
    case(&[], "Bash", "cd src", Allow),
    case(&[], "Bash", "cd /", Ask),
    case(&["deny TodoWrite"], "TodoWrite", "", Deny),
    // ToolSearch only loads definitions; Code's nested calls each meet the
    // rules: neither needs a permission of its own, a deny rule still holds.
    case(&[], "ToolSearch", "", Allow),
    case(&[], "Code", "", Allow),
    case(&["mode plan"], "ToolSearch", "", Allow),
    case(&["mode dontAsk"], "Code", "", Allow),
    case(&["deny Code"], "Code", "", Deny),
];

const WEB: &[&str] = &[
    "allow WebFetch(domain:example.com)",
    "deny WebFetch(domain:*.evil.com)",
];

const TOOLS: &[Case] = &[
    case(WEB, "WebFetch", "https://example.com/x", Allow),
    case(WEB, "WebFetch", "https://EXAMPLE.com./x", Allow),
    case(WEB, "WebFetch", "https://sub.example.com/", Ask),
    case(WEB, "WebFetch", "https://a.evil.com/", Deny),
    case(WEB, "WebFetch", "https://evil.com/", Ask),
    case(WEB, "WebFetch", "http://example.com@a.evil.com/", Deny),
    case(WEB, "WebFetch", "http://a.evil.com\\@example.com/", Deny),
    case(WEB, "WebFetch", "not a url at all", Ask),
    case(&["deny WebFetch"], "WebFetch", "https://example.com/", Deny),
    case(
        &["allow mcp__db", "deny mcp__db__drop"],
        "mcp__db__query",
        "",
        Allow,
    ),
    case(
        &["allow mcp__db", "deny mcp__db__drop"],
        "mcp__db__drop",
        "",
        Deny,
    ),
    case(&["allow mcp__db"], "mcp__dbx__query", "", Ask),
    case(
        &["ask mcp__web__*", "allow mcp__web__fetch"],
        "mcp__web__fetch",
        "",
        Ask,
    ),
    case(&["allow mcp__web__*"], "mcp__web__fetch", "", Allow),
    case(&["allow mcp__web__fetch"], "mcp__web__search", "", Ask),
    case(&["allow Task"], "Task", "", Allow),
];

/// An allow never beats a deny or an ask, whatever the levels.
const PRECEDENCE: &[Case] = &[
    case(
        &["deny@user Bash(rm *)", "allow@cli Bash(rm *)"],
        "Bash",
        "rm x",
        Deny,
    ),
    case(
        &["deny@user Bash(rm *)", "allow@local Bash(rm x)"],
        "Bash",
        "rm x",
        Deny,
    ),
    case(
        &["ask@project Bash(git push *)", "allow@cli Bash(git push *)"],
        "Bash",
        "git push",
        Ask,
    ),
    case(
        &["deny@project Read(.env)", "allow@local Read(.env)"],
        "Read",
        ".env",
        Deny,
    ),
    case(
        &["deny@user WebFetch", "allow@cli WebFetch(domain:a.com)"],
        "WebFetch",
        "https://a.com/",
        Deny,
    ),
];

#[test]
fn modes() {
    run(MODES);
}

#[test]
fn tools() {
    run(TOOLS);
}

#[test]
fn precedence() {
    run(PRECEDENCE);
}

#[test]
fn at_least_eighty_cases() {
    let total = MODES.len()
        + TOOLS.len()
        + PRECEDENCE.len()
        + crate::paths::COUNT
        + crate::bash_bypasses::COUNT
        + crate::red_team::COUNT;
    assert!(total >= 80, "only {total} table cases");
    eprintln!("{total} table cases");
}

/// Skill: loading a skill needs no permission unless a rule says so;
/// `Skill(name)` and `Skill(prefix:*)` rules (Claude Code's form) decide
/// per skill, a deny wins, and plan mode may load skills.
const SKILLS: &[Case] = &[
    case(&[], "Skill", "pdf", Allow),
    case(&["mode plan"], "Skill", "pdf", Allow),
    case(&["mode dontAsk"], "Skill", "pdf", Allow),
    case(&["deny Skill(pdf)"], "Skill", "pdf", Deny),
    case(&["deny Skill(pdf)"], "Skill", "/pdf", Deny),
    case(&["deny Skill(pdf)"], "Skill", "docx", Allow),
    case(&["deny Skill"], "Skill", "docx", Deny),
    case(&["deny Skill(*)"], "Skill", "docx", Deny),
    case(&["deny Skill(github:*)"], "Skill", "github:triage", Deny),
    case(&["deny Skill(github:*)"], "Skill", "githubber", Allow),
    case(&["ask Skill(deploy)"], "Skill", "deploy", Ask),
    case(&["ask Skill", "allow Skill(pdf)"], "Skill", "pdf", Ask),
    case(
        &["allow Skill(pdf)", "deny Skill(pdf)"],
        "Skill",
        "pdf",
        Deny,
    ),
    case(&["allow Skill(pdf)"], "Skill", "pdf", Allow),
    case(
        &["deny Skill(pdf)", "mode bypassPermissions"],
        "Skill",
        "pdf",
        Deny,
    ),
];

#[test]
fn skills() {
    run(SKILLS);
}

/// Agent: starting a sub-agent needs no permission unless a rule says so;
/// `Agent(type)` and `Task(type)` rules (Claude Code's form; Task is the
/// tool's old name) decide per `subagent_type`, general-purpose when the
/// call names none.
const AGENTS: &[Case] = &[
    case(&[], "Agent", "Explore", Allow),
    case(&["deny Agent(Explore)"], "Agent", "Explore", Deny),
    case(&["deny Agent(Explore)"], "Agent", "reviewer", Allow),
    case(&["deny Task(Explore)"], "Agent", "Explore", Deny),
    case(&["deny Agent(general-purpose)"], "Agent", "", Deny),
    case(&["deny Agent(general-purpose)"], "Agent", "Explore", Allow),
    case(&["deny Task"], "Agent", "Explore", Deny),
    case(&["ask Agent(Explore)"], "Agent", "Explore", Ask),
    case(
        &["allow Agent(Explore)", "deny Agent(Explore)"],
        "Agent",
        "Explore",
        Deny,
    ),
    case(
        &["ask Agent", "allow Agent(Explore)"],
        "Agent",
        "Explore",
        Ask,
    ),
    case(
        &["deny Agent(Explore)", "mode bypassPermissions"],
        "Agent",
        "Explore",
        Deny,
    ),
];

#[test]
fn agents() {
    run(AGENTS);
}

#[test]
fn a_skill_rule_must_name_a_skill() {
    let fx = crate::support::Fixture::new();
    for bad in ["Skill(a b)", "Skill(a*b)"] {
        let err = tack_policy::PolicyBuilder::new(&fx.project)
            .rule(tack_policy::RuleEntry::new(
                bad,
                tack_policy::RuleKind::Deny,
                tack_policy::Source {
                    level: tack_policy::Level::Code,
                    path: None,
                },
            ))
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("skill name"), "{bad}: {err}");
    }
}

#[test]
fn a_tool_refused_whatever_its_input_is_known_as_such() {
    let fx = crate::support::Fixture::new();
    let policy = fx.policy(&[
        "deny mcp__github__delete_repo",
        "deny mcp__danger",
        "deny git_push",
        "deny Bash(rm *)",
        "deny git_log(--all *)",
        "allow mcp__github",
    ]);
    let refused = |tool: &str| policy.refuses_tool(tool).map(|r| r.text.clone());
    assert_eq!(
        refused("mcp__github__delete_repo").as_deref(),
        Some("mcp__github__delete_repo")
    );
    assert_eq!(
        refused("mcp__danger__anything").as_deref(),
        Some("mcp__danger")
    );
    assert_eq!(refused("git_push").as_deref(), Some("git_push"));
    // A rule on some inputs only does not refuse the tool.
    assert_eq!(refused("Bash"), None);
    assert_eq!(refused("git_log"), None);
    assert_eq!(refused("mcp__github__create_issue"), None);
    assert_eq!(refused("mcp__dangerous__x"), None, "another server");
}
