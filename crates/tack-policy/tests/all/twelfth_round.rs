//! Twelfth round: files that run later were written in acceptEdits without
//! a person — a hooks directory git is configured to run from a file tack
//! did not read (`$XDG_CONFIG_HOME/git/config`, the system file,
//! `GIT_CONFIG_*`, an included file) or by another repository (an
//! additional directory's, a nested one, a submodule), a Python start-up
//! file of a virtual environment (`*.pth` in `site-packages`, `bin/activate`,
//! `pyvenv.cfg`) and a skills folder tack loads (`.agents/skills`). Each is
//! now a protected path; the ordinary edits beside them stay allowed.

use tack_policy::Verdict::{Allow, Ask};

use crate::support::{case, run_with_tree};

const W: &str = "Write";
const ACCEPT: &[&str] = &["mode acceptEdits"];

/// A project that is a repository, with nothing configured.
const REPO: (&str, &str) = ("{project}/.git/config", "[core]\n\tbare = false\n");

#[test]
fn a_hooks_directory_configured_in_any_file_git_reads_is_protected() {
    run_with_tree(
        &[
            REPO,
            ("{root}/xdg/git/config", "[core]\n\thooksPath = .githooks\n"),
            ("{project}/xdg/git/config", "[user]\n\tname = x\n"),
            ("{root}/sysgit", "[core]\n\thooksPath = .hooks2\n"),
            ("{root}/global.cfg", "[core]\n\thooksPath = hk3\n"),
        ],
        &[
            case(
                &["mode acceptEdits", "env XDG_CONFIG_HOME={root}/xdg"],
                W,
                "{project}/.githooks/pre-commit",
                Ask,
            ),
            // The same write when git reads no such file.
            case(ACCEPT, W, "{project}/.githooks/pre-commit", Allow),
            // The user's configuration file where XDG_CONFIG_HOME puts it.
            case(
                &["mode acceptEdits", "env XDG_CONFIG_HOME={project}/xdg"],
                W,
                "{project}/xdg/git/config",
                Ask,
            ),
            case(
                &["mode acceptEdits", "env GIT_CONFIG_SYSTEM={root}/sysgit"],
                W,
                "{project}/.hooks2/pre-commit",
                Ask,
            ),
            case(
                &[
                    "mode acceptEdits",
                    "env GIT_CONFIG_GLOBAL={root}/global.cfg",
                ],
                W,
                "{project}/hk3/pre-commit",
                Ask,
            ),
            case(
                &[
                    "mode acceptEdits",
                    "env GIT_CONFIG_COUNT=1",
                    "env GIT_CONFIG_KEY_0=core.hooksPath",
                    "env GIT_CONFIG_VALUE_0=hk4",
                ],
                W,
                "{project}/hk4/pre-commit",
                Ask,
            ),
            case(ACCEPT, W, "{project}/src/x.py", Allow),
        ],
    );
}

#[test]
fn a_file_git_includes_and_the_hooks_directory_it_sets_are_protected() {
    run_with_tree(
        &[
            (
                "{project}/.git/config",
                "[include]\n\tpath = ../tools/git.cfg\n\
                 [includeIf \"gitdir:~/elsewhere/\"]\n\tpath = ../tools/other.cfg\n",
            ),
            ("{project}/tools/git.cfg", "[core]\n\thooksPath = hk5\n"),
            ("{project}/tools/other.cfg", "[user]\n\tname = x\n"),
            (
                "{home}/.gitconfig",
                "[include]\n\tpath = ~/dotfiles/git.cfg\n",
            ),
            ("{home}/dotfiles/git.cfg", "[core]\n\thooksPath = hk6\n"),
        ],
        &[
            case(ACCEPT, W, "{project}/tools/git.cfg", Ask),
            case(ACCEPT, W, "{project}/hk5/pre-commit", Ask),
            case(ACCEPT, W, "{project}/tools/other.cfg", Ask),
            case(ACCEPT, W, "{project}/hk6/pre-commit", Ask),
            case(&["allow Edit(~/**)"], W, "{home}/dotfiles/git.cfg", Ask),
            case(ACCEPT, W, "{project}/tools/readme.md", Allow),
        ],
    );
}

