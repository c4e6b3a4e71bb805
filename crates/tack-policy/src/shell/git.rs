//! `git`: its options that run commands and the files it writes.
//!
//! A rule like `Bash(git grep *)` or `Bash(git fetch *)` reads as
//! read-only, yet `git grep -O'cmd'`, `git fetch --upload-pack='cmd'`,
//! `git -c alias.x='!cmd' x` or `git rebase --exec cmd` run commands. Each
//! such option has its command analysed as `bash -c` would run it, when it
//! is written out; when git takes the command from its configuration or the
//! environment instead, the command is uncertain (`--ext-diff`,
//! `difftool` without `-x`) or code not written here (`--textconv`). Git
//! configuration set on the command line (`-c key=value`, `--config-env`,
//! `git config key value`) is judged by its key: a key that names a command
//! has the command analysed (or asked, for pagers, which run only on a
//! terminal); a key known to be inert is nothing; any other key is code not
//! written here. Files git writes (`--output=FILE`, `format-patch -o DIR`,
//! `archive -o`, `bundle create`, `clone DIR`, `config --global`) are edits.

use super::options::could_be_option;
use std::path::{Path, PathBuf};

use super::{Analyzer, Cwds, Item, WordVal};

/// Configuration keys whose value is a shell command git runs.
const COMMAND_KEYS: &[&str] = &[
    "core.sshcommand",
    "core.editor",
    "core.askpass",
    "core.gitproxy",
    "core.fsmonitor",
    "core.alternaterefscommand",
    "sequence.editor",
    "diff.external",
    "gpg.program",
    "gpg.openpgp.program",
    "gpg.x509.program",
    "gpg.ssh.program",
    "uploadpack.packobjectshook",
    "sendemail.sendmailcmd",
    "sendemail.tocmd",
    "sendemail.cccmd",
    "sendemail.headercmd",
    "sendemail.smtpserver",
    "web.browser",
    "instaweb.httpd",
    "instaweb.browser",
];

/// Key patterns (`section.*.name`) whose value is a command.
const COMMAND_KEY_ENDINGS: &[(&str, &str)] = &[
    ("diff.", ".command"),
    ("diff.", ".textconv"),
    ("merge.", ".driver"),
    ("filter.", ".clean"),
    ("filter.", ".smudge"),
    ("filter.", ".process"),
    ("difftool.", ".cmd"),
    ("difftool.", ".path"),
    ("mergetool.", ".cmd"),
    ("mergetool.", ".path"),
    ("browser.", ".cmd"),
    ("browser.", ".path"),
    ("man.", ".cmd"),
    ("man.", ".path"),
    ("remote.", ".uploadpack"),
    ("remote.", ".receivepack"),
    ("remote.", ".vcs"),
    ("tar.", ".command"),
    ("credential.", ".helper"),
];

/// Keys that can run commands but only in ways that are not written here.
const UNCERTAIN_KEYS: &[&str] = &["core.hookspath", "include.path", "core.worktree"];

/// Key prefixes known to run nothing.
const INERT_KEY_PREFIXES: &[&str] = &[
    "color.",
    "user.",
    "author.",
    "committer.",
    "advice.",
    "init.defaultbranch",
    "core.quotepath",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.filemode",
    "core.ignorecase",
    "core.longpaths",
    "core.abbrev",
    "core.commentchar",
    "core.compression",
    "core.whitespace",
    "column.",
    "diff.noprefix",
    "diff.renames",
    "diff.algorithm",
    "diff.colormoved",
    "diff.mnemonicprefix",
    "log.date",
    "log.decorate",
    "log.follow",
    "format.pretty",
    "pull.rebase",
    "pull.ff",
    "push.default",
    "push.autosetupremote",
    "merge.ff",
    "merge.conflictstyle",
    "rebase.autosquash",
    "rebase.autostash",
    "fetch.prune",
    "status.",
    "branch.sort",
    "tag.sort",
    "i18n.",
    "gc.auto",
    "maintenance.auto",
    "safe.directory",
    "http.sslverify",
    "http.postbuffer",
    "http.version",
    "protocol.version",
    "commit.gpgsign",
    "tag.gpgsign",
    "blame.",
    "grep.",
    "help.autocorrect",
    "am.threeway",
    "feature.",
    "index.",
    "pack.",
    "transfer.fsckobjects",
    "fetch.fsckobjects",
    "receive.fsckobjects",
];

/// What a configuration value does.
enum KeyKind {
    /// A shell command git runs.
    Command,
    /// A pager: git runs it only when its output is a terminal.
    Pager,
    /// An alias: `!cmd` is a shell command, anything else a git command.
    Alias,
    /// Runs something not written here.
    Uncertain,
    /// Runs nothing.
    Inert,
    /// Not known.
    Unknown,
}

fn key_kind(key: &str) -> KeyKind {
    let k = key.to_ascii_lowercase();
    if k == "core.pager" || k.starts_with("pager.") {
        return KeyKind::Pager;
    }
    if k.starts_with("alias.") {
        return KeyKind::Alias;
    }
    if k == "credential.helper" || (k.starts_with("submodule.") && k.ends_with(".update")) {
        return KeyKind::Alias;
    }
    if COMMAND_KEYS.contains(&k.as_str())
        || COMMAND_KEY_ENDINGS
            .iter()
            .any(|(start, end)| k.starts_with(start) && k.ends_with(end))
    {
        return KeyKind::Command;
    }
    if UNCERTAIN_KEYS.contains(&k.as_str())
        || k.starts_with("includeif.")
        || k.starts_with("protocol.") && k.ends_with(".allow")
        || k.starts_with("url.")
    {
        return KeyKind::Uncertain;
    }
    if INERT_KEY_PREFIXES.iter().any(|p| k.starts_with(p)) {
        return KeyKind::Inert;
    }
    KeyKind::Unknown
}

/// Global options of git that take a value in the next word.
pub(super) const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--config-env",
    "--attr-source",
    "--list-cmds",
];

/// The alias a configuration key defines (`alias.p` → `p`).
fn alias_name(key: &str) -> Option<&str> {
    key.get(..6)
        .filter(|k| k.eq_ignore_ascii_case("alias."))
        .map(|_| &key[6..])
}

/// git's own commands (`git help -a`, git 2.47) and the common programs it
/// runs as `git-NAME`: any other word after `git` and its options is an
/// alias from git's configuration, which may stand for any command.
pub(super) const GIT_COMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archimport",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-store",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "flow",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "gc",
    "get-tar-commit-id",
    "gitk",
    "grep",
    "gui",
    "hash-object",
    "help",
    "hook",
    "http-backend",
    "imap-send",
    "index-pack",
    "init",
    "instaweb",
    "interpret-trailers",
    "lfs",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-one-file",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "p4",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "refs",
    "remote",
    "repack",
    "replace",
    "replay",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "scalar",
    "send-email",
    "send-pack",
    "sh-i18n",
    "sh-setup",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "svn",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

