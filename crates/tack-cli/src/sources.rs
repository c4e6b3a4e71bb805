//! The tool sources of `tack run` and `tack mcp serve`.

use std::sync::Arc;

use tack_mcp::client::ProgressUpdate;
use tack_session::declared::Declared;
use tack_session::skills::{SkillOptions, Skills};
use tack_session::sources::{Builtins, Fixtures, Mcp, ToolSource};

/// The tool sources of a command, and the two a command reaches into.
pub struct Sources {
    pub list: Vec<Arc<dyn ToolSource>>,
    /// The MCP servers (their manager, once loaded, reaches the servers).
    pub mcp: Arc<Mcp>,
    /// The skills (what was found and the catalog, once loaded): `tack mcp
    /// serve` offers them to its clients.
    pub skills: Arc<Skills>,
}

/// The tool sources of `tack run`, `tack mcp serve` and `tack tools`:
/// built-ins, command tools declared in settings, the fixture tools when
/// asked for, MCP servers (progress on stderr), then skills (the disk's,
/// and the MCP servers' as `server:name`).
pub fn sources(fixture_tools: bool, approve_mcp: bool, skills: SkillOptions) -> Sources {
    let mut list: Vec<Arc<dyn ToolSource>> = vec![Arc::new(Builtins), Arc::new(Declared)];
    if fixture_tools {
        list.push(Arc::new(Fixtures));
    }
    let mcp = Arc::new(Mcp::new(approve_mcp).on_progress(Arc::new(|update| {
        eprintln!("{}", progress_line(update));
    })));
    list.push(Arc::clone(&mcp) as _);
    let skills = Arc::new(Skills::new(skills).with_remote(Arc::clone(&mcp) as _));
    list.push(Arc::clone(&skills) as _);
    Sources { list, mcp, skills }
}

impl crate::cli::ToolSessionArgs {
    /// [`sources`] as these flags ask, the skills as `skills` says but for
    /// `--trust-project-skills`.
    pub fn sources(&self, skills: SkillOptions) -> Sources {
        sources(
            self.fixture_tools,
            self.approve_mcp,
            SkillOptions {
                trust_project: self.trust_project_skills,
                ..skills
            },
        )
    }
}

/// `mcp__server__tool: 3/10 (indexing)`.
pub fn progress_line(update: &ProgressUpdate) -> String {
    let amount = match update.total {
        Some(total) => format!("{}/{}", update.progress, total),
        None => format!("{}", update.progress),
    };
    let message = update
        .message
        .as_deref()
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    format!("  … {} {}: {amount}{message}", update.server, update.tool)
}
