//! The permission stage: tack-policy's pure decision on the input as it will
//! run, combined with the pre-hooks' decision, then the user's answer when
//! the decision is "ask" and a terminal is there to ask.

use async_trait::async_trait;

/// The sub-agent a call comes from, for the person asked about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskingAgent {
    pub agent_id: String,
    pub agent_type: String,
}

tokio::task_local! {
    static ASKING_AGENT: AskingAgent;
    /// The asker of the call being decided ([`tack_tool::CallOptions::asker`]).
    static CALL_ASKER: Option<Arc<dyn CallAsker>>;
}

/// Runs `run` (one call's permission stage) with the call's own asker, if
/// it has one: an "ask" then goes to it before the session's prompter.
pub(crate) async fn with_call_asker<F: std::future::Future>(
    asker: Option<Arc<dyn CallAsker>>,
    run: F,
) -> F::Output {
    CALL_ASKER.scope(asker, run).await
}

fn call_asker() -> Option<Arc<dyn CallAsker>> {
    CALL_ASKER.try_with(Clone::clone).ok().flatten()
}

/// Runs `run` (a sub-agent's loop) so that every permission prompt it
/// causes names `agent` ([`PromptRequest::agent`]). The sub-agent shares
/// its parent's permission stage, so the tag travels with the task.
pub async fn as_subagent<F: std::future::Future>(agent: AskingAgent, run: F) -> F::Output {
    ASKING_AGENT.scope(agent, run).await
}

/// What the user is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRequest {
    /// The call, e.g. `Bash(git push origin main)`; for a command tool,
    /// the argv it would run, `git_log(git log -n 5 -- 'my dir')`.
    pub call: String,
    /// Why it asks (the rule and its file, or the mode).
    pub reason: String,
    /// The rule "always allow" would add to the local settings; `None` when
    /// only the administrator's rules count (`allowManagedPermissionRulesOnly`),
    /// so a rule of the user's would be ignored: the prompt offers no "always".
    pub always_rule: Option<String>,
    /// This call may delete or overwrite data (`crate::destructive`: the
    /// command or the file for tack's tools, the tool's own word for others).
    pub destructive: bool,
    /// The tool's name, its input as it would run and the call's id (what
    /// a permission prompt tool is sent).
    pub tool_name: String,
    pub input: serde_json::Value,
    pub tool_use_id: String,
    /// The sub-agent making the call; `None` for the session's own.
    pub agent: Option<AskingAgent>,
    /// Only a person may answer, each time: a safeguard asks (a protected
    /// path written, a critical removal, a tool that needs a person for
    /// every call, [`tack_policy::Decision::needs_person`]) or the command
    /// asks to leave the sandbox. A permission prompt tool is a program,
    /// so it never answers these: without a terminal they are refused.
    pub person_only: bool,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptAnswer {
    AllowOnce,
    /// Allow, and add the rule to the local settings.
    AllowAlways,
    /// Allow, and add `rule` (the offered rule as the person edited it) to
    /// the local settings. A rule that does not parse is not saved: the
    /// call is allowed once and the audit says why.
    AllowRule {
        rule: String,
    },
    /// Deny; the reason goes to the model.
    Deny {
        reason: String,
    },
    /// Allow this call with a replaced input (a permission prompt tool's
    /// `updatedInput`). The new input is checked again: by the rules (a
    /// deny rule still denies it) and by the tool's schema.
    AllowWithInput {
        input: serde_json::Value,
        /// Who answered, for the audit trail.
        by: String,
    },
}

/// Asks the user about a call.
#[async_trait]
pub trait Prompter: Send + Sync {
    async fn ask(&self, request: &PromptRequest) -> PromptAnswer;
}

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tack_policy::{
    DecidedBy, Decision, Policy, Request, RuleKind, SandboxPermissions, asks_unsandboxed, evaluate,
    sandbox_decision,
};
use tack_tool::{CallAsker, PermissionQuestion, PermissionReply, RegisteredTool, ToolCall};

use crate::pipeline::{HookRuling, Permission, PermissionStage};
use tack_protocol::Verdict;

