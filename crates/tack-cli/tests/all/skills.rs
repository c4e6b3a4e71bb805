//! `tack skills list|show|check|trust` on real skill folders. Each test has
//! its own home, tack config, Claude Code and state directories, so nothing
//! of the real home is read.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{stderr, stdout};

/// A home, a project and a state directory, all private.
struct Tree {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    home: PathBuf,
    project: PathBuf,
    state: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        // Canonical, as discovery shows skill paths.
        let base = tmp.path().canonicalize().unwrap();
        let home = base.join("home");
        let project = base.join("project");
        let state = base.join("state");
        for dir in [&home, &project, &state] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::create_dir_all(project.join(".git")).unwrap();
        Self {
            _tmp: tmp,
            base,
            home,
            project,
            state,
        }
    }

    /// `tack ARGS` in the project.
    fn tack(&self, args: &[&str]) -> Output {
        super::isolated_tack(&self.home, &self.state, &self.project)
            .args(args)
            .output()
            .unwrap()
    }

    /// `tack ARGS --json`, parsed.
    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.tack(&all);
        serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)))
    }

    /// Writes `<skills>/<folder>/SKILL.md`.
    fn skill(&self, skills: &Path, folder: &str, text: &str) -> PathBuf {
        let dir = skills.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
        dir.join("SKILL.md")
    }

    fn project_skills(&self) -> PathBuf {
        self.project.join(".claude/skills")
    }

    fn user_skills(&self) -> PathBuf {
        self.home.join(".claude/skills")
    }

    /// Paths as a person reads them in a snapshot.
    fn masked(&self, text: &str) -> String {
        text.replace(&self.base.display().to_string(), "[TMP]")
    }
}

/// A SKILL.md with this frontmatter.
fn skill_md(front: &str) -> String {
    format!("---\n{front}---\n# Steps\n\nDo it well.\n")
}

/// The tree of the list tests: project skills, a user skill that shadows one
/// of them, one the model may not invoke, and one that cannot be read.
fn listing_tree() -> Tree {
    let t = Tree::new();
    let p = t.project_skills();
    t.skill(
        &p,
        "pdf",
        &skill_md(
            "name: pdf\ndescription: Fill PDF forms and extract their text and tables. Use when the user has a PDF.\nallowed-tools: Bash(python3 scripts/fill.py:*) Read\n",
        ),
    );
    std::fs::create_dir_all(p.join("pdf/scripts")).unwrap();
    std::fs::write(p.join("pdf/scripts/fill.py"), "print('filled')\n").unwrap();
    t.skill(
        &p,
        "review",
        &skill_md("name: review\ndescription: The repository's review checklist.\n"),
    );
    t.skill(
        &p,
        "deploy",
        &skill_md(
            "name: deploy\ndescription: Deploy the service to production.\ndisable-model-invocation: true\n",
        ),
    );
    t.skill(
        &p,
        "broken",
        &skill_md("name: broken\ndescription: [never closed\n"),
    );
    t.skill(
        &t.user_skills(),
        "review",
        &skill_md(
            "name: review\ndescription: My own review checklist (tests, names, errors). Use when reviewing a change.\n",
        ),
    );
    t
}

