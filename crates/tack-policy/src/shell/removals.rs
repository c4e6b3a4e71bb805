//! What a file-changing command changes, for the safeguards of
//! [`crate::safeguard`]: the operands it writes ([`Item::Written`]: `cp`'s
//! destination, not its sources) and what `rm`/`rmdir` remove
//! ([`Item::Removal`], a pattern kept as "everything in" its directory).

use std::path::{Path, PathBuf};

use super::options::{self, Spec};
use super::{Analyzer, Family, Item, UncertainKind, WordVal};
use crate::safeguard::Removed;

/// Entries looked at in a tree copied or moved before its walk gives up.
const MAX_TREE_ENTRIES: usize = 20_000;
/// How deep that walk goes.
const MAX_TREE_DEPTH: usize = 32;

/// Commands whose last operand (or `-t DIR`) is the one written; the
/// others are only read.
const DESTINATION_ONLY: &[&str] = &["cp", "install", "rsync", "ln"];

/// Which operands of `argv` (indices into it) `base` writes, when it writes
/// only some: `cp a b dest` writes `dest`, `dd if=x of=y` writes `of=y`.
/// `None`: every operand.
pub(super) fn written_operands(base: &str, argv: &[WordVal]) -> Option<Vec<usize>> {
    if base == "dd" {
        return Some(
            argv.iter()
                .enumerate()
                .skip(1)
                .filter(|(_, w)| w.literal.as_deref().is_some_and(|l| l.starts_with("of=")))
                .map(|(i, _)| i)
                .collect(),
        );
    }
    if !DESTINATION_ONLY.contains(&base) || hard_links(base, argv) {
        // A hard link is the file itself under another name: writing
        // through it writes the file.
        return None;
    }
    let mut last = None;
    let mut options_done = false;
    let mut i = 1;
    while i < argv.len() {
        match argv[i].literal.as_deref() {
            Some("--") if !options_done => options_done = true,
            Some("-t") if !options_done => return Some(vec![i + 1]),
            Some(l) if !options_done && l.starts_with("--target-directory=") => {
                return Some(vec![i]);
            }
            Some(l) if !options_done && l.starts_with('-') && l.len() > 1 => {}
            _ => last = Some(i),
        }
        i += 1;
    }
    Some(last.into_iter().collect())
}

/// `ln` without `-s`, `cp -l`/`--link`: the new names are the files
/// themselves.
fn hard_links(base: &str, argv: &[WordVal]) -> bool {
    let flag = |short: char, long: &str| {
        argv.iter().skip(1).any(|w| {
            w.literal.as_deref().is_some_and(|l| {
                l == long || (l.starts_with('-') && !l.starts_with("--") && l.contains(short))
            })
        })
    };
    match base {
        "ln" => !flag('s', "--symbolic"),
        "cp" => flag('l', "--link"),
        _ => false,
    }
}

/// The sources of `cp`, `mv`, `install`, `rsync` or `ln` and the
/// directory they go into, when the destination is one (it exists as a
/// directory, or is written with a trailing slash): `cp -r x/.git .`
/// writes `./.git`.
pub(super) fn into_directory(base: &str, argv: &[WordVal]) -> Option<(Vec<String>, String)> {
    if !(DESTINATION_ONLY.contains(&base) || base == "mv") {
        return None;
    }
    let mut operands: Vec<&str> = Vec::new();
    let mut target = None;
    let mut options_done = false;
    let mut i = 1;
    while i < argv.len() {
        let lit = argv[i].literal.as_deref()?;
        match lit {
            "--" if !options_done => options_done = true,
            "-t" if !options_done => {
                target = Some(argv.get(i + 1)?.literal.clone()?);
                i += 1;
            }
            l if !options_done && l.starts_with("--target-directory=") => {
                target = Some(l["--target-directory=".len()..].to_owned());
            }
            l if !options_done && l.starts_with('-') && l.len() > 1 => {}
            l => operands.push(l),
        }
        i += 1;
    }
    let (sources, dir) = match target {
        Some(dir) => (operands, dir),
        None => {
            let dir = operands.pop()?;
            (operands, dir.to_owned())
        }
    };
    let names = sources
        .iter()
        .filter_map(|s| {
            let name = std::path::Path::new(s.trim_end_matches('/')).file_name()?;
            // `rsync -a src/ dest`: the contents, not the directory.
            (!(base == "rsync" && s.ends_with('/'))).then(|| name.to_string_lossy().into_owned())
        })
        .collect::<Vec<_>>();
    (!names.is_empty()).then_some((names, dir))
}

