//! Skills a server offers (the `io.modelcontextprotocol/skills` extension,
//! SEP-2640), as a client: they join the session's catalog named
//! `server:name`, and their files are read only when the model loads one.
//!
//! - **Listed with the tools.** A server that declares the extension is
//!   asked `skills/list` when it starts (within its startup timeout; a
//!   failure is a notice, never a failed start), and the listing is cached
//!   with its tool list, so a lazily started server's skills are offered
//!   from the cache and the server starts when one is loaded, as on a tool
//!   call. Each entry is checked with rmcp's `Skill::validate` (URI, name,
//!   files inside the skill, well-formed digests); an entry that breaks a
//!   rule, a second entry of one name, or a skill over [`MAX_SKILL_FILES`]
//!   files or [`MAX_SKILL_BYTES`] bytes is left out with a notice.
//! - **Approval is bound to the manifest.** Each skill's manifest (its
//!   `SKILL.md` URI, its frontmatter, and every file's URI, digest and
//!   size) is pinned next to the tool pins, with a digest of it
//!   ([`manifest_digest`]): pinned on first sight (the server's approval
//!   covers it, as for its tools), and a later listing whose manifest
//!   differs withholds the skill (not in the catalog; a notice names
//!   `tack mcp diff` and `tack mcp approve SERVER --changes`) until the
//!   user approves the change.
//! - **Files at load time only, verified.** [`McpSkillFetch`] reads each
//!   file of the approved manifest with `resources/read` (only URIs of the
//!   manifest), checks its size and sha256 digest and that `SKILL.md`'s
//!   frontmatter names the skill and description listed, then writes the
//!   files to `<state>/skills/mcp/<server>/<name>-<12 hex of the manifest
//!   digest>/` (each URI mapped to a path inside that folder or refused),
//!   where the model's Read and Bash reach them. A mismatch fails the load
//!   with the file and what differed.
//! - **`"dynamic"` skills** have no manifest and so no digests: tack reads
//!   their `SKILL.md` only (the URI `skills/get` gives at load time, which
//!   must be the listed one), checks its frontmatter against the listing,
//!   and offers no other file. Approval is bound to the URI and frontmatter.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use futures::StreamExt as _;
use rmcp::model::{
    GetSkillRequestParams, ReadResourceRequestParams, ResourceContents, SKILL_MD, SkillResource,
    SkillResources,
};
use serde_json::Value;
use tack_skills::frontmatter::{self, Frontmatter};
use tack_skills::{Fetch, Fetched, Scope, Source};

use super::connection::Connection;
use super::runtime::{ServerRuntime, lock};
use super::store::{PinnedFile, PinnedSkill, SkillChange, canonical_json, safe_segment};

/// Files a skill may have (the extension's limit for hosts).
pub const MAX_SKILL_FILES: usize = 512;
/// Bytes a skill's files may add up to (the extension's limit for hosts).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;
/// Files read from the server at once while a skill loads.
const PARALLEL_READS: usize = 4;

/// A server's skills as last listed, checked against the pins.
#[derive(Default)]
pub(super) struct SkillState {
    /// The listing as received (cached with the tool list); `None`: the
    /// server offers no skills (or listing them failed).
    pub(super) raw: Option<Vec<Value>>,
    /// Skills whose manifest matches its pin, in the server's order.
    pub(super) offered: Vec<ServerSkill>,
    /// Skills whose manifest differs from its pin, by name.
    pub(super) withheld: BTreeMap<String, (ServerSkill, SkillChange)>,
    /// What a person should be told (a listing that failed, an entry left out).
    pub(super) notes: Vec<String>,
}

/// One skill of a server's listing that passed the checks.
#[derive(Clone)]
pub(super) struct ServerSkill {
    pub(super) listed: rmcp::model::Skill,
    pub(super) pin: PinnedSkill,
    frontmatter: Frontmatter,
    warnings: Vec<String>,
}

/// `skills/list` of a running server, when it declares the extension
/// (`None` when it does not), all pages.
pub(super) async fn list(conn: &Connection) -> Option<Result<Vec<Value>, String>> {
    let declared = conn
        .peer
        .peer_info()
        .is_some_and(|info| info.capabilities.supports_skills());
    if !declared {
        return None;
    }
    Some(
        conn.peer
            .list_all_skills()
            .await
            .map(|skills| {
                skills
                    .iter()
                    .filter_map(|s| serde_json::to_value(s).ok())
                    .collect()
            })
            .map_err(|e| format!("skills/list failed: {e}")),
    )
}

