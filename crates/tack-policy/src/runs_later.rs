//! The files tack runs later on its own word, named in its configuration:
//! the scripts of hooks (`"command": "python3 scripts/check.py"`), of the
//! status line and the credential helpers, the programs of MCP servers
//! (`"args": ["./mcp/server.js"]`, in settings or the project's
//! `.mcp.json`) and of declared command tools, the task files a hook's
//! runner reads (`npm run lint`: `package.json`), and the scripts a Bash
//! allow rule names (`Bash(./scripts/deploy.sh *)`). A write to one of them
//! is a protected-path write ([`crate::safeguard`]): without it, a model
//! allowed to edit could put any command in a hook's script and have it run
//! at the next tool call, outside the sandbox and past every rule, or widen
//! what an allow rule lets run without the rule changing.
//!
//! A file counts when a fixed word of the command (or an element of an
//! argv, or an option's `=value`) names a regular file that exists when the
//! policy is built, from the working directory or the project root; words
//! computed at run time and files created later are not known here.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::files::SettingsFile;

/// Who runs a file: said where a write to it is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunFile {
    pub path: PathBuf,
    /// `a hook`, `the MCP server docs`, `the rule Bash(./x.sh *)`.
    pub by: String,
    /// Everything under `path` (a script's directory, a virtual
    /// environment, a directory on `PATH`), not `path` alone.
    pub dir: bool,
    /// tack reads its own configuration from it (a settings file, an MCP
    /// configuration, the administrator's skills): `by` says which.
    pub config: bool,
}

/// Settings keys whose value is a command line tack (or Claude Code) runs.
const COMMAND_KEYS: &[&str] = &[
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "otelHeadersHelper",
];

/// Task runners and the files in the directory they run in whose contents
/// say what they run.
const TASK_FILES: &[(&[&str], &[&str])] = &[
    (
        &["npm", "pnpm", "yarn", "bun", "npx"],
        &["package.json", ".npmrc"],
    ),
    (&["make", "gmake"], &["Makefile", "makefile", "GNUmakefile"]),
    (&["just"], &["justfile", "Justfile", ".justfile"]),
    (&["task"], &["Taskfile.yml", "Taskfile.yaml"]),
    (&["rake"], &["Rakefile"]),
    (&["deno"], &["deno.json", "deno.jsonc"]),
    (&["composer"], &["composer.json"]),
    (&["nox"], &["noxfile.py"]),
    (&["tox"], &["tox.ini", "pyproject.toml"]),
    (
        &["pdm", "hatch", "poe", "poetry", "uv", "pipenv", "rye"],
        &["pyproject.toml", "Pipfile", "pdm.toml"],
    ),
    (&["cargo-make", "makers"], &["Makefile.toml"]),
    (&["invoke", "inv"], &["tasks.py"]),
];

/// Options whose value is the directory a program then works in (`make
/// -C DIR`, `npm --prefix DIR`, `uv run --directory DIR`), and `cd`.
const DIRECTORY_OPTIONS: &[&str] = &[
    "cd",
    "pushd",
    "-C",
    "--directory",
    "--prefix",
    "--cwd",
    "--dir",
    "--project",
    "--root",
];

/// Shells whose `-c` value is a command line.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "fish"];

/// Where a command of the configuration is read from.
struct Place<'a> {
    dirs: Vec<PathBuf>,
    home: Option<&'a Path>,
    vars: [(&'a str, &'a str); 3],
    /// Lines of `bash -c '…'` read so far (a bound on nesting).
    depth: usize,
}

impl Place<'_> {
    /// The existing files `word` names (an option's `=value` too), from
    /// each directory the command may be in.
    fn files(&self, word: &str, out: &mut Vec<PathBuf>) {
        let mut candidates = vec![word];
        if word.starts_with('-')
            && let Some((_, value)) = word.split_once('=')
        {
            candidates.push(value);
        }
        for w in candidates {
            for p in self.paths(w) {
                if std::fs::metadata(&p).is_ok_and(|m| m.is_file()) && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }

    /// `w` from each directory the command may be in (or as it is, from
    /// `/` or `~`).
    fn paths(&self, w: &str) -> Vec<PathBuf> {
        if w.is_empty() || w.contains('\0') {
            return Vec::new();
        }
        if let Some(rest) = w.strip_prefix("~/") {
            return self.home.map(|h| h.join(rest)).into_iter().collect();
        }
        if w.starts_with('~') {
            return Vec::new();
        }
        if Path::new(w).is_absolute() {
            return vec![PathBuf::from(w)];
        }
        self.dirs.iter().map(|d| d.join(w)).collect()
    }

    /// What a shell command line runs from the files.
    fn shell(&mut self, line: &str, out: &mut Vec<PathBuf>) {
        let vars: Vec<(&str, &str)> = self.vars.to_vec();
        let words = crate::shell::fixed_words(line, &vars);
        self.argv(&words, out);
        // `"$(pwd)/h/b.sh"`, `"$(git rev-parse --show-toplevel)/h/e.sh"`:
        // the path below a directory the run computes, from the project's.
        for tail in crate::shell::computed_prefix_tails(line) {
            self.files(&tail, out);
        }
    }

    /// What an argv runs from the files: its program and arguments, the
    /// line a shell's `-c` runs, the module `python -m` runs, a runner's
    /// task file, each from the directories `cd`, `-C`, `--prefix` and the
    /// like lead to.
    fn argv<S: AsRef<str>>(&mut self, argv: &[S], out: &mut Vec<PathBuf>) {
        let words: Vec<String> = argv.iter().map(|w| self.expand(w.as_ref())).collect();
        let before = out.len();
        let mut tasks: Option<(&str, Vec<String>)> = None;
        let mut i = 0;
        while i < words.len() {
            let word = words[i].as_str();
            let next = words.get(i + 1).map(String::as_str);
            self.files(word, out);
            let base = Path::new(word)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            for (runners, files) in TASK_FILES {
                if runners.contains(&base) {
                    for f in *files {
                        self.files(f, out);
                    }
                    if tasks.is_none() {
                        tasks = Some((runners[0], task_names(runners[0], &words[i + 1..])));
                    }
                }
            }
            // `--prefix=DIR`, `-C DIR`, `cd DIR`.
            let dir = match word.split_once('=') {
                Some((name, value)) if DIRECTORY_OPTIONS.contains(&name) => Some(value),
                _ if DIRECTORY_OPTIONS.contains(&base) || DIRECTORY_OPTIONS.contains(&word) => next,
                _ => None,
            };
            if let Some(dir) = dir {
                let found: Vec<PathBuf> =
                    self.paths(dir).into_iter().filter(|d| d.is_dir()).collect();
                for d in found {
                    if !self.dirs.contains(&d) {
                        self.dirs.push(d.clone());
                    }
                    for (_, files) in TASK_FILES {
                        for f in *files {
                            let p = d.join(f);
                            if p.is_file() && !out.contains(&p) {
                                out.push(p);
                            }
                        }
                    }
                }
            }
            if is_command_option(word)
                && self.depth < 4
                && let Some(line) = next
                && words[..i].iter().any(|w| {
                    let b = Path::new(w)
                        .file_name()
                        .and_then(|n| n.to_str())
                        .unwrap_or_default();
                    SHELLS.contains(&b)
                })
            {
                self.depth += 1;
                self.shell(line, out);
                self.depth -= 1;
            }
            if word == "-m"
                && let Some(module) = next
            {
                self.module(module, out);
            }
            i += 1;
        }
        // What the tasks named run: a package's scripts, a Makefile's
        // recipes and the files it includes.
        if let Some((runner, names)) = tasks
            && self.depth < 4
        {
            let found: Vec<PathBuf> = out[before..].to_vec();
            self.depth += 1;
            for file in found {
                let name = file
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                let text = match (runner, name) {
                    ("npm", "package.json") | ("make", "Makefile" | "makefile" | "GNUmakefile") => {
                        std::fs::read_to_string(&file).unwrap_or_default()
                    }
                    _ => continue,
                };
                let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
                let lines = if runner == "npm" {
                    package_scripts(&text, &names)
                } else {
                    let (lines, includes) = make_recipes(&text, &names);
                    for inc in includes {
                        let p = dir.join(inc);
                        if p.is_file() && !out.contains(&p) {
                            out.push(p);
                        }
                    }
                    lines
                };
                let saved = std::mem::replace(&mut self.dirs, vec![dir]);
                for line in lines {
                    self.shell(&line, out);
                }
                self.dirs = saved;
            }
            self.depth -= 1;
        }
    }

    /// `python -m a.b`: `a/b.py`, or the package `a/b` (its `__main__.py`,
    /// its `__init__.py`), and `a/__init__.py`.
    fn module(&self, module: &str, out: &mut Vec<PathBuf>) {
        if module.is_empty()
            || !module
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            return;
        }
        let rel = module.replace('.', "/");
        let mut parts: Vec<String> = vec![
            format!("{rel}.py"),
            format!("{rel}/__main__.py"),
            format!("{rel}/__init__.py"),
        ];
        let mut parent = Path::new(&rel).parent();
        while let Some(p) = parent.filter(|p| !p.as_os_str().is_empty()) {
            parts.push(format!("{}/__init__.py", p.display()));
            parent = p.parent();
        }
        for part in parts {
            self.files(&part, out);
        }
    }

    /// `${VAR}` and `$VAR` of `vars` in an argv element (MCP configurations
    /// expand them; no shell reads an argv).
    fn expand(&self, word: &str) -> String {
        let mut s = word.to_owned();
        for (name, value) in self.vars {
            s = s
                .replace(&format!("${{{name}}}"), value)
                .replace(&format!("${name}"), value);
        }
        expand_defaults(&s)
    }
}