/// The entries of `dir` whose names are protected (none when it cannot be
/// read).
fn protected_entries(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| crate::safeguard::protected(&dir.join(n)).is_some())
        .collect()
}

/// Whether a pattern's last component can match every name in its
/// directory: no letter or digit of its own (`*`, `.*`, `.[!.]*`, `?*`).
fn matches_everything(component: &str) -> bool {
    component.contains(['*', '?', '['])
        && !component.chars().any(|c| c.is_alphanumeric() || c == '_')
}

/// `$X/`, `"$X"/*`, `${X}/.*`: a pattern or a trailing slash right under a
/// variable (quotes aside).
fn under_variable(raw: &str) -> bool {
    let unquoted: String = raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let Some(rest) = unquoted.strip_prefix('$') else {
        return false;
    };
    let after = if let Some(braced) = rest.strip_prefix('{') {
        match braced.find('}') {
            Some(end) => &braced[end + 1..],
            None => return false,
        }
    } else {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            return false;
        }
        &rest[end..]
    };
    match after.strip_prefix('/') {
        Some(tail) => tail.is_empty() || matches_everything(tail.trim_end_matches('/')),
        None => false,
    }
}

/// `$HOME`, `"${HOME}"`, `$HOME/`: the home directory, named by its variable.
fn is_home_variable(raw: &str) -> bool {
    let unquoted: String = raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    let unquoted = unquoted.trim_end_matches('/');
    unquoted == "$HOME" || unquoted == "${HOME}"
}

/// A recursive copy or a move (`cp -r`, `rsync -a`, `mv`) read from its
/// command line: the source operands as written, the destination, and
/// whether the destination is taken as a directory to go into when it is
/// one (not `-T`).
struct TreeCopy {
    sources: Vec<WordVal>,
    dest: WordVal,
    into: bool,
    /// `-t DIR`, or rsync (which makes a directory of its destination):
    /// the sources go into the destination whether or not it exists.
    always_into: bool,
    rsync: bool,
    /// `mv`, `rsync --remove-source-files`: the sources go away.
    moves: bool,
    /// `cp -al`/`--link`: the copy's files are the sources' files, so a
    /// write through the copy changes a source.
    links: bool,
    /// rsync's `--link-dest=DIR` (relative to the destination): the
    /// files of DIR the copy links to.
    link_dests: Vec<WordVal>,
}

/// `cp -r`/`-a`, `rsync -r`/`-a` and `mv` read as a [`TreeCopy`]; `None`
/// for anything else, a copy that is not recursive, a word computed at run
/// time or a remote operand (those are judged elsewhere).
fn tree_copy(base: &str, argv: &[WordVal]) -> Option<TreeCopy> {
    let spec = match base {
        "cp" | "mv" => Spec {
            flags: "rRaTl",
            with_arg: "tS",
            long_flags: &[
                "--recursive",
                "--archive",
                "--no-target-directory",
                "--link",
            ],
            long_with_arg: &["--target-directory", "--suffix"],
            ..Spec::default()
        },
        "rsync" => Spec {
            flags: "ra",
            long_flags: &["--recursive", "--archive", "--remove-source-files"],
            ..super::programs::RSYNC
        },
        _ => return None,
    };
    let p = options::parse(argv.get(1..)?, &spec);
    let recursive = base == "mv" || p.has(&["-r", "-R", "-a", "--recursive", "--archive"]);
    if !recursive || p.dynamic {
        return None;
    }
    let mut operands = p
        .operands
        .iter()
        .map(|w| w.literal.is_some().then(|| w.clone()))
        .collect::<Option<Vec<WordVal>>>()?;
    if base == "rsync"
        && operands
            .iter()
            .any(|o| o.literal.as_deref().is_some_and(is_remote))
    {
        return None;
    }
    let target = p
        .values(&["-t", "--target-directory"])
        .last()
        .map(|v| v.and_then(|w| w.literal.clone()));
    let target_given = target.is_some();
    let dest = match target {
        Some(dir) => WordVal::literal(&dir?),
        None => operands.pop()?,
    };
    (!operands.is_empty()).then(|| TreeCopy {
        sources: operands,
        dest,
        into: base == "rsync" || !p.has(&["-T", "--no-target-directory"]),
        always_into: base == "rsync" || target_given,
        rsync: base == "rsync",
        moves: base == "mv" || p.has(&["--remove-source-files"]),
        links: base == "cp" && p.has(&["-l", "--link"]),
        link_dests: if base == "rsync" {
            p.values(&["--link-dest"])
                .map(|v| v.cloned().unwrap_or_else(|| WordVal::literal("")))
                .collect()
        } else {
            Vec::new()
        },
    })
}

