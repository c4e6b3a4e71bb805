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

/// Words of a command line that say it wants the network.
const NETWORK_WORDS: &[&str] = &[
    "://",
    "curl",
    "wget",
    "ssh ",
    "scp ",
    "rsync",
    "nc ",
    "ncat",
    "telnet",
    "git clone",
    "git fetch",
    "git pull",
    "git push",
    "ls-remote",
    "npm install",
    "npm i ",
    "npx ",
    "pip install",
    "cargo install",
    "/dev/tcp/",
    "/dev/udp/",
    "socket",
    "requests.",
    "urllib",
    "http.client",
];

pub(crate) fn explain(
    config: &Config,
    plan: &Plan,
    command: &str,
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
        if let Some(denied) = config
            .denied_domains
            .iter()
            .find(|d| d.matches(&denial.host))
        {
            return Some(Blocked {
                reason: format!(
                    "network access to {}:{} is refused: `{denied}` is denied \
                     (sandbox.network.deniedDomains or a deny WebFetch(domain:…) rule); \
                     do not try to reach it another way",
                    denial.host, denial.port
                ),
            });
        }
        return Some(Blocked {
            reason: format!(
                "network access to {}:{} is not allowed (allowed domains, from \
                 sandbox.network.allowedDomains and allow WebFetch(domain:…) rules: {allowed}); \
                 ask the user to add the domain if the task needs it",
                denial.host, denial.port
            ),
        });
    }
    for line in output.lines() {
        // The path a message is about is the last one before the error's
        // text: `SCRIPT: line 2: /etc/hosts: Permission denied`.
        let Some(at) = WRITE_REFUSED.iter().filter_map(|e| line.find(e)).min() else {
            continue;
        };
        let before = &line[..at];
        let mut paths = paths_in(before, cwd);
        // `bash: .git/hooks/x: Read-only file system`: the word just before
        // the error is the path, relative or not.
        let tail = before.trim_end().trim_end_matches(':');
        let quoted = tail.ends_with(['\'', '"', '’', '”']);
        if let Some(word) = tail.rsplit(' ').next().filter(|_| !quoted) {
            let word = word.trim_matches(['\'', '"', '`', '‘', '’', '“', '”']);
            if !word.is_empty() && !word.ends_with(']') && !word.contains("://") {
                let path = Path::new(word);
                paths.push(normalize(&if path.is_absolute() {
                    path.to_path_buf()
                } else {
                    cwd.join(path)
                }));
            }
        }
        if let Some(path) = paths.pop() {
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
    let refused_socket = output.lines().any(|line| {
        WRITE_REFUSED.iter().any(|e| line.contains(e))
            && [
                "socket",
                "connect",
                "/dev/tcp/",
                "/dev/udp/",
                "PermissionError",
            ]
            .iter()
            .any(|w| line.contains(w))
    });
    let wants_network = NETWORK_WORDS.iter().any(|w| command.contains(w));
    if plan.network != NetPlan::On
        && (NO_NETWORK.iter().any(|e| output.contains(e)) || refused_socket || wants_network)
    {
        let reason = match plan.network {
            NetPlan::Proxy { .. } => "the network is reachable only through tack's proxy, for the \
                 domains in sandbox.network.allowedDomains; a connection that bypasses the proxy \
                 fails"
                .to_owned(),
            NetPlan::Loopback => "the network is off for sandboxed commands but for their own \
                 loopback (a server the command starts on 127.0.0.1 can be reached, the \
                 machine's cannot); ask the user if the task needs more \
                 (sandbox.network.allowedDomains lists the domains commands may reach)"
                .to_owned(),
            _ => "the network is off for sandboxed commands; ask the user if the task needs it \
                  (sandbox.network.allowedDomains lists the domains commands may reach; \
                  sandbox.network.allowLocalBinding gives commands a loopback of their own for \
                  local test servers)"
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

/// The paths a message line names, in the order they appear: quoted words
/// (`'x'`, `"x"`, `` `x' ``, which may hold spaces) and words that begin
/// with `/`, `./` or `../`, made absolute against `cwd`.
fn paths_in(line: &str, cwd: &Path) -> Vec<PathBuf> {
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut quoted = Vec::new();
    for open in ['\'', '"', '`', '‘', '“'] {
        let mut from = 0;
        while let Some(start) = line[from..].find(open).map(|i| i + from) {
            let body = start + open.len_utf8();
            let Some(len) = line[body..].find(['\'', '"', '’', '”']) else {
                break;
            };
            found.push((start, line[body..body + len].to_owned()));
            quoted.push(start..body + len + 1);
            from = body + len + 1;
        }
    }
    let mut offset = 0;
    for word in line.split(' ') {
        let start = offset;
        offset += word.len() + 1;
        if quoted.iter().any(|q| q.contains(&start)) {
            continue;
        }
        let word = word.trim_matches(['(', ')']);
        if word.starts_with('/') || word.starts_with("./") || word.starts_with("../") {
            found.push((start, word.to_owned()));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    found
        .into_iter()
        .filter_map(|(_, word)| {
            let word = word.trim_end_matches([':', ',', ';']);
            if word.is_empty() || word.contains("://") {
                return None;
            }
            let path = Path::new(word);
            let absolute = if path.is_absolute() {
                path.to_path_buf()
            } else {
                cwd.join(path)
            };
            Some(normalize(&absolute))
        })
        .collect()
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
            guarded_names: vec![],
            guarded_nested: vec![],
            hidden: vec![],
            unenforced_reads: vec![],
            network: Network::Off,
            denied_domains: vec![],
            allow_unix_sockets: false,
        }
    }

    fn reason(output: &str) -> Option<String> {
        explain(
            &config(),
            &plan(),
            "make",
            output,
            Path::new("/work/p/src"),
            &[],
        )
        .map(|b| b.to_string())
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
    fn the_path_is_the_one_the_error_is_about_not_the_scripts() {
        let r =
            reason("/tmp/tack-bash-1/script-1: line 2: /tmp/out/keep: Permission denied").unwrap();
        assert!(r.contains("write to /tmp/out/keep outside"), "{r}");
        let r = reason("cp: cannot create regular file '/o/copied': Permission denied").unwrap();
        assert!(r.contains("write to /o/copied outside"), "{r}");
        let r = reason("/tmp/s/script-1: line 2: ../.git/hooks/x: Read-only file system").unwrap();
        assert!(
            r.contains("write to /work/p/.git/hooks/x inside /work/p/.git"),
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
        let r = reason("bash: /dev/tcp/127.0.0.1/80: Operation not permitted").unwrap();
        assert!(r.contains("the network is off"), "{r}");
        let r = reason("PermissionError: [Errno 1] Operation not permitted").unwrap();
        assert!(r.contains("the network is off"), "{r}");
        // A quiet `curl -s` says nothing; its command line does.
        let silent = explain(
            &config(),
            &plan(),
            "curl -s https://x.dev",
            "",
            Path::new("/"),
            &[],
        );
        assert!(silent.is_some_and(|b| b.reason.contains("the network is off")));
    }
}
