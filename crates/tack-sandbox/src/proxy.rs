//! The network allowlist's proxy: HTTP CONNECT and plain HTTP on a Unix
//! socket, in tack's process (outside every sandbox), refusing every host
//! that no `allowedDomains` pattern matches.
//!
//! **Key decision: the proxy names the host, resolves it and connects
//! itself, and judges every request it relays.** A client only ever names a
//! host; the proxy never connects to an address the client chose (IP
//! literals are refused: an allowlist names domains), so a command cannot
//! reach a host the list does not name by resolving it itself. What the
//! proxy can read it checks for the same host: a plain request's `Host`
//! header, and the server name (SNI) of a TLS tunnel's ClientHello, which
//! stops domain fronting through an allowed host. It cannot read inside TLS,
//! so an allowed host that routes by the encrypted `Host` header still
//! can be used to reach others; an encrypted ClientHello (ECH) is refused.
//!
//! How one client connection is served, in order:
//! 1. [`read_head`]: the request head, at most [`MAX_HEAD`] bytes, within
//!    [`HEAD_TIMEOUT`].
//! 2. [`authority`] and [`Shared::judge`]: the host it names, refused unless
//!    a pattern matches it.
//! 3. [`connect`]: the host resolved by the proxy and connected.
//! 4. CONNECT: [`tunnel`] answers 200, checks the ClientHello's server name
//!    ([`tls::server_name`]) and relays bytes both ways until either side
//!    closes; a client that speaks plain HTTP in it ([`sniffed`]) has each
//!    request served as a plain one to the tunnel's host. Plain HTTP: [`forward`] sends the request in origin form with
//!    `Connection: close`, relays the response, and reads the client's next
//!    request from step 1 (judged again, never piped).
//!
//! A refusal answers `403 Forbidden` with `X-Tack-Sandbox: blocked` and
//! records a [`Denial`]; then the connection is closed.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

use crate::config::DomainPattern;

/// The largest request or response head the proxy reads (beyond it: 431).
const MAX_HEAD: usize = 64 * 1024;
/// How long a client may take to send a whole request head (then: 408).
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long resolving and connecting to a host may take (then: 502).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most headers one head may have (beyond it: 431).
const MAX_HEADERS: usize = 128;
/// The longest chunk-size or trailer line of a chunked body.
const MAX_LINE: usize = 4096;
/// How long a refused client's remaining bytes are read before closing.
const LINGER: Duration = Duration::from_secs(1);
/// How many refusals [`Proxy::denials`] keeps (the latest).
const KEPT_DENIALS: usize = 1000;

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
    socket: PathBuf,
    shared: Arc<Shared>,
    accept: AbortHandle,
}

impl Proxy {
    /// Listens on `socket` (a Unix socket it creates, mode 0600, replacing
    /// a stale one) and serves on the current tokio runtime until dropped.
    pub fn start(socket: &Path, allowed: Vec<DomainPattern>) -> std::io::Result<Proxy> {
        Proxy::start_denying(socket, allowed, Vec::new())
    }

