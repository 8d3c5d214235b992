//! Agent process supervision: run one agent CLI session as a child process, stream its stdout
//! line by line, keep its raw output, and leave nothing of it running once [`run`] returns.
//!
//! [`run`] launches a [`ProcessSpec`] with stdin = `/dev/null`, as the leader of a new process
//! group, in the given working directory and environment, with `PWD` set to that directory (as
//! a shell would: OpenCode, for one, takes its project directory from `$PWD`, not from the
//! process's working directory). Then:
//!
//! - every stdout line is written to the stdout log and handed to a [`LineSink`] as text
//!   (lossy UTF-8, line terminator stripped); lines of any length are streamed, never the whole
//!   output at once;
//! - stderr is copied to the stderr log at the same time; the log is created with the first
//!   byte, so a process that wrote nothing to stderr leaves no empty file;
//! - both logs hold the bytes as received, but for the secrets the harness remembers, masked
//!   as they are written (`[masked:NAME]`; a secret split across reads is still found);
//! - when the timeout elapses, or the sink answers [`LineVerdict::Stop`] (max steps), the whole
//!   process group is killed with `SIGKILL`;
//! - a sink that takes lines in on another thread answers too: before each wait for output
//!   ([`LineSink::poll_stop`], which may wake the wait) and at the end of stdout
//!   ([`LineSink::on_end`]);
//! - when the leader exits on its own, what is left of its group is killed too, so that a
//!   backgrounded grandchild holding the stdout pipe can neither hang the run nor outlive it;
//! - descendants that left the group (`setsid`) are found through the `reaper::MARKER`
//!   variable set on the process and killed as well, where the system allows
//!   (`crate::reaper`);
//! - on an interrupt of the run (`crate::interrupt`) the group is killed and the run ends as
//!   [`Termination::Interrupted`].
//!
//! Both logs are flushed and complete in every case (exit, timeout, stop). A log's directory is
//! created only when it is missing. A log that cannot be written (a full disk) is closed at its
//! first error, which [`ProcessOutcome::log_failures`] reports; the process runs on, its stdout
//! still reaches the sink and its stderr is still drained. [`run`] needs a Tokio
//! runtime with the IO and time drivers enabled (`#[tokio::test]` and `enable_all()` have both).

use std::ffi::OsString;
use std::fs::{self, File};
use std::future::Future;
use std::io::{self, BufWriter};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::time::Instant;

use crate::interrupt::{self, RegisteredGroup};
use crate::io_error::IoError;
use crate::lines::{Line, LineAssembler, strip_terminator, utf8_line};
use crate::log_thread::{LogWriter, Offloading};
use crate::reaper;
use crate::secrets::MaskingWriter;

pub use crate::lines::MAX_LINE;

/// How long the pipes are still drained once the process group is dead. Only a descendant that
/// left the group (`setsid`) can keep a pipe open that long; its output is then abandoned.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Size of the buffers in front of the pipes and the log files.
const IO_BUFFER: usize = 64 * 1024;

/// The capacity asked for an agent's stdout pipe, on Linux ([`widen_pipe`]).
#[cfg(target_os = "linux")]
const PIPE_SIZE: libc::c_int = 1024 * 1024;

/// A log that grows past this is written on a thread of its own ([`Offloading`]), while the
/// output is read and parsed here; a session's usual few kilobytes stay on this thread, where
/// writing costs less than a thread would.
const OFFLOAD_AFTER: u64 = 1024 * 1024;

/// What to launch, where, and where its output goes.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    /// The program, looked up in `PATH` unless it contains a `/`.
    pub program: OsString,
    /// The arguments, without the program name.
    pub args: Vec<OsString>,
    /// Variables set on top of the inherited environment (applied after `env_remove`, so a
    /// variable both removed and set ends up set).
    pub env: Vec<(OsString, OsString)>,
    /// Variables removed from the inherited environment.
    pub env_remove: Vec<OsString>,
    /// The working directory of the process.
    pub cwd: PathBuf,
    /// Receives the stdout bytes as received, secrets masked (parent directories are
    /// created).
    pub stdout_log: PathBuf,
    /// Receives the stderr bytes as received, secrets masked (parent directories are
    /// created); created with the first byte: no file when the process wrote nothing to
    /// stderr.
    pub stderr_log: PathBuf,
    /// Wall-clock limit, counted from the spawn; then the whole process group is killed.
    pub timeout: Duration,
    /// The most stdout bytes the process may print; one more and the whole process group is
    /// killed ([`Termination::OutputLimit`]). `None`: no limit.
    pub max_output: Option<u64>,
}

/// Receives the stdout of a running process, one line at a time, in order.
///
/// A line is handed over without its terminator (`\n` or `\r\n`), decoded as UTF-8 with invalid
/// bytes replaced by U+FFFD (never an error). A final line without terminator is delivered too.
/// Closures `FnMut(&str) -> LineVerdict` are sinks.
pub trait LineSink {
    /// Called for each stdout line; the verdict says whether the process may go on.
    fn on_line(&mut self, line: &str) -> LineVerdict;

    /// Called instead of [`on_line`](Self::on_line) for a line longer than [`MAX_LINE`] bytes
    /// (`number` is its 1-based position among the lines, `length` its size with its
    /// terminator); the line itself is in the stdout log only. Ignored by default.
    fn on_overlong_line(&mut self, number: u64, length: u64) -> LineVerdict {
        let _ = (number, length);
        LineVerdict::Continue
    }