/// `${NAME:-default}` and `${NAME-default}` in an MCP argv element, as
/// tack expands them when it starts the server: the variable's value from
/// tack's environment, else the default.
fn expand_defaults(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let inner = &rest[at + 2..];
        let Some(close) = inner.find('}') else {
            out.push_str(&rest[at..]);
            return out;
        };
        let body = &inner[..close];
        let (name, default) = match body.split_once(":-").or_else(|| body.split_once('-')) {
            Some((n, d)) => (n, Some(d)),
            None => (body, None),
        };
        match (std::env::var(name).ok().filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                out.push_str("${");
                out.push_str(body);
                out.push('}');
            }
        }
        rest = &inner[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The tasks a runner's arguments name: `npm run lint`, `npm test`, `yarn
/// lint`, `pnpm run build` (one script); `make`, `make lint test` (the
/// targets; none: the first).
fn task_names(runner: &str, args: &[String]) -> Vec<String> {
    const WITH_VALUE: &[&str] = &[
        "-f",
        "--file",
        "--makefile",
        "-I",
        "--include-dir",
        "-w",
        "--workspace",
        "-j",
        "-o",
        "-W",
    ];
    let mut skip = false;
    let mut words = args.iter().filter(|w| {
        let value = std::mem::take(&mut skip);
        skip = DIRECTORY_OPTIONS.contains(&w.as_str()) || WITH_VALUE.contains(&w.as_str());
        !value && !w.starts_with('-') && !w.contains('=')
    });
    match runner {
        "npm" => match words.next().map(String::as_str) {
            Some("run" | "run-script" | "rum" | "urn") => {
                words.next().cloned().into_iter().collect()
            }
            Some(task) => vec![task.to_owned()],
            None => Vec::new(),
        },
        "make" => words.cloned().collect(),
        _ => Vec::new(),
    }
}

/// The command lines of `names` in a package.json's `scripts`, with their
/// `pre` and `post` scripts.
fn package_scripts(text: &str, names: &[String]) -> Vec<String> {
    let Ok(json) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let Some(scripts) = json.get("scripts").and_then(Value::as_object) else {
        return Vec::new();
    };
    names
        .iter()
        .flat_map(|n| [format!("pre{n}"), n.clone(), format!("post{n}")])
        .filter_map(|n| scripts.get(&n).and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// A Makefile's recipe lines for the targets `names` (none: the first
/// target) and, in turn, their prerequisites', without make's own prefixes
/// (`@`, `-`, `+`); and the files it includes (`include`, `-include`,
/// `sinclude`). Variables are left as written: a line that needs one is
/// read as far as its fixed words go.
fn make_recipes(text: &str, names: &[String]) -> (Vec<String>, Vec<String>) {
    let mut rules: Vec<(Vec<String>, Vec<String>, Vec<String>)> = Vec::new();
    let mut includes = Vec::new();
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            if let Some(rule) = rules.last_mut() {
                let recipe = recipe.trim_start_matches(['@', '-', '+', ' ']);
                rule.2.push(recipe.to_owned());
            }
            continue;
        }
        let trimmed = line.trim();
        if let Some(rest) = ["include ", "-include ", "sinclude "]
            .iter()
            .find_map(|p| trimmed.strip_prefix(p))
        {
            includes.extend(rest.split_whitespace().map(str::to_owned));
            continue;
        }
        if let Some((targets, prereqs)) = trimmed.split_once(':')
            && !targets.contains('=')
            && !prereqs.starts_with('=')
            && !trimmed.starts_with('#')
        {
            let prereqs = prereqs.split(';').next().unwrap_or_default();
            rules.push((
                targets.split_whitespace().map(str::to_owned).collect(),
                prereqs.split_whitespace().map(str::to_owned).collect(),
                Vec::new(),
            ));
        }
    }
    let mut wanted: Vec<String> = if names.is_empty() {
        rules
            .iter()
            .flat_map(|r| r.0.iter())
            .find(|t| !t.starts_with('.'))
            .cloned()
            .into_iter()
            .collect()
    } else {
        names.to_vec()
    };
    let mut lines = Vec::new();
    let mut k = 0;
    while k < wanted.len() && k < 64 {
        let target = wanted[k].clone();
        for (targets, prereqs, recipe) in &rules {
            if targets.contains(&target) {
                lines.extend(recipe.iter().cloned());
                for p in prereqs {
                    if !wanted.contains(p) {
                        wanted.push(p.clone());
                    }
                }
            }
        }
        k += 1;
    }
    (lines, includes)
}

/// What runs along with the files a command runs: the directory of each
/// script below the project's root or working directory (its sibling
/// modules, the libraries it sources or requires, `node_modules`), and the
/// virtual environment a program is in (its `.pth` and `sitecustomize.py`
/// run at every start).
fn surroundings(files: Vec<PathBuf>, tops: &[&Path], by: &str, found: &mut Vec<RunFile>) {
    let mut add = |path: PathBuf, dir: bool| {
        if !found.iter().any(|f| f.path == path) {
            found.push(RunFile {
                path,
                by: by.to_owned(),
                dir,
                config: false,
            });
        }
    };
    for f in files {
        let venv = f
            .ancestors()
            .skip(1)
            .take(4)
            .find(|d| d.join("pyvenv.cfg").is_file())
            .map(Path::to_path_buf);
        let parent = f.parent().map(Path::to_path_buf);
        add(f, false);
        if let Some(v) = venv {
            add(v, true);
        }
        if let Some(parent) = parent
            && tops.iter().any(|t| parent.starts_with(t) && parent != *t)
        {
            add(parent, true);
        }
    }
}

/// The directories on `PATH` under the project or the home directory (not
/// either itself): what a hook, a server, or tack's own `git` runs by name
/// is found there first when an earlier one holds it.
fn path_dirs(project_root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    path_dirs_in(&path, project_root, home)
}

fn path_dirs_in(path: &std::ffi::OsStr, project_root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    std::env::split_paths(path)
        .filter(|d| d.is_absolute() && d.is_dir())
        .filter(|d| {
            [Some(project_root), home]
                .into_iter()
                .flatten()
                .any(|top| d.starts_with(top) && d != top)
        })
        .collect()
}

/// What a repository's configuration has git run from the working tree or
/// read as more of it: `include.path` and `includeIf.*.path` files, the
/// scripts of diff, merge and filter drivers (`diff.x.textconv`,
/// `filter.x.clean`, `merge.x.driver`), which `git diff` and `git status`
/// run, and the programs it names (`core.fsmonitor`, `core.sshCommand`,
/// `core.editor`, `core.pager`, `credential.helper`, `gpg.program`).
fn git_config_files(project_root: &Path) -> Vec<PathBuf> {
    let Some(worktree) = crate::git_index::worktree_of(project_root) else {
        return Vec::new();
    };
    let git_dir = worktree.join(".git");
    let Ok(text) = std::fs::read_to_string(git_dir.join("config")) else {
        return Vec::new();
    };
    let mut place = Place {
        dirs: vec![worktree.to_path_buf(), git_dir.clone()],
        home: None,
        vars: [("", ""), ("", ""), ("", "")],
        depth: 0,
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim().trim_matches('"');
        if matches!(
            key.as_str(),
            "path"
                | "textconv"
                | "clean"
                | "smudge"
                | "process"
                | "command"
                | "driver"
                | "cmd"
                | "fsmonitor"
                | "sshcommand"
                | "askpass"
                | "editor"
                | "pager"
                | "helper"
                | "program"
        ) {
            place.shell(value, &mut out);
        }
    }
    out
}

/// The files the configuration in `files` (and the project's `.mcp.json`)
/// has tack run later, each with who runs it; and what runs with them
/// (see [`surroundings`], [`path_dirs`], [`git_config_files`]).
pub(crate) fn from_settings(
    files: &[SettingsFile],
    project_root: &Path,
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<RunFile> {
    let root = project_root.to_str().unwrap_or_default();
    let cwd_text = cwd.to_str().unwrap_or_default();
    let tops = [cwd, project_root];
    let mut found: Vec<RunFile> = Vec::new();
    let mut run = |how: &dyn Fn(&mut Place<'_>, &mut Vec<PathBuf>), by: String| {
        let mut place = Place {
            dirs: vec![cwd.to_path_buf(), project_root.to_path_buf()],
            home,
            vars: [
                ("CLAUDE_PROJECT_DIR", root),
                ("TACK_PROJECT_DIR", root),
                // A hook runs in the session's working directory.
                ("PWD", cwd_text),
            ],
            depth: 0,
        };
        let mut out = Vec::new();
        how(&mut place, &mut out);
        surroundings(out, &tops, &by, &mut found);
    };
    for file in files {
        let v = &file.value;
        let mut hooks = Vec::new();
        if let Some(h) = v.get("hooks") {
            hook_commands(h, &mut hooks);
        }
        for line in hooks {
            run(&|p, out| p.shell(line, out), "a hook".to_owned());
        }
        if let Some(line) = v.pointer("/statusLine/command").and_then(Value::as_str) {
            run(&|p, out| p.shell(line, out), "the status line".to_owned());
        }
        for key in COMMAND_KEYS {
            if let Some(line) = v.get(*key).and_then(Value::as_str) {
                run(&|p, out| p.shell(line, out), format!("`{key}`"));
            }
        }
        if let Some(tools) = v.get("tools").and_then(Value::as_object) {
            for (name, tool) in tools {
                let argv = strings(tool.get("command"));
                // `{limit}`: a value the model gives, not a file.
                let argv: Vec<&str> = argv.into_iter().filter(|w| !w.contains('{')).collect();
                run(
                    &|p, out| p.argv(&argv, out),
                    format!("the declared tool {name}"),
                );
            }
        }
        for (name, argv) in mcp_servers(v) {
            run(
                &|p, out| p.argv(&argv, out),
                format!("the MCP server {name}"),
            );
        }
    }
    if let Ok(text) = std::fs::read_to_string(project_root.join(".mcp.json"))
        && let Ok(v) = serde_json::from_str::<Value>(&text)
    {
        for (name, argv) in mcp_servers(&v) {
            run(
                &|p, out| p.argv(&argv, out),
                format!("the MCP server {name}"),
            );
        }
    }
    for dir in path_dirs(project_root, home) {
        if !found.iter().any(|f| f.path == dir) {
            found.push(RunFile {
                path: dir,
                by: "whatever runs a program by its name (a directory on PATH)".to_owned(),
                dir: true,
                config: false,
            });
        }
    }
    for f in git_config_files(project_root) {
        if !found.iter().any(|r| r.path == f) {
            found.push(RunFile {
                path: f,
                by: "git (the repository's configuration names it)".to_owned(),
                dir: false,
                config: false,
            });
        }
    }
    found
}

/// The files tack reads its own configuration from, at every level: the
/// settings files the policy was built from (the user's, the project's,
/// `--settings FILE`, the administrator's managed file), the `--mcp-config`
/// files, the managed settings file even when it does not exist yet (the
/// file `TACK_MANAGED_SETTINGS` names, `/etc/tack/managed-settings.json`)
/// and the administrator's skills beside it (`/etc/tack/skills`), and the
/// user's configuration directories `user_dirs`. A model
/// that rewrote one would set the rules, hooks and servers of the next run
/// (or of this one, reloaded after an "always allow"). Files protected by
/// name already (`.claude/`, `.tack/`, `~/.config/tack/`) are left out; so
/// is inline JSON, which is no file. A relative path is the process's
/// (it was read from there).
pub(crate) fn config_files(
    files: &[SettingsFile],
    mcp_config: &[SettingsFile],
    managed: Option<&Path>,
    user_dirs: &[&Path],
    found: &mut Vec<RunFile>,
) {
    let mut add = |path: &Path, by: &str, dir: bool, exists: bool| {
        let Ok(path) = std::path::absolute(path) else {
            return;
        };
        if (exists && !path.exists())
            || crate::safeguard::protected(&path).is_some()
            || found.iter().any(|f| f.path == path)
        {
            return;
        }
        found.push(RunFile {
            path,
            by: by.to_owned(),
            dir,
            config: true,
        });
    };
    for file in files {
        add(&file.path, "tack reads its settings from it", false, true);
    }
    // The user's configuration directories wherever they were put (an
    // embedder's, `TACK_CONFIG_DIR`'s): tack loads the user's settings,
    // skills and agents from them, with no approval.
    for dir in user_dirs {
        add(
            dir,
            "tack loads the user's settings, skills and agents from it",
            true,
            false,
        );
    }
    for file in mcp_config {
        add(
            &file.path,
            "tack reads its MCP servers from it",
            false,
            true,
        );
    }
    if let Some(managed) = managed {
        add(
            managed,
            "the administrator's managed settings",
            false,
            false,
        );
        if let Some(dir) = managed.parent() {
            add(
                &dir.join("skills"),
                "the administrator's skills, loaded without approval",
                true,
                false,
            );
        }
    }
}

/// The scripts a Bash allow rule's pattern names (`./deploy.sh *`, `bash
/// scripts/ci.sh`): what the rule lets run changes when they do.
pub(crate) fn from_rule(pattern: &str, cwd: &Path, project_root: &Path) -> Vec<PathBuf> {
    let place = Place {
        dirs: vec![cwd.to_path_buf(), project_root.to_path_buf()],
        home: None,
        vars: [("", ""), ("", ""), ("", "")],
        depth: 0,
    };
    let head = pattern.split('*').next().unwrap_or_default();
    let words = crate::shell::fixed_words(head, &[]);
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        // A program found on PATH (`npm`, `git`) is no file of the project.
        if word.contains('/') || has_script_extension(word) {
            place.files(word, &mut out);
        }
        // `Bash(python3 -m tools.deploy *)`: the module it runs.
        if word == "-m"
            && let Some(module) = words.get(i + 1)
        {
            place.module(module, &mut out);
        }
    }
    out
}

/// A command of the configuration as written: a shell line (a hook, a
/// status line) or an argv (an MCP server, a declared command tool).
#[derive(Debug, Clone, Copy)]
pub enum ConfiguredCommand<'a> {
    Shell(&'a str),
    Argv(&'a [String]),
}

/// The project's own files `command` runs (its scripts, the module `python
/// -m` runs, a runner's task file and what the tasks run), found as
/// [`from_settings`] finds them, from the project root: what a `git pull`
/// can change under an approved command line. An argv word holding `{`
/// (a declared tool's `{limit}`) is a value the model gives, not a file.
pub fn project_scripts(
    command: ConfiguredCommand<'_>,
    project_root: &Path,
    home: Option<&Path>,
) -> Vec<PathBuf> {
    let root = project_root.to_str().unwrap_or_default();
    let mut place = Place {
        dirs: vec![project_root.to_path_buf()],
        home,
        vars: [
            ("CLAUDE_PROJECT_DIR", root),
            ("TACK_PROJECT_DIR", root),
            ("PWD", root),
        ],
        depth: 0,
    };
    let mut out = Vec::new();
    match command {
        ConfiguredCommand::Shell(line) => {
            place.shell(line, &mut out);
            computed_scripts(line, project_root, &mut out);
        }
        ConfiguredCommand::Argv(argv) => {
            let argv: Vec<&str> = argv
                .iter()
                .map(String::as_str)
                .filter(|w| !holds_placeholder(w))
                .collect();
            place.argv(&argv, &mut out);
        }
    }
    out.retain(|f| f.starts_with(project_root));
    out
}

/// The scripts a line names only through what the shell computes (`for f
/// in .claude/hooks/*.sh; do bash "$f"; done`, `bash "$HOOK_DIR/x.sh"`,
/// `source scripts/$ENV.sh`): every script of the project directory its
/// literal start names (the root's own scripts when it names none), so a
/// new or changed one there lapses the approval too.
fn computed_scripts(line: &str, root: &Path, out: &mut Vec<PathBuf>) {
    const COMPUTED: &[char] = &['$', '*', '?', '[', '`'];
    const ROOT_VARS: &[&str] = &[
        "${CLAUDE_PROJECT_DIR}",
        "$CLAUDE_PROJECT_DIR",
        "${TACK_PROJECT_DIR}",
        "$TACK_PROJECT_DIR",
    ];
    let mut dirs: Vec<PathBuf> = Vec::new();
    let tokens =
        line.split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'));
    for token in tokens {
        let token = token.trim_matches(['"', '\'']);
        // `$CLAUDE_PROJECT_DIR/…` is the root, not a computed word.
        let token = ROOT_VARS
            .iter()
            .find_map(|v| token.strip_prefix(v))
            .map_or(token, |rest| rest.trim_start_matches('/'));
        let Some(at) = token.find(COMPUTED) else {
            continue;
        };
        let literal = &token[..at];
        let dir = match literal.rfind('/') {
            Some(k) => root.join(literal[..k].trim_start_matches("./")),
            None => root.to_path_buf(),
        };
        if dir.starts_with(root) && dir.is_dir() && !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && (dir != root
                        || p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(has_script_extension))
            })
            .collect();
        found.sort();
        for f in found.into_iter().take(DIGEST_FILES) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
}

/// Whether an argv word holds a declared tool's `{placeholder}` (a value
/// the model gives), not only `${VAR}`s.
fn holds_placeholder(word: &str) -> bool {
    let mut rest = word;
    while let Some(at) = rest.find('{') {
        if !rest[..at].ends_with('$') {
            return true;
        }
        rest = &rest[at + 1..];
    }
    false
}

/// Files read for one digest, at most (a bound on a tree's size).
const DIGEST_FILES: usize = 2_000;
/// A file's contents are read for a digest up to this size; a larger one
/// counts by its length, change time and inode.
const DIGEST_FILE_BYTES: u64 = 4 << 20;
/// Directories a digest does not walk into (another tool's store; a
/// package's own files are reached through what imports them).
const DIGEST_SKIPPED_DIRS: &[&str] = &[".git", "node_modules"];

/// A digest of what `scripts` hold and of the project code they load
/// ([`code_closure`]): an approval bound to it lapses when any of them
/// changes, as when the command line itself does. Empty for no scripts.
pub fn scripts_digest(scripts: &[PathBuf], project_root: &Path) -> String {
    use sha2::Digest as _;
    if scripts.is_empty() {
        return String::new();
    }
    let files = code_closure(scripts, project_root);
    let mut hasher = sha2::Sha256::new();
    for file in &files {
        let rel = file.strip_prefix(project_root).unwrap_or(file);
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0]);
        match std::fs::metadata(file) {
            Ok(meta) if meta.len() <= DIGEST_FILE_BYTES => match std::fs::read(file) {
                Ok(bytes) => hasher.update(sha2::Sha256::digest(&bytes)),
                Err(e) => hasher.update(format!("unreadable: {:?}", e.kind()).as_bytes()),
            },
            Ok(meta) => {
                use std::os::unix::fs::MetadataExt as _;
                hasher.update(
                    format!(
                        "{} {} {} {}",
                        meta.len(),
                        meta.ctime(),
                        meta.ctime_nsec(),
                        meta.ino()
                    )
                    .as_bytes(),
                );
            }
            Err(_) => hasher.update(b"missing"),
        }
        hasher.update([0]);
    }
    hasher.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The project's files `scripts` load, sorted: each script; every file of
