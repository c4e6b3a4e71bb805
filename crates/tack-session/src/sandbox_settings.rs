//! The `sandbox` section of every settings file, in Claude Code's schema, so
//! a `.claude/settings.json` written for Claude Code means the same here:
//!
//! ```json
//! {"sandbox": {
//!   "enabled": true,
//!   "failIfUnavailable": true,
//!   "autoAllowBashIfSandboxed": true,
//!   "allowUnsandboxedCommands": true,
//!   "excludedCommands": ["docker:*"],
//!   "writableRoots": ["~/.cache/pip"],
//!   "network": {"allowedDomains": ["github.com", "*.npmjs.org"],
//!               "deniedDomains": ["evil.example"], "allowAllUnixSockets": false},
//!   "filesystem": {"allowWrite": ["~/.kube"], "denyWrite": ["./infra"],
//!                  "denyRead": ["~/.aws/credentials"]}}}
//! ```
//!
//! Levels in order (user, project, local, command line, managed): later
//! levels override scalars, lists concatenate. What a project file asks for
//! that would widen the sandbox is withheld until approved
//! (`trust.rs`; see [`crate::UntrustedSettings`]), before this reads it.
//!
//! Paths as Claude Code reads them: `/abs` (and the older `//abs`) from the
//! file system root, `~/…` from the home directory, `./…` or a bare path
//! from the project root in project, local and command-line settings and
//! from the settings file's directory in user and managed settings (for
//! `~/.claude/settings.json`, `~/.claude`).
//!
//! `allowedDomains: ["*"]` means the whole network, unrestricted (no proxy:
//! `deniedDomains` then cannot be enforced). Mistakes are warnings naming
//! the file, the line and the closest valid key; Claude Code keys tack does
//! not enforce are accepted with a note saying so.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};
use tack_policy::{Level, Settings, SettingsFile};
use tack_sandbox::{DomainPattern, Network};

/// Where a setting was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingOrigin {
    pub level: Level,
    pub file: PathBuf,
    /// 1-based, when found.
    pub line: Option<usize>,
}

impl fmt::Display for SettingOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line} ({})", self.file.display(), self.level),
            None => write!(f, "{} ({})", self.file.display(), self.level),
        }
    }
}

/// The sandbox a session's settings ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Commands run in the OS sandbox. tack's default: on on Linux, off
    /// elsewhere (where an explicit `true` must make commands refuse to run:
    /// see `enabled_set_in`).
    pub enabled: bool,
    /// Where `enabled` was set; None: tack's default.
    pub enabled_set_in: Option<SettingOrigin>,
    /// When the sandbox cannot be set up: true (the default) refuses to run
    /// commands; false runs them unsandboxed, with a notice.
    pub fail_if_unavailable: bool,
    /// Where `failIfUnavailable` was set; None: the default.
    pub fail_if_unavailable_set_in: Option<SettingOrigin>,
    /// A sandboxed Bash command that no rule allows runs without asking
    /// when every path it names is inside the writable roots. Default:
    /// Claude Code's (true) when the user turned the sandbox on in their own
    /// settings (user, local, command line or managed: `"enabled": true`);
    /// false when it is on only by tack's default, so turning the sandbox
    /// on by default does not also stop tack from asking.
    pub auto_allow_bash_if_sandboxed: bool,
    /// Where `autoAllowBashIfSandboxed` was set; None: the default.
    pub auto_allow_set_in: Option<SettingOrigin>,
    /// A call may ask to run outside the sandbox (`dangerouslyDisableSandbox`),
    /// which a person then allows each time (default true).
    pub allow_unsandboxed_commands: bool,
    /// Commands that run outside the sandbox, in Bash-rule syntax
    /// (`docker`, `docker:*`, `npm run test`); see [`tack_policy::excluded_command`].
    pub excluded_commands: Vec<String>,
    /// `network.allowedDomains`, without `"*"`.
    pub allowed_domains: Vec<DomainPattern>,
    /// `network.allowedDomains` holds `"*"`: the whole network, unrestricted.
    pub network_unrestricted: bool,
    /// `network.deniedDomains`: refused even when an allowed pattern matches.
    pub denied_domains: Vec<DomainPattern>,
    /// Managed settings set `network.allowManagedDomainsOnly`: domains
    /// allowed anywhere else do not count.
    pub managed_domains_only: bool,
    /// `network.allowAllUnixSockets` (default false).
    pub allow_all_unix_sockets: bool,
    /// `network.allowLocalBinding` (default false): with no domain allowed,
    /// commands get a loopback of their own (a test suite's servers on
    /// 127.0.0.1 work; the machine's listeners stay out of reach).
    pub allow_local_binding: bool,
    /// More directories commands may write (`filesystem.allowWrite`,
    /// `writableRoots`), absolute.
    pub writable_roots: Vec<PathBuf>,
    /// Paths inside the writable roots that stay read-only
    /// (`filesystem.denyWrite`; `dir/**` is `dir`), absolute.
    pub deny_write: Vec<PathBuf>,
    /// Paths hidden from commands (`filesystem.denyRead`), absolute; may be
    /// patterns, which [`tack_policy::hidden_paths`] reports as unenforced.
    pub deny_read: Vec<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            enabled: cfg!(target_os = "linux"),
            enabled_set_in: None,
            fail_if_unavailable: true,
            fail_if_unavailable_set_in: None,
            auto_allow_bash_if_sandboxed: false,
            auto_allow_set_in: None,
            allow_unsandboxed_commands: true,
            excluded_commands: Vec::new(),
            allowed_domains: Vec::new(),
            network_unrestricted: false,
            denied_domains: Vec::new(),
            managed_domains_only: false,
            allow_all_unix_sockets: false,
            allow_local_binding: false,
            writable_roots: Vec::new(),
            deny_write: Vec::new(),
            deny_read: Vec::new(),
        }
    }
}