/// How long a Bash command's check may take before it is "ask" (its own
/// bounds stop it far sooner; this is the wall behind them).
const CHECK_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Reloads the policy after the user chose "always allow" (the rule has been
/// written to the local settings by then), told what tack wrote, so the
/// settings can count the file as the user's (see [`LocalWrite`]).
pub type Reload = Arc<dyn Fn(Option<&LocalWrite>) -> Result<Policy, String> + Send + Sync>;

/// A write tack itself made to the local settings file (an "always allow"
/// answer, a rule added or removed during the session): the file, and its
/// JSON just before the write (None: it did not exist). With it the
/// settings can record that what the file now asks for is the user's
/// word, when the file was the user's before the write.
#[derive(Debug, Clone)]
pub struct LocalWrite {
    pub file: PathBuf,
    pub before: Option<serde_json::Value>,
}

/// The local settings file as it is now: None when it cannot be read (then
/// nothing is known of who wrote it).
fn local_before(project_root: &Path) -> Option<LocalWrite> {
    let file = tack_policy::local_settings_path(project_root);
    let before = tack_policy::SettingsFile::read(tack_policy::Level::Local, &file)
        .ok()?
        .map(|f| f.value);
    Some(LocalWrite { file, before })
}

/// A call as the policy is asked about it: owned, so a Bash command can be
/// checked on a worker thread.
struct Asked {
    name: String,
    input: serde_json::Value,
    /// For a command tool ([`tack_tool::Tool::command_line`]): the argv the
    /// call would run, and whether the tool only reads.
    command: Option<(Vec<String>, bool)>,
    /// For an MCP tool ([`tack_tool::Tool::mcp_origin`]): its server and its
    /// own name there, which rules match as well as the name called.
    mcp: Option<(String, String)>,
}

impl Asked {
    fn new(call: &ToolCall, tool: &RegisteredTool) -> Self {
        Self {
            name: call.name.clone(),
            input: call.input.clone(),
            command: tool
                .tool
                .command_line(&call.input)
                .map(|argv| (argv, tool.tool.annotations().read_only)),
            mcp: tool
                .tool
                .mcp_origin()
                .map(|(server, own)| (server.to_owned(), own.to_owned())),
        }
    }

    /// The request: a command tool's rules match the argv it would run
    /// (and the prompt shows it); every other tool's, its input.
    fn request(&self, cwd: &Path, policy: &Policy) -> Request {
        match &self.command {
            Some((argv, read_only)) => Request::command(
                &self.name,
                &self.input,
                argv.clone(),
                *read_only,
                cwd,
                policy,
            ),
            None => {
                let request = Request::resolve(&self.name, &self.input, cwd, policy);
                match &self.mcp {
                    Some((server, own)) => request.with_mcp_tool(server, own),
                    None => request,
                }
            }
        }
    }
}

/// What an agent definition adds to its sub-agent's permission stage. It
/// can only make a decision stricter: each call is decided as the parent
/// decides it, then again under each narrowing, and the strictest answer
/// (deny > ask > allow) stands.
///
/// Modes, from loosest to strictest: bypassPermissions < acceptEdits <
/// default < dontAsk, plan. dontAsk and plan are not ordered against each
/// other (plan refuses an edit an allow rule permits; dontAsk refuses a
/// read outside the working directories that plan would ask about), which
/// is why the mode is not replaced but applied on top: a call meets the
/// parent's mode and the definition's, and the stricter answer wins. A
/// definition's acceptEdits or bypassPermissions therefore never loosens
/// anything. A parent in bypassPermissions keeps it, as in Claude Code: the
/// person chose to be asked nothing in this session, and the sub-agent gets
/// no more than its parent has (deny and ask rules still hold).
#[derive(Debug, Clone, Default)]
pub struct Narrowing {
    /// The definition's `permissionMode`, and where it was written.
    pub mode: Option<(tack_policy::Mode, tack_policy::Source)>,
    /// Deny rules for this sub-agent only (`disallowedTools: Bash(rm *)`):
    /// only what one of them denies is taken from this policy.
    pub deny: Option<Policy>,
}

impl Narrowing {
    /// The decision on `request` made stricter by this narrowing.
    pub fn apply(&self, decision: Decision, request: &Request, policy: &Policy) -> Decision {
        let mut strictest = decision;
        if let Some((mode, source)) = &self.mode
            && matches!(
                mode,
                tack_policy::Mode::Default | tack_policy::Mode::Plan | tack_policy::Mode::DontAsk
            )
            && *mode != policy.mode()
            && policy.mode() != tack_policy::Mode::BypassPermissions
        {
            let mut under = policy.clone();
            under.set_mode(*mode, source.clone());
            strictest = strictest.max(evaluate(request, &under));
        }
        if let Some(deny) = &self.deny {
            let d = evaluate(request, deny);
            if d.is_deny() && matches!(d.why().decided_by, DecidedBy::Rule { .. }) {
                strictest = strictest.max(d);
            }
        }
        strictest
    }
}

/// The permission stage backed by tack-policy.
pub struct PolicyStage {
    policy: Arc<RwLock<Policy>>,
    cwd: PathBuf,
    project_root: PathBuf,
    prompter: Option<Arc<dyn Prompter>>,
    reload: Option<Reload>,
    /// Rules a person allowed "for this session" through a call's asker
    /// (never written to a file), as a policy of allow rules only. Shared
    /// with the narrowed stages of sub-agents.
    session_rules: Arc<RwLock<SessionRules>>,
    /// The session's OS sandbox, when it is in force for Bash.
    sandbox: Option<Arc<SandboxPermissions>>,
    /// The mode chosen during the session ([`PolicyStage::set_mode`]).
    mode_override: Arc<RwLock<Option<(tack_policy::Mode, tack_policy::Source)>>>,
    /// For a sub-agent's stage: what its definition adds ([`Narrowing`]).
    narrowing: Option<Arc<Narrowing>>,
    /// Per call id, the files its last decision judged
    /// ([`PermissionStage::take_checked_files`]).
    checked: Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<PathBuf>>>>,
    /// The session's hooks: PermissionRequest hooks answer before a person
    /// is asked (weak: the hooks read the stage's mode in turn).
    hooks: std::sync::OnceLock<std::sync::Weak<crate::hooks::HookRunner>>,
}

/// The session's own allow rules and the policy they make.
#[derive(Default)]
struct SessionRules {
    texts: Vec<String>,
    policy: Option<Policy>,
}

impl std::fmt::Debug for PolicyStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyStage")
            .field("cwd", &self.cwd)
            .field("prompter", &self.prompter.is_some())
            .finish_non_exhaustive()
    }
}

