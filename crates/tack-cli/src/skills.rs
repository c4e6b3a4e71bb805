//! `tack skills list|show|check|trust`: the Agent Skills found here, one
//! skill in full, strict validation of `SKILL.md` files, and the user's
//! trust of project skills.
//!
//! The skills are found as a session finds them (`Skills::find`: managed,
//! user and project folders, nested ones included, the same budget), so the
//! catalog `list` shows is the one the model would get. No MCP server is
//! started: skills offered by servers are not listed here.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use serde::Serialize;
use serde_json::{Value, json};
use tack_session::ProjectContext;
use tack_session::skills::{SkillApprovals, SkillOptions, Skills};
use tack_skills::discover::{Discovery, MAX_SKILL_MD_BYTES};
use tack_skills::frontmatter::{self, Problem, ProblemClass};
use tack_skills::{Catalog, Scope, Skill, SkillSet, Source, catalog, estimate_tokens};

use crate::cli::{SkillsArgs, SkillsCommand};
use crate::out::outln;
use crate::{Failure, exit};

pub async fn run(args: SkillsArgs) -> Result<u8, Failure> {
    let cwd = args.cwd.as_deref();
    match args.command {
        SkillsCommand::List { context_window } => list(cwd, context_window, args.json).await,
        SkillsCommand::Show { name } => show(cwd, &name, args.json).await,
        SkillsCommand::Check {
            path,
            context_window,
        } => check(cwd, path.as_deref(), context_window, args.json).await,
        SkillsCommand::Trust { name, all } => trust(cwd, name.as_deref(), all, args.json).await,
    }
}

/// The skills of a directory, found as a session finds them.
struct Here {
    ctx: ProjectContext,
    set: SkillSet,
    approvals: SkillApprovals,
    window: u64,
}

impl Here {
    async fn load(cwd: Option<&Path>, context_window: Option<u64>) -> Result<Self, Failure> {
        let ctx = crate::project(cwd, &Default::default())?;
        let window = context_window.unwrap_or(tack_agent::context::DEFAULT_WINDOW_ANTHROPIC);
        let options = SkillOptions {
            context_window: Some(window),
            ..Default::default()
        };
        let set = Skills::new(options).find(&ctx).await;
        let approvals = SkillApprovals::load(&ctx.state_dir);
        Ok(Self {
            ctx,
            set,
            approvals,
            window,
        })
    }

    /// Where a skill lives, shortly, without its scope: `.claude/skills/pdf`,
    /// `~/.claude/skills/pdf`.
    fn short(&self, skill: &Skill) -> String {
        let home = self.ctx.home();
        let text = catalog::short_location(skill, Some(&self.ctx.project_root), home.as_deref());
        let scope = format!("{} ", skill.scope.as_str());
        text.strip_prefix(&scope).unwrap_or(&text).to_owned()
    }

    fn trust(&self, skill: &Skill) -> Option<TrustState> {
        TrustState::of(skill, &self.approvals)
    }

    /// The skill called `name`, or exit 10 with the closest names.
    fn get(&self, name: &str) -> Result<&Skill, Failure> {
        self.set.get(name).ok_or_else(|| not_found(&self.set, name))
    }
}

/// Whether the user trusts a project skill as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum TrustState {
    Trusted,
    NotTrusted,
    /// Trusted once; its `SKILL.md` changed since.
    Changed,
}

impl TrustState {
    /// `None`: not a project skill (it needs no trust).
    fn of(skill: &Skill, approvals: &SkillApprovals) -> Option<Self> {
        if skill.scope != Scope::Project {
            return None;
        }
        Some(match approvals.skills.get(&skill.location()) {
            None => TrustState::NotTrusted,
            Some(d) if *d == skill.digest => TrustState::Trusted,
            Some(_) => TrustState::Changed,
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            TrustState::Trusted => "trusted",
            TrustState::NotTrusted => "not trusted",
            TrustState::Changed => "changed since trusted",
        }
    }
}

/// A skill's place in the catalog.
#[derive(Debug, Clone, Copy, Serialize)]
struct InCatalog {
    /// Tokens of its line as listed; `None` when it is not listed.
    tokens: Option<usize>,
    listed: bool,
    /// Left out to keep the catalog within its budget.
    left_out: bool,
    /// Its description was shortened to fit.
    shortened: bool,
}

impl InCatalog {
    fn of(skill: &Skill, catalog: &Catalog) -> Self {
        let listed = catalog.listed.iter().find(|(n, _, _)| *n == skill.name);
        Self {
            tokens: listed.map(|(_, tokens, _)| *tokens),
            listed: listed.is_some(),
            left_out: catalog.left_out.contains(&skill.name),
            shortened: listed.is_some_and(|(_, _, shortened)| *shortened),
        }
    }