/// The digest a skill's approval is bound to: `sha256:` of its `SKILL.md`
/// URI, its frontmatter (canonical JSON) and each file's URI, digest and
/// size (sorted by URI), or the word `dynamic` for a skill without a
/// manifest.
pub fn manifest_digest(skill: &rmcp::model::Skill) -> String {
    let frontmatter = serde_json::to_value(&skill.frontmatter).unwrap_or(Value::Null);
    let mut text = format!(
        "uri {}\nfrontmatter {}\n",
        skill.uri,
        canonical_json(&frontmatter)
    );
    match &skill.resources {
        SkillResources::Files(files) => {
            let mut files: Vec<&SkillResource> = files.iter().collect();
            files.sort_by(|a, b| a.uri.cmp(&b.uri));
            for f in files {
                text.push_str(&format!("file {} {} {}\n", f.uri, f.digest, f.size));
            }
        }
        _ => text.push_str("dynamic\n"),
    }
    tack_skills::discover::digest(text.as_bytes())
}

impl PinnedSkill {
    /// The pin of a skill as listed now.
    fn of(skill: &rmcp::model::Skill) -> Self {
        let files = match &skill.resources {
            SkillResources::Files(files) => {
                let mut files: Vec<PinnedFile> = files
                    .iter()
                    .map(|f| PinnedFile {
                        uri: f.uri.clone(),
                        digest: f.digest.clone(),
                        size: f.size,
                    })
                    .collect();
                files.sort_by(|a, b| a.uri.cmp(&b.uri));
                Some(files)
            }
            _ => None,
        };
        Self {
            digest: manifest_digest(skill),
            uri: skill.uri.clone(),
            description: skill.frontmatter.description.clone(),
            files,
        }
    }
}

impl SkillChange {
    /// What changed, in words: `SKILL.md changed; scripts/run.sh added`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.old.uri != self.new.uri {
            parts.push(format!("its URI is now {}", self.new.uri));
        }
        if self.old.description != self.new.description {
            parts.push("its description changed".to_owned());
        }
        let files = |pin: &PinnedSkill| -> BTreeMap<String, String> {
            pin.files
                .iter()
                .flatten()
                .map(|f| (short(&pin.uri, &f.uri), format!("{} {}", f.digest, f.size)))
                .collect()
        };
        let (old, new) = (files(&self.old), files(&self.new));
        for (name, what) in &new {
            match old.get(name) {
                None => parts.push(format!("{name} added")),
                Some(before) if before != what => parts.push(format!("{name} changed")),
                Some(_) => {}
            }
        }
        for name in old.keys().filter(|n| !new.contains_key(*n)) {
            parts.push(format!("{name} removed"));
        }
        match (self.old.files.is_some(), self.new.files.is_some()) {
            (true, false) => parts.push("it became dynamic (no manifest)".to_owned()),
            (false, true) => parts.push("it has a manifest now".to_owned()),
            _ => {}
        }
        if parts.is_empty() {
            parts.push("its frontmatter changed".to_owned());
        }
        parts.join("; ")
    }
}

/// A file's URI relative to its skill's folder, for people.
fn short(skill_uri: &str, uri: &str) -> String {
    let root = skill_uri.strip_suffix(SKILL_MD).unwrap_or(skill_uri);
    uri.strip_prefix(root).unwrap_or(uri).to_owned()
}

/// Why a listed skill is too big for tack to load, if it is.
fn over_limits(skill: &rmcp::model::Skill) -> Option<String> {
    let SkillResources::Files(files) = &skill.resources else {
        return None;
    };
    let bytes: u64 = files.iter().map(|f| f.size).sum();
    if files.len() > MAX_SKILL_FILES {
        return Some(format!(
            "it has {} files; tack loads skills of at most {MAX_SKILL_FILES}",
            files.len()
        ));
    }
    (bytes > MAX_SKILL_BYTES).then(|| {
        format!("its files add up to {bytes} bytes; tack loads skills of at most {MAX_SKILL_BYTES}")
    })
}

