//! What in a checked-in project file reaches past the project: allow rules,
//! additional directories and modes that would let calls outside it run
//! without asking. tack-session withholds them until the user approves the
//! file; this module only says which and why (rule semantics live here).
//!
//! The line: an allow rule is narrow when it names one thing the project
//! can be held to — a Bash command whose program is written out (and is not
//! a shell or interpreter that runs whatever its arguments hold), a path
//! inside the project, a host, a tool that takes no specifier, an MCP
//! server or tool. Wide: a tool that takes a specifier named alone (`Bash`,
//! `Bash(*)`, `Read`, `Edit`, `Write`, `WebFetch`…), a Bash pattern whose
//! program is a wildcard (`Bash(* *)`), an interpreter with a wildcard
//! (`Bash(python *)`, `Bash(sh *)`), a path rule whose directory is outside
//! the project (`Read(//**)`, `Read(~/**)`, `Edit(/../**)`, or a link in the
//! project that leads out), and `WebFetch(domain:*.com)`.
//!
//! A command tool declared in settings (`git_log`, `git_log(git log *)`)
//! runs the program its declaration names, so naming it, whole or by an
//! argv pattern, is narrow, as naming an MCP tool is: what it may run is
//! settled where it is declared. One exception shows in the rule itself: a
//! pattern whose program is an interpreter, with a wildcard
//! (`run(python *)`), lets the tool run any code.

use std::path::{Path, PathBuf};

use crate::mode::Mode;
use crate::paths;
use crate::rule::{Anchor, EDIT_TOOLS, READ_TOOLS, Target, parse_rule};

/// Programs that run whatever code their arguments hold: allowing one with
/// a wildcard is allowing everything.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "expect",
    "Rscript",
    "pwsh",
    "powershell",
    "osascript",
];

/// Why the allow rule `rule` of a project file reaches past the project
/// rooted at `project_root` (home `home` for `~/`), or None when it is
/// narrow. A rule that does not parse is None: loading reports it.
pub fn wide_allow_rule(rule: &str, project_root: &Path, home: Option<&Path>) -> Option<String> {
    match parse_rule(rule).ok()? {
        Target::Tool(tool) => wholesale(&tool),
        Target::Bash(pattern) => {
            let program = pattern.text.split(' ').next().unwrap_or_default();
            let base = program.rsplit('/').next().unwrap_or(program);
            if program.is_empty() || program.contains('*') {
                Some("any program, with any arguments".into())
            } else if INTERPRETERS.contains(&base) && pattern.text.contains('*') {
                Some(format!(
                    "`{base}` runs whatever code its arguments hold, so this allows any command"
                ))
            } else {
                None
            }
        }
        Target::Path { tool, pattern } => {
            let literal = literal_prefix(&pattern.rest);
            let dir = match pattern.anchor {
                Anchor::Absolute => PathBuf::from("/").join(literal),
                Anchor::Home => match home {
                    Some(home) => home.join(literal),
                    None => return Some(format!("{tool} in the home directory, which is unknown")),
                },
                Anchor::Root | Anchor::Cwd => project_root.join(literal),
            };
            outside(&dir, project_root).then(|| {
                format!(
                    "{tool} of {} without asking, outside the project",
                    paths::lexical(&dir, project_root).display()
                )
            })
        }
        Target::Domain(domain) => (domain.subdomains && !domain.host.contains('.'))
            .then(|| format!("fetches from every host under .{}", domain.host)),
        Target::Command { tool, pattern } => {
            let program = pattern.text.split(' ').next().unwrap_or_default();
            let base = crate::command::file_name(program);
            (INTERPRETERS.contains(&base) && pattern.text.contains('*')).then(|| {
                format!("`{base}` runs whatever code its arguments hold, so this lets `{tool}` run any code")
            })
        }
        Target::Mcp { .. } | Target::Skill(_) => None,
    }
}

/// Why the `additionalDirectories` entry `dir` of a project file reaches
/// past the project, or None when it is inside it.
pub fn wide_additional_directory(
    dir: &str,
    project_root: &Path,
    home: Option<&Path>,
) -> Option<String> {
    let path = crate::settings::expand_dir(dir, project_root, home);
    outside(&path, project_root).then(|| {
        format!(
            "reads of {} without asking, outside the project",
            path.display()
        )
    })
}

