//! Folding an execution's repetitions into its one visible result: verdict, counts, averages
//! over the final attempts of successful repetitions (exact, never overflowing: see
//! [`figures`]), pass rate with a Wilson interval, flaky.

use std::path::PathBuf;

use skillgym::{AgentInfo, Failure, FailureOrigin, TokenCount, Usage};

use super::samples::gate_decision;
use super::{
    AttemptResult, AttemptStats, ExecutionResult, Interval, RepetitionResult, SampleStats, Status,
};
use crate::figures::{self, mean};
use crate::stats::{GateDecision, Proportion, Z_95};

/// What an execution was asked to do, for [`aggregate`].
#[derive(Debug, Clone)]
pub(crate) struct ExecutionPlan {
    /// The case id.
    pub case_id: String,
    /// The runner id.
    pub runner_id: String,
    /// The variant, if any.
    pub variant: Option<String>,
    /// Whether the variant is its case × runner's baseline.
    pub baseline: bool,
    /// The runner's agent (in a run, without the asked version: the execution's result
    /// gets it once its sessions ran).
    pub agent: AgentInfo,
    /// Whether the case is marked `expected_fail`.
    pub expected_fail: bool,
    /// Successful repetitions wanted.
    pub repeat_target: u32,
    /// Extra attempts per repetition after a failure.
    pub repeat_failure: u32,
    /// Whether the repetitions are samples (`samples = N`): one attempt each, none stopping
    /// the others.
    pub sampled: bool,
    /// The gate on the pass rate (`min_pass_rate`), if any.
    pub min_pass_rate: Option<f64>,
    /// The gate on the variant's lift over its baseline (`min_lift`), if any.
    pub min_lift: Option<f64>,
    /// Whether sampling stops once the gate is settled (`stop_when_decided`).
    pub stop_when_decided: bool,
    /// `<run>/<case>/<runner>[/<variant>]`.
    pub artifact_dir: PathBuf,
    /// Where the case is declared, `file:line`.
    pub source: String,
    /// The case's tags.
    pub tags: Vec<String>,
    /// A trigger case's expectation.
    pub trigger: Option<super::TriggerExpectation>,
}

/// The execution's result from its repetitions, in order. The execution passes only when
/// `repeat_target` repetitions passed; it stops (and fails) at the first repetition that still
/// failed after its attempts, whose failure becomes the execution's. A sampled execution runs
/// every sample whatever fails; it passes when all did, its first failed sample gives its
/// failure, and its averages and [`SampleStats`] are over every sample.
pub(crate) fn aggregate(
    plan: ExecutionPlan,
    repetitions: Vec<RepetitionResult>,
) -> ExecutionResult {
    let terminal = repetitions.iter().find(|r| !r.passed);
    let successful: Vec<&AttemptResult> = repetitions
        .iter()
        .filter(|r| r.passed)
        .filter_map(RepetitionResult::final_attempt)
        .collect();
    let passed = terminal.is_none() && successful.len() as u32 >= plan.repeat_target;
    let decisive = terminal.or(repetitions.last());
    let status = decisive.map_or(Status::Skipped, |r| r.status);
    let failure = decisive
        .and_then(RepetitionResult::final_attempt)
        .and_then(|a| a.failure.clone());
    let averaged: Vec<&AttemptResult> = match terminal {
        _ if plan.sampled => repetitions
            .iter()
            .filter_map(RepetitionResult::final_attempt)
            .collect(),
        Some(repetition) => repetition.final_attempt().into_iter().collect(),
        None => successful.clone(),
    };
    let samples = plan.sampled.then(|| {
        let mut stats = SampleStats::of(averaged.iter().copied());
        if let (true, Some(gate)) = (plan.stop_when_decided, plan.min_pass_rate) {
            stats.decision = Some(gate_decision(stats.proportion(), gate));
        }
        stats
    });
    let min_pass_rate = plan.min_pass_rate;
    let all_attempts = repetitions.iter().flat_map(|r| &r.attempts);
    let total = all_attempts.clone().count() as u32;
    let passing = all_attempts.filter(|a| a.passed).count() as u32;
    let mut result = ExecutionResult {
        case_id: plan.case_id,
        runner_id: plan.runner_id,
        variant: plan.variant,
        baseline: plan.baseline,
        agent: plan.agent,
        source: plan.source,
        tags: plan.tags,
        status,
        passed,
        expected_fail: plan.expected_fail,
        failure,
        repeat_target: plan.repeat_target,
        repeat_failure: plan.repeat_failure,
        completed_repetitions: repetitions.len() as u32,
        successful_repetitions: successful.len() as u32,
        failed_repetitions: repetitions.iter().filter(|r| !r.passed).count() as u32,
        stopped_at_repetition: terminal.filter(|_| !plan.sampled).map(|r| r.repetition),
        flaky: passed && repetitions.iter().any(|r| r.attempts.len() > 1),
        attempts: AttemptStats {
            total,
            passing,
            pass_rate: if total == 0 {
                0.0
            } else {
                f64::from(passing) / f64::from(total)
            },
            pass_rate_95: wilson_95(passing, total),
        },
        samples,
        min_pass_rate,
        min_lift: plan.min_lift,
        duration_ms: mean(averaged.iter().map(|a| a.duration_ms)).unwrap_or(0),
        usage: mean_usage(averaged.iter().map(|a| &a.usage)),
        snapshot: None,
        trigger: plan.trigger,
        artifact_dir: plan.artifact_dir,
        repetitions,
    };
    if let Some(gate) = min_pass_rate {
        gated(&mut result, gate);
    }
    result
}

