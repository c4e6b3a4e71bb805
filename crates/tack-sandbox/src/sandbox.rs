//! The session's sandbox: its plan (made once, on first use), its temporary
//! directory, its proxy, and wrapping a command in it.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tack_process::Spec;
use tokio::sync::OnceCell;

use crate::config::{Config, Network};
use crate::explain::{self, Blocked};
use crate::plan::{NetPlan, PROXY_PORT, Plan};
use crate::protect;
use crate::proxy::Proxy;
use crate::support::Support;

/// Why a command cannot run sandboxed. Its text is what the model and the
/// user read: what is missing and what to do.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(
        "the sandbox helper {name} was not found next to this program; reinstall tack \
         (it installs both), or set sandbox.enabled to false in settings to run commands \
         without the OS sandbox"
    )]
    NoHelper { name: &'static str },
    #[error(
        "this machine cannot enforce the sandbox the settings ask for: {missing}. Commands are \
         not run rather than run with less (see `tack sandbox check`); fix the machine, or set \
         sandbox.enabled to false in settings to run commands without the OS sandbox"
    )]
    Unsupported { missing: String },
    #[error("the sandbox could not start: {0}")]
    Start(String),
}

/// The OS sandbox of one session: every command a tool starts is wrapped in
/// it ([`Sandbox::wrap`]). Dropping it stops the proxy and removes the
/// session's temporary directory.
pub struct Sandbox {
    config: Config,
    helper: Option<PathBuf>,
    /// Mode 0700: holds `tmp/` (writable by commands) and the proxy's socket
    /// (not writable by them).
    dir: PathBuf,
    tmp: PathBuf,
    /// Whether `dir` was made (at the first command: a session that runs
    /// none costs no directory).
    made: std::sync::atomic::AtomicBool,
    ready: OnceCell<Result<Ready, Error>>,
}

/// The protected paths absent when a command started ([`Sandbox::watch`]).
#[derive(Debug, Clone, Default)]
pub struct Watch {
    absent: Vec<PathBuf>,
}

/// What the first use found and made.
struct Ready {
    support: Support,
    plan: Plan,
    plan_json: String,
    proxy: Option<Proxy>,
    profile: String,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("config", &self.config)
            .field("helper", &self.helper)
            .field("tmp", &self.tmp)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// A sandbox for `config`, its helper at `helper` (`None`: not found,
    /// every command is refused with [`Error::NoHelper`]). Makes the
    /// session's temporary directory (when that fails, every command is
    /// refused saying why); nothing else happens until the first
    /// [`Sandbox::wrap`].
    pub fn new(config: Config, helper: Option<PathBuf>) -> Sandbox {
        let dir = private_dir_name();
        let tmp = dir.join("tmp");
        Sandbox {
            config,
            helper,
            dir,
            tmp,
            made: std::sync::atomic::AtomicBool::new(false),
            ready: OnceCell::new(),
        }
    }

