//! The rules of a snapshot check: one execution's figure against its baseline, decided without
//! touching a file.
//!
//! | situation | verdict | passes | writes (outside CI) | writes under CI |
//! |---|---|---|---|---|
//! | `--update-snapshots` | `created` / `updated` | yes | the baseline | the baseline |
//! | no baseline (or one of another metric) | `missing` | yes; under CI no | `.new` | nothing |
//! | within the tolerance | `passed` | yes | drops a stale `.new` entry | nothing |
//! | above it | `exceeded` | no | `.new` | nothing |
//! | below it | `improved` | yes; no with `improvements: fail` | `.new` | nothing |
//! | the metric is not reported | `unavailable` | no | nothing | nothing |

use std::path::Path;

use super::store::{Entry, pending_path};
use crate::config::{Improvements, Tolerance};
use crate::figures::{MAX_COST_USD, finite};
use crate::results::{Allowed, SnapshotCheck, SnapshotMetric, SnapshotVerdict as Verdict};

/// How a check is made: the section's rules and the run's mode.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules<'a> {
    pub metric: SnapshotMetric,
    pub tolerance: Tolerance,
    pub improvements: Improvements,
    /// The baseline file (named in messages).
    pub path: &'a Path,
    /// Under CI nothing is written and a missing baseline fails.
    pub ci: bool,
    /// `--update-snapshots`: the figure becomes the baseline.
    pub update: bool,
}

/// What a check asks to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Write {
    /// Nothing.
    Nothing,
    /// The figure into the baseline (and out of `.new`).
    Baseline,
    /// The figure into `.new`.
    Pending,
    /// The key out of `.new`, where an older figure may wait.
    ClearPending,
}

/// A check's outcome: the record, the failure message when it fails, what to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub check: SnapshotCheck,
    pub failure: Option<String>,
    pub write: Write,
}

/// Checks `value` (`None`: not reported) of `case` on `runner` against `baseline`.
pub(crate) fn decide(
    case: &str,
    runner: &str,
    value: Option<f64>,
    baseline: Option<&Entry>,
    rules: &Rules<'_>,
) -> Decision {
    let key = format!("{case}::{runner}");
    let metric = rules.metric;
    let mut check = SnapshotCheck {
        key: key.clone(),
        metric,
        value,
        baseline: None,
        allowed: None,
        verdict: Verdict::Unavailable,
        pending: false,
        baseline_version: None,
    };
    let Some(value) = value else {
        return Decision {
            failure: Some(format!(
                "snapshot `{key}`: the metric `{metric}` is unavailable for case `{case}` on runner `{runner}`: the agent did not report it in every passing repetition"
            )),
            check,
            write: Write::Nothing,
        };
    };
    let same_metric = baseline.filter(|entry| entry.metric == metric);
    if rules.update {
        check.baseline = same_metric.map(|entry| entry.value);
        check.verdict = if same_metric.is_some() {
            Verdict::Updated
        } else {
            Verdict::Created
        };
        return Decision {
            check,
            failure: None,
            write: Write::Baseline,
        };
    }
    let Some(entry) = same_metric else {
        return missing_baseline(check, value, baseline, rules);
    };
    compare(check, value, entry.value, rules)
}

/// No baseline of this metric: under CI a failure, else the value waits in `.new`.
fn missing_baseline(
    mut check: SnapshotCheck,
    value: f64,
    baseline: Option<&Entry>,
    rules: &Rules<'_>,
) -> Decision {
    let (key, metric) = (&check.key, rules.metric);
    check.verdict = Verdict::Missing;
    let other = baseline.map_or(String::new(), |entry| {
        format!(" (its entry records `{}`)", entry.metric)
    });
    if rules.ci {
        return Decision {
            failure: Some(format!(
                "snapshot `{key}`: no {metric} baseline in {}{other}; the value was {}, and under CI none is recorded\n  record one locally with --update-snapshots (or `cargo skillgym review`) and commit the file",
                rules.path.display(),
                show(metric, value),
            )),
            check,
            write: Write::Nothing,
        };
    }
    check.pending = true;
    Decision {
        check,
        failure: None,
        write: Write::Pending,
    }
}

