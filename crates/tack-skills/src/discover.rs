//! Finding skills on disk: `*/SKILL.md` one level below each skills folder,
//! strongest place first.
//!
//! The places, in Claude Code's precedence (the first of a name wins, so a
//! repository cannot replace a skill the administrator or the user put in
//! place): the administrator's managed folder; the user's
//! `~/.config/tack/skills`, `~/.claude/skills`, `~/.agents/skills`; the
//! project's `.tack/skills`, `.claude/skills`, `.agents/skills` in every
//! directory from the working directory up to the project root (nearest
//! first); then the same folders in subdirectories below the project root (a
//! monorepo's packages), found by a walk that honours `.gitignore`, skips
//! hidden folders and `node_modules`, and stops at [`NESTED_DEPTH`] levels
//! and [`NESTED_DIRS`] folders. Each skills folder is read one level deep,
//! at most [`MAX_ENTRIES`] entries of it (by name); symbolic links to skill
//! folders are followed, and nothing deeper is walked, so a link loop costs
//! nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::frontmatter::{self, Frontmatter, Problem};
use crate::remote::Fetch;

/// Entries read from one skills folder (the spec's client guide: ~2,000).
pub const MAX_ENTRIES: usize = 2000;
/// How deep below the project root nested skills folders are looked for.
pub const NESTED_DEPTH: usize = 3;
/// How many folders below the project root are looked at, at most.
pub const NESTED_DIRS: usize = 1000;
/// The largest `SKILL.md` read (a bigger one is skipped with a notice).
pub const MAX_SKILL_MD_BYTES: u64 = 1024 * 1024;

/// Where a skill comes from, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The administrator's managed skills folder.
    Managed,
    /// The user's own folders.
    User,
    /// The repository: needs the user's trust before first use.
    Project,
    /// An MCP server (the `io.modelcontextprotocol/skills` extension).
    Mcp,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Managed => "managed",
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Mcp => "mcp",
        }
    }
}

/// Where a skill's files are.
#[derive(Clone)]
pub enum Source {
    /// A folder on disk and its `SKILL.md`.
    Local { dir: PathBuf, file: PathBuf },
    /// A skill an MCP server offers; `fetch` brings its files when it is
    /// loaded (verified against the manifest).
    Remote {
        server: String,
        uri: String,
        fetch: Arc<dyn Fetch>,
    },
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Local { file, .. } => write!(f, "Local({})", file.display()),
            Source::Remote { server, uri, .. } => write!(f, "Remote({server}: {uri})"),
        }
    }
}

/// One skill found: what the catalog shows and where to load it from.
#[derive(Debug, Clone)]
pub struct Skill {
    /// The name the model calls it by (an MCP server's skills are
    /// `server:name`).
    pub name: String,
    pub description: String,
    pub scope: Scope,
    pub source: Source,
    pub frontmatter: Frontmatter,
    /// The name of the folder it was found in (a symbolic link's own name,
    /// not its target's): what the name should equal.
    pub folder: String,
    /// `sha256:` of the `SKILL.md` as discovered (what a trust is bound to;
    /// for an MCP skill, of its manifest).
    pub digest: String,
    /// What the lenient reading let through, as `file:line: message`.
    pub warnings: Vec<String>,
}

impl Skill {
    /// Where it lives, for people and the catalog: the `SKILL.md` path, or
    /// `server: uri`.
    pub fn location(&self) -> String {
        match &self.source {
            Source::Local { file, .. } => file.display().to_string(),
            Source::Remote { server, uri, .. } => format!("MCP server {server}: {uri}"),
        }
    }

    /// Whether the model may see and load it.
    pub fn model_invocable(&self) -> bool {
        !self.frontmatter.disable_model_invocation
    }
}

/// A skill hidden by a stronger one of the same name.
#[derive(Debug, Clone, Serialize)]
pub struct Shadowed {
    pub name: String,
    /// The one that is used.
    pub kept: String,
    /// The one that is not.
    pub hidden: String,
}

/// A `SKILL.md` that was not loaded, and why.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub file: PathBuf,
    pub problem: Problem,
}

impl Skipped {
    /// `file:line: message, so the skill was left out`.
    pub fn notice(&self) -> String {
        format!("{}, so the skill was left out", self.problem.at(&self.file))
    }
}

/// A skills folder and its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub dir: PathBuf,
    pub scope: Scope,
}

