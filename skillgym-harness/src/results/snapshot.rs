//! The snapshot check of an execution as its `result.json` records it ([`SnapshotCheck`]):
//! plain data; the rules that decide it live in [`crate::snapshot`].

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a snapshot check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SnapshotVerdict {
    /// Within the tolerance of the baseline.
    Passed,
    /// Above the allowed range.
    Exceeded,
    /// Below the allowed range.
    Improved,
    /// No baseline for this key and metric.
    Missing,
    /// Recorded as the first baseline by `--update-snapshots`.
    Created,
    /// Recorded over the previous baseline by `--update-snapshots`.
    Updated,
    /// The agent did not report the metric.
    Unavailable,
}

/// The range a figure may fall in: the baseline, give or take the tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Allowed {
    /// The lowest figure within the tolerance.
    pub low: f64,
    /// The highest figure within the tolerance.
    pub high: f64,
}

/// The snapshot check of an execution, as `result.json` and `results.json` record it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SnapshotCheck {
    /// `<case id>::<runner id>`.
    pub key: String,
    /// The metric compared.
    pub metric: SnapshotMetric,
    /// The execution's figure (the mean over its passing repetitions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// The baseline it was compared with (the one replaced, for `updated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    /// The allowed range around the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Allowed>,
    /// The outcome.
    pub verdict: SnapshotVerdict,
    /// Whether the figure was written to the `.new` file, for `cargo skillgym review`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// The version of the agent the baseline compared with was recorded with, when it is not
    /// the execution's (both known): the figures may not be comparable. A note, never a
    /// failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_version: Option<String>,
}

/// The figure of an execution a snapshot records: the mean over the final attempts of its
/// passing repetitions (see [`ExecutionResult::usage`](super::ExecutionResult::usage)); the
/// config file's `snapshots.metric`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SnapshotMetric {
    /// Input plus output plus reasoning tokens, less cached ones.
    #[default]
    #[serde(alias = "totalTokens")]
    TotalTokens,
    /// Input tokens, cached ones included.
    #[serde(alias = "inputTokens")]
    InputTokens,
    /// Output tokens.
    #[serde(alias = "outputTokens")]
    OutputTokens,
    /// Cost in US dollars, as the agent reports it.
    Cost,
    /// Wall time of an attempt, in milliseconds.
    Duration,
}

impl SnapshotMetric {
    /// The name used in YAML and in the baseline file, e.g. `total_tokens`.
    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotMetric::TotalTokens => "total_tokens",
            SnapshotMetric::InputTokens => "input_tokens",
            SnapshotMetric::OutputTokens => "output_tokens",
            SnapshotMetric::Cost => "cost",
            SnapshotMetric::Duration => "duration",
        }
    }
}

impl fmt::Display for SnapshotMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `note: the baseline was recorded with version 2.1.300 of the agent; this run used 2.1.330`.
pub(crate) fn version_note(then: &str, now: &str) -> String {
    format!("note: the baseline was recorded with version {then} of the agent; this run used {now}")
}
