//! The plumbing of forwarding: file descriptor 1 (and 2) replaced by pipes, a thread per pipe
//! handing what the process writes to the [`Screen`], and the way back: an orderly
//! [`Forwarding::finish`], or [`restore_at_exit`] when the process exits at once.
//!
//! The screen lives in a static, so that a signal handler or an `atexit` hook can reach it:
//! the forwarders read a pipe only while they hold its lock, so whoever takes the lock finds
//! every byte read so far on the screen, and every byte not read still in the pipes.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::StatusLines;
use super::format::DEFAULT_COLUMNS;
use super::screen::{Screen, Stream};

/// The real stdout and stderr, while the run's output is forwarded.
static SCREEN: Mutex<Option<Screen<File>>> = Mutex::new(None);

/// The duplicates of the real file descriptors 1 and 2 while they are replaced, else -1.
static SAVED: [AtomicI32; 2] = [const { AtomicI32::new(-1) }; 2];

/// The read ends of the pipes now at file descriptors 1 and 2, else -1.
static READ: [AtomicI32; 2] = [const { AtomicI32::new(-1) }; 2];

/// Set when the forwarding ends: a forwarder stops at end of file, or once its pipe has been
/// quiet for [`QUIET`] (a child process may still hold the write end).
static CLOSING: AtomicBool = AtomicBool::new(false);

/// How long a forwarder waits for bytes before it looks at [`CLOSING`].
const QUIET: Duration = Duration::from_millis(100);

/// The longest a forwarder keeps reading once the forwarding ends.
const CLOSING_LIMIT: Duration = Duration::from_secs(2);

/// File descriptors 1 (and 2) going through pipes to the screen.
#[derive(Debug)]
pub(super) struct Forwarding {
    pipes: Vec<Pipe>,
    threads: Vec<JoinHandle<()>>,
}

/// One replaced file descriptor.
#[derive(Debug)]
struct Pipe {
    /// 1 or 2.
    fd: RawFd,
    /// The read end, which its forwarder reads.
    read: OwnedFd,
}

impl Forwarding {
    /// Replaces file descriptor 1, and 2 when `stderr_too`, with pipes whose complete lines
    /// reach the real ones through the screen; the status redrawn after them is `status`'s.
    pub(super) fn start(stderr_too: bool, status: Option<StatusLines>) -> io::Result<Forwarding> {
        static AT_EXIT: Once = Once::new();
        AT_EXIT.call_once(|| {
            // SAFETY: registering a plain `extern "C"` function; it only restores descriptors.
            unsafe { libc::atexit(at_exit) };
        });
        let _ = io::stdout().flush();
        let out = redirect(1)?;
        let err = match stderr_too.then(|| redirect(2)).transpose() {
            Ok(err) => err,
            Err(error) => {
                restore(1, &out.0);
                return Err(error);
            }
        };
        let mut screen_err = None;
        let mut pipes = vec![Pipe { fd: 1, read: out.1 }];
        SAVED[0].store(out.0.as_raw_fd(), Ordering::SeqCst);
        if let Some((saved, read)) = err {
            SAVED[1].store(saved.as_raw_fd(), Ordering::SeqCst);
            screen_err = Some(File::from(saved));
            pipes.push(Pipe { fd: 2, read });
        }
        *lock() = Some(Screen::new(File::from(out.0), screen_err));
        CLOSING.store(false, Ordering::SeqCst);
        let mut threads = Vec::new();
        let ends: Vec<(RawFd, RawFd)> = pipes.iter().map(|p| (p.fd, p.read.as_raw_fd())).collect();
        for (index, (fd, read)) in ends.into_iter().enumerate() {
            READ[index].store(read, Ordering::SeqCst);
            let (stream, status) = (stream_of(fd), status.clone());
            let thread = std::thread::Builder::new()
                .name(format!("skillgym-forward-{fd}"))
                .spawn(move || forward(stream, read, status));
            match thread {
                Ok(thread) => threads.push(thread),
                Err(error) => {
                    Forwarding { pipes, threads }.finish();
                    return Err(error);
                }
            }
        }
        Ok(Forwarding { pipes, threads })
    }

