//! Scheduling gates: how many executions may run at once, and which may overlap.
//!
//! Every execution (one case on one runner) is one libtest trial. libtest-mimic runs trials on
//! a pool of worker threads ([`worker_threads`]); each trial calls [`Gates::enter`] before it
//! starts and holds the returned [`GateGuard`] until it ends:
//!
//! - `serial`: one execution at a time;
//! - `parallel`: at most `max_parallel` executions at once;
//! - `isolated-by-runner`: one execution per runner at a time (its *lane*), at most
//!   `max_parallel` at once overall.
//!
//! A *group* (a declarative suite with `execution.workers: N`) also admits at most `N` of its
//! executions at once, within the schedule's cap: its gate is taken after the lane and before
//! the global slot.
//!
//! A gate never waits for a particular other trial (libtest may filter trials out after they are
//! built): waiters are served in arrival order in process, in lock order across processes.
//!
//! Under `cargo nextest` every trial is its own process, so [`Gates::cross_process`] builds the
//! same gates from `flock(2)` locks on files in a directory shared by the whole run.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use crate::config::Schedule;

/// The most worker threads `isolated-by-runner` asks for.
///
/// Threads take trials in list order, and a thread whose trial waits for a busy runner's lane
/// is stuck until that lane frees up. With only `max_parallel` threads, a few trials of one slow
/// runner could occupy every thread while other runners sit idle; with a window of threads that
/// large, a thread is nearly always free to pick up a trial of an idle runner. Waiting threads
/// only sleep, and the global slots still cap how many executions actually run.
pub(crate) const ISOLATED_WORKER_WINDOW: usize = 256;

/// First pause between two rounds of cross-process slot attempts; each pause adds as much.
const SLOT_BACKOFF_START: Duration = Duration::from_millis(10);
/// Longest pause between two rounds of cross-process slot attempts.
const SLOT_BACKOFF_MAX: Duration = Duration::from_millis(50);

/// How many libtest worker threads `schedule` wants for `trials` trials (always at least 1).
///
/// `serial` runs on one thread, `parallel` on `max_parallel`, `isolated-by-runner` (and
/// `parallel` with `grouped` trials, whose group may hold them back) on up to
/// [`ISOLATED_WORKER_WINDOW`] so that trials blocked on a busy runner or group cannot starve
/// the others. Never more threads than trials: libtest-mimic spawns every thread it is told to.
pub(crate) fn worker_threads(
    schedule: Schedule,
    max_parallel: usize,
    trials: usize,
    grouped: bool,
) -> usize {
    match schedule {
        Schedule::Serial => 1,
        Schedule::Parallel if !grouped => max_parallel.min(trials).max(1),
        Schedule::Parallel | Schedule::IsolatedByRunner => trials.clamp(1, ISOLATED_WORKER_WINDOW),
    }
}

/// The gates every execution passes before it starts, built once per run (or per process).
pub(crate) struct Gates {
    slots: Slots,
    /// One lane per runner, only for `isolated-by-runner`.
    lanes: Option<Lanes>,
    runner_count: usize,
    /// One gate per group ([`Gates::with_groups`]).
    groups: Vec<Slots>,
}

enum Slots {
    InProcess(FifoSemaphore),
    /// `count` slot files `slot-<k>.lock` in `dir`.
    CrossProcess {
        dir: PathBuf,
        count: usize,
    },
}

enum Lanes {
    InProcess(Vec<TicketLock>),
    /// One lock file per runner.
    CrossProcess {
        dir: PathBuf,
        files: Vec<PathBuf>,
    },
}

impl Gates {
    /// In-process gates, for runs where every trial is a thread of this process.
    ///
    /// `max_parallel` is raised to 1 if 0; `serial` always has a single slot.
    pub(crate) fn in_process(
        schedule: Schedule,
        max_parallel: usize,
        runner_count: usize,
    ) -> Gates {
        let lanes = (schedule == Schedule::IsolatedByRunner)
            .then(|| Lanes::InProcess((0..runner_count).map(|_| TicketLock::new()).collect()));
        Gates {
            slots: Slots::InProcess(FifoSemaphore::new(slot_count(schedule, max_parallel))),
            lanes,
            runner_count,
            groups: Vec::new(),
        }
    }

