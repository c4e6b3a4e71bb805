//! Ninth round: more commands with the effect of a denied one. A Bash deny
//! or ask rule names a program, but the user means its effect; each table
//! holds the refused spellings beside everyday commands that stay allowed.

use tack_policy::Verdict::{Allow, Ask, Deny};

use crate::support::{Case, case, run};

const B: &str = "Bash";
const SUDO: &[&str] = &["allow Bash", "deny Bash(sudo *)"];

/// A run-as option after another option's value is still read.
const RUN_AS_AFTER_A_VALUE: &[Case] = &[
    case(
        SUDO,
        B,
        "start-stop-daemon --start --name x --chuid nobody --exec /usr/bin/id",
        Deny,
    ),
    case(
        SUDO,
        B,
        "start-stop-daemon -S -x /usr/bin/id -c nobody",
        Deny,
    ),
    case(
        SUDO,
        B,
        "start-stop-daemon -S -u root -c nobody -x /usr/bin/id",
        Deny,
    ),
    case(SUDO, B, "start-stop-daemon -Sc nobody -x /usr/bin/id", Deny),
    case(SUDO, B, "systemd-run --unit x --uid=0 id", Deny),
    case(SUDO, B, "systemd-run --unit x --uid 0 id", Deny),
    case(SUDO, B, "systemd-run -E A=1 --uid=0 id", Deny),
    case(SUDO, B, "systemd-run -p MemoryMax=1G -p User=root id", Deny),
    case(SUDO, B, "systemd-run --description x -p User=root id", Deny),
    case(
        SUDO,
        B,
        "setpriv --groups 0 --reuid 65534 --regid 65534 id",
        Deny,
    ),
    case(SUDO, B, "chpst -n 5 -u nobody id", Deny),
    // What only looks alike: a value, a match option, a property.
    case(SUDO, B, "systemd-run --user -p MemoryMax=1G make", Allow),
    case(
        SUDO,
        B,
        "systemd-run --user --scope -p MemoryMax=1G make",
        Allow,
    ),
    case(
        SUDO,
        B,
        "systemd-run --unit build -p MemoryMax=1G make",
        Allow,
    ),
    case(
        SUDO,
        B,
        "start-stop-daemon --stop --user www-data --exec /usr/sbin/nginx",
        Allow,
    ),
    case(
        SUDO,
        B,
        "start-stop-daemon --start --name web --exec /usr/bin/web",
        Allow,
    ),
    case(
        SUDO,
        B,
        "setpriv --no-new-privs --pdeathsig TERM make",
        Allow,
    ),
    case(SUDO, B, "chpst -n 5 make", Allow),
    case(SUDO, B, "systemd-run --user make -p User=root", Allow),
];

#[test]
fn a_run_as_option_after_another_options_value_is_read() {
    run(RUN_AS_AFTER_A_VALUE);
}

const STOP: &[&str] = &["allow Bash", "deny Bash(systemctl stop *)"];
const SHUTDOWN: &[&str] = &["allow Bash", "deny Bash(shutdown *)"];
const SSH: &[&str] = &["allow Bash", "deny Bash(ssh *)"];

