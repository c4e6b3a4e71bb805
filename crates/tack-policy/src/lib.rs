//! Permission policy for tack: settings, rules, shell-command analysis and a
//! pure decision function.
//!
//! The key design decision: **Bash rules are checked on a parsed command,
//! never on the string.** A command is parsed with `brush-parser`, every
//! simple command inside it (lists, pipelines, subshells, `$(…)`, backticks,
//! process substitution, loop and function bodies, strings run by `bash -c`,
//! `eval`, `trap`…) is extracted with wrappers such as `env`, `timeout`,
//! `xargs`, `find -exec` and `sudo` seen through, and the command is allowed
//! only when every part is. Files a program writes through its options
//! (`sed -i`, `sort -o`, `tar -x -C dir`, `curl -o`) are edits, as
//! redirections are, and options that run a command (`git grep -O`,
//! `rsync -e`, `ssh -o ProxyCommand=`) have the command analysed. What
//! cannot be known before running (a command name in a variable, an
//! unparsable string) is `ask`, never `allow`.
//!
//! Read and Edit rules match canonical paths (symlinks resolved, `..`
//! removed). Resolution is the one IO step ([`Request::resolve`]);
//! [`evaluate`] is pure and [`Decision`] orders `Allow < Ask < Deny`.
//!
//! A command tool declared in settings runs one argv with no shell: its
//! rules `NAME(pattern)` match the argv written by [`command_text`] (each
//! word quoted as a shell would need it, so an argument cannot pass for
//! several), built with [`Request::command`].
//!
//! With the OS sandbox in force, [`sandbox_decision`] adjusts a Bash
//! decision (autoAllowBashIfSandboxed, dangerouslyDisableSandbox),
//! [`excluded_command`] says which lines run outside it and
//! [`hidden_paths`] which paths the Read deny rules hide.
//!
//! ```
//! use serde_json::json;
//! use tack_policy::{PolicyBuilder, Request, evaluate};
//!
//! let policy = PolicyBuilder::new("/work/project")
//!     .allow("Bash(cd *)")
//!     .allow("Bash(git status)")
//!     .deny("Bash(rm *)")
//!     .lexical_only()
//!     .build()?;
//! let call = |cmd: &str| {
//!     let req = Request::lexical("Bash", &json!({"command": cmd}), "/work/project".as_ref(), &policy);
//!     evaluate(&req, &policy)
//! };
//! assert!(call("cd src && git status").is_allow());
//! assert!(call("cd src && rm -rf build").is_deny());
//! assert!(call("cd src; $(echo rm) -rf build").is_ask());
//! # Ok::<(), tack_policy::Error>(())
//! ```

mod command;
mod decision;
mod entry;
mod error;
mod evaluate;
mod explain;
mod files;
mod git_config;
mod git_index;
mod git_protected;
pub mod lint;
mod mode;
mod paths;
mod policy;
mod request;
mod rule;
mod runs_later;
mod safeguard;
mod sandbox;
mod settings;
mod shell;
mod spelling;
pub mod tool_paths;
mod wide;

pub use command::command_text;
pub use decision::{DecidedBy, Decision, Part, Why};
pub use entry::{ManagedRulesOnly, RuleEntry};
pub use error::{Error, Result};
pub use evaluate::{evaluate, may_show_found, unfinished};
pub use explain::{Explanation, explain};
pub use files::{
    SettingsFile, add_local_rule, find_project_root, local_settings_path, read_settings_files,
    read_settings_files_with, remove_local_rule,
};
pub use git_protected::GitEnvironment;
pub use mode::Mode;
pub use paths::ResolvedPath;
pub use policy::{Policy, PolicyBuilder, Rule};
pub use request::Request;
pub use rule::{Level, Source, split_rule_list};
pub use runs_later::{ConfiguredCommand, project_scripts, scripts_digest};
pub use safeguard::{Safeguard, person_each_call, protected_names};
pub use sandbox::{
    DISABLE_SANDBOX_FIELD, HiddenPaths, RuleDomains, SandboxPermissions, asks_unsandboxed,
    excluded_command, hidden_paths, read_only_paths, rule_domains, sandbox_decision,
};
pub use settings::{CliPermissions, LoadOptions, Settings};
/// The outcome of a check, ordered so the strictest wins with `max`:
/// allow < ask < deny. One type with the hooks and the audit trail.
pub use tack_protocol::Verdict;
/// Which list a rule is in (`permissions.allow`, `ask`, `deny`): the
/// verdict a matching rule gives. The same type as [`Verdict`], named for
/// callers that speak of lists; [`Verdict::as_str`] is the settings key.
pub use tack_protocol::Verdict as RuleKind;
pub use wide::{Named, named_in_rule, wide_additional_directory, wide_allow_rule};
