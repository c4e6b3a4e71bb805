//! tack's own MCP files: approvals and pins in the user's state dir, the
//! tool-list cache in the cache dir. Small JSON files, written atomically
//! (temp file + rename).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::config::ServerConfig;
use super::error::{ClientError, Result};
use super::hash_hex;

const APPROVALS_FILE: &str = "mcp-approvals.json";
const PINS_FILE: &str = "mcp-pins.json";

fn read_json<T: DeserializeOwned + Default>(path: &Path) -> Result<T> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| ClientError::Io {
            path: path.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(source) => Err(ClientError::Io {
            path: path.to_owned(),
            source,
        }),
    }
}

pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let io = |source| ClientError::Io {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Approvals per project: the same server entry in another repository runs
/// that repository's code, so it is approved there on its own.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ApprovalsFile {
    /// Project root (absolute) → server name → approval. (A top-level
    /// `servers` map, from before approvals were per project, is ignored:
    /// those servers are asked about again.)
    #[serde(default)]
    projects: BTreeMap<String, BTreeMap<String, Approval>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Approval {
    config_hash: String,
    /// A digest of the project's files the server's command runs
    /// ([`tack_policy::scripts_digest`]); empty when it runs none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    scripts: String,
}

/// The project servers the user approved in one project, each with a hash
/// of its config: a changed entry needs approval again, and so does the
/// same entry in another project.
#[derive(Debug, Clone)]
pub struct Approvals {
    path: PathBuf,
    project: String,
    file: ApprovalsFile,
}

impl Approvals {
    /// Loads `<state_dir>/mcp-approvals.json` (missing = nothing approved)
    /// for the project at `project_root`.
    pub fn load(state_dir: &Path, project_root: &Path) -> Result<Self> {
        let path = state_dir.join(APPROVALS_FILE);
        let file = read_json(&path)?;
        let project = std::fs::canonicalize(project_root)
            .unwrap_or_else(|_| project_root.to_owned())
            .to_string_lossy()
            .into_owned();
        Ok(Self {
            path,
            project,
            file,
        })
    }

    /// Whether `server`, exactly as configured now, was approved. Servers from
    /// trusted sources (user and local settings) are always approved.
    pub fn is_approved(&self, server: &ServerConfig) -> bool {
        if !server.source.needs_approval() {
            return true;
        }
        self.file
            .projects
            .get(&self.project)
            .and_then(|servers| servers.get(&server.name))
            .is_some_and(|a| {
                a.config_hash == server.config_hash() && a.scripts == self.scripts_of(server)
            })
    }

    /// What the project's files that `server` runs hold now (`node
    /// ./mcp/server.js`, `uv run server.py`, `python -m tools.mcp`): an
    /// approval covers them as it covers the entry, so a `git pull` that
    /// changes the server's code asks again. Empty for a remote server or
    /// one that runs no file of the project.
    fn scripts_of(&self, server: &ServerConfig) -> String {
        let super::config::TransportConfig::Stdio {
            command, args, cwd, ..
        } = &server.transport
        else {
            return String::new();
        };
        let root = Path::new(&self.project);
        // A server started in `cwd` finds its relative files there.
        let mut argv: Vec<String> = Vec::with_capacity(args.len() + 3);
        if let Some(dir) = cwd {
            argv.push("cd".to_owned());
            argv.push(dir.clone());
        }
        argv.push(command.clone());
        argv.extend(args.iter().cloned());
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let scripts = tack_policy::project_scripts(
            tack_policy::ConfiguredCommand::Argv(&argv),
            root,
            home.as_deref(),
        );
        tack_policy::scripts_digest(&scripts, root)
    }

    /// Records the approval of `server` as configured now, and saves.
    pub fn approve(&mut self, server: &ServerConfig) -> Result<()> {
        // Merge with what another tack process may have written meanwhile.
        let mut latest: ApprovalsFile = read_json(&self.path)?;
        latest
            .projects
            .entry(self.project.clone())
            .or_default()
            .insert(
                server.name.clone(),
                Approval {
                    config_hash: server.config_hash(),
                    scripts: self.scripts_of(server),
                },
            );
        write_json(&self.path, &latest)?;
        self.file = latest;
        Ok(())
    }

    /// Forgets the approval of a server, and saves.
    pub fn revoke(&mut self, name: &str) -> Result<()> {
        let mut latest: ApprovalsFile = read_json(&self.path)?;
        if let Some(servers) = latest.projects.get_mut(&self.project) {
            servers.remove(name);
        }
        write_json(&self.path, &latest)?;
        self.file = latest;
        Ok(())
    }
}

/// A tool definition as pinned: what the user (or first use) accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PinnedTool {
    /// sha256 (hex, 16 bytes) of name, description and the input schema in
    /// canonical form ([`canonical_json`]): key order and `1` vs `1.0` do not
    /// count, since servers vary them with the negotiated protocol version.
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub input_schema: Value,
}