    /// [`Proxy::start`], refusing also every host a `denied` pattern
    /// matches, whatever `allowed` says (`deniedDomains`).
    pub fn start_denying(
        socket: &Path,
        allowed: Vec<DomainPattern>,
        denied: Vec<DomainPattern>,
    ) -> std::io::Result<Proxy> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            std::io::Error::other(format!(
                "the network proxy for {} must be started inside a tokio runtime",
                socket.display()
            ))
        })?;
        remove_stale_socket(socket)?;
        let listener = std::os::unix::net::UnixListener::bind(socket).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("could not listen on {}: {e}", socket.display()),
            )
        })?;
        let listener = std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
            .and_then(|()| listener.set_nonblocking(true))
            .and_then(|()| UnixListener::from_std(listener));
        let listener = match listener {
            Ok(listener) => listener,
            Err(e) => {
                let _ = std::fs::remove_file(socket);
                return Err(std::io::Error::new(
                    e.kind(),
                    format!("could not listen on {}: {e}", socket.display()),
                ));
            }
        };
        let shared = Arc::new(Shared {
            allowed,
            denied,
            denials: Mutex::new(Denials::default()),
        });
        let accept = runtime
            .spawn(accept_loop(listener, Arc::clone(&shared)))
            .abort_handle();
        Ok(Proxy {
            socket: socket.to_path_buf(),
            shared,
            accept,
        })
    }

    /// Every request refused so far, in order (the latest 1000).
    pub fn denials(&self) -> Vec<Denial> {
        self.shared.denials().kept.iter().cloned().collect()
    }

    /// How many requests were refused so far, including those
    /// [`Proxy::denials`] no longer keeps.
    pub fn refused(&self) -> u64 {
        self.shared.denials().total
    }

    /// The requests refused since [`Proxy::refused`] returned `before`
    /// (those still kept).
    pub fn denials_since(&self, before: u64) -> Vec<Denial> {
        let denials = self.shared.denials();
        let new = usize::try_from(denials.total.saturating_sub(before)).unwrap_or(usize::MAX);
        let kept = &denials.kept;
        kept.iter()
            .skip(kept.len().saturating_sub(new))
            .cloned()
            .collect()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every
        // connection's task.
        self.accept.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Removes a socket file left by an earlier run; refuses to remove anything else.
fn remove_stale_socket(socket: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(socket) {
        Ok(meta) if meta.file_type().is_socket() => std::fs::remove_file(socket),
        Ok(_) => Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "{} exists and is not a socket; remove it so the network proxy can listen there",
                socket.display()
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(std::io::Error::new(
            e.kind(),
            format!("could not look at {}: {e}", socket.display()),
        )),
    }
}

/// What every connection's task shares: the list and the refusals.
#[derive(Debug)]
struct Shared {
    allowed: Vec<DomainPattern>,
    denied: Vec<DomainPattern>,
    denials: Mutex<Denials>,
}

#[derive(Debug, Default)]
struct Denials {
    kept: VecDeque<Denial>,
    total: u64,
}

impl Shared {
    fn denials(&self) -> std::sync::MutexGuard<'_, Denials> {
        self.denials
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn allows(&self, host: &str) -> bool {
        !is_ip_literal(host)
            && self.allowed.iter().any(|p| p.matches(host))
            && !self.denied.iter().any(|p| p.matches(host))
    }

    /// `Ok` when `target`'s host is allowed; else the refusal, recorded.
    fn judge(&self, target: &Target) -> Result<(), Stop> {
        if self.allows(&target.host) {
            Ok(())
        } else {
            Err(self.refuse(&target.host, target.port, None))
        }
    }

    /// Records a refusal of `host:port` and makes its 403 (`why`: a body
    /// other than "not in the list").
    fn refuse(&self, host: &str, port: u16, why: Option<String>) -> Stop {
        tracing::info!(host, port, "the sandbox's network proxy refused a request");
        let mut denials = self.denials();
        if denials.kept.len() == KEPT_DENIALS {
            denials.kept.pop_front();
        }
        denials.kept.push_back(Denial {
            host: host.to_owned(),
            port,
        });
        denials.total += 1;
        let body = why.unwrap_or_else(|| {
            format!("blocked by tack's sandbox: {host} is not in sandbox.network.allowedDomains")
        });
        Stop::Answer(Answer::new(403, body))
    }
}

async fn accept_loop(listener: UnixListener, shared: Arc<Shared>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_client(stream, Arc::clone(&shared)));
                }
                Err(e) => {
                    // Out of descriptors, most likely: wait instead of spinning.
                    tracing::warn!("the sandbox's network proxy could not accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// Why serving a connection stops.
#[derive(Debug)]
enum Stop {
    /// Answer the client (nothing of a response sent yet), then close.
    Answer(Answer),
    /// Close without a word (a response is under way, or the client left).
    Close,
}

impl From<std::io::Error> for Stop {
    fn from(_: std::io::Error) -> Stop {
        Stop::Close
    }
}

/// A response the proxy makes itself; the connection closes after it.
#[derive(Debug)]
struct Answer {
    status: u16,
    body: String,
}

impl Answer {
    fn new(status: u16, body: impl Into<String>) -> Answer {
        Answer {
            status,
            body: body.into(),
        }
    }

    fn bad_request(why: impl std::fmt::Display) -> Stop {
        Stop::Answer(Answer::new(400, format!("tack's sandbox proxy: {why}")))
    }

    fn bytes(&self) -> Vec<u8> {
        let reason = match self.status {
            400 => "Bad Request",
            403 => "Forbidden",
            408 => "Request Timeout",
            431 => "Request Header Fields Too Large",
            501 => "Not Implemented",
            502 => "Bad Gateway",
            _ => "Error",
        };
        let blocked = if self.status == 403 {
            "X-Tack-Sandbox: blocked\r\n"
        } else {
            ""
        };
        format!(
            "HTTP/1.1 {} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n{blocked}\r\n{}\n",
            self.status,
            self.body.len() + 1,
            self.body
        )
        .into_bytes()
    }
}

/// Reads and serves the client's requests one after another.
async fn serve_client(stream: UnixStream, shared: Arc<Shared>) {
    let (read, mut write) = stream.into_split();
    let mut client = Reader::new(read);
    // Set once a CONNECT tunnel turns out to carry plain HTTP: each request
    // in it is then served as a plain one to that host (judged, its Host
    // header checked), never piped.
    let mut tunnelled: Option<Target> = None;
    // The tunnel's connection, for its first request.
    let mut connected: Option<TcpStream> = None;
    loop {
        let served = match read_head(&mut client, Some(Instant::now() + HEAD_TIMEOUT)).await {
            Ok(None) => return,
            Ok(Some(end)) => match Request::parse(&client.buf[..end]) {
                Ok(request) => {
                    client.consume(end);
                    match &tunnelled {
                        None => serve_request(request, &mut client, &mut write, &shared).await,
                        Some(target) => {
                            let upstream = connected.take();
                            forward_in_tunnel(
                                request,
                                target,
                                upstream,
                                &mut client,
                                &mut write,
                                &shared,
                            )
                            .await
                        }
                    }
                }
                Err(stop) => Err(stop),
            },
            Err(HeadError::TooLarge) => Err(Stop::Answer(Answer::new(
                431,
                format!("tack's sandbox proxy: the request head is larger than {MAX_HEAD} bytes"),
            ))),
            Err(HeadError::TimedOut) => Err(Stop::Answer(Answer::new(
                408,
                format!(
                    "tack's sandbox proxy: the request head did not arrive within {} s",
                    HEAD_TIMEOUT.as_secs()
                ),
            ))),
            Err(HeadError::Idle | HeadError::Broken) => Err(Stop::Close),
        };
        match served {
            Ok(Next::Another) => continue,
            Ok(Next::Http(target, upstream)) => {
                tunnelled = Some(target);
                connected = upstream;
                continue;
            }
            Ok(Next::Done) | Err(Stop::Close) => return,
            Err(Stop::Answer(answer)) => {
                let _ = write.write_all(&answer.bytes()).await;
                let _ = write.shutdown().await;
                // Read what the client still sends (a body) for a moment:
                // closing with it unread would reset the connection, and the
                // client might lose the answer.
                let mut sink = tokio::io::sink();
                let discard = tokio::io::copy(&mut client.io, &mut sink);
                let _ = tokio::time::timeout(LINGER, discard).await;
                return;
            }
        }
    }
}

/// What follows a request on a client connection.
enum Next {
    /// The client may send another request.
    Another,
    /// The connection is done.
    Done,
    /// A CONNECT tunnel to this host whose client speaks plain HTTP: its
    /// requests follow, each served as a plain request (the first on the
    /// tunnel's connection, when it is still open).
    Http(Target, Option<TcpStream>),
}

impl From<bool> for Next {
    fn from(keep_alive: bool) -> Next {
        if keep_alive {
            Next::Another
        } else {
            Next::Done
        }
    }
}

/// Serves one request.
async fn serve_request(
    request: Request,
    client: &mut Reader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    shared: &Shared,
) -> Result<Next, Stop> {
    if request.method.eq_ignore_ascii_case("CONNECT") {
        let target = authority(&request.target, None, shared)?;
        shared.judge(&target)?;
        let upstream = connect(&target, shared).await?;
        match tunnel(upstream, &target, client, write, shared).await? {
            Tunnel::Relayed => Ok(Next::Done),
            Tunnel::Http(upstream) => Ok(Next::Http(target, upstream)),
        }
    } else {
        forward(request, client, write, shared)
            .await
            .map(Next::from)
    }
}

/// A request read inside a CONNECT tunnel to `target` whose client speaks
/// plain HTTP: served as a plain request to `target` (origin form only), so
/// its `Host` header is checked as any plain request's is.
async fn forward_in_tunnel(
    request: Request,
    target: &Target,
    upstream: Option<TcpStream>,
    client: &mut Reader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    shared: &Shared,
) -> Result<Next, Stop> {
    if !request.target.starts_with('/') {
        return Err(Answer::bad_request(
            "a request inside a CONNECT tunnel must name a path (origin form)",
        ));
    }
    let path = request.target.clone();
    forward_to(
        request,
        target.clone(),
        path,
        upstream,
        client,
        write,
        shared,
    )
    .await
    .map(Next::from)
}

// ---------------------------------------------------------------------------
// Heads

/// Bytes read from `io` and not used yet.
struct Reader<R> {
    io: R,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    fn new(io: R) -> Reader<R> {
        Reader {
            io,
            buf: Vec::new(),
        }
    }

    /// Reads more into the buffer; 0 at the end of the stream.
    async fn fill(&mut self) -> std::io::Result<usize> {
        self.buf.reserve(16 * 1024);
        self.io.read_buf(&mut self.buf).await
    }

    fn consume(&mut self, n: usize) {
        self.buf.drain(..n.min(self.buf.len()));
    }
}

#[derive(Debug)]
enum HeadError {
    TooLarge,
    TimedOut,
    /// The deadline passed before the head's first byte.
    Idle,
    /// The stream ended inside a head, or failed.
    Broken,
}

/// Reads until the buffer holds a whole head (ending in an empty line) and
/// returns its length; `None` when the stream ends cleanly before one.
/// Blank lines before a head are skipped (RFC 9112 §2.2).
async fn read_head<R: AsyncRead + Unpin>(
    reader: &mut Reader<R>,
    deadline: Option<Instant>,
) -> Result<Option<usize>, HeadError> {
    let mut scanned = 0;
    loop {
        let blank = reader
            .buf
            .iter()
            .take_while(|b| matches!(b, b'\r' | b'\n'))
            .count();
        if blank > 0 {
            reader.consume(blank);
            scanned = 0;
        }
        if let Some(end) = head_end(&reader.buf, scanned) {
            return Ok(Some(end));
        }
        if reader.buf.len() > MAX_HEAD {
            return Err(HeadError::TooLarge);
        }
        scanned = reader.buf.len().saturating_sub(3);
        let read = match deadline {
            Some(deadline) => match tokio::time::timeout_at(deadline, reader.fill()).await {
                Ok(read) => read,
                Err(_) if reader.buf.is_empty() => return Err(HeadError::Idle),
                Err(_) => return Err(HeadError::TimedOut),
            },
            None => reader.fill().await,
        };
        match read {
            Ok(0) if reader.buf.is_empty() => return Ok(None),
            Ok(0) | Err(_) => return Err(HeadError::Broken),
            Ok(_) => {}
        }
    }
}

/// Where the first empty line in `buf` (searched from `from`) ends.
fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < buf.len() {
        if buf[i] == b'\n' {
            match buf.get(i + 1..) {
                Some([b'\n', ..]) => return Some(i + 2),
                Some([b'\r', b'\n', ..]) => return Some(i + 3),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// A request head, owned.
#[derive(Debug)]
struct Request {
    method: String,
    target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    minor: u8,
    headers: Vec<(String, Vec<u8>)>,
}

impl Request {
    fn parse(head: &[u8]) -> Result<Request, Stop> {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut headers);
        match parsed.parse(head) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) => {
                return Err(Answer::bad_request("the request head is incomplete"));
            }
            Err(httparse::Error::TooManyHeaders) => {
                return Err(Stop::Answer(Answer::new(
                    431,
                    format!(
                        "tack's sandbox proxy: the request has more than {MAX_HEADERS} headers"
                    ),
                )));
            }
            Err(e) => return Err(Answer::bad_request(format!("malformed request head ({e})"))),
        }
        Ok(Request {
            method: parsed.method.unwrap_or_default().to_owned(),
            target: parsed.path.unwrap_or_default().to_owned(),
            minor: parsed.version.unwrap_or(1),
            headers: owned(parsed.headers),
        })
    }

    fn header_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        values(&self.headers, name)
    }
}

fn owned(headers: &[httparse::Header<'_>]) -> Vec<(String, Vec<u8>)> {
    headers
        .iter()
        .map(|h| (h.name.to_owned(), h.value.to_vec()))
        .collect()
}

fn values<'a>(
    headers: &'a [(String, Vec<u8>)],
    name: &'a str,
) -> impl Iterator<Item = &'a [u8]> + 'a {
    headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_slice())
}