    /// Cross-process gates using lock files in `lock_dir` (created on first use), for
    /// process-per-test runs: every process of the run must use the same directory, schedule,
    /// `max_parallel` and runner ids.
    ///
    /// Lane files are `runner-<id>.lock`, the id written as [`crate::results::sanitize`] writes it
    /// (injective: two runners never share a lane).
    pub(crate) fn cross_process(
        schedule: Schedule,
        max_parallel: usize,
        runner_ids: &[&str],
        lock_dir: PathBuf,
    ) -> Gates {
        let lanes = (schedule == Schedule::IsolatedByRunner).then(|| Lanes::CrossProcess {
            dir: lock_dir.clone(),
            files: runner_ids
                .iter()
                .map(|id| lock_dir.join(format!("runner-{}.lock", crate::artifacts::sanitize(id))))
                .collect(),
        });
        Gates {
            slots: Slots::CrossProcess {
                dir: lock_dir,
                count: slot_count(schedule, max_parallel),
            },
            lanes,
            runner_count: runner_ids.len(),
            groups: Vec::new(),
        }
    }

    /// These gates with one more gate per group: `(name, capacity)`, the index in `groups` is
    /// the group [`enter`](Self::enter) is given. Cross-process gates keep a group's slots in
    /// `group-<name>/` beside the global ones (the name written as
    /// [`crate::artifacts::sanitize`] writes it).
    pub(crate) fn with_groups<'a>(
        mut self,
        groups: impl IntoIterator<Item = (&'a str, usize)>,
    ) -> Gates {
        self.groups = groups
            .into_iter()
            .map(|(name, capacity)| match &self.slots {
                Slots::InProcess(_) => Slots::InProcess(FifoSemaphore::new(capacity.max(1))),
                Slots::CrossProcess { dir, .. } => Slots::CrossProcess {
                    dir: dir.join(format!("group-{}", crate::artifacts::sanitize(name))),
                    count: capacity.max(1),
                },
            })
            .collect();
        self
    }

    /// Blocks until the execution of runner `runner` may start; the guard releases on drop.
    ///
    /// Takes the runner's lane first (`isolated-by-runner` only), then a global slot: a lane
    /// holder waiting for a slot holds back nothing that could run instead. Errors come only
    /// from lock files (cross-process gates); nothing is held when an error is returned.
    ///
    /// # Panics
    ///
    /// If `runner` is not below the runner count the gates were built with.
    pub(crate) fn enter(&self, runner: usize, group: Option<usize>) -> io::Result<GateGuard<'_>> {
        assert!(
            runner < self.runner_count,
            "runner index {runner} out of range for {} runners",
            self.runner_count
        );
        let lane = match &self.lanes {
            None => None,
            Some(Lanes::InProcess(locks)) => Some(Held::Turn(locks[runner].acquire())),
            Some(Lanes::CrossProcess { dir, files }) => {
                fs::create_dir_all(dir)?;
                Some(Held::File(lock_file(&files[runner])?))
            }
        };
        let group = match group.and_then(|g| self.groups.get(g)) {
            Some(slots) => Some(slots.take()?),
            None => None,
        };
        Ok(GateGuard {
            slot: Some(self.slots.take()?),
            group,
            lane,
        })
    }
}

impl Slots {
    /// Blocks until one of the slots is free, and holds it.
    fn take(&self) -> io::Result<Held<'_>> {
        Ok(match self {
            Slots::InProcess(semaphore) => Held::Permit(semaphore.acquire()),
            Slots::CrossProcess { dir, count } => Held::File(take_slot_file(dir, *count)?),
        })
    }
}

