//! [`Grading`]: how a declarative case's graders judged one attempt (an attempt's `grading`,
//! and its `grading.json`).

use serde::{Deserialize, Serialize};

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
    /// Every grader, in order (a conversation's: those of the whole conversation).
    pub graders: Vec<GraderResult>,
    /// A conversation case's turns, in order (none for a case of one turn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnGrading>,
    /// How a conversation's turn scores (and the whole conversation's, when it has graders)
    /// made `score`: `mean`, `min` or `max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<String>,
}

/// How one turn of a conversation case was graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TurnGrading {
    /// Its number, from 1.
    pub turn: u32,
    /// Its score, in 0..=1 (1 for a turn without graders, 0 for a skipped one).
    pub score: f64,
    /// `score >= threshold`.
    pub passed: bool,
    /// Not run: an earlier turn failed under `on_turn_failure: stop`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Its graders, in order.
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
    /// Could not grade: its program did not run to the end, or the judge failed (the attempt
    /// fails with origin `grader-error`, which `expected_fail` does not forgive).
    Error,
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
