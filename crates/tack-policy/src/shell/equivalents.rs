//! Commands that do what another command does, under another name.
//!
//! A Bash deny or ask rule names a program, but the user means its effect:
//! `deny Bash(rm *)` is "do not remove files", and `unlink a.txt`, `shred -u
//! a.txt` and `git rm a.txt` remove a file just as well. Each command here is
//! also read in the form of the command it amounts to (`rm a.txt`), which
//! meets the deny and ask rules as if written, and needs no allow rule of its
//! own (the command as written still needs one). The forms are read for the
//! rules only: what the command touches was checked where it was written.
//!
//! Only commands whose effect is the same are here (a file removed, refs
//! pushed, work discarded, a mode or owner set, a command run as another
//! user, a package published, a resource deleted, a URL fetched, the same
//! program under another name); programs that merely can do it among much
//! else are left to the other checks.

use super::WordVal;

/// A command in the form of another: its words and what makes them alike.
#[derive(Debug)]
pub(super) struct Form {
    pub words: Vec<WordVal>,
    /// Completes "`unlink a.txt` …": "removes files, as `rm` does".
    pub why: &'static str,
}

const REMOVES: &str = "removes files, as `rm` does";
const PRIVILEGED: &str = "runs a command as another user, as `sudo` does";
const MODES: &str = "sets the modes of files, as `chmod` does";
const OWNERS: &str = "sets the owner of files, as `chown` does";
const PUSHES: &str = "sends commits to a remote repository, as `git push` does";
const DISCARDS: &str = "discards uncommitted changes in the work tree, as `git reset --hard` does";
const DISCARDS_STASH: &str =
    "discards changes saved in the stash, as `git reset --hard` discards the work tree's";
const PUBLISHES: &str = "publishes a package to a registry, as `npm publish` does";
const DELETES: &str = "deletes the resources it names, as `kubectl delete` does";
const FETCHES: &str = "fetches URLs, as `curl` and `wget` do";
const SAME_CLI: &str = "is another build of the same command-line program";
const SAME_PROGRAM: &str = "runs the same program";
const COMMITS: &str = "makes a commit on the current branch, as `git commit` does";
const REBASES: &str = "rebases the current branch, as `git rebase` does";
const DELETES_BRANCH: &str = "deletes a branch, merged or not, as `git branch -D` does";
const SPLIT: &str = "is half of `git checkout`, which git split in two";
const DESTROYS: &str = "destroys the infrastructure, as `terraform destroy` does";
const DELETES_OBJECTS: &str = "deletes objects from a bucket, as `aws s3 rm` does";
const MERGES_PR: &str = "merges a pull request, as `gh pr merge` does";
const DELETES_REPO: &str = "deletes a repository, as `gh repo delete` does";
const SIGNALS: &str = "sends a signal to processes, as `kill` does";
const MOVES: &str = "moves or renames files, as `mv` does";
const SSH: &str = "connects to a host over ssh, as `ssh` does";
const INSTALLS: &str = "installs packages and runs their install scripts, as `npm install` does";
const PIP_INSTALLS: &str = "installs Python packages, as `pip install` does";
const CONTAINERS: &str = "talks to the container engine's socket, as `docker` does";
const STOPS_SERVICE: &str = "stops a service, as `systemctl stop` does";
const SHUTS_DOWN: &str = "powers off or restarts the machine, as `shutdown` does";
const MAKES_FS: &str = "makes a file system or erases one, as `mkfs` does";
const WRITES_DEVICE: &str = "writes a block device, as `dd` does";
const EMPTIES: &str = "empties a file, as `truncate -s 0` does";
const CARGO_PUBLISHES: &str = "publishes crates to a registry, as `cargo publish` does";
const HELM_UNINSTALLS: &str = "uninstalls releases, as `helm uninstall` does";
const SCHEDULES: &str = "schedules a command to run later, as `crontab` does";
const RUNS_CONTAINER: &str = "is half of `docker run`, which creates a container and starts it";
const RECIPE_RUNS: &str =
    "sets a variable on make's command line, which its recipes may run as a command";
const REVERSES: &str = "reverses changes in the work tree, as `git reset --hard` discards them";

fn lit(s: &str) -> WordVal {
    WordVal::literal(s)
}

/// A word whose value is known only at run time, shown as `shown`.
fn unknown_word(shown: &str) -> WordVal {
    WordVal {
        raw: shown.to_string(),
        literal: None,
        tilde: false,
        glob: false,
    }
}

fn word_is(w: &WordVal, names: &[&str]) -> bool {
    w.literal.as_deref().is_some_and(|l| names.contains(&l))
}

/// Options and operands of `args` up to `--` (operands after it too).
struct Parsed<'a> {
    /// Options as written (`-rf`, `--force`, `--mode=755`).
    options: Vec<&'a str>,
    operands: Vec<WordVal>,
}

/// Split `args` into options and operands, `with_value` naming the options
/// that take the next word (short ones as `-m`, long as `--mode`).
fn parse<'a>(args: &'a [WordVal], with_value: &[&str]) -> Parsed<'a> {
    let mut options = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    let mut after_dashes = false;
    while let Some(w) = args.get(i) {
        i += 1;
        let Some(l) = w.literal.as_deref() else {
            operands.push(w.clone());
            continue;
        };
        if after_dashes || l == "-" || !l.starts_with('-') {
            operands.push(w.clone());
            continue;
        }
        if l == "--" {
            after_dashes = true;
            continue;
        }
        options.push(l);
        let takes_next = if l.starts_with("--") {
            !l.contains('=') && with_value.contains(&l)
        } else {
            // The last letter of a cluster may take the next word.
            with_value
                .iter()
                .filter(|o| o.len() == 2 && !o.starts_with("--"))
                .any(|o| l.ends_with(&o[1..]) && !attached_value(l, with_value))
        };
        if takes_next {
            i += 1;
        }
    }
    Parsed { options, operands }
}

/// Whether a short-option cluster holds a value-taking option before its
/// last letter (`-m755`: the value is attached).
fn attached_value(cluster: &str, with_value: &[&str]) -> bool {
    let letters = &cluster[1..];
    letters
        .char_indices()
        .take(letters.len().saturating_sub(1))
        .any(|(_, c)| {
            with_value
                .iter()
                .any(|o| o.len() == 2 && !o.starts_with("--") && o.ends_with(c))
        })
}

/// Whether `written` (no `=value`) names the long option `name`: the name
/// or, as GNU `getopt_long` and git read it, a prefix of it of two letters
/// or more (`--mo` for `--mode`, `--discard` for `--discard-changes`).
fn long_is(written: &str, name: &str) -> bool {
    written == name || (written.len() >= 4 && name.starts_with(written))
}

/// The value of an option: `--mode=755`, `--mode 755`, `--mo=755`, `-m
/// 755`, `-m755`, `-pm 755`. Only option words are read, up to `--`.
fn value_of(args: &[WordVal], short: Option<char>, long: &[&str]) -> Option<String> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let Some(l) = w.literal.as_deref() else {
            continue;
        };
        if l == "--" {
            break;
        }
        if l.starts_with("--") {
            let (name, value) = match l.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (l, None),
            };
            if long.iter().any(|n| long_is(name, n)) {
                return match value {
                    Some(v) => Some(v.to_string()),
                    None => args.get(i).and_then(|v| v.literal.clone()),
                };
            }
            continue;
        }
        if let Some(c) = short
            && l.len() > 1
            && l.starts_with('-')
            && let Some(pos) = l[1..].find(c)
            // A letter before it that takes a value holds the rest
            // (`install -tmybin`: `-t mybin`, no `-m`).
            && !l[1..1 + pos].contains(['m', 'o', 'g', 't', 'S', 'X', 'C'])
        {
            let rest = &l[2 + pos..];
            return if rest.is_empty() {
                args.get(i).and_then(|v| v.literal.clone())
            } else {
                Some(rest.to_string())
            };
        }
    }
    None
}

/// Whether `options` hold the short letter (in a cluster) or a long name
/// (or a prefix of it; not when a boolean is given false: `--force=false`).
fn has(options: &[&str], short: Option<char>, long: &[&str]) -> bool {
    options.iter().any(|o| {
        if o.starts_with("--") {
            let (name, value) = o.split_once('=').map_or((*o, None), |(n, v)| (n, Some(v)));
            let off =
                value.is_some_and(|v| matches!(v, "false" | "0" | "f" | "F" | "FALSE" | "False"));
            !off && long.iter().any(|n| long_is(name, n))
        } else {
            short.is_some_and(|c| o.len() > 1 && o[1..].contains(c))
        }
    })
}

/// The index in `args` of the first operand (a subcommand), skipping
/// options and the values of those in `with_value` (`-n prod uninstall`).
fn subcommand_at(args: &[WordVal], with_value: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let l = w.literal.as_deref()?;
        if !l.starts_with('-') || l == "-" {
            return Some(i);
        }
        if l == "--" {
            return (i + 1 < args.len()).then_some(i + 1);
        }
        let takes = !l.contains('=') && with_value.contains(&l);
        i += if takes { 2 } else { 1 };
    }
    None
}

fn form(words: Vec<WordVal>, why: &'static str) -> Form {
    Form { words, why }
}

fn prefixed(prefix: &[&str], rest: &[WordVal]) -> Vec<WordVal> {
    prefix
        .iter()
        .map(|p| lit(p))
        .chain(rest.iter().cloned())
        .collect()
}

/// docker's global options that take a value.
const DOCKER_GLOBALS: &[&str] = &[
    "-c",
    "--context",
    "-H",
    "--host",
    "--config",
    "-l",
    "--log-level",
    "--tlscacert",
    "--tlscert",
    "--tlskey",
];
/// helm's global options that take a value.
const HELM_GLOBALS: &[&str] = &[
    "-n",
    "--namespace",
    "--kube-context",
    "--kubeconfig",
    "--kube-apiserver",
    "--kube-as-user",
    "--kube-as-group",
    "--kube-ca-file",
    "--kube-token",
    "--kube-tls-server-name",
    "--registry-config",
    "--repository-cache",
    "--repository-config",
    "--burst-limit",
    "--qps",
];
/// aws's global options that take a value.
const AWS_GLOBALS: &[&str] = &[
    "--profile",
    "--region",
    "--output",
    "--endpoint-url",
    "--query",
    "--cli-read-timeout",
    "--cli-connect-timeout",
    "--ca-bundle",
    "--color",
    "--cli-binary-format",
];
/// systemctl's options that take a value (before its verb).
const SYSTEMCTL_GLOBALS: &[&str] = &[
    "-H",
    "--host",
    "-M",
    "--machine",
    "-t",
    "--type",
    "-s",
    "--signal",
    "-p",
    "--property",
    "-P",
    "-o",
    "--output",
    "-n",
    "--lines",
    "--state",
    "--job-mode",
    "--root",
    "--image",
    "--image-policy",
    "--what",
    "--kill-whom",
    "--kill-value",
    "--timestamp",
    "--boot-loader-entry",
    "--boot-loader-menu",
    "--reboot-argument",
    "--when",
    "--preset-mode",
    "--message",
    "--legend",
    "--check-inhibitors",
    "--drop-in",
];

/// `shutdown` in the form for powering off (`halt`, `poweroff`, run level
/// 0) or restarting (`reboot`, `kexec`, run level 6).
fn shutdown(restart: bool) -> Form {
    let how = if restart { "-r" } else { "-h" };
    form(vec![lit("shutdown"), lit(how), lit("now")], SHUTS_DOWN)
}

