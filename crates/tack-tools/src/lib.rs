//! Built-in tools of tack, with Claude Code's names and input shapes so
//! permission rules, hook scripts and the models' habits carry over.
//!
//! Tools that share session state are built together by [`builtin_tools`]:
//! Read, Write, Edit and NotebookEdit share the record of which files were
//! read (the read-before-write guard); Bash, BashOutput and KillShell share the shell's
//! working directory and background jobs; ReadOutput reads the artifacts that
//! the output budget saved.

use std::path::PathBuf;
use std::sync::Arc;

use tack_tool::{Tool, Typed};

pub use tack_tool::artifacts;
pub mod bash;
pub mod declared;
pub mod files;
pub mod read_output;
pub mod search;
pub mod todo;
pub mod tool_search;
pub mod web;

/// What the built-in tools need from the session.
#[derive(Clone)]
pub struct BuiltinOptions {
    /// The session's working directory (absolute).
    pub cwd: PathBuf,
    /// The project root and the working directories: the Bash tool's
    /// shell is never taken from inside them (nor `cwd`), whatever `PATH`
    /// says.
    pub program_roots: Vec<PathBuf>,
    /// Where cut outputs are kept (shared with the output budget stage).
    pub artifacts: Arc<artifacts::ArtifactStore>,
    pub web: web::WebFetchOptions,
    /// The WebSearch backend; without one, WebSearch is not offered.
    pub web_search: Option<web::search::WebSearchOptions>,
    /// The permission policy's Read rules, applied to every file Grep and Glob find.
    pub read_filter: Option<search::ReadFilter>,
    /// The OS sandbox Bash's commands run in; `None`: none.
    pub sandbox: Option<Arc<bash::sandbox::ShellSandbox>>,
}

impl std::fmt::Debug for BuiltinOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltinOptions")
            .field("cwd", &self.cwd)
            .field("program_roots", &self.program_roots)
            .field("artifacts", &self.artifacts)
            .field("web", &self.web)
            .field("web_search", &self.web_search)
            .field("read_filter", &self.read_filter.is_some())
            .field("sandbox", &self.sandbox)
            .finish()
    }
}

/// Every built-in tool, in the order the model sees them.
pub fn builtin_tools(options: &BuiltinOptions) -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    tools.extend(bash::bash_tools_in(
        options.cwd.clone(),
        &options.program_roots,
        options.sandbox.clone(),
    ));
    tools.extend(files::file_tools());
    tools.extend(search::search_tools_filtered(options.read_filter.clone()));
    tools.push(Arc::new(Typed(web::WebFetch::new(options.web.clone()))));
    if let Some(search) = &options.web_search {
        tools.push(Arc::new(Typed(web::search::WebSearch::new(search.clone()))));
    }
    tools.push(Arc::new(Typed(todo::TodoWrite::default())));
    tools.push(Arc::new(Typed(read_output::ReadOutput::new(Arc::clone(
        &options.artifacts,
    )))));
    tools
}
