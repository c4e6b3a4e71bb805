//! What a submitted line means: a prompt (with the `@path`s it attaches),
//! `!command`, or a slash command; and Tab completion of command names and
//! paths. Pure functions, tested without a terminal.

use std::path::Path;

use crate::worker::SkillCommand;

/// The built-in slash commands, with what each does (for `/help` and
/// completion).
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "/compact",
        "summarise the conversation to free context (text after it: what to keep)",
    ),
    ("/clear", "end this session and start a new one"),
    (
        "/resume",
        "continue a saved session of this project (a list, or /resume ID)",
    ),
    ("/model", "show the model, or switch: /model NAME"),
    (
        "/permissions",
        "the mode and rules; explain CALL, allow|ask|deny RULE, remove RULE",
    ),
    (
        "/tools",
        "the session's tools and what their definitions cost per request",
    ),
    ("/skills", "the skills found, and which are /commands"),
    ("/mcp", "MCP servers and their state; /mcp approve NAME"),
    ("/cost", "tokens, cache reads and cost of this session"),
    ("/log", "the audit trail of this session's tool calls"),
    ("/help", "this list"),
    ("/exit", "end the session (so do Ctrl-D, and Ctrl-C twice)"),
];

/// `/permissions …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permissions {
    /// The mode and the rules in force.
    Show,
    /// What the rules say about a call: `explain Bash(git push)`.
    Explain(String),
    /// `allow|ask|deny RULE`: added to the local settings.
    Add(tack_protocol::Verdict, String),
    /// `remove RULE`: taken out of the local settings.
    Remove(String),
    /// Not one of those: what to say.
    Usage(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Prompt {
        text: String,
        attach: Vec<String>,
    },
    Shell(String),
    Skill {
        name: String,
        args: String,
    },
    Compact(Option<String>),
    Clear,
    Resume(Option<String>),
    Model(Option<String>),
    Permissions(Permissions),
    Tools,
    Skills,
    /// `/mcp`, or `/mcp approve NAME`.
    Mcp(Option<String>),
    Cost,
    Log,
    Help,
    Exit,
    /// Not a command: what to say (with the closest name).
    Unknown(String),
}

/// Reads a submitted line. `skills`: the user-invocable skills' names.
pub fn parse(text: &str, skills: &[String]) -> Command {
    let trimmed = text.trim();
    if let Some(command) = trimmed.strip_prefix('!') {
        return Command::Shell(command.trim().to_owned());
    }
    let Some(rest) = trimmed.strip_prefix('/') else {
        return Command::Prompt {
            text: text.to_owned(),
            attach: attachments(text),
        };
    };
    // `/path/to/file explain this` is a prompt, not a command.
    let (name, args) = match rest.split_once(char::is_whitespace) {
        Some((name, args)) => (name, args.trim()),
        None => (rest, ""),
    };
    if name.contains('/') || name.is_empty() {
        return Command::Prompt {
            text: text.to_owned(),
            attach: attachments(text),
        };
    }
    let arg = (!args.is_empty()).then(|| args.to_owned());
    match name {
        "compact" => Command::Compact(arg),
        "clear" | "new" => Command::Clear,
        "resume" => Command::Resume(arg),
        "model" => Command::Model(arg),
        "permissions" => Command::Permissions(permissions(args)),
        "tools" => Command::Tools,
        "skills" => Command::Skills,
        "mcp" => Command::Mcp(
            args.strip_prefix("approve")
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
        ),
        "cost" => Command::Cost,
        "log" => Command::Log,
        "help" | "?" => Command::Help,
        "exit" | "quit" => Command::Exit,
        _ if skills.iter().any(|s| s == name) => Command::Skill {
            name: name.to_owned(),
            args: args.to_owned(),
        },
        _ => {
            let names = COMMANDS
                .iter()
                .map(|(c, _)| c.trim_start_matches('/').to_owned())
                .chain(skills.iter().cloned());
            let closest = names
                .map(|n| (strsim::damerau_levenshtein(name, &n), n))
                .filter(|(d, n)| *d <= 2.max(n.len() / 3))
                .min_by_key(|(d, _)| *d);
            Command::Unknown(match closest {
                Some((_, n)) => {
                    format!("unknown command /{name}; did you mean /{n}? (/help lists them)")
                }
                None => format!("unknown command /{name} (/help lists them)"),
            })
        }
    }
}

