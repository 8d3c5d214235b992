//! Grading one attempt of a declarative case: every grader, the weighted score against the
//! threshold, `grading.json`, and the failure (origin `grader`) that names what failed and why.

use std::path::Path;
use std::time::Duration;

use skillgym::{Failure, FailureOrigin, SessionReport};

use crate::artifacts::write_json_or_note;
use crate::grade::score::score_case;
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
    let outcomes: Vec<GraderOutcome> = check
        .graders
        .iter()
        .map(|spec| grade::grade(spec, &input))
        .collect();
    let score = score_case(check.graders.iter().zip(&outcomes), Some(check.threshold));
    let broken = broken_graders(check, &outcomes);
    let grading = Grading {
        score: score.score,
        threshold: score.threshold,
        passed: score.passed,
        graders: check
            .graders
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
    };
    write_json_or_note(&scene.artifact_dir.join("grading.json"), &grading);
    let failure = match broken {
        Some(message) => Some(Failure::new(FailureOrigin::GraderError, message)),
        None => (!score.passed).then(|| Failure::new(FailureOrigin::Grader, score.message())),
    };
    (
        grading,
        failure.map(|failure| failure.at(Some(check.location.clone()))),
    )
}

/// The graders that could not grade, one line each with why, or `None` when every one did:
/// a broken grader says nothing about the agent, so the attempt fails with origin
/// `grader-error` (which `expected_fail` does not forgive) whatever the score.
fn broken_graders(check: &DeclaredCheck, outcomes: &[GraderOutcome]) -> Option<String> {
    let lines: Vec<String> = (check.graders.iter().zip(outcomes))
        .filter(|(_, outcome)| outcome.error)
        .map(|(spec, outcome)| {
            let why = outcome
                .checks
                .first()
                .map_or("", |check| check.text.as_str());
            format!("- {}: {why}", spec.name)
        })
        .collect();
    (!lines.is_empty()).then(|| {
        format!(
            "{} grader(s) could not grade:\n{}",
            lines.len(),
            lines.join("\n")
        )
    })
}
