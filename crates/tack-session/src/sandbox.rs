//! The session's OS sandbox, built once from the `sandbox` settings: the
//! writable roots, what stays read-only inside them, what Read rules hide,
//! the network, and where the helper is.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_sandbox::{Config, DomainPattern, Network, Sandbox};
use tack_tools::bash::sandbox::ShellSandbox;

use crate::project::ProjectContext;

/// The names inside each writable root that stay read-only: a command must
/// not rewrite its own rules, hooks or git hooks.
pub const PROTECTED_NAMES: &[&str] = &[".git", ".tack", ".claude", ".mcp.json"];

/// The session's sandbox for Bash, or `None` when the settings turn it off.
pub(crate) fn shell_sandbox(project: &ProjectContext) -> Option<Arc<ShellSandbox>> {
    let settings = Provisional::read(project);
    if !settings.enabled {
        return None;
    }
    let config = config(project, &settings);
    let helper = project.sandbox_helper().or_else(find_helper);
    Some(Arc::new(ShellSandbox {
        sandbox: Arc::new(Sandbox::new(config, helper)),
        excluded: Arc::new(|_: &str| None),
        allow_unsandboxed: true,
        fail_closed: true,
    }))
}

/// The sandbox's configuration for this project.
fn config(project: &ProjectContext, settings: &Provisional) -> Config {
    // The policy's working directories: the cwd and every additional
    // directory (settings and --add-dir).
    let mut roots: Vec<PathBuf> = project
        .settings
        .permissions
        .policy()
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
    Config {
        writable_roots: roots,
        protected,
        hidden: Vec::new(),
        unenforced_reads: Vec::new(),
        network: settings.network.clone(),
        allow_unix_sockets: false,
    }
}

/// The helper: next to the running program, next to its parent directory
/// (a test binary in `target/debug/deps`), or on `PATH`.
pub(crate) fn find_helper() -> Option<PathBuf> {
    if let Some(found) = tack_sandbox::helper_beside_current_exe() {
        return Some(found);
    }
    let exe = std::env::current_exe().ok()?;
    let beside_parent = exe.parent()?.parent()?.join(tack_sandbox::HELPER);
    if beside_parent.is_file() {
        return Some(beside_parent);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tack_sandbox::HELPER))
        .find(|p| p.is_file())
}

/// Until the sandbox settings section lands: `enabled` (default on Linux),
/// `network.allowedDomains`, `writableRoots`/`filesystem.allowWrite`.
struct Provisional {
    enabled: bool,
    network: Network,
    writable_roots: Vec<PathBuf>,
}

impl Provisional {
    fn read(project: &ProjectContext) -> Provisional {
        let mut out = Provisional {
            enabled: cfg!(target_os = "linux"),
            network: Network::Off,
            writable_roots: Vec::new(),
        };
        for section in project.settings.section("sandbox") {
            let v = section.value;
            if let Some(enabled) = v.get("enabled").and_then(|e| e.as_bool()) {
                out.enabled = enabled;
            }
            if let Some(list) = v
                .pointer("/network/allowedDomains")
                .and_then(|l| l.as_array())
            {
                let names: Vec<&str> = list.iter().filter_map(|d| d.as_str()).collect();
                out.network = if names.contains(&"*") {
                    Network::On
                } else {
                    Network::Allowed(
                        names
                            .iter()
                            .filter_map(|d| DomainPattern::parse(d))
                            .collect(),
                    )
                };
            }
            for key in ["/writableRoots", "/filesystem/allowWrite"] {
                if let Some(list) = v.pointer(key).and_then(|l| l.as_array()) {
                    out.writable_roots.extend(
                        list.iter()
                            .filter_map(|d| d.as_str())
                            .map(|d| resolve(d, &project.project_root)),
                    );
                }
            }
        }
        out
    }
}

fn resolve(path: &str, root: &Path) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map_or_else(|| root.join(rest), |h| PathBuf::from(h).join(rest)),
        None => root.join(path),
    }
}