impl Mode {
    /// Whether the mode lets calls run that the default mode asks about
    /// (acceptEdits, bypassPermissions). default, plan and dontAsk only
    /// restrict.
    pub fn widens(self) -> bool {
        matches!(self, Mode::AcceptEdits | Mode::BypassPermissions)
    }
}

fn wholesale(tool: &str) -> Option<String> {
    if tool == "Bash" {
        Some("every Bash command".into())
    } else if READ_TOOLS.contains(&tool) || EDIT_TOOLS.contains(&tool) {
        Some(format!("{tool} of every file, outside the project too"))
    } else if tool == "WebFetch" {
        Some("fetches from every host".into())
    } else {
        // A tool that takes no specifier can only be named whole.
        None
    }
}

/// The leading components of a glob pattern that hold no glob character.
fn literal_prefix(pattern: &str) -> PathBuf {
    pattern
        .split('/')
        .take_while(|c| !c.contains(['*', '?', '[', '{', '\\']))
        .collect()
}

/// Whether `dir` (absolute, or relative to the root) is outside the
/// project, lexically or once its links are followed.
fn outside(dir: &Path, project_root: &Path) -> bool {
    let lexical = paths::lexical(dir, project_root);
    if !paths::is_within(&lexical, project_root) {
        return true;
    }
    let root = paths::canonical(project_root).unwrap_or_else(|_| project_root.to_path_buf());
    match paths::canonical(&lexical) {
        Ok(real) => !paths::is_within(&real, &root),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_between_narrow_and_wide() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = Path::new("/home/someone");
        let wide = |r: &str| wide_allow_rule(r, &root, Some(home));
        for narrow in [
            "Bash(npm run test *)",
            "Bash(cargo test)",
            "Bash(python -c 'print(1)')",
            "Read(./src/**)",
            "Read(/docs/**)",
            "Edit(src/*.rs)",
            "Read(**)",
            "WebFetch(domain:docs.rs)",
            "WebFetch(domain:*.example.com)",
            "WebSearch",
            "TodoWrite",
            "mcp__db",
            "mcp__db__query",
            "git_log",
            "git_log(git log *)",
            "git_log(/usr/bin/git log -n 5)",
            "run(python -c 'print(1)')",
            "not a rule (",
        ] {
            assert_eq!(wide(narrow), None, "{narrow}");
        }
        for broad in [
            "Bash",
            "Bash(*)",
            "Bash(* *)",
            "Bash(*sh -c *)",
            "Bash(python3 *)",
            "Bash(/bin/bash *)",
            "Read",
            "Grep",
            "Edit",
            "Write",
            "WebFetch",
            "Read(//**)",
            "Read(//etc/passwd)",
            "Read(~/**)",
            "Read(~/.ssh/id_rsa)",
            "Edit(/../**)",
            "Read(../**)",
            "WebFetch(domain:*.com)",
            "run(python3 *)",
            "run(/usr/bin/bash -c *)",
        ] {
            assert!(wide(broad).is_some(), "{broad}");
        }
        let inside = format!("Read(/{}/src/**)", root.display());
        assert_eq!(wide(&inside), None, "{inside}");
    }

    #[test]
    fn a_link_in_the_project_that_leads_out_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(out.path(), root.join("away")).unwrap();
        assert!(wide_allow_rule("Read(./away/**)", &root, None).is_some());
        assert!(wide_additional_directory("away", &root, None).is_some());
        assert!(wide_additional_directory("docs", &root, None).is_none());
        assert!(wide_additional_directory("/", &root, None).is_some());
        assert!(wide_additional_directory("~/", &root, Some(Path::new("/home/x"))).is_some());
    }

    #[test]
    fn only_acceptedits_and_bypass_widen() {
        assert!(Mode::BypassPermissions.widens());
        assert!(Mode::AcceptEdits.widens());
        assert!(!Mode::Default.widens());
        assert!(!Mode::Plan.widens());
        assert!(!Mode::DontAsk.widens());
    }
}
