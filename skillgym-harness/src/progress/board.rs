//! The board of running executions: each one's runner, case, repetition, attempt, start and
//! live step count, read by the ticker.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The executions running in this process, in the order they started.
#[derive(Debug, Default)]
pub(crate) struct Board {
    running: Mutex<Vec<Arc<Entry>>>,
}

/// One running execution.
#[derive(Debug)]
struct Entry {
    runner: String,
    case: String,
    started: Instant,
    repeat_target: u32,
    repetition: AtomicU32,
    attempt: AtomicU32,
    /// The model steps of the current attempt's session, published as they are parsed.
    steps: Arc<AtomicU32>,
    /// How many slow-execution notices were printed for it.
    notices: AtomicU32,
}

/// What the board knows of one execution at one instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snapshot {
    /// The runner id.
    pub runner: String,
    /// The case id.
    pub case: String,
    /// The current repetition (1-based).
    pub repetition: u32,
    /// How many repetitions the execution aims for.
    pub repeat_target: u32,
    /// The current attempt of the repetition (1-based).
    pub attempt: u32,
    /// The model steps of the current attempt so far.
    pub steps: u32,
    /// Time since the execution started.
    pub elapsed: Duration,
}

/// A slow-execution notice that is due: the execution, and the multiple of the threshold it
/// has been running for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Due {
    /// The execution.
    pub snapshot: Snapshot,
    /// How long it has been running, as a whole multiple of the notice threshold.
    pub running_for: Duration,
}

impl Board {
    /// Puts an execution on the board; it leaves when the returned guard drops.
    pub(crate) fn start(&self, runner: &str, case: &str, repeat_target: u32) -> Running<'_> {
        let entry = Arc::new(Entry {
            runner: runner.to_owned(),
            case: case.to_owned(),
            started: Instant::now(),
            repeat_target,
            repetition: AtomicU32::new(1),
            attempt: AtomicU32::new(1),
            steps: Arc::new(AtomicU32::new(0)),
            notices: AtomicU32::new(0),
        });
        self.entries().push(Arc::clone(&entry));
        Running { board: self, entry }
    }

    /// Every running execution as of `now`, oldest first.
    pub(crate) fn snapshots(&self, now: Instant) -> Vec<Snapshot> {
        self.entries()
            .iter()
            .map(|entry| entry.snapshot(now))
            .collect()
    }

    /// The notices due at `now`: one for each execution that has run past the next multiple
    /// of `every` since its last notice (several multiples passed at once give one notice).
    pub(crate) fn due_notices(&self, now: Instant, every: Duration) -> Vec<Due> {
        let every_ms = every.as_millis().max(1);
        self.entries()
            .iter()
            .filter_map(|entry| {
                let snapshot = entry.snapshot(now);
                let multiple = u32::try_from(snapshot.elapsed.as_millis() / every_ms).ok()?;
                let sent = entry.notices.load(Ordering::Relaxed);
                if multiple <= sent {
                    return None;
                }
                entry.notices.store(multiple, Ordering::Relaxed);
                Some(Due {
                    snapshot,
                    running_for: every * multiple,
                })
            })
            .collect()
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Entry>>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Entry {
    fn snapshot(&self, now: Instant) -> Snapshot {
        Snapshot {
            runner: self.runner.clone(),
            case: self.case.clone(),
            repetition: self.repetition.load(Ordering::Relaxed),
            repeat_target: self.repeat_target,
            attempt: self.attempt.load(Ordering::Relaxed),
            steps: self.steps.load(Ordering::Relaxed),
            elapsed: now.saturating_duration_since(self.started),
        }
    }
}

/// An execution on the board; dropping it takes it off.
#[derive(Debug)]
pub(crate) struct Running<'a> {
    board: &'a Board,
    entry: Arc<Entry>,
}

impl Running<'_> {
    /// Marks the start of an attempt; returns the counter its session publishes its model steps
    /// to (reset to 0).
    pub(crate) fn attempt(&self, repetition: u32, attempt: u32) -> Arc<AtomicU32> {
        self.entry.repetition.store(repetition, Ordering::Relaxed);
        self.entry.attempt.store(attempt, Ordering::Relaxed);
        self.entry.steps.store(0, Ordering::Relaxed);
        Arc::clone(&self.entry.steps)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.board
            .entries()
            .retain(|entry| !Arc::ptr_eq(entry, &self.entry));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_execution_is_on_the_board_while_it_runs() {
        let board = Board::default();
        let running = board.start("fake", "case", 3);
        let steps = running.attempt(2, 1);
        steps.store(7, Ordering::Relaxed);
        let now = Instant::now();
        let [snapshot] = board.snapshots(now).try_into().unwrap();
        assert_eq!(
            (snapshot.runner.as_str(), snapshot.case.as_str()),
            ("fake", "case")
        );
        assert_eq!(
            (
                snapshot.repetition,
                snapshot.repeat_target,
                snapshot.attempt
            ),
            (2, 3, 1)
        );
        assert_eq!(snapshot.steps, 7);
        assert_eq!(running.attempt(2, 2).load(Ordering::Relaxed), 0, "reset");
        drop(running);
        assert!(board.snapshots(now).is_empty());
    }

    #[test]
    fn a_notice_is_due_at_each_multiple_of_the_threshold_once() {
        let board = Board::default();
        let _running = board.start("fake", "case", 1);
        let started = Instant::now();
        let every = Duration::from_secs(60);
        let due = |after: u64| {
            board
                .due_notices(started + Duration::from_secs(after), every)
                .into_iter()
                .map(|due| due.running_for.as_secs())
                .collect::<Vec<_>>()
        };
        assert_eq!(due(59), Vec::<u64>::new());
        assert_eq!(due(61), [60]);
        assert_eq!(due(90), Vec::<u64>::new(), "once per multiple");
        assert_eq!(due(121), [120]);
        assert_eq!(due(400), [360], "one notice for several multiples");
    }
}
