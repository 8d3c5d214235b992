//! Token snapshots, insta-like: each passing execution's figure (`snapshots.metric`, averaged
//! over its passing repetitions) is compared with a committed baseline; values that are new or
//! moved wait in `<path>.new` for `cargo skillgym review`.
//!
//! | module | role |
//! |---|---|
//! | `check` | the rules: the figure against its baseline, the verdict, the message, what to write |
//! | `store` | the baseline and `.new` files: format, validation, locked atomic edits |
//! | this one | the run's side: the baseline read once at start, the figure of an execution, the writes |
//!
//! Only executions with status `passed` are checked (and so baselined): a failed, expected-failed,
//! skipped or interrupted execution gets no snapshot record and keeps its own failure. A check
//! that fails turns the execution `failed` with origin `snapshot`.
//!
//! Each value is recorded with the version of the runner's agent. A check against a baseline
//! recorded with another version says so ([`SnapshotCheck::baseline_version`], a note of the
//! console summary and of the failure message), and passes or fails as it would otherwise.

mod check;
mod store;

use skillgym::{Failure, FailureOrigin};

pub use check::{delta, show};
pub use store::{EditError, Entry, Locked, SnapshotFile, VERSION, pending_path};

/// The check's record, as `result.json` holds it.
pub use crate::results::{Allowed, SnapshotCheck, SnapshotVerdict as Verdict};

use crate::config::{ConfigError, SnapshotMetric, SnapshotsConfig};
use crate::results::{ExecutionResult, Status};
use crate::settings::Settings;
use check::{Decision, Rules, Write, decide};

/// Whether the environment says this is CI: `CI` set to anything but empty, `0` or `false`.
pub fn is_ci(lookup: impl Fn(&str) -> Option<String>) -> bool {
    lookup("CI").is_some_and(|value| {
        let value = value.trim();
        !(value.is_empty() || value == "0" || value.eq_ignore_ascii_case("false"))
    })
}

/// The snapshots of a run: the section, the baseline as it was when the run started, the mode.
#[derive(Debug)]
pub(crate) struct Snapshots {
    config: SnapshotsConfig,
    baseline: SnapshotFile,
    ci: bool,
    update: bool,
}

impl Snapshots {
    /// The run's snapshots when `snapshots:` is configured: the baseline and `.new` files are
    /// read (and validated) now, before any agent runs.
    pub(crate) fn load(settings: &Settings) -> Result<Option<Snapshots>, ConfigError> {
        let Some(config) = settings.snapshots.clone() else {
            return Ok(None);
        };
        let baseline = SnapshotFile::read(&config.path)?;
        SnapshotFile::read(&pending_path(&config.path))?;
        Ok(Some(Snapshots {
            config,
            baseline,
            ci: is_ci(|key| std::env::var(key).ok()),
            update: settings.update_snapshots,
        }))
    }

    /// Checks a finished execution and records the outcome in it; writes the baseline or
    /// `.new` file as the check asks, with the execution's agent.
    pub(crate) fn check(&self, result: &mut ExecutionResult) {
        if result.status != Status::Passed {
            return;
        }
        let rules = Rules {
            metric: self.config.metric,
            tolerance: self.config.tolerance,
            improvements: self.config.improvements,
            path: &self.config.path,
            ci: self.ci,
            update: self.update,
        };
        let key = format!("{}::{}", result.case_id, result.runner_id);
        let baseline = self.baseline.entries.get(&key);
        let Decision {
            mut check,
            mut failure,
            write,
        } = decide(
            &result.case_id,
            &result.runner_id,
            figure(result, self.config.metric),
            baseline,
            &rules,
        );
        if check.allowed.is_some() {
            // Compared with the baseline: say when another version of the agent recorded it.
            check.baseline_version = baseline
                .and_then(|entry| entry.version.clone())
                .filter(|then| result.agent.version.as_ref().is_some_and(|now| now != then));
        }
        if let (Some(message), Some(then), Some(now)) = (
            failure.as_mut(),
            &check.baseline_version,
            &result.agent.version,
        ) {
            message.push_str(&format!("\n  {}", crate::results::version_note(then, now)));
        }
        if let Some(message) = failure.as_mut()
            && self.config.metric == SnapshotMetric::Cost
            && result.usage.cost_estimated
        {
            message.push_str("\n  note: the cost is estimated from token counts at list prices (`pricing:` in skillgym.yaml)");
        }
        if let Some(value) = check.value
            && let Err(error) = self.write(&key, value, write, &result.agent)
        {
            check.pending = false;
            failure = Some(format!(
                "snapshot `{key}`: cannot record the value: {error}"
            ));
        }
        result.snapshot = Some(check);
        if let Some(message) = failure {
            result.status = Status::Failed;
            result.passed = false;
            result.flaky = false;
            result.failure = Some(Failure::new(FailureOrigin::Snapshot, message));
        }
    }

