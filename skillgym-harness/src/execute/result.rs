//! Verdicts of attempts, repetitions and executions, as written to `result.json` and
//! `results.json`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use skillgym::{Failure, Usage};

/// The verdict of an attempt, repetition or execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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
        }
    }
}

/// One agent session and its checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptResult {
    /// 1-based repetition number.
    pub repetition: u32,
    /// 1-based attempt number inside the repetition.
    pub attempt: u32,
    /// The verdict, after expected-failure mapping.
    pub status: Status,
    /// Whether the verdict counts as passing.
    pub passed: bool,
    /// Why the checks or the session failed (also kept for an expected failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Wall time of the attempt (workspace, session and checks) in milliseconds.
    pub duration_ms: u64,
    /// Token usage of the session.
    pub usage: Usage,
    /// Model rounds observed.
    pub steps: u32,
    /// The agent's exit code, if it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the agent, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The attempt's artifact directory.
    pub artifact_dir: PathBuf,
}

/// One repetition: its attempts, the last of which decides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepetitionResult {
    /// 1-based repetition number.
    pub repetition: u32,
    /// The verdict of its final attempt.
    pub status: Status,
    /// Whether it counts as passing.
    pub passed: bool,
    /// Every attempt, in order.
    pub attempts: Vec<AttemptResult>,
}

impl RepetitionResult {
    /// The attempt that decided the repetition.
    pub fn final_attempt(&self) -> Option<&AttemptResult> {
        self.attempts.last()
    }
}

/// One case on one runner, with all its repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecutionResult {
    /// The case id.
    pub case_id: String,
    /// The runner id.
    pub runner_id: String,
    /// The verdict.
    pub status: Status,
    /// Whether it counts as passing.
    pub passed: bool,
    /// Whether the case is marked `expected_fail`.
    pub expected_fail: bool,
    /// The terminal failure, if the execution failed (or failed as expected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Successful repetitions wanted.
    pub repeat_target: u32,
    /// Repetitions that ran to a verdict.
    pub completed_repetitions: u32,
    /// Repetitions that passed.
    pub successful_repetitions: u32,
    /// Repetitions that failed.
    pub failed_repetitions: u32,
    /// The repetition the execution stopped at, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at_repetition: Option<u32>,
    /// Mean duration of the final attempts of successful repetitions (else of the terminal
    /// attempt), in milliseconds.
    pub duration_ms: u64,
    /// The execution's directory `<run>/<case>/<runner>`.
    pub artifact_dir: PathBuf,
    /// Every repetition, in order.
    pub repetitions: Vec<RepetitionResult>,
}
