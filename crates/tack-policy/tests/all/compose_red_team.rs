//! Red team round 3, area `compose`: checked-in allow rules for programs
//! that run a command they are given.
//!
//! B: a package or environment runner the shell analyser unwraps (`direnv
//! exec`, `pipenv run`, `mise exec`, `nix develop`, `ip netns exec`,
//! `toolbox run`, `flatpak-spawn`) runs its inner command with no rule of
//! its own, so a project's `Bash(direnv *)` allowed every command, applied
//! unapproved. wide.rs now reads the analyser's own table of runners.
//!
//! C: task runners that take a command line or a task file from anywhere
//! (`just -c CMD`, `task --taskfile /x`, `invoke -c /x`, `pre-commit
//! try-repo DIR`, `tox`, `nox`, `ninja`, `bazel`, `nx`, `turbo`, `mise
//! run`) are withheld like `make *`.

fn wide(rule: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    tack_policy::wide_allow_rule(rule, &root, None)
}

#[test]
fn a_package_runner_the_analyser_unwraps_is_wide() {
    for broad in [
        "Bash(direnv *)",
        "Bash(direnv:*)",
        "Bash(direnv exec *)",
        "Bash(direnv exec . *)",
        "Bash(direnv ex*)",
        "Bash(/usr/bin/direnv *)",
        "Bash(pipenv *)",
        "Bash(pipenv run *)",
        "Bash(micromamba *)",
        "Bash(micromamba run *)",
        "Bash(mise *)",
        "Bash(mise x *)",
        "Bash(mise exec *)",
        "Bash(rtx *)",
        "Bash(nix develop *)",
        "Bash(nix shell *)",
        "Bash(ip *)",
        "Bash(ip netns *)",
        "Bash(ip netns exec *)",
        "Bash(toolbox *)",
        "Bash(toolbox run *)",
        "Bash(flatpak-spawn *)",
        "Bash(flatpak-spawn --host *)",
        "Bash(distrobox-host-exec *)",
        "Bash(podman unshare *)",
        "Bash(vagrant ssh *)",
        "Bash(bunx *)",
        "Bash(pnpm dlx *)",
        "Bash(yarn exec *)",
        "Bash(bun x *)",
        "Bash(conda run *)",
        "Bash(kubectl exec *)",
        "Bash(nix-shell *)",
        // Runners the analyser does not unwrap, by their subcommand.
        "Bash(pixi run *)",
        "Bash(rye run *)",
        "Bash(devbox run *)",
    ] {
        let why = wide(broad);
        assert!(why.is_some(), "{broad} should wait for approval");
    }
    let why = wide("Bash(direnv *)").unwrap();
    assert!(why.contains("direnv exec"), "{why}");
}

#[test]
fn a_task_runner_that_takes_a_command_line_is_wide() {
    for broad in [
        "Bash(just *)",
        "Bash(just test *)",
        "Bash(task *)",
        "Bash(go-task *)",
        "Bash(invoke *)",
        "Bash(inv *)",
        "Bash(pre-commit *)",
        "Bash(pre-commit run *)",
        "Bash(tox *)",
        "Bash(nox *)",
        "Bash(ninja *)",
        "Bash(bazel *)",
        "Bash(bazelisk *)",
        "Bash(nx *)",
        "Bash(turbo *)",
        "Bash(lerna *)",
        "Bash(mise run *)",
        "Bash(concurrently *)",
        "Bash(cross-env *)",
        "Bash(dotenv *)",
        "Bash(watchexec *)",
        // A declared tool running one of them with a wildcard.
        "run(just *)",
    ] {
        assert!(wide(broad).is_some(), "{broad} should wait for approval");
    }
}

/// What a project may still allow without approval: a runner's or a task
/// runner's exact command, and everyday programs whose subcommand runs
/// nothing it is given.
#[test]
fn exact_commands_and_everyday_rules_stay_narrow() {
    for narrow in [
        "Bash(just test)",
        "Bash(just)",
        "Bash(tox -e py312)",
        "Bash(pre-commit run --all-files)",
        "Bash(direnv allow)",
        "Bash(direnv exec . make test)",
        "Bash(mise ls *)",
        "Bash(ip addr *)",
        "Bash(ip route *)",
        "Bash(nix build *)",
        "Bash(nix flake check *)",
        "Bash(cargo test *)",
        "Bash(npm run test *)",
        "Bash(npm test *)",
        "Bash(git log *)",
        "Bash(git status *)",
        "Bash(ls *)",
        "Bash(grep *)",
        "Bash(pytest *)",
        "Bash(ruff check *)",
        "Bash(mypy *)",
        "Bash(eslint *)",
        "Bash(prettier --check *)",
        "Bash(tsc *)",
        "Bash(go test *)",
        "Bash(cargo clippy *)",
        "Bash(docker ps *)",
        "Bash(kubectl get *)",
        "Bash(make test)",
    ] {
        assert_eq!(wide(narrow), None, "{narrow}");
    }
}