/// Nobody to ask: the deny says which rule or flag would allow the call.
fn headless_deny(decision: &Decision) -> Permission {
    let headless = decision.clone().without_tty();
    Permission::Deny {
        reason: headless.message(),
        by: decided_by(&headless),
    }
}

/// What decided, in a few words, for the audit trail and the model.
fn decided_by(decision: &Decision) -> String {
    let why = decision.why();
    match &why.decided_by {
        DecidedBy::Rule { rule, list, source } => format!("{list} rule `{rule}` in {source}"),
        DecidedBy::Mode { mode, source } => format!("permission mode {mode} ({source})"),
        DecidedBy::NoRuleMatched { mode } => format!("no rule matched (mode {mode})"),
        DecidedBy::Uncertain => "the command cannot be analysed before it runs".into(),
        DecidedBy::NoPermissionNeeded => "no permission needed".into(),
        DecidedBy::AllParts => "every part of the command is allowed".into(),
        DecidedBy::Sandbox { setting } => match &why.detail {
            Some(detail) => format!("sandbox: {setting} ({detail})"),
            None => format!("sandbox: {setting}"),
        },
        _ => decision.to_string(),
    }
}

impl PolicyStage {
    /// `prompter`: `None` without a terminal (ask means deny, with a message
    /// saying which rule or flag would allow the call).
    pub fn new(
        policy: Policy,
        cwd: PathBuf,
        project_root: PathBuf,
        prompter: Option<Arc<dyn Prompter>>,
        reload: Option<Reload>,
    ) -> Self {
        Self::sharing(
            Arc::new(RwLock::new(policy)),
            cwd,
            project_root,
            prompter,
            reload,
        )
    }

    /// [`PolicyStage::new`] with the policy in a cell others read too:
    /// what the stage changes during the session (a rule added or removed,
    /// the mode) is what they see, as the search tools' filter of the
    /// files they find must.
    pub fn sharing(
        policy: Arc<RwLock<Policy>>,
        cwd: PathBuf,
        project_root: PathBuf,
        prompter: Option<Arc<dyn Prompter>>,
        reload: Option<Reload>,
    ) -> Self {
        Self {
            policy,
            cwd,
            project_root,
            prompter,
            reload,
            session_rules: Arc::default(),
            sandbox: None,
            mode_override: Arc::default(),
            narrowing: None,
            checked: Arc::default(),
            hooks: std::sync::OnceLock::new(),
        }
    }

