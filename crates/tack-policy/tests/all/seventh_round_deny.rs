//! Seventh round: a Bash deny rule names a program, but the user means its
//! effect. Another program or subcommand with the same effect meets the
//! rule as the command it amounts to (`unlink a.txt` as `rm a.txt`, `git
//! send-pack` as `git push`, `doas` as `sudo`); what only looks alike
//! (`git rm --cached`, `git checkout main`, `mkdir -p d`) does not.

use tack_policy::Verdict::{Allow, Ask, Deny};

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
const COMMIT: &[&str] = &["allow Bash", "deny Bash(git commit *)"];
const REBASE: &[&str] = &["allow Bash", "deny Bash(git rebase *)"];
const BRANCH_D: &[&str] = &["allow Bash", "deny Bash(git branch -D *)"];
const CHECKOUT: &[&str] = &["allow Bash", "deny Bash(git checkout *)"];
const DESTROY: &[&str] = &["allow Bash", "deny Bash(terraform destroy *)"];
const S3_RM: &[&str] = &["allow Bash", "deny Bash(aws s3 rm *)"];
const PR_MERGE: &[&str] = &["allow Bash", "deny Bash(gh pr merge *)"];
const REPO_DELETE: &[&str] = &["allow Bash", "deny Bash(gh repo delete *)"];
const KILL: &[&str] = &["allow Bash", "deny Bash(kill *)"];
const MV: &[&str] = &["allow Bash", "deny Bash(mv *)"];
const SSH: &[&str] = &["allow Bash", "deny Bash(ssh *)"];
const NPM_INSTALL: &[&str] = &["allow Bash", "deny Bash(npm install *)"];
const PIP_INSTALL: &[&str] = &["allow Bash", "deny Bash(pip install *)"];
const DOCKER_RM: &[&str] = &["allow Bash", "deny Bash(docker rm *)"];
const HELM: &[&str] = &["allow Bash", "deny Bash(helm uninstall *)"];
const CARGO_PUBLISH: &[&str] = &["allow Bash", "deny Bash(cargo publish *)"];
const FORCE: &[&str] = &["allow Bash", "deny Bash(git push --force *)"];
const TARGETED: &[&str] = &["allow Bash", "deny Bash(chmod * /usr/local/bin/*)"];

