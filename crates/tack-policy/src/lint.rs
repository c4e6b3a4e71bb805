//! Mistakes in a settings file that would otherwise pass in silence: a
//! misspelt key (`"permisions"`) means the whole section is never read, a
//! rule for a tool that does not exist (`Raed(./.env)`) never matches. The
//! first kind is a warning naming the file, the line and the closest known
//! key; a rule naming no known tool is a warning with the closest tool, and
//! an error when it is a deny rule, since it protects nothing.
//!
//! Every key Claude Code accepts is known, whether tack reads it or not, so
//! a Claude Code configuration loads without a warning.

use std::fmt;
use std::path::PathBuf;

use serde_json::Value;
use tack_protocol::Verdict;

use crate::error::{Error, Result};
use crate::files::SettingsFile;

/// Top-level settings keys: tack's own, then Claude Code's (from its
/// settings reference and schema; accepted even where tack ignores them).
pub const KNOWN_KEYS: &[&str] = &[
    // tack
    "permissions",
    "hooks",
    "disableAllHooks",
    "mcpServers",
    "outputBudget",
    "webFetch",
    "webSearch",
    "compaction",
    "mcpSampling",
    "tools",
    "inputExamples",
    "toolSearch",
    "codeMode",
    // Claude Code
    "$schema",
    "env",
    "model",
    "availableModels",
    "modelOverrides",
    "effortLevel",
    "statusLine",
    "subagentStatusLine",
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "gcpAuthRefresh",
    "otelHeadersHelper",
    "cleanupPeriodDays",
    "includeCoAuthoredBy",
    "includeGitInstructions",
    "attribution",
    "enableAllProjectMcpServers",
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "allowedMcpServers",
    "deniedMcpServers",
    "allowManagedMcpServersOnly",
    "allowManagedHooksOnly",
    "allowManagedPermissionRulesOnly",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
    "disableSkillShellExecution",
    "sandbox",
    "forceLoginMethod",
    "forceLoginOrgUUID",
    "forceRemoteSettingsRefresh",
    "enabledPlugins",
    "extraKnownMarketplaces",
    "strictKnownMarketplaces",
    "blockedMarketplaces",
    "pluginTrustMessage",
    "companyAnnouncements",
    "outputStyle",
    "language",
    "alwaysThinkingEnabled",
    "showThinkingSummaries",
    "plansDirectory",
    "autoMemoryDirectory",
    "autoMemoryEnabled",
    "claudeMdExcludes",
    "respectGitignore",
    "fileSuggestion",
    "spinnerVerbs",
    "spinnerTipsEnabled",
    "spinnerTipsOverride",
    "showTurnDuration",
    "terminalProgressBarEnabled",
    "prefersReducedMotion",
    "autoUpdatesChannel",
    "minimumVersion",
    "skipWebFetchPreflight",
    "teammateMode",
    "agent",
    "advisorModel",
    "defaultShell",
    "disableAutoMode",
    "useAutoModeDuringPlan",
    "autoMode",
    "skipDangerousModePermissionPrompt",
    "disableDeepLinkRegistration",
    "feedbackSurveyRate",
    "channelsEnabled",
    "allowedChannelPlugins",
    "voiceEnabled",
    "wslInheritsWindowsSettings",
    "worktree",
    "tui",
    "viewMode",
    "editorMode",
    "autoScrollEnabled",
    "awaySummaryEnabled",
    "showClearContextOnPlanAccept",
    "fastModePerSessionOptIn",
];

/// Keys of `permissions` (Claude Code's; tack reads all but `disableAutoMode`).
pub const KNOWN_PERMISSION_KEYS: &[&str] = &[
    "allow",
    "ask",
    "deny",
    "defaultMode",
    "additionalDirectories",
    "disableBypassPermissionsMode",
    "allowManagedPermissionRulesOnly",
    "disableAutoMode",
];

/// Tool names a rule may name: tack's built-ins and Claude Code's tools
/// (a rule written for Claude Code is not a mistake). `mcp__…` names are
/// always known.
pub const KNOWN_TOOLS: &[&str] = &[
    "Bash",
    "BashOutput",
    "KillShell",
    "KillBash",
    "Read",
    "ReadOutput",
    "Write",
    "Edit",
    "MultiEdit",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
    "NotebookEdit",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "TodoRead",
    "Task",
    "Agent",
    "TaskOutput",
    "TaskStop",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
    "ExitPlanMode",
    "EnterPlanMode",
    "Skill",
    "SlashCommand",
    "AskUserQuestion",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "ToolSearch",
    "Code",
    "LSP",
    "EnterWorktree",
    "ExitWorktree",
    "Monitor",
    "CronCreate",
    "CronDelete",
    "CronList",
    "SendMessage",
    "TeamCreate",
    "TeamDelete",
    "PowerShell",
];

