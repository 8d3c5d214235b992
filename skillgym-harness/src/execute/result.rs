//! Verdicts of attempts, repetitions and executions, as written to `result.json` and
//! `results.json`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skillgym::{AgentInfo, Failure, Usage};

use crate::sandbox::SandboxRecord;
use crate::snapshot::SnapshotCheck;

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

/// One agent session and its checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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
    /// Where the attempt's isolated workspace was kept (under the run's workspace root): the
    /// attempt failed, or removing its workspace did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_workspace: Option<PathBuf>,
    /// The graders' scores and evidence (declarative cases whose session ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grading: Option<Grading>,
    /// The recorded attempt this one replayed (`--replay`, `type: replay`): no agent ran, and
    /// the session's figures are the recording's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_from: Option<PathBuf>,
    /// The sandbox the session ran in, and what it denied the agent (`sandbox: bubblewrap`;
    /// absent: no sandbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxRecord>,
}

/// How a declarative case's graders judged one attempt (also its `grading.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Grading {
    /// The weighted mean of the graders' scores (0 when a required grader gated it).
    pub score: f64,
    /// The case's pass threshold.
    pub threshold: f64,
    /// `score >= threshold`.
    pub passed: bool,
    /// Every grader, in order.
    pub graders: Vec<GraderResult>,
}

/// One grader's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GraderResult {
    /// Its `name` (or the generated one).
    pub name: String,
    /// Its `type` (`contains`, `code-grader`, `rubrics`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Its weight in the case's score.
    pub weight: f64,
    /// Whether it gates the case's score.
    pub required: bool,
    /// Whether its result was negated.
    pub negate: bool,
    /// In 0..=1.
    pub score: f64,
    /// Its verdict.
    pub verdict: GraderVerdict,
    /// What it checked, each with whether it held and the evidence.
    pub checks: Vec<GraderCheck>,
    /// Grader-specific data (the code grader's `details` and stderr log, metric counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
}

/// A grader's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GraderVerdict {
    /// Satisfied.
    Pass,
    /// Not satisfied.
    Fail,
    /// Did not grade (not counted in the score).
    Skip,
}

/// One thing a grader checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GraderCheck {
    /// What was checked.
    pub text: String,
    /// Whether it held.
    pub passed: bool,
    /// What was observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// One repetition: its attempts, the last of which decides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
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
    /// The repetition decided by its last attempt (`attempts` must not be empty).
    pub fn of(repetition: u32, attempts: Vec<AttemptResult>) -> Self {
        let last = attempts
            .last()
            .expect("a repetition has at least one attempt");
        RepetitionResult {
            repetition,
            status: last.status,
            passed: last.passed,
            attempts,
        }
    }

    /// The attempt that decided the repetition.
    pub fn final_attempt(&self) -> Option<&AttemptResult> {
        self.attempts.last()
    }
}

/// One case on one runner, with all its repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ExecutionResult {
    /// The case id.
    pub case_id: String,
    /// The runner id.
    pub runner_id: String,
    /// The runner's agent: type, model and version, as the run knew them (a result written
    /// before they were recorded reads back with an empty type).
    #[serde(default)]
    pub agent: AgentInfo,
    /// Where the case is declared, `file:line` (a Rust function, or a case of a suite file).
    #[serde(default)]
    pub source: String,
    /// The case's tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The verdict: the terminal repetition's status when the execution failed, else the last
    /// repetition's (`passed` or `expected-failed`).
    pub status: Status,
    /// Whether it counts as passing: every wanted repetition passed.
    pub passed: bool,
    /// Whether the case is marked `expected_fail`.
    pub expected_fail: bool,
    /// The terminal repetition's failure when the execution failed; for a passing execution,
    /// the last repetition's expected failure, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Successful repetitions wanted (`repeat`).
    pub repeat_target: u32,
    /// Extra attempts allowed per repetition after a failure (`repeat_failure`).
    pub repeat_failure: u32,
    /// Repetitions that ran to a verdict.
    pub completed_repetitions: u32,
    /// Repetitions that passed.
    pub successful_repetitions: u32,
    /// Repetitions that failed after all their attempts (0 or 1: the execution stops there).
    pub failed_repetitions: u32,
    /// The repetition the execution stopped at, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at_repetition: Option<u32>,
    /// The execution passed, but only after retrying at least one repetition.
    pub flaky: bool,
    /// Pass rate over every attempt, with its 95% Wilson score interval.
    pub attempts: AttemptStats,
    /// Mean wall time of the final attempts of the successful repetitions (the terminal
    /// attempt's when the execution failed), in milliseconds. Discarded attempts never count.
    pub duration_ms: u64,
    /// Mean token usage over the same attempts as `duration_ms`.
    pub usage: Usage,
    /// The token snapshot check of a passing execution, when `snapshots:` is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotCheck>,
    /// The execution's directory `<run>/<case>/<runner>`.
    pub artifact_dir: PathBuf,
    /// Every repetition, in order, each with its attempts.
    pub repetitions: Vec<RepetitionResult>,
}

impl ExecutionResult {
    /// Where its attempts' isolated workspaces were kept, in attempt order.
    pub fn kept_workspaces(&self) -> impl Iterator<Item = &Path> {
        self.repetitions
            .iter()
            .flat_map(|repetition| &repetition.attempts)
            .filter_map(|attempt| attempt.kept_workspace.as_deref())
    }
}

/// How often attempts passed, over every attempt of an execution (retries included).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AttemptStats {
    /// Attempts run.
    pub total: u32,
    /// Attempts whose status counts as passing.
    pub passing: u32,
    /// `passing / total` (0 when nothing ran).
    pub pass_rate: f64,
    /// The 95% Wilson score interval of the pass rate.
    pub pass_rate_95: Interval,
}

/// A closed interval `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}
