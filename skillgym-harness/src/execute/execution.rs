//! One execution (case x runner): repetitions until the target is reached, retrying a failed
//! repetition up to `repeat_failure` times, stopping at the first repetition that still fails.

use skillgym::{Failure, FailureOrigin};

use super::Engine;
use super::attempt::{AttemptId, run_attempt};
use super::runtimes::Lease;
use crate::artifacts::write_json_or_note;
use crate::config::Variant;
use crate::progress::Running;
use crate::replay::RecordedExecution;
use crate::results::{
    AttemptResult, ExecutionPlan, ExecutionResult, RepetitionResult, Status, aggregate,
};
use crate::results::{apply_lift_gates, apply_trigger_gates, gate_decision, lift_sign};
use crate::runner::Runner;
use crate::stats::{Discordant, GateDecision, Proportion, Verdict};
use crate::suite::CaseSpec;
use crate::terminal_text::eprintln_escaped;

/// Runs every repetition and attempt of `case` on `runner` and writes the execution's
/// `result.json`.
pub fn run_execution(run: &Engine, case: &CaseSpec, runner: &Runner) -> ExecutionResult {
    let mut results = run_variants(run, case, runner, &[None]);
    results
        .pop()
        .unwrap_or_else(|| unreachable!("one result per variant"))
}

/// Runs `case` on `runner` under each of `variants` (`None`: the case without variants),
/// interleaved: repetition 1 of every variant, then repetition 2 of every variant that goes
/// on, ..., so drift in the agent's service hits them alike. Writes each execution's
/// `result.json`; returns the results in the order of `variants`.
pub fn run_variants(
    run: &Engine,
    case: &CaseSpec,
    runner: &Runner,
    variants: &[Option<&Variant>],
) -> Vec<ExecutionResult> {
    let mut results = unwritten(run, case, runner, variants);
    for alone in apply_lift_gates(&mut results) {
        eprintln_escaped!(
            "skillgym: warning: {}: `min_lift` not applied: its baseline did not run in this process (nextest runs each variant alone); `cargo skillgym report` shows the lift",
            alone.trial_name()
        );
    }
    results.into_iter().map(write_result).collect()
}

/// Runs the trigger cases of one skill on `runner` (each under its variant), one after
/// another; when `complete` (every prompt of the skill on the runner is among them), applies
/// the skill's `min_recall` / `min_precision` (`crate::results::trigger_gate`), else warns that they
/// were not applied. Writes each execution's `result.json`; returns the results in order.
pub fn run_triggers(
    run: &Engine,
    cases: &[(&CaseSpec, Option<&Variant>)],
    runner: &Runner,
    complete: bool,
) -> Vec<ExecutionResult> {
    let mut results: Vec<ExecutionResult> = cases
        .iter()
        .flat_map(|&(case, variant)| unwritten(run, case, runner, &[variant]))
        .collect();
    if complete {
        apply_trigger_gates(&mut results);
    } else if let Some(first) = results.first()
        && let Some(trigger) = first.trigger.as_ref()
        && (trigger.min_recall.is_some() || trigger.min_precision.is_some())
    {
        eprintln_escaped!(
            "skillgym: warning: the trigger gates of skill `{}` on `{}` not applied: only some of its prompts ran in this process (a filter, or nextest's process per test); each prompt's own verdict stands, and `cargo skillgym report` shows the skill's figures",
            trigger.skill,
            runner.id
        );
    }
    results.into_iter().map(write_result).collect()
}

/// [`run_variants`] without the lift gates and without writing the results.
fn unwritten(
    run: &Engine,
    case: &CaseSpec,
    runner: &Runner,
    variants: &[Option<&Variant>],
) -> Vec<ExecutionResult> {
    let mut slots: Vec<Result<Arm<'_>, Box<ExecutionResult>>> = variants
        .iter()
        .map(|&variant| {
            let plan = plan_of(run, case, runner, variant);
            match not_run(run, case, runner, variant) {
                Ok(recorded) => Ok(Arm::new(run, case, runner, variant, plan, recorded)),
                Err((origin, message)) => Err(Box::new(skipped(plan, origin, message))),
            }
        })
        .collect();
    if slots.iter().any(Result::is_ok) {
        let runtime = match Lease::take() {
            Ok(runtime) => runtime,
            Err(error) => panic!("skillgym: cannot start the async runtime: {error}"),
        };
        let mut arms: Vec<&mut Arm<'_>> =
            slots.iter_mut().filter_map(|s| s.as_mut().ok()).collect();
        interleave(&runtime, &mut arms);
    }
    slots
        .into_iter()
        .map(|slot| match slot {
            Ok(arm) => arm.finish(),
            Err(result) => ExecutionResult {
                agent: run.agent(runner),
                ..*result
            },
        })
        .collect()
}

