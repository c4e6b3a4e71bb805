//! Skills: discovery over 2,000 skill folders, the parse of one SKILL.md,
//! and the catalog's tokens for 10 and 100 realistic skills within the
//! default budget (2% of a 200,000-token window: 4,000 tokens).
//!
//! `cargo bench -p tack-skills --bench skills`. `TACK_BENCH_RUNS` (default
//! 30) warm runs per discovery case. Cold runs (the kernel's page, dentry
//! and inode caches dropped before each) need root and
//! `TACK_BENCH_DROP_CACHES=1`: dropping them slows every other process on
//! the machine for a moment, so it is never done by default.

#![allow(
    clippy::disallowed_types,
    clippy::disallowed_methods,
    reason = "runs sync(1) before dropping the caches"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tack_skills::catalog::{self, budget_for_window, estimate_tokens};
use tack_skills::frontmatter::{self, Frontmatter};
use tack_skills::{Places, Scope, Skill, SkillSet, Source, discover};

/// Skill folders in the big skills folder (discovery reads at most 2,000).
const SKILLS: usize = 2000;
/// Plain folders of the monorepo case: with the 41 folders above them,
/// just under the nested walk's limit of 1,000.
const FOLDERS: usize = 950;
/// The window of the default budget.
const WINDOW: u64 = 200_000;

/// Anthropic's public skills and a few more, described as their authors
/// describe them (name, description): 150 to 400 characters each.
const REALISTIC: &[(&str, &str)] = &[
    (
        "pdf",
        "Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging and splitting documents, and handling forms. Use when Claude needs to fill in a PDF form or programmatically process, generate, or analyze PDF documents at scale.",
    ),
    (
        "docx",
        "Comprehensive document creation, editing, and analysis with support for tracked changes, comments, formatting preservation, and text extraction. Use when working with professional documents (.docx files) for creating new documents, modifying or editing content, working with tracked changes, or adding comments.",
    ),
    (
        "xlsx",
        "Comprehensive spreadsheet creation, editing, and analysis with support for formulas, formatting, data analysis, and visualization. Use when working with spreadsheets (.xlsx, .xlsm, .csv, .tsv) to create new spreadsheets with formulas, read or analyze data, modify existing spreadsheets while preserving formulas, or recalculate formulas.",
    ),
    (
        "pptx",
        "Presentation creation, editing, and analysis. Use when working with presentations (.pptx files) for creating new presentations, modifying or editing content, working with layouts, adding comments or speaker notes, or any other presentation task.",
    ),
    (
        "canvas-design",
        "Create beautiful visual art in .png and .pdf documents using design philosophy. Use when the user asks to create a poster, piece of art, design, or other static piece. Create original visual designs, never copying existing artists' work, to avoid copyright violations.",
    ),
    (
        "mcp-builder",
        "Guide for creating high-quality MCP (Model Context Protocol) servers that enable LLMs to interact with external services through well-designed tools. Use when building MCP servers to integrate external APIs or services, whether in Python (FastMCP) or Node/TypeScript (MCP SDK).",
    ),
    (
        "webapp-testing",
        "Toolkit for interacting with and testing local web applications using Playwright. Supports verifying frontend functionality, debugging UI behavior, capturing browser screenshots, and viewing browser logs. Use when asked to test a web app running on localhost.",
    ),
    (
        "skill-creator",
        "Guide for creating effective skills. Use when users want to create a new skill (or update an existing skill) that extends Claude's capabilities with specialized knowledge, workflows, or tool integrations, including scripts, references and assets bundled with it.",
    ),
    (
        "algorithmic-art",
        "Creating algorithmic art using p5.js with seeded randomness and interactive parameter exploration. Use when users request creating art using code, generative art, algorithmic art, flow fields, or particle systems. Create original algorithmic art rather than copying existing artists' work.",
    ),
    (
        "brand-guidelines",
        "Applies the company's official brand colors and typography to any sort of artifact that may benefit from its look-and-feel. Use when brand colors or style guidelines, visual formatting, or company design standards apply to slides, documents or web pages.",
    ),
    (
        "internal-comms",
        "A set of resources to help write all kinds of internal communications, using the formats the company likes. Use whenever asked to write status reports, leadership updates, 3P updates, company newsletters, FAQs, incident reports, project updates, and similar messages.",
    ),
    (
        "slack-gif-creator",
        "Knowledge and utilities for creating animated GIFs optimized for Slack, with the size and frame constraints Slack imposes, validation tools and animation concepts. Use when users request animated GIFs for Slack, like \"make me a GIF of X doing Y for Slack\".",
    ),
    (
        "theme-factory",
        "Toolkit for styling artifacts with a theme. These artifacts can be slides, docs, reports, HTML landing pages, etc. There are 10 pre-set themes with colors and fonts that can be applied to any artifact, or a new theme can be generated on the fly.",
    ),
    (
        "frontend-design",
        "Create distinctive, production-grade frontend interfaces with high design quality. Use when the user asks to build web components, pages, or applications; generates creative, polished code that avoids generic AI aesthetics.",
    ),
    (
        "doc-coauthoring",
        "Guide users through a structured workflow for co-authoring documentation: gathering context, refining the structure section by section, and testing the result with a fresh reader. Use when the user wants to write a design doc, proposal, technical spec or decision record together.",
    ),
    (
        "changelog-writer",
        "Turns a range of git commits into a user-facing changelog grouped by feature, fix and breaking change, in the project's existing CHANGELOG.md style. Use when preparing a release, writing release notes, or when the user asks what changed between two tags.",
    ),
];

