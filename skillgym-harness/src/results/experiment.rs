//! [`Experiment`]: what a run's variants say against their baselines: each variant's pass rate
//! with its interval and n, each treatment's lift with its interval, exact test, verdict and
//! cost deltas, and the lifts pooled per runner.
//!
//! | figure | how |
//! |---|---|
//! | a variant's pass rate | its attempts that passed out of all (a sample is one attempt), with the 95% Wilson interval |
//! | lift | treatment rate minus baseline rate, Newcombe's 95% hybrid score interval, Fisher's exact two-sided p, normalized gain ([`crate::stats::Lift`]) |
//! | verdict | helps / hurts when the interval excludes 0, else no detectable effect, with the sessions per variant that would detect the observed difference (80% power) |
//! | token, cost, time deltas | treatment mean minus baseline mean per session (cost only when every session has one; estimated from tokens where the agent reports none) |
//! | per runner, and over every runner | the unweighted mean of the cases' lifts (each case × runner counts once, whatever its n), with a 95% interval from the strata adjusted as Agresti and Caffo do (one pass and one failure added to each arm), centred on the mean adjusted difference and widened where needed to hold the observed mean; one case keeps its own interval |

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{AttemptResult, ExecutionResult, Interval, Spread};
use crate::stats::{Lift, Proportion, Verdict, Z_95, samples_needed};

/// The `experiment` section of `results.json` and `summary.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Experiment {
    /// One row per case × runner × treatment variant, in plan order.
    pub lifts: Vec<LiftRow>,
    /// The lifts pooled per runner and treatment.
    pub runners: Vec<PooledLift>,
    /// The lifts pooled over every runner, per treatment.
    pub overall: Vec<PooledLift>,
}

/// One variant's sessions of one case × runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct VariantRate {
    /// The variant.
    pub variant: String,
    /// Sessions run.
    pub sessions: u32,
    /// Sessions that passed.
    pub passed: u32,
    /// `passed / sessions`.
    pub pass_rate: f64,
    /// Its 95% Wilson interval.
    pub pass_rate_95: Interval,
    /// Total tokens per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<Spread>,
    /// Cost per session, US dollars (when every session has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<Spread>,
    /// Whether some session's cost was estimated from its tokens ([`crate::pricing`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cost_estimated: bool,
    /// Wall time per session, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<Spread>,
}

/// A treatment against its baseline on one case × runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LiftRow {
    /// The case.
    pub case_id: String,
    /// The runner.
    pub runner_id: String,
    /// The baseline's sessions.
    pub baseline: VariantRate,
    /// The treatment's sessions.
    pub treatment: VariantRate,
    /// The lift, its interval, test and verdict.
    pub lift: Lift,
    /// Sessions per variant that would detect a difference this large (95%, 80% power);
    /// absent when there is no difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_needed: Option<u32>,
    /// Treatment minus baseline mean tokens per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_delta: Option<f64>,
    /// Treatment minus baseline mean cost per session, US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_delta_usd: Option<f64>,
    /// Treatment minus baseline mean time per session, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_delta_ms: Option<f64>,
}

/// A treatment's lifts pooled over cases: those of one runner, or of every runner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PooledLift {
    /// The runner; absent when pooled over every runner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_id: Option<String>,
    /// The baseline variant.
    pub baseline: String,
    /// The treatment variant.
    pub treatment: String,
    /// Case × runner pairs pooled (cases, for one runner).
    pub cases: u32,
    /// Sessions of the baseline, over the cases.
    pub baseline_sessions: u32,
    /// Sessions of the treatment, over the cases.
    pub treatment_sessions: u32,
    /// The mean of the cases' lifts.
    pub lift: f64,
    /// Its 95% interval (stratified, Agresti–Caffo variances).
    pub lift_95: Interval,
    /// What the interval says.
    pub verdict: Verdict,
}

