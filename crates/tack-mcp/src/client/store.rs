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
            .is_some_and(|a| a.config_hash == server.config_hash())
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
    /// sha256 of name, description and input schema (hex, 16 bytes).
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub input_schema: Value,
}

impl PinnedTool {
    /// Pins a definition as the server sent it.
    pub fn of(name: &str, description: Option<&str>, input_schema: &Value) -> Self {
        let text = format!(
            "{name}\n{}\n{}",
            description.unwrap_or_default(),
            input_schema
        );
        Self {
            hash: hash_hex(text.as_bytes()),
            description: description.map(str::to_owned),
            input_schema: input_schema.clone(),
        }
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
}

/// Pinned tool definitions, per server name (not per config: a server whose
/// command changes still has to keep its tools' promises).
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
}

pub(crate) fn cache_path(cache_dir: &Path, server: &ServerConfig) -> PathBuf {
    let safe: String = server
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
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