/// Stopping a service or the machine by the other commands that do it, and
/// systemctl's options with a value before its verb.
const STOPPING: &[Case] = &[
    case(STOP, B, "systemctl -H host stop nginx", Deny),
    case(STOP, B, "systemctl -M ctr stop nginx", Deny),
    case(STOP, B, "systemctl --user -M me@ stop app", Deny),
    case(STOP, B, "systemctl -t service stop nginx", Deny),
    case(STOP, B, "systemctl --signal 9 stop nginx", Deny),
    case(STOP, B, "systemctl --job-mode replace stop nginx", Deny),
    case(STOP, B, "systemctl -o json stop nginx", Deny),
    case(STOP, B, "service nginx stop", Deny),
    case(STOP, B, "service nginx restart", Deny),
    case(STOP, B, "invoke-rc.d nginx stop", Deny),
    case(STOP, B, "/etc/init.d/nginx stop", Deny),
    case(STOP, B, "systemctl kill nginx", Deny),
    case(STOP, B, "systemctl kill -s 9 nginx", Deny),
    case(STOP, B, "systemctl disable --now nginx", Deny),
    case(STOP, B, "systemctl mask --now nginx", Deny),
    case(STOP, B, "systemctl status nginx", Allow),
    case(STOP, B, "systemctl -t service list-units", Allow),
    case(STOP, B, "service nginx status", Allow),
    case(STOP, B, "systemctl disable nginx", Allow),
    case(STOP, B, "systemctl enable --now nginx", Allow),
    case(STOP, B, "systemctl start nginx", Allow),
    case(SHUTDOWN, B, "reboot", Deny),
    case(SHUTDOWN, B, "poweroff", Deny),
    case(SHUTDOWN, B, "halt", Deny),
    case(SHUTDOWN, B, "systemctl reboot", Deny),
    case(SHUTDOWN, B, "systemctl poweroff", Deny),
    case(SHUTDOWN, B, "systemctl -i halt", Deny),
    case(SHUTDOWN, B, "systemctl kexec", Deny),
    case(SHUTDOWN, B, "systemctl isolate poweroff.target", Deny),
    case(SHUTDOWN, B, "systemctl start reboot.target", Deny),
    case(SHUTDOWN, B, "telinit 0", Deny),
    case(SHUTDOWN, B, "telinit 6", Deny),
    case(SHUTDOWN, B, "init 0", Deny),
    case(SHUTDOWN, B, "init 6", Deny),
    case(SHUTDOWN, B, "reboot --help", Allow),
    case(SHUTDOWN, B, "telinit q", Allow),
    case(SHUTDOWN, B, "systemctl status reboot.target", Allow),
    case(SHUTDOWN, B, "systemctl start nginx", Allow),
    case(SSH, B, "systemctl -H host status", Deny),
    case(SSH, B, "systemctl --host=root@host status nginx", Deny),
    case(SSH, B, "busctl -H h tree", Deny),
    case(SSH, B, "hostnamectl -H h", Deny),
    case(SSH, B, "systemctl status nginx", Allow),
    case(SSH, B, "systemd-run --user make -H x", Allow),
];

#[test]
fn a_service_or_the_machine_stopped_by_another_command() {
    run(STOPPING);
}

const ASK_INSTALL: &[&str] = &["allow Bash", "ask Bash(npm install *)"];
const PIP_INSTALL: &[&str] = &["allow Bash", "deny Bash(pip install *)"];

/// The other package managers' commands that install, and the Python tools
/// run as modules, meet the install rules as their npm and pip arms do.
const INSTALLS: &[Case] = &[
    case(ASK_INSTALL, B, "pnpm it", Ask),
    case(ASK_INSTALL, B, "pnpm install-test", Ask),
    case(ASK_INSTALL, B, "pnpm rebuild", Ask),
    case(ASK_INSTALL, B, "pnpm rb", Ask),
    case(ASK_INSTALL, B, "yarn rebuild", Ask),
    case(ASK_INSTALL, B, "bun pm trust esbuild", Ask),
    case(ASK_INSTALL, B, "bun -c bunfig.toml add x", Ask),
    case(ASK_INSTALL, B, "pnpm create vite x", Ask),
    case(ASK_INSTALL, B, "yarn create vite", Ask),
    case(ASK_INSTALL, B, "bun create vite x", Ask),
    case(ASK_INSTALL, B, "pnpm dlx create-vite x", Ask),
    case(ASK_INSTALL, B, "yarn dlx create-vite x", Ask),
    case(ASK_INSTALL, B, "yarn workspaces focus", Ask),
    case(ASK_INSTALL, B, "pnpm run build", Allow),
    case(ASK_INSTALL, B, "pnpm test", Allow),
    case(ASK_INSTALL, B, "bun pm ls", Allow),
    case(ASK_INSTALL, B, "yarn workspaces list", Allow),
    case(ASK_INSTALL, B, "pnpm run create", Allow),
    case(PIP_INSTALL, B, "python3 -m uv pip install x", Deny),
    case(PIP_INSTALL, B, "python3 -m pipx install x", Deny),
    case(PIP_INSTALL, B, "python3 -m poetry add x", Deny),
    case(PIP_INSTALL, B, "python3 -m pdm add x", Deny),
    case(PIP_INSTALL, B, "python3 -m pipenv install", Deny),
    case(PIP_INSTALL, B, "python3 -m uv run pytest", Allow),
    case(PIP_INSTALL, B, "python3 -m poetry lock", Allow),
    case(PIP_INSTALL, B, "pnpm install", Allow),
    case(PIP_INSTALL, B, "python3 -m pytest", Allow),
];

