//! The case's score from its graders' outcomes (agentv §3.2).
//!
//! | step | rule |
//! |---|---|
//! | score | weighted mean of the scores of the graders not skipped (`weight`, default 1); total weight 0 (no grader, all skipped, all weight 0) → 0 |
//! | required gate | a `required` grader (not skipped) under its `min_score`, else under the case's threshold, forces the score to 0 |
//! | verdict | passed iff score >= threshold (default [`DEFAULT_THRESHOLD`], 0.8) |
//! | failures | every grader that failed, with its failed checks; a required grader under its gate says so |
//!
//! `min_score` without `required` does nothing (as in agentv). [`CaseScore::message`] is the
//! failure text of a case that did not pass (origin `grader`).

use std::fmt::Write as _;

use super::spec::GraderSpec;
use super::{GraderOutcome, Verdict};

/// The case threshold when none is configured (agentv's default).
pub(crate) const DEFAULT_THRESHOLD: f64 = 0.8;

/// The score and verdict of one case.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CaseScore {
    /// In 0..=1.
    pub(crate) score: f64,
    /// The threshold in force.
    pub(crate) threshold: f64,
    /// `score >= threshold`.
    pub(crate) passed: bool,
    /// Each grader that failed (or a required one under its gate) and why, in grader order.
    pub(crate) failed_graders: Vec<(String, String)>,
    /// Each grader that was skipped and why.
    pub(crate) skipped_graders: Vec<(String, String)>,
    /// The required grader that forced the score to 0, if one did.
    pub(crate) gated_by: Option<String>,
}

impl CaseScore {
    /// A human message: the score against the threshold, then every failed and skipped grader.
    pub(crate) fn message(&self) -> String {
        let mut text = format!(
            "score {:.2} {} threshold {:.2}",
            self.score,
            if self.passed { ">=" } else { "<" },
            self.threshold
        );
        if let Some(name) = &self.gated_by {
            let _ = write!(text, " (forced to 0 by the required grader {name:?})");
        }
        if !self.failed_graders.is_empty() {
            text.push_str("\nfailed graders:");
            for (name, why) in &self.failed_graders {
                let _ = write!(text, "\n- {name}: {}", indent(why));
            }
        }
        if !self.skipped_graders.is_empty() {
            text.push_str("\nskipped graders:");
            for (name, why) in &self.skipped_graders {
                let _ = write!(text, "\n- {name}: {}", indent(why));
            }
        }
        text
    }
}

fn indent(text: &str) -> String {
    text.replace('\n', "\n  ")
}

/// Scores a case from its graders and their outcomes, in grader order; `threshold`: the
/// case's, `None` for [`DEFAULT_THRESHOLD`].
pub(crate) fn score_case<'a>(
    graded: impl IntoIterator<Item = (&'a GraderSpec, &'a GraderOutcome)>,
    threshold: Option<f64>,
) -> CaseScore {
    let threshold = threshold.unwrap_or(DEFAULT_THRESHOLD);
    let mut weighted_scores = Vec::new();
    let mut failed_graders = Vec::new();
    let mut skipped_graders = Vec::new();
    let mut gated_by = None;
    for (spec, outcome) in graded {
        if outcome.verdict == Verdict::Skip {
            skipped_graders.push((spec.name.clone(), reasons(outcome, false)));
            continue;
        }
        weighted_scores.push((spec.weight, outcome.score));
        let gate = spec.min_score.unwrap_or(threshold);
        let under_gate = spec.required && outcome.score < gate;
        if under_gate && gated_by.is_none() {
            gated_by = Some(spec.name.clone());
        }
        if outcome.verdict == Verdict::Fail || under_gate {
            let mut why = format!("score {:.2}", outcome.score);
            if under_gate {
                let _ = write!(why, ", required: under its minimum {gate:.2}");
            }
            let failed = reasons(outcome, true);
            if !failed.is_empty() {
                let _ = write!(why, "\n{failed}");
            }
            failed_graders.push((spec.name.clone(), why));
        }
    }
    let mut score = crate::figures::weighted_mean(&weighted_scores).map_or(0.0, super::clamp);
    if gated_by.is_some() {
        score = 0.0;
    }
    CaseScore {
        score,
        threshold,
        passed: score >= threshold,
        failed_graders,
        skipped_graders,
        gated_by,
    }
}

