//! Everything that needs a person goes through [`Interaction`]: permission
//! prompts, approval of a project's MCP server, approval of changed tool
//! definitions, approval of what a project settings file asks for, an MCP
//! server's request for input (elicitation), and notices worth showing.
//!
//! Three implementations: [`crate::Terminal`] (asks on `/dev/tty`),
//! [`Headless`] (nobody to ask: an ask is a deny whose message names the rule
//! or flag that would allow the call; servers and changes stay unapproved)
//! and [`Scripted`] (answers from a script and records every question, for
//! tests and embedders).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tack_agent::permission::{PromptAnswer, PromptRequest, Prompter};
use tack_mcp::client::{
    ElicitAnswer, Elicitation, ElicitationKind, PendingServer, ServerRequests, ToolChange,
};

use crate::trust::UntrustedSettings;

/// A question or notice for the person at the other end.
#[async_trait]
pub trait Interaction: Send + Sync {
    /// Whether anyone can be asked. When not, the permission stage turns an
    /// ask into a deny that says which rule or flag would allow the call.
    fn can_ask(&self) -> bool;
    /// May this call run? (Only asked when [`Interaction::can_ask`].)
    async fn permission(&self, request: &PromptRequest) -> PromptAnswer;
    /// May the project's MCP server start? Yes is remembered. A prompt
    /// shows [`PendingServer::describe`]: what runs, which variables it gets.
    async fn approve_server(&self, server: &PendingServer) -> bool;
    /// The tools of `server` changed since they were approved: offer the new
    /// definitions? Yes re-pins them.
    async fn approve_changes(&self, server: &str, changes: &[ToolChange]) -> bool;
    /// The project settings file asks for what would let something run
    /// without asking (hooks, a permissive mode, directories or allow rules
    /// outside the project): apply it? Yes is remembered until the file
    /// changes what it asks for.
    async fn approve_project_settings(&self, settings: &UntrustedSettings) -> bool;
    /// Something the person should know (a server left out, a flag overridden).
    fn notice(&self, text: &str);
    /// Whether an MCP server's request for input can be put to a person
    /// (only then does tack declare the elicitation capability). Default: no.
    fn can_elicit(&self) -> bool {
        false
    }
    /// An MCP server asks for input during a call: a form (one answer per
    /// field, checked against the server's schema by tack-mcp) or a page to
    /// open (URL mode: show the host, open it only with consent). Default:
    /// decline (the model's result says nobody could be asked).
    async fn elicit(&self, _request: &Elicitation) -> ElicitAnswer {
        ElicitAnswer::Decline
    }
    /// The model wants to load a skill the repository (or an MCP server)
    /// brought, not trusted yet: use it? Yes is remembered until the
    /// skill's instructions change. Default: no.
    async fn approve_skill(&self, _skill: &SkillApproval) -> bool {
        false
    }
}

/// A skill waiting for the user's trust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillApproval {
    pub name: String,
    /// Its `SKILL.md`, or the MCP server and URI.
    pub location: String,
    pub description: String,
    /// The skill's `allowed-tools`, if any (shown; they grant nothing).
    pub allowed_tools: Vec<String>,
}

/// MCP servers' requests: elicitation through the session's
/// [`Interaction`], sampling through the session's model when the settings
/// allow it.
pub(crate) struct InteractionRequests {
    pub(crate) interaction: Arc<dyn Interaction>,
    pub(crate) sampler: Option<Arc<crate::sampling::Sampler>>,
}

#[async_trait]
impl ServerRequests for InteractionRequests {
    fn can_elicit(&self) -> bool {
        self.interaction.can_elicit()
    }
    async fn elicit(&self, request: &Elicitation) -> ElicitAnswer {
        self.interaction.elicit(request).await
    }
    fn may_sample(&self, server: &str) -> bool {
        self.sampler.as_ref().is_some_and(|s| s.may_sample(server))
    }
    async fn sample(
        &self,
        request: &tack_mcp::client::SamplingRequest,
    ) -> Result<tack_mcp::client::SamplingAnswer, String> {
        match &self.sampler {
            Some(sampler) => sampler.sample(request).await,
            None => Err(crate::sampling::refused_message(&request.server)),
        }
    }
}

/// The permission stage's prompter, backed by an [`Interaction`].
pub(crate) struct InteractionPrompter(pub(crate) Arc<dyn Interaction>);

#[async_trait]
impl Prompter for InteractionPrompter {
    async fn ask(&self, request: &PromptRequest) -> PromptAnswer {
        self.0.permission(request).await
    }
}

/// Nobody to ask (CI, `tack mcp serve`, a pipe): notices go to stderr.
#[derive(Debug, Default, Clone, Copy)]
pub struct Headless;

#[async_trait]
impl Interaction for Headless {
    fn can_ask(&self) -> bool {
        false
    }
    async fn permission(&self, _request: &PromptRequest) -> PromptAnswer {
        PromptAnswer::Deny {
            reason: "nobody can be asked to allow this call".into(),
        }
    }
    async fn approve_server(&self, _server: &PendingServer) -> bool {
        false
    }
    async fn approve_changes(&self, _server: &str, _changes: &[ToolChange]) -> bool {
        false
    }
    async fn approve_project_settings(&self, _settings: &UntrustedSettings) -> bool {
        false
    }
    fn notice(&self, text: &str) {
        eprintln!("tack: {text}");
    }
}

