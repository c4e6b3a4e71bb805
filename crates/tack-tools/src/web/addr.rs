//! Which addresses WebFetch may connect to, and the DNS resolver that enforces
//! it at connect time.
//!
//! The check runs on the addresses a connection will actually use: reqwest
//! asks [`GuardedResolver`] for the addresses of a host, and the resolver
//! returns them only when every one of them is allowed. Nothing resolves the
//! name a second time, so a DNS answer that changes between check and connect
//! (DNS rebinding) cannot slip a private address through. Hosts written as IP
//! literals never reach a resolver and are checked by [`HostPolicy::check_url`]
//! before each request.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Why `ip` may not be fetched by default, or `None` for a public address.
///
/// Refused: loopback, private (RFC 1918, unique-local fc00::/7), shared
/// address space (CGNAT 100.64/10), link-local (169.254/16, fe80::/10, which
/// includes cloud metadata endpoints), unspecified, broadcast, multicast,
/// reserved and documentation ranges, and IPv6 forms that embed an IPv4
/// address (mapped, compatible, NAT64, 6to4) whose IPv4 address is refused.
pub fn blocked_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => blocked_v4(v4),
        IpAddr::V6(v6) => blocked_v6(v6),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let reason = match (a, b, c) {
        (0, _, _) => "an unspecified (\"this network\") address",
        (127, _, _) => "a loopback address",
        (10, _, _) => "a private network address",
        (172, 16..=31, _) => "a private network address",
        (192, 168, _) => "a private network address",
        (100, 64..=127, _) => "a shared (carrier-grade NAT) address",
        (169, 254, _) => "a link-local address (such as a cloud metadata endpoint)",
        (192, 0, 0) => "an IETF protocol assignment address",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (198, 18..=19, _) => "a benchmarking address",
        (224..=239, _, _) => "a multicast address",
        (240..=255, _, _) => "a reserved or broadcast address",
        _ => return None,
    };
    Some(reason)
}

fn blocked_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d).
    if let Some(v4) = ip.to_ipv4() {
        return blocked_v4(v4);
    }
    // NAT64 (64:ff9b::/96): the last 32 bits are an IPv4 address.
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return blocked_v4(v4_from(seg[6], seg[7]));
    }
    // 6to4 (2002::/16): bits 16..48 are an IPv4 address.
    if seg[0] == 0x2002 {
        return blocked_v4(v4_from(seg[1], seg[2]));
    }
    let reason = match seg[0] {
        s if s & 0xfe00 == 0xfc00 => "a unique-local (private) address",
        s if s & 0xffc0 == 0xfe80 => "a link-local address",
        s if s & 0xffc0 == 0xfec0 => "a site-local (private) address",
        s if s & 0xff00 == 0xff00 => "a multicast address",
        0x2001 if seg[1] == 0x0db8 => "a documentation address",
        0x0100 if seg[1..4] == [0, 0, 0] => "a discard-only address",
        _ => return None,
    };
    Some(reason)
}

