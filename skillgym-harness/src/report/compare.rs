//! [`Comparison`]: what changed between two runs (`cargo skillgym compare RUN_A RUN_B`), run A
//! taken as the baseline and run B as the treatment.
//!
//! | figure | for | how |
//! |---|---|---|
//! | pass rate in A and in B | each case × runner × variant in both runs | every attempt that ran is a session (as the experiment counts them): passes out of sessions, with the 95% Wilson interval and n |
//! | change of the pass rate | the same | B's rate minus A's, Newcombe's 95% hybrid score interval, Fisher's exact two-sided p ([`crate::stats::Lift`]); `worse` when the whole interval is below 0, `better` when above, else `no-detectable-change` |
//! | token, cost, time change | the same | B's mean per session minus A's (cost only when every session of both has one) |
//! | lift in A and in B | each case × runner × treatment in both runs' experiments, and each runner's pooled lift | each run's lift with its interval and verdict ([`Experiment`](crate::results::Experiment)); their change B − A with a MOVER interval (Zou and Donner: the two intervals' distances from their estimates combined in squares, as Newcombe's method combines two Wilson intervals) |
//! | only in A, only in B | executions (case × runner × variant) in one run alone | listed |
//! | warnings | a runner whose agent type, version or model differs between the runs | one line each: their figures may not be comparable |

use serde::Serialize;

use super::RunReport;
pub use crate::results::ExecutionKey;
use crate::results::{ExecutionResult, Interval, Spread, VariantRate};
use crate::stats::{Lift, Proportion, Verdict};

/// Two runs compared, A as the baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Comparison {
    /// The run ids of A (one per directory).
    pub run_a: Vec<String>,
    /// The run ids of B.
    pub run_b: Vec<String>,
    /// Each execution in both runs, in report order (case, runner, variant).
    pub executions: Vec<ExecutionChange>,
    /// Each experiment lift in both runs: per case × runner × treatment, then pooled per
    /// runner (`case_id` absent).
    pub lifts: Vec<LiftChange>,
    /// Executions in A only.
    pub only_in_a: Vec<ExecutionKey>,
    /// Executions in B only.
    pub only_in_b: Vec<ExecutionKey>,
    /// Runners whose agent differs between the runs.
    pub warnings: Vec<String>,
}

/// One execution's sessions in one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Sessions {
    /// Sessions (attempts) run.
    pub sessions: u32,
    /// Sessions that passed.
    pub passed: u32,
    /// `passed / sessions`; absent when none ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
    /// The 95% Wilson interval of the pass rate (`[0, 1]` when none ran).
    pub pass_rate_95: Interval,
    /// Total tokens per session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<Spread>,
    /// Cost per session in US dollars, when every session has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<Spread>,
    /// Wall time per session in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<Spread>,
}

/// How an execution's pass rate moved from A to B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// The whole interval of the change is above 0.
    Better,
    /// The whole interval of the change is below 0.
    Worse,
    /// The interval holds 0.
    NoDetectableChange,
}

/// One execution in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ExecutionChange {
    /// Which execution.
    #[serde(flatten)]
    pub key: ExecutionKey,
    /// Its sessions in A.
    pub a: Sessions,
    /// Its sessions in B.
    pub b: Sessions,
    /// B's pass rate against A's; absent when either ran no session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<RateChange>,
    /// B's mean tokens per session minus A's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_delta: Option<f64>,
    /// B's mean cost per session minus A's, US dollars.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_delta_usd: Option<f64>,
    /// B's mean time per session minus A's, milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_delta_ms: Option<f64>,
}

/// B's pass rate minus A's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RateChange {
    /// The difference.
    pub difference: f64,
    /// Newcombe's 95% interval of it.
    pub interval: Interval,
    /// Fisher's exact two-sided p.
    pub p_value: f64,
    /// What the interval says.
    pub direction: Direction,
}

/// One run's lift of a treatment over its baseline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[non_exhaustive]
pub struct LiftFigure {
    /// Treatment's pass rate minus the baseline's.
    pub lift: f64,
    /// Its 95% interval.
    pub interval: Interval,
    /// What the interval says.
    pub verdict: Verdict,
}

