//! What a run does when it is told to stop: SIGINT (Ctrl-C), SIGTERM or SIGHUP.
//!
//! | signal | effect |
//! |---|---|
//! | first | every agent process group of this process is killed (`SIGKILL`), with every descendant that escaped it ([`crate::reaper`]); sessions under way end as `interrupted` with what they printed so far, executions not yet started are not run; the result files and `results.json` are written and the process exits with 128 + the signal's number (130, 143, 129) |
//! | second | the agent process groups are killed, the files holding a secret in clear (the logins seeded for the agents, prompts with a secret: [`crate::private_dir`]) are unlinked, the terminal is restored (the live status erased, the output still on its way written, [`crate::progress`]) and the process exits at once with that code (descendants that escaped their group may remain: finding them is not possible inside a signal handler) |
//!
//! The signal handler allocates nothing: the process groups and the paths to remove are
//! registered beforehand in fixed tables of atomics ([`RegisteredGroup`], [`RegisteredPath`]:
//! NUL-terminated paths made when registered), and it calls only `kill(2)`, `unlink(2)`,
//! `rmdir(2)`, `nanosleep(2)` (waiting, at most 200 ms, for an agent, grader or hook being
//! spawned to register its group: [`Spawning`]), the progress's restore and `_exit(2)`. The
//! agents it kills end their sessions at once: a run that gets to its end meanwhile waits for
//! the handler's exit ([`yield_to_an_immediate_exit`]) rather than exit with a code of its own.
//!
//! Under cargo-nextest every trial is its own process and handles the signal nextest forwards
//! to it the same way. Handlers are installed by [`install`] when trials are about to run
//! (never for `--list`).

use std::ffi::{CString, c_char};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicUsize, Ordering};

use libc::pid_t;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// The signals that interrupt a run.
const SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The first interrupting signal received, 0 before.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Set by the signal handler itself at the first signal, so that a second one exits at once.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Set by the signal handler when a second signal starts the immediate exit.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Processes being spawned (agents, graders, hooks) whose group is not registered yet ([`Spawning`]).
static SPAWNING: AtomicUsize = AtomicUsize::new(0);

/// How long a second signal waits for the spawns under way (1 ms at a time).
const SPAWN_WAIT_MS: u32 = 200;

/// How many agent process groups can be registered at once (more than any schedule runs).
const SLOTS: usize = 512;

/// The process groups of the agents running now, 0 for a free slot. Plain atomics, so that the
/// signal handler itself may read them.
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// How many paths can be registered for removal at once (a few per running session).
const PATH_SLOTS: usize = 4096;

/// The files and directories a second signal removes: NUL-terminated paths (each made by
/// [`RegisteredPath::new`], owned by the table), null for a free slot.
static PATHS: [AtomicPtr<c_char>; PATH_SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; PATH_SLOTS];

/// A signal that interrupted the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Interruption {
    signal: i32,
}

impl Interruption {
    /// `SIGINT`, `SIGTERM` or `SIGHUP`.
    pub(crate) fn name(self) -> &'static str {
        match self.signal {
            SIGINT => "SIGINT",
            SIGTERM => "SIGTERM",
            SIGHUP => "SIGHUP",
            _ => "a signal",
        }
    }

    /// The exit code of an interrupted run: 128 + the signal's number.
    pub(crate) fn exit_code(self) -> u8 {
        u8::try_from(128 + self.signal).unwrap_or(u8::MAX)
    }
}

/// The signal that interrupted this run, if one did.
pub(crate) fn received() -> Option<Interruption> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(Interruption { signal }),
    }
}

/// Installs the handlers (once per process): the first signal starts an orderly stop, a second
/// one kills the registered agent groups and exits at once.
pub(crate) fn install() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| register().map_err(|error| error.to_string()))
        .clone()
        .map_err(io::Error::other)
}

