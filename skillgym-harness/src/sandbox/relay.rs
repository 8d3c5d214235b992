//! The harness's end of the forwarder: one Unix socket per forwarded endpoint, in a private
//! directory bound into the sandbox; each connection the forwarder makes to it is joined to a
//! new connection to the endpoint on the host's loopback. Nothing else is reachable through
//! it: the socket leads to its one endpoint only.

use std::io;
use std::net::TcpStream;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Loopback;
use super::splice::splice;
use crate::private_dir::PrivateDir;

/// The relays of one session; they stop, and their directory goes, when this is dropped.
#[derive(Debug)]
pub(super) struct Relay {
    dir: PrivateDir,
    sockets: Vec<(u16, PathBuf)>,
    stop: Arc<AtomicBool>,
}

impl Relay {
    /// Listens on a socket per target, in a fresh private directory.
    pub(super) fn start(targets: &[Loopback]) -> io::Result<Relay> {
        let mut dir = PrivateDir::create()?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut sockets = Vec::with_capacity(targets.len());
        for target in targets {
            let path = dir.reserve(&format!("{}.sock", target.port));
            let listener = UnixListener::bind(&path).map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("cannot listen on {}: {error}", path.display()),
                )
            })?;
            sockets.push((target.port, path));
            let (stop, target) = (Arc::clone(&stop), target.clone());
            std::thread::Builder::new()
                .name("skillgym-sandbox-relay".to_owned())
                .spawn(move || accept(&listener, &target, &stop))?;
        }
        Ok(Relay { dir, sockets, stop })
    }

    /// The directory of the sockets (bound into the sandbox at the same path).
    pub(super) fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Each forwarded port with its socket.
    pub(super) fn sockets(&self) -> &[(u16, PathBuf)] {
        &self.sockets
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes each accepting thread, which then sees the flag.
        for (_, path) in &self.sockets {
            let _ = UnixStream::connect(path);
        }
    }
}

/// Joins each connection on `listener` to a new one to `target`, until `stop`.
fn accept(listener: &UnixListener, target: &Loopback, stop: &AtomicBool) {
    for incoming in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(incoming) = incoming else {
            return;
        };
        // A refused connection is closed: the agent sees the endpoint refuse it.
        if let Ok(upstream) = TcpStream::connect((target.host.as_str(), target.port)) {
            splice(upstream, incoming);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    #[test]
    fn a_connection_to_the_socket_reaches_the_endpoint_and_the_directory_goes() {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = server.local_addr().unwrap().port();
        let target = Loopback {
            host: "127.0.0.1".to_owned(),
            port,
        };
        let relay = Relay::start(&[target]).unwrap();
        let [(forwarded, socket)] = relay.sockets() else {
            panic!("{:?}", relay.sockets());
        };
        assert_eq!(*forwarded, port);
        let mut client = UnixStream::connect(socket).unwrap();
        client.write_all(b"hello").unwrap();
        let (mut accepted, _) = server.accept().unwrap();
        let mut got = [0u8; 5];
        accepted.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hello");
        accepted.write_all(b"back").unwrap();
        drop(accepted);
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).unwrap();
        assert_eq!(answer, b"back");
        let dir = relay.dir().to_path_buf();
        drop(relay);
        assert!(!dir.exists());
    }
}
