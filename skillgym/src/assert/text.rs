//! Text matchers: a substring or a regular expression.

use std::fmt;

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

impl fmt::Display for TextMatcher {
    /// `"substring"` (quoted and escaped) or `/regex/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextMatcher::Contains(needle) => write!(f, "{needle:?}"),
            TextMatcher::Regex(regex) => f.write_str(&slashed(regex.as_str())),
        }
    }
}

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

impl From<&str> for TextMatcher {
    fn from(needle: &str) -> Self {
        TextMatcher::Contains(needle.to_owned())
    }
}

impl From<String> for TextMatcher {
    fn from(needle: String) -> Self {
        TextMatcher::Contains(needle)
    }
}

impl From<&String> for TextMatcher {
    fn from(needle: &String) -> Self {
        TextMatcher::Contains(needle.clone())
    }
}

impl From<Regex> for TextMatcher {
    fn from(regex: Regex) -> Self {
        TextMatcher::Regex(regex)
    }
}

impl From<&Regex> for TextMatcher {
    fn from(regex: &Regex) -> Self {
        TextMatcher::Regex(regex.clone())
    }
}

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
