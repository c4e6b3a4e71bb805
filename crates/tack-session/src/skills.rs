//! Skills as a tool source: the `Skill` tool and its catalog, from the
//! skills folders of the machine, the user and the project, and from MCP
//! servers that offer skills.
//!
//! A project's skills (and any skill brought by a repository) are followed
//! as the user's own instructions, so each needs the user's trust before
//! its first use, bound to its `SKILL.md`'s digest (a changed skill asks
//! again): asked through the [`Interaction`], recorded in
//! `<state>/skill-approvals.json`, or given for one run by
//! `--trust-project-skills` (headless). `tack skills trust NAME` records it
//! ahead of time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tack_protocol::{ContentBlock, Message};
use tack_skills::{RemoteSkills, Skill, SkillSet, SkillTool, Trust, catalog};
use tack_tool::Tool;

use crate::error::Result;
use crate::interaction::{Interaction, SkillApproval};
use crate::project::ProjectContext;
use crate::sources::{SourceContext, SourcedTool, ToolSource};

/// How a session's skills are offered.
#[derive(Debug, Clone)]
pub struct SkillOptions {
    /// The catalog's budget in tokens; `None`: about 2% of the context
    /// window.
    pub budget: Option<usize>,
    /// The model's context window, for the default budget (`None`: 200k).
    pub context_window: Option<u64>,
    /// Trust the project's skills for this run without asking
    /// (`--trust-project-skills`; nothing is recorded).
    pub trust_project: bool,
    /// A skill loaded twice in one conversation is sent once (off for
    /// `tack mcp serve`, whose clients' conversations tack cannot see).
    pub dedupe: bool,
    /// Look for nested skills folders below the project root.
    pub nested: bool,
}

impl Default for SkillOptions {
    fn default() -> Self {
        Self {
            budget: None,
            context_window: None,
            trust_project: false,
            dedupe: true,
            nested: true,
        }
    }
}

impl SkillOptions {
    /// The catalog's budget in tokens.
    pub fn budget(&self) -> usize {
        self.budget.unwrap_or_else(|| {
            catalog::budget_for_window(
                self.context_window
                    .unwrap_or(tack_agent::context::DEFAULT_WINDOW_ANTHROPIC),
            )
        })
    }
}

/// The skills source.
pub struct Skills {
    options: SkillOptions,
    remote: Vec<Arc<dyn RemoteSkills>>,
    set: OnceLock<Arc<SkillSet>>,
    tool: OnceLock<Arc<SkillTool>>,
    /// The trust and the policy of the session, once loaded (for serving
    /// skill files as the session would let them be read).
    guard: OnceLock<(Arc<dyn Trust>, crate::sources::LivePolicy)>,
}

impl Skills {
    pub fn new(options: SkillOptions) -> Self {
        Self {
            options,
            remote: Vec::new(),
            set: OnceLock::new(),
            tool: OnceLock::new(),
            guard: OnceLock::new(),
        }
    }

    /// Adds skills from elsewhere (MCP servers); they join the catalog
    /// after the disk's, named `server:name`.
    pub fn with_remote(mut self, remote: Arc<dyn RemoteSkills>) -> Self {
        self.remote.push(remote);
        self
    }

    /// What was found and the catalog, once loaded.
    pub fn set(&self) -> Option<Arc<SkillSet>> {
        self.set.get().cloned()
    }

    /// The user's trust in project skills as the Skill tool checks it, once
    /// loaded (`tack mcp serve` serves only the skills it trusts).
    pub fn trust(&self) -> Option<Arc<dyn Trust>> {
        self.guard.get().map(|(trust, _)| Arc::clone(trust))
    }

    /// Whether the session's rules would let the model Read a file (a deny
    /// or ask rule of Read refuses it, read from the live policy each
    /// time), once loaded: what `tack mcp serve` serves of a skill's files.
    pub fn read_check(&self) -> Option<tack_mcp::server::ReadCheck> {
        let policy = Arc::clone(&self.guard.get()?.1);
        Some(Arc::new(move |path: &Path| {
            let policy = policy.read().unwrap_or_else(|p| p.into_inner());
            if tack_policy::may_show_found(&policy, "Read", path) {
                Ok(())
            } else {
                Err(format!(
                    "the session's permission rules do not let {} be read \
                     (a deny or ask rule of Read names it)",
                    path.display()
                ))
            }
        }))
    }

    /// Finds the skills of `project` (and of the remote sources): what
    /// `load` does, without making the tool.
    pub async fn find(&self, project: &ProjectContext) -> SkillSet {
        self.find_offering(project, &|_| true).await
    }

    async fn find_offering(
        &self,
        project: &ProjectContext,
        offered: &(dyn Fn(&Skill) -> bool + Sync),
    ) -> SkillSet {
        let mut places = project.skill_places();
        places.nested = self.options.nested;
        let mut discovery = blocking(|| tack_skills::discover(&places));
        for remote in &self.remote {
            let (skills, notices) = remote.skills().await;
            discovery.add(skills);
            discovery.notes.extend(notices);
        }
        let root = project.project_root.clone();
        let home = project.home();
        SkillSet::offering(
            discovery,
            self.options.budget(),
            &|s| catalog::short_location(s, Some(&root), home.as_deref()),
            offered,
        )
    }
}

/// Runs `f` where blocking is allowed (a multi-thread runtime's worker
/// hands its other tasks away first), or just runs it.
fn blocking<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

#[async_trait]
impl ToolSource for Skills {
    fn name(&self) -> &str {
        "skills"
    }