/// What systemctl's verb at `at` amounts to: `kill`, `disable --now`,
/// `mask --now` stop the units; `poweroff`, `reboot`, `halt`, `kexec`, or
/// starting or isolating their targets, shut the machine down.
fn systemctl(args: &[WordVal], at: usize) -> Vec<Form> {
    let Some(verb) = args[at].literal.as_deref() else {
        return Vec::new();
    };
    let rest = &args[at + 1..];
    let now = args.iter().any(|w| word_is(w, &["--now"]));
    let mut out = Vec::new();
    let stops = match verb {
        "kill" => true,
        "disable" | "mask" => now,
        _ => false,
    };
    if stops {
        let mut words = prefixed(&["systemctl"], &args[..at]);
        words.push(lit("stop"));
        words.extend(rest.iter().filter(|w| !word_is(w, &["--now"])).cloned());
        out.push(form(words, STOPS_SERVICE));
    }
    let target = |names: &[&str]| {
        rest.iter().any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                let unit = l.strip_suffix(".target").unwrap_or(l);
                names.contains(&unit)
            })
        })
    };
    match verb {
        "poweroff" | "halt" => out.push(shutdown(false)),
        "reboot" | "kexec" | "soft-reboot" => out.push(shutdown(true)),
        "isolate" | "start" | "restart" | "reload-or-restart" => {
            if target(&["poweroff", "halt", "runlevel0"]) {
                out.push(shutdown(false));
            } else if target(&["reboot", "kexec", "soft-reboot", "runlevel6"]) {
                out.push(shutdown(true));
            }
        }
        _ => {}
    }
    out
}

/// systemd-run's options that take a value, other than those that say the
/// user (`--uid`, `--gid`, `-p`).
const SYSTEMD_RUN_VALUES: &[&str] = &[
    "-u",
    "--unit",
    "-E",
    "--setenv",
    "--description",
    "--slice",
    "-M",
    "--machine",
    "-H",
    "--host",
    "--working-directory",
    "--nice",
    "--service-type",
    "--path-property",
    "--socket-property",
    "--timer-property",
    "--on-active",
    "--on-boot",
    "--on-startup",
    "--on-unit-active",
    "--on-unit-inactive",
    "--on-calendar",
    "--json",
    "-C",
    "--capsule",
    "--background",
    "--expand-environment",
];

/// systemd-run's own options: the words before the command it runs.
fn systemd_run_own(args: &[WordVal]) -> &[WordVal] {
    let mut all = SYSTEMD_RUN_VALUES.to_vec();
    all.extend(["--uid", "--gid", "-p", "--property"]);
    &args[..subcommand_at(args, &all).unwrap_or(args.len())]
}

/// The programs that run a command as another user, and the option that
/// says so where one must (`chroot --userspec`); `None` when they always do.
/// The third field: the program's other options that take a value, whose
/// value is skipped (`start-stop-daemon --name x --chuid nobody`).
type AsAnotherUser = (
    &'static str,
    Option<&'static [&'static str]>,
    &'static [&'static str],
);
const AS_ANOTHER_USER: &[AsAnotherUser] = &[
    ("su", None, &[]),
    ("runuser", None, &[]),
    ("sg", None, &[]),
    ("gosu", None, &[]),
    ("su-exec", None, &[]),
    ("setuidgid", None, &[]),
    ("s6-setuidgid", None, &[]),
    ("please", None, &[]),
    ("sudo-rs", None, &[]),
    ("chroot", Some(&["--userspec", "--groups"]), &[]),
    (
        "start-stop-daemon",
        Some(&["-c", "--chuid"]),
        &[
            "-n",
            "--name",
            "-x",
            "--exec",
            "-u",
            "--user",
            "-p",
            "--pidfile",
            "-a",
            "--startas",
            "-d",
            "--chdir",
            "-r",
            "--chroot",
            "-N",
            "--nicelevel",
            "-P",
            "--procsched",
            "-I",
            "--iosched",
            "-k",
            "--umask",
            "-s",
            "--signal",
            "-R",
            "--retry",
            "-g",
            "--group",
            "-O",
            "--output",
            "--ppid",
            "--notify-timeout",
        ],
    ),
    ("capsh", Some(&["--user", "--uid", "--gid"]), &[]),
    (
        "chpst",
        Some(&["-u", "-U"]),
        &[
            "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t",
        ],
    ),
    (
        "systemd-run",
        Some(&["--uid", "--gid", "-p", "--property"]),
        SYSTEMD_RUN_VALUES,
    ),
    (
        "setpriv",
        Some(&[
            "--reuid",
            "--regid",
            "--ruid",
            "--rgid",
            "--euid",
            "--egid",
            "--init-groups",
        ]),
        &[
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--selinux-label",
            "--apparmor-profile",
            "--pdeathsig",
            "--landlock-access",
            "--landlock-rule",
            "--seccomp-filter",
        ],
    ),
];

/// Whether `sg ARGS` is ast-grep's command (`sg scan`, `sg run -p …`,
/// `sg --version`), not shadow's `sg GROUP COMMAND`.
pub(super) fn is_ast_grep(args: &[WordVal]) -> bool {
    args.first()
        .and_then(|w| w.literal.as_deref())
        .is_none_or(|w| {
            (w.starts_with('-') && w != "-")
                || matches!(
                    w,
                    "run" | "scan" | "test" | "new" | "lsp" | "completions" | "help"
                )
        })
}

/// Whether the program's own options (before its first operand) name one
/// of `names` (`--userspec=x`, `-cnobody`, `--chu x`); for `-p`/`--property`
/// only a property that sets the user (`-p User=root`). The values of the
/// options in `with_value` are skipped, not taken for the first operand
/// (`--name x --chuid nobody`, `-p MemoryMax=1G -p User=root`).
fn own_options_name(args: &[WordVal], names: &[&str], with_value: &[&str]) -> bool {
    let is_user_property = |v: Option<&str>| {
        v.is_some_and(|v| {
            ["User=", "Group=", "DynamicUser="]
                .iter()
                .any(|k| v.starts_with(k))
        })
    };
    let mut i = 0;
    while let Some(l) = args.get(i).and_then(|w| w.literal.as_deref()) {
        i += 1;
        if l == "--" || !l.starts_with('-') || l == "-" {
            return false;
        }
        let next = args.get(i).and_then(|w| w.literal.as_deref());
        if let Some(long) = l.strip_prefix("--") {
            let (name, attached) = l.split_once('=').map_or((l, None), |(n, v)| (n, Some(v)));
            let is = |n: &&str| n.starts_with("--") && !long.is_empty() && long_is(name, n);
            if names.iter().any(is) {
                if !long_is(name, "--property") || is_user_property(attached.or(next)) {
                    return true;
                }
                i += usize::from(attached.is_none());
            } else if attached.is_none() && with_value.contains(&name) {
                // Another option's value is not an operand (by its whole
                // name: `--start` is an option of its own, not `--startas`).
                i += 1;
            }
            continue;
        }
        // A cluster (`-Sc nobody`, `-cnobody`): letters up to the first
        // that takes a value, which takes the rest or the next word.
        for (at, c) in l.char_indices().skip(1) {
            let short = format!("-{c}");
            let rest = &l[at + c.len_utf8()..];
            let value = if rest.is_empty() { next } else { Some(rest) };
            if names.contains(&short.as_str()) {
                if short != "-p" || is_user_property(value) {
                    return true;
                }
            } else if !with_value.contains(&short.as_str()) {
                continue;
            }
            i += usize::from(rest.is_empty());
            break;
        }
    }
    false
}

/// The words the table looks for to tell a command is another's: a
/// subcommand, an option, a value (`git stash drop`, `terraform apply
/// -destroy`, `shred -u`, `install -m 777`, `gh api -X PUT`).
const TRIGGERS: &[&str] = &[
    "drop",
    "clear",
    "-d",
    "-D",
    "--delete",
    "-f",
    "--force",
    "-destroy",
    "destroy",
    "destroy-all",
    "delete",
    "del",
    "un",
    "delete-object",
    "delete-objects",
    "delete-bucket",
    "rm",
    "remove",
    "prune",
    "trash",
    "move",
    "rename",
    "mv",
    "-u",
    "--remove",
    "publish",
    "add",
    "install",
    "ci",
    "it",
    "rebuild",
    "update",
    "sync",
    "create",
    "dlx",
    "kill",
    "stop",
    "restart",
    "--now",
    "reboot",
    "poweroff",
    "halt",
    "0",
    "6",
    "PUT",
    "DELETE",
    "--prune",
    "--mirror",
    "--stop",
    "-K",
    "drain",
    "release",
    "-p",
    "-a",
    "777",
    ".",
    ":x",
    "0000000000000000000000000000000000000000",
];

/// At most this many words are tried in place of computed ones.
const MAX_PROBED: usize = 4;

/// The forms `args` might have once its computed words are known: each of
/// the first computed words is tried as each word the table looks for, and
/// a form found so that `read` (the table) did not give without it is
/// given as its program (and subcommand, where an option follows it)
/// followed by the word known only at run time (`git stash $X` is `git
/// reset $X`, `terraform apply $O` is `terraform $O`), which a deny or ask
/// rule on that program might match: the policy asks (and refuses where a
/// rule names the whole program or subcommand, `rm *`).
fn probed(args: &[WordVal], found: &[Form], read: &dyn Fn(&[WordVal]) -> Vec<Form>) -> Vec<Form> {
    if args.len() > 64 {
        return Vec::new();
    }
    let computed: Vec<usize> = (0..args.len())
        .filter(|&i| args[i].literal.is_none())
        .take(MAX_PROBED)
        .collect();
    let mut out: Vec<Form> = Vec::new();
    let known = |f: &Form, forms: &[Form]| {
        forms.iter().any(|g| {
            g.why == f.why && g.words.first().map(|w| &w.raw) == f.words.first().map(|w| &w.raw)
        })
    };
    for &at in &computed {
        let mut tried = args.to_vec();
        // After an option, the word may be its value (`kubectl apply -f
        // "$F"`, `install -m "$M"`): only values are tried there.
        let after_option = at > 0
            && args[at - 1]
                .literal
                .as_deref()
                .is_some_and(|l| l.starts_with('-') && l.len() > 1 && !l.contains('='));
        for trigger in TRIGGERS {
            if after_option && trigger.starts_with('-') {
                continue;
            }
            tried[at] = lit(trigger);
            for f in read(&tried) {
                if known(&f, found) || known(&f, &out) {
                    continue;
                }
                let Some(program) = f.words.first().filter(|w| w.literal.is_some()) else {
                    continue;
                };
                // The subcommand too where an option the table adds follows
                // it (`git reset --hard`, `git branch -D`): a rule on another
                // of the program's subcommands does not meet the form.
                let option = |i: usize| {
                    f.words
                        .get(i)
                        .and_then(|w| w.literal.as_deref())
                        .map(|l| l.starts_with('-') && !args.iter().any(|a| word_is(a, &[l])))
                };
                let mut words = vec![program.clone()];
                if option(1) == Some(false) && option(2) == Some(true) {
                    words.push(f.words[1].clone());
                }
                words.push(args[at].clone());
                out.push(Form { words, why: f.why });
            }
        }
    }
    out
}

/// The forms of a simple command (wrappers removed) other than git's (see
/// [`git`]), by its program's base name; and, where a computed word stands
/// where the table looks for one, the forms it might have (see [`probed`]).
/// The forms an environment variable set for a command (or exported)
/// amounts to: `DOCKER_HOST=ssh://h` (podman's `CONTAINER_HOST`) has the
/// engine's client run `ssh h`; `CARGO_ALIAS_X=publish …` makes `cargo X`
/// publish.
pub(super) fn assignment(name: &str, value: &str) -> Vec<Form> {
    let mut out = Vec::new();
    if matches!(name, "DOCKER_HOST" | "CONTAINER_HOST")
        && let Some(rest) = value
            .get(..6)
            .filter(|s| s.eq_ignore_ascii_case("ssh://"))
            .map(|_| &value[6..])
    {
        let destination = rest.split('/').next().unwrap_or_default();
        out.push(form(vec![lit("ssh"), lit(destination)], SSH));
    }
    if let Some(alias) = name.strip_prefix("CARGO_ALIAS_")
        && !alias.is_empty()
        && value.split_whitespace().any(|w| w == "publish")
    {
        let mut words = vec![lit("cargo")];
        words.extend(value.split_whitespace().map(lit));
        out.push(form(words, CARGO_PUBLISHES));
    }
    out
}