/// `value` against the baseline `recorded`, within the tolerance: passed (and any pending
/// figure cleared), or exceeded/improved, which waits in `.new` and may fail.
fn compare(mut check: SnapshotCheck, value: f64, recorded: f64, rules: &Rules<'_>) -> Decision {
    // Finite bounds, whatever the baseline and tolerance: an infinite one would be written
    // to `result.json` as `null`, which no reader takes back.
    let base = finite(recorded);
    let allowance = finite(rules.tolerance.allowance(base)).max(0.0);
    let allowed = Allowed {
        low: (base - allowance).max(0.0),
        high: finite(base + allowance),
    };
    check.baseline = Some(base);
    check.allowed = Some(allowed);
    check.verdict = if value > allowed.high {
        Verdict::Exceeded
    } else if value < allowed.low {
        Verdict::Improved
    } else {
        Verdict::Passed
    };
    if check.verdict == Verdict::Passed {
        let write = if rules.ci {
            Write::Nothing
        } else {
            Write::ClearPending
        };
        return Decision {
            check,
            failure: None,
            write,
        };
    }
    check.pending = !rules.ci;
    let fails = check.verdict == Verdict::Exceeded || rules.improvements == Improvements::Fail;
    let failure = fails.then(|| mismatch(&check.key, value, base, allowed, rules));
    Decision {
        check,
        failure,
        write: if rules.ci {
            Write::Nothing
        } else {
            Write::Pending
        },
    }
}

/// The failure message of a figure outside its allowed range.
fn mismatch(key: &str, value: f64, base: f64, allowed: Allowed, rules: &Rules<'_>) -> String {
    let metric = rules.metric;
    let (relation, bound) = if value > allowed.high {
        ("above the allowed", allowed.high)
    } else {
        ("below the allowed", allowed.low)
    };
    let mut text = format!(
        "snapshot `{key}`: {metric} {} is {relation} {} (baseline {}, {})\n  tolerance: {}",
        show(metric, value),
        show(metric, bound),
        show(metric, base),
        delta(metric, value, base),
        describe(metric, &rules.tolerance),
    );
    if value < allowed.low {
        text.push_str("; `improvements: fail` asks for the lower baseline to be accepted");
    }
    if rules.ci {
        text.push_str("\n  accept it: rerun locally with --update-snapshots (or `cargo skillgym review`) and commit the file; under CI nothing is written");
    } else {
        text.push_str(&format!(
            "\n  accept it: `cargo skillgym review` (the value waits in {}), or rerun with --update-snapshots",
            pending_path(rules.path).display()
        ));
    }
    text
}

/// `+250, +25.0%` (no percentage against a zero baseline).
pub fn delta(metric: SnapshotMetric, value: f64, base: f64) -> String {
    let difference = finite(value - base);
    let sign = if difference < 0.0 { "-" } else { "+" };
    let mut text = format!("{sign}{}", show(metric, difference.abs()));
    if base != 0.0 {
        let percent = finite(difference / base * 100.0).abs();
        text.push_str(&format!(", {sign}{}%", fixed(percent, 1)));
    }
    text
}

