//! [`ExecutionResult`]: one case on one runner (its `result.json`), with the pass-rate
//! statistics over its attempts.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skillgym::{AgentInfo, Failure, Usage};

use super::{Interval, RepetitionResult, SampleStats, SnapshotCheck, Status};

/// One case on one runner, with all its repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ExecutionResult {
    /// The case id.
    pub case_id: String,
    /// The runner id.
    pub runner_id: String,
    /// The variant the case ran under, if it has variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Whether the variant is the baseline the case × runner's other variants are compared with.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub baseline: bool,
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
    /// Whether it counts as passing: every wanted repetition passed (a sampled execution with
    /// a `min_pass_rate`: its pass rate met the gate), and its gates and snapshot held.
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
    /// A sampled execution's figures over all its sessions (`samples = N`); absent for a
    /// repeated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<SampleStats>,
    /// The gate on the pass rate (`min_pass_rate`) the execution was held to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_pass_rate: Option<f64>,
    /// The gate on the variant's lift over its baseline (`min_lift`) it was held to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_lift: Option<f64>,
    /// Mean wall time of the final attempts of the successful repetitions (the terminal
    /// attempt's when the execution failed), in milliseconds. Discarded attempts never count.
    pub duration_ms: u64,
    /// Mean token usage over the same attempts as `duration_ms`.
    pub usage: Usage,
    /// The token snapshot check of a passing execution, when `snapshots:` is configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotCheck>,
    /// A trigger case's skill, expectation and gates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<super::TriggerExpectation>,
    /// The execution's directory `<run>/<case>/<runner>`.
    pub artifact_dir: PathBuf,
    /// Every repetition, in order, each with its attempts.
    pub repetitions: Vec<RepetitionResult>,
}

/// The name of a trial: `[runner] case`, or `[runner/variant] case` under a variant.
pub fn trial_name(runner_id: &str, variant: Option<&str>, case_id: &str) -> String {
    match variant {
        Some(variant) => format!("[{runner_id}/{variant}] {case_id}"),
        None => format!("[{runner_id}] {case_id}"),
    }
}

/// Whether `name` is [`trial_name`]`(runner_id, variant, case_id)`, compared without building
/// it (a process of one trial compares the name it was given with every trial's).
pub(crate) fn is_trial_name(
    name: &str,
    runner_id: &str,
    variant: Option<&str>,
    case_id: &str,
) -> bool {
    let Some(rest) = name
        .strip_prefix('[')
        .and_then(|rest| rest.strip_prefix(runner_id))
    else {
        return false;
    };
    let rest = match variant {
        Some(variant) => rest
            .strip_prefix('/')
            .and_then(|rest| rest.strip_prefix(variant)),
        None => Some(rest),
    };
    rest.and_then(|rest| rest.strip_prefix("] ")) == Some(case_id)
}

/// Which execution: a case on a runner, under a variant or not.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ExecutionKey {
    /// The case id.
    pub case_id: String,
    /// The runner id.
    pub runner_id: String,
    /// The variant, when the case ran under variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

impl ExecutionKey {
    /// The key of `case_id` on `runner_id` under `variant`.
    pub fn new(case_id: &str, runner_id: &str, variant: Option<&str>) -> ExecutionKey {
        ExecutionKey {
            case_id: case_id.to_owned(),
            runner_id: runner_id.to_owned(),
            variant: variant.map(str::to_owned),
        }
    }

    /// [`trial_name`]: how the execution's trial is named.
    pub fn trial_name(&self) -> String {
        trial_name(&self.runner_id, self.variant.as_deref(), &self.case_id)
    }
}

impl ExecutionResult {
    /// How a report names the execution, as its trial is named: `[runner] case`, or
    /// `[runner/variant] case` under a variant.
    pub fn trial_name(&self) -> String {
        trial_name(&self.runner_id, self.variant.as_deref(), &self.case_id)
    }

    /// Which execution this is.
    pub fn key(&self) -> ExecutionKey {
        ExecutionKey::new(&self.case_id, &self.runner_id, self.variant.as_deref())
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trial_name_is_recognised_without_being_built() {
        let parts = [
            ("fake", None, "case_0001"),
            ("fake", Some("baseline"), "case_0001"),
            ("a/b", None, "x] y"),
            ("a", Some("b] c"), "d"),
            ("r", None, ""),
        ];
        for (runner, variant, case) in parts {
            let name = trial_name(runner, variant, case);
            for (other_runner, other_variant, other_case) in parts {
                let same = (other_runner, other_variant, other_case) == (runner, variant, case);
                assert_eq!(
                    is_trial_name(&name, other_runner, other_variant, other_case),
                    same || trial_name(other_runner, other_variant, other_case) == name,
                    "{name} against {other_runner:?} {other_variant:?} {other_case:?}"
                );
            }
            for shorter in [&name[..name.len() - 1], &name[1..], "", "[fake]"] {
                if shorter != name {
                    assert!(!is_trial_name(shorter, runner, variant, case), "{shorter}");
                }
            }
        }
    }
}
