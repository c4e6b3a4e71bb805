//! A tool call as the policy sees it: the tool, its input, the working
//! directory, and what the input names (paths resolved, Bash parsed).
//!
//! Resolution is the only step that touches the file system
//! ([`Request::resolve`]); [`crate::evaluate`] itself does no IO.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_protocol::Verdict;

use crate::command;
use crate::paths::{self, Resolution, ResolvedPath};
use crate::policy::{Forms, Policy};
use crate::rule::{EDIT_TOOLS, READ_TOOLS, url_host};
use crate::shell::{self, Family, Item, UncertainKind};
use crate::tool_paths;

/// The agent type an Agent call without `subagent_type` starts.
const GENERAL_PURPOSE_AGENT: &str = "general-purpose";

/// A tool call to decide on.
#[derive(Debug, Clone)]
pub struct Request {
    tool: String,
    input: Value,
    cwd: PathBuf,
    pub(crate) subject: Subject,
    /// How its paths were resolved (through the file system or lexically).
    pub(crate) how: Resolution,
    /// For a tool of an MCP server: the server's name and the tool's own
    /// name there ([`Request::with_mcp_tool`]).
    pub(crate) mcp: Option<McpOrigin>,
}

/// An MCP tool as its server names it, beside the name the model calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct McpOrigin {
    pub server: String,
    pub tool: String,
}

/// What the input names, by tool.
#[derive(Debug, Clone)]
pub(crate) enum Subject {
    /// `Bash`: the command and what it contains.
    Bash { command: String, items: Vec<Item> },
    /// Read/Edit-family tools: the paths named (`search`: a directory
    /// searched by Grep or Glob).
    Paths {
        targets: Vec<ResolvedPath>,
        search: bool,
    },
    /// WebFetch.
    Url {
        url: String,
        host: Result<String, String>,
    },
    /// `Skill`: the skill it loads.
    Skill { name: String },
    /// `Agent`: the agent type it starts.
    Agent { name: String },
    /// A command tool: the argv it would run, as [`crate::command_text`]
    /// writes it with argv\[0\] as given (`given`, an absolute path) and as
    /// its file name (`text`, what the prompt shows), and whether the tool
    /// only reads (plan mode lets it run).
    Command {
        given: String,
        text: String,
        read_only: bool,
        /// The files and hosts the argv names, read as Bash reads the same
        /// command line (`cat .env`, `git log -p -- .env`): they meet the
        /// deny and ask rules (see [`command_touches`]).
        touches: Vec<Item>,
    },
    /// Any other tool (MCP, todo list, custom): the name, and for an MCP
    /// tool the local paths its input names (see [`mcp_touches`]), which
    /// meet the Read and Edit deny and ask rules.
    Tool { touches: Vec<Item> },
    /// The input lacks what the policy needs (fails closed: never allowed).
    Invalid(String),
}

impl Request {
    /// Build a request, resolving paths through the file system (symlinks
    /// followed) against `cwd`. This is the IO step before [`crate::evaluate`].
    pub fn resolve(tool: &str, input: &Value, cwd: &Path, policy: &Policy) -> Request {
        Request::build(tool, input, cwd, policy, Resolution::FileSystem)
    }

    /// Build a request without touching the file system (paths normalised
    /// lexically only). Pure; for tests and dry runs.
    pub fn lexical(tool: &str, input: &Value, cwd: &Path, policy: &Policy) -> Request {
        Request::build(tool, input, cwd, policy, Resolution::Lexical)
    }

    /// Build a request for a command tool's call: `argv` is what the call
    /// with `input` would run (argv\[0\] the executable's absolute path, as
    /// tack-tool's `Tool::command_line` gives it), `read_only` whether the
    /// tool only reads (plan mode lets it run). Rules `NAME` and
    /// `NAME(pattern)` decide it, the pattern matching the argv's
    /// [`crate::command_text`]; the request reads `NAME(git log -n 5)`
    /// (argv\[0\] as its file name), so a prompt shows what would run. An
    /// empty argv is invalid (never allowed). Pure.
    pub fn command(
        tool: &str,
        input: &Value,
        argv: Vec<String>,
        read_only: bool,
        cwd: &Path,
        policy: &Policy,
    ) -> Request {
        let cwd = paths::lexical(cwd, Path::new("/"));
        let subject = if argv.is_empty() {
            Subject::Invalid("the tool built no command to run".into())
        } else {
            let mut texts = command::texts(&argv);
            let given = texts.swap_remove(0);
            let text = texts.pop().unwrap_or_else(|| given.clone());
            Subject::Command {
                touches: command_touches(&given, &cwd, policy),
                given,
                text,
                read_only,
            }
        };
        Request {
            tool: tool.to_string(),
            input: input.clone(),
            cwd,
            subject,
            how: policy.resolution,
            mcp: None,
        }
    }

    fn build(tool: &str, input: &Value, cwd: &Path, policy: &Policy, how: Resolution) -> Request {
        let cwd = paths::lexical(cwd, Path::new("/"));
        let home = policy.home();
        let str_field = |name: &str| input.get(name).and_then(Value::as_str);
        let subject = match tool {
            "Bash" => match str_field("command") {
                Some(command) => Subject::Bash {
                    command: command.to_string(),
                    items: look_inside(
                        shell::analyze(
                            command,
                            &cwd,
                            home,
                            how,
                            policy.restricts_paths() || shell::may_name_a_secret(command),
                        ),
                        policy,
                        how,
                    ),
                },
                None => Subject::Invalid("the input has no `command` string".into()),
            },
            // The directory Glob walks, read as the tool reads it, and the
            // literal start of the pattern below it (what it can match).
            "Glob" => {
                let (base, pattern) =
                    tool_paths::split_glob(str_field("pattern").unwrap_or(""), str_field("path"));
                let base = tool_paths::search_dir(base.as_deref()).unwrap_or(".");
                let literal: Vec<&str> = pattern
                    .split('/')
                    .take_while(|c| !c.contains(['*', '?', '[', '{']))
                    .collect();
                let dir = Path::new(base).join(literal.join("/"));
                paths_subject(&[dir.to_string_lossy().as_ref()], &cwd, home, how, true)
            }
            "Grep" | "LS" => {
                let base = tool_paths::search_dir(str_field("path")).unwrap_or(".");
                paths_subject(&[base], &cwd, home, how, true)
            }
            t if READ_TOOLS.contains(&t) || EDIT_TOOLS.contains(&t) => {
                let field = if t == "NotebookEdit" || t == "NotebookRead" {
                    "notebook_path"
                } else {
                    "file_path"
                };
                match str_field(field) {
                    Some(p) => paths_subject(&[tool_paths::written(p)], &cwd, home, how, false),
                    None => Subject::Invalid(format!("the input has no `{field}` string")),
                }
            }
            "WebFetch" => match str_field("url") {
                Some(url) => Subject::Url {
                    url: url.to_string(),
                    host: url_host(url),
                },
                None => Subject::Invalid("the input has no `url` string".into()),
            },
            "Skill" => match str_field("skill") {
                Some(name) => Subject::Skill {
                    name: name.trim().trim_start_matches('/').to_string(),
                },
                None => Subject::Invalid("the input has no `skill` string".into()),
            },
            // As the Agent tool reads it: no type (or an empty one) is the
            // general-purpose agent. (`Task` is only a name rules may use:
            // tack's tool is called Agent.)
            "Agent" => match input.get("subagent_type") {
                None | Some(serde_json::Value::Null) => Subject::Agent {
                    name: GENERAL_PURPOSE_AGENT.into(),
                },
                Some(serde_json::Value::String(name)) if name.trim().is_empty() => Subject::Agent {
                    name: GENERAL_PURPOSE_AGENT.into(),
                },
                Some(serde_json::Value::String(name)) => Subject::Agent {
                    name: name.trim().to_owned(),
                },
                Some(_) => Subject::Invalid("`subagent_type` is not a string".into()),
            },
            t if t.starts_with("mcp__") => Subject::Tool {
                touches: mcp_touches(t, input, &cwd, home, how, policy),
            },
            _ => Subject::Tool {
                touches: Vec::new(),
            },
        };
        Request {
            tool: tool.to_string(),
            input: input.clone(),
            cwd,
            subject,
            how,
            mcp: None,
        }
    }

    /// A Read of `path`, already resolved: how a file a search found is
    /// read (its name taken as it is on disk, not as a model wrote it).
    pub(crate) fn read_of(path: ResolvedPath, policy: &Policy) -> Request {
        Request {
            tool: "Read".to_string(),
            input: serde_json::json!({ "file_path": path.lexical }),
            cwd: policy.cwd().to_path_buf(),
            subject: Subject::Paths {
                targets: vec![path],
                search: false,
            },
            how: policy.resolution,
            mcp: None,
        }
    }