fn v4_from(hi: u16, lo: u16) -> Ipv4Addr {
    let [a, b] = hi.to_be_bytes();
    let [c, d] = lo.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

/// Which hosts may resolve to non-public addresses.
#[derive(Debug, Clone)]
pub(crate) struct HostPolicy {
    allow_private: bool,
    allowed_hosts: Arc<Vec<String>>,
    static_hosts: Arc<Vec<(String, IpAddr)>>,
}

impl HostPolicy {
    pub(crate) fn new(
        allow_private: bool,
        allowed_hosts: &[String],
        static_hosts: &[(String, IpAddr)],
    ) -> Self {
        Self {
            allow_private,
            allowed_hosts: Arc::new(allowed_hosts.iter().map(|h| normalize_host(h)).collect()),
            static_hosts: Arc::new(
                static_hosts
                    .iter()
                    .map(|(h, ip)| (normalize_host(h), *ip))
                    .collect(),
            ),
        }
    }

    /// The fixed addresses configured for `host`, if any.
    fn static_addrs(&self, host: &str) -> Vec<SocketAddr> {
        let host = normalize_host(host);
        self.static_hosts
            .iter()
            .filter(|(h, _)| *h == host)
            .map(|(_, ip)| SocketAddr::new(*ip, 0))
            .collect()
    }

    /// Whether `host` may use any address (private ones included).
    fn trusts(&self, host: &str) -> bool {
        self.allow_private || {
            let host = normalize_host(host);
            self.allowed_hosts.contains(&host)
        }
    }

    /// Checks a URL before it is requested: the scheme, and the host when it is
    /// an IP literal (names are checked by the resolver, after resolution).
    pub(crate) fn check_url(&self, url: &Url) -> Result<(), Refusal> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Refusal::Scheme(url.scheme().to_owned()));
        }
        let ip = match url.host() {
            Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
            Some(Host::Domain(name)) => {
                // "localhost" and "*.localhost" are loopback by definition
                // (RFC 6761): refuse them without asking a resolver.
                let name = normalize_host(name);
                let loopback = name == "localhost" || name.ends_with(".localhost");
                if loopback && !self.trusts(&name) && self.static_addrs(&name).is_empty() {
                    return Err(Refusal::Address(BlockedAddress {
                        host: name,
                        ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
                        reason: "a loopback name",
                    }));
                }
                return Ok(());
            }
            None => return Err(Refusal::NoHost),
        };
        let host = url.host_str().unwrap_or_default();
        match blocked_reason(ip) {
            Some(reason) if !self.trusts(host) => Err(Refusal::Address(BlockedAddress {
                host: host.to_owned(),
                ip,
                reason,
            })),
            _ => Ok(()),
        }
    }

    /// Checks the addresses a name resolved to: all must be allowed.
    pub(crate) fn check_resolved(
        &self,
        host: &str,
        addrs: &[SocketAddr],
    ) -> Result<(), BlockedAddress> {
        if self.trusts(host) {
            return Ok(());
        }
        for addr in addrs {
            if let Some(reason) = blocked_reason(addr.ip()) {
                return Err(BlockedAddress {
                    host: host.to_owned(),
                    ip: addr.ip(),
                    reason,
                });
            }
        }
        Ok(())
    }
}

/// Lowercase, without a trailing dot or IPv6 brackets.
fn normalize_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('.');
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.to_ascii_lowercase()
}

/// Why a URL is not fetched.
#[derive(Debug)]
pub(crate) enum Refusal {
    Scheme(String),
    NoHost,
    Address(BlockedAddress),
}

/// A host that is, or resolved to, an address WebFetch does not connect to.
#[derive(Debug, Clone)]
pub(crate) struct BlockedAddress {
    pub host: String,
    pub ip: IpAddr,
    pub reason: &'static str,
}

impl std::fmt::Display for BlockedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ip = self.ip.to_string();
        if normalize_host(&self.host) == ip {
            write!(f, "{ip} is {}", self.reason)
        } else {
            write!(f, "{} is {} ({ip})", self.host, self.reason)
        }
    }
}

impl std::error::Error for BlockedAddress {}

/// The name could not be resolved.
#[derive(Debug, thiserror::Error)]
#[error("could not resolve host {host}: {message}")]
pub(crate) struct ResolveFailed {
    pub host: String,
    pub message: String,
}

/// The resolver reqwest connects through: the configured static hosts or the
/// system resolver, then the policy on every address found.
pub(crate) struct GuardedResolver {
    pub policy: HostPolicy,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let mut addrs = policy.static_addrs(&host);
            if addrs.is_empty() {
                addrs = tokio::net::lookup_host((host.as_str(), 0))
                    .await
                    .map_err(|e| ResolveFailed {
                        host: host.clone(),
                        message: e.to_string(),
                    })?
                    .collect();
            }
            if addrs.is_empty() {
                return Err(ResolveFailed {
                    host,
                    message: "no addresses".into(),
                }
                .into());
            }
            policy.check_resolved(&host, &addrs)?;
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}
