//! Discovery on real folder trees: the places and their precedence,
//! shadowing, malformed skills, limits, symbolic links, nested folders, and
//! the catalog within its budget.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use tack_skills::catalog::{self, estimate_tokens};
use tack_skills::{Places, Scope, SkillSet, Source, discover};

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        Self { _dir: dir, root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn write(&self, rel: &str, text: &str) -> &Self {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// `<folder>/<name>/SKILL.md` with a name and description.
    fn skill(&self, folder: &str, name: &str, description: &str) -> &Self {
        self.write(
            &format!("{folder}/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: {description}\n---\nSteps for {name}.\n"),
        )
    }

    /// The places of a machine laid out under this tree: managed
    /// `etc/skills`, the user's `home/.config/tack/skills`,
    /// `home/.claude/skills`, `home/.agents/skills`, the project `repo` with
    /// the working directory `cwd` inside it.
    fn places(&self, cwd: &str) -> Places {
        let home = self.path("home");
        Places {
            managed: Some(self.path("etc/skills")),
            user: Places::user_folders(
                Some(&home.join(".config/tack")),
                Some(&home.join(".claude")),
                Some(&home),
            ),
            project: Some((self.path(cwd), self.path("repo"))),
            nested: true,
        }
    }
}

fn names(set: &tack_skills::Discovery) -> Vec<(&str, Scope)> {
    set.skills
        .iter()
        .map(|s| (s.name.as_str(), s.scope))
        .collect()
}

#[test]
fn every_place_is_read_in_precedence_order_and_shadowing_names_both_paths() {
    let t = Tree::new();
    t.skill("etc/skills", "policy", "The company's policy.")
        .skill("home/.claude/skills", "policy", "A user's copy of policy.")
        .skill("home/.claude/skills", "pdf", "The user's PDF skill.")
        .skill("home/.agents/skills", "notes", "Notes, from ~/.agents.")
        .skill(
            "home/.config/tack/skills",
            "commit",
            "tack's own user folder.",
        )
        .skill("repo/.claude/skills", "pdf", "A repository's PDF skill.")
        .skill(
            "repo/.claude/skills",
            "release",
            "How this project releases.",
        )
        .skill(
            "repo/.tack/skills",
            "release",
            "tack's project folder wins.",
        )
        .skill("repo/.agents/skills", "lint", "Project lint rules.")
        .skill("repo/sub/.claude/skills", "sub-only", "Closer to the cwd.");
    std::fs::create_dir_all(t.path("repo/sub/deeper")).unwrap();
    let found = discover(&t.places("repo/sub/deeper"));
    assert_eq!(
        names(&found),
        vec![
            ("policy", Scope::Managed),
            ("commit", Scope::User),
            ("pdf", Scope::User),
            ("notes", Scope::User),
            ("sub-only", Scope::Project),
            ("release", Scope::Project),
            ("lint", Scope::Project),
        ]
    );
    // The user's pdf wins over the repository's: a repository cannot
    // replace a skill the user trusts.
    let pdf = found.skills.iter().find(|s| s.name == "pdf").unwrap();
    assert!(pdf.description.starts_with("The user's"));
    let release = found.skills.iter().find(|s| s.name == "release").unwrap();
    assert!(release.description.starts_with("tack's project folder"));
    let shadowed: Vec<(&str, &Path, &Path)> = found
        .shadowed
        .iter()
        .map(|s| (s.name.as_str(), Path::new(&s.kept), Path::new(&s.hidden)))
        .collect();
    assert_eq!(shadowed.len(), 3, "{shadowed:?}");
    assert!(shadowed.contains(&(
        "pdf",
        &t.path("home/.claude/skills/pdf/SKILL.md"),
        &t.path("repo/.claude/skills/pdf/SKILL.md")
    )));
    assert!(shadowed.contains(&(
        "policy",
        &t.path("etc/skills/policy/SKILL.md"),
        &t.path("home/.claude/skills/policy/SKILL.md")
    )));
    let notices = found.notices().join("\n");
    assert!(notices.contains("skill pdf at"), "{notices}");
    assert!(notices.contains("is shadowed by"), "{notices}");
}

#[test]
fn malformed_skills_are_skipped_with_file_and_line_and_lenient_ones_load() {
    let t = Tree::new();
    let dir = "repo/.claude/skills";
    t.skill(dir, "good", "Fine.")
        .write(
            &format!("{dir}/bad-yaml/SKILL.md"),
            "---\nname: bad-yaml\ndescription: ok\nmetadata: [oops\n---\nbody\n",
        )
        .write(
            &format!("{dir}/no-description/SKILL.md"),
            "---\nname: no-description\n---\nbody\n",
        )
        .write(&format!("{dir}/no-front/SKILL.md"), "# Just markdown\n")
        .write(
            &format!("{dir}/colon/SKILL.md"),
            "---\nname: colon\ndescription: Use when: the user asks about colons\n---\nbody\n",
        )
        .write(
            &format!("{dir}/folder-name/SKILL.md"),
            "---\nname: other-name\ndescription: Mismatched.\n---\nbody\n",
        )
        .write(&format!("{dir}/not-a-skill/README.md"), "no SKILL.md here")
        .write(&format!("{dir}/stray-file.md"), "a file, not a folder");
    let found = discover(&t.places("repo"));
    let mut loaded: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
    loaded.sort();
    assert_eq!(loaded, vec!["colon", "good", "other-name"]);
    let colon = found.skills.iter().find(|s| s.name == "colon").unwrap();
    assert_eq!(colon.description, "Use when: the user asks about colons");
    assert!(
        colon.warnings[0].contains("colon/SKILL.md:3:"),
        "{:?}",
        colon.warnings
    );
    let other = found
        .skills
        .iter()
        .find(|s| s.name == "other-name")
        .unwrap();
    assert!(
        other.warnings[0].contains("not its folder's name"),
        "{:?}",
        other.warnings
    );

    let skipped: Vec<String> = found.skipped.iter().map(|s| s.notice()).collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    let find = |name: &str| {
        skipped
            .iter()
            .find(|s| s.contains(&format!("/{name}/SKILL.md:")))
            .unwrap_or_else(|| panic!("{name} not skipped: {skipped:?}"))
    };
    assert!(find("bad-yaml").contains("SKILL.md:4: the frontmatter is not valid YAML"));
    assert!(find("no-description").contains("no `description`"));
    assert!(find("no-front").contains("SKILL.md:1:"));
    assert!(
        skipped
            .iter()
            .all(|s| s.ends_with("so the skill was left out"))
    );
}

#[test]
fn two_thousand_folders_are_read_and_the_limit_is_named() {
    let t = Tree::new();
    for i in 0..2000 {
        t.skill("home/.claude/skills", &format!("s{i:04}"), "A skill.");
    }
    let found = discover(&t.places("repo"));
    assert_eq!(found.skills.len(), 2000);
    assert!(found.notes.is_empty(), "{:?}", found.notes);
    // One more entry passes the limit: said, and the rest is left.
    t.skill("home/.claude/skills", "s2000", "One too many.");
    let found = discover(&t.places("repo"));
    assert_eq!(found.skills.len(), tack_skills::discover::MAX_ENTRIES);
    assert!(
        found.notes[0].contains("more than 2000 entries"),
        "{:?}",
        found.notes
    );
    // The catalog of 2,000 stays within its budget.
    let set = SkillSet::new(found, 4000, &|s| s.scope.as_str().to_owned());
    assert!(set.catalog.tokens <= 4000, "{}", set.catalog.tokens);
    assert!(!set.catalog.left_out.is_empty());
    assert!(
        set.catalog
            .text
            .contains("more skills are installed but not listed")
    );
}

#[test]
fn symbolic_links_to_skills_are_followed_and_a_loop_costs_nothing() {
    let t = Tree::new();
    t.skill("dotfiles/skills", "linked", "A skill kept in dotfiles.");
    let skills = t.path("home/.claude/skills");
    std::fs::create_dir_all(&skills).unwrap();
    std::os::unix::fs::symlink(t.path("dotfiles/skills/linked"), skills.join("linked")).unwrap();
    // A loop: a folder linking to its own parent, and one to itself.
    std::os::unix::fs::symlink(&skills, skills.join("loop")).unwrap();
    std::os::unix::fs::symlink(skills.join("self"), skills.join("self")).unwrap();
    // A loop below the project root, where nested folders are looked for.
    std::fs::create_dir_all(t.path("repo/pkg")).unwrap();
    std::os::unix::fs::symlink(t.path("repo"), t.path("repo/pkg/up")).unwrap();
    let started = std::time::Instant::now();
    let found = discover(&t.places("repo"));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(names(&found), vec![("linked", Scope::User)]);
    match &found.skills[0].source {
        Source::Local { dir, .. } => assert_eq!(dir, &t.path("dotfiles/skills/linked")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn nested_skills_of_a_monorepo_are_found_but_not_in_ignored_or_hidden_folders() {
    let t = Tree::new();
    t.write("repo/.git/HEAD", "ref: refs/heads/main\n")
        .write("repo/.gitignore", "build/\n")
        .skill(
            "repo/packages/web/.claude/skills",
            "web-deploy",
            "Deploy the web app.",
        )
        .skill(
            "repo/services/api/.tack/skills",
            "api-migrate",
            "Migrate the API.",
        )
        .skill("repo/node_modules/dep/.claude/skills", "from-deps", "No.")
        .skill("repo/build/out/.claude/skills", "ignored", "No.")
        .skill("repo/.hidden/x/.claude/skills", "hidden", "No.");
    let found = discover(&t.places("repo"));
    let mut got: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
    got.sort();
    assert_eq!(got, vec!["api-migrate", "web-deploy"]);
    // Off: only the working directory up to the root.
    let mut places = t.places("repo");
    places.nested = false;
    assert!(discover(&places).skills.is_empty());
}

#[test]
fn the_catalog_shortens_descriptions_first_then_leaves_skills_out() {
    let t = Tree::new();
    for i in 0..10 {
        t.skill(
            "home/.claude/skills",
            &format!("skill-{i}"),
            &format!(
                "Skill number {i}. {}",
                "It does a great many useful things. ".repeat(12)
            ),
        );
    }
    let found = discover(&t.places("repo"));
    let where_of = |s: &tack_skills::Skill| catalog::short_location(s, None, Some(&t.path("home")));
    let full = SkillSet::new(found.clone(), 100_000, &where_of);
    assert_eq!(full.catalog.shortened, 0);
    assert!(
        full.catalog
            .text
            .starts_with("[user ~/.claude/skills]\n- skill-0: Skill number 0."),
        "{}",
        full.catalog.text
    );
    // A budget under the full size: every skill listed, descriptions cut at a word.
    let budget = full.catalog.tokens * 2 / 3;
    let cut = SkillSet::new(found.clone(), budget, &where_of);
    assert_eq!(cut.catalog.names.len(), 10);
    assert_eq!(cut.catalog.shortened, 10);
    assert!(cut.catalog.tokens <= budget);
    assert!(cut.catalog.text.contains("…"));
    // Far less: skills are left out, the weakest last, with a note.
    let tiny = SkillSet::new(found, 120, &where_of);
    assert!(tiny.catalog.names.len() < 10);
    assert_eq!(tiny.catalog.names[0], "skill-0");
    assert!(tiny.catalog.tokens <= 120, "{}", tiny.catalog.text);
    assert!(tiny.catalog.text.contains("more skills are installed"));
    assert_eq!(tiny.catalog.left_out.len() + tiny.catalog.names.len(), 10);
    assert_eq!(estimate_tokens(&tiny.catalog.text), tiny.catalog.tokens);
}

#[test]
fn disabled_skills_are_found_but_not_offered_and_no_skills_means_no_tool() {
    let t = Tree::new();
    t.write(
        "home/.claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploy.\ndisable-model-invocation: true\n---\nbody\n",
    );
    let found = discover(&t.places("repo"));
    assert_eq!(found.skills.len(), 1);
    let set = SkillSet::new(found, 4000, &|_| String::new());
    assert!(set.catalog.names.is_empty());
    assert!(
        set.tool(std::sync::Arc::new(tack_skills::TrustAll), "s")
            .is_none(),
        "a Skill tool with nothing to load"
    );
    let empty = SkillSet::new(discover(&Tree::new().places("repo")), 4000, &|_| {
        String::new()
    });
    assert!(
        empty
            .tool(std::sync::Arc::new(tack_skills::TrustAll), "s")
            .is_none()
    );
}