impl SandboxSettings {
    /// The network a sandboxed command gets: none without allowed domains;
    /// everything for `"*"`; else the allowed domains through the proxy,
    /// less those a denied pattern covers whole (`api.x.com` under
    /// `*.x.com`). A denied host inside an allowed wildcard
    /// (`bad.x.com` under `*.x.com`) is for the proxy to refuse: check
    /// [`SandboxSettings::denied_domains`] there.
    pub fn network(&self) -> Network {
        if self.network_unrestricted {
            return Network::On;
        }
        let allowed: Vec<DomainPattern> = self
            .allowed_domains
            .iter()
            .filter(|a| !self.denied_domains.iter().any(|d| covers(d, a)))
            .cloned()
            .collect();
        if allowed.is_empty() {
            if self.allow_local_binding {
                Network::Loopback
            } else {
                Network::Off
            }
        } else {
            Network::Allowed(allowed)
        }
    }

    /// These settings with the domains of `policy`'s `WebFetch(domain:…)`
    /// rules added, as Claude Code's sandbox adds them: deny rules to
    /// `deniedDomains`, allow rules to `allowedDomains` — not those of a
    /// project file (a checked-in file does not widen the sandbox without
    /// approval; its `sandbox.network.allowedDomains` are withheld until
    /// then), and with `allowManagedDomainsOnly` only managed ones. A rule
    /// whose host is no domain pattern (an IP address) is left out: the
    /// proxy refuses addresses anyway.
    pub fn with_rule_domains(&self, policy: &tack_policy::Policy) -> SandboxSettings {
        let managed_only = self.managed_domains_only;
        let found = tack_policy::rule_domains(policy, |level| {
            level != Level::Project && (!managed_only || level == Level::Managed)
        });
        let mut out = self.clone();
        for (texts, list) in [
            (found.allowed, &mut out.allowed_domains),
            (found.denied, &mut out.denied_domains),
        ] {
            for d in texts.iter().filter_map(|t| DomainPattern::parse(t)) {
                if !list.contains(&d) {
                    list.push(d);
                }
            }
        }
        out
    }

    /// The paths the sandbox hides: the deny `Read(…)` rules of `policy`
    /// (the session's, for its working directory) and `denyRead`; what
    /// cannot be hidden is listed as unenforced.
    pub fn hidden(&self, policy: &tack_policy::Policy) -> tack_policy::HiddenPaths {
        tack_policy::hidden_paths(policy, &self.deny_read)
    }

    /// The paths that stay read-only: the deny `Edit(…)` rules of `policy`
    /// and `denyWrite` (what cannot be a path is listed as unenforced).
    pub fn read_only(&self, policy: &tack_policy::Policy) -> tack_policy::HiddenPaths {
        tack_policy::read_only_paths(policy, &self.deny_write)
    }