impl Experiment {
    /// The experiment of `executions`; `None` when no case ran under a baseline and another
    /// variant.
    pub fn of<'a>(executions: impl IntoIterator<Item = &'a ExecutionResult>) -> Option<Experiment> {
        // Each case × runner's variants, in order of first appearance (found by key).
        let mut pairs: Vec<((&str, &str), Vec<&ExecutionResult>)> = Vec::new();
        let mut at: std::collections::HashMap<(&str, &str), usize> =
            std::collections::HashMap::new();
        for execution in executions {
            if execution.variant.is_none() {
                continue;
            }
            let key = (execution.case_id.as_str(), execution.runner_id.as_str());
            match at.get(&key) {
                Some(&index) => pairs[index].1.push(execution),
                None => {
                    at.insert(key, pairs.len());
                    pairs.push((key, vec![execution]));
                }
            }
        }
        let mut lifts = Vec::new();
        for (_, members) in &pairs {
            let Some(baseline) = members.iter().find(|e| e.baseline) else {
                continue;
            };
            for treatment in members.iter().filter(|e| !e.baseline) {
                if let Some(row) = LiftRow::of(baseline, treatment) {
                    lifts.push(row);
                }
            }
        }
        if lifts.is_empty() {
            return None;
        }
        let runners = pooled(&lifts, true);
        let overall = pooled(&lifts, false);
        Some(Experiment {
            lifts,
            runners,
            overall,
        })
    }
}

impl VariantRate {
    /// The sessions of `execution`: every attempt that ran.
    pub(crate) fn of(execution: &ExecutionResult) -> VariantRate {
        let attempts: Vec<&AttemptResult> = execution
            .repetitions
            .iter()
            .flat_map(|r| &r.attempts)
            .collect();
        let rate = Proportion {
            successes: attempts.iter().filter(|a| a.passed).count() as u32,
            trials: attempts.len() as u32,
        };
        let costs: Option<Vec<f64>> = attempts.iter().map(|a| a.usage.cost_usd).collect();
        VariantRate {
            variant: execution.variant.clone().unwrap_or_default(),
            sessions: rate.trials,
            passed: rate.successes,
            pass_rate: rate.rate().unwrap_or(0.0),
            pass_rate_95: rate.wilson(0.95),
            total_tokens: Spread::of(
                attempts
                    .iter()
                    .filter_map(|a| a.usage.total_tokens.map(|t| t.value as f64)),
            ),
            cost_usd: costs.and_then(Spread::of),
            cost_estimated: attempts.iter().any(|a| a.usage.cost_estimated),
            duration_ms: Spread::of(attempts.iter().map(|a| a.duration_ms as f64)),
        }
    }

    /// Its sessions as a proportion.
    pub fn proportion(&self) -> Proportion {
        Proportion {
            successes: self.passed,
            trials: self.sessions,
        }
    }
}

impl LiftRow {
    /// `treatment` against `baseline`; `None` when either ran no session.
    fn of(baseline: &ExecutionResult, treatment: &ExecutionResult) -> Option<LiftRow> {
        let (base, treat) = (VariantRate::of(baseline), VariantRate::of(treatment));
        let lift = Lift::of(base.proportion(), treat.proportion(), 0.95)?;
        let delta = |b: Option<Spread>, t: Option<Spread>| Some(t?.mean - b?.mean);
        Some(LiftRow {
            case_id: baseline.case_id.clone(),
            runner_id: baseline.runner_id.clone(),
            samples_needed: samples_needed(base.pass_rate, treat.pass_rate, 0.05, 0.8),
            tokens_delta: delta(base.total_tokens, treat.total_tokens),
            cost_delta_usd: delta(base.cost_usd, treat.cost_usd),
            duration_delta_ms: delta(base.duration_ms, treat.duration_ms),
            baseline: base,
            treatment: treat,
            lift,
        })
    }
}

