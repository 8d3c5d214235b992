//! One execution (case x runner): repetitions until the target is reached, retrying a failed
//! repetition up to `repeat_failure` times, stopping at the first repetition that still fails.

use skillgym::{Failure, FailureOrigin};

use super::Engine;
use super::attempt::{AttemptId, run_attempt};
use super::runtimes::Lease;
use crate::artifacts::write_json_or_note;
use crate::progress::Running;
use crate::replay::RecordedExecution;
use crate::results::gate_decision;
use crate::results::{
    AttemptResult, ExecutionPlan, ExecutionResult, RepetitionResult, Status, aggregate,
};
use crate::runner::Runner;
use crate::stats::{GateDecision, Proportion};
use crate::suite::CaseSpec;

/// Runs every repetition and attempt of `case` on `runner` and writes the execution's
/// `result.json`.
pub fn run_execution(run: &Engine, case: &CaseSpec, runner: &Runner) -> ExecutionResult {
    let plan = plan_of(run, case, runner);
    let recorded = match not_run(run, case, runner) {
        Ok(recorded) => recorded,
        Err((origin, message)) => return write_result(skipped(plan, origin, message)),
    };
    let runtime = match Lease::take() {
        Ok(runtime) => runtime,
        Err(error) => panic!("skillgym: cannot start the async runtime: {error}"),
    };
    let loop_ = Repetitions {
        run,
        runtime: &runtime,
        case,
        runner,
        recorded,
        repeat_target: plan.repeat_target,
        repeat_failure: plan.repeat_failure,
        sampled: plan.sampled,
        stop_at_gate: plan.min_pass_rate.filter(|_| plan.stop_when_decided),
    };
    let (repetitions, unrecorded) = loop_.run();
    if repetitions.is_empty()
        && let Some(signal) = crate::interrupt::received()
    {
        let message = format!("not run: the run was interrupted by {}", signal.name());
        return write_result(skipped(plan, FailureOrigin::Interrupted, message));
    }
    let mut result = verdict(plan, repetitions, unrecorded);
    if let Some(snapshots) = &run.snapshots {
        // After the verdict: only a passing execution is checked, so a failure of its own is
        // never replaced and a failed execution is never baselined.
        snapshots.check(&mut result);
    }
    write_result(result)
}

/// What the execution of `case` on `runner` is asked to do, with the case's own settings.
fn plan_of(run: &Engine, case: &CaseSpec, runner: &Runner) -> ExecutionPlan {
    let settings = run.settings.effective(case);
    ExecutionPlan {
        case_id: case.id.clone(),
        runner_id: runner.id.clone(),
        agent: run.agent(runner),
        expected_fail: case.expected_fail,
        repeat_target: settings.repeat,
        repeat_failure: settings.repeat_failure,
        sampled: settings.samples.is_some(),
        min_pass_rate: run.settings.min_pass_rate(case, &runner.id),
        stop_when_decided: case.stop_when_decided && settings.samples.is_some(),
        artifact_dir: run.run_dir.execution_dir(&case.id, &runner.id),
        source: case.source.clone(),
        tags: case.tags.clone(),
    }
}

/// Why the execution does not run at all (the run was interrupted, the runner's model was
/// rejected earlier, its recording lacks the case, it cannot take part in a dry run), or the
/// recorded execution it replays, if any.
fn not_run<'a>(
    run: &Engine,
    case: &CaseSpec,
    runner: &'a Runner,
) -> Result<Option<&'a RecordedExecution>, (FailureOrigin, String)> {
    if let Some(signal) = crate::interrupt::received() {
        let message = format!("not run: the run was interrupted by {}", signal.name());
        return Err((FailureOrigin::Interrupted, message));
    }
    if let Some(reason) = run.rejections.reason(&runner.id) {
        let message = format!(
            "not run: runner `{}` was rejected earlier in this run: {reason}",
            runner.id
        );
        return Err((FailureOrigin::ModelRejected, message));
    }
    let recorded = match &runner.replay {
        Some(replay) => match replay.execution(&case.id) {
            Some(recorded) => Some(recorded),
            None => return Err((FailureOrigin::Runner, replay.missing(&case.id))),
        },
        None => None,
    };
    if recorded.is_none()
        && let Some(reason) = run.dry_run.as_ref().and_then(|dry| dry.skip_reason(runner))
    {
        return Err((FailureOrigin::Runner, reason));
    }
    Ok(recorded)
}