    /// The request for a tool of an MCP server, `server` as configured and
    /// `tool` the tool's own name there. The name the model calls (the
    /// request's tool) is rewritten to fit the model APIs: characters made
    /// `_`, a long name cut and ended with a hash, a name another tool took
    /// given a hash suffix. A rule `mcp__server__tool` matches the tool
    /// under either name, so a deny rule naming a tool holds however its
    /// model-facing name was rewritten, or whichever tool took the name.
    #[must_use]
    pub fn with_mcp_tool(mut self, server: &str, tool: &str) -> Request {
        self.mcp = Some(McpOrigin {
            server: server.to_string(),
            tool: tool.to_string(),
        });
        self
    }

    /// The files the call reads or writes as the rules judged them:
    /// resolved through the file system (links followed). A tool that
    /// opens its file after the check can confirm it opened one of these,
    /// not another that a link swapped in meanwhile. Empty for a search
    /// (Grep, Glob), a command, a URL.
    pub fn checked_files(&self) -> Vec<std::path::PathBuf> {
        match &self.subject {
            Subject::Paths {
                targets,
                search: false,
            } if self.how == Resolution::FileSystem => {
                targets.iter().map(|t| t.canonical.clone()).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The tool name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The input as given.
    pub fn input(&self) -> &Value {
        &self.input
    }

    /// The working directory the call runs in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The call as a rule would name it: `Bash(git push)`, `Read(/abs)`,
    /// `WebFetch(https://…)`, `git_log(git log -n 5)` (a command tool: its
    /// argv, argv\[0\] as its file name), or the tool name.
    pub fn display(&self) -> String {
        match &self.subject {
            Subject::Command { text, .. } => format!("{}({text})", self.tool),
            Subject::Bash { command, .. } => format!("Bash({})", shell::snippet(command)),
            Subject::Paths { targets, .. } => match targets.first() {
                Some(t) => format!("{}({})", self.tool, t.canonical.display()),
                None => self.tool.clone(),
            },
            Subject::Url { url, .. } => format!("WebFetch({url})"),
            Subject::Skill { name } => format!("Skill({name})"),
            Subject::Agent { name } => format!("Agent({name})"),
            Subject::Tool { .. } | Subject::Invalid(_) => self.tool.clone(),
        }
    }
}

/// Entries one command's recursive reads may visit, all directories
/// together, before what lies inside is called unknown.
const MAX_INSIDE: usize = 20_000;

/// A directory read whole (`grep -r KEY .`) reads every file under it: each
/// file there that a Read deny or ask rule names becomes a path the command
/// touches, so the rule holds as it does for `cat .env`. Only the subtrees
/// where such a rule could match are walked; links are followed to where
/// they lead. When the walk is too large, or may not touch the file system,
/// what is inside is uncertain.
fn look_inside(items: Vec<Item>, policy: &Policy, how: Resolution) -> Vec<Item> {
    if !items.iter().any(|i| {
        matches!(
            i,
            Item::Touch {
                recursive: true,
                ..
            } | Item::ReadVisible { .. }
                | Item::ReadNarrowed { .. }
        )
    }) {
        return items;
    }
    let mut budget = MAX_INSIDE;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let (written, path, visible_only, ignores, names) = match item {
            Item::Touch {
                family: Family::Read,
                written,
                path,
                recursive: true,
            } => (written, path, false, false, None),
            Item::ReadVisible {
                written,
                path,
                ignores,
            } => (written, path, true, ignores, None),
            Item::ReadNarrowed {
                written,
                path,
                names,
            } => (written, path, false, false, Some(names)),
            // A directory given to a program that may change what is in it
            // (`Family::MaybeEdit`) keeps its mark: the evaluation looks
            // for Edit rules inside it.
            item => {
                out.push(item);
                continue;
            }
        };
        out.push(Item::Touch {
            family: Family::Read,
            written: written.clone(),
            path: path.clone(),
            recursive: false,
        });
        let Some(rule) = read_rule_inside(policy, &path) else {
            continue;
        };
        let unknown = |reason: String| Item::Uncertain {
            kind: UncertainKind::Touch(Family::Read),
            snippet: written.clone(),
            reason,
        };
        if how == Resolution::Lexical {
            out.push(unknown(format!(
                "it reads everything under `{written}`, where `{}` may apply",
                policy.rules[rule].text
            )));
            continue;
        }
        let resolver = paths::Resolver::new(how);
        let mut found = Vec::new();
        let walked = if ignores {
            walk_unignored(&path.canonical, policy, &mut budget, &mut found)
        } else {
            walk_inside(
                &path.canonical,
                policy,
                &resolver,
                visible_only,
                &mut budget,
                &mut found,
            )
        };
        if walked.is_err() {
            out.push(unknown(format!(
                "it reads everything under `{written}`, which holds too many files to check against `{}`",
                policy.rules[rule].text
            )));
            continue;
        }
        if let Some(names) = &names {
            // What the program's own filters leave out is not read (a
            // path the walk reached through a link is kept).
            found.retain(|inside| {
                inside
                    .lexical
                    .strip_prefix(&path.lexical)
                    .map_or(true, |rel| {
                        names.reads(&written, rel, inside.canonical.is_dir())
                    })
            });
        }
        out.extend(found.into_iter().map(|inside| Item::Touch {
            family: Family::Read,
            written: format!("{} (read as part of `{written}`)", inside.lexical.display()),
            path: inside,
            recursive: false,
        }));
    }
    out
}

/// The first Read deny (else ask) rule that could match something inside
/// `dir`.
fn read_rule_inside(policy: &Policy, dir: &ResolvedPath) -> Option<usize> {
    policy
        .path_rule_inside(Verdict::Deny, &["Read"], dir)
        .or_else(|| policy.path_rule_inside(Verdict::Ask, &["Read"], dir))
}

/// Collect the entries under `dir` that a Read deny or ask rule matches,
/// leaving hidden ones (and what is under them) out when `visible_only`.
/// Err when more than `budget` entries would be visited.
fn walk_inside(
    dir: &Path,
    policy: &Policy,
    resolver: &paths::Resolver,
    visible_only: bool,
    budget: &mut usize,
    found: &mut Vec<ResolvedPath>,
) -> Result<(), ()> {
    let restricts = |p: &ResolvedPath| {
        policy
            .path_rule(Verdict::Deny, &["Read"], p, Forms::Both, false)
            .or_else(|| policy.path_rule(Verdict::Ask, &["Read"], p, Forms::Both, false))
            .is_some()
    };
    let skips = visible_only && !whitelisted_above(dir, policy.home());
    let mut stack = vec![(dir.to_path_buf(), skips)];
    while let Some((d, skips)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let skips = skips && !whitelists(&d);
        for entry in entries.flatten() {
            *budget = budget.checked_sub(1).ok_or(())?;
            if skips && entry.file_name().as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let lexical = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let canonical = if kind.is_symlink() {
                match resolver.canonical(&lexical) {
                    Ok(c) => c,
                    // A link that leads somewhere unknowable.
                    Err(_) => return Err(()),
                }
            } else {
                lexical.clone()
            };
            let p = ResolvedPath { lexical, canonical };
            if restricts(&p) {
                found.push(p);
            } else if kind.is_dir() && read_rule_inside(policy, &p).is_some() {
                stack.push((p.canonical, skips));
            }
        }
    }
    Ok(())
}

/// [`walk_inside`] as ripgrep walks by default: hidden entries and what
/// its ignore files leave out (`.gitignore` files in a repository, `.ignore`,
/// `.rgignore`, the repository's `info/exclude`, the user's global
/// excludes, each with its `!` lines) are not read. The walk is ripgrep's
/// own (its `ignore` crate), descending only where a rule may apply.
fn walk_unignored(
    dir: &Path,
    policy: &Policy,
    budget: &mut usize,
    found: &mut Vec<ResolvedPath>,
) -> Result<(), ()> {
    let inside = std::sync::Arc::new(policy.clone());
    let prune = inside.clone();
    let walk = ignore::WalkBuilder::new(dir)
        .standard_filters(true)
        .add_custom_ignore_filename(".rgignore")
        .follow_links(false)
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            let p = ResolvedPath {
                lexical: e.path().to_path_buf(),
                canonical: e.path().to_path_buf(),
            };
            !is_dir
                || e.depth() == 0
                || restricted(&prune, &p)
                || read_rule_inside(&prune, &p).is_some()
        })
        .build();
    for entry in walk {
        let Ok(entry) = entry else {
            continue;
        };
        if entry.depth() == 0 {
            continue;
        }
        *budget = budget.checked_sub(1).ok_or(())?;
        // ripgrep does not follow a link it meets in a walk (without `-L`,
        // which takes the other walk).
        if entry.path_is_symlink() {
            continue;
        }
        let lexical = entry.path().to_path_buf();
        let p = ResolvedPath {
            canonical: lexical.clone(),
            lexical,
        };
        if restricted(&inside, &p) {
            found.push(p);
        }
    }
    Ok(())
}

