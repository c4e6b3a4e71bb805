//! The `Skill` tool: Claude Code's input `{skill, args?}`, `skill` an enum of
//! the catalog, the catalog in its description.
//!
//! Loading a skill returns its instructions, its folder as an absolute path
//! and the list of its bundled files (not their contents: the model reads
//! what it needs with Read, and runs scripts with Bash under the usual
//! rules), wrapped as the Agent Skills client guide shows:
//!
//! ```text
//! <skill_content name="pdf">
//! …instructions…
//! Skill directory: /abs/.claude/skills/pdf
//! <skill_resources>
//! <file>scripts/fill.py</file>
//! </skill_resources>
//! </skill_content>
//! ```
//!
//! A skill already loaded in this conversation is not sent again (a short
//! reminder is); each conversation (the session's, a sub-agent's, an MCP
//! client's) has a tool instance of its own ([`SkillTool::fresh`]). A
//! project skill is used only once the user trusts it ([`Trust`]).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};
use tack_protocol::SkillLoad;
use tack_tool::{
    OutputBehaviour, OutputCut, Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput,
};

use crate::catalog::{Catalog, estimate_tokens};
use crate::discover::{Scope, Skill, Source};
use crate::frontmatter;

/// The tool's name (Claude Code's).
pub const NAME: &str = "Skill";
/// Bundled files listed, at most.
pub const MAX_LISTED_FILES: usize = 512;
/// How deep a skill's folder is listed.
const LIST_DEPTH: usize = 6;

/// Whether a project skill may be used; asked before each load of one
/// (an implementation remembers its answers).
#[async_trait]
pub trait Trust: Send + Sync {
    /// `Ok`: use it. `Err`: why not, and how a person can allow it (for the
    /// model's error).
    async fn check(&self, skill: &Skill, digest: &str) -> Result<(), String>;
}

/// Trusts every skill (embedders and tests that vouch for their folders).
#[derive(Debug, Default, Clone, Copy)]
pub struct TrustAll;

#[async_trait]
impl Trust for TrustAll {
    async fn check(&self, _skill: &Skill, _digest: &str) -> Result<(), String> {
        Ok(())
    }
}

/// What is shared by every instance of the tool in a session.
struct Shared {
    /// The skills the model may load (those listed in the catalog).
    skills: Vec<Skill>,
    /// The catalog's listing (the description's end).
    catalog: String,
    description: String,
    schema: Value,
    trust: Arc<dyn Trust>,
    /// Send a reminder instead of a skill loaded before in this conversation.
    dedupe: bool,
    session_id: String,
}

/// The Skill tool of one conversation.
pub struct SkillTool {
    shared: Arc<Shared>,
    /// Skills loaded in this conversation: name → the call that loaded it.
    loaded: Mutex<HashMap<String, String>>,
    /// What each call loaded (for its audit record).
    audit: Mutex<HashMap<String, SkillLoad>>,
}

/// The sentence of the description about loading a skill twice.
const DEDUPE_SENTENCE: &str = "A skill loaded earlier in this conversation stays in effect; loading it again only returns a short reminder.";

const INTRO: &str = "Load a skill: instructions (and often scripts and reference files) for a kind of task, written by the user, the project or a server. When the task at hand matches a skill's description below, call Skill with its name before doing the task, and follow what it returns. The result holds the skill's instructions, its folder as an absolute path, and the list of its bundled files: read a file with Read when the instructions call for it, and run a script with Bash (every call still meets the permission rules: a skill grants nothing). Do not load a skill that does not fit the task; it costs context and can mislead. {DEDUPE} `args` is passed to the skill (for example a file name or a short request), when it takes any.\n\nAvailable skills, grouped by where they live (a `[where]` line, then `- name: description`; a skill on disk is in the folder `where/name`):\n";

/// The tool's description: what it does, the sentence on loading a skill
/// twice when that is how it behaves, then the catalog.
fn describe(catalog: &str, dedupe: bool) -> String {
    let sentence = if dedupe {
        format!(" {DEDUPE_SENTENCE}")
    } else {
        String::new()
    };
    format!("{}{catalog}", INTRO.replace(" {DEDUPE}", &sentence))
}