/// its directory and below when that directory is under the project root
/// (a hook's `.claude/hooks/`, a server's `mcp/`: its libraries, its
/// `__pycache__`); the modules of its own language beside it (a root
/// `check.py` imports `helper.py`; a root `json.py` shadows the standard
/// library); what it imports or sources by a name the project holds
/// (`from lib.util import x`, `require('./lib/x')`, `source
/// "$CLAUDE_PROJECT_DIR/lib/sh/common.sh"`), followed in turn; and the
/// start-up files of a virtual environment in the project (`.pth`,
/// `sitecustomize.py`). At most [`DIGEST_FILES`].
fn code_closure(scripts: &[PathBuf], root: &Path) -> Vec<PathBuf> {
    let mut files: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
    let mut walked: Vec<PathBuf> = Vec::new();
    let mut queue: std::collections::VecDeque<PathBuf> = scripts.iter().cloned().collect();
    while let Some(file) = queue.pop_front() {
        if files.len() >= DIGEST_FILES || !file.starts_with(root) || !files.insert(file.clone()) {
            continue;
        }
        let Some(dir) = file.parent().map(Path::to_path_buf) else {
            continue;
        };
        if dir != root && dir.starts_with(root) && !walked.iter().any(|w| dir.starts_with(w)) {
            walk_into(&dir, &mut files, 0);
            walked.push(dir.clone());
        }
        if let Some(venv) = file
            .ancestors()
            .skip(1)
            .take(4)
            .find(|d| d.join("pyvenv.cfg").is_file())
        {
            venv_startup(venv, &mut files);
        }
        // A task file (a Makefile, package.json, a justfile) runs the
        // scripts it names, in a recipe, a variable or `$(shell …)`.
        if is_task_file(&file) {
            if let Ok(text) = std::fs::read_to_string(&file) {
                for word in text.split(|c: char| {
                    c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | '=' | ',' | ';' | '`')
                }) {
                    if has_script_extension(word) && !word.contains("://") {
                        let p = dir.join(word.trim_start_matches("./"));
                        if p.is_file() {
                            queue.push_back(p);
                        }
                    }
                }
            }
            continue;
        }
        let language = Language::of(&file);
        if language == Language::Other {
            continue;
        }
        // The modules beside it that it may import without a path.
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.is_file() && Language::of(&p) == language && language != Language::Shell {
                    queue.push_back(p);
                }
            }
        }
        if language == Language::Python {
            walk_into(&dir.join("__pycache__"), &mut files, 3);
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for name in imported(language, &text, root, &dir) {
            for p in [dir.join(&name), root.join(&name)] {
                if p.is_dir() {
                    walk_into(&p, &mut files, 0);
                } else if p.is_file() {
                    queue.push_back(p);
                }
            }
        }
    }
    files.into_iter().collect()
}