    /// Ends the forwarding: erases the status, puts the real file descriptors back, lets the
    /// forwarders copy what is left in the pipes, and writes any partial last line.
    pub(super) fn finish(self) {
        with_screen(|screen| screen.stop_status());
        let _ = io::stdout().flush();
        let _ = io::stderr().flush();
        for (index, pipe) in self.pipes.iter().enumerate() {
            let saved = SAVED[index].load(Ordering::SeqCst);
            if saved >= 0 {
                // SAFETY: `saved` is the open duplicate the screen owns until it is dropped
                // below; this puts it back at 1 or 2 (and closes the pipe's write end there).
                unsafe { libc::dup2(saved, pipe.fd) };
            }
        }
        CLOSING.store(true, Ordering::SeqCst);
        for thread in self.threads {
            let _ = thread.join();
        }
        let screen = lock().take();
        for slot in SAVED.iter().chain(&READ) {
            slot.store(-1, Ordering::SeqCst);
        }
        if let Some(mut screen) = screen {
            let _ = screen.finish();
        }
        // The read ends close here, after no one may use them any more.
        drop(self.pipes);
    }
}

/// Runs `f` on the screen, if the output is being forwarded.
pub(super) fn with_screen(f: impl FnOnce(&mut Screen<File>) -> io::Result<()>) {
    if let Some(screen) = lock().as_mut() {
        let _ = f(screen);
    }
}

/// The width of the terminal at the real stdout, [`DEFAULT_COLUMNS`] when it does not say.
pub(super) fn real_stdout_columns() -> usize {
    let fd = SAVED[0].load(Ordering::SeqCst);
    if fd < 0 {
        return DEFAULT_COLUMNS;
    }
    // SAFETY: a zeroed `winsize` filled by ioctl(2) TIOCGWINSZ on a descriptor (a closed one
    // only fails).
    let size = unsafe {
        let mut size: libc::winsize = std::mem::zeroed();
        (libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) == 0).then_some(size)
    };
    size.map(|size| usize::from(size.ws_col))
        .filter(|columns| *columns > 0)
        .unwrap_or(DEFAULT_COLUMNS)
}

/// For an exit that skips the orderly end (a second SIGINT, `std::process::exit`): erases the
/// status, writes the partial lines held, puts the real file descriptors back and copies what
/// is still in the pipes. Only calls that are safe in a signal handler, and the screen's lock,
/// waited for at most 200 ms (a forwarder or the ticker holds it for one write; they block
/// the interrupting signals, so the handler never runs on them).
pub(crate) fn restore_at_exit() {
    let mut guard = None;
    for _ in 0..200 {
        match SCREEN.try_lock() {
            Ok(locked) => guard = Some(locked),
            Err(TryLockError::Poisoned(poisoned)) => guard = Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => sleep_a_millisecond(),
        }
        if guard.is_some() {
            break;
        }
    }
    if let Some(screen) = guard.as_mut().and_then(|screen| screen.as_mut()) {
        let _ = screen.finish();
    }
    for (index, fd) in [(0, 1), (1, 2)] {
        let saved = SAVED[index].swap(-1, Ordering::SeqCst);
        if saved < 0 {
            continue;
        }
        // SAFETY: `saved` is an open duplicate of the real descriptor (the screen that owns it
        // is locked, or the process is exiting).
        unsafe { libc::dup2(saved, fd) };
        let read = READ[index].swap(-1, Ordering::SeqCst);
        if read >= 0 {
            drain(read, saved);
        }
    }
}

extern "C" fn at_exit() {
    restore_at_exit();
}