/// Whether a Read deny (else ask) rule matches `p`.
fn restricted(policy: &Policy, p: &ResolvedPath) -> bool {
    policy
        .path_rule(Verdict::Deny, &["Read"], p, Forms::Both, false)
        .or_else(|| policy.path_rule(Verdict::Ask, &["Read"], p, Forms::Both, false))
        .is_some()
}

/// Whether an ignore file ripgrep reads in `dir` has a `!` line: a
/// pattern that names a file to search though another rule leaves it out,
/// which ripgrep matches before its hidden filter (so `!.env` lets `.env`
/// in).
fn whitelists(dir: &Path) -> bool {
    [".gitignore", ".ignore", ".rgignore"]
        .iter()
        .any(|f| has_negation(&dir.join(f)))
}

fn has_negation(file: &Path) -> bool {
    std::fs::read_to_string(file).is_ok_and(|t| t.lines().any(|l| l.trim_start().starts_with('!')))
}

/// [`whitelists`] for the directories above `dir`, the repository's
/// `info/exclude` and the user's global ignore file.
fn whitelisted_above(dir: &Path, home: Option<&Path>) -> bool {
    if dir.ancestors().skip(1).any(whitelists) {
        return true;
    }
    let repo = crate::git_index::worktree_of(dir)
        .and_then(crate::git_index::git_dir)
        .is_some_and(|g| has_negation(&g.join("info/exclude")));
    let global = home.is_some_and(|h| {
        crate::git_config::GitConfig::of_user(Some(h))
            .excludes_files(h)
            .iter()
            .any(|f| has_negation(f))
    });
    repo || global
}

/// What a command tool's argv names, read as Bash reads the same command
/// line: the files it reads or changes and the hosts it reaches. Only
/// these are kept (the program is the one the user declared, so what it
/// runs needs no rule of its own), and only where a rule could apply.
fn command_touches(line: &str, cwd: &Path, policy: &Policy) -> Vec<Item> {
    let hosts = policy.has_domain_rules(Verdict::Deny) || policy.has_domain_rules(Verdict::Ask);
    if !policy.restricts_paths() && !hosts && !policy.guards_writes() && !names_a_removal(line) {
        return Vec::new();
    }
    let mut items = shell::analyze(line, cwd, policy.home(), policy.resolution, true);
    // A line too large (or too costly) to read whole: what it reads, writes
    // and reaches is unknown, not nothing.
    let whole: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            Item::Uncertain {
                kind: UncertainKind::Command,
                reason,
                ..
            } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    for reason in whole {
        items.extend(unchecked(&reason).into_iter().filter(|i| {
            !matches!(
                i,
                Item::Uncertain {
                    kind: UncertainKind::Opaque,
                    ..
                }
            )
        }));
    }
    look_inside(items, policy, policy.resolution)
        .into_iter()
        .filter(|item| match item {
            Item::Touch { .. }
            | Item::ReadVisible { .. }
            | Item::ReadNarrowed { .. }
            | Item::GitContent { .. }
            | Item::Edit { .. }
            | Item::EditInside { .. }
            | Item::Written { .. }
            | Item::Removal { .. }
            | Item::Host { .. } => true,
            Item::Uncertain { kind, .. } => {
                matches!(kind, UncertainKind::Touch(_) | UncertainKind::Host)
            }
            Item::Command(_) | Item::Input { .. } => false,
        })
        .collect()
}

/// Whether a command line may hold an `rm` or `rmdir` (the critical
/// removals hold in every mode).
fn names_a_removal(line: &str) -> bool {
    line.contains("rm")
}

/// Keys of an MCP tool's input whose values are local paths, written as
/// servers name them, lowercased with `_` and `-` dropped (`file_path`,
/// `filePath`, `source-path` are `filepath`, `sourcepath`); besides these,
/// every key named for one ([`is_path_key`]: `new_path`, `repo_path`,
/// `old_file`, `output_dir`).
const PATH_KEYS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "filepath",
    "filepaths",
    "filename",
    "filenames",
    "fullpath",
    "absolutepath",
    "relativepath",
    "source",
    "sourcepath",
    "sources",
    "src",
    "destination",
    "destinationpath",
    "dest",
    "target",
    "targetpath",
    "dir",
    "directory",
    "dirpath",
    "directorypath",
    "folder",
    "folderpath",
    "root",
    "rootpath",
    "cwd",
    "workdir",
    "workingdirectory",
    "notebookpath",
    "inputpath",
    "inputfile",
    "outputpath",
    "outputfile",
    "savepath",
    "savedir",
    "localpath",
    "pathname",
    "output",
    "out",
    "input",
    "to",
    "from",
    "location",
    "resource",
    "uri",
    "uris",
];

/// An input's key as the key lists hold it: lower case, without `_` and
/// `-` (`file_path`, `filePath` and `file-path` are `filepath`).
fn normalised_key(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// How an input's key says its value is a path (see [`path_key`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Under {
    /// A key named for a path (`path`, `dst_path`, `outputFile`): its
    /// strings are paths.
    Named,
    /// A key that names a path as often as anything else (`name`, `old`,
    /// `new`, `in`, `inputs`): a string that reads as a file name is one.
    Loose,
    /// A key named for text (`content`, `message`, `old_string`,
    /// `pattern`): a string there is what a file holds or what is sought,
    /// not a file.
    Text,
    /// Any other key: a string that is an existing file or directory is
    /// one.
    Other,
}

/// Words of a key that say its value is a path, wherever they stand in
/// it (`dst_path`, `srcFile`, `attachment_ids` aside: see
/// [`TEXT_WORDS`]).
const PATH_WORDS: &[&str] = &[
    "pathname",
    "dst",
    "dest",
    "src",
    "archive",
    "archives",
    "attachment",
    "attachments",
    "zip",
    "tarball",
];

/// Words a key ending in names a path (`newPath`, `config_file`); path
/// words too, beside [`PATH_WORDS`].
const PATH_ENDINGS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filenames",
    "dir",
    "dirs",
    "directory",
    "directories",
    "folder",
    "folders",
];

/// Keys (normalised) that name a path as often as a thing's name or some
/// text: their value is a path when it reads as a file name (see
/// [`reads_as_file_name`]) or names one that exists.
const LOOSE_PATH_KEYS: &[&str] = &[
    "name", "names", "old", "new", "oldname", "newname", "in", "inputs", "outputs", "item",
    "items", "entry", "entries",
];

/// Words of a key that say its value is text (what a file holds, a
/// message, what is sought or put in its place), not a file:
/// `file_content`, `old_string`, `new_text`, `search_pattern`.
const TEXT_WORDS: &[&str] = &[
    "content",
    "contents",
    "text",
    "body",
    "message",
    "messages",
    "msg",
    "data",
    "description",
    "desc",
    "title",
    "comment",
    "comments",
    "summary",
    "prompt",
    "instructions",
    "pattern",
    "patterns",
    "regex",
    "regexp",
    "glob",
    "query",
    "search",
    "string",
    "str",
    "replacement",
    "replace",
    "type",
    "mode",
    "format",
    "encoding",
    "size",
    "language",
];

/// The words of an input's key, lower case: split at `_`, `-`, `.`,
/// spaces, and where a lower-case letter or a digit meets an upper-case one
/// (`oldName` is `old`, `name`; `dst_path` is `dst`, `path`;
/// `serverAddress` is `server`, `address`; `baseURL` is `base`, `url`).
fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// What a key (`key` normalised as [`PATH_KEYS`], `words` its
/// [`key_words`]) says of its value as a path: listed, ending in what says
/// so (`newpath`, `repopath`, `oldfile`, `outputdir`), or holding a word
/// that does (`dst_path`, `src`, `attachment`) and none that names text
/// (`file_content`) are [`Under::Named`].
fn path_key(key: &str, words: &[String]) -> Under {
    let text = words.iter().any(|w| TEXT_WORDS.contains(&w.as_str()));
    if PATH_KEYS.contains(&key)
        || PATH_ENDINGS.iter().any(|e| key.ends_with(e))
        || (!text
            && words
                .iter()
                .any(|w| PATH_WORDS.contains(&w.as_str()) || PATH_ENDINGS.contains(&w.as_str())))
    {
        Under::Named
    } else if LOOSE_PATH_KEYS.contains(&key) {
        Under::Loose
    } else if text {
        Under::Text
    } else {
        Under::Other
    }
}

