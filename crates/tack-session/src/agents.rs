//! Agent definitions: what the Agent tool can delegate to.
//!
//! Claude Code's format: a Markdown file whose YAML frontmatter names the
//! agent and says when to use it, and whose body is its system prompt.
//!
//! ```markdown
//! ---
//! name: code-reviewer
//! description: Reviews a diff for bugs. Use after a change is made.
//! tools: Read, Grep, Glob        # or a YAML list; absent = all the parent's tools
//! model: inherit                 # optional; inherit = the session's model
//! ---
//! You are a careful reviewer. …
//! ```
//!
//! Also read: `disallowedTools` (the same forms as `tools`), `permissionMode`
//! (applied on top of the session's mode, only ever stricter: see
//! [`tack_agent::permission::Narrowing`]) and `hooks` (as settings write
//! them; PreToolUse, PostToolUse and PostToolUseFailure run for the
//! sub-agent's calls). `tools` and `disallowedTools` take a comma- or
//! space-separated text or a YAML list, and name tools as permission rules
//! do (`mcp__server`, `mcp__server__*`, `Bash(rm *)`: see
//! [`crate::subagent`]).
//!
//! Files are read from [`ProjectContext::agent_dirs`](crate::ProjectContext::agent_dirs):
//! the user's before the project's, so a repository cannot replace an agent
//! of yours (and with it the restrictions you wrote), as with skills; a name
//! defined twice is a notice naming both files. A file that cannot be read
//! or parsed is left out with a notice naming the file and the line; it
//! never stops the session. The built-in `general-purpose` agent (every
//! tool, the session's system prompt) is there unless a file defines that
//! name.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Claude Code's model aliases, which name no model id by themselves.
const MODEL_ALIASES: &[&str] = &["sonnet", "opus", "haiku", "fable"];

/// The agent used when a call names none.
pub const GENERAL_PURPOSE: &str = "general-purpose";

/// One agent a sub-agent can be started as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// What `subagent_type` names.
    pub name: String,
    /// When to use it (shown to the model in the Agent tool's description).
    pub description: String,
    /// The tools it gets, from the parent's; `None`: all of them.
    pub tools: Option<Vec<String>>,
    /// Tools it never gets (`disallowedTools`).
    pub disallowed_tools: Vec<String>,
    /// The model; `None` (or `inherit` in the file): the session's.
    pub model: Option<String>,
    /// The body: its system prompt, added after tack's own text. Empty for
    /// the built-in agent, which gets the session's prompt as it is.
    pub prompt: String,
    /// The file it came from; `None` for the built-in agent.
    pub file: Option<PathBuf>,
    /// The line of each `tools` entry, then of each `disallowedTools`
    /// entry, in the file (for warnings).
    pub tool_lines: (Vec<usize>, Vec<usize>),
    /// `permissionMode`: applied on top of the session's mode.
    pub permission_mode: Option<tack_policy::Mode>,
    /// `hooks`, as settings write them, and the line of the key.
    pub hooks: Option<(serde_json::Value, usize)>,
    /// Read from the project's directories (the repository wrote it), not
    /// the user's.
    pub from_project: bool,
}

/// A directory of agent definitions and whose it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDir {
    pub path: PathBuf,
    /// The project's (the repository's), not the user's.
    pub project: bool,
}

impl AgentDefinition {
    /// The built-in general-purpose agent.
    pub fn general_purpose() -> Self {
        Self {
            name: GENERAL_PURPOSE.into(),
            description: "General-purpose agent for researching complex questions, searching for code and carrying out multi-step tasks on its own. Use it when a search may take several tries, or to keep a long investigation out of your own context.".into(),
            tools: None,
            disallowed_tools: Vec::new(),
            model: None,
            prompt: String::new(),
            file: None,
            tool_lines: (Vec::new(), Vec::new()),
            permission_mode: None,
            hooks: None,
            from_project: false,
        }
    }
}

/// The agents of a session, and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct AgentDefinitions {
    agents: Vec<AgentDefinition>,
    notices: Vec<String>,
}

