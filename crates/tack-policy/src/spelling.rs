//! Options as a deny or ask rule means them, however a command spells them.
//!
//! A Bash rule is a pattern over a command's text, so `Bash(rm -rf *)` alone
//! would not see `rm -fr x`, `rm -r -f x`, `rm --recursive --force x`,
//! `rm --rec -f x` or `rm x -rf`, and `Bash(git push origin *)` would not see
//! `git push -q origin main`. For deny and ask rules the policy also reads
//! the rule and the command as the program reads its command line
//! ([`Shape`]): options anywhere before `--`, in any order, clustered or
//! not, long or short, abbreviated where the program accepts that, values
//! attached or in the next word, a subcommand by any of its names. The rule
//! matches when the command gives every option the rule names (with the
//! rule's value, when it gives one) and the rule's other words, as a
//! pattern, match the command's other words: more options never make a
//! command escape a rule (`rm -rfv /` meets `Bash(rm -rf /)`).
//!
//! Which options are the same, which take a value and which programs accept
//! abbreviations comes from [`GRAMMARS`], for the programs deny rules are
//! written about (`rm`, `git push`, `chmod -R`, `docker rm -f`, `kubectl
//! delete --all`, `curl -X`, `terraform apply -auto-approve`, …). Any other
//! program is read generically: options in any order, each word as written.
//!
//! A word computed at run time where an option may stand (`rm x $F`) may be
//! any option, so a rule whose other words match might match: the policy
//! asks. Allow rules are never read this way: a wider reading may only
//! refuse more.

use crate::rule::BashPattern;

/// How a value follows an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    /// None.
    Flag,
    /// Attached (`-oFILE`, `--out=FILE`) or the next word.
    Required,
    /// Attached only (`-i.bak`, `--interactive=never`).
    Attached,
}

/// How a program reads its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// GNU `getopt_long` (and git's parse-options, Go's pflag): short
    /// options cluster (`-rf`); `abbreviate` when a long option's
    /// unambiguous prefix stands for it (`--rec` for `--recursive`).
    Gnu { abbreviate: bool },
    /// Go's `flag` package: `-name` and `--name` are the same option; no
    /// clusters.
    Go,
}

/// The options of a program, or of one of its subcommands.
struct Grammar {
    /// The program's file names.
    programs: &'static [&'static str],
    /// The subcommand's names, the first its own (`install|i|add`); empty
    /// for the program's own options.
    sub: &'static str,
    style: Style,
    /// Groups of names for one option, the first its name here, with `=`
    /// after the last when it takes a value and `=?` when the value may
    /// only be attached: `-r|-R|--recursive`, `-t|--target-directory=`.
    options: &'static [&'static str],
    /// Short options that stand for several (`git branch -D` is
    /// `--delete --force`).
    stands_for: &'static [(char, &'static [&'static str])],
}

const GNU: Style = Style::Gnu { abbreviate: true };
const PFLAG: Style = Style::Gnu { abbreviate: false };

const fn program(
    programs: &'static [&'static str],
    style: Style,
    options: &'static [&'static str],
) -> Grammar {
    Grammar {
        programs,
        sub: "",
        style,
        options,
        stands_for: &[],
    }
}

const fn sub(
    programs: &'static [&'static str],
    sub: &'static str,
    style: Style,
    options: &'static [&'static str],
) -> Grammar {
    Grammar {
        programs,
        sub,
        style,
        options,
        stands_for: &[],
    }
}

const GIT: &[&str] = &["git"];
const DOCKER: &[&str] = &["docker", "podman"];
const PRUNE: &[&str] = &["-a|--all", "-f|--force", "--volumes", "--filter="];
const TERRAFORM: &[&str] = &["terraform", "tofu"];