/// The comma-separated tokens of every `name` header, lowercased.
fn tokens(headers: &[(String, Vec<u8>)], name: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for value in values(headers, name) {
        for token in String::from_utf8_lossy(value).split(',') {
            let token = token.trim().to_ascii_lowercase();
            if !token.is_empty() {
                tokens.push(token);
            }
        }
    }
    tokens
}

/// Whether a header is forwarded: not when it is about one connection only
/// (RFC 9110 §7.6.1): the fixed ones, every `Proxy-*`, and those the
/// `Connection` header lists (except the body's framing, which the proxy
/// keeps). `Host` is written by the proxy itself.
fn forwarded(name: &str, listed: &[String]) -> bool {
    let name = name.to_ascii_lowercase();
    if matches!(name.as_str(), "transfer-encoding" | "content-length") {
        return true;
    }
    !(matches!(
        name.as_str(),
        "connection" | "keep-alive" | "te" | "trailer" | "upgrade" | "host"
    ) || name.starts_with("proxy-")
        || listed.contains(&name))
}

/// The `name: value` lines of the headers [`forwarded`].
fn forwarded_headers(head: &mut Vec<u8>, headers: &[(String, Vec<u8>)]) {
    let listed = tokens(headers, "connection");
    for (name, value) in headers {
        if forwarded(name, &listed) {
            head.extend_from_slice(name.as_bytes());
            head.extend_from_slice(b": ");
            head.extend_from_slice(value);
            head.extend_from_slice(b"\r\n");
        }
    }
}

// ---------------------------------------------------------------------------
// Hosts

/// Where a request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    /// Lowercase, without a trailing dot, only letters, digits, `-`, `_`, `.`.
    host: String,
    port: u16,
}

/// The host and port of `text` (`host:port`, `host` when there is a
/// `default_port`, userinfo before an `@` ignored). An IP literal is refused
/// (and recorded): the allowlist names domains.
fn authority(text: &str, default_port: Option<u16>, shared: &Shared) -> Result<Target, Stop> {
    let hostport = text.rsplit_once('@').map_or(text, |(_, after)| after);
    if let Some(bracketed) = hostport.strip_prefix('[') {
        let (address, rest) = bracketed.split_once(']').unwrap_or((bracketed, ""));
        let port = rest
            .strip_prefix(':')
            .and_then(|p| p.parse().ok())
            .or(default_port)
            .unwrap_or(0);
        return Err(shared.refuse(&address.to_ascii_lowercase(), port, None));
    }
    let (host, port) = match (hostport.rsplit_once(':'), default_port) {
        (Some((host, port)), _) => (host, parse_port(port)?),
        (None, Some(port)) => (hostport, port),
        (None, None) => {
            return Err(Answer::bad_request(format!(
                "CONNECT {text} names no port; send CONNECT host:port"
            )));
        }
    };
    let host = plain_host(host)?;
    if is_ip_literal(&host) {
        return Err(shared.refuse(&host, port, None));
    }
    Ok(Target { host, port })
}

/// `name` lowercased without a trailing dot, when it is made of DNS labels
/// (letters, digits, `-`, `_`); else a 400.
fn plain_host(name: &str) -> Result<String, Stop> {
    let host = name.to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(&host);
    let plain = !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if plain {
        Ok(host.to_owned())
    } else {
        Err(Answer::bad_request(format!(
            "{name:?} is not a plain host name (letters, digits, '-', '_' and dots; \
             no percent-encoding)"
        )))
    }
}

fn parse_port(text: &str) -> Result<u16, Stop> {
    match text.parse::<u16>() {
        Ok(port) if port != 0 && text.bytes().all(|b| b.is_ascii_digit()) => Ok(port),
        _ => Err(Answer::bad_request(format!("{text:?} is not a port"))),
    }
}

/// Whether `host` is an address rather than a name, as resolvers read it:
/// IPv4 and IPv6, and numbers such as `127.1` or `0x7f.1` that
/// `inet_aton` accepts (a name's last label is never numeric).
fn is_ip_literal(host: &str) -> bool {
    if host.parse::<Ipv4Addr>().is_ok() || host.parse::<Ipv6Addr>().is_ok() {
        return true;
    }
    let last = host.rsplit('.').next().unwrap_or(host);
    let hex = last
        .strip_prefix("0x")
        .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()))
}