    /// Called when every line read so far was handed over and the process has printed nothing
    /// more yet, before waiting for it. A sink that takes lines in elsewhere (on a thread)
    /// hands over what it holds here, and answers a stop it decided meanwhile with `Ready`,
    /// or wakes `cx` once it decides one. `Pending` by default: a sink that answers in
    /// [`on_line`](Self::on_line) has nothing more to say.
    fn poll_stop(&mut self, cx: &mut Context<'_>) -> Poll<String> {
        let _ = cx;
        Poll::Pending
    }

    /// Called once when stdout is read no more: at its end, after its last line, or when the
    /// grace for draining it after the process ended ran out (not when the sink said stop or
    /// the output went over its limit before). A sink that takes lines in elsewhere finishes
    /// with them here and answers its last verdict. `Continue` by default.
    fn on_end(&mut self) -> LineVerdict {
        LineVerdict::Continue
    }
}

impl<F: FnMut(&str) -> LineVerdict> LineSink for F {
    fn on_line(&mut self, line: &str) -> LineVerdict {
        self(line)
    }
}

/// A [`LineSink`]'s answer to one line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineVerdict {
    /// Keep going.
    Continue,
    /// Kill the process group now (e.g. max steps exceeded). No further line is delivered; the
    /// rest of the output still goes to the stdout log.
    Stop {
        /// Why, for the report.
        reason: String,
    },
}

/// Why the session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Termination {
    /// The process ended on its own: it exited, or died of a signal we did not send.
    Exited,
    /// The timeout elapsed and the process group was killed.
    TimedOut,
    /// The sink answered [`LineVerdict::Stop`]; the process group was killed if still running.
    Stopped {
        /// The reason given by the sink.
        reason: String,
    },
    /// The run was interrupted by a signal and the process group was killed.
    Interrupted,
    /// The process printed more than [`ProcessSpec::max_output`] bytes and its process group
    /// was killed.
    OutputLimit {
        /// The limit, in bytes.
        limit: u64,
    },
}

/// What happened to one process run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProcessOutcome {
    /// Process id of the leader, which is also the id of its process group.
    pub pid: u32,
    /// Exit code, when the process exited normally.
    pub exit_code: Option<i32>,
    /// The signal that terminated the process, if any (`9` after a timeout or stop).
    pub signal: Option<i32>,
    /// Why it ended.
    pub termination: Termination,
    /// Wall-clock time of the spawn.
    pub started_at: SystemTime,
    /// Wall-clock time when the process was reaped and its output drained.
    pub ended_at: SystemTime,
    /// Monotonic time from spawn to end.
    pub duration: Duration,
    /// Raw stdout bytes received (all written to the stdout log).
    pub stdout_bytes: u64,
    /// Stdout lines received, a final unterminated one included.
    pub stdout_lines: u64,
    /// The logs that could not be written in full, each with its first error.
    pub log_failures: Vec<LogFailure>,
}

/// A log that could not be written in full (e.g. the disk is full): it holds what was written
/// before the error, and nothing after; the process ran on and its stdout still reached the
/// sink.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LogFailure {
    /// The log file.
    pub path: PathBuf,
    /// The first error, after which the log was closed.
    pub error: Arc<io::Error>,
}

/// Runs `spec` to completion, streaming its stdout lines to `sink`.
///
/// Returns once the process is reaped, the rest of its process group killed, and both logs
/// flushed. Errors: the stdout log cannot be created (the program is not started then), the
/// program cannot be started (the message names the program and the working directory), or a
/// pipe read fails; the process group is killed in every error case too. A log that cannot be
/// written is no error: it is in [`ProcessOutcome::log_failures`]. Draining the pipes may
/// outlast the timeout by at most two seconds.
///
/// The steps: start (logs, spawn), supervise (until exit, timeout, stop or output limit), kill
/// the group and reap the leader, drain the pipes, and say why it ended.
pub async fn run(spec: &ProcessSpec, sink: &mut dyn LineSink) -> io::Result<ProcessOutcome> {
    let tag = reaper::new_tag();
    let mut started = start(spec, &tag)?;
    let (child, out, group) = (&mut started.child, &mut started.out, &mut started.group);
    let mut seen = Seen::default();
    let status = {
        let stderr_copy = started.err.copy();
        tokio::pin!(stderr_copy);
        let stderr = stderr_copy.as_mut();
        supervise(child, out, sink, stderr, started.deadline, &mut seen).await?;
        // Whatever the cause, nothing of the group may survive; then reap the leader.
        group.kill();
        let status = match seen.exited {
            Some(status) => status,
            None => child.wait().await?,
        };
        group.disarm();
        reaper::end_session(&tag, started.pid, interrupt::is_registered_group);
        drain(out, sink, stderr_copy, &mut seen).await?;
        status
    };
    let (stdout_bytes, stdout_lines, stdout_failure) = started.out.finish();
    let stderr_failure = started.err.finish();
    seen.stderr_done.take().unwrap_or(Ok(()))?;

    Ok(ProcessOutcome {
        pid: started.pid,
        exit_code: status.code(),
        signal: status.signal(),
        termination: termination(status, seen, spec.max_output),
        started_at: started.started_at,
        ended_at: SystemTime::now(),
        duration: started.start.elapsed(),
        stdout_bytes,
        stdout_lines,
        log_failures: stdout_failure.into_iter().chain(stderr_failure).collect(),
    })
}

/// A process just started by [`start`], with its pipes taken over.
struct Started {
    child: Child,
    pid: u32,
    group: GroupGuard,
    out: StdoutPump,
    err: StderrPump,
    /// Wall-clock and monotonic time of the spawn.
    started_at: SystemTime,
    start: Instant,
    /// When the timeout elapses.
    deadline: Instant,
}