/// What the programs deny rules are written about accept. A subcommand's
/// table is read first, then its program's.
static GRAMMARS: &[Grammar] = &[
    program(
        &["rm"],
        GNU,
        &[
            "-r|-R|--recursive",
            "-f|--force",
            "-i",
            "-I",
            "--interactive=?",
            "-d|--dir",
            "-v|--verbose",
            "--one-file-system",
            "--no-preserve-root",
            "--preserve-root=?",
        ],
    ),
    program(
        &["rmdir"],
        GNU,
        &["-p|--parents", "-v|--verbose", "--ignore-fail-on-non-empty"],
    ),
    program(
        &["cp"],
        GNU,
        &[
            "-r|-R|--recursive",
            "-f|--force",
            "-a|--archive",
            "-i|--interactive",
            "-n|--no-clobber",
            "-t|--target-directory=",
            "-S|--suffix=",
            "-v|--verbose",
            "-u",
            "--update=?",
            "-l|--link",
            "-s|--symbolic-link",
            "-p",
            "--preserve=?",
            "-P|--no-dereference",
            "-L|--dereference",
            "-H",
            "-d",
            "-x|--one-file-system",
            "-b",
            "--backup=?",
            "-T|--no-target-directory",
        ],
    ),
    program(
        &["mv"],
        GNU,
        &[
            "-f|--force",
            "-i|--interactive",
            "-n|--no-clobber",
            "-t|--target-directory=",
            "-S|--suffix=",
            "-u",
            "--update=?",
            "-v|--verbose",
            "-b",
            "--backup=?",
            "-T|--no-target-directory",
        ],
    ),
    program(
        &["ln"],
        GNU,
        &[
            "-s|--symbolic",
            "-f|--force",
            "-n|--no-dereference",
            "-t|--target-directory=",
            "-S|--suffix=",
            "-v|--verbose",
            "-b",
            "--backup=?",
            "-r|--relative",
            "-T|--no-target-directory",
            "-i|--interactive",
            "-L|--logical",
            "-P|--physical",
        ],
    ),
    program(
        &["chmod"],
        GNU,
        &[
            "-R|--recursive",
            "-f|--silent|--quiet",
            "-v|--verbose",
            "-c|--changes",
            "--reference=",
            "--preserve-root",
            "--no-preserve-root",
        ],
    ),
    program(
        &["chown", "chgrp"],
        GNU,
        &[
            "-R|--recursive",
            "-f|--silent|--quiet",
            "-v|--verbose",
            "-c|--changes",
            "-h|--no-dereference",
            "--dereference",
            "--from=",
            "--reference=",
            "-H",
            "-L",
            "-P",
            "--preserve-root",
            "--no-preserve-root",
        ],
    ),
    program(
        &["shred"],
        GNU,
        &[
            "-f|--force",
            "-n|--iterations=",
            "-s|--size=",
            "-u",
            "--remove=?",
            "-v|--verbose",
            "-x|--exact",
            "-z|--zero",
            "--random-source=",
        ],
    ),
    program(
        &["truncate"],
        GNU,
        &[
            "-s|--size=",
            "-c|--no-create",
            "-o|--io-blocks",
            "-r|--reference=",
        ],
    ),
    program(
        &["sed"],
        GNU,
        &[
            "-i|--in-place=?",
            "-n|--quiet|--silent",
            "-e|--expression=",
            "-f|--file=",
            "-E|-r|--regexp-extended",
            "-s|--separate",
            "-z|--null-data",
            "-u|--unbuffered",
            "-l|--line-length=",
            "--posix",
            "--debug",
            "--sandbox",
            "--follow-symlinks",
        ],
    ),
    program(
        &["shutdown"],
        GNU,
        &[
            "-H|--halt",
            "-P|--poweroff|-h",
            "-r|--reboot",
            "-k",
            "-c",
            "--no-wall",
        ],
    ),
    program(
        GIT,
        Style::Gnu { abbreviate: false },
        &[
            "-C=",
            "-c=",
            "--git-dir=",
            "--work-tree=",
            "--namespace=",
            "--config-env=",
            "--super-prefix=",
            "--attr-source=",
            "--list-cmds=",
            "--exec-path=?",
            "-p|--paginate",
            "-P|--no-pager",
            "--bare",
            "--no-replace-objects",
            "--no-lazy-fetch",
            "--no-optional-locks",
            "--literal-pathspecs",
            "--glob-pathspecs",
            "--noglob-pathspecs",
            "--icase-pathspecs",
        ],
    ),
    sub(
        GIT,
        "push",
        GNU,
        &[
            "-f|--force",
            "--force-with-lease=?",
            "--force-if-includes",
            "-u|--set-upstream",
            "-n|--dry-run",
            "-q|--quiet",
            "-v|--verbose",
            "-d|--delete",
            "--all|--branches",
            "--mirror",
            "--tags",
            "--follow-tags",
            "--prune",
            "--atomic",
            "--no-verify",
            "--verify",
            "-o|--push-option=",
            "--repo=",
            "--receive-pack|--exec=",
            "--signed=?",
            "--recurse-submodules=",
            "--thin",
            "--no-thin",
            "--porcelain",
            "--progress",
            "-4|--ipv4",
            "-6|--ipv6",
        ],
    ),
    sub(
        GIT,
        "clean",
        GNU,
        &[
            "-f|--force",
            "-d",
            "-x",
            "-X",
            "-n|--dry-run",
            "-q|--quiet",
            "-i|--interactive",
            "-e|--exclude=",
        ],
    ),
    sub(
        GIT,
        "reset",
        GNU,
        &[
            "--hard",
            "--soft",
            "--mixed",
            "--merge",
            "--keep",
            "-q|--quiet",
            "-p|--patch",
            "-N|--intent-to-add",
            "--recurse-submodules=?",
            "--no-recurse-submodules",
            "--pathspec-from-file=",
            "--pathspec-file-nul",
        ],
    ),
    sub(
        GIT,
        "checkout",
        GNU,
        &[
            "-f|--force",
            "-b=",
            "-B=",
            "--orphan=",
            "-q|--quiet",
            "-p|--patch",
            "--ours",
            "--theirs",
            "-t|--track=?",
            "--no-track",
            "--detach",
            "-m|--merge",
            "--conflict=",
            "-l",
            "--ignore-other-worktrees",
            "--overwrite-ignore",
            "--pathspec-from-file=",
            "--recurse-submodules=?",
            "--progress",
            "--guess",
            "--no-guess",
        ],
    ),
    sub(
        GIT,
        "switch",
        GNU,
        &[
            "-c|--create=",
            "-C|--force-create=",
            "-f|--force|--discard-changes",
            "-d|--detach",
            "--orphan=",
            "-m|--merge",
            "--conflict=",
            "-t|--track=?",
            "--no-track",
            "-q|--quiet",
            "--guess",
            "--no-guess",
        ],
    ),
    sub(
        GIT,
        "restore",
        GNU,
        &[
            "-s|--source=",
            "-S|--staged",
            "-W|--worktree",
            "-p|--patch",
            "--ours",
            "--theirs",
            "-m|--merge",
            "--conflict=",
            "-q|--quiet",
            "--overlay",
            "--no-overlay",
            "--pathspec-from-file=",
            "--pathspec-file-nul",
        ],
    ),
    Grammar {
        programs: GIT,
        sub: "branch",
        style: GNU,
        options: &[
            "-d|--delete",
            "-f|--force",
            "-m|--move",
            "-c|--copy",
            "-r|--remotes",
            "-a|--all",
            "-v|--verbose",
            "-q|--quiet",
            "-u|--set-upstream-to=",
            "--unset-upstream",
            "-t|--track=?",
            "--no-track",
            "-l|--list",
            "--show-current",
            "--edit-description",
            "-i|--ignore-case",
            "--sort=",
            "--format=",
            "--points-at=",
            "--contains=?",
            "--no-contains=?",
            "--merged=?",
            "--no-merged=?",
            "--color=?",
            "--column=?",
            "--create-reflog",
        ],
        stands_for: &[
            ('D', &["-d", "-f"]),
            ('M', &["-m", "-f"]),
            ('C', &["-c", "-f"]),
        ],
    },
    sub(
        GIT,
        "commit",
        GNU,
        &[
            "-a|--all",
            "-m|--message=",
            "-F|--file=",
            "-n|--no-verify",
            "--verify",
            "--amend",
            "-s|--signoff",
            "-q|--quiet",
            "-v|--verbose",
            "--allow-empty",
            "--allow-empty-message",
            "-C|--reuse-message=",
            "-c|--reedit-message=",
            "--author=",
            "--date=",
            "-e|--edit",
            "--no-edit",
            "-S|--gpg-sign=?",
            "--fixup=",
            "--squash=",
            "-p|--patch",
            "-i|--include",
            "-o|--only",
            "-u|--untracked-files=?",
            "-t|--template=",
            "--cleanup=",
            "--trailer=",
            "--dry-run",
            "--reset-author",
            "--no-post-rewrite",
            "-z|--null",
        ],
    ),
    sub(
        GIT,
        "rebase",
        GNU,
        &[
            "-i|--interactive",
            "--onto=",
            "-x|--exec=",
            "--root",
            "--continue",
            "--abort",
            "--skip",
            "--quit",
            "--edit-todo",
            "-f|--force-rebase|--no-ff",
            "-s|--strategy=",
            "-X|--strategy-option=",
            "--autosquash",
            "--no-autosquash",
            "--autostash",
            "--no-autostash",
            "-q|--quiet",
            "-v|--verbose",
            "-n|--no-stat",
            "--stat",
            "--no-verify",
            "--verify",
            "-r|--rebase-merges=?",
            "--update-refs",
            "--keep-base",
            "-m|--merge",
            "--apply",
            "--signoff",
            "-S|--gpg-sign=?",
            "--committer-date-is-author-date",
            "--reset-author-date",
            "--empty=",
            "-C=",
            "--whitespace=",
        ],
    ),
    sub(
        GIT,
        "tag",
        GNU,
        &[
            "-d|--delete",
            "-f|--force",
            "-a|--annotate",
            "-s|--sign",
            "-u|--local-user=",
            "-m|--message=",
            "-F|--file=",
            "-l|--list",
            "-v|--verify",
            "-e|--edit",
            "-i|--ignore-case",
            "--sort=",
            "--format=",
            "--cleanup=",
            "--contains=?",
            "--points-at=?",
            "--merged=?",
            "--no-merged=?",
            "--column=?",
            "--create-reflog",
        ],
    ),
    program(
        DOCKER,
        PFLAG,
        &[
            "-H|--host=",
            "-c|--context=",
            "--config=",
            "-l|--log-level=",
            "-D|--debug",
            "--tls",
            "--tlsverify",
            "--tlscacert=",
            "--tlscert=",
            "--tlskey=",
        ],
    ),
    sub(
        DOCKER,
        "rm",
        PFLAG,
        &["-f|--force", "-v|--volumes", "-l|--link"],
    ),
    sub(DOCKER, "rmi", PFLAG, &["-f|--force", "--no-prune"]),
    sub(DOCKER, "system", PFLAG, PRUNE),
    sub(DOCKER, "image", PFLAG, PRUNE),
    sub(DOCKER, "volume", PFLAG, PRUNE),
    sub(DOCKER, "container", PFLAG, PRUNE),
    sub(DOCKER, "network", PFLAG, PRUNE),
    sub(DOCKER, "builder", PFLAG, PRUNE),
    sub(
        DOCKER,
        "run",
        PFLAG,
        &[
            "-d|--detach",
            "-i|--interactive",
            "-t|--tty",
            "--rm",
            "--privileged",
            "--init",
            "--read-only",
            "-P|--publish-all",
            "--oom-kill-disable",
            "--sig-proxy",
            "-v|--volume=",
            "-e|--env=",
            "-p|--publish=",
            "-w|--workdir=",
            "-u|--user=",
            "-h|--hostname=",
            "-l|--label=",
            "-a|--attach=",
            "-m|--memory=",
            "-c|--cpu-shares=",
            "--name=",
            "--network|--net=",
            "--entrypoint=",
            "--env-file=",
            "--cap-add=",
            "--cap-drop=",
            "--security-opt=",
            "--pid=",
            "--ipc=",
            "--uts=",
            "--userns=",
            "--cgroupns=",
            "--mount=",
            "--device=",
            "--platform=",
            "--gpus=",
            "--restart=",
            "--cpus=",
            "--shm-size=",
            "--add-host=",
            "--dns=",
            "--tmpfs=",
            "--ulimit=",
            "--group-add=",
            "--pull=",
            "--cidfile=",
            "--log-driver=",
            "--log-opt=",
            "--expose=",
            "--link=",
            "--volumes-from=",
            "--stop-signal=",
            "--stop-timeout=",
            "--runtime=",
            "--label-file=",
            "--health-cmd=",
        ],
    ),
    sub(
        DOCKER,
        "exec",
        PFLAG,
        &[
            "-d|--detach",
            "-i|--interactive",
            "-t|--tty",
            "--privileged",
            "-e|--env=",
            "--env-file=",
            "-u|--user=",
            "-w|--workdir=",
            "--detach-keys=",
        ],
    ),
    program(
        &["kubectl"],
        PFLAG,
        &[
            "-n|--namespace=",
            "--context=",
            "--kubeconfig=",
            "--cluster=",
            "--user=",
            "-s|--server=",
            "--token=",
            "--as=",
            "--as-group=",
            "--request-timeout=",
            "-v|--v=",
            "--as-uid=",
            "--cache-dir=",
            "--certificate-authority=",
            "--client-certificate=",
            "--client-key=",
            "--log-flush-frequency=",
            "--password=",
            "--profile=",
            "--profile-output=",
            "--tls-server-name=",
            "--username=",
            "--vmodule=",
            "--warnings-as-errors",
            "--insecure-skip-tls-verify",
            "--match-server-version",
            "--disable-compression",
            "--log-file=",
            "--log-dir=",
            "--stderrthreshold=",
            "--log-file-max-size=",
            "--log-backtrace-at=",
            "--one-output",
            "--logtostderr",
            "--alsologtostderr",
            "--skip-headers",
            "--skip-log-headers",
            "--add-dir-header",
        ],
    ),
    sub(
        &["kubectl"],
        "delete",
        PFLAG,
        &[
            "--all",
            "-A|--all-namespaces",
            "--force",
            "--now",
            "--ignore-not-found",
            "-R|--recursive",
            "-i|--interactive",
            "--grace-period=",
            "-f|--filename=",
            "-k|--kustomize=",
            "-l|--selector=",
            "--field-selector=",
            "-o|--output=",
            "--timeout=",
            "--cascade=?",
            "--wait=?",
            "--dry-run=?",
        ],
    ),
    program(
        &["npm"],
        GNU,
        &[
            "-g|--global",
            "-f|--force",
            "-D|--save-dev",
            "-P|--save-prod",
            "-O|--save-optional",
            "-E|--save-exact",
            "-S|--save",
            "-y|--yes",
            "-B|--save-bundle",
            "-a|--all",
            "-l|--long",
            "-p|--parseable",
            "-h|-H|--usage",
            "-v|--version",
            "-d",
            "-s|--silent",
            "-q|--quiet",
            "-w|--workspace=",
            "-C|--prefix=",
            "-c|--call=",
            "-L|--location=",
            "-m|--message=",
            "--registry=",
            "--tag=",
            "--access=",
            "--otp=",
            "--auth-type=",
            "--before=",
            "--browser=",
            "--ca=",
            "--cache=",
            "--cafile=",
            "--cert=",
            "--cidr=",
            "--color=",
            "--cpu=",
            "--depth=",
            "--diff=",
            "--diff-dst-prefix=",
            "--diff-src-prefix=",
            "--diff-unified=",
            "--editor=",
            "--expect-result-count=",
            "--fetch-retries=",
            "--fetch-retry-factor=",
            "--fetch-retry-maxtimeout=",
            "--fetch-retry-mintimeout=",
            "--fetch-timeout=",
            "--globalconfig=",
            "--heading=",
            "--https-proxy=",
            "--include=",
            "--init-author-email=",
            "--init-author-name=",
            "--init-author-url=",
            "--init-license=",
            "--init-module=",
            "--init-version=",
            "--install-strategy=",
            "--key=",
            "--libc=",
            "--local-address=",
            "--lockfile-version=",
            "--loglevel=",
            "--logs-dir=",
            "--logs-max=",
            "--maxsockets=",
            "--node-options=",
            "--noproxy=",
            "--omit=",
            "--os=",
            "--pack-destination=",
            "--package=",
            "--preid=",
            "--provenance-file=",
            "--proxy=",
            "--replace-registry-host=",
            "--save-prefix=",
            "--sbom-format=",
            "--sbom-type=",
            "--scope=",
            "--script-shell=",
            "--searchexclude=",
            "--searchlimit=",
            "--searchopts=",
            "--searchstaleness=",
            "--shell=",
            "--tag-version-prefix=",
            "--umask=",
            "--user-agent=",
            "--userconfig=",
            "--viewer=",
            "--which=",
            "--audit-level=",
            "--cache-max=",
            "--cache-min=",
            "--node-version=",
            "--npm-version=",
        ],
    ),
    sub(
        &["npm"],
        "install|i|in|ins|inst|insta|instal|isnt|isnta|isntal|isntall|add",
        GNU,
        &[],
    ),
    sub(&["npm"], "uninstall|unlink|remove|rm|r|un", GNU, &[]),
    sub(&["npm"], "publish", GNU, &[]),
    sub(&["npm"], "unpublish", GNU, &[]),
    program(
        &["curl"],
        GNU,
        &[
            "-X|--request=",
            "-o|--output=",
            "-O|--remote-name",
            "-d|--data=",
            "--data-binary=",
            "--data-raw=",
            "--data-urlencode=",
            "--json=",
            "-F|--form=",
            "-H|--header=",
            "-u|--user=",
            "-T|--upload-file=",
            "-k|--insecure",
            "-L|--location",
            "-s|--silent",
            "-S|--show-error",
            "-f|--fail",
            "-i|--include",
            "-I|--head",
            "-v|--verbose",
            "-x|--proxy=",
            "-A|--user-agent=",
            "-b|--cookie=",
            "-c|--cookie-jar=",
            "-e|--referer=",
            "-m|--max-time=",
            "-K|--config=",
            "-G|--get",
            "-w|--write-out=",
            "-r|--range=",
            "-C|--continue-at=",
            "-E|--cert=",
            "-n|--netrc",
            "-N|--no-buffer",
            "-Z|--parallel",
            "-q|--disable",
            "--url=",
            "--connect-timeout=",
            "--retry=",
            "--cacert=",
            "--key=",
            "--compressed",
        ],
    ),
    // The options `apply` and `destroy` share, read for any subcommand.
    program(
        TERRAFORM,
        Style::Go,
        &[
            "-chdir=",
            "-help",
            "-version",
            "-auto-approve",
            "-compact-warnings",
            "-no-color",
            "-json",
            "-input=?",
            "-lock=?",
            "-refresh=?",
            "-lock-timeout=",
            "-parallelism=",
            "-var=",
            "-var-file=",
            "-target=",
            "-state=",
            "-state-out=",
            "-backup=",
        ],
    ),
    sub(
        TERRAFORM,
        "apply",
        Style::Go,
        &["-destroy", "-refresh-only", "-replace="],
    ),
    sub(TERRAFORM, "destroy", Style::Go, &[]),
    // The global options that take a value, which may stand before the
    // subcommand (`helm -n prod uninstall x`, `aws --profile p s3 rm …`).
    program(
        &["helm"],
        PFLAG,
        &[
            "-n|--namespace=",
            "--kube-context=",
            "--kubeconfig=",
            "--kube-apiserver=",
            "--kube-as-user=",
            "--kube-as-group=",
            "--kube-ca-file=",
            "--kube-token=",
            "--kube-tls-server-name=",
            "--registry-config=",
            "--repository-cache=",
            "--repository-config=",
            "--burst-limit=",
            "--qps=",
            "--debug",
            "--kube-insecure-skip-tls-verify",
        ],
    ),
    program(
        &["aws"],
        PFLAG,
        &[
            "--profile=",
            "--region=",
            "--output=",
            "--endpoint-url=",
            "--query=",
            "--cli-read-timeout=",
            "--cli-connect-timeout=",
            "--ca-bundle=",
            "--color=",
            "--cli-binary-format=",
            "--debug",
            "--no-verify-ssl",
            "--no-paginate",
            "--no-sign-request",
            "--no-cli-pager",
            "--cli-auto-prompt",
            "--no-cli-auto-prompt",
        ],
    ),
    program(&["gh"], PFLAG, &["-R|--repo=", "--hostname=", "-h|--help"]),
    program(
        &["pip", "pip3"],
        GNU,
        &[
            "-v|--verbose",
            "-q|--quiet",
            "-V|--version",
            "--log=",
            "--proxy=",
            "--retries=",
            "--timeout=",
            "--exists-action=",
            "--trusted-host=",
            "--cert=",
            "--client-cert=",
            "--cache-dir=",
            "--python=",
            "--use-feature=",
            "--use-deprecated=",
            "--keyring-provider=",
            "--root-user-action=",
            "--isolated",
            "--require-virtualenv",
            "--no-input",
            "--no-cache-dir",
            "--disable-pip-version-check",
            "--no-color",
            "--no-python-version-warning",
            "--debug",
        ],
    ),
    program(
        &["cargo"],
        PFLAG,
        &[
            "--color=",
            "-Z=",
            "--config=",
            "-C=",
            "--locked",
            "--offline",
            "--frozen",
            "-v|--verbose",
            "-q|--quiet",
            "--list",
            "--explain=",
        ],
    ),
    // systemctl's options that take a value may stand before its verb
    // (`systemctl -H host stop nginx`, `systemctl -t service stop nginx`).
    program(
        &["systemctl"],
        GNU,
        &[
            "-H|--host=",
            "-M|--machine=",
            "-t|--type=",
            "-s|--signal=",
            "-p|--property=",
            "-P=",
            "-o|--output=",
            "-n|--lines=",
            "--state=",
            "--job-mode=",
            "--root=",
            "--image=",
            "--image-policy=",
            "--what=",
            "--kill-whom=",
            "--kill-value=",
            "--timestamp=",
            "--boot-loader-entry=",
            "--boot-loader-menu=",
            "--reboot-argument=",
            "--when=",
            "--preset-mode=",
            "--message=",
            "--legend=",
            "--check-inhibitors=",
            "--drop-in=",
            "--marked",
            "-a|--all",
            "-l|--full",
            "-r|--recursive",
            "-q|--quiet",
            "-f|--force",
            "-i|--ignore-inhibitors",
            "-T|--show-transaction",
            "--now",
            "--runtime",
            "--user",
            "--system",
            "--global",
            "--no-block",
            "--wait",
            "--no-pager",
            "--no-legend",
            "--no-ask-password",
            "--no-warn",
            "--no-reload",
            "--dry-run",
            "--failed",
            "--value",
            "--reverse",
            "--after",
            "--before",
            "--plain",
            "--with-dependencies",
            "--show-types",
            "--firmware-setup",
        ],
    ),
    program(
        &["pnpm"],
        PFLAG,
        &[
            "-C|--dir=",
            "-F|--filter=",
            "-w|--workspace-root",
            "-r|--recursive",
            "--reporter=",
            "--loglevel=",
        ],
    ),
];

