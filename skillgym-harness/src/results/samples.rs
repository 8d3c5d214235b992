//! [`SampleStats`]: what a sampled execution's independent sessions say together: the pass
//! rate with its interval and n, pass@k and pass^k, and the mean and spread of what each
//! session cost.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{AttemptResult, Interval};
use crate::stats::{Discordant, GateDecision, Proportion, RateSequence, Verdict};

/// The figures of a sampled execution (`samples = N`), over all its sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SampleStats {
    /// Sessions that ran to a verdict.
    pub sessions: u32,
    /// Sessions that passed.
    pub passed: u32,
    /// `passed / sessions` (0 when none ran).
    pub pass_rate: f64,
    /// The 95% Wilson interval of the pass rate.
    pub pass_rate_95: Interval,
    /// Unbiased pass@k (at least one of k sessions passes) for k = 1, 3, 5, 10 up to the
    /// sessions run, keyed by k.
    pub pass_at_k: BTreeMap<u32, f64>,
    /// Unbiased pass^k (all of k sessions pass), for the same k.
    pub pass_all_k: BTreeMap<u32, f64>,
    /// Total tokens per session, over the sessions that reported them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<Spread>,
    /// Cost per session in US dollars, over the sessions that reported one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<Spread>,
    /// Wall time per session in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<Spread>,
    /// Total cost over total passes: what one passing session costs, failures included;
    /// absent when no session passed or some session reported no cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_success_usd: Option<f64>,
    /// Whether some session's cost in [`cost_usd`](Self::cost_usd) and
    /// [`cost_per_success_usd`](Self::cost_per_success_usd) is estimated from its token counts
    /// ([`crate::pricing`]); serialized only when `true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cost_estimated: bool,
    /// With `stop_when_decided`: what the 95% confidence sequence said of the gate when
    /// sampling stopped (`undecided` when every sample ran without settling it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<GateDecision>,
}

/// The mean and sample standard deviation of a figure over `n` sessions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Spread {
    /// Sessions with the figure.
    pub n: u32,
    /// Their mean.
    pub mean: f64,
    /// Their sample standard deviation (0 for one session).
    pub sd: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        // Welford's update: one pass, no cancellation.
        let (mut n, mut mean, mut m2) = (0u32, 0.0f64, 0.0f64);
        for value in values {
            n += 1;
            let delta = value - mean;
            mean += delta / f64::from(n);
            m2 += delta * (value - mean);
        }
        (n > 0).then(|| Spread {
            n,
            mean,
            sd: if n > 1 {
                (m2 / f64::from(n - 1)).sqrt()
            } else {
                0.0
            },
        })
    }
}

/// What the 95% confidence sequence says of `gate` after `rate`'s samples: the one decision
/// `stop_when_decided` stops on (checked after every sample) and records.
pub(crate) fn gate_decision(rate: Proportion, gate: f64) -> GateDecision {
    RateSequence::new(0.95).gate(rate, gate)
}

/// What the 95% sequential sign test says of a lift after `pairs`: the decision
/// `stop_when_decided` stops variants on (checked after every round) and records.
pub(crate) fn lift_sign(pairs: Discordant) -> Verdict {
    RateSequence::new(0.95).lift_sign(pairs)
}

/// The k that pass@k and pass^k are given for.
const KS: [u32; 4] = [1, 3, 5, 10];

impl SampleStats {
    /// The figures of `sessions`, each a sample's one attempt.
    pub(crate) fn of<'a>(sessions: impl Iterator<Item = &'a AttemptResult> + Clone) -> SampleStats {
        let n = sessions.clone().count() as u32;
        let passed = sessions.clone().filter(|a| a.passed).count() as u32;
        let rate = Proportion {
            successes: passed,
            trials: n,
        };
        let by_k = |estimate: fn(&Proportion, u32) -> Option<f64>| {
            KS.iter()
                .filter_map(|&k| estimate(&rate, k).map(|value| (k, value)))
                .collect::<BTreeMap<u32, f64>>()
        };
        let costs: Vec<Option<f64>> = sessions.clone().map(|a| a.usage.cost_usd).collect();
        let sessions_estimated = sessions
            .clone()
            .any(|a| a.usage.cost_estimated && a.usage.cost_usd.is_some());
        let cost_per_success_usd = (passed > 0 && costs.iter().all(Option::is_some))
            .then(|| costs.iter().flatten().sum::<f64>() / f64::from(passed));
        SampleStats {
            sessions: n,
            passed,
            pass_rate: rate.rate().unwrap_or(0.0),
            pass_rate_95: rate.wilson(0.95),
            pass_at_k: by_k(Proportion::pass_at_k),
            pass_all_k: by_k(Proportion::pass_all_k),
            total_tokens: Spread::of(
                sessions
                    .clone()
                    .filter_map(|a| a.usage.total_tokens.map(|t| t.value as f64)),
            ),
            cost_usd: Spread::of(costs.iter().flatten().copied()),
            duration_ms: Spread::of(sessions.map(|a| a.duration_ms as f64)),
            cost_per_success_usd,
            cost_estimated: sessions_estimated,
            decision: None,
        }
    }

    /// The passes out of the sessions.
    pub fn proportion(&self) -> Proportion {
        Proportion {
            successes: self.passed,
            trials: self.sessions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_the_mean_and_sample_standard_deviation() {
        let spread = Spread::of([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(spread.n, 8);
        assert!((spread.mean - 5.0).abs() < 1e-12);
        assert!((spread.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(Spread::of([3.0]).unwrap().sd, 0.0);
        assert_eq!(Spread::of(std::iter::empty()), None);
    }

    #[test]
    fn costs_with_an_estimate_among_them_are_marked_estimated() {
        let session = |passed: bool, cost: f64, estimated: bool| {
            let mut attempt: AttemptResult = serde_json::from_value(serde_json::json!({
                "repetition": 1, "attempt": 1, "status": if passed { "passed" } else { "failed" },
                "passed": passed, "duration_ms": 10, "steps": 1, "artifact_dir": "/a", "usage": {},
            }))
            .unwrap();
            attempt.usage.cost_usd = Some(cost);
            attempt.usage.cost_estimated = estimated;
            attempt
        };
        let reported = [session(true, 0.2, false), session(false, 0.1, false)];
        let stats = SampleStats::of(reported.iter());
        assert!(!stats.cost_estimated);
        let mixed = [session(true, 0.2, false), session(false, 0.1, true)];
        let stats = SampleStats::of(mixed.iter());
        assert!(stats.cost_estimated);
        assert!((stats.cost_per_success_usd.unwrap() - 0.3).abs() < 1e-12);
        let json = serde_json::to_value(&stats).unwrap();
        assert_eq!(json["cost_estimated"], serde_json::json!(true));
    }
}