    /// Why it is not listed, or that it was shortened.
    fn note(&self, skill: &Skill) -> Option<&'static str> {
        if !skill.model_invocable() {
            Some("disable-model-invocation: not in the catalog")
        } else if self.left_out {
            Some("left out (budget)")
        } else if self.shortened {
            Some("description shortened (budget)")
        } else {
            None
        }
    }

    fn tokens_text(&self) -> String {
        self.tokens
            .map_or_else(|| "—".to_owned(), |t| t.to_string())
    }
}

// ---------------------------------------------------------------- list

async fn list(cwd: Option<&Path>, context_window: Option<u64>, json: bool) -> Result<u8, Failure> {
    let here = Here::load(cwd, context_window).await?;
    if json {
        outln!("{}", list_json(&here));
    } else {
        print_list(&here);
    }
    Ok(exit::OK)
}

/// `tack skills list --json`: the skills, the shadowed and skipped ones,
/// and the catalog.
fn list_json(here: &Here) -> Value {
    let discovery = &here.set.discovery;
    let catalog = &here.set.catalog;
    let skills: Vec<Value> = discovery
        .skills
        .iter()
        .map(|s| {
            let place = InCatalog::of(s, catalog);
            json!({
                "name": s.name,
                "description": s.description,
                "scope": s.scope,
                "location": s.location(),
                "short_location": here.short(s),
                "model_invocable": s.model_invocable(),
                "user_invocable": s.frontmatter.user_invocable,
                "tokens": place.tokens,
                "listed": place.listed,
                "left_out": place.left_out,
                "shortened": place.shortened,
                "trust": here.trust(s),
                "warnings": s.warnings,
            })
        })
        .collect();
    json!({
        "skills": skills,
        "shadowed": discovery.shadowed,
        "skipped": skipped_json(discovery),
        "notes": discovery.notes,
        "catalog": catalog_json(catalog, here.window),
    })
}