/// Creates the stdout log and spawns `spec` (see [`command`]), its group guarded from then on.
fn start(spec: &ProcessSpec, tag: &str) -> io::Result<Started> {
    let stdout_log = create_log(&spec.stdout_log)?;
    let mut command = command(spec, tag)?;

    // From here until its group is registered, a second signal waits for this spawn.
    let spawning = interrupt::Spawning::begin()?;
    let started_at = SystemTime::now();
    let start = Instant::now();
    let mut child = command.spawn().map_err(|e| spawn_error(spec, e))?;
    let pid = child.id().unwrap_or(0);
    let group = GroupGuard::new(pid);
    drop(spawning);
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(io::Error::other(
            "agent process started without its stdout/stderr pipes",
        ));
    };
    Ok(Started {
        child,
        pid,
        group,
        out: StdoutPump::new(
            stdout,
            Log::created(&spec.stdout_log, stdout_log),
            spec.max_output,
        ),
        err: StderrPump::new(stderr, Log::on_first_byte(&spec.stderr_log)),
        started_at,
        start,
        deadline: start
            .checked_add(spec.timeout)
            .unwrap_or_else(|| start + Duration::from_secs(100 * 365 * 24 * 3600)),
    })
}

/// The command line of `spec`: stdin from `/dev/null`, stdout and stderr piped, the leader of
/// a new process group, `PWD` set to its (absolute) working directory, and the reaper's marker
/// `tag`.
fn command(spec: &ProcessSpec, tag: &str) -> io::Result<Command> {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    for name in &spec.env_remove {
        command.env_remove(name);
    }
    let cwd = if spec.cwd.is_absolute() {
        spec.cwd.clone()
    } else {
        std::env::current_dir()?.join(&spec.cwd)
    };
    command.env("PWD", cwd);
    command.envs(spec.env.iter().map(|(name, value)| (name, value)));
    command.env(reaper::MARKER, tag);
    Ok(command)
}

/// What [`supervise`] and [`drain`] saw of a process.
#[derive(Default)]
struct Seen {
    /// The leader's status, when it exited before anything else happened.
    exited: Option<ExitStatus>,
    /// The sink's reason to stop.
    stop: Option<String>,
    timed_out: bool,
    over_limit: bool,
    stdout_done: bool,
    /// How copying stderr ended, once it did.
    stderr_done: Option<io::Result<()>>,
}

/// Streams stdout to the sink and copies stderr until the leader exits, the `deadline`
/// passes, the sink says stop, or the output goes over the limit.
async fn supervise(
    child: &mut Child,
    out: &mut StdoutPump,
    sink: &mut dyn LineSink,
    mut stderr_copy: Pin<&mut impl Future<Output = io::Result<()>>>,
    deadline: Instant,
    seen: &mut Seen,
) -> io::Result<()> {
    let wait = child.wait();
    tokio::pin!(wait);
    let timer = tokio::time::sleep_until(deadline);
    tokio::pin!(timer);
    loop {
        tokio::select! {
            read = out.pump(Some(&mut *sink)), if !seen.stdout_done => match read? {
                Pumped::Eof => seen.stdout_done = true,
                Pumped::Stopped(reason) => {
                    seen.stop = Some(reason);
                    return Ok(());
                }
                Pumped::OverLimit => {
                    seen.over_limit = true;
                    return Ok(());
                }
            },
            copied = &mut stderr_copy, if seen.stderr_done.is_none() => {
                seen.stderr_done = Some(copied);
            }
            status = &mut wait => {
                seen.exited = Some(status?);
                return Ok(());
            }
            () = &mut timer => {
                seen.timed_out = true;
                return Ok(());
            }
        }
    }
}

/// Once the group is dead, reads what is left in the pipes for at most [`DRAIN_GRACE`]:
/// every writer is dead unless it left the group. When the grace ends before stdout did, a
/// sink still listening hears the end there ([`LineSink::on_end`]).
async fn drain(
    out: &mut StdoutPump,
    sink: &mut dyn LineSink,
    mut stderr_copy: Pin<&mut impl Future<Output = io::Result<()>>>,
    seen: &mut Seen,
) -> io::Result<()> {
    let Seen {
        stop,
        over_limit,
        stdout_done,
        stderr_done,
        ..
    } = seen;
    let stdout_drain = drain_stdout(out, sink, stop, over_limit, stdout_done);
    let stderr_drain = async {
        if stderr_done.is_none() {
            *stderr_done = Some((&mut stderr_copy).await);
        }
    };
    let drained = tokio::time::timeout(DRAIN_GRACE, async {
        let (stdout_result, ()) = tokio::join!(stdout_drain, stderr_drain);
        stdout_result
    })
    .await;
    match drained {
        Ok(stdout_result) => stdout_result,
        Err(_elapsed) => {
            if stop.is_none()
                && !*over_limit
                && !*stdout_done
                && let LineVerdict::Stop { reason } = sink.on_end()
            {
                *stop = Some(reason);
            }
            Ok(())
        }
    }
}

/// Reads stdout to its end: into the sink until it said stop or the output went over the
/// limit, then into the log only.
async fn drain_stdout(
    out: &mut StdoutPump,
    sink: &mut dyn LineSink,
    stop: &mut Option<String>,
    over_limit: &mut bool,
    stdout_done: &mut bool,
) -> io::Result<()> {
    while !*stdout_done {
        let receiver: Option<&mut dyn LineSink> = if stop.is_none() && !*over_limit {
            Some(&mut *sink)
        } else {
            None
        };
        match out.pump(receiver).await? {
            Pumped::Eof => *stdout_done = true,
            Pumped::Stopped(reason) => *stop = Some(reason),
            // What the dead group left in the pipe is still logged; nothing more is read into
            // the report.
            Pumped::OverLimit => *over_limit = true,
        }
    }
    Ok(())
}

