//! One measured process and the floor.
//!
//! | function | measures |
//! |---|---|
//! | [`run`] | a whole process, spawn to exit: wall time, peak RSS (`wait4`), exit status |
//! | [`floor`] | the fake agent alone: the same sessions, same parallelism, stdout drained through a pipe (or with the least a harness writes, or with this harness's artifact layout: [`Writes`]) |
//! | [`dir_bytes`], [`find_file`] | what a run left on disk |

use std::ffi::OsString;
use std::fs;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A process to measure.
#[derive(Debug)]
pub(crate) struct Invocation {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: PathBuf,
    pub(crate) env: Vec<(&'static str, OsString)>,
    /// Killed (its whole process group) after this long.
    pub(crate) cap: Option<Duration>,
    /// Where its stderr goes, to show when it fails.
    pub(crate) stderr: PathBuf,
}

impl Invocation {
    pub(crate) fn new(program: impl Into<PathBuf>, cwd: &Path, stderr: PathBuf) -> Self {
        Invocation {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.to_owned(),
            env: Vec::new(),
            cap: None,
            stderr,
        }
    }

    pub(crate) fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub(crate) fn args<I: Into<OsString>>(mut self, args: impl IntoIterator<Item = I>) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub(crate) fn env(mut self, name: &'static str, value: impl Into<OsString>) -> Self {
        self.env.push((name, value.into()));
        self
    }

    /// The command line, quoted enough to paste into a shell.
    pub(crate) fn display(&self) -> String {
        let mut line = format!("cd {} &&", self.cwd.display());
        for (name, value) in &self.env {
            line.push_str(&format!(" {name}='{}'", value.to_string_lossy()));
        }
        for word in
            std::iter::once(self.program.as_os_str()).chain(self.args.iter().map(|a| a.as_os_str()))
        {
            let word = word.to_string_lossy();
            if word.contains(|c: char| c.is_whitespace() || "[]'\"$*?".contains(c)) {
                line.push_str(&format!(" '{}'", word.replace('\'', r"'\''")));
            } else {
                line.push_str(&format!(" {word}"));
            }
        }
        line
    }
}

/// What one measured process did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    pub(crate) wall: Duration,
    /// Peak RSS in KiB of the process and the descendants it waited for.
    pub(crate) rss_kb: u64,
    pub(crate) status: ExitStatus,
    /// Whether the cap killed it.
    pub(crate) capped: bool,
}

impl Sample {
    /// `exit 1`, `signal 9`, `killed after the cap`.
    pub(crate) fn status_text(&self) -> String {
        if self.capped {
            "killed at the time cap".to_owned()
        } else if let Some(code) = self.status.code() {
            format!("exit {code}")
        } else {
            format!("signal {}", self.status.signal().unwrap_or(0))
        }
    }
}