/// What a [`Scripted`] interaction was asked, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    Permission(PromptRequest),
    Server(String),
    Changes {
        server: String,
        tools: Vec<String>,
    },
    /// The project settings file, and what it asked for.
    ProjectSettings {
        file: PathBuf,
        items: Vec<String>,
    },
    Notice(String),
    /// A skill waiting for trust, by name.
    Skill(String),
    /// An MCP server's request for input: the form's field names, or the
    /// URL of URL mode.
    Elicitation {
        server: String,
        message: String,
        fields: Vec<String>,
        url: Option<String>,
    },
}

#[derive(Debug, Default)]
struct Script {
    elicitations: VecDeque<ElicitAnswer>,
    permissions: VecDeque<PromptAnswer>,
    servers: VecDeque<bool>,
    changes: VecDeque<bool>,
    project_settings: VecDeque<bool>,
    skills: VecDeque<bool>,
    asked: Vec<Asked>,
}

/// Answers from a script, in order, and records every question. A question
/// the script has no answer for is answered no (deny).
#[derive(Debug, Default, Clone)]
pub struct Scripted {
    script: Arc<Mutex<Script>>,
}

impl Scripted {
    pub fn new() -> Self {
        Self::default()
    }

    /// The answer to the next permission prompt.
    pub fn permission(self, answer: PromptAnswer) -> Self {
        self.lock().permissions.push_back(answer);
        self
    }

    /// The answer to the next server approval.
    pub fn approve_server(self, yes: bool) -> Self {
        self.lock().servers.push_back(yes);
        self
    }

    /// The answer to the next changed-definitions approval.
    pub fn approve_changes(self, yes: bool) -> Self {
        self.lock().changes.push_back(yes);
        self
    }

    /// The answer to the next project settings approval.
    pub fn approve_project_settings(self, yes: bool) -> Self {
        self.lock().project_settings.push_back(yes);
        self
    }

    /// The answer to the next skill trust question.
    pub fn approve_skill(self, yes: bool) -> Self {
        self.lock().skills.push_back(yes);
        self
    }

    /// The answer to the next MCP elicitation (none left: decline).
    pub fn elicit(self, answer: ElicitAnswer) -> Self {
        self.lock().elicitations.push_back(answer);
        self
    }

    /// Everything asked so far.
    pub fn asked(&self) -> Vec<Asked> {
        self.lock().asked.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl Interaction for Scripted {
    fn can_ask(&self) -> bool {
        true
    }
    async fn permission(&self, request: &PromptRequest) -> PromptAnswer {
        let mut script = self.lock();
        script.asked.push(Asked::Permission(request.clone()));
        script
            .permissions
            .pop_front()
            .unwrap_or_else(|| PromptAnswer::Deny {
                reason: "the script has no answer for this prompt".into(),
            })
    }
    async fn approve_server(&self, server: &PendingServer) -> bool {
        let mut script = self.lock();
        script.asked.push(Asked::Server(server.name.clone()));
        script.servers.pop_front().unwrap_or(false)
    }
    async fn approve_changes(&self, server: &str, changes: &[ToolChange]) -> bool {
        let mut script = self.lock();
        script.asked.push(Asked::Changes {
            server: server.to_owned(),
            tools: changes.iter().map(|c| c.tool.clone()).collect(),
        });
        script.changes.pop_front().unwrap_or(false)
    }
    async fn approve_project_settings(&self, settings: &UntrustedSettings) -> bool {
        let mut script = self.lock();
        script.asked.push(Asked::ProjectSettings {
            file: settings.file.clone(),
            items: settings.items(),
        });
        script.project_settings.pop_front().unwrap_or(false)
    }
    fn notice(&self, text: &str) {
        self.lock().asked.push(Asked::Notice(text.to_owned()));
    }
    async fn approve_skill(&self, skill: &SkillApproval) -> bool {
        let mut script = self.lock();
        script.asked.push(Asked::Skill(skill.name.clone()));
        script.skills.pop_front().unwrap_or(false)
    }
    fn can_elicit(&self) -> bool {
        true
    }
    async fn elicit(&self, request: &Elicitation) -> ElicitAnswer {
        let mut script = self.lock();
        let (fields, url) = match &request.kind {
            ElicitationKind::Form { fields } => {
                (fields.iter().map(|f| f.name.clone()).collect(), None)
            }
            ElicitationKind::Url { url, .. } => (Vec::new(), Some(url.clone())),
            _ => (Vec::new(), None),
        };
        script.asked.push(Asked::Elicitation {
            server: request.server.clone(),
            message: request.message.clone(),
            fields,
            url,
        });
        script
            .elicitations
            .pop_front()
            .unwrap_or(ElicitAnswer::Decline)
    }
}