/// Where to look.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// The administrator's skills folder.
    pub managed: Option<PathBuf>,
    /// The user's skills folders, strongest first.
    pub user: Vec<PathBuf>,
    /// The working directory and its project root; `None`: no project skills.
    pub project: Option<(PathBuf, PathBuf)>,
    /// Also look below the project root for nested skills folders.
    pub nested: bool,
}

/// The names of a project's skills folders in one directory, strongest first.
pub const PROJECT_FOLDERS: &[&str] = tack_protocol::places::PROJECT_SKILL_FOLDERS;

impl Places {
    /// The places of a user whose home is `home`: `<config>/skills` (tack's
    /// user config folder), `<claude>/skills` (`~/.claude`) and
    /// `~/.agents/skills`.
    pub fn user_folders(
        tack_config: Option<&Path>,
        claude: Option<&Path>,
        home: Option<&Path>,
    ) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        use tack_protocol::places::{CONFIG_SKILL_FOLDER, HOME_SKILL_FOLDERS};
        let configs = [tack_config, claude];
        let in_home = HOME_SKILL_FOLDERS
            .iter()
            .filter_map(|f| home.map(|h| h.join(f)));
        let candidates = configs
            .into_iter()
            .flatten()
            .map(|d| d.join(CONFIG_SKILL_FOLDER))
            .chain(in_home);
        for dir in candidates {
            if !out.contains(&dir) {
                out.push(dir);
            }
        }
        out
    }

    /// Every skills folder, strongest first (those that do not exist too,
    /// except nested ones, which are only found by existing).
    pub fn roots(&self) -> (Vec<Root>, Vec<String>) {
        let mut roots = Vec::new();
        let mut notes = Vec::new();
        let mut push = |dir: PathBuf, scope| {
            if !roots.iter().any(|r: &Root| r.dir == dir) {
                roots.push(Root { dir, scope });
            }
        };
        if let Some(dir) = &self.managed {
            push(dir.clone(), Scope::Managed);
        }
        for dir in &self.user {
            push(dir.clone(), Scope::User);
        }
        if let Some((cwd, root)) = &self.project {
            let mut chain = Vec::new();
            let mut dir = Some(cwd.as_path());
            while let Some(d) = dir {
                chain.push(d.to_owned());
                if d == root.as_path() || !d.starts_with(root) {
                    break;
                }
                dir = d.parent();
            }
            for d in &chain {
                for folder in PROJECT_FOLDERS {
                    push(d.join(folder), Scope::Project);
                }
            }
            if self.nested {
                let (nested, note) = nested_roots(root, &chain);
                notes.extend(note);
                for dir in nested {
                    push(dir, Scope::Project);
                }
            }
        }
        (roots, notes)
    }
}

/// Skills folders in subdirectories below `root` (not those of `chain`).
fn nested_roots(root: &Path, chain: &[PathBuf]) -> (Vec<PathBuf>, Option<String>) {
    let mut found = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .max_depth(Some(NESTED_DEPTH))
        .follow_links(false)
        .hidden(true)
        .parents(false)
        // The user's global excludes are not the project's layout; reading
        // them costs a parse of ~/.gitconfig (with a regex) at every start.
        .git_global(false)
        .require_git(false)
        .filter_entry(|e| {
            e.file_type().is_some_and(|t| t.is_dir())
                && e.file_name() != "node_modules"
                && e.file_name() != "target"
        })
        .build();
    let mut seen = 0usize;
    for entry in walk.flatten() {
        if entry.depth() == 0 {
            continue;
        }
        seen += 1;
        if seen > NESTED_DIRS {
            return (
                found,
                Some(format!(
                    "skills: stopped looking for nested skills folders below {} after {NESTED_DIRS} folders",
                    root.display()
                )),
            );
        }
        let dir = entry.path();
        if chain.iter().any(|c| c == dir) {
            continue;
        }
        for folder in PROJECT_FOLDERS {
            let candidate = dir.join(folder);
            if candidate.is_dir() {
                found.push(candidate);
            }
        }
    }
    (found, None)
}

/// What discovery found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// The skills in use, strongest place first, then by name.
    pub skills: Vec<Skill>,
    /// Skills hidden by a stronger one of the same name.
    pub shadowed: Vec<Shadowed>,
    /// `SKILL.md` files that could not be loaded.
    pub skipped: Vec<Skipped>,
    /// Other things a person should know (limits met).
    pub notes: Vec<String>,
    /// How long the disk was searched.
    pub elapsed: std::time::Duration,
}