/// Runs the arms' repetitions round by round until each is done; with `stop_when_decided`
/// and no gate, until the sign of every variant's lift against the baseline is settled.
fn interleave(runtime: &Lease, arms: &mut [&mut Arm<'_>]) {
    let rounds = arms
        .iter()
        .map(|arm| arm.plan.repeat_target)
        .max()
        .unwrap_or(0);
    for repetition in 1..=rounds {
        for arm in arms.iter_mut() {
            if !arm.done && repetition <= arm.plan.repeat_target {
                arm.step(runtime, repetition);
            }
        }
        if crate::interrupt::received().is_some() || arms.iter().all(|arm| arm.done) {
            break;
        }
        if lifts_settled(arms) {
            for arm in arms.iter_mut() {
                arm.done = true;
            }
            break;
        }
    }
}

/// Whether the arms sample for the sign of a lift (`stop_when_decided` without a gate, under
/// variants) and every treatment's sign against the baseline is settled: a sequential sign
/// test on the discordant pairs (the same repetition of both), valid when checked after every
/// round.
fn lifts_settled(arms: &[&mut Arm<'_>]) -> bool {
    let Some(baseline) = arms.iter().find(|arm| arm.plan.baseline) else {
        return false;
    };
    let asks = |arm: &Arm<'_>| {
        arm.plan.stop_when_decided && arm.plan.min_pass_rate.is_none() && arm.plan.variant.is_some()
    };
    let treatments: Vec<&&mut Arm<'_>> = arms.iter().filter(|arm| !arm.plan.baseline).collect();
    if treatments.is_empty() || !arms.iter().all(|arm| asks(arm)) {
        return false;
    }
    treatments.iter().all(|treatment| {
        let pairs = discordant(&baseline.repetitions, &treatment.repetitions);
        lift_sign(pairs) != Verdict::NoDetectableEffect
    })
}

/// The discordant pairs of two variants' repetitions, paired by number.
pub(crate) fn discordant(
    baseline: &[RepetitionResult],
    treatment: &[RepetitionResult],
) -> Discordant {
    let mut pairs = Discordant::default();
    for (b, t) in baseline.iter().zip(treatment) {
        match (b.passed, t.passed) {
            (true, false) => pairs.baseline_only += 1,
            (false, true) => pairs.treatment_only += 1,
            _ => {}
        }
    }
    pairs
}

/// What the execution of `case` on `runner` under `variant` is asked to do, with the case's
/// own settings (the agent without its version, which the result gets at the end).
fn plan_of(
    run: &Engine,
    case: &CaseSpec,
    runner: &Runner,
    variant: Option<&Variant>,
) -> ExecutionPlan {
    let settings = run.settings.effective(case);
    let variant_name = variant.map(|v| v.name.as_str());
    ExecutionPlan {
        case_id: case.id.clone(),
        runner_id: runner.id.clone(),
        variant: variant_name.map(str::to_owned),
        baseline: variant.is_some_and(|v| v.baseline),
        agent: crate::versions::agent_of(runner, || &crate::versions::NONE),
        expected_fail: case.expected_fail,
        repeat_target: settings.repeat,
        repeat_failure: settings.repeat_failure,
        sampled: settings.samples.is_some(),
        min_pass_rate: run.settings.min_pass_rate(case, &runner.id),
        min_lift: variant.and_then(|_| run.settings.min_lift(case, &runner.id)),
        stop_when_decided: case.stop_when_decided && settings.samples.is_some(),
        artifact_dir: run.run_dir.variant_dir(&case.id, &runner.id, variant_name),
        source: case.source.clone(),
        tags: case.tags.clone(),
        trigger: super::trigger::expectation(case),
    }
}

/// Why the execution does not run at all (the run was interrupted, the runner's model was
/// rejected earlier, its recording lacks the case, it cannot take part in a dry run), or the
/// recorded execution it replays, if any.
fn not_run<'a>(
    run: &Engine,
    case: &CaseSpec,
    runner: &'a Runner,
    variant: Option<&Variant>,
) -> Result<Option<&'a RecordedExecution>, (FailureOrigin, String)> {
    if let Some(signal) = crate::interrupt::received() {
        let message = format!("not run: the run was interrupted by {}", signal.name());
        return Err((FailureOrigin::Interrupted, message));
    }
    if let Some((_, reason)) = run.unavailable.iter().find(|(id, _)| *id == runner.id) {
        let reason = reason.lines().next().unwrap_or_default();
        return Err((FailureOrigin::Runner, format!("not run: {reason}")));
    }
    if let Some(reason) = run.rejections.reason(&runner.id) {
        let message = format!(
            "not run: runner `{}` was rejected earlier in this run: {reason}",
            runner.id
        );
        return Err((FailureOrigin::ModelRejected, message));
    }
    let recorded = match &runner.replay {
        Some(replay) => {
            let variant = variant.map(|v| v.name.as_str());
            match replay.execution(&case.id, variant) {
                Some(recorded) => Some(recorded),
                None => return Err((FailureOrigin::Runner, replay.missing(&case.id, variant))),
            }
        }
        None => None,
    };
    if recorded.is_none()
        && let Some(reason) = run.dry_run.as_ref().and_then(|dry| dry.skip_reason(runner))
    {
        return Err((FailureOrigin::Runner, reason));
    }
    Ok(recorded)
}