fn permissions(args: &str) -> Permissions {
    use tack_protocol::Verdict;
    let (word, rest) = match args.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim().to_owned()),
        None => (args, String::new()),
    };
    match (word, rest.is_empty()) {
        ("", _) => Permissions::Show,
        ("explain", false) => Permissions::Explain(rest),
        ("allow", false) => Permissions::Add(Verdict::Allow, rest),
        ("ask", false) => Permissions::Add(Verdict::Ask, rest),
        ("deny", false) => Permissions::Add(Verdict::Deny, rest),
        ("remove", false) => Permissions::Remove(rest),
        _ => Permissions::Usage(
            "/permissions [explain CALL | allow RULE | ask RULE | deny RULE | remove RULE], e.g. /permissions allow Bash(cargo test *)".into(),
        ),
    }
}

/// The `@path`s of a prompt: an `@` at the start of a word, then the path
/// to the next space, or `@"a path with spaces"` in quotes. Trailing
/// punctuation of an unquoted path is not part of it.
pub fn attachments(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        let starts_word = rest[..at]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        let after = &rest[at + 1..];
        if !starts_word {
            rest = after;
            continue;
        }
        let (path, next) = match after.strip_prefix('"') {
            Some(quoted) => match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            },
            None => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                let word =
                    after[..end].trim_end_matches([',', '.', ';', ':', ')', '?', '!', '"', '\'']);
                (word, &after[end..])
            }
        };
        if !path.is_empty() && !found.iter().any(|f| f == path) {
            found.push(path.to_owned());
        }
        rest = next;
    }
    found
}

pub enum Completion {
    One(String),
    Many(Vec<String>),
    None,
}

