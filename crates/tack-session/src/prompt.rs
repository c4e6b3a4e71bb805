//! The system prompt of a session: what tack tells the model before the
//! conversation. It is built once, when the session is assembled, and sent
//! unchanged with every request (prompt caching relies on the bytes not
//! changing).
//!
//! Three parts, in order:
//! 1. the environment: working directory, additional directories, platform,
//!    the Bash tool's shell, today's date (UTC), the git repository and its
//!    branch (`.git/HEAD` is read; git is not run);
//! 2. how tack's tools are meant to be used, naming only tools the session
//!    has;
//! 3. the instruction files, as Claude Code and Codex read them: user-level
//!    `~/.claude/CLAUDE.md` and `~/.config/tack/AGENTS.md`, then in every
//!    directory from the repository root down to the working directory
//!    (root first; without a repository, the working directory alone)
//!    `CLAUDE.md`, `CLAUDE.local.md`, `.claude/CLAUDE.md`, `AGENTS.md`.
//!    `@path` imports in them are followed ([`MAX_IMPORT_DEPTH`] levels);
//!    each file goes in under a line naming its path; all of them together
//!    are cut at [`MAX_INSTRUCTION_BYTES`].
//!
//! A replacement text (`--system-prompt`) takes the place of all three;
//! an appended text (`--append-system-prompt`) goes after.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How many levels of `@path` imports are followed from a file found by
/// discovery (as Claude Code: five hops).
pub const MAX_IMPORT_DEPTH: usize = 5;

/// The most bytes of instruction files (with their header lines) in the
/// prompt; what is past it is left out with a note.
pub const MAX_INSTRUCTION_BYTES: usize = 64 * 1024;

/// The names looked for in each directory, in this order.
const PROJECT_FILES: [(&str, &str); 4] = [
    ("CLAUDE.md", "project instructions"),
    ("CLAUDE.local.md", "the user's local project instructions"),
    (".claude/CLAUDE.md", "project instructions"),
    ("AGENTS.md", "project instructions"),
];

/// Where the session runs, as the model is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    pub cwd: PathBuf,
    /// Other directories the permission settings open (`--add-dir`,
    /// `permissions.additionalDirectories`).
    pub additional_directories: Vec<PathBuf>,
    /// E.g. `linux (x86_64)`.
    pub platform: String,
    /// The shell the Bash tool runs commands with.
    pub shell: PathBuf,
    /// Today, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// The git repository holding `cwd`, if any.
    pub git: Option<GitRepo>,
}

/// A git repository found by looking for `.git` from the working directory up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitRepo {
    /// The directory holding `.git`.
    pub root: PathBuf,
    pub head: GitHead,
}

/// What `HEAD` points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitHead {
    Branch(String),
    /// A detached HEAD: the commit's first 12 hex digits.
    Detached(String),
    /// `HEAD` could not be read or understood.
    Unknown,
}

impl Environment {
    /// The environment of this process for a session in `cwd`.
    pub fn detect(cwd: &Path, additional_directories: Vec<PathBuf>) -> Self {
        let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        let git = find_git(cwd);
        // The shell the Bash tool finds: never from inside the project or a
        // working directory.
        let mut roots: Vec<&Path> = vec![cwd];
        roots.extend(additional_directories.iter().map(PathBuf::as_path));
        roots.extend(git.as_ref().map(|g| g.root.as_path()));
        let shell = tack_tools::bash::find_shell(&roots);
        Self {
            cwd: cwd.to_owned(),
            additional_directories,
            platform: format!("{} ({})", std::env::consts::OS, std::env::consts::ARCH),
            shell,
            date: now.get(..10).unwrap_or(&now).to_owned(),
            git,
        }
    }
}

/// Looks for `.git` (a directory, or a worktree's file naming its git
/// directory) in `cwd` and its parents, and reads `HEAD`. Runs no git.
pub fn find_git(cwd: &Path) -> Option<GitRepo> {
    cwd.ancestors().find_map(|dir| {
        let dot = dir.join(".git");
        let git_dir = if dot.is_dir() {
            dot
        } else if dot.is_file() {
            let text = std::fs::read_to_string(&dot).ok()?;
            let named = text.trim().strip_prefix("gitdir:")?.trim();
            dir.join(named)
        } else {
            return None;
        };
        let head = std::fs::read_to_string(git_dir.join("HEAD"))
            .map(|text| parse_head(text.trim()))
            .unwrap_or(GitHead::Unknown);
        Some(GitRepo {
            root: dir.to_owned(),
            head,
        })
    })
}