    /// PermissionRequest hooks answer a call the rules would ask about
    /// before a person is asked (or, with no one to ask, before it is
    /// denied): never a deny rule's call, never one only a person may allow
    /// (a safeguard, leaving the sandbox, a tool that needs the user), and
    /// a changed input is judged again.
    /// Set once; the stage keeps a weak reference (whoever runs the hooks
    /// owns them).
    pub fn set_hooks(&self, hooks: &Arc<crate::hooks::HookRunner>) {
        let _ = self.hooks.set(Arc::downgrade(hooks));
    }

    /// The session's OS sandbox (None: Bash runs without one). With it,
    /// every Bash decision goes through [`tack_policy::sandbox_decision`]:
    /// `autoAllowBashIfSandboxed` allows a command that would be asked only
    /// for want of an allow rule when every path it names is inside the
    /// writable roots, and a call with `dangerouslyDisableSandbox: true` is
    /// refused (`allowUnsandboxedCommands: false`) or asked of a person
    /// every time: no allow rule, mode, hook or session rule lets it
    /// through, "always allow" is not offered, and without a terminal it
    /// is denied.
    pub fn with_sandbox(mut self, sandbox: Option<SandboxPermissions>) -> Self {
        self.sandbox = sandbox.map(Arc::new);
        if let Some(temp) = self.sandbox.as_ref().and_then(|s| s.temp_dir.as_deref()) {
            self.policy
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .add_working_dir(temp);
        }
        self
    }

    /// The call asks to run outside a sandbox that is in force.
    fn unsandboxed(&self, call: &ToolCall) -> bool {
        self.sandbox.is_some() && call.name == "Bash" && asks_unsandboxed(&call.input)
    }

    /// The session rule that allows `call`, if one does. Consulted only when
    /// the rules would ask (a deny rule still denies).
    async fn session_rule_allowing(
        &self,
        call: &ToolCall,
        tool: &RegisteredTool,
        dir: Option<&Path>,
    ) -> Option<String> {
        let policy = self
            .session_rules
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .policy
            .clone()?;
        let cwd = dir.unwrap_or(&self.cwd).to_path_buf();
        let asked = Asked::new(call, tool);
        let decide = move || {
            let request = asked.request(&cwd, &policy);
            evaluate(&request, &policy)
        };
        let decision = if call.name == "Bash" {
            tokio::time::timeout(CHECK_DEADLINE, tokio::task::spawn_blocking(decide))
                .await
                .ok()?
                .ok()?
        } else {
            decide()
        };
        match (&decision, &decision.why().decided_by) {
            (Decision::Allow(_), DecidedBy::Rule { rule, .. }) => Some(rule.clone()),
            (Decision::Allow(_), DecidedBy::AllParts) => Some(decision.why().subject.clone()),
            _ => None,
        }
    }

    /// Adds an allow rule for the rest of the session.
    fn add_session_rule(&self, rule: &str) -> Result<(), String> {
        let mut rules = self
            .session_rules
            .write()
            .unwrap_or_else(|p| p.into_inner());
        let mut texts = rules.texts.clone();
        texts.push(rule.to_owned());
        let home = self
            .policy
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .home()
            .map(Path::to_path_buf);
        let mut builder = tack_policy::PolicyBuilder::new(self.cwd.clone())
            .project_root(self.project_root.clone())
            .home(home);
        for text in &texts {
            builder = builder.allow(text);
        }
        let policy = builder.build().map_err(|e| e.to_string())?;
        *rules = SessionRules {
            texts,
            policy: Some(policy),
        };
        Ok(())
    }

    /// "Always allow": adds `rule` to the local settings and reloads the
    /// policy; the call is allowed either way (the person said yes), and
    /// the audit says whether the rule was saved.
    fn save_rule(&self, rule: &str) -> Permission {
        match self.add_rule(RuleKind::Allow, rule) {
            Ok(path) => {
                tracing::info!("added allow rule `{rule}` to {}", path.display());
                Permission::Allow {
                    by: format!("the user (always allow `{rule}`)"),
                }
            }
            Err(e) => {
                tracing::warn!("could not save the rule `{rule}`: {e}");
                Permission::Allow {
                    by: format!("the user (allow once: the rule `{rule}` was not saved: {e})"),
                }
            }
        }
    }

