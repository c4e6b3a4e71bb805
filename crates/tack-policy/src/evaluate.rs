//! The decision: a pure function of a resolved [`Request`] and a [`Policy`].
//!
//! Order for every thing checked: deny rules, then ask rules, then allow
//! rules, then the mode. An allow never beats a deny or an ask from any
//! level. A Bash command is decided part by part (each simple command, each
//! file written, each uncertainty) and the strictest part decides.

use std::path::Path;
use std::sync::Arc;

use tack_protocol::Verdict;

use crate::decision::{DecidedBy, Decision, Part, Why};
use crate::mode::Mode;
use crate::paths::ResolvedPath;
use crate::policy::{Forms, Policy};
use crate::request::{McpOrigin, Request, Subject};
use crate::rule::{EDIT_TOOLS, READ_TOOLS};
use crate::safeguard::{critical_removal, protected_write};
use crate::shell::{Command, Family, Item, ReadOnly, UncertainKind};

/// Tools plan mode lets run (read-only).
const PLAN_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "BashOutput",
    "ReadOutput",
    "ExitPlanMode",
    "Agent",
    "Skill",
    "ToolSearch",
    "Code",
];

/// Tools that need no permission (they only touch the session itself; the
/// calls of a sub-agent started by Agent, and of a program run by Code, each
/// meet the rules on their own; ToolSearch only loads definitions).
const INTERNAL_TOOLS: &[&str] = &[
    "TodoWrite",
    "BashOutput",
    "ReadOutput",
    "KillShell",
    "ExitPlanMode",
    "Agent",
    "ToolSearch",
    "Code",
];

/// Commands acceptEdits runs without asking when every operand is inside a
/// working directory (they create, move or copy files; `rm` is not among them).
const ACCEPT_EDITS_COMMANDS: &[&str] = &["mkdir", "touch", "mv", "cp"];

/// What the mode may allow when no rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Auto {
    /// Nothing.
    No,
    /// A read inside the working directories.
    Read,
    /// An edit inside the working directories.
    Edit,
}

/// Decide on a request. Pure: no IO, no prompting.
pub fn evaluate(request: &Request, policy: &Policy) -> Decision {
    let tool = request.tool();
    let decision = match &request.subject {
        Subject::Bash { command, items } => bash(policy, command, items),
        Subject::Paths { targets, search } => path_tool(policy, tool, targets, *search),
        Subject::Url { url, host } => web_fetch(policy, url, host),
        Subject::Skill { name } => skill(policy, name),
        Subject::Agent { name } => agent(policy, name),
        Subject::Command {
            given,
            text,
            touches,
            ..
        } => with_touches(
            policy,
            command_tool(policy, tool, &request.display(), &[given, text]),
            &request.display(),
            touches,
        ),
        Subject::Tool { touches } => with_touches(
            policy,
            other_tool(policy, tool, request.mcp.as_ref()),
            tool,
            touches,
        ),
        Subject::Invalid(reason) => invalid(policy, tool, reason),
    };
    // A command tool declared read-only is as a read-only tool.
    let read_only_command = matches!(
        request.subject,
        Subject::Command {
            read_only: true,
            ..
        }
    );
    if policy.mode == Mode::Plan
        && !PLAN_TOOLS.contains(&tool)
        && !read_only_command
        && !decision.is_deny()
        && (tool != "Bash"
            || !(reads_only(&decision)
                || read_only_but_for_allow_rules(request, policy, &decision)))
    {
        let why = Why::new(
            request.display(),
            DecidedBy::Mode {
                mode: Mode::Plan,
                source: policy.mode_source.clone(),
            },
        )
        .detail(format!(
            "{tool} is not read-only; leave plan mode to run it (read-only tools: {}, and command tools declared readOnly)",
            PLAN_TOOLS.join(", ")
        ));
        return Decision::Deny(why);
    }
    decision
}

/// A Bash command allowed because every part of it needs no permission
/// (commands that only read, inside the working directories; `cd` there):
/// plan mode runs it.
fn reads_only(decision: &Decision) -> bool {
    let free =
        |d: &Decision| d.is_allow() && matches!(d.why().decided_by, DecidedBy::NoPermissionNeeded);
    free(decision)
        || (decision.is_allow()
            && matches!(decision.why().decided_by, DecidedBy::AllParts)
            && decision.why().parts.iter().all(|p| free(&p.decision)))
}

/// A Bash command an allow rule allowed (`Bash(git status:*)`, `Bash`)
/// that would need no permission without the allow rules: plan mode runs
/// it, as it does when no rule names it (an allow rule must not take away
/// what the mode gives).
fn read_only_but_for_allow_rules(request: &Request, policy: &Policy, decision: &Decision) -> bool {
    let Subject::Bash { command, items } = &request.subject else {
        return false;
    };
    if !decision.is_allow() {
        return false;
    }
    let mut without = policy.clone();
    without.index[crate::policy::slot(Verdict::Allow)] = Default::default();
    reads_only(&bash(&without, command, items))
}

fn rule_why(policy: &Policy, i: usize, subject: &str) -> Why {
    match policy.rules.get(i) {
        Some(r) => Why::new(
            subject,
            DecidedBy::Rule {
                rule: r.text.clone(),
                list: r.kind,
                source: r.source.clone(),
            },
        ),
        None => Why::new(subject, DecidedBy::Uncertain).detail("internal: unknown rule"),
    }
}

/// deny / ask / allow rule indices found for one thing.
#[derive(Debug, Default, Clone, Copy)]
struct Found {
    deny: Option<usize>,
    ask: Option<usize>,
    allow: Option<usize>,
}

/// Asked, or refused in dontAsk (which asks nobody).
pub(crate) fn ask_or_refuse(policy: &Policy, why: Why) -> Decision {
    if policy.mode == Mode::DontAsk {
        Decision::Deny(why)
    } else {
        Decision::Ask(why)
    }
}

/// Decide from matched rules, then from the mode. `suggestion` is the
/// allow rule that would settle an ask.
fn decide(
    policy: &Policy,
    subject: &str,
    found: Found,
    auto: Auto,
    suggestion: Option<String>,
) -> Decision {
    if let Some(i) = found.deny {
        return Decision::Deny(rule_why(policy, i, subject));
    }
    if let Some(i) = found.ask {
        let why = rule_why(policy, i, subject);
        return if policy.mode == Mode::DontAsk {
            Decision::Deny(why.detail("the permission mode is dontAsk, so it is not asked"))
        } else {
            Decision::Ask(why)
        };
    }
    if let Some(i) = found.allow {
        return Decision::Allow(rule_why(policy, i, subject));
    }
    fallback(policy, subject, auto, suggestion)
}

/// The mode's answer when no rule matched.
fn fallback(policy: &Policy, subject: &str, auto: Auto, suggestion: Option<String>) -> Decision {
    let by_mode = DecidedBy::Mode {
        mode: policy.mode,
        source: policy.mode_source.clone(),
    };
    let mut ask = Why::new(subject, DecidedBy::NoRuleMatched { mode: policy.mode });
    match &policy.managed_rules_only {
        // An allow rule anywhere but the managed file would be ignored.
        Some(m) => {
            ask = ask.detail(format!(
                "only rules in managed settings {} count (allowManagedPermissionRulesOnly), so only the administrator can allow it",
                m.file.display()
            ));
        }
        None => {
            ask.suggestions.extend(suggestion);
            ask.settings_file = Some(policy.local_settings_path());
        }
    }
    match (policy.mode, auto) {
        (Mode::BypassPermissions, _) => Decision::Allow(Why::new(subject, by_mode)),
        (_, Auto::Read) => Decision::Allow(
            Why::new(subject, by_mode).detail("read-only access inside the working directories"),
        ),
        (Mode::AcceptEdits, Auto::Edit) => Decision::Allow(
            Why::new(subject, by_mode).detail("file edits inside the working directories"),
        ),
        (Mode::DontAsk, _) => {
            let mut why = ask;
            why.decided_by = by_mode;
            Decision::Deny(why)
        }
        _ => Decision::Ask(ask),
    }
}

