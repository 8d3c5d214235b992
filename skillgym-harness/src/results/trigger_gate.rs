//! `min_recall` / `min_precision`: the gates on a skill's trigger figures on one runner,
//! applied once every prompt of the skill ran there.
//!
//! | prompt's execution | verdict under the gates |
//! |---|---|
//! | a `should_trigger` prompt that misfired, when recall is below `min_recall` | fails with origin `trigger`, naming the figure and its own misfires |
//! | a `should_not_trigger` prompt that misfired, when precision is below `min_precision` | the same, for precision |
//! | any other whose failure is only its sessions' misfires (origin `assertion`) | passes: the skill's figures decide, not single sessions |
//! | one that failed otherwise (the agent could not run, a timeout, …), or was skipped | stands as it is |
//!
//! The point estimate decides, as for `min_pass_rate`; its interval is printed beside it.

use skillgym::{Failure, FailureOrigin};

use super::triggers::{Estimate, TriggerExpect, scores};
use super::{ExecutionResult, Status};

/// Applies the gates of the trigger executions of one skill on one runner (`group`, every
/// prompt of it); executions without a gate are left as they are.
pub(crate) fn apply(group: &mut [ExecutionResult]) {
    let gated = group.iter().any(|e| {
        e.trigger
            .as_ref()
            .is_some_and(|t| t.min_recall.is_some() || t.min_precision.is_some())
    });
    if !gated {
        return;
    }
    let all = scores(group);
    for execution in group.iter_mut() {
        let Some(trigger) = &execution.trigger else {
            continue;
        };
        let Some(score) = all.iter().find(|s| {
            s.skill == trigger.skill
                && s.runner_id == execution.runner_id
                && s.variant == execution.variant
        }) else {
            continue;
        };
        let own_misfires = execution
            .failure
            .as_ref()
            .is_none_or(|f| f.origin == FailureOrigin::Assertion);
        if !own_misfires || matches!(execution.status, Status::Skipped | Status::Interrupted) {
            continue;
        }
        // The figure this prompt's misfires count against, and the sessions it is over.
        let tp = score.true_positives;
        let (figure, estimate, gate, out_of) = match trigger.expect {
            TriggerExpect::Fire => (
                "recall",
                score.recall,
                score.min_recall,
                tp + score.false_negatives,
            ),
            TriggerExpect::Quiet => (
                "precision",
                score.precision,
                score.min_precision,
                tp + score.false_positives,
            ),
        };
        let below = estimate.zip(gate).filter(|(e, gate)| e.value < *gate);
        let misfire = score
            .misfires
            .iter()
            .find(|m| m.case_id == execution.case_id);
        match (below, misfire) {
            (Some((estimate, gate)), Some(misfire)) => {
                let message = format!(
                    "{} of skill `{}` is below min_{figure} {}: {}",
                    figure_text(figure, estimate, (tp, out_of)),
                    score.skill,
                    percent(gate),
                    own_text(trigger.expect, misfire.misfired, misfire.sessions)
                );
                execution.passed = false;
                execution.status = Status::Failed;
                execution.failure = Some(Failure::new(FailureOrigin::Trigger, message));
            }
            _ => {
                execution.passed = true;
                execution.status = Status::Passed;
                execution.failure = None;
            }
        }
    }
}

/// `recall 60% (3/5 sessions, 95% CI 23% to 88%)`.
fn figure_text(figure: &str, estimate: Estimate, (hits, out_of): (u32, u32)) -> String {
    format!(
        "{figure} {} ({hits}/{out_of} sessions, 95% CI {} to {})",
        percent(estimate.value),
        percent(estimate.interval.low),
        percent(estimate.interval.high)
    )
}

fn own_text(expect: TriggerExpect, misfired: u32, sessions: u32) -> String {
    match expect {
        TriggerExpect::Fire => {
            format!("this prompt did not fire it in {misfired} of {sessions} sessions")
        }
        TriggerExpect::Quiet => {
            format!("this prompt fired it in {misfired} of {sessions} sessions")
        }
    }
}

/// `0.6` as `60%`, `0.125` as `12.5%`.
fn percent(share: f64) -> String {
    let tenths = (share * 1000.0).round() / 10.0;
    format!("{tenths}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gated trigger execution whose sessions fired the skill or not; failed (origin
    /// `assertion`) when one misfired.
    fn prompt(case: &str, expect: &str, fired: &[bool]) -> ExecutionResult {
        let should = expect == "fire";
        let misfired = fired.iter().any(|&f| f != should);
        let repetitions: Vec<serde_json::Value> = fired
            .iter()
            .enumerate()
            .map(|(i, &f)| {
                let ok = f == should;
                serde_json::json!({
                    "repetition": i + 1, "status": if ok {"passed"} else {"failed"}, "passed": ok,
                    "attempts": [{"repetition": i + 1, "attempt": 1,
                        "status": if ok {"passed"} else {"failed"}, "passed": ok,
                        "duration_ms": 1, "steps": 1, "artifact_dir": "/a", "usage": {},
                        "trigger": {"fired": if f {vec!["pdf"]} else {vec![]}, "ended": "fired"}}],
                })
            })
            .collect();
        let mut value = serde_json::json!({
            "case_id": case, "runner_id": "r", "source": "t:1",
            "status": if misfired {"failed"} else {"passed"}, "passed": !misfired,
            "expected_fail": false, "repeat_target": fired.len(), "repeat_failure": 0,
            "completed_repetitions": fired.len(), "successful_repetitions": 0,
            "failed_repetitions": 0, "flaky": false,
            "attempts": {"total": 1, "passing": 1, "pass_rate": 1.0,
                "pass_rate_95": {"low": 0.0, "high": 1.0}},
            "duration_ms": 1, "usage": {}, "artifact_dir": "/x", "repetitions": repetitions,
            "trigger": {"skill": "pdf", "expect": expect, "prompt": "p",
                "min_recall": 0.8, "min_precision": 0.5},
        });
        if misfired {
            value["failure"] = serde_json::json!({"origin": "assertion",
                "class": {"id": "assertion"}, "message": "skill `pdf` did not fire"});
        }
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn below_a_gate_the_misfiring_prompts_fail_and_the_others_pass() {
        let mut group = [
            prompt("s1", "fire", &[true, false]),
            prompt("s2", "fire", &[true, true]),
            prompt("n1", "quiet", &[true, false]),
        ];
        apply(&mut group);
        let failure = group[0].failure.as_ref().expect("recall 3/4 is below 80%");
        assert_eq!(failure.origin, FailureOrigin::Trigger);
        assert_eq!(
            failure.message,
            "recall 75% (3/4 sessions, 95% CI 30.1% to 95.4%) of skill `pdf` is below min_recall 80%: this prompt did not fire it in 1 of 2 sessions"
        );
        assert!(group[1].passed);
        // Precision 3/4 meets 50%: the misfire of a should-not prompt is forgiven.
        assert!(group[2].passed && group[2].failure.is_none());
    }

    #[test]
    fn infrastructure_failures_stand_under_the_gates() {
        let mut timed_out = prompt("s1", "fire", &[true]);
        timed_out.passed = false;
        timed_out.status = Status::Failed;
        timed_out.failure = Some(Failure::new(FailureOrigin::Timeout, "slow"));
        let mut group = [timed_out, prompt("s2", "fire", &[true])];
        apply(&mut group);
        assert_eq!(
            group[0].failure.as_ref().map(|f| f.origin),
            Some(FailureOrigin::Timeout)
        );
    }
}
