//! Sums and means of the figures agents and files report (tokens, milliseconds, US dollars):
//! they saturate instead of overflowing, and a cost is always a finite number.
//!
//! | figure | sum | mean | odd input |
//! |---|---|---|---|
//! | tokens, milliseconds (`u64`) | saturates at `u64::MAX` | exact (summed in `u128`), rounded to the nearest | - |
//! | cost in US dollars (`f64`) | saturates at [`MAX_COST_USD`] | of the figures, each capped, so at most the cap | a NaN or negative cost is left out, as if not reported; a larger one counts as the cap |
//! | weighted mean of scores (weights finite, >= 0) | - | [`weighted_mean`]: weights scaled by the largest first, so no sum overflows | - |
//! | any other `f64` result (snapshot bounds, differences, percentages) | - | - | [`finite`]: infinities become `±f64::MAX`, NaN becomes 0 |
//!
//! A count is printed with its thousands grouped: [`thousands`].

/// The largest cost in US dollars a sum or mean reaches: $10^15, far beyond any real run, and
/// still printed in full with its cents (`$1000000000000000.0000`).
pub(crate) const MAX_COST_USD: f64 = 1e15;

/// `u64` figures summed, saturating at `u64::MAX`.
pub(crate) fn sum(values: impl IntoIterator<Item = u64>) -> u64 {
    values.into_iter().fold(0, u64::saturating_add)
}

/// Adds `value`, when there is one, to `total` (which becomes `Some` then), saturating.
pub(crate) fn add(total: &mut Option<u64>, value: Option<u64>) {
    if let Some(value) = value {
        *total = Some(total.unwrap_or(0).saturating_add(value));
    }
}

/// The mean of `u64` figures rounded to the nearest (summed in `u128`, so exact); `None` for
/// none.
pub(crate) fn mean(values: impl IntoIterator<Item = u64>) -> Option<u64> {
    let (sum, count) = values
        .into_iter()
        .fold((0u128, 0u128), |(sum, count), value| {
            (sum + u128::from(value), count + 1)
        });
    // The mean of u64 figures is at most u64::MAX, rounding included.
    (count > 0).then(|| u64::try_from((sum + count / 2) / count).unwrap_or(u64::MAX))
}

/// A cost as sums and means count it: `None` for NaN or a negative figure, at most
/// [`MAX_COST_USD`].
pub(crate) fn cost(value: f64) -> Option<f64> {
    // `abs` turns -0 into 0, which prints without a sign.
    (value >= 0.0).then(|| value.abs().min(MAX_COST_USD))
}

/// Adds `value`, when it is a cost (see [`cost`]), to `total`, saturating at [`MAX_COST_USD`].
pub(crate) fn add_cost(total: &mut Option<f64>, value: Option<f64>) {
    if let Some(value) = value.and_then(cost) {
        *total = Some((total.unwrap_or(0.0) + value).min(MAX_COST_USD));
    }
}

/// The mean of the costs among `values` (see [`cost`]); `None` when there is none.
pub(crate) fn mean_cost(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let costs: Vec<f64> = values.into_iter().filter_map(cost).collect();
    if costs.is_empty() {
        return None;
    }
    // Capped figures sum to at most len × 10^15: finite.
    let mean = costs.iter().sum::<f64>() / costs.len() as f64;
    Some(mean.min(MAX_COST_USD))
}

/// A cost as tables show it: `$0.0123`, or `-` for none (or for NaN or a negative figure).
pub(crate) fn usd(value: Option<f64>) -> String {
    value
        .and_then(cost)
        .map_or_else(|| "-".to_owned(), |cost| format!("${cost:.4}"))
}

/// A cost as tables show it, marked `~` when it is [estimated](skillgym::Usage::cost_estimated)
/// (or a sum or mean with an estimate in it): `~$0.0123`; `-` for none.
pub(crate) fn usd_marked(value: Option<f64>, estimated: bool) -> String {
    let text = usd(value);
    if estimated && text != "-" {
        format!("~{text}")
    } else {
        text
    }
}

/// What `~` before a cost means, under every table that shows one.
pub(crate) const ESTIMATED: &str = "a cost estimated from token counts at list prices (the agent reported none; `pricing:` in skillgym.yaml sets them)";