/// A lift in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct LiftChange {
    /// The case; absent for a runner's lift pooled over its cases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_id: Option<String>,
    /// The runner.
    pub runner_id: String,
    /// The baseline variant.
    pub baseline: String,
    /// The treatment variant.
    pub treatment: String,
    /// The lift in A.
    pub a: LiftFigure,
    /// The lift in B.
    pub b: LiftFigure,
    /// B's lift minus A's.
    pub change: f64,
    /// Its 95% MOVER interval.
    pub change_95: Interval,
}

impl Comparison {
    /// Compares run `b` with run `a`.
    pub fn of(a: &RunReport, b: &RunReport) -> Comparison {
        let mut executions = Vec::new();
        let mut only_in_a = Vec::new();
        for ea in &a.executions {
            match b.executions.iter().find(|eb| same(ea, eb)) {
                Some(eb) => executions.push(ExecutionChange::of(ea, eb)),
                None => only_in_a.push(ea.key()),
            }
        }
        let only_in_b = b
            .executions
            .iter()
            .filter(|eb| !a.executions.iter().any(|ea| same(ea, eb)))
            .map(ExecutionResult::key)
            .collect();
        Comparison {
            run_a: a.run_ids.clone(),
            run_b: b.run_ids.clone(),
            executions,
            lifts: lift_changes(a, b),
            only_in_a,
            only_in_b,
            warnings: agent_warnings(a, b),
        }
    }

    /// The executions whose pass rate surely got worse (the whole interval below 0).
    pub fn regressions(&self) -> impl Iterator<Item = &ExecutionChange> {
        self.executions.iter().filter(|e| {
            e.change
                .is_some_and(|change| change.direction == Direction::Worse)
        })
    }

    /// The comparison as a JSON document (`--json`).
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a comparison serializes")
    }
}

fn same(a: &ExecutionResult, b: &ExecutionResult) -> bool {
    a.case_id == b.case_id && a.runner_id == b.runner_id && a.variant == b.variant
}

impl Sessions {
    /// Every attempt of `execution` that ran, as the experiment counts sessions
    /// ([`VariantRate`]).
    pub fn of(execution: &ExecutionResult) -> Sessions {
        let rate = VariantRate::of(execution);
        Sessions {
            sessions: rate.sessions,
            passed: rate.passed,
            pass_rate: rate.proportion().rate(),
            pass_rate_95: rate.pass_rate_95,
            total_tokens: rate.total_tokens,
            cost_usd: rate.cost_usd,
            duration_ms: rate.duration_ms,
        }
    }

    fn proportion(&self) -> Proportion {
        Proportion {
            successes: self.passed,
            trials: self.sessions,
        }
    }
}

impl ExecutionChange {
    fn of(a: &ExecutionResult, b: &ExecutionResult) -> ExecutionChange {
        let (a_sessions, b_sessions) = (Sessions::of(a), Sessions::of(b));
        let change = Lift::of(a_sessions.proportion(), b_sessions.proportion(), 0.95).map(|lift| {
            RateChange {
                difference: lift.difference,
                interval: lift.interval,
                p_value: lift.p_value,
                direction: match lift.verdict {
                    Verdict::Helps => Direction::Better,
                    Verdict::Hurts => Direction::Worse,
                    Verdict::NoDetectableEffect => Direction::NoDetectableChange,
                },
            }
        });
        let delta = |a: Option<Spread>, b: Option<Spread>| Some(b?.mean - a?.mean);
        ExecutionChange {
            key: a.key(),
            change,
            tokens_delta: delta(a_sessions.total_tokens, b_sessions.total_tokens),
            cost_delta_usd: delta(a_sessions.cost_usd, b_sessions.cost_usd),
            duration_delta_ms: delta(a_sessions.duration_ms, b_sessions.duration_ms),
            a: a_sessions,
            b: b_sessions,
        }
    }
}