impl Analyzer {
    /// The forms of a git command a rule for its command also matches:
    /// without git's global options (`git -C . push` is `git push`), and
    /// with an alias set here expanded (`git -c alias.p=push p`, or `git
    /// config alias.p push` earlier). Empty when the options are computed
    /// at run time (asked for elsewhere).
    fn git_forms(&self, argv: &[WordVal]) -> (Vec<String>, Option<String>) {
        let mut aliases = self.git_aliases.clone();
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            let Some(l) = w.literal.as_deref() else {
                return (Vec::new(), None);
            };
            if !l.starts_with('-') {
                break;
            }
            let (name, attached) = match l.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                _ => (l, None),
            };
            let takes_next = attached.is_none() && GLOBAL_WITH_VALUE.contains(&name);
            let pair = match name {
                "-c" => argv.get(i + 1).and_then(|v| v.literal.as_deref()),
                c if c.starts_with("-c") && c.len() > 2 => Some(&c[2..]),
                _ => None,
            };
            if let Some((key, value)) = pair.and_then(|p| p.split_once('='))
                && let Some(alias) = alias_name(key)
            {
                aliases.push((alias.to_string(), value.to_string()));
            }
            i += if takes_next { 2 } else { 1 };
        }
        let Some(sub) = argv.get(i).and_then(|w| w.literal.clone()) else {
            return (Vec::new(), None);
        };
        let mut forms = Vec::new();
        if i > 1 {
            let mut words = vec![argv[0].clone()];
            words.extend_from_slice(&argv[i..]);
            forms.push(self.text(&words).to_string());
        }
        let expanded = aliases.iter().rev().find(|(name, _)| *name == sub);
        if let Some((_, value)) = expanded
            && !value.starts_with('!')
        {
            let mut words = vec![argv[0].clone()];
            words.extend(value.split_whitespace().map(WordVal::literal));
            words.extend_from_slice(&argv[i + 1..]);
            forms.push(self.text(&words).to_string());
        }
        let unknown = (expanded.is_none() && !GIT_COMMANDS.contains(&sub.as_str())).then_some(sub);
        (forms, unknown)
    }

    pub(super) fn git(&mut self, argv: &[WordVal]) {
        let (forms, unknown) = self.git_forms(argv);
        self.extra_forms = forms;
        let more = self.open_tail;
        self.emit(argv);
        self.git_remote_hosts(argv, more);
        self.config_hosts("git", argv);
        if let Some(sub) = unknown {
            self.may_run_git(
                argv,
                &format!(
                    "`{sub}` is not one of git's commands: an alias in git's configuration may make it any command"
                ),
            );
        }
        let mut i = 1;
        let mut dirs: Vec<WordVal> = Vec::new();
        while let Some(w) = argv.get(i) {
            let Some(l) = w.literal.clone() else {
                // `git $OPT …`: may be `-c …`, and which word is the
                // subcommand is not known.
                return self.may_run_git(
                    argv,
                    "a git option computed at run time can set options that run commands",
                );
            };
            if !l.starts_with('-') {
                break;
            }
            let (name, attached) = match l.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                _ => (l.clone(), None),
            };
            let takes_next = attached.is_none() && GLOBAL_WITH_VALUE.contains(&name.as_str());
            let value: Option<WordVal> = match (&attached, takes_next) {
                (Some(v), _) => Some(WordVal::literal(v)),
                (None, true) => argv.get(i + 1).cloned(),
                (None, false) => None,
            };
            match name.as_str() {
                "-C" => dirs.extend(value.clone()),
                "-c" => self.git_config_pair(argv, value.as_ref()),
                c if c.starts_with("-c") => {
                    self.git_config_pair(argv, Some(&WordVal::literal(&c[2..])))
                }
                "--config-env" => {
                    // `key=ENVVAR`: the value is not written here.
                    let key = value
                        .as_ref()
                        .and_then(|v| v.literal.as_deref())
                        .and_then(|v| v.split_once('='))
                        .map(|(k, _)| k.to_string());
                    if !key
                        .as_deref()
                        .is_some_and(|k| matches!(key_kind(k), KeyKind::Inert))
                    {
                        self.may_run_git(
                            argv,
                            "git --config-env sets an option from the environment, which can run commands",
                        );
                    }
                }
                "--exec-path" if attached.is_some() => {
                    self.may_run_git(
                        argv,
                        "git --exec-path runs git's commands from another directory",
                    );
                }
                _ => {}
            }
            i += if takes_next { 2 } else { 1 };
        }
        let Some(sub) = argv.get(i).and_then(|w| w.literal.clone()) else {
            if argv.get(i).is_some() {
                self.may_run_git(argv, "the git command is computed at run time");
            }
            return;
        };
        let args = &argv[i + 1..];
        // `git -C dir …`: paths are relative to dir.
        let saved = self.cwds.clone();
        for d in &dirs {
            self.cwds = self.cwds_after_cd(d.literal.as_deref(), d.tilde);
        }
        self.git_elsewhere = argv[1..i].iter().any(|w| {
            w.literal.as_deref().is_none_or(|l| {
                ["--git-dir", "--work-tree"]
                    .iter()
                    .any(|o| l == *o || l.starts_with(&format!("{o}=")))
            })
        });
        let dirs: Vec<PathBuf> = match &self.cwds {
            super::Cwds::Known(dirs) => dirs.clone(),
            super::Cwds::Unknown => Vec::new(),
        };
        let exists = |word: &str| dirs.iter().any(|d| d.join(word).symlink_metadata().is_ok());
        // Through an alias set here (`git -c alias.m=merge m --no-ff`, or
        // `git config alias.m merge` earlier), what it stands for.
        let alias = self
            .git_aliases
            .iter()
            .cloned()
            .chain(
                argv[1..i]
                    .windows(2)
                    .filter(|p| p[0].literal.as_deref() == Some("-c"))
                    .filter_map(|p| p[1].literal.as_deref())
                    .chain(
                        argv[1..i]
                            .iter()
                            .filter_map(|w| w.literal.as_deref())
                            .filter_map(|l| l.strip_prefix("-c").filter(|v| !v.is_empty())),
                    )
                    .filter_map(|pair| pair.split_once('='))
                    .filter_map(|(key, value)| {
                        alias_name(key).map(|name| (name.to_string(), value.to_string()))
                    }),
            )
            .rfind(|(name, _)| *name == sub)
            .map(|(_, value)| value)
            .filter(|value| !value.starts_with('!'));
        let forms = match alias {
            Some(value) => {
                let mut words: Vec<WordVal> =
                    value.split_whitespace().map(WordVal::literal).collect();
                words.extend(args.iter().cloned());
                match words.split_first() {
                    Some((first, rest)) => match first.literal.as_deref() {
                        Some(real) => super::equivalents::git(real, rest, &exists),
                        None => Vec::new(),
                    },
                    None => Vec::new(),
                }
            }
            None => super::equivalents::git(&sub, args, &exists),
        };
        self.emit_equivalents(argv, forms);
        self.git_subcommand(argv, &sub, args);
        self.git_elsewhere = false;
        if !dirs.is_empty() {
            self.cwds = saved;
        }
    }

    pub(super) fn may_run_git(&mut self, argv: &[WordVal], reason: &str) {
        self.may_run(argv, reason);
    }

    /// `key=value` set for one git command.
    fn git_config_pair(&mut self, argv: &[WordVal], pair: Option<&WordVal>) {
        let Some(text) = pair.and_then(|p| p.literal.clone()) else {
            return self.may_run_git(
                argv,
                "git -c sets an option computed at run time, which can run commands",
            );
        };
        let (key, value) = text.split_once('=').unwrap_or((text.as_str(), ""));
        self.git_config_value(argv, key, Some(value));
    }

    /// A configuration `key` given `value` (None: computed at run time).
    fn git_config_value(&mut self, argv: &[WordVal], key: &str, value: Option<&str>) {
        let command = |a: &mut Analyzer, cmd: &str| match value {
            Some(_) => a.option_script(argv, &format!("{cmd} \"$@\"")),
            None => a.may_run_git(
                argv,
                &format!("git's `{key}` is set to a command computed at run time"),
            ),
        };
        match key_kind(key) {
            KeyKind::Inert => {}
            KeyKind::Command => command(self, value.unwrap_or_default()),
            KeyKind::Alias => match value {
                Some(v) if v.starts_with('!') => command(self, &v[1..]),
                // An alias of a git command, a submodule update mode, a
                // credential helper of git's own (or none).
                Some(v)
                    if !key.eq_ignore_ascii_case("credential.helper")
                        || matches!(
                            v,
                            "" | "store"
                                | "cache"
                                | "osxkeychain"
                                | "manager"
                                | "manager-core"
                                | "libsecret"
                                | "wincred"
                        ) => {}
                _ => self.may_run_git(
                    argv,
                    &format!("git's `{key}` can run a program that is not written here"),
                ),
            },
            KeyKind::Pager => self.may_run_git(
                argv,
                &format!(
                    "git's `{key}` names a pager, which git runs when its output is a terminal"
                ),
            ),
            KeyKind::Uncertain => {
                let k = key.to_ascii_lowercase();
                if k == "include.path" || (k.starts_with("includeif.") && k.ends_with(".path")) {
                    // The file git reads as more of its configuration.
                    if let Some(file) = value.filter(|v| !v.is_empty()) {
                        self.touch(super::Family::Read, &WordVal::literal(file));
                    }
                }
                self.may_run_git(
                    argv,
                    &format!("git's `{key}` makes git run code that is not written here"),
                )
            }
            KeyKind::Unknown => self.runs_unwritten(
                argv,
                "git -c can set options that run commands (core.pager, alias.x=!cmd, …)",
            ),
        }
    }

    fn git_subcommand(&mut self, argv: &[WordVal], sub: &str, args: &[WordVal]) {
        let lit = |w: &WordVal| w.literal.clone();
        // Options anywhere before `--`, as `--name=value` or `--name value`.
        let value_of = |names: &[&str], next: bool| -> Vec<Option<WordVal>> {
            let mut out = Vec::new();
            for (k, w) in args.iter().enumerate() {
                let Some(l) = &w.literal else {
                    // `--upload-pack="$CMD"`
                    if names.iter().any(|n| w.raw.starts_with(&format!("{n}="))) {
                        out.push(None);
                    }
                    continue;
                };
                if l == "--" {
                    break;
                }
                for n in names {
                    if let Some(v) = l.strip_prefix(n).and_then(|r| r.strip_prefix('=')) {
                        out.push(Some(WordVal::literal(v)));
                    } else if l == n {
                        out.push(if next { args.get(k + 1).cloned() } else { None });
                    } else if n.len() == 2
                        && !n.starts_with("--")
                        && l.len() > 2
                        && l.starts_with(n)
                    {
                        // `-osecrets`, `-x'cmd'`: the value attached.
                        out.push(Some(WordVal::literal(&l[2..])));
                    }
                }
            }
            out
        };
        let has = |names: &[&str]| {
            args.iter()
                .take_while(|w| w.literal.as_deref() != Some("--"))
                .any(|w| w.literal.as_deref().is_some_and(|l| names.contains(&l)))
        };
        let runs_each = |a: &mut Analyzer, values: Vec<Option<WordVal>>, what: &str| {
            for v in values {
                match v.and_then(|v| v.literal) {
                    Some(cmd) if !cmd.trim().is_empty() => {
                        a.option_script(argv, &format!("{cmd} \"$@\""));
                    }
                    _ => a.may_run_git(
                        argv,
                        &format!("{what} runs a command that is not written here"),
                    ),
                }
            }
        };
        // Writes: `--output=FILE` (diff family, archive, format-patch).
        for v in value_of(&["--output"], true) {
            self.git_writes(argv, v.as_ref());
        }
        // The files other subcommands write at paths their words name.
        self.git_named_writes(argv, sub, args);
        if matches!(
            sub,
            "grep"
                | "fetch"
                | "pull"
                | "ls-remote"
                | "clone"
                | "push"
                | "archive"
                | "difftool"
                | "mergetool"
                | "rebase"
                | "filter-branch"
                | "send-email"
        ) && args
            .iter()
            .any(|w| w.literal.is_none() && could_be_option(&w.raw))
        {
            self.may_run_git(
                argv,
                &format!("an argument of git {sub} computed at run time may be an option that runs a command"),
            );
        }
        // The diff family: `git log $X` may be `--output=FILE` or
        // `--ext-diff`. A computed value of a named option (`--author="$A"`)
        // is only a value.
        if matches!(
            sub,
            "log"
                | "diff"
                | "show"
                | "whatchanged"
                | "format-patch"
                | "diff-tree"
                | "diff-index"
                | "diff-files"
                | "range-diff"
                | "blame"
                | "annotate"
        ) && args
            .iter()
            .take_while(|w| w.literal.as_deref() != Some("--"))
            .any(|w| {
                w.literal.is_none()
                    && could_be_option(&w.raw)
                    && !w.raw.split_once('=').is_some_and(|(name, _)| {
                        name.starts_with("--")
                            && name[2..]
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '-')
                            && !matches!(name, "--output" | "--ext-diff" | "--textconv")
                    })
            })
        {
            self.may_run_git(
                argv,
                &format!(
                    "an argument of git {sub} computed at run time may be an option that runs a command (--ext-diff) or writes a file (--output)"
                ),
            );
        }
        // `git --work-tree=DIR checkout …` writes the files in DIR; with
        // `checkout-index --prefix=DIR/` under DIR. Both are looked at with
        // no path rule too: DIR may be a protected path (`.git/hooks`).
        {
            let mut work_tree: Option<WordVal> = None;
            let mut words = argv[1..].iter();
            while let Some(w) = words.next() {
                match w.literal.as_deref() {
                    Some("--work-tree") => work_tree = words.next().cloned(),
                    Some(l) if l.starts_with("--work-tree=") => {
                        work_tree = Some(WordVal::literal(&l["--work-tree=".len()..]));
                    }
                    Some(l) if l == sub => break,
                    _ => {}
                }
            }
            let elsewhere = work_tree.is_some()
                || (sub == "checkout-index"
                    && args.iter().any(|w| {
                        w.literal
                            .as_deref()
                            .is_some_and(|l| l.starts_with("--prefix="))
                    }));
            if self.touches || elsewhere {
                self.git_worktree(sub, args, work_tree);
            }
            if self.touches {
                self.git_reads(argv, sub, args);
            }
        }
        match sub {
            "grep" => {
                // `-O[cmd]`, `--open-files-in-pager[=cmd]`, also in a
                // cluster (`-iOcmd`): the files are opened with the command.
                let mut skip = false;
                for w in args {
                    if std::mem::take(&mut skip) {
                        continue;
                    }
                    let Some(l) = lit(w) else { continue };
                    if l == "--" {
                        break;
                    }
                    // The next word is this option's value.
                    skip = matches!(
                        l.as_str(),
                        "-e" | "-f"
                            | "-A"
                            | "-B"
                            | "-C"
                            | "-m"
                            | "--max-depth"
                            | "--threads"
                            | "--max-count"
                            | "--after-context"
                            | "--before-context"
                            | "--context"
                    );
                    if l == "--open-files-in-pager" || l == "-O" {
                        self.may_run_git(
                            argv,
                            "git grep -O opens the files in the pager git is configured with",
                        );
                    } else if let Some(cmd) = l.strip_prefix("--open-files-in-pager=") {
                        runs_each(self, vec![Some(WordVal::literal(cmd))], "git grep -O");
                    } else if !l.starts_with("--") && l.starts_with('-') {
                        // Short options with a value end the cluster.
                        for (k, c) in l.char_indices().skip(1) {
                            if "efABCm".contains(c) {
                                break;
                            }
                            if c == 'O' {
                                let cmd = &l[k + 1..];
                                if cmd.is_empty() {
                                    self.may_run_git(argv, "git grep -O opens the files in the pager git is configured with");
                                } else {
                                    runs_each(
                                        self,
                                        vec![Some(WordVal::literal(cmd))],
                                        "git grep -O",
                                    );
                                }
                                break;
                            }
                        }
                    }
                }
            }
            "fetch" | "pull" | "ls-remote" | "clone" | "fetch-pack" | "archive" | "push"
            | "send-pack" | "remote" | "submodule" => {
                let mut names: Vec<&str> = vec!["--upload-pack", "--receive-pack", "--exec"];
                if matches!(sub, "clone" | "ls-remote") {
                    names.push("-u");
                }
                runs_each(self, value_of(&names, true), &format!("git {sub}"));
                if sub == "clone" {
                    for v in value_of(&["-c", "--config"], true) {
                        self.git_config_pair(argv, v.as_ref());
                    }
                    if !value_of(&["--template"], true).is_empty() {
                        self.may_run_git(
                            argv,
                            "git clone --template installs hooks that run during the clone",
                        );
                    }
                    self.git_clone_dir(args);
                }
                if sub == "archive" {
                    for v in value_of(&["-o"], true) {
                        self.git_writes(argv, v.as_ref());
                    }
                }
                if sub == "submodule"
                    && args.first().and_then(|w| w.literal.as_deref()) == Some("add")
                {
                    // `git submodule add URL [PATH]`: PATH, or the
                    // repository's name, is written.
                    self.git_clone_dir(&args[1..]);
                }
                if sub == "submodule"
                    && let Some(k) = args
                        .iter()
                        .position(|w| w.literal.as_deref() == Some("foreach"))
                {
                    self.git_foreach(argv, &args[k + 1..]);
                }
            }
            "diff" | "log" | "show" | "whatchanged" | "diff-tree" | "diff-index" | "diff-files"
            | "range-diff" | "format-patch" | "stash" | "blame" | "annotate" | "cat-file" => {
                if has(&["--ext-diff"]) {
                    self.may_run_git(
                        argv,
                        "--ext-diff runs the external diff program set in git's configuration or GIT_EXTERNAL_DIFF",
                    );
                }
                if has(&["--textconv"]) {
                    self.runs_unwritten(
                        argv,
                        "--textconv runs the conversion programs set in git's configuration",
                    );
                }
                if sub == "format-patch" && !has(&["--stdout"]) {
                    let dirs = value_of(&["-o", "--output-directory"], true);
                    if dirs.is_empty() && value_of(&["--output"], true).is_empty() {
                        self.writes_inside(&WordVal::literal("."));
                    }
                    for d in dirs {
                        match d {
                            Some(d) => self.writes_inside(&d),
                            None => self.git_writes(argv, None),
                        }
                    }
                }
            }
            "difftool" | "mergetool" => {
                let cmds = value_of(&["-x", "--extcmd"], true);
                if cmds.is_empty() {
                    self.runs_unwritten(
                        argv,
                        &format!("git {sub} runs the tool set in git's configuration"),
                    );
                } else {
                    runs_each(self, cmds, &format!("git {sub} -x"));
                }
            }
            "rebase" => {
                runs_each(self, value_of(&["-x", "--exec"], true), "git rebase --exec");
                if has(&["-i", "--interactive"]) {
                    self.runs_unwritten(
                        argv,
                        "an interactive rebase runs the sequence editor set in git's configuration",
                    );
                }
            }
            "bisect"
                if args.first().and_then(|w| w.literal.as_deref()) == Some("run")
                    && args.len() > 1 =>
            {
                self.outer.push(self.text(argv));
                self.argv(args[1..].to_vec());
                self.outer.pop();
            }
            "filter-branch" => {
                runs_each(
                    self,
                    value_of(
                        &[
                            "--env-filter",
                            "--tree-filter",
                            "--index-filter",
                            "--parent-filter",
                            "--msg-filter",
                            "--commit-filter",
                            "--tag-name-filter",
                            "--setup",
                        ],
                        true,
                    ),
                    "git filter-branch",
                );
            }
            "send-email" => {
                runs_each(
                    self,
                    value_of(
                        &[
                            "--sendmail-cmd",
                            "--to-cmd",
                            "--cc-cmd",
                            "--header-cmd",
                            "--smtp-server",
                        ],
                        true,
                    ),
                    "git send-email",
                );
            }
            "daemon" => runs_each(
                self,
                value_of(&["--access-hook"], true),
                "git daemon --access-hook",
            ),
            "instaweb" => runs_each(
                self,
                value_of(&["--httpd", "--browser"], true),
                "git instaweb",
            ),
            "config" => self.git_config_command(argv, args),
            "bundle" if args.first().and_then(|w| w.literal.as_deref()) == Some("create") => {
                let file = args
                    .iter()
                    .skip(1)
                    .find(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
                    .cloned();
                self.git_writes(argv, file.as_ref());
            }
            "worktree" => {
                if args.first().and_then(|w| w.literal.as_deref()) == Some("add")
                    && let Some(path) = args[1..]
                        .iter()
                        .find(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
                {
                    let path = path.clone();
                    self.writes_inside(&path);
                }
            }
            _ => {}
        }
    }

    /// Subcommands that change files in the work tree, met with Edit deny
    /// and ask rules (their Bash rule speaks for the files, as for `cp`):
    /// the paths they name, and everything under the current directory
    /// when they rewrite files the command does not name.
    fn git_worktree(&mut self, sub: &str, args: &[WordVal], work_tree: Option<WordVal>) {
        let flag = |names: &[&str]| {
            args.iter()
                .any(|w| w.literal.as_deref().is_some_and(|l| names.contains(&l)))
        };
        let dashdash = args.iter().position(|w| w.literal.as_deref() == Some("--"));
        let operands: Vec<WordVal> = args
            .iter()
            .enumerate()
            .filter(|(k, w)| {
                dashdash.is_some_and(|d| k > &d)
                    || !w.literal.as_deref().is_some_and(|l| l.starts_with('-'))
            })
            .map(|(_, w)| match (&work_tree, &w.literal) {
                // Paths are the work tree's.
                (
                    Some(WordVal {
                        literal: Some(dir), ..
                    }),
                    Some(p),
                ) if !p.starts_with('/') => {
                    WordVal::literal(&format!("{}/{p}", dir.trim_end_matches('/')))
                }
                _ => w.clone(),
            })
            .collect();
        let named = |a: &mut Analyzer, paths: &[WordVal]| {
            for p in paths {
                a.touch(super::Family::Edit, p);
            }
        };
        let here = work_tree.unwrap_or_else(|| WordVal::literal("."));
        if sub == "checkout-index" {
            // `--prefix=.git/hooks/`: every file checked out is written
            // under that prefix.
            for w in args {
                if let Some(prefix) = w
                    .literal
                    .as_deref()
                    .and_then(|l| l.strip_prefix("--prefix="))
                {
                    let dir = match prefix.rsplit_once('/') {
                        Some((dir, _)) if !dir.is_empty() => dir,
                        Some(_) => "/",
                        None => ".",
                    };
                    self.changes_inside(&WordVal::literal(dir));
                }
            }
        }
        match sub {
            "restore" | "rm" | "mv" if !flag(&["--cached"]) || flag(&["--worktree", "-W"]) => {
                named(self, &operands);
                // A directory named (`git restore .`) changes what is in it.
                for p in &operands {
                    self.changes_inside(p);
                }
            }
            "init" => match operands.first() {
                Some(dir) => self.writes_inside(dir),
                None => self.writes_inside(&here),
            },
            "checkout" => {
                named(self, &operands);
                let creates_only = flag(&["-b", "-B", "--orphan"]) && operands.len() <= 1;
                if dashdash.is_none() && !creates_only {
                    self.changes_inside(&here);
                }
                // A directory named (`git checkout -- .`, `git checkout
                // main src/`) has what is in it changed.
                for p in &operands {
                    self.changes_inside(p);
                }
            }
            "clean" if !flag(&["-n", "--dry-run"]) => {
                if operands.is_empty() {
                    self.changes_inside(&here);
                }
                for p in &operands {
                    self.changes_inside(p);
                }
            }
            "reset" if flag(&["--hard", "--merge", "--keep"]) => self.changes_inside(&here),
            "stash"
                if !matches!(
                    operands.first().and_then(|w| w.literal.as_deref()),
                    Some("list" | "show" | "create" | "store" | "drop" | "clear" | "branch")
                ) =>
            {
                self.changes_inside(&here)
            }
            "apply" if flag(&["--check", "--stat", "--numstat", "--summary", "--cached"]) => {}
            "switch"
                if flag(&["-c", "-C", "--create", "--force-create"]) && operands.len() <= 1 => {}
            "switch" | "merge" | "pull" | "rebase" | "cherry-pick" | "revert" | "am" | "apply"
            | "read-tree" | "checkout-index" | "sparse-checkout" => self.changes_inside(&here),
            "submodule"
                if operands.first().and_then(|w| w.literal.as_deref()) == Some("update") =>
            {
                self.changes_inside(&here);
            }
            _ => {}
        }
    }

    /// Files git prints from its objects: `HEAD:.env`, `:.env` (the
    /// index), `:2:.env` (a stage) name the file's committed content; `git
    /// grep`, `archive`, `bundle create` and `fast-export` read everything
    /// under the working directory. Checked against Read deny and ask rules
    /// as the file on disk (relative to the working directory, as the
    /// repository's root usually is).
    fn git_reads(&mut self, argv: &[WordVal], sub: &str, args: &[WordVal]) {
        let objects = matches!(
            sub,
            "show" | "cat-file" | "diff" | "difftool" | "grep" | "log" | "archive" | "blame"
        );
        let mut after_dashdash = false;
        for w in args {
            let Some(l) = w.literal.as_deref() else {
                continue;
            };
            if l == "--" {
                after_dashdash = true;
                continue;
            }
            if !objects || after_dashdash || l.starts_with('-') || l.contains("://") {
                continue;
            }
            let Some((rev, path)) = l.split_once(':') else {
                continue;
            };
            // `:/text` finds a commit by its message; `rev:` is the tree.
            if (rev.is_empty() && path.starts_with('/')) || path.is_empty() {
                continue;
            }
            // `:2:path`, a stage of the index.
            let path = match path.split_once(':') {
                Some((stage, rest)) if rev.is_empty() && matches!(stage, "0" | "1" | "2" | "3") => {
                    rest
                }
                _ => path,
            };
            self.touch(super::Family::Read, &WordVal::literal(path));
        }
        if matches!(sub, "add" | "commit" | "stage") {
            return self.git_stages(sub, args);
        }
        let pathspecs: Vec<&WordVal> = args
            .iter()
            .skip_while(|w| w.literal.as_deref() != Some("--"))
            .skip(1)
            .collect();
        let has = |names: &[&str]| {
            args.iter()
                .take_while(|w| w.literal.as_deref() != Some("--"))
                .any(|w| w.literal.as_deref().is_some_and(|l| names.contains(&l)))
        };
        if sub == "grep" && has(&["--untracked", "--no-index"]) {
            // Files git does not track are searched too.
            if pathspecs.is_empty() {
                self.touch_inside(&WordVal::literal("."));
            }
            for p in pathspecs {
                self.touch_inside(p);
            }
        } else if sub == "grep" {
            // What git tracks under the working directory, or under the
            // pathspecs.
            let within = if pathspecs.is_empty() {
                vec![WordVal::literal(".")]
            } else {
                pathspecs.into_iter().cloned().collect()
            };
            self.git_content(sub, &within);
        } else if matches!(sub, "archive" | "fast-export")
            || (sub == "bundle"
                && args.first().and_then(|w| w.literal.as_deref()) == Some("create"))
        {
            self.git_content(sub, &[]);
        } else if sub == "stash" && stashes_untracked(args) {
            // `git stash -u`/`-a` copies the files git does not track into
            // the stash (as `git add` of each): a read of what is there.
            self.touch_inside(&WordVal::literal("."));
        } else if sub == "mv" {
            // What `git mv` moves is read, as what `mv` moves is: a file a
            // Read rule denies under a new name no rule covers.
            let operands: Vec<&WordVal> = args
                .iter()
                .filter(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
                .collect();
            if let Some((_, sources)) = operands.split_last() {
                for source in sources {
                    self.touch_inside(source);
                }
            }
        } else if sub == "diff" && has(&["--no-index"]) {
            // Two paths on disk, compared whole: a directory's every file.
            for w in args.iter().filter(|w| {
                !w.literal
                    .as_deref()
                    .is_some_and(|l| l.starts_with('-') && l != "-")
            }) {
                self.touch_inside(w);
            }
        } else if sub == "push" {
            // A push to a repository on this machine (a path, or a remote
            // whose URL is one) copies what git tracks (its history) to
            // where no rule names it.
            if !self.local_repositories(argv, sub, args).is_empty() {
                self.git_content(sub, &[]);
            }
        } else if matches!(sub, "fetch" | "pull" | "remote" | "submodule") {
            // A fetch from a repository on this machine copies what it
            // tracks into this one, where `git show` prints it.
            for source in self.local_repositories(argv, sub, args) {
                self.git_content_from(sub, &source, &[]);
            }
        } else if sub == "clone" {
            // A clone of a repository on this machine copies what it
            // tracks to where no rule names it.
            if let Some(source) = clone_source(args) {
                self.git_content_from(sub, &source, &[]);
            }
        } else if let Some(content) = content_of(sub, args) {
            let within: Vec<WordVal> = pathspecs.into_iter().cloned().collect();
            if content == Content::AndUntracked {
                // Stashed files git does not track (`stash^3`, `log --all`
                // reaches `refs/stash`): everything under the working tree.
                self.git_content_everything(sub);
            } else {
                self.git_content(sub, &within);
            }
        }
    }

    /// What git prints from the files it tracks (see
    /// [`super::Item::GitContent`]), in the working tree of each directory
    /// the command may run in, limited to the pathspecs `within` (all of it
    /// when none is given, or when one is a pattern or magic git reads its
    /// own way). `:!x`, `:^x` and `:(exclude)x` leave x out.
    fn git_content(&mut self, sub: &str, within: &[WordVal]) {
        self.git_content_from(sub, &WordVal::literal("."), within);
    }

    /// [`Analyzer::git_content`] as a read of everything under the working
    /// tree, tracked or not.
    fn git_content_everything(&mut self, sub: &str) {
        let Ok(dirs) = self.resolve_word_path(".", false, false) else {
            return self.touch_inside(&WordVal::literal("."));
        };
        for dir in dirs {
            let root = crate::git_index::worktree_of(&dir.canonical)
                .map(Path::to_path_buf)
                .unwrap_or_else(|| dir.canonical.clone());
            self.push(Item::Touch {
                family: super::Family::Read,
                written: format!("git {sub}"),
                path: crate::paths::ResolvedPath {
                    lexical: root.clone(),
                    canonical: root,
                },
                recursive: true,
            });
        }
    }

    /// [`Analyzer::git_content`] of the repository `from` is in.
    fn git_content_from(&mut self, sub: &str, from: &WordVal, within: &[WordVal]) {
        let written = format!("git {sub}");
        let Some(from_lit) = from.literal.as_deref() else {
            return self.touch_inside(from);
        };
        let Ok(dirs) = self.resolve_word_path(from_lit, from.tilde, false) else {
            return self.touch_inside(from);
        };
        let mut include: Vec<&str> = Vec::new();
        let mut exclude: Vec<&str> = Vec::new();
        let mut everything = within.is_empty();
        for w in within {
            let Some(l) = w.literal.as_deref().filter(|_| !w.tilde) else {
                everything = true;
                continue;
            };
            let excluded = [":!", ":^", ":(exclude)"]
                .iter()
                .find_map(|m| l.strip_prefix(m));
            let plain = |p: &str| !p.starts_with(':') && !p.contains(['*', '?', '[', '\\']);
            match excluded {
                // A pattern left out may leave out less than it says.
                Some(p) if plain(p) => exclude.push(p),
                Some(_) => {}
                None if plain(l) => include.push(l),
                None => everything = true,
            }
        }
        if include.is_empty() {
            everything = true;
        }
        for dir in dirs {
            let found = crate::git_index::worktree_of(&dir.canonical);
            let (Some(worktree), false) = (found, self.git_elsewhere) else {
                // In a repository `--git-dir` names, or outside any (where
                // `git grep` with `grep.fallbackToNoIndex` searches every
                // file, and the rest fail): everything under the directory
                // or the pathspecs.
                if sub == "grep" || self.git_elsewhere {
                    let paths = if everything {
                        vec![dir]
                    } else {
                        include
                            .iter()
                            .flat_map(|p| self.resolver.resolve(Path::new(p), &dir.canonical))
                            .collect()
                    };
                    for path in paths {
                        self.push(Item::Touch {
                            family: super::Family::Read,
                            written: written.clone(),
                            path,
                            recursive: true,
                        });
                    }
                }
                continue;
            };
            let worktree = crate::paths::ResolvedPath {
                lexical: worktree.to_path_buf(),
                canonical: worktree.to_path_buf(),
            };
            let resolve = |a: &Analyzer, specs: &[&str]| -> Vec<crate::paths::ResolvedPath> {
                specs
                    .iter()
                    .flat_map(|p| a.resolver.resolve(Path::new(p), &dir.canonical))
                    .collect()
            };
            let within = if everything {
                Vec::new()
            } else {
                resolve(self, &include)
            };
            let except = resolve(self, &exclude);
            self.push(Item::GitContent {
                written: written.clone(),
                worktree,
                within,
                except,
            });
        }
    }

    /// `git add PATH…` and `git commit [-a] [PATH…]` copy what the files
    /// hold into the repository, where `git cat-file`, a push or a bundle
    /// can take it: a read of each path named (everything under a
    /// directory), of the working directory for `-A`, `-u`, `-a`, and of
    /// the files `-F`, `-t`, `--pathspec-from-file` name.
    fn git_stages(&mut self, sub: &str, args: &[WordVal]) {
        let spec = if sub == "commit" {
            super::options::Spec {
                flags: "aqvnsezpioAu",
                with_arg: "mFCct",
                optional_arg: "S",
                long_with_arg: &[
                    "--message",
                    "--file",
                    "--reuse-message",
                    "--reedit-message",
                    "--fixup",
                    "--squash",
                    "--author",
                    "--date",
                    "--template",
                    "--cleanup",
                    "--trailer",
                    "--pathspec-from-file",
                ],
                long_flags: &[
                    "--all",
                    "--amend",
                    "--no-edit",
                    "--edit",
                    "--quiet",
                    "--verbose",
                    "--dry-run",
                    "--signoff",
                    "--no-verify",
                    "--allow-empty",
                    "--allow-empty-message",
                    "--patch",
                    "--include",
                    "--only",
                    "--interactive",
                    "--reset-author",
                    "--short",
                    "--branch",
                    "--porcelain",
                    "--long",
                    "--null",
                    "--status",
                    "--no-status",
                    "--no-gpg-sign",
                    "--pathspec-file-nul",
                ],
                long_optional: &["--gpg-sign", "--untracked-files"],
                ..Default::default()
            }
        } else {
            super::options::Spec {
                flags: "nvfiepuAN",
                long_flags: &[
                    "--all",
                    "--no-all",
                    "--update",
                    "--no-ignore-removal",
                    "--ignore-removal",
                    "--force",
                    "--dry-run",
                    "--verbose",
                    "--intent-to-add",
                    "--patch",
                    "--interactive",
                    "--edit",
                    "--refresh",
                    "--ignore-errors",
                    "--ignore-missing",
                    "--renormalize",
                    "--sparse",
                    "--pathspec-file-nul",
                ],
                long_with_arg: &["--chmod", "--pathspec-from-file"],
                ..Default::default()
            }
        };
        let p = super::options::parse(args, &spec);
        let files: Vec<WordVal> = p
            .values(&["-F", "--file", "-t", "--template", "--pathspec-from-file"])
            .flatten()
            .filter(|w| w.literal.as_deref() != Some("-"))
            .cloned()
            .collect();
        for f in &files {
            self.touch(super::Family::Read, f);
        }
        let whole = if sub == "commit" {
            p.has(&["-a", "--all"])
        } else {
            p.has(&["-A", "--all", "-u", "--update", "--no-ignore-removal"])
        };
        if whole || p.dynamic {
            self.touch_inside(&WordVal::literal("."));
        }
        for w in &p.operands {
            self.touch_inside(w);
        }
    }

    pub(super) fn git_writes(&mut self, argv: &[WordVal], file: Option<&WordVal>) {
        match file {
            Some(f) if f.literal.as_deref() != Some("-") => self.edit_target(f),
            Some(_) => {}
            None => self.writes_unknown(
                argv,
                "an option that names the file git writes has no value",
            ),
        }
    }

    /// `git clone URL [DIR]`: DIR, or the repository's name, is written.
    fn git_clone_dir(&mut self, args: &[WordVal]) {
        let with_value = [
            "-o",
            "-b",
            "-u",
            "-c",
            "--origin",
            "--branch",
            "--upload-pack",
            "--template",
            "--config",
            "--depth",
            "--shallow-since",
            "--shallow-exclude",
            "--reference",
            "--reference-if-able",
            "--separate-git-dir",
            "--jobs",
            "-j",
            "--filter",
            "--server-option",
            "--bundle-uri",
            "--ref-format",
            "--revision",
        ];
        let mut operands = Vec::new();
        let mut k = 0;
        while let Some(w) = args.get(k) {
            k += 1;
            match w.literal.as_deref() {
                Some("--") => {
                    operands.extend(args[k..].iter().cloned());
                    break;
                }
                Some(l) if l.starts_with('-') => {
                    if with_value.contains(&l) {
                        k += 1;
                    }
                }
                _ => operands.push(w.clone()),
            }
        }
        let dir = match operands.get(1) {
            Some(d) => d.clone(),
            None => match operands.first().and_then(|u| u.literal.as_deref()) {
                Some(url) => {
                    let name = url
                        .trim_end_matches('/')
                        .rsplit(['/', ':'])
                        .next()
                        .unwrap_or(url)
                        .trim_end_matches(".git")
                        .to_string();
                    if name.is_empty() {
                        WordVal::literal(".")
                    } else {
                        WordVal::literal(&name)
                    }
                }
                None => return,
            },
        };
        self.writes_inside(&dir);
    }

    /// `git submodule foreach [--recursive] [--quiet] CMD…`: the words are
    /// joined and run by the shell in each submodule.
    fn git_foreach(&mut self, argv: &[WordVal], rest: &[WordVal]) {
        let words: Vec<&WordVal> = rest
            .iter()
            .skip_while(|w| matches!(w.literal.as_deref(), Some("--recursive" | "--quiet" | "-q")))
            .collect();
        if words.is_empty() {
            return;
        }
        let all: Option<Vec<&str>> = words.iter().map(|w| w.literal.as_deref()).collect();
        let saved = std::mem::replace(&mut self.cwds, Cwds::Unknown);
        match all {
            Some(parts) => self.nested_script(argv, &parts.join(" ")),
            None => self.may_run_git(
                argv,
                "git submodule foreach runs a command computed at run time",
            ),
        }
        self.cwds = saved;
    }

    /// `git config [scope] KEY VALUE`, `git config set KEY VALUE`: a key that
    /// runs commands, set for later git commands; `--global`, `--system`
    /// and `--file` write those files.
    fn git_config_command(&mut self, argv: &[WordVal], args: &[WordVal]) {
        let mut file: Option<WordVal> = None;
        let mut reads = false;
        let mut scope = ConfigScope::default();
        let mut changes = false;
        let mut operands: Vec<&WordVal> = Vec::new();
        let mut k = 0;
        while let Some(w) = args.get(k) {
            k += 1;
            let Some(l) = w.literal.as_deref() else {
                operands.push(w);
                continue;
            };
            match l {
                "--global" => scope.global = true,
                "--system" => scope.system = true,
                "--local" | "--worktree" => scope.local = true,
                "-f" | "--file" => {
                    file = args.get(k).cloned();
                    scope.file = true;
                    k += 1;
                }
                l if l.starts_with("--file=") => {
                    file = Some(WordVal::literal(&l[7..]));
                    scope.file = true;
                }
                "--blob" => {
                    scope.blob = args.get(k).cloned();
                    k += 1;
                }
                l if l.starts_with("--blob=") => scope.blob = Some(WordVal::literal(&l[7..])),
                "--includes" => scope.includes = Some(true),
                "--no-includes" => scope.includes = Some(false),
                // What prints every entry, or where each comes from.
                "-l" | "--list" | "list" | "--get-regexp" | "--regexp" | "--name-only"
                | "--show-origin" | "--show-scope" => {
                    reads = true;
                    scope.listed = true;
                }
                "--get" | "--get-all" | "--get-urlmatch" | "--get-color" | "--get-colorbool"
                | "get" => reads = true,
                "-e" | "--edit" | "edit" => {
                    self.runs_unwritten(
                        argv,
                        "git config --edit runs the editor set in git's configuration",
                    );
                }
                "set" | "unset" | "--add" | "--replace-all" | "--unset" | "--unset-all"
                | "--remove-section" | "--rename-section" | "rename-section" | "remove-section" => {
                    changes = true
                }
                // Options whose value is the next word.
                "-t" | "--type" | "--default" | "--comment" | "--value" | "--url" => k += 1,
                "--bool" | "--int" | "--path" | "--no-type" | "--null" | "-z" => {}
                l if l.starts_with('-') => {}
                _ => operands.push(w),
            }
        }
        if !changes && (reads || operands.len() == 1) {
            // `git config user.name`: one key and no value is a get.
            return self.git_config_reads(&scope);
        }
        if operands.is_empty() {
            return;
        }
        let repository_config = file.is_none() && !scope.global && !scope.system;
        let files = match file {
            Some(f) => Some(vec![f]),
            None if scope.global || scope.system => self.scope_files(scope.system),
            None => Some(Vec::new()),
        };
        match files {
            Some(files) => {
                for f in files {
                    let f = WordVal {
                        tilde: f.literal.as_deref().is_some_and(|l| l.starts_with('~')),
                        ..f
                    };
                    self.edit_target(&f);
                }
            }
            None => self.uncertain(
                super::UncertainKind::Edit,
                &self.text(argv),
                "the configuration file git writes is named by a variable known only at run time",
            ),
        }
        let (Some(key), value) = (operands.first(), operands.get(1)) else {
            return;
        };
        if repository_config
            && value.is_some()
            && key
                .literal
                .as_deref()
                .is_none_or(|k| !matches!(key_kind(k), KeyKind::Inert))
        {
            // `git config core.fsmonitor ./x.sh`: a command the next `git
            // status` runs, kept in the repository's own configuration,
            // a protected path, whatever allows the command itself.
            self.writes(&WordVal::literal(".git/config"));
        }
        match (&key.literal, value) {
            (Some(key), Some(v)) => {
                let v = v.literal.clone();
                if let (Some(name), Some(v)) = (alias_name(key), &v) {
                    // `git config alias.p push && git p`: `git p` is a push.
                    self.git_aliases.push((name.to_string(), v.clone()));
                }
                self.git_config_value(argv, key, v.as_deref());
            }
            (Some(_), None) => {}
            (None, _) => {
                self.runs_unwritten(argv, "git config sets an option computed at run time")
            }
        }
    }

    /// What a `git config` getter reads (see [`ConfigScope`]): each file
    /// meets the Read deny and ask rules, and one outside the working
    /// directories keeps a form that prints more than one named key (a
    /// list, a regexp, a scope or origin shown, includes followed) from
    /// the commands that only read, as `cat ~/.gitconfig` would be. The
    /// repository's own file is inside; a blob's file is read from git's
    /// objects.
    fn git_config_reads(&mut self, scope: &ConfigScope) {
        if let Some(blob) = &scope.blob {
            // `--blob=HEAD:.env`: that file's committed content.
            match blob.literal.as_deref() {
                Some(l) => {
                    if let Some((_, path)) = l.split_once(':').filter(|(_, p)| !p.is_empty()) {
                        self.touch(super::Family::Read, &WordVal::literal(path));
                    }
                }
                None => self.uncertain(
                    super::UncertainKind::Touch(super::Family::Read),
                    &blob.raw,
                    "the blob git config reads is named only at run time",
                ),
            }
            return;
        }
        if scope.file || (scope.local && !scope.global && !scope.system) {
            // `-f FILE` is an operand read; the repository's config is
            // inside it. Includes there lead anywhere.
            if scope.includes != Some(true) {
                return;
            }
        }
        let mut files: Vec<PathBuf> = Vec::new();
        let everything = !scope.global && !scope.system && !scope.local && !scope.file;
        // Files the command's variables put elsewhere (`HOME=d`,
        // `GIT_CONFIG_GLOBAL=f`): read as named.
        let mut moved: Vec<WordVal> = Vec::new();
        for (wanted, system) in [
            (everything || scope.system, true),
            (everything || scope.global, false),
        ] {
            if !wanted {
                continue;
            }
            if !self.scope_moved(system) {
                if system {
                    files.push(PathBuf::from("/etc/gitconfig"));
                } else if let Some(home) = &self.home {
                    files.extend(crate::git_config::user_files(home));
                }
                continue;
            }
            match self.scope_files(system) {
                Some(named) => moved.extend(named),
                None => self.uncertain(
                    super::UncertainKind::Touch(super::Family::Read),
                    "git config",
                    "the configuration file git reads is named by a variable known only at run time",
                ),
            }
        }
        let outside = scope.listed || scope.global || scope.system || scope.includes == Some(true);
        for f in &moved {
            let f = WordVal {
                tilde: f.literal.as_deref().is_some_and(|l| l.starts_with('~')),
                ..f.clone()
            };
            self.touch(super::Family::Read, &f);
            if outside {
                self.input(&f);
            }
        }
        let includes = scope.includes.unwrap_or(everything);
        if includes {
            // The files those include (and the repository's, for
            // `--local --includes` or no scope), read as git reads them.
            let mut from = files.clone();
            if everything || scope.local {
                for dir in self.config_dirs() {
                    if let Some(git_dir) =
                        crate::git_index::worktree_of(&dir).and_then(crate::git_index::git_dir)
                    {
                        from.push(git_dir.join("config"));
                    }
                }
            }
            for f in crate::git_config::included_files(&from) {
                if !files.contains(&f) {
                    files.push(f);
                }
            }
        }
        for f in files {
            let word = WordVal::literal(&f.to_string_lossy());
            if self.touches {
                self.touch(super::Family::Read, &word);
            }
            if outside {
                self.input(&word);
            }
        }
    }

    /// Whether the command sets a variable that moves git's global (or,
    /// with `system`, its system) configuration file.
    fn scope_moved(&self, system: bool) -> bool {
        let names: &[&str] = if system {
            &["GIT_CONFIG_SYSTEM"]
        } else {
            &["GIT_CONFIG_GLOBAL", "HOME", "XDG_CONFIG_HOME"]
        };
        names.iter().any(|n| self.env_value(n).is_some())
    }

    /// The files of git's global (or system) configuration, where the
    /// variables the command sets put them: `GIT_CONFIG_GLOBAL`,
    /// `GIT_CONFIG_SYSTEM`, `$HOME/.gitconfig`, `$XDG_CONFIG_HOME/git/config`
    /// (`~/.config/git/config` without it). None when one is known only at
    /// run time.
    fn scope_files(&self, system: bool) -> Option<Vec<WordVal>> {
        let (variable, default) = if system {
            ("GIT_CONFIG_SYSTEM", "/etc/gitconfig")
        } else {
            ("GIT_CONFIG_GLOBAL", "~/.gitconfig")
        };
        if let Some(value) = self.env_value(variable) {
            return Some(vec![WordVal::literal(&value?)]);
        }
        if system || !self.scope_moved(false) {
            // (git writes `~/.gitconfig`, unless only the XDG file is there.)
            return Some(vec![WordVal::literal(default)]);
        }
        let home = match self.env_value("HOME") {
            Some(h) => h?,
            None => "~".to_string(),
        };
        let home = home.trim_end_matches('/');
        let xdg = match self.env_value("XDG_CONFIG_HOME") {
            Some(x) => x?,
            None => format!("{home}/.config"),
        };
        Some(vec![
            WordVal::literal(&format!("{home}/.gitconfig")),
            WordVal::literal(&format!("{}/git/config", xdg.trim_end_matches('/'))),
        ])
    }

    /// The directories the command may run in, known.
    fn config_dirs(&self) -> Vec<PathBuf> {
        match &self.cwds {
            Cwds::Known(dirs) => dirs.clone(),
            Cwds::Unknown => Vec::new(),
        }
    }

    /// The repositories on this machine that `git push`, `git fetch`, `git
    /// pull`, `git remote update` or `git submodule add` reaches: the
    /// repository named (a path, `file://`, or a remote whose URL is one,
    /// after `insteadOf`), the default remote when none is named, every
    /// remote with `--all`. Remotes are read from the configuration of the
    /// repository each directory the command may run in belongs to, with
    /// `-c` pairs given before the subcommand. A repository computed at run
    /// time is returned as it is written (not known to be elsewhere).
    fn local_repositories(&self, argv: &[WordVal], sub: &str, args: &[WordVal]) -> Vec<WordVal> {
        let (mut out, urls) = self.remote_urls(argv, sub, args);
        for url in urls {
            if let Some(path) = crate::git_config::local_path(&url) {
                let word = match path.strip_prefix("~/").zip(self.home.as_ref()) {
                    Some((rest, home)) => WordVal::literal(&home.join(rest).to_string_lossy()),
                    None => WordVal::literal(path),
                };
                if !out.iter().any(|w| w.literal == word.literal) {
                    out.push(word);
                }
            }
        }
        out
    }

    /// The repositories a `git push`, `fetch`, `pull`, `ls-remote`, `remote
    /// update` or `submodule add` reaches (see
    /// [`Analyzer::local_repositories`]): the words computed at run time,
    /// and every URL, as the configuration of each repository the command
    /// may run in makes of the repository named (or of the default remote,
    /// or of every remote).
    pub(super) fn remote_urls(
        &self,
        argv: &[WordVal],
        sub: &str,
        args: &[WordVal],
    ) -> (Vec<WordVal>, Vec<String>) {
        let key = (
            argv.iter().map(|w| w.raw.clone()).collect::<Vec<_>>(),
            self.cwds.clone(),
        );
        if let Some((seen, found)) = self.remotes.borrow().as_ref()
            && *seen == key
        {
            return found.clone();
        }
        let found = self.read_remote_urls(argv, sub, args);
        *self.remotes.borrow_mut() = Some((key, found.clone()));
        found
    }

    fn read_remote_urls(
        &self,
        argv: &[WordVal],
        sub: &str,
        args: &[WordVal],
    ) -> (Vec<WordVal>, Vec<String>) {
        // The proxies of the configuration read here (none when nothing is).
        self.config.git_proxies.borrow_mut().clear();
        const WITH_VALUE: &[&str] = &[
            "-o",
            "--push-option",
            "--receive-pack",
            "--exec",
            "--upload-pack",
            "--repo",
            "--depth",
            "--deepen",
            "--shallow-since",
            "--shallow-exclude",
            "-j",
            "--jobs",
            "--negotiation-tip",
            "--server-option",
            "--filter",
            "--refmap",
            "-s",
            "--strategy",
            "-X",
            "--strategy-option",
            "-b",
            "--branch",
            "--name",
            "--reference",
            "-c",
            "--config",
            "--template",
            "--separate-git-dir",
            "--origin",
            "--format",
            "--prefix",
            "--output",
        ];
        let mut operands: Vec<WordVal> = Vec::new();
        let mut repo_option: Option<WordVal> = None;
        let mut all = false;
        let mut multiple = false;
        let mut words = args.iter();
        while let Some(w) = words.next() {
            let Some(l) = w.literal.as_deref() else {
                operands.push(w.clone());
                continue;
            };
            if l == "--" {
                operands.extend(words.by_ref().cloned());
                break;
            }
            if !l.starts_with('-') || l == "-" {
                operands.push(w.clone());
                continue;
            }
            match l {
                "--all" => all = true,
                "--multiple" => multiple = true,
                "--repo" | "--remote" => repo_option = words.next().cloned(),
                _ if WITH_VALUE.contains(&l) => {
                    words.next();
                }
                _ => {}
            }
            if let Some(r) = l
                .strip_prefix("--repo=")
                .or_else(|| l.strip_prefix("--remote="))
            {
                repo_option = Some(WordVal::literal(r));
            }
        }
        let (repositories, all): (Vec<WordVal>, bool) = match sub {
            "remote" => match operands.first().and_then(|w| w.literal.as_deref()) {
                // `git remote update [group…]`: every remote (a group is
                // a list of them).
                Some("update") => (Vec::new(), true),
                // `git remote show o`, `git remote prune o`: each remote
                // named is asked for its branches.
                Some("show" | "prune") if operands.len() > 1 => (operands[1..].to_vec(), false),
                _ => return (Vec::new(), Vec::new()),
            },
            "submodule" => match operands.first().and_then(|w| w.literal.as_deref()) {
                Some("add") => (operands.get(1).cloned().into_iter().collect(), false),
                _ => return (Vec::new(), Vec::new()),
            },
            "fetch" if multiple => (operands.clone(), all || operands.is_empty()),
            // `git archive --remote=R`: only a remote archive reaches one.
            "archive" => match repo_option {
                Some(r) => (vec![r], false),
                None => return (Vec::new(), Vec::new()),
            },
            "push" => (
                operands
                    .first()
                    .cloned()
                    .or(repo_option)
                    .into_iter()
                    .collect(),
                false,
            ),
            _ => (operands.first().cloned().into_iter().collect(), all),
        };
        let mut out: Vec<WordVal> = Vec::new();
        for r in &repositories {
            if r.literal.is_none() {
                out.push(r.clone());
            }
        }
        let given: Vec<&str> = repositories
            .iter()
            .filter_map(|w| w.literal.as_deref())
            .collect();
        let settings: Vec<&str> = argv[..argv.len() - args.len()]
            .windows(2)
            .filter(|p| p[0].literal.as_deref() == Some("-c"))
            .filter_map(|p| p[1].literal.as_deref())
            .chain(
                argv[..argv.len() - args.len()]
                    .iter()
                    .filter_map(|w| w.literal.as_deref())
                    .filter_map(|l| l.strip_prefix("-c").filter(|v| !v.is_empty())),
            )
            .collect();
        let dirs = self
            .resolve_word_path(".", false, false)
            .map(|dirs| dirs.into_iter().map(|d| d.canonical).collect::<Vec<_>>())
            .unwrap_or_default();
        let mut urls: Vec<String> = Vec::new();
        let mut proxies: Vec<String> = Vec::new();
        for dir in &dirs {
            let worktree = crate::git_index::worktree_of(dir);
            // Outside a repository (`git clone`), the user's configuration.
            let mut config = match worktree {
                Some(w) => crate::git_config::GitConfig::of_worktree(w, self.home.as_deref()),
                None => crate::git_config::GitConfig::of_user(self.home.as_deref()),
            };
            for pair in &settings {
                config.set(pair);
            }
            proxies.extend(config.proxies().into_iter().map(str::to_string));
            let branch = worktree.and_then(crate::git_config::head_branch);
            let push = sub == "push";
            if given.is_empty() {
                urls.extend(config.urls(None, all, push, branch.as_deref()));
            }
            for r in &given {
                urls.extend(config.urls(Some(r), false, push, branch.as_deref()));
            }
        }
        *self.config.git_proxies.borrow_mut() = proxies;
        (out, urls)
    }
}

/// Which configuration a `git config` command reads (`--global`,
/// `--system`, `--local`, `--file`, `--blob`, `--[no-]includes`), and
/// whether it prints more than one named key (`--list`, `--get-regexp`,
/// `--show-origin`, …).
#[derive(Default)]
struct ConfigScope {
    global: bool,
    system: bool,
    local: bool,
    file: bool,
    blob: Option<WordVal>,
    includes: Option<bool>,
    listed: bool,
}

/// What of the files git has a git command can print or copy elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    /// What git tracks.
    Tracked,
    /// That, and the files a stash keeps that git does not track.
    AndUntracked,
}