pub(super) fn forms(base: &str, argv: &[WordVal]) -> Vec<Form> {
    let mut out = forms_of(base, argv);
    if argv[1..].iter().any(|w| w.literal.is_none()) {
        let program = argv[0].clone();
        let more = probed(&argv[1..], &out, &|args| {
            let mut argv = vec![program.clone()];
            argv.extend(args.iter().cloned());
            forms_of(base, &argv)
        });
        out.extend(more);
    }
    out
}

fn forms_of(base: &str, argv: &[WordVal]) -> Vec<Form> {
    let args = &argv[1..];
    let mut out = Vec::new();
    let word_at = |i: usize| args.get(i).and_then(|w| w.literal.as_deref());
    // systemd's tools reach another machine's manager over ssh (`-H
    // [USER@]HOST`: `ssh HOST systemd-stdio-bridge`).
    if matches!(
        base,
        "systemctl"
            | "busctl"
            | "loginctl"
            | "machinectl"
            | "hostnamectl"
            | "timedatectl"
            | "localectl"
            | "systemd-run"
            | "systemd-analyze"
            | "networkctl"
            | "portablectl"
            | "homectl"
            | "userdbctl"
    ) {
        // systemd-run's own options only: the rest is the command it runs.
        let own = if base == "systemd-run" {
            systemd_run_own(args)
        } else {
            args
        };
        if let Some(host) = value_of(own, Some('H'), &["--host"]) {
            let host = host.rsplit('@').next().unwrap_or(&host);
            let host = host.split(':').next().unwrap_or(host);
            out.push(form(vec![lit("ssh"), lit(host)], SSH));
        }
    }
    // systemd-run's timer options make a timer that runs the command later,
    // as a crontab line does (`--on-calendar=daily`, `--on-active=30`).
    if base == "systemd-run" {
        let timer = systemd_run_own(args)
            .iter()
            .filter_map(|w| w.literal.as_deref())
            .any(|l| {
                let name = l.split_once('=').map_or(l, |(n, _)| n);
                name.starts_with("--on-") || name == "--timer-property"
            });
        if timer {
            out.push(form(prefixed(&["crontab"], &[]), SCHEDULES));
        }
    }
    // `/etc/init.d/nginx stop`: the service's own script.
    if argv[0]
        .literal
        .as_deref()
        .is_some_and(|p| p.contains("/init.d/") || p.contains("/rc.d/"))
        && matches!(word_at(0), Some("stop" | "restart" | "force-stop"))
    {
        out.push(form(
            vec![lit("systemctl"), lit("stop"), lit(base)],
            STOPS_SERVICE,
        ));
    }
    match base {
        // `service nginx stop` runs `systemctl stop nginx` (and
        // `invoke-rc.d`, OpenRC's `rc-service`, the same).
        "service" | "invoke-rc.d" | "rc-service" => {
            let p = parse(args, &[]);
            if let [unit, action, rest @ ..] = p.operands.as_slice()
                && let Some(verb) = action.literal.as_deref()
            {
                let mut words = vec![lit("systemctl"), action.clone(), unit.clone()];
                words.extend(rest.iter().cloned());
                if matches!(
                    verb,
                    "stop"
                        | "restart"
                        | "force-stop"
                        | "try-restart"
                        | "condrestart"
                        | "force-reload"
                ) {
                    out.push(form(
                        vec![lit("systemctl"), lit("stop"), unit.clone()],
                        STOPS_SERVICE,
                    ));
                }
                out.push(form(words, SAME_PROGRAM));
            }
        }
        "systemctl" => {
            if let Some(at) = subcommand_at(args, SYSTEMCTL_GLOBALS) {
                out.extend(systemctl(args, at));
            }
        }
        "reboot" | "poweroff" | "halt" if !only_asks_about_itself(args) => {
            out.push(shutdown(base == "reboot"));
        }
        "telinit" | "init" => match parse(args, &[])
            .operands
            .first()
            .and_then(|w| w.literal.as_deref())
        {
            Some("0") => out.push(shutdown(false)),
            Some("6") => out.push(shutdown(true)),
            _ => {}
        },
        // rimraf, del-cli: `rm -rf` as a Node package.
        "unlink" | "srm" | "wipe" | "trash" | "trash-put" | "rimraf" | "del" | "del-cli" => {
            let p = parse(args, &[]);
            out.push(form(prefixed(&["rm"], &p.operands), REMOVES));
        }
        "shred" => {
            let p = parse(
                args,
                &["-n", "-s", "--iterations", "--size", "--random-source"],
            );
            if has(&p.options, Some('u'), &["--remove"]) {
                out.push(form(prefixed(&["rm"], &p.operands), REMOVES));
            }
            // `shred /dev/sda` overwrites the disk.
            out.extend(device_writes(&p.operands));
        }
        "tee" => out.extend(device_writes(&parse(args, &[]).operands)),
        "pv" => {
            if let Some(dest) = value_of(args, Some('o'), &["--output"]) {
                out.extend(device_writes(&[lit(&dest)]));
            }
        }
        // dd's forks and clones.
        "ddrescue" | "dcfldd" | "dc3dd" | "dd_rescue" | "sg_dd" | "sdd" => {
            out.push(form(prefixed(&["dd"], args), WRITES_DEVICE));
        }
        // `mkfs -t ext4` runs `mkfs.ext4`; `mke2fs`, `mkswap`, `mkdosfs`
        // are the same makers by other names.
        _ if (base.starts_with("mkfs.")
            || matches!(
                base,
                "mke2fs" | "mkswap" | "mkdosfs" | "mkntfs" | "mkexfatfs" | "mke4fs" | "mformat"
            ))
            && !only_asks_about_itself(args) =>
        {
            let mut words = vec![lit("mkfs")];
            if let Some(kind) = base.strip_prefix("mkfs.") {
                words.extend([lit("-t"), lit(kind)]);
            }
            words.extend(args.iter().cloned());
            out.push(form(words, MAKES_FS));
        }
        // `wipefs -a DEV` erases the file systems' signatures (without `-a`
        // or `-o` it only lists them).
        "wipefs" => {
            let p = parse(
                args,
                &[
                    "-o", "--offset", "-t", "--types", "-O", "--output", "-b", "--backup",
                ],
            );
            if (has(&p.options, Some('a'), &["--all"])
                || value_of(args, Some('o'), &["--offset"]).is_some())
                && !has(&p.options, Some('n'), &["--no-act"])
            {
                out.push(form(prefixed(&["mkfs"], &p.operands), MAKES_FS));
            }
        }
        // `fallocate -p`/`--punch-hole` zeroes a range of the file,
        // `-c`/`--collapse-range` removes one.
        "fallocate" => {
            let p = parse(args, &["-o", "--offset", "-l", "--length"]);
            if has(&p.options, Some('p'), &["--punch-hole"])
                || has(&p.options, Some('c'), &["--collapse-range"])
            {
                out.push(form(prefixed(&["truncate"], &p.operands), EMPTIES));
            }
        }
        "gio" => match word_at(0) {
            Some("remove" | "trash" | "rm") => {
                let p = parse(&args[1..], &[]);
                out.push(form(prefixed(&["rm"], &p.operands), REMOVES));
            }
            Some("move" | "rename" | "mv") => {
                let p = parse(&args[1..], &[]);
                out.push(form(prefixed(&["mv"], &p.operands), MOVES));
            }
            Some("set") if args.iter().any(|w| w.raw.contains("unix::")) => {
                let p = parse(&args[1..], &["-t", "--type"]);
                let owner = args
                    .iter()
                    .any(|w| w.raw.contains("unix::uid") || w.raw.contains("unix::gid"));
                if owner {
                    out.push(form(prefixed(&["chown"], &p.operands), OWNERS));
                } else {
                    out.push(form(prefixed(&["chmod"], &p.operands), MODES));
                }
            }
            _ => {}
        },
        "doas" | "pkexec" | "run0" => out.push(form(prefixed(&["sudo"], args), PRIVILEGED)),
        "sudoedit" => out.push(form(prefixed(&["sudo", "-e"], args), PRIVILEGED)),
        // ast-grep's `sg` (`sg scan`, `sg run -p …`) is not shadow's `sg
        // GROUP COMMAND`.
        "sg" if is_ast_grep(args) => {}
        "machinectl" if matches!(word_at(0), Some("shell" | "login")) => {
            out.push(form(prefixed(&["sudo"], argv), PRIVILEGED));
        }
        "start-stop-daemon"
            if args
                .iter()
                .any(|w| word_is(w, &["--stop", "-K"]) || w.raw.starts_with("-K")) =>
        {
            out.push(form(prefixed(&["kill"], args), SIGNALS));
        }
        _ if let Some((_, needs, with_value)) =
            AS_ANOTHER_USER.iter().find(|(p, _, _)| *p == base)
            && needs.is_none_or(|names| own_options_name(args, names, with_value)) =>
        {
            out.push(form(prefixed(&["sudo"], argv), PRIVILEGED));
        }
        "install" => {
            let with_value = [
                "-m",
                "-o",
                "-g",
                "-t",
                "-S",
                "--mode",
                "--owner",
                "--group",
                "--target-directory",
                "--suffix",
                "--strip-program",
            ];
            let p = parse(args, &with_value);
            let targets = install_targets(args, &p);
            if !has(&p.options, Some('d'), &["--directory"]) {
                out.extend(device_writes(&targets));
                out.extend(emptied(p.operands.first(), p.operands.last()));
            }
            if let Some(mode) = value_of(args, Some('m'), &["--mode"]) {
                out.push(form(modes("chmod", &mode, &targets), MODES));
            }
            for (short, long) in [('o', "--owner"), ('g', "--group")] {
                if let Some(owner) = value_of(args, Some(short), &[long]) {
                    let owner = if short == 'g' {
                        format!(":{owner}")
                    } else {
                        owner
                    };
                    out.push(form(modes("chown", &owner, &targets), OWNERS));
                }
            }
        }
        "mkdir" | "mkfifo" | "mknod" => {
            if let Some(mode) = value_of(args, Some('m'), &["--mode"]) {
                let p = parse(args, &["-m", "--mode", "-Z", "--context"]);
                out.push(form(modes("chmod", &mode, &p.operands), MODES));
            }
        }
        "cp" => {
            // `cp --attributes-only --preserve=mode SRC DEST`: DEST's mode.
            let p = parse(args, &["-t", "--target-directory", "-S", "--suffix"]);
            // `cp disk.img /dev/sda`; `cp /dev/null a.txt`.
            if !has(&p.options, None, &["--attributes-only"])
                && value_of(args, Some('t'), &["--target-directory"]).is_none()
                && p.operands.len() >= 2
            {
                out.extend(device_writes(&p.operands[p.operands.len() - 1..]));
                out.extend(emptied(p.operands.first(), p.operands.last()));
            }
            if has(&p.options, None, &["--attributes-only"]) {
                let dest: Vec<WordVal> = p.operands.last().cloned().into_iter().collect();
                let preserve = value_of(args, None, &["--preserve"]).unwrap_or_default();
                if preserve.contains("ownership") || preserve.contains("all") {
                    out.push(form(prefixed(&["chown"], &dest), OWNERS));
                }
                if preserve.is_empty() || preserve.contains("mode") || preserve.contains("all") {
                    out.push(form(prefixed(&["chmod"], &dest), MODES));
                }
            }
        }
        "rsync" => {
            if let Some(mode) = value_of(args, None, &["--chmod"]) {
                let p = parse(args, &[]);
                let dest: Vec<WordVal> = p.operands.last().cloned().into_iter().collect();
                out.push(form(modes("chmod", &mode, &dest), MODES));
            }
            if let Some(owner) = value_of(args, None, &["--chown"]) {
                let p = parse(args, &[]);
                let dest: Vec<WordVal> = p.operands.last().cloned().into_iter().collect();
                out.push(form(modes("chown", &owner, &dest), OWNERS));
            }
            let p = parse(args, &[]);
            // rsync's remote shell is ssh (`host:path`, not `host::module`).
            if value_of(args, Some('e'), &["--rsh"]).is_none() {
                for w in &p.operands {
                    if let Some(l) = w.literal.as_deref()
                        && !l.contains("::")
                        && !l.starts_with("rsync://")
                        && let Some(host) = scp_host(l)
                    {
                        out.push(form(vec![lit("ssh"), lit(host)], SSH));
                    }
                }
            }
            if has(&p.options, None, &["--remove-source-files"]) {
                out.push(form(prefixed(&["mv"], &p.operands), MOVES));
            }
            // `--delete` and its kin (`--del`, `--delete-after`, …) remove
            // what the destination holds that the source does not.
            if p.options.iter().any(|o| o.starts_with("--del"))
                && let Some(dest) = p.operands.last()
            {
                out.push(form(vec![lit("rm"), lit("-r"), dest.clone()], REMOVES));
            }
        }
        // `tar --remove-files -cf /dev/null t`: the files archived are
        // removed, wherever the archive goes.
        "tar" | "gtar" | "bsdtar" if args.iter().any(|w| word_is(w, &["--remove-files"])) => {
            let p = parse(
                args,
                &[
                    "-f",
                    "--file",
                    "-C",
                    "--directory",
                    "-T",
                    "--files-from",
                    "-X",
                    "--exclude-from",
                    "-b",
                    "-H",
                    "--format",
                    "-I",
                    "--use-compress-program",
                ],
            );
            out.push(form(prefixed(&["rm", "-r"], &p.operands), REMOVES));
        }
        // `zip -m ARCHIVE FILES`: the files put in the archive are removed.
        "zip" => {
            let p = parse(
                args,
                &[
                    "-b", "-n", "-t", "-tt", "-P", "-Z", "-O", "-s", "-sp", "-x", "-i",
                ],
            );
            let moves = p.options.iter().any(|o| {
                *o == "--move" || (!o.starts_with("--") && o.len() > 1 && o[1..].contains('m'))
            });
            if moves {
                let files = p.operands.get(1..).unwrap_or(&[]);
                out.push(form(prefixed(&["rm", "-r"], files), REMOVES));
            }
        }
        // `make CC=rm x`, `make 'LINK.c=git push;:' x`: a variable set on
        // the command line may be the command a recipe runs (make reads
        // its shell syntax as code elsewhere).
        "make" | "gmake" => {
            for w in args {
                if let Some((_, value)) = w
                    .literal
                    .as_deref()
                    .and_then(super::interpreters::make_variable)
                    && value
                        .split_whitespace()
                        .next()
                        .is_some_and(|c| !c.starts_with('-'))
                {
                    let mut words: Vec<WordVal> = value.split_whitespace().map(lit).collect();
                    words.push(unknown_word("(the recipe's words)"));
                    out.push(form(words, RECIPE_RUNS));
                }
            }
        }
        // `patch -R` reverses a patch: made by `git diff`, the work.
        "patch" if args.iter().any(|w| word_is(w, &["-R", "--reverse"])) => {
            out.push(form(
                vec![lit("git"), lit("reset"), unknown_word("(a patch reversed)")],
                REVERSES,
            ));
        }
        "setfacl" => out.push(form(prefixed(&["chmod"], args), MODES)),
        // A mask that lets the group or others write what is made next
        // (`umask 000`, `umask 002`); not one as strict as 022.
        "umask" => {
            let p = parse(args, &[]);
            if let Some(mode) = p.operands.first() {
                let loosens = match mode.literal.as_deref() {
                    Some(m) if m.bytes().all(|b| b.is_ascii_digit()) => {
                        u32::from_str_radix(m, 8).map_or(true, |v| v & 0o022 != 0o022)
                    }
                    Some(m) => m.contains('w'),
                    None => true,
                };
                if loosens {
                    out.push(form(vec![lit("chmod"), mode.clone()], MODES));
                }
            }
        }
        // `chgrp G F` is `chown :G F`.
        "chgrp" => {
            let p = parse(args, &["--reference"]);
            if let Some((group, files)) = p.operands.split_first() {
                let group = match &group.literal {
                    Some(g) => lit(&format!(":{g}")),
                    None => group.clone(),
                };
                let mut words = vec![lit("chown")];
                words.extend(p.options.iter().map(|o| lit(o)));
                words.push(group);
                words.extend(files.iter().cloned());
                out.push(form(words, OWNERS));
            }
        }
        "hub" => {
            // What the git command amounts to, too (`hub clean -fdx`).
            if let Some(at) = subcommand_at(args, &["-C", "-c"])
                && let Some(sub) = word_at(at)
            {
                out.extend(git_of(sub, &args[at + 1..], &|_| false));
            }
            out.push(form(prefixed(&["git"], args), SAME_CLI));
        }
        "oc" | "kubecolor" => out.push(form(prefixed(&["kubectl"], args), SAME_CLI)),
        "microk8s" | "k3s" if word_at(0) == Some("kubectl") => {
            out.push(form(prefixed(&["kubectl"], &args[1..]), SAME_CLI));
        }
        "tofu" => {
            let words = prefixed(&["terraform"], args);
            out.extend(forms_of("terraform", &words));
            out.push(form(words, SAME_CLI));
        }
        "terraform" => {
            // `terraform apply -destroy` is what `terraform destroy` runs.
            let at = args.iter().position(|w| word_is(w, &["apply"]));
            let destroys = |w: &WordVal| {
                w.literal.as_deref().is_some_and(|l| {
                    l.starts_with('-')
                        && match l.trim_start_matches('-').split_once('=') {
                            None => l.trim_start_matches('-') == "destroy",
                            Some((name, value)) => {
                                name == "destroy"
                                    && matches!(value, "1" | "t" | "T" | "true" | "TRUE" | "True")
                            }
                        }
                })
            };
            if let Some(at) = at
                && args[at + 1..].iter().any(destroys)
            {
                let mut words = prefixed(&["terraform"], &args[..at]);
                words.push(lit("destroy"));
                words.extend(args[at + 1..].iter().filter(|w| !destroys(w)).cloned());
                out.push(form(words, DESTROYS));
            }
        }
        "slogin" | "autossh" | "mosh" | "ssh-copy-id" | "sshfs" | "sftp" => {
            let p = parse(
                args,
                &[
                    "-p", "-P", "-i", "-l", "-o", "-F", "-J", "-b", "-B", "-M", "-c", "-S", "-D",
                    "-L", "-R",
                ],
            );
            let words = p.operands.iter().map(|w| match w.literal.as_deref() {
                Some(l) => lit(l.split(':').next().unwrap_or(l)),
                None => w.clone(),
            });
            let mut ssh = vec![lit("ssh")];
            ssh.extend(words);
            out.push(form(ssh, SSH));
        }
        "scp" => {
            let p = parse(
                args,
                &["-P", "-i", "-l", "-o", "-F", "-J", "-c", "-S", "-D", "-X"],
            );
            for w in &p.operands {
                if let Some(l) = w.literal.as_deref()
                    && let Some(host) = scp_host(l)
                {
                    out.push(form(vec![lit("ssh"), lit(host)], SSH));
                }
            }
        }
        "pkill" | "killall" | "skill" | "snice" | "killall5" if !only_asks_about_itself(args) => {
            out.push(form(prefixed(&["kill"], args), SIGNALS));
        }
        "fuser" => {
            let p = parse(args, &["-n", "--namespace"]);
            if has(&p.options, Some('k'), &["--kill"]) {
                out.push(form(prefixed(&["kill"], args), SIGNALS));
            }
        }
        "rename" | "mmv" | "prename" | "file-rename" => {
            let p = parse(args, &[]);
            out.push(form(prefixed(&["mv"], &p.operands), MOVES));
        }
        // terragrunt runs terraform's command (`terragrunt apply -destroy`,
        // `run-all destroy`, `destroy-all`); cdktf destroys its stacks.
        "terragrunt" => {
            let p = parse(args, &[]);
            if p.operands
                .iter()
                .any(|w| word_is(w, &["destroy", "destroy-all"]))
            {
                out.push(form(prefixed(&["terraform", "destroy"], &[]), DESTROYS));
            }
            out.extend(forms_of("terraform", &prefixed(&["terraform"], args)));
            // terragrunt runs terraform's command: `terragrunt apply`,
            // `run-all apply`, `run --all -- apply`.
            let command: Vec<WordVal> = args
                .iter()
                .filter(|w| !word_is(w, &["run-all", "run", "--all", "-a", "--"]))
                .cloned()
                .collect();
            let words = prefixed(&["terraform"], &command);
            out.extend(forms_of("terraform", &words));
            out.push(form(words, SAME_CLI));
        }
        "cdktf" if word_at(0) == Some("destroy") => {
            out.push(form(
                prefixed(&["terraform", "destroy"], &args[1..]),
                DESTROYS,
            ));
        }
        // helmfile's `destroy` and `delete` uninstall its releases.
        "helmfile" => {
            const WITH_VALUE: &[&str] = &[
                "-e",
                "--environment",
                "-f",
                "--file",
                "-n",
                "--namespace",
                "-l",
                "--selector",
                "--kube-context",
                "-b",
                "--helm-binary",
                "--state-values-set",
                "--state-values-file",
                "--log-level",
                "-c",
                "--chart",
            ];
            if let Some(at) = subcommand_at(args, WITH_VALUE)
                && matches!(word_at(at), Some("destroy" | "delete"))
            {
                out.push(form(
                    prefixed(&["helm", "uninstall"], &args[at + 1..]),
                    HELM_UNINSTALLS,
                ));
            }
        }
        // The snap's own name for its kubectl.
        "microk8s.kubectl" => out.push(form(prefixed(&["kubectl"], args), SAME_CLI)),
        // virsh over `qemu+ssh://host/system` runs ssh to the host.
        "virsh" | "virt-install" | "virt-viewer" | "virt-manager" => {
            if let Some(uri) = value_of(args, Some('c'), &["--connect"])
                && let Some(host) = ssh_url_host(&uri)
            {
                out.push(form(vec![lit("ssh"), lit(&host)], SSH));
            }
        }
        "vagrant" if word_at(0) == Some("ssh") => {
            out.push(form(prefixed(&["ssh"], &args[1..]), SSH));
        }
        // cargo-release, cargo-workspaces, cargo-smart-release publish the
        // workspace's crates.
        "cargo-release" | "cargo-smart-release" | "cargo-workspaces" | "cargo-ws" => {
            let sub = base.strip_prefix("cargo-").unwrap_or(base);
            // Run by cargo, it is given its subcommand's name first.
            let args = match word_at(0) {
                Some(w) if w == sub || matches!(w, "ws" | "workspaces") => &args[1..],
                _ => args,
            };
            let words = prefixed(&["cargo", sub], args);
            out.extend(forms_of("cargo", &words));
        }
        "lima" | "colima" if matches!(word_at(0), Some("nerdctl" | "docker")) => {
            let rest: Vec<WordVal> = args[1..]
                .iter()
                .filter(|w| !word_is(w, &["--"]))
                .cloned()
                .collect();
            let words = prefixed(&["docker"], &rest);
            out.extend(forms_of("docker", &words));
            out.push(form(words, SAME_CLI));
        }
        "podman" | "podman-remote" | "nerdctl" | "finch" => {
            // `podman --url ssh://root@host/run/podman/podman.sock ps`.
            if let Some(url) = value_of(args, None, &["--url"])
                && let Some(host) = ssh_url_host(&url)
            {
                out.push(form(vec![lit("ssh"), lit(&host)], SSH));
            }
            let words = prefixed(&["docker"], args);
            out.extend(forms_of("docker", &words));
            out.push(form(words, SAME_CLI));
        }
        "docker" => {
            // `docker -H ssh://host …` runs ssh to the host.
            if let Some(host) = value_of(args, Some('H'), &["--host"])
                && let Some(host) = host.strip_prefix("ssh://")
            {
                let host = host.rsplit('@').next().unwrap_or(host);
                let host = host.split(['/', ':']).next().unwrap_or(host);
                out.push(form(vec![lit("ssh"), lit(host)], SSH));
            }
            // `docker container rm` is `docker rm`, `docker image rm` is
            // `docker rmi` (the management commands' aliases).
            if let Some(at) = subcommand_at(args, DOCKER_GLOBALS)
                && let (Some(group), Some(sub)) = (word_at(at), word_at(at + 1))
            {
                let short = match (group, sub) {
                    ("container", "rm" | "remove" | "prune") => Some("rm"),
                    ("container", "ls" | "list") => Some("ps"),
                    (
                        "container",
                        "kill" | "stop" | "start" | "restart" | "exec" | "run" | "create" | "cp"
                        | "commit" | "attach" | "pause" | "unpause" | "rename" | "update" | "logs"
                        | "inspect" | "export" | "top",
                    ) => Some(sub),
                    ("image", "rm" | "remove" | "prune") => Some("rmi"),
                    ("image", "ls" | "list") => Some("images"),
                    (
                        "image",
                        "pull" | "push" | "build" | "tag" | "save" | "load" | "import" | "history",
                    ) => Some(sub),
                    ("system", "prune" | "reset") => Some("rm"),
                    // `docker compose rm` removes the services' containers.
                    ("compose", "rm") => Some("rm"),
                    ("pod", "rm" | "remove" | "prune") => Some("rm"),
                    _ => None,
                };
                if let Some(short) = short {
                    let mut words = prefixed(&["docker"], &args[..at]);
                    words.push(lit(short));
                    words.extend(args[at + 2..].iter().cloned());
                    out.push(form(words, SAME_CLI));
                }
            }
            // `docker create … && docker start c` is `docker run …`: the
            // container the rules judge is the one created.
            if let Some(at) = subcommand_at(args, DOCKER_GLOBALS) {
                let create = match (word_at(at), word_at(at + 1)) {
                    (Some("create"), _) => Some(at + 1),
                    (Some("container"), Some("create")) => Some(at + 2),
                    _ => None,
                };
                if let Some(rest) = create {
                    let mut words = prefixed(&["docker"], &args[..at]);
                    words.push(lit("run"));
                    words.extend(args[rest..].iter().cloned());
                    out.push(form(words, RUNS_CONTAINER));
                }
            }
        }
        "docker-compose" if word_at(0) == Some("rm") => {
            out.push(form(prefixed(&["docker", "rm"], &args[1..]), SAME_CLI));
        }
        // s3cmd's and rclone's deletions.
        "s3cmd" | "rclone" => {
            let p = parse(args, &["-c", "--config", "--include", "--exclude"]);
            if p.operands.first().is_some_and(|w| {
                word_is(w, &["del", "rm", "delete", "purge", "deletefile", "rmdirs"])
            }) {
                out.push(form(
                    prefixed(&["aws", "s3", "rm"], &p.operands[1..]),
                    DELETES_OBJECTS,
                ));
            }
        }
        "helm" | "helm2" | "helm3" => {
            if let Some(at) = subcommand_at(args, HELM_GLOBALS)
                && matches!(word_at(at), Some("delete" | "del" | "un"))
            {
                let mut words = prefixed(&["helm"], &args[..at]);
                words.push(lit("uninstall"));
                words.extend(args[at + 1..].iter().cloned());
                out.push(form(words, SAME_CLI));
            }
        }
        "aws" => out.extend(aws(args)),
        "gh" => {
            out.extend(gh_api(args));
            // `gh repo create x --source=. --push` pushes the local
            // repository's commits.
            if word_at(0) == Some("repo")
                && word_at(1) == Some("create")
                && args.iter().any(|w| word_is(w, &["--push"]))
            {
                out.push(form(prefixed(&["git", "push"], &[]), PUSHES));
            }
        }
        // `mvn exec:exec -Dexec.executable=rm -Dexec.args=x` runs `rm x`.
        "mvn" | "mvnw" | "mvnd" => {
            let property = |name: &str| {
                args.iter().find_map(|w| {
                    w.literal
                        .as_deref()?
                        .strip_prefix("-D")?
                        .strip_prefix(name)?
                        .strip_prefix('=')
                        .map(str::to_owned)
                })
            };
            if let Some(program) = property("exec.executable") {
                let mut words = vec![lit(&program)];
                let arguments = property("exec.args").unwrap_or_default();
                words.extend(arguments.split_whitespace().map(lit));
                out.push(form(words, SAME_PROGRAM));
            }
        }
        // rustup's `cargo +stable …` is the same cargo.
        "cargo" if word_at(0).is_some_and(|w| w.starts_with('+')) => {
            let words = prefixed(&["cargo"], &args[1..]);
            out.extend(forms_of("cargo", &words));
            out.push(form(words, SAME_PROGRAM));
        }
        "cargo" => {
            const WITH_VALUE: &[&str] = &["--color", "-Z", "--config", "-C", "--explain"];
            // `cargo --config 'alias.x="publish"' x`: an alias set as
            // `CARGO_ALIAS_X` would set it.
            for (k, w) in args.iter().enumerate() {
                let value = match w.literal.as_deref() {
                    Some("--config") => args.get(k + 1).and_then(|v| v.literal.as_deref()),
                    Some(l) => l.strip_prefix("--config="),
                    None => None,
                };
                if let Some((key, value)) = value.and_then(|v| v.split_once('='))
                    && let Some(alias) = key.trim().strip_prefix("alias.")
                {
                    let value = value.replace(['"', '\'', '[', ']', ','], " ");
                    let name = format!("CARGO_ALIAS_{}", alias.trim().to_uppercase());
                    out.extend(assignment(&name, &value));
                }
            }
            if let Some(at) = subcommand_at(args, WITH_VALUE) {
                let rest = &args[at + 1..];
                let next = rest.first().and_then(|w| w.literal.as_deref());
                let no_publish = rest.iter().any(|w| word_is(w, &["--no-publish"]));
                let publishes = match word_at(at) {
                    Some("release" | "smart-release") => !no_publish,
                    Some("workspaces" | "ws") => next == Some("publish"),
                    _ => false,
                };
                if publishes {
                    let mut words = prefixed(&["cargo"], &args[..at]);
                    words.push(lit("publish"));
                    out.push(form(words, CARGO_PUBLISHES));
                }
            }
        }
        "npm" => {
            // `npm ci`, `npm it`, `npm update` install as `npm install`.
            // After npm's global options and their values (`--prefix web
            // ci`, `--loglevel silly ci`).
            let mut at = 0;
            while let Some(l) = word_at(at)
                && l.starts_with('-')
            {
                let name = l.split_once('=').map_or(l, |(n, _)| n);
                let takes = !l.contains('=') && crate::spelling::npm_option_takes_value(name);
                at += if takes { 2 } else { 1 };
            }
            // `npm init vite`, `npm create vite@latest x`: installs the
            // initializer's package and runs it (`npm init -y` does not).
            let installs = word_at(at).is_some_and(|sub| match crate::spelling::npm_command(sub) {
                Some("ci" | "install-test" | "install-ci-test" | "update" | "rebuild") => true,
                Some("init") => args[at + 1..]
                    .iter()
                    .any(|w| w.literal.as_deref().is_none_or(|l| !l.starts_with('-'))),
                _ => false,
            });
            if installs {
                let mut words = prefixed(&["npm"], &args[..at]);
                words.push(lit("install"));
                words.extend(args[at + 1..].iter().cloned());
                out.push(form(words, INSTALLS));
            }
        }
        "pnpm" | "yarn" | "bun" | "lerna" => {
            // `pnpm publish`, `yarn --cwd x publish`, `yarn npm publish`
            // (Berry); not a script or package of that name (`pnpm run
            // publish`, `bun x publish`).
            let mut with_value = vec![
                "--dir",
                "-C",
                "--cwd",
                "--filter",
                "-F",
                "--workspace",
                "--reporter",
                "--loglevel",
                "--workspace-concurrency",
                "--color",
            ];
            if base == "bun" {
                // `bun -c bunfig.toml add x`.
                with_value.extend(["-c", "--config"]);
            }
            let mut first = subcommand_at(args, &with_value);
            // `yarn workspace web add x`, `yarn global add x`, `yarn npm
            // publish`.
            while let Some(at) = first
                && matches!(word_at(at), Some("workspace" | "global" | "npm"))
            {
                let skip = usize::from(word_at(at) == Some("workspace"));
                let from = (at + 1 + skip).min(args.len());
                first = subcommand_at(&args[from..], &with_value).map(|i| from + i);
            }
            let mut sub = first.and_then(word_at);
            if sub == Some("publish")
                && let Some(at) = first
            {
                out.push(form(
                    prefixed(&["npm", "publish"], &args[at + 1..]),
                    PUBLISHES,
                ));
            }
            // `pnpm -r exec npm publish`: the command it runs.
            if sub == Some("exec")
                && base == "pnpm"
                && let Some(at) = first
                && let Some(program) = word_at(at + 1)
            {
                let words = args[at + 1..].to_vec();
                out.extend(forms_of(
                    program.rsplit('/').next().unwrap_or(program),
                    &words,
                ));
                out.push(form(words, SAME_PROGRAM));
            }
            // `bun pm trust x` runs the packages' install scripts; `yarn
            // workspaces focus` installs a workspace's dependencies.
            if let Some(at) = first
                && matches!(
                    (sub, word_at(at + 1)),
                    (Some("pm"), Some("trust")) | (Some("workspaces"), Some("focus"))
                )
            {
                first = Some(at + 1);
                sub = Some("install");
            }
            // `yarn`, `yarn add x`, `pnpm i`, `bun install`; `pnpm it` and
            // `rebuild` (install and run install scripts), `create` and
            // `dlx` (install a package and run it, as `npm create`).
            let installs = match sub {
                None => {
                    base == "yarn"
                        && !args
                            .iter()
                            .any(|w| word_is(w, &["--version", "-v", "--help", "-h"]))
                }
                Some(s) => matches!(
                    s,
                    "add"
                        | "a"
                        | "install"
                        | "i"
                        | "up"
                        | "upgrade"
                        | "update"
                        | "upgrade-interactive"
                        | "it"
                        | "install-test"
                        | "rebuild"
                        | "rb"
                        | "create"
                        | "dlx"
                ),
            };
            if installs && base != "lerna" {
                let rest = first.map_or(&args[..0], |at| &args[at + 1..]);
                out.push(form(prefixed(&["npm", "install"], rest), INSTALLS));
            }
        }
        "uv" | "pipx" | "poetry" | "pipenv" | "pdm" | "rye" | "hatch" => {
            let with_value = [
                "--directory",
                "--project",
                "-C",
                "--python",
                "-p",
                "--color",
                "--cache-dir",
                "--config-file",
                "--python-preference",
            ];
            let mut sub = subcommand_at(args, &with_value);
            // `uv pip install`, `uv pip sync`, `uv tool install`.
            if let Some(at) = sub
                && base == "uv"
                && matches!(word_at(at), Some("pip" | "tool"))
            {
                sub = subcommand_at(&args[at + 1..], &with_value).map(|i| at + 1 + i);
            }
            let install = sub.and_then(word_at).is_some_and(|s| {
                matches!(
                    s,
                    "add"
                        | "install"
                        | "inject"
                        | "sync"
                        | "update"
                        | "upgrade"
                        | "reinstall"
                        | "upgrade-all"
                        | "runpip"
                )
            });
            if install && let Some(at) = sub {
                out.push(form(
                    prefixed(&["pip", "install"], &args[at + 1..]),
                    PIP_INSTALLS,
                ));
            }
        }
        "easy_install" | "pip-sync" => {
            out.push(form(prefixed(&["pip", "install"], args), PIP_INSTALLS))
        }
        _ if base.starts_with("python") || base.starts_with("pypy") => {
            // `python3 -m pip install x` is `pip install x`; so are `-m
            // pip.__main__`, and pip's script or directory run by the
            // interpreter (`python3 v/bin/pip install x`).
            let module = python_module(args).or_else(|| {
                let at = args
                    .iter()
                    .position(|w| w.literal.as_deref().is_none_or(|l| !l.starts_with('-')))?;
                let script = args[at].literal.as_deref()?.trim_end_matches('/');
                Some((at, script.rsplit('/').next().unwrap_or(script)))
            });
            // `python3 -m uv pip install x`, `python3 -m pipx install x`: the
            // same programs.
            if let Some((at, module)) = module
                && let Some(tool) = ["uv", "pipx", "poetry", "pdm", "pipenv", "rye", "hatch"]
                    .into_iter()
                    .find(|t| module == *t || module.strip_suffix(".__main__") == Some(*t))
            {
                let words = prefixed(&[tool], &args[at + 1..]);
                out.extend(forms_of(tool, &words));
                out.push(form(words, SAME_PROGRAM));
            }
            if let Some((at, module)) = module
                && (matches!(module, "pip" | "pip3" | "pip.__main__")
                    || module
                        .strip_prefix("pip3.")
                        .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit())))
            {
                let words = prefixed(&["pip"], &args[at + 1..]);
                out.extend(forms_of("pip", &words));
                out.push(form(words, SAME_PROGRAM));
            }
        }
        "npm-cli.js" | "npx-cli.js" => {
            let name = if base == "npm-cli.js" { "npm" } else { "npx" };
            let words = prefixed(&[name], args);
            out.extend(forms_of(name, &words));
            out.push(form(words, SAME_PROGRAM));
        }
        "node" | "nodejs" => {
            // `node /usr/lib/node_modules/npm/bin/npm-cli.js publish`.
            if let Some((at, name)) = node_cli(args) {
                let mut words = vec![lit(name)];
                words.extend(args[at + 1..].iter().cloned());
                out.extend(forms_of(name, &words));
                out.push(form(words, SAME_PROGRAM));
            }
        }
        "corepack" => {
            if let Some(tool) = word_at(0)
                && matches!(tool, "npm" | "npx" | "pnpm" | "pnpx" | "yarn")
            {
                out.extend(forms_of(tool, args));
                out.push(form(args.to_vec(), SAME_PROGRAM));
            }
        }
        "kubectl" => {
            // `kubectl drain NODE` evicts (deletes) every pod on the node.
            const GLOBALS: &[&str] = &[
                "-n",
                "--namespace",
                "--context",
                "--kubeconfig",
                "--cluster",
                "--user",
                "-s",
                "--server",
                "--token",
                "--as",
                "--as-group",
                "--request-timeout",
                "-v",
                "--v",
            ];
            if let Some(at) =
                subcommand_at(args, GLOBALS).filter(|&at| word_is(&args[at], &["drain"]))
            {
                let mut words = prefixed(&["kubectl"], &args[..at]);
                words.extend([lit("delete"), lit("pods")]);
                words.extend(args[at + 1..].iter().cloned());
                out.push(form(words, DELETES));
            }
            // `kubectl taint nodes N k=v:NoExecute` evicts the node's pods
            // as drain does.
            if let Some(at) =
                subcommand_at(args, GLOBALS).filter(|&at| word_is(&args[at], &["taint"]))
                && args[at + 1..].iter().any(|w| {
                    w.literal
                        .as_deref()
                        .is_some_and(|l| l.ends_with(":NoExecute"))
                })
            {
                let mut words = prefixed(&["kubectl"], &args[..at]);
                words.extend([lit("delete"), lit("pods")]);
                words.extend(args[at + 1..].iter().cloned());
                out.push(form(words, DELETES));
            }
            // `kubectl replace --force` deletes and creates again; `apply
            // --prune` deletes what the files no longer hold.
            let sub_at = args.iter().position(|w| word_is(w, &["replace", "apply"]));
            let deletes = sub_at.is_some_and(|at| {
                let options: Vec<&str> = args[at + 1..]
                    .iter()
                    .filter_map(|w| w.literal.as_deref())
                    .filter(|l| l.starts_with("--"))
                    .collect();
                if word_is(&args[at], &["replace"]) {
                    has(&options, None, &["--force"])
                } else {
                    has(&options, None, &["--prune", "--force"])
                }
            });
            if deletes && let Some(sub_at) = sub_at {
                let mut words = prefixed(&["kubectl"], &args[..sub_at]);
                words.push(lit("delete"));
                words.extend(args[sub_at + 1..].iter().cloned());
                out.push(form(words, DELETES));
            }
        }
        "wget" | "wget2" | "http" | "https" | "xh" | "xhs" | "aria2c" | "curlie"
        | "lwp-request" | "GET" | "HEAD" | "POST" | "lynx" | "w3m" | "elinks" | "links"
        | "axel" | "lwp-download" | "curl.exe" | "wcurl"
            if !only_asks_about_itself(args) =>
        {
            let p = parse(args, &[]);
            // A text browser given a file shows the file.
            let browser = matches!(base, "lynx" | "w3m" | "elinks" | "links");
            let operands: Vec<WordVal> = p
                .operands
                .into_iter()
                .filter(|w| !browser || w.literal.as_deref().is_none_or(|l| l.contains("://")))
                .collect();
            if !browser || !operands.is_empty() {
                out.push(form(prefixed(&["curl"], &operands), FETCHES));
            }
        }
        "curl" => {
            if !only_asks_about_itself(args) {
                let p = parse(args, &[]);
                out.push(form(prefixed(&["wget"], &p.operands), FETCHES));
            }
            let socket = value_of(args, None, &["--unix-socket", "--abstract-unix-socket"]);
            if socket.as_deref().is_some_and(engine_socket) {
                out.push(form(vec![lit("docker")], CONTAINERS));
            }
        }
        // `nc -U /var/run/docker.sock`, `socat - UNIX-CONNECT:/run/podman/podman.sock`.
        "nc" | "ncat" | "netcat" | "socat"
            if args
                .iter()
                .any(|w| w.literal.as_deref().is_some_and(engine_socket)) =>
        {
            out.push(form(vec![lit("docker")], CONTAINERS));
        }
        _ => {}
    }
    out
}