/// The listing's frontmatter read as tack reads a `SKILL.md`'s (the JSON
/// object is YAML too), with the lenient reader's warnings.
fn read_frontmatter(
    server: &str,
    skill: &rmcp::model::Skill,
) -> Result<(Frontmatter, Vec<String>), String> {
    let json = serde_json::to_string(&skill.frontmatter).map_err(|e| e.to_string())?;
    let text = format!("---\n{json}\n---\n");
    let parsed = frontmatter::parse(&text, skill.name()).map_err(|p| p.message)?;
    let warnings = parsed
        .warnings
        .iter()
        .map(|w| format!("MCP server {server:?}, skill {}: {}", skill.uri, w.message))
        .collect();
    Ok((parsed.frontmatter, warnings))
}

impl ServerRuntime {
    /// Records a skill listing (`None`: the server offers none), checks each
    /// entry and its manifest against the pins (a skill never seen is
    /// pinned; a changed one is withheld).
    pub(super) fn apply_skills(self: &Arc<Self>, listing: Option<Result<Vec<Value>, String>>) {
        let server = self.name();
        let mut state = SkillState::default();
        match listing {
            None => {}
            Some(Err(e)) => state.notes.push(format!(
                "MCP server {server:?} offers skills, but they could not be listed, so they are left out: {e}"
            )),
            Some(Ok(raw)) => {
                self.check_skills(&raw, &mut state);
                state.raw = Some(raw);
            }
        }
        lock(&self.state).skills = state;
    }

    fn check_skills(&self, raw: &[Value], state: &mut SkillState) {
        let server = self.name();
        let registry = self.registry.upgrade();
        let mut seen = HashSet::new();
        let mut to_pin = Vec::new();
        for value in raw {
            let listed: rmcp::model::Skill = match serde_json::from_value(value.clone()) {
                Ok(skill) => skill,
                Err(e) => {
                    state.notes.push(format!(
                        "MCP server {server:?} lists a skill tack cannot read ({e}), so it is left out"
                    ));
                    continue;
                }
            };
            let left_out = |why: String| {
                format!(
                    "MCP server {server:?} lists the skill {} ({}), but {why}, so it is left out",
                    listed.name(),
                    listed.uri
                )
            };
            if let Err(e) = listed.validate() {
                state.notes.push(left_out(format!(
                    "it breaks the skills extension's rules: {e}"
                )));
                continue;
            }
            if !seen.insert(listed.name().to_owned()) {
                state
                    .notes
                    .push(left_out("another skill of that name comes first".into()));
                continue;
            }
            if let Some(why) = over_limits(&listed) {
                state.notes.push(left_out(why));
                continue;
            }
            let (frontmatter, warnings) = match read_frontmatter(server, &listed) {
                Ok(read) => read,
                Err(why) => {
                    state
                        .notes
                        .push(left_out(format!("its frontmatter cannot be used: {why}")));
                    continue;
                }
            };
            let pin = PinnedSkill::of(&listed);
            let name = listed.name().to_owned();
            let pinned = registry
                .as_ref()
                .and_then(|r| lock(&r.pins).pinned_skill(server, &name).cloned());
            let skill = ServerSkill {
                listed,
                pin: pin.clone(),
                frontmatter,
                warnings,
            };
            match pinned {
                Some(old) if old.digest == pin.digest => state.offered.push(skill),
                Some(old) => {
                    tracing::warn!(server = %server, skill = %name, "MCP skill manifest changed since it was approved; withheld until `tack mcp approve --changes`");
                    let change = SkillChange {
                        skill: name.clone(),
                        old,
                        new: pin,
                    };
                    state.withheld.insert(name, (skill, change));
                }
                None => {
                    to_pin.push((name, pin));
                    state.offered.push(skill);
                }
            }
        }
        if let Some(registry) = registry
            && let Err(e) = lock(&registry.pins).pin_skills(server, &to_pin)
        {
            tracing::warn!("could not save MCP skill pins: {e}");
        }
    }

    /// The offered entry of a skill (to load it), or why it cannot be loaded.
    fn offered_skill(&self, name: &str) -> Result<ServerSkill, String> {
        let server = self.name();
        let state = lock(&self.state);
        if let Some((_, change)) = state.skills.withheld.get(name) {
            return Err(format!(
                "MCP server {server:?} changed the skill {server}:{name} since the user approved it ({}); it is withheld until a person reviews the change (`tack mcp diff {server}`) and approves it (`tack mcp approve {server} --changes`). Do the task without it",
                change.summary()
            ));
        }
        state
            .skills
            .offered
            .iter()
            .find(|s| s.listed.name() == name)
            .cloned()
            .ok_or_else(|| {
                format!("MCP server {server:?} no longer offers the skill {server}:{name}")
            })
    }
}