/// The repeat/retry loop of one execution.
struct Repetitions<'a> {
    run: &'a Engine,
    runtime: &'a Lease,
    case: &'a CaseSpec,
    runner: &'a Runner,
    recorded: Option<&'a RecordedExecution>,
    repeat_target: u32,
    repeat_failure: u32,
    /// Samples run on whatever fails (`samples = N`).
    sampled: bool,
    /// With `stop_when_decided`: the gate whose settling ends the sampling.
    stop_at_gate: Option<f64>,
}

impl Repetitions<'_> {
    /// Runs repetitions until the target is reached or one still fails after its retries (a
    /// sampled execution runs every sample); an interrupt starts nothing more. Returns the repetitions that ran and, when a replay ended
    /// short of the target, how many repetitions its recording holds.
    fn run(&self) -> (Vec<RepetitionResult>, Option<u32>) {
        let running = self
            .run
            .progress
            .start(&self.runner.id, &self.case.id, self.repeat_target);
        let mut repetitions = Vec::new();
        for repetition in 1..=self.repeat_target {
            let (attempts, stop) = self.attempts(repetition, &running);
            if let Some(Stop::Unrecorded(held)) = stop {
                return (repetitions, Some(held));
            }
            if stop == Some(Stop::Interrupted) {
                // Nothing more starts; what already ran is kept.
                if !attempts.is_empty() {
                    repetitions.push(RepetitionResult::of(repetition, attempts));
                }
                break;
            }
            let repetition = RepetitionResult::of(repetition, attempts);
            let passed = repetition.passed;
            repetitions.push(repetition);
            if !passed && !self.sampled {
                break;
            }
            if let Some(gate) = self.stop_at_gate
                && settled(&repetitions, gate)
            {
                break;
            }
        }
        (repetitions, None)
    }

    /// The attempts of one repetition: the first, and retries of a failure up to
    /// `repeat_failure`; with why the repetitions stop here, if they do.
    fn attempts(
        &self,
        repetition: u32,
        running: &Running<'_>,
    ) -> (Vec<AttemptResult>, Option<Stop>) {
        let mut attempts = Vec::new();
        for attempt in 1..=self.repeat_failure.saturating_add(1) {
            if crate::interrupt::received().is_some() {
                return (attempts, Some(Stop::Interrupted));
            }
            if let Some(recorded) = self.recorded
                && !recorded.has(repetition, attempt)
            {
                // A retry the recording lacks leaves the failure standing; a repetition it
                // lacks ends the replay short of the target.
                if attempt == 1 {
                    return (attempts, Some(Stop::Unrecorded(recorded.repetitions())));
                }
                break;
            }
            let live_steps = running.attempt(repetition, attempt);
            let result = run_attempt(
                self.run,
                self.runtime,
                AttemptId {
                    case: self.case,
                    runner: self.runner,
                    repetition,
                    attempt,
                    live_steps: &live_steps,
                    recorded: self.recorded,
                },
            );
            if let Some(failure) = &result.failure
                && failure.origin == FailureOrigin::ModelRejected
            {
                self.run.rejections.record(
                    &self.runner.id,
                    &format!(
                        "{} (case `{}`, repeat-{repetition}/attempt-{attempt})",
                        failure.message, self.case.id
                    ),
                );
            }
            let retry = retryable(&result) && attempt <= self.repeat_failure;
            attempts.push(result);
            if !retry {
                break;
            }
        }
        (attempts, None)
    }
}

/// Whether the samples so far settle `gate` at 95% (an always-valid confidence sequence, so
/// looking after every sample keeps its error rate).
fn settled(samples: &[RepetitionResult], gate: f64) -> bool {
    let rate = Proportion {
        successes: samples.iter().filter(|s| s.passed).count() as u32,
        trials: samples.len() as u32,
    };
    gate_decision(rate, gate) != GateDecision::Undecided
}

/// Why the repetitions stop before the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The run was interrupted.
    Interrupted,
    /// The recording being replayed holds no more repetitions (this many).
    Unrecorded(u32),
}

/// The execution's result from its repetitions: folded, then marked interrupted when an
/// interrupt cut a passing run short, or skipped when a replay's recording held too few
/// repetitions (`unrecorded`: how many it holds).
fn verdict(
    plan: ExecutionPlan,
    repetitions: Vec<RepetitionResult>,
    unrecorded: Option<u32>,
) -> ExecutionResult {
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
    result
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