/// Whether the words only ask a program about itself (`--version`, `-h`).
fn only_asks_about_itself(args: &[WordVal]) -> bool {
    !args.is_empty()
        && args
            .iter()
            .all(|w| word_is(w, &["--version", "-V", "--help", "-h"]))
}

/// `aws s3api delete-object`, `aws s3 rb --force`, `aws s3 sync --delete`,
/// `aws s3 mv s3://…` delete objects as `aws s3 rm` does.
fn aws(args: &[WordVal]) -> Vec<Form> {
    let Some(at) = subcommand_at(args, AWS_GLOBALS) else {
        return Vec::new();
    };
    let word = |i: usize| args.get(i).and_then(|w| w.literal.as_deref());
    let rest = &args[at + 1..];
    let sub_at = subcommand_at(rest, AWS_GLOBALS).map(|i| at + 1 + i);
    let sub = sub_at.and_then(word);
    let options: Vec<&str> = rest
        .iter()
        .filter_map(|w| w.literal.as_deref())
        .filter(|l| l.starts_with("--"))
        .collect();
    let deletes = match (word(at), sub) {
        (Some("s3api"), Some(s)) => {
            matches!(s, "delete-object" | "delete-objects" | "delete-bucket")
        }
        (Some("s3"), Some("rb")) => has(&options, None, &["--force"]),
        (Some("s3"), Some("sync")) => {
            has(&options, None, &["--delete"]) && !has(&options, None, &["--dryrun"])
        }
        // A move from the bucket deletes its objects; one into it does not.
        (Some("s3"), Some("mv")) => {
            let p = parse(
                &args[sub_at.unwrap_or(at) + 1..],
                &["--include", "--exclude"],
            );
            p.operands
                .first()
                .and_then(|w| w.literal.as_deref())
                .is_some_and(|l| l.starts_with("s3://"))
                && !has(&options, None, &["--dryrun"])
        }
        _ => false,
    };
    match (deletes, sub_at) {
        (true, Some(sub_at)) => {
            let mut words = prefixed(&["aws"], &args[..at]);
            words.extend([lit("s3"), lit("rm")]);
            words.extend(args[sub_at + 1..].iter().cloned());
            vec![form(words, DELETES_OBJECTS)]
        }
        _ => Vec::new(),
    }
}

