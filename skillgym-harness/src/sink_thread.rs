//! A [`LineSink`] moved to a thread of its own once a stream grows large, so that a long
//! session's lines are parsed while the thread that reads them goes on reading and logging.
//!
//! | step | what |
//! |---|---|
//! | [`Offloaded::new`] | wraps a sink: lines reach it on the caller's thread until `after` bytes |
//! | past `after` bytes | the sink moves to a thread (`skillgym-parse`); lines are gathered into batches of [`BATCH`] bytes, at most [`IN_FLIGHT`] waiting (the caller waits for room) |
//! | [`LineSink::poll_stop`] | the pump is about to wait for output: the batch gathered is sent, a stop the thread decided is answered, else the pump is woken when it decides one |
//! | a stop decided on the thread | answered at the pump's next line or wait; no line after the stopping one reaches the sink |
//! | [`LineSink::on_end`] | the pump stops reading: the rest is sent, the thread waited for, and a stop it decided on the last lines answered |
//! | [`Offloaded::finish`] | gives back the sink (waiting for its thread if the pump never ended) |
//!
//! Where no thread can be had, the sink stays on the caller's thread and the move is tried
//! again after as many bytes more. A panic of the sink on its thread is resumed on the
//! caller's, as if the sink had run there.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;

use crate::process::{LineSink, LineVerdict};

/// Bytes of lines gathered before a batch is sent.
pub(crate) const BATCH: usize = 64 * 1024;

/// Batches sent and not yet taken by the sink, at most.
const IN_FLIGHT: usize = 8;

/// A sink that runs on the caller's thread until `after` bytes of lines, then on its own.
pub(crate) struct Offloaded<S> {
    /// `None` only while the sink moves to or from its thread.
    state: Option<State<S>>,
    after: u64,
    /// Bytes of lines (terminators counted) handed over here since the last try to move.
    seen: u64,
}

enum State<S> {
    Here(S),
    Thread(SinkThread<S>),
}

impl<S: LineSink + Send + 'static> Offloaded<S> {
    /// Wraps `sink`, kept on the caller's thread until `after` bytes of lines.
    pub(crate) fn new(sink: S, after: u64) -> Self {
        Offloaded {
            state: Some(State::Here(sink)),
            after,
            seen: 0,
        }
    }

    /// The sink, once every line handed over has reached it.
    pub(crate) fn finish(mut self) -> S {
        self.take_back().0
    }

    /// Takes the sink back from its thread (when it is on one): the sink, and the stop the
    /// thread decided that the pump was not answered yet.
    fn take_back(&mut self) -> (S, Option<String>) {
        match self.state.take().expect("a sink only moves inside a call") {
            State::Here(sink) => (sink, None),
            State::Thread(thread) => thread.finish(),
        }
    }

    /// Counts `bytes` handed to the sink here, and moves it to a thread past `after`.
    fn count(&mut self, bytes: u64, verdict: &LineVerdict) {
        self.seen += bytes;
        if self.seen <= self.after || *verdict != LineVerdict::Continue {
            return;
        }
        self.seen = 0;
        if let Some(State::Here(sink)) = self.state.take() {
            self.state = Some(match SinkThread::start(sink) {
                Ok(thread) => State::Thread(thread),
                Err(sink) => State::Here(sink),
            });
        }
    }

    fn state(&mut self) -> &mut State<S> {
        self.state
            .as_mut()
            .expect("a sink only moves inside a call")
    }
}

impl<S: LineSink + Send + 'static> LineSink for Offloaded<S> {
    fn on_line(&mut self, line: &str) -> LineVerdict {
        match self.state() {
            State::Here(sink) => {
                let verdict = sink.on_line(line);
                self.count(line.len() as u64 + 1, &verdict);
                verdict
            }
            State::Thread(thread) => thread.keep(|batch| {
                batch.text.push_str(line);
                Kept::Text {
                    end: batch.text.len(),
                }
            }),
        }
    }

    fn on_overlong_line(&mut self, number: u64, length: u64) -> LineVerdict {
        match self.state() {
            State::Here(sink) => {
                let verdict = sink.on_overlong_line(number, length);
                self.count(length, &verdict);
                verdict
            }
            State::Thread(thread) => thread.keep(|_| Kept::Overlong { number, length }),
        }
    }

    fn poll_stop(&mut self, cx: &mut Context<'_>) -> Poll<String> {
        match self.state() {
            State::Here(sink) => sink.poll_stop(cx),
            State::Thread(thread) => thread.poll_stop(cx),
        }
    }

    fn on_end(&mut self) -> LineVerdict {
        let (mut sink, stop) = self.take_back();
        let verdict = match stop {
            Some(reason) => LineVerdict::Stop { reason },
            None => sink.on_end(),
        };
        self.state = Some(State::Here(sink));
        verdict
    }
}

