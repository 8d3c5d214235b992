//! Grading one attempt of a declarative case: every grader, the weighted score against the
//! threshold, `grading.json`, and the failure (origin `grader`) that names what failed and why.

use std::path::Path;
use std::time::Duration;

use skillgym::{Failure, FailureOrigin, SessionReport};

use crate::artifacts::write_json_or_note;
use crate::grade::score::{CaseScore, score_case};
use crate::grade::spec::GraderSpec;
use crate::grade::{self, GradeInput, GraderOutcome, Judge, Verdict};
use crate::results::{GraderCheck, GraderResult, GraderVerdict, Grading};
use crate::suite::{CaseSpec, DeclaredCheck};

/// Where the attempt's graders look.
pub(super) struct Scene<'a> {
    pub(super) case: &'a CaseSpec,
    pub(super) check: &'a DeclaredCheck,
    pub(super) report: &'a SessionReport,
    /// The workspace; `Err` holds a replayed attempt's recorded workspace that is gone, or
    /// that is not one skillgym made (nothing runs there).
    pub(super) workspace: Result<&'a Path, &'a Path>,
    pub(super) artifact_dir: &'a Path,
    pub(super) timeout: Duration,
    pub(super) judge: Option<&'a dyn Judge>,
}

/// Runs every grader of the case, writes `grading.json`, and returns the grading and the
/// failure when the case's score is under its threshold (or a required grader gated it).
pub(super) fn grade_attempt(scene: &Scene<'_>) -> (Grading, Option<Failure>) {
    let check = scene.check;
    let input = GradeInput {
        workspace: scene.workspace.ok(),
        workspace_gone: scene.workspace.err(),
        artifact_dir: Some(scene.artifact_dir),
        criteria: &check.criteria,
        expected_output: &check.expected_output,
        metadata: &check.metadata,
        input: &check.input,
        judge: scene.judge,
        ..GradeInput::new(scene.report, &scene.case.base_dir, scene.timeout)
    };
    let graded = grade_with(&check.graders, &input, check.threshold);
    write_json_or_note(&scene.artifact_dir.join("grading.json"), &graded.grading);
    let failure = match broken_message(&graded.broken) {
        Some(message) => Some(Failure::new(FailureOrigin::GraderError, message)),
        None => (!graded.score.passed)
            .then(|| Failure::new(FailureOrigin::Grader, graded.score.message())),
    };
    (
        graded.grading,
        failure.map(|failure| failure.at(Some(check.location.clone()))),
    )
}

/// What [`grade_with`] found.
pub(super) struct Graded {
    pub(super) grading: Grading,
    pub(super) score: CaseScore,
    /// The graders that could not grade: name and why.
    pub(super) broken: Vec<(String, String)>,
}

/// Runs `graders` on `input` and scores them against `threshold` (a conversation's turns and
/// the whole conversation are graded so too).
pub(super) fn grade_with(graders: &[GraderSpec], input: &GradeInput<'_>, threshold: f64) -> Graded {
    let outcomes: Vec<GraderOutcome> = graders
        .iter()
        .map(|spec| grade::grade(spec, input))
        .collect();
    let score = score_case(graders.iter().zip(&outcomes), Some(threshold));
    let broken = broken_graders(graders, &outcomes);
    let grading = Grading {
        score: score.score,
        threshold: score.threshold,
        passed: score.passed,
        graders: graders
            .iter()
            .zip(outcomes)
            .map(|(spec, outcome)| GraderResult {
                name: spec.name.clone(),
                kind: spec.kind.type_name().to_owned(),
                weight: spec.weight,
                required: spec.required,
                negate: spec.negate,
                score: outcome.score,
                verdict: match outcome.verdict {
                    _ if outcome.error => GraderVerdict::Error,
                    Verdict::Pass => GraderVerdict::Pass,
                    Verdict::Fail => GraderVerdict::Fail,
                    Verdict::Skip => GraderVerdict::Skip,
                },
                checks: outcome
                    .checks
                    .into_iter()
                    .map(|check| GraderCheck {
                        text: check.text,
                        passed: check.passed,
                        evidence: check.evidence,
                    })
                    .collect(),
                details: outcome.details,
            })
            .collect(),
        turns: Vec::new(),
        aggregation: None,
    };
    Graded {
        grading,
        score,
        broken,
    }
}

/// The graders that could not grade, by name, with why.
fn broken_graders(graders: &[GraderSpec], outcomes: &[GraderOutcome]) -> Vec<(String, String)> {
    (graders.iter().zip(outcomes))
        .filter(|(_, outcome)| outcome.error)
        .map(|(spec, outcome)| {
            let why = outcome
                .checks
                .first()
                .map_or("", |check| check.text.as_str());
            (spec.name.clone(), why.to_owned())
        })
        .collect()
}

/// The failure message of graders that could not grade, or `None` when every one did: a broken
/// grader says nothing about the agent, so the attempt fails with origin `grader-error` (which
/// `expected_fail` does not forgive) whatever the score. The first line stands alone (reports
/// show only it): the one grader's error, or how many and which; then one line each.
pub(super) fn broken_message(broken: &[(String, String)]) -> Option<String> {
    match broken {
        [] => None,
        [(_, why)] => Some(why.clone()),
        several => {
            let names: Vec<String> = several
                .iter()
                .map(|(name, _)| format!("`{name}`"))
                .collect();
            let lines: Vec<String> = several
                .iter()
                .map(|(name, why)| format!("- {name}: {why}"))
                .collect();
            Some(format!(
                "{} graders could not grade: {}\n{}",
                several.len(),
                names.join(", "),
                lines.join("\n")
            ))
        }
    }
}
