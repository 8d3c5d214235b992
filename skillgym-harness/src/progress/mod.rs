//! Live progress while the trials run: agent sessions take minutes, and libtest says nothing
//! until a trial ends.
//!
//! | where the run's stdout goes | what is shown |
//! |---|---|
//! | a terminal (libtest's pretty format) | a status line per running execution at the bottom, `running [runner] case (rep 2/3 attempt 1, 1m05s, 12 steps)`, redrawn 4 times a second and erased at the end |
//! | a pipe or a file, or a `TERM=dumb` terminal (pretty format) | `skillgym: [runner] case has been running for 60 s (repetition 1/3, attempt 1, 12 steps)` on its own line once an execution has run 60 s, and every 60 s after, as libtest does for slow tests |
//! | anywhere, with `--format json`, `--format terse` or `-q`, or under nextest's process per test (which captures each trial's output) | those notices, straight to stderr |
//! | `--list` | nothing |
//!
//! So that nothing is written in the middle of one of libtest's lines (`test [r] c ... ` is
//! completed only when the trial ends), file descriptor 1 (and 2, when it is the terminal too)
//! is replaced by a pipe for the run: a forwarder copies only complete lines to the real one,
//! and the status and notices are drawn between them (`screen` holds that logic, `forward` the
//! plumbing). The status is dimmed unless `--color never`, or `auto` with `NO_COLOR`
//! (or `CLICOLOR=0`, `TERM=dumb`); since libtest's stdout becomes a pipe, its `auto` colour
//! is turned into `always` when it would have coloured the terminal. A second SIGINT or a
//! `std::process::exit` restores the terminal through [`restore_at_exit`].
//!
//! | module | role |
//! |---|---|
//! | `board` | the running executions: runner, case, repetition, attempt, start, live step count |
//! | `format` | the status and notice lines |
//! | `screen` | complete lines only; notices between them; the status erased and redrawn |
//! | `forward` | the pipes at file descriptors 1 and 2, their forwarders, the restore |
//! | `ticker` | the thread that redraws the status or prints the notices that are due |
//!
//! A test seam, not for users: `SKILLGYM_PROGRESS_NOTICE_MS` sets the notice threshold in
//! milliseconds (default [`NOTICE_AFTER`]), so that an end-to-end test need not wait a minute.

mod board;
mod format;
mod forward;
mod screen;
mod ticker;

pub(crate) use board::{Board, Running};
pub(crate) use forward::restore_at_exit;

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, ColorSetting, FormatSetting};

use forward::Forwarding;
use ticker::{Show, Ticker};

/// How long an execution runs before its first notice (off a terminal), and between notices.
pub(crate) const NOTICE_AFTER: Duration = Duration::from_secs(60);

/// The variable that lowers [`NOTICE_AFTER`] for tests (milliseconds).
const NOTICE_VAR: &str = "SKILLGYM_PROGRESS_NOTICE_MS";

/// The status lines of the moment: the ticker draws them, and the forwarders redraw them after
/// each output (so that an execution that just ended is not shown again).
type StatusLines = Arc<dyn Fn() -> Vec<String> + Send + Sync>;

/// The progress of a run: stop it with [`Progress::finish`] (dropping it does the same).
#[derive(Debug, Default)]
pub(crate) struct Progress {
    ticker: Option<Ticker>,
    forwarding: Option<Forwarding>,
}

impl Progress {
    /// Erases the status, restores the real stdout and stderr and writes what is left.
    pub(crate) fn finish(mut self) {
        self.end();
    }

    fn end(&mut self) {
        if let Some(ticker) = self.ticker.take() {
            ticker.stop();
        }
        if let Some(forwarding) = self.forwarding.take() {
            forwarding.finish();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.end();
    }
}

/// Starts showing the progress of the executions on `board`, as the arguments and the
/// terminal call for (see the module's table). `per_test`: under nextest's process per test.
/// May set libtest's colour to `always`, since its stdout becomes a pipe.
pub(crate) fn start(arguments: &mut Arguments, board: &Arc<Board>, per_test: bool) -> Progress {
    let var = |key: &str| std::env::var(key).ok();
    let facts = Facts {
        list: arguments.list,
        machine_format: arguments.quiet
            || matches!(
                arguments.format,
                Some(FormatSetting::Json | FormatSetting::Terse)
            ),
        per_test,
        terminal: std::io::stdout().is_terminal(),
        dumb: var("TERM").as_deref() == Some("dumb"),
    };
    let every = notice_after(var(NOTICE_VAR).as_deref());
    let notices = |on_screen| Show::Notices { every, on_screen };
    match display(&facts) {
        Display::Off => Progress::default(),
        Display::Notices { forward: false } => ticking(board, notices(false), None),
        Display::Notices { forward: true } => match Forwarding::start(false, None) {
            Ok(forwarding) => ticking(board, notices(true), Some(forwarding)),
            Err(error) => {
                eprintln!("skillgym: cannot forward the output, notices go to stderr: {error}");
                ticking(board, notices(false), None)
            }
        },
        Display::Live => live(arguments, board, auto_color(var)),
    }
}

/// The live status on the terminal, stdout (and stderr, when it is the terminal too)
/// forwarded. `auto`: whether `--color auto` colours the terminal.
fn live(arguments: &mut Arguments, board: &Arc<Board>, auto: bool) -> Progress {
    let status = status_lines(board, status_color(arguments.color, auto));
    let stderr_too = std::io::stderr().is_terminal();
    match Forwarding::start(stderr_too, Some(Arc::clone(&status))) {
        Ok(forwarding) => {
            if arguments.color.unwrap_or(ColorSetting::Auto) == ColorSetting::Auto && auto {
                // libtest's stdout is a pipe now: its `auto` would never colour.
                arguments.color = Some(ColorSetting::Always);
            }
            ticking(board, Show::Status(status), Some(forwarding))
        }
        Err(error) => {
            eprintln!("skillgym: cannot forward the output, no live status: {error}");
            Progress::default()
        }
    }
}

/// The status block of the executions on `board`, fitted to the terminal's width.
fn status_lines(board: &Arc<Board>, color: bool) -> StatusLines {
    let board = Arc::clone(board);
    Arc::new(move || {
        let snapshots = board.snapshots(Instant::now());
        format::status_block(&snapshots, forward::real_stdout_columns(), color)
    })
}

/// A progress with its ticker started (when it cannot start, the forwarding still ends
/// properly).
fn ticking(board: &Arc<Board>, show: Show, forwarding: Option<Forwarding>) -> Progress {
    let ticker = Ticker::start(Arc::clone(board), show)
        .inspect_err(|error| eprintln!("skillgym: cannot show the progress: {error}"))
        .ok();
    Progress { ticker, forwarding }
}

/// What decides how the progress is shown.
#[derive(Debug, Clone, Copy, Default)]
struct Facts {
    /// `--list`.
    list: bool,
    /// `--format json`, `--format terse` or `-q`.
    machine_format: bool,
    /// nextest's process per test.
    per_test: bool,
    /// Whether stdout is a terminal.
    terminal: bool,
    /// `TERM=dumb`: a terminal without cursor movement.
    dumb: bool,
}

/// How the progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Display {
    /// Not at all.
    Off,
    /// The status block on the terminal, stdout (and stderr) forwarded.
    Live,
    /// Notices for slow executions: between the lines of a forwarded stdout, else on stderr.
    Notices { forward: bool },
}