    fn write(
        &self,
        key: &str,
        value: f64,
        write: Write,
        agent: &skillgym::AgentInfo,
    ) -> Result<(), EditError> {
        if write == Write::Nothing {
            return Ok(());
        }
        let locked = Locked::new(&self.config.path).map_err(|source| EditError::Io {
            path: self.config.path.clone(),
            source,
        })?;
        let entry = || {
            Entry::new(
                self.config.metric,
                value,
                &agent.kind,
                agent.model.as_deref(),
            )
            .with_version(agent.version.clone())
        };
        match write {
            Write::Nothing => Ok(()),
            Write::Baseline => {
                locked.edit_baseline(|file| {
                    file.entries.insert(key.to_owned(), entry());
                })?;
                locked.edit_pending(|file| {
                    file.entries.remove(key);
                })
            }
            Write::Pending => locked.edit_pending(|file| {
                file.entries.insert(key.to_owned(), entry());
            }),
            Write::ClearPending => locked.edit_pending(|file| {
                file.entries.remove(key);
            }),
        }
    }
}

/// The figure of a passing execution: the mean over the final attempts of its passing
/// repetitions (`ExecutionResult::usage` and `duration_ms`, discarded retries left out), or
/// `None` when one of those attempts did not report the metric.
pub(crate) fn figure(result: &ExecutionResult, metric: SnapshotMetric) -> Option<f64> {
    let finals = result
        .repetitions
        .iter()
        .filter(|repetition| repetition.passed)
        .filter_map(|repetition| repetition.final_attempt());
    let reported = |usage: &skillgym::Usage| match metric {
        SnapshotMetric::TotalTokens => usage.total_tokens.is_some(),
        SnapshotMetric::InputTokens => usage.input_tokens.is_some(),
        SnapshotMetric::OutputTokens => usage.output_tokens.is_some(),
        SnapshotMetric::Cost => usage.cost_usd.is_some(),
        SnapshotMetric::Duration => true,
    };
    let mut any = false;
    for attempt in finals {
        any = true;
        if !reported(&attempt.usage) {
            return None;
        }
    }
    if !any {
        return None;
    }
    let usage = &result.usage;
    match metric {
        SnapshotMetric::TotalTokens => usage.total_tokens.map(|t| t.value as f64),
        SnapshotMetric::InputTokens => usage.input_tokens.map(|t| t.value as f64),
        SnapshotMetric::OutputTokens => usage.output_tokens.map(|t| t.value as f64),
        SnapshotMetric::Cost => usage.cost_usd,
        SnapshotMetric::Duration => Some(result.duration_ms as f64),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use skillgym::{TokenCount, Usage};

    use super::*;
    use crate::results::{AttemptResult, ExecutionPlan, RepetitionResult, aggregate};

    fn attempt(repetition: u32, attempt: u32, passed: bool, tokens: Option<u64>) -> AttemptResult {
        AttemptResult {
            repetition,
            attempt,
            status: if passed {
                Status::Passed
            } else {
                Status::Failed
            },
            passed,
            failure: (!passed).then(|| Failure::new(FailureOrigin::Assertion, "no")),
            duration_ms: 100 * u64::from(repetition),
            usage: Usage {
                total_tokens: tokens.map(TokenCount::provider),
                cost_usd: tokens.map(|t| t as f64 / 1000.0),
                ..Usage::default()
            },
            steps: 1,
            exit_code: Some(0),
            signal: None,
            artifact_dir: PathBuf::from("/run/c/r"),
            grading: None,
            replayed_from: None,
            kept_workspace: None,
            sandbox: None,
            trigger: None,
        }
    }

    /// A `command` agent of `version`.
    fn agent(version: &str) -> skillgym::AgentInfo {
        skillgym::AgentInfo {
            kind: "command".into(),
            model: None,
            version: Some(version.into()),
        }
    }

    fn execution(repetitions: Vec<Vec<AttemptResult>>) -> ExecutionResult {
        let target = repetitions.len() as u32;
        let repetitions = repetitions
            .into_iter()
            .enumerate()
            .map(|(i, attempts)| RepetitionResult::of(i as u32 + 1, attempts))
            .collect();
        aggregate(
            ExecutionPlan {
                case_id: "c".into(),
                runner_id: "r".into(),
                variant: None,
                baseline: false,
                agent: agent("1.0.0"),
                expected_fail: false,
                repeat_target: target,
                repeat_failure: 1,
                sampled: false,
                min_pass_rate: None,
                min_lift: None,
                stop_when_decided: false,
                artifact_dir: PathBuf::from("/run/c/r"),
                source: "tests/b.rs:1".into(),
                tags: Vec::new(),
                trigger: None,
            },
            repetitions,
        )
    }

    #[test]
    fn the_figure_of_repeats_is_their_mean_without_discarded_retries() {
        let result = execution(vec![
            vec![attempt(1, 1, true, Some(1000))],
            vec![
                attempt(2, 1, false, Some(90_000)),
                attempt(2, 2, true, Some(2000)),
            ],
        ]);
        assert!(result.passed);
        assert_eq!(figure(&result, SnapshotMetric::TotalTokens), Some(1500.0));
        assert_eq!(figure(&result, SnapshotMetric::Cost), Some(1.5));
        assert_eq!(figure(&result, SnapshotMetric::Duration), Some(150.0));
        assert_eq!(
            figure(&result, SnapshotMetric::InputTokens),
            None,
            "not reported"
        );
    }

    #[test]
    fn a_figure_missing_from_one_repetition_is_unavailable() {
        let result = execution(vec![
            vec![attempt(1, 1, true, Some(1000))],
            vec![attempt(2, 1, true, None)],
        ]);
        assert_eq!(
            result.usage.total_tokens.map(|t| t.value),
            Some(1000),
            "the mean skips it"
        );
        assert_eq!(figure(&result, SnapshotMetric::TotalTokens), None);
    }

    #[test]
    fn ci_is_any_value_but_empty_zero_or_false() {
        let ci = |value: Option<&str>| is_ci(|_| value.map(str::to_owned));
        assert!(ci(Some("1")) && ci(Some("true")) && ci(Some("github")));
        assert!(!ci(None) && !ci(Some("")) && !ci(Some("0")) && !ci(Some("False")));
    }

    fn snapshots(dir: &std::path::Path, ci: bool, update: bool) -> Snapshots {
        let path = dir.join("skillgym.snapshots.json");
        Snapshots {
            baseline: SnapshotFile::read(&path).unwrap(),
            config: SnapshotsConfig {
                path,
                metric: SnapshotMetric::TotalTokens,
                tolerance: crate::config::Tolerance::new(Some(100.0), None),
                improvements: crate::config::Improvements::Pass,
            },
            ci,
            update,
        }
    }

    #[test]
    fn only_passing_executions_are_checked_and_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let mut failed = execution(vec![vec![attempt(1, 1, false, Some(1000))]]);
        let before = failed.failure.clone();
        snapshots(dir.path(), false, true).check(&mut failed);
        assert_eq!(failed.snapshot, None);
        assert_eq!(failed.failure, before, "its own failure is kept");
        assert!(
            !dir.path().join("skillgym.snapshots.json").exists(),
            "never baselined, not even with --update-snapshots"
        );

        let mut passed = execution(vec![vec![attempt(1, 1, true, Some(1000))]]);
        snapshots(dir.path(), false, false).check(&mut passed);
        assert!(passed.passed);
        assert_eq!(passed.snapshot.as_ref().unwrap().verdict, Verdict::Missing);
        let pending = SnapshotFile::read(&dir.path().join("skillgym.snapshots.json.new")).unwrap();
        assert_eq!(pending.entries["c::r"].value, 1000.0);
        assert_eq!(pending.entries["c::r"].agent, "command");
        assert_eq!(pending.entries["c::r"].version.as_deref(), Some("1.0.0"));

        // Accepted, the value passes; beyond the tolerance it fails with origin `snapshot`.
        let mut update = execution(vec![vec![attempt(1, 1, true, Some(1000))]]);
        snapshots(dir.path(), false, true).check(&mut update);
        assert_eq!(update.snapshot.unwrap().verdict, Verdict::Created);
        assert!(!dir.path().join("skillgym.snapshots.json.new").exists());
        let mut exceeded = execution(vec![vec![attempt(1, 1, true, Some(1200))]]);
        snapshots(dir.path(), true, false).check(&mut exceeded);
        assert!(!exceeded.passed);
        assert_eq!(exceeded.status, Status::Failed);
        assert_eq!(exceeded.failure.unwrap().origin, FailureOrigin::Snapshot);
        assert!(
            !dir.path().join("skillgym.snapshots.json.new").exists(),
            "CI"
        );
    }

    #[test]
    fn each_baseline_records_the_agents_version_and_another_version_is_noted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skillgym.snapshots.json");
        let mut first = execution(vec![vec![attempt(1, 1, true, Some(1000))]]);
        snapshots(dir.path(), false, true).check(&mut first);
        let baseline = SnapshotFile::read(&path).unwrap();
        assert_eq!(baseline.entries["c::r"].version.as_deref(), Some("1.0.0"));
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("\"version\": \"1.0.0\""),
            "written beside the value"
        );

        // The same version: no note.
        let mut same = execution(vec![vec![attempt(1, 1, true, Some(1000))]]);
        snapshots(dir.path(), false, false).check(&mut same);
        assert_eq!(same.snapshot.unwrap().baseline_version, None);

        // Another version within the tolerance: a note, and the check passes.
        let mut newer = execution(vec![vec![attempt(1, 1, true, Some(1000))]]);
        newer.agent = agent("2.0.0");
        snapshots(dir.path(), false, false).check(&mut newer);
        assert!(newer.passed);
        let check = newer.snapshot.unwrap();
        assert_eq!(check.verdict, Verdict::Passed);
        assert_eq!(check.baseline_version.as_deref(), Some("1.0.0"));

        // Beyond it: the failure carries the note.
        let mut exceeded = execution(vec![vec![attempt(1, 1, true, Some(5000))]]);
        exceeded.agent = agent("2.0.0");
        snapshots(dir.path(), true, false).check(&mut exceeded);
        let message = exceeded.failure.unwrap().message;
        assert!(
            message.ends_with("\n  note: the baseline was recorded with version 1.0.0 of the agent; this run used 2.0.0"),
            "{message}"
        );

        // An unknown version today: nothing to compare, no note.
        let mut unknown = execution(vec![vec![attempt(1, 1, true, Some(1000))]]);
        unknown.agent.version = None;
        snapshots(dir.path(), false, false).check(&mut unknown);
        assert_eq!(unknown.snapshot.unwrap().baseline_version, None);
    }

    #[test]
    fn a_failed_cost_snapshot_of_an_estimate_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let cost = |tokens: u64, estimated: bool| {
            let mut attempt = attempt(1, 1, true, Some(tokens));
            attempt.usage.cost_estimated = estimated;
            execution(vec![vec![attempt]])
        };
        let of_cost = |update: bool| {
            let mut snapshots = snapshots(dir.path(), false, update);
            snapshots.config.metric = SnapshotMetric::Cost;
            snapshots.config.tolerance = crate::config::Tolerance::new(Some(0.1), None);
            snapshots
        };
        of_cost(true).check(&mut cost(1000, true));
        // A baseline of $1; $2 is beyond the tolerance of $0.10.
        let snapshots = of_cost(false);
        let mut estimated = cost(2000, true);
        snapshots.check(&mut estimated);
        let message = estimated.failure.unwrap().message;
        assert!(
            message.ends_with("\n  note: the cost is estimated from token counts at list prices (`pricing:` in skillgym.yaml)"),
            "{message}"
        );
        let mut reported = cost(2000, false);
        snapshots.check(&mut reported);
        assert!(!reported.failure.unwrap().message.contains("estimated"));
    }
}
