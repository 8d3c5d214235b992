//! `min_lift`: the gate on each variant's lift over its baseline, applied once every variant
//! of a case × runner ran.
//!
//! | execution | verdict under the gate |
//! |---|---|
//! | a treatment whose samples all ran | passes when its lift (its pass rate minus the baseline's) is at least the gate, whatever single samples did; else fails with origin `lift` |
//! | a treatment that also has a `min_pass_rate` | must meet both: a pass-rate failure stands |
//! | the baseline | the measure, not the measured: passes when its samples all ran (its own `min_pass_rate`, if any, still applies) |
//! | cut short (an interrupt), or the baseline ran nothing | not judged: the result stands |
//! | a treatment whose baseline ran in another process (nextest's process per test runs each variant alone) | not judged here: its own verdict stands, and the caller warns |
//!
//! The point estimate decides, as for `min_pass_rate` (its interval is printed beside it):
//! asking the interval's lower bound to clear the gate would fail most small experiments whose
//! skill plainly helps; how sure the lift is, is in the lift table, and `stop_when_decided`
//! settles its sign.

use skillgym::{Failure, FailureOrigin};

use super::{ExecutionResult, Status};
use crate::stats::{Lift, Proportion};

/// Applies each execution's `min_lift` to the variants of one case × runner (the group, in
/// any order); executions without variants or without a gate are left as they are. Returns
/// the treatments under a gate whose baseline is not in the group (they are not judged).
pub(crate) fn apply(group: &mut [ExecutionResult]) -> Vec<&ExecutionResult> {
    let Some(baseline_index) = group.iter().position(|e| e.baseline) else {
        return group
            .iter()
            .filter(|e| e.min_lift.is_some() && e.variant.is_some())
            .collect();
    };
    let baseline_rate = rate(&group[baseline_index]);
    for (index, execution) in group.iter_mut().enumerate() {
        let Some(gate) = execution.min_lift else {
            continue;
        };
        if !ran_all(execution) || baseline_rate.trials == 0 {
            continue;
        }
        if index == baseline_index {
            if execution.min_pass_rate.is_none() {
                pass(execution);
            }
            continue;
        }
        let own_gate_failed = execution
            .failure
            .as_ref()
            .is_some_and(|f| f.origin == FailureOrigin::PassRate);
        let Some(lift) = Lift::of(baseline_rate, rate(execution), 0.95) else {
            continue;
        };
        if lift.difference >= gate {
            if !own_gate_failed {
                pass(execution);
            }
        } else {
            execution.passed = false;
            execution.flaky = false;
            execution.status = Status::Failed;
            execution.failure = Some(Failure::new(FailureOrigin::Lift, below(&lift, gate)));
        }
    }
    Vec::new()
}

/// The passes out of the attempts that ran.
fn rate(execution: &ExecutionResult) -> Proportion {
    Proportion {
        successes: execution.attempts.passing,
        trials: execution.attempts.total,
    }
}

/// Whether the execution ran to its end: not skipped, not cut short by an interrupt.
fn ran_all(execution: &ExecutionResult) -> bool {
    execution.completed_repetitions > 0
        && !matches!(execution.status, Status::Interrupted | Status::Skipped)
}

fn pass(execution: &mut ExecutionResult) {
    if !execution.passed {
        execution.passed = true;
        execution.status = Status::Passed;
        execution.failure = None;
    }
}

/// `lift +10% (9/10 against 8/10, 95% CI -21%..+38%) is below min_lift +20%`.
fn below(lift: &Lift, gate: f64) -> String {
    format!(
        "lift {} ({}/{} against the baseline's {}/{}, 95% CI {} to {}) is below min_lift {}",
        signed(lift.difference),
        lift.treatment.successes,
        lift.treatment.trials,
        lift.baseline.successes,
        lift.baseline.trials,
        signed(lift.interval.low),
        signed(lift.interval.high),
        signed(gate)
    )
}

/// `0.1` as `+10%`, `-0.055` as `-5.5%`.
fn signed(value: f64) -> String {
    let tenths = (value * 1000.0).round() / 10.0;
    if tenths == 0.0 {
        "0%".to_owned()
    } else if tenths > 0.0 {
        format!("+{tenths}%")
    } else {
        format!("{tenths}%")
    }
}