/// `n` realistic skills: the list above, then the same kinds again under
/// other names (`pdf-2`, …) with their descriptions as written.
fn realistic(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let (name, description) = REALISTIC[i % REALISTIC.len()];
            let round = i / REALISTIC.len();
            let name = if round == 0 {
                name.to_owned()
            } else {
                format!("{name}-{}", round + 1)
            };
            (name, description.to_owned())
        })
        .collect()
}

/// A SKILL.md as real ones are: frontmatter, then a few KB of instructions.
fn skill_md(name: &str, description: &str) -> String {
    let description = description.replace('\'', "''");
    let mut text = format!(
        "---\nname: {name}\ndescription: '{description}'\nlicense: Complete terms in LICENSE.txt\nallowed-tools: Bash(python3 scripts/*:*) Read\nmetadata:\n  author: example\n  version: \"1.2\"\n---\n\n# {name}\n\n## Overview\n\n"
    );
    for i in 0..40 {
        text.push_str(&format!(
            "{i}. Read the input first, then run `python3 scripts/step{i}.py <file>` and check what it printed before going on.\n"
        ));
    }
    text
}

fn skill(name: &str, description: &str) -> Skill {
    let dir = PathBuf::from(format!("/repo/.claude/skills/{name}"));
    Skill {
        name: name.to_owned(),
        description: description.to_owned(),
        scope: Scope::Project,
        source: Source::Local {
            file: dir.join("SKILL.md"),
            dir,
        },
        frontmatter: Frontmatter::default(),
        folder: name.to_owned(),
        digest: String::new(),
        warnings: Vec::new(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn runs() -> usize {
    std::env::var("TACK_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

/// Drops the kernel's caches when asked to and allowed to; false otherwise.
fn drop_caches() -> bool {
    if std::env::var("TACK_BENCH_DROP_CACHES").as_deref() != Ok("1") {
        return false;
    }
    // Dirty pages cannot be dropped: write them first.
    let _ = std::process::Command::new("sync").status();
    std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok()
}

/// Times `discover(places)`: the first run, the cold runs (caches dropped)
/// and the warm runs; prints p50/p90.
fn time_discovery(label: &str, places: &Places, expect: usize) {
    let started = Instant::now();
    let first = discover(places);
    let first_time = started.elapsed();
    let notices = first.notices();
    assert_eq!(
        first.skills.len(),
        expect,
        "{label}: {} notices, the first: {:?}",
        notices.len(),
        notices.first()
    );
    let mut cold = Vec::new();
    for _ in 0..5 {
        if !drop_caches() {
            break;
        }
        let started = Instant::now();
        let found = discover(places);
        cold.push(started.elapsed());
        assert_eq!(found.skills.len(), expect);
    }
    let mut warm = Vec::new();
    for _ in 0..runs() {
        let started = Instant::now();
        let found = discover(places);
        warm.push(started.elapsed());
        assert_eq!(found.skills.len(), expect);
    }
    warm.sort();
    cold.sort();
    println!("{label}: {expect} skills found");
    println!("  first run after writing the tree: {}", ms(first_time));
    if cold.is_empty() {
        println!("  cold: not measured (root and TACK_BENCH_DROP_CACHES=1 drop the caches)");
    } else {
        println!(
            "  cold ({} runs, caches dropped before each): p50 {}, p90 {}",
            cold.len(),
            ms(percentile(&cold, 0.5)),
            ms(percentile(&cold, 0.9))
        );
    }
    println!(
        "  warm ({} runs): p50 {}, p90 {}",
        warm.len(),
        ms(percentile(&warm, 0.5)),
        ms(percentile(&warm, 0.9))
    );
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();

    // 1. One skills folder with 2,000 skill folders.
    let project = base.join("big");
    let names = realistic(SKILLS);
    let started = Instant::now();
    for (name, description) in &names {
        write(
            &project.join(".claude/skills").join(name).join("SKILL.md"),
            &skill_md(name, description),
        );
    }
    println!(
        "wrote {SKILLS} skill folders ({} bytes per SKILL.md) in {:.1?}",
        skill_md(&names[0].0, &names[0].1).len(),
        started.elapsed()
    );
    let places = Places {
        managed: None,
        user: Vec::new(),
        project: Some((project.clone(), project.clone())),
        nested: true,
    };
    time_discovery(
        "discovery, one skills folder of 2,000 skill folders",
        &places,
        SKILLS,
    );

    // 2. A monorepo of ~1,000 folders (the nested walk's limit), 19 of
    // them with a .claude/skills folder of 5 skills.
    let mono = base.join("mono");
    std::fs::create_dir_all(mono.join(".git")).unwrap();
    let mut nested = 0;
    for i in 0..FOLDERS {
        let dir = mono.join(format!("packages/p{:02}/m{i:04}", i % 40));
        std::fs::create_dir_all(&dir).unwrap();
        if i % 50 == 0 {
            for (name, description) in realistic(5) {
                write(
                    &dir.join(".claude/skills")
                        .join(format!("{name}-{i}"))
                        .join("SKILL.md"),
                    &skill_md(&format!("{name}-{i}"), &description),
                );
                nested += 1;
            }
        }
    }
    let places = Places {
        managed: None,
        user: Vec::new(),
        project: Some((mono.clone(), mono.clone())),
        nested: true,
    };
    time_discovery(
        "discovery, a project of ~1,000 folders (nested walk) holding 19 skills folders",
        &places,
        nested,
    );

    // 3. Parsing one SKILL.md (lenient, as discovery does; strict, as
    // `tack skills check` does).
    let text = skill_md("pdf", REALISTIC[0].1);
    let n = 20_000;
    for (label, strict) in [("parse (lenient)", false), ("check (strict)", true)] {
        let started = Instant::now();
        for _ in 0..n {
            if strict {
                assert!(frontmatter::check(&text, "pdf").is_empty());
            } else {
                assert!(frontmatter::parse(&text, "pdf").is_ok());
            }
        }
        println!(
            "{label} of a {}-byte SKILL.md: {:.1} µs mean over {n}",
            text.len(),
            started.elapsed().as_secs_f64() * 1e6 / n as f64
        );
    }

    // 4. The catalog's tokens with the default budget.
    let budget = budget_for_window(WINDOW);
    let where_of = |s: &Skill| catalog::short_location(s, Some(Path::new("/repo")), None);
    println!("catalog, budget {budget} tokens (2% of {WINDOW}):");
    for n in [10, 100, SKILLS] {
        let skills: Vec<Skill> = realistic(n).iter().map(|(a, b)| skill(a, b)).collect();
        let refs: Vec<&Skill> = skills.iter().collect();
        let chars: Vec<usize> = skills
            .iter()
            .map(|s| s.description.chars().count())
            .collect();
        let unbounded = catalog::build(&refs, usize::MAX, &where_of);
        let mut times = Vec::new();
        let mut built = None;
        for _ in 0..if n > 1000 { 3 } else { 20 } {
            let started = Instant::now();
            let set = SkillSet::new(
                tack_skills::Discovery {
                    skills: skills.clone(),
                    ..Default::default()
                },
                budget,
                &where_of,
            );
            times.push(started.elapsed());
            built = Some(set.catalog);
        }
        times.sort();
        let c = built.unwrap();
        // The longest description as listed: `- name: DESCRIPTION (where)`.
        let cut = c
            .text
            .lines()
            .zip(&c.names)
            .map(|(line, name)| {
                let start = format!("- {name}: ").len();
                let end = line.rfind(" (").unwrap_or(line.len());
                line[start..end].chars().count()
            })
            .max()
            .unwrap_or(0);
        println!(
            "  {n} skills (descriptions {}–{} chars): {} tokens unbounded → {} tokens in the budget ({} text bytes, descriptions at most {cut} chars); {} shortened, {} left out; built in {} (p50)",
            chars.iter().min().unwrap(),
            chars.iter().max().unwrap(),
            unbounded.tokens,
            c.tokens,
            c.text.len(),
            c.shortened,
            c.left_out.len(),
            ms(percentile(&times, 0.5)),
        );
        if n == 10 {
            let per: Vec<String> = c
                .per_skill
                .iter()
                .map(|(name, t)| format!("{name} {t}"))
                .collect();
            println!("    per skill: {}", per.join(", "));
            assert_eq!(c.tokens, estimate_tokens(&c.text));
        }
    }
}
