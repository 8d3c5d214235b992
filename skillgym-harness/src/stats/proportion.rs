//! A pass rate: successes out of trials, its Wilson interval, and the unbiased pass@k and
//! pass^k estimates.

use serde::{Deserialize, Serialize};

use super::special::normal_quantile;

/// A closed interval `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// `[low, high]`.
    pub fn new(low: f64, high: f64) -> Interval {
        Interval { low, high }
    }

    /// Whether `value` lies in the interval.
    pub fn contains(&self, value: f64) -> bool {
        self.low <= value && value <= self.high
    }
}

/// `successes` out of `trials` independent sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proportion {
    /// Sessions that passed.
    pub successes: u32,
    /// Sessions that ran.
    pub trials: u32,
}

impl Proportion {
    /// `successes` out of `trials`; `None` when `successes > trials`.
    pub fn new(successes: u32, trials: u32) -> Option<Proportion> {
        (successes <= trials).then_some(Proportion { successes, trials })
    }

    /// The observed rate, `None` when nothing ran.
    pub fn rate(&self) -> Option<f64> {
        (self.trials > 0).then(|| f64::from(self.successes) / f64::from(self.trials))
    }

    /// The Wilson score interval at `confidence` (e.g. `0.95`); `[0, 1]` when nothing ran.
    /// Unlike the normal approximation it stays inside `[0, 1]` and keeps close to its nominal
    /// coverage with few trials and rates near 0 or 1.
    pub fn wilson(&self, confidence: f64) -> Interval {
        self.wilson_z(two_sided_z(confidence))
    }

    /// [`Proportion::wilson`] with the normal quantile given.
    pub(crate) fn wilson_z(&self, z: f64) -> Interval {
        if self.trials == 0 {
            return Interval::new(0.0, 1.0);
        }
        let n = f64::from(self.trials);
        let p = f64::from(self.successes) / n;
        let z2 = z * z;
        let denominator = 1.0 + z2 / n;
        let center = (p + z2 / (2.0 * n)) / denominator;
        let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        Interval::new((center - half).max(0.0), (center + half).min(1.0))
    }

    /// The unbiased estimate of pass@k, the chance that at least one of `k` sessions passes:
    /// `1 - C(n - c, k) / C(n, k)`. `None` when `k` is 0 or more than the trials.
    pub fn pass_at_k(&self, k: u32) -> Option<f64> {
        let (n, c) = (self.trials, self.successes);
        if k == 0 || k > n {
            return None;
        }
        if n - c < k {
            return Some(1.0);
        }
        // C(n-c, k) / C(n, k) = prod over i in (n-c, n] of (1 - k / i), exact in order.
        let none = ((n - c + 1)..=n)
            .map(|i| 1.0 - f64::from(k) / f64::from(i))
            .product::<f64>();
        Some(1.0 - none)
    }

    /// The unbiased estimate of pass^k, the chance that all of `k` sessions pass:
    /// `C(c, k) / C(n, k)`. `None` when `k` is 0 or more than the trials.
    pub fn pass_all_k(&self, k: u32) -> Option<f64> {
        let (n, c) = (self.trials, self.successes);
        if k == 0 || k > n {
            return None;
        }
        if c < k {
            return Some(0.0);
        }
        Some(
            (0..k)
                .map(|i| f64::from(c - i) / f64::from(n - i))
                .product::<f64>(),
        )
    }
}

/// The normal quantile of a two-sided interval at `confidence`; exact for 95%.
pub(crate) fn two_sided_z(confidence: f64) -> f64 {
    if confidence == 0.95 {
        return Z_95;
    }
    normal_quantile(0.5 + confidence / 2.0)
}

/// The 97.5% normal quantile, to every digit an `f64` holds.
pub(crate) const Z_95: f64 = 1.959_963_984_540_054;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tests::p;

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), table I: 81/263 -> 0.2553 to 0.3662; 15/148 -> 0.0624 to 0.1605.
        let a = p(81, 263).wilson(0.95);
        assert!(
            (a.low - 0.2553).abs() < 5e-5 && (a.high - 0.3662).abs() < 5e-5,
            "{a:?}"
        );
        let b = p(15, 148).wilson(0.95);
        assert!(
            (b.low - 0.0624).abs() < 5e-5 && (b.high - 0.1605).abs() < 5e-5,
            "{b:?}"
        );
        assert_eq!(p(0, 0).wilson(0.95), Interval::new(0.0, 1.0));
        let none = p(0, 10).wilson(0.95);
        assert_eq!(none.low, 0.0);
        assert!(none.high > 0.25 && none.high < 0.3, "{none:?}");
        assert!(p(5, 10).wilson(0.99).high > p(5, 10).wilson(0.95).high);
    }

    #[test]
    fn pass_at_k_and_pass_all_k_match_their_closed_forms() {
        let choose = |n: u32, k: u32| -> f64 {
            if k > n {
                return 0.0;
            }
            (0..k)
                .map(|i| f64::from(n - i) / f64::from(i + 1))
                .product()
        };
        for n in 1..=20u32 {
            for c in 0..=n {
                for k in 1..=n {
                    let rate = p(c, n);
                    let at = 1.0 - choose(n - c, k) / choose(n, k);
                    let all = choose(c, k) / choose(n, k);
                    assert!(
                        (rate.pass_at_k(k).unwrap() - at).abs() < 1e-12,
                        "pass@{k} {c}/{n}"
                    );
                    assert!(
                        (rate.pass_all_k(k).unwrap() - all).abs() < 1e-12,
                        "pass^{k} {c}/{n}"
                    );
                }
            }
        }
        assert_eq!(p(3, 5).pass_at_k(1), Some(0.6));
        assert_eq!(p(3, 5).pass_all_k(1), Some(0.6));
        assert_eq!(p(3, 5).pass_at_k(6), None);
        assert_eq!(p(3, 5).pass_all_k(0), None);
    }

    #[test]
    fn pass_at_k_is_unbiased_for_p_to_the_k() {
        // E[pass^k estimate] = p^k and E[pass@k estimate] = 1 - (1-p)^k, summed exactly over
        // the binomial distribution of c.
        let (n, k, rate) = (12u32, 3u32, 0.35f64);
        let binomial = |c: u32| {
            let choose: f64 = (0..c)
                .map(|i| f64::from(n - i) / f64::from(i + 1))
                .product();
            choose * rate.powi(c as i32) * (1.0 - rate).powi((n - c) as i32)
        };
        let (mut at, mut all) = (0.0, 0.0);
        for c in 0..=n {
            at += binomial(c) * p(c, n).pass_at_k(k).unwrap();
            all += binomial(c) * p(c, n).pass_all_k(k).unwrap();
        }
        assert!((at - (1.0 - (1.0 - rate).powi(3))).abs() < 1e-12);
        assert!((all - rate.powi(3)).abs() < 1e-12);
    }
}