    /// The session's temporary directory: writable by commands, their `TMPDIR`.
    pub fn temp_dir(&self) -> &Path {
        &self.tmp
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Probes the machine, makes the plan and starts the proxy, once.
    async fn ready(&self) -> Result<&Ready, Error> {
        let ready = self.ready.get_or_init(|| self.prepare()).await;
        ready.as_ref().map_err(Clone::clone)
    }

    async fn prepare(&self) -> Result<Ready, Error> {
        make_private_dir(&self.dir, &self.tmp).map_err(|e| {
            Error::Start(format!(
                "its temporary directory {} could not be made: {e}; check TMPDIR",
                self.dir.display()
            ))
        })?;
        self.made.store(true, std::sync::atomic::Ordering::Release);
        let helper = self.helper.as_deref().ok_or(Error::NoHelper {
            name: crate::HELPER,
        })?;
        let support = Support::probe(helper).await.map_err(Error::Start)?;
        let plan = plan(&self.config, &support, &self.tmp, &self.dir)?;
        let proxy = match (&plan.network, &self.config.network) {
            (NetPlan::Proxy { socket, .. }, Network::Allowed(domains)) => Some(
                Proxy::start_denying(socket, domains.clone(), self.config.denied_domains.clone())
                    .map_err(|e| Error::Start(format!("the network proxy: {e}")))?,
            ),
            _ => None,
        };
        let plan_json = serde_json::to_string(&plan)
            .map_err(|e| Error::Start(format!("the plan could not be encoded: {e}")))?;
        let profile = profile(&plan, &support);
        Ok(Ready {
            support,
            plan,
            plan_json,
            proxy,
            profile,
        })
    }

    /// `spec` started inside the sandbox, also allowed to write beneath
    /// `extra_writable` (a tool's own private files). Fails closed: when the
    /// machine cannot enforce the plan, the command is not started.
    pub async fn wrap(&self, spec: Spec, extra_writable: &[PathBuf]) -> Result<Spec, Error> {
        let ready = self.ready().await?;
        let helper = self.helper.as_deref().ok_or(Error::NoHelper {
            name: crate::HELPER,
        })?;
        let plan_json = if extra_writable.is_empty() {
            ready.plan_json.clone()
        } else {
            let mut plan = ready.plan.clone();
            plan.writable
                .extend(extra_writable.iter().filter_map(|p| p.canonicalize().ok()));
            serde_json::to_string(&plan)
                .map_err(|e| Error::Start(format!("the plan could not be encoded: {e}")))?
        };
        let mut spec = spec
            .env("TMPDIR", &self.tmp)
            .wrapped(helper, [OsString::from(plan_json)]);
        if let NetPlan::Proxy { port, .. } = ready.plan.network {
            let url = format!("http://127.0.0.1:{port}");
            for key in [
                "HTTP_PROXY",
                "HTTPS_PROXY",
                "ALL_PROXY",
                "http_proxy",
                "https_proxy",
                "all_proxy",
            ] {
                spec = spec.env(key, &url);
            }
            spec = spec.env_remove("NO_PROXY").env_remove("no_proxy");
        }
        Ok(spec)
    }

    /// The protected names that do not exist now, where a command could
    /// create them: each of the safeguard's names at each writable root,
    /// and the protected paths of the configuration (settings files, an
    /// `Edit` deny rule's file) inside a root. A mount cannot keep a path
    /// that does not exist read-only, and a placeholder would change the
    /// user's project (an empty `.mcp.json` is a JSON error; a `.tack/`
    /// moves the project root), so tack looks again once the command has
    /// ended ([`Sandbox::move_aside_created`]). Take it just before the
    /// command starts: what tack itself writes before (an "always allow"
    /// rule in `.tack/settings.local.json`) is not the command's.
    pub fn watch(&self) -> Watch {
        let roots: Vec<PathBuf> = self
            .config
            .writable_roots
            .iter()
            .filter_map(|p| p.canonicalize().ok())
            .collect();
        let inside = |p: &Path| roots.iter().any(|r| p.starts_with(r));
        let at_roots = roots.iter().flat_map(|root| {
            self.config
                .guarded_names
                .iter()
                .filter(|n| protect::is_protected(n, &self.config.guarded_names))
                .map(move |n| root.join(n))
        });
        let configured = self.config.protected.iter().filter_map(|p| {
            let parent = p.parent()?.canonicalize().ok()?;
            Some(parent.join(p.file_name()?))
        });
        let mut absent: Vec<PathBuf> = at_roots
            .chain(configured)
            .filter(|p| inside(p) && p.symlink_metadata().is_err())
            .collect();
        absent.sort();
        absent.dedup();
        Watch { absent }
    }

    /// Each path `watch` saw absent that exists now, created while the
    /// command ran: it is renamed (never deleted) to
    /// `NAME.blocked-by-tack-SECONDS` beside it, so that it takes no effect
    /// (hooks and rules of the next session, a repository whose
    /// configuration runs commands). One line per path for the answer;
    /// with `others_ran` (a background command or a leftover process ran
    /// meanwhile, in the same roots) it does not say which command made it.
    pub fn move_aside_created(&self, watch: &Watch, others_ran: bool) -> Vec<String> {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut lines = Vec::new();
        for path in &watch.absent {
            if path.symlink_metadata().is_err() {
                continue;
            }
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let aside = (0..100).map(|n| {
                let suffix = if n == 0 {
                    String::new()
                } else {
                    format!("-{n}")
                };
                path.with_file_name(format!("{name}.blocked-by-tack-{seconds}{suffix}"))
            });
            let Some(aside) = aside.into_iter().find(|a| a.symlink_metadata().is_err()) else {
                continue;
            };
            let created = if others_ran {
                format!(
                    "{} was created while the command ran (by it or a command running in the \
                     background); it is a protected path",
                    path.display()
                )
            } else {
                format!("the command created {}, a protected path", path.display())
            };
            lines.push(match std::fs::rename(path, &aside) {
                Ok(()) => format!(
                    "[blocked by the sandbox: {created}; moved to {}]",
                    aside.display()
                ),
                Err(e) => format!(
                    "[the sandbox: {created}, and tack could not move it aside ({e}); remove it \
                     before starting tack again]"
                ),
            });
        }
        lines
    }

    /// A short description of what commands run under, for the audit
    /// record: `None` until the first command ran (or when it could not).
    pub fn profile(&self) -> Option<&str> {
        match self.ready.get() {
            Some(Ok(ready)) => Some(&ready.profile),
            _ => None,
        }
    }

    /// Whether commands run in a PID namespace of their own (known after the
    /// first command): once its init is gone, nothing of the command is.
    pub fn pid_namespace(&self) -> bool {
        matches!(self.ready.get(), Some(Ok(ready)) if ready.plan.namespaces)
    }

    /// How many requests the proxy has refused so far (pass it to
    /// [`Sandbox::explain`] after the command).
    pub fn denials_so_far(&self) -> u64 {
        match self.ready.get() {
            Some(Ok(Ready { proxy: Some(p), .. })) => p.refused(),
            _ => 0,
        }
    }

    /// Why a command that failed was blocked by the sandbox, read from its
    /// command line, its output (run in `cwd`) and the proxy's refusals since
    /// `denials_before`; `None` when nothing points at the sandbox.
    pub fn explain(
        &self,
        command: &str,
        output: &str,
        cwd: &Path,
        denials_before: u64,
    ) -> Option<Blocked> {
        let Some(Ok(ready)) = self.ready.get() else {
            return None;
        };
        let denials = match &ready.proxy {
            Some(proxy) => proxy.denials_since(denials_before),
            None => Vec::new(),
        };
        explain::explain(&self.config, &ready.plan, command, output, cwd, &denials)
    }

    /// `tack sandbox check`: what this machine supports and what this
    /// configuration would enforce, in lines for a person.
    pub async fn check(&self) -> (String, bool) {
        let mut out = String::new();
        let ready = self.ready().await;
        if let Some(Ok(ready)) = self.ready.get() {
            let s = &ready.support;
            let _ = writeln!(out, "machine: {}", s.os);
            let _ = writeln!(out, "  landlock: ABI {}", s.landlock_abi);
            let _ = writeln!(
                out,
                "  user, mount and PID namespaces: {}",
                s.namespaces.as_deref().unwrap_or("yes")
            );
            let _ = writeln!(
                out,
                "  network namespace: {}",
                s.network_namespace.as_deref().unwrap_or("yes")
            );
            let _ = writeln!(out, "  seccomp: {}", if s.seccomp { "yes" } else { "no" });
            let _ = writeln!(out, "enforced: {}", ready.profile);
            let p = &ready.plan;
            let _ = writeln!(out, "  writable: {}", list(&p.writable));
            let _ = writeln!(out, "  read-only inside them: {}", list(&p.read_only));
            let _ = writeln!(out, "  hidden (Read deny rules): {}", list(&p.hidden));
            for rule in &self.config.unenforced_reads {
                let _ = writeln!(
                    out,
                    "  not enforced by the sandbox (the permission rules still apply): Read({rule})"
                );
            }
            if s.landlock_abi < 3 {
                let _ = writeln!(
                    out,
                    "  weaker here: Landlock ABI {} cannot stop truncate(2) outside the roots (ABI 3)",
                    s.landlock_abi
                );
            }
            (out, true)
        } else {
            let why = ready.err().map(|e| e.to_string()).unwrap_or_default();
            let _ = writeln!(out, "the sandbox cannot run here: {why}");
            (out, false)
        }
    }
}

fn list(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "none".to_owned();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if self.made.load(std::sync::atomic::Ordering::Acquire) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The device files every program may write to.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/ptmx"];

/// Device paths writable only in the command's own namespaces, where the
/// helper mounts its own instance over each: `/dev/pts` (a devpts holding
/// only the ptys the command opens), `/dev/shm` (a private tmpfs), and
/// `/dev/tty` (the command's own controlling terminal, if it makes one).
/// Without namespaces they are the machine's: every terminal of the user,
/// and shared memory that outlives the command and is seen by every other
/// process. So they stay read-only there, at a cost: no ptys and no POSIX
/// shared memory or named semaphores (Python's multiprocessing locks).
const OWN_DEVICES: &[&str] = &["/dev/tty", "/dev/pts", "/dev/shm"];

/// The plan for `config` on a machine with `support`, or what is missing.
fn plan(config: &Config, support: &Support, tmp: &Path, dir: &Path) -> Result<Plan, Error> {
    let mut missing = Vec::new();
    if support.landlock_abi == 0 {
        missing.push(format!(
            "Landlock (Linux 5.13 or later with landlock in the kernel's lsm= list; this is {})",
            support.os
        ));
    }
    let mut writable: Vec<PathBuf> = config
        .writable_roots
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let found = protect::find(&writable, &config.guarded_names, &config.guarded_nested);
    writable.push(tmp.canonicalize().unwrap_or_else(|_| tmp.to_path_buf()));
    let inside_writable = |p: &Path| writable.iter().any(|w| p.starts_with(w));
    let read_only: Vec<PathBuf> = dedup(
        config
            .protected
            .iter()
            .chain(&found)
            .filter_map(|p| p.canonicalize().ok())
            .filter(|p| inside_writable(p))
            .collect(),
    );
    let hidden: Vec<PathBuf> = dedup(
        config
            .hidden
            .iter()
            .filter_map(|p| p.canonicalize().ok())
            .collect(),
    );
    let devices = match support.namespaces {
        None => [DEVICES, OWN_DEVICES].concat(),
        Some(_) => DEVICES.to_vec(),
    };
    writable.extend(devices.iter().map(PathBuf::from).filter(|p| p.exists()));
    let network = match &config.network {
        Network::On => NetPlan::On,
        Network::Off => NetPlan::Off,
        Network::Loopback => NetPlan::Loopback,
        Network::Allowed(_) => NetPlan::Proxy {
            socket: dir.join("proxy.sock"),
            port: PROXY_PORT,
        },
    };
    let own_network = matches!(network, NetPlan::Proxy { .. } | NetPlan::Loopback);
    let needs_namespaces = !read_only.is_empty() || !hidden.is_empty() || own_network;
    if let (Some(why), true) = (&support.namespaces, needs_namespaces) {
        let what = if !read_only.is_empty() {
            "read-only protected paths inside the writable roots (.git, .tack, .claude, settings files)"
        } else if !hidden.is_empty() {
            "hiding paths that Read rules deny"
        } else {
            "the network allowlist"
        };
        missing.push(format!("user and mount namespaces, for {what} ({why})"));
    }
    if let (true, Some(why)) = (own_network, &support.network_namespace) {
        missing.push(format!(
            "a network namespace of its own, for the network allowlist or allowLocalBinding ({why})"
        ));
    }
    if !support.seccomp && (network != NetPlan::On || !config.allow_unix_sockets) {
        missing.push("seccomp, to refuse sockets".to_owned());
    }
    if !missing.is_empty() {
        return Err(Error::Unsupported {
            missing: missing.join("; "),
        });
    }
    Ok(Plan {
        writable,
        read_only,
        hidden,
        network,
        unix_sockets: config.allow_unix_sockets,
        namespaces: support.namespaces.is_none(),
        landlock_abi: 1,
    })
}

fn dedup(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    paths.dedup();
    paths
}

/// What the audit record says a call ran under.
fn profile(plan: &Plan, support: &Support) -> String {
    let mut out = format!("landlock v{}", support.landlock_abi);
    if plan.namespaces {
        out.push_str(" + namespaces");
    }
    out.push_str(" + seccomp; network ");
    out.push_str(match plan.network {
        NetPlan::On => "on",
        NetPlan::Off => "off",
        NetPlan::Loopback => "off (own loopback)",
        NetPlan::Proxy { .. } => "allowlist",
    });
    let roots = plan
        .writable
        .iter()
        .filter(|p| !p.starts_with("/dev"))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>();
    let _ = write!(out, "; write {}", roots.join(", "));
    if !plan.read_only.is_empty() {
        let _ = write!(out, "; read-only {}", list(&plan.read_only));
    }
    out
}

/// A name for the session's private directory in the system's temporary
/// directory, unique to this process and moment (made by [`make_private_dir`]).
fn private_dir_name() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::env::temp_dir().join(format!("tack-sandbox-{}-{nanos:x}-{n}", std::process::id()))
}

/// Makes `dir` (mode 0700; one that already exists is refused: someone else
/// may own it) and `tmp` inside it.
fn make_private_dir(dir: &Path, tmp: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new().mode(0o700).create(dir)?;
    std::fs::create_dir(tmp)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The safeguard's names, as tack-session gives them.
    pub(crate) fn guarded() -> (Vec<String>, Vec<String>) {
        let (names, nested) = tack_policy::protected_names();
        (names.into_iter().map(str::to_owned).collect(), nested)
    }

    fn config(root: &Path) -> Config {
        let (guarded_names, guarded_nested) = guarded();
        Config {
            writable_roots: vec![root.to_path_buf()],
            protected: Vec::new(),
            guarded_names,
            guarded_nested,
            hidden: Vec::new(),
            unenforced_reads: Vec::new(),
            network: Network::On,
            denied_domains: Vec::new(),
            allow_unix_sockets: true,
        }
    }

    fn support(namespaces: bool) -> Support {
        let off = (!namespaces).then(|| "off here".to_owned());
        Support {
            os: "linux".to_owned(),
            landlock_abi: 4,
            namespaces: off.clone(),
            network_namespace: off,
            seccomp: true,
        }
    }

    #[test]
    fn the_machines_terminals_and_shared_memory_are_writable_only_as_the_commands_own() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let shared = ["/dev/tty", "/dev/pts", "/dev/shm"].map(PathBuf::from);
        let without = plan(&config(dir.path()), &support(false), &tmp, dir.path()).unwrap();
        for path in &shared {
            assert!(!without.writable.contains(path), "{path:?}: {without:?}");
        }
        assert!(without.writable.contains(&PathBuf::from("/dev/null")));
        let with = plan(&config(dir.path()), &support(true), &tmp, dir.path()).unwrap();
        for path in shared.iter().filter(|p| p.exists()) {
            assert!(with.writable.contains(path), "{path:?}: {with:?}");
        }
    }

