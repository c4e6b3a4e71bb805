//! The files git writes at paths its command line names, beyond the work
//! tree and its own repository: `git mailinfo MSG PATCH`, `git merge-file
//! CURRENT …`, `git interpret-trailers --in-place FILE`, `git mailsplit
//! -oDIR`, `--export-marks=FILE`, `init --separate-git-dir=DIR`,
//! `commit-graph write --object-dir DIR`, … Each is an edit (the Edit rules,
//! acceptEdits' working directories and the protected paths see it), as
//! `git diff --output=FILE` is.
//!
//! A subcommand whose writes are not read ([`WRITES_UNREAD`], one git does
//! not have, a program of git's exec path, an alias) is not known to write
//! nothing: every path its words name may be changed, as for a program tack
//! does not know ([`super::Family::MaybeEdit`]: asked where an Edit deny or
//! ask rule, or the protected paths, name it).

use super::options::{self, Spec};
use super::{Analyzer, Cwds, Family, UncertainKind, WordVal};

/// git's subcommands ([`super::git::GIT_COMMANDS`]) whose writes are not
/// read here: foreign-system bridges, GUIs, plumbing of git's own scripts,
/// extensions. Every other one has its writes read (here, in
/// [`super::git`]'s `--output`, `format-patch -o`, `archive -o`, `bundle
/// create`, `clone`, `worktree add`, `config --file`, and its work-tree
/// changes), or writes nothing but git's own repository and what it prints,
/// whatever its words name; git's documentation for each was read for
/// options that name a file written.
const WRITES_UNREAD: &[&str] = &[
    "archimport",
    "citool",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "flow",
    "gitk",
    "gui",
    "http-backend",
    "lfs",
    "merge-one-file",
    "p4",
    "quiltimport",
    "scalar",
    "sh-i18n",
    "sh-setup",
    "svn",
];

/// Whether the writes of git's subcommand `sub` are read (see
/// [`WRITES_UNREAD`]).
fn writes_read(sub: &str) -> bool {
    super::git::GIT_COMMANDS.contains(&sub) && !WRITES_UNREAD.contains(&sub)
}

