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
//! (`Bash(python *)`, `Bash(sh *)`), a package runner that runs the command
//! it is given (`Bash(direnv *)`, `Bash(pipenv run *)`: every runner the
//! shell analyser unwraps, read from its table) or a task runner that takes
//! a command line or a task file from anywhere (`Bash(just *)`,
//! `Bash(tox *)`), a path rule whose directory is outside
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

/// Programs that run code tack does not see, from their arguments or from a
/// file or a package they name anywhere (`java /tmp/X.java`, `gdb -ex
/// 'shell …'`, `sqlite3 db '.shell …'`, `make --eval`, `tmux new 'cmd'`,
/// `awk 'BEGIN{system(…)}'`, `sed 'e cmd'`): beyond [`INTERPRETERS`], read
/// by the name without its version (`python3.11`, `perl5.36`, `pypy3`).
const CODE_RUNNERS: &[&str] = &[
    "pypy",
    "ipython",
    "jupyter",
    "irb",
    "pry",
    "julia",
    "java",
    "jshell",
    "kotlin",
    "kotlinc",
    "scala",
    "groovy",
    "clojure",
    "clj",
    "jbang",
    "gdb",
    "lldb",
    "sqlite",
    "psql",
    "mysql",
    "mariadb",
    "tmux",
    "screen",
    "make",
    "gmake",
    "bmake",
    "cmake",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "sed",
    "gsed",
    "busybox",
    "toybox",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "ed",
    "ex",
    "wish",
    "erl",
    "iex",
    "elixir",
    "escript",
    "ghci",
    "runghc",
    "runhaskell",
    "ocaml",
    "racket",
    "guile",
    "sbcl",
    "clisp",
    "octave",
    "R",
    "swipl",
    "crystal",
    "dart",
    "tcl",
    "nix-shell",
    "expect",
    "script",
    "watch",
    "nohup",
    "strace",
    "ltrace",
    "chroot",
    "unshare",
    "nsenter",
    "systemd-run",
    "at",
    "batch",
    "crontab",
    "parallel",
    "ssh",
    // Task runners: besides the project's own tasks they run a command
    // line they are given (`just -c CMD`, `nx exec -- CMD`, `tox -- ARGS`
    // into a command), a task file or configuration from anywhere
    // (`task --taskfile /x`, `invoke -c /x`, `ninja -f /x`, `nox -f /x`,
    // `pre-commit try-repo DIR`), or a shell to a file they read.
    "just",
    "task",
    "go-task",
    "invoke",
    "inv",
    "tox",
    "nox",
    "pre-commit",
    "prek",
    "ninja",
    "samu",
    "bazel",
    "bazelisk",
    "buck",
    "buck2",
    "pants",
    "nx",
    "turbo",
    "lerna",
    "grunt",
    "gulp",
    "scons",
    "waf",
    "doit",
    "poe",
    "mage",
    "meson",
    "earthly",
    "concurrently",
    "npm-run-all",
    "run-p",
    "run-s",
    "foreman",
    "honcho",
    "overmind",
    "dotenv",
    "env-cmd",
    "cross-env",
    "watchexec",
    "xvfb-run",
    "fakeroot",
    "bwrap",
    "proot",
];

/// Programs that act on code or packages through a subcommand (`go run
/// /anywhere/x.go`, `cargo run --manifest-path …`, `pip install /tmp/pkg`,
/// `npx pkg`, `docker run -v /:/h …`): with a wildcard where the subcommand
/// stands (`Bash(cargo *)`) they run anything; a rule naming the
/// subcommand (`Bash(cargo test *)`) is held to it, unless that subcommand
/// is one that runs what it is given ([`RUNNING_SUBCOMMANDS`]).
const SUBCOMMAND_RUNNERS: &[&str] = &[
    "go",
    "cargo",
    "rustup",
    "pip",
    "pipx",
    "uv",
    "uvx",
    "poetry",
    "pdm",
    "hatch",
    "conda",
    "mamba",
    "npm",
    "npx",
    "pnpm",
    "pnpx",
    "yarn",
    "bunx",
    "docker",
    "podman",
    "kubectl",
    "nix",
    "dotnet",
    "gradle",
    "gradlew",
    "mvn",
    "mvnw",
    "ant",
    "sbt",
    "mix",
    "rake",
    "bundle",
    "gem",
    "composer",
    "stack",
    "cabal",
    "swift",
    "flutter",
    "git",
    "gh",
    "terraform",
    "ansible",
    "ansible-playbook",
    "vagrant",
    "helm",
    "sudo",
    "doas",
    "su",
    "env",
    "mise",
    "rtx",
    "pixi",
    "rye",
    "devbox",
    "pipenv",
    "micromamba",
];

