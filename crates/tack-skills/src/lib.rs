//! Agent Skills for tack: procedures the model loads when it needs them.
//!
//! A skill is a folder with a `SKILL.md` (YAML frontmatter with `name` and
//! `description`, then instructions) and optional `scripts/`,
//! `references/`, `assets/`. It tells the model how to use its tools for a
//! kind of task; it grants nothing. Only the catalog (name, description,
//! where it lives) is in context until the model loads a skill with the
//! `Skill` tool.
//!
//! - [`discover`]: finding `*/SKILL.md` in the managed, user and project
//!   folders, in Claude Code's precedence, with shadowing reported;
//! - [`frontmatter`]: lenient reading for use, strict checking for
//!   `tack skills check`;
//! - [`catalog`]: the listing within a token budget;
//! - [`tool`]: the `Skill` tool;
//! - [`remote`]: skills whose files come from elsewhere (MCP servers).

pub mod catalog;
pub mod discover;
pub mod frontmatter;
pub mod remote;
pub mod tool;

pub use catalog::{Catalog, estimate_tokens};
pub use discover::{Discovery, Places, Scope, Shadowed, Skill, Skipped, Source, discover};
pub use remote::{Fetch, Fetched, RemoteSkills};
pub use tool::{SkillTool, Trust, TrustAll};

/// A session's skills: what was found and the catalog the model sees.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    pub discovery: Discovery,
    pub catalog: Catalog,
}

impl SkillSet {
    /// The catalog of `discovery`'s model-invocable skills within `budget`
    /// tokens; `where_of` gives each skill's short location.
    pub fn new(discovery: Discovery, budget: usize, where_of: &dyn Fn(&Skill) -> String) -> Self {
        Self::offering(discovery, budget, where_of, &|_| true)
    }

    /// The same, offering the model only the skills `offered` keeps (e.g.
    /// not those a deny rule refuses: they would only waste context).
    pub fn offering(
        discovery: Discovery,
        budget: usize,
        where_of: &dyn Fn(&Skill) -> String,
        offered: &dyn Fn(&Skill) -> bool,
    ) -> Self {
        let invocable: Vec<&Skill> = discovery
            .skills
            .iter()
            .filter(|s| s.model_invocable() && offered(s))
            .collect();
        let catalog = catalog::build(&invocable, budget, where_of);
        Self { discovery, catalog }
    }

    /// The Skill tool, when the model has a skill to load (none: no tool).
    pub fn tool(&self, trust: std::sync::Arc<dyn Trust>, session_id: &str) -> Option<SkillTool> {
        (!self.catalog.names.is_empty()).then(|| {
            SkillTool::new(
                self.discovery.skills.clone(),
                &self.catalog,
                trust,
                session_id,
            )
        })
    }

    /// A skill by name (any, invocable or not).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.discovery.skills.iter().find(|s| s.name == name)
    }
}
