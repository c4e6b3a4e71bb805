//! Rule syntax (Claude Code's): `Tool`, `Tool(specifier)`, Bash word
//! patterns, gitignore-style paths, `WebFetch(domain:…)` and MCP names; and
//! tack's `NAME(pattern)` for a command tool declared in settings (a Bash
//! word pattern over its argv, see [`crate::command`]).
//!
//! Parsing is pure; path patterns are only compiled against directories in
//! [`crate::policy`].

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

/// A settings level, from weakest to strongest precedence when reporting.
/// Managed settings (the administrator's) are the strongest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Level {
    /// `~/.claude/settings.json`, `~/.config/tack/settings.json`.
    User,
    /// `<project>/.claude/settings.json`, `<project>/.tack/settings.json`
    /// (shared, committed).
    Project,
    /// `<project>/.claude/settings.local.json`,
    /// `<project>/.tack/settings.local.json` (personal, not committed).
    Local,
    /// Command-line flags.
    CommandLine,
    /// Built directly in code (tests, embedders).
    Code,
    /// The administrator's `managed-settings.json` (`/etc/tack/` on Linux,
    /// `/Library/Application Support/tack/` on macOS): its mode wins over
    /// every other level and the command line.
    Managed,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::User => "user settings",
            Level::Project => "project settings",
            Level::Local => "local settings",
            Level::CommandLine => "command line",
            Level::Code => "built-in configuration",
            Level::Managed => "managed settings",
        })
    }
}

/// Where a rule (or mode) came from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Source {
    /// The level.
    pub level: Level,
    /// The settings file, when the level is a file.
    pub path: Option<PathBuf>,
}

impl Source {
    /// The command line.
    pub fn command_line() -> Source {
        Source {
            level: Level::CommandLine,
            path: None,
        }
    }

    /// Rules built in code.
    pub fn code() -> Source {
        Source {
            level: Level::Code,
            path: None,
        }
    }

    /// A settings file of `level`.
    pub fn file(level: Level, path: impl Into<PathBuf>) -> Source {
        Source {
            level,
            path: Some(path.into()),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{} {}", self.level, p.display()),
            None => write!(f, "{}", self.level),
        }
    }
}

/// Tools whose inputs name paths read; `Read(…)` rules govern all of them.
pub(crate) const READ_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead"];
/// Tools that edit files; `Edit(…)` rules govern all of them.
pub(crate) const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// What a rule applies to, parsed from its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A tool name with no specifier: every call of the tool (for `Read` and
    /// `Edit`, of the whole family).
    Tool(String),
    /// `Bash(pattern)`.
    Bash(BashPattern),
    /// `Read(path)`, `Edit(path)`, `Write(path)`, …: `tool` is as written.
    Path { tool: String, pattern: PathSpec },
    /// `WebFetch(domain:host)`.
    Domain(DomainPattern),
    /// `mcp__server`, `mcp__server__*` (tool None) or `mcp__server__tool`.
    Mcp {
        server: String,
        tool: Option<String>,
    },
    /// `Skill(name)`, `Skill(prefix:*)` or `Skill(prefix*)`: the skills the
    /// Skill tool may load (Claude Code's rule form).
    Skill(SkillPattern),
    /// `Agent(name)` or `Task(name)` (Claude Code's old name of the tool):
    /// the sub-agent type an Agent call starts (its `subagent_type`).
    Agent(String),
    /// `NAME(pattern)` for a tool that is none of the known tools
    /// ([`crate::lint::KNOWN_TOOLS`]): a command tool declared in settings,
    /// whose argv the pattern matches as [`crate::command_text`] writes it.
    Command { tool: String, pattern: BashPattern },
}

/// The skill names a `Skill(…)` rule matches: one name, or every name
/// starting with a prefix (`Skill(github:*)`, an MCP server's skills).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SkillPattern {
    pub text: String,
    prefix: Option<String>,
}