/// Subcommands that run the code, the package or the command they are
/// given (`nix develop -c`, `ip netns exec`, `podman unshare`, `vagrant
/// ssh -c`, `docker create`). Also the words a wildcard is tried as where
/// a package runner's subcommand stands ([`package_runner`]).
const RUNNING_SUBCOMMANDS: &[&str] = &[
    "run", "exec", "x", "dlx", "eval", "shell", "install", "develop", "netns", "unshare", "ssh",
    "create",
];

/// Programs that write, move, link, change or delete the paths their
/// arguments name, wherever they are: with a wildcard, the whole machine.
const PATH_CHANGERS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "srm",
    "cp",
    "mv",
    "ln",
    "link",
    "install",
    "rsync",
    "scp",
    "dd",
    "tee",
    "truncate",
    "chmod",
    "chown",
    "chgrp",
    "chattr",
    "setfacl",
    "mknod",
    "tar",
    "unzip",
    "cpio",
    "patch",
    "split",
    "csplit",
    "mount",
    "umount",
    "rename",
    "perl-rename",
    "find",
];

/// A program's name without the version written into it: `python3.11` →
/// `python`, `perl5.36` → `perl`, `pypy3` → `pypy`, `node-18` → `node`,
/// `sqlite3` → `sqlite`.
fn unversioned(base: &str) -> String {
    crate::shell::unversioned_names(base)
        .pop()
        .unwrap_or_else(|| base.to_string())
}

/// Why a Bash pattern with a wildcard lets its program reach past the
/// project, or None.
fn wide_program(base: &str, rest: &str) -> Option<String> {
    let plain = unversioned(base);
    let plain = plain.as_str();
    let named = |list: &[&str]| list.contains(&base) || list.contains(&plain);
    if named(INTERPRETERS)
        || named(CODE_RUNNERS)
        || crate::shell::runs_what_it_is_given(base)
        || crate::shell::runs_what_it_is_given(plain)
    {
        return Some(format!(
            "`{base}` runs whatever code its arguments hold, so this allows any command"
        ));
    }
    if let Some(runner) = package_runner(base, rest) {
        return Some(format!(
            "`{runner}` runs whatever command it is given, so this allows any command"
        ));
    }
    if named(PATH_CHANGERS) {
        return Some(format!(
            "`{base}` changes whatever paths its arguments name, outside the project too"
        ));
    }
    let sub = rest.split(' ').find(|w| !w.is_empty()).unwrap_or("*");
    // `npm run NAME` runs the project's own scripts.
    let project_scripts = sub == "run" && matches!(plain, "npm" | "pnpm" | "yarn");
    if named(SUBCOMMAND_RUNNERS)
        && (sub.contains('*') || (RUNNING_SUBCOMMANDS.contains(&sub) && !project_scripts))
    {
        return Some(format!(
            "`{base} {sub}` runs code or packages it is given, from anywhere"
        ));
    }
    None
}