/// Commands that never print or copy elsewhere what files hold (names,
/// ids, counts; or writes at the files' own paths), unless their options
/// say so ([`prints_content`]); every other command, an unknown one too,
/// may.
const CONTENT_FREE: &[&str] = &[
    "status",
    "branch",
    "tag",
    "remote",
    "config",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "show-ref",
    "show-branch",
    "describe",
    "shortlog",
    "rev-list",
    "name-rev",
    "merge-base",
    "for-each-ref",
    "symbolic-ref",
    "update-ref",
    "count-objects",
    "fsck",
    "gc",
    "prune",
    "repack",
    "maintenance",
    "fetch",
    "pull",
    "push",
    "add",
    "stage",
    "commit",
    "rm",
    "reset",
    "restore",
    "checkout",
    "switch",
    "merge",
    "rebase",
    "cherry-pick",
    "revert",
    "am",
    "apply",
    "init",
    "clean",
    "help",
    "version",
    "var",
    "check-ignore",
    "check-attr",
    "check-ref-format",
    "check-mailmap",
    "bisect",
    "submodule",
    "sparse-checkout",
    "update-index",
    "commit-tree",
    "mktree",
    "mktag",
    "hash-object",
    "write-tree",
    "notes",
    "stripspace",
    "column",
    "verify-commit",
    "verify-tag",
    "verify-pack",
    "blame",
    "annotate",
    "mv",
    "credential",
    "interpret-trailers",
    "mailinfo",
    "mailsplit",
    "replace",
    "filter-branch",
    "gui",
    "citool",
    "cherry",
    "prune-packed",
    "pack-refs",
    "rerere",
    "fmt-merge-msg",
    "get-tar-commit-id",
    "diagnose",
    "bugreport",
    "fsmonitor--daemon",
];