impl SkillTool {
    /// The tool over `skills` (each model-invocable, in catalog order) and
    /// its catalog.
    pub fn new(
        skills: Vec<Skill>,
        catalog: &Catalog,
        trust: Arc<dyn Trust>,
        session_id: &str,
    ) -> Self {
        let listed: Vec<Skill> = catalog
            .names
            .iter()
            .filter_map(|n| skills.iter().find(|s| &s.name == n).cloned())
            .collect();
        let schema = json!({
            "type": "object",
            "properties": {
                "skill": {
                    "type": "string",
                    "enum": catalog.names,
                    "description": "The skill's name, exactly as in the list, e.g. \"pdf\"",
                },
                "args": {
                    "type": "string",
                    "description": "Optional arguments for the skill, e.g. a file name or a short request",
                },
            },
            "required": ["skill"],
            "additionalProperties": false,
        });
        Self::with_shared(Arc::new(Shared {
            skills: listed,
            catalog: catalog.text.clone(),
            description: describe(&catalog.text, true),
            schema,
            trust,
            dedupe: true,
            session_id: session_id.to_owned(),
        }))
    }

    fn with_shared(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            loaded: Mutex::default(),
            audit: Mutex::default(),
        }
    }

    /// Sends a skill again each time it is loaded (for a server whose
    /// client's conversation tack cannot see: `tack mcp serve`).
    pub fn without_dedupe(self) -> Self {
        let s = &self.shared;
        Self::with_shared(Arc::new(Shared {
            skills: s.skills.clone(),
            catalog: s.catalog.clone(),
            description: describe(&s.catalog, false),
            schema: s.schema.clone(),
            trust: Arc::clone(&s.trust),
            dedupe: false,
            session_id: s.session_id.clone(),
        }))
    }

    /// The same tool for another conversation: nothing loaded yet.
    pub fn fresh(&self) -> Self {
        Self::with_shared(Arc::clone(&self.shared))
    }

    /// Marks skills as loaded in this conversation (a resumed session's
    /// earlier Skill calls: name → the call's id).
    pub fn mark_loaded(&self, loaded: impl IntoIterator<Item = (String, String)>) {
        let mut map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        map.extend(loaded);
    }

    /// The skills the model may load.
    pub fn skills(&self) -> &[Skill] {
        &self.shared.skills
    }

    fn find(&self, name: &str) -> Option<&Skill> {
        let name = name.trim().trim_start_matches('/');
        self.shared.skills.iter().find(|s| s.name == name)
    }

    async fn load(&self, skill: &Skill, args: Option<&str>) -> Result<String, ToolError> {
        let (text, dir, files) = match &skill.source {
            Source::Local { dir, file } => {
                let bytes = std::fs::read(file).map_err(|e| {
                    ToolError::Unavailable(format!(
                        "the skill's {} cannot be read now: {e}",
                        file.display()
                    ))
                })?;
                if skill.scope == Scope::Project {
                    let digest = crate::discover::digest(&bytes);
                    self.shared
                        .trust
                        .check(skill, &digest)
                        .await
                        .map_err(ToolError::Denied)?;
                }
                let text = String::from_utf8_lossy(&bytes).into_owned();
                (text, Some(dir.clone()), list_files(dir))
            }
            Source::Remote { fetch, .. } => {
                let fetched = fetch.fetch().await.map_err(ToolError::Unavailable)?;
                (fetched.skill_md, fetched.dir, fetched.files)
            }
        };
        let folder = skill.name.rsplit(':').next().unwrap_or(&skill.name);
        let parsed = frontmatter::parse(&text, folder).map_err(|p| {
            ToolError::Unavailable(format!(
                "the skill {} changed and cannot be read now ({}: {p})",
                skill.name,
                skill.location()
            ))
        })?;
        Ok(render(
            skill,
            &parsed.body,
            dir.as_deref(),
            &files,
            args,
            &self.shared.session_id,
        ))
    }
}

/// The files of a skill's folder, relative, sorted (not `SKILL.md`, not
/// hidden ones), at most [`MAX_LISTED_FILES`].
pub fn list_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let walk = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .hidden(true)
        .follow_links(false)
        .max_depth(Some(LIST_DEPTH))
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walk.flatten() {
        if files.len() > MAX_LISTED_FILES {
            break;
        }
        if !entry
            .file_type()
            .is_some_and(|t| t.is_file() || t.is_symlink())
        {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == "SKILL.md" || rel == "skill.md" {
            continue;
        }
        files.push(rel);
    }
    files.sort();
    files
}