#[test]
fn installs_by_the_other_package_managers_commands() {
    run(INSTALLS);
}

const BRANCH_D: &[&str] = &["allow Bash", "deny Bash(git branch -D *)"];

/// A branch deleted by a push to a repository named by its path, by
/// send-pack, or by setting its ref to the null id.
const BRANCH_DELETED: &[Case] = &[
    case(BRANCH_D, B, "git push -q ./. :topic", Deny),
    case(BRANCH_D, B, "git push ../repo :topic", Deny),
    case(BRANCH_D, B, "git push /abs/repo :topic", Deny),
    case(BRANCH_D, B, "git push -q ./.git/ :topic", Deny),
    case(BRANCH_D, B, "git push ../repo --delete topic", Deny),
    case(BRANCH_D, B, "git send-pack . :topic", Deny),
    case(
        BRANCH_D,
        B,
        "git push . --prune 'refs/heads/nothing*:refs/heads/*'",
        Deny,
    ),
    case(
        BRANCH_D,
        B,
        "git update-ref refs/heads/topic 0000000000000000000000000000000000000000",
        Deny,
    ),
    case(BRANCH_D, B, "git push origin main", Allow),
    case(BRANCH_D, B, "git push ../repo main", Allow),
    case(BRANCH_D, B, "git push -u origin topic", Allow),
    case(BRANCH_D, B, "git send-pack ../r.git main", Allow),
    case(BRANCH_D, B, "git update-ref refs/heads/topic HEAD", Allow),
    case(BRANCH_D, B, "git branch -d topic", Allow),
];

#[test]
fn a_branch_deleted_by_a_push_to_a_path_or_the_null_id() {
    run(BRANCH_DELETED);
}

const MKFS: &[&str] = &["allow Bash", "deny Bash(mkfs *)"];
const DD: &[&str] = &["allow Bash", "deny Bash(dd *)"];
const TRUNCATE: &[&str] = &["allow Bash", "deny Bash(truncate *)"];

/// Making a file system, writing a disk, emptying a file by the other
/// programs that do it.
const DISKS_AND_FILES: &[Case] = &[
    case(MKFS, B, "mkfs.ext4 -F /dev/loop0", Deny),
    case(MKFS, B, "/sbin/mkfs.xfs /dev/sdb1", Deny),
    case(MKFS, B, "mkfs.vfat disk.img", Deny),
    case(MKFS, B, "mke2fs -F /dev/loop0", Deny),
    case(MKFS, B, "mkswap /dev/loop0", Deny),
    case(MKFS, B, "mkdosfs disk.img", Deny),
    case(MKFS, B, "wipefs -a /dev/loop0", Deny),
    case(MKFS, B, "wipefs /dev/loop0", Allow),
    case(MKFS, B, "wipefs -n -a /dev/loop0", Allow),
    case(MKFS, B, "mkdir build", Allow),
    case(MKFS, B, "lsblk", Allow),
    case(DD, B, "ddrescue img /dev/sda", Deny),
    case(DD, B, "dcfldd if=img of=/dev/sda", Deny),
    case(DD, B, "cp src.img /dev/sda", Deny),
    case(DD, B, "cp --sparse=never src.img /dev/nvme0n1", Deny),
    case(DD, B, "install src.img /dev/mmcblk0", Deny),
    case(DD, B, "tee /dev/loop0", Deny),
    case(DD, B, "shred -n1 /dev/loop0", Deny),
    case(DD, B, "shred /dev/sda", Deny),
    case(DD, B, "cp a.txt b.txt", Allow),
    case(DD, B, "cp /dev/sda1 disk.img", Allow),
    case(DD, B, "tee /dev/null", Allow),
    case(DD, B, "shred -n1 a.txt", Allow),
    case(TRUNCATE, B, "cp /dev/null a.txt", Deny),
    case(TRUNCATE, B, "cp --remove-destination /dev/null a.txt", Deny),
    case(TRUNCATE, B, "install /dev/null a.txt", Deny),
    case(TRUNCATE, B, "fallocate -p -o 0 -l 6 a.txt", Deny),
    case(TRUNCATE, B, "fallocate --punch-hole -l 6 a.txt", Deny),
    case(TRUNCATE, B, "fallocate -l 1G big.img", Allow),
    case(TRUNCATE, B, "cp a.txt b.txt", Allow),
    case(TRUNCATE, B, "install -m 644 a.txt b.txt", Allow),
];

