//! Validating field deserializers shared by the schema: their errors name the key and are
//! located by the YAML parser at the offending value.

use std::fmt;
use std::time::Duration;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// An optional integer `>= min` for `key` (`null` = `None`), converted to `T`.
pub(super) fn opt_int<'de, D, T>(
    deserializer: D,
    key: &'static str,
    min: u64,
) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
{
    let value = deserializer.deserialize_option(OptionOf(Int { key, min }))?;
    value
        .map(|n| {
            T::try_from(n)
                .map_err(|_| de::Error::custom(format!("`{key}` is too large, found {n}")))
        })
        .transpose()
}

/// An optional share of sessions for `key`, from 0 to 1 (`null` = `None`).
pub(crate) fn opt_fraction<'de, D: Deserializer<'de>>(
    deserializer: D,
    key: &'static str,
) -> Result<Option<f64>, D::Error> {
    let value = Option::<f64>::deserialize(deserializer)?;
    if let Some(n) = value
        && !(0.0..=1.0).contains(&n)
    {
        return Err(de::Error::custom(format!(
            "`{key}` is a share of sessions, from 0 to 1, found {n}"
        )));
    }
    Ok(value)
}

/// An optional difference of two shares for `key`, from -1 to 1 (`null` = `None`).
pub(super) fn opt_difference<'de, D: Deserializer<'de>>(
    deserializer: D,
    key: &'static str,
) -> Result<Option<f64>, D::Error> {
    let value = Option::<f64>::deserialize(deserializer)?;
    if let Some(n) = value
        && !(-1.0..=1.0).contains(&n)
    {
        return Err(de::Error::custom(format!(
            "`{key}` is a difference of two pass rates, from -1 to 1, found {n}"
        )));
    }
    Ok(value)
}

/// An optional string for `key` that must not be blank (`null` = `None`).
pub(super) fn opt_non_empty<'de, D: Deserializer<'de>>(
    deserializer: D,
    key: &'static str,
) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(deserializer)?;
    if value.as_ref().is_some_and(|s| s.trim().is_empty()) {
        return Err(de::Error::custom(format!("`{key}` must not be empty")));
    }
    Ok(value)
}

/// A section that may be left empty (`run:` with nothing under it): `null` = `T::default()`.
pub(super) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

/// A string that must not be blank (list entries such as tags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NonEmpty(pub String);

impl<'de> Deserialize<'de> for NonEmpty {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = String::deserialize(deserializer)?;
        if value.trim().is_empty() {
            return Err(de::Error::custom("expected a non-empty string"));
        }
        Ok(NonEmpty(value.trim().to_owned()))
    }
}

/// A duration string (`90s`, `2m`), see [`super::parse_duration`]; must be > 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PositiveDuration(pub Duration);

impl<'de> Deserialize<'de> for PositiveDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = super::duration::deserialize(deserializer)?;
        if value.is_zero() {
            return Err(de::Error::custom("`timeout` must be greater than zero"));
        }
        Ok(PositiveDuration(value))
    }
}

/// A number of milliseconds (`timeout_ms`), must be > 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Millis(pub u64);

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(Int {
                key: "timeout_ms",
                min: 1,
            })
            .map(Millis)
    }
}

/// Integer visitor with messages naming the key.
#[derive(Clone, Copy)]
struct Int {
    key: &'static str,
    min: u64,
}

impl Visitor<'_> for Int {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "`{}` to be an integer >= {}", self.key, self.min)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<u64, E> {
        if value < self.min {
            return Err(E::custom(format!(
                "`{}` must be at least {}, found {value}",
                self.key, self.min
            )));
        }
        Ok(value)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<u64, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) if self.min == 0 => Err(E::custom(format!(
                "`{}` must not be negative, found {value}",
                self.key
            ))),
            Err(_) => Err(E::custom(format!(
                "`{}` must be at least {}, found {value}",
                self.key, self.min
            ))),
        }
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<u64, E> {
        Err(E::custom(format!(
            "`{}` must be a whole number, found {value}",
            self.key
        )))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<u64, E> {
        Err(E::custom(format!(
            "`{}` must be an integer, found `{value}`",
            self.key
        )))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<u64, E> {
        match value.trim().parse::<i64>() {
            Ok(number) => self.visit_i64(number),
            Err(_) => Err(E::custom(format!(
                "`{}` must be an integer, found `{value}`",
                self.key
            ))),
        }
    }
}

/// Wraps a visitor so that `null` (or an empty value) gives `None`.
struct OptionOf<V>(V);

impl<'de, V: Visitor<'de> + Copy> Visitor<'de> for OptionOf<V> {
    type Value = Option<V::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self.0).map(Some)
    }
}