fn parse_head(text: &str) -> GitHead {
    if let Some(reference) = text.strip_prefix("ref:") {
        let reference = reference.trim();
        let name = reference.strip_prefix("refs/heads/").unwrap_or(reference);
        return GitHead::Branch(name.to_owned());
    }
    if text.len() >= 12 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return GitHead::Detached(text[..12].to_owned());
    }
    GitHead::Unknown
}

/// Where the user-level instruction files are, and the home directory
/// `@~/` imports start from. None reads nothing there (tests, embedders).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstructionSources {
    /// Read first, in order; a missing one is skipped without a word.
    pub user_files: Vec<PathBuf>,
    /// For `@~/…` imports; None: such an import is skipped with a warning.
    pub home: Option<PathBuf>,
    /// The project root (`ProjectContext::project_root`: the directory
    /// holding `.tack/`, `.claude/` or `.mcp.json`): instruction files are
    /// read from the outer of it and the git root down to the working
    /// directory, so a Claude Code project without git works from `src/`.
    pub project_root: Option<PathBuf>,
    /// What decides whether a file goes into the prompt (see [`ReadGate`]);
    /// none: every file found.
    pub gate: PromptGate,
}

/// Whether a file may go into the system prompt, as a Read of it would be
/// decided: `Err(reason)` leaves it out with a notice. The flag says the
/// file is the user's own (a user-level instruction file, or what one
/// imports), which may lie outside the working directories.
pub type ReadGate = Arc<dyn Fn(&Path, bool) -> Result<(), String> + Send + Sync>;

/// A [`ReadGate`], or none.
#[derive(Clone, Default)]
pub struct PromptGate(pub Option<ReadGate>);

impl std::fmt::Debug for PromptGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "PromptGate(Some)"
        } else {
            "PromptGate(None)"
        })
    }
}

impl PartialEq for PromptGate {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for PromptGate {}

impl InstructionSources {
    /// `<claude_dir>/CLAUDE.md` and `<config_dir>/AGENTS.md`.
    pub fn user(claude_dir: Option<&Path>, config_dir: Option<&Path>, home: Option<&Path>) -> Self {
        Self {
            user_files: claude_dir
                .map(|d| d.join("CLAUDE.md"))
                .into_iter()
                .chain(config_dir.map(|d| d.join("AGENTS.md")))
                .collect(),
            home: home.map(Path::to_owned),
            project_root: None,
            gate: PromptGate::default(),
        }
    }
}

/// What the session's system prompt is made of, besides what tack finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptOptions {
    /// Replaces everything tack would write (`--system-prompt`).
    pub replace: Option<String>,
    /// Goes at the end (`--append-system-prompt`).
    pub append: Option<String>,
}

/// A session's system prompt, as built once at assembly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPrompt {
    text: String,
    own_bytes: usize,
    files: Vec<PathBuf>,
    warnings: Vec<String>,
}

impl SessionPrompt {
    /// Builds the prompt for `env`, the tools named `tools` and the
    /// instruction files of `sources` and the project. Reads files; never
    /// fails: what cannot be read is a warning.
    pub fn build(
        env: &Environment,
        tools: &[String],
        sources: &InstructionSources,
        options: &PromptOptions,
    ) -> Self {
        let (mut text, own_bytes, files, warnings) = match &options.replace {
            Some(replace) => (replace.clone(), 0, Vec::new(), Vec::new()),
            None => {
                let own = own_text(env, tools);
                let own_bytes = own.len();
                let found = Instructions::load(env, sources);
                let mut text = own;
                if !found.files.is_empty() {
                    text.push_str(&found.render());
                }
                let files = found.files.into_iter().map(|f| f.path).collect();
                (text, own_bytes, files, found.warnings)
            }
        };
        if let Some(append) = &options.append {
            text.truncate(text.trim_end().len());
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(append);
        }
        Self {
            text,
            own_bytes,
            files,
            warnings,
        }
    }

    /// The text sent as `system`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The bytes of tack's own text (environment and tool use), without the
    /// instruction files or an appended text; 0 when it was replaced.
    pub fn own_bytes(&self) -> usize {
        self.own_bytes
    }