/// An execution's pass through the gates; dropping it (also while unwinding) releases the
/// global slot, then the group's, then the runner's lane.
pub(crate) struct GateGuard<'a> {
    slot: Option<Held<'a>>,
    group: Option<Held<'a>>,
    lane: Option<Held<'a>>,
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        for held in [self.slot.take(), self.group.take(), self.lane.take()]
            .into_iter()
            .flatten()
        {
            held.release();
        }
    }
}

/// Something held until released.
enum Held<'a> {
    Permit(Permit<'a>),
    Turn(Turn<'a>),
    /// A file locked with `flock`; closing it releases the lock.
    File(File),
}

impl Held<'_> {
    fn release(self) {
        match self {
            Held::Permit(permit) => drop(permit),
            Held::Turn(turn) => drop(turn),
            Held::File(file) => drop(file),
        }
    }
}

fn slot_count(schedule: Schedule, max_parallel: usize) -> usize {
    match schedule {
        Schedule::Serial => 1,
        Schedule::Parallel | Schedule::IsolatedByRunner => max_parallel.max(1),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A counting semaphore that admits waiters in arrival order.
struct FifoSemaphore {
    state: Mutex<SemaphoreState>,
    changed: Condvar,
}

struct SemaphoreState {
    capacity: usize,
    in_use: usize,
    next_ticket: u64,
    /// The ticket admitted next, once a permit is free.
    serving: u64,
}

impl FifoSemaphore {
    fn new(capacity: usize) -> FifoSemaphore {
        FifoSemaphore {
            state: Mutex::new(SemaphoreState {
                capacity,
                in_use: 0,
                next_ticket: 0,
                serving: 0,
            }),
            changed: Condvar::new(),
        }
    }

    fn acquire(&self) -> Permit<'_> {
        let mut state = lock(&self.state);
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        let mut state = self
            .changed
            .wait_while(state, |s| s.serving != ticket || s.in_use >= s.capacity)
            .unwrap_or_else(PoisonError::into_inner);
        state.serving += 1;
        state.in_use += 1;
        drop(state);
        // The next ticket may fit too.
        self.changed.notify_all();
        Permit(self)
    }
}

/// A permit of a [`FifoSemaphore`], returned on drop.
struct Permit<'a>(&'a FifoSemaphore);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).in_use -= 1;
        self.0.changed.notify_all();
    }
}

/// A FIFO mutual-exclusion lock without data: a runner's lane.
struct TicketLock {
    state: Mutex<Tickets>,
    changed: Condvar,
}

struct Tickets {
    next: u64,
    serving: u64,
}

impl TicketLock {
    fn new() -> TicketLock {
        TicketLock {
            state: Mutex::new(Tickets {
                next: 0,
                serving: 0,
            }),
            changed: Condvar::new(),
        }
    }

    fn acquire(&self) -> Turn<'_> {
        let mut tickets = lock(&self.state);
        let ticket = tickets.next;
        tickets.next += 1;
        let _served = self
            .changed
            .wait_while(tickets, |t| t.serving != ticket)
            .unwrap_or_else(PoisonError::into_inner);
        Turn(self)
    }
}

/// The turn of the holder of a [`TicketLock`], passed on to the next ticket on drop.
struct Turn<'a>(&'a TicketLock);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).serving += 1;
        self.0.changed.notify_all();
    }
}

/// Opens (creating if needed) a lock file. A fresh open file description per call: `flock`
/// locks belong to it, so two opens exclude each other whether in one process or two.
fn open_lock_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// `flock(file, LOCK_EX)`, or with `LOCK_NB` when `wait` is false; retried on `EINTR`.
/// `Ok(false)`: already locked elsewhere (only without `wait`).
fn flock_exclusive(file: &File, wait: bool) -> io::Result<bool> {
    let operation = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: flock(2) only reads its arguments; the descriptor stays open while `file`
        // is borrowed.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
            return Ok(true);
        }
        let error = io::Error::last_os_error();
        match error.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock if !wait => return Ok(false),
            _ => return Err(error),
        }
    }
}

