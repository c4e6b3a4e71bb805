//! Whether a call a person is asked about may destroy data: the prompt warns
//! only then, so the warning means something when it shows.
//!
//! A tool's annotations say what the tool can do at worst (Bash, Write and
//! Edit are all `destructive`); a prompt is about one call. So for tack's own
//! tools the call decides: a Bash command whose parts remove, overwrite or
//! force (rm, dd, `git reset --hard`, a redirect onto an existing file…),
//! a Write onto an existing file; never an Edit (it replaces the text it
//! names, which the prompt shows). Any other tool (MCP, an embedder's) is
//! taken at its word: destructive when it says so and is not read-only.

use std::path::Path;

use tack_policy::Decision;
use tack_tool::RegisteredTool;

/// Programs that delete, overwrite or kill whatever their arguments name.
const DESTROYING_PROGRAMS: &[&str] = &[
    "rm", "rmdir", "unlink", "shred", "dd", "truncate", "mkfs", "wipefs", "fdisk", "mv", "kill",
    "pkill", "killall", "crontab",
];

/// `program subcommand` pairs (and flags) that destroy: the rest of those
/// programs' uses do not.
const DESTROYING_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "reset --hard",
            "clean",
            "push --force",
            "push -f",
            "push --delete",
            "branch -D",
            "stash drop",
            "stash clear",
            "checkout --",
            "restore",
            "rm",
            "filter-branch",
            "update-ref -d",
            "reflog expire",
            "gc --prune",
        ],
    ),
    ("find", &["-delete", "-exec rm"]),
    (
        "docker",
        &["rm", "rmi", "system prune", "volume rm", "volume prune"],
    ),
    ("kubectl", &["delete"]),
    ("terraform", &["destroy"]),
    ("npm", &["unpublish"]),
    ("cargo", &["clean"]),
];

/// Words that run the next word as the program.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "command", "exec", "nice", "nohup", "time", "timeout", "xargs",
];

/// Whether the asked-about call may destroy data (see the module docs).
pub(crate) fn destroys(tool: &RegisteredTool, decision: &Decision) -> bool {
    let annotations = tool.tool.annotations();
    if !annotations.destructive || annotations.read_only {
        return false;
    }
    let why = decision.why();
    match tool.tool.name() {
        "Bash" => std::iter::once(why.subject.as_str())
            .chain(why.parts.iter().map(|p| p.subject.as_str()))
            .any(destroying_part),
        "Write" => inside("Write", &why.subject).is_some_and(|p| Path::new(p).exists()),
        "Edit" | "MultiEdit" | "NotebookEdit" => false,
        _ => true,
    }
}

/// `Tool(inside)` → `inside`.
fn inside<'a>(tool: &str, subject: &'a str) -> Option<&'a str> {
    subject
        .strip_prefix(tool)?
        .strip_prefix('(')?
        .strip_suffix(')')
}

/// One part of a Bash command, as the policy names it: `Bash(rm -rf y)` or
/// `Edit(/abs/file)` (a file the command writes: destroying when it exists).
fn destroying_part(subject: &str) -> bool {
    if let Some(path) = inside("Edit", subject) {
        return Path::new(path).exists();
    }
    inside("Bash", subject).is_some_and(destroying_command)
}

fn destroying_command(command: &str) -> bool {
    // A compound command's subject names it whole: look at each piece.
    command
        .split(['|', ';', '&', '\n', '(', ')'])
        .any(|piece| destroying_simple_command(piece.trim()))
}

fn destroying_simple_command(command: &str) -> bool {
    let mut words = command
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .skip_while(|w| WRAPPERS.contains(w) || w.starts_with('-') || w.parse::<f64>().is_ok());
    let Some(program) = words.next() else {
        return false;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    if DESTROYING_PROGRAMS.contains(&program) || program.starts_with("mkfs.") {
        return true;
    }
    let rest: Vec<&str> = words.collect();
    let rest = rest.join(" ");
    DESTROYING_SUBCOMMANDS
        .iter()
        .filter(|(p, _)| *p == program)
        .flat_map(|(_, subs)| subs.iter())
        .any(|sub| {
            let pattern: Vec<&str> = sub.split(' ').collect();
            contains_words(&rest, &pattern)
        })
}

/// Whether `text`'s words hold `pattern`'s in order: the first anywhere, the
/// others right after it (`push origin --force` holds `push --force` too:
/// flags may come after the operands).
fn contains_words(text: &str, pattern: &[&str]) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some(first) = words.iter().position(|w| *w == pattern[0]) else {
        return false;
    };
    pattern[1..]
        .iter()
        .all(|p| words[first + 1..].iter().any(|w| w == p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_that_destroy_and_commands_that_do_not() {
        for yes in [
            "rm -rf build",
            "sudo rm x",
            "FOO=1 /bin/rm x",
            "ls && rm x",
            "git reset --hard HEAD~1",
            "git push origin main --force",
            "git clean -fdx",
            "find . -name '*.o' -delete",
            "timeout 5 kill 123",
            "mkfs.ext4 /dev/sdb1",
            "kubectl delete pod x",
        ] {
            assert!(destroying_command(yes), "{yes}");
        }
        for no in [
            "ls -la",
            "git status",
            "git push origin main",
            "cargo test",
            "echo rm",
            "grep -r rm src",
            "find . -name '*.rs'",
            "docker ps",
            "",
        ] {
            assert!(!destroying_command(no), "{no}");
        }
    }

    #[test]
    fn a_written_file_destroys_only_when_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let there = dir.path().join("there.txt");
        std::fs::write(&there, "x").unwrap();
        assert!(destroying_part(&format!("Edit({})", there.display())));
        let new = dir.path().join("new.txt");
        assert!(!destroying_part(&format!("Edit({})", new.display())));
        assert!(destroying_part("Bash(rm -f there.txt)"));
        assert!(!destroying_part("Bash(cat there.txt)"));
    }
}