    /// The instruction files read, in the order they appear.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// What could not be read (a missing import, a cycle, the size bound),
    /// for the person: the session sends each as a notice.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// tack's own text: who it is, the environment, how to use the tools.
fn own_text(env: &Environment, tools: &[String]) -> String {
    let has = |name: &str| tools.iter().any(|t| t == name);
    let mut text = String::from(
        "You are tack, an agent working on the user's machine through the tools you are given. \
         Find things out with the tools rather than guessing, keep answers short, \
         and say plainly when something did not work.\n\n# Environment\n",
    );
    let _ = writeln!(text, "Working directory: {}", env.cwd.display());
    if !env.additional_directories.is_empty() {
        let dirs: Vec<String> = env
            .additional_directories
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        let _ = writeln!(text, "Additional directories: {}", dirs.join(", "));
    }
    let _ = writeln!(text, "Platform: {}", env.platform);
    if has("Bash") {
        let _ = writeln!(text, "Shell of the Bash tool: {}", env.shell.display());
    }
    let _ = writeln!(text, "Today's date: {} (UTC)", env.date);
    let _ = match &env.git {
        Some(GitRepo {
            root,
            head: GitHead::Branch(branch),
        }) => writeln!(text, "Git: repository {}, branch {branch}", root.display()),
        Some(GitRepo {
            root,
            head: GitHead::Detached(commit),
        }) => writeln!(
            text,
            "Git: repository {}, detached HEAD at {commit}",
            root.display()
        ),
        Some(GitRepo {
            root,
            head: GitHead::Unknown,
        }) => writeln!(text, "Git: repository {}", root.display()),
        None => writeln!(text, "Git: not a git repository"),
    };

    let mut rules = Vec::new();
    let path_tools: Vec<&str> = ["Read", "Write", "Edit"]
        .into_iter()
        .filter(|&t| has(t))
        .collect();
    if !path_tools.is_empty() {
        let take = if path_tools.len() == 1 {
            "takes"
        } else {
            "take"
        };
        rules.push(format!(
            "{} {take} absolute paths: a relative path is refused.",
            list(path_tools.into_iter())
        ));
    }
    rules.push(
        "Calls that only read can go together in one response: they run at the same time. \
         Calls that change something run one at a time, in order."
            .to_owned(),
    );
    if has("Bash") {
        let instead: Vec<(&str, &str)> = [("Grep", "grep"), ("Glob", "find"), ("Read", "cat")]
            .into_iter()
            .filter(|&(tool, _)| has(tool))
            .collect();
        if !instead.is_empty() {
            rules.push(format!(
                "Use {} rather than {} through Bash.",
                list(instead.iter().map(|&(tool, _)| tool)),
                list(instead.iter().map(|&(_, command)| command)).replace(" and ", " or ")
            ));
        }
    }
    if has("ReadOutput") {
        rules.push(
            "An output cut to fit says so and names an artifact: ReadOutput reads any line range \
             of it, or the lines that match a pattern."
                .to_owned(),
        );
    }
    if has("Skill") {
        rules.push(
            "Before a task that matches a skill listed by the Skill tool, load that skill and \
             follow it; skills grant no permissions."
                .to_owned(),
        );
    }
    rules.push(
        "A denied call did not run. Do not send the same call again: do it another way, \
         or ask the user."
            .to_owned(),
    );
    text.push_str("\n# Using the tools\n");
    for rule in rules {
        let _ = writeln!(text, "- {rule}");
    }
    text
}

/// "A", "A and B", "A, B and C".
fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// One instruction file as read.
#[derive(Debug)]
struct Found {
    path: PathBuf,
    /// What it is: "project instructions", "imported by …".
    kind: String,
    text: String,
}

/// The instruction files of a session, in order, and what went wrong.
#[derive(Debug, Default)]
struct Instructions {
    files: Vec<Found>,
    warnings: Vec<String>,
    /// Canonical paths of the files read (a second mention is skipped).
    seen: HashSet<PathBuf>,
}

impl Instructions {
    fn load(env: &Environment, sources: &InstructionSources) -> Self {
        let mut found = Self::default();
        for path in &sources.user_files {
            found.read(
                path,
                "the user's own instructions",
                0,
                &[],
                None,
                sources,
                true,
            );
        }
        let git = env.git.as_ref().map(|g| g.root.as_path());
        let root = match (git, sources.project_root.as_deref()) {
            // The outer of the two (each is an ancestor of cwd, or cwd).
            (Some(g), Some(p)) if g.starts_with(p) => Some(p),
            (Some(g), _) => Some(g),
            (None, p) => p,
        };
        for dir in project_dirs(&env.cwd, root) {
            for (name, kind) in PROJECT_FILES {
                found.read(&dir.join(name), kind, 0, &[], None, sources, false);
            }
        }
        found
    }

