//! `deserialize_with` for an optional string that borrows from the line.
//!
//! serde's derive borrows a `#[serde(borrow)] Cow<'a, str>` field from the input, but not an
//! `Option<Cow<'a, str>>` one: that goes through `Cow`'s generic impl, which deserializes a
//! `String`, so every such field of every line was a copy of its own. [`optional_str`] reads
//! the same values (a string or `null`; anything else is the same error) and borrows the
//! string when it has no escapes.
//!
//! | JSON | result |
//! |---|---|
//! | absent (with `#[serde(default)]`), `null` | `None` |
//! | a string without escapes | `Some(Cow::Borrowed)`, a slice of the line |
//! | a string with escapes | `Some(Cow::Owned)`, unescaped |
//! | anything else | an error: ``invalid type: …, expected a string`` |

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, Error, Visitor};

/// `deserialize_with` for a `#[serde(borrow, default)] Option<Cow<'a, str>>` field.
pub(super) fn optional_str<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    deserializer.deserialize_option(OptionalStr)
}

struct OptionalStr;

impl<'de> Visitor<'de> for OptionalStr {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(Str).map(Some)
    }
}

struct Str;

impl<'de> Visitor<'de> for Str {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E: Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }

    fn visit_string<E: Error>(self, text: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct Record<'a> {
        #[serde(borrow, default, deserialize_with = "optional_str")]
        text: Option<Cow<'a, str>>,
    }

    /// What serde's own `Option<Cow<str>>` makes of the same line.
    #[derive(Deserialize, Debug)]
    struct Copied<'a> {
        #[serde(borrow, default)]
        text: Option<Cow<'a, str>>,
    }

    fn both(line: &str) -> (Result<Record<'_>, String>, Result<Copied<'_>, String>) {
        (
            serde_json::from_str::<Record>(line).map_err(|error| error.to_string()),
            serde_json::from_str::<Copied>(line).map_err(|error| error.to_string()),
        )
    }

    #[test]
    fn a_string_without_escapes_is_borrowed_and_one_with_escapes_unescaped() {
        let line = r#"{"text": "plain"}"#;
        let record: Record = serde_json::from_str(line).unwrap();
        assert!(matches!(record.text, Some(Cow::Borrowed("plain"))));
        let record: Record = serde_json::from_str(r#"{"text": "a\nb \u00e9 \"q\""}"#).unwrap();
        assert!(matches!(record.text.as_deref(), Some("a\nb é \"q\"")));
        assert!(matches!(record.text, Some(Cow::Owned(_))));
    }

    #[test]
    fn every_value_reads_as_serdes_own_option_of_cow_reads_it() {
        for line in [
            r#"{"text": "plain"}"#,
            r#"{"text": "a\\b\t\u0041"}"#,
            r#"{"text": ""}"#,
            r#"{"text": null}"#,
            r#"{}"#,
            r#"{"text": 7}"#,
            r#"{"text": -1.5}"#,
            r#"{"text": true}"#,
            r#"{"text": ["a"]}"#,
            r#"{"text": {"a": "b"}}"#,
            r#"{"text": "\ud800"}"#,
        ] {
            let (ours, serdes) = both(line);
            match (ours, serdes) {
                (Ok(ours), Ok(serdes)) => assert_eq!(ours.text, serdes.text, "{line}"),
                (Err(ours), Err(serdes)) => assert_eq!(ours, serdes, "{line}"),
                (ours, serdes) => panic!("{line}: {ours:?} against {serdes:?}"),
            }
        }
    }
}