/// An uncertainty: ask, unless every possibility would be allowed anyway
/// (bypass mode or the tool allowed wholesale, and no deny or ask rule that
/// could apply).
/// The decision on a call whose check did not finish within `limit`
/// (the caller stopped waiting): uncertain, so ask (deny in dontAsk).
pub fn unfinished(policy: &Policy, subject: &str, limit: std::time::Duration) -> Decision {
    let reason = format!(
        "checking it took longer than {} ms; write the command more simply",
        limit.as_millis()
    );
    uncertain(policy, subject, &reason, true, None)
}

/// Whether a file that the search tool `tool` (Grep, Glob) found may be
/// shown in its results (a name, a matching line). The search itself was
/// decided for the directory it starts from; a file found below it must
/// not show what a rule keeps from it: it is left out when a deny or ask
/// rule of `tool` names it (`Grep(./secrets/**)`), when reading it would
/// be refused (a `Read` deny or ask rule, Read denied or asked whole, a
/// mode that refuses it), or when where it really is cannot be known.
///
/// `path` is absolute, as the search found it; resolving it is the only
/// IO. With no deny or ask rule of Read or `tool` at all, true at once, so
/// a search without such rules pays nothing per file.
pub fn may_show_found(policy: &Policy, tool: &str, path: &std::path::Path) -> bool {
    if process_secret(path).is_some() {
        return false;
    }
    let tools = ["Read", tool];
    if !policy.has_path_rules(Verdict::Deny, &tools) && !policy.has_path_rules(Verdict::Ask, &tools)
    {
        return true;
    }
    let Ok(resolved) = crate::paths::resolve(path, policy.cwd(), policy.resolution) else {
        return false;
    };
    // The search tool's own path rules; its whole-tool rules decided the
    // search itself (an `ask: ["Grep"]` answered yes must not hide every
    // file found).
    let own = path_found(policy, &[tool], &resolved, false, false);
    if own.deny.is_some() || own.ask.is_some() {
        return false;
    }
    let read = evaluate(&Request::read_of(resolved, policy), policy);
    let by_rule = matches!(read.why().decided_by, DecidedBy::Rule { .. });
    !(read.is_deny() || (read.is_ask() && by_rule))
}

fn uncertain(
    policy: &Policy,
    subject: &str,
    reason: &str,
    relevant_rules: bool,
    allowed_wholesale: Option<usize>,
) -> Decision {
    if !relevant_rules {
        if let Some(i) = allowed_wholesale {
            return Decision::Allow(rule_why(policy, i, subject).detail(reason.to_string()));
        }
        if policy.mode == Mode::BypassPermissions {
            return Decision::Allow(
                Why::new(
                    subject,
                    DecidedBy::Mode {
                        mode: policy.mode,
                        source: policy.mode_source.clone(),
                    },
                )
                .detail(reason.to_string()),
            );
        }
    }
    let mut why = Why::new(subject, DecidedBy::Uncertain).detail(reason.to_string());
    why.rules_unchecked = relevant_rules;
    ask_or_refuse(policy, why)
}

fn invalid(policy: &Policy, tool: &str, reason: &str) -> Decision {
    if let Some(i) = policy.tool_rule(Verdict::Deny, &family_tools(tool)) {
        return Decision::Deny(rule_why(policy, i, tool));
    }
    let why = Why::new(tool, DecidedBy::Uncertain).detail(reason.to_string());
    ask_or_refuse(policy, why)
}

/// The rule tool names that govern `tool`: its family and itself.
fn family_tools(tool: &str) -> Vec<&str> {
    if READ_TOOLS.contains(&tool) && tool != "Read" {
        vec!["Read", tool]
    } else if EDIT_TOOLS.contains(&tool) && tool != "Edit" {
        vec!["Edit", tool]
    } else {
        vec![tool]
    }
}

/// A command tool's call: whole-tool rules (`git_log`) and `git_log(…)`
/// rules, whose pattern matches the argv's line with argv\[0\] as given or
/// as its file name (`texts`). No rule: the mode decides, and "always
/// allow" would allow the tool whole.
fn command_tool(policy: &Policy, tool: &str, subject: &str, texts: &[&str]) -> Decision {
    let tools = [tool];
    let pick = |kind| {
        policy
            .tool_rule(kind, &tools)
            .into_iter()
            .chain(policy.command_rule(kind, tool, texts))
            .min()
    };
    let found = Found {
        deny: pick(Verdict::Deny),
        ask: pick(Verdict::Ask),
        allow: pick(Verdict::Allow),
    };
    decide(policy, subject, found, Auto::No, Some(tool.to_string()))
}

/// A tool decided by its name alone; for an MCP tool, `mcp` is its server
/// and its own name there, which MCP rules match as well as the name.
fn other_tool(policy: &Policy, tool: &str, mcp: Option<&McpOrigin>) -> Decision {
    let tools = [tool];
    let is_mcp = tool.starts_with("mcp__") || mcp.is_some();
    let pick = |kind| {
        let whole = policy.tool_rule(kind, &tools);
        let m = if is_mcp {
            policy.mcp_rule(kind, tool, mcp)
        } else {
            None
        };
        whole.into_iter().chain(m).min()
    };
    let found = Found {
        deny: pick(Verdict::Deny),
        ask: pick(Verdict::Ask),
        allow: pick(Verdict::Allow),
    };
    // `tool(pattern)` deny or ask rules, but the call names no argv to
    // match them against (the tool built none from this input, or it is no
    // command tool): they cannot be ruled out, so ask.
    if found.deny.is_none()
        && found.ask.is_none()
        && let Some(i) = policy
            .any_command_rule(Verdict::Deny, tool)
            .or_else(|| policy.any_command_rule(Verdict::Ask, tool))
    {
        let rule = policy
            .rules
            .get(i)
            .map(|r| r.text.clone())
            .unwrap_or_default();
        let reason = format!(
            "the call names no command, so whether the rule `{rule}` applies cannot be known"
        );
        return uncertain(policy, tool, &reason, true, None);
    }
    if found.deny.is_none()
        && found.ask.is_none()
        && found.allow.is_none()
        && INTERNAL_TOOLS.contains(&tool)
    {
        return Decision::Allow(
            Why::new(tool, DecidedBy::NoPermissionNeeded)
                .detail("it only touches the session itself"),
        );
    }
    decide(policy, tool, found, Auto::No, Some(tool.to_string()))
}

/// An uncertainty of a kind that matters only where restricting rules could
/// be got around through it (what a script file runs, which file or host is
/// reached): whether such rules exist, and why it is asked then. `None` for
/// the kinds that need an allow rule whatever the rules restrict.
fn restricting(policy: &Policy, kind: UncertainKind, reason: &str) -> Option<(bool, String)> {
    match kind {
        UncertainKind::Opaque => Some((
            policy.has_bash_rules(Verdict::Deny) || policy.has_bash_rules(Verdict::Ask),
            format!("{reason}; deny and ask rules cannot be checked inside it"),
        )),
        UncertainKind::Touch(family) => {
            let tool = family.rules_tool();
            Some((
                policy.has_path_rules(Verdict::Deny, &[tool])
                    || policy.has_path_rules(Verdict::Ask, &[tool]),
                format!("{reason}; {tool} deny and ask rules cannot be checked against it"),
            ))
        }
        UncertainKind::Host => Some((
            policy.has_domain_rules(Verdict::Deny) || policy.has_domain_rules(Verdict::Ask),
            format!("{reason}; WebFetch(domain:…) deny and ask rules cannot be checked against it"),
        )),
        UncertainKind::Command | UncertainKind::Edit => None,
    }
}

