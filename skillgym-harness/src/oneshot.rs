//! Short commands run to completion from synchronous code (code graders, suite hooks): each
//! the leader of its own process group, fed a document on stdin, its output collected, killed
//! with its whole group at a timeout, never outliving the call.

use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::interrupt::{RegisteredGroup, Spawning};
use crate::reaper;

/// The most stdout kept; the rest is read and dropped.
const MAX_STDOUT: u64 = 16 << 20;
/// The most stderr kept; the rest is read and dropped.
const MAX_STDERR: u64 = 4 << 20;
/// How long the pipes are still read once the process group is dead.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// What the command did.
#[derive(Debug)]
pub(crate) struct Ran {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    pub(crate) timed_out: bool,
}

/// The process group of a started command: killed on drop unless disarmed (once the leader
/// is reaped its pid may be reused).
struct Group {
    pgid: Option<libc::pid_t>,
}

impl Group {
    fn kill(&self) {
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) has no memory-safety preconditions; `pgid > 1` is the group
            // created for our child (`process_group(0)` makes its pid the group id).
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Why a command did not run to completion.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunError {
    /// The argv is empty.
    #[error("its command is empty")]
    EmptyCommand,
    /// Nothing more may start: the run is exiting at once (a second signal).
    #[error(transparent)]
    Exiting(io::Error),
    /// The program cannot be started.
    #[error("cannot start {program:?} in {}: {source}", cwd.display())]
    Start {
        program: String,
        /// The working directory, absolute.
        cwd: PathBuf,
        source: io::Error,
    },
    /// Waiting for the process failed (it was killed).
    #[error("cannot wait for it: {0}")]
    Wait(#[source] io::Error),
}

/// Runs `argv` (program first; a shell line is `["sh", "-c", line]`) in `cwd` with `env` added,
/// as the leader of a new process group, writes `stdin` to it, and collects its output until it
/// exits or `timeout` elapses. Nothing of it runs on return.
pub(crate) fn run(
    argv: &[String],
    cwd: &Path,
    env: &[(&str, PathBuf)],
    stdin: Vec<u8>,
    timeout: Duration,
) -> Result<Ran, RunError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(RunError::EmptyCommand);
    };
    let tag = reaper::new_tag();
    let mut process = Command::new(program);
    let absolute = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    process
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .env("PWD", &absolute)
        .env(reaper::MARKER, &tag);
    for (name, value) in env {
        process.env(name, value);
    }
    // From here until its group is registered, a second signal waits for this spawn.
    let spawning = Spawning::begin().map_err(RunError::Exiting)?;
    let mut child = process.spawn().map_err(|source| RunError::Start {
        program: program.clone(),
        cwd: absolute.clone(),
        source,
    })?;
    let pid = child.id();
    let mut group = Group {
        pgid: libc::pid_t::try_from(pid).ok().filter(|&pid| pid > 1),
    };
    let registered = RegisteredGroup::new(pid);
    drop(spawning);

    let feeder = child.stdin.take().map(|mut pipe| {
        thread::spawn(move || {
            // A command that does not read its stdin closes the pipe: not an error.
            let _ = pipe.write_all(&stdin);
        })
    });
    let stdout = child.stdout.take().map(|pipe| collect(pipe, MAX_STDOUT));
    let stderr = child.stderr.take().map(|pipe| collect(pipe, MAX_STDERR));

    let (status, timed_out) = wait(&mut child, timeout).map_err(|error| {
        group.kill();
        let _ = child.wait();
        RunError::Wait(error)
    })?;
    // Whatever is left of the group goes too, so that no grandchild holds a pipe open.
    group.kill();
    group.pgid = None;
    drop(registered);
    reaper::end_session(&tag, pid, crate::interrupt::is_registered_group);
    let deadline = Instant::now() + DRAIN_GRACE;
    let stdout = stdout.map(|rx| drained(&rx, deadline)).unwrap_or_default();
    let stderr = stderr.map(|rx| drained(&rx, deadline)).unwrap_or_default();
    drop(feeder);
    Ok(Ran {
        status,
        stdout,
        stderr,
        timed_out,
    })
}

/// Waits for `child` to exit, at most `timeout`; on expiry kills its group, then reaps it.
fn wait(child: &mut Child, timeout: Duration) -> io::Result<(ExitStatus, bool)> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, false));
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout {
            // SAFETY: as in `Group::kill`: the group of our own, not yet reaped, child.
            if let Ok(pgid) = libc::pid_t::try_from(child.id())
                && pgid > 1
            {
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
            return Ok((child.wait()?, true));
        }
        thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Reads `pipe` to its end on a thread, keeping at most `max` bytes.
fn collect(pipe: impl Read + Send + 'static, max: u64) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut pipe = pipe;
        let _ = pipe.by_ref().take(max).read_to_end(&mut kept);
        let _ = io::copy(&mut pipe, &mut io::sink());
        let _ = tx.send(kept);
    });
    rx
}

/// What a reader collected, or nothing if its pipe is still held open at `deadline` (by a
/// descendant out of reach); the reader is then abandoned.
fn drained(rx: &mpsc::Receiver<Vec<u8>>, deadline: Instant) -> Vec<u8> {
    rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .unwrap_or_default()
}
