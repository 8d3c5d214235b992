//! A stream that gives up on a peer gone silent: a read or write that makes no progress for
//! its limit fails with [`io::ErrorKind::TimedOut`]. The clock starts when an operation has to
//! wait and stops as soon as a byte moves, so the limit is the longest silence, not the longest
//! request.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `inner`, whose reads and writes fail after `limit` without progress.
#[derive(Debug)]
pub(super) struct Idle<S> {
    inner: S,
    limit: Duration,
    /// The deadline of the current wait, while one is running.
    timer: Option<Pin<Box<Sleep>>>,
}

impl<S> Idle<S> {
    /// Wraps `inner` with a silence limit.
    pub(super) fn new(inner: S, limit: Duration) -> Idle<S> {
        Idle {
            inner,
            limit,
            timer: None,
        }
    }

    /// Changes the limit; it applies from the next wait on.
    pub(super) fn set_limit(&mut self, limit: Duration) {
        self.limit = limit;
        self.timer = None;
    }

    /// Records the outcome of an operation on `inner`: progress stops the clock, a wait starts
    /// it (once) and fails when the limit has passed.
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        outcome: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if outcome.is_ready() {
            self.timer = None;
            return outcome;
        }
        let limit = self.limit;
        let timer = self.timer.get_or_insert_with(|| {
            // A limit too far to add is no limit: a deadline of decades.
            let deadline = Instant::now()
                .checked_add(limit)
                .unwrap_or_else(|| Instant::now() + Duration::from_secs(1 << 30));
            Box::pin(tokio::time::sleep_until(deadline))
        });
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.timer = None;
                Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("the peer was silent for {limit:?}"),
                )))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.inner).poll_read(cx, buf);
        this.watch(cx, outcome)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Idle<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.watch(cx, outcome)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.inner).poll_flush(cx);
        this.watch(cx, outcome)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.watch(cx, outcome)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn a_silent_peer_times_out_and_a_talking_one_does_not() {
        block_on(async {
            let (client, server) = tokio::io::duplex(64);
            let mut server = Idle::new(server, Duration::from_millis(200));
            let mut client = client;
            let talker = tokio::spawn(async move {
                for byte in b"abcd" {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    client.write_all(&[*byte]).await.unwrap();
                }
                client
            });
            let mut got = [0; 4];
            server.read_exact(&mut got).await.unwrap();
            assert_eq!(&got, b"abcd");
            let _client = talker.await.unwrap();
            let started = Instant::now();
            let error = server.read_u8().await.unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::TimedOut);
            assert!(started.elapsed() >= Duration::from_millis(200));
        });
    }

    #[test]
    fn a_peer_that_stops_reading_times_out_a_write() {
        block_on(async {
            let (_client, server) = tokio::io::duplex(16);
            let mut server = Idle::new(server, Duration::from_millis(100));
            let error = server.write_all(&[0; 64]).await.unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        });
    }
}