/// Applies `min_pass_rate`: the point estimate decides (the interval is shown beside it). A
/// sampled execution passes when its pass rate over its samples meets the gate, whatever
/// single samples did; a repeated one that passed (with retries) fails when the pass rate over
/// its attempts is below it. Why the point estimate: the gate is the bar the author set on
/// what runs show; asking the interval's lower bound to clear it would fail 9 passes out of 10
/// against a gate of 0.8 (the 95% interval starts at 0.60) and punish small samples, its upper
/// bound would let 5 out of 10 pass. How sure the rate is, is printed with it; stopping once
/// the interval settles the question is the adaptive mode's job.
fn gated(result: &mut ExecutionResult, gate: f64) {
    let ran_all = result.completed_repetitions >= result.repeat_target;
    let failure = match &result.samples {
        Some(samples) => match samples.decision {
            Some(GateDecision::Misses) => Some(format!(
                "{}; decided after {} of at most {} samples (95% confidence sequence)",
                below_gate(samples.proportion(), "samples", gate),
                samples.sessions,
                result.repeat_target
            )),
            Some(GateDecision::Meets) => None,
            // Samples cut short (an interrupt) are not judged: the result stands.
            _ if !ran_all || samples.sessions == 0 => return,
            _ if samples.pass_rate >= gate => None,
            _ => Some(below_gate(samples.proportion(), "samples", gate)),
        },
        None if result.passed && ran_all && result.attempts.pass_rate < gate => {
            let attempts = Proportion {
                successes: result.attempts.passing,
                trials: result.attempts.total,
            };
            Some(below_gate(attempts, "attempts", gate))
        }
        None => return,
    };
    match failure {
        // A sampled execution that meets its gate passes whatever single samples did.
        None => {
            if !result.passed {
                result.passed = true;
                result.status = Status::Passed;
                result.failure = None;
            }
        }
        Some(message) => {
            result.passed = false;
            result.flaky = false;
            result.status = Status::Failed;
            result.failure = Some(Failure::new(FailureOrigin::PassRate, message));
        }
    }
}

/// `pass rate 60% (3/5 samples, 95% CI 23.1%-88.2%) is below min_pass_rate 80%`.
fn below_gate(rate: Proportion, of: &str, gate: f64) -> String {
    let interval = rate.wilson_z(Z_95);
    format!(
        "pass rate {} ({}/{} {of}, 95% CI {}-{}) is below min_pass_rate {}",
        percent(rate.rate().unwrap_or(0.0)),
        rate.successes,
        rate.trials,
        percent(interval.low),
        percent(interval.high),
        percent(gate)
    )
}