/// npm's commands (npm 10's `cmd-list`).
const NPM_COMMANDS: &[&str] = &[
    "access",
    "adduser",
    "audit",
    "bugs",
    "cache",
    "ci",
    "completion",
    "config",
    "dedupe",
    "deprecate",
    "diff",
    "dist-tag",
    "docs",
    "doctor",
    "edit",
    "exec",
    "explain",
    "explore",
    "find-dupes",
    "fund",
    "get",
    "help",
    "help-search",
    "hook",
    "init",
    "install",
    "install-ci-test",
    "install-test",
    "link",
    "ll",
    "login",
    "logout",
    "ls",
    "org",
    "outdated",
    "owner",
    "pack",
    "ping",
    "pkg",
    "prefix",
    "profile",
    "prune",
    "publish",
    "query",
    "rebuild",
    "repo",
    "restart",
    "root",
    "run-script",
    "sbom",
    "search",
    "set",
    "shrinkwrap",
    "star",
    "stars",
    "start",
    "stop",
    "team",
    "test",
    "token",
    "undeprecate",
    "uninstall",
    "unpublish",
    "unstar",
    "update",
    "version",
    "view",
    "whoami",
];

/// npm's aliases of its commands (`cmd-list`'s `aliases`).
const NPM_ALIASES: &[(&str, &str)] = &[
    ("author", "owner"),
    ("home", "docs"),
    ("issues", "bugs"),
    ("info", "view"),
    ("show", "view"),
    ("find", "search"),
    ("add", "install"),
    ("unlink", "uninstall"),
    ("remove", "uninstall"),
    ("rm", "uninstall"),
    ("r", "uninstall"),
    ("un", "uninstall"),
    ("rb", "rebuild"),
    ("list", "ls"),
    ("ln", "link"),
    ("create", "init"),
    ("i", "install"),
    ("it", "install-test"),
    ("cit", "install-ci-test"),
    ("up", "update"),
    ("c", "config"),
    ("s", "search"),
    ("se", "search"),
    ("tst", "test"),
    ("t", "test"),
    ("ddp", "dedupe"),
    ("v", "view"),
    ("run", "run-script"),
    ("clean-install", "ci"),
    ("clean-install-test", "install-ci-test"),
    ("x", "exec"),
    ("why", "explain"),
    ("la", "ll"),
    ("verison", "version"),
    ("ic", "ci"),
    ("innit", "init"),
    ("in", "install"),
    ("ins", "install"),
    ("inst", "install"),
    ("insta", "install"),
    ("instal", "install"),
    ("isnt", "install"),
    ("isnta", "install"),
    ("isntal", "install"),
    ("isntall", "install"),
    ("install-clean", "ci"),
    ("isntall-clean", "ci"),
    ("hlep", "help"),
    ("dist-tags", "dist-tag"),
    ("upgrade", "update"),
    ("udpate", "update"),
    ("rum", "run-script"),
    ("sit", "install-ci-test"),
    ("urn", "run-script"),
    ("ogr", "org"),
    ("add-user", "adduser"),
];