    /// Adds `rule` to the `kind` list of the local settings and reloads the
    /// policy (a mode chosen during the session is kept). The file written.
    pub fn add_rule(&self, kind: RuleKind, rule: &str) -> Result<PathBuf, String> {
        if let Some(managed) = self
            .policy
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .managed_rules_only()
        {
            return Err(format!(
                "only managed rules count here (allowManagedPermissionRulesOnly in {}): a rule in the local settings would be ignored",
                managed.file.display()
            ));
        }
        let before = local_before(&self.project_root);
        let path = tack_policy::add_local_rule(&self.project_root, kind, rule)
            .map_err(|e| e.to_string())?;
        self.reload_policy(before.as_ref())?;
        Ok(path)
    }

    /// Removes `rule` from the local settings' lists and reloads the policy;
    /// the lists it was in (none: the local file does not have it).
    pub fn remove_rule(&self, rule: &str) -> Result<Vec<RuleKind>, String> {
        let before = local_before(&self.project_root);
        let removed =
            tack_policy::remove_local_rule(&self.project_root, rule).map_err(|e| e.to_string())?;
        if !removed.is_empty() {
            self.reload_policy(before.as_ref())?;
        }
        Ok(removed)
    }

    fn reload_policy(&self, write: Option<&LocalWrite>) -> Result<(), String> {
        let Some(reload) = &self.reload else {
            return Ok(());
        };
        let policy =
            reload(write).map_err(|e| format!("the settings could not be reloaded: {e}"))?;
        *self.policy.write().unwrap_or_else(|p| p.into_inner()) =
            self.with_session_overrides(policy);
        Ok(())
    }

    /// The permission mode the person chose in this session (Shift-Tab in
    /// the interactive terminal), over the settings' from now on: a policy
    /// reloaded after "always allow" keeps it.
    pub fn set_mode(&self, mode: tack_policy::Mode) {
        let source = tack_policy::Source::command_line();
        *self
            .mode_override
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some((mode, source.clone()));
        self.policy
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .set_mode(mode, source);
    }

    /// The policy in force (a copy).
    pub fn policy(&self) -> Policy {
        self.policy
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The permission mode in force.
    pub fn mode(&self) -> tack_policy::Mode {
        self.policy.read().unwrap_or_else(|p| p.into_inner()).mode()
    }

    /// What this session adds to the settings' policy, kept when the
    /// settings are read again: the mode the person chose, and the
    /// sandbox's temporary directory as a working directory (commands write
    /// their scratch files there: `git diff > $TMPDIR/d.patch`, then Read).
    fn with_session_overrides(&self, mut policy: Policy) -> Policy {
        if let Some(temp) = self.sandbox.as_ref().and_then(|s| s.temp_dir.as_deref()) {
            policy.add_working_dir(temp);
        }
        if let Some((mode, source)) = self
            .mode_override
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            policy.set_mode(mode, source);
        }
        policy
    }

    /// Asks the call's own asker; `None`: there is none, or it could not ask.
    async fn ask_the_caller(
        &self,
        request: &PromptRequest,
        always_rule: &str,
        managed_only: bool,
        unsandboxed: bool,
        person: bool,
    ) -> Option<Permission> {
        let asker = call_asker()?;
        let question = PermissionQuestion {
            call: request.call.clone(),
            reason: request.reason.clone(),
            session_rule: (!managed_only && !unsandboxed && !person)
                .then(|| always_rule.to_owned()),
            destructive: request.destructive,
            tool_name: request.tool_name.clone(),
            input: request.input.clone(),
        };
        Some(match asker.ask(&question).await? {
            PermissionReply::AllowOnce => Permission::Allow {
                by: "the person at the MCP client (allow once)".into(),
            },
            PermissionReply::AllowForSession if unsandboxed => Permission::Allow {
                by: "the person at the MCP client (allow once: a command outside the sandbox is allowed one call at a time)".into(),
            },
            PermissionReply::AllowForSession if person => Permission::Allow {
                by: "the person at the MCP client (allow once: only a person may allow this call, one call at a time)".into(),
            },
            PermissionReply::AllowForSession if managed_only => Permission::Allow {
                by: "the person at the MCP client (allow once: only managed rules count)".into(),
            },
            PermissionReply::AllowForSession => {
                if let Err(e) = self.add_session_rule(always_rule) {
                    tracing::warn!("could not add the session rule `{always_rule}`: {e}");
                }
                Permission::Allow {
                    by: format!(
                        "the person at the MCP client (allow `{always_rule}` for this session)"
                    ),
                }
            }
            PermissionReply::Deny { reason } => Permission::Deny {
                reason,
                by: "the person at the MCP client".into(),
            },
            PermissionReply::Pending => Permission::Deny {
                reason: "The person at the MCP client is being asked about this call; it runs \
                         when the client sends the call again with their answer."
                    .into(),
                by: "the MCP client (asked; this attempt waits for the answer)".into(),
            },
            _ => return None,
        })
    }