/// The table of skills, then the shadowed ones with both paths, the catalog
/// against its budget, the skipped files and the warnings.
fn print_list(here: &Here) {
    let discovery = &here.set.discovery;
    let catalog = &here.set.catalog;
    if discovery.skills.is_empty() && discovery.skipped.is_empty() {
        print_places("no skills here", &here.ctx);
        return;
    }
    let rows: Vec<[String; 5]> = discovery
        .skills
        .iter()
        .map(|s| {
            let place = InCatalog::of(s, catalog);
            let notes: Vec<&str> = here
                .trust(s)
                .map(TrustState::as_str)
                .into_iter()
                .chain(place.note(s))
                .collect();
            [
                s.name.clone(),
                s.scope.as_str().to_owned(),
                place.tokens_text(),
                here.short(s),
                notes.join(", "),
            ]
        })
        .collect();
    let width = |i: usize, title: &str| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([title.len()])
            .max()
            .unwrap_or(0)
    };
    let (name_w, scope_w, loc_w) = (width(0, "NAME"), width(1, "SCOPE"), width(3, "LOCATION"));
    let line = |cells: [&str; 5]| {
        let text = format!(
            "{:<name_w$}  {:<scope_w$}  {:>6}  {:<loc_w$}  {}",
            cells[0], cells[1], cells[2], cells[3], cells[4]
        );
        text.trim_end().to_owned()
    };
    if !rows.is_empty() {
        outln!("{}", line(["NAME", "SCOPE", "TOKENS", "LOCATION", "NOTES"]));
    }
    for r in &rows {
        outln!("{}", line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    if !discovery.shadowed.is_empty() {
        outln!();
        outln!("shadowed (a stronger skill of the same name is used instead):");
        for s in &discovery.shadowed {
            let kept_scope = here
                .set
                .get(&s.name)
                .map(|k| format!(" ({})", k.scope.as_str()))
                .unwrap_or_default();
            outln!("  {}  {}", s.name, s.hidden);
            outln!(
                "  {:w$}  hidden by {}{kept_scope}",
                "",
                s.kept,
                w = s.name.chars().count()
            );
        }
    }
    outln!();
    outln!("{}", catalog_summary(catalog, here.window));
    if discovery
        .skills
        .iter()
        .any(|s| here.trust(s).is_some_and(|t| t != TrustState::Trusted))
    {
        outln!(
            "a project skill is loaded only once you trust it: `tack skills trust NAME` (or --all) trusts it as it is now"
        );
    }
    if !discovery.skipped.is_empty() {
        outln!("skipped (not loaded):");
        for s in &discovery.skipped {
            outln!("  {}", s.problem.at(&s.file));
        }
    }
    let warnings: Vec<&String> = discovery.skills.iter().flat_map(|s| &s.warnings).collect();
    if !warnings.is_empty() {
        outln!("warnings (loaded anyway; `tack skills check` is strict):");
        for w in warnings {
            outln!("  {w}");
        }
    }
    for note in &discovery.notes {
        outln!("note: {note}");
    }
}

/// `WHAT; looked in (strongest first):` and every skills folder of `ctx`.
fn print_places(what: &str, ctx: &ProjectContext) {
    outln!("{what}; looked in (strongest first):");
    let (roots, _) = ctx.skill_places().roots();
    for root in roots {
        outln!("  {:<8} {}", root.scope.as_str(), root.dir.display());
    }
}

/// `catalog: 412 of 4000 tokens (2% of a 200000-token window); 5 listed, …`.
fn catalog_summary(catalog: &Catalog, window: u64) -> String {
    let mut text = format!(
        "catalog: {} of {} tokens (2% of a {window}-token context window); {} skill{} listed, {} description{} shortened",
        catalog.tokens,
        catalog.budget,
        catalog.names.len(),
        plural(catalog.names.len()),
        catalog.shortened,
        plural(catalog.shortened),
    );
    if !catalog.left_out.is_empty() {
        const NAMED: usize = 5;
        let mut names = catalog.left_out[..catalog.left_out.len().min(NAMED)].join(", ");
        if catalog.left_out.len() > NAMED {
            names.push_str(&format!(" and {} more", catalog.left_out.len() - NAMED));
        }
        text.push_str(&format!(
            ", {} left out (budget): {names}",
            catalog.left_out.len()
        ));
    }
    text
}

fn catalog_json(catalog: &Catalog, window: u64) -> Value {
    json!({
        "tokens": catalog.tokens,
        "budget": catalog.budget,
        "context_window": window,
        "listed": catalog.names,
        "shortened": catalog.shortened,
        "left_out": catalog.left_out,
    })
}

fn skipped_json(discovery: &Discovery) -> Vec<Value> {
    discovery
        .skipped
        .iter()
        .map(|s| problem_json(&s.file, &s.problem))
        .collect()
}

fn problem_json(file: &Path, p: &Problem) -> Value {
    json!({
        "file": file.display().to_string(),
        "line": p.line,
        "class": p.class.as_str(),
        "message": p.message,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

// ---------------------------------------------------------------- show

/// The frontmatter keys tack reads, in the order `show` prints them: the
/// spec's, then Claude Code's.
fn shown_keys() -> impl Iterator<Item = &'static str> {
    frontmatter::SPEC_KEYS
        .iter()
        .chain(frontmatter::CLAUDE_CODE_KEYS)
        .copied()
}

async fn show(cwd: Option<&Path>, name: &str, json: bool) -> Result<u8, Failure> {
    let here = Here::load(cwd, None).await?;
    let skill = here.get(name)?;
    let (dir, file) = match &skill.source {
        Source::Local { dir, file } => (dir.clone(), file.clone()),
        Source::Remote { server, .. } => {
            return Err(Failure::internal(anyhow!(
                "the skill {name} comes from the MCP server {server}, which this command does not start"
            )));
        }
    };
    let text = std::fs::read(&file)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| Failure::internal(anyhow!("{}: cannot be read now: {e}", file.display())))?;
    let body = match frontmatter::parse(&text, &skill.folder) {
        Ok(parsed) => parsed.body,
        Err(p) => {
            return Err(Failure::internal(anyhow!(
                "{} changed since it was found and cannot be read as a skill now",
                p.at(&file)
            )));
        }
    };
    let files = tack_skills::tool::list_files(&dir);
    let place = InCatalog::of(skill, &here.set.catalog);
    let trust = here.trust(skill);
    let hidden: Vec<&str> = here
        .set
        .discovery
        .shadowed
        .iter()
        .filter(|s| s.name == skill.name)
        .map(|s| s.hidden.as_str())
        .collect();
    let f = &skill.frontmatter;
    if json {
        outln!(
            "{}",
            json!({
                "name": skill.name,
                "description": skill.description,
                "scope": skill.scope,
                "location": skill.location(),
                "dir": dir.display().to_string(),
                "digest": skill.digest,
                "trust": trust,
                "catalog": place,
                "model_invocable": skill.model_invocable(),
                "user_invocable": f.user_invocable,
                "allowed_tools": f.allowed_tools,
                "paths": f.paths,
                "frontmatter": f.raw,
                "files": files,
                "body": body,
                "warnings": skill.warnings,
                "shadows": hidden,
            })
        );
        return Ok(exit::OK);
    }
    outln!("{} ({} skill)", skill.name, skill.scope.as_str());
    outln!("  location: {}", skill.location());
    if let Some(t) = trust {
        let hint = match t {
            TrustState::Trusted => String::new(),
            _ => format!(
                ": a session asks you before the model loads it (a run without a terminal refuses it); `tack skills trust {}` trusts it as it is now",
                skill.name
            ),
        };
        outln!("  trust: {}{hint}", t.as_str());
    }
    let catalog_text = match (place.tokens, place.note(skill)) {
        (Some(t), None) => format!("listed, {t} tokens"),
        (Some(t), Some(note)) => format!("listed, {t} tokens ({note})"),
        (None, Some(note)) => format!("not listed: {note}"),
        (None, None) => "not listed".to_owned(),
    };
    outln!("  catalog: {catalog_text}");
    for h in &hidden {
        outln!("  shadows: {h}");
    }
    for w in &skill.warnings {
        outln!("  warning: {w}");
    }
    outln!();
    outln!("frontmatter:");
    for key in shown_keys() {
        outln!("  {key}: {}", field_text(skill, key));
    }
    for (key, value) in &f.raw {
        if !shown_keys().any(|k| k == key) {
            outln!("  {key}: {} (unknown to tack)", value_text(value));
        }
    }
    outln!();
    if files.is_empty() {
        outln!("files: none besides SKILL.md ({})", dir.display());
    } else {
        outln!("files ({}), in {}:", files.len(), dir.display());
        for file in &files {
            outln!("  {file}");
        }
    }
    outln!();
    outln!(
        "instructions (~{} tokens, sent when the model loads the skill):",
        estimate_tokens(&body)
    );
    outln!("{}", body.trim_end());
    Ok(exit::OK)
}

/// A frontmatter field as `show` prints it: the value tack uses, `—` when
/// not set.
fn field_text(skill: &Skill, key: &str) -> String {
    let f = &skill.frontmatter;
    let or_dash = |v: Option<&String>| v.cloned().unwrap_or_else(|| "—".to_owned());
    match key {
        "name" => skill.name.clone(),
        "description" => skill.description.clone(),
        "license" => or_dash(f.license.as_ref()),
        "compatibility" => or_dash(f.compatibility.as_ref()),
        "argument-hint" => or_dash(f.argument_hint.as_ref()),
        "model" => or_dash(f.model.as_ref()),
        "context" => or_dash(f.context.as_ref()),
        "metadata" if f.metadata.is_empty() => "—".to_owned(),
        "metadata" => f
            .metadata
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        "allowed-tools" if f.allowed_tools.is_empty() => "—".to_owned(),
        "allowed-tools" => format!(
            "{} (shown to the model and recorded in the audit; grants nothing)",
            f.allowed_tools.join(" ")
        ),
        "disable-model-invocation" if f.disable_model_invocation => {
            "true (kept out of the model's catalog)".to_owned()
        }
        "disable-model-invocation" => "false".to_owned(),
        "user-invocable" => f.user_invocable.to_string(),
        "hooks" => f.hooks.as_ref().map_or_else(|| "—".to_owned(), value_text),
        "paths" if f.paths.is_empty() => "—".to_owned(),
        "paths" => f.paths.join(", "),
        other => f.raw.get(other).map_or_else(|| "—".to_owned(), value_text),
    }
}

/// A YAML value as text: a string as it is, anything else as JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Exit 10: no skill of that name, with the closest names (and the
/// `SKILL.md` of that folder that was skipped, if one was).
fn not_found(set: &SkillSet, name: &str) -> Failure {
    let skipped = set.discovery.skipped.iter().find(|s| {
        s.file
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|f| f == name)
    });
    let message = if let Some(s) = skipped {
        format!(
            "the skill {name} was not loaded: {} (`tack skills check` lists every problem)",
            s.problem.at(&s.file)
        )
    } else {
        let names: Vec<&str> = set
            .discovery
            .skills
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        let close = closest_names(name, &names);
        let hint = if names.is_empty() {
            "no skills were found here (`tack skills list` shows where it looked)".to_owned()
        } else if close.is_empty() {
            format!(
                "`tack skills list` shows the {} skill{} found here",
                names.len(),
                plural(names.len())
            )
        } else {
            format!(
                "did you mean {}? (`tack skills list` shows them all)",
                close.join(", ")
            )
        };
        format!("no skill named {name:?} here; {hint}")
    };
    Failure {
        code: exit::NOT_FOUND,
        error: anyhow!(message),
    }
}

/// Up to three names close to `name`: a small edit away, or containing it.
fn closest_names<'a>(name: &str, names: &[&'a str]) -> Vec<&'a str> {
    let wanted = name.to_lowercase();
    let limit = (wanted.chars().count() / 3).clamp(1, 3);
    let mut close: Vec<(usize, &str)> = names
        .iter()
        .filter_map(|n| {
            let d = strsim::levenshtein(&wanted, &n.to_lowercase());
            let related = wanted.chars().count() >= 3
                && n.chars().count() >= 3
                && (n.contains(&wanted) || wanted.contains(*n));
            (d <= limit || related).then_some((d, *n))
        })
        .collect();
    close.sort();
    close.into_iter().take(3).map(|(_, n)| n).collect()
}

