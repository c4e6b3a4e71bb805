//! The session's skills, served: the `io.modelcontextprotocol/skills`
//! extension (SEP-2640) and, for clients without it, MCP prompts.
//!
//! What is served: the skills of the session's catalog (those its own model
//! may load: not `disable-model-invocation`, not refused by a deny rule)
//! that are on disk.
//!
//! - **Skills**: `skills/list` and `skills/get` give each of them as
//!   `skill://<name>/SKILL.md` with its frontmatter (as written) and its
//!   manifest: every file of the skill's folder (as the Skill tool lists
//!   them: no hidden files, six levels deep) with its size and sha256
//!   digest, computed when asked. `resources/list` and `resources/read`
//!   serve those files (`skill://<name>/<relative path>`). A file is served
//!   only when it is in the manifest, its real path (links resolved) is
//!   inside the skill's folder (itself links resolved), and the session's
//!   rules would let the model Read it ([`ServedSkills::with_read_check`]:
//!   a deny or ask rule refuses it, and it is left out of the manifest);
//!   nothing else is reachable. A project skill is served only once the
//!   user trusts it, as the Skill tool would load it (the [`Trust`] given
//!   to [`ServedSkills::new`]); until then it is not listed and reading it
//!   is refused with the reason. Skills brought
//!   by an MCP server (tack's own client) are not served again, and a skill
//!   over [`MAX_SKILL_FILES`] files or [`MAX_SKILL_BYTES`] bytes, or whose
//!   name the extension does not allow, is left out (with a log line).
//! - **Prompts**: `prompts/list` gives one prompt per skill served that a
//!   person may invoke (not `user-invocable: false`), with one
//!   optional argument `args`; `prompts/get` returns, as one user message,
//!   exactly what the Skill tool returns for it (its instructions with
//!   `$ARGUMENTS` filled, its folder and files), trust of project skills
//!   included: the tool given to [`ServedSkills::new`] renders it.
//!
//! The capabilities (`resources`, `prompts`, the extension) are declared
//! only when there is a skill to serve, so a server without skills is the
//! same as before.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{
    CacheScope, ErrorData, GetPromptRequestParams, GetPromptResult, GetSkillResult,
    ListPromptsResult, ListResourcesResult, ListSkillsResult, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Resource, ResourceContents, Role, SKILL_MD,
    SkillFrontmatter, SkillResource, SkillResources,
};
use serde_json::{Value, json};
use tack_protocol::ContentBlock;
use tack_skills::{Scope, SkillSet, Source, Trust};
use tack_tool::{Tool, ToolContext, ToolError};
use tokio_util::sync::CancellationToken;

use super::LIST_TTL_MS;
use crate::client::{MAX_SKILL_BYTES, MAX_SKILL_FILES, skill_file_path};

/// Whether the session would let the model Read a file: `Err` says why not
/// (a deny or ask rule names it).
pub type ReadCheck = Arc<dyn Fn(&Path) -> Result<(), String> + Send + Sync>;

/// What a server offers of a session's skills: the set (what was found, the
/// catalog) and the Skill tool that renders one for `prompts/get`.
#[derive(Clone)]
pub struct ServedSkills {
    set: Arc<SkillSet>,
    tool: Option<Arc<dyn Tool>>,
    trust: Arc<dyn Trust>,
    read_check: Option<ReadCheck>,
    session_id: String,
}

impl ServedSkills {
    /// `tool`: an instance of the session's Skill tool (a conversation's
    /// own; `None` when the model has no skill to load, and then there are
    /// no prompts). `trust`: the user's trust in project skills, as the
    /// Skill tool checks it; a project skill it refuses is not served.
    pub fn new(
        set: Arc<SkillSet>,
        tool: Option<Arc<dyn Tool>>,
        trust: Arc<dyn Trust>,
        session_id: &str,
    ) -> Self {
        Self {
            set,
            tool,
            trust,
            read_check: None,
            session_id: session_id.to_owned(),
        }
    }

    /// Serves only the files `check` lets the model Read (the session's
    /// deny and ask rules); the others are left out of the manifest and
    /// reading one is refused with `check`'s reason.
    pub fn with_read_check(mut self, check: ReadCheck) -> Self {
        self.read_check = Some(check);
        self
    }

