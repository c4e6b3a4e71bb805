//! The bridge inside a sandbox's own network namespace: TCP on
//! `127.0.0.1:PORT` to the proxy's Unix socket outside, the namespace's only
//! way out. Standard library only: it runs in the helper's PID-1 process,
//! which has no async runtime.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Starts a thread accepting on `listener`; each connection is joined to a
/// new connection to `socket` and copied both ways, each on a thread of its
/// own, until both directions end. Returns at once; never panics (a thread
/// that cannot start drops its connection).
pub(crate) fn serve(listener: TcpListener, socket: PathBuf) {
    let accept = move || {
        for stream in listener.incoming() {
            match stream {
                Ok(tcp) => {
                    let socket = socket.clone();
                    let _ = std::thread::Builder::new()
                        .name("tack-proxy-bridge".to_owned())
                        .spawn(move || join(tcp, &socket));
                }
                // Out of descriptors, most likely: wait instead of spinning.
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    };
    let _ = std::thread::Builder::new()
        .name("tack-proxy-bridge-accept".to_owned())
        .spawn(accept);
}

/// Copies `tcp` to a new connection to `socket` and back; when the proxy
/// cannot be reached, answers 502 (a client of a proxy speaks HTTP first).
fn join(mut tcp: TcpStream, socket: &Path) {
    let unix = match UnixStream::connect(socket) {
        Ok(unix) => unix,
        Err(e) => {
            let body = format!(
                "tack's sandbox: the network proxy at {} cannot be reached: {e}\n",
                socket.display()
            );
            let _ = write!(
                tcp,
                "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = tcp.shutdown(Shutdown::Both);
            return;
        }
    };
    let (Ok(tcp_in), Ok(unix_out)) = (tcp.try_clone(), unix.try_clone()) else {
        return;
    };
    let up = std::thread::Builder::new()
        .name("tack-proxy-bridge-up".to_owned())
        .spawn(move || copy(tcp_in, unix_out));
    copy(unix, tcp);
    if let Ok(up) = up {
        let _ = up.join();
    }
}

/// One direction: `from` to `to` until `from` ends, then shuts `to`'s
/// writing; when the copy fails, shuts both down so the other direction ends too.
fn copy<R, W>(mut from: R, mut to: W)
where
    R: Read + Shut,
    W: Write + Shut,
{
    match std::io::copy(&mut from, &mut to) {
        Ok(_) => to.shut(Shutdown::Write),
        Err(_) => {
            from.shut(Shutdown::Both);
            to.shut(Shutdown::Both);
        }
    }
}

/// `shutdown(2)` on either kind of stream.
trait Shut {
    fn shut(&self, how: Shutdown);
}

impl Shut for TcpStream {
    fn shut(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
}

impl Shut for UnixStream {
    fn shut(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_cross_both_ways_and_an_end_is_passed_on() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("proxy.sock");
        let proxy = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        serve(listener, socket);

        let mut client = TcpStream::connect(address).unwrap();
        let (mut upstream, _) = proxy.accept().unwrap();
        client.write_all(b"ping").unwrap();
        client.shutdown(Shutdown::Write).unwrap();
        let mut got = Vec::new();
        upstream.read_to_end(&mut got).unwrap();
        assert_eq!(
            got, b"ping",
            "the client's bytes and its end reach the socket"
        );
        upstream.write_all(b"pong").unwrap();
        drop(upstream);
        let mut back = Vec::new();
        client.read_to_end(&mut back).unwrap();
        assert_eq!(back, b"pong");

        // Connections are independent: a second one works after the first.
        let mut second = TcpStream::connect(address).unwrap();
        let (mut upstream, _) = proxy.accept().unwrap();
        upstream.write_all(b"second").unwrap();
        drop(upstream);
        let mut back = Vec::new();
        second.read_to_end(&mut back).unwrap();
        assert_eq!(back, b"second");
    }

    #[test]
    fn an_unreachable_proxy_is_answered_with_502() {
        let dir = tempfile::tempdir().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        serve(listener, dir.path().join("absent.sock"));

        let mut client = TcpStream::connect(address).unwrap();
        client
            .write_all(b"CONNECT a.example:443 HTTP/1.1\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 502 "), "{answer}");
        assert!(answer.contains("absent.sock cannot be reached"), "{answer}");
    }
}
