//! An MCP server of skills that owes nothing to tack: rmcp's own
//! directory-backed `SkillCatalog` (the `skills-fs` feature) over stdio,
//! for the client tests of the skills extension (`tests/all/client/skills.rs`).
//!
//! ```text
//! skills_server DIR
//!   every folder below DIR with a SKILL.md is a skill, skill://<path>/SKILL.md
//! environment:
//!   SKILLS_SERVER_LOG=FILE      append "METHOD URI" for each skills/resources request
//!   SKILLS_SERVER_FROM_DISK=1   resources/read serves the files as they are on
//!                               disk now, not as they were listed (a server
//!                               whose files changed after it listed them)
//! ```

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "a test peer: plain std I/O"
)]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{
    GetSkillRequestParams, GetSkillResult, ListResourcesResult, ListSkillsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};

#[derive(Clone)]
struct Server {
    root: PathBuf,
    skills: Arc<SkillCatalog>,
    log: Option<PathBuf>,
    from_disk: bool,
}

impl Server {
    fn log(&self, method: &str, uri: &str) {
        if let Some(path) = &self.log
            && let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
        {
            let _ = writeln!(file, "{method} {uri}");
        }
    }

    /// The file behind a `skill://` URI as it is on disk now.
    fn read_from_disk(&self, uri: &str) -> Option<ReadResourceResult> {
        let path = uri.strip_prefix("skill://")?;
        if path.split('/').any(|s| s == ".." || s.is_empty()) {
            return None;
        }
        let bytes = std::fs::read(self.root.join(path)).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        Some(ReadResourceResult::new(vec![ResourceContents::text(
            text, uri,
        )]))
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_skills()
                .build(),
        )
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.log("skills/list", "");
        Ok(self.skills.list_skills())
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.log("skills/get", &request.uri);
        self.skills.get_skill(&request.uri)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.skills.resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.log("resources/read", &request.uri);
        let read = if self.from_disk {
            self.read_from_disk(&request.uri)
        } else {
            self.skills.read_resource(&request.uri)
        };
        read.map(Into::into)
            .ok_or_else(|| ErrorData::resource_not_found(request.uri, None))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(root) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: skills_server DIR");
        return ExitCode::from(2);
    };
    let skills = match SkillCatalog::from_dir(&root) {
        Ok(skills) => Arc::new(skills),
        Err(e) => {
            eprintln!("skills_server: {e}");
            return ExitCode::from(1);
        }
    };
    let server = Server {
        root,
        skills,
        log: std::env::var_os("SKILLS_SERVER_LOG").map(PathBuf::from),
        from_disk: std::env::var_os("SKILLS_SERVER_FROM_DISK").is_some(),
    };
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(e) => {
            eprintln!("skills_server: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = running.waiting().await {
        eprintln!("skills_server: {e}");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