impl SkillPattern {
    fn parse(spec: &str) -> Result<Self, String> {
        let text = spec.trim().trim_start_matches('/').to_string();
        let prefix = text
            .strip_suffix(":*")
            .map(|p| format!("{p}:"))
            .or_else(|| text.strip_suffix('*').map(str::to_string));
        let plain = prefix.as_deref().unwrap_or(&text);
        if plain.contains('*') || plain.chars().any(char::is_whitespace) {
            return Err(format!(
                "`Skill({spec})` is not a skill name: write `Skill(name)`, or `Skill(prefix:*)` for every skill whose name starts with `prefix:`"
            ));
        }
        Ok(Self { text, prefix })
    }

    /// Whether the skill `name` is matched.
    pub(crate) fn matches(&self, name: &str) -> bool {
        let name = name.trim().trim_start_matches('/');
        match &self.prefix {
            Some(prefix) => name.starts_with(prefix.as_str()),
            None => name == self.text,
        }
    }
}

/// Parse a rule's text. The error is the problem, for [`crate::Error::Rule`].
pub(crate) fn parse_rule(text: &str) -> Result<Target, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("the rule is empty".into());
    }
    let (tool, spec) = match text.find('(') {
        Some(open) => {
            let Some(inner) = text[open + 1..].strip_suffix(')') else {
                return Err(
                    "a specifier must be closed by `)` at the end, as in `Tool(specifier)`".into(),
                );
            };
            (text[..open].trim(), Some(inner))
        }
        None => {
            if text.contains(')') {
                return Err("unbalanced `)`".into());
            }
            (text, None)
        }
    };
    if let Some(rest) = tool.strip_prefix("mcp__") {
        if spec.is_some() {
            return Err("MCP rules take no specifier: write `mcp__server`, `mcp__server__*` or `mcp__server__tool`".into());
        }
        return parse_mcp(rest);
    }
    if tool.is_empty()
        || !tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "`{tool}` is not a tool name (letters, digits, `_` and `-` only)"
        ));
    }
    let Some(spec) = spec else {
        return Ok(Target::Tool(tool.to_string()));
    };
    let spec_trimmed = spec.trim();
    if spec_trimmed.is_empty() {
        return Err(format!(
            "the specifier is empty; write `{tool}` alone to match every call"
        ));
    }
    match tool {
        "Bash" => {
            if spec_trimmed == "*" {
                return Ok(Target::Tool("Bash".into()));
            }
            Ok(Target::Bash(BashPattern::new(spec_trimmed)))
        }
        t if READ_TOOLS.contains(&t) || EDIT_TOOLS.contains(&t) => Ok(Target::Path {
            tool: t.to_string(),
            pattern: PathSpec::parse(spec_trimmed)?,
        }),
        "WebFetch" => Ok(Target::Domain(DomainPattern::parse(spec_trimmed)?)),
        "Skill" => {
            if spec_trimmed == "*" {
                return Ok(Target::Tool("Skill".into()));
            }
            Ok(Target::Skill(SkillPattern::parse(spec_trimmed)?))
        }
        "Agent" | "Task" => {
            if spec_trimmed == "*" {
                return Ok(Target::Tool("Agent".into()));
            }
            if spec_trimmed.chars().any(|c| c.is_whitespace() || c == '*') {
                return Err(format!(
                    "`{tool}({spec})` is not an agent type: write `{tool}(name)` with the agent's name, e.g. `Agent(Explore)`"
                ));
            }
            Ok(Target::Agent(spec_trimmed.to_owned()))
        }
        other if crate::lint::KNOWN_TOOLS.contains(&other) => Err(format!(
            "`{other}` takes no specifier here (only Bash, Read/Edit-family tools, WebFetch, Skill, Agent and command tools declared in settings do); write `{other}` alone"
        )),
        // A command tool declared in settings: the pattern matches its argv.
        other => {
            if spec_trimmed == "*" {
                return Ok(Target::Tool(other.to_string()));
            }
            Ok(Target::Command {
                tool: other.to_string(),
                pattern: BashPattern::new(spec_trimmed),
            })
        }
    }
}

