//! Skills whose files are elsewhere (an MCP server's): the Skill tool asks
//! a [`Fetch`] for them when the model loads one, never before.

use std::path::PathBuf;

use async_trait::async_trait;

/// A remote skill's files, brought where the model's tools can read them.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    /// The whole `SKILL.md` (frontmatter and instructions).
    pub skill_md: String,
    /// The local folder holding the verified files (what Read and Bash
    /// reach), when they were written to disk.
    pub dir: Option<PathBuf>,
    /// The bundled files, relative to the skill's folder.
    pub files: Vec<String>,
}

/// Brings a remote skill's files when it is loaded.
#[async_trait]
pub trait Fetch: Send + Sync {
    /// The files, each checked against the manifest the user approved;
    /// `Err`: why the skill cannot be loaded now (for the model).
    async fn fetch(&self) -> Result<Fetched, String>;
}

/// Where skills other than the disk's come from (an MCP client's servers).
#[async_trait]
pub trait RemoteSkills: Send + Sync {
    /// The skills offered now (names already `server:name`), and what a
    /// person should be told (a server whose skills were withheld).
    async fn skills(&self) -> (Vec<crate::Skill>, Vec<String>);
}