impl ServerSkill {
    /// The skill as the catalog holds it: `server:name`, its files brought
    /// by a [`McpSkillFetch`] when it is loaded.
    pub(super) fn catalog_skill(&self, runtime: &Arc<ServerRuntime>) -> tack_skills::Skill {
        let server = runtime.name().to_owned();
        tack_skills::Skill {
            name: format!("{server}:{}", self.listed.name()),
            description: self.frontmatter.description.clone().unwrap_or_default(),
            scope: Scope::Mcp,
            folder: self.listed.name().to_owned(),
            source: Source::Remote {
                server,
                uri: self.listed.uri.clone(),
                fetch: Arc::new(McpSkillFetch {
                    runtime: Arc::clone(runtime),
                    skill: self.listed.name().to_owned(),
                }),
            },
            frontmatter: self.frontmatter.clone(),
            digest: self.pin.digest.clone(),
            warnings: self.warnings.clone(),
        }
    }
}

/// Brings a server's skill to disk when the model loads it: starts the
/// server if need be, reads the files of the approved manifest, verifies
/// them and writes them to the skill's cache folder.
pub struct McpSkillFetch {
    runtime: Arc<ServerRuntime>,
    /// The skill's name on the server.
    skill: String,
}

impl std::fmt::Debug for McpSkillFetch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSkillFetch")
            .field("server", &self.runtime.name())
            .field("skill", &self.skill)
            .finish()
    }
}

#[async_trait]
impl Fetch for McpSkillFetch {
    async fn fetch(&self) -> Result<Fetched, String> {
        let runtime = &self.runtime;
        let server = runtime.name();
        let full = format!("{server}:{}", self.skill);
        let conn = runtime
            .ensure_running()
            .await
            .map_err(|e| format!("the skill {full} cannot be loaded now: {e}"))?;
        let entry = runtime.offered_skill(&self.skill)?;
        let timeout = runtime.call_timeout();
        let files = match &entry.listed.resources {
            SkillResources::Files(files) => read_manifest(&conn, &entry, files, timeout).await,
            _ => read_dynamic(&conn, &entry, timeout).await,
        }
        .map_err(|why| {
            format!(
                "the skill {full} was not loaded: {why}. MCP server {server:?} must serve exactly the files of the manifest the user approved; do the task without the skill"
            )
        })?;
        let skill_md = check_skill_md(&entry, &files)
            .map_err(|why| format!("the skill {full} was not loaded: {why}"))?;
        let dir = cache_dir(
            &runtime.settings.options.state_dir,
            server,
            &self.skill,
            &entry.pin.digest,
        );
        install(&dir, &files).map_err(|why| {
            format!(
                "the skill {full} was verified but could not be written to {}: {why}",
                dir.display()
            )
        })?;
        let mut listed: Vec<String> = files
            .into_iter()
            .map(|(rel, _)| rel)
            .filter(|rel| rel != SKILL_MD)
            .collect();
        listed.sort();
        Ok(Fetched {
            skill_md,
            dir: Some(dir),
            files: listed,
        })
    }
}

/// Where a skill's verified files are written: one folder per server, skill
/// and manifest (a changed manifest gets a new folder).
pub fn cache_dir(state_dir: &Path, server: &str, skill: &str, digest: &str) -> PathBuf {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    let short: String = hex.chars().take(12).collect();
    state_dir
        .join("skills")
        .join("mcp")
        .join(safe_segment(server))
        .join(format!("{}-{short}", safe_segment(skill)))
}