// ---------------------------------------------------------------- check

/// One `SKILL.md` to check and the name of its folder.
struct Target {
    file: PathBuf,
    folder: String,
    /// A problem found before its text is read (no `SKILL.md` in a folder).
    missing: Option<Problem>,
}

impl Target {
    fn of_file(file: PathBuf) -> Self {
        let folder = file
            .parent()
            .and_then(Path::file_name)
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self {
            file,
            folder,
            missing: None,
        }
    }
}

/// What checking one file found.
struct Checked {
    file: PathBuf,
    problems: Vec<Problem>,
}

async fn check(
    cwd: Option<&Path>,
    path: Option<&Path>,
    context_window: Option<u64>,
    json: bool,
) -> Result<u8, Failure> {
    let window = context_window.unwrap_or(tack_agent::context::DEFAULT_WINDOW_ANTHROPIC);
    let (targets, set, warnings) = match path {
        None => {
            let here = Here::load(cwd, context_window).await?;
            let targets = discovered_targets(&here.set.discovery);
            if targets.is_empty() && !json {
                print_places("no skills here to check", &here.ctx);
                return Ok(exit::OK);
            }
            let mut warnings: Vec<String> = here
                .set
                .discovery
                .shadowed
                .iter()
                .map(|s| {
                    format!(
                        "skill {} at {} is shadowed by the one at {}, which is used",
                        s.name, s.hidden, s.kept
                    )
                })
                .collect();
            warnings.extend(here.set.discovery.notes.iter().cloned());
            (targets, here.set, warnings)
        }
        Some(path) => {
            let targets = path_targets(path)?;
            // The project gives short locations for the catalog's lines;
            // a project whose settings cannot be read does not stop a check.
            let ctx = ProjectContext::load(cwd, &Default::default()).ok();
            let set = catalog_of(&targets, ctx.as_ref(), window);
            let warnings = set
                .discovery
                .shadowed
                .iter()
                .map(|s| {
                    format!(
                        "two skills are named {}: {} and {}; discovery uses the first",
                        s.name, s.kept, s.hidden
                    )
                })
                .collect();
            (targets, set, warnings)
        }
    };
    let report = Report {
        checked: targets.into_iter().map(check_one).collect(),
        set,
        warnings,
        window,
    };
    if json {
        outln!("{}", report.json());
    } else {
        report.print();
    }
    Ok(report.exit_code())
}

