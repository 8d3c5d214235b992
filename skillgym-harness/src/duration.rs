//! Every duration the harness prints, in one place. Each place a duration is shown keeps the
//! shape its readers already know, so there is one function per shape rather than one shape:
//!
//! | function | takes | shape | where it is shown |
//! |---|---|---|---|
//! | [`compact`] | [`Duration`] | `0s`, `45s`, `2m`, `1m30s`, `1500ms` (the grammar of `skillgym.yaml`'s duration keys) | failures naming a limit (timeouts), a killed agent's run time, the per-runner averages of the summary |
//! | [`rounded`] | milliseconds | `850ms`, `12.3s`, `1m 1s` | the reporters' tables and the HTML report |
//! | [`millis`] | milliseconds | `1250ms` | a trial's line in the summary |
//! | [`clock`] | [`Duration`] | `0s`, `59s`, `1m05s`, `2h03m` | the live status lines |
//! | [`seconds`] | [`Duration`] | `60 s`, `1.2 s` | the slow-execution notices |
//! | [`decimal_seconds`] | milliseconds | `1.250` | JUnit XML's `time` attributes (for machines) |

use std::time::Duration;

/// In the grammar of `skillgym.yaml`'s duration keys, whole minutes and seconds when there is
/// no fraction of a second: `0s`, `45s`, `2m`, `1m30s`, `61m`, else milliseconds: `1500ms`.
pub(crate) fn compact(duration: Duration) -> String {
    let millis = duration.as_millis();
    if !millis.is_multiple_of(1000) {
        return format!("{millis}ms");
    }
    let seconds = millis / 1000;
    match (seconds / 60, seconds % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m{s}s"),
    }
}

/// Rounded as people say it: `850ms` below a second, `12.3s` below a minute, then `1m 1s`
/// (whole minutes and seconds, however many minutes).
pub(crate) fn rounded(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms}ms"),
        1_000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        _ => format!("{}m {}s", ms / 60_000, ms % 60_000 / 1000),
    }
}

/// Exact milliseconds: `1250ms`.
pub(crate) fn millis(ms: u64) -> String {
    format!("{ms}ms")
}

/// Elapsed time on a clock, seconds cut off: `0s`, `59s`, `1m05s`, `2h03m`.
pub(crate) fn clock(elapsed: Duration) -> String {
    let seconds = elapsed.as_secs();
    match (seconds / 3600, seconds / 60 % 60, seconds % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

/// Seconds, with the tenths cut off below when there is a fraction: `60 s`, `120 s`, `0.3 s`.
pub(crate) fn seconds(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{}.{} s", millis / 1000, millis % 1000 / 100)
    }
}

/// Seconds with millisecond precision and no unit: `1.250`.
pub(crate) fn decimal_seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest duration a report holds.
    const LONGEST: u64 = u64::MAX;

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn compact_reads_back_as_the_same_duration() {
        let cases = [
            (0, "0s"),
            (500, "500ms"),
            (1_500, "1500ms"),
            (45_000, "45s"),
            (90_000, "1m30s"),
            (120_000, "2m"),
            (3_600_000, "60m"),
            (7_384_000, "123m4s"),
            (LONGEST, "18446744073709551615ms"),
        ];
        for (millis, shown) in cases {
            assert_eq!(compact(ms(millis)), shown);
            assert_eq!(
                skillgym_grammar::duration::parse_duration(shown),
                Ok(ms(millis)),
                "{shown} parses back"
            );
        }
    }

    #[test]
    fn rounded_reads_as_people_say_it() {
        assert_eq!(rounded(0), "0ms");
        assert_eq!(rounded(850), "850ms");
        assert_eq!(rounded(999), "999ms");
        assert_eq!(rounded(1_000), "1.0s");
        assert_eq!(rounded(12_340), "12.3s");
        // Rounding to a tenth reaches 60.0s just below a minute.
        assert_eq!(rounded(59_999), "60.0s");
        assert_eq!(rounded(60_000), "1m 0s");
        assert_eq!(rounded(61_000), "1m 1s");
        assert_eq!(rounded(7_384_000), "123m 4s");
        assert_eq!(rounded(LONGEST), "307445734561825m 51s");
    }

    #[test]
    fn millis_are_exact() {
        assert_eq!(millis(0), "0ms");
        assert_eq!(millis(850), "850ms");
        assert_eq!(millis(61_000), "61000ms");
        assert_eq!(millis(3_600_000), "3600000ms");
        assert_eq!(millis(LONGEST), "18446744073709551615ms");
    }

    #[test]
    fn clock_cuts_seconds_off() {
        let clock = |s| clock(Duration::from_secs(s));
        assert_eq!(
            [clock(0), clock(59), clock(60), clock(3599), clock(7380)],
            ["0s", "59s", "1m00s", "59m59s", "2h03m"]
        );
        assert_eq!(super::clock(ms(999)), "0s");
        assert_eq!(super::clock(ms(65_999)), "1m05s");
        assert_eq!(super::clock(ms(LONGEST)), "5124095576030h25m");
    }

    #[test]
    fn seconds_keep_a_tenth_at_most() {
        let seconds = |millis| seconds(ms(millis));
        assert_eq!(
            [
                seconds(60_000),
                seconds(120_000),
                seconds(300),
                seconds(1_250)
            ],
            ["60 s", "120 s", "0.3 s", "1.2 s"]
        );
        assert_eq!(seconds(0), "0 s");
        assert_eq!(seconds(99), "0.0 s");
        assert_eq!(seconds(3_600_000), "3600 s");
        assert_eq!(seconds(LONGEST), "18446744073709551.6 s");
    }

    #[test]
    fn decimal_seconds_keep_every_millisecond() {
        assert_eq!(decimal_seconds(0), "0.000");
        assert_eq!(decimal_seconds(5), "0.005");
        assert_eq!(decimal_seconds(61_005), "61.005");
        assert_eq!(decimal_seconds(3_600_000), "3600.000");
        assert_eq!(decimal_seconds(LONGEST), "18446744073709551.615");
    }
}