/// The npm command `word` names, as npm reads it: camelCase as kebab-case,
/// a name or the unique prefix of one (its commands' and aliases'), an
/// alias by what it stands for.
pub(crate) fn npm_command(word: &str) -> Option<&'static str> {
    let mut w = String::new();
    for c in word.chars() {
        if c.is_ascii_uppercase() {
            w.push('-');
            w.push(c.to_ascii_lowercase());
        } else {
            w.push(c);
        }
    }
    if w.is_empty() {
        return None;
    }
    let names = NPM_COMMANDS
        .iter()
        .copied()
        .chain(NPM_ALIASES.iter().map(|(a, _)| *a));
    let mut found = names.clone().find(|n| *n == w);
    if found.is_none() {
        let mut prefixed = names.filter(|n| n.starts_with(w.as_str()));
        found = prefixed.next().filter(|_| prefixed.next().is_none());
    }
    let mut name = found?;
    while let Some((_, to)) = NPM_ALIASES.iter().find(|(a, _)| *a == name) {
        name = to;
    }
    Some(name)
}

/// Whether npm reads the next word as the value of its option `name`
/// (`--loglevel`, `-C`, an abbreviation of one), as tack's table knows.
pub(crate) fn npm_option_takes_value(name: &str) -> bool {
    let tables: Vec<&Grammar> = GRAMMARS
        .iter()
        .filter(|g| g.sub.is_empty() && g.programs.contains(&"npm"))
        .collect();
    if name.starts_with("--") {
        find_long(name, &tables, GNU)
            .iter()
            .any(|(_, kind)| *kind == Value::Required)
    } else {
        // The last of a cluster takes the next word.
        name.chars().last().is_some_and(|c| {
            find_exact(&format!("-{c}"), &tables).is_some_and(|(_, k)| k == Value::Required)
        })
    }
}

