//! What the session asks of the sandbox, before it meets a machine.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The sandbox a session asks for, from its `sandbox` settings (filled by
/// tack-session). Paths are absolute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Where commands may write: the working directory, the additional
    /// directories and `sandbox.writableRoots`.
    pub writable_roots: Vec<PathBuf>,
    /// Paths inside the writable roots that stay read-only: each root's
    /// `.git`, `.tack` and `.claude`, and the settings files in effect.
    /// Only those that exist can be protected by a mount. The sandbox adds
    /// what the safeguard protects wherever a bounded walk of the roots
    /// finds it (nested `.git`, `.vscode`, `.envrc`…), and moves aside a
    /// protected name a command creates at a root.
    pub protected: Vec<PathBuf>,
    /// Names kept read-only wherever the walk finds them inside the
    /// writable roots (`.git`, `.vscode`, `.envrc`: the permission layer's
    /// protected-path safeguard, tack-policy's `protected_names`), and
    /// moved aside when a command creates one at a root.
    pub guarded_names: Vec<String>,
    /// Paths of two or three names kept read-only beneath each root
    /// (`.config/git`, for a root that is a home directory).
    pub guarded_nested: Vec<String>,
    /// Paths Read rules deny, hidden from commands (an empty file or
    /// directory in their place) where they exist.
    pub hidden: Vec<PathBuf>,
    /// Read rules the sandbox could not turn into paths (globs like
    /// `**/*.pem`), reported by [`Sandbox::check`](crate::Sandbox::check).
    pub unenforced_reads: Vec<String>,
    pub network: Network,
    /// `sandbox.network.deniedDomains`: refused by the proxy even where an
    /// allowed pattern matches (`bad.example.com` under `*.example.com`).
    pub denied_domains: Vec<DomainPattern>,
    /// `sandbox.network.allowAllUnixSockets`: commands may create Unix
    /// sockets (a Unix socket such as a Docker daemon's can reach past every
    /// other wall, so they are refused by default).
    pub allow_unix_sockets: bool,
}

/// What network a sandboxed command gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// None: no inet sockets, no TCP (the default).
    Off,
    /// The machine's network, unrestricted.
    On,
    /// None but a loopback of the command's own (`allowLocalBinding`): a
    /// server it starts on 127.0.0.1 can be reached, the machine's cannot.
    Loopback,
    /// Only these domains, through tack's proxy (HTTP CONNECT and plain HTTP).
    Allowed(Vec<DomainPattern>),
}

/// One entry of `sandbox.network.allowedDomains`: `example.com` (that host
/// only) or `*.example.com` (its subdomains, not itself). Compared case
/// insensitively, on whole labels, without a trailing dot.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DomainPattern(String);

impl DomainPattern {
    /// A pattern from settings; `None` for one that cannot match a host
    /// (empty, a scheme, a path, a port, a `*` that is not a whole first label).
    pub fn parse(text: &str) -> Option<DomainPattern> {
        let text = text.trim().trim_end_matches('.').to_ascii_lowercase();
        let host = text.strip_prefix("*.").unwrap_or(&text);
        let valid = !host.is_empty()
            && host.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            });
        valid.then_some(DomainPattern(text))
    }

    /// Whether `host` (a name as a client sent it) is allowed by this pattern.
    pub fn matches(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        match self.0.strip_prefix("*.") {
            Some(parent) => host
                .strip_suffix(parent)
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
            None => host == self.0,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for DomainPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_domain_matches_whole_labels_only() {
        let exact = DomainPattern::parse("Example.COM.").unwrap();
        assert!(exact.matches("example.com"));
        assert!(exact.matches("EXAMPLE.com."));
        assert!(!exact.matches("www.example.com"));
        assert!(!exact.matches("badexample.com"));
        assert!(!exact.matches("example.com.evil.net"));
        let wild = DomainPattern::parse("*.example.com").unwrap();
        assert!(wild.matches("api.example.com"));
        assert!(wild.matches("a.b.example.com"));
        assert!(!wild.matches("example.com"));
        assert!(!wild.matches("badexample.com"));
        assert!(!wild.matches(".example.com"));
    }

    #[test]
    fn patterns_that_cannot_name_a_host_are_refused() {
        for bad in [
            "",
            "*",
            "https://example.com",
            "example.com/x",
            "example.com:443",
            "a*.com",
            "exa mple.com",
        ] {
            assert_eq!(DomainPattern::parse(bad), None, "{bad}");
        }
    }
}