impl AgentDefinitions {
    /// Reads every `*.md` of `dirs` (strongest first; a missing directory
    /// is skipped), then adds the built-in agent unless a file named it.
    pub fn load(dirs: &[AgentDir]) -> Self {
        let mut out = Self::default();
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir.path) else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
                .collect();
            files.sort();
            for file in files {
                match read_definition(&file) {
                    Ok(agent) if out.get(&agent.name).is_some() => {
                        let kept = out
                            .get(&agent.name)
                            .and_then(|a| a.file.as_ref())
                            .map_or_else(String::new, |f| f.display().to_string());
                        out.notices.push(if dir.project {
                            format!(
                                "{}: the project's agent {:?} is not used: your agent of that name ({kept}) is, so a repository cannot replace it (rename one of them to use both)",
                                file.display(),
                                agent.name
                            )
                        } else {
                            format!(
                                "{}: the agent {:?} is not used: {kept} defines that name first",
                                file.display(),
                                agent.name
                            )
                        });
                    }
                    Ok(mut agent) => {
                        agent.from_project = dir.project;
                        if let Some(alias) =
                            agent.model.take_if(|m| MODEL_ALIASES.contains(&m.as_str()))
                        {
                            out.notices.push(format!(
                                "{}: the agent {:?} asks for `model: {alias}`, Claude Code's alias; tack does not map aliases to model ids, so it uses the session's model (write a model id to choose one)",
                                file.display(),
                                agent.name
                            ));
                        }
                        out.agents.push(agent);
                    }
                    Err(notice) => out.notices.push(notice),
                }
            }
        }
        if out.get(GENERAL_PURPOSE).is_none() {
            out.agents.insert(0, AgentDefinition::general_purpose());
        }
        out
    }

    /// The agent named `name`.
    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// Every agent, the built-in first, then in the order read.
    pub fn all(&self) -> &[AgentDefinition] {
        &self.agents
    }

    /// Files left out, one line each: `file:line: what is wrong`.
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// The names, closest to `wanted` first (for an unknown name).
    pub fn names_near(&self, wanted: &str) -> Vec<String> {
        let mut names: Vec<(usize, &str)> = self
            .agents
            .iter()
            .map(|a| {
                (
                    strsim::osa_distance(&wanted.to_lowercase(), &a.name.to_lowercase()),
                    a.name.as_str(),
                )
            })
            .collect();
        names.sort();
        names.into_iter().map(|(_, n)| n.to_owned()).collect()
    }
}

/// The frontmatter keys tack reads (others, such as `color`, are ignored).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Frontmatter {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    tools: Option<ToolList>,
    #[serde(default)]
    disallowed_tools: Option<ToolList>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    permission_mode: Option<String>,
    #[serde(default)]
    hooks: Option<serde_json::Value>,
}

/// The hook events tack runs for a sub-agent's own calls.
pub const AGENT_HOOK_EVENTS: &[&str] = &["PreToolUse", "PostToolUse", "PostToolUseFailure"];

/// `tools: Read, Grep`, `tools: Read Grep` or `tools: [Read, Grep]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum ToolList {
    Text(String),
    List(Vec<String>),
}

impl ToolList {
    fn names(self) -> Vec<String> {
        let items = match self {
            ToolList::Text(text) => vec![text],
            ToolList::List(list) => list,
        };
        items.iter().flat_map(|item| split_entries(item)).collect()
    }
}

/// Entries separated by commas or white space, outside parentheses:
/// `Read, Bash(rm *) Write` is `Read`, `Bash(rm *)`, `Write`.
fn split_entries(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !current.trim().is_empty() {
                out.push(current.trim().to_owned());
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

/// The file line of `entry` in the list under `key` (the first line from
/// the key's on that has it), or the key's line; `None` without the key.
/// `yaml` starts on line 2 of the file.
fn entry_line(yaml: &str, key: &str, entry: &str) -> Option<usize> {
    let lines: Vec<&str> = yaml.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("{key}:")))?;
    let found = lines
        .iter()
        .enumerate()
        .skip(start)
        .find(|(_, l)| l.contains(entry))
        .map_or(start, |(i, _)| i);
    Some(found + 2)
}

/// One file, or a notice `file:line: what is wrong`.
fn read_definition(file: &Path) -> Result<AgentDefinition, String> {
    let shown = file.display();
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("{shown}: the agent definition cannot be read: {e}"))?;
    parse_definition(&text, file)
}

