//! The run-level `results.json` and the closing summary of an in-process run.

use std::path::PathBuf;

use serde::Serialize;

use crate::artifacts::{RunDir, write_json};
use crate::execute::{ExecutionResult, Status};

/// The content of `<run>/results.json`.
#[derive(Debug, Serialize)]
pub struct RunResults<'a> {
    /// The run id.
    pub run_id: &'a str,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Start of the run, RFC 3339.
    pub started_at: String,
    /// End of the run, RFC 3339.
    pub ended_at: String,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// The tag filter in force.
    pub selected_tags: &'a [String],
    /// Counts per status.
    pub summary: Counts,
    /// Every execution that ran, in plan order (case id, then runner order).
    pub executions: Vec<&'a ExecutionResult>,
}

/// How many executions ended in each status.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
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
            }
        }
        counts
    }
}

/// Writes `results.json` and returns its path.
pub fn write_results(run_dir: &RunDir, results: &RunResults<'_>) -> std::io::Result<PathBuf> {
    let path = run_dir.path().join("results.json");
    write_json(&path, results)?;
    Ok(path)
}

/// The closing lines printed after libtest's own summary.
pub fn summary_lines(counts: Counts, results_path: &std::path::Path) -> String {
    format!(
        "skillgym: {} executions: {} passed, {} failed, {} expected-failed, {} unexpected-passed\nskillgym: results: {}\n",
        counts.executions,
        counts.passed,
        counts.failed,
        counts.expected_failed,
        counts.unexpected_passed,
        results_path.display()
    )
}
