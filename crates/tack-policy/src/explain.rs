//! `tack permissions explain 'Bash(git push origin main)'`: decide on a call
//! written like a rule and say what decided it, part by part.

use std::fmt;
use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use crate::command::command_text;
use crate::decision::{Decision, reason_text};
use crate::entry::ManagedRulesOnly;
use crate::error::{Error, Result};
use crate::evaluate::evaluate;
use crate::lint::KNOWN_TOOLS;
use crate::mode::Mode;
use crate::policy::Policy;
use crate::request::Request;
use crate::rule::{Level, Source};
use crate::shell::simple_command_words;

/// The answer of `tack permissions explain`, printable ([`fmt::Display`])
/// and serialisable (`--json`).
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Explanation {
    /// The argument as given.
    pub spec: String,
    /// The tool.
    pub tool: String,
    /// The tool input built from the argument (`{}` for a command tool).
    pub input: Value,
    /// For a command tool: the argv read from the argument.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// The mode in force.
    pub mode: Mode,
    /// Where the mode was set (managed settings win over the command line).
    pub mode_source: Source,
    /// Set when managed settings allow only their own rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_rules_only: Option<ManagedRulesOnly>,
    /// The decision (with its parts for Bash).
    pub decision: Decision,
    /// What happens without a terminal: an ask becomes this deny.
    pub without_tty: Decision,
}

/// Read `spec` as a call (`Bash(command)`, `Read(path)`, `Edit(path)`,
/// `WebFetch(url)`, `mcp__server__tool`, `TodoWrite`, or a command tool
/// declared in settings with its argv written as shell words,
/// `git_log(/usr/bin/git log -n 5)`), resolve it against `cwd` and decide.
/// A command tool's declaration is not known here: it is taken as not
/// read-only (plan mode denies it).
pub fn explain(spec: &str, policy: &Policy, cwd: &Path) -> Result<Explanation> {
    let (tool, input, argv) = parse_spec(spec)?;
    let request = match &argv {
        Some(argv) => Request::command(&tool, &input, argv.clone(), false, cwd, policy),
        None => Request::resolve(&tool, &input, cwd, policy),
    };
    let decision = evaluate(&request, policy);
    Ok(Explanation {
        spec: spec.to_string(),
        tool,
        input,
        argv,
        mode: policy.mode(),
        mode_source: policy.mode_source().clone(),
        managed_rules_only: policy.managed_rules_only().cloned(),
        without_tty: decision.clone().without_tty(),
        decision,
    })
}