/// The failed checks of `outcome` (all its checks unless `only_failed`), one a line, with
/// their evidence.
fn reasons(outcome: &GraderOutcome, only_failed: bool) -> String {
    outcome
        .checks
        .iter()
        .filter(|check| !(only_failed && check.passed))
        .map(|check| match &check.evidence {
            Some(evidence) => format!("{} — {evidence}", check.text),
            None => check.text.clone(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::Check;
    use crate::grade::spec::GraderKind;
    use crate::grade::test_support::spec;

    fn grader(name: &str, weight: f64) -> GraderSpec {
        let mut spec = spec(name, GraderKind::IsJson);
        spec.weight = weight;
        spec
    }

    fn outcome(score: f64, verdict: Verdict, failed: &str) -> GraderOutcome {
        GraderOutcome {
            score,
            verdict,
            checks: vec![Check::with(failed, verdict == Verdict::Pass, "seen")],
            details: None,
            error: false,
        }
    }

    fn pass() -> GraderOutcome {
        outcome(1.0, Verdict::Pass, "ok")
    }

    fn fail(why: &str) -> GraderOutcome {
        outcome(0.0, Verdict::Fail, why)
    }

    fn score(graded: &[(GraderSpec, GraderOutcome)], threshold: Option<f64>) -> CaseScore {
        score_case(graded.iter().map(|(s, o)| (s, o)), threshold)
    }

    #[test]
    fn the_score_is_the_weighted_mean() {
        let graded = [
            (grader("a", 3.0), pass()),
            (grader("b", 1.0), fail("output contains \"x\"")),
        ];
        let case = score(&graded, None);
        assert_eq!(case.score, 0.75);
        assert!(!case.passed);
        assert_eq!(case.failed_graders.len(), 1);
        assert_eq!(case.failed_graders[0].0, "b");
        assert_eq!(
            case.message(),
            "score 0.75 < threshold 0.80\nfailed graders:\n- b: score 0.00\n  output contains \"x\" — seen"
        );
        let case = score(&graded, Some(0.75));
        assert!(case.passed, "the threshold is inclusive");
        assert_eq!(
            case.message().lines().next(),
            Some("score 0.75 >= threshold 0.75")
        );
    }

    #[test]
    fn the_largest_weights_a_suite_may_give_still_average() {
        let graded = [
            (grader("a", f64::MAX), pass()),
            (grader("b", f64::MAX), pass()),
            (grader("c", 1.0), fail("x")),
        ];
        let case = score(&graded, None);
        assert_eq!(
            case.score, 1.0,
            "the weight of 1 is nothing beside the others"
        );
        assert!(case.passed);
    }

    #[test]
    fn weight_zero_graders_do_not_count_and_total_weight_zero_scores_zero() {
        let graded = [(grader("a", 1.0), pass()), (grader("b", 0.0), fail("x"))];
        let case = score(&graded, None);
        assert_eq!(case.score, 1.0);
        assert!(case.passed);
        assert_eq!(case.failed_graders.len(), 1, "still reported");

        let graded = [(grader("a", 0.0), pass())];
        let case = score(&graded, None);
        assert_eq!((case.score, case.passed), (0.0, false));
        assert_eq!(score(&[], None).score, 0.0);
    }

    #[test]
    fn skipped_graders_are_excluded_and_listed() {
        let graded = [
            (grader("a", 1.0), pass()),
            (grader("rubrics", 5.0), GraderOutcome::skip("no judge")),
        ];
        let case = score(&graded, None);
        assert_eq!((case.score, case.passed), (1.0, true));
        assert_eq!(
            case.skipped_graders,
            [("rubrics".to_owned(), "no judge".to_owned())]
        );
        let only_skipped = [(grader("rubrics", 1.0), GraderOutcome::skip("no judge"))];
        assert_eq!(score(&only_skipped, None).score, 0.0);
    }

    #[test]
    fn a_required_grader_under_the_threshold_forces_zero() {
        let mut required = grader("must", 1.0);
        required.required = true;
        let graded = [
            (grader("a", 9.0), pass()),
            (required.clone(), outcome(0.7, Verdict::Fail, "half")),
        ];
        let case = score(&graded, None);
        assert_eq!((case.score, case.passed), (0.0, false));
        assert_eq!(case.gated_by.as_deref(), Some("must"));
        assert!(
            case.failed_graders[0]
                .1
                .starts_with("score 0.70, required: under its minimum 0.80"),
            "{:?}",
            case.failed_graders
        );
        assert!(
            case.message()
                .contains("forced to 0 by the required grader \"must\"")
        );

        // The case threshold is the gate when min_score is absent.
        let case = score(&graded, Some(0.5));
        assert_eq!(case.gated_by, None);
        assert!((case.score - 0.97).abs() < 1e-9, "{}", case.score);
    }

    #[test]
    fn min_score_is_the_gate_of_a_required_grader_and_nothing_without_required() {
        let mut required = grader("must", 1.0);
        required.required = true;
        required.min_score = Some(0.5);
        let graded = [(required.clone(), outcome(0.6, Verdict::Fail, "x"))];
        let case = score(&graded, Some(0.5));
        assert_eq!(case.gated_by, None);
        assert_eq!((case.score, case.passed), (0.6, true));

        required.min_score = Some(1.0);
        let graded = [
            (grader("a", 1.0), pass()),
            (required, outcome(0.9, Verdict::Pass, "y")),
        ];
        let case = score(&graded, None);
        assert_eq!(case.score, 0.0, "0.9 < min_score 1.0");

        let mut not_required = grader("loose", 1.0);
        not_required.min_score = Some(1.0);
        let graded = [(not_required, outcome(0.9, Verdict::Pass, "z"))];
        assert_eq!(score(&graded, None).score, 0.9);
    }

    #[test]
    fn a_skipped_required_grader_does_not_gate() {
        let mut required = grader("rubrics", 1.0);
        required.required = true;
        let graded = [
            (grader("a", 1.0), pass()),
            (required, GraderOutcome::skip("no judge")),
        ];
        let case = score(&graded, None);
        assert_eq!((case.score, case.passed), (1.0, true));
    }
}