/// What an address is when a name the list allows must not lead there:
/// this machine (loopback, the unspecified address) or what only a machine
/// on the link reaches (link-local: `169.254.169.254` and `fd00:ec2::254`
/// are the clouds' instance metadata services, which hand out
/// credentials). A name resolving there is refused (DNS rebinding, or a
/// wildcard's name pointed home); `localhost` and `*.localhost`, named in
/// the list, reach this machine as the user allowed.
fn internal(ip: std::net::IpAddr) -> Option<&'static str> {
    use std::net::IpAddr;
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) if v4.is_loopback() => Some("this machine's loopback address"),
        IpAddr::V4(v4) if v4.is_unspecified() => Some("the unspecified address (this machine)"),
        IpAddr::V4(v4) if v4.is_link_local() => {
            Some("a link-local address (where cloud metadata services answer)")
        }
        IpAddr::V6(v6) if v6.is_loopback() => Some("this machine's loopback address"),
        IpAddr::V6(v6) if v6.is_unspecified() => Some("the unspecified address (this machine)"),
        IpAddr::V6(v6) if v6.segments()[0] & 0xffc0 == 0xfe80 => {
            Some("a link-local address (where cloud metadata services answer)")
        }
        IpAddr::V6(v6) if v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) => {
            Some("the cloud instance metadata service's address")
        }
        _ => None,
    }
}

/// The addresses of `host` the proxy may connect to: all but the internal
/// ones ([`internal`]); the refusal's text when every one is internal.
fn connectable(host: &str, addresses: Vec<SocketAddr>) -> Result<Vec<SocketAddr>, String> {
    let mut why = None;
    let kept: Vec<SocketAddr> = addresses
        .into_iter()
        .filter(|a| match internal(a.ip()) {
            Some(what) => {
                why.get_or_insert_with(|| format!("{} is {what}", a.ip()));
                false
            }
            None => true,
        })
        .collect();
    match why {
        Some(why) if kept.is_empty() => Err(format!(
            "blocked by tack's sandbox: {host} resolves to {why}; an allowed name may not lead there (allow `localhost` to reach this machine)"
        )),
        _ => Ok(kept),
    }
}

/// `target` resolved by the proxy (`localhost` and `*.localhost` are the
/// loopback address, RFC 6761) and connected to, or a 502 saying why not;
/// a name that resolves only to this machine or a link-local address is
/// refused ([`connectable`]).
async fn connect(target: &Target, shared: &Shared) -> Result<TcpStream, Stop> {
    let Target { host, port } = target;
    let failed = |why: String| {
        Stop::Answer(Answer::new(
            502,
            format!("tack's sandbox proxy: could not connect to {host}:{port}: {why}"),
        ))
    };
    let attempt = async {
        let addresses: Vec<SocketAddr> = if host == "localhost" || host.ends_with(".localhost") {
            vec![SocketAddr::from((Ipv4Addr::LOCALHOST, *port))]
        } else {
            let found = tokio::net::lookup_host((host.as_str(), *port))
                .await
                .map_err(|e| Err(format!("could not resolve {host}: {e}")))?
                .collect();
            connectable(host, found).map_err(Ok)?
        };
        let mut last = format!("{host} resolved to no address");
        for address in addresses {
            match TcpStream::connect(address).await {
                Ok(stream) => return Ok(stream),
                Err(e) => last = format!("{address}: {e}"),
            }
        }
        Err(Err(last))
    };
    // Err(Ok(refusal)), Err(Err(failure)).
    match tokio::time::timeout(CONNECT_TIMEOUT, attempt).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(Ok(refusal))) => Err(shared.refuse(host, *port, Some(refusal))),
        Ok(Err(Err(why))) => Err(failed(why)),
        Err(_) => Err(failed(format!(
            "no connection within {} s",
            CONNECT_TIMEOUT.as_secs()
        ))),
    }
}

// ---------------------------------------------------------------------------
// CONNECT

/// How a tunnel was served.
enum Tunnel {
    /// Its bytes were relayed both ways until it closed.
    Relayed,
    /// Its client speaks plain HTTP: nothing was relayed, its requests are
    /// to be read and served one by one ([`forward_in_tunnel`]), the first
    /// on this connection to the host.
    Http(Option<TcpStream>),
}

/// Answers 200, then looks at the client's first bytes ([`sniff`]): a TLS
/// ClientHello's server name is checked, a plain HTTP request is handed
/// back to be served as such (a `Host` header the proxy can read is
/// checked wherever it is sent), anything else is relayed both ways (each
/// direction's end shuts the other side's writing).
async fn tunnel(
    upstream: TcpStream,
    target: &Target,
    client: &mut Reader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    shared: &Shared,
) -> Result<Tunnel, Stop> {
    write
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .await?;
    let (mut up_read, mut up_write) = upstream.into_split();
    let http = {
        let down = async {
            let _ = tokio::io::copy(&mut up_read, write).await;
            let _ = write.shutdown().await;
        };
        let up = async {
            if client.buf.is_empty() && client.fill().await? == 0 {
                up_write.shutdown().await?;
                return Ok(false);
            }
            if sniff(client, target, shared).await? == Sniffed::Http {
                return Ok(true);
            }
            up_write.write_all(&client.buf).await?;
            client.buf.clear();
            tokio::io::copy(&mut client.io, &mut up_write).await?;
            up_write.shutdown().await?;
            Ok::<bool, Stop>(false)
        };
        tokio::pin!(down, up);
        tokio::select! {
            result = &mut up => {
                let http = result?;
                if !http {
                    down.await;
                }
                http
            }
            () = &mut down => {
                let _ = up.await;
                false
            }
        }
    };
    if http {
        return Ok(Tunnel::Http(up_read.reunite(up_write).ok()));
    }
    Ok(Tunnel::Relayed)
}

/// What a tunnel's client speaks, as far as the proxy checks it.
#[derive(Debug, PartialEq, Eq)]
enum Sniffed {
    /// A TLS ClientHello (its server name is checked).
    Tls,
    /// HTTP/1: a request line (after any blank lines, which a server skips:
    /// method, target, `HTTP/`), its `Host` header to be checked.
    Http,
    /// HTTP/2 without TLS (`PRI * HTTP/2.0`), whose `Host` is compressed:
    /// refused.
    Http2,
    /// What cannot begin an HTTP request line (SSH, a binary protocol):
    /// relayed as it is.
    Other,
}

