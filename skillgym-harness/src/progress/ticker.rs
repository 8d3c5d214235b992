//! The ticker: a thread that, a few times a second, redraws the status block or prints the
//! slow-execution notices that are due.

use std::io;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::StatusLines;
use super::board::Board;
use super::format;
use super::forward::{self, block_interrupting_signals};

/// How often the status block is redrawn.
const REDRAW: Duration = Duration::from_millis(250);

/// What the ticker shows.
#[derive(Clone)]
pub(super) enum Show {
    /// The status block on the forwarded terminal.
    Status(StatusLines),
    /// A notice each time an execution has run another `every`: between the forwarded
    /// lines of stdout, or straight to stderr.
    Notices {
        /// The threshold.
        every: Duration,
        /// Whether stdout is forwarded (else the notices go to stderr).
        on_screen: bool,
    },
}

/// The running ticker.
#[derive(Debug)]
pub(super) struct Ticker {
    stop: Sender<()>,
    thread: JoinHandle<()>,
}

impl Ticker {
    /// Starts the ticker over `board`.
    pub(super) fn start(board: Arc<Board>, show: Show) -> io::Result<Ticker> {
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("skillgym-progress".into())
            .spawn(move || {
                block_interrupting_signals();
                let interval = interval(&show);
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                    tick(&board, &show, Instant::now());
                }
            })?;
        Ok(Ticker { stop, thread })
    }

    /// Stops the ticker and waits for it.
    pub(super) fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}

/// How often the ticker looks: 4 times a second, more often for a notice threshold under a
/// second (a test's).
fn interval(show: &Show) -> Duration {
    match show {
        Show::Status(_) => REDRAW,
        Show::Notices { every, .. } => (*every / 4).clamp(Duration::from_millis(10), REDRAW),
    }
}

fn tick(board: &Board, show: &Show, now: Instant) {
    match show {
        Show::Status(status) => {
            let lines = status();
            forward::with_screen(|screen| screen.status(lines));
        }
        Show::Notices { every, on_screen } => {
            for due in board.due_notices(now, *every) {
                let line = format::notice_line(&due);
                if *on_screen {
                    forward::with_screen(|screen| screen.notice(&line));
                } else {
                    eprintln!("{line}");
                }
            }
        }
    }
}