/// Opens `path` and blocks until it holds an exclusive lock on it.
pub(crate) fn lock_file(path: &Path) -> io::Result<File> {
    let file = open_lock_file(path)?;
    flock_exclusive(&file, true)?;
    Ok(file)
}

/// Opens the directory `dir` and blocks until it holds an exclusive lock on it (a lock that
/// leaves no file behind).
pub(crate) fn lock_directory(dir: &Path) -> io::Result<File> {
    let file = File::open(dir)?;
    flock_exclusive(&file, true)?;
    Ok(file)
}

/// Spreads the first slot tried across processes (pid) and threads (counter).
static SLOT_ROTATION: AtomicUsize = AtomicUsize::new(0);

/// Takes one of `count` slot files in `dir`: tries each without blocking from a pseudo-random
/// start, then sleeps with a growing backoff and tries again.
fn take_slot_file(dir: &Path, count: usize) -> io::Result<File> {
    fs::create_dir_all(dir)?;
    let start = (std::process::id() as usize)
        .wrapping_add(SLOT_ROTATION.fetch_add(1, Ordering::Relaxed))
        % count;
    let mut backoff = SLOT_BACKOFF_START;
    loop {
        for k in (0..count).map(|i| (start + i) % count) {
            let file = open_lock_file(&dir.join(format!("slot-{k}.lock")))?;
            if flock_exclusive(&file, false)? {
                return Ok(file);
            }
        }
        thread::sleep(backoff);
        backoff = (backoff + SLOT_BACKOFF_START).min(SLOT_BACKOFF_MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    const TASKS: usize = 24;
    const RUNNERS: usize = 3;
    const HOLD: Duration = Duration::from_millis(25);

    /// Current and highest concurrency, overall and per runner.
    #[derive(Default)]
    struct Meter {
        now: AtomicUsize,
        max: AtomicUsize,
        runner_now: [AtomicUsize; RUNNERS],
        runner_max: [AtomicUsize; RUNNERS],
    }

    impl Meter {
        fn hold(&self, runner: usize) {
            let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.max.fetch_max(now, Ordering::SeqCst);
            let mine = self.runner_now[runner].fetch_add(1, Ordering::SeqCst) + 1;
            self.runner_max[runner].fetch_max(mine, Ordering::SeqCst);
            thread::sleep(HOLD);
            self.runner_now[runner].fetch_sub(1, Ordering::SeqCst);
            self.now.fetch_sub(1, Ordering::SeqCst);
        }

        fn max(&self) -> usize {
            self.max.load(Ordering::SeqCst)
        }

        fn runner_max(&self) -> Vec<usize> {
            self.runner_max
                .iter()
                .map(|m| m.load(Ordering::SeqCst))
                .collect()
        }
    }

    /// Runs `TASKS` tasks on `RUNNERS` runners (task `i` on runner `i % RUNNERS`), all at once.
    fn run(gates: &Gates) -> Meter {
        let meter = Meter::default();
        let start = Barrier::new(TASKS);
        thread::scope(|scope| {
            for task in 0..TASKS {
                let (gates, meter, start) = (gates, &meter, &start);
                scope.spawn(move || {
                    let runner = task % RUNNERS;
                    start.wait();
                    let _guard = gates.enter(runner, None).expect("enter");
                    meter.hold(runner);
                });
            }
        });
        assert_eq!(meter.now.load(Ordering::SeqCst), 0);
        meter
    }

    /// Runs `TASKS` tasks at once, even ones in group 0; returns the most tasks of the group
    /// and the most tasks overall that ran at the same time.
    fn run_grouped(gates: &Gates) -> (usize, usize) {
        let group = Meter::default();
        let all = Meter::default();
        let start = Barrier::new(TASKS);
        thread::scope(|scope| {
            for task in 0..TASKS {
                let (gates, group, all, start) = (gates, &group, &all, &start);
                scope.spawn(move || {
                    let in_group = task % 2 == 0;
                    start.wait();
                    let _guard = gates.enter(0, in_group.then_some(0)).expect("enter");
                    let now = all.now.fetch_add(1, Ordering::SeqCst) + 1;
                    all.max.fetch_max(now, Ordering::SeqCst);
                    if in_group {
                        group.hold(0);
                    } else {
                        thread::sleep(HOLD);
                    }
                    all.now.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        (group.max(), all.max())
    }

    #[test]
    fn a_group_admits_its_capacity_within_the_schedule_cap() {
        let gates = Gates::in_process(Schedule::Parallel, 6, 1).with_groups([("suite", 2)]);
        let (group, all) = run_grouped(&gates);
        assert_eq!(group, 2, "the group's capacity");
        assert!(
            all > 2 && all <= 6,
            "others run beside it, within the cap: {all}"
        );
        let dir = lock_dir("groups");
        let gates = Gates::cross_process(Schedule::Parallel, 6, &IDS[..1], dir.path().into())
            .with_groups([("my suite", 1)]);
        let (group, all) = run_grouped(&gates);
        assert_eq!(group, 1, "across processes too");
        assert!(all > 1 && all <= 6, "{all}");
        let group_dir = dir
            .path()
            .join(format!("group-{}", crate::artifacts::sanitize("my suite")));
        assert!(
            group_dir.join("slot-0.lock").is_file(),
            "{}",
            group_dir.display()
        );
    }

    fn lane(gates: &Gates, runner: usize) -> &TicketLock {
        match &gates.lanes {
            Some(Lanes::InProcess(lanes)) => &lanes[runner],
            _ => unreachable!("in-process isolated-by-runner gates"),
        }
    }

    /// Polls until `done` holds.
    fn wait_until(done: impl Fn() -> bool) {
        while !done() {
            thread::sleep(Duration::from_millis(1));
        }
    }

    /// A fresh lock directory under the temp dir, removed on drop.
    fn lock_dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("skillgym-schedule-{name}-"))
            .tempdir()
            .unwrap()
    }

    const IDS: [&str; RUNNERS] = ["claude/sonnet", "codex", "gemini cli"];

    #[test]
    fn serial_runs_one_at_a_time() {
        let gates = Gates::in_process(Schedule::Serial, 8, RUNNERS);
        assert_eq!(run(&gates).max(), 1);
    }

    #[test]
    fn parallel_reaches_and_respects_the_cap() {
        let gates = Gates::in_process(Schedule::Parallel, 4, RUNNERS);
        assert_eq!(run(&gates).max(), 4);
    }

    #[test]
    fn isolated_by_runner_keeps_each_runner_to_one() {
        let gates = Gates::in_process(Schedule::IsolatedByRunner, 8, RUNNERS);
        let meter = run(&gates);
        assert_eq!(meter.runner_max(), vec![1; RUNNERS]);
        assert!((2..=RUNNERS).contains(&meter.max()), "max {}", meter.max());
    }

    #[test]
    fn isolated_by_runner_respects_the_cap() {
        let gates = Gates::in_process(Schedule::IsolatedByRunner, 2, RUNNERS);
        let meter = run(&gates);
        assert_eq!(meter.runner_max(), vec![1; RUNNERS]);
        assert!(meter.max() <= 2, "max {}", meter.max());
    }

    #[test]
    fn isolated_by_runner_serves_each_runner_in_arrival_order() {
        const PER_RUNNER: usize = 5;
        let gates = Gates::in_process(Schedule::IsolatedByRunner, 8, RUNNERS);
        let order: Vec<Mutex<Vec<usize>>> = (0..RUNNERS).map(|_| Mutex::new(Vec::new())).collect();
        // Every runner's lane is held while its waiters arrive one by one.
        let holders: Vec<GateGuard<'_>> = (0..RUNNERS)
            .map(|r| gates.enter(r, None).expect("enter"))
            .collect();
        thread::scope(|scope| {
            for rank in 0..PER_RUNNER {
                for runner in 0..RUNNERS {
                    let (gates, order) = (&gates, &order);
                    scope.spawn(move || {
                        let _guard = gates.enter(runner, None).expect("enter");
                        lock(&order[runner]).push(rank);
                        thread::sleep(Duration::from_millis(2));
                    });
                    // The next waiter starts only once this one holds its ticket (the holder
                    // has ticket 0).
                    let lane = lane(gates, runner);
                    wait_until(|| lock(&lane.state).next == rank as u64 + 2);
                }
            }
            drop(holders);
        });
        for runner_order in order {
            assert_eq!(
                runner_order.into_inner().unwrap(),
                (0..PER_RUNNER).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn global_slots_are_served_in_arrival_order() {
        const WAITERS: usize = 6;
        let gates = Gates::in_process(Schedule::Serial, 1, 1);
        let order = Mutex::new(Vec::new());
        let holder = gates.enter(0, None).expect("enter");
        let Slots::InProcess(semaphore) = &gates.slots else {
            unreachable!("in-process gates")
        };
        thread::scope(|scope| {
            for rank in 0..WAITERS {
                let (gates, order) = (&gates, &order);
                scope.spawn(move || {
                    let _guard = gates.enter(0, None).expect("enter");
                    lock(order).push(rank);
                });
                wait_until(|| lock(&semaphore.state).next_ticket == rank as u64 + 2);
            }
            drop(holder);
        });
        assert_eq!(
            order.into_inner().unwrap(),
            (0..WAITERS).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_guard_dropped_while_panicking_releases() {
        for gates in [
            Gates::in_process(Schedule::IsolatedByRunner, 1, 1),
            Gates::in_process(Schedule::Serial, 1, 1),
        ] {
            let panicked = thread::scope(|scope| {
                scope
                    .spawn(|| {
                        let _guard = gates.enter(0, None).expect("enter");
                        panic!("execution panicked");
                    })
                    .join()
            });
            assert!(panicked.is_err());
            // Both the lane and the slot are free again.
            drop(gates.enter(0, None).expect("enter after a panic"));
        }
    }

    #[test]
    fn poisoned_gates_keep_working() {
        let gates = Gates::in_process(Schedule::IsolatedByRunner, 1, 1);
        let Slots::InProcess(semaphore) = &gates.slots else {
            unreachable!("in-process gates")
        };
        let lane = lane(&gates, 0);
        thread::scope(|scope| {
            let poisoned = scope.spawn(|| {
                let _slots = semaphore.state.lock();
                let _lane = lane.state.lock();
                panic!("poisoning the gates");
            });
            assert!(poisoned.join().is_err());
        });
        assert!(semaphore.state.is_poisoned() && lane.state.is_poisoned());
        drop(gates.enter(0, None).expect("enter"));
        drop(gates.enter(0, None).expect("enter again"));
    }

    #[test]
    fn cross_process_parallel_reaches_and_respects_the_cap() {
        let dir = lock_dir("parallel");
        let gates = Gates::cross_process(Schedule::Parallel, 4, &IDS, dir.path().join("locks"));
        assert_eq!(run(&gates).max(), 4);
        for k in 0..4 {
            assert!(dir.path().join(format!("locks/slot-{k}.lock")).is_file());
        }
        assert!(!dir.path().join("locks/slot-4.lock").exists());
    }

    #[test]
    fn cross_process_serial_runs_one_at_a_time() {
        let dir = lock_dir("serial");
        let gates = Gates::cross_process(Schedule::Serial, 8, &IDS, dir.path().to_path_buf());
        assert_eq!(run(&gates).max(), 1);
    }

    #[test]
    fn cross_process_isolated_by_runner_keeps_each_runner_to_one() {
        let dir = lock_dir("isolated");
        let gates = Gates::cross_process(
            Schedule::IsolatedByRunner,
            8,
            &IDS,
            dir.path().to_path_buf(),
        );
        let meter = run(&gates);
        assert_eq!(meter.runner_max(), vec![1; RUNNERS]);
        assert!((2..=RUNNERS).contains(&meter.max()), "max {}", meter.max());
        for id in IDS {
            let name = format!("runner-{}.lock", crate::artifacts::sanitize(id));
            assert!(dir.path().join(&name).is_file(), "{name}");
        }
        assert!(dir.path().join("runner-codex.lock").is_file());
    }

    #[test]
    fn cross_process_isolated_by_runner_respects_the_cap() {
        let dir = lock_dir("isolated-cap");
        let gates = Gates::cross_process(
            Schedule::IsolatedByRunner,
            2,
            &IDS,
            dir.path().to_path_buf(),
        );
        let meter = run(&gates);
        assert_eq!(meter.runner_max(), vec![1; RUNNERS]);
        assert!(meter.max() <= 2, "max {}", meter.max());
    }

    #[test]
    fn cross_process_gates_share_locks_between_instances() {
        // Two `Gates` on one directory behave like two processes of one run.
        let dir = lock_dir("shared");
        let first = Gates::cross_process(
            Schedule::IsolatedByRunner,
            8,
            &IDS,
            dir.path().to_path_buf(),
        );
        let second = Gates::cross_process(
            Schedule::IsolatedByRunner,
            8,
            &IDS,
            dir.path().to_path_buf(),
        );
        let meter = Meter::default();
        let start = Barrier::new(TASKS);
        thread::scope(|scope| {
            for task in 0..TASKS {
                let gates = if task % 2 == 0 { &first } else { &second };
                let (meter, start) = (&meter, &start);
                scope.spawn(move || {
                    let runner = (task / 2) % RUNNERS;
                    start.wait();
                    let _guard = gates.enter(runner, None).expect("enter");
                    meter.hold(runner);
                });
            }
        });
        assert_eq!(meter.runner_max(), vec![1; RUNNERS]);
    }

    #[test]
    fn cross_process_errors_are_reported() {
        let dir = lock_dir("error");
        let file = dir.path().join("file");
        fs::write(&file, "a file, not a directory").expect("write");
        let gates = Gates::cross_process(Schedule::Parallel, 2, &IDS, file.join("locks"));
        assert!(gates.enter(0, None).is_err());
    }

    #[test]
    fn worker_threads_per_schedule() {
        assert_eq!(worker_threads(Schedule::Serial, 8, 100, false), 1);
        assert_eq!(worker_threads(Schedule::Serial, 8, 0, false), 1);
        assert_eq!(worker_threads(Schedule::Parallel, 4, 100, false), 4);
        assert_eq!(worker_threads(Schedule::Parallel, 4, 2, false), 2);
        assert_eq!(worker_threads(Schedule::Parallel, 4, 0, false), 1);
        assert_eq!(worker_threads(Schedule::Parallel, 0, 10, false), 1);
        assert_eq!(
            worker_threads(Schedule::IsolatedByRunner, 2, 100, false),
            100
        );
        assert_eq!(
            worker_threads(Schedule::IsolatedByRunner, 2, 10_000, false),
            ISOLATED_WORKER_WINDOW
        );
        assert_eq!(worker_threads(Schedule::IsolatedByRunner, 2, 0, false), 1);
        // A group (a suite's `execution.workers`) may hold trials back: the window, as lanes.
        assert_eq!(worker_threads(Schedule::Parallel, 4, 100, true), 100);
        assert_eq!(worker_threads(Schedule::Serial, 4, 100, true), 1);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn unknown_runner_panics() {
        let gates = Gates::in_process(Schedule::Parallel, 2, 1);
        let _ = gates.enter(1, None);
    }
}