/// Options read with a table: values in the next word or attached, long
/// options abbreviated as git's parse-options takes them.
fn spec(with_arg: &'static str, long_with_arg: &'static [&'static str]) -> Spec {
    Spec {
        flags: "",
        with_arg,
        optional_arg: "",
        long_flags: &[],
        long_with_arg,
        long_optional: &[],
        posix: false,
        abbreviations: true,
    }
}

/// The values of the long options `names` (or a unique-looking prefix of
/// one: git's parse-options takes `--export-m=F`), `--name=V` or `--name
/// V`, and of the short ones (`-oV`, `-o V`), before `--`. `None` for a
/// value missing or computed where the option may be.
fn values_of(args: &[WordVal], names: &[&str]) -> Vec<Option<WordVal>> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(w) = args.get(k) {
        k += 1;
        let Some(l) = w.literal.as_deref() else {
            if names
                .iter()
                .any(|n| n.starts_with("--") && w.raw.starts_with(&format!("{n}=")))
            {
                out.push(None);
            }
            continue;
        };
        if l == "--" {
            break;
        }
        if let Some(long) = l.strip_prefix("--") {
            let (written, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if written.len() < 2 {
                continue;
            }
            if names
                .iter()
                .filter_map(|n| n.strip_prefix("--"))
                .any(|n| n.starts_with(written))
            {
                match attached {
                    Some(v) => out.push(Some(WordVal::literal(v))),
                    None => {
                        out.push(args.get(k).cloned());
                        k += 1;
                    }
                }
            }
        } else if names
            .iter()
            .any(|n| n.len() == 2 && !n.starts_with("--") && l.starts_with(*n))
        {
            if l.len() > 2 {
                out.push(Some(WordVal::literal(&l[2..])));
            } else {
                out.push(args.get(k).cloned());
                k += 1;
            }
        }
    }
    out
}

/// Whether a flag of `names` (or a prefix of a long one) is given before
/// `--`.
fn has_flag(args: &[WordVal], names: &[&str]) -> bool {
    args.iter()
        .map_while(|w| w.literal.as_deref().filter(|l| *l != "--"))
        .any(|l| {
            names.contains(&l)
                || l.strip_prefix("--").is_some_and(|written| {
                    written.len() >= 2
                        && !written.contains('=')
                        && names
                            .iter()
                            .filter_map(|n| n.strip_prefix("--"))
                            .any(|n| n.starts_with(written))
                })
        })
}

/// The first word that is not an option (`git maintenance register`,
/// `git commit-graph write`).
fn action(args: &[WordVal]) -> Option<&str> {
    args.iter()
        .filter_map(|w| w.literal.as_deref())
        .find(|l| !l.starts_with('-'))
}

impl Analyzer {
    /// The files `git SUB ARGS` writes at paths its words name (see the
    /// module's documentation). Looked at whatever the rules: a path
    /// written may be a protected one.
    pub(super) fn git_named_writes(&mut self, argv: &[WordVal], sub: &str, args: &[WordVal]) {
        if !writes_read(sub) {
            return self.git_unknown_writes(sub, args);
        }
        let writes_each = |a: &mut Analyzer, values: Vec<Option<WordVal>>| {
            for v in values {
                a.git_writes(argv, v.as_ref());
            }
        };
        let dirs_each = |a: &mut Analyzer, values: Vec<Option<WordVal>>| {
            for v in values {
                match v {
                    Some(d) => a.writes_inside(&d),
                    None => a.writes_unknown(
                        argv,
                        "an option that names the directory git writes into has no value",
                    ),
                }
            }
        };
        match sub {
            // `git mailinfo [opts] MSG PATCH`: the message and the patch
            // of the mail read from stdin.
            "mailinfo" => {
                let p = options::parse(args, &spec("", &["--encoding", "--quoted-cr"]));
                for w in p.operands.iter().take(2) {
                    self.git_writes(argv, Some(w));
                }
            }
            // `git mailsplit -oDIR [mbox…]`: 0001, 0002, … in DIR.
            "mailsplit" => dirs_each(self, values_of(args, &["-o"])),
            // `git merge-file CURRENT BASE OTHER`: the result replaces
            // CURRENT, unless printed (`-p`, `--stdout`).
            "merge-file" => {
                let p = options::parse(args, &spec("L", &["--marker-size", "--diff-algorithm"]));
                let printed = p.operands.is_empty()
                    || has_flag(args, &["--stdout"])
                    || args
                        .iter()
                        .map_while(|w| w.literal.as_deref().filter(|l| *l != "--"))
                        .any(|l| {
                            l.starts_with('-')
                                && !l.starts_with("--")
                                && l[1..].chars().take_while(|c| *c != 'L').any(|c| c == 'p')
                        });
                if !printed {
                    self.git_writes(argv, p.operands.first());
                }
            }
            // `--in-place`: each file given is rewritten with its trailers.
            "interpret-trailers" if has_flag(args, &["--in-place"]) => {
                let p = options::parse(
                    args,
                    &spec(
                        "",
                        &[
                            "--trailer",
                            "--where",
                            "--if-exists",
                            "--if-missing",
                            "--separator",
                        ],
                    ),
                );
                for w in &p.operands {
                    self.git_writes(argv, Some(w));
                }
            }
            "fast-export" | "fast-import" => {
                writes_each(
                    self,
                    values_of(args, &["--export-marks", "--export-pack-edges"]),
                );
                if sub == "fast-import" && has_flag(args, &["--allow-unsafe-features"]) {
                    // The stream may then name marks files itself
                    // (`feature export-marks=PATH`).
                    self.writes_unknown(
                        argv,
                        "git fast-import --allow-unsafe-features writes the files its input names",
                    );
                }
            }
            // A repository's git directory elsewhere.
            "init" | "clone" => {
                dirs_each(self, values_of(args, &["--separate-git-dir"]));
                if sub == "init" && !values_of(args, &["--template"]).is_empty() {
                    self.may_run_git(
                        argv,
                        "git init --template installs the template's hooks, which later git commands run",
                    );
                }
            }
            // `write --object-dir DIR`: the graph (or index) in DIR's
            // `info/` and `pack/`.
            "commit-graph" | "multi-pack-index"
                if !matches!(action(args), Some("verify" | "read")) =>
            {
                dirs_each(self, values_of(args, &["--object-dir"]));
            }
            // A zip of diagnostics, in DIR or here.
            "bugreport" | "diagnose" => {
                let dirs = values_of(args, &["-o", "--output-directory"]);
                if dirs.is_empty() {
                    self.writes_inside(&WordVal::literal("."));
                }
                dirs_each(self, dirs);
            }
            "daemon" => writes_each(self, values_of(args, &["--pid-file"])),
            "apply" => {
                writes_each(self, values_of(args, &["--build-fake-ancestor"]));
                if has_flag(args, &["--unsafe-paths"]) {
                    self.writes_unknown(
                        argv,
                        "git apply --unsafe-paths writes where the patch says, outside the work tree too",
                    );
                }
            }
            "read-tree" => writes_each(self, values_of(args, &["--index-output"])),
            // `git index-pack [-o IDX] PACK`: IDX (or PACK's `.idx`, with
            // its `.rev` and `.keep`); with `--stdin`, PACK itself.
            "index-pack" => {
                let p = options::parse(
                    args,
                    &spec(
                        "o",
                        &[
                            "--keep",
                            "--threads",
                            "--max-input-size",
                            "--promisor",
                            "--object-format",
                        ],
                    ),
                );
                let idx = values_of(args, &["-o"]);
                let stdin = has_flag(args, &["--stdin"]);
                for pack in &p.operands {
                    if stdin {
                        self.git_writes(argv, Some(pack));
                    }
                    if let Some(l) = pack.literal.as_deref() {
                        let base = l.strip_suffix(".pack").unwrap_or(l);
                        for ext in ["idx", "rev", "keep", "promisor"] {
                            if ext == "idx" && !idx.is_empty() {
                                continue;
                            }
                            self.git_writes(
                                argv,
                                Some(&WordVal::literal(&format!("{base}.{ext}"))),
                            );
                        }
                    } else {
                        self.writes_unknown(
                            argv,
                            "the pack git index-pack writes beside is computed at run time",
                        );
                    }
                }
                writes_each(self, idx);
            }
            // `git pack-objects BASE`: BASE-<hash>.pack, .idx, .rev.
            "pack-objects" if !has_flag(args, &["--stdout"]) => {
                let p = options::parse(
                    args,
                    &spec(
                        "",
                        &[
                            "--window",
                            "--depth",
                            "--window-memory",
                            "--max-pack-size",
                            "--threads",
                            "--compression",
                            "--filter",
                            "--missing",
                            "--keep-pack",
                            "--unpack-unreachable",
                            "--cruft-expiration",
                            "--index-version",
                            "--path-walk",
                            "--uri-protocol",
                            "--name-hash-version",
                        ],
                    ),
                );
                for base in p.operands.iter().take(1) {
                    match base.literal.as_deref() {
                        Some(l) => {
                            let dir = match l.rsplit_once('/') {
                                Some(("", _)) => "/",
                                Some((d, _)) => d,
                                None => ".",
                            };
                            self.writes_inside(&WordVal {
                                tilde: base.tilde,
                                ..WordVal::literal(dir)
                            });
                        }
                        None => self.writes_unknown(
                            argv,
                            "the packs git pack-objects writes are named at run time",
                        ),
                    }
                }
            }
            // `.merge_file_XXXXXX` here.
            "unpack-file" => self.writes_inside(&WordVal::literal(".")),
            "filter-branch" => dirs_each(self, values_of(args, &["-d"])),
            "worktree" => {
                let p = options::parse(args, &spec("", &["--reason", "--expire"]));
                let words: Vec<&WordVal> = p.operands.iter().collect();
                // `move`: the work tree to its new place; `remove`: its
                // files; `repair`: a `.git` file in each work tree named.
                if matches!(
                    words.first().and_then(|w| w.literal.as_deref()),
                    Some("move" | "remove" | "repair")
                ) {
                    for w in words.iter().skip(1) {
                        self.writes_inside(w);
                    }
                }
            }
            // `register`/`unregister` change the user's configuration (or
            // `--config-file FILE`); `start`/`stop` also the scheduler's
            // files (crontab, systemd timers, launchd).
            "maintenance" => {
                let act = action(args);
                if matches!(act, Some("register" | "unregister" | "start" | "stop")) {
                    let files = values_of(args, &["--config-file"]);
                    if files.is_empty() {
                        self.git_writes(
                            argv,
                            Some(&WordVal {
                                tilde: true,
                                ..WordVal::literal("~/.gitconfig")
                            }),
                        );
                    }
                    writes_each(self, files);
                }
                if matches!(act, Some("start" | "stop")) {
                    self.writes_unknown(
                        argv,
                        "git maintenance start/stop writes the scheduler's files (crontab, systemd timers, launchd agents)",
                    );
                }
            }
            // `store`/`erase` write the credentials file.
            "credential-store" if matches!(action(args), Some("store" | "erase")) => {
                let files = values_of(args, &["--file"]);
                if files.is_empty() {
                    for f in ["~/.git-credentials", "~/.config/git/credentials"] {
                        self.git_writes(
                            argv,
                            Some(&WordVal {
                                tilde: true,
                                ..WordVal::literal(f)
                            }),
                        );
                    }
                }
                writes_each(self, files);
            }
            // `git merge-index PROGRAM (-a | FILE…)`: PROGRAM runs on each.
            "merge-index" => {
                let program = args
                    .iter()
                    .find(|w| !w.literal.as_deref().is_some_and(|l| l.starts_with('-')));
                match program {
                    Some(p) if p.literal.is_some() => {
                        let p = p.clone();
                        self.outer.push(self.text(argv));
                        self.argv(vec![p]);
                        self.outer.pop();
                    }
                    _ => self
                        .may_run_git(argv, "git merge-index runs a program computed at run time"),
                }
            }
            // `git for-each-repo --config=KEY ARGS…`: `git ARGS` in each
            // repository the key lists, wherever they are.
            "for-each-repo" => {
                let rest: Vec<WordVal> = args
                    .iter()
                    .skip_while(|w| {
                        w.literal
                            .as_deref()
                            .is_some_and(|l| l.starts_with("--config") || l == "--keep-going")
                    })
                    .skip_while(|w| w.literal.as_deref() == Some("--"))
                    .cloned()
                    .collect();
                if !rest.is_empty() {
                    let saved = std::mem::replace(&mut self.cwds, Cwds::Unknown);
                    let mut as_git = vec![WordVal::literal("git")];
                    as_git.extend(rest);
                    self.outer.push(self.text(argv));
                    self.argv(as_git);
                    self.outer.pop();
                    self.cwds = saved;
                }
            }
            _ => {}
        }
    }

    /// A subcommand not known to write nothing: every path it names may be
    /// changed (the words it is given, and the values attached to its
    /// options).
    fn git_unknown_writes(&mut self, sub: &str, args: &[WordVal]) {
        for w in args {
            if self.is_full() {
                return;
            }
            let Some(l) = w.literal.as_deref() else {
                self.uncertain(
                    UncertainKind::Touch(Family::MaybeEdit),
                    &w.raw,
                    format!(
                        "a file given to `git {sub}`, which tack does not know to leave it alone, is named only at run time"
                    ),
                );
                continue;
            };
            if l == "--" || l.is_empty() || l.contains("://") {
                continue;
            }
            if l.starts_with('-') {
                self.attached_reads(l, true);
                continue;
            }
            // A directory named (`git svn clone URL .`) may have anything
            // in it changed.
            match self.resolve_word_path(l, w.tilde, w.glob) {
                Ok(paths) => {
                    for path in paths {
                        let recursive = path.canonical.is_dir();
                        self.push(super::Item::Touch {
                            family: Family::MaybeEdit,
                            written: l.to_string(),
                            path,
                            recursive,
                        });
                    }
                }
                Err(reason) => self.uncertain(UncertainKind::Touch(Family::MaybeEdit), l, reason),
            }
        }
    }
}