/// `gh api -X PUT repos/O/R/pulls/N/merge` merges as `gh pr merge N` does;
/// `gh api -X DELETE repos/O/R` deletes as `gh repo delete O/R` does.
fn gh_api(args: &[WordVal]) -> Vec<Form> {
    if !args.first().is_some_and(|w| word_is(w, &["api"])) {
        return Vec::new();
    }
    let rest = &args[1..];
    let method = value_of(rest, Some('X'), &["--method"])
        .map(|m| m.trim_start_matches('=').to_ascii_uppercase());
    let p = parse(
        rest,
        &[
            "-X",
            "--method",
            "-f",
            "-F",
            "--field",
            "--raw-field",
            "-H",
            "--header",
            "--input",
            "-q",
            "--jq",
            "-t",
            "--template",
            "--hostname",
            "--cache",
        ],
    );
    let Some(endpoint) = p.operands.first().and_then(|w| w.literal.as_deref()) else {
        return Vec::new();
    };
    // `gh api graphql -f query='mutation{mergePullRequest(…)}'`: the
    // mutations that merge a pull request or delete a repository.
    if endpoint.trim_start_matches('/') == "graphql" {
        let query: String = rest
            .iter()
            .map(|w| w.literal.as_deref().unwrap_or(&w.raw))
            .collect::<Vec<_>>()
            .join(" ");
        let mut out = Vec::new();
        if query.contains("mergePullRequest") || query.contains("enablePullRequestAutoMerge") {
            out.push(form(vec![lit("gh"), lit("pr"), lit("merge")], MERGES_PR));
        }
        if query.contains("deleteRepository") {
            out.push(form(
                vec![lit("gh"), lit("repo"), lit("delete")],
                DELETES_REPO,
            ));
        }
        return out;
    }
    // `https://api.github.com/repos/…` is used as it is; a query is not
    // part of the route.
    let endpoint = match endpoint.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => endpoint,
    };
    let endpoint = endpoint.split(['?', '#']).next().unwrap_or(endpoint);
    let parts: Vec<&str> = endpoint
        .trim_start_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    match (method.as_deref(), parts.as_slice()) {
        (Some("PUT"), ["repos", owner, repo, "pulls", n, "merge"]) => vec![form(
            vec![
                lit("gh"),
                lit("pr"),
                lit("merge"),
                lit(n),
                lit("-R"),
                lit(&format!("{owner}/{repo}")),
            ],
            MERGES_PR,
        )],
        (Some("DELETE"), ["repos", owner, repo]) => vec![form(
            vec![
                lit("gh"),
                lit("repo"),
                lit("delete"),
                lit(&format!("{owner}/{repo}")),
            ],
            DELETES_REPO,
        )],
        _ => Vec::new(),
    }
}