/// Why the process ended: the timeout, the output limit and the sink's stop come first (their
/// `SIGKILL` is ours); a `SIGKILL` during an interrupt of the run is the interrupt's.
fn termination(status: ExitStatus, seen: Seen, max_output: Option<u64>) -> Termination {
    let killed_by_us = status.signal() == Some(libc::SIGKILL);
    if seen.timed_out {
        Termination::TimedOut
    } else if let (true, Some(limit)) = (seen.over_limit, max_output) {
        Termination::OutputLimit { limit }
    } else if let Some(reason) = seen.stop {
        Termination::Stopped { reason }
    } else if killed_by_us && interrupt::received().is_some() {
        Termination::Interrupted
    } else {
        Termination::Exited
    }
}

/// How a [`StdoutPump::pump`] call ended.
enum Pumped {
    /// End of stdout.
    Eof,
    /// The sink answered stop (after the line was logged).
    Stopped(String),
    /// More than the output limit was read (and logged).
    OverLimit,
}

/// Reads stdout in chunks, logs every byte, and hands each complete line to the sink.
struct StdoutPump {
    reader: BufReader<ChildStdout>,
    log: Log,
    /// The line being read. Kept across cancelled `pump` futures.
    line: LineAssembler,
    bytes: u64,
    lines: u64,
    max_output: Option<u64>,
}

impl StdoutPump {
    fn new(stdout: ChildStdout, log: Log, max_output: Option<u64>) -> Self {
        Self {
            reader: BufReader::with_capacity(IO_BUFFER, stdout),
            log,
            line: LineAssembler::default(),
            bytes: 0,
            lines: 0,
            max_output,
        }
    }

    /// Streams lines until end of file, a stop verdict, or the output limit. Without a sink,
    /// lines are only logged. Cancel safe: a partly read line stays in `self`.
    async fn pump(&mut self, mut sink: Option<&mut dyn LineSink>) -> io::Result<Pumped> {
        loop {
            // Before waiting for the agent, the sink may hand over what it holds, or stop.
            let stopped =
                std::future::poll_fn(|cx| match Pin::new(&mut self.reader).poll_fill_buf(cx) {
                    Poll::Ready(read) => Poll::Ready(read.map(|_| None)),
                    Poll::Pending => match sink.as_deref_mut() {
                        Some(sink) => sink.poll_stop(cx).map(|reason| Ok(Some(reason))),
                        None => Poll::Pending,
                    },
                })
                .await?;
            if let Some(reason) = stopped {
                return Ok(Pumped::Stopped(reason));
            }
            let available = self.reader.buffer();
            if available.is_empty() {
                // A last line without terminator is a line too; then the sink hears the end.
                let mut verdict = if self.line.is_pending() {
                    self.deliver(&mut sink)
                } else {
                    LineVerdict::Continue
                };
                if let (LineVerdict::Continue, Some(sink)) = (&verdict, sink.as_deref_mut()) {
                    verdict = sink.on_end();
                }
                return Ok(match verdict {
                    LineVerdict::Stop { reason } => Pumped::Stopped(reason),
                    LineVerdict::Continue => Pumped::Eof,
                });
            }
            // A line whole in the buffer is handed over from there (the usual case: it is
            // copied nowhere); the start of a longer one is kept until its end arrives.
            let whole = (!self.line.is_pending())
                .then(|| memchr::memchr(b'\n', available))
                .flatten();
            let (length, verdict) = match whole {
                Some(end) => {
                    let line = &available[..=end];
                    self.log.write(line);
                    self.lines += 1;
                    let verdict = match sink.as_deref_mut() {
                        Some(sink) => sink.on_line(&utf8_line(strip_terminator(line))),
                        None => LineVerdict::Continue,
                    };
                    (line.len(), verdict)
                }
                None => {
                    let (length, terminated) = self.line.push(available);
                    self.log.write(&available[..length]);
                    let verdict = match terminated {
                        true => self.deliver(&mut sink),
                        false => LineVerdict::Continue,
                    };
                    (length, verdict)
                }
            };
            self.reader.consume(length);
            if self.bytes <= OFFLOAD_AFTER && self.bytes + length as u64 > OFFLOAD_AFTER {
                widen_pipe(self.reader.get_ref());
            }
            self.bytes += length as u64;
            if let LineVerdict::Stop { reason } = verdict {
                return Ok(Pumped::Stopped(reason));
            }
            if self.max_output.is_some_and(|limit| self.bytes > limit) {
                return Ok(Pumped::OverLimit);
            }
        }
    }

    /// Hands the line read (or the length of an overlong one) to the sink, then clears it.
    fn deliver(&mut self, sink: &mut Option<&mut dyn LineSink>) -> LineVerdict {
        self.lines += 1;
        let verdict = match (sink.as_deref_mut(), self.line.take()) {
            (Some(sink), Line::Overlong(length)) => sink.on_overlong_line(self.lines, length),
            (Some(sink), Line::Text(bytes)) => sink.on_line(&utf8_line(bytes)),
            (None, _) => LineVerdict::Continue,
        };
        self.line.clear();
        verdict
    }

    /// Flushes the log; returns (bytes, lines, how the log failed).
    fn finish(self) -> (u64, u64, Option<LogFailure>) {
        (self.bytes, self.lines, self.log.finish())
    }
}

/// Copies stderr to its log, which is created with the first byte.
struct StderrPump {
    pipe: ChildStderr,
    log: Log,
}

impl StderrPump {
    fn new(pipe: ChildStderr, log: Log) -> Self {
        Self { pipe, log }
    }