/// A tool's decision beside the paths its input names (an MCP tool's
/// `path`, `source`, `file://…`; a command tool's argv read as Bash reads
/// it): a deny or ask rule for one of them is stricter than the tool's own
/// allow.
fn with_touches(policy: &Policy, decision: Decision, subject: &str, touches: &[Item]) -> Decision {
    let mut parts = Vec::new();
    for item in touches {
        match item {
            // A server's (or a command's) own environment holds the tokens
            // its configuration gave it.
            Item::Touch { path, .. } if process_secret(&path.canonical).is_some() => {
                let subject = format!("Read({})", path.canonical.display());
                parts.push(Part {
                    decision: process_secret_refused(&subject),
                    subject,
                })
            }
            Item::Touch {
                family,
                path,
                written,
                recursive,
            } => parts.extend(touch_parts(policy, *family, path, written, *recursive)),
            // Not looked inside (see `request::look_inside`): all of it.
            Item::ReadVisible { written, path, .. } | Item::ReadNarrowed { written, path, .. } => {
                parts.extend(touch_parts(policy, Family::Read, path, written, true))
            }
            Item::GitContent {
                written,
                worktree,
                within,
                except,
            } => parts.extend(git_content_parts(policy, written, worktree, within, except)),
            // A command tool's writes (`sort -o FILE`): inside the working
            // directories the user declared the program, so only deny and
            // ask rules count (and the protected paths). Outside them, as
            // for Bash: an Edit rule allows the write, else it is asked
            // (allowing the tool allows what it is for, not every option
            // of its program: `sort --output=/anywhere`).
            Item::Edit { path, written } => {
                if policy.in_working_dirs(path) {
                    parts.extend(touch_parts(policy, Family::Edit, path, written, false));
                } else {
                    parts.push(edit_part(policy, path, written));
                }
                parts.extend(protected_write(policy, path, written));
            }
            Item::EditInside { path, written, .. } => {
                parts.extend(protected_write(policy, path, written));
                let restrict_only = policy.in_working_dirs(path);
                parts.extend(edit_inside(policy, path, written, restrict_only))
            }
            Item::Written { written, path } => parts.extend(protected_write(policy, path, written)),
            Item::Removal { written, removed } => {
                parts.extend(critical_removal(policy, removed, written))
            }
            Item::Host { written, host } => parts.extend(host_part(policy, written, host)),
            // A shell command an MCP tool's input gives its server to run
            // (words a program there may run: as guesses, as for Bash).
            Item::Command(c) if c.guessed => {
                parts.extend(guessed_part(policy, c, &mut WrapperRules::default()))
            }
            Item::Command(c) if c.equivalent.is_some() => {
                parts.extend(equivalent_part(policy, c, &mut WrapperRules::default()))
            }
            Item::Uncertain {
                kind,
                snippet,
                reason,
            } => {
                if let Some((true, detail)) = restricting(policy, *kind, reason) {
                    let s = format!("{subject}({snippet})");
                    parts.push(Part {
                        decision: uncertain(policy, &s, &detail, true, None),
                        subject: s,
                    });
                }
            }
            _ => {}
        }
    }
    let Some(strictest) = parts.iter().max_by_key(|p| p.decision.verdict()) else {
        return decision;
    };
    if strictest.decision.verdict() <= decision.verdict() {
        return decision;
    }
    let mut d = strictest.decision.clone();
    let why = d.why_mut();
    why.via = Some(why.subject.clone());
    why.subject = subject.to_owned();
    why.detail = Some(match why.detail.take() {
        Some(detail) => format!("{detail} in the call's input"),
        None => "a path in the call's input".to_owned(),
    });
    why.parts = parts;
    d
}

/// `Skill`: loading a skill adds instructions to the conversation and runs
/// nothing (what it asks for is judged call by call), so it needs no
/// permission unless a rule says otherwise: `Skill` or `Skill(name)`,
/// `Skill(prefix:*)` deny, ask or allow rules (Claude Code's form).
fn skill(policy: &Policy, name: &str) -> Decision {
    named_by_rules(
        policy,
        format!("Skill({name})"),
        &["Skill"],
        |kind| policy.skill_rule(kind, name),
        "a skill adds instructions and runs nothing itself",
    )
}

/// `Agent` (`Task`): starting a sub-agent runs nothing itself (each of its
/// calls meets the rules on its own), so it needs no permission unless a
/// rule says otherwise: `Agent` or `Agent(type)` (`Task`, `Task(type)`)
/// deny, ask or allow rules, matched against the call's `subagent_type`
/// (Claude Code's form).
fn agent(policy: &Policy, name: &str) -> Decision {
    named_by_rules(
        policy,
        format!("Agent({name})"),
        &["Agent", "Task"],
        |kind| policy.agent_rule(kind, name),
        "each call the sub-agent makes meets the rules on its own",
    )
}

/// A tool that runs nothing itself, named by the rules as a whole
/// (`tools`) or by what it loads (`named`): allowed unless a deny or ask
/// rule says otherwise; `free` says why no permission is needed.
fn named_by_rules(
    policy: &Policy,
    subject: String,
    tools: &[&str],
    named: impl Fn(Verdict) -> Option<usize>,
    free: &str,
) -> Decision {
    let pick = |kind| {
        policy
            .tool_rule(kind, tools)
            .into_iter()
            .chain(named(kind))
            .min()
    };
    let found = Found {
        deny: pick(Verdict::Deny),
        ask: pick(Verdict::Ask),
        allow: pick(Verdict::Allow),
    };
    if found.deny.is_none() && found.ask.is_none() {
        return match found.allow {
            Some(i) => Decision::Allow(rule_why(policy, i, &subject)),
            None => Decision::Allow(Why::new(subject, DecidedBy::NoPermissionNeeded).detail(free)),
        };
    }
    decide(policy, &subject, found, Auto::No, Some(subject.clone()))
}

fn web_fetch(policy: &Policy, url: &str, host: &Result<String, String>) -> Decision {
    let subject = format!("WebFetch({url})");
    let tools = ["WebFetch"];
    match host {
        Ok(host) => {
            let pick = |kind| {
                policy
                    .tool_rule(kind, &tools)
                    .into_iter()
                    .chain(policy.domain_rule(kind, host))
                    .min()
            };
            let found = Found {
                deny: pick(Verdict::Deny),
                ask: pick(Verdict::Ask),
                allow: pick(Verdict::Allow),
            };
            decide(
                policy,
                &subject,
                found,
                Auto::No,
                Some(format!("WebFetch(domain:{host})")),
            )
        }
        Err(reason) => {
            if let Some(i) = policy.tool_rule(Verdict::Deny, &tools) {
                return Decision::Deny(rule_why(policy, i, &subject));
            }
            let relevant = policy.has_domain_rules(Verdict::Deny)
                || policy.has_domain_rules(Verdict::Ask)
                || policy.tool_rule(Verdict::Ask, &tools).is_some();
            uncertain(
                policy,
                &subject,
                reason,
                relevant,
                policy.tool_rule(Verdict::Allow, &tools),
            )
        }
    }
}

