//! [`Status`]: the verdict of an attempt, repetition or execution (`status` in `result.json`).

use serde::{Deserialize, Serialize};

/// The verdict of an attempt, repetition or execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Status {
    /// The checks passed.
    Passed,
    /// The checks or the infrastructure failed.
    Failed,
    /// A case marked `expected_fail` failed its checks, as expected (counts as passing).
    ExpectedFailed,
    /// A case marked `expected_fail` passed (counts as failing: the expectation is stale).
    UnexpectedPassed,
    /// Not run.
    Skipped,
    /// Cut short by a signal to the harness (SIGINT, SIGTERM, SIGHUP); the agent was killed and
    /// what it did so far is kept.
    Interrupted,
}

impl Status {
    /// Whether this status counts as passing.
    pub fn is_passing(self) -> bool {
        matches!(
            self,
            Status::Passed | Status::ExpectedFailed | Status::Skipped
        )
    }

    /// The kebab-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::ExpectedFailed => "expected-failed",
            Status::UnexpectedPassed => "unexpected-passed",
            Status::Skipped => "skipped",
            Status::Interrupted => "interrupted",
        }
    }
}