/// The mean of `(weight, value)` pairs (values in 0..=1) weighted by their finite,
/// non-negative weights; `None` when the weights add up to 0. When the weights' sum overflows
/// (a suite may give `f64::MAX` weights), they are scaled by the largest first.
pub(crate) fn weighted_mean(pairs: &[(f64, f64)]) -> Option<f64> {
    let sums = |scale: f64| {
        pairs
            .iter()
            .fold((0.0, 0.0), |(weighted, total), &(weight, value)| {
                let share = weight / scale;
                (weighted + share * value, total + share)
            })
    };
    let (mut weighted, mut total) = sums(1.0);
    if !(total.is_finite() && weighted.is_finite()) {
        let largest = pairs.iter().map(|&(weight, _)| weight).fold(0.0, f64::max);
        (weighted, total) = sums(largest);
    }
    (total > 0.0).then(|| weighted / total)
}

/// `value`, finite: an infinity becomes `±f64::MAX`, NaN becomes 0.
pub(crate) fn finite(value: f64) -> f64 {
    if value.is_nan() {
        0.0
    } else {
        value.clamp(-f64::MAX, f64::MAX)
    }
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn integer_sums_saturate_and_means_are_exact() {
        assert_eq!(sum([u64::MAX, 1]), u64::MAX);
        assert_eq!(sum([]), 0);
        let mut total = None;
        add(&mut total, None);
        assert_eq!(total, None, "nothing reported, nothing summed");
        add(&mut total, Some(u64::MAX - 1));
        add(&mut total, Some(u64::MAX - 1));
        assert_eq!(total, Some(u64::MAX));
        assert_eq!(mean([u64::MAX, u64::MAX, u64::MAX]), Some(u64::MAX));
        assert_eq!(mean([u64::MAX, u64::MAX - 1]), Some(u64::MAX), "rounded up");
        assert_eq!(mean([1, 2]), Some(2));
        assert_eq!(mean([]), None);
    }

    #[test]
    fn costs_stay_finite_and_odd_ones_are_left_out() {
        let mut total = None;
        for value in [f64::NAN, -1.0, -0.0 - 1e-9] {
            add_cost(&mut total, Some(value));
        }
        assert_eq!(total, None);
        add_cost(&mut total, Some(f64::MAX));
        add_cost(&mut total, Some(f64::INFINITY));
        assert_eq!(total, Some(MAX_COST_USD));
        assert_eq!(mean_cost([f64::MAX, f64::MAX]), Some(MAX_COST_USD));
        assert_eq!(mean_cost([0.5, f64::NAN, 1.5, -3.0]), Some(1.0));
        assert_eq!(mean_cost([f64::NAN]), None);
        assert_eq!(usd(Some(f64::INFINITY)), "$1000000000000000.0000");
        assert_eq!(usd(Some(0.0123)), "$0.0123");
        assert_eq!(usd(Some(f64::NAN)), "-");
        assert_eq!(usd(Some(-0.0)), "$0.0000");
        assert_eq!(usd(None), "-");
        assert_eq!(usd_marked(Some(0.0123), true), "~$0.0123");
        assert_eq!(usd_marked(Some(0.0123), false), "$0.0123");
        assert_eq!(usd_marked(None, true), "-", "no figure, no mark");
        assert_eq!(usd_marked(Some(f64::NAN), true), "-");
    }

    #[test]
    fn weighted_means_take_the_largest_weights() {
        assert_eq!(
            weighted_mean(&[(f64::MAX, 1.0), (f64::MAX, 0.0)]),
            Some(0.5)
        );
        assert_eq!(weighted_mean(&[(3.0, 1.0), (1.0, 0.0)]), Some(0.75));
        assert_eq!(weighted_mean(&[(0.0, 1.0)]), None);
        assert_eq!(weighted_mean(&[]), None);
    }

    #[test]
    fn finite_clamps_infinities_and_zeroes_nan() {
        assert_eq!(finite(f64::INFINITY), f64::MAX);
        assert_eq!(finite(f64::NEG_INFINITY), -f64::MAX);
        assert_eq!(finite(f64::NAN), 0.0);
        assert_eq!(finite(1.5), 1.5);
    }
}