/// What the client's first bytes in a tunnel are; `None` while they could
/// still begin an HTTP request line. Decided on the request line's shape,
/// not on a newline or a pause, which the client controls: a request sent
/// slowly is still seen as one.
fn sniffed(buf: &[u8]) -> Option<Sniffed> {
    let start = buf.iter().position(|b| !matches!(b, b'\r' | b'\n'))?;
    if start == 0 && buf[0] == tls::HANDSHAKE {
        return Some(Sniffed::Tls);
    }
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    let tchar = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    let line = &buf[start..];
    let method = line.iter().take_while(|b| tchar(b)).count();
    if method == 0 {
        return Some(Sniffed::Other);
    }
    let rest = &line[method..];
    if !blank(rest.first()?) {
        return Some(Sniffed::Other);
    }
    let rest = &rest[rest.iter().take_while(|b| blank(b)).count()..];
    let target = rest
        .iter()
        .take_while(|b| !blank(b) && !matches!(b, b'\r' | b'\n'))
        .count();
    let after = rest.get(target..).filter(|r| !r.is_empty() && target > 0)?;
    if !blank(&after[0]) {
        // The end of the line with no version: HTTP/0.9, which has no headers.
        return Some(Sniffed::Other);
    }
    let version = &after[after.iter().take_while(|b| blank(b)).count()..];
    let known = version.len().min(6);
    if !version[..known.min(5)].eq_ignore_ascii_case(&b"HTTP/"[..known.min(5)]) {
        return Some(Sniffed::Other);
    }
    match version.get(5) {
        None => None,
        Some(b'2') => Some(Sniffed::Http2),
        Some(_) => Some(Sniffed::Http),
    }
}

/// Reads the client's first bytes in a tunnel (kept, not consumed) until
/// [`sniffed`] can tell what they are: a TLS ClientHello is checked
/// ([`check_client_hello`]), HTTP/2 without TLS and what stays undecided
/// for [`HEAD_TIMEOUT`] or [`MAX_HEAD`] bytes close the tunnel.
async fn sniff(
    client: &mut Reader<OwnedReadHalf>,
    target: &Target,
    shared: &Shared,
) -> Result<Sniffed, Stop> {
    let deadline = Instant::now() + HEAD_TIMEOUT;
    loop {
        match sniffed(&client.buf) {
            Some(Sniffed::Tls) => {
                check_client_hello(client, target, shared).await?;
                return Ok(Sniffed::Tls);
            }
            Some(Sniffed::Http2) => {
                tracing::warn!(
                    host = target.host,
                    "tack's sandbox proxy closed a tunnel: HTTP/2 without TLS, whose Host it \
                     does not read"
                );
                return Err(Stop::Close);
            }
            Some(other) => return Ok(other),
            None if client.buf.len() > MAX_HEAD => return Err(Stop::Close),
            None => {}
        }
        match tokio::time::timeout_at(deadline, client.fill()).await {
            // The client is done sending: relay what there is.
            Ok(Ok(0)) => return Ok(Sniffed::Other),
            Ok(Ok(_)) => {}
            Ok(Err(_)) | Err(_) => return Err(Stop::Close),
        }
    }
}

/// When the client's first bytes in a tunnel are a TLS ClientHello, its
/// server name must be allowed too (else the tunnel closes, the refusal
/// recorded); an encrypted ClientHello, or one that cannot be read, closes it.
async fn check_client_hello(
    client: &mut Reader<OwnedReadHalf>,
    target: &Target,
    shared: &Shared,
) -> Result<(), Stop> {
    if client.buf.is_empty() && client.fill().await? == 0 {
        return Ok(());
    }
    if client.buf.first() != Some(&tls::HANDSHAKE) {
        return Ok(());
    }
    let deadline = Instant::now() + HEAD_TIMEOUT;
    let hello = loop {
        match tls::server_name(&client.buf) {
            Err(tls::Unreadable::Incomplete) => {}
            Ok(hello) => break hello,
            Err(tls::Unreadable::Malformed(why)) => {
                tracing::warn!(
                    host = target.host,
                    "tack's sandbox proxy closed a tunnel: its TLS ClientHello is malformed ({why})"
                );
                return Err(Stop::Close);
            }
        }
        match tokio::time::timeout_at(deadline, client.fill()).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return Err(Stop::Close),
            Ok(Ok(_)) => {}
        }
    };
    if hello.encrypted {
        tracing::warn!(
            host = target.host,
            "tack's sandbox proxy closed a tunnel: its TLS ClientHello is encrypted (ECH), so \
             the server it names cannot be checked"
        );
        return Err(Stop::Close);
    }
    if let Some(name) = hello.name {
        let Ok(name) = plain_host(&name) else {
            tracing::warn!(
                host = target.host,
                "tack's sandbox proxy closed a tunnel: its TLS ClientHello names {name:?}, \
                 not a host name"
            );
            return Err(Stop::Close);
        };
        if !shared.allows(&name) {
            let _ = shared.refuse(&name, target.port, None);
            return Err(Stop::Close);
        }
    }
    Ok(())
}

/// Just enough of TLS to read a ClientHello's server name (RFC 8446 §4.1.2,
/// RFC 6066 §3).
mod tls {
    pub(super) const HANDSHAKE: u8 = 0x16;
    const CLIENT_HELLO: u8 = 1;
    const SERVER_NAME: usize = 0;
    const ENCRYPTED_CLIENT_HELLO: usize = 0xfe0d;
    /// The largest ClientHello read (across records).
    const MAX_HELLO: usize = 64 * 1024;

    #[derive(Debug, PartialEq, Eq)]
    pub(super) struct Hello {
        pub(super) name: Option<String>,
        pub(super) encrypted: bool,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Unreadable {
        Incomplete,
        Malformed(&'static str),
    }

    /// The ClientHello at the start of `bytes` (TLS records, possibly more
    /// than one carrying it).
    pub(super) fn server_name(bytes: &[u8]) -> Result<Hello, Unreadable> {
        let mut message = Vec::new();
        let mut records = bytes;
        loop {
            if let Some(len) = message.get(1..4) {
                let len = be(len);
                if message.len() >= 4 + len {
                    if message.first() != Some(&CLIENT_HELLO) {
                        return Err(Unreadable::Malformed(
                            "the first handshake is not a ClientHello",
                        ));
                    }
                    return client_hello(&message[4..4 + len]);
                }
                if len > MAX_HELLO {
                    return Err(Unreadable::Malformed("the ClientHello is too large"));
                }
            }
            if bytes.len() - records.len() > 2 * MAX_HELLO {
                return Err(Unreadable::Malformed(
                    "the ClientHello's records are too many",
                ));
            }
            let Some(header) = records.get(..5) else {
                return Err(Unreadable::Incomplete);
            };
            if header[0] != HANDSHAKE {
                return Err(Unreadable::Malformed(
                    "the ClientHello is not followed by its rest",
                ));
            }
            let len = be(&header[3..5]);
            let Some(fragment) = records.get(5..5 + len) else {
                return Err(Unreadable::Incomplete);
            };
            message.extend_from_slice(fragment);
            records = &records[5 + len..];
        }
    }

    fn client_hello(body: &[u8]) -> Result<Hello, Unreadable> {
        let bad = Unreadable::Malformed("the ClientHello is truncated");
        let mut r = Cursor(body);
        r.take(2 + 32).ok_or(bad)?;
        let session = r.u8().ok_or(bad)?;
        r.take(session).ok_or(bad)?;
        let suites = r.u16().ok_or(bad)?;
        r.take(suites).ok_or(bad)?;
        let compression = r.u8().ok_or(bad)?;
        r.take(compression).ok_or(bad)?;
        let mut hello = Hello {
            name: None,
            encrypted: false,
        };
        if r.0.is_empty() {
            return Ok(hello);
        }
        let len = r.u16().ok_or(bad)?;
        let mut extensions = Cursor(r.take(len).ok_or(bad)?);
        while !extensions.0.is_empty() {
            let kind = extensions.u16().ok_or(bad)?;
            let len = extensions.u16().ok_or(bad)?;
            let data = extensions.take(len).ok_or(bad)?;
            match kind {
                SERVER_NAME => {
                    if hello.name.is_some() {
                        return Err(Unreadable::Malformed("two server_name extensions"));
                    }
                    hello.name = Some(host_name(data)?);
                }
                ENCRYPTED_CLIENT_HELLO => hello.encrypted = true,
                _ => {}
            }
        }
        Ok(hello)
    }

    /// The one host name of a server_name extension.
    fn host_name(data: &[u8]) -> Result<String, Unreadable> {
        let bad = Unreadable::Malformed("the server_name extension is truncated");
        let mut r = Cursor(data);
        let len = r.u16().ok_or(bad)?;
        let mut list = Cursor(r.take(len).ok_or(bad)?);
        let mut name = None;
        while !list.0.is_empty() {
            let kind = list.u8().ok_or(bad)?;
            let len = list.u16().ok_or(bad)?;
            let value = list.take(len).ok_or(bad)?;
            if kind == 0 {
                if name.is_some() {
                    return Err(Unreadable::Malformed("two host names in server_name"));
                }
                let text = std::str::from_utf8(value)
                    .map_err(|_| Unreadable::Malformed("a host name that is not text"))?;
                name = Some(text.to_owned());
            }
        }
        name.ok_or(Unreadable::Malformed("server_name without a host name"))
    }

    fn be(bytes: &[u8]) -> usize {
        bytes.iter().fold(0, |n, b| n << 8 | usize::from(*b))
    }

    struct Cursor<'a>(&'a [u8]);

