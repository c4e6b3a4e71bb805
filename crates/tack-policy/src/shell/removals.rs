//! What a file-changing command changes, for the safeguards of
//! [`crate::safeguard`]: the operands it writes ([`Item::Written`]: `cp`'s
//! destination, not its sources) and what `rm`/`rmdir` remove
//! ([`Item::Removal`], a pattern kept as "everything in" its directory).

use super::{Analyzer, Item, WordVal};
use crate::safeguard::Removed;

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

impl Analyzer {
    /// What `cp`/`mv`/… write inside a destination directory: each
    /// source's name there ([`into_directory`]).
    pub(super) fn written_into_directory(&mut self, base: &str, argv: &[WordVal]) {
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