/// The host of an scp operand (`host:path`, `user@host:path`,
/// `[host]:path`, `scp://host/path`), none for a local path.
fn scp_host(word: &str) -> Option<&str> {
    if let Some(rest) = word.strip_prefix("scp://") {
        let authority = rest.split('/').next().unwrap_or(rest);
        return Some(authority.rsplit('@').next().unwrap_or(authority));
    }
    if word.starts_with('/') || word.starts_with("./") {
        return None;
    }
    let (before, _) = word.split_once(':')?;
    if before.contains('/') || before.is_empty() {
        return None;
    }
    let host = before.rsplit('@').next().unwrap_or(before);
    Some(host.trim_start_matches('[').trim_end_matches(']'))
}

/// The module `python -m MODULE` runs, and its index in `args`.
fn python_module(args: &[WordVal]) -> Option<(usize, &str)> {
    let mut i = 0;
    while let Some(l) = args.get(i).and_then(|w| w.literal.as_deref()) {
        if l == "-m" {
            return Some((i + 1, args.get(i + 1)?.literal.as_deref()?));
        }
        if !l.starts_with('-') || l == "-" || l == "-c" {
            return None;
        }
        if let Some(module) = l.strip_prefix('-').and_then(|c| {
            let at = c.find('m')?;
            c[..at]
                .chars()
                .all(|f| "bBdEhiIOPqsSuvx".contains(f))
                .then(|| &c[at + 1..])
        }) && !l.starts_with("--")
        {
            return if module.is_empty() {
                Some((i + 1, args.get(i + 1)?.literal.as_deref()?))
            } else {
                Some((i, module))
            };
        }
        i += if matches!(l, "-W" | "-X" | "--check-hash-based-pycs") {
            2
        } else {
            1
        };
    }
    None
}