/// Parses a definition's text; `file` names it in notices.
pub fn parse_definition(text: &str, file: &Path) -> Result<AgentDefinition, String> {
    let shown = file.display();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(format!(
            "{shown}:1: an agent definition starts with a YAML frontmatter between two `---` lines (name, description, tools, model); this file has none, so it was left out"
        ));
    }
    let mut yaml = String::new();
    let mut body = None;
    let mut consumed = 1;
    for line in lines.by_ref() {
        consumed += 1;
        if line.trim_end() == "---" {
            body = Some(lines.collect::<String>());
            break;
        }
        yaml.push_str(line);
    }
    let Some(body) = body else {
        return Err(format!(
            "{shown}:1: the frontmatter opened on line 1 is never closed by a `---` line, so the file was left out"
        ));
    };
    let front: Frontmatter = serde_saphyr::from_str(&yaml).map_err(|e| {
        // Line 1 of the YAML is line 2 of the file.
        let line = e.location().map_or(2, |l| l.line() + 1);
        let message = e.without_snippet().to_string();
        let message = message.lines().next().unwrap_or("invalid YAML");
        format!("{shown}:{line}: the frontmatter is not valid YAML ({message}), so the agent was left out")
    })?;
    let required = |value: Option<String>, key: &str| {
        value
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .ok_or_else(|| {
                format!(
                    "{shown}:2: the frontmatter (lines 2-{consumed}) has no `{key}`, which every agent definition needs; the agent was left out"
                )
            })
    };
    let name = required(front.name, "name")?;
    let description = required(front.description, "description")?;
    if name.chars().any(char::is_whitespace) {
        return Err(format!(
            "{shown}:2: the agent name {name:?} has white space; use letters, digits and hyphens (e.g. code-reviewer)"
        ));
    }
    let model = front
        .model
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty() && m != "inherit");
    let key_line = |key: &str| entry_line(&yaml, key, "").unwrap_or(2);
    // A restriction that cannot be read leaves the agent out: running it
    // without the restriction is what the file's author ruled out.
    let permission_mode = front
        .permission_mode
        .map(|m| {
            m.trim().parse::<tack_policy::Mode>().map_err(|e| {
                format!(
                    "{shown}:{}: permissionMode: {e}; the agent was left out",
                    key_line("permissionMode")
                )
            })
        })
        .transpose()?;
    let hooks = match front.hooks {
        None | Some(serde_json::Value::Null) => None,
        Some(value) => {
            let line = key_line("hooks");
            check_hooks(&value).map_err(|problem| {
                format!("{shown}:{line}: hooks: {problem}; the agent was left out")
            })?;
            Some((value, line))
        }
    };
    let tools = front.tools.map(ToolList::names);
    let disallowed_tools = front
        .disallowed_tools
        .map(ToolList::names)
        .unwrap_or_default();
    let lines = |key: &str, entries: &[String]| -> Vec<usize> {
        entries
            .iter()
            .map(|e| entry_line(&yaml, key, e).unwrap_or(2))
            .collect()
    };
    let tool_lines = (
        lines("tools", tools.as_deref().unwrap_or_default()),
        lines("disallowedTools", &disallowed_tools),
    );
    Ok(AgentDefinition {
        name,
        description,
        tools,
        disallowed_tools,
        model,
        prompt: body.trim().to_owned(),
        file: Some(file.to_owned()),
        tool_lines,
        permission_mode,
        hooks,
        from_project: false,
    })
}