    /// `Ok` when `skill` may be served: a user's skill, or a project skill
    /// the user trusts (its `SKILL.md` as trusted).
    async fn trusted(&self, skill: &tack_skills::Skill) -> Result<(), String> {
        if skill.scope != Scope::Project {
            return Ok(());
        }
        let Source::Local { file, .. } = &skill.source else {
            return Err("it comes from an MCP server".into());
        };
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let digest = tack_skills::discover::digest(&bytes);
        self.trust.check(skill, &digest).await
    }

    /// The skills served: those of the catalog (what the session's own
    /// model may load: not `disable-model-invocation`, not refused by a
    /// deny rule) that are on disk.
    fn offered(&self) -> impl Iterator<Item = &tack_skills::Skill> {
        self.set
            .catalog
            .names
            .iter()
            .filter_map(|name| self.set.get(name))
            .filter(|s| matches!(s.source, Source::Local { .. }))
    }

    /// Whether there is anything to serve (the capabilities are declared
    /// only then).
    pub(super) fn has_skills(&self) -> bool {
        self.offered().next().is_some()
    }

    pub(super) fn has_prompts(&self) -> bool {
        self.tool.is_some() && !self.prompt_skills().is_empty()
    }

    /// The skills that could be served with the extension, each with its
    /// files (not read), trusted or not.
    fn all_served(&self) -> Vec<Served<'_>> {
        self.offered()
            .filter_map(|skill| match Served::of(skill, self.read_check.as_ref()) {
                Ok(served) => Some(served),
                Err(why) => {
                    tracing::info!(skill = %skill.name, "skill not served over MCP: {why}");
                    None
                }
            })
            .collect()
    }

    /// The skills served with the extension: those of [`Self::all_served`]
    /// the user trusts.
    async fn served(&self) -> Vec<Served<'_>> {
        let mut served = Vec::new();
        for skill in self.all_served() {
            match self.trusted(skill.skill).await {
                Ok(()) => served.push(skill),
                Err(why) => {
                    tracing::info!(skill = %skill.skill.name, "skill not served over MCP: {why}");
                }
            }
        }
        served
    }

    /// Every served skill's entry (files read and hashed now).
    pub(super) async fn list_skills(&self) -> ListSkillsResult {
        let mut skills = Vec::new();
        for served in self.served().await {
            match served.entry() {
                Ok(entry) => skills.push(entry),
                Err(why) => {
                    tracing::info!(skill = %served.skill.name, "skill not served over MCP: {why}");
                }
            }
        }
        ListSkillsResult::with_all_items(skills)
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private)
    }

    pub(super) async fn get_skill(&self, uri: &str) -> Result<GetSkillResult, ErrorData> {
        let served = self.all_served();
        let skill = served.iter().find(|s| s.uri == uri).ok_or_else(|| {
            ErrorData::invalid_params(format!("no skill is served at {uri}"), None)
        })?;
        self.trusted(skill.skill)
            .await
            .map_err(|why| untrusted(uri, &why))?;
        let entry = skill.entry().map_err(|why| {
            ErrorData::internal_error(
                format!("the skill at {uri} cannot be read now: {why}"),
                None,
            )
        })?;
        Ok(GetSkillResult::new(entry)
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private))
    }

    pub(super) async fn list_resources(&self) -> ListResourcesResult {
        let mut resources = Vec::new();
        for served in self.served().await {
            for file in served.files.iter().filter(|f| f.readable.is_ok()) {
                resources.push(
                    Resource::new(
                        file.uri.clone(),
                        format!("{}/{}", served.skill.name, file.rel),
                    )
                    .with_size(file.size),
                );
                if let Some(mime) = mime_type(&file.rel)
                    && let Some(last) = resources.last_mut()
                {
                    last.mime_type = Some(mime.to_owned());
                }
            }
        }
        ListResourcesResult::with_all_items(resources)
    }

    /// The bytes of a skill file, as text when they are UTF-8 without NUL,
    /// else as a base64 blob.
    pub(super) async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let not_found = || ErrorData::resource_not_found(format!("no skill file {uri}"), None);
        let served = self.all_served();
        let (skill, file) = served
            .iter()
            .flat_map(|s| s.files.iter().map(move |f| (s.skill, f)))
            .find(|(_, f)| f.uri == uri)
            .ok_or_else(not_found)?;
        self.trusted(skill)
            .await
            .map_err(|why| untrusted(uri, &why))?;
        if let Err(why) = &file.readable {
            return Err(ErrorData::invalid_request(
                format!("{uri} is not served: {why}"),
                None,
            ));
        }
        let bytes = std::fs::read(&file.path).map_err(|e| {
            ErrorData::internal_error(format!("{uri} cannot be read now: {e}"), None)
        })?;
        let text = std::str::from_utf8(&bytes)
            .ok()
            .filter(|t| !t.contains('\0'));
        let known = mime_type(&file.rel);
        let contents = match text {
            Some(text) => {
                ResourceContents::text(text, uri).with_mime_type(known.unwrap_or("text/plain"))
            }
            None => ResourceContents::blob(
                base64::engine::general_purpose::STANDARD.encode(&bytes),
                uri,
            )
            .with_mime_type(known.unwrap_or("application/octet-stream")),
        };
        Ok(ReadResourceResult::new(vec![contents]))
    }

    /// The skills that are prompts: those served that a person may invoke.
    fn prompt_skills(&self) -> Vec<&tack_skills::Skill> {
        self.offered()
            .filter(|s| s.frontmatter.user_invocable)
            .collect()
    }

    pub(super) fn list_prompts(&self) -> ListPromptsResult {
        if self.tool.is_none() {
            return ListPromptsResult::with_all_items(Vec::new());
        }
        let prompts = self
            .prompt_skills()
            .into_iter()
            .map(|skill| {
                let hint = skill
                    .frontmatter
                    .argument_hint
                    .as_deref()
                    .map(|h| format!(" ({h})"))
                    .unwrap_or_default();
                Prompt::new(
                    skill.name.clone(),
                    Some(skill.description.clone()),
                    Some(vec![
                        PromptArgument::new("args")
                            .with_description(format!(
                                "Optional arguments for the skill, e.g. a file name or a short request{hint}"
                            ))
                            .with_required(false),
                    ]),
                )
            })
            .collect();
        ListPromptsResult::with_all_items(prompts)
    }

    /// The skill's instructions as the Skill tool gives them, as a user message.
    pub(super) async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        cancel: CancellationToken,
    ) -> Result<GetPromptResult, ErrorData> {
        let name = request.name;
        let skill = self
            .prompt_skills()
            .into_iter()
            .find(|s| s.name == name)
            .cloned();
        let (Some(skill), Some(tool)) = (skill, &self.tool) else {
            let names: Vec<String> = self
                .prompt_skills()
                .iter()
                .map(|s| s.name.clone())
                .collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "there is no prompt {name:?}; the prompts are: {}",
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
                None,
            ));
        };
        let args = match request.arguments.as_ref().and_then(|a| a.get("args")) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        let mut input = json!({ "skill": skill.name });
        if let Some(args) = args {
            input["args"] = Value::String(args);
        }
        let id = format!(
            "prompt_{}",
            super::CALL_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let cwd = tack_skills::tool::skill_dir(&skill).unwrap_or_default();
        let ctx = ToolContext::new(cwd, self.session_id.clone(), id.clone(), cancel);
        let outcome = tool.call(input, ctx).await;
        // The load's audit record has no transcript to go to here.
        let _ = tool.skill_load(&id);
        let output = outcome.map_err(|e| match e {
            ToolError::InvalidInput(text) => ErrorData::invalid_params(text, None),
            other => ErrorData::internal_error(other.to_string(), None),
        })?;
        let text: Vec<&str> = output
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text.join("\n"))])
                .with_description(skill.description.clone()),
        )
    }
}