/// What `tack skills check` found: each file's problems, and the catalog of
/// what was checked.
struct Report {
    checked: Vec<Checked>,
    set: SkillSet,
    warnings: Vec<String>,
    window: u64,
}

impl Report {
    const CLASSES: [ProblemClass; 3] = [
        ProblemClass::Unreadable,
        ProblemClass::Required,
        ProblemClass::Optional,
    ];

    fn problems(&self) -> impl Iterator<Item = &Problem> {
        self.checked.iter().flat_map(|c| &c.problems)
    }

    fn count(&self, class: ProblemClass) -> usize {
        self.problems().filter(|p| p.class == class).count()
    }

    fn valid(&self) -> usize {
        self.checked
            .iter()
            .filter(|c| c.problems.is_empty())
            .count()
    }

    /// The most severe class decides (unreadable > required > optional).
    fn exit_code(&self) -> u8 {
        match self.problems().map(|p| p.class).min() {
            None => exit::OK,
            Some(ProblemClass::Unreadable) => exit::SKILL_UNREADABLE,
            Some(ProblemClass::Required) => exit::SKILL_REQUIRED_FIELD,
            Some(ProblemClass::Optional) => exit::SKILL_OPTIONAL_FIELD,
        }
    }

    fn json(&self) -> Value {
        let catalog = &self.set.catalog;
        let files: Vec<Value> = self
            .checked
            .iter()
            .map(|c| {
                let problems: Vec<Value> = c
                    .problems
                    .iter()
                    .map(|p| problem_json(&c.file, p))
                    .collect();
                json!({
                    "file": c.file.display().to_string(),
                    "valid": c.problems.is_empty(),
                    "problems": problems,
                })
            })
            .collect();
        let per_skill: Vec<Value> = catalog
            .per_skill
            .iter()
            .map(|(name, full)| {
                let place = self.set.get(name).map(|s| InCatalog::of(s, catalog));
                json!({
                    "name": name,
                    "tokens": place.and_then(|p| p.tokens),
                    "full_line_tokens": full,
                    "listed": place.is_some_and(|p| p.listed),
                })
            })
            .collect();
        let mut catalog_value = catalog_json(catalog, self.window);
        if let Some(obj) = catalog_value.as_object_mut() {
            obj.insert("skills".into(), Value::Array(per_skill));
        }
        let counts: serde_json::Map<String, Value> = Self::CLASSES
            .iter()
            .map(|c| (c.as_str().replace('-', "_"), json!(self.count(*c))))
            .collect();
        json!({
            "files": files,
            "checked": self.checked.len(),
            "valid": self.valid(),
            "problems": counts,
            "warnings": self.warnings,
            "catalog": catalog_value,
            "exit_code": self.exit_code(),
        })
    }

