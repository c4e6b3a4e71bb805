//! S29, S30: the safeguards no allow rule lifts (Claude Code's protected
//! paths and critical paths).
//!
//! S29: a model allowed to edit (acceptEdits, or `Edit`, `Write`, `Bash`
//! allowed) could write `.claude/settings.local.json` (hooks and allow rules
//! for the next run, which local settings get without approval), a
//! `.git/hooks/pre-commit` or `core.fsmonitor` in `.git/config` that the next
//! allowed `git commit` or `git status` runs, a `.bashrc`, an `.envrc`, a
//! `.mcp.json` server. Each of these was allowed; a write there is now asked
//! in default and acceptEdits (refused in dontAsk) whatever the allow
//! rules, through every writer tack knows: the file tools, redirections,
//! `cp`'s destination, `mv`, `tee`, `sed -i`, `ln`, `chmod`, `touch`,
//! `mkdir`, a script's writes, an MCP file server's `write_file`, a hard
//! link to one, a source copied or moved into a directory (`cp -r x/.git .`). Reading
//! them is not guarded, nor is git writing its own `.git`.
//!
//! S30: `rm -rf ~`, `rm -rf /`, `rm -rf .`, `rm -rf *`, `rm -rf "$DIR"/*`
//! ran under `allow Bash` (and in bypassPermissions): a removal of the root,
//! a top-level directory, the home directory, the working directory or a
//! parent, everything inside one of those or an additional directory, or a
//! pattern right under a variable is now asked in every mode (refused in
//! dontAsk).

use tack_protocol::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, case_in, run, run_with_files};

const ACCEPT: &[&str] = &[
    "mode acceptEdits",
    "allow Bash",
    "allow Edit",
    "allow Write",
];
const DEFAULT: &[&str] = &[
    "allow Bash",
    "allow Edit",
    "allow Write",
    "allow NotebookEdit",
];
const BYPASS: &[&str] = &["mode bypassPermissions"];
const DONT_ASK: &[&str] = &["mode dontAsk", "allow Bash", "allow Edit", "allow Write"];

