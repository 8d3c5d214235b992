//! Human-written durations, one grammar for the macro's `timeout = "..."` and YAML `timeout:`.
//!
//! A duration is one or more `<integer><unit>` pieces:
//!
//! | rule | accepted | rejected |
//! |---|---|---|
//! | a whole number then a unit, no sign, no fraction | `90s`, `007s` | `90`, `s`, `1.5s`, `-5s` |
//! | units `h`, `m`, `s`, `ms`, lowercase | `1h`, `5m`, `90s`, `500ms` | `2d`, `5M`, `10sec` |
//! | several pieces: largest unit first, each unit at most once | `1h30m`, `1m30s`, `1h2m3s4ms` | `30s1m`, `1m1m`, `500ms1s` |
//! | no space inside; surrounding whitespace is trimmed | ` 90s ` | `5 m`, `1m 30s`, `` (empty) |
//! | zero is a duration (the key that reads it may require more) | `0s`, `0h0m` | |
//! | at most `u64::MAX` milliseconds | | `9999999999999999h` |
//!
//! Every YAML key and the macro's `timeout` reject zero on top of this grammar.

use std::time::Duration;

/// The units, largest first, with their length in milliseconds.
const UNITS: [(&str, u64); 4] = [("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)];

/// The advice every error ends with.
const HINT: &str = "(write e.g. `90s`, `5m`, `2m30s`, `500ms`, `1h`)";

/// Parses a duration (see the [module docs](self) for the grammar).
pub fn parse_duration(input: &str) -> Result<Duration, DurationError> {
    parse_millis(input).map(Duration::from_millis)
}

/// [`parse_duration`] as a number of milliseconds.
pub fn parse_millis(input: &str) -> Result<u64, DurationError> {
    let fail = |kind| {
        Err(DurationError {
            input: input.to_owned(),
            kind,
        })
    };
    let text = input.trim();
    if text.is_empty() {
        return fail(DurationErrorKind::Empty);
    }
    if text.contains(char::is_whitespace) {
        return fail(DurationErrorKind::Space);
    }
    let mut rest = text;
    let mut total: u64 = 0;
    // Index into UNITS of the last unit seen; the next one must be strictly smaller.
    let mut last: Option<usize> = None;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return fail(DurationErrorKind::MissingNumber);
        }
        let (number, after) = rest.split_at(digits);
        let letters = after.bytes().take_while(u8::is_ascii_alphabetic).count();
        let (unit, after) = after.split_at(letters);
        rest = after;
        if unit.is_empty() {
            return fail(DurationErrorKind::MissingUnit);
        }
        let Some(index) = UNITS.iter().position(|(name, _)| *name == unit) else {
            return fail(DurationErrorKind::UnknownUnit(unit.to_owned()));
        };
        if let Some(previous) = last.filter(|&previous| index <= previous) {
            return fail(DurationErrorKind::OutOfOrder {
                unit: unit.to_owned(),
                after: UNITS[previous].0.to_owned(),
            });
        }
        last = Some(index);
        let Some(sum) = number
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(UNITS[index].1))
            .and_then(|ms| total.checked_add(ms))
        else {
            return fail(DurationErrorKind::TooLarge);
        };
        total = sum;
    }
    Ok(total)
}

/// Why a text is not a duration; displays as one line naming the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid duration `{input}`: {kind} {hint}", hint = HINT)]
pub struct DurationError {
    input: String,
    kind: DurationErrorKind,
}

/// The rule a rejected duration breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DurationErrorKind {
    /// Nothing but whitespace.
    #[error("it is empty")]
    Empty,
    /// Whitespace between the pieces or inside one (`5 m`, `1m 30s`).
    #[error("it contains a space")]
    Space,
    /// A piece does not start with a whole number (`s`, `-5s`, `1.5s`).
    #[error("expected a whole number")]
    MissingNumber,
    /// A number has no unit (`90`, `5 m`).
    #[error("a unit is missing (h, m, s or ms)")]
    MissingUnit,
    /// A unit other than `h`, `m`, `s`, `ms`.
    #[error("unknown unit `{0}` (use h, m, s or ms)")]
    UnknownUnit(String),
    /// A unit that is not smaller than the one before it (`30s1m`, `1m1m`).
    #[error("`{unit}` after `{after}`: units go from largest to smallest, each at most once")]
    OutOfOrder {
        /// The unit out of place.
        unit: String,
        /// The unit before it.
        after: String,
    },
    /// More than `u64::MAX` milliseconds.
    #[error("it is too large")]
    TooLarge,
}