    /// Each problem as `file:line: message`, the warnings, a summary, and
    /// the catalog's tokens, total and per skill.
    fn print(&self) {
        for c in &self.checked {
            for p in &c.problems {
                outln!("{}", p.at(&c.file));
            }
        }
        for w in &self.warnings {
            outln!("warning: {w}");
        }
        let (total, valid) = (self.checked.len(), self.valid());
        let mut summary = format!("checked {total} skill{}: ", plural(total));
        if valid == total {
            summary.push_str(if total == 1 { "valid" } else { "all valid" });
        } else {
            let by_class: Vec<String> = Self::CLASSES
                .iter()
                .map(|c| (c, self.count(*c)))
                .filter(|(_, n)| *n > 0)
                .map(|(c, n)| format!("{n} {}", c.as_str()))
                .collect();
            summary.push_str(&format!(
                "{valid} valid, {} with problems ({})",
                total - valid,
                by_class.join(", ")
            ));
        }
        outln!("{summary}");
        let catalog = &self.set.catalog;
        outln!("{}", catalog_summary(catalog, self.window));
        let name_w = self
            .set
            .discovery
            .skills
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(0);
        for (name, full) in &catalog.per_skill {
            let Some(skill) = self.set.get(name) else {
                continue;
            };
            let place = InCatalog::of(skill, catalog);
            let note = match place.note(skill) {
                Some(note) => format!("  {note}, {full} tokens in full"),
                None => String::new(),
            };
            outln!("  {name:<name_w$}  {:>6}{note}", place.tokens_text());
        }
        let hidden = self
            .set
            .discovery
            .skills
            .iter()
            .filter(|s| !s.model_invocable());
        for skill in hidden {
            outln!(
                "  {:<name_w$}  {:>6}  disable-model-invocation: not in the catalog",
                skill.name,
                "—"
            );
        }
    }
}

/// Every local `SKILL.md` discovery found: the skills in use, the skipped
/// ones and the shadowed ones.
fn discovered_targets(discovery: &Discovery) -> Vec<Target> {
    let mut targets: Vec<Target> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |file: PathBuf, folder: Option<&str>| {
        if seen.insert(file.clone()) {
            let mut target = Target::of_file(file);
            // A symbolic link's own name, as discovery compared it.
            if let Some(folder) = folder {
                target.folder = folder.to_owned();
            }
            targets.push(target);
        }
    };
    for skill in &discovery.skills {
        if let Source::Local { file, .. } = &skill.source {
            push(file.clone(), Some(&skill.folder));
        }
    }
    for s in &discovery.skipped {
        push(s.file.clone(), None);
    }
    for s in &discovery.shadowed {
        let file = PathBuf::from(&s.hidden);
        if file.is_file() {
            push(file, None);
        }
    }
    targets
}

