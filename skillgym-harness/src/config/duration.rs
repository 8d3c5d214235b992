//! Human-written durations: `90s`, `5m`, `2m30s`, `500ms`, `1h`.

use std::fmt;
use std::time::Duration;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// The units accepted by [`parse_duration`], largest first, with their length in milliseconds.
const UNITS: [(&str, u64); 4] = [("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)];

/// Parses a duration written as one or more `<integer><unit>` parts, units `h`, `m`, `s`, `ms`,
/// largest unit first and each at most once: `90s`, `5m`, `2m30s`, `500ms`, `1h`, `1h30m`.
///
/// The error is a one-line explanation naming the input.
pub fn parse_duration(input: &str) -> Result<Duration, String> {
    let text = input.trim();
    let fail = |why: &str| {
        Err(format!(
            "invalid duration `{input}`: {why} (write e.g. `90s`, `5m`, `2m30s`, `500ms`, `1h`)"
        ))
    };
    if text.is_empty() {
        return fail("it is empty");
    }
    let mut rest = text;
    let mut total_ms: u64 = 0;
    // Index into UNITS of the last unit seen; the next one must be strictly smaller.
    let mut last_unit: Option<usize> = None;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return fail("expected a whole number");
        }
        let Ok(number) = rest[..digits].parse::<u64>() else {
            return fail("the number is too large");
        };
        rest = &rest[digits..];
        let unit_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        if unit_len == 0 {
            return fail("a unit is missing (h, m, s or ms)");
        }
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let Some(index) = UNITS.iter().position(|(name, _)| *name == unit) else {
            return fail(&format!("unknown unit `{unit}` (use h, m, s or ms)"));
        };
        if last_unit.is_some_and(|last| index <= last) {
            return fail("units must go from largest to smallest, each at most once");
        }
        last_unit = Some(index);
        let Some(sum) = number
            .checked_mul(UNITS[index].1)
            .and_then(|ms| total_ms.checked_add(ms))
        else {
            return fail("it is too large");
        };
        total_ms = sum;
    }
    Ok(Duration::from_millis(total_ms))
}

/// Serde `deserialize_with` helper: a duration string as accepted by [`parse_duration`].
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    deserializer.deserialize_str(DurationVisitor)
}

/// Serde `deserialize_with` helper for an optional duration (`null` or absent = `None`);
/// use together with `#[serde(default)]`.
pub fn deserialize_option<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Duration>, D::Error> {
    deserializer.deserialize_option(OptionDurationVisitor)
}

struct DurationVisitor;

impl Visitor<'_> for DurationVisitor {
    type Value = Duration;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a duration such as `90s`, `5m`, `2m30s`, `500ms` or `1h`")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Duration, E> {
        parse_duration(value).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Duration, E> {
        Err(E::custom(format!(
            "invalid duration `{value}`: a unit is missing (write e.g. `{value}s`; \
             use `timeout_ms` for a number of milliseconds)"
        )))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Duration, E> {
        Err(E::custom(format!(
            "invalid duration `{value}`: it must be positive, with a unit"
        )))
    }
}

struct OptionDurationVisitor;

impl<'de> Visitor<'de> for OptionDurationVisitor {
    type Value = Option<Duration>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        DurationVisitor.expecting(f)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserialize(deserializer).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let err = parse_duration(bad).unwrap_err();
            assert!(
                err.starts_with(&format!("invalid duration `{bad}`")),
                "{bad}: {err}"
            );
        }
        assert_eq!(
            parse_duration("90").unwrap_err(),
            "invalid duration `90`: a unit is missing (h, m, s or ms) \
             (write e.g. `90s`, `5m`, `2m30s`, `500ms`, `1h`)"
        );
        assert!(
            parse_duration("99999999999999999999h")
                .unwrap_err()
                .contains("too large")
        );
        assert!(
            parse_duration("9999999999999999h")
                .unwrap_err()
                .contains("too large")
        );
    }
}
