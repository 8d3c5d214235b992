//! Human-written sizes: `512MiB`, `64KiB`, `1GiB`, `10MB`, `4096` (bytes).

use std::fmt;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// The units accepted by [`parse_size`], with their size in bytes.
const UNITS: [(&str, u64); 7] = [
    ("B", 1),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Parses a size: a whole number of bytes, or a whole number with one unit (`B`, `KB`, `MB`,
/// `GB`, `KiB`, `MiB`, `GiB`). Zero is refused. The error is one line naming the input.
pub fn parse_size(input: &str) -> Result<u64, String> {
    let text = input.trim();
    let fail = |why: &str| {
        Err(format!(
            "invalid size `{input}`: {why} (write e.g. `512MiB`, `64KiB`, `1GiB` or a number of bytes)"
        ))
    };
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return fail("expected a whole number");
    }
    let Ok(number) = text[..digits].parse::<u64>() else {
        return fail("the number is too large");
    };
    let unit = text[digits..].trim_start();
    let factor = if unit.is_empty() {
        1
    } else {
        match UNITS.iter().find(|(name, _)| *name == unit) {
            Some((_, factor)) => *factor,
            None => return fail(&format!("unknown unit `{unit}`")),
        }
    };
    match number.checked_mul(factor) {
        Some(0) => fail("it must be more than zero"),
        Some(bytes) => Ok(bytes),
        None => fail("it is too large"),
    }
}

/// Serde `deserialize_with` helper for an optional size (`null` or absent = `None`); use with
/// `#[serde(default)]`.
pub(super) fn deserialize_option<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    deserializer.deserialize_option(OptionSizeVisitor)
}

struct SizeVisitor;

impl Visitor<'_> for SizeVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a size such as `512MiB`, `64KiB` or a number of bytes")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<u64, E> {
        parse_size(value).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<u64, E> {
        parse_size(&value.to_string()).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<u64, E> {
        Err(E::custom(format!(
            "invalid size `{value}`: it must be more than zero"
        )))
    }
}

struct OptionSizeVisitor;

impl<'de> Visitor<'de> for OptionSizeVisitor {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        SizeVisitor.expecting(f)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(SizeVisitor).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_and_without_units() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("64 KiB"), Ok(64 << 10));
        assert_eq!(parse_size("10MB"), Ok(10_000_000));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
    }

    #[test]
    fn bad_sizes_say_why() {
        let error = |text: &str| parse_size(text).unwrap_err();
        assert!(error("0").contains("more than zero"), "{}", error("0"));
        assert!(error("12XB").contains("unknown unit `XB`"));
        assert!(error("MiB").contains("expected a whole number"));
        assert!(error("99999999999999999999").contains("too large"));
        assert!(error("20000000000GiB").contains("too large"));
        assert!(error("-1").contains("expected a whole number"));
    }
}