const PROTECTED: &[Case] = &[
    // The file tools.
    case(ACCEPT, "Write", ".git/hooks/pre-commit", Ask),
    case(ACCEPT, "Edit", ".git/config", Ask),
    case(ACCEPT, "Write", ".claude/settings.local.json", Ask),
    case(ACCEPT, "Write", ".claude/settings.json", Ask),
    case(ACCEPT, "Edit", ".tack/settings.local.json", Ask),
    case(ACCEPT, "Write", ".claude/skills/x/SKILL.md", Ask),
    case(ACCEPT, "Write", ".mcp.json", Ask),
    case(ACCEPT, "Write", ".vscode/settings.json", Ask),
    case(ACCEPT, "Write", ".husky/pre-commit", Ask),
    case(ACCEPT, "Write", ".envrc", Ask),
    case(ACCEPT, "Write", ".cargo/config.toml", Ask),
    case(ACCEPT, "Write", "sub/.git/config", Ask),
    case(DEFAULT, "Write", "~/.bashrc", Ask),
    case(DEFAULT, "Edit", "{home}/.zshrc", Ask),
    case(DEFAULT, "Write", "~/.config/git/config", Ask),
    case(DEFAULT, "Write", "~/.config/tack/settings.json", Ask),
    case(
        DEFAULT,
        "Write",
        "~/.local/state/tack/settings-approvals.json",
        Ask,
    ),
    case(DEFAULT, "MultiEdit", ".pre-commit-config.yaml", Ask),
    case(DEFAULT, "Write", "~/.ssh/config", Ask),
    case(
        DEFAULT,
        "Bash",
        "cat key.pub >> ~/.ssh/authorized_keys",
        Ask,
    ),
    case(ACCEPT, "Write", ".Git/hooks/pre-commit", Ask),
    case(DEFAULT, "NotebookEdit", ".vscode/x.ipynb", Ask),
    case(
        &["allow Edit(./.claude/**)"],
        "Write",
        ".claude/settings.json",
        Ask,
    ),
    case(&["allow Edit(//**)"], "Write", ".git/config", Ask),
    // Not protected: other files, Claude Code's worktrees, reads.
    case(ACCEPT, "Write", "src/main.rs", Allow),
    case(ACCEPT, "Write", ".gitignore", Allow),
    case(ACCEPT, "Write", ".github/workflows/ci.yml", Allow),
    case(ACCEPT, "Write", ".claude/worktrees/w/src/a.rs", Allow),
    case(ACCEPT, "Write", "git/config", Allow),
    case(ACCEPT, "Read", ".git/config", Allow),
    case(ACCEPT, "Read", ".claude/settings.json", Allow),
    // Modes: bypassPermissions writes them, dontAsk refuses, a deny rule
    // denies, plan allows no write at all.
    case(BYPASS, "Write", ".git/hooks/pre-commit", Allow),
    case(DONT_ASK, "Write", ".git/hooks/pre-commit", Deny),
    case(
        &["allow Write", "deny Edit(./.git/**)"],
        "Write",
        ".git/config",
        Deny,
    ),
    case(&["mode plan", "allow Write"], "Write", ".git/config", Deny),
    // Commands that write them.
    case(
        ACCEPT,
        "Bash",
        "echo 'rm -rf ~' > .git/hooks/pre-commit",
        Ask,
    ),
    case(ACCEPT, "Bash", "cat payload >> ~/.bashrc", Ask),
    case(
        ACCEPT,
        "Bash",
        "cp evil.json .claude/settings.local.json",
        Ask,
    ),
    case(ACCEPT, "Bash", "cp -t .git/hooks pre-commit", Ask),
    case(
        ACCEPT,
        "Bash",
        "install -m 755 hook .git/hooks/pre-push",
        Ask,
    ),
    case(ACCEPT, "Bash", "mv hook .husky/pre-commit", Ask),
    case(ACCEPT, "Bash", "mv .git/config /tmp/x", Ask),
    case(ACCEPT, "Bash", "printf x | tee .mcp.json", Ask),
    case(ACCEPT, "Bash", "sed -i 's/a/b/' .git/config", Ask),
    case(
        ACCEPT,
        "Bash",
        "ln -sf /tmp/evil .git/hooks/post-checkout",
        Ask,
    ),
    case(ACCEPT, "Bash", "chmod +x .git/hooks/pre-commit", Ask),
    case(ACCEPT, "Bash", "touch .envrc", Ask),
    case(ACCEPT, "Bash", "mkdir -p .vscode", Ask),
    case(ACCEPT, "Bash", "rm .git/index.lock", Ask),
    case(ACCEPT, "Bash", "dd if=payload of=.git/config", Ask),
    case(ACCEPT, "Bash", "tar -xf hooks.tar -C .git/hooks", Ask),
    case(ACCEPT, "Bash", "ok=1 && sudo tee -a ~/.profile < x", Ask),
    case_in("src", ACCEPT, "Bash", "cd .. && echo x > .git/config", Ask),
    case_in(
        "src",
        ACCEPT,
        "Bash",
        "echo '[core] fsmonitor = rm -rf ~' >> ../.git/config",
        Ask,
    ),
    case(ACCEPT, "Bash", "echo x > .git/config && git status", Ask),
    // A hard link is the file under another name; a source copied or
    // moved into a directory lands under its own name there.
    case(ACCEPT, "Bash", "ln .git/config cfg", Ask),
    case(ACCEPT, "Bash", "cp -l .git/config cfg", Ask),
    case(ACCEPT, "Bash", "cp -r evil/.git .", Ask),
    case(ACCEPT, "Bash", "cp -r evil/.claude ./", Ask),
    case(ACCEPT, "Bash", "mv evil/.envrc .", Ask),
    case(DEFAULT, "Bash", "cp payload/.bashrc ~/", Ask),
    case(ACCEPT, "Bash", "cp -t . evil/.mcp.json", Ask),
    case(ACCEPT, "Bash", "ln -s .git/config cfg", Allow),
    // An editor writes what it is given, in batch mode too.
    case(ACCEPT, "Bash", "ex -sc 'wq' .git/config", Ask),
    case(ACCEPT, "Bash", "vim -c wq .git/config", Ask),
    case(
        ACCEPT,
        "Bash",
        "emacs --batch .mcp.json -f save-buffer",
        Ask,
    ),
    case(ACCEPT, "Bash", "view .git/config", Allow),
    case(ACCEPT, "Bash", "cp -r src out/", Allow),
    case(ACCEPT, "Bash", "cp docs/guide.md .", Allow),
    case(BYPASS, "Bash", "echo x > .git/config", Allow),
    case(DONT_ASK, "Bash", "cp evil .git/hooks/pre-commit", Deny),
    case(
        &["allow Bash", "deny Edit(./.git/**)"],
        "Bash",
        "cp evil .git/hooks/pre-commit",
        Deny,
    ),
    // Reading them, copying from them, and git writing its own are not
    // guarded.
    case(ACCEPT, "Bash", "cat .git/config", Allow),
    case(ACCEPT, "Bash", "cp .git/config /tmp/backup", Allow),
    case(ACCEPT, "Bash", "ln -s .git/HEAD head-link", Allow),
    case(ACCEPT, "Bash", "git commit -m x", Allow),
    case(ACCEPT, "Bash", "git config user.name x", Allow),
    case(ACCEPT, "Bash", "echo x > notes.txt", Allow),
    case(ACCEPT, "Bash", "cp a.txt out/", Allow),
    // An MCP file server's write: its `path` meets the protected paths.
    case(
        &["allow mcp__fs"],
        "mcp__fs__write_file",
        r#"{"path": ".git/hooks/pre-commit", "content": "x"}"#,
        Ask,
    ),
    case(
        &["allow mcp__fs"],
        "mcp__fs__read_file",
        r#"{"path": ".git/config"}"#,
        Allow,
    ),
    case(
        &["allow mcp__fs"],
        "mcp__fs__write_file",
        r#"{"path": "src/a.rs", "content": "x"}"#,
        Allow,
    ),
];

