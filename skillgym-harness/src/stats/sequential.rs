//! Deciding while sampling: an always-valid confidence sequence for a pass rate, so that a
//! question (does this runner meet a gate? does the skill help or hurt?) may be checked after
//! every session and sampling stop as soon as it is settled, with the error rate still at most
//! the nominal level.
//!
//! Why this procedure: checking a fixed-sample interval after every session and stopping at
//! the first decisive one inflates its error rate far beyond its level (the more looks, the
//! more likely one of them errs). A confidence sequence covers the true rate at *all* sample
//! sizes at once with the nominal probability, so any stopping rule keeps it. For pass/fail
//! sessions the mixture martingale of Robbins (1970) gives one exactly, with no tuning: for a
//! candidate rate `p0`, after `n` sessions with `s` passes, the likelihood of the data under a
//! Beta(1/2, 1/2) mixture of rates over its likelihood under `p0`,
//!
//! `M(p0) = B(1/2 + s, 1/2 + n - s) / B(1/2, 1/2) / (p0^s (1 - p0)^(n - s))`,
//!
//! is a nonnegative martingale of mean 1 when the rate is `p0`; by Ville's inequality it ever
//! reaches `1/alpha` with probability at most `alpha`. The sequence is every `p0` with
//! `M(p0) < 1/alpha`: an interval around the observed rate, a little wider than a fixed-n
//! interval (by a `log n` term), the price of looking every time. A question whose answer is
//! clear (a rate far from its gate, a large lift) is settled after few sessions; one near the
//! line runs to its budget and says it is undecided. Betting confidence sequences
//! (Waudby-Smith and Ramdas 2023) are tighter for bounded means in general, but need a betting
//! strategy and a search per look; for Bernoulli outcomes the mixture is closed-form and
//! within a few sessions of them.
//!
//! A lift's sign is decided on paired sessions (one of each variant per round, as the
//! schedule interleaves them): among the pairs where exactly one variant passed, the share the
//! treatment won is above one half exactly when the treatment's rate is above the baseline's,
//! and those pairs are pass/fail trials of that share, so the same sequence applies
//! (a sequential sign test).

use serde::{Deserialize, Serialize};

use super::lift::Verdict;
use super::proportion::{Interval, Proportion};
use super::special::ln_beta;

/// The Beta prior of the mixture (Jeffreys).
const PRIOR: f64 = 0.5;

/// An always-valid confidence sequence for a pass rate at a confidence level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateSequence {
    /// `ln(1 / alpha)`.
    threshold: f64,
}

/// Whether a pass rate meets a gate, as far as the sessions so far can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GateDecision {
    /// The sequence lies at or above the gate.
    Meets,
    /// The sequence lies below the gate.
    Misses,
    /// The gate is inside the sequence: sample more.
    Undecided,
}

/// Paired sessions of two variants where exactly one passed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discordant {
    /// Pairs only the treatment passed.
    pub treatment_only: u32,
    /// Pairs only the baseline passed.
    pub baseline_only: u32,
}

impl RateSequence {
    /// A sequence covering the true rate at every sample size at once with probability at
    /// least `confidence` (e.g. `0.95`).
    pub fn new(confidence: f64) -> RateSequence {
        RateSequence {
            threshold: (1.0 / (1.0 - confidence)).ln(),
        }
    }

    /// `ln M(p0)` for `rate`'s sessions.
    fn ln_mixture(&self, rate: Proportion, p0: f64) -> f64 {
        let s = f64::from(rate.successes);
        let f = f64::from(rate.trials - rate.successes);
        let data = |count: f64, p: f64| if count == 0.0 { 0.0 } else { count * p.ln() };
        ln_beta(PRIOR + s, PRIOR + f) - ln_beta(PRIOR, PRIOR) - data(s, p0) - data(f, 1.0 - p0)
    }

    /// Whether `p0` is outside the sequence after `rate`'s sessions.
    pub fn excludes(&self, rate: Proportion, p0: f64) -> bool {
        self.ln_mixture(rate, p0) >= self.threshold
    }

    /// The sequence's interval after `rate`'s sessions (`[0, 1]` before any).
    pub fn interval(&self, rate: Proportion) -> Interval {
        let Some(observed) = rate.rate() else {
            return Interval::new(0.0, 1.0);
        };
        // `ln M` is convex in p0 with its minimum (below 0) at the observed rate: one
        // crossing on each side, found by bisection.
        let crossing = |mut inside: f64, mut outside: f64| {
            if !self.excludes(rate, outside) {
                return outside;
            }
            for _ in 0..60 {
                let middle = (inside + outside) / 2.0;
                if self.excludes(rate, middle) {
                    outside = middle;
                } else {
                    inside = middle;
                }
            }
            inside
        };
        Interval::new(crossing(observed, 0.0), crossing(observed, 1.0))
    }

