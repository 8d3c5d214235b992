//! The text of the live status lines and of the slow-execution notices; the runner and case
//! ids in them are escaped ([`terminal_text`](crate::terminal_text)).

use super::board::{Due, Snapshot};
use crate::duration::{clock, seconds};
use crate::terminal_text::escape_one_line;

/// At most this many status lines are drawn; the rest are counted on the last one.
pub(super) const MAX_STATUS_LINES: usize = 8;

/// The columns assumed when the terminal does not tell its width.
pub(super) const DEFAULT_COLUMNS: usize = 80;

/// `running [fake] always_passes (rep 2/3 attempt 1, 1m05s, 12 steps)`.
pub(super) fn status_line(snapshot: &Snapshot) -> String {
    format!(
        "running [{}] {} (rep {}/{} attempt {}, {}, {})",
        escape_one_line(&snapshot.runner),
        escape_one_line(&snapshot.case),
        snapshot.repetition,
        snapshot.repeat_target,
        snapshot.attempt,
        clock(snapshot.elapsed),
        steps(snapshot.steps)
    )
}

/// `skillgym: [fake] always_passes has been running for 60 s (repetition 1/3, attempt 1,
/// 12 steps)`.
pub(super) fn notice_line(due: &Due) -> String {
    let snapshot = &due.snapshot;
    format!(
        "skillgym: [{}] {} has been running for {} (repetition {}/{}, attempt {}, {})",
        escape_one_line(&snapshot.runner),
        escape_one_line(&snapshot.case),
        seconds(due.running_for),
        snapshot.repetition,
        snapshot.repeat_target,
        snapshot.attempt,
        steps(snapshot.steps)
    )
}

/// The status block: a line per running execution, oldest first, at most
/// [`MAX_STATUS_LINES`] (the last one then counts the others), each cut to fit `columns`
/// and dimmed when `color`.
pub(super) fn status_block(snapshots: &[Snapshot], columns: usize, color: bool) -> Vec<String> {
    let mut lines: Vec<String> = snapshots.iter().map(status_line).collect();
    if lines.len() > MAX_STATUS_LINES {
        let more = lines.len() - (MAX_STATUS_LINES - 1);
        lines.truncate(MAX_STATUS_LINES - 1);
        lines.push(format!("… and {more} more running"));
    }
    lines
        .into_iter()
        .map(|line| dim(&fit(&line, columns), color))
        .collect()
}

/// `1 step`, `12 steps`.
fn steps(count: u32) -> String {
    match count {
        1 => "1 step".to_owned(),
        n => format!("{n} steps"),
    }
}

/// `line` cut to fewer than `columns` characters (ending with `…` when cut), so that it never
/// wraps, nor leaves the cursor in a terminal's last column.
fn fit(line: &str, columns: usize) -> String {
    let room = columns.saturating_sub(1).max(1);
    if line.chars().count() <= room {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(room - 1).collect();
    cut.push('…');
    cut
}

/// `line` in dim text when `color`.
fn dim(line: &str, color: bool) -> String {
    if color {
        format!("\x1b[2m{line}\x1b[0m")
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn snapshot(elapsed: u64, steps: u32) -> Snapshot {
        Snapshot {
            runner: "fake".to_owned(),
            case: "always_passes".to_owned(),
            repetition: 2,
            repeat_target: 3,
            attempt: 1,
            steps,
            elapsed: Duration::from_secs(elapsed),
        }
    }

    #[test]
    fn a_status_line_names_the_execution_its_repetition_time_and_steps() {
        assert_eq!(
            status_line(&snapshot(65, 12)),
            "running [fake] always_passes (rep 2/3 attempt 1, 1m05s, 12 steps)"
        );
        assert_eq!(
            status_line(&snapshot(3, 1)),
            "running [fake] always_passes (rep 2/3 attempt 1, 3s, 1 step)"
        );
    }

    #[test]
    fn a_notice_reads_like_libtests_slow_test_warning() {
        let due = |millis, steps| Due {
            snapshot: snapshot(0, steps),
            running_for: Duration::from_millis(millis),
        };
        assert_eq!(
            notice_line(&due(60_000, 12)),
            "skillgym: [fake] always_passes has been running for 60 s (repetition 2/3, attempt 1, 12 steps)"
        );
        assert_eq!(
            notice_line(&due(300, 0)),
            "skillgym: [fake] always_passes has been running for 0.3 s (repetition 2/3, attempt 1, 0 steps)"
        );
    }

    #[test]
    fn ids_are_shown_escaped() {
        let mut hostile = snapshot(3, 1);
        hostile.runner = "r\x1b[2J".to_owned();
        hostile.case = "c\n::add-mask::x\x07".to_owned();
        assert_eq!(
            status_line(&hostile),
            "running [r\\u{1b}[2J] c\\n::add-mask::x\\u{7} (rep 2/3 attempt 1, 3s, 1 step)"
        );
        let due = Due {
            snapshot: hostile,
            running_for: Duration::from_secs(60),
        };
        assert!(
            notice_line(&due).starts_with(
                "skillgym: [r\\u{1b}[2J] c\\n::add-mask::x\\u{7} has been running for 60 s"
            ),
            "{}",
            notice_line(&due)
        );
    }

    #[test]
    fn the_block_fits_the_terminal_and_counts_what_it_cannot_show() {
        let block = status_block(&[snapshot(1, 0)], 20, false);
        assert_eq!(block, ["running [fake] alw…"]);
        assert_eq!(block[0].chars().count(), 19, "never the last column");
        let many: Vec<Snapshot> = (0..10).map(|s| snapshot(s, 0)).collect();
        let block = status_block(&many, 200, false);
        assert_eq!(block.len(), MAX_STATUS_LINES);
        assert_eq!(block.last().unwrap(), "… and 3 more running");
        assert_eq!(
            status_block(&[snapshot(1, 0)], 200, true),
            ["\x1b[2mrunning [fake] always_passes (rep 2/3 attempt 1, 1s, 0 steps)\x1b[0m"]
        );
    }
}