/// Tab: completes the word at the end of `text`: a command name after `/`
/// at the start, a path after `@`.
pub fn complete(text: &str, cwd: &Path, skills: &[String]) -> Completion {
    if let Some(partial) = text.strip_prefix('/')
        && !partial.contains(char::is_whitespace)
    {
        let names: Vec<String> = COMMANDS
            .iter()
            .map(|(c, _)| c.trim_start_matches('/').to_owned())
            .chain(skills.iter().cloned())
            .filter(|n| n.starts_with(partial))
            .collect();
        return match names.as_slice() {
            [] => Completion::None,
            [one] => Completion::One(format!("/{one} ")),
            many => {
                let common = common_prefix(many);
                if common.len() > partial.len() {
                    Completion::One(format!("/{common}"))
                } else {
                    Completion::Many(many.iter().map(|n| format!("/{n}")).collect())
                }
            }
        };
    }
    let start = text
        .char_indices()
        .rfind(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = &text[start..];
    let Some(partial) = word.strip_prefix('@') else {
        return Completion::None;
    };
    let partial = partial.strip_prefix('"').unwrap_or(partial);
    let (dir, prefix) = match partial.rfind('/') {
        Some(i) => (&partial[..=i], &partial[i + 1..]),
        None => ("", partial),
    };
    let Ok(entries) = std::fs::read_dir(cwd.join(if dir.is_empty() { "." } else { dir })) else {
        return Completion::None;
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            Some(if is_dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    let head = &text[..start];
    match names.as_slice() {
        [] => Completion::None,
        [one] => {
            let space = if one.ends_with('/') { "" } else { " " };
            let path = format!("{dir}{one}");
            // A path with a space is quoted, so it stays one attachment.
            if path.contains(' ') {
                let close = if one.ends_with('/') { "" } else { "\" " };
                Completion::One(format!("{head}@\"{path}{close}"))
            } else {
                Completion::One(format!("{head}@{path}{space}"))
            }
        }
        many => {
            let common = common_prefix(many);
            if common.len() > prefix.len() {
                Completion::One(format!("{head}@{dir}{common}"))
            } else {
                Completion::Many(many.iter().take(30).map(|n| format!("@{dir}{n}")).collect())
            }
        }
    }
}

fn common_prefix(names: &[String]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut end = first.len();
    for name in &names[1..] {
        end = first
            .char_indices()
            .zip(name.chars())
            .take_while(|((_, a), b)| a == b)
            .map(|((i, a), _)| i + a.len_utf8())
            .last()
            .unwrap_or(0)
            .min(end);
    }
    first[..end].to_owned()
}

/// `/help`.
pub fn help(skills: &[SkillCommand]) -> Vec<String> {
    let mut lines = vec!["commands:".to_owned()];
    for (name, what) in COMMANDS {
        lines.push(format!("  {name:<14} {what}"));
    }
    if !skills.is_empty() {
        lines.push("skills (run one with /name and optional text):".into());
        for s in skills {
            let hint = s.argument_hint.as_deref().unwrap_or("");
            lines.push(format!(
                "  /{:<13} {} {}",
                s.name,
                crate::view::one_line(&s.description, 70),
                hint
            ));
        }
    }
    lines.extend([
        "input:".to_owned(),
        "  @path          attach a file (Tab completes paths); read through the Read rules".into(),
        "  !command       run a shell command through the Bash rules; its output joins the next prompt".into(),
        "  \\ then Enter, Alt-Enter or Ctrl-J   a new line; Enter sends".into(),
        "  ↑/↓ history of this project · Ctrl-R searches it · Tab completes".into(),
        "  Esc interrupts the turn · Ctrl-C interrupts, clears, twice exits · Ctrl-D exits".into(),
        "  Shift-Tab cycles the permission mode · Ctrl-O expands the last tool result".into(),
    ]);
    lines
}

/// `/model` alone.
pub fn model_help(model: &str) -> Vec<String> {
    let mut lines = vec![format!("model: {model}")];
    let known: Vec<&str> = tack_model::pricing::TABLE.iter().map(|p| p.model).collect();
    lines.push(format!(
        "switch with /model NAME; priced models: {}",
        known.join(", ")
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(text: &str) -> Command {
        Command::Prompt {
            text: text.into(),
            attach: attachments(text),
        }
    }

    #[test]
    fn lines_are_prompts_commands_or_shell() {
        let skills = vec!["deploy".to_owned()];
        assert_eq!(parse("hello", &skills), prompt("hello"));
        assert_eq!(parse("!ls -la", &skills), Command::Shell("ls -la".into()));
        assert_eq!(
            parse("/compact keep the API", &skills),
            Command::Compact(Some("keep the API".into()))
        );
        assert_eq!(parse("/compact", &skills), Command::Compact(None));
        assert_eq!(parse("/resume", &skills), Command::Resume(None));
        assert_eq!(
            parse("/resume abc", &skills),
            Command::Resume(Some("abc".into()))
        );
        assert_eq!(
            parse("/permissions explain Bash(git push)", &skills),
            Command::Permissions(Permissions::Explain("Bash(git push)".into()))
        );
        assert_eq!(
            parse("/permissions deny Read(./.env)", &skills),
            Command::Permissions(Permissions::Add(
                tack_protocol::Verdict::Deny,
                "Read(./.env)".into()
            ))
        );
        assert_eq!(
            parse("/permissions remove Bash(ls *)", &skills),
            Command::Permissions(Permissions::Remove("Bash(ls *)".into()))
        );
        assert_eq!(
            parse("/permissions", &skills),
            Command::Permissions(Permissions::Show)
        );
        assert!(matches!(
            parse("/permissions allow", &skills),
            Command::Permissions(Permissions::Usage(_))
        ));
        assert_eq!(
            parse("/mcp approve db", &skills),
            Command::Mcp(Some("db".into()))
        );
        assert_eq!(
            parse("/deploy staging", &skills),
            Command::Skill {
                name: "deploy".into(),
                args: "staging".into()
            }
        );
        // A path is a prompt.
        assert_eq!(
            parse("/etc/hosts has what?", &skills),
            prompt("/etc/hosts has what?")
        );
        match parse("/compcat", &skills) {
            Command::Unknown(m) => assert!(m.contains("did you mean /compact?"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn at_paths_are_attached_once_without_punctuation() {
        assert_eq!(
            attachments("look at @src/main.rs, and @Cargo.toml. Also @src/main.rs"),
            ["src/main.rs", "Cargo.toml"]
        );
        assert!(attachments("mail me at a@b.c").is_empty());
        assert_eq!(
            attachments("read @\"my notes.txt\" and @plain.rs"),
            ["my notes.txt", "plain.rs"]
        );
    }

    #[test]
    fn tab_completes_commands_and_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        std::fs::write(dir.path().join("README.md"), "").unwrap();
        let skills = vec!["deploy".to_owned()];
        match complete("/comp", dir.path(), &skills) {
            Completion::One(t) => assert_eq!(t, "/compact "),
            _ => panic!("no completion"),
        }
        match complete("/de", dir.path(), &skills) {
            Completion::One(t) => assert_eq!(t, "/deploy "),
            _ => panic!("no completion"),
        }
        match complete("see @sr", dir.path(), &skills) {
            Completion::One(t) => assert_eq!(t, "see @src/"),
            _ => panic!("no completion"),
        }
        match complete("see @src/m", dir.path(), &skills) {
            Completion::One(t) => assert_eq!(t, "see @src/main.rs "),
            _ => panic!("no completion"),
        }
        assert!(matches!(
            complete("plain", dir.path(), &skills),
            Completion::None
        ));
    }
}
