//! Joins two stream connections, a TCP one and a Unix one, until both directions end: one
//! thread per direction, each passing the end of its input on as a half close.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;

/// A connection that can be cloned and half closed.
pub(super) trait Duplex: Read + Write + Send + Sized + 'static {
    /// A second handle on the same connection.
    fn duplicate(&self) -> io::Result<Self>;
    /// Ends the writing half (the peer reads end of file).
    fn close_write(&self);
}

impl Duplex for TcpStream {
    fn duplicate(&self) -> io::Result<Self> {
        self.try_clone()
    }

    fn close_write(&self) {
        let _ = self.shutdown(Shutdown::Write);
    }
}

impl Duplex for UnixStream {
    fn duplicate(&self) -> io::Result<Self> {
        self.try_clone()
    }

    fn close_write(&self) {
        let _ = self.shutdown(Shutdown::Write);
    }
}

/// Copies `a` to `b` and `b` to `a` on two threads of their own; returns at once.
pub(super) fn splice(a: impl Duplex, b: impl Duplex) {
    let (Ok(a_in), Ok(b_in)) = (a.duplicate(), b.duplicate()) else {
        return;
    };
    spawn_copy(a_in, b);
    spawn_copy(b_in, a);
}

fn spawn_copy(mut from: impl Duplex, mut to: impl Duplex) {
    let _ = std::thread::Builder::new()
        .name("skillgym-sandbox-relay".to_owned())
        .spawn(move || {
            let _ = io::copy(&mut from, &mut to);
            to.close_write();
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn bytes_flow_both_ways_and_end_of_file_passes_on() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let (inner, mut far) = UnixStream::pair().unwrap();
        splice(server, inner);
        client.write_all(b"ping").unwrap();
        client.shutdown(Shutdown::Write).unwrap();
        let mut got = Vec::new();
        far.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"ping");
        far.write_all(b"pong").unwrap();
        far.shutdown(Shutdown::Write).unwrap();
        let mut back = Vec::new();
        client.read_to_end(&mut back).unwrap();
        assert_eq!(back, b"pong");
    }
}
