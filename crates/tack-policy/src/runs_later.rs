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
    (&["npm", "pnpm", "yarn", "bun", "npx"], &["package.json"]),
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
            if word == "-c"
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
        s
    }
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
/// and the administrator's skills beside it (`/etc/tack/skills`). A model
/// that rewrote one would set the rules, hooks and servers of the next run
/// (or of this one, reloaded after an "always allow"). Files protected by
/// name already (`.claude/`, `.tack/`, `~/.config/tack/`) are left out; so
/// is inline JSON, which is no file. A relative path is the process's
/// (it was read from there).
pub(crate) fn config_files(
    files: &[SettingsFile],
    mcp_config: &[SettingsFile],
    managed: Option<&Path>,
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
        ConfiguredCommand::Shell(line) => place.shell(line, &mut out),
        ConfiguredCommand::Argv(argv) => {
            let argv: Vec<&str> = argv
                .iter()
                .map(String::as_str)
                .filter(|w| !w.contains('{'))
                .collect();
            place.argv(&argv, &mut out);
        }
    }
    out.retain(|f| f.starts_with(project_root));
    out
}

/// Files of one directory read for a digest, at most.
const DIGEST_FILES_PER_DIR: usize = 256;
/// A file's contents are read for a digest up to this size; a larger one
/// counts by its length, change time and inode.
const DIGEST_FILE_BYTES: u64 = 4 << 20;

/// A digest of what `scripts` hold and of the other files beside each one
/// whose directory is below the project root (the modules it imports, the
/// library it sources): an approval bound to it lapses when any of them
/// changes, as when the command line itself does. Empty for no scripts.
pub fn scripts_digest(scripts: &[PathBuf], project_root: &Path) -> String {
    use sha2::Digest as _;
    if scripts.is_empty() {
        return String::new();
    }
    let mut files: Vec<PathBuf> = scripts.to_vec();
    for script in scripts {
        if let Some(dir) = script.parent()
            && dir.starts_with(project_root)
            && dir != project_root
            && let Ok(entries) = std::fs::read_dir(dir)
        {
            let mut beside: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect();
            beside.sort();
            files.extend(beside.into_iter().take(DIGEST_FILES_PER_DIR));
        }
    }
    files.sort();
    files.dedup();
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
    }
}