    impl<'a> Cursor<'a> {
        fn take(&mut self, n: usize) -> Option<&'a [u8]> {
            let taken = self.0.get(..n)?;
            self.0 = &self.0[n..];
            Some(taken)
        }
        fn u8(&mut self) -> Option<usize> {
            self.take(1).map(be)
        }
        fn u16(&mut self) -> Option<usize> {
            self.take(2).map(be)
        }
    }
}

// ---------------------------------------------------------------------------
// Plain HTTP

/// How a message's body ends (RFC 9112 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    None,
    Length(u64),
    Chunked,
    /// Only a response's: when the server closes.
    UntilClose,
}

/// The body framing `headers` declare; `None` when they contradict.
fn framing(headers: &[(String, Vec<u8>)]) -> Result<Body, &'static str> {
    let codings = tokens(headers, "transfer-encoding");
    let lengths: Vec<&[u8]> = values(headers, "content-length").collect();
    match (codings.last(), lengths.first()) {
        (Some(_), Some(_)) => Err("both Transfer-Encoding and Content-Length"),
        (Some(last), None) if last == "chunked" => Ok(Body::Chunked),
        (Some(_), None) => Ok(Body::UntilClose),
        (None, Some(first)) => {
            let length = std::str::from_utf8(first)
                .ok()
                .map(str::trim)
                .filter(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|l| l.parse().ok())
                .ok_or("a Content-Length that is not a number")?;
            if lengths.iter().any(|l| l != first) {
                return Err("two different Content-Length headers");
            }
            Ok(Body::Length(length))
        }
        (None, None) => Ok(Body::None),
    }
}

/// Sends `request` (absolute form) to its host in origin form and relays
/// the response; `Ok(true)` when the client may send another request.
async fn forward(
    request: Request,
    client: &mut Reader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    shared: &Shared,
) -> Result<bool, Stop> {
    let (target, path) = absolute_form(&request.target, shared)?;
    forward_to(request, target, path, None, client, write, shared).await
}

/// Sends `request` to `target` (judged here, its `Host` header checked)
/// with `path` in origin form, on `upstream` when given (a tunnel's
/// connection), and relays the response; `Ok(true)` when the client may
/// send another request.
async fn forward_to(
    request: Request,
    target: Target,
    path: String,
    upstream: Option<TcpStream>,
    client: &mut Reader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    shared: &Shared,
) -> Result<bool, Stop> {
    shared.judge(&target)?;
    check_host_header(&request, &target, shared)?;
    let body = match framing(&request.headers) {
        Ok(Body::UntilClose) => {
            return Err(Stop::Answer(Answer::new(
                501,
                "tack's sandbox proxy: a request body may be sent only with Content-Length or \
                 Transfer-Encoding: chunked",
            )));
        }
        Ok(body) => body,
        Err(why) => return Err(Answer::bad_request(why)),
    };
    let listed = tokens(&request.headers, "connection");
    let keep_alive = request.minor == 1 && !listed.iter().any(|t| t == "close");
    let host = if target.port == 80 {
        target.host.clone()
    } else {
        format!("{}:{}", target.host, target.port)
    };
    let mut head = format!(
        "{} {path} HTTP/1.{}\r\nHost: {host}\r\n",
        request.method, request.minor
    )
    .into_bytes();
    forwarded_headers(&mut head, &request.headers);
    head.extend_from_slice(b"Connection: close\r\n\r\n");

    let upstream = match upstream {
        Some(upstream) => upstream,
        None => connect(&target, shared).await?,
    };
    let (up_read, mut up_write) = upstream.into_split();
    let mut upstream = Reader::new(up_read);
    let mut send = Box::pin(async {
        up_write.write_all(&head).await?;
        copy_body(client, &mut up_write, body).await?;
        Ok::<(), std::io::Error>(())
    });
    let head_only = request.method.eq_ignore_ascii_case("HEAD");
    let receive = relay_response(&mut upstream, write, head_only, keep_alive, &target);
    tokio::pin!(receive);
    // The request (its body) and the response cross at once: a server may
    // answer before it has read the whole body.
    tokio::select! {
        received = &mut receive => {
            let keep_alive = received?;
            send.await?;
            Ok(keep_alive)
        }
        sent = &mut send => {
            sent?;
            drop(send);
            // While the server thinks, a client that leaves ends the
            // exchange (bytes it sends meanwhile are its next request, kept).
            tokio::select! {
                received = &mut receive => received,
                () = client_gone(client) => Err(Stop::Close),
            }
        }
    }
}

/// Ends when the client closes its connection (or it fails); pending for
/// ever once the client sends something, which stays in its buffer.
async fn client_gone(client: &mut Reader<OwnedReadHalf>) {
    if let Ok(1..) = client.fill().await {
        std::future::pending::<()>().await;
    }
}