    /// Reads `path` and then, depth first, what it imports. `chain` holds
    /// the canonical paths of the files importing it; `importer` is the
    /// file that names it (None: found by discovery, and a missing file is
    /// no news). `user_level`: the user's own file, or imported by one.
    #[expect(clippy::too_many_arguments, reason = "one recursive walk's state")]
    fn read(
        &mut self,
        path: &Path,
        kind: &str,
        depth: usize,
        chain: &[PathBuf],
        importer: Option<&Path>,
        sources: &InstructionSources,
        user_level: bool,
    ) {
        let canonical = match std::fs::canonicalize(path) {
            Ok(c) if c.is_file() => c,
            Ok(_) => {
                if let Some(by) = importer {
                    self.warnings.push(format!(
                        "{} imports @{}, which is not a file; skipped",
                        by.display(),
                        path.display()
                    ));
                }
                return;
            }
            Err(e) => {
                match importer {
                    Some(by) if e.kind() == std::io::ErrorKind::NotFound => {
                        self.warnings.push(format!(
                            "{} imports {}, which does not exist; skipped",
                            by.display(),
                            path.display()
                        ));
                    }
                    Some(by) => self.warnings.push(format!(
                        "{} imports {}, which cannot be read ({e}); skipped",
                        by.display(),
                        path.display()
                    )),
                    None if e.kind() == std::io::ErrorKind::NotFound => {}
                    None => self.warnings.push(format!(
                        "cannot read the instruction file {} ({e}); skipped",
                        path.display()
                    )),
                }
                return;
            }
        };
        if chain.contains(&canonical) {
            if let Some(by) = importer {
                self.warnings.push(format!(
                    "{} imports {}, which imports it in turn (a cycle); the import was skipped",
                    by.display(),
                    path.display()
                ));
            }
            return;
        }
        // What a Read of it would not be allowed (a deny rule, a file
        // outside the working directories a project's file names, tack's
        // own environment) stays out of the prompt too.
        if let Some(gate) = &sources.gate.0
            && let Err(reason) = gate(path, user_level)
        {
            self.warnings.push(match importer {
                Some(by) => format!(
                    "{} imports {}, which was left out: {reason}",
                    by.display(),
                    path.display()
                ),
                None => format!(
                    "the instruction file {} was left out: {reason}",
                    path.display()
                ),
            });
            return;
        }
        // Already in the prompt (a second name for it, or an import of a
        // file read before): once is enough.
        if !self.seen.insert(canonical.clone()) {
            return;
        }
        let text = match std::fs::read(&canonical) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                self.warnings.push(format!(
                    "cannot read the instruction file {} ({e}); skipped",
                    path.display()
                ));
                return;
            }
        };
        let imports = imports(&text);
        if !text.trim().is_empty() {
            self.files.push(Found {
                path: path.to_owned(),
                kind: kind.to_owned(),
                text,
            });
        }
        if imports.is_empty() {
            return;
        }
        if depth >= MAX_IMPORT_DEPTH {
            self.warnings.push(format!(
                "the imports in {} were not read: imports are followed {MAX_IMPORT_DEPTH} levels deep",
                path.display()
            ));
            return;
        }
        let mut chain = chain.to_vec();
        chain.push(canonical);
        let base = path.parent().unwrap_or(Path::new("/"));
        let kind = format!("imported by {}", path.display());
        for import in imports {
            let target = if let Some(rest) = import.strip_prefix("~/") {
                match &sources.home {
                    Some(home) => home.join(rest),
                    None => {
                        self.warnings.push(format!(
                            "{} imports @{import}, but no home directory is known; skipped",
                            path.display()
                        ));
                        continue;
                    }
                }
            } else {
                base.join(&import)
            };
            self.read(
                &target,
                &kind,
                depth + 1,
                &chain,
                Some(path),
                sources,
                user_level,
            );
        }
    }

    /// The instruction section: a short lead, then each file under a line
    /// naming it, cut at [`MAX_INSTRUCTION_BYTES`].
    fn render(&self) -> String {
        let mut out = String::from(
            "\n# Instructions\nThe user's and the project's instruction files follow, \
             user-level first, then from the project root down to the working directory \
             (later ones are more specific). Follow them.\n",
        );
        let mut used = 0;
        for (i, file) in self.files.iter().enumerate() {
            let header = format!("\nContents of {} ({}):\n", file.path.display(), file.kind);
            let body = file.text.trim_end();
            let left = MAX_INSTRUCTION_BYTES.saturating_sub(used);
            // The header, the text and its line end.
            let whole = header.len() + body.len() + 1;
            if whole <= left {
                out.push_str(&header);
                out.push_str(body);
                out.push('\n');
                used += whole;
                continue;
            }
            let rest: Vec<String> = self.files[i + 1..]
                .iter()
                .map(|f| f.path.display().to_string())
                .collect();
            if left > header.len() {
                out.push_str(&header);
                out.push_str(cut_at_line(body, left - header.len()));
                out.push('\n');
            }
            let _ = write!(
                out,
                "\n[tack: the instruction files reached {} KiB, the most tack sends: the rest of {}",
                MAX_INSTRUCTION_BYTES / 1024,
                file.path.display()
            );
            if !rest.is_empty() {
                let _ = write!(out, " and {} were left out]", rest.join(", "));
            } else {
                out.push_str(" was left out]");
            }
            out.push('\n');
            break;
        }
        out
    }
}