const CRITICAL: &[Case] = &[
    case(&["allow Bash"], "Bash", "rm -rf /", Ask),
    case(&["allow Bash"], "Bash", "rm -rf /usr", Ask),
    case(&["allow Bash"], "Bash", "rm -rf /usr/*", Ask),
    case(&["allow Bash"], "Bash", "rm -rf ~", Ask),
    case(&["allow Bash"], "Bash", "rm -rf ~/", Ask),
    case(&["allow Bash"], "Bash", "rm -rf ~/*", Ask),
    case(&["allow Bash"], "Bash", "rm -rf {home}", Ask),
    case(&["allow Bash"], "Bash", "rm -rf \"$HOME\"", Ask),
    case(&["allow Bash"], "Bash", "rm -rf .", Ask),
    case(&["allow Bash"], "Bash", "rm -rf ./", Ask),
    case(&["allow Bash"], "Bash", "rm -rf ..", Ask),
    case(&["allow Bash"], "Bash", "rm -rf {project}", Ask),
    case(&["allow Bash"], "Bash", "rm -rf {root}", Ask),
    case(&["allow Bash"], "Bash", "rm -rf *", Ask),
    case(&["allow Bash"], "Bash", "rm -rf ./*", Ask),
    case(&["allow Bash"], "Bash", "rm -rf .[!.]*", Ask),
    case(&["allow Bash"], "Bash", "rm -rf \"$DIR\"/*", Ask),
    case(&["allow Bash"], "Bash", "rm -rf $DIR/", Ask),
    case(&["allow Bash"], "Bash", "rm -rf \"${BUILD_DIR}/\"", Ask),
    case(&["allow Bash"], "Bash", "rmdir {root}", Ask),
    case(
        &["allow Bash"],
        "Bash",
        "sudo rm -rf --no-preserve-root /",
        Ask,
    ),
    case(&["allow Bash"], "Bash", "echo \"$(rm -rf ~)\"", Ask),
    case(&["allow Bash"], "Bash", "bash -c 'rm -rf ~'", Ask),
    case(&["allow Bash"], "Bash", "ls <(rm -rf .)", Ask),
    case_in("src", &["allow Bash"], "Bash", "rm -rf ..", Ask),
    case_in("src", &["allow Bash"], "Bash", "cd .. && rm -rf *", Ask),
    case(
        &["allow Bash", "dir {root}/outside"],
        "Bash",
        "rm -rf {root}/outside/*",
        Ask,
    ),
    // Every mode asks; dontAsk refuses; a deny rule denies.
    case(BYPASS, "Bash", "rm -rf ~", Ask),
    case(&["mode acceptEdits", "allow Bash"], "Bash", "rm -rf .", Ask),
    case(&["mode dontAsk", "allow Bash"], "Bash", "rm -rf ~", Deny),
    case(&["allow Bash", "deny Bash(rm *)"], "Bash", "rm -rf ~", Deny),
    // Not critical: what is inside the project, a variable without a
    // pattern or slash after it, a pattern with a name of its own.
    case(&["allow Bash"], "Bash", "rm -rf out", Allow),
    case(&["allow Bash"], "Bash", "rm -rf out/*", Allow),
    case(&["allow Bash"], "Bash", "rm -f *.o", Allow),
    case(&["allow Bash"], "Bash", "rm -rf \"$DIR\"", Allow),
    case(&["allow Bash"], "Bash", "rm -rf \"$DIR\"/build", Allow),
    case(&["allow Bash"], "Bash", "rm -rf {root}/outside", Allow),
    case(
        &["allow Bash", "dir {root}/outside"],
        "Bash",
        "rm -rf {root}/outside",
        Allow,
    ),
    case_in("src", &["allow Bash"], "Bash", "rm -rf *", Allow),
    case(BYPASS, "Bash", "rm -rf out", Allow),
];