/// The host and origin-form path of an absolute-form request target;
/// anything else is refused.
fn absolute_form(target: &str, shared: &Shared) -> Result<(Target, String), Stop> {
    let absolute = target.split_once("://").filter(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    });
    let Some((scheme, rest)) = absolute else {
        return Err(Answer::bad_request(format!(
            "{target:?} is not an absolute URL; this is a proxy: send GET http://host/path \
             (as clients that honour HTTP_PROXY do), or CONNECT host:port"
        )));
    };
    if scheme.eq_ignore_ascii_case("https") {
        return Err(Answer::bad_request(
            "https:// URLs go through CONNECT host:443, not a plain request",
        ));
    }
    if !scheme.eq_ignore_ascii_case("http") {
        return Err(Answer::bad_request(format!(
            "the scheme {scheme:?} is not proxied (only http://, and CONNECT)"
        )));
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (hostport, path) = rest.split_at(end);
    let target = authority(hostport, Some(80), shared)?;
    let path = path.split('#').next().unwrap_or_default();
    let path = match path.as_bytes().first() {
        None => "/".to_owned(),
        Some(b'?') => format!("/{path}"),
        Some(_) => path.to_owned(),
    };
    Ok((target, path))
}

/// The `Host` header, if any, must name the URL's host (any port): a
/// request may not be relayed to another site by a server behind the
/// allowed one.
fn check_host_header(request: &Request, target: &Target, shared: &Shared) -> Result<(), Stop> {
    let hosts: Vec<&[u8]> = request.header_values("host").collect();
    let Some(value) = hosts.first() else {
        return Ok(());
    };
    if hosts.len() > 1 {
        return Err(Answer::bad_request("more than one Host header"));
    }
    let value = String::from_utf8_lossy(value);
    let value = value.trim();
    let host = match value.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => value,
    };
    let host = plain_host(host)?;
    if host == target.host {
        return Ok(());
    }
    let why = shared.allows(&host).then(|| {
        format!(
            "blocked by tack's sandbox: the Host header names {host}, not {}, the host of the URL",
            target.host
        )
    });
    Err(shared.refuse(&host, target.port, why))
}

/// Relays the upstream's response (its interim 1xx responses first);
/// `Ok(true)` when the client connection may carry another request.
async fn relay_response<R: AsyncRead + Unpin>(
    upstream: &mut Reader<R>,
    write: &mut OwnedWriteHalf,
    head_only: bool,
    client_keeps_alive: bool,
    target: &Target,
) -> Result<bool, Stop> {
    let bad_gateway = |why: String| {
        Stop::Answer(Answer::new(
            502,
            format!(
                "tack's sandbox proxy: {}:{} {why}",
                target.host, target.port
            ),
        ))
    };
    let mut answered = false;
    loop {
        let end = match read_head(upstream, None).await {
            Ok(Some(end)) => end,
            Err(HeadError::TooLarge) => {
                return Err(bad_gateway(format!(
                    "sent a response head larger than {MAX_HEAD} bytes"
                )));
            }
            Ok(None) | Err(_) if answered => return Err(Stop::Close),
            Ok(None) | Err(_) => {
                return Err(bad_gateway(
                    "closed the connection without a response".to_owned(),
                ));
            }
        };
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Response::new(&mut headers);
        match parsed.parse(&upstream.buf[..end]) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) | Err(_) if answered => return Err(Stop::Close),
            Ok(httparse::Status::Partial) | Err(_) => {
                return Err(bad_gateway("sent a malformed response head".to_owned()));
            }
        }
        let status = parsed.code.unwrap_or(0);
        let reason = parsed.reason.unwrap_or_default().to_owned();
        let headers = owned(parsed.headers);
        upstream.consume(end);
        if status == 101 {
            return Err(if answered {
                Stop::Close
            } else {
                bad_gateway("switched protocols, which the proxy does not relay".to_owned())
            });
        }
        let interim = (100..200).contains(&status);
        let body = if interim || head_only || status == 204 || status == 304 {
            Body::None
        } else {
            match framing(&headers) {
                Ok(body) => body,
                Err(_) if answered => return Err(Stop::Close),
                Err(why) => return Err(bad_gateway(format!("sent a response with {why}"))),
            }
        };
        let keep_alive = client_keeps_alive && body != Body::UntilClose;
        let mut head = format!("HTTP/1.1 {status} {reason}\r\n").into_bytes();
        forwarded_headers(&mut head, &headers);
        if !interim && !keep_alive {
            head.extend_from_slice(b"Connection: close\r\n");
        }
        head.extend_from_slice(b"\r\n");
        write.write_all(&head).await?;
        answered = true;
        if interim {
            continue;
        }
        copy_body(upstream, write, body).await?;
        return Ok(keep_alive);
    }
}

/// Copies one body framed as `body` from `from` to `to` (a chunked body
/// re-framed chunk by chunk, so nothing past its end is copied).
async fn copy_body<R, W>(from: &mut Reader<R>, to: &mut W, body: Body) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    match body {
        Body::None => Ok(()),
        Body::Length(n) => copy_exactly(from, to, n).await,
        Body::UntilClose => {
            to.write_all(&from.buf).await?;
            from.buf.clear();
            tokio::io::copy(&mut from.io, to).await?;
            Ok(())
        }
        Body::Chunked => loop {
            let line = read_line(from).await?;
            let size = chunk_size(&line)?;
            to.write_all(format!("{size:x}\r\n").as_bytes()).await?;
            if size == 0 {
                let mut trailers = 0;
                loop {
                    let line = read_line(from).await?;
                    trailers += line.len();
                    if trailers > MAX_HEAD {
                        return Err(invalid("chunked trailers larger than 64 KiB"));
                    }
                    to.write_all(&line).await?;
                    to.write_all(b"\r\n").await?;
                    if line.is_empty() {
                        return Ok(());
                    }
                }
            }
            copy_exactly(from, to, size).await?;
            if !read_line(from).await?.is_empty() {
                return Err(invalid("a chunk longer than its size"));
            }
            to.write_all(b"\r\n").await?;
        },
    }
}

async fn copy_exactly<R, W>(from: &mut Reader<R>, to: &mut W, n: u64) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let buffered = from.buf.len().min(usize::try_from(n).unwrap_or(usize::MAX));
    to.write_all(&from.buf[..buffered]).await?;
    from.consume(buffered);
    let rest = n - buffered as u64;
    let copied = tokio::io::copy(&mut (&mut from.io).take(rest), to).await?;
    if copied < rest {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// One line (without its CRLF or LF) of at most [`MAX_LINE`] bytes.
async fn read_line<R: AsyncRead + Unpin>(from: &mut Reader<R>) -> std::io::Result<Vec<u8>> {
    let mut scanned = 0;
    loop {
        if let Some(i) = from.buf[scanned..].iter().position(|b| *b == b'\n') {
            let end = scanned + i;
            let mut line = from.buf[..end].to_vec();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            from.consume(end + 1);
            return Ok(line);
        }
        if from.buf.len() > MAX_LINE {
            return Err(invalid("a chunked body line longer than 4 KiB"));
        }
        scanned = from.buf.len();
        if from.fill().await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
    }
}

/// The size of a chunk from its line (`1a;ext=…`).
fn chunk_size(line: &[u8]) -> std::io::Result<u64> {
    let hex = line.split(|b| *b == b';').next().unwrap_or_default();
    let hex = std::str::from_utf8(hex).map_err(|_| invalid("a chunk size that is not hex"))?;
    let hex = hex.trim_matches([' ', '\t']);
    if hex.is_empty() || hex.len() > 15 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid("a chunk size that is not hex"));
    }
    u64::from_str_radix(hex, 16).map_err(|_| invalid("a chunk size that is not hex"))
}