/// A manifest file's path inside the skill's folder, `/`-separated:
/// relative to the folder of `skill_uri`, percent-decoded segment by
/// segment, `.` and `..` resolved within the folder. `Err` for a URI that
/// is not inside it, has a query or fragment, or has a segment that is
/// empty or holds `/`, `\` or NUL once decoded.
pub fn relative_path(skill_uri: &str, uri: &str) -> Result<String, String> {
    let refuse = |why: &str| {
        Err(format!(
            "{uri} cannot be mapped to a file of the skill ({why})"
        ))
    };
    let Some(root) = skill_uri.strip_suffix(SKILL_MD) else {
        return refuse("the skill's URI does not end in SKILL.md");
    };
    let rest = match uri.strip_prefix(root) {
        Some(rest) => rest.to_owned(),
        None => {
            // The same folder spelled with other escapes.
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            match decode(uri).strip_prefix(&decode(root)) {
                Some(rest) => rest.to_owned(),
                None => return refuse("it is not inside the skill's folder"),
            }
        }
    };
    if rest.contains(['?', '#']) {
        return refuse("it has a query or a fragment");
    }
    let mut segments: Vec<String> = Vec::new();
    for raw in rest.split('/') {
        let segment = percent_encoding::percent_decode_str(raw)
            .decode_utf8()
            .map_err(|_| format!("{uri} cannot be mapped to a file of the skill (not UTF-8)"))?;
        match segment.as_ref() {
            "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return refuse("it leads out of the skill's folder");
                }
            }
            "" => return refuse("it has an empty path segment"),
            s if s.contains(['/', '\\', '\0']) => {
                return refuse("a segment holds a slash, a backslash or NUL");
            }
            s => segments.push(s.to_owned()),
        }
    }
    if segments.is_empty() {
        return refuse("it names the folder itself");
    }
    Ok(segments.join("/"))
}

/// Reads every file of the manifest and checks its size and digest.
async fn read_manifest(
    conn: &Connection,
    entry: &ServerSkill,
    files: &[SkillResource],
    timeout: Duration,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let skill_uri = &entry.listed.uri;
    let mut planned = Vec::with_capacity(files.len());
    let mut paths = HashSet::new();
    for file in files {
        let rel = relative_path(skill_uri, &file.uri)?;
        if !paths.insert(rel.clone()) {
            return Err(format!("two files of the manifest map to {rel}"));
        }
        planned.push((rel, file));
    }
    let reads: Vec<_> = planned
        .into_iter()
        .map(|(rel, file)| read_verified(conn, rel, file, timeout))
        .collect();
    futures::stream::iter(reads)
        .buffered(PARALLEL_READS)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect()
}

/// One file of the manifest, checked against its size and digest.
async fn read_verified(
    conn: &Connection,
    rel: String,
    file: &SkillResource,
    timeout: Duration,
) -> Result<(String, Vec<u8>), String> {
    let bytes = read_one(conn, &file.uri, timeout).await?;
    file.verify(&bytes).map_err(|e| e.to_string())?;
    Ok((rel, bytes))
}

/// A `"dynamic"` skill: its `SKILL.md` only, at the URI `skills/get` gives
/// now (which must be the one listed).
async fn read_dynamic(
    conn: &Connection,
    entry: &ServerSkill,
    timeout: Duration,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let uri = &entry.listed.uri;
    let got = tokio::time::timeout(
        timeout,
        conn.peer.get_skill(GetSkillRequestParams::new(uri.clone())),
    )
    .await
    .map_err(|_| {
        format!(
            "skills/get of {uri} took longer than {}s",
            timeout.as_secs()
        )
    })?
    .map_err(|e| format!("skills/get of {uri} failed: {e}"))?;
    if got.skill.uri != *uri {
        return Err(format!(
            "skills/get of {uri} answered with another skill ({})",
            got.skill.uri
        ));
    }
    let bytes = read_one(conn, uri, timeout).await?;
    if bytes.len() as u64 > MAX_SKILL_BYTES {
        return Err(format!(
            "{uri} is {} bytes; tack loads skills of at most {MAX_SKILL_BYTES}",
            bytes.len()
        ));
    }
    Ok(vec![(SKILL_MD.to_owned(), bytes)])
}

/// One `resources/read`, its contents as bytes (text as UTF-8, a blob
/// decoded from base64).
async fn read_one(conn: &Connection, uri: &str, timeout: Duration) -> Result<Vec<u8>, String> {
    let result = tokio::time::timeout(
        timeout,
        conn.peer
            .read_resource(ReadResourceRequestParams::new(uri.to_owned())),
    )
    .await
    .map_err(|_| format!("reading {uri} took longer than {}s", timeout.as_secs()))?
    .map_err(|e| format!("reading {uri} failed: {e}"))?;
    let of = |c: &ResourceContents| match c {
        ResourceContents::TextResourceContents { uri, .. }
        | ResourceContents::BlobResourceContents { uri, .. } => uri.clone(),
        _ => String::new(),
    };
    let contents = match result.contents.iter().find(|c| of(c) == uri) {
        Some(c) => c,
        None if result.contents.len() == 1 => &result.contents[0],
        None => return Err(format!("the server sent no contents for {uri}")),
    };
    match contents {
        ResourceContents::TextResourceContents { text, .. } => Ok(text.clone().into_bytes()),
        ResourceContents::BlobResourceContents { blob, .. } => {
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| format!("{uri} came as a blob that is not base64 ({e})"))
        }
        _ => Err(format!("{uri} came in a form tack does not know")),
    }
}