fn parse_mcp(rest: &str) -> Result<Target, String> {
    let (server, tool) = match rest.split_once("__") {
        Some((s, t)) => (s, Some(t)),
        None => (rest, None),
    };
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if !valid(server) {
        return Err(format!(
            "`{server}` is not an MCP server name; write `mcp__server`, `mcp__server__*` or `mcp__server__tool`"
        ));
    }
    let tool = match tool {
        None | Some("*") => None,
        Some(t) if valid(t) => Some(t.to_string()),
        Some(t) => {
            return Err(format!(
                "`{t}` is not an MCP tool name; only `mcp__server__*` may use a wildcard"
            ));
        }
    };
    Ok(Target::Mcp {
        server: server.to_string(),
        tool,
    })
}

/// A Bash word pattern: `*` matches any text (spaces included); a pattern
/// ending in ` *` also matches the prefix alone (`ls *` matches `ls` and
/// `ls -la`, not `lsof`); no `*` means an exact match. The legacy suffix
/// `:*` is read as ` *`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BashPattern {
    /// Normalised pattern text.
    pub text: String,
    segments: Vec<String>,
    /// The pattern without its final ` *`, when it has one.
    without_tail: Option<Box<BashPattern>>,
    /// Text before the first `*` (all of it when there is none).
    pub literal_prefix: String,
    /// The first word, when it contains no `*`: rules are indexed by it.
    pub key: Option<String>,
}

impl BashPattern {
    pub(crate) fn new(spec: &str) -> BashPattern {
        let text = match spec.strip_suffix(":*") {
            Some(head) => format!("{} *", head.trim_end()),
            None => spec.to_string(),
        };
        let without_tail = text
            .strip_suffix(" *")
            .map(|head| Box::new(BashPattern::new(head.trim_end())));
        let segments: Vec<String> = text.split('*').map(str::to_string).collect();
        let literal_prefix = segments.first().cloned().unwrap_or_default();
        let first_word_end = text.find(' ').unwrap_or(text.len());
        let star = text.find('*').unwrap_or(usize::MAX);
        let key = (star > first_word_end || (star == usize::MAX))
            .then(|| text[..first_word_end].to_string())
            .filter(|k| !k.is_empty());
        BashPattern {
            text,
            segments,
            without_tail,
            literal_prefix,
            key,
        }
    }

    /// Whether the pattern matches the whole of `command`.
    pub(crate) fn matches(&self, command: &str) -> bool {
        wildcard_match(&self.segments, command)
            || self
                .without_tail
                .as_ref()
                .is_some_and(|p| p.matches(command))
    }

    /// Whether the pattern matches `command` as an allow rule: as
    /// [`BashPattern::matches`], and no `*` that follows a `/` of the
    /// pattern (`cat docs/*`) stands for a path out of that directory: a `..`
    /// component or a word from `/` or `~` (`cat docs/../../.ssh/id_rsa`,
    /// `cat docs/a /etc/shadow`). A rule naming a directory allows what is in
    /// it, not what a wildcard can climb to.
    pub(crate) fn allows(&self, command: &str) -> bool {
        // A program that reads the files it is given reads its further
        // words too (`cat docs/a /etc/shadow`); another's are arguments
        // (`./scripts/* --out /tmp/x`).
        let program = self.literal_prefix.split(' ').next().unwrap_or_default();
        let reader = crate::shell::is_reader(program.rsplit('/').next().unwrap_or(program));
        let inside = |before: &str, span: &str| stays_inside(before, span, reader);
        wildcard_match_checked(&self.segments, command, &inside)
            || self
                .without_tail
                .as_ref()
                .is_some_and(|p| p.allows(command))
    }

    /// Whether some command starting with `known` could match: used when the
    /// rest of a command is dynamic (`rm $FLAGS x`).
    pub(crate) fn could_match_prefix(&self, known: &str) -> bool {
        let p = self.literal_prefix.as_str();
        p.starts_with(known) || known.starts_with(p)
    }
}

/// Whether the text a `*` stands for, after the pattern text `before`,
/// stays inside the directory `before` ends with (see
/// [`BashPattern::allows`]): the path it continues has no `..`, and, for a
/// program that reads the files it is given (`reader`), neither has any
/// further word, nor starts from `/` or `~`.
fn stays_inside(before: &str, span: &str, reader: bool) -> bool {
    if !before.ends_with('/') {
        return true;
    }
    let climbs = |word: &str| word.split('/').any(|part| part == "..");
    let mut words = span.split_whitespace();
    let continued = if span.starts_with(char::is_whitespace) {
        ""
    } else {
        words.next().unwrap_or_default()
    };
    if climbs(continued) || continued.starts_with(['/', '~']) {
        return false;
    }
    !reader || words.all(|w| !climbs(w) && !w.starts_with(['/', '~']))
}