fn invalid(why: &'static str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(allowed: &[&str]) -> Shared {
        Shared {
            allowed: allowed
                .iter()
                .map(|p| DomainPattern::parse(p).unwrap())
                .collect(),
            denied: vec![DomainPattern::parse("bad.allowed.test").unwrap()],
            denials: Mutex::new(Denials::default()),
        }
    }

    fn host_of(url: &str, shared: &Shared) -> Result<String, u16> {
        match absolute_form(url, shared) {
            Ok((t, _)) => Ok(format!("{}:{}", t.host, t.port)),
            Err(Stop::Answer(a)) => Err(a.status),
            Err(Stop::Close) => Err(0),
        }
    }

    #[test]
    fn an_allowed_name_may_not_lead_to_this_machine_or_the_metadata_service() {
        let at = |ip: &str| SocketAddr::new(ip.parse().unwrap(), 443);
        for ip in [
            "127.0.0.1",
            "127.5.6.7",
            "0.0.0.0",
            "169.254.169.254",
            "::1",
            "::",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "fe80::1",
            "fd00:ec2::254",
        ] {
            let refused = connectable("rebind.example", vec![at(ip)]).unwrap_err();
            assert!(
                refused.contains("rebind.example resolves to"),
                "{ip}: {refused}"
            );
            assert!(
                refused.contains(ip.trim_start_matches("::ffff:")),
                "{ip}: {refused}"
            );
        }
        // Public and private networks (a company's registry at 10.x) stay
        // reachable; internal addresses among others are left out.
        for ip in [
            "93.184.216.34",
            "10.1.2.3",
            "192.168.1.10",
            "2606:4700::1111",
            "fd12::1",
        ] {
            assert_eq!(
                connectable("a.example", vec![at(ip)]),
                Ok(vec![at(ip)]),
                "{ip}"
            );
        }
        assert_eq!(
            connectable("a.example", vec![at("127.0.0.1"), at("93.184.216.34")]),
            Ok(vec![at("93.184.216.34")])
        );
    }

    #[test]
    fn a_denied_domain_wins_over_an_allowed_wildcard() {
        let s = shared(&["*.allowed.test"]);
        assert!(s.allows("api.allowed.test"));
        assert!(!s.allows("bad.allowed.test"));
        assert!(!s.allows("BAD.allowed.test."));
    }

    #[test]
    fn urls_name_the_host_they_reach() {
        let s = shared(&["example.com"]);
        assert_eq!(
            host_of("http://Example.COM./x", &s),
            Ok("example.com:80".into())
        );
        assert_eq!(
            host_of("http://example.com:8080", &s),
            Ok("example.com:8080".into())
        );
        assert_eq!(
            host_of("http://example.com@evil.net/", &s),
            Ok("evil.net:80".into())
        );
        assert_eq!(
            host_of("http://evil.net#@example.com/", &s),
            Ok("evil.net:80".into())
        );
        assert_eq!(host_of("http://%65xample.com/", &s), Err(400));
        assert_eq!(host_of("http://example.com:x/", &s), Err(400));
        assert_eq!(host_of("http://example.com:0/", &s), Err(400));
        assert_eq!(host_of("http://[::1]:80/", &s), Err(403));
        assert_eq!(host_of("http://127.1/", &s), Err(403));
        assert_eq!(host_of("http://0x7f.1/", &s), Err(403));
        assert_eq!(host_of("http://2130706433/", &s), Err(403));
        assert_eq!(host_of("/origin-form", &s), Err(400));
        assert_eq!(host_of("https://example.com/", &s), Err(400));
        let (_, path) = absolute_form("http://example.com?q=1#frag", &s).unwrap();
        assert_eq!(path, "/?q=1");
        // The IP literals above were recorded as refusals.
        let denials = s.denials();
        let hosts: Vec<&str> = denials.kept.iter().map(|d| d.host.as_str()).collect();
        assert_eq!(hosts, ["::1", "127.1", "0x7f.1", "2130706433"]);
    }

    #[test]
    fn the_latest_refusals_are_kept_and_counted() {
        let s = shared(&[]);
        for port in 1..=(KEPT_DENIALS as u16 + 5) {
            let _ = s.refuse("a.example", port, None);
        }
        let denials = s.denials();
        assert_eq!(denials.total, KEPT_DENIALS as u64 + 5);
        assert_eq!(denials.kept.len(), KEPT_DENIALS);
        assert_eq!(denials.kept.front().map(|d| d.port), Some(6));
    }

    #[test]
    fn body_framing_refuses_contradictions() {
        let h = |pairs: &[(&str, &str)]| -> Vec<(String, Vec<u8>)> {
            pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.as_bytes().to_vec()))
                .collect()
        };
        assert_eq!(framing(&h(&[])), Ok(Body::None));
        assert_eq!(
            framing(&h(&[("Content-Length", "12")])),
            Ok(Body::Length(12))
        );
        assert_eq!(
            framing(&h(&[("Transfer-Encoding", "gzip, Chunked")])),
            Ok(Body::Chunked)
        );
        assert!(
            framing(&h(&[
                ("Content-Length", "1"),
                ("Transfer-Encoding", "chunked")
            ]))
            .is_err()
        );
        assert!(framing(&h(&[("Content-Length", "1"), ("Content-Length", "2")])).is_err());
        assert!(framing(&h(&[("Content-Length", "-1")])).is_err());
    }

    #[test]
    fn a_client_hello_split_across_records_is_read() {
        // ClientHello with SNI "a.example", handshake split over two records.
        let name = b"a.example";
        let mut sni = Vec::new();
        sni.extend_from_slice(&((name.len() + 3) as u16).to_be_bytes());
        sni.push(0);
        sni.extend_from_slice(&(name.len() as u16).to_be_bytes());
        sni.extend_from_slice(name);
        let mut ext = vec![0, 0];
        ext.extend_from_slice(&(sni.len() as u16).to_be_bytes());
        ext.extend_from_slice(&sni);
        let mut body = vec![3, 3];
        body.extend_from_slice(&[0; 32]);
        body.extend_from_slice(&[0, 0, 2, 0x13, 0x01, 1, 0]);
        body.extend_from_slice(&(ext.len() as u16).to_be_bytes());
        body.extend_from_slice(&ext);
        let mut message = vec![1, 0, 0, body.len() as u8];
        message.extend_from_slice(&body);
        let (first, second) = message.split_at(10);
        let mut records = Vec::new();
        for part in [first, second] {
            records.extend_from_slice(&[0x16, 3, 1]);
            records.extend_from_slice(&(part.len() as u16).to_be_bytes());
            records.extend_from_slice(part);
        }
        let hello = tls::server_name(&records).unwrap();
        assert_eq!(hello.name.as_deref(), Some("a.example"));
        assert!(!hello.encrypted);
        assert_eq!(
            tls::server_name(&records[..records.len() - 1]),
            Err(tls::Unreadable::Incomplete)
        );
    }
}