fn path_tool(policy: &Policy, tool: &str, targets: &[ResolvedPath], search: bool) -> Decision {
    if let Some(t) = targets
        .iter()
        .find(|t| process_secret(&t.canonical).is_some() || process_secret(&t.lexical).is_some())
    {
        return process_secret_refused(&format!("{tool}({})", t.canonical.display()));
    }
    let tools = family_tools(tool);
    let read = READ_TOOLS.contains(&tool);
    let mut decisions: Vec<Decision> = targets
        .iter()
        .map(|t| {
            let subject = format!("{tool}({})", t.canonical.display());
            let found = path_found(policy, &tools, t, search, true);
            let auto = match (read, policy.in_working_dirs(t)) {
                (true, true) => Auto::Read,
                (false, true) => Auto::Edit,
                _ => Auto::No,
            };
            let family = if read { "Read" } else { "Edit" };
            let suggestion = format!("{family}(/{})", t.canonical.display());
            let decision = decide(policy, &subject, found, auto, Some(suggestion));
            // A deny rule still refuses; nothing else lets a protected
            // path be written without a person.
            if read || decision.is_deny() {
                return decision;
            }
            match protected_write(policy, t, &t.canonical.to_string_lossy()) {
                Some(part) => {
                    let mut d = part.decision;
                    d.why_mut().subject = subject;
                    d
                }
                _ => decision,
            }
        })
        .collect();
    strictest(&mut decisions).unwrap_or_else(|| {
        Decision::Ask(Why::new(tool, DecidedBy::Uncertain).detail("no path given"))
    })
}

/// A file of a process that holds its secrets: its environment (tack's own
/// holds the model provider's key; an MCP server's, the tokens its
/// configuration gives it) or its memory. `/proc/self/environ`,
/// `/proc/<pid>/environ`, `/proc/<pid>/task/<tid>/mem`; which one, if so.
pub(crate) fn process_secret(path: &std::path::Path) -> Option<&'static str> {
    if own_secret(path) {
        return Some("sign-in tokens");
    }
    let mut parts = path.strip_prefix("/proc").ok()?.components();
    let pid = parts.next()?.as_os_str().to_str()?;
    if !(pid == "self" || pid == "thread-self" || pid.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let mut name = parts.next()?.as_os_str().to_str()?;
    if name == "task" {
        parts.next()?;
        name = parts.next()?.as_os_str().to_str()?;
    }
    if parts.next().is_some() {
        return None;
    }
    match name {
        "environ" => Some("environment"),
        "mem" => Some("memory"),
        _ => None,
    }
}

/// A path through `/proc` that ends in a process's `environ` or `mem`,
/// which [`process_secret`] cannot place because a link on the way leads
/// wherever the reading process is.
fn through_proc_to_a_secret(written: &str) -> bool {
    let path = std::path::Path::new(written);
    path.file_name()
        .is_some_and(|n| n == "environ" || n == "mem")
        && path.components().any(|c| c.as_os_str() == "proc")
}

/// tack's own file of MCP sign-in tokens (`<state dir>/mcp-oauth.json`,
/// the state directory being `TACK_STATE_DIR` or a directory named `tack`:
/// `~/.local/state/tack`, `$XDG_STATE_HOME/tack`), and its lock: the
/// tokens of every server the user signed in to.
fn own_secret(path: &std::path::Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if !name.starts_with("mcp-oauth.json") {
        return false;
    }
    let Some(dir) = path.parent() else {
        return false;
    };
    dir.file_name().is_some_and(|d| d == "tack")
        || std::env::var_os("TACK_STATE_DIR").is_some_and(|s| std::path::Path::new(&s) == dir)
}

/// tack's tools never read a process's environment or memory, whatever the
/// rules and the mode say: it holds credentials (tack's own among them)
/// that no tool result should carry. (A command that computes the path,
/// `cat /proc/$(pgrep x)/environ`, is left to the sandbox, and to the
/// non-dumpable tack and the credentials it withholds from what it starts.)
fn process_secret_refused(subject: &str) -> Decision {
    Decision::Deny(
        Why::new(
            subject,
            DecidedBy::Rule {
                rule: "Read(//proc/*/environ), Read(//proc/*/mem), Read(<state>/mcp-oauth.json)"
                    .to_owned(),
                list: Verdict::Deny,
                source: crate::Source::code(),
            },
        )
        .detail(
            "a process's environment and memory, and tack's file of MCP sign-in tokens, hold credentials (tack's own model key among them), so tack's tools never read them",
        ),
    )
}

/// Rules for a path: whole-tool rules (when `whole`) and path rules; deny
/// and ask look at the lexical and the canonical path, allow at the
/// canonical one only.
fn path_found(
    policy: &Policy,
    tools: &[&str],
    path: &ResolvedPath,
    search: bool,
    whole: bool,
) -> Found {
    let pick = |kind, forms| {
        let w = if whole {
            policy.tool_rule(kind, tools)
        } else {
            None
        };
        w.into_iter()
            .chain(policy.path_rule(kind, tools, path, forms, search))
            .min()
    };
    Found {
        deny: pick(Verdict::Deny, Forms::Both),
        ask: pick(Verdict::Ask, Forms::Both),
        allow: pick(Verdict::Allow, Forms::Canonical),
    }
}

/// The first decision with the strictest verdict.
fn strictest(decisions: &mut Vec<Decision>) -> Option<Decision> {
    let max = decisions.iter().map(Decision::verdict).max()?;
    let pos = decisions.iter().position(|d| d.verdict() == max)?;
    Some(decisions.swap_remove(pos))
}

