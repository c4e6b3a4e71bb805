//! A real directory tree (with symlinks) and a table runner: each case is
//! rules + one call → the expected verdict.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tack_policy::{
    Decision, GitEnvironment, Level, Mode, Policy, PolicyBuilder, Request, RuleEntry, RuleKind,
    Source, Verdict, evaluate,
};

/// A temp tree:
/// ```text
/// root/project/            the working directory (and project root)
///   src/main.rs  secrets/key.txt  .env  .env.example  a/  out/  docs/
///   link_to_secrets -> secrets         (symlink)
///   outside_link   -> ../outside       (symlink)
///   dangling       -> secrets/new.txt  (symlink to a file not yet there)
/// root/outside/file.txt
/// root/home/.ssh/id_rsa  root/home/.zshrc
/// ```
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let home = root.join("home");
        for d in ["src", "secrets", "a", "out", "docs"] {
            std::fs::create_dir_all(project.join(d)).unwrap();
        }
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        for f in [
            "src/main.rs",
            "secrets/key.txt",
            ".env",
            ".env.example",
            "docs/guide.md",
        ] {
            std::fs::write(project.join(f), "x").unwrap();
        }
        std::fs::write(root.join("outside/file.txt"), "x").unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "x").unwrap();
        std::fs::write(home.join(".zshrc"), "x").unwrap();
        std::os::unix::fs::symlink(project.join("secrets"), project.join("link_to_secrets"))
            .unwrap();
        std::os::unix::fs::symlink("../outside", project.join("outside_link")).unwrap();
        std::os::unix::fs::symlink("secrets/new.txt", project.join("dangling")).unwrap();
        Fixture {
            _dir: dir,
            root,
            project,
            home,
        }
    }

    /// Replace `{root}`, `{project}` and `{home}`.
    pub fn expand(&self, s: &str) -> String {
        s.replace("{root}", &self.root.to_string_lossy())
            .replace("{project}", &self.project.to_string_lossy())
            .replace("{home}", &self.home.to_string_lossy())
    }

    /// Build a policy from rule lines: `allow Bash(ls *)`, `deny@user Read(.env)`,
    /// `mode plan`, `dir {root}/outside`, `env XDG_CONFIG_HOME={root}/xdg`
    /// (the environment git's configuration is found by: only the `env`
    /// lines' variables when there is one, else the process's).
    pub fn policy(&self, lines: &[&str]) -> Policy {
        let mut b = PolicyBuilder::new(&self.project).home(Some(self.home.clone()));
        let mut env: Vec<(String, String)> = Vec::new();
        for line in lines {
            let line = self.expand(line);
            let (head, rest) = line.split_once(' ').unwrap();
            let (kind, level) = match head.split_once('@') {
                Some((k, l)) => (k, l),
                None => (head, "code"),
            };
            let level = match level {
                "user" => Level::User,
                "project" => Level::Project,
                "local" => Level::Local,
                "cli" => Level::CommandLine,
                _ => Level::Code,
            };
            let source = Source { level, path: None };
            b = match kind {
                "allow" => b.rule(RuleEntry::new(rest, RuleKind::Allow, source)),
                "ask" => b.rule(RuleEntry::new(rest, RuleKind::Ask, source)),
                "deny" => b.rule(RuleEntry::new(rest, RuleKind::Deny, source)),
                "mode" => b.mode(rest.parse().unwrap()),
                "dir" => b.additional_directory(PathBuf::from(rest)),
                "env" => {
                    let (k, v) = rest.split_once('=').unwrap();
                    env.push((k.to_owned(), v.to_owned()));
                    b
                }
                other => panic!("bad rule line kind {other}"),
            };
        }
        if !env.is_empty() {
            b = b.git_environment(GitEnvironment::from_vars(env));
        }
        b.build().unwrap()
    }

    /// The input of a call written the way a case writes it.
    pub fn input(&self, tool: &str, arg: &str) -> Value {
        let arg = self.expand(arg);
        match tool {
            "Bash" => json!({"command": arg}),
            "Read" | "Write" | "Edit" | "MultiEdit" => json!({"file_path": arg}),
            "NotebookEdit" => json!({"notebook_path": arg}),
            "Glob" => json!({"pattern": arg}),
            "Grep" => json!({"pattern": "x", "path": arg}),
            "WebFetch" => json!({"url": arg}),
            "Skill" => json!({"skill": arg}),
            // No type written: the call names none (general-purpose).
            "Agent" | "Task" if arg.is_empty() => json!({"prompt": "p", "description": "d"}),
            "Agent" | "Task" => json!({"prompt": "p", "description": "d", "subagent_type": arg}),
            // An MCP tool's input, written as JSON.
            t if t.starts_with("mcp__") && !arg.is_empty() => {
                serde_json::from_str(&arg).unwrap_or_else(|e| panic!("{arg} is not JSON: {e}"))
            }
            _ => json!({}),
        }
    }

    /// Decide a call that runs in `cwd`.
    pub fn decide_in(&self, cwd: &Path, policy: &Policy, tool: &str, arg: &str) -> Decision {
        let req = Request::resolve(tool, &self.input(tool, arg), cwd, policy);
        evaluate(&req, policy)
    }
}