/// Whether (and what) `git SUB ARGS` prints or copies elsewhere of what
/// files hold: a patch, a blob, a pickaxe's answer (`log -G`, `-S`: which
/// commits change text matching, an oracle on the text), a checkout at
/// another place (`worktree add`, `checkout-index --prefix`, `read-tree
/// --prefix`), or a command not known to do none of these.
fn content_of(sub: &str, args: &[WordVal]) -> Option<Content> {
    let words = fixed_before_pathspecs(args);
    let stash_reached = words.iter().any(|w| {
        matches!(*w, "--all" | "--reflog" | "-g" | "--walk-reflogs")
            || (!w.starts_with('-') && w.contains("stash"))
    });
    let any = |f: &dyn Fn(&str) -> bool| words.iter().any(|w| f(w));
    let prints = match sub {
        "worktree" => words.first() == Some(&"add"),
        "checkout-index" | "read-tree" => any(&|w| w.starts_with("--prefix")),
        "stash" => {
            words.first() == Some(&"show")
                && (prints_content(sub, args)
                    || any(&|w| matches!(w, "-u" | "--include-untracked" | "--only-untracked")))
        }
        "log" | "whatchanged" | "reflog" | "diff" | "diff-tree" | "diff-index" | "diff-files"
        | "show" | "cat-file" | "range-diff" | "format-patch" => {
            prints_content(sub, args)
                || (sub != "cat-file"
                    && any(&|w| {
                        w.starts_with("-G")
                            || w.starts_with("-S")
                            || w.starts_with("--pickaxe")
                            || w.starts_with("--find-object")
                    }))
        }
        _ => !CONTENT_FREE.contains(&sub),
    };
    match (prints, stash_reached || sub == "stash") {
        (false, _) => None,
        (true, true) => Some(Content::AndUntracked),
        (true, false) => Some(Content::Tracked),
    }
}