/// Whether a string under a key that names a path as often as not
/// ([`Under::Loose`]) reads as a file name: one line, with a `/`, a
/// leading `.` (`.env`), or an extension (`notes.txt`).
fn reads_as_file_name(s: &str) -> bool {
    if s.contains(['\n', '\0']) || s.len() > 4096 || s.contains("://") {
        return false;
    }
    let extension = s.rsplit_once('.').is_some_and(|(head, ext)| {
        !head.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    s.contains('/') || s.starts_with('.') || extension
}

/// How a string of an MCP tool's input was found to be a path (see
/// [`input_paths`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Found {
    /// The key or the string's form says it is one.
    Named,
    /// Only if it names a file or directory that exists (relative to the
    /// working directory).
    IfExists,
}

/// The local paths an MCP tool's input names (see [`mcp_touches`]): under
/// a key named for a path, any string that is no URL; under a key that
/// names one as often as not, a string that reads as a file name; under
/// any key, an absolute or `~/` path and a `file:` URI; and under any key
/// but one named for text, a relative string that may name an existing
/// file ([`Found::IfExists`]), as `{"argv": ["cat", ".env"]}` or
/// `{"id": "secrets/key"}` do (an option's value too: `--input=.env`).
fn input_paths(value: &Value, under: Under, depth: usize, out: &mut Vec<(String, Found)>) {
    if depth > MAX_INPUT_DEPTH || out.len() >= MAX_INPUT_STRINGS {
        return;
    }
    let mut push = |s: &str, found: Found| {
        if !s.is_empty() && !out.iter().any(|(o, _)| o == s) {
            out.push((s.to_owned(), found));
        }
    };
    match value {
        Value::String(s) => {
            let s = s.trim();
            // A JSON document given as a string (`{"config": "{\"path\":
            // …}"}`): what it holds, read as the input is.
            if let Some(inner) = json_in_string(s) {
                return input_paths(&inner, under, depth + 1, out);
            }
            if let Some(path) = file_uri_path(s) {
                // `file:secrets/key` is `/secrets/key` to a URL parser and
                // `secrets/key` to `urlparse(uri).path`: both.
                if let Some(relative) = relative_file_uri(s) {
                    push(&relative, Found::Named);
                }
                push(&path, Found::Named);
            } else if (looks_like_a_path(s)
                && !(under == Under::Text && s.contains(char::is_whitespace)))
                || (under == Under::Named && !s.contains("://"))
                || (under == Under::Loose && reads_as_file_name(s))
            {
                push(s, Found::Named);
            } else if under != Under::Text
                && s.len() <= 1024
                && !s.contains(['\n', '\0'])
                && !s.contains("://")
                && !matches!(s, "." | ".." | "./")
            {
                // `--input=.env`: an option's value.
                let s = match s.strip_prefix('-') {
                    Some(option) => option.split_once('=').map_or("", |(_, v)| v),
                    None => s,
                };
                push(s, Found::IfExists);
            }
        }
        Value::Array(items) => {
            for item in items {
                input_paths(item, under, depth + 1, out);
            }
        }
        Value::Object(map) => {
            for (key, v) in map {
                let here = path_key(&normalised_key(key), &key_words(key));
                // `{"files": {"a": "/x"}}`: an object under a key named for
                // paths holds paths.
                let under = match (under, here) {
                    (Under::Named, _) | (_, Under::Named) => Under::Named,
                    (Under::Text, Under::Other) => Under::Text,
                    (_, here) => here,
                };
                input_paths(v, under, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The local path a `file:` URI names, in any spelling a URL parser takes
/// (`file:///p`, `file:/p`, `FILE:///p`, percent-escapes), the host ignored
/// as servers ignore it (`file://host/p` is `/p` to most).
fn file_uri_path(s: &str) -> Option<String> {
    if !s.get(..5)?.eq_ignore_ascii_case("file:") {
        return None;
    }
    let url = url::Url::parse(s).ok()?;
    if let Ok(path) = url.to_file_path() {
        return path.to_str().map(str::to_owned);
    }
    let decoded = percent_encoding::percent_decode_str(url.path())
        .decode_utf8()
        .ok()?;
    Some(decoded.into_owned())
}

/// The path a `file:` URI without `//` or a leading `/` names relative to
/// the working directory (`file:secrets/key`, `file:./k`), percent-decoded,
/// as a server that takes the URI's path as it is reads it.
fn relative_file_uri(s: &str) -> Option<String> {
    let rest = s.get(5..)?;
    if rest.is_empty() || rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    percent_encoding::percent_decode_str(rest)
        .decode_utf8()
        .ok()
        .map(|c| c.into_owned())
}

/// A string that is itself a JSON object or array (at most 64 KiB), parsed.
fn json_in_string(s: &str) -> Option<Value> {
    let structured =
        (s.starts_with('{') && s.ends_with('}')) || (s.starts_with('[') && s.ends_with(']'));
    if !structured || s.len() > 65_536 {
        return None;
    }
    serde_json::from_str::<Value>(s)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
}

/// Whether a string under a key not named for a path reads as one anyway:
/// absolute, or from the home directory (`/etc/passwd`, `~/.ssh/id_rsa`).
/// Only deny and ask rules and the protected paths judge it, so an API's
/// route read as a path (`/users/1`) changes nothing where no rule names it.
fn looks_like_a_path(s: &str) -> bool {
    (s.starts_with('/') || s.starts_with("~/")) && !s.contains(['\n', '\0'])
}

/// Keys of an MCP tool's input whose values are URLs or hosts it reaches
/// (normalised as [`PATH_KEYS`]): they meet the `WebFetch(domain:…)` deny
/// and ask rules, as a URL in a Bash command does.
const URL_KEYS: &[&str] = &[
    "url",
    "urls",
    "uri",
    "uris",
    "href",
    "link",
    "links",
    "endpoint",
    "baseurl",
    "website",
    "site",
    "host",
    "hostname",
    "domain",
    "server",
    "serverurl",
    "target",
    "targeturl",
    "webhook",
    "webhookurl",
    "callbackurl",
    "proxy",
    "remote",
    "remoteurl",
    "repourl",
    "repositoryurl",
    "feedurl",
    "imageurl",
    "source",
    "sourceurl",
    "destination",
    "address",
    "page",
    "location",
    "ip",
    "ips",
    "ipaddress",
    "ipaddr",
    "addr",
    "hostaddr",
    "dsn",
    "connectionstring",
    "connstring",
    "connstr",
    "conninfo",
    "broker",
    "brokers",
    "bootstrapserver",
    "bootstrapservers",
    "servers",
    "addresses",
    "nodes",
    "seeds",
    "peers",
];

/// Words of a key that say its value is a URL or a host it reaches,
/// wherever they stand in it (`proxy_server`, `serverAddress`,
/// `upstream_url`, `dns_server`, `smtpRelay`), as the shell analysis reads
/// a variable's name.
const HOST_WORDS: &[&str] = &[
    "url",
    "urls",
    "uri",
    "uris",
    "host",
    "hosts",
    "hostname",
    "hostnames",
    "domain",
    "domains",
    "endpoint",
    "endpoints",
    "server",
    "servers",
    "nameserver",
    "nameservers",
    "proxy",
    "proxies",
    "registry",
    "registries",
    "mirror",
    "mirrors",
    "index",
    "upstream",
    "upstreams",
    "peer",
    "peers",
    "addr",
    "address",
    "addresses",
    "ip",
    "ips",
    "target",
    "targets",
    "dest",
    "destination",
    "destinations",
    "origin",
    "resolver",
    "resolvers",
    "bastion",
    "jumphost",
    "gateway",
    "relay",
    "socket",
    "broker",
    "brokers",
    "node",
    "nodes",
    "seeds",
    "remote",
    "webhook",
    "website",
    "site",
    "link",
    "href",
];

/// Whether a key (normalised as [`PATH_KEYS`], `words` its [`key_words`])
/// names a URL or a host: listed, ending in what says so (`apiurl`,
/// `redirecturis`, `targethosts`, `allowedomains`, `tokenendpoint`), or
/// holding a word of [`HOST_WORDS`] (`proxy_server`, `registry`). A
/// listening address (`bind`, `listen`) and what is kept from a proxy
/// (`no_proxy`) reach no host.
fn is_url_key(key: &str, words: &[String]) -> bool {
    const ENDINGS: &[&str] = &[
        "url",
        "urls",
        "uri",
        "uris",
        "host",
        "hosts",
        "domain",
        "domains",
        "endpoint",
        "endpoints",
        "server",
        "servers",
        "brokers",
        "addresses",
        "nodes",
        "seeds",
        "proxy",
        "registry",
        "mirror",
        "upstream",
        "address",
        "addr",
    ];
    // `email_address`, `mailAddresses`: a mailbox, not a host reached.
    let mailbox = words.iter().any(|w| w == "email" || w == "mail")
        && words
            .last()
            .is_some_and(|w| matches!(w.as_str(), "address" | "addresses" | "addr"));
    let listens = key.contains("bind") || key.contains("listen") || key == "noproxy" || mailbox;
    !listens
        && (URL_KEYS.contains(&key)
            || ENDINGS.iter().any(|e| key.ends_with(e))
            || (words.iter().any(|w| HOST_WORDS.contains(&w.as_str()))
                && !words.iter().any(|w| TEXT_WORDS.contains(&w.as_str()))))
}

/// Verbs in a tool's name that say it changes what it is given.
const CHANGING_VERBS: &[&str] = &[
    "write",
    "edit",
    "create",
    "delete",
    "remove",
    "move",
    "rename",
    "update",
    "put",
    "append",
    "save",
    "copy",
    "mkdir",
    "patch",
    "replace",
    "insert",
    "set",
    "upload",
    "download",
    "apply",
    "format",
    "truncate",
    "chmod",
    "touch",
    "modify",
    "overwrite",
    "unlink",
    "rm",
    "mv",
    "cp",
];

/// Verbs in a tool's name that say it only reads what it is given.
const READING_VERBS: &[&str] = &[
    "read", "get", "list", "search", "find", "view", "show", "cat", "stat", "info", "tree", "head",
    "tail", "grep", "open", "load", "fetch", "query", "describe", "inspect", "diff", "status",
    "log",
];

/// How deep an input is searched for paths.
const MAX_INPUT_DEPTH: usize = 16;
/// Strings of one MCP call's input read for paths and hosts, at most.
const MAX_INPUT_STRINGS: usize = 512;
/// Shell commands of one MCP call's input read, at most.
const MAX_INPUT_COMMANDS: usize = 64;

/// The hosts an MCP tool's input names (strings under a key named for a URL
/// or a host: `url`, `endpoint`, `host`, …; they meet the
/// `WebFetch(domain:…)` deny and ask rules, when any exist), and the local
/// paths it names: strings under a key named for
/// a path (`path`, `file_path`, `source`, `destination`, `paths: […]`, at any
/// depth) that read as a path (no scheme, no newline), and `file://` URIs
/// anywhere. Each is read (a Read touch); one given to a tool whose name
/// says it changes things (`write_file`, `move_file`) is an edit, one given
/// to a tool whose name says neither may be changed (`MaybeEdit`: asked
/// under Edit deny and ask rules). A server is code tack does not see, so
/// only what the input names is checked, never a directory's contents, and
/// only against deny and ask rules.
fn mcp_touches(
    tool: &str,
    input: &Value,
    cwd: &Path,
    home: Option<&Path>,
    how: Resolution,
    policy: &Policy,
) -> Vec<Item> {
    let mut out = Vec::new();
    // What the reading below cannot reach whole is uncertain, not absent.
    if let Some(reason) = beyond_reach(input) {
        out.extend(unchecked(&reason));
    }
    if policy.has_domain_rules(Verdict::Deny) || policy.has_domain_rules(Verdict::Ask) {
        let mut found = Vec::new();
        input_values(input, Wanted::Hosts, HostKey::No, 0, &mut found);
        for written in found {
            let mut hosts = input_hosts(&written);
            // As WebFetch and the clients servers are written with read it
            // (`http:evil.com`, `https:////evil.com`, `//evil.com`).
            let t = written.trim();
            let absolute = match t.strip_prefix("//") {
                Some(_) => format!("https:{t}"),
                None => t.to_owned(),
            };
            if url::Url::parse(&absolute).is_ok()
                && let Ok(host) = crate::rule::url_host(&absolute)
                && !hosts.contains(&host)
            {
                hosts.push(host);
            }
            for host in hosts {
                out.push(Item::Host {
                    written: shell::snippet(&written),
                    host,
                });
            }
        }
    }
    out.extend(shell_commands_in(tool, input, cwd, home, how, policy));
    if !policy.restricts_paths() && !policy.guards_writes() {
        return look_inside(out, policy, how);
    }
    let own = tool
        .rsplit("__")
        .next()
        .unwrap_or(tool)
        .to_ascii_lowercase();
    let verbs: Vec<&str> = own
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |list: &[&str]| verbs.iter().any(|v| list.contains(v));
    let family = if has(CHANGING_VERBS) {
        Family::Edit
    } else if has(READING_VERBS) {
        Family::Read
    } else {
        Family::MaybeEdit
    };
    // A tool that searches what files hold (`grep`, `search_files`,
    // `find_in_files`) reads everything under a directory it is given, as
    // `grep -r KEY DIR` does.
    let searches = searches_contents(&own);
    let mut written = Vec::new();
    input_paths(input, Under::Other, 0, &mut written);
    // Each string only its existence says is a path costs an `lstat`: only
    // where a rule could judge what it names (a Read rule, or a change by a
    // tool that says it changes things), and at most [`MAX_EXISTS`] a call.
    let mut lookups = if policy.restricts_paths() || family == Family::Edit {
        MAX_EXISTS
    } else {
        0
    };
    for (w, found) in written {
        // A string only its existence says is a path: read when it names
        // one (without the file system, it cannot be known, and is not
        // read); changed only by a tool whose name says it changes things.
        let family = match found {
            Found::Named => family,
            Found::IfExists
                if how == Resolution::FileSystem && lookups > 0 && {
                    lookups -= 1;
                    names_a_file(cwd, &w)
                } =>
            {
                if family == Family::Edit {
                    Family::Edit
                } else {
                    Family::Read
                }
            }
            Found::IfExists => continue,
        };
        let subject = paths_subject(&[w.as_str()], cwd, home, how, false);
        let targets = match subject {
            Subject::Paths { targets, .. } => targets,
            Subject::Invalid(reason) => {
                out.push(Item::Uncertain {
                    kind: UncertainKind::Touch(Family::Read),
                    snippet: shell::snippet(&w),
                    reason,
                });
                continue;
            }
            _ => continue,
        };
        for path in targets {
            out.push(Item::Touch {
                family: Family::Read,
                written: w.clone(),
                path: path.clone(),
                recursive: searches,
            });
            if family == Family::Edit {
                out.push(Item::Written {
                    written: w.clone(),
                    path: path.clone(),
                });
            }
            if family != Family::Read {
                out.push(Item::Touch {
                    family,
                    written: w.clone(),
                    path,
                    recursive: false,
                });
            }
        }
    }
    look_inside(out, policy, how)
}

/// Why an MCP call's input is more than [`input_paths`],
/// [`input_values`] and [`command_values`] read whole: nested deeper than
/// [`MAX_INPUT_DEPTH`], more than [`MAX_INPUT_STRINGS`] strings, or a
/// string over 64 KiB. None when all of it is read.
fn beyond_reach(input: &Value) -> Option<String> {
    fn walk(value: &Value, depth: usize, strings: &mut usize) -> Option<String> {
        if depth > MAX_INPUT_DEPTH {
            return Some(format!(
                "the input is nested deeper than {MAX_INPUT_DEPTH} levels"
            ));
        }
        match value {
            Value::String(s) => {
                *strings += 1;
                if *strings > MAX_INPUT_STRINGS {
                    return Some(format!(
                        "the input holds more than {MAX_INPUT_STRINGS} strings"
                    ));
                }
                (s.len() > 65_536).then(|| "a string of the input is over 64 KiB".to_owned())
            }
            Value::Array(items) => items.iter().find_map(|v| walk(v, depth + 1, strings)),
            Value::Object(map) => map.iter().find_map(|(k, v)| {
                *strings += 1;
                if k.len() > 65_536 {
                    return Some("a key of the input is over 64 KiB".to_owned());
                }
                walk(v, depth + 1, strings)
            }),
            _ => None,
        }
    }
    let reason = walk(input, 0, &mut 0)?;
    Some(format!("{reason}, so not all of it can be checked"))
}

/// What cannot be read of a call's input, for every kind of rule that could
/// have judged it: asked where such a rule exists.
fn unchecked(reason: &str) -> Vec<Item> {
    [
        UncertainKind::Opaque,
        UncertainKind::Touch(Family::Read),
        UncertainKind::Touch(Family::Edit),
        UncertainKind::Host,
    ]
    .into_iter()
    .map(|kind| Item::Uncertain {
        kind,
        snippet: "…".to_owned(),
        reason: reason.to_owned(),
    })
    .collect()
}

/// How many strings of one MCP call's input are looked up on disk to see
/// whether they name a file (see [`input_paths`]).
const MAX_EXISTS: usize = 16;

/// Whether `s`, relative to `cwd`, names a file, directory or link that
/// exists (one `lstat`).
fn names_a_file(cwd: &Path, s: &str) -> bool {
    let p = Path::new(s);
    !p.is_absolute() && std::fs::symlink_metadata(cwd.join(p)).is_ok()
}

/// Whether an MCP tool's own name (lowercased) says it searches what files
/// hold: a word of it is `grep`, `rg`, `ack` or one of the `search` family
/// (`search_files`, `searchCode`, `full_text_search`), or it finds in files
/// (`find_in_files`, `findInFiles`).
fn searches_contents(own: &str) -> bool {
    let words: Vec<&str> = own
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let joined: String = words.concat();
    words.iter().any(|w| {
        matches!(
            *w,
            "rg" | "ack" | "ag" | "ripgrep" | "grep" | "egrep" | "fgrep"
        )
    }) || joined.contains("grep")
        || joined.contains("search")
        || joined.contains("findin")
}

/// What [`input_values`] collects: hosts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    /// Hosts: strings under [`URL_KEYS`], strings that are a URL under any
    /// key, and the URLs written in code or commands (see [`CODE_KEYS`]).
    Hosts,
    /// [`Wanted::Hosts`] inside the value of a key named for code.
    HostsInCode,
    /// [`Wanted::Hosts`] inside the value of a key named for a repository
    /// (see [`repository_host`]).
    Repo,
    /// [`Wanted::Hosts`] inside the value of a key named for a container
    /// image (see [`image_registry`]).
    Image,
}

/// Keys (normalised as [`PATH_KEYS`]) whose values are code or a command a
/// server runs: a URL written anywhere in them may be reached. A URL in
/// other text (an issue's `body`, a message) is only written.
const CODE_KEYS: &[&str] = &[
    "command",
    "commands",
    "cmd",
    "script",
    "scripts",
    "code",
    "args",
    "argv",
    "arguments",
    "shell",
    "exec",
    "run",
    "expression",
    "js",
    "javascript",
    "function",
    "query",
];

/// How a key names a host (see [`host_key`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum HostKey {
    /// Not at all.
    No,
    /// Among other things (`index`, `target`, `peer`): a number there is a
    /// position or a count, not an address.
    Named,
    /// As an address (`host`, `ip`, `server`, `address`): a number there
    /// (`2130706434`, `"0"`) is an IPv4 address.
    Address,
}

/// Words of a key that name a host's address, under which a number is one.
const ADDRESS_WORDS: &[&str] = &[
    "host",
    "hostname",
    "hostaddr",
    "ip",
    "ipaddr",
    "ipaddress",
    "addr",
    "address",
    "server",
];

/// How a key (normalised, `words` its [`key_words`]) names a host (see
/// [`is_url_key`]).
fn host_key(key: &str, words: &[String]) -> HostKey {
    if !is_url_key(key, words) {
        HostKey::No
    } else if ADDRESS_WORDS.contains(&key)
        || words.iter().any(|w| ADDRESS_WORDS.contains(&w.as_str()))
    {
        HostKey::Address
    } else {
        HostKey::Named
    }
}

/// The strings of `value` that `wanted` asks for (see [`mcp_touches`]);
/// `under_key` how the key `value` is under names a host.
fn input_values(
    value: &Value,
    wanted: Wanted,
    under_key: HostKey,
    depth: usize,
    out: &mut Vec<String>,
) {
    if depth > MAX_INPUT_DEPTH || out.len() >= MAX_INPUT_STRINGS {
        return;
    }
    let mut push = |found: &str| {
        // A URL parser drops tabs and line breaks (`http://127.0.0.\n2/`
        // reaches 127.0.0.2), so they are dropped here too.
        let found: String = found
            .chars()
            .filter(|c| !matches!(c, '\n' | '\r' | '\t'))
            .collect();
        if !found.is_empty()
            && found.len() <= 4096
            && !found.contains('\0')
            && !out.contains(&found)
        {
            out.push(found);
        }
    };
    if let Value::String(s) = value
        && let Some(inner) = json_in_string(s.trim())
    {
        return input_values(&inner, wanted, under_key, depth + 1, out);
    }
    match value {
        Value::String(s) => {
            let s = s.trim();
            match wanted {
                Wanted::Repo => push(repository_host(s).unwrap_or_default()),
                Wanted::Image => push(image_registry(s).unwrap_or_default()),
                // A number where a position or a count may be (`{"index":
                // "0"}`) is none.
                Wanted::Hosts | Wanted::HostsInCode
                    if under_key == HostKey::Address
                        || (under_key == HostKey::Named
                            && !s.bytes().all(|b| b.is_ascii_digit())) =>
                {
                    push(s);
                }
                // A string that is a URL, under any key (`{"origin":
                // "https://h"}`, `"jdbc:postgresql://h/db"`,
                // `"mongodb://h1,h2/db"`, `"--registry=https://h"`,
                // `"http:h"`, `"//h/x"`), a connection string under any key
                // (`Server=h;Database=d`, `host=h dbname=d`), and a URL in
                // code or a command (`curl https://h`, `fetch("https://h")`):
                // the server may reach it.
                Wanted::Hosts | Wanted::HostsInCode => {
                    let code = wanted == Wanted::HostsInCode;
                    // Outside code, only a string that is one word (no
                    // space), so a long text is not split to find none.
                    let word = !s.contains(char::is_whitespace);
                    if (word && (starts_with_scheme(s) || is_url_without_slashes(s)))
                        || (!code && !connection_string_hosts(s).is_empty())
                    {
                        push(s);
                    } else if code || (word && s.starts_with('-')) {
                        // In code, or in an option's word
                        // (`--registry=https://h`, `-ihttps://h`).
                        for url in urls_in(s) {
                            push(url);
                        }
                    }
                }
            }
        }
        // `{"host": 2130706434}`: a number in a host's place is an IPv4
        // address, as the string of its digits is.
        Value::Number(n)
            if under_key == HostKey::Address
                && matches!(wanted, Wanted::Hosts | Wanted::HostsInCode) =>
        {
            push(&n.to_string());
        }
        Value::Array(items) => {
            for item in items {
                input_values(item, wanted, under_key, depth + 1, out);
            }
        }
        Value::Object(map) => {
            // `{"repo": {"url": …}}`: what is under it is read as anywhere.
            let wanted = match wanted {
                Wanted::Repo | Wanted::Image => Wanted::Hosts,
                w => w,
            };
            for (key, v) in map {
                let words = key_words(key);
                let key = normalised_key(key);
                let named = host_key(&key, &words);
                let wanted = if is_repository_key(&key) {
                    Wanted::Repo
                } else if is_image_key(&words) {
                    Wanted::Image
                } else if wanted == Wanted::Hosts && is_code_key(&key, &words) {
                    Wanted::HostsInCode
                } else {
                    wanted
                };
                input_values(v, wanted, named.max(under_key), depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Whether a key (normalised, `words` its [`key_words`]) names code or a
/// command: listed in [`CODE_KEYS`], or ending in a word that is
/// (`extraArgs`, `build_command`, `init_script`).
fn is_code_key(key: &str, words: &[String]) -> bool {
    CODE_KEYS.contains(&key)
        || words
            .last()
            .is_some_and(|w| CODE_KEYS.contains(&w.as_str()))
}

/// Whether a key (its [`key_words`]) names a container image (`image`,
/// `base_image`, `imageRef`, `images`): its value's first part may be a
/// registry (see [`image_registry`]).
fn is_image_key(words: &[String]) -> bool {
    words.iter().any(|w| w == "image" || w == "images")
}

/// The registry an image reference names (`evil.com/app:1`,
/// `localhost:5000/app`, `10.0.0.1:5000/app`), as docker reads one: the
/// first part when it has a dot or a port or is `localhost`; a URL whole
/// (`oci://h/chart`). None for Docker Hub's names (`ubuntu:22.04`,
/// `library/ubuntu`).
fn image_registry(s: &str) -> Option<&str> {
    if s.contains("://") {
        return Some(s);
    }
    let (first, _) = s.split_once('/')?;
    (first.contains(['.', ':']) || first.eq_ignore_ascii_case("localhost")).then_some(first)
}

/// Whether `s` is a URL of a special scheme written without its `//`, as a
/// WHATWG parser (WebFetch's, Node's, the `url` crate's) still reads with
/// a host: `http:h/x`, `https:\\h`, `ws:/h`, or with no scheme at all,
/// `//h/x` (scheme-relative), when what follows reads as a host (a dot, a
/// port, `localhost`).
fn is_url_without_slashes(s: &str) -> bool {
    let rest = match s.split_once(':') {
        Some((scheme, rest))
            if ["http", "https", "ws", "wss", "ftp"]
                .iter()
                .any(|x| scheme.eq_ignore_ascii_case(x)) =>
        {
            rest
        }
        _ => match s.strip_prefix("//").or_else(|| s.strip_prefix("\\\\")) {
            Some(rest) => rest,
            None => return false,
        },
    };
    let host = rest
        .trim_start_matches(['/', '\\'])
        .split(['/', '\\', '?', '#'])
        .next()
        .unwrap_or_default();
    host.contains(['.', ':', '['])
        || host
            .rsplit('@')
            .next()
            .is_some_and(|h| h.eq_ignore_ascii_case("localhost"))
}

/// The hosts a string of an MCP tool's input names (see [`mcp_touches`]):
/// a URL's (`https://h/x`, `mongodb://h1,h2/db`,
/// `jdbc:postgresql://h/db`), each host of a list (`h1:9092,h2:9092`,
/// `h1 h2`), and a connection string's (see [`connection_string_hosts`]).
fn input_hosts(text: &str) -> Vec<String> {
    let text = text.trim();
    let mut hosts = if text.contains("://") {
        shell::url_or_host(text)
    } else {
        text.split([',', ';', ' ', '\t', '\n'])
            .filter(|part| !part.is_empty())
            .flat_map(shell::url_or_host)
            .collect()
    };
    for host in connection_string_hosts(text) {
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    hosts
}

/// Whether `s` starts with a URL's scheme: letters, digits, `+`, `-`, `.`
/// and the `:` of a prefixed scheme (`jdbc:postgresql`) before its `://`.
fn starts_with_scheme(s: &str) -> bool {
    s.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.' | ':'))
    })
}

/// Keys of a connection string's `Key=Value;` pairs (ADO.NET, ODBC, JDBC
/// properties; lowercased, without spaces, `_` and `-`) whose value is the
/// server's host: `Server`, `Data Source`, `Host`, `Address`, ….
const CONNECTION_HOST_KEYS: &[&str] = &[
    "server",
    "servers",
    "datasource",
    "host",
    "hosts",
    "hostname",
    "hostaddr",
    "address",
    "addr",
    "networkaddress",
    "serveraddress",
    "servername",
    "endpoint",
];

/// The hosts a connection string names: libpq's keyword/value pairs (`host=h
/// dbname=d`, read by the libpq reader of the shell analysis) and the
/// `Key=Value;` pairs of ADO.NET, ODBC and the like (`Server=tcp:h,1433;
/// Database=d`, `Data Source=h\\SQLEXPRESS`, `Host=h1,h2;Port=5432`).
/// Empty for other text (every `;`-separated part of one holds a `=`).
fn connection_string_hosts(text: &str) -> Vec<String> {
    let text = text.trim();
    if !text.contains('=') || text.len() > 4096 {
        return Vec::new();
    }
    let mut hosts = shell::conninfo_hosts(text).unwrap_or_default();
    let mut pairs = text.split(';').map(str::trim).filter(|p| !p.is_empty());
    if !pairs.clone().all(|p| p.contains('=')) {
        return hosts;
    }
    for (key, value) in pairs.by_ref().filter_map(|p| p.split_once('=')) {
        let key: String = key
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect();
        if !CONNECTION_HOST_KEYS.contains(&key.as_str()) {
            continue;
        }
        let value = value.trim().trim_matches(['"', '\'', '{', '}']);
        if value.contains("://") {
            hosts.extend(shell::url_or_host(value));
            continue;
        }
        // SQL Server's protocol prefix (`tcp:h`, `np:h`).
        let value = match value.split_once(':') {
            Some((proto, rest))
                if ["tcp", "np", "lpc", "admin"]
                    .iter()
                    .any(|p| proto.eq_ignore_ascii_case(p)) =>
            {
                rest
            }
            _ => value,
        };
        // `h,1433` (a port), `h1,h2`, `h\\INSTANCE`.
        for part in value.split([',', ' ']) {
            let part = part.split('\\').next().unwrap_or(part).trim();
            if part.is_empty() || part.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            for host in shell::url_or_host(part) {
                if !hosts.contains(&host) {
                    hosts.push(host);
                }
            }
        }
    }
    hosts
}

/// Whether a key (normalised as [`PATH_KEYS`]) names a repository (`repo`,
/// `repository`, `repos`, `sourcerepo`, `gitrepository`): its value is
/// `owner/name`, `host/owner/name`, `[user@]host:path` or a URL.
fn is_repository_key(key: &str) -> bool {
    ["repo", "repos", "repository", "repositories"]
        .iter()
        .any(|e| key.ends_with(e))
}

/// The part of a repository's name that names a host: a URL whole, the
/// first part of `host/owner/name` or `[user@]host:path` when it reads as
/// a host (a dot, a port, a user, `localhost`); None for `owner/name` or a
/// name alone, which a server resolves on its own forge.
fn repository_host(s: &str) -> Option<&str> {
    if s.contains("://") {
        return Some(s);
    }
    let head = s.split('/').next()?;
    (head.contains(['.', ':', '@']) || head.eq_ignore_ascii_case("localhost")).then_some(head)
}

/// What the shell commands in an MCP tool's input (see [`SHELL_KEYS`]) do,
/// as a Bash command would: the server runs them where tack runs, outside
/// the OS sandbox. The hosts they reach meet the domain rules; the files
/// they read meet the Read deny and ask rules (a directory read whole, as
/// `grep -r KEY .`, is looked inside); the files they write meet the Edit
/// rules, the protected paths and the critical removals; each simple
/// command meets the Bash deny and ask rules, as the form of the call
/// (`deny Bash(rm *)` holds for `{"command": "rm -rf x"}` given to a
/// server that runs commands). Nothing here needs an allow rule: the
/// tool's own rule allows the call, as `allow Bash` allows a command (so
/// what cannot be known inside it matters only where deny or ask rules
/// could be got around through it).
fn shell_commands_in(
    tool: &str,
    input: &Value,
    cwd: &Path,
    home: Option<&Path>,
    how: Resolution,
    policy: &Policy,
) -> Vec<Item> {
    let mut lines = Vec::new();
    command_values(input, None, 0, &mut lines);
    // What a tool that types into a process or a terminal sends is run by
    // the shell there (`interact_with_process`'s `input`, `send_keys`).
    if types_into_a_shell(tool)
        && let Some(map) = input.as_object()
    {
        for (k, v) in map {
            if matches!(
                normalised_key(k).as_str(),
                "input" | "keys" | "text" | "data" | "line" | "stdin" | "chars"
            ) && let Some(text) = v.as_str()
                && !text.trim().is_empty()
                && text.len() <= 65_536
                && lines.len() < MAX_INPUT_COMMANDS
            {
                lines.push((text.to_owned(), false));
            }
        }
    }
    if lines.is_empty() {
        return Vec::new();
    }
    let hosts = policy.has_domain_rules(Verdict::Deny) || policy.has_domain_rules(Verdict::Ask);
    let commands = policy.has_bash_rules(Verdict::Deny) || policy.has_bash_rules(Verdict::Ask);
    let files = policy.restricts_paths() || policy.guards_writes();
    if !hosts && !commands && !files && !lines.iter().any(|(l, _)| names_a_removal(l)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (line, maybe_shell) in lines {
        if maybe_shell && !shell::reads_as_shell(&line) {
            continue;
        }
        let written: std::sync::Arc<str> = format!("{tool}({})", shell::snippet(&line)).into();
        for item in shell::analyze(&line, cwd, home, how, policy.restricts_paths()) {
            let item = match item {
                Item::Command(mut c) => {
                    if !commands {
                        continue;
                    }
                    c.outer.push(written.clone());
                    c.checked_elsewhere = Some("the MCP tool's own rule allows the call");
                    c.equivalent = c
                        .equivalent
                        .or(Some("gives its server a shell command to run"));
                    Item::Command(c)
                }
                // A file the shell opens for input is a Touch too; where it
                // lies is the tool's rule's business, as `allow Bash`'s.
                Item::Input { .. } => continue,
                // Which command runs, or which file it writes, is unknown:
                // the tool is allowed, so only deny and ask rules it could
                // get around count (as for a script file a command runs).
                Item::Uncertain {
                    kind: UncertainKind::Command,
                    snippet,
                    reason,
                } => Item::Uncertain {
                    kind: UncertainKind::Opaque,
                    snippet,
                    reason,
                },
                Item::Uncertain {
                    kind: UncertainKind::Edit,
                    snippet,
                    reason,
                } => Item::Uncertain {
                    kind: UncertainKind::Touch(Family::Edit),
                    snippet,
                    reason,
                },
                item => item,
            };
            out.push(item);
        }
    }
    out
}

/// Whether an MCP tool's own name says it types into a running process,
/// a terminal or a shell session (`interact_with_process`, `send_keys`,
/// `terminal_write`, `write_to_pty`).
fn types_into_a_shell(tool: &str) -> bool {
    let own = tool
        .rsplit("__")
        .next()
        .unwrap_or(tool)
        .to_ascii_lowercase();
    [
        "process", "terminal", "shell", "session", "keys", "tmux", "pty", "console", "repl",
        "stdin",
    ]
    .iter()
    .any(|w| own.contains(w))
}

/// Keys (normalised as [`SHELL_KEYS`]) whose values may be code of another
/// language (a browser's JavaScript, Python): read as shell command lines
/// only when the shell parser takes them (see [`shell::reads_as_shell`]).
const MAYBE_SHELL_KEYS: &[&str] = &["script", "scripts"];

/// Keys (normalised as [`PATH_KEYS`]) whose values are shell command lines
/// a server runs, or the program it runs (`program`, `executable`, an argv
/// whole under `argv`); besides these, a key ending in a word for a
/// command (`build_command`, `testCmd`).
const SHELL_KEYS: &[&str] = &[
    "command",
    "commands",
    "cmd",
    "cmds",
    "cmdline",
    "shell",
    "shellcommand",
    "shellscript",
    "bash",
    "bashcommand",
    "sh",
    "zsh",
    "commandline",
    "commandtext",
    "commandstring",
    "cmdstring",
    "cmdtext",
    "shellcmd",
    "script",
    "scripts",
    "run",
    "exec",
    "execute",
    "program",
    "executable",
    "exe",
    "binary",
    "argv",
];

/// Keys (normalised) whose list holds one command line each (`commands:
/// ["ls", "cat x"]`), where a list under another shell key is one argv.
const LIST_SHELL_KEYS: &[&str] = &["commands", "cmds", "scripts"];

/// Keys (normalised) whose list is a command's arguments when beside a
/// program ([`SHELL_KEYS`]): `{"program": "cat", "arguments": ["x"]}`.
const ARGS_KEYS: &[&str] = &["args", "argv", "arguments", "parameters", "params"];

/// How a key says its value holds shell commands (see [`shell_key`]).
#[derive(Clone, Copy, PartialEq, Eq)]
struct ShellKey {
    /// The value may be code of another language ([`MAYBE_SHELL_KEYS`]).
    maybe: bool,
    /// A list there holds one command line each ([`LIST_SHELL_KEYS`]).
    list: bool,
}

/// Whether a key names shell commands (see [`SHELL_KEYS`]), and how.
fn shell_key(key: &str) -> Option<ShellKey> {
    let norm = normalised_key(key);
    let last = key_words(key).pop().unwrap_or_default();
    let named = SHELL_KEYS.contains(&norm.as_str())
        || matches!(
            last.as_str(),
            "command" | "commands" | "cmd" | "cmds" | "cmdline" | "commandline"
        );
    named.then(|| ShellKey {
        maybe: MAYBE_SHELL_KEYS.contains(&norm.as_str()),
        list: LIST_SHELL_KEYS.contains(&norm.as_str())
            || matches!(last.as_str(), "commands" | "cmds"),
    })
}

/// The strings under [`SHELL_KEYS`] in `value` (at most 8, each at most
/// 64 KiB: what is longer is read by the shell analysis's own bounds), each
/// with whether it is under one of [`MAYBE_SHELL_KEYS`] (`under`: how the
/// key `value` is under names commands, if it does). A list of strings is
/// one argv (`{"command": ["cat", "x"]}`, `{"argv": [...]}`), or one line
/// each under a key for several (`{"commands": ["ls", "cat x"]}`); a
/// program beside its arguments is one command (`{"program": "cat",
/// "arguments": ["x"]}`); objects are walked (`{"steps": [{"run": "…"}]}`).
fn command_values(
    value: &Value,
    under: Option<ShellKey>,
    depth: usize,
    out: &mut Vec<(String, bool)>,
) {
    if depth > MAX_INPUT_DEPTH || out.len() >= MAX_INPUT_COMMANDS {
        return;
    }
    if let Value::String(s) = value
        && let Some(inner) = json_in_string(s.trim())
    {
        return command_values(&inner, under, depth + 1, out);
    }
    match value {
        Value::String(s) if !s.trim().is_empty() && s.len() <= 65_536 => {
            if let Some(key) = under {
                out.push((s.clone(), key.maybe));
            }
        }
        Value::Array(items) => {
            // `{"command": ["curl", "evil.com"]}`: an argv.
            if let Some(key) = under
                && !key.list
                && items.iter().all(Value::is_string)
                && !items.is_empty()
            {
                let words: Vec<String> = items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(crate::shell::words::quote)
                    .collect();
                out.push((words.join(" "), key.maybe));
                return;
            }
            // `{"commands": ["ls", ["cat", "x"]]}`: each a command.
            let under = under.map(|key| ShellKey { list: false, ..key });
            for item in items {
                command_values(item, under, depth + 1, out);
            }
        }
        Value::Object(map) => {
            // `{"command": "curl", "args": ["evil.com"]}`: one command.
            let args = map.iter().find_map(|(k, v)| {
                ARGS_KEYS
                    .contains(&normalised_key(k).as_str())
                    .then(|| v.as_array())
                    .flatten()
                    .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<&str>>>())
                    .map(|a| (k, a))
            });
            // Under a shell key, `{"name": "rm", "args": […]}` is the
            // command whole.
            let program = map.iter().find_map(|(k, v)| {
                let key = shell_key(k).or_else(|| {
                    under.filter(|_| {
                        matches!(normalised_key(k).as_str(), "name" | "path" | "file" | "bin")
                    })
                })?;
                let program = v.as_str()?;
                Some((k, program, key))
            });
            let mut done: Vec<&String> = Vec::new();
            if let (Some((pk, program, key)), Some((ak, args))) = (program, &args)
                && pk != *ak
            {
                let mut line = program.to_string();
                for a in args {
                    line.push(' ');
                    line.push_str(&crate::shell::words::quote(a));
                }
                out.push((line, key.maybe));
                done.extend([pk, *ak]);
            }
            for (key, v) in map {
                if !done.contains(&key) {
                    command_values(v, shell_key(key), depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// The URLs written in `text`: each word (split at spaces, quotes,
/// brackets and commas) that starts with a scheme and `//`
/// (`https://h/x`, `wss://h`, `git+ssh://h/r`).
fn urls_in(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | '(' | ')' | '<' | '>' | '[' | ']' | '{' | '}' | ',' | ';'
            )
    })
    .filter_map(|word| {
        let at = word.find("://")?;
        let scheme_start = word[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let scheme = &word[scheme_start..at];
        (scheme.len() >= 2 && scheme.starts_with(|c: char| c.is_ascii_alphabetic()))
            .then(|| &word[scheme_start..])
            .filter(|url| url.len() <= 4096 && !scheme.eq_ignore_ascii_case("file"))
    })
}

fn paths_subject(
    written: &[&str],
    cwd: &Path,
    home: Option<&Path>,
    how: Resolution,
    search: bool,
) -> Subject {
    let mut targets = Vec::new();
    for w in written {
        let mut candidates = vec![PathBuf::from(w)];
        // A tool may or may not expand `~`: check both readings.
        if let (Some(rest), Some(h)) = (w.strip_prefix("~/").or((*w == "~").then_some("")), home) {
            candidates.push(h.join(rest));
        }
        for c in candidates {
            match paths::resolve(&c, cwd, how) {
                Ok(p) => targets.push(p),
                Err(reason) => return Subject::Invalid(reason),
            }
        }
    }
    Subject::Paths { targets, search }
}