fn bash(policy: &Policy, command: &str, items: &[Item]) -> Decision {
    let subject = format!("Bash({})", crate::shell::snippet(command));
    let bash_tool = ["Bash"];
    if let Some(i) = policy.tool_rule(Verdict::Deny, &bash_tool) {
        return Decision::Deny(rule_why(policy, i, &subject));
    }
    let mut parts: Vec<Part> = Vec::new();
    let mut wrappers = WrapperRules::default();
    // A file read outside the working directories by a redirection or an
    // option (`cat < /etc/shadow`, `echo "$(< ~/.ssh/id_rsa)"`): what
    // needs no rule reads only inside them.
    let mut read_outside: Option<&ResolvedPath> = None;
    for item in items {
        // A command reads a process's environment or memory, or tack's
        // file of sign-in tokens, by name: refused, as the file tools
        // refuse it, whatever the rules and the mode say.
        if let Item::Touch {
            family: Family::Read | Family::MaybeEdit,
            path,
            ..
        }
        | Item::Input { path } = item
            && (process_secret(&path.canonical).is_some()
                || process_secret(&path.lexical).is_some())
        {
            let s = format!("Read({})", path.canonical.display());
            parts.push(Part {
                decision: process_secret_refused(&s),
                subject: s,
            });
            continue;
        }
        // One through a link only the reading process resolves
        // (`/proc/1/task/1/environ`, `/proc/self/root/proc/1/environ`).
        if let Item::Uncertain {
            kind: UncertainKind::Touch(Family::Read | Family::MaybeEdit),
            snippet,
            ..
        } = item
            && through_proc_to_a_secret(snippet)
        {
            let s = format!("Read({snippet})");
            parts.push(Part {
                decision: process_secret_refused(&s),
                subject: s,
            });
            continue;
        }
        let part = match item {
            Item::Command(c) if c.guessed => guessed_part(policy, c, &mut wrappers),
            Item::Command(c) if c.equivalent.is_some() => equivalent_part(policy, c, &mut wrappers),
            Item::Command(c) => Some(command_part(policy, c, &mut wrappers)),
            Item::Edit { path, written } => {
                parts.extend(protected_write(policy, path, written));
                Some(edit_part(policy, path, written))
            }
            Item::EditInside {
                path,
                written,
                restrict_only,
            } => {
                parts.extend(protected_write(policy, path, written));
                edit_inside(policy, path, written, *restrict_only)
            }
            Item::Written { written, path } => protected_write(policy, path, written),
            Item::Removal { written, removed } => critical_removal(policy, removed, written),
            Item::Touch {
                family,
                path,
                written,
                recursive,
            } => {
                parts.extend(touch_parts(policy, *family, path, written, *recursive));
                continue;
            }
            // Not looked inside (see `request::look_inside`): all of it.
            Item::ReadVisible { written, path, .. } | Item::ReadNarrowed { written, path, .. } => {
                parts.extend(touch_parts(policy, Family::Read, path, written, true));
                continue;
            }
            Item::GitContent {
                written,
                worktree,
                within,
                except,
            } => {
                parts.extend(git_content_parts(policy, written, worktree, within, except));
                continue;
            }
            Item::Input { path } => {
                if !policy.in_working_dirs(path) {
                    read_outside.get_or_insert(path);
                }
                continue;
            }
            Item::Host { written, host } => host_part(policy, written, host),
            Item::Uncertain {
                kind,
                snippet,
                reason,
            } => {
                if let Some((relevant, detail)) = restricting(policy, *kind, reason) {
                    if relevant {
                        let s = format!("Bash({snippet})");
                        parts.push(Part {
                            decision: uncertain(policy, &s, &detail, true, None),
                            subject: s,
                        });
                    }
                    continue;
                }
                let (relevant, wholesale) = match kind {
                    UncertainKind::Command => (
                        policy.has_bash_rules(Verdict::Deny) || policy.has_bash_rules(Verdict::Ask),
                        policy.tool_rule(Verdict::Allow, &bash_tool),
                    ),
                    _ => (
                        policy.has_path_rules(Verdict::Deny, &["Edit"])
                            || policy.has_path_rules(Verdict::Ask, &["Edit"]),
                        policy.tool_rule(Verdict::Allow, &["Edit"]),
                    ),
                };
                let s = format!("Bash({snippet})");
                Some(Part {
                    decision: uncertain(policy, &s, reason, relevant, wholesale),
                    subject: s,
                })
            }
        };
        parts.extend(part);
    }
    let free =
        |d: &Decision| d.is_allow() && matches!(d.why().decided_by, DecidedBy::NoPermissionNeeded);
    // A project file's narrow rule reaches as far as the project: a file
    // it reads by a redirection outside them is asked too.
    let project_held = |d: &Decision| {
        d.is_allow()
            && matches!(&d.why().decided_by, DecidedBy::Rule { rule, source, .. }
                if narrow_project_rule(policy, rule, source))
    };
    if let Some(path) = read_outside
        && parts
            .iter()
            .all(|p| free(&p.decision) || project_held(&p.decision))
    {
        let s = format!("Read({})", path.canonical.display());
        let mut decision = fallback(policy, &s, Auto::No, None);
        if !decision.is_allow() {
            decision.why_mut().detail = Some(
                "it reads a file outside the working directories; commands that only read need no rule inside them".into(),
            );
        }
        parts.push(Part {
            decision,
            subject: s,
        });
    }
    if let Some(i) = policy.tool_rule(Verdict::Ask, &bash_tool) {
        let why = rule_why(policy, i, &subject);
        let mut d = ask_or_refuse(policy, why);
        // A deny of a part is still stricter.
        if let Some(deny) = parts.iter().find(|p| p.decision.is_deny()) {
            d = deny.decision.clone();
            let w = d.why_mut();
            w.via = Some(w.subject.clone());
            w.subject = subject.clone();
        }
        d.why_mut().parts = parts;
        return d;
    }
    if parts.is_empty() {
        return Decision::Allow(
            Why::new(subject, DecidedBy::NoPermissionNeeded)
                .detail("nothing in the command runs a program or writes a file"),
        );
    }
    let Some(max) = parts.iter().map(|p| p.decision.verdict()).max() else {
        return Decision::Ask(Why::new(subject, DecidedBy::Uncertain));
    };
    let mut why = if max == Verdict::Allow && parts.len() > 1 {
        Why::new(subject.clone(), DecidedBy::AllParts)
    } else {
        let deciding = parts.iter().find(|p| p.decision.verdict() == max);
        let mut w = deciding
            .map(|p| p.decision.why().clone())
            .unwrap_or_else(|| Why::new(subject.clone(), DecidedBy::Uncertain));
        if w.subject != subject {
            w.via = Some(w.subject.clone());
        }
        w.subject = subject.clone();
        w
    };
    if max == Verdict::Ask {
        // Allow rules help only when every ask is a missing allow.
        let fixable = parts
            .iter()
            .filter(|p| p.decision.is_ask())
            .all(|p| matches!(p.decision.why().decided_by, DecidedBy::NoRuleMatched { .. }));
        why.suggestions.clear();
        if fixable {
            for p in parts.iter().filter(|p| p.decision.is_ask()) {
                for s in &p.decision.why().suggestions {
                    if !why.suggestions.contains(s) {
                        why.suggestions.push(s.clone());
                    }
                }
            }
        }
    }
    why.parts = parts;
    Decision::with_verdict(max, why)
}

/// A path a command (or an MCP tool's input) names, against the deny and
/// ask rules of its family: no part when none applies.
/// A file a command writes (a redirection, `sort -o`): an edit, decided by
/// the Edit rules, else by the mode (acceptEdits allows it inside the
/// working directories only).
fn edit_part(policy: &Policy, path: &ResolvedPath, written: &str) -> Part {
    let s = format!("Edit({})", path.canonical.display());
    let found = path_found(policy, &["Edit"], path, false, true);
    let auto = if policy.in_working_dirs(path) {
        Auto::Edit
    } else {
        Auto::No
    };
    let suggestion = format!("Edit(/{})", path.canonical.display());
    let mut decision = decide(policy, &s, found, auto, Some(suggestion));
    note_written(&mut decision, written, path);
    Part {
        decision,
        subject: s,
    }
}

fn touch_parts(
    policy: &Policy,
    family: Family,
    path: &ResolvedPath,
    written: &str,
    recursive: bool,
) -> Vec<Part> {
    let name = family.rules_tool();
    // A file given to a program that may change it (`objcopy … .git/config`,
    // `gcc -o .git/hooks/pre-commit`) meets the protected paths as it meets
    // the Edit rules: the safeguard stands above the rules, so it sees at
    // least what they see.
    let mut out: Vec<Part> = if family == Family::MaybeEdit {
        protected_write(policy, path, written).into_iter().collect()
    } else {
        Vec::new()
    };
    // A directory named may have any of its entries touched
    // (`rm -r dir`, `grep -r x dir`, `cp f dir/`).
    let found = path_found(policy, &[name], path, true, false);
    if family == Family::MaybeEdit && recursive && found.deny.is_none() && found.ask.is_none() {
        // `prettier --write .`: a rule for something inside.
        out.extend(may_change_inside(policy, path, written));
        return out;
    }
    if found.deny.is_none() && found.ask.is_none() {
        return out;
    }
    let s = format!("{name}({})", path.canonical.display());
    let only_restrictions = if family == Family::MaybeEdit {
        // It may change the file: asked, whichever rule.
        Found {
            allow: None,
            deny: None,
            ask: found.deny.into_iter().chain(found.ask).min(),
        }
    } else {
        Found {
            allow: None,
            ..found
        }
    };
    let mut decision = decide(policy, &s, only_restrictions, Auto::No, None);
    if family == Family::MaybeEdit {
        let why = decision.why_mut();
        let may = format!(
            "`{written}` is given to a program that may change it (tack does not know it to leave the files it is given alone)"
        );
        why.detail = Some(match why.detail.take() {
            Some(mode) => format!("{may}; {mode}"),
            None => may,
        });
    }
    note_written(&mut decision, written, path);
    out.push(Part {
        decision,
        subject: s,
    });
    out
}