/// One option as read: its name in the grammar (`-r` for `-R` and
/// `--recursive`) and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Opt {
    name: String,
    value: Option<String>,
}

/// A command line, or a rule, read as its program reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The program as written (`rm`, `/bin/rm`).
    program: String,
    options: Vec<Opt>,
    /// The other words in order (a subcommand by its own name), and
    /// whether each is computed at run time.
    operands: Vec<(String, bool)>,
    /// A word computed at run time stands where an option may.
    computed_option: bool,
    /// The program and the operands, as a rule's other words match them;
    /// and the same without the computed words.
    text: String,
    literal_text: String,
    /// Other readings the program may make of the command line: an option
    /// tack does not know, followed by a word, may take that word as its
    /// value (`kubectl --new-flag v delete`, `npm --frob v publish`) and
    /// `npm --color` may not. A rule one of them meets might be met.
    alternates: Vec<Shape>,
}

/// A deny or ask rule read as its program reads it.
#[derive(Debug, Clone)]
pub(crate) struct RuleShape {
    program: String,
    options: Vec<Opt>,
    /// The rule's other words, a pattern.
    rest: BashPattern,
}

/// How far a rule meets a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meets {
    No,
    /// Only if a word computed at run time becomes the right option.
    Maybe,
    Yes,
}