/// [`wildcard_match`], with each `*`'s text (as leftmost matching gives
/// it) also accepted by `ok(text before the star, text of the star)`.
fn wildcard_match_checked(
    segments: &[String],
    text: &str,
    ok: &dyn Fn(&str, &str) -> bool,
) -> bool {
    if !wildcard_match(segments, text) {
        return false;
    }
    let Some((first, rest)) = segments.split_first() else {
        return true;
    };
    let Some((last, middle)) = rest.split_last() else {
        return true;
    };
    let Some(mut remaining) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    let mut before = first.as_str();
    for seg in middle {
        let at = remaining.find(seg.as_str()).unwrap_or(0);
        if !ok(before, &remaining[..at]) {
            return false;
        }
        remaining = &remaining[at + seg.len()..];
        before = seg.as_str();
    }
    let span = remaining.strip_suffix(last.as_str()).unwrap_or(remaining);
    ok(before, span)
}

/// `segments` are the pattern split at `*`.
fn wildcard_match(segments: &[String], text: &str) -> bool {
    let Some((first, rest)) = segments.split_first() else {
        return text.is_empty();
    };
    if rest.is_empty() {
        return text == first;
    }
    let Some(mut remaining) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return true;
    };
    for seg in middle {
        if seg.is_empty() {
            continue;
        }
        match remaining.find(seg.as_str()) {
            Some(at) => remaining = &remaining[at + seg.len()..],
            None => return false,
        }
    }
    remaining.ends_with(last.as_str())
}

/// Where a path pattern is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// `//abs/path`.
    Absolute,
    /// `~/path`.
    Home,
    /// `/path`: the project root (the directory holding `.tack/` or `.claude/`).
    Root,
    /// `./path` or `path`: the session's working directory; the project
    /// root for a rule of a project or local file.
    Cwd,
}

/// A gitignore-style path pattern before compilation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathSpec {
    pub anchor: Anchor,
    /// The pattern below the anchor, without leading or trailing `/`;
    /// empty means the anchor directory itself.
    pub rest: String,
    /// A bare name (no `/`): matches at any depth below the anchor.
    pub any_depth: bool,
}

impl PathSpec {
    pub(crate) fn parse(spec: &str) -> Result<PathSpec, String> {
        let (anchor, rest, explicit) = if let Some(r) = spec.strip_prefix("//") {
            (Anchor::Absolute, r, true)
        } else if spec == "~" {
            (Anchor::Home, "", true)
        } else if let Some(r) = spec.strip_prefix("~/") {
            (Anchor::Home, r, true)
        } else if spec.starts_with('~') {
            return Err(
                "`~user` paths are not supported; use `~/path` or `//absolute/path`".into(),
            );
        } else if let Some(r) = spec.strip_prefix('/') {
            (Anchor::Root, r, true)
        } else if let Some(r) = spec.strip_prefix("./") {
            (Anchor::Cwd, r, true)
        } else {
            (Anchor::Cwd, spec, false)
        };
        let rest = rest.trim_start_matches('/').trim_end_matches('/');
        let any_depth = !explicit && !rest.contains('/') && !rest.is_empty();
        if !rest.is_empty() {
            globset::GlobBuilder::new(rest)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| format!("bad path pattern: {e}"))?;
        }
        Ok(PathSpec {
            anchor,
            rest: rest.to_string(),
            any_depth,
        })
    }
}

/// `domain:example.com` (that host exactly) or `domain:*.example.com` (any
/// subdomain, not the apex).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DomainPattern {
    pub host: String,
    pub subdomains: bool,
}