/// The longest start of `text` within `max` bytes that ends at a line end
/// (or a character boundary when the first line alone is longer).
fn cut_at_line(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(nl) => &text[..nl],
        None => &text[..end],
    }
}

/// The directories whose instruction files are read, outermost first:
/// from the repository root down to `cwd`, or `cwd` alone outside one.
fn project_dirs(cwd: &Path, root: Option<&Path>) -> Vec<PathBuf> {
    let Some(root) = root.filter(|r| cwd.starts_with(r)) else {
        return vec![cwd.to_owned()];
    };
    let mut dirs: Vec<PathBuf> = cwd
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .map(Path::to_owned)
        .collect();
    dirs.reverse();
    dirs
}

/// The `@path` imports of an instruction file: a word that starts with `@`,
/// outside code blocks and code spans (as Claude Code). Trailing sentence
/// punctuation is not part of the path.
fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f)) {
            fence = Some(open);
            continue;
        }
        // Four spaces or a tab: an indented code block (or a list's
        // continuation; an import there is rare enough to miss).
        if line.starts_with("    ") || line.starts_with('\t') {
            continue;
        }
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            for word in part.split_whitespace() {
                let Some(path) = word.strip_prefix('@') else {
                    continue;
                };
                let path = path.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
                if !path.is_empty() {
                    out.push(path.to_owned());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_skip_code_and_trailing_punctuation() {
        let text = "See @docs/a.md, and @b.md.\n`@not-this` x @c\n```\n@in-block\n```\n    @indented\nmail a@b.c\n";
        assert_eq!(imports(text), ["docs/a.md", "b.md", "c"]);
    }

    #[test]
    fn head_is_a_branch_or_a_commit() {
        assert_eq!(
            parse_head("ref: refs/heads/feature/x"),
            GitHead::Branch("feature/x".into())
        );
        assert_eq!(
            parse_head("0123456789abcdef0123456789abcdef01234567"),
            GitHead::Detached("0123456789ab".into())
        );
        assert_eq!(parse_head("garbage"), GitHead::Unknown);
    }

    #[test]
    fn dirs_run_from_the_root_down() {
        let dirs = project_dirs(Path::new("/r/a/b"), Some(Path::new("/r")));
        assert_eq!(
            dirs,
            [Path::new("/r"), Path::new("/r/a"), Path::new("/r/a/b")]
        );
        assert_eq!(project_dirs(Path::new("/x"), None), [Path::new("/x")]);
        assert_eq!(
            project_dirs(Path::new("/x"), Some(Path::new("/r"))),
            [Path::new("/x")]
        );
    }

    #[test]
    fn a_long_file_is_cut_at_a_line() {
        assert_eq!(cut_at_line("ab\ncd\nef", 7), "ab\ncd");
        assert_eq!(cut_at_line("abcdef", 3), "abc");
        assert_eq!(cut_at_line("é", 1), "");
    }
}