/// `git stash` (push, save, or none named) with `-u`, `-a` or their long
/// forms: what git does not track is stashed too.
fn stashes_untracked(args: &[WordVal]) -> bool {
    let words = fixed_before_pathspecs(args);
    let pushes = match words.iter().find(|w| !w.starts_with('-')) {
        None => true,
        Some(first) => matches!(*first, "push" | "save"),
    };
    pushes
        && words.iter().any(|w| {
            matches!(*w, "-u" | "--include-untracked" | "-a" | "--all")
                || (w.starts_with('-')
                    && !w.starts_with("--")
                    && w.len() > 2
                    && w[1..].contains(['u', 'a']))
        })
}

/// The repository a `git clone` copies when it is a directory of this
/// machine (a path, or `file://`), not a remote's URL or `host:path`.
fn clone_source(args: &[WordVal]) -> Option<WordVal> {
    let (short, long) = super::hosts::git_value_options("clone");
    let takes_value =
        |l: &str| long.contains(&l) || (l.len() == 2 && l[1..].chars().all(|c| short.contains(c)));
    let mut words = args.iter();
    while let Some(w) = words.next() {
        let Some(l) = w.literal.as_deref() else {
            return Some(w.clone());
        };
        if l == "--" {
            return words.next().cloned();
        }
        if l.starts_with('-') {
            if takes_value(l) {
                words.next();
            }
            continue;
        }
        if let Some(path) = l.strip_prefix("file://") {
            return Some(WordVal::literal(path));
        }
        let remote = l.contains("://")
            || l.split_once(':')
                .is_some_and(|(host, _)| !host.contains('/') && !host.is_empty());
        return (!remote).then(|| w.clone());
    }
    None
}

