//! Text matchers: a substring or a regular expression.

use regex::Regex;

/// Matches text by substring (`&str`, `String`) or by regular expression ([`Regex`]).
///
/// Assertion groups take `impl Into<TextMatcher>`, so a plain string or a compiled
/// [`Regex`] can be passed directly.
///
/// ```
/// use skillgym::assert::TextMatcher;
/// use regex::Regex;
///
/// assert!(TextMatcher::from("skills find").is_match("npx skills find expo"));
/// assert!(TextMatcher::from(Regex::new(r"^npx\b").unwrap()).is_match("npx skills find"));
/// assert_eq!(TextMatcher::from("a\"b").to_string(), r#""a\"b""#);
/// assert_eq!(TextMatcher::from(Regex::new("^/src/").unwrap()).to_string(), r"/^\/src\//");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TextMatcher {
    /// Matches text that contains this substring.
    Contains(String),
    /// Matches text in which this regular expression finds a match.
    Regex(Regex),
}

impl TextMatcher {
    /// Whether `text` matches. Substring matching is case-sensitive.
    ///
    /// ```
    /// use skillgym::{Regex, assert::TextMatcher};
    ///
    /// assert!(TextMatcher::from("npm test").is_match("cd app && npm test"));
    /// assert!(!TextMatcher::from("NPM").is_match("npm test"));
    /// assert!(TextMatcher::from(Regex::new(r"(?i)^NPM").unwrap()).is_match("npm test"));
    /// ```
    pub fn is_match(&self, text: &str) -> bool {
        match self {
            TextMatcher::Contains(needle) => text.contains(needle.as_str()),
            TextMatcher::Regex(regex) => regex.is_match(text),
        }
    }
}

string_or_regex!(TextMatcher::Contains);

/// A regex pattern between slashes, `/like\/this/`: slashes inside are escaped so the
/// delimiters stay unambiguous.
pub(crate) fn slashed(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 2);
    out.push('/');
    let mut escaped = false;
    for c in pattern.chars() {
        if c == '/' && !escaped {
            out.push('\\');
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
    }
    out.push('/');
    out
}

/// What a matcher enum with a string variant and a `Regex` variant shares: `Display` as
/// `"string"` (quoted and escaped) or `/regex/`, and `From` for `&str`, `String`, `&String`
/// (the string variant), `Regex` and `&Regex`.
macro_rules! string_or_regex {
    ($matcher:ident::$string:ident) => {
        impl ::std::fmt::Display for $matcher {
            /// `"string"` (quoted and escaped) or `/regex/`.
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match self {
                    $matcher::$string(text) => write!(f, "{text:?}"),
                    $matcher::Regex(regex) => {
                        f.write_str(&$crate::assert::text::slashed(regex.as_str()))
                    }
                }
            }
        }

        impl From<&str> for $matcher {
            fn from(text: &str) -> Self {
                $matcher::$string(text.to_owned())
            }
        }

        impl From<String> for $matcher {
            fn from(text: String) -> Self {
                $matcher::$string(text)
            }
        }

        impl From<&String> for $matcher {
            fn from(text: &String) -> Self {
                $matcher::$string(text.clone())
            }
        }

        impl From<::regex::Regex> for $matcher {
            fn from(regex: ::regex::Regex) -> Self {
                $matcher::Regex(regex)
            }
        }

        impl From<&::regex::Regex> for $matcher {
            fn from(regex: &::regex::Regex) -> Self {
                $matcher::Regex(regex.clone())
            }
        }
    };
}

pub(crate) use string_or_regex;

#[cfg(test)]
mod tests {
    use super::slashed;

    #[test]
    fn slashes_inside_a_pattern_are_escaped_once() {
        assert_eq!(slashed("a/b"), r"/a\/b/");
        assert_eq!(slashed(r"a\/b"), r"/a\/b/");
        assert_eq!(slashed(r"a\\/b"), r"/a\\\/b/");
        assert_eq!(slashed(""), "//");
    }
}