impl Discovery {
    /// Everything a person should be told: skipped skills, warnings of
    /// loaded ones, shadowing and limits.
    pub fn notices(&self) -> Vec<String> {
        let mut out: Vec<String> = self.skipped.iter().map(Skipped::notice).collect();
        for skill in &self.skills {
            out.extend(skill.warnings.iter().cloned());
        }
        for s in &self.shadowed {
            out.push(format!(
                "skill {} at {} is shadowed by the one at {}, which is used",
                s.name, s.hidden, s.kept
            ));
        }
        out.extend(self.notes.iter().cloned());
        out
    }

    /// Adds skills from elsewhere (an MCP server's); a name already taken
    /// is shadowed.
    pub fn add(&mut self, skills: Vec<Skill>) {
        for skill in skills {
            self.insert(skill);
        }
    }

    fn insert(&mut self, skill: Skill) {
        match self.skills.iter().find(|s| s.name == skill.name) {
            Some(kept) => self.shadowed.push(Shadowed {
                name: skill.name.clone(),
                kept: kept.location(),
                hidden: skill.location(),
            }),
            None => self.skills.push(skill),
        }
    }
}

/// Finds the skills of `places`.
pub fn discover(places: &Places) -> Discovery {
    let started = Instant::now();
    let (roots, notes) = places.roots();
    let mut discovery = Discovery {
        notes,
        ..Discovery::default()
    };
    for root in &roots {
        read_root(root, &mut discovery);
    }
    discovery.elapsed = started.elapsed();
    discovery
}

/// The skills of one folder, by name.
fn read_root(root: &Root, discovery: &mut Discovery) {
    let Ok(entries) = std::fs::read_dir(&root.dir) else {
        return;
    };
    let mut dirs: Vec<(String, PathBuf)> = Vec::new();
    let mut over = false;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if dirs.len() == MAX_ENTRIES {
            over = true;
            break;
        }
        dirs.push((name, entry.path()));
    }
    if over {
        discovery.notes.push(format!(
            "skills: {} has more than {MAX_ENTRIES} entries; only {MAX_ENTRIES} were read",
            root.dir.display()
        ));
    }
    dirs.sort();
    for (folder, dir) in dirs {
        // A symbolic link to a skill folder is followed (metadata, not
        // symlink_metadata); a file is not a skill.
        if !std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let file = ["SKILL.md", "skill.md"]
            .iter()
            .map(|f| dir.join(f))
            .find(|f| f.is_file());
        let Some(file) = file else {
            continue;
        };
        match read_skill(&file, &dir, &folder, root.scope) {
            Ok(skill) => discovery.insert(skill),
            Err(problem) => discovery.skipped.push(Skipped { file, problem }),
        }
    }
}

/// Reads one local skill.
pub fn read_skill(file: &Path, dir: &Path, folder: &str, scope: Scope) -> Result<Skill, Problem> {
    let unreadable = |message: String| Problem {
        class: frontmatter::ProblemClass::Unreadable,
        line: 1,
        message,
    };
    let size = std::fs::metadata(file)
        .map_err(|e| unreadable(format!("cannot be read: {e}")))?
        .len();
    if size > MAX_SKILL_MD_BYTES {
        return Err(unreadable(format!(
            "is {size} bytes; a SKILL.md over {MAX_SKILL_MD_BYTES} bytes is not read"
        )));
    }
    let bytes = std::fs::read(file).map_err(|e| unreadable(format!("cannot be read: {e}")))?;
    let text = String::from_utf8_lossy(&bytes);
    let parsed = frontmatter::parse(&text, folder)?;
    let name = parsed.frontmatter.name.clone().unwrap_or_default();
    let description = parsed.frontmatter.description.clone().unwrap_or_default();
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let file = dir.join(file.file_name().unwrap_or_default());
    Ok(Skill {
        name,
        description,
        scope,
        warnings: parsed.warnings.iter().map(|w| w.at(&file)).collect(),
        source: Source::Local { dir, file },
        frontmatter: parsed.frontmatter,
        folder: folder.to_owned(),
        digest: digest(&bytes),
    })
}

/// `sha256:` and the hex digest of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in hash {
        let _ = write!(out, "{b:02x}");
    }
    out
}