    /// Copies until end of file. Cancel safe (nothing read is lost).
    async fn copy(&mut self) -> io::Result<()> {
        // Read into the spare capacity: most agents write nothing to stderr, and zeroing a
        // buffer that only ever sees end of file is wasted.
        let mut chunk = Vec::with_capacity(IO_BUFFER);
        loop {
            chunk.clear();
            match self.pipe.read_buf(&mut chunk).await {
                Ok(0) => return Ok(()),
                Ok(_) => self.log.write(&chunk),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn finish(self) -> Option<LogFailure> {
        self.log.finish()
    }
}

/// A log file that keeps what it can: at its first error (a full disk) it is closed and the
/// error kept, and later writes are dropped, so that the output can still be read to its end.
struct Log {
    path: PathBuf,
    /// `None` until the first byte for a log created with it, and after a failure.
    writer: Option<Offloading>,
    failure: Option<io::Error>,
}

impl Log {
    /// A log already created.
    fn created(path: &Path, file: LogWriter) -> Self {
        Self {
            path: path.to_path_buf(),
            writer: Some(Offloading::new(file, OFFLOAD_AFTER)),
            failure: None,
        }
    }

    /// A log created with its first byte: none when nothing is written.
    fn on_first_byte(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            writer: None,
            failure: None,
        }
    }

    /// Appends `bytes`, unless the log failed before.
    fn write(&mut self, bytes: &[u8]) {
        if self.failure.is_some() {
            return;
        }
        let writer = match &mut self.writer {
            Some(writer) => writer,
            None => match create_log(&self.path) {
                Ok(file) => self.writer.insert(Offloading::new(file, OFFLOAD_AFTER)),
                Err(error) => {
                    self.failure = Some(file_cause(error));
                    return;
                }
            },
        };
        if let Err(error) = writer.write_bytes(bytes) {
            // Closed at once: what its buffer still holds is dropped.
            if let Some(writer) = self.writer.take() {
                writer.into_failed();
            }
            self.failure = Some(error);
        }
    }

    /// Flushes the log; how it failed, if it did.
    fn finish(mut self) -> Option<LogFailure> {
        if let Some(Err(error)) = self.writer.take().map(Offloading::finish) {
            self.failure = Some(error);
        }
        let path = self.path;
        self.failure.map(|error| LogFailure {
            path,
            error: Arc::new(error),
        })
    }
}

/// Linux: stdout's pipe holds up to [`PIPE_SIZE`] instead of 64 KiB once the output passed
/// [`OFFLOAD_AFTER`], so that an agent writing a long stream waits less often for it to be read.
/// Only long streams get it: the pages a user's pipes may hold are limited (past
/// `/proc/sys/fs/pipe-user-pages-soft` new pipes get two pages). A pipe that cannot grow stays
/// as it is.
#[cfg(target_os = "linux")]
fn widen_pipe(stdout: &ChildStdout) {
    use std::os::fd::AsRawFd;
    // SAFETY: F_SETPIPE_SZ on a pipe this process owns only changes that pipe's capacity.
    unsafe {
        libc::fcntl(stdout.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_SIZE);
    }
}

/// Elsewhere pipes keep the system's size.
#[cfg(not(target_os = "linux"))]
fn widen_pipe(_stdout: &ChildStdout) {}

/// Kills the child's process group on request, and on drop unless disarmed (error paths,
/// cancelled `run` futures); keeps the group registered for an interrupt of the run meanwhile.
struct GroupGuard {
    pgid: Option<libc::pid_t>,
    registered: Option<RegisteredGroup>,
}

impl GroupGuard {
    fn new(pid: u32) -> Self {
        // Never 0 or 1: kill(0, ..) and kill(-1, ..) would hit our own group or everything.
        let pgid = libc::pid_t::try_from(pid).ok().filter(|&pid| pid > 1);
        Self {
            pgid,
            registered: Some(RegisteredGroup::new(pid)),
        }
    }

    /// Sends SIGKILL to the whole group; a group already gone (ESRCH) is fine.
    fn kill(&self) {
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) has no memory-safety preconditions; `pgid > 1` is the group
            // created for our child (`process_group(0)` makes its pid the group id).
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }

    /// Once the leader is reaped its pid may be reused: never signal the group again.
    fn disarm(&mut self) {
        self.pgid = None;
        self.registered = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// For a log file that cannot be created, the OS error alone (whoever reports the failure names
/// the file); a directory that cannot be created stays named.
fn file_cause(error: io::Error) -> io::Error {
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<IoError>())
    {
        Some(IoError::CreateLogFile { source, .. }) => source.raw_os_error().map_or_else(
            || io::Error::new(source.kind(), source.to_string()),
            io::Error::from_raw_os_error,
        ),
        _ => error,
    }
}

/// Creates (truncates) a log file, masking the secrets remembered now; its parent directories
/// only when they are missing.
fn create_log(path: &Path) -> io::Result<LogWriter> {
    let file = match File::create(path) {
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            if let Some(parent) = path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
            {
                fs::create_dir_all(parent).map_err(|source| IoError::CreateLogDir {
                    path: parent.to_path_buf(),
                    source,
                })?;
            }
            File::create(path)
        }
        created => created,
    }
    .map_err(|source| IoError::CreateLogFile {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(BufWriter::with_capacity(
        IO_BUFFER,
        MaskingWriter::new(file),
    ))
}

fn spawn_error(spec: &ProcessSpec, source: io::Error) -> io::Error {
    IoError::Spawn {
        program: PathBuf::from(&spec.program),
        cwd: spec.cwd.clone(),
        source,
    }
    .into()
}

/// The program's path: as given when it holds a `/`, else the first executable on `PATH`.
pub fn find_program(program: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |path: &Path| {
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if program.as_os_str().to_string_lossy().contains('/') {
        return executable(program).then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch directory, removed on drop.
    struct Scratch(tempfile::TempDir);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = tempfile::Builder::new()
                .prefix(&format!("skillgym-process-{name}-"))
                .tempdir()
                .expect("scratch dir");
            Self(dir)
        }

        fn path(&self) -> &Path {
            self.0.path()
        }

        fn spec(&self, script: &str, timeout: Duration) -> ProcessSpec {
            ProcessSpec {
                program: "/bin/sh".into(),
                args: vec!["-c".into(), script.into()],
                env: Vec::new(),
                env_remove: Vec::new(),
                cwd: self.path().to_path_buf(),
                stdout_log: self.path().join("logs/stdout.log"),
                stderr_log: self.path().join("logs/stderr.log"),
                timeout,
                max_output: None,
            }
        }
    }

    /// Runs `spec`, collecting every line.
    async fn collect(spec: &ProcessSpec) -> (ProcessOutcome, Vec<String>) {
        let mut lines = Vec::new();
        let mut sink = |line: &str| {
            lines.push(line.to_owned());
            LineVerdict::Continue
        };
        let outcome = run(spec, &mut sink).await.expect("run");
        (outcome, lines)
    }

    /// Dead means gone, or a zombie waiting for init to reap it (init here reaps lazily).
    fn is_dead(pid: libc::pid_t) -> bool {
        // SAFETY: signal 0 only checks for existence.
        if unsafe { libc::kill(pid, 0) } == -1 {
            return io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        }
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
        state.is_none_or(|rest| rest.starts_with('Z') || rest.starts_with('X'))
    }

    async fn eventually_dead(pid: libc::pid_t) -> bool {
        for _ in 0..50 {
            if is_dead(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    const LONG: Duration = Duration::from_secs(20);

    #[tokio::test]
    async fn lines_are_streamed_in_order_with_terminators_stripped() {
        let scratch = Scratch::new("lines");
        let spec = scratch.spec(r"printf 'one\ntwo\r\n\nthree'", LONG);
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(lines, ["one", "two", "", "three"]);
        assert_eq!(outcome.termination, Termination::Exited);
        assert_eq!(outcome.exit_code, Some(0));
        assert_eq!(outcome.signal, None);
        assert_eq!(outcome.stdout_lines, 4);
        assert_eq!(outcome.stdout_bytes, 15);
        let raw = fs::read(&spec.stdout_log).expect("stdout log");
        assert_eq!(raw, b"one\ntwo\r\n\nthree");
        assert!(outcome.ended_at >= outcome.started_at);
    }

    #[tokio::test]
    async fn invalid_utf8_is_replaced_and_kept_raw_in_the_log() {
        let scratch = Scratch::new("utf8");
        let spec = scratch.spec(r"printf 'a\377b\n\303\251\n'", LONG);
        let (_, lines) = collect(&spec).await;
        assert_eq!(lines, ["a\u{FFFD}b", "é"]);
        let raw = fs::read(&spec.stdout_log).expect("stdout log");
        assert_eq!(raw, b"a\xffb\n\xc3\xa9\n");
    }

    #[tokio::test]
    async fn stderr_is_copied_raw_to_its_log() {
        let scratch = Scratch::new("stderr");
        let spec = scratch.spec(r"printf 'warn\377\n' >&2; echo out", LONG);
        let (_, lines) = collect(&spec).await;
        assert_eq!(lines, ["out"]);
        assert_eq!(
            fs::read(&spec.stderr_log).expect("stderr log"),
            b"warn\xff\n"
        );
    }

    #[tokio::test]
    async fn a_process_silent_on_stderr_leaves_no_stderr_log() {
        let scratch = Scratch::new("quiet");
        let spec = scratch.spec("echo out", LONG);
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(
            (outcome.exit_code, lines),
            (Some(0), vec!["out".to_owned()])
        );
        assert!(spec.stdout_log.is_file());
        assert!(
            !spec.stderr_log.exists(),
            "an empty stderr log carries nothing"
        );
    }

    #[tokio::test]
    async fn environment_overlay_removal_and_cwd_are_applied() {
        let scratch = Scratch::new("env");
        let mut spec = scratch.spec(r#"env; echo "cwd=$(pwd -P)""#, LONG);
        spec.env
            .push(("SKILLGYM_PROCESS_TEST".into(), "overlay value".into()));
        spec.env_remove.push("PATH".into());
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(outcome.exit_code, Some(0));
        assert!(
            lines
                .iter()
                .any(|l| l == "SKILLGYM_PROCESS_TEST=overlay value"),
            "{lines:?}"
        );
        assert!(!lines.iter().any(|l| l.starts_with("PATH=")), "{lines:?}");
        let cwd = fs::canonicalize(scratch.path()).expect("canonical cwd");
        assert!(
            lines.contains(&format!("cwd={}", cwd.display())),
            "{lines:?}"
        );
    }

    #[tokio::test]
    async fn stdin_is_dev_null() {
        let scratch = Scratch::new("stdin");
        let spec = scratch.spec("cat; echo done", LONG);
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(lines, ["done"]);
        assert_eq!(outcome.termination, Termination::Exited);
        assert!(outcome.duration < Duration::from_secs(10));
    }

    #[tokio::test]
    async fn exit_code_is_recorded() {
        let scratch = Scratch::new("exit");
        let (outcome, _) = collect(&scratch.spec("exit 5", LONG)).await;
        assert_eq!((outcome.exit_code, outcome.signal), (Some(5), None));
        assert_eq!(outcome.termination, Termination::Exited);
    }

    #[tokio::test]
    async fn terminating_signal_is_recorded() {
        let scratch = Scratch::new("signal");
        let (outcome, _) = collect(&scratch.spec("kill -TERM $$", LONG)).await;
        assert_eq!(
            (outcome.exit_code, outcome.signal),
            (None, Some(libc::SIGTERM))
        );
        assert_eq!(outcome.termination, Termination::Exited);
    }

    #[tokio::test]
    async fn stop_verdict_kills_the_process_group() {
        let scratch = Scratch::new("stop");
        let spec = scratch.spec("sleep 30 & echo $!; echo two; echo three; sleep 30", LONG);
        let mut seen = Vec::new();
        let mut sink = |line: &str| {
            seen.push(line.to_owned());
            if line == "two" {
                LineVerdict::Stop {
                    reason: "enough".into(),
                }
            } else {
                LineVerdict::Continue
            }
        };
        let outcome = run(&spec, &mut sink).await.expect("run");
        assert_eq!(
            outcome.termination,
            Termination::Stopped {
                reason: "enough".into()
            }
        );
        assert_eq!(outcome.signal, Some(libc::SIGKILL));
        assert!(outcome.duration < Duration::from_secs(10));
        assert_eq!(seen.len(), 2, "nothing is delivered after stop: {seen:?}");
        let background: libc::pid_t = seen[0].parse().expect("pid");
        assert!(
            eventually_dead(background).await,
            "background sleep {background} survived"
        );
    }

    #[tokio::test]
    async fn stop_on_output_left_after_exit_is_still_a_stop() {
        let scratch = Scratch::new("stop-after-exit");
        let spec = scratch.spec(r"printf 'a\nb\nc\n'", LONG);
        let mut sink = |line: &str| match line {
            "b" => LineVerdict::Stop { reason: "b".into() },
            _ => LineVerdict::Continue,
        };
        let outcome = run(&spec, &mut sink).await.expect("run");
        assert_eq!(
            outcome.termination,
            Termination::Stopped { reason: "b".into() }
        );
        assert_eq!(outcome.stdout_lines, 3, "the rest is still logged");
        assert_eq!(fs::read(&spec.stdout_log).expect("log"), b"a\nb\nc\n");
    }

    #[tokio::test]
    async fn timeout_kills_the_process_group_and_keeps_the_logs() {
        let scratch = Scratch::new("timeout");
        let spec = scratch.spec(
            "sleep 30 & echo $!; echo partial >&2; printf 'no newline'; wait",
            Duration::from_millis(500),
        );
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(outcome.termination, Termination::TimedOut);
        assert_eq!(
            (outcome.exit_code, outcome.signal),
            (None, Some(libc::SIGKILL))
        );
        assert!(
            outcome.duration < Duration::from_secs(10),
            "{:?}",
            outcome.duration
        );
        assert_eq!(lines.get(1).map(String::as_str), Some("no newline"));
        let background: libc::pid_t = lines[0].parse().expect("pid");
        assert!(
            eventually_dead(background).await,
            "background sleep {background} survived"
        );
        let raw = fs::read_to_string(&spec.stdout_log).expect("stdout log");
        assert!(raw.ends_with("\nno newline"), "{raw:?}");
        assert_eq!(
            fs::read(&spec.stderr_log).expect("stderr log"),
            b"partial\n"
        );
    }

    #[tokio::test]
    async fn leader_exit_kills_a_backgrounded_pipe_holder() {
        let scratch = Scratch::new("straggler");
        let spec = scratch.spec("sleep 30 & echo $!; exit 0", LONG);
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(outcome.termination, Termination::Exited);
        assert_eq!(outcome.exit_code, Some(0));
        assert!(
            outcome.duration < Duration::from_secs(10),
            "{:?}",
            outcome.duration
        );
        let background: libc::pid_t = lines[0].parse().expect("pid");
        assert!(
            eventually_dead(background).await,
            "background sleep {background} survived"
        );
    }

    #[tokio::test]
    async fn a_descendant_that_left_the_group_cannot_hang_the_run() {
        let scratch = Scratch::new("escapee");
        let spec = scratch.spec(
            "setsid sh -c 'echo $$; exec sleep 30' & sleep 0.3; echo leader done",
            LONG,
        );
        let (outcome, lines) = collect(&spec).await;
        let escapee: Option<libc::pid_t> = lines.iter().find_map(|line| line.parse().ok());
        if let Some(pid) = escapee {
            // SAFETY: plain kill(2) of the sleep this test started (it left our reach on purpose).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        assert!(escapee.is_some(), "{lines:?}");
        assert!(lines.iter().any(|line| line == "leader done"), "{lines:?}");
        assert_eq!(outcome.termination, Termination::Exited);
        assert_eq!(outcome.exit_code, Some(0));
        assert!(
            outcome.duration < DRAIN_GRACE + Duration::from_secs(5),
            "{:?}",
            outcome.duration
        );
    }

    #[tokio::test]
    async fn spawn_failure_names_the_program_and_the_cwd() {
        let scratch = Scratch::new("spawn");
        let mut spec = scratch.spec("", LONG);
        spec.program = "/nonexistent/skillgym-agent".into();
        let mut sink = |_: &str| LineVerdict::Continue;
        let err = run(&spec, &mut sink).await.expect_err("must fail");
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let message = err.to_string();
        assert!(message.contains("/nonexistent/skillgym-agent"), "{message}");
        assert!(
            message.contains(&scratch.path().display().to_string()),
            "{message}"
        );
    }

    // `/dev/full` takes every open and fails every write with ENOSPC: a disk that is full.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_full_disk_closes_the_logs_but_the_output_still_reaches_the_sink() {
        let scratch = Scratch::new("full");
        // More than a pipe holds on stderr: a stderr copy that stopped reading would hang it.
        let mut spec = scratch.spec("echo first; head -c 300000 /dev/zero >&2; echo last", LONG);
        spec.stdout_log = "/dev/full".into();
        spec.stderr_log = "/dev/full".into();
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(lines, ["first", "last"], "every line reached the sink");
        assert_eq!(
            (outcome.termination, outcome.exit_code),
            (Termination::Exited, Some(0)),
            "the agent ran to its end"
        );
        assert_eq!(outcome.stdout_bytes, 11);
        assert_eq!(outcome.log_failures.len(), 2, "{:?}", outcome.log_failures);
        for failure in &outcome.log_failures {
            assert_eq!(failure.path, Path::new("/dev/full"));
            assert_eq!(failure.error.kind(), io::ErrorKind::StorageFull);
        }
    }

    /// On Linux the stdout pipe of an agent whose output grew long holds 1 MiB: the rest of a
    /// long stream is written in fewer waits.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_stdout_pipe_is_widened_on_linux() {
        use std::os::fd::AsRawFd;
        let mut child = Command::new("true").stdout(Stdio::piped()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        // SAFETY: F_GETPIPE_SZ only reads the capacity of a pipe this process owns.
        let before = unsafe { libc::fcntl(stdout.as_raw_fd(), libc::F_GETPIPE_SZ) };
        widen_pipe(&stdout);
        // SAFETY: as above.
        let after = unsafe { libc::fcntl(stdout.as_raw_fd(), libc::F_GETPIPE_SZ) };
        assert!(before < PIPE_SIZE, "{before}");
        assert_eq!(after, PIPE_SIZE);
        child.wait().await.unwrap();
    }

    /// Past `OFFLOAD_AFTER` a log is written on a thread of its own: every byte still arrives
    /// in order, on stdout (read line by line) as on stderr (copied).
    #[tokio::test]
    async fn a_large_output_is_logged_whole_and_in_order() {
        let scratch = Scratch::new("large");
        let spec = scratch.spec("seq 1 400000; seq 1 300000 >&2", LONG);
        let (outcome, lines) = collect(&spec).await;
        let expected: Vec<String> = (1..=400_000).map(|n| n.to_string()).collect();
        assert_eq!(lines, expected);
        let mut text = expected.join("\n");
        text.push('\n');
        assert!(text.len() as u64 > 2 * OFFLOAD_AFTER, "{}", text.len());
        assert_eq!(fs::read_to_string(&spec.stdout_log).unwrap(), text);
        assert_eq!(outcome.stdout_bytes, text.len() as u64);
        let stderr = fs::read_to_string(&spec.stderr_log).unwrap();
        assert_eq!(stderr.lines().count(), 300_000);
        assert!(stderr.starts_with("1\n2\n") && stderr.ends_with("\n300000\n"));
        assert!(
            outcome.log_failures.is_empty(),
            "{:?}",
            outcome.log_failures
        );
    }

    /// A large output on a full disk: the failure is reported once, and the output still
    /// reaches the sink whole (a failure on the log's own thread: `log_thread`'s tests).
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_full_disk_after_a_large_output_is_reported_and_stops_nothing() {
        let scratch = Scratch::new("large-full");
        let mut spec = scratch.spec("seq 1 400000", LONG);
        spec.stdout_log = "/dev/full".into();
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(lines.len(), 400_000);
        assert_eq!(lines.last().map(String::as_str), Some("400000"));
        assert_eq!(outcome.log_failures.len(), 1, "{:?}", outcome.log_failures);
        assert_eq!(
            outcome.log_failures[0].error.kind(),
            io::ErrorKind::StorageFull
        );
    }

    #[tokio::test]
    async fn a_stderr_log_that_cannot_be_created_stops_nothing() {
        let scratch = Scratch::new("stderr-blocked");
        let blocker = scratch.path().join("file");
        fs::write(&blocker, "").unwrap();
        let mut spec = scratch.spec("echo oops >&2; echo out", LONG);
        spec.stderr_log = blocker.join("stderr.log");
        let (outcome, lines) = collect(&spec).await;
        assert_eq!(
            (outcome.exit_code, lines),
            (Some(0), vec!["out".to_owned()])
        );
        let [failure] = outcome.log_failures.as_slice() else {
            panic!("{:?}", outcome.log_failures);
        };
        assert_eq!(failure.path, spec.stderr_log);
        assert_eq!(fs::read(&spec.stdout_log).unwrap(), b"out\n");
    }

    #[tokio::test]
    async fn a_log_that_cannot_be_created_is_named_and_its_cause_kept_once() {
        let scratch = Scratch::new("log");
        let blocker = scratch.0.path().join("file");
        fs::write(&blocker, "").unwrap();
        let mut spec = scratch.spec("echo out", LONG);
        spec.stdout_log = blocker.join("logs/stdout.log");
        let mut sink = |_: &str| LineVerdict::Continue;
        let err = run(&spec, &mut sink).await.expect_err("must fail");
        let cause = std::error::Error::source(&err).expect("the io error is kept");
        let cause = cause.downcast_ref::<io::Error>().expect("an io error");
        assert_eq!(err.kind(), cause.kind());
        let message = err.to_string();
        assert_eq!(
            message,
            format!(
                "cannot create log directory `{}`: {cause}",
                blocker.join("logs").display()
            )
        );
        assert_eq!(message.matches(&cause.to_string()).count(), 1, "{message}");
    }
}