/// `±100`, `±10%`, or `±100 or ±10%, whichever is larger`.
fn describe(metric: SnapshotMetric, tolerance: &Tolerance) -> String {
    let absolute = tolerance.absolute.map(|a| format!("±{}", show(metric, a)));
    let percent = tolerance.percent.map(|p| format!("±{p}%"));
    match (absolute, percent) {
        (Some(a), Some(p)) => format!("{a} or {p}, whichever is larger"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => "none".to_owned(),
    }
}

/// A figure in its metric's unit: `1,250` tokens, `$0.0125`, `1,250ms` (`1.8e308` for one
/// beyond $10^15 or `u64::MAX` tokens or milliseconds, which only a hand-edited file holds).
pub fn show(metric: SnapshotMetric, value: f64) -> String {
    let magnitude = finite(value).abs();
    let number = if magnitude.fract() == 0.0 && magnitude < u64::MAX as f64 {
        crate::figures::thousands(magnitude as u64)
    } else if magnitude < u64::MAX as f64 {
        fixed(magnitude, 2)
    } else {
        format!("{magnitude:.1e}")
    };
    let sign = if value < 0.0 { "-" } else { "" };
    match metric {
        SnapshotMetric::Cost => format!("{sign}${}", fixed(magnitude, 4)),
        SnapshotMetric::Duration => format!("{sign}{number}ms"),
        _ => format!("{sign}{number}"),
    }
}

/// `magnitude` with `decimals` places up to [`MAX_COST_USD`] (10^15), in scientific notation
/// beyond, where the places mean nothing and the digits would run to hundreds.
fn fixed(magnitude: f64, decimals: usize) -> String {
    if magnitude <= MAX_COST_USD {
        format!("{magnitude:.decimals$}")
    } else {
        format!("{magnitude:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "/p/skillgym.snapshots.json";

    fn rules(absolute: Option<f64>, percent: Option<f64>) -> Rules<'static> {
        Rules {
            metric: SnapshotMetric::TotalTokens,
            tolerance: Tolerance::new(absolute, percent),
            improvements: Improvements::Pass,
            path: Path::new(FILE),
            ci: false,
            update: false,
        }
    }

    fn baseline(value: f64) -> Entry {
        Entry {
            metric: SnapshotMetric::TotalTokens,
            value,
            agent: "command".into(),
            model: None,
            version: None,
            updated_at: "t".into(),
        }
    }

    fn verdict(value: f64, base: f64, rules: &Rules<'_>) -> (Verdict, bool) {
        let decision = decide("c", "r", Some(value), Some(&baseline(base)), rules);
        (decision.check.verdict, decision.failure.is_none())
    }

    #[test]
    fn absolute_tolerance() {
        let rules = rules(Some(100.0), None);
        assert_eq!(verdict(1000.0, 1000.0, &rules), (Verdict::Passed, true));
        assert_eq!(verdict(1100.0, 1000.0, &rules), (Verdict::Passed, true));
        assert_eq!(verdict(1101.0, 1000.0, &rules), (Verdict::Exceeded, false));
        assert_eq!(verdict(900.0, 1000.0, &rules), (Verdict::Passed, true));
        assert_eq!(verdict(899.0, 1000.0, &rules), (Verdict::Improved, true));
    }

    #[test]
    fn percent_tolerance() {
        let rules = rules(None, Some(10.0));
        assert_eq!(verdict(1100.0, 1000.0, &rules), (Verdict::Passed, true));
        assert_eq!(verdict(1101.0, 1000.0, &rules), (Verdict::Exceeded, false));
        assert_eq!(verdict(20.0, 0.0, &rules), (Verdict::Exceeded, false));
        assert_eq!(verdict(0.0, 0.0, &rules), (Verdict::Passed, true));
    }

    #[test]
    fn with_both_tolerances_the_larger_allowance_wins() {
        let rules = rules(Some(200.0), Some(10.0));
        // A small baseline: the absolute allowance (200) is the larger.
        assert_eq!(verdict(1200.0, 1000.0, &rules), (Verdict::Passed, true));
        assert_eq!(verdict(1201.0, 1000.0, &rules), (Verdict::Exceeded, false));
        // A large one: 10% (1,000) is.
        assert_eq!(verdict(11_000.0, 10_000.0, &rules), (Verdict::Passed, true));
        assert_eq!(
            verdict(11_001.0, 10_000.0, &rules),
            (Verdict::Exceeded, false)
        );
    }

    #[test]
    fn improvements_pass_by_default_and_fail_when_asked() {
        let mut rules = rules(None, Some(10.0));
        let decision = decide("c", "r", Some(700.0), Some(&baseline(1000.0)), &rules);
        assert_eq!(decision.check.verdict, Verdict::Improved);
        assert_eq!(
            (decision.failure, decision.write, decision.check.pending),
            (None, Write::Pending, true),
            "a pass, proposed as the new baseline"
        );
        rules.improvements = Improvements::Fail;
        let decision = decide("c", "r", Some(700.0), Some(&baseline(1000.0)), &rules);
        assert_eq!(
            decision.failure.unwrap(),
            "snapshot `c::r`: total_tokens 700 is below the allowed 900 (baseline 1,000, -300, -30.0%)\n  tolerance: ±10%; `improvements: fail` asks for the lower baseline to be accepted\n  accept it: `cargo skillgym review` (the value waits in /p/skillgym.snapshots.json.new), or rerun with --update-snapshots"
        );
    }

    #[test]
    fn an_exceeded_figure_says_everything_needed_to_accept_it() {
        let decision = decide(
            "c",
            "r",
            Some(1250.0),
            Some(&baseline(1000.0)),
            &rules(Some(100.0), Some(5.0)),
        );
        assert_eq!(
            decision.check,
            SnapshotCheck {
                key: "c::r".into(),
                metric: SnapshotMetric::TotalTokens,
                value: Some(1250.0),
                baseline: Some(1000.0),
                allowed: Some(Allowed {
                    low: 900.0,
                    high: 1100.0
                }),
                verdict: Verdict::Exceeded,
                pending: true,
                baseline_version: None,
            }
        );
        assert_eq!(decision.write, Write::Pending);
        assert_eq!(
            decision.failure.unwrap(),
            "snapshot `c::r`: total_tokens 1,250 is above the allowed 1,100 (baseline 1,000, +250, +25.0%)\n  tolerance: ±100 or ±5%, whichever is larger\n  accept it: `cargo skillgym review` (the value waits in /p/skillgym.snapshots.json.new), or rerun with --update-snapshots"
        );
    }

    #[test]
    fn a_missing_baseline_is_pending_outside_ci_and_fails_under_it() {
        let mut rules = rules(None, Some(10.0));
        let decision = decide("c", "r", Some(1000.0), None, &rules);
        assert_eq!(
            (
                decision.check.verdict,
                decision.check.pending,
                decision.write
            ),
            (Verdict::Missing, true, Write::Pending)
        );
        assert_eq!(decision.failure, None);
        rules.ci = true;
        let decision = decide("c", "r", Some(1000.0), None, &rules);
        assert_eq!(
            (decision.check.pending, decision.write),
            (false, Write::Nothing)
        );
        assert_eq!(
            decision.failure.unwrap(),
            "snapshot `c::r`: no total_tokens baseline in /p/skillgym.snapshots.json; the value was 1,000, and under CI none is recorded\n  record one locally with --update-snapshots (or `cargo skillgym review`) and commit the file"
        );
        // A baseline of another metric is no baseline for this one.
        let mut other = baseline(5.0);
        other.metric = SnapshotMetric::Cost;
        let decision = decide("c", "r", Some(1000.0), Some(&other), &rules);
        assert_eq!(decision.check.verdict, Verdict::Missing);
        assert!(
            decision
                .failure
                .unwrap()
                .contains("(its entry records `cost`)")
        );
    }

    #[test]
    fn under_ci_nothing_is_written() {
        let mut rules = rules(Some(10.0), None);
        rules.ci = true;
        for value in [1000.0, 2000.0, 10.0] {
            let decision = decide("c", "r", Some(value), Some(&baseline(1000.0)), &rules);
            assert_eq!(decision.write, Write::Nothing, "{value}");
            assert!(!decision.check.pending);
        }
        let failure = decide("c", "r", Some(2000.0), Some(&baseline(1000.0)), &rules)
            .failure
            .unwrap();
        assert!(
            failure.ends_with("accept it: rerun locally with --update-snapshots (or `cargo skillgym review`) and commit the file; under CI nothing is written"),
            "{failure}"
        );
    }

    #[test]
    fn update_records_the_figure_whatever_it_is_even_under_ci() {
        let mut rules = rules(Some(10.0), None);
        rules.update = true;
        rules.ci = true;
        let decision = decide("c", "r", Some(5000.0), Some(&baseline(1000.0)), &rules);
        assert_eq!(
            (
                decision.check.verdict,
                decision.check.baseline,
                decision.write
            ),
            (Verdict::Updated, Some(1000.0), Write::Baseline)
        );
        assert_eq!(decision.failure, None);
        let decision = decide("c", "r", Some(5000.0), None, &rules);
        assert_eq!(decision.check.verdict, Verdict::Created);
    }

    #[test]
    fn within_the_tolerance_a_stale_pending_value_is_dropped() {
        let decision = decide(
            "c",
            "r",
            Some(1005.0),
            Some(&baseline(1000.0)),
            &rules(Some(10.0), None),
        );
        assert_eq!(
            (decision.check.verdict, decision.write),
            (Verdict::Passed, Write::ClearPending)
        );
    }

    #[test]
    fn a_metric_not_reported_fails_by_name() {
        let mut rules = rules(Some(10.0), None);
        rules.metric = SnapshotMetric::Cost;
        rules.update = true;
        let decision = decide("case", "runner", None, None, &rules);
        assert_eq!(decision.check.verdict, Verdict::Unavailable);
        assert_eq!(
            decision.write,
            Write::Nothing,
            "not even with --update-snapshots"
        );
        assert_eq!(
            decision.failure.unwrap(),
            "snapshot `case::runner`: the metric `cost` is unavailable for case `case` on runner `runner`: the agent did not report it in every passing repetition"
        );
    }

    #[test]
    fn figures_are_shown_in_their_unit() {
        assert_eq!(show(SnapshotMetric::TotalTokens, 1_234_567.0), "1,234,567");
        assert_eq!(show(SnapshotMetric::InputTokens, 12.5), "12.50");
        assert_eq!(show(SnapshotMetric::Cost, 0.0125), "$0.0125");
        assert_eq!(show(SnapshotMetric::Duration, 1500.0), "1,500ms");
        assert_eq!(delta(SnapshotMetric::Cost, 0.01, 0.02), "-$0.0100, -50.0%");
        assert_eq!(delta(SnapshotMetric::TotalTokens, 5.0, 0.0), "+5");
    }

    #[test]
    fn a_huge_baseline_keeps_finite_bounds_that_read_back_from_result_json() {
        let decision = decide(
            "c",
            "r",
            Some(u64::MAX as f64),
            Some(&baseline(f64::MAX)),
            &rules(Some(f64::MAX), Some(10.0)),
        );
        let allowed = decision.check.allowed.unwrap();
        assert_eq!((allowed.low, allowed.high), (0.0, f64::MAX));
        assert_eq!(decision.check.verdict, Verdict::Passed);
        // An infinite bound would be written as `null`, and `cargo skillgym report` would
        // refuse the `result.json`.
        let json = serde_json::to_string(&decision.check).unwrap();
        assert_eq!(
            serde_json::from_str::<SnapshotCheck>(&json).unwrap(),
            decision.check
        );
    }

    #[test]
    fn a_difference_against_a_tiny_baseline_is_a_finite_percentage() {
        assert_eq!(
            delta(SnapshotMetric::TotalTokens, 1.0, 5e-324),
            "+1, +1.8e308%"
        );
        assert_eq!(show(SnapshotMetric::TotalTokens, f64::MAX), "1.8e308");
        assert_eq!(show(SnapshotMetric::Cost, 1e300), "$1.0e300");
        assert_eq!(show(SnapshotMetric::Duration, 2e19), "2.0e19ms");
    }

    /// Figures at the edges: zero, the smallest positive, one, `u64::MAX` and beyond, the
    /// largest finite.
    fn extreme() -> impl proptest::strategy::Strategy<Value = f64> {
        proptest::prop_oneof![
            proptest::strategy::Just(0.0),
            proptest::strategy::Just(f64::MIN_POSITIVE),
            proptest::strategy::Just(5e-324),
            proptest::strategy::Just(1.0),
            proptest::strategy::Just(u64::MAX as f64),
            proptest::strategy::Just((u64::MAX - 1) as f64),
            proptest::strategy::Just(1e300),
            proptest::strategy::Just(f64::MAX),
            0.0..f64::MAX,
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]

        /// Whatever the figure, baseline and tolerance (as the config and the snapshot file
        /// admit them: finite, >= 0), the check's bounds are finite, its record reads back
        /// from JSON, and no message shows an infinity or NaN.
        #[test]
        fn extreme_figures_give_finite_bounds_and_readable_messages(
            value in extreme(),
            base in extreme(),
            absolute in proptest::option::of(extreme()),
            percent in proptest::option::of(extreme()),
            ci: bool,
            metric in proptest::sample::select(vec![
                SnapshotMetric::TotalTokens,
                SnapshotMetric::Cost,
                SnapshotMetric::Duration,
            ]),
        ) {
            let mut rules = rules(absolute, percent);
            rules.metric = metric;
            rules.ci = ci;
            rules.improvements = Improvements::Fail;
            let mut entry = baseline(base);
            entry.metric = metric;
            let decision = decide("c", "r", Some(value), Some(&entry), &rules);
            let allowed = decision.check.allowed.expect("compared with the baseline");
            proptest::prop_assert!(allowed.low.is_finite() && allowed.high.is_finite(), "{allowed:?}");
            proptest::prop_assert!(allowed.low <= base && base <= allowed.high, "{allowed:?}");
            let json = serde_json::to_string(&decision.check).unwrap();
            // (serde_json may read the last bit of a float differently: the bounds are there.)
            let back: SnapshotCheck = serde_json::from_str(&json).unwrap();
            proptest::prop_assert!(back.allowed.is_some() && back.baseline.is_some());
            let mut texts = vec![delta(metric, value, base), show(metric, value), show(metric, base)];
            texts.extend(decision.failure);
            for text in texts {
                proptest::prop_assert!(!text.contains("inf") && !text.contains("NaN"), "{}", text);
            }
        }
    }
}