/// `SKILL.md`'s text, once its frontmatter is seen to name the skill and
/// the description the server listed.
fn check_skill_md(entry: &ServerSkill, files: &[(String, Vec<u8>)]) -> Result<String, String> {
    let uri = &entry.listed.uri;
    let bytes = files
        .iter()
        .find(|(rel, _)| rel == SKILL_MD)
        .map(|(_, b)| b.clone())
        .ok_or_else(|| format!("the manifest has no {uri}"))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{uri} is not UTF-8 text"))?;
    let name = entry.listed.name();
    let parsed = frontmatter::parse(&text, name).map_err(|p| format!("{uri}: {p}"))?;
    let found = parsed.frontmatter.name.as_deref().unwrap_or_default();
    if found != name {
        return Err(format!(
            "{uri}'s frontmatter names the skill {found:?}, the server listed it as {name:?}"
        ));
    }
    let described = parsed
        .frontmatter
        .description
        .as_deref()
        .unwrap_or_default()
        .trim();
    if described != entry.listed.frontmatter.description.trim() {
        return Err(format!(
            "{uri}'s frontmatter has another description than the one the server listed (and the user approved)"
        ));
    }
    Ok(text)
}

/// Writes verified files to `dir`, through a temporary folder renamed into
/// place; a folder already there with exactly these files is kept.
fn install(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    if holds_exactly(dir, files) {
        return Ok(());
    }
    let parent = dir
        .parent()
        .ok_or_else(|| "the cache folder has no parent".to_owned())?;
    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    let leaf = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = parent.join(format!(".{leaf}.{}.{nanos}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        std::fs::create_dir(&tmp)?;
        for (rel, bytes) in files {
            let path = tmp.join(rel);
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder)?;
            }
            std::fs::write(&path, bytes)?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e.to_string());
    }
    match std::fs::remove_dir_all(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e.to_string());
        }
    }
    match std::fs::rename(&tmp, dir) {
        Ok(()) => Ok(()),
        // Another load of the same manifest won the race.
        Err(_) if holds_exactly(dir, files) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e.to_string())
        }
    }
}

/// Whether `dir` holds these files, byte for byte, and nothing else.
fn holds_exactly(dir: &Path, files: &[(String, Vec<u8>)]) -> bool {
    let same = files
        .iter()
        .all(|(rel, bytes)| std::fs::read(dir.join(rel)).is_ok_and(|b| &b == bytes));
    same && count_files(dir) == Some(files.len())
}

