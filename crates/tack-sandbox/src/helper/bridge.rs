//! PLACEHOLDER until the bridge of its own branch lands: copies each
//! connection accepted on the listener (127.0.0.1 in the sandbox's network
//! namespace) to a new connection to the proxy's Unix socket.

use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

/// Serves `listener` from threads of its own; returns at once.
pub(crate) fn serve(listener: TcpListener, socket: PathBuf) {
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let socket = socket.clone();
            std::thread::spawn(move || copy_both_ways(tcp, &socket));
        }
    });
}

fn copy_both_ways(tcp: TcpStream, socket: &std::path::Path) {
    let Ok(unix) = UnixStream::connect(socket) else {
        return;
    };
    let (Ok(mut tcp_in), Ok(mut unix_out)) = (tcp.try_clone(), unix.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut tcp_in, &mut unix_out);
        let _ = unix_out.shutdown(std::net::Shutdown::Write);
    });
    let (mut unix_in, mut tcp_out) = (unix, tcp);
    let _ = std::io::copy(&mut unix_in, &mut tcp_out);
    let _ = tcp_out.shutdown(std::net::Shutdown::Write);
    let _ = up.join();
}
