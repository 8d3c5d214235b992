//! One execution (case x runner): repetitions until the target is reached, retrying a failed
//! repetition up to `repeat_failure` times, stopping at the first repetition that still fails.

use skillgym::{Failure, FailureOrigin};

use super::Engine;
use super::attempt::{AttemptId, run_attempt};
use super::runtimes::Lease;
use crate::artifacts::write_json_or_note;
use crate::results::{
    AttemptResult, ExecutionPlan, ExecutionResult, RepetitionResult, Status, aggregate,
};
use crate::runner::Runner;
use crate::suite::CaseSpec;

/// Runs every repetition and attempt of `case` on `runner` and writes the execution's
/// `result.json`.
pub fn run_execution(run: &Engine, case: &CaseSpec, runner: &Runner) -> ExecutionResult {
    let settings = run.settings.effective(case);
    let (repeat_target, repeat_failure) = (settings.repeat, settings.repeat_failure);
    let plan = ExecutionPlan {
        case_id: case.id.clone(),
        runner_id: runner.id.clone(),
        agent: run.agent(runner),
        expected_fail: case.expected_fail,
        repeat_target,
        repeat_failure,
        artifact_dir: run.run_dir.execution_dir(&case.id, &runner.id),
        source: case.source.clone(),
        tags: case.tags.clone(),
    };
    if let Some(signal) = crate::interrupt::received() {
        let message = format!("not run: the run was interrupted by {}", signal.name());
        return write_result(skipped(plan, FailureOrigin::Interrupted, message));
    }
    if let Some(reason) = run.rejections.reason(&runner.id) {
        let message = format!(
            "not run: runner `{}` was rejected earlier in this run: {reason}",
            runner.id
        );
        return write_result(skipped(plan, FailureOrigin::ModelRejected, message));
    }
    let recorded = match &runner.replay {
        Some(replay) => match replay.execution(&case.id) {
            Some(recorded) => Some(recorded),
            None => {
                return write_result(skipped(
                    plan,
                    FailureOrigin::Runner,
                    replay.missing(&case.id),
                ));
            }
        },
        None => None,
    };
    if recorded.is_none()
        && let Some(reason) = run.dry_run.as_ref().and_then(|dry| dry.skip_reason(runner))
    {
        return write_result(skipped(plan, FailureOrigin::Runner, reason));
    }
    let runtime = match Lease::take() {
        Ok(runtime) => runtime,
        Err(error) => panic!("skillgym: cannot start the async runtime: {error}"),
    };
    let running = run.progress.start(&runner.id, &case.id, repeat_target);
    let mut repetitions = Vec::new();
    let mut unrecorded = None;
    'repetitions: for repetition in 1..=repeat_target {
        let mut attempts = Vec::new();
        for attempt in 1..=repeat_failure.saturating_add(1) {
            if crate::interrupt::received().is_some() {
                // Nothing more starts; what already ran is kept.
                if !attempts.is_empty() {
                    repetitions.push(RepetitionResult::of(repetition, attempts));
                }
                break 'repetitions;
            }
            if let Some(recorded) = recorded
                && !recorded.has(repetition, attempt)
            {
                // A retry the recording lacks leaves the failure standing; a repetition it
                // lacks ends the replay short of the target.
                if attempt == 1 {
                    unrecorded = Some(recorded.repetitions());
                    break 'repetitions;
                }
                break;
            }
            let live_steps = running.attempt(repetition, attempt);
            let result = run_attempt(
                run,
                &runtime,
                AttemptId {
                    case,
                    runner,
                    repetition,
                    attempt,
                    live_steps: &live_steps,
                    recorded,
                },
            );
            if let Some(failure) = &result.failure
                && failure.origin == FailureOrigin::ModelRejected
            {
                run.rejections.record(
                    &runner.id,
                    &format!(
                        "{} (case `{}`, repeat-{repetition}/attempt-{attempt})",
                        failure.message, case.id
                    ),
                );
            }
            let retry = retryable(&result) && attempt <= repeat_failure;
            attempts.push(result);
            if !retry {
                break;
            }
        }
        let repetition = RepetitionResult::of(repetition, attempts);
        let passed = repetition.passed;
        repetitions.push(repetition);
        if !passed {
            break;
        }
    }
    drop(running);
    if repetitions.is_empty()
        && let Some(signal) = crate::interrupt::received()
    {
        let message = format!("not run: the run was interrupted by {}", signal.name());
        return write_result(skipped(plan, FailureOrigin::Interrupted, message));
    }
    let mut result = aggregate(plan, repetitions);
    if !result.passed && result.status.is_passing() && crate::interrupt::received().is_some() {
        // Every repetition that ran passed, but the interrupt stopped the rest.
        result.status = Status::Interrupted;
        result.failure = Some(crate::interrupt::failure(&format!(
            "stopped after {} of {} repetitions",
            result.completed_repetitions, result.repeat_target
        )));
    }
    if let Some(held) = unrecorded
        && result.status.is_passing()
    {
        result.status = Status::Skipped;
        result.passed = true;
        result.failure = Some(Failure::new(
            FailureOrigin::Runner,
            format!(
                "not finished: the recording holds {held} of the {} repetitions this case wants; the ones it holds passed",
                result.repeat_target
            ),
        ));
    }
    if let Some(snapshots) = &run.snapshots {
        // After the verdict: only a passing execution is checked, so a failure of its own is
        // never replaced and a failed execution is never baselined.
        snapshots.check(&mut result);
    }
    write_result(result)
}

/// An execution not run: its runner's model was rejected earlier, its runner cannot take part
/// in a dry run, or the run was interrupted.
fn skipped(plan: ExecutionPlan, origin: FailureOrigin, message: String) -> ExecutionResult {
    let mut result = aggregate(plan, Vec::new());
    result.status = Status::Skipped;
    result.failure = Some(Failure::new(origin, message));
    result
}

/// Writes the execution's `result.json`.
fn write_result(result: ExecutionResult) -> ExecutionResult {
    write_json_or_note(&result.artifact_dir.join("result.json"), &result);
    result
}

/// Whether a failed attempt may be retried: never an unexpected pass (the agent did what the
/// case says it cannot; retrying would only hide that) nor a model rejection (it would be
/// rejected again).
fn retryable(result: &AttemptResult) -> bool {
    !result.passed
        && result.status != Status::UnexpectedPassed
        && result
            .failure
            .as_ref()
            .is_none_or(|failure| failure.origin != FailureOrigin::ModelRejected)
}