/// The forms of `git SUB ARGS` (git's global options removed); `exists`
/// tells whether a word names a file where git runs (`git checkout a.txt`
/// discards a.txt's changes, `git checkout main` switches branches).
pub(super) fn git(sub: &str, args: &[WordVal], exists: &dyn Fn(&str) -> bool) -> Vec<Form> {
    let mut out = git_of(sub, args, exists);
    if args.iter().any(|w| w.literal.is_none()) {
        let more = probed(args, &out, &|args| git_of(sub, args, exists));
        out.extend(more);
    }
    out
}

fn git_of(sub: &str, args: &[WordVal], exists: &dyn Fn(&str) -> bool) -> Vec<Form> {
    let mut out = Vec::new();
    let p = || {
        parse(
            args,
            &[
                "-b",
                "-B",
                "-c",
                "-C",
                "-s",
                "--source",
                "--pathspec-from-file",
                "--conflict",
                "-e",
                "--exclude",
                "--chmod",
                "--receive-pack",
                "--exec",
                "--prefix",
                "-P",
                "-m",
                "--message",
                "--index-output",
                "-F",
                "--file",
                "-S",
                "-X",
                "--strategy-option",
                "--strategy",
                "--onto",
            ],
        )
    };
    let reset = || form(prefixed(&["git", "reset", "--hard"], &[]), DISCARDS);
    match sub {
        "send-pack" => {
            // What the push amounts to, too (`git send-pack . :topic`).
            out.extend(git_of("push", args, exists));
            out.push(form(prefixed(&["git", "push"], args), PUSHES));
        }
        // git-svn's `dcommit`, git-p4's `submit`, git-lfs's `push` send
        // commits (or their objects) to another repository.
        "svn" | "p4" | "lfs"
            if matches!(
                first_operand(args).as_deref(),
                Some("dcommit" | "submit" | "push" | "set-tree")
            ) =>
        {
            out.push(form(prefixed(&["git", "push"], &[]), PUSHES));
        }
        "subtree" if first_operand(args).as_deref() == Some("push") => {
            let p = p();
            out.push(form(prefixed(&["git", "push"], &p.operands[1..]), PUSHES));
        }
        "push" => {
            // `git push . :topic`, `git push ../repo --delete topic`: a
            // branch of a repository on this machine deleted.
            let p = p();
            // A repository by its path (`.`, `./.`, `.git/`, `../repo`,
            // `/abs/repo`, a `file://` URL), not a remote's name or URL
            // (a remote elsewhere may be on this machine too: see
            // git_config).
            let here = p
                .operands
                .first()
                .is_some_and(|w| w.literal.as_deref().is_some_and(local_repository));
            if here {
                let delete = has(&p.options, Some('d'), &["--delete"]);
                // `--prune` and `--mirror` delete the branches the
                // refspecs do not name.
                if has(&p.options, None, &["--prune", "--mirror"]) {
                    out.push(form(
                        vec![lit("git"), lit("branch"), lit("-D")],
                        DELETES_BRANCH,
                    ));
                }
                for w in &p.operands[1..] {
                    let refspec = w.literal.as_deref().map(|l| l.trim_start_matches('+'));
                    let branch = match refspec {
                        Some(l) if l.starts_with(':') => Some(&l[1..]),
                        Some(l) if delete => Some(l),
                        _ => None,
                    };
                    if let Some(b) = branch {
                        let b = b.strip_prefix("refs/heads/").unwrap_or(b);
                        out.push(form(
                            vec![lit("git"), lit("branch"), lit("-D"), lit(b)],
                            DELETES_BRANCH,
                        ));
                    }
                }
            }
        }
        "update-ref" => {
            let p = p();
            let named = p.operands.first();
            // The null id as the new value deletes the ref.
            let null = p.operands.get(1).is_some_and(|w| {
                w.literal
                    .as_deref()
                    .is_some_and(|l| l.len() >= 40 && l.bytes().all(|b| b == b'0'))
            });
            if (has(&p.options, Some('d'), &[]) || null)
                && let Some(b) = named
                    .and_then(|w| w.literal.as_deref())
                    .and_then(|r| r.strip_prefix("refs/heads/"))
            {
                out.push(form(
                    vec![lit("git"), lit("branch"), lit("-D"), lit(b)],
                    DELETES_BRANCH,
                ));
            } else if has(&p.options, None, &["--stdin"])
                || (has(&p.options, Some('d'), &[]) && named.is_some_and(|w| w.literal.is_none()))
            {
                // `--stdin` reads `delete refs/heads/B` lines; a ref named
                // at run time may be a branch: what it deletes is known
                // only then, so a deny or ask rule on `git branch -D` may
                // match it.
                out.push(form(
                    vec![
                        lit("git"),
                        lit("branch"),
                        unknown_word("(refs read at run time)"),
                    ],
                    DELETES_BRANCH,
                ));
            }
        }
        "rm" => {
            let p = p();
            if !has(&p.options, Some('n'), &["--cached", "--dry-run"]) {
                let mut words = vec![lit("rm")];
                if has(&p.options, Some('r'), &[]) {
                    words.push(lit("-r"));
                }
                if has(&p.options, Some('f'), &["--force"]) {
                    words.push(lit("-f"));
                }
                words.extend(p.operands);
                out.push(form(words, REMOVES));
            }
        }
        "mv" => {
            let p = p();
            if !has(&p.options, Some('n'), &["--dry-run"]) {
                out.push(form(prefixed(&["mv"], &p.operands), MOVES));
            }
        }
        "clean" => {
            let p = p();
            if !has(&p.options, Some('n'), &["--dry-run"]) {
                let mut words = vec![lit("rm"), lit("-rf")];
                if p.operands.is_empty() {
                    words.push(lit("."));
                }
                words.extend(p.operands);
                out.push(form(words, REMOVES));
            }
        }
        "checkout" => {
            let p = p();
            let dashes = args.iter().any(|w| word_is(w, &["--"]));
            let whole_tree = p.operands.iter().any(|w| word_is(w, &[".", ":/", "*"]));
            // A file named (`git checkout a.txt`, `git checkout HEAD
            // a.txt`), unless a branch is being made.
            let makes_branch =
                has(&p.options, Some('b'), &["--orphan"]) || has(&p.options, Some('B'), &[]);
            let names_a_file = !makes_branch
                && p.operands
                    .iter()
                    .any(|w| w.literal.as_deref().is_some_and(exists) || w.glob);
            // A word computed at run time may be a branch or a file
            // (`git checkout "$BRANCH"`): a rule on `git reset --hard` might
            // mean it, so it asks.
            let may_name_a_file =
                !makes_branch && p.operands.iter().any(|w| w.literal.is_none() && !w.glob);
            // `-p` discards the hunks the answers pick.
            let patch = has(&p.options, Some('p'), &["--patch"]);
            if has(&p.options, Some('f'), &["--force"])
                || dashes
                || whole_tree
                || names_a_file
                || patch
            {
                out.push(reset());
            } else if may_name_a_file {
                out.push(form(
                    vec![
                        lit("git"),
                        lit("reset"),
                        unknown_word("(a branch or a file)"),
                    ],
                    DISCARDS,
                ));
            }
        }
        "switch" => {
            let p = p();
            if has(&p.options, Some('f'), &["--force", "--discard-changes"]) {
                out.push(reset());
            }
            out.push(form(prefixed(&["git", "checkout"], args), SPLIT));
        }
        "restore" => {
            let p = p();
            let staged = has(&p.options, Some('S'), &["--staged"]);
            let worktree = has(&p.options, Some('W'), &["--worktree"]);
            let dry = has(&p.options, None, &["--dry-run"]);
            if (worktree || !staged) && !dry {
                out.push(reset());
                out.push(form(prefixed(&["git", "checkout"], args), SPLIT));
            }
        }
        "read-tree" => {
            let p = p();
            let updates = has(&p.options, Some('u'), &[]);
            let resets = has(&p.options, Some('m'), &["--reset"]);
            if updates && resets {
                out.push(reset());
            }
        }
        // `git stash clear`: the work every stash entry kept is gone, as
        // `git reset --hard` loses the work tree's. `git stash drop` loses
        // one entry, often one already applied (after a `stash pop` that
        // stopped on a conflict): a rule on `git reset --hard` might mean
        // it, so it asks (the form's last word is unknown here).
        "stash" => match first_operand(args).as_deref() {
            Some("clear") => out.push(form(
                prefixed(&["git", "reset", "--hard"], &[]),
                DISCARDS_STASH,
            )),
            Some("drop") => out.push(form(
                vec![
                    lit("git"),
                    lit("reset"),
                    unknown_word("(dropped-stash-entry)"),
                ],
                DISCARDS_STASH,
            )),
            _ => {}
        },
        // `git reset --merge` drops what the index holds, as `--hard`
        // does (`--keep` keeps the local changes or stops).
        "reset" => {
            let p = p();
            if has(&p.options, None, &["--merge"]) {
                out.push(reset());
            }
        }
        // `git diff | git apply -R`: the work in the patch reversed.
        "apply" => {
            let p = p();
            if has(&p.options, Some('R'), &["--reverse"]) {
                out.push(form(
                    vec![lit("git"), lit("reset"), unknown_word("(a patch reversed)")],
                    REVERSES,
                ));
            }
        }
        // `git worktree remove --force WT` removes a work tree with its
        // uncommitted and untracked files; `git submodule update --force`
        // discards the submodules' work.
        "worktree" if first_operand(args).as_deref() == Some("remove") => {
            let p = p();
            if has(&p.options, Some('f'), &["--force"]) {
                out.push(reset());
                let trees = p.operands.get(1..).unwrap_or(&[]);
                out.push(form(prefixed(&["rm", "-rf"], trees), REMOVES));
            }
        }
        "submodule" if first_operand(args).as_deref() == Some("update") => {
            let p = p();
            if has(&p.options, Some('f'), &["--force"]) {
                out.push(reset());
            }
        }
        "checkout-index" => {
            let p = p();
            if has(&p.options, Some('f'), &["--force"]) {
                out.push(reset());
            }
        }
        "update-index" | "add" => {
            if let Some(mode) = value_of(args, None, &["--chmod"]) {
                let p = p();
                out.push(form(modes("chmod", &mode, &p.operands), MODES));
            }
        }
        "cherry-pick" | "revert" | "merge" | "am" | "commit-tree" => {
            let p = p();
            // Exact names: `--ff` is not `--ff-only` (it commits when it
            // cannot fast-forward).
            let stops = p.options.iter().any(|o| {
                matches!(
                    *o,
                    "--abort"
                        | "--quit"
                        | "--skip"
                        | "--ff-only"
                        | "--show-current-patch"
                        | "--no-commit"
                        | "--squash"
                )
            }) || (matches!(sub, "cherry-pick" | "revert")
                && has(&p.options, Some('n'), &[]));
            if !stops {
                out.push(form(prefixed(&["git", "commit"], &[]), COMMITS));
            }
        }
        "pull" => {
            let p = p();
            // `-r`, `-qr`, `--rebase`, `--reb`, `--rebase=merges`; not
            // `--rebase=false`.
            let rebases = has(&p.options, Some('r'), &["--rebase"]);
            if rebases {
                out.push(form(prefixed(&["git", "rebase"], &[]), REBASES));
            }
        }
        _ => {}
    }
    out
}

