//! Does a treatment (a variant with the skill) pass more often than the baseline (without)?
//! The difference of two pass rates with Newcombe's interval, Fisher's exact test, the
//! normalized gain, a verdict, and the samples a given effect needs.

use serde::{Deserialize, Serialize};

use super::proportion::{Interval, Proportion, two_sided_z};
use super::special::{ln_choose, normal_quantile};

/// The treatment's pass rate against the baseline's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Lift {
    /// The baseline's sessions.
    pub baseline: Proportion,
    /// The treatment's sessions.
    pub treatment: Proportion,
    /// Treatment rate minus baseline rate.
    pub difference: f64,
    /// Newcombe's hybrid score interval of the difference (his method 10: from the two
    /// Wilson intervals), at the confidence asked for.
    pub interval: Interval,
    /// Fisher's exact test, two-sided: how likely a table at least this far from equal rates
    /// is when the rates are equal.
    pub p_value: f64,
    /// `(treatment - baseline) / (1 - baseline)`: the share of the baseline's failures the
    /// treatment turns into passes; `None` when the baseline always passes.
    pub normalized_gain: Option<f64>,
    /// What the interval says.
    pub verdict: Verdict,
}

/// What a lift's interval says at its confidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The whole interval is above 0.
    Helps,
    /// The whole interval is below 0.
    Hurts,
    /// The interval holds 0: no effect this sample can detect.
    NoDetectableEffect,
}

impl Lift {
    /// The lift of `treatment` over `baseline` at `confidence` (e.g. `0.95`); `None` when
    /// either ran no session.
    pub fn of(baseline: Proportion, treatment: Proportion, confidence: f64) -> Option<Lift> {
        let (base, treat) = (baseline.rate()?, treatment.rate()?);
        let difference = treat - base;
        let interval = newcombe(baseline, treatment, confidence)?;
        let verdict = if interval.low > 0.0 {
            Verdict::Helps
        } else if interval.high < 0.0 {
            Verdict::Hurts
        } else {
            Verdict::NoDetectableEffect
        };
        Some(Lift {
            baseline,
            treatment,
            difference,
            interval,
            p_value: fisher_two_sided(baseline, treatment),
            normalized_gain: (base < 1.0).then(|| difference / (1.0 - base)),
            verdict,
        })
    }
}

/// Newcombe's hybrid score interval (his method 10) of `treatment`'s rate minus
/// `baseline`'s at `confidence`, from the two Wilson intervals; `None` when either ran no
/// session. Its coverage stays near the nominal level with few sessions and rates near 0 or 1,
/// where the normal approximation's does not.
pub fn newcombe(baseline: Proportion, treatment: Proportion, confidence: f64) -> Option<Interval> {
    let (base, treat) = (baseline.rate()?, treatment.rate()?);
    let z = two_sided_z(confidence);
    let (b, t) = (baseline.wilson_z(z), treatment.wilson_z(z));
    let difference = treat - base;
    let below = ((treat - t.low).powi(2) + (b.high - base).powi(2)).sqrt();
    let above = ((t.high - treat).powi(2) + (base - b.low).powi(2)).sqrt();
    Some(Interval::new(
        (difference - below).max(-1.0),
        (difference + above).min(1.0),
    ))
}

/// Fisher's exact test of equal rates, two-sided: the probability, given both margins, of
/// every table no more likely than the one observed.
pub fn fisher_two_sided(a: Proportion, b: Proportion) -> f64 {
    let (rows_a, rows_b) = (a.trials, b.trials);
    let passes = a.successes + b.successes;
    let total = rows_a + rows_b;
    let ln_table =
        |x: u32| ln_choose(rows_a, x) + ln_choose(rows_b, passes - x) - ln_choose(total, passes);
    let observed = ln_table(a.successes);
    let low = passes.saturating_sub(rows_b);
    let high = passes.min(rows_a);
    // Tables as likely as the observed one up to rounding count as "no more likely".
    let p: f64 = (low..=high)
        .map(ln_table)
        .filter(|ln| *ln <= observed + 1e-7)
        .map(f64::exp)
        .sum();
    p.min(1.0)
}