/// `0.6` as `60%`, `0.875` as `87.5%`.
fn percent(fraction: f64) -> String {
    let value = (fraction * 1000.0).round() / 10.0;
    if value.fract() == 0.0 {
        format!("{value:.0}%")
    } else {
        format!("{value:.1}%")
    }
}

/// The 95% Wilson score interval of `successes` out of `total` (`[0, 1]` when nothing ran).
pub fn wilson_95(successes: u32, total: u32) -> Interval {
    Proportion {
        successes,
        trials: total,
    }
    .wilson_z(Z_95)
}

/// Each figure averaged over the usages that have it (see [`figures`] for how odd figures
/// count); a token figure keeps the source of the first usage that has it.
fn mean_usage<'a>(usages: impl Iterator<Item = &'a Usage> + Clone) -> Usage {
    let tokens = |figure: fn(&Usage) -> Option<TokenCount>| {
        let first = usages.clone().find_map(figure)?;
        let value = mean(usages.clone().filter_map(figure).map(|c| c.value))?;
        Some(TokenCount {
            value,
            source: first.source,
        })
    };
    Usage {
        input_tokens: tokens(|u| u.input_tokens),
        output_tokens: tokens(|u| u.output_tokens),
        reasoning_tokens: tokens(|u| u.reasoning_tokens),
        cache_tokens: tokens(|u| u.cache_tokens),
        total_tokens: tokens(|u| u.total_tokens),
        cost_usd: figures::mean_cost(usages.clone().filter_map(|u| u.cost_usd)),
        cost_estimated: usages
            .clone()
            .any(|u| u.cost_estimated && u.cost_usd.is_some()),
        input_chars: mean(usages.clone().map(|u| u.input_chars)).unwrap_or(0),
        output_chars: mean(usages.clone().map(|u| u.output_chars)).unwrap_or(0),
        reasoning_chars: mean(usages.map(|u| u.reasoning_chars)).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn attempt(repetition: u32, attempt: u32, passed: bool, ms: u64, tokens: u64) -> AttemptResult {
        AttemptResult {
            repetition,
            attempt,
            status: if passed {
                Status::Passed
            } else {
                Status::Failed
            },
            passed,
            failure: (!passed).then(|| {
                Failure::new(
                    FailureOrigin::Assertion,
                    format!("failed {repetition}.{attempt}"),
                )
            }),
            duration_ms: ms,
            usage: Usage {
                total_tokens: Some(TokenCount::provider(tokens)),
                input_chars: tokens / 10,
                ..Usage::default()
            },
            steps: 1,
            exit_code: Some(0),
            signal: None,
            artifact_dir: PathBuf::from(format!("/run/c/r/repeat-{repetition}/attempt-{attempt}")),
            grading: None,
            replayed_from: None,
            kept_workspace: None,
            sandbox: None,
            trigger: None,
        }
    }

    fn repetition(attempts: Vec<AttemptResult>) -> RepetitionResult {
        let last = attempts.last().unwrap();
        RepetitionResult {
            repetition: last.repetition,
            status: last.status,
            passed: last.passed,
            attempts,
        }
    }

    fn plan(repeat_target: u32, repeat_failure: u32) -> ExecutionPlan {
        ExecutionPlan {
            case_id: "c".into(),
            runner_id: "r".into(),
            variant: None,
            baseline: false,
            agent: AgentInfo::default(),
            expected_fail: false,
            repeat_target,
            repeat_failure,
            sampled: false,
            min_pass_rate: None,
            min_lift: None,
            stop_when_decided: false,
            artifact_dir: PathBuf::from("/run/c/r"),
            source: "tests/b.rs:1".into(),
            tags: Vec::new(),
            trigger: None,
        }
    }

    #[test]
    fn all_repetitions_pass_and_metrics_are_averaged() {
        let result = aggregate(
            plan(3, 0),
            vec![
                repetition(vec![attempt(1, 1, true, 10, 100)]),
                repetition(vec![attempt(2, 1, true, 20, 200)]),
                repetition(vec![attempt(3, 1, true, 30, 300)]),
            ],
        );
        assert!(result.passed && !result.flaky);
        assert_eq!(result.status, Status::Passed);
        assert_eq!(
            (
                result.completed_repetitions,
                result.successful_repetitions,
                result.failed_repetitions
            ),
            (3, 3, 0)
        );
        assert_eq!(result.stopped_at_repetition, None);
        assert_eq!(result.duration_ms, 20);
        assert_eq!(result.usage.total_tokens, Some(TokenCount::provider(200)));
        assert_eq!(result.usage.input_chars, 20);
        assert_eq!(result.failure, None);
        assert_eq!((result.attempts.total, result.attempts.passing), (3, 3));
    }

    #[test]
    fn discarded_attempts_are_left_out_of_the_averages() {
        let result = aggregate(
            plan(2, 1),
            vec![
                repetition(vec![attempt(1, 1, true, 10, 100)]),
                repetition(vec![
                    attempt(2, 1, false, 5_000, 90_000),
                    attempt(2, 2, true, 30, 300),
                ]),
            ],
        );
        assert!(result.passed && result.flaky);
        assert_eq!(result.duration_ms, 20);
        assert_eq!(result.usage.total_tokens.unwrap().value, 200);
        assert_eq!((result.attempts.total, result.attempts.passing), (3, 2));
        assert!((result.attempts.pass_rate - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_terminal_repetition_decides_a_failed_execution() {
        let result = aggregate(
            plan(4, 1),
            vec![
                repetition(vec![attempt(1, 1, true, 10, 100)]),
                repetition(vec![attempt(2, 1, true, 10, 100)]),
                repetition(vec![
                    attempt(3, 1, false, 70, 700),
                    attempt(3, 2, false, 90, 900),
                ]),
            ],
        );
        assert!(!result.passed && !result.flaky);
        assert_eq!(result.status, Status::Failed);
        assert_eq!(
            (
                result.completed_repetitions,
                result.successful_repetitions,
                result.failed_repetitions
            ),
            (3, 2, 1)
        );
        assert_eq!(result.stopped_at_repetition, Some(3));
        assert_eq!(result.failure.unwrap().message, "failed 3.2");
        assert_eq!(result.duration_ms, 90, "the terminal attempt's own figures");
        assert_eq!(result.usage.total_tokens.unwrap().value, 900);
    }

    #[test]
    fn expected_failures_pass_and_keep_their_failure() {
        let mut expected = attempt(1, 1, false, 10, 100);
        expected.status = Status::ExpectedFailed;
        expected.passed = true;
        let result = aggregate(
            ExecutionPlan {
                expected_fail: true,
                ..plan(1, 0)
            },
            vec![repetition(vec![expected])],
        );
        assert!(result.passed && result.expected_fail);
        assert_eq!(result.status, Status::ExpectedFailed);
        assert_eq!(result.failure.unwrap().message, "failed 1.1");
        assert_eq!(result.stopped_at_repetition, None);
    }

    #[test]
    fn nothing_ran_is_skipped_and_not_passing() {
        let result = aggregate(plan(2, 0), Vec::new());
        assert_eq!(result.status, Status::Skipped);
        assert!(!result.passed);
        assert_eq!(result.attempts.pass_rate, 0.0);
        assert_eq!(result.usage, Usage::default());
    }

    #[test]
    fn usage_figures_average_over_the_attempts_that_report_them() {
        let a = Usage {
            input_tokens: Some(TokenCount::derived(10)),
            cost_usd: Some(0.5),
            ..Usage::default()
        };
        let b = Usage {
            input_tokens: Some(TokenCount::provider(21)),
            output_tokens: Some(TokenCount::provider(4)),
            ..Usage::default()
        };
        let usage = mean_usage([&a, &b].into_iter());
        assert_eq!(usage.input_tokens, Some(TokenCount::derived(16)));
        assert_eq!(usage.output_tokens, Some(TokenCount::provider(4)));
        assert_eq!(usage.cost_usd, Some(0.5));
        assert_eq!(usage.total_tokens, None);
        assert!(!usage.cost_estimated);
        // A mean with an estimated cost in it is an estimate.
        let c = Usage {
            cost_usd: Some(1.5),
            cost_estimated: true,
            ..Usage::default()
        };
        let usage = mean_usage([&a, &c].into_iter());
        assert_eq!((usage.cost_usd, usage.cost_estimated), (Some(1.0), true));
    }

    #[test]
    fn wilson_interval_matches_known_values() {
        let close = |a: f64, b: f64| (a - b).abs() < 5e-4;
        let i = wilson_95(8, 10);
        assert!(close(i.low, 0.4902) && close(i.high, 0.9433), "{i:?}");
        let i = wilson_95(0, 10);
        assert!(close(i.low, 0.0) && close(i.high, 0.2775), "{i:?}");
        let i = wilson_95(10, 10);
        assert!(close(i.low, 0.7225) && close(i.high, 1.0), "{i:?}");
        let i = wilson_95(1, 1);
        assert!(close(i.low, 0.2065) && close(i.high, 1.0), "{i:?}");
        assert_eq!(
            wilson_95(0, 0),
            Interval {
                low: 0.0,
                high: 1.0
            }
        );
    }

    /// Token and duration figures at the edges of `u64`.
    fn figure() -> impl proptest::strategy::Strategy<Value = u64> {
        use proptest::prelude::*;
        prop_oneof![
            Just(0),
            Just(1),
            Just(u64::MAX - 1),
            Just(u64::MAX),
            any::<u64>(),
        ]
    }

    /// Costs as any agent (a custom one too) may report them.
    fn cost() -> impl proptest::strategy::Strategy<Value = f64> {
        use proptest::prelude::*;
        prop_oneof![
            Just(0.0),
            Just(-0.0),
            Just(0.5),
            Just(-1.0),
            Just(f64::MAX),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::NAN),
            0.0..1e6,
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]

        /// Whatever the attempts reported, the execution's means are exact (rounded), its
        /// cost a finite number in [0, $10^15] or absent, its rates in [0, 1].
        #[test]
        fn extreme_figures_average_exactly_and_costs_stay_finite(
            repetitions in proptest::collection::vec(
                proptest::collection::vec(
                    (proptest::bool::ANY, figure(), proptest::option::of(figure()),
                     proptest::option::of(cost())),
                    1..4,
                ),
                0..4,
            ),
        ) {
            let repetitions: Vec<RepetitionResult> = repetitions
                .iter()
                .enumerate()
                .map(|(r, attempts)| {
                    let r = r as u32 + 1;
                    repetition(
                        attempts
                            .iter()
                            .enumerate()
                            .map(|(a, &(passed, ms, tokens, cost))| {
                                let mut attempt = attempt(r, a as u32 + 1, passed, ms, 0);
                                attempt.usage.total_tokens = tokens.map(TokenCount::provider);
                                attempt.usage.cost_usd = cost;
                                attempt.usage.output_chars = ms;
                                attempt
                            })
                            .collect(),
                    )
                })
                .collect();
            let target = repetitions.len() as u32;
            let result = aggregate(plan(target, 3), repetitions.clone());
            let terminal = repetitions.iter().find(|r| !r.passed);
            let averaged: Vec<&AttemptResult> = match terminal {
                Some(repetition) => repetition.final_attempt().into_iter().collect(),
                None => repetitions.iter().filter_map(RepetitionResult::final_attempt).collect(),
            };
            let exact = |values: Vec<u64>| {
                let n = values.len() as u128;
                (n > 0).then(|| {
                    let sum: u128 = values.iter().map(|&v| u128::from(v)).sum();
                    u64::try_from((sum + n / 2) / n).unwrap()
                })
            };
            let durations = averaged.iter().map(|a| a.duration_ms).collect();
            proptest::prop_assert_eq!(Some(result.duration_ms), exact(durations).or(Some(0)));
            let tokens = averaged
                .iter()
                .filter_map(|a| a.usage.total_tokens.map(|t| t.value))
                .collect();
            proptest::prop_assert_eq!(result.usage.total_tokens.map(|t| t.value), exact(tokens));
            let chars = averaged.iter().map(|a| a.usage.output_chars).collect();
            proptest::prop_assert_eq!(Some(result.usage.output_chars), exact(chars).or(Some(0)));
            let any_cost = averaged
                .iter()
                .any(|a| a.usage.cost_usd.is_some_and(|c| c >= 0.0));
            match result.usage.cost_usd {
                Some(cost) => proptest::prop_assert!(
                    any_cost && (0.0..=figures::MAX_COST_USD).contains(&cost),
                    "{}", cost
                ),
                None => proptest::prop_assert!(!any_cost),
            }
            let stats = result.attempts;
            for rate in [stats.pass_rate, stats.pass_rate_95.low, stats.pass_rate_95.high] {
                proptest::prop_assert!((0.0..=1.0).contains(&rate), "{:?}", stats);
            }
        }
    }

    /// A sampled plan of `n` samples with `gate`, and its samples passing as `passes` says.
    fn sampled(passes: &[bool], gate: Option<f64>) -> ExecutionResult {
        let repetitions = passes
            .iter()
            .enumerate()
            .map(|(i, passed)| repetition(vec![attempt(i as u32 + 1, 1, *passed, 10, 100)]))
            .collect();
        aggregate(
            ExecutionPlan {
                sampled: true,
                min_pass_rate: gate,
                min_lift: None,
                ..plan(passes.len() as u32, 0)
            },
            repetitions,
        )
    }

    #[test]
    fn a_sampled_execution_passes_when_its_rate_meets_its_gate() {
        let three_of_five = [true, false, true, false, true];
        // No gate: every sample must pass; the first failed sample's failure stands.
        let strict = sampled(&three_of_five, None);
        assert!(!strict.passed);
        assert_eq!(strict.failure.unwrap().message, "failed 2.1");
        let met = sampled(&three_of_five, Some(0.6));
        assert!(met.passed, "{:?}", met.failure);
        assert_eq!((met.status, met.failure), (Status::Passed, None));
        assert_eq!(met.min_pass_rate, Some(0.6));
        let missed = sampled(&three_of_five, Some(0.8));
        assert!(!missed.passed);
        assert_eq!(missed.status, Status::Failed);
        let failure = missed.failure.unwrap();
        assert_eq!(failure.origin, FailureOrigin::PassRate);
        assert_eq!(
            failure.message,
            "pass rate 60% (3/5 samples, 95% CI 23.1%-88.2%) is below min_pass_rate 80%"
        );
        // Samples cut short (an interrupt) are not judged by the gate.
        let cut = aggregate(
            ExecutionPlan {
                sampled: true,
                min_pass_rate: Some(0.5),
                min_lift: None,
                ..plan(5, 0)
            },
            vec![repetition(vec![attempt(1, 1, true, 10, 100)])],
        );
        assert!(!cut.passed);
    }

    #[test]
    fn a_flaky_execution_below_its_gate_fails() {
        let flaky = || {
            vec![
                repetition(vec![attempt(1, 1, true, 10, 100)]),
                repetition(vec![
                    attempt(2, 1, false, 10, 100),
                    attempt(2, 2, true, 10, 100),
                ]),
                repetition(vec![attempt(3, 1, true, 10, 100)]),
            ]
        };
        let gated = |gate| {
            aggregate(
                ExecutionPlan {
                    min_pass_rate: Some(gate),
                    min_lift: None,
                    ..plan(3, 1)
                },
                flaky(),
            )
        };
        let below = gated(0.9);
        assert!(!below.passed && !below.flaky);
        let failure = below.failure.unwrap();
        assert_eq!(failure.origin, FailureOrigin::PassRate);
        assert!(
            failure
                .message
                .starts_with("pass rate 75% (3/4 attempts, 95% CI "),
            "{}",
            failure.message
        );
        let met = gated(0.75);
        assert!(met.passed && met.flaky);
        // A failed execution keeps its own failure.
        let failed = aggregate(
            ExecutionPlan {
                min_pass_rate: Some(0.9),
                min_lift: None,
                ..plan(2, 0)
            },
            vec![repetition(vec![attempt(1, 1, false, 10, 100)])],
        );
        assert_eq!(failed.failure.unwrap().origin, FailureOrigin::Assertion);
    }
}