fn count_files(dir: &Path) -> Option<usize> {
    let mut count = 0;
    for entry in std::fs::read_dir(dir).ok()? {
        let entry = entry.ok()?;
        let kind = entry.file_type().ok()?;
        if kind.is_dir() {
            count += count_files(&entry.path())?;
        } else {
            count += 1;
        }
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{SkillFrontmatter, SkillResource};

    fn skill(files: &[(&str, &[u8])]) -> rmcp::model::Skill {
        rmcp::model::Skill::new(
            "skill://code-review/SKILL.md",
            SkillFrontmatter::new("code-review", "Reviews code."),
            SkillResources::Files(
                files
                    .iter()
                    .map(|(uri, bytes)| SkillResource::from_bytes(*uri, bytes))
                    .collect(),
            ),
        )
    }

    #[test]
    fn a_file_uri_maps_to_a_path_inside_the_skill_or_is_refused() {
        let at = |uri: &str| relative_path("skill://code-review/SKILL.md", uri);
        assert_eq!(at("skill://code-review/SKILL.md").unwrap(), "SKILL.md");
        assert_eq!(
            at("skill://code-review/scripts/run.sh").unwrap(),
            "scripts/run.sh"
        );
        assert_eq!(
            at("skill://code-review/refs/../my%20notes.md").unwrap(),
            "my notes.md"
        );
        for bad in [
            "skill://code-review/../other/SKILL.md",
            "skill://code-review/a/../../x",
            "skill://other/SKILL.md",
            "skill://code-review/a%2F..%2F..%2Fx",
            "skill://code-review/a%5Cb",
            "skill://code-review/a%00b",
            "skill://code-review/a//b",
            "skill://code-review/x?y=1",
            "skill://code-review/",
        ] {
            assert!(at(bad).is_err(), "{bad} was accepted: {:?}", at(bad));
        }
    }

    #[test]
    fn the_manifest_digest_covers_every_file_and_ignores_their_order() {
        let a = skill(&[
            ("skill://code-review/SKILL.md", b"one"),
            ("skill://code-review/x.md", b"two"),
        ]);
        let b = skill(&[
            ("skill://code-review/x.md", b"two"),
            ("skill://code-review/SKILL.md", b"one"),
        ]);
        let c = skill(&[
            ("skill://code-review/SKILL.md", b"one"),
            ("skill://code-review/x.md", b"two!"),
        ]);
        assert_eq!(manifest_digest(&a), manifest_digest(&b));
        assert_ne!(manifest_digest(&a), manifest_digest(&c));
        let change = SkillChange {
            skill: "code-review".into(),
            old: PinnedSkill::of(&a),
            new: PinnedSkill::of(&c),
        };
        assert_eq!(change.summary(), "x.md changed");
    }

    #[test]
    fn a_skill_over_the_limits_is_named_with_its_size() {
        let many: Vec<(String, Vec<u8>)> = (0..=MAX_SKILL_FILES)
            .map(|i| (format!("skill://code-review/f{i}"), Vec::new()))
            .collect();
        let refs: Vec<(&str, &[u8])> = many
            .iter()
            .map(|(u, b)| (u.as_str(), b.as_slice()))
            .collect();
        let why = over_limits(&skill(&refs)).unwrap();
        assert!(why.contains("513 files"), "{why}");
        let mut big = skill(&[("skill://code-review/SKILL.md", b"x")]);
        if let SkillResources::Files(files) = &mut big.resources {
            files[0].size = MAX_SKILL_BYTES + 1;
        }
        assert!(over_limits(&big).unwrap().contains("bytes"));
    }

    #[test]
    fn a_skill_md_whose_frontmatter_is_not_the_listings_is_refused() {
        let listed = skill(&[("skill://code-review/SKILL.md", b"x")]);
        let entry = ServerSkill {
            pin: PinnedSkill::of(&listed),
            listed,
            frontmatter: Frontmatter::default(),
            warnings: Vec::new(),
        };
        let md = |front: &str| {
            vec![(
                "SKILL.md".to_owned(),
                format!("---\n{front}---\nDo it.\n").into_bytes(),
            )]
        };
        let ok = md("name: code-review\ndescription: Reviews code.\n");
        assert!(check_skill_md(&entry, &ok).unwrap().ends_with("Do it.\n"));
        let other = md("name: other\ndescription: Reviews code.\n");
        let why = check_skill_md(&entry, &other).unwrap_err();
        assert!(why.contains("names the skill \"other\""), "{why}");
        let described = md("name: code-review\ndescription: Deletes code.\n");
        let why = check_skill_md(&entry, &described).unwrap_err();
        assert!(why.contains("another description"), "{why}");
    }

    #[test]
    fn installed_files_stay_inside_the_folder_and_a_same_copy_is_kept() {
        let state = tempfile::tempdir().unwrap();
        let dir = cache_dir(
            state.path(),
            "docs/../x",
            "code-review",
            "sha256:0123456789abcdef",
        );
        assert!(dir.ends_with("skills/mcp/docs____x/code-review-0123456789ab"));
        let files = vec![
            ("SKILL.md".to_owned(), b"---\n".to_vec()),
            ("scripts/run.sh".to_owned(), b"echo hi\n".to_vec()),
        ];
        install(&dir, &files).unwrap();
        assert_eq!(
            std::fs::read(dir.join("scripts/run.sh")).unwrap(),
            b"echo hi\n"
        );
        assert!(holds_exactly(&dir, &files));
        std::fs::write(dir.join("extra"), b"x").unwrap();
        install(&dir, &files).unwrap();
        assert!(
            !dir.join("extra").exists(),
            "a folder that differs is replaced"
        );
    }
}
