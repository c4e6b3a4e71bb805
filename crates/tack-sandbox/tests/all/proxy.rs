//! The network allowlist's proxy, driven through its Unix socket with real
//! upstream servers on 127.0.0.1 (`*.localhost` names resolve there).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tack_sandbox::{Denial, DomainPattern, Proxy};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, UnixStream};

const BLOCKED_DENIED: &str =
    "blocked by tack's sandbox: denied.localhost is not in sandbox.network.allowedDomains";

struct Fixture {
    _dir: tempfile::TempDir,
    socket: PathBuf,
    proxy: Proxy,
}

/// A proxy allowing `allowed`, on a socket in a fresh directory.
fn proxy(allowed: &[&str]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("proxy.sock");
    let allowed = allowed
        .iter()
        .map(|p| DomainPattern::parse(p).unwrap())
        .collect();
    let proxy = Proxy::start(&socket, allowed).unwrap();
    Fixture {
        _dir: dir,
        socket,
        proxy,
    }
}

/// A server on 127.0.0.1 and what it received, one entry per connection.
struct Upstream {
    port: u16,
    received: Arc<Mutex<Vec<String>>>,
}

impl Upstream {
    fn received(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}

/// An HTTP server answering every request with `body` (Content-Length),
/// recording each request's head and body.
async fn http_upstream(body: &'static str) -> Upstream {
    serve_upstream(move |mut stream, received| async move {
        let mut got = Vec::new();
        let mut buf = [0; 4096];
        let head_end = loop {
            if let Some(i) = find(&got, b"\r\n\r\n") {
                break i + 4;
            }
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            got.extend_from_slice(&buf[..n]);
        };
        let head = String::from_utf8_lossy(&got[..head_end]).to_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |l| l.trim().parse().unwrap());
        while got.len() < head_end + length {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        received
            .lock()
            .unwrap()
            .push(String::from_utf8_lossy(&got).into_owned());
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nX-Upstream: yes\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(response.as_bytes()).await;
    })
    .await
}

/// A server sending back what it reads, recording it.
async fn echo_upstream() -> Upstream {
    serve_upstream(|mut stream, received| async move {
        let mut all = Vec::new();
        let mut buf = [0; 4096];
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
            if stream.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        received
            .lock()
            .unwrap()
            .push(String::from_utf8_lossy(&all).into_owned());
    })
    .await
}

async fn serve_upstream<F, Fut>(serve: F) -> Upstream
where
    F: Fn(tokio::net::TcpStream, Arc<Mutex<Vec<String>>>) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received = Arc::new(Mutex::new(Vec::new()));
    let shared = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, Arc::clone(&shared)));
        }
    });
    Upstream { port, received }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Sends `request` on a new connection to the proxy and reads until it closes.
async fn exchange(socket: &std::path::Path, request: &[u8]) -> String {
    let mut stream = UnixStream::connect(socket).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer))
        .await
        .expect("the proxy closes the connection")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

/// Opens a CONNECT tunnel to `authority` and returns it after its 200.
async fn tunnel(socket: &std::path::Path, authority: &str) -> UnixStream {
    let mut stream = UnixStream::connect(socket).await.unwrap();
    let connect = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n");
    stream.write_all(connect.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).await.unwrap(), 1, "{head:?}");
        head.push(byte[0]);
    }
    assert_eq!(head, b"HTTP/1.1 200 Connection Established\r\n\r\n");
    stream
}

/// Reads until the tunnel closes (or 30 s pass: a failure).
async fn read_all(stream: &mut UnixStream) -> Vec<u8> {
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut all))
        .await
        .expect("the tunnel closes")
        .unwrap();
    all
}

fn assert_blocked(answer: &str, line: &str) {
    assert!(answer.starts_with("HTTP/1.1 403 Forbidden\r\n"), "{answer}");
    assert!(
        answer.contains("\r\nX-Tack-Sandbox: blocked\r\n"),
        "{answer}"
    );
    assert!(answer.ends_with(&format!("\r\n\r\n{line}\n")), "{answer}");
}

fn denial(host: &str, port: u16) -> Denial {
    Denial {
        host: host.to_owned(),
        port,
    }
}