/// A forwarder: reads the pipe at `read` (holding the screen's lock while it reads) and hands
/// the bytes to the screen, with the status of the moment to redraw after them, until end of
/// file or, once the forwarding ends, a quiet pipe.
fn forward(stream: Stream, read: RawFd, status: Option<StatusLines>) {
    block_interrupting_signals();
    let mut buffer = [0u8; 8192];
    let mut closing_since = None;
    loop {
        if CLOSING.load(Ordering::SeqCst) {
            let since = *closing_since.get_or_insert_with(Instant::now);
            if since.elapsed() > CLOSING_LIMIT {
                return;
            }
        }
        match wait_readable(read) {
            Ok(true) => {}
            Ok(false) if CLOSING.load(Ordering::SeqCst) => return,
            Ok(false) => continue,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        }
        let lines = status.as_ref().map(|status| status());
        let mut screen = lock();
        // SAFETY: `read` stays open until this thread is joined; `buffer` is writable.
        let count = unsafe { libc::read(read, buffer.as_mut_ptr().cast(), buffer.len()) };
        match usize::try_from(count) {
            Ok(0) => return,
            Ok(count) => {
                if let Some(screen) = screen.as_mut() {
                    if let Some(lines) = lines {
                        screen.set_status(lines);
                    }
                    let _ = screen.forward(stream, &buffer[..count]);
                }
            }
            Err(_) if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// Whether `fd` has bytes (or end of file) to read within [`QUIET`].
fn wait_readable(fd: RawFd) -> io::Result<bool> {
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid `pollfd`.
    let ready = unsafe { libc::poll(&mut poll, 1, QUIET.as_millis() as libc::c_int) };
    match ready {
        0 => Ok(false),
        n if n > 0 => Ok(true),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Puts a pipe at `fd`: returns a duplicate of what was there and the pipe's read end (both
/// close on exec; `fd` itself is inherited as before).
fn redirect(fd: RawFd) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0; 2];
    // SAFETY: `ends` has room for the two descriptors.
    check(unsafe { libc::pipe(ends.as_mut_ptr()) })?;
    // SAFETY: pipe(2) just opened both, and nothing else owns them.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    for end in [&read, &write] {
        // SAFETY: an open descriptor.
        check(unsafe { libc::fcntl(end.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) })?;
    }
    // SAFETY: duplicating an open descriptor to a fresh one, owned below.
    let saved = check(unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) })?;
    // SAFETY: `saved` was just opened and nothing else owns it.
    let saved = unsafe { OwnedFd::from_raw_fd(saved) };
    // SAFETY: both are open; this replaces `fd` (1 or 2), which this process owns.
    check(unsafe { libc::dup2(write.as_raw_fd(), fd) })?;
    Ok((saved, read))
}

/// Puts `saved` back at `fd`.
fn restore(fd: RawFd, saved: &OwnedFd) {
    // SAFETY: both are open descriptors of this process.
    unsafe { libc::dup2(saved.as_raw_fd(), fd) };
}

/// Copies what is left in the pipe at `read` to `to`, without waiting for more.
fn drain(read: RawFd, to: RawFd) {
    let mut buffer = [0u8; 4096];
    // SAFETY: fcntl(2), read(2) and write(2) on descriptors that are open (the process is
    // exiting, nothing closes them), into and from a stack buffer.
    unsafe {
        libc::fcntl(read, libc::F_SETFL, libc::O_NONBLOCK);
        loop {
            let count = libc::read(read, buffer.as_mut_ptr().cast(), buffer.len());
            let Ok(count) = usize::try_from(count) else {
                return;
            };
            if count == 0 {
                return;
            }
            let mut written = 0;
            while written < count {
                let n = libc::write(to, buffer[written..count].as_ptr().cast(), count - written);
                match usize::try_from(n) {
                    Ok(n) if n > 0 => written += n,
                    _ => return,
                }
            }
        }
    }
}

/// Keeps SIGINT, SIGTERM and SIGHUP away from this thread: their handler may wait for the
/// screen's lock, which this thread takes.
pub(super) fn block_interrupting_signals() {
    // SAFETY: a zeroed `sigset_t` emptied by sigemptyset, then pthread_sigmask on this thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, signal);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

fn sleep_a_millisecond() {
    let pause = libc::timespec {
        tv_sec: 0,
        tv_nsec: 1_000_000,
    };
    // SAFETY: nanosleep(2) with a valid duration and no remainder wanted.
    unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
}

fn stream_of(fd: RawFd) -> Stream {
    if fd == 2 { Stream::Err } else { Stream::Out }
}

fn lock() -> MutexGuard<'static, Option<Screen<File>>> {
    SCREEN.lock().unwrap_or_else(PoisonError::into_inner)
}

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}
