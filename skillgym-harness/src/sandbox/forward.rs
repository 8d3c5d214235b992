//! The forwarder: the sandbox's first process under `network: loopback` with an endpoint to
//! reach. It is the harness's own executable, run as
//!
//! ```text
//! <exe> --skillgym-sandbox-forward <port>=<socket> [...] -- <program> [<arg>...]
//! ```
//!
//! It listens on `127.0.0.1:<port>` (and `[::1]:<port>` where the namespace has it), starts
//! `<program>` as its child with the same standard streams and environment, joins each
//! connection to a new one on `<socket>` (the harness's relay), and exits as the child did.
//!
//! | exit | when |
//! |---|---|
//! | the child's code, or its signal raised again | the child ran |
//! | 125 | bad arguments, or a port it cannot listen on (said on stderr) |
//! | 126 / 127 | the program cannot be run / is not found (said on stderr) |

use std::ffi::OsString;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use super::splice::splice;

/// The first argument that selects the forwarder.
pub(crate) const FLAG: &str = "--skillgym-sandbox-forward";

/// The forwarder's arguments after the executable, up to and including `--`.
pub(super) fn args(sockets: &[(u16, PathBuf)]) -> Vec<OsString> {
    let mut args = vec![OsString::from(FLAG)];
    for (port, socket) in sockets {
        let mut pair = OsString::from(format!("{port}="));
        pair.push(socket);
        args.push(pair);
    }
    args.push("--".into());
    args
}

/// Whether this process was started as the sandbox's forwarder. It runs inside the agent's
/// sandbox, and its standard output is the agent's: a `main` that does anything before
/// [`Harness::run`](crate::Harness::run) (which runs the forwarder) should skip it then.
pub fn is_forwarder() -> bool {
    std::env::args_os().nth(1).as_deref() == Some(FLAG.as_ref())
}

/// Runs the forwarder when this process was started as one (its first argument is [`FLAG`]),
/// and returns its exit code; `None` for any other process.
pub(crate) fn run_if_invoked() -> Option<ExitCode> {
    if !is_forwarder() {
        return None;
    }
    Some(match parse(std::env::args_os().skip(2)) {
        Ok(invocation) => forward(invocation),
        Err(message) => fail(125, &message),
    })
}

/// What the forwarder was asked to do.
#[derive(Debug, PartialEq, Eq)]
struct Invocation {
    forwards: Vec<(u16, PathBuf)>,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(mut argv: impl Iterator<Item = OsString>) -> Result<Invocation, String> {
    let mut forwards = Vec::new();
    loop {
        let Some(arg) = argv.next() else {
            return Err("no `--` before the program".to_owned());
        };
        if arg == "--" {
            break;
        }
        let text = arg.to_string_lossy();
        let (port, socket) = text
            .split_once('=')
            .and_then(|(port, socket)| Some((port.parse::<u16>().ok()?, socket)))
            .ok_or_else(|| format!("expected <port>=<socket>, found `{text}`"))?;
        forwards.push((port, PathBuf::from(socket)));
    }
    let program = argv.next().ok_or("no program after `--`")?;
    Ok(Invocation {
        forwards,
        program,
        args: argv.collect(),
    })
}

fn forward(invocation: Invocation) -> ExitCode {
    for (port, socket) in &invocation.forwards {
        let listener = match TcpListener::bind(("127.0.0.1", *port)) {
            Ok(listener) => listener,
            Err(error) => return fail(125, &format!("cannot listen on 127.0.0.1:{port}: {error}")),
        };
        spawn_accept(listener, socket.clone());
        // Where `localhost` resolves to `::1` first; a namespace without IPv6 has none.
        if let Ok(listener) = TcpListener::bind(("::1", *port)) {
            spawn_accept(listener, socket.clone());
        }
    }
    let status = match Command::new(&invocation.program)
        .args(&invocation.args)
        .status()
    {
        Ok(status) => status,
        Err(error) => {
            let code = if error.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            let program = invocation.program.to_string_lossy();
            return fail(code, &format!("cannot run `{program}`: {error}"));
        }
    };
    if let Some(signal) = status.signal() {
        // SAFETY: signal(2) and kill(2) on this very process have no memory-safety
        // preconditions; the default action of the child's signal ends this process as it
        // ended the child.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        return ExitCode::from(128u8.saturating_add(u8::try_from(signal).unwrap_or(0)));
    }
    ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(1),
    )
}

/// Accepts on `listener` for the rest of the process's life, joining each connection to a
/// new one on `socket`.
fn spawn_accept(listener: TcpListener, socket: PathBuf) {
    let _ = std::thread::Builder::new()
        .name("skillgym-sandbox-forward".to_owned())
        .spawn(move || {
            for incoming in listener.incoming() {
                match incoming {
                    Ok(incoming) => relay(incoming, &socket),
                    // Out of descriptors, say: a moment for the agent's to close.
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                }
            }
        });
}

fn relay(incoming: TcpStream, socket: &PathBuf) {
    // A relay that cannot be reached closes the connection: the agent sees it refused.
    if let Ok(outgoing) = UnixStream::connect(socket) {
        splice(incoming, outgoing);
    }
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("skillgym sandbox forwarder: {message}");
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_arguments_round_trip() {
        let sockets = [(4312, PathBuf::from("/run/user/0/s/4312.sock"))];
        let mut argv = args(&sockets);
        assert_eq!(argv, os(&[FLAG, "4312=/run/user/0/s/4312.sock", "--"]));
        argv.extend(os(&["claude", "-p", "hi"]));
        let parsed = parse(argv.into_iter().skip(1)).unwrap();
        assert_eq!(
            parsed,
            Invocation {
                forwards: sockets.to_vec(),
                program: "claude".into(),
                args: os(&["-p", "hi"]),
            }
        );
    }

    #[test]
    fn bad_arguments_are_named() {
        assert_eq!(
            parse(os(&["80"]).into_iter()).unwrap_err(),
            "expected <port>=<socket>, found `80`"
        );
        assert_eq!(
            parse(os(&["80=/s"]).into_iter()).unwrap_err(),
            "no `--` before the program"
        );
        assert_eq!(
            parse(os(&["--"]).into_iter()).unwrap_err(),
            "no program after `--`"
        );
    }
}
