//! The network allowlist's proxy: HTTP CONNECT and plain HTTP on a Unix
//! socket, in tack's process (outside every sandbox), refusing every host
//! that no `allowedDomains` pattern matches.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::config::DomainPattern;

/// A request the proxy refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The host as the client named it (lowercased), or the IP address.
    pub host: String,
    pub port: u16,
}

/// The running proxy; dropping it stops it and removes its socket.
#[derive(Debug)]
pub struct Proxy {
    denials: Arc<Mutex<Vec<Denial>>>,
}

impl Proxy {
    /// Listens on `socket` (a Unix socket it creates) and serves on the
    /// current tokio runtime until dropped.
    pub fn start(socket: &Path, allowed: Vec<DomainPattern>) -> std::io::Result<Proxy> {
        let _ = (socket, allowed);
        Err(std::io::Error::other("the proxy is not built yet"))
    }

    /// Every request refused so far, in order.
    pub fn denials(&self) -> Vec<Denial> {
        self.denials
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}
