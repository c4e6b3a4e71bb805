//! Why a failed command was blocked by the sandbox, in words the model can
//! act on: which write, outside which roots, or which host, not on the list.

use std::path::{Component, Path, PathBuf};

use crate::config::{Config, Network};
use crate::plan::{NetPlan, Plan};
use crate::proxy::Denial;

/// What the sandbox blocked in a command that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// After "blocked by the sandbox: ".
    pub reason: String,
}

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "blocked by the sandbox: {}", self.reason)
    }
}

/// What the errno texts of a refused write look like in programs' messages.
const WRITE_REFUSED: &[&str] = &[
    "Read-only file system",
    "Permission denied",
    "Operation not permitted",
];
/// What a program prints when it cannot reach the network at all.
const NO_NETWORK: &[&str] = &[
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "nodename nor servname provided",
    "getaddrinfo",
    "Address family not supported",
    "Failed to connect",
    "Connection refused",
    "Couldn't connect to server",
    "No address associated with hostname",
];

pub(crate) fn explain(
    config: &Config,
    plan: &Plan,
    output: &str,
    cwd: &Path,
    denials: &[Denial],
) -> Option<Blocked> {
    if let Some(denial) = denials.first() {
        let allowed = match &config.network {
            Network::Allowed(list) if !list.is_empty() => list
                .iter()
                .map(|d| d.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            _ => "none".to_owned(),
        };
        return Some(Blocked {
            reason: format!(
                "network access to {}:{} is not allowed (sandbox.network.allowedDomains: {allowed}); \
                 ask the user to add the domain if the task needs it",
                denial.host, denial.port
            ),
        });
    }
    for line in output.lines() {
        if !WRITE_REFUSED.iter().any(|e| line.contains(e)) {
            continue;
        }
        for path in paths_in(line, cwd) {
            if let Some(protected) = plan.read_only.iter().find(|p| path.starts_with(p)) {
                return Some(Blocked {
                    reason: format!(
                        "write to {} inside {}, which stays read-only in the sandbox (a command \
                         may not change the project's git data, rules or hooks); ask the user \
                         to make this change",
                        path.display(),
                        protected.display()
                    ),
                });
            }
            if !plan.writable.iter().any(|w| path.starts_with(w)) && !is_device(&path) {
                return Some(Blocked {
                    reason: format!(
                        "write to {} outside the writable roots ({}); write inside them or to \
                         $TMPDIR, or ask the user to add a writable root (sandbox.writableRoots)",
                        path.display(),
                        roots(plan)
                    ),
                });
            }
        }
    }
    if plan.network != NetPlan::On && NO_NETWORK.iter().any(|e| output.contains(e)) {
        let reason = match plan.network {
            NetPlan::Proxy { .. } => "the network is reachable only through tack's proxy, for the \
                 domains in sandbox.network.allowedDomains; a connection that bypasses the proxy \
                 fails"
                .to_owned(),
            _ => "the network is off for sandboxed commands; ask the user if the task needs it \
                  (sandbox.network.allowedDomains lists the domains commands may reach)"
                .to_owned(),
        };
        return Some(Blocked { reason });
    }
    None
}

fn roots(plan: &Plan) -> String {
    plan.writable
        .iter()
        .filter(|p| !is_device(p))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_device(path: &Path) -> bool {
    path.starts_with("/dev")
}

/// The paths a message line names: words that begin with `/`, `./` or
/// `~`, or quoted ones (`'x'`, `"x"`, `` `x' ``), made absolute against `cwd`.
fn paths_in(line: &str, cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut push = |word: &str| {
        let word = word.trim_end_matches([':', ',', ';', ')']);
        if word.is_empty() || word.contains("://") {
            return;
        }
        let path = Path::new(word);
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            cwd.join(path)
        };
        out.push(normalize(&absolute));
    };
    // Quoted words first: they may hold spaces.
    for quote in ['\'', '"', '`', '‘', '“'] {
        let mut rest = line;
        while let Some(start) = rest.find(quote) {
            let after = &rest[start + quote.len_utf8()..];
            let Some(end) = after.find(['\'', '"', '’', '”']) else {
                break;
            };
            push(&after[..end]);
            rest = &after[end + 1..];
        }
    }
    for word in line.split_whitespace() {
        let word = word.trim_matches(['\'', '"', '`', '‘', '’', '“', '”', '(']);
        if word.starts_with('/') || word.starts_with("./") || word.starts_with("../") {
            push(word);
        }
    }
    out
}

/// `a/./b/../c` → `a/c`, without touching the file system (the path may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            writable: vec!["/work/p".into(), "/tmp/s/tmp".into(), "/dev/null".into()],
            read_only: vec!["/work/p/.git".into()],
            hidden: vec![],
            network: NetPlan::Off,
            unix_sockets: false,
            namespaces: true,
            landlock_abi: 1,
        }
    }

    fn config() -> Config {
        Config {
            writable_roots: vec!["/work/p".into()],
            protected: vec![],
            hidden: vec![],
            unenforced_reads: vec![],
            network: Network::Off,
            allow_unix_sockets: false,
        }
    }

    fn reason(output: &str) -> Option<String> {
        explain(&config(), &plan(), output, Path::new("/work/p/src"), &[]).map(|b| b.to_string())
    }

    #[test]
    fn writes_outside_the_roots_are_named() {
        let r = reason("bash: line 1: /etc/hosts: Permission denied").unwrap();
        assert!(r.starts_with("blocked by the sandbox: write to /etc/hosts outside the writable roots (/work/p, /tmp/s/tmp)"), "{r}");
        let r = reason("sed: couldn't open temporary file /etc/sedAbc12: Read-only file system")
            .unwrap();
        assert!(r.contains("/etc/sedAbc12"), "{r}");
        let r = reason("touch: cannot touch '../../outside/x y': Permission denied").unwrap();
        assert!(r.contains("write to /work/outside/x y outside"), "{r}");
    }

    #[test]
    fn writes_to_protected_paths_are_named() {
        let r = reason("bash: ../.git/hooks/pre-commit: Read-only file system").unwrap();
        assert!(
            r.contains(
                "write to /work/p/.git/hooks/pre-commit inside /work/p/.git, which stays read-only"
            ),
            "{r}"
        );
    }

    #[test]
    fn failures_the_sandbox_did_not_cause_are_left_alone() {
        assert_eq!(reason("error: could not compile `x`"), None);
        assert_eq!(
            reason("cat: /work/p/missing: No such file or directory"),
            None
        );
        assert_eq!(
            reason("rm: cannot remove '/work/p/x': Permission denied"),
            None
        );
    }

    #[test]
    fn network_failures_say_the_network_is_off() {
        let r = reason("curl: (7) Couldn't connect to server").unwrap();
        assert!(r.contains("the network is off"), "{r}");
    }
}