/// What `tack skills check PATH` checks: a `SKILL.md`, a skill folder, or a
/// folder of skill folders. A PATH that does not exist is a usage error.
fn path_targets(path: &Path) -> Result<Vec<Target>, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| {
        Failure::usage(anyhow!(
            "{}: {}; give a skill folder, its SKILL.md, or a folder of skill folders",
            path.display(),
            if e.kind() == std::io::ErrorKind::NotFound {
                "no such file or folder".to_owned()
            } else {
                e.to_string()
            }
        ))
    })?;
    let path = absolute(path);
    if !meta.is_dir() {
        let mut target = Target::of_file(path.clone());
        let named = path
            .file_name()
            .is_some_and(|f| f == "SKILL.md" || f == "skill.md");
        if !named {
            target.missing = Some(Problem {
                class: ProblemClass::Unreadable,
                line: 1,
                message: "a skill's file must be named SKILL.md (discovery reads no other name)"
                    .to_owned(),
            });
        }
        return Ok(vec![target]);
    }
    if let Some(file) = skill_md(&path) {
        return Ok(vec![Target::of_file(file)]);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&path)
        .map_err(|e| Failure::usage(anyhow!("{}: cannot be read: {e}", path.display())))?
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name != "node_modules"
        })
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let skills: Vec<Option<PathBuf>> = dirs.iter().map(|d| skill_md(d)).collect();
    if skills.iter().all(Option::is_none) {
        // Neither a skill folder nor a folder of skills: a skill folder
        // without its SKILL.md.
        let mut target = Target::of_file(path.join("SKILL.md"));
        target.missing = Some(Problem {
            class: ProblemClass::Unreadable,
            line: 1,
            message: format!(
                "no SKILL.md in {} nor in any folder in it: a skill is a folder with a SKILL.md",
                path.display()
            ),
        });
        return Ok(vec![target]);
    }
    Ok(dirs
        .into_iter()
        .zip(skills)
        .map(|(dir, file)| match file {
            Some(file) => Target::of_file(file),
            None => {
                let mut target = Target::of_file(dir.join("SKILL.md"));
                target.missing = Some(Problem {
                    class: ProblemClass::Unreadable,
                    line: 1,
                    message:
                        "no SKILL.md in this folder, so it is not a skill (discovery skips it)"
                            .to_owned(),
                });
                target
            }
        })
        .collect())
}