/// The tool, its input, and for a command tool the argv.
fn parse_spec(spec: &str) -> Result<(String, Value, Option<Vec<String>>)> {
    let err = |problem: &str| Error::Spec {
        spec: spec.to_string(),
        problem: problem.to_string(),
    };
    let spec_t = spec.trim();
    let (tool, arg) = match spec_t.find('(') {
        Some(open) => {
            let inner = spec_t[open + 1..]
                .strip_suffix(')')
                .ok_or_else(|| err("write the call as Tool(argument), closed by `)`"))?;
            (spec_t[..open].trim(), Some(inner))
        }
        None => (spec_t, None),
    };
    if tool.is_empty() {
        return Err(err("no tool name"));
    }
    let input = match (tool, arg) {
        ("Bash", Some(c)) => json!({"command": c}),
        ("Read" | "Edit" | "Write" | "MultiEdit", Some(p)) => json!({"file_path": p}),
        ("NotebookEdit" | "NotebookRead", Some(p)) => json!({"notebook_path": p}),
        ("Glob", Some(p)) => json!({"pattern": p}),
        ("Grep" | "LS", Some(p)) => json!({"pattern": "", "path": p}),
        ("WebFetch", Some(u)) => {
            let url = match u.strip_prefix("domain:") {
                Some(host) => format!("https://{host}/"),
                None => u.to_string(),
            };
            json!({"url": url})
        }
        ("Bash", None) => return Err(err("give the command, as in Bash(git status)")),
        ("Read" | "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "NotebookRead", None) => {
            return Err(err("give the path, as in Read(./src/main.rs)"));
        }
        ("WebFetch", None) => {
            return Err(err("give the URL, as in WebFetch(https://example.com/)"));
        }
        // An MCP tool's input, as JSON: `mcp__fs__read_file({"path": ".env"})`.
        (t, Some(text)) if t.starts_with("mcp__") => serde_json::from_str(text)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| {
                err("write an MCP tool's input as a JSON object, as in mcp__fs__read_file({\"path\": \"a.txt\"})")
            })?,
        // A sub-agent: its type alone, `Agent(Explore)`, or the Agent
        // call's input, `Agent({"subagent_type": "Explore", …})`. `Task` is
        // the tool's old name; the call is the Agent tool's.
        ("Agent" | "Task", Some(text)) => {
            let input = match serde_json::from_str::<Value>(text.trim()) {
                Ok(v) if v.is_object() => v,
                _ => json!({"subagent_type": text.trim()}),
            };
            return Ok(("Agent".to_string(), input, None));
        }
        ("Task", None) => return Ok(("Agent".to_string(), json!({}), None)),
        // A declared command tool's call is judged on the argv it runs;
        // its JSON input read as words would be judged as another call.
        (t, Some(text))
            if !KNOWN_TOOLS.contains(&t)
                && serde_json::from_str::<Value>(text.trim()).is_ok_and(|v| v.is_object()) =>
        {
            return Err(err(&format!(
                "a command tool's call is explained from the argv it runs, as in {t}(git show HEAD:README.md); to run it with a JSON input through the whole pipeline, use `tack tools call {t} '{{…}}'`"
            )));
        }
        (t, Some(words)) if !KNOWN_TOOLS.contains(&t) && !t.starts_with("mcp__") => {
            // A command tool declared in settings: its argv.
            let argv = simple_command_words(words)
                .filter(|argv| !argv.is_empty())
                .ok_or_else(|| {
                    err("write a command tool's argv as words quoted as a shell would, as in git_log(/usr/bin/git log -n 5 'a b'), with no variables, globs or operators")
                })?;
            return Ok((tool.to_string(), json!({}), Some(argv)));
        }
        (_, Some(_)) => {
            return Err(err(
                "only Bash, Read/Edit-family tools, Glob, Grep, WebFetch, Agent (a type or a JSON input), MCP tools (a JSON input) and command tools declared in settings take an argument",
            ));
        }
        (_, None) => json!({}),
    };
    Ok((tool.to_string(), input, None))
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = self.decision.why();
        writeln!(f, "{}", self.spec)?;
        if let Some(argv) = &self.argv {
            writeln!(f, "  runs: {}", command_text(argv))?;
        }
        writeln!(f, "  decision: {}", self.decision.verdict())?;
        if let Some(via) = &why.via
            && via != &why.subject
        {
            writeln!(f, "  decided by part: {via}")?;
        }
        writeln!(f, "  because: {}", reason_text(why))?;
        match self.mode_source.level {
            Level::Code => writeln!(f, "  mode: {}", self.mode)?,
            _ => writeln!(f, "  mode: {} (set in {})", self.mode, self.mode_source)?,
        }
        if let Some(m) = &self.managed_rules_only {
            writeln!(
                f,
                "  rules: only those in managed settings {} count (allowManagedPermissionRulesOnly); {} from user, project and local settings and the command line ignored",
                m.file.display(),
                match m.ignored_rules {
                    1 => "1 rule".to_string(),
                    n => format!("{n} rules"),
                }
            )?;
        }
        if !why.parts.is_empty() {
            writeln!(f, "  parts:")?;
            for p in &why.parts {
                writeln!(
                    f,
                    "    {:<5}  {}  ({})",
                    p.decision.verdict().to_string(),
                    p.subject,
                    reason_text(p.decision.why())
                )?;
            }
        }
        if self.decision.is_ask() {
            writeln!(f, "  without a terminal: {}", self.without_tty.message())?;
        }
        Ok(())
    }
}