fn register() -> io::Result<()> {
    for signal in SIGNALS {
        // SAFETY: the action only uses async-signal-safe operations: atomics, kill(2),
        // nanosleep(2), unlink(2), rmdir(2), _exit(2) and the progress's restore (dup2(2),
        // read(2), write(2), a lock only tried).
        unsafe {
            signal_hook::low_level::register(signal, move || {
                if STOPPING.swap(true, Ordering::SeqCst) {
                    EXITING.store(true, Ordering::SeqCst);
                    wait_for_spawns();
                    kill_registered();
                    remove_registered_paths();
                    crate::progress::restore_at_exit();
                    signal_hook::low_level::exit(128 + signal);
                }
            })?;
        }
    }
    // Registered after the action above, so it runs after it: only the first signal reaches
    // the thread.
    let mut signals = Signals::new(SIGNALS)?;
    std::thread::Builder::new()
        .name("skillgym-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                stop(signal);
            }
        })?;
    Ok(())
}

/// Waits for the exit a second signal has begun, if one has: the run must not end with its own
/// code meanwhile (the agents the handler killed end their sessions at once, and a thread may
/// finish the run while the handler still removes files).
pub(crate) fn yield_to_an_immediate_exit() {
    while EXITING.load(Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The orderly stop: record the signal, then kill every running agent group and every escaped
/// descendant.
fn stop(signal: i32) {
    RECEIVED.store(signal, Ordering::SeqCst);
    let killed = kill_registered();
    crate::reaper::kill_escaped();
    eprintln!(
        "\nskillgym: received {}: killed {killed} running agent session(s); writing the results (send it again to exit at once)",
        Interruption { signal }.name(),
    );
}

/// Kills every registered group; returns how many there were. Async-signal-safe.
fn kill_registered() -> usize {
    let mut killed = 0;
    for slot in &GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 1 {
            kill_group(pgid);
            killed += 1;
        }
    }
    killed
}

/// Whether `pid` leads a registered group: an agent or command of a session that still runs
/// (registered from just after its spawn until its leader is reaped).
pub(crate) fn is_registered_group(pid: pid_t) -> bool {
    pid > 1 && GROUPS.iter().any(|slot| slot.load(Ordering::SeqCst) == pid)
}

/// A running process group, killed on an interrupt (at once if the run is already
/// interrupted). Drop it as soon as the group's leader is reaped: its id may be reused then.
pub(crate) struct RegisteredGroup {
    slot: Option<&'static AtomicI32>,
}

impl RegisteredGroup {
    /// Registers the group led by `pid` (ids 0 and 1 are never registered).
    pub(crate) fn new(pid: u32) -> Self {
        let Some(pgid) = pid_t::try_from(pid).ok().filter(|&pid| pid > 1) else {
            return RegisteredGroup { slot: None };
        };
        let slot = GROUPS.iter().find(|slot| {
            slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        });
        // The stop records the signal before it reads the slots: either it saw this group, or
        // this sees the signal.
        if received().is_some() {
            kill_group(pgid);
        }
        RegisteredGroup { slot }
    }
}

impl Drop for RegisteredGroup {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            slot.store(0, Ordering::SeqCst);
        }
    }
}

/// A spawn under way, from just before the process is started until its group is registered:
/// a second signal waits for it (at most 200 ms), so that the group it registers is killed too.
#[derive(Debug)]
pub(crate) struct Spawning(());

impl Spawning {
    /// Counts a spawn about to start; an error once a second signal is making the process exit
    /// (nothing may start then).
    pub(crate) fn begin() -> io::Result<Spawning> {
        SPAWNING.fetch_add(1, Ordering::SeqCst);
        // The handler sets `EXITING` before it reads `SPAWNING`: either it waits for this
        // spawn, or this sees that it must not start.
        if EXITING.load(Ordering::SeqCst) {
            SPAWNING.fetch_sub(1, Ordering::SeqCst);
            return Err(io::Error::other(
                "the run is exiting at once (a second signal): nothing more is started",
            ));
        }
        Ok(Spawning(()))
    }
}