#[test]
fn disks_written_and_files_emptied_by_other_programs() {
    run(DISKS_AND_FILES);
}

const PR_MERGE: &[&str] = &["allow Bash", "deny Bash(gh pr merge *)"];
const REPO_DELETE: &[&str] = &["allow Bash", "deny Bash(gh repo delete *)"];
const CARGO_PUBLISH: &[&str] = &["allow Bash", "deny Bash(cargo publish *)"];
const DESTROY: &[&str] = &["allow Bash", "deny Bash(terraform destroy *)"];
const HELM: &[&str] = &["allow Bash", "deny Bash(helm uninstall *)"];
const KUBECTL: &[&str] = &["allow Bash", "deny Bash(kubectl delete *)"];
const CRONTAB: &[&str] = &["allow Bash", "deny Bash(crontab *)"];

/// Merging, publishing, destroying, connecting and scheduling by the other
/// tools that do it.
const OTHER_DOORS: &[Case] = &[
    case(
        PR_MERGE,
        B,
        "gh api graphql -f query='mutation{mergePullRequest(input:{pullRequestId:\"PR_x\"}){clientMutationId}}'",
        Deny,
    ),
    case(
        PR_MERGE,
        B,
        "gh api graphql --raw-field query='mutation{enablePullRequestAutoMerge(input:{pullRequestId:\"PR_x\"}){clientMutationId}}'",
        Deny,
    ),
    case(
        PR_MERGE,
        B,
        "gh api graphql -f query='query{viewer{login}}'",
        Allow,
    ),
    case(PR_MERGE, B, "gh pr view 1", Allow),
    case(
        REPO_DELETE,
        B,
        "gh api graphql -f query='mutation{deleteRepository(input:{repositoryId:\"R\"}){clientMutationId}}'",
        Deny,
    ),
    case(CARGO_PUBLISH, B, "cargo release --execute", Deny),
    case(CARGO_PUBLISH, B, "cargo release patch", Deny),
    case(CARGO_PUBLISH, B, "cargo workspaces publish", Deny),
    case(CARGO_PUBLISH, B, "cargo ws publish --yes", Deny),
    case(CARGO_PUBLISH, B, "cargo smart-release --execute", Deny),
    case(CARGO_PUBLISH, B, "cargo-release release --execute", Deny),
    case(
        CARGO_PUBLISH,
        B,
        "cargo release --no-publish --execute",
        Allow,
    ),
    case(CARGO_PUBLISH, B, "cargo workspaces list", Allow),
    case(CARGO_PUBLISH, B, "cargo build --release", Allow),
    case(CARGO_PUBLISH, B, "cargo run --release", Allow),
    case(DESTROY, B, "terragrunt apply -destroy", Deny),
    case(DESTROY, B, "terragrunt run-all destroy", Deny),
    case(DESTROY, B, "terragrunt destroy-all", Deny),
    case(DESTROY, B, "cdktf destroy", Deny),
    case(DESTROY, B, "terragrunt apply", Allow),
    case(DESTROY, B, "cdktf deploy", Allow),
    case(HELM, B, "helmfile destroy", Deny),
    case(HELM, B, "helmfile -e prod delete", Deny),
    case(HELM, B, "helmfile -e prod apply", Allow),
    case(KUBECTL, B, "microk8s.kubectl delete pod x", Deny),
    case(KUBECTL, B, "microk8s.kubectl get pods", Allow),
    case(
        SSH,
        B,
        "podman --url ssh://root@host/run/podman/podman.sock ps",
        Deny,
    ),
    case(SSH, B, "virsh -c qemu+ssh://host/system list", Deny),
    case(SSH, B, "vagrant ssh", Deny),
    case(SSH, B, "virsh -c qemu:///system list", Allow),
    case(SSH, B, "vagrant up", Allow),
    case(SSH, B, "podman ps", Allow),
    case(
        CRONTAB,
        B,
        "systemd-run --on-calendar='*:0/5' /bin/true",
        Deny,
    ),
    case(
        CRONTAB,
        B,
        "systemd-run --user --on-calendar=daily make",
        Deny,
    ),
    case(CRONTAB, B, "systemd-run --on-active=30 /bin/true", Deny),
    case(CRONTAB, B, "systemd-run --on-boot=10 make", Deny),
    case(CRONTAB, B, "systemd-run --user --scope make", Allow),
    case(CRONTAB, B, "systemd-run --user make --on-active=30", Allow),
];