impl RuleShape {
    /// The rule's pattern text read as a command line; `None` when its
    /// program is a pattern or an option's value is one.
    pub(crate) fn new(pattern: &str) -> Option<RuleShape> {
        let words: Vec<&str> = pattern.split(' ').filter(|w| !w.is_empty()).collect();
        let program = words.first()?;
        if program.contains('*') || program.starts_with('-') {
            return None;
        }
        let shape = read(&words, true)?;
        Some(RuleShape {
            rest: BashPattern::new(&shape.text),
            program: shape.program,
            options: shape.options,
        })
    }

    /// The program word the rule names, as written.
    pub(crate) fn program(&self) -> &str {
        &self.program
    }

    /// Whether the command meets the rule.
    pub(crate) fn meets(&self, command: &Shape) -> Meets {
        if command.program != self.program {
            return Meets::No;
        }
        let has_options = self.options.iter().all(|want| {
            command.options.iter().any(|got| {
                got.name == want.name && (want.value.is_none() || got.value == want.value)
            })
        });
        let rest = self.rest.matches(&command.text);
        if has_options && rest {
            return Meets::Yes;
        }
        if command.computed_option && (rest || self.rest.matches(&command.literal_text)) {
            return Meets::Maybe;
        }
        if command
            .alternates
            .iter()
            .any(|a| self.meets(a) != Meets::No)
        {
            return Meets::Maybe;
        }
        Meets::No
    }
}

impl Shape {
    /// The program as written.
    pub(crate) fn program(&self) -> &str {
        &self.program
    }

    /// A command's canonical text (words separated by single spaces,
    /// literal words quoted as needed, computed words as written) read as
    /// its program reads it.
    pub(crate) fn of_command(text: &str) -> Option<Shape> {
        let words: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
        read(&words, false)
    }
}

/// Whether a word of a command's canonical text is computed at run time:
/// a quoted literal starts with a quote; an unquoted `$` or backquote (or
/// the `…` of arguments that come from elsewhere) is an expansion.
fn computed(word: &str) -> bool {
    if word.starts_with('\'') || word.starts_with("$'") {
        return false;
    }
    word == "…" || word.contains('$') || word.contains('`')
}

/// Whether a computed word may become an option: in double quotes, when it
/// starts with an expansion; unquoted, always (its value is split into
/// words, and any of them may start with `-`).
fn may_be_option(word: &str) -> bool {
    let quoted = word.len() >= 2 && word.starts_with('"') && word.ends_with('"');
    !quoted || crate::shell::could_be_option(word)
}

/// Read `words` (program first) as the program reads them. For a rule
/// (`rule`), a word holding `*` is a pattern: never an option, and `None`
/// when it would be an option's value.
fn read(words: &[&str], rule: bool) -> Option<Shape> {
    let mut candidates = Vec::new();
    let mut shape = read_once(words, rule, &[], &mut candidates)?;
    if rule || candidates.is_empty() {
        return Some(shape);
    }
    // Each doubtful option read the other way, then all of them.
    candidates.truncate(8);
    let mut flips: Vec<Vec<usize>> = candidates.iter().map(|&c| vec![c]).collect();
    if candidates.len() > 1 {
        flips.push(candidates.clone());
    }
    for flip in flips {
        if let Some(alt) = read_once(words, rule, &flip, &mut Vec::new())
            && (alt.text != shape.text || alt.options != shape.options)
        {
            shape.alternates.push(alt);
        }
    }
    Some(shape)
}

/// Programs whose options tack's tables may not all know, and where an
/// option it does not know may take the next word (pflag's `--flag value`,
/// npm's abbreviations of options that take one).
const DOUBTFUL: &[&str] = &["kubectl", "oc", "npm", "docker", "podman"];

/// npm's option whose value may or may not follow (`--color false`,
/// `--color`).
const MAYBE_VALUE: &[&str] = &["--color"];

