//! [`Counts`]: how many executions ended in each [`Status`] (`summary` in `results.json`).

use serde::Serialize;

use super::{ExecutionResult, Status};

/// How many executions ended in each status.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Counts {
    /// Executions that ran.
    pub executions: usize,
    /// `passed`.
    pub passed: usize,
    /// `failed`.
    pub failed: usize,
    /// `expected-failed`.
    pub expected_failed: usize,
    /// `unexpected-passed`.
    pub unexpected_passed: usize,
    /// `skipped`.
    pub skipped: usize,
    /// `interrupted`.
    pub interrupted: usize,
}

impl Counts {
    /// Counts the statuses of `results`.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a ExecutionResult>) -> Counts {
        let mut counts = Counts::default();
        for result in results {
            counts.executions += 1;
            match result.status {
                Status::Passed => counts.passed += 1,
                Status::Failed => counts.failed += 1,
                Status::ExpectedFailed => counts.expected_failed += 1,
                Status::UnexpectedPassed => counts.unexpected_passed += 1,
                Status::Skipped => counts.skipped += 1,
                Status::Interrupted => counts.interrupted += 1,
            }
        }
        counts
    }
}
