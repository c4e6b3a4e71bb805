//! The system prompt: tack's text for a fixed environment, instruction
//! files found from the repository root down to the working directory,
//! `@path` imports, the size bound, replacing and appending.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_policy::LoadOptions;
use tack_session::prompt::{GitHead, GitRepo, MAX_IMPORT_DEPTH};
use tack_session::{
    Asked, Environment, InstructionSources, ProjectContext, PromptOptions, Scripted, Session,
    SessionOptions, SessionPrompt,
};

use crate::support::Project;

/// A fixed environment for `cwd`: the same date, platform and shell everywhere.
fn environment(cwd: &Path, git: Option<GitRepo>) -> Environment {
    Environment {
        cwd: cwd.to_owned(),
        additional_directories: Vec::new(),
        platform: "linux (x86_64)".into(),
        shell: PathBuf::from("/usr/bin/bash"),
        date: "2026-12-01".into(),
        git,
    }
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The prompt tack builds in `dir` (no user files unless `sources` has them).
fn build(dir: &Path, sources: &InstructionSources) -> SessionPrompt {
    SessionPrompt::build(
        &environment(dir, None),
        &["Read".into()],
        sources,
        &PromptOptions::default(),
    )
}

/// The names of the built-in tools a default session sends.
async fn builtin_names() -> Vec<String> {
    let project = Project::new();
    let session = Session::assemble(&project.context(), SessionOptions::new("names"))
        .await
        .unwrap();
    session
        .pipeline()
        .registry()
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect()
}

#[tokio::test]
async fn tacks_own_text_for_a_fixed_environment() {
    let mut env = environment(
        Path::new("/home/user/project"),
        Some(GitRepo {
            root: PathBuf::from("/home/user/project"),
            head: GitHead::Branch("main".into()),
        }),
    );
    env.additional_directories = vec![PathBuf::from("/home/user/docs")];
    let prompt = SessionPrompt::build(
        &env,
        &builtin_names().await,
        &InstructionSources::default(),
        &PromptOptions::default(),
    );
    // `cargo test -p tack-session --test all own_text -- --nocapture` shows it.
    eprintln!(
        "tack's own system prompt: {} bytes (the snapshot environment)",
        prompt.own_bytes()
    );
    assert_eq!(
        prompt.own_bytes(),
        prompt.text().len(),
        "no instruction files"
    );
    assert!(prompt.own_bytes() < 2048, "{} bytes", prompt.own_bytes());
    insta::assert_snapshot!(prompt.text());
}

#[tokio::test]
async fn a_session_sends_its_instruction_files_under_their_paths() {
    let project = Project::new();
    project
        .write(
            "CLAUDE.md",
            "Run `cargo test` before committing.\nStyle: @docs/style.md\n",
        )
        .write("docs/style.md", "Wrap lines at 100 columns.\n")
        .write("AGENTS.md", "Use British spelling.\n");
    let home = tempfile::tempdir().unwrap();
    let home_path = std::fs::canonicalize(home.path()).unwrap();
    write(&home_path, ".claude/CLAUDE.md", "Be terse.\n");
    write(
        &home_path,
        ".config/tack/AGENTS.md",
        "Prefer small commits.\n",
    );
    let ctx = project
        .context()
        .with_instructions(InstructionSources::user(
            Some(&home_path.join(".claude")),
            Some(&home_path.join(".config/tack")),
            Some(&home_path),
        ));
    let session = Session::assemble(
        &ctx,
        SessionOptions::new("p1")
            .only_tools(Some(vec!["Read".into(), "Grep".into()]))
            .environment(environment(&ctx.cwd, None)),
    )
    .await
    .unwrap();
    let prompt = session.system_prompt();
    let text = prompt
        .text()
        .replace(&project.path().display().to_string(), "[PROJECT]")
        .replace(&home_path.display().to_string(), "[HOME]");
    insta::assert_snapshot!(text);
    assert_eq!(prompt.files().len(), 5);
    assert!(prompt.warnings().is_empty(), "{:?}", prompt.warnings());
}

#[test]
fn files_are_found_from_the_repository_root_down_to_the_working_directory() {
    let root = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    write(&root, ".git/HEAD", "ref: refs/heads/feature/prompt\n");
    write(&root, "CLAUDE.md", "root claude\n");
    write(&root, "AGENTS.md", "root agents\n");
    write(&root, "sub/CLAUDE.md", "sub claude\n");
    write(&root, "sub/CLAUDE.local.md", "sub local\n");
    write(&root, "sub/.claude/CLAUDE.md", "sub dot-claude\n");
    write(&root, "elsewhere/CLAUDE.md", "not on the way\n");
    let sub = root.join("sub");

    // Detected, not injected: `.git/HEAD` read from the working directory up.
    let env = Environment::detect(&sub, Vec::new());
    assert_eq!(
        env.git,
        Some(GitRepo {
            root: root.clone(),
            head: GitHead::Branch("feature/prompt".into())
        })
    );
    let prompt = SessionPrompt::build(
        &env,
        &[],
        &InstructionSources::default(),
        &PromptOptions::default(),
    );
    assert_eq!(
        prompt.files(),
        [
            root.join("CLAUDE.md"),
            root.join("AGENTS.md"),
            sub.join("CLAUDE.md"),
            sub.join("CLAUDE.local.md"),
            sub.join(".claude/CLAUDE.md"),
        ]
    );
    let text = prompt.text();
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at("root claude") < at("root agents"));
    assert!(at("root agents") < at("sub claude"));
    assert!(at("sub local") < at("sub dot-claude"));
    assert!(!text.contains("not on the way"));
    assert!(text.contains(&format!("Contents of {}", sub.join("CLAUDE.md").display())));
    assert!(text.contains(", branch feature/prompt"));

    // From the root: the root's files only.
    let prompt = SessionPrompt::build(
        &Environment::detect(&root, Vec::new()),
        &[],
        &InstructionSources::default(),
        &PromptOptions::default(),
    );
    assert_eq!(
        prompt.files(),
        [root.join("CLAUDE.md"), root.join("AGENTS.md")]
    );
}