    /// The decision on `call` of `tool` running in `dir` (the session's
    /// directory unless the tool keeps its own); for a command tool, on the
    /// argv it would run. A Bash command is parsed on a worker thread, with
    /// a deadline: the thread that serves calls (one thread in `tack mcp
    /// serve`) never waits on a command built to be slow to read.
    async fn evaluate(
        &self,
        call: &ToolCall,
        tool: &RegisteredTool,
        dir: Option<&Path>,
    ) -> Decision {
        let cwd = dir.unwrap_or(&self.cwd).to_path_buf();
        let person_each_call = tool.tool.requires_user_interaction();
        let decide = {
            let policy = Arc::clone(&self.policy);
            let sandbox = self.sandbox.clone();
            let asked = Asked::new(call, tool);
            let checked = Arc::clone(&self.checked);
            let narrowing = self.narrowing.clone();
            let id = call.id.clone();
            move || {
                let policy = policy.read().unwrap_or_else(|p| p.into_inner());
                let request = asked.request(&cwd, &policy);
                let decision = evaluate(&request, &policy);
                let decision = match &narrowing {
                    Some(narrowing) => narrowing.apply(decision, &request, &policy),
                    None => decision,
                };
                let files = request.checked_files();
                if !files.is_empty() && !decision.is_deny() {
                    checked
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(id, files);
                }
                let decision = match &sandbox {
                    Some(sandbox) => sandbox_decision(decision, &request, &policy, sandbox),
                    None => decision,
                };
                if person_each_call {
                    tack_policy::person_each_call(&policy, decision)
                } else {
                    decision
                }
            }
        };
        if call.name != "Bash" {
            return decide();
        }
        let checked = tokio::time::timeout(CHECK_DEADLINE, tokio::task::spawn_blocking(decide));
        let failed = match checked.await {
            Ok(Ok(decision)) => return decision,
            Ok(Err(join)) => format!("the check failed: {join}"),
            Err(_) => "the check did not finish".to_owned(),
        };
        tracing::warn!("{failed}");
        let command: String = call.input["command"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(120)
            .collect();
        let policy = self.policy.read().unwrap_or_else(|p| p.into_inner());
        tack_policy::unfinished(&policy, &format!("Bash({command})"), CHECK_DEADLINE)
    }

    async fn ask(
        &self,
        decision: Decision,
        call: &ToolCall,
        tool: &RegisteredTool,
        dir: Option<&Path>,
        reason: String,
    ) -> Permission {
        // A call that leaves the sandbox is a person's word each time, and
        // so is one a safeguard asks about (a protected path written, a
        // critical removal), and one that may break a deny rule tack could
        // not check (`X=rm; $X f` under `deny Bash(rm *)`): a hook or a
        // prompt tool sees only the call, not the rule. No rule is saved.
        let person = decision.needs_person() || decision.rules_unchecked();
        let unsandboxed = self.unsandboxed(call);
        if !unsandboxed
            && !person
            && let Some(rule) = self.session_rule_allowing(call, tool, dir).await
        {
            return Permission::Allow {
                by: format!("session rule `{rule}` (allowed for this session when asked)"),
            };
        }
        if !person
            && !unsandboxed
            && !tool.tool.requires_user_interaction()
            && let Some(hooks) = self.hooks.get().and_then(std::sync::Weak::upgrade)
            && let Some(answer) = hooks
                .permission_request(call, &decision.why().suggestions)
                .await
        {
            return match answer {
                crate::hooks::HookAnswer::Allow { input: None, by } => Permission::Allow { by },
                crate::hooks::HookAnswer::Allow {
                    input: Some(input),
                    by,
                } => self.with_changed_input(call, tool, dir, input, by).await,
                crate::hooks::HookAnswer::Deny { reason, by } => Permission::Deny { reason, by },
            };
        }
        if self.prompter.is_none() && call_asker().is_none() {
            return headless_deny(&decision);
        }
        let why = decision.why();
        let managed_only = self
            .policy
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .managed_rules_only()
            .is_some();
        let always_rule = why
            .suggestions
            .first()
            .cloned()
            .unwrap_or_else(|| why.subject.clone());
        let request = PromptRequest {
            call: why.subject.clone(),
            reason,
            always_rule: (!managed_only && !unsandboxed && !person).then(|| always_rule.clone()),
            destructive: crate::destructive::destroys(tool, &decision),
            tool_name: call.name.clone(),
            input: call.input.clone(),
            tool_use_id: call.id.clone(),
            agent: ASKING_AGENT.try_with(Clone::clone).ok(),
            person_only: person || unsandboxed || tool.tool.requires_user_interaction(),
        };
        if let Some(answer) = self
            .ask_the_caller(&request, &always_rule, managed_only, unsandboxed, person)
            .await
        {
            return answer;
        }
        let Some(prompter) = &self.prompter else {
            return headless_deny(&decision);
        };
        match prompter.ask(&request).await {
            PromptAnswer::AllowOnce => Permission::Allow {
                by: "the user (allow once)".into(),
            },
            PromptAnswer::AllowAlways | PromptAnswer::AllowRule { .. } if unsandboxed => Permission::Allow {
                by: "the user (allow once: a command outside the sandbox is allowed one call at a time, none was saved)".into(),
            },
            PromptAnswer::AllowAlways | PromptAnswer::AllowRule { .. } if person => Permission::Allow {
                by: "the user (allow once: only a person may allow this call, one call at a time; none was saved)".into(),
            },
            PromptAnswer::AllowAlways | PromptAnswer::AllowRule { .. } if managed_only => Permission::Allow {
                by: "the user (allow once: only managed rules count, none was saved)".into(),
            },
            PromptAnswer::AllowAlways => self.save_rule(&always_rule),
            PromptAnswer::AllowRule { rule } => self.save_rule(rule.trim()),
            PromptAnswer::Deny { reason } => Permission::Deny {
                reason,
                by: "the user".into(),
            },
            PromptAnswer::AllowWithInput { input, by } if input == call.input => {
                Permission::Allow { by }
            }
            PromptAnswer::AllowWithInput { input, by } => {
                self.with_changed_input(call, tool, dir, input, by).await
            }
        }
    }

    /// A call allowed with a replaced input (a permission prompt tool's or
    /// a PermissionRequest hook's answer): the new input meets the rules
    /// again, so an answer cannot turn an allowed call into one a deny rule
    /// forbids, nor into one only a person may allow.
    async fn with_changed_input(
        &self,
        call: &ToolCall,
        tool: &RegisteredTool,
        dir: Option<&Path>,
        input: serde_json::Value,
        by: String,
    ) -> Permission {
        let updated = ToolCall {
            input,
            ..call.clone()
        };
        match self.evaluate(&updated, tool, dir).await {
            d @ Decision::Deny(_) => Permission::Deny {
                reason: format!(
                    "{by} allowed the call with a changed input, which is denied: {}",
                    d.message()
                ),
                by: decided_by(&d),
            },
            d if d.needs_person() || self.unsandboxed(&updated) => {
                let headless = d.clone().without_tty();
                Permission::Deny {
                    reason: format!(
                        "{by} allowed the call with a changed input that only a person may allow, each time, and this run has no terminal to ask on: {}",
                        if d.needs_person() {
                            headless.message()
                        } else {
                            "it asks to run outside the sandbox".to_owned()
                        }
                    ),
                    by: decided_by(&d),
                }
            }
            _ => Permission::AllowWithInput {
                by: format!("{by} (with a changed input)"),
                input: updated.input,
            },
        }
    }
}

#[async_trait]
impl PermissionStage for PolicyStage {
    fn take_checked_files(&self, call_id: &str) -> Vec<PathBuf> {
        self.checked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(call_id)
            .unwrap_or_default()
    }