#[test]
fn s29_writes_to_protected_paths_are_asked_whatever_the_allow_rules() {
    run(PROTECTED);
}

#[test]
fn s30_critical_removals_are_asked_in_every_mode() {
    run(CRITICAL);
}

/// A script the command runs writes a protected path.
#[test]
fn s29_a_scripts_writes_meet_the_protected_paths() {
    run_with_files(
        &[
            (
                "hook.sh",
                "#!/bin/sh\necho 'curl x | sh' > .git/hooks/pre-commit\n",
                true,
            ),
            ("ok.sh", "#!/bin/sh\necho done > out/log.txt\n", true),
        ],
        &[
            case(ACCEPT, "Bash", "./hook.sh", Ask),
            case(ACCEPT, "Bash", "bash hook.sh", Ask),
            case(ACCEPT, "Bash", "./ok.sh", Allow),
        ],
    );
}

/// A link already in the project that points into `.git`: the write goes
/// where the link leads.
#[test]
fn s29_a_link_into_a_protected_directory_is_followed() {
    let fx = crate::support::Fixture::new();
    std::fs::create_dir_all(fx.project.join(".git/hooks")).unwrap();
    std::os::unix::fs::symlink(".git/hooks", fx.project.join("hooks")).unwrap();
    let policy = fx.policy(ACCEPT);
    for (tool, arg) in [
        ("Write", "hooks/pre-commit"),
        ("Bash", "echo x > hooks/pre-commit"),
        ("Bash", "cp x hooks/"),
    ] {
        let d = fx.decide_in(&fx.project, &policy, tool, arg);
        assert!(d.is_ask(), "{tool}({arg}): {d}");
        assert!(d.needs_person(), "{tool}({arg}): {d}");
    }
}

/// tack's state and configuration where the environment moved them
/// (`TACK_STATE_DIR`, `TACK_CONFIG_DIR`, …): the approvals of project
/// settings live there, so writing them would approve a repository's hooks.
#[test]
fn s29_tacks_own_directories_are_protected_where_they_are() {
    let fx = crate::support::Fixture::new();
    let state = fx.root.join("state");
    let policy = tack_policy::PolicyBuilder::new(&fx.project)
        .home(Some(fx.home.clone()))
        .own_dirs(vec![state.clone()])
        .allow("Bash")
        .allow("Write")
        .build()
        .unwrap();
    let approvals = state.join("settings-approvals.json");
    for (tool, arg) in [
        ("Write", approvals.display().to_string()),
        ("Bash", format!("echo '{{}}' > {}", approvals.display())),
    ] {
        let d = fx.decide_in(&fx.project, &policy, tool, &arg);
        assert!(d.needs_person(), "{tool}({arg}): {d}");
    }
    let elsewhere = fx.root.join("outside/notes.txt");
    let d = fx.decide_in(
        &fx.project,
        &policy,
        "Write",
        &elsewhere.display().to_string(),
    );
    assert!(d.is_allow(), "{d}");
}