/// Found by the seventh round's red team on the first version of the table.
const SECOND_LOOK: &[Case] = &[
    // An option letter inside an ordinary word is no option.
    case(CHMOD, B, "mkdir tmp", Allow),
    case(CHMOD, B, "mkdir images", Allow),
    case(CHMOD, B, "mkdir -p src/main/java", Allow),
    case(CHMOD, B, "mkdir node_modules", Allow),
    case(CHMOD, B, "install README.md doc/", Allow),
    case(CHOWN, B, "install -D config.toml out/config.toml", Allow),
    case(
        TARGETED,
        B,
        "install -m 755 a.txt /usr/local/bin/tool",
        Deny,
    ),
    case(TARGETED, B, "install -m 755 a.txt bin/tool", Allow),
    // The options in any spelling the program takes.
    case(RESET, B, "git switch --discard master", Deny),
    case(RESET, B, "git checkout --forc master", Deny),
    case(RESET, B, "git restore --wor -S .", Deny),
    case(RM, B, "shred --rem b.txt", Deny),
    case(CHMOD, B, "install --mo=755 a.txt a2", Deny),
    case(CHMOD, B, "mkdir --mo=777 d", Deny),
    case(KUBECTL, B, "kubectl replace --force=true -f pod.yaml", Deny),
    case(
        KUBECTL,
        B,
        "kubectl replace --force=false -f pod.yaml",
        Allow,
    ),
    case(RM, B, "git rm --cach a.txt", Allow),
    case(RM, B, "git clean --dry", Allow),
    // The same program or subcommand by another name.
    case(PIP_INSTALL, B, "python3 -m pip install x", Deny),
    case(PIP_INSTALL, B, "python3 -Im pip -q install x", Deny),
    case(PIP_INSTALL, B, "v/bin/python -m pip install x", Deny),
    case(DOCKER_RM, B, "docker container rm c1", Deny),
    case(DOCKER_RM, B, "docker -c default container remove c1", Deny),
    case(DOCKER_RM, B, "podman container rm c1", Deny),
    case(HELM, B, "helm delete myrel", Deny),
    case(HELM, B, "helm un myrel", Deny),
    case(DESTROY, B, "tofu destroy", Deny),
    case(SSH, B, "slogin host id", Deny),
    case(CHOWN, B, "chgrp root a.txt", Deny),
    case(
        PUBLISH,
        B,
        "/usr/lib/node_modules/npm/bin/npm-cli.js publish",
        Deny,
    ),
    case(
        PUBLISH,
        B,
        "node /usr/lib/node_modules/npm/index.js publish",
        Deny,
    ),
    case(
        PUBLISH,
        B,
        "node -r ./r.js /usr/lib/node_modules/npm/bin/npm-cli.js publish",
        Deny,
    ),
    case(CARGO_PUBLISH, B, "cargo +stable publish", Deny),
    case(SUDO, B, "sudoedit /etc/hosts", Deny),
    // Global options with a value before the subcommand.
    case(HELM, B, "helm -n prod uninstall myrel", Deny),
    case(HELM, B, "helm --kube-context x uninstall myrel", Deny),
    case(
        S3_RM,
        B,
        "aws --endpoint-url http://127.0.0.1:18602 s3 rm s3://b/k",
        Deny,
    ),
    case(S3_RM, B, "aws --profile prod s3 rm s3://b/k", Deny),
    case(PR_MERGE, B, "gh -R o/r pr merge 1", Deny),
    case(PR_MERGE, B, "gh pr -R o/r merge 1", Deny),
    case(PIP_INSTALL, B, "pip --log /tmp/l install x", Deny),
    case(PIP_INSTALL, B, "pip --cache-dir /tmp/c install x", Deny),
    case(CARGO_PUBLISH, B, "cargo --color never publish", Deny),
    case(PUBLISH, B, "pnpm --dir x publish", Deny),
    // Deleting the remote's branches is as destructive as overwriting them.
    case(FORCE, B, "git push origin :main", Deny),
    case(FORCE, B, "git push --delete origin main", Deny),
    case(FORCE, B, "git push -d origin main", Deny),
    case(
        FORCE,
        B,
        "git push --prune origin refs/heads/*:refs/heads/*",
        Deny,
    ),
    case(FORCE, B, "git push origin main", Allow),
    // More of what the covered rules mean.
    case(CHMOD, B, "git add --chmod=+x a.txt", Deny),
    case(
        CHMOD,
        B,
        "cp --attributes-only --preserve=mode /bin/ls a.txt",
        Deny,
    ),
    case(CHMOD, B, "gio set -t uint32 a.txt unix::mode 511", Deny),
    case(CHMOD, B, "mkfifo -m 777 f", Deny),
    case(SUDO, B, "chroot --userspec=nobody / id", Deny),
    case(
        SUDO,
        B,
        "start-stop-daemon --start --chuid nobody --exec /usr/bin/id",
        Deny,
    ),
    case(SUDO, B, "capsh --user=nobody -- -c id", Deny),
    case(SUDO, B, "gosu nobody id", Deny),
    case(SUDO, B, "chroot /srv/root ls", Allow),
    case(CURL, B, "wget -qO- localhost:18610/", Deny),
    case(CURL, B, "wget -qO- --input-file=urls.txt", Deny),
    case(CURL, B, "xh :8000/x", Deny),
    // Rules the first table did not cover.
    case(COMMIT, B, "git cherry-pick topic", Deny),
    case(COMMIT, B, "git revert --no-edit HEAD", Deny),
    case(COMMIT, B, "git merge --no-ff topic", Deny),
    case(COMMIT, B, "git am 0001.patch", Deny),
    case(COMMIT, B, "git merge --abort", Allow),
    case(COMMIT, B, "git cherry-pick -n topic", Allow),
    case(REBASE, B, "git pull --rebase", Deny),
    case(REBASE, B, "git pull -r", Deny),
    case(REBASE, B, "git pull --reb", Deny),
    case(REBASE, B, "git pull origin main --rebase=interactive", Deny),
    case(REBASE, B, "git pull --ff-only", Allow),
    case(BRANCH_D, B, "git update-ref -d refs/heads/topic", Deny),
    case(BRANCH_D, B, "git push . :topic", Deny),
    case(BRANCH_D, B, "git push . --delete topic", Deny),
    case(BRANCH_D, B, "git push origin main", Allow),
    case(CHECKOUT, B, "git switch main", Deny),
    case(CHECKOUT, B, "git restore a.txt", Deny),
    case(DESTROY, B, "terraform apply -destroy -auto-approve", Deny),
    case(DESTROY, B, "terraform apply --destroy", Deny),
    case(DESTROY, B, "terraform -chdir=x apply -destroy", Deny),
    case(DESTROY, B, "terraform apply -auto-approve", Allow),
    case(S3_RM, B, "aws s3api delete-object --bucket b --key k", Deny),
    case(S3_RM, B, "aws s3 rb --force s3://b", Deny),
    case(S3_RM, B, "aws s3 sync --delete empty/ s3://b", Deny),
    case(S3_RM, B, "aws s3 mv s3://b/k ./k", Deny),
    case(S3_RM, B, "aws s3 sync s3://b ./local", Allow),
    case(S3_RM, B, "aws s3 ls s3://b", Allow),
    case(PR_MERGE, B, "gh api -X PUT repos/o/r/pulls/1/merge", Deny),
    case(REPO_DELETE, B, "gh api --method DELETE /repos/o/r", Deny),
    case(REPO_DELETE, B, "gh api -XDELETE repos/o/r", Deny),
    case(REPO_DELETE, B, "gh api repos/o/r", Allow),
    case(KILL, B, "pkill -9 -f server", Deny),
    case(KILL, B, "killall node", Deny),
    case(KILL, B, "fuser -k 8080/tcp", Deny),
    case(KILL, B, "fuser 8080/tcp", Allow),
    case(KILL, B, "pgrep node", Allow),
    case(MV, B, "git mv a.txt c.txt", Deny),
    case(MV, B, "gio move a.txt c.txt", Deny),
    case(MV, B, "gio rename a.txt c.txt", Deny),
    case(SSH, B, "scp a.txt host:/tmp/", Deny),
    case(SSH, B, "sftp host", Deny),
    case(SSH, B, "ssh-copy-id host", Deny),
    case(
        &["mode acceptEdits", "allow Bash", "deny Bash(ssh *)"],
        B,
        "scp a.txt b.txt",
        Allow,
    ),
    case(NPM_INSTALL, B, "npm ci", Deny),
    case(NPM_INSTALL, B, "npm it", Deny),
    case(NPM_INSTALL, B, "npm update", Deny),
    case(NPM_INSTALL, B, "yarn add x", Deny),
    case(NPM_INSTALL, B, "yarn", Deny),
    case(NPM_INSTALL, B, "pnpm i", Deny),
    case(NPM_INSTALL, B, "bun install", Deny),
    case(NPM_INSTALL, B, "npm test", Allow),
    case(NPM_INSTALL, B, "yarn build", Allow),
    case(PIP_INSTALL, B, "uv add x", Deny),
    case(PIP_INSTALL, B, "pipx install x", Deny),
    case(PIP_INSTALL, B, "poetry add x", Deny),
    case(PIP_INSTALL, B, "uv run pytest", Allow),
];