/// Runs the invocation with stdin and stdout on `/dev/null`, stderr into its file, in a process
/// group of its own; the `SKILLGYM_*` variables of this process are not passed on.
pub(crate) fn run(invocation: &Invocation) -> io::Result<Sample> {
    let stderr = fs::File::create(&invocation.stderr)?;
    let mut command = Command::new(&invocation.program);
    command
        .args(&invocation.args)
        .current_dir(&invocation.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .process_group(0);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("SKILLGYM_") {
            command.env_remove(name);
        }
    }
    command.envs(invocation.env.iter().map(|(name, value)| (name, value)));
    let started = Instant::now();
    // Reaped by `wait4` below, which also reports the peak RSS.
    #[allow(clippy::zombie_processes)]
    let child = command.spawn()?;
    let pid = child.id() as libc::pid_t;
    let (done, watchdog) = match invocation.cap {
        Some(cap) => {
            let (done, wait) = mpsc::channel::<()>();
            let watchdog = std::thread::spawn(move || {
                let expired = wait.recv_timeout(cap) == Err(mpsc::RecvTimeoutError::Timeout);
                if expired {
                    // SAFETY: signals the process group of our own unreaped child.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
                expired
            });
            (Some(done), Some(watchdog))
        }
        None => (None, None),
    };
    let (status, rss_kb) = wait4(pid)?;
    let wall = started.elapsed();
    drop(done);
    let capped = watchdog.is_some_and(|watchdog| watchdog.join().unwrap_or(false));
    Ok(Sample {
        wall,
        rss_kb,
        status,
        capped,
    })
}

/// Waits for the child; its status and the peak RSS (KiB) of it and what it waited for.
fn wait4(pid: libc::pid_t) -> io::Result<(ExitStatus, u64)> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child; `status` and `usage` are valid out pointers.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if waited == pid {
            let rss = u64::try_from(usage.ru_maxrss).unwrap_or(0);
            return Ok((ExitStatus::from_raw(status), rss));
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// The first lines of a file (a failed run's stderr).
pub(crate) fn head(path: &Path, lines: usize) -> String {
    fs::read(path)
        .map(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .take(lines)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// What each session of a [`floor`] writes beside draining its stdout.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Writes<'a> {
    /// Nothing: the stdout goes through a pipe into nothing.
    Nothing,
    /// The least a harness that keeps a session's output writes, under this directory: a
    /// directory of its own with an empty workspace directory in it as the agent's cwd, the
    /// stdout streamed into a file there, a small result file written after the agent ends,
    /// and the workspace removed.
    Least(&'a Path),
    /// The file operations of this harness's artifact layout and nothing else, under this
    /// directory: `<case>/<runner>/repeat-1/attempt-1/` with `prompt.md`, an empty workspace
    /// directory (in a root of its own) as the agent's cwd, `stdout.log`, then `report.json`,
    /// `workspace.json`, the attempt's and the execution's `result.json` (each through a
    /// temporary file and a rename, of the sizes the harness writes for the 8 KB session),
    /// and the workspace removed.
    Layout(&'a Path),
}

/// Runs the fake agent `sessions` times with `script`, `parallel` at once, each with
/// `args`, reading each one's stdout through a pipe to the end, and doing what `writes` says;
/// the wall time of the whole.
pub(crate) fn floor(
    agent: &Path,
    args: &[&str],
    script: &str,
    sessions: usize,
    parallel: usize,
    writes: Writes<'_>,
) -> io::Result<Duration> {
    if let Writes::Least(dir) | Writes::Layout(dir) = writes {
        fs::create_dir_all(dir)?;
    }
    if let Writes::Layout(dir) = writes {
        fs::create_dir(dir.join("workspaces"))?;
    }
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..parallel.min(sessions))
            .map(|_| {
                scope.spawn(|| -> io::Result<()> {
                    loop {
                        let session = next.fetch_add(1, Ordering::Relaxed);
                        if session >= sessions {
                            return Ok(());
                        }
                        let mut command = Command::new(agent);
                        command.args(args).env("FAKE_AGENT_SCRIPT", script);
                        match writes {
                            Writes::Nothing => drain(command, &mut io::sink())?,
                            Writes::Least(root) => {
                                least(command, &root.join(format!("session-{session}")))?
                            }
                            Writes::Layout(root) => layout(command, root, session)?,
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|worker| worker.join().expect("a floor worker panicked"))
    })?;
    Ok(started.elapsed())
}

/// Runs `command` with its stdout copied into `into`, to its successful end.
fn drain(mut command: Command, into: &mut impl io::Write) -> io::Result<()> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn()?;
    let mut stdout = child.stdout.take().expect("a piped stdout");
    io::copy(&mut stdout, into)?;
    let status = child.wait()?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "the fake agent ended with {status}"
        )));
    }
    Ok(())
}

/// One session of [`Writes::Least`], in `dir`.
fn least(mut command: Command, dir: &Path) -> io::Result<()> {
    let workspace = dir.join("workspace");
    fs::create_dir(dir)?;
    fs::create_dir(&workspace)?;
    command.current_dir(&workspace);
    drain(command, &mut fs::File::create(dir.join("stdout.log"))?)?;
    fs::write(dir.join("result.json"), b"{\"status\":\"passed\"}\n")?;
    fs::remove_dir(workspace)
}

/// One session of [`Writes::Layout`] under `root`, the `session`-th.
fn layout(mut command: Command, root: &Path, session: usize) -> io::Result<()> {
    let case = root.join(format!("case_{session:04}"));
    let runner = case.join("fake");
    let attempt = runner.join("repeat-1").join("attempt-1");
    for dir in [&case, &runner, &runner.join("repeat-1"), &attempt] {
        fs::create_dir(dir)?;
    }
    fs::write(
        attempt.join("prompt.md"),
        b"case: replay the captured session\n",
    )?;
    let workspace = root.join("workspaces").join(format!("case_{session:04}"));
    fs::create_dir(&workspace)?;
    command.current_dir(&workspace);
    drain(command, &mut fs::File::create(attempt.join("stdout.log"))?)?;
    for (file, size) in [
        (attempt.join("report.json"), 7441),
        (attempt.join("workspace.json"), 168),
        (attempt.join("result.json"), 719),
        (runner.join("result.json"), 2288),
    ] {
        let temporary = file.with_extension("json.tmp");
        fs::write(&temporary, vec![b' '; size])?;
        fs::rename(&temporary, &file)?;
    }
    fs::remove_dir(workspace)
}

/// The total size of the files under `dir` (symbolic links not followed).
pub(crate) fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => dir_bytes(&entry.path()),
            Ok(kind) if kind.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The first file called `name` under `dir`, depth first.
pub(crate) fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let candidate = dir.join(name);
    if candidate.is_file() {
        return Some(candidate);
    }
    fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .find_map(|entry| find_file(&entry.path(), name))
}
