//! What every assertion group shares: the report, the sink and the per-check options.

use std::panic::Location;

use super::AssertionFailure;
use super::sink::Sink;
use crate::{SessionReport, SourceLocation};

/// A question for `skillgym explain`, fixed or computed from the report.
pub(crate) enum Question<'a> {
    Text(String),
    With(Box<dyn Fn(&SessionReport) -> String + 'a>),
}

/// The state behind one assertion group.
pub(crate) struct Check<'a> {
    pub(crate) report: &'a SessionReport,
    sink: Sink<'a>,
    pub(crate) message: Option<String>,
    pub(crate) question: Option<Question<'a>>,
}

impl<'a> Check<'a> {
    pub(crate) fn new(report: &'a SessionReport, sink: Sink<'a>) -> Self {
        Check {
            report,
            sink,
            message: None,
            question: None,
        }
    }

    /// Turns a mismatch into a failure at `location` and delivers it. The mismatch's default
    /// question is used only when no question was set with `explain`.
    #[track_caller]
    pub(crate) fn settle(&mut self, location: &Location<'_>, outcome: Result<(), Mismatch>) {
        let Err(mismatch) = outcome else { return };
        let message = match &self.message {
            Some(message) => format!("{message}\n{}", mismatch.detail),
            None => mismatch.detail,
        };
        let question = match &self.question {
            Some(Question::Text(text)) => Some(text.clone()),
            Some(Question::With(ask)) => Some(ask(self.report)),
            None => mismatch.question,
        };
        let mut failure = AssertionFailure::new(message).at(SourceLocation::from(location));
        failure.question = question;
        self.sink.raise(failure);
    }
}

/// Why a check failed: the expected/observed text and the default explain question.
pub(crate) struct Mismatch {
    pub(crate) detail: String,
    pub(crate) question: Option<String>,
}

impl Mismatch {
    pub(crate) fn new(detail: String, question: impl Into<Option<String>>) -> Self {
        Mismatch {
            detail,
            question: question.into(),
        }
    }
}

/// Generates what every group type shares: a `Debug` that shows only the type's name, and
/// `because`, `explain` and `explain_with`. `$method` is the `Expect` method that opens the
/// group and `$check` a failing check used in the examples.
macro_rules! check_options {
    ($group:ident, $method:literal, $check:literal) => {
        impl ::std::fmt::Debug for $group<'_> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(::core::stringify!($group)).finish_non_exhaustive()
            }
        }

        impl<'a> $group<'a> {
            /// Puts `message` on the first line of the failure messages of the checks that
            /// follow in this chain.
            ///
            /// ```should_panic
            /// # use skillgym::prelude::*;
            /// # let report = SessionReport::default();
            #[doc = concat!("report.expect().", $method, "().because(\"the skill says so\").", $check, ";")]
            /// ```
            pub fn because(mut self, message: impl Into<String>) -> Self {
                self.check.message = Some(message.into());
                self
            }

            /// Sets the question `skillgym explain` asks the agent when a following check in
            /// this chain fails (instead of the check's default question).
            ///
            /// ```should_panic
            /// # use skillgym::prelude::*;
            /// # let report = SessionReport::default();
            #[doc = concat!("report.expect().", $method, "().explain(\"Why did you skip this?\").", $check, ";")]
            /// ```
            pub fn explain(mut self, question: impl Into<String>) -> Self {
                self.check.question = Some($crate::assert::check::Question::Text(question.into()));
                self
            }

            /// Like [`explain`](Self::explain), with the question computed from the report
            /// when the check fails.
            ///
            /// ```should_panic
            /// # use skillgym::prelude::*;
            /// # let report = SessionReport::default();
            /// report
            ///     .expect()
            #[doc = concat!("    .", $method, "()")]
            ///     .explain_with(|report| format!("You ran {} commands. Why?", report.commands().count()))
            #[doc = concat!("    .", $check, ";")]
            /// ```
            pub fn explain_with(
                mut self,
                question: impl Fn(&SessionReport) -> String + 'a,
            ) -> Self {
                self.check.question =
                    Some($crate::assert::check::Question::With(Box::new(question)));
                self
            }
        }
    };
}

pub(crate) use check_options;