/// One execution (a case on a runner, under a variant or not), run a repetition at a time:
/// the repeat/retry loop, or the samples.
struct Arm<'a> {
    run: &'a Engine,
    case: &'a CaseSpec,
    runner: &'a Runner,
    variant: Option<&'a Variant>,
    recorded: Option<&'a RecordedExecution>,
    plan: ExecutionPlan,
    running: Running<'a>,
    /// The repetitions that ran.
    repetitions: Vec<RepetitionResult>,
    /// When a replay ended short of the target: how many repetitions its recording holds.
    unrecorded: Option<u32>,
    /// When the run's budget stopped it: which limit was reached.
    budget_reached: Option<String>,
    /// Whether no more repetitions run.
    done: bool,
}

impl<'a> Arm<'a> {
    fn new(
        run: &'a Engine,
        case: &'a CaseSpec,
        runner: &'a Runner,
        variant: Option<&'a Variant>,
        plan: ExecutionPlan,
        recorded: Option<&'a RecordedExecution>,
    ) -> Arm<'a> {
        let shown = match variant {
            Some(variant) => format!("{}/{}", runner.id, variant.name),
            None => runner.id.clone(),
        };
        let running = run.progress.start(&shown, &case.id, plan.repeat_target);
        Arm {
            run,
            case,
            runner,
            variant,
            recorded,
            plan,
            running,
            repetitions: Vec::new(),
            unrecorded: None,
            budget_reached: None,
            done: false,
        }
    }

    /// Runs repetition `repetition`: done after a repetition that still fails (unless
    /// sampled), once the gate is settled (`stop_when_decided`), on an interrupt or when the
    /// run's budget is reached (what ran is kept), or when a replay's recording holds no more.
    fn step(&mut self, runtime: &Lease, repetition: u32) {
        let (attempts, stop) = self.attempts(runtime, repetition);
        match stop {
            Some(Stop::Unrecorded(held)) => {
                self.unrecorded = Some(held);
                self.done = true;
                return;
            }
            Some(stop @ (Stop::Interrupted | Stop::Budget(_))) => {
                if !attempts.is_empty() {
                    self.repetitions
                        .push(RepetitionResult::of(repetition, attempts));
                }
                if let Stop::Budget(reached) = stop {
                    self.budget_reached = Some(reached);
                }
                self.done = true;
                return;
            }
            None => {}
        }
        let repetition = RepetitionResult::of(repetition, attempts);
        let passed = repetition.passed;
        self.repetitions.push(repetition);
        let gate = self
            .plan
            .min_pass_rate
            .filter(|_| self.plan.stop_when_decided);
        if (!passed && !self.plan.sampled)
            || gate.is_some_and(|gate| settled(&self.repetitions, gate))
            || self.over_cost_limit()
        {
            self.done = true;
        }
    }

    /// Whether the sessions so far reached the suite's `execution.trials.cost_limit_usd` (a
    /// session without a cost counts nothing).
    fn over_cost_limit(&self) -> bool {
        let crate::suite::CaseCheck::Declared(check) = &self.case.check else {
            return false;
        };
        let Some(limit) = check.suite.cost_limit_usd else {
            return false;
        };
        let spent: f64 = (self.repetitions.iter())
            .flat_map(|repetition| &repetition.attempts)
            .filter_map(|attempt| attempt.usage.cost_usd)
            .sum();
        spent >= limit
    }

    /// The execution's result (its gate on the lift not yet applied, its file not written).
    fn finish(self) -> ExecutionResult {
        let Arm {
            run,
            runner,
            mut plan,
            repetitions,
            unrecorded,
            budget_reached,
            ..
        } = self;
        // The agent's version is asked while the first sessions run, and taken only now, so
        // that no session waits for it.
        plan.agent = run.agent(runner);
        if repetitions.is_empty()
            && let Some(signal) = crate::interrupt::received()
        {
            let message = format!("not run: the run was interrupted by {}", signal.name());
            return skipped(plan, FailureOrigin::Interrupted, message);
        }
        if let Some(reached) = budget_reached {
            return undecided(plan, repetitions, &reached);
        }
        let mut result = verdict(plan, repetitions, unrecorded);
        if let Some(snapshots) = &run.snapshots {
            // After the verdict: only a passing execution is checked, so a failure of its own
            // is never replaced and a failed execution is never baselined.
            snapshots.check(&mut result);
        }
        result
    }

    /// The attempts of one repetition: the first, and retries of a failure up to
    /// `repeat_failure`; with why the repetitions stop here, if they do.
    fn attempts(&self, runtime: &Lease, repetition: u32) -> (Vec<AttemptResult>, Option<Stop>) {
        let mut attempts = Vec::new();
        for attempt in 1..=self.plan.repeat_failure.saturating_add(1) {
            if crate::interrupt::received().is_some() {
                return (attempts, Some(Stop::Interrupted));
            }
            if self.recorded.is_none()
                && let Err(reached) = self.run.budget.start_session()
            {
                return (attempts, Some(Stop::Budget(reached)));
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
            let live_steps = self.running.attempt(repetition, attempt);
            let result = run_attempt(
                self.run,
                runtime,
                AttemptId {
                    case: self.case,
                    runner: self.runner,
                    variant: self.variant,
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
            self.run.budget.spend(&result.usage);
            let retry = retryable(&result) && attempt <= self.plan.repeat_failure;
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
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stop {
    /// The run was interrupted.
    Interrupted,
    /// The run's budget was reached (this limit).
    Budget(String),
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

/// An execution the run's budget (`reached`, the limit) stopped before its end: skipped with
/// origin `budget`, what ran kept in its figures, unless sampling had already been decided
/// (`stop_when_decided`), whose verdict stands.
fn undecided(
    plan: ExecutionPlan,
    repetitions: Vec<RepetitionResult>,
    reached: &str,
) -> ExecutionResult {
    let ran = repetitions.len();
    let passed = repetitions.iter().filter(|r| r.passed).count();
    let mut result = aggregate(plan, repetitions);
    if result.samples.as_ref().is_some_and(|s| {
        s.decision
            .is_some_and(|decision| decision != GateDecision::Undecided)
    }) {
        return result;
    }
    let message = if ran == 0 {
        format!("not run: {reached} was reached")
    } else {
        format!(
            "not decided: {reached} was reached after {ran} of {} {} ({passed} passed)",
            result.repeat_target,
            if result.samples.is_some() {
                "samples"
            } else {
                "repetitions"
            }
        )
    };
    result.status = Status::Skipped;
    result.passed = false;
    result.flaky = false;
    result.failure = Some(Failure::new(FailureOrigin::Budget, message));
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
