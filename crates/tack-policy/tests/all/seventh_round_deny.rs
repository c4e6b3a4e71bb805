//! Seventh round: a Bash deny rule names a program, but the user means its
//! effect. Another program or subcommand with the same effect meets the
//! rule as the command it amounts to (`unlink a.txt` as `rm a.txt`, `git
//! send-pack` as `git push`, `doas` as `sudo`); what only looks alike
//! (`git rm --cached`, `git checkout main`, `mkdir -p d`) does not.

use tack_policy::Verdict::{Allow, Deny};

use crate::support::{Case, Fixture, case, run};

const B: &str = "Bash";
const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];
const PUSH: &[&str] = &["allow Bash", "deny Bash(git push *)"];
const RESET: &[&str] = &["allow Bash", "deny Bash(git reset --hard *)"];
const CHMOD: &[&str] = &["allow Bash", "deny Bash(chmod *)"];
const CHOWN: &[&str] = &["allow Bash", "deny Bash(chown *)"];
const SUDO: &[&str] = &["allow Bash", "deny Bash(sudo *)"];
const KUBECTL: &[&str] = &["allow Bash", "deny Bash(kubectl delete *)"];
const PUBLISH: &[&str] = &["allow Bash", "deny Bash(npm publish *)"];
const DOCKER: &[&str] = &["allow Bash", "deny Bash(docker *)"];
const CURL: &[&str] = &["allow Bash", "deny Bash(curl *)"];

const REMOVALS: &[Case] = &[
    case(RM, B, "unlink a.txt", Deny),
    case(RM, B, "shred -u b.txt", Deny),
    case(RM, B, "shred -zun3 b.txt", Deny),
    case(RM, B, "shred --remove=wipesync b.txt", Deny),
    case(RM, B, "git rm -q t.txt", Deny),
    case(RM, B, "git rm -rf .", Deny),
    case(RM, B, "git -C . rm t.txt", Deny),
    case(RM, B, "git clean -fdx", Deny),
    case(RM, B, "git clean -ffdx", Deny),
    case(RM, B, "find . -name a.txt -exec unlink {} +", Deny),
    case(RM, B, "xargs unlink <<< a.txt", Deny),
    case(RM, B, "/usr/bin/unlink a.txt", Deny),
    case(RM, B, "sudo unlink a.txt", Deny),
    case(RM, B, "gio remove a.txt", Deny),
    case(RM, B, "trash-put a.txt", Deny),
    // Alike only in name.
    case(RM, B, "shred -n 3 b.txt", Allow),
    case(RM, B, "git rm --cached t.txt", Allow),
    case(RM, B, "git clean -n", Allow),
    case(RM, B, "git status", Allow),
];

const PUSHES: &[Case] = &[
    case(PUSH, B, "git send-pack ../r.git master", Deny),
    case(PUSH, B, "git send-pack --force ../r.git master", Deny),
    case(PUSH, B, "git send-pack --all git@github.com:me/r.git", Deny),
    case(
        PUSH,
        B,
        "/usr/lib/git-core/git-send-pack ../r.git master",
        Deny,
    ),
    case(PUSH, B, "hub push origin main", Deny),
    case(PUSH, B, "git subtree push --prefix=lib origin main", Deny),
    case(PUSH, B, "git fetch origin", Allow),
    case(PUSH, B, "hub status", Allow),
];

const DISCARDS: &[Case] = &[
    case(RESET, B, "git checkout -f -B master HEAD~1", Deny),
    case(RESET, B, "git checkout -f HEAD", Deny),
    case(RESET, B, "git checkout -- .", Deny),
    case(RESET, B, "git checkout .", Deny),
    case(RESET, B, "git read-tree -u --reset HEAD", Deny),
    case(RESET, B, "git restore -SW --source=HEAD .", Deny),
    case(RESET, B, "git restore a.txt", Deny),
    case(RESET, B, "git switch -f master", Deny),
    case(RESET, B, "git switch --discard-changes master", Deny),
    case(RESET, B, "git checkout-index -f -a", Deny),
    case(RESET, B, "git checkout main", Allow),
    case(RESET, B, "git checkout -b topic", Allow),
    case(RESET, B, "git switch -c topic", Allow),
    case(RESET, B, "git restore --staged a.txt", Allow),
    case(RESET, B, "git read-tree HEAD", Allow),
];