impl PinnedTool {
    /// Pins a definition as the server sent it.
    pub fn of(name: &str, description: Option<&str>, input_schema: &Value) -> Self {
        Self {
            hash: definition_hash(name, description, &canonical_json(input_schema)),
            description: description.map(str::to_owned),
            input_schema: input_schema.clone(),
        }
    }

    /// The hash pins had before the canonical form: of the schema exactly as
    /// the server ordered it. A pin that still holds it matches a definition
    /// sent again in the same order, and is then rewritten in the new form.
    fn legacy_hash(name: &str, description: Option<&str>, input_schema: &Value) -> String {
        definition_hash(name, description, &input_schema.to_string())
    }
}

fn definition_hash(name: &str, description: Option<&str>, schema: &str) -> String {
    let text = format!("{name}\n{}\n{schema}", description.unwrap_or_default());
    hash_hex(text.as_bytes())
}

/// `value` as JSON text with every object's keys sorted (recursively) and
/// numbers normalised: an integral float is written as the integer (`1.0` as
/// `1`), so two schemas that mean the same hash alike.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(n) => out.push_str(&canonical_number(n)),
        other => out.push_str(&other.to_string()),
    }
}

fn canonical_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    match n.as_f64() {
        // Exactly integral and within the range where f64 holds integers exactly.
        Some(f) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
            #[allow(clippy::cast_possible_truncation, reason = "integral and below 2^53")]
            let i = f as i64;
            i.to_string()
        }
        _ => n.to_string(),
    }
}

/// A tool whose definition differs from its pin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolChange {
    /// The tool's name on the server.
    pub tool: String,
    /// The pinned definition.
    pub old: PinnedTool,
    /// The definition the server sends now.
    pub new: PinnedTool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct PinsFile {
    #[serde(default)]
    servers: BTreeMap<String, BTreeMap<String, PinnedTool>>,
    /// Skills' manifests (the skills extension), per server, then skill name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    skills: BTreeMap<String, BTreeMap<String, PinnedSkill>>,
}

/// Pinned tool definitions and skill manifests, per server name (not per
/// config: a server whose command changes still has to keep its tools'
/// promises).
#[derive(Debug, Clone)]
pub struct Pins {
    path: PathBuf,
    file: PinsFile,
}

/// What the pins say about one tool definition.
#[derive(Debug, Clone, PartialEq)]
pub enum PinCheck {
    /// Matches its pin.
    Pinned,
    /// Never seen: pin it (trust on first use, covered by the server's approval).
    New,
    /// Matches a pin written in the old hash form (before canonical JSON):
    /// the same definition, to be pinned again in the new form.
    Upgrade,
    /// Differs from its pin: withhold until the user approves the change.
    Changed(PinnedTool),
}

impl Pins {
    pub fn load(state_dir: &Path) -> Result<Self> {
        let path = state_dir.join(PINS_FILE);
        let file = read_json(&path)?;
        Ok(Self { path, file })
    }

    pub fn check(&self, server: &str, tool: &str, definition: &PinnedTool) -> PinCheck {
        match self.file.servers.get(server).and_then(|t| t.get(tool)) {
            None => PinCheck::New,
            Some(pin) if pin.hash == definition.hash => PinCheck::Pinned,
            Some(pin)
                if pin.hash
                    == PinnedTool::legacy_hash(
                        tool,
                        definition.description.as_deref(),
                        &definition.input_schema,
                    ) =>
            {
                PinCheck::Upgrade
            }
            Some(pin) => PinCheck::Changed(pin.clone()),
        }
    }