/// What git prints from the files it tracks (`git log -p`, `git show`, `git
/// grep`; see [`crate::shell::Item::GitContent`]): a Read deny or ask rule
/// for a file git tracks in `worktree`, under `within` (everywhere when
/// empty) and not under `except`, holds for the command as for a read of
/// that file; the first file each rule kind meets is named. When what git
/// tracks cannot be known, the command reads everything under `worktree`.
fn git_content_parts(
    policy: &Policy,
    written: &str,
    worktree: &ResolvedPath,
    within: &[ResolvedPath],
    except: &[ResolvedPath],
) -> Vec<Part> {
    const READ: &[&str] = &["Read"];
    if !policy.has_path_rules(Verdict::Deny, READ) && !policy.has_path_rules(Verdict::Ask, READ) {
        return Vec::new();
    }
    let Some(files) = crate::git_index::tracked(&worktree.canonical) else {
        return touch_parts(policy, Family::Read, worktree, written, true);
    };
    let under = |f: &Path, dirs: &[ResolvedPath]| {
        dirs.iter()
            .any(|d| f.starts_with(&d.canonical) || f.starts_with(&d.lexical))
    };
    let (mut deny, mut ask) = (None, None);
    for f in files.iter() {
        if (!within.is_empty() && !under(f, within)) || under(f, except) {
            continue;
        }
        let path = ResolvedPath {
            lexical: f.clone(),
            canonical: f.clone(),
        };
        let found = path_found(policy, READ, &path, false, false);
        if deny.is_none() && found.deny.is_some() {
            deny = Some(path);
            break;
        }
        if ask.is_none() && found.ask.is_some() {
            ask = Some(path);
        }
    }
    let Some(file) = deny.or(ask) else {
        return Vec::new();
    };
    let mut parts = touch_parts(policy, Family::Read, &file, written, false);
    for part in &mut parts {
        let why = part.decision.why_mut();
        why.detail = Some(format!(
            "`{written}` prints what the files git tracks hold, {} among them; name the paths it may show after `--` (`{written} … -- src/`)",
            file.canonical.display()
        ));
    }
    parts
}

/// A host a command reaches, against the `WebFetch(domain:…)` deny and ask
/// rules (allow rules do not allow a command: it must be allowed as a
/// command). No part when none applies.
fn host_part(policy: &Policy, written: &str, host: &str) -> Option<Part> {
    let found = Found {
        deny: policy.domain_rule(Verdict::Deny, host),
        ask: policy.domain_rule(Verdict::Ask, host),
        allow: None,
    };
    if found.deny.is_none() && found.ask.is_none() {
        return None;
    }
    let subject = format!("WebFetch(domain:{host})");
    let mut decision = decide(policy, &subject, found, Auto::No, None);
    let why = decision.why_mut();
    let reach = format!(
        "it reaches {host} (`{written}`), and domain rules hold for commands and MCP tools as for WebFetch"
    );
    why.detail = Some(match why.detail.take() {
        Some(mode) => format!("{reach}; {mode}"),
        None => reach,
    });
    Some(Part { decision, subject })
}

/// Files of names known only at run time written inside `dir`: an edit of
/// everything inside it; asked when a deny or ask rule applies to some path
/// inside it that the directory's own rules do not settle. With
/// `restrict_only`, only deny and ask rules count (no part otherwise).
fn edit_inside(
    policy: &Policy,
    dir: &ResolvedPath,
    written: &str,
    restrict_only: bool,
) -> Option<Part> {
    let subject = format!("Edit({}/**)", dir.canonical.display());
    let mut found = path_found(policy, &["Edit"], dir, true, !restrict_only);
    if restrict_only {
        found.allow = None;
    }
    let inside = if found.deny.is_none() && found.ask.is_none() {
        edit_rule_inside(policy, dir)
    } else {
        None
    };
    let mut decision = match inside {
        Some(rule) => asked_inside(
            policy,
            &subject,
            format!(
                "it writes files whose names are known only when it runs, inside a directory where the rule `{rule}` applies to some paths"
            ),
        ),
        None if restrict_only && found.deny.is_none() && found.ask.is_none() => return None,
        None => {
            let auto = if policy.in_working_dirs(dir) {
                Auto::Edit
            } else {
                Auto::No
            };
            let suggestion = format!("Edit(/{}/**)", dir.canonical.display());
            decide(policy, &subject, found, auto, Some(suggestion))
        }
    };
    note_written(&mut decision, written, dir);
    Some(Part { decision, subject })
}

/// A directory given to a program that may change the files in it
/// (`prettier --write .`): asked when an Edit deny or ask rule applies to
/// something inside; nothing otherwise (the program is the command's own
/// business, as for a file given to it).
fn may_change_inside(policy: &Policy, dir: &ResolvedPath, written: &str) -> Option<Part> {
    let rule = edit_rule_inside(policy, dir)?;
    let subject = format!("Edit({}/**)", dir.canonical.display());
    let mut decision = asked_inside(
        policy,
        &subject,
        format!(
            "the directory `{written}` is given to a program that may change the files in it (tack does not know it to leave the files it is given alone), and the rule `{rule}` applies to some paths inside"
        ),
    );
    note_written(&mut decision, written, dir);
    Some(Part { decision, subject })
}

/// The text of the first Edit deny (else ask) rule that could match
/// something inside `dir`.
fn edit_rule_inside(policy: &Policy, dir: &ResolvedPath) -> Option<String> {
    let i = policy
        .path_rule_inside(Verdict::Deny, &["Edit"], dir)
        .or_else(|| policy.path_rule_inside(Verdict::Ask, &["Edit"], dir))?;
    Some(
        policy
            .rules
            .get(i)
            .map(|r| r.text.clone())
            .unwrap_or_default(),
    )
}

/// Changes inside a directory that a rule speaks for in part: asked (refused
/// in dontAsk), since which files they are is known only when it runs.
fn asked_inside(policy: &Policy, subject: &str, detail: String) -> Decision {
    let why = Why::new(subject, DecidedBy::Uncertain).detail(detail);
    ask_or_refuse(policy, why)
}

/// Say how a path was written when it differs from what it resolved to.
fn note_written(decision: &mut Decision, written: &str, path: &ResolvedPath) {
    let why = decision.why_mut();
    if why.detail.is_none() && std::path::Path::new(written) != path.canonical {
        why.detail = Some(format!("written as `{written}`"));
    }
}

/// The deny and ask rules matching each wrapper's text, found once per
/// wrapper: the commands of `pee s1 s2 … s1000` share one wrapper text as
/// long as the whole command, and matching it again for each would be
/// quadratic in the command. Known by the text's address, which stays put
/// while the items that hold it are alive.
#[derive(Default)]
struct WrapperRules(std::collections::HashMap<usize, (Option<usize>, Option<usize>)>);

impl WrapperRules {
    fn get(&mut self, policy: &Policy, text: &Arc<str>) -> (Option<usize>, Option<usize>) {
        *self
            .0
            .entry(Arc::as_ptr(text).cast::<u8>() as usize)
            .or_insert_with(|| {
                // `/usr/bin/sudo …` is `sudo …` to a rule that names it.
                let base = basename_form(text);
                let forms = || std::iter::once(&**text).chain(base.as_deref());
                (
                    policy.bash_rule(Verdict::Deny, forms()),
                    policy.bash_rule(Verdict::Ask, forms()),
                )
            })
    }
}