/// `PROGRAM VALUE TARGETS…`.
fn modes(program: &str, value: &str, targets: &[WordVal]) -> Vec<WordVal> {
    let mut words = vec![lit(program), lit(value)];
    words.extend(targets.iter().cloned());
    words
}

/// What `install` creates: its destination (the last operand, or each
/// operand with `-d`; the sources inside `-t DIR`).
fn install_targets(args: &[WordVal], p: &Parsed<'_>) -> Vec<WordVal> {
    if has(&p.options, Some('d'), &["--directory"]) {
        return p.operands.clone();
    }
    if let Some(dir) = value_of(args, Some('t'), &["--target-directory"]) {
        return vec![lit(&dir)];
    }
    p.operands.last().cloned().into_iter().collect()
}

/// Whether a push's destination names a repository by its path on this
/// machine (`.`, `./.`, `.git/`, `../repo`, `/abs/repo`, `~/r`, `file://…`),
/// not a remote by its name or a URL.
fn local_repository(dest: &str) -> bool {
    dest.starts_with("file://")
        || dest.starts_with('/')
        || dest.starts_with("~/")
        || dest == "."
        || dest == ".."
        || dest.starts_with("./")
        || dest.starts_with("../")
        || matches!(dest.trim_end_matches('/'), ".git")
}

/// The host of a URL whose transport is ssh (`ssh://u@h:22/x`,
/// `qemu+ssh://h/system`, `git+ssh://h/r`).
fn ssh_url_host(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !scheme.split('+').any(|p| p == "ssh") {
        return None;
    }
    let authority = rest.split(['/', '?']).next().unwrap_or(rest);
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| h.trim_start_matches('['))?
    } else {
        host.split(':').next().unwrap_or(host)
    };
    (!host.is_empty()).then(|| host.to_string())
}

/// Whether a path names a disk or a partition (`/dev/sda1`, `/dev/nvme0n1`,
/// `/dev/loop0`, `/dev/mmcblk0`, `/dev/mapper/x`, `/dev/disk/by-id/…`).
fn block_device(path: &str) -> bool {
    let Some(name) = path.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "loop", "mmcblk", "md", "dm-", "mapper/", "disk/", "nbd",
        "zram", "sr", "mtdblock", "ram", "rbd", "bcache",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// `dd of=DEVICE` for each operand of `words` that is a block device.
fn device_writes(words: &[WordVal]) -> Vec<Form> {
    words
        .iter()
        .filter_map(|w| w.literal.as_deref())
        .filter(|l| block_device(l))
        .map(|dev| form(vec![lit("dd"), lit(&format!("of={dev}"))], WRITES_DEVICE))
        .collect()
}

/// `truncate -s 0 DEST` when `/dev/null` is copied over DEST.
fn emptied(source: Option<&WordVal>, dest: Option<&WordVal>) -> Option<Form> {
    let dest = dest?;
    (source.is_some_and(|w| word_is(w, &["/dev/null"])) && !word_is(dest, &["/dev/null"])).then(
        || {
            form(
                vec![lit("truncate"), lit("-s"), lit("0"), dest.clone()],
                EMPTIES,
            )
        },
    )
}

/// The first word not an option (a subcommand), as written.
fn first_operand(args: &[WordVal]) -> Option<String> {
    args.iter()
        .find_map(|w| w.literal.as_deref().filter(|l| !l.starts_with('-')))
        .map(str::to_string)
}

/// The npm-family command a node script is: `…/npm/bin/npm-cli.js`,
/// `…/npm/index.js`, after node's own options (`-r MODULE`).
fn node_cli(args: &[WordVal]) -> Option<(usize, &'static str)> {
    const WITH_VALUE: &[&str] = &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "-C",
        "--conditions",
        "--stack-size",
        "--title",
        "--env-file",
        "--input-type",
    ];
    let mut at = 0;
    loop {
        let l = args.get(at)?.literal.as_deref()?;
        if l == "-e" || l == "-p" || l == "--eval" || l == "--print" {
            return None;
        }
        if !l.starts_with('-') {
            break;
        }
        at += if WITH_VALUE.contains(&l) { 2 } else { 1 };
    }
    let script = args[at].literal.as_deref()?;
    let file = script.rsplit('/').next().unwrap_or(script);
    let in_dir = |dir: &str| script.contains(&format!("/{dir}/"));
    let name = match file {
        "npm-cli.js" | "npm" => "npm",
        "npx-cli.js" | "npx" => "npx",
        "pnpm.cjs" | "pnpm.js" | "pnpm" => "pnpm",
        "yarn.js" | "yarn.cjs" | "yarn" => "yarn",
        "index.js" | "cli.js" if in_dir("npm") => "npm",
        _ => return None,
    };
    Some((at, name))
}

/// Whether a path or address names a container engine's API socket.
fn engine_socket(s: &str) -> bool {
    ["docker.sock", "podman.sock", "containerd.sock"]
        .iter()
        .any(|name| s.contains(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<WordVal> {
        s.split(' ').map(WordVal::literal).collect()
    }

    fn texts(base: &str, s: &str) -> Vec<String> {
        let argv = words(s);
        forms(base, &argv)
            .into_iter()
            .map(|f| {
                f.words
                    .iter()
                    .map(|w| w.raw.clone())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    fn git_texts(s: &str) -> Vec<String> {
        let argv = words(s);
        git(argv[0].raw.as_str(), &argv[1..], &|w: &str| {
            w.ends_with(".txt")
        })
        .into_iter()
        .map(|f| {
            f.words
                .iter()
                .map(|w| w.raw.clone())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
    }

    #[test]
    fn commands_read_as_what_they_amount_to() {
        assert_eq!(texts("unlink", "unlink a.txt"), ["rm a.txt"]);
        assert_eq!(texts("shred", "shred -zu -n 3 b"), ["rm b"]);
        assert_eq!(texts("shred", "shred --remove=wipe b"), ["rm b"]);
        assert!(texts("shred", "shred -n 3 b").is_empty());
        assert_eq!(texts("doas", "doas -u bob ls"), ["sudo -u bob ls"]);
        assert_eq!(texts("su", "su -c ls"), ["sudo su -c ls"]);
        assert!(texts("setpriv", "setpriv --no-new-privs ls").is_empty());
        assert_eq!(texts("install", "install -m 4755 a b"), ["chmod 4755 b"]);
        assert_eq!(
            texts("install", "install -d -m0777 -o root d e"),
            ["chmod 0777 d e", "chown root d e"]
        );
        assert_eq!(texts("mkdir", "mkdir -p -m 777 d"), ["chmod 777 d"]);
        assert!(texts("mkdir", "mkdir -p d").is_empty());
        assert_eq!(texts("rsync", "rsync --chmod=777 a b"), ["chmod 777 b"]);
        assert_eq!(
            texts(
                "node",
                "node /usr/lib/node_modules/npm/bin/npm-cli.js publish"
            ),
            ["npm publish"]
        );
        assert_eq!(
            texts("node", "node /x/pnpm/bin/pnpm.cjs publish --tag x"),
            ["npm publish --tag x", "pnpm publish --tag x"]
        );
        assert_eq!(texts("yarn", "yarn npm publish"), ["npm publish"]);
        assert_eq!(texts("yarn", "yarn install"), ["npm install"]);
        assert!(texts("yarn", "yarn run build").is_empty());
        assert!(texts("mkdir", "mkdir tmp images src/main/java").is_empty());
        assert!(texts("install", "install README.md doc/").is_empty());
        assert_eq!(
            texts("install", "install -m 755 a.txt /usr/local/bin/tool"),
            ["chmod 755 /usr/local/bin/tool"]
        );
        assert_eq!(texts("install", "install --mo=755 a b"), ["chmod 755 b"]);
        assert_eq!(texts("shred", "shred --rem b"), ["rm b"]);
        assert!(texts("kubectl", "kubectl replace --force=false -f p").is_empty());
        assert_eq!(
            texts("python3", "python3 -Im pip -q install x"),
            ["pip -q install x"]
        );
        assert_eq!(
            texts("docker", "docker -c default container rm c1"),
            ["docker -c default rm c1"]
        );
        assert_eq!(
            texts("helm", "helm -n prod del r"),
            ["helm -n prod uninstall r"]
        );
        assert_eq!(
            texts("aws", "aws --profile p s3api delete-object --bucket b"),
            ["aws --profile p s3 rm --bucket b"]
        );
        assert_eq!(
            texts("gh", "gh api -X PUT repos/o/r/pulls/1/merge"),
            ["gh pr merge 1 -R o/r"]
        );
        assert_eq!(texts("scp", "scp -P 22 a.txt u@[h]:/tmp"), ["ssh h"]);
        assert_eq!(texts("chgrp", "chgrp -R root ."), ["chown -R :root ."]);
        assert_eq!(
            texts("kubectl", "kubectl replace --force -f pod.yaml"),
            ["kubectl delete --force -f pod.yaml"]
        );
        assert!(texts("kubectl", "kubectl replace -f pod.yaml").is_empty());
        assert_eq!(
            texts("wget", "wget -qO- https://example.com"),
            ["curl https://example.com"]
        );
        assert_eq!(texts("oc", "oc delete pod x"), ["kubectl delete pod x"]);
    }

    #[test]
    fn git_commands_read_as_what_they_amount_to() {
        assert_eq!(
            git_texts("send-pack --force ../r.git master"),
            ["git push --force ../r.git master"]
        );
        assert_eq!(git_texts("rm -rf ."), ["rm -r -f ."]);
        assert!(git_texts("rm --cached a").is_empty());
        assert_eq!(git_texts("clean -fdx"), ["rm -rf ."]);
        assert!(git_texts("clean -n").is_empty());
        assert_eq!(
            git_texts("checkout -f -B master HEAD~1"),
            ["git reset --hard"]
        );
        assert_eq!(git_texts("checkout -- ."), ["git reset --hard"]);
        assert!(git_texts("checkout main").is_empty());
        assert_eq!(git_texts("checkout HEAD a.txt"), ["git reset --hard"]);
        assert!(git_texts("checkout -b topic").is_empty());
        assert_eq!(
            git_texts("restore -SW --source=HEAD .")[0],
            "git reset --hard"
        );
        assert_eq!(git_texts("restore a.txt")[0], "git reset --hard");
        assert_eq!(git_texts("restore --wor -S .")[0], "git reset --hard");
        assert!(git_texts("restore --staged a.txt").is_empty());
        assert_eq!(git_texts("read-tree -u --reset HEAD"), ["git reset --hard"]);
        assert!(git_texts("read-tree HEAD").is_empty());
        assert_eq!(git_texts("switch --discard main")[0], "git reset --hard");
        assert_eq!(
            git_texts("update-index --chmod=+x a.txt"),
            ["chmod +x a.txt"]
        );
    }
}