#[test]
fn merges_publishes_deletes_and_connections_by_other_tools() {
    run(OTHER_DOORS);
}

const RESET: &[&str] = &["allow Bash", "deny Bash(git reset --hard *)"];

/// `git stash clear` loses every saved change, as `git reset --hard` loses
/// the work tree's; `git stash drop` loses one entry, often one already
/// applied: a `git reset --hard` rule asks for it.
const STASH: &[Case] = &[
    case(RESET, B, "git stash clear", Deny),
    case(RESET, B, "git stash drop", Ask),
    case(RESET, B, "git stash drop stash@{1}", Ask),
    case(RESET, B, "git stash", Allow),
    case(RESET, B, "git stash pop", Allow),
    case(RESET, B, "git stash list", Allow),
    case(RESET, B, "git stash show -p", Allow),
];

#[test]
fn dropping_a_stash_entry_asks_and_clearing_the_stash_is_refused() {
    run(STASH);
}

const RM: &[&str] = &["allow Bash", "deny Bash(rm *)"];
const CHMOD: &[&str] = &["allow Bash", "deny Bash(chmod *)"];
const DOCKER_RM: &[&str] = &["allow Bash", "deny Bash(docker rm *)"];
const S3_RM: &[&str] = &["allow Bash", "deny Bash(aws s3 rm *)"];
const PUBLISH: &[&str] = &["allow Bash", "deny Bash(npm publish *)"];

/// A word computed at run time where the table looks for the word that
/// makes a command another's: the rule might match, so the policy asks.
const COMPUTED_TRIGGERS: &[Case] = &[
    case(RESET, B, "git stash $X", Ask),
    case(RESET, B, "git stash \"$@\"", Ask),
    case(DESTROY, B, "terraform apply $O", Ask),
    case(DESTROY, B, "terraform apply $O -auto-approve", Ask),
    // A rule on the whole program (`rm *`) meets the program's form.
    case(RM, B, "shred $O a.txt", Deny),
    case(RM, B, "gio $V a.txt", Deny),
    case(BRANCH_D, B, "git update-ref $D refs/heads/topic", Ask),
    case(CHMOD, B, "install -m $M a.txt b.txt", Deny),
    case(CHMOD, B, "mkdir -m \"$M\" d", Deny),
    case(DOCKER_RM, B, "docker container $V c1", Ask),
    case(S3_RM, B, "aws s3api $OP --bucket b --key k", Ask),
    case(PR_MERGE, B, "gh api -X $M repos/o/r/pulls/1/merge", Ask),
    case(PUBLISH, B, "pnpm $CMD", Ask),
    case(STOP, B, "service nginx $ACTION", Ask),
    // Computed words where no trigger stands.
    case(RESET, B, "git commit -m \"$MSG\"", Allow),
    case(RESET, B, "git add \"$F\"", Allow),
    case(DESTROY, B, "terraform plan -var \"x=$X\"", Allow),
    case(RM, B, "shred -n \"$N\" a.txt", Allow),
    case(KUBECTL, B, "kubectl apply -f \"$F\"", Allow),
    case(DOCKER_RM, B, "docker logs \"$C\"", Allow),
    case(STOP, B, "systemctl status \"$SVC\"", Allow),
    case(STOP, B, "service \"$SVC\" status", Allow),
    case(
        BRANCH_D,
        B,
        "git update-ref refs/heads/topic \"$NEW\" \"$OLD\"",
        Ask,
    ),
    case(BRANCH_D, B, "git switch \"$BRANCH\"", Allow),
];