/// Whether `git SUB ARGS` prints what files hold (a patch, a blob), not
/// only their names or counts.
fn prints_content(sub: &str, args: &[WordVal]) -> bool {
    let words = fixed_before_pathspecs(args);
    let any = |f: &dyn Fn(&str) -> bool| words.iter().any(|w| f(w));
    let patch = any(&|w| {
        matches!(
            w,
            "-p" | "-u"
                | "--patch"
                | "-c"
                | "--cc"
                | "-W"
                | "--function-context"
                | "--patch-with-stat"
                | "--patch-with-raw"
                | "--color-words"
        ) || w.starts_with("--word-diff")
            || w.starts_with("--color-words=")
            || w.starts_with("--unified")
            || (w.starts_with("-U") && w.len() > 2)
            || (w.starts_with("-L") && w.len() > 2)
    }) || words.windows(2).any(|p| p[0] == "-L");
    let no_patch = any(&|w| matches!(w, "-s" | "--no-patch"));
    let summary_only = any(&|w| {
        matches!(
            w,
            "--numstat"
                | "--shortstat"
                | "--name-only"
                | "--name-status"
                | "--summary"
                | "--raw"
                | "--compact-summary"
                | "--quiet"
                | "--check"
        ) || w.starts_with("--stat")
            || w.starts_with("--dirstat")
    });
    match sub {
        "log" | "whatchanged" | "reflog" | "diff-tree" | "diff-index" | "diff-files" => patch,
        // `git show REV:PATH …` prints those files only (read as such).
        "show" if objects_only(args) => false,
        "show" | "diff" => !no_patch && (patch || !summary_only) && !words.contains(&"--no-index"),
        "range-diff" | "format-patch" => true,
        "stash" => words.first() == Some(&"show") && patch,
        "cat-file" => any(&|w| {
            matches!(w, "-p" | "blob" | "--textconv" | "--filters") || w.starts_with("--batch")
        }),
        _ => false,
    }
}

/// Every operand before `--` names a file in a revision (`HEAD:README.md`,
/// `:src/x`), and there is one.
fn objects_only(args: &[WordVal]) -> bool {
    let operands: Vec<&WordVal> = args
        .iter()
        .take_while(|w| w.literal.as_deref() != Some("--"))
        .filter(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')))
        .collect();
    !operands.is_empty()
        && operands.iter().all(|w| {
            w.literal
                .as_deref()
                .is_some_and(|l| l.split_once(':').is_some_and(|(_, p)| !p.is_empty()))
        })
}

/// The fixed words of a git command's arguments before `--` (its options
/// and revisions; pathspecs follow `--`).
fn fixed_before_pathspecs(args: &[WordVal]) -> Vec<&str> {
    args.iter()
        .take_while(|w| w.literal.as_deref() != Some("--"))
        .filter_map(|w| w.literal.as_deref())
        .collect()
}
