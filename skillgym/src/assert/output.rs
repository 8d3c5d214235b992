//! Checks over the agent's final answer.

use std::panic::Location;

use regex::Regex;

use super::TextMatcher;
use super::check::{Check, Mismatch, check_options};
use super::render;
use super::sink::Sink;
use super::text::slashed;
use crate::SessionReport;

/// Checks over the final output of a report. Open it with
/// [`Expect::output`](super::Expect::output).
///
/// ```
/// # use skillgym::prelude::*;
/// # let report = SessionReport::default().with_final_output("Install it with `npx skills add expo/upgrading-expo`.");
/// report
///     .expect()
///     .output()
///     .not_empty()
///     .includes("npx skills add")
///     .matches(r"(?i)upgrading-expo");
/// ```
pub struct Output<'a> {
    check: Check<'a>,
}

check_options!(Output, "output", "includes(\"done\")");

impl<'a> Output<'a> {
    pub(crate) fn new(report: &'a SessionReport, sink: Sink<'a>) -> Self {
        Output {
            check: Check::new(report, sink),
        }
    }

    fn text(&self) -> &'a str {
        &self.check.report.final_output
    }

    fn mismatch(&self, headline: String, question: String) -> Mismatch {
        let shown = render::shown_text("final output", self.text());
        Mismatch::new(format!("{headline}{shown}"), question)
    }

    /// The final output contains the text (`&str`) or a match of the [`Regex`].
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_final_output("skillgym ready");
    /// report.expect().output().includes("ready");
    /// ```
    #[doc(alias = "contains")]
    #[track_caller]
    pub fn includes(mut self, pattern: impl Into<TextMatcher>) -> Self {
        let pattern = pattern.into();
        let outcome = if pattern.is_match(self.text()) {
            Ok(())
        } else {
            Err(self.mismatch(
                format!("expected the final output to contain {pattern}"),
                format!("Why does your final answer not contain {pattern}?"),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The final output does not contain the text or a match of the regex.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_final_output("all tests pass");
    /// report.expect().output().not_includes("error");
    /// ```
    #[doc(alias("not_contains", "excludes"))]
    #[track_caller]
    pub fn not_includes(mut self, pattern: impl Into<TextMatcher>) -> Self {
        let pattern = pattern.into();
        let outcome = if pattern.is_match(self.text()) {
            Err(self.mismatch(
                format!("expected the final output not to contain {pattern}"),
                format!("Why does your final answer contain {pattern}?"),
            ))
        } else {
            Ok(())
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The final output matches the regular expression `pattern` (an invalid pattern fails
    /// the check with the regex error).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_final_output("Use upgrading-expo");
    /// report.expect().output().matches(r"(?i)UPGRADING-\w+");
    /// ```
    #[doc(alias("regex", "is_match"))]
    #[track_caller]
    pub fn matches(mut self, pattern: &str) -> Self {
        let outcome = match Regex::new(pattern) {
            Ok(regex) if regex.is_match(self.text()) => Ok(()),
            Ok(_) => Err(self.mismatch(
                format!("expected the final output to match {}", slashed(pattern)),
                format!("Why does your final answer not match {}?", slashed(pattern)),
            )),
            Err(error) => Err(Mismatch::new(
                format!("invalid regular expression {}: {error}", slashed(pattern)),
                None,
            )),
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The final output is not empty (whitespace counts as content).
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_final_output("done");
    /// report.expect().output().not_empty();
    /// ```
    #[doc(alias("is_not_empty", "non_empty"))]
    #[track_caller]
    pub fn not_empty(mut self) -> Self {
        let outcome = if self.text().is_empty() {
            Err(self.mismatch(
                "expected a final output".to_owned(),
                "Why did you finish without a final answer?".to_owned(),
            ))
        } else {
            Ok(())
        };
        self.check.settle(Location::caller(), outcome);
        self
    }

    /// The final output, trimmed, equals `expected`, trimmed.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// # let report = SessionReport::default().with_final_output("skillgym ready\n");
    /// report.expect().output().equals("skillgym ready");
    /// ```
    #[doc(alias("eq", "is", "equal"))]
    #[track_caller]
    pub fn equals(mut self, expected: &str) -> Self {
        let outcome = if self.text().trim() == expected.trim() {
            Ok(())
        } else {
            Err(self.mismatch(
                format!(
                    "expected the final output to be {:?} (trimmed)",
                    expected.trim()
                ),
                format!(
                    "Why is your final answer not exactly {:?}?",
                    expected.trim()
                ),
            ))
        };
        self.check.settle(Location::caller(), outcome);
        self
    }
}