/// `host:path`, `user@host:path`, `rsync://…`: not a local path.
fn is_remote(operand: &str) -> bool {
    match operand.find(':') {
        Some(colon) => !operand[..colon].contains('/'),
        None => false,
    }
}

/// The name a source takes in the destination directory: its last
/// component; none for `dir/.` or a trailing slash given to rsync (the
/// contents go into the directory itself).
fn name_in_destination(source: &str, rsync: bool) -> Option<&str> {
    if rsync && source.ends_with('/') {
        return None;
    }
    let last = source.trim_end_matches('/').rsplit('/').next()?;
    (!matches!(last, "" | "." | "..")).then_some(last)
}

/// The paths under `root` (relative, as components joined by `/`) whose
/// own names are protected wherever they are placed under `landed`, found
/// without following links; `None` when the tree is too large to look
/// through (then what was found so far, and `false`).
fn protected_in_tree(root: &Path, landed: &Path) -> (Vec<String>, bool) {
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut stack: Vec<(PathBuf, String, usize)> = vec![(root.to_path_buf(), String::new(), 0)];
    while let Some((dir, rel, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_TREE_ENTRIES || depth > MAX_TREE_DEPTH {
                return (found, false);
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if crate::safeguard::protected(&landed.join(&rel)).is_some() {
                found.push(rel);
            } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push((entry.path(), rel, depth + 1));
            }
        }
    }
    (found, true)
}