    /// Whether `rate` meets `gate`, decided only once the sequence leaves it on one side.
    pub fn gate(&self, rate: Proportion, gate: f64) -> GateDecision {
        match rate.rate() {
            Some(observed) if self.excludes(rate, gate) => {
                if observed > gate {
                    GateDecision::Meets
                } else {
                    GateDecision::Misses
                }
            }
            _ => GateDecision::Undecided,
        }
    }

    /// The sign of a lift from paired sessions: helps or hurts once the share of discordant
    /// pairs the treatment won leaves one half, else no detectable effect yet.
    pub fn lift_sign(&self, pairs: Discordant) -> Verdict {
        let won = Proportion {
            successes: pairs.treatment_only,
            trials: pairs.treatment_only + pairs.baseline_only,
        };
        match self.gate(won, 0.5) {
            GateDecision::Meets => Verdict::Helps,
            GateDecision::Misses => Verdict::Hurts,
            GateDecision::Undecided => Verdict::NoDetectableEffect,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Seeded;
    use crate::stats::tests::p;

    #[test]
    fn the_sequence_holds_the_observed_rate_and_narrows_with_sessions() {
        let cs = RateSequence::new(0.95);
        assert_eq!(cs.interval(p(0, 0)), Interval::new(0.0, 1.0));
        let few = cs.interval(p(7, 10));
        let many = cs.interval(p(700, 1000));
        assert!(few.contains(0.7) && many.contains(0.7));
        assert!(many.high - many.low < few.high - few.low);
        // Wider than the fixed-n Wilson interval: the price of looking every time.
        let wilson = p(700, 1000).wilson(0.95);
        assert!(
            many.low < wilson.low && many.high > wilson.high,
            "{many:?} {wilson:?}"
        );
        assert_eq!(cs.interval(p(0, 10)).low, 0.0);
        assert_eq!(cs.interval(p(10, 10)).high, 1.0);
    }

    #[test]
    fn gates_and_signs_are_decided_only_when_clear() {
        let cs = RateSequence::new(0.95);
        assert_eq!(cs.gate(p(3, 3), 0.5), GateDecision::Undecided);
        assert_eq!(cs.gate(p(30, 30), 0.5), GateDecision::Meets);
        assert_eq!(cs.gate(p(2, 30), 0.5), GateDecision::Misses);
        assert_eq!(cs.gate(p(16, 30), 0.5), GateDecision::Undecided);
        let pairs = |treatment_only, baseline_only| Discordant {
            treatment_only,
            baseline_only,
        };
        assert_eq!(cs.lift_sign(pairs(15, 0)), Verdict::Helps);
        assert_eq!(cs.lift_sign(pairs(0, 15)), Verdict::Hurts);
        assert_eq!(cs.lift_sign(pairs(6, 5)), Verdict::NoDetectableEffect);
    }

    #[test]
    fn looking_after_every_session_keeps_the_error_rate_below_alpha() {
        // 1,000 runs of up to 300 sessions at the gate's own rate: any decision is an error,
        // and the sequence may be checked after every session.
        let cs = RateSequence::new(0.95);
        let mut rng = Seeded::new(7);
        let mut decided = 0;
        for _ in 0..1000 {
            let mut passes = 0;
            for n in 1..=300 {
                passes += u32::from(rng.bernoulli(0.6));
                if cs.gate(p(passes, n), 0.6) != GateDecision::Undecided {
                    decided += 1;
                    break;
                }
            }
        }
        assert!(
            decided <= 50,
            "decided {decided} of 1000 at the gate's own rate"
        );
        // A naive fixed-n interval checked after every session errs far more often.
        let mut rng = Seeded::new(7);
        let mut naive = 0;
        for _ in 0..1000 {
            let mut passes = 0;
            for n in 1..=300 {
                passes += u32::from(rng.bernoulli(0.6));
                if !p(passes, n).wilson(0.95).contains(0.6) {
                    naive += 1;
                    break;
                }
            }
        }
        assert!(
            naive > 2 * decided.max(25),
            "naive {naive}, sequence {decided}"
        );
    }
}
