//! The session's OS sandbox, built once from the `sandbox` settings: the
//! writable roots, what stays read-only inside them, what Read rules hide,
//! the network, and where the helper is.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_sandbox::{Config, Sandbox};
use tack_tools::bash::sandbox::ShellSandbox;

use crate::project::ProjectContext;
use crate::sandbox_settings::SandboxSettings;

/// The names inside each writable root that stay read-only: a command must
/// not rewrite its own rules, hooks or git hooks.
pub const PROTECTED_NAMES: &[&str] = &[".git", ".tack", ".claude", ".mcp.json"];

/// The session's sandbox for Bash, or `None` when the settings turn it off.
pub(crate) fn shell_sandbox(project: &ProjectContext) -> Option<Arc<ShellSandbox>> {
    let settings = &project.settings.sandbox;
    if !settings.enabled {
        return None;
    }
    let config = config(project, settings);
    let helper = project
        .sandbox_helper()
        .or_else(|| find_helper(&[&project.project_root, &project.cwd]));
    let patterns = settings.excluded_commands.clone();
    Some(Arc::new(ShellSandbox {
        sandbox: Arc::new(Sandbox::new(config, helper)),
        excluded: Arc::new(move |line: &str| tack_policy::excluded_command(line, &patterns)),
        allow_unsandboxed: settings.allow_unsandboxed_commands,
        fail_closed: settings.fail_if_unavailable,
    }))
}

/// What the permission stage needs to know of the session's sandbox
/// (auto-allow, excluded commands, `dangerouslyDisableSandbox`).
pub(crate) fn permissions(project: &ProjectContext) -> Option<tack_policy::SandboxPermissions> {
    let shell = project.sandbox()?;
    let sandbox = &shell.sandbox;
    Some(
        project
            .settings
            .sandbox
            .permissions(&sandbox.config().writable_roots, Some(sandbox.temp_dir())),
    )
}

/// The sandbox's configuration for this project.
fn config(project: &ProjectContext, settings: &SandboxSettings) -> Config {
    // The policy's working directories: the cwd and every additional
    // directory (settings and --add-dir), then the sandbox's own roots.
    let policy = project.settings.permissions.policy();
    let mut roots: Vec<PathBuf> = policy
        .working_dirs()
        .into_iter()
        .map(Path::to_path_buf)
        .collect();
    if !roots.contains(&project.cwd) {
        roots.insert(0, project.cwd.clone());
    }
    roots.extend(settings.writable_roots.iter().cloned());
    let mut protected = Vec::new();
    for root in roots.iter().chain([&project.project_root]) {
        protected.extend(PROTECTED_NAMES.iter().map(|name| root.join(name)));
    }
    protected.extend(
        project
            .settings
            .permissions
            .files()
            .iter()
            .map(|f| f.path.clone()),
    );
    let settings = &settings.with_rule_domains(policy);
    let read_only = settings.read_only(policy);
    let hidden = settings.hidden(policy);
    protected.extend(read_only.paths);
    // What tack runs later on its own (a hook's script, an MCP server's
    // program): a sandboxed command may not rewrite it either.
    protected.extend(policy.runs_later().map(Path::to_path_buf));
    let mut unenforced = hidden.unenforced;
    unenforced.extend(
        read_only
            .unenforced
            .into_iter()
            .map(|r| format!("{r} (read-only)")),
    );
    let (names, guarded_nested) = tack_policy::protected_names();
    Config {
        writable_roots: roots,
        protected,
        guarded_names: names.into_iter().map(str::to_owned).collect(),
        guarded_nested,
        hidden: hidden.paths,
        unenforced_reads: unenforced,
        network: settings.network(),
        denied_domains: settings.denied_domains.clone(),
        allow_unix_sockets: settings.allow_all_unix_sockets,
    }
}

/// The helper: next to the running program, next to its parent directory
/// (a test binary in `target/debug/deps`), or in a system directory or an
/// absolute `PATH` entry outside `roots` and the current directory
/// ([`tack_process::find_program`]).
pub(crate) fn find_helper(roots: &[&Path]) -> Option<PathBuf> {
    if let Some(found) = tack_sandbox::helper_beside_current_exe() {
        return Some(found);
    }
    let exe = std::env::current_exe().ok()?;
    let beside_parent = exe.parent()?.parent()?.join(tack_sandbox::HELPER);
    if beside_parent.is_file() {
        return Some(beside_parent);
    }
    let cwd = std::env::current_dir().ok();
    let mut roots = roots.to_vec();
    roots.extend(cwd.as_deref());
    tack_process::find_program(tack_sandbox::HELPER, &roots).ok()
}