    #[test]
    fn what_the_safeguard_protects_stays_read_only_at_any_depth_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let tmp = root.join("session-tmp");
        std::fs::create_dir(&tmp).unwrap();
        for d in ["vendor/lib/.git/hooks", ".vscode", "app/.husky"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".envrc"), "").unwrap();
        let plan = plan(&config(&root), &support(true), &tmp, &root).unwrap();
        for p in ["vendor/lib/.git", ".vscode", "app/.husky", ".envrc"] {
            assert!(
                plan.read_only.contains(&root.join(p)),
                "{p}: {:?}",
                plan.read_only
            );
        }
    }

    #[test]
    fn a_protected_name_a_command_creates_is_moved_aside_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let sandbox = Sandbox::new(config(&root), None);
        let watch = sandbox.watch();
        // Created by the command.
        std::fs::create_dir(root.join(".claude")).unwrap();
        std::fs::write(root.join(".claude/settings.local.json"), "{}").unwrap();
        std::fs::write(root.join(".mcp.json"), "{}").unwrap();
        std::fs::write(root.join("ordinary.txt"), "").unwrap();
        let lines = sandbox.move_aside_created(&watch, false);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].contains(".claude, a protected path; moved to"),
            "{lines:?}"
        );
        assert!(!root.join(".claude").exists());
        assert!(!root.join(".mcp.json").exists());
        assert!(root.join(".git").is_dir() && root.join("ordinary.txt").exists());
        let moved: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".blocked-by-tack-"))
            .collect();
        assert_eq!(moved.len(), 2, "{moved:?}");
        assert!(sandbox.move_aside_created(&watch, false).is_empty());
    }
}