impl DomainPattern {
    fn parse(spec: &str) -> Result<DomainPattern, String> {
        let Some(host) = spec.strip_prefix("domain:") else {
            return Err(
                "WebFetch rules take `domain:example.com` or `domain:*.example.com`".into(),
            );
        };
        let host = host.trim();
        let (host, subdomains) = match host.strip_prefix("*.") {
            Some(h) => (h, true),
            None => (host, false),
        };
        let bad = || {
            format!(
                "`{host}` is not a host name (no scheme, path, port or wildcards other than a leading `*.`)"
            )
        };
        // Written the way URLs are read ([`url_host`]): `127.1`, `0x7f.0.0.1`
        // and `127.0.0.1` are one address, `Bücher.example` is
        // `xn--bcher-kva.example`, so a rule names the host a fetch reaches
        // however the rule or the URL spells it.
        let parsed = url::Host::parse(host.trim_end_matches('.')).map_err(|_| bad())?;
        let host = host_text(&parsed);
        if host.is_empty()
            || matches!(parsed, url::Host::Domain(_))
                && !host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_')
        {
            return Err(bad());
        }
        Ok(DomainPattern { host, subdomains })
    }

    pub(crate) fn matches(&self, host: &str) -> bool {
        if self.subdomains {
            host.len() > self.host.len() + 1
                && host.ends_with(self.host.as_str())
                && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
        } else {
            host == self.host
        }
    }
}

/// The host of a URL exactly as WebFetch reads it: the text trimmed, then
/// the `url` crate's WHATWG parser, as tack-tools' WebFetch does before it
/// connects. So userinfo, backslashes, percent-encoding, a missing `//`
/// (`http:/h`, `http:\\h`, `HTTP:/h`) or a numeric IPv4 form cannot make
/// the rules see one host while the fetch reaches another. Only text the
/// parser reads as a relative reference (a bare `example.com/x`, which
/// WebFetch refuses) is read as `https://example.com/x`.
pub(crate) fn url_host(url: &str) -> Result<String, String> {
    let text = url.trim();
    let parsed = match url::Url::parse(text) {
        Err(url::ParseError::RelativeUrlWithoutBase) => url::Url::parse(&format!("https://{text}")),
        other => other,
    }
    .map_err(|e| format!("cannot read the URL `{url}`: {e}"))?;
    let host = parsed
        .host()
        .ok_or_else(|| format!("the URL `{url}` has no host"))?;
    Ok(host_text(&host.to_owned()))
}

/// A host as rules match it: a name lowercased without its final dot, an
/// IPv4 address dotted, an IPv6 one in brackets, except that an
/// IPv4-mapped IPv6 address (`[::ffff:127.0.0.1]`), which connects to the
/// IPv4 address, is that IPv4 address.
fn host_text(host: &url::Host) -> String {
    match host {
        url::Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
        url::Host::Ipv4(v4) => v4.to_string(),
        url::Host::Ipv6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => format!("[{v6}]"),
        },
    }
}

/// Whether an MCP rule matches a tool name; with `fold`, whatever the case
/// of either (a deny or ask rule: `mcp__github__delete_repo` is written for
/// the server a configuration spells `GitHub` as surely as for `github`).
pub(crate) fn mcp_matches(server: &str, tool: Option<&str>, name: &str, fold: bool) -> bool {
    if fold {
        return mcp_matches(
            &server.to_ascii_lowercase(),
            tool.map(str::to_ascii_lowercase).as_deref(),
            &name.to_ascii_lowercase(),
            false,
        );
    }
    let Some(rest) = name.strip_prefix("mcp__") else {
        return false;
    };
    let Some(after) = rest.strip_prefix(server) else {
        return false;
    };
    match tool {
        None => after.is_empty() || after.starts_with("__"),
        Some(t) => after.strip_prefix("__") == Some(t),
    }
}

/// Whether an MCP rule names the tool `own` of the server `origin` by their
/// own names: the server as configured, or as its tools' names write it
/// (characters outside `[A-Za-z0-9_-]` made `_`: a rule cannot write
/// others), and the tool exactly as the server lists it. A tool whose
/// model-facing name was cut or suffixed is still the tool a rule names.
/// With `fold`, whatever the case (see [`mcp_matches`]).
pub(crate) fn mcp_origin_matches(
    server: &str,
    tool: Option<&str>,
    origin: &str,
    own: &str,
    fold: bool,
) -> bool {
    let part = tack_protocol::tool_name_part(origin);
    if fold {
        part.eq_ignore_ascii_case(server) && tool.is_none_or(|t| t.eq_ignore_ascii_case(own))
    } else {
        part == server && tool.is_none_or(|t| t == own)
    }
}