#[test]
fn list_shows_every_skill_its_scope_tokens_and_the_shadowed_ones() {
    let t = listing_tree();
    let out = t.tack(&["skills", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let row = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for {name}: {text}"))
            .to_owned()
    };
    // The user's review is used; the project's is shadowed, with both paths.
    assert!(row("review").contains("user"), "{text}");
    assert!(row("review").contains("~/.claude/skills/review"), "{text}");
    let hidden = t.project_skills().join("review/SKILL.md");
    let kept = t.user_skills().join("review/SKILL.md");
    assert!(
        text.contains(&format!("review  {}", hidden.display()))
            && text.contains(&format!("hidden by {} (user)", kept.display())),
        "{text}"
    );
    // A project skill: its tokens, its place, its trust.
    let pdf = row("pdf");
    assert!(pdf.contains("project") && pdf.contains(".claude/skills/pdf"));
    assert!(pdf.contains("not trusted"), "{pdf}");
    let tokens: usize = pdf.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(tokens > 20, "{pdf}");
    // Not in the catalog, and said so.
    let deploy = row("deploy");
    assert!(
        deploy.contains(" — ") && deploy.contains("disable-model-invocation"),
        "{deploy}"
    );
    // The footer: the catalog against its budget, the skipped file and line.
    assert!(
        text.contains("of 4000 tokens") && text.contains("2 skills listed"),
        "{text}"
    );
    let broken = t.project_skills().join("broken/SKILL.md");
    assert!(
        text.contains(&format!(
            "{}:3: the frontmatter is not valid YAML",
            broken.display()
        )),
        "{text}"
    );

    let v = t.json(&["skills", "list"]);
    let skills = v["skills"].as_array().unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["review", "deploy", "pdf"], "strongest place first");
    let by_name = |n: &str| skills.iter().find(|s| s["name"] == n).unwrap();
    assert_eq!(by_name("review")["scope"], "user");
    assert_eq!(by_name("pdf")["scope"], "project");
    assert_eq!(by_name("pdf")["tokens"], tokens);
    assert_eq!(by_name("pdf")["listed"], true);
    assert_eq!(by_name("pdf")["trust"], "not_trusted");
    assert_eq!(by_name("deploy")["listed"], false);
    assert_eq!(by_name("deploy")["tokens"], Value::Null);
    assert_eq!(by_name("deploy")["model_invocable"], false);
    assert_eq!(v["shadowed"][0]["name"], "review");
    assert_eq!(v["shadowed"][0]["hidden"], hidden.display().to_string());
    assert_eq!(v["shadowed"][0]["kept"], kept.display().to_string());
    assert_eq!(v["skipped"][0]["file"], broken.display().to_string());
    assert_eq!(v["skipped"][0]["line"], 3);
    assert!(
        v["skipped"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not valid YAML")
    );
    let catalog = &v["catalog"];
    assert_eq!(catalog["budget"], 4000);
    assert_eq!(catalog["shortened"], 0);
    assert_eq!(catalog["left_out"], Value::Array(vec![]));
    let total = catalog["tokens"].as_u64().unwrap();
    assert!(total >= tokens as u64 && total < 4000, "{catalog}");
}

#[test]
fn list_text_for_a_fixed_tree() {
    let t = listing_tree();
    let out = t.tack(&["skills", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(t.masked(&stdout(&out)));
}

#[test]
fn list_says_which_skills_the_budget_left_out() {
    let t = Tree::new();
    for i in 0..40 {
        t.skill(
            &t.project_skills(),
            &format!("skill-{i:02}"),
            &skill_md(&format!(
                "name: skill-{i:02}\ndescription: {}\n",
                "Does one careful thing with the files of this repository when asked. ".repeat(4)
            )),
        );
    }
    // A 10,000-token window: a 200-token catalog.
    let v = t.json(&["skills", "list", "--context-window", "10000"]);
    let catalog = &v["catalog"];
    assert_eq!(catalog["budget"], 200);
    assert!(catalog["tokens"].as_u64().unwrap() <= 200, "{catalog}");
    let left_out = catalog["left_out"].as_array().unwrap();
    assert!(!left_out.is_empty(), "{catalog}");
    let out = t.tack(&["skills", "list", "--context-window", "10000"]);
    let text = stdout(&out);
    let last = left_out.last().unwrap().as_str().unwrap();
    let row = text.lines().find(|l| l.starts_with(last)).unwrap();
    assert!(
        row.contains(" — ") && row.contains("left out (budget)"),
        "{row}"
    );
    assert!(
        text.contains(&format!("{} left out (budget)", left_out.len())),
        "{text}"
    );
}

#[test]
fn show_prints_the_frontmatter_trust_files_and_instructions() {
    let t = listing_tree();
    t.skill(
        &t.project_skills(),
        "forms",
        &skill_md(
            "name: forms\ndescription: Fill forms.\nlicense: MIT\ncompatibility: needs python3\nmetadata:\n  author: me\nallowed-tools: Bash(git log:*) Read\nuser-invocable: false\nargument-hint: \"[file]\"\nmodel: claude-sonnet-4-5\ncontext: fork\nhooks:\n  PreToolUse: []\npaths:\n  - \"**/*.pdf\"\n",
        ),
    );
    let out = t.tack(&["skills", "show", "forms"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for line in [
        "forms (project skill)",
        "trust: not trusted",
        "license: MIT",
        "compatibility: needs python3",
        "metadata: author=me",
        "allowed-tools: Bash(git log:*) Read (shown to the model and recorded in the audit; grants nothing)",
        "disable-model-invocation: false",
        "user-invocable: false",
        "argument-hint: [file]",
        "model: claude-sonnet-4-5",
        "context: fork",
        "hooks: {\"PreToolUse\":[]}",
        "paths: **/*.pdf",
        "files: none besides SKILL.md",
        "# Steps",
        "Do it well.",
    ] {
        assert!(text.contains(line), "{line:?} missing: {text}");
    }

    let v = t.json(&["skills", "show", "pdf"]);
    assert_eq!(v["name"], "pdf");
    assert_eq!(v["scope"], "project");
    assert_eq!(v["trust"], "not_trusted");
    assert_eq!(v["files"], serde_json::json!(["scripts/fill.py"]));
    assert_eq!(
        v["allowed_tools"],
        serde_json::json!(["Bash(python3 scripts/fill.py:*)", "Read"])
    );
    assert_eq!(v["frontmatter"]["name"], "pdf");
    assert!(v["body"].as_str().unwrap().contains("Do it well."));
    assert_eq!(v["catalog"]["listed"], true);
    assert_eq!(
        v["location"],
        t.project_skills()
            .join("pdf/SKILL.md")
            .display()
            .to_string()
    );

    // A user skill shows the project skill it shadows.
    let v = t.json(&["skills", "show", "review"]);
    assert_eq!(v["scope"], "user");
    assert_eq!(v["trust"], Value::Null);
    assert_eq!(
        v["shadows"][0],
        t.project_skills()
            .join("review/SKILL.md")
            .display()
            .to_string()
    );
}

#[test]
fn show_of_an_unknown_skill_is_not_found_with_the_closest_names() {
    let t = listing_tree();
    let out = t.tack(&["skills", "show", "pdff"]);
    assert_eq!(out.status.code(), Some(10), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("did you mean pdf?"),
        "{}",
        stderr(&out)
    );
    // A skill that was skipped says why.
    let out = t.tack(&["skills", "show", "broken"]);
    assert_eq!(out.status.code(), Some(10));
    assert!(
        stderr(&out).contains("was not loaded") && stderr(&out).contains(":3: "),
        "{}",
        stderr(&out)
    );
}

/// One skill folder of `check`'s cases: (folder, frontmatter or whole text,
/// exit code, what the message says).
const CHECK_CASES: &[(&str, &str, u8, &str)] = &[
    (
        "valid",
        "---\nname: valid\ndescription: Does it. Use when asked.\nlicense: MIT\n---\nbody\n",
        0,
        "",
    ),
    (
        "bad-yaml",
        "---\nname: bad-yaml\ndescription: [never closed\n---\n",
        12,
        ":3: the frontmatter is not valid YAML",
    ),
    (
        "no-frontmatter",
        "# Just Markdown\n",
        12,
        ":1: a SKILL.md starts with a YAML frontmatter",
    ),
    (
        "no-description",
        "---\nname: no-description\n---\nbody\n",
        13,
        ":2: the frontmatter has no `description`",
    ),
    (
        "mismatch",
        "---\nname: other-name\ndescription: Does it.\n---\n",
        13,
        ":2: the name \"other-name\" must equal its folder's name \"mismatch\"",
    ),
    (
        "colon",
        "---\nname: colon\ndescription: Use when: the user asks\n---\n",
        12,
        ":3: invalid YAML: the value holds an unquoted `: `",
    ),
    (
        "unknown-key",
        "---\nname: unknown-key\ndescription: Does it.\nlicence: MIT\n---\n",
        14,
        ":4: unknown frontmatter key `licence`; did you mean `license`?",
    ),
];

#[test]
fn check_exits_with_the_code_of_each_failure_class() {
    let t = Tree::new();
    let skills = t.base.join("skills");
    for (folder, text, code, message) in CHECK_CASES {
        let file = t.skill(&skills, folder, text);
        for path in [skills.join(folder), file.clone()] {
            let out = t.tack(&["skills", "check", path.to_str().unwrap()]);
            assert_eq!(
                out.status.code(),
                Some(i32::from(*code)),
                "{folder}: {}{}",
                stdout(&out),
                stderr(&out)
            );
            let text = stdout(&out);
            let said = format!("{}{message}", file.display());
            assert!(
                message.is_empty() || text.contains(&said),
                "{folder}: {text}"
            );
            assert!(text.contains("checked 1 skill: "), "{folder}: {text}");
        }
    }
    // A folder of skills: every one checked, the most severe class decides.
    let out = t.tack(&["skills", "check", skills.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(12), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("checked 7 skills: 1 valid, 6 with problems (3 unreadable, 2 required-field, 1 optional-field)"),
        "{text}"
    );
    // Without the unreadable ones, the required-field class decides; then
    // the optional one.
    for folder in ["bad-yaml", "no-frontmatter", "colon"] {
        std::fs::remove_dir_all(skills.join(folder)).unwrap();
    }
    let out = t.tack(&["skills", "check", skills.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(13), "{}", stdout(&out));
    for folder in ["no-description", "mismatch"] {
        std::fs::remove_dir_all(skills.join(folder)).unwrap();
    }
    let out = t.tack(&["skills", "check", skills.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(14), "{}", stdout(&out));
    let v = t.json(&["skills", "check", skills.to_str().unwrap()]);
    assert_eq!(v["exit_code"], 14);
    assert_eq!(v["problems"]["optional_field"], 1);
    assert_eq!(v["files"][0]["problems"][0]["line"], 4);
    assert_eq!(v["files"][0]["problems"][0]["class"], "optional-field");
}

#[test]
fn check_reports_the_catalogs_tokens_and_a_missing_path_is_a_usage_error() {
    let t = Tree::new();
    let skills = t.base.join("skills");
    t.skill(
        &skills,
        "pdf",
        &skill_md("name: pdf\ndescription: Fill PDF forms. Use when the user has a PDF.\n"),
    );
    t.skill(
        &skills,
        "docx",
        &skill_md("name: docx\ndescription: Edit Word documents with tracked changes.\n"),
    );
    let v = t.json(&["skills", "check", skills.to_str().unwrap()]);
    assert_eq!(v["exit_code"], 0);
    let per: Vec<(String, u64)> = v["catalog"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(per.len(), 2, "{v}");
    assert!(per.iter().all(|(_, n)| *n > 5), "{per:?}");
    let total = v["catalog"]["tokens"].as_u64().unwrap();
    let sum: u64 = per.iter().map(|(_, n)| n).sum();
    // The total also counts each group's `[where]` line.
    assert!(total >= sum && total - sum <= 12, "{total} vs {sum}");
    let out = t.tack(&["skills", "check", skills.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(
        text.contains("checked 2 skills: all valid")
            && text.contains(&format!("catalog: {total} of 4000 tokens")),
        "{text}"
    );

    let out = t.tack(&["skills", "check", "no/such/skill"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no/such/skill: no such file or folder"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_without_a_path_checks_every_skill_found_here() {
    let t = listing_tree();
    let out = t.tack(&["skills", "check"]);
    // broken/SKILL.md is unreadable: the most severe class.
    assert_eq!(out.status.code(), Some(12), "{}", stdout(&out));
    let text = stdout(&out);
    // The skills in use, the skipped one and the shadowed one: 5 files.
    assert!(
        text.contains("checked 5 skills: 4 valid, 1 with problems (1 unreadable)"),
        "{text}"
    );
    // Shadowing is a warning, not a failure.
    assert!(text.contains("warning: skill review at"), "{text}");
    assert!(text.contains("disable-model-invocation: not in the catalog"));
    std::fs::remove_dir_all(t.project_skills().join("broken")).unwrap();
    let out = t.tack(&["skills", "check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn check_of_two_thousand_skill_folders_completes_and_reports() {
    let t = Tree::new();
    let skills = t.project_skills();
    for i in 0..2000 {
        t.skill(
            &skills,
            &format!("skill-{i:04}"),
            &skill_md(&format!(
                "name: skill-{i:04}\ndescription: Handles task {i} of the repository (reads the inputs, runs the script, checks the result). Use when asked for task {i}.\n"
            )),
        );
    }
    let started = Instant::now();
    let out = t.tack(&["skills", "check"]);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("checked 2000 skills: all valid"), "{text}");
    // The catalog keeps within its budget: most are left out, and said so.
    let catalog = text.lines().find(|l| l.starts_with("catalog: ")).unwrap();
    let tokens: usize = catalog["catalog: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(tokens <= 4000, "{catalog}");
    assert!(catalog.contains("left out (budget)"), "{catalog}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("  skill-")).count(),
        2000
    );
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn trust_records_a_project_skill_as_it_is_and_list_shows_it() {
    let t = listing_tree();
    let out = t.tack(&["skills", "trust", "pdf"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .contains("trusted project skill pdf (.claude/skills/pdf) as it is now (sha256:"),
        "{}",
        stdout(&out)
    );
    let recorded: Value =
        serde_json::from_slice(&std::fs::read(t.state.join("skill-approvals.json")).unwrap())
            .unwrap();
    let pdf = t.project_skills().join("pdf/SKILL.md");
    assert!(
        recorded["skills"][pdf.display().to_string()]
            .as_str()
            .unwrap()
            .starts_with("sha256:"),
        "{recorded}"
    );
    let list = t.json(&["skills", "list"]);
    let trust = |v: &Value, n: &str| {
        v["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .unwrap()["trust"]
            .clone()
    };
    assert_eq!(trust(&list, "pdf"), "trusted");
    assert_eq!(trust(&list, "deploy"), "not_trusted");
    let text = stdout(&t.tack(&["skills", "list"]));
    let row = text.lines().find(|l| l.starts_with("pdf ")).unwrap();
    assert!(
        row.ends_with("trusted") && !row.contains("not trusted"),
        "{row}"
    );

    // A change to the file asks again.
    std::fs::write(
        &pdf,
        skill_md("name: pdf\ndescription: Now it also deletes files.\n"),
    )
    .unwrap();
    assert_eq!(trust(&t.json(&["skills", "list"]), "pdf"), "changed");
    let text = stdout(&t.tack(&["skills", "show", "pdf"]));
    assert!(text.contains("trust: changed since trusted"), "{text}");

    // --all trusts every project skill; a user skill needs none.
    let v = t.json(&["skills", "trust", "--all"]);
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["deploy", "pdf"]);
    assert_eq!(v[1]["before"], "changed");
    let list = t.json(&["skills", "list"]);
    assert_eq!(trust(&list, "pdf"), "trusted");
    assert_eq!(trust(&list, "deploy"), "trusted");
    let out = t.tack(&["skills", "trust", "review"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("review is a user skill: it needs no trust"));
    let out = t.tack(&["skills", "trust", "nope"]);
    assert_eq!(out.status.code(), Some(10));
}

#[test]
fn help_lists_the_skill_exit_codes() {
    let t = Tree::new();
    for args in [&["--help"][..], &["skills", "--help"]] {
        let text = stdout(&t.tack(args));
        for code in ["12", "13", "14"] {
            assert!(
                text.lines()
                    .any(|l| l.trim_start().starts_with(code) && l.contains("tack skills check")),
                "{code} missing from tack {args:?}: {text}"
            );
        }
    }
}