/// The lifts of both runs' experiments that both have: per case, then pooled per runner.
fn lift_changes(a: &RunReport, b: &RunReport) -> Vec<LiftChange> {
    let (Some(ea), Some(eb)) = (&a.experiment, &b.experiment) else {
        return Vec::new();
    };
    let mut changes = Vec::new();
    for ra in &ea.lifts {
        let found = eb.lifts.iter().find(|rb| {
            rb.case_id == ra.case_id
                && rb.runner_id == ra.runner_id
                && rb.baseline.variant == ra.baseline.variant
                && rb.treatment.variant == ra.treatment.variant
        });
        if let Some(rb) = found {
            let figure = |row: &crate::results::LiftRow| LiftFigure {
                lift: row.lift.difference,
                interval: row.lift.interval,
                verdict: row.lift.verdict,
            };
            changes.push(LiftChange::of(
                Some(&ra.case_id),
                (&ra.runner_id, &ra.baseline.variant, &ra.treatment.variant),
                figure(ra),
                figure(rb),
            ));
        }
    }
    for ra in &ea.runners {
        let found = eb.runners.iter().find(|rb| {
            rb.runner_id == ra.runner_id
                && rb.baseline == ra.baseline
                && rb.treatment == ra.treatment
        });
        if let Some(rb) = found {
            let figure = |pooled: &crate::results::PooledLift| LiftFigure {
                lift: pooled.lift,
                interval: pooled.lift_95,
                verdict: pooled.verdict,
            };
            changes.push(LiftChange::of(
                None,
                (
                    ra.runner_id.as_deref().unwrap_or("every runner"),
                    &ra.baseline,
                    &ra.treatment,
                ),
                figure(ra),
                figure(rb),
            ));
        }
    }
    changes
}

impl LiftChange {
    fn of(
        case_id: Option<&str>,
        (runner, baseline, treatment): (&str, &str, &str),
        a: LiftFigure,
        b: LiftFigure,
    ) -> LiftChange {
        let change = b.lift - a.lift;
        LiftChange {
            case_id: case_id.map(str::to_owned),
            runner_id: runner.to_owned(),
            baseline: baseline.to_owned(),
            treatment: treatment.to_owned(),
            a,
            b,
            change,
            change_95: mover(a, b),
        }
    }
}

/// The MOVER interval of `b.lift - a.lift` from the two intervals (Zou and Donner 2008).
fn mover(a: LiftFigure, b: LiftFigure) -> Interval {
    let change = b.lift - a.lift;
    let below = ((b.lift - b.interval.low).powi(2) + (a.interval.high - a.lift).powi(2)).sqrt();
    let above = ((b.interval.high - b.lift).powi(2) + (a.lift - a.interval.low).powi(2)).sqrt();
    Interval::new((change - below).max(-2.0), (change + above).min(2.0))
}

/// One line per runner in both runs whose agent type, version or model differs between them
/// (what a run does not know is no difference).
fn agent_warnings(a: &RunReport, b: &RunReport) -> Vec<String> {
    let rows_b = b.runner_rows();
    let mut warnings = Vec::new();
    for row_a in a.runner_rows() {
        let Some(row_b) = rows_b.iter().find(|r| r.runner == row_a.runner) else {
            continue;
        };
        let mut differences = Vec::new();
        if !row_a.agent.is_empty() && !row_b.agent.is_empty() && row_a.agent != row_b.agent {
            differences.push(format!("agent {} in A, {} in B", row_a.agent, row_b.agent));
        }
        if !row_a.versions.is_empty()
            && !row_b.versions.is_empty()
            && row_a.versions != row_b.versions
        {
            differences.push(format!(
                "version {} in A, {} in B",
                row_a.versions.join(", "),
                row_b.versions.join(", ")
            ));
        }
        if let (Some(model_a), Some(model_b)) = (&row_a.model, &row_b.model)
            && model_a != model_b
        {
            differences.push(format!("model {model_a} in A, {model_b} in B"));
        }
        if !differences.is_empty() {
            warnings.push(format!(
                "runner `{}` ran a different agent in the two runs ({}): its figures may not be comparable",
                row_a.runner,
                differences.join("; ")
            ));
        }
    }
    warnings
}