    /// Pins (or re-pins) definitions of one server, and saves.
    pub fn pin(&mut self, server: &str, tools: &[(String, PinnedTool)]) -> Result<()> {
        if tools.is_empty() {
            return Ok(());
        }
        let mut latest: PinsFile = read_json(&self.path)?;
        let entry = latest.servers.entry(server.to_owned()).or_default();
        for (name, pin) in tools {
            entry.insert(name.clone(), pin.clone());
        }
        write_json(&self.path, &latest)?;
        self.file = latest;
        Ok(())
    }

    pub fn pinned(&self, server: &str, tool: &str) -> Option<&PinnedTool> {
        self.file.servers.get(server).and_then(|t| t.get(tool))
    }

    /// The manifest of a server's skill as pinned (approved, or seen first).
    pub fn pinned_skill(&self, server: &str, skill: &str) -> Option<&PinnedSkill> {
        self.file.skills.get(server).and_then(|s| s.get(skill))
    }

    /// Pins (or re-pins) skill manifests of one server, and saves.
    pub fn pin_skills(&mut self, server: &str, skills: &[(String, PinnedSkill)]) -> Result<()> {
        if skills.is_empty() {
            return Ok(());
        }
        let mut latest: PinsFile = read_json(&self.path)?;
        let entry = latest.skills.entry(server.to_owned()).or_default();
        for (name, pin) in skills {
            entry.insert(name.clone(), pin.clone());
        }
        write_json(&self.path, &latest)?;
        self.file = latest;
        Ok(())
    }
}

/// A skill's manifest as pinned: its `SKILL.md` URI, its description and
/// every file with its digest and size, and a digest of all that (what an
/// approval is bound to).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedSkill {
    /// `sha256:` of the manifest in canonical form (see
    /// `client::skills::manifest_digest`).
    pub digest: String,
    /// The URI of its `SKILL.md`.
    pub uri: String,
    pub description: String,
    /// The files, sorted by URI; `None`: a `"dynamic"` skill (no manifest:
    /// only its `SKILL.md` is read, unverified).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<PinnedFile>>,
}

/// One file of a pinned skill manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedFile {
    pub uri: String,
    /// `sha256:` and 64 hex digits.
    pub digest: String,
    pub size: u64,
}

/// A skill whose manifest differs from its pin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillChange {
    /// The skill's name on the server.
    pub skill: String,
    /// The pinned manifest.
    pub old: PinnedSkill,
    /// The manifest the server lists now.
    pub new: PinnedSkill,
}

/// A server's tool list as last seen, keyed by the hash of its config.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CachedTools {
    pub server: String,
    pub config_hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The tools exactly as the server listed them (MCP `Tool` objects).
    pub tools: Vec<Value>,
    /// When the list was received, in ms since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_at_ms: Option<u64>,
    /// The server's `ttlMs` for the list (2026-07-28 caching); `None` when it
    /// sent none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// The server's `cacheScope`: `"public"` or `"private"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<String>,
    /// For a private list, a hash of the auth context it was listed under
    /// (the server's resolved headers or environment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_context: Option<String>,
    /// The server's skills (`skills/list`, MCP `Skill` objects) when it
    /// declares the skills extension, listed with the tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<Value>>,
}

impl CachedTools {
    #[cfg(test)]
    fn is_usable(&self, now_ms: u64, auth_context: Option<&str>) -> bool {
        self.serves(auth_context) && self.is_fresh(now_ms)
    }

    /// Whether the list may be shown to this auth context at all: a
    /// `private` list only to the one it was listed under.
    pub fn serves(&self, auth_context: Option<&str>) -> bool {
        self.cache_scope.as_deref() != Some("private")
            || self.auth_context.as_deref() == auth_context
    }

    /// Whether the list is fresh (lazy start offers a stale one too, while
    /// the server is started to list again):
    ///
    /// - a list the server gave a `ttlMs` is fresh while
    ///   `now < received + ttlMs` (`ttlMs: 0` is always stale);
    /// - a list without `ttlMs` (every pre-2026 server) is kept until the
    ///   server's entry changes (the cache is keyed by its config hash) or the
    ///   running server lists its tools again, as before the caching rules.
    pub fn is_fresh(&self, now_ms: u64) -> bool {
        match (self.ttl_ms, self.received_at_ms) {
            (None, _) => true,
            (Some(ttl), Some(at)) => now_ms < at.saturating_add(ttl),
            (Some(_), None) => false,
        }
    }
}

/// Now, in ms since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A name as one harmless path segment.
pub(crate) fn safe_segment(name: &str) -> String {
    let out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() { "_".to_owned() } else { out }
}

