//! Durations in `skillgym.yaml` (`90s`, `5m`, `2m30s`, `500ms`, `1h`): the grammar the
//! `#[skillgym::case]` macro's `timeout` uses too, from [`skillgym_grammar::duration`], which
//! documents it as a table.

use std::fmt;
use std::time::Duration;

use serde::Deserializer;
use serde::de::{self, Visitor};

pub use skillgym_grammar::duration::{DurationError, DurationErrorKind, parse_duration};

/// Serde `deserialize_with` helper: a duration string as accepted by [`parse_duration`].
pub(super) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Duration, D::Error> {
    deserializer.deserialize_str(DurationVisitor)
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