#[test]
fn imports_are_followed_relative_to_the_file_and_nested() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(home.path()).unwrap();
    write(
        &dir,
        "CLAUDE.md",
        "top\nsee @docs/a.md and `@docs/ignored.md`\n```\n@docs/also-ignored.md\n```\nmine: @~/notes.md\n",
    );
    write(&dir, "docs/a.md", "doc a, then @b/c.md.\n");
    write(&dir, "docs/b/c.md", "doc c, then @../../d.md\n");
    write(&dir, "d.md", "doc d\n");
    write(&dir, "docs/ignored.md", "IGNORED\n");
    write(&dir, "docs/also-ignored.md", "IGNORED\n");
    write(&home, "notes.md", "home notes\n");
    let prompt = build(
        &dir,
        &InstructionSources {
            user_files: Vec::new(),
            home: Some(home.clone()),
            project_root: None,
            gate: Default::default(),
        },
    );
    assert_eq!(
        prompt.files(),
        [
            dir.join("CLAUDE.md"),
            dir.join("docs/a.md"),
            dir.join("docs/b/c.md"),
            dir.join("docs/b/../../d.md"),
            home.join("notes.md"),
        ]
    );
    let text = prompt.text();
    assert!(!text.contains("IGNORED"), "{text}");
    assert!(text.contains(&format!(
        "Contents of {} (imported by {}):\ndoc c",
        dir.join("docs/b/c.md").display(),
        dir.join("docs/a.md").display()
    )));
    assert!(prompt.warnings().is_empty(), "{:?}", prompt.warnings());

    // No home known: a `~/` import is skipped with a warning.
    let prompt = build(&dir, &InstructionSources::default());
    assert!(!prompt.text().contains("home notes"));
    assert!(
        prompt.warnings()[0].contains("@~/notes.md, but no home directory is known"),
        "{:?}",
        prompt.warnings()
    );
}