    /// What the permission stage needs (see
    /// [`tack_agent::permission::PolicyStage::with_sandbox`]): `writable_roots`
    /// are all of them (working directory, additional directories and
    /// these settings' roots), `temp_dir` the sandbox's temp directory.
    pub fn permissions(
        &self,
        writable_roots: &[PathBuf],
        temp_dir: Option<&Path>,
    ) -> tack_policy::SandboxPermissions {
        let mut p = tack_policy::SandboxPermissions::new(writable_roots, temp_dir);
        p.excluded_commands.clone_from(&self.excluded_commands);
        p.auto_allow = self.auto_allow_bash_if_sandboxed;
        p.allow_unsandboxed_commands = self.allow_unsandboxed_commands;
        p
    }
}

/// Whether every host `inner` matches, `outer` matches.
fn covers(outer: &DomainPattern, inner: &DomainPattern) -> bool {
    match inner.as_str().strip_prefix("*.") {
        None => outer.matches(inner.as_str()),
        // `*.a.b` covers `*.c.a.b` and `*.a.b`.
        Some(parent) => {
            outer == inner || (outer.as_str().starts_with("*.") && outer.matches(parent))
        }
    }
}

const SANDBOX_KEYS: &[&str] = &[
    "enabled",
    "failIfUnavailable",
    "autoAllowBashIfSandboxed",
    "allowUnsandboxedCommands",
    "excludedCommands",
    "writableRoots",
    "network",
    "filesystem",
];
const NETWORK_KEYS: &[&str] = &[
    "allowedDomains",
    "deniedDomains",
    "allowAllUnixSockets",
    "allowLocalBinding",
    "allowUnixSockets",
    "allowManagedDomainsOnly",
];
const FILESYSTEM_KEYS: &[&str] = &["allowWrite", "writableRoots", "denyWrite", "denyRead"];

/// Claude Code keys tack accepts and does not enforce, with what that means.
const IGNORED: &[(&str, &str)] = &[
    ("ignoreViolations", ""),
    ("enableWeakerNestedSandbox", ""),
    ("enableWeakerNetworkIsolation", ""),
    ("allowNestedUserNamespaces", ""),
    ("ripgrep", ""),
    ("bwrapPath", " (tack's sandbox does not use bubblewrap)"),
    ("socatPath", " (tack's sandbox does not use socat)"),
    (
        "credentials",
        "; tack does not hide credential files or variables by it: use sandbox.filesystem.denyRead or Read deny rules for the files",
    ),
    ("network.strictAllowlist", ""),
    ("network.allowMachLookup", " (macOS only)"),
    ("network.httpProxyPort", " (tack runs its own proxy)"),
    ("network.socksProxyPort", " (tack runs its own proxy)"),
    ("network.tlsTerminate", ""),
    (
        "filesystem.allowRead",
        " (what denyRead hides stays hidden)",
    ),
    ("filesystem.allowManagedReadPathsOnly", ""),
    ("filesystem.disabled", ""),
];

/// One file being read: where its keys are, and what is wrong in it.
struct FileReader<'a> {
    file: &'a SettingsFile,
    warnings: &'a mut Vec<String>,
}