    fn refuses_outright(&self, tool: &str, mcp: Option<(&str, &str)>) -> Option<String> {
        let refused = |policy: &Policy| {
            match mcp {
                Some((server, own)) => policy.refuses_mcp_tool(tool, server, own),
                None => policy.refuses_tool(tool),
            }
            .map(|rule| rule.text.clone())
        };
        let policy = self.policy.read().unwrap_or_else(|p| p.into_inner());
        refused(&policy).or_else(|| {
            self.narrowing
                .as_ref()
                .and_then(|n| n.deny.as_ref())
                .and_then(refused)
        })
    }

    fn narrowed(&self, narrowing: Narrowing) -> Option<Arc<dyn PermissionStage>> {
        let hooks = std::sync::OnceLock::new();
        if let Some(weak) = self.hooks.get() {
            let _ = hooks.set(weak.clone());
        }
        Some(Arc::new(PolicyStage {
            policy: Arc::clone(&self.policy),
            cwd: self.cwd.clone(),
            project_root: self.project_root.clone(),
            prompter: self.prompter.clone(),
            reload: self.reload.clone(),
            session_rules: Arc::clone(&self.session_rules),
            sandbox: self.sandbox.clone(),
            mode_override: Arc::clone(&self.mode_override),
            narrowing: Some(Arc::new(narrowing)),
            checked: Arc::clone(&self.checked),
            hooks,
        }))
    }

