//! A TCP listener whose connections a handler can cut, so a step can "close
//! the connection without a response" (hyper always writes one otherwise).
//!
//! Each accepted stream shares a kill flag with a [`Conn`] handed to the
//! handler as connect info; once the flag is set every read or write fails,
//! hyper gives up on the connection and the socket is closed.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The handler's handle on its connection.
#[derive(Debug, Clone)]
pub(crate) struct Conn {
    kill: Arc<AtomicBool>,
}

impl Conn {
    fn new() -> Conn {
        Conn {
            kill: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Make the connection fail at its next read or write.
    pub(crate) fn cut(&self) {
        self.kill.store(true, Ordering::SeqCst);
    }
}

pub(crate) struct CuttableListener(pub(crate) TcpListener);

impl Listener for CuttableListener {
    type Io = CuttableIo;
    type Addr = Conn;

    async fn accept(&mut self) -> (CuttableIo, Conn) {
        loop {
            match self.0.accept().await {
                Ok((inner, _)) => {
                    if let Err(e) = inner.set_nodelay(true) {
                        tracing::debug!("mock server: set_nodelay failed: {e}");
                    }
                    let conn = Conn::new();
                    let io = CuttableIo {
                        inner,
                        kill: conn.kill.clone(),
                    };
                    return (io, conn);
                }
                Err(e) => {
                    tracing::debug!("mock server: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Conn> {
        self.0.local_addr().map(|_| Conn::new())
    }
}

impl Connected<IncomingStream<'_, CuttableListener>> for Conn {
    fn connect_info(stream: IncomingStream<'_, CuttableListener>) -> Self {
        stream.remote_addr().clone()
    }
}

pub(crate) struct CuttableIo {
    inner: TcpStream,
    kill: Arc<AtomicBool>,
}

impl CuttableIo {
    fn cut(&self) -> bool {
        self.kill.load(Ordering::SeqCst)
    }
}

fn aborted() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "mock server: connection cut by script",
    )
}

impl AsyncRead for CuttableIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.cut() {
            return Poll::Ready(Err(aborted()));
        }
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for CuttableIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.cut() {
            return Poll::Ready(Err(aborted()));
        }
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.cut() {
            return Poll::Ready(Err(aborted()));
        }
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.cut() {
            return Poll::Ready(Err(aborted()));
        }
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