impl Drop for Spawning {
    fn drop(&mut self) {
        SPAWNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits, at most [`SPAWN_WAIT_MS`], until no spawn is under way. Async-signal-safe
/// (`nanosleep(2)`); bounded, since the handler may be running on a spawning thread.
fn wait_for_spawns() {
    let millisecond = libc::timespec {
        tv_sec: 0,
        tv_nsec: 1_000_000,
    };
    for _ in 0..SPAWN_WAIT_MS {
        if SPAWNING.load(Ordering::SeqCst) == 0 {
            return;
        }
        // SAFETY: nanosleep(2) with a valid request and no remainder.
        unsafe {
            libc::nanosleep(&millisecond, std::ptr::null_mut());
        }
    }
}

/// A file or directory removed by a second signal (which exits at once, before any guard can
/// run): registered before it is created, unregistered once it is removed. A path that does
/// not fit in the table, or holds a NUL byte, is not registered (it still goes at the end of
/// its session).
#[derive(Debug)]
pub(crate) struct RegisteredPath {
    slot: Option<&'static AtomicPtr<c_char>>,
}

impl RegisteredPath {
    /// Registers `path`.
    pub(crate) fn new(path: &Path) -> Self {
        let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
            return RegisteredPath { slot: None };
        };
        let raw = path.into_raw();
        let slot = PATHS.iter().find(|slot| {
            slot.compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        });
        if slot.is_none() {
            // SAFETY: `raw` came from `CString::into_raw` just above and went nowhere.
            drop(unsafe { CString::from_raw(raw) });
        }
        RegisteredPath { slot }
    }
}

impl Drop for RegisteredPath {
    fn drop(&mut self) {
        let Some(slot) = self.slot else {
            return;
        };
        let raw = slot.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // The handler reads the table only after a first signal set `STOPPING`; from then on
        // it may be reading this path, which is left to the process's end.
        if !raw.is_null() && !STOPPING.load(Ordering::SeqCst) {
            // SAFETY: `raw` came from `CString::into_raw` in `new`, and the swap took it out
            // of the table: nothing else can reach it.
            drop(unsafe { CString::from_raw(raw) });
        }
    }
}

/// Removes every registered path: files and links first, then the (now empty) directories.
/// Async-signal-safe.
fn remove_registered_paths() {
    for slot in &PATHS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: a NUL-terminated path owned by the table (see `RegisteredPath`).
            unsafe {
                libc::unlink(path);
            }
        }
    }
    for slot in &PATHS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: as above.
            unsafe {
                libc::rmdir(path);
            }
        }
    }
}

/// An `interrupted` failure naming the signal, then what it cut short.
pub(crate) fn failure(what: &str) -> skillgym::Failure {
    let signal = received().map_or("a signal", Interruption::name);
    skillgym::Failure::new(
        skillgym::FailureOrigin::Interrupted,
        format!("the run was interrupted by {signal}: {what}"),
    )
}

fn kill_group(pgid: pid_t) {
    // SAFETY: kill(2) has no memory-safety preconditions; `pgid > 1` is a group created for
    // one of our children and still registered (its leader not yet reaped).
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_registered_until_its_registration_is_dropped() {
        // Above the largest pid_max (2^22): no process can have it, so signalling it (should
        // a test stop the run meanwhile) reaches nothing.
        let pid = 4_194_311;
        assert!(!is_registered_group(pid));
        let registered = RegisteredGroup::new(pid as u32);
        assert!(is_registered_group(pid));
        drop(registered);
        assert!(!is_registered_group(pid));
        assert!(!is_registered_group(0) && !is_registered_group(1));
    }

    #[test]
    fn a_registered_path_is_held_as_a_c_string() {
        let path = Path::new("/nonexistent/skillgym-registered-path-test");
        let registered = RegisteredPath::new(path);
        let slot = registered.slot.expect("a free slot");
        // SAFETY: the slot holds the path registered above until `registered` is dropped.
        let held = unsafe { std::ffi::CStr::from_ptr(slot.load(Ordering::SeqCst)) };
        assert_eq!(held.to_bytes(), path.as_os_str().as_bytes());
        drop(registered);
        assert!(RegisteredPath::new(Path::new("nul\0inside")).slot.is_none());
    }

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        let code = |signal| Interruption { signal }.exit_code();
        assert_eq!(code(SIGINT), 130);
        assert_eq!(code(SIGTERM), 143);
        assert_eq!(code(SIGHUP), 129);
        assert_eq!(Interruption { signal: SIGTERM }.name(), "SIGTERM");
    }
}
