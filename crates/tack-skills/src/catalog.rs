//! The catalog: each skill's name, description and where it lives, within a
//! token budget (by default about 2% of the model's context window).
//!
//! When everything does not fit, descriptions are shortened first (all to
//! the same length, at a word, no shorter than [`MIN_DESCRIPTION_CHARS`]);
//! if that is not enough, the weakest skills (listed last) are left out and
//! a note says how many and that `tack skills list` shows them.

use std::fmt::Write as _;

use crate::discover::{Scope, Skill, Source};

/// The share of the context window the catalog may take.
pub const DEFAULT_BUDGET_PERCENT: f64 = 2.0;
/// Descriptions are not shortened below this.
pub const MIN_DESCRIPTION_CHARS: usize = 60;
/// Bytes per token of the estimate (tack's uncalibrated figure, on the
/// high side of real tokenizers' token counts for prose).
pub const BYTES_PER_TOKEN: f64 = 3.5;

/// Tokens of `text`, estimated from its size.
pub fn estimate_tokens(text: &str) -> usize {
    (text.len() as f64 / BYTES_PER_TOKEN).ceil() as usize
}

/// The catalog's budget for a context window of `window` tokens.
pub fn budget_for_window(window: u64) -> usize {
    ((window as f64 * DEFAULT_BUDGET_PERCENT / 100.0) as usize).max(200)
}

/// The catalog as the model sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    /// The names listed (the Skill tool's enum), in order.
    pub names: Vec<String>,
    /// The listing: one line a skill, and a note when some were left out.
    pub text: String,
    /// Its estimated tokens.
    pub tokens: usize,
    /// Every skill's own line, before any shortening: (name, tokens).
    pub per_skill: Vec<(String, usize)>,
    /// Each listed skill as it is listed: (name, its line's tokens,
    /// whether its description was shortened).
    pub listed: Vec<(String, usize, bool)>,
    /// Descriptions shortened to fit.
    pub shortened: usize,
    /// Skills left out to fit.
    pub left_out: Vec<String>,
    pub budget: usize,
}

/// Where a skill lives, shortly: `project .claude/skills/pdf`, `user
/// ~/.claude/skills/pdf`, `mcp server docs`.
pub fn short_location(
    skill: &Skill,
    project_root: Option<&std::path::Path>,
    home: Option<&std::path::Path>,
) -> String {
    match &skill.source {
        Source::Local { dir, .. } => {
            let shown = match (skill.scope, project_root, home) {
                (Scope::Project, Some(root), _) if dir.starts_with(root) => dir
                    .strip_prefix(root)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                (_, _, Some(home)) if dir.starts_with(home) => format!(
                    "~/{}",
                    dir.strip_prefix(home)
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ),
                _ => dir.display().to_string(),
            };
            format!("{} {shown}", skill.scope.as_str())
        }
        Source::Remote { server, .. } => format!("mcp server {server}"),
    }
}

/// One skill's line: its folder is the group's, so it is not repeated.
fn line(name: &str, description: &str) -> String {
    format!("- {name}: {description}\n")
}

/// The group a skill is listed under: its location without its own folder
/// (`project .claude/skills`), else the whole location (`mcp server docs`).
fn group_of(location: &str, folder: &str) -> String {
    location
        .strip_suffix(folder)
        .and_then(|g| g.strip_suffix('/'))
        .filter(|_| !folder.is_empty())
        .unwrap_or(location)
        .to_owned()
}

/// `text` cut to at most `max` characters at a word, with "…".
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let at = cut
        .rfind(char::is_whitespace)
        .filter(|&i| i > max / 2)
        .unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end_matches([' ', ',', ';', ':', '.']))
}

/// Builds the catalog of `skills` (those the model may invoke, in order)
/// within `budget` tokens. `where_of` gives each skill's short location.
pub fn build(skills: &[&Skill], budget: usize, where_of: &dyn Fn(&Skill) -> String) -> Catalog {
    let entries: Vec<(String, String, String)> = skills
        .iter()
        .map(|s| {
            let group = group_of(&where_of(s), &s.folder);
            (s.name.clone(), one_line(&s.description), group)
        })
        .collect();
    let per_skill = entries
        .iter()
        .map(|(n, d, _)| (n.clone(), estimate_tokens(&line(n, d))))
        .collect();
    // The listing of the first `count` skills, descriptions cut to `max`
    // characters, and each skill's line: (name, tokens, shortened).
    let render = |count: usize, max: usize| -> (String, Vec<(String, usize, bool)>) {
        let mut text = String::new();
        let mut listed = Vec::with_capacity(count);
        let mut group: Option<&str> = None;
        for (n, d, g) in &entries[..count] {
            if group != Some(g.as_str()) {
                let _ = writeln!(text, "[{g}]");
                group = Some(g);
            }
            let short = shorten(d, max);
            let own = line(n, &short);
            listed.push((n.clone(), estimate_tokens(&own), short.len() != d.len()));
            text.push_str(&own);
        }
        if count < entries.len() {
            let _ = writeln!(
                text,
                "({} more skills are installed but not listed here, to keep this list within its context budget.)",
                entries.len() - count
            );
        }
        (text, listed)
    };
    let longest = entries
        .iter()
        .map(|(_, d, _)| d.chars().count())
        .max()
        .unwrap_or(0);
    let fits = |count: usize, max: usize| estimate_tokens(&render(count, max).0) <= budget;
    let mut count = entries.len();
    let mut max = longest;
    if !fits(count, max) {
        if fits(count, MIN_DESCRIPTION_CHARS) {
            // The longest descriptions that fit.
            max = largest(MIN_DESCRIPTION_CHARS, longest, |m| fits(count, m));
        } else {
            // The most skills that fit.
            max = MIN_DESCRIPTION_CHARS;
            count = largest(0, count, |c| fits(c, max));
        }
    }
    let (text, listed) = render(count, max);
    let shortened = listed.iter().filter(|(_, _, cut)| *cut).count();
    Catalog {
        names: entries[..count].iter().map(|(n, _, _)| n.clone()).collect(),
        tokens: estimate_tokens(&text),
        text,
        per_skill,
        listed,
        shortened,
        left_out: entries[count..].iter().map(|(n, _, _)| n.clone()).collect(),
        budget,
    }
}

/// The largest value in `lo..=hi` that `ok` accepts, for an `ok` that
/// accepts every value up to some point (`lo` when none is accepted): a
/// binary search, each try one render of the listing.
fn largest(mut lo: usize, mut hi: usize, ok: impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// A description on one line (white space runs become one space).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