const MODES: &[Case] = &[
    case(CHMOD, B, "install -m 4755 a.txt a2", Deny),
    case(CHMOD, B, "install -Dm755 a.txt bin/a", Deny),
    case(CHMOD, B, "install --mode=0777 a.txt a2", Deny),
    case(CHMOD, B, "install -d -m 0777 d3", Deny),
    case(CHMOD, B, "mkdir -m 777 d", Deny),
    case(CHMOD, B, "mkdir -pm 777 d", Deny),
    case(CHMOD, B, "rsync --chmod=777 a.txt b", Deny),
    case(CHMOD, B, "git update-index --chmod=+x a.txt", Deny),
    case(CHMOD, B, "setfacl -m u:nobody:rwx a.txt", Deny),
    case(CHMOD, B, "umask 000", Deny),
    case(CHOWN, B, "install -o root a.txt a2", Deny),
    case(CHOWN, B, "rsync --chown=root a.txt b", Deny),
    case(CHMOD, B, "install a.txt a2", Allow),
    case(CHMOD, B, "mkdir -p d", Allow),
    case(CHMOD, B, "umask", Allow),
    case(CHMOD, B, "rsync -a a.txt b", Allow),
];

const PRIVILEGES: &[Case] = &[
    case(SUDO, B, "su -c ls", Deny),
    case(SUDO, B, "su nobody -s /bin/sh -c id", Deny),
    case(SUDO, B, "runuser -u root ls", Deny),
    case(SUDO, B, "doas ls", Deny),
    case(SUDO, B, "pkexec ls", Deny),
    case(SUDO, B, "run0 ls", Deny),
    case(SUDO, B, "setpriv --reuid=0 ls", Deny),
    case(SUDO, B, "setpriv --no-new-privs ls", Allow),
    case(SUDO, B, "ls", Allow),
];

const OTHER_CLIENTS: &[Case] = &[
    case(KUBECTL, B, "kubectl replace --force -f pod.yaml", Deny),
    case(
        KUBECTL,
        B,
        "kubectl -n x apply --prune -f dir/ -l a=b",
        Deny,
    ),
    case(KUBECTL, B, "oc delete pod x", Deny),
    case(KUBECTL, B, "kubecolor delete pod x", Deny),
    case(KUBECTL, B, "microk8s kubectl delete pod x", Deny),
    case(KUBECTL, B, "kubectl replace -f pod.yaml", Allow),
    case(KUBECTL, B, "oc get pods", Allow),
    case(
        PUBLISH,
        B,
        "node /usr/lib/node_modules/npm/bin/npm-cli.js publish",
        Deny,
    ),
    case(PUBLISH, B, "pnpm publish", Deny),
    case(PUBLISH, B, "yarn publish", Deny),
    case(PUBLISH, B, "yarn npm publish", Deny),
    case(PUBLISH, B, "bun publish", Deny),
    case(PUBLISH, B, "lerna publish", Deny),
    case(PUBLISH, B, "corepack pnpm publish", Deny),
    case(PUBLISH, B, "pnpm install", Allow),
    case(
        PUBLISH,
        B,
        "node /usr/lib/node_modules/npm/bin/npm-cli.js view x",
        Allow,
    ),
    case(DOCKER, B, "podman run alpine", Deny),
    case(DOCKER, B, "nerdctl run alpine", Deny),
    case(
        DOCKER,
        B,
        "curl --unix-socket /var/run/docker.sock http://localhost/containers/json",
        Deny,
    ),
    case(DOCKER, B, "nc -U /var/run/docker.sock", Deny),
    case(
        DOCKER,
        B,
        "socat - UNIX-CONNECT:/run/podman/podman.sock",
        Deny,
    ),
    case(DOCKER, B, "nc -z localhost 80", Allow),
    case(CURL, B, "wget -qO- https://example.com", Deny),
    case(CURL, B, "http https://example.com", Deny),
    case(CURL, B, "http --version", Allow),
];

#[test]
fn another_program_that_removes_files_meets_an_rm_rule() {
    run(REMOVALS);
}

#[test]
fn another_command_that_pushes_meets_a_git_push_rule() {
    run(PUSHES);
}

#[test]
fn commands_that_discard_work_meet_a_git_reset_hard_rule() {
    run(DISCARDS);
}

#[test]
fn commands_that_set_modes_or_owners_meet_chmod_and_chown_rules() {
    run(MODES);
}

#[test]
fn commands_that_run_as_another_user_meet_a_sudo_rule() {
    run(PRIVILEGES);
}

#[test]
fn other_clients_of_the_same_service_meet_its_rule() {
    run(OTHER_CLIENTS);
}

#[test]
fn a_refusal_says_what_the_command_amounts_to() {
    let fx = Fixture::new();
    let policy = fx.policy(RM);
    let d = fx.decide_in(&fx.project, &policy, B, "unlink a.txt");
    assert_eq!(d.verdict(), Deny, "{d}");
    let text = format!("{:?}", d.why());
    assert!(
        text.contains("removes files, as `rm` does") && text.contains("rm a.txt"),
        "{text}"
    );
}