/// The error for a skill the user does not trust.
fn untrusted(uri: &str, why: &str) -> ErrorData {
    ErrorData::invalid_request(format!("{uri} is not served: {why}"), None)
}

impl std::fmt::Debug for ServedSkills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServedSkills")
            .field("skills", &self.set.discovery.skills.len())
            .field("prompts", &self.tool.is_some())
            .finish()
    }
}

/// Two are equal when they serve the same set.
impl PartialEq for ServedSkills {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.set, &other.set) && self.session_id == other.session_id
    }
}

impl Eq for ServedSkills {}

/// A skill served with the extension: its `SKILL.md` URI and its files.
struct Served<'a> {
    skill: &'a tack_skills::Skill,
    uri: String,
    files: Vec<ServedFile>,
}

struct ServedFile {
    uri: String,
    /// Relative to the skill's folder, `/`-separated.
    rel: String,
    /// Where it is (inside the folder once links are resolved).
    path: PathBuf,
    size: u64,
    /// `Err`: why the session's rules keep it from a Read.
    readable: Result<(), String>,
}

/// A path segment as it goes in a `skill://` URI.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn encode(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, SEGMENT).to_string()
}

impl<'a> Served<'a> {
    /// A skill on disk and its files (listed, not read); `Err`: why it is
    /// not served.
    fn of(skill: &'a tack_skills::Skill, read_check: Option<&ReadCheck>) -> Result<Self, String> {
        let Source::Local { dir, file } = &skill.source else {
            return Err("it comes from an MCP server".into());
        };
        let root = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let base = format!("skill://{}/", encode(&skill.name));
        let uri = format!("{base}{SKILL_MD}");
        // The name and URI rules, before any file is looked at.
        rmcp::model::Skill::new(uri.clone(), frontmatter(skill), SkillResources::Dynamic)
            .validate()
            .map_err(|e| e.to_string())?;
        let mut listed = vec![(SKILL_MD.to_owned(), file.clone())];
        for rel in tack_skills::tool::list_files(dir) {
            let path = dir.join(&rel);
            listed.push((rel, path));
        }
        if listed.len() > MAX_SKILL_FILES {
            return Err(format!(
                "it has more than {MAX_SKILL_FILES} files (the skills extension's limit)"
            ));
        }
        let mut files = Vec::with_capacity(listed.len());
        let mut total = 0u64;
        for (rel, path) in listed {
            // Never a path out of the folder (a link to elsewhere).
            let real = match std::fs::canonicalize(&path) {
                Ok(real) if real.starts_with(&root) && real.is_file() => real,
                _ => continue,
            };
            let file_uri = format!(
                "{base}{}",
                rel.split('/').map(encode).collect::<Vec<_>>().join("/")
            );
            // The URI must lead back to this file (and nowhere else).
            if skill_file_path(&uri, &file_uri).as_deref() != Ok(rel.as_str()) {
                continue;
            }
            // As the model would Read it: by the path listed and where it
            // really is.
            let readable = match read_check {
                Some(check) => check(&path).and_then(|()| check(&real)),
                None => Ok(()),
            };
            let size = std::fs::metadata(&real)
                .map_err(|e| format!("{}: {e}", real.display()))?
                .len();
            total += size;
            if total > MAX_SKILL_BYTES {
                return Err(format!(
                    "its files add up to more than {MAX_SKILL_BYTES} bytes (the skills extension's limit)"
                ));
            }
            files.push(ServedFile {
                uri: file_uri,
                rel,
                path: real,
                size,
                readable,
            });
        }
        Ok(Self { skill, uri, files })
    }