impl FileReader<'_> {
    fn at(&self, needle: &str) -> String {
        let quoted = serde_json::to_string(needle).unwrap_or_else(|_| format!("\"{needle}\""));
        match tack_policy::lint::line_of(&self.file.text, &quoted) {
            Some(line) => format!("{}:{line}", self.file.path.display()),
            None => self.file.path.display().to_string(),
        }
    }

    fn origin(&self, key: &str) -> SettingOrigin {
        let quoted = format!("\"{key}\"");
        SettingOrigin {
            level: self.file.level,
            file: self.file.path.clone(),
            line: tack_policy::lint::line_of(&self.file.text, &quoted),
        }
    }

    fn warn(&mut self, key: &str, message: String) {
        let at = self.at(key);
        self.warnings.push(format!("{at}: {message}"));
    }

    fn bool(&mut self, name: &str, key: &str, value: &Value) -> Option<bool> {
        let b = value.as_bool();
        if b.is_none() {
            self.warn(
                key,
                format!("sandbox.{name} must be true or false, not {value}; ignored"),
            );
        }
        b
    }

    fn strings(&mut self, name: &str, key: &str, value: &Value, example: &str) -> Vec<String> {
        let Some(list) = value.as_array() else {
            self.warn(
                key,
                format!("sandbox.{name} must be a list of strings such as {example}, not {value}; ignored"),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in list {
            match item.as_str() {
                Some(s) => out.push(s.to_owned()),
                None => self.warn(
                    key,
                    format!("sandbox.{name} holds {item}, which is not a string; it is ignored"),
                ),
            }
        }
        out
    }

    fn object<'v>(
        &mut self,
        name: &str,
        value: &'v Value,
        example: &str,
    ) -> Option<&'v Map<String, Value>> {
        let o = value.as_object();
        if o.is_none() {
            let key = name.rsplit('.').next().unwrap_or(name);
            self.warn(
                key,
                format!("\"{name}\" must be an object such as {example}; ignored"),
            );
        }
        o
    }

    fn unknown(&mut self, section: &str, key: &str, known: &[&str]) {
        let name = if section.is_empty() {
            key.to_owned()
        } else {
            format!("{section}.{key}")
        };
        if let Some((_, what)) = IGNORED.iter().find(|(k, _)| *k == name) {
            self.warn(
                key,
                format!("note: tack ignores sandbox.{name}, a Claude Code setting it does not enforce{what}"),
            );
            return;
        }
        let hint = tack_policy::lint::closest(key, known)
            .map(|k| format!("; did you mean \"{k}\"?"))
            .unwrap_or_default();
        let prefix = if section.is_empty() {
            "sandbox".to_owned()
        } else {
            format!("sandbox.{section}")
        };
        self.warn(
            key,
            format!(
                "unknown key {prefix}.{key}, ignored{hint} (known: {})",
                known.join(", ")
            ),
        );
    }
}

/// The `sandbox` section of every file, and what is wrong in it.
pub(crate) fn sandbox(
    settings: &Settings,
    project_root: &Path,
    home: Option<&Path>,
) -> (SandboxSettings, Vec<String>) {
    let mut out = SandboxSettings::default();
    let mut warnings = Vec::new();
    let managed_domains_only = settings.files().iter().any(|f| {
        f.level == Level::Managed
            && f.value["sandbox"]["network"]["allowManagedDomainsOnly"].as_bool() == Some(true)
    });
    out.managed_domains_only = managed_domains_only;
    for file in settings.files() {
        let Some(section) = file.value.get("sandbox") else {
            continue;
        };
        let mut r = FileReader {
            file,
            warnings: &mut warnings,
        };
        let Some(map) = r.object("sandbox", section, "{\"enabled\": true}") else {
            continue;
        };
        let mut into = SectionReader {
            r,
            out: &mut out,
            base: relative_base(file, project_root),
            home,
            managed_domains_only,
        };
        into.top(map);
    }
    if out.auto_allow_set_in.is_none() {
        out.auto_allow_bash_if_sandboxed = out.enabled
            && out
                .enabled_set_in
                .as_ref()
                .is_some_and(|o| o.level != Level::Project);
    }
    if out.network_unrestricted && !out.denied_domains.is_empty() {
        let denied: Vec<&str> = out
            .denied_domains
            .iter()
            .map(DomainPattern::as_str)
            .collect();
        warnings.push(format!(
            "sandbox.network.allowedDomains holds \"*\" (the whole network, unrestricted), so sandbox.network.deniedDomains ({}) cannot be enforced for sandboxed commands; list the domains commands need instead of \"*\"",
            denied.join(", ")
        ));
    }
    (out, warnings)
}

/// One file's `sandbox` read into the settings so far.
struct SectionReader<'a, 'w> {
    r: FileReader<'w>,
    out: &'a mut SandboxSettings,
    /// What `./x` is relative to in this file.
    base: PathBuf,
    home: Option<&'a Path>,
    managed_domains_only: bool,
}