/// An agent's `hooks`: settings' shape, and only events tack runs for a
/// sub-agent (a hook written to guard it and not run would be a
/// restriction dropped without a word).
fn check_hooks(value: &serde_json::Value) -> Result<(), String> {
    let Some(events) = value.as_object() else {
        return Err("expected a map of event names, e.g. `PreToolUse: [...]`".into());
    };
    for event in events.keys() {
        if !AGENT_HOOK_EVENTS.contains(&event.as_str()) {
            return Err(format!(
                "tack does not run `{event}` hooks for a sub-agent (only {}), so this agent cannot run as written",
                AGENT_HOOK_EVENTS.join(", ")
            ));
        }
    }
    let mut source = serde_json::Map::new();
    source.insert("hooks".into(), value.clone());
    tack_hooks::Hooks::from_settings(&[(
        "the agent file".into(),
        &serde_json::Value::Object(source),
    )])
    .map(|_| ())
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AgentDefinition, String> {
        parse_definition(text, Path::new("/p/.claude/agents/x.md"))
    }

    #[test]
    fn a_definition_reads_its_frontmatter_and_body() {
        let agent = parse(
            "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\nmodel: inherit\ncolor: blue\n---\nYou review.\n",
        )
        .unwrap();
        assert_eq!(agent.name, "reviewer");
        assert_eq!(agent.tools, Some(vec!["Read".into(), "Grep".into()]));
        assert_eq!(agent.model, None);
        assert_eq!(agent.prompt, "You review.");
        let listed =
            parse("---\nname: r\ndescription: d\ntools:\n  - Read\n  - mcp__s__t\n---\n").unwrap();
        assert_eq!(listed.tools, Some(vec!["Read".into(), "mcp__s__t".into()]));
        let all = parse("---\nname: r\ndescription: d\nmodel: haiku\n---\n").unwrap();
        assert_eq!(all.tools, None);
        assert_eq!(all.model.as_deref(), Some("haiku"));
    }

    #[test]
    fn a_bad_frontmatter_is_a_notice_with_file_and_line() {
        let err = parse("---\nname: r\ndescription: d\ntools: [Read\n---\nbody\n").unwrap_err();
        assert!(err.starts_with("/p/.claude/agents/x.md:"), "{err}");
        assert!(err.contains("not valid YAML"), "{err}");
        let line: u64 = err.split(':').nth(1).unwrap().parse().unwrap();
        assert!((4..=5).contains(&line), "{err}");

        let err = parse("---\nname: r\n---\nbody\n").unwrap_err();
        assert!(
            err.contains("x.md:2:") && err.contains("`description`"),
            "{err}"
        );
        let err = parse("just text\n").unwrap_err();
        assert!(
            err.contains("x.md:1:") && err.contains("frontmatter"),
            "{err}"
        );
        let err = parse("---\nname: r\n").unwrap_err();
        assert!(err.contains("never closed"), "{err}");
    }

    #[test]
    fn a_model_alias_is_the_sessions_model_with_a_notice() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.md"),
            "---\nname: quick\ndescription: d\nmodel: haiku\n---\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("b.md"),
            "---\nname: pinned\ndescription: d\nmodel: claude-x-1\n---\n",
        )
        .unwrap();
        let agents = AgentDefinitions::load(&[user_dir(dir.path())]);
        assert_eq!(agents.get("quick").unwrap().model, None);
        assert_eq!(
            agents.get("pinned").unwrap().model.as_deref(),
            Some("claude-x-1")
        );
        assert_eq!(agents.notices().len(), 1);
        assert!(
            agents.notices()[0].contains("`model: haiku`"),
            "{:?}",
            agents.notices()
        );
    }

    fn user_dir(path: &Path) -> AgentDir {
        AgentDir {
            path: path.to_owned(),
            project: false,
        }
    }

    #[test]
    fn a_user_agent_hides_a_project_agent_of_the_same_name_with_a_notice() {
        let project = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        for (dir, text) in [(&project, "from the project"), (&user, "from the user")] {
            std::fs::write(
                dir.path().join("r.md"),
                format!("---\nname: reviewer\ndescription: d\n---\n{text}\n"),
            )
            .unwrap();
        }
        let agents = AgentDefinitions::load(&[
            user_dir(user.path()),
            AgentDir {
                path: project.path().to_owned(),
                project: true,
            },
        ]);
        assert_eq!(agents.get("reviewer").unwrap().prompt, "from the user");
        assert!(!agents.get("reviewer").unwrap().from_project);
        assert_eq!(agents.all().len(), 2, "reviewer and general-purpose");
        let notice = agents.notices().join("\n");
        assert!(
            notice.contains(&project.path().join("r.md").display().to_string())
                && notice.contains(&user.path().join("r.md").display().to_string()),
            "{notice}"
        );
    }

    #[test]
    fn tool_lists_split_on_commas_and_spaces_outside_parentheses() {
        let agent = parse(
            "---\nname: r\ndescription: d\ntools: Read, mcp__a__*\ndisallowedTools: Write Edit, Bash(rm *)\n---\n",
        )
        .unwrap();
        assert_eq!(agent.tools, Some(vec!["Read".into(), "mcp__a__*".into()]));
        assert_eq!(
            agent.disallowed_tools,
            vec!["Write".to_owned(), "Edit".into(), "Bash(rm *)".into()]
        );
        assert_eq!(agent.tool_lines, (vec![4, 4], vec![5, 5, 5]));
        let listed = parse(
            "---\nname: r\ndescription: d\ndisallowedTools:\n  - Write\n  - Bash(rm -rf *)\n---\n",
        )
        .unwrap();
        assert_eq!(
            listed.disallowed_tools,
            vec!["Write".to_owned(), "Bash(rm -rf *)".into()]
        );
        assert_eq!(listed.tool_lines.1, vec![5, 6]);
    }

    #[test]
    fn permission_mode_and_hooks_are_read_and_a_bad_one_leaves_the_agent_out() {
        let agent = parse(
            "---\nname: r\ndescription: d\npermissionMode: plan\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: exit 2}]\n---\n",
        )
        .unwrap();
        assert_eq!(agent.permission_mode, Some(tack_policy::Mode::Plan));
        assert_eq!(agent.hooks.as_ref().unwrap().1, 5);
        let err =
            parse("---\nname: r\ndescription: d\npermissionMode: planned\n---\n").unwrap_err();
        assert!(err.contains("x.md:4:") && err.contains("left out"), "{err}");
        let err = parse(
            "---\nname: r\ndescription: d\nhooks:\n  SessionStart: [{hooks: [{type: command, command: x}]}]\n---\n",
        )
        .unwrap_err();
        assert!(
            err.contains("x.md:4:") && err.contains("SessionStart"),
            "{err}"
        );
    }

    #[test]
    fn names_near_puts_the_closest_first() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.md"),
            "---\nname: code-reviewer\ndescription: d\n---\n",
        )
        .unwrap();
        let agents = AgentDefinitions::load(&[user_dir(dir.path())]);
        assert_eq!(agents.names_near("code-reveiwer")[0], "code-reviewer");
        assert_eq!(agents.names_near("general")[0], GENERAL_PURPOSE);
    }
}