/// A mistake found in a settings file that does not stop loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The settings file.
    pub file: PathBuf,
    /// The line of the key or rule (1-based), when found.
    pub line: Option<usize>,
    /// What is wrong and what was probably meant.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// Checks every file's keys and the tool names of its rules. `extra_tools`
/// are tool names known besides [`KNOWN_TOOLS`] (an embedder's tools, the
/// command tools declared in settings): a rule may name one alone or, for
/// a command tool, with an argv pattern (`git_log(git log *)`).
/// Unknown keys and rules for unknown tools are warnings; a deny rule for
/// an unknown tool is [`Error::Rule`], naming the file and line and the
/// closest known tool.
pub fn check_files(files: &[SettingsFile], extra_tools: &[&str]) -> Result<Vec<Warning>> {
    let mut warnings = Vec::new();
    for file in files {
        check_file(file, extra_tools, &mut warnings)?;
    }
    Ok(warnings)
}

fn check_file(
    file: &SettingsFile,
    extra_tools: &[&str],
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let Some(obj) = file.value.as_object() else {
        return Ok(());
    };
    // The file's text, to find lines: serde_json's values carry no
    // positions, so a key's line is that of the first `"key"` in the file —
    // right for every file that does not repeat the text elsewhere (a key
    // also used as a string value earlier would be misplaced).
    let text = &file.text;
    let warn = |needle: &str, message: String| Warning {
        file: file.path.clone(),
        line: line_of(text, needle),
        message,
    };
    for key in obj.keys() {
        if !KNOWN_KEYS.contains(&key.as_str()) {
            warnings.push(warn(&quoted(key), unknown("key", key, KNOWN_KEYS)));
        }
    }
    let Some(perms) = obj.get("permissions").and_then(Value::as_object) else {
        return Ok(());
    };
    for key in perms.keys() {
        if !KNOWN_PERMISSION_KEYS.contains(&key.as_str()) {
            let message = unknown("key in `permissions`", key, KNOWN_PERMISSION_KEYS);
            warnings.push(warn(&quoted(key), message));
        }
    }
    for kind in [Verdict::Allow, Verdict::Ask, Verdict::Deny] {
        let rules = perms.get(kind.as_str()).and_then(Value::as_array);
        for rule in rules.into_iter().flatten() {
            let Some(text) = rule
                .as_str()
                .or_else(|| rule.get("rule").and_then(Value::as_str))
            else {
                continue;
            };
            let origin = || {
                let at = warn(&quoted(text), String::new());
                match at.line {
                    Some(line) => format!("{}:{line}", at.file.display()),
                    None => at.file.display().to_string(),
                }
            };
            match check_rule(text, kind, extra_tools) {
                RuleCheck::Fine => {}
                RuleCheck::Warn(message) => warnings.push(Warning {
                    message,
                    ..warn(&quoted(text), String::new())
                }),
                RuleCheck::Fail(problem) => {
                    return Err(Error::Rule {
                        origin: origin(),
                        rule: text.to_string(),
                        problem,
                    });
                }
            }
        }
    }
    Ok(())
}

/// What a rule's tool name means for loading.
enum RuleCheck {
    Fine,
    /// It matches nothing; loading goes on.
    Warn(String),
    /// Loading stops: a deny rule that would protect nothing, or a
    /// specifier for no known tool.
    Fail(String),
}

/// Checks the tool a rule names against tack's and Claude Code's tools and
/// `extra_tools` (an embedder's tools, command tools declared in settings).
fn check_rule(text: &str, kind: Verdict, extra_tools: &[&str]) -> RuleCheck {
    let tool = tool_of(text);
    if tool.starts_with("mcp__") || KNOWN_TOOLS.contains(&tool) || extra_tools.contains(&tool) {
        return RuleCheck::Fine;
    }
    let known: Vec<&str> = KNOWN_TOOLS.iter().chain(extra_tools).copied().collect();
    let closest = closest(tool, &known)
        .map(|t| format!(" (did you mean `{t}`?)"))
        .unwrap_or_default();
    if kind == Verdict::Deny {
        return RuleCheck::Fail(format!(
            "`{tool}` is no known tool{closest}, so this deny rule would protect nothing; fix the name or remove the rule"
        ));
    }
    if text.contains('(') {
        // Loading reads it as the rule of a command tool declared in
        // settings, and no such tool is declared: it would match nothing.
        // Say what was probably meant.
        return RuleCheck::Fail(format!(
            "`{tool}` is no known tool{closest}, and only Bash, Read/Edit-family tools, WebFetch, Skill, Agent and command tools declared in settings take a specifier"
        ));
    }
    RuleCheck::Warn(format!(
        "the {} rule `{text}` names `{tool}`, which is no known tool{closest}; it matches nothing",
        kind.as_str()
    ))
}