/// A command's text with its program named by file name alone, when it is
/// written with a directory (`/usr/bin/sudo ls` → `sudo ls`).
fn basename_form(text: &str) -> Option<String> {
    let (program, rest) = text.split_once(' ').unwrap_or((text, ""));
    let (_, base) = program.rsplit_once('/')?;
    (!base.is_empty()).then(|| format!("{base} {rest}").trim_end().to_string())
}

/// The decision on one simple command.
fn command_part(policy: &Policy, c: &Command, wrappers: &mut WrapperRules) -> Part {
    let subject = format!("Bash({})", c.text);
    let mut deny_forms: Vec<&str> = vec![&c.text, &c.raw, &c.plain];
    deny_forms.extend(c.basename_forms.iter().map(String::as_str));
    let (mut wrapper_deny, mut wrapper_ask) = (None, None);
    for text in c.outer.iter().chain(&c.privileged) {
        let (deny, ask) = wrappers.get(policy, text);
        wrapper_deny = wrapper_deny.into_iter().chain(deny).min();
        wrapper_ask = wrapper_ask.into_iter().chain(ask).min();
    }
    let first_word = c.text.split(' ').next().unwrap_or_default();
    let could = |kind| {
        c.dynamic_prefix.as_deref().and_then(|prefix| {
            let by_name = policy.bash_rule_could_match(kind, first_word, prefix);
            let by_base = if c.base != first_word {
                let stripped = prefix.strip_prefix(first_word).unwrap_or(prefix);
                policy.bash_rule_could_match(kind, &c.base, &format!("{}{stripped}", c.base))
            } else {
                None
            };
            by_name.into_iter().chain(by_base).min()
        })
    };
    // Deny and ask rules also meet the options they name in any spelling
    // and order (`rm -fr` meets `Bash(rm -rf *)`).
    let shapes = policy.bash_shapes(
        std::iter::once(c.text.as_str()).chain(c.basename_forms.iter().map(String::as_str)),
    );
    let (shaped_deny, might_deny) = policy.bash_rule_by_shape(Verdict::Deny, &shapes);
    let (shaped_ask, might_ask) = policy.bash_rule_by_shape(Verdict::Ask, &shapes);
    let as_written = Found {
        deny: policy
            .bash_rule(Verdict::Deny, deny_forms.iter().copied())
            .into_iter()
            .chain(wrapper_deny)
            .min(),
        ask: policy
            .bash_rule(Verdict::Ask, deny_forms.iter().copied())
            .into_iter()
            .chain(wrapper_ask)
            .min(),
        allow: None,
    };
    let found = Found {
        deny: as_written.deny.into_iter().chain(shaped_deny).min(),
        ask: as_written.ask.into_iter().chain(shaped_ask).min(),
        allow: None,
    };
    let might_deny = could(Verdict::Deny).into_iter().chain(might_deny).min();
    let decision = if found.deny.is_some() || found.ask.is_some() {
        let mut d = decide(policy, &subject, found, Auto::No, None);
        let by_shape = if found.deny.is_some() {
            found.deny != as_written.deny
        } else {
            found.ask != as_written.ask
        };
        if by_shape {
            let why = d.why_mut();
            let read = format!(
                "read as `{}` reads its command line, it gives what the rule names (options in any order or spelling)",
                c.base
            );
            why.detail = Some(match why.detail.take() {
                Some(mode) => format!("{read}; {mode}"),
                None => read,
            });
        }
        d
    } else if let Some(i) =
        might_deny.or_else(|| could(Verdict::Ask).into_iter().chain(might_ask).min())
    {
        let rule = policy
            .rules
            .get(i)
            .map(|r| r.text.clone())
            .unwrap_or_default();
        let detail = format!(
            "its arguments are computed at run time, and the rule `{rule}` might match what they become"
        );
        let why = Why::new(&subject, DecidedBy::Uncertain).detail(detail);
        ask_or_refuse(policy, why)
    } else {
        let wholesale = policy.tool_rule(Verdict::Allow, &["Bash"]);
        // A rule that names the command allows what its words name, not
        // what a link among them leads to: `allow Bash(cat docs/*)` and a
        // `docs/k` the model linked to `~/.ssh/id_rsa` (a path written
        // inside the working directories that is outside them).
        let through_a_link = c.path_args.as_ref().and_then(|args| {
            args.iter().find(|p| {
                p.lexical != p.canonical
                    && policy.in_working_dirs_as_written(p)
                    && !policy.in_working_dirs(p)
            })
        });
        let named_as_written = policy.bash_rule(Verdict::Allow, [c.text.as_str(), c.raw.as_str()]);
        let named = named_as_written.filter(|_| through_a_link.is_none());
        let main = wholesale.into_iter().chain(named).min();
        let mut missing_privileged: Option<&str> = None;
        for p in &c.privileged {
            if wholesale.is_none() && policy.bash_rule(Verdict::Allow, [&**p]).is_none() {
                missing_privileged = Some(p);
                break;
            }
        }
        let past = main
            .filter(|&i| held_to_project(policy, i))
            .and_then(|_| past_the_project(policy, c));
        match (main, missing_privileged) {
            (Some(i), None) if let Some(past) = past => {
                let mut d = fallback(policy, &subject, Auto::No, None);
                if !d.is_allow() {
                    let rule = policy.rules.get(i).map(|r| r.text.as_str()).unwrap_or("");
                    d.why_mut().detail = Some(format!(
                        "{past}: the project's rule `{rule}` allows it inside the working directories only (a rule of a project file not reviewed reaches as far as the project)"
                    ));
                }
                d
            }
            (Some(i), None) => Decision::Allow(rule_why(policy, i, &subject)),
            (_, Some(p)) => {
                let mut d = fallback(policy, &subject, Auto::No, Some(suggest_bash(p)));
                if !d.is_allow() {
                    d.why_mut().detail = Some(format!(
                        "it runs with raised privileges, so `{}` must be allowed as well",
                        crate::shell::snippet(p)
                    ));
                }
                d
            }
            (None, None) if let Some(why) = c.checked_elsewhere => {
                Decision::Allow(Why::new(&subject, DecidedBy::NoPermissionNeeded).detail(why))
            }
            (None, None) => {
                if let Some(d) = auto_command(policy, c, &subject) {
                    d
                } else if let (Some(i), Some(link)) = (named_as_written, through_a_link) {
                    let mut d = fallback(policy, &subject, Auto::No, None);
                    if !d.is_allow() {
                        let rule = policy.rules.get(i).map(|r| r.text.as_str()).unwrap_or("");
                        d.why_mut().detail = Some(format!(
                            "`{}` leads to {}, outside the working directories: the rule `{rule}` allows the name, not where a link leads",
                            link.lexical.display(),
                            link.canonical.display()
                        ));
                    }
                    d
                } else {
                    fallback(policy, &subject, Auto::No, Some(suggest_bash(&c.text)))
                }
            }
        }
    };
    Part { subject, decision }
}

/// Whether the allow rule `i` is a Bash rule of a project file that
/// reaches only as far as the project: one [`crate::wide_allow_rule`] calls
/// narrow, which applies without the user's review. A wide one applies
/// only once the user approved the file, and reaches as far as it says.
fn held_to_project(policy: &Policy, i: usize) -> bool {
    policy
        .rules
        .get(i)
        .is_some_and(|r| narrow_project_rule(policy, &r.text, &r.source))
}