    async fn load(&self, cx: &SourceContext<'_>) -> Result<Vec<SourcedTool>> {
        // A skill every call of which a deny rule refuses is not offered.
        let policy = cx.policy;
        let cwd = &cx.project.cwd;
        let allowed = |s: &Skill| {
            let input = serde_json::json!({ "skill": s.name });
            let request =
                tack_policy::Request::lexical(tack_skills::tool::NAME, &input, cwd, policy);
            !tack_policy::evaluate(&request, policy).is_deny()
        };
        let set = Arc::new(self.find_offering(cx.project, &allowed).await);
        for notice in set.discovery.notices() {
            cx.interaction.notice(&notice);
        }
        let trust = Arc::new(ProjectTrust {
            state_dir: cx.project.state_dir.clone(),
            interaction: Arc::clone(cx.interaction),
            trust_all: self.options.trust_project,
        });
        let _ = self.guard.set((
            Arc::clone(&trust) as Arc<dyn Trust>,
            Arc::clone(cx.live_policy),
        ));
        let tool = set.tool(trust, cx.session_id).map(|t| {
            if self.options.dedupe {
                t
            } else {
                t.without_dedupe()
            }
        });
        let _ = self.set.set(Arc::clone(&set));
        let Some(tool) = tool else {
            return Ok(Vec::new());
        };
        let tool = Arc::new(tool);
        let _ = self.tool.set(Arc::clone(&tool));
        Ok(vec![SourcedTool::direct(tool)])
    }

    fn conversation_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tool
            .get()
            .map(|t| vec![Arc::new(t.fresh()) as Arc<dyn Tool>])
            .unwrap_or_default()
    }

    fn resumed(&self, messages: &[Message]) {
        if let Some(tool) = self.tool.get() {
            tool.mark_loaded(loaded_skills(messages));
        }
    }
}

/// The skills a conversation loaded: each Skill call answered without an
/// error (name → call id).
pub fn loaded_skills(messages: &[Message]) -> Vec<(String, String)> {
    let mut ok = std::collections::HashSet::new();
    for message in messages {
        for block in &message.content {
            if let ContentBlock::ToolResult(r) = block
                && !r.is_error
            {
                ok.insert(r.tool_use_id.clone());
            }
        }
    }
    messages
        .iter()
        .flat_map(|m| m.tool_uses())
        .filter(|c| c.name == tack_skills::tool::NAME && ok.contains(&c.id))
        .filter_map(|c| {
            let name = c.input.get("skill")?.as_str()?;
            Some((name.trim_start_matches('/').to_owned(), c.id.clone()))
        })
        .collect()
}

/// The user's trust in skills a repository brought.
struct ProjectTrust {
    state_dir: PathBuf,
    interaction: Arc<dyn Interaction>,
    trust_all: bool,
}

#[async_trait]
impl Trust for ProjectTrust {
    async fn check(&self, skill: &Skill, digest: &str) -> std::result::Result<(), String> {
        if self.trust_all {
            return Ok(());
        }
        let location = skill.location();
        let approvals = SkillApprovals::load(&self.state_dir);
        if approvals.trusts(&location, digest) {
            return Ok(());
        }
        let changed = approvals.skills.contains_key(&location);
        if self.interaction.can_ask() {
            let request = SkillApproval {
                name: skill.name.clone(),
                location: location.clone(),
                description: skill.description.clone(),
                allowed_tools: skill.frontmatter.allowed_tools.clone(),
            };
            if self.interaction.approve_skill(&request).await {
                if let Err(e) = SkillApprovals::record(&self.state_dir, &location, digest) {
                    self.interaction
                        .notice(&format!("the skill's trust could not be recorded: {e}"));
                }
                return Ok(());
            }
            return Err(format!(
                "the user did not trust the project skill {} ({location}); do the task without it",
                skill.name
            ));
        }
        Err(format!(
            "the project skill {} ({location}) {} the user's trust, and nobody can be asked in this run. A person can trust it with `tack skills trust {}` (or run tack with --trust-project-skills); until then, do the task without it",
            skill.name,
            if changed {
                "changed since it was trusted and needs"
            } else {
                "needs"
            },
            skill.name
        ))
    }
}

/// `<state>/skill-approvals.json`: the skills the user trusts, each bound
/// to the digest of its `SKILL.md` as trusted.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SkillApprovals {
    /// Location (the `SKILL.md` path) → `sha256:…`.
    #[serde(default)]
    pub skills: BTreeMap<String, String>,
}

impl SkillApprovals {
    fn path(state_dir: &Path) -> PathBuf {
        state_dir.join("skill-approvals.json")
    }

    /// The recorded approvals (none when the file is missing or unreadable).
    pub fn load(state_dir: &Path) -> Self {
        std::fs::read(Self::path(state_dir))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Whether the skill at `location` is trusted as it is (`digest`).
    pub fn trusts(&self, location: &str, digest: &str) -> bool {
        self.skills.get(location).is_some_and(|d| d == digest)
    }

    /// Records the trust of the skill at `location` as it is now.
    pub fn record(state_dir: &Path, location: &str, digest: &str) -> std::io::Result<()> {
        let mut approvals = Self::load(state_dir);
        approvals
            .skills
            .insert(location.to_owned(), digest.to_owned());
        std::fs::create_dir_all(state_dir)?;
        let path = Self::path(state_dir);
        let tmp = path.with_extension("json.tmp");
        let json = serde_json::to_vec_pretty(&approvals).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, json)?;
        std::fs::rename(&tmp, &path)
    }

    /// Trusts `skill` as it is on disk now.
    pub fn trust(state_dir: &Path, skill: &Skill) -> std::io::Result<()> {
        let digest = match &skill.source {
            tack_skills::Source::Local { file, .. } => {
                tack_skills::discover::digest(&std::fs::read(file)?)
            }
            tack_skills::Source::Remote { .. } => skill.digest.clone(),
        };
        Self::record(state_dir, &skill.location(), &digest)
    }
}