/// `read`, with the options at the indices (into the arguments) in `flip`
/// read the other way as to taking the next word; the options that may be
/// read either way go to `candidates`.
fn read_once(
    words: &[&str],
    rule: bool,
    flip: &[usize],
    candidates: &mut Vec<usize>,
) -> Option<Shape> {
    let (program, args) = words.split_first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    let mut tables: Vec<&Grammar> = GRAMMARS
        .iter()
        .filter(|g| g.sub.is_empty() && g.programs.contains(&base))
        .collect();
    let mut shape = Shape {
        program: program.to_string(),
        options: Vec::new(),
        operands: Vec::new(),
        computed_option: false,
        text: String::new(),
        literal_text: String::new(),
        alternates: Vec::new(),
    };
    let doubtful = DOUBTFUL.contains(&base);
    let mut only_operands = false;
    let mut i = 0;
    while let Some(&word) = args.get(i) {
        i += 1;
        let pattern = rule && word.contains('*');
        if !rule && computed(word) {
            if !only_operands && may_be_option(word) {
                shape.computed_option = true;
            }
            shape.operands.push((word.to_string(), true));
            continue;
        }
        if only_operands || pattern || !word.starts_with('-') || word == "-" {
            let mut operand = word.to_string();
            if !only_operands && !pattern && shape.operands.is_empty() {
                // npm's command by an alias or an abbreviation.
                let word = match base {
                    "npm" => npm_command(word).unwrap_or(word),
                    _ => word,
                };
                operand = word.to_string();
                // The first operand may name a subcommand with its own table.
                if let Some(g) = GRAMMARS.iter().find(|g| {
                    !g.sub.is_empty()
                        && g.programs.contains(&base)
                        && g.sub.split('|').any(|n| n == word)
                }) {
                    tables.insert(0, g);
                    operand = g.sub.split('|').next().unwrap_or(word).to_string();
                }
            }
            shape.operands.push((operand, false));
            continue;
        }
        if word == "--" {
            only_operands = true;
            continue;
        }
        let next = args.get(i).copied();
        let at = i - 1;
        if doubtful
            && !rule
            && shape.operands.is_empty()
            && word.starts_with("--")
            && !word.contains('=')
            && next.is_some_and(|n| !n.starts_with('-') && !computed(n))
        {
            let style = tables.first().map_or(PFLAG, |g| g.style);
            let found = find_long(word, &tables, style);
            let unknown = found.is_empty();
            let maybe_flag = found.iter().any(|(c, _)| MAYBE_VALUE.contains(c));
            if unknown || maybe_flag {
                candidates.push(at);
                if flip.contains(&at) {
                    shape.options.push(Opt {
                        name: word.to_string(),
                        value: unknown.then(|| next.unwrap_or_default().to_string()),
                    });
                    if unknown {
                        i += 1;
                    }
                    continue;
                }
            }
        }
        if read_option(word, next, &tables, &mut shape.options) {
            if rule && next.is_some_and(|v| v.contains('*')) {
                return None;
            }
            i += 1;
        }
    }
    if base == "git" && shape.operands.first().is_some_and(|(w, _)| w == "push") {
        // `--force-with-lease` and `--mirror` overwrite the remote's refs as
        // `--force` does: a rule naming `--force` meets them.
        if shape
            .options
            .iter()
            .any(|o| matches!(o.name.as_str(), "--force-with-lease" | "--mirror"))
            && !shape.options.iter().any(|o| o.name == "-f")
        {
            shape.options.push(Opt {
                name: "-f".to_string(),
                value: None,
            });
        }
        // A refspec `+src:dst` forces its ref; `:dst` deletes it.
        for (w, computed) in shape.operands.iter().skip(2) {
            if *computed {
                continue;
            }
            let implied = match w.chars().next() {
                Some('+') => "-f",
                Some(':') => "-d",
                _ => continue,
            };
            shape.options.push(Opt {
                name: implied.to_string(),
                value: None,
            });
        }
        // Deleting the remote's branches (`--delete`, `:dst`, `--prune`)
        // loses its commits as overwriting them does: a rule naming
        // `--force` meets it too.
        if shape
            .options
            .iter()
            .any(|o| matches!(o.name.as_str(), "-d" | "--prune"))
            && !shape.options.iter().any(|o| o.name == "-f")
        {
            shape.options.push(Opt {
                name: "-f".to_string(),
                value: None,
            });
        }
    }
    shape.text = shape.program.clone();
    shape.literal_text = shape.program.clone();
    for (w, computed) in &shape.operands {
        shape.text.push(' ');
        shape.text.push_str(w);
        if !computed {
            shape.literal_text.push(' ');
            shape.literal_text.push_str(w);
        }
    }
    Some(shape)
}

/// Read one option word (`next` is the word after it); returns whether the
/// next word was its value.
fn read_option(word: &str, next: Option<&str>, tables: &[&Grammar], out: &mut Vec<Opt>) -> bool {
    let style = tables.first().map_or(PFLAG, |g| g.style);
    let long = match style {
        Style::Go => Some(word.trim_start_matches('-')),
        Style::Gnu { .. } => word.strip_prefix("--"),
    };
    if let Some(long) = long {
        let (name, attached) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        let dashes = if style == Style::Go { "-" } else { "--" };
        let written = format!("{dashes}{name}");
        let found = find_long(&written, tables, style);
        let mut took = false;
        if found.is_empty() {
            out.push(Opt {
                name: written,
                value: attached.map(str::to_string),
            });
        }
        for (canonical, kind) in found {
            let value = match (attached, kind) {
                (Some(v), _) => Some(v.to_string()),
                (None, Value::Required) => {
                    took = next.is_some();
                    next.map(str::to_string)
                }
                (None, _) => None,
            };
            out.push(Opt {
                name: canonical.to_string(),
                value,
            });
        }
        return took;
    }
    // A cluster of short options.
    let cluster = &word[1..];
    for (k, c) in cluster.char_indices() {
        let rest = &cluster[k + c.len_utf8()..];
        if let Some(names) = tables
            .iter()
            .find_map(|g| g.stands_for.iter().find(|(s, _)| *s == c))
            .map(|(_, names)| names)
        {
            out.extend(names.iter().map(|n| Opt {
                name: n.to_string(),
                value: None,
            }));
            continue;
        }
        let short = format!("-{c}");
        let (canonical, kind) = find_exact(&short, tables).unwrap_or((&short, Value::Flag));
        let canonical = canonical.to_string();
        match kind {
            Value::Flag => out.push(Opt {
                name: canonical,
                value: None,
            }),
            Value::Attached => {
                out.push(Opt {
                    name: canonical,
                    value: (!rest.is_empty()).then(|| rest.to_string()),
                });
                return false;
            }
            Value::Required => {
                if rest.is_empty() {
                    out.push(Opt {
                        name: canonical,
                        value: next.map(str::to_string),
                    });
                    return next.is_some();
                }
                out.push(Opt {
                    name: canonical,
                    value: Some(rest.to_string()),
                });
                return false;
            }
        }
    }
    false
}

/// The names in a group (`-r|-R|--recursive=`) and how its value follows.
fn group(spec: &'static str) -> (impl Iterator<Item = &'static str>, Value) {
    let (names, kind) = if let Some(n) = spec.strip_suffix("=?") {
        (n, Value::Attached)
    } else if let Some(n) = spec.strip_suffix('=') {
        (n, Value::Required)
    } else {
        (spec, Value::Flag)
    };
    (names.split('|'), kind)
}