/// Whether `file` is a task runner's file ([`TASK_FILES`], `*.mk`).
fn is_task_file(file: &Path) -> bool {
    let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    name.ends_with(".mk") || TASK_FILES.iter().any(|(_, files)| files.contains(&name))
}

/// Every regular file under `dir` (not [`DIGEST_SKIPPED_DIRS`]), `depth`
/// levels in at most 4, into `files`.
fn walk_into(dir: &Path, files: &mut std::collections::BTreeSet<PathBuf>, depth: usize) {
    if depth > 4 || files.len() >= DIGEST_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if files.len() >= DIGEST_FILES {
            return;
        }
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            let skipped = p
                .file_name()
                .is_some_and(|n| DIGEST_SKIPPED_DIRS.iter().any(|s| n == *s));
            if !skipped {
                walk_into(&p, files, depth + 1);
            }
        } else {
            // A link counts by where it leads (what it holds is read).
            files.insert(p);
        }
    }
}

/// The files a Python virtual environment runs at every start: the `.pth`
/// files and `sitecustomize.py`/`usercustomize.py` of its site-packages.
fn venv_startup(venv: &Path, files: &mut std::collections::BTreeSet<PathBuf>) {
    for lib in ["lib", "lib64"] {
        let Ok(pythons) = std::fs::read_dir(venv.join(lib)) else {
            continue;
        };
        for python in pythons.flatten() {
            let site = python.path().join("site-packages");
            let Ok(entries) = std::fs::read_dir(&site) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let name = e.file_name();
                let name = name.to_string_lossy();
                if p.is_file()
                    && (name.ends_with(".pth")
                        || name == "sitecustomize.py"
                        || name == "usercustomize.py")
                {
                    files.insert(p);
                }
            }
        }
    }
}