impl Analyzer {
    /// What a recursive copy or a move changes beyond the paths it names.
    /// A move of a directory changes everything in it: a path a rule
    /// speaks for inside (`mv src src2` beside `deny Edit(./src/locked/**)`)
    /// is then written, or read, under a name no rule knows. A tree copied
    /// or moved into a directory writes, under the destination, every name
    /// the tree holds (`cp -r tmpd/. src/` writes `src/locked/a.rs`;
    /// `cp -r nested/. .` writes `./.git/config`): where the tree lands is
    /// checked as changed inside against the Edit deny and ask rules, and
    /// each protected name in it (looked for in the tree as it is now) as a
    /// write of a protected path. A tree that is not there yet (made
    /// earlier in the same command) cannot be looked through: its landing
    /// directory's protected entries are taken as written.
    fn trees_moved_or_copied(&mut self, base: &str, argv: &[WordVal]) {
        let Some(copy) = tree_copy(base, argv) else {
            return;
        };
        let fs = self.resolver.uses_file_system();
        let dest = copy.dest.literal.clone().unwrap_or_default();
        self.link_dests(&copy, &dest);
        let Ok(dests) = self.resolve_word_path(&dest, copy.dest.tilde, false) else {
            return;
        };
        for word in &copy.sources {
            let Some(source) = word.literal.as_deref() else {
                continue;
            };
            let Ok(paths) = self.resolve_word_path(source, word.tilde, word.glob) else {
                continue;
            };
            // A pattern may name several sources: they go into the
            // destination, each under its own name.
            let several = copy.sources.len() > 1 || word.glob;
            for s in paths {
                let exists = fs && std::fs::metadata(&s.canonical).is_ok();
                let is_dir = fs && std::fs::metadata(&s.canonical).is_ok_and(|m| m.is_dir());
                if exists && !is_dir {
                    // A file: its destination is checked as written (and,
                    // moved, the file itself as an operand changed).
                    continue;
                }
                let shown = if word.glob {
                    s.lexical.display().to_string()
                } else {
                    source.to_owned()
                };
                if copy.links && is_dir {
                    // `cp -al src docs/x`: every file of `src` is written
                    // by what writes into `docs/x`.
                    self.linked_out(&s, &shown);
                }
                if copy.moves && is_dir && !self.is_relinked(&s) {
                    self.changes_inside(&WordVal::literal(&shown));
                    self.push(Item::Touch {
                        family: Family::Read,
                        written: shown.clone(),
                        path: s.clone(),
                        recursive: true,
                    });
                }
                let name = if word.glob {
                    s.lexical
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                } else {
                    name_in_destination(source, copy.rsync).map(str::to_owned)
                };
                for d in &dests {
                    let dest_is_dir =
                        fs && std::fs::metadata(&d.canonical).is_ok_and(|m| m.is_dir());
                    let landed = match &name {
                        Some(name) if copy.into && (dest_is_dir || copy.always_into || several) => {
                            format!("{}/{name}", dest.trim_end_matches('/'))
                        }
                        _ => dest.clone(),
                    };
                    let Ok(landings) = self.resolve_word_path(&landed, copy.dest.tilde, false)
                    else {
                        continue;
                    };
                    for l in landings {
                        self.tree_landed(&s, &landed, &l, is_dir);
                    }
                }
            }
        }
    }

    /// The directories rsync's `--link-dest` names (relative to the
    /// destination): the copy links to their files, as `cp -al` does.
    fn link_dests(&mut self, copy: &TreeCopy, dest: &str) {
        for dir in &copy.link_dests {
            let Some(lit) = dir.literal.as_deref().filter(|l| !l.is_empty()) else {
                self.uncertain(
                    UncertainKind::Edit,
                    &dir.raw,
                    "the files rsync links to (--link-dest) are named only at run time",
                );
                continue;
            };
            let written = if lit.starts_with('/') || dir.tilde {
                lit.to_owned()
            } else {
                format!("{}/{lit}", dest.trim_end_matches('/'))
            };
            if let Ok(paths) = self.resolve_word_path(&written, dir.tilde, false) {
                for p in paths {
                    self.linked_out(&p, &written);
                }
            }
        }
    }

    /// A tree whose files get a second name (`cp -al`, `rsync
    /// --link-dest`, `pax -rwl`): a write under the new name changes them,
    /// so what it holds is changed inside (for the Edit deny and ask
    /// rules) and each protected name in it written.
    pub(super) fn linked_out(&mut self, tree: &crate::paths::ResolvedPath, written: &str) {
        if self.is_relinked(tree) {
            return self.uncertain(
                UncertainKind::Edit,
                written,
                "an earlier command may have replaced part of this path by a link",
            );
        }
        let is_dir = self.resolver.uses_file_system() && tree.canonical.is_dir();
        self.tree_landed(tree, written, tree, is_dir);
    }

    /// A tree (`source`, a directory when `is_dir`, else not there yet)
    /// placed at `landed` (written as `written`).
    fn tree_landed(
        &mut self,
        source: &crate::paths::ResolvedPath,
        written: &str,
        landed: &crate::paths::ResolvedPath,
        is_dir: bool,
    ) {
        self.push(Item::EditInside {
            written: written.to_owned(),
            path: landed.clone(),
            restrict_only: true,
        });
        if !self.resolver.uses_file_system() {
            return;
        }
        if crate::safeguard::protected(&landed.lexical).is_some() {
            // Protected itself (`cp -r x/.git .`): one write says it.
            return self.push(Item::Written {
                written: written.to_owned(),
                path: landed.clone(),
            });
        }
        let (mut names, complete) = if is_dir && !self.is_relinked(source) {
            protected_in_tree(&source.canonical, &landed.lexical)
        } else {
            (Vec::new(), false)
        };
        if !complete {
            // Not there yet, or too large to look through: what the
            // destination holds that is protected may be overwritten.
            names.extend(protected_entries(&landed.canonical));
        }
        for name in names {
            let inside = format!("{}/{name}", written.trim_end_matches('/'));
            if let Ok(paths) = self.resolve_word_path(&inside, false, false) {
                for path in paths {
                    self.push(Item::Written {
                        written: inside.clone(),
                        path,
                    });
                }
            }
        }
    }