pub(crate) fn cache_path(cache_dir: &Path, server: &ServerConfig) -> PathBuf {
    let safe = safe_segment(&server.name);
    cache_dir
        .join("mcp-tools")
        .join(format!("{safe}-{}.json", server.config_hash()))
}

pub(crate) fn read_cache(cache_dir: &Path, server: &ServerConfig) -> Option<CachedTools> {
    let path = cache_path(cache_dir, server);
    let bytes = std::fs::read(path).ok()?;
    let cached: CachedTools = serde_json::from_slice(&bytes).ok()?;
    (cached.config_hash == server.config_hash() && cached.server == server.name).then_some(cached)
}

pub(crate) fn write_cache(
    cache_dir: &Path,
    server: &ServerConfig,
    cached: &CachedTools,
) -> Result<()> {
    write_json(&cache_path(cache_dir, server), cached)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cached(ttl_ms: Option<u64>, scope: Option<&str>, auth: Option<&str>) -> CachedTools {
        CachedTools {
            server: "s".into(),
            config_hash: "h".into(),
            protocol_version: None,
            tools: Vec::new(),
            received_at_ms: Some(1_000),
            ttl_ms,
            cache_scope: scope.map(str::to_owned),
            auth_context: auth.map(str::to_owned),
            skills: None,
        }
    }

    #[test]
    fn a_cached_list_is_fresh_while_now_is_before_received_plus_ttl() {
        assert!(cached(Some(500), None, None).is_usable(1_499, None));
        assert!(!cached(Some(500), None, None).is_usable(1_500, None));
        assert!(!cached(Some(0), None, None).is_usable(1_000, None));
        // No ttlMs: kept (keyed by the config), however old.
        assert!(cached(None, None, None).is_usable(u64::MAX, None));
        // Private: only for the auth context it was listed under.
        let private = cached(Some(10_000), Some("private"), Some("alice"));
        assert!(private.is_usable(2_000, Some("alice")));
        assert!(!private.is_usable(2_000, Some("bob")));
        let public = cached(Some(10_000), Some("public"), Some("alice"));
        assert!(public.is_usable(2_000, Some("bob")));
    }

    #[test]
    fn the_canonical_form_ignores_key_order_and_integral_floats() {
        let a: Value = serde_json::from_str(
            r#"{"type":"object","properties":{"n":{"type":"integer","default":1}},"required":["n"]}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{"required":["n"],"properties":{"n":{"default":1.0,"type":"integer"}},"type":"object"}"#,
        )
        .unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(
            PinnedTool::of("t", Some("d"), &a).hash,
            PinnedTool::of("t", Some("d"), &b).hash
        );
        // What differs still differs: array order, values, a fraction.
        let c = json!({"required": ["n"], "properties": {"n": {"default": 1.5}}});
        let d = json!({"required": ["n"], "properties": {"n": {"default": 1}}});
        assert_ne!(canonical_json(&c), canonical_json(&d));
        assert_ne!(
            canonical_json(&json!([1, 2])),
            canonical_json(&json!([2, 1]))
        );
    }

    #[test]
    fn a_pin_in_the_old_form_matches_and_is_upgraded() {
        let dir = tempfile::tempdir().unwrap();
        let schema: Value =
            serde_json::from_str(r#"{"type":"object","properties":{"x":{"type":"string"}}}"#)
                .unwrap();
        let legacy = PinnedTool {
            hash: PinnedTool::legacy_hash("echo", Some("Echoes."), &schema),
            description: Some("Echoes.".into()),
            input_schema: schema.clone(),
        };
        let mut pins = Pins::load(dir.path()).unwrap();
        pins.pin("srv", &[("echo".into(), legacy)]).unwrap();
        let now = PinnedTool::of("echo", Some("Echoes."), &schema);
        assert_eq!(pins.check("srv", "echo", &now), PinCheck::Upgrade);
        pins.pin("srv", &[("echo".into(), now.clone())]).unwrap();
        let reloaded = Pins::load(dir.path()).unwrap();
        assert_eq!(reloaded.check("srv", "echo", &now), PinCheck::Pinned);
        // A really changed definition is still a change.
        let changed = PinnedTool::of("echo", Some("Echoes twice."), &schema);
        assert!(matches!(
            reloaded.check("srv", "echo", &changed),
            PinCheck::Changed(_)
        ));
    }
}