/// The language of a script, by its extension or its `#!` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Language {
    Python,
    JavaScript,
    Shell,
    Other,
}

impl Language {
    fn of(path: &Path) -> Language {
        match path.extension().and_then(|e| e.to_str()) {
            Some("py") => return Language::Python,
            Some("js" | "mjs" | "cjs" | "ts" | "mts" | "cts") => return Language::JavaScript,
            Some("sh" | "bash" | "zsh") => return Language::Shell,
            Some(_) => return Language::Other,
            None => {}
        }
        let mut head = [0u8; 128];
        let n = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
            .unwrap_or(0);
        let line = String::from_utf8_lossy(&head[..n]);
        let line = line.lines().next().unwrap_or_default();
        if !line.starts_with("#!") {
            Language::Other
        } else if line.contains("python") {
            Language::Python
        } else if line.contains("node") || line.contains("deno") || line.contains("bun") {
            Language::JavaScript
        } else if line.contains("sh") {
            Language::Shell
        } else {
            Language::Other
        }
    }
}

/// The project paths `text` (a script of `language` in `dir`) imports or
/// sources by name, relative to `dir` or the root: `a/b.py`, `a/b` (a
/// package), `./lib/x.js`, `lib/sh/common.sh`.
fn imported(language: Language, text: &str, root: &Path, dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().take(5_000) {
        let line = line.trim_start();
        match language {
            Language::Python => {
                let module = line
                    .strip_prefix("from ")
                    .or_else(|| line.strip_prefix("import "))
                    .and_then(|rest| rest.split([' ', ',', ';']).next())
                    .map(|m| m.trim_start_matches('.'));
                if let Some(m) = module.filter(|m| {
                    !m.is_empty()
                        && m.chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
                }) {
                    let rel = m.replace('.', "/");
                    out.push(format!("{rel}.py"));
                    out.push(rel.clone());
                    if let Some((top, _)) = m.split_once('.') {
                        out.push(format!("{top}/__init__.py"));
                    }
                }
            }
            Language::JavaScript => {
                for quote in ['\'', '"', '`'] {
                    for piece in line.split(quote).skip(1).step_by(2) {
                        if piece.starts_with("./") || piece.starts_with("../") {
                            for ext in ["", ".js", ".mjs", ".cjs", ".ts", ".json", "/index.js"] {
                                out.push(format!("{piece}{ext}"));
                            }
                        }
                    }
                }
            }
            Language::Shell => {
                let rest = line
                    .strip_prefix("source ")
                    .or_else(|| line.strip_prefix(". "));
                if let Some(word) = rest.and_then(|r| r.split_whitespace().next()) {
                    let root_text = root.to_string_lossy();
                    let dir_text = dir.to_string_lossy();
                    let word = word
                        .trim_matches(['"', '\''])
                        .replace("${CLAUDE_PROJECT_DIR}", &root_text)
                        .replace("$CLAUDE_PROJECT_DIR", &root_text)
                        .replace("${TACK_PROJECT_DIR}", &root_text)
                        .replace("$TACK_PROJECT_DIR", &root_text)
                        .replace("$(dirname \"$0\")", &dir_text)
                        .replace("$(dirname $0)", &dir_text)
                        .replace("${BASH_SOURCE%/*}", &dir_text)
                        .replace("$(dirname \"${BASH_SOURCE[0]}\")", &dir_text);
                    // Absolute once expanded; else from `dir` or the root,
                    // as every name here is tried.
                    out.push(word);
                }
            }
            Language::Other => {}
        }
    }
    out
}