#[test]
fn imports_stop_at_the_depth_bound() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    write(&dir, "CLAUDE.md", "level 0 @l1.md\n");
    for level in 1..=MAX_IMPORT_DEPTH + 1 {
        write(
            &dir,
            &format!("l{level}.md"),
            &format!("level {level} @l{}.md\n", level + 1),
        );
    }
    let prompt = build(&dir, &InstructionSources::default());
    assert_eq!(
        prompt.files().len(),
        MAX_IMPORT_DEPTH + 1,
        "the file and 5 levels"
    );
    assert!(
        prompt
            .text()
            .contains(&format!("level {MAX_IMPORT_DEPTH} "))
    );
    assert!(
        !prompt
            .text()
            .contains(&format!("level {} ", MAX_IMPORT_DEPTH + 1))
    );
    assert_eq!(prompt.warnings().len(), 1, "{:?}", prompt.warnings());
    assert!(prompt.warnings()[0].contains(&format!(
        "the imports in {} were not read",
        dir.join(format!("l{MAX_IMPORT_DEPTH}.md")).display()
    )));
}

#[test]
fn a_cycle_is_refused_and_a_second_mention_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    // CLAUDE.md → x → y → x (a cycle); AGENTS.md, imported by CLAUDE.md
    // too, is found again by discovery and read once.
    write(&dir, "CLAUDE.md", "main @x.md @AGENTS.md\n");
    write(&dir, "x.md", "x @y.md\n");
    write(&dir, "y.md", "y @x.md\n");
    write(&dir, "AGENTS.md", "agents\n");
    let prompt = build(&dir, &InstructionSources::default());
    assert_eq!(
        prompt.files(),
        [
            dir.join("CLAUDE.md"),
            dir.join("x.md"),
            dir.join("y.md"),
            dir.join("AGENTS.md"),
        ]
    );
    assert_eq!(prompt.text().matches("\nagents\n").count(), 1);
    assert_eq!(prompt.warnings().len(), 1, "{:?}", prompt.warnings());
    assert!(prompt.warnings()[0].contains("(a cycle)"));
}

#[tokio::test]
async fn a_missing_import_is_a_notice_and_the_rest_is_read() {
    let project = Project::new();
    project.write("CLAUDE.md", "see @gone.md and @here.md\n");
    project.write("here.md", "here\n");
    let person = Scripted::new();
    let session = Session::assemble(
        &project.context(),
        SessionOptions::new("m1").interaction(Arc::new(person.clone())),
    )
    .await
    .unwrap();
    assert!(session.system_prompt().text().contains("\nhere\n"));
    let notices: Vec<String> = person
        .asked()
        .into_iter()
        .filter_map(|a| match a {
            Asked::Notice(text) => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(
        notices,
        [format!(
            "{} imports {}, which does not exist; skipped",
            project.path().join("CLAUDE.md").display(),
            project.path().join("gone.md").display()
        )]
    );
}

#[test]
fn the_instruction_files_are_cut_at_64_kib_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    let line = "x".repeat(99) + "\n";
    write(&dir, "CLAUDE.md", &line.repeat(700));
    write(&dir, "AGENTS.md", "never reached\n");
    let prompt = build(&dir, &InstructionSources::default());
    let text = prompt.text();
    let instructions = text.len() - prompt.own_bytes();
    assert!(instructions <= 64 * 1024 + 1024, "{instructions} bytes");
    assert!(instructions > 60 * 1024, "{instructions} bytes");
    assert!(!text.contains("never reached"));
    assert!(text.contains(&format!(
        "[tack: the instruction files reached 64 KiB, the most tack sends: the rest of {} and {} were left out]",
        dir.join("CLAUDE.md").display(),
        dir.join("AGENTS.md").display()
    )));
}

#[test]
fn a_replacement_keeps_nothing_of_tacks_and_an_addition_goes_last() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    write(&dir, "CLAUDE.md", "project rule\n");
    let env = environment(&dir, None);
    let sources = InstructionSources::default();
    let replaced = SessionPrompt::build(
        &env,
        &["Read".into()],
        &sources,
        &PromptOptions {
            replace: Some("Only this.".into()),
            append: None,
        },
    );
    assert_eq!(replaced.text(), "Only this.");
    assert!(replaced.files().is_empty());
    let both = SessionPrompt::build(
        &env,
        &[],
        &sources,
        &PromptOptions {
            replace: Some("Only this.".into()),
            append: Some("And this.".into()),
        },
    );
    assert_eq!(both.text(), "Only this.\n\nAnd this.");
    let appended = SessionPrompt::build(
        &env,
        &[],
        &sources,
        &PromptOptions {
            replace: None,
            append: Some("Answer in French.".into()),
        },
    );
    assert!(appended.text().contains("\nproject rule\n"));
    assert!(
        appended
            .text()
            .ends_with("project rule\n\nAnswer in French.")
    );
}