/// A small valid TLS 1.2/1.3 ClientHello naming `server`.
fn client_hello(server: &str) -> Vec<u8> {
    fn with_len16(bytes: &[u8]) -> Vec<u8> {
        let mut out = u16::try_from(bytes.len()).unwrap().to_be_bytes().to_vec();
        out.extend_from_slice(bytes);
        out
    }
    let mut entry = vec![0]; // host_name
    entry.extend(with_len16(server.as_bytes()));
    let mut extension = vec![0, 0]; // server_name
    extension.extend(with_len16(&with_len16(&entry)));
    let mut hello = vec![3, 3]; // legacy_version TLS 1.2
    hello.extend_from_slice(&[7; 32]); // random
    hello.push(0); // no session id
    hello.extend(with_len16(&[0x13, 0x01, 0xc0, 0x2f])); // cipher suites
    hello.extend_from_slice(&[1, 0]); // compression: null
    hello.extend(with_len16(&extension));
    let mut handshake = vec![1]; // client_hello
    handshake.extend_from_slice(&u32::try_from(hello.len()).unwrap().to_be_bytes()[1..]);
    handshake.extend(hello);
    let mut record = vec![0x16, 3, 1];
    record.extend(with_len16(&handshake));
    record
}

#[tokio::test]
async fn a_get_to_an_allowed_host_is_forwarded_in_origin_form() {
    let upstream = http_upstream("hello from upstream").await;
    let fx = proxy(&["allowed.localhost"]);
    let port = upstream.port;
    let request = format!(
        "GET http://Allowed.Localhost.:{port}/path?q=1 HTTP/1.1\r\nHost: allowed.localhost:{port}\r\n\
         Proxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\
         Connection: close\r\n\r\n"
    );
    let answer = exchange(&fx.socket, request.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.contains("X-Upstream: yes\r\n"), "{answer}");
    assert!(answer.contains("Connection: close\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nhello from upstream"), "{answer}");
    let received = upstream.received();
    assert_eq!(received.len(), 1);
    let sent = &received[0];
    assert!(sent.starts_with("GET /path?q=1 HTTP/1.1\r\n"), "{sent}");
    assert!(
        sent.contains(&format!("\r\nHost: allowed.localhost:{port}\r\n")),
        "{sent}"
    );
    assert!(sent.contains("\r\nAccept: */*\r\n"), "{sent}");
    assert!(sent.contains("\r\nConnection: close\r\n"), "{sent}");
    assert!(!sent.to_lowercase().contains("proxy-"), "{sent}");
    assert!(fx.proxy.denials().is_empty());
}