/// The lifts pooled per baseline × treatment, and per runner when `per_runner`, in the order
/// first seen.
fn pooled(lifts: &[LiftRow], per_runner: bool) -> Vec<PooledLift> {
    let mut groups: BTreeMap<(usize, &str, &str, &str), Vec<&LiftRow>> = BTreeMap::new();
    let mut order: Vec<(&str, &str, &str)> = Vec::new();
    for row in lifts {
        let key = (
            if per_runner {
                row.runner_id.as_str()
            } else {
                ""
            },
            row.baseline.variant.as_str(),
            row.treatment.variant.as_str(),
        );
        let index = match order.iter().position(|k| *k == key) {
            Some(index) => index,
            None => {
                order.push(key);
                order.len() - 1
            }
        };
        groups
            .entry((index, key.0, key.1, key.2))
            .or_default()
            .push(row);
    }
    groups
        .into_iter()
        .map(|((_, runner, baseline, treatment), rows)| {
            let (lift, lift_95) = stratified(&rows);
            PooledLift {
                runner_id: per_runner.then(|| runner.to_owned()),
                baseline: baseline.to_owned(),
                treatment: treatment.to_owned(),
                cases: rows.len() as u32,
                baseline_sessions: rows.iter().map(|r| r.baseline.sessions).sum(),
                treatment_sessions: rows.iter().map(|r| r.treatment.sessions).sum(),
                lift,
                lift_95,
                verdict: if lift_95.low > 0.0 {
                    Verdict::Helps
                } else if lift_95.high < 0.0 {
                    Verdict::Hurts
                } else {
                    Verdict::NoDetectableEffect
                },
            }
        })
        .collect()
}