    /// Its `skills/list` entry: every file read, with its digest and size.
    fn entry(&self) -> Result<rmcp::model::Skill, String> {
        let mut resources = Vec::with_capacity(self.files.len());
        for file in self.files.iter().filter(|f| f.readable.is_ok()) {
            let bytes =
                std::fs::read(&file.path).map_err(|e| format!("{}: {e}", file.path.display()))?;
            resources.push(SkillResource::from_bytes(file.uri.clone(), &bytes));
        }
        let entry = rmcp::model::Skill::new(
            self.uri.clone(),
            frontmatter(self.skill),
            SkillResources::Files(resources),
        );
        entry.validate().map_err(|e| e.to_string())?;
        Ok(entry)
    }
}

/// The frontmatter as the author wrote it (name and description as the
/// catalog has them when the file's are not plain strings).
fn frontmatter(skill: &tack_skills::Skill) -> SkillFrontmatter {
    let raw = &skill.frontmatter.raw;
    let description = raw
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or(&skill.description);
    let mut out = SkillFrontmatter::new(skill.name.clone(), description);
    for (key, value) in raw {
        if key != "name" && key != "description" {
            out = out.with_field(key.clone(), value.clone());
        }
    }
    out
}

/// The MIME type of a skill file by its extension, when it is a known one.
fn mime_type(rel: &str) -> Option<&'static str> {
    let ext = Path::new(rel)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    Some(match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" => "text/javascript",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "pdf" => "application/pdf",
        _ => return None,
    })
}