/// One row: rules, the call, the expected verdict.
pub struct Case {
    /// Where the call runs, relative to the project (`""`: the project).
    pub cwd: &'static str,
    pub rules: &'static [&'static str],
    pub tool: &'static str,
    pub arg: &'static str,
    pub expect: Verdict,
}

/// `case(rules, tool, arg, verdict)`.
pub const fn case(
    rules: &'static [&'static str],
    tool: &'static str,
    arg: &'static str,
    expect: Verdict,
) -> Case {
    case_in("", rules, tool, arg, expect)
}

/// `case_in(cwd, rules, tool, arg, verdict)`: the call runs in `cwd`
/// (relative to the project), as Bash does after a `cd`.
pub const fn case_in(
    cwd: &'static str,
    rules: &'static [&'static str],
    tool: &'static str,
    arg: &'static str,
    expect: Verdict,
) -> Case {
    Case {
        cwd,
        rules,
        tool,
        arg,
        expect,
    }
}

/// Run a table; report every failing row at once.
pub fn run(table: &[Case]) -> usize {
    run_in(&Fixture::new(), table)
}

/// Run a table in a fixture with more files in its project: `(path,
/// content, executable)`.
#[allow(dead_code)]
pub fn run_with_files(files: &[(&str, &str, bool)], table: &[Case]) -> usize {
    use std::os::unix::fs::PermissionsExt as _;
    let fx = Fixture::new();
    for (path, content, executable) in files {
        let path = fx.project.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        if *executable {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    run_in(&fx, table)
}

/// Run a table in a fixture with symbolic links in its project: `(link,
/// target)`.
#[allow(dead_code)]
pub fn run_with_links(links: &[(&str, &str)], table: &[Case]) -> usize {
    let fx = Fixture::new();
    for (link, target) in links {
        let link = fx.project.join(link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, &link).unwrap();
    }
    run_in(&fx, table)
}

/// Run a table in a fixture with more files anywhere in its tree: `(path,
/// content)`, the path with `{root}`, `{project}` or `{home}`.
#[allow(dead_code)]
pub fn run_with_tree(files: &[(&str, &str)], table: &[Case]) -> usize {
    let fx = Fixture::new();
    for (path, content) in files {
        let path = PathBuf::from(fx.expand(path));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, fx.expand(content)).unwrap();
    }
    run_in(&fx, table)
}

fn run_in(fx: &Fixture, table: &[Case]) -> usize {
    let mut failures = Vec::new();
    for (i, c) in table.iter().enumerate() {
        let policy = fx.policy(c.rules);
        let d = fx.decide_in(&fx.project.join(c.cwd), &policy, c.tool, c.arg);
        if d.verdict() != c.expect {
            failures.push(format!(
                "#{i} {}{}({}) with {:?}: expected {}, got {d}",
                if c.cwd.is_empty() {
                    String::new()
                } else {
                    format!("in {}: ", c.cwd)
                },
                c.tool,
                c.arg.replace('\n', "\\n"),
                c.rules,
                c.expect
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
    table.len()
}

#[allow(dead_code)]
pub fn mode(policy: &Policy) -> Mode {
    policy.mode()
}

#[allow(dead_code)]
pub fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}
