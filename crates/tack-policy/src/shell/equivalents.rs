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
const PUBLISHES: &str = "publishes a package to a registry, as `npm publish` does";
const DELETES: &str = "deletes the resources it names, as `kubectl delete` does";
const FETCHES: &str = "fetches URLs, as `curl` and `wget` do";
const SAME_CLI: &str = "is another build of the same command-line program";
const SAME_PROGRAM: &str = "runs the same program";
const CONTAINERS: &str = "talks to the container engine's socket, as `docker` does";

fn lit(s: &str) -> WordVal {
    WordVal::literal(s)
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

/// The value of an option: `--mode=755`, `--mode 755`, `-m 755`, `-m755`.
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
        for name in long {
            if let Some(v) = l.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some(v.to_string());
            }
            if l == *name {
                return args.get(i).and_then(|v| v.literal.clone());
            }
        }
        if let Some(c) = short
            && !l.starts_with("--")
            && let Some(pos) = l.get(1..).and_then(|s| s.find(c))
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

/// Whether `options` hold the short letter (in a cluster) or a long name.
fn has(options: &[&str], short: Option<char>, long: &[&str]) -> bool {
    options.iter().any(|o| {
        if o.starts_with("--") {
            let name = o.split_once('=').map_or(*o, |(n, _)| n);
            long.contains(&name)
        } else {
            short.is_some_and(|c| o.len() > 1 && o[1..].contains(c))
        }
    })
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

/// The forms of a simple command (wrappers removed) other than git's (see
/// [`git`]), by its program's base name.
pub(super) fn forms(base: &str, argv: &[WordVal]) -> Vec<Form> {
    let args = &argv[1..];
    let mut out = Vec::new();
    match base {
        "unlink" | "srm" | "wipe" | "trash" | "trash-put" => {
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
        }
        "gio"
            if args
                .first()
                .is_some_and(|w| word_is(w, &["remove", "trash", "rm"])) =>
        {
            let p = parse(&args[1..], &[]);
            out.push(form(prefixed(&["rm"], &p.operands), REMOVES));
        }
        "doas" | "pkexec" | "run0" => out.push(form(prefixed(&["sudo"], args), PRIVILEGED)),
        "su" | "runuser" | "sg" => out.push(form(prefixed(&["sudo"], argv), PRIVILEGED)),
        "setpriv"
            if args.iter().any(|w| {
                w.literal.as_deref().is_some_and(|l| {
                    [
                        "--reuid",
                        "--regid",
                        "--ruid",
                        "--rgid",
                        "--euid",
                        "--egid",
                        "--init-groups",
                    ]
                    .iter()
                    .any(|o| l.starts_with(o))
                })
            }) =>
        {
            out.push(form(prefixed(&["sudo"], argv), PRIVILEGED))
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
        "mkdir" => {
            if let Some(mode) = value_of(args, Some('m'), &["--mode"]) {
                let p = parse(args, &["-m", "--mode", "--context"]);
                out.push(form(modes("chmod", &mode, &p.operands), MODES));
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
        }
        "setfacl" => out.push(form(prefixed(&["chmod"], args), MODES)),
        "umask" => {
            let p = parse(args, &[]);
            if let Some(mode) = p.operands.first() {
                out.push(form(vec![lit("chmod"), mode.clone()], MODES));
            }
        }
        "hub" => out.push(form(prefixed(&["git"], args), SAME_CLI)),
        "oc" | "kubecolor" => out.push(form(prefixed(&["kubectl"], args), SAME_CLI)),
        "microk8s" | "k3s" if args.first().is_some_and(|w| word_is(w, &["kubectl"])) => {
            out.push(form(prefixed(&["kubectl"], &args[1..]), SAME_CLI));
        }
        "podman" | "nerdctl" | "finch" => out.push(form(prefixed(&["docker"], args), SAME_CLI)),
        "pnpm" | "yarn" | "bun" | "lerna" => {
            // `pnpm publish`, `yarn --cwd x publish`, `yarn npm publish`
            // (Berry); not a script or package of that name (`pnpm run
            // publish`, `bun x publish`).
            let runs_other = first_operand(args).is_some_and(|s| {
                matches!(
                    s.as_str(),
                    "run" | "exec" | "dlx" | "x" | "add" | "remove" | "create" | "init" | "why"
                )
            });
            let at = args.iter().position(|w| word_is(w, &["publish"]));
            if let Some(at) = at
                && !runs_other
            {
                out.push(form(
                    prefixed(&["npm", "publish"], &args[at + 1..]),
                    PUBLISHES,
                ));
            }
        }
        "node" | "nodejs" => {
            // `node /usr/lib/node_modules/npm/bin/npm-cli.js publish`.
            if let Some((at, name)) = node_cli(args) {
                let mut words = vec![lit(name)];
                words.extend(args[at + 1..].iter().cloned());
                out.extend(forms(name, &words));
                out.push(form(words, SAME_PROGRAM));
            }
        }
        "corepack" => {
            if let Some(tool) = args.first().and_then(|w| w.literal.as_deref())
                && matches!(tool, "npm" | "npx" | "pnpm" | "pnpx" | "yarn")
            {
                out.extend(forms(tool, args));
                out.push(form(args.to_vec(), SAME_PROGRAM));
            }
        }
        "kubectl" => {
            // `kubectl replace --force` deletes and creates again; `apply
            // --prune` deletes what the files no longer hold.
            let sub_at = args.iter().position(|w| word_is(w, &["replace", "apply"]));
            let deletes = sub_at.is_some_and(|at| {
                args[at + 1..].iter().any(|w| {
                    w.literal.as_deref().is_some_and(|l| {
                        if word_is(&args[at], &["replace"]) {
                            l == "--force"
                        } else {
                            l == "--prune" || l.starts_with("--prune=")
                        }
                    })
                })
            });
            if deletes && let Some(sub_at) = sub_at {
                let mut words = prefixed(&["kubectl"], &args[..sub_at]);
                words.push(lit("delete"));
                words.extend(args[sub_at + 1..].iter().cloned());
                out.push(form(words, DELETES));
            }
        }
        "wget" | "http" | "https" | "xh" | "xhs" | "aria2c" | "curlie" | "lwp-request" => {
            let urls = url_operands(args);
            if !urls.is_empty() {
                out.push(form(prefixed(&["curl"], &urls), FETCHES));
            }
        }
        "curl" => {
            let urls = url_operands(args);
            if !urls.is_empty() {
                out.push(form(prefixed(&["wget"], &urls), FETCHES));
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

/// The forms of `git SUB ARGS` (git's global options removed).
pub(super) fn git(sub: &str, args: &[WordVal]) -> Vec<Form> {
    let mut out = Vec::new();
    let p = || {
        parse(
            args,
            &[
                "-b",
                "-B",
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
            ],
        )
    };
    match sub {
        "send-pack" => out.push(form(prefixed(&["git", "push"], args), PUSHES)),
        "subtree" if first_operand(args).as_deref() == Some("push") => {
            let p = p();
            out.push(form(prefixed(&["git", "push"], &p.operands[1..]), PUSHES));
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
            if has(&p.options, Some('f'), &["--force"]) || dashes || whole_tree {
                out.push(form(prefixed(&["git", "reset", "--hard"], &[]), DISCARDS));
            }
        }
        "switch" => {
            let p = p();
            if has(&p.options, Some('f'), &["--force", "--discard-changes"]) {
                out.push(form(prefixed(&["git", "reset", "--hard"], &[]), DISCARDS));
            }
        }
        "restore" => {
            let p = p();
            let staged = has(&p.options, Some('S'), &["--staged"]);
            let worktree = has(&p.options, Some('W'), &["--worktree"]);
            let dry = has(&p.options, None, &["--dry-run"]);
            if (worktree || !staged) && !dry {
                out.push(form(prefixed(&["git", "reset", "--hard"], &[]), DISCARDS));
            }
        }
        "read-tree" => {
            let p = p();
            let updates = has(&p.options, Some('u'), &[]);
            let resets = has(&p.options, Some('m'), &["--reset"]);
            if updates && resets {
                out.push(form(prefixed(&["git", "reset", "--hard"], &[]), DISCARDS));
            }
        }
        "checkout-index" => {
            let p = p();
            if has(&p.options, Some('f'), &["--force"]) {
                out.push(form(prefixed(&["git", "reset", "--hard"], &[]), DISCARDS));
            }
        }
        "update-index" => {
            if let Some(mode) = value_of(args, None, &["--chmod"]) {
                let p = p();
                out.push(form(modes("chmod", &mode, &p.operands), MODES));
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

/// The first word not an option (a subcommand), as written.
fn first_operand(args: &[WordVal]) -> Option<String> {
    args.iter()
        .find_map(|w| w.literal.as_deref().filter(|l| !l.starts_with('-')))
        .map(str::to_string)
}

/// The npm-family command a node script is: `…/npm/bin/npm-cli.js`.
fn node_cli(args: &[WordVal]) -> Option<(usize, &'static str)> {
    let at = args
        .iter()
        .position(|w| w.literal.as_deref().is_none_or(|l| !l.starts_with('-')))?;
    let script = args[at].literal.as_deref()?;
    let file = script.rsplit('/').next().unwrap_or(script);
    let name = match file {
        "npm-cli.js" | "npm" => "npm",
        "npx-cli.js" | "npx" => "npx",
        "pnpm.cjs" | "pnpm.js" | "pnpm" => "pnpm",
        "yarn.js" | "yarn.cjs" | "yarn" => "yarn",
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

/// The words that may be URLs: operands, not options or their values.
fn url_operands(args: &[WordVal]) -> Vec<WordVal> {
    args.iter()
        .filter(|w| {
            w.literal
                .as_deref()
                .is_none_or(|l| !l.starts_with('-') && (l.contains("://") || l.contains('.')))
        })
        .cloned()
        .collect()
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
        git(argv[0].raw.as_str(), &argv[1..])
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
        assert!(texts("yarn", "yarn install").is_empty());
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
        assert!(git_texts("checkout -b topic").is_empty());
        assert_eq!(
            git_texts("restore -SW --source=HEAD ."),
            ["git reset --hard"]
        );
        assert_eq!(git_texts("restore a.txt"), ["git reset --hard"]);
        assert!(git_texts("restore --staged a.txt").is_empty());
        assert_eq!(git_texts("read-tree -u --reset HEAD"), ["git reset --hard"]);
        assert!(git_texts("read-tree HEAD").is_empty());
        assert_eq!(
            git_texts("switch --discard-changes main"),
            ["git reset --hard"]
        );
        assert_eq!(
            git_texts("update-index --chmod=+x a.txt"),
            ["chmod +x a.txt"]
        );
    }
}