/// What the model receives for a loaded skill.
fn render(
    skill: &Skill,
    body: &str,
    dir: Option<&Path>,
    files: &[String],
    args: Option<&str>,
    session_id: &str,
) -> String {
    let dir_text = dir.map(|d| d.display().to_string()).unwrap_or_default();
    let args = args.map(str::trim).filter(|a| !a.is_empty());
    let mut body = body
        .trim()
        .replace("${CLAUDE_SKILL_DIR}", &dir_text)
        .replace("${CLAUDE_SESSION_ID}", session_id);
    if body.contains("$ARGUMENTS") {
        body = body.replace("$ARGUMENTS", args.unwrap_or(""));
    } else if let Some(args) = args {
        let _ = write!(body, "\n\nARGUMENTS: {args}");
    }
    let mut out = format!("<skill_content name=\"{}\">\n{body}\n", skill.name);
    match dir {
        Some(dir) => {
            let _ = writeln!(out, "Skill directory: {}", dir.display());
        }
        None => {
            let _ = writeln!(out, "Skill location: {}", skill.location());
        }
    }
    if !files.is_empty() {
        out.push_str("<skill_resources>\n");
        for f in files.iter().take(MAX_LISTED_FILES) {
            let _ = writeln!(out, "<file>{f}</file>");
        }
        if files.len() > MAX_LISTED_FILES {
            let _ = writeln!(out, "(more files not listed)");
        }
        out.push_str("</skill_resources>\n");
    }
    if !skill.frontmatter.allowed_tools.is_empty() {
        let _ = writeln!(
            out,
            "The skill lists these tools as the ones it uses (allowed-tools): {}. This grants nothing: every call still meets the permission rules.",
            skill.frontmatter.allowed_tools.join(" ")
        );
    }
    out.push_str("</skill_content>");
    out
}

#[async_trait]
impl Tool for SkillTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        &self.shared.description
    }

    fn input_schema(&self) -> Value {
        self.shared.schema.clone()
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    fn output(&self) -> OutputBehaviour {
        OutputBehaviour::with_hint(
            "The rest of the instructions are in the skill's SKILL.md, in the skill directory named above; Read it with offset and limit.",
        )
        .cut(OutputCut::Head)
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let name = input.get("skill").and_then(Value::as_str).unwrap_or("");
        if self.find(name).is_none() {
            let mut names: Vec<&str> = self.shared.skills.iter().map(|s| s.name.as_str()).collect();
            names.sort_by_key(|n| strsim::levenshtein(n, name));
            let more = names.len().saturating_sub(20);
            names.truncate(20);
            return Err(ToolError::InvalidInput(format!(
                "there is no skill {name:?}; the closest skills are: {}{}",
                names.join(", "),
                if more > 0 {
                    format!(" (and {more} more in the Skill tool's list)")
                } else {
                    String::new()
                }
            )));
        }
        Ok(())
    }

    fn skill_load(&self, tool_use_id: &str) -> Option<SkillLoad> {
        self.audit
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(tool_use_id)
    }

    async fn call(&self, input: Value, ctx: ToolContext) -> Result<ToolOutput, ToolError> {
        let name = input.get("skill").and_then(Value::as_str).unwrap_or("");
        let args = input.get("args").and_then(Value::as_str);
        let skill = self
            .find(name)
            .ok_or_else(|| ToolError::InvalidInput(format!("there is no skill {name:?}")))?;
        let earlier = if self.shared.dedupe {
            self.loaded
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(&skill.name)
                .cloned()
        } else {
            None
        };
        let (text, repeat) = match earlier {
            Some(call) => {
                let mut text = format!(
                    "The skill {} is already loaded in this conversation (the result of Skill call {call}); its instructions still apply, follow them.",
                    skill.name
                );
                if let Source::Local { file, .. } = &skill.source {
                    let _ = write!(
                        text,
                        " If they are no longer in your context, Read {}.",
                        file.display()
                    );
                }
                if let Some(args) = args.map(str::trim).filter(|a| !a.is_empty()) {
                    let _ = write!(text, "\nARGUMENTS for this use: {args}");
                }
                (text, true)
            }
            None => {
                let text = self.load(skill, args).await?;
                self.loaded
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(skill.name.clone(), ctx.tool_use_id.clone());
                (text, false)
            }
        };
        let record = SkillLoad {
            name: skill.name.clone(),
            scope: skill.scope.as_str().to_owned(),
            location: skill.location(),
            tokens: estimate_tokens(&text) as u64,
            repeat,
            allowed_tools: skill.frontmatter.allowed_tools.clone(),
        };
        self.audit
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(ctx.tool_use_id.clone(), record);
        let structured = json!({
            "skill": skill.name,
            "scope": skill.scope.as_str(),
            "repeat": repeat,
        });
        Ok(ToolOutput::text(text)
            .with_structured(structured)
            .with_response(json!({"success": true, "commandName": skill.name})))
    }
}

/// Where a skill's folder is, when it is on disk.
pub fn skill_dir(skill: &Skill) -> Option<PathBuf> {
    match &skill.source {
        Source::Local { dir, .. } => Some(dir.clone()),
        Source::Remote { .. } => None,
    }
}