fn display(facts: &Facts) -> Display {
    match facts {
        Facts { list: true, .. } => Display::Off,
        Facts { per_test: true, .. }
        | Facts {
            machine_format: true,
            ..
        } => Display::Notices { forward: false },
        Facts {
            terminal: true,
            dumb: false,
            ..
        } => Display::Live,
        _ => Display::Notices { forward: true },
    }
}

/// The notice threshold: the variable's milliseconds when it holds a positive number.
fn notice_after(var: Option<&str>) -> Duration {
    var.and_then(|ms| ms.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(NOTICE_AFTER, Duration::from_millis)
}

/// Whether `auto` colours a terminal, as libtest-mimic's (anstream's) does: not with
/// `NO_COLOR` set, always with `CLICOLOR_FORCE`, not with `CLICOLOR=0`, else when `TERM` is
/// set and not `dumb`.
fn auto_color(var: impl Fn(&str) -> Option<String>) -> bool {
    let set = |key: &str| var(key).filter(|value| !value.is_empty());
    if set("NO_COLOR").is_some() {
        return false;
    }
    if set("CLICOLOR_FORCE").is_some_and(|value| value != "0") {
        return true;
    }
    if set("CLICOLOR").is_some_and(|value| value == "0") {
        return false;
    }
    set("TERM").is_some_and(|term| term != "dumb")
}

/// Whether the status is dimmed: `--color always`, or `auto` where it colours.
fn status_color(setting: Option<ColorSetting>, auto: bool) -> bool {
    match setting.unwrap_or(ColorSetting::Auto) {
        ColorSetting::Always => true,
        ColorSetting::Never => false,
        ColorSetting::Auto => auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_display_follows_the_arguments_and_the_terminal() {
        let terminal = Facts {
            terminal: true,
            ..Facts::default()
        };
        assert_eq!(display(&terminal), Display::Live);
        assert_eq!(
            display(&Facts::default()),
            Display::Notices { forward: true }
        );
        let on_stderr = Display::Notices { forward: false };
        for facts in [
            Facts {
                machine_format: true,
                ..terminal
            },
            Facts {
                per_test: true,
                ..terminal
            },
        ] {
            assert_eq!(display(&facts), on_stderr, "{facts:?}");
        }
        let dumb = Facts {
            dumb: true,
            ..terminal
        };
        assert_eq!(display(&dumb), Display::Notices { forward: true });
        let list = Facts {
            list: true,
            ..terminal
        };
        assert_eq!(display(&list), Display::Off);
    }

    #[test]
    fn the_notice_threshold_is_a_minute_unless_a_test_lowers_it() {
        assert_eq!(NOTICE_AFTER, Duration::from_secs(60));
        assert_eq!(notice_after(None), NOTICE_AFTER);
        assert_eq!(notice_after(Some("300")), Duration::from_millis(300));
        assert_eq!(notice_after(Some("0")), NOTICE_AFTER);
        assert_eq!(notice_after(Some("soon")), NOTICE_AFTER);
    }

    #[test]
    fn colors_follow_the_flag_then_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert!(auto_color(env(&[("TERM", "xterm")])));
        assert!(!auto_color(env(&[("TERM", "xterm"), ("NO_COLOR", "1")])));
        assert!(auto_color(env(&[("TERM", "xterm"), ("NO_COLOR", "")])));
        assert!(!auto_color(env(&[("TERM", "dumb")])));
        assert!(!auto_color(env(&[])));
        assert!(!auto_color(env(&[("TERM", "xterm"), ("CLICOLOR", "0")])));
        assert!(auto_color(env(&[("CLICOLOR_FORCE", "1")])));
        assert!(status_color(Some(ColorSetting::Always), false));
        assert!(!status_color(Some(ColorSetting::Never), true));
        assert!(status_color(None, true));
        assert!(!status_color(Some(ColorSetting::Auto), false));
    }
}
