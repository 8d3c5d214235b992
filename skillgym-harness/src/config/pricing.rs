//! `pricing:`, the prices costs are estimated with when an agent reports none (see
//! [`crate::pricing`]): per model id, US dollars per million tokens. An entry replaces the
//! built-in price of its model, or adds one.
//!
//! ```yaml
//! pricing:
//!   gpt-5.5: { input: 5, cached_input: 0.5, output: 30, reasoning: 30 }
//!   my-local-model: { input: 0, output: 0 }   # cached_input defaults to input, reasoning to output
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::yaml::{self, Located};
use crate::pricing::ModelPrice;

const HELP: &str = "e.g. `pricing: { gpt-5.5: { input: 5, cached_input: 0.5, output: 30 } }` (US dollars per million tokens)";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrice {
    #[serde(default)]
    input: Option<Located<f64>>,
    #[serde(default)]
    cached_input: Option<Located<f64>>,
    #[serde(default)]
    output: Option<Located<f64>>,
    #[serde(default)]
    reasoning: Option<Located<f64>>,
}

/// `pricing:` as a mapping from model id to its prices; a missing or empty section is none.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, ModelPrice>, D::Error> {
    deserializer.deserialize_option(Prices)
}

struct Prices;

impl<'de> Visitor<'de> for Prices {
    type Value = BTreeMap<String, ModelPrice>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping from model id to its prices")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(BTreeMap::new())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(BTreeMap::new())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut prices = BTreeMap::new();
        while let Some(id) = map.next_key::<Located<String>>()? {
            if id.value.trim().is_empty() {
                return Err(de::Error::custom(
                    id.error(yaml::with_help("a model id must not be empty", HELP)),
                ));
            }
            if prices.contains_key(&id.value) {
                return Err(de::Error::custom(
                    id.error(format!("duplicate model `{}` in `pricing`", id.value)),
                ));
            }
            let raw = map.next_value::<Located<RawPrice>>()?;
            let price = price_of(&id, raw).map_err(de::Error::custom)?;
            prices.insert(id.value, price);
        }
        Ok(prices)
    }
}

/// An entry's prices: `input` and `output` required, every price a finite number >= 0.
fn price_of(id: &Located<String>, raw: Located<RawPrice>) -> Result<ModelPrice, String> {
    let Located { value: raw, .. } = raw;
    for (key, value) in [
        ("input", &raw.input),
        ("cached_input", &raw.cached_input),
        ("output", &raw.output),
        ("reasoning", &raw.reasoning),
    ] {
        if let Some(value) = value
            && !(value.value.is_finite() && value.value >= 0.0)
        {
            return Err(value.error(format!(
                "`{key}` must be a number >= 0 (US dollars per million tokens), found {}",
                value.value
            )));
        }
    }
    let required = |key: &str, value: &Option<Located<f64>>| {
        value.as_ref().map(|v| v.value).ok_or_else(|| {
            id.error(yaml::with_help(
                format!("the price of `{}` needs `{key}`", id.value),
                HELP,
            ))
        })
    };
    let input = required("input", &raw.input)?;
    let output = required("output", &raw.output)?;
    Ok(ModelPrice::new(
        input,
        raw.cached_input.map_or(input, |v| v.value),
        output,
        raw.reasoning.map_or(output, |v| v.value),
    ))
}