/// Split a command-line rule list: commas or whitespace outside parentheses
/// separate rules (`--allowed-tools "Bash(git log *),Read"`).
pub fn split_rule_list(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in list.chars() {
        match c {
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' | ' ' | '\t' | '\n' if depth == 0 => {
                if !cur.trim().is_empty() {
                    out.push(cur.trim().to_string());
                }
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_patterns() {
        let p = BashPattern::new("ls *");
        assert!(p.matches("ls"));
        assert!(p.matches("ls -la"));
        assert!(!p.matches("lsof"));
        let legacy = BashPattern::new("npm run test:*");
        assert_eq!(legacy.text, "npm run test *");
        assert!(legacy.matches("npm run test"));
        assert!(legacy.matches("npm run test --watch"));
        assert!(!legacy.matches("npm run testx"));
        let mid = BashPattern::new("git * main");
        assert!(mid.matches("git push origin main"));
        assert!(!mid.matches("git push origin mainx"));
        let exact = BashPattern::new("npm run lint");
        assert!(exact.matches("npm run lint"));
        assert!(!exact.matches("npm run lint --fix"));
        assert_eq!(BashPattern::new("git push *").key.as_deref(), Some("git"));
        assert_eq!(BashPattern::new("ls*").key, None);
    }

    #[test]
    fn command_tool_rules() {
        let Ok(Target::Command { tool, pattern }) = parse_rule("git_log(git log *)") else {
            panic!("not a command rule");
        };
        assert_eq!(tool, "git_log");
        assert!(pattern.matches("git log -n 5") && pattern.matches("git log"));
        assert_eq!(parse_rule("git_log(*)"), Ok(Target::Tool("git_log".into())));
        assert_eq!(parse_rule("git_log"), Ok(Target::Tool("git_log".into())));
        // A built-in tool that takes no specifier still says so.
        for builtin in ["TodoWrite(x)", "WebSearch(x)"] {
            let err = parse_rule(builtin).unwrap_err();
            assert!(err.contains("takes no specifier"), "{builtin}: {err}");
        }
        // Claude Code's rule on one sub-agent type, under both names.
        assert_eq!(
            parse_rule("Agent(Explore)"),
            Ok(Target::Agent("Explore".into()))
        );
        assert_eq!(parse_rule("Task(x)"), Ok(Target::Agent("x".into())));
        assert_eq!(parse_rule("Agent(*)"), Ok(Target::Tool("Agent".into())));
        assert!(parse_rule("Agent(a b)").is_err());
        assert!(parse_rule("mcp__db__query(x)").is_err());
    }

    #[test]
    fn domains() {
        let d = DomainPattern::parse("domain:*.example.com").unwrap();
        assert!(d.matches("a.example.com"));
        assert!(!d.matches("example.com"));
        assert!(!d.matches("badexample.com"));
        assert!(DomainPattern::parse("domain:https://x").is_err());
    }

    #[test]
    fn mcp_names() {
        assert!(mcp_matches("db", None, "mcp__db__query", false));
        assert!(!mcp_matches("db", None, "mcp__dbx__query", false));
        assert!(mcp_matches("db", Some("query"), "mcp__db__query", false));
        assert!(!mcp_matches("db", Some("query"), "mcp__db__queryx", false));
        // A restriction whatever the case; an allow only as written.
        assert!(mcp_matches(
            "github",
            Some("delete_repo"),
            "mcp__GitHub__delete_repo",
            true
        ));
        assert!(!mcp_matches(
            "github",
            Some("delete_repo"),
            "mcp__GitHub__delete_repo",
            false
        ));
        assert!(mcp_origin_matches("github", None, "GitHub", "x", true));
        assert!(!mcp_origin_matches("github", None, "GitHub", "x", false));
    }

    #[test]
    fn split_lists() {
        assert_eq!(
            split_rule_list("Bash(git log *),Read  Edit(./a b)"),
            vec!["Bash(git log *)", "Read", "Edit(./a b)"]
        );
    }
}