/// `path` made absolute with `.` and `..` taken out, but not canonical: a
/// symbolic link to a skill folder keeps its own name, the one discovery
/// compares `name` with.
fn absolute(path: &Path) -> PathBuf {
    let full = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut out = PathBuf::new();
    for part in full.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The `SKILL.md` (or `skill.md`) of a folder, if it has one.
fn skill_md(dir: &Path) -> Option<PathBuf> {
    ["SKILL.md", "skill.md"]
        .iter()
        .map(|f| dir.join(f))
        .find(|f| f.is_file())
}

/// Checks one file strictly: its bytes, then its frontmatter.
fn check_one(target: Target) -> Checked {
    let Target {
        file,
        folder,
        missing,
    } = target;
    if let Some(problem) = missing {
        return Checked {
            file,
            problems: vec![problem],
        };
    }
    let unreadable = |message: String| Checked {
        problems: vec![Problem {
            class: ProblemClass::Unreadable,
            line: 1,
            message,
        }],
        file: file.clone(),
    };
    let size = match std::fs::metadata(&file) {
        Ok(m) => m.len(),
        Err(e) => return unreadable(format!("cannot be read: {e}")),
    };
    if size > MAX_SKILL_MD_BYTES {
        return unreadable(format!(
            "is {size} bytes; a SKILL.md over {MAX_SKILL_MD_BYTES} bytes is not read"
        ));
    }
    let bytes = match std::fs::read(&file) {
        Ok(b) => b,
        Err(e) => return unreadable(format!("cannot be read: {e}")),
    };
    let mut problems = Vec::new();
    if let Err(e) = std::str::from_utf8(&bytes) {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        problems.push(Problem {
            class: ProblemClass::Unreadable,
            line,
            message: "the file is not valid UTF-8".to_owned(),
        });
    }
    problems.extend(frontmatter::check(
        &String::from_utf8_lossy(&bytes),
        &folder,
    ));
    problems.sort_by_key(|p| (p.line, p.class));
    Checked { file, problems }
}

/// The catalog of the checked files that load (leniently, as a session
/// would), in the order given, within the budget of `window`.
fn catalog_of(targets: &[Target], ctx: Option<&ProjectContext>, window: u64) -> SkillSet {
    let root = ctx.map(|c| c.project_root.clone());
    let home = ctx
        .and_then(ProjectContext::home)
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
    let home = home.map(|h| std::fs::canonicalize(&h).unwrap_or(h));
    let mut discovery = Discovery::default();
    let mut skills = Vec::new();
    for t in targets.iter().filter(|t| t.missing.is_none()) {
        let Some(dir) = t.file.parent() else { continue };
        let scope = match &root {
            Some(root) if dir.starts_with(root) => Scope::Project,
            _ => Scope::User,
        };
        if let Ok(skill) = tack_skills::discover::read_skill(&t.file, dir, &t.folder, scope) {
            skills.push(skill);
        }
    }
    discovery.add(skills);
    SkillSet::new(
        discovery,
        catalog::budget_for_window(window),
        &|s: &Skill| catalog::short_location(s, root.as_deref(), home.as_deref()),
    )
}

// ---------------------------------------------------------------- trust

async fn trust(
    cwd: Option<&Path>,
    name: Option<&str>,
    all: bool,
    json: bool,
) -> Result<u8, Failure> {
    let here = Here::load(cwd, None).await?;
    let chosen: Vec<&Skill> = match name {
        Some(name) if !all => vec![here.get(name)?],
        _ => here
            .set
            .discovery
            .skills
            .iter()
            .filter(|s| s.scope == Scope::Project)
            .collect(),
    };
    let mut done: Vec<Value> = Vec::new();
    if chosen.is_empty() && !json {
        outln!("no project skills here: nothing to trust");
    }
    for skill in chosen {
        let Some(before) = here.trust(skill) else {
            if json {
                done.push(json!({
                    "name": skill.name,
                    "scope": skill.scope,
                    "location": skill.location(),
                    "trusted": false,
                    "reason": "only project skills need trust",
                }));
            } else {
                outln!(
                    "{} is a {} skill: it needs no trust (only project skills do)",
                    skill.name,
                    skill.scope.as_str()
                );
            }
            continue;
        };
        SkillApprovals::trust(&here.ctx.state_dir, skill).map_err(|e| {
            Failure::internal(anyhow!(
                "the trust of {} could not be recorded in {}: {e}",
                skill.name,
                here.ctx.state_dir.join("skill-approvals.json").display()
            ))
        })?;
        let digest = SkillApprovals::load(&here.ctx.state_dir)
            .skills
            .get(&skill.location())
            .cloned()
            .unwrap_or_default();
        if json {
            done.push(json!({
                "name": skill.name,
                "scope": skill.scope,
                "location": skill.location(),
                "trusted": true,
                "digest": digest,
                "before": before,
            }));
        } else {
            let was = match before {
                TrustState::Trusted => "it was trusted already",
                TrustState::NotTrusted => "it was not trusted",
                TrustState::Changed => "it had changed since you trusted it",
            };
            outln!(
                "trusted project skill {} ({}) as it is now ({}); {was}",
                skill.name,
                here.short(skill),
                short_digest(&digest)
            );
        }
    }
    if json {
        outln!("{}", Value::Array(done));
    }
    Ok(exit::OK)
}

/// `sha256:0123456789ab…`.
fn short_digest(digest: &str) -> String {
    let cut: String = digest.chars().take(19).collect();
    if cut.len() < digest.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_names_are_near_or_contain_the_name() {
        let names = ["pdf", "pdf-forms", "docx", "xlsx", "mcp-builder"];
        assert_eq!(closest_names("pdff", &names), vec!["pdf"]);
        assert_eq!(closest_names("form", &names), vec!["pdf-forms"]);
        assert_eq!(closest_names("builder", &names), vec!["mcp-builder"]);
        assert_eq!(closest_names("docs", &names), vec!["docx"]);
        assert!(closest_names("zzzzzz", &names).is_empty());
    }

    #[test]
    fn a_path_is_made_absolute_without_dots() {
        assert_eq!(absolute(Path::new("/a/b/../c/./d/")), Path::new("/a/c/d"));
        assert!(absolute(Path::new("x/../y")).ends_with("y"));
        assert!(absolute(Path::new("x/../y")).is_absolute());
    }

    #[test]
    fn a_digest_is_shown_short() {
        assert_eq!(
            short_digest("sha256:0123456789abcdef0123"),
            "sha256:0123456789ab…"
        );
        assert_eq!(short_digest("sha256:01"), "sha256:01");
    }
}