    /// What `cp`/`mv`/… write inside a destination directory: each
    /// source's name there ([`into_directory`]).
    pub(super) fn written_into_directory(&mut self, base: &str, argv: &[WordVal]) {
        self.trees_moved_or_copied(base, argv);
        let Some((names, dir)) = into_directory(base, argv) else {
            return;
        };
        let tilde = dir.starts_with('~');
        let Ok(dirs) = self.resolve_word_path(&dir, tilde, false) else {
            return;
        };
        for d in dirs {
            let is_dir = dir.ends_with('/')
                || (self.resolver.uses_file_system()
                    && std::fs::metadata(&d.canonical).is_ok_and(|m| m.is_dir()));
            if !is_dir {
                continue;
            }
            for name in &names {
                let written = format!("{}/{name}", dir.trim_end_matches('/'));
                if let Ok(paths) = self.resolve_word_path(&written, tilde, false) {
                    for path in paths {
                        self.push(Item::Written {
                            written: written.clone(),
                            path,
                        });
                    }
                }
            }
        }
    }

    /// An operand of `rm`/`rmdir`: what it removes, for the critical
    /// removals (a word computed at run time only when it is a pattern or
    /// slash right under a variable, or the home directory's variable).
    pub(super) fn removal(&mut self, w: &WordVal) {
        let Some(lit) = &w.literal else {
            if under_variable(&w.raw) {
                self.push(Item::Removal {
                    written: w.raw.clone(),
                    removed: Removed::UnderVariable,
                });
            } else if is_home_variable(&w.raw)
                && let Some(home) = self.home.clone()
                && let Ok(path) = self.resolver.resolve(&home, std::path::Path::new("/"))
            {
                self.push(Item::Removal {
                    written: w.raw.clone(),
                    removed: Removed::Path(path),
                });
            }
            return;
        };
        if lit.is_empty() {
            return;
        }
        let (word, everything) = if w.glob {
            let trimmed = lit.trim_end_matches('/');
            let (dir, last) = match trimmed.rfind('/') {
                Some(0) => ("/", &trimmed[1..]),
                Some(k) => (&trimmed[..k], &trimmed[k + 1..]),
                None => (".", trimmed),
            };
            if !matches_everything(last) || dir.contains(['*', '?', '[']) {
                return;
            }
            (dir.to_owned(), true)
        } else {
            (lit.clone(), false)
        };
        let tilde = w.tilde && word.starts_with('~');
        let Ok(paths) = self.resolve_word_path(&word, tilde, false) else {
            return;
        };
        for path in paths {
            self.push(Item::Removal {
                written: lit.clone(),
                removed: if everything {
                    Removed::Everything(path)
                } else {
                    Removed::Path(path)
                },
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_that_match_everything() {
        for p in ["*", ".*", ".[!.]*", "?*", "*.*"] {
            assert!(matches_everything(p), "{p}");
        }
        for p in ["*.o", "build*", "x", "[a-z]*"] {
            assert!(!matches_everything(p), "{p}");
        }
    }

    #[test]
    fn slashes_and_patterns_under_a_variable() {
        for raw in [
            "$D/",
            "\"$D\"/*",
            "\"$D/\"",
            "${D}/*",
            "\"${D:-}\"/.*",
            "$D/*/",
        ] {
            assert!(under_variable(raw), "{raw}");
        }
        for raw in ["$D", "\"$D\"/build", "$D/*.o", "x/$D/", "$/"] {
            assert!(!under_variable(raw), "{raw}");
        }
    }
}
