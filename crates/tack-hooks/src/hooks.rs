//! Running the hooks of one event: the loop here, what each kind of hook
//! result means in [`interpret`], and what each event does with it in a
//! module of its own (PreToolUse, PostToolUse and PostToolUseFailure,
//! UserPromptSubmit, Stop, SessionStart and SessionEnd).
//!
//! ```text
//!  matching hooks (declared order, deduplicated by command)
//!    └─► for each: stdin JSON ─► run (sh -c, timeout) ─► interpret ─► event state
//!          exit 0, stdout `{…}` ─► JSON fields (continue, systemMessage, decision, hookSpecificOutput)
//!          exit 0, other stdout ─► context (UserPromptSubmit, SessionStart) or output report
//!          exit 2              ─► block with stderr as the reason
//!          other / timeout / signal / invalid JSON ─► report; fail-closed hooks also block
//! ```
//!
//! PreToolUse and UserPromptSubmit stop at the first hook that denies, blocks
//! or stops the agent; the other events run every matching hook, since what
//! they observe has already happened.

mod compact;
mod interpret;
mod permission_request;
mod post_tool_use;
mod pre_tool_use;
mod session;
mod stop;
mod subagent;
mod user_prompt_submit;

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::config::{CommandHook, Config, HookEvent};
use crate::error::Result;
use crate::outcome::{HookReport, HookRun, ReportKind};
use crate::run;

use interpret::{EventState, interpret};

/// The session facts every hook receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookContext {
    /// `session_id` on stdin.
    pub session_id: String,
    /// `transcript_path` on stdin: the session's JSONL transcript.
    pub transcript_path: PathBuf,
    /// `cwd` on stdin: the agent's working directory.
    pub cwd: PathBuf,
    /// `permission_mode` on stdin: `default`, `acceptEdits`, `plan`,
    /// `dontAsk` or `bypassPermissions`.
    pub permission_mode: String,
    /// The hook's working directory, and `CLAUDE_PROJECT_DIR` /
    /// `TACK_PROJECT_DIR` in its environment.
    pub project_dir: PathBuf,
    /// Set inside a sub-agent: `agent_id` and `agent_type` on stdin.
    pub agent: Option<SubagentIdentity>,
}

/// Which sub-agent a hook runs for (protocols: `agent_id`, `agent_type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentIdentity {
    pub agent_id: String,
    pub agent_type: String,
}

/// The hooks of a session, read from settings; runs them per event.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    config: Config,
}

impl Hooks {
    /// Reads the `hooks` key (and `disableAllHooks`) of each settings value,
    /// given as `(file path, parsed JSON)` in the order user, project, local
    /// (managed settings: [`Hooks::from_settings_with_managed`]).
    /// Hooks run in that order, and within a file in the file's order.
    ///
    /// A value of the wrong shape, a missing `command` or a bad regex is an
    /// [`Error`](crate::Error) naming the file and the JSON path. An unknown
    /// event name or hook type is not an error (files are shared with newer
    /// Claude Code versions): it is skipped and listed in [`warnings`](Self::warnings).
    pub fn from_settings(sources: &[(String, &Value)]) -> Result<Hooks> {
        Ok(Hooks {
            config: Config::parse(sources)?,
        })
    }

    /// [`Hooks::from_settings`] for `sources` (user, project, local) plus the
    /// administrator's `managed` settings, whose hooks run last: they judge
    /// the input as the other hooks rewrote it, and a copy of a managed
    /// command in another file runs at the managed place, not before.
    /// `disableAllHooks` in `sources` does not turn off managed hooks (in
    /// `managed` it turns off every hook), and `allowManagedHooksOnly: true`
    /// in `managed` leaves out every other hook, as in Claude Code.
    pub fn from_settings_with_managed(
        sources: &[(String, &Value)],
        managed: &[(String, &Value)],
    ) -> Result<Hooks> {
        Ok(Hooks {
            config: Config::parse_with_managed(sources, managed)?,
        })
    }

    /// These hooks and those of `hooks` (a `hooks` value as settings write
    /// it, e.g. an agent definition's frontmatter, from `file`), which run
    /// after the settings' own and before the administrator's managed
    /// hooks. `Err` (for the person) when they could not run here: the
    /// value is malformed, `disableAllHooks` turns every hook off, or the
    /// administrator allows only managed hooks.
    pub fn with_added(&self, file: &str, hooks: &Value) -> std::result::Result<Hooks, String> {
        if let Some(by) = &self.config.disabled_by {
            return Err(format!(
                "disableAllHooks in {by} turns every hook off, so these hooks cannot run"
            ));
        }
        if let Some(by) = &self.config.managed_only {
            return Err(format!(
                "allowManagedHooksOnly in {by} lets only the administrator's hooks run"
            ));
        }
        let mut source = Map::new();
        source.insert("hooks".into(), hooks.clone());
        let added = Config::parse(&[(file.to_owned(), &Value::Object(source))])
            .map_err(|e| e.to_string())?;
        let mut config = self.config.clone();
        let at = config
            .groups
            .iter()
            .position(|(_, g)| g.managed)
            .unwrap_or(config.groups.len());
        config.groups.splice(at..at, added.groups);
        config.warnings.extend(added.warnings);
        Ok(Hooks { config })
    }