impl DurationError {
    /// The text as given (untrimmed).
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The rule it breaks.
    pub fn kind(&self) -> &DurationErrorKind {
        &self.kind
    }
}

/// The accepted/rejected table that tests of every user of this grammar (the macro, YAML) run.
#[doc(hidden)]
pub mod examples {
    /// Accepted texts and their length in milliseconds.
    pub const ACCEPTED: &[(&str, u64)] = &[
        ("500ms", 500),
        ("90s", 90_000),
        ("007s", 7_000),
        ("5m", 300_000),
        ("1h", 3_600_000),
        ("2m30s", 150_000),
        ("1m30s", 90_000),
        ("1h30m", 5_400_000),
        ("1m30s250ms", 90_250),
        ("1h2m3s4ms", 3_723_004),
        (" 90s ", 90_000),
        ("\t1m30s\n", 90_000),
        ("0s", 0),
        ("0h0m", 0),
    ];

    /// Rejected texts and why (the part of the message after the quoted input).
    pub const REJECTED: &[(&str, &str)] = &[
        ("", "it is empty"),
        ("   ", "it is empty"),
        ("90", "a unit is missing (h, m, s or ms)"),
        ("5 m", "it contains a space"),
        ("1m 30s", "it contains a space"),
        ("s", "expected a whole number"),
        ("-5s", "expected a whole number"),
        ("1.5s", "a unit is missing (h, m, s or ms)"),
        ("2d", "unknown unit `d` (use h, m, s or ms)"),
        ("5M", "unknown unit `M` (use h, m, s or ms)"),
        ("10sec", "unknown unit `sec` (use h, m, s or ms)"),
        (
            "30s1m",
            "`m` after `s`: units go from largest to smallest, each at most once",
        ),
        (
            "1m1m",
            "`m` after `m`: units go from largest to smallest, each at most once",
        ),
        (
            "500ms1s",
            "`s` after `ms`: units go from largest to smallest, each at most once",
        ),
        ("9999999999999999h", "it is too large"),
        ("99999999999999999999h", "it is too large"),
        ("5124095576030h100m", "it is too large"),
    ];

    /// The whole message for a rejected `input` that breaks rule `why`.
    pub fn message(input: &str, why: &str) -> String {
        format!("invalid duration `{input}`: {why} {}", super::HINT)
    }
}

#[cfg(test)]
mod tests {
    use super::examples::{ACCEPTED, REJECTED, message};
    use super::*;

    #[test]
    fn the_table() {
        for &(text, millis) in ACCEPTED {
            assert_eq!(parse_millis(text), Ok(millis), "{text:?}");
            assert_eq!(parse_duration(text), Ok(Duration::from_millis(millis)));
        }
        for &(text, why) in REJECTED {
            let err = parse_duration(text).unwrap_err();
            assert_eq!(err.to_string(), message(text, why), "{text:?}");
            assert_eq!(err.input(), text);
        }
    }

    #[test]
    fn parses_every_unit_and_combination() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("2m30s"), Ok(Duration::from_secs(150)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(
            parse_duration("1h2m3s4ms"),
            Ok(Duration::from_millis(3_723_004))
        );
        assert_eq!(parse_duration(" 0s "), Ok(Duration::ZERO));
    }

    #[test]
    fn rejects_malformed_durations() {
        for bad in [
            "", "90", "s", "5 m", "1.5s", "2d", "30s2m", "1m1m", "-5s", "5M",
        ] {
            let err = parse_duration(bad).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("invalid duration `{bad}`")),
                "{bad}: {err}"
            );
        }
        assert_eq!(
            parse_duration("90").unwrap_err().to_string(),
            "invalid duration `90`: a unit is missing (h, m, s or ms) \
             (write e.g. `90s`, `5m`, `2m30s`, `500ms`, `1h`)"
        );
        assert!(
            parse_duration("99999999999999999999h")
                .unwrap_err()
                .to_string()
                .contains("too large")
        );
        assert!(
            parse_duration("9999999999999999h")
                .unwrap_err()
                .to_string()
                .contains("too large")
        );
    }

    #[test]
    fn errors_name_the_rule() {
        let err = parse_duration("30s1m").unwrap_err();
        assert_eq!(
            err.kind(),
            &DurationErrorKind::OutOfOrder {
                unit: "m".to_owned(),
                after: "s".to_owned()
            }
        );
        assert_eq!(
            parse_duration("2d").unwrap_err().kind(),
            &DurationErrorKind::UnknownUnit("d".to_owned())
        );
        assert_eq!(
            parse_duration("18446744073709551615ms").map(|d| d.as_millis()),
            Ok(u128::from(u64::MAX))
        );
    }
}