/// A shell's `-c`, alone or in a cluster of short options (`-lc`, `-ec`,
/// `-xec`): the line to run is the next word.
fn is_command_option(word: &str) -> bool {
    word.strip_prefix('-').is_some_and(|flags| {
        !flags.starts_with('-')
            && flags.contains('c')
            && flags.chars().all(|c| c.is_ascii_alphabetic())
    })
}

fn has_script_extension(word: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        "sh", "bash", "zsh", "fish", "py", "rb", "pl", "js", "mjs", "cjs", "ts", "php", "lua",
        "ps1", "tcl", "r", "R", "jl",
    ];
    Path::new(word)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e))
}

/// Every `command` string of the hooks configuration (any event, any
/// matcher; `type` absent or `command`).
fn hook_commands<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(map) => {
            let is_command = map
                .get("type")
                .is_none_or(|t| t.as_str() == Some("command"));
            match map.get("command") {
                Some(Value::String(c)) if is_command => out.push(c),
                _ => {}
            }
            for (k, child) in map {
                if k != "command" {
                    hook_commands(child, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| hook_commands(i, out)),
        _ => {}
    }
}

/// The stdio MCP servers of a configuration (`mcpServers`), each as its
/// argv.
fn mcp_servers(v: &Value) -> Vec<(String, Vec<String>)> {
    let Some(servers) = v.get("mcpServers").and_then(Value::as_object) else {
        return Vec::new();
    };
    servers
        .iter()
        .filter_map(|(name, s)| {
            let command = s.get("command")?.as_str()?;
            let mut argv = vec![command.to_owned()];
            argv.extend(strings(s.get("args")).into_iter().map(str::to_owned));
            Some((name.clone(), argv))
        })
        .collect()
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(value: Value) -> SettingsFile {
        SettingsFile {
            level: crate::Level::Project,
            path: PathBuf::from("/x/.claude/settings.json"),
            value,
            text: String::new(),
        }
    }

    #[test]
    fn hooks_servers_tools_and_runners_name_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "scripts/check.py",
            "scripts/fmt.sh",
            "mcp/server.js",
            "bin/tool",
            "package.json",
            "status.sh",
            "cfg/lint.toml",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        let settings = file(serde_json::json!({
            "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
                {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/scripts/check.py --config=cfg/lint.toml"},
                {"type": "command", "command": "cd \"${CLAUDE_PROJECT_DIR}\" && npm run lint"},
                {"type": "command", "command": "./scripts/missing.sh; scripts/fmt.sh"}
            ]}]},
            "statusLine": {"type": "command", "command": "bash status.sh"},
            "tools": {"t": {"command": ["./bin/tool", "{limit}"]}},
            "mcpServers": {"docs": {"command": "node", "args": ["${CLAUDE_PROJECT_DIR}/mcp/server.js"]}}
        }));
        let found = from_settings(&[settings], root, root, None);
        let mut names: Vec<String> = found
            .iter()
            .map(|f| {
                let rel = f.path.strip_prefix(root).unwrap().display().to_string();
                format!("{rel} ({})", f.by)
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "bin (the declared tool t)",
                "bin/tool (the declared tool t)",
                "cfg (a hook)",
                "cfg/lint.toml (a hook)",
                "mcp (the MCP server docs)",
                "mcp/server.js (the MCP server docs)",
                "package.json (a hook)",
                "scripts (a hook)",
                "scripts/check.py (a hook)",
                "scripts/fmt.sh (a hook)",
                "status.sh (the status line)",
            ]
        );
    }

    #[test]
    fn what_the_repositorys_configuration_has_git_run_or_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "tools/gitconfig",
            "tools/tc.sh",
            "tools/clean.sh",
            "tools/fsmon.sh",
            "tools/ssh.sh",
            "notes.txt",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(
            root.join(".git/config"),
            "[core]\n\tfsmonitor = tools/fsmon.sh\n\tsshCommand = sh tools/ssh.sh\n\
             [include]\n\tpath = ../tools/gitconfig\n[diff \"pyx\"]\n\ttextconv = \"tools/tc.sh --x\"\n\
             [filter \"lfsish\"]\n\tclean = tools/clean.sh %f\n[user]\n\tname = notes.txt\n",
        )
        .unwrap();
        let mut found: Vec<String> = git_config_files(root)
            .iter()
            .map(|p| {
                let p = p.canonicalize().unwrap();
                p.strip_prefix(root.canonicalize().unwrap())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                "tools/clean.sh",
                "tools/fsmon.sh",
                "tools/gitconfig",
                "tools/ssh.sh",
                "tools/tc.sh"
            ]
        );
    }

    #[test]
    fn directories_on_path_under_the_project_or_home_are_whats_run_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        let home = dir.path().join("h");
        for d in ["p/.venv/bin", "h/.local/bin", "elsewhere/bin"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let path = std::env::join_paths([
            root.join(".venv/bin"),
            home.join(".local/bin"),
            dir.path().join("elsewhere/bin"),
            root.clone(),
            home.clone(),
            PathBuf::from("relative/bin"),
        ])
        .unwrap();
        assert_eq!(
            path_dirs_in(&path, &root, Some(&home)),
            [root.join(".venv/bin"), home.join(".local/bin")]
        );
    }

    /// Fourth red-team round (persistence): the other spellings of what a
    /// hook runs.
    #[test]
    fn shells_directories_modules_runners_and_environments() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "hooks/check.py",
            "hooks/run.sh",
            "tools/lint/__main__.py",
            "tools/lint/__init__.py",
            "tools/__init__.py",
            "sub/Makefile",
            "web/package.json",
            "tox.ini",
            "srv/server.py",
            ".venv/pyvenv.cfg",
            ".venv/bin/python",
            "h/a.sh",
            "h/c.sh",
            "h/b.sh",
            "h/e.sh",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        let settings = file(serde_json::json!({
            "hooks": {"PostToolUse": [{"hooks": [
                {"type": "command", "command": "bash -c 'python3 hooks/check.py'"},
                {"type": "command", "command": "cd \"$CLAUDE_PROJECT_DIR/hooks\" && bash run.sh"},
                {"type": "command", "command": "python3 -m tools.lint"},
                {"type": "command", "command": "make -C sub"},
                {"type": "command", "command": "npm --prefix web run lint"},
                {"type": "command", "command": "tox -e lint"},
                {"type": "command", "command": "uv run --directory srv server.py"},
                {"type": "command", "command": ".venv/bin/python -c 'print(1)'"},
                {"type": "command", "command": "bash $PWD/h/a.sh"},
                {"type": "command", "command": "bash \"${CLAUDE_PROJECT_DIR:-.}/h/c.sh\""},
                {"type": "command", "command": "bash \"$(pwd)/h/b.sh\""},
                {"type": "command", "command": "bash \"$(git rev-parse --show-toplevel)/h/e.sh\""}
            ]}]}
        }));
        let found = from_settings(&[settings], root, root, None);
        let has = |rel: &str, dir: bool| {
            found
                .iter()
                .any(|f| f.path == root.join(rel) && f.dir == dir)
        };
        for (rel, dir) in [
            ("hooks/check.py", false),
            ("hooks/run.sh", false),
            ("hooks", true),
            ("tools/lint/__main__.py", false),
            ("tools/__init__.py", false),
            ("sub/Makefile", false),
            ("web/package.json", false),
            ("tox.ini", false),
            ("srv/server.py", false),
            (".venv", true),
            ("h/a.sh", false),
            ("h/c.sh", false),
            ("h/b.sh", false),
            ("h/e.sh", false),
        ] {
            assert!(has(rel, dir), "{rel}: {found:?}");
        }
        // The root itself is never a script's directory.
        assert!(!found.iter().any(|f| f.path == root), "{found:?}");
    }

    /// What a hook's runner runs beyond its task file: the scripts a
    /// package's named script (and its `pre`/`post`) runs, the recipes of a
    /// Makefile's named targets (the first when none is named) and their
    /// prerequisites, and the files the Makefile includes. A script no
    /// named task runs stays the model's to edit.
    #[test]
    fn the_scripts_a_runners_tasks_run_are_run_later() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (f, text) in [
            (
                "web/package.json",
                r#"{"scripts": {"prelint": "node tools/pre.js", "lint": "node scripts/lint.js && bash ./scripts/check.sh", "start": "node server.js"}}"#,
            ),
            ("web/tools/pre.js", "x"),
            ("web/scripts/lint.js", "x"),
            ("web/scripts/check.sh", "x"),
            ("web/server.js", "x"),
            (
                "sub/Makefile",
                "include common.mk\n-include opt.mk\nall: gen\n\t@python3 tools/build.py $(FLAGS)\n\ngen:\n\t-./gen.sh\nother:\n\tnode other.js\n",
            ),
            ("sub/common.mk", "x"),
            ("sub/tools/build.py", "x"),
            ("sub/gen.sh", "x"),
            ("sub/other.js", "x"),
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
        }
        let settings = file(serde_json::json!({
            "hooks": {"PostToolUse": [{"hooks": [
                {"type": "command", "command": "npm --prefix web run lint"},
                {"type": "command", "command": "make -C sub"}
            ]}]}
        }));
        let found = from_settings(&[settings], root, root, None);
        let has = |rel: &str| found.iter().any(|f| f.path == root.join(rel));
        for rel in [
            "web/package.json",
            "web/tools/pre.js",
            "web/scripts/lint.js",
            "web/scripts/check.sh",
            "sub/Makefile",
            "sub/common.mk",
            "sub/tools/build.py",
            "sub/gen.sh",
        ] {
            assert!(has(rel), "{rel}: {found:?}");
        }
        for rel in ["web/server.js", "sub/other.js"] {
            assert!(!has(rel), "{rel}: {found:?}");
        }
    }

    #[test]
    fn a_bash_rule_names_its_script_not_its_program() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/deploy.sh"), "x").unwrap();
        std::fs::write(root.join("git"), "x").unwrap();
        let rel = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.strip_prefix(root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            rel(from_rule("./scripts/deploy.sh *", root, root)),
            ["scripts/deploy.sh"]
        );
        assert_eq!(
            rel(from_rule("bash scripts/deploy.sh", root, root)),
            ["scripts/deploy.sh"]
        );
        assert!(from_rule("git push *", root, root).is_empty());
        assert!(from_rule("*", root, root).is_empty());
    }

    #[test]
    fn an_approved_command_is_bound_to_the_projects_files_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::create_dir_all(root.join("tools/mcp")).unwrap();
        std::fs::write(root.join("hooks/check.sh"), "echo ok\n").unwrap();
        std::fs::write(root.join("tools/mcp/__main__.py"), "print()\n").unwrap();
        std::fs::write(
            root.join("package.json"),
            r#"{"scripts":{"lint":"eslint ."}}"#,
        )
        .unwrap();
        let shell = |line: &str| project_scripts(ConfiguredCommand::Shell(line), root, None);
        let argv = |words: &[&str]| {
            let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            project_scripts(ConfiguredCommand::Argv(&words), root, None)
        };
        assert_eq!(
            shell("bash \"$CLAUDE_PROJECT_DIR/hooks/check.sh\""),
            [root.join("hooks/check.sh")]
        );
        assert_eq!(shell("npm run lint"), [root.join("package.json")]);
        assert!(
            argv(&["python3", "-m", "tools.mcp"]).contains(&root.join("tools/mcp/__main__.py"))
        );
        assert_eq!(
            argv(&["./hooks/check.sh", "{target}"]),
            [root.join("hooks/check.sh")]
        );
        // Programs of the system are no file of the project.
        assert!(argv(&["/bin/sh", "-c", "true"]).is_empty());
        assert!(shell("uvx mcp-server-time").is_empty());

        let scripts = shell("hooks/check.sh");
        let before = scripts_digest(&scripts, root);
        assert_eq!(before, scripts_digest(&scripts, root), "stable");
        assert!(scripts_digest(&[], root).is_empty());
        std::fs::write(root.join("README"), "elsewhere\n").unwrap();
        assert_eq!(before, scripts_digest(&scripts, root), "a file elsewhere");
        std::fs::write(root.join("hooks/lib.sh"), "rm -rf ~\n").unwrap();
        let beside = scripts_digest(&scripts, root);
        assert_ne!(before, beside, "a file beside the script");
        std::fs::write(root.join("hooks/check.sh"), "echo pulled\n").unwrap();
        assert_ne!(beside, scripts_digest(&scripts, root), "the script");

        // `-lc`, `-ec`: the line to run is still read.
        assert_eq!(
            shell("bash -lc 'bash hooks/check.sh'"),
            [root.join("hooks/check.sh")]
        );
        assert_eq!(
            argv(&["sh", "-ec", "hooks/check.sh --fix"]),
            [root.join("hooks/check.sh")]
        );
        // A default in an MCP argument, as tack expands it.
        assert_eq!(
            argv(&["node", "${TACK_TEST_UNSET_DOCS_SERVER:-hooks/check.sh}"]),
            [root.join("hooks/check.sh")]
        );
    }

    /// The code a script loads is bound with it: a root sibling it imports,
    /// a package below, a library a hook sources two directories away, the
    /// bytecode beside it, a module shadowing the standard library, a
    /// virtual environment's start-up files.
    #[test]
    fn a_scripts_digest_covers_the_code_it_loads() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("check.py", "import helper\nfrom lib.util import x\n");
        write("helper.py", "X = 1\n");
        write("lib/__init__.py", "");
        write("lib/util.py", "x = 1\n");
        write("README.md", "docs\n");
        write(
            ".claude/hooks/start.sh",
            "source \"$CLAUDE_PROJECT_DIR/tools/sh/common.sh\"\n",
        );
        write("tools/sh/common.sh", "true\n");
        write("server/index.js", "const a = require('./lib/a');\n");
        write("server/lib/a.js", "module.exports = 1;\n");
        write(".venv/pyvenv.cfg", "home = /usr/bin\n");
        write(".venv/bin/python", "");
        write(".venv/lib/python3.12/site-packages/x.pth", "\n");
        let scripts = |line: &str| project_scripts(ConfiguredCommand::Shell(line), root, None);
        let changes = |line: &str, rel: &str, text: &str| {
            let found = scripts(line);
            assert!(!found.is_empty(), "{line}: no script");
            let before = scripts_digest(&found, root);
            let old = std::fs::read(root.join(rel)).ok();
            write(rel, text);
            // As an approval is checked: the scripts found again.
            let after = scripts_digest(&scripts(line), root);
            match old {
                Some(old) => std::fs::write(root.join(rel), old).unwrap(),
                None => std::fs::remove_file(root.join(rel)).unwrap(),
            }
            before != after
        };
        assert!(changes("python3 check.py", "helper.py", "import os\n"));
        assert!(changes("python3 check.py", "lib/util.py", "x = 2\n"));
        assert!(changes("python3 check.py", "json.py", "evil\n"));
        assert!(changes(
            "python3 check.py",
            "__pycache__/helper.cpython-312.pyc",
            "bytes"
        ));
        assert!(!changes("python3 check.py", "README.md", "other\n"));
        assert!(changes(
            "bash .claude/hooks/start.sh",
            "tools/sh/common.sh",
            "rm -rf ~\n"
        ));
        assert!(changes("node server/index.js", "server/lib/a.js", "evil\n"));
        // Named only through what the shell computes: the directory's
        // scripts (the root's own when it names none).
        assert!(changes(
            "for f in .claude/hooks/*.sh; do bash \"$f\"; done",
            ".claude/hooks/new.sh",
            "rm -rf ~\n"
        ));
        assert!(changes(
            "bash \"$HOOK_DIR/x.sh\"",
            "deploy.sh",
            "rm -rf ~\n"
        ));
        // What a Makefile names, in a variable or at parse time.
        write(
            "Makefile",
            "LINT = sh build/lint.sh\nV := $(shell sh build/ci/version.sh)\nlint:\n\t$(LINT)\n",
        );
        write("build/lint.sh", "true\n");
        write("build/ci/version.sh", "echo 1\n");
        assert!(changes("make lint", "build/lint.sh", "rm -rf ~\n"));
        assert!(changes("make lint", "build/ci/version.sh", "rm -rf ~\n"));
        assert!(!changes(
            "for f in .claude/hooks/*.sh; do bash \"$f\"; done",
            "README.md",
            "x\n"
        ));
        assert!(changes(
            ".venv/bin/python check.py",
            ".venv/lib/python3.12/site-packages/x.pth",
            "import os; os.system('x')\n"
        ));
    }
}