#[tokio::test]
async fn a_request_body_is_forwarded_with_its_request() {
    let upstream = http_upstream("ok").await;
    let fx = proxy(&["*.localhost"]);
    let port = upstream.port;
    let request = format!(
        "POST http://api.localhost:{port}/upload HTTP/1.1\r\nContent-Length: 11\r\n\
         Connection: close\r\n\r\nhello world"
    );
    let answer = exchange(&fx.socket, request.as_bytes()).await;
    assert!(answer.ends_with("\r\n\r\nok"), "{answer}");
    let received = upstream.received();
    assert!(received[0].ends_with("\r\n\r\nhello world"), "{received:?}");
    let chunked = format!(
        "POST http://api.localhost:{port}/upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\
         Connection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    );
    let answer = exchange(&fx.socket, chunked.as_bytes()).await;
    assert!(answer.ends_with("\r\n\r\nok"), "{answer}");
}

#[tokio::test]
async fn a_get_to_a_denied_host_is_refused_and_recorded() {
    let upstream = http_upstream("secret").await;
    let fx = proxy(&["allowed.localhost"]);
    let port = upstream.port;
    let request = format!("GET http://denied.localhost:{port}/ HTTP/1.1\r\n\r\n");
    let answer = exchange(&fx.socket, request.as_bytes()).await;
    assert_blocked(&answer, BLOCKED_DENIED);
    assert_eq!(fx.proxy.denials(), [denial("denied.localhost", port)]);
    assert_eq!(fx.proxy.refused(), 1);
    assert!(upstream.received().is_empty());
}

#[tokio::test]
async fn a_request_in_origin_form_is_refused_with_400() {
    let fx = proxy(&["allowed.localhost"]);
    let answer = exchange(
        &fx.socket,
        b"GET / HTTP/1.1\r\nHost: allowed.localhost\r\n\r\n",
    )
    .await;
    assert!(
        answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{answer}"
    );
    assert!(answer.contains("is not an absolute URL"), "{answer}");
}

#[tokio::test]
async fn connect_to_an_allowed_host_relays_bytes_both_ways() {
    let upstream = echo_upstream().await;
    let fx = proxy(&["allowed.localhost"]);
    let mut stream = tunnel(&fx.socket, &format!("allowed.localhost:{}", upstream.port)).await;
    stream.write_all(b"ping over the tunnel").await.unwrap();
    let mut echoed = [0; 20];
    stream.read_exact(&mut echoed).await.unwrap();
    assert_eq!(&echoed, b"ping over the tunnel");
    stream.shutdown().await.unwrap();
    assert_eq!(
        read_all(&mut stream).await,
        b"",
        "the end is passed on both ways"
    );
    assert_eq!(upstream.received(), ["ping over the tunnel"]);
}

#[tokio::test]
async fn connect_to_a_denied_host_is_refused() {
    let upstream = echo_upstream().await;
    let fx = proxy(&["allowed.localhost"]);
    let port = upstream.port;
    let request = format!("CONNECT denied.localhost:{port} HTTP/1.1\r\n\r\n");
    let answer = exchange(&fx.socket, request.as_bytes()).await;
    assert_blocked(&answer, BLOCKED_DENIED);
    assert_eq!(fx.proxy.denials(), [denial("denied.localhost", port)]);
    // HTTP/1.0 is judged the same way.
    let request = format!("CONNECT denied.localhost:{port} HTTP/1.0\r\n\r\n");
    assert_blocked(
        &exchange(&fx.socket, request.as_bytes()).await,
        BLOCKED_DENIED,
    );
    assert!(upstream.received().is_empty());
}

#[tokio::test]
async fn a_host_header_naming_another_host_is_refused() {
    let upstream = http_upstream("x").await;
    let fx = proxy(&["allowed.localhost", "other.localhost"]);
    let port = upstream.port;
    let to_denied = format!(
        "GET http://allowed.localhost:{port}/ HTTP/1.1\r\nHost: denied.localhost:{port}\r\n\r\n"
    );
    assert_blocked(
        &exchange(&fx.socket, to_denied.as_bytes()).await,
        BLOCKED_DENIED,
    );
    let to_other =
        format!("GET http://allowed.localhost:{port}/ HTTP/1.1\r\nHost: other.localhost\r\n\r\n");
    assert_blocked(
        &exchange(&fx.socket, to_other.as_bytes()).await,
        "blocked by tack's sandbox: the Host header names other.localhost, not \
         allowed.localhost, the host of the URL",
    );
    assert_eq!(
        fx.proxy.denials(),
        [
            denial("denied.localhost", port),
            denial("other.localhost", port)
        ]
    );
    assert!(upstream.received().is_empty());
}

#[tokio::test]
async fn a_second_request_on_one_connection_is_judged_again() {
    let upstream = http_upstream("first answer").await;
    let fx = proxy(&["allowed.localhost"]);
    let port = upstream.port;
    let both = format!(
        "GET http://allowed.localhost:{port}/one HTTP/1.1\r\nHost: allowed.localhost:{port}\r\n\r\n\
         GET http://denied.localhost:{port}/two HTTP/1.1\r\nHost: denied.localhost:{port}\r\n\r\n"
    );
    let answer = exchange(&fx.socket, both.as_bytes()).await;
    let (first, second) = answer
        .split_once("first answer")
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(first.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(!first.contains("Connection: close"), "kept alive: {answer}");
    assert_blocked(second, BLOCKED_DENIED);
    let received = upstream.received();
    assert_eq!(received.len(), 1, "{received:?}");
    assert!(received[0].starts_with("GET /one "), "{received:?}");
    assert!(!received[0].contains("denied"), "never piped: {received:?}");
}

#[tokio::test]
async fn chunked_responses_end_where_their_last_chunk_does() {
    let chunked = serve_upstream(|mut stream, received| async move {
        let mut got = Vec::new();
        let mut buf = [0; 4096];
        while find(&got, b"\r\n\r\n").is_none() {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            got.extend_from_slice(&buf[..n]);
        }
        received
            .lock()
            .unwrap()
            .push(String::from_utf8_lossy(&got).into_owned());
        let response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                        5;ext=1\r\nhello\r\n6\r\n chunk\r\n0\r\nX-Trailer: t\r\n\r\n";
        let _ = stream.write_all(response.as_bytes()).await;
    })
    .await;
    let fx = proxy(&["allowed.localhost"]);
    let port = chunked.port;
    let two = format!(
        "GET http://allowed.localhost:{port}/a HTTP/1.1\r\n\r\n\
         GET http://allowed.localhost:{port}/b HTTP/1.1\r\nConnection: close\r\n\r\n"
    );
    let answer = exchange(&fx.socket, two.as_bytes()).await;
    let body = "\r\n\r\n5\r\nhello\r\n6\r\n chunk\r\n0\r\nX-Trailer: t\r\n\r\n";
    assert_eq!(answer.matches(body).count(), 2, "{answer}");
    assert!(answer.ends_with(body), "nothing after the second: {answer}");
    assert_eq!(
        chunked.received().len(),
        2,
        "one upstream connection per request"
    );
}

#[tokio::test]
async fn userinfo_does_not_hide_the_real_host() {
    let upstream = http_upstream("x").await;
    let fx = proxy(&["allowed.localhost"]);
    let port = upstream.port;
    let request = format!("GET http://allowed.localhost@denied.localhost:{port}/ HTTP/1.1\r\n\r\n");
    assert_blocked(
        &exchange(&fx.socket, request.as_bytes()).await,
        BLOCKED_DENIED,
    );
    let connect = format!("CONNECT allowed.localhost@denied.localhost:{port} HTTP/1.1\r\n\r\n");
    assert_blocked(
        &exchange(&fx.socket, connect.as_bytes()).await,
        BLOCKED_DENIED,
    );
    assert_eq!(fx.proxy.refused(), 2);
    assert!(upstream.received().is_empty());
}

#[tokio::test]
async fn ip_literals_are_refused() {
    let upstream = http_upstream("x").await;
    let echo = echo_upstream().await;
    let fx = proxy(&["allowed.localhost", "localhost"]);
    let (port, echo_port) = (upstream.port, echo.port);
    for (request, host) in [
        (
            format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n"),
            "127.0.0.1",
        ),
        (format!("GET http://[::1]:{port}/ HTTP/1.1\r\n\r\n"), "::1"),
        (
            format!("GET http://127.1:{port}/ HTTP/1.1\r\n\r\n"),
            "127.1",
        ),
        (
            format!("CONNECT 127.0.0.1:{echo_port} HTTP/1.1\r\n\r\n"),
            "127.0.0.1",
        ),
    ] {
        let answer = exchange(&fx.socket, request.as_bytes()).await;
        assert_blocked(
            &answer,
            &format!("blocked by tack's sandbox: {host} is not in sandbox.network.allowedDomains"),
        );
    }
    let hosts: Vec<String> = fx.proxy.denials().into_iter().map(|d| d.host).collect();
    assert_eq!(hosts, ["127.0.0.1", "::1", "127.1", "127.0.0.1"]);
    assert!(upstream.received().is_empty());
    assert!(echo.received().is_empty());
}

#[tokio::test]
async fn a_percent_encoded_host_is_refused_with_400() {
    let upstream = http_upstream("x").await;
    let fx = proxy(&["allowed.localhost"]);
    let request = format!(
        "GET http://%61llowed.localhost:{}/ HTTP/1.1\r\n\r\n",
        upstream.port
    );
    let answer = exchange(&fx.socket, request.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    assert!(answer.contains("is not a plain host name"), "{answer}");
    assert!(upstream.received().is_empty());
}

#[tokio::test]
async fn a_tls_client_hello_naming_a_denied_host_closes_the_tunnel() {
    let echo = echo_upstream().await;
    let fx = proxy(&["allowed.localhost"]);
    let authority = format!("allowed.localhost:{}", echo.port);

    // The server the ClientHello names is allowed: the hello goes through.
    let hello = client_hello("allowed.localhost");
    let mut stream = tunnel(&fx.socket, &authority).await;
    stream.write_all(&hello).await.unwrap();
    let mut echoed = vec![0; hello.len()];
    stream.read_exact(&mut echoed).await.unwrap();
    assert_eq!(echoed, hello);
    drop(stream);

    // Fronting: an allowed tunnel, a ClientHello naming another host.
    let mut stream = tunnel(&fx.socket, &authority).await;
    stream
        .write_all(&client_hello("Denied.localhost"))
        .await
        .unwrap();
    assert_eq!(read_all(&mut stream).await, b"", "closed without a byte");
    assert_eq!(fx.proxy.denials(), [denial("denied.localhost", echo.port)]);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let received = echo.received();
    assert!(
        !received.iter().any(|r| r.contains("Denied")),
        "{received:?}"
    );
}

/// Plain HTTP inside a CONNECT tunnel is read as plain HTTP: each request's
/// `Host` header must name the tunnel's host, as a plain request's must,
/// also after blank lines, sent slowly, or behind a first good request.
#[tokio::test]
async fn plain_http_inside_a_tunnel_has_its_host_header_checked() {
    let upstream = http_upstream("tunnelled answer").await;
    let fx = proxy(&["allowed.localhost", "other.localhost"]);
    let port = upstream.port;
    let authority = format!("allowed.localhost:{port}");

    let mut stream = tunnel(&fx.socket, &authority).await;
    let both = format!(
        "GET /one HTTP/1.1\r\nHost: allowed.localhost:{port}\r\n\r\n\
         GET /two HTTP/1.1\r\nHost: other.localhost\r\n\r\n"
    );
    stream.write_all(both.as_bytes()).await.unwrap();
    let answer = String::from_utf8_lossy(&read_all(&mut stream).await).into_owned();
    let (first, second) = answer
        .split_once("tunnelled answer")
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(first.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert_blocked(
        second,
        "blocked by tack's sandbox: the Host header names other.localhost, not \
         allowed.localhost, the host of the URL",
    );

    // Blank lines first, and the request line a byte at a time.
    let mut stream = tunnel(&fx.socket, &authority).await;
    let evil = "\r\n\r\nGET /three HTTP/1.1\r\nHost: evil.localhost\r\n\r\n";
    for byte in evil.as_bytes() {
        stream.write_all(&[*byte]).await.unwrap();
    }
    let answer = String::from_utf8_lossy(&read_all(&mut stream).await).into_owned();
    assert_blocked(&answer, &BLOCKED_DENIED.replace("denied", "evil"));

    let received = upstream.received();
    assert_eq!(received.len(), 1, "{received:?}");
    assert!(received[0].starts_with("GET /one "), "{received:?}");
}

/// HTTP/2 without TLS in a tunnel (its `Host` compressed) closes it.
#[tokio::test]
async fn cleartext_http2_in_a_tunnel_is_closed() {
    let echo = echo_upstream().await;
    let fx = proxy(&["allowed.localhost"]);
    let mut stream = tunnel(&fx.socket, &format!("allowed.localhost:{}", echo.port)).await;
    stream
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    assert_eq!(read_all(&mut stream).await, b"", "closed without a byte");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        echo.received().iter().all(|r| r.is_empty()),
        "{:?}",
        echo.received()
    );
}

#[tokio::test]
async fn an_oversized_head_is_refused_with_431() {
    let fx = proxy(&["allowed.localhost"]);
    let mut request = b"GET http://allowed.localhost/ HTTP/1.1\r\n".to_vec();
    for i in 0..2000 {
        request.extend_from_slice(format!("X-Filler-{i}: {}\r\n", "a".repeat(40)).as_bytes());
    }
    request.extend_from_slice(b"\r\n");
    let answer = exchange(&fx.socket, &request).await;
    assert!(answer.starts_with("HTTP/1.1 431 "), "{answer}");
}

#[tokio::test]
async fn a_head_that_never_ends_times_out_with_408() {
    let fx = proxy(&["allowed.localhost"]);
    let started = std::time::Instant::now();
    let mut stream = UnixStream::connect(&fx.socket).await.unwrap();
    stream
        .write_all(b"GET http://allowed.localhost/ HTTP/1.1\r\nHost: allo")
        .await
        .unwrap();
    let answer = String::from_utf8(read_all(&mut stream).await).unwrap();
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(
        started.elapsed() >= Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn an_unreachable_upstream_is_answered_with_502() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let fx = proxy(&["allowed.localhost"]);
    let request = format!("GET http://allowed.localhost:{port}/ HTTP/1.1\r\n\r\n");
    let answer = exchange(&fx.socket, request.as_bytes()).await;
    assert!(
        answer.starts_with("HTTP/1.1 502 Bad Gateway\r\n"),
        "{answer}"
    );
    assert!(
        answer.contains(&format!("could not connect to allowed.localhost:{port}")),
        "{answer}"
    );
    assert!(fx.proxy.denials().is_empty());
}

#[tokio::test]
async fn a_client_that_leaves_while_the_server_thinks_ends_the_exchange() {
    // A server that reads the request and never answers; it records when the
    // proxy's connection to it ends.
    let silent = serve_upstream(|mut stream, received| async move {
        let mut buf = [0; 4096];
        while stream.read(&mut buf).await.unwrap_or(0) > 0 {}
        received.lock().unwrap().push("closed".to_owned());
    })
    .await;
    let fx = proxy(&["allowed.localhost"]);
    let mut stream = UnixStream::connect(&fx.socket).await.unwrap();
    let request = format!(
        "GET http://allowed.localhost:{}/slow HTTP/1.1\r\n\r\n",
        silent.port
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        silent.received().is_empty(),
        "the server is still waited for"
    );
    drop(stream);
    tokio::time::timeout(Duration::from_secs(10), async {
        while silent.received().is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the proxy closes its connection to the server");
}

#[tokio::test]
async fn dropping_the_proxy_removes_its_socket_and_closes_its_tunnels() {
    use std::os::unix::fs::PermissionsExt as _;
    let echo = echo_upstream().await;
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("proxy.sock");
    // A stale socket from an earlier run is replaced.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let allowed = vec![DomainPattern::parse("allowed.localhost").unwrap()];
    let proxy = Proxy::start(&socket, allowed).unwrap();
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let mut open = tunnel(&socket, &format!("allowed.localhost:{}", echo.port)).await;

    drop(proxy);
    assert!(!socket.exists());
    assert!(UnixStream::connect(&socket).await.is_err());
    assert_eq!(read_all(&mut open).await, b"", "the open tunnel is closed");
}

#[tokio::test]
async fn a_file_in_the_sockets_place_is_not_removed() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("proxy.sock");
    std::fs::write(&socket, "not a socket").unwrap();
    let err = Proxy::start(&socket, Vec::new()).unwrap_err();
    assert!(err.to_string().contains("is not a socket"), "{err}");
    assert_eq!(std::fs::read_to_string(&socket).unwrap(), "not a socket");
}

#[test]
fn starting_outside_a_runtime_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let err = Proxy::start(&dir.path().join("proxy.sock"), Vec::new()).unwrap_err();
    assert!(err.to_string().contains("inside a tokio runtime"), "{err}");
}

/// curl in front of the bridge the sandbox runs, as a sandboxed command uses it.
#[tokio::test]
async fn curl_through_the_bridge_reaches_allowed_hosts_only() {
    let upstream = http_upstream("hello curl").await;
    let fx = proxy(&["allowed.localhost"]);
    let bridge = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_url = format!("http://127.0.0.1:{}", bridge.local_addr().unwrap().port());
    tack_sandbox::serve_proxy_bridge(bridge, fx.socket.clone());
    let curl = |args: Vec<String>| {
        let proxy_url = proxy_url.clone();
        async move {
            let output = tokio::process::Command::new("curl")
                .args(["-sS", "--max-time", "20", "-x", &proxy_url])
                .args(args)
                .env_remove("NO_PROXY")
                .env_remove("no_proxy")
                .output()
                .await
                .expect("curl is installed");
            String::from_utf8_lossy(&output.stdout).into_owned()
        }
    };
    let port = upstream.port;
    let allowed = format!("http://allowed.localhost:{port}/");
    let denied = format!("http://denied.localhost:{port}/");

    assert_eq!(curl(vec![allowed.clone()]).await, "hello curl");
    // -p: through a CONNECT tunnel, as for https.
    assert_eq!(curl(vec!["-p".into(), allowed]).await, "hello curl");
    let refused = curl(vec!["-i".into(), denied.clone()]).await;
    assert!(refused.starts_with("HTTP/1.1 403 Forbidden"), "{refused}");
    assert!(refused.contains(BLOCKED_DENIED), "{refused}");
    // A refused request's body is read, not left to reset the connection.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    std::fs::write(&big, vec![b'x'; 4 << 20]).unwrap();
    let upload = vec![
        "-i".into(),
        "-H".into(),
        "Expect:".into(),
        "--data-binary".into(),
        format!("@{}", big.display()),
        denied,
    ];
    let refused = curl(upload).await;
    assert!(refused.starts_with("HTTP/1.1 403 Forbidden"), "{refused}");
    assert_eq!(upstream.received().len(), 2);
    assert_eq!(
        fx.proxy.denials(),
        [
            denial("denied.localhost", port),
            denial("denied.localhost", port)
        ]
    );
}