/// One line of a [`Batch`].
enum Kept {
    /// A line of the batch's text, ending at this offset.
    Text {
        end: usize,
    },
    Overlong {
        number: u64,
        length: u64,
    },
}

/// Lines sent to the thread together: their text, one after the other, and where each ends.
#[derive(Default)]
struct Batch {
    text: String,
    lines: Vec<Kept>,
}

/// A stop the thread decided, and the pump's waker to call when it does.
#[derive(Default)]
struct Verdict {
    /// Set once `slot` holds a reason: read on every line without a lock.
    decided: AtomicBool,
    slot: Mutex<Slot>,
}

#[derive(Default)]
struct Slot {
    reason: Option<String>,
    waker: Option<Waker>,
}

impl Verdict {
    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the thread's stop and wakes the pump waiting for output, if one is.
    fn decide(&self, reason: String) {
        let waker = {
            let mut slot = self.slot();
            slot.reason = Some(reason);
            self.decided.store(true, Ordering::Release);
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// The stop decided, if one was.
    fn reason(&self) -> Option<String> {
        if !self.decided.load(Ordering::Acquire) {
            return None;
        }
        self.slot().reason.clone()
    }
}

/// A sink running on its own thread, and the batch being gathered for it.
struct SinkThread<S> {
    batch: Batch,
    to_thread: Option<SyncSender<Batch>>,
    /// Batches the thread is done with, cleared, for reuse.
    spare: Receiver<Batch>,
    verdict: Arc<Verdict>,
    /// Whether the pump was answered the thread's stop.
    answered: bool,
    thread: JoinHandle<S>,
}

impl<S: LineSink + Send + 'static> SinkThread<S> {
    /// Hands `sink` to a new thread; gives it back when no thread can be had.
    fn start(sink: S) -> Result<Self, S> {
        let (to_thread, batches) = sync_channel::<Batch>(IN_FLIGHT);
        let (give_back, spare) = sync_channel::<Batch>(IN_FLIGHT + 1);
        let verdict = Arc::new(Verdict::default());
        let decided = Arc::clone(&verdict);
        let thread = crate::handoff::spawn_with("skillgym-parse", sink, move |sink| {
            feed(sink, &batches, &give_back, &decided)
        })?;
        Ok(SinkThread {
            batch: Batch::default(),
            to_thread: Some(to_thread),
            spare,
            verdict,
            answered: false,
            thread,
        })
    }

    /// The thread's stop, answered (once decided, every later line is answered with it).
    fn answer(&mut self) -> Option<String> {
        let reason = self.verdict.reason()?;
        self.answered = true;
        Some(reason)
    }

    /// Gathers a line (`add` puts it in the batch), sending the batch once it holds [`BATCH`]
    /// bytes; a stop decided before it is the answer, and the line is not kept.
    fn keep(&mut self, add: impl FnOnce(&mut Batch) -> Kept) -> LineVerdict {
        if let Some(reason) = self.answer() {
            return LineVerdict::Stop { reason };
        }
        let kept = add(&mut self.batch);
        self.batch.lines.push(kept);
        if self.batch.text.len() >= BATCH {
            self.send();
        }
        LineVerdict::Continue
    }

    /// Sends the batch gathered (if it holds a line), taking a used one in its place.
    fn send(&mut self) {
        if self.batch.lines.is_empty() {
            return;
        }
        let next = self.spare.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        if let Some(to_thread) = &self.to_thread
            && to_thread.send(full).is_err()
        {
            // The thread is gone (the sink panicked): `finish` resumes its panic.
            self.to_thread = None;
        }
    }

    /// The pump waits for output: sends what is gathered; the thread's stop, or a wake-up
    /// once it decides one (the waker is left under the same lock the thread decides under).
    fn poll_stop(&mut self, cx: &mut Context<'_>) -> Poll<String> {
        self.send();
        let mut slot = self.verdict.slot();
        if let Some(reason) = slot.reason.clone() {
            drop(slot);
            self.answered = true;
            return Poll::Ready(reason);
        }
        slot.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// Sends the rest and waits for the thread: the sink, and its stop if the pump was not
    /// answered it.
    fn finish(mut self) -> (S, Option<String>) {
        self.send();
        drop(self.to_thread.take());
        let sink = match self.thread.join() {
            Ok(sink) => sink,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let unanswered = (!self.answered).then(|| self.verdict.reason()).flatten();
        (sink, unanswered)
    }
}

/// The thread's work: hands each batch's lines to the sink in order until it says stop (the
/// lines after that are dropped) and the channel closes; then gives the sink back.
fn feed<S: LineSink>(
    mut sink: S,
    batches: &Receiver<Batch>,
    give_back: &SyncSender<Batch>,
    verdict: &Verdict,
) -> S {
    let mut stopped = false;
    for mut batch in batches {
        if !stopped && let Some(reason) = deliver(&mut sink, &batch) {
            stopped = true;
            verdict.decide(reason);
        }
        batch.text.clear();
        batch.lines.clear();
        // No room (the pump stopped taking them): the batch is simply freed.
        let _ = give_back.try_send(batch);
    }
    sink
}

/// Hands `batch`'s lines to `sink` until it says stop; why it did.
fn deliver(sink: &mut impl LineSink, batch: &Batch) -> Option<String> {
    let mut start = 0;
    for kept in &batch.lines {
        let verdict = match *kept {
            Kept::Text { end } => {
                let line = &batch.text[start..end];
                start = end;
                sink.on_line(line)
            }
            Kept::Overlong { number, length } => sink.on_overlong_line(number, length),
        };
        if let LineVerdict::Stop { reason } = verdict {
            return Some(reason);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::task::Wake;
    use std::time::Duration;

    use super::*;

    /// What a [`Recording`] sink was handed: a line or an overlong line's length, and the name
    /// of the thread that handed it.
    #[derive(Debug, PartialEq)]
    enum Heard {
        Line(String),
        Overlong(u64, u64),
    }

    /// Records every line with the thread it arrived on; says stop at line `stop_at` (1-based).
    #[derive(Default)]
    struct Recording {
        heard: Vec<(Heard, Option<String>)>,
        stop_at: Option<usize>,
        panic_at: Option<usize>,
        /// A line the sink takes this long over.
        slow_at: Option<(usize, Duration)>,
    }

    impl Recording {
        fn hear(&mut self, heard: Heard) -> LineVerdict {
            let thread = std::thread::current().name().map(str::to_owned);
            self.heard.push((heard, thread));
            assert_ne!(
                Some(self.heard.len()),
                self.panic_at,
                "the sink's own panic"
            );
            if let Some((at, pause)) = self.slow_at
                && at == self.heard.len()
            {
                std::thread::sleep(pause);
            }
            match self.stop_at {
                Some(at) if at == self.heard.len() => LineVerdict::Stop {
                    reason: format!("stop at {at}"),
                },
                _ => LineVerdict::Continue,
            }
        }

        fn lines(&self) -> Vec<&Heard> {
            self.heard.iter().map(|(heard, _)| heard).collect()
        }
    }

    impl LineSink for Recording {
        fn on_line(&mut self, line: &str) -> LineVerdict {
            self.hear(Heard::Line(line.to_owned()))
        }

        fn on_overlong_line(&mut self, number: u64, length: u64) -> LineVerdict {
            self.hear(Heard::Overlong(number, length))
        }
    }

    /// The `n`th of the test's lines: an overlong one every 97th, else text of a length that
    /// varies up to twice [`BATCH`].
    fn nth(n: usize) -> Heard {
        if n.is_multiple_of(97) {
            return Heard::Overlong(n as u64, 20 << 20);
        }
        let length = if n.is_multiple_of(500) {
            2 * BATCH
        } else {
            n % 300
        };
        Heard::Line(format!("{n}:{}", "é".repeat(length / 2)))
    }

    /// Hands `heard` to `sink` as the pump would.
    fn hand(sink: &mut impl LineSink, heard: &Heard) -> LineVerdict {
        match heard {
            Heard::Line(line) => sink.on_line(line),
            Heard::Overlong(number, length) => sink.on_overlong_line(*number, *length),
        }
    }

    /// A waker that unparks the test's thread.
    struct Unpark(std::thread::Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    #[test]
    fn every_line_reaches_the_sink_in_order_here_then_on_its_thread() {
        let mut sink = Offloaded::new(Recording::default(), 1000);
        let sent: Vec<Heard> = (1..=3000).map(nth).collect();
        let waker = Arc::new(Unpark(std::thread::current())).into();
        let mut cx = Context::from_waker(&waker);
        for (index, heard) in sent.iter().enumerate() {
            assert_eq!(hand(&mut sink, heard), LineVerdict::Continue);
            if index.is_multiple_of(7) {
                // The pump waits for output now and then: what was gathered goes on.
                assert_eq!(sink.poll_stop(&mut cx), Poll::Pending);
            }
        }
        assert_eq!(sink.on_end(), LineVerdict::Continue);
        let recording = sink.finish();
        assert_eq!(recording.lines(), sent.iter().collect::<Vec<_>>());
        let here = std::thread::current().name().map(str::to_owned);
        let moved = recording
            .heard
            .iter()
            .position(|(_, thread)| *thread != here)
            .expect("the sink moved to a thread");
        assert!((2..200).contains(&moved), "moved after line {moved}");
        assert!(
            recording.heard[moved..]
                .iter()
                .all(|(_, thread)| thread.as_deref() == Some("skillgym-parse")),
            "every later line on `skillgym-parse`"
        );
    }

    #[test]
    fn a_small_stream_never_leaves_the_callers_thread() {
        let mut sink = Offloaded::new(Recording::default(), 1 << 20);
        for n in 1..=100 {
            assert_eq!(sink.on_line(&format!("line {n}")), LineVerdict::Continue);
        }
        assert_eq!(sink.on_end(), LineVerdict::Continue);
        let recording = sink.finish();
        let here = std::thread::current().name().map(str::to_owned);
        assert_eq!(recording.heard.len(), 100);
        assert!(recording.heard.iter().all(|(_, thread)| *thread == here));
    }

    #[test]
    fn a_stop_decided_on_the_thread_wakes_the_waiting_pump_and_answers_every_later_line() {
        let stop_at = 2000;
        let recording = Recording {
            stop_at: Some(stop_at),
            ..Recording::default()
        };
        let mut sink = Offloaded::new(recording, 1000);
        for n in 1..=stop_at + 50 {
            if let LineVerdict::Stop { reason } = hand(&mut sink, &nth(n)) {
                assert_eq!(reason, format!("stop at {stop_at}"));
                break;
            }
        }
        let waker = Arc::new(Unpark(std::thread::current())).into();
        let mut cx = Context::from_waker(&waker);
        let answered = (0..100).find_map(|_| match sink.poll_stop(&mut cx) {
            Poll::Ready(reason) => Some(reason),
            Poll::Pending => {
                std::thread::park_timeout(Duration::from_secs(1));
                None
            }
        });
        assert_eq!(answered.as_deref(), Some("stop at 2000"));
        assert_eq!(
            sink.on_line("after the stop"),
            LineVerdict::Stop {
                reason: "stop at 2000".to_owned()
            }
        );
        let recording = sink.finish();
        assert_eq!(recording.heard.len(), stop_at, "nothing after the stop");
    }

    #[test]
    fn a_stop_on_the_last_lines_is_the_answer_to_the_end() {
        let recording = Recording {
            stop_at: Some(1500),
            ..Recording::default()
        };
        let mut sink = Offloaded::new(recording, 1000);
        for n in 1..=1500 {
            assert_eq!(hand(&mut sink, &nth(n)), LineVerdict::Continue, "line {n}");
        }
        assert_eq!(
            sink.on_end(),
            LineVerdict::Stop {
                reason: "stop at 1500".to_owned()
            }
        );
        assert_eq!(sink.finish().heard.len(), 1500);
    }

    #[test]
    fn a_panic_of_the_sink_on_its_thread_is_resumed_on_the_callers() {
        let recording = Recording {
            panic_at: Some(1200),
            ..Recording::default()
        };
        let mut sink = Offloaded::new(recording, 1000);
        for n in 1..=1300 {
            let _ = hand(&mut sink, &nth(n));
        }
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sink.finish()))
            .err()
            .expect("the sink's panic, resumed");
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or_default();
        assert!(message.contains("the sink's own panic"), "{message}");
    }

    /// A process printing 3,000 lines of 500 bytes, then doing what `then` says.
    fn printer(dir: &std::path::Path, then: &str) -> crate::process::ProcessSpec {
        crate::process::ProcessSpec {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                format!("head -c 1497000 /dev/zero | tr '\\0' x | fold -w 499; echo; {then}")
                    .into(),
            ],
            env: Vec::new(),
            env_remove: Vec::new(),
            cwd: dir.to_path_buf(),
            stdout_log: dir.join("stdout.log"),
            stderr_log: dir.join("stderr.log"),
            timeout: Duration::from_secs(60),
            max_output: None,
        }
    }

    /// A stop decided on the thread at the last line ends the process, whether the process
    /// then waits (the pump is woken) or ends its output (the end is answered).
    #[tokio::test]
    async fn a_process_is_stopped_by_its_sinks_thread_while_silent_or_at_its_end() {
        for then in ["sleep 30", "exit 0"] {
            let dir = tempfile::tempdir().unwrap();
            let recording = Recording {
                stop_at: Some(3000),
                ..Recording::default()
            };
            let mut sink = Offloaded::new(recording, 1000);
            let outcome = crate::process::run(&printer(dir.path(), then), &mut sink)
                .await
                .unwrap();
            let recording = sink.finish();
            assert_eq!(
                outcome.termination,
                crate::process::Termination::Stopped {
                    reason: "stop at 3000".to_owned()
                },
                "{then}"
            );
            assert!(
                outcome.duration < Duration::from_secs(20),
                "{then}: stopped only after {:?}",
                outcome.duration
            );
            assert_eq!(recording.heard.len(), 3000, "{then}");
            assert_eq!(
                recording.heard.last().map(|(heard, _)| heard),
                Some(&Heard::Line("x".repeat(499))),
                "{then}"
            );
            assert_eq!(
                recording
                    .heard
                    .last()
                    .and_then(|(_, thread)| thread.as_deref()),
                Some("skillgym-parse")
            );
        }
    }

    /// A stop decided on the thread after the grace for draining stdout ran out (a process
    /// outside the group, without the reaper's marker, holds the pipe open) is the answer to
    /// the end the pump hears there: the process ended by itself, and is a stopped one.
    #[tokio::test]
    async fn a_stop_decided_after_the_drain_grace_still_stops_the_process() {
        let dir = tempfile::tempdir().unwrap();
        let recording = Recording {
            stop_at: Some(3001),
            slow_at: Some((3001, Duration::from_millis(2500))),
            ..Recording::default()
        };
        let mut sink = Offloaded::new(recording, 1000);
        let mut spec = printer(dir.path(), "exit 0");
        let script = spec.args[1].to_str().unwrap().to_owned();
        spec.args[1] = format!("setsid env -i sleep 30 & echo $!; {script}").into();
        let outcome = crate::process::run(&spec, &mut sink).await.unwrap();
        let recording = sink.finish();
        let holder: libc::pid_t = match &recording.heard[0].0 {
            Heard::Line(pid) => pid.parse().unwrap(),
            other => panic!("{other:?}"),
        };
        // SAFETY: kill(2) of the sleep this test left outside the group on purpose.
        unsafe { libc::kill(holder, libc::SIGKILL) };
        assert_eq!(
            outcome.termination,
            crate::process::Termination::Stopped {
                reason: "stop at 3001".to_owned()
            }
        );
        assert_eq!(outcome.exit_code, Some(0), "it ended by itself");
        assert_eq!(recording.heard.len(), 3001);
    }
}