/// The package runner (`direnv exec`, `pipenv run`, `ip netns exec`) a
/// Bash pattern for `base` followed by `rest` can call, as the shell
/// analyser knows them ([`crate::shell::runs_the_command_it_is_given`]:
/// the command it runs needs no rule of its own there, so the runner's
/// rule is the only one). The pattern's literal words are tried as they
/// are, then with its first wildcard as one or two of
/// [`RUNNING_SUBCOMMANDS`].
fn package_runner(base: &str, rest: &str) -> Option<String> {
    let mut words = vec![base];
    let mut open = false;
    for word in rest.split(' ').filter(|w| !w.is_empty()) {
        if word.contains('*') {
            open = true;
            break;
        }
        words.push(word);
    }
    let runs = |words: &[&str]| {
        let probe = [words, &["cmd"]].concat();
        crate::shell::runs_the_command_it_is_given(&probe).then(|| words.join(" "))
    };
    if let Some(found) = runs(&words) {
        return Some(found);
    }
    if !open {
        return None;
    }
    RUNNING_SUBCOMMANDS.iter().find_map(|first| {
        let one = [words.as_slice(), &[first]].concat();
        runs(&one).or_else(|| {
            RUNNING_SUBCOMMANDS.iter().find_map(|second| {
                let two = [one.as_slice(), &[second]].concat();
                runs(&two).map(|_| format!("{} {first} …", words.join(" ")))
            })
        })
    })
}

/// Why a wildcard over `suffix` (`*.co.uk`, `*.github.io`) is as wide as
/// one over a top-level domain: anyone can have a name under a public
/// suffix. A two-label suffix whose first label is a registry's own
/// (`co.uk`, `com.au`, `org.br`, `ac.jp`) is one, and so are the suffixes
/// of the hosting services that give every user a name under theirs.
fn public_suffix(suffix: &str) -> bool {
    const SECOND_LEVEL: &[&str] = &[
        "co", "com", "net", "org", "gov", "edu", "ac", "ne", "or", "go", "gen", "ltd", "plc",
        "nom", "sch", "mil", "info", "biz", "web", "int", "ltda", "me", "id", "in", "nic",
    ];
    const HOSTING: &[&str] = &[
        "github.io",
        "githubusercontent.com",
        "gitlab.io",
        "amazonaws.com",
        "cloudfront.net",
        "herokuapp.com",
        "vercel.app",
        "now.sh",
        "netlify.app",
        "netlify.com",
        "pages.dev",
        "workers.dev",
        "web.app",
        "firebaseapp.com",
        "appspot.com",
        "azurewebsites.net",
        "windows.net",
        "cloudapp.net",
        "ngrok.io",
        "ngrok.app",
        "ngrok-free.app",
        "trycloudflare.com",
        "onrender.com",
        "fly.dev",
        "repl.co",
        "replit.dev",
        "glitch.me",
        "surge.sh",
        "googleusercontent.com",
        "blogspot.com",
        "wordpress.com",
        "pythonanywhere.com",
        "duckdns.org",
        "no-ip.org",
        "ddns.net",
        "readthedocs.io",
        "bitbucket.io",
        "codeberg.page",
        "deno.dev",
        "railway.app",
        "up.railway.app",
        "azurestaticapps.net",
        "digitaloceanspaces.com",
        "ondigitalocean.app",
        "r2.dev",
        "supabase.co",
        "webflow.io",
        "myshopify.com",
        "s3.amazonaws.com",
    ];
    let labels: Vec<&str> = suffix.split('.').collect();
    let registry_level = labels.len() == 2
        && SECOND_LEVEL.contains(&labels[0])
        && labels[1].len() == 2
        && labels[1].chars().all(|c| c.is_ascii_alphabetic());
    registry_level
        || HOSTING
            .iter()
            .any(|h| suffix == *h || suffix.ends_with(&format!(".{h}")))
}

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
            } else if pattern.text.contains('*') {
                wide_program(base, &pattern.text[program.len()..])
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
        Target::Domain(domain) => (domain.subdomains
            && (!domain.host.contains('.') || public_suffix(&domain.host)))
        .then(|| format!("fetches from every host under .{}", domain.host)),
        Target::Command { tool, pattern } => {
            let program = pattern.text.split(' ').next().unwrap_or_default();
            let base = crate::command::file_name(program);
            let plain = unversioned(base);
            let runs_code = [INTERPRETERS, CODE_RUNNERS]
                .iter()
                .any(|list| list.contains(&base) || list.contains(&plain.as_str()));
            (runs_code && pattern.text.contains('*')).then(|| {
                format!("`{base}` runs whatever code its arguments hold, so this lets `{tool}` run any code")
            })
        }
        Target::Mcp { .. } | Target::Skill(_) | Target::Agent(_) => None,
    }
}