/// Checks the rules of `--allowed-tools` and `--disallowed-tools` as
/// [`check_files`] checks a file's: a deny rule or a specifier naming no
/// known tool is [`Error::Rule`] (a typo such as `Raed(./.env)` must not
/// load as a rule that protects nothing); an allow rule naming no known
/// tool is a warning.
pub fn check_command_line(
    cli: &crate::CliPermissions,
    extra_tools: &[&str],
) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    let lists = [
        ("--allowed-tools", Verdict::Allow, &cli.allowed_tools),
        ("--disallowed-tools", Verdict::Deny, &cli.disallowed_tools),
    ];
    for (flag, kind, rules) in lists {
        for text in rules {
            match check_rule(text, kind, extra_tools) {
                RuleCheck::Fine => {}
                RuleCheck::Warn(message) => warnings.push(format!("{flag}: {message}")),
                RuleCheck::Fail(problem) => {
                    return Err(Error::Rule {
                        origin: flag.to_owned(),
                        rule: text.clone(),
                        problem,
                    });
                }
            }
        }
    }
    Ok(warnings)
}

/// The tool a rule names: its text before `(`.
fn tool_of(rule: &str) -> &str {
    rule.split('(').next().unwrap_or(rule).trim()
}

fn unknown(what: &str, key: &str, known: &[&str]) -> String {
    let hint = closest(key, known)
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    format!("unknown {what} `{key}`, ignored{hint}")
}

/// `text` as it is written in JSON (escapes included), for a text search.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

/// The 1-based line of the first occurrence of `needle` in `text`.
pub fn line_of(text: &str, needle: &str) -> Option<usize> {
    let at = text.find(needle)?;
    Some(text[..at].matches('\n').count() + 1)
}

/// The known name closest to `name`, if it is close enough to be what was
/// meant (tack's one measure, [`tack_protocol::suggest::closest`]).
pub use tack_protocol::suggest::closest;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_rules_are_checked_like_a_files() {
        let cli = |allow: &[&str], deny: &[&str]| crate::CliPermissions {
            allowed_tools: allow.iter().map(|s| (*s).to_owned()).collect(),
            disallowed_tools: deny.iter().map(|s| (*s).to_owned()).collect(),
            ..Default::default()
        };
        // A misspelt deny rule would protect nothing: loading stops.
        let err = check_command_line(&cli(&[], &["Raed(./.env)"]), &[]).unwrap_err();
        assert!(err.to_string().contains("did you mean `Read`"), "{err}");
        let err = check_command_line(&cli(&["gitlog(git log *)"], &[]), &["git_log"]).unwrap_err();
        assert!(err.to_string().contains("`git_log`"), "{err}");
        // Declared command tools take a specifier.
        let ok = check_command_line(
            &cli(&["git_log(git log *)"], &["git_log(* --all)"]),
            &["git_log"],
        );
        assert_eq!(ok.unwrap(), Vec::<String>::new());
        let warned = check_command_line(&cli(&["Frobnicate"], &[]), &[]).unwrap();
        assert!(warned[0].starts_with("--allowed-tools: "), "{warned:?}");
    }

    #[test]
    fn closest_names() {
        assert_eq!(closest("permisions", KNOWN_KEYS), Some("permissions"));
        assert_eq!(closest("Raed", KNOWN_TOOLS), Some("Read"));
        assert_eq!(closest("bash", KNOWN_TOOLS), Some("Bash"));
        assert_eq!(closest("Frobnicate", KNOWN_TOOLS), None);
    }

    #[test]
    fn a_declared_command_tool_may_take_an_argv_pattern() {
        let file = |rules: serde_json::Value| SettingsFile {
            level: crate::Level::Project,
            path: PathBuf::from("/p/.tack/settings.json"),
            text: serde_json::json!({ "permissions": rules }).to_string(),
            value: serde_json::json!({ "permissions": rules }),
        };
        let declared = file(serde_json::json!({
            "allow": ["git_log(git log *)", "git_log"],
            "deny": ["git_log(/usr/bin/git log --all *)"],
        }));
        assert_eq!(check_files(&[declared], &["git_log"]).unwrap(), []);
        // Not declared: it would match nothing.
        for kind in ["allow", "deny"] {
            let undeclared = file(serde_json::json!({ kind: ["git_lgo(git log *)"] }));
            let err = check_files(&[undeclared], &["git_log"]).unwrap_err();
            assert!(err.to_string().contains("did you mean `git_log`"), "{err}");
        }
    }

    #[test]
    fn lines_are_found_by_text() {
        let text = "{\n  \"permisions\": {}\n}\n";
        assert_eq!(line_of(text, "\"permisions\""), Some(2));
        assert_eq!(line_of(text, "\"nothing\""), None);
    }
}
