//! `assert_*!` macros for text that is not part of a report group.

/// Asserts that a text matches a regular expression, showing the text when it does not.
///
/// Use it for text outside the report groups (a tool result, a file the agent wrote); for the
/// final output prefer `report.expect().output().matches(..)`. An optional message with
/// format arguments goes on the first line of the failure.
///
/// ```
/// use skillgym::assert_regex;
///
/// let changelog = "## 1.2.0\n- fixed the null check";
/// assert_regex!(changelog, r"(?m)^## \d+\.\d+\.\d+$");
/// assert_regex!(changelog, r"null check", "the {} entry is missing", "changelog");
/// ```
///
/// ```should_panic
/// skillgym::assert_regex!("all good", r"^error");
/// ```
#[macro_export]
macro_rules! assert_regex {
    ($text:expr, $pattern:expr $(,)?) => {
        $crate::__private::assert_regex(
            ::core::convert::AsRef::<str>::as_ref(&$text),
            $pattern,
            ::core::stringify!($text),
            ::core::option::Option::None,
        )
    };
    ($text:expr, $pattern:expr, $($message:tt)+) => {
        $crate::__private::assert_regex(
            ::core::convert::AsRef::<str>::as_ref(&$text),
            $pattern,
            ::core::stringify!($text),
            ::core::option::Option::Some(::std::format!($($message)+)),
        )
    };
}

/// Asserts that a text contains a substring, showing the text when it does not.
///
/// ```
/// use skillgym::assert_contains;
///
/// let tool_output = "added 1 package, audited 2 packages";
/// assert_contains!(tool_output, "added 1 package");
/// assert_contains!(tool_output, "audited", "npm should audit");
/// ```
///
/// ```should_panic
/// skillgym::assert_contains!("all good", "error");
/// ```
#[macro_export]
macro_rules! assert_contains {
    ($text:expr, $needle:expr $(,)?) => {
        $crate::__private::assert_contains(
            ::core::convert::AsRef::<str>::as_ref(&$text),
            ::core::convert::AsRef::<str>::as_ref(&$needle),
            ::core::stringify!($text),
            ::core::option::Option::None,
        )
    };
    ($text:expr, $needle:expr, $($message:tt)+) => {
        $crate::__private::assert_contains(
            ::core::convert::AsRef::<str>::as_ref(&$text),
            ::core::convert::AsRef::<str>::as_ref(&$needle),
            ::core::stringify!($text),
            ::core::option::Option::Some(::std::format!($($message)+)),
        )
    };
}

use super::AssertionFailure;
use super::render;
use super::sink::fail;
use super::text::slashed;
use crate::SourceLocation;

/// Backs [`assert_regex!`](crate::assert_regex).
#[doc(hidden)]
#[track_caller]
pub fn assert_regex(text: &str, pattern: &str, expression: &str, message: Option<String>) {
    let headline = match regex::Regex::new(pattern) {
        Ok(regex) if regex.is_match(text) => return,
        Ok(_) => format!("expected `{expression}` to match {}", slashed(pattern)),
        Err(error) => format!("invalid regular expression {}: {error}", slashed(pattern)),
    };
    report(headline, text, message);
}

/// Backs [`assert_contains!`](crate::assert_contains).
#[doc(hidden)]
#[track_caller]
pub fn assert_contains(text: &str, needle: &str, expression: &str, message: Option<String>) {
    if text.contains(needle) {
        return;
    }
    report(
        format!("expected `{expression}` to contain {needle:?}"),
        text,
        message,
    );
}

#[track_caller]
fn report(headline: String, text: &str, message: Option<String>) {
    let shown = render::shown_text("text", text);
    let body = match message {
        Some(message) => format!("{message}\n{headline}{shown}"),
        None => format!("{headline}{shown}"),
    };
    fail(AssertionFailure::new(body).at(SourceLocation::caller()));
}