#[test]
fn the_forms_hold_as_a_class() {
    run(SECOND_LOOK);
}

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
    case(RESET, B, "git checkout src/main.rs", Deny),
    case(RESET, B, "git checkout HEAD docs", Deny),
    case(RESET, B, "git checkout main", Allow),
    case(RESET, B, "git checkout -b docs", Allow),
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

const PIP_INSTALL_R: &[&str] = &["allow Bash", "deny Bash(pip install *)"];
const ASK_INSTALL: &[&str] = &["allow Bash", "ask Bash(npm install *)"];
const ASK_COMMIT: &[&str] = &["allow Bash", "ask Bash(git commit *)"];

/// Found by the eighth round's red team: what only looks alike is not read
/// as the rule's command, and the spellings and names it still missed.
const THIRD_LOOK: &[Case] = &[
    // Not the rule's effect.
    case(PUBLISH, B, "yarn test publish", Allow),
    case(PUBLISH, B, "pnpm vitest run publish", Allow),
    case(PUBLISH, B, "bun test publish", Allow),
    case(PUBLISH, B, "pnpm --filter publish build", Allow),
    case(PUBLISH, B, "pnpm -r publish", Deny),
    case(PUBLISH, B, "yarn workspace web npm publish", Deny),
    case(PIP_INSTALL_R, B, "poetry lock", Allow),
    case(PIP_INSTALL_R, B, "pdm lock", Allow),
    case(
        SUDO,
        B,
        "systemd-run --user --scope -p MemoryMax=1G make",
        Allow,
    ),
    case(SUDO, B, "systemd-run --user --scope mkdir -p out", Allow),
    case(
        SUDO,
        B,
        "start-stop-daemon --stop --user www-data --exec /usr/sbin/nginx",
        Allow,
    ),
    case(SUDO, B, "chroot /srv/root ls --groups", Allow),
    case(SUDO, B, "sg scan", Allow),
    case(SUDO, B, "sg run -p 'console.log($A)' src", Allow),
    case(SUDO, B, "sg docker -c id", Deny),
    case(ASK_COMMIT, B, "git merge --squash topic", Allow),
    case(S3_RM, B, "aws s3 mv ./dist/app.zip s3://b/app.zip", Allow),
    case(
        S3_RM,
        B,
        "aws s3 sync --delete --dryrun ./dist s3://b",
        Allow,
    ),
    case(
        S3_RM,
        B,
        "aws s3api delete-object-tagging --bucket b --key k",
        Allow,
    ),
    case(CHMOD, B, "umask 022", Allow),
    case(CHMOD, B, "umask 077", Allow),
    case(CHMOD, B, "umask 002", Deny),
    case(CHECKOUT, B, "git restore --staged a.txt", Allow),
    case(CURL, B, "w3m README.md", Allow),
    case(CURL, B, "lynx -dump https://example.com", Deny),
    case(CHMOD, B, "install -tmybin a.txt", Allow),
    case(KILL, B, "killall --help", Allow),
    case(DESTROY, B, "terraform apply -var destroy=true", Allow),
    case(ASK_COMMIT, B, "docker compose build", Allow),
    case(ASK_COMMIT, B, "docker compose pull", Allow),
    case(ASK_COMMIT, B, "docker compose down", Allow),
    case(ASK_COMMIT, B, "docker compose up -d", Ask),
    // The spellings it missed.
    case(COMMIT, B, "git merge --ff topic", Deny),
    case(COMMIT, B, "git cherry-pick --ff topic", Deny),
    case(COMMIT, B, "git am -n 0001.patch", Deny),
    case(REBASE, B, "git pull -qr", Deny),
    case(REBASE, B, "git pull --rebase=false", Allow),
    case(DESTROY, B, "terraform apply -destroy=1", Deny),
    case(DESTROY, B, "terraform apply -destroy=TRUE", Deny),
    case(
        SUDO,
        B,
        "start-stop-daemon -S -cnobody -x /usr/bin/id",
        Deny,
    ),
    case(SUDO, B, "systemd-run --property=User=root id", Deny),
    case(SUDO, B, "systemd-run -pUser=root id", Deny),
    case(PR_MERGE, B, "gh api -X=PUT repos/o/r/pulls/1/merge", Deny),
    case(
        PR_MERGE,
        B,
        "gh api -X PUT 'repos/o/r/pulls/1/merge?merge_method=squash'",
        Deny,
    ),
    case(
        REPO_DELETE,
        B,
        "gh api -X DELETE https://api.github.com/repos/o/r",
        Deny,
    ),
    case(ASK_INSTALL, B, "npm --prefix web ci", Ask),
    case(ASK_INSTALL, B, "npm --loglevel silly ci", Ask),
    case(ASK_INSTALL, B, "pnpm -w add x", Ask),
    case(ASK_INSTALL, B, "pnpm --reporter silent install", Ask),
    case(PIP_INSTALL_R, B, "uv --color never add requests", Deny),
    // Through git aliases and wrappers.
    case(COMMIT, B, "git -c alias.m=merge m --no-ff topic", Deny),
    case(
        BRANCH_D,
        B,
        "git -c alias.u=update-ref u -d refs/heads/topic",
        Deny,
    ),
    case(REBASE, B, "git -c 'alias.up=pull --rebase' up", Deny),
    case(RM, B, "git -c alias.c=clean c -fdx", Deny),
    case(PUSH, B, "git -c alias.sp=send-pack sp ../r.git main", Deny),
    case(RESET, B, "git -c alias.co=checkout co -f main", Deny),
    case(RM, B, "hub clean -fdx", Deny),
    case(PUBLISH, B, "pnpm -r exec npm publish", Deny),
    // The same program by another path or name.
    case(PIP_INSTALL_R, B, "python3 -m pip.__main__ install x", Deny),
    case(PIP_INSTALL_R, B, "python3 v/bin/pip install x", Deny),
    case(PIP_INSTALL_R, B, "pypy3 -m pip install x", Deny),
    case(PIP_INSTALL_R, B, "uv pip sync requirements.txt", Deny),
    case(PIP_INSTALL_R, B, "uv tool install ruff", Deny),
    case(PIP_INSTALL_R, B, "python3 script.py", Allow),
    case(DOCKER_RM, B, "podman-remote rm c1", Deny),
    case(DOCKER_RM, B, "podman pod rm -f p1", Deny),
    case(DESTROY, B, "terragrunt run-all destroy", Deny),
    // Options a variable adds to the command.
    case(
        DESTROY,
        B,
        "TF_CLI_ARGS_apply=-destroy terraform apply",
        Ask,
    ),
    case(
        DESTROY,
        B,
        "export TF_CLI_ARGS=-destroy; terraform apply -auto-approve",
        Ask,
    ),
    // The same effect.
    case(BRANCH_D, B, "git push ./ :topic", Deny),
    case(BRANCH_D, B, "git push .git :topic", Deny),
    case(BRANCH_D, B, "git push . +:topic", Deny),
    case(ASK_INSTALL, B, "npm rebuild", Ask),
    case(ASK_INSTALL, B, "npm create vite@latest x", Ask),
    case(ASK_INSTALL, B, "npm init vite x", Ask),
    case(ASK_INSTALL, B, "npm init -y", Allow),
    case(RESET, B, "git stash drop", Ask),
    case(RESET, B, "git stash clear", Deny),
    case(RESET, B, "git stash", Allow),
    case(RESET, B, "git stash list", Allow),
    case(KILL, B, "start-stop-daemon --stop --pidfile x.pid", Deny),
    case(
        CHOWN,
        B,
        "cp --attributes-only --preserve=ownership src f",
        Deny,
    ),
    case(CHOWN, B, "gio set -t uint32 f unix::uid 65534", Deny),
    case(SSH, B, "docker -H ssh://host ps", Deny),
    case(SSH, B, "rsync -av a.txt host:/tmp/", Deny),
    case(KUBECTL, B, "kubectl apply --force -f pod.yaml", Deny),
    case(PIP_INSTALL_R, B, "poetry update", Deny),
    case(PIP_INSTALL_R, B, "pipx upgrade ruff", Deny),
];

#[test]
fn what_only_looks_alike_is_not_the_rules_command() {
    run(THIRD_LOOK);
}