/// The unweighted mean of the rows' lifts and its 95% interval: each case an independent
/// stratum adjusted as Agresti and Caffo do (one pass and one failure added to each arm), the
/// interval centred on the mean adjusted difference, the strata's variances summed over the
/// number of cases squared (over 10,000 seeded simulated experiments of four cases with 15
/// sessions per variant, it covered the true mean lift in 95.45% of them; a test). The adjusted
/// centre is pulled toward 0, so at the extremes (every case from 0% to 100%) it can leave out
/// the observed mean: the interval is then widened to hold it, which only adds coverage. One
/// case keeps its own (Newcombe) interval, as in its row.
pub(crate) fn stratified(rows: &[&LiftRow]) -> (f64, Interval) {
    if let [row] = rows {
        return (row.lift.difference, row.lift.interval);
    }
    let k = rows.len() as f64;
    let mean = rows.iter().map(|r| r.lift.difference).sum::<f64>() / k;
    let adjusted = |rate: &VariantRate| {
        let n = f64::from(rate.sessions) + 2.0;
        let p = (f64::from(rate.passed) + 1.0) / n;
        (p, p * (1.0 - p) / n)
    };
    let (mut centre, mut variance) = (0.0, 0.0);
    for row in rows {
        let (base, base_variance) = adjusted(&row.baseline);
        let (treat, treat_variance) = adjusted(&row.treatment);
        centre += treat - base;
        variance += base_variance + treat_variance;
    }
    let (centre, variance) = (centre / k, variance / (k * k));
    let half = Z_95 * variance.sqrt();
    let low = (centre - half).max(-1.0).min(mean);
    let high = (centre + half).min(1.0).max(mean);
    (mean, Interval::new(low, high))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Seeded;

    /// The sessions of a stand-in agent that passes with probability `p`, each session's
    /// draw seeded by its experiment, case, variant and sample (reproducible run to run).
    fn stand_in(experiment: usize, case: usize, variant: &str, p: f64, n: u32) -> VariantRate {
        let passed = (1..=n)
            .filter(|sample| {
                let parts = [
                    experiment.to_string(),
                    case.to_string(),
                    variant.to_owned(),
                    sample.to_string(),
                ];
                let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
                Seeded::for_parts(&parts).bernoulli(p)
            })
            .count() as u32;
        let rate = Proportion {
            successes: passed,
            trials: n,
        };
        VariantRate {
            variant: variant.to_owned(),
            sessions: n,
            passed,
            pass_rate: rate.rate().unwrap_or(0.0),
            pass_rate_95: rate.wilson(0.95),
            total_tokens: None,
            cost_usd: None,
            cost_estimated: false,
            duration_ms: None,
        }
    }

    fn row(baseline: VariantRate, treatment: VariantRate) -> LiftRow {
        LiftRow {
            case_id: "c".into(),
            runner_id: "r".into(),
            lift: Lift::of(baseline.proportion(), treatment.proportion(), 0.95).unwrap(),
            baseline,
            treatment,
            samples_needed: None,
            tokens_delta: None,
            cost_delta_usd: None,
            duration_delta_ms: None,
        }
    }

    /// 1,000 simulated experiments of one case (200 per pair of true rates, 20 sessions per
    /// variant): the lift's interval covers the true difference at least 95% of the time.
    #[test]
    fn the_lift_interval_covers_the_true_difference_at_its_nominal_rate() {
        let pairs = [(0.2, 0.8), (0.5, 0.5), (0.6, 0.9), (0.1, 0.3), (0.9, 0.7)];
        let mut covered = 0;
        let mut total = 0;
        for (index, (base, treat)) in pairs.iter().enumerate() {
            for experiment in 0..200 {
                let id = index * 1000 + experiment;
                let lift = row(
                    stand_in(id, 0, "without", *base, 20),
                    stand_in(id, 0, "with", *treat, 20),
                )
                .lift;
                total += 1;
                covered += usize::from(lift.interval.contains(treat - base));
            }
        }
        let coverage = covered as f64 / total as f64;
        eprintln!("the lift interval covered the true difference in {covered} of {total}");
        assert_eq!(total, 1000);
        assert!(coverage >= 0.95, "covered {covered} of {total}");
    }

    /// 10,000 simulated experiments of four cases with different true rates: the pooled
    /// (stratified) interval covers the true mean lift at least 95% of the time.
    #[test]
    fn the_pooled_interval_covers_the_true_mean_lift() {
        let cases = [(0.2, 0.6), (0.5, 0.7), (0.8, 0.9), (0.4, 0.4)];
        let truth = cases.iter().map(|(b, t)| t - b).sum::<f64>() / cases.len() as f64;
        let mut covered = 0;
        for experiment in 0..10_000 {
            let rows: Vec<LiftRow> = cases
                .iter()
                .enumerate()
                .map(|(case, (base, treat))| {
                    row(
                        stand_in(experiment, case, "without", *base, 15),
                        stand_in(experiment, case, "with", *treat, 15),
                    )
                })
                .collect();
            let refs: Vec<&LiftRow> = rows.iter().collect();
            let (_, interval) = stratified(&refs);
            covered += usize::from(interval.contains(truth));
        }
        eprintln!("the pooled interval covered the true mean lift in {covered} of 10,000");
        assert!(covered >= 9_500, "covered {covered} of 10,000");
    }

    /// Six cases from 0 of 5 to 5 of 5: a lift of +100%, which the interval holds (the
    /// adjusted centre alone, about +71%, would leave it out).
    #[test]
    fn the_pooled_interval_holds_the_observed_mean_at_the_extremes() {
        let rate = |variant: &str, passed: u32| VariantRate {
            passed,
            pass_rate: f64::from(passed) / 5.0,
            ..stand_in(0, 0, variant, 0.0, 5)
        };
        let rows: Vec<LiftRow> = (0..6)
            .map(|_| row(rate("without", 0), rate("with", 5)))
            .collect();
        let refs: Vec<&LiftRow> = rows.iter().collect();
        let (mean, interval) = stratified(&refs);
        assert_eq!(mean, 1.0);
        assert!(interval.contains(mean), "{interval:?}");
        assert!(interval.low > 0.5 && interval.low < 0.9, "{interval:?}");
        let flipped: Vec<LiftRow> = (0..6)
            .map(|_| row(rate("without", 5), rate("with", 0)))
            .collect();
        let refs: Vec<&LiftRow> = flipped.iter().collect();
        let (mean, interval) = stratified(&refs);
        assert_eq!(mean, -1.0);
        assert!(interval.contains(mean), "{interval:?}");
    }

    #[test]
    fn one_case_keeps_its_own_interval_and_the_stand_in_is_reproducible() {
        let a = row(
            stand_in(1, 0, "without", 0.3, 10),
            stand_in(1, 0, "with", 0.8, 10),
        );
        let b = row(
            stand_in(1, 0, "without", 0.3, 10),
            stand_in(1, 0, "with", 0.8, 10),
        );
        assert_eq!(a, b, "the same seeds give the same sessions");
        assert_eq!(stratified(&[&a]), (a.lift.difference, a.lift.interval));
    }
}
