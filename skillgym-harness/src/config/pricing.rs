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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::config::{Config, ConfigError};
    use crate::pricing::{ModelPrice, PriceTable};

    const FILE: &str = "/proj/skillgym.yaml";

    fn parse(yaml: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new(FILE), yaml)
    }

    /// The error of `yaml`: line, column, message and help.
    #[track_caller]
    fn error(yaml: &str) -> (u32, u32, String, Option<String>) {
        let err = parse(yaml).expect_err("an error");
        let (path, line, column) = err.location().expect("a location");
        assert_eq!(path, PathBuf::from(FILE));
        (
            line,
            column,
            err.message().to_owned(),
            err.help().map(str::to_owned),
        )
    }

    #[test]
    fn prices_parse_with_their_defaults() {
        assert!(parse("run: {}\n").unwrap().pricing.is_empty());
        assert!(parse("pricing:\n").unwrap().pricing.is_empty());
        let config = parse(
            "pricing:\n  gpt-5.5: { input: 4, cached_input: 0.4, output: 20, reasoning: 25 }\n  local: { input: 0.5, output: 1.5 }\n",
        )
        .unwrap();
        assert_eq!(
            config.pricing["gpt-5.5"],
            ModelPrice::new(4.0, 0.4, 20.0, 25.0)
        );
        assert_eq!(
            config.pricing["local"],
            ModelPrice::new(0.5, 0.5, 1.5, 1.5),
            "cached input at the input price, reasoning at the output price"
        );
        let table = PriceTable::builtin().with(config.pricing);
        assert_eq!(table.lookup("openai/gpt-5.5").unwrap().output, 20.0);
        assert_eq!(table.lookup("local").unwrap().input, 0.5);
    }

    #[test]
    fn bad_prices_are_located_errors() {
        const HELP: &str = "e.g. `pricing: { gpt-5.5: { input: 5, cached_input: 0.5, output: 30 } }` (US dollars per million tokens)";
        assert_eq!(
            error("pricing:\n  m: { input: 1, output: 2, cache_input: 0.1 }\n"),
            (
                2,
                29,
                "unknown field `cache_input`, expected one of `input`, `cached_input`, `output`, `reasoning`".to_owned(),
                Some("did you mean `cached_input`?".to_owned())
            )
        );
        assert_eq!(
            error("pricing:\n  m: { input: -1, output: 2 }\n"),
            (
                2,
                15,
                "`input` must be a number >= 0 (US dollars per million tokens), found -1"
                    .to_owned(),
                None
            )
        );
        assert_eq!(
            error("pricing:\n  m: { input: 1, output: .inf }\n"),
            (
                2,
                26,
                "`output` must be a number >= 0 (US dollars per million tokens), found inf"
                    .to_owned(),
                None
            )
        );
        assert_eq!(
            error("pricing:\n  m: { input: 1, output: 2, reasoning: .nan }\n"),
            (
                2,
                40,
                "`reasoning` must be a number >= 0 (US dollars per million tokens), found NaN"
                    .to_owned(),
                None
            )
        );
        assert_eq!(
            error("pricing:\n  m: { input: 1 }\n"),
            (
                2,
                3,
                "the price of `m` needs `output`".to_owned(),
                Some(HELP.to_owned())
            )
        );
        assert_eq!(
            error("pricing:\n  \"\": { input: 1, output: 1 }\n"),
            (
                2,
                3,
                "a model id must not be empty".to_owned(),
                Some(HELP.to_owned())
            )
        );
        assert_eq!(
            error("pricing:\n  m: { input: 1, output: 1 }\n  m: { input: 2, output: 2 }\n"),
            (
                3,
                3,
                "duplicate key `m`".to_owned(),
                Some("a key may appear only once in a mapping".to_owned())
            )
        );
        assert_eq!(
            error("pricing:\n  m: { input: cheap, output: 1 }\n"),
            (2, 15, "invalid floating point".to_owned(), None)
        );
        assert_eq!(
            error("pricng: {}\n").3.as_deref(),
            Some("did you mean `pricing`?")
        );
    }
}