    async fn decide(
        &self,
        call: &ToolCall,
        tool: &RegisteredTool,
        hook: Option<&HookRuling>,
        dir: Option<&Path>,
    ) -> Permission {
        let decision = self.evaluate(call, tool, dir).await;
        if self.unsandboxed(call) {
            return self
                .decide_unsandboxed(decision, call, tool, hook, dir)
                .await;
        }
        match (decision, hook.map(|h| (h.verdict, h))) {
            // A deny rule always wins, whatever a hook said.
            (d @ Decision::Deny(_), _) => Permission::Deny {
                reason: d.message(),
                by: decided_by(&d),
            },
            // The strictest decision wins: a hook's deny too.
            (_, Some((Verdict::Deny, h))) => Permission::Deny {
                reason: h.reason.clone(),
                by: h.by.clone(),
            },
            // A hook's allow skips the prompt (never a deny rule: handled
            // above; never a safeguard's ask, which is a person's; never an
            // ask that stands for a rule: an ask rule, or deny and ask rules
            // that cannot be checked, as in Claude Code).
            (d @ Decision::Ask(_), Some((Verdict::Allow, h)))
                if !d.needs_person() && !d.asked_by_rules() =>
            {
                Permission::Allow {
                    by: format!(
                        "{} (a hook allowed a call no rule asks about; the mode would have asked)",
                        h.by
                    ),
                }
            }
            (d @ Decision::Ask(_), Some((Verdict::Allow, h))) => {
                let reason = format!(
                    "{d} ({} allowed it, but a hook's allow does not answer an ask a rule makes)",
                    h.by
                );
                self.ask(d, call, tool, dir, reason).await
            }
            // A hook's ask is the hook's: without a terminal the call is
            // denied because that hook asked, never put down to the mode.
            (_, Some((Verdict::Ask, h))) if self.prompter.is_none() && call_asker().is_none() => {
                Permission::Deny {
                    reason: format!(
                        "{} asked for confirmation and no one could answer: this run has no terminal to ask on. The hook's reason: {}",
                        h.by, h.reason
                    ),
                    by: format!("{} (asked; no terminal to answer)", h.by),
                }
            }
            (d, Some((Verdict::Ask, HookRuling { reason, by, .. }))) => {
                let reason = format!("{reason} (asked by {by})");
                self.ask(d, call, tool, dir, reason).await
            }
            (d @ Decision::Ask(_), _) => {
                let reason = d.to_string();
                self.ask(d, call, tool, dir, reason).await
            }
            (d, _) => Permission::Allow { by: decided_by(&d) },
        }
    }
}

impl PolicyStage {
    /// A Bash call with `dangerouslyDisableSandbox: true`: a deny (a rule,
    /// `allowUnsandboxedCommands: false`, a hook) is final; anything else is
    /// asked of a person, a hook's allow included.
    async fn decide_unsandboxed(
        &self,
        decision: Decision,
        call: &ToolCall,
        tool: &RegisteredTool,
        hook: Option<&HookRuling>,
        dir: Option<&Path>,
    ) -> Permission {
        if decision.is_deny() {
            return Permission::Deny {
                reason: decision.message(),
                by: decided_by(&decision),
            };
        }
        let reason = match hook {
            Some(h) if h.verdict == Verdict::Deny => {
                return Permission::Deny {
                    reason: h.reason.clone(),
                    by: h.by.clone(),
                };
            }
            Some(h) if h.verdict == Verdict::Ask => {
                format!("{decision}; {} (asked by {})", h.reason, h.by)
            }
            _ => decision.to_string(),
        };
        self.ask(decision, call, tool, dir, reason).await
    }
}
