//! The one place that talks to the YAML library (serde-saphyr), so it can be swapped.
//!
//! Everything else deserializes through [`parse`], gets a [`ConfigError`] that points at
//! file:line:column, and captures source positions with [`Located`].

use std::cell::RefCell;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_saphyr::{Error as YamlError, MessageFormatter as _, UserMessageFormatter};

use super::ConfigError;
use crate::suggest::did_you_mean;

/// Separates a message from its `help:` text inside a custom serde error (see [`with_help`]).
const HELP_SEPARATOR: &str = "\n  help: ";

thread_local! {
    /// The position registered by [`locate`] for the message it returned.
    static LOCATED: RefCell<Option<(String, u32, u32)>> = const { RefCell::new(None) };
}

/// Deserializes the YAML document `text`, read from `path` (named in errors).
///
/// Unknown fields and unknown enum values get a "did you mean" help line; every error carries
/// the position reported by the parser, or the one registered with [`locate`].
pub(crate) fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
    parse_with(path, text, serde_saphyr::Options::default())
}

/// [`parse`] with YAML 1.2 core booleans only (`yes`, `no`, `on`, `off` stay strings), as
/// agentv's suites are read.
pub(crate) fn parse_yaml_1_2<T: DeserializeOwned>(
    path: &Path,
    text: &str,
) -> Result<T, ConfigError> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    parse_with(path, text, options)
}

fn parse_with<T: DeserializeOwned>(
    path: &Path,
    text: &str,
    options: serde_saphyr::Options,
) -> Result<T, ConfigError> {
    LOCATED.with_borrow_mut(Option::take);
    let result = serde_saphyr::from_str_with_options::<T>(text, options);
    let registered = LOCATED.with_borrow_mut(Option::take);
    result.map_err(|err| convert(path, text, &err, registered))
}

/// A deserialized value with the 1-based position of its YAML node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// 1-based line of the node (0 when unknown).
    pub line: u32,
    /// 1-based column of the node (0 when unknown).
    pub column: u32,
}

impl<T> Located<T> {
    /// Registers `message` as an error at this value's position; see [`locate`].
    pub fn error(&self, message: impl Into<String>) -> String {
        locate(self.line, self.column, message)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<T>::deserialize(deserializer)?;
        let location = spanned.referenced;
        Ok(Located {
            value: spanned.value,
            line: u32::try_from(location.line()).unwrap_or(0),
            column: u32::try_from(location.column()).unwrap_or(0),
        })
    }
}

/// Registers an explicit position for an error message a `Deserialize` impl is about to raise
/// with `serde::de::Error::custom(message)`, and returns the message.
///
/// Without it, a custom error raised after a whole mapping was read points at that mapping;
/// with it, [`parse`] reports the registered position (e.g. a field captured with [`Located`]).
pub(crate) fn locate(line: u32, column: u32, message: impl Into<String>) -> String {
    let message = message.into();
    if line > 0 {
        LOCATED.with_borrow_mut(|slot| *slot = Some((message.clone(), line, column)));
    }
    message
}

/// Joins an error message and a help text so that [`parse`] shows the help on its own line.
pub(crate) fn with_help(message: impl Into<String>, help: &str) -> String {
    format!("{}{HELP_SEPARATOR}{help}", message.into())
}

/// Turns a serde-saphyr error into a [`ConfigError`] with our wording.
fn convert(
    path: &Path,
    text: &str,
    err: &YamlError,
    registered: Option<(String, u32, u32)>,
) -> ConfigError {
    let mut inner = err;
    while let YamlError::WithSnippet { error, .. } | YamlError::AliasError { error, .. } = inner {
        inner = error;
    }
    let (mut line, mut column) = err
        .location()
        .map(|l| {
            (
                u32::try_from(l.line()).unwrap_or(0),
                u32::try_from(l.column()).unwrap_or(0),
            )
        })
        .unwrap_or((0, 0));
    let (message, help) = match inner {
        YamlError::SerdeUnknownField {
            field, expected, ..
        } => unknown("field", field, expected),
        YamlError::SerdeUnknownVariant {
            variant, expected, ..
        } => unknown("value", variant, expected),
        YamlError::DuplicateMappingKey { key, .. } => (
            match key {
                Some(key) => format!("duplicate key `{key}`"),
                None => "duplicate key".to_owned(),
            },
            Some("a key may appear only once in a mapping".to_owned()),
        ),
        YamlError::Message { msg, .. } => {
            if let Some((registered_message, l, c)) = &registered
                && registered_message == msg
            {
                (line, column) = (*l, *c);
            }
            match msg.split_once(HELP_SEPARATOR) {
                Some((message, help)) => (message.to_owned(), Some(help.to_owned())),
                None => (msg.clone(), None),
            }
        }
        other => {
            let text = UserMessageFormatter.format_message(other);
            let text: String = text
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            (text, None)
        }
    };
    let error = if line > 0 {
        ConfigError::at(path, text, line, column, message)
    } else {
        ConfigError::new(Some(path), message)
    };
    match help {
        Some(help) => error.with_help(help),
        None => error,
    }
}

/// Message and help for an unknown field or enum value.
fn unknown(what: &str, name: &str, expected: &[&str]) -> (String, Option<String>) {
    // camelCase aliases are accepted but not advertised.
    let shown: Vec<String> = expected
        .iter()
        .filter(|name| !name.chars().any(|c| c.is_ascii_uppercase()))
        .map(|name| format!("`{name}`"))
        .collect();
    let message = match shown.len() {
        0 => format!("unknown {what} `{name}`, there are none here"),
        1 => format!("unknown {what} `{name}`, expected {}", shown[0]),
        _ => format!(
            "unknown {what} `{name}`, expected one of {}",
            shown.join(", ")
        ),
    };
    let help = did_you_mean(name, expected.iter().copied()).map(|s| format!("did you mean `{s}`?"));
    (message, help)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        #[serde(default, alias = "camelName")]
        snake_name: Option<u32>,
        #[serde(default)]
        other: Option<Located<String>>,
    }

    #[test]
    fn aliases_are_accepted() {
        let doc: Doc = parse(Path::new("x.yaml"), "camelName: 3\n").unwrap();
        assert_eq!(doc.snake_name, Some(3));
    }

    #[test]
    fn located_captures_the_value_position() {
        let doc: Doc = parse(Path::new("x.yaml"), "other: hello\n").unwrap();
        let other = doc.other.unwrap();
        assert_eq!(
            (other.value.as_str(), other.line, other.column),
            ("hello", 1, 8)
        );
    }

    #[test]
    fn unknown_field_hides_camel_aliases_but_suggests() {
        let err = parse::<Doc>(Path::new("/x.yaml"), "snake_nam: 1\n").unwrap_err();
        assert_eq!(
            err.message(),
            "unknown field `snake_nam`, expected one of `snake_name`, `other`"
        );
        assert_eq!(err.help(), Some("did you mean `snake_name`?"));
        assert_eq!(err.location(), Some((PathBuf::from("/x.yaml"), 1, 1)));
    }

    #[test]
    fn other_errors_lose_the_library_location_suffix() {
        let err = parse::<Doc>(Path::new("/x.yaml"), "snake_name: [1]\n").unwrap_err();
        assert!(!err.message().contains("line"), "{}", err.message());
        assert_eq!(err.location(), Some((PathBuf::from("/x.yaml"), 1, 13)));
    }
}