/// A group's own name: its first.
fn canonical(spec: &'static str) -> &'static str {
    group(spec).0.next().unwrap_or(spec)
}

/// The option a table names `name` (`-R`, `--recursive`), by its own name.
fn find_exact(name: &str, tables: &[&Grammar]) -> Option<(&'static str, Value)> {
    tables.iter().find_map(|g| {
        g.options.iter().find_map(|spec| {
            let (mut names, kind) = group(spec);
            names.any(|n| n == name).then(|| (canonical(spec), kind))
        })
    })
}

/// The options a long name stands for: itself when a table has it, else
/// every option it abbreviates where the program accepts abbreviations (an
/// ambiguous abbreviation is read as each, which only a deny or ask rule
/// sees), else none.
fn find_long(written: &str, tables: &[&Grammar], style: Style) -> Vec<(&'static str, Value)> {
    if let Some(found) = find_exact(written, tables) {
        return vec![found];
    }
    if style != (Style::Gnu { abbreviate: true }) || written.len() < 3 {
        return Vec::new();
    }
    let mut found: Vec<(&'static str, Value)> = Vec::new();
    for g in tables {
        for spec in g.options {
            let (mut names, kind) = group(spec);
            if names.any(|n| n.starts_with("--") && n.starts_with(written))
                && !found.iter().any(|(c, _)| *c == canonical(spec))
            {
                found.push((canonical(spec), kind));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meets(rule: &str, command: &str) -> Meets {
        let rule = RuleShape::new(rule).expect("a rule with a program");
        let command = Shape::of_command(command).expect("a command");
        rule.meets(&command)
    }

    #[test]
    fn options_in_any_spelling_and_order_meet_the_rule() {
        for c in [
            "rm -rf /tmp/x",
            "rm -fr /tmp/x",
            "rm -r -f /tmp/x",
            "rm -f -r /tmp/x",
            "rm -Rf /tmp/x",
            "rm --recursive --force /tmp/x",
            "rm --rec --for /tmp/x",
            "rm /tmp/x -rf",
            "rm -rfv /tmp/x",
            "rm -v -i -r -f /tmp/x",
            "/bin/rm -fr x",
        ] {
            let rule = if c.starts_with('/') {
                "/bin/rm -rf *"
            } else {
                "rm -rf *"
            };
            assert_eq!(meets(rule, c), Meets::Yes, "{c}");
        }
        for c in [
            "rm -r /tmp/x",
            "rm -f x",
            "rm -- -rf",
            "rm x",
            "rmdir -rf x",
        ] {
            assert_eq!(meets("rm -rf *", c), Meets::No, "{c}");
        }
    }

    #[test]
    fn operands_are_matched_without_the_options_between_them() {
        assert_eq!(
            meets("git push origin *", "git push -q origin main"),
            Meets::Yes
        );
        assert_eq!(
            meets("git push origin *", "git -C . push origin main -f"),
            Meets::Yes
        );
        assert_eq!(
            meets("git push origin *", "git push upstream main"),
            Meets::No
        );
        assert_eq!(meets("rm -rf /", "rm -rfv /"), Meets::Yes);
        assert_eq!(meets("rm -rf /", "rm -rf /x"), Meets::No);
        // A value is not an operand.
        assert_eq!(
            meets(
                "git push --force origin main",
                "git push -o ci.skip -f origin main"
            ),
            Meets::Yes
        );
        assert_eq!(
            meets("git checkout main", "git checkout -b main"),
            Meets::No
        );
    }

    #[test]
    fn git_reads_its_options_as_git_does() {
        for c in [
            "git push -f origin main",
            "git push origin main --force",
            "git push -fu origin main",
            "git push --forc origin main",
            "git push origin +main",
            "git push origin +main:main",
        ] {
            assert_eq!(meets("git push --force *", c), Meets::Yes, "{c}");
        }
        assert_eq!(
            meets("git push --force *", "git push origin main"),
            Meets::No
        );
        assert_eq!(
            meets("git push --delete *", "git push origin :old"),
            Meets::Yes
        );
        for c in [
            "git branch -D x",
            "git branch -d -f x",
            "git branch --delete --force x",
            "git branch -fd x",
        ] {
            assert_eq!(meets("git branch -D *", c), Meets::Yes, "{c}");
        }
        // -D deletes too.
        assert_eq!(meets("git branch -d *", "git branch -D x"), Meets::Yes);
        assert_eq!(meets("git branch -D *", "git branch -d x"), Meets::No);
        assert_eq!(meets("git clean -fd *", "git clean -d --force"), Meets::Yes);
        assert_eq!(
            meets("git reset --hard *", "git reset -q --har HEAD~1"),
            Meets::Yes
        );
    }

    #[test]
    fn values_are_read_attached_or_next() {
        for c in [
            "curl -X DELETE https://x",
            "curl -XDELETE https://x",
            "curl --request DELETE https://x",
            "curl --request=DELETE https://x",
            "curl https://x -sS --req DELETE",
        ] {
            assert_eq!(meets("curl -X DELETE *", c), Meets::Yes, "{c}");
        }
        assert_eq!(
            meets("curl -X DELETE *", "curl -X GET https://x"),
            Meets::No
        );
        assert_eq!(
            meets("sed -i *", "sed --in-place=.bak s/a/b/ f"),
            Meets::Yes
        );
        assert_eq!(meets("sed -i *", "sed -ni.bak p f"), Meets::Yes);
        assert_eq!(meets("sed -i *", "sed -n p f"), Meets::No);
    }

    #[test]
    fn subcommands_by_any_name_and_go_style_options() {
        assert_eq!(
            meets("npm install -g *", "npm i --global left-pad"),
            Meets::Yes
        );
        assert_eq!(
            meets(
                "terraform apply -auto-approve *",
                "terraform apply --auto-approve -var x=1"
            ),
            Meets::Yes
        );
        assert_eq!(
            meets(
                "kubectl delete * --all",
                "kubectl -n prod delete pods --all"
            ),
            Meets::Yes
        );
        assert_eq!(
            meets("docker system prune -a *", "docker system prune --all -f"),
            Meets::Yes
        );
        // An unknown program: options in any order, as written.
        assert_eq!(
            meets("gh repo delete --yes *", "gh repo delete x/y --yes"),
            Meets::Yes
        );
        assert_eq!(
            meets("gh repo delete --yes *", "gh repo delete x/y"),
            Meets::No
        );
    }

    #[test]
    fn a_computed_word_where_an_option_may_stand_might_meet_the_rule() {
        assert_eq!(meets("rm -rf *", "rm /tmp/x $X"), Meets::Maybe);
        assert_eq!(meets("rm -rf *", "rm -v \"$X\" /tmp/x"), Meets::Maybe);
        assert_eq!(
            meets("git push origin *", "git push $F origin main"),
            Meets::Maybe
        );
        assert_eq!(meets("rm -rf *", "rm -- /tmp/x $X"), Meets::No);
        assert_eq!(meets("rm -rf *", "rm \"/tmp/$X\""), Meets::No);
        // Unquoted, its value is split into words.
        assert_eq!(meets("rm -rf *", "rm /tmp/$X"), Meets::Maybe);
        assert_eq!(meets("rm -rf *", "rm -rf $X"), Meets::Yes);
    }

    #[test]
    fn rules_with_a_pattern_where_a_value_stands_are_not_read() {
        assert!(RuleShape::new("curl -X * https://x").is_none());
        assert!(RuleShape::new("* -rf").is_none());
        assert!(RuleShape::new("rm -rf *").is_some());
    }
}