    /// What was skipped while reading the settings, for the user.
    pub fn warnings(&self) -> &[String] {
        &self.config.warnings
    }

    /// The file that set `"disableAllHooks": true`, if one did; then no hook runs.
    pub fn disabled_by(&self) -> Option<&str> {
        self.config.disabled_by.as_deref()
    }

    /// Whether no hook can ever run.
    pub fn is_empty(&self) -> bool {
        self.config.disabled_by.is_some()
            || self.config.groups.iter().all(|(_, g)| g.hooks.is_empty())
    }

    /// Whether any hook is configured for `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.config.disabled_by.is_none()
            && self
                .config
                .groups
                .iter()
                .any(|(e, g)| *e == event && !g.hooks.is_empty())
    }

    /// The hooks that run for `event` on `subject` (tool name, session start
    /// source, session end reason), in order.
    ///
    /// Identical commands run once, at the place of the first, as in Claude
    /// Code (except that a managed hook keeps its own place); if any of the
    /// copies is fail-closed, the one run is.
    pub fn matching(&self, event: HookEvent, subject: &str) -> Vec<CommandHook> {
        // Each hook with whether it is managed.
        let mut hooks: Vec<(CommandHook, bool)> = Vec::new();
        if self.config.disabled_by.is_some() {
            return Vec::new();
        }
        for (e, group) in &self.config.groups {
            if *e != event || (event.uses_matcher() && !group.matcher.matches(subject)) {
                continue;
            }
            for hook in &group.hooks {
                let same = hooks
                    .iter()
                    .position(|(h, _)| h.hook.command == hook.hook.command);
                match same {
                    // A copy in another file must not move the
                    // administrator's hook before the rewrites it judges.
                    Some(i) if group.managed && !hooks.get(i).is_some_and(|(_, m)| *m) => {
                        let (earlier, _) = hooks.remove(i);
                        let mut hook = hook.clone();
                        hook.fail_closed |= earlier.fail_closed;
                        hooks.push((hook, true));
                    }
                    Some(i) => {
                        if let Some((first, _)) = hooks.get_mut(i) {
                            first.fail_closed |= hook.fail_closed;
                        }
                    }
                    None => hooks.push((hook.clone(), group.managed)),
                }
            }
        }
        hooks.into_iter().map(|(h, _)| h).collect()
    }

    async fn drive<S: EventState>(
        &self,
        event: HookEvent,
        subject: &str,
        ctx: &HookContext,
        state: &mut S,
    ) {
        for hook in self.matching(event, subject) {
            if state.done() {
                break;
            }
            let mut payload = Map::new();
            payload.insert("session_id".into(), ctx.session_id.clone().into());
            payload.insert(
                "transcript_path".into(),
                ctx.transcript_path.to_string_lossy().into_owned().into(),
            );
            payload.insert("cwd".into(), ctx.cwd.to_string_lossy().into_owned().into());
            payload.insert("permission_mode".into(), ctx.permission_mode.clone().into());
            payload.insert("hook_event_name".into(), event.as_str().into());
            if let Some(agent) = &ctx.agent {
                payload.insert("agent_id".into(), agent.agent_id.clone().into());
                payload.insert("agent_type".into(), agent.agent_type.clone().into());
            }
            state.fields(&mut payload);
            let stdin = serde_json::to_vec(&Value::Object(payload)).unwrap_or_default();
            tracing::debug!(event = %event, command = %hook.hook.command, "running hook");
            let raw = run::run(&hook.hook.command, hook.timeout, &ctx.project_dir, stdin).await;
            let common = state.common();
            common.runs.push(HookRun {
                hook: hook.hook.clone(),
                status: raw.status.clone(),
                duration: raw.duration,
            });
            if raw.truncated {
                common.reports.push(HookReport {
                    kind: ReportKind::Truncated,
                    message: format!(
                        "printed more than {} bytes; the rest was dropped",
                        run::MAX_CAPTURE
                    ),
                    hook: hook.hook.clone(),
                });
            }
            interpret(event, &hook, raw, state);
        }
    }
}

/// `tool_name`, and for an MCP tool (`mcp__server__tool`) Claude Code's
/// `mcp_server: {"name": server}` (tack refuses `__` in server names, so the
/// split is exact).
fn insert_tool_name(payload: &mut Map<String, Value>, tool_name: &str) {
    payload.insert("tool_name".into(), tool_name.into());
    if let Some((server, _tool)) = tool_name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
    {
        payload.insert("mcp_server".into(), serde_json::json!({ "name": server }));
    }
}

#[cfg(test)]
mod tool_name_tests {
    use super::*;

    #[test]
    fn an_mcp_tool_names_its_server() {
        let mut p = Map::new();
        insert_tool_name(&mut p, "mcp__git__git_log");
        assert_eq!(p["tool_name"], "mcp__git__git_log");
        assert_eq!(p["mcp_server"], serde_json::json!({"name": "git"}));
        let mut p = Map::new();
        insert_tool_name(&mut p, "Bash");
        assert!(!p.contains_key("mcp_server"));
    }
}