#[test]
fn load_with_reads_no_user_files_of_the_real_home() {
    let project = Project::new();
    let ctx = ProjectContext::load_with(
        project.dir.path(),
        project.state.path().to_owned(),
        LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(ctx.instructions, InstructionSources::default());
}

/// Fifth red-team round: what an instruction file imports went into the
/// system prompt with no check, so a checked-in CLAUDE.md could put `.env`
/// (denied to Read), `~/.aws/credentials`, a file anywhere, or tack's own
/// environment (`/proc/self/environ`, its API keys) before the model. Now an
/// import, or an instruction file that is a link, goes in only where a Read
/// of it would be allowed; the user's own files may import from outside the
/// working directories. Each one left out is a notice.
#[tokio::test]
async fn an_import_goes_in_only_where_a_read_of_it_would_be_allowed() {
    let outside = tempfile::tempdir().unwrap();
    let outside = std::fs::canonicalize(outside.path()).unwrap();
    write(&outside, "notes.txt", "OUTSIDE_MARK\n");
    let home = tempfile::tempdir().unwrap();
    let home_path = std::fs::canonicalize(home.path()).unwrap();
    write(&home_path, "personal.md", "PERSONAL_MARK\n");
    write(&home_path, ".claude/CLAUDE.md", "Mine: @~/personal.md\n");
    let project = Project::new();
    project
        .settings(
            serde_json::json!({"permissions": {"deny": ["Read(./.env)", "Read(./secrets/**)"]}}),
        )
        .write(".env", "ENV_MARK\n")
        .write("secrets/k", "SECRET_MARK\n")
        .write("docs/ok.md", "OK_MARK\n")
        .write(
            "CLAUDE.md",
            &format!(
                "See @.env @secrets/k @/proc/self/environ @{} @docs/ok.md\n",
                outside.join("notes.txt").display()
            ),
        );
    std::os::unix::fs::symlink(outside.join("notes.txt"), project.path().join("AGENTS.md"))
        .unwrap();
    let ctx = project
        .context()
        .with_instructions(InstructionSources::user(
            Some(&home_path.join(".claude")),
            None,
            Some(&home_path),
        ));
    let session = Session::assemble(&ctx, SessionOptions::new("imports"))
        .await
        .unwrap();
    let prompt = session.system_prompt();
    let text = prompt.text();
    for mark in ["OK_MARK", "PERSONAL_MARK"] {
        assert!(text.contains(mark), "{mark} missing: {text}");
    }
    for mark in [
        "ENV_MARK",
        "SECRET_MARK",
        "OUTSIDE_MARK",
        "ANTHROPIC",
        "PATH=",
    ] {
        assert!(!text.contains(mark), "{mark} in the prompt: {text}");
    }
    let warnings = prompt.warnings().join("\n");
    for said in [
        ".env",
        "secrets/k",
        "/proc/self/environ",
        "notes.txt",
        "AGENTS.md",
    ] {
        assert!(warnings.contains(said), "no notice for {said}: {warnings}");
    }
}