impl SectionReader<'_, '_> {
    fn top(&mut self, map: &Map<String, Value>) {
        for (key, value) in map {
            match key.as_str() {
                "enabled" => {
                    if let Some(b) = self.r.bool(key, key, value) {
                        self.out.enabled = b;
                        self.out.enabled_set_in = Some(self.r.origin(key));
                    }
                }
                "failIfUnavailable" => {
                    if let Some(b) = self.r.bool(key, key, value) {
                        self.out.fail_if_unavailable = b;
                        self.out.fail_if_unavailable_set_in = Some(self.r.origin(key));
                    }
                }
                "autoAllowBashIfSandboxed" => {
                    if let Some(b) = self.r.bool(key, key, value) {
                        self.out.auto_allow_bash_if_sandboxed = b;
                        self.out.auto_allow_set_in = Some(self.r.origin(key));
                    }
                }
                "allowUnsandboxedCommands" => {
                    if let Some(b) = self.r.bool(key, key, value) {
                        self.out.allow_unsandboxed_commands = b;
                    }
                }
                "excludedCommands" => self.excluded_commands(value),
                "writableRoots" => {
                    let found = self.paths(key, key, value, Glob::Refused);
                    self.out.writable_roots.extend(found);
                }
                "network" => {
                    let example = "{\"allowedDomains\": [\"github.com\"]}";
                    if let Some(net) = self.r.object("sandbox.network", value, example) {
                        self.network(net);
                    }
                }
                "filesystem" => {
                    let example = "{\"allowWrite\": [\"~/.kube\"]}";
                    if let Some(fs) = self.r.object("sandbox.filesystem", value, example) {
                        self.filesystem(fs);
                    }
                }
                other => self.r.unknown("", other, SANDBOX_KEYS),
            }
        }
    }

    fn excluded_commands(&mut self, value: &Value) {
        let key = "excludedCommands";
        for command in self.r.strings(key, key, value, "[\"docker:*\"]") {
            let trimmed = command.trim();
            if trimmed.trim_end_matches(":*").trim().is_empty() {
                self.r.warn(
                    &command,
                    format!(
                        "sandbox.excludedCommands entry {command:?} names no command; it is ignored"
                    ),
                );
                continue;
            }
            if trimmed.trim_start_matches('*').trim().is_empty() {
                self.r.warn(
                    &command,
                    format!("sandbox.excludedCommands entry {command:?} takes every command that is one simple command out of the sandbox"),
                );
            }
            self.out.excluded_commands.push(command);
        }
    }

    fn network(&mut self, net: &Map<String, Value>) {
        let level = self.r.file.level;
        for (key, value) in net {
            let name = format!("network.{key}");
            match key.as_str() {
                "allowedDomains" if self.managed_domains_only && level != Level::Managed => {
                    self.r.warn(
                        key,
                        "sandbox.network.allowedDomains is ignored here: the managed settings allow only their own domains (allowManagedDomainsOnly)".to_owned(),
                    );
                }
                "allowedDomains" | "deniedDomains" => self.domains(&name, key, value),
                "allowAllUnixSockets" => {
                    if let Some(b) = self.r.bool(&name, key, value) {
                        self.out.allow_all_unix_sockets = b;
                    }
                }
                "allowLocalBinding" => {
                    if let Some(b) = self.r.bool(&name, key, value) {
                        self.out.allow_local_binding = b;
                    }
                }
                "allowUnixSockets" => self.r.warn(
                    key,
                    "note: sandbox.network.allowUnixSockets (socket paths) is macOS-only in Claude Code; on Linux only sandbox.network.allowAllUnixSockets applies, so these sockets stay refused".to_owned(),
                ),
                "allowManagedDomainsOnly" if level != Level::Managed => self.r.warn(
                    key,
                    "note: sandbox.network.allowManagedDomainsOnly counts only in managed settings; ignored here".to_owned(),
                ),
                "allowManagedDomainsOnly" => {
                    self.r.bool(&name, key, value);
                }
                other => self.r.unknown("network", other, NETWORK_KEYS),
            }
        }
    }

    fn domains(&mut self, name: &str, key: &str, value: &Value) {
        let allowed = key == "allowedDomains";
        let example = "[\"github.com\", \"*.npmjs.org\"]";
        for domain in self.r.strings(name, key, value, example) {
            if allowed && domain.trim() == "*" {
                self.out.network_unrestricted = true;
                continue;
            }
            match DomainPattern::parse(&domain) {
                Some(d) if allowed => self.out.allowed_domains.push(d),
                Some(d) => self.out.denied_domains.push(d),
                None => self.r.warn(
                    &domain,
                    format!("sandbox.{name} entry {domain:?} is not a domain pattern (write `example.com` or `*.example.com`: no scheme, port or path); it is ignored"),
                ),
            }
        }
    }

    fn filesystem(&mut self, fs: &Map<String, Value>) {
        for (key, value) in fs {
            let name = format!("filesystem.{key}");
            match key.as_str() {
                "allowWrite" | "writableRoots" => {
                    let found = self.paths(&name, key, value, Glob::Refused);
                    self.out.writable_roots.extend(found);
                }
                "denyWrite" => {
                    let found = self.paths(&name, key, value, Glob::Subtree);
                    self.out.deny_write.extend(found);
                }
                "denyRead" => {
                    let found = self.paths(&name, key, value, Glob::Kept);
                    self.out.deny_read.extend(found);
                }
                other => self.r.unknown("filesystem", other, FILESYSTEM_KEYS),
            }
        }
    }