#[test]
fn a_computed_word_where_the_trigger_stands_asks() {
    run(COMPUTED_TRIGGERS);
}

/// The red team's rule set (`TEAM`): every rule at once.
const TEAM: &[&str] = &[
    "allow Bash",
    "ask Bash(git commit *)",
    "ask Bash(git push *)",
    "ask Bash(npm install *)",
    "deny Bash(rm -rf *)",
    "deny Bash(rm *)",
    "deny Bash(git reset --hard *)",
    "deny Bash(sudo *)",
    "deny Bash(chmod *)",
    "deny Bash(curl *)",
    "deny Bash(kill *)",
    "deny Bash(mv *)",
    "deny Bash(ssh *)",
    "deny Bash(pip install *)",
    "deny Bash(docker rm *)",
    "deny Bash(kubectl delete *)",
    "deny Bash(terraform destroy *)",
    "deny Bash(aws s3 rm *)",
    "deny Bash(npm publish *)",
    "deny Bash(cargo publish *)",
    "deny Bash(git branch -D *)",
    "deny Bash(gh pr merge *)",
    "deny Bash(helm uninstall *)",
    "deny Bash(dd *)",
    "deny Bash(mkfs *)",
    "deny Bash(shutdown *)",
    "deny Bash(crontab *)",
    "deny Bash(systemctl stop *)",
    "deny Bash(git clean *)",
    "deny Bash(truncate *)",
];

/// Everyday commands, some with computed words, stay allowed under every
/// rule at once.
const EVERYDAY: &[Case] = &[
    case(TEAM, B, "systemctl status nginx", Allow),
    case(TEAM, B, "systemctl restart nginx", Allow),
    case(TEAM, B, "service nginx status", Allow),
    case(TEAM, B, "journalctl -u nginx -n 50", Allow),
    case(TEAM, B, "pnpm run build", Allow),
    case(TEAM, B, "yarn test", Allow),
    case(TEAM, B, "cargo build --release", Allow),
    case(TEAM, B, "terraform plan", Allow),
    case(TEAM, B, "helm status web", Allow),
    case(TEAM, B, "kubectl get pods -n \"$NS\"", Allow),
    case(TEAM, B, "git checkout -b \"$BRANCH\"", Allow),
    case(TEAM, B, "git log --oneline -n 5", Allow),
    case(TEAM, B, "docker logs \"$C\"", Allow),
    case(TEAM, B, "cp a.txt b.txt", Allow),
    case(TEAM, B, "mkdir -p build", Allow),
    case(TEAM, B, "fallocate -l 1M big.img", Allow),
    case(TEAM, B, "python3 -m pytest -q", Allow),
    case(TEAM, B, "systemd-run --user --scope make", Allow),
];

#[test]
fn everyday_commands_stay_allowed_under_every_rule() {
    run(EVERYDAY);
}

/// Deletions by the other clients of the same stores.
const OTHER_CLIENTS: &[Case] = &[
    case(S3_RM, B, "s3cmd del s3://b/k", Deny),
    case(S3_RM, B, "rclone delete s3:b/k", Deny),
    case(S3_RM, B, "rclone purge s3:b", Deny),
    case(S3_RM, B, "s3cmd ls s3://b", Allow),
    case(S3_RM, B, "rclone copy a s3:b", Allow),
    case(DOCKER_RM, B, "docker compose rm -f", Deny),
    case(DOCKER_RM, B, "docker-compose rm -f", Deny),
    case(DOCKER_RM, B, "podman system reset -f", Deny),
    case(DOCKER_RM, B, "docker compose ps", Allow),
    case(HELM, B, "helm2 delete r", Deny),
    case(HELM, B, "helm2 list", Allow),
];

#[test]
fn deletions_by_other_clients_of_the_same_stores() {
    run(OTHER_CLIENTS);
}