fn narrow_project_rule(policy: &Policy, rule: &str, source: &crate::Source) -> bool {
    source.level == crate::Level::Project
        && crate::wide_allow_rule(
            rule,
            &policy.project_root.canonical,
            policy.home.as_ref().map(|h| h.canonical.as_path()),
        )
        .is_none()
}

/// What in command `c` reaches past the working directories, for a rule
/// held to the project ([`held_to_project`]): for a reader, that is all a
/// project's `Bash(cat *)` adds (inside them it needs no rule), so it is
/// `Read(//**)` by another name. An operand outside them, arguments not
/// known before running, or a word naming a path outside them (in an
/// option's value too: `curl -d @FILE`, `--in=FILE`, `file:///…`, `-o/x`).
fn past_the_project(policy: &Policy, c: &Command) -> Option<String> {
    if c.dynamic_prefix.is_some() {
        return Some("its arguments are known only when it runs".to_owned());
    }
    let args = c.path_args.as_deref().unwrap_or_default();
    if let Some(p) = args.iter().find(|p| !policy.in_working_dirs(p)) {
        return Some(format!(
            "it names {}, outside the working directories",
            p.canonical.display()
        ));
    }
    c.plain
        .split(' ')
        .skip(1)
        .filter_map(|word| path_in_word(policy, word))
        .find(|p| !policy.in_working_dirs(p))
        .map(|p| {
            format!(
                "it names {}, outside the working directories",
                p.canonical.display()
            )
        })
}

/// The path a word of a command line names, written absolute, from home or
/// up through `..`: as it is, after an option's `=` or its letters
/// (`--in=/x`, `-o/x`), after `@` (curl's `-d @FILE`) or `file://`.
fn path_in_word(policy: &Policy, word: &str) -> Option<ResolvedPath> {
    let mut w = word;
    if w.starts_with('-') {
        w = match w.find('=') {
            Some(at) => &w[at + 1..],
            None => &w[w.find(['/', '~'])?..],
        };
    }
    w = w.trim_start_matches(['@', '<']);
    if let Some(rest) = w
        .get(..7)
        .filter(|p| p.eq_ignore_ascii_case("file://"))
        .map(|_| &w[7..])
    {
        w = rest;
    }
    let path = if let Some(rest) = w.strip_prefix('~') {
        match rest.strip_prefix('/') {
            Some(rest) => policy.home.as_ref()?.lexical.join(rest),
            None if rest.is_empty() => policy.home.as_ref()?.lexical.clone(),
            // Another user's home (`~root/.ssh`).
            None => std::path::PathBuf::from("/"),
        }
    } else if w.starts_with('/') || w.split('/').any(|c| c == "..") {
        std::path::PathBuf::from(w)
    } else {
        return None;
    };
    crate::paths::resolve(&path, &policy.cwd.lexical, policy.resolution).ok()
}

/// Commands allowed without a rule: those that only read, and `cd`, inside
/// the working directories (all modes); file commands in acceptEdits.
fn auto_command(policy: &Policy, c: &Command, subject: &str) -> Option<Decision> {
    let plain = c.privileged.is_empty() && c.outer.is_empty();
    if plain && c.read_only == ReadOnly::NoFiles {
        return Some(Decision::Allow(
            Why::new(subject, DecidedBy::NoPermissionNeeded)
                .detail("it reads no file (one of the commands that only read)"),
        ));
    }
    let args = c.path_args.as_ref()?;
    // Reading refused or asked whole (`deny: ["Read"]`): what reads is
    // not allowed without a rule of its own.
    let reads_restricted = [Verdict::Deny, Verdict::Ask]
        .into_iter()
        .any(|kind| policy.tool_rule(kind, &["Read"]).is_some());
    if plain
        && c.read_only == ReadOnly::Files
        && !reads_restricted
        && !args.is_empty()
        && args.iter().all(|p| policy.in_working_dirs(p))
    {
        return Some(Decision::Allow(
            Why::new(subject, DecidedBy::NoPermissionNeeded).detail(
                "it only reads (one of the commands that only read), inside the working directories",
            ),
        ));
    }
    if c.privileged.is_empty() && !args.is_empty() && args.iter().all(|p| policy.in_working_dirs(p))
    {
        if matches!(c.base.as_str(), "cd" | "pushd") && c.outer.is_empty() {
            return Some(Decision::Allow(
                Why::new(subject, DecidedBy::NoPermissionNeeded)
                    .detail("changing directory inside the working directories"),
            ));
        }
        if policy.mode == Mode::AcceptEdits && ACCEPT_EDITS_COMMANDS.contains(&c.base.as_str()) {
            return Some(Decision::Allow(
                Why::new(
                    subject,
                    DecidedBy::Mode {
                        mode: policy.mode,
                        source: policy.mode_source.clone(),
                    },
                )
                .detail("file edits inside the working directories"),
            ));
        }
    }
    None
}

/// Words a program tack does not know may run as a command: asked when a
/// deny or ask rule matches them (nothing otherwise; see
/// [`crate::shell::Command::guessed`]).
fn guessed_part(policy: &Policy, c: &Command, wrappers: &mut WrapperRules) -> Option<Part> {
    let part = command_part(policy, c, wrappers);
    let DecidedBy::Rule {
        rule,
        list: Verdict::Deny | Verdict::Ask,
        ..
    } = &part.decision.why().decided_by
    else {
        return None;
    };
    let why = Why::new(part.subject.clone(), DecidedBy::Uncertain).detail(format!(
        "`{}` is given to a program tack does not know, which may run it as a command, and the rule `{rule}` matches it; confirm on a terminal what the program does with it",
        c.text
    ));
    Some(Part {
        decision: ask_or_refuse(policy, why),
        subject: part.subject,
    })
}

/// The form of a command that amounts to another (`rm a.txt` for `unlink
/// a.txt`; see [`crate::shell::Command::equivalent`]): what a deny or ask
/// rule decides for it, nothing otherwise.
fn equivalent_part(policy: &Policy, c: &Command, wrappers: &mut WrapperRules) -> Option<Part> {
    let mut part = command_part(policy, c, wrappers);
    if !matches!(
        part.decision.why().decided_by,
        DecidedBy::Rule {
            list: Verdict::Deny | Verdict::Ask,
            ..
        } | DecidedBy::Uncertain
    ) || part.decision.is_allow()
    {
        return None;
    }
    let written = c.outer.last().map_or("", |o| &**o);
    let alike = c.equivalent.unwrap_or_default();
    let why = part.decision.why_mut();
    let read = format!(
        "`{}` {alike}: read as `{}`",
        crate::shell::snippet(written),
        c.text
    );
    why.detail = Some(match why.detail.take() {
        Some(more) => format!("{read}; {more}"),
        None => read,
    });
    Some(part)
}

/// The allow rule to suggest for a command: its program and subcommand.
fn suggest_bash(text: &str) -> String {
    let words: Vec<&str> = text
        .split(' ')
        .filter(|w| !w.is_empty() && *w != "…")
        .collect();
    let mut prefix: Vec<&str> = words.iter().take(1).copied().collect();
    if let Some(second) = words.get(1)
        && second
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':')
        && !second.starts_with('-')
    {
        prefix.push(second);
    }
    format!("Bash({} *)", prefix.join(" "))
}

#[cfg(test)]
mod tests {
    use super::suggest_bash;

    #[test]
    fn suggestions() {
        assert_eq!(suggest_bash("git push origin main"), "Bash(git push *)");
        assert_eq!(suggest_bash("ls -la"), "Bash(ls *)");
        assert_eq!(suggest_bash("rm …"), "Bash(rm *)");
    }
}