    /// A list of paths, made absolute; a bad entry is a warning and left out.
    fn paths(&mut self, name: &str, key: &str, value: &Value, glob: Glob) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let example = "[\"~/.kube\", \"./build\"]";
        for text in self.r.strings(name, key, value, example) {
            match sandbox_path(&text, &self.base, self.home).and_then(|p| glob.check(p)) {
                Ok(p) => found.push(p),
                Err(e) => self.r.warn(
                    &text,
                    format!("sandbox.{name} entry {text:?}: {e}; it is ignored"),
                ),
            }
        }
        found
    }
}

/// What a list takes of glob patterns.
#[derive(Clone, Copy)]
enum Glob {
    /// None (a writable root is a directory).
    Refused,
    /// `dir/**` only, as `dir`.
    Subtree,
    /// Any (reported as unenforced where it cannot be a path).
    Kept,
}

impl Glob {
    fn check(self, path: PathBuf) -> Result<PathBuf, String> {
        let text = path.to_string_lossy();
        let meta = |s: &str| s.contains(['*', '?', '[', '{']);
        match self {
            Glob::Kept => Ok(path),
            _ if !meta(&text) => Ok(path),
            Glob::Subtree => match text.strip_suffix("/**") {
                Some(dir) if !meta(dir) => Ok(PathBuf::from(dir)),
                _ => Err("only a path or `dir/**` can be kept read-only, not a pattern".into()),
            },
            Glob::Refused => Err("a writable root is a directory, not a pattern".into()),
        }
    }
}

/// What `./x` and bare paths are relative to in this file.
fn relative_base(file: &SettingsFile, project_root: &Path) -> PathBuf {
    match file.level {
        Level::User | Level::Managed => file
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| project_root.to_path_buf()),
        _ => project_root.to_path_buf(),
    }
}

/// A sandbox path as Claude Code reads it, made absolute (lexically).
pub(crate) fn sandbox_path(
    text: &str,
    base: &Path,
    home: Option<&Path>,
) -> Result<PathBuf, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("the path is empty".into());
    }
    let path = if let Some(rest) = text.strip_prefix("//") {
        PathBuf::from("/").join(rest)
    } else if text.starts_with('/') {
        PathBuf::from(text)
    } else if text == "~" || text.starts_with("~/") {
        let home = home.ok_or("the home directory is unknown (HOME is not set)")?;
        home.join(text.trim_start_matches('~').trim_start_matches('/'))
    } else if text.starts_with('~') {
        return Err("`~user` paths are not supported; write `~/path` or an absolute path".into());
    } else {
        base.join(text)
    };
    Ok(normalize(&path))
}

/// `.` and `..` removed without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_read_as_claude_code_reads_them() {
        let base = Path::new("/p");
        let home = Some(Path::new("/home/u"));
        let read = |t: &str| sandbox_path(t, base, home).unwrap();
        assert_eq!(read("/tmp/build"), PathBuf::from("/tmp/build"));
        assert_eq!(read("//tmp/build"), PathBuf::from("/tmp/build"));
        assert_eq!(read("~/.kube"), PathBuf::from("/home/u/.kube"));
        assert_eq!(read("~"), PathBuf::from("/home/u"));
        assert_eq!(read("./out"), PathBuf::from("/p/out"));
        assert_eq!(read("out/../x"), PathBuf::from("/p/x"));
        assert!(sandbox_path("~bob/x", base, home).is_err());
        assert!(sandbox_path("", base, home).is_err());
        assert!(sandbox_path("~/x", base, None).is_err());
    }

    #[test]
    fn a_denied_pattern_that_covers_an_allowed_one_removes_it() {
        let d = |s: &str| DomainPattern::parse(s).unwrap();
        assert!(covers(&d("*.x.com"), &d("api.x.com")));
        assert!(covers(&d("*.x.com"), &d("*.a.x.com")));
        assert!(covers(&d("*.x.com"), &d("*.x.com")));
        assert!(!covers(&d("*.x.com"), &d("x.com")));
        assert!(!covers(&d("bad.x.com"), &d("*.x.com")));
        assert!(covers(&d("x.com"), &d("x.com")));
    }
}