#[test]
fn another_repositorys_hooks_directory_is_protected() {
    run_with_tree(
        &[
            REPO,
            ("{root}/other/.git/config", "[core]\n\thooksPath = hk\n"),
            (
                "{project}/vendor/lib/.git/config",
                "[core]\n\thooksPath = hooks\n",
            ),
            ("{project}/sub/.git", "gitdir: ../.git/modules/sub\n"),
            (
                "{project}/.git/modules/sub/config",
                "[core]\n\thooksPath = h\n",
            ),
        ],
        &[
            // An additional working directory that is a repository.
            case(
                &["mode acceptEdits", "dir {root}/other"],
                W,
                "{root}/other/hk/pre-commit",
                Ask,
            ),
            case(
                &["mode acceptEdits", "dir {root}/other"],
                W,
                "{root}/other/src/a.rs",
                Allow,
            ),
            // A nested repository, a submodule.
            case(ACCEPT, W, "{project}/vendor/lib/hooks/pre-commit", Ask),
            case(ACCEPT, W, "{project}/sub/h/post-checkout", Ask),
            case(
                &["allow Edit"],
                W,
                "{project}/vendor/lib/hooks/pre-commit",
                Ask,
            ),
            case(ACCEPT, W, "{project}/vendor/lib/src/a.rs", Allow),
            case(ACCEPT, W, "{project}/sub/hooks.md", Allow),
        ],
    );
}

#[test]
fn a_virtual_environments_start_up_files_are_protected() {
    run_with_tree(
        &[
            ("{project}/.venv/pyvenv.cfg", "home = /usr/bin\n"),
            ("{project}/.venv/bin/activate", "# activate\n"),
            ("{project}/tools/bin/run", "#!/bin/sh\n"),
        ],
        &[
            case(
                ACCEPT,
                W,
                "{project}/.venv/lib/python3.11/site-packages/x.pth",
                Ask,
            ),
            case(
                ACCEPT,
                W,
                "{project}/venv/lib/python3/dist-packages/zz.PTH",
                Ask,
            ),
            case(ACCEPT, W, "{project}/.venv/bin/activate", Ask),
            case(ACCEPT, W, "{project}/.venv/bin/python3", Ask),
            case(ACCEPT, W, "{project}/.venv/Scripts/activate.bat", Ask),
            case(ACCEPT, W, "{project}/.venv/pyvenv.cfg", Ask),
            case(&["allow Edit"], W, "{project}/.venv/bin/activate", Ask),
            // Beside them, ordinary files.
            case(ACCEPT, W, "{project}/src/x.py", Allow),
            case(ACCEPT, W, "{project}/notes.pth", Allow),
            case(ACCEPT, W, "{project}/tools/bin/run", Allow),
            case(
                ACCEPT,
                W,
                "{project}/.venv/lib/python3.11/site-packages/pkg/mod.py",
                Allow,
            ),
            // Installing packages writes `.pth` files, but no command names
            // one: pip is judged as before.
            case(
                &["allow Bash", "mode acceptEdits"],
                "Bash",
                ".venv/bin/pip install -e . && python3 -m venv --clear .venv",
                Allow,
            ),
            case(&["allow Bash"], "Bash", "rm -rf .venv", Allow),
        ],
    );
}

#[test]
fn every_skills_folder_tack_loads_is_protected() {
    run_with_tree(
        &[],
        &[
            case(ACCEPT, W, "{project}/.agents/skills/x/SKILL.md", Ask),
            case(
                &["mode acceptEdits", "dir {home}"],
                W,
                "{home}/.agents/skills/x/SKILL.md",
                Ask,
            ),
            case(
                &["allow Edit(~/**)"],
                W,
                "{home}/.agents/skills/x/run.sh",
                Ask,
            ),
            case(ACCEPT, W, "{project}/.agents/notes.md", Allow),
            case(ACCEPT, W, "{project}/skills/x/SKILL.md", Allow),
        ],
    );
}

/// A repository's configuration is kept per repository, and read again when
/// it changes: a hooks directory set during the session (a person's `git
/// config core.hooksPath h`, or an edit in place) is protected from the next
/// write on, with the same policy; so is a repository made during it.
#[test]
fn a_hooks_directory_set_during_the_session_is_protected_from_then_on() {
    let fx = crate::support::Fixture::new();
    let config = fx.project.join("vendor/lib/.git/config");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[core]\n\tbare = false\n").unwrap();
    let policy = fx.policy(ACCEPT);
    let write = |file: &str| fx.decide_in(&fx.project, &policy, W, file).verdict();
    assert_eq!(write("{project}/vendor/lib/h/pre-commit"), Allow);
    assert_eq!(write("{project}/app/hooks/pre-push"), Allow);
    std::fs::write(&config, "[core]\n\tbare = false\n\thooksPath = h\n").unwrap();
    assert_eq!(write("{project}/vendor/lib/h/pre-commit"), Ask);
    std::fs::create_dir_all(fx.project.join("app/.git")).unwrap();
    std::fs::write(
        fx.project.join("app/.git/config"),
        "[core]\n\thooksPath = hooks\n",
    )
    .unwrap();
    assert_eq!(write("{project}/app/hooks/pre-push"), Ask);
}