/// What an allow rule names that someone declares: an MCP server
/// (`mcp__srv`, `mcp__srv__*`, `mcp__srv__tool`) or a tool by name (a
/// command tool declared in settings, `deploy` or `deploy(…)`). Naming one
/// is narrow only when the project declares it itself: one the user
/// declared (user, local or managed settings, the command line) acts with
/// the user's credentials on the user's systems, past the project; the
/// caller, which sees every level, decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    Server(String),
    Tool(String),
}

/// The MCP server or tool the allow rule `rule` names, or None (a rule of
/// another kind, or one that does not parse).
pub fn named_in_rule(rule: &str) -> Option<Named> {
    match parse_rule(rule).ok()? {
        Target::Mcp { server, .. } => Some(Named::Server(server)),
        Target::Tool(tool) | Target::Command { tool, .. } => Some(Named::Tool(tool)),
        _ => None,
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
            "Bash(cargo test *)",
            "Bash(cargo build *)",
            "Bash(go test ./...)",
            "Bash(go test *)",
            "Bash(npm test *)",
            "Bash(npm run lint *)",
            "Bash(git status *)",
            "Bash(git log *)",
            "Bash(ls *)",
            "Bash(grep *)",
            "Bash(rm -rf build)",
            "Bash(make)",
            "Bash(make test)",
            "WebFetch(domain:docs.github.com)",
            "WebFetch(domain:*.docs.rs)",
            "WebFetch(domain:*.bbc.co.uk)",
            "WebFetch(domain:*.rust-lang.org)",
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
            "run(python3.11 *)",
            "Bash(python3.11 *)",
            "Bash(python3.12 -c *)",
            "Bash(pypy3 *)",
            "Bash(ipython *)",
            "Bash(perl5.36 *)",
            "Bash(node18 *)",
            "Bash(julia *)",
            "Bash(java *)",
            "Bash(jshell *)",
            "Bash(gdb *)",
            "Bash(sqlite3 *)",
            "Bash(psql *)",
            "Bash(tmux *)",
            "Bash(make *)",
            "Bash(awk *)",
            "Bash(go *)",
            "Bash(go run *)",
            "Bash(cargo *)",
            "Bash(cargo run *)",
            "Bash(pip *)",
            "Bash(pip3 install *)",
            "Bash(npx *)",
            "Bash(npm exec *)",
            "Bash(docker *)",
            "Bash(docker run *)",
            "Bash(rm *)",
            "Bash(rm -rf *)",
            "Bash(/bin/rm *)",
            "Bash(cp *)",
            "Bash(mv *)",
            "Bash(chmod *)",
            "Bash(chown *)",
            "Bash(dd *)",
            "Bash(tee *)",
            "Bash(ln *)",
            "Bash(rsync *)",
            "WebFetch(domain:*.co.uk)",
            "WebFetch(domain:*.github.io)",
            "WebFetch(domain:*.amazonaws.com)",
            "WebFetch(domain:*.s3.amazonaws.com)",
            "WebFetch(domain:*.com.au)",
            "WebFetch(domain:*.ngrok.io)",
            // Whatever runs what it is given: wrappers, builtins, small
            // languages.
            "Bash(ssh-agent *)",
            "Bash(source *)",
            "Bash(. *)",
            "Bash(eval *)",
            "Bash(env *)",
            "Bash(timeout *)",
            "Bash(xargs *)",
            "Bash(dc *)",
            "Bash(m4 *)",
            "Bash(ruby *)",
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