/// Sessions per variant that detect a change of the pass rate from `baseline` to
/// `treatment` with a two-sided test at level `alpha` and the given `power`
/// (normal approximation without continuity correction); `None` when the rates are equal or
/// outside `[0, 1]`.
pub fn samples_needed(baseline: f64, treatment: f64, alpha: f64, power: f64) -> Option<u32> {
    let in_range = |p: f64| (0.0..=1.0).contains(&p);
    if !in_range(baseline) || !in_range(treatment) || baseline == treatment {
        return None;
    }
    let z_alpha = normal_quantile(1.0 - alpha / 2.0);
    let z_beta = normal_quantile(power);
    let mean = (baseline + treatment) / 2.0;
    let pooled = (2.0 * mean * (1.0 - mean)).sqrt();
    let apart = (baseline * (1.0 - baseline) + treatment * (1.0 - treatment)).sqrt();
    let n = ((z_alpha * pooled + z_beta * apart) / (treatment - baseline)).powi(2);
    Some(n.ceil().max(1.0) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Seeded;
    use crate::stats::tests::p;

    #[test]
    fn newcombe_matches_his_published_examples() {
        // Newcombe (1998), table II, method 10: 56/70 - 48/80 -> 0.0524 to 0.3339;
        // 9/10 - 3/10 -> 0.1705 to 0.8090; 6/7 - 2/7 -> 0.0582 to 0.8062.
        for ((t, tn), (b, bn), low, high) in [
            ((56, 70), (48, 80), 0.0524, 0.3339),
            ((9, 10), (3, 10), 0.1705, 0.8090),
            ((6, 7), (2, 7), 0.0582, 0.8062),
        ] {
            let lift = Lift::of(p(b, bn), p(t, tn), 0.95).unwrap();
            assert!(
                (lift.interval.low - low).abs() < 1e-4 && (lift.interval.high - high).abs() < 1e-4,
                "{t}/{tn} - {b}/{bn}: {:?}",
                lift.interval
            );
            assert_eq!(lift.verdict, Verdict::Helps);
        }
        let none = Lift::of(p(5, 10), p(6, 10), 0.95).unwrap();
        assert_eq!(none.verdict, Verdict::NoDetectableEffect);
        let hurts = Lift::of(p(9, 10), p(1, 10), 0.95).unwrap();
        assert_eq!(hurts.verdict, Verdict::Hurts);
        assert!(Lift::of(p(0, 0), p(1, 1), 0.95).is_none());
    }

    #[test]
    fn normalized_gain_is_the_share_of_failures_turned_into_passes() {
        let lift = Lift::of(p(6, 10), p(8, 10), 0.95).unwrap();
        assert!((lift.normalized_gain.unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(
            Lift::of(p(10, 10), p(8, 10), 0.95).unwrap().normalized_gain,
            None
        );
    }

    #[test]
    fn fisher_matches_known_tables() {
        // The tea-tasting table 3/4 against 1/4: p = 0.4857 (two-sided).
        assert!((fisher_two_sided(p(3, 4), p(1, 4)) - 0.485_714_285_714).abs() < 1e-9);
        // 9/10 against 3/10: p = 0.019767 (the hypergeometric sum, as R's fisher.test).
        assert!((fisher_two_sided(p(9, 10), p(3, 10)) - 0.019_766_611_097_880).abs() < 1e-9);
        assert!((fisher_two_sided(p(5, 10), p(5, 10)) - 1.0).abs() < 1e-12);
        assert!(fisher_two_sided(p(0, 20), p(20, 20)) < 1e-10);
    }

    #[test]
    fn samples_needed_follows_the_textbook_formula() {
        // 0.5 -> 0.7 at alpha 0.05, power 0.8: 93 per group (Fleiss, no continuity correction).
        assert_eq!(samples_needed(0.5, 0.7, 0.05, 0.8), Some(93));
        assert!(samples_needed(0.5, 0.6, 0.05, 0.8).unwrap() > 300);
        assert_eq!(samples_needed(0.5, 0.5, 0.05, 0.8), None);
    }

    #[test]
    fn the_lift_interval_covers_the_true_difference_at_its_nominal_rate() {
        // 1,000 simulated experiments per pair of true rates, 30 sessions per variant.
        let mut rng = Seeded::new(31);
        let pairs = [(0.5, 0.7), (0.2, 0.4), (0.8, 0.9), (0.3, 0.3), (0.6, 0.95)];
        let mut total_covered = 0;
        for (base, treat) in pairs {
            let mut covered = 0;
            for _ in 0..1000 {
                let b = rng.binomial(30, base);
                let t = rng.binomial(30, treat);
                let lift = Lift::of(p(b, 30), p(t, 30), 0.95).unwrap();
                covered += u32::from(lift.interval.contains(treat - base));
            }
            // Each pair's own rate is allowed three binomial standard errors below nominal.
            assert!(
                covered >= 929,
                "{base} -> {treat}: covered {covered} of 1000"
            );
            total_covered += covered;
        }
        assert!(total_covered >= 4750, "covered {total_covered} of 5000");
    }
}
